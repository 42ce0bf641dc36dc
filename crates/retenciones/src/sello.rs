//! Sealing and stamping. The `Sello` of a retention document is, as for CFDI 4.0, the
//! base64 RSA PKCS#1 v1.5 signature with SHA-256 over the UTF-8 cadena original, with the
//! issuer's CSD; `Certificado` is the CSD in base64 DER and `NoCertificado` its number.
//!
//! Signing goes through timbra-cfdi's [`Firmante`] (implemented by
//! [`timbra_credentials::Credential`]); the TimbreFiscalDigital 1.1 is timbra-cfdi's own
//! ([`timbra_cfdi::timbre::generar_timbre`]): its cadena (`cadenaoriginal_TFD_1_1.xslt`) does
//! not depend on the document it stamps.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use timbra_cfdi::escritura::ErrorEscritura;
use timbra_cfdi::timbre::generar_timbre;
use timbra_credentials::Certificate;

pub use timbra_cfdi::sello::{Firmante, SelloVerificado};
pub use timbra_cfdi::timbre::DatosTimbre;

use crate::cadena::{self, ErrorCadena};
use crate::model::{Complemento, Retenciones, TimbreFiscalDigital};
use crate::parser::ErrorParseo;

/// Why sealing, stamping or verifying failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorSello {
    /// The cadena original could not be built.
    #[error(transparent)]
    Cadena(#[from] ErrorCadena),
    /// The signer failed.
    #[error("no se pudo firmar: {0}")]
    Firma(String),
    /// The document has no `Sello`.
    #[error("el comprobante de retenciones no está sellado")]
    SinSello,
    /// `Sello` or `Certificado` is not valid base64.
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
    /// Malformed document.
    #[error(transparent)]
    Parseo(#[from] ErrorParseo),
    /// Stamping failed (timbra-cfdi's TFD generation).
    #[error("no se pudo timbrar: {0}")]
    Timbre(String),
    /// A value cannot be written as XML.
    #[error(transparent)]
    Escritura(#[from] ErrorEscritura),
}

/// Fills `NoCertificado` and `Certificado`, computes the cadena original from the model and
/// fills `Sello`. Returns the cadena that was signed.
///
/// # Errors
/// [`ErrorSello::Cadena`] or [`ErrorSello::Firma`].
pub fn sellar(r: &mut Retenciones, firmante: &impl Firmante) -> Result<String, ErrorSello> {
    r.no_certificado = firmante.no_certificado();
    r.certificado = firmante.certificado_base64();
    let cadena = cadena::desde_retenciones(r)?;
    let firma = firmante.firmar_sha256(cadena.as_bytes()).map_err(ErrorSello::Firma)?;
    r.sello = STANDARD.encode(firma);
    Ok(cadena)
}

/// Verifies the `Sello` of a document in the model.
///
/// # Errors
/// Why it does not verify.
pub fn verificar_sello(r: &Retenciones) -> Result<SelloVerificado, ErrorSello> {
    let cadena = cadena::desde_retenciones(r)?;
    verificar(cadena, &r.sello, &r.certificado, &r.no_certificado)
}

/// Verifies the `Sello` of any Retenciones 2.0 given as XML (received documents): the
/// cadena from the XML itself, RSA-SHA256 with the embedded `Certificado`, and
/// `NoCertificado` equal to the certificate's number.
///
/// # Errors
/// Why it does not verify.
pub fn verificar_sello_xml(xml: &str) -> Result<SelloVerificado, ErrorSello> {
    let documento = timbra_cfdi::parser::documento(xml).map_err(ErrorParseo::from)?;
    let raiz = documento.root_element();
    let cadena = cadena::desde_documento(&documento)?;
    verificar(
        cadena,
        raiz.attribute("Sello").unwrap_or(""),
        raiz.attribute("Certificado").unwrap_or(""),
        raiz.attribute("NoCertificado").unwrap_or(""),
    )
}

fn decodificar(valor: &str, campo: &'static str) -> Result<Vec<u8>, ErrorSello> {
    let limpio: String = valor.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    STANDARD.decode(limpio).map_err(|_| ErrorSello::Base64 { campo })
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

/// Builds the TimbreFiscalDigital 1.1 for a sealed retention document (`SelloCFD` =
/// `Sello`; `NoCertificadoSAT` and `SelloSAT` from the stamping credential, RSA-SHA256 over
/// the TFD cadena) and appends it to `Complemento`.
///
/// # Errors
/// [`ErrorSello::SinSello`] when the document is not sealed, [`ErrorSello::Timbre`] when
/// signing fails.
pub fn timbrar(
    r: &mut Retenciones,
    datos: DatosTimbre,
    firmante_sat: &impl Firmante,
) -> Result<TimbreFiscalDigital, ErrorSello> {
    if r.sello.trim().is_empty() {
        return Err(ErrorSello::SinSello);
    }
    let tfd = generar_timbre(&r.sello, datos, firmante_sat).map_err(|error| ErrorSello::Timbre(error.to_string()))?;
    r.complementos.push(Complemento::TimbreFiscalDigital(Box::new(tfd.clone())));
    Ok(tfd)
}

/// Verifies the `SelloSAT` of the document's TFD against the stamping certificate named by
/// its `NoCertificadoSAT`, and that `SelloCFD` is the document's `Sello`. Returns the TFD
/// cadena.
///
/// # Errors
/// Why it does not verify ([`ErrorSello::SinSello`] when there is no TFD).
pub fn verificar_timbre(r: &Retenciones, certificado_sat: &Certificate) -> Result<String, ErrorSello> {
    let tfd = r.timbre().ok_or(ErrorSello::SinSello)?;
    if tfd.sello_cfd.trim() != r.sello.trim() {
        return Err(ErrorSello::SelloInvalido);
    }
    if certificado_sat.no_certificado() != tfd.no_certificado_sat.trim() {
        return Err(ErrorSello::NoCertificadoDistinto {
            declarado: tfd.no_certificado_sat.clone(),
            real: certificado_sat.no_certificado().to_owned(),
        });
    }
    let cadena_tfd = cadena::tfd_desde_modelo(tfd);
    let firma = decodificar(&tfd.sello_sat, "SelloSAT")?;
    certificado_sat.verify_sha256(cadena_tfd.as_bytes(), &firma).map_err(|_| ErrorSello::SelloInvalido)?;
    Ok(cadena_tfd)
}
