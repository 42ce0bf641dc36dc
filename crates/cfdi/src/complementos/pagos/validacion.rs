//! Rules the Guía de llenado of the complement sets on the comprobante that carries it.

use rust_decimal::Decimal;

use super::*;

/// Rules for a comprobante of tipo P (Guía de llenado del CFDI con complemento para
/// recepción de pagos 2.0, nodo Comprobante): it carries Pagos 2.0, Moneda XXX, UsoCFDI
/// CP01 and SubTotal and Total 0.
pub(super) fn validar(v: &mut Validador<'_>, c: &Comprobante, tipo: Option<TipoDeComprobante>) {
    if !matches!(tipo, Some(TipoDeComprobante::Pago)) {
        return;
    }
    if c.pagos().is_none() {
        v.problema(
            "CFDI40_PAGO_COMPLEMENTO",
            "Complemento",
            "un comprobante de pago requiere el complemento Pagos 2.0",
        );
    }
    if c.moneda != "XXX" {
        v.problema("CFDI40_PAGO_MONEDA", "Moneda", "un comprobante de pago usa Moneda XXX");
    }
    if c.receptor.uso_cfdi != "CP01" {
        v.problema("CFDI40_PAGO_USO", "Receptor.UsoCFDI", "un comprobante de pago usa UsoCFDI CP01");
    }
    if c.sub_total.valor().ok() != Some(Decimal::ZERO) || c.total.valor().ok() != Some(Decimal::ZERO) {
        v.problema("CFDI40_PAGO_TOTAL", "Total", "un comprobante de pago tiene SubTotal y Total 0");
    }
}
