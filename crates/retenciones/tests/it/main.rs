//! Integration tests of timbra-retenciones against SAT's own tools and files (the oracle):
//! xmllint with SAT's XSD, xsltproc with SAT's `retenciones.xslt`, openssl for seals, and
//! the SAT test CSD in `shared/sat/certs`.
//!
//! Tests that need `shared/sat` or the tools skip with a loud message when they are absent,
//! and fail when `TIMBRA_REQUIRE_SAT=1`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod catalogos;
mod comun;
mod documentos;
mod ida_y_vuelta;
mod oraculo;
mod reglas;
