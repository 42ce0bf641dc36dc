//! `GET /api/cfdi/intentos`: the live stamping attempts (every folio sent to the PAC, with what
//! became of it), and `GET /api/cfdi/intentos/folios`: every number of a serie's range
//! explained, as an invoice or as a recorded attempt. SQL in `db::intentos`.

use std::collections::HashMap;

use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::envelope::{Page, Query, ok, parse_paging};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_store::intentos::{self, Filtro, IntentoRow};

/// Most numbers one explanation covers.
pub const MAX_FOLIOS: i64 = 1000;

/// Listing parameters.
#[derive(Deserialize, IntoParams, Default)]
#[serde(rename_all = "camelCase")]
pub struct IntentosParams {
    /// Only this serie.
    serie: Option<String>,
    /// Folios from this number, inclusive.
    desde: Option<i64>,
    /// Folios up to this number, inclusive.
    hasta: Option<i64>,
    /// Only this status: ENVIADO, TIMBRADO, RECHAZADO or SIN_RESPUESTA.
    status: Option<String>,
    /// Page from 1 (default 1).
    page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    page_size: Option<i64>,
}

/// One live stamping attempt: a folio sent to the PAC.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntentoOut {
    /// The attempt's id; the invoice's id when it was stamped.
    id: String,
    serie: String,
    folio: i64,
    /// TIMBRADO (the folio is an invoice), RECHAZADO (the PAC or SAT refused: no stamp spent),
    /// SIN_RESPUESTA (no usable answer: the PAC may have stamped; see the guide), ENVIADO (the
    /// request is under way).
    status: String,
    /// The PAC's or SAT's code of a refusal (e.g. 300, 302, 401).
    pac_code: Option<String>,
    /// What the PAC said, or what went wrong.
    pac_message: Option<String>,
    /// The invoice the attempt became.
    cfdi_id: Option<String>,
    /// Its UUID, when stamped.
    uuid: Option<String>,
    /// When the folio was sent to the PAC.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    /// When its outcome was recorded.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<IntentoRow> for IntentoOut {
    fn from(row: IntentoRow) -> Self {
        IntentoOut {
            id: row.id,
            serie: row.serie,
            folio: row.folio,
            status: row.status,
            pac_code: row.pac_code,
            pac_message: row.error.as_deref().map(sin_respuesta_cruda),
            cfdi_id: row.cfdi_id.map(String::from),
            uuid: row.uuid,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

/// A recorded error without any part of the PAC's raw answer: older rows (and transport
/// errors) may end with an excerpt of the answer's body (`HTTP 502 … en stamp: <html>…`).
fn sin_respuesta_cruda(error: &str) -> String {
    let antes = error.split('<').next().unwrap_or_default();
    antes.trim_end_matches([' ', ':']).to_owned()
}

fn serie_de(serie: Option<String>) -> Option<String> {
    serie.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

fn rango(desde: Option<i64>, hasta: Option<i64>) -> HttpResult<()> {
    if let (Some(desde), Some(hasta)) = (desde, hasta)
        && desde > hasta
    {
        return Err(ApiError::new(
            Code::Request001,
            format!("desde ({desde}) must not be greater than hasta ({hasta})"),
        )
        .with_details(serde_json::json!({ "field": "desde" }))
        .into());
    }
    Ok(())
}

/// Lists the company's live stamping attempts by serie and folio (CONTADOR or higher; scope
/// `cfdi:view`). Every folio that did not become an invoice is here with the PAC's answer.
#[utoipa::path(get, path = "/cfdi/intentos", tag = "cfdi", params(IntentosParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page of attempts", body = Envelope<Page<IntentoOut>>),
        (status = 400, description = "REQUEST_001 bad paging or desde greater than hasta", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / SCOPE_002 / AUTH_003 (below CONTADOR)", body = ErrorBody),
    ))]
pub async fn intentos(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<IntentosParams>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiIntentos).await?;
    let paging = parse_paging(params.page, params.page_size, 100)?;
    rango(params.desde, params.hasta)?;
    let filtro = Filtro {
        serie: serie_de(params.serie),
        desde: params.desde,
        hasta: params.hasta,
        status: params.status.map(|s| s.trim().to_uppercase()).filter(|s| !s.is_empty()),
    };
    let mut conn = app.db.conn().await?;
    let (items, total) = intentos::pagina(&mut conn, &empresa_id, &filtro, &paging).await?;
    Ok(ok(Page::new(items.into_iter().map(IntentoOut::from).collect(), total, paging)))
}

/// Parameters of the folio explanation.
#[derive(Deserialize, IntoParams, Default)]
#[serde(rename_all = "camelCase")]
pub struct FoliosParams {
    /// The serie (required), as in the invoices (`A`; payments `P`, payroll `N`).
    serie: Option<String>,
    /// First number (default 1).
    desde: Option<i64>,
    /// Last number (default the last folio the serie used); at most 1,000 numbers at once.
    hasta: Option<i64>,
}

