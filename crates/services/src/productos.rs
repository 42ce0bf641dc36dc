//! Products (productos) of a company: their rules over the shared CRUD of [`crate::scoped`].

use rust_decimal::Decimal;
use timbra_cfdi::catalogos::Catalogos;
use timbra_cfdi::tipos::{CampoTexto, Esquema};
use timbra_store::ids::EmpresaId;
use timbra_store::productos::{self, ProductoRow};
use timbra_store::{DbResult, Tx};
use time::{Date, OffsetDateTime};

use crate::context::AppContext;
use crate::error::{ApiError, Code, FieldProblem};
use crate::scoped::Resource;
use crate::validate::{self, RawAmount};

/// A product's fields as sent: all required on create but `iva_rate`; on update what is left
/// out keeps its value.
#[derive(Default)]
pub struct Campos {
    /// c_ClaveProdServ, 8 digits.
    pub clave_prod_serv: Option<String>,
    /// c_ClaveUnidad.
    pub clave_unidad: Option<String>,
    /// Description printed on the invoice.
    pub descripcion: Option<String>,
    /// Unit price in MXN, as sent.
    pub precio_unitario: Option<RawAmount>,
    /// VAT rate, default 0.16, as sent.
    pub iva_rate: Option<RawAmount>,
    /// Default c_FraccionArancelaria (8 or 10 digits) for Comercio Exterior and Carta Porte.
    pub fraccion_arancelaria: Option<String>,
    /// Default Carta Porte MaterialPeligroso: `Sí` or `No`.
    pub material_peligroso: Option<String>,
}

/// A product's fields, checked.
pub struct Valid {
    clave_prod_serv: String,
    clave_unidad: String,
    descripcion: String,
    precio_unitario: Decimal,
    iva_rate: Decimal,
    fraccion_arancelaria: Option<String>,
    material_peligroso: Option<String>,
}

impl Valid {
    fn datos(&self) -> productos::Datos<'_> {
        productos::Datos {
            clave_prod_serv: &self.clave_prod_serv,
            clave_unidad: &self.clave_unidad,
            descripcion: &self.descripcion,
            precio_unitario: self.precio_unitario,
            iva_rate: self.iva_rate,
            fraccion_arancelaria: self.fraccion_arancelaria.as_deref(),
            material_peligroso: self.material_peligroso.as_deref(),
        }
    }
}

/// PRODUCTO_001 with every field problem; `claveProdServ` and `claveUnidad` must be in SAT's
/// catalogs held (`catalogos`) and in force on `hoy`, so a saved product stamps (issue 29).
pub fn check(campos: Campos, catalogos: &dyn Catalogos, hoy: Date) -> Result<Valid, ApiError> {
    let mut problems = Vec::new();
    let clave_prod_serv = campos.clave_prod_serv.map(|c| c.trim().to_owned()).unwrap_or_default();
    if clave_prod_serv.len() != 8 || !clave_prod_serv.chars().all(|c| c.is_ascii_digit()) {
        problems.push(FieldProblem::new(
            "claveProdServ",
            "claveProdServ is the 8-digit c_ClaveProdServ code, e.g. 81112100",
        ));
    } else if let Some(problema) = en_vigor(
        catalogos.clave_prod_serv(&clave_prod_serv),
        catalogos.clave_prod_serv_vigente(&clave_prod_serv, hoy),
        &clave_prod_serv,
        "c_ClaveProdServ",
        "/api/catalogos/productos-servicios?q=",
    ) {
        problems.push(FieldProblem::new("claveProdServ", problema));
    }
    let clave_unidad = campos.clave_unidad.map(|c| c.trim().to_owned()).unwrap_or_default();
    if clave_unidad.is_empty() || clave_unidad.len() > 3 || !clave_unidad.chars().all(|c| c.is_ascii_alphanumeric()) {
        problems.push(FieldProblem::new(
            "claveUnidad",
            "claveUnidad is the c_ClaveUnidad code, e.g. E48 (service) or H87 (piece)",
        ));
    } else if let Some(problema) = en_vigor(
        catalogos.clave_unidad(&clave_unidad),
        catalogos.clave_unidad_vigente(&clave_unidad, hoy),
        &clave_unidad,
        "c_ClaveUnidad",
        "/api/catalogos/unidades?q=",
    ) {
        problems.push(FieldProblem::new("claveUnidad", problema));
    }
    let descripcion =
        validate::sat_text(&mut problems, "descripcion", campos.descripcion.as_deref(), CampoTexto::DESCRIPCION);
    let precio_unitario =
        validate::amount(&mut problems, "precioUnitario", campos.precio_unitario.as_ref(), Esquema::IMPORTE, true)
            .unwrap_or_default();
    let iva_rate = match &campos.iva_rate {
        None => Some(Decimal::new(16, 2)),
        Some(raw) => validate::amount(&mut problems, "ivaRate", Some(raw), Esquema::TASA_O_CUOTA, true),
    };
    // c_TasaOCuota: IVA traslado is 0, 0.08 (border stimulus) or 0.16.
    let iva_rate = iva_rate.unwrap_or(Decimal::new(16, 2));
    if ![Decimal::ZERO, Decimal::new(8, 2), Decimal::new(16, 2)].contains(&iva_rate) {
        problems.push(FieldProblem::new("ivaRate", "ivaRate must be 0, 0.08 or 0.16"));
    }
    let fraccion_arancelaria = campos.fraccion_arancelaria.map(|f| f.trim().to_owned()).filter(|f| !f.is_empty());
    if let Some(fraccion) = &fraccion_arancelaria
        && (![8, 10].contains(&fraccion.len()) || !fraccion.bytes().all(|b| b.is_ascii_digit()))
    {
        problems.push(FieldProblem::new(
            "fraccionArancelaria",
            format!("{fraccion:?} is not a c_FraccionArancelaria code (8 or 10 digits, e.g. 8471300100)"),
        ));
    }
    let material_peligroso = match campos.material_peligroso.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
        None => None,
        Some("Sí" | "Si" | "SI" | "SÍ") => Some("Sí".to_owned()),
        Some("No" | "NO") => Some("No".to_owned()),
        Some(other) => {
            problems.push(FieldProblem::new("materialPeligroso", format!("{other:?}: materialPeligroso is Sí or No")));
            None
        }
    };
    if !problems.is_empty() {
        return Err(ApiError::fields(Code::Producto001, problems));
    }
    Ok(Valid {
        clave_prod_serv,
        clave_unidad,
        descripcion,
        precio_unitario,
        iva_rate,
        fraccion_arancelaria,
        material_peligroso,
    })
}

