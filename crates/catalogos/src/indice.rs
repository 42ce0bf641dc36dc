//! The catalogs validation reads, in memory: one hash lookup per code, so checking a stamp's
//! concepts costs next to nothing. Built from an edition or from the rows the database holds;
//! the service shares one in an `Arc` and swaps it after an import.

use std::collections::HashMap;
use std::sync::OnceLock;

use timbra_cfdi::catalogos::{Catalogos, DatosClaveProdServ, DatosCodigoPostal, DatosFormaPago, Vigencia};
use time::Date;

use crate::catalogo::Catalogo;
use crate::edicion::Edicion;
use crate::error::Resultado;
use crate::registros::{ClaveProdServ, CodigoPostal, Pais};
use crate::{CLAVE_PROD_SERV, CLAVE_UNIDAD, CODIGO_POSTAL, FORMA_PAGO, PAIS};

/// The loaded catalogs. A catalog never added answers `None` (not loaded), as
/// [`timbra_cfdi::catalogos::SinCatalogos`] does for all of them.
#[derive(Clone, Debug, Default)]
pub struct Indice {
    claves_prod_serv: Option<HashMap<Box<str>, DatosClaveProdServ>>,
    claves_unidad: Option<HashMap<Box<str>, Vigencia>>,
    codigos_postales: Option<HashMap<Box<str>, DatosCodigoPostal>>,
    /// Every other catalog by id: each code's validity.
    otros: HashMap<Box<str>, HashMap<Box<str>, Vigencia>>,
    /// c_Pais' pattern of the tax id (NumRegIdTrib) by country, where it gives one.
    patrones_identidad: HashMap<Box<str>, Box<str>>,
    /// c_ClaveProdServ's `complemento` column, for the codes where it names one.
    complementos: HashMap<Box<str>, Box<str>>,
    /// c_FormaPago's bank-data columns by code.
    formas_pago: HashMap<Box<str>, DatosFormaPago>,
}

