//! CFDI by e-mail (issue 32). [`enviar`] checks the addresses and writes a PENDIENTE `correos`
//! row with its durable job ([`EnviarCorreo`], `correo.enviar`) in one transaction; the job
//! renders the message (Spanish text and HTML naming the issuer, serie-folio, total and UUID,
//! with `<UUID>.xml`, the stored bytes, and `<UUID>.pdf`) and hands it to the SMTP server of
//! `TIMBRA_SMTP_URL`. A failed attempt is retried on the webhooks' schedule (1 min, 5 min,
//! 30 min, 2 h, 24 h), then the sending is FALLIDO; `correo.enviado` / `correo.fallido` are
//! emitted with the outcome. The queue's claim runs each job on one worker of the fleet, so two
//! instances send each e-mail once.
//!
//! A stamp asks for its e-mail with `enviarCorreo` (or the company's `enviarAlTimbrar`):
//! [`efectos_al_timbrar`] gives the pipeline hooks ([`ConCorreo`]) that write the sending and its
//! job in the stamp's own transaction. A cancellation notice goes to the addresses of the CFDI's
//! last sending ([`aviso_de_cancelacion`], in the transaction that records the cancellation).

use std::sync::Arc;
use std::time::Duration;
use timbra_store::ids::{CfdiId, EmpresaId};

use lettre::message::header::{ContentTransferEncoding, ContentType};
use lettre::message::{Attachment, Body, Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde_json::{Value, json};
use time::OffsetDateTime;

pub mod direccion;

use crate::cfdi::pipeline::{Efectos, Escrito, Hecho};
use direccion::{direccion_valida, sin_saltos, tiene_saltos};

use crate::config::SmtpConfig;
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::events::{self, Event, payloads};
use crate::jobs::{Attempt, Claimed, Job, NewJob, Next, enqueue};
use timbra_store::correos::{self, CorreoRow, NuevoCorreo};
use timbra_store::{Tx, ids};

/// The most addresses in `para` and `cc` together.
pub const MAX_DIRECCIONES: usize = 20;

/// PENDIENTE: queued or waiting for a retry.
pub const PENDIENTE: &str = "PENDIENTE";
/// ENVIADO: the SMTP server accepted it.
pub const ENVIADO: &str = "ENVIADO";
/// FALLIDO: every attempt failed.
pub const FALLIDO: &str = "FALLIDO";

fn invalida(campo: &str, direccion: &str) -> ApiError {
    ApiError::new(
        Code::Correo002,
        format!("{campo} is not a valid e-mail address ({direccion:?}): send one address like nombre@dominio.com"),
    )
    .with_details(json!({ "campo": campo, "direccion": direccion }))
}

/// The addresses of `lista` checked: trimmed, each valid (CORREO_002 names the first that is
/// not), duplicates dropped.
fn direcciones(campo: &str, lista: &[String]) -> ApiResult<Vec<String>> {
    let mut vistas: Vec<String> = Vec::new();
    for (i, direccion) in lista.iter().enumerate() {
        let limpia = direccion.trim_matches(' ');
        if !direccion_valida(limpia) {
            return Err(invalida(&format!("{campo}[{i}]"), direccion));
        }
        if !vistas.iter().any(|vista| vista.eq_ignore_ascii_case(limpia)) {
            vistas.push(limpia.to_owned());
        }
    }
    Ok(vistas)
}

/// CORREO_001 unless e-mail is configured.
fn smtp(app: &AppContext) -> ApiResult<&SmtpConfig> {
    app.config.smtp.as_ref().ok_or_else(|| {
        ApiError::new(
            Code::Correo001,
            "e-mail is not configured on this installation: set TIMBRA_SMTP_URL and TIMBRA_SMTP_FROM and restart",
        )
    })
}

/// CORREO_001 unless e-mail is configured (a setting that sends, such as a pay period's
/// `enviarCorreo`, is refused without it).
pub fn exigir_smtp(app: &AppContext) -> ApiResult<()> {
    smtp(app).map(drop)
}

/// A sending queued: its id and its addresses.
#[derive(Clone, Debug)]
pub struct Encolado {
    /// The `correos` row (`envioId`).
    pub envio_id: String,
    /// The addresses it goes to.
    pub para: Vec<String>,
}

/// Queues the e-mail of the company's CFDI `cfdi_id` (the caller checked it may read it) to
/// `para` (default: its customer's `email`) and `cc`: CORREO_001 without SMTP, CORREO_002 for an
/// invalid address, CORREO_003 without any, NOT_FOUND for an unknown CFDI or one without XML.
pub async fn enviar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    para: Option<&[String]>,
    cc: Option<&[String]>,
) -> ApiResult<Encolado> {
    smtp(app)?;
    let para = direcciones("para", para.unwrap_or_default())?;
    let cc = direcciones("cc", cc.unwrap_or_default())?;
    if para.len() + cc.len() > MAX_DIRECCIONES {
        return Err(ApiError::new(
            Code::Correo002,
            format!("at most {MAX_DIRECCIONES} addresses in para and cc together; send several e-mails"),
        )
        .with_details(json!({ "campo": "para" })));
    }
    let mut conn = app.db.conn().await?;
    let (row, _) = timbra_store::cfdis::leer(&mut conn, empresa_id, cfdi_id)
        .await?
        .ok_or_else(|| ApiError::not_found("invoice"))?;
    if row.xml_url.is_none() {
        return Err(ApiError::not_found("XML of this invoice"));
    }
    let para = if para.is_empty() {
        match direccion_guardada(&mut conn, empresa_id, cfdi_id, &row.tipo_comprobante).await? {
            Some(email) if direccion_valida(&email) => vec![email],
            _ => {
                return Err(ApiError::new(
                    Code::Correo003,
                    "this CFDI has no address to send it to (its customer, or a payroll receipt's employee, has no \
                     email): send para, or set the customer's or employee's email",
                ));
            }
        }
    } else {
        para
    };
    drop(conn);
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let envio_id = encolar(&mut tx, now, empresa_id, cfdi_id, "TIMBRADO", &para, &cc).await?;
    tx.commit().await?;
    Ok(Encolado { envio_id, para })
}

