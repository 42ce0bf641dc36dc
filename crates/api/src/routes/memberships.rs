//! Members of a company: list, add an existing user by email, change a role, remove.
//!
//! The rules (roles granted, the last PROPIETARIO) and the transactions live in
//! `timbra_services::memberships`.

use crate::extract::Auth;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use timbra_store::ids::{EmpresaId, UserId};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Json, Path, created, ok};
use crate::error::HttpResult;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::{Permission, Role};
use timbra_services::context::AppContext;
use timbra_services::memberships;
use timbra_store::memberships::MemberRow;

/// A member.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
// The OpenAPI schema keeps its published name.
#[schema(as = MiembroOut)]
pub struct MemberOut {
    user_id: String,
    name: String,
    email: String,
    #[schema(value_type = Role)]
    role: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl From<MemberRow> for MemberOut {
    fn from(row: MemberRow) -> Self {
        Self {
            user_id: String::from(row.user_id),
            name: row.name,
            email: row.email,
            role: row.role,
            created_at: row.created_at,
        }
    }
}

/// Add a member.
#[derive(Deserialize, ToSchema)]
pub struct AddBody {
    /// Email of a registered user.
    email: Option<String>,
    /// PROPIETARIO, ADMINISTRADOR, CONTADOR, FACTURADOR or USUARIO.
    role: Option<String>,
}

/// Change a member's role.
#[derive(Deserialize, ToSchema)]
pub struct RoleBody {
    /// The new role.
    role: Option<String>,
}

async fn members(app: &AppContext, empresa_id: &EmpresaId) -> HttpResult<Vec<MemberOut>> {
    Ok(memberships::list(app, empresa_id).await?.into_iter().map(MemberOut::from).collect())
}

/// Lists the members (any role).
#[utoipa::path(get, path = "/empresas/{empresaId}/miembros", tag = "miembros", params(("empresaId" = String, Path)),
    responses(
        (status = 200, description = "Members", body = Envelope<Vec<MemberOut>>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn list(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(empresa_id): Path<EmpresaId>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::EmpresaView).await?;
    Ok(ok(members(&app, &empresa_id).await?))
}

/// Adds a registered user with a role (member:manage).
#[utoipa::path(post, path = "/empresas/{empresaId}/miembros", tag = "miembros", params(("empresaId" = String, Path)), request_body = AddBody,
    responses(
        (status = 201, description = "Member added", body = Envelope<MemberOut>),
        (status = 400, description = "MEMBER_001 no such user or bad role", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 409, description = "MEMBER_002 already a member", body = ErrorBody),
    ))]
pub async fn add(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(empresa_id): Path<EmpresaId>,
    Json(body): Json<AddBody>,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::MemberManage).await?;
    let role = memberships::parse_role(body.role.as_deref())?;
    let email = body.email.unwrap_or_default();
    let member = memberships::add(&app, access.role, &empresa_id, &email, role).await?;
    Ok(created(MemberOut::from(member)))
}

/// Changes a member's role (member:manage).
#[utoipa::path(patch, path = "/empresas/{empresaId}/miembros/{userId}", tag = "miembros",
    params(("empresaId" = String, Path), ("userId" = String, Path)), request_body = RoleBody,
    responses(
        (status = 200, description = "Role changed", body = Envelope<MemberOut>),
        (status = 400, description = "MEMBER_001 bad role", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND not a member", body = ErrorBody),
        (status = 409, description = "EMPRESA_004 last PROPIETARIO", body = ErrorBody),
    ))]
pub async fn update(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path((empresa_id, user_id)): Path<(EmpresaId, UserId)>,
    Json(body): Json<RoleBody>,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::MemberManage).await?;
    let role = memberships::parse_role(body.role.as_deref())?;
    let member = memberships::change_role(&app, access.role, &empresa_id, &user_id, role).await?;
    Ok(ok(MemberOut::from(member)))
}

/// Removes a member (member:manage; anyone may leave a company themselves).
#[utoipa::path(delete, path = "/empresas/{empresaId}/miembros/{userId}", tag = "miembros",
    params(("empresaId" = String, Path), ("userId" = String, Path)),
    responses(
        (status = 200, description = "Removed", body = Envelope<Object>),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND not a member", body = ErrorBody),
        (status = 409, description = "EMPRESA_004 last PROPIETARIO", body = ErrorBody),
    ))]
pub async fn remove(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path((empresa_id, user_id)): Path<(EmpresaId, UserId)>,
) -> HttpResult<impl IntoResponse> {
    let permission = if user_id == caller.user_id { Permission::EmpresaView } else { Permission::MemberManage };
    let access = caller.authorize(&app, &empresa_id, permission).await?;
    memberships::remove(&app, access.role, &empresa_id, &user_id).await?;
    Ok(ok(serde_json::json!({ "removed": true, "userId": user_id })))
}
