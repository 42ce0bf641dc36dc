//! `POST /api/retenciones/timbrar`: parses, authorizes and hands the retention to the stamping
//! pipeline, as `POST /api/cfdi/timbrar` does with an invoice.

use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;
use sha2::Digest;
use utoipa::ToSchema;

use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::cfdi::admit;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::retenciones::{self, OPERACION};
use timbra_services::idempotency;

/// The answer of a stamped retention.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RetencionTimbradaOut {
    retencion_id: String,
    /// `SANDBOX-` + the TFD's UUID in sandbox; the bare UUID in live.
    uuid: String,
    /// ISO 8601 with the issuer's offset.
    fecha_timbrado: String,
    /// `FolioInt`: the serie and the folio with no separator (`R1`).
    folio_int: String,
    /// `Totales/@MontoTotRet`, exact decimal text.
    monto_tot_ret: String,
}

/// Stamps a CFDI de Retenciones e Información de Pagos 2.0 (FACTURADOR or higher). The body
/// uses SAT's names in camelCase (`cveRetenc`, `receptor`, `periodo`, `totales`,
/// `impRetenidos`, `complementos.plataformasTecnologicas`) plus an optional `serie` (default
/// `R`); the service fills the emisor, `FechaExp`, `LugarExpRetenc` and `FolioInt`.
#[utoipa::path(post, path = "/retenciones/timbrar", tag = "retenciones", request_body = Object,
    params(("x-empresa-id" = String, Header, description = "company"),
        ("Idempotency-Key" = Option<String>, Header, description = "replays the first answer for the same body")),
    responses(
        (status = 201, description = "Stamped (sandbox: uuid SANDBOX-...)", body = Envelope<RetencionTimbradaOut>),
        (status = 400, description = "RETENCION_001 every problem in details.problemas ({regla, campo, mensaje}); CFDI_002 no CSD (live); REQUEST_001 malformed JSON", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 409, description = "IDEMPOTENCY_001 key reused with another body", body = ErrorBody),
        (status = 402, description = "QUOTA_001 no stamps left (live)", body = ErrorBody),
        (status = 501, description = "LIVE_001 no PAC configured (TIMBRA_PAC_URL)", body = ErrorBody),
    ))]
pub async fn timbrar(scope: EmpresaScope, headers: HeaderMap, body: Bytes) -> HttpResult<Response> {
    let EmpresaScope { app, caller, empresa_id } = &scope;
    let access = scope.authorize(Permission::CfdiTimbrar).await?;
    let clave = idempotency::from_headers(&headers, &body)?;
    let json: serde_json::Value = match admit(app, empresa_id, clave.as_ref(), OPERACION, &body).await? {
        Ok(json) => json,
        Err(replayed) => return Ok(crate::error::answer(replayed)),
    };
    let request_hash = hex::encode(sha2::Sha256::digest(&body));
    let answer =
        retenciones::timbrar(app, empresa_id, &caller.user_id, access.mode(), clave.as_ref(), json, request_hash)
            .await?;
    Ok(crate::error::answer(answer))
}
