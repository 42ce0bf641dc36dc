//! Group commit of sandbox stamps: one writer task per process commits every stamp that is
//! sealed and waiting, as one transaction, and only then answers each request.
//!
//! Sandbox stamping is bound by RSA (two signatures per invoice), but on SQLite each statement
//! is also a round trip to the connection's worker thread, and a stamp wrote about ten of them
//! while holding the database's single write turn. Here a batch of up to [`MAX_BATCH`] stamps
//! costs a handful of statements: the Idempotency-Keys it claims, one folio update per
//! (company, serie), then one multi-row `INSERT` per table (invoices, XML, events, webhook
//! deliveries, jobs). Stamps queue while the previous batch commits, so batches grow with the
//! load. A commit costs about a millisecond whatever it holds, and under load a writer that
//! keeps up found five stamps queued on average; so while other stamps are being sealed (they
//! are counted, [`GroupCommit::en_camino`]) the writer waits for them, up to [`MIN_BATCH`]
//! stamps or [`WAIT`]. A lone stamp, with nothing else on its way, commits at once.
//!
//! Correctness, per batch:
//! - **acknowledged after commit**: a request gets its `201` only once its batch committed, so
//!   a crash (kill -9) loses only unacknowledged stamps, and never leaves an invoice without
//!   its XML or event (same transaction).
//! - **Idempotency-Key**: keys are claimed first (`INSERT … ON CONFLICT DO NOTHING RETURNING`,
//!   which neither fails nor aborts the transaction on PostgreSQL); a stamp whose key is taken,
//!   by another batch or an earlier stamp of the same one, leaves the batch before folios are
//!   given and answers, after the commit, as the request that holds the key.
//! - **folios**: one `UPDATE … SET ultimo = ultimo + k … RETURNING ultimo` per (company, serie)
//!   gives the batch `ultimo - k + 1 ..= ultimo`, handed out in the order of the predicted
//!   folios ([`super::folios`]); a stamp sealed with another folio is sealed again here.
//! - **one failure does not fail the others**: when anything of a batch fails, its transaction
//!   rolls back and each stamp of it is written again in a transaction of its own, so only the
//!   failing stamp gets the error. This works the same on both backends (PostgreSQL aborts a
//!   transaction on any failed statement, so a failed statement cannot simply be skipped).

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use timbra_store::ids::EmpresaId;

use crate::idempotency::Answer;
use http::StatusCode;
use timbra_cfdi::timbre::DatosTimbre;
use time::OffsetDateTime;
use tokio::sync::{mpsc, oneshot};

use super::csd;
use super::folios::Turno;
use super::pipeline::registro::{Efectos, Escrito, Fila, Registro};
use super::pipeline::sellado;
use crate::error::{ApiError, ApiResult};
use crate::events::{self, Emission, Event};
use crate::idempotency::{self, Key, Uso};
use timbra_store::cfdi_xml;
use timbra_store::{Db, MultiInsert, Tx};

/// The most stamps one transaction writes: bounds the statement size (the invoice insert binds
/// 33 values a row, far under SQLite's and PostgreSQL's limits) and the time a batch holds
/// the write turn.
pub const MAX_BATCH: usize = 64;
// A whole batch's inserts go to SQLite in one call (`MultiInsert::execute_together`).
const _: () = assert!(MAX_BATCH <= timbra_store::MAX_ROWS_TOGETHER);

/// Stamps waiting for the writer; a full queue makes requests wait before it (backpressure).
const QUEUE: usize = 1024;

/// The batch size the writer waits for while stamps are on their way to it. Each commit
/// rewrites the last pages of a dozen indexes whatever it holds (about 90 of its 120 WAL frames
/// under the bench), so larger batches write less per stamp: at 32 connections, waiting for 12
/// gave 60% of the RSA ceiling, 16 gave 66% and 24 gave 68%.
pub const MIN_BATCH: usize = 24;

