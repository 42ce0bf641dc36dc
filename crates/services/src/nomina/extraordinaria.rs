//! The calculation of an EXTRAORDINARIA period (issue 35, TipoNomina E): its receipts from
//! `timbra_nomina`'s year-through payments, written like an ordinary period's (one row per
//! employee, its CFDI lines, what it exempted under the yearly limits), so that the period's
//! stamping, listing and cancellation are the ordinary ones.
//!
//! **AGUINALDO** (LFT Art. 87, PAYROLL_EXTRAS_2026.md §1): every active employee, whatever their
//! periodicidad, hired on or before the period's fechaFin, gets
//! `timbra_nomina::aguinaldo::calcular_aguinaldo` with the company's `diasAguinaldo` and
//! `metodoIsrExtraordinario`: Percepcion 002 with its Art. 93 XIV exempt part (30 UMA of the
//! payment date, less what other receipts of the year exempted) and Deduccion 002 ISR.
//!
//! **A second aguinaldo in a year** (§1.6 Convention): an employee already paid by another
//! AGUINALDO period of the year (not cancelled) gets only the difference between the aguinaldo
//! due now and what was paid, when a raise of salary or of `diasAguinaldo` makes it positive: a
//! supplement whose exemption is what remains of the 30 UMA. Employees with nothing owed are
//! listed in `omitidos`; when nobody is owed anything the calculation is refused with
//! NOMINA_035 (409) naming the first period.

use std::collections::HashMap;
use timbra_store::ids::{EmpresaId, PeriodoId};

use rust_decimal::Decimal;
use serde::Serialize;
use time::Date;

use super::calculo::{Calculado, Omitido};
use super::periodos::Concepto;
use super::{Empleado, leer_fecha};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::events::{self, payloads::Event, payloads::NominaCalculada};
use timbra_nomina::aguinaldo::{self, EntradaAguinaldo, ErrorAguinaldo};
use timbra_nomina::isr_extraordinario::{MetodoIsr, ingreso_mensual_ordinario, isr_extraordinario};
use timbra_nomina::periodo::{LineaDeduccion, LineaPercepcion, LineasRecibo};
use timbra_nomina::{Parametros, redondear};
use timbra_store::empleados::EmpleadoRow;
use timbra_store::nomina::{self, NuevoRecibo, PeriodoRow};
use timbra_store::{self as database, Money, Tx, ids};

/// The company's ISR method as the calculator names it.
pub fn metodo_isr(texto: &str) -> MetodoIsr {
    if texto == "RLISR174" { MetodoIsr::Rlisr174 } else { MetodoIsr::Art96 }
}

/// What an aguinaldo receipt was calculated from (its `entrada`).
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct EntradaRecibo {
    concepto: &'static str,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    salario_diario: Decimal,
    dias_aguinaldo: u32,
    fecha_alta: String,
    fecha_pago: String,
    metodo_isr_extraordinario: MetodoIsr,
    /// Aguinaldo exemption used by other receipts of the year.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    exento_previo: Decimal,
    /// Aguinaldo paid by earlier AGUINALDO periods of the year (a supplement pays the rest).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pagado_antes: Decimal,
}

/// An aguinaldo receipt's figures (its `calculo`, flattened into the receipt).
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct CalculoAguinaldo {
    concepto: &'static str,
    /// The year's whole aguinaldo, as `timbra_nomina::aguinaldo` gives it.
    aguinaldo: aguinaldo::Aguinaldo,
    /// True when this receipt pays only the difference with an earlier period.
    complemento: bool,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    importe: Decimal,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    exento: Decimal,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    gravado: Decimal,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    isr_retenido: Decimal,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    neto_a_pagar: Decimal,
}

fn json<T: Serialize>(valor: &T) -> ApiResult<String> {
    serde_json::to_string(valor).map_err(|e| ApiError::internal("nomina receipt JSON", e))
}

fn dos(mut valor: Decimal) -> Decimal {
    valor = redondear(valor);
    valor.rescale(2);
    valor
}

