//! Payroll, one file per resource: the public calculator (`calcular`), employees
//! (`empleados`), incidences (`incidencias`) and pay periods with their calculation
//! (`periodos`), and the stamping (`timbrar`) and cancellation (`cancelar`) of its receipts
//! (`cfdi::nomina`) and their files (`recibos`). SQL lives in `db::empleados`, `db::incidencias` and `db::nomina`; the
//! calculation of a period in `timbra_services::nomina::calculo`. Every route but the calculator needs
//! CONTADOR or higher (API keys: `nomina:view` to read, `nomina:manage` to change).

pub mod ajuste_anual;
pub mod baja;
pub mod calcular;
pub mod cancelar;
pub mod empleados;
pub mod imss;
pub mod incidencias;
pub mod periodos;
pub mod ptu;
pub mod recibos;
pub mod timbrar;
