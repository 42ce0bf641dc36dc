//! TimbreFiscalDigital 1.1 model (namespace `http://www.sat.gob.mx/TimbreFiscalDigital`).

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
