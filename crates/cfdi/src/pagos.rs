//! Complemento para recepción de pagos 2.0 (namespace `http://www.sat.gob.mx/Pagos20`).

use crate::construccion::{ErrorConstruccion, multiplicar, sumar};
use crate::numero::Numero;

/// Namespace of Pagos 2.0.
pub const NS_PAGOS20: &str = "http://www.sat.gob.mx/Pagos20";
/// Schema location of Pagos 2.0.
pub const XSD_PAGOS20: &str = "http://www.sat.gob.mx/sitio_internet/cfd/Pagos/Pagos20.xsd";

/// `pago20:Pagos`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Pagos {
    /// `Version`, always `2.0`.
    pub version: String,
    /// `pago20:Totales`.
    pub totales: Totales,
    /// `pago20:Pago` elements.
    pub pagos: Vec<Pago>,
}

/// `pago20:Totales`: totals in MXN of every `Pago`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Totales {
    /// `TotalRetencionesIVA`.
    pub total_retenciones_iva: Option<Numero>,
    /// `TotalRetencionesISR`.
    pub total_retenciones_isr: Option<Numero>,
    /// `TotalRetencionesIEPS`.
    pub total_retenciones_ieps: Option<Numero>,
    /// `TotalTrasladosBaseIVA16`.
    pub total_traslados_base_iva16: Option<Numero>,
    /// `TotalTrasladosImpuestoIVA16`.
    pub total_traslados_impuesto_iva16: Option<Numero>,
    /// `TotalTrasladosBaseIVA8`.
    pub total_traslados_base_iva8: Option<Numero>,
    /// `TotalTrasladosImpuestoIVA8`.
    pub total_traslados_impuesto_iva8: Option<Numero>,
    /// `TotalTrasladosBaseIVA0`.
    pub total_traslados_base_iva0: Option<Numero>,
    /// `TotalTrasladosImpuestoIVA0`.
    pub total_traslados_impuesto_iva0: Option<Numero>,
    /// `TotalTrasladosBaseIVAExento`.
    pub total_traslados_base_iva_exento: Option<Numero>,
    /// `MontoTotalPagos`.
    pub monto_total_pagos: Numero,
}

/// `pago20:Pago`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Pago {
    /// `FechaPago`.
    pub fecha_pago: String,
    /// `FormaDePagoP` (c_FormaPago).
    pub forma_de_pago_p: String,
    /// `MonedaP` (c_Moneda).
    pub moneda_p: String,
    /// `TipoCambioP`.
    pub tipo_cambio_p: Option<Numero>,
    /// `Monto`.
    pub monto: Numero,
    /// `NumOperacion`.
    pub num_operacion: Option<String>,
    /// `RfcEmisorCtaOrd`.
    pub rfc_emisor_cta_ord: Option<String>,
    /// `NomBancoOrdExt`.
    pub nom_banco_ord_ext: Option<String>,
    /// `CtaOrdenante`.
    pub cta_ordenante: Option<String>,
    /// `RfcEmisorCtaBen`.
    pub rfc_emisor_cta_ben: Option<String>,
    /// `CtaBeneficiario`.
    pub cta_beneficiario: Option<String>,
    /// `TipoCadPago`.
    pub tipo_cad_pago: Option<String>,
    /// `CertPago`.
    pub cert_pago: Option<String>,
    /// `CadPago`.
    pub cad_pago: Option<String>,
    /// `SelloPago`.
    pub sello_pago: Option<String>,
    /// `pago20:DoctoRelacionado` elements.
    pub doctos_relacionados: Vec<DoctoRelacionado>,
    /// `pago20:ImpuestosP`.
    pub impuestos_p: Option<ImpuestosP>,
}