/// What is wrong with a code SAT's catalog `catalogo` does not have (`existe`) or no longer
/// has in force today (`vigente`), with where to search for the right one; `None` when it is
/// fine or the catalog is not held.
fn en_vigor(
    existe: Option<bool>,
    vigente: Option<bool>,
    clave: &str,
    catalogo: &str,
    busqueda: &str,
) -> Option<String> {
    match (existe, vigente) {
        (Some(false), _) => Some(format!("{clave} is not in SAT's {catalogo}: search it with GET {busqueda}")),
        (_, Some(false)) => {
            Some(format!("{clave} is not in force today in SAT's {catalogo}: search a current one with GET {busqueda}"))
        }
        _ => None,
    }
}

/// The products, for [`crate::scoped`].
pub struct Productos;

impl Resource for Productos {
    type Table = productos::Productos;
    type Fields = Campos;
    type Valid = Valid;
    const NOUN: &'static str = "product";

    async fn check(app: &AppContext, campos: Campos, current: Option<ProductoRow>) -> Result<Valid, ApiError> {
        let campos = match current {
            None => campos,
            Some(current) => Campos {
                clave_prod_serv: campos.clave_prod_serv.or(Some(current.clave_prod_serv)),
                clave_unidad: campos.clave_unidad.or(Some(current.clave_unidad)),
                descripcion: campos.descripcion.or(Some(current.descripcion)),
                precio_unitario: campos.precio_unitario.or(Some(RawAmount::from_decimal(current.precio_unitario.0))),
                iva_rate: campos.iva_rate.or(Some(RawAmount::from_decimal(current.iva_rate.0))),
                fraccion_arancelaria: campos.fraccion_arancelaria.or(current.fraccion_arancelaria),
                material_peligroso: campos.material_peligroso.or(current.material_peligroso),
            },
        };
        // Today in the Zona Centro: the day SAT's catalog is read at.
        check(campos, &*app.catalogos.indice, crate::cfdi::hora_local(app.clock.now()).date())
    }

    async fn insert(
        tx: &mut Tx,
        empresa_id: &EmpresaId,
        id: &str,
        valid: &Valid,
        now: OffsetDateTime,
    ) -> DbResult<u64> {
        productos::insert(tx, empresa_id, id, &valid.datos(), now).await
    }

    async fn update(
        tx: &mut Tx,
        empresa_id: &EmpresaId,
        id: &str,
        valid: &Valid,
        now: OffsetDateTime,
    ) -> DbResult<u64> {
        productos::update(tx, empresa_id, id, &valid.datos(), now).await
    }
}
