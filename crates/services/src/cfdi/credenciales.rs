//! CSDs of companies and the sandbox stamping credential: checking an upload, keeping the key
//! and password encrypted at rest, generating a test CSD for sandbox companies, and keeping
//! opened credentials in memory (decrypting a SAT key costs milliseconds; a seal far less).

use std::sync::Arc;
use timbra_store::ids::EmpresaId;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use timbra_credentials::testgen::{self, Options};
use timbra_credentials::{Certificate, CertificateKind, Credential, Error as CredError, PrivateKey};
use time::{Duration, OffsetDateTime};

use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use timbra_store::certificados::{self, SandboxPacRow};
use timbra_store::ids;

pub use super::csd::RFC_PAC_SANDBOX;

pub use super::csd::Csd;

/// An upload that passed every check, ready to store.
pub struct Subida {
    /// The checked pair.
    pub credential: Credential,
    /// The `.key` as sent (kept encrypted).
    pub key: Vec<u8>,
    /// The password as sent (kept encrypted).
    pub password: Vec<u8>,
}

/// What tells a CSD upload from a FIEL upload: the kind wanted, its error codes and words.
pub struct ReglasSubida {
    /// The certificate kind the route stores.
    pub kind: CertificateKind,
    /// Its name in messages (`CSD`, `FIEL`).
    pub nombre: &'static str,
    /// A field missing.
    pub faltante: Code,
    /// Not a certificate, a bad key, a wrong password or a key of another certificate.
    pub invalido: Code,
    /// Expired or not yet valid.
    pub vencido: Code,
    /// A certificate of another RFC.
    pub otro_rfc: Code,
    /// Another kind of certificate.
    pub otro_tipo: Code,
    /// The message when the other SAT kind (FIEL for CSD, CSD for FIEL) is sent.
    pub tipo_equivocado: &'static str,
}

/// The CSD route's rules (`/certificados`): missing fields CSD_001, not a certificate CSD_002,
/// a FIEL CSD_005, another RFC CSD_004, expired CSD_003, then key, password and pair CSD_002.
pub const SUBIDA_CSD: ReglasSubida = ReglasSubida {
    kind: CertificateKind::Csd,
    nombre: "CSD",
    faltante: Code::Csd001,
    invalido: Code::Csd002,
    vencido: Code::Csd003,
    otro_rfc: Code::Csd004,
    otro_tipo: Code::Csd005,
    tipo_equivocado: "this is a FIEL (e.firma), not a CSD: invoices are sealed with the CSD (Certificado de Sello \
                      Digital) that SAT issues through CertiSAT; upload the FIEL at /api/empresas/{id}/fiel instead",
};

