//! What the invoicing part of the service keeps in memory, one per process: the master key,
//! the file storage, opened credentials, caches and the batch writers. State only: the
//! operations over it live in the modules beside this one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::crypto::MasterKey;
use super::csd::Csd;
use super::folios::Folios;
use super::group_commit::GroupCommit;
use super::recibos::escritor::EscritorRecibos;
use super::storage::{self, Storage};
use crate::auth::cache::Memo;
use crate::config::Config;
use crate::error::ApiError;
use timbra_store::clientes::ClienteReceptor;
use timbra_store::empresas::EmpresaEmisora;

/// What the invoicing part of the service keeps in memory (one per process, shared).
pub struct CfdiState {
    master: Result<MasterKey, String>,
    /// Where XML files are kept.
    pub storage: Arc<dyn Storage>,
    /// Opened CSDs by company, checked against the stored certificate id on every use (an id
    /// kept in [`contexto`], forgotten on every upload here or on another instance).
    pub(crate) csd_cache: Mutex<HashMap<String, Arc<Csd>>>,
    /// SAT clients by company, with the id of the FIEL they sign with (an upload replaces
    /// it): the FIEL is opened once and SAT's token reused across jobs.
    pub(crate) sat_clientes: Mutex<HashMap<String, (String, timbra_sat::ClienteSat)>>,
    /// The installation's sandbox stamping credential, read (or made) once.
    pub(crate) sandbox_pac: tokio::sync::OnceCell<Arc<timbra_credentials::Credential>>,
    /// Held while a sandbox CSD is generated (an RSA key takes tens of milliseconds).
    pub(crate) sandbox_csd_lock: tokio::sync::Mutex<()>,
    /// The company, customer and CSD id every stamp reads.
    pub contexto: Contexto,
    /// Sandbox folios predicted so stamps seal outside the write transaction.
    pub folios: Folios,
    /// The writer that commits sealed sandbox stamps in batches.
    pub group_commit: GroupCommit,
    /// The writer that commits sales tickets in batches.
    pub recibos: EscritorRecibos,
    /// SAT's status service (`TIMBRA_SAT_CONSULTA_URL`), or why its client could not be built.
    pub sat_consulta: Result<timbra_pac::consulta::ClienteConsulta, String>,
}

impl CfdiState {
    /// Loads the master key (`TIMBRA_MASTER_KEY`, or the one kept in the data dir) and opens
    /// the file storage (`TIMBRA_STORAGE_URL`; default the folder `{data_dir}/files`). A key or
    /// storage problem is reported on use.
    pub fn new(config: &Config) -> Self {
        let master = MasterKey::load(config.master_key.as_deref(), &config.data_dir);
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
            contexto: Contexto::default(),
            folios: Folios::default(),
            group_commit: GroupCommit::default(),
            recibos: EscritorRecibos::default(),
            sat_consulta: timbra_pac::consulta::ClienteConsulta::new(config.receptor.consulta.clone())
                .map_err(|error| error.to_string()),
        }
    }

    /// The master key, or a logged 500.
    pub fn master(&self) -> Result<&MasterKey, ApiError> {
        self.master.as_ref().map_err(|error| ApiError::internal("master key", error))
    }

    /// The HMAC key of signed download links (derived from the master key).
    pub fn link_secret(&self) -> Result<[u8; 32], ApiError> {
        Ok(super::links::secret(self.master()?))
    }
}

/// What every stamp reads besides its body, kept in memory ([`super::contexto`]).
#[derive(Default)]
pub struct Contexto {
    pub(crate) emisoras: Memo<String, EmpresaEmisora>,
    /// By (company, customer).
    pub(crate) receptores: Memo<(String, String), ClienteReceptor>,
    /// The id of the company's CSD, when it has one (a CSD may be stored by another instance
    /// at any moment, so its absence is not kept).
    pub(crate) csd_ids: Memo<String, String>,
}
