//! Pure translator of Finkok's SOAP 1.1 messages (PROTOCOLS.md §2.2): builds the request
//! envelopes and reads the answers. No I/O, so it is tested on recorded-shape messages.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use timbra_cfdi::escritura::escapar_atributo as escapar;

use crate::xml::{descendiente, extracto, texto_hijo};
use crate::{
    AceptacionRechazo, Cancelacion, ConsultaEstado, EstadoSat, FolioAceptacionRechazo, PacError, RespuestaReceptor,
    Servicio, Timbrado,
};

/// Request namespace of the stamping service.
pub const NS_STAMP: &str = "http://facturacion.finkok.com/stamp";
/// Request namespace of the cancellation service.
pub const NS_CANCEL: &str = "http://facturacion.finkok.com/cancel";
/// Request namespace of the retentions service (`/servicios/soap/retentions`: `stamp`,
/// `stamped` and `cancel_signature` of CFDI de Retenciones, with the stamp and cancel
/// services' fields and answers; phpcfdi/finkok `Services::retentions`).
pub const NS_RETENTIONS: &str = "http://facturacion.finkok.com/retentions";
/// Namespace of the fields inside Finkok's results.
pub const NS_VIEWS: &str = "apps.services.soap.core.views";
/// SOAP 1.1 envelope namespace.
pub const NS_SOAP: &str = "http://schemas.xmlsoap.org/soap/envelope/";

/// Finkok's code when `stamped` finds no previous stamp for the document.
pub const CODIGO_SIN_TIMBRE_PREVIO: &str = "603";
/// Anexo 20 code: the document was stamped before.
pub const CODIGO_TIMBRE_PREVIO: &str = "307";

/// An envelope for operation `operacion` of the service namespace `ns`, with `campos`
/// (name, text value, escaped here) in order.
fn sobre(ns: &str, operacion: &str, campos: &[(&str, &str)]) -> String {
    let mut xml = String::with_capacity(256 + campos.iter().map(|(_, v)| v.len()).sum::<usize>());
    xml.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    xml.push_str(&format!("<soapenv:Envelope xmlns:soapenv=\"{NS_SOAP}\" xmlns:ns1=\"{ns}\"><soapenv:Body>"));
    xml.push_str(&format!("<ns1:{operacion}>"));
    for (nombre, valor) in campos {
        xml.push_str(&format!("<ns1:{nombre}>{}</ns1:{nombre}>", escapar(valor)));
    }
    xml.push_str(&format!("</ns1:{operacion}></soapenv:Body></soapenv:Envelope>"));
    xml
}

/// The path under `/servicios/soap/` and the request namespace of a service's stamping.
pub fn servicio_timbrado(servicio: Servicio) -> (&'static str, &'static str) {
    match servicio {
        Servicio::Cfdi => ("stamp", NS_STAMP),
        Servicio::Retenciones => ("retentions", NS_RETENTIONS),
    }
}

/// The path under `/servicios/soap/` and the request namespace of a service's cancellation.
pub fn servicio_cancelacion(servicio: Servicio) -> (&'static str, &'static str) {
    match servicio {
        Servicio::Cfdi => ("cancel", NS_CANCEL),
        Servicio::Retenciones => ("retentions", NS_RETENTIONS),
    }
}

/// `stamp`, `quick_stamp` or `stamped` (service `stamp`): the sealed pre-CFDI in base64.
pub fn sobre_timbrado(operacion: &str, xml_sellado: &str, usuario: &str, password: &str) -> String {
    sobre_timbrado_en(NS_STAMP, operacion, xml_sellado, usuario, password)
}

/// [`sobre_timbrado`] in the request namespace `ns` ([`servicio_timbrado`]).
pub fn sobre_timbrado_en(ns: &str, operacion: &str, xml_sellado: &str, usuario: &str, password: &str) -> String {
    sobre(
        ns,
        operacion,
        &[("xml", &STANDARD.encode(xml_sellado.as_bytes())), ("username", usuario), ("password", password)],
    )
}

