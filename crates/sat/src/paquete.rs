//! Reading descarga masiva packages (PROTOCOLS.md §1.8): a ZIP of `<UUID>.xml` CFDI, or of
//! `<IdPaquete>.txt` metadata (`~`-separated, header first) with an optional
//! `*_tercero.txt`. Each CFDI is parsed with `timbra_cfdi::parser`, its issuer seal verified,
//! and its TFD `SelloSAT` verified when SAT's certificate for `NoCertificadoSAT` is known.
//! Pure: the certificates are handed in ([`CertificadosSat`]).

use std::collections::HashMap;
use std::io::{Cursor, Read};
use std::path::Path;

use timbra_cfdi::Comprobante;
use timbra_cfdi::{parser, sello};
use timbra_credentials::Certificate;

use crate::error::SatError;

/// SAT's stamping certificates by `NoCertificado` (those that sign `SelloSAT`).
#[derive(Clone, Debug, Default)]
pub struct CertificadosSat {
    por_numero: HashMap<String, Certificate>,
}

impl CertificadosSat {
    /// No certificate: every `SelloSAT` is recorded as not verified.
    pub fn vacio() -> Self {
        CertificadosSat::default()
    }

    /// Adds a certificate (keyed by its `NoCertificado`).
    pub fn agregar(&mut self, certificado: Certificate) {
        self.por_numero.insert(certificado.no_certificado().to_owned(), certificado);
    }

    /// Every `.cer` in `carpeta` (DER or PEM) that reads as a certificate; other files are
    /// skipped (`TIMBRA_SAT_CERTS_DIR`).
    ///
    /// # Errors
    /// [`SatError::Configuracion`] when the folder cannot be read.
    pub fn desde_carpeta(carpeta: &Path) -> Result<Self, SatError> {
        let mut certificados = CertificadosSat::vacio();
        let entradas = std::fs::read_dir(carpeta)
            .map_err(|e| SatError::Configuracion(format!("carpeta {}: {e}", carpeta.display())))?;
        for entrada in entradas.flatten() {
            let ruta = entrada.path();
            if !ruta.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("cer")) {
                continue;
            }
            if let Ok(bytes) = std::fs::read(&ruta)
                && let Ok(certificado) = Certificate::from_bytes(&bytes)
            {
                certificados.agregar(certificado);
            }
        }
        Ok(certificados)
    }

    /// The certificate with this number.
    pub fn buscar(&self, no_certificado: &str) -> Option<&Certificate> {
        self.por_numero.get(no_certificado.trim())
    }

    /// How many certificates are known.
    pub fn len(&self) -> usize {
        self.por_numero.len()
    }

    /// Whether none is known.
    pub fn is_empty(&self) -> bool {
        self.por_numero.is_empty()
    }
}

/// The issuer seal (`Sello`) check of a CFDI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EstadoSello {
    /// The seal verifies with the embedded certificate over the cadena original.
    Verificado,
    /// It does not (reason).
    Invalido(String),
}

/// The TFD `SelloSAT` check of a CFDI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EstadoTimbre {
    /// Verified with SAT's certificate for `NoCertificadoSAT`.
    Verificado {
        /// `NoCertificadoSAT`.
        no_certificado_sat: String,
    },
    /// SAT's certificate for `NoCertificadoSAT` is not in the configured folder.
    NoVerificado {
        /// `NoCertificadoSAT`.
        no_certificado_sat: String,
    },
    /// It does not verify (reason).
    Invalido(String),
    /// The document has no TimbreFiscalDigital.
    SinTimbre,
}

/// A CFDI read from a package.
#[derive(Clone, Debug)]
pub struct DocumentoCfdi {
    /// Entry name in the ZIP.
    pub nombre: String,
    /// Folio fiscal from the TFD (upper-case), or the entry's stem when there is no TFD.
    pub uuid: String,
    /// The XML as delivered.
    pub xml: String,
    /// The parsed document.
    pub comprobante: Comprobante,
    /// Issuer seal check.
    pub sello: EstadoSello,
    /// TFD check.
    pub timbre: EstadoTimbre,
}

