//! Complemento de Comercio Exterior 2.0 (namespace `http://www.sat.gob.mx/ComercioExterior20`),
//! for the CFDI that covers a definitive export (`Exportacion` 02, clave de pedimento A1).
//!
//! The model has every element and attribute of SAT's `ComercioExterior20.xsd` (Emisor and
//! Receptor with their Domicilio, Propietario, Destinatario, Mercancias/Mercancia with
//! DescripcionesEspecificas), fields named after SAT's attributes as in
//! [`super::carta_porte`]; `mercancias` holds Mercancias/Mercancia.
//!
//! The whole unit: the model below and, in its private submodules, `escritura` (XML writer),
//! `lectura` (parser), `cadena` (`ComercioExterior20.xslt`, from the model and from the XML),
//! `validacion` (rules of SAT's Guía de llenado that need no registry, ids `CCE20_*`),
//! `entrada` (the model from the API's JSON) and `construccion` ([`construir`],
//! [`completar`]).
//!
//! The element and attribute code was written mechanically from `ComercioExterior20.xsd` and
//! `ComercioExterior20.xslt`, as for Carta Porte.

mod cadena;
mod construccion;
mod entrada;
mod escritura;
mod lectura;
mod validacion;

use roxmltree::Node;

use super::{Complemento, Unidad};
use crate::cadena::Cadena;
use crate::catalogos::TipoDeComprobante;
use crate::escritura::Escritor;
use crate::model::Comprobante;
use crate::numero::Numero;
use crate::parser::{ErrorParseo, Lector};
use crate::validacion::Validador;

pub use self::construccion::{a_json, a_valor, completar, construir, desde_json, leer_json};

/// Namespace of Comercio Exterior 2.0.
pub const NS_CCE20: &str = "http://www.sat.gob.mx/ComercioExterior20";
/// Schema location of Comercio Exterior 2.0.
pub const XSD_CCE20: &str = "http://www.sat.gob.mx/sitio_internet/cfd/ComercioExterior20/ComercioExterior20.xsd";
/// `Version` of the complement.
pub const VERSION: &str = "2.0";

/// `cce20:ComercioExterior`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ComercioExterior {
    /// `Version`.
    pub version: String,
    /// `MotivoTraslado` (c_MotivoTraslado).
    pub motivo_traslado: Option<String>,
    /// `ClaveDePedimento` (c_ClavePedimento).
    pub clave_de_pedimento: String,
    /// `CertificadoOrigen`.
    pub certificado_origen: Numero,
    /// `NumCertificadoOrigen`.
    pub num_certificado_origen: Option<String>,
    /// `NumeroExportadorConfiable`.
    pub numero_exportador_confiable: Option<String>,
    /// `Incoterm` (c_INCOTERM).
    pub incoterm: Option<String>,
    /// `Observaciones`.
    pub observaciones: Option<String>,
    /// `TipoCambioUSD`.
    pub tipo_cambio_usd: Numero,
    /// `TotalUSD`.
    pub total_usd: Numero,
    /// `cce20:Emisor`.
    pub emisor: Option<EmisorCce>,
    /// `cce20:Propietario` elements.
    pub propietario: Vec<Propietario>,
    /// `cce20:Receptor`.
    pub receptor: Option<ReceptorCce>,
    /// `cce20:Destinatario` elements.
    pub destinatario: Vec<Destinatario>,
    /// `cce20:Mercancias/cce20:Mercancia`.
    pub mercancias: Vec<MercanciaCce>,
}

/// `cce20:Emisor`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct EmisorCce {
    /// `Curp`.
    pub curp: Option<String>,
    /// `cce20:Domicilio`.
    pub domicilio: DomicilioCce,
}

