//! SAT's status service, `ConsultaCFDIService` (PROTOCOLS.md §3), over the documents the PAC
//! simulator stamped: `POST /ConsultaCFDIService.svc` on the PAC simulator's own address, so
//! the status follows the simulator's cancellations and the receivers' answers (the same state
//! `get_sat_status` reads).
//!
//! Strict like SAT's WCF service: `Content-Type` must be `text/xml` (415 otherwise), the
//! `SOAPAction` `http://tempuri.org/IConsultaCFDIService/Consulta` (an `a:ActionNotSupported`
//! fault otherwise), the body a SOAP 1.1 `Consulta/expresionImpresa` (plain text with `&amp;`
//! or CDATA). The expression is the QR's (`https://verificacfdi…/default.aspx?id=…&re=…&rr=…&tt=…[&fe=…]`)
//! or its short form (`?re=…&rr=…&tt=…&id=…`), fields in any order, RFCs containing `&` written
//! `&amp;` inside the expression (PROTOCOLS.md §4). Anything else — a missing, repeated or unknown
//! field, a raw `&` in an RFC, a UUID or total that is not one — answers
//! `N - 601: La expresión impresa proporcionada no es válida.`; a well-formed expression whose
//! UUID, issuer, receiver and total do not all match a stamped document answers
//! `N - 602: Comprobante no encontrado.` `fe` is not compared with the seal. Found documents
//! carry `ValidacionEFOS` `200`.

use std::collections::HashMap;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_decimal::Decimal;
use timbra_cfdi::escritura::escapar_atributo as escapar;
use timbra_cfdi::timbre::uuid_valido;

use crate::pac::Sim;

/// The service's path (SAT's).
pub const RUTA: &str = "/ConsultaCFDIService.svc";
/// `SOAPAction` of `Consulta`.
pub const ACCION: &str = "http://tempuri.org/IConsultaCFDIService/Consulta";
/// Start of the QR expression.
const URL_VERIFICACION: &str = "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx";
const NS_SOAP: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const NS_TEMPURI: &str = "http://tempuri.org/";
const NS_CONTRATO: &str = "http://schemas.datacontract.org/2004/07/Sat.Cfdi.Negocio.ConsultaCfdi.Servicio";

/// `CodigoEstatus` of a malformed expression.
pub const N_601: &str = "N - 601: La expresión impresa proporcionada no es válida.";
/// `CodigoEstatus` of an unknown CFDI.
pub const N_602: &str = "N - 602: Comprobante no encontrado.";

/// The four fields that identify a CFDI in an expression.
#[derive(Debug, PartialEq, Eq)]
struct Expresion {
    id: String,
    re: String,
    rr: String,
    tt: String,
}

fn rfc_valido(rfc: &str) -> bool {
    (12..=13).contains(&rfc.chars().count()) && rfc.chars().all(|c| c.is_alphanumeric() || c == '&')
}

/// Reads an expression; `None` is SAT's 601.
fn leer_expresion(texto: &str) -> Option<Expresion> {
    let texto = texto.trim();
    let consulta = texto.strip_prefix(URL_VERIFICACION).unwrap_or(texto).strip_prefix('?')?;
    // `&amp;` belongs to an RFC; every other `&` separates fields. XML cannot carry U+0000, so it
    // cannot come in the expression.
    let protegida = consulta.replace("&amp;", "\u{0}");
    let mut campos: HashMap<&str, String> = HashMap::new();
    for parte in protegida.split('&') {
        let (nombre, valor) = parte.split_once('=')?;
        if !matches!(nombre, "id" | "re" | "rr" | "tt" | "fe") {
            return None;
        }
        if campos.insert(nombre, valor.replace('\u{0}', "&")).is_some() {
            return None;
        }
    }
    let expresion = Expresion {
        id: campos.remove("id")?,
        re: campos.remove("re")?,
        rr: campos.remove("rr")?,
        tt: campos.remove("tt")?,
    };
    let total_valido = expresion.tt.parse::<Decimal>().is_ok_and(|total| total >= Decimal::ZERO);
    (uuid_valido(&expresion.id) && rfc_valido(&expresion.re) && rfc_valido(&expresion.rr) && total_valido)
        .then_some(expresion)
}

fn respuesta(estado: StatusCode, cuerpo: String) -> Response {
    (estado, [(header::CONTENT_TYPE, "text/xml; charset=utf-8")], cuerpo).into_response()
}

fn falla(codigo: &str, mensaje: &str) -> Response {
    respuesta(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!(
            "<s:Envelope xmlns:s=\"{NS_SOAP}\"><s:Body><s:Fault><faultcode xmlns:a=\"http://schemas.microsoft.com/ws/2005/05/addressing/none\">\
             {codigo}</faultcode><faultstring xml:lang=\"es-MX\">{}</faultstring></s:Fault></s:Body></s:Envelope>",
            escapar(mensaje)
        ),
    )
}

fn resultado(
    codigo_estatus: &str,
    es_cancelable: &str,
    estado: &str,
    estatus_cancelacion: &str,
    efos: &str,
) -> Response {
    let campo = |nombre: &str, valor: &str| {
        if valor.is_empty() { format!("<a:{nombre}/>") } else { format!("<a:{nombre}>{}</a:{nombre}>", escapar(valor)) }
    };
    respuesta(
        StatusCode::OK,
        format!(
            "<s:Envelope xmlns:s=\"{NS_SOAP}\"><s:Body><ConsultaResponse xmlns=\"{NS_TEMPURI}\"><ConsultaResult \
             xmlns:a=\"{NS_CONTRATO}\" xmlns:i=\"http://www.w3.org/2001/XMLSchema-instance\">{}{}{}{}{}</ConsultaResult>\
             </ConsultaResponse></s:Body></s:Envelope>",
            campo("CodigoEstatus", codigo_estatus),
            campo("EsCancelable", es_cancelable),
            campo("Estado", estado),
            campo("EstatusCancelacion", estatus_cancelacion),
            campo("ValidacionEFOS", efos),
        ),
    )
}