/// Checks a certificate upload (CSD or FIEL, as `reglas` say) for `empresa_rfc` at `now`, in
/// the order a person fixes things: missing fields, not a certificate, the wrong kind, another
/// RFC, expired, then the key, the password and the pair.
pub fn revisar_par(
    reglas: &ReglasSubida,
    cer_base64: Option<&str>,
    key_base64: Option<&str>,
    password: Option<&str>,
    empresa_rfc: &str,
    now: OffsetDateTime,
) -> ApiResult<Subida> {
    let nombre = reglas.nombre;
    let mut missing = Vec::new();
    for (field, value) in [("cerBase64", cer_base64), ("keyBase64", key_base64), ("password", password)] {
        if value.is_none_or(|v| v.trim().is_empty()) {
            missing.push(FieldProblem::new(field, format!("{field} is required")));
        }
    }
    if !missing.is_empty() {
        return Err(ApiError::fields(reglas.faltante, missing));
    }
    let decode = |field: &str, text: &str| {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        STANDARD.decode(compact).map_err(|_| {
            ApiError::fields(reglas.invalido, vec![FieldProblem::new(field, format!("{field} is not valid base64"))])
        })
    };
    let cer = decode("cerBase64", cer_base64.unwrap_or_default())?;
    let key = decode("keyBase64", key_base64.unwrap_or_default())?;
    let password = password.unwrap_or_default().as_bytes().to_vec();
    let certificate = Certificate::from_bytes(&cer).map_err(|error| {
        ApiError::new(reglas.invalido, format!("cerBase64 is not a SAT certificate (.cer): {error}"))
    })?;
    match certificate.kind() {
        kind if kind == reglas.kind => {}
        CertificateKind::Csd | CertificateKind::Fiel => {
            return Err(ApiError::new(reglas.otro_tipo, reglas.tipo_equivocado));
        }
        other => {
            return Err(ApiError::new(
                reglas.otro_tipo,
                format!("the certificate is a {other} certificate, not a {nombre}"),
            ));
        }
    }
    if certificate.rfc() != empresa_rfc {
        return Err(ApiError::new(
            reglas.otro_rfc,
            format!("the certificate belongs to RFC {}, this company's RFC is {empresa_rfc}", certificate.rfc()),
        )
        .with_details(serde_json::json!({ "certificateRfc": certificate.rfc(), "empresaRfc": empresa_rfc })));
    }
    match certificate.check_valid_at(now) {
        Ok(()) => {}
        Err(CredError::Expired { not_after }) => {
            return Err(ApiError::new(
                reglas.vencido,
                format!("the {nombre} expired on {not_after}; request a new one from SAT"),
            )
            .with_details(serde_json::json!({ "vigenciaFin": rfc3339(not_after) })));
        }
        Err(error) => return Err(ApiError::new(reglas.vencido, format!("the {nombre} is not valid now: {error}"))),
    }
    let private = PrivateKey::from_bytes(&key, &password).map_err(|error| match error {
        CredError::WrongPassword => ApiError::new(reglas.invalido, "wrong password for the .key"),
        other => ApiError::new(reglas.invalido, format!("keyBase64 is not a usable private key (.key): {other}")),
    })?;
    let credential = Credential::new(certificate, private).map_err(|_| {
        ApiError::new(reglas.invalido, "the .key does not belong to the .cer: send the pair SAT issued together")
    })?;
    Ok(Subida { credential, key, password })
}

/// [`revisar_par`] for a company of the database (its RFC, the app's clock), off the async
/// threads (decrypting a SAT key takes milliseconds).
pub async fn revisar_para_empresa(
    app: &AppContext,
    empresa_id: &EmpresaId,
    reglas: &'static ReglasSubida,
    cer_base64: Option<String>,
    key_base64: Option<String>,
    password: Option<String>,
) -> ApiResult<Subida> {
    let mut conn = app.db.conn().await?;
    let rfc = timbra_store::empresas::rfc(&mut conn, empresa_id).await?;
    drop(conn);
    let now = app.clock.now();
    tokio::task::spawn_blocking(move || {
        revisar_par(reglas, cer_base64.as_deref(), key_base64.as_deref(), password.as_deref(), &rfc, now)
    })
    .await
    .map_err(|e| ApiError::internal("certificate check", e))?
}

/// A certificate just stored: its number and the end of its validity.
#[derive(Clone, Debug)]
pub struct Guardado {
    /// `NoCertificado`.
    pub no_certificado: String,
    /// End of validity.
    pub vigencia_fin: OffsetDateTime,
}

impl Guardado {
    /// What `subida` stored.
    pub fn de(subida: &Subida) -> Self {
        let certificate = subida.credential.certificate();
        Self { no_certificado: certificate.no_certificado().to_owned(), vigencia_fin: certificate.not_after() }
    }
}

/// Checks and stores a CSD uploaded for company `empresa_id` (authorize first: empresa:csd),
/// replacing the one it had: CSD_001 to CSD_005 for what is wrong with it.
pub async fn subir_csd(
    app: &AppContext,
    empresa_id: &EmpresaId,
    cer_base64: Option<String>,
    key_base64: Option<String>,
    password: Option<String>,
) -> ApiResult<Guardado> {
    let subida = revisar_para_empresa(app, empresa_id, &SUBIDA_CSD, cer_base64, key_base64, password).await?;
    guardar(app, empresa_id, "UPLOAD", &subida).await?;
    Ok(Guardado::de(&subida))
}

pub use super::rfc3339;

