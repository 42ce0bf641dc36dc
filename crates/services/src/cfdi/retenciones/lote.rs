//! A platform's month in one call: `POST /api/retenciones/lote` keeps up to
//! [`MAX_CUERPOS`] bodies of `/api/retenciones/timbrar` in `retenciones_lotes` and a durable
//! job ([`TimbrarLote`], same id) stamps them [`POR_TANDA`] at a time. An invalid body never
//! stops the others: it becomes `{indice, codigo, mensaje}` in the batch's `errores`.
//!
//! In sandbox a chunk is sealed on the sealing threads with predicted folios and written by
//! `pipeline::escribir_lote` (the payroll period's path, at the pipeline's speed); its stamps
//! and the batch's progress commit in one transaction, so a crash resumes at the next chunk
//! and nothing is stamped twice. In live each retention goes through the two-phase pipeline
//! with an Idempotency-Key of its own (`lote:{id}:{indice}`): a run resumed after a crash gets
//! the stamp already made back instead of a second one, and an unknown outcome is resent from
//! its kept attempt.

use std::collections::BTreeMap;
use std::sync::Arc;
use timbra_store::ids::{EmpresaId, UserId};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::{EFECTOS, Preparada, preparar};
use crate::cfdi::pipeline::{self, Peticion, Registro, SelladoLote};
use crate::cfdi::{credenciales, hora_local};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use crate::idempotency::Key;
use crate::jobs::{self, Attempt, Claimed, Job, NewJob};
use timbra_store::empresas::EmpresaEmisora;
use timbra_store::ids;
use timbra_store::retenciones as db;

/// The most bodies one batch takes (a platform's sellers of a month).
pub const MAX_CUERPOS: usize = 10_000;
/// Bodies stamped per transaction.
const POR_TANDA: usize = 250;

/// `202` of `POST /api/retenciones/lote`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoteCreado {
    /// `GET /api/retenciones/lote/{jobId}` follows it.
    pub job_id: String,
    /// Bodies received.
    pub total: i64,
}

/// A body that was not stamped.
#[derive(Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorLote {
    /// 0-based position in the array sent.
    pub indice: i64,
    /// The code `/api/retenciones/timbrar` would have answered (RETENCION_001, PAC_001, …).
    pub codigo: String,
    /// What to fix.
    pub mensaje: String,
}

/// `GET /api/retenciones/lote/{jobId}`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EstadoLote {
    /// PENDIENTE, EN_PROCESO or TERMINADO.
    pub status: String,
    /// Bodies received.
    pub total: i64,
    /// Stamped so far.
    pub timbradas: i64,
    /// Bodies refused so far, by position.
    pub errores: Vec<ErrorLote>,
}

/// What [`TimbrarLote`] carries.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayloadLote {
    /// The batch (and job) id.
    pub lote_id: String,
}

/// Keeps the batch and enqueues its job in one transaction.
pub async fn crear(
    app: &AppContext,
    empresa_id: &EmpresaId,
    user_id: &UserId,
    cuerpos: &[Value],
    now: OffsetDateTime,
) -> ApiResult<LoteCreado> {
    if cuerpos.is_empty() || cuerpos.len() > MAX_CUERPOS {
        return Err(ApiError::fields(
            Code::Retencion001,
            vec![FieldProblem::new(
                "retenciones",
                format!("send 1 to {MAX_CUERPOS} bodies of /api/retenciones/timbrar (got {})", cuerpos.len()),
            )],
        ));
    }
    let id = ids::new_id();
    let total = i64::try_from(cuerpos.len()).map_err(|e| ApiError::internal("lote", e))?;
    let texto = serde_json::to_string(cuerpos).map_err(|e| ApiError::internal("lote", e))?;
    let mut tx = app.db.begin().await?;
    db::crear_lote(&mut tx, &id, empresa_id, user_id, total, &texto, now).await?;
    let job = NewJob::of::<TimbrarLote>(&PayloadLote { lote_id: id.clone() }).for_empresa(empresa_id);
    jobs::enqueue_with_id(&mut tx, now, &id, job).await?;
    tx.commit().await?;
    Ok(LoteCreado { job_id: id, total })
}

