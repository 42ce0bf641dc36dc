//! Integration tests against SAT's own tools and files (the oracle): xmllint with SAT's
//! XSD, xsltproc with SAT's XSLT, openssl for seals, and the samples in `shared/sat`.
//!
//! Tests that need `shared/sat` skip with a loud message when it is absent, and fail when
//! `TIMBRA_REQUIRE_SAT=1`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod aceptacion_rechazo;
mod carta_porte;
mod catalogos;
mod comun;
mod documentos;
mod golden;
mod muestras;
mod oraculo;
mod propiedades;