/// The stored address a CFDI goes to by default: a payroll receipt's (type N) employee's
/// `email`, any other CFDI's customer's.
async fn direccion_guardada(
    conn: &mut impl timbra_store::AsExec,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    tipo_comprobante: &str,
) -> ApiResult<Option<String>> {
    let email = if tipo_comprobante == "N" {
        correos::email_del_empleado(conn, empresa_id, cfdi_id).await?
    } else {
        correos::email_del_cliente(conn, empresa_id, cfdi_id).await?
    };
    Ok(email.map(|email| email.trim().to_owned()))
}

/// Writes a PENDIENTE sending and its job in `tx`. Returns its id.
async fn encolar(
    tx: &mut Tx,
    now: OffsetDateTime,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    motivo: &str,
    para: &[String],
    cc: &[String],
) -> ApiResult<String> {
    let id = ids::new_id();
    let para = serde_json::to_string(para).map_err(|e| ApiError::internal("correo para", e))?;
    let cc = serde_json::to_string(cc).map_err(|e| ApiError::internal("correo cc", e))?;
    let nuevo = NuevoCorreo { id: &id, empresa_id, cfdi_id, motivo, para: &para, cc: &cc };
    correos::crear(tx, &nuevo, now).await?;
    let payload = Payload { envio_id: id.clone() };
    enqueue(tx, now, NewJob::of::<EnviarCorreo>(&payload).for_empresa(empresa_id)).await?;
    Ok(id)
}

/// Whether a stamp queues its e-mail: when the body asked for it (`enviarCorreo`) or, the body
/// silent, when the company sends on every stamp (`enviarAlTimbrar`).
pub async fn quiere_al_timbrar(app: &AppContext, empresa_id: &EmpresaId, pedido: Option<bool>) -> bool {
    match pedido {
        Some(pedido) => pedido,
        None => {
            let ajustes = async {
                let mut conn = app.db.conn().await?;
                correos::ajustes(&mut conn, empresa_id).await
            }
            .await;
            matches!(ajustes, Ok(Some((ajustes, _))) if ajustes.correo_enviar_al_timbrar)
        }
    }
}

