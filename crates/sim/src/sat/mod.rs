//! SAT's descarga masiva v1.5 on loopback (PROTOCOLS.md §1), strict like SAT.
//!
//! Routes (SAT's paths, one host): `POST /Autenticacion/Autenticacion.svc`,
//! `POST /SolicitaDescargaService.svc`, `POST /VerificaSolicitudDescargaService.svc`,
//! `POST /DescargaMasivaService.svc`, dispatched on the `SOAPAction` header.
//!
//! Every message's XMLDSig is verified (digest and RSA value, as SAT: the operation element
//! detached, canonicalized with the algorithm the message names); the certificate must be a
//! FIEL valid now whose RFC is `RfcSolicitante`; `Autentica`'s timestamp must be current; the
//! token (5 minutes) must be live and the FIEL's. Refusals use SAT's codes and texts: a WCF
//! `InvalidSecurity` fault for authentication, `CodEstatus` 300–305 and 5001–5008 otherwise.
//!
//! Documents come from XML files (CFDI 4.0); a request matches them by RFC, date and type.
//! Each request can be driven into any state with [`Desenlace`].
//!
//! SAT's retention service (CFDI de Retenciones e Información de Pagos: same protocol, its own
//! hosts) is served under `/retenciones/…` with the same paths, its own documents
//! ([`SatSimConfig::retenciones`], dated by `FechaExp`), and its own tokens, requests and
//! packages: a token of one service is refused (300) by the other.

pub mod lote;
mod respuestas;

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use timbra_credentials::{Certificate, CertificateKind, Error as CredError, xmldsig};
use time::macros::{format_description, offset};
use time::{Duration, OffsetDateTime, PrimitiveDateTime};

use respuestas::{Estado, mensaje};

const NS_SOAP: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const NS_AUTH: &str = "http://DescargaMasivaTerceros.gob.mx";
const NS_DESCARGA: &str = "http://DescargaMasivaTerceros.sat.gob.mx";
const ACCION_AUTENTICA: &str = "http://DescargaMasivaTerceros.gob.mx/IAutenticacion/Autentica";
const ACCION_EMITIDOS: &str =
    "http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaEmitidos";
const ACCION_RECIBIDOS: &str =
    "http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaRecibidos";
const ACCION_FOLIO: &str = "http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaFolio";
const ACCION_VERIFICA: &str =
    "http://DescargaMasivaTerceros.sat.gob.mx/IVerificaSolicitudDescargaService/VerificaSolicitudDescarga";
const ACCION_DESCARGA: &str = "http://DescargaMasivaTerceros.sat.gob.mx/IDescargaMasivaTercerosService/Descargar";

/// How a request ends, forced per request (in the order requests arrive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Desenlace {
    /// As SAT would: accepted, in process, then finished with packages (or rejected with
    /// 5004 when nothing matches).
    Normal,
    /// `SolicitaDescarga*` refused with this `CodEstatus` (5001, 5002, 5005, 5006, 404…).
    Rechazo(u16),
    /// Stays `EstadoSolicitud` 1 (Aceptada) forever.
    SiempreAceptada,
    /// Stays 2 (En proceso) forever.
    SiempreEnProceso,
    /// Ends in 4 (Error), `CodigoEstadoSolicitud` 404.
    Error,
    /// Ends in 5 (Rechazada) with this `CodigoEstadoSolicitud` (5003 tope, 5004 sin información).
    Rechazada(u16),
    /// Ends in 6 (Vencida).
    Vencida,
    /// Ends in 3 with packages whose content is empty.
    PaqueteVacio,
}

impl std::str::FromStr for Desenlace {
    type Err = String;

    /// `normal`, `accepted`, `in-process`, `error`, `rejected` (5004), `rejected-5003`,
    /// `expired`, `empty-package`, or a `CodEstatus` (`5002`, `5005`, …).
    fn from_str(texto: &str) -> Result<Self, Self::Err> {
        Ok(match texto.trim() {
            "normal" | "finished" => Desenlace::Normal,
            "accepted" => Desenlace::SiempreAceptada,
            "in-process" => Desenlace::SiempreEnProceso,
            "error" => Desenlace::Error,
            "rejected" | "rejected-5004" => Desenlace::Rechazada(5004),
            "rejected-5003" => Desenlace::Rechazada(5003),
            "expired" => Desenlace::Vencida,
            "empty-package" => Desenlace::PaqueteVacio,
            otro => Desenlace::Rechazo(otro.parse::<u16>().map_err(|_| {
                format!(
                    "desenlace {otro:?}: use normal, accepted, in-process, error, rejected, rejected-5003, \
                     expired, empty-package or a CodEstatus such as 5002"
                )
            })?),
        })
    }
}

/// A CFDI the simulator serves.
#[derive(Clone, Debug)]
pub struct DocumentoSim {
    /// Folio fiscal (upper-case): the TFD's, or a made-up one for a document without TFD.
    pub uuid: String,
    /// The XML, served verbatim.
    pub xml: String,
    /// `Emisor/@Rfc`.
    pub rfc_emisor: String,
    /// `Emisor/@Nombre`.
    pub nombre_emisor: String,
    /// `Receptor/@Rfc`.
    pub rfc_receptor: String,
    /// `Receptor/@Nombre`.
    pub nombre_receptor: String,
    /// TFD `RfcProvCertif` (empty without TFD).
    pub rfc_pac: String,
    /// `Fecha` (issuer's local time): what the period filters on.
    pub fecha: PrimitiveDateTime,
    /// TFD `FechaTimbrado`, or `Fecha`.
    pub fecha_timbrado: PrimitiveDateTime,
    /// `Total`, as written.
    pub total: String,
    /// `TipoDeComprobante` (`RET` for a retention document).
    pub tipo: String,
}

fn fecha_cfdi(texto: &str) -> Result<PrimitiveDateTime, String> {
    PrimitiveDateTime::parse(texto.trim(), format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]"))
        .map_err(|e| format!("fecha {texto:?}: {e}"))
}

