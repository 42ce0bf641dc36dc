//! Documents built, sealed and stamped here, checked by SAT's tools: schema (xmllint),
//! cadena original byte for byte (xsltproc) and seals (openssl).

use std::path::PathBuf;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use timbra_cfdi::tfd;
use timbra_retenciones::cadena::{self, ErrorCadena};
use timbra_retenciones::sello::{self, DatosTimbre};
use timbra_retenciones::{Complemento, Receptor, ReceptorExtranjero, Retenciones, XmlCrudo, escribir, validar};

use crate::comun::{self, EXTRANJERO, NACIONAL, PLATAFORMAS, construir_json};
use crate::oraculo;

/// The four kinds the issue asks for: national and foreign receiver, with and without
/// Servicios de Plataformas Tecnológicas.
fn documentos() -> Vec<(&'static str, Retenciones)> {
    let plataformas = construir_json(PLATAFORMAS);
    // SPT104 forbids the complement with a foreign receiver; the document is still written,
    // sealed and schema-valid, and validation says what is wrong.
    let mut plataformas_extranjero = plataformas.clone();
    plataformas_extranjero.receptor = Receptor::Extranjero(ReceptorExtranjero {
        num_reg_id_trib_r: None,
        nom_den_raz_soc_r: "RIDE SHARE INTERNATIONAL INC".into(),
    });
    let reglas: Vec<_> = validar(&plataformas_extranjero).into_iter().map(|p| p.regla).collect();
    assert_eq!(reglas, ["RET20_PT_RECEPTOR"]);
    vec![
        ("nacional", construir_json(NACIONAL)),
        ("extranjero", construir_json(EXTRANJERO)),
        ("nacional_plataformas", plataformas),
        ("extranjero_plataformas", plataformas_extranjero),
    ]
}

