//! timbra-store's integration tests: each area's queries on a fresh SQLite file and, when
//! `TIMBRA_TEST_POSTGRES_URL` is set, a fresh PostgreSQL schema.

// Tests may unwrap.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod catalogos;
mod harness;
