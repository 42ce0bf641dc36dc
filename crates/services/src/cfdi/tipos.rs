//! The registry of stamped document types: what varies by type beyond the pipeline's common
//! steps, found here by the name stored with a live attempt (its operation) or by the
//! `TipoDeComprobante` of a stored CFDI, instead of per-type switches in the pipeline, live
//! reconciliation and cancellation.
//!
//! A new document type is one module with its `TIPO` and one line in [`TIPOS`].

use timbra_pac::Servicio;
use timbra_store::Tx;
use timbra_store::ids::{CfdiId, EmpresaId};
use time::OffsetDateTime;

use super::documento::{Sellable, leer_comprobante};
use super::pipeline::{Efectos, Hecho};
use crate::error::ApiResult;

/// One stamped document type.
pub struct TipoDocumento {
    /// The operation name stored with its live attempts and Idempotency-Keys.
    pub operacion: &'static str,
    /// The route that stamps it, as the API documents it (named in IDEMPOTENCY_001's details).
    pub ruta: &'static str,
    /// The `TipoDeComprobante` values of the CFDI it stamps (Anexo 20, c_TipoDeComprobante).
    pub tipos_comprobante: &'static [&'static str],
    /// Its stamp-time hooks when only a stored live attempt is at hand (resolved by a later
    /// request or the reconciliation job); `None`: the pipeline's defaults.
    pub efectos_guardados: Option<&'static dyn Efectos>,
    /// What SAT's cancellation of one of its CFDI undoes, in the transaction that records it
    /// (a payment gives its amounts back, a payroll receipt is cancelled with its CFDI).
    pub al_cancelar: for<'a> fn(&'a mut Tx, &'a EmpresaId, &'a CfdiId, OffsetDateTime) -> Hecho<'a>,
    /// Reads the XML the PAC stamped back into the document, for its row.
    pub leer_timbrado: fn(&str) -> ApiResult<Box<dyn Sellable>>,
    /// The PAC service that stamps and cancels it (CFDI 4.0, or the retentions service).
    pub servicio_pac: Servicio,
}

impl TipoDocumento {
    /// Whether SAT cancels its documents without the receiver's acceptance whatever their
    /// amount (CFDI de Retenciones: SAT's retention cancellation service has no acceptance).
    pub fn cancela_sin_aceptacion(&self) -> bool {
        self.servicio_pac == Servicio::Retenciones
    }
}

/// Nothing to undo.
pub fn sin_efectos<'a>(
    _tx: &'a mut Tx,
    _empresa_id: &'a EmpresaId,
    _cfdi_id: &'a CfdiId,
    _now: OffsetDateTime,
) -> Hecho<'a> {
    Box::pin(async { Ok(()) })
}

/// An invoice (ingreso, egreso, traslado): `POST /api/cfdi/timbrar`.
pub static FACTURA: TipoDocumento = TipoDocumento {
    operacion: "cfdi.timbrar",
    ruta: "POST /api/cfdi/timbrar",
    tipos_comprobante: &["I", "E", "T"],
    efectos_guardados: None,
    // A self-invoice's ticket goes back to ABIERTO.
    al_cancelar: super::recibos::al_cancelar,
    leer_timbrado: leer_comprobante,
    servicio_pac: Servicio::Cfdi,
};

/// Every document type the service stamps.
pub static TIPOS: [&TipoDocumento; 6] = [
    &FACTURA,
    &super::pagos::TIPO,
    &super::nomina::TIPO,
    &super::retenciones::TIPO,
    &super::recibos::TIPO_GLOBAL,
    &super::recibos::TIPO_AUTOFACTURA,
];

/// The type of a stored live attempt by its operation name. Attempts stored before the name
/// was recorded (migration 0012) carry none: only invoices were stamped live then.
pub fn por_operacion(operacion: Option<&str>) -> Option<&'static TipoDocumento> {
    match operacion {
        None => Some(&FACTURA),
        Some(operacion) => TIPOS.iter().copied().find(|tipo| tipo.operacion == operacion),
    }
}

/// The route an Idempotency-Key's operation answers on, as the API documents it (named in
/// IDEMPOTENCY_001): a cancellation's, or the stamping route of the operation's type.
pub fn ruta_de_operacion(operation: &str, cfdi_id: Option<&str>) -> String {
    if operation == super::cancelacion::OPERACION {
        return format!("POST /api/cfdi/{}/cancelar", cfdi_id.unwrap_or("{id}"));
    }
    por_operacion(Some(operation)).map_or(operation, |tipo| tipo.ruta).to_owned()
}

/// The type of a stored CFDI by its `TipoDeComprobante`.
pub fn por_tipo_comprobante(tipo_comprobante: &str) -> Option<&'static TipoDocumento> {
    TIPOS.iter().copied().find(|tipo| tipo.tipos_comprobante.contains(&tipo_comprobante))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_letters_are_each_one_types() {
        for (i, tipo) in TIPOS.iter().enumerate() {
            assert!(std::ptr::eq(por_operacion(Some(tipo.operacion)).unwrap(), *tipo));
            for letra in tipo.tipos_comprobante {
                assert!(std::ptr::eq(por_tipo_comprobante(letra).unwrap(), *tipo), "{letra}");
                assert!(TIPOS[i + 1..].iter().all(|otro| !otro.tipos_comprobante.contains(letra)), "{letra}");
            }
        }
        assert!(por_operacion(Some("cfdi.otra")).is_none());
        assert!(std::ptr::eq(por_operacion(None).unwrap(), &FACTURA));
        for letra in ["I", "E", "T", "P", "N"] {
            assert!(por_tipo_comprobante(letra).is_some(), "{letra}");
        }
    }
}
