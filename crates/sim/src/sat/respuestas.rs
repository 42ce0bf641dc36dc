//! SAT's answers, in the shapes of recorded SAT messages (PROTOCOLS.md §1.2–1.6): WCF SOAP
//! faults, `AutenticaResponse` with the WS-Security timestamp, `<Operation>Result`
//! attributes, and the download's status in the SOAP header.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use timbra_cfdi::escritura::escapar_atributo as escapar;
use timbra_credentials::xmldsig::wsu_time;
use time::OffsetDateTime;

const NS_SOAP: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const NS_WSU: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
const NS_WSSE: &str = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
const NS_AUTH: &str = "http://DescargaMasivaTerceros.gob.mx";
const NS_DESCARGA: &str = "http://DescargaMasivaTerceros.sat.gob.mx";
const NS_XSI_XSD: &str =
    r#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema""#;

/// SAT's `Mensaje` for a `CodEstatus` (PROTOCOLS.md §1.7).
pub fn mensaje(codigo: u16) -> &'static str {
    match codigo {
        300 => "Usuario No Válido",
        301 => "XML Mal Formado",
        302 => "Sello Mal Formado",
        303 => "Sello no corresponde con RfcSolicitante",
        304 => "Certificado Revocado o Caduco",
        305 => "Certificado Inválido",
        5000 => "Solicitud Aceptada",
        5001 => "Tercero no autorizado",
        5002 => "Se agotó las solicitudes de por vida",
        5003 => "Tope máximo",
        5004 => "No se encontró la información",
        5005 => "Solicitud duplicada",
        5006 => "Error interno en el proceso",
        5007 => "No existe el paquete solicitado",
        5008 => "Máximo de descargas permitidas",
        _ => "Error no controlado",
    }
}

fn xml(estado: StatusCode, cuerpo: String) -> Response {
    (estado, [(header::CONTENT_TYPE, "text/xml; charset=utf-8")], cuerpo).into_response()
}

/// WCF's answer to a message whose security does not verify (HTTP 500).
pub fn falla_seguridad() -> Response {
    xml(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!(
            r#"<s:Envelope xmlns:s="{NS_SOAP}"><s:Body><s:Fault><faultcode xmlns:a="{NS_WSSE}">a:InvalidSecurity</faultcode><faultstring xml:lang="en-US">An error occurred when verifying security for the message.</faultstring></s:Fault></s:Body></s:Envelope>"#
        ),
    )
}

/// WCF's answer to an unknown `SOAPAction` (HTTP 500).
pub fn falla_accion(accion: &str) -> Response {
    let accion = escapar(accion);
    xml(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!(
            r#"<s:Envelope xmlns:s="{NS_SOAP}"><s:Body><s:Fault><faultcode xmlns:a="http://schemas.microsoft.com/ws/2005/05/addressing/none">a:ActionNotSupported</faultcode><faultstring xml:lang="en-US">The message with Action '{accion}' cannot be processed at the receiver, due to a ContractFilter mismatch at the EndpointDispatcher. This may be because of either a contract mismatch (mismatched Actions between sender and receiver) or a binding/security mismatch between the sender and the receiver.  Check that sender and receiver have the same contract and the same binding (including security requirements, e.g. Message, Transport, None).</faultstring></s:Fault></s:Body></s:Envelope>"#
        ),
    )
}

/// WCF's answer to a body that is not a SOAP message (HTTP 400).
pub fn falla_cliente(motivo: &str) -> Response {
    let motivo = escapar(motivo);
    xml(
        StatusCode::BAD_REQUEST,
        format!(
            r#"<s:Envelope xmlns:s="{NS_SOAP}"><s:Body><s:Fault><faultcode>s:Client</faultcode><faultstring xml:lang="en-US">{motivo}</faultstring></s:Fault></s:Body></s:Envelope>"#
        ),
    )
}

