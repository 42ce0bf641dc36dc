//! The transport: posts the translator's envelopes to SAT over reqwest, keeps the token until
//! it expires, re-authenticates once on `CodEstatus` 300, and polls `VerificaSolicitudDescarga`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use timbra_credentials::{CertificateKind, Credential};
use time::OffsetDateTime;

use crate::error::SatError;
use crate::mensajes::{self, SolicitudAceptada, SolicitudEmitidos, SolicitudRecibidos, Token, Verificacion};
use crate::paquete::{self, CertificadosSat, LimitesPaquete, Paquete};

/// SAT's production authentication service (PROTOCOLS.md §1.1).
pub const URL_AUTENTICACION: &str =
    "https://cfdidescargamasivasolicitud.clouda.sat.gob.mx/Autenticacion/Autenticacion.svc";
/// SAT's production request service.
pub const URL_SOLICITUD: &str = "https://cfdidescargamasivasolicitud.clouda.sat.gob.mx/SolicitaDescargaService.svc";
/// SAT's production verification service.
pub const URL_VERIFICACION: &str =
    "https://cfdidescargamasivasolicitud.clouda.sat.gob.mx/VerificaSolicitudDescargaService.svc";
/// SAT's production download service (another host).
pub const URL_DESCARGA: &str = "https://cfdidescargamasiva.clouda.sat.gob.mx/DescargaMasivaService.svc";

/// SAT's production authentication service for CFDI de Retenciones (same protocol, other host:
/// phpcfdi's `ServiceEndpoints::retenciones()`).
pub const URL_RET_AUTENTICACION: &str =
    "https://retendescargamasivasolicitud.clouda.sat.gob.mx/Autenticacion/Autenticacion.svc";
/// SAT's production request service for retentions.
pub const URL_RET_SOLICITUD: &str =
    "https://retendescargamasivasolicitud.clouda.sat.gob.mx/SolicitaDescargaService.svc";
/// SAT's production verification service for retentions.
pub const URL_RET_VERIFICACION: &str =
    "https://retendescargamasivasolicitud.clouda.sat.gob.mx/VerificaSolicitudDescargaService.svc";
/// SAT's production download service for retentions.
pub const URL_RET_DESCARGA: &str = "https://retendescargamasiva.clouda.sat.gob.mx/DescargaMasivaService.svc";

/// Which of SAT's two descarga masiva services a client talks to: the same protocol and
/// messages on separate hosts, each with its own token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Servicio {
    /// CFDI 4.0 (and earlier) invoices: `cfdidescargamasiva*`.
    #[default]
    Cfdi,
    /// CFDI de Retenciones e Información de Pagos: `retendescargamasiva*`.
    Retenciones,
}

impl Servicio {
    /// `cfdi` or `retenciones` (logs and metrics).
    pub fn como_texto(self) -> &'static str {
        match self {
            Servicio::Cfdi => "cfdi",
            Servicio::Retenciones => "retenciones",
        }
    }
}

/// The four URLs of one service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlsServicio {
    /// `Autenticacion.svc`.
    pub autenticacion: String,
    /// `SolicitaDescargaService.svc`.
    pub solicitud: String,
    /// `VerificaSolicitudDescargaService.svc`.
    pub verificacion: String,
    /// `DescargaMasivaService.svc`.
    pub descarga: String,
}

impl UrlsServicio {
    fn bajo(base: &str) -> Self {
        UrlsServicio {
            autenticacion: format!("{base}/Autenticacion/Autenticacion.svc"),
            solicitud: format!("{base}/SolicitaDescargaService.svc"),
            verificacion: format!("{base}/VerificaSolicitudDescargaService.svc"),
            descarga: format!("{base}/DescargaMasivaService.svc"),
        }
    }
}

/// A token is renewed this long before SAT's `Expires` (satcfdi uses 30 s).
const MARGEN_TOKEN: time::Duration = time::Duration::seconds(30);

/// The client's clock: the system's, or one a test sets.
pub type Reloj = Arc<dyn Fn() -> OffsetDateTime + Send + Sync>;