/// `cce20:Domicilio`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DomicilioCce {
    /// `Calle`.
    pub calle: String,
    /// `NumeroExterior`.
    pub numero_exterior: Option<String>,
    /// `NumeroInterior`.
    pub numero_interior: Option<String>,
    /// `Colonia` (c_Colonia).
    pub colonia: Option<String>,
    /// `Localidad` (c_Localidad).
    pub localidad: Option<String>,
    /// `Referencia`.
    pub referencia: Option<String>,
    /// `Municipio` (c_Municipio).
    pub municipio: Option<String>,
    /// `Estado` (c_Estado).
    pub estado: String,
    /// `Pais` (c_Pais).
    pub pais: String,
    /// `CodigoPostal` (c_CodigoPostal).
    pub codigo_postal: String,
}

/// `cce20:Propietario`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Propietario {
    /// `NumRegIdTrib`.
    pub num_reg_id_trib: String,
    /// `ResidenciaFiscal` (c_Pais).
    pub residencia_fiscal: String,
}

/// `cce20:Receptor`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ReceptorCce {
    /// `NumRegIdTrib`.
    pub num_reg_id_trib: Option<String>,
    /// `cce20:Domicilio`.
    pub domicilio: Option<DomicilioCce>,
}

/// `cce20:Destinatario`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Destinatario {
    /// `NumRegIdTrib`.
    pub num_reg_id_trib: Option<String>,
    /// `Nombre`.
    pub nombre: Option<String>,
    /// `cce20:Domicilio` elements.
    pub domicilio: Vec<DomicilioCce>,
}

/// `cce20:Mercancia`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct MercanciaCce {
    /// `NoIdentificacion`.
    pub no_identificacion: String,
    /// `FraccionArancelaria` (c_FraccionArancelaria).
    pub fraccion_arancelaria: Option<String>,
    /// `CantidadAduana`.
    pub cantidad_aduana: Option<Numero>,
    /// `UnidadAduana` (c_UnidadAduana).
    pub unidad_aduana: Option<String>,
    /// `ValorUnitarioAduana`.
    pub valor_unitario_aduana: Option<Numero>,
    /// `ValorDolares`.
    pub valor_dolares: Numero,
    /// `cce20:DescripcionesEspecificas` elements.
    pub descripciones_especificas: Vec<DescripcionesEspecificas>,
}

/// `cce20:DescripcionesEspecificas`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DescripcionesEspecificas {
    /// `Marca`.
    pub marca: String,
    /// `Modelo`.
    pub modelo: Option<String>,
    /// `SubModelo`.
    pub sub_modelo: Option<String>,
    /// `NumeroSerie`.
    pub numero_serie: Option<String>,
}

impl Unidad for ComercioExterior {
    const ESPACIO: &'static str = NS_CCE20;
    const ELEMENTO: &'static str = "ComercioExterior";
    const DECLARACION_EN_RAIZ: Option<(&'static str, &'static str)> = Some(("xmlns:cce20", XSD_CCE20));

    fn leer(lector: &Lector<'_, '_>, nodo: Node<'_, '_>) -> Result<Self, ErrorParseo> {
        lectura::leer(lector, nodo)
    }

    fn escribir(&self, escritor: &mut Escritor) {
        escritura::escribir(escritor, self);
    }

    fn cadena(&self, k: &mut Cadena) {
        cadena::desde_modelo(k, self);
    }

    fn plantilla(k: &mut Cadena, nodo: Node<'_, '_>) -> bool {
        cadena::plantilla(k, nodo);
        true
    }

    fn validar(v: &mut Validador<'_>, c: &Comprobante, tipo: Option<TipoDeComprobante>) {
        validacion::validar(v, c, tipo);
    }
}

impl Comprobante {
    /// The Comercio Exterior 2.0 complement, if any.
    pub fn comercio_exterior(&self) -> Option<&ComercioExterior> {
        self.complementos.iter().find_map(|complemento| match complemento {
            Complemento::ComercioExterior(cce) => Some(cce.as_ref()),
            _ => None,
        })
    }
}
