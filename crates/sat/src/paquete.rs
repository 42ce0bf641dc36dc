//! Reading descarga masiva packages (PROTOCOLS.md §1.8): a ZIP of `<UUID>.xml` CFDI, or of
//! `<IdPaquete>.txt` metadata (`~`-separated, header first) with an optional
//! `*_tercero.txt`. Each CFDI is parsed with `timbra_cfdi::parser`, its issuer seal verified,
//! and its TFD `SelloSAT` verified when SAT's certificate for `NoCertificadoSAT` is known.
//! Pure: the certificates are handed in ([`CertificadosSat`]).
//!
//! A package is untrusted input: whoever can answer in SAT's place (or a supplier whose CFDI
//! SAT stored) chooses its bytes. So every entry is decompressed through a bounded reader
//! under [`LimitesPaquete`] (a ZIP bomb stops at the first limit, whatever sizes the ZIP
//! declares), and a CFDI whose folio fiscal is not SAT's `8-4-4-4-12` hexadecimal form is
//! refused ([`DocumentoIlegible`]): the folio becomes a file name and a storage path.

use std::collections::HashMap;
use std::io::{Cursor, Read};
use std::path::Path;

use timbra_cfdi::Comprobante;
use timbra_cfdi::{parser, sello, timbre};
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

/// A CFDI de Retenciones e Información de Pagos 2.0 read from a package of the retention
/// service (root `retenciones:Retenciones`).
#[derive(Clone, Debug)]
pub struct DocumentoRetencion {
    /// Entry name in the ZIP.
    pub nombre: String,
    /// Folio fiscal from the TFD (upper-case), or the entry's stem when there is no TFD.
    pub uuid: String,
    /// The XML as delivered.
    pub xml: String,
    /// The parsed document (other retention complements kept as raw XML).
    pub retencion: timbra_retenciones::Retenciones,
    /// Issuer seal check.
    pub sello: EstadoSello,
    /// TFD check.
    pub timbre: EstadoTimbre,
}

impl DocumentoRetencion {
    /// `Emisor/@RfcE`.
    pub fn rfc_emisor(&self) -> &str {
        self.retencion.emisor.rfc_e.as_str()
    }

    /// `Receptor/Nacional/@RfcR`; `None` for a foreign receiver.
    pub fn rfc_receptor(&self) -> Option<&str> {
        match &self.retencion.receptor {
            timbra_retenciones::Receptor::Nacional(nacional) => Some(nacional.rfc_r.as_str()),
            timbra_retenciones::Receptor::Extranjero(_) => None,
        }
    }

    /// `FechaExp` (issuer's local time).
    pub fn fecha_exp(&self) -> time::PrimitiveDateTime {
        self.retencion.fecha_exp
    }

    /// `Totales/@MontoTotOperacion`.
    pub fn monto_tot_operacion(&self) -> rust_decimal::Decimal {
        self.retencion.totales.monto_tot_operacion
    }

    /// `Totales/@MontoTotRet`.
    pub fn monto_tot_ret(&self) -> rust_decimal::Decimal {
        self.retencion.totales.monto_tot_ret
    }

    /// `CveRetenc` (c_CveRetenc).
    pub fn cve_retenc(&self) -> &str {
        self.retencion.cve_retenc.codigo()
    }

    /// `Periodo`: (`MesIni`, `MesFin`, `Ejercicio`).
    pub fn periodo(&self) -> (u8, u8, u16) {
        let periodo = &self.retencion.periodo;
        (periodo.mes_ini.numero(), periodo.mes_fin.numero(), periodo.ejercicio)
    }
}

/// An entry, or a metadata row, that is not stored: an XML that is not a readable CFDI 4.0
/// (PARSE_ERROR for that document), or whose folio fiscal is not SAT's form.
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
    /// Retention documents read (requests to the retention service).
    pub retenciones: Vec<DocumentoRetencion>,
    /// Entries (and metadata rows) refused: not a readable CFDI 4.0, or a folio fiscal that
    /// is not SAT's form.
    pub ilegibles: Vec<DocumentoIlegible>,
    /// Metadata rows (metadata requests).
    pub metadatos: Vec<Metadato>,
}

