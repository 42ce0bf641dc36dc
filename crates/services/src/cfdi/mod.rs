//! Invoicing: certificates at rest, the sandbox stamper, stamping, storage of the XML and
//! signed download links. The HTTP handlers live in `routes/cfdi.rs`,
//! `routes/certificados.rs`, `routes/fiel.rs` and `routes/timbres.rs`.

pub mod archivos;
pub mod cancelacion;
pub mod cancelar;
pub mod complementos;
pub mod consulta;
pub mod contexto;
pub mod credenciales;
pub mod crypto;
pub mod documento;
pub mod ensayo;
pub mod exportacion;
pub mod factura;
pub mod fiel;
pub mod folios;
pub mod group_commit;
pub mod links;
pub mod live;
pub mod nomina;
pub mod pac_log;
pub mod pagos;
pub mod pipeline;
pub mod plazos;
pub mod receptor;
pub mod recibidos;
pub mod recibos;
pub mod recibos_consulta;
pub mod retenciones;
pub mod storage;
pub mod timbrado;
pub mod timbres;
pub mod tipos;
pub mod validador;
pub mod vencimiento;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use time::{OffsetDateTime, UtcOffset};

use crate::config::Config;
use crate::error::ApiError;

/// What the invoicing part of the service keeps in memory (one per process, shared).
pub struct CfdiState {
    master: Result<crypto::MasterKey, String>,
    /// Where XML files are kept.
    pub storage: Arc<dyn storage::Storage>,
    /// Opened CSDs by company, checked against the stored certificate id on every use (an id
    /// kept in [`contexto`], forgotten on every upload here or on another instance).
    pub(crate) csd_cache: Mutex<HashMap<String, Arc<credenciales::Csd>>>,
    /// SAT clients by company, with the id of the FIEL they sign with (an upload replaces
    /// it): the FIEL is opened once and SAT's token reused across jobs.
    pub(crate) sat_clientes: Mutex<HashMap<String, (String, timbra_sat::ClienteSat)>>,
    /// The installation's sandbox stamping credential, read (or made) once.
    pub(crate) sandbox_pac: tokio::sync::OnceCell<Arc<timbra_credentials::Credential>>,
    /// Held while a sandbox CSD is generated (an RSA key takes tens of milliseconds).
    pub(crate) sandbox_csd_lock: tokio::sync::Mutex<()>,
    /// The company, customer and CSD id every stamp reads.
    pub contexto: contexto::Contexto,
    /// Sandbox folios predicted so stamps seal outside the write transaction.
    pub folios: folios::Folios,
    /// The writer that commits sealed sandbox stamps in batches.
    pub group_commit: group_commit::GroupCommit,
    /// The writer that commits sales tickets in batches.
    pub recibos: recibos::escritor::EscritorRecibos,
    /// SAT's status service (`TIMBRA_SAT_CONSULTA_URL`), or why its client could not be built.
    pub sat_consulta: Result<timbra_pac::consulta::ClienteConsulta, String>,
}

impl CfdiState {
    /// Loads the master key (`TIMBRA_MASTER_KEY`, or the one kept in the data dir) and opens
    /// the file storage (`TIMBRA_STORAGE_URL`; default the folder `{data_dir}/files`). A key or
    /// storage problem is reported on use.
    pub fn new(config: &Config) -> Self {
        let master = crypto::MasterKey::load(config.master_key.as_deref(), &config.data_dir);
        if let Err(error) = &master {
            tracing::error!(error.message = %error, "master key unavailable: certificates cannot be used");
        }
        Self {
            master,
            storage: storage::open_or_unavailable(&config.storage()),
            csd_cache: Mutex::default(),
            sat_clientes: Mutex::default(),
            sandbox_pac: tokio::sync::OnceCell::new(),
            sandbox_csd_lock: tokio::sync::Mutex::new(()),
            contexto: contexto::Contexto::default(),
            folios: folios::Folios::default(),
            group_commit: group_commit::GroupCommit::default(),
            recibos: recibos::escritor::EscritorRecibos::default(),
            sat_consulta: timbra_pac::consulta::ClienteConsulta::new(config.receptor.consulta.clone())
                .map_err(|error| error.to_string()),
        }
    }

    /// The master key, or a logged 500.
    pub fn master(&self) -> Result<&crypto::MasterKey, ApiError> {
        self.master.as_ref().map_err(|error| ApiError::internal("master key", error))
    }

