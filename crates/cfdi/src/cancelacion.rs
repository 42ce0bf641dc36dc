//! Unsigned cancellation request (`Cancelacion`, namespace `http://cancelacfd.sat.gob.mx`),
//! PROTOCOLS.md §2.4. The XMLDSig enveloped signature is added by
//! `timbra_credentials::xmldsig` (or the server), not here.
//!
//! The document is written already in canonical form (inclusive C14N: namespace
//! declarations first, attributes sorted, explicit end tags, no whitespace), so the digest
//! the signer computes over its C14N equals the digest of these bytes.

use crate::escritura::escapar_atributo;
use crate::timbre::uuid_valido;

/// Namespace of the cancellation request.
pub const NS_CANCELACION: &str = "http://cancelacfd.sat.gob.mx";

/// c_MotivoCancelacion (RMF regla 2.7.1.47; PROTOCOLS.md §2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MotivoCancelacion {
    /// Comprobante emitido con errores con relación (requires `FolioSustitucion`).
    ErroresConRelacion,
    /// Comprobante emitido con errores sin relación.
    ErroresSinRelacion,
    /// No se llevó a cabo la operación.
    OperacionNoRealizada,
    /// Operación nominativa relacionada en una factura global.
    OperacionEnFacturaGlobal,
}

impl MotivoCancelacion {
    /// SAT's code.
    pub const fn codigo(self) -> &'static str {
        match self {
            Self::ErroresConRelacion => "01",
            Self::ErroresSinRelacion => "02",
            Self::OperacionNoRealizada => "03",
            Self::OperacionEnFacturaGlobal => "04",
        }
    }

    /// The motive with this code.
    pub fn desde_codigo(codigo: &str) -> Option<Self> {
        [Self::ErroresConRelacion, Self::ErroresSinRelacion, Self::OperacionNoRealizada, Self::OperacionEnFacturaGlobal]
            .into_iter()
            .find(|motivo| motivo.codigo() == codigo)
    }
}

/// One UUID to cancel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FolioCancelacion {
    /// UUID of the CFDI to cancel.
    pub uuid: String,
    /// Why.
    pub motivo: MotivoCancelacion,
    /// UUID of the replacement CFDI (only and always with motive 01).
    pub folio_sustitucion: Option<String>,
}

/// The request: issuer, local date and time, folios.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolicitudCancelacion {
    /// RFC of the issuer (the CSD that signs must be of this RFC).
    pub rfc_emisor: String,
    /// `AAAA-MM-DDThh:mm:ss`, local time, no zone.
    pub fecha: String,
    /// Folios (SAT expects one UUID per request in practice).
    pub folios: Vec<FolioCancelacion>,
}

/// Invalid request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorCancelacion {
    /// A field breaks a rule.
    #[error("{campo}: {mensaje}")]
    Invalido {
        /// Field path.
        campo: String,
        /// Why.
        mensaje: String,
    },
}

