//! The `correos` table: each sending of a CFDI by e-mail (written with its `correo.enviar` job,
//! updated by every attempt), and the company's e-mail settings. Scoped by company.

use crate::ids::{CfdiId, EmpresaId};
use sqlx::FromRow;
use time::OffsetDateTime;

use crate::sql;
use crate::{AsExec, Tx};

/// One sending.
#[derive(Clone, Debug, FromRow)]
pub struct CorreoRow {
    /// Id (`envioId`).
    pub id: String,
    /// Its company.
    pub empresa_id: EmpresaId,
    /// The CFDI sent.
    pub cfdi_id: CfdiId,
    /// Its UUID as the API shows it.
    pub uuid: String,
    /// TIMBRADO (the CFDI with its files) or CANCELACION (the notice).
    pub motivo: String,
    /// The addresses, a JSON array.
    pub para: String,
    /// The copies, a JSON array.
    pub cc: String,
    /// PENDIENTE, ENVIADO or FALLIDO.
    pub estado: String,
    /// Attempts made.
    pub intentos: i64,
    /// The last attempt's error.
    pub ultimo_error: Option<String>,
    /// When the server accepted it.
    pub enviado_en: Option<OffsetDateTime>,
    /// Queued.
    pub created_at: OffsetDateTime,
}

const COLUMNS: &str = "SELECT id, empresa_id, cfdi_id, (SELECT c.uuid FROM cfdis c WHERE c.id = correos.cfdi_id) AS uuid, \
     motivo, para, cc, estado, intentos, ultimo_error, enviado_en, created_at FROM correos ";

/// A sending to write.
pub struct NuevoCorreo<'a> {
    /// Id.
    pub id: &'a str,
    /// Company.
    pub empresa_id: &'a EmpresaId,
    /// CFDI.
    pub cfdi_id: &'a CfdiId,
    /// TIMBRADO or CANCELACION.
    pub motivo: &'a str,
    /// JSON array.
    pub para: &'a str,
    /// JSON array.
    pub cc: &'a str,
}

/// Writes a PENDIENTE sending (in the transaction that enqueues its job).
pub async fn crear(tx: &mut Tx, correo: &NuevoCorreo<'_>, now: OffsetDateTime) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "INSERT INTO correos (id, empresa_id, cfdi_id, motivo, para, cc, estado, intentos, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, 'PENDIENTE', 0, $7, $7)",
        correo.id,
        correo.empresa_id,
        correo.cfdi_id,
        correo.motivo,
        correo.para,
        correo.cc,
        now
    )
}

/// Sending `id` (any company: the job reads it).
pub async fn leer(conn: &mut impl AsExec, id: &str) -> crate::DbResult<Option<CorreoRow>> {
    sql!(fetch_optional * conn, CorreoRow, sqlx::AssertSqlSafe(format!("{COLUMNS}WHERE id = $1")), id)
}

/// The sendings of the company's CFDI `cfdi_id`, oldest first.
pub async fn de_cfdi(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
) -> crate::DbResult<Vec<CorreoRow>> {
    sql!(
        fetch_all * conn,
        CorreoRow,
        sqlx::AssertSqlSafe(format!("{COLUMNS}WHERE empresa_id = $1 AND cfdi_id = $2 ORDER BY created_at, id")),
        empresa_id,
        cfdi_id
    )
}

/// Records an attempt: its state, count, error and, once sent, when.
pub async fn registrar(
    tx: &mut Tx,
    id: &str,
    estado: &str,
    intentos: i64,
    ultimo_error: Option<&str>,
    enviado_en: Option<OffsetDateTime>,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE correos SET estado = $1, intentos = $2, ultimo_error = $3, enviado_en = $4, updated_at = $5 WHERE id = $6",
        estado,
        intentos,
        ultimo_error,
        enviado_en,
        now,
        id
    )
}

/// The stored address of the customer of the company's CFDI `cfdi_id` (`clientes.email`).
pub async fn email_del_cliente(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
) -> crate::DbResult<Option<String>> {
    let found = sql!(
        scalar_optional * conn,
        Option<String>,
        "SELECT cl.email FROM cfdis c JOIN clientes cl ON cl.id = c.cliente_id AND cl.empresa_id = c.empresa_id \
         WHERE c.id = $1 AND c.empresa_id = $2",
        cfdi_id,
        empresa_id
    )?;
    Ok(found.flatten().filter(|email| !email.trim().is_empty()))
}

/// The stored address of the employee of the company's payroll receipt `cfdi_id`
/// (`empleados.email`, through the receipt that holds the CFDI).
pub async fn email_del_empleado(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
) -> crate::DbResult<Option<String>> {
    let found = sql!(
        scalar_optional * conn,
        Option<String>,
        "SELECT e.email FROM nomina_recibos r JOIN empleados e ON e.id = r.empleado_id AND e.empresa_id = r.empresa_id \
         WHERE r.cfdi_id = $1 AND r.empresa_id = $2",
        cfdi_id,
        empresa_id
    )?;
    Ok(found.flatten().filter(|email| !email.trim().is_empty()))
}

/// The addresses of the last sending of the CFDI with its files (a cancellation notice goes to
/// them), as JSON arrays `(para, cc)`.
pub async fn ultimo_envio(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
) -> crate::DbResult<Option<(String, String)>> {
    sql!(
        fetch_optional * conn,
        (String, String),
        "SELECT para, cc FROM correos WHERE empresa_id = $1 AND cfdi_id = $2 AND motivo = 'TIMBRADO' \
         ORDER BY created_at DESC, id DESC LIMIT 1",
        empresa_id,
        cfdi_id
    )
}

/// A company's e-mail settings.
#[derive(Clone, Debug, Default, FromRow)]
pub struct Ajustes {
    /// The sender's display name (default: the company's name).
    pub correo_nombre_remitente: Option<String>,
    /// The Reply-To address.
    pub correo_responder_a: Option<String>,
    /// Queue the e-mail of every stamp (default false).
    pub correo_enviar_al_timbrar: bool,
}

/// The settings of company `empresa_id`, with its name and RFC.
pub async fn ajustes(conn: &mut impl AsExec, empresa_id: &EmpresaId) -> crate::DbResult<Option<(Ajustes, String)>> {
    #[derive(FromRow)]
    struct Fila {
        correo_nombre_remitente: Option<String>,
        correo_responder_a: Option<String>,
        correo_enviar_al_timbrar: bool,
        razon_social: String,
    }
    let fila = sql!(
        fetch_optional * conn,
        Fila,
        "SELECT correo_nombre_remitente, correo_responder_a, correo_enviar_al_timbrar, razon_social FROM empresas \
         WHERE id = $1",
        empresa_id
    )?;
    Ok(fila.map(|f| {
        let ajustes = Ajustes {
            correo_nombre_remitente: f.correo_nombre_remitente,
            correo_responder_a: f.correo_responder_a,
            correo_enviar_al_timbrar: f.correo_enviar_al_timbrar,
        };
        (ajustes, f.razon_social)
    }))
}

/// Writes the settings of company `empresa_id`.
pub async fn guardar_ajustes(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    ajustes: &Ajustes,
    now: OffsetDateTime,
) -> crate::DbResult<u64> {
    sql!(
        execute * conn,
        "UPDATE empresas SET correo_nombre_remitente = $1, correo_responder_a = $2, correo_enviar_al_timbrar = $3, \
         updated_at = $4 WHERE id = $5",
        ajustes.correo_nombre_remitente.as_deref(),
        ajustes.correo_responder_a.as_deref(),
        ajustes.correo_enviar_al_timbrar,
        now,
        empresa_id
    )
}
