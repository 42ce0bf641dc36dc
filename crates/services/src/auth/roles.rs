//! Roles per company and the actions they allow (SPEC.md "Roles"). Roles are hierarchical: a
//! higher role has every permission of the lower ones.

use serde::{Deserialize, Serialize};

/// A caller's role in one company, from highest to lowest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Role {
    /// Lowest: reads.
    Usuario = 1,
    /// Issues invoices, manages customers and products.
    Facturador = 2,
    /// Cancels invoices, downloads from SAT, deletes customers and products, runs payroll.
    Contador = 3,
    /// Edits the company, its certificates, members and webhooks.
    Administrador = 4,
    /// Owner: everything, including deleting the company.
    Propietario = 5,
}

impl Role {
    /// The role's name as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Propietario => "PROPIETARIO",
            Role::Administrador => "ADMINISTRADOR",
            Role::Contador => "CONTADOR",
            Role::Facturador => "FACTURADOR",
            Role::Usuario => "USUARIO",
        }
    }

    /// Parses a stored or requested role name (exact, uppercase).
    pub fn parse(text: &str) -> Option<Role> {
        [Role::Propietario, Role::Administrador, Role::Contador, Role::Facturador, Role::Usuario]
            .into_iter()
            .find(|role| role.as_str() == text)
    }
}

/// The scope that lets a key stamp and cancel in a **live** company through the MCP endpoint
/// (`/mcp`, `timbra mcp`): an agent's stamp spends a stamp and is a real tax document. It is
/// never implied: not by `*`, not by `mcp:*`, not by a key created without scopes; only a key
/// that names it carries it, and a key can create a child with it only when it names it itself.
pub const MCP_LIVE: &str = "mcp:live";

/// An action guarded by the role table; its name is also the API-key scope that allows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permission {
    /// Stamp invoices.
    CfdiTimbrar,
    /// Cancel invoices.
    CfdiCancelar,
    /// Download received invoices from SAT.
    CfdiDescargar,
    /// Read invoices.
    CfdiView,
    /// Read the live stamping attempts and the explanation of every folio (scope `cfdi:view`,
    /// role CONTADOR: refused attempts carry the PAC's messages).
    CfdiIntentos,
    /// Ask SAT's status of an invoice and read the cancellation requests the company received
    /// (scope `cfdi:view`, role CONTADOR: it reaches SAT and shows suppliers' requests).
    CfdiEstadoSat,
    /// Create customers.
    ClienteCreate,
    /// Edit customers.
    ClienteEdit,
    /// Delete customers.
    ClienteDelete,
    /// Read customers.
    ClienteView,
    /// Create products.
    ProductoCreate,
    /// Edit products.
    ProductoEdit,
    /// Delete products.
    ProductoDelete,
    /// Read products.
    ProductoView,
    /// Create companies (the creator becomes their PROPIETARIO). Not tied to a company: only
    /// API keys narrowed by scopes need it named.
    EmpresaCreate,
    /// Read the company itself.
    EmpresaView,
    /// Edit the company.
    EmpresaEdit,
    /// Upload certificates (CSD and FIEL).
    EmpresaCsd,
    /// Delete the company.
    EmpresaDelete,
    /// Add, change and remove members.
    MemberManage,
    /// Add stamps to a company's balance: the installation's operators only
    /// (`Caller::authorize_operador`, `timbra operadores agregar`); no company role allows it,
    /// not even PROPIETARIO. A key narrowed by scopes needs this one named.
    TimbresRecargar,
    /// Create, change, test and delete webhook endpoints; read their delivery log.
    WebhookManage,
    /// Read the company's background jobs.
    JobView,
    /// Read payroll: employees, incidences, periods and receipts.
    NominaView,
    /// Run payroll: manage employees and incidences, create, calculate, stamp and cancel
    /// periods and receipts.
    NominaManage,
}