    /// The HMAC key of signed download links (derived from the master key).
    pub fn link_secret(&self) -> Result<[u8; 32], ApiError> {
        Ok(links::secret(self.master()?))
    }
}

/// The offset of the Zona Centro (America/Mexico_City), UTC−6 all year since Mexico abolished
/// daylight saving time there on 2022-10-30 (Ley de los Sistemas de Horario). SAT's TFD
/// `FechaTimbrado` is written in it (Anexo 20: "debe corresponder con la hora de la Zona Centro"),
/// and so are the dates the service keeps of its own (storage paths, quotas); a CFDI's `Fecha`
/// is in its LugarExpedicion's zone instead ([`hora_de_expedicion`]).
pub const OFFSET_CENTRO: UtcOffset = match UtcOffset::from_hms(-6, 0, 0) {
    Ok(offset) => offset,
    Err(_) => UtcOffset::UTC,
};

/// `at` in the Zona Centro.
pub fn hora_local(at: OffsetDateTime) -> OffsetDateTime {
    at.to_offset(OFFSET_CENTRO)
}

/// `at` (whole seconds) in the local time of the postal code `lugar_expedicion`, as a CFDI's
/// `Fecha` must be (Anexo 20: "la hora local donde se expide el comprobante"): the zone
/// c_CodigoPostal gives it, with the border strip's daylight saving time
/// ([`HusoHorario::desfase`](timbra_cfdi::catalogos::HusoHorario::desfase)); the Zona Centro
/// for a code the catalog does not have (validation refuses that code anyway).
pub fn hora_de_expedicion(
    catalogos: &dyn timbra_cfdi::catalogos::Catalogos,
    lugar_expedicion: &str,
    at: OffsetDateTime,
) -> OffsetDateTime {
    let at = at.replace_nanosecond(0).unwrap_or(at);
    match catalogos.datos_codigo_postal(lugar_expedicion) {
        Some(datos) => at.to_offset(datos.huso_horario.desfase(at)),
        None => hora_local(at),
    }
}

/// Reads a CFDI `Fecha` (`AAAA-MM-DDThh:mm:ss`) as the local time of its LugarExpedicion
/// `lugar_expedicion`, the inverse of [`hora_de_expedicion`]. In the border strip, the hour
/// after the change of schedule is read with the offset of the instant an hour away (the
/// local text alone cannot tell the repeated November hour apart).
pub fn leer_fecha_expedicion(
    catalogos: &dyn timbra_cfdi::catalogos::Catalogos,
    lugar_expedicion: &str,
    texto: &str,
) -> Option<OffsetDateTime> {
    Some(fecha_de_expedicion(catalogos, lugar_expedicion, leer_fecha_local(texto)?))
}

/// [`leer_fecha_expedicion`] of a local time already read (a retention's `FechaExp`).
pub fn fecha_de_expedicion(
    catalogos: &dyn timbra_cfdi::catalogos::Catalogos,
    lugar_expedicion: &str,
    local: time::PrimitiveDateTime,
) -> OffsetDateTime {
    let centro = local.assume_offset(OFFSET_CENTRO);
    match catalogos.datos_codigo_postal(lugar_expedicion) {
        Some(datos) => local.assume_offset(datos.huso_horario.desfase(centro)),
        None => centro,
    }
}

/// Reads a CFDI `Fecha` / TFD `FechaTimbrado` text (`AAAA-MM-DDThh:mm:ss`), a local time
/// without its offset.
pub fn leer_fecha_local(texto: &str) -> Option<time::PrimitiveDateTime> {
    let formato = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    time::PrimitiveDateTime::parse(texto, &formato).ok()
}

/// Reads a TFD `FechaTimbrado` (`AAAA-MM-DDThh:mm:ss`) as a time in the Zona Centro; the
/// inverse of [`fecha_cfdi`] of [`hora_local`].
pub fn leer_fecha_cfdi(texto: &str) -> Option<OffsetDateTime> {
    leer_fecha_local(texto).map(|fecha| fecha.assume_offset(OFFSET_CENTRO))
}

/// `AAAA-MM-DDThh:mm:ss` of a local time, as CFDI `Fecha` and TFD `FechaTimbrado` want it.
pub fn fecha_cfdi(local: OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        local.year(),
        u8::from(local.month()),
        local.day(),
        local.hour(),
        local.minute(),
        local.second()
    )
}
