//! Payroll operations (issue 14, part A): the employee as the API shows it, the periodicities a
//! company pays with, and the calculation of a pay period (`calculo`), whose receipts keep what
//! stamping needs (`recibo`).
//!
//! A receipt's status: CALCULADO when a calculation wrote it (not stamped yet; SPEC's name),
//! then TIMBRADO (TIMBRADO_SANDBOX in sandbox) or PENDIENTE when a stamping attempt failed
//! (`detalleErrores` says why), and CANCELADO. Recalculating a period replaces its CALCULADO
//! and PENDIENTE receipts; once one is stamped the period cannot be recalculated (NOMINA_003).

pub mod ajuste_anual;
pub mod baja;
pub mod calculo;
pub mod empleados;
pub mod extraordinaria;
pub mod imss;
pub mod incidencias;
pub mod periodos;
pub mod ptu;
pub mod recibo;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use timbra_nomina::Periodicidad;
use timbra_store::empleados::EmpleadoRow;

/// The periodicities a company pays employees with, and their days (SPEC "Payroll period").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeriodicidadPago {
    /// 7 days.
    Semanal,
    /// 14 days.
    Catorcenal,
    /// 15 days.
    Quincenal,
    /// 30 days.
    Mensual,
}

impl PeriodicidadPago {
    /// Every one, for messages.
    pub const TODAS: [PeriodicidadPago; 4] = [
        PeriodicidadPago::Semanal,
        PeriodicidadPago::Catorcenal,
        PeriodicidadPago::Quincenal,
        PeriodicidadPago::Mensual,
    ];

    /// The stored and shown name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Semanal => "SEMANAL",
            Self::Catorcenal => "CATORCENAL",
            Self::Quincenal => "QUINCENAL",
            Self::Mensual => "MENSUAL",
        }
    }

    /// Reads a name in any case.
    pub fn parse(texto: &str) -> Option<Self> {
        let texto = texto.trim().to_uppercase();
        Self::TODAS.into_iter().find(|p| p.as_str() == texto)
    }

    /// The days a period of this periodicity pays (SPEC: 7, 14, 15 or 30).
    pub fn dias(self) -> u32 {
        match self {
            Self::Semanal => 7,
            Self::Catorcenal => 14,
            Self::Quincenal => 15,
            Self::Mensual => 30,
        }
    }

    /// The calculator's periodicity.
    pub fn calculo(self) -> Periodicidad {
        match self {
            Self::Semanal => Periodicidad::Semanal,
            Self::Catorcenal => Periodicidad::Catorcenal,
            Self::Quincenal => Periodicidad::Quincenal,
            Self::Mensual => Periodicidad::Mensual,
        }
    }
}

