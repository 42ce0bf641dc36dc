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
use timbra_store::ids::EmpresaId;

use rust_decimal::Decimal;
use serde::Serialize;
use time::{Date, Month};
use utoipa::ToSchema;

use super::leer_fecha;
use crate::cfdi::links;
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use crate::events::{self, payloads::Event, payloads::NominaSuaGenerado};
use timbra_nomina::ancho_fijo::{Archivo, ProblemaRegistro};
use timbra_nomina::entrada::Zona;
use timbra_nomina::finiquito::MotivoBaja;
use timbra_nomina::idse::{self, MovimientoIdse, RegistroIdse, TipoSalario};
use timbra_nomina::imss_patronal::{self, CuotaRamo, ErrorImss, TotalRamo, TrabajadorImss};
use timbra_nomina::parametros::Parametros;
use timbra_nomina::sua::{self, MovimientoSua, TipoMovimientoSua, TrabajadorSua};
use timbra_store as database;
use timbra_store::empleados::EmpleadoRow;

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

/// Year and month from the path: NOMINA_001 with every problem.
fn leer_mes(anio: &str, mes: &str) -> ApiResult<(i32, Month)> {
    let mut problems = Vec::new();
    let anio_leido = anio.trim().parse::<i32>().ok().filter(|a| (2000..=2100).contains(a));
    if anio_leido.is_none() {
        problems.push(FieldProblem::new("año", format!("{anio:?} is not a year")));
    }
    let mes_leido = mes.trim().parse::<u8>().ok().and_then(|m| Month::try_from(m).ok());
    if mes_leido.is_none() {
        problems.push(FieldProblem::new("mes", format!("{mes:?} is not a month 1 to 12")));
    }
    match (anio_leido, mes_leido) {
        (Some(anio), Some(mes)) => Ok((anio, mes)),
        _ => Err(ApiError::fields(Code::Nomina001, problems)),
    }
}

/// The dues of month `mes` of `anio` of company `empresa_id`.
///
/// # Errors
/// NOMINA_001 a bad year or month, a company without `primaRiesgo`, a month without rates.
pub async fn cuotas(app: &AppContext, empresa_id: &EmpresaId, anio: &str, mes: &str) -> ApiResult<CuotasImss> {
    let (anio, mes) = leer_mes(anio, mes)?;
    Ok(calcular(app, empresa_id, anio, mes).await?.0)
}

/// The month's dues, with the employee rows they were computed for (in the same order).
async fn calcular(
    app: &AppContext,
    empresa_id: &EmpresaId,
    anio: i32,
    mes: Month,
) -> ApiResult<(CuotasImss, Vec<EmpleadoRow>, Vec<database::incidencias::Campos>)> {
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
    let incidencias = database::incidencias::aprobadas(&mut conn, empresa_id, &desde, &hasta).await?;
    let mut ausencias: HashMap<String, (u32, u32)> = HashMap::new();
    for i in &incidencias {
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
    let cuotas = CuotasImss {
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
    };
    Ok((cuotas, empleados, incidencias))
}

/// The name parts SUA and IDSE write: `nombre` as the Constancia de Situación Fiscal gives it
/// (nombre(s) first, then the surnames) split as nombre(s) = every word but the last two,
/// paterno = the second to last, materno = the last (a two-word name has no materno). A
/// decision: the employee record keeps one name field.
fn partes_nombre(nombre: &str) -> (String, String, String) {
    let palabras: Vec<&str> = nombre.split_whitespace().collect();
    match palabras.len() {
        0 => (String::new(), String::new(), String::new()),
        1 => (palabras[0].to_owned(), String::new(), palabras[0].to_owned()),
        2 => (palabras[1].to_owned(), String::new(), palabras[0].to_owned()),
        n => (palabras[n - 2].to_owned(), palabras[n - 1].to_owned(), palabras[..n - 2].join(" ")),
    }
}

/// SUA's tipo de trabajador (and IDSE's) from c_TipoContrato: 02 obra determinada and 03
/// tiempo determinado are eventual de la ciudad (2); every other contract is permanent (1).
fn tipo_trabajador(tipo_contrato: &str) -> u8 {
    if matches!(tipo_contrato, "02" | "03") { 2 } else { 1 }
}

/// A problem of a generated file, and which file it is in.
#[derive(Serialize, ToSchema, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ProblemaArchivo {
    /// `trabajadores` (SUA workers), `movimientos` (SUA movements) or `idse`.
    pub archivo: &'static str,
    /// The employee left out of the file.
    pub empleado_id: String,
    /// What is wrong (in Spanish, as `timbra_nomina` words it) and what to fix.
    pub mensaje: String,
}

