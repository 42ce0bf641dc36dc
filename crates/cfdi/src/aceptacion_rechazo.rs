//! The receiver's answer to cancellation requests (`SolicitudAceptacionRechazo`, namespace
//! `http://cancelacfd.sat.gob.mx`), PROTOCOLS.md §2.4–2.5: for each UUID whose issuer asked
//! to cancel and SAT's rules say needs the receiver's acceptance, `Aceptacion` or `Rechazo`.
//! Sent through the receiver's PAC (Finkok `accept_reject_signature`).
//!
//! Like [`crate::cancelacion`], the unsigned document is written already in canonical form
//! (inclusive C14N: namespace declarations first, attributes sorted, explicit end tags, no
//! whitespace); [`firmar_aceptacion_rechazo`] signs it with the receiver's CSD through
//! `timbra_credentials::xmldsig::sign_enveloped_csd`, the same enveloped XMLDSig
//! (inclusive C14N, rsa-sha1) as the cancellation request.
//!
//! Shape (phpcfdi/finkok `tests/_files/cancel-accept-reject-format.xml`, satcfdi
//! `create/cancela/aceptacionrechazo.py`):
//!
//! ```text
//! SolicitudAceptacionRechazo xmlns="http://cancelacfd.sat.gob.mx" xmlns:xsd=… xmlns:xsi=…
//!     Fecha="2019-01-13T14:15:16" RfcPacEnviaSolicitud="CVD110412TF6" RfcReceptor="EKU9003173C9"
//!   Folios
//!     UUID        4CE93193-9E57-4BB0-9E03-09BAB53D392E
//!     Respuesta   Aceptacion | Rechazo
//!   Signature …
//! ```

use timbra_credentials::{Credential, xmldsig};

use crate::cancelacion::{ErrorCancelacion, NS_CANCELACION};
use crate::escritura::escapar_atributo;
use crate::timbre::uuid_valido;

/// The receiver's answer for one UUID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Respuesta {
    /// The receiver agrees: SAT cancels the CFDI ("Cancelado con aceptación").
    Aceptacion,
    /// The receiver refuses: the CFDI stays valid ("Solicitud rechazada").
    Rechazo,
}

impl Respuesta {
    /// The text SAT expects in `Respuesta`.
    pub const fn texto(self) -> &'static str {
        match self {
            Respuesta::Aceptacion => "Aceptacion",
            Respuesta::Rechazo => "Rechazo",
        }
    }

    /// The answer written as `texto` (`Aceptacion` / `Rechazo`, exactly).
    pub fn desde_texto(texto: &str) -> Option<Self> {
        match texto {
            "Aceptacion" => Some(Respuesta::Aceptacion),
            "Rechazo" => Some(Respuesta::Rechazo),
            _ => None,
        }
    }
}

/// One UUID and its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FolioRespuesta {
    /// UUID of the CFDI received whose cancellation was requested.
    pub uuid: String,
    /// Accept or reject.
    pub respuesta: Respuesta,
}

/// The receiver's answer document before signing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolicitudAceptacionRechazo {
    /// RFC of the receiver: the CSD that signs must be of this RFC (SAT answers `1003`
    /// otherwise).
    pub rfc_receptor: String,
    /// RFC of the PAC that sends the answer (Finkok: `CVD110412TF6`).
    pub rfc_pac_envia_solicitud: String,
    /// `AAAA-MM-DDThh:mm:ss`, local time, no zone.
    pub fecha: String,
    /// One `Folios` element per UUID.
    pub folios: Vec<FolioRespuesta>,
}