/// The stamp's hooks with its e-mail: `interior` (the document type's own [`Efectos`], or the
/// pipeline's defaults) when no e-mail is wanted ([`quiere_al_timbrar`]), or `interior` plus
/// the sending written in the stamp's own transaction, so an acknowledged stamp never loses its
/// e-mail.
pub async fn efectos_al_timbrar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    pedido: Option<bool>,
    interior: Option<Arc<dyn Efectos>>,
) -> Option<Arc<dyn Efectos>> {
    if !quiere_al_timbrar(app, empresa_id, pedido).await {
        return interior;
    }
    Some(Arc::new(ConCorreo { interior, smtp: app.config.smtp.is_some() }))
}

/// A document type's [`Efectos`] and, in [`Efectos::al_persistir`], the stamp's e-mail to its
/// customer's stored address ([`al_persistir_timbre`]).
pub struct ConCorreo {
    /// The type's own hooks (`None`: the pipeline's defaults).
    pub interior: Option<Arc<dyn Efectos>>,
    /// Whether e-mail is configured.
    pub smtp: bool,
}

impl Efectos for ConCorreo {
    fn aplicar<'a>(&'a self, tx: &'a mut Tx, cfdi_id: &'a CfdiId, now: OffsetDateTime) -> Hecho<'a> {
        match &self.interior {
            Some(interior) => interior.aplicar(tx, cfdi_id, now),
            None => Box::pin(async { Ok(()) }),
        }
    }

    fn al_persistir<'a, 'b: 'a>(&'a self, tx: &'a mut Tx, escritos: &'a [Escrito<'b>]) -> Hecho<'a> {
        Box::pin(async move {
            crate::cfdi::pipeline::al_persistir(self.interior.as_deref(), tx, escritos).await?;
            for escrito in escritos {
                let (empresa_id, cfdi_id) = (escrito.empresa_id, &escrito.registro.cfdi_id);
                al_persistir_timbre(tx, escrito.now, self.smtp, empresa_id, cfdi_id, &escrito.fila.tipo_comprobante)
                    .await?;
            }
            Ok(())
        })
    }

    fn devolver<'a>(
        &'a self,
        tx: &'a mut Tx,
        empresa_id: &'a EmpresaId,
        cfdi_id: &'a CfdiId,
        now: OffsetDateTime,
    ) -> Hecho<'a> {
        match &self.interior {
            Some(interior) => interior.devolver(tx, empresa_id, cfdi_id, now),
            None => Box::pin(async { Ok(()) }),
        }
    }
}

/// In the transaction that writes the stamp of CFDI `cfdi_id` (of `tipo_comprobante`): queues
/// its e-mail to its stored address ([`direccion_guardada`]). The stamp stands whatever happens
/// here: without SMTP or an address the sending is logged as skipped, not answered. Gives the
/// sending's id.
pub async fn al_persistir_timbre(
    tx: &mut Tx,
    now: OffsetDateTime,
    smtp: bool,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
    tipo_comprobante: &str,
) -> ApiResult<Option<String>> {
    if !smtp {
        tracing::warn!(cfdi.id = cfdi_id.as_str(), "the stamp's e-mail was not queued: TIMBRA_SMTP_URL is not set");
        return Ok(None);
    }
    let direccion = direccion_guardada(tx, empresa_id, cfdi_id, tipo_comprobante).await?;
    let Some(direccion) = direccion.filter(|direccion| direccion_valida(direccion)) else {
        tracing::warn!(cfdi.id = cfdi_id.as_str(), "the stamp's e-mail was not queued: no valid address stored for it");
        return Ok(None);
    };
    let envio_id = encolar(tx, now, empresa_id, cfdi_id, "TIMBRADO", &[direccion], &[]).await?;
    Ok(Some(envio_id))
}

/// In the transaction that records SAT's cancellation of CFDI `cfdi_id`: a notice to the
/// addresses of its last sending, when it was sent by e-mail.
pub async fn aviso_de_cancelacion(
    tx: &mut Tx,
    now: OffsetDateTime,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
) -> ApiResult<()> {
    let Some((para, cc)) = correos::ultimo_envio(tx, empresa_id, cfdi_id).await? else { return Ok(()) };
    let para: Vec<String> = serde_json::from_str(&para).unwrap_or_default();
    let cc: Vec<String> = serde_json::from_str(&cc).unwrap_or_default();
    if para.is_empty() {
        return Ok(());
    }
    encolar(tx, now, empresa_id, cfdi_id, "CANCELACION", &para, &cc).await?;
    Ok(())
}

