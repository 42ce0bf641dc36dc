//! The `empresas` table, read together with the caller's membership (a company is only ever
//! read through a user who belongs to it), and the issuing company as stamping needs it.

use crate::ids::{EmpresaId, UserId};
use time::OffsetDateTime;

use crate::sql;
use crate::{DbConn, Money, Tx};

/// A company as its member sees it.
#[derive(sqlx::FromRow)]
pub struct EmpresaRow {
    /// Id.
    pub id: EmpresaId,
    /// RFC.
    pub rfc: String,
    /// Legal name.
    pub razon_social: String,
    /// c_RegimenFiscal.
    pub regimen_fiscal: String,
    /// Postal code of the issuing place.
    pub codigo_postal: String,
    /// Trade name.
    pub nombre_comercial: Option<String>,
    /// IMSS employer registration.
    pub registro_patronal: Option<String>,
    /// Mode.
    pub sandbox: bool,
    /// Default serie of invoices.
    pub serie_predeterminada: String,
    /// Serie of payment CFDI (`P` unless changed).
    pub serie_pagos: String,
    /// The counter of the default serie in the company's mode.
    pub folio_actual: i64,
    /// The member's role.
    pub role: String,
    /// Created.
    pub created_at: OffsetDateTime,
    /// End of validity of the uploaded CSD (a generated sandbox CSD does not count).
    pub csd_vigencia_fin: Option<OffsetDateTime>,
    /// Días de aguinaldo (LFT Art. 87, at least 15).
    pub dias_aguinaldo: i64,
    /// ISR method of extraordinary payments: ART96 or RLISR174.
    pub metodo_isr_extraordinario: String,
    /// Riesgo de trabajo premium in percent (0.5–15), when set.
    pub prima_riesgo: Option<Money>,
    /// E-mail: the sender's display name.
    pub correo_nombre_remitente: Option<String>,
    /// E-mail: the Reply-To address.
    pub correo_responder_a: Option<String>,
    /// E-mail: queue the e-mail of every stamp.
    pub correo_enviar_al_timbrar: bool,
    /// PDF: the primary color, `#RRGGBB`.
    pub pdf_color_primario: Option<String>,
    /// PDF: the footer note.
    pub pdf_nota_pie: Option<String>,
    /// PDF: whether a logo is stored.
    pub tiene_logo: bool,
}

/// The company columns with the caller's role ($1 is the user).
macro_rules! select_empresa {
    () => {
        "SELECT e.id, e.rfc, e.razon_social, e.regimen_fiscal, e.codigo_postal, e.nombre_comercial, \
     e.registro_patronal, e.sandbox, e.serie_predeterminada, e.serie_pagos, m.role, e.created_at, \
     e.dias_aguinaldo, e.metodo_isr_extraordinario, e.prima_riesgo, \
     e.correo_nombre_remitente, e.correo_responder_a, e.correo_enviar_al_timbrar, \
     e.pdf_color_primario, e.pdf_nota_pie, (e.logo_png IS NOT NULL) AS tiene_logo, \
     COALESCE((SELECT f.ultimo FROM folios f WHERE f.empresa_id = e.id AND f.sandbox = e.sandbox \
       AND f.serie = e.serie_predeterminada), 0) AS folio_actual, \
     c.vigencia_fin AS csd_vigencia_fin \
     FROM empresas e JOIN memberships m ON m.empresa_id = e.id AND m.user_id = $1 \
     LEFT JOIN certificados c ON c.empresa_id = e.id AND c.kind = 'CSD' AND c.origen = 'UPLOAD' WHERE e.deleted_at IS NULL"
    };
}

/// The companies `user_id` belongs to, oldest first.
pub async fn de_usuario(conn: &mut DbConn, user_id: &UserId) -> crate::DbResult<Vec<EmpresaRow>> {
    sql!(fetch_all * conn, EmpresaRow, concat!(select_empresa!(), " ORDER BY e.created_at, e.id"), user_id)
}

