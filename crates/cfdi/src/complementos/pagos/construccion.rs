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
    /// ValorUnitario 0 and ObjetoImp 01. `Totales` are computed here, and the `ImpuestosP`
    /// of every `Pago` that comes without them ([`calcular_impuestos_p`]).
    pub fn recepcion_de_pagos(
        fecha: &str,
        lugar_expedicion: &str,
        emisor: Emisor,
        receptor: Receptor,
        mut pagos: Pagos,
    ) -> Result<Self, ErrorConstruccion> {
        for pago in pagos.pagos.iter_mut().filter(|pago| pago.impuestos_p.is_none()) {
            calcular_impuestos_p(pago)?;
        }
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

/// Decimals of `BaseDR`, `ImporteDR`, `BaseP` and `ImporteP`: the six of `t_Importe`. SAT's
/// Pagos 2.0 rules round these (never truncate), and keeping six decimals lets the taxes of
/// every installment add up to the invoice's to the centavo.
const DECIMALES_IMPUESTOS: u32 = 6;

/// A tax amount of the complement rounded half away from zero to six decimals and written
/// with at least two (`1600.00`, `53.333793`).
fn importe_impuesto(valor: Decimal) -> Numero {
    let mut v = crate::construccion::redondear(valor, DECIMALES_IMPUESTOS).normalize();
    if v.scale() < 2 {
        v.rescale(2);
    }
    Numero::from(v)
}

fn dividir(a: Decimal, b: Decimal, campo: &str) -> Result<Decimal, ErrorConstruccion> {
    a.checked_div(b).ok_or_else(|| crate::construccion::invalido(campo, "división entre cero o fuera de rango"))
}

/// One tax of a group: (impuesto, tipo factor, tasa o cuota) and its sums.
struct Grupo {
    impuesto: String,
    tipo_factor: String,
    tasa: Option<Numero>,
    base: Decimal,
    importe: Decimal,
}

fn acumular(
    grupos: &mut Vec<Grupo>,
    clave: (&str, &str, Option<&Numero>),
    base: Decimal,
    importe: Decimal,
    campo: &str,
) -> Result<(), ErrorConstruccion> {
    let (impuesto, tipo_factor, tasa) = clave;
    let tasa_valor = tasa.and_then(|t| t.valor().ok());
    let existente = grupos.iter_mut().find(|g| {
        g.impuesto == impuesto
            && g.tipo_factor == tipo_factor
            && g.tasa.as_ref().and_then(|t| t.valor().ok()) == tasa_valor
    });
    match existente {
        Some(grupo) => {
            grupo.base = sumar(grupo.base, base, campo)?;
            grupo.importe = sumar(grupo.importe, importe, campo)?;
        }
        None => grupos.push(Grupo {
            impuesto: impuesto.to_owned(),
            tipo_factor: tipo_factor.to_owned(),
            tasa: tasa.cloned(),
            base,
            importe,
        }),
    }
    Ok(())
}

/// The `ImpuestosDR` of a payment of `imp_pagado` (in the invoice's currency) to `factura`
/// (Guía de llenado Pagos 2.0, nodo ImpuestosDR): the taxes of its conceptos grouped by
/// impuesto, tipo factor and tasa, each in proportion to the amount paid (`imp_pagado` ÷
/// `Total`). `BaseDR` is the group's base times that proportion; `ImporteDR` is `BaseDR` ×
/// `TasaOCuotaDR` for Tasa and the group's amount times the proportion for Cuota; Exento has
/// neither rate nor amount. Rounded to six decimals. `None` when the invoice has no taxes.
///
/// # Errors
/// [`ErrorConstruccion`] when the invoice's amounts do not parse, its Total is 0 or a result
/// leaves `t_Importe`.
pub fn impuestos_dr(factura: &Comprobante, imp_pagado: Decimal) -> Result<Option<ImpuestosDR>, ErrorConstruccion> {
    let campo = "DoctoRelacionado.ImpuestosDR";
    let valor =
        |n: &Numero| n.valor().map_err(|e| crate::construccion::invalido(campo, format!("importe de la factura: {e}")));
    let proporcion = dividir(imp_pagado, valor(&factura.total)?, campo)?;
    let (mut traslados, mut retenciones) = (Vec::new(), Vec::new());
    for concepto in &factura.conceptos {
        let Some(impuestos) = &concepto.impuestos else { continue };
        for t in &impuestos.traslados {
            let importe = t.importe.as_ref().map(valor).transpose()?.unwrap_or_default();
            let clave = (t.impuesto.as_str(), t.tipo_factor.as_str(), t.tasa_o_cuota.as_ref());
            acumular(&mut traslados, clave, valor(&t.base)?, importe, campo)?;
        }
        for r in &impuestos.retenciones {
            let clave = (r.impuesto.as_str(), r.tipo_factor.as_str(), Some(&r.tasa_o_cuota));
            acumular(&mut retenciones, clave, valor(&r.base)?, valor(&r.importe)?, campo)?;
        }
    }
    if traslados.is_empty() && retenciones.is_empty() {
        return Ok(None);
    }
    // (BaseDR, ImporteDR) of a group, both rounded to six decimals.
    let proporcional = |g: &Grupo| -> Result<(Numero, Option<Numero>), ErrorConstruccion> {
        let base = crate::construccion::redondear(multiplicar(g.base, proporcion, campo)?, DECIMALES_IMPUESTOS);
        let importe = match (g.tipo_factor.as_str(), &g.tasa) {
            ("Exento", _) | (_, None) => None,
            ("Tasa", Some(tasa)) => Some(multiplicar(base, valor(tasa)?, campo)?),
            _ => Some(multiplicar(g.importe, proporcion, campo)?),
        };
        Ok((importe_impuesto(base), importe.map(importe_impuesto)))
    };
    let mut dr = ImpuestosDR::default();
    for g in &traslados {
        let (base_dr, importe_dr) = proporcional(g)?;
        dr.traslados_dr.push(TrasladoDR {
            base_dr,
            impuesto_dr: g.impuesto.clone(),
            tipo_factor_dr: g.tipo_factor.clone(),
            tasa_o_cuota_dr: if g.tipo_factor == "Exento" { None } else { g.tasa.clone() },
            importe_dr,
        });
    }
    for g in &retenciones {
        let (base_dr, importe_dr) = proporcional(g)?;
        dr.retenciones_dr.push(RetencionDR {
            base_dr,
            impuesto_dr: g.impuesto.clone(),
            tipo_factor_dr: g.tipo_factor.clone(),
            tasa_o_cuota_dr: g.tasa.clone().unwrap_or_default(),
            importe_dr: importe_dr.unwrap_or_default(),
        });
    }
    Ok(Some(dr))
}

/// Fills `ImpuestosP` of `pago` from its documents' `ImpuestosDR` (Guía de llenado Pagos 2.0,
/// nodo ImpuestosP): every `BaseDR` and `ImporteDR` converted to the payment's currency
/// (÷ `EquivalenciaDR`), summed per impuesto (retenciones) or per impuesto, tipo factor and
/// tasa (traslados), then rounded — not truncated — to six decimals. Left `None` when no
/// document carries taxes.
///
/// # Errors
/// [`ErrorConstruccion`] when an `EquivalenciaDR` is 0 or a sum leaves `t_Importe`.
pub fn calcular_impuestos_p(pago: &mut Pago) -> Result<(), ErrorConstruccion> {
    let campo = "Pago.ImpuestosP";
    let (mut traslados, mut retenciones) = (Vec::new(), Vec::new());
    for docto in &pago.doctos_relacionados {
        let Some(impuestos) = &docto.impuestos_dr else { continue };
        let equivalencia = docto.equivalencia_dr.as_ref().and_then(|e| e.valor().ok()).unwrap_or(Decimal::ONE);
        let en_pago = |n: &Numero| dividir(n.valor().unwrap_or_default(), equivalencia, campo);
        for t in &impuestos.traslados_dr {
            let importe = t.importe_dr.as_ref().map(en_pago).transpose()?.unwrap_or_default();
            let clave = (t.impuesto_dr.as_str(), t.tipo_factor_dr.as_str(), t.tasa_o_cuota_dr.as_ref());
            acumular(&mut traslados, clave, en_pago(&t.base_dr)?, importe, campo)?;
        }
        for r in &impuestos.retenciones_dr {
            // RetencionP carries only the impuesto and its amount.
            acumular(
                &mut retenciones,
                (r.impuesto_dr.as_str(), "", None),
                Decimal::ZERO,
                en_pago(&r.importe_dr)?,
                campo,
            )?;
        }
    }
    if traslados.is_empty() && retenciones.is_empty() {
        pago.impuestos_p = None;
        return Ok(());
    }
    pago.impuestos_p = Some(ImpuestosP {
        retenciones_p: retenciones
            .iter()
            .map(|g| RetencionP { impuesto_p: g.impuesto.clone(), importe_p: importe_impuesto(g.importe) })
            .collect(),
        traslados_p: traslados
            .iter()
            .map(|g| {
                let exento = g.tipo_factor == "Exento";
                TrasladoP {
                    base_p: importe_impuesto(g.base),
                    impuesto_p: g.impuesto.clone(),
                    tipo_factor_p: g.tipo_factor.clone(),
                    tasa_o_cuota_p: if exento { None } else { g.tasa.clone() },
                    importe_p: (!exento).then(|| importe_impuesto(g.importe)),
                }
            })
            .collect(),
    });
    Ok(())
}

/// Fills `Totales` from the payments (Guía de llenado Pagos 2.0, nodo Totales): every amount
/// converted to MXN with `TipoCambioP`, summed exactly over the payments and only then rounded
/// to two decimals; `MontoTotalPagos = Σ Monto × TipoCambioP`, IVA bases and amounts per rate
/// from the `TrasladoP` nodes, withholdings per tax from the `RetencionP` nodes. Attributes
/// with no matching tax are left out.
///
/// # Errors
/// [`ErrorConstruccion`] when an amount in MXN or a sum leaves `t_Importe` (checked
/// arithmetic: never a panic).
pub fn calcular_totales(pagos: &mut Pagos) -> Result<(), ErrorConstruccion> {
    let mut monto_total = Decimal::ZERO;
    let mut sumas: [Option<Decimal>; 10] = [None; 10];
    let mut sumar_en = |indice: usize, valor: Decimal| -> Result<(), ErrorConstruccion> {
        sumas[indice] = Some(sumar(sumas[indice].unwrap_or(Decimal::ZERO), valor, "Pagos.Totales")?);
        Ok(())
    };
    for (i, pago) in pagos.pagos.iter().enumerate() {
        let campo = format!("Pagos.Pago[{i}]");
        let tipo_cambio = pago.tipo_cambio_p.as_ref().and_then(|t| t.valor().ok()).unwrap_or(Decimal::ONE);
        let a_mxn = |valor: &Numero| multiplicar(valor.valor().unwrap_or_default(), tipo_cambio, &campo);
        monto_total = sumar(monto_total, a_mxn(&pago.monto)?, "Pagos.Totales.MontoTotalPagos")?;
        let Some(impuestos) = &pago.impuestos_p else { continue };
        for r in &impuestos.retenciones_p {
            let importe = a_mxn(&r.importe_p)?;
            match r.impuesto_p.as_str() {
                "002" => sumar_en(0, importe)?,
                "001" => sumar_en(1, importe)?,
                "003" => sumar_en(2, importe)?,
                _ => {}
            }
        }
        for t in impuestos.traslados_p.iter().filter(|t| t.impuesto_p == "002") {
            let base = a_mxn(&t.base_p)?;
            let importe = t.importe_p.as_ref().map(a_mxn).transpose()?;
            let tasa = t.tasa_o_cuota_p.as_ref().and_then(|t| t.valor().ok());
            let (indice_base, indice_importe) = match (t.tipo_factor_p.as_str(), tasa) {
                ("Exento", _) => (9, None),
                (_, Some(tasa)) if tasa == Decimal::new(16, 2) => (3, Some(4)),
                (_, Some(tasa)) if tasa == Decimal::new(8, 2) => (5, Some(6)),
                (_, Some(tasa)) if tasa.is_zero() => (7, Some(8)),
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

    /// An invoice of 10,000 + 16% IVA − 10% ISR = 10,600 with one concept.
    fn factura() -> Comprobante {
        use crate::model::{Concepto, ImpuestosConcepto, Retencion, Traslado};
        let n = Numero::from_texto;
        Comprobante {
            total: n("10600.00"),
            conceptos: vec![Concepto {
                impuestos: Some(ImpuestosConcepto {
                    traslados: vec![Traslado {
                        base: n("10000.00"),
                        impuesto: "002".into(),
                        tipo_factor: "Tasa".into(),
                        tasa_o_cuota: Some(n("0.160000")),
                        importe: Some(n("1600.00")),
                    }],
                    retenciones: vec![Retencion {
                        base: n("10000.00"),
                        impuesto: "001".into(),
                        tipo_factor: "Tasa".into(),
                        tasa_o_cuota: n("0.100000"),
                        importe: n("1000.00"),
                    }],
                }),
                ..Concepto::default()
            }],
            ..Comprobante::default()
        }
    }

    #[test]
    fn impuestos_dr_are_proportional_and_impuestos_p_rounded_not_truncated() {
        // 4,000 of 10,600: base 10,000 × 4,000 / 10,600 = 3,773.5849056…
        let dr = impuestos_dr(&factura(), Decimal::new(4000, 0)).unwrap().unwrap();
        let t = &dr.traslados_dr[0];
        assert_eq!((t.base_dr.texto(), t.importe_dr.as_ref().unwrap().texto()), ("3773.584906", "603.773585"));
        assert_eq!(dr.retenciones_dr[0].importe_dr.texto(), "377.358491");
        // The whole amount: the invoice's own taxes, with two decimals at least.
        let todo = impuestos_dr(&factura(), Decimal::new(10600, 0)).unwrap().unwrap();
        assert_eq!(
            (todo.traslados_dr[0].base_dr.texto(), todo.traslados_dr[0].importe_dr.as_ref().unwrap().texto()),
            ("10000.00", "1600.00")
        );

        // Paid in USD at 17.25 MXN per USD: ÷ EquivalenciaDR, rounded half away from zero.
        let mut pago = Pago {
            tipo_cambio_p: Some(Numero::from_texto("17.25")),
            monto: Numero::from_texto("231.88"),
            doctos_relacionados: vec![DoctoRelacionado {
                equivalencia_dr: Some(Numero::from_texto("17.25")),
                impuestos_dr: Some(dr),
                ..DoctoRelacionado::default()
            }],
            ..Pago::default()
        };
        calcular_impuestos_p(&mut pago).unwrap();
        let p = pago.impuestos_p.clone().unwrap();
        // 3,773.584906 ÷ 17.25 = 218.758545275…; 603.773585 ÷ 17.25 = 35.001367246…
        assert_eq!(
            (p.traslados_p[0].base_p.texto(), p.traslados_p[0].importe_p.as_ref().unwrap().texto()),
            ("218.758545", "35.001367")
        );
        assert_eq!(
            (p.retenciones_p[0].impuesto_p.as_str(), p.retenciones_p[0].importe_p.texto()),
            ("001", "21.875855")
        );
        let mut pagos = Pagos { pagos: vec![pago], ..Pagos::default() };
        calcular_totales(&mut pagos).unwrap();
        let t = &pagos.totales;
        // Back in MXN, rounded once to the centavo.
        assert_eq!(t.total_traslados_base_iva16.as_ref().unwrap().texto(), "3773.58");
        assert_eq!(t.total_traslados_impuesto_iva16.as_ref().unwrap().texto(), "603.77");
        assert_eq!(t.total_retenciones_isr.as_ref().unwrap().texto(), "377.36");
        assert_eq!(t.monto_total_pagos.texto(), "3999.93");
        // No taxes, no nodes.
        let sin = Comprobante {
            total: Numero::from_texto("100"),
            conceptos: vec![Default::default()],
            ..Comprobante::default()
        };
        assert_eq!(impuestos_dr(&sin, Decimal::ONE).unwrap(), None);
    }
}
