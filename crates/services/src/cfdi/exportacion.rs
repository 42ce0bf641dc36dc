//! A period's CFDI in one ZIP (issue 32). [`pedir`] checks the request (ZIP_001 says what to
//! fix) and writes an `exportaciones_zip` row with its durable job ([`ExportarZip`],
//! `cfdi.zip`, same id) in one transaction; [`estado`] reads it back with a signed link to the
//! ZIP once it is TERMINADO (valid one hour, like every download).
//!
//! The job pages through the period oldest first (keyset on `fecha`, `id`; [`PAGINA`] rows at a
//! time) and streams each CFDI into the ZIP as it goes: `EMITIDOS/<UUID>.xml` or
//! `RECIBIDOS/<UUID>.xml` (the stored bytes, byte for byte), `<UUID>.pdf` beside it when asked
//! (rendered as `GET /api/cfdi/{id}/pdf` renders it), and one `resumen.csv` row per CFDI (a
//! received CFDI SAT gave only metadata for has its row and no file). The ZIP is written to a
//! temporary file on a blocking thread fed by a bounded channel, the summary to a second one
//! copied in at the end, and the finished file goes to the file storage (an S3 multipart
//! upload when configured) without being read into memory: what the process holds is a page of
//! rows and a few files, whatever the period holds.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use timbra_store::ids::{EmpresaId, ExportacionId};

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use tokio::sync::mpsc;

use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::jobs::{Attempt, Claimed, Job, NewJob, Next, enqueue_with_id};
use timbra_store::cfdis::{CfdiRow, Filtro};
use timbra_store::estados::EstadoCfdi;
use timbra_store::exportaciones_zip::{self, ExportacionRow, Terminada};
use timbra_store::{Tx, ids};

/// Rows read per query.
pub const PAGINA: i64 = 200;
/// Files in flight between the reader and the ZIP writer.
const EN_VUELO: usize = 16;

/// PENDIENTE: queued.
pub const PENDIENTE: &str = "PENDIENTE";
/// EN_PROCESO: the job is writing the ZIP (or waits for a retry after a failed attempt).
pub const EN_PROCESO: &str = "EN_PROCESO";
/// TERMINADO: the ZIP is in the file storage.
pub const TERMINADO: &str = "TERMINADO";
/// FALLIDO: every attempt failed (`error` says why).
pub const FALLIDO: &str = "FALLIDO";

/// The columns of `resumen.csv`.
pub const COLUMNAS_CSV: &str =
    "uuid,tipo,tipoComprobante,fecha,serie,folio,emisor,receptor,subtotal,impuestos,total,moneda,status";

/// `POST /api/cfdi/zip` as sent: every field is checked by [`pedir`].
#[derive(Debug, Default, Clone)]
pub struct Pedido {
    /// First day (`AAAA-MM-DD`, Zona Centro) or instant (RFC 3339), inclusive.
    pub desde: Option<String>,
    /// Last day, inclusive (or an instant).
    pub hasta: Option<String>,
    /// `EMITIDA` or `RECIBIDA`; both when absent.
    pub tipo: Option<String>,
    /// I, E, T, P or N.
    pub tipo_comprobante: Option<String>,
    /// TIMBRADO (sandbox too), TIMBRADO_SANDBOX or CANCELADO.
    pub status: Option<String>,
    /// Each CFDI's PDF beside its XML.
    pub incluir_pdf: bool,
}

/// The checked request, as stored with the export (`filtro`) and read back by its job.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Periodo {
    /// From this instant, inclusive.
    #[serde(with = "time::serde::rfc3339")]
    pub desde: OffsetDateTime,
    /// Before this instant.
    #[serde(with = "time::serde::rfc3339")]
    pub hasta: OffsetDateTime,
    /// `EMITIDA` or `RECIBIDA`.
    pub tipo: Option<String>,
    /// I, E, T, P or N.
    pub tipo_comprobante: Option<String>,
    /// TIMBRADO, TIMBRADO_SANDBOX or CANCELADO.
    pub status: Option<String>,
    /// PDFs too.
    pub incluir_pdf: bool,
    /// Payroll receipts left out: who asked may not read payroll (`nomina:view`).
    pub sin_nomina: bool,
}

