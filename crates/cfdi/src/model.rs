//! The CFDI 4.0 document model (Anexo 20, "Estándar de comprobante fiscal digital por
//! internet", versión 4.0).
//!
//! Field names follow SAT's attribute names. Catalog codes are kept as the exact text SAT
//! defines (`"601"`, `"G03"`, `"Tasa"`): the model must hold received invoices verbatim,
//! including ones that break the catalogs; [`crate::catalogos`] gives the typed codes and
//! [`crate::validacion`] checks them. Amounts are [`Numero`], which keeps their text.

use crate::numero::Numero;

pub use crate::complementos::Complemento;

/// Namespace of CFDI 4.0.
pub const NS_CFDI: &str = "http://www.sat.gob.mx/cfd/4";
/// Location of the CFDI 4.0 schema, for `xsi:schemaLocation`.
pub const XSD_CFDI: &str = "http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd";
/// Namespace of XML Schema instance attributes.
pub const NS_XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// `cfdi:Comprobante`, the root of every CFDI 4.0.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Comprobante {
    /// `Version`, always `4.0`.
    pub version: String,
    /// `Serie`: issuer's series, 1–25 characters.
    pub serie: Option<String>,
    /// `Folio`: issuer's folio, 1–40 characters.
    pub folio: Option<String>,
    /// `Fecha`: issue date and time, `AAAA-MM-DDThh:mm:ss`, issuer's local time.
    pub fecha: String,
    /// `Sello`: base64 RSA-SHA256 signature of the cadena original (empty before sealing).
    pub sello: String,
    /// `FormaPago` (c_FormaPago).
    pub forma_pago: Option<String>,
    /// `NoCertificado`: the 20-digit number of the issuer's CSD.
    pub no_certificado: String,
    /// `Certificado`: the CSD in base64 DER (empty before sealing).
    pub certificado: String,
    /// `CondicionesDePago`: free text.
    pub condiciones_de_pago: Option<String>,
    /// `SubTotal`: sum of the concepts' `Importe`.
    pub sub_total: Numero,
    /// `Descuento`: sum of the concepts' `Descuento`.
    pub descuento: Option<Numero>,
    /// `Moneda` (c_Moneda).
    pub moneda: String,
    /// `TipoCambio`: pesos per unit of `Moneda`.
    pub tipo_cambio: Option<Numero>,
    /// `Total`.
    pub total: Numero,
    /// `TipoDeComprobante` (c_TipoDeComprobante): I, E, T, N, P.
    pub tipo_de_comprobante: String,
    /// `Exportacion` (c_Exportacion).
    pub exportacion: String,
    /// `MetodoPago` (c_MetodoPago): PUE or PPD.
    pub metodo_pago: Option<String>,
    /// `LugarExpedicion`: postal code of the place of issue (c_CodigoPostal).
    pub lugar_expedicion: String,
    /// `Confirmacion`: PAC confirmation key for out-of-range amounts.
    pub confirmacion: Option<String>,
    /// `cfdi:InformacionGlobal`, for the global invoice to the general public.
    pub informacion_global: Option<InformacionGlobal>,
    /// `cfdi:CfdiRelacionados`, one per `TipoRelacion`.
    pub cfdi_relacionados: Vec<CfdiRelacionados>,
    /// `cfdi:Emisor`.
    pub emisor: Emisor,
    /// `cfdi:Receptor`.
    pub receptor: Receptor,
    /// `cfdi:Conceptos/cfdi:Concepto`.
    pub conceptos: Vec<Concepto>,
    /// `cfdi:Impuestos`: taxes summarised by impuesto, tipo factor and tasa.
    pub impuestos: Option<Impuestos>,
    /// Children of `cfdi:Complemento`, in document order.
    pub complementos: Vec<Complemento>,
    /// `cfdi:Addenda`: its children as raw XML (not part of the cadena original).
    pub addenda: Option<XmlCrudo>,
}

