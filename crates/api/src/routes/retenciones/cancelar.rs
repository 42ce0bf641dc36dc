//! `POST /api/retenciones/{id}/cancelar`: a retention is cancelled as an invoice is (the same
//! motivos, Idempotency-Key and acuse), but without the receiver's acceptance: sandbox cancels
//! at once, live sends the signed request to the PAC's retention service, whose `1201` is the
//! cancellation. The operation is `timbra_services::cfdi::cancelar`.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use timbra_store::ids::CfdiId;

use crate::envelope::Path;
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::cfdi::cancelar::CancelarBody;
use crate::routes::cfdi::{parse_body, replayed};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::cancelacion::OPERACION;
use timbra_services::cfdi::cancelar::{self, CancelacionOut};
use timbra_services::context::AppContext;
use timbra_services::idempotency;

/// Cancels a retention (CONTADOR or higher; `cfdi:cancelar`).
#[utoipa::path(post, path = "/retenciones/{id}/cancelar", tag = "retenciones", request_body = CancelarBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header),
        ("Idempotency-Key" = Option<String>, Header, description = "replays the first answer for the same body")),
    responses(
        (status = 200, description = "Cancelled (cancellationStatus SIN_ACEPTACION: retentions need no acceptance)", body = Envelope<CancelacionOut>),
        (status = 400, description = "CANCEL_001 invalid motivo or folioSustitucion; CANCEL_003 already cancelled; CANCEL_004 motivo 01 without folioSustitucion; CFDI_002/CFDI_003 CSD missing or expired (live); REQUEST_001", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND no such retention in this company", body = ErrorBody),
        (status = 409, description = "IDEMPOTENCY_001", body = ErrorBody),
        (status = 502, description = "PAC_001 the PAC or SAT refused (details.pacCode, e.g. 1205 unknown UUID); PAC_002 no usable answer", body = ErrorBody),
    ))]
pub async fn cancelar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> HttpResult<Response> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiCancelar).await?;
    let clave = idempotency::from_headers(&headers, &body)?;
    if let Some(replayed) =
        replayed(&app, &empresa_id, clave.as_ref(), idempotency::Uso::sobre(OPERACION, &CfdiId::from(&id))).await?
    {
        return Ok(replayed);
    }
    // A retention of this company, whatever the body says (an invoice's id is not one).
    super::de_la_empresa(&app, &empresa_id, &id).await?;
    let fila = cancelar::buscar(&app, &empresa_id, &id, false).await?;
    let body: CancelarBody = parse_body(&body)?;
    let answer = cancelar::cancelar(
        &app,
        &empresa_id,
        &id,
        &fila,
        &body.motivo,
        body.folio_sustitucion.as_deref(),
        clave.as_ref(),
        access.mode(),
    )
    .await?;
    Ok(crate::error::answer(answer))
}