/// The company's e-mail settings as `PATCH /api/empresas/{empresaId}` sends them: what is
/// `None` stays.
#[derive(Debug, Default)]
pub struct CambioAjustes {
    /// The sender's display name (`""` clears it: the company's name is used).
    pub nombre_remitente: Option<String>,
    /// The Reply-To address (`""` clears it).
    pub responder_a: Option<String>,
    /// Queue the e-mail of every stamp.
    pub enviar_al_timbrar: Option<bool>,
}

/// CORREO_002 when a setting is not acceptable: a name with a line break or over 100
/// characters, a Reply-To that is not one address.
pub fn revisar_ajustes(cambio: &CambioAjustes) -> ApiResult<()> {
    if let Some(nombre) = &cambio.nombre_remitente
        && (tiene_saltos(nombre) || nombre.chars().count() > 100)
    {
        return Err(ApiError::new(
            Code::Correo002,
            "correo.nombreRemitente is one line of at most 100 characters (no line breaks)",
        )
        .with_details(json!({ "campo": "correo.nombreRemitente" })));
    }
    if let Some(responder_a) = &cambio.responder_a {
        let limpia = responder_a.trim_matches(' ');
        if !limpia.is_empty() && !direccion_valida(limpia) {
            return Err(invalida("correo.responderA", responder_a));
        }
    }
    Ok(())
}

/// Writes the company's e-mail settings, checked by [`revisar_ajustes`].
pub async fn guardar_ajustes(app: &AppContext, empresa_id: &EmpresaId, cambio: CambioAjustes) -> ApiResult<()> {
    revisar_ajustes(&cambio)?;
    let mut conn = app.db.conn().await?;
    let (mut ajustes, _) =
        correos::ajustes(&mut conn, empresa_id).await?.ok_or_else(|| ApiError::not_found("company"))?;
    if let Some(nombre) = cambio.nombre_remitente {
        ajustes.correo_nombre_remitente = Some(nombre.trim().to_owned()).filter(|n| !n.is_empty());
    }
    if let Some(responder_a) = cambio.responder_a {
        ajustes.correo_responder_a = Some(responder_a.trim_matches(' ').to_owned()).filter(|r| !r.is_empty());
    }
    if let Some(enviar) = cambio.enviar_al_timbrar {
        ajustes.correo_enviar_al_timbrar = enviar;
    }
    correos::guardar_ajustes(&mut conn, empresa_id, &ajustes, app.clock.now()).await?;
    Ok(())
}

/// What a sending job carries.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload {
    /// The `correos` row to send.
    pub envio_id: String,
}

/// The job: send one `correos` row.
pub struct EnviarCorreo;

impl Job for EnviarCorreo {
    type Context = AppContext;
    const KIND: &'static str = "correo.enviar";
    type Payload = Payload;
    /// The first attempt and one retry per step of the webhooks' schedule.
    const MAX_ATTEMPTS: i64 = 1 + crate::webhooks::delivery::RETRY_SCHEDULE.len() as i64;

    fn backoff(attempt: i64) -> Duration {
        <crate::webhooks::delivery::Deliver as Job>::backoff(attempt)
    }

    async fn run(app: AppContext, job: Claimed) -> Attempt {
        let payload = match job.payload::<Self>() {
            Ok(payload) => payload,
            Err(error) => return Attempt::fail(error),
        };
        let leido = async {
            let mut conn = app.db.conn().await?;
            let Some(correo) = correos::leer(&mut conn, &payload.envio_id).await? else { return Ok(None) };
            let cfdi = timbra_store::cfdis::leer(&mut conn, &correo.empresa_id, &correo.cfdi_id).await?;
            let ajustes = correos::ajustes(&mut conn, &correo.empresa_id).await?;
            Ok::<_, timbra_store::DbError>(Some((correo, cfdi, ajustes)))
        }
        .await;
        let (correo, cfdi, ajustes) = match leido {
            Ok(Some((correo, Some((cfdi, _)), Some(ajustes)))) => (correo, cfdi, ajustes),
            Ok(_) => return Attempt::fail("the sending or its CFDI no longer exists"),
            Err(error) => return Attempt::retry(format!("database: {error}"), Value::Null),
        };
        if correo.estado != PENDIENTE {
            return Attempt::ok(json!({ "yaEstaba": correo.estado }));
        }
        let Some(smtp) = app.config.smtp.clone() else {
            return Attempt::retry("e-mail is not configured (TIMBRA_SMTP_URL)", Value::Null);
        };
        let mensaje = match mensaje(&app, &smtp, &correo, &cfdi, &ajustes).await {
            Ok(mensaje) => mensaje,
            Err(error) => return Attempt::retry(error, Value::Null),
        };
        match mandar(&smtp, mensaje).await {
            Ok(()) => Attempt::ok(Value::Null),
            Err(error) => Attempt::retry(error, Value::Null),
        }
    }

