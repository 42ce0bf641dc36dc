//! Stamp balance per company: read it (any member), and top it up (the installation's
//! operators only, `cfdi::timbres`). Sandbox stamping consumes nothing; live stamping one per
//! stamp.

use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use timbra_store::ids::EmpresaId;
use utoipa::ToSchema;

use crate::envelope::{Json, created, ok};
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_store::timbres;

/// A company's balance.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SaldoOut {
    empresa_id: String,
    /// Stamps left for live stamping.
    saldo: i64,
}

/// A top-up.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct RecargaBody {
    /// Stamps to add, 1 to 10,000,000.
    cantidad: Option<i64>,
    /// Note kept with the movement (e.g. the payment reference).
    concepto: Option<String>,
}

async fn saldo(app: &AppContext, empresa_id: &EmpresaId) -> HttpResult<i64> {
    let mut conn = app.db.conn().await?;
    Ok(timbres::saldo(&mut conn, empresa_id).await?)
}

/// The company's stamp balance (any member).
#[utoipa::path(get, path = "/timbres", tag = "timbres", params(("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "Balance", body = Envelope<SaldoOut>),
        (status = 400, description = "EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn get(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let saldo = saldo(&app, &empresa_id).await?;
    Ok(ok(SaldoOut { empresa_id: String::from(empresa_id), saldo }))
}

/// Adds stamps to the company's balance: the installation operator's act (an account given the
/// role with `timbra operadores agregar <email>`; a company's PROPIETARIO gets AUTH_003).
/// Recorded in `timbres_movimientos`.
#[utoipa::path(post, path = "/timbres/recargas", tag = "timbres", request_body = RecargaBody,
    params(("x-empresa-id" = String, Header)),
    responses(
        (status = 201, description = "New balance", body = Envelope<SaldoOut>),
        (status = 400, description = "TIMBRES_001 invalid cantidad; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "AUTH_003 not an operator of the installation; SCOPE_001 / SCOPE_002 (a key narrowed \
            to other companies or scopes)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND no such company", body = ErrorBody),
    ))]
pub async fn recargar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Json(body): Json<RecargaBody>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize_operador(&app, &empresa_id, Permission::TimbresRecargar).await?;
    let now = app.clock.now();
    let saldo = timbra_services::cfdi::timbres::recargar(
        &app.db,
        &empresa_id,
        body.cantidad,
        body.concepto.as_deref(),
        Some(&caller.user_id),
        now,
    )
    .await?;
    Ok(created(SaldoOut { empresa_id: String::from(empresa_id), saldo }))
}
