//! TimbreFiscalDigital 1.1 (namespace `http://www.sat.gob.mx/TimbreFiscalDigital`).
//!
//! The whole unit: model, XML writer (inside `cfdi:Complemento` and on its own, as PACs
//! return it), parser, its own cadena original (`cadenaoriginal_TFD_1_1.xslt`, from the
//! model and from the XML) and the `Comprobante::timbre` accessor. Generating and signing a
//! TFD is [`crate::timbre`]; verifying it is [`crate::sello`].

use roxmltree::Node;

use super::{Complemento, Unidad};
use crate::cadena::{Cadena, CadenaError, attr, nombre_expandido};
use crate::escritura::{ErrorEscritura, Escritor, Etiqueta};
use crate::model::{Comprobante, NS_XSI};
use crate::parser::{self, ErrorParseo, Lector, es};

/// Namespace of TimbreFiscalDigital.
pub const NS_TFD: &str = "http://www.sat.gob.mx/TimbreFiscalDigital";
/// Schema location of TimbreFiscalDigital 1.1.
pub const XSD_TFD: &str = "http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd";

/// `tfd:TimbreFiscalDigital`, appended by the PAC to `cfdi:Complemento`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TimbreFiscalDigital {
    /// `Version`, always `1.1`.
    pub version: String,
    /// `UUID`: the folio fiscal, 36 characters.
    pub uuid: String,
    /// `FechaTimbrado`: `AAAA-MM-DDThh:mm:ss`, Mexico central time.
    pub fecha_timbrado: String,
    /// `RfcProvCertif`: RFC of the PAC.
    pub rfc_prov_certif: String,
    /// `Leyenda`.
    pub leyenda: Option<String>,
    /// `SelloCFD`: copy of `Comprobante/@Sello`.
    pub sello_cfd: String,
    /// `NoCertificadoSAT`: number of the stamping certificate.
    pub no_certificado_sat: String,
    /// `SelloSAT`: base64 RSA-SHA256 over the TFD cadena original.
    pub sello_sat: String,
}

impl TimbreFiscalDigital {
    /// `tfd:TimbreFiscalDigital` with its namespace and schema location: the TFD declares
    /// its own (as PACs write it), and `xmlns:xsi` too when it stands alone.
    fn etiqueta(&self, declara_xsi: bool) -> Etiqueta {
        let ubicacion = format!("{NS_TFD} {XSD_TFD}");
        let etiqueta = Etiqueta::new("tfd:TimbreFiscalDigital").req("xmlns:tfd", NS_TFD);
        let etiqueta = if declara_xsi { etiqueta.req("xmlns:xsi", NS_XSI) } else { etiqueta };
        etiqueta
            .req("xsi:schemaLocation", &ubicacion)
            .req("Version", &self.version)
            .req("UUID", &self.uuid)
            .req("FechaTimbrado", &self.fecha_timbrado)
            .req("RfcProvCertif", &self.rfc_prov_certif)
            .opt("Leyenda", self.leyenda.as_deref())
            .req("SelloCFD", &self.sello_cfd)
            .req("NoCertificadoSAT", &self.no_certificado_sat)
            .req("SelloSAT", &self.sello_sat)
    }
}

impl Unidad for TimbreFiscalDigital {
    const ESPACIO: &'static str = NS_TFD;
    const ELEMENTO: &'static str = "TimbreFiscalDigital";
    // The TFD declares its own namespace and schema location, as PACs do.
    const DECLARACION_EN_RAIZ: Option<(&'static str, &'static str)> = None;

    fn reconoce(nodo: Node<'_, '_>) -> bool {
        // A TFD with content would add its text to the cadena (XSLT built-in rule); such an
        // unusual element is kept verbatim so the cadena cannot change.
        es(nodo, NS_TFD, "TimbreFiscalDigital") && !nodo.has_children()
    }