    // Spelled out to match the trait's single lifetime, which the type-erased registry needs.
    #[allow(clippy::manual_async_fn)]
    fn record<'a>(
        tx: &'a mut Tx,
        now: OffsetDateTime,
        job: &'a Claimed,
        attempt: &'a Attempt,
        next: &'a Next,
    ) -> impl Future<Output = timbra_store::DbResult<()>> + Send + 'a {
        async move {
            let Ok(Payload { envio_id }) = job.payload::<Self>() else { return Ok(()) };
            let Some(correo) = correos::leer(tx, &envio_id).await? else { return Ok(()) };
            if correo.estado != PENDIENTE {
                return Ok(());
            }
            let (estado, enviado_en) = match next {
                Next::Done => (ENVIADO, Some(now)),
                Next::Retry(_) => (PENDIENTE, None),
                Next::Dead => (FALLIDO, None),
            };
            let error = attempt.error.as_deref();
            correos::registrar(tx, &envio_id, estado, job.attempts, error, enviado_en, now).await?;
            let data = payloads::Correo {
                envio_id: envio_id.clone(),
                cfdi_id: correo.cfdi_id.as_str().to_owned(),
                uuid: correo.uuid.clone(),
                motivo: correo.motivo.clone(),
                para: serde_json::from_str(&correo.para).unwrap_or_default(),
                intentos: job.attempts,
                ultimo_error: error.map(str::to_owned),
            };
            let event = match next {
                Next::Done => Some(Event::CorreoEnviado(data)),
                Next::Dead => Some(Event::CorreoFallido(data)),
                Next::Retry(_) => None,
            };
            if let Some(event) = event {
                events::emit(tx, now, &correo.empresa_id, &event).await?;
            }
            Ok(())
        }
    }
}

/// Hands `mensaje` to the SMTP server within the configured timeout.
async fn mandar(smtp: &SmtpConfig, mensaje: Message) -> Result<(), String> {
    let transporte = transporte(smtp)?;
    match tokio::time::timeout(smtp.timeout, transporte.send(mensaje)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(error)) => Err(describir(&error)),
        Err(_) => Err(format!("the SMTP server did not finish within {} s", smtp.timeout.as_secs_f64())),
    }
}

/// The SMTP error in one line, without the credentials.
fn describir(error: &lettre::transport::smtp::Error) -> String {
    let texto = sin_saltos(&error.to_string());
    if let Some(code) = error.status() { format!("SMTP {code}: {texto}") } else { format!("SMTP: {texto}") }
}

/// The transport of `TIMBRA_SMTP_URL`: `smtp://` without credentials speaks plain SMTP (a
/// local relay); with credentials STARTTLS is required, unless the URL's `tls=` says otherwise;
/// `smtps://` is implicit TLS.
fn transporte(smtp: &SmtpConfig) -> Result<AsyncSmtpTransport<Tokio1Executor>, String> {
    let url = con_tls(&smtp.url);
    let builder = AsyncSmtpTransport::<Tokio1Executor>::from_url(&url)
        .map_err(|error| format!("TIMBRA_SMTP_URL cannot be used: {}", sin_saltos(&error.to_string())))?;
    Ok(builder.timeout(Some(smtp.timeout)).build())
}

/// `url` with `tls=required` added when it is `smtp://` with a password and no `tls=` of its
/// own: credentials never travel in clear text.
fn con_tls(url: &str) -> String {
    let Some(resto) = url.strip_prefix("smtp://") else { return url.to_owned() };
    let autoridad = resto.split(['/', '?']).next().unwrap_or_default();
    let con_clave = autoridad.rsplit_once('@').is_some_and(|(usuario, _)| usuario.contains(':'));
    if !con_clave || url.contains("tls=") {
        return url.to_owned();
    }
    let separador = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separador}tls=required")
}

