//! The PAC simulator on loopback, driven by the real Finkok client of `timbra-pac`: covers
//! both crates end to end. Clock pinned at [`AHORA`].

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cancelacion;
mod comun;
mod receptor;
mod timbrado;