/// Bounds on what reading one package may cost, checked while each entry is decompressed
/// (never from the sizes the ZIP declares, which its author chooses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitesPaquete {
    /// Entries in the ZIP's directory (SAT puts at most 200,000 CFDI in one request).
    pub entradas: u64,
    /// Decompressed bytes of one entry.
    pub bytes_entrada: u64,
    /// Decompressed bytes of every entry read: a package's CFDI are held in memory until
    /// they are stored together, so this bounds that memory.
    pub bytes_paquete: u64,
    /// Decompressed bytes per compressed byte, of each entry and of the whole package.
    /// Deflate reaches about 1,030:1 on repeated bytes; XML compresses at 5–20:1.
    pub proporcion: u64,
}

impl Default for LimitesPaquete {
    /// 200,000 entries, 50 MiB per entry, 256 MiB per package, 100:1.
    fn default() -> Self {
        LimitesPaquete {
            entradas: 200_000,
            bytes_entrada: 50 * 1024 * 1024,
            bytes_paquete: 256 * 1024 * 1024,
            proporcion: 100,
        }
    }
}

/// Which limit of [`LimitesPaquete`] a package went over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitePaquete {
    /// [`LimitesPaquete::entradas`].
    Entradas,
    /// [`LimitesPaquete::bytes_entrada`].
    BytesEntrada,
    /// [`LimitesPaquete::bytes_paquete`].
    BytesPaquete,
    /// [`LimitesPaquete::proporcion`].
    Proporcion,
}

impl std::fmt::Display for LimitePaquete {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LimitePaquete::Entradas => "entradas por paquete",
            LimitePaquete::BytesEntrada => "bytes por entrada",
            LimitePaquete::BytesPaquete => "bytes por paquete",
            LimitePaquete::Proporcion => "proporción de compresión",
        })
    }
}

/// Reads a package under the default [`LimitesPaquete`] ([`leer_paquete_con_limites`]).
///
/// # Errors
/// As [`leer_paquete_con_limites`].
pub fn leer_paquete(bytes: &[u8], certificados: &CertificadosSat) -> Result<Paquete, SatError> {
    leer_paquete_con_limites(bytes, certificados, &LimitesPaquete::default())
}

/// Reads a package: every `*.xml` at the ZIP root as a CFDI, every `*.txt` as metadata
/// (`*_tercero.txt` joined by UUID); other entries (folders, `__MACOSX/`) are ignored but
/// counted. CPU-bound and blocking (it decompresses and verifies seals): async callers run it
/// on a blocking thread.
///
/// # Errors
/// [`SatError::PaqueteVacio`] for no bytes or a ZIP with neither CFDI nor metadata;
/// [`SatError::Parseo`] for bytes that are not a ZIP or an unreadable entry;
/// [`SatError::PaqueteExcedido`] when the package goes over one of `limites` (nothing of it
/// is returned).
pub fn leer_paquete_con_limites(
    bytes: &[u8],
    certificados: &CertificadosSat,
    limites: &LimitesPaquete,
) -> Result<Paquete, SatError> {
    if bytes.is_empty() {
        return Err(SatError::PaqueteVacio);
    }
    let parseo = |motivo: String| SatError::Parseo { que: "paquete".into(), motivo };
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| parseo(format!("no es un ZIP: {e}")))?;
    if zip.len() as u64 > limites.entradas {
        return Err(SatError::PaqueteExcedido {
            limite: LimitePaquete::Entradas,
            maximo: limites.entradas,
            entrada: None,
        });
    }
    let mut lectura =
        Lectura { limites, comprimido_paquete: bytes.len() as u64, leidos_paquete: 0, bloque: vec![0u8; 64 * 1024] };
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
        // The decompressor reads at most the declared compressed size from the package (the
        // zip crate bounds it so), and never more than the package has.
        let comprimido = entrada.compressed_size().min(lectura.comprimido_paquete);
        let contenido = lectura.leer(&mut entrada, &nombre, comprimido)?;
        if es_xml && es_retencion(&contenido) {
            match leer_retencion(&nombre, contenido, certificados) {
                Ok(documento) => paquete.retenciones.push(documento),
                Err(motivo) => paquete.ilegibles.push(DocumentoIlegible { nombre, motivo }),
            }
        } else if es_xml {
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
                for metadato in leer_metadatos(&texto) {
                    if timbre::uuid_valido(&metadato.uuid) {
                        paquete.metadatos.push(metadato);
                    } else {
                        let motivo = format!("metadatos: {}", uuid_ajeno(&metadato.uuid));
                        paquete.ilegibles.push(DocumentoIlegible { nombre: nombre.clone(), motivo });
                    }
                }
            }
        }
    }
    for metadato in &mut paquete.metadatos {
        if let Some((rfc, nombre)) = terceros.get(&metadato.uuid) {
            metadato.rfc_a_cuenta_terceros = Some(rfc.clone());
            metadato.nombre_a_cuenta_terceros = Some(nombre.clone());
        }
    }
    if paquete.documentos.is_empty()
        && paquete.retenciones.is_empty()
        && paquete.ilegibles.is_empty()
        && paquete.metadatos.is_empty()
    {
        return Err(SatError::PaqueteVacio);
    }
    Ok(paquete)
}

