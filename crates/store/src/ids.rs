//! Identifiers: UUID v7 text, time-ordered so new rows index well and list in creation order.
//!
//! Each kind of id that crosses the storage boundary is its own type ([`EmpresaId`],
//! [`CfdiId`], [`UserId`], …), so a function that takes a company and a CFDI cannot be handed
//! them swapped: both are text in the database, and were `&str` in sixteen signatures next to
//! each other (one pair in opposite orders in two modules). They are plain strings in JSON and
//! in the database (`serde` and `sqlx` transparent). On purpose there is no
//! `Deref<Target = str>`: it would let a `&CfdiId` pass where another kind's `&str` is asked;
//! [`as_str`](EmpresaId::as_str) says so at the call.
//!
//! ```compile_fail
//! use timbra_store::ids::{CfdiId, EmpresaId};
//! fn leer(_empresa_id: &EmpresaId, _cfdi_id: &CfdiId) {}
//! let (empresa_id, cfdi_id) = (EmpresaId::new(), CfdiId::new());
//! leer(&cfdi_id, &empresa_id); // swapped: does not compile
//! ```
//!
//! ```
//! use timbra_store::ids::{CfdiId, EmpresaId};
//! fn leer(_empresa_id: &EmpresaId, _cfdi_id: &CfdiId) {}
//! let (empresa_id, cfdi_id) = (EmpresaId::new(), CfdiId::new());
//! leer(&empresa_id, &cfdi_id);
//! ```

use sqlx::{Postgres, Sqlite};

/// A new identifier, for rows whose kind of id has no type of its own.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Defines each id type: an owned string with `new()` (a fresh UUID v7), `as_str()`,
/// `Display`, conversions from and into `String`, `serde` and `sqlx` as the plain text, and
/// [`Value`](crate::Value) for statements built at run time.
macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        #[allow(clippy::new_without_default)]
        impl $name {
            /// A new id (UUID v7).
            pub fn new() -> Self {
                Self(new_id())
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id's text, owned.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<String> for $name {
            fn from(value: String) -> Self {
                Self(value)
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self(value.to_owned())
            }
        }

        impl From<&String> for $name {
            fn from(value: &String) -> Self {
                Self(value.clone())
            }
        }

        impl From<&$name> for $name {
            fn from(value: &$name) -> Self {
                value.clone()
            }
        }

        impl From<$name> for String {
            fn from(value: $name) -> Self {
                value.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<&$name> for $name {
            fn eq(&self, other: &&$name) -> bool {
                self.0 == other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                **self == other.0
            }
        }

        impl From<$name> for crate::Value {
            fn from(value: $name) -> Self {
                crate::Value::Text(value.0)
            }
        }

        impl From<&$name> for crate::Value {
            fn from(value: &$name) -> Self {
                crate::Value::Text(value.0.clone())
            }
        }

        impl From<Option<$name>> for crate::Value {
            fn from(value: Option<$name>) -> Self {
                crate::Value::OptText(value.map(|id| id.0))
            }
        }

        impl sqlx::Type<Sqlite> for $name {
            fn type_info() -> sqlx::sqlite::SqliteTypeInfo {
                <String as sqlx::Type<Sqlite>>::type_info()
            }
            fn compatible(ty: &sqlx::sqlite::SqliteTypeInfo) -> bool {
                <String as sqlx::Type<Sqlite>>::compatible(ty)
            }
        }

        impl<'q> sqlx::Encode<'q, Sqlite> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut <Sqlite as sqlx::Database>::ArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <String as sqlx::Encode<'q, Sqlite>>::encode(self.0.clone(), buf)
            }
        }

        impl<'r> sqlx::Decode<'r, Sqlite> for $name {
            fn decode(value: sqlx::sqlite::SqliteValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
                <String as sqlx::Decode<'r, Sqlite>>::decode(value).map(Self)
            }
        }

        impl sqlx::Type<Postgres> for $name {
            fn type_info() -> sqlx::postgres::PgTypeInfo {
                <String as sqlx::Type<Postgres>>::type_info()
            }
            fn compatible(ty: &sqlx::postgres::PgTypeInfo) -> bool {
                <String as sqlx::Type<Postgres>>::compatible(ty)
            }
        }

        impl<'q> sqlx::Encode<'q, Postgres> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut sqlx::postgres::PgArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <&str as sqlx::Encode<'q, Postgres>>::encode_by_ref(&self.0.as_str(), buf)
            }
        }

        impl<'r> sqlx::Decode<'r, Postgres> for $name {
            fn decode(value: sqlx::postgres::PgValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
                <String as sqlx::Decode<'r, Postgres>>::decode(value).map(Self)
            }
        }

        impl sqlx::postgres::PgHasArrayType for $name {
            fn array_type_info() -> sqlx::postgres::PgTypeInfo {
                <String as sqlx::postgres::PgHasArrayType>::array_type_info()
            }
        }
    )*};
}

ids! {
    /// A company (`empresas.id`, the `empresa_id` of every scoped row).
    EmpresaId;
    /// A user account (`users.id`).
    UserId;
    /// A CFDI row (`cfdis.id`): an invoice, payment, payroll receipt's or retention's stamp, or
    /// a received CFDI.
    CfdiId;
    /// A payment CFDI (`pagos`, its `cfdis` row's id).
    PagoId;
    /// A pay period (`nomina_periodos.id`).
    PeriodoId;
    /// A payroll receipt (`nomina_recibos.id`).
    ReciboNominaId;
    /// A sales ticket (`recibos.id`).
    ReciboId;
    /// An employee (`empleados.id`).
    EmpleadoId;
    /// A customer (`clientes.id`).
    ClienteId;
    /// A payroll incidence (`incidencias.id`).
    IncidenciaId;
    /// A webhook endpoint (`webhooks.id`).
    WebhookId;
    /// A webhook delivery (`webhook_deliveries.id`).
    DeliveryId;
    /// An event (`events.id`).
    EventId;
    /// A live stamping attempt (`intentos_timbrado.id`).
    IntentoId;
    /// A ZIP export (`exportaciones_zip.id`).
    ExportacionId;
    /// A download of one received CFDI by UUID (`descargas_uuid.id`).
    DescargaId;
}

/// A payment is a CFDI: its id in `pagos_doctos.pago_id` is its `cfdis` row's.
impl From<&CfdiId> for PagoId {
    fn from(cfdi_id: &CfdiId) -> Self {
        Self(cfdi_id.0.clone())
    }
}