/// Builds the message of sending `correo` of CFDI `cfdi`.
async fn mensaje(
    app: &AppContext,
    smtp: &SmtpConfig,
    correo: &CorreoRow,
    cfdi: &timbra_store::cfdis::CfdiRow,
    ajustes: &(correos::Ajustes, String),
) -> Result<Message, String> {
    let (ajustes, razon_social) = ajustes;
    let remitente = sin_saltos(ajustes.correo_nombre_remitente.as_deref().unwrap_or(razon_social));
    let from: lettre::Address =
        smtp.from.parse().map_err(|error| format!("TIMBRA_SMTP_FROM is not an address: {error}"))?;
    let mut builder = Message::builder().from(Mailbox::new(Some(remitente), from));
    let para: Vec<String> = serde_json::from_str(&correo.para).map_err(|e| format!("stored addresses: {e}"))?;
    let cc: Vec<String> = serde_json::from_str(&correo.cc).map_err(|e| format!("stored addresses: {e}"))?;
    for direccion in &para {
        builder = builder.to(Mailbox::new(None, direccion.parse().map_err(|e| format!("{direccion}: {e}"))?));
    }
    for direccion in &cc {
        builder = builder.cc(Mailbox::new(None, direccion.parse().map_err(|e| format!("{direccion}: {e}"))?));
    }
    if let Some(responder_a) = &ajustes.correo_responder_a {
        builder = builder.reply_to(Mailbox::new(None, responder_a.parse().map_err(|e| format!("{responder_a}: {e}"))?));
    }
    let datos = Datos::de(cfdi);
    let cancelacion = correo.motivo == "CANCELACION";
    let builder = builder.subject(sin_saltos(&datos.asunto(cancelacion)));
    let cuerpo = MultiPart::alternative_plain_html(datos.texto(cancelacion), datos.html(cancelacion));
    let armado = if cancelacion {
        builder.multipart(cuerpo)
    } else {
        let xml_path = cfdi.xml_url.clone().ok_or("the CFDI has no XML")?;
        let xml = crate::cfdi::archivos::leer(app, &xml_path).await.map_err(|error| error.message)?;
        let pdf = crate::cfdi::archivos::pdf(app, &crate::cfdi::links::ruta_pdf(&xml_path))
            .await
            .map_err(|error| error.message)?;
        let nombre = nombre_de_archivo(&cfdi.uuid);
        let adjunto = |bytes: Vec<u8>, nombre: String, tipo: &str| -> Result<_, String> {
            // Base64 always: the XML arrives byte for byte, line endings included.
            let body = Body::new_with_encoding(bytes, ContentTransferEncoding::Base64)
                .map_err(|_| "attachment encoding".to_owned())?;
            let tipo = ContentType::parse(tipo).map_err(|e| e.to_string())?;
            Ok(Attachment::new(nombre).body(body, tipo))
        };
        let mixto = MultiPart::mixed()
            .multipart(cuerpo)
            .singlepart(adjunto(xml, format!("{nombre}.xml"), "application/xml")?)
            .singlepart(adjunto(pdf, format!("{nombre}.pdf"), "application/pdf")?);
        builder.multipart(mixto)
    };
    armado.map_err(|error| format!("the message cannot be built: {error}"))
}

/// An attachment's name from the UUID's letters, digits and `-` only.
fn nombre_de_archivo(uuid: &str) -> String {
    let nombre: String = uuid.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(64).collect();
    if nombre.is_empty() { "cfdi".to_owned() } else { nombre }
}

/// What the message says of the CFDI.
struct Datos {
    emisor: String,
    emisor_rfc: String,
    receptor: String,
    documento: &'static str,
    serie_folio: String,
    total: String,
    uuid: String,
}

