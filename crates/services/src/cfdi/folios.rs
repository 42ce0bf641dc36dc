//! Sandbox folios predicted ahead of the transaction, so the two RSA signatures and the XML file
//! of concurrent stamps run in parallel instead of inside the database's single write turn.
//!
//! The transaction still takes the folio (`UPDATE … RETURNING`), so the database stays the
//! authority: folios never repeat and none is skipped. This only predicts it. Each stamp of a
//! company gets the next number in arrival order, seals with it outside the transaction, then
//! waits until its predecessor has been queued for the writer (`cfdi::group_commit`), so the
//! writer sees a serie's stamps in folio order. When the prediction turns out wrong (a
//! predecessor failed or lost its Idempotency-Key, another process stamped, the wait timed
//! out) the writer seals again with the folio the stamp did get, as it would without this.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use timbra_store::ids::EmpresaId;

use tokio::sync::Notify;

/// The longest a stamp waits for its predecessor before it goes to the writer anyway.
const ESPERA_MAXIMA: Duration = Duration::from_secs(2);

/// The predicted folios of every company and serie this process stamps for.
#[derive(Default)]
pub struct Folios {
    /// By company, then serie: each serie has its own counter.
    colas: Mutex<HashMap<String, HashMap<String, Arc<Cola>>>>,
}

#[derive(Default)]
struct Cola {
    estado: Mutex<Estado>,
    avance: Notify,
}

#[derive(Default)]
struct Estado {
    /// The folio the next stamp is promised.
    siguiente: i64,
    /// The highest folio known to be committed.
    confirmado: i64,
    /// The highest folio whose stamp has been queued for the writer.
    enviado: i64,
    /// Promises from this folio on can no longer come true (a predecessor gave up).
    rota_desde: Option<i64>,
    /// The database's counter was read for this serie and no prediction missed since: the
    /// next stamp need not read it again.
    conocido: bool,
}

/// One stamp's predicted folio. Dropped without [`Turno::confirmar`] (an error, a client that
/// hung up) it tells the stamps after it not to wait.
pub struct Turno {
    cola: Arc<Cola>,
    /// The predicted folio.
    pub folio: i64,
    cerrado: bool,
}

/// Marks a [`Turno`]'s stamp as queued, after the turn itself went to the writer.
pub struct Envio {
    cola: Arc<Cola>,
    folio: i64,
}

/// The guarded value; a panic elsewhere while holding the lock leaves plain numbers, still usable.
fn bloquear<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Folios {
    /// Whether the next [`Folios::turno`] of the serie needs the database's counter: the
    /// first stamp of the serie in this process, and the first after a prediction missed
    /// (another process may have moved the counter ahead).
    pub fn por_leer(&self, empresa_id: &EmpresaId, serie: &str) -> bool {
        let colas = bloquear(&self.colas);
        colas
            .get(empresa_id.as_str())
            .and_then(|series| series.get(serie))
            .is_none_or(|cola| !bloquear(&cola.estado).conocido)
    }

    /// The next folio of the company's `serie`. `actual` is the counter as just read from the
    /// database, when [`Folios::por_leer`] asked for it.
    pub fn turno(&self, empresa_id: &EmpresaId, serie: &str, actual: Option<i64>) -> Turno {
        let cola = {
            let mut colas = bloquear(&self.colas);
            match colas.get(empresa_id.as_str()).and_then(|series| series.get(serie)) {
                Some(cola) => cola.clone(),
                None => colas
                    .entry(empresa_id.as_str().to_owned())
                    .or_default()
                    .entry(serie.to_owned())
                    .or_default()
                    .clone(),
            }
        };
        let folio = {
            let mut estado = bloquear(&cola.estado);
            if let Some(actual) = actual {
                estado.confirmado = estado.confirmado.max(actual);
                estado.conocido = true;
            }
            if estado.siguiente <= estado.confirmado
                || estado.rota_desde.is_some_and(|rota| rota <= estado.confirmado + 1)
            {
                // Nothing in flight is ahead of the database: start again from it.
                estado.siguiente = estado.confirmado + 1;
                estado.enviado = estado.confirmado;
                estado.rota_desde = None;
            }
            let folio = estado.siguiente;
            estado.siguiente += 1;
            folio
        };
        Turno { cola, folio, cerrado: false }
    }
}

