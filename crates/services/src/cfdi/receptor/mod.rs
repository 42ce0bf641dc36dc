//! The receiver's side (issue 30): SAT's status of any CFDI of the company ([`estado_sat`]:
//! `GET /api/cfdi/{id}/estado-sat` and the durable watch of received CFDI), and the
//! cancellation requests where the company is the receiver ([`solicitudes`]: the pending list,
//! the signed answer, the poll of the PAC, and in sandbox both sides of the request).
//!
//! Live, SAT decides: its status service (`TIMBRA_SAT_CONSULTA_URL`) for the status, the PAC
//! (Finkok `get_pending`, `accept_reject_signature`) for the requests. Sandbox companies never
//! reach SAT: the answers come from the service's own records and SAT's rules as of 2026
//! ([`super::plazos`]).

pub mod estado_sat;
pub mod solicitudes;

use timbra_store::cfdis::PorCancelar;
use time::OffsetDateTime;

use super::plazos::{self, Cancelable, DatosRegla};

/// Regla 2.7.1.35 applied to a stored invoice, asked at `ahora` (sandbox: the service plays
/// SAT). `relacionados_vigentes`: it has payments (or credit notes) not cancelled.
pub fn cancelable(fila: &PorCancelar, relacionados_vigentes: bool, ahora: OffsetDateTime) -> Cancelable {
    plazos::cancelable(
        &DatosRegla {
            tipo_comprobante: &fila.tipo_comprobante,
            total: fila.total.0,
            moneda: &fila.moneda,
            tipo_cambio: fila.tipo_cambio.map(|t| t.0),
            receptor_rfc: &fila.receptor_rfc,
            emitido: fila.fecha_timbrado.unwrap_or(fila.fecha),
            relacionados_vigentes,
        },
        ahora,
    )
}
