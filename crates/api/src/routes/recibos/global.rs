//! `POST /api/cfdi/global`: the global invoice to "PUBLICO EN GENERAL" of the company's ABIERTO
//! tickets of a period, stamped through the pipeline like any invoice; its tickets become
//! GLOBAL in the stamp's own transaction.

use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::cfdi::admit;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::factura::Solicitante;
use timbra_services::cfdi::recibos::{GlobalBody, OPERACION_GLOBAL};
use timbra_services::cfdi::recibos_consulta;
use timbra_services::idempotency;

/// The answer of a stamped global invoice.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GlobalOut {
    cfdi_id: String,
    /// `SANDBOX-` + the TFD's UUID in sandbox; the bare UUID in live.
    uuid: String,
    /// Exact decimal text (MXN).
    total: String,
    /// How many tickets it holds (now GLOBAL).
    recibos: i64,
    fecha_timbrado: String,
    xml_url: String,
    serie: String,
    folio: String,
}

/// Stamps the global invoice of the ABIERTO tickets of a period (FACTURADOR or higher): type I
/// to XAXX010101000 "PUBLICO EN GENERAL" (régimen 616, uso S01, DomicilioFiscalReceptor the
/// LugarExpedicion) with `InformacionGlobal`, one concept per ticket (01010101, ACT, "Venta",
/// Cantidad 1, NoIdentificacion its folio, its amounts and taxes). Body `{ periodicidad, meses,
/// año (or ano), desde?, hasta? }`; the range is the months of `meses` unless `desde`/`hasta`
/// (days, the issuer's local time) narrow it.
#[utoipa::path(post, path = "/cfdi/global", tag = "recibos", request_body = GlobalBody,
    params(("x-empresa-id" = String, Header, description = "company"),
        ("Idempotency-Key" = Option<String>, Header, description = "replays the first answer for the same body")),
    responses(
        (status = 201, description = "Stamped; its tickets are GLOBAL", body = Envelope<GlobalOut>),
        (status = 400, description = "RECIBO_001 periodicidad/meses/año/desde/hasta (details.fields) or an Anexo 20 rule (details.problemas); RECIBO_002 no ABIERTO ticket in the range; CFDI_002 no CSD (live)", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 409, description = "RECIBO_003 another request took some of its tickets meanwhile (nothing stamped); IDEMPOTENCY_001", body = ErrorBody),
        (status = 501, description = "LIVE_001 no PAC configured (TIMBRA_PAC_URL)", body = ErrorBody),
    ))]
pub async fn timbrar(scope: EmpresaScope, headers: HeaderMap, body: Bytes) -> HttpResult<Response> {
    let EmpresaScope { app, caller, empresa_id } = &scope;
    let access = scope.authorize(Permission::CfdiTimbrar).await?;
    let clave = idempotency::from_headers(&headers, &body)?;
    let cuerpo: GlobalBody = match admit(app, empresa_id, clave.as_ref(), OPERACION_GLOBAL, &body).await? {
        Ok(cuerpo) => cuerpo,
        Err(replayed) => return Ok(crate::error::answer(replayed)),
    };
    let solicitante = Solicitante { user_id: &caller.user_id, mode: access.mode(), clave: clave.as_ref() };
    let answer = recibos_consulta::timbrar_global(app, empresa_id, solicitante, &cuerpo, &body).await?;
    Ok(crate::error::answer(answer))
}