/// `AutenticaResponse` with the token and the server's validity window.
pub fn autenticacion(token: &str, creado: OffsetDateTime, expira: OffsetDateTime) -> Response {
    let (creado, expira, token) = (wsu_time(creado), wsu_time(expira), escapar(token));
    xml(
        StatusCode::OK,
        format!(
            r#"<s:Envelope xmlns:s="{NS_SOAP}" xmlns:u="{NS_WSU}"><s:Header><o:Security s:mustUnderstand="1" xmlns:o="{NS_WSSE}"><u:Timestamp u:Id="_0"><u:Created>{creado}</u:Created><u:Expires>{expira}</u:Expires></u:Timestamp></o:Security></s:Header><s:Body><AutenticaResponse xmlns="{NS_AUTH}"><AutenticaResult>{token}</AutenticaResult></AutenticaResponse></s:Body></s:Envelope>"#
        ),
    )
}

/// `<operacion>Response/<operacion>Result` with `IdSolicitud` (only when accepted).
pub fn solicitud(operacion: &str, id_solicitud: Option<&str>, codigo: u16, texto: &str) -> Response {
    let id = id_solicitud.map(|id| format!(r#" IdSolicitud="{}""#, escapar(id))).unwrap_or_default();
    let texto = escapar(texto);
    xml(
        StatusCode::OK,
        format!(
            r#"<s:Envelope xmlns:s="{NS_SOAP}"><s:Body {NS_XSI_XSD}><{operacion}Response xmlns="{NS_DESCARGA}"><{operacion}Result{id} CodEstatus="{codigo}" Mensaje="{texto}"/></{operacion}Response></s:Body></s:Envelope>"#
        ),
    )
}

/// What a verification reports.
pub struct Estado<'a> {
    pub cod_estatus: u16,
    pub mensaje: &'a str,
    pub estado_solicitud: Option<u8>,
    pub codigo_estado: Option<u16>,
    pub numero_cfdis: usize,
    pub paquetes: &'a [String],
}

/// `VerificaSolicitudDescargaResponse`.
pub fn verificacion(estado: &Estado<'_>) -> Response {
    let mut atributos = format!(r#" CodEstatus="{}""#, estado.cod_estatus);
    if let Some(numero) = estado.estado_solicitud {
        atributos.push_str(&format!(r#" EstadoSolicitud="{numero}""#));
    }
    if let Some(codigo) = estado.codigo_estado {
        atributos.push_str(&format!(r#" CodigoEstadoSolicitud="{codigo}""#));
    }
    atributos.push_str(&format!(r#" NumeroCFDIs="{}" Mensaje="{}""#, estado.numero_cfdis, escapar(estado.mensaje)));
    let paquetes: String =
        estado.paquetes.iter().map(|id| format!("<IdsPaquetes>{}</IdsPaquetes>", escapar(id))).collect();
    xml(
        StatusCode::OK,
        format!(
            r#"<s:Envelope xmlns:s="{NS_SOAP}"><s:Body {NS_XSI_XSD}><VerificaSolicitudDescargaResponse xmlns="{NS_DESCARGA}"><VerificaSolicitudDescargaResult{atributos}>{paquetes}</VerificaSolicitudDescargaResult></VerificaSolicitudDescargaResponse></s:Body></s:Envelope>"#
        ),
    )
}

/// `Descargar`'s answer: status in `h:respuesta` (SOAP header), package in the body.
pub fn descarga(codigo: u16, texto: &str, paquete_base64: &str) -> Response {
    let texto = escapar(texto);
    let paquete = if paquete_base64.is_empty() {
        "<Paquete/>".to_owned()
    } else {
        format!("<Paquete>{paquete_base64}</Paquete>")
    };
    xml(
        StatusCode::OK,
        format!(
            r#"<s:Envelope xmlns:s="{NS_SOAP}"><s:Header><h:respuesta CodEstatus="{codigo}" Mensaje="{texto}" xmlns:h="{NS_DESCARGA}" xmlns="{NS_DESCARGA}" {NS_XSI_XSD}/></s:Header><s:Body {NS_XSI_XSD}><RespuestaDescargaMasivaTercerosSalida xmlns="{NS_DESCARGA}">{paquete}</RespuestaDescargaMasivaTercerosSalida></s:Body></s:Envelope>"#
        ),
    )
}