/// Writes the unsigned `Cancelacion` document in canonical form.
pub fn escribir_cancelacion(solicitud: &SolicitudCancelacion) -> Result<String, ErrorCancelacion> {
    let invalido = |campo: String, mensaje: &str| ErrorCancelacion::Invalido { campo, mensaje: mensaje.to_owned() };
    if solicitud.folios.is_empty() {
        return Err(invalido("Folios".into(), "se requiere al menos un folio"));
    }
    if let Err(error) = crate::tipos::Rfc::new(&solicitud.rfc_emisor) {
        return Err(invalido("RfcEmisor".into(), &error.to_string()));
    }
    // XML 1.0 cannot carry control characters: refuse rather than write a broken document.
    if crate::tipos::primer_caracter_no_xml(&solicitud.fecha).is_some() {
        return Err(invalido("Fecha".into(), "contiene un carácter de control que XML no admite"));
    }
    let mut xml = String::with_capacity(512);
    xml.push_str("<Cancelacion xmlns=\"");
    xml.push_str(NS_CANCELACION);
    xml.push_str(
        "\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"",
    );
    // C14N: attributes in lexicographic order (Fecha, RfcEmisor).
    xml.push_str(&format!(
        " Fecha=\"{}\" RfcEmisor=\"{}\">",
        escapar_atributo(&solicitud.fecha),
        escapar_atributo(&solicitud.rfc_emisor)
    ));
    for (indice, folio) in solicitud.folios.iter().enumerate() {
        if !uuid_valido(&folio.uuid) {
            return Err(invalido(format!("Folios[{indice}].UUID"), "no es un UUID"));
        }
        // PROTOCOLS.md §2.5: motive 01 requires the replacement's UUID; others must not carry it.
        match (folio.motivo, &folio.folio_sustitucion) {
            (MotivoCancelacion::ErroresConRelacion, None) => {
                return Err(invalido(format!("Folios[{indice}].FolioSustitucion"), "requerido con motivo 01"));
            }
            (MotivoCancelacion::ErroresConRelacion, Some(sustituto)) if !uuid_valido(sustituto) => {
                return Err(invalido(format!("Folios[{indice}].FolioSustitucion"), "no es un UUID"));
            }
            (MotivoCancelacion::ErroresConRelacion, Some(_)) => {}
            (_, Some(_)) => {
                return Err(invalido(format!("Folios[{indice}].FolioSustitucion"), "solo se usa con motivo 01"));
            }
            (_, None) => {}
        }
        xml.push_str("<Folios><Folio");
        // C14N order: FolioSustitucion, Motivo, UUID.
        if let Some(sustituto) = &folio.folio_sustitucion {
            xml.push_str(&format!(" FolioSustitucion=\"{}\"", escapar_atributo(sustituto)));
        }
        xml.push_str(&format!(" Motivo=\"{}\" UUID=\"{}\"></Folio></Folios>", folio.motivo.codigo(), folio.uuid));
    }
    xml.push_str("</Cancelacion>");
    Ok(xml)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documento_de_phpcfdi() {
        // PROTOCOLS.md §2.4: the c14n bytes behind phpcfdi/xml-cancelacion's fixture digest.
        let solicitud = SolicitudCancelacion {
            rfc_emisor: "EKU9003173C9".into(),
            fecha: "2022-01-06T17:49:12".into(),
            folios: vec![FolioCancelacion {
                uuid: "62B00C5E-4187-4336-B569-44E0030DC729".into(),
                motivo: MotivoCancelacion::ErroresSinRelacion,
                folio_sustitucion: None,
            }],
        };
        let xml = escribir_cancelacion(&solicitud).unwrap();
        assert!(xml.starts_with("<Cancelacion xmlns=\"http://cancelacfd.sat.gob.mx\" xmlns:xsd="));
        assert!(xml.ends_with(
            "<Folios><Folio Motivo=\"02\" UUID=\"62B00C5E-4187-4336-B569-44E0030DC729\"></Folio></Folios></Cancelacion>"
        ));
        // Its SHA-1 must be the fixture's DigestValue; checked with openssl when present.
        if let Ok(mut hijo) = std::process::Command::new("openssl")
            .args(["dgst", "-sha1", "-binary"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
        {
            use std::io::Write;
            hijo.stdin.take().unwrap().write_all(xml.as_bytes()).unwrap();
            let salida = hijo.wait_with_output().unwrap();
            use base64::Engine;
            let digest = base64::engine::general_purpose::STANDARD.encode(salida.stdout);
            assert_eq!(digest, "28wlg0suJ57t4P4P+LshbcH5PYE=");
        }
        let mut sin_sustituto = solicitud.clone();
        sin_sustituto.folios[0].motivo = MotivoCancelacion::ErroresConRelacion;
        assert!(escribir_cancelacion(&sin_sustituto).is_err());
        let mut control = solicitud.clone();
        control.fecha = "2022-01-06T17:49:12\u{1}".into();
        assert!(
            matches!(escribir_cancelacion(&control), Err(ErrorCancelacion::Invalido { campo, .. }) if campo == "Fecha")
        );
        let mut rfc = solicitud;
        rfc.rfc_emisor = "EKU9003173C\u{7}".into();
        assert!(
            matches!(escribir_cancelacion(&rfc), Err(ErrorCancelacion::Invalido { campo, .. }) if campo == "RfcEmisor")
        );
    }
}