#[test]
fn sellados_validan_contra_el_xsd_su_cadena_es_la_de_xsltproc_y_el_sello_verifica() {
    let Some(sat) = comun::sat() else { return };
    let csd = comun::csd(&sat);
    let dir = comun::temporal("sellados");
    let mut archivos = Vec::new();
    let mut cadenas = Vec::new();
    let mut firmas = Vec::new();
    for (nombre, mut retenciones) in documentos() {
        let cadena = sello::sellar(&mut retenciones, &csd).unwrap();
        assert_eq!(retenciones.no_certificado, "30001000000500003416");
        assert!(!retenciones.certificado.is_empty());
        sello::verificar_sello(&retenciones).unwrap();
        let xml = escribir(&retenciones).unwrap();
        assert_eq!(cadena::desde_xml(&xml).unwrap(), cadena, "{nombre}: cadena del XML ≠ cadena del modelo");
        sello::verificar_sello_xml(&xml).unwrap();
        let archivo = dir.join(format!("{nombre}.xml"));
        std::fs::write(&archivo, &xml).unwrap();
        let firma = dir.join(format!("{nombre}.sig"));
        std::fs::write(&firma, STANDARD.decode(&retenciones.sello).unwrap()).unwrap();
        let cer = dir.join(format!("{nombre}.cer"));
        std::fs::write(&cer, STANDARD.decode(&retenciones.certificado).unwrap()).unwrap();
        firmas.push((cer, firma, oraculo::cadena(&archivo)));
        archivos.push(archivo);
        cadenas.push(cadena);
    }
    oraculo::xmllint(&sat, &archivos);
    let de_xsltproc = oraculo::xsltproc(&sat, &archivos);
    for ((archivo, nativa), oraculo) in archivos.iter().zip(&cadenas).zip(&de_xsltproc) {
        assert_eq!(nativa.as_bytes(), oraculo.as_bytes(), "{}", archivo.display());
    }
    // openssl verifies the Sello over xsltproc's cadena, with the embedded Certificado.
    let salida = oraculo::openssl_verificar(&firmas);
    assert_eq!(salida.matches("Verified OK").count(), firmas.len(), "{salida}");

    // The exact cadena of the foreign receiver (normalize-space, escaping, DescRetenc).
    assert!(
        cadenas[1].starts_with(
            "||2.0|30001000000500003416|2026-11-20T10:30:00|86000|25|Regalías por uso de software & licencias <internacionales>|04|5F2A8C3E-1B7D-4E9A-9C0F-3D6B8A2E7100|EKU9003173C9|ESCUELA KEMPER URGATE|601|Extranjero|123456789|ACME SOFTWARE LLC|03|03|2026|50000.00|50000.00|0.00|12500.00|50000.00|001|12500.00|03||"
        ),
        "{}",
        cadenas[1]
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn timbrado_con_tfd_valida_y_ambos_sellos_verifican() {
    let Some(sat) = comun::sat() else { return };
    let csd = comun::csd(&sat);
    let dir = comun::temporal("timbrado");
    let mut retenciones = construir_json(PLATAFORMAS);
    sello::sellar(&mut retenciones, &csd).unwrap();
    // The SAT test CSD stands in for the PAC's stamping certificate.
    let datos = DatosTimbre {
        uuid: "6A1B2C3D-4E5F-4A7B-8C9D-0E1F2A3B4C5D".into(),
        fecha_timbrado: "2026-11-20T10:31:00".into(),
        rfc_prov_certif: "SPR190613I52".into(),
        leyenda: None,
    };
    let timbre = sello::timbrar(&mut retenciones, datos, &csd).unwrap();
    assert_eq!(timbre.sello_cfd, retenciones.sello);
    let cadena_tfd = sello::verificar_timbre(&retenciones, csd.certificate()).unwrap();
    // Stamping does not change the document's cadena: the TFD adds nothing to it.
    sello::verificar_sello(&retenciones).unwrap();
    let xml = escribir(&retenciones).unwrap();
    sello::verificar_sello_xml(&xml).unwrap();
    let leido = timbra_retenciones::parsear(&xml).unwrap();
    assert_eq!(leido, retenciones);

    let archivo = dir.join("timbrado.xml");
    std::fs::write(&archivo, &xml).unwrap();
    oraculo::xmllint(&sat, std::slice::from_ref(&archivo));
    let oraculo_cadena = oraculo::xsltproc(&sat, std::slice::from_ref(&archivo));
    assert_eq!(oraculo_cadena[0], cadena::desde_retenciones(&retenciones).unwrap());

    // The TFD's cadena per cadenaoriginal_TFD_1_1.xslt, and SelloSAT verified by openssl.
    let tfd_xml = dir.join("tfd.xml");
    std::fs::write(&tfd_xml, tfd::escribir_documento(&timbre).unwrap()).unwrap();
    let salida = std::process::Command::new("xsltproc")
        .arg("--nonet")
        .arg(sat.join("xslt/cadenaoriginal_TFD_1_1.xslt"))
        .arg(&tfd_xml)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(salida.stdout).unwrap(), cadena_tfd);
    let mensaje = dir.join("tfd.cadena");
    std::fs::write(&mensaje, &cadena_tfd).unwrap();
    let firma = dir.join("tfd.sig");
    std::fs::write(&firma, STANDARD.decode(&timbre.sello_sat).unwrap()).unwrap();
    let cer = dir.join("sat.cer");
    std::fs::write(&cer, csd.certificate().der()).unwrap();
    assert!(oraculo::openssl_verificar(&[(cer, firma, mensaje)]).contains("Verified OK"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn complementos_sin_plantilla_siguen_la_regla_integrada_de_xslt() {
    let Some(sat) = comun::sat() else { return };
    let dir = comun::temporal("otros");
    // An element of a namespace retenciones.xslt has no template for: the built-in rule
    // copies its text content, whitespace included.
    let mut retenciones = construir_json(NACIONAL);
    retenciones.complementos.push(Complemento::Otro(XmlCrudo {
        espacio: "urn:ejemplo".into(),
        xml: "<e:Dato xmlns:e=\"urn:ejemplo\" Valor=\"no va\">uno <e:Hijo>dos</e:Hijo>\n tres</e:Dato>".into(),
    }));
    let nativa = cadena::desde_retenciones(&retenciones).unwrap();
    assert!(nativa.ends_with("|01uno dos\n tres||"), "{nativa}");
    let xml = escribir(&retenciones).unwrap();
    assert_eq!(cadena::desde_xml(&xml).unwrap(), nativa);
    let archivo: PathBuf = dir.join("otro.xml");
    std::fs::write(&archivo, &xml).unwrap();
    assert_eq!(oraculo::xsltproc(&sat, std::slice::from_ref(&archivo))[0], nativa);
    // Read back, the fragment carries the namespaces it inherits (so it stands on its own);
    // writing and reading again is then a fixed point, with the same cadena.
    let leido = timbra_retenciones::parsear(&xml).unwrap();
    assert_eq!(cadena::desde_retenciones(&leido).unwrap(), nativa);
    assert_eq!(timbra_retenciones::parsear(&escribir(&leido).unwrap()).unwrap(), leido);

    // Dividendos 1.0 (received retentions carry it) follows dividendos.xslt, byte for byte
    // with xsltproc, and the document still validates against SAT's schema.
    retenciones.complementos[0] = Complemento::Otro(XmlCrudo {
        espacio: cadena::NS_DIVIDENDOS.into(),
        xml: concat!(
            "<dividendos:Dividendos xmlns:dividendos=\"http://www.sat.gob.mx/esquemas/retencionpago/1/dividendos\" ",
            "Version=\"1.0\"><dividendos:DividOUtil CveTipDivOUtil=\"01\" MontISRAcredRetMexico=\"1500.00\" ",
            "MontISRAcredRetExtranjero=\"0.00\" TipoSocDistrDiv=\"Sociedad Nacional\" MontDivAcumNal=\"10000.00\"/>",
            "<dividendos:Remanente ProporcionRem=\"0.50\"/></dividendos:Dividendos>"
        )
        .into(),
    });
    let nativa = cadena::desde_retenciones(&retenciones).unwrap();
    assert!(nativa.ends_with("|1.0|01|1500.00|0.00|Sociedad Nacional|10000.00|0.50||"), "{nativa}");
    let xml = escribir(&retenciones).unwrap();
    assert_eq!(cadena::desde_xml(&xml).unwrap(), nativa);
    let archivo: PathBuf = dir.join("dividendos.xml");
    std::fs::write(&archivo, &xml).unwrap();
    assert_eq!(oraculo::xsltproc(&sat, std::slice::from_ref(&archivo))[0], nativa);

    // A complement SAT's stylesheet has a template for, which this crate does not implement:
    // refused, never a wrong cadena.
    retenciones.complementos[0] = Complemento::Otro(XmlCrudo {
        espacio: "http://www.sat.gob.mx/esquemas/retencionpago/1/intereses".into(),
        xml: "<intereses:Intereses xmlns:intereses=\"http://www.sat.gob.mx/esquemas/retencionpago/1/intereses\" Version=\"1.0\"/>".into(),
    });
    assert!(matches!(cadena::desde_retenciones(&retenciones), Err(ErrorCadena::ComplementoNoSoportado { .. })));
    let _ = std::fs::remove_dir_all(dir);
}
