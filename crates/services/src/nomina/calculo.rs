//! Calculating a pay period: every active employee of the period's periodicidad gets a receipt,
//! from the APROBADA incidences dated within the period, through the same gross-to-net as
//! `POST /api/nomina/calcular` (`timbra_nomina::periodo` builds that very body). The receipts,
//! the period's new status and the `nomina.calculada` event are written in one transaction.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use timbra_store::ids::{EmpresaId, PeriodoId};

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::{Empleado, PeriodicidadPago, leer_fecha};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::events::{self, payloads::Event, payloads::NominaCalculada};
use timbra_nomina::periodo::{self, EmpleadoPeriodo, ExentosAnuales, Incidencia, Periodo};
use timbra_nomina::{Parametros, calcular_con_parametros};
use timbra_store::empleados::EmpleadoRow;
use timbra_store::ids;
use timbra_store::incidencias::Campos;
use timbra_store::nomina::{self, NuevoRecibo, PeriodoRow};
use timbra_store::{self as database, Money};

/// An active employee of the periodicidad who got no receipt, and why.
#[derive(Serialize, ToSchema, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Omitido {
    /// The employee.
    pub empleado_id: String,
    /// Name.
    pub empleado_nombre: String,
    /// Why: hired after the period, or absences cover every day and nothing else is paid.
    pub motivo: String,
}

/// The answer of a calculation (SPEC: periodoId, recibosCalculados, totalNomina, status).
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Calculado {
    /// The period.
    pub periodo_id: String,
    /// Receipts written.
    pub recibos_calculados: i64,
    /// Σ receipts' net pay (their CFDI Total).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub total_nomina: Decimal,
    /// CALCULADO.
    pub status: String,
    /// Active employees of the periodicidad without a receipt, with the reason.
    pub omitidos: Vec<Omitido>,
}

/// Employees per part of a period's calculation ([`calcular_periodo`]).
const EMPLEADOS_POR_PARTE: usize = 128;

/// The receipts of a period, before they are written.
pub struct Recibos {
    /// One per employee paid.
    pub recibos: Vec<NuevoRecibo>,
    /// Employees not paid, with the reason.
    pub omitidos: Vec<Omitido>,
    /// Σ net pay.
    pub total_nomina: Decimal,
}

/// The period's dates and days, as the calculation reads them.
///
/// # Errors
/// INTERNAL when a stored date does not read (the service wrote it).
pub fn periodo_de(row: &PeriodoRow) -> ApiResult<Periodo> {
    let fecha = |texto: &str| {
        leer_fecha(texto).ok_or_else(|| ApiError::internal("nomina_periodos date", format!("{} {texto:?}", row.id)))
    };
    let periodicidad = PeriodicidadPago::parse(&row.periodicidad)
        .ok_or_else(|| ApiError::internal("nomina_periodos.periodicidad", &row.periodicidad))?;
    Ok(Periodo {
        fecha_inicio: fecha(&row.fecha_inicio)?,
        fecha_fin: fecha(&row.fecha_fin)?,
        fecha_pago: fecha(&row.fecha_pago)?,
        periodicidad: periodicidad.calculo(),
        dias_pagados: u32::try_from(row.dias_pagados).unwrap_or(0),
    })
}

/// A stored incidence as the calculation reads it; `None` for kinds that change nothing.
fn incidencia(row: &Campos) -> ApiResult<Option<Incidencia>> {
    let entero = |valor: Option<i64>, campo: &str| {
        valor
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| ApiError::internal(&format!("incidencias.{campo}"), &row.id))
    };
    let texto = |valor: &Option<String>| valor.clone().unwrap_or_default();
    let monto = |valor: Option<Money>, campo: &str| {
        valor.map(|m| m.0).ok_or_else(|| ApiError::internal(&format!("incidencias.{campo}"), &row.id))
    };
    Ok(Some(match row.tipo.as_str() {
        "HORAS_EXTRA" => Incidencia::HorasExtra {
            fecha: leer_fecha(&row.fecha).ok_or_else(|| ApiError::internal("incidencias.fecha", &row.id))?,
            horas: entero(row.horas, "horas")?,
        },
        "FALTA" => Incidencia::Falta { dias: entero(row.dias, "dias")? },
        "INCAPACIDAD" => {
            Incidencia::Incapacidad { dias: entero(row.dias, "dias")?, tipo: texto(&row.tipo_incapacidad) }
        }
        "VACACIONES" => Incidencia::Vacaciones { dias: entero(row.dias, "dias")? },
        "PRIMA_DOMINICAL" => Incidencia::PrimaDominical { domingos: entero(row.domingos, "domingos")? },
        "PERCEPCION" => Incidencia::Percepcion {
            tipo: texto(&row.clave_sat),
            concepto: texto(&row.concepto),
            importe: monto(row.importe, "importe")?,
            reparto: row.gravado.zip(row.exento).map(|(g, e)| (g.0, e.0)),
        },
        "DEDUCCION" => Incidencia::Deduccion {
            tipo: texto(&row.clave_sat),
            concepto: texto(&row.concepto),
            importe: monto(row.importe, "importe")?,
        },
        _ => return Ok(None),
    }))
}

