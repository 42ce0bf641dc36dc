//! Prometheus metrics of this process, served at `GET /metrics` in the OpenMetrics text format.
//!
//! Counters and histograms are process-wide (one registry per process, which is what a scrape
//! of one instance reads); they are updated where things happen: the HTTP layer
//! (the API's router), the stamping pipeline, the PAC and SAT calls, webhook deliveries. The
//! gauges that describe shared state (job queue depth and age, pool connections) are read from
//! the database and the pool when scraped, so every instance reports the same queue.

use std::sync::LazyLock;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, text};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// Latency buckets in seconds, 1 ms to about 30 s: stamping answers in milliseconds, a PAC or
/// SAT call in hundreds of milliseconds to seconds.
const BUCKETS: [f64; 15] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0];

fn histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

/// Labels of an HTTP request: the route template (`/api/cfdi/{id}`, never the concrete path,
/// so the series stay few), the method and the status code.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HttpLabels {
    /// The matched route template, or `unmatched`.
    pub route: String,
    /// GET, POST, ...
    pub method: String,
    /// 200, 404, ...
    pub status: u16,
}

/// Labels of a stamp: `sandbox` or `live`, and how it ended.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StampLabels {
    /// `sandbox` or `live`.
    pub mode: &'static str,
    /// `stamped`, `rejected` (input or SAT refused it), `unknown` (live outcome kept for
    /// reconciliation) or `error`.
    pub outcome: &'static str,
}

/// Labels of a sandbox folio prediction ([`crate::cfdi::folios`]).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PredictionLabels {
    /// `hit` (sealed once) or `miss` (the folio taken was another: sealed again, twice the RSA).
    pub outcome: &'static str,
}

/// Labels of a call to an outside service (PAC, SAT).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CallLabels {
    /// The operation (`stamp`, `cancel`, `autenticacion`, `verifica`, ...).
    pub operation: &'static str,
    /// `ok`, or the kind of failure (PAC) or its code (SAT: `SAT_5004`, `SAT_UNAVAILABLE`, ...).
    pub outcome: String,
}

/// Labels of a webhook delivery attempt.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DeliveryLabels {
    /// `succeeded`, `retry` or `failed`.
    pub outcome: &'static str,
}

/// Labels of a job kind.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KindLabels {
    /// The job kind (`webhook.deliver`, `cfdi.conciliar_intento`, ...).
    pub kind: String,
}

/// Labels of the connection pool.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PoolLabels {
    /// `in_use`, `idle` or `max`.
    pub state: &'static str,
}

/// Every metric of the process.
pub struct Metrics {
    registry: Registry,
    /// Request latency by route, method and status (its `_count` counts the requests).
    pub http: Family<HttpLabels, Histogram>,
    /// Stamps by mode and outcome.
    pub stamps: Family<StampLabels, Counter>,
    /// Sandbox folio predictions by outcome.
    pub folio_predictions: Family<PredictionLabels, Counter>,
    /// PAC call latency by operation and outcome.
    pub pac: Family<CallLabels, Histogram>,
    /// SAT web service call latency by operation and outcome.
    pub sat: Family<CallLabels, Histogram>,
    /// Webhook delivery attempts by outcome.
    pub webhook_deliveries: Family<DeliveryLabels, Counter>,
    jobs_queued: Family<KindLabels, Gauge>,
    jobs_running: Family<KindLabels, Gauge>,
    jobs_oldest_due: Family<KindLabels, Gauge<f64, AtomicU64>>,
    pool: Family<PoolLabels, Gauge>,
}