/// The decompressed bytes read so far from one package, against its limits.
struct Lectura<'a> {
    limites: &'a LimitesPaquete,
    /// The package's own size: the denominator of its ratio.
    comprimido_paquete: u64,
    leidos_paquete: u64,
    /// The buffer each entry is inflated through, one for the whole package.
    bloque: Vec<u8>,
}

impl Lectura<'_> {
    /// Decompresses one entry through a reader that stops one byte past the entry limit,
    /// checking every limit after each block, so a bomb costs at most one entry limit of memory
    /// and the CPU to inflate it.
    fn leer(&mut self, entrada: &mut impl Read, nombre: &str, comprimido: u64) -> Result<Vec<u8>, SatError> {
        let limites = self.limites;
        let excedido = |limite: LimitePaquete, maximo: u64| SatError::PaqueteExcedido {
            limite,
            maximo,
            entrada: Some(nombre.chars().take(100).collect()),
        };
        let mut lector = entrada.take(limites.bytes_entrada.saturating_add(1));
        let mut contenido = Vec::new();
        loop {
            let leidos = match lector.read(&mut self.bloque) {
                Ok(0) => break,
                Ok(leidos) => leidos,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    return Err(SatError::Parseo { que: "paquete".into(), motivo: format!("{nombre}: {error}") });
                }
            };
            contenido.extend_from_slice(&self.bloque[..leidos]);
            self.leidos_paquete = self.leidos_paquete.saturating_add(leidos as u64);
            let de_entrada = contenido.len() as u64;
            if de_entrada > limites.bytes_entrada {
                return Err(excedido(LimitePaquete::BytesEntrada, limites.bytes_entrada));
            }
            if self.leidos_paquete > limites.bytes_paquete {
                return Err(excedido(LimitePaquete::BytesPaquete, limites.bytes_paquete));
            }
            // Per entry and for the whole package: entries of a crafted ZIP may share their
            // compressed bytes, so the entries' own ratios alone do not bound the package.
            if de_entrada > limites.proporcion.saturating_mul(comprimido.max(1))
                || self.leidos_paquete > limites.proporcion.saturating_mul(self.comprimido_paquete.max(1))
            {
                return Err(excedido(LimitePaquete::Proporcion, limites.proporcion));
            }
        }
        Ok(contenido)
    }
}

/// Why a folio fiscal is refused, with the value shown escaped and cut short (it is the
/// package author's text).
fn uuid_ajeno(uuid: &str) -> String {
    let corto: String = uuid.chars().take(60).collect();
    format!("el UUID {corto:?} no tiene el formato de SAT (8-4-4-4-12 hexadecimales)")
}