impl Periodo {
    /// The listing filter of the period.
    fn filtro(&self) -> Filtro {
        Filtro {
            tipo: self.tipo.clone(),
            tipo_comprobante: self.tipo_comprobante.clone(),
            status: self.status.as_deref().and_then(EstadoCfdi::parse),
            desde: Some(self.desde),
            hasta: Some(self.hasta),
            sin_nomina: self.sin_nomina,
            ..Filtro::default()
        }
    }
}

fn invalido(campo: &str, mensaje: impl Into<String>) -> ApiError {
    ApiError::new(Code::Zip001, mensaje).with_details(json!({ "campo": campo }))
}

/// A day (`AAAA-MM-DD` in the Zona Centro; `fin` gives the next day's start, so the day is
/// included) or an RFC 3339 instant.
fn limite(campo: &str, texto: Option<&str>, fin: bool) -> ApiResult<OffsetDateTime> {
    let texto = texto
        .map(str::trim)
        .filter(|texto| !texto.is_empty())
        .ok_or_else(|| invalido(campo, format!("{campo} is required: the period's first and last day, AAAA-MM-DD")))?;
    if let Ok(instante) = OffsetDateTime::parse(texto, &Rfc3339) {
        return Ok(if fin { instante + time::Duration::nanoseconds(1) } else { instante });
    }
    let dia = time::Date::parse(texto, time::macros::format_description!("[year]-[month]-[day]")).map_err(|_| {
        invalido(campo, format!("{campo} is a date AAAA-MM-DD or an ISO 8601 instant with offset, not {texto:?}"))
    })?;
    let dia = if fin { dia.next_day().unwrap_or(dia) } else { dia };
    Ok(dia.midnight().assume_offset(super::OFFSET_CENTRO))
}

/// Checks a request: ZIP_001 names the first field to fix. `sin_nomina` when who asks may not
/// read payroll receipts.
pub fn revisar(pedido: &Pedido, sin_nomina: bool) -> ApiResult<Periodo> {
    let desde = limite("desde", pedido.desde.as_deref(), false)?;
    let hasta = limite("hasta", pedido.hasta.as_deref(), true)?;
    if hasta <= desde {
        return Err(invalido(
            "hasta",
            "hasta is before desde: send the period's first day in desde and its last in hasta",
        ));
    }
    let mayusculas =
        |valor: &Option<String>| valor.as_deref().map(|v| v.trim().to_uppercase()).filter(|v| !v.is_empty());
    let tipo = mayusculas(&pedido.tipo);
    if let Some(tipo) = &tipo
        && !matches!(tipo.as_str(), "EMITIDA" | "RECIBIDA")
    {
        return Err(invalido("tipo", "tipo is EMITIDA or RECIBIDA (or absent for both)"));
    }
    let tipo_comprobante = mayusculas(&pedido.tipo_comprobante);
    if let Some(letra) = &tipo_comprobante
        && !matches!(letra.as_str(), "I" | "E" | "T" | "P" | "N")
    {
        return Err(invalido("tipoComprobante", "tipoComprobante is I, E, T, P or N"));
    }
    let status = mayusculas(&pedido.status);
    if let Some(status) = &status
        && EstadoCfdi::parse(status).is_none()
    {
        return Err(invalido("status", "status is TIMBRADO, TIMBRADO_SANDBOX or CANCELADO"));
    }
    Ok(Periodo { desde, hasta, tipo, tipo_comprobante, status, incluir_pdf: pedido.incluir_pdf, sin_nomina })
}