impl Turno {
    /// Waits until the predecessor was queued for the writer (or committed); `true` when the
    /// prediction still holds.
    pub async fn esperar(&self) -> bool {
        let deadline = tokio::time::Instant::now() + ESPERA_MAXIMA;
        loop {
            let avance = self.cola.avance.notified();
            tokio::pin!(avance);
            avance.as_mut().enable();
            {
                let estado = bloquear(&self.cola.estado);
                if estado.rota_desde.is_some_and(|rota| rota <= self.folio) || estado.confirmado >= self.folio {
                    return false;
                }
                if estado.enviado.max(estado.confirmado) >= self.folio - 1 {
                    return true;
                }
            }
            if tokio::time::timeout_at(deadline, avance).await.is_err() {
                return false;
            }
        }
    }

    /// What marks this stamp as queued ([`Envio::marcar`]), for after the turn went with it.
    pub fn envio(&self) -> Envio {
        Envio { cola: self.cola.clone(), folio: self.folio }
    }

    /// Records that `folio` (the one the transaction took) is committed.
    pub fn confirmar(mut self, folio: i64) {
        self.cerrado = true;
        let mut estado = bloquear(&self.cola.estado);
        estado.confirmado = estado.confirmado.max(folio);
        if folio != self.folio {
            // Mispredicted: the stamps after this one were promised numbers that are now off.
            estado.rota_desde = Some(estado.rota_desde.map_or(self.folio, |rota| rota.min(self.folio)));
            estado.conocido = false;
        }
        drop(estado);
        self.cola.avance.notify_waiters();
    }
}

impl Envio {
    /// The stamp is queued: the one predicted after it may follow.
    pub fn marcar(self) {
        let mut estado = bloquear(&self.cola.estado);
        estado.enviado = estado.enviado.max(self.folio);
        drop(estado);
        self.cola.avance.notify_waiters();
    }
}

impl Drop for Turno {
    fn drop(&mut self) {
        if self.cerrado {
            return;
        }
        let mut estado = bloquear(&self.cola.estado);
        estado.rota_desde = Some(estado.rota_desde.map_or(self.folio, |rota| rota.min(self.folio)));
        drop(estado);
        self.cola.avance.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn turns_follow_arrival_and_wait_for_their_predecessor() {
        let folios = Folios::default();
        let first = folios.turno(&EmpresaId::from("e"), "A", Some(7));
        let second = folios.turno(&EmpresaId::from("e"), "A", Some(7));
        assert_eq!((first.folio, second.folio), (8, 9));
        assert!(first.esperar().await);
        let waiting = tokio::spawn(async move { (second.esperar().await, second) });
        tokio::task::yield_now().await;
        first.confirmar(8);
        let (ready, second) = waiting.await.unwrap();
        assert!(ready);
        second.confirmar(9);
        assert_eq!(folios.turno(&EmpresaId::from("e"), "A", Some(7)).folio, 10);
    }

    #[tokio::test]
    async fn a_turn_may_go_once_its_predecessor_is_queued_and_a_miss_asks_for_the_counter() {
        let folios = Folios::default();
        assert!(folios.por_leer(&EmpresaId::from("e"), "A"));
        let first = folios.turno(&EmpresaId::from("e"), "A", Some(0));
        let second = folios.turno(&EmpresaId::from("e"), "A", None);
        assert!(!folios.por_leer(&EmpresaId::from("e"), "A"), "known after the first read");
        let waiting = tokio::spawn(async move { (second.esperar().await, second) });
        tokio::task::yield_now().await;
        first.envio().marcar();
        let (ready, second) = waiting.await.unwrap();
        assert!(ready, "queued behind its predecessor, before any commit");
        first.confirmar(1);
        // The writer gave the second stamp folio 5: another process stamped the serie.
        second.confirmar(5);
        assert!(folios.por_leer(&EmpresaId::from("e"), "A"));
    }

    #[tokio::test]
    async fn a_failed_turn_releases_the_ones_behind_it_and_the_next_starts_from_the_database() {
        let folios = Folios::default();
        let failed = folios.turno(&EmpresaId::from("e"), "A", Some(0));
        let behind = folios.turno(&EmpresaId::from("e"), "A", Some(0));
        drop(failed);
        assert!(!behind.esperar().await, "folio 2 cannot follow a folio 1 that was never stamped");
        // It sealed again inside its transaction and got folio 1.
        behind.confirmar(1);
        assert_eq!(folios.turno(&EmpresaId::from("e"), "A", None).folio, 2);
    }

    #[tokio::test]
    async fn another_process_moving_the_counter_is_picked_up() {
        let folios = Folios::default();
        folios.turno(&EmpresaId::from("e"), "A", Some(0)).confirmar(1);
        assert_eq!(folios.turno(&EmpresaId::from("e"), "A", Some(40)).folio, 41);
    }
}