/// An XML entry that could not be read as a CFDI 4.0 (PARSE_ERROR for that document).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentoIlegible {
    /// Entry name in the ZIP.
    pub nombre: String,
    /// Why.
    pub motivo: String,
}

/// One metadata row (PROTOCOLS.md §1.8). Unknown columns are kept in `extra`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadato {
    /// `Uuid` (upper-case).
    pub uuid: String,
    /// `RfcEmisor`.
    pub rfc_emisor: String,
    /// `NombreEmisor`.
    pub nombre_emisor: String,
    /// `RfcReceptor`.
    pub rfc_receptor: String,
    /// `NombreReceptor`.
    pub nombre_receptor: String,
    /// `RfcPac`.
    pub rfc_pac: String,
    /// `FechaEmision` (`YYYY-MM-DD HH:MM:SS`).
    pub fecha_emision: String,
    /// `FechaCertificacionSat`.
    pub fecha_certificacion_sat: String,
    /// `Monto`, as written.
    pub monto: String,
    /// `EfectoComprobante` (I, E, T, N, P).
    pub efecto_comprobante: String,
    /// `Estatus`: `1` vigente, `0` cancelado.
    pub estatus: String,
    /// `FechaCancelacion` (empty while vigente).
    pub fecha_cancelacion: String,
    /// `RfcACuentaTerceros` from the `_tercero.txt` companion, when present.
    pub rfc_a_cuenta_terceros: Option<String>,
    /// `NombreACuentaTerceros` from the companion.
    pub nombre_a_cuenta_terceros: Option<String>,
    /// Columns not listed above: (header, value).
    pub extra: Vec<(String, String)>,
}

impl Metadato {
    /// `Estatus` is `1`.
    pub fn vigente(&self) -> bool {
        self.estatus.trim() == "1"
    }
}

/// The contents of a package.
#[derive(Clone, Debug, Default)]
pub struct Paquete {
    /// CFDI read (CFDI requests).
    pub documentos: Vec<DocumentoCfdi>,
    /// XML entries that are not a readable CFDI 4.0.
    pub ilegibles: Vec<DocumentoIlegible>,
    /// Metadata rows (metadata requests).
    pub metadatos: Vec<Metadato>,
}

/// Reads a package: every `*.xml` at the ZIP root as a CFDI, every `*.txt` as metadata
/// (`*_tercero.txt` joined by UUID); other entries (folders, `__MACOSX/`) are ignored.
///
/// # Errors
/// [`SatError::PaqueteVacio`] for no bytes or a ZIP with neither CFDI nor metadata;
/// [`SatError::Parseo`] for bytes that are not a ZIP or an unreadable entry.
pub fn leer_paquete(bytes: &[u8], certificados: &CertificadosSat) -> Result<Paquete, SatError> {
    if bytes.is_empty() {
        return Err(SatError::PaqueteVacio);
    }
    let parseo = |motivo: String| SatError::Parseo { que: "paquete".into(), motivo };
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| parseo(format!("no es un ZIP: {e}")))?;
    let mut paquete = Paquete::default();
    let mut terceros: HashMap<String, (String, String)> = HashMap::new();
    for indice in 0..zip.len() {
        let mut entrada = zip.by_index(indice).map_err(|e| parseo(format!("entrada {indice}: {e}")))?;
        let nombre = entrada.name().map_err(|e| parseo(format!("entrada {indice}: {e}")))?.into_owned();
        if entrada.is_dir() || nombre.contains('/') || nombre.contains('\\') {
            continue;
        }
        let minusculas = nombre.to_ascii_lowercase();
        let es_xml = minusculas.ends_with(".xml");
        let es_txt = minusculas.ends_with(".txt");
        if !es_xml && !es_txt {
            continue;
        }
        let mut contenido = Vec::new();
        entrada.read_to_end(&mut contenido).map_err(|e| parseo(format!("{nombre}: {e}")))?;
        if es_xml {
            match leer_cfdi(&nombre, contenido, certificados) {
                Ok(documento) => paquete.documentos.push(documento),
                Err(motivo) => paquete.ilegibles.push(DocumentoIlegible { nombre, motivo }),
            }
        } else {
            let texto = String::from_utf8_lossy(&contenido);
            if minusculas.ends_with("_tercero.txt") {
                for fila in filas(&texto) {
                    let uuid = fila.get("Uuid").cloned().unwrap_or_default().to_uppercase();
                    let rfc = fila.get("RfcACuentaTerceros").cloned().unwrap_or_default();
                    let nombre_tercero = fila.get("NombreACuentaTerceros").cloned().unwrap_or_default();
                    terceros.insert(uuid, (rfc, nombre_tercero));
                }
            } else {
                paquete.metadatos.extend(leer_metadatos(&texto));
            }
        }
    }
    for metadato in &mut paquete.metadatos {
        if let Some((rfc, nombre)) = terceros.get(&metadato.uuid) {
            metadato.rfc_a_cuenta_terceros = Some(rfc.clone());
            metadato.nombre_a_cuenta_terceros = Some(nombre.clone());
        }
    }
    if paquete.documentos.is_empty() && paquete.ilegibles.is_empty() && paquete.metadatos.is_empty() {
        return Err(SatError::PaqueteVacio);
    }
    Ok(paquete)
}