/// Where and how to talk to SAT.
#[derive(Clone, Debug)]
pub struct SatConfig {
    /// `TIMBRA_SAT_AUTH_URL`.
    pub url_autenticacion: String,
    /// `TIMBRA_SAT_SOLICITA_URL`.
    pub url_solicitud: String,
    /// `TIMBRA_SAT_VERIFICA_URL`.
    pub url_verificacion: String,
    /// `TIMBRA_SAT_DESCARGA_URL`.
    pub url_descarga: String,
    /// The retention service's URLs: `TIMBRA_SAT_RET_AUTH_URL`, `TIMBRA_SAT_RET_SOLICITA_URL`,
    /// `TIMBRA_SAT_RET_VERIFICA_URL`, `TIMBRA_SAT_RET_DESCARGA_URL` (or all under
    /// `TIMBRA_SAT_RET_BASE_URL` with SAT's paths).
    pub retenciones: UrlsServicio,
    /// `TIMBRA_SAT_POLL_SECONDS`: pause between `VerificaSolicitudDescarga` polls (60 s).
    pub pausa_verificacion: Duration,
    /// `TIMBRA_SAT_CERTS_DIR`: folder of SAT stamping certificates (`<NoCertificado>.cer`)
    /// to verify `SelloSAT`; without it every TFD is recorded as not verified.
    pub carpeta_certificados: Option<PathBuf>,
    /// Whole-request timeout (packages are large: 5 minutes).
    pub timeout: Duration,
    /// Connection timeout.
    pub connect_timeout: Duration,
    /// What reading one package may cost ([`LimitesPaquete`]; the server reads them from
    /// `TIMBRA_SAT_PACKAGE_MAX_*`).
    pub limites_paquete: LimitesPaquete,
}

impl SatConfig {
    /// SAT's production URLs, 60 s between polls, no certificate folder.
    pub fn produccion() -> Self {
        SatConfig {
            url_autenticacion: URL_AUTENTICACION.into(),
            url_solicitud: URL_SOLICITUD.into(),
            url_verificacion: URL_VERIFICACION.into(),
            url_descarga: URL_DESCARGA.into(),
            retenciones: UrlsServicio {
                autenticacion: URL_RET_AUTENTICACION.into(),
                solicitud: URL_RET_SOLICITUD.into(),
                verificacion: URL_RET_VERIFICACION.into(),
                descarga: URL_RET_DESCARGA.into(),
            },
            pausa_verificacion: Duration::from_secs(60),
            carpeta_certificados: None,
            timeout: Duration::from_secs(300),
            connect_timeout: Duration::from_secs(10),
            limites_paquete: LimitesPaquete::default(),
        }
    }

    /// Every service under one base URL with SAT's paths, the retention service's under
    /// `{base}/retenciones` (the simulator's layout: one simulator serves both).
    pub fn con_base(base: &str) -> Self {
        let base = base.trim_end_matches('/');
        let cfdi = UrlsServicio::bajo(base);
        SatConfig {
            url_autenticacion: cfdi.autenticacion,
            url_solicitud: cfdi.solicitud,
            url_verificacion: cfdi.verificacion,
            url_descarga: cfdi.descarga,
            retenciones: UrlsServicio::bajo(&format!("{base}/retenciones")),
            ..SatConfig::produccion()
        }
    }

    /// The URLs of `servicio`.
    pub fn urls(&self, servicio: Servicio) -> UrlsServicio {
        match servicio {
            Servicio::Cfdi => UrlsServicio {
                autenticacion: self.url_autenticacion.clone(),
                solicitud: self.url_solicitud.clone(),
                verificacion: self.url_verificacion.clone(),
                descarga: self.url_descarga.clone(),
            },
            Servicio::Retenciones => self.retenciones.clone(),
        }
    }

    /// [`SatConfig::produccion`] overridden by the `TIMBRA_SAT_*` variables.
    ///
    /// # Errors
    /// [`SatError::Configuracion`] for a bad `TIMBRA_SAT_POLL_SECONDS` or URL.
    pub fn desde_entorno() -> Result<Self, SatError> {
        Self::desde(|nombre| std::env::var(nombre).ok())
    }