/// Stores a checked CSD for a company, replacing its previous one (uploaded or generated).
pub async fn guardar(app: &AppContext, empresa_id: &EmpresaId, origen: &str, subida: &Subida) -> ApiResult<String> {
    let master = app.cfdi.master()?;
    let id = ids::new_id();
    let key_enc =
        master.seal(&subida.key, &format!("certificados/{id}/key")).map_err(|e| ApiError::internal("seal", e))?;
    let password_enc = master
        .seal(&subida.password, &format!("certificados/{id}/password"))
        .map_err(|e| ApiError::internal("seal", e))?;
    let certificate = subida.credential.certificate();
    let mut tx = app.db.begin().await?;
    // An upload replaces whatever was there; a generated sandbox CSD replaces only an expired
    // generated one (the unique index refuses it otherwise).
    let csd = certificados::NewCsd {
        id: &id,
        empresa_id,
        origen,
        no_certificado: certificate.no_certificado(),
        rfc: certificate.rfc(),
        vigencia_inicio: certificate.not_before(),
        vigencia_fin: certificate.not_after(),
        cer: certificate.der().to_vec(),
        key_enc,
        password_enc,
    };
    certificados::replace_csd(&mut tx, csd, app.clock.now()).await?;
    tx.commit().await?;
    // Stamps here and on other instances read the company's CSD id again (`cfdi::contexto`).
    crate::auth::cache::changed(&app.db, &app.auth_cache).await;
    Ok(id)
}

