//! The extractors of the API's handlers: the authenticated caller, the company header, and
//! both with the application as one company's scope.
//! The rules (how a key or session is verified, what a role may do) are
//! `timbra_services::auth`; here they only meet the request.

use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::request::Parts;
use timbra_store::ids::EmpresaId;

use crate::error::HttpError;
use timbra_services::auth::caller::{Caller, EmpresaAccess, ModeSlot, Verified, authenticate, carries_credential};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};

/// The authenticated caller of a request (`Auth(caller): Auth` in a handler's arguments):
/// the credential the router's middleware verified, or verified here when it did not.
#[derive(Clone, Debug)]
pub struct Auth(pub Caller);

impl FromRequestParts<AppContext> for Auth {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, app: &AppContext) -> Result<Self, Self::Rejection> {
        let verified = match parts.extensions.remove::<Verified>() {
            Some(Verified(verified)) => verified,
            None => authenticate(app, &parts.headers).await,
        };
        let (user_id, credential) = verified?;
        let mode = parts.extensions.get::<ModeSlot>().cloned().unwrap_or_default();
        Ok(Auth(Caller::new(user_id, credential, mode)))
    }
}

impl OptionalFromRequestParts<AppContext> for Auth {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, app: &AppContext) -> Result<Option<Self>, Self::Rejection> {
        if !carries_credential(&parts.headers) {
            return Ok(None);
        }
        <Auth as FromRequestParts<AppContext>>::from_request_parts(parts, app).await.map(Some)
    }
}

/// The company chosen by the `x-empresa-id` header.
#[derive(Clone, Debug)]
pub struct EmpresaHeader(pub EmpresaId);

impl<S: Send + Sync> FromRequestParts<S> for EmpresaHeader {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        match parts.headers.get("x-empresa-id").and_then(|value| value.to_str().ok()).map(str::trim) {
            Some(id) if !id.is_empty() => Ok(EmpresaHeader(EmpresaId::from(id))),
            _ => Err(ApiError::new(Code::Empresa003, "send the company id in the x-empresa-id header").into()),
        }
    }
}

/// A request on one company: the application, the authenticated caller ([`Auth`]) and the
/// company of the `x-empresa-id` header ([`EmpresaHeader`]), read in that order (so a request
/// without a credential is 401 before it is EMPRESA_003). One argument instead of three for the
/// handlers of a company's resources.
#[derive(Clone)]
pub struct EmpresaScope {
    /// The application.
    pub app: AppContext,
    /// Who asks.
    pub caller: Caller,
    /// The company asked about.
    pub empresa_id: EmpresaId,
}

impl EmpresaScope {
    /// The same scope outside a request (the MCP tools name the company in their arguments).
    pub fn new(app: &AppContext, caller: &Caller, empresa_id: &EmpresaId) -> Self {
        Self { app: app.clone(), caller: caller.clone(), empresa_id: empresa_id.clone() }
    }

    /// The caller's access to the company when it holds `permission`; SCOPE_001, AUTH_003 or
    /// SCOPE_002 otherwise.
    pub async fn authorize(&self, permission: Permission) -> Result<EmpresaAccess, ApiError> {
        self.caller.authorize(&self.app, &self.empresa_id, permission).await
    }
}

impl FromRequestParts<AppContext> for EmpresaScope {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, app: &AppContext) -> Result<Self, Self::Rejection> {
        let Auth(caller) = <Auth as FromRequestParts<AppContext>>::from_request_parts(parts, app).await?;
        let EmpresaHeader(empresa_id) = EmpresaHeader::from_request_parts(parts, app).await?;
        Ok(Self { app: app.clone(), caller, empresa_id })
    }
}
