//! # timbra-pac
//!
//! The stamping provider (PAC) as the server sees it: [`Pac`] stamps a sealed pre-CFDI,
//! recovers a stamp after a lost answer, cancels with a signed `Cancelacion` document and
//! follows the cancellation. [`finkok::FinkokClient`] implements it over Finkok's SOAP 1.1
//! services (PROTOCOLS.md §2.2); `timbra-sim` serves the same protocol on loopback.
//!
//! The trait returns boxed futures so the server can hold an `Arc<dyn Pac>`.

#![warn(missing_docs)]

pub mod consulta;
pub mod finkok;
mod xml;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// A boxed, sendable future (what [`Pac`] methods return).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A stamped CFDI as the PAC returned it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timbrado {
    /// The stamped CFDI: the sealed document with its TimbreFiscalDigital.
    pub xml: String,
    /// Folio fiscal (36 characters, upper-case).
    pub uuid: String,
    /// `FechaTimbrado` of the TFD (`AAAA-MM-DDThh:mm:ss`, Mexico central time).
    pub fecha_timbrado: String,
    /// `NoCertificadoSAT` of the TFD.
    pub no_certificado_sat: String,
    /// `SelloSAT` of the TFD.
    pub sello_sat: String,
    /// The PAC had stamped this very document before (incidencia 307 with the original
    /// stamp, or recovered through [`Pac::consultar`]): no new stamp was spent.
    pub previo: bool,
}

/// The answer to a cancellation request for one UUID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cancelacion {
    /// UUID the answer is about.
    pub uuid: String,
    /// SAT's `EstatusUUID`: `201` request received, `202` already requested or cancelled.
    pub estatus_uuid: String,
    /// `EstatusCancelacion` when the PAC reports it. Finkok answers every accepted request
    /// with `Petición de cancelación realizada exitosamente`, which does not say whether SAT
    /// cancelled the CFDI or waits for the receiver: ask [`Pac::estatus_cancelacion`].
    pub estatus_cancelacion: Option<String>,
    /// The SAT acuse, verbatim (XML).
    pub acuse: String,
    /// Date of the acuse.
    pub fecha: String,
}

/// What to ask the SAT status service (through the PAC) about one CFDI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsultaEstado {
    /// Issuer RFC.
    pub rfc_emisor: String,
    /// Receiver RFC.
    pub rfc_receptor: String,
    /// Folio fiscal.
    pub uuid: String,
    /// `Total` of the CFDI, as written in the XML.
    pub total: String,
}

/// SAT's status of a CFDI (ConsultaCFDIService fields, PROTOCOLS.md §3 and §2.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EstadoSat {
    /// `CodigoEstatus` (`S - Comprobante obtenido satisfactoriamente.` or `N - 602: ...`).
    pub codigo_estatus: String,
    /// `Estado`: `Vigente`, `Cancelado` or `No Encontrado`.
    pub estado: String,
    /// `EsCancelable`: `Cancelable sin aceptación`, `Cancelable con aceptación`, `No cancelable`.
    pub es_cancelable: String,
    /// `EstatusCancelacion`: empty, `En proceso`, `Cancelado sin aceptación`,
    /// `Cancelado con aceptación`, `Plazo vencido`, `Solicitud rechazada`.
    pub estatus_cancelacion: String,
}

/// The receiver's answer to a cancellation request: `Aceptacion` or `Rechazo`
/// (`timbra_cfdi::aceptacion_rechazo::Respuesta`).
pub use timbra_cfdi::aceptacion_rechazo::Respuesta as RespuestaReceptor;

/// SAT's code for a receiver's answer that was received (`1000`).
pub const CODIGO_RESPUESTA_RECIBIDA: &str = "1000";

/// What the PAC said about one UUID of the receiver's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FolioAceptacionRechazo {
    /// UUID answered (upper-case).
    pub uuid: String,
    /// The answer sent for it.
    pub respuesta: RespuestaReceptor,
    /// SAT's code: `1000` received; `1001` no request waiting for an answer, `1002` answered
    /// before, `1003` seal not of the receiver, `1004` more than one request for the UUID,
    /// `1005` malformed UUID, `1006` too many requests ([`mensaje_aceptacion_rechazo`]).
    pub codigo: String,
}

impl FolioAceptacionRechazo {
    /// SAT received the answer (`1000`): the CFDI is cancelled (accepted) or stays valid
    /// (rejected); [`Pac::estatus_cancelacion`] shows it.
    pub fn recibida(&self) -> bool {
        self.codigo == CODIGO_RESPUESTA_RECIBIDA
    }

    /// SAT's text for [`FolioAceptacionRechazo::codigo`].
    pub fn mensaje(&self) -> &'static str {
        mensaje_aceptacion_rechazo(&self.codigo)
    }
}

