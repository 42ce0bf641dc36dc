//! The pure translator of descarga masiva v1.5 (PROTOCOLS.md §1): builds the signed SOAP
//! requests and reads SAT's answers. No I/O; unit-tested on recorded messages.

use timbra_cfdi::timbre::uuid_valido;
use timbra_credentials::Credential;
use timbra_credentials::xmldsig::{self, DescargaRequest};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::error::SatError;

/// SOAPAction of `Autentica`.
pub const ACCION_AUTENTICA: &str = "http://DescargaMasivaTerceros.gob.mx/IAutenticacion/Autentica";
/// SOAPAction of `SolicitaDescargaEmitidos`.
pub const ACCION_SOLICITA_EMITIDOS: &str =
    "http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaEmitidos";
/// SOAPAction of `SolicitaDescargaRecibidos`.
pub const ACCION_SOLICITA_RECIBIDOS: &str =
    "http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaRecibidos";
/// SOAPAction of `SolicitaDescargaFolio`.
pub const ACCION_SOLICITA_FOLIO: &str =
    "http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaFolio";
/// SOAPAction of `VerificaSolicitudDescarga`.
pub const ACCION_VERIFICA: &str =
    "http://DescargaMasivaTerceros.sat.gob.mx/IVerificaSolicitudDescargaService/VerificaSolicitudDescarga";
/// SOAPAction of `Descargar`.
pub const ACCION_DESCARGA: &str = "http://DescargaMasivaTerceros.sat.gob.mx/IDescargaMasivaTercerosService/Descargar";

/// `TipoSolicitud`: what a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TipoSolicitud {
    /// `CFDI`: the XML documents.
    Cfdi,
    /// `Metadata`: one `~`-separated row per CFDI.
    Metadata,
}

impl TipoSolicitud {
    /// SAT's literal.
    pub fn como_sat(self) -> &'static str {
        match self {
            TipoSolicitud::Cfdi => "CFDI",
            TipoSolicitud::Metadata => "Metadata",
        }
    }
}

/// `EstadoComprobante` filter (v1.5 words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EstadoComprobante {
    /// `Todos`.
    Todos,
    /// `Vigente` (the only value SAT allows for XML of received CFDI).
    Vigente,
    /// `Cancelado`.
    Cancelado,
}

impl EstadoComprobante {
    /// SAT's literal.
    pub fn como_sat(self) -> &'static str {
        match self {
            EstadoComprobante::Todos => "Todos",
            EstadoComprobante::Vigente => "Vigente",
            EstadoComprobante::Cancelado => "Cancelado",
        }
    }
}

/// Filters shared by the two period requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Periodo {
    /// `FechaInicial`, Mexico local time (strictly before `fecha_final`).
    pub fecha_inicial: PrimitiveDateTime,
    /// `FechaFinal`, Mexico local time.
    pub fecha_final: PrimitiveDateTime,
    /// `TipoSolicitud`.
    pub tipo_solicitud: TipoSolicitud,
    /// `TipoComprobante` (`I`, `E`, `T`, `N`, `P`), optional.
    pub tipo_comprobante: Option<String>,
    /// `EstadoComprobante`; for received CFDI XML the client sends `Vigente` when unset.
    pub estado_comprobante: Option<EstadoComprobante>,
    /// `RfcACuentaTerceros`, optional.
    pub rfc_a_cuenta_terceros: Option<String>,
    /// `Complemento` (SAT code such as `nomina12`), optional.
    pub complemento: Option<String>,
}

impl Periodo {
    /// A period with no optional filter.
    pub fn new(fecha_inicial: PrimitiveDateTime, fecha_final: PrimitiveDateTime, tipo: TipoSolicitud) -> Self {
        Periodo {
            fecha_inicial,
            fecha_final,
            tipo_solicitud: tipo,
            tipo_comprobante: None,
            estado_comprobante: None,
            rfc_a_cuenta_terceros: None,
            complemento: None,
        }
    }
}