impl Metrics {
    fn new() -> Self {
        let mut registry = Registry::with_prefix("timbra");
        let http = Family::<HttpLabels, Histogram>::new_with_constructor(histogram as fn() -> Histogram);
        registry.register("http_request_duration_seconds", "HTTP requests by route, method and status", http.clone());
        let stamps = Family::<StampLabels, Counter>::default();
        registry.register("stamps", "Stamps by mode and outcome", stamps.clone());
        let folio_predictions = Family::<PredictionLabels, Counter>::default();
        registry.register(
            "folio_predictions",
            "Sandbox folio predictions by outcome (a miss seals the invoice again)",
            folio_predictions.clone(),
        );
        let pac = Family::<CallLabels, Histogram>::new_with_constructor(histogram as fn() -> Histogram);
        registry.register("pac_call_duration_seconds", "PAC calls by operation and outcome", pac.clone());
        let sat = Family::<CallLabels, Histogram>::new_with_constructor(histogram as fn() -> Histogram);
        registry.register("sat_call_duration_seconds", "SAT web service calls by operation and outcome", sat.clone());
        let webhook_deliveries = Family::<DeliveryLabels, Counter>::default();
        registry.register("webhook_deliveries", "Webhook delivery attempts by outcome", webhook_deliveries.clone());
        let jobs_queued = Family::<KindLabels, Gauge>::default();
        registry.register("jobs_queued", "Jobs waiting (due or scheduled) by kind", jobs_queued.clone());
        let jobs_running = Family::<KindLabels, Gauge>::default();
        registry.register("jobs_running", "Jobs leased by a worker by kind", jobs_running.clone());
        let jobs_oldest_due = Family::<KindLabels, Gauge<f64, AtomicU64>>::default();
        registry.register(
            "jobs_oldest_due_seconds",
            "How long the oldest due job of each kind has waited",
            jobs_oldest_due.clone(),
        );
        let pool = Family::<PoolLabels, Gauge>::default();
        registry.register("db_pool_connections", "Database pool connections by state", pool.clone());
        Self {
            registry,
            http,
            stamps,
            folio_predictions,
            pac,
            sat,
            webhook_deliveries,
            jobs_queued,
            jobs_running,
            jobs_oldest_due,
            pool,
        }
    }

    /// Counts one stamp.
    pub fn stamp(&self, sandbox: bool, outcome: &'static str) {
        let mode = if sandbox { "sandbox" } else { "live" };
        self.stamps.get_or_create(&StampLabels { mode, outcome }).inc();
    }

    /// Counts the folio predictions of a batch: `hits` sealed once, `misses` sealed again.
    pub fn folio_predictions(&self, hits: usize, misses: usize) {
        for (outcome, count) in [("hit", hits), ("miss", misses)] {
            if count > 0 {
                self.folio_predictions.get_or_create(&PredictionLabels { outcome }).inc_by(count as u64);
            }
        }
    }

    /// Records one PAC call.
    pub fn pac_call(&self, operation: &'static str, outcome: &'static str, took: Duration) {
        self.pac.get_or_create(&CallLabels { operation, outcome: outcome.to_owned() }).observe(took.as_secs_f64());
    }

    /// Awaits one call to SAT's web services and records its latency and outcome.
    pub async fn sat_call<T>(
        &self,
        operation: &'static str,
        call: impl std::future::Future<Output = Result<T, timbra_sat::SatError>>,
    ) -> Result<T, timbra_sat::SatError> {
        let started = std::time::Instant::now();
        let result = call.await;
        let outcome = match &result {
            Ok(_) => "ok".to_owned(),
            Err(error) => error.codigo(),
        };
        self.sat.get_or_create(&CallLabels { operation, outcome }).observe(started.elapsed().as_secs_f64());
        result
    }

    /// Counts one webhook delivery attempt.
    pub fn webhook_delivery(&self, outcome: &'static str) {
        self.webhook_deliveries.get_or_create(&DeliveryLabels { outcome }).inc();
    }
}

/// The process's metrics.
pub fn metrics() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

/// The OpenMetrics text of every metric, with the gauges read now. The queue gauges come from
/// the database; when it cannot be read they are left as last read and the scrape still answers
/// (`/readyz` is the place that reports the database).
pub async fn render(db: &timbra_store::Db, now: time::OffsetDateTime) -> String {
    let m = metrics();
    if let Ok(queue) = crate::jobs::queue_stats(db, now).await {
        m.jobs_queued.clear();
        m.jobs_running.clear();
        m.jobs_oldest_due.clear();
        for kind in queue {
            let labels = KindLabels { kind: kind.kind };
            m.jobs_queued.get_or_create(&labels).set(kind.queued);
            m.jobs_running.get_or_create(&labels).set(kind.running);
            m.jobs_oldest_due.get_or_create(&labels).set(kind.oldest_due_seconds);
        }
    }
    let (size, idle, max) = db.pool_usage();
    m.pool.get_or_create(&PoolLabels { state: "in_use" }).set(i64::from(size.saturating_sub(idle)));
    m.pool.get_or_create(&PoolLabels { state: "idle" }).set(i64::from(idle));
    m.pool.get_or_create(&PoolLabels { state: "max" }).set(i64::from(max));
    let mut out = String::with_capacity(16 * 1024);
    // Writing to a String cannot fail.
    let _ = text::encode(&mut out, &m.registry);
    out
}
