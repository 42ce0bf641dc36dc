//! `GET /api/cfdi`: the company's invoices, filtered, searched and paged.

use axum::extract::State;
use axum::response::IntoResponse;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use timbra_store::ids::EmpresaId;
use utoipa::{IntoParams, ToSchema};

use super::MAX_LIMIT;
use crate::envelope::{Query, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Caller;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::consulta;
use timbra_services::cfdi::credenciales::rfc3339;
use timbra_services::cfdi::{hora_local, links};
use timbra_services::context::AppContext;
use timbra_store::cfdis::CfdiRow;

/// Listing parameters.
#[derive(Deserialize, IntoParams, Default)]
#[serde(rename_all = "camelCase")]
pub struct ListCfdiParams {
    /// Page from 1 (default 1).
    page: Option<i64>,
    /// Items per page, 1 to 1,000 (default 50).
    limit: Option<i64>,
    /// EMITIDA or RECIBIDA, or a voucher type I, E, T, P, N. Payroll receipts (N) are listed only
    /// to callers with nomina:view.
    tipo: Option<String>,
    /// TIMBRADO (also matches TIMBRADO_SANDBOX), TIMBRADO_SANDBOX or CANCELADO.
    status: Option<String>,
    /// From this date (`AAAA-MM-DD`, issuer's local day) or instant (RFC 3339), inclusive.
    desde: Option<String>,
    /// Up to this date (whole local day) or instant, inclusive.
    hasta: Option<String>,
    /// UUID (bare or SANDBOX-, prefix), folio (exact), RFC (prefix), or words that each start a word
    /// of the issuer's or receiver's name.
    search: Option<String>,
    /// Adds xmlDownloadUrl, pdfDownloadUrl and downloadExpiresIn (signed links, 1 hour).
    include_download_urls: Option<bool>,
    /// `true`: PPD invoices (not cancelled) with a balance still owed; `false`: PPD invoices
    /// settled.
    saldo_pendiente: Option<bool>,
    /// Only invoices carrying this complement: `cartaPorte` (Carta Porte 3.1) or
    /// `comercioExterior` (Comercio Exterior 2.0); issued and received alike.
    complemento: Option<String>,
}

/// One invoice.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CfdiOut {
    id: String,
    uuid: String,
    tipo: String,
    origen: String,
    tipo_comprobante: String,
    serie: Option<String>,
    folio: Option<String>,
    /// ISO 8601 in the issuer's local time.
    fecha: String,
    fecha_timbrado: Option<String>,
    #[schema(value_type = String)]
    subtotal: Decimal,
    #[schema(value_type = Option<String>)]
    descuento: Option<Decimal>,
    /// Decimal string.
    total: String,
    moneda: String,
    #[schema(value_type = Option<String>)]
    tipo_cambio: Option<Decimal>,
    forma_pago: Option<String>,
    metodo_pago: Option<String>,
    status: String,
    emisor_rfc: String,
    emisor_nombre: String,
    emisor_regimen: String,
    receptor_rfc: String,
    receptor_nombre: String,
    receptor_uso_cfdi: String,
    /// Storage path of the XML; null when only SAT's metadata is stored (fetch it with
    /// `POST /api/cfdi/descargar-por-uuid`).
    xml_url: Option<String>,
    /// The cancellation process, separate from `status`: null (none), SIN_ACEPTACION, PENDIENTE
    /// (waiting for the receiver; status stays TIMBRADO), ACEPTADA, PLAZO_VENCIDO (the receiver did
    /// not answer in time; SAT cancelled), RECHAZADA.
    cancellation_status: Option<String>,
    /// COMPLETE (the XML is stored), METADATA_ONLY (only SAT's metadata; background retries
    /// are scheduled), PERMANENT_METADATA_ONLY (8 retries over about 5 days brought no XML).
    xml_download_status: String,
    /// Background download retries made (at most 8).
    xml_retry_count: i64,
    /// When the next background retry runs; null when COMPLETE or permanent.
    xml_next_retry_at: Option<String>,
    /// SAT's `Estado` as last read (`GET /api/cfdi/{id}/estado-sat`, or the watch of received
    /// invoices): `Vigente`, `Cancelado`, `No Encontrado`; null until asked.
    estado_sat: Option<String>,
    /// When SAT's status was last read; null until asked.
    estado_sat_consultado_en: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    xml_download_url: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pdf_download_url: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    download_expires_in: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    pub(super) conceptos: Option<serde_json::Value>,
    /// Detail only: the complements it carries, with the names of the stamping body
    /// (`cartaPorte`, `comercioExterior`), members in SAT's order; absent when it carries neither.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub(super) complementos: Option<Box<serde_json::value::RawValue>>,
    /// Detail only: the payments side (PPD invoices and payment CFDI).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(super) cobranza: Option<timbra_services::cfdi::pagos::Cobranza>,
}