/// `SolicitaDescargaRecibidos`: CFDI received by the FIEL's RFC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolicitudRecibidos {
    /// Period and filters.
    pub periodo: Periodo,
    /// `RfcEmisor`: only this issuer (optional).
    pub rfc_emisor: Option<String>,
}

/// `SolicitaDescargaEmitidos`: CFDI issued by the FIEL's RFC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolicitudEmitidos {
    /// Period and filters.
    pub periodo: Periodo,
    /// `RfcReceptores/RfcReceptor`: up to 5 receivers (optional).
    pub rfc_receptores: Vec<String>,
}

/// What SAT answered to a `SolicitaDescarga*` with `CodEstatus` 5000.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolicitudAceptada {
    /// `IdSolicitud`, to verify with.
    pub id_solicitud: String,
    /// `CodEstatus` (5000).
    pub cod_estatus: String,
    /// `Mensaje`.
    pub mensaje: String,
}

/// `EstadoSolicitud` of a request (PROTOCOLS.md §1.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EstadoSolicitud {
    /// 1 Aceptada.
    Aceptada,
    /// 2 En proceso.
    EnProceso,
    /// 3 Terminada: packages ready.
    Terminada,
    /// 4 Error.
    Error,
    /// 5 Rechazada (e.g. 5004 no information, 5003 too many).
    Rechazada,
    /// 6 Vencida (expired).
    Vencida,
}

impl EstadoSolicitud {
    /// From SAT's number.
    pub fn desde_numero(numero: u8) -> Option<Self> {
        Some(match numero {
            1 => EstadoSolicitud::Aceptada,
            2 => EstadoSolicitud::EnProceso,
            3 => EstadoSolicitud::Terminada,
            4 => EstadoSolicitud::Error,
            5 => EstadoSolicitud::Rechazada,
            6 => EstadoSolicitud::Vencida,
            _ => return None,
        })
    }

    /// SAT's number.
    pub fn numero(self) -> u8 {
        match self {
            EstadoSolicitud::Aceptada => 1,
            EstadoSolicitud::EnProceso => 2,
            EstadoSolicitud::Terminada => 3,
            EstadoSolicitud::Error => 4,
            EstadoSolicitud::Rechazada => 5,
            EstadoSolicitud::Vencida => 6,
        }
    }

    /// Still to be polled (1 or 2).
    pub fn pendiente(self) -> bool {
        matches!(self, EstadoSolicitud::Aceptada | EstadoSolicitud::EnProceso)
    }
}

/// The answer of `VerificaSolicitudDescarga` with `CodEstatus` 5000.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verificacion {
    /// `CodEstatus` of the call (5000).
    pub cod_estatus: String,
    /// `EstadoSolicitud`.
    pub estado: EstadoSolicitud,
    /// `CodigoEstadoSolicitud` (5000, 5002, 5003, 5004, 5005, 404).
    pub codigo_estado: String,
    /// `NumeroCFDIs`.
    pub numero_cfdis: u64,
    /// `IdsPaquetes`, in SAT's order (only when terminada).
    pub ids_paquetes: Vec<String>,
    /// `Mensaje`.
    pub mensaje: String,
}

impl Verificacion {
    /// The SPEC error of a request that ended without packages (states 4, 5, 6); `None`
    /// while pending or when finished.
    pub fn error(&self) -> Option<SatError> {
        match self.estado {
            EstadoSolicitud::Error | EstadoSolicitud::Rechazada | EstadoSolicitud::Vencida => {
                Some(SatError::Solicitud {
                    estado: self.estado.numero(),
                    codigo_estado: self.codigo_estado.clone(),
                    mensaje: self.mensaje.clone(),
                })
            }
            _ => None,
        }
    }
}

/// The authentication answer: the token and the validity window SAT stated.
#[derive(Clone, PartialEq, Eq)]
pub struct Token {
    /// The token, sent verbatim in `Authorization: WRAP access_token="…"`. Never logged.
    pub valor: String,
    /// `u:Created` of the answer.
    pub creado: OffsetDateTime,
    /// `u:Expires` of the answer (authoritative, PROTOCOLS.md §1.3).
    pub expira: OffsetDateTime,
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("valor", &"<oculto>")
            .field("creado", &self.creado)
            .field("expira", &self.expira)
            .finish()
    }
}