impl Permission {
    /// Every permission, for the docs and for validating requested key scopes.
    pub const ALL: &'static [Permission] = &[
        Permission::CfdiTimbrar,
        Permission::CfdiCancelar,
        Permission::CfdiDescargar,
        Permission::CfdiView,
        Permission::CfdiIntentos,
        Permission::CfdiEstadoSat,
        Permission::ClienteCreate,
        Permission::ClienteEdit,
        Permission::ClienteDelete,
        Permission::ClienteView,
        Permission::ProductoCreate,
        Permission::ProductoEdit,
        Permission::ProductoDelete,
        Permission::ProductoView,
        Permission::EmpresaCreate,
        Permission::EmpresaView,
        Permission::EmpresaEdit,
        Permission::EmpresaCsd,
        Permission::EmpresaDelete,
        Permission::MemberManage,
        Permission::TimbresRecargar,
        Permission::WebhookManage,
        Permission::JobView,
        Permission::NominaView,
        Permission::NominaManage,
    ];

    /// The scope name, as in SPEC.md's role table (`cfdi:timbrar`).
    pub fn scope(self) -> &'static str {
        match self {
            Permission::CfdiTimbrar => "cfdi:timbrar",
            Permission::CfdiCancelar => "cfdi:cancelar",
            Permission::CfdiDescargar => "cfdi:descargar",
            Permission::CfdiView | Permission::CfdiIntentos | Permission::CfdiEstadoSat => "cfdi:view",
            Permission::ClienteCreate => "cliente:create",
            Permission::ClienteEdit => "cliente:edit",
            Permission::ClienteDelete => "cliente:delete",
            Permission::ClienteView => "cliente:view",
            Permission::ProductoCreate => "producto:create",
            Permission::ProductoEdit => "producto:edit",
            Permission::ProductoDelete => "producto:delete",
            Permission::ProductoView => "producto:view",
            Permission::EmpresaCreate => "empresa:create",
            Permission::EmpresaView => "empresa:view",
            Permission::EmpresaEdit => "empresa:edit",
            Permission::EmpresaCsd => "empresa:csd",
            Permission::EmpresaDelete => "empresa:delete",
            Permission::MemberManage => "member:manage",
            Permission::TimbresRecargar => "timbres:recargar",
            Permission::WebhookManage => "webhook:manage",
            Permission::JobView => "job:view",
            Permission::NominaView => "nomina:view",
            Permission::NominaManage => "nomina:manage",
        }
    }

    /// The lowest role allowed to perform the action (SPEC.md's table).
    pub fn minimum_role(self) -> Role {
        match self {
            Permission::CfdiView
            | Permission::ClienteView
            | Permission::ProductoView
            | Permission::EmpresaView
            | Permission::EmpresaCreate => Role::Usuario,
            Permission::CfdiTimbrar
            | Permission::ClienteCreate
            | Permission::ClienteEdit
            | Permission::ProductoCreate
            | Permission::ProductoEdit => Role::Facturador,
            Permission::CfdiCancelar
            | Permission::CfdiDescargar
            | Permission::CfdiIntentos
            | Permission::CfdiEstadoSat
            | Permission::ClienteDelete
            | Permission::ProductoDelete
            | Permission::NominaView
            | Permission::NominaManage => Role::Contador,
            Permission::EmpresaEdit | Permission::EmpresaCsd | Permission::MemberManage => Role::Administrador,
            Permission::WebhookManage | Permission::JobView => Role::Administrador,
            Permission::EmpresaDelete | Permission::TimbresRecargar => Role::Propietario,
        }
    }

    /// Whether a key scope grants this action: the exact name, `area:*`, or `*`.
    pub fn granted_by(self, scope: &str) -> bool {
        let name = self.scope();
        scope == "*"
            || scope == name
            || scope.strip_suffix(":*").is_some_and(|area| name.split(':').next() == Some(area))
    }

    /// Whether `scope` is a scope a key may be narrowed to: one that grants an action, or
    /// [`MCP_LIVE`].
    pub fn is_known_scope(scope: &str) -> bool {
        scope == MCP_LIVE || Permission::ALL.iter().any(|permission| permission.granted_by(scope))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_role_table_of_the_spec() {
        assert!(Role::Propietario > Role::Administrador && Role::Contador > Role::Facturador);
        assert_eq!(Permission::CfdiTimbrar.minimum_role(), Role::Facturador);
        assert_eq!(Permission::CfdiCancelar.minimum_role(), Role::Contador);
        assert_eq!(Permission::CfdiDescargar.minimum_role(), Role::Contador);
        assert_eq!(Permission::CfdiIntentos.minimum_role(), Role::Contador);
        assert!(Permission::CfdiIntentos.granted_by("cfdi:view"));
        assert_eq!(Permission::ClienteDelete.minimum_role(), Role::Contador);
        assert_eq!(Permission::EmpresaDelete.minimum_role(), Role::Propietario);
        assert_eq!(Permission::MemberManage.minimum_role(), Role::Administrador);
        assert_eq!(Permission::NominaView.minimum_role(), Role::Contador);
        assert_eq!(Permission::NominaManage.minimum_role(), Role::Contador);
        assert!(!Permission::NominaManage.granted_by("nomina:view"));
        assert!(Permission::NominaManage.granted_by("nomina:*"));
        for role in ["PROPIETARIO", "ADMINISTRADOR", "CONTADOR", "FACTURADOR", "USUARIO"] {
            assert_eq!(Role::parse(role).map(Role::as_str), Some(role));
        }
        assert_eq!(Role::parse("admin"), None);
    }

    #[test]
    fn scopes() {
        assert!(Permission::CfdiDescargar.granted_by("cfdi:descargar"));
        assert!(Permission::CfdiDescargar.granted_by("cfdi:*"));
        assert!(Permission::CfdiDescargar.granted_by("*"));
        assert!(!Permission::CfdiDescargar.granted_by("cfdi:view"));
        assert!(!Permission::ClienteView.granted_by("cfdi:*"));
        assert!(Permission::is_known_scope("producto:*"));
        assert!(!Permission::is_known_scope("nope:read"));
        assert!(Permission::is_known_scope(MCP_LIVE));
        assert!(!Permission::ALL.iter().any(|permission| permission.granted_by(MCP_LIVE)));
    }
}
