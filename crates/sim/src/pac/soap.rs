//! Finkok's SOAP 1.1 messages, server side: reads requests and writes answers in the shape of
//! Finkok's (`tns:<op>Response/tns:<op>Result` with fields in `apps.services.soap.core.views`).

use std::collections::HashMap;
use timbra_cfdi::escritura::escapar_atributo as escapar;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

const NS_SOAP: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const NS_STAMP: &str = "http://facturacion.finkok.com/stamp";
const NS_CANCEL: &str = "http://facturacion.finkok.com/cancel";
/// The retentions service's namespace (`stamp`, `stamped`, `cancel_signature` of CFDI de
/// Retenciones).
pub(super) const NS_RETENTIONS: &str = "http://facturacion.finkok.com/retentions";
const NS_VIEWS: &str = "apps.services.soap.core.views";

/// A request: the operation element's local name and its child fields by local name.
pub(super) struct Peticion {
    pub operacion: String,
    campos: HashMap<String, String>,
}

impl Peticion {
    /// A field's text, empty when absent.
    pub fn campo(&self, nombre: &str) -> String {
        self.campos.get(nombre).cloned().unwrap_or_default()
    }
}

/// Reads a SOAP 1.1 request.
pub(super) fn leer_peticion(cuerpo: &str) -> Result<Peticion, String> {
    let documento = roxmltree::Document::parse(cuerpo).map_err(|e| format!("el mensaje no es XML: {e}"))?;
    let raiz = documento.root_element();
    if raiz.tag_name().name() != "Envelope" || raiz.tag_name().namespace() != Some(NS_SOAP) {
        return Err("se esperaba un soap:Envelope de SOAP 1.1".to_owned());
    }
    let operacion = raiz
        .children()
        .find(|n| n.is_element() && n.tag_name().name() == "Body")
        .and_then(|cuerpo| cuerpo.children().find(|n| n.is_element()))
        .ok_or_else(|| "soap:Body vacío".to_owned())?;
    let campos = operacion
        .children()
        .filter(|n| n.is_element())
        .map(|n| {
            let texto: String = n.descendants().filter(|t| t.is_text()).filter_map(|t| t.text()).collect();
            (n.tag_name().name().to_owned(), texto.trim().to_owned())
        })
        .collect();
    Ok(Peticion { operacion: operacion.tag_name().name().to_owned(), campos })
}

/// A refusal: Anexo 20 / Finkok code and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Incidencia {
    pub codigo: String,
    pub mensaje: String,
}

impl Incidencia {
    pub fn new(codigo: &str, mensaje: impl Into<String>) -> Self {
        Incidencia { codigo: codigo.to_owned(), mensaje: mensaje.into() }
    }
}

/// A stamp, new or found again.
pub(super) struct Emitido {
    pub xml: String,
    pub uuid: String,
    pub fecha_timbrado: String,
    /// Stamped before: answered with incidencia 307 (`stamp`) or found (`stamped`).
    pub previo: bool,
    /// Send the stamp along with a 307 (`stamp` does, `quick_stamp` does not).
    pub con_timbre: bool,
}

/// One folio of a cancellation answer.
pub(super) struct FolioRespuesta {
    pub uuid: String,
    pub estatus_uuid: String,
    pub estatus_cancelacion: String,
}

/// A cancellation answer.
pub(super) struct ResultadoCancelacion {
    pub folios: Vec<FolioRespuesta>,
    pub acuse: String,
    pub fecha: String,
    pub rfc_emisor: String,
}

/// The four fields of SAT's status answer.
pub(crate) struct EstadoSat {
    pub codigo_estatus: String,
    pub estado: String,
    pub es_cancelable: String,
    pub estatus_cancelacion: String,
}

fn campo(nombre: &str, valor: &str) -> String {
    if valor.is_empty() { format!("<s0:{nombre}/>") } else { format!("<s0:{nombre}>{}</s0:{nombre}>", escapar(valor)) }
}

