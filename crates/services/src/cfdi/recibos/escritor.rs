//! Group commit of sales tickets: one writer task per process writes every ticket that is
//! waiting as one transaction, and only then answers each request.
//!
//! A ticket is not sealed, so its cost is its write: on SQLite a transaction of its own took
//! the single write turn for five statements (each a hand-off to the connection's thread) and
//! a commit, and tickets ran at 1,150/s while reads ran at 14,000/s. Here a batch of up to
//! [`MAX_LOTE`] tickets costs one folio update per company and one multi-row `INSERT`.
//! Tickets queue while the previous batch commits, so batches grow with the load; a lone
//! ticket commits at once (no waiting for company).
//!
//! Correctness, as the stamps' writer ([`super::super::group_commit`]):
//! - **acknowledged after commit**: the `201` goes out once the batch committed.
//! - **folios**: one `UPDATE … SET folio_recibo = folio_recibo + k … RETURNING` per company
//!   gives the batch `ultimo - k + 1 ..= ultimo`, in the order the tickets queued; a rolled
//!   back batch gives its folios back, so they never skip or repeat.
//! - **one failure does not fail the others**: a batch that fails (a folio of the body that
//!   another ticket holds, a self-invoicing code drawn twice: both unique indexes) rolls back
//!   and each of its tickets is written again in a transaction of its own, with the checks that
//!   give the failing one its RECIBO_001.

use std::collections::BTreeMap;
use std::sync::OnceLock;
use timbra_store::ids::EmpresaId;

use timbra_store::recibos::{self as db, ReciboRow};
use timbra_store::{Db, MultiInsert};
use tokio::sync::{mpsc, oneshot};

use super::clave::nueva_clave;
use crate::cfdi::group_commit::llenar_lote;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};

/// The most tickets one transaction writes (a ticket binds 21 values).
pub const MAX_LOTE: usize = 128;

/// Tickets waiting for the writer; a full queue makes requests wait before it.
const COLA: usize = 1024;

type Espera = oneshot::Sender<ApiResult<ReciboRow>>;

/// A ticket computed and checked, waiting for its folio (unless the body gave one) and its write.
struct Pendiente {
    fila: ReciboRow,
    folio_propio: bool,
}

/// The process's writer of tickets, started on the first ticket.
#[derive(Default)]
pub struct EscritorRecibos {
    sender: OnceLock<mpsc::Sender<(Pendiente, Espera)>>,
}

impl EscritorRecibos {
    /// Queues `fila` and waits until its batch committed; gives it with its folio (when
    /// `folio_propio` is false) and self-invoicing code.
    pub async fn escribir(&self, db: &Db, fila: ReciboRow, folio_propio: bool) -> ApiResult<ReciboRow> {
        let sender = self.sender.get_or_init(|| {
            let (sender, receiver) = mpsc::channel(COLA);
            tokio::spawn(escritor(db.clone(), receiver));
            sender
        });
        let (respuesta, respondida) = oneshot::channel();
        sender
            .send((Pendiente { fila, folio_propio }, respuesta))
            .await
            .map_err(|_| ApiError::internal("tickets", "the writer stopped"))?;
        respondida.await.map_err(|_| ApiError::internal("tickets", "the writer dropped the ticket"))?
    }
}

/// Takes whatever is queued (up to [`MAX_LOTE`]), writes it, answers, and again.
async fn escritor(db: Db, mut receiver: mpsc::Receiver<(Pendiente, Espera)>) {
    let mut lote = Vec::with_capacity(MAX_LOTE);
    loop {
        llenar_lote(&mut receiver, &mut lote, 1..=MAX_LOTE, None, || false).await;
        if lote.is_empty() {
            return;
        }
        escribir_lote(&db, std::mem::take(&mut lote)).await;
    }
}

async fn escribir_lote(db: &Db, mut lote: Vec<(Pendiente, Espera)>) {
    // A request that hung up before its batch began is not written, as when it had its own
    // transaction (dropped with it).
    lote.retain(|(_, respuesta)| !respuesta.is_closed());
    if lote.len() > 1 {
        let (mut pendientes, respuestas): (Vec<Pendiente>, Vec<Espera>) = lote.into_iter().unzip();
        match escribir_juntos(db, &mut pendientes).await {
            Ok(()) => {
                for (p, respuesta) in pendientes.into_iter().zip(respuestas) {
                    let _ = respuesta.send(Ok(p.fila));
                }
                return;
            }
            Err(error) => {
                tracing::debug!(lote = pendientes.len(), error.message = %error.message, "ticket batch failed, writing its tickets one by one");
                lote = pendientes.into_iter().zip(respuestas).collect();
            }
        }
    }
    for (p, respuesta) in lote {
        let _ = respuesta.send(escribir_uno(db, p).await);
    }
}

/// The batch in one transaction: folios per company in queue order, one insert.
async fn escribir_juntos(db: &Db, lote: &mut [Pendiente]) -> ApiResult<()> {
    let mut tx = db.begin().await?;
    let mut por_empresa: BTreeMap<String, i64> = BTreeMap::new();
    for p in lote.iter().filter(|p| !p.folio_propio) {
        *por_empresa.entry(p.fila.empresa_id.as_str().to_owned()).or_default() += 1;
    }
    let mut siguiente = BTreeMap::new();
    for (empresa_id, k) in por_empresa {
        let ultimo = db::reservar_folios(&mut tx, &EmpresaId::from(&empresa_id), k).await?;
        siguiente.insert(empresa_id, ultimo - k + 1);
    }
    let mut insert = MultiInsert::new(db::INSERT, db::INSERT_COLUMNS, "");
    for p in lote.iter_mut() {
        if !p.folio_propio
            && let Some(folio) = siguiente.get_mut(p.fila.empresa_id.as_str())
        {
            p.fila.folio = folio.to_string();
            *folio += 1;
        }
        insert.row(db::valores(&p.fila));
    }
    insert.execute(&mut tx).await?;
    tx.commit().await?;
    Ok(())
}

/// One ticket in its own transaction, with the checks a batch leaves to the unique indexes:
/// a folio of the body that another ticket holds is RECIBO_001, a code drawn twice is drawn again.
async fn escribir_uno(db: &Db, Pendiente { mut fila, folio_propio }: Pendiente) -> ApiResult<ReciboRow> {
    let mut tx = db.begin().await?;
    if folio_propio {
        if db::folio_usado(&mut tx, &fila.empresa_id, &fila.folio).await? {
            return Err(ApiError::fields(
                Code::Recibo001,
                vec![FieldProblem::new("folio", format!("folio {} is another ticket's of this company", fila.folio))],
            ));
        }
    } else {
        fila.folio = db::siguiente_folio(&mut tx, &fila.empresa_id).await?.to_string();
    }
    while db::clave_usada(&mut tx, &fila.clave_autofactura).await? {
        fila.clave_autofactura = nueva_clave();
    }
    db::insert(&mut tx, &fila).await?;
    tx.commit().await?;
    Ok(fila)
}
