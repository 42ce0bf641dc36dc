//! `POST /api/cfdi/zip` and `GET /api/cfdi/zip/{jobId}`: a period's CFDI in one ZIP, built by a
//! durable job. The operation is `timbra_services::cfdi::exportacion`.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Path, accepted, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::exportacion::{self, Estado, Pedido};
use timbra_services::cfdi::links::LINK_SECONDS;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};

/// What goes into the ZIP.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ZipBody {
    /// The period's first day, `AAAA-MM-DD` (Zona Centro), or an ISO 8601 instant.
    desde: Option<String>,
    /// Its last day, included.
    hasta: Option<String>,
    /// `EMITIDA` or `RECIBIDA`; both when absent.
    tipo: Option<String>,
    /// `I`, `E`, `T`, `P` or `N`.
    tipo_comprobante: Option<String>,
    /// `TIMBRADO` (sandbox stamps too), `TIMBRADO_SANDBOX` or `CANCELADO`.
    status: Option<String>,
    /// Each CFDI's PDF beside its XML (default false).
    incluir_pdf: Option<bool>,
}

/// The export queued.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ZipPedido {
    /// Poll `GET /api/cfdi/zip/{jobId}`.
    job_id: String,
}

/// An export's state.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ZipOut {
    /// Its id.
    job_id: String,
    /// `PENDIENTE`, `EN_PROCESO`, `TERMINADO` or `FALLIDO` (see `error`).
    status: String,
    /// CFDI in `resumen.csv` (TERMINADO).
    cfdis: i64,
    /// Files in the ZIP, `resumen.csv` included (TERMINADO).
    archivos: i64,
    /// Size of the ZIP (TERMINADO).
    bytes: i64,
    /// Signed link to the ZIP (TERMINADO), valid `downloadExpiresIn` seconds; ask again for a fresh one.
    download_url: Option<String>,
    /// Seconds the link stays valid (3600) once TERMINADO.
    download_expires_in: Option<i64>,
    /// Why it failed (FALLIDO), or the last attempt's error while it is retried.
    error: Option<String>,
    /// When it was asked for.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl From<Estado> for ZipOut {
    fn from(estado: Estado) -> Self {
        let Estado { fila, download_url } = estado;
        Self {
            job_id: fila.id,
            status: fila.status,
            cfdis: fila.cfdis,
            archivos: fila.archivos,
            bytes: fila.bytes,
            download_expires_in: download_url.as_ref().map(|_| LINK_SECONDS),
            download_url,
            error: fila.error,
            created_at: fila.created_at,
        }
    }
}

/// Queues the ZIP of a period (CONTADOR or higher; `cfdi:descargar`): `EMITIDOS/<UUID>.xml`
/// and `RECIBIDOS/<UUID>.xml` (the stored bytes), `.pdf` beside each with `incluirPdf`, and
/// `resumen.csv` (one row per CFDI). Payroll receipts only for a caller with `nomina:view`.
#[utoipa::path(post, path = "/cfdi/zip", tag = "cfdi", request_body = ZipBody, params(("x-empresa-id" = String, Header)),
    responses(
        (status = 202, description = "Queued: poll the jobId", body = Envelope<ZipPedido>),
        (status = 400, description = "ZIP_001 the body, a date, the range, tipo, tipoComprobante or status (details.campo)", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn pedir(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    body: Bytes,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiDescargar).await?;
    let body: ZipBody = serde_json::from_slice(&body).map_err(|error| {
        ApiError::new(
            Code::Zip001,
            format!("send a JSON body {{ \"desde\": \"AAAA-MM-DD\", \"hasta\": \"AAAA-MM-DD\" }} ({error})"),
        )
        .with_details(serde_json::json!({ "campo": "body" }))
    })?;
    let pedido = Pedido {
        desde: body.desde,
        hasta: body.hasta,
        tipo: body.tipo,
        tipo_comprobante: body.tipo_comprobante,
        status: body.status,
        incluir_pdf: body.incluir_pdf.unwrap_or(false),
    };
    let periodo = exportacion::revisar(&pedido, !super::ve_nomina(&caller, &access))?;
    let job_id = exportacion::pedir(&app, &empresa_id, &periodo).await?;
    Ok(accepted(ZipPedido { job_id }))
}

/// An export's state, and once TERMINADO a signed link to its ZIP (1 hour). Another company's
/// export is NOT_FOUND.
#[utoipa::path(get, path = "/cfdi/zip/{jobId}", tag = "cfdi", params(("jobId" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The export", body = Envelope<ZipOut>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn estado(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(job_id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiDescargar).await?;
    let estado = exportacion::estado(&app, &empresa_id, &job_id).await?;
    Ok(ok(ZipOut::from(estado)))
}