fn problemas<'a>(archivo: &'static str, lista: &'a [ProblemaRegistro]) -> impl Iterator<Item = ProblemaArchivo> + 'a {
    lista.iter().map(move |p| ProblemaArchivo { archivo, empleado_id: p.clave.clone(), mensaje: p.mensaje.clone() })
}

/// `POST /api/nomina/imss/{año}/{mes}/sua`.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SuaGenerado {
    /// The month, AAAA-MM.
    pub periodo: String,
    /// Signed link (valid 3,600 s) to the ZIP with SUA's two import files: `ASEG<año><mes>.txt`
    /// (workers, 164 positions) and `MOVT<año><mes>.txt` (movements, 49 positions).
    pub archivo_url: String,
    /// Workers in the workers file.
    pub trabajadores: usize,
    /// Movements in the movements file.
    pub movimientos: usize,
    /// Σ employer and worker dues of the month of the workers in the file.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(value_type = f64)]
    pub total_cuotas: Decimal,
    /// Workers and movements left out (no NSS, an invalid CURP, an incapacity without folio).
    pub problemas: Vec<ProblemaArchivo>,
    /// The event `nomina.sua_generado` written with the files.
    pub event_id: String,
}

/// The company's registro patronal, or NOMINA_001 naming the field to set.
fn registro(registro: Option<String>) -> ApiResult<String> {
    registro.filter(|r| !r.trim().is_empty()).ok_or_else(|| {
        ApiError::fields(
            Code::Nomina001,
            vec![FieldProblem::new(
                "registroPatronal",
                "the company has no registroPatronal: set it with PATCH /api/empresas/{id}",
            )],
        )
    })
}

/// One ZIP of `archivos` (name, text), deflated.
fn comprimir(archivos: &[(&str, &str)]) -> ApiResult<Vec<u8>> {
    use std::io::Write;
    let mut zip = ::zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opciones = ::zip::write::SimpleFileOptions::default().compression_method(::zip::CompressionMethod::Deflated);
    for (nombre, contenido) in archivos {
        zip.start_file(*nombre, opciones).map_err(|e| ApiError::internal("SUA zip", e))?;
        zip.write_all(contenido.as_bytes()).map_err(|e| ApiError::internal("SUA zip", e))?;
    }
    Ok(zip.finish().map_err(|e| ApiError::internal("SUA zip", e))?.into_inner())
}

