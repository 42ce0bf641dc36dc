//! An edition of SAT's catalogs: every catalog of one publication, with its date. The shipped
//! one is read from the data file compiled into the crate; a newer one from a folder of SAT's
//! CSV files (`timbra catalogos importar <DIR>`).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use time::Date;

use crate::catalogo::{Catalogo, leer_fecha};
use crate::error::{Error, Resultado};
use crate::paquete;

/// Every catalog of one edition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edicion {
    /// The date SAT published it (the shipped one's is in the crate's README).
    pub fecha: Date,
    /// Its catalogs, by id.
    pub catalogos: Vec<Catalogo>,
}

/// Each catalog's rows by code, with the fingerprint of each ([`crate::Fila::huella`]): what
/// the diff of two editions compares, from a parsed edition or from the database's rows.
pub type Huellas = BTreeMap<String, HashMap<String, String>>;

impl Edicion {
    /// The edition shipped in the crate.
    pub fn incluida() -> Resultado<Edicion> {
        let (fecha, archivos) = paquete::leer(paquete::INCLUIDO)?;
        Edicion::desde_archivos(fecha, &archivos)
    }

    /// The shipped edition's date, read without inflating its files.
    pub fn fecha_incluida() -> Resultado<Date> {
        paquete::fecha(paquete::INCLUIDO)
    }

    /// The edition of `archivos` (id, CSV text).
    pub fn desde_archivos(fecha: Date, archivos: &[(String, String)]) -> Resultado<Edicion> {
        let mut catalogos =
            archivos.iter().map(|(id, texto)| Catalogo::desde_csv(id, texto)).collect::<Resultado<Vec<_>>>()?;
        catalogos.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Edicion { fecha, catalogos })
    }

    /// Reads the CSV files of a folder laid out as SAT's published here: one folder per
    /// standard (`cfdi40/`, `nomina12/`, `pagos20/`, `cancelacion/`) holding `c_*.csv` files.
    /// The edition's date is `fecha`, else the `edicion.txt` file of the folder (`2026-08-06`),
    /// else the newest date any row carries (the edition is at least that recent).
    pub fn leer_directorio(dir: &Path, fecha: Option<Date>) -> Resultado<Edicion> {
        Ok(Self::leer_directorio_y_archivos(dir, fecha)?.0)
    }

    /// [`Edicion::leer_directorio`], with the files it read (id, CSV text), for a caller that
    /// also keeps them (`timbra catalogos importar` stores them as the edition's data file).
    pub fn leer_directorio_y_archivos(dir: &Path, fecha: Option<Date>) -> Resultado<(Edicion, Vec<(String, String)>)> {
        let archivos = archivos_csv(dir)?;
        if archivos.is_empty() {
            return Err(Error::Directorio(format!(
                "{}: no catalog found (expected folders such as cfdi40/ holding c_*.csv files)",
                dir.display()
            )));
        }
        let anotada = match std::fs::read_to_string(dir.join("edicion.txt")) {
            Ok(texto) => Some(leer_fecha(&texto).ok_or_else(|| {
                Error::Directorio(format!("{}: `{}` is not a date", dir.join("edicion.txt").display(), texto.trim()))
            })?),
            Err(_) => None,
        };
        let mut edicion = Edicion::desde_archivos(fecha.or(anotada).unwrap_or(Date::MIN), &archivos)?;
        if fecha.is_none() && anotada.is_none() {
            edicion.fecha = edicion.fecha_mas_reciente().ok_or_else(|| {
                Error::Directorio(format!("{}: no date in the files; give the edition's date", dir.display()))
            })?;
        }
        Ok((edicion, archivos))
    }

    /// Catalog `id` (`cfdi40/c_Moneda`).
    pub fn catalogo(&self, id: &str) -> Option<&Catalogo> {
        self.catalogos.iter().find(|catalogo| catalogo.id == id)
    }

    /// Every row's fingerprint, by catalog and code.
    pub fn huellas(&self) -> Huellas {
        self.catalogos
            .iter()
            .map(|catalogo| {
                let filas = catalogo.filas.iter().map(|fila| (fila.clave.clone(), fila.huella())).collect();
                (catalogo.id.clone(), filas)
            })
            .collect()
    }

    fn fecha_mas_reciente(&self) -> Option<Date> {
        let fechas = self.catalogos.iter().flat_map(|c| &c.filas).flat_map(|f| [f.vigencia.desde, f.vigencia.hasta]);
        fechas.flatten().max()
    }
}

/// The `(id, text)` of every `<folder>/c_*.csv` under `dir`.
pub fn archivos_csv(dir: &Path) -> Resultado<Vec<(String, String)>> {
    let io = |ruta: &Path| {
        let ruta = ruta.to_path_buf();
        move |fuente| Error::Io { ruta, fuente }
    };
    let mut archivos = Vec::new();
    for carpeta in ordenadas(dir)? {
        if !carpeta.is_dir() {
            continue;
        }
        let nombre_carpeta = carpeta.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        for ruta in ordenadas(&carpeta)? {
            let Some(nombre) = ruta.file_name().and_then(|n| n.to_str()) else { continue };
            let Some(catalogo) = nombre.strip_suffix(".csv") else { continue };
            let bytes = std::fs::read(&ruta).map_err(io(&ruta))?;
            let texto = String::from_utf8(bytes).map_err(|_| {
                Error::Directorio(format!("{}: not UTF-8 (save SAT's sheet as UTF-8 CSV)", ruta.display()))
            })?;
            archivos.push((format!("{nombre_carpeta}/{catalogo}"), texto));
        }
    }
    Ok(archivos)
}

fn ordenadas(dir: &Path) -> Resultado<Vec<std::path::PathBuf>> {
    let error = |fuente| Error::Io { ruta: dir.to_path_buf(), fuente };
    let mut rutas = std::fs::read_dir(dir)
        .map_err(error)?
        .map(|entrada| entrada.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(error)?;
    rutas.sort();
    Ok(rutas)
}
