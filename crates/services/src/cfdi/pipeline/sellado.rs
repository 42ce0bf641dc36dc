//! Sandbox sealing: the sealing threads, a run of seals in order, the sandbox TFD, and the
//! batch writer of a company's documents (a payroll period, a retentions batch). Nothing here
//! names the application context: the process's writers use it.

use std::sync::Arc;

use timbra_cfdi::timbre::DatosTimbre;
use time::OffsetDateTime;

use super::registro::{Efectos, Escrito, Fila, Registro, al_persistir};
use crate::cfdi::csd::{Csd, RFC_PAC_SANDBOX};
use crate::cfdi::documento::{PorSellar, Sellable, sellar_con_timbre};
use crate::cfdi::fecha_cfdi;
use crate::error::{ApiError, ApiResult};
use timbra_store::cfdi_xml;
use timbra_store::ids::EmpresaId;
use timbra_store::{MultiInsert, Tx};

/// The sandbox TFD's fields for a stamp made at `fecha_local`, with a fresh UUID.
pub fn timbre_sandbox(fecha_local: OffsetDateTime) -> DatosTimbre {
    DatosTimbre {
        uuid: uuid::Uuid::new_v4().to_string().to_uppercase(),
        fecha_timbrado: fecha_cfdi(fecha_local),
        rfc_prov_certif: RFC_PAC_SANDBOX.into(),
        leyenda: None,
    }
}

/// A document of a sandbox batch, sealed with a predicted folio ([`sellar_en_orden`]).
pub struct SelladoLote {
    /// The record fields that do not come from the comprobante.
    pub registro: Registro,
    /// The document without folio, seal or TFD, to seal again when the prediction misses.
    pub contenido: PorSellar,
    /// The sandbox TFD's fields.
    pub datos: DatosTimbre,
    /// The folio the XML carries; [`escribir_lote`] sets the one given.
    pub folio: i64,
    /// The row's values from the sealed comprobante.
    pub fila: Fila,
    /// The compressed XML.
    pub xml_comprimido: Vec<u8>,
}

impl SelladoLote {
    /// The UUID as the API shows it (`SANDBOX-…`).
    pub fn uuid_api(&self) -> String {
        format!("SANDBOX-{}", self.datos.uuid)
    }
}

/// Writes a sandbox batch of one company and serie in `tx`: takes its folios in one statement,
/// seals again (in parallel, on the blocking pool) each document whose predicted folio is not
/// the one given, inserts the invoice rows and their XML, and runs the type's persist effects
/// on the whole batch ([`Efectos::al_persistir`]). The caller commits: nothing of the batch is
/// visible before.
#[allow(clippy::too_many_arguments)]
pub async fn escribir_lote(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    serie: &str,
    lote: &mut [SelladoLote],
    efectos: Option<&dyn Efectos>,
    csd: &Arc<Csd>,
    pac: &Arc<timbra_credentials::Credential>,
    timbrado_en: OffsetDateTime,
    now: OffsetDateTime,
) -> ApiResult<()> {
    if lote.is_empty() {
        return Ok(());
    }
    let cantidad = i64::try_from(lote.len()).map_err(|e| ApiError::internal("lote", e))?;
    let ultimo = timbra_store::folios::tomar(tx, empresa_id, true, serie, cantidad, now).await?;
    let mut resellos = Vec::new();
    for (folio, sellado) in (ultimo - cantidad + 1..).zip(lote.iter_mut()) {
        if sellado.folio != folio {
            let tarea =
                sellar_sandbox_ya(sellado.contenido.clone(), folio, csd.clone(), pac.clone(), sellado.datos.clone());
            resellos.push((folio, tokio::spawn(tarea)));
        }
    }
    crate::metrics::metrics().folio_predictions(lote.len() - resellos.len(), resellos.len());
    if !resellos.is_empty() {
        tracing::debug!(stamps = resellos.len(), "batch folio predictions missed, sealing again");
    }
    let mut resellados = resellos.into_iter();
    for (folio, sellado) in (ultimo - cantidad + 1..).zip(lote.iter_mut()) {
        if sellado.folio != folio {
            let Some((_, tarea)) = resellados.next() else { break };
            let (documento, xml) = tarea.await.map_err(|e| ApiError::internal("sello", e))??;
            // Only the folio changed: the row keeps its date as read the first time.
            let fecha = sellado.fila.fecha;
            sellado.fila = documento.fila(&timbra_cfdi::catalogos::SinCatalogos)?;
            sellado.fila.fecha = fecha;
            sellado.xml_comprimido = xml;
            sellado.folio = folio;
        }
    }
    let mut cfdis = MultiInsert::new(timbra_store::cfdis::CFDIS_INSERT, timbra_store::cfdis::CFDIS_COLUMNS, "");
    let mut xmls = MultiInsert::new(cfdi_xml::INSERT, cfdi_xml::COLUMNS, "");
    for sellado in lote.iter() {
        let registro = &sellado.registro;
        let uuid_api = sellado.uuid_api();
        cfdis.row(sellado.fila.valores(
            empresa_id,
            registro,
            sellado.folio,
            &uuid_api,
            &sellado.datos.uuid,
            timbrado_en,
            now,
        ));
        xmls.row(cfdi_xml::valores(
            &registro.cfdi_id,
            empresa_id,
            &registro.xml_path,
            sellado.xml_comprimido.clone(),
            now,
        ));
    }
    cfdis.execute(tx).await?;
    xmls.execute(tx).await?;
    let uuids: Vec<String> = lote.iter().map(SelladoLote::uuid_api).collect();
    let escritos: Vec<Escrito<'_>> = lote
        .iter()
        .zip(&uuids)
        .map(|(sellado, uuid_api)| Escrito {
            empresa_id,
            registro: &sellado.registro,
            fila: &sellado.fila,
            uuid_api,
            folio: sellado.folio,
            now,
        })
        .collect();
    al_persistir(efectos, tx, &escritos).await
}