/// An employee.
#[derive(Serialize, Deserialize, ToSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Empleado {
    /// Id.
    pub id: String,
    /// The employer's number, unique in the company.
    pub num_empleado: String,
    /// Name as in the Constancia de Situación Fiscal.
    pub nombre: String,
    /// RFC, 13 characters (persona física).
    pub rfc: String,
    /// CURP.
    pub curp: String,
    /// NSS, 11 digits.
    pub nss: Option<String>,
    /// Postal code of the fiscal domicile.
    pub codigo_postal: String,
    /// AAAA-MM-DD.
    pub fecha_inicio_rel_laboral: String,
    /// Daily wage.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub salario_diario: Decimal,
    /// Salario diario integrado.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub salario_diario_integrado: Decimal,
    /// SEMANAL, CATORCENAL, QUINCENAL or MENSUAL.
    pub periodicidad: String,
    /// c_TipoContrato.
    pub tipo_contrato: String,
    /// c_TipoJornada.
    pub tipo_jornada: Option<String>,
    /// c_TipoRegimen.
    pub tipo_regimen: String,
    /// c_RiesgoPuesto 1–5.
    pub riesgo_puesto: String,
    /// Department.
    pub departamento: Option<String>,
    /// Position.
    pub puesto: Option<String>,
    /// c_Banco.
    pub banco: Option<String>,
    /// Account number, card or CLABE.
    pub cuenta_bancaria: Option<String>,
    /// c_Estado.
    pub clave_ent_fed: String,
    /// False once deactivated.
    pub activo: bool,
    /// Deactivation date, AAAA-MM-DD, while inactive.
    pub fecha_baja: Option<String>,
    /// Trabajador de confianza: takes part in the PTU with at most the highest base worker's
    /// salary + 20 % (LFT Art. 127 fr. II).
    pub confianza: bool,
    /// Director, administrador or gerente general: no PTU (LFT Art. 127 fr. I).
    pub director: bool,
    /// Where the receipts are e-mailed (`POST /api/cfdi/{id}/correo`'s default, a period's
    /// `enviarCorreo`).
    pub email: Option<String>,
    /// Created.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    /// Last changed.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<EmpleadoRow> for Empleado {
    fn from(row: EmpleadoRow) -> Self {
        Self {
            id: row.id,
            num_empleado: row.num_empleado,
            nombre: row.nombre,
            rfc: row.rfc,
            curp: row.curp,
            nss: row.nss,
            codigo_postal: row.codigo_postal,
            fecha_inicio_rel_laboral: row.fecha_inicio_rel_laboral,
            salario_diario: row.salario_diario.0,
            salario_diario_integrado: row.salario_diario_integrado.0,
            periodicidad: row.periodicidad,
            tipo_contrato: row.tipo_contrato,
            tipo_jornada: row.tipo_jornada,
            tipo_regimen: row.tipo_regimen,
            riesgo_puesto: row.riesgo_puesto,
            departamento: row.departamento,
            puesto: row.puesto,
            banco: row.banco,
            cuenta_bancaria: row.cuenta_bancaria,
            clave_ent_fed: row.clave_ent_fed,
            activo: row.activo,
            fecha_baja: row.fecha_baja,
            confianza: row.confianza,
            director: row.director,
            email: row.email,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

/// The gross-to-net calculation of `solicitud` (`POST /api/nomina/calcular` and the
/// dashboard's calculator), with the parameters of its `fechaPago` or, absent, of today in
/// Mexico City: NOMINA_001 with every field problem.
pub fn calcular_neto(
    solicitud: &timbra_nomina::CalculoNomina,
) -> Result<timbra_nomina::ResultadoNomina, crate::error::ApiError> {
    let offset = time::UtcOffset::from_hms(-6, 0, 0).unwrap_or(time::UtcOffset::UTC);
    let hoy = OffsetDateTime::now_utc().to_offset(offset).date();
    timbra_nomina::calcular_solicitud(solicitud, hoy).map_err(|problemas| {
        crate::error::ApiError::fields(
            crate::error::Code::Nomina001,
            problemas.into_iter().map(|p| crate::error::FieldProblem::new(p.campo, p.mensaje)).collect(),
        )
    })
}

/// A payroll date: `AAAA-MM-DD`, or an RFC 3339 datetime whose date (as written, in its own
/// offset) is taken.
pub fn leer_fecha(texto: &str) -> Option<time::Date> {
    let texto = texto.trim();
    let formato = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(texto, formato)
        .ok()
        .or_else(|| OffsetDateTime::parse(texto, &time::format_description::well_known::Rfc3339).ok().map(|t| t.date()))
        .or_else(|| {
            // A datetime without offset (2026-03-15T00:00:00).
            let local = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
            time::PrimitiveDateTime::parse(texto.split('.').next().unwrap_or(texto), local).ok().map(|t| t.date())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payroll_dates_and_periodicities() {
        let d = time::macros::date!(2026 - 03 - 15);
        for texto in
            ["2026-03-15", " 2026-03-15 ", "2026-03-15T23:00:00-06:00", "2026-03-15T00:00:00Z", "2026-03-15T08:30:00"]
        {
            assert_eq!(leer_fecha(texto), Some(d), "{texto}");
        }
        for malo in ["15/03/2026", "2026-02-30", "", "2026-3-5"] {
            assert_eq!(leer_fecha(malo), None, "{malo}");
        }
        assert_eq!(PeriodicidadPago::parse("quincenal"), Some(PeriodicidadPago::Quincenal));
        assert_eq!(PeriodicidadPago::parse("DECENAL"), None);
        assert_eq!(PeriodicidadPago::Catorcenal.dias(), 14);
    }
}