/// Writes SUA's import files of month `mes` of `anio` (the month's workers with their SBC, and
/// the month's movements: exits 02, salary changes 07, re-hires 08 from the IMSS history, and
/// the approved absences 11 and disabilities 12) to the file storage and emits
/// `nomina.sua_generado`.
///
/// # Errors
/// NOMINA_001 a bad or future month, no registroPatronal, no primaRiesgo.
pub async fn sua(app: &AppContext, empresa_id: &EmpresaId, anio: &str, mes: &str) -> ApiResult<SuaGenerado> {
    let (anio, mes) = leer_mes(anio, mes)?;
    let hoy = super::empleados::hoy(app);
    if (anio, u8::from(mes)) > (hoy.year(), u8::from(hoy.month())) {
        return Err(ApiError::fields(
            Code::Nomina001,
            vec![FieldProblem::new(
                "mes",
                format!(
                    "{anio}-{:02} has not begun (today is {hoy} in Mexico City): SUA files are for a current or past month",
                    u8::from(mes)
                ),
            )],
        ));
    }
    let rp = {
        let mut conn = app.db.conn().await?;
        database::empresas::ajustes_nomina(&mut conn, empresa_id).await?.registro_patronal
    };
    let rp = registro(rp)?;
    let (cuotas, empleados, incidencias) = calcular(app, empresa_id, anio, mes).await?;
    let periodo = format!("{anio}-{:02}", u8::from(mes));
    let primero = Date::from_calendar_date(anio, mes, 1).map_err(|e| ApiError::internal("month", e))?;
    let ultimo = primero.replace_day(mes.length(anio)).map_err(|e| ApiError::internal("month", e))?;

    let trabajadores: Vec<TrabajadorSua> = empleados
        .iter()
        .zip(&cuotas.trabajadores)
        .map(|(row, c)| {
            let (paterno, materno, nombres) = partes_nombre(&row.nombre);
            Ok(TrabajadorSua {
                clave: row.id.clone(),
                nss: row.nss.clone(),
                rfc: row.rfc.clone(),
                curp: row.curp.clone(),
                apellido_paterno: paterno,
                apellido_materno: materno,
                nombres,
                tipo_trabajador: tipo_trabajador(&row.tipo_contrato),
                jornada: 0,
                fecha_alta: leer_fecha(&row.fecha_inicio_rel_laboral)
                    .ok_or_else(|| ApiError::internal("empleados date", &row.id))?,
                salario_diario_integrado: c.sbc,
                clave_ubicacion: Some(row.num_empleado.clone()),
                credito_infonavit: None,
            })
        })
        .collect::<ApiResult<_>>()?;
    let sbc: HashMap<&str, Decimal> = cuotas.trabajadores.iter().map(|t| (t.empleado_id.as_str(), t.sbc)).collect();
    let nss: HashMap<&str, Option<String>> = empleados.iter().map(|e| (e.id.as_str(), e.nss.clone())).collect();

    let mut movimientos = Vec::new();
    let historial = {
        let mut conn = app.db.conn().await?;
        database::empleados_movimientos::entre(&mut conn, empresa_id, &primero.to_string(), &ultimo.to_string()).await?
    };
    for m in &historial {
        let tipo = match m.tipo.as_str() {
            "BAJA" => TipoMovimientoSua::Baja,
            "MODIFICACION" => TipoMovimientoSua::ModificacionSalario,
            // An ALTA on the hire date is the workers file's fecha de alta; a later one is a re-hire.
            "ALTA" if empleados.iter().any(|e| e.id == m.empleado_id && e.fecha_inicio_rel_laboral == m.fecha) => {
                continue;
            }
            "ALTA" => TipoMovimientoSua::Reingreso,
            _ => continue,
        };
        let fecha = leer_fecha(&m.fecha).ok_or_else(|| ApiError::internal("movimiento date", &m.id))?;
        movimientos.push(MovimientoSua {
            clave: m.empleado_id.clone(),
            nss: m.nss.clone(),
            tipo,
            fecha,
            folio_incapacidad: None,
            dias: 0,
            salario_diario_integrado: sbc_de(m.salario_diario_integrado.0, fecha),
        });
    }
    for i in &incidencias {
        let tipo = match i.tipo.as_str() {
            "FALTA" => TipoMovimientoSua::Ausentismo,
            "INCAPACIDAD" => TipoMovimientoSua::Incapacidad,
            _ => continue,
        };
        let fecha = leer_fecha(&i.fecha).ok_or_else(|| ApiError::internal("incidencia date", &i.id))?;
        movimientos.push(MovimientoSua {
            clave: i.empleado_id.clone(),
            nss: nss.get(i.empleado_id.as_str()).cloned().flatten(),
            tipo,
            fecha,
            // timbra's incidences carry no IMSS folio: SUA's 12 needs it (listed as a problem).
            folio_incapacidad: None,
            dias: i.dias.and_then(|d| u32::try_from(d).ok()).unwrap_or(0),
            salario_diario_integrado: sbc.get(i.empleado_id.as_str()).copied().unwrap_or_default(),
        });
    }
    movimientos.sort_by_key(|m| m.fecha);

    let archivo_error = |e: timbra_nomina::ancho_fijo::ErrorArchivo| {
        ApiError::fields(Code::Nomina001, vec![FieldProblem::new("registroPatronal", e.to_string())])
    };
    let aseg: Archivo = sua::archivo_trabajadores(&rp, &trabajadores).map_err(archivo_error)?;
    let movt: Archivo = sua::archivo_movimientos(&rp, &movimientos).map_err(archivo_error)?;
    let fuera: std::collections::HashSet<&str> = aseg.problemas.iter().map(|p| p.clave.as_str()).collect();
    let total_cuotas = cuotas
        .trabajadores
        .iter()
        .filter(|t| !fuera.contains(t.empleado_id.as_str()))
        .map(|t| t.cuotas_patronal + t.cuotas_obrero)
        .sum::<Decimal>();
    let sufijo = format!("{anio}{:02}", u8::from(mes));
    let (nombre_aseg, nombre_movt) = (format!("ASEG{sufijo}.txt"), format!("MOVT{sufijo}.txt"));
    let bytes =
        comprimir(&[(nombre_aseg.as_str(), aseg.contenido.as_str()), (nombre_movt.as_str(), movt.contenido.as_str())])?;
    let path = format!("nomina/{empresa_id}/sua/SUA-{rp}-{periodo}.zip");
    app.cfdi.storage.put(&path, bytes).await.map_err(|e| ApiError::storage(e, "SUA files"))?;
    let now = app.clock.now();
    let archivo_url = links::url(&app.cfdi.link_secret()?, &path, now.unix_timestamp());
    let evento = NominaSuaGenerado {
        periodo: periodo.clone(),
        archivo_url: archivo_url.clone(),
        trabajadores: i64::try_from(aseg.registros).unwrap_or(i64::MAX),
        total_cuotas,
    };
    let mut tx = app.db.begin().await?;
    let event_id = events::emit(&mut tx, now, empresa_id, &Event::NominaSuaGenerado(evento)).await?;
    tx.commit().await?;
    Ok(SuaGenerado {
        periodo,
        archivo_url,
        trabajadores: aseg.registros,
        movimientos: movt.registros,
        total_cuotas,
        problemas: problemas("trabajadores", &aseg.problemas)
            .chain(problemas("movimientos", &movt.problemas))
            .collect(),
        event_id,
    })
}

