//! # timbra-sat
//!
//! A client of SAT's "Descarga Masiva de CFDI y Retenciones" web service v1.5
//! (PROTOCOLS.md §1), signed with the taxpayer's FIEL:
//!
//! * [`mensajes`]: the pure translator. Builds the signed SOAP envelopes (`Autentica` with a
//!   WS-Security timestamp; `SolicitaDescargaRecibidos`, `SolicitaDescargaEmitidos`,
//!   `SolicitaDescargaFolio`, `VerificaSolicitudDescarga`, `Descargar` with an enveloped
//!   exclusive-c14n rsa-sha1 signature) and reads SAT's answers.
//! * [`paquete`]: the pure package reader. Unzips, parses each CFDI with `timbra_cfdi`,
//!   verifies its `Sello`, verifies the TFD `SelloSAT` when SAT's certificate is known, reads
//!   metadata rows; a Retenciones 2.0 document (root `retenciones:Retenciones`, from the
//!   retention service) is parsed with `timbra_retenciones` and its seals checked the same way.
//! * [`cliente`]: the transport ([`ClienteSat`]) over reqwest: token kept until it expires,
//!   one re-authentication on `CodEstatus` 300, polling with a configured pause.
//! * [`SatError`] maps every failure to the error code of SPEC.md ([`SatError::codigo`]).
//!
//! `timbra-sim` serves the same protocol on loopback (`timbra sim sat`).

#![warn(missing_docs)]

pub mod cliente;
mod error;
pub mod mensajes;
pub mod paquete;

pub use cliente::{ClienteSat, Reloj, SatConfig, Servicio, UrlsServicio};
pub use error::SatError;
pub use mensajes::{
    EstadoComprobante, EstadoSolicitud, Periodo, SolicitudAceptada, SolicitudEmitidos, SolicitudRecibidos,
    TipoSolicitud, Token, Verificacion,
};
pub use paquete::{
    CertificadosSat, DocumentoCfdi, DocumentoIlegible, DocumentoRetencion, EstadoSello, EstadoTimbre, LimitePaquete,
    LimitesPaquete, Metadato, Paquete, leer_paquete, leer_paquete_con_limites,
};

#[cfg(test)]
mod fuzz_tests {
    use proptest::prelude::*;

    use crate::{CertificadosSat, leer_paquete, mensajes, paquete};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// SAT's answers are read without panicking whatever arrives.
        #[test]
        fn answers_never_panic(parts in proptest::collection::vec(
            prop_oneof![
                Just("<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\">"), Just("</s:Envelope>"),
                Just("<s:Body>"), Just("</s:Body>"), Just("<s:Fault>"), Just("</s:Fault>"),
                Just("<VerificaSolicitudDescargaResult CodEstatus=\"5000\" EstadoSolicitud=\"3\">"),
                Just("</VerificaSolicitudDescargaResult>"), Just("<IdsPaquetes>"), Just("</IdsPaquetes>"),
                Just("<h:respuesta xmlns:h=\"urn:x\" CodEstatus=\"5000\"/>"), Just("<Paquete>"), Just("</Paquete>"),
                Just("<AutenticaResult>"), Just("</AutenticaResult>"), Just("<u:Created>"), Just("</u:Created>"),
                Just("UEsDBA=="), Just("2026-11-20T18:00:00.000Z"), Just("&amp;"), Just("~"), Just("\r\n"),
            ],
            0..30,
        )) {
            let xml: String = parts.concat();
            let _ = mensajes::leer_autenticacion(&xml);
            let _ = mensajes::leer_solicitud("SolicitaDescargaRecibidos", &xml);
            let _ = mensajes::leer_verificacion(&xml);
            let _ = mensajes::leer_descarga(&xml);
            let _ = mensajes::leer_fault(&xml);
            let _ = paquete::leer_metadatos(&xml);
        }

        /// Random bytes are an error (or an empty package), never a panic.
        #[test]
        fn packages_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            prop_assert!(leer_paquete(&bytes, &CertificadosSat::vacio()).is_err());
            let mut zip = b"PK\x03\x04".to_vec();
            zip.extend_from_slice(&bytes);
            let _ = leer_paquete(&zip, &CertificadosSat::vacio());
        }

        /// Metadata text of any shape parses without panicking; every row has a UUID.
        #[test]
        fn metadata_never_panics(text in "[A-Za-z0-9~\r\n -]{0,400}") {
            for fila in paquete::leer_metadatos(&text) {
                prop_assert!(!fila.uuid.is_empty());
            }
        }
    }
}