/// `cfdi:InformacionGlobal` (Anexo 20: required when the receiver is `XAXX010101000` with
/// Nombre `PUBLICO EN GENERAL`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct InformacionGlobal {
    /// `Periodicidad` (c_Periodicidad).
    pub periodicidad: String,
    /// `Meses` (c_Meses).
    pub meses: String,
    /// `Año`: four digits.
    pub ano: String,
}

/// `cfdi:CfdiRelacionados`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CfdiRelacionados {
    /// `TipoRelacion` (c_TipoRelacion).
    pub tipo_relacion: String,
    /// `cfdi:CfdiRelacionado/@UUID` values.
    pub uuids: Vec<String>,
}

/// `cfdi:Emisor`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Emisor {
    /// `Rfc`.
    pub rfc: String,
    /// `Nombre`: name as registered with SAT (without the company type since CFDI 4.0).
    pub nombre: String,
    /// `RegimenFiscal` (c_RegimenFiscal).
    pub regimen_fiscal: String,
    /// `FacAtrAdquirente`: operation number of the acquirer's authorisation (sector primario).
    pub fac_atr_adquirente: Option<String>,
}

/// `cfdi:Receptor`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Receptor {
    /// `Rfc`.
    pub rfc: String,
    /// `Nombre`.
    pub nombre: String,
    /// `DomicilioFiscalReceptor`: the receiver's postal code.
    pub domicilio_fiscal_receptor: String,
    /// `ResidenciaFiscal` (c_Pais) for foreign receivers.
    pub residencia_fiscal: Option<String>,
    /// `NumRegIdTrib`: foreign tax id.
    pub num_reg_id_trib: Option<String>,
    /// `RegimenFiscalReceptor` (c_RegimenFiscal).
    pub regimen_fiscal_receptor: String,
    /// `UsoCFDI` (c_UsoCFDI).
    pub uso_cfdi: String,
}

/// `cfdi:Concepto`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Concepto {
    /// `ClaveProdServ` (c_ClaveProdServ).
    pub clave_prod_serv: String,
    /// `NoIdentificacion`: the issuer's SKU.
    pub no_identificacion: Option<String>,
    /// `Cantidad`.
    pub cantidad: Numero,
    /// `ClaveUnidad` (c_ClaveUnidad).
    pub clave_unidad: String,
    /// `Unidad`: the issuer's unit name.
    pub unidad: Option<String>,
    /// `Descripcion`.
    pub descripcion: String,
    /// `ValorUnitario`.
    pub valor_unitario: Numero,
    /// `Importe` = Cantidad × ValorUnitario.
    pub importe: Numero,
    /// `Descuento`.
    pub descuento: Option<Numero>,
    /// `ObjetoImp` (c_ObjetoImp).
    pub objeto_imp: String,
    /// `cfdi:Impuestos` of the concept.
    pub impuestos: Option<ImpuestosConcepto>,
    /// `cfdi:ACuentaTerceros`.
    pub a_cuenta_terceros: Option<ACuentaTerceros>,
    /// `cfdi:InformacionAduanera/@NumeroPedimento` values.
    pub informacion_aduanera: Vec<String>,
    /// `cfdi:CuentaPredial/@Numero` values.
    pub cuenta_predial: Vec<String>,
    /// `cfdi:ComplementoConcepto` children as raw XML.
    pub complemento_concepto: Option<XmlCrudo>,
    /// `cfdi:Parte`.
    pub partes: Vec<Parte>,
}

/// `cfdi:Concepto/cfdi:Impuestos`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ImpuestosConcepto {
    /// `cfdi:Traslados/cfdi:Traslado`.
    pub traslados: Vec<Traslado>,
    /// `cfdi:Retenciones/cfdi:Retencion`.
    pub retenciones: Vec<Retencion>,
}

