//! A month of IMSS and INFONAVIT dues (issue 35, PAYROLL_EXTRAS_2026.md §5):
//! `timbra_nomina::imss_patronal` over the company's employees registered some day of the
//! month, with the company's `primaRiesgo`. Read only: nothing is written.
//!
//! * SBC: the employee's `salarioDiarioIntegrado` (the one registered with IMSS), capped at 25 UMA
//!   and no less than the minimum wage.
//! * Days: the calendar days of the month the employee was registered (from the hire date, to
//!   `fechaBaja`); APROBADA FALTA incidences dated in the month reduce every branch but EyM (at
//!   most 7, Art. 31 LSS); APROBADA INCAPACIDAD incidences dated in the month reduce every branch
//!   but retiro (days beyond the month's registered days are not counted).
//! * `cuotasPatronal` and `cuotasObrero` are everything accrued in the month: the monthly
//!   branches plus the month's share of the bimonthly ones (retiro, CEAV, INFONAVIT); `porRamo`
//!   names each branch and whether it is bimonthly.

use std::collections::HashMap;

use rust_decimal::Decimal;
use serde::Serialize;
use time::{Date, Month};
use utoipa::ToSchema;

use super::leer_fecha;
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use timbra_nomina::entrada::Zona;
use timbra_nomina::imss_patronal::{self, CuotaRamo, ErrorImss, TotalRamo, TrabajadorImss};
use timbra_store as database;

/// One worker's dues of the month.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct TrabajadorCuotas {
    /// The employee.
    pub empleado_id: String,
    /// Name.
    pub nombre: String,
    /// NSS; null when the employee has none (IMSS cannot take their dues: register it).
    pub nss: Option<String>,
    /// SBC: the registered SDI within the SM and 25 UMA.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub sbc: Decimal,
    /// Days registered in the month.
    pub dias: u32,
    /// Worker dues of the month (withheld, or paid by the employer for a minimum-wage worker).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub cuotas_obrero: Decimal,
    /// Employer dues of the month: the monthly branches plus the month's share of the bimonthly.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub cuotas_patronal: Decimal,
    /// Each branch: ramo, bimestral, dias, base, tasaPatronal, tasaObrera, patronal, obrera.
    #[schema(value_type = Vec<Object>)]
    pub por_ramo: Vec<CuotaRamo>,
}

/// The month's totals.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Totales {
    /// Σ cuotasPatronal.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub cuotas_patronal: Decimal,
    /// Σ cuotasObrero.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub cuotas_obrero: Decimal,
    /// Σ both.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub total: Decimal,
    /// Per branch: ramo, bimestral, patronal, obrera.
    #[schema(value_type = Vec<Object>)]
    pub por_ramo: Vec<TotalRamo>,
}

/// `GET /api/nomina/imss/{año}/{mes}`.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct CuotasImss {
    /// Year.
    pub anio: i32,
    /// Month, 1–12.
    pub mes: u8,
    /// The company's riesgo de trabajo premium, percent.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub prima_riesgo: Decimal,
    /// Every employee registered some day of the month.
    pub trabajadores: Vec<TrabajadorCuotas>,
    /// The month's totals.
    pub totales: Totales,
}