/// Queues the ZIP of the company's CFDI in `periodo` (checked by [`revisar`]). Returns the
/// export's id, which is its job's (`jobId`).
pub async fn pedir(app: &AppContext, empresa_id: &EmpresaId, periodo: &Periodo) -> ApiResult<String> {
    let filtro = serde_json::to_string(periodo).map_err(|e| ApiError::internal("zip filtro", e))?;
    let id = ids::new_id();
    let now = app.clock.now();
    let mut tx = app.db.begin().await?;
    exportaciones_zip::crear(&mut tx, &ExportacionId::from(&id), empresa_id, &filtro, now).await?;
    let payload = Payload { exportacion_id: id.clone() };
    enqueue_with_id(&mut tx, now, &id, NewJob::of::<ExportarZip>(&payload).for_empresa(empresa_id)).await?;
    tx.commit().await?;
    Ok(id)
}

/// An export as `GET /api/cfdi/zip/{jobId}` shows it.
#[derive(Debug, Clone)]
pub struct Estado {
    /// The row.
    pub fila: ExportacionRow,
    /// A signed link to the ZIP (TERMINADO), valid [`super::links::LINK_SECONDS`].
    pub download_url: Option<String>,
}

/// The company's export `id` (NOT_FOUND for another company's), with a fresh link once done.
pub async fn estado(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> ApiResult<Estado> {
    let fila = {
        let mut conn = app.db.conn().await?;
        exportaciones_zip::leer(&mut conn, empresa_id, &ExportacionId::from(id)).await?
    }
    .ok_or_else(|| ApiError::not_found("ZIP export"))?;
    con_enlace(app, fila)
}

/// The company's most recent exports (the dashboard's list), newest first, with their links.
pub async fn recientes(app: &AppContext, empresa_id: &EmpresaId, limit: i64) -> ApiResult<Vec<Estado>> {
    let filas = {
        let mut conn = app.db.conn().await?;
        exportaciones_zip::recientes(&mut conn, empresa_id, limit).await?
    };
    filas.into_iter().map(|fila| con_enlace(app, fila)).collect()
}

fn con_enlace(app: &AppContext, fila: ExportacionRow) -> ApiResult<Estado> {
    let download_url = match (&fila.path, fila.status.as_str()) {
        (Some(path), TERMINADO) => {
            let secret = app.cfdi.link_secret()?;
            Some(super::links::url(&secret, path, app.clock.now().unix_timestamp()))
        }
        _ => None,
    };
    Ok(Estado { fila, download_url })
}

/// Where export `id` of the company is kept in the file storage.
pub fn ruta(empresa_id: &EmpresaId, id: &str) -> String {
    format!("zip/{empresa_id}/{id}.zip")
}

/// What the job carries.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload {
    /// The `exportaciones_zip` row.
    pub exportacion_id: String,
}

/// The job: build one export's ZIP.
pub struct ExportarZip;

impl Job for ExportarZip {
    type Context = AppContext;
    const KIND: &'static str = "cfdi.zip";
    type Payload = Payload;
    const MAX_ATTEMPTS: i64 = 3;

    async fn run(app: AppContext, job: Claimed) -> Attempt {
        let payload = match job.payload::<Self>() {
            Ok(payload) => payload,
            Err(error) => return Attempt::fail(error),
        };
        let fila = async {
            let mut conn = app.db.conn().await?;
            let fila = exportaciones_zip::por_id(&mut conn, &payload.exportacion_id).await?;
            if fila.as_ref().is_some_and(|fila| fila.status != TERMINADO) {
                exportaciones_zip::marcar(&mut conn, &payload.exportacion_id, EN_PROCESO, None, app.clock.now())
                    .await?;
            }
            Ok::<_, timbra_store::DbError>(fila)
        }
        .await;
        let fila = match fila {
            Ok(Some(fila)) => fila,
            Ok(None) => return Attempt::fail("the export no longer exists"),
            Err(error) => return Attempt::retry(format!("database: {error}"), Value::Null),
        };
        if fila.status == TERMINADO {
            return Attempt::ok(json!({ "yaEstaba": TERMINADO }));
        }
        let periodo: Periodo = match serde_json::from_str(&fila.filtro) {
            Ok(periodo) => periodo,
            Err(error) => return Attempt::fail(format!("stored filter: {error}")),
        };
        match construir(&app, &fila, &periodo).await {
            Ok(hecho) => Attempt::ok(json!({ "cfdis": hecho.cfdis, "archivos": hecho.archivos, "bytes": hecho.bytes })),
            Err(error) => Attempt::retry(error, Value::Null),
        }
    }