/// SAT's text for a per-UUID code of the receiver's answer (phpcfdi/finkok
/// `AcceptRejectUuidStatus`).
pub fn mensaje_aceptacion_rechazo(codigo: &str) -> &'static str {
    match codigo {
        "1000" => "Se recibió la respuesta de la petición de forma exitosa",
        "1001" => "No existen peticiones de cancelación en espera de respuesta para el UUID",
        "1002" => "Ya se recibió una respuesta para la petición de cancelación del UUID",
        "1003" => "El sello no corresponde al RFC receptor",
        "1004" => "Existen más de una petición de cancelación para el mismo UUID",
        "1005" => "El UUID es nulo o no posee el formato correcto",
        "1006" => "Se rebasó el número máximo de solicitudes permitidas",
        _ => "Respuesta del SAT desconocida",
    }
}

/// The PAC's answer to a signed `SolicitudAceptacionRechazo`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AceptacionRechazo {
    /// One entry per UUID the PAC reported on, accepted ones first (Finkok's `aceptacion`,
    /// then `rechazo`). Check each [`FolioAceptacionRechazo::recibida`].
    pub folios: Vec<FolioAceptacionRechazo>,
    /// SAT's acuse when the PAC sends one (XML, verbatim).
    pub acuse: Option<String>,
    /// The PAC's `error` text when it came along with the folios.
    pub error: Option<String>,
}

impl AceptacionRechazo {
    /// The entry for `uuid` (any case).
    pub fn folio(&self, uuid: &str) -> Option<&FolioAceptacionRechazo> {
        self.folios.iter().find(|folio| folio.uuid.eq_ignore_ascii_case(uuid))
    }
}

/// Where a cancellation stands, read from [`EstadoSat`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EstadoCancelacion {
    /// SAT does not know the UUID (yet: new CFDI may take hours to arrive).
    NoEncontrado,
    /// Valid, no cancellation requested.
    Vigente,
    /// Waiting for the receiver's answer.
    EnProceso,
    /// Cancelled (without acceptance, accepted by the receiver, or the receiver's deadline
    /// passed).
    Cancelado,
    /// The receiver rejected the request; the CFDI stays valid.
    Rechazado,
}

impl EstadoSat {
    /// The cancellation state these fields describe.
    pub fn cancelacion(&self) -> EstadoCancelacion {
        let estatus = self.estatus_cancelacion.trim().to_lowercase();
        let estado = self.estado.trim().to_lowercase();
        if estado == "cancelado" || estatus.starts_with("cancelado") || estatus == "plazo vencido" {
            EstadoCancelacion::Cancelado
        } else if estatus == "en proceso" {
            EstadoCancelacion::EnProceso
        } else if estatus.contains("rechazada") {
            EstadoCancelacion::Rechazado
        } else if estado == "vigente" {
            EstadoCancelacion::Vigente
        } else {
            EstadoCancelacion::NoEncontrado
        }
    }
}

/// Why a PAC call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PacError {
    /// The PAC answered and refused: Anexo 20 / Finkok code (`302` invalid seal, `305`
    /// certificate not valid at Fecha, `306` not a CSD, `307` already stamped, `401` Fecha out
    /// of range, `300` bad credentials, `205` unknown UUID, ...) and its message.
    #[error("the PAC refused the request ({code}): {message}")]
    Rejected {
        /// PAC or SAT code.
        code: String,
        /// PAC's message.
        message: String,
    },
    /// No answer within the configured time. The PAC may have done the work: recover with
    /// [`Pac::consultar`] (stamping) or retry (cancelling is idempotent: `202`).
    #[error("the PAC did not answer within {0:?}")]
    Timeout(Duration),
    /// Connection failed or the PAC answered with an unexpected HTTP status.
    #[error("could not talk to the PAC: {0}")]
    Transport(String),
    /// A SOAP Fault (HTTP 500). It can come after the PAC committed the work (a fault while
    /// answering), so it says nothing about the outcome.
    #[error("the PAC answered a SOAP Fault ({code}): {message}")]
    Fault {
        /// `faultcode`.
        code: String,
        /// `faultstring`.
        message: String,
    },
    /// The PAC answered something that is not the expected SOAP message.
    #[error("the PAC's answer could not be read: {detail}")]
    Garbage {
        /// What was wrong.
        detail: String,
        /// The start of the answer (at most 200 characters), for the log.
        excerpt: String,
    },
}

impl PacError {
    /// The PAC's code, for rejections.
    pub fn code(&self) -> Option<&str> {
        match self {
            PacError::Rejected { code, .. } => Some(code),
            _ => None,
        }
    }

    /// The outcome is unknown (the PAC may have acted): the caller must recover by querying,
    /// never by assuming failure.
    pub fn is_indeterminate(&self) -> bool {
        matches!(
            self,
            PacError::Timeout(_) | PacError::Transport(_) | PacError::Fault { .. } | PacError::Garbage { .. }
        )
    }
}