/// The `expresionImpresa` of a SOAP 1.1 `Consulta`.
fn expresion_del_sobre(cuerpo: &str) -> Result<String, String> {
    let documento = roxmltree::Document::parse(cuerpo).map_err(|e| format!("el mensaje no es XML: {e}"))?;
    let raiz = documento.root_element();
    if raiz.tag_name().name() != "Envelope" || raiz.tag_name().namespace() != Some(NS_SOAP) {
        return Err("se esperaba un s:Envelope de SOAP 1.1".into());
    }
    let consulta = raiz
        .descendants()
        .find(|n| n.is_element() && n.tag_name().name() == "Consulta" && n.tag_name().namespace() == Some(NS_TEMPURI))
        .ok_or_else(|| "falta Consulta de http://tempuri.org/".to_owned())?;
    let campo = consulta
        .children()
        .find(|n| n.is_element() && n.tag_name().name() == "expresionImpresa")
        .ok_or_else(|| "falta expresionImpresa".to_owned())?;
    Ok(campo.descendants().filter(|n| n.is_text()).filter_map(|n| n.text()).collect())
}

/// `POST /ConsultaCFDIService.svc`.
pub(crate) async fn atender(State(sim): State<Sim>, headers: HeaderMap, cuerpo: String) -> Response {
    let config = sim.config();
    if config.basura {
        return (StatusCode::OK, [(header::CONTENT_TYPE, "text/html")], "<html><body>Servicio no disponible")
            .into_response();
    }
    let tipo = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !tipo.trim_start().to_ascii_lowercase().starts_with("text/xml") {
        return (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("Cannot process the message because the content type '{tipo}' was not the expected type 'text/xml; charset=utf-8'."),
        )
            .into_response();
    }
    let accion = headers.get("SOAPAction").and_then(|v| v.to_str().ok()).unwrap_or("").trim().trim_matches('"');
    if accion != ACCION {
        return falla(
            "a:ActionNotSupported",
            &format!(
                "The message with Action '{accion}' cannot be processed at the receiver, due to a ContractFilter mismatch at the EndpointDispatcher."
            ),
        );
    }
    let falla_programada = sim.siguiente_falla("Consulta");
    if let Some(falla) = falla_programada.as_ref().filter(|falla| !falla.trabaja()) {
        return falla.aplicar(().into_response()).await;
    }
    let contestacion = match expresion_del_sobre(&cuerpo) {
        Err(mensaje) => return falla("s:Client", &mensaje),
        Ok(texto) => match leer_expresion(&texto) {
            None => resultado(N_601, "", "No Encontrado", "", ""),
            Some(expresion) => {
                let ahora = Sim::ahora(&config);
                let estado = sim.estado(ahora, &expresion.re, &expresion.rr, &expresion.id, &expresion.tt);
                if estado.codigo_estatus.starts_with("S - ") {
                    resultado(
                        &estado.codigo_estatus,
                        &estado.es_cancelable,
                        &estado.estado,
                        &estado.estatus_cancelacion,
                        "200",
                    )
                } else {
                    resultado(N_602, "", "No Encontrado", "", "")
                }
            }
        },
    };
    match falla_programada {
        Some(falla) => falla.aplicar(contestacion).await,
        None => contestacion,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expresiones() {
        let completa = "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=04BF2854-FE7D-4377-9196-71248F060ABB\
                        &re=CSM190311AH6&rr=H&amp;E951128469&tt=459.36&fe=5tSZhA==";
        assert_eq!(
            leer_expresion(completa),
            Some(Expresion {
                id: "04BF2854-FE7D-4377-9196-71248F060ABB".into(),
                re: "CSM190311AH6".into(),
                rr: "H&E951128469".into(),
                tt: "459.36".into()
            })
        );
        assert!(
            leer_expresion("?re=CSM190311AH6&rr=MCI7306249Y1&tt=1.0&id=04BF2854-FE7D-4377-9196-71248F060ABB").is_some()
        );
        for mala in [
            "",
            "re=CSM190311AH6&rr=MCI7306249Y1&tt=1.0&id=04BF2854-FE7D-4377-9196-71248F060ABB",
            // A raw `&` inside an RFC.
            "?re=CSM190311AH6&rr=H&E951128469&tt=1.0&id=04BF2854-FE7D-4377-9196-71248F060ABB",
            "?re=CSM190311AH6&rr=MCI7306249Y1&tt=mil&id=04BF2854-FE7D-4377-9196-71248F060ABB",
            "?re=CSM190311AH6&rr=MCI7306249Y1&tt=1.0&id=04BF2854",
            "?re=CSM190311AH6&rr=MCI7306249Y1&tt=1.0",
            "?re=CSM190311AH6&re=CSM190311AH6&rr=MCI7306249Y1&tt=1.0&id=04BF2854-FE7D-4377-9196-71248F060ABB",
            "?re=CSM190311AH6&rr=MCI7306249Y1&tt=1.0&id=04BF2854-FE7D-4377-9196-71248F060ABB&xx=1",
            "https://otro.example/default.aspx?re=CSM190311AH6&rr=MCI7306249Y1&tt=1.0&id=04BF2854-FE7D-4377-9196-71248F060ABB",
        ] {
            assert_eq!(leer_expresion(mala), None, "{mala}");
        }
    }
}
