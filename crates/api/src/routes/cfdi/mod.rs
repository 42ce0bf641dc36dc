//! Invoices, one file per operation: stamping (`timbrar`), payments (`pagos`), listing
//! (`listar`), detail (`obtener`), the files of an invoice: XML, PDF, acuse and signed links
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
pub mod listar;
pub mod obtener;
pub mod pagos;
pub mod por_uuid;
pub mod recibidos;
pub mod timbrar;
pub mod validar;
pub mod zip;

use axum::response::Response;

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
    empresa_id: &str,
    clave: Option<&Key>,
    uso: Uso<'_>,
) -> HttpResult<Option<Response>> {
    Ok(previa(app, empresa_id, clave, uso).await?.map(crate::error::answer))
}

/// [`replayed`] as the services' [`idempotency::Answer`], for the operations the routes share
/// with the MCP tools.
pub(crate) async fn previa(
    app: &AppContext,
    empresa_id: &str,
    clave: Option<&Key>,
    uso: Uso<'_>,
) -> HttpResult<Option<idempotency::Answer>> {
    let Some(clave) = clave else { return Ok(None) };
    let mut conn = app.db.conn().await?;
    Ok(idempotency::replay(&mut conn, empresa_id, clave, uso, app.clock.now()).await?)
}

/// After a stamp's first `201` (not a replay): writes the body's `notas` (printed on its PDF).
/// The stamp is committed already: whatever happens here does not change its answer. (Its
/// e-mail was queued in the stamp's own transaction: `correo::efectos_al_timbrar`.)
pub(crate) async fn despues_de_timbrar(
    app: &AppContext,
    empresa_id: &str,
    answer: &timbra_services::idempotency::Answer,
    notas: Option<&str>,
) {
    if answer.replayed || answer.status != axum::http::StatusCode::CREATED {
        return;
    }
    let Some(notas) = notas.map(str::trim).filter(|notas| !notas.is_empty()) else { return };
    let Ok(body) = serde_json::from_str::<serde_json::Value>(&answer.body) else { return };
    let Some(cfdi_id) = body["data"]["cfdiId"].as_str() else { return };
    if let Err(error) = timbra_services::marca::guardar_notas(app, empresa_id, cfdi_id, notas).await {
        tracing::warn!(cfdi.id = cfdi_id, error.message = %error.message, "the stamp's notas were not written");
    }
}

/// Whether the caller may read the company's payroll receipts (type N CFDI) through the
/// invoice routes: `nomina:view` (CONTADOR or higher, or a key with that scope). They hold
/// employees' CURP, NSS, salary and bank account (issue 28, finding 2).
/// `access` is what [`Caller::authorize`](timbra_services::auth::caller::Caller::authorize) found for
/// the route's own permission.
pub(crate) fn ve_nomina(
    caller: &timbra_services::auth::caller::Caller,
    access: &timbra_services::auth::caller::EmpresaAccess,
) -> bool {
    caller.allows(access, timbra_services::auth::roles::Permission::NominaView)
}

/// The company's invoice `id`, or NOT_FOUND (also for ids of other companies, and for a
/// payroll receipt when `ve_nomina` is false: like another tenant's record, it is not there).
async fn cargar(
    app: &AppContext,
    empresa_id: &str,
    id: &str,
    ve_nomina: bool,
) -> HttpResult<(timbra_store::cfdis::CfdiRow, String)> {
    let mut conn = app.db.conn().await?;
    Ok(timbra_store::cfdis::leer(&mut conn, empresa_id, id)
        .await?
        .filter(|(row, _)| ve_nomina || row.tipo_comprobante != "N")
        .ok_or_else(|| ApiError::not_found("invoice"))?)
}