/// The SBC of an SDI on `fecha` (25 UMA cap, SM floor), or the SDI itself for a date without
/// parameters (before 2025).
fn sbc_de(sdi: Decimal, fecha: Date) -> Decimal {
    match Parametros::vigentes(fecha) {
        Ok(p) => imss_patronal::salario_base_cotizacion(sdi, p.uma.diaria, p.salario_minimo.general),
        Err(_) => sdi,
    }
}

/// One movement of the IDSE batch, as `formato=json` lists it.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct MovimientoAfiliatorio {
    /// The employee.
    pub empleado_id: String,
    /// NumEmpleado (the clave del trabajador of the file).
    pub num_empleado: String,
    /// Name.
    pub nombre: String,
    /// NSS (null: the employee has none, the movement is left out of the file).
    pub nss: Option<String>,
    /// CURP.
    pub curp: String,
    /// IDSE's tipo de movimiento: 08 alta or reingreso, 07 modificación de salario, 02 baja.
    pub tipo_movimiento: &'static str,
    /// ALTA, MODIFICACION or BAJA.
    pub movimiento: String,
    /// Effective date, AAAA-MM-DD.
    pub fecha: String,
    /// SBC registered (08, 07): the SDI within the SM and 25 UMA; null for a baja.
    #[serde(with = "rust_decimal::serde::arbitrary_precision_option")]
    #[schema(value_type = Option<f64>)]
    pub sbc: Option<Decimal>,
    /// A baja's causa (1–9, A), from its motivo; null otherwise.
    pub causa_baja: Option<String>,
    /// The baja's motivo (RENUNCIA, ...), when it gave one.
    pub motivo: Option<String>,
}

/// `GET /api/nomina/imss/movimientos?formato=json`.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct MovimientosIdse {
    /// The employer registration of every line.
    pub registro_patronal: String,
    /// First day, AAAA-MM-DD.
    pub desde: String,
    /// Last day, AAAA-MM-DD.
    pub hasta: String,
    /// The movements in effect from desde to hasta, by date.
    pub movimientos: Vec<MovimientoAfiliatorio>,
    /// Movements left out of the file (no NSS, an invalid CURP).
    pub problemas: Vec<ProblemaArchivo>,
    /// Lines in the file.
    pub registros: usize,
    /// The file (DISPMAG, 168 positions, CR LF), as `GET` without `formato` answers it.
    #[serde(skip)]
    pub archivo: String,
}

