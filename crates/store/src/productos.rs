//! The `productos` table: a company's products.

use crate::ids::EmpresaId;
use rust_decimal::Decimal;
use time::OffsetDateTime;

use super::scoped::ScopedTable;
use crate::sql;
use crate::{Money, Tx};

/// A stored product.
#[derive(sqlx::FromRow)]
pub struct ProductoRow {
    /// Id.
    pub id: String,
    /// c_ClaveProdServ.
    pub clave_prod_serv: String,
    /// c_ClaveUnidad.
    pub clave_unidad: String,
    /// Description.
    pub descripcion: String,
    /// Unit price.
    pub precio_unitario: Money,
    /// IVA rate.
    pub iva_rate: Money,
    /// Default c_FraccionArancelaria for the complements (Comercio Exterior, Carta Porte).
    pub fraccion_arancelaria: Option<String>,
    /// Default Carta Porte MaterialPeligroso (`Sí` or `No`).
    pub material_peligroso: Option<String>,
    /// Created.
    pub created_at: OffsetDateTime,
    /// Last changed.
    pub updated_at: OffsetDateTime,
    /// A listing's total.
    #[sqlx(default)]
    pub total: Option<i64>,
}

/// The products table, for [`super::scoped`].
pub struct Productos;

impl ScopedTable for Productos {
    const TABLE: &'static str = "productos";
    const COLUMNS: &'static str = "id, clave_prod_serv, clave_unidad, descripcion, precio_unitario, iva_rate, fraccion_arancelaria, material_peligroso, \
         created_at, updated_at";
    type Row = ProductoRow;
    fn total(row: &ProductoRow) -> Option<i64> {
        row.total
    }
}

/// A product's validated fields.
pub struct Datos<'a> {
    /// c_ClaveProdServ.
    pub clave_prod_serv: &'a str,
    /// c_ClaveUnidad.
    pub clave_unidad: &'a str,
    /// Description.
    pub descripcion: &'a str,
    /// Unit price.
    pub precio_unitario: Decimal,
    /// IVA rate.
    pub iva_rate: Decimal,
    /// Default c_FraccionArancelaria.
    pub fraccion_arancelaria: Option<&'a str>,
    /// Default MaterialPeligroso.
    pub material_peligroso: Option<&'a str>,
}

fn search_text(datos: &Datos<'_>) -> String {
    crate::search::search_text(&[datos.clave_prod_serv, datos.descripcion])
}

/// Inserts product `id`.
pub async fn insert(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    datos: &Datos<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO productos (id, empresa_id, clave_prod_serv, clave_unidad, descripcion, precio_unitario, iva_rate, search_text, created_at, updated_at, \
         fraccion_arancelaria, material_peligroso) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11)",
        id,
        empresa_id,
        datos.clave_prod_serv,
        datos.clave_unidad,
        datos.descripcion,
        Money(datos.precio_unitario),
        Money(datos.iva_rate),
        search_text(datos),
        now,
        datos.fraccion_arancelaria,
        datos.material_peligroso
    )
}

/// Replaces product `id`'s fields.
pub async fn update(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    id: &str,
    datos: &Datos<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE productos SET clave_prod_serv = $1, clave_unidad = $2, descripcion = $3, precio_unitario = $4, iva_rate = $5, \
         search_text = $6, updated_at = $7, fraccion_arancelaria = $8, material_peligroso = $9 WHERE id = $10 AND empresa_id = $11",
        datos.clave_prod_serv,
        datos.clave_unidad,
        datos.descripcion,
        Money(datos.precio_unitario),
        Money(datos.iva_rate),
        search_text(datos),
        now,
        datos.fraccion_arancelaria,
        datos.material_peligroso,
        id,
        empresa_id
    )
}
