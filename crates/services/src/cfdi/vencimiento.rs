//! The daily `certificado.por_expirar` check: an uploaded CSD whose validity ends within
//! [`AVISO`] gets one event (and its webhook deliveries), recorded on the certificate row so
//! the next days do not repeat it. Uploading a new CSD replaces the row, so the next expiry is
//! announced again. Generated sandbox CSDs are renewed by the service and never announced.

use std::time::Duration;

use crate::context::AppContext;
use crate::events::payloads::CertificadoPorExpirar;
use crate::events::{self, Event};
use crate::jobs::{Attempt, Claimed, Job};
use timbra_store::certificados;

/// How far ahead an expiry is announced (SPEC.md: "CSD expires in 30 days").
pub const AVISO: Duration = Duration::from_secs(30 * 86_400);

/// Daily job: announces uploaded CSDs that expire within [`AVISO`].
pub struct CertificadosPorExpirar;

impl Job for CertificadosPorExpirar {
    type Context = AppContext;
    const KIND: &'static str = "certificados.por_expirar";
    type Payload = crate::jobs::Day;

    async fn run(app: AppContext, _job: Claimed) -> Attempt {
        match avisar(&app).await {
            Ok(avisados) => Attempt::ok(serde_json::json!({ "avisados": avisados })),
            Err(error) => Attempt::retry(error.to_string(), serde_json::Value::Null),
        }
    }
}

/// One transaction per certificate: the event and the mark on the row commit together, so a
/// crash between two certificates neither loses nor repeats an announcement.
async fn avisar(app: &AppContext) -> timbra_store::DbResult<usize> {
    let now = app.clock.now();
    let limite = now + AVISO;
    let pendientes = {
        let mut conn = app.db.conn().await?;
        certificados::por_expirar(&mut conn, now, limite).await?
    };
    let mut avisados = 0;
    for cert in &pendientes {
        let mut tx = app.db.begin().await?;
        let marcados = certificados::marcar_aviso(&mut tx, &cert.id, now).await?;
        if marcados == 1 {
            let aviso = CertificadoPorExpirar {
                empresa_id: cert.empresa_id.as_str().to_owned(),
                no_certificado: cert.no_certificado.clone(),
                rfc: cert.rfc.clone(),
                vigencia_fin: cert.vigencia_fin,
                dias_restantes: (cert.vigencia_fin - now).whole_days(),
            };
            events::emit(&mut tx, now, &cert.empresa_id, &Event::CertificadoPorExpirar(aviso)).await?;
            avisados += 1;
        }
        tx.commit().await?;
    }
    Ok(avisados)
}
