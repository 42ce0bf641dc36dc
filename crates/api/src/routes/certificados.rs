//! CSD upload: `POST /api/empresas/{empresaId}/certificados`.

use crate::extract::Auth;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use timbra_store::ids::EmpresaId;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Json, Path, created};
use crate::error::HttpResult;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::credenciales;
use timbra_services::context::AppContext;

/// A certificate pair (CSD, or FIEL at `/fiel`): the .cer and .key files in base64 and the
/// key's password.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct CsdBody {
    /// The .cer (DER or PEM) in base64.
    cer_base64: Option<String>,
    /// The .key (SAT's encrypted DER) in base64.
    key_base64: Option<String>,
    /// The .key's password.
    password: Option<String>,
}

impl CsdBody {
    /// `(cerBase64, keyBase64, password)`.
    pub(crate) fn into_parts(self) -> (Option<String>, Option<String>, Option<String>) {
        (self.cer_base64, self.key_base64, self.password)
    }
}

/// The stored certificate (the key and password are never returned).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CsdOut {
    no_certificado: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    vigencia_fin: OffsetDateTime,
    empresa_id: String,
}

/// Uploads the company's CSD (ADMINISTRADOR or higher); it replaces the previous one. Not
/// needed in sandbox, where a test CSD for the company's RFC is generated on first use.
#[utoipa::path(post, path = "/empresas/{empresaId}/certificados", tag = "empresas", request_body = CsdBody,
    params(("empresaId" = String, Path)),
    responses(
        (status = 201, description = "CSD stored (key and password encrypted at rest)", body = Envelope<CsdOut>),
        (status = 400, description = "CSD_001 missing fields; CSD_002 not a certificate, bad key, wrong password or pair mismatch; \
            CSD_003 expired; CSD_004 certificate of another RFC; CSD_005 a FIEL sent as CSD", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
    ))]
pub async fn subir(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(empresa_id): Path<EmpresaId>,
    Json(body): Json<CsdBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::EmpresaCsd).await?;
    let (cer, key, password) = body.into_parts();
    let guardado = credenciales::subir_csd(&app, &empresa_id, cer, key, password).await?;
    Ok(created(CsdOut {
        no_certificado: guardado.no_certificado,
        vigencia_fin: guardado.vigencia_fin,
        empresa_id: String::from(empresa_id),
    }))
}