/// Takes the next folio of (`empresa_id`, mode, `serie`) in `tx`: each serie runs 1..N on its
/// own, and the row lock held until commit keeps concurrent stamps of the serie in line.
pub(crate) async fn siguiente_folio(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    sandbox: bool,
    serie: &str,
    now: OffsetDateTime,
) -> timbra_store::DbResult<i64> {
    timbra_store::folios::tomar(tx, empresa_id, sandbox, serie, 1, now).await
}

/// A seal to make on one of [`Selladores`]' threads.
type TrabajoDeSello = Box<dyn FnOnce() + Send>;

/// The invoices' sealing threads, one per core, taking seals in order of arrival from one
/// queue, at a lower priority than the rest of the process ([`ceder_prioridad`]).
///
/// Without a bound, every waiting request (32 connections in the bench) had a blocking thread
/// signing at once, and the one thread that commits them (group commit) got a thirty-fifth of
/// the CPU. A semaphore of one permit per core over the blocking pool bounded that, but each
/// seal then handed its permit on through two task wakeups and a blocking thread's start, and
/// the core stood idle meanwhile: 19% of the machine under the bench. A thread that finishes
/// a seal here takes the next one at once (7% idle).
struct Selladores {
    cola: std::sync::mpsc::Sender<TrabajoDeSello>,
}

fn selladores() -> &'static Selladores {
    static SELLADORES: std::sync::OnceLock<Selladores> = std::sync::OnceLock::new();
    SELLADORES.get_or_init(|| {
        let (cola, trabajos) = std::sync::mpsc::channel::<TrabajoDeSello>();
        let trabajos = Arc::new(std::sync::Mutex::new(trabajos));
        let nucleos = std::thread::available_parallelism().map_or(2, usize::from);
        for numero in 0..nucleos {
            let trabajos = trabajos.clone();
            let hilo = std::thread::Builder::new().name(format!("timbra-sello-{numero}")).spawn(move || {
                ceder_prioridad();
                loop {
                    // The lock is held only while waiting for the next seal, never while sealing.
                    let siguiente = match trabajos.lock() {
                        Ok(trabajos) => trabajos.recv(),
                        Err(envenenado) => envenenado.into_inner().recv(),
                    };
                    let Ok(trabajo) = siguiente else { return };
                    // A panic fails that seal (its answer is dropped), not the thread.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(trabajo));
                }
            });
            if let Err(error) = hilo {
                tracing::error!(error.message = %error, "cannot start a sealing thread");
            }
        }
        Selladores { cola }
    })
}

/// How much lower the sealing threads run than the rest of the process (a nice value, Linux
/// only; elsewhere they run at the same priority).
const NICE_SELLOS: i32 = 10;

/// Lowers the calling thread's priority by [`NICE_SELLOS`]. Sealing is the bulk of a stamp's
/// CPU and can wait a moment; what cannot is the serial work around it: the group-commit
/// writer's transaction (every stamp of the batch waits for it) and the requests' I/O. At equal
/// priority the writer took its turn behind the sealers, each commit took longer, and the
/// sealers then ran out of stamps to seal while the next batch waited for it (a commit of 16
/// took 2.6–2.9 ms instead of 1.9–2.0, and 6–7% of the machine stood idle instead of 2–3%).
fn ceder_prioridad() {
    #[cfg(target_os = "linux")]
    if let Err(error) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), NICE_SELLOS) {
        tracing::warn!(error.message = %error, "cannot lower the sealing thread's priority");
    }
}

/// Runs `sellar` on the sealing threads ([`Selladores`]), after the seals queued before it;
/// its result comes on the receiver. A seal whose receiver is dropped before its turn is
/// skipped (a request that hung up, a payroll run stopped part-way).
fn en_selladores<R: Send + 'static>(
    sellar: impl FnOnce() -> R + Send + 'static,
) -> ApiResult<tokio::sync::oneshot::Receiver<R>> {
    let (listo, sellado) = tokio::sync::oneshot::channel();
    let trabajo: TrabajoDeSello = Box::new(move || {
        if !listo.is_closed() {
            let _ = listo.send(sellar());
        }
    });
    selladores().cola.send(trabajo).map_err(|_| ApiError::internal("sello", "the sealing threads stopped"))?;
    Ok(sellado)
}

