//! Typed rows of the catalogs validation and the forms read by their columns: c_ClaveProdServ,
//! c_ClaveUnidad, c_CodigoPostal, c_Pais, c_Moneda, c_RegimenFiscal and c_UsoCFDI. Every
//! other catalog is read as generic [`Fila`]s (code, description, validity, its columns).

use rust_decimal::Decimal;
use timbra_cfdi::catalogos::{DatosClaveProdServ, DatosCodigoPostal, EstimuloFrontera, HusoHorario, Incluir, Vigencia};

use crate::catalogo::{Catalogo, Fila};
use crate::error::{Error, Resultado};

/// A row of c_ClaveProdServ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaveProdServ {
    /// The code (8 digits).
    pub clave: String,
    /// SAT's description (with SAT's double spaces).
    pub descripcion: String,
    /// Incluir IVA trasladado.
    pub incluir_iva: Incluir,
    /// Incluir IEPS trasladado.
    pub incluir_ieps: Incluir,
    /// The complement the code requires, when SAT names one.
    pub complemento: String,
    /// When it may be used.
    pub vigencia: Vigencia,
    /// Estímulo franja fronteriza.
    pub estimulo_franja_fronteriza: bool,
    /// SAT's "Palabras similares", which the search also reads.
    pub palabras_similares: String,
}

impl ClaveProdServ {
    /// What validation needs of it.
    pub fn datos(&self) -> DatosClaveProdServ {
        DatosClaveProdServ {
            incluir_iva: self.incluir_iva,
            incluir_ieps: self.incluir_ieps,
            estimulo_franja_fronteriza: self.estimulo_franja_fronteriza,
            vigencia: self.vigencia,
        }
    }
}

/// A row of c_ClaveUnidad.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaveUnidad {
    /// The code (`H87`).
    pub clave: String,
    /// Its name (`Pieza`).
    pub nombre: String,
    /// SAT's longer description, often empty.
    pub descripcion: String,
    /// SAT's notes.
    pub notas: String,
    /// The symbol (`kg`), often empty.
    pub simbolo: String,
    /// When it may be used.
    pub vigencia: Vigencia,
}

/// A row of c_CodigoPostal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodigoPostal {
    /// The postal code (5 digits).
    pub codigo_postal: String,
    /// c_Estado.
    pub estado: String,
    /// c_Municipio (within the state).
    pub municipio: String,
    /// c_Localidad (within the state), often empty.
    pub localidad: String,
    /// The border-region stimulus.
    pub estimulo_frontera: EstimuloFrontera,
    /// Its time zone.
    pub huso_horario: HusoHorario,
    /// When it may be used (SAT's file has no dates here: always).
    pub vigencia: Vigencia,
}

impl CodigoPostal {
    /// What validation needs of it.
    pub fn datos(&self) -> DatosCodigoPostal {
        DatosCodigoPostal {
            estimulo_frontera: self.estimulo_frontera,
            huso_horario: self.huso_horario,
            vigencia: self.vigencia,
        }
    }
}

/// A row of c_Pais.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pais {
    /// ISO 3166-1 alpha-3 code.
    pub clave: String,
    /// SAT's name.
    pub descripcion: String,
    /// The pattern of its postal codes, when SAT gives one.
    pub patron_codigo_postal: String,
    /// The pattern of its tax ids (NumRegIdTrib), when SAT gives one.
    pub patron_identidad_tributaria: String,
    /// How SAT checks the tax id (a registry it looks up), when it does.
    pub validacion_identidad_tributaria: String,
    /// Groupings it belongs to (`TLCAN`, `Unión Europea`), comma separated.
    pub agrupaciones: String,
}

/// A row of c_Moneda.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moneda {
    /// ISO 4217 code.
    pub clave: String,
    /// SAT's name.
    pub descripcion: String,
    /// Decimals amounts in it are written with.
    pub decimales: u32,
    /// Allowed variation (%) of TipoCambio against the day's published rate.
    pub porcentaje_variacion: Decimal,
    /// When it may be used.
    pub vigencia: Vigencia,
}

/// A row of c_RegimenFiscal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegimenFiscal {
    /// The code (`601`).
    pub clave: String,
    /// SAT's name.
    pub descripcion: String,
    /// A persona física may have it.
    pub aplica_fisica: bool,
    /// A persona moral may have it.
    pub aplica_moral: bool,
    /// When it may be used.
    pub vigencia: Vigencia,
}

