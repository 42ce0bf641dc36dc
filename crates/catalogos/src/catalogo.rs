//! One SAT catalog as its CSV file gives it: the header, and each row with its key, its
//! description and its validity read out of the columns that hold them.

use timbra_cfdi::catalogos::Vigencia;
use time::Date;
use time::macros::format_description;

use crate::csv;
use crate::error::{Error, Resultado};

/// A catalog of one edition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Catalogo {
    /// Its id: SAT's folder and file name without `.csv` (`cfdi40/c_Moneda`), since two
    /// standards publish catalogs of the same name (`cfdi40/c_Estado`, `nomina12/c_Estado`).
    pub id: String,
    /// The header's column names.
    pub columnas: Vec<String>,
    /// The rows, in SAT's order.
    pub filas: Vec<Fila>,
}

/// One row of a catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fila {
    /// The code: the first column, or the key columns joined with `|` where one column is not
    /// unique ([`columnas_clave`]).
    pub clave: String,
    /// The `texto` column (SAT's name or description), else `descripcion`, else empty.
    pub descripcion: String,
    /// From `vigencia_desde`/`vigencia_hasta` or `fecha_inicio_vigencia`/`fecha_fin_vigencia`.
    pub vigencia: Vigencia,
    /// Every column as written, in the header's order.
    pub valores: Vec<String>,
}

/// The columns whose values together are a row's code, for catalogs where the first column
/// repeats: municipalities and localities are numbered per state, and a rate is identified by
/// its tax, factor and value.
pub fn columnas_clave(id: &str) -> Option<&'static [&'static str]> {
    match id.rsplit('/').next().unwrap_or(id) {
        "c_Municipio" => Some(&["municipio", "estado"]),
        "c_Localidad" => Some(&["localidad", "estado"]),
        "c_TasaOCuota" => Some(&["tipo", "minimo", "valor", "impuesto", "factor"]),
        "c_Colonia" => Some(&["colonia", "codigo_postal"]),
        _ => None,
    }
}

impl Catalogo {
    /// SAT's name (`c_Moneda`).
    pub fn nombre(&self) -> &str {
        self.id.rsplit('/').next().unwrap_or(&self.id)
    }

    /// The position of column `nombre`.
    pub fn columna(&self, nombre: &str) -> Option<usize> {
        self.columnas.iter().position(|columna| columna == nombre)
    }

    /// The row of `clave`.
    pub fn fila(&self, clave: &str) -> Option<&Fila> {
        self.filas.iter().find(|fila| fila.clave == clave)
    }

    /// Reads catalog `id` from its CSV text.
    pub fn desde_csv(id: &str, texto: &str) -> Resultado<Catalogo> {
        let error_catalogo = |motivo: String| Error::Catalogo { catalogo: id.to_owned(), motivo };
        let mut registros = csv::registros(texto).map_err(error_catalogo)?.into_iter();
        let Some((_, columnas)) = registros.next() else {
            return Err(error_catalogo("the file is empty (a header row is expected)".into()));
        };
        let posicion = |nombre: &str| columnas.iter().position(|columna| columna == nombre);
        let claves: Vec<usize> = match columnas_clave(id) {
            Some(nombres) => nombres
                .iter()
                .map(|nombre| posicion(nombre).ok_or_else(|| error_catalogo(format!("no key column `{nombre}`"))))
                .collect::<Resultado<_>>()?,
            None => vec![0],
        };
        let descripcion = posicion("texto").or_else(|| posicion("descripcion"));
        let (desde, hasta) = match (posicion("vigencia_desde"), posicion("fecha_inicio_vigencia")) {
            (Some(desde), _) => (Some(desde), posicion("vigencia_hasta")),
            (None, Some(desde)) => (Some(desde), posicion("fecha_fin_vigencia")),
            (None, None) => (None, None),
        };
        let mut filas = Vec::with_capacity(registros.len());
        let mut vistas = std::collections::HashSet::with_capacity(registros.len());
        for (linea, valores) in registros {
            let error_fila = |motivo: String| Error::Fila { catalogo: id.to_owned(), linea, motivo };
            if valores.len() != columnas.len() {
                return Err(error_fila(format!("{} fields, the header has {}", valores.len(), columnas.len())));
            }
            let clave = claves.iter().map(|&i| valores[i].as_str()).collect::<Vec<_>>().join("|");
            if clave.is_empty() {
                return Err(error_fila("the code is empty".into()));
            }
            if !vistas.insert(clave.clone()) {
                return Err(error_fila(format!("code {clave} appears twice")));
            }
            let fecha = |columna: Option<usize>| match columna.map(|i| valores[i].as_str()) {
                None | Some("") => Ok(None),
                Some(texto) => {
                    leer_fecha(texto).map(Some).ok_or_else(|| error_fila(format!("`{texto}` is not a date")))
                }
            };
            let vigencia = Vigencia { desde: fecha(desde)?, hasta: fecha(hasta)? };
            let descripcion = descripcion.map(|i| valores[i].clone()).unwrap_or_default();
            filas.push(Fila { clave, descripcion, vigencia, valores });
        }
        Ok(Catalogo { id: id.to_owned(), columnas, filas })
    }
}

