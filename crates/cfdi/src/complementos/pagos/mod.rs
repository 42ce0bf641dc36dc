//! Complemento para recepción de pagos 2.0 (namespace `http://www.sat.gob.mx/Pagos20`).
//!
//! The whole unit: the model below and, in its private submodules, `escritura` (XML
//! writer), `lectura` (parser), `cadena` (its part of the cadena original, from the model
//! and from the XML), `validacion` (rules on the comprobante that carries it) and
//! `construccion` ([`calcular_totales`] and the `NuevoComprobante` preset).

mod cadena;
mod construccion;
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

pub use self::construccion::{calcular_impuestos_p, calcular_totales, impuestos_dr};

/// Namespace of Pagos 2.0.
pub const NS_PAGOS20: &str = "http://www.sat.gob.mx/Pagos20";
/// Schema location of Pagos 2.0.
pub const XSD_PAGOS20: &str = "http://www.sat.gob.mx/sitio_internet/cfd/Pagos/Pagos20.xsd";

/// `pago20:Pagos`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Pagos {
    /// `Version`, always `2.0`.
    pub version: String,
    /// `pago20:Totales`.
    pub totales: Totales,
    /// `pago20:Pago` elements.
    pub pagos: Vec<Pago>,
}

/// `pago20:Totales`: totals in MXN of every `Pago`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Totales {
    /// `TotalRetencionesIVA`.
    pub total_retenciones_iva: Option<Numero>,
    /// `TotalRetencionesISR`.
    pub total_retenciones_isr: Option<Numero>,
    /// `TotalRetencionesIEPS`.
    pub total_retenciones_ieps: Option<Numero>,
    /// `TotalTrasladosBaseIVA16`.
    pub total_traslados_base_iva16: Option<Numero>,
    /// `TotalTrasladosImpuestoIVA16`.
    pub total_traslados_impuesto_iva16: Option<Numero>,
    /// `TotalTrasladosBaseIVA8`.
    pub total_traslados_base_iva8: Option<Numero>,
    /// `TotalTrasladosImpuestoIVA8`.
    pub total_traslados_impuesto_iva8: Option<Numero>,
    /// `TotalTrasladosBaseIVA0`.
    pub total_traslados_base_iva0: Option<Numero>,
    /// `TotalTrasladosImpuestoIVA0`.
    pub total_traslados_impuesto_iva0: Option<Numero>,
    /// `TotalTrasladosBaseIVAExento`.
    pub total_traslados_base_iva_exento: Option<Numero>,
    /// `MontoTotalPagos`.
    pub monto_total_pagos: Numero,
}

/// `pago20:Pago`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Pago {
    /// `FechaPago`.
    pub fecha_pago: String,
    /// `FormaDePagoP` (c_FormaPago).
    pub forma_de_pago_p: String,
    /// `MonedaP` (c_Moneda).
    pub moneda_p: String,
    /// `TipoCambioP`.
    pub tipo_cambio_p: Option<Numero>,
    /// `Monto`.
    pub monto: Numero,
    /// `NumOperacion`.
    pub num_operacion: Option<String>,
    /// `RfcEmisorCtaOrd`.
    pub rfc_emisor_cta_ord: Option<String>,
    /// `NomBancoOrdExt`.
    pub nom_banco_ord_ext: Option<String>,
    /// `CtaOrdenante`.
    pub cta_ordenante: Option<String>,
    /// `RfcEmisorCtaBen`.
    pub rfc_emisor_cta_ben: Option<String>,
    /// `CtaBeneficiario`.
    pub cta_beneficiario: Option<String>,
    /// `TipoCadPago`.
    pub tipo_cad_pago: Option<String>,
    /// `CertPago`.
    pub cert_pago: Option<String>,
    /// `CadPago`.
    pub cad_pago: Option<String>,
    /// `SelloPago`.
    pub sello_pago: Option<String>,
    /// `pago20:DoctoRelacionado` elements.
    pub doctos_relacionados: Vec<DoctoRelacionado>,
    /// `pago20:ImpuestosP`.
    pub impuestos_p: Option<ImpuestosP>,
}

