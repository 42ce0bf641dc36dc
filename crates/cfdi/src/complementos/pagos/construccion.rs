//! Totals of the complement and the comprobante preset that carries it.

use rust_decimal::Decimal;

use super::*;
use crate::catalogos::{Exportacion, ObjetoImp};
use crate::construccion::{ErrorConstruccion, NuevoComprobante, NuevoConcepto, multiplicar, sumar};
use crate::model::{Emisor, Receptor};

impl NuevoComprobante {
    /// A payment receipt (tipo P) carrying `pagos`, as the Guía de llenado del complemento
    /// para recepción de pagos 2.0 fixes it: Moneda XXX, SubTotal and Total 0, no FormaPago
    /// or MetodoPago, UsoCFDI CP01 and the single concept 84111506 / ACT / "Pago" with
    /// ValorUnitario 0 and ObjetoImp 01. `Totales` are computed here.
    pub fn recepcion_de_pagos(
        fecha: &str,
        lugar_expedicion: &str,
        emisor: Emisor,
        receptor: Receptor,
        mut pagos: Pagos,
    ) -> Result<Self, ErrorConstruccion> {
        calcular_totales(&mut pagos)?;
        Ok(Self {
            tipo: TipoDeComprobante::Pago,
            serie: None,
            folio: None,
            fecha: fecha.to_owned(),
            forma_pago: None,
            metodo_pago: None,
            condiciones_de_pago: None,
            moneda: "XXX".to_owned(),
            tipo_cambio: None,
            exportacion: Exportacion::NoAplica,
            lugar_expedicion: lugar_expedicion.to_owned(),
            emisor,
            receptor: Receptor { uso_cfdi: "CP01".to_owned(), ..receptor },
            informacion_global: None,
            cfdi_relacionados: Vec::new(),
            conceptos: vec![NuevoConcepto::new(
                "84111506",
                Decimal::ONE,
                "ACT",
                "Pago",
                Decimal::ZERO,
                ObjetoImp::NoObjeto,
            )],
            impuestos_locales: None,
            complementos: vec![Complemento::Pagos(Box::new(pagos))],
        })
    }
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