/// `pago20:DoctoRelacionado`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DoctoRelacionado {
    /// `IdDocumento`: UUID of the paid invoice.
    pub id_documento: String,
    /// `Serie`.
    pub serie: Option<String>,
    /// `Folio`.
    pub folio: Option<String>,
    /// `MonedaDR`.
    pub moneda_dr: String,
    /// `EquivalenciaDR`.
    pub equivalencia_dr: Option<Numero>,
    /// `NumParcialidad`.
    pub num_parcialidad: String,
    /// `ImpSaldoAnt`.
    pub imp_saldo_ant: Numero,
    /// `ImpPagado`.
    pub imp_pagado: Numero,
    /// `ImpSaldoInsoluto`.
    pub imp_saldo_insoluto: Numero,
    /// `ObjetoImpDR` (c_ObjetoImp).
    pub objeto_imp_dr: String,
    /// `pago20:ImpuestosDR`.
    pub impuestos_dr: Option<ImpuestosDR>,
}

/// `pago20:ImpuestosDR`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ImpuestosDR {
    /// `pago20:RetencionesDR/pago20:RetencionDR`.
    pub retenciones_dr: Vec<RetencionDR>,
    /// `pago20:TrasladosDR/pago20:TrasladoDR`.
    pub traslados_dr: Vec<TrasladoDR>,
}

/// `pago20:RetencionDR`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RetencionDR {
    /// `BaseDR`.
    pub base_dr: Numero,
    /// `ImpuestoDR`.
    pub impuesto_dr: String,
    /// `TipoFactorDR`.
    pub tipo_factor_dr: String,
    /// `TasaOCuotaDR`.
    pub tasa_o_cuota_dr: Numero,
    /// `ImporteDR`.
    pub importe_dr: Numero,
}

/// `pago20:TrasladoDR`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TrasladoDR {
    /// `BaseDR`.
    pub base_dr: Numero,
    /// `ImpuestoDR`.
    pub impuesto_dr: String,
    /// `TipoFactorDR`.
    pub tipo_factor_dr: String,
    /// `TasaOCuotaDR` (absent when Exento).
    pub tasa_o_cuota_dr: Option<Numero>,
    /// `ImporteDR` (absent when Exento).
    pub importe_dr: Option<Numero>,
}

/// `pago20:ImpuestosP`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ImpuestosP {
    /// `pago20:RetencionesP/pago20:RetencionP`.
    pub retenciones_p: Vec<RetencionP>,
    /// `pago20:TrasladosP/pago20:TrasladoP`.
    pub traslados_p: Vec<TrasladoP>,
}

/// `pago20:RetencionP`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RetencionP {
    /// `ImpuestoP`.
    pub impuesto_p: String,
    /// `ImporteP`.
    pub importe_p: Numero,
}

/// `pago20:TrasladoP`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TrasladoP {
    /// `BaseP`.
    pub base_p: Numero,
    /// `ImpuestoP`.
    pub impuesto_p: String,
    /// `TipoFactorP`.
    pub tipo_factor_p: String,
    /// `TasaOCuotaP`.
    pub tasa_o_cuota_p: Option<Numero>,
    /// `ImporteP`.
    pub importe_p: Option<Numero>,
}