fn leer_cfdi(nombre: &str, contenido: Vec<u8>, certificados: &CertificadosSat) -> Result<DocumentoCfdi, String> {
    let xml = String::from_utf8(contenido).map_err(|_| "no es UTF-8".to_owned())?;
    // A UTF-8 byte order mark is tolerated (some PACs write it).
    let xml = xml.strip_prefix('\u{feff}').map(str::to_owned).unwrap_or(xml);
    let comprobante = parser::parsear(&xml).map_err(|e| e.to_string())?;
    let sello = match sello::verificar_sello_xml(&xml) {
        Ok(_) => EstadoSello::Verificado,
        Err(error) => EstadoSello::Invalido(error.to_string()),
    };
    let (uuid, timbre) = match comprobante.timbre() {
        None => {
            let stem = nombre.rsplit_once('.').map_or(nombre, |(stem, _)| stem).to_uppercase();
            (stem, EstadoTimbre::SinTimbre)
        }
        Some(tfd) => {
            let numero = tfd.no_certificado_sat.trim().to_owned();
            let timbre = match certificados.buscar(&numero) {
                None => EstadoTimbre::NoVerificado { no_certificado_sat: numero },
                Some(certificado) => match sello::verificar_timbre_xml(&xml, certificado) {
                    Ok(_) => EstadoTimbre::Verificado { no_certificado_sat: numero },
                    Err(error) => EstadoTimbre::Invalido(error.to_string()),
                },
            };
            (tfd.uuid.trim().to_uppercase(), timbre)
        }
    };
    Ok(DocumentoCfdi { nombre: nombre.to_owned(), uuid, xml, comprobante, sello, timbre })
}

/// Records of a `~`-separated text with a header line, as maps header → value. Records end
/// in CRLF; a bare LF inside a record (names) becomes a space (PROTOCOLS.md §1.8). Files with
/// LF-only line ends are split on LF.
fn filas(texto: &str) -> Vec<HashMap<String, String>> {
    let texto = texto.strip_prefix('\u{feff}').unwrap_or(texto);
    let registros: Vec<String> = if texto.contains("\r\n") {
        texto.split("\r\n").map(|r| r.replace('\n', " ")).collect()
    } else {
        texto.split('\n').map(str::to_owned).collect()
    };
    let mut iter = registros.into_iter().filter(|r| !r.trim().is_empty());
    let Some(cabecera) = iter.next() else { return Vec::new() };
    let columnas: Vec<String> = cabecera.split('~').map(|c| c.trim().to_owned()).collect();
    iter.map(|registro| {
        let mut fila = HashMap::new();
        let valores: Vec<&str> = registro.split('~').collect();
        for (posicion, valor) in valores.iter().enumerate() {
            let columna = columnas.get(posicion).cloned().unwrap_or_else(|| format!("#extra-{:02}", posicion + 1));
            fila.insert(columna, valor.trim().to_owned());
        }
        fila
    })
    .collect()
}

