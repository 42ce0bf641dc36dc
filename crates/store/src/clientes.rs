//! The `clientes` table: a company's customers.

use crate::ids::{ClienteId, EmpresaId};
use time::OffsetDateTime;

use super::scoped::ScopedTable;
use crate::sql;
use crate::{DbConn, Tx};

/// The customers table, for [`super::scoped`].
pub struct Clientes;

impl ScopedTable for Clientes {
    const TABLE: &'static str = "clientes";
    const COLUMNS: &'static str = "id, rfc, razon_social, regimen_fiscal, codigo_postal, uso_cfdi, email, residencia_fiscal, num_reg_id_trib, created_at, updated_at";
    type Row = ClienteRow;
    fn total(row: &ClienteRow) -> Option<i64> {
        row.total
    }
}

/// A stored customer.
#[derive(sqlx::FromRow)]
pub struct ClienteRow {
    /// Id.
    pub id: String,
    /// RFC.
    pub rfc: String,
    /// Legal name.
    pub razon_social: String,
    /// c_RegimenFiscal.
    pub regimen_fiscal: String,
    /// DomicilioFiscalReceptor.
    pub codigo_postal: String,
    /// Default c_UsoCFDI.
    pub uso_cfdi: String,
    /// Where invoices are sent.
    pub email: Option<String>,
    /// A customer abroad: its country (c_Pais), the Receptor's ResidenciaFiscal.
    pub residencia_fiscal: Option<String>,
    /// A customer abroad: its tax id in its country, the Receptor's NumRegIdTrib.
    pub num_reg_id_trib: Option<String>,
    /// Created.
    pub created_at: OffsetDateTime,
    /// Last changed.
    pub updated_at: OffsetDateTime,
    /// A listing's total, when the query adds it (`… AS total`).
    #[sqlx(default)]
    pub total: Option<i64>,
}

/// A customer's validated fields.
pub struct Datos<'a> {
    /// RFC.
    pub rfc: &'a str,
    /// Legal name.
    pub razon_social: &'a str,
    /// c_RegimenFiscal.
    pub regimen_fiscal: &'a str,
    /// DomicilioFiscalReceptor.
    pub codigo_postal: &'a str,
    /// Default c_UsoCFDI.
    pub uso_cfdi: &'a str,
    /// Where invoices are sent.
    pub email: Option<&'a str>,
    /// ResidenciaFiscal (c_Pais) of a customer abroad.
    pub residencia_fiscal: Option<&'a str>,
    /// NumRegIdTrib of a customer abroad.
    pub num_reg_id_trib: Option<&'a str>,
}

/// The lower-case text `q=` searches in.
fn search_text(datos: &Datos<'_>) -> String {
    crate::search::search_text(&[datos.rfc, datos.razon_social])
}

/// Inserts customer `id` (a unique violation means the RFC is taken in the company).
pub async fn insert(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    datos: &Datos<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO clientes (id, empresa_id, rfc, razon_social, regimen_fiscal, codigo_postal, uso_cfdi, email, search_text, created_at, updated_at, \
         residencia_fiscal, num_reg_id_trib) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12)",
        id,
        empresa_id,
        datos.rfc,
        datos.razon_social,
        datos.regimen_fiscal,
        datos.codigo_postal,
        datos.uso_cfdi,
        datos.email,
        search_text(datos),
        now,
        datos.residencia_fiscal,
        datos.num_reg_id_trib
    )
}

/// Replaces customer `id`'s fields (a unique violation means the RFC is taken in the company).
pub async fn update(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    datos: &Datos<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE clientes SET rfc = $1, razon_social = $2, regimen_fiscal = $3, codigo_postal = $4, uso_cfdi = $5, email = $6, \
         search_text = $7, updated_at = $8, residencia_fiscal = $9, num_reg_id_trib = $10 WHERE id = $11 AND empresa_id = $12",
        datos.rfc,
        datos.razon_social,
        datos.regimen_fiscal,
        datos.codigo_postal,
        datos.uso_cfdi,
        datos.email,
        search_text(datos),
        now,
        datos.residencia_fiscal,
        datos.num_reg_id_trib,
        id,
        empresa_id
    )
}

/// Customer `id` of the company, as an invoice's receiver.
pub async fn receptor(
    conn: &mut DbConn,
    empresa_id: &EmpresaId,
    id: &ClienteId,
) -> crate::DbResult<Option<ClienteReceptor>> {
    sql!(
        fetch_optional * conn,
        ClienteReceptor,
        "SELECT id, rfc, razon_social, regimen_fiscal, codigo_postal, uso_cfdi, residencia_fiscal, num_reg_id_trib FROM clientes \
         WHERE id = $1 AND empresa_id = $2",
        id,
        empresa_id
    )
}

/// The customer, as stamping needs it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ClienteReceptor {
    /// Id.
    pub id: String,
    /// RFC.
    pub rfc: String,
    /// Legal name.
    pub razon_social: String,
    /// c_RegimenFiscal.
    pub regimen_fiscal: String,
    /// DomicilioFiscalReceptor.
    pub codigo_postal: String,
    /// Default c_UsoCFDI.
    pub uso_cfdi: String,
    /// ResidenciaFiscal (c_Pais) of a customer abroad.
    pub residencia_fiscal: Option<String>,
    /// NumRegIdTrib of a customer abroad.
    pub num_reg_id_trib: Option<String>,
}
