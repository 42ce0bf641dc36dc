//! Members of a company: add an existing user by email, change a role, remove; each in one
//! transaction, and the auth cache told after it commits.
//!
//! Rules beyond the role table: nobody grants a role above their own; only a PROPIETARIO
//! changes or removes another PROPIETARIO; a company always keeps at least one PROPIETARIO whose
//! account is not deleted (EMPRESA_004).

use timbra_store::ids::{EmpresaId, UserId};
use timbra_store::memberships::{self, MemberRow};

use crate::auth::roles::Role;
use crate::context::AppContext;
use crate::error::{ApiError, Code, FieldProblem};

/// `role` as a role, or MEMBER_001 naming the field.
pub fn parse_role(value: Option<&str>) -> Result<Role, ApiError> {
    value.and_then(Role::parse).ok_or_else(|| {
        ApiError::fields(
            Code::Member001,
            vec![FieldProblem::new("role", "role must be PROPIETARIO, ADMINISTRADOR, CONTADOR, FACTURADOR or USUARIO")],
        )
    })
}

fn may_grant(actor: Role, role: Role) -> Result<(), ApiError> {
    if role > actor {
        return Err(ApiError::new(
            Code::Auth003,
            format!("you cannot grant {}, a role above your own ({})", role.as_str(), actor.as_str()),
        ));
    }
    Ok(())
}

/// The company's members.
pub async fn list(app: &AppContext, empresa_id: &EmpresaId) -> Result<Vec<MemberRow>, ApiError> {
    let mut conn = app.db.conn().await?;
    Ok(memberships::de_empresa(&mut conn, empresa_id).await?)
}

async fn member(app: &AppContext, empresa_id: &EmpresaId, user_id: &UserId) -> Result<MemberRow, ApiError> {
    list(app, empresa_id).await?.into_iter().find(|m| m.user_id == user_id).ok_or_else(|| ApiError::not_found("member"))
}

/// Adds the registered user of `email` with `role`, granted by someone of role `actor`.
pub async fn add(
    app: &AppContext,
    actor: Role,
    empresa_id: &EmpresaId,
    email: &str,
    role: Role,
) -> Result<MemberRow, ApiError> {
    may_grant(actor, role)?;
    let email = email.trim().to_lowercase();
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let Some(user_id) = memberships::usuario_por_email(&mut tx, &email).await? else {
        return Err(ApiError::fields(
            Code::Member001,
            vec![FieldProblem::new("email", "no registered user has this email; they must register first")],
        ));
    };
    if memberships::rol(&mut tx, empresa_id, &UserId::from(&user_id)).await?.is_some() {
        return Err(ApiError::new(Code::Member002, "the user is already a member; change their role instead"));
    }
    memberships::agregar(&mut tx, empresa_id, &UserId::from(&user_id), role.as_str(), now).await?;
    tx.commit().await?;
    crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    member(app, empresa_id, &UserId::from(&user_id)).await
}

async fn current_role(tx: &mut timbra_store::Tx, empresa_id: &EmpresaId, user_id: &UserId) -> Result<Role, ApiError> {
    let role = memberships::rol(tx, empresa_id, user_id).await?;
    role.and_then(|r| Role::parse(&r)).ok_or_else(|| ApiError::not_found("member"))
}

/// EMPRESA_004 when the company has one active PROPIETARIO left.
async fn keeps_an_owner(tx: &mut timbra_store::Tx, empresa_id: &EmpresaId) -> Result<(), ApiError> {
    if memberships::propietarios_activos(tx, empresa_id).await? <= 1 {
        return Err(ApiError::new(
            Code::Empresa004,
            "the company must keep at least one active PROPIETARIO (deleted accounts do not count); name another first",
        ));
    }
    Ok(())
}

/// Changes `user_id`'s role to `role`, by someone of role `actor`.
pub async fn change_role(
    app: &AppContext,
    actor: Role,
    empresa_id: &EmpresaId,
    user_id: &UserId,
    role: Role,
) -> Result<MemberRow, ApiError> {
    may_grant(actor, role)?;
    let mut tx = app.db.begin().await?;
    let previous = current_role(&mut tx, empresa_id, user_id).await?;
    if previous == Role::Propietario && actor != Role::Propietario {
        return Err(ApiError::new(Code::Auth003, "only a PROPIETARIO can change another PROPIETARIO's role"));
    }
    if previous == Role::Propietario && role != Role::Propietario {
        keeps_an_owner(&mut tx, empresa_id).await?;
    }
    memberships::cambiar_rol(&mut tx, empresa_id, user_id, role.as_str(), app.clock.now()).await?;
    tx.commit().await?;
    crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    member(app, empresa_id, user_id).await
}

/// Removes `user_id` from the company, by someone of role `actor` (a member may remove
/// themselves whatever their role; the caller authorizes that).
pub async fn remove(app: &AppContext, actor: Role, empresa_id: &EmpresaId, user_id: &UserId) -> Result<(), ApiError> {
    let mut tx = app.db.begin().await?;
    let previous = current_role(&mut tx, empresa_id, user_id).await?;
    if previous == Role::Propietario && actor != Role::Propietario {
        return Err(ApiError::new(Code::Auth003, "only a PROPIETARIO can remove another PROPIETARIO"));
    }
    if previous == Role::Propietario {
        keeps_an_owner(&mut tx, empresa_id).await?;
    }
    memberships::quitar(&mut tx, empresa_id, user_id).await?;
    tx.commit().await?;
    crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    Ok(())
}
