//! `POST /api/cfdi/{id}/cancelar`: sandbox cancels at once; live signs the request with the
//! CSD, sends it through the PAC, then asks SAT's status at once: the invoice is CANCELADO only
//! when SAT says so, and a durable job follows any state that is not final. The operation is
//! `timbra_services::cfdi::cancelar`; here the request is authorized and read.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use timbra_store::ids::{CfdiId, EmpresaId};
use utoipa::ToSchema;

use super::parse_body;

use crate::envelope::Path;
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Caller;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::cancelacion::OPERACION;
use timbra_services::cfdi::cancelar::{self, CancelacionOut};
use timbra_services::context::AppContext;
use timbra_services::idempotency;

/// Cancellation request.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelarBody {
    /// c_MotivoCancelacion: `01` errors with a replacement (needs `folioSustitucion`), `02`
    /// errors without relation, `03` the operation did not happen, `04` nominative operation in
    /// a global invoice.
    pub(crate) motivo: String,
    /// UUID of the invoice that replaces this one (motivo 01 only; `SANDBOX-` prefix accepted).
    pub(crate) folio_sustitucion: Option<String>,
}

/// Cancels an invoice (CONTADOR or higher; `cfdi:cancelar`).
#[utoipa::path(post, path = "/cfdi/{id}/cancelar", tag = "cfdi", request_body = CancelarBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header),
        ("Idempotency-Key" = Option<String>, Header, description = "replays the first answer for the same body")),
    responses(
        (status = 200, description = "Request accepted: cancelled when SAT says so, else SOLICITADA or PENDIENTE (followed by a job)", body = Envelope<CancelacionOut>),
        (status = 400, description = "CANCEL_001 invalid motivo or folioSustitucion; CANCEL_003 not TIMBRADO (or a cancellation is in progress, \
            or a PPD invoice with payments that are not cancelled: `details.pagos` names them); \
            CANCEL_004 motivo 01 without folioSustitucion; CFDI_002/CFDI_003 CSD missing or expired (live); REQUEST_001", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "CANCEL_002 no such invoice in this company", body = ErrorBody),
        (status = 409, description = "IDEMPOTENCY_001", body = ErrorBody),
        (status = 502, description = "PAC_001 the PAC or SAT refused (details.pacCode); PAC_002 no usable answer", body = ErrorBody),
    ))]
pub async fn cancelar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> HttpResult<Response> {
    let clave = idempotency::from_headers(&headers, &body)?;
    Ok(crate::error::answer(cancelar_cfdi(&app, &caller, &empresa_id, &id, clave, &body).await?))
}

/// The cancellation of an invoice, as `POST /api/cfdi/{id}/cancelar` and the MCP tool
/// `cancelar_cfdi` do it.
pub(crate) async fn cancelar_cfdi(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
    id: &str,
    clave: Option<idempotency::Key>,
    bytes: &[u8],
) -> HttpResult<idempotency::Answer> {
    let access = caller.authorize(app, empresa_id, Permission::CfdiCancelar).await?;
    if let Some(replayed) =
        super::previa(app, empresa_id, clave.as_ref(), idempotency::Uso::sobre(OPERACION, &CfdiId::from(id))).await?
    {
        return Ok(replayed);
    }
    // The invoice first: an id of another company is CANCEL_002 whatever the body says.
    let fila = cancelar::buscar(app, empresa_id, id, super::ve_nomina(caller, &access)).await?;
    let body: CancelarBody = parse_body(bytes)?;
    Ok(cancelar::cancelar(
        app,
        empresa_id,
        id,
        &fila,
        &body.motivo,
        body.folio_sustitucion.as_deref(),
        clave.as_ref(),
        access.mode(),
    )
    .await?)
}
