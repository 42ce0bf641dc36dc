//! SAT's catalogs as the service holds them: the edition shipped in the binary
//! (`timbra-catalogos`), or a newer one an operator imported into the database
//! (`timbra catalogos importar`). Validation reads [`CatalogosSat::indice`] (hash lookups, so
//! stamping does not slow down); the forms' searches read the rest. Everything is in memory:
//! the shipped edition is parsed once per process, and the database is read only when it holds
//! a newer import (`cargar`, at start).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use time::Date;

use timbra_catalogos::registros::{ClaveProdServ, ClaveUnidad, CodigoPostal, UsoCfdi};
use timbra_catalogos::{Buscador, Catalogo, Edicion, Indice};
use timbra_cfdi::catalogos::{Catalogos, SinCatalogos};
use timbra_store::Db;

/// Where the held edition came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origen {
    /// Shipped with this version of timbra.
    Incluida,
    /// Imported into the database by the operator.
    Importada,
    /// None could be read (the check of catalog codes is then skipped and says so).
    Ninguna,
}

impl Origen {
    /// As `/readyz` and `timbra catalogos estado` name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Origen::Incluida => "incluida",
            Origen::Importada => "importada",
            Origen::Ninguna => "ninguna",
        }
    }
}

/// One edition of SAT's catalogs, ready for validation and for the forms.
pub struct CatalogosSat {
    /// The edition's date (SAT's publication).
    pub edicion: Option<Date>,
    /// Where it came from.
    pub origen: Origen,
    /// What validation asks (`timbra_cfdi::validacion::validar`).
    pub indice: Box<dyn Catalogos + Send + Sync>,
    /// c_ClaveProdServ's type-ahead.
    pub buscador: Buscador,
    /// c_ClaveUnidad, in SAT's order.
    pub unidades: Vec<ClaveUnidad>,
    /// c_CodigoPostal by code.
    pub codigos_postales: HashMap<String, CodigoPostal>,
    /// c_UsoCFDI with the régimenes each allows.
    pub usos: Vec<UsoCfdi>,
    /// The small catalogs, whole, by id (`cfdi40/c_FormaPago`).
    pub pequenos: HashMap<String, Catalogo>,
}

/// Catalogs too large to answer whole (`GET /api/catalogos/{nombre}`); they have searches.
const GRANDES: &[&str] = &[
    timbra_catalogos::CLAVE_PROD_SERV,
    timbra_catalogos::CLAVE_UNIDAD,
    timbra_catalogos::CODIGO_POSTAL,
    "cfdi40/c_Municipio",
    "cfdi40/c_Localidad",
    "cfdi40/c_Colonia",
    "cfdi40/c_PatenteAduanal",
];

impl CatalogosSat {
    /// The edition `edicion`, from `origen`.
    pub fn de(edicion: &Edicion, origen: Origen) -> Result<Self, timbra_catalogos::Error> {
        let mut construccion = Construccion::default();
        for catalogo in &edicion.catalogos {
            construccion.agregar(catalogo.clone())?;
        }
        Ok(construccion.terminar(edicion.fecha, origen))
    }

    /// The edition of a data file (`timbra_catalogos::paquete`), read one catalog at a time:
    /// each CSV is parsed, what is kept of it built, and the rest dropped before the next, so
    /// the process never holds the whole parsed edition (that peak was over 100 MB of RSS).
    pub fn de_paquete(datos: &[u8], origen: Origen) -> Result<Self, timbra_catalogos::Error> {
        let mut construccion = Construccion::default();
        let fecha = timbra_catalogos::paquete::recorrer(datos, |id, texto| {
            construccion.agregar(Catalogo::desde_csv(id, &texto)?)
        })?;
        Ok(construccion.terminar(fecha, origen))
    }

    /// No catalogs: their checks are skipped (and listed as skipped).
    pub fn ninguno() -> Self {
        Self {
            edicion: None,
            origen: Origen::Ninguna,
            indice: Box::new(SinCatalogos),
            buscador: Buscador::default(),
            unidades: Vec::new(),
            codigos_postales: HashMap::new(),
            usos: Vec::new(),
            pequenos: HashMap::new(),
        }
    }
}

/// What [`CatalogosSat`] keeps of each catalog, built one catalog at a time. The large ones
/// are parsed into typed rows once, and those rows feed both validation's index and the forms.
#[derive(Default)]
struct Construccion {
    indice: Indice,
    buscador: Buscador,
    unidades: Vec<ClaveUnidad>,
    codigos_postales: HashMap<String, CodigoPostal>,
    usos: Vec<UsoCfdi>,
    pequenos: HashMap<String, Catalogo>,
}

