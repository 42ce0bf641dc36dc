//! A company's branding of its PDFs (logo, primary color, footer note, and the version every
//! change bumps), the version each stored PDF was rendered with, and a CFDI's printed notes.

use crate::ids::{CfdiId, EmpresaId};
use sqlx::FromRow;
use time::OffsetDateTime;

use crate::AsExec;
use crate::sql;

/// A company's branding.
#[derive(Clone, Debug, Default, FromRow)]
pub struct Marca {
    /// The logo, PNG as the service re-encoded it.
    pub logo_png: Option<Vec<u8>>,
    /// `#RRGGBB`.
    pub pdf_color_primario: Option<String>,
    /// Printed at the foot of every page.
    pub pdf_nota_pie: Option<String>,
    /// Bumped by every change.
    pub marca_version: i64,
}

/// The branding of company `empresa_id`.
pub async fn leer(conn: &mut impl AsExec, empresa_id: &EmpresaId) -> crate::DbResult<Option<Marca>> {
    sql!(
        fetch_optional * conn,
        Marca,
        "SELECT logo_png, pdf_color_primario, pdf_nota_pie, marca_version FROM empresas WHERE id = $1",
        empresa_id
    )
}

/// Sets (or removes, `None`) the logo and bumps the version.
pub async fn guardar_logo(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    png: Option<&[u8]>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE empresas SET logo_png = $1, marca_version = marca_version + 1, updated_at = $2 WHERE id = $3",
        png,
        now,
        empresa_id
    )
}

/// Sets the color and the footer note and bumps the version.
pub async fn guardar_pdf(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    color: Option<&str>,
    nota_pie: Option<&str>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE empresas SET pdf_color_primario = $1, pdf_nota_pie = $2, marca_version = marca_version + 1, \
         updated_at = $3 WHERE id = $4",
        color,
        nota_pie,
        now,
        empresa_id
    )
}

/// The branding version the stored PDF at `path` was rendered with (`None`: never recorded).
pub async fn version_de_pdf(conn: &mut impl AsExec, path: &str) -> crate::DbResult<Option<i64>> {
    sql!(scalar_optional * conn, i64, "SELECT marca_version FROM pdf_marcas WHERE path = $1", path)
}

/// Records that the PDF at `path` was rendered with `version`.
pub async fn registrar_pdf(conn: &mut impl AsExec, path: &str, version: i64) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "INSERT INTO pdf_marcas (path, marca_version) VALUES ($1, $2) \
         ON CONFLICT (path) DO UPDATE SET marca_version = excluded.marca_version",
        path,
        version
    )
}

/// The printed notes of the company's CFDI `cfdi_id`.
pub async fn notas(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
) -> crate::DbResult<Option<String>> {
    let notas = sql!(
        scalar_optional * conn,
        Option<String>,
        "SELECT notas FROM cfdis WHERE id = $1 AND empresa_id = $2",
        cfdi_id,
        empresa_id
    )?;
    Ok(notas.flatten())
}

/// Writes the printed notes of the company's CFDI `cfdi_id`.
pub async fn guardar_notas(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    notas: &str,
) -> crate::DbResult<u64> {
    sql!(execute * conn, "UPDATE cfdis SET notas = $1 WHERE id = $2 AND empresa_id = $3", notas, cfdi_id, empresa_id)
}
