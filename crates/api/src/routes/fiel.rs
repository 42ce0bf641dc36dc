//! FIEL upload and status: `POST /api/empresas/{empresaId}/fiel`, `GET /api/empresas/{empresaId}/fiel`.

use crate::extract::Auth;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::Serialize;
use timbra_store::ids::EmpresaId;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Json, Path, created, ok};
use crate::error::HttpResult;
use crate::openapi::{Envelope, ErrorBody};
use crate::routes::certificados::CsdBody;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::fiel;
use timbra_services::context::AppContext;

/// The stored FIEL (the key and password are never returned).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FielOut {
    no_certificado: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    vigencia_fin: OffsetDateTime,
    empresa_id: String,
}

/// Whether the company has a FIEL, and its public facts.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FielStatus {
    configured: bool,
    expired: bool,
    no_certificado: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    vigencia_fin: Option<OffsetDateTime>,
}

/// Uploads the company's FIEL (e.firma), used to download its invoices from SAT (ADMINISTRADOR
/// or higher); it replaces the previous one. Body as the CSD upload.
#[utoipa::path(post, path = "/empresas/{empresaId}/fiel", tag = "empresas", request_body = CsdBody,
    params(("empresaId" = String, Path)),
    responses(
        (status = 201, description = "FIEL stored (key and password encrypted at rest)", body = Envelope<FielOut>),
        (status = 400, description = "FIEL_001 missing fields; FIEL_002 not a certificate, bad key, wrong password or pair mismatch; \
            FIEL_003 expired; FIEL_004 FIEL of another RFC; FIEL_005 a CSD sent as FIEL", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 500, description = "FIEL_999 internal error processing the FIEL", body = ErrorBody),
    ))]
pub async fn subir(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(empresa_id): Path<EmpresaId>,
    Json(body): Json<CsdBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::EmpresaCsd).await?;
    let (cer, key, password) = body.into_parts();
    let guardado = fiel::subir(&app, &empresa_id, cer, key, password).await?;
    Ok(created(FielOut {
        no_certificado: guardado.no_certificado,
        vigencia_fin: guardado.vigencia_fin,
        empresa_id: String::from(empresa_id),
    }))
}

/// Whether the company has a FIEL: `configured`, `expired`, `noCertificado`, `vigenciaFin`
/// (nulls when none). Never the key.
#[utoipa::path(get, path = "/empresas/{empresaId}/fiel", tag = "empresas",
    params(("empresaId" = String, Path)),
    responses(
        (status = 200, description = "FIEL status", body = Envelope<FielStatus>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn estado(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(empresa_id): Path<EmpresaId>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::EmpresaView).await?;
    let status = match fiel::guardada(&app, &empresa_id).await? {
        Some(guardada) => FielStatus {
            configured: true,
            expired: guardada.vigencia_fin <= app.clock.now(),
            no_certificado: Some(guardada.no_certificado),
            vigencia_fin: Some(guardada.vigencia_fin),
        },
        None => FielStatus { configured: false, expired: false, no_certificado: None, vigencia_fin: None },
    };
    Ok(ok(status))
}