impl Construccion {
    fn agregar(&mut self, catalogo: Catalogo) -> Result<(), timbra_catalogos::Error> {
        match catalogo.id.as_str() {
            timbra_catalogos::CLAVE_PROD_SERV => {
                let claves = ClaveProdServ::leer(&catalogo)?;
                self.indice.con_claves_prod_serv(claves.iter().map(|c| (c.datos(), c.clave.clone())));
                // CFDI40163: the complement a code requires (empty in the shipped edition).
                self.indice.con_complementos(claves.iter().map(|c| (c.clave.clone(), c.complemento.clone())));
                self.buscador = Buscador::desde_claves(claves);
                return Ok(());
            }
            timbra_catalogos::CODIGO_POSTAL => {
                let codigos = CodigoPostal::leer(&catalogo)?;
                self.indice.con_codigos_postales(codigos.iter().map(|c| (c.datos(), c.codigo_postal.clone())));
                self.codigos_postales = codigos.into_iter().map(|cp| (cp.codigo_postal.clone(), cp)).collect();
                return Ok(());
            }
            timbra_catalogos::CLAVE_UNIDAD => self.unidades = ClaveUnidad::leer(&catalogo)?,
            timbra_catalogos::USO_CFDI => self.usos = UsoCfdi::leer(&catalogo)?,
            _ => {}
        }
        self.indice.agregar(&catalogo)?;
        if !GRANDES.contains(&catalogo.id.as_str()) {
            self.pequenos.insert(catalogo.id.clone(), catalogo);
        }
        Ok(())
    }

    fn terminar(self, fecha: Date, origen: Origen) -> CatalogosSat {
        CatalogosSat {
            edicion: Some(fecha),
            origen,
            indice: Box::new(self.indice),
            buscador: self.buscador,
            unidades: self.unidades,
            codigos_postales: self.codigos_postales,
            usos: self.usos,
            pequenos: self.pequenos,
        }
    }
}

/// The shipped edition, parsed once per process.
pub fn incluidos() -> Arc<CatalogosSat> {
    static INCLUIDOS: OnceLock<Arc<CatalogosSat>> = OnceLock::new();
    INCLUIDOS
        .get_or_init(|| {
            let leida = CatalogosSat::de_paquete(timbra_catalogos::paquete::INCLUIDO, Origen::Incluida);
            Arc::new(leida.unwrap_or_else(|error| {
                tracing::error!(%error, "the shipped SAT catalogs could not be read; catalog checks are skipped");
                CatalogosSat::ninguno()
            }))
        })
        .clone()
}

/// The edition to hold: the database's import when it is newer than the shipped one, else the
/// shipped one. A database that cannot be read keeps the shipped edition (logged).
pub async fn cargar(db: &Db) -> Arc<CatalogosSat> {
    let incluidos = incluidos();
    match importada(db, incluidos.edicion).await {
        Ok(Some(importada)) => Arc::new(importada),
        Ok(None) => incluidos,
        Err(error) => {
            tracing::error!(%error, "the imported SAT catalogs could not be read; the shipped edition is used");
            incluidos
        }
    }
}

async fn importada(db: &Db, incluida: Option<Date>) -> anyhow::Result<Option<CatalogosSat>> {
    Ok(match paquete_importado(db, incluida).await? {
        Some(datos) => Some(CatalogosSat::de_paquete(&datos, Origen::Importada)?),
        None => None,
    })
}

/// The data file of the imported edition, when it is newer than `incluida`.
async fn paquete_importado(db: &Db, incluida: Option<Date>) -> anyhow::Result<Option<Vec<u8>>> {
    let mut conn = db.conn().await?;
    let Some((fecha, datos)) = timbra_store::catalogos::paquete_importado(&mut conn).await? else { return Ok(None) };
    Ok(incluida.is_none_or(|incluida| fecha > incluida).then_some(datos))
}

/// The imported edition, when it is newer than `incluida`.
async fn edicion_importada(db: &Db, incluida: Option<Date>) -> anyhow::Result<Option<Edicion>> {
    let Some(datos) = paquete_importado(db, incluida).await? else { return Ok(None) };
    let (fecha, archivos) = timbra_catalogos::paquete::leer(&datos)?;
    Ok(Some(Edicion::desde_archivos(fecha, &archivos)?))
}

/// The whole edition [`cargar`] holds, and where it came from (for `timbra catalogos estado`).
pub async fn edicion_en_uso(db: &Db) -> anyhow::Result<(Edicion, Origen)> {
    let incluida = Edicion::fecha_incluida().ok();
    match edicion_importada(db, incluida).await? {
        Some(edicion) => Ok((edicion, Origen::Importada)),
        None => Ok((Edicion::incluida()?, Origen::Incluida)),
    }
}