impl Token {
    /// Usable at `ahora` with `margen` to spare.
    pub fn vigente(&self, ahora: OffsetDateTime, margen: time::Duration) -> bool {
        ahora + margen < self.expira
    }

    /// The `Authorization` header value.
    pub fn autorizacion(&self) -> String {
        format!("WRAP access_token=\"{}\"", self.valor)
    }
}

/// The signed `Autentica` envelope, valid 5 minutes from `ahora` (PROTOCOLS.md §1.2).
///
/// # Errors
/// [`SatError::NoEsFiel`] for a CSD, [`SatError::Firma`].
pub fn sobre_autenticacion(fiel: &Credential, ahora: OffsetDateTime, token_id: &str) -> Result<String, SatError> {
    let creado = ahora.replace_nanosecond(ahora.millisecond() as u32 * 1_000_000).unwrap_or(ahora);
    xmldsig::sign_autenticacion(fiel, creado, creado + time::Duration::minutes(5), token_id).map_err(error_firma)
}

fn error_firma(error: timbra_credentials::Error) -> SatError {
    match error {
        timbra_credentials::Error::ExpectedFiel { .. } => SatError::NoEsFiel(error.to_string()),
        other => SatError::Firma(other.to_string()),
    }
}

/// `YYYY-MM-DDTHH:MM:SS`, no zone (PROTOCOLS.md §1.4).
pub fn fecha_sat(fecha: PrimitiveDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        fecha.year(),
        u8::from(fecha.month()),
        fecha.day(),
        fecha.hour(),
        fecha.minute(),
        fecha.second()
    )
}

fn revisar_periodo(periodo: &Periodo) -> Result<(), SatError> {
    if periodo.fecha_inicial >= periodo.fecha_final {
        return Err(SatError::Peticion("FechaInicial debe ser anterior a FechaFinal".into()));
    }
    Ok(())
}

fn rfc_fiel(fiel: &Credential) -> String {
    fiel.certificate().rfc().to_uppercase()
}

/// The signed `SolicitaDescargaRecibidos` envelope. `EstadoComprobante` defaults to
/// `Vigente` for CFDI (SAT refuses cancelled received XML with 301, PROTOCOLS.md §1.4).
///
/// # Errors
/// [`SatError::Peticion`] for a bad period or a cancelled-XML filter, signing errors.
pub fn sobre_solicitud_recibidos(fiel: &Credential, solicitud: &SolicitudRecibidos) -> Result<String, SatError> {
    let periodo = &solicitud.periodo;
    revisar_periodo(periodo)?;
    let estado = match (periodo.tipo_solicitud, periodo.estado_comprobante) {
        (TipoSolicitud::Cfdi, None | Some(EstadoComprobante::Vigente)) => Some(EstadoComprobante::Vigente),
        (TipoSolicitud::Cfdi, Some(_)) => {
            return Err(SatError::Peticion(
                "SAT sólo permite descargar el XML de CFDI recibidos vigentes (EstadoComprobante=Vigente)".into(),
            ));
        }
        (TipoSolicitud::Metadata, estado) => estado,
    };
    let rfc = rfc_fiel(fiel);
    let inicial = fecha_sat(periodo.fecha_inicial);
    let final_ = fecha_sat(periodo.fecha_final);
    let attributes = [
        ("Complemento", periodo.complemento.as_deref().unwrap_or("")),
        ("EstadoComprobante", estado.map(EstadoComprobante::como_sat).unwrap_or("")),
        ("FechaFinal", final_.as_str()),
        ("FechaInicial", inicial.as_str()),
        ("RfcACuentaTerceros", periodo.rfc_a_cuenta_terceros.as_deref().unwrap_or("")),
        ("RfcEmisor", solicitud.rfc_emisor.as_deref().unwrap_or("")),
        ("RfcReceptor", rfc.as_str()),
        ("RfcSolicitante", rfc.as_str()),
        ("TipoComprobante", periodo.tipo_comprobante.as_deref().unwrap_or("")),
        ("TipoSolicitud", periodo.tipo_solicitud.como_sat()),
    ];
    let request = DescargaRequest {
        operation: "SolicitaDescargaRecibidos",
        child: "solicitud",
        attributes: &attributes,
        rfc_receptores: &[],
    };
    xmldsig::sign_descarga(fiel, &request).map_err(error_firma)
}

