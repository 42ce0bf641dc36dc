//! Stamp balance per company: read it, and top it up (PROPIETARIO). Sandbox stamping consumes
//! nothing; live stamping will consume one per invoice once the PAC is wired.

use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::caller::{Caller, EmpresaHeader};
use crate::auth::roles::Permission;
use crate::envelope::{Json, created, ok};
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use crate::openapi::{Envelope, ErrorBody};
use crate::state::AppState;
use timbra_store::timbres;

/// Most stamps one top-up may add.
pub const MAX_RECARGA: i64 = 10_000_000;

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

async fn saldo(app: &AppState, empresa_id: &str) -> ApiResult<i64> {
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
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
) -> ApiResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let saldo = saldo(&app, &empresa_id).await?;
    Ok(ok(SaldoOut { empresa_id, saldo }))
}

/// Adds stamps to the company's balance (PROPIETARIO only; recorded in `timbres_movimientos`).
#[utoipa::path(post, path = "/timbres/recargas", tag = "timbres", request_body = RecargaBody,
    params(("x-empresa-id" = String, Header)),
    responses(
        (status = 201, description = "New balance", body = Envelope<SaldoOut>),
        (status = 400, description = "TIMBRES_001 invalid cantidad; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003 (PROPIETARIO only)", body = ErrorBody),
    ))]
pub async fn recargar(
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Json(body): Json<RecargaBody>,
) -> ApiResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::TimbresRecargar).await?;
    let cantidad = match body.cantidad {
        Some(n) if (1..=MAX_RECARGA).contains(&n) => n,
        _ => {
            return Err(ApiError::fields(
                Code::Timbres001,
                vec![FieldProblem::new("cantidad", format!("cantidad is a whole number from 1 to {MAX_RECARGA}"))],
            ));
        }
    };
    let concepto =
        body.concepto.map(|c| c.trim().chars().take(200).collect::<String>()).unwrap_or_else(|| "recarga".into());
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let saldo = timbres::recargar(&mut tx, &empresa_id, cantidad, &concepto, &caller.user_id, now).await?;
    tx.commit().await?;
    Ok(created(SaldoOut { empresa_id, saldo }))
}