/// Company `id`, when `user_id` belongs to it.
pub async fn leer(conn: &mut DbConn, user_id: &UserId, id: &EmpresaId) -> crate::DbResult<Option<EmpresaRow>> {
    sql!(fetch_optional * conn, EmpresaRow, concat!(select_empresa!(), " AND e.id = $2"), user_id, id)
}

/// Whether `user_id` already belongs to a company with `rfc` (RFCs are unique per account).
pub async fn rfc_tomado(tx: &mut Tx, user_id: &UserId, rfc: &str) -> crate::DbResult<bool> {
    let existing = sql!(
        scalar_optional * tx,
        String,
        "SELECT e.id FROM empresas e JOIN memberships m ON m.empresa_id = e.id \
         WHERE m.user_id = $1 AND e.rfc = $2 AND e.deleted_at IS NULL",
        user_id,
        rfc
    )?;
    Ok(existing.is_some())
}

/// A company's editable fields.
pub struct Datos<'a> {
    /// Legal name.
    pub razon_social: &'a str,
    /// c_RegimenFiscal.
    pub regimen_fiscal: &'a str,
    /// Postal code.
    pub codigo_postal: &'a str,
    /// Trade name.
    pub nombre_comercial: Option<&'a str>,
    /// IMSS employer registration.
    pub registro_patronal: Option<&'a str>,
    /// Mode.
    pub sandbox: bool,
    /// Default serie.
    pub serie_predeterminada: &'a str,
    /// Serie of payment CFDI.
    pub serie_pagos: &'a str,
    /// Días de aguinaldo.
    pub dias_aguinaldo: i64,
    /// ART96 or RLISR174.
    pub metodo_isr_extraordinario: &'a str,
    /// Riesgo de trabajo premium in percent.
    pub prima_riesgo: Option<Money>,
}

/// Creates company `id` with `owner` as its PROPIETARIO (a unique violation means the owner
/// already has that RFC).
pub async fn crear(
    tx: &mut Tx,
    id: &EmpresaId,
    owner: &UserId,
    rfc: &str,
    datos: &Datos<'_>,
    propietario: &str,
    now: OffsetDateTime,
) -> crate::DbResult<()> {
    sql!(
        execute * tx,
        "INSERT INTO empresas (id, owner_user_id, rfc, razon_social, regimen_fiscal, codigo_postal, nombre_comercial, \
         registro_patronal, sandbox, serie_predeterminada, serie_pagos, created_at, updated_at, dias_aguinaldo, \
         metodo_isr_extraordinario, prima_riesgo) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $12, $11, $11, $13, $14, $15)",
        id,
        owner,
        rfc,
        datos.razon_social,
        datos.regimen_fiscal,
        datos.codigo_postal,
        datos.nombre_comercial,
        datos.registro_patronal,
        datos.sandbox,
        datos.serie_predeterminada,
        now,
        datos.serie_pagos,
        datos.dias_aguinaldo,
        datos.metodo_isr_extraordinario,
        datos.prima_riesgo
    )?;
    sql!(
        execute * tx,
        "INSERT INTO memberships (empresa_id, user_id, role, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
        id,
        owner,
        propietario,
        now
    )?;
    Ok(())
}

/// Replaces company `id`'s editable fields.
pub async fn actualizar(
    conn: &mut DbConn,
    id: &EmpresaId,
    datos: &Datos<'_>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE empresas SET razon_social = $1, regimen_fiscal = $2, codigo_postal = $3, serie_predeterminada = $4, \
         registro_patronal = $5, nombre_comercial = $6, sandbox = $7, updated_at = $8, serie_pagos = $10, \
         dias_aguinaldo = $11, metodo_isr_extraordinario = $12, prima_riesgo = $13 WHERE id = $9",
        datos.razon_social,
        datos.regimen_fiscal,
        datos.codigo_postal,
        datos.serie_predeterminada,
        datos.registro_patronal,
        datos.nombre_comercial,
        datos.sandbox,
        now,
        id,
        datos.serie_pagos,
        datos.dias_aguinaldo,
        datos.metodo_isr_extraordinario,
        datos.prima_riesgo
    )
}

