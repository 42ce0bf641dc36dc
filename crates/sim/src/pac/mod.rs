//! The PAC simulator: Finkok's SOAP 1.1 `stamp` and `cancel` services on loopback.
//!
//! Routes: `POST /servicios/soap/{stamp,cancel,retentions}` (and the same paths ending in `.wsdl`, which
//! some clients post to), dispatched on the operation element of the SOAP body;
//! `GET /sim/certificado.cer` returns the stamping certificate (DER) that signs `SelloSAT`;
//! `POST /ConsultaCFDIService.svc` is SAT's status service over the same documents
//! ([`crate::consulta`]).

mod aceptacion;
mod cancelacion;
mod fallas;
mod retenciones;
mod soap;
mod timbrado;

pub use fallas::Falla;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use rust_decimal::Decimal;
use timbra_credentials::testgen::{self, Options};
use timbra_credentials::{Certificate, Credential};
use time::OffsetDateTime;
use time::macros::{datetime, offset};

/// What the simulator is and how it behaves. Everything a test needs to pin is here.
#[derive(Clone)]
pub struct SimConfig {
    /// Account user; `None` accepts any credentials. A mismatch answers Finkok's `300`.
    pub usuario: Option<String>,
    /// Account password (checked with `usuario`).
    pub password: Option<String>,
    /// The simulator's clock: `Some` pins "now" (tests), `None` uses the system clock.
    pub ahora: Option<OffsetDateTime>,
    /// The stamping credential whose key signs `SelloSAT` (its number is `NoCertificadoSAT`).
    pub credencial_pac: Arc<Credential>,
    /// `RfcProvCertif` written in every TFD.
    pub rfc_prov_certif: String,
    /// Wait this long before answering `stamp`, `quick_stamp` and `cancel_signature`, *after*
    /// doing the work (a PAC whose answer is lost): clients time out, then recover.
    pub retraso: Duration,
    /// Answer every request with an HTML error page instead of SOAP.
    pub basura: bool,
    /// Ingreso invoices whose `Total` exceeds this need the receiver's acceptance to be
    /// cancelled (RMF regla 2.7.1.35 fracción I: 1,000 MXN), unless the receiver is the
    /// generic public or foreign RFC.
    pub umbral_aceptacion: Decimal,
    /// Receivers that reject cancellation requests; every other receiver accepts.
    pub receptores_que_rechazan: Vec<String>,
    /// Receivers that never answer: their deadline passes and SAT cancels ("Plazo vencido").
    pub receptores_que_no_contestan: Vec<String>,
    /// Receivers that answer only through their PAC (`accept_reject_signature`): their
    /// requests stay `En proceso` (listed by `get_pending`) until they answer or three
    /// business days pass on the simulator's clock ("Plazo vencido"). Every other receiver
    /// may answer that way too, before its scripted answer shows.
    pub receptores_que_responden: Vec<String>,
    /// How many status queries still report `En proceso` before the receiver's answer shows.
    pub consultas_en_proceso: u32,
    /// How many status queries right after an accepted request still show the state before
    /// it (`Vigente`, no `EstatusCancelacion`): SAT's status service lagging behind its
    /// cancellation service. Default 0: the status reflects the request at once.
    pub consultas_sin_reflejar: u32,
}

/// RFC of the SAT test-environment stamping certificate (PROTOCOLS.md §2.1), used for the
/// simulator's own certificate.
pub const RFC_CERTIFICADO_PAC: &str = "SPR190613I52";
/// `RfcProvCertif` that Finkok's demo stamps carry (PROTOCOLS.md §2.1).
pub const RFC_PROV_CERTIF: &str = "CVD110412TF6";

impl SimConfig {
    /// The defaults around a given stamping credential: any credentials accepted, system
    /// clock, no misbehaviour, 1,000 MXN acceptance threshold, every receiver accepts after
    /// one `En proceso` status answer.
    pub fn new(credencial_pac: impl Into<Arc<Credential>>) -> Self {
        SimConfig {
            usuario: None,
            password: None,
            ahora: None,
            credencial_pac: credencial_pac.into(),
            rfc_prov_certif: RFC_PROV_CERTIF.to_owned(),
            retraso: Duration::ZERO,
            basura: false,
            umbral_aceptacion: Decimal::new(1000, 0),
            receptores_que_rechazan: Vec::new(),
            receptores_que_no_contestan: Vec::new(),
            receptores_que_responden: Vec::new(),
            consultas_en_proceso: 1,
            consultas_sin_reflejar: 0,
        }
    }

    /// [`SimConfig::new`] with a freshly generated stamping certificate for
    /// [`RFC_CERTIFICADO_PAC`], valid 2020–2040 (tens of milliseconds).
    ///
    /// # Errors
    /// Key generation failure.
    pub fn generar() -> Result<Self, timbra_credentials::Error> {
        let opciones = Options::csd(
            RFC_CERTIFICADO_PAC,
            "SAT PRUEBAS SIMULADOR TIMBRA",
            datetime!(2020-01-01 00:00 UTC),
            datetime!(2040-01-01 00:00 UTC),
        );
        Ok(Self::new(testgen::generate(&opciones)?.credential()?))
    }
}