/// The signed `SolicitaDescargaEmitidos` envelope.
///
/// # Errors
/// [`SatError::Peticion`] for a bad period or more than 5 receivers, signing errors.
pub fn sobre_solicitud_emitidos(fiel: &Credential, solicitud: &SolicitudEmitidos) -> Result<String, SatError> {
    let periodo = &solicitud.periodo;
    revisar_periodo(periodo)?;
    if solicitud.rfc_receptores.len() > 5 {
        return Err(SatError::Peticion("a lo más 5 RfcReceptor por solicitud".into()));
    }
    let rfc = rfc_fiel(fiel);
    let inicial = fecha_sat(periodo.fecha_inicial);
    let final_ = fecha_sat(periodo.fecha_final);
    let attributes = [
        ("Complemento", periodo.complemento.as_deref().unwrap_or("")),
        ("EstadoComprobante", periodo.estado_comprobante.map(EstadoComprobante::como_sat).unwrap_or("")),
        ("FechaFinal", final_.as_str()),
        ("FechaInicial", inicial.as_str()),
        ("RfcACuentaTerceros", periodo.rfc_a_cuenta_terceros.as_deref().unwrap_or("")),
        ("RfcEmisor", rfc.as_str()),
        ("RfcSolicitante", rfc.as_str()),
        ("TipoComprobante", periodo.tipo_comprobante.as_deref().unwrap_or("")),
        ("TipoSolicitud", periodo.tipo_solicitud.como_sat()),
    ];
    let receptores: Vec<&str> = solicitud.rfc_receptores.iter().map(String::as_str).collect();
    let request = DescargaRequest {
        operation: "SolicitaDescargaEmitidos",
        child: "solicitud",
        attributes: &attributes,
        rfc_receptores: &receptores,
    };
    xmldsig::sign_descarga(fiel, &request).map_err(error_firma)
}

/// The signed `SolicitaDescargaFolio` envelope (only `RfcSolicitante` and `Folio`).
///
/// # Errors
/// [`SatError::UuidInvalido`], signing errors.
pub fn sobre_solicitud_folio(fiel: &Credential, folio: &str) -> Result<String, SatError> {
    let folio = folio.trim();
    if !uuid_valido(folio) {
        return Err(SatError::UuidInvalido(folio.to_owned()));
    }
    let rfc = rfc_fiel(fiel);
    let attributes = [("Folio", folio), ("RfcSolicitante", rfc.as_str())];
    let request = DescargaRequest {
        operation: "SolicitaDescargaFolio",
        child: "solicitud",
        attributes: &attributes,
        rfc_receptores: &[],
    };
    xmldsig::sign_descarga(fiel, &request).map_err(error_firma)
}

/// The signed `VerificaSolicitudDescarga` envelope.
///
/// # Errors
/// Signing errors.
pub fn sobre_verificacion(fiel: &Credential, id_solicitud: &str) -> Result<String, SatError> {
    let rfc = rfc_fiel(fiel);
    let attributes = [("IdSolicitud", id_solicitud), ("RfcSolicitante", rfc.as_str())];
    let request = DescargaRequest {
        operation: "VerificaSolicitudDescarga",
        child: "solicitud",
        attributes: &attributes,
        rfc_receptores: &[],
    };
    xmldsig::sign_descarga(fiel, &request).map_err(error_firma)
}

/// The signed `Descargar` envelope (`PeticionDescargaMasivaTercerosEntrada`).
///
/// # Errors
/// Signing errors.
pub fn sobre_descarga(fiel: &Credential, id_paquete: &str) -> Result<String, SatError> {
    let rfc = rfc_fiel(fiel);
    let attributes = [("IdPaquete", id_paquete), ("RfcSolicitante", rfc.as_str())];
    let request = DescargaRequest {
        operation: "PeticionDescargaMasivaTercerosEntrada",
        child: "peticionDescarga",
        attributes: &attributes,
        rfc_receptores: &[],
    };
    xmldsig::sign_descarga(fiel, &request).map_err(error_firma)
}