impl DocumentoSim {
    /// Reads a CFDI 4.0.
    ///
    /// # Errors
    /// Not a CFDI 4.0 (message).
    pub fn desde_xml(xml: &str) -> Result<Self, String> {
        let comprobante = timbra_cfdi::parser::parsear(xml).map_err(|e| e.to_string())?;
        let fecha = fecha_cfdi(&comprobante.fecha)?;
        let (uuid, rfc_pac, fecha_timbrado) = match comprobante.timbre() {
            Some(tfd) => {
                (tfd.uuid.trim().to_uppercase(), tfd.rfc_prov_certif.clone(), fecha_cfdi(&tfd.fecha_timbrado)?)
            }
            None => (uuid::Uuid::new_v4().to_string().to_uppercase(), String::new(), fecha),
        };
        Ok(DocumentoSim {
            uuid,
            xml: xml.to_owned(),
            rfc_emisor: comprobante.emisor.rfc.clone(),
            nombre_emisor: comprobante.emisor.nombre.clone(),
            rfc_receptor: comprobante.receptor.rfc.clone(),
            nombre_receptor: comprobante.receptor.nombre.clone(),
            rfc_pac,
            fecha,
            fecha_timbrado,
            total: comprobante.total.texto().to_owned(),
            tipo: comprobante.tipo_de_comprobante.clone(),
        })
    }

    /// Reads a CFDI de Retenciones 2.0 (served by the retention service): `FechaExp` is its
    /// date, `MontoTotOperacion` its amount, `RET` its type; a foreign receiver has an empty RFC.
    ///
    /// # Errors
    /// Not a Retenciones 2.0 document (message).
    pub fn desde_retencion(xml: &str) -> Result<Self, String> {
        let retencion = timbra_retenciones::parsear(xml).map_err(|e| e.to_string())?;
        let fecha = retencion.fecha_exp;
        let (uuid, rfc_pac, fecha_timbrado) = match retencion.timbre() {
            Some(tfd) => {
                (tfd.uuid.trim().to_uppercase(), tfd.rfc_prov_certif.clone(), fecha_cfdi(&tfd.fecha_timbrado)?)
            }
            None => (uuid::Uuid::new_v4().to_string().to_uppercase(), String::new(), fecha),
        };
        let rfc_receptor = match &retencion.receptor {
            timbra_retenciones::Receptor::Nacional(nacional) => nacional.rfc_r.as_str().to_owned(),
            timbra_retenciones::Receptor::Extranjero(_) => String::new(),
        };
        Ok(DocumentoSim {
            uuid,
            xml: xml.to_owned(),
            rfc_emisor: retencion.emisor.rfc_e.as_str().to_owned(),
            nombre_emisor: retencion.emisor.nom_den_raz_soc_e.clone(),
            rfc_receptor,
            nombre_receptor: retencion.receptor.nom_den_raz_soc_r().to_owned(),
            rfc_pac,
            fecha,
            fecha_timbrado,
            total: retencion.totales.monto_tot_operacion.to_string(),
            tipo: "RET".to_owned(),
        })
    }

    fn fila_metadatos(&self) -> String {
        let formato = format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");
        let fecha = |f: PrimitiveDateTime| f.format(formato).unwrap_or_default();
        format!(
            "{}~{}~{}~{}~{}~{}~{}~{}~{}~{}~1~",
            self.uuid,
            self.rfc_emisor,
            self.nombre_emisor,
            self.rfc_receptor,
            self.nombre_receptor,
            self.rfc_pac,
            fecha(self.fecha),
            fecha(self.fecha_timbrado),
            self.total,
            self.tipo
        )
    }
}

/// Reads every `*.xml` of a folder as a [`DocumentoSim`] (sorted by file name): a CFDI 4.0, or
/// a Retenciones 2.0 (`tipo` RET, for [`SatSimConfig::retenciones`]).
///
/// # Errors
/// The folder cannot be read, or a file is not a CFDI 4.0 (its name and why).
pub fn leer_carpeta(carpeta: &Path) -> Result<Vec<DocumentoSim>, String> {
    let mut rutas: Vec<_> = std::fs::read_dir(carpeta)
        .map_err(|e| format!("{}: {e}", carpeta.display()))?
        .flatten()
        .map(|entrada| entrada.path())
        .filter(|ruta| ruta.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("xml")))
        .collect();
    rutas.sort();
    rutas
        .iter()
        .map(|ruta| {
            let texto = std::fs::read_to_string(ruta).map_err(|e| format!("{}: {e}", ruta.display()))?;
            // A retention document (root `retenciones:Retenciones`) is read as one: the
            // retention service serves it (`tipo` RET).
            let documento = if texto.contains(timbra_retenciones::model::NS_RETENCIONES) {
                DocumentoSim::desde_retencion(&texto)
            } else {
                DocumentoSim::desde_xml(&texto)
            };
            documento.map_err(|e| format!("{}: {e}", ruta.display()))
        })
        .collect()
}