/// `pago20:DoctoRelacionado`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DoctoRelacionado {
    /// `IdDocumento`: UUID of the paid invoice.
    pub id_documento: String,
    /// `Serie`.
    pub serie: Option<String>,
    /// `Folio`.
    pub folio: Option<String>,
    /// `MonedaDR`.
    pub moneda_dr: String,
    /// `EquivalenciaDR`.
    pub equivalencia_dr: Option<Numero>,
    /// `NumParcialidad`.
    pub num_parcialidad: String,
    /// `ImpSaldoAnt`.
    pub imp_saldo_ant: Numero,
    /// `ImpPagado`.
    pub imp_pagado: Numero,
    /// `ImpSaldoInsoluto`.
    pub imp_saldo_insoluto: Numero,
    /// `ObjetoImpDR` (c_ObjetoImp).
    pub objeto_imp_dr: String,
    /// `pago20:ImpuestosDR`.
    pub impuestos_dr: Option<ImpuestosDR>,
}

/// `pago20:ImpuestosDR`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ImpuestosDR {
    /// `pago20:RetencionesDR/pago20:RetencionDR`.
    pub retenciones_dr: Vec<RetencionDR>,
    /// `pago20:TrasladosDR/pago20:TrasladoDR`.
    pub traslados_dr: Vec<TrasladoDR>,
}

/// `pago20:RetencionDR`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RetencionDR {
    /// `BaseDR`.
    pub base_dr: Numero,
    /// `ImpuestoDR`.
    pub impuesto_dr: String,
    /// `TipoFactorDR`.
    pub tipo_factor_dr: String,
    /// `TasaOCuotaDR`.
    pub tasa_o_cuota_dr: Numero,
    /// `ImporteDR`.
    pub importe_dr: Numero,
}

/// `pago20:TrasladoDR`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TrasladoDR {
    /// `BaseDR`.
    pub base_dr: Numero,
    /// `ImpuestoDR`.
    pub impuesto_dr: String,
    /// `TipoFactorDR`.
    pub tipo_factor_dr: String,
    /// `TasaOCuotaDR` (absent when Exento).
    pub tasa_o_cuota_dr: Option<Numero>,
    /// `ImporteDR` (absent when Exento).
    pub importe_dr: Option<Numero>,
}

/// `pago20:ImpuestosP`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ImpuestosP {
    /// `pago20:RetencionesP/pago20:RetencionP`.
    pub retenciones_p: Vec<RetencionP>,
    /// `pago20:TrasladosP/pago20:TrasladoP`.
    pub traslados_p: Vec<TrasladoP>,
}

/// `pago20:RetencionP`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RetencionP {
    /// `ImpuestoP`.
    pub impuesto_p: String,
    /// `ImporteP`.
    pub importe_p: Numero,
}

/// `pago20:TrasladoP`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TrasladoP {
    /// `BaseP`.
    pub base_p: Numero,
    /// `ImpuestoP`.
    pub impuesto_p: String,
    /// `TipoFactorP`.
    pub tipo_factor_p: String,
    /// `TasaOCuotaP`.
    pub tasa_o_cuota_p: Option<Numero>,
    /// `ImporteP`.
    pub importe_p: Option<Numero>,
}

impl Unidad for Pagos {
    const ESPACIO: &'static str = NS_PAGOS20;
    const ELEMENTO: &'static str = "Pagos";
    const DECLARACION_EN_RAIZ: Option<(&'static str, &'static str)> = Some(("xmlns:pago20", XSD_PAGOS20));

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
    /// The Pagos 2.0 complement, if any.
    pub fn pagos(&self) -> Option<&Pagos> {
        self.complementos.iter().find_map(|complemento| match complemento {
            Complemento::Pagos(pagos) => Some(pagos.as_ref()),
            _ => None,
        })
    }
}
