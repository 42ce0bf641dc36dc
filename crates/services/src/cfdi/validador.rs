//! The validator of any CFDI 4.0 (issue 29, `POST /api/cfdi/validar-xml`): stamped or not,
//! from anyone. It reads the XML safely (no DOCTYPE, so no entity is ever resolved), checks its
//! structure against cfdv40.xsd as timbra reads it, its issuer seal against the cadena
//! original, SAT's seal of its timbre when the stamping certificate is known here (this
//! installation's sandbox PAC), and every offline rule with the catalogs held.

use serde::Serialize;
use timbra_cfdi::{Comprobante, parser, sello, validacion};
use timbra_credentials::Certificate;
use utoipa::ToSchema;

use super::ensayo::{OmitidaOut, ProblemaOut};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};

/// The verdict on a CFDI.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ValidacionXmlOut {
    /// `esquema` and `sello` are `ok`, `timbre` is not `error`, and no rule is broken.
    pub valido: bool,
    /// The document's structure: `ok`, or `error` (the reason in `motivos.esquema`).
    pub esquema: &'static str,
    /// The issuer's `Sello` against the cadena original with the certificate it carries:
    /// `ok` or `error` (reason in `motivos.sello`).
    pub sello: &'static str,
    /// SAT's `SelloSAT` of the TimbreFiscalDigital: `ok`, `error`, or `no_aplica` (no timbre, or
    /// a stamping certificate this installation does not know; reason in `motivos.timbre`).
    pub timbre: &'static str,
    /// The reason of each check that is not `ok`, by check name.
    pub motivos: Motivos,
    /// Every broken rule, as the dry run gives them.
    pub problemas: Vec<ProblemaOut>,
    /// The checks not made here, as the dry run gives them.
    pub omitidas: Vec<OmitidaOut>,
    /// The TFD's UUID, when stamped.
    pub uuid: Option<String>,
    pub emisor_rfc: Option<String>,
    pub receptor_rfc: Option<String>,
    /// `Total` as written.
    pub total: Option<String>,
}

/// Why a check is not `ok` (absent when it is).
#[derive(Serialize, ToSchema, Debug, Default)]
pub struct Motivos {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub esquema: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sello: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timbre: Option<String>,
}

/// The rules that restate cfdv40.xsd (a pattern, a length, a number's digits, the version):
/// a document that breaks one is not schema-valid, whatever else it breaks.
/// (TIMBRA_RFC is not one: t_RFC collapses whitespace before its pattern, so " AAA010101AAA"
/// is schema-valid and only the rule refuses it.)
const REGLAS_DEL_ESQUEMA: &[&str] =
    &["TIMBRA_VERSION", "TIMBRA_TEXTO", "TIMBRA_NUMERO", "TIMBRA_UUID_RELACIONADO", "CFDI40101"];

/// The XML as text, refused (CFDI_005) when it is not UTF-8, carries a DOCTYPE (whose entities
/// could read files or expand without bound: never resolved, refused before parsing) or is
/// not well-formed.
pub fn leer(bytes: &[u8]) -> ApiResult<&str> {
    let texto = std::str::from_utf8(bytes).map_err(|e| {
        ApiError::new(Code::Cfdi005, format!("the XML is not UTF-8 (byte {}); CFDI are UTF-8", e.valid_up_to()))
    })?;
    if texto.trim().is_empty() {
        return Err(ApiError::new(
            Code::Cfdi005,
            "send the CFDI's XML (Content-Type: application/xml) or {\"xml\": \"...\"}",
        ));
    }
    if texto.as_bytes().windows(9).any(|w| w.eq_ignore_ascii_case(b"<!DOCTYPE")) {
        return Err(ApiError::new(
            Code::Cfdi005,
            "the XML carries a DOCTYPE: a CFDI has none, and its entities are never resolved; remove it",
        ));
    }
    // The reader refuses a DTD as well; this reports line and column of what is malformed.
    parser::documento(texto).map_err(|e| ApiError::new(Code::Cfdi005, format!("the XML is not well-formed: {e}")))?;
    Ok(texto)
}