/// Marks company `id` deleted.
pub async fn borrar(conn: &mut DbConn, id: &EmpresaId, now: OffsetDateTime) -> crate::DbResult<u64> {
    sql!(execute * conn, "UPDATE empresas SET deleted_at = $1, updated_at = $1 WHERE id = $2", now, id)
}

/// The company's RFC.
pub async fn rfc(conn: &mut DbConn, id: &EmpresaId) -> crate::DbResult<String> {
    sql!(scalar_one * conn, String, "SELECT rfc FROM empresas WHERE id = $1", id)
}

/// The serie company `id` stamps payments with.
pub async fn serie_pagos(conn: &mut DbConn, id: &EmpresaId) -> crate::DbResult<String> {
    sql!(scalar_one * conn, String, "SELECT serie_pagos FROM empresas WHERE id = $1", id)
}

/// The issuing company as stamping needs it.
pub async fn emisora(conn: &mut DbConn, id: &EmpresaId) -> crate::DbResult<EmpresaEmisora> {
    sql!(
        fetch_one * conn,
        EmpresaEmisora,
        "SELECT id, rfc, razon_social, regimen_fiscal, codigo_postal, serie_predeterminada, sandbox FROM empresas WHERE id = $1",
        id
    )
}

/// The company's employer registration (registro patronal), when it has one.
pub async fn registro_patronal(conn: &mut DbConn, id: &EmpresaId) -> crate::DbResult<Option<String>> {
    Ok(sql!(scalar_optional * conn, Option<String>, "SELECT registro_patronal FROM empresas WHERE id = $1", id)?
        .flatten())
}

/// The company's payroll settings for the year's extraordinary payments and IMSS dues.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AjustesNomina {
    /// Días de aguinaldo.
    pub dias_aguinaldo: i64,
    /// ART96 or RLISR174.
    pub metodo_isr_extraordinario: String,
    /// Riesgo de trabajo premium in percent, when set.
    pub prima_riesgo: Option<Money>,
    /// IMSS employer registration.
    pub registro_patronal: Option<String>,
}

/// Company `id`'s payroll settings.
pub async fn ajustes_nomina(conn: &mut impl crate::AsExec, id: &EmpresaId) -> crate::DbResult<AjustesNomina> {
    sql!(
        fetch_one * conn,
        AjustesNomina,
        "SELECT dias_aguinaldo, metodo_isr_extraordinario, prima_riesgo, registro_patronal FROM empresas WHERE id = $1",
        id
    )
}

/// The issuing company, as stamping needs it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct EmpresaEmisora {
    /// Id.
    pub id: EmpresaId,
    /// RFC.
    pub rfc: String,
    /// Legal name.
    pub razon_social: String,
    /// c_RegimenFiscal.
    pub regimen_fiscal: String,
    /// Postal code (LugarExpedicion).
    pub codigo_postal: String,
    /// Default series.
    pub serie_predeterminada: String,
    /// Mode.
    pub sandbox: bool,
}

/// Sandbox companies of the installation with RFC `rfc` (not deleted): the receivers a sandbox
/// cancellation asks, with their legal names.
pub async fn sandbox_por_rfc(tx: &mut Tx, rfc: &str) -> crate::DbResult<Vec<String>> {
    sql!(
        fetch_all * tx,
        (String,),
        "SELECT id FROM empresas WHERE rfc = $1 AND sandbox = TRUE AND deleted_at IS NULL ORDER BY id",
        rfc
    )
    .map(|filas| filas.into_iter().map(|(id,)| id).collect())
}

/// Live companies (not deleted) with an uploaded CSD: the receivers whose pending
/// cancellation requests the poll asks the PAC about, with their RFC.
pub async fn live_con_csd(conn: &mut DbConn) -> crate::DbResult<Vec<(String, String)>> {
    sql!(
        fetch_all * conn,
        (String, String),
        "SELECT e.id, e.rfc FROM empresas e JOIN certificados c ON c.empresa_id = e.id AND c.kind = 'CSD' \
         AND c.origen = 'UPLOAD' WHERE e.sandbox = FALSE AND e.deleted_at IS NULL ORDER BY e.id"
    )
}