    // Spelled out to match the trait's single lifetime, which the type-erased registry needs.
    #[allow(clippy::manual_async_fn)]
    fn record<'a>(
        tx: &'a mut Tx,
        now: OffsetDateTime,
        job: &'a Claimed,
        attempt: &'a Attempt,
        next: &'a Next,
    ) -> impl Future<Output = timbra_store::DbResult<()>> + Send + 'a {
        async move {
            let Ok(Payload { exportacion_id }) = job.payload::<Self>() else { return Ok(()) };
            let status = match next {
                Next::Done => return Ok(()),
                Next::Retry(_) => EN_PROCESO,
                Next::Dead => FALLIDO,
            };
            exportaciones_zip::marcar(tx, &exportacion_id, status, attempt.error.as_deref(), now).await?;
            Ok(())
        }
    }
}

/// What went into a ZIP.
struct Hecho {
    cfdis: i64,
    archivos: i64,
    bytes: i64,
}

/// What the reader hands the ZIP writer.
enum Entrada {
    /// A file of the ZIP.
    Archivo(String, Vec<u8>),
    /// A line of `resumen.csv`.
    Fila(String),
}

/// The temporary files of one attempt, removed when it ends however it ends.
struct Temporales(Vec<PathBuf>);

impl Drop for Temporales {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Builds export `fila`'s ZIP and puts it in the file storage; records it TERMINADO.
async fn construir(app: &AppContext, fila: &ExportacionRow, periodo: &Periodo) -> Result<Hecho, String> {
    let carpeta = app.config.data_dir.join("tmp");
    crate::private_fs::create_dir(&carpeta).map_err(|e| format!("temporary folder {carpeta:?}: {e}"))?;
    let intento = uuid::Uuid::new_v4().simple().to_string();
    let zip_path = carpeta.join(format!("zip-{}-{intento}.zip", fila.id));
    let csv_path = carpeta.join(format!("zip-{}-{intento}.csv", fila.id));
    let _temporales = Temporales(vec![zip_path.clone(), csv_path.clone()]);

    let (envio, recibo) = mpsc::channel::<Entrada>(EN_VUELO);
    let escritor = {
        let (zip_path, csv_path) = (zip_path.clone(), csv_path.clone());
        tokio::task::spawn_blocking(move || escribir(recibo, &zip_path, &csv_path))
    };
    let leido = leer_periodo(app, &fila.empresa_id, periodo, &envio).await;
    drop(envio);
    let escrito = escritor.await.map_err(|e| format!("zip writer: {e}"))?;
    let cfdis = leido?;
    let archivos = escrito.map_err(|e| format!("writing the ZIP: {e}"))?;
    let bytes = std::fs::metadata(&zip_path).map_err(|e| format!("the ZIP: {e}"))?.len();
    let path = ruta(&fila.empresa_id, &fila.id);
    app.cfdi.storage.put_file(&path, &zip_path).await.map_err(|e| format!("file storage: {e}"))?;
    let hecho = Hecho { cfdis, archivos, bytes: i64::try_from(bytes).unwrap_or(i64::MAX) };
    let terminada = Terminada { cfdis: hecho.cfdis, archivos: hecho.archivos, bytes: hecho.bytes, path: &path };
    let mut conn = app.db.conn().await.map_err(|e| format!("database: {e}"))?;
    exportaciones_zip::terminar(&mut conn, &fila.id, &terminada, app.clock.now())
        .await
        .map_err(|e| format!("database: {e}"))?;
    Ok(hecho)
}

/// Reads the period page by page and sends each CFDI's files and summary line to the writer.
/// Gives the number of CFDI.
async fn leer_periodo(
    app: &AppContext,
    empresa_id: &EmpresaId,
    periodo: &Periodo,
    envio: &mpsc::Sender<Entrada>,
) -> Result<i64, String> {
    let filtro = periodo.filtro();
    let mut despues: Option<(OffsetDateTime, String)> = None;
    let mut cfdis = 0;
    let cerrado = || "the ZIP writer stopped".to_owned();
    let db = |e: timbra_store::DbError| format!("database: {e}");
    // One connection for every read of the export: what the database keeps in memory for it is
    // that connection's page cache (bounded, 16 MiB on SQLite), not the pool's.
    let mut conn = app.db.conn().await.map_err(db)?;
    loop {
        let clave = despues.as_ref().map(|(fecha, id)| (*fecha, id.as_str()));
        let pagina =
            timbra_store::cfdis::pagina_en_orden(&mut conn, app.db.backend(), empresa_id, &filtro, clave, PAGINA)
                .await
                .map_err(db)?;
        let Some(ultima) = pagina.last() else { break };
        despues = Some((ultima.fecha, ultima.id.clone()));
        let llena = i64::try_from(pagina.len()).unwrap_or(0) == PAGINA;
        for row in pagina {
            cfdis += 1;
            envio.send(Entrada::Fila(linea_csv(&row))).await.map_err(|_| cerrado())?;
            let Some(xml_path) = row.xml_url.as_deref() else { continue };
            let carpeta = if row.tipo == "RECIBIDA" { "RECIBIDOS" } else { "EMITIDOS" };
            let nombre = nombre_de_archivo(&row.uuid);
            // Stamped XML is in the database; older and received XML in the file storage.
            let xml = match timbra_store::cfdi_xml::leer(&mut conn, xml_path).await.map_err(db)? {
                Some(xml) => xml,
                None => app
                    .cfdi
                    .storage
                    .get(xml_path)
                    .await
                    .map_err(|e| format!("XML of {} in the file storage: {e}", row.uuid))?,
            };
            envio.send(Entrada::Archivo(format!("{carpeta}/{nombre}.xml"), xml)).await.map_err(|_| cerrado())?;
            if periodo.incluir_pdf {
                let pdf = super::archivos::pdf(app, &super::links::ruta_pdf(xml_path))
                    .await
                    .map_err(|e| format!("PDF of {}: {}", row.uuid, e.message))?;
                envio.send(Entrada::Archivo(format!("{carpeta}/{nombre}.pdf"), pdf)).await.map_err(|_| cerrado())?;
            }
        }
        if !llena {
            break;
        }
    }
    Ok(cfdis)
}

/// The ZIP writer (a blocking thread): files into the ZIP at `zip_path` as they come, summary
/// lines into `csv_path`, copied into the ZIP as `resumen.csv` at the end. Gives the number of
/// files in the ZIP.
fn escribir(mut recibo: mpsc::Receiver<Entrada>, zip_path: &Path, csv_path: &Path) -> std::io::Result<i64> {
    let opciones = ::zip::write::SimpleFileOptions::default().compression_method(::zip::CompressionMethod::Deflated);
    let archivo = crate::private_fs::create_new(zip_path)?;
    let mut zip = ::zip::ZipWriter::new(BufWriter::new(archivo));
    let mut csv = BufWriter::new(crate::private_fs::create_new(csv_path)?);
    // A byte order mark: spreadsheets open the summary as UTF-8 (names with accents).
    csv.write_all("\u{feff}".as_bytes())?;
    csv.write_all(COLUMNAS_CSV.as_bytes())?;
    csv.write_all(b"\r\n")?;
    let mut archivos = 0;
    while let Some(entrada) = recibo.blocking_recv() {
        match entrada {
            Entrada::Fila(linea) => csv.write_all(linea.as_bytes())?,
            Entrada::Archivo(nombre, bytes) => {
                zip.start_file(nombre, opciones).map_err(std::io::Error::other)?;
                zip.write_all(&bytes)?;
                archivos += 1;
            }
        }
    }
    csv.flush()?;
    drop(csv);
    zip.start_file("resumen.csv", opciones).map_err(std::io::Error::other)?;
    std::io::copy(&mut std::fs::File::open(csv_path)?, &mut zip)?;
    archivos += 1;
    let mut salida = zip.finish().map_err(std::io::Error::other)?;
    salida.flush()?;
    salida.get_ref().sync_all()?;
    Ok(archivos)
}

/// A file name from the UUID's letters, digits and `-` only.
fn nombre_de_archivo(uuid: &str) -> String {
    let nombre: String = uuid.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(64).collect();
    if nombre.is_empty() { "cfdi".to_owned() } else { nombre }
}

/// One line of `resumen.csv` ([`COLUMNAS_CSV`]); `impuestos` is total − subtotal + descuento
/// (transferred less withheld taxes).
fn linea_csv(row: &CfdiRow) -> String {
    let descuento = row.descuento.as_ref().map(|d| d.0).unwrap_or_default();
    let impuestos = row.total.0 - row.subtotal.0 + descuento;
    let fecha = super::hora_local(row.fecha).format(&Rfc3339).unwrap_or_default();
    let campos = [
        row.uuid.as_str(),
        row.tipo.as_str(),
        row.tipo_comprobante.as_str(),
        fecha.as_str(),
        row.serie.as_deref().unwrap_or_default(),
        row.folio.as_deref().unwrap_or_default(),
        row.emisor_rfc.as_str(),
        row.receptor_rfc.as_str(),
        &row.subtotal.0.to_string(),
        &impuestos.to_string(),
        &row.total.0.to_string(),
        row.moneda.as_str(),
        row.status.as_str(),
    ]
    .map(campo_csv);
    campos.join(",") + "\r\n"
}

/// A CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a leading `=`,
/// `+`, `-` or `@` of text gets a `'` so a spreadsheet never runs it as a formula.
fn campo_csv(texto: &str) -> String {
    let numero = texto.parse::<rust_decimal::Decimal>().is_ok();
    let texto = if !numero && texto.starts_with(['=', '+', '-', '@']) { format!("'{texto}") } else { texto.to_owned() };
    if texto.contains([',', '"', '\r', '\n']) { format!("\"{}\"", texto.replace('"', "\"\"")) } else { texto }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_names_the_field_to_fix() {
        let bien = Pedido { desde: Some("2026-11-01".into()), hasta: Some("2026-11-30".into()), ..Pedido::default() };
        let periodo = revisar(&bien, false).unwrap();
        assert_eq!(periodo.desde.to_string(), "2026-11-01 0:00:00.0 -06:00:00");
        assert_eq!(periodo.hasta.to_string(), "2026-12-01 0:00:00.0 -06:00:00");
        let campo = |pedido: Pedido| revisar(&pedido, false).unwrap_err().details["campo"].as_str().unwrap().to_owned();
        assert_eq!(campo(Pedido { desde: None, ..bien.clone() }), "desde");
        assert_eq!(campo(Pedido { hasta: Some("30/11/2026".into()), ..bien.clone() }), "hasta");
        assert_eq!(campo(Pedido { hasta: Some("2026-10-31".into()), ..bien.clone() }), "hasta");
        assert_eq!(campo(Pedido { tipo: Some("AMBAS".into()), ..bien.clone() }), "tipo");
        assert_eq!(campo(Pedido { tipo_comprobante: Some("X".into()), ..bien.clone() }), "tipoComprobante");
        assert_eq!(campo(Pedido { status: Some("VIGENTE".into()), ..bien.clone() }), "status");
        let error = revisar(&Pedido { hasta: Some("2026-10-31".into()), ..bien }, false).unwrap_err();
        assert_eq!(error.code, Code::Zip001);
    }

    #[test]
    fn csv_fields_are_quoted_and_never_formulas() {
        assert_eq!(campo_csv("ACME, S.A."), "\"ACME, S.A.\"");
        assert_eq!(campo_csv("dice \"hola\""), "\"dice \"\"hola\"\"\"");
        assert_eq!(campo_csv("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(campo_csv("-12.50"), "-12.50");
        assert_eq!(nombre_de_archivo("../5FB2\r\n"), "5FB2");
    }
}
