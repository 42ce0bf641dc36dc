//! Rules the Guía de llenado of the complement sets on the comprobante that carries it.

use super::*;

/// Rules for a comprobante of tipo N (Guía de llenado del comprobante del recibo de pago de
/// nómina y su complemento, CFDI 4.0): it carries Nómina 1.2, UsoCFDI CN01 and Moneda MXN.
pub(super) fn validar(v: &mut Validador<'_>, c: &Comprobante, tipo: Option<TipoDeComprobante>) {
    if !matches!(tipo, Some(TipoDeComprobante::Nomina)) {
        return;
    }
    if c.nominas().next().is_none() {
        v.problema(
            "CFDI40_NOMINA_COMPLEMENTO",
            "Complemento",
            "un comprobante de nómina requiere el complemento Nómina 1.2",
        );
    }
    if c.receptor.uso_cfdi != "CN01" {
        v.problema("CFDI40_NOMINA_USO", "Receptor.UsoCFDI", "un recibo de nómina usa UsoCFDI CN01");
    }
    if c.moneda != "MXN" {
        v.problema("CFDI40_NOMINA_MONEDA", "Moneda", "un recibo de nómina usa Moneda MXN");
    }
}
