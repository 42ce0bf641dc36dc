//! Every job kind this service runs, in one list, and the housekeeping job.

use std::time::Duration;

use time::macros::time;

use super::{Attempt, Claimed, Job, Registry};
use crate::context::AppContext;

/// The kinds and the daily schedule. A feature adds its kinds here.
pub fn registry() -> Registry<AppContext> {
    let mut registry = Registry::default();
    registry.register::<crate::webhooks::delivery::Deliver>();
    registry.register::<crate::cfdi::cancelacion::SeguirCancelacion>();
    registry.register::<crate::correo::EnviarCorreo>();
    registry.register::<crate::cfdi::live::ConciliarIntento>();
    registry.register::<crate::cfdi::recibidos::sincronizacion::SincronizarRecibidos>();
    registry.register::<crate::cfdi::recibidos::por_uuid::DescargarPorUuid>();
    registry.register::<crate::cfdi::recibidos::por_uuid::ReintentarXml>();
    registry.register::<crate::cfdi::receptor::solicitudes::VencerPlazo>();
    registry.register::<crate::cfdi::retenciones::lote::TimbrarLote>();
    registry.register::<crate::cfdi::recibos::TimbrarGlobal>();
    registry.register::<crate::cfdi::exportacion::ExportarZip>();
    // Chains that write their own next run every TIMBRA_RECEPTOR_POLL_MINUTES; the daily
    // occurrence restarts one that was lost.
    registry.daily::<crate::cfdi::receptor::solicitudes::BuscarSolicitudes>(time!(00:00));
    registry.daily::<crate::cfdi::receptor::estado_sat::VigilarRecibidos>(time!(00:00));
    registry.daily::<PurgeFinished>(time!(03:30));
    registry.daily::<crate::cfdi::vencimiento::CertificadosPorExpirar>(time!(14:00));
    // After midnight in every Mexican zone: each company's closed period, once.
    registry.daily::<crate::cfdi::recibos::PlanearGlobales>(time!(09:00));
    registry
}

/// Daily: deletes finished jobs older than [`PurgeFinished::KEEP`] (and, on PostgreSQL, rate
/// limit buckets that are full again). Dead jobs stay, with their error, until someone looks
/// at them.
pub struct PurgeFinished;

impl PurgeFinished {
    /// How long finished jobs are kept.
    pub const KEEP: Duration = Duration::from_secs(7 * 24 * 3600);
}

impl Job for PurgeFinished {
    type Context = AppContext;
    const KIND: &'static str = "jobs.purge";
    type Payload = super::Day;

    async fn run(app: AppContext, _job: Claimed) -> Attempt {
        let before = app.clock.now() - Self::KEEP;
        let purged = async {
            let mut conn = app.db.conn().await?;
            if app.db.backend() == timbra_store::Backend::Postgres {
                // Buckets full again are the same as absent ones (crate::rate_limit::PgStore).
                timbra_store::jobs::purge_full_rate_buckets(&mut conn).await?;
            }
            timbra_store::jobs::purge_done(&mut conn, before).await
        }
        .await;
        match purged {
            Ok(count) => Attempt::ok(serde_json::json!({ "purged": count })),
            Err(error) => Attempt::retry(error.to_string(), serde_json::Value::Null),
        }
    }
}