/// The company's stored CSD, opened (from the cache when the stored one is the cached one).
pub async fn csd_activo(app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<Option<Arc<Csd>>> {
    let Some(id) = super::contexto::csd_id(app, empresa_id).await? else { return Ok(None) };
    if let Ok(cache) = app.cfdi.csd_cache.lock()
        && let Some(csd) = cache.get(empresa_id.as_str())
        && csd.id == id
    {
        return Ok(Some(csd.clone()));
    }
    let mut conn = app.db.conn().await?;
    let row = certificados::get(&mut conn, &id).await?;
    drop(conn);
    let Some(row) = row else { return Ok(None) };
    let master = app.cfdi.master()?;
    let key = master
        .open(&row.key_enc, &format!("certificados/{}/key", row.id))
        .map_err(|e| ApiError::internal("csd key", e))?;
    let password = master
        .open(&row.password_enc, &format!("certificados/{}/password", row.id))
        .map_err(|e| ApiError::internal("csd password", e))?;
    let credential = tokio::task::spawn_blocking(move || Credential::open(&row.cer, &key, &password))
        .await
        .map_err(|e| ApiError::internal("csd open", e))?
        .map_err(|e| ApiError::internal("stored csd", e))?;
    let csd = Arc::new(Csd { id: row.id, origen: row.origen, vigencia_fin: row.vigencia_fin, credential });
    if let Ok(mut cache) = app.cfdi.csd_cache.lock() {
        cache.insert(empresa_id.as_str().to_owned(), csd.clone());
    }
    Ok(Some(csd))
}

/// The CSD a sandbox company seals with: its uploaded one, else a test CSD for its RFC made
/// once (valid four years) and stored like an upload, so the whole seal path always runs.
pub async fn csd_sandbox(app: &AppContext, empresa_id: &EmpresaId, rfc: &str, nombre: &str) -> ApiResult<Arc<Csd>> {
    let now = app.clock.now();
    if let Some(csd) = csd_activo(app, empresa_id).await?
        && (csd.vigencia_fin > now || csd.origen != "SANDBOX")
    {
        return Ok(csd);
    }
    // One generation at a time in this process: concurrent first stamps wait for it.
    let _generating = app.cfdi.sandbox_csd_lock.lock().await;
    super::contexto::olvidar_csd(app, empresa_id);
    if let Some(csd) = csd_activo(app, empresa_id).await?
        && (csd.vigencia_fin > now || csd.origen != "SANDBOX")
    {
        return Ok(csd);
    }
    let options = Options::csd(rfc, nombre, now - Duration::days(1), now + Duration::days(4 * 365));
    let generated = tokio::task::spawn_blocking(move || testgen::generate(&options))
        .await
        .map_err(|e| ApiError::internal("testgen", e))?
        .map_err(|e| ApiError::internal("testgen", e))?;
    let credential = generated.credential().map_err(|e| ApiError::internal("testgen", e))?;
    let subida = Subida { credential, key: generated.key_der_encrypted, password: generated.password };
    // Another instance may win the race (unique index): its CSD is read below.
    if let Err(error) = guardar(app, empresa_id, "SANDBOX", &subida).await {
        tracing::debug!(error.message = %error.message, "sandbox CSD stored by another instance");
    }
    super::contexto::olvidar_csd(app, empresa_id);
    csd_activo(app, empresa_id).await?.ok_or_else(|| ApiError::internal("sandbox csd", "not stored"))
}

/// The installation's sandbox stamping credential: generated once, kept in the database
/// (encrypted like a CSD) so every instance signs with the same certificate.
pub async fn pac_sandbox(app: &AppContext) -> ApiResult<Arc<Credential>> {
    app.cfdi.sandbox_pac.get_or_try_init(|| async { cargar_pac_sandbox(app).await.map(Arc::new) }).await.cloned()
}

async fn cargar_pac_sandbox(app: &AppContext) -> ApiResult<Credential> {
    let master = app.cfdi.master()?;
    let mut conn = app.db.conn().await?;
    let row = certificados::sandbox_pac(&mut conn).await?;
    let row = match row {
        Some(row) => row,
        None => {
            let now = app.clock.now();
            let options = Options::csd(
                RFC_PAC_SANDBOX,
                "TIMBRA SANDBOX PAC",
                now - Duration::days(1),
                now + Duration::days(20 * 365),
            );
            let generated = tokio::task::spawn_blocking(move || testgen::generate(&options))
                .await
                .map_err(|e| ApiError::internal("testgen", e))?
                .map_err(|e| ApiError::internal("testgen", e))?;
            let key_enc = master
                .seal(&generated.key_der_encrypted, "sandbox_pac/key")
                .map_err(|e| ApiError::internal("seal", e))?;
            let password_enc =
                master.seal(&generated.password, "sandbox_pac/password").map_err(|e| ApiError::internal("seal", e))?;
            let generado = SandboxPacRow { cer: generated.cer_der, key_enc, password_enc };
            let inserted = certificados::insert_sandbox_pac(&mut conn, &generado, now).await;
            match inserted {
                Err(error) if error.is_duplicate() => {}
                other => {
                    other?;
                }
            }
            certificados::sandbox_pac(&mut conn)
                .await?
                .ok_or_else(|| ApiError::internal("sandbox pac", "not stored"))?
        }
    };
    let key = master.open(&row.key_enc, "sandbox_pac/key").map_err(|e| ApiError::internal("sandbox key", e))?;
    let password =
        master.open(&row.password_enc, "sandbox_pac/password").map_err(|e| ApiError::internal("sandbox key", e))?;
    Credential::open(&row.cer, &key, &password).map_err(|e| ApiError::internal("sandbox pac", e))
}

/// The company's uploaded, valid CSD for live stamping: CFDI_002 when there is none (or only
/// the generated sandbox one), CFDI_003 when it expired.
pub async fn csd_live(app: &AppContext, empresa_id: &EmpresaId, now: OffsetDateTime) -> ApiResult<Arc<Csd>> {
    match csd_activo(app, empresa_id).await? {
        None => Err(ApiError::new(
            Code::Cfdi002,
            "this company has no CSD: upload it at POST /api/empresas/{empresaId}/certificados to stamp in live mode",
        )),
        Some(csd) if csd.origen != "UPLOAD" => Err(ApiError::new(
            Code::Cfdi002,
            "this company has only the generated sandbox CSD: upload its real CSD to stamp in live mode",
        )),
        Some(csd) if csd.vigencia_fin <= now => Err(ApiError::new(
            Code::Cfdi003,
            format!("the company's CSD expired on {}; upload a current one", rfc3339(csd.vigencia_fin)),
        )),
        Some(csd) => Ok(csd),
    }
}
