//! `POST /api/cfdi/timbrar`: parses, authorizes and hands the invoice to
//! `timbra_services::cfdi::factura::timbrar` (built for its company, then the stamping pipeline).

use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::response::Response;
use timbra_store::ids::EmpresaId;

use super::admit;
use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Caller;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::factura::{self, OPERACION};
use timbra_services::cfdi::pipeline::TimbradoOut;
use timbra_services::cfdi::timbrado::TimbrarBody;
use timbra_services::context::AppContext;
use timbra_services::idempotency;

/// Stamps an invoice (FACTURADOR or higher).
#[utoipa::path(post, path = "/cfdi/timbrar", tag = "cfdi", request_body = TimbrarBody,
    params(("x-empresa-id" = String, Header, description = "company"),
        ("Idempotency-Key" = Option<String>, Header, description = "replays the first answer for the same body")),
    responses(
        (status = 201, description = "Stamped (sandbox: TIMBRADO_SANDBOX, uuid SANDBOX-...)", body = Envelope<TimbradoOut>),
        (status = 400, description = "CFDI_001 every problem in `details.fields` ({field, message}) and `details.problemas` ({regla, campo, mensaje}; complement fields by JSON path, e.g. complementos.cartaPorte.ubicaciones[1].domicilio.estado); CFDI_002 no CSD (live); CFDI_003 CSD expired; \
            REQUEST_001 malformed JSON or wrong types; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "CFDI_004 unknown clienteId", body = ErrorBody),
        (status = 409, description = "IDEMPOTENCY_001 key reused with another body; IDEMPOTENCY_002 (live) the same key is still waiting for the PAC", body = ErrorBody),
        (status = 413, description = "REQUEST_002 body too large", body = ErrorBody),
        (status = 402, description = "QUOTA_001 no stamps left (live)", body = ErrorBody),
        (status = 501, description = "LIVE_001 no PAC configured on this installation (TIMBRA_PAC_URL)", body = ErrorBody),
        (status = 502, description = "PAC_001 the PAC refused the invoice (details.pacCode, intentoId, serie, folio; the folio is a refused attempt); \
            PAC_002 outcome unknown, being reconciled: send the same request again (details.intentoId, serie, folio)", body = ErrorBody),
    ))]
pub async fn timbrar(scope: EmpresaScope, headers: HeaderMap, body: Bytes) -> HttpResult<Response> {
    let clave = idempotency::from_headers(&headers, &body)?;
    Ok(crate::error::answer(timbrar_factura(&scope.app, &scope.caller, &scope.empresa_id, clave, &body).await?))
}

/// The stamp of an invoice, as `POST /api/cfdi/timbrar` and the MCP tool `timbrar_factura` do
/// it: authorizes, replays an Idempotency-Key's first answer, checks the body, stamps through
/// the pipeline, then writes the notes and queues the e-mail.
pub(crate) async fn timbrar_factura(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
    clave: Option<idempotency::Key>,
    bytes: &[u8],
) -> HttpResult<idempotency::Answer> {
    let access = caller.authorize(app, empresa_id, Permission::CfdiTimbrar).await?;
    let body: TimbrarBody = match admit(app, empresa_id, clave.as_ref(), OPERACION, bytes).await? {
        Ok(body) => body,
        Err(replayed) => return Ok(replayed),
    };
    let solicitante = factura::Solicitante { user_id: &caller.user_id, mode: access.mode(), clave: clave.as_ref() };
    Ok(factura::timbrar(app, empresa_id, solicitante, body, bytes).await?)
}
