//! Stamping through the simulator: the checks a PAC makes, duplicates, garbage and timeouts.

use std::time::Duration;

use rust_decimal::Decimal;
use timbra_cfdi::sello;
use timbra_pac::{Pac, PacError, timbrar_sin_duplicar};

use crate::comun::{
    self, CSD, CSD_VENCIDO, FECHA, FIEL, RFC_RECEPTOR, arrancar, arrancar_con_limite, factura, factura_de,
    factura_valida,
};

fn codigo(resultado: Result<timbra_pac::Timbrado, PacError>) -> String {
    match resultado {
        Err(PacError::Rejected { code, message }) => {
            assert!(!message.is_empty(), "rejection {code} without a message");
            code
        }
        otro => panic!("expected a rejection, got {otro:?}"),
    }
}

#[tokio::test]
async fn timbra_y_el_resultado_verifica_y_valida_contra_el_xsd() {
    let (sim, pac) = arrancar(|_| {}).await;
    let xml = factura_valida("1");
    let timbrado = pac.timbrar(&xml).await.unwrap();

    assert!(!timbrado.previo);
    assert_eq!(timbrado.uuid.len(), 36);
    assert_eq!(timbrado.uuid, timbrado.uuid.to_uppercase());
    // 18:00 UTC is 12:00 in Mexico City.
    assert_eq!(timbrado.fecha_timbrado, "2026-11-20T12:00:00");
    assert_eq!(timbrado.no_certificado_sat, sim.certificado_pac().no_certificado());
    assert!(timbrado.xml.contains(&format!("UUID=\"{}\"", timbrado.uuid)));
    assert!(timbrado.xml.contains("RfcProvCertif=\"CVD110412TF6\""));
    // The issuer's bytes are kept: the seal still verifies, and the TFD with the PAC's cert.
    let verificado = sello::verificar_sello_xml(&timbrado.xml).unwrap();
    assert_eq!(verificado.certificado.rfc(), comun::RFC_EMISOR);
    let cadena_tfd = sello::verificar_timbre_xml(&timbrado.xml, &sim.certificado_pac()).unwrap();
    assert!(cadena_tfd.starts_with(&format!("||1.1|{}|2026-11-20T12:00:00|CVD110412TF6|", timbrado.uuid)));
    assert_eq!(sim.timbres_emitidos(), 1);

    if let Some(sat) = comun::sat() {
        let dir = std::env::temp_dir().join(format!("timbra-sim-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let archivo = dir.join("timbrado.xml");
        std::fs::write(&archivo, &timbrado.xml).unwrap();
        let salida = std::process::Command::new("xmllint")
            .args(["--nonet", "--noout", "--schema"])
            .arg(sat.join("xsd/cfdv40-with-complements.xsd"))
            .arg(&archivo)
            .output()
            .expect("xmllint (libxml2-utils) is installed");
        assert!(salida.status.success(), "xmllint: {}", String::from_utf8_lossy(&salida.stderr));
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[tokio::test]
async fn sello_alterado_es_302() {
    let (sim, pac) = arrancar(|_| {}).await;
    let alterada = factura_valida("2").replace("Folio=\"2\"", "Folio=\"3\"");
    assert_eq!(codigo(pac.timbrar(&alterada).await), "302");
    assert_eq!(sim.timbres_emitidos(), 0);
}

/// A PAC checks SAT's catalogs: a ClaveProdServ SAT's c_ClaveProdServ lacks is refused with
/// the matrix code, and nothing is stamped.
#[tokio::test]
async fn clave_que_el_catalogo_no_tiene_es_cfdi40162() {
    let (sim, pac) = arrancar(|_| {}).await;
    let xml = factura_de(&CSD, FECHA, Decimal::new(50000, 2), RFC_RECEPTOR, "9", "99999999");
    assert_eq!(codigo(pac.timbrar(&xml).await), "CFDI40162");
    assert_eq!(sim.timbres_emitidos(), 0);
}

#[tokio::test]
async fn certificado_vencido_es_305() {
    let (_, pac) = arrancar(|_| {}).await;
    let xml = factura(&CSD_VENCIDO, FECHA, Decimal::new(50000, 2), RFC_RECEPTOR, "4");
    assert_eq!(codigo(pac.timbrar(&xml).await), "305");
}

#[tokio::test]
async fn fiel_como_csd_es_306() {
    let (_, pac) = arrancar(|_| {}).await;
    let xml = factura(&FIEL, FECHA, Decimal::new(50000, 2), RFC_RECEPTOR, "5");
    assert_eq!(codigo(pac.timbrar(&xml).await), "306");
}

#[tokio::test]
async fn fecha_de_mas_de_72_horas_es_401() {
    let (_, pac) = arrancar(|_| {}).await;
    let vieja = factura(&CSD, "2026-11-17T11:59:00", Decimal::new(50000, 2), RFC_RECEPTOR, "6");
    assert_eq!(codigo(pac.timbrar(&vieja).await), "401");
    let futura = factura(&CSD, "2026-11-20T13:00:00", Decimal::new(50000, 2), RFC_RECEPTOR, "7");
    assert_eq!(codigo(pac.timbrar(&futura).await), "401");
    // Just inside the window.
    let limite = factura(&CSD, "2026-11-17T12:00:00", Decimal::new(50000, 2), RFC_RECEPTOR, "8");
    pac.timbrar(&limite).await.unwrap();
}

#[tokio::test]
async fn duplicado_devuelve_el_mismo_uuid_con_307() {
    let (sim, pac) = arrancar(|_| {}).await;
    let xml = factura_valida("9");
    let primero = pac.timbrar(&xml).await.unwrap();
    let segundo = pac.timbrar(&xml).await.unwrap();
    assert!(segundo.previo, "the second answer carries incidencia 307");
    assert_eq!(segundo.uuid, primero.uuid);
    assert_eq!(segundo.xml, primero.xml);
    assert_eq!(sim.timbres_emitidos(), 1);
}

#[tokio::test]
async fn credenciales_invalidas_es_300() {
    let (_, pac) = arrancar(|config| config.password = Some("otra".into())).await;
    assert_eq!(codigo(pac.timbrar(&factura_valida("10")).await), "300");
}

#[tokio::test]
async fn xml_que_no_es_cfdi_es_301() {
    let (_, pac) = arrancar(|_| {}).await;
    assert_eq!(codigo(pac.timbrar("<factura>hola</factura>").await), "301");
}

#[tokio::test]
async fn respuesta_basura_es_error_tipado() {
    let (sim, pac) = arrancar(|config| config.basura = true).await;
    match pac.timbrar(&factura_valida("11")).await {
        Err(PacError::Garbage { excerpt, .. }) => assert!(excerpt.contains("<html>")),
        otro => panic!("expected Garbage, got {otro:?}"),
    }
    assert!(matches!(pac.consultar(&factura_valida("11")).await, Err(PacError::Garbage { .. })));
    sim.configurar(|config| config.basura = false);
    pac.timbrar(&factura_valida("11")).await.unwrap();
}

#[tokio::test]
async fn timeout_y_consultar_recupera_sin_segundo_timbre() {
    // The PAC answers after 6 s; the client gives up after 2 s.
    let (sim, pac) =
        arrancar_con_limite(|config| config.retraso = Duration::from_secs(6), Duration::from_secs(2)).await;
    let xml = factura_valida("12");
    assert_eq!(pac.consultar(&xml).await.unwrap(), None, "nothing stamped yet");

    match pac.timbrar(&xml).await {
        Err(error @ PacError::Timeout(_)) => assert!(error.is_indeterminate()),
        otro => panic!("expected Timeout, got {otro:?}"),
    }
    // The PAC did stamp: the query (answered at once) recovers that stamp.
    let recuperado = pac.consultar(&xml).await.unwrap().expect("the stamp made before the timeout");
    assert!(recuperado.previo);
    sello::verificar_timbre_xml(&recuperado.xml, &sim.certificado_pac()).unwrap();
    assert_eq!(sim.timbres_emitidos(), 1);

    // The helper does the same on its own, for another document.
    let otra = factura_valida("13");
    let timbrado = timbrar_sin_duplicar(&pac, timbra_pac::Servicio::Cfdi, &otra).await.unwrap();
    assert!(timbrado.previo);
    assert_eq!(sim.timbres_emitidos(), 2);
}
