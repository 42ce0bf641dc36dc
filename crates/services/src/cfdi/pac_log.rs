//! One structured log line per PAC call: which operation, for which company and invoice, how
//! long it took, what came of it (the PAC's or SAT's code) and what the service does about a
//! failure. Stamping (`cfdi::pipeline`) and cancellation (`cfdi::cancelacion`, the handler and
//! the follow-up job) wrap each call to the PAC in [`logged`].
//!
//! The line never carries XML, credentials or the PAC's raw answer: only codes and the
//! one-line summary of [`summary`].

use std::future::Future;
use std::time::Instant;
use timbra_store::ids::EmpresaId;

use timbra_pac::{Cancelacion, EstadoSat, PacError, Timbrado};

/// What a PAC call is about, for its log line.
#[derive(Clone, Copy, Debug)]
pub struct PacCall<'a> {
    /// The PAC operation (`stamp`, `stamped`, `cancel_signature`, `get_sat_status`).
    pub operation: &'static str,
    /// The company the call is for.
    pub empresa_id: &'a EmpresaId,
    /// The invoice's id, when it has one.
    pub cfdi_id: Option<&'a str>,
    /// The invoice's serie.
    pub serie: Option<&'a str>,
    /// The invoice's folio.
    pub folio: Option<i64>,
    /// What the service does when the call fails (`pac.recovery`), by error.
    pub recovery: fn(&PacError) -> &'static str,
}

impl<'a> PacCall<'a> {
    /// A call of `operation` for the company, with no invoice and no recovery.
    pub fn new(operation: &'static str, empresa_id: &'a EmpresaId) -> Self {
        PacCall { operation, empresa_id, cfdi_id: None, serie: None, folio: None, recovery: |_| "none" }
    }

    /// The invoice the call is about.
    pub fn cfdi(mut self, cfdi_id: &'a str, serie: Option<&'a str>, folio: Option<i64>) -> Self {
        self.cfdi_id = Some(cfdi_id);
        self.serie = serie;
        self.folio = folio;
        self
    }

    /// The invoice's serie and folio before it has an id (a stamping attempt).
    pub fn folio(mut self, serie: &'a str, folio: i64) -> Self {
        self.serie = Some(serie);
        self.folio = Some(folio);
        self
    }

    /// What the service does when the call fails.
    pub fn recovery(mut self, recovery: fn(&PacError) -> &'static str) -> Self {
        self.recovery = recovery;
        self
    }
}

/// The code a successful answer carries, for `pac.code`.
pub trait PacAnswer {
    /// `EstatusUUID` of a cancellation, SAT's `EstatusCancelacion` or `Estado` of a status.
    fn pac_code(&self) -> Option<String>;
}

impl PacAnswer for Timbrado {
    fn pac_code(&self) -> Option<String> {
        // Finkok's incidencia 307 with the original stamp: no new stamp was spent.
        self.previo.then(|| "307".to_owned())
    }
}

impl PacAnswer for Option<Timbrado> {
    fn pac_code(&self) -> Option<String> {
        self.as_ref().and_then(Timbrado::pac_code)
    }
}

impl PacAnswer for Cancelacion {
    fn pac_code(&self) -> Option<String> {
        Some(self.estatus_uuid.clone())
    }
}

impl PacAnswer for EstadoSat {
    fn pac_code(&self) -> Option<String> {
        let estatus = self.estatus_cancelacion.trim();
        Some(if estatus.is_empty() { self.estado.trim() } else { estatus }.to_owned())
    }
}

impl PacAnswer for Vec<String> {
    fn pac_code(&self) -> Option<String> {
        // `get_pending`: how many requests wait.
        Some(self.len().to_string())
    }
}

impl PacAnswer for timbra_pac::AceptacionRechazo {
    fn pac_code(&self) -> Option<String> {
        // `accept_reject_signature`: SAT's per-UUID codes (1000 received).
        Some(self.folios.iter().map(|folio| folio.codigo.as_str()).collect::<Vec<_>>().join(","))
    }
}

/// `ok`, `rejected`, `timeout`, `transport`, `fault` or `garbage`.
pub fn outcome(result: &Result<impl Sized, PacError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(PacError::Rejected { .. }) => "rejected",
        Err(PacError::Timeout(_)) => "timeout",
        Err(PacError::Transport(_)) => "transport",
        Err(PacError::Fault { .. }) => "fault",
        Err(PacError::Garbage { .. }) => "garbage",
    }
}

pub use crate::error::pac_summary as summary;

