//! Live stamping, two-phase, so a stamp is never lost and never made twice:
//!
//! 1. **Reserve** (one transaction): a stamp of the balance, the next folio of the serie, the
//!    sealed XML, the attempt row that keeps that XML (`intentos_timbrado`, status `ENVIADO`),
//!    the Idempotency-Key held for it, and a reconcile job due after the PAC's timeout (it
//!    finds the attempt if this process dies before the answer is recorded).
//! 2. **PAC call** with recovery (`timbra_pac::timbrar_sin_duplicar`: `stamp`, then `stamped`
//!    and `stamp` again after an unknown outcome).
//! 3. **Resolve**: stamped → the invoice is persisted from the PAC's XML (`pipeline::persistir`);
//!    refused → the attempt is `RECHAZADO` and the stamp and key are given back; anything else
//!    (timeout, dropped connection, 5xx, SOAP Fault, garbage) → the outcome is *unknown*: the
//!    attempt is `SIN_RESPUESTA`, the stamp and key stay held, and the client is told so.
//!
//! An unknown attempt is resolved by resending its own sealed XML — by a retry of the same
//! request (same Idempotency-Key, or the same body) or by [`ConciliarIntento`] — until the PAC
//! says what happened: Finkok answers a resent, already stamped XML with 307 and the original
//! stamp. A new folio is never spent while an earlier attempt might have stamped.

use std::sync::Arc;
use std::time::Duration;
use timbra_store::ids::{CfdiId, EmpresaId, UserId};

use crate::idempotency::Answer;
use serde_json::json;
use timbra_pac::{PacError, Timbrado as TimbradoPac};
use time::OffsetDateTime;

use super::documento::Sellable;
use super::pac_log::{self, PacCall};
use super::pipeline::{Efectos, Peticion, Registro, Timbrado, persistir, siguiente_folio};
use super::tipos::{self, TipoDocumento};
use super::{credenciales, hora_local, leer_fecha_cfdi};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::events::payloads::SaldoBajo;
use crate::events::{self, Event};
use crate::idempotency::{self, Key, Uso};
use crate::jobs::{self, Attempt, Claimed, Job, NewJob};
use timbra_store::cfdi_xml;
use timbra_store::empresas::EmpresaEmisora;
use timbra_store::intentos::{self, Intento};
use timbra_store::timbres;

/// How long after a PAC call was sent an `ENVIADO` attempt is taken as abandoned (its process
/// died): the PAC's timeout, the recovery calls, and a margin.
fn abandono(app: &AppContext) -> time::Duration {
    let timeout = app.config.pac.as_ref().map_or(Duration::from_secs(30), |pac| pac.timeout);
    time::Duration::try_from(timeout * 3 + Duration::from_secs(30)).unwrap_or(time::Duration::minutes(2))
}

