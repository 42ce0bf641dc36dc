//! Rules the Guía de llenado of the complement sets on the comprobante that carries it.

use rust_decimal::Decimal;

use super::*;

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
}

#[cfg(test)]
mod tests {
    use crate::model::Comprobante;
    use crate::numero::Numero;

    fn reglas(c: &Comprobante) -> Vec<&'static str> {
        let informe = crate::validacion::validar(c, &crate::catalogos::SinCatalogos);
        informe.problemas.iter().map(|p| p.regla).collect()
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