    /// As [`SatConfig::desde_entorno`] with a lookup function (tests).
    ///
    /// # Errors
    /// [`SatError::Configuracion`].
    pub fn desde(variable: impl Fn(&str) -> Option<String>) -> Result<Self, SatError> {
        let mut config = SatConfig::produccion();
        let url = |nombre: &str, destino: &mut String| -> Result<(), SatError> {
            if let Some(valor) = variable(nombre).filter(|v| !v.trim().is_empty()) {
                let valor = valor.trim().to_owned();
                if !(valor.starts_with("http://") || valor.starts_with("https://")) {
                    return Err(SatError::Configuracion(format!("{nombre}: {valor} no es una URL http(s)")));
                }
                *destino = valor;
            }
            Ok(())
        };
        url("TIMBRA_SAT_AUTH_URL", &mut config.url_autenticacion)?;
        url("TIMBRA_SAT_SOLICITA_URL", &mut config.url_solicitud)?;
        url("TIMBRA_SAT_VERIFICA_URL", &mut config.url_verificacion)?;
        url("TIMBRA_SAT_DESCARGA_URL", &mut config.url_descarga)?;
        let mut base_ret = String::new();
        url("TIMBRA_SAT_RET_BASE_URL", &mut base_ret)?;
        if !base_ret.is_empty() {
            config.retenciones = UrlsServicio::bajo(base_ret.trim_end_matches('/'));
        }
        url("TIMBRA_SAT_RET_AUTH_URL", &mut config.retenciones.autenticacion)?;
        url("TIMBRA_SAT_RET_SOLICITA_URL", &mut config.retenciones.solicitud)?;
        url("TIMBRA_SAT_RET_VERIFICA_URL", &mut config.retenciones.verificacion)?;
        url("TIMBRA_SAT_RET_DESCARGA_URL", &mut config.retenciones.descarga)?;
        if let Some(valor) = variable("TIMBRA_SAT_POLL_SECONDS").filter(|v| !v.trim().is_empty()) {
            let segundos = valor.trim().parse::<u64>().map_err(|_| {
                SatError::Configuracion(format!("TIMBRA_SAT_POLL_SECONDS: {valor} no es un número de segundos"))
            })?;
            config.pausa_verificacion = Duration::from_secs(segundos);
        }
        config.carpeta_certificados =
            variable("TIMBRA_SAT_CERTS_DIR").filter(|v| !v.trim().is_empty()).map(PathBuf::from);
        Ok(config)
    }
}

/// A descarga masiva client for one FIEL and one [`Servicio`] (CFDI unless
/// [`ClienteSat::retenciones`]). Cheap to clone; clones share the tokens (one per service).
#[derive(Clone)]
pub struct ClienteSat {
    config: SatConfig,
    http: reqwest::Client,
    fiel: Arc<Credential>,
    reloj: Reloj,
    servicio: Servicio,
    urls: Arc<UrlsServicio>,
    token: Arc<Mutex<Option<Token>>>,
    token_retenciones: Arc<Mutex<Option<Token>>>,
    certificados: Arc<CertificadosSat>,
}

impl std::fmt::Debug for ClienteSat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClienteSat")
            .field("config", &self.config)
            .field("servicio", &self.servicio)
            .field("rfc", &self.fiel.certificate().rfc())
            .finish_non_exhaustive()
    }
}