/// What the simulator serves and how it behaves.
#[derive(Clone, Debug)]
pub struct SatSimConfig {
    /// The clock: `Some` pins "now" (tests), `None` uses the system clock.
    pub ahora: Option<OffsetDateTime>,
    /// The CFDI it knows.
    pub documentos: Vec<DocumentoSim>,
    /// The retention documents the retention service (`/retenciones/…`) knows
    /// ([`DocumentoSim::desde_retencion`]).
    pub retenciones: Vec<DocumentoSim>,
    /// Polls that answer `EstadoSolicitud` 1 (Aceptada) before 2.
    pub consultas_aceptada: u32,
    /// Polls that answer 2 (En proceso) before the request ends.
    pub consultas_en_proceso: u32,
    /// Forced outcomes, one per `SolicitaDescarga*` in arrival order; [`Desenlace::Normal`]
    /// when empty.
    pub desenlaces: VecDeque<Desenlace>,
    /// UUIDs whose XML SAT does not have yet: CFDI requests leave them out; a folio request
    /// for one delivers only its metadata row.
    pub uuids_solo_metadatos: HashSet<String>,
    /// CFDI (or metadata rows) per package.
    pub documentos_por_paquete: usize,
    /// Every finished request delivers packages with empty content.
    pub paquetes_vacios: bool,
    /// Token lifetime (SAT: 5 minutes).
    pub vigencia_token: Duration,
    /// Downloads allowed per package (SAT: 2, then 5008).
    pub descargas_por_paquete: u32,
    /// Package lifetime (SAT: 72 hours, then 5007).
    pub vigencia_paquete: Duration,
    /// Each `Descargar` answers this late (a slow SAT; tests stop a process mid-download).
    pub retraso_descarga: std::time::Duration,
    /// Every package of a finished request is these bytes instead of its CFDI: a hostile
    /// package, as an impersonated SAT or a proxy swapping packages would serve (tests of the
    /// reader's limits, such as a ZIP bomb).
    pub paquete_alterado: Option<Arc<Vec<u8>>>,
}

impl Default for SatSimConfig {
    fn default() -> Self {
        SatSimConfig {
            ahora: None,
            documentos: Vec::new(),
            retenciones: Vec::new(),
            consultas_aceptada: 1,
            consultas_en_proceso: 1,
            desenlaces: VecDeque::new(),
            uuids_solo_metadatos: HashSet::new(),
            documentos_por_paquete: 200_000,
            paquetes_vacios: false,
            vigencia_token: Duration::minutes(5),
            descargas_por_paquete: 2,
            vigencia_paquete: Duration::hours(72),
            retraso_descarga: std::time::Duration::ZERO,
            paquete_alterado: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tipo {
    Cfdi,
    Metadata,
    Folio,
}

struct SolicitudSim {
    rfc: String,
    clave: String,
    tipo: Tipo,
    uuids: Vec<String>,
    desenlace: Desenlace,
    consultas: u32,
    paquetes: Vec<String>,
    terminada: bool,
}

struct PaqueteSim {
    rfc: String,
    base64: String,
    descargas: u32,
    creado: OffsetDateTime,
}

struct TokenSim {
    rfc: String,
    expira: OffsetDateTime,
}

#[derive(Default)]
struct Registro {
    tokens: HashMap<String, TokenSim>,
    solicitudes: HashMap<String, SolicitudSim>,
    /// Accepted CFDI requests per parameter set (SAT allows 2, then 5002).
    por_clave: HashMap<String, u32>,
    paquetes: HashMap<String, PaqueteSim>,
}

struct Interno {
    config: Mutex<SatSimConfig>,
    registro: Mutex<Registro>,
    /// The retention service's tokens, requests and packages.
    registro_retenciones: Mutex<Registro>,
}

/// A running SAT simulator; clone it to drive it from a test while it serves.
#[derive(Clone)]
pub struct SatSim {
    interno: Arc<Interno>,
    /// This handle serves the retention service (`/retenciones/…`).
    retenciones: bool,
}

fn bloquear<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain data behind; keep serving.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A refusal of a business call: `CodEstatus` and `Mensaje`.
struct Rechazo(u16, String);

impl Rechazo {
    fn de(codigo: u16) -> Self {
        Rechazo(codigo, mensaje(codigo).to_owned())
    }

    fn mal_formado(detalle: &str) -> Self {
        Rechazo(301, format!("{}:{detalle}", mensaje(301)))
    }
}

/// A signed business message that passed the checks.
struct Mensaje {
    rfc_solicitante: String,
    atributos: HashMap<String, String>,
    rfc_receptores: Vec<String>,
}

impl SatSim {
    /// A simulator with this configuration.
    pub fn new(config: SatSimConfig) -> Self {
        SatSim {
            interno: Arc::new(Interno {
                config: Mutex::new(config),
                registro: Mutex::default(),
                registro_retenciones: Mutex::default(),
            }),
            retenciones: false,
        }
    }

    /// Changes the configuration while serving (clock, outcomes, documents).
    pub fn configurar(&self, cambio: impl FnOnce(&mut SatSimConfig)) {
        cambio(&mut bloquear(&self.interno.config));
    }

    /// Queues forced outcomes for the next requests.
    pub fn forzar(&self, desenlaces: impl IntoIterator<Item = Desenlace>) {
        bloquear(&self.interno.config).desenlaces.extend(desenlaces);
    }

    /// How many requests were accepted (both services).
    pub fn solicitudes_aceptadas(&self) -> usize {
        bloquear(&self.interno.registro).solicitudes.len()
            + bloquear(&self.interno.registro_retenciones).solicitudes.len()
    }

    /// How many requests the retention service accepted.
    pub fn solicitudes_retenciones(&self) -> usize {
        bloquear(&self.interno.registro_retenciones).solicitudes.len()
    }

    /// This service's register.
    fn registro(&self) -> MutexGuard<'_, Registro> {
        if self.retenciones { bloquear(&self.interno.registro_retenciones) } else { bloquear(&self.interno.registro) }
    }

    /// This service's documents.
    fn documentos<'a>(&self, config: &'a SatSimConfig) -> &'a [DocumentoSim] {
        if self.retenciones { &config.retenciones } else { &config.documentos }
    }

    /// Forgets every token, request, package and forced outcome not used yet (a fresh SAT for
    /// the next test, same address and documents).
    pub fn reiniciar(&self) {
        bloquear(&self.interno.config).desenlaces.clear();
        *bloquear(&self.interno.registro) = Registro::default();
        *bloquear(&self.interno.registro_retenciones) = Registro::default();
    }