/// `cfdi:Concepto/cfdi:Impuestos/cfdi:Traslados/cfdi:Traslado`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Traslado {
    /// `Base`.
    pub base: Numero,
    /// `Impuesto` (c_Impuesto): 002 IVA, 003 IEPS.
    pub impuesto: String,
    /// `TipoFactor` (c_TipoFactor): Tasa, Cuota, Exento.
    pub tipo_factor: String,
    /// `TasaOCuota` (absent when Exento).
    pub tasa_o_cuota: Option<Numero>,
    /// `Importe` (absent when Exento).
    pub importe: Option<Numero>,
}

/// `cfdi:Concepto/cfdi:Impuestos/cfdi:Retenciones/cfdi:Retencion`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Retencion {
    /// `Base`.
    pub base: Numero,
    /// `Impuesto` (c_Impuesto): 001 ISR, 002 IVA, 003 IEPS.
    pub impuesto: String,
    /// `TipoFactor` (c_TipoFactor): Tasa or Cuota.
    pub tipo_factor: String,
    /// `TasaOCuota`.
    pub tasa_o_cuota: Numero,
    /// `Importe`.
    pub importe: Numero,
}

/// `cfdi:ACuentaTerceros`: the concept is invoiced on behalf of a third party.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ACuentaTerceros {
    /// `RfcACuentaTerceros`.
    pub rfc: String,
    /// `NombreACuentaTerceros`.
    pub nombre: String,
    /// `RegimenFiscalACuentaTerceros`.
    pub regimen_fiscal: String,
    /// `DomicilioFiscalACuentaTerceros`.
    pub domicilio_fiscal: String,
}

/// `cfdi:Parte`: parts of a concept.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Parte {
    /// `ClaveProdServ`.
    pub clave_prod_serv: String,
    /// `NoIdentificacion`.
    pub no_identificacion: Option<String>,
    /// `Cantidad`.
    pub cantidad: Numero,
    /// `Unidad`.
    pub unidad: Option<String>,
    /// `Descripcion`.
    pub descripcion: String,
    /// `ValorUnitario`.
    pub valor_unitario: Option<Numero>,
    /// `Importe`.
    pub importe: Option<Numero>,
    /// `cfdi:InformacionAduanera/@NumeroPedimento` values.
    pub informacion_aduanera: Vec<String>,
}

/// `cfdi:Impuestos` at comprobante level.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Impuestos {
    /// `TotalImpuestosRetenidos`.
    pub total_impuestos_retenidos: Option<Numero>,
    /// `TotalImpuestosTrasladados` (excludes Exento).
    pub total_impuestos_trasladados: Option<Numero>,
    /// `cfdi:Retenciones/cfdi:Retencion`, one per impuesto.
    pub retenciones: Vec<RetencionComprobante>,
    /// `cfdi:Traslados/cfdi:Traslado`, one per impuesto, tipo factor and tasa.
    pub traslados: Vec<TrasladoComprobante>,
}

/// `cfdi:Impuestos/cfdi:Retenciones/cfdi:Retencion`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RetencionComprobante {
    /// `Impuesto`.
    pub impuesto: String,
    /// `Importe`.
    pub importe: Numero,
}

/// `cfdi:Impuestos/cfdi:Traslados/cfdi:Traslado`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TrasladoComprobante {
    /// `Base`.
    pub base: Numero,
    /// `Impuesto`.
    pub impuesto: String,
    /// `TipoFactor`.
    pub tipo_factor: String,
    /// `TasaOCuota`.
    pub tasa_o_cuota: Option<Numero>,
    /// `Importe`.
    pub importe: Option<Numero>,
}

/// An XML fragment kept verbatim (complements this crate does not model, addenda).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct XmlCrudo {
    /// Namespace URI of the (first) element.
    pub espacio: String,
    /// The fragment's text, with the namespace declarations it needs from its ancestors
    /// already added to its top elements, so it stands on its own.
    pub xml: String,
}
