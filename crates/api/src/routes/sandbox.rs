//! The sandbox's public certificate: the one that signs every sandbox timbre (its SelloSAT), so
//! `timbra cfdi verify --sat-cert` and anyone else can check a sandbox stamp. A sandbox stamp is
//! not SAT's: SAT's verification service knows neither this certificate nor its UUIDs.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use crate::error::HttpResult;
use crate::openapi::ErrorBody;
use timbra_services::cfdi::credenciales;
use timbra_services::context::AppContext;

/// The certificate (DER, as SAT publishes a PAC's `.cer`) that signs this installation's
/// sandbox timbres. Public: no credentials.
#[utoipa::path(get, path = "/sandbox/certificado", tag = "cfdi",
    responses(
        (status = 200, description = "The sandbox TFD certificate, DER (`application/pkix-cert`); its noCertificado is the file name and the `x-no-certificado` header", content_type = "application/pkix-cert", body = Vec<u8>),
        (status = 500, description = "INTERNAL_001 the installation's master key is not readable", body = ErrorBody),
    ))]
pub async fn certificado(State(app): State<AppContext>) -> HttpResult<impl IntoResponse> {
    let pac = credenciales::pac_sandbox(&app).await?;
    let certificado = pac.certificate();
    let nombre = format!("attachment; filename=\"timbra-sandbox-{}.cer\"", certificado.no_certificado());
    Ok((
        [
            (header::CONTENT_TYPE, "application/pkix-cert".to_owned()),
            (header::CONTENT_DISPOSITION, nombre),
            (header::HeaderName::from_static("x-no-certificado"), certificado.no_certificado().to_owned()),
        ],
        certificado.der().to_vec(),
    ))
}
