//! SAT's status of a CFDI, issued or received: `GET /api/cfdi/{id}/estado-sat` asks SAT's
//! ConsultaCFDIService with the QR's expression (PROTOCOLS.md §3–4) and stores the answer on
//! the record; [`VigilarRecibidos`] asks again, durably, for every received CFDI (every day
//! within its first `TIMBRA_SAT_VIGILANCIA_DIAS`, then every `TIMBRA_SAT_VIGILANCIA_MENSUAL_DIAS`)
//! and emits `cfdi.estado_cambiado` when SAT's `Estado` or `EstatusCancelacion` changes.
//!
//! Sandbox companies never reach SAT: the same fields come from the service's own records
//! (the invoice, or the sandbox issuer's invoice of a received UUID) and SAT's rules
//! ([`super::cancelable`]), with `fuente: "sandbox"`.

use std::time::Duration;
use timbra_store::ids::{CfdiId, EmpresaId};

use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use timbra_pac::consulta::{DatosExpresion, ErrorConsulta};
use timbra_store::cfdis::{self, EstadoSatGuardado, PorCancelar};
use timbra_store::estados::{EstadoCancelacion, EstadoCfdi};

use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::events::payloads::EstadoCambiado;
use crate::events::{self, Event};
use crate::jobs::{self, Attempt, Claimed, Job, NewJob};

/// `CodigoEstatus` of a found CFDI.
pub const ENCONTRADO: &str = "S - Comprobante obtenido satisfactoriamente.";

/// SAT's status of a CFDI, with SAT's own words.
#[derive(Serialize, ToSchema, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct EstadoSatOut {
    /// The invoice.
    pub cfdi_id: String,
    /// Its UUID as the API shows it.
    pub uuid: String,
    /// `Vigente`, `Cancelado` or `No Encontrado`.
    pub estado: String,
    /// `Cancelable sin aceptación`, `Cancelable con aceptación`, `No cancelable` (empty when
    /// SAT does not know the CFDI).
    pub es_cancelable: String,
    /// Empty, `En proceso`, `Cancelado sin aceptación`, `Cancelado con aceptación`,
    /// `Plazo vencido` or `Solicitud rechazada`.
    pub estatus_cancelacion: String,
    /// `ValidacionEFOS`: `200`/`201` the issuer is not in SAT's 69-B list; `null` when SAT did
    /// not say.
    pub validacion_efos: Option<String>,
    /// `CodigoEstatus`: `S - Comprobante obtenido satisfactoriamente.` or
    /// `N - 602: Comprobante no encontrado.`
    pub codigo_estatus: String,
    /// When SAT (or, in sandbox, the service) answered.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub consultado_en: OffsetDateTime,
    /// `sat` (SAT's status service) or `sandbox` (the service's own records and rules).
    pub fuente: String,
}

/// What SAT's status service said.
struct Leido {
    estado: String,
    es_cancelable: String,
    estatus_cancelacion: String,
    validacion_efos: Option<String>,
    codigo_estatus: String,
}

/// SAT's `EstatusCancelacion` for a cancellation state (sandbox plays SAT).
pub fn estatus_de(estado: Option<EstadoCancelacion>) -> &'static str {
    match estado {
        None => "",
        Some(EstadoCancelacion::Solicitada | EstadoCancelacion::Pendiente) => "En proceso",
        Some(EstadoCancelacion::SinAceptacion) => "Cancelado sin aceptación",
        Some(EstadoCancelacion::Aceptada) => "Cancelado con aceptación",
        Some(EstadoCancelacion::PlazoVencido) => "Plazo vencido",
        Some(EstadoCancelacion::Rechazada) => "Solicitud rechazada",
    }
}

/// SAT's `Estado` of a stored record's status.
fn estado_de_status(status: &str) -> &'static str {
    if status == EstadoCfdi::Cancelado.as_str() { "Cancelado" } else { "Vigente" }
}

