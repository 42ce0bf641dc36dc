//! The parser reads the writer's output back into an equal model, and SAT-style documents
//! (other prefixes, pretty-printing, a BOM, CRLF) into the model whose cadena is xsltproc's.

use timbra_retenciones::parser::ErrorParseo;
use timbra_retenciones::{Receptor, cadena, escribir, parsear};

use crate::comun::{self, EXTRANJERO, NACIONAL, PLATAFORMAS, construir_json};
use crate::oraculo;

#[test]
fn lo_escrito_se_lee_igual() {
    for json in [NACIONAL, EXTRANJERO, PLATAFORMAS] {
        let retenciones = construir_json(json);
        let xml = escribir(&retenciones).unwrap();
        assert_eq!(parsear(&xml).unwrap(), retenciones, "{xml}");
        assert_eq!(timbra_retenciones::parser::parsear_bytes(xml.as_bytes()).unwrap(), retenciones);
    }
}

/// As SAT's examples and PACs write them: another prefix, indentation, CRLF, a BOM, the TFD
/// and a complement this crate keeps raw, attributes with surrounding spaces.
const ESTILO_SAT: &str = "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n\
<ret:Retenciones xmlns:ret=\"http://www.sat.gob.mx/esquemas/retencionpago/2\" \
xmlns:pt=\"http://www.sat.gob.mx/esquemas/retencionpago/1/PlataformasTecnologicas10\" \
xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
xsi:schemaLocation=\"http://www.sat.gob.mx/esquemas/retencionpago/2 http://www.sat.gob.mx/esquemas/retencionpago/2/retencionpagov2.xsd\" \
Version=\"2.0\" FolioInt=\"A1\" Sello=\"\" NoCertificado=\"30001000000500003416\" Certificado=\"\" \
FechaExp=\"2026-11-02T09:00:00\" LugarExpRetenc=\"86000\" CveRetenc=\"26\">\r\n\
  <ret:Emisor RfcE=\"EKU9003173C9\" NomDenRazSocE=\"ESCUELA   KEMPER URGATE\" RegimenFiscalE=\"601\"/>\r\n\
  <ret:Receptor NacionalidadR=\"Nacional\">\r\n\
    <ret:Nacional RfcR=\"XIQB891116QE4\" NomDenRazSocR=\"KARLA FUENTE NOLASCO\" DomicilioFiscalR=\"01030\"/>\r\n\
  </ret:Receptor>\r\n\
  <ret:Periodo MesIni=\"10\" MesFin=\"10\" Ejercicio=\"2026\"/>\r\n\
  <ret:Totales MontoTotOperacion=\"100.00\" MontoTotGrav=\"100.00\" MontoTotExent=\"0.00\" MontoTotRet=\"2.10\">\r\n\
    <ret:ImpRetenidos BaseRet=\"100.00\" ImpuestoRet=\"001\" MontoRet=\"2.10\" TipoPagoRet=\"01\"/>\r\n\
  </ret:Totales>\r\n\
  <ret:Complemento>\r\n\
    <pt:ServiciosPlataformasTecnologicas Version=\"1.0\" Periodicidad=\"04\" NumServ=\"1\" MonTotServSIVA=\"100.00\" \
TotalIVATrasladado=\"16.00\" TotalIVARetenido=\"0.00\" TotalISRRetenido=\"2.10\" DifIVAEntregadoPrestServ=\"16.00\" \
MonTotalporUsoPlataforma=\"10.00\">\r\n\
      <pt:Servicios>\r\n\
        <pt:DetallesDelServicio FormaPagoServ=\"03\" TipoDeServ=\"02\" FechaServ=\"2026-10-10\" PrecioServSinIVA=\"100.00\">\r\n\
          <pt:ImpuestosTrasladadosdelServicio Base=\"100.00\" Impuesto=\"02\" TipoFactor=\"Tasa\" TasaCuota=\"0.160000\" Importe=\"16.00\"/>\r\n\
          <pt:ComisionDelServicio Importe=\"10.00\"/>\r\n\
        </pt:DetallesDelServicio>\r\n\
      </pt:Servicios>\r\n\
    </pt:ServiciosPlataformasTecnologicas>\r\n\
    <tfd:TimbreFiscalDigital xmlns:tfd=\"http://www.sat.gob.mx/TimbreFiscalDigital\" Version=\"1.1\" \
UUID=\"6A1B2C3D-4E5F-4A7B-8C9D-0E1F2A3B4C5D\" FechaTimbrado=\"2026-11-02T09:01:00\" RfcProvCertif=\"SPR190613I52\" \
SelloCFD=\"abc\" NoCertificadoSAT=\"30001000000500003456\" SelloSAT=\"def\"/>\r\n\
  </ret:Complemento>\r\n\
  <ret:Addenda><a:Extra xmlns:a=\"urn:addenda\">texto</a:Extra></ret:Addenda>\r\n\
</ret:Retenciones>\r\n";