/// A receipt of one extraordinary perception (`tipo`) with its ISR.
pub(crate) struct Pago<'a> {
    /// The employee.
    pub row: &'a EmpleadoRow,
    /// c_TipoPercepcion.
    pub tipo: &'a str,
    /// Its concept.
    pub concepto: &'a str,
    /// ImporteGravado.
    pub gravado: Decimal,
    /// ImporteExento.
    pub exento: Decimal,
    /// ISR withheld (Deduccion 002).
    pub isr: Decimal,
    /// NumDiasPagados.
    pub dias_pagados: Decimal,
}

/// The receipt row of a [`Pago`] with its `calculo` and `entrada`.
pub(crate) fn nuevo_recibo(
    pago: &Pago<'_>,
    calculo: String,
    entrada: String,
    exento_aguinaldo: Option<Money>,
    exento_ptu: Option<Money>,
) -> ApiResult<NuevoRecibo> {
    let importe = pago.gravado + pago.exento;
    let mut lineas = LineasRecibo {
        percepciones: vec![LineaPercepcion {
            tipo: pago.tipo.to_owned(),
            clave: pago.tipo.to_owned(),
            concepto: pago.concepto.to_owned(),
            gravado: dos(pago.gravado),
            exento: dos(pago.exento),
            horas_extra: Vec::new(),
        }],
        deducciones: Vec::new(),
        otros_pagos: Vec::new(),
        incapacidades: Vec::new(),
        separacion: None,
    };
    if pago.isr > Decimal::ZERO {
        lineas.deducciones.push(LineaDeduccion {
            tipo: "002".into(),
            clave: "002".into(),
            concepto: "ISR".into(),
            importe: dos(pago.isr),
        });
    }
    Ok(NuevoRecibo {
        id: ids::new_id(),
        empleado_id: pago.row.id.clone(),
        empleado_nombre: pago.row.nombre.clone(),
        dias_pagados: Money(pago.dias_pagados),
        total_percepciones: Money(dos(importe)),
        total_gravado: Money(dos(pago.gravado)),
        total_exento: Money(dos(pago.exento)),
        total_deducciones: Money(dos(pago.isr)),
        total_otros_pagos: Money(dos(Decimal::ZERO)),
        isr_retenido: Money(dos(pago.isr)),
        subsidio_causado: Money(dos(Decimal::ZERO)),
        imss_empleado: Money(dos(Decimal::ZERO)),
        neto: Money(dos(importe - pago.isr)),
        lineas: json(&lineas)?,
        calculo,
        entrada,
        empleado: json(&Empleado::from(pago.row.clone()))?,
        exento_aguinaldo,
        exento_ptu,
        exento_prima_vacacional: None,
    })
}

/// The settings of the company an extraordinary calculation reads.
pub(crate) struct Ajustes {
    /// diasAguinaldo.
    pub dias_aguinaldo: u32,
    /// metodoIsrExtraordinario.
    pub metodo: MetodoIsr,
}

pub(crate) async fn ajustes(tx: &mut Tx, empresa_id: &EmpresaId) -> ApiResult<Ajustes> {
    let a = database::empresas::ajustes_nomina(tx, empresa_id).await?;
    Ok(Ajustes {
        dias_aguinaldo: u32::try_from(a.dias_aguinaldo).unwrap_or(aguinaldo::DIAS_MINIMOS),
        metodo: metodo_isr(&a.metodo_isr_extraordinario),
    })
}