/// The IDSE batch of the company's IMSS movements effective from `desde` to `hasta`.
///
/// # Errors
/// NOMINA_001 a missing or malformed date, desde after hasta, no registroPatronal.
pub async fn movimientos(
    app: &AppContext,
    empresa_id: &EmpresaId,
    desde: Option<&str>,
    hasta: Option<&str>,
) -> ApiResult<MovimientosIdse> {
    let mut problems = Vec::new();
    let mut fecha = |campo: &str, texto: Option<&str>| match texto.map(str::trim).filter(|t| !t.is_empty()) {
        None => {
            problems.push(FieldProblem::new(campo, format!("{campo} is required: a date AAAA-MM-DD")));
            None
        }
        Some(t) => {
            let leida = time::Date::parse(t, time::macros::format_description!("[year]-[month]-[day]")).ok();
            if leida.is_none() {
                problems.push(FieldProblem::new(campo, format!("{campo} {t:?} is not a date AAAA-MM-DD")));
            }
            leida
        }
    };
    let (desde, hasta) = (fecha("desde", desde), fecha("hasta", hasta));
    if let (Some(d), Some(h)) = (desde, hasta)
        && d > h
    {
        problems.push(FieldProblem::new("hasta", format!("hasta {h} is before desde {d}")));
    }
    let (Some(desde), Some(hasta), true) = (desde, hasta, problems.is_empty()) else {
        return Err(ApiError::fields(Code::Nomina001, problems));
    };
    let mut conn = app.db.conn().await?;
    let rp = registro(database::empresas::ajustes_nomina(&mut conn, empresa_id).await?.registro_patronal)?;
    let filas =
        database::empleados_movimientos::entre(&mut conn, empresa_id, &desde.to_string(), &hasta.to_string()).await?;
    drop(conn);
    let mut registros = Vec::with_capacity(filas.len());
    let mut lista = Vec::with_capacity(filas.len());
    for m in filas {
        let fecha = leer_fecha(&m.fecha).ok_or_else(|| ApiError::internal("movimiento date", &m.id))?;
        let sbc = sbc_de(m.salario_diario_integrado.0, fecha);
        let motivo_baja = m
            .motivo
            .as_deref()
            .and_then(|t| serde_json::from_value::<MotivoBaja>(serde_json::Value::String(t.to_owned())).ok())
            // A deactivation without motivo (DELETE, PATCH activo false): causa 6, "otras".
            .unwrap_or(MotivoBaja::MutuoAcuerdo);
        let (movimiento, tipo) = match m.tipo.as_str() {
            "ALTA" => (
                MovimientoIdse::Alta {
                    sbc,
                    tipo_trabajador: tipo_trabajador(&m.tipo_contrato),
                    tipo_salario: TipoSalario::Fijo,
                    jornada: 0,
                    umf: String::new(),
                },
                "08",
            ),
            "MODIFICACION" => {
                (MovimientoIdse::ModificacionSalario { sbc, tipo_salario: TipoSalario::Fijo, jornada: 0 }, "07")
            }
            _ => (MovimientoIdse::Baja { motivo: motivo_baja }, "02"),
        };
        let (paterno, materno, nombres) = partes_nombre(&m.nombre);
        let baja = tipo == "02";
        lista.push(MovimientoAfiliatorio {
            empleado_id: m.empleado_id.clone(),
            num_empleado: m.num_empleado.clone(),
            nombre: m.nombre.clone(),
            nss: m.nss.clone(),
            curp: m.curp.clone(),
            tipo_movimiento: tipo,
            movimiento: m.tipo.clone(),
            fecha: m.fecha.clone(),
            sbc: (!baja).then_some(sbc),
            causa_baja: baja.then(|| motivo_baja.causa_baja_imss().to_string()),
            motivo: m.motivo.clone(),
        });
        registros.push(RegistroIdse {
            clave: m.num_empleado,
            nss: m.nss,
            curp: m.curp,
            apellido_paterno: paterno,
            apellido_materno: materno,
            nombres,
            fecha,
            guia: String::new(),
            movimiento,
        });
    }
    let archivo = idse::archivo_idse(&rp, &registros)
        .map_err(|e| ApiError::fields(Code::Nomina001, vec![FieldProblem::new("registroPatronal", e.to_string())]))?;
    // The file's problems name the clave (numEmpleado); the list names the employee.
    let problemas = archivo
        .problemas
        .iter()
        .map(|p| ProblemaArchivo {
            archivo: "idse",
            empleado_id: lista.get(p.indice).map_or_else(|| p.clave.clone(), |m| m.empleado_id.clone()),
            mensaje: p.mensaje.clone(),
        })
        .collect();
    Ok(MovimientosIdse {
        registro_patronal: rp,
        desde: desde.to_string(),
        hasta: hasta.to_string(),
        movimientos: lista,
        problemas,
        registros: archivo.registros,
        archivo: archivo.contenido,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_as_the_constancia_writes_them() {
        let partes = |n: &str| partes_nombre(n);
        assert_eq!(partes("JUAN CARLOS PEREZ LOPEZ"), ("PEREZ".into(), "LOPEZ".into(), "JUAN CARLOS".into()));
        assert_eq!(partes("ANA PEREZ"), ("PEREZ".into(), String::new(), "ANA".into()));
        assert_eq!(tipo_trabajador("03"), 2);
        assert_eq!(tipo_trabajador("01"), 1);
    }
}
