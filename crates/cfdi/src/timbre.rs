//! TimbreFiscalDigital 1.1 generation (for the sandbox stamper and the PAC simulator) and
//! the expresión impresa of the QR code (Anexo 20, apartado D; PROTOCOLS.md §4).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rust_decimal::{Decimal, RoundingStrategy};

use crate::complementos::tfd::{self, NS_TFD, TimbreFiscalDigital};
use crate::escritura::{self, escapar_atributo};
use crate::model::{Complemento, Comprobante, NS_CFDI};
use crate::numero::Numero;
use crate::parser;
use crate::sello::{ErrorSello, Firmante};

/// What the PAC decides when stamping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatosTimbre {
    /// Folio fiscal, 36 characters, upper-case hex with hyphens.
    pub uuid: String,
    /// `AAAA-MM-DDThh:mm:ss`, Mexico central time.
    pub fecha_timbrado: String,
    /// RFC of the PAC.
    pub rfc_prov_certif: String,
    /// Optional legend (12–150 characters).
    pub leyenda: Option<String>,
}

/// Builds the TFD for a sealed comprobante: `SelloCFD` = `Sello`, `NoCertificadoSAT` and
/// `SelloSAT` from the stamping credential (RSA-SHA256 over the TFD cadena original).
pub fn generar_timbre(
    sello_cfd: &str,
    datos: DatosTimbre,
    firmante_sat: &impl Firmante,
) -> Result<TimbreFiscalDigital, ErrorSello> {
    if sello_cfd.trim().is_empty() {
        return Err(ErrorSello::SinSello);
    }
    let mut tfd = TimbreFiscalDigital {
        version: "1.1".to_owned(),
        uuid: datos.uuid,
        fecha_timbrado: datos.fecha_timbrado,
        rfc_prov_certif: datos.rfc_prov_certif,
        leyenda: datos.leyenda.filter(|leyenda| !leyenda.trim().is_empty()),
        sello_cfd: sello_cfd.to_owned(),
        no_certificado_sat: firmante_sat.no_certificado(),
        sello_sat: String::new(),
    };
    let cadena_tfd = tfd::cadena_original(&tfd);
    let firma = firmante_sat.firmar_sha256(cadena_tfd.as_bytes()).map_err(ErrorSello::Firma)?;
    tfd.sello_sat = STANDARD.encode(firma);
    Ok(tfd)
}

/// Stamps a sealed comprobante in the model: generates the TFD and appends it to
/// `Complemento`.
pub fn timbrar(
    comprobante: &mut Comprobante,
    datos: DatosTimbre,
    firmante_sat: &impl Firmante,
) -> Result<TimbreFiscalDigital, ErrorSello> {
    let tfd = generar_timbre(&comprobante.sello, datos, firmante_sat)?;
    comprobante.complementos.push(Complemento::TimbreFiscalDigital(Box::new(tfd.clone())));
    Ok(tfd)
}

/// Stamps a sealed CFDI given as XML *without re-serialising it*: the client's bytes are
/// kept and the TFD is inserted into `cfdi:Complemento` (created before `cfdi:Addenda`, or
/// at the end, when absent), as a PAC does. Returns the stamped XML and the TFD.
pub fn timbrar_xml(
    xml: &str,
    datos: DatosTimbre,
    firmante_sat: &impl Firmante,
) -> Result<(String, TimbreFiscalDigital), ErrorSello> {
    let sin_bom = xml.strip_prefix('\u{feff}').unwrap_or(xml);
    let documento = parser::documento(sin_bom).map_err(parser::ErrorParseo::from)?;
    let raiz = documento.root_element();
    if !(raiz.tag_name().namespace() == Some(NS_CFDI) && raiz.tag_name().name() == "Comprobante") {
        return Err(parser::ErrorParseo::NoEsCfdi40 { encontrado: raiz.tag_name().name().to_owned() }.into());
    }
    let sello = raiz.attribute("Sello").unwrap_or("");
    let tfd = generar_timbre(sello, datos, firmante_sat)?;
    let tfd_xml = escribir_tfd_incrustado(&tfd)?;
    // The prefix the document uses for the CFDI namespace ("cfdi" in practice).
    let prefijo = raiz.lookup_prefix(NS_CFDI).unwrap_or("");
    let nombre = |local: &str| {
        if prefijo.is_empty() { local.to_owned() } else { format!("{prefijo}:{local}") }
    };
    let hijo = |local: &str| {
        raiz.children()
            .find(|n| n.is_element() && n.tag_name().namespace() == Some(NS_CFDI) && n.tag_name().name() == local)
    };
    let mut salida = String::with_capacity(sin_bom.len() + tfd_xml.len() + 64);
    if let Some(complemento) = hijo("Complemento") {
        let rango = complemento.range();
        let fuente = &sin_bom[rango.clone()];
        if let Some(inicio) = fuente.strip_suffix("/>") {
            // <cfdi:Complemento/> → <cfdi:Complemento>TFD</cfdi:Complemento>
            salida.push_str(&sin_bom[..rango.start]);
            salida.push_str(inicio.trim_end());
            salida.push('>');
            salida.push_str(&tfd_xml);
            salida.push_str(&format!("</{}>", nombre("Complemento")));
            salida.push_str(&sin_bom[rango.end..]);
        } else {
            let cierre = fuente.rfind("</").map_or(rango.end, |posicion| rango.start + posicion);
            salida.push_str(&sin_bom[..cierre]);
            salida.push_str(&tfd_xml);
            salida.push_str(&sin_bom[cierre..]);
        }
    } else {
        let posicion = match hijo("Addenda") {
            Some(addenda) => addenda.range().start,
            None => {
                let rango = raiz.range();
                sin_bom[rango.clone()].rfind("</").map_or(rango.end, |p| rango.start + p)
            }
        };
        salida.push_str(&sin_bom[..posicion]);
        salida.push_str(&format!("<{0}>{tfd_xml}</{0}>", nombre("Complemento")));
        salida.push_str(&sin_bom[posicion..]);
    }
    Ok((salida, tfd))
}