fn leer_cfdi(nombre: &str, contenido: Vec<u8>, certificados: &CertificadosSat) -> Result<DocumentoCfdi, String> {
    let xml = String::from_utf8(contenido).map_err(|_| "no es UTF-8".to_owned())?;
    // A UTF-8 byte order mark is tolerated (some PACs write it).
    let xml = xml.strip_prefix('\u{feff}').map(str::to_owned).unwrap_or(xml);
    let comprobante = parser::parsear(&xml).map_err(|e| e.to_string())?;
    let uuid = match comprobante.timbre() {
        None => nombre.rsplit_once('.').map_or(nombre, |(stem, _)| stem).to_uppercase(),
        Some(tfd) => tfd.uuid.trim().to_uppercase(),
    };
    // The folio names the stored file and the download (`Content-Disposition`): only SAT's
    // form passes, so no line break, quote or path separator ever reaches either.
    if !timbre::uuid_valido(&uuid) {
        return Err(uuid_ajeno(&uuid));
    }
    let sello = match sello::verificar_sello_xml(&xml) {
        Ok(_) => EstadoSello::Verificado,
        Err(error) => EstadoSello::Invalido(error.to_string()),
    };
    let timbre = match comprobante.timbre() {
        None => EstadoTimbre::SinTimbre,
        Some(tfd) => {
            let numero = tfd.no_certificado_sat.trim().to_owned();
            match certificados.buscar(&numero) {
                None => EstadoTimbre::NoVerificado { no_certificado_sat: numero },
                Some(certificado) => match sello::verificar_timbre_xml(&xml, certificado) {
                    Ok(_) => EstadoTimbre::Verificado { no_certificado_sat: numero },
                    Err(error) => EstadoTimbre::Invalido(error.to_string()),
                },
            }
        }
    };
    Ok(DocumentoCfdi { nombre: nombre.to_owned(), uuid, xml, comprobante, sello, timbre })
}

/// Whether an entry's root element is `retenciones:Retenciones` (namespace
/// `http://www.sat.gob.mx/esquemas/retencionpago/2`), read from its first start tag: the
/// prolog and comments are skipped, nothing else is parsed.
fn es_retencion(contenido: &[u8]) -> bool {
    let inicio = &contenido[..contenido.len().min(4096)];
    let texto = String::from_utf8_lossy(inicio);
    let mut resto = texto.trim_start_matches('\u{feff}');
    loop {
        let Some(posicion) = resto.find('<') else { return false };
        resto = &resto[posicion + 1..];
        if resto.starts_with('?') || resto.starts_with('!') {
            continue;
        }
        let etiqueta: String = resto.chars().take_while(|c| !c.is_whitespace() && *c != '>' && *c != '/').collect();
        let local = etiqueta.rsplit(':').next().unwrap_or("");
        let cierre = resto.find('>').unwrap_or(resto.len());
        return local == "Retenciones" && resto[..cierre].contains(timbra_retenciones::model::NS_RETENCIONES);
    }
}