/// A seal whose thread dropped its answer (it panicked).
fn sello_perdido() -> ApiError {
    ApiError::internal("sello", "the seal failed on its thread")
}

/// Seals `contenido` with `folio`, adds the sandbox TFD, writes and compresses the XML (two
/// RSA signatures, a fraction of a millisecond each) on the sealing threads ([`Selladores`]),
/// after the seals queued before it.
pub async fn sellar_sandbox(
    contenido: PorSellar,
    folio: i64,
    csd: Arc<Csd>,
    pac: Arc<timbra_credentials::Credential>,
    datos: DatosTimbre,
) -> ApiResult<(Box<dyn Sellable>, Vec<u8>)> {
    let sellado = en_selladores(move || sellar_con_timbre(contenido.as_ref(), folio, &csd.credential, &pac, datos))?;
    sellado.await.map_err(|_| sello_perdido())?
}

/// [`sellar_sandbox`] without waiting for a turn: for the writers' re-seals, which hold the
/// write turn and must not queue behind the stamps waiting for it.
pub async fn sellar_sandbox_ya(
    contenido: PorSellar,
    folio: i64,
    csd: Arc<Csd>,
    pac: Arc<timbra_credentials::Credential>,
    datos: DatosTimbre,
) -> ApiResult<(Box<dyn Sellable>, Vec<u8>)> {
    tokio::task::spawn_blocking(move || sellar_con_timbre(contenido.as_ref(), folio, &csd.credential, &pac, datos))
        .await
        .map_err(|e| ApiError::internal("sello", e))?
}

/// A document to seal in a run ([`sellar_en_orden`]): the document without folio, seal or
/// TFD, its predicted folio and its sandbox TFD's fields.
pub type Trabajo = (PorSellar, i64, DatosTimbre);
/// A document of a run sealed: the document as given (to seal again when the prediction
/// misses), the sealed one, and its compressed XML.
pub type SelladoEnOrden = (PorSellar, Box<dyn Sellable>, Vec<u8>);

/// A run of sandbox seals on the sealing threads ([`Selladores`]), read back in the order
/// given, with at most [`SellosEnOrden::EN_COLA`] of them queued ahead of the reader.
///
/// A payroll period hands over a thousand documents at once. A blocking task per document
/// started a thread per document: hundreds of threads signing at once, time-sliced, so the
/// first chunk was ready only when nearly all were, and the writer's thread got a sliver of the
/// CPU (its first chunk of 200 took 177 ms instead of 14). On the sealing threads the cores
/// stay busy with finished work in order, the writer keeps its priority, and a period shares
/// the cores with the invoices stamped meanwhile in order of arrival.
pub struct SellosEnOrden {
    por_sellar: std::vec::IntoIter<Trabajo>,
    en_cola: std::collections::VecDeque<tokio::sync::oneshot::Receiver<ApiResult<SelladoEnOrden>>>,
    csd: Arc<Csd>,
    pac: Arc<timbra_credentials::Credential>,
}

impl SellosEnOrden {
    /// The most seals of a run queued ahead of its reader: enough that the sealing threads never
    /// wait for it, few enough that a run stopped part-way leaves little work behind (queued
    /// seals whose run was dropped are skipped).
    const EN_COLA: usize = 32;

    /// The next document's result, in the order given; `None` after the last.
    pub async fn siguiente(&mut self) -> Option<ApiResult<SelladoEnOrden>> {
        while self.en_cola.len() < Self::EN_COLA
            && let Some((contenido, folio, datos)) = self.por_sellar.next()
        {
            let (csd, pac) = (self.csd.clone(), self.pac.clone());
            let sellado = en_selladores(move || {
                sellar_con_timbre(contenido.as_ref(), folio, &csd.credential, &pac, datos)
                    .map(|(sellado, xml)| (contenido, sellado, xml))
            });
            match sellado {
                Ok(sellado) => self.en_cola.push_back(sellado),
                Err(error) => return Some(Err(error)),
            }
        }
        let sellado = self.en_cola.pop_front()?;
        Some(sellado.await.unwrap_or_else(|_| Err(sello_perdido())))
    }
}

/// Starts sealing `trabajos` ([`SellosEnOrden`]). Dropping the result drops the seals still
/// queued.
pub fn sellar_en_orden(
    trabajos: Vec<Trabajo>,
    csd: &Arc<Csd>,
    pac: &Arc<timbra_credentials::Credential>,
) -> SellosEnOrden {
    SellosEnOrden {
        por_sellar: trabajos.into_iter(),
        en_cola: std::collections::VecDeque::with_capacity(SellosEnOrden::EN_COLA),
        csd: csd.clone(),
        pac: pac.clone(),
    }
}