impl Datos {
    fn de(cfdi: &timbra_store::cfdis::CfdiRow) -> Self {
        let serie_folio = match (cfdi.serie.as_deref(), cfdi.folio.as_deref()) {
            (Some(serie), Some(folio)) => format!("{serie}-{folio}"),
            (None, Some(folio)) => folio.to_owned(),
            (Some(serie), None) => serie.to_owned(),
            (None, None) => "sin folio".to_owned(),
        };
        let documento = match cfdi.tipo_comprobante.as_str() {
            "P" => "el complemento de pago",
            "N" => "el recibo de nómina",
            "E" => "la nota de crédito",
            "T" => "el CFDI de traslado",
            _ => "la factura",
        };
        Self {
            emisor: sin_saltos(&cfdi.emisor_nombre),
            emisor_rfc: sin_saltos(&cfdi.emisor_rfc),
            receptor: sin_saltos(&cfdi.receptor_nombre),
            documento,
            serie_folio: sin_saltos(&serie_folio),
            total: format!("${} {}", cfdi.total.0, sin_saltos(&cfdi.moneda)),
            uuid: sin_saltos(&cfdi.uuid),
        }
    }

    fn asunto(&self, cancelacion: bool) -> String {
        if cancelacion {
            format!("Aviso de cancelación del CFDI {} de {}", self.serie_folio, self.emisor)
        } else {
            format!("CFDI {} de {}", self.serie_folio, self.emisor)
        }
    }

    fn parrafos(&self, cancelacion: bool) -> Vec<String> {
        let mut parrafos = vec![format!("Estimado(a) {}:", self.receptor)];
        if cancelacion {
            parrafos.push(format!(
                "{} (RFC {}) le informa que {} {} por un total de {} fue cancelado ante el SAT.",
                self.emisor, self.emisor_rfc, self.documento, self.serie_folio, self.total
            ));
        } else {
            parrafos.push(format!(
                "{} (RFC {}) le envía {} {} por un total de {}.",
                self.emisor, self.emisor_rfc, self.documento, self.serie_folio, self.total
            ));
        }
        parrafos.push(format!("Folio fiscal (UUID): {}", self.uuid));
        if !cancelacion {
            parrafos.push(format!(
                "Se adjuntan el XML ({0}.xml) y su representación impresa ({0}.pdf).",
                nombre_de_archivo(&self.uuid)
            ));
        }
        parrafos.push("Este mensaje se envió automáticamente; no es necesario responderlo.".to_owned());
        parrafos
    }

    fn texto(&self, cancelacion: bool) -> String {
        self.parrafos(cancelacion).join("\n\n") + "\n"
    }

    fn html(&self, cancelacion: bool) -> String {
        let cuerpo: String = self.parrafos(cancelacion).iter().map(|p| format!("<p>{}</p>\n", escapar(p))).collect();
        format!(
            "<!DOCTYPE html>\n<html lang=\"es\"><head><meta charset=\"utf-8\"></head><body>\n{cuerpo}</body></html>\n"
        )
    }
}

/// Text for HTML.
fn escapar(texto: &str) -> String {
    let mut salida = String::with_capacity(texto.len());
    for c in texto.chars() {
        match c {
            '&' => salida.push_str("&amp;"),
            '<' => salida.push_str("&lt;"),
            '>' => salida.push_str("&gt;"),
            '"' => salida.push_str("&quot;"),
            '\'' => salida.push_str("&#39;"),
            c => salida.push(c),
        }
    }
    salida
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_with_line_breaks_or_names_are_refused() {
        assert!(direccion_valida("ana@example.com"));
        assert!(!direccion_valida("ana@example.com\r\nBcc: x@evil.com"));
        assert!(!direccion_valida("Ana <ana@example.com>"));
        assert!(!direccion_valida("ana"));
        assert!(!direccion_valida("a@b.com,c@d.com"));
        assert!(tiene_saltos("Mi\nEmpresa"));
        assert_eq!(sin_saltos("A\r\nBcc: x"), "A  Bcc: x");
    }

    #[test]
    fn credentials_over_smtp_require_starttls() {
        assert_eq!(con_tls("smtp://127.0.0.1:2525"), "smtp://127.0.0.1:2525");
        assert_eq!(con_tls("smtp://u:p@mail.example.com:587"), "smtp://u:p@mail.example.com:587?tls=required");
        assert_eq!(con_tls("smtp://u:p@h:587?tls=opportunistic"), "smtp://u:p@h:587?tls=opportunistic");
        assert_eq!(con_tls("smtps://u:p@h"), "smtps://u:p@h");
    }
}
