//! `timbra cfdi …`: checks of a CFDI file for accountants and support staff. Each command
//! prints what it found and returns success only when all is well.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use timbra_cfdi::{cadena, parser, sello, validacion};
use timbra_credentials::Certificate;

/// The `cfdi` subcommands.
#[derive(Subcommand)]
pub enum CfdiCommand {
    /// Print the cadena original of a CFDI (`--tfd`: that of its TimbreFiscalDigital).
    Cadena {
        /// The CFDI XML file.
        file: PathBuf,
        /// Print the TFD's cadena instead.
        #[arg(long)]
        tfd: bool,
    },
    /// Verify the issuer's seal (and the TFD's SelloSAT given the stamping certificate), then
    /// print every validation problem.
    Verify {
        /// The CFDI XML file.
        file: PathBuf,
        /// The stamping certificate (.cer) named by NoCertificadoSAT, to verify the TFD.
        #[arg(long)]
        sat_cert: Option<PathBuf>,
    },
    /// Run the validation rules with SAT's catalogs as the service ships them (no database
    /// needed) and print every problem with its rule id and field.
    Validate {
        /// The CFDI XML file.
        file: PathBuf,
    },
}

fn read(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8", path.display()))
}

/// Runs one command, printing to stdout/stderr.
pub fn run(command: CfdiCommand) -> ExitCode {
    match execute(command) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn execute(command: CfdiCommand) -> Result<bool, String> {
    match command {
        CfdiCommand::Cadena { file, tfd } => {
            let xml = read(&file)?;
            let text =
                if tfd { cadena::tfd_desde_xml(&xml) } else { cadena::desde_xml(&xml) }.map_err(|e| e.to_string())?;
            print!("{text}");
            Ok(true)
        }
        CfdiCommand::Verify { file, sat_cert } => {
            let xml = read(&file)?;
            let mut ok = true;
            match sello::verificar_sello_xml(&xml) {
                Ok(verified) => println!(
                    "sello: ok (certificate {} of {}, {})",
                    verified.certificado.no_certificado(),
                    verified.certificado.rfc(),
                    verified.certificado.kind()
                ),
                Err(error) => {
                    ok = false;
                    println!("sello: FAILED: {error}");
                }
            }
            if let Some(path) = sat_cert {
                let der = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                let certificate = Certificate::from_bytes(&der).map_err(|e| e.to_string())?;
                match sello::verificar_timbre_xml(&xml, &certificate) {
                    Ok(_) => println!("timbre: ok (SelloSAT verifies with {})", certificate.no_certificado()),
                    Err(error) => {
                        ok = false;
                        println!("timbre: FAILED: {error}");
                    }
                }
            }
            Ok(validate(&xml)? && ok)
        }
        CfdiCommand::Validate { file } => validate(&read(&file)?),
    }
}

/// Validates with the catalogs the service ships, the ones a sandbox stamp is checked against
/// (issue 38: without them a code SAT does not have passed unnoticed).
fn validate(xml: &str) -> Result<bool, String> {
    let comprobante = parser::parsear(xml).map_err(|e| e.to_string())?;
    let catalogos = timbra_services::catalogos::incluidos();
    let edicion = catalogos.edicion.map_or_else(|| "sin fecha".to_owned(), |fecha| fecha.to_string());
    println!("catalogs: SAT's edition {edicion}, as shipped");
    let informe = validacion::validar(&comprobante, catalogos.indice.as_ref());
    for problema in &informe.problemas {
        println!("{} {}: {}", problema.regla, problema.campo, problema.mensaje);
    }
    for omitida in &informe.omitidas {
        println!("skipped: {omitida}");
    }
    if informe.problemas.is_empty() {
        println!("validation: ok");
    }
    Ok(informe.problemas.is_empty())
}
