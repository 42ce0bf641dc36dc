//! Integration tests of timbra-credentials: SAT test certificates and keys,
//! OpenSSL and xmlsec1 as oracles. SAT files are read at run time from
//! `certs/` in `$TIMBRA_SAT_DIR` or `../shared/sat`; when absent the tests
//! skip and report it (`./test.sh`), and fail when `TIMBRA_REQUIRE_SAT=1`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod sat_certs;
mod testgen;
mod xmldsig;