/// A row of c_UsoCFDI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsoCfdi {
    /// The code (`G03`).
    pub clave: String,
    /// SAT's name.
    pub descripcion: String,
    /// A persona física receiver may be given it.
    pub aplica_fisica: bool,
    /// A persona moral receiver may be given it.
    pub aplica_moral: bool,
    /// The receiver's régimenes it is allowed with (`regimenes_fiscales_receptores`).
    pub regimenes_receptores: Vec<String>,
    /// When it may be used.
    pub vigencia: Vigencia,
}

/// Reads the columns of one catalog's rows by name, with errors naming the row.
struct Columnas<'a> {
    catalogo: &'a Catalogo,
}

impl<'a> Columnas<'a> {
    /// The position of a column every row must have.
    fn requerida(&self, nombre: &str) -> Resultado<usize> {
        self.catalogo.columna(nombre).ok_or_else(|| Error::Catalogo {
            catalogo: self.catalogo.id.clone(),
            motivo: format!("no column `{nombre}`"),
        })
    }

    fn error(&self, fila: &Fila, motivo: String) -> Error {
        Error::Catalogo { catalogo: self.catalogo.id.clone(), motivo: format!("code {}: {motivo}", fila.clave) }
    }

    /// A 0/1 column (`1` is yes; empty or `0` no).
    fn bandera(&self, fila: &Fila, columna: usize) -> Resultado<bool> {
        match fila.valores[columna].trim() {
            "1" => Ok(true),
            "" | "0" => Ok(false),
            otro => Err(self.error(fila, format!("`{otro}` in `{}` is not 0 or 1", self.catalogo.columnas[columna]))),
        }
    }

    /// An Incluir IVA/IEPS column: SAT's words, or 0/1 as some exports write them.
    fn incluir(&self, fila: &Fila, columna: usize) -> Resultado<Incluir> {
        let texto = fila.valores[columna].trim();
        match texto {
            "0" | "" => Ok(Incluir::No),
            "1" => Ok(Incluir::Si),
            _ => Incluir::desde_texto(texto)
                .ok_or_else(|| self.error(fila, format!("`{texto}` is not Sí, No or Opcional"))),
        }
    }

    fn texto(fila: &'a Fila, columna: Option<usize>) -> String {
        columna.map(|i| fila.valores[i].clone()).unwrap_or_default()
    }
}

impl ClaveProdServ {
    /// The rows of c_ClaveProdServ.
    pub fn leer(catalogo: &Catalogo) -> Resultado<Vec<Self>> {
        let c = Columnas { catalogo };
        let (iva, ieps) = (c.requerida("incluye_iva")?, c.requerida("incluye_ieps")?);
        let estimulo = c.requerida("estimulo_franja_fronteriza")?;
        let (complemento, similares) = (catalogo.columna("complemento"), catalogo.columna("palabras_similares"));
        catalogo
            .filas
            .iter()
            .map(|fila| {
                Ok(ClaveProdServ {
                    clave: fila.clave.clone(),
                    descripcion: fila.descripcion.clone(),
                    incluir_iva: c.incluir(fila, iva)?,
                    incluir_ieps: c.incluir(fila, ieps)?,
                    complemento: Columnas::texto(fila, complemento),
                    vigencia: fila.vigencia,
                    // "00" / "01" in SAT's file.
                    estimulo_franja_fronteriza: match fila.valores[estimulo].trim() {
                        "01" | "1" => true,
                        "00" | "0" | "" => false,
                        otro => return Err(c.error(fila, format!("`{otro}` is not a border-stimulus flag"))),
                    },
                    palabras_similares: Columnas::texto(fila, similares),
                })
            })
            .collect()
    }
}

impl ClaveUnidad {
    /// The rows of c_ClaveUnidad.
    pub fn leer(catalogo: &Catalogo) -> Resultado<Vec<Self>> {
        let c = Columnas { catalogo };
        c.requerida("texto")?;
        let (descripcion, notas, simbolo) =
            (catalogo.columna("descripcion"), catalogo.columna("notas"), catalogo.columna("simbolo"));
        Ok(catalogo
            .filas
            .iter()
            .map(|fila| ClaveUnidad {
                clave: fila.clave.clone(),
                nombre: fila.descripcion.clone(),
                descripcion: Columnas::texto(fila, descripcion),
                notas: Columnas::texto(fila, notas),
                simbolo: Columnas::texto(fila, simbolo),
                vigencia: fila.vigencia,
            })
            .collect())
    }
}

