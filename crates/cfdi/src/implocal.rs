//! Complemento de impuestos locales 1.0 (namespace `http://www.sat.gob.mx/implocal`).

use crate::numero::Numero;

/// Namespace of Impuestos Locales.
pub const NS_IMPLOCAL: &str = "http://www.sat.gob.mx/implocal";
/// Schema location of Impuestos Locales.
pub const XSD_IMPLOCAL: &str = "http://www.sat.gob.mx/sitio_internet/cfd/implocal/implocal.xsd";

/// `implocal:ImpuestosLocales`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ImpuestosLocales {
    /// `version` (lower-case in SAT's schema), always `1.0`.
    pub version: String,
    /// `TotaldeRetenciones`.
    pub total_de_retenciones: Numero,
    /// `TotaldeTraslados`.
    pub total_de_traslados: Numero,
    /// `implocal:RetencionesLocales` elements.
    pub retenciones_locales: Vec<RetencionLocal>,
    /// `implocal:TrasladosLocales` elements.
    pub traslados_locales: Vec<TrasladoLocal>,
}

/// `implocal:RetencionesLocales`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RetencionLocal {
    /// `ImpLocRetenido`: name of the local tax.
    pub imp_loc_retenido: String,
    /// `TasadeRetencion`.
    pub tasa_de_retencion: Numero,
    /// `Importe`.
    pub importe: Numero,
}

/// `implocal:TrasladosLocales`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TrasladoLocal {
    /// `ImpLocTrasladado`: name of the local tax.
    pub imp_loc_trasladado: String,
    /// `TasadeTraslado`.
    pub tasa_de_traslado: Numero,
    /// `Importe`.
    pub importe: Numero,
}