/// `cancel_signature` (service `cancel`): the signed `Cancelacion` in base64. `store_pending`
/// is false: a SAT outage comes back as an error the caller retries, not a parked request.
pub fn sobre_cancelacion(cancelacion_firmada: &str, usuario: &str, password: &str) -> String {
    sobre_cancelacion_en(NS_CANCEL, cancelacion_firmada, usuario, password)
}

/// [`sobre_cancelacion`] in the request namespace `ns` ([`servicio_cancelacion`]).
pub fn sobre_cancelacion_en(ns: &str, cancelacion_firmada: &str, usuario: &str, password: &str) -> String {
    sobre(
        ns,
        "cancel_signature",
        &[
            ("xml", &STANDARD.encode(cancelacion_firmada.as_bytes())),
            ("username", usuario),
            ("password", password),
            ("store_pending", "false"),
        ],
    )
}

/// `get_sat_status` (service `cancel`).
pub fn sobre_estado(consulta: &ConsultaEstado, usuario: &str, password: &str) -> String {
    sobre(
        NS_CANCEL,
        "get_sat_status",
        &[
            ("username", usuario),
            ("password", password),
            ("taxpayer_id", &consulta.rfc_emisor),
            ("rtaxpayer_id", &consulta.rfc_receptor),
            ("uuid", &consulta.uuid),
            ("total", &consulta.total),
        ],
    )
}

fn basura(detail: impl Into<String>, respuesta: &str) -> PacError {
    PacError::Garbage { detail: detail.into(), excerpt: extracto(respuesta, 200) }
}

/// Parses a SOAP answer and returns the `<operacion>Result` element's document and position,
/// or the fault as a rejection.
fn con_resultado<T>(
    respuesta: &str,
    operacion: &str,
    leer: impl FnOnce(roxmltree::Node<'_, '_>) -> Result<T, PacError>,
) -> Result<T, PacError> {
    let documento = roxmltree::Document::parse(respuesta).map_err(|e| basura(format!("no es XML: {e}"), respuesta))?;
    let raiz = documento.root_element();
    if raiz.tag_name().name() != "Envelope" {
        return Err(basura(format!("se esperaba soap:Envelope, llegó <{}>", raiz.tag_name().name()), respuesta));
    }
    let cuerpo = descendiente(raiz, "Body").ok_or_else(|| basura("soap:Envelope sin Body", respuesta))?;
    if let Some(falla) = descendiente(cuerpo, "Fault") {
        return Err(PacError::Fault {
            code: texto_hijo(falla, "faultcode").unwrap_or_else(|| "soap:Fault".to_owned()),
            message: texto_hijo(falla, "faultstring").unwrap_or_default(),
        });
    }
    let nombre = format!("{operacion}Result");
    let resultado = descendiente(cuerpo, &nombre).ok_or_else(|| basura(format!("falta {nombre}"), respuesta))?;
    leer(resultado)
}

/// Reads the answer of `stamp`, `quick_stamp` or `stamped`: the stamped CFDI, or the first
/// incidencia as a rejection. The TFD inside the returned XML is the source of the stamp's
/// fields (the loose fields beside it vary between PAC versions).
pub fn leer_timbrado(operacion: &str, respuesta: &str) -> Result<Timbrado, PacError> {
    con_resultado(respuesta, operacion, |resultado| {
        let incidencias: Vec<(String, String)> = resultado
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == "Incidencia")
            .map(|n| {
                (
                    texto_hijo(n, "CodigoError").unwrap_or_default(),
                    texto_hijo(n, "MensajeIncidencia").unwrap_or_default(),
                )
            })
            .collect();
        let estatus = texto_hijo(resultado, "CodEstatus").unwrap_or_default();
        let Some(xml) = texto_hijo(resultado, "xml") else {
            return match incidencias.into_iter().next() {
                Some((code, message)) => Err(PacError::Rejected { code, message }),
                None => Err(basura(format!("sin xml ni incidencias (CodEstatus: {estatus})"), respuesta)),
            };
        };
        let mut timbrado = leer_tfd(&xml).map_err(|detalle| basura(detalle, respuesta))?;
        if let Some(uuid) = texto_hijo(resultado, "UUID")
            && !uuid.eq_ignore_ascii_case(&timbrado.uuid)
        {
            return Err(basura(format!("UUID {uuid} no coincide con el del timbre {}", timbrado.uuid), respuesta));
        }
        timbrado.previo = operacion == "stamped"
            || incidencias.iter().any(|(code, _)| code == CODIGO_TIMBRE_PREVIO)
            || estatus.to_lowercase().contains("previamente");
        Ok(timbrado)
    })
}