/// Live stamping of a prepared comprobante: a retry of an unresolved attempt of the same
/// request resends it; otherwise reserve (with the document's `efectos`), call the PAC,
/// resolve.
pub(super) async fn timbrar(
    app: &AppContext,
    peticion: &Peticion<'_>,
    contenido: &dyn Sellable,
    registro: &Registro,
    csd: Arc<credenciales::Csd>,
    pac: Arc<dyn timbra_pac::Pac>,
    efectos: Option<&dyn Efectos>,
) -> ApiResult<Answer> {
    let empresa_id = &peticion.empresa.id;
    let now = peticion.now;
    let pendiente = {
        let mut conn = app.db.conn().await?;
        intentos::pendiente_por_hash(&mut conn, empresa_id, &peticion.request_hash).await?
    };
    if let Some(intento) = pendiente {
        return reenviar(app, peticion.empresa, peticion.mode, intento, pac.as_ref(), now).await;
    }
    let servicio = tipos::por_operacion(Some(registro.operacion))
        .ok_or_else(|| ApiError::internal("live stamp", format!("no document type stamps {}", registro.operacion)))?
        .servicio_pac;

    let mut tx = app.db.begin().await?;
    // Held from here until the PAC answers: given back on a refusal, kept while unknown.
    if let Some(efectos) = efectos {
        efectos.aplicar(&mut tx, &registro.cfdi_id, now).await?;
    }
    let Some(saldo) = timbres::tomar(&mut tx, empresa_id, now).await? else {
        return Err(ApiError::new(
            Code::Quota001,
            "this company has no stamps left: add stamps at POST /api/timbres/recargas (PROPIETARIO)",
        ));
    };
    // Crossing the threshold (not every stamp below it) announces the low balance.
    let umbral = app.config.stamp_low_balance;
    if saldo == umbral - 1 {
        let aviso = SaldoBajo { empresa_id: empresa_id.as_str().to_owned(), saldo, umbral };
        events::emit(&mut tx, now, empresa_id, &Event::TimbresSaldoBajo(aviso)).await?;
    }
    let folio = siguiente_folio(&mut tx, empresa_id, false, &registro.serie, now).await?;
    let xml = contenido.sellado(folio, &csd.credential)?.xml()?;
    let intento = Intento {
        id: registro.cfdi_id.as_str().to_owned(),
        empresa_id: empresa_id.clone(),
        serie: registro.serie.clone(),
        folio,
        status: intentos::ENVIADO.to_owned(),
        xml_sellado: Some(xml),
        request_hash: Some(peticion.request_hash.clone()),
        idempotency_key: peticion.clave.map(|clave| clave.key.clone()),
        user_id: Some(peticion.user_id.as_str().to_owned()),
        cliente_id: registro.cliente_id.clone(),
        xml_path: Some(registro.xml_path.clone()),
        operacion: Some(registro.operacion.to_owned()),
        updated_at: now,
    };
    intentos::insertar(&mut tx, &intento, now).await?;
    if let Some(clave) = peticion.clave
        && !idempotency::reserve_for(&mut tx, empresa_id, clave, Uso::de(registro.operacion), &intento.id, now).await?
    {
        // Another request with this key got there first: nothing of this one is kept.
        drop(tx);
        return idempotency::winner(&app.db, empresa_id, clave, Some(Uso::de(registro.operacion)), now).await;
    }
    // Found by the job if this process dies before the answer is recorded.
    let conciliar = NewJob::of::<ConciliarIntento>(&Conciliacion { intento_id: intento.id.clone() })
        .for_empresa(empresa_id)
        .at(now + abandono(app));
    jobs::enqueue(&mut tx, now, conciliar).await?;
    tx.commit().await?;

    let xml = intento.xml_sellado.as_deref().unwrap_or_default();
    let llamada = PacCall::new("stamp", empresa_id).cfdi(&intento.id, Some(&intento.serie), Some(intento.folio));
    let respuesta =
        pac_log::logged(llamada.recovery(recuperacion), timbra_pac::timbrar_sin_duplicar(pac.as_ref(), servicio, xml))
            .await;
    resolver(app, peticion.empresa, peticion.mode, &intento, respuesta, now).await
}

/// What happens after a stamping call fails, for its log line.
fn recuperacion(error: &PacError) -> &'static str {
    if error.is_indeterminate() {
        "outcome unknown: attempt SIN_RESPUESTA, reconciled by a retry or the job"
    } else {
        "refused: attempt RECHAZADO, stamp and key given back"
    }
}

/// Resends the sealed XML of an unresolved attempt and resolves it; IDEMPOTENCY_002 while
/// another request or the job is sending it.
async fn reenviar(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    mode: &str,
    intento: Intento,
    pac: &dyn timbra_pac::Pac,
    now: OffsetDateTime,
) -> ApiResult<Answer> {
    let tomado = {
        let mut tx = app.db.begin().await?;
        let tomado = intentos::tomar_para_reenvio(&mut tx, &intento.id, now, now - abandono(app)).await?;
        tx.commit().await?;
        tomado
    };
    if !tomado {
        return Err(ApiError::new(
            Code::Idempotency002,
            format!(
                "folio {}-{} of this same request is being sent to the PAC right now; retry in a few seconds",
                intento.serie, intento.folio
            ),
        ));
    }
    let xml = intento.xml_sellado.as_deref().unwrap_or_default();
    let servicio = tipo_guardado(&intento)?.servicio_pac;
    // Ask first: the earlier send may have stamped. Only when the PAC knows no stamp of this
    // XML is it sent again, and only then does a refusal prove that nothing was stamped; a
    // failed question (even a refusal such as 300, bad credentials) leaves the outcome unknown.
    let consulta = PacCall::new("stamped", &intento.empresa_id)
        .cfdi(&intento.id, Some(&intento.serie), Some(intento.folio))
        .recovery(|_| "outcome stays unknown; reconciled later");
    let respuesta = match pac_log::logged(consulta, pac.consultar_en(servicio, xml)).await {
        Ok(Some(timbrado)) => Ok(timbrado),
        Ok(None) => {
            let envio = PacCall::new("stamp", &intento.empresa_id)
                .cfdi(&intento.id, Some(&intento.serie), Some(intento.folio))
                .recovery(recuperacion);
            pac_log::logged(envio, timbra_pac::timbrar_sin_duplicar(pac, servicio, xml)).await
        }
        Err(error) if error.is_indeterminate() => Err(error),
        Err(error) => Err(PacError::Transport(format!("asking for an earlier stamp: {error}"))),
    };
    resolver(app, empresa, mode, &intento, respuesta, now).await
}

