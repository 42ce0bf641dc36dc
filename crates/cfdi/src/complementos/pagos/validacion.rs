//! Rules the Guía de llenado of the complement sets on the comprobante that carries it, and
//! the Pagos 2.0 matrix' rules on the complement itself.

// Each SAT rule is its own condition inside the branch that makes it apply (as in
// crate::validacion).
#![allow(clippy::collapsible_if)]

use rust_decimal::Decimal;

use super::*;
use crate::catalogos::{self, Impuesto, ObjetoImp, TipoFactor};

/// Rules for a comprobante of tipo P (Guía de llenado del CFDI con complemento para
/// recepción de pagos 2.0, nodo Comprobante): it carries Pagos 2.0, Moneda XXX (CRP20104),
/// UsoCFDI CP01 and SubTotal (CRP20103) and Total (CRP20110) 0. The Pagos 2.0 matrix has no
/// code for a missing complement or for the UsoCFDI: those are project ids.
pub(super) fn validar(v: &mut Validador<'_>, c: &Comprobante, tipo: Option<TipoDeComprobante>) {
    if !matches!(tipo, Some(TipoDeComprobante::Pago)) {
        return;
    }
    if c.pagos().is_none() {
        v.problema(
            "TIMBRA_PAGO_COMPLEMENTO",
            "Complemento",
            "un comprobante de pago requiere el complemento Pagos 2.0",
        );
    }
    if c.moneda != "XXX" {
        v.problema("CRP20104", "Moneda", "un comprobante de pago usa Moneda XXX");
    }
    if c.receptor.uso_cfdi != "CP01" {
        v.problema("TIMBRA_PAGO_USO", "Receptor.UsoCFDI", "un comprobante de pago usa UsoCFDI CP01");
    }
    if c.sub_total.valor().ok() != Some(Decimal::ZERO) {
        v.problema("CRP20103", "SubTotal", "un comprobante de pago tiene SubTotal 0");
    }
    if c.total.valor().ok() != Some(Decimal::ZERO) {
        v.problema("CRP20110", "Total", "un comprobante de pago tiene Total 0");
    }
    validar_comprobante(v, c);
    if let Some(pagos) = c.pagos() {
        validar_pagos(v, pagos);
    }
}

/// Pagos 2.0 matrix CRP20102-CRP20123: what the comprobante of a payment carries (the single
/// concept 84111506 / ACT / "Pago"). FormaPago, MetodoPago and TipoCambio (CRP20105, CRP20106,
/// CRP20109) are reported by CFDI 4.0's CFDI40103, CFDI40125 and CFDI40116.
fn validar_comprobante(v: &mut Validador<'_>, c: &Comprobante) {
    if c.exportacion != "01" {
        v.problema("CRP20102", "Exportacion", "un comprobante de pago usa Exportacion 01 (No aplica)");
    }
    let ausentes = [
        ("CRP20107", "CondicionesDePago", c.condiciones_de_pago.is_some()),
        ("CRP20108", "Descuento", c.descuento.is_some()),
        ("CRP20123", "Impuestos", c.impuestos.is_some()),
    ];
    for (regla, campo, presente) in ausentes {
        if presente {
            v.problema(regla, campo, format!("un comprobante de pago no lleva {campo}; quítelo"));
        }
    }
    if c.conceptos.len() != 1 {
        v.problema("CRP20111", "Conceptos", "un comprobante de pago lleva un solo concepto (84111506, ACT, «Pago»)");
    }
    let Some(concepto) = c.conceptos.first() else { return };
    let p = |campo: &str| format!("Conceptos[0].{campo}");
    let cero = |n: &Numero| n.valor().ok() == Some(Decimal::ZERO);
    let reglas = [
        ("CRP20113", "ClaveProdServ", concepto.clave_prod_serv != "84111506", "es 84111506"),
        ("CRP20114", "NoIdentificacion", concepto.no_identificacion.is_some(), "no se registra; quítelo"),
        ("CRP20115", "Cantidad", concepto.cantidad.valor().ok() != Some(Decimal::ONE), "es 1"),
        ("CRP20116", "ClaveUnidad", concepto.clave_unidad != "ACT", "es ACT"),
        ("CRP20117", "Unidad", concepto.unidad.is_some(), "no se registra; quítelo"),
        ("CRP20118", "Descripcion", concepto.descripcion != "Pago", "es «Pago»"),
        ("CRP20119", "ValorUnitario", !cero(&concepto.valor_unitario), "es 0"),
        ("CRP20120", "Importe", !cero(&concepto.importe), "es 0"),
        ("CRP20121", "Descuento", concepto.descuento.is_some(), "no se registra; quítelo"),
        ("CRP20122", "ObjetoImp", concepto.objeto_imp != "01", "es 01"),
    ];
    for (regla, campo, falla, que) in reglas {
        if falla {
            v.problema(regla, p(campo), format!("en un comprobante de pago {campo} {que}"));
        }
    }
}

/// `n` has at most the decimals of currency `moneda`.
fn decimales(v: &mut Validador<'_>, regla: &'static str, campo: String, n: &Numero, moneda: &str) {
    let maximo = catalogos::decimales_moneda(moneda);
    if n.decimales() > maximo {
        v.problema(regla, campo, format!("«{}» tiene más de los {maximo} decimales de la moneda {moneda}", n.texto()));
    }
}

fn positivo(n: &Numero) -> bool {
    n.valor().is_ok_and(|valor| valor > Decimal::ZERO)
}

