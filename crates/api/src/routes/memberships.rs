//! Members of a company: list, add an existing user by email, change a role, remove.
//!
//! Rules beyond the role table: nobody grants a role above their own; only a PROPIETARIO
//! changes or removes another PROPIETARIO; a company always keeps at least one PROPIETARIO whose
//! account is not deleted.

use crate::extract::Auth;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::envelope::{Json, Path, created, ok};
use crate::error::HttpResult;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::{Permission, Role};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};
use timbra_store::memberships::{self, MiembroRow};

/// A member.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MiembroOut {
    user_id: String,
    name: String,
    email: String,
    #[schema(value_type = Role)]
    role: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl From<MiembroRow> for MiembroOut {
    fn from(row: MiembroRow) -> Self {
        Self { user_id: row.user_id, name: row.name, email: row.email, role: row.role, created_at: row.created_at }
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

fn parse_role(value: Option<&str>) -> HttpResult<Role> {
    Ok(value.and_then(Role::parse).ok_or_else(|| {
        ApiError::fields(
            Code::Member001,
            vec![FieldProblem::new("role", "role must be PROPIETARIO, ADMINISTRADOR, CONTADOR, FACTURADOR or USUARIO")],
        )
    })?)
}

fn may_grant(actor: Role, role: Role) -> HttpResult<()> {
    if role > actor {
        return Err(ApiError::new(
            Code::Auth003,
            format!("you cannot grant {}, a role above your own ({})", role.as_str(), actor.as_str()),
        )
        .into());
    }
    Ok(())
}

async fn members(app: &AppContext, empresa_id: &str) -> HttpResult<Vec<MiembroOut>> {
    let mut conn = app.db.conn().await?;
    Ok(memberships::de_empresa(&mut conn, empresa_id).await?.into_iter().map(MiembroOut::from).collect())
}

/// Lists the members (any role).
#[utoipa::path(get, path = "/empresas/{empresaId}/miembros", tag = "miembros", params(("empresaId" = String, Path)),
    responses(
        (status = 200, description = "Members", body = Envelope<Vec<MiembroOut>>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn list(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(empresa_id): Path<String>,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::EmpresaView).await?;
    Ok(ok(members(&app, &empresa_id).await?))
}

/// Adds a registered user with a role (member:manage).
#[utoipa::path(post, path = "/empresas/{empresaId}/miembros", tag = "miembros", params(("empresaId" = String, Path)), request_body = AddBody,
    responses(
        (status = 201, description = "Member added", body = Envelope<MiembroOut>),
        (status = 400, description = "MEMBER_001 no such user or bad role", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 409, description = "MEMBER_002 already a member", body = ErrorBody),
    ))]
pub async fn add(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path(empresa_id): Path<String>,
    Json(body): Json<AddBody>,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::MemberManage).await?;
    let role = parse_role(body.role.as_deref())?;
    may_grant(access.role, role)?;
    let email = body.email.unwrap_or_default().trim().to_lowercase();
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let user_id = memberships::usuario_por_email(&mut tx, &email).await?;
    let Some(user_id) = user_id else {
        return Err(ApiError::fields(
            Code::Member001,
            vec![FieldProblem::new("email", "no registered user has this email; they must register first")],
        )
        .into());
    };
    let exists = memberships::rol(&mut tx, &empresa_id, &user_id).await?;
    if exists.is_some() {
        return Err(ApiError::new(Code::Member002, "the user is already a member; change their role instead").into());
    }
    memberships::agregar(&mut tx, &empresa_id, &user_id, role.as_str(), now).await?;
    tx.commit().await?;
    timbra_services::auth::cache::changed(&app).await;
    let member = members(&app, &empresa_id).await?.into_iter().find(|m| m.user_id == user_id);
    Ok(member.map(created).ok_or_else(|| ApiError::not_found("member"))?)
}

async fn current_role(tx: &mut timbra_store::Tx, empresa_id: &str, user_id: &str) -> HttpResult<Role> {
    let role = memberships::rol(tx, empresa_id, user_id).await?;
    Ok(role.and_then(|r| Role::parse(&r)).ok_or_else(|| ApiError::not_found("member"))?)
}

async fn owners(tx: &mut timbra_store::Tx, empresa_id: &str) -> HttpResult<i64> {
    Ok(memberships::propietarios_activos(tx, empresa_id).await?)
}

/// Changes a member's role (member:manage).
#[utoipa::path(patch, path = "/empresas/{empresaId}/miembros/{userId}", tag = "miembros",
    params(("empresaId" = String, Path), ("userId" = String, Path)), request_body = RoleBody,
    responses(
        (status = 200, description = "Role changed", body = Envelope<MiembroOut>),
        (status = 400, description = "MEMBER_001 bad role", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "NOT_FOUND not a member", body = ErrorBody),
        (status = 409, description = "EMPRESA_004 last PROPIETARIO", body = ErrorBody),
    ))]
pub async fn update(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    Path((empresa_id, user_id)): Path<(String, String)>,
    Json(body): Json<RoleBody>,
) -> HttpResult<impl IntoResponse> {
    let access = caller.authorize(&app, &empresa_id, Permission::MemberManage).await?;
    let role = parse_role(body.role.as_deref())?;
    may_grant(access.role, role)?;
    let mut tx = app.db.begin().await?;
    let previous = current_role(&mut tx, &empresa_id, &user_id).await?;
    if previous == Role::Propietario && access.role != Role::Propietario {
        return Err(ApiError::new(Code::Auth003, "only a PROPIETARIO can change another PROPIETARIO's role").into());
    }
    if previous == Role::Propietario && role != Role::Propietario && owners(&mut tx, &empresa_id).await? <= 1 {
        return Err(ApiError::new(
            Code::Empresa004,
            "the company must keep at least one active PROPIETARIO (deleted accounts do not count); name another first",
        )
        .into());
    }
    memberships::cambiar_rol(&mut tx, &empresa_id, &user_id, role.as_str(), app.clock.now()).await?;
    tx.commit().await?;
    timbra_services::auth::cache::changed(&app).await;
    let member = members(&app, &empresa_id).await?.into_iter().find(|m| m.user_id == user_id);
    Ok(member.map(ok).ok_or_else(|| ApiError::not_found("member"))?)
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
    Path((empresa_id, user_id)): Path<(String, String)>,
) -> HttpResult<impl IntoResponse> {
    let permission = if user_id == caller.user_id { Permission::EmpresaView } else { Permission::MemberManage };
    let access = caller.authorize(&app, &empresa_id, permission).await?;
    let mut tx = app.db.begin().await?;
    let previous = current_role(&mut tx, &empresa_id, &user_id).await?;
    if previous == Role::Propietario && access.role != Role::Propietario {
        return Err(ApiError::new(Code::Auth003, "only a PROPIETARIO can remove another PROPIETARIO").into());
    }
    if previous == Role::Propietario && owners(&mut tx, &empresa_id).await? <= 1 {
        return Err(ApiError::new(
            Code::Empresa004,
            "the company must keep at least one active PROPIETARIO (deleted accounts do not count); name another first",
        )
        .into());
    }
    memberships::quitar(&mut tx, &empresa_id, &user_id).await?;
    tx.commit().await?;
    timbra_services::auth::cache::changed(&app).await;
    Ok(ok(serde_json::json!({ "removed": true, "userId": user_id })))
}