    /// How many times the package `id_paquete` was downloaded.
    pub fn descargas_de(&self, id_paquete: &str) -> u32 {
        let id = id_paquete.to_uppercase();
        let de = |registro: &Mutex<Registro>| bloquear(registro).paquetes.get(&id).map_or(0, |p| p.descargas);
        de(&self.interno.registro) + de(&self.interno.registro_retenciones)
    }

    /// How many tokens were issued (both services).
    pub fn tokens_emitidos(&self) -> usize {
        bloquear(&self.interno.registro).tokens.len() + bloquear(&self.interno.registro_retenciones).tokens.len()
    }

    fn ahora(&self) -> OffsetDateTime {
        bloquear(&self.interno.config).ahora.unwrap_or_else(OffsetDateTime::now_utc)
    }

    /// The axum router: the CFDI service at SAT's paths, the retention service under
    /// `/retenciones` (`SatConfig::con_base`'s layout).
    pub fn router(&self) -> Router {
        let servicio = |sim: SatSim| {
            Router::new()
                .route("/Autenticacion/Autenticacion.svc", post(autenticacion))
                .route("/SolicitaDescargaService.svc", post(solicitud))
                .route("/VerificaSolicitudDescargaService.svc", post(verificacion))
                .route("/DescargaMasivaService.svc", post(descarga))
                .layer(DefaultBodyLimit::max(4 * 1024 * 1024))
                .with_state(sim)
        };
        let retenciones = SatSim { interno: self.interno.clone(), retenciones: true };
        servicio(SatSim { interno: self.interno.clone(), retenciones: false })
            .nest("/retenciones", servicio(retenciones))
    }

    /// Serves on `listener` until the task is dropped.
    ///
    /// # Errors
    /// I/O errors of the listener.
    pub async fn serve(self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        axum::serve(listener, self.router()).await
    }

    fn autenticar(&self, cuerpo: &str) -> Result<(String, OffsetDateTime, OffsetDateTime), String> {
        let ahora = self.ahora();
        let documento = roxmltree::Document::parse(cuerpo).map_err(|e| format!("XML: {e}"))?;
        let cuerpo_soap = cuerpo_soap(&documento)?;
        let operacion = cuerpo_soap.children().find(|n| n.is_element()).ok_or("soap:Body vacío")?;
        if operacion.tag_name().name() != "Autentica" || operacion.tag_name().namespace() != Some(NS_AUTH) {
            return Err("se esperaba Autentica".into());
        }
        let verificado = xmldsig::verify(cuerpo).map_err(|e| format!("firma: {e}"))?;
        if verificado.signed_element != "Timestamp" || !verificado.reference_uri.starts_with('#') {
            return Err("la firma no cubre u:Timestamp".into());
        }
        let certificado = verificado.certificate;
        revisar_fiel(&certificado, ahora).map_err(|(_, texto)| texto)?;
        let fecha = |nombre: &str| -> Result<OffsetDateTime, String> {
            let texto = documento
                .descendants()
                .find(|n| n.is_element() && n.tag_name().name() == nombre)
                .and_then(|n| n.text())
                .ok_or_else(|| format!("sin u:{nombre}"))?;
            OffsetDateTime::parse(texto.trim(), &time::format_description::well_known::Rfc3339)
                .map_err(|e| format!("u:{nombre}: {e}"))
        };
        let (creado, expira) = (fecha("Created")?, fecha("Expires")?);
        // WCF's default clock skew is 5 minutes.
        let tolerancia = Duration::minutes(5);
        if expira <= creado || creado > ahora + tolerancia || expira + tolerancia <= ahora {
            return Err("u:Timestamp fuera de vigencia".into());
        }
        let vigencia = bloquear(&self.interno.config).vigencia_token;
        let expira_token = ahora + vigencia;
        let token = token_jwt(certificado.no_certificado(), ahora, expira_token);
        self.registro()
            .tokens
            .insert(token.clone(), TokenSim { rfc: certificado.rfc().to_uppercase(), expira: expira_token });
        tracing::info!(sim.rfc = %certificado.rfc(), "sim sat: token issued");
        Ok((token, ahora, expira_token))
    }

