//! What the stamping pipeline needs of a document, whatever its schema: a CFDI 4.0
//! `Comprobante` (invoices, payments, payroll receipts) or a CFDI de Retenciones 2.0 (its own
//! namespace, cadena and TFD placement). The pipeline holds documents as `dyn Sellable` and
//! never looks inside them: folio, seal, sandbox TFD, XML and the row's values are each the
//! document's own.

use std::sync::Arc;

use timbra_cfdi::catalogos::Catalogos;
use timbra_cfdi::timbre::DatosTimbre;
use timbra_cfdi::{Comprobante, escritura, sello, timbre};
use timbra_credentials::Credential;
use time::OffsetDateTime;

use super::pipeline::registro::Fila;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};

/// A prepared document: what a document type gives the pipeline.
pub struct Documento {
    /// Built and validated, without folio, seal or TFD: a CFDI 4.0 `Comprobante` or any other
    /// [`Sellable`] (a CFDI de Retenciones).
    pub contenido: PorSellar,
    /// The series it will carry.
    pub serie: String,
    /// The customer it was issued to, when it is one of the company's customers.
    pub cliente_id: Option<String>,
    /// The Idempotency-Key operation name (`cfdi.timbrar`).
    pub operacion: &'static str,
}

/// A stamped document on its way to the database.
pub(crate) struct Timbrado {
    pub(crate) documento: Box<dyn Sellable>,
    /// The XML as stored ([`cfdi_xml::comprimir`]).
    pub(crate) xml_comprimido: Vec<u8>,
    pub(crate) folio: i64,
    pub(crate) uuid_xml: String,
    pub(crate) uuid_api: String,
    pub(crate) timbrado_en: OffsetDateTime,
}

/// A document the pipeline seals and stamps.
pub trait Sellable: Send + Sync + 'static {
    /// A copy carrying `folio`, sealed with the company's CSD (`NoCertificado`, `Certificado`,
    /// `Sello`). The document itself stays unsealed: a missed folio prediction seals it again.
    fn sellado(&self, folio: i64, csd: &Credential) -> ApiResult<Box<dyn Sellable>>;

    /// Adds the sandbox TimbreFiscalDigital signed with `pac` where the schema puts it.
    fn timbrar(&mut self, datos: DatosTimbre, pac: &Credential) -> ApiResult<()>;

    /// The XML as SAT's schema writes it.
    fn xml(&self) -> ApiResult<String>;

    /// The values of its `cfdis` row; `Fecha` read in the expedition place's zone (postal codes
    /// of `catalogos`).
    fn fila(&self, catalogos: &dyn Catalogos) -> ApiResult<Fila>;

    /// The CFDI 4.0 `Comprobante` it is, for what reads one (the dry run's verdict); `None`
    /// for a document of another schema.
    fn como_comprobante(&self) -> Option<&Comprobante> {
        None
    }
}

/// A document not yet sealed, shared by the sealing thread and the writer that may seal it
/// again with another folio.
pub type PorSellar = Arc<dyn Sellable>;

/// Seals `documento` with `folio`, adds the sandbox TFD and writes the XML: the sealed
/// document and its XML compressed as stored ([`timbra_store::cfdi_xml::comprimir`]).
pub fn sellar_con_timbre(
    documento: &dyn Sellable,
    folio: i64,
    csd: &Credential,
    pac: &Credential,
    datos: DatosTimbre,
) -> ApiResult<(Box<dyn Sellable>, Vec<u8>)> {
    let mut sellado = documento.sellado(folio, csd)?;
    sellado.timbrar(datos, pac)?;
    let comprimido = timbra_store::cfdi_xml::comprimir(&sellado.xml()?);
    Ok((sellado, comprimido))
}

impl Sellable for Comprobante {
    fn sellado(&self, folio: i64, csd: &Credential) -> ApiResult<Box<dyn Sellable>> {
        let mut comprobante = self.clone();
        comprobante.folio = Some(folio.to_string());
        sello::sellar(&mut comprobante, csd).map_err(|e| ApiError::internal("sello", e))?;
        Ok(Box::new(comprobante))
    }

    fn timbrar(&mut self, datos: DatosTimbre, pac: &Credential) -> ApiResult<()> {
        timbre::timbrar(self, datos, pac).map_err(|e| ApiError::internal("timbre", e))?;
        Ok(())
    }

    fn xml(&self) -> ApiResult<String> {
        escritura::escribir(self).map_err(error_escritura)
    }

    fn fila(&self, catalogos: &dyn Catalogos) -> ApiResult<Fila> {
        Fila::de(self, catalogos)
    }

    fn como_comprobante(&self) -> Option<&Comprobante> {
        Some(self)
    }
}

/// A CFDI 4.0 stamped by the PAC, read back for its row (the registry's reader of CFDI types).
pub fn leer_comprobante(xml: &str) -> ApiResult<Box<dyn Sellable>> {
    let comprobante = timbra_cfdi::parser::parsear(xml).map_err(|e| ApiError::internal("PAC XML", e))?;
    Ok(Box::new(comprobante))
}

/// The XML writer refused a value (a character XML 1.0 cannot carry): CFDI_001 naming the
/// element and attribute. The body's checks already refuse such texts, so this answers data that
/// reached the comprobante some other way, instead of stamping a document that is not XML.
pub fn error_escritura(error: timbra_cfdi::escritura::ErrorEscritura) -> ApiError {
    tracing::warn!(cfdi.elemento = %error.elemento, cfdi.atributo = %error.atributo, "XML writer refused a value");
    ApiError::fields(
        Code::Cfdi001,
        vec![FieldProblem::new(
            format!("{}.{}", error.elemento.trim_start_matches("cfdi:"), error.atributo),
            format!("{error}; remove it from the stored data and retry"),
        )],
    )
}
