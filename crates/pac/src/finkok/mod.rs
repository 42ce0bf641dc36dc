//! Finkok's SOAP 1.1 services (PROTOCOLS.md §2.2) over reqwest: `stamp`, `stamped`,
//! `cancel_signature` (of CFDI, and of retentions on the `retentions` service), `get_sat_status`, and the receiver's `get_pending` and
//! `accept_reject_signature`. [`mensajes`] builds and reads the messages;
//! this module only moves them.

pub mod mensajes;

use std::fmt;
use std::time::Duration;

use crate::xml::extracto;
use crate::{AceptacionRechazo, BoxFuture, Cancelacion, ConsultaEstado, EstadoSat, Pac, PacError, Servicio, Timbrado};

/// Finkok's demo host.
pub const URL_DEMO: &str = "https://demo-facturacion.finkok.com";
/// Finkok's production host.
pub const URL_PRODUCCION: &str = "https://facturacion.finkok.com";

/// Where and how to reach the PAC. The server fills it from `TIMBRA_PAC_URL`,
/// `TIMBRA_PAC_USER` and `TIMBRA_PAC_PASSWORD`.
#[derive(Clone)]
pub struct FinkokConfig {
    /// Base URL (`https://demo-facturacion.finkok.com`, or the simulator's
    /// `http://127.0.0.1:PORT`); services live under `/servicios/soap/<service>`.
    pub url: String,
    /// Account user.
    pub usuario: String,
    /// Account password (never printed).
    pub password: String,
    /// Whole-request time limit (default 30 s; Finkok answers a stamp in about 1 s).
    pub timeout: Duration,
    /// Connection time limit (default 10 s).
    pub connect_timeout: Duration,
}

impl FinkokConfig {
    /// A configuration with the default time limits.
    pub fn new(url: &str, usuario: &str, password: &str) -> Self {
        FinkokConfig {
            url: url.trim_end_matches('/').to_owned(),
            usuario: usuario.to_owned(),
            password: password.to_owned(),
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
        }
    }
}

impl fmt::Debug for FinkokConfig {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("FinkokConfig")
            .field("url", &self.url)
            .field("usuario", &self.usuario)
            .field("password", &"***")
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}

/// A Finkok client. Cheap to clone (reqwest's pool is shared).
#[derive(Clone, Debug)]
pub struct FinkokClient {
    config: FinkokConfig,
    http: reqwest::Client,
}

impl FinkokClient {
    /// Builds the client.
    ///
    /// # Errors
    /// [`PacError::Transport`] when the HTTP client cannot be built (TLS set-up).
    pub fn new(config: FinkokConfig) -> Result<Self, PacError> {
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| PacError::Transport(e.to_string()))?;
        Ok(FinkokClient { config, http })
    }

    /// Posts an envelope to `/servicios/soap/<servicio>` with `SOAPAction: <operacion>` and
    /// returns the body of a 200 answer or of a 500 carrying a SOAP fault.
    async fn llamar(&self, servicio: &str, operacion: &str, sobre: String) -> Result<String, PacError> {
        let url = format!("{}/servicios/soap/{servicio}", self.config.url);
        let respuesta = self
            .http
            .post(&url)
            .header("Content-Type", "text/xml; charset=utf-8")
            .header("SOAPAction", format!("\"{operacion}\""))
            .body(sobre)
            .send()
            .await
            .map_err(|e| self.error_http(e))?;
        let estado = respuesta.status();
        let cuerpo = respuesta.text().await.map_err(|e| self.error_http(e))?;
        // SOAP 1.1 sends faults with HTTP 500: the translator reads them.
        if estado.is_success() || (estado.as_u16() == 500 && cuerpo.contains("Fault")) {
            Ok(cuerpo)
        } else {
            Err(PacError::Transport(format!("HTTP {estado} en {operacion}: {}", extracto(&cuerpo, 200))))
        }
    }

    fn error_http(&self, error: reqwest::Error) -> PacError {
        if error.is_timeout() { PacError::Timeout(self.config.timeout) } else { PacError::Transport(error.to_string()) }
    }
}

impl Pac for FinkokClient {
    fn timbrar_en<'a>(&'a self, servicio: Servicio, xml_sellado: &'a str) -> BoxFuture<'a, Result<Timbrado, PacError>> {
        Box::pin(async move {
            let (ruta, ns) = mensajes::servicio_timbrado(servicio);
            let sobre =
                mensajes::sobre_timbrado_en(ns, "stamp", xml_sellado, &self.config.usuario, &self.config.password);
            let respuesta = self.llamar(ruta, "stamp", sobre).await?;
            mensajes::leer_timbrado("stamp", &respuesta)
        })
    }

    fn consultar_en<'a>(
        &'a self,
        servicio: Servicio,
        xml_sellado: &'a str,
    ) -> BoxFuture<'a, Result<Option<Timbrado>, PacError>> {
        Box::pin(async move {
            let (ruta, ns) = mensajes::servicio_timbrado(servicio);
            let sobre =
                mensajes::sobre_timbrado_en(ns, "stamped", xml_sellado, &self.config.usuario, &self.config.password);
            let respuesta = self.llamar(ruta, "stamped", sobre).await?;
            match mensajes::leer_timbrado("stamped", &respuesta) {
                Ok(timbrado) => Ok(Some(timbrado)),
                Err(error) if error.code() == Some(mensajes::CODIGO_SIN_TIMBRE_PREVIO) => Ok(None),
                Err(error) => Err(error),
            }
        })
    }

    fn cancelar_en<'a>(
        &'a self,
        servicio: Servicio,
        cancelacion_firmada: &'a str,
    ) -> BoxFuture<'a, Result<Cancelacion, PacError>> {
        Box::pin(async move {
            let (ruta, ns) = mensajes::servicio_cancelacion(servicio);
            let sobre =
                mensajes::sobre_cancelacion_en(ns, cancelacion_firmada, &self.config.usuario, &self.config.password);
            let respuesta = self.llamar(ruta, "cancel_signature", sobre).await?;
            mensajes::leer_cancelacion(&respuesta)
        })
    }

    fn estatus_cancelacion<'a>(&'a self, consulta: &'a ConsultaEstado) -> BoxFuture<'a, Result<EstadoSat, PacError>> {
        Box::pin(async move {
            let sobre = mensajes::sobre_estado(consulta, &self.config.usuario, &self.config.password);
            let respuesta = self.llamar("cancel", "get_sat_status", sobre).await?;
            mensajes::leer_estado(&respuesta)
        })
    }

    fn pendientes<'a>(&'a self, rfc_receptor: &'a str) -> BoxFuture<'a, Result<Vec<String>, PacError>> {
        Box::pin(async move {
            let sobre = mensajes::sobre_pendientes(rfc_receptor, &self.config.usuario, &self.config.password);
            let respuesta = self.llamar("cancel", "get_pending", sobre).await?;
            mensajes::leer_pendientes(&respuesta)
        })
    }

    fn aceptar_rechazar<'a>(
        &'a self,
        respuesta_firmada: &'a str,
    ) -> BoxFuture<'a, Result<AceptacionRechazo, PacError>> {
        Box::pin(async move {
            let sobre =
                mensajes::sobre_aceptacion_rechazo(respuesta_firmada, &self.config.usuario, &self.config.password);
            let respuesta = self.llamar("cancel", "accept_reject_signature", sobre).await?;
            mensajes::leer_aceptacion_rechazo(&respuesta)
        })
    }
}