    /// The checks every business call goes through, in SAT's order: token (300), XML (301),
    /// seal (302), certificate (305, 304), RFC (303), token owner (300).
    fn revisar(&self, headers: &HeaderMap, cuerpo: &str, operacion: &str, hijo: &str) -> Result<Mensaje, Rechazo> {
        let ahora = self.ahora();
        let token_rfc = {
            let token = token_de(headers).ok_or_else(|| Rechazo::de(300))?;
            let registro = self.registro();
            let guardado = registro.tokens.get(&token).ok_or_else(|| Rechazo::de(300))?;
            if guardado.expira <= ahora {
                return Err(Rechazo::de(300));
            }
            guardado.rfc.clone()
        };
        let documento = roxmltree::Document::parse(cuerpo).map_err(|_| Rechazo::de(301))?;
        let cuerpo_soap = cuerpo_soap(&documento).map_err(|_| Rechazo::de(301))?;
        let nodo = cuerpo_soap
            .children()
            .find(|n| n.is_element())
            .filter(|n| n.tag_name().name() == operacion && n.tag_name().namespace() == Some(NS_DESCARGA))
            .ok_or_else(|| Rechazo::de(301))?;
        let nodo_hijo = nodo
            .children()
            .find(|n| n.is_element() && n.tag_name().name() == hijo && n.tag_name().namespace() == Some(NS_DESCARGA))
            .ok_or_else(|| Rechazo::de(301))?;
        let verificado = xmldsig::verify(cuerpo).map_err(|error| match error {
            CredError::Xml(_) => Rechazo::de(301),
            CredError::DigestMismatch | CredError::InvalidSignature => Rechazo::de(302),
            _ => Rechazo::de(305),
        })?;
        if verificado.signed_element != operacion || !verificado.reference_uri.is_empty() {
            return Err(Rechazo::de(302));
        }
        revisar_fiel(&verificado.certificate, ahora).map_err(|(codigo, _)| Rechazo::de(codigo))?;
        let atributos: HashMap<String, String> =
            nodo_hijo.attributes().map(|a| (a.name().to_owned(), a.value().to_owned())).collect();
        let rfc_solicitante = atributos.get("RfcSolicitante").cloned().unwrap_or_default();
        if rfc_solicitante.is_empty() {
            return Err(Rechazo::mal_formado("RfcSolicitante es requerido"));
        }
        if verificado.certificate.rfc().to_uppercase() != rfc_solicitante.to_uppercase() {
            return Err(Rechazo::de(303));
        }
        if token_rfc != rfc_solicitante.to_uppercase() {
            return Err(Rechazo::de(300));
        }
        let rfc_receptores = nodo_hijo
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == "RfcReceptor")
            .filter_map(|n| n.text().map(|t| t.trim().to_owned()))
            .collect();
        Ok(Mensaje { rfc_solicitante: rfc_solicitante.to_uppercase(), atributos, rfc_receptores })
    }

    fn solicitar(&self, operacion: &str, mensaje_firmado: &Mensaje) -> Result<String, Rechazo> {
        let ahora_mx = self.ahora().to_offset(offset!(-6));
        // Held until the request is matched and its outcome taken (documents are not cloned);
        // released before the register is locked.
        let mut config = bloquear(&self.interno.config);
        let atributo =
            |nombre: &str| mensaje_firmado.atributos.get(nombre).map(|v| v.trim().to_owned()).unwrap_or_default();
        let rfc = mensaje_firmado.rfc_solicitante.clone();
        let (tipo, uuids, clave) = if operacion == "SolicitaDescargaFolio" {
            let folio = atributo("Folio").to_uppercase();
            if !timbra_cfdi::timbre::uuid_valido(&folio) {
                return Err(Rechazo::mal_formado("El Folio no es un UUID válido"));
            }
            let uuids: Vec<String> = self
                .documentos(&config)
                .iter()
                .filter(|d| d.uuid == folio && (d.rfc_receptor == rfc || d.rfc_emisor == rfc))
                .map(|d| d.uuid.clone())
                .collect();
            (Tipo::Folio, uuids, format!("folio|{rfc}|{folio}"))
        } else {
            let tipo = match atributo("TipoSolicitud").as_str() {
                "CFDI" => Tipo::Cfdi,
                "Metadata" => Tipo::Metadata,
                _ => return Err(Rechazo::mal_formado("TipoSolicitud debe ser CFDI o Metadata")),
            };
            let inicial = fecha_cfdi(&atributo("FechaInicial"))
                .map_err(|_| Rechazo::mal_formado("FechaInicial no es una fecha válida"))?;
            let final_ = fecha_cfdi(&atributo("FechaFinal"))
                .map_err(|_| Rechazo::mal_formado("FechaFinal no es una fecha válida"))?;
            if inicial >= final_ {
                return Err(Rechazo::mal_formado("La fecha inicial debe ser menor a la fecha final"));
            }
            let limite = PrimitiveDateTime::new(ahora_mx.date(), time::Time::MIDNIGHT) - Duration::days(6 * 365 + 1);
            if inicial < limite {
                return Err(Rechazo::mal_formado("La fecha inicial no puede ser anterior a seis años"));
            }
            let estado = atributo("EstadoComprobante");
            if !matches!(estado.as_str(), "" | "Todos" | "Vigente" | "Cancelado") {
                return Err(Rechazo::mal_formado("EstadoComprobante debe ser Todos, Vigente o Cancelado"));
            }
            let tipo_comprobante = atributo("TipoComprobante");
            if !matches!(tipo_comprobante.as_str(), "" | "I" | "E" | "T" | "N" | "P") {
                return Err(Rechazo::mal_formado("TipoComprobante inválido"));
            }
            let recibidos = operacion == "SolicitaDescargaRecibidos";
            if recibidos {
                let receptor = atributo("RfcReceptor").to_uppercase();
                if receptor.is_empty() {
                    return Err(Rechazo::mal_formado("RfcReceptor es requerido"));
                }
                if receptor != rfc {
                    return Err(Rechazo::de(5001));
                }
                if tipo == Tipo::Cfdi && estado != "Vigente" {
                    return Err(Rechazo::mal_formado(
                        "La solicitud de descarga no es válida. No se permite la descarga de xml que se encuentren cancelados.",
                    ));
                }
            } else if atributo("RfcEmisor").to_uppercase() != rfc {
                return Err(Rechazo::de(5001));
            }
            let filtro_emisor = if recibidos { atributo("RfcEmisor").to_uppercase() } else { String::new() };
            let receptores: Vec<String> = mensaje_firmado.rfc_receptores.iter().map(|r| r.to_uppercase()).collect();
            let uuids = self
                .documentos(&config)
                .iter()
                .filter(|d| if recibidos { d.rfc_receptor == rfc } else { d.rfc_emisor == rfc })
                .filter(|d| filtro_emisor.is_empty() || d.rfc_emisor == filtro_emisor)
                .filter(|d| receptores.is_empty() || receptores.contains(&d.rfc_receptor))
                .filter(|d| tipo_comprobante.is_empty() || d.tipo == tipo_comprobante)
                .filter(|d| d.fecha >= inicial && d.fecha <= final_)
                .filter(|_| estado != "Cancelado")
                .map(|d| d.uuid.clone())
                .collect();
            let mut pares: Vec<(&String, &String)> =
                mensaje_firmado.atributos.iter().filter(|(k, _)| k.as_str() != "RfcSolicitante").collect();
            pares.sort();
            let clave = format!("{operacion}|{rfc}|{pares:?}|{receptores:?}");
            (tipo, uuids, clave)
        };

        let desenlace = config.desenlaces.pop_front().unwrap_or(Desenlace::Normal);
        drop(config);
        if let Desenlace::Rechazo(codigo) = desenlace {
            return Err(Rechazo::de(codigo));
        }
        let mut registro = self.registro();
        // 5005: an identical request is still being worked on.
        if registro.solicitudes.values().any(|s| s.clave == clave && !s.terminada) {
            return Err(Rechazo::de(5005));
        }
        // 5002: CFDI requests with the same parameters are allowed twice (PROTOCOLS.md §1.9).
        let veces = registro.por_clave.get(&clave).copied().unwrap_or(0);
        if tipo != Tipo::Metadata && veces >= 2 {
            return Err(Rechazo::de(5002));
        }
        registro.por_clave.insert(clave.clone(), veces + 1);
        let id = uuid::Uuid::new_v4().to_string();
        registro.solicitudes.insert(
            id.clone(),
            SolicitudSim { rfc, clave, tipo, uuids, desenlace, consultas: 0, paquetes: Vec::new(), terminada: false },
        );
        tracing::info!(sim.id_solicitud = %id, sim.operacion = operacion, "sim sat: request accepted");
        Ok(id)
    }

    fn verificar(&self, mensaje_firmado: &Mensaje) -> Response {
        let ahora = self.ahora();
        // Lock order everywhere: configuration, then register.
        let config = bloquear(&self.interno.config);
        let id = mensaje_firmado.atributos.get("IdSolicitud").cloned().unwrap_or_default();
        let mut registro = self.registro();
        let Registro { solicitudes, paquetes, .. } = &mut *registro;
        let Some(solicitud) =
            solicitudes.get_mut(&id.to_lowercase()).filter(|s| s.rfc == mensaje_firmado.rfc_solicitante)
        else {
            return respuestas::verificacion(&Estado {
                cod_estatus: 5004,
                mensaje: "No se encontró la solicitud",
                estado_solicitud: None,
                codigo_estado: None,
                numero_cfdis: 0,
                paquetes: &[],
            });
        };
        solicitud.consultas = solicitud.consultas.saturating_add(1);
        let (aceptada, en_proceso) = (config.consultas_aceptada, config.consultas_en_proceso);
        let pendiente = match solicitud.desenlace {
            Desenlace::SiempreAceptada => Some(1),
            Desenlace::SiempreEnProceso => Some(2),
            _ if solicitud.terminada => None,
            _ if solicitud.consultas <= aceptada => Some(1),
            _ if solicitud.consultas <= aceptada + en_proceso => Some(2),
            _ => None,
        };
        let (xmls, solo_metadatos): (Vec<&DocumentoSim>, Vec<&DocumentoSim>) = self
            .documentos(&config)
            .iter()
            .filter(|d| solicitud.uuids.contains(&d.uuid))
            .partition(|d| !config.uuids_solo_metadatos.contains(&d.uuid));
        let entregables: Vec<&DocumentoSim> = match solicitud.tipo {
            Tipo::Metadata => xmls.iter().chain(solo_metadatos.iter()).copied().collect(),
            Tipo::Cfdi => xmls.clone(),
            // A folio whose XML SAT lacks still has its metadata row.
            Tipo::Folio => xmls.iter().chain(solo_metadatos.iter()).copied().collect(),
        };
        let numero = entregables.len();
        let estado = |estado_solicitud: u8, codigo_estado: u16, numero_cfdis: usize, ids: &[String]| {
            respuestas::verificacion(&Estado {
                cod_estatus: 5000,
                mensaje: mensaje(5000),
                estado_solicitud: Some(estado_solicitud),
                codigo_estado: Some(codigo_estado),
                numero_cfdis,
                paquetes: ids,
            })
        };
        if let Some(numero_estado) = pendiente {
            return estado(numero_estado, 5000, 0, &[]);
        }
        solicitud.terminada = true;
        match solicitud.desenlace {
            Desenlace::Error => return estado(4, 404, 0, &[]),
            Desenlace::Rechazada(codigo) => return estado(5, codigo, 0, &[]),
            Desenlace::Vencida => return estado(6, 5000, 0, &[]),
            _ => {}
        }
        if entregables.is_empty() {
            return estado(5, 5004, 0, &[]);
        }
        if solicitud.paquetes.is_empty() {
            let vacio = config.paquetes_vacios || solicitud.desenlace == Desenlace::PaqueteVacio;
            let por_paquete = config.documentos_por_paquete.max(1);
            for (indice, grupo) in entregables.chunks(por_paquete).enumerate() {
                let id_paquete = format!("{}_{:02}", id.to_uppercase(), indice + 1);
                let metadatos = solicitud.tipo == Tipo::Metadata
                    || (solicitud.tipo == Tipo::Folio
                        && grupo.iter().all(|d| config.uuids_solo_metadatos.contains(&d.uuid)));
                let base64 = match &config.paquete_alterado {
                    _ if vacio => String::new(),
                    Some(bytes) => STANDARD.encode(bytes.as_slice()),
                    None => STANDARD.encode(zip_de(&id_paquete, grupo, metadatos)),
                };
                paquetes.insert(
                    id_paquete.clone(),
                    PaqueteSim { rfc: solicitud.rfc.clone(), base64, descargas: 0, creado: ahora },
                );
                solicitud.paquetes.push(id_paquete);
            }
        }
        let ids = solicitud.paquetes.clone();
        estado(3, 5000, numero, &ids)
    }

    fn descargar(&self, mensaje_firmado: &Mensaje) -> Response {
        let ahora = self.ahora();
        let (vigencia_paquete, descargas_por_paquete) = {
            let config = bloquear(&self.interno.config);
            (config.vigencia_paquete, config.descargas_por_paquete)
        };
        let id = mensaje_firmado.atributos.get("IdPaquete").cloned().unwrap_or_default().to_uppercase();
        let mut registro = self.registro();
        let Some(paquete) = registro
            .paquetes
            .get_mut(&id)
            .filter(|p| p.rfc == mensaje_firmado.rfc_solicitante && p.creado + vigencia_paquete > ahora)
        else {
            return respuestas::descarga(5007, mensaje(5007), "");
        };
        if paquete.descargas >= descargas_por_paquete {
            return respuestas::descarga(5008, mensaje(5008), "");
        }
        paquete.descargas += 1;
        tracing::info!(sim.id_paquete = %id, sim.descargas = paquete.descargas, "sim sat: package downloaded");
        respuestas::descarga(5000, mensaje(5000), &paquete.base64)
    }
}