fn sobre(ns: &str, operacion: &str, resultado: &str) -> Response {
    let cuerpo = format!(
        "<?xml version='1.0' encoding='UTF-8'?><senv:Envelope xmlns:senv=\"{NS_SOAP}\" xmlns:tns=\"{ns}\" \
         xmlns:s0=\"{NS_VIEWS}\"><senv:Body><tns:{operacion}Response><tns:{operacion}Result>{resultado}\
         </tns:{operacion}Result></tns:{operacion}Response></senv:Body></senv:Envelope>"
    );
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/xml; charset=utf-8")], cuerpo).into_response()
}

/// A SOAP 1.1 fault (HTTP 500).
pub(super) fn falla(codigo: &str, mensaje: &str) -> Response {
    let cuerpo = format!(
        "<?xml version='1.0' encoding='UTF-8'?><senv:Envelope xmlns:senv=\"{NS_SOAP}\"><senv:Body><senv:Fault>\
         <faultcode>senv:{codigo}</faultcode><faultstring>{}</faultstring></senv:Fault></senv:Body></senv:Envelope>",
        escapar(mensaje)
    );
    (StatusCode::INTERNAL_SERVER_ERROR, [(header::CONTENT_TYPE, "text/xml; charset=utf-8")], cuerpo).into_response()
}

fn incidencia_xml(incidencia: &Incidencia, uuid: &str) -> String {
    format!(
        "<s0:Incidencia>{}{}{}{}{}</s0:Incidencia>",
        campo("IdIncidencia", "SIM"),
        campo("Uuid", uuid),
        campo("CodigoError", &incidencia.codigo),
        campo("WorkProcessId", "SIM"),
        campo("MensajeIncidencia", &incidencia.mensaje),
    )
}

/// The answer of `stamp`, `quick_stamp` or `stamped`.
pub(super) fn respuesta_timbrado(operacion: &str, resultado: &Result<Emitido, Incidencia>) -> Response {
    respuesta_timbrado_en(NS_STAMP, operacion, resultado)
}

/// [`respuesta_timbrado`] of the service whose namespace is `ns`.
pub(super) fn respuesta_timbrado_en(ns: &str, operacion: &str, resultado: &Result<Emitido, Incidencia>) -> Response {
    let cuerpo = match resultado {
        Ok(emitido) if emitido.previo && operacion != "stamped" => {
            let previo = Incidencia::new("307", "El CFDI contiene un timbre previo");
            if emitido.con_timbre {
                format!(
                    "{}{}{}{}<s0:Incidencias>{}</s0:Incidencias>",
                    campo("xml", &emitido.xml),
                    campo("UUID", &emitido.uuid),
                    campo("Fecha", &emitido.fecha_timbrado),
                    campo("CodEstatus", "Comprobante timbrado previamente"),
                    incidencia_xml(&previo, &emitido.uuid)
                )
            } else {
                format!("{}<s0:Incidencias>{}</s0:Incidencias>", campo("xml", ""), incidencia_xml(&previo, ""))
            }
        }
        Ok(emitido) => format!(
            "{}{}{}{}<s0:Incidencias/>",
            campo("xml", &emitido.xml),
            campo("UUID", &emitido.uuid),
            campo("Fecha", &emitido.fecha_timbrado),
            campo("CodEstatus", "Comprobante timbrado satisfactoriamente"),
        ),
        Err(incidencia) => {
            format!("{}<s0:Incidencias>{}</s0:Incidencias>", campo("xml", ""), incidencia_xml(incidencia, ""))
        }
    };
    sobre(ns, operacion, &cuerpo)
}

/// The answer of `cancel_signature`.
pub(super) fn respuesta_cancelacion(resultado: &Result<ResultadoCancelacion, Incidencia>) -> Response {
    respuesta_cancelacion_en(NS_CANCEL, resultado)
}

