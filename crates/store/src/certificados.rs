//! The `certificados` table (each company's CSD, encrypted with the master key) and
//! `sandbox_pac` (the installation's sandbox stamping credential).

use crate::ids::EmpresaId;
use time::OffsetDateTime;

use crate::{DbConn, DbResult, Tx, sql};

/// A stored CSD, sealed.
#[derive(sqlx::FromRow)]
pub struct CertRow {
    /// Id (changes with every upload).
    pub id: String,
    /// UPLOAD or SANDBOX (generated).
    pub origen: String,
    /// End of validity.
    pub vigencia_fin: OffsetDateTime,
    /// The certificate, DER.
    pub cer: Vec<u8>,
    /// The private key, sealed.
    pub key_enc: Vec<u8>,
    /// Its password, sealed.
    pub password_enc: Vec<u8>,
}

/// A CSD to store.
pub struct NewCsd<'a> {
    /// Id.
    pub id: &'a str,
    /// The company.
    pub empresa_id: &'a EmpresaId,
    /// UPLOAD or SANDBOX.
    pub origen: &'a str,
    /// `NoCertificado`.
    pub no_certificado: &'a str,
    /// RFC of the certificate.
    pub rfc: &'a str,
    /// Start of validity.
    pub vigencia_inicio: OffsetDateTime,
    /// End of validity.
    pub vigencia_fin: OffsetDateTime,
    /// The certificate, DER.
    pub cer: Vec<u8>,
    /// The private key, sealed.
    pub key_enc: Vec<u8>,
    /// Its password, sealed.
    pub password_enc: Vec<u8>,
}

/// Stores `csd` as the company's CSD. An upload replaces whatever was there; a generated
/// sandbox CSD replaces only an expired generated one (the unique index refuses it otherwise).
pub async fn replace_csd(tx: &mut Tx, csd: NewCsd<'_>, now: OffsetDateTime) -> DbResult<()> {
    sql!(
        execute * tx,
        "DELETE FROM certificados WHERE empresa_id = $1 AND kind = 'CSD' AND ($2 = 'UPLOAD' OR (origen = 'SANDBOX' AND vigencia_fin <= $3))",
        csd.empresa_id,
        csd.origen,
        now
    )?;
    sql!(
        execute * tx,
        "INSERT INTO certificados (id, empresa_id, kind, origen, no_certificado, rfc, vigencia_inicio, vigencia_fin, cer, key_enc, password_enc, created_at) \
         VALUES ($1, $2, 'CSD', $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        csd.id,
        csd.empresa_id,
        csd.origen,
        csd.no_certificado,
        csd.rfc,
        csd.vigencia_inicio,
        csd.vigencia_fin,
        csd.cer,
        csd.key_enc,
        csd.password_enc,
        now
    )?;
    Ok(())
}

/// The stored certificate `id`.
pub async fn get(conn: &mut DbConn, id: &str) -> DbResult<Option<CertRow>> {
    sql!(
        fetch_optional * conn,
        CertRow,
        "SELECT id, origen, vigencia_fin, cer, key_enc, password_enc FROM certificados WHERE id = $1",
        id
    )
}

/// The installation's sandbox stamping credential, sealed.
#[derive(sqlx::FromRow)]
pub struct SandboxPacRow {
    /// The certificate, DER.
    pub cer: Vec<u8>,
    /// The private key, sealed.
    pub key_enc: Vec<u8>,
    /// Its password, sealed.
    pub password_enc: Vec<u8>,
}

/// The sandbox credential, once generated.
pub async fn sandbox_pac(conn: &mut DbConn) -> DbResult<Option<SandboxPacRow>> {
    sql!(
        fetch_optional * conn,
        SandboxPacRow,
        "SELECT cer, key_enc, password_enc FROM sandbox_pac WHERE id = 'default'"
    )
}

/// Stores the generated sandbox credential; a duplicate means another process stored one
/// first (read it back with [`sandbox_pac`]).
pub async fn insert_sandbox_pac(conn: &mut DbConn, row: &SandboxPacRow, now: OffsetDateTime) -> DbResult<u64> {
    sql!(
        execute * conn,
        "INSERT INTO sandbox_pac (id, cer, key_enc, password_enc, created_at) VALUES ('default', $1, $2, $3, $4)",
        &row.cer,
        &row.key_enc,
        &row.password_enc,
        now
    )
}

/// The id of the company's CSD, if it has one.
pub async fn csd_id(conn: &mut DbConn, empresa_id: &EmpresaId) -> DbResult<Option<String>> {
    sql!(
        scalar_optional * conn,
        String,
        "SELECT id FROM certificados WHERE empresa_id = $1 AND kind = 'CSD'",
        empresa_id
    )
}

/// An uploaded CSD about to expire.
#[derive(sqlx::FromRow)]
pub struct PorExpirar {
    /// Id.
    pub id: String,
    /// The company.
    pub empresa_id: EmpresaId,
    /// `NoCertificado`.
    pub no_certificado: String,
    /// RFC of the certificate.
    pub rfc: String,
    /// End of validity.
    pub vigencia_fin: OffsetDateTime,
}

/// The uploaded CSDs of live companies that expire after `now` and by `limite` and were not
/// announced yet, soonest first.
pub async fn por_expirar(conn: &mut DbConn, now: OffsetDateTime, limite: OffsetDateTime) -> DbResult<Vec<PorExpirar>> {
    sql!(
        fetch_all * conn,
        PorExpirar,
        "SELECT c.id, c.empresa_id, c.no_certificado, c.rfc, c.vigencia_fin FROM certificados c \
         JOIN empresas e ON e.id = c.empresa_id \
         WHERE c.kind = 'CSD' AND c.origen = 'UPLOAD' AND c.aviso_por_expirar_at IS NULL \
         AND c.vigencia_fin > $1 AND c.vigencia_fin <= $2 AND e.deleted_at IS NULL \
         ORDER BY c.vigencia_fin",
        now,
        limite
    )
}

/// Marks certificate `id` announced; 0 rows when another worker did first.
pub async fn marcar_aviso(tx: &mut Tx, id: &str, now: OffsetDateTime) -> DbResult<u64> {
    sql!(
        execute * tx,
        "UPDATE certificados SET aviso_por_expirar_at = $1 WHERE id = $2 AND aviso_por_expirar_at IS NULL",
        now,
        id
    )
}