/// Validates the CFDI `xml` (already [`leer`]).
pub async fn validar(app: &AppContext, xml: &str) -> ApiResult<ValidacionXmlOut> {
    let certificado_sandbox = {
        let mut conn = app.db.conn().await?;
        timbra_store::certificados::sandbox_pac(&mut conn).await?.and_then(|row| Certificate::from_der(&row.cer).ok())
    };
    let catalogos = app.catalogos.clone();
    let xml = xml.to_owned();
    // Parsing, two RSA verifications and the rules: CPU work off the async workers.
    tokio::task::spawn_blocking(move || validar_ya(&xml, &*catalogos.indice, certificado_sandbox.as_ref()))
        .await
        .map_err(|e| ApiError::internal("validar-xml", e))
}

fn validar_ya(
    xml: &str,
    catalogos: &dyn timbra_cfdi::catalogos::Catalogos,
    certificado_sandbox: Option<&Certificate>,
) -> ValidacionXmlOut {
    let mut motivos = Motivos::default();
    let comprobante = match parser::parsear(xml) {
        Ok(comprobante) => comprobante,
        Err(error) => {
            motivos.esquema = Some(match &error {
                parser::ErrorParseo::NoEsCfdi40 { encontrado } if encontrado.contains("/cfd/3") => format!(
                    "a CFDI 3.3 ({encontrado}): SAT stamps only CFDI 4.0 since 1 April 2023; only 4.0 is validated"
                ),
                _ => error.to_string(),
            });
            return ValidacionXmlOut {
                valido: false,
                esquema: "error",
                sello: "no_aplica",
                timbre: "no_aplica",
                motivos,
                problemas: Vec::new(),
                omitidas: Vec::new(),
                uuid: None,
                emisor_rfc: None,
                receptor_rfc: None,
                total: None,
            };
        }
    };
    let informe = validacion::validar(&comprobante, catalogos);
    let del_esquema: Vec<String> = informe
        .problemas
        .iter()
        .filter(|p| REGLAS_DEL_ESQUEMA.contains(&p.regla))
        .map(|p| format!("{}: {}", p.campo, p.mensaje))
        .collect();
    let esquema = if del_esquema.is_empty() {
        "ok"
    } else {
        motivos.esquema = Some(del_esquema.join("; "));
        "error"
    };
    let sello = match sello::verificar_sello_xml(xml) {
        Ok(_) => "ok",
        Err(error) => {
            motivos.sello = Some(error.to_string());
            "error"
        }
    };
    let timbre = timbre(&comprobante, certificado_sandbox, &mut motivos);
    let problemas: Vec<ProblemaOut> = informe
        .problemas
        .into_iter()
        .map(|p| ProblemaOut { regla: p.regla.to_owned(), campo: p.campo, mensaje: p.mensaje })
        .collect();
    let omitidas = super::ensayo::omitidas(&informe.omitidas);
    ValidacionXmlOut {
        valido: esquema == "ok" && sello == "ok" && timbre != "error" && problemas.is_empty(),
        esquema,
        sello,
        timbre,
        motivos,
        problemas,
        omitidas,
        uuid: comprobante.timbre().map(|t| t.uuid.clone()),
        emisor_rfc: Some(comprobante.emisor.rfc.clone()),
        receptor_rfc: Some(comprobante.receptor.rfc.clone()),
        total: Some(comprobante.total.texto().to_owned()),
    }
}

/// SAT's seal of the timbre, when there is one and its certificate is known here.
fn timbre(comprobante: &Comprobante, certificado_sandbox: Option<&Certificate>, motivos: &mut Motivos) -> &'static str {
    let Some(tfd) = comprobante.timbre() else {
        motivos.timbre = Some("the document carries no TimbreFiscalDigital: it was not stamped".to_owned());
        return "no_aplica";
    };
    let Some(certificado) = certificado_sandbox.filter(|c| c.no_certificado() == tfd.no_certificado_sat.trim()) else {
        motivos.timbre = Some(format!(
            "the stamping certificate {} is not known to this installation (SAT publishes the PACs' certificates); \
             ask SAT's status of the UUID instead",
            tfd.no_certificado_sat
        ));
        return "no_aplica";
    };
    // On the model already read: the XML is not parsed again for the TFD.
    match sello::verificar_timbre(comprobante, certificado) {
        Ok(_) => "ok",
        Err(error) => {
            motivos.timbre = Some(error.to_string());
            "error"
        }
    }
}