/// A stamped document the simulator remembers.
struct Documento {
    xml: String,
    uuid: String,
    fecha_timbrado: String,
    rfc_emisor: String,
    rfc_receptor: String,
    total: Decimal,
    requiere_aceptacion: bool,
    estado: EstadoDocumento,
}

/// Where a document stands for SAT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EstadoDocumento {
    Vigente,
    /// Waiting for the receiver; `consultas_restantes` status answers still say so (unless
    /// the receiver answers through `accept_reject_signature` first); at `vence` SAT cancels
    /// ("Plazo vencido").
    EnProceso {
        consultas_restantes: u32,
        respuesta: Respuesta,
        vence: OffsetDateTime,
    },
    Cancelado {
        con_aceptacion: bool,
    },
    /// The receiver did not answer in time; SAT cancelled it.
    PlazoVencido,
    Rechazada,
}

impl EstadoDocumento {
    /// SAT cancels a request whose receiver did not answer in time.
    fn al_momento(self, ahora: OffsetDateTime) -> Self {
        match self {
            EstadoDocumento::EnProceso { vence, .. } if ahora >= vence => EstadoDocumento::PlazoVencido,
            otro => otro,
        }
    }
}

/// What the receiver will answer a cancellation request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Respuesta {
    Acepta,
    Rechaza,
    Calla,
    /// Answers only through `accept_reject_signature` (or lets the deadline pass).
    Espera,
}

#[derive(Default)]
struct Registro {
    /// `Sello` of the pre-CFDI → UUID: a document is the same document when its seal is.
    por_sello: HashMap<String, String>,
    por_uuid: HashMap<String, Documento>,
    /// UUID → status queries that still show the state before its last cancellation request,
    /// and that state ([`SimConfig::consultas_sin_reflejar`]).
    sin_reflejar: HashMap<String, (u32, EstadoDocumento)>,
}

struct Interno {
    config: Mutex<SimConfig>,
    registro: Mutex<Registro>,
    /// Misbehaviour queued for the next calls, by operation (`stamp`, `stamped`, ...).
    fallas: Mutex<HashMap<String, VecDeque<Falla>>>,
}

/// A running simulator's shared state; clone it to change its behaviour from a test while it
/// serves.
#[derive(Clone)]
pub struct Sim {
    interno: Arc<Interno>,
}

fn bloquear<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain data behind; keep serving.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Sim {
    /// A simulator with this configuration.
    pub fn new(config: SimConfig) -> Self {
        Sim {
            interno: Arc::new(Interno {
                config: Mutex::new(config),
                registro: Mutex::default(),
                fallas: Mutex::default(),
            }),
        }
    }

    /// The certificate that signs `SelloSAT` (to verify stamps).
    pub fn certificado_pac(&self) -> Certificate {
        bloquear(&self.interno.config).credencial_pac.certificate().clone()
    }

    /// Changes the configuration while serving (clock, delays, garbage, rules).
    pub fn configurar(&self, cambio: impl FnOnce(&mut SimConfig)) {
        cambio(&mut bloquear(&self.interno.config));
    }

    /// Queues misbehaviour for the next calls of `operacion` (`stamp`, `quick_stamp`,
    /// `stamped`, `cancel_signature`, `get_sat_status`, `get_pending`,
    /// `accept_reject_signature`, `Consulta`), one per call, in order.
    pub fn fallar(&self, operacion: &str, fallas: impl IntoIterator<Item = Falla>) {
        bloquear(&self.interno.fallas).entry(operacion.to_owned()).or_default().extend(fallas);
    }

    pub(crate) fn siguiente_falla(&self, operacion: &str) -> Option<Falla> {
        bloquear(&self.interno.fallas).get_mut(operacion).and_then(VecDeque::pop_front)
    }

    /// How many distinct documents were stamped.
    pub fn timbres_emitidos(&self) -> usize {
        bloquear(&self.interno.registro).por_uuid.len()
    }

    pub(crate) fn config(&self) -> SimConfig {
        bloquear(&self.interno.config).clone()
    }

    pub(crate) fn ahora(config: &SimConfig) -> OffsetDateTime {
        config.ahora.unwrap_or_else(OffsetDateTime::now_utc).to_offset(offset!(-6))
    }

    /// The axum router.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/servicios/soap/{servicio}", post(atender))
            .route("/sim/certificado.cer", get(certificado))
            .route(crate::consulta::RUTA, post(crate::consulta::atender))
            .layer(DefaultBodyLimit::max(32 * 1024 * 1024))
            .with_state(self.clone())
    }

    /// Serves on `listener` until the task is dropped.
    ///
    /// # Errors
    /// I/O errors of the listener.
    pub async fn serve(self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        axum::serve(listener, self.router()).await
    }
}