/// Fills `Totales` from the payments (Guía de llenado Pagos 2.0, nodo Totales): every
/// amount converted to MXN with `TipoCambioP` and rounded to two decimals;
/// `MontoTotalPagos = Σ Monto × TipoCambioP`, IVA bases and amounts per rate from the
/// `TrasladoP` nodes, withholdings per tax from the `RetencionP` nodes. Attributes with no
/// matching tax are left out.
///
/// # Errors
/// [`ErrorConstruccion`] when an amount in MXN or a sum leaves `t_Importe` (checked
/// arithmetic: never a panic).
pub fn calcular_totales(pagos: &mut Pagos) -> Result<(), ErrorConstruccion> {
    use rust_decimal::Decimal;

    let a_mxn = |valor: Decimal, tipo_cambio: Decimal, campo: &str| {
        multiplicar(valor, tipo_cambio, campo).map(|mxn| crate::construccion::redondear(mxn, 2))
    };
    let mut monto_total = Decimal::ZERO;
    let mut sumas: [Option<Decimal>; 10] = [None; 10];
    let mut sumar_en = |indice: usize, valor: Decimal| -> Result<(), ErrorConstruccion> {
        sumas[indice] = Some(sumar(sumas[indice].unwrap_or(Decimal::ZERO), valor, "Pagos.Totales")?);
        Ok(())
    };
    for (i, pago) in pagos.pagos.iter().enumerate() {
        let campo = format!("Pagos.Pago[{i}]");
        let tipo_cambio = pago.tipo_cambio_p.as_ref().and_then(|t| t.valor().ok()).unwrap_or(Decimal::ONE);
        let monto = a_mxn(pago.monto.valor().unwrap_or_default(), tipo_cambio, &campo)?;
        monto_total = sumar(monto_total, monto, "Pagos.Totales.MontoTotalPagos")?;
        let Some(impuestos) = &pago.impuestos_p else { continue };
        for r in &impuestos.retenciones_p {
            let importe = a_mxn(r.importe_p.valor().unwrap_or_default(), tipo_cambio, &campo)?;
            match r.impuesto_p.as_str() {
                "002" => sumar_en(0, importe)?,
                "001" => sumar_en(1, importe)?,
                "003" => sumar_en(2, importe)?,
                _ => {}
            }
        }
        for t in impuestos.traslados_p.iter().filter(|t| t.impuesto_p == "002") {
            let base = a_mxn(t.base_p.valor().unwrap_or_default(), tipo_cambio, &campo)?;
            let importe = match &t.importe_p {
                Some(i) => Some(a_mxn(i.valor().unwrap_or_default(), tipo_cambio, &campo)?),
                None => None,
            };
            let tasa = t.tasa_o_cuota_p.as_ref().map(Numero::texto);
            let (indice_base, indice_importe) = match (t.tipo_factor_p.as_str(), tasa) {
                ("Exento", _) => (9, None),
                (_, Some("0.160000")) => (3, Some(4)),
                (_, Some("0.080000")) => (5, Some(6)),
                (_, Some("0.000000")) => (7, Some(8)),
                _ => continue,
            };
            sumar_en(indice_base, base)?;
            if let (Some(indice), Some(importe)) = (indice_importe, importe) {
                sumar_en(indice, importe)?;
            }
        }
    }
    let n = |valor: Option<Decimal>| valor.map(|v| Numero::con_decimales(v, 2));
    pagos.totales = Totales {
        total_retenciones_iva: n(sumas[0]),
        total_retenciones_isr: n(sumas[1]),
        total_retenciones_ieps: n(sumas[2]),
        total_traslados_base_iva16: n(sumas[3]),
        total_traslados_impuesto_iva16: n(sumas[4]),
        total_traslados_base_iva8: n(sumas[5]),
        total_traslados_impuesto_iva8: n(sumas[6]),
        total_traslados_base_iva0: n(sumas[7]),
        total_traslados_impuesto_iva0: n(sumas[8]),
        total_traslados_base_iva_exento: n(sumas[9]),
        monto_total_pagos: Numero::con_decimales(monto_total, 2),
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn montos_enormes_son_errores_no_panicos() {
        let pago = |monto: &str, tipo_cambio: &str| Pago {
            monto: Numero::from_texto(monto),
            tipo_cambio_p: Some(Numero::from_texto(tipo_cambio)),
            ..Pago::default()
        };
        let maximo = "79228162514264337593543950335";
        for pagos in [
            vec![pago(maximo, "2")],
            vec![pago("999999999999999999", "1"), pago("999999999999999999", "1")],
            vec![pago("999999999999999999", "20")],
        ] {
            let mut pagos = Pagos { pagos, ..Pagos::default() };
            assert!(calcular_totales(&mut pagos).is_err());
        }
        let mut pagos = Pagos { pagos: vec![pago("100", "17.5")], ..Pagos::default() };
        calcular_totales(&mut pagos).unwrap();
        assert_eq!(pagos.totales.monto_total_pagos.texto(), "1750.00");
    }
}