/// The longest the writer waits for stamps on their way (it waits only while some are).
pub const WAIT: std::time::Duration = std::time::Duration::from_millis(4);

/// A sandbox stamp sealed and ready to be written.
pub struct Sellado {
    /// The issuing company.
    pub empresa_id: EmpresaId,
    /// The record fields that do not come from the comprobante.
    pub registro: Registro,
    /// The `mode` of the answer envelope.
    pub mode: String,
    /// The Idempotency-Key, when sent.
    pub clave: Option<Key>,
    /// The request's time (UTC).
    pub now: OffsetDateTime,
    /// The TFD's time, in the issuer's zone.
    pub timbrado_en: OffsetDateTime,
    /// The UUID in the XML.
    pub uuid_xml: String,
    /// The UUID as the API shows it (`SANDBOX-…`).
    pub uuid_api: String,
    /// The invoice row's values that do not depend on the folio.
    pub fila: Fila,
    /// The compressed XML, sealed with [`Sellado::folio_sellado`].
    pub xml_comprimido: Vec<u8>,
    /// The folio the XML carries.
    pub folio_sellado: i64,
    /// What sealing again takes, when the folio given is not the one sealed.
    pub resello: Resello,
    /// The predicted folio's turn, confirmed or released once the batch is done.
    pub turno: Option<Turno>,
    /// Writes of its document type in the batch's transaction; an error fails the batch, and
    /// written one by one, only this stamp.
    pub efectos: Option<Arc<dyn Efectos>>,
}

/// The unsealed document and the keys, to seal again with another folio.
pub struct Resello {
    /// The document without folio, seal or TFD.
    pub contenido: super::documento::PorSellar,
    /// The company's CSD.
    pub csd: Arc<csd::Csd>,
    /// The sandbox TFD key.
    pub pac: Arc<timbra_credentials::Credential>,
    /// The TFD's fields.
    pub datos: DatosTimbre,
}

type Waiter = oneshot::Sender<ApiResult<Answer>>;

/// The process's writer of sandbox stamps, started on the first stamp.
#[derive(Default)]
pub struct GroupCommit {
    sender: OnceLock<mpsc::Sender<(Sellado, Waiter)>>,
    en_camino: Arc<AtomicUsize>,
}

/// A stamp on its way to the writer (waiting to be sealed, sealed, waiting for its turn),
/// counted from [`GroupCommit::en_camino`] until it is queued or dropped.
pub struct EnCamino(Arc<AtomicUsize>);

impl Drop for EnCamino {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl GroupCommit {
    /// Counts a stamp that will come to the writer: taken before it is sealed.
    pub fn en_camino(&self) -> EnCamino {
        self.en_camino.fetch_add(1, Ordering::Relaxed);
        EnCamino(self.en_camino.clone())
    }