/// Awaits one PAC call and logs it: `info` when it answered, `warn` when it failed.
///
/// Fields: `pac.operation`, `empresa.id`, `cfdi.id`, `cfdi.serie`, `cfdi.folio`,
/// `pac.duration_ms`, `pac.outcome` ([`outcome`]), `pac.code` (the rejection's code, or the
/// answer's [`PacAnswer::pac_code`]), `pac.recovery` (what the service does about a failure;
/// `none` on success) and `pac.error` ([`summary`]).
pub async fn logged<T: PacAnswer>(
    call: PacCall<'_>,
    future: impl Future<Output = Result<T, PacError>>,
) -> Result<T, PacError> {
    let started = Instant::now();
    let result = future.await;
    let took = started.elapsed();
    let duration_ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
    let outcome = outcome(&result);
    crate::metrics::metrics().pac_call(call.operation, outcome, took);
    match &result {
        Ok(answer) => {
            let code = answer.pac_code();
            tracing::event!(
                target: LOG_TARGET,
                tracing::Level::INFO,
                pac.operation = call.operation,
                empresa.id = call.empresa_id.as_str(),
                cfdi.id = call.cfdi_id,
                cfdi.serie = call.serie,
                cfdi.folio = call.folio,
                pac.duration_ms = duration_ms,
                pac.outcome = outcome,
                pac.code = code.as_deref(),
                pac.recovery = "none",
                "PAC call"
            )
        }
        Err(error) => tracing::event!(
            target: LOG_TARGET,
            tracing::Level::WARN,
            pac.operation = call.operation,
            empresa.id = call.empresa_id.as_str(),
            cfdi.id = call.cfdi_id,
            cfdi.serie = call.serie,
            cfdi.folio = call.folio,
            pac.duration_ms = duration_ms,
            pac.outcome = outcome,
            pac.code = error.code(),
            pac.recovery = (call.recovery)(error),
            pac.error = summary(error).as_str(),
            "PAC call failed"
        ),
    }
    result
}

/// The log target of these lines, as the guide documents it for `TIMBRA_LOG` filters; it
/// kept its name when the module moved from the server crate to `timbra-services`.
pub const LOG_TARGET: &str = "timbra_server::cfdi::pac_log";

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::io::Write;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::*;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn every_call_leaves_one_line_with_its_outcome_and_no_raw_answer() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt().json().with_writer(move || writer.clone()).finish();
        let _guard = tracing::subscriber::set_default(subscriber);

        let empresa_id = EmpresaId::from("emp-1");
        let call = PacCall::new("cancel_signature", &empresa_id).cfdi("cfdi-1", Some("A"), Some(7));
        let garbage = PacError::Transport("HTTP 502 Bad Gateway en cancel_signature: <soap:Envelope>secreto".into());
        let failed: Result<Cancelacion, _> =
            logged(call.recovery(|_| "invoice unchanged; the client retries"), async { Err(garbage) }).await;
        assert!(failed.is_err());
        let status = EstadoSat {
            codigo_estatus: "S - Comprobante obtenido satisfactoriamente.".into(),
            estado: "Vigente".into(),
            es_cancelable: "Cancelable con aceptación".into(),
            estatus_cancelacion: "En proceso".into(),
        };
        logged(PacCall::new("get_sat_status", &empresa_id).cfdi("cfdi-1", Some("A"), Some(7)), async { Ok(status) })
            .await
            .unwrap();

        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2, "{text}");
        let fields = &lines[0]["fields"];
        assert_eq!(lines[0]["level"], "WARN");
        assert_eq!(fields["pac.operation"], "cancel_signature");
        assert_eq!(fields["empresa.id"], "emp-1");
        assert_eq!((fields["cfdi.serie"].as_str(), fields["cfdi.folio"].as_i64()), (Some("A"), Some(7)));
        assert_eq!(fields["pac.outcome"], "transport");
        assert_eq!(fields["pac.recovery"], "invoice unchanged; the client retries");
        assert_eq!(fields["pac.error"], "the PAC answered HTTP 502 Bad Gateway");
        assert!(fields["pac.duration_ms"].is_u64());
        assert!(!text.contains('<') && !text.contains("secreto"), "{text}");
        let fields = &lines[1]["fields"];
        assert_eq!(lines[1]["level"], "INFO");
        assert_eq!((fields["pac.outcome"].as_str(), fields["pac.code"].as_str()), (Some("ok"), Some("En proceso")));
    }

    #[test]
    fn summaries_say_what_happened_in_english_without_the_answer() {
        let rejected = PacError::Rejected { code: "205".into(), message: "UUID no existe".into() };
        assert_eq!(summary(&rejected), "the PAC refused the request (205): UUID no existe");
        assert_eq!(summary(&PacError::Timeout(Duration::from_secs(30))), "the PAC did not answer within 30 s");
        let garbage = PacError::Garbage { detail: "no es XML".into(), excerpt: "<html>".into() };
        assert!(!summary(&garbage).contains('<'));
        assert_eq!(summary(&PacError::Transport("connection refused".into())), "the PAC could not be reached");
    }
}
