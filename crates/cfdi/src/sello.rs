//! Sealing (Anexo 20, "Sello digital"): `Sello` is the base64 RSA PKCS#1 v1.5 signature
//! with SHA-256 over the UTF-8 cadena original; `Certificado` is the CSD in base64 DER and
//! `NoCertificado` its 20-digit number.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use timbra_credentials::{Certificate, Credential};

use crate::cadena::{self, CadenaError};
use crate::complementos::tfd;
use crate::model::Comprobante;
use crate::parser;

/// Something that signs with a CSD (or, for the TFD, with the stamping certificate).
///
/// [`timbra_credentials::Credential`] implements it; tests may also implement it with the
/// `openssl` CLI.
pub trait Firmante {
    /// The certificate number (`NoCertificado` / `NoCertificadoSAT`).
    fn no_certificado(&self) -> String;
    /// The certificate, DER in base64 (`Certificado`).
    fn certificado_base64(&self) -> String;
    /// RSA PKCS#1 v1.5 signature with SHA-256 of `mensaje`.
    fn firmar_sha256(&self, mensaje: &[u8]) -> Result<Vec<u8>, String>;
}

/// Why sealing or verifying failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorSello {
    /// The cadena original could not be built.
    #[error(transparent)]
    Cadena(#[from] CadenaError),
    /// The signer failed.
    #[error("no se pudo firmar: {0}")]
    Firma(String),
    /// The document has no `Sello` (it must be sealed before stamping).
    #[error("el comprobante no está sellado")]
    SinSello,
    /// `Sello`/`SelloSAT`/`Certificado` is not valid base64.
    #[error("{campo} no es base64 válido")]
    Base64 {
        /// Attribute name.
        campo: &'static str,
    },
    /// The certificate could not be read.
    #[error("certificado inválido: {0}")]
    Certificado(String),
    /// `NoCertificado` does not match the certificate.
    #[error("NoCertificado {declarado} no corresponde al certificado {real}")]
    NoCertificadoDistinto {
        /// Value in the document.
        declarado: String,
        /// Number of the embedded certificate.
        real: String,
    },
    /// The signature does not verify.
    #[error("el sello no corresponde a la cadena original")]
    SelloInvalido,
    /// `SelloCFD` of the TFD differs from the comprobante's `Sello`.
    #[error("SelloCFD del timbre no coincide con el Sello del comprobante")]
    SelloCfdDistinto,
    /// The document has no TimbreFiscalDigital.
    #[error("el comprobante no tiene TimbreFiscalDigital")]
    SinTimbre,
    /// Malformed document.
    #[error(transparent)]
    Parseo(#[from] crate::parser::ErrorParseo),
    /// A value cannot be written as XML.
    #[error(transparent)]
    Escritura(#[from] crate::escritura::ErrorEscritura),
}

/// Fills `NoCertificado` and `Certificado`, computes the cadena original from the model
/// and fills `Sello`. Returns the cadena that was signed.
pub fn sellar(comprobante: &mut Comprobante, firmante: &impl Firmante) -> Result<String, ErrorSello> {
    comprobante.no_certificado = firmante.no_certificado();
    comprobante.certificado = firmante.certificado_base64();
    let cadena = cadena::desde_comprobante(comprobante)?;
    let firma = firmante.firmar_sha256(cadena.as_bytes()).map_err(ErrorSello::Firma)?;
    comprobante.sello = STANDARD.encode(firma);
    Ok(cadena)
}

/// Decodes a base64 attribute (whitespace inside is tolerated, as in pretty-printed XML).
pub(crate) fn decodificar(valor: &str, campo: &'static str) -> Result<Vec<u8>, ErrorSello> {
    let limpio: String = valor.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    STANDARD.decode(limpio).map_err(|_| ErrorSello::Base64 { campo })
}

impl Firmante for Credential {
    fn no_certificado(&self) -> String {
        self.certificate().no_certificado().to_owned()
    }
    fn certificado_base64(&self) -> String {
        self.certificate().base64()
    }
    fn firmar_sha256(&self, mensaje: &[u8]) -> Result<Vec<u8>, String> {
        self.sign_sha256(mensaje).map_err(|error| error.to_string())
    }
}

/// What a successful seal verification established.
#[derive(Clone, Debug)]
pub struct SelloVerificado {
    /// The cadena original that the seal signs.
    pub cadena: String,
    /// The embedded certificate (its RFC, validity and kind are for the caller to judge:
    /// SAT requires a CSD of the issuer valid at `Fecha`).
    pub certificado: Certificate,
}

/// Verifies the `Sello` of any CFDI 4.0 given as XML (received invoices): cadena original
/// from the XML itself, RSA-SHA256 with the embedded `Certificado`, and `NoCertificado`
/// equal to the certificate's number.
pub fn verificar_sello_xml(xml: &str) -> Result<SelloVerificado, ErrorSello> {
    let documento = parser::documento(xml).map_err(parser::ErrorParseo::from)?;
    let raiz = documento.root_element();
    let cadena = cadena::desde_documento(&documento)?;
    verificar(
        cadena,
        raiz.attribute("Sello").unwrap_or(""),
        raiz.attribute("Certificado").unwrap_or(""),
        raiz.attribute("NoCertificado").unwrap_or(""),
    )
}

/// Verifies the `Sello` of a comprobante in the model.
pub fn verificar_sello(comprobante: &Comprobante) -> Result<SelloVerificado, ErrorSello> {
    let cadena = cadena::desde_comprobante(comprobante)?;
    verificar(cadena, &comprobante.sello, &comprobante.certificado, &comprobante.no_certificado)
}

fn verificar(
    cadena: String,
    sello: &str,
    certificado: &str,
    no_certificado: &str,
) -> Result<SelloVerificado, ErrorSello> {
    if sello.trim().is_empty() {
        return Err(ErrorSello::SinSello);
    }
    let firma = decodificar(sello, "Sello")?;
    let der = decodificar(certificado, "Certificado")?;
    let certificado = Certificate::from_der(&der).map_err(|error| ErrorSello::Certificado(error.to_string()))?;
    if certificado.no_certificado() != no_certificado.trim() {
        return Err(ErrorSello::NoCertificadoDistinto {
            declarado: no_certificado.to_owned(),
            real: certificado.no_certificado().to_owned(),
        });
    }
    certificado.verify_sha256(cadena.as_bytes(), &firma).map_err(|_| ErrorSello::SelloInvalido)?;
    Ok(SelloVerificado { cadena, certificado })
}

/// Verifies a TFD's `SelloSAT` against the stamping certificate named by its
/// `NoCertificadoSAT` (the caller looks it up), and that `SelloCFD` equals the CFDI's
/// `Sello`. Works on the XML of a stamped CFDI.
pub fn verificar_timbre_xml(xml: &str, certificado_sat: &Certificate) -> Result<String, ErrorSello> {
    let comprobante = parser::parsear(xml)?;
    let cadena_tfd = tfd::cadena_original_de_xml(xml)?;
    let tfd = comprobante.timbre().ok_or(ErrorSello::SinTimbre)?;
    if tfd.sello_cfd.trim() != comprobante.sello.trim() {
        return Err(ErrorSello::SelloCfdDistinto);
    }
    verificar_firma_tfd(&cadena_tfd, &tfd.sello_sat, &tfd.no_certificado_sat, certificado_sat)?;
    Ok(cadena_tfd)
}

/// As [`verificar_timbre_xml`], on the model.
pub fn verificar_timbre(comprobante: &Comprobante, certificado_sat: &Certificate) -> Result<String, ErrorSello> {
    let tfd = comprobante.timbre().ok_or(ErrorSello::SinTimbre)?;
    if tfd.sello_cfd.trim() != comprobante.sello.trim() {
        return Err(ErrorSello::SelloCfdDistinto);
    }
    let cadena_tfd = tfd::cadena_original(tfd);
    verificar_firma_tfd(&cadena_tfd, &tfd.sello_sat, &tfd.no_certificado_sat, certificado_sat)?;
    Ok(cadena_tfd)
}

fn verificar_firma_tfd(
    cadena_tfd: &str,
    sello_sat: &str,
    no_certificado_sat: &str,
    certificado: &Certificate,
) -> Result<(), ErrorSello> {
    if certificado.no_certificado() != no_certificado_sat.trim() {
        return Err(ErrorSello::NoCertificadoDistinto {
            declarado: no_certificado_sat.to_owned(),
            real: certificado.no_certificado().to_owned(),
        });
    }
    let firma = decodificar(sello_sat, "SelloSAT")?;
    certificado.verify_sha256(cadena_tfd.as_bytes(), &firma).map_err(|_| ErrorSello::SelloInvalido)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timbre::{self, DatosTimbre};
    use timbra_credentials::testgen::{self, Options};
    use time::macros::datetime;

    fn credencial(rfc: &str) -> Credential {
        let opciones =
            Options::csd(rfc, "EMPRESA DE PRUEBA", datetime!(2026-01-01 0:00 UTC), datetime!(2030-01-01 0:00 UTC));
        testgen::generate(&opciones).unwrap().credential().unwrap()
    }

    #[test]
    fn sellar_verificar_timbrar_y_detectar_alteraciones() {
        let xml = include_str!("../tests/golden/I_iva8.xml");
        let mut comprobante = parser::parsear(xml).unwrap();
        comprobante.complementos.clear();
        let csd = credencial("EKU9003173C9");
        let cadena = sellar(&mut comprobante, &csd).unwrap();
        let verificado = verificar_sello(&comprobante).unwrap();
        assert_eq!(verificado.cadena, cadena);
        let escrito = crate::escritura::escribir(&comprobante).unwrap();
        verificar_sello_xml(&escrito).unwrap();

        let pac = credencial("SPR190613I52");
        let datos = DatosTimbre {
            uuid: "5F2A8C3E-1B7D-4E9A-9C0F-3D6B8A2E7100".into(),
            fecha_timbrado: "2026-11-20T10:31:00".into(),
            rfc_prov_certif: "SPR190613I52".into(),
            leyenda: None,
        };
        let (timbrado, _) = timbre::timbrar_xml(&escrito, datos, &pac).unwrap();
        verificar_timbre_xml(&timbrado, pac.certificate()).unwrap();
        // The client's bytes are untouched: the seal still verifies after stamping.
        verificar_sello_xml(&timbrado).unwrap();
        let timbrado_modelo = parser::parsear(&timbrado).unwrap();
        let qr = timbre::expresion_impresa(&timbrado_modelo).unwrap();
        let fe = &timbrado_modelo.sello[timbrado_modelo.sello.len() - 8..];
        assert_eq!(
            qr,
            format!(
                "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=5F2A8C3E-1B7D-4E9A-9C0F-3D6B8A2E7100&re=EKU9003173C9&rr=H&amp;E951128469&tt={}&fe={fe}",
                timbre::formato_total_qr(&timbrado_modelo.total)
            )
        );

        let alterado = escrito.replace("Venta en región fronteriza", "Venta en region fronteriza");
        assert!(matches!(verificar_sello_xml(&alterado), Err(ErrorSello::SelloInvalido)));
        assert!(matches!(
            verificar_timbre_xml(&timbrado, csd.certificate()),
            Err(ErrorSello::NoCertificadoDistinto { .. })
        ));
    }
}