/// The stamp's fields from the TimbreFiscalDigital inside a stamped CFDI.
fn leer_tfd(xml: &str) -> Result<Timbrado, String> {
    let documento = roxmltree::Document::parse(xml).map_err(|e| format!("el xml timbrado no es XML: {e}"))?;
    let tfd = descendiente(documento.root_element(), "TimbreFiscalDigital")
        .ok_or_else(|| "el xml devuelto no tiene TimbreFiscalDigital".to_owned())?;
    let atributo = |nombre: &str| {
        tfd.attribute(nombre)
            .filter(|v| !v.trim().is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("TimbreFiscalDigital sin {nombre}"))
    };
    Ok(Timbrado {
        uuid: atributo("UUID")?.to_uppercase(),
        fecha_timbrado: atributo("FechaTimbrado")?,
        no_certificado_sat: atributo("NoCertificadoSAT")?,
        sello_sat: atributo("SelloSAT")?,
        xml: xml.to_owned(),
        previo: false,
    })
}

/// SAT's text for a per-UUID cancellation status (PROTOCOLS.md §2.5).
pub fn mensaje_estatus_uuid(codigo: &str) -> &'static str {
    match codigo {
        "201" => "solicitud de cancelación recibida",
        "202" => "UUID previamente cancelado o con solicitud previa",
        "203" => "el UUID no corresponde al emisor",
        "204" => "el UUID no es aplicable para cancelación",
        "205" => "el UUID no existe (un CFDI recién timbrado puede tardar en conocerse: reintente)",
        "206" => "el UUID no corresponde a un CFDI del sector primario",
        "207" => "motivo no especificado o inválido",
        "208" => "folio de sustitución inválido",
        "209" => "folio de sustitución no requerido",
        "210" => "la fecha de solicitud es mayor a la fecha de declaración",
        "211" => "fuera de la fecha límite para cancelar la factura global",
        "212" => "relación no válida o inexistente",
        "no_cancelable" => "el CFDI tiene documentos relacionados vigentes: no es cancelable",
        // SAT's retention cancellation service (phpcfdi/finkok's retention tests).
        "1201" => "solicitud de cancelación de la retención recibida: cancelada",
        "1202" => "la retención fue cancelada previamente",
        "1203" => "el UUID no corresponde al emisor de la retención",
        "1205" => "el UUID de la retención no existe (una recién timbrada puede tardar en conocerse: reintente)",
        "1207" => "motivo no especificado o inválido",
        "1308" => "certificado revocado o caduco",
        _ => "estatus de cancelación desconocido",
    }
}

/// Reads the answer of `cancel_signature`: the folio's status (`201`/`202`, and the retention
/// service's `1201`/`1202`, are answers,
/// anything else a rejection), falling back to the acuse's `EstatusUUID` when `Folios` comes
/// empty (PROTOCOLS.md §5 pitfall 13), then to the request-level `CodEstatus`.
pub fn leer_cancelacion(respuesta: &str) -> Result<Cancelacion, PacError> {
    con_resultado(respuesta, "cancel_signature", |resultado| {
        let acuse = texto_hijo(resultado, "Acuse").unwrap_or_default();
        let fecha = texto_hijo(resultado, "Fecha").unwrap_or_default();
        let folio = resultado.descendants().find(|n| n.is_element() && n.tag_name().name() == "Folio");
        let mut estado = folio.and_then(|folio| {
            Some((
                texto_hijo(folio, "UUID")?,
                texto_hijo(folio, "EstatusUUID")?,
                texto_hijo(folio, "EstatusCancelacion"),
            ))
        });
        if estado.is_none() && !acuse.is_empty() {
            estado = estatus_en_acuse(&acuse);
        }
        let Some((uuid, estatus_uuid, estatus_cancelacion)) = estado else {
            return match texto_hijo(resultado, "CodEstatus") {
                Some(texto) => Err(rechazo_por_texto(&texto)),
                None => Err(basura("respuesta de cancelación sin Folios ni CodEstatus", respuesta)),
            };
        };
        // 1201 and 1202 are the retention service's 201 and 202.
        if !matches!(estatus_uuid.as_str(), "201" | "202" | "1201" | "1202") {
            return Err(PacError::Rejected {
                message: mensaje_estatus_uuid(&estatus_uuid).to_owned(),
                code: estatus_uuid,
            });
        }
        Ok(Cancelacion { uuid: uuid.to_uppercase(), estatus_uuid, estatus_cancelacion, acuse, fecha })
    })
}