    /// Queues `sellado` for the writer and waits until its batch committed: the `201` answer,
    /// or the replay of the request that holds its Idempotency-Key.
    pub async fn timbrar(&self, db: &Db, sellado: Sellado, en_camino: EnCamino) -> ApiResult<Answer> {
        let sender = self.sender.get_or_init(|| {
            let (sender, receiver) = mpsc::channel(QUEUE);
            tokio::spawn(writer(db.clone(), receiver, self.en_camino.clone()));
            sender
        });
        let enviado = sellado.turno.as_ref().map(Turno::envio);
        let (answer, answered) = oneshot::channel();
        sender.send((sellado, answer)).await.map_err(|_| ApiError::internal("group commit", "the writer stopped"))?;
        // Queued: the writer no longer waits for it.
        drop(en_camino);
        // Queued in the order of the predicted folios: the next stamp of the serie may follow.
        if let Some(enviado) = enviado {
            enviado.marcar();
        }
        answered.await.map_err(|_| ApiError::internal("group commit", "the writer dropped the stamp"))?
    }
}

/// Takes whatever is queued (up to [`MAX_BATCH`]), and while stamps are on their way, waits for
/// them up to [`MIN_BATCH`] or [`WAIT`]; writes the batch, answers, and again.
async fn writer(db: Db, mut receiver: mpsc::Receiver<(Sellado, Waiter)>, en_camino: Arc<AtomicUsize>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    loop {
        let hay_mas = || en_camino.load(Ordering::Relaxed) > 0;
        llenar_lote(&mut receiver, &mut batch, MIN_BATCH..=MAX_BATCH, Some(WAIT), hay_mas).await;
        if batch.is_empty() {
            return;
        }
        commit_batch(&db, std::mem::take(&mut batch)).await;
    }
}

/// Fills `batch` for a writer that commits many items at once: waits for the first item, takes
/// whatever else is queued up to `tamano.end()`, then, while `hay_mas()` says more are coming,
/// waits for them until the batch has `tamano.start()` (or `espera` has passed since the first).
/// A commit costs about the same whatever it holds, so a writer that keeps up should not commit
/// a handful at a time. `batch` stays empty only when the channel is closed and drained.
pub(super) async fn llenar_lote<T>(
    receiver: &mut mpsc::Receiver<T>,
    batch: &mut Vec<T>,
    tamano: std::ops::RangeInclusive<usize>,
    espera: Option<std::time::Duration>,
    hay_mas: impl Fn() -> bool,
) {
    let (min, max) = (*tamano.start(), *tamano.end());
    if receiver.recv_many(batch, max).await == 0 {
        return;
    }
    let limite = espera.map(|espera| tokio::time::Instant::now() + espera);
    while batch.len() < min && hay_mas() {
        let falta = max - batch.len();
        let recibidos = match limite {
            // Nothing before the limit counts as nothing more.
            Some(limite) => tokio::time::timeout_at(limite, receiver.recv_many(batch, falta)).await.unwrap_or(0),
            None => receiver.recv_many(batch, falta).await,
        };
        if recibidos == 0 {
            return;
        }
    }
}

/// What became of one stamp of a committed batch.
enum Outcome {
    /// Written with this folio; the `201` body.
    Timbrado { folio: i64, answer: String },
    /// Its Idempotency-Key was held by another request: answers as that one.
    Repetido,
}

async fn commit_batch(db: &Db, mut batch: Vec<(Sellado, Waiter)>) {
    // A request that hung up before its batch began is not stamped, as before group commit
    // (its transaction was dropped with it); dropping its turn tells the stamps after it.
    batch.retain(|(_, answer)| !answer.is_closed());
    if batch.is_empty() {
        return;
    }
    let (mut sellados, answers): (Vec<Sellado>, Vec<Waiter>) = batch.into_iter().unzip();
    match write(db, &mut sellados).await {
        Ok(outcomes) => answer_all(db, sellados, answers, outcomes),
        Err(error) if sellados.len() > 1 => {
            tracing::warn!(batch.size = sellados.len(), error.message = %error.message, "stamp batch failed, writing its stamps one by one");
            for (sellado, answer) in sellados.into_iter().zip(answers) {
                let mut one = vec![sellado];
                match write(db, &mut one).await {
                    Ok(outcomes) => answer_all(db, one, vec![answer], outcomes),
                    Err(error) => {
                        let _ = answer.send(Err(error));
                    }
                }
            }
        }
        Err(error) => {
            if let Some(answer) = answers.into_iter().next() {
                let _ = answer.send(Err(error));
            }
        }
    }
}

fn answer_all(db: &Db, sellados: Vec<Sellado>, answers: Vec<Waiter>, outcomes: Vec<Outcome>) {
    for ((mut sellado, answer), outcome) in sellados.into_iter().zip(answers).zip(outcomes) {
        let turno = sellado.turno.take();
        match outcome {
            Outcome::Timbrado { folio, answer: body } => {
                if let Some(turno) = turno {
                    turno.confirmar(folio);
                }
                let _ = answer.send(Ok(idempotency::answer(StatusCode::CREATED, body)));
            }
            Outcome::Repetido => {
                // It took no folio: dropping the turn tells the stamps predicted after it.
                drop(turno);
                let db = db.clone();
                tokio::spawn(async move {
                    let replayed = match &sellado.clave {
                        Some(clave) => {
                            let uso = idempotency::Uso::de(sellado.registro.operacion);
                            idempotency::winner(&db, &sellado.empresa_id, clave, Some(uso), sellado.now).await
                        }
                        None => Err(ApiError::internal("group commit", "a stamp without key lost its key")),
                    };
                    let _ = answer.send(replayed);
                });
            }
        }
    }
}

/// Writes `batch` in one transaction and commits it.
async fn write(db: &Db, batch: &mut [Sellado]) -> ApiResult<Vec<Outcome>> {
    let mut tx = db.begin().await?;
    let repetidos = claim_keys(&mut tx, batch).await?;
    let folios = take_folios(&mut tx, batch, &repetidos).await?;
    seal_again(batch, &folios).await?;

    let mut cfdis = MultiInsert::new(timbra_store::cfdis::CFDIS_INSERT, timbra_store::cfdis::CFDIS_COLUMNS, "");
    let mut xmls = MultiInsert::new(cfdi_xml::INSERT, cfdi_xml::COLUMNS, "");
    let mut emissions = Vec::with_capacity(batch.len());
    let mut outcomes = Vec::with_capacity(batch.len());
    for (sellado, folio) in batch.iter().zip(&folios) {
        let Some(folio) = *folio else {
            outcomes.push(Outcome::Repetido);
            continue;
        };
        let registro = &sellado.registro;
        if let Some(efectos) = &sellado.efectos {
            efectos.aplicar(&mut tx, &registro.cfdi_id, sellado.now).await?;
        }
        cfdis.row(sellado.fila.valores(
            &sellado.empresa_id,
            registro,
            folio,
            &sellado.uuid_api,
            &sellado.uuid_xml,
            sellado.timbrado_en,
            sellado.now,
        ));
        xmls.row(cfdi_xml::valores(
            &registro.cfdi_id,
            &sellado.empresa_id,
            &registro.xml_path,
            sellado.xml_comprimido.clone(),
            sellado.now,
        ));
        if sellado.efectos.is_none() {
            emissions.push(Emission {
                now: sellado.now,
                empresa_id: &sellado.empresa_id,
                event: Event::FacturaTimbrada(sellado.fila.timbrada(registro, &sellado.uuid_api, folio)),
            });
        }
        let answer = sellado.fila.respuesta(&sellado.mode, registro, &sellado.uuid_api, sellado.timbrado_en, folio);
        outcomes.push(Outcome::Timbrado { folio, answer });
    }
    // Invoices, XML and events in one call on SQLite; the deliveries need the events' ids.
    let (event_rows, event_ids) = events::event_rows(&emissions)?;
    MultiInsert::execute_together(vec![cfdis, xmls, event_rows], &mut tx).await?;
    events::deliver_many(&mut tx, &emissions, &event_ids).await?;
    drop(emissions);
    for (sellado, outcome) in batch.iter().zip(&outcomes) {
        if let (Some(efectos), Outcome::Timbrado { folio, .. }) = (&sellado.efectos, outcome) {
            // The type's own records and events (`factura.timbrada` by default).
            let escrito = Escrito {
                empresa_id: &sellado.empresa_id,
                registro: &sellado.registro,
                fila: &sellado.fila,
                uuid_api: &sellado.uuid_api,
                folio: *folio,
                now: sellado.now,
            };
            efectos.al_persistir(&mut tx, std::slice::from_ref(&escrito)).await?;
        }
    }
    for (sellado, outcome) in batch.iter().zip(&outcomes) {
        if let (Some(clave), Outcome::Timbrado { answer, .. }) = (&sellado.clave, outcome) {
            // The key claimed above becomes the answer, in the invoice's transaction.
            let registro = &sellado.registro;
            idempotency::store_answer(
                &mut tx,
                &sellado.empresa_id,
                Some(clave),
                idempotency::Uso::de(registro.operacion),
                StatusCode::CREATED,
                answer,
                sellado.now,
                true,
            )
            .await?;
        }
    }
    tx.commit().await?;
    Ok(outcomes)
}

/// Claims the batch's Idempotency-Keys; `true` for each stamp whose key another request holds
/// (an earlier batch, another process, or a stamp before it in this batch).
async fn claim_keys(tx: &mut Tx, batch: &[Sellado]) -> ApiResult<Vec<bool>> {
    let mut repetidos = vec![false; batch.len()];
    let mut claimed = HashSet::new();
    for (sellado, repetido) in batch.iter().zip(repetidos.iter_mut()) {
        let Some(clave) = &sellado.clave else { continue };
        let nueva = claimed.insert((sellado.empresa_id.as_str(), clave.key.as_str()))
            && idempotency::claim(tx, &sellado.empresa_id, clave, Uso::de(sellado.registro.operacion), sellado.now)
                .await?;
        *repetido = !nueva;
    }
    Ok(repetidos)
}

/// Takes the folios of the stamps that stay, one statement per (company, serie), handed out
/// in the order of the predicted folios so the predictions hold. `None` for the others.
async fn take_folios(tx: &mut Tx, batch: &[Sellado], repetidos: &[bool]) -> ApiResult<Vec<Option<i64>>> {
    let mut series: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
    for (index, sellado) in batch.iter().enumerate() {
        if !repetidos[index] {
            series.entry((sellado.empresa_id.as_str(), sellado.registro.serie.as_str())).or_default().push(index);
        }
    }
    let mut folios = vec![None; batch.len()];
    for ((empresa_id, serie), mut indices) in series {
        indices.sort_by_key(|&index| batch[index].folio_sellado);
        let count = i64::try_from(indices.len()).map_err(|e| ApiError::internal("group commit", e))?;
        let Some(now) = indices.iter().map(|&index| batch[index].now).max() else { continue };
        let ultimo = timbra_store::folios::tomar(tx, &EmpresaId::from(empresa_id), true, serie, count, now).await?;
        for (folio, index) in (ultimo - count + 1..).zip(indices) {
            folios[index] = Some(folio);
        }
    }
    Ok(folios)
}

/// Seals again, in parallel on the blocking pool, each stamp given another folio than the one
/// it was sealed with (a prediction missed: a stamp before it failed, lost its key, or another
/// process stamped the serie).
async fn seal_again(batch: &mut [Sellado], folios: &[Option<i64>]) -> ApiResult<()> {
    let mut sealing = Vec::new();
    for (index, (sellado, folio)) in batch.iter().zip(folios).enumerate() {
        if let Some(folio) = *folio
            && folio != sellado.folio_sellado
        {
            let resello = &sellado.resello;
            let task = sellado::sellar_sandbox_ya(
                resello.contenido.clone(),
                folio,
                resello.csd.clone(),
                resello.pac.clone(),
                resello.datos.clone(),
            );
            sealing.push((index, folio, tokio::spawn(task)));
        }
    }
    let taken = folios.iter().flatten().count();
    crate::metrics::metrics().folio_predictions(taken - sealing.len(), sealing.len());
    if !sealing.is_empty() {
        tracing::debug!(stamps = sealing.len(), "folio predictions missed, sealing again");
    }
    for (index, folio, task) in sealing {
        let (_, xml_comprimido) = task.await.map_err(|e| ApiError::internal("sello", e))??;
        batch[index].xml_comprimido = xml_comprimido;
        batch[index].folio_sellado = folio;
    }
    Ok(())
}