/// The dues of month `mes` of `anio` of company `empresa_id`.
///
/// # Errors
/// NOMINA_001 a bad year or month, a company without `primaRiesgo`, a month without rates.
pub async fn cuotas(app: &AppContext, empresa_id: &str, anio: &str, mes: &str) -> ApiResult<CuotasImss> {
    let mut problems = Vec::new();
    let anio_leido = anio.trim().parse::<i32>().ok().filter(|a| (2000..=2100).contains(a));
    if anio_leido.is_none() {
        problems.push(FieldProblem::new("año", format!("{anio:?} is not a year")));
    }
    let mes_leido = mes.trim().parse::<u8>().ok().and_then(|m| Month::try_from(m).ok());
    if mes_leido.is_none() {
        problems.push(FieldProblem::new("mes", format!("{mes:?} is not a month 1 to 12")));
    }
    let (Some(anio), Some(mes)) = (anio_leido, mes_leido) else {
        return Err(ApiError::fields(Code::Nomina001, problems));
    };
    let primero = Date::from_calendar_date(anio, mes, 1).map_err(|e| ApiError::internal("month", e))?;
    let ultimo = primero.replace_day(mes.length(anio)).map_err(|e| ApiError::internal("month", e))?;
    let (desde, hasta) = (primero.to_string(), ultimo.to_string());
    let mut conn = app.db.conn().await?;
    let ajustes = database::empresas::ajustes_nomina(&mut conn, empresa_id).await?;
    let Some(prima) = ajustes.prima_riesgo.map(|m| m.0) else {
        return Err(ApiError::fields(
            Code::Nomina001,
            vec![FieldProblem::new(
                "primaRiesgo",
                "the company has no primaRiesgo: set it with PATCH /api/empresas/{id} (class I for a new company is 0.54355)",
            )],
        ));
    };
    let empleados = database::empleados::empleados_entre(&mut conn, empresa_id, &desde, &hasta).await?;
    let mut ausencias: HashMap<String, (u32, u32)> = HashMap::new();
    for i in database::incidencias::aprobadas(&mut conn, empresa_id, &desde, &hasta).await? {
        let dias = i.dias.and_then(|d| u32::try_from(d).ok()).unwrap_or(0);
        let entrada = ausencias.entry(i.empleado_id.clone()).or_default();
        match i.tipo.as_str() {
            "FALTA" => entrada.0 += dias,
            "INCAPACIDAD" => entrada.1 += dias,
            _ => {}
        }
    }
    drop(conn);
    let dias_mes = u32::from(mes.length(anio));
    let mut trabajadores = Vec::with_capacity(empleados.len());
    let mut registrados = Vec::with_capacity(empleados.len());
    for row in &empleados {
        let fecha = |t: &str| leer_fecha(t).ok_or_else(|| ApiError::internal("empleados date", &row.id));
        let alta = fecha(&row.fecha_inicio_rel_laboral)?.max(primero);
        let baja = row.fecha_baja.as_deref().map(fecha).transpose()?.map_or(ultimo, |b| b.min(ultimo));
        let dias = u32::try_from((baja - alta).whole_days() + 1).unwrap_or(0).min(dias_mes);
        let (faltas, incapacidad) = ausencias.get(&row.id).copied().unwrap_or_default();
        let faltas = faltas.min(imss_patronal::AUSENCIAS_MAXIMAS_MES).min(dias);
        let incapacidad = incapacidad.min(dias - faltas);
        registrados.push(dias);
        trabajadores.push(TrabajadorImss {
            clave: row.id.clone(),
            salario_diario: row.salario_diario.0,
            salario_diario_integrado: row.salario_diario_integrado.0,
            zona: Zona::General,
            dias_registrados: (dias < dias_mes).then_some(dias),
            dias_ausencia: faltas,
            dias_incapacidad: incapacidad,
        });
    }
    let mes_calculado =
        imss_patronal::cuotas_del_mes(anio, mes, prima, &trabajadores).map_err(|error| match error {
            ErrorImss::PrimaRiesgo(_) => {
                ApiError::fields(Code::Nomina001, vec![FieldProblem::new("primaRiesgo", error.to_string())])
            }
            otro => ApiError::new(Code::Nomina001, otro.to_string()),
        })?;
    let filas = empleados
        .iter()
        .zip(registrados)
        .zip(mes_calculado.trabajadores)
        .map(|((row, dias), c)| TrabajadorCuotas {
            empleado_id: row.id.clone(),
            nombre: row.nombre.clone(),
            nss: row.nss.clone().filter(|n| !n.trim().is_empty()),
            sbc: c.sbc,
            dias,
            cuotas_obrero: c.cuotas_obrero,
            cuotas_patronal: c.cuotas_patronal,
            por_ramo: c.por_ramo,
        })
        .collect();
    Ok(CuotasImss {
        anio,
        mes: u8::from(mes),
        prima_riesgo: prima,
        trabajadores: filas,
        totales: Totales {
            cuotas_patronal: mes_calculado.total_patronal,
            cuotas_obrero: mes_calculado.total_obrero,
            total: mes_calculado.total_patronal + mes_calculado.total_obrero,
            por_ramo: mes_calculado.por_ramo,
        },
    })
}