/// Records what the PAC said about `intento` and answers as the first request would have.
async fn resolver(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    mode: &str,
    intento: &Intento,
    respuesta: Result<TimbradoPac, PacError>,
    now: OffsetDateTime,
) -> ApiResult<Answer> {
    let clave = clave(intento);
    let (serie, folio) = (&intento.serie, intento.folio);
    let timbrado = match respuesta {
        Ok(timbrado) => timbrado,
        Err(error) if error.is_indeterminate() => {
            let mut tx = app.db.begin().await?;
            intentos::sin_respuesta(&mut tx, &intento.id, &pac_log::summary(&error), app.clock.now()).await?;
            tx.commit().await?;
            tracing::warn!(intento.id = %intento.id, cfdi.serie = %serie, cfdi.folio = folio, error.message = %error,
                "PAC outcome unknown; the attempt is kept for reconciliation");
            let consequence = format!(
                "folio {serie}-{folio} may have been stamped, so it is being reconciled with the PAC; send the same \
                 request again (same Idempotency-Key or the same body) to get its stamp: no new folio is spent"
            );
            return Err(ApiError::pac(&error, &consequence).with_details(json!({
                "pacCode": error.code(), "intentoId": intento.id, "serie": serie, "folio": folio,
            })));
        }
        Err(error) => {
            // A refusal: nothing was stamped. The stamp and the key are given back.
            let mut tx = app.db.begin().await?;
            let cambiado =
                intentos::rechazado(&mut tx, &intento.id, error.code(), &pac_log::summary(&error), app.clock.now())
                    .await?;
            if cambiado {
                timbres::devolver(&mut tx, &intento.empresa_id, now).await?;
                if let Some(efectos) = tipo_guardado(intento)?.efectos_guardados {
                    efectos
                        .devolver(
                            &mut tx,
                            &EmpresaId::from(intento.empresa_id.as_str()),
                            &CfdiId::from(&intento.id),
                            now,
                        )
                        .await?;
                }
                if let Some(clave) = &clave {
                    idempotency::release(&mut tx, &intento.empresa_id, clave).await?;
                }
            }
            tx.commit().await?;
            let consequence = format!("folio {serie}-{folio} is recorded as a refused attempt; fix and send again");
            return Err(ApiError::pac(&error, &consequence).with_details(json!({
                "pacCode": error.code(), "intentoId": intento.id, "serie": serie, "folio": folio,
            })));
        }
    };
    let mut tx = app.db.begin().await?;
    if !intentos::timbrado(&mut tx, &intento.id, app.clock.now()).await? {
        // Another request or the job recorded this stamp first.
        drop(tx);
        return match &clave {
            Some(clave) => idempotency::winner(&app.db, &intento.empresa_id, clave, None, now).await,
            None => Err(ApiError::new(
                Code::Idempotency002,
                format!(
                    "folio {serie}-{folio} was stamped and recorded by an identical request: it is invoice {}",
                    intento.id
                ),
            )),
        };
    }
    let concepto = format!("timbrado {}", timbrado.uuid);
    timbres::movimiento(
        &mut tx,
        &intento.empresa_id,
        -1,
        &concepto,
        &UserId::from(intento.user_id.as_deref().unwrap_or_default()),
        now,
    )
    .await?;
    let tipo = tipo_guardado(intento)?;
    let documento = (tipo.leer_timbrado)(&timbrado.xml)?;
    let uuid = timbrado.uuid.to_uppercase();
    let fecha_local = hora_local(now.replace_nanosecond(0).unwrap_or(now));
    let stamped = Timbrado {
        documento,
        xml_comprimido: cfdi_xml::comprimir(&timbrado.xml),
        folio,
        uuid_xml: uuid.clone(),
        uuid_api: uuid,
        timbrado_en: leer_fecha_cfdi(&timbrado.fecha_timbrado).unwrap_or(fecha_local),
    };
    let xml_path =
        intento.xml_path.clone().unwrap_or_else(|| format!("cfdi/{}/{}.xml", intento.empresa_id, intento.id));
    let (operacion, efectos) = (tipo.operacion, tipo.efectos_guardados);
    let registro = Registro {
        cfdi_id: CfdiId::from(intento.id.clone()),
        sandbox: false,
        serie: serie.clone(),
        cliente_id: intento.cliente_id.clone(),
        xml_path,
        operacion,
    };
    let request_hash = intento.request_hash.clone().unwrap_or_default();
    let peticion = Peticion {
        empresa,
        user_id: &UserId::from(intento.user_id.as_deref().unwrap_or_default()),
        mode,
        clave: clave.as_ref(),
        request_hash,
        now,
        fecha_local,
    };
    persistir(app, tx, &peticion, &registro, stamped, true, efectos).await
}