/// `(UUID, EstatusUUID)` from a SAT acuse (`Folios/UUID`, `Folios/EstatusUUID`).
fn estatus_en_acuse(acuse: &str) -> Option<(String, String, Option<String>)> {
    let documento = roxmltree::Document::parse(acuse).ok()?;
    let folios = descendiente(documento.root_element(), "Folios")?;
    Some((texto_hijo(folios, "UUID")?, texto_hijo(folios, "EstatusUUID")?, None))
}

/// A request-level error text such as `302 - Sello mal formado o inválido`: the leading
/// code, when there is one, and the text.
fn rechazo_por_texto(texto: &str) -> PacError {
    let codigo: String = texto.chars().take_while(char::is_ascii_alphanumeric).collect();
    if codigo.is_empty() || !codigo.chars().any(|c| c.is_ascii_digit()) {
        return PacError::Rejected { code: "PAC".to_owned(), message: texto.to_owned() };
    }
    let mensaje = texto[codigo.len()..].trim_start_matches([' ', '-', ':', '.']).trim();
    PacError::Rejected { code: codigo, message: mensaje.to_owned() }
}

/// Reads the answer of `get_sat_status`.
pub fn leer_estado(respuesta: &str) -> Result<EstadoSat, PacError> {
    con_resultado(respuesta, "get_sat_status", |resultado| {
        let Some(sat) = descendiente(resultado, "sat") else {
            return match texto_hijo(resultado, "error") {
                Some(texto) => Err(rechazo_por_texto(&texto)),
                None => Err(basura("get_sat_status sin sat ni error", respuesta)),
            };
        };
        Ok(EstadoSat {
            codigo_estatus: texto_hijo(sat, "CodigoEstatus").unwrap_or_default(),
            estado: texto_hijo(sat, "Estado").unwrap_or_default(),
            es_cancelable: texto_hijo(sat, "EsCancelable").unwrap_or_default(),
            estatus_cancelacion: texto_hijo(sat, "EstatusCancelacion").unwrap_or_default(),
        })
    })
}

/// `get_pending` (service `cancel`): the receiver's RFC.
pub fn sobre_pendientes(rfc_receptor: &str, usuario: &str, password: &str) -> String {
    sobre(NS_CANCEL, "get_pending", &[("username", usuario), ("password", password), ("rtaxpayer_id", rfc_receptor)])
}

/// `accept_reject_signature` (service `cancel`): the signed `SolicitudAceptacionRechazo` in
/// base64.
pub fn sobre_aceptacion_rechazo(respuesta_firmada: &str, usuario: &str, password: &str) -> String {
    sobre(
        NS_CANCEL,
        "accept_reject_signature",
        &[("xml", &STANDARD.encode(respuesta_firmada.as_bytes())), ("username", usuario), ("password", password)],
    )
}