/// Pagos 2.0 matrix CRP20201-CRP20274 on a received complement: the totals, each Pago, its
/// documents and their taxes. Checks the matrix ties to SAT's registries or to the payment
/// method's catalog columns (CRP20222-CRP20235) are left out; see REGLAS.md.
fn validar_pagos(v: &mut Validador<'_>, pagos: &Pagos) {
    validar_totales(v, pagos);
    for (i, pago) in pagos.pagos.iter().enumerate() {
        let p = |campo: &str| format!("Pagos.Pago[{i}].{campo}");
        if pago.forma_de_pago_p == "99" {
            v.problema("CRP20212", p("FormaDePagoP"), "no puede ser 99 (Por definir): registre cómo se pagó");
        }
        if pago.moneda_p == "XXX" {
            v.problema("CRP20213", p("MonedaP"), "no puede ser XXX: registre la moneda del pago");
        }
        match (pago.moneda_p.as_str(), &pago.tipo_cambio_p) {
            ("MXN", Some(tc)) if tc.valor().ok() != Some(Decimal::ONE) => {
                v.problema("CRP20215", p("TipoCambioP"), "con MonedaP MXN el tipo de cambio es 1");
            }
            ("MXN" | "XXX", _) => {}
            (_, None) => v.problema(
                "CRP20214",
                p("TipoCambioP"),
                "requerido cuando MonedaP no es MXN: registre el tipo de cambio del día del pago",
            ),
            _ => {}
        }
        if !positivo(&pago.monto) {
            v.problema("CRP20218", p("Monto"), "debe ser mayor que cero");
        }
        decimales(v, "CRP20219", p("Monto"), &pago.monto, &pago.moneda_p);
        // CRP20217: what the documents receive adds up to at most Monto; checked when they
        // are in the payment's currency (a conversion's rounding is not the matrix' text).
        let misma_moneda = pago.doctos_relacionados.iter().all(|d| d.moneda_dr == pago.moneda_p);
        let pagado: Option<Decimal> = pago
            .doctos_relacionados
            .iter()
            .map(|d| d.imp_pagado.valor().ok())
            .try_fold(Decimal::ZERO, |suma, valor| suma.checked_add(valor?));
        if let (true, Some(pagado), Ok(monto)) = (misma_moneda, pagado, pago.monto.valor()) {
            if pagado > monto {
                v.problema(
                    "CRP20217",
                    p("Monto"),
                    format!("la suma de ImpPagado de los documentos ({pagado}) excede el Monto del pago ({monto})"),
                );
            }
        }
        validar_datos_bancarios(v, i, pago);
        for (j, docto) in pago.doctos_relacionados.iter().enumerate() {
            validar_documento(v, &p(&format!("DoctoRelacionado[{j}]")), pago, docto);
        }
        if let Some(impuestos) = &pago.impuestos_p {
            validar_impuestos_p(v, &p("ImpuestosP"), impuestos);
            validar_sumas_p(v, &p("ImpuestosP"), pago, impuestos);
        }
    }
}

/// The bank data and the payment chain of a Pago (CRP20223-CRP20235): what FormaDePagoP allows
/// by c_FormaPago's columns (skipped when c_FormaPago is not loaded), the accounts' patterns
/// there, and the chain's certificate, text and seal together with TipoCadPago.
fn validar_datos_bancarios(v: &mut Validador<'_>, i: usize, pago: &Pago) {
    let p = |campo: &str| format!("Pagos.Pago[{i}].{campo}");
    if pago.rfc_emisor_cta_ord.as_deref() == Some(crate::tipos::RFC_EXTRANJERO) && pago.nom_banco_ord_ext.is_none() {
        v.problema(
            "CRP20223",
            p("NomBancoOrdExt"),
            "requerido cuando RfcEmisorCtaOrd es XEXX010101000: registre el nombre del banco extranjero",
        );
    }
    let cadena = pago.tipo_cad_pago.is_some();
    let partes = [
        ("CertPago", &pago.cert_pago, "CRP20230", "CRP20231"),
        ("CadPago", &pago.cad_pago, "CRP20232", "CRP20233"),
        ("SelloPago", &pago.sello_pago, "CRP20234", "CRP20235"),
    ];
    for (campo, valor, requerido, sobra) in partes {
        match (cadena, valor.is_some()) {
            (true, false) => v.problema(requerido, p(campo), "requerido cuando se registra TipoCadPago"),
            (false, true) => v.problema(sobra, p(campo), "solo se registra con TipoCadPago; quítelo"),
            _ => {}
        }
    }
    let Some(forma) = v.catalogos.datos_forma_pago(&pago.forma_de_pago_p) else {
        v.omitida("c_FormaPago (datos bancarios del pago)");
        return;
    };
    let nombre = &pago.forma_de_pago_p;
    if let Some(cuenta) = &pago.cta_ordenante {
        if !forma.permite_cuenta_ordenante {
            v.problema("CRP20224", p("CtaOrdenante"), format!("no se registra con FormaDePagoP {nombre}; quítelo"));
        } else if let Some(patron) = &forma.patron_cuenta_ordenante {
            if crate::validacion::coincide(patron, cuenta) == Some(false) {
                v.problema(
                    "CRP20225",
                    p("CtaOrdenante"),
                    format!("«{cuenta}» no tiene la forma que c_FormaPago da para {nombre} ({patron})"),
                );
            }
        }
    }
    if let (Some(cuenta), true) = (&pago.cta_beneficiario, forma.permite_cuenta_beneficiario) {
        if let Some(patron) = &forma.patron_cuenta_beneficiario {
            if crate::validacion::coincide(patron, cuenta) == Some(false) {
                v.problema(
                    "CRP20226",
                    p("CtaBeneficiario"),
                    format!("«{cuenta}» no tiene la forma que c_FormaPago da para {nombre} ({patron})"),
                );
            }
        }
    }
    if pago.rfc_emisor_cta_ben.is_some() && !forma.permite_rfc_beneficiario {
        v.problema("CRP20227", p("RfcEmisorCtaBen"), format!("no se registra con FormaDePagoP {nombre}; quítelo"));
    }
    if cadena && !forma.permite_tipo_cadena_pago {
        v.problema("CRP20229", p("TipoCadPago"), format!("no se registra con FormaDePagoP {nombre}; quítelo"));
    }
}