/// The document type of a stored attempt, by its operation name ([`tipos::por_operacion`]): an
/// attempt is resolved in another request or by the job, where only this name says what it
/// stamps. A name no type claims is an error, never taken for an invoice.
fn tipo_guardado(intento: &Intento) -> ApiResult<&'static TipoDocumento> {
    tipos::por_operacion(intento.operacion.as_deref()).ok_or_else(|| {
        ApiError::internal("live attempt", format!("{} has an unknown operation {:?}", intento.id, intento.operacion))
    })
}

/// What a [`ConciliarIntento`] job carries.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conciliacion {
    /// The attempt to resolve.
    pub intento_id: String,
}

/// Resolves a live attempt whose outcome is unknown (or whose process died mid-call) by
/// resending its sealed XML until the PAC says stamped or refused. Enqueued with every
/// attempt, due once the attempt would be abandoned; a resolved attempt makes it a no-op.
pub struct ConciliarIntento;

impl Job for ConciliarIntento {
    type Context = AppContext;
    const KIND: &'static str = "cfdi.conciliar_intento";
    type Payload = Conciliacion;
    // Every 5 minutes for two days: a PAC down longer than that is an incident for people.
    const MAX_ATTEMPTS: i64 = 576;

    fn backoff(_attempt: i64) -> Duration {
        Duration::from_secs(300)
    }

    async fn run(app: AppContext, job: Claimed) -> Attempt {
        match conciliar(&app, &job).await {
            Ok(info) => Attempt::ok(info),
            Err(error) => Attempt::retry(error, serde_json::Value::Null),
        }
    }
}

async fn conciliar(app: &AppContext, job: &Claimed) -> Result<serde_json::Value, String> {
    let Conciliacion { intento_id } = job.payload::<ConciliarIntento>()?;
    let now = app.clock.now();
    let (intento, empresa) = {
        let mut conn = app.db.conn().await.map_err(|e| e.to_string())?;
        let Some(intento) = intentos::leer(&mut conn, &intento_id).await.map_err(|e| e.to_string())? else {
            return Ok(json!({ "skipped": "no such attempt" }));
        };
        let empresa =
            timbra_store::empresas::emisora(&mut conn, &intento.empresa_id).await.map_err(|e| e.to_string())?;
        (intento, empresa)
    };
    match intento.status.as_str() {
        intentos::SIN_RESPUESTA => {}
        intentos::ENVIADO if intento.updated_at <= now - abandono(app) => {}
        intentos::ENVIADO => return Err("the attempt is still being sent".into()),
        resolved => return Ok(json!({ "skipped": resolved })),
    }
    let pac = app.pac.clone().ok_or("no PAC configured (TIMBRA_PAC_URL)")?;
    match reenviar(app, &empresa, "live", intento, pac.as_ref(), now).await {
        Ok(_) => Ok(json!({ "resolved": "TIMBRADO" })),
        Err(error) if error.code == Code::Pac001 => Ok(json!({ "resolved": "RECHAZADO" })),
        Err(error) => Err(format!("{}: {}", error.code.as_str(), error.message)),
    }
}

/// The Idempotency-Key the attempt holds, as the request sent it.
fn clave(intento: &Intento) -> Option<Key> {
    Some(Key { key: intento.idempotency_key.clone()?, request_hash: intento.request_hash.clone().unwrap_or_default() })
}
