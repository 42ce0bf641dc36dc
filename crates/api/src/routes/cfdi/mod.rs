//! Invoices, one file per operation: stamping (`timbrar`), payments (`pagos`), listing
//! (`list`), detail (`obtener`), the files of an invoice: XML, PDF, acuse and signed links
//! (`archivos`), cancellation (`cancelar`), the live stamping attempts with the explanation of
//! every folio (`intentos`), and received invoices from SAT: month synchronization
//! (`recibidos`) and download by UUID (`por_uuid`); the dry run of a stamp (`validar`); e-mail
//! (`correo`) and a period's CFDI in one ZIP (`zip`). Their SQL lives in `timbra_store::cfdis`;
//! stamping itself in `cfdi::pipeline`.

pub mod archivos;
pub mod cancelar;
pub mod correo;
pub mod estado_sat;
pub mod intentos;
pub mod list;
pub mod obtener;
pub mod pagos;
pub mod por_uuid;
pub mod recibidos;
pub mod timbrar;
pub mod validar;
pub mod zip;

use axum::response::Response;
use timbra_store::ids::EmpresaId;

use crate::error::HttpResult;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_services::idempotency::{self, Key, Uso};

/// Most items a listing page may hold.
pub const MAX_LIMIT: i64 = 1000;

/// A JSON body, or REQUEST_001 saying what is wrong with it.
pub(crate) fn parse_body<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> HttpResult<T> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::new(Code::Request001, "send a JSON body (Content-Type: application/json)").into());
    }
    Ok(serde_json::from_slice(bytes).map_err(|error| {
        let what = if error.is_data() { "a field has the wrong type" } else { "the body is not valid JSON" };
        ApiError::new(Code::Request001, format!("{what}: {error}"))
    })?)
}

/// The answer a request with this Idempotency-Key already got for `uso`, looked up before the
/// body is read: its replay, IDEMPOTENCY_001 for another body or another use, or `None` for a
/// new key (or none).
pub(crate) async fn replayed(
    app: &AppContext,
    empresa_id: &EmpresaId,
    clave: Option<&Key>,
    uso: Uso<'_>,
) -> HttpResult<Option<Response>> {
    Ok(previa(app, empresa_id, clave, uso).await?.map(crate::error::answer))
}

/// [`replayed`] as the services' [`idempotency::Answer`], for the operations the routes share
/// with the MCP tools.
pub(crate) async fn previa(
    app: &AppContext,
    empresa_id: &EmpresaId,
    clave: Option<&Key>,
    uso: Uso<'_>,
) -> HttpResult<Option<idempotency::Answer>> {
    let Some(clave) = clave else { return Ok(None) };
    let mut conn = app.db.conn().await?;
    Ok(idempotency::replay(&mut conn, empresa_id, clave, uso, app.clock.now()).await?)
}

/// What every stamping route (and MCP tool) does between authorizing the caller and stamping:
/// an Idempotency-Key used before gets its first answer (`Err`, to send as it is), else the
/// body is read (`Ok`).
pub(crate) async fn admit<B: serde::de::DeserializeOwned>(
    app: &AppContext,
    empresa_id: &EmpresaId,
    clave: Option<&Key>,
    operacion: &str,
    bytes: &[u8],
) -> HttpResult<Result<B, idempotency::Answer>> {
    if let Some(replayed) = previa(app, empresa_id, clave, Uso::de(operacion)).await? {
        return Ok(Err(replayed));
    }
    Ok(Ok(parse_body(bytes)?))
}

pub(crate) use timbra_services::cfdi::factura::despues_de_timbrar;

pub(crate) use timbra_services::cfdi::consulta::ve_nomina;

/// The company's invoice `id` with its lines' JSON ([`timbra_services::cfdi::consulta::leer`]).
async fn cargar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    ve_nomina: bool,
) -> HttpResult<(timbra_store::cfdis::CfdiRow, String)> {
    Ok(timbra_services::cfdi::consulta::leer(app, empresa_id, id, ve_nomina).await?)
}