fn validar_documento(v: &mut Validador<'_>, prefijo: &str, pago: &Pago, d: &DoctoRelacionado) {
    let p = |campo: &str| format!("{prefijo}.{campo}");
    if d.moneda_dr == "XXX" {
        v.problema("CRP20236", p("MonedaDR"), "no puede ser XXX: registre la moneda del documento");
    }
    match &d.equivalencia_dr {
        None if d.moneda_dr != pago.moneda_p => v.problema(
            "CRP20237",
            p("EquivalenciaDR"),
            "requerido cuando MonedaDR es distinta de MonedaP: registre la equivalencia entre ambas",
        ),
        Some(e) if d.moneda_dr == pago.moneda_p && e.valor().ok() != Some(Decimal::ONE) => {
            v.problema("CRP20238", p("EquivalenciaDR"), "con MonedaDR igual a MonedaP la equivalencia es 1");
        }
        _ => {}
    }
    if !positivo(&d.imp_saldo_ant) {
        v.problema("CRP20239", p("ImpSaldoAnt"), "debe ser mayor que cero");
    }
    decimales(v, "CRP20240", p("ImpSaldoAnt"), &d.imp_saldo_ant, &d.moneda_dr);
    if !positivo(&d.imp_pagado) {
        v.problema("CRP20241", p("ImpPagado"), "debe ser mayor que cero");
    }
    decimales(v, "CRP20242", p("ImpPagado"), &d.imp_pagado, &d.moneda_dr);
    decimales(v, "CRP20243", p("ImpSaldoInsoluto"), &d.imp_saldo_insoluto, &d.moneda_dr);
    if let (Ok(anterior), Ok(pagado), Ok(insoluto)) =
        (d.imp_saldo_ant.valor(), d.imp_pagado.valor(), d.imp_saldo_insoluto.valor())
    {
        let esperado = anterior.checked_sub(pagado);
        if insoluto < Decimal::ZERO || esperado != Some(insoluto) {
            v.problema(
                "CRP20244",
                p("ImpSaldoInsoluto"),
                format!("debe ser ImpSaldoAnt − ImpPagado ({}) y no negativo", esperado.unwrap_or_default()),
            );
        }
    }
    let objeto = ObjetoImp::desde_codigo(&d.objeto_imp_dr);
    if objeto.is_none() {
        v.problema("CRP20245", p("ObjetoImpDR"), format!("«{}» no está en el catálogo c_ObjetoImp", d.objeto_imp_dr));
    }
    if objeto == Some(ObjetoImp::SiObjeto) && d.impuestos_dr.is_none() {
        v.problema("CRP20246", p("ImpuestosDR"), "requerido con ObjetoImpDR 02: registre los impuestos del pago");
    }
    let Some(impuestos) = &d.impuestos_dr else { return };
    if impuestos.traslados_dr.is_empty() && impuestos.retenciones_dr.is_empty() {
        v.problema("CRP20248", p("ImpuestosDR"), "debe tener traslados o retenciones; agréguelos o quite el nodo");
    }
    for (k, r) in impuestos.retenciones_dr.iter().enumerate() {
        let campo = p(&format!("ImpuestosDR.RetencionesDR[{k}]"));
        if !positivo(&r.base_dr) {
            v.problema("CRP20249", format!("{campo}.BaseDR"), "debe ser mayor que cero");
        }
        let impuesto = Impuesto::desde_codigo(&r.impuesto_dr);
        if impuesto.is_none() {
            v.problema("CRP20250", format!("{campo}.ImpuestoDR"), format!("«{}» no está en c_Impuesto", r.impuesto_dr));
        }
        let factor = TipoFactor::desde_codigo(&r.tipo_factor_dr);
        match factor {
            None => v.problema(
                "CRP20251",
                format!("{campo}.TipoFactorDR"),
                format!("«{}» no está en c_TipoFactor", r.tipo_factor_dr),
            ),
            Some(TipoFactor::Exento) => {
                v.problema("CRP20252", format!("{campo}.TipoFactorDR"), "una retención no puede ser Exento")
            }
            Some(factor) => {
                if let Some(impuesto) = impuesto {
                    if !catalogos::tasa_o_cuota_permitida(impuesto, factor, r.tasa_o_cuota_dr.texto(), true) {
                        v.problema(
                            "CRP20253",
                            format!("{campo}.TasaOCuotaDR"),
                            format!("«{}» no está en c_TasaOCuota para esta retención", r.tasa_o_cuota_dr.texto()),
                        );
                    }
                }
                importe_en_limites(
                    v,
                    "CRP20254",
                    &format!("{campo}.ImporteDR"),
                    &r.base_dr,
                    &r.tasa_o_cuota_dr,
                    &r.importe_dr,
                );
            }
        }
    }
    for (k, t) in impuestos.traslados_dr.iter().enumerate() {
        let campo = p(&format!("ImpuestosDR.TrasladosDR[{k}]"));
        if !positivo(&t.base_dr) {
            v.problema("CRP20255", format!("{campo}.BaseDR"), "debe ser mayor que cero");
        }
        let impuesto = Impuesto::desde_codigo(&t.impuesto_dr);
        if impuesto.is_none() {
            v.problema("CRP20256", format!("{campo}.ImpuestoDR"), format!("«{}» no está en c_Impuesto", t.impuesto_dr));
        }
        match (TipoFactor::desde_codigo(&t.tipo_factor_dr), &t.tasa_o_cuota_dr, &t.importe_dr) {
            (None, ..) => v.problema(
                "CRP20257",
                format!("{campo}.TipoFactorDR"),
                format!("«{}» no está en c_TipoFactor", t.tipo_factor_dr),
            ),
            (Some(TipoFactor::Exento), tasa, importe) => {
                if tasa.is_some() || importe.is_some() {
                    v.problema("CRP20258", campo.clone(), "un traslado Exento no lleva TasaOCuotaDR ni ImporteDR");
                }
            }
            (Some(factor), Some(tasa), importe) => {
                if let Some(impuesto) = impuesto {
                    if !catalogos::tasa_o_cuota_permitida(impuesto, factor, tasa.texto(), false) {
                        v.problema(
                            "CRP20260",
                            format!("{campo}.TasaOCuotaDR"),
                            format!("«{}» no está en c_TasaOCuota para este traslado", tasa.texto()),
                        );
                    }
                }
                if let Some(importe) = importe {
                    importe_en_limites(v, "CRP20261", &format!("{campo}.ImporteDR"), &t.base_dr, tasa, importe);
                }
            }
            (Some(_), None, _) => {}
        }
    }
}