/// Why the answer could not be written or signed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorAceptacionRechazo {
    /// A field breaks a rule.
    #[error(transparent)]
    Invalida(#[from] ErrorCancelacion),
    /// The signing certificate is of another RFC than `RfcReceptor`.
    #[error("el certificado es de {certificado}, no del receptor {receptor}")]
    OtroRfc {
        /// RFC of the certificate.
        certificado: String,
        /// `RfcReceptor`.
        receptor: String,
    },
    /// The credential could not sign (not a CSD, key failure).
    #[error("no se pudo firmar: {0}")]
    Firma(#[from] timbra_credentials::Error),
}

fn invalida(campo: impl Into<String>, mensaje: &str) -> ErrorCancelacion {
    ErrorCancelacion::Invalido { campo: campo.into(), mensaje: mensaje.to_owned() }
}

/// Writes the unsigned `SolicitudAceptacionRechazo` in canonical form.
///
/// # Errors
/// [`ErrorCancelacion::Invalido`] for no folios, a bad RFC, a control character in `Fecha`,
/// or a UUID that is not one.
pub fn escribir_aceptacion_rechazo(solicitud: &SolicitudAceptacionRechazo) -> Result<String, ErrorCancelacion> {
    if solicitud.folios.is_empty() {
        return Err(invalida("Folios", "se requiere al menos un folio"));
    }
    if let Err(error) = crate::tipos::Rfc::new(&solicitud.rfc_receptor) {
        return Err(invalida("RfcReceptor", &error.to_string()));
    }
    if let Err(error) = crate::tipos::Rfc::new(&solicitud.rfc_pac_envia_solicitud) {
        return Err(invalida("RfcPacEnviaSolicitud", &error.to_string()));
    }
    if crate::tipos::primer_caracter_no_xml(&solicitud.fecha).is_some() {
        return Err(invalida("Fecha", "contiene un carácter de control que XML no admite"));
    }
    let mut xml = String::with_capacity(256 + 96 * solicitud.folios.len());
    xml.push_str("<SolicitudAceptacionRechazo xmlns=\"");
    xml.push_str(NS_CANCELACION);
    xml.push_str(
        "\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"",
    );
    // C14N: attributes in lexicographic order (Fecha, RfcPacEnviaSolicitud, RfcReceptor).
    xml.push_str(&format!(
        " Fecha=\"{}\" RfcPacEnviaSolicitud=\"{}\" RfcReceptor=\"{}\">",
        escapar_atributo(&solicitud.fecha),
        escapar_atributo(&solicitud.rfc_pac_envia_solicitud),
        escapar_atributo(&solicitud.rfc_receptor)
    ));
    for (indice, folio) in solicitud.folios.iter().enumerate() {
        if !uuid_valido(&folio.uuid) {
            return Err(invalida(format!("Folios[{indice}].UUID"), "no es un UUID"));
        }
        xml.push_str(&format!(
            "<Folios><UUID>{}</UUID><Respuesta>{}</Respuesta></Folios>",
            folio.uuid,
            folio.respuesta.texto()
        ));
    }
    xml.push_str("</SolicitudAceptacionRechazo>");
    Ok(xml)
}

/// The signed `SolicitudAceptacionRechazo`, ready for the PAC: written by
/// [`escribir_aceptacion_rechazo`] and signed with the receiver's CSD (enveloped XMLDSig,
/// inclusive C14N, rsa-sha1, like the cancellation request).
///
/// # Errors
/// [`ErrorAceptacionRechazo::Invalida`], [`ErrorAceptacionRechazo::OtroRfc`] when the CSD is
/// not of `RfcReceptor`, [`ErrorAceptacionRechazo::Firma`] when it is not a CSD or cannot sign.
pub fn firmar_aceptacion_rechazo(
    solicitud: &SolicitudAceptacionRechazo,
    csd: &Credential,
) -> Result<String, ErrorAceptacionRechazo> {
    let sin_firma = escribir_aceptacion_rechazo(solicitud)?;
    let rfc_certificado = csd.certificate().rfc();
    if rfc_certificado != solicitud.rfc_receptor {
        return Err(ErrorAceptacionRechazo::OtroRfc {
            certificado: rfc_certificado.to_owned(),
            receptor: solicitud.rfc_receptor.clone(),
        });
    }
    Ok(xmldsig::sign_enveloped_csd(csd, &sin_firma)?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use timbra_credentials::testgen::{self, Options};
    use time::macros::datetime;

    fn solicitud() -> SolicitudAceptacionRechazo {
        SolicitudAceptacionRechazo {
            rfc_receptor: "H&E951128469".into(),
            rfc_pac_envia_solicitud: "CVD110412TF6".into(),
            fecha: "2026-11-21T10:00:00".into(),
            folios: vec![
                FolioRespuesta {
                    uuid: "4CE93193-9E57-4BB0-9E03-09BAB53D392E".into(),
                    respuesta: Respuesta::Aceptacion,
                },
                FolioRespuesta { uuid: "62B00C5E-4187-4336-B569-44E0030DC729".into(), respuesta: Respuesta::Rechazo },
            ],
        }
    }

    fn csd(rfc: &str) -> Credential {
        let opciones =
            Options::csd(rfc, "HERRERIA Y ELECTRICOS", datetime!(2025-01-01 0:00 UTC), datetime!(2029-01-01 0:00 UTC));
        testgen::generate(&opciones).unwrap().credential().unwrap()
    }

    #[test]
    fn documento_canonico() {
        let xml = escribir_aceptacion_rechazo(&solicitud()).unwrap();
        assert!(xml.starts_with(
            "<SolicitudAceptacionRechazo xmlns=\"http://cancelacfd.sat.gob.mx\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" \
             xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" Fecha=\"2026-11-21T10:00:00\" \
             RfcPacEnviaSolicitud=\"CVD110412TF6\" RfcReceptor=\"H&amp;E951128469\">"
        ));
        assert!(xml.ends_with(
            "<Folios><UUID>62B00C5E-4187-4336-B569-44E0030DC729</UUID><Respuesta>Rechazo</Respuesta></Folios>\
             </SolicitudAceptacionRechazo>"
        ));
        // Already canonical: its C14N is itself (so the digest is over these bytes).
        assert_eq!(xmldsig::canonicalize_document(&xml, xmldsig::C14n::Inclusive).unwrap(), xml);

        let mut vacia = solicitud();
        vacia.folios.clear();
        assert!(escribir_aceptacion_rechazo(&vacia).is_err());
        let mut uuid = solicitud();
        uuid.folios[1].uuid = "no-soy-uuid".into();
        assert!(matches!(
            escribir_aceptacion_rechazo(&uuid),
            Err(ErrorCancelacion::Invalido { campo, .. }) if campo == "Folios[1].UUID"
        ));
        let mut control = solicitud();
        control.fecha.push('\u{1}');
        assert!(escribir_aceptacion_rechazo(&control).is_err());
        assert_eq!(Respuesta::desde_texto("Rechazo"), Some(Respuesta::Rechazo));
        assert_eq!(Respuesta::desde_texto("rechazo"), None);
    }

    #[test]
    fn firmada_verifica_y_alterada_no() {
        let credencial = csd("H&E951128469");
        let xml = firmar_aceptacion_rechazo(&solicitud(), &credencial).unwrap();
        let verificado = xmldsig::verify(&xml).unwrap();
        assert_eq!(verificado.signed_element, "SolicitudAceptacionRechazo");
        assert_eq!(verificado.certificate.rfc(), "H&E951128469");
        let alterada = xml.replace("<Respuesta>Rechazo</Respuesta>", "<Respuesta>Aceptacion</Respuesta>");
        assert_eq!(xmldsig::verify(&alterada).unwrap_err(), timbra_credentials::Error::DigestMismatch);

        // The CSD must be the receiver's.
        let ajeno = csd("EKU9003173C9");
        assert!(matches!(firmar_aceptacion_rechazo(&solicitud(), &ajeno), Err(ErrorAceptacionRechazo::OtroRfc { .. })));
        // A signed document is not signed twice.
        assert!(xmldsig::sign_enveloped_csd(&credencial, &xml).is_err());
    }
}