/// The TFD element with its own namespace declarations, ready to be embedded.
fn escribir_tfd_incrustado(tfd: &TimbreFiscalDigital) -> Result<String, escritura::ErrorEscritura> {
    let documento = tfd::escribir_documento(tfd)?;
    // Drop the XML declaration of the stand-alone document.
    Ok(match documento.find("?>") {
        Some(posicion) => documento[posicion + 2..].trim_start().to_owned(),
        None => documento,
    })
}

/// `tt` of the expresión impresa: total rounded to 6 decimals, trailing zeros removed but
/// at least one decimal (`1000.00000` → `1000.0`, `0` → `0.0`), no padding (CFDI 3.3+).
pub fn formato_total_qr(total: &Numero) -> String {
    let valor = total.valor().unwrap_or(Decimal::ZERO);
    let redondeado = valor.round_dp_with_strategy(6, RoundingStrategy::MidpointAwayFromZero).normalize();
    let texto = redondeado.to_string();
    if texto.contains('.') { texto } else { format!("{texto}.0") }
}

/// Expresión impresa for the QR code of a stamped CFDI:
/// `https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=…&re=…&rr=…&tt=…&fe=…`
/// (`re`/`rr` XML-escaped, e.g. `H&amp;E951128469`; `fe` the last 8 characters of `Sello`).
pub fn expresion_impresa(comprobante: &Comprobante) -> Result<String, ErrorSello> {
    let tfd = comprobante.timbre().ok_or(ErrorSello::SinTimbre)?;
    let sello = comprobante.sello.trim();
    let inicio = sello.char_indices().rev().nth(7).map_or(0, |(indice, _)| indice);
    Ok(format!(
        "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id={}&re={}&rr={}&tt={}&fe={}",
        tfd.uuid,
        escapar_atributo(&comprobante.emisor.rfc),
        escapar_atributo(&comprobante.receptor.rfc),
        formato_total_qr(&comprobante.total),
        &sello[inicio..]
    ))
}

/// Whether `uuid` looks like a folio fiscal (8-4-4-4-12 hex digits).
pub fn uuid_valido(uuid: &str) -> bool {
    let partes: Vec<&str> = uuid.split('-').collect();
    partes.len() == 5
        && partes
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(parte, largo)| parte.len() == largo && parte.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Namespace of the TFD, re-exported for callers building their own XML.
pub const NAMESPACE_TFD: &str = NS_TFD;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_qr_como_phpcfdi() {
        for (entrada, esperado) in
            [("459.36", "459.36"), ("1000.00000", "1000.0"), ("0", "0.0"), ("0.1234565", "0.123457"), ("12.5", "12.5")]
        {
            assert_eq!(formato_total_qr(&Numero::from_texto(entrada)), esperado, "{entrada}");
        }
    }

    #[test]
    fn uuid() {
        assert!(uuid_valido("C2832671-DA6D-11EF-A83D-00155D012007"));
        assert!(!uuid_valido("C2832671-DA6D-11EF-A83D-00155D01200"));
    }
}