/// Sandbox: what SAT would say of `fila` (an invoice of `empresa_id`) at `ahora`.
async fn leer_sandbox(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    fila: &PorCancelar,
    ahora: OffsetDateTime,
) -> ApiResult<Leido> {
    // A received CFDI issued by a sandbox company of this installation: that invoice is the truth.
    let (empresa, cfdi_id, fila_emisor) = if fila.tipo == "RECIBIDA" {
        let mut conn = app.db.conn().await?;
        match cfdis::emitida_sandbox(&mut conn, &fila.uuid_xml).await? {
            Some((empresa, emitida)) => {
                let (empresa, emitida) = (EmpresaId::from(empresa), CfdiId::from(emitida));
                let emisor = cfdis::por_cancelar(&mut conn, &empresa, &emitida).await?;
                (empresa, emitida, emisor)
            }
            None => (empresa_id.clone(), CfdiId::from(id), None),
        }
    } else {
        (empresa_id.clone(), CfdiId::from(id), None)
    };
    let fila = fila_emisor.as_ref().unwrap_or(fila);
    let relacionados = {
        let mut conn = app.db.conn().await?;
        !timbra_store::pagos::pagos_vigentes(&mut conn, &empresa, &cfdi_id).await?.is_empty()
    } || !super::notas_de_credito_vigentes(app, &empresa, fila).await?.is_empty();
    let estado_cancelacion = fila.estado_cancelacion.as_deref().and_then(EstadoCancelacion::parse);
    Ok(Leido {
        estado: estado_de_status(&fila.status).to_owned(),
        es_cancelable: super::cancelable(fila, relacionados, ahora).texto().to_owned(),
        estatus_cancelacion: estatus_de(estado_cancelacion).to_owned(),
        validacion_efos: Some("200".to_owned()),
        codigo_estatus: ENCONTRADO.to_owned(),
    })
}

/// The `Sello` of a stored CFDI's XML (its last 8 characters go in the expression's `fe`).
async fn sello(app: &AppContext, xml_url: Option<&str>) -> String {
    let Some(path) = xml_url else { return String::new() };
    let Ok(xml) = super::leer_xml(app, path).await else { return String::new() };
    let xml = String::from_utf8_lossy(&xml);
    // The Comprobante's own attribute: the TFD's are SelloCFD and SelloSAT.
    xml.split_once(" Sello=\"")
        .and_then(|(_, resto)| resto.split_once('"'))
        .map(|(sello, _)| sello.to_owned())
        .unwrap_or_default()
}

/// What SAT's status service says of the CFDI (`602` is an answer: `No Encontrado`).
async fn leer_sat(app: &AppContext, datos: &DatosExpresion) -> Result<Leido, ErrorConsulta> {
    let cliente = app.cfdi.sat_consulta.as_ref().map_err(|error| ErrorConsulta::Inalcanzable(error.clone()))?;
    match cliente.consultar_datos(datos).await {
        Ok(estado) => Ok(Leido {
            estado: estado.estado,
            es_cancelable: estado.es_cancelable,
            estatus_cancelacion: estado.estatus_cancelacion,
            validacion_efos: estado.validacion_efos,
            codigo_estatus: estado.codigo_estatus,
        }),
        Err(ErrorConsulta::Respondida { codigo, codigo_estatus, estado }) if codigo == "602" => Ok(Leido {
            estado: if estado.is_empty() { "No Encontrado".to_owned() } else { estado },
            es_cancelable: String::new(),
            estatus_cancelacion: String::new(),
            validacion_efos: None,
            codigo_estatus,
        }),
        Err(error) => Err(error),
    }
}

/// A status query that gave no status, as the API answers it.
fn error_consulta(error: &ErrorConsulta) -> ApiError {
    match error {
        ErrorConsulta::Respondida { codigo_estatus, .. } => ApiError::new(
            Code::SatConsulta002,
            format!("SAT refused the status query: «{codigo_estatus}»; check the invoice's RFCs and total; nothing was changed"),
        )
        .with_details(serde_json::json!({ "codigoEstatus": codigo_estatus })),
        ErrorConsulta::Expresion(detalle) => ApiError::new(
            Code::SatConsulta002,
            format!("the invoice's data do not make a valid expresión impresa ({detalle}); nothing was sent to SAT"),
        ),
        otro => {
            let mut answer = ApiError::new(
                Code::SatConsulta001,
                format!("SAT's status service did not answer ({otro}); nothing was changed, try again later"),
            );
            answer.retry_after = Some(60);
            answer
        }
    }
}