/// Serves a simulator with `config` on `listener` (what `timbra sim pac` runs).
///
/// # Errors
/// I/O errors of the listener.
pub async fn serve(listener: tokio::net::TcpListener, config: SimConfig) -> std::io::Result<()> {
    Sim::new(config).serve(listener).await
}

async fn certificado(State(sim): State<Sim>) -> Response {
    ([(header::CONTENT_TYPE, "application/pkix-cert")], sim.certificado_pac().der().to_vec()).into_response()
}

async fn atender(State(sim): State<Sim>, Path(servicio): Path<String>, cuerpo: String) -> Response {
    let config = sim.config();
    if config.basura {
        return (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/html")],
            "<html><body><h1>Servicio no disponible</h1><p>%%% respuesta corrupta %%%",
        )
            .into_response();
    }
    let servicio = servicio.trim_end_matches(".wsdl");
    let peticion = match soap::leer_peticion(&cuerpo) {
        Ok(peticion) => peticion,
        Err(mensaje) => return soap::falla("Client", &mensaje),
    };
    let credenciales_validas = config.usuario.as_deref().is_none_or(|u| peticion.campo("username") == u)
        && config.password.as_deref().is_none_or(|p| peticion.campo("password") == p);
    let ahora = Sim::ahora(&config);
    let falla = sim.siguiente_falla(&peticion.operacion);
    if let Some(falla) = falla.as_ref().filter(|falla| !falla.trabaja()) {
        return falla.aplicar(().into_response()).await;
    }
    let (respuesta, retrasar) = match (servicio, peticion.operacion.as_str()) {
        ("stamp", operacion @ ("stamp" | "quick_stamp" | "stamped")) => {
            let resultado = if credenciales_validas {
                match operacion {
                    "stamped" => sim.consultar(&peticion.campo("xml")),
                    _ => sim.timbrar(&config, ahora, &peticion.campo("xml"), operacion == "quick_stamp"),
                }
            } else {
                Err(soap::Incidencia::new("300", "Usuario o contraseña inválidos"))
            };
            (soap::respuesta_timbrado(operacion, &resultado), operacion != "stamped")
        }
        ("retentions", operacion @ ("stamp" | "stamped")) => {
            let resultado = if !credenciales_validas {
                Err(soap::Incidencia::new("300", "Usuario o contraseña inválidos"))
            } else if operacion == "stamped" {
                sim.consultar_retencion(&peticion.campo("xml"))
            } else {
                sim.timbrar_retencion(&config, ahora, &peticion.campo("xml"))
            };
            (soap::respuesta_timbrado_en(soap::NS_RETENTIONS, operacion, &resultado), operacion != "stamped")
        }
        ("retentions", "cancel_signature") => {
            let resultado = if credenciales_validas {
                sim.cancelar_retencion(ahora, &peticion.campo("xml"))
            } else {
                Err(soap::Incidencia::new("300", "Usuario o contraseña inválidos"))
            };
            (soap::respuesta_cancelacion_en(soap::NS_RETENTIONS, &resultado), true)
        }
        ("cancel", "cancel_signature") => {
            let resultado = if credenciales_validas {
                sim.cancelar(&config, ahora, &peticion.campo("xml"))
            } else {
                Err(soap::Incidencia::new("300", "Usuario o contraseña inválidos"))
            };
            (soap::respuesta_cancelacion(&resultado), true)
        }
        ("cancel", "get_sat_status") => {
            let resultado = if credenciales_validas {
                Ok(sim.estado(
                    ahora,
                    &peticion.campo("taxpayer_id"),
                    &peticion.campo("rtaxpayer_id"),
                    &peticion.campo("uuid"),
                    &peticion.campo("total"),
                ))
            } else {
                Err("300 - Usuario o contraseña inválidos".to_owned())
            };
            (soap::respuesta_estado(&resultado), false)
        }
        ("cancel", "get_pending") => {
            let resultado = if credenciales_validas {
                Ok(sim.pendientes(ahora, &peticion.campo("rtaxpayer_id")))
            } else {
                Err("300 - Usuario o contraseña inválidos".to_owned())
            };
            (soap::respuesta_pendientes(&resultado), false)
        }
        ("cancel", "accept_reject_signature") => {
            let resultado = if credenciales_validas {
                sim.aceptar_rechazar(ahora, &peticion.campo("xml"))
            } else {
                Err("300 - Usuario o contraseña inválidos".to_owned())
            };
            (soap::respuesta_aceptacion_rechazo(&resultado), true)
        }
        (servicio, operacion) => {
            return soap::falla("Client", &format!("operación {operacion} no soportada en el servicio {servicio}"));
        }
    };
    if retrasar && !config.retraso.is_zero() {
        tokio::time::sleep(config.retraso).await;
    }
    match falla {
        Some(falla) => falla.aplicar(respuesta).await,
        None => respuesta,
    }
}