#[test]
fn documentos_estilo_sat() {
    let retenciones = parsear(ESTILO_SAT).unwrap();
    assert_eq!(retenciones.emisor.nom_den_raz_soc_e, "ESCUELA   KEMPER URGATE");
    assert!(matches!(retenciones.receptor, Receptor::Nacional(_)));
    assert_eq!(retenciones.plataformas_tecnologicas().unwrap().servicios.len(), 1);
    assert_eq!(retenciones.timbre().unwrap().uuid, "6A1B2C3D-4E5F-4A7B-8C9D-0E1F2A3B4C5D");
    assert!(retenciones.addenda.as_ref().unwrap().xml.contains("texto"));
    assert!(timbra_retenciones::validar(&retenciones).is_empty());
    let del_xml = cadena::desde_xml(ESTILO_SAT).unwrap();
    assert_eq!(cadena::desde_retenciones(&retenciones).unwrap(), del_xml);
    // What we write from it reads back equal, except that the raw addenda now carries the
    // namespaces it inherits from our root; one more round is a fixed point.
    let mut leido = parsear(&escribir(&retenciones).unwrap()).unwrap();
    assert_eq!(cadena::desde_retenciones(&leido).unwrap(), del_xml);
    assert_eq!(parsear(&escribir(&leido).unwrap()).unwrap(), leido);
    leido.addenda = retenciones.addenda.clone();
    assert_eq!(leido, retenciones);

    let Some(sat) = comun::sat() else { return };
    let dir = comun::temporal("estilo-sat");
    let archivo = dir.join("estilo_sat.xml");
    std::fs::write(&archivo, ESTILO_SAT).unwrap();
    assert_eq!(oraculo::xsltproc(&sat, std::slice::from_ref(&archivo))[0], del_xml);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn errores_de_lectura_dicen_que_y_donde() {
    let malo = ESTILO_SAT.replace("CveRetenc=\"26\"", "CveRetenc=\"99\"");
    match parsear(&malo) {
        Err(ErrorParseo::ValorInvalido { atributo, valor, linea, .. }) => {
            assert_eq!((atributo.as_str(), valor.as_str(), linea), ("CveRetenc", "99", 2));
        }
        otro => panic!("{otro:?}"),
    }
    let version = ESTILO_SAT.replace("Version=\"2.0\"", "Version=\"1.0\"");
    assert!(matches!(parsear(&version), Err(ErrorParseo::NoEsRetenciones20 { .. })));
    let sin_periodo = ESTILO_SAT.replace("<ret:Periodo MesIni=\"10\" MesFin=\"10\" Ejercicio=\"2026\"/>", "");
    assert!(matches!(parsear(&sin_periodo), Err(ErrorParseo::FaltaElemento { .. })));
    let mal_formado = &ESTILO_SAT[..400];
    assert!(matches!(parsear(mal_formado), Err(ErrorParseo::Xml(_))));
    let importe = ESTILO_SAT.replace("MontoRet=\"2.10\"", "MontoRet=\"2,10\"");
    assert!(matches!(parsear(&importe), Err(ErrorParseo::ValorInvalido { .. })));
    let cfdi = "<cfdi:Comprobante xmlns:cfdi=\"http://www.sat.gob.mx/cfd/4\" Version=\"4.0\"/>";
    assert!(matches!(parsear(cfdi), Err(ErrorParseo::NoEsRetenciones20 { .. })));
    assert!(cadena::desde_xml(cfdi).is_err());
}