impl CodigoPostal {
    /// The rows of c_CodigoPostal. An unknown time-zone description is an error: the local
    /// time of a document issued there could not be told.
    pub fn leer(catalogo: &Catalogo) -> Resultado<Vec<Self>> {
        let c = Columnas { catalogo };
        let (estado, municipio) = (c.requerida("estado")?, c.requerida("municipio")?);
        let (estimulo, huso) = (c.requerida("estimulo_frontera")?, c.requerida("huso_descripcion")?);
        let localidad = catalogo.columna("localidad");
        catalogo
            .filas
            .iter()
            .map(|fila| {
                let codigo = fila.valores[estimulo].trim();
                let estimulo_frontera = codigo
                    .parse()
                    .ok()
                    .and_then(EstimuloFrontera::desde_codigo)
                    .ok_or_else(|| c.error(fila, format!("`{codigo}` is not a border-stimulus code (0, 1, 2)")))?;
                let descripcion = fila.valores[huso].trim();
                let huso_horario = HusoHorario::desde_descripcion(descripcion)
                    .ok_or_else(|| c.error(fila, format!("unknown time zone `{descripcion}`")))?;
                Ok(CodigoPostal {
                    codigo_postal: fila.clave.clone(),
                    estado: fila.valores[estado].clone(),
                    municipio: fila.valores[municipio].clone(),
                    localidad: Columnas::texto(fila, localidad),
                    estimulo_frontera,
                    huso_horario,
                    vigencia: fila.vigencia,
                })
            })
            .collect()
    }
}

impl Pais {
    /// The rows of c_Pais.
    pub fn leer(catalogo: &Catalogo) -> Resultado<Vec<Self>> {
        let columna = |nombre| catalogo.columna(nombre);
        let (postal, identidad) = (columna("patron_codigo_postal"), columna("patron_identidad_tributaria"));
        let (validacion, agrupaciones) = (columna("validacion_identidad_tributaria"), columna("agrupaciones"));
        Ok(catalogo
            .filas
            .iter()
            .map(|fila| Pais {
                clave: fila.clave.clone(),
                descripcion: fila.descripcion.clone(),
                patron_codigo_postal: Columnas::texto(fila, postal),
                patron_identidad_tributaria: Columnas::texto(fila, identidad),
                validacion_identidad_tributaria: Columnas::texto(fila, validacion),
                agrupaciones: Columnas::texto(fila, agrupaciones),
            })
            .collect())
    }
}

impl Moneda {
    /// The rows of c_Moneda.
    pub fn leer(catalogo: &Catalogo) -> Resultado<Vec<Self>> {
        let c = Columnas { catalogo };
        let (decimales, variacion) = (c.requerida("decimales")?, c.requerida("porcentaje_variacion")?);
        catalogo
            .filas
            .iter()
            .map(|fila| {
                let texto = |i: usize| fila.valores[i].trim();
                Ok(Moneda {
                    clave: fila.clave.clone(),
                    descripcion: fila.descripcion.clone(),
                    decimales: texto(decimales)
                        .parse()
                        .map_err(|_| c.error(fila, format!("`{}` decimals is not a number", texto(decimales))))?,
                    porcentaje_variacion: match texto(variacion) {
                        "" => Decimal::ZERO,
                        valor => Decimal::from_str_exact(valor)
                            .map_err(|_| c.error(fila, format!("`{valor}` variation is not a number")))?,
                    },
                    vigencia: fila.vigencia,
                })
            })
            .collect()
    }
}

impl RegimenFiscal {
    /// The rows of c_RegimenFiscal.
    pub fn leer(catalogo: &Catalogo) -> Resultado<Vec<Self>> {
        let c = Columnas { catalogo };
        let (fisica, moral) = (c.requerida("aplica_fisica")?, c.requerida("aplica_moral")?);
        catalogo
            .filas
            .iter()
            .map(|fila| {
                Ok(RegimenFiscal {
                    clave: fila.clave.clone(),
                    descripcion: fila.descripcion.clone(),
                    aplica_fisica: c.bandera(fila, fisica)?,
                    aplica_moral: c.bandera(fila, moral)?,
                    vigencia: fila.vigencia,
                })
            })
            .collect()
    }
}