impl Indice {
    /// The shipped edition's index (`paquete::INCLUIDO`), built once per process, one catalog
    /// at a time: what the PAC simulator checks documents against, as a real PAC checks them
    /// against SAT's catalogs. The data file is compiled in and read by this crate's tests; a
    /// catalog that failed to read would be left out (its checks skipped), never half-loaded.
    pub fn incluido() -> &'static Indice {
        static INCLUIDO: OnceLock<Indice> = OnceLock::new();
        INCLUIDO.get_or_init(|| {
            let mut indice = Indice::default();
            let _ = crate::paquete::recorrer(crate::paquete::INCLUIDO, |id, texto| {
                indice.agregar(&Catalogo::desde_csv(id, &texto)?)
            });
            indice
        })
    }

    /// Every catalog of `edicion`.
    pub fn desde_edicion(edicion: &Edicion) -> Resultado<Indice> {
        let mut indice = Indice::default();
        for catalogo in &edicion.catalogos {
            indice.agregar(catalogo)?;
        }
        Ok(indice)
    }

    /// Loads `catalogo`, reading the typed rows of the ones validation reads by column.
    pub fn agregar(&mut self, catalogo: &Catalogo) -> Resultado<()> {
        match catalogo.id.as_str() {
            CLAVE_PROD_SERV => {
                let claves = ClaveProdServ::leer(catalogo)?;
                self.con_complementos(claves.iter().map(|c| (c.clave.clone(), c.complemento.clone())));
                self.con_claves_prod_serv(claves.into_iter().map(|c| (c.datos(), c.clave)))
            }
            CLAVE_UNIDAD => self.con_claves_unidad(catalogo.filas.iter().map(|f| (f.clave.clone(), f.vigencia))),
            CODIGO_POSTAL => self
                .con_codigos_postales(CodigoPostal::leer(catalogo)?.into_iter().map(|c| (c.datos(), c.codigo_postal))),
            id => {
                if id == FORMA_PAGO {
                    self.con_formas_pago(catalogo);
                }
                if id == PAIS {
                    self.con_patrones_identidad(
                        Pais::leer(catalogo)?.into_iter().map(|p| (p.clave, p.patron_identidad_tributaria)),
                    );
                }
                self.con_catalogo(id, catalogo.filas.iter().map(|f| (f.clave.clone(), f.vigencia)));
            }
        }
        Ok(())
    }

    /// Loads c_ClaveProdServ.
    pub fn con_claves_prod_serv(&mut self, filas: impl IntoIterator<Item = (DatosClaveProdServ, String)>) {
        self.claves_prod_serv = Some(filas.into_iter().map(|(datos, clave)| (clave.into(), datos)).collect());
    }

    /// Loads c_ClaveUnidad.
    pub fn con_claves_unidad(&mut self, filas: impl IntoIterator<Item = (String, Vigencia)>) {
        self.claves_unidad = Some(filas.into_iter().map(|(clave, vigencia)| (clave.into(), vigencia)).collect());
    }

    /// Loads c_CodigoPostal.
    pub fn con_codigos_postales(&mut self, filas: impl IntoIterator<Item = (DatosCodigoPostal, String)>) {
        self.codigos_postales = Some(filas.into_iter().map(|(datos, codigo)| (codigo.into(), datos)).collect());
    }

    /// Loads c_Pais' patterns of the tax id (country, pattern); an empty pattern is none.
    pub fn con_patrones_identidad(&mut self, filas: impl IntoIterator<Item = (String, String)>) {
        self.patrones_identidad = filas
            .into_iter()
            .filter(|(_, patron)| !patron.trim().is_empty())
            .map(|(pais, patron)| (pais.into(), patron.trim().into()))
            .collect();
    }

    /// Loads c_ClaveProdServ's `complemento` column (code, complement); an empty one is none.
    pub fn con_complementos(&mut self, filas: impl IntoIterator<Item = (String, String)>) {
        self.complementos = filas
            .into_iter()
            .filter(|(_, complemento)| !complemento.trim().is_empty())
            .map(|(clave, complemento)| (clave.into(), complemento.trim().into()))
            .collect();
    }

    /// Loads c_FormaPago's bank-data columns (those it lacks read as "not allowed" / no pattern).
    pub fn con_formas_pago(&mut self, catalogo: &Catalogo) {
        let columna = |nombre: &str| catalogo.columna(nombre);
        let texto = |fila: &crate::Fila, columna: Option<usize>| {
            columna.and_then(|i| fila.valores.get(i)).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
        };
        let (rfc_ord, cta_ord, patron_ord) = (
            columna("permite_banco_ordenante_rfc"),
            columna("permite_cuenta_ordenante"),
            columna("patron_cuenta_ordenante"),
        );
        let (rfc_ben, cta_ben, patron_ben) = (
            columna("permite_banco_beneficiario_rfc"),
            columna("permite_cuenta_beneficiario"),
            columna("patron_cuenta_beneficiario"),
        );
        let cadena = columna("permite_tipo_cadena_pago");
        let si = |fila: &crate::Fila, columna: Option<usize>| {
            texto(fila, columna).is_some_and(|v| matches!(v.as_str(), "1" | "Sí" | "Si" | "Opcional"))
        };
        self.formas_pago = catalogo
            .filas
            .iter()
            .map(|fila| {
                let datos = DatosFormaPago {
                    permite_rfc_ordenante: si(fila, rfc_ord),
                    permite_cuenta_ordenante: si(fila, cta_ord),
                    patron_cuenta_ordenante: texto(fila, patron_ord),
                    permite_rfc_beneficiario: si(fila, rfc_ben),
                    permite_cuenta_beneficiario: si(fila, cta_ben),
                    patron_cuenta_beneficiario: texto(fila, patron_ben),
                    permite_tipo_cadena_pago: si(fila, cadena),
                };
                (fila.clave.as_str().into(), datos)
            })
            .collect();
    }

    /// Loads any other catalog (`cfdi40/c_Pais`).
    pub fn con_catalogo(&mut self, id: &str, filas: impl IntoIterator<Item = (String, Vigencia)>) {
        let filas = filas.into_iter().map(|(clave, vigencia)| (clave.into(), vigencia)).collect();
        self.otros.insert(id.into(), filas);
    }

    /// Rows loaded per catalog id.
    pub fn filas(&self) -> Vec<(&str, usize)> {
        let mut filas: Vec<(&str, usize)> = self.otros.iter().map(|(id, filas)| (&**id, filas.len())).collect();
        filas.extend(self.claves_prod_serv.as_ref().map(|f| (CLAVE_PROD_SERV, f.len())));
        filas.extend(self.claves_unidad.as_ref().map(|f| (CLAVE_UNIDAD, f.len())));
        filas.extend(self.codigos_postales.as_ref().map(|f| (CODIGO_POSTAL, f.len())));
        filas.sort_unstable();
        filas
    }

    /// The validity of `clave` in `catalogo`: `None` when the catalog is not loaded.
    fn vigencia(&self, catalogo: &str, clave: &str) -> Option<Option<Vigencia>> {
        Some(match catalogo {
            CLAVE_PROD_SERV => self.claves_prod_serv.as_ref()?.get(clave).map(|d| d.vigencia),
            CLAVE_UNIDAD => self.claves_unidad.as_ref()?.get(clave).copied(),
            CODIGO_POSTAL => self.codigos_postales.as_ref()?.get(clave).map(|d| d.vigencia),
            _ => self.otros.get(catalogo)?.get(clave).copied(),
        })
    }
}