/// A period's APROBADA incidences by employee, as the calculation reads them.
pub type PorEmpleado = HashMap<String, Vec<Incidencia>>;

/// `incidencias` (APROBADA, dated in the period, any order) by employee.
///
/// # Errors
/// INTERNAL for unreadable stored rows.
pub fn por_empleado(incidencias: &[Campos]) -> ApiResult<PorEmpleado> {
    let mut por_empleado = PorEmpleado::new();
    for row in incidencias {
        if let Some(i) = incidencia(row)? {
            por_empleado.entry(row.empleado_id.clone()).or_default().push(i);
        }
    }
    Ok(por_empleado)
}

/// The receipts of `empleados` in `periodo` from their incidences: CPU only, no I/O.
///
/// # Errors
/// NOMINA_001 when no parameters cover the payment date; INTERNAL for unreadable stored rows.
pub fn recibos_del_periodo(
    periodo: &Periodo,
    empleados: Vec<EmpleadoRow>,
    por_empleado: &PorEmpleado,
    exentos: &HashMap<String, ExentosAnuales>,
) -> ApiResult<Recibos> {
    let parametros = Parametros::vigentes(periodo.fecha_pago)
        .map_err(|e| ApiError::new(Code::Nomina001, format!("fechaPago: {e}")))?;
    let mut recibos = Vec::with_capacity(empleados.len());
    let mut omitidos = Vec::new();
    let mut total_nomina = Decimal::ZERO;
    for row in empleados {
        let datos = EmpleadoPeriodo {
            salario_diario: row.salario_diario.0,
            salario_diario_integrado: row.salario_diario_integrado.0,
            riesgo_puesto: row.riesgo_puesto.parse().unwrap_or(1),
            tipo_jornada: row.tipo_jornada.clone(),
            fecha_inicio_rel_laboral: leer_fecha(&row.fecha_inicio_rel_laboral)
                .ok_or_else(|| ApiError::internal("empleados.fecha_inicio_rel_laboral", &row.id))?,
            exentos_previos: exentos.get(&row.id).copied().unwrap_or_default(),
        };
        let propias = por_empleado.get(row.id.as_str()).map(Vec::as_slice).unwrap_or_default();
        let omitir =
            |motivo: String| Omitido { empleado_id: row.id.clone(), empleado_nombre: row.nombre.clone(), motivo };
        let preparado =
            match periodo::preparar(&datos, periodo, propias, parametros.uma.diaria, parametros.salario_minimo.general)
            {
                Ok(preparado) => preparado,
                Err(sin_recibo) => {
                    omitidos.push(omitir(sin_recibo.to_string()));
                    continue;
                }
            };
        // The calculator's own validation: what it refuses is reported, not half-calculated.
        let entrada = match preparado.solicitud.validar() {
            Ok(entrada) => entrada,
            Err(problemas) => {
                let texto: Vec<String> = problemas.iter().map(ToString::to_string).collect();
                omitidos.push(omitir(format!("the calculation refuses its data: {}", texto.join("; "))));
                continue;
            }
        };
        let resultado = calcular_con_parametros(&entrada, &parametros);
        let lineas = periodo::lineas(&entrada, &resultado, &preparado);
        let anuales = ExentosAnuales::de_lineas(&lineas);
        let exento = |monto: Decimal| (!monto.is_zero()).then_some(Money(monto));
        total_nomina += resultado.neto_a_pagar;
        recibos.push(NuevoRecibo {
            id: ids::new_id(),
            empleado_id: row.id.clone(),
            empleado_nombre: row.nombre.clone(),
            dias_pagados: Money(Decimal::from(preparado.dias_pagados)),
            total_percepciones: Money(resultado.percepciones.total_percepciones),
            total_gravado: Money(resultado.percepciones.total_gravado),
            total_exento: Money(resultado.percepciones.total_exento),
            total_deducciones: Money(resultado.deducciones.total_deducciones),
            total_otros_pagos: Money(resultado.otros_pagos.total_otros_pagos),
            isr_retenido: Money(resultado.deducciones.isr_retenido),
            subsidio_causado: Money(resultado.desglose.subsidio_causado),
            imss_empleado: Money(resultado.deducciones.imss_empleado),
            neto: Money(resultado.neto_a_pagar),
            lineas: json(&lineas)?,
            calculo: json(&resultado)?,
            entrada: json(&preparado.solicitud)?,
            empleado: json(&Empleado::from(row))?,
            exento_aguinaldo: exento(anuales.aguinaldo),
            exento_ptu: exento(anuales.ptu),
            exento_prima_vacacional: exento(anuales.prima_vacacional),
        });
    }
    Ok(Recibos { recibos, omitidos, total_nomina })
}

