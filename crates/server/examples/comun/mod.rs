//! What the payroll benches share (`nomina_bench`, `nomina_anual_bench`): the arguments, a
//! fresh database with one company and its owner, the test employees, and the timing summary.

use std::time::Duration;

use rust_decimal::Decimal;
use timbra_services::config::Config;
use timbra_services::context::AppContext;
use timbra_store::{Db, Tx, empleados, sql};
use time::OffsetDateTime;

/// What [`abrir`] gives a bench.
pub struct Banco {
    /// Employees.
    pub total: usize,
    /// Timed runs.
    pub runs: usize,
    pub db: Db,
    pub app: AppContext,
    /// A new company id (its row is written by [`empresa`]).
    pub empresa: String,
    /// The data folder, removed by the bench at the end.
    pub dir: std::path::PathBuf,
}

/// `[employees] [runs] [database url]` (defaults 1000, 20, a fresh SQLite file in a new data
/// folder) and the app on that database.
pub async fn abrir() -> anyhow::Result<Banco> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let total: usize = args.first().map_or(Ok(1000), |a| a.parse())?;
    let runs: usize = args.get(1).map_or(Ok(20), |a| a.parse())?;
    let dir = std::env::temp_dir().join(format!("timbra-bench-{}", uuid::Uuid::new_v4()));
    let mut config = Config::from_lookup(|_| None)?;
    config.data_dir = dir.clone();
    config.database_url =
        args.get(2).cloned().unwrap_or_else(|| format!("sqlite://{}", dir.join("timbra.db").display()));
    let db = timbra_server::open(&config).await?;
    let app = AppContext::new(db.clone(), config);
    Ok(Banco { total, runs, db, app, empresa: format!("e{}", uuid::Uuid::new_v4().simple()), dir })
}

/// The company `empresa` (sandbox EKU9003173C9) and its owner, with the employer registration
/// and prima de riesgo the IMSS figures need.
pub async fn empresa(tx: &mut Tx, empresa: &str, now: OffsetDateTime) -> anyhow::Result<()> {
    sql!(
        execute * tx,
        "INSERT INTO users (id, name, email, email_lower, password_hash, created_at, updated_at) \
        VALUES ($1, 'Bench', $2, $2, 'x', $3, $3)",
        empresa,
        format!("{empresa}@example.com"),
        now
    )?;
    sql!(
        execute * tx,
        "INSERT INTO empresas (id, owner_user_id, rfc, razon_social, regimen_fiscal, codigo_postal, sandbox, \
        serie_predeterminada, created_at, updated_at, registro_patronal, prima_riesgo) \
        VALUES ($1, $1, 'EKU9003173C9', 'BENCH', '601', '42501', $2, 'A', $3, $3, 'B5510768108', $4)",
        empresa,
        true,
        now,
        timbra_store::Money(Decimal::new(54_355, 5))
    )?;
    Ok(())
}

/// A QUINCENAL employee of number `num`, RFC `rfc` and CURP `curp`, hired on `inicio`, earning
/// `salario` a day (SDI with the first year's integration factor, 1.0493).
pub fn empleado<'a>(
    num: &'a str,
    rfc: &'a str,
    curp: &'a str,
    inicio: &'a str,
    salario: Decimal,
) -> empleados::Datos<'a> {
    empleados::Datos {
        num_empleado: num,
        nombre: "EMPLEADO DE PRUEBA",
        rfc,
        curp,
        nss: Some("12100000004"),
        codigo_postal: "06600",
        fecha_inicio_rel_laboral: inicio,
        salario_diario: salario,
        salario_diario_integrado: (salario * Decimal::new(10_493, 4)).round_dp(2),
        periodicidad: "QUINCENAL",
        tipo_contrato: "01",
        tipo_jornada: Some("01"),
        tipo_regimen: "02",
        riesgo_puesto: "2",
        departamento: None,
        puesto: None,
        banco: None,
        cuenta_bancaria: None,
        clave_ent_fed: "CMX",
        activo: true,
        fecha_baja: None,
        confianza: false,
        director: false,
        email: None,
    }
}

/// Prints min / median / max of `tiempos`.
pub fn resumen(nombre: &str, mut tiempos: Vec<Duration>) {
    tiempos.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{nombre}: min {:.1} ms, median {:.1} ms, max {:.1} ms over {} runs",
        ms(tiempos[0]),
        ms(tiempos[tiempos.len() / 2]),
        ms(tiempos[tiempos.len() - 1]),
        tiempos.len()
    );
}
