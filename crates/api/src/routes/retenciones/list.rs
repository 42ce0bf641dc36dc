//! `GET /api/retenciones`: the company's retentions, filtered and paged: those it issued
//! (`tipo=EMITIDA`, the default) or those issued to it and downloaded from SAT (`RECIBIDA`).

use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Query, ok, rows_before};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::cfdi::MAX_LIMIT;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::credenciales::rfc3339;
use timbra_services::cfdi::{hora_local, links};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_store::retenciones::{self, Filtro, RetencionRow};

/// Listing parameters.
#[derive(Deserialize, IntoParams, Default)]
#[serde(rename_all = "camelCase")]
pub struct ListRetencionesParams {
    /// Page from 1 (default 1).
    page: Option<i64>,
    /// Items per page, 1 to 1,000 (default 50).
    limit: Option<i64>,
    /// `Periodo/@Ejercicio` (e.g. 2026).
    ejercicio: Option<i64>,
    /// A month (1 to 12) within the period `MesIni`..`MesFin`.
    mes: Option<i64>,
    /// The receiver's RFC (or its start) or part of its name.
    receptor: Option<String>,
    /// The issuer's RFC (or its start) or part of its name (useful with `tipo=RECIBIDA`).
    emisor: Option<String>,
    /// TIMBRADO (also matches TIMBRADO_SANDBOX), TIMBRADO_SANDBOX or CANCELADO.
    status: Option<String>,
    /// EMITIDA (the retentions this company issued; the default) or RECIBIDA (those issued
    /// to it, downloaded from SAT: `POST /api/cfdi/sync-recibidos` with `tipo: "retenciones"`,
    /// or `POST /api/cfdi/descargar-por-uuid`).
    tipo: Option<String>,
}

/// One retention.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RetencionOut {
    id: String,
    uuid: String,
    tipo: String,
    status: String,
    /// `FechaExp` (issuer's offset).
    fecha_exp: String,
    fecha_timbrado: Option<String>,
    folio_int: Option<String>,
    cve_retenc: String,
    nacionalidad: String,
    receptor_rfc: Option<String>,
    receptor_nombre: String,
    /// `RfcE`: the issuer (this company for an EMITIDA).
    emisor_rfc: String,
    /// `NomDenRazSocE`.
    emisor_nombre: String,
    /// `{mesIni, mesFin, ejercicio}` as SAT's codes.
    #[schema(value_type = Object)]
    periodo: serde_json::Value,
    /// Exact decimal text.
    monto_tot_operacion: String,
    /// Exact decimal text.
    monto_tot_ret: String,
    /// Signed link (1 hour).
    xml_download_url: Option<String>,
    /// Signed link to the PDF (1 hour; rendered on its first download).
    pdf_download_url: Option<String>,
    download_expires_in: i64,
    /// The document's data under the body's names (detail only).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub(super) detalle: Option<serde_json::Value>,
}

/// A page of retentions.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RetencionPage {
    retenciones: Vec<RetencionOut>,
    total: i64,
    page: i64,
    limit: i64,
    total_pages: i64,
    has_more: bool,
}

pub(super) fn retencion_out(row: RetencionRow, secret: &[u8; 32], now: i64) -> RetencionOut {
    RetencionOut {
        xml_download_url: row.xml_url.as_deref().map(|path| links::url(secret, path, now)),
        pdf_download_url: row.xml_url.as_deref().map(|path| links::url(secret, &links::ruta_pdf(path), now)),
        download_expires_in: links::LINK_SECONDS,
        periodo: serde_json::json!({
            "mesIni": format!("{:02}", row.mes_ini), "mesFin": format!("{:02}", row.mes_fin),
            "ejercicio": row.ejercicio.to_string(),
        }),
        id: row.id,
        uuid: row.uuid,
        tipo: row.tipo,
        status: row.status,
        fecha_exp: rfc3339(hora_local(row.fecha)),
        fecha_timbrado: row.fecha_timbrado.map(|at| rfc3339(hora_local(at))),
        folio_int: row.folio_int,
        cve_retenc: row.cve_retenc,
        nacionalidad: row.nacionalidad,
        receptor_rfc: row.receptor_rfc,
        receptor_nombre: row.receptor_nombre,
        emisor_rfc: row.emisor_rfc,
        emisor_nombre: row.emisor_nombre,
        monto_tot_operacion: row.monto_tot_operacion.0.to_string(),
        monto_tot_ret: row.monto_tot_ret.0.to_string(),
        detalle: None,
    }
}

/// Lists the company's retentions, most recent first (CONSULTA or higher).
// The operation id stays the published one.
#[utoipa::path(get, path = "/retenciones", tag = "retenciones", operation_id = "listar", params(ListRetencionesParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "A page", body = Envelope<RetencionPage>),
        (status = 400, description = "REQUEST_001 a filter is out of range", body = ErrorBody),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn list(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<ListRetencionesParams>,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let page = params.page.unwrap_or(1);
    let limit = params.limit.unwrap_or(50);
    let invalido = |_campo: &str, mensaje: &str| ApiError::new(Code::Request001, mensaje.to_owned());
    if page < 1 {
        return Err(invalido("page", "page starts at 1").into());
    }
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(invalido("limit", "limit must be 1 to 1000").into());
    }
    if params.mes.is_some_and(|mes| !(1..=12).contains(&mes)) {
        return Err(invalido("mes", "mes must be 1 to 12").into());
    }
    let tipo = match params.tipo.as_deref() {
        None | Some("EMITIDA") => "EMITIDA",
        Some("RECIBIDA") => "RECIBIDA",
        Some(_) => return Err(invalido("tipo", "tipo must be EMITIDA (the default) or RECIBIDA").into()),
    };
    let status = match params.status.as_deref() {
        None => None,
        Some(s @ ("TIMBRADO" | "TIMBRADO_SANDBOX" | "CANCELADO")) => Some(s.to_owned()),
        Some(_) => return Err(invalido("status", "status must be TIMBRADO, TIMBRADO_SANDBOX or CANCELADO").into()),
    };
    let filtro = Filtro {
        ejercicio: params.ejercicio,
        mes: params.mes,
        receptor: params.receptor,
        status,
        tipo: Some(tipo.to_owned()),
        emisor: params.emisor,
    };
    let (rows, total) = {
        let mut conn = app.db.conn().await?;
        retenciones::listar(&mut conn, &empresa_id, &filtro, limit, rows_before(page, limit)?).await?
    };
    let secret = app.cfdi.link_secret()?;
    let now = app.clock.now().unix_timestamp();
    let retenciones: Vec<RetencionOut> = rows.into_iter().map(|row| retencion_out(row, &secret, now)).collect();
    let total_pages = (total + limit - 1) / limit;
    Ok(ok(RetencionPage { retenciones, total, page, limit, total_pages, has_more: page < total_pages })
        .with_mode(access.mode()))
}