/// Anexo 20's limits of a tax amount: `(Base ∓ 10^−d/2) × TasaOCuota`, `d` the base's
/// decimals, rounded outward to the amount's decimals.
fn importe_en_limites(
    v: &mut Validador<'_>,
    regla: &'static str,
    campo: &str,
    base: &Numero,
    tasa: &Numero,
    importe: &Numero,
) {
    let (Ok(b), Ok(t), Ok(i)) = (base.valor(), tasa.valor(), importe.valor()) else { return };
    let medio = Decimal::new(5, base.decimales().saturating_add(1).min(28));
    let (Some(inferior), Some(superior)) = ((b - medio).checked_mul(t), (b + medio).checked_mul(t)) else { return };
    let d = importe.decimales();
    let inferior = inferior.round_dp_with_strategy(d, rust_decimal::RoundingStrategy::ToNegativeInfinity);
    let superior = superior.round_dp_with_strategy(d, rust_decimal::RoundingStrategy::ToPositiveInfinity);
    if i < inferior || i > superior {
        v.problema(regla, campo, format!("debe ser Base × TasaOCuota (entre {inferior} y {superior})"));
    }
}

fn validar_impuestos_p(v: &mut Validador<'_>, prefijo: &str, impuestos: &ImpuestosP) {
    let mut vistos: Vec<&str> = Vec::new();
    for (k, r) in impuestos.retenciones_p.iter().enumerate() {
        let campo = format!("{prefijo}.RetencionesP[{k}].ImpuestoP");
        if Impuesto::desde_codigo(&r.impuesto_p).is_none() {
            v.problema("CRP20262", campo, format!("«{}» no está en c_Impuesto", r.impuesto_p));
        } else if vistos.contains(&r.impuesto_p.as_str()) {
            v.problema("CRP20263", campo, "solo una retención por impuesto: sume las del mismo impuesto");
        }
        vistos.push(&r.impuesto_p);
    }
    let mut combinaciones: Vec<(&str, &str, Option<Decimal>)> = Vec::new();
    for (k, t) in impuestos.traslados_p.iter().enumerate() {
        let campo = format!("{prefijo}.TrasladosP[{k}]");
        let impuesto = Impuesto::desde_codigo(&t.impuesto_p);
        if impuesto.is_none() {
            v.problema("CRP20270", format!("{campo}.ImpuestoP"), format!("«{}» no está en c_Impuesto", t.impuesto_p));
        }
        let combinacion =
            (t.impuesto_p.as_str(), t.tipo_factor_p.as_str(), t.tasa_o_cuota_p.as_ref().and_then(|n| n.valor().ok()));
        if combinaciones.contains(&combinacion) {
            v.problema(
                "CRP20271",
                campo.clone(),
                "solo un traslado por combinación de impuesto, tipo de factor y tasa: sume los repetidos",
            );
        } else {
            combinaciones.push(combinacion);
        }
        if let (Some(impuesto), Some(factor), Some(tasa)) =
            (impuesto, TipoFactor::desde_codigo(&t.tipo_factor_p), &t.tasa_o_cuota_p)
        {
            if factor != TipoFactor::Exento && !catalogos::tasa_o_cuota_permitida(impuesto, factor, tasa.texto(), false)
            {
                v.problema(
                    "CRP20272",
                    format!("{campo}.TasaOCuotaP"),
                    format!("«{}» no está en c_TasaOCuota para este impuesto y factor", tasa.texto()),
                );
            }
        }
    }
}

/// The documents' taxes of one kind in the payment's currency (÷ EquivalenciaDR): the sum of
/// `(base, importe)` over those `toma` picks, and how many they are.
fn suma_dr<'a>(
    pago: &'a Pago,
    toma: impl Fn(&'a ImpuestosDR) -> Vec<(&'a Numero, Option<&'a Numero>)>,
) -> Option<(Decimal, Decimal, usize)> {
    let (mut base, mut importe, mut cuantos) = (Decimal::ZERO, Decimal::ZERO, 0);
    for d in &pago.doctos_relacionados {
        let Some(impuestos) = &d.impuestos_dr else { continue };
        let equivalencia = d.equivalencia_dr.as_ref().map_or(Ok(Decimal::ONE), Numero::valor).ok()?;
        for (b, i) in toma(impuestos) {
            base = base.checked_add(b.valor().ok()?.checked_div(equivalencia)?)?;
            if let Some(i) = i {
                importe = importe.checked_add(i.valor().ok()?.checked_div(equivalencia)?)?;
            }
            cuantos += 1;
        }
    }
    Some((base, importe, cuantos))
}