/// A package as SAT delivers it: `<UUID>.xml` per CFDI, or `<IdPaquete>.txt` with metadata
/// rows (CRLF) when `metadatos` (benchmarks read the same bytes the simulator serves).
pub fn zip_de(id_paquete: &str, documentos: &[&DocumentoSim], metadatos: bool) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opciones = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut escribir = |nombre: &str, contenido: &[u8]| -> zip::result::ZipResult<()> {
        zip.start_file(nombre, opciones)?;
        zip.write_all(contenido)?;
        Ok(())
    };
    let resultado = if metadatos {
        let mut texto = String::from(
            "Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion\r\n",
        );
        for documento in documentos {
            texto.push_str(&documento.fila_metadatos());
            texto.push_str("\r\n");
        }
        escribir(&format!("{id_paquete}.txt"), texto.as_bytes())
    } else {
        documentos.iter().try_for_each(|d| escribir(&format!("{}.xml", d.uuid), d.xml.as_bytes()))
    };
    if let Err(error) = resultado {
        tracing::error!(error = %error, "sim sat: could not write a package");
    }
    zip.finish().map(std::io::Cursor::into_inner).unwrap_or_default()
}

/// A JWT-shaped token followed by `%26wrap_subject%3d<hex of the certificate number>`, as
/// SAT issues (PROTOCOLS.md §1.3).
fn token_jwt(no_certificado: &str, emitido: OffsetDateTime, expira: OffsetDateTime) -> String {
    let sujeto = hex_ascii(no_certificado);
    let cabecera = URL_SAFE_NO_PAD
        .encode(r#"{"alg":"http://www.w3.org/2001/04/xmldsig-more#hmac-sha256","typ":"JWT"}"#.as_bytes());
    let cuerpo = URL_SAFE_NO_PAD.encode(
        format!(
            r#"{{"nbf":{},"exp":{},"iat":{},"iss":"LoadSolicitudDecargaMasivaTerceros","actort":"{sujeto}"}}"#,
            emitido.unix_timestamp(),
            expira.unix_timestamp(),
            emitido.unix_timestamp()
        )
        .as_bytes(),
    );
    let firma = URL_SAFE_NO_PAD
        .encode([uuid::Uuid::new_v4().as_bytes().as_slice(), uuid::Uuid::new_v4().as_bytes().as_slice()].concat());
    format!("{cabecera}.{cuerpo}.{firma}%26wrap_subject%3d{sujeto}")
}

fn hex_ascii(texto: &str) -> String {
    texto.bytes().map(|b| format!("{b:02x}")).collect()
}

/// The certificate must be a FIEL (305) valid now (304). Returns the code and a reason.
fn revisar_fiel(certificado: &Certificate, ahora: OffsetDateTime) -> Result<(), (u16, String)> {
    if certificado.kind() != CertificateKind::Fiel {
        return Err((305, format!("el certificado {} no es una FIEL", certificado.no_certificado())));
    }
    certificado.check_valid_at(ahora).map_err(|e| (304, e.to_string()))
}

fn cuerpo_soap<'a, 'i>(documento: &'a roxmltree::Document<'i>) -> Result<roxmltree::Node<'a, 'i>, String> {
    let raiz = documento.root_element();
    if raiz.tag_name().name() != "Envelope" || raiz.tag_name().namespace() != Some(NS_SOAP) {
        return Err("se esperaba un s:Envelope de SOAP 1.1".into());
    }
    raiz.children()
        .find(|n| n.is_element() && n.tag_name().name() == "Body" && n.tag_name().namespace() == Some(NS_SOAP))
        .ok_or_else(|| "sin s:Body".into())
}

/// `Authorization: WRAP access_token="…"`.
fn token_de(headers: &HeaderMap) -> Option<String> {
    let valor = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let resto = valor.strip_prefix("WRAP access_token=\"")?;
    Some(resto.strip_suffix('"')?.to_owned())
}

fn accion(headers: &HeaderMap) -> String {
    headers
        .get("SOAPAction")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().trim_matches('"').to_owned())
        .unwrap_or_default()
}

