//! `timbra timbres …` and `timbra operadores …`: what only the installation's operator does,
//! on the server's own command line. Stamps are bought from the PAC by whoever runs the
//! installation, so adding them to a company's balance is the operator's act, never a
//! company role's (issue 28, finding 5).

use clap::Subcommand;
use timbra_store::ids::EmpresaId;

use timbra_services::config::Config;

/// The `timbres` subcommands.
#[derive(Subcommand)]
pub enum TimbresCommand {
    /// Add stamps to a company's balance (recorded as a movement without an account).
    Recargar {
        /// The company's id.
        #[arg(long)]
        empresa: String,
        /// Stamps to add, 1 to 10,000,000.
        #[arg(long)]
        cantidad: i64,
        /// Note kept with the movement (e.g. the payment reference).
        #[arg(long)]
        concepto: Option<String>,
    },
}

/// The `operadores` subcommands.
#[derive(Subcommand)]
pub enum OperadoresCommand {
    /// Make a registered account an operator: it may then top up any company's stamps with
    /// `POST /api/timbres/recargas`.
    Agregar {
        /// The account's email.
        email: String,
    },
    /// Take the operator role from an account.
    Quitar {
        /// The account's email.
        email: String,
    },
    /// List the operators' emails.
    Listar,
}

/// Runs `timbra timbres …` on the configured database (migrated first).
pub async fn timbres(config: &Config, command: TimbresCommand) -> anyhow::Result<()> {
    let db = crate::open(config).await?;
    let result = match command {
        TimbresCommand::Recargar { empresa, cantidad, concepto } => {
            let now = config.clock.now();
            timbra_services::cfdi::timbres::recargar(
                &db,
                &EmpresaId::from(&empresa),
                Some(cantidad),
                concepto.as_deref(),
                None,
                now,
            )
            .await
        }
    };
    db.close().await;
    let saldo = result.map_err(|error| anyhow::anyhow!("{}: {}", error.code.as_str(), error.message))?;
    println!("saldo: {saldo}");
    Ok(())
}

/// Runs `timbra operadores …` on the configured database (migrated first).
pub async fn operadores(config: &Config, command: OperadoresCommand) -> anyhow::Result<()> {
    use timbra_store::{operadores, users};
    let db = crate::open(config).await?;
    let result = async {
        let mut conn = db.conn().await?;
        let cuenta = async |conn: &mut timbra_store::DbConn, email: &str| {
            users::por_email(conn, email)
                .await?
                .ok_or_else(|| anyhow::anyhow!("no active account has the email {email:?}; register it first"))
        };
        match command {
            OperadoresCommand::Agregar { email } => {
                let user = cuenta(&mut conn, &email).await?;
                let nuevo = operadores::agregar(&mut conn, &user.id, config.clock.now()).await?;
                println!("{}: {}", user.email, if nuevo { "now an operator" } else { "already an operator" });
            }
            OperadoresCommand::Quitar { email } => {
                let user = cuenta(&mut conn, &email).await?;
                let quitado = operadores::quitar(&mut conn, &user.id).await?;
                println!("{}: {}", user.email, if quitado { "no longer an operator" } else { "was not an operator" });
            }
            OperadoresCommand::Listar => {
                for email in operadores::listar(&mut conn).await? {
                    println!("{email}");
                }
            }
        }
        anyhow::Ok(())
    }
    .await;
    db.close().await;
    result
}