impl Fila {
    /// A fingerprint of every value of the row (64-bit FNV-1a), to tell which rows changed
    /// between two editions without keeping the old edition's text. Stable across builds.
    pub fn huella(&self) -> String {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for (i, valor) in self.valores.iter().enumerate() {
            let separador: &[u8] = if i == 0 { b"" } else { b"\x1f" };
            for byte in separador.iter().chain(valor.as_bytes()) {
                hash ^= u64::from(*byte);
                hash = hash.wrapping_mul(0x0100_0000_01b3);
            }
        }
        format!("{hash:016x}")
    }
}

/// A date as SAT's files write it: `dd-mm-yyyy` (SAT's own CSV and Excel exports) or
/// `yyyy-mm-dd`.
pub fn leer_fecha(texto: &str) -> Option<Date> {
    let texto = texto.trim();
    Date::parse(texto, format_description!("[day]-[month]-[year]"))
        .or_else(|_| Date::parse(texto, format_description!("[year]-[month]-[day]")))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn reads_keys_descriptions_and_validity() {
        let texto = "clave,descripcion,fecha_inicio_vigencia,fecha_fin_vigencia\n\
                     01010101,No existe en el catálogo,07-01-2019,\n\
                     15101506,\"Gasolina, regular\",07-01-2019,15-01-2020\n";
        let catalogo = Catalogo::desde_csv("cfdi40/c_ClaveProdServ", texto).unwrap();
        assert_eq!(catalogo.nombre(), "c_ClaveProdServ");
        let fila = catalogo.fila("15101506").unwrap();
        assert_eq!(fila.descripcion, "Gasolina, regular");
        assert_eq!(fila.vigencia, Vigencia { desde: Some(date!(2019 - 01 - 07)), hasta: Some(date!(2020 - 01 - 15)) });
        assert!(fila.vigencia.vigente(date!(2020 - 01 - 15)));
        assert!(!fila.vigencia.vigente(date!(2020 - 01 - 16)));
        assert!(!fila.vigencia.vigente(date!(2019 - 01 - 06)));
        assert_eq!(catalogo.fila("01010101").unwrap().vigencia.hasta, None);
    }

    #[test]
    fn composite_keys_and_texto_before_descripcion() {
        let texto = "municipio,estado,texto,vigencia_desde,vigencia_hasta\n001,AGU,Aguascalientes,2022-01-01,\n001,BCN,Ensenada,2022-01-01,\n";
        let catalogo = Catalogo::desde_csv("cfdi40/c_Municipio", texto).unwrap();
        assert_eq!(catalogo.fila("001|BCN").unwrap().descripcion, "Ensenada");
        let unidades = "id,texto,descripcion\nH87,Pieza,Una pieza\n";
        assert_eq!(Catalogo::desde_csv("cfdi40/c_ClaveUnidad", unidades).unwrap().filas[0].descripcion, "Pieza");
    }

    #[test]
    fn refuses_bad_rows() {
        let error = |texto: &str| Catalogo::desde_csv("cfdi40/c_Meses", texto).unwrap_err().to_string();
        assert_eq!(error("id,texto\n01,Enero\n01,Otra vez\n"), "cfdi40/c_Meses, line 3: code 01 appears twice");
        assert_eq!(error("id,texto\n01\n"), "cfdi40/c_Meses, line 2: 1 fields, the header has 2");
        assert!(error("id,vigencia_desde\n01,31-02-2022\n").contains("`31-02-2022` is not a date"));
        assert!(error("").contains("empty"));
        assert!(Catalogo::desde_csv("cfdi40/c_Municipio", "id,texto\n1,x\n").is_err());
    }

    #[test]
    fn fingerprints_see_every_value() {
        let fila = |valores: &[&str]| Fila {
            clave: String::new(),
            descripcion: String::new(),
            vigencia: Vigencia::default(),
            valores: valores.iter().map(|v| (*v).to_owned()).collect(),
        };
        assert_eq!(fila(&["a", "b"]).huella(), fila(&["a", "b"]).huella());
        assert_ne!(fila(&["a", "b"]).huella(), fila(&["ab", ""]).huella());
        assert_ne!(fila(&["a", "b"]).huella(), fila(&["a", "c"]).huella());
        assert_eq!(fila(&[]).huella().len(), 16);
    }
}