    fn leer(l: &Lector<'_, '_>, t: Node<'_, '_>) -> Result<Self, ErrorParseo> {
        Ok(TimbreFiscalDigital {
            version: l.req(t, "Version")?,
            uuid: l.req(t, "UUID")?,
            fecha_timbrado: l.req(t, "FechaTimbrado")?,
            rfc_prov_certif: l.req(t, "RfcProvCertif")?,
            leyenda: l.opt(t, "Leyenda"),
            sello_cfd: l.req(t, "SelloCFD")?,
            no_certificado_sat: l.req(t, "NoCertificadoSAT")?,
            sello_sat: l.req(t, "SelloSAT")?,
        })
    }

    fn escribir(&self, e: &mut Escritor) {
        e.vacio(self.etiqueta(false));
    }

    // cadenaoriginal_4_0.xslt has no template for the TFD: the built-in rule copies its
    // text content, which the model (an empty element) does not have.
    fn cadena(&self, _k: &mut Cadena) {}

    fn plantilla(_k: &mut Cadena, _nodo: Node<'_, '_>) -> bool {
        false
    }
}

/// Serialises a TimbreFiscalDigital on its own (root element with its namespaces), as PACs
/// return it and as SAT's `cadenaoriginal_TFD_1_1.xslt` expects it.
///
/// # Errors
/// [`ErrorEscritura`] when a value (e.g. a PAC's `Leyenda`) holds a character XML cannot carry.
pub fn escribir_documento(tfd: &TimbreFiscalDigital) -> Result<String, ErrorEscritura> {
    let mut escritor = Escritor::documento(1024);
    escritor.vacio(tfd.etiqueta(true));
    escritor.terminar()
}

/// Parses a TimbreFiscalDigital on its own (or the first one inside a CFDI).
pub fn parsear(xml: &str) -> Result<TimbreFiscalDigital, ErrorParseo> {
    let documento = parser::documento(xml)?;
    let lector = Lector::new(&documento);
    let raiz = documento.root_element();
    match documento.descendants().find(|nodo| es(*nodo, NS_TFD, "TimbreFiscalDigital")) {
        Some(nodo) => TimbreFiscalDigital::leer(&lector, nodo),
        None => Err(ErrorParseo::NoEsCfdi40 { encontrado: raiz.tag_name().name().to_owned() }),
    }
}

/// Cadena original of a TimbreFiscalDigital 1.1 (`cadenaoriginal_TFD_1_1.xslt`).
pub fn cadena_original(t: &TimbreFiscalDigital) -> String {
    let mut k = Cadena::con_capacidad(512);
    k.req(&t.version);
    k.req(&t.uuid);
    k.req(&t.fecha_timbrado);
    k.req(&t.rfc_prov_certif);
    k.opt(t.leyenda.as_deref());
    k.req(&t.sello_cfd);
    k.req(&t.no_certificado_sat);
    k.terminar()
}

/// Cadena original of the first `TimbreFiscalDigital` in the document (the CFDI itself or
/// a TFD on its own), as `extract_element.xslt | cadenaoriginal_TFD_1_1.xslt` produce it.
pub fn cadena_original_de_xml(xml: &str) -> Result<String, CadenaError> {
    let documento = parser::documento(xml)?;
    let Some(tfd) = documento.descendants().find(|nodo| es(*nodo, NS_TFD, "TimbreFiscalDigital")) else {
        return Err(CadenaError::RaizInesperada {
            encontrado: nombre_expandido(documento.root_element()),
            esperado: format!("{{{NS_TFD}}}TimbreFiscalDigital"),
        });
    };
    let mut k = Cadena::con_capacidad(512);
    for nombre in ["Version", "UUID", "FechaTimbrado", "RfcProvCertif"] {
        k.req(attr(tfd, nombre));
    }
    k.opt(tfd.attribute("Leyenda"));
    k.req(attr(tfd, "SelloCFD"));
    k.req(attr(tfd, "NoCertificadoSAT"));
    Ok(k.terminar())
}

impl Comprobante {
    /// The TimbreFiscalDigital complement, if the CFDI is stamped.
    pub fn timbre(&self) -> Option<&TimbreFiscalDigital> {
        self.complementos.iter().find_map(|complemento| match complemento {
            Complemento::TimbreFiscalDigital(tfd) => Some(tfd.as_ref()),
            _ => None,
        })
    }
}
