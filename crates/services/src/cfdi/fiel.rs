//! The company's FIEL (e.firma): checking an upload, keeping the key and password encrypted at
//! rest (table `fiel`, one per company), its status, and opening it for SAT's descarga masiva
//! with the codes SPEC.md gives (MISSING_FIEL, FIEL_EXPIRED, FIEL_RFC_MISMATCH, FIEL_DECRYPT).

use timbra_credentials::{CertificateKind, Credential};
use timbra_store::ids::EmpresaId;

use crate::cfdi::credenciales::{ReglasSubida, Subida, rfc3339};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use timbra_store::ids;

pub use timbra_store::fiel::FielGuardada;
use timbra_store::fiel::{self as fiel_db, FielRow, NewFiel};

/// The FIEL route's rules (`/fiel`): missing fields FIEL_001, not a certificate FIEL_002, a
/// CSD FIEL_005, another RFC FIEL_004, expired FIEL_003, then key, password and pair FIEL_002.
pub const SUBIDA_FIEL: ReglasSubida = ReglasSubida {
    kind: CertificateKind::Fiel,
    nombre: "FIEL",
    faltante: Code::Fiel001,
    invalido: Code::Fiel002,
    vencido: Code::Fiel003,
    otro_rfc: Code::Fiel004,
    otro_tipo: Code::Fiel005,
    tipo_equivocado: "this is a CSD (Certificado de Sello Digital), not a FIEL: SAT's descarga masiva only accepts \
                      the e.firma; upload the CSD at /api/empresas/{id}/certificados instead",
};

/// Stores a checked FIEL for a company, replacing the previous one.
pub async fn guardar(app: &AppContext, empresa_id: &EmpresaId, subida: &Subida) -> ApiResult<String> {
    let fiel999 = |context: &str, error: &dyn std::fmt::Display| {
        tracing::error!(error.context = context, error.message = %error, "fiel not stored");
        ApiError::new(Code::Fiel999, "internal error processing the FIEL; it was logged, retry later")
    };
    let master = app.cfdi.master().map_err(|e| fiel999("master key", &e.message))?;
    let id = ids::new_id();
    let seal =
        |bytes: &[u8], what: &str| master.seal(bytes, &format!("fiel/{id}/{what}")).map_err(|e| fiel999("seal", &e));
    let key_enc = seal(&subida.key, "key")?;
    let password_enc = seal(&subida.password, "password")?;
    let certificate = subida.credential.certificate();
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let fiel = NewFiel {
        id: &id,
        empresa_id,
        no_certificado: certificate.no_certificado(),
        rfc: certificate.rfc(),
        vigencia_inicio: certificate.not_before(),
        vigencia_fin: certificate.not_after(),
        cer: certificate.der().to_vec(),
        key_enc,
        password_enc,
    };
    fiel_db::replace(&mut tx, fiel, now).await?;
    tx.commit().await?;
    tracing::info!(empresa.id = %empresa_id, fiel.no_certificado = %certificate.no_certificado(), "fiel stored");
    Ok(id)
}

/// The stored FIEL's public facts, if any.
/// Checks and stores a FIEL uploaded for company `empresa_id` (authorize first: empresa:csd),
/// replacing the one it had: FIEL_001 to FIEL_005 for what is wrong with it.
pub async fn subir(
    app: &AppContext,
    empresa_id: &EmpresaId,
    cer_base64: Option<String>,
    key_base64: Option<String>,
    password: Option<String>,
) -> ApiResult<crate::cfdi::credenciales::Guardado> {
    let subida = crate::cfdi::credenciales::revisar_para_empresa(
        app,
        empresa_id,
        &SUBIDA_FIEL,
        cer_base64,
        key_base64,
        password,
    )
    .await?;
    guardar(app, empresa_id, &subida).await?;
    Ok(crate::cfdi::credenciales::Guardado::de(&subida))
}

pub async fn guardada(app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<Option<FielGuardada>> {
    let mut conn = app.db.conn().await?;
    Ok(fiel_db::guardada(&mut conn, empresa_id).await?)
}

/// The stored FIEL checked for use, not opened yet (see [`FielRevisada::abrir`]).
pub struct FielRevisada {
    /// The stored FIEL's id (changes with every upload).
    pub id: String,
    row: FielRow,
}

/// The company's FIEL checked for SAT's descarga masiva: MISSING_FIEL when none is stored,
/// FIEL_EXPIRED when it is no longer valid, FIEL_RFC_MISMATCH when it is not `empresa_rfc`'s
/// (the company's RFC changed after the upload).
pub async fn revisar(app: &AppContext, empresa_id: &EmpresaId, empresa_rfc: &str) -> ApiResult<FielRevisada> {
    let mut conn = app.db.conn().await?;
    let row = fiel_db::get(&mut conn, empresa_id).await?;
    drop(conn);
    let Some(row) = row else {
        return Err(ApiError::new(
            Code::MissingFiel,
            "this company has no FIEL: upload it at POST /api/empresas/{empresaId}/fiel",
        ));
    };
    let now = app.clock.now();
    if row.vigencia_fin <= now {
        return Err(ApiError::new(Code::FielExpired, format!("the FIEL expired on {}", rfc3339(row.vigencia_fin)))
            .with_details(serde_json::json!({ "vigenciaFin": rfc3339(row.vigencia_fin) })));
    }
    if row.rfc != empresa_rfc {
        return Err(ApiError::new(
            Code::FielRfcMismatch,
            format!("the stored FIEL belongs to RFC {}, this company's RFC is {empresa_rfc}", row.rfc),
        ));
    }
    Ok(FielRevisada { id: row.id.clone(), row })
}

impl FielRevisada {
    /// Decrypts the key and password and opens the FIEL: FIEL_DECRYPT when they cannot be
    /// opened (master key changed, data damaged).
    pub async fn abrir(self, app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<Credential> {
        let row = self.row;
        let decrypt = |what: &str, sealed: &[u8]| {
            app.cfdi
                .master()
                .ok()
                .and_then(|master| master.open(sealed, &format!("fiel/{}/{what}", row.id)).ok())
                .ok_or_else(|| {
                    tracing::error!(empresa.id = %empresa_id, "stored fiel cannot be decrypted");
                    ApiError::new(Code::FielDecrypt, "the stored FIEL cannot be decrypted; upload it again")
                })
        };
        let key = decrypt("key", &row.key_enc)?;
        let password = decrypt("password", &row.password_enc)?;
        let cer = row.cer;
        tokio::task::spawn_blocking(move || Credential::open(&cer, &key, &password))
            .await
            .map_err(|e| ApiError::internal("fiel open", e))?
            .map_err(|_| ApiError::new(Code::FielDecrypt, "the stored FIEL cannot be opened; upload it again"))
    }
}

/// The company's FIEL opened for SAT's descarga masiva ([`revisar`], then
/// [`FielRevisada::abrir`]): MISSING_FIEL, FIEL_EXPIRED, FIEL_RFC_MISMATCH, FIEL_DECRYPT.
pub async fn abrir(app: &AppContext, empresa_id: &EmpresaId, empresa_rfc: &str) -> ApiResult<Credential> {
    revisar(app, empresa_id, empresa_rfc).await?.abrir(app, empresa_id).await
}
