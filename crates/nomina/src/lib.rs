//! Mexican payroll arithmetic for one pay period: gross to net.
//!
//! * ISR withholding with the Art. 96 LISR tariffs of Anexo 8 RMF (2026, and 2023–2025 for
//!   back-pay), period tariffs derived from the daily table as Anexo 8 prints them;
//! * subsidio para el empleo (decree DOF 2024-05-01 as amended for 2026), applied only
//!   against ISR and never paid in cash;
//! * the Art. 96 minimum-wage exemption and the Art. 36 LSS employer-absorbed IMSS share;
//! * IMSS worker quotas (Arts. 25, 106, 107, 147 and 168 LSS) on the SBC capped at 25 UMA;
//! * Art. 93 LISR exempt parts of aguinaldo, PTU, prima vacacional, prima dominical and
//!   overtime.
//!
//! Through the year (issue 35; rules and figures in `shared/ref/PAYROLL_EXTRAS_2026.md`):
//!
//! * [`aguinaldo`]: LFT Art. 87, 30 UMA exemption, ISR by ART96 or RLISR174
//!   ([`isr_extraordinario`]);
//! * [`ptu`]: LFT Arts. 123–127 distribution, 15 UMA exemption;
//! * [`finiquito`]: finiquito and liquidación by motivo, Art. 93 XIII / 96 LISR separation tax
//!   and the Nómina 1.2 `SeparacionIndemnizacion` values;
//! * [`ajuste_anual`]: Art. 97 LISR annual adjustment with the Art. 152 annual tariff;
//! * [`imss_patronal`]: employer and worker IMSS/INFONAVIT dues of a month per branch;
//! * [`sua`] and [`idse`]: the SUA import files and the IDSE batch file ([`ancho_fijo`]);
//! * [`antiguedad`]: the day counts, years of service and vacation table they share.
//!
//! Pure: no I/O, no clock. The payment date is always an argument.
//!
//! ```
//! use timbra_nomina::{CalculoNomina, calcular_solicitud};
//! use time::macros::date;
//!
//! let cuerpo = r#"{"salarioDiario": "500.00", "salarioDiarioIntegrado": 522.47,
//!                  "diasPagados": 15, "periodicidad": "QUINCENAL", "riesgoPuesto": 1,
//!                  "fechaPago": "2026-03-15"}"#;
//! let solicitud: CalculoNomina = serde_json::from_str(cuerpo).unwrap();
//! let resultado = calcular_solicitud(&solicitud, date!(2026 - 03 - 15)).unwrap();
//! assert!(resultado.neto_a_pagar < resultado.percepciones.total_percepciones);
//! ```

// Tests may unwrap; the library itself is linted without this (the lib target builds without
// `cfg(test)` under `clippy --all-targets`).
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

use rust_decimal::{Decimal, RoundingStrategy};

pub mod aguinaldo;
pub mod ajuste_anual;
pub mod ancho_fijo;
pub mod antiguedad;
pub mod calculo;
pub mod catalogos;
pub mod entrada;
pub mod finiquito;
pub mod identificadores;
pub mod idse;
pub mod imss_patronal;
pub mod isr_extraordinario;
pub mod parametros;
pub mod periodo;
pub mod ptu;
pub mod resultado;
pub mod sua;

pub use calculo::{calcular, calcular_con_parametros, calcular_lote, calcular_solicitud};
pub use entrada::{
    CalculoNomina, Campo, DeduccionCruda, DeduccionValidada, EntradaValidada, PercepcionCruda, PercepcionValidada,
    Periodicidad, Problema, RiesgoPuesto, Zona,
};
pub use parametros::{Parametros, SinParametros, TablaIsr, Tramo};
pub use resultado::{
    Deducciones, Desglose, DetallePercepcion, ImssDesglose, OtrosPagos, Percepciones, ResultadoNomina,
};

/// Rounds an amount to centavos, half away from zero (Anexo 20: amounts with the currency's
/// two decimals; 0.005 rounds up).
pub fn redondear(monto: Decimal) -> Decimal {
    monto.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// [`redondear`] and fix the scale at two decimals, so the JSON shows `700.00`, not `700`.
pub(crate) fn centavos(monto: Decimal) -> Decimal {
    let mut redondeado = redondear(monto);
    redondeado.rescale(2);
    redondeado
}