/// WCF's basicHttpBinding only takes `text/xml` (415 otherwise).
fn tipo_valido(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/xml"))
}

fn tipo_invalido() -> Response {
    (
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "Cannot process the message because the content type was not the expected type 'text/xml; charset=utf-8'.",
    )
        .into_response()
}

async fn autenticacion(State(sim): State<SatSim>, headers: HeaderMap, cuerpo: String) -> Response {
    if !tipo_valido(&headers) {
        return tipo_invalido();
    }
    let accion = accion(&headers);
    if accion != ACCION_AUTENTICA {
        return respuestas::falla_accion(&accion);
    }
    match sim.autenticar(&cuerpo) {
        Ok((token, creado, expira)) => respuestas::autenticacion(&token, creado, expira),
        Err(motivo) => {
            tracing::info!(sim.motivo = %motivo, "sim sat: authentication refused");
            respuestas::falla_seguridad()
        }
    }
}

async fn solicitud(State(sim): State<SatSim>, headers: HeaderMap, cuerpo: String) -> Response {
    if !tipo_valido(&headers) {
        return tipo_invalido();
    }
    let accion = accion(&headers);
    let operacion = match accion.as_str() {
        ACCION_EMITIDOS => "SolicitaDescargaEmitidos",
        ACCION_RECIBIDOS => "SolicitaDescargaRecibidos",
        ACCION_FOLIO => "SolicitaDescargaFolio",
        _ => return respuestas::falla_accion(&accion),
    };
    if roxmltree::Document::parse(&cuerpo).is_err() {
        return respuestas::falla_cliente("The message is not well-formed XML.");
    }
    let resultado = sim.revisar(&headers, &cuerpo, operacion, "solicitud").and_then(|m| sim.solicitar(operacion, &m));
    match resultado {
        Ok(id) => respuestas::solicitud(operacion, Some(&id), 5000, mensaje(5000)),
        Err(Rechazo(codigo, texto)) => {
            tracing::info!(sim.cod_estatus = codigo, sim.operacion = operacion, "sim sat: request refused");
            respuestas::solicitud(operacion, None, codigo, &texto)
        }
    }
}

