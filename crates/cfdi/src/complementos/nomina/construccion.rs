//! Totals of the complement and the comprobante preset that carries it.

use rust_decimal::Decimal;

use super::*;
use crate::catalogos::{Exportacion, MetodoPago, ObjetoImp};
use crate::construccion::{ErrorConstruccion, NuevoComprobante, NuevoConcepto, sumar};
use crate::model::{Emisor, Receptor};

impl NuevoComprobante {
    /// A payroll receipt (tipo N) carrying `nomina`, per the Guía de llenado del recibo de
    /// nómina (CFDI 4.0): Moneda MXN, MetodoPago PUE, no FormaPago, UsoCFDI CN01 and
    /// RegimenFiscalReceptor 605 (NOM11, whatever `receptor` says), and the single concept 84111505 / ACT / "Pago de nómina" with
    /// ValorUnitario = TotalPercepciones + TotalOtrosPagos, Descuento = TotalDeducciones and
    /// ObjetoImp 01. The complement's totals are computed here.
    pub fn recibo_nomina(
        fecha: &str,
        lugar_expedicion: &str,
        emisor: Emisor,
        receptor: Receptor,
        mut nomina: Nomina,
    ) -> Result<Self, ErrorConstruccion> {
        calcular_totales(&mut nomina)?;
        let valor = |n: &Option<Numero>| n.as_ref().and_then(|n| n.valor().ok()).unwrap_or_default();
        let mut concepto = NuevoConcepto::new(
            "84111505",
            Decimal::ONE,
            "ACT",
            "Pago de nómina",
            sumar(valor(&nomina.total_percepciones), valor(&nomina.total_otros_pagos), "Nomina.TotalPercepciones")?,
            ObjetoImp::NoObjeto,
        );
        let deducciones = valor(&nomina.total_deducciones);
        concepto.descuento = (deducciones > Decimal::ZERO).then_some(deducciones);
        Ok(Self {
            tipo: TipoDeComprobante::Nomina,
            serie: None,
            folio: None,
            fecha: fecha.to_owned(),
            forma_pago: None,
            metodo_pago: Some(MetodoPago::Pue),
            condiciones_de_pago: None,
            moneda: "MXN".to_owned(),
            tipo_cambio: None,
            exportacion: Exportacion::NoAplica,
            lugar_expedicion: lugar_expedicion.to_owned(),
            emisor,
            receptor: Receptor { uso_cfdi: "CN01".to_owned(), regimen_fiscal_receptor: "605".to_owned(), ..receptor },
            informacion_global: None,
            cfdi_relacionados: Vec::new(),
            conceptos: vec![concepto],
            impuestos_locales: None,
            complementos: vec![Complemento::Nomina(Box::new(nomina))],
        })
    }
}

/// Percepción types that are separation/indemnification (Guía de llenado Nómina 1.2,
/// TotalSeparacionIndemnizacion): 022 prima por antigüedad, 023 pagos por separación,
/// 025 indemnizaciones.
const TIPOS_SEPARACION: [&str; 3] = ["022", "023", "025"];
/// Percepción types that are retirement (TotalJubilacionPensionRetiro): 039 and 044.
const TIPOS_JUBILACION: [&str; 2] = ["039", "044"];

