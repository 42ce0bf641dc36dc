//! `timbra catalogos …`: SAT's catalogs on the server's command line (issue 29). The service
//! ships an edition; `importar` loads a newer one from SAT's files into the database, where
//! every instance reads it at its next start.

use std::path::PathBuf;

use clap::Subcommand;
use time::Date;

use timbra_catalogos::{Edicion, paquete};
use timbra_services::catalogos::CatalogosSat;
use timbra_services::config::Config;

/// The `catalogos` subcommands.
#[derive(Subcommand)]
pub enum CatalogosCommand {
    /// Load an edition from a folder of SAT's catalogs as CSV (`cfdi40/c_Moneda.csv`, …, the
    /// layout timbra ships), in one transaction; prints what changed. Running it again with the
    /// same files changes nothing. Instances use it from their next start.
    Importar {
        /// The folder.
        dir: PathBuf,
        /// SAT's publication date of the edition (AAAA-MM-DD); by default the folder's
        /// `edicion.txt`, else the newest date in its rows.
        #[arg(long)]
        edicion: Option<String>,
    },
    /// Print the edition in use (shipped or imported) and each catalog's row count.
    Estado,
}

/// Runs `timbra catalogos …` on the configured database (migrated first).
pub async fn run(config: &Config, command: CatalogosCommand) -> anyhow::Result<()> {
    let db = crate::open(config).await?;
    let result = match command {
        CatalogosCommand::Importar { dir, edicion } => importar(config, &db, dir, edicion).await,
        CatalogosCommand::Estado => estado(&db).await,
    };
    db.close().await;
    result
}

async fn importar(config: &Config, db: &timbra_store::Db, dir: PathBuf, edicion: Option<String>) -> anyhow::Result<()> {
    let fecha = match edicion {
        Some(texto) => Some(
            Date::parse(&texto, time::macros::format_description!("[year]-[month]-[day]"))
                .map_err(|_| anyhow::anyhow!("--edicion {texto:?}: write the date as AAAA-MM-DD"))?,
        ),
        None => None,
    };
    let (leida, archivos) = Edicion::leer_directorio_y_archivos(&dir, fecha)
        .map_err(|error| anyhow::anyhow!("{}: {error}", dir.display()))?;
    let datos = paquete::escribir(leida.fecha, &archivos)?;
    // Validation must be able to hold it: read it as an instance will at start.
    CatalogosSat::de(&leida, timbra_services::catalogos::Origen::Importada)?;
    let now = config.clock.now();
    // The diff is against what the service held: the shipped edition on a database that never
    // imported one.
    timbra_store::catalogos::asegurar_incluida(db, now).await.map_err(|error| anyhow::anyhow!("{error}"))?;
    let cambios =
        timbra_store::catalogos::importar(db, &leida, &datos, now).await.map_err(|error| anyhow::anyhow!("{error}"))?;
    println!("edición {} importada de {}", leida.fecha, dir.display());
    if cambios.is_empty() {
        println!("sin cambios");
    } else {
        print!("{cambios}");
    }
    let incluida = Edicion::fecha_incluida()?;
    if leida.fecha <= incluida {
        println!(
            "aviso: la edición incluida en timbra ({incluida}) es igual o más reciente; las instancias siguen usándola"
        );
    } else {
        println!("las instancias la usan desde su próximo inicio");
    }
    Ok(())
}

async fn estado(db: &timbra_store::Db) -> anyhow::Result<()> {
    let (en_uso, origen) = timbra_services::catalogos::edicion_en_uso(db).await?;
    println!("edición en uso: {} ({})", en_uso.fecha, origen.as_str());
    for catalogo in &en_uso.catalogos {
        println!("{:<40} {:>8} filas", catalogo.id, catalogo.filas.len());
    }
    Ok(())
}