/// [`respuesta_cancelacion`] of the service whose namespace is `ns`.
pub(super) fn respuesta_cancelacion_en(ns: &str, resultado: &Result<ResultadoCancelacion, Incidencia>) -> Response {
    let cuerpo = match resultado {
        Ok(resultado) => {
            let folios: String = resultado
                .folios
                .iter()
                .map(|folio| {
                    format!(
                        "<s0:Folio>{}{}{}</s0:Folio>",
                        campo("EstatusCancelacion", &folio.estatus_cancelacion),
                        campo("EstatusUUID", &folio.estatus_uuid),
                        campo("UUID", &folio.uuid)
                    )
                })
                .collect();
            format!(
                "<s0:Folios>{folios}</s0:Folios>{}{}{}",
                campo("Acuse", &resultado.acuse),
                campo("Fecha", &resultado.fecha),
                campo("RfcEmisor", &resultado.rfc_emisor)
            )
        }
        Err(incidencia) => campo("CodEstatus", &format!("{} - {}", incidencia.codigo, incidencia.mensaje)),
    };
    sobre(ns, "cancel_signature", &cuerpo)
}

/// The answer of `get_sat_status`.
pub(super) fn respuesta_estado(resultado: &Result<EstadoSat, String>) -> Response {
    let cuerpo = match resultado {
        Ok(estado) => format!(
            "<s0:sat>{}{}{}{}</s0:sat>",
            campo("CodigoEstatus", &estado.codigo_estatus),
            campo("EsCancelable", &estado.es_cancelable),
            campo("Estado", &estado.estado),
            campo("EstatusCancelacion", &estado.estatus_cancelacion)
        ),
        Err(error) => campo("error", error),
    };
    sobre(NS_CANCEL, "get_sat_status", &cuerpo)
}

/// The answer to a receiver's signed answer: `(UUID, SAT code)` per list.
#[derive(Default)]
pub(super) struct ResultadoAceptacionRechazo {
    pub aceptacion: Vec<(String, String)>,
    pub rechazo: Vec<(String, String)>,
}

/// The answer of `get_pending`: `uuids/string*` as python-satcfdi recorded it (`tns:string`),
/// or `error`.
pub(super) fn respuesta_pendientes(resultado: &Result<Vec<String>, String>) -> Response {
    let cuerpo = match resultado {
        Ok(uuids) if uuids.is_empty() => "<s0:uuids/>".to_owned(),
        Ok(uuids) => {
            let lista: String =
                uuids.iter().map(|uuid| format!("<tns:string>{}</tns:string>", escapar(uuid))).collect();
            format!("<s0:uuids>{lista}</s0:uuids>")
        }
        Err(error) => campo("error", error),
    };
    sobre(NS_CANCEL, "get_pending", &cuerpo)
}

/// The answer of `accept_reject_signature`: `rechazo/Rechaza{status, uuid}*` then
/// `aceptacion/Acepta{status, uuid}*` (python-satcfdi's recorded order), or `error` alone.
pub(super) fn respuesta_aceptacion_rechazo(resultado: &Result<ResultadoAceptacionRechazo, String>) -> Response {
    let lista = |nombre: &str, elemento: &str, folios: &[(String, String)]| {
        if folios.is_empty() {
            return String::new();
        }
        let entradas: String = folios
            .iter()
            .map(|(uuid, codigo)| {
                format!("<s0:{elemento}>{}{}</s0:{elemento}>", campo("status", codigo), campo("uuid", uuid))
            })
            .collect();
        format!("<s0:{nombre}>{entradas}</s0:{nombre}>")
    };
    let cuerpo = match resultado {
        Ok(resultado) => format!(
            "{}{}",
            lista("rechazo", "Rechaza", &resultado.rechazo),
            lista("aceptacion", "Acepta", &resultado.aceptacion)
        ),
        Err(error) => campo("error", error),
    };
    sobre(NS_CANCEL, "accept_reject_signature", &cuerpo)
}