const COLUMNAS: [&str; 12] = [
    "Uuid",
    "RfcEmisor",
    "NombreEmisor",
    "RfcReceptor",
    "NombreReceptor",
    "RfcPac",
    "FechaEmision",
    "FechaCertificacionSat",
    "Monto",
    "EfectoComprobante",
    "Estatus",
    "FechaCancelacion",
];

/// Parses a metadata text (header line, `~` separator), by header name; missing columns
/// are empty, unknown ones go to [`Metadato::extra`].
pub fn leer_metadatos(texto: &str) -> Vec<Metadato> {
    filas(texto)
        .into_iter()
        .map(|mut fila| {
            let mut tomar = |columna: &str| fila.remove(columna).unwrap_or_default();
            let mut metadato = Metadato {
                uuid: tomar("Uuid").to_uppercase(),
                rfc_emisor: tomar("RfcEmisor"),
                nombre_emisor: tomar("NombreEmisor"),
                rfc_receptor: tomar("RfcReceptor"),
                nombre_receptor: tomar("NombreReceptor"),
                rfc_pac: tomar("RfcPac"),
                fecha_emision: tomar("FechaEmision"),
                fecha_certificacion_sat: tomar("FechaCertificacionSat"),
                monto: tomar("Monto"),
                efecto_comprobante: tomar("EfectoComprobante"),
                estatus: tomar("Estatus"),
                fecha_cancelacion: tomar("FechaCancelacion"),
                ..Metadato::default()
            };
            let mut extra: Vec<(String, String)> =
                fila.into_iter().filter(|(columna, _)| !COLUMNAS.contains(&columna.as_str())).collect();
            extra.sort();
            metadato.extra = extra;
            metadato
        })
        .filter(|metadato| !metadato.uuid.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CABECERA: &str = "Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion";

    #[test]
    fn metadata_crlf_with_lf_inside_names() {
        let texto = format!(
            "{CABECERA}\r\ne7215e3b-2dc5-4a40-ab10-c902ff9258df~XAXX010101000~RAZON\nSOCIAL 1~XAXX010101001~R 2~XAXX010101003~2018-01-11 07:10:23~2018-01-11 07:10:51~1124.11~I~1~\r\n"
        );
        let filas = leer_metadatos(&texto);
        assert_eq!(filas.len(), 1);
        assert_eq!(filas[0].uuid, "E7215E3B-2DC5-4A40-AB10-C902FF9258DF");
        assert_eq!(filas[0].nombre_emisor, "RAZON SOCIAL 1");
        assert_eq!(filas[0].monto, "1124.11");
        assert!(filas[0].vigente());
        assert_eq!(filas[0].fecha_cancelacion, "");
    }

    #[test]
    fn metadata_extra_and_missing_columns() {
        let texto = "Uuid~RfcEmisor~Nueva\nA~B~C~D\n";
        let filas = leer_metadatos(texto);
        assert_eq!(filas[0].rfc_emisor, "B");
        assert_eq!(filas[0].estatus, "");
        assert_eq!(filas[0].extra, vec![("#extra-04".into(), "D".into()), ("Nueva".into(), "C".into())]);
    }

    #[test]
    fn empty_and_garbage_packages() {
        let certificados = CertificadosSat::vacio();
        assert!(matches!(leer_paquete(&[], &certificados), Err(SatError::PaqueteVacio)));
        assert!(matches!(leer_paquete(b"not a zip", &certificados), Err(SatError::Parseo { .. })));
    }
}
