//! Complemento de impuestos locales 1.0 (namespace `http://www.sat.gob.mx/implocal`).
//!
//! The whole unit: model, XML writer, parser, cadena original (`implocal.xslt`) and its
//! share of `Total`.

use roxmltree::Node;
use rust_decimal::Decimal;

use super::{Complemento, Unidad};
use crate::cadena::{Cadena, req_all};
use crate::escritura::{Escritor, Etiqueta};
use crate::model::Comprobante;
use crate::numero::Numero;
use crate::parser::{ErrorParseo, Lector, hijos};

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

impl ImpuestosLocales {
    /// `(TotaldeTraslados, TotaldeRetenciones)` as decimals (zero when not a number): what
    /// the complement adds to and subtracts from the comprobante's `Total`.
    pub fn totales(&self) -> (Decimal, Decimal) {
        (self.total_de_traslados.valor().unwrap_or_default(), self.total_de_retenciones.valor().unwrap_or_default())
    }
}

impl Unidad for ImpuestosLocales {
    const ESPACIO: &'static str = NS_IMPLOCAL;
    const ELEMENTO: &'static str = "ImpuestosLocales";
    const DECLARACION_EN_RAIZ: Option<(&'static str, &'static str)> = Some(("xmlns:implocal", XSD_IMPLOCAL));

    fn leer(lector: &Lector<'_, '_>, l: Node<'_, '_>) -> Result<Self, ErrorParseo> {
        Ok(ImpuestosLocales {
            version: lector.req(l, "version")?,
            total_de_retenciones: lector.num(l, "TotaldeRetenciones")?,
            total_de_traslados: lector.num(l, "TotaldeTraslados")?,
            retenciones_locales: hijos(l, NS_IMPLOCAL, "RetencionesLocales")
                .map(|r| {
                    Ok(RetencionLocal {
                        imp_loc_retenido: lector.req(r, "ImpLocRetenido")?,
                        tasa_de_retencion: lector.num(r, "TasadeRetencion")?,
                        importe: lector.num(r, "Importe")?,
                    })
                })
                .collect::<Result<_, ErrorParseo>>()?,
            traslados_locales: hijos(l, NS_IMPLOCAL, "TrasladosLocales")
                .map(|t| {
                    Ok(TrasladoLocal {
                        imp_loc_trasladado: lector.req(t, "ImpLocTrasladado")?,
                        tasa_de_traslado: lector.num(t, "TasadeTraslado")?,
                        importe: lector.num(t, "Importe")?,
                    })
                })
                .collect::<Result<_, ErrorParseo>>()?,
        })
    }

    fn escribir(&self, e: &mut Escritor) {
        let l = self;
        let etiqueta = Etiqueta::new("implocal:ImpuestosLocales")
            .req("version", &l.version)
            .num("TotaldeRetenciones", &l.total_de_retenciones)
            .num("TotaldeTraslados", &l.total_de_traslados);
        if l.retenciones_locales.is_empty() && l.traslados_locales.is_empty() {
            e.vacio(etiqueta);
            return;
        }
        e.abrir(etiqueta);
        for r in &l.retenciones_locales {
            e.vacio(
                Etiqueta::new("implocal:RetencionesLocales")
                    .req("ImpLocRetenido", &r.imp_loc_retenido)
                    .num("TasadeRetencion", &r.tasa_de_retencion)
                    .num("Importe", &r.importe),
            );
        }
        for t in &l.traslados_locales {
            e.vacio(
                Etiqueta::new("implocal:TrasladosLocales")
                    .req("ImpLocTrasladado", &t.imp_loc_trasladado)
                    .num("TasadeTraslado", &t.tasa_de_traslado)
                    .num("Importe", &t.importe),
            );
        }
        e.cerrar("implocal:ImpuestosLocales");
    }

    fn cadena(&self, k: &mut Cadena) {
        let l = self;
        k.req(&l.version);
        k.num(&l.total_de_retenciones);
        k.num(&l.total_de_traslados);
        for r in &l.retenciones_locales {
            k.req(&r.imp_loc_retenido);
            k.num(&r.tasa_de_retencion);
            k.num(&r.importe);
        }
        for t in &l.traslados_locales {
            k.req(&t.imp_loc_trasladado);
            k.num(&t.tasa_de_traslado);
            k.num(&t.importe);
        }
    }

    fn plantilla(k: &mut Cadena, l: Node<'_, '_>) -> bool {
        req_all(k, l, &["version", "TotaldeRetenciones", "TotaldeTraslados"]);
        for r in hijos(l, NS_IMPLOCAL, "RetencionesLocales") {
            req_all(k, r, &["ImpLocRetenido", "TasadeRetencion", "Importe"]);
        }
        for t in hijos(l, NS_IMPLOCAL, "TrasladosLocales") {
            req_all(k, t, &["ImpLocTrasladado", "TasadeTraslado", "Importe"]);
        }
        true
    }

    /// Anexo 20, Total: `+ impuestos locales trasladados − retenidos`.
    fn importes_al_total(&self) -> Option<(Decimal, Decimal)> {
        Some(self.totales())
    }
}

impl Comprobante {
    /// The Impuestos Locales complement, if any.
    pub fn impuestos_locales(&self) -> Option<&ImpuestosLocales> {
        self.complementos.iter().find_map(|complemento| match complemento {
            Complemento::ImpuestosLocales(locales) => Some(locales.as_ref()),
            _ => None,
        })
    }
}