fn leer_retencion(
    nombre: &str,
    contenido: Vec<u8>,
    certificados: &CertificadosSat,
) -> Result<DocumentoRetencion, String> {
    let xml = String::from_utf8(contenido).map_err(|_| "no es UTF-8".to_owned())?;
    let xml = xml.strip_prefix('\u{feff}').map(str::to_owned).unwrap_or(xml);
    let retencion = timbra_retenciones::parsear(&xml).map_err(|e| e.to_string())?;
    let uuid = match retencion.timbre() {
        None => nombre.rsplit_once('.').map_or(nombre, |(stem, _)| stem).to_uppercase(),
        Some(tfd) => tfd.uuid.trim().to_uppercase(),
    };
    if !timbre::uuid_valido(&uuid) {
        return Err(uuid_ajeno(&uuid));
    }
    let sello = match timbra_retenciones::sello::verificar_sello_xml(&xml) {
        Ok(_) => EstadoSello::Verificado,
        Err(error) => EstadoSello::Invalido(error.to_string()),
    };
    let timbre = match retencion.timbre() {
        None => EstadoTimbre::SinTimbre,
        Some(tfd) => {
            let numero = tfd.no_certificado_sat.trim().to_owned();
            match certificados.buscar(&numero) {
                None => EstadoTimbre::NoVerificado { no_certificado_sat: numero },
                Some(certificado) => match timbra_retenciones::sello::verificar_timbre(&retencion, certificado) {
                    Ok(_) => EstadoTimbre::Verificado { no_certificado_sat: numero },
                    Err(error) => EstadoTimbre::Invalido(error.to_string()),
                },
            }
        }
    };
    Ok(DocumentoRetencion { nombre: nombre.to_owned(), uuid, xml, retencion, sello, timbre })
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

    /// A ZIP of `(name, content)` entries, deflated, as SAT's packages are.
    fn zip_de(entradas: &[(&str, &[u8])]) -> Vec<u8> {
        use std::io::Write;
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opciones = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (nombre, contenido) in entradas {
            zip.start_file(*nombre, opciones).unwrap();
            zip.write_all(contenido).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    /// Bytes deflate cannot shrink (a linear congruential sequence), so only the size limits,
    /// not the ratio, can stop them.
    fn incompresibles(largo: usize) -> Vec<u8> {
        let mut estado: u64 = 0x2545_f491_4f6c_dd1d;
        (0..largo)
            .map(|_| {
                estado = estado.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                (estado >> 56) as u8
            })
            .collect()
    }

    fn limite_excedido(resultado: Result<Paquete, SatError>) -> (LimitePaquete, u64, Option<String>) {
        match resultado {
            Err(SatError::PaqueteExcedido { limite, maximo, entrada }) => (limite, maximo, entrada),
            Err(otro) => panic!("expected a package limit, got {otro:?}"),
            Ok(paquete) => panic!("expected a package limit, read {} CFDI", paquete.documentos.len()),
        }
    }

    /// `VmHWM` (peak resident memory) of this process, in bytes.
    fn pico_memoria() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let linea = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        linea.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
    }

    #[test]
    fn too_many_entries_are_refused_before_any_is_read() {
        let zip = zip_de(&[("a.txt", b"Uuid\n"), ("b.txt", b"Uuid\n"), ("c.txt", b"Uuid\n")]);
        let limites = LimitesPaquete { entradas: 2, ..LimitesPaquete::default() };
        let error = leer_paquete_con_limites(&zip, &CertificadosSat::vacio(), &limites);
        assert_eq!(limite_excedido(error), (LimitePaquete::Entradas, 2, None));
        assert_eq!(
            SatError::PaqueteExcedido { limite: LimitePaquete::Entradas, maximo: 2, entrada: None }.codigo(),
            "PAQUETE_001"
        );
    }

    #[test]
    fn an_entry_over_its_limit_stops_the_package() {
        let grande = incompresibles(10_000);
        let zip = zip_de(&[("grande.xml", &grande)]);
        let limites = LimitesPaquete { bytes_entrada: 4_096, ..LimitesPaquete::default() };
        let error = leer_paquete_con_limites(&zip, &CertificadosSat::vacio(), &limites);
        assert_eq!(limite_excedido(error), (LimitePaquete::BytesEntrada, 4_096, Some("grande.xml".into())));
    }

    #[test]
    fn entries_under_their_limit_still_add_up_to_the_package_limit() {
        let parte = incompresibles(3_000);
        let zip = zip_de(&[("1.xml", &parte), ("2.xml", &parte), ("3.xml", &parte)]);
        let limites = LimitesPaquete { bytes_entrada: 4_096, bytes_paquete: 8_000, ..LimitesPaquete::default() };
        let error = leer_paquete_con_limites(&zip, &CertificadosSat::vacio(), &limites);
        assert_eq!(limite_excedido(error), (LimitePaquete::BytesPaquete, 8_000, Some("3.xml".into())));
        // Under every limit the same entries are read (as unreadable CFDI: they are noise).
        let holgados = LimitesPaquete { bytes_entrada: 4_096, bytes_paquete: 9_000, ..LimitesPaquete::default() };
        let paquete = leer_paquete_con_limites(&zip, &CertificadosSat::vacio(), &holgados).unwrap();
        assert_eq!(paquete.ilegibles.len(), 3);
    }

    #[test]
    fn a_ratio_over_the_limit_stops_the_entry_whatever_its_declared_size() {
        let ceros = vec![0u8; 4 * 1024 * 1024];
        let zip = zip_de(&[("ceros.xml", &ceros)]);
        assert!(zip.len() < 40_000, "deflate packs 4 MiB of zeros into {} bytes", zip.len());
        let error = leer_paquete_con_limites(&zip, &CertificadosSat::vacio(), &LimitesPaquete::default());
        assert_eq!(limite_excedido(error), (LimitePaquete::Proporcion, 100, Some("ceros.xml".into())));
        // The ZIP may claim any size (local header and central directory): claiming 3 GiB buys
        // nothing, and claiming 10 bytes is refused by the ZIP reader past the tenth byte.
        let declarar = |tamano: u32| {
            let mut zip = zip.clone();
            zip[22..26].copy_from_slice(&tamano.to_le_bytes());
            let central = zip.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
            zip[central + 24..central + 28].copy_from_slice(&tamano.to_le_bytes());
            leer_paquete_con_limites(&zip, &CertificadosSat::vacio(), &LimitesPaquete::default())
        };
        assert_eq!(limite_excedido(declarar(3 << 30)).0, LimitePaquete::Proporcion);
        assert!(matches!(declarar(10), Err(SatError::Parseo { .. })));
    }

    #[test]
    fn a_one_gigabyte_bomb_is_stopped_with_flat_memory() {
        use std::io::Write;
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opciones = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(true);
        zip.start_file("5FB2822E-396D-4725-8521-CDC4BDD20CCF.xml", opciones).unwrap();
        let ceros = vec![0u8; 1024 * 1024];
        for _ in 0..1024 {
            zip.write_all(&ceros).unwrap();
        }
        let bomba = zip.finish().unwrap().into_inner();
        assert!(bomba.len() < 2 * 1024 * 1024, "the bomb is {} bytes", bomba.len());
        // Peak memory from here on (Linux: writing 5 to clear_refs resets VmHWM).
        std::fs::write("/proc/self/clear_refs", "5").unwrap();
        let error = leer_paquete_con_limites(&bomba, &CertificadosSat::vacio(), &LimitesPaquete::default());
        let (limite, _, _) = limite_excedido(error);
        assert!(matches!(limite, LimitePaquete::BytesEntrada | LimitePaquete::Proporcion), "{limite:?}");
        let pico = pico_memoria();
        assert!(pico < 300 * 1024 * 1024, "peak RSS {} MB while reading a 1 GiB bomb", pico / 1024 / 1024);
    }

    #[test]
    fn a_folio_that_is_not_sats_form_is_refused_and_the_rest_is_read() {
        use timbra_sim::sat::lote::{self, Firmantes};
        let firmantes = Firmantes::generar().unwrap();
        let fecha = time::macros::datetime!(2026-10-05 09:00);
        let lote = lote::recibidos(&firmantes, "EKU9003173C9", "ESCUELA KEMPER URGATE", fecha, 4).unwrap();
        // The TFD's UUID attribute as a package author may write it (XML-escaped).
        let hostiles = [
            ("salto", "5FB2822E-396D-4725-8521-CDC4BDD2&#10;0CCF", "5FB2822E-396D-4725-8521-CDC4BDD2\n0CCF"),
            ("ruta", "../../x", "../../X"),
            ("comillas", "Q&quot;; filename=evil.html; x=&quot;", "Q\"; FILENAME=EVIL.HTML; X=\""),
        ];
        let mut entradas: Vec<(String, Vec<u8>)> =
            vec![(format!("{}.xml", lote[0].uuid), lote[0].xml.clone().into_bytes())];
        for ((nombre, escrito, _), documento) in hostiles.iter().zip(&lote[1..]) {
            let xml = documento.xml.replace(&format!("UUID=\"{}\"", documento.uuid), &format!("UUID=\"{escrito}\""));
            assert_ne!(xml, documento.xml);
            entradas.push((format!("{nombre}.xml"), xml.into_bytes()));
        }
        // A metadata row with a hostile Uuid is refused the same way.
        entradas.push((
            "meta.txt".into(),
            format!("Uuid~RfcEmisor\r\n{}~XIA190128J61\r\n../../y~XIA190128J61\r\n", lote[0].uuid).into_bytes(),
        ));
        let referencias: Vec<(&str, &[u8])> = entradas.iter().map(|(n, c)| (n.as_str(), c.as_slice())).collect();
        let paquete = leer_paquete(&zip_de(&referencias), &CertificadosSat::vacio()).unwrap();
        assert_eq!(paquete.documentos.len(), 1);
        assert_eq!(paquete.documentos[0].uuid, lote[0].uuid);
        assert_eq!(paquete.metadatos.len(), 1);
        assert_eq!(paquete.ilegibles.len(), 4, "{:?}", paquete.ilegibles);
        for ((nombre, _, leido), ilegible) in hostiles.iter().zip(&paquete.ilegibles) {
            assert_eq!(ilegible.nombre, format!("{nombre}.xml"));
            assert!(ilegible.motivo.contains("formato de SAT"), "{}", ilegible.motivo);
            assert!(ilegible.motivo.contains(&format!("{leido:?}")), "{} shows {leido:?} escaped", ilegible.motivo);
        }
        assert_eq!(paquete.ilegibles[3].nombre, "meta.txt");
    }

    #[test]
    fn a_retention_package_is_read_as_retentions_with_both_seals_checked() {
        use timbra_sim::sat::lote::{self, Firmantes};
        let firmantes = Firmantes::generar().unwrap();
        let desde = time::macros::datetime!(2026-10-05 09:00);
        let retenciones =
            lote::retenciones_recibidas(&firmantes, "EKU9003173C9", "ESCUELA KEMPER URGATE", desde).unwrap();
        let factura = lote::recibidos(&firmantes, "EKU9003173C9", "ESCUELA KEMPER URGATE", desde, 1).unwrap();
        let alterada = retenciones[1].xml.replace("MontoTotRet=\"1000.00\"", "MontoTotRet=\"100.00\"");
        assert_ne!(alterada, retenciones[1].xml);
        let nombre = |d: &timbra_sim::sat::DocumentoSim| format!("{}.xml", d.uuid);
        let zip = zip_de(&[
            (&nombre(&retenciones[0]), retenciones[0].xml.as_bytes()),
            ("00000000-0000-4000-8000-000000000000.xml", alterada.as_bytes()),
            (&nombre(&factura[0]), factura[0].xml.as_bytes()),
        ]);
        let mut certificados = CertificadosSat::vacio();
        certificados.agregar(firmantes.certificado_sat().clone());
        let paquete = leer_paquete(&zip, &certificados).unwrap();
        assert_eq!((paquete.documentos.len(), paquete.retenciones.len()), (1, 2));
        let buena = &paquete.retenciones[0];
        assert_eq!(buena.uuid, retenciones[0].uuid);
        assert_eq!(buena.sello, EstadoSello::Verificado);
        assert!(matches!(buena.timbre, EstadoTimbre::Verificado { .. }), "{:?}", buena.timbre);
        assert_eq!((buena.rfc_emisor(), buena.rfc_receptor()), ("XIA190128J61", Some("EKU9003173C9")));
        assert_eq!((buena.cve_retenc(), buena.periodo()), ("26", (10, 10, 2026)));
        assert_eq!(
            (buena.monto_tot_operacion().to_string(), buena.monto_tot_ret().to_string()),
            ("1500.00".into(), "151.50".into())
        );
        assert_eq!(buena.fecha_exp(), desde);
        assert!(buena.retencion.plataformas_tecnologicas().is_some());
        // The dividends one: its complement kept raw, its cadena SAT's (dividendos.xslt); an
        // altered amount breaks its seal.
        let dividendos = &paquete.retenciones[1];
        assert!(matches!(dividendos.sello, EstadoSello::Invalido(_)), "{:?}", dividendos.sello);
        assert!(
            dividendos.retencion.complementos.iter().any(|c| matches!(c, timbra_retenciones::Complemento::Otro(_)))
        );
        // Without SAT's certificate the TFD is not verified, the issuer's seal still is.
        let sin = leer_paquete(&zip, &CertificadosSat::vacio()).unwrap();
        assert!(matches!(sin.retenciones[0].timbre, EstadoTimbre::NoVerificado { .. }));
        assert_eq!(sin.retenciones[0].sello, EstadoSello::Verificado);
    }

    #[test]
    fn empty_and_garbage_packages() {
        let certificados = CertificadosSat::vacio();
        assert!(matches!(leer_paquete(&[], &certificados), Err(SatError::PaqueteVacio)));
        assert!(matches!(leer_paquete(b"not a zip", &certificados), Err(SatError::Parseo { .. })));
    }
}
