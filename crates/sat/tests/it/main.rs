//! timbra-sat end to end: the client against `timbra-sim`'s SAT on loopback (every state
//! and refusal), the signed XML checked by `xmlsec1`, recorded SAT answers read by the
//! translator. Clocks are pinned inside the test FIEL's validity (2023-05-18 → 2027-05-17).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod comun;
mod estados;
mod flujo;
mod grabados;
mod xmlsec;
