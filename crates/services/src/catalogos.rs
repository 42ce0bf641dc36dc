//! SAT's catalogs as the service holds them: the edition shipped in the binary
//! (`timbra-catalogos`), or a newer one an operator imported into the database
//! (`timbra catalogos importar`). Validation reads [`CatalogosSat::indice`] (hash lookups, so
//! stamping does not slow down); the forms' searches read the rest. Everything is in memory:
//! the shipped edition is parsed once per process, and the database is read only when it holds
//! a newer import (`cargar`, at start).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use time::Date;

use timbra_catalogos::registros::{ClaveUnidad, CodigoPostal, UsoCfdi};
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
        let indice = Indice::desde_edicion(edicion)?;
        let buscador = Buscador::desde_edicion(edicion)?;
        let unidades = match edicion.catalogo(timbra_catalogos::CLAVE_UNIDAD) {
            Some(catalogo) => ClaveUnidad::leer(catalogo)?,
            None => Vec::new(),
        };
        let codigos_postales = match edicion.catalogo(timbra_catalogos::CODIGO_POSTAL) {
            Some(catalogo) => {
                CodigoPostal::leer(catalogo)?.into_iter().map(|cp| (cp.codigo_postal.clone(), cp)).collect()
            }
            None => HashMap::new(),
        };
        let usos = match edicion.catalogo(timbra_catalogos::USO_CFDI) {
            Some(catalogo) => UsoCfdi::leer(catalogo)?,
            None => Vec::new(),
        };
        let pequenos = edicion
            .catalogos
            .iter()
            .filter(|catalogo| !GRANDES.contains(&catalogo.id.as_str()))
            .map(|catalogo| (catalogo.id.clone(), catalogo.clone()))
            .collect();
        Ok(Self {
            edicion: Some(edicion.fecha),
            origen,
            indice: Box::new(indice),
            buscador,
            unidades,
            codigos_postales,
            usos,
            pequenos,
        })
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

/// The shipped edition, parsed once per process.
pub fn incluidos() -> Arc<CatalogosSat> {
    static INCLUIDOS: OnceLock<Arc<CatalogosSat>> = OnceLock::new();
    INCLUIDOS
        .get_or_init(|| {
            let leida = Edicion::incluida().and_then(|edicion| CatalogosSat::de(&edicion, Origen::Incluida));
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
    Ok(match edicion_importada(db, incluida).await? {
        Some(edicion) => Some(CatalogosSat::de(&edicion, Origen::Importada)?),
        None => None,
    })
}

/// The imported edition, when it is newer than `incluida`.
async fn edicion_importada(db: &Db, incluida: Option<Date>) -> anyhow::Result<Option<Edicion>> {
    let mut conn = db.conn().await?;
    let Some((fecha, datos)) = timbra_store::catalogos::paquete_importado(&mut conn).await? else { return Ok(None) };
    if incluida.is_some_and(|incluida| fecha <= incluida) {
        return Ok(None);
    }
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