impl ClienteSat {
    /// A client signing with `fiel`, on the system clock. Loads the certificate folder.
    ///
    /// # Errors
    /// [`SatError::NoEsFiel`] for a CSD, [`SatError::Configuracion`] for an unreadable
    /// certificate folder, [`SatError::Transporte`] when the HTTP client cannot be built.
    pub fn new(config: SatConfig, fiel: Credential) -> Result<Self, SatError> {
        if fiel.certificate().kind() != CertificateKind::Fiel {
            return Err(SatError::NoEsFiel(format!(
                "el certificado {} es {}, no una FIEL",
                fiel.certificate().no_certificado(),
                fiel.certificate().kind()
            )));
        }
        let certificados = match &config.carpeta_certificados {
            Some(carpeta) => CertificadosSat::desde_carpeta(carpeta)?,
            None => CertificadosSat::vacio(),
        };
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| SatError::Transporte(e.to_string()))?;
        let urls = Arc::new(config.urls(Servicio::Cfdi));
        Ok(ClienteSat {
            config,
            http,
            fiel: Arc::new(fiel),
            reloj: Arc::new(OffsetDateTime::now_utc),
            servicio: Servicio::Cfdi,
            urls,
            token: Arc::new(Mutex::new(None)),
            token_retenciones: Arc::new(Mutex::new(None)),
            certificados: Arc::new(certificados),
        })
    }

    /// Uses `reloj` instead of the system clock (tests pin dates inside the FIEL's validity).
    pub fn con_reloj(mut self, reloj: Reloj) -> Self {
        self.reloj = reloj;
        self
    }

    /// Uses these SAT certificates to verify `SelloSAT` (instead of the configured folder).
    pub fn con_certificados(mut self, certificados: CertificadosSat) -> Self {
        self.certificados = Arc::new(certificados);
        self
    }

    /// The same client talking to `servicio` (its URLs and its own token; the FIEL, clock and
    /// certificates are shared).
    pub fn para(&self, servicio: Servicio) -> ClienteSat {
        let mut cliente = self.clone();
        cliente.servicio = servicio;
        cliente.urls = Arc::new(self.config.urls(servicio));
        cliente
    }

    /// [`ClienteSat::para`] the retention service.
    pub fn retenciones(&self) -> ClienteSat {
        self.para(Servicio::Retenciones)
    }

    /// The service this client talks to.
    pub fn servicio(&self) -> Servicio {
        self.servicio
    }

    fn celda_token(&self) -> &Mutex<Option<Token>> {
        match self.servicio {
            Servicio::Cfdi => &self.token,
            Servicio::Retenciones => &self.token_retenciones,
        }
    }

    /// The RFC of the FIEL (`RfcSolicitante`).
    pub fn rfc(&self) -> &str {
        self.fiel.certificate().rfc()
    }

    /// The configuration.
    pub fn config(&self) -> &SatConfig {
        &self.config
    }

    fn ahora(&self) -> OffsetDateTime {
        (self.reloj)()
    }

    fn revisar_fiel(&self) -> Result<(), SatError> {
        self.fiel.certificate().check_valid_at(self.ahora()).map_err(|e| SatError::FielVencida(e.to_string()))
    }

    fn token_guardado(&self) -> Option<Token> {
        self.celda_token().lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// A token: the kept one while it is valid (30 s to spare), otherwise a new one from
    /// `Autentica`.
    ///
    /// # Errors
    /// [`SatError::FielVencida`], [`SatError::Autenticacion`], transport errors.
    pub async fn autenticar(&self) -> Result<Token, SatError> {
        let ahora = self.ahora();
        if let Some(token) = self.token_guardado().filter(|t| t.vigente(ahora, MARGEN_TOKEN)) {
            return Ok(token);
        }
        self.revisar_fiel()?;
        let token_id = format!("uuid-{}-1", uuid::Uuid::new_v4());
        let sobre = mensajes::sobre_autenticacion(&self.fiel, ahora, &token_id)?;
        let respuesta =
            self.llamar(&self.urls.autenticacion, mensajes::ACCION_AUTENTICA, None, sobre, "autenticacion").await?;
        let token = mensajes::leer_autenticacion(&respuesta)?;
        tracing::debug!(sat.rfc = %self.rfc(), sat.servicio = self.servicio.como_texto(), sat.token_expira = %token.expira, "sat token issued");
        *self.celda_token().lock().unwrap_or_else(PoisonError::into_inner) = Some(token.clone());
        Ok(token)
    }

    fn olvidar_token(&self) {
        *self.celda_token().lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// A signed business call with the token; on `CodEstatus` 300 (token refused) it
    /// authenticates again and retries once (PROTOCOLS.md §1.3).
    async fn llamar_autenticado<T>(
        &self,
        url: &str,
        accion: &str,
        operacion: &str,
        sobre: impl Fn() -> Result<String, SatError>,
        leer: impl Fn(&str) -> Result<T, SatError>,
    ) -> Result<T, SatError> {
        self.revisar_fiel()?;
        let mut reintentado = false;
        loop {
            let token = self.autenticar().await?;
            let respuesta = self.llamar(url, accion, Some(&token), sobre()?, operacion).await?;
            match leer(&respuesta) {
                Err(error) if error.cod_estatus() == Some("300") && !reintentado => {
                    tracing::info!(sat.operacion = operacion, "sat refused the token (300); authenticating again");
                    self.olvidar_token();
                    reintentado = true;
                }
                otro => return otro,
            }
        }
    }

    /// `SolicitaDescargaRecibidos`.
    ///
    /// # Errors
    /// [`SatError::CodEstatus`] (5002, 5005, 301, …), FIEL and transport errors.
    pub async fn solicitar_recibidos(&self, solicitud: &SolicitudRecibidos) -> Result<SolicitudAceptada, SatError> {
        let aceptada = self
            .llamar_autenticado(
                &self.urls.solicitud,
                mensajes::ACCION_SOLICITA_RECIBIDOS,
                "SolicitaDescargaRecibidos",
                || mensajes::sobre_solicitud_recibidos(&self.fiel, solicitud),
                |xml| mensajes::leer_solicitud("SolicitaDescargaRecibidos", xml),
            )
            .await?;
        tracing::info!(sat.rfc = %self.rfc(), sat.id_solicitud = %aceptada.id_solicitud, "sat request accepted (recibidos)");
        Ok(aceptada)
    }

    /// `SolicitaDescargaEmitidos`.
    ///
    /// # Errors
    /// As [`ClienteSat::solicitar_recibidos`].
    pub async fn solicitar_emitidos(&self, solicitud: &SolicitudEmitidos) -> Result<SolicitudAceptada, SatError> {
        let aceptada = self
            .llamar_autenticado(
                &self.urls.solicitud,
                mensajes::ACCION_SOLICITA_EMITIDOS,
                "SolicitaDescargaEmitidos",
                || mensajes::sobre_solicitud_emitidos(&self.fiel, solicitud),
                |xml| mensajes::leer_solicitud("SolicitaDescargaEmitidos", xml),
            )
            .await?;
        tracing::info!(sat.rfc = %self.rfc(), sat.id_solicitud = %aceptada.id_solicitud, "sat request accepted (emitidos)");
        Ok(aceptada)
    }

    /// `SolicitaDescargaFolio`: one CFDI by its folio fiscal.
    ///
    /// # Errors
    /// [`SatError::UuidInvalido`], as [`ClienteSat::solicitar_recibidos`].
    pub async fn solicitar_folio(&self, folio: &str) -> Result<SolicitudAceptada, SatError> {
        // Checked before authenticating: a bad folio costs no token.
        if !timbra_cfdi::timbre::uuid_valido(folio.trim()) {
            return Err(SatError::UuidInvalido(folio.to_owned()));
        }
        let aceptada = self
            .llamar_autenticado(
                &self.urls.solicitud,
                mensajes::ACCION_SOLICITA_FOLIO,
                "SolicitaDescargaFolio",
                || mensajes::sobre_solicitud_folio(&self.fiel, folio),
                |xml| mensajes::leer_solicitud("SolicitaDescargaFolio", xml),
            )
            .await?;
        tracing::info!(sat.rfc = %self.rfc(), sat.id_solicitud = %aceptada.id_solicitud, "sat request accepted (folio)");
        Ok(aceptada)
    }

    /// `VerificaSolicitudDescarga`, once.
    ///
    /// # Errors
    /// [`SatError::CodEstatus`] when the call failed (e.g. 5004 unknown request), FIEL and
    /// transport errors. States 4–6 are answers, not errors: see [`Verificacion::error`].
    pub async fn verificar(&self, id_solicitud: &str) -> Result<Verificacion, SatError> {
        let verificacion = self
            .llamar_autenticado(
                &self.urls.verificacion,
                mensajes::ACCION_VERIFICA,
                "VerificaSolicitudDescarga",
                || mensajes::sobre_verificacion(&self.fiel, id_solicitud),
                mensajes::leer_verificacion,
            )
            .await?;
        tracing::debug!(
            sat.id_solicitud = %id_solicitud,
            sat.estado = verificacion.estado.numero(),
            sat.codigo_estado = %verificacion.codigo_estado,
            sat.paquetes = verificacion.ids_paquetes.len(),
            "sat request verified"
        );
        Ok(verificacion)
    }

    /// Polls `VerificaSolicitudDescarga` until the request leaves states 1–2, pausing
    /// [`SatConfig::pausa_verificacion`] between polls, at most `consultas` polls.
    ///
    /// # Errors
    /// [`SatError::Solicitud`] for states 4, 5, 6 (SAT_ESTADO_n, SAT_5004, …),
    /// [`SatError::VerificaTimeout`] after `consultas` pending polls, as
    /// [`ClienteSat::verificar`].
    pub async fn esperar(&self, id_solicitud: &str, consultas: u32) -> Result<Verificacion, SatError> {
        for consulta in 1..=consultas.max(1) {
            let verificacion = self.verificar(id_solicitud).await?;
            if !verificacion.estado.pendiente() {
                return match verificacion.error() {
                    Some(error) => Err(error),
                    None => Ok(verificacion),
                };
            }
            if consulta < consultas {
                tokio::time::sleep(self.config.pausa_verificacion).await;
            }
        }
        Err(SatError::VerificaTimeout { id_solicitud: id_solicitud.to_owned(), consultas: consultas.max(1) })
    }

    /// `Descargar`: the package's ZIP bytes (possibly empty).
    ///
    /// # Errors
    /// [`SatError::CodEstatus`] (5007 no such package, 5008 downloaded twice), FIEL and
    /// transport errors, [`SatError::Parseo`] for bad base64.
    pub async fn descargar(&self, id_paquete: &str) -> Result<Vec<u8>, SatError> {
        let bytes = self
            .llamar_autenticado(
                &self.urls.descarga,
                mensajes::ACCION_DESCARGA,
                "Descargar",
                || mensajes::sobre_descarga(&self.fiel, id_paquete),
                mensajes::leer_descarga,
            )
            .await?;
        tracing::info!(sat.id_paquete = %id_paquete, sat.bytes = bytes.len(), "sat package downloaded");
        Ok(bytes)
    }

    /// Reads a downloaded package with this client's SAT certificates and package limits
    /// ([`paquete::leer_paquete_con_limites`]). Blocking: call it from a blocking thread.
    ///
    /// # Errors
    /// [`SatError::PaqueteVacio`], [`SatError::Parseo`], [`SatError::PaqueteExcedido`].
    pub fn leer_paquete(&self, bytes: &[u8]) -> Result<Paquete, SatError> {
        paquete::leer_paquete_con_limites(bytes, &self.certificados, &self.config.limites_paquete)
    }

    async fn llamar(
        &self,
        url: &str,
        accion: &str,
        token: Option<&Token>,
        sobre: String,
        operacion: &str,
    ) -> Result<String, SatError> {
        let mut peticion = self
            .http
            .post(url)
            .header("Content-Type", "text/xml; charset=\"utf-8\"")
            .header("Accept", "text/xml")
            .header("SOAPAction", accion);
        if let Some(token) = token {
            peticion = peticion.header("Authorization", token.autorizacion());
        }
        let respuesta = peticion.body(sobre).send().await.map_err(|e| self.error_http(e))?;
        let estado = respuesta.status();
        let cuerpo = respuesta.text().await.map_err(|e| self.error_http(e))?;
        // WCF answers faults with HTTP 500: the translator reads them.
        if estado.is_success() || (estado.as_u16() == 500 && cuerpo.contains("Fault")) {
            Ok(cuerpo)
        } else {
            tracing::warn!(sat.operacion = operacion, http.status = estado.as_u16(), "sat answered an HTTP error");
            let extracto: String = cuerpo.chars().take(200).collect();
            Err(SatError::Transporte(format!("HTTP {estado} en {operacion}: {extracto}")))
        }
    }

    fn error_http(&self, error: reqwest::Error) -> SatError {
        if error.is_timeout() {
            SatError::Timeout(self.config.timeout)
        } else {
            SatError::Transporte(error.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_from_environment() {
        let defaults = SatConfig::desde(|_| None).unwrap();
        assert_eq!(defaults.url_autenticacion, URL_AUTENTICACION);
        assert_eq!(defaults.url_descarga, URL_DESCARGA);
        assert_eq!(defaults.pausa_verificacion, Duration::from_secs(60));
        assert!(defaults.carpeta_certificados.is_none());

        let config = SatConfig::desde(|nombre| match nombre {
            "TIMBRA_SAT_AUTH_URL" => Some("http://127.0.0.1:8090/Autenticacion/Autenticacion.svc".into()),
            "TIMBRA_SAT_DESCARGA_URL" => Some("http://127.0.0.1:8090/DescargaMasivaService.svc".into()),
            "TIMBRA_SAT_POLL_SECONDS" => Some("5".into()),
            "TIMBRA_SAT_CERTS_DIR" => Some("/etc/timbra/sat".into()),
            _ => None,
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.url_autenticacion, "http://127.0.0.1:8090/Autenticacion/Autenticacion.svc");
        assert_eq!(config.url_solicitud, URL_SOLICITUD);
        assert_eq!(config.pausa_verificacion, Duration::from_secs(5));
        assert_eq!(config.carpeta_certificados, Some(PathBuf::from("/etc/timbra/sat")));

        let malo = SatConfig::desde(|nombre| (nombre == "TIMBRA_SAT_POLL_SECONDS").then(|| "un minuto".into()));
        assert!(matches!(malo, Err(SatError::Configuracion(_))));
        let malo = SatConfig::desde(|nombre| (nombre == "TIMBRA_SAT_VERIFICA_URL").then(|| "ftp://x".into()));
        assert!(matches!(malo, Err(SatError::Configuracion(_))));
    }

    #[test]
    fn base_url_layout() {
        let config = SatConfig::con_base("http://127.0.0.1:9/");
        assert_eq!(config.url_solicitud, "http://127.0.0.1:9/SolicitaDescargaService.svc");
        assert_eq!(config.url_verificacion, "http://127.0.0.1:9/VerificaSolicitudDescargaService.svc");
        assert_eq!(config.retenciones.solicitud, "http://127.0.0.1:9/retenciones/SolicitaDescargaService.svc");
        assert_eq!(
            config.urls(Servicio::Retenciones).autenticacion,
            "http://127.0.0.1:9/retenciones/Autenticacion/Autenticacion.svc"
        );
    }

    #[test]
    fn retention_urls_from_environment() {
        let defaults = SatConfig::desde(|_| None).unwrap();
        assert_eq!(defaults.retenciones.autenticacion, URL_RET_AUTENTICACION);
        assert_eq!(defaults.retenciones.descarga, URL_RET_DESCARGA);
        let base = SatConfig::desde(|nombre| match nombre {
            "TIMBRA_SAT_RET_BASE_URL" => Some("http://127.0.0.1:8090/ret/".into()),
            "TIMBRA_SAT_RET_DESCARGA_URL" => Some("http://127.0.0.1:8091/Descarga.svc".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(base.retenciones.verificacion, "http://127.0.0.1:8090/ret/VerificaSolicitudDescargaService.svc");
        assert_eq!(base.retenciones.descarga, "http://127.0.0.1:8091/Descarga.svc");
        assert_eq!(base.url_descarga, URL_DESCARGA);
        let malo = SatConfig::desde(|nombre| (nombre == "TIMBRA_SAT_RET_AUTH_URL").then(|| "retenciones".into()));
        assert!(matches!(malo, Err(SatError::Configuracion(_))));
    }
}