/// ImpuestosP as the sums of the documents' taxes converted to the payment's currency
/// (CRP20265 RetencionP's ImporteP per tax; CRP20268 TrasladoP's BaseP and CRP20274 its
/// ImporteP per tax, factor and rate). The matrix does not say in which order conversion and
/// rounding go: a centavo per document summed is accepted (permissive).
fn validar_sumas_p(v: &mut Validador<'_>, prefijo: &str, pago: &Pago, impuestos: &ImpuestosP) {
    let centavos = |cuantos: usize| Decimal::new(1, 2) * Decimal::from(cuantos.max(1));
    let difiere = |registrado: &Numero, esperado: Decimal, cuantos: usize| {
        registrado.valor().is_ok_and(|r| (r - esperado).abs() > centavos(cuantos))
    };
    for (k, r) in impuestos.retenciones_p.iter().enumerate() {
        let suma = suma_dr(pago, |i| {
            i.retenciones_dr
                .iter()
                .filter(|dr| dr.impuesto_dr == r.impuesto_p)
                .map(|dr| (&dr.importe_dr, None))
                .collect()
        });
        if let Some((importe, _, cuantos)) = suma {
            if difiere(&r.importe_p, importe, cuantos) {
                v.problema(
                    "CRP20265",
                    format!("{prefijo}.RetencionesP[{k}].ImporteP"),
                    format!(
                        "debe ser la suma de las retenciones {} de los documentos en la moneda del pago: {}",
                        r.impuesto_p,
                        importe.round_dp(6)
                    ),
                );
            }
        }
    }
    for (k, t) in impuestos.traslados_p.iter().enumerate() {
        let tasa = t.tasa_o_cuota_p.as_ref().and_then(|n| n.valor().ok());
        let suma = suma_dr(pago, |i| {
            i.traslados_dr
                .iter()
                .filter(|dr| {
                    dr.impuesto_dr == t.impuesto_p
                        && dr.tipo_factor_dr == t.tipo_factor_p
                        && dr.tasa_o_cuota_dr.as_ref().and_then(|n| n.valor().ok()) == tasa
                })
                .map(|dr| (&dr.base_dr, dr.importe_dr.as_ref()))
                .collect()
        });
        let Some((base, importe, cuantos)) = suma else { continue };
        if difiere(&t.base_p, base, cuantos) {
            v.problema(
                "CRP20268",
                format!("{prefijo}.TrasladosP[{k}].BaseP"),
                format!(
                    "debe ser la suma de BaseDR de los documentos con ese impuesto y tasa, en la moneda del pago: {}",
                    base.round_dp(6)
                ),
            );
        }
        if let Some(importe_p) = &t.importe_p {
            if difiere(importe_p, importe, cuantos) {
                v.problema(
                    "CRP20274",
                    format!("{prefijo}.TrasladosP[{k}].ImporteP"),
                    format!("debe ser la suma de ImporteDR de los documentos con ese impuesto y tasa, en la moneda del pago: {}", importe.round_dp(6)),
                );
            }
        }
    }
}