/// The batch's progress (another company's is "not found").
pub async fn estado(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> ApiResult<EstadoLote> {
    let mut conn = app.db.conn().await?;
    let lote = db::lote(&mut conn, empresa_id, id).await?.ok_or_else(|| ApiError::not_found("retention batch"))?;
    let errores = serde_json::from_str(&lote.errores).map_err(|e| ApiError::internal("lote", e))?;
    Ok(EstadoLote { status: lote.status, total: lote.total, timbradas: lote.timbradas, errores })
}

/// Stamps a batch, a chunk per transaction; safe to run again (it resumes where it stopped).
pub struct TimbrarLote;

impl Job for TimbrarLote {
    type Context = AppContext;
    const KIND: &'static str = "retenciones.lote";
    type Payload = PayloadLote;
    // A PAC or database down for a while delays the batch; it resumes where it stopped.
    const MAX_ATTEMPTS: i64 = 20;

    async fn run(app: AppContext, job: Claimed) -> Attempt {
        let payload = match job.payload::<Self>() {
            Ok(payload) => payload,
            Err(error) => return Attempt::fail(error),
        };
        match procesar(&app, &payload.lote_id).await {
            Ok(info) => Attempt::ok(info),
            Err(error) => Attempt::retry(format!("{}: {}", error.code.as_str(), error.message), Value::Null),
        }
    }
}

/// Where a batch stands while its job runs.
struct Avance {
    lote_id: String,
    siguiente: usize,
    timbradas: i64,
    errores: Vec<ErrorLote>,
    total: usize,
}

impl Avance {
    async fn guardar(&self, tx: &mut timbra_store::Tx, now: OffsetDateTime) -> ApiResult<()> {
        let errores = serde_json::to_string(&self.errores).map_err(|e| ApiError::internal("lote", e))?;
        let siguiente = i64::try_from(self.siguiente).map_err(|e| ApiError::internal("lote", e))?;
        db::avanzar_lote(tx, &self.lote_id, siguiente, self.timbradas, &errores, self.siguiente >= self.total, now)
            .await?;
        Ok(())
    }

    fn rechazada(&mut self, indice: usize, error: &ApiError) {
        let indice_i64 = i64::try_from(indice).unwrap_or(i64::MAX);
        // A chunk run again after a failure reads its bodies again.
        if self.errores.iter().any(|e| e.indice == indice_i64) {
            return;
        }
        let mut mensaje = error.message.clone();
        if let Some(problemas) = error.details.get("problemas").and_then(Value::as_array) {
            let textos: Vec<&str> = problemas.iter().filter_map(|p| p["mensaje"].as_str()).collect();
            if !textos.is_empty() {
                mensaje = textos.join("; ");
            }
        }
        self.errores.push(ErrorLote { indice: indice_i64, codigo: error.code.as_str().to_owned(), mensaje });
    }
}

async fn procesar(app: &AppContext, lote_id: &str) -> ApiResult<Value> {
    let (lote, cuerpos, empresa) = {
        let mut conn = app.db.conn().await?;
        let Some(lote) = db::lote_por_id(&mut conn, lote_id).await? else {
            return Ok(json!({ "skipped": "no such batch" }));
        };
        if lote.status == "TERMINADO" {
            return Ok(json!({ "skipped": "TERMINADO" }));
        }
        let cuerpos: Vec<Value> =
            serde_json::from_str(&db::cuerpos(&mut conn, lote_id).await?).map_err(|e| ApiError::internal("lote", e))?;
        let empresa = timbra_store::empresas::emisora(&mut conn, &lote.empresa_id).await?;
        (lote, cuerpos, empresa)
    };
    let mut avance = Avance {
        lote_id: lote_id.to_owned(),
        siguiente: usize::try_from(lote.siguiente).unwrap_or(0),
        timbradas: lote.timbradas,
        errores: serde_json::from_str(&lote.errores).map_err(|e| ApiError::internal("lote", e))?,
        total: cuerpos.len(),
    };
    // The sandbox keys once per run, not per chunk.
    let claves = if empresa.sandbox {
        let csd = credenciales::csd_sandbox(app, &empresa.id, &empresa.rfc, &empresa.razon_social).await?;
        Some((csd, credenciales::pac_sandbox(app).await?))
    } else {
        None
    };
    while avance.siguiente < cuerpos.len() {
        let fin = (avance.siguiente + POR_TANDA).min(cuerpos.len());
        let now = app.clock.now();
        let mut listas = Vec::with_capacity(fin - avance.siguiente);
        for (indice, cuerpo) in cuerpos.iter().enumerate().take(fin).skip(avance.siguiente) {
            match preparar(app, &empresa, cuerpo.clone(), now) {
                Ok(preparada) => listas.push((indice, preparada)),
                Err(error) => avance.rechazada(indice, &error),
            }
        }
        if let Some((csd, pac)) = &claves {
            tanda_sandbox(app, &empresa, (csd, pac), listas, &mut avance, fin, now).await?;
        } else {
            tanda_live(app, &empresa, &lote.user_id, listas, &mut avance, fin, now).await?;
        }
    }
    Ok(json!({ "timbradas": avance.timbradas, "errores": avance.errores.len() }))
}

/// One sandbox chunk: sealed with predicted folios per serie, written with the batch's
/// progress in one transaction.
async fn tanda_sandbox(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    (csd, pac): (&Arc<credenciales::Csd>, &Arc<timbra_credentials::Credential>),
    listas: Vec<(usize, Preparada)>,
    avance: &mut Avance,
    fin: usize,
    now: OffsetDateTime,
) -> ApiResult<()> {
    let fecha_local = hora_local(now.replace_nanosecond(0).unwrap_or(now));
    let mut por_serie: BTreeMap<String, Vec<Preparada>> = BTreeMap::new();
    for (_, preparada) in listas {
        por_serie.entry(preparada.documento.serie.clone()).or_default().push(preparada);
    }
    let mut lotes = Vec::with_capacity(por_serie.len());
    for (serie, preparadas) in por_serie {
        let ultimo = pipeline::ultimo_folio(app, &empresa.id, true, &serie).await?;
        let mut registros = Vec::with_capacity(preparadas.len());
        let trabajos: Vec<pipeline::Trabajo> = preparadas
            .into_iter()
            .zip(ultimo + 1..)
            .map(|(preparada, folio)| {
                let documento = preparada.documento;
                let datos = pipeline::timbre_sandbox(fecha_local);
                registros.push((
                    Registro::nuevo(empresa, fecha_local, documento.serie, None, documento.operacion),
                    datos.clone(),
                    folio,
                ));
                (documento.contenido, folio, datos)
            })
            .collect();
        let mut sellos = pipeline::sellar_en_orden(trabajos, csd, pac);
        let mut lote = Vec::with_capacity(registros.len());
        for (registro, datos, folio) in registros {
            let (contenido, sellado, xml_comprimido) = sellos
                .siguiente()
                .await
                .unwrap_or_else(|| Err(ApiError::internal("sello", "a sealing thread stopped")))?;
            lote.push(SelladoLote {
                fila: sellado.fila(&*app.catalogos.indice)?,
                registro,
                contenido,
                datos,
                folio,
                xml_comprimido,
            });
        }
        lotes.push((serie, lote));
    }
    let mut tx = app.db.begin().await?;
    let mut escritas = 0;
    for (serie, lote) in &mut lotes {
        pipeline::escribir_lote(&mut tx, &empresa.id, serie, lote, Some(&EFECTOS), csd, pac, fecha_local, now).await?;
        escritas += lote.len();
    }
    let antes = (avance.siguiente, avance.timbradas);
    avance.siguiente = fin;
    avance.timbradas += i64::try_from(escritas).map_err(|e| ApiError::internal("lote", e))?;
    if let Err(error) = async {
        avance.guardar(&mut tx, now).await?;
        tx.commit().await?;
        Ok::<_, ApiError>(())
    }
    .await
    {
        (avance.siguiente, avance.timbradas) = antes;
        return Err(error);
    }
    for _ in 0..escritas {
        crate::metrics::metrics().stamp(true, "stamped");
    }
    Ok(())
}

/// One live chunk: each retention through the two-phase pipeline with its own
/// Idempotency-Key, the batch's progress saved after each.
async fn tanda_live(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    user_id: &UserId,
    listas: Vec<(usize, Preparada)>,
    avance: &mut Avance,
    fin: usize,
    now: OffsetDateTime,
) -> ApiResult<()> {
    for (indice, preparada) in listas {
        let hash = format!("{}:{}:{indice}", super::OPERACION, avance.lote_id);
        let clave = Key { key: format!("lote:{}:{indice}", avance.lote_id), request_hash: hash.clone() };
        let peticion = Peticion {
            empresa,
            user_id,
            mode: "live",
            clave: Some(&clave),
            request_hash: hash,
            now,
            fecha_local: preparada.fecha_local,
        };
        let efectos: Arc<dyn pipeline::Efectos> = preparada.efectos;
        match pipeline::timbrar_con_efectos(app, &peticion, preparada.documento, Some(efectos)).await {
            Ok(_) => avance.timbradas += 1,
            Err(error) if error.code.status().is_client_error() || error.code == Code::Pac001 => {
                avance.rechazada(indice, &error);
            }
            // Unknown outcome or the service failing: what was done is saved, the job runs
            // again later and resends this one's kept attempt.
            Err(error) => {
                avance.siguiente = indice;
                let mut tx = app.db.begin().await?;
                avance.guardar(&mut tx, now).await?;
                tx.commit().await?;
                return Err(error);
            }
        }
        avance.siguiente = indice + 1;
        let mut tx = app.db.begin().await?;
        avance.guardar(&mut tx, now).await?;
        tx.commit().await?;
    }
    avance.siguiente = fin;
    let mut tx = app.db.begin().await?;
    avance.guardar(&mut tx, now).await?;
    tx.commit().await?;
    Ok(())
}