impl UsoCfdi {
    /// The rows of c_UsoCFDI.
    pub fn leer(catalogo: &Catalogo) -> Resultado<Vec<Self>> {
        let c = Columnas { catalogo };
        let (fisica, moral) = (c.requerida("aplica_fisica")?, c.requerida("aplica_moral")?);
        let regimenes = c.requerida("regimenes_fiscales_receptores")?;
        catalogo
            .filas
            .iter()
            .map(|fila| {
                Ok(UsoCfdi {
                    clave: fila.clave.clone(),
                    descripcion: fila.descripcion.clone(),
                    aplica_fisica: c.bandera(fila, fisica)?,
                    aplica_moral: c.bandera(fila, moral)?,
                    // SAT's list is comma separated, with or without spaces ("601, 603,626").
                    regimenes_receptores: fila.valores[regimenes]
                        .split(',')
                        .map(str::trim)
                        .filter(|regimen| !regimen.is_empty())
                        .map(str::to_owned)
                        .collect(),
                    vigencia: fila.vigencia,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalogo(id: &str, texto: &str) -> Catalogo {
        Catalogo::desde_csv(id, texto).unwrap()
    }

    #[test]
    fn reads_incluir_flags_as_numbers_or_sat_words() {
        let texto = "clave,descripcion,incluye_iva,incluye_ieps,complemento,fecha_inicio_vigencia,fecha_fin_vigencia,estimulo_franja_fronteriza,palabras_similares\n\
                     50201706,Café,1,0,,07-01-2019,,01,café molido\n\
                     50202300,Refrescos,Sí,Opcional,,07-01-2019,,00,\n";
        let claves = ClaveProdServ::leer(&catalogo("cfdi40/c_ClaveProdServ", texto)).unwrap();
        assert_eq!((claves[0].incluir_iva, claves[0].incluir_ieps), (Incluir::Si, Incluir::No));
        assert!(claves[0].estimulo_franja_fronteriza);
        assert_eq!(claves[0].palabras_similares, "café molido");
        assert_eq!((claves[1].incluir_iva, claves[1].incluir_ieps), (Incluir::Si, Incluir::Opcional));
        assert!(!claves[1].estimulo_franja_fronteriza);
        let malo = texto.replace(",Sí,", ",Quizá,");
        let error = ClaveProdServ::leer(&catalogo("cfdi40/c_ClaveProdServ", &malo)).unwrap_err();
        assert_eq!(error.to_string(), "cfdi40/c_ClaveProdServ: code 50202300: `Quizá` is not Sí, No or Opcional");
    }

    #[test]
    fn reads_postal_codes_and_refuses_unknown_zones() {
        let texto = "id,estado,municipio,localidad,estimulo_frontera,huso_descripcion\n22000,BCN,004,07,1,Tiempo del Noroeste\n";
        let codigo = &CodigoPostal::leer(&catalogo("cfdi40/c_CodigoPostal", texto)).unwrap()[0];
        assert_eq!(
            (codigo.estado.as_str(), codigo.municipio.as_str(), codigo.localidad.as_str()),
            ("BCN", "004", "07")
        );
        assert_eq!(codigo.datos().estimulo_frontera, EstimuloFrontera::Norte);
        assert_eq!(codigo.huso_horario.zona_iana(), "America/Tijuana");
        let otra = texto.replace("Tiempo del Noroeste", "Tiempo de Marte");
        assert!(
            CodigoPostal::leer(&catalogo("cfdi40/c_CodigoPostal", &otra)).unwrap_err().to_string().contains("Marte")
        );
    }

    #[test]
    fn reads_usos_monedas_and_regimenes() {
        let usos = "id,texto,aplica_fisica,aplica_moral,vigencia_desde,vigencia_hasta,regimenes_fiscales_receptores\n\
                    G01,Adquisición de mercancías.,1,1,2022-01-01,,\"601, 603,626\"\n";
        let uso = &UsoCfdi::leer(&catalogo("cfdi40/c_UsoCFDI", usos)).unwrap()[0];
        assert_eq!(uso.regimenes_receptores, ["601", "603", "626"]);
        let monedas = "id,texto,decimales,porcentaje_variacion,vigencia_desde,vigencia_hasta\nKWD,Dinar kuwaití,3,5,2022-01-01,\nXXX,Ninguna,0,,2022-01-01,\n";
        let monedas = Moneda::leer(&catalogo("cfdi40/c_Moneda", monedas)).unwrap();
        assert_eq!((monedas[0].decimales, monedas[0].porcentaje_variacion), (3, Decimal::from(5)));
        assert_eq!(monedas[1].porcentaje_variacion, Decimal::ZERO);
        let regimenes =
            "id,texto,aplica_fisica,aplica_moral,vigencia_desde,vigencia_hasta\n601,General,,1,2022-01-01,\n";
        let regimen = &RegimenFiscal::leer(&catalogo("cfdi40/c_RegimenFiscal", regimenes)).unwrap()[0];
        assert!(!regimen.aplica_fisica && regimen.aplica_moral);
    }
}