/// When the watch asks SAT again about a received CFDI issued at `fecha`: the next day within
/// its first `vigilancia_dias`, then every `vigilancia_mensual_dias`, spread over an hour by its
/// id so a batch does not reach SAT at once.
fn proxima_revision(app: &AppContext, id: &str, fecha: OffsetDateTime, now: OffsetDateTime) -> OffsetDateTime {
    let config = &app.config.receptor;
    let dias =
        if now - fecha < time::Duration::days(config.vigilancia_dias) { 1 } else { config.vigilancia_mensual_dias };
    let dispersion = id.bytes().fold(0u32, |acc, b| acc.wrapping_mul(31).wrapping_add(u32::from(b))) % 3600;
    now + time::Duration::days(dias) + time::Duration::seconds(i64::from(dispersion))
}

/// One invoice to ask about and store.
struct Registro<'a> {
    empresa_id: &'a EmpresaId,
    id: &'a str,
    uuid: &'a str,
    tipo: &'a str,
    tipo_comprobante: &'a str,
    status: &'a str,
    fecha: OffsetDateTime,
}

/// Stores what SAT said; a received CFDI whose `Estado` or `EstatusCancelacion` changed (the
/// first reading compares with the status it was downloaded with) emits `cfdi.estado_cambiado`
/// in the same transaction.
async fn guardar(app: &AppContext, registro: &Registro<'_>, leido: &Leido, now: OffsetDateTime) -> ApiResult<()> {
    let anterior = {
        let mut conn = app.db.conn().await?;
        cfdis::estado_sat(&mut conn, registro.id).await?
    };
    let (previo_estado, previo_estatus) = anterior.clone().unwrap_or_default();
    let previo = (previo_estado.unwrap_or_default(), previo_estatus.unwrap_or_default());
    let (estado_anterior, estatus_anterior) = match anterior {
        Some((Some(estado), estatus)) => (estado, estatus.unwrap_or_default()),
        _ => (estado_de_status(registro.status).to_owned(), String::new()),
    };
    let recibida = registro.tipo == "RECIBIDA";
    let cambiado = estado_anterior != leido.estado || estatus_anterior != leido.estatus_cancelacion;
    let mut tx = app.db.begin().await?;
    let guardado = EstadoSatGuardado {
        estado: &leido.estado,
        es_cancelable: &leido.es_cancelable,
        estatus_cancelacion: &leido.estatus_cancelacion,
        validacion_efos: leido.validacion_efos.as_deref(),
        codigo_estatus: &leido.codigo_estatus,
        consultado_en: now,
        cambiado: cambiado && recibida,
        previo: (&previo.0, &previo.1),
    };
    let revisar_en = recibida.then(|| proxima_revision(app, registro.id, registro.fecha, now));
    if cfdis::guardar_estado_sat(&mut tx, registro.empresa_id, registro.id, &guardado, revisar_en).await? == 0 {
        // Another reading (a concurrent run of the watch, or a request) was stored meanwhile:
        // it announced the change, if there was one.
        return Ok(());
    }
    if cambiado && recibida {
        let evento = EstadoCambiado {
            cfdi_id: registro.id.to_owned(),
            uuid: registro.uuid.to_owned(),
            tipo: registro.tipo_comprobante.to_owned(),
            estado_anterior,
            estado: leido.estado.clone(),
            estatus_cancelacion: leido.estatus_cancelacion.clone(),
        };
        events::emit(&mut tx, now, registro.empresa_id, &Event::CfdiEstadoCambiado(evento)).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// `GET /api/cfdi/{id}/estado-sat`: SAT's status of invoice `id` of the company (issued or
/// received), stored on the record. `ve_nomina`: whether the caller may see payroll receipts
/// (one is not found for who may not).
///
/// # Errors
/// NOT_FOUND (also another company's id); SAT_CONSULTA_001 SAT unreachable (nothing changed,
/// Retry-After); SAT_CONSULTA_002 SAT refused the expression (`N - 601`).
pub async fn consultar(app: &AppContext, empresa_id: &EmpresaId, id: &str, ve_nomina: bool) -> ApiResult<EstadoSatOut> {
    let (fila, sandbox) = {
        let mut conn = app.db.conn().await?;
        let fila = cfdis::por_cancelar(&mut conn, empresa_id, &CfdiId::from(id))
            .await?
            .filter(|fila| ve_nomina || fila.tipo_comprobante != "N")
            .ok_or_else(|| ApiError::not_found("invoice"))?;
        let sandbox = timbra_store::empresas::emisora(&mut conn, empresa_id).await?.sandbox;
        (fila, sandbox)
    };
    let now = app.clock.now();
    let leido = if sandbox {
        leer_sandbox(app, empresa_id, id, &fila, now).await?
    } else {
        let xml_url = {
            let mut conn = app.db.conn().await?;
            cfdis::leer(&mut conn, empresa_id, &CfdiId::from(id)).await?.and_then(|(row, _)| row.xml_url)
        };
        let datos = DatosExpresion {
            uuid: fila.uuid_xml.clone(),
            rfc_emisor: fila.emisor_rfc.clone(),
            rfc_receptor: fila.receptor_rfc.clone(),
            total: fila.total.0.to_string(),
            sello: sello(app, xml_url.as_deref()).await,
        };
        leer_sat(app, &datos).await.map_err(|error| error_consulta(&error))?
    };
    let registro = Registro {
        empresa_id,
        id,
        uuid: &fila.uuid,
        tipo: &fila.tipo,
        tipo_comprobante: &fila.tipo_comprobante,
        status: &fila.status,
        fecha: fila.fecha_timbrado.unwrap_or(fila.fecha),
    };
    guardar(app, &registro, &leido, now).await?;
    Ok(EstadoSatOut {
        cfdi_id: id.to_owned(),
        uuid: fila.uuid,
        estado: leido.estado,
        es_cancelable: leido.es_cancelable,
        estatus_cancelacion: leido.estatus_cancelacion,
        validacion_efos: leido.validacion_efos,
        codigo_estatus: leido.codigo_estatus,
        consultado_en: now,
        fuente: if sandbox { "sandbox" } else { "sat" }.to_owned(),
    })
}

/// The watch of received CFDI: asks SAT about the received CFDI of live companies that are due
/// (at most `TIMBRA_SAT_VIGILANCIA_LOTE` per run, `TIMBRA_SAT_VIGILANCIA_PAUSA_MS` apart),
/// stores each answer and emits `cfdi.estado_cambiado` on a change; then writes its next run
/// (`TIMBRA_RECEPTOR_POLL_MINUTES` later). Seeded daily, so a lost chain restarts.
pub struct VigilarRecibidos;

impl Job for VigilarRecibidos {
    type Context = AppContext;
    const KIND: &'static str = "cfdi.vigilar_recibidos";
    type Payload = crate::jobs::Day;
    const MAX_ATTEMPTS: i64 = 3;

    async fn run(app: AppContext, _job: Claimed) -> Attempt {
        let resultado = vigilar(&app).await;
        let siguiente = siguiente::<Self>(&app).await;
        match (resultado, siguiente) {
            (Ok(info), Ok(())) => Attempt::ok(info),
            (Err(error), _) | (_, Err(error)) => Attempt::retry(error, serde_json::Value::Null),
        }
    }
}

/// Writes the next run of a chained job `poll` from now (once per slot: the dedupe key names it).
pub(super) async fn siguiente<J: Job<Payload = crate::jobs::Day>>(app: &AppContext) -> Result<(), String> {
    let poll = app.config.receptor.poll;
    let at = app.clock.now() + poll;
    let slot = at.unix_timestamp() / i64::try_from(poll.as_secs().max(1)).unwrap_or(i64::MAX);
    let job =
        NewJob::of::<J>(&crate::jobs::Day { day: format!("{slot}") }).at(at).dedupe(format!("{}#{slot}", J::KIND));
    let mut conn = app.db.conn().await.map_err(|e| e.to_string())?;
    jobs::enqueue(&mut conn, app.clock.now(), job).await.map_err(|e| e.to_string())?;
    Ok(())
}

async fn vigilar(app: &AppContext) -> Result<serde_json::Value, String> {
    let config = &app.config.receptor;
    let now = app.clock.now();
    let filas = {
        let mut conn = app.db.conn().await.map_err(|e| e.to_string())?;
        cfdis::por_vigilar(&mut conn, now, config.vigilancia_lote).await.map_err(|e| e.to_string())?
    };
    let (mut consultadas, mut fallidas) = (0, 0);
    for (indice, fila) in filas.iter().enumerate() {
        if indice > 0 && !config.vigilancia_pausa.is_zero() {
            tokio::time::sleep(config.vigilancia_pausa).await;
        }
        let datos = DatosExpresion {
            uuid: fila.uuid_xml.clone(),
            rfc_emisor: fila.emisor_rfc.clone(),
            rfc_receptor: fila.receptor_rfc.clone(),
            total: fila.total.0.to_string(),
            sello: String::new(),
        };
        let now = app.clock.now();
        match leer_sat(app, &datos).await {
            Ok(leido) => {
                let registro = Registro {
                    empresa_id: &fila.empresa_id,
                    id: &fila.id,
                    uuid: &fila.uuid,
                    tipo: "RECIBIDA",
                    tipo_comprobante: &fila.tipo_comprobante,
                    status: &fila.status,
                    fecha: fila.fecha,
                };
                guardar(app, &registro, &leido, now).await.map_err(|e| e.message)?;
                consultadas += 1;
            }
            Err(error) if error.transitorio() => {
                // SAT is not answering: the rest waits for the next run.
                return Err(format!("SAT's status service: {error} (after {consultadas} queries)"));
            }
            Err(error) => {
                // SAT refuses this one (601): ask again a month later rather than every run.
                tracing::warn!(cfdi.id = %fila.id, error = %error, "SAT refused the status query of a received CFDI");
                let mut conn = app.db.conn().await.map_err(|e| e.to_string())?;
                let despues = now + Duration::from_secs(86_400 * config.vigilancia_mensual_dias.unsigned_abs());
                cfdis::posponer_vigilancia(&mut conn, &fila.id, despues).await.map_err(|e| e.to_string())?;
                fallidas += 1;
            }
        }
    }
    Ok(serde_json::json!({ "consultadas": consultadas, "rechazadas": fallidas }))
}

/// A received CFDI whose SAT status changed (the dashboard's Buzón).
#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct RecibidaCambiada {
    /// The invoice.
    pub cfdi_id: String,
    /// Its UUID.
    pub uuid: String,
    /// The issuer's RFC.
    pub emisor_rfc: String,
    /// The issuer's name.
    pub emisor_nombre: String,
    /// Total.
    pub total: String,
    /// SAT's `Estado`.
    pub estado: String,
    /// SAT's `EstatusCancelacion`.
    pub estatus_cancelacion: String,
    /// When the change was seen.
    pub cambiado_en: Option<String>,
}

/// The company's received CFDI whose SAT status changed, latest first (at most `limite`).
pub async fn recibidas_cambiadas(
    app: &AppContext,
    empresa_id: &EmpresaId,
    limite: i64,
) -> ApiResult<Vec<RecibidaCambiada>> {
    let mut conn = app.db.conn().await?;
    let filas = cfdis::recibidas_cambiadas(&mut conn, empresa_id, limite).await?;
    Ok(filas
        .into_iter()
        .map(|fila| RecibidaCambiada {
            cfdi_id: fila.id,
            uuid: fila.uuid,
            emisor_rfc: fila.emisor_rfc,
            emisor_nombre: fila.emisor_nombre,
            total: fila.total.0.to_string(),
            estado: fila.estado_sat.unwrap_or_default(),
            estatus_cancelacion: fila.estatus_cancelacion_sat.unwrap_or_default(),
            cambiado_en: fila
                .estado_sat_cambiado_en
                .map(|at| crate::cfdi::credenciales::rfc3339(super::super::hora_local(at))),
        })
        .collect())
}