/// A page of invoices.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CfdiPage {
    cfdis: Vec<CfdiOut>,
    total: i64,
    page: i64,
    limit: i64,
    total_pages: i64,
    has_more: bool,
}

/// The API's view of a stored invoice, with signed links when `links` (secret, now) is given.
pub(super) fn cfdi_out(row: CfdiRow, links: Option<([u8; 32], i64)>) -> CfdiOut {
    {
        let xml_download_url =
            links.map(|(secret, now)| row.xml_url.as_deref().map(|path| links::url(&secret, path, now)));
        CfdiOut {
            xml_download_status: row
                .xml_download_status
                .clone()
                .unwrap_or_else(|| if row.xml_url.is_some() { "COMPLETE" } else { "METADATA_ONLY" }.to_owned()),
            xml_retry_count: row.xml_retry_count,
            xml_next_retry_at: row.xml_next_retry_at.map(rfc3339),
            estado_sat: row.estado_sat.clone(),
            estado_sat_consultado_en: row.estado_sat_consultado_en.map(rfc3339),
            download_expires_in: links.map(|_| links::LINK_SECONDS),
            // The PDF is rendered on its first download (never on the stamping path), so the link
            // exists whenever the XML does.
            pdf_download_url: links.map(|(secret, now)| {
                row.xml_url.as_deref().map(|path| links::url(&secret, &links::ruta_pdf(path), now))
            }),
            xml_download_url,
            id: row.id,
            uuid: row.uuid,
            tipo: row.tipo,
            origen: row.origen,
            tipo_comprobante: row.tipo_comprobante,
            serie: row.serie,
            folio: row.folio,
            fecha: rfc3339(hora_local(row.fecha)),
            fecha_timbrado: row.fecha_timbrado.map(|at| rfc3339(hora_local(at))),
            subtotal: row.subtotal.0,
            descuento: row.descuento.map(|m| m.0),
            total: row.total.0.to_string(),
            moneda: row.moneda,
            tipo_cambio: row.tipo_cambio.map(|m| m.0),
            forma_pago: row.forma_pago,
            metodo_pago: row.metodo_pago,
            status: row.status,
            emisor_rfc: row.emisor_rfc,
            emisor_nombre: row.emisor_nombre,
            emisor_regimen: row.emisor_regimen,
            receptor_rfc: row.receptor_rfc,
            receptor_nombre: row.receptor_nombre,
            receptor_uso_cfdi: row.receptor_uso_cfdi,
            xml_url: row.xml_url,
            cancellation_status: row.estado_cancelacion,
            conceptos: None,
            complementos: None,
            cobranza: None,
        }
    }
}

/// Lists the company's invoices, most recent first.
#[utoipa::path(get, path = "/cfdi", tag = "cfdi", params(ListCfdiParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<CfdiPage>),
        (status = 400, description = "REQUEST_001 bad page, limit, tipo, status or dates; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn list(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<ListCfdiParams>,
) -> HttpResult<impl IntoResponse> {
    Ok(ok(page(&app, &caller, &empresa_id, params).await?))
}

/// One page of the company's invoices, as `GET /api/cfdi` and the MCP tool `listar_cfdi` read it.
pub(crate) async fn page(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
    params: ListCfdiParams,
) -> HttpResult<CfdiPage> {
    let access = caller.authorize(app, empresa_id, Permission::CfdiView).await?;
    let page = params.page.unwrap_or(1);
    let limit = params.limit.unwrap_or(50);
    let offset = consulta::saltar(page, limit, MAX_LIMIT)?;
    let consulta = consulta::Consulta {
        tipo: params.tipo,
        status: params.status,
        desde: params.desde,
        hasta: params.hasta,
        search: params.search,
        saldo_pendiente: params.saldo_pendiente,
        complemento: params.complemento,
    };
    let filtro = consulta::filtro(&consulta, consulta::ve_nomina(caller, &access))?;
    let (rows, total) = consulta::listar(app, empresa_id, &filtro, limit, offset).await?;
    let links = if params.include_download_urls == Some(true) {
        Some((app.cfdi.link_secret()?, app.clock.now().unix_timestamp()))
    } else {
        None
    };
    let cfdis: Vec<CfdiOut> = rows.into_iter().map(|row| cfdi_out(row, links)).collect();
    let total_pages = if total == 0 { 0 } else { (total + limit - 1) / limit };
    Ok(CfdiPage { cfdis, total, page, limit, total_pages, has_more: page < total_pages })
}