/// Reads the answer of `get_pending`: `uuids/string*` (python-satcfdi's recorded answer
/// writes them `tns:string`), or the `error` text as a rejection.
pub fn leer_pendientes(respuesta: &str) -> Result<Vec<String>, PacError> {
    con_resultado(respuesta, "get_pending", |resultado| {
        let uuids: Vec<String> = descendiente(resultado, "uuids")
            .map(|lista| {
                lista
                    .children()
                    .filter(|n| n.is_element())
                    .filter_map(|n| n.text())
                    .map(|texto| texto.trim().to_uppercase())
                    .filter(|texto| !texto.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        match texto_hijo(resultado, "error") {
            Some(texto) if uuids.is_empty() => Err(rechazo_por_texto(&texto)),
            _ => Ok(uuids),
        }
    })
}

/// Reads the answer of `accept_reject_signature`: `aceptacion/Acepta{status, uuid}*` and
/// `rechazo/Rechaza{status, uuid}*` (python-satcfdi's recorded answer), the optional `Acuse`,
/// and `error`, which alone (no folios: Finkok's `UUID: … No Encontrado`, bad credentials)
/// is a rejection.
pub fn leer_aceptacion_rechazo(respuesta: &str) -> Result<AceptacionRechazo, PacError> {
    con_resultado(respuesta, "accept_reject_signature", |resultado| {
        let mut folios = Vec::new();
        for (lista, elemento, respuesta_receptor) in [
            ("aceptacion", "Acepta", RespuestaReceptor::Aceptacion),
            ("rechazo", "Rechaza", RespuestaReceptor::Rechazo),
        ] {
            let Some(lista) = descendiente(resultado, lista) else { continue };
            for entrada in lista.children().filter(|n| n.is_element() && n.tag_name().name() == elemento) {
                let (Some(uuid), Some(codigo)) = (texto_hijo(entrada, "uuid"), texto_hijo(entrada, "status")) else {
                    return Err(basura(format!("{elemento} sin uuid o status"), respuesta));
                };
                folios.push(FolioAceptacionRechazo {
                    uuid: uuid.to_uppercase(),
                    respuesta: respuesta_receptor,
                    codigo,
                });
            }
        }
        let error = texto_hijo(resultado, "error");
        let acuse = texto_hijo(resultado, "Acuse");
        if folios.is_empty() {
            return match error {
                Some(texto) => Err(rechazo_por_texto(&texto)),
                None => Err(basura("accept_reject_signature sin aceptacion, rechazo ni error", respuesta)),
            };
        }
        Ok(AceptacionRechazo { folios, acuse, error })
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const TIMBRADO: &str = r#"<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Sello="abc"><cfdi:Complemento><tfd:TimbreFiscalDigital xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="1.1" UUID="af124dc7-bd75-5eff-8edf-28c1e7d43b1d" FechaTimbrado="2026-11-20T10:31:00" RfcProvCertif="SPR190613I52" SelloCFD="abc" NoCertificadoSAT="30001000000500003456" SelloSAT="xyz"/></cfdi:Complemento></cfdi:Comprobante>"#;

    fn respuesta_timbrado(operacion: &str, xml: &str, incidencias: &str) -> String {
        format!(
            "<senv:Envelope xmlns:senv=\"{NS_SOAP}\" xmlns:tns=\"{NS_STAMP}\" xmlns:s0=\"{NS_VIEWS}\"><senv:Body>\
             <tns:{operacion}Response><tns:{operacion}Result><s0:xml>{}</s0:xml><s0:UUID>AF124DC7-BD75-5EFF-8EDF-28C1E7D43B1D</s0:UUID>\
             <s0:CodEstatus>Comprobante timbrado satisfactoriamente</s0:CodEstatus><s0:Incidencias>{incidencias}</s0:Incidencias>\
             </tns:{operacion}Result></tns:{operacion}Response></senv:Body></senv:Envelope>",
            escapar(xml)
        )
    }

    #[test]
    fn timbrado_exitoso_lee_el_tfd() {
        let timbrado = leer_timbrado("stamp", &respuesta_timbrado("stamp", TIMBRADO, "")).unwrap();
        assert_eq!(timbrado.uuid, "AF124DC7-BD75-5EFF-8EDF-28C1E7D43B1D");
        assert_eq!(timbrado.fecha_timbrado, "2026-11-20T10:31:00");
        assert_eq!(timbrado.xml, TIMBRADO);
        assert!(!timbrado.previo);
    }

    #[test]
    fn duplicado_con_timbre_original_y_sin_el() {
        let incidencia = "<s0:Incidencia><s0:CodigoError>307</s0:CodigoError>\
                          <s0:MensajeIncidencia>El CFDI contiene un timbre previo</s0:MensajeIncidencia></s0:Incidencia>";
        let con = leer_timbrado("stamp", &respuesta_timbrado("stamp", TIMBRADO, incidencia)).unwrap();
        assert!(con.previo);
        // phpcfdi/finkok docs/issues/StampServiceDobleEstampado.md: xml empty, only 307.
        let sin = leer_timbrado("stamp", &respuesta_timbrado("stamp", "", incidencia)).unwrap_err();
        assert_eq!(sin.code(), Some("307"));
    }

    #[test]
    fn falla_soap_y_basura() {
        let falla = format!(
            "<s:Envelope xmlns:s=\"{NS_SOAP}\"><s:Body><s:Fault><faultcode>s:Client</faultcode>\
             <faultstring>operación desconocida</faultstring></s:Fault></s:Body></s:Envelope>"
        );
        // A fault says nothing about whether the PAC stamped before failing.
        let error = leer_timbrado("stamp", &falla).unwrap_err();
        assert!(matches!(&error, PacError::Fault { code, .. } if code == "s:Client"), "{error:?}");
        assert!(error.is_indeterminate());
        assert!(matches!(leer_timbrado("stamp", "<<<no soy xml").unwrap_err(), PacError::Garbage { .. }));
        assert!(matches!(
            leer_timbrado("stamp", "<html><body>502</body></html>").unwrap_err(),
            PacError::Garbage { .. }
        ));
    }

    #[test]
    fn cancelacion_usa_el_acuse_cuando_folios_viene_vacio() {
        let acuse = "<Acuse xmlns=\"http://cancelacfd.sat.gob.mx\" Fecha=\"2026-11-20T11:00:00\" RfcEmisor=\"EKU9003173C9\">\
                     <Folios><UUID>62B00C5E-4187-4336-B569-44E0030DC729</UUID><EstatusUUID>201</EstatusUUID></Folios></Acuse>";
        let respuesta = format!(
            "<senv:Envelope xmlns:senv=\"{NS_SOAP}\" xmlns:tns=\"{NS_CANCEL}\" xmlns:s0=\"{NS_VIEWS}\"><senv:Body>\
             <tns:cancel_signatureResponse><tns:cancel_signatureResult><s0:Folios/><s0:Acuse>{}</s0:Acuse>\
             <s0:Fecha>2026-11-20T11:00:00</s0:Fecha></tns:cancel_signatureResult></tns:cancel_signatureResponse>\
             </senv:Body></senv:Envelope>",
            escapar(acuse)
        );
        let cancelacion = leer_cancelacion(&respuesta).unwrap();
        assert_eq!(cancelacion.estatus_uuid, "201");
        assert_eq!(cancelacion.uuid, "62B00C5E-4187-4336-B569-44E0030DC729");
    }

    #[test]
    fn codigo_de_error_a_nivel_solicitud() {
        assert_eq!(
            rechazo_por_texto("302 - Sello mal formado o inválido"),
            PacError::Rejected { code: "302".into(), message: "Sello mal formado o inválido".into() }
        );
        assert_eq!(rechazo_por_texto("UUID Not Found").code(), Some("PAC"));
    }

    #[test]
    fn sobres_llevan_credenciales_escapadas() {
        let sobre = sobre_timbrado("stamp", "<a/>", "u&1", "p<2");
        assert!(sobre.contains("<ns1:username>u&amp;1</ns1:username>"));
        assert!(sobre.contains("<ns1:password>p&lt;2</ns1:password>"));
        assert!(sobre.contains("<ns1:xml>PGEvPg==</ns1:xml>"));
        roxmltree::Document::parse(&sobre).unwrap();
    }

    fn respuesta_cancel(operacion: &str, resultado: &str) -> String {
        format!(
            "<?xml version='1.0' encoding='UTF-8'?>\n<senv:Envelope xmlns:tns=\"{NS_CANCEL}\" \
             xmlns:s1=\"http://facturacion.finkok.com/cancellation\" xmlns:s0=\"{NS_VIEWS}\" xmlns:senv=\"{NS_SOAP}\">\
             <senv:Body><tns:{operacion}Response><tns:{operacion}Result>{resultado}</tns:{operacion}Result>\
             </tns:{operacion}Response></senv:Body></senv:Envelope>"
        )
    }

    #[test]
    fn pendientes_con_la_forma_grabada() {
        // python-satcfdi tests/test_pac_finkok.py: uuids/tns:string.
        let respuesta = respuesta_cancel(
            "get_pending",
            "<s0:uuids><tns:string>2d0e7634-886f-4119-b58f-2dca228d510f</tns:string>\
             <tns:string>E5B5DB3F-6FF8-42E0-AAE5-645FECFF96DC</tns:string></s0:uuids>",
        );
        assert_eq!(
            leer_pendientes(&respuesta).unwrap(),
            ["2D0E7634-886F-4119-B58F-2DCA228D510F", "E5B5DB3F-6FF8-42E0-AAE5-645FECFF96DC"]
        );
        assert!(leer_pendientes(&respuesta_cancel("get_pending", "<s0:uuids/>")).unwrap().is_empty());
        let error = respuesta_cancel("get_pending", "<s0:error>300 - Usuario o contraseña inválidos</s0:error>");
        assert_eq!(leer_pendientes(&error).unwrap_err().code(), Some("300"));
        let sobre = sobre_pendientes("H&E951128469", "u", "p");
        assert!(sobre.contains("<ns1:rtaxpayer_id>H&amp;E951128469</ns1:rtaxpayer_id>"));
    }

    #[test]
    fn aceptacion_rechazo_con_la_forma_grabada() {
        // python-satcfdi tests/test_pac_finkok.py: rechazo first, then aceptacion.
        let respuesta = respuesta_cancel(
            "accept_reject_signature",
            "<s0:rechazo><s0:Rechaza><s0:status>1000</s0:status><s0:uuid>2D0E7634-886F-4119-B58F-2DCA228D510F</s0:uuid>\
             </s0:Rechaza></s0:rechazo><s0:aceptacion><s0:Acepta><s0:status>1001</s0:status>\
             <s0:uuid>E5B5DB3F-6FF8-42E0-AAE5-645FECFF96DC</s0:uuid></s0:Acepta></s0:aceptacion>",
        );
        let leida = leer_aceptacion_rechazo(&respuesta).unwrap();
        assert_eq!(leida.folios.len(), 2);
        let aceptada = leida.folio("e5b5db3f-6ff8-42e0-aae5-645fecff96dc").unwrap();
        assert_eq!((aceptada.respuesta, aceptada.codigo.as_str()), (RespuestaReceptor::Aceptacion, "1001"));
        assert!(!aceptada.recibida());
        assert_eq!(aceptada.mensaje(), "No existen peticiones de cancelación en espera de respuesta para el UUID");
        let rechazada = leida.folio("2D0E7634-886F-4119-B58F-2DCA228D510F").unwrap();
        assert_eq!(rechazada.respuesta, RespuestaReceptor::Rechazo);
        assert!(rechazada.recibida());
        assert_eq!((leida.acuse, leida.error), (None, None));

        // phpcfdi/finkok's integration test: an unknown UUID answers only the error text.
        let error = respuesta_cancel(
            "accept_reject_signature",
            "<s0:error>UUID: 11111111-2222-3333-4444-000000000001 No Encontrado</s0:error>",
        );
        match leer_aceptacion_rechazo(&error).unwrap_err() {
            PacError::Rejected { message, .. } => assert!(message.ends_with("No Encontrado"), "{message}"),
            otro => panic!("{otro:?}"),
        }
        let vacia = respuesta_cancel("accept_reject_signature", "");
        assert!(matches!(leer_aceptacion_rechazo(&vacia).unwrap_err(), PacError::Garbage { .. }));
    }
}