/// Totales (CRP20201-CRP20211, CRP20264, CRP20267, CRP20273): each the rounding of the sum of
/// the payments' amounts times TipoCambioP (as [`calcular_totales`] computes it). A document
/// whose sum was rounded per payment differs by at most a centavo per payment, which is
/// accepted: the matrix' text does not say in which order the rounding goes.
fn validar_totales(v: &mut Validador<'_>, pagos: &Pagos) {
    let mut calculados = pagos.clone();
    if calcular_totales(&mut calculados).is_err() {
        return;
    }
    let tolerancia = Decimal::new(1, 2) * Decimal::from(pagos.pagos.len().saturating_sub(1));
    let t = &pagos.totales;
    let e = &calculados.totales;
    let campos = [
        ("CRP20201", "TotalRetencionesIVA", &t.total_retenciones_iva, &e.total_retenciones_iva),
        ("CRP20202", "TotalRetencionesISR", &t.total_retenciones_isr, &e.total_retenciones_isr),
        ("CRP20203", "TotalRetencionesIEPS", &t.total_retenciones_ieps, &e.total_retenciones_ieps),
        ("CRP20204", "TotalTrasladosBaseIVA16", &t.total_traslados_base_iva16, &e.total_traslados_base_iva16),
        (
            "CRP20205",
            "TotalTrasladosImpuestoIVA16",
            &t.total_traslados_impuesto_iva16,
            &e.total_traslados_impuesto_iva16,
        ),
        ("CRP20206", "TotalTrasladosBaseIVA8", &t.total_traslados_base_iva8, &e.total_traslados_base_iva8),
        ("CRP20207", "TotalTrasladosImpuestoIVA8", &t.total_traslados_impuesto_iva8, &e.total_traslados_impuesto_iva8),
        ("CRP20208", "TotalTrasladosBaseIVA0", &t.total_traslados_base_iva0, &e.total_traslados_base_iva0),
        ("CRP20209", "TotalTrasladosImpuestoIVA0", &t.total_traslados_impuesto_iva0, &e.total_traslados_impuesto_iva0),
        (
            "CRP20210",
            "TotalTrasladosBaseIVAExento",
            &t.total_traslados_base_iva_exento,
            &e.total_traslados_base_iva_exento,
        ),
    ];
    let difiere = |registrado: Decimal, esperado: Decimal| (registrado - esperado).abs() > tolerancia;
    for (regla, nombre, registrado, esperado) in campos {
        let registrado = registrado.as_ref().map(|n| n.valor().ok());
        let esperado = esperado.as_ref().and_then(|n| n.valor().ok());
        let falla = match (registrado, esperado) {
            (Some(Some(r)), Some(e)) => difiere(r, e),
            (Some(Some(r)), None) => !r.is_zero(),
            (Some(None), _) => true,
            (None, _) => false,
        };
        if falla {
            v.problema(
                regla,
                format!("Pagos.Totales.{nombre}"),
                format!(
                    "debe ser {}: la suma de los importes de los pagos por su TipoCambioP, redondeada",
                    esperado.map_or_else(|| "omitido".to_owned(), |e| e.to_string())
                ),
            );
        }
    }
    if let (Ok(registrado), Ok(esperado)) = (t.monto_total_pagos.valor(), e.monto_total_pagos.valor()) {
        if difiere(registrado, esperado) {
            v.problema(
                "CRP20211",
                "Pagos.Totales.MontoTotalPagos",
                format!("debe ser {esperado}: la suma de Monto × TipoCambioP de los pagos, redondeada"),
            );
        }
    }
    let retenciones =
        e.total_retenciones_iva.is_some() || e.total_retenciones_isr.is_some() || e.total_retenciones_ieps.is_some();
    if retenciones
        && t.total_retenciones_iva.is_none()
        && t.total_retenciones_isr.is_none()
        && t.total_retenciones_ieps.is_none()
    {
        v.problema(
            "CRP20264",
            "Pagos.Totales",
            "con retenciones en los pagos registre TotalRetencionesIVA, TotalRetencionesISR o TotalRetencionesIEPS",
        );
    }
    let bases = [
        &t.total_traslados_base_iva16,
        &t.total_traslados_base_iva8,
        &t.total_traslados_base_iva0,
        &t.total_traslados_base_iva_exento,
    ];
    let bases_esperadas = [
        &e.total_traslados_base_iva16,
        &e.total_traslados_base_iva8,
        &e.total_traslados_base_iva0,
        &e.total_traslados_base_iva_exento,
    ];
    if bases_esperadas.iter().any(|b| b.is_some()) && bases.iter().all(|b| b.is_none()) {
        v.problema(
            "CRP20267",
            "Pagos.Totales",
            "con traslados de IVA en los pagos registre TotalTrasladosBaseIVA16, IVA8, IVA0 o IVAExento",
        );
    }
    let impuestos_esperados =
        [&e.total_traslados_impuesto_iva16, &e.total_traslados_impuesto_iva8, &e.total_traslados_impuesto_iva0];
    let impuestos =
        [&t.total_traslados_impuesto_iva16, &t.total_traslados_impuesto_iva8, &t.total_traslados_impuesto_iva0];
    if impuestos_esperados.iter().any(|i| i.is_some()) && impuestos.iter().all(|i| i.is_none()) {
        v.problema(
            "CRP20273",
            "Pagos.Totales",
            "con traslados de IVA no exentos registre TotalTrasladosImpuestoIVA16, IVA8 o IVA0",
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::model::Comprobante;
    use crate::numero::Numero;

    fn reglas(c: &Comprobante) -> Vec<&'static str> {
        let informe = crate::validacion::validar(c, &crate::catalogos::SinCatalogos);
        informe.problemas.iter().map(|p| p.regla).collect()
    }

    use super::super::*;
    use crate::complementos::Complemento;

    fn golden() -> Comprobante {
        crate::parser::parsear(include_str!("../../../tests/golden/P_pagos20.xml")).unwrap()
    }

    fn pg(c: &mut Comprobante) -> &mut Pagos {
        c.complementos
            .iter_mut()
            .find_map(|complemento| match complemento {
                Complemento::Pagos(pagos) => Some(&mut **pagos),
                _ => None,
            })
            .unwrap()
    }

    fn pago(c: &mut Comprobante) -> &mut Pago {
        &mut pg(c).pagos[0]
    }

    fn docto(c: &mut Comprobante) -> &mut DoctoRelacionado {
        &mut pago(c).doctos_relacionados[0]
    }

    fn traslado_dr(c: &mut Comprobante) -> &mut TrasladoDR {
        &mut docto(c).impuestos_dr.as_mut().unwrap().traslados_dr[0]
    }

    /// The golden document with a withholding of IVA on its document (valid).
    fn con_retencion(c: &mut Comprobante) {
        docto(c).impuestos_dr.as_mut().unwrap().retenciones_dr.push(RetencionDR {
            base_dr: Numero::from_texto("10000.00"),
            impuesto_dr: "002".into(),
            tipo_factor_dr: "Tasa".into(),
            tasa_o_cuota_dr: Numero::from_texto("0.106667"),
            importe_dr: Numero::from_texto("1066.67"),
        });
    }

    fn retencion_dr(c: &mut Comprobante) -> &mut RetencionDR {
        con_retencion(c);
        &mut docto(c).impuestos_dr.as_mut().unwrap().retenciones_dr[0]
    }

    /// c_FormaPago's rows 01 and 03 as the shipped edition has them.
    struct FormasPago;

    impl crate::catalogos::Catalogos for FormasPago {
        fn datos_forma_pago(&self, codigo: &str) -> Option<crate::catalogos::DatosFormaPago> {
            match codigo {
                "01" => Some(crate::catalogos::DatosFormaPago::default()),
                "03" => Some(crate::catalogos::DatosFormaPago {
                    permite_rfc_ordenante: true,
                    permite_cuenta_ordenante: true,
                    patron_cuenta_ordenante: Some("[0-9]{10}|[0-9]{16}|[0-9]{18}".into()),
                    permite_rfc_beneficiario: true,
                    permite_cuenta_beneficiario: true,
                    patron_cuenta_beneficiario: Some("[0-9]{10}|[0-9]{18}".into()),
                    permite_tipo_cadena_pago: true,
                }),
                _ => None,
            }
        }
    }

    fn reglas_con_formas(c: &Comprobante) -> Vec<&'static str> {
        let mut reglas: Vec<&str> =
            crate::validacion::validar(c, &FormasPago).problemas.iter().map(|p| p.regla).collect();
        reglas.sort_unstable();
        reglas
    }

    /// The bank data a FormaDePagoP allows and the payment chain.
    #[test]
    fn datos_bancarios_del_pago() {
        type Caso = (&'static [&'static str], fn(&mut Comprobante));
        let casos: &[Caso] = &[
            (&[], |c| {
                let p = pago(c);
                p.cta_ordenante = Some("0123456789".into());
                p.cta_beneficiario = Some("012345678901234567".into());
                p.rfc_emisor_cta_ben = Some("BBA830831LJ2".into());
            }),
            (&["CRP20223"], |c| pago(c).rfc_emisor_cta_ord = Some("XEXX010101000".into())),
            (&["CRP20224"], |c| {
                pago(c).forma_de_pago_p = "01".into();
                pago(c).cta_ordenante = Some("0123456789".into());
            }),
            (&["CRP20225"], |c| pago(c).cta_ordenante = Some("12345".into())),
            (&["CRP20226"], |c| pago(c).cta_beneficiario = Some("0123456789012".into())),
            (&["CRP20227"], |c| {
                pago(c).forma_de_pago_p = "01".into();
                pago(c).rfc_emisor_cta_ben = Some("BBA830831LJ2".into());
            }),
            (&["CRP20229", "CRP20230", "CRP20232", "CRP20234"], |c| {
                pago(c).forma_de_pago_p = "01".into();
                pago(c).tipo_cad_pago = Some("01".into());
            }),
            (&["CRP20231", "CRP20233", "CRP20235"], |c| {
                let p = pago(c);
                p.cert_pago = Some("MIIB".into());
                p.cad_pago = Some("||1|".into());
                p.sello_pago = Some("AAAA".into());
            }),
        ];
        for (esperadas, romper) in casos {
            let mut c = golden();
            romper(&mut c);
            assert_eq!(&reglas_con_formas(&c), esperadas);
        }
        // Without c_FormaPago loaded those checks are listed as skipped.
        let informe = crate::validacion::validar(&golden(), &crate::catalogos::SinCatalogos);
        assert!(informe.omitidas.iter().any(|o| o.starts_with("c_FormaPago")), "{:?}", informe.omitidas);
    }

    /// Pagos 2.0 matrix: each body breaks its rule, alone where the document allows it (a
    /// change to a document's taxes also leaves ImpuestosP short of their sum: CRP20268,
    /// CRP20274).
    #[test]
    fn reglas_de_la_matriz_de_pagos() {
        let n = |texto: &str| Numero::from_texto(texto);
        type Caso = (&'static [&'static str], fn(&mut Comprobante));
        let solos: &[Caso] = &[
            (&[], con_retencion),
            (&["CRP20107"], |c| c.condiciones_de_pago = Some("Contado".into())),
            (&["CRP20108"], |c| c.descuento = Some(Numero::from_texto("0"))),
            (&["CRP20111"], |c| c.conceptos.push(c.conceptos[0].clone())),
            (&["CRP20113"], |c| c.conceptos[0].clave_prod_serv = "01010101".into()),
            (&["CRP20114"], |c| c.conceptos[0].no_identificacion = Some("P-1".into())),
            (&["CRP20115"], |c| c.conceptos[0].cantidad = Numero::from_texto("2")),
            (&["CRP20116"], |c| c.conceptos[0].clave_unidad = "H87".into()),
            (&["CRP20117"], |c| c.conceptos[0].unidad = Some("Actividad".into())),
            (&["CRP20118"], |c| c.conceptos[0].descripcion = "Pago de factura".into()),
            (&["CRP20121"], |c| c.conceptos[0].descuento = Some(Numero::from_texto("0"))),
            (&["CRP20123"], |c| c.impuestos = Some(crate::model::Impuestos::default())),
            (&["CRP20201"], |c| pg(c).totales.total_retenciones_iva = Some(Numero::from_texto("1.00"))),
            (&["CRP20204"], |c| pg(c).totales.total_traslados_base_iva16 = Some(Numero::from_texto("10000.01"))),
            (&["CRP20205"], |c| pg(c).totales.total_traslados_impuesto_iva16 = Some(Numero::from_texto("1600.01"))),
            (&["CRP20211"], |c| pg(c).totales.monto_total_pagos = Numero::from_texto("11600.02")),
            (&["CRP20267", "CRP20273"], |c| {
                pg(c).totales.total_traslados_base_iva16 = None;
                pg(c).totales.total_traslados_impuesto_iva16 = None;
            }),
            (&["CRP20212"], |c| pago(c).forma_de_pago_p = "99".into()),
            (&["CRP20214"], |c| {
                pago(c).moneda_p = "USD".into();
                pago(c).tipo_cambio_p = None;
            }),
            (&["CRP20217"], |c| {
                docto(c).imp_pagado = Numero::from_texto("11600.01");
                docto(c).imp_saldo_insoluto = Numero::from_texto("11599.99");
            }),
            (&["CRP20219"], |c| pago(c).monto = Numero::from_texto("11600.001")),
            (&["CRP20237"], |c| {
                docto(c).moneda_dr = "USD".into();
                docto(c).equivalencia_dr = None;
            }),
            // (Its taxes then convert to half in the payment's currency.)
            (&["CRP20238", "CRP20268", "CRP20274"], |c| docto(c).equivalencia_dr = Some(Numero::from_texto("2"))),
            (&["CRP20244"], |c| docto(c).imp_saldo_insoluto = Numero::from_texto("11599.00")),
            (&["CRP20245"], |c| docto(c).objeto_imp_dr = "09".into()),
            (&["CRP20246", "CRP20268", "CRP20274"], |c| docto(c).impuestos_dr = None),
            (&["CRP20248", "CRP20268", "CRP20274"], |c| docto(c).impuestos_dr = Some(ImpuestosDR::default())),
            (&["CRP20250"], |c| retencion_dr(c).impuesto_dr = "004".into()),
            (&["CRP20251"], |c| retencion_dr(c).tipo_factor_dr = "Fija".into()),
            (&["CRP20252"], |c| retencion_dr(c).tipo_factor_dr = "Exento".into()),
            (&["CRP20254"], |c| retencion_dr(c).importe_dr = Numero::from_texto("1.00")),
            (&["CRP20256", "CRP20268", "CRP20274"], |c| traslado_dr(c).impuesto_dr = "004".into()),
            (&["CRP20257", "CRP20268", "CRP20274"], |c| traslado_dr(c).tipo_factor_dr = "Fija".into()),
            (&["CRP20258", "CRP20268", "CRP20274"], |c| traslado_dr(c).tipo_factor_dr = "Exento".into()),
            (&["CRP20261", "CRP20274"], |c| traslado_dr(c).importe_dr = Some(Numero::from_texto("1700.00"))),
            (&["CRP20262", "CRP20265"], |c| {
                let p = pago(c).impuestos_p.as_mut().unwrap();
                p.retenciones_p.push(RetencionP { impuesto_p: "004".into(), importe_p: Numero::from_texto("1.00") });
            }),
            (&["CRP20265"], |c| {
                con_retencion(c);
                let p = pago(c).impuestos_p.as_mut().unwrap();
                p.retenciones_p.push(RetencionP { impuesto_p: "002".into(), importe_p: Numero::from_texto("1066.70") });
                pg(c).totales.total_retenciones_iva = Some(Numero::from_texto("1066.70"));
            }),
            (&[], |c| {
                // A centavo off per document is accepted.
                con_retencion(c);
                let p = pago(c).impuestos_p.as_mut().unwrap();
                p.retenciones_p.push(RetencionP { impuesto_p: "002".into(), importe_p: Numero::from_texto("1066.68") });
                pg(c).totales.total_retenciones_iva = Some(Numero::from_texto("1066.68"));
            }),
            (&["CRP20268", "CRP20274"], |c| {
                let t = &mut pago(c).impuestos_p.as_mut().unwrap().traslados_p[0];
                t.base_p = Numero::from_texto("10000.50");
                t.importe_p = Some(Numero::from_texto("1600.08"));
                pg(c).totales.total_traslados_base_iva16 = Some(Numero::from_texto("10000.50"));
                pg(c).totales.total_traslados_impuesto_iva16 = Some(Numero::from_texto("1600.08"));
            }),
            (&["CRP20268", "CRP20270", "CRP20274"], |c| {
                let p = pago(c).impuestos_p.as_mut().unwrap();
                let mut t = p.traslados_p[0].clone();
                t.impuesto_p = "004".into();
                p.traslados_p.push(t);
            }),
        ];
        for (esperadas, romper) in solos {
            let mut c = golden();
            romper(&mut c);
            let mut obtenidas = reglas(&c);
            obtenidas.sort_unstable();
            assert_eq!(&obtenidas, esperadas);
        }
        type Entre = (&'static str, fn(&mut Comprobante));
        let entre: &[Entre] = &[
            ("CRP20102", |c| c.exportacion = "02".into()),
            ("CRP20119", |c| c.conceptos[0].valor_unitario = Numero::from_texto("1")),
            ("CRP20120", |c| c.conceptos[0].importe = Numero::from_texto("1")),
            ("CRP20122", |c| c.conceptos[0].objeto_imp = "02".into()),
            ("CRP20213", |c| pago(c).moneda_p = "XXX".into()),
            ("CRP20215", |c| pago(c).tipo_cambio_p = Some(Numero::from_texto("2"))),
            ("CRP20218", |c| pago(c).monto = Numero::from_texto("0")),
            ("CRP20236", |c| docto(c).moneda_dr = "XXX".into()),
            ("CRP20239", |c| docto(c).imp_saldo_ant = Numero::from_texto("0")),
            ("CRP20240", |c| docto(c).imp_saldo_ant = Numero::from_texto("23200.001")),
            ("CRP20241", |c| docto(c).imp_pagado = Numero::from_texto("0")),
            ("CRP20242", |c| docto(c).imp_pagado = Numero::from_texto("11600.001")),
            ("CRP20243", |c| docto(c).imp_saldo_insoluto = Numero::from_texto("11600.001")),
            ("CRP20249", |c| retencion_dr(c).base_dr = Numero::from_texto("0")),
            ("CRP20253", |c| retencion_dr(c).tasa_o_cuota_dr = Numero::from_texto("0.500000")),
            ("CRP20255", |c| traslado_dr(c).base_dr = Numero::from_texto("0")),
            ("CRP20260", |c| traslado_dr(c).tasa_o_cuota_dr = Some(Numero::from_texto("0.170000"))),
            ("CRP20263", |c| {
                let p = pago(c).impuestos_p.as_mut().unwrap();
                let r = RetencionP { impuesto_p: "001".into(), importe_p: Numero::from_texto("0.00") };
                p.retenciones_p.push(r.clone());
                p.retenciones_p.push(r);
            }),
            ("CRP20264", |c| {
                let p = pago(c).impuestos_p.as_mut().unwrap();
                p.retenciones_p.push(RetencionP { impuesto_p: "001".into(), importe_p: Numero::from_texto("10.00") });
            }),
            ("CRP20271", |c| {
                let p = pago(c).impuestos_p.as_mut().unwrap();
                p.traslados_p.push(p.traslados_p[0].clone());
            }),
            ("CRP20272", |c| {
                pago(c).impuestos_p.as_mut().unwrap().traslados_p[0].tasa_o_cuota_p =
                    Some(Numero::from_texto("0.170000"));
            }),
        ];
        for (regla, romper) in entre {
            let mut c = golden();
            romper(&mut c);
            assert!(reglas(&c).contains(regla), "{regla}: {:?}", reglas(&c));
        }
        // Payments whose totals were rounded per payment: a centavo apart per payment is
        // accepted (11600.00 + 0.005 + 0.005 is 11600.01 rounded once, 11600.02 per payment).
        let mut c = golden();
        let mut otro = pago(&mut c).clone();
        otro.moneda_p = "USD".into();
        otro.tipo_cambio_p = Some(n("0.5"));
        otro.monto = n("0.01");
        let d = &mut otro.doctos_relacionados[0];
        (d.moneda_dr, d.equivalencia_dr, d.objeto_imp_dr, d.impuestos_dr) =
            ("USD".into(), Some(n("1")), "01".into(), None);
        (d.imp_saldo_ant, d.imp_pagado, d.imp_saldo_insoluto) = (n("0.01"), n("0.01"), n("0.00"));
        otro.impuestos_p = None;
        pg(&mut c).pagos.extend([otro.clone(), otro]);
        for monto in ["11600.01", "11600.02"] {
            pg(&mut c).totales.monto_total_pagos = n(monto);
            assert!(reglas(&c).is_empty(), "{monto}: {:?}", reglas(&c));
        }
        pg(&mut c).totales.monto_total_pagos = n("11600.04");
        assert_eq!(reglas(&c), ["CRP20211"]);
    }

    #[test]
    fn cada_regla_del_comprobante_de_pago_tiene_su_cuerpo_que_falla() {
        let golden = crate::parser::parsear(include_str!("../../../tests/golden/P_pagos20.xml")).unwrap();
        assert!(reglas(&golden).is_empty(), "{:?}", reglas(&golden));
        type Caso = (&'static str, fn(&mut Comprobante));
        let casos: [Caso; 5] = [
            ("TIMBRA_PAGO_COMPLEMENTO", |c| c.complementos.clear()),
            ("CRP20104", |c| c.moneda = "MXN".into()),
            ("TIMBRA_PAGO_USO", |c| c.receptor.uso_cfdi = "G03".into()),
            ("CRP20103", |c| c.sub_total = Numero::from_texto("1")),
            ("CRP20110", |c| c.total = Numero::from_texto("1")),
        ];
        for (regla, romper) in casos {
            let mut c = golden.clone();
            romper(&mut c);
            assert!(reglas(&c).contains(&regla), "{regla}: {:?}", reglas(&c));
        }
    }
}
