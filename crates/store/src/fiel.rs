//! The `fiel` table: each company's FIEL (e.firma), encrypted with the master key, for SAT's
//! descarga masiva.

use crate::ids::EmpresaId;
use time::OffsetDateTime;

use crate::{DbConn, DbResult, Tx, sql};

/// The stored FIEL's public facts (never the key).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct FielGuardada {
    /// `NoCertificado`.
    pub no_certificado: String,
    /// RFC of the certificate.
    pub rfc: String,
    /// End of validity.
    pub vigencia_fin: OffsetDateTime,
}

/// A stored FIEL, sealed.
#[derive(sqlx::FromRow)]
pub struct FielRow {
    /// Id (changes with every upload).
    pub id: String,
    /// RFC of the certificate.
    pub rfc: String,
    /// End of validity.
    pub vigencia_fin: OffsetDateTime,
    /// The certificate, DER.
    pub cer: Vec<u8>,
    /// The private key, sealed.
    pub key_enc: Vec<u8>,
    /// Its password, sealed.
    pub password_enc: Vec<u8>,
}

/// A FIEL to store.
pub struct NewFiel<'a> {
    /// Id.
    pub id: &'a str,
    /// The company.
    pub empresa_id: &'a EmpresaId,
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

/// Stores `fiel` as the company's only FIEL.
pub async fn replace(tx: &mut Tx, fiel: NewFiel<'_>, now: OffsetDateTime) -> DbResult<()> {
    sql!(execute * tx, "DELETE FROM fiel WHERE empresa_id = $1", fiel.empresa_id)?;
    sql!(
        execute * tx,
        "INSERT INTO fiel (id, empresa_id, no_certificado, rfc, vigencia_inicio, vigencia_fin, cer, key_enc, password_enc, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
        fiel.id,
        fiel.empresa_id,
        fiel.no_certificado,
        fiel.rfc,
        fiel.vigencia_inicio,
        fiel.vigencia_fin,
        fiel.cer,
        fiel.key_enc,
        fiel.password_enc,
        now
    )?;
    Ok(())
}

/// The company's FIEL's public facts.
pub async fn guardada(conn: &mut DbConn, empresa_id: &EmpresaId) -> DbResult<Option<FielGuardada>> {
    sql!(
        fetch_optional * conn,
        FielGuardada,
        "SELECT no_certificado, rfc, vigencia_fin FROM fiel WHERE empresa_id = $1",
        empresa_id
    )
}

/// The company's FIEL, sealed.
pub async fn get(conn: &mut DbConn, empresa_id: &EmpresaId) -> DbResult<Option<FielRow>> {
    sql!(
        fetch_optional * conn,
        FielRow,
        "SELECT id, rfc, vigencia_fin, cer, key_enc, password_enc FROM fiel WHERE empresa_id = $1",
        empresa_id
    )
}