async fn verificacion(State(sim): State<SatSim>, headers: HeaderMap, cuerpo: String) -> Response {
    if !tipo_valido(&headers) {
        return tipo_invalido();
    }
    let accion = accion(&headers);
    if accion != ACCION_VERIFICA {
        return respuestas::falla_accion(&accion);
    }
    if roxmltree::Document::parse(&cuerpo).is_err() {
        return respuestas::falla_cliente("The message is not well-formed XML.");
    }
    match sim.revisar(&headers, &cuerpo, "VerificaSolicitudDescarga", "solicitud") {
        Ok(mensaje_firmado) => sim.verificar(&mensaje_firmado),
        Err(Rechazo(codigo, texto)) => respuestas::verificacion(&Estado {
            cod_estatus: codigo,
            mensaje: &texto,
            estado_solicitud: None,
            codigo_estado: None,
            numero_cfdis: 0,
            paquetes: &[],
        }),
    }
}

async fn descarga(State(sim): State<SatSim>, headers: HeaderMap, cuerpo: String) -> Response {
    if !tipo_valido(&headers) {
        return tipo_invalido();
    }
    let accion = accion(&headers);
    if accion != ACCION_DESCARGA {
        return respuestas::falla_accion(&accion);
    }
    if roxmltree::Document::parse(&cuerpo).is_err() {
        return respuestas::falla_cliente("The message is not well-formed XML.");
    }
    let retraso = bloquear(&sim.interno.config).retraso_descarga;
    if !retraso.is_zero() {
        tokio::time::sleep(retraso).await;
    }
    match sim.revisar(&headers, &cuerpo, "PeticionDescargaMasivaTercerosEntrada", "peticionDescarga") {
        Ok(mensaje_firmado) => sim.descargar(&mensaje_firmado),
        Err(Rechazo(codigo, texto)) => respuestas::descarga(codigo, &texto, ""),
    }
}

/// Serves a SAT simulator with `config` on `listener` (what `timbra sim sat` runs).
///
/// # Errors
/// I/O errors of the listener.
pub async fn serve(listener: tokio::net::TcpListener, config: SatSimConfig) -> std::io::Result<()> {
    SatSim::new(config).serve(listener).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use clap::Parser;

    use super::*;
    use crate::cli::SimCommand;

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        command: SimCommand,
    }

    #[test]
    fn outcomes_parse_from_the_command_line() {
        let cli = Cli::try_parse_from([
            "sim",
            "sat",
            "--force",
            "accepted,in-process,error,rejected,rejected-5003,expired,empty-package,5002,5005,normal",
            "--metadata-only",
            "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
            "--polls-accepted",
            "3",
            "--empty-package",
        ])
        .unwrap();
        let SimCommand::Sat(args) = cli.command else { panic!("not sat") };
        assert_eq!(
            args.force,
            [
                Desenlace::SiempreAceptada,
                Desenlace::SiempreEnProceso,
                Desenlace::Error,
                Desenlace::Rechazada(5004),
                Desenlace::Rechazada(5003),
                Desenlace::Vencida,
                Desenlace::PaqueteVacio,
                Desenlace::Rechazo(5002),
                Desenlace::Rechazo(5005),
                Desenlace::Normal,
            ]
        );
        assert_eq!(args.polls_accepted, 3);
        assert!(args.empty_package);
        assert_eq!(args.listen.to_string(), "127.0.0.1:8090");
        assert!("sometimes".parse::<Desenlace>().is_err());
    }

    #[test]
    fn metadata_rows_and_packages() {
        let documento = DocumentoSim {
            uuid: "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE".into(),
            xml: "<x/>".into(),
            rfc_emisor: "AAA010101AAA".into(),
            nombre_emisor: "EMISOR".into(),
            rfc_receptor: "EKU9003173C9".into(),
            nombre_receptor: "RECEPTOR".into(),
            rfc_pac: "SPR190613I52".into(),
            fecha: time::macros::datetime!(2026-10-01 09:15:00),
            fecha_timbrado: time::macros::datetime!(2026-10-01 09:15:31),
            total: "1160.00".into(),
            tipo: "I".into(),
        };
        assert_eq!(
            documento.fila_metadatos(),
            "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE~AAA010101AAA~EMISOR~EKU9003173C9~RECEPTOR~SPR190613I52~\
             2026-10-01 09:15:00~2026-10-01 09:15:31~1160.00~I~1~"
        );
        let zip = zip_de("ID_01", &[&documento], true);
        let mut archivo = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
        assert_eq!(archivo.len(), 1);
        let mut texto = String::new();
        std::io::Read::read_to_string(&mut archivo.by_name("ID_01.txt").unwrap(), &mut texto).unwrap();
        assert!(texto.starts_with("Uuid~RfcEmisor~"));
        assert!(texto.ends_with("~1~\r\n"));
    }

    #[test]
    fn tokens_look_like_sats() {
        let token = token_jwt("30001000000500003415", OffsetDateTime::UNIX_EPOCH, OffsetDateTime::UNIX_EPOCH);
        assert_eq!(token.matches('.').count(), 2);
        assert!(token.ends_with("%26wrap_subject%3d3330303031303030303030353030303033343135"));
    }
}