/// The aguinaldo receipts of `empleados` paid on `fecha_pago`; `previos` is what earlier
/// AGUINALDO periods of the year paid each one (and the first such period), `exentos` the
/// aguinaldo exemption other receipts of the year used.
fn recibos_aguinaldo(
    empleados: &[EmpleadoRow],
    fecha_fin: Date,
    fecha_pago: Date,
    ajustes: &Ajustes,
    previos: &HashMap<String, (Decimal, String)>,
    exentos: &HashMap<String, Decimal>,
) -> ApiResult<(Vec<NuevoRecibo>, Vec<Omitido>, Vec<String>)> {
    let parametros =
        Parametros::vigentes(fecha_pago).map_err(|e| ApiError::new(Code::Nomina001, format!("fechaPago: {e}")))?;
    let (mut recibos, mut omitidos, mut ya_pagados) = (Vec::new(), Vec::new(), Vec::new());
    for row in empleados {
        let omitir =
            |motivo: String| Omitido { empleado_id: row.id.clone(), empleado_nombre: row.nombre.clone(), motivo };
        let alta = leer_fecha(&row.fecha_inicio_rel_laboral)
            .ok_or_else(|| ApiError::internal("empleados.fecha_inicio_rel_laboral", &row.id))?;
        if alta > fecha_fin {
            omitidos.push(omitir(format!("hired on {alta}, after the period ends ({fecha_fin})")));
            continue;
        }
        let exento_previo = exentos.get(&row.id).copied().unwrap_or_default();
        let (pagado_antes, primer_periodo) = previos.get(&row.id).cloned().unwrap_or((Decimal::ZERO, String::new()));
        let entrada = EntradaAguinaldo {
            salario_diario: row.salario_diario.0,
            dias_aguinaldo: ajustes.dias_aguinaldo,
            fecha_alta: alta,
            fecha_baja: None,
            fecha_pago,
            exento_previo,
        };
        let calculado = match aguinaldo::calcular_aguinaldo(&entrada, ajustes.metodo) {
            Ok(calculado) => calculado,
            Err(ErrorAguinaldo::SinParametros(e)) => {
                return Err(ApiError::new(Code::Nomina001, format!("fechaPago: {e}")));
            }
            Err(error) => {
                omitidos.push(omitir(error.to_string()));
                continue;
            }
        };
        let complemento = pagado_antes > Decimal::ZERO;
        let (importe, exento, gravado, isr) = if complemento {
            let importe = calculado.importe - pagado_antes;
            if importe <= Decimal::ZERO {
                omitidos.push(omitir(format!(
                    "the year's aguinaldo ({}) was already paid in period {primer_periodo}",
                    calculado.importe
                )));
                ya_pagados.push(primer_periodo);
                continue;
            }
            let (exento, gravado) = aguinaldo::exento_gravado(importe, parametros.uma.diaria, exento_previo);
            let isr = isr_extraordinario(parametros.tarifa, ingreso_mensual_ordinario(row.salario_diario.0), gravado)
                .del_metodo(ajustes.metodo);
            (importe, exento, gravado, isr)
        } else {
            (calculado.importe, calculado.exento, calculado.gravado, calculado.isr)
        };
        if importe <= Decimal::ZERO {
            omitidos.push(omitir("the aguinaldo is zero".to_owned()));
            continue;
        }
        let pago = Pago {
            row,
            tipo: aguinaldo::TIPO_PERCEPCION,
            concepto: if complemento {
                "Gratificación anual (aguinaldo), complemento"
            } else {
                "Gratificación anual (aguinaldo)"
            },
            gravado,
            exento,
            isr,
            dias_pagados: Decimal::from(calculado.dias_trabajados),
        };
        let calculo = CalculoAguinaldo {
            concepto: "AGUINALDO",
            aguinaldo: calculado,
            complemento,
            importe: dos(importe),
            exento: dos(exento),
            gravado: dos(gravado),
            isr_retenido: dos(isr),
            neto_a_pagar: dos(importe - isr),
        };
        let entrada = EntradaRecibo {
            concepto: "AGUINALDO",
            salario_diario: row.salario_diario.0,
            dias_aguinaldo: ajustes.dias_aguinaldo,
            fecha_alta: alta.to_string(),
            fecha_pago: fecha_pago.to_string(),
            metodo_isr_extraordinario: ajustes.metodo,
            exento_previo,
            pagado_antes,
        };
        let exento_aguinaldo = (!exento.is_zero()).then_some(Money(dos(exento)));
        recibos.push(nuevo_recibo(&pago, json(&calculo)?, json(&entrada)?, exento_aguinaldo, None)?);
    }
    Ok((recibos, omitidos, ya_pagados))
}