fn documento(xml: &str) -> Result<roxmltree::Document<'_>, SatError> {
    // roxmltree has no text-node size limit (packages are tens of MB of base64).
    roxmltree::Document::parse(xml).map_err(|e| SatError::Respuesta(format!("XML ilegible: {e}")))
}

/// First element whose local name equals `nombre` ignoring case (phpcfdi matches so).
fn buscar<'a, 'i>(doc: &'a roxmltree::Document<'i>, nombre: &str) -> Option<roxmltree::Node<'a, 'i>> {
    doc.descendants().find(|n| n.is_element() && n.tag_name().name().eq_ignore_ascii_case(nombre))
}

fn atributo(nodo: roxmltree::Node<'_, '_>, nombre: &str) -> String {
    nodo.attributes()
        .find(|a| a.name().eq_ignore_ascii_case(nombre))
        .map(|a| a.value().trim().to_owned())
        .unwrap_or_default()
}

/// A SOAP fault in the answer, if any: (`faultcode`, `faultstring`).
pub fn leer_fault(xml: &str) -> Option<(String, String)> {
    let doc = documento(xml).ok()?;
    let fault = buscar(&doc, "Fault")?;
    let texto = |nombre: &str| {
        fault
            .descendants()
            .find(|n| n.is_element() && n.tag_name().name() == nombre)
            .and_then(|n| n.text())
            .map(|t| t.trim().to_owned())
            .unwrap_or_default()
    };
    Some((texto("faultcode"), texto("faultstring")))
}

fn parse_wsu(texto: &str) -> Result<OffsetDateTime, SatError> {
    OffsetDateTime::parse(texto.trim(), &time::format_description::well_known::Rfc3339)
        .map_err(|e| SatError::Respuesta(format!("fecha {texto:?} ilegible: {e}")))
}

/// Reads the `Autentica` answer: the token and its window (`u:Created`, `u:Expires`).
///
/// # Errors
/// [`SatError::Autenticacion`] for a SOAP fault, [`SatError::Respuesta`] otherwise.
pub fn leer_autenticacion(xml: &str) -> Result<Token, SatError> {
    if let Some((codigo, mensaje)) = leer_fault(xml) {
        return Err(SatError::Autenticacion { codigo, mensaje });
    }
    let doc = documento(xml)?;
    let valor = buscar(&doc, "AutenticaResult")
        .and_then(|n| n.text())
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| SatError::Respuesta("sin AutenticaResult".into()))?
        .to_owned();
    let fecha = |nombre: &str| {
        buscar(&doc, nombre)
            .and_then(|n| n.text())
            .ok_or_else(|| SatError::Respuesta(format!("sin u:{nombre}")))
            .and_then(parse_wsu)
    };
    Ok(Token { valor, creado: fecha("Created")?, expira: fecha("Expires")? })
}

fn resultado<'a, 'i>(doc: &'a roxmltree::Document<'i>, nombre: &str) -> Result<roxmltree::Node<'a, 'i>, SatError> {
    buscar(doc, nombre).ok_or_else(|| SatError::Respuesta(format!("sin {nombre}")))
}

fn revisar_estatus(nodo: roxmltree::Node<'_, '_>) -> Result<(String, String), SatError> {
    let cod_estatus = atributo(nodo, "CodEstatus");
    let mensaje = atributo(nodo, "Mensaje");
    if cod_estatus.is_empty() {
        return Err(SatError::Respuesta("sin CodEstatus".into()));
    }
    if cod_estatus != "5000" {
        return Err(SatError::CodEstatus { cod_estatus, mensaje });
    }
    Ok((cod_estatus, mensaje))
}

fn sin_fault(xml: &str) -> Result<(), SatError> {
    match leer_fault(xml) {
        Some((codigo, mensaje)) => Err(SatError::Fault { codigo, mensaje }),
        None => Ok(()),
    }
}

