//! A CFDI by e-mail: `POST /api/cfdi/{id}/correo` queues a sending (a durable job, retried on
//! the webhooks' schedule) and `GET /api/cfdi/{id}/correos` lists them. The operation is
//! `timbra_services::correo`; here the request is authorized and read.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use timbra_store::ids::CfdiId;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::{cargar, parse_body};
use crate::envelope::{Path, accepted, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::correo;

/// Who gets the e-mail; an empty body sends it to the customer's stored `email`.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CorreoBody {
    /// The addresses (default: the customer's `email`).
    para: Option<Vec<String>>,
    /// Copies.
    cc: Option<Vec<String>>,
}

/// A sending queued.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvioOut {
    /// The sending's id (`GET /api/cfdi/{id}/correos`).
    envio_id: String,
    /// The addresses it goes to.
    para: Vec<String>,
}

/// One sending of the CFDI.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CorreoOut {
    /// Its id.
    envio_id: String,
    /// `TIMBRADO` (the CFDI with its XML and PDF) or `CANCELACION` (the cancellation notice).
    motivo: String,
    /// The addresses.
    para: Vec<String>,
    /// The copies.
    cc: Vec<String>,
    /// `PENDIENTE` (queued or waiting for a retry), `ENVIADO` or `FALLIDO` (every retry failed).
    estado: String,
    /// Attempts made.
    intentos: i64,
    /// The last attempt's error.
    ultimo_error: Option<String>,
    /// When the SMTP server accepted it.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    enviado_en: Option<OffsetDateTime>,
    /// When it was queued.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

/// Sends a CFDI by e-mail (FACTURADOR or higher; `cfdi:timbrar`; a payroll receipt also needs
/// `nomina:view`): its XML, byte for byte, and its PDF attached, to `para` (default: the
/// customer's `email`) and `cc`. Answers once the sending is queued; its job retries a server
/// that is down or refuses at 1 min, 5 min, 30 min, 2 h and 24 h, then it is FALLIDO.
#[utoipa::path(post, path = "/cfdi/{id}/correo", tag = "cfdi", request_body = CorreoBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 202, description = "Queued", body = Envelope<EnvioOut>),
        (status = 400, description = "CORREO_002 an invalid address (details.campo, details.direccion); CORREO_003 no address: \
            the customer has no email and no para was sent; REQUEST_001", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also another company's CFDI, and a payroll receipt without nomina:view)", body = ErrorBody),
        (status = 412, description = "CORREO_001 e-mail is not configured (TIMBRA_SMTP_URL)", body = ErrorBody),
    ))]
pub async fn enviar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    body: Bytes,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiTimbrar).await?;
    let ve_nomina = super::ve_nomina(&caller, &access);
    cargar(&app, &empresa_id, &id, ve_nomina).await?;
    let body: CorreoBody =
        if body.iter().all(u8::is_ascii_whitespace) { CorreoBody::default() } else { parse_body(&body)? };
    let encolado =
        correo::enviar(&app, &empresa_id, &CfdiId::from(&id), body.para.as_deref(), body.cc.as_deref()).await?;
    Ok(accepted(EnvioOut { envio_id: encolado.envio_id, para: encolado.para }))
}

/// The e-mail sendings of a CFDI, oldest first (`cfdi:view`; a payroll receipt also needs
/// `nomina:view`).
#[utoipa::path(get, path = "/cfdi/{id}/correos", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The sendings", body = Envelope<Vec<CorreoOut>>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn listar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let ve_nomina = super::ve_nomina(&caller, &access);
    cargar(&app, &empresa_id, &id, ve_nomina).await?;
    let mut conn = app.db.conn().await?;
    let filas = timbra_store::correos::de_cfdi(&mut conn, &empresa_id, &CfdiId::from(&id)).await?;
    let items: Vec<CorreoOut> = filas
        .into_iter()
        .map(|fila| CorreoOut {
            envio_id: fila.id,
            motivo: fila.motivo,
            para: serde_json::from_str(&fila.para).unwrap_or_default(),
            cc: serde_json::from_str(&fila.cc).unwrap_or_default(),
            estado: fila.estado,
            intentos: fila.intentos,
            ultimo_error: fila.ultimo_error,
            enviado_en: fila.enviado_en,
            created_at: fila.created_at,
        })
        .collect();
    Ok(ok(items))
}