/// Calculates EXTRAORDINARIA period `row` inside `tx` (locked, checked ABIERTO or CALCULADO
/// without stamped receipts by the caller), writes its receipts, sets it CALCULADO, emits
/// `nomina.calculada` and commits.
///
/// # Errors
/// NOMINA_035 when a second AGUINALDO period of the year owes nobody anything.
pub(crate) async fn calcular(
    mut tx: Tx,
    app: &AppContext,
    empresa_id: &EmpresaId,
    row: PeriodoRow,
) -> ApiResult<Calculado> {
    let now = app.clock.now();
    let fecha = |texto: &str| {
        leer_fecha(texto).ok_or_else(|| ApiError::internal("nomina_periodos date", format!("{} {texto:?}", row.id)))
    };
    let (fecha_fin, fecha_pago) = (fecha(&row.fecha_fin)?, fecha(&row.fecha_pago)?);
    let concepto = row.concepto.as_deref().and_then(Concepto::parse);
    let (recibos, omitidos) = match concepto {
        Some(Concepto::Aguinaldo) => {
            let ajustes = ajustes(&mut tx, empresa_id).await?;
            let empleados = database::empleados::todos_activos(&mut tx, empresa_id).await?;
            let anio = fecha_pago.year();
            let (desde, hasta) = (format!("{anio:04}-01-01"), format!("{anio:04}-12-31"));
            let mut previos: HashMap<String, (Decimal, String)> = HashMap::new();
            for pago in
                nomina::pagos_previos(&mut tx, empresa_id, Concepto::Aguinaldo.as_str(), &row.id, &desde, &hasta)
                    .await?
            {
                let entrada = previos.entry(pago.empleado_id).or_insert((Decimal::ZERO, String::from(pago.periodo_id)));
                entrada.0 += pago.total_percepciones.0;
            }
            let mut exentos: HashMap<String, Decimal> = HashMap::new();
            for fila in nomina::exentos_anuales(&mut tx, empresa_id, &row.id, &desde, &hasta).await? {
                *exentos.entry(fila.empleado_id).or_default() += fila.exento_aguinaldo.map_or(Decimal::ZERO, |m| m.0);
            }
            let (recibos, omitidos, ya_pagados) =
                recibos_aguinaldo(&empleados, fecha_fin, fecha_pago, &ajustes, &previos, &exentos)?;
            if recibos.is_empty()
                && let Some(primero) = ya_pagados.first()
            {
                return Err(ApiError::new(
                    Code::Nomina035,
                    format!(
                        "the {anio} aguinaldo was already paid in period {primero} and nobody is owed more: a second \
                         AGUINALDO period of a year pays only the difference after a raise of salarioDiario or \
                         diasAguinaldo"
                    ),
                )
                .with_details(serde_json::json!({ "periodoId": primero, "ejercicio": anio })));
            }
            (recibos, omitidos)
        }
        _ => {
            return Err(ApiError::new(
                Code::Nomina001,
                format!(
                    "period {} ({}) was calculated when it was created (POST /api/nomina/ptu or POST \
                     /api/nomina/empleados/{{id}}/baja) and is not recalculated: stamp it, or cancel its receipts and \
                     create it again",
                    row.id,
                    row.concepto.as_deref().unwrap_or("EXTRAORDINARIA")
                ),
            ));
        }
    };
    nomina::borrar_no_timbrados(&mut tx, empresa_id, &row.id).await?;
    escribir(tx, app, empresa_id, &row.id, recibos, omitidos, now).await
}

/// Writes an extraordinary period's receipts, sets it CALCULADO and emits `nomina.calculada`,
/// committing `tx`.
pub(crate) async fn escribir(
    mut tx: Tx,
    _app: &AppContext,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
    recibos: Vec<NuevoRecibo>,
    omitidos: Vec<Omitido>,
    now: time::OffsetDateTime,
) -> ApiResult<Calculado> {
    let mut total_nomina: Decimal = recibos.iter().map(|r| r.neto.0).sum();
    total_nomina.rescale(2);
    let recibos_calculados = i64::try_from(recibos.len()).unwrap_or(i64::MAX);
    nomina::insert_recibos(&mut tx, empresa_id, periodo_id, recibos, now).await?;
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