/// Reads the answer of `SolicitaDescarga{Emitidos,Recibidos,Folio}` (`operacion` is the
/// operation name).
///
/// # Errors
/// [`SatError::CodEstatus`] when SAT did not accept it, [`SatError::Fault`],
/// [`SatError::Respuesta`].
pub fn leer_solicitud(operacion: &str, xml: &str) -> Result<SolicitudAceptada, SatError> {
    sin_fault(xml)?;
    let doc = documento(xml)?;
    let nodo = resultado(&doc, &format!("{operacion}Result"))?;
    let (cod_estatus, mensaje) = revisar_estatus(nodo)?;
    let id_solicitud = atributo(nodo, "IdSolicitud");
    if id_solicitud.is_empty() {
        return Err(SatError::Respuesta("solicitud aceptada sin IdSolicitud".into()));
    }
    Ok(SolicitudAceptada { id_solicitud, cod_estatus, mensaje })
}

/// Reads the answer of `VerificaSolicitudDescarga`.
///
/// # Errors
/// [`SatError::CodEstatus`] when the call itself failed, [`SatError::Fault`],
/// [`SatError::Respuesta`].
pub fn leer_verificacion(xml: &str) -> Result<Verificacion, SatError> {
    sin_fault(xml)?;
    let doc = documento(xml)?;
    let nodo = resultado(&doc, "VerificaSolicitudDescargaResult")?;
    let (cod_estatus, mensaje) = revisar_estatus(nodo)?;
    let numero = atributo(nodo, "EstadoSolicitud");
    let estado = numero
        .parse::<u8>()
        .ok()
        .and_then(EstadoSolicitud::desde_numero)
        .ok_or_else(|| SatError::Respuesta(format!("EstadoSolicitud {numero:?} desconocido")))?;
    let numero_cfdis = atributo(nodo, "NumeroCFDIs").parse::<u64>().unwrap_or(0);
    let ids_paquetes = nodo
        .children()
        .filter(|n| n.is_element() && n.tag_name().name().eq_ignore_ascii_case("IdsPaquetes"))
        .filter_map(|n| n.text().map(|t| t.trim().to_owned()))
        .filter(|t| !t.is_empty())
        .collect();
    Ok(Verificacion {
        cod_estatus,
        estado,
        codigo_estado: atributo(nodo, "CodigoEstadoSolicitud"),
        numero_cfdis,
        ids_paquetes,
        mensaje,
    })
}

/// Reads the answer of `Descargar`: status in the SOAP header (`h:respuesta`), the package
/// (base64 ZIP) in the body. Returns the ZIP bytes (empty when SAT sent an empty `Paquete`).
///
/// # Errors
/// [`SatError::CodEstatus`], [`SatError::Fault`], [`SatError::Respuesta`],
/// [`SatError::Parseo`] for bad base64.
pub fn leer_descarga(xml: &str) -> Result<Vec<u8>, SatError> {
    use base64::Engine as _;
    sin_fault(xml)?;
    let doc = documento(xml)?;
    let respuesta = resultado(&doc, "respuesta")?;
    revisar_estatus(respuesta)?;
    let paquete = buscar(&doc, "Paquete").and_then(|n| n.text()).unwrap_or("");
    let limpio: String = paquete.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(limpio)
        .map_err(|e| SatError::Parseo { que: "Paquete".into(), motivo: format!("base64 inválido: {e}") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estado_numbers_round_trip() {
        for numero in 1..=6 {
            let estado = EstadoSolicitud::desde_numero(numero);
            assert_eq!(estado.map(EstadoSolicitud::numero), Some(numero));
        }
        assert_eq!(EstadoSolicitud::desde_numero(0), None);
        assert_eq!(EstadoSolicitud::desde_numero(7), None);
    }

    #[test]
    fn token_debug_hides_value() {
        let token =
            Token { valor: "secreto".into(), creado: OffsetDateTime::UNIX_EPOCH, expira: OffsetDateTime::UNIX_EPOCH };
        assert!(!format!("{token:?}").contains("secreto"));
    }
}