/// Which of the PAC's services a document goes to: SAT keeps CFDI 4.0 and CFDI de Retenciones
/// apart, and so do PACs (Finkok: `stamp` and `cancel` for CFDI, `retentions` for retentions,
/// with the same operations and answers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Servicio {
    /// CFDI 4.0 (Finkok's `stamp` and `cancel` services).
    #[default]
    Cfdi,
    /// CFDI de Retenciones e Información de Pagos 2.0 (Finkok's `retentions` service:
    /// `stamp`, `stamped`, `cancel_signature`).
    Retenciones,
}

/// A stamping provider.
pub trait Pac: Send + Sync {
    /// Stamps a sealed pre-CFDI (XML text) through `servicio`. A document stamped before
    /// comes back with [`Timbrado::previo`] when the PAC returns the original stamp, or as
    /// `Rejected { code: "307" }` when it does not (then call [`Pac::consultar_en`]).
    fn timbrar_en<'a>(&'a self, servicio: Servicio, xml_sellado: &'a str) -> BoxFuture<'a, Result<Timbrado, PacError>>;

    /// Finds the stamp of a sealed pre-CFDI stamped before (Finkok `stamped`): `None` when
    /// the PAC has no stamp for it.
    fn consultar_en<'a>(
        &'a self,
        servicio: Servicio,
        xml_sellado: &'a str,
    ) -> BoxFuture<'a, Result<Option<Timbrado>, PacError>>;

    /// Sends a signed `Cancelacion` document (PROTOCOLS.md §2.4) for one UUID. `201` and
    /// `202` are answers (the request was received, not that the CFDI is cancelled); any
    /// other per-UUID or request-level code is a rejection.
    fn cancelar_en<'a>(
        &'a self,
        servicio: Servicio,
        cancelacion_firmada: &'a str,
    ) -> BoxFuture<'a, Result<Cancelacion, PacError>>;

    /// [`Pac::timbrar_en`] a CFDI 4.0.
    fn timbrar<'a>(&'a self, xml_sellado: &'a str) -> BoxFuture<'a, Result<Timbrado, PacError>> {
        self.timbrar_en(Servicio::Cfdi, xml_sellado)
    }

    /// [`Pac::consultar_en`] a CFDI 4.0.
    fn consultar<'a>(&'a self, xml_sellado: &'a str) -> BoxFuture<'a, Result<Option<Timbrado>, PacError>> {
        self.consultar_en(Servicio::Cfdi, xml_sellado)
    }

    /// [`Pac::cancelar_en`] a CFDI 4.0.
    fn cancelar<'a>(&'a self, cancelacion_firmada: &'a str) -> BoxFuture<'a, Result<Cancelacion, PacError>> {
        self.cancelar_en(Servicio::Cfdi, cancelacion_firmada)
    }

    /// SAT's status of a CFDI (follow a cancellation that waits for the receiver).
    fn estatus_cancelacion<'a>(&'a self, consulta: &'a ConsultaEstado) -> BoxFuture<'a, Result<EstadoSat, PacError>>;

    /// Receiver side (Finkok `get_pending`): UUIDs of CFDI received by `rfc_receptor` whose
    /// issuer asked to cancel and that wait for the receiver's answer. Empty when none.
    fn pendientes<'a>(&'a self, rfc_receptor: &'a str) -> BoxFuture<'a, Result<Vec<String>, PacError>>;

    /// Receiver side (Finkok `accept_reject_signature`): sends the receiver's signed
    /// `SolicitudAceptacionRechazo` (`timbra_cfdi::aceptacion_rechazo::firmar_aceptacion_rechazo`).
    /// Per-UUID refusals (`1001`–`1006`) come back in the answer; a request-level refusal
    /// (credentials, signature, unknown UUID) is [`PacError::Rejected`].
    fn aceptar_rechazar<'a>(&'a self, respuesta_firmada: &'a str)
    -> BoxFuture<'a, Result<AceptacionRechazo, PacError>>;
}

/// Stamps so that a lost answer never produces a second stamp: on a timeout, a transport
/// error, a garbled answer or a `307` without the original stamp, asks the PAC for the stamp
/// of this same document ([`Pac::consultar`]); when it has none, sends the document once more
/// (the PAC answers a duplicate with `307`, never with a new UUID).
///
/// # Errors
/// The PAC's rejection, or the last indeterminate error when nothing could be recovered.
pub async fn timbrar_sin_duplicar(pac: &dyn Pac, servicio: Servicio, xml_sellado: &str) -> Result<Timbrado, PacError> {
    let primer_error = match pac.timbrar_en(servicio, xml_sellado).await {
        Ok(timbrado) => return Ok(timbrado),
        Err(error) if error.is_indeterminate() || error.code() == Some("307") => error,
        Err(error) => return Err(error),
    };
    if let Some(timbrado) = pac.consultar_en(servicio, xml_sellado).await? {
        return Ok(timbrado);
    }
    if primer_error.code() == Some("307") {
        return Err(primer_error);
    }
    match pac.timbrar_en(servicio, xml_sellado).await {
        Err(error) if error.code() == Some("307") => pac.consultar_en(servicio, xml_sellado).await?.ok_or(error),
        otro => otro,
    }
}