/// What each employee's other receipts of `anio` (by payment date, not cancelled) exempted
/// under the yearly limits.
async fn exentos_del_anio(
    tx: &mut timbra_store::Tx,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
    anio: i32,
) -> ApiResult<HashMap<String, ExentosAnuales>> {
    let filas =
        nomina::exentos_anuales(tx, empresa_id, periodo_id, &format!("{anio:04}-01-01"), &format!("{anio:04}-12-31"))
            .await?;
    let mut exentos: HashMap<String, ExentosAnuales> = HashMap::new();
    for fila in filas {
        let e = exentos.entry(fila.empleado_id).or_default();
        let valor = |m: Option<Money>| m.map_or(Decimal::ZERO, |m| m.0);
        e.aguinaldo += valor(fila.exento_aguinaldo);
        e.ptu += valor(fila.exento_ptu);
        e.prima_vacacional += valor(fila.exento_prima_vacacional);
    }
    Ok(exentos)
}

/// A JSON column of a receipt.
fn json<T: Serialize>(valor: &T) -> ApiResult<String> {
    serde_json::to_string(valor).map_err(|e| ApiError::internal("nomina receipt JSON", e))
}

/// Calculates period `periodo_id` of the company (ABIERTO or CALCULADO): replaces its
/// receipts, sets it CALCULADO and emits `nomina.calculada`, in one transaction.
///
/// # Errors
/// NOT_FOUND for a period of another company; NOMINA_003 once a receipt is stamped.
pub async fn calcular_periodo(
    app: &AppContext,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
) -> ApiResult<Calculado> {
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    let row = nomina::periodo_para_cambiar(&mut tx, empresa_id, periodo_id)
        .await?
        .ok_or_else(|| ApiError::not_found("payroll period"))?;
    let timbrados = nomina::contar_timbrados(&mut tx, empresa_id, periodo_id).await?;
    if timbrados > 0 || !matches!(row.status.as_str(), "ABIERTO" | "CALCULADO") {
        return Err(ApiError::new(
            Code::Nomina003,
            format!(
                "period {periodo_id} is {} with {timbrados} stamped receipt(s); stamped receipts cannot be recalculated \
                 (cancel them and pay differences in a new period)",
                row.status
            ),
        ));
    }
    if row.tipo == super::periodos::EXTRAORDINARIA {
        return super::extraordinaria::calcular(tx, app, empresa_id, row).await;
    }
    let periodo = Arc::new(periodo_de(&row)?);
    let empleados = database::empleados::activos(&mut tx, empresa_id, &row.periodicidad).await?;
    let incidencias = database::incidencias::aprobadas(&mut tx, empresa_id, &row.fecha_inicio, &row.fecha_fin).await?;
    let incidencias = Arc::new(por_empleado(&incidencias)?);
    let exentos = Arc::new(exentos_del_anio(&mut tx, empresa_id, periodo_id, periodo.fecha_pago.year()).await?);
    nomina::borrar_no_timbrados(&mut tx, empresa_id, periodo_id).await?;
    // The employees in parts, calculated on the blocking pool, as many at once as there are
    // cores, each part written while the next ones are calculated: the database's work and the
    // cores' overlap instead of following each other.
    let nucleos = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    let mut partes = empleados.into_iter().peekable();
    let mut en_curso = VecDeque::with_capacity(nucleos);
    let (mut omitidos, mut total_nomina, mut recibos_calculados) = (Vec::new(), Decimal::ZERO, 0_i64);
    loop {
        while en_curso.len() < nucleos && partes.peek().is_some() {
            let parte: Vec<EmpleadoRow> = partes.by_ref().take(EMPLEADOS_POR_PARTE).collect();
            let (periodo, incidencias, exentos) = (periodo.clone(), incidencias.clone(), exentos.clone());
            en_curso.push_back(tokio::task::spawn_blocking(move || {
                recibos_del_periodo(&periodo, parte, &incidencias, &exentos)
            }));
        }
        let Some(parte) = en_curso.pop_front() else { break };
        let parte = parte.await.map_err(|e| ApiError::internal("payroll calculation", e))??;
        recibos_calculados += i64::try_from(parte.recibos.len()).unwrap_or(i64::MAX);
        omitidos.extend(parte.omitidos);
        total_nomina += parte.total_nomina;
        nomina::insert_recibos(&mut tx, empresa_id, periodo_id, parte.recibos, now).await?;
    }
    // Two decimals even when nobody is paid (0.00, not 0).
    total_nomina.rescale(2);
    nomina::marcar_calculado(&mut tx, empresa_id, periodo_id.as_str(), recibos_calculados, Money(total_nomina), now)
        .await?;
    let evento = NominaCalculada { periodo_id: periodo_id.as_str().to_owned(), recibos_calculados, total_nomina };
    events::emit(&mut tx, now, empresa_id, &Event::NominaCalculada(evento)).await?;
    tx.commit().await?;
    Ok(Calculado {
        periodo_id: periodo_id.as_str().to_owned(),
        recibos_calculados,
        total_nomina,
        status: "CALCULADO".to_owned(),
        omitidos,
    })
}