/// How one folio number was used.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FolioOut {
    folio: i64,
    /// CFDI (an invoice has it), INTENTO (a recorded attempt that did not become an invoice),
    /// SIN_USAR (after the last folio the serie used) or SIN_REGISTRO (used, but nothing explains
    /// it: must never happen; report it).
    tipo: String,
    /// The invoice's status (CFDI) or the attempt's (INTENTO: RECHAZADO, SIN_RESPUESTA, ENVIADO).
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    /// The invoice (CFDI).
    #[serde(skip_serializing_if = "Option::is_none")]
    cfdi_id: Option<String>,
    /// The invoice's UUID (CFDI).
    #[serde(skip_serializing_if = "Option::is_none")]
    uuid: Option<String>,
    /// The attempt (INTENTO).
    #[serde(skip_serializing_if = "Option::is_none")]
    intento_id: Option<String>,
    /// The PAC's or SAT's code of a refused attempt (INTENTO).
    #[serde(skip_serializing_if = "Option::is_none")]
    pac_code: Option<String>,
    /// What the PAC said, or what went wrong (INTENTO).
    #[serde(skip_serializing_if = "Option::is_none")]
    pac_message: Option<String>,
}

/// Every number of a serie's range, explained.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FoliosOut {
    serie: String,
    desde: i64,
    hasta: i64,
    /// The last folio the serie used in the company's mode (0 when none).
    ultimo_folio: i64,
    /// How many numbers are SIN_REGISTRO (0 unless something is wrong).
    sin_registro: i64,
    folios: Vec<FolioOut>,
}

/// Explains every folio of a serie from `desde` to `hasta` in the company's mode (CONTADOR or
/// higher; scope `cfdi:view`): each number is an invoice or a recorded attempt.
#[utoipa::path(get, path = "/cfdi/intentos/folios", tag = "cfdi", params(FoliosParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One entry per number", body = Envelope<FoliosOut>),
        (status = 400, description = "REQUEST_001 no serie, desde below 1, desde greater than hasta, or more than 1,000 numbers", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / SCOPE_002 / AUTH_003 (below CONTADOR)", body = ErrorBody),
    ))]
pub async fn folios(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<FoliosParams>,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiIntentos).await?;
    let serie = serie_de(params.serie).ok_or_else(|| {
        ApiError::new(Code::Request001, "serie is required: the serie whose folios to explain (e.g. serie=A)")
            .with_details(serde_json::json!({ "field": "serie" }))
    })?;
    let desde = params.desde.unwrap_or(1);
    if desde < 1 {
        return Err(ApiError::new(Code::Request001, "desde must be 1 or more: folios start at 1")
            .with_details(serde_json::json!({ "field": "desde" }))
            .into());
    }
    let mut conn = app.db.conn().await?;
    let ultimo_folio = timbra_store::folios::ultimo(&mut conn, &empresa_id, access.sandbox, &serie).await?;
    let hasta = params.hasta.unwrap_or(ultimo_folio.max(desde));
    rango(Some(desde), Some(hasta))?;
    if hasta - desde + 1 > MAX_FOLIOS {
        return Err(ApiError::new(
            Code::Request001,
            format!("at most {MAX_FOLIOS} folios at once; ask for desde..hasta in parts"),
        )
        .with_details(serde_json::json!({ "field": "hasta" }))
        .into());
    }
    let (cfdis, intentos) = intentos::usos(&mut conn, &empresa_id, access.sandbox, &serie, desde, hasta).await?;
    let mut por_cfdi: HashMap<i64, _> = cfdis.into_iter().map(|c| (c.folio, c)).collect();
    let mut por_intento: HashMap<i64, _> = intentos.into_iter().map(|i| (i.folio, i)).collect();
    let folios: Vec<FolioOut> = (desde..=hasta)
        .map(|folio| {
            let vacio = FolioOut {
                folio,
                tipo: "SIN_REGISTRO".to_owned(),
                status: None,
                cfdi_id: None,
                uuid: None,
                intento_id: None,
                pac_code: None,
                pac_message: None,
            };
            if let Some(cfdi) = por_cfdi.remove(&folio) {
                FolioOut {
                    tipo: "CFDI".to_owned(),
                    status: Some(cfdi.status),
                    cfdi_id: Some(cfdi.id),
                    uuid: Some(cfdi.uuid),
                    ..vacio
                }
            } else if let Some(intento) = por_intento.remove(&folio) {
                FolioOut {
                    tipo: "INTENTO".to_owned(),
                    status: Some(intento.status),
                    intento_id: Some(intento.id),
                    pac_code: intento.pac_code,
                    pac_message: intento.error.as_deref().map(sin_respuesta_cruda),
                    ..vacio
                }
            } else if folio > ultimo_folio {
                FolioOut { tipo: "SIN_USAR".to_owned(), ..vacio }
            } else {
                vacio
            }
        })
        .collect();
    let sin_registro = folios.iter().filter(|f| f.tipo == "SIN_REGISTRO").count();
    if sin_registro > 0 {
        tracing::error!(empresa.id = %empresa_id, cfdi.serie = %serie, desde, hasta, sin_registro,
            "folios used by neither an invoice nor a recorded attempt");
    }
    let sin_registro = i64::try_from(sin_registro).unwrap_or(i64::MAX);
    Ok(ok(FoliosOut { serie, desde, hasta, ultimo_folio, sin_registro, folios }).with_mode(access.mode()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_errors_lose_the_pacs_raw_answer() {
        assert_eq!(
            sin_respuesta_cruda("HTTP 502 Bad Gateway en stamp: <html><body>502"),
            "HTTP 502 Bad Gateway en stamp"
        );
        assert_eq!(
            sin_respuesta_cruda("el PAC rechazó la solicitud (300): Usuario"),
            "el PAC rechazó la solicitud (300): Usuario"
        );
    }
}
