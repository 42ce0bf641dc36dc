//! The server's one integration-test crate (one link on 2 cores): every module here runs the
//! real app over HTTP against SQLite and, when configured, PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod catalogos;
mod cfdi;
mod cli;
mod complementos;
mod correo;
mod correo_nomina;
mod docs;
mod fetch_sat;
mod fiel;
mod foundation;
mod hardening;
#[allow(dead_code)]
mod harness;
mod instances;
mod jobs;
mod live;
mod marca;
mod mcp;
mod nomina;
mod nomina_anual;
mod nomina_timbrado;
mod observability;
mod pagos;
mod panel;
mod panel_espanol;
mod panel_marca;
mod panel_paginas;
mod receiver;
mod receptor;
mod recibidos;
mod recibos;
mod retenciones;
mod retenciones_recibidas;
mod security;
mod smtp;
mod storage;
mod textos;
mod validar;
mod webhooks;
mod zip;