impl Catalogos for Indice {
    fn clave_prod_serv(&self, clave: &str) -> Option<bool> {
        Some(self.claves_prod_serv.as_ref()?.contains_key(clave))
    }

    fn datos_clave_prod_serv(&self, clave: &str) -> Option<DatosClaveProdServ> {
        self.claves_prod_serv.as_ref()?.get(clave).copied()
    }

    fn clave_prod_serv_vigente(&self, clave: &str, dia: Date) -> Option<bool> {
        Some(self.claves_prod_serv.as_ref()?.get(clave).is_some_and(|datos| datos.vigencia.vigente(dia)))
    }

    fn clave_unidad(&self, clave: &str) -> Option<bool> {
        Some(self.claves_unidad.as_ref()?.contains_key(clave))
    }

    fn vigencia_clave_unidad(&self, clave: &str) -> Option<Vigencia> {
        self.claves_unidad.as_ref()?.get(clave).copied()
    }

    fn clave_unidad_vigente(&self, clave: &str, dia: Date) -> Option<bool> {
        Some(self.claves_unidad.as_ref()?.get(clave).is_some_and(|vigencia| vigencia.vigente(dia)))
    }

    fn codigo_postal(&self, codigo: &str) -> Option<bool> {
        Some(self.codigos_postales.as_ref()?.contains_key(codigo))
    }

    fn datos_codigo_postal(&self, codigo: &str) -> Option<DatosCodigoPostal> {
        self.codigos_postales.as_ref()?.get(codigo).copied()
    }

    fn complemento_clave_prod_serv(&self, clave: &str) -> Option<String> {
        self.complementos.get(clave).map(|complemento| complemento.to_string())
    }

    fn datos_forma_pago(&self, codigo: &str) -> Option<DatosFormaPago> {
        self.formas_pago.get(codigo).cloned()
    }

    fn patron_num_reg_id_trib(&self, pais: &str) -> Option<String> {
        self.patrones_identidad.get(pais).map(|patron| patron.to_string())
    }

    fn en_catalogo(&self, catalogo: &str, clave: &str) -> Option<bool> {
        Some(self.vigencia(catalogo, clave)?.is_some())
    }

    fn vigente_en_catalogo(&self, catalogo: &str, clave: &str, dia: Date) -> Option<bool> {
        Some(self.vigencia(catalogo, clave)?.is_some_and(|vigencia| vigencia.vigente(dia)))
    }
}