/// Fills the totals of a Nómina 1.2 from its lines (Guía de llenado Nómina 1.2):
/// `TotalSueldos`, `TotalSeparacionIndemnizacion`, `TotalJubilacionPensionRetiro`,
/// `TotalGravado`, `TotalExento`, `TotalPercepciones`; `TotalOtrasDeducciones` (all but
/// 002), `TotalImpuestosRetenidos` (002 ISR), `TotalDeducciones`; `TotalOtrosPagos`.
/// Totals of absent groups are left out, as the guide requires.
///
/// # Errors
/// [`ErrorConstruccion`] when a sum leaves `t_Importe` (checked arithmetic: never a panic).
pub fn calcular_totales(nomina: &mut Nomina) -> Result<(), ErrorConstruccion> {
    use rust_decimal::Decimal;

    let valor = |n: &Numero| n.valor().unwrap_or_default();
    let dos = |v: Decimal| Numero::con_decimales(v, 2);
    if let Some(p) = &mut nomina.percepciones {
        let (mut sueldos, mut separacion, mut jubilacion) = (None::<Decimal>, None::<Decimal>, None::<Decimal>);
        let (mut gravado, mut exento) = (Decimal::ZERO, Decimal::ZERO);
        for percepcion in &p.percepciones {
            let g = valor(&percepcion.importe_gravado);
            let e = valor(&percepcion.importe_exento);
            gravado = sumar(gravado, g, "Nomina.Percepciones.TotalGravado")?;
            exento = sumar(exento, e, "Nomina.Percepciones.TotalExento")?;
            let destino = if TIPOS_SEPARACION.contains(&percepcion.tipo_percepcion.as_str()) {
                &mut separacion
            } else if TIPOS_JUBILACION.contains(&percepcion.tipo_percepcion.as_str()) {
                &mut jubilacion
            } else {
                &mut sueldos
            };
            *destino =
                Some(sumar(sumar(destino.unwrap_or_default(), g, "Nomina.Percepciones")?, e, "Nomina.Percepciones")?);
        }
        p.total_sueldos = sueldos.map(dos);
        p.total_separacion_indemnizacion = separacion.map(dos);
        p.total_jubilacion_pension_retiro = jubilacion.map(dos);
        p.total_gravado = dos(gravado);
        p.total_exento = dos(exento);
        let total = sumar(sueldos.unwrap_or_default(), separacion.unwrap_or_default(), "Nomina.TotalPercepciones")?;
        nomina.total_percepciones =
            Some(dos(sumar(total, jubilacion.unwrap_or_default(), "Nomina.TotalPercepciones")?));
    } else {
        nomina.total_percepciones = None;
    }
    if let Some(d) = &mut nomina.deducciones {
        let (mut otras, mut isr) = (None::<Decimal>, None::<Decimal>);
        for deduccion in &d.deducciones {
            let destino = if deduccion.tipo_deduccion == "002" { &mut isr } else { &mut otras };
            *destino = Some(sumar(destino.unwrap_or_default(), valor(&deduccion.importe), "Nomina.Deducciones")?);
        }
        d.total_otras_deducciones = otras.map(dos);
        d.total_impuestos_retenidos = isr.map(dos);
        nomina.total_deducciones =
            Some(dos(sumar(otras.unwrap_or_default(), isr.unwrap_or_default(), "Nomina.TotalDeducciones")?));
    } else {
        nomina.total_deducciones = None;
    }
    nomina.total_otros_pagos = if nomina.otros_pagos.is_empty() {
        None
    } else {
        let total = nomina
            .otros_pagos
            .iter()
            .try_fold(Decimal::ZERO, |suma, o| sumar(suma, valor(&o.importe), "Nomina.TotalOtrosPagos"))?;
        Some(dos(total))
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sumas_enormes_son_errores_no_panicos() {
        let deduccion = |importe: &str| Deduccion { importe: Numero::from_texto(importe), ..Deduccion::default() };
        let mut nomina = Nomina {
            deducciones: Some(Deducciones {
                deducciones: vec![deduccion("79228162514264337593543950335"), deduccion("1")],
                ..Deducciones::default()
            }),
            ..Nomina::default()
        };
        assert!(calcular_totales(&mut nomina).is_err());
        nomina.deducciones = Some(Deducciones { deducciones: vec![deduccion("10.5")], ..Deducciones::default() });
        calcular_totales(&mut nomina).unwrap();
        assert_eq!(nomina.total_deducciones.map(|n| n.texto().to_owned()), Some("10.50".into()));
    }
}
