//! Every state and refusal, the simulator driven into each; and the simulator's strictness
//! (signature, certificate, RFC, token, timestamp) probed with hand-made messages.

use std::time::Duration;

use base64::Engine as _;
use timbra_credentials::testgen::{self, Options};
use timbra_credentials::xmldsig::{self, DescargaRequest};
use timbra_sat::mensajes::{self, ACCION_AUTENTICA, ACCION_DESCARGA, ACCION_VERIFICA};
use timbra_sat::{Periodo, SatError, SolicitudEmitidos, SolicitudRecibidos, TipoSolicitud};
use timbra_sim::sat::Desenlace;
use time::macros::datetime;

use crate::comun::{self, AHORA, Entorno, entorno};

fn emitidos(segundo: u8) -> SolicitudEmitidos {
    // A different FechaFinal makes a different request (SAT's 5002/5005 are per parameters).
    let fin = datetime!(2025-12-31 23:59:00).replace_second(segundo).unwrap();
    SolicitudEmitidos {
        periodo: Periodo::new(datetime!(2024-01-01 00:00:00), fin, TipoSolicitud::Cfdi),
        rfc_receptores: vec![],
    }
}

async fn desenlace(e: &Entorno, forzado: Desenlace, segundo: u8) -> Result<timbra_sat::Verificacion, SatError> {
    e.sim.forzar([forzado]);
    let aceptada = e.cliente.solicitar_emitidos(&emitidos(segundo)).await?;
    e.cliente.esperar(&aceptada.id_solicitud, 4).await
}

#[tokio::test]
async fn each_state_maps_to_its_spec_code() {
    let Some(e) = entorno(|_| {}).await else { return };
    let casos = [
        (Desenlace::Rechazo(5002), "SAT_5002"),
        (Desenlace::Rechazo(5005), "SAT_5005"),
        (Desenlace::Rechazo(5001), "SAT_5001"),
        (Desenlace::Rechazo(5006), "SAT_5006"),
        (Desenlace::Error, "SAT_ESTADO_4"),
        (Desenlace::Rechazada(5004), "SAT_5004"),
        (Desenlace::Rechazada(5003), "SAT_5003"),
        (Desenlace::Vencida, "SAT_ESTADO_6"),
        (Desenlace::SiempreAceptada, "VERIFICA_TIMEOUT"),
        (Desenlace::SiempreEnProceso, "VERIFICA_TIMEOUT"),
    ];
    for (segundo, (forzado, codigo)) in casos.into_iter().enumerate() {
        let error = desenlace(&e, forzado, segundo as u8).await.unwrap_err();
        assert_eq!(error.codigo(), codigo, "{forzado:?}: {error:?}");
    }
    // The pending ones keep their state for later polls (the server's job keeps the id).
    let aceptada = e.cliente.solicitar_emitidos(&emitidos(40)).await;
    assert!(aceptada.is_ok());
}

#[tokio::test]
async fn texts_of_refusals_are_sats() {
    let Some(e) = entorno(|_| {}).await else { return };
    e.sim.forzar([Desenlace::Rechazo(5002)]);
    match e.cliente.solicitar_emitidos(&emitidos(1)).await.unwrap_err() {
        SatError::CodEstatus { cod_estatus, mensaje } => {
            assert_eq!(cod_estatus, "5002");
            assert_eq!(mensaje, "Se agotó las solicitudes de por vida");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn duplicate_while_active_is_5005_and_third_identical_is_5002() {
    let Some(e) = entorno(|_| {}).await else { return };
    let primera = e.cliente.solicitar_emitidos(&emitidos(0)).await.unwrap();
    let error = e.cliente.solicitar_emitidos(&emitidos(0)).await.unwrap_err();
    assert_eq!(error.codigo(), "SAT_5005");
    e.cliente.esperar(&primera.id_solicitud, 5).await.unwrap();
    let segunda = e.cliente.solicitar_emitidos(&emitidos(0)).await.unwrap();
    e.cliente.esperar(&segunda.id_solicitud, 5).await.unwrap();
    let error = e.cliente.solicitar_emitidos(&emitidos(0)).await.unwrap_err();
    assert_eq!(error.codigo(), "SAT_5002");
    // Metadata requests are not limited.
    let mut metadata = emitidos(0);
    metadata.periodo.tipo_solicitud = TipoSolicitud::Metadata;
    for _ in 0..3 {
        let aceptada = e.cliente.solicitar_emitidos(&metadata).await.unwrap();
        e.cliente.esperar(&aceptada.id_solicitud, 5).await.unwrap();
    }
}

#[tokio::test]
async fn nothing_found_is_rejected_with_5004() {
    let Some(e) = entorno(|_| {}).await else { return };
    let solicitud = SolicitudRecibidos {
        periodo: Periodo::new(datetime!(2021-01-01 00:00:00), datetime!(2021-02-01 00:00:00), TipoSolicitud::Cfdi),
        rfc_emisor: None,
    };
    let aceptada = e.cliente.solicitar_recibidos(&solicitud).await.unwrap();
    let verificacion = e.cliente.verificar(&aceptada.id_solicitud).await.unwrap();
    assert!(verificacion.estado.pendiente());
    let error = e.cliente.esperar(&aceptada.id_solicitud, 5).await.unwrap_err();
    assert_eq!(error.codigo(), "SAT_5004");
    // Unknown request id: the call itself answers 5004.
    let error = e.cliente.verificar("00000000-0000-0000-0000-000000000000").await.unwrap_err();
    assert_eq!(error.cod_estatus(), Some("5004"));
}

#[tokio::test]
async fn empty_package_is_empty_package() {
    let Some(e) = entorno(|_| {}).await else { return };
    let verificacion = desenlace(&e, Desenlace::PaqueteVacio, 0).await.unwrap();
    let bytes = e.cliente.descargar(&verificacion.ids_paquetes[0]).await.unwrap();
    assert!(bytes.is_empty());
    assert_eq!(e.cliente.leer_paquete(&bytes).unwrap_err().codigo(), "EMPTY_PACKAGE");
}

#[tokio::test]
async fn metadata_only_uuids() {
    let Some(sat) = comun::sat_dir() else { return };
    let uuid = comun::uuid_finkok(&sat);
    let Some(e) = entorno(|c| {
        c.uuids_solo_metadatos.insert(uuid.clone());
    })
    .await
    else {
        return;
    };
    // A CFDI request leaves it out.
    let aceptada = e.cliente.solicitar_emitidos(&emitidos(0)).await.unwrap();
    let verificacion = e.cliente.esperar(&aceptada.id_solicitud, 5).await.unwrap();
    assert_eq!(verificacion.numero_cfdis, 3);
    let paquete = e.cliente.leer_paquete(&e.cliente.descargar(&verificacion.ids_paquetes[0]).await.unwrap()).unwrap();
    assert!(paquete.documentos.iter().all(|d| d.uuid != uuid));
    // By folio: only its metadata row.
    let aceptada = e.cliente.solicitar_folio(&uuid.to_lowercase()).await.unwrap();
    let verificacion = e.cliente.esperar(&aceptada.id_solicitud, 5).await.unwrap();
    let paquete = e.cliente.leer_paquete(&e.cliente.descargar(&verificacion.ids_paquetes[0]).await.unwrap()).unwrap();
    assert!(paquete.documentos.is_empty());
    assert_eq!(paquete.metadatos.len(), 1);
    assert_eq!(paquete.metadatos[0].uuid, uuid);
    assert_eq!(paquete.metadatos[0].rfc_emisor, comun::RFC);
}

#[tokio::test]
async fn folio_unknown_invalid_and_downloads_limited() {
    let Some(e) = entorno(|_| {}).await else { return };
    assert_eq!(e.cliente.solicitar_folio("no-es-uuid").await.unwrap_err().codigo(), "INVALID_UUID");
    let aceptada = e.cliente.solicitar_folio("11111111-2222-3333-4444-555555555555").await.unwrap();
    assert_eq!(e.cliente.esperar(&aceptada.id_solicitud, 5).await.unwrap_err().codigo(), "SAT_5004");

    let aceptada = e.cliente.solicitar_folio(&comun::uuid_finkok(&e.sat)).await.unwrap();
    let verificacion = e.cliente.esperar(&aceptada.id_solicitud, 5).await.unwrap();
    let id = &verificacion.ids_paquetes[0];
    e.cliente.descargar(id).await.unwrap();
    e.cliente.descargar(id).await.unwrap();
    assert_eq!(e.cliente.descargar(id).await.unwrap_err().codigo(), "SAT_5008");
    assert_eq!(e.cliente.descargar("NO-EXISTE_01").await.unwrap_err().codigo(), "SAT_5007");
    // Packages live 72 hours.
    let otra = e.cliente.solicitar_folio(&comun::uuid_finkok(&e.sat)).await.unwrap();
    let verificacion = e.cliente.esperar(&otra.id_solicitud, 5).await.unwrap();
    e.avanzar(time::Duration::hours(73));
    assert_eq!(e.cliente.descargar(&verificacion.ids_paquetes[0]).await.unwrap_err().codigo(), "SAT_5007");
}

#[tokio::test]
async fn token_refused_with_300_is_renewed_once() {
    let Some(e) = entorno(|_| {}).await else { return };
    e.cliente.autenticar().await.unwrap();
    // SAT's clock runs 6 minutes ahead: the kept token looks valid to the client, SAT says 300.
    let adelantado = AHORA + time::Duration::minutes(6);
    e.sim.configurar(|c| c.ahora = Some(adelantado));
    let aceptada = e.cliente.solicitar_emitidos(&emitidos(0)).await.unwrap();
    assert!(!aceptada.id_solicitud.is_empty());
    assert_eq!(e.sim.tokens_emitidos(), 2);
}

#[tokio::test]
async fn fiel_checks_in_the_client() {
    let Some(e) = entorno(|_| {}).await else { return };
    let error = e.cliente_con(comun::csd(&e.sat)).unwrap_err();
    assert_eq!(error.codigo(), "FIEL_005");
    // SAT's 2019 test FIEL of the same RFC expired in 2023.
    let vencida = e.cliente_con(comun::credencial(&e.sat, "30001000000400002417")).unwrap();
    assert_eq!(vencida.autenticar().await.unwrap_err().codigo(), "FIEL_EXPIRED");
    assert_eq!(e.sim.tokens_emitidos(), 0);
}

async fn post(e: &Entorno, ruta: &str, accion: &str, token: Option<&str>, cuerpo: String) -> (u16, String) {
    let mut peticion = reqwest::Client::new()
        .post(format!("{}{ruta}", e.base))
        .header("Content-Type", "text/xml; charset=\"utf-8\"")
        .header("SOAPAction", accion)
        .timeout(Duration::from_secs(10));
    if let Some(token) = token {
        peticion = peticion.header("Authorization", format!("WRAP access_token=\"{token}\""));
    }
    let respuesta = peticion.body(cuerpo).send().await.unwrap();
    (respuesta.status().as_u16(), respuesta.text().await.unwrap())
}

const VERIFICA: &str = "/VerificaSolicitudDescargaService.svc";

fn cod_estatus(xml: &str) -> String {
    match mensajes::leer_verificacion(xml) {
        Err(SatError::CodEstatus { cod_estatus, .. }) => cod_estatus,
        otro => panic!("{otro:?}: {xml}"),
    }
}

/// A FIEL-signed message re-signed with another key: same SignedInfo, the other
/// certificate, a valid RSA-SHA1 value.
fn refirmar(xml: &str, otra: &timbra_credentials::Credential) -> String {
    let inicio = xml.find("<SignedInfo>").unwrap();
    let fin = xml.find("</SignedInfo>").unwrap() + "</SignedInfo>".len();
    let suelto =
        xml[inicio..fin].replacen("<SignedInfo>", "<SignedInfo xmlns=\"http://www.w3.org/2000/09/xmldsig#\">", 1);
    let canonico = xmldsig::canonicalize_document(&suelto, xmldsig::C14n::Exclusive).unwrap();
    let valor = base64::engine::general_purpose::STANDARD.encode(otra.sign_sha1(canonico.as_bytes()).unwrap());
    let reemplazar = |xml: &str, etiqueta: &str, nuevo: &str| {
        let abre = xml.find(&format!("<{etiqueta}")).unwrap();
        let abre = abre + xml[abre..].find('>').unwrap() + 1;
        let cierra = abre + xml[abre..].find('<').unwrap();
        format!("{}{nuevo}{}", &xml[..abre], &xml[cierra..])
    };
    let xml = reemplazar(xml, "SignatureValue", &valor);
    if xml.contains("<X509Certificate>") {
        reemplazar(&xml, "X509Certificate", &otra.certificate().base64())
    } else {
        reemplazar(&xml, "o:BinarySecurityToken", &otra.certificate().base64())
    }
}

#[tokio::test]
async fn simulator_is_strict_like_sat() {
    let Some(e) = entorno(|_| {}).await else { return };
    let fiel = comun::fiel(&e.sat);
    let csd = comun::csd(&e.sat);
    let token = e.cliente.autenticar().await.unwrap().valor;
    let id = e.cliente.solicitar_emitidos(&emitidos(0)).await.unwrap().id_solicitud;
    let sobre = mensajes::sobre_verificacion(&fiel, &id).unwrap();

    // The genuine message passes.
    let (estado, xml) = post(&e, VERIFICA, ACCION_VERIFICA, Some(&token), sobre.clone()).await;
    assert_eq!(estado, 200);
    assert!(mensajes::leer_verificacion(&xml).is_ok(), "{xml}");
    // 300: no token, an unknown token.
    assert_eq!(cod_estatus(&post(&e, VERIFICA, ACCION_VERIFICA, None, sobre.clone()).await.1), "300");
    assert_eq!(cod_estatus(&post(&e, VERIFICA, ACCION_VERIFICA, Some("x"), sobre.clone()).await.1), "300");
    // 302: a signed attribute changed after signing.
    let alterado =
        sobre.replace(&format!("IdSolicitud=\"{id}\""), "IdSolicitud=\"00000000-0000-0000-0000-000000000000\"");
    assert_eq!(cod_estatus(&post(&e, VERIFICA, ACCION_VERIFICA, Some(&token), alterado).await.1), "302");
    // 302: a signature value that is not the key's.
    let falso = refirmar(&sobre, &csd).replace(&csd.certificate().base64(), &fiel.certificate().base64());
    assert_eq!(cod_estatus(&post(&e, VERIFICA, ACCION_VERIFICA, Some(&token), falso).await.1), "302");
    // 305: a valid signature by a CSD of the same RFC.
    let con_csd = refirmar(&sobre, &csd);
    assert_eq!(cod_estatus(&post(&e, VERIFICA, ACCION_VERIFICA, Some(&token), con_csd).await.1), "305");
    // 304: SAT's expired 2019 FIEL of the same RFC.
    let vencida = comun::credencial(&e.sat, "30001000000400002417");
    let sobre_vencida = mensajes::sobre_verificacion(&vencida, &id).unwrap();
    assert_eq!(cod_estatus(&post(&e, VERIFICA, ACCION_VERIFICA, Some(&token), sobre_vencida).await.1), "304");
    // 303: a FIEL of another RFC signing for EKU9003173C9.
    let ajena = testgen::generate(&Options::fiel(
        "XIA190128J61",
        "XENON INDUSTRIAL ARTICLES",
        datetime!(2025-01-01 0:00 UTC),
        datetime!(2029-01-01 0:00 UTC),
    ))
    .unwrap()
    .credential()
    .unwrap();
    let atributos = [("IdSolicitud", id.as_str()), ("RfcSolicitante", comun::RFC)];
    let peticion = DescargaRequest {
        operation: "VerificaSolicitudDescarga",
        child: "solicitud",
        attributes: &atributos,
        rfc_receptores: &[],
    };
    let sobre_ajeno = xmldsig::sign_descarga(&ajena, &peticion).unwrap();
    let (cer, key) = ajena.into_parts();
    let ajena = timbra_credentials::Credential::new(cer, key).unwrap();
    assert_eq!(cod_estatus(&post(&e, VERIFICA, ACCION_VERIFICA, Some(&token), sobre_ajeno).await.1), "303");
    // 300: the other RFC's own token is not EKU9003173C9's.
    let cliente_ajeno = e.cliente_con(ajena).unwrap();
    let token_ajeno = cliente_ajeno.autenticar().await.unwrap().valor;
    assert_eq!(cod_estatus(&post(&e, VERIFICA, ACCION_VERIFICA, Some(&token_ajeno), sobre.clone()).await.1), "300");
    // 301: the operation without its child.
    let sin_hijo = sobre.replace("des:solicitud", "des:otra");
    assert_eq!(cod_estatus(&post(&e, VERIFICA, ACCION_VERIFICA, Some(&token), sin_hijo).await.1), "301");
    // A wrong SOAPAction is a WCF fault; a non-XML body is a client fault.
    let (estado, xml) = post(&e, VERIFICA, ACCION_DESCARGA, Some(&token), sobre.clone()).await;
    assert_eq!(estado, 500);
    assert!(mensajes::leer_fault(&xml).unwrap().0.ends_with("ActionNotSupported"));
    let (estado, _) = post(&e, VERIFICA, ACCION_VERIFICA, Some(&token), "<no".into()).await;
    assert_eq!(estado, 400);
}

#[tokio::test]
async fn authentication_is_strict_like_sat() {
    let Some(e) = entorno(|_| {}).await else { return };
    let fiel = comun::fiel(&e.sat);
    let ruta = "/Autenticacion/Autenticacion.svc";
    let fault = |xml: &str| mensajes::leer_autenticacion(xml).unwrap_err();
    // Genuine.
    let bueno = mensajes::sobre_autenticacion(&fiel, AHORA, "uuid-1-1").unwrap();
    let (estado, xml) = post(&e, ruta, ACCION_AUTENTICA, None, bueno.clone()).await;
    assert_eq!(estado, 200);
    assert!(mensajes::leer_autenticacion(&xml).is_ok());
    // A timestamp from an hour ago.
    let viejo = mensajes::sobre_autenticacion(&fiel, AHORA - time::Duration::hours(1), "uuid-1-1").unwrap();
    let (estado, xml) = post(&e, ruta, ACCION_AUTENTICA, None, viejo).await;
    assert_eq!(estado, 500);
    match fault(&xml) {
        SatError::Autenticacion { codigo, mensaje } => {
            assert_eq!(codigo, "a:InvalidSecurity");
            assert_eq!(mensaje, "An error occurred when verifying security for the message.");
        }
        other => panic!("{other:?}"),
    }
    // The timestamp changed after signing.
    let creado = bueno.find("<u:Created>").unwrap() + "<u:Created>".len();
    let mut alterado = bueno.clone();
    alterado
        .replace_range(creado + 17..creado + 19, if &bueno[creado + 17..creado + 19] == "00" { "01" } else { "00" });
    assert_eq!(post(&e, ruta, ACCION_AUTENTICA, None, alterado).await.0, 500);
    // A CSD (validly signed) is refused.
    let con_csd = refirmar(&bueno, &comun::csd(&e.sat));
    assert_eq!(post(&e, ruta, ACCION_AUTENTICA, None, con_csd).await.0, 500);
    // An expired FIEL is refused.
    let vencida = comun::credencial(&e.sat, "30001000000400002417");
    let sobre = mensajes::sobre_autenticacion(&vencida, AHORA, "uuid-2-1").unwrap();
    assert_eq!(post(&e, ruta, ACCION_AUTENTICA, None, sobre).await.0, 500);
    // The wrong SOAPAction, the wrong content type.
    let (estado, xml) = post(&e, ruta, ACCION_VERIFICA, None, bueno.clone()).await;
    assert_eq!(estado, 500);
    assert!(xml.contains("ActionNotSupported"));
    let respuesta = reqwest::Client::new()
        .post(format!("{}{ruta}", e.base))
        .header("Content-Type", "application/soap+xml")
        .header("SOAPAction", ACCION_AUTENTICA)
        .body(bueno)
        .send()
        .await
        .unwrap();
    assert_eq!(respuesta.status().as_u16(), 415);
}

/// SAT also takes the inclusive form other clients send (satcfdi, ARSoftware: inclusive C14N
/// with the enveloped-signature transform); the simulator verifies it the same way.
#[tokio::test]
async fn simulator_accepts_the_inclusive_c14n_variant() {
    let Some(e) = entorno(|_| {}).await else { return };
    let fiel = comun::fiel(&e.sat);
    let token = e.cliente.autenticar().await.unwrap().valor;
    let id = e.cliente.solicitar_emitidos(&emitidos(0)).await.unwrap().id_solicitud;
    const S: &str = "http://schemas.xmlsoap.org/soap/envelope/";
    const D: &str = "http://DescargaMasivaTerceros.sat.gob.mx";
    const DSIG: &str = "http://www.w3.org/2000/09/xmldsig#";
    let solicitud = format!(r#"<des:solicitud IdSolicitud="{id}" RfcSolicitante="{}">"#, comun::RFC);
    // Inclusive c14n of the operation in its envelope: the inherited declarations are rendered.
    let operacion = format!(
        r#"<des:VerificaSolicitudDescarga xmlns:des="{D}" xmlns:s="{S}">{solicitud}</des:solicitud></des:VerificaSolicitudDescarga>"#
    );
    let canonico = xmldsig::canonicalize_document(&operacion, xmldsig::C14n::Inclusive).unwrap();
    let sha1 = |bytes: &[u8]| {
        let salida = std::process::Command::new("openssl")
            .args(["dgst", "-sha1", "-binary"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut hijo| {
                use std::io::Write as _;
                hijo.stdin.take().unwrap().write_all(bytes)?;
                hijo.wait_with_output()
            })
            .unwrap();
        base64::engine::general_purpose::STANDARD.encode(salida.stdout)
    };
    let digest = sha1(canonico.as_bytes());
    let signed_info = format!(
        r#"<SignedInfo><CanonicalizationMethod Algorithm="{c14n}"/><SignatureMethod Algorithm="{rsa}"/><Reference URI=""><Transforms><Transform Algorithm="{env}"/><Transform Algorithm="{c14n}"/></Transforms><DigestMethod Algorithm="{sha}"/><DigestValue>{digest}</DigestValue></Reference></SignedInfo>"#,
        c14n = xmldsig::ALG_C14N,
        rsa = xmldsig::ALG_RSA_SHA1,
        env = xmldsig::ALG_ENVELOPED,
        sha = xmldsig::ALG_SHA1,
    );
    let en_contexto = signed_info.replacen(
        "<SignedInfo>",
        &format!(r#"<SignedInfo xmlns="{DSIG}" xmlns:des="{D}" xmlns:s="{S}">"#),
        1,
    );
    let canonico = xmldsig::canonicalize_document(&en_contexto, xmldsig::C14n::Inclusive).unwrap();
    let valor = base64::engine::general_purpose::STANDARD.encode(fiel.sign_sha1(canonico.as_bytes()).unwrap());
    let sobre = format!(
        r#"<s:Envelope xmlns:s="{S}" xmlns:des="{D}"><s:Header/><s:Body><des:VerificaSolicitudDescarga>{solicitud}<Signature xmlns="{DSIG}">{signed_info}<SignatureValue>{valor}</SignatureValue><KeyInfo><X509Data><X509Certificate>{cer}</X509Certificate></X509Data></KeyInfo></Signature></des:solicitud></des:VerificaSolicitudDescarga></s:Body></s:Envelope>"#,
        cer = fiel.certificate().base64()
    );
    let (estado, xml) = post(&e, VERIFICA, ACCION_VERIFICA, Some(&token), sobre.clone()).await;
    assert_eq!(estado, 200);
    let verificacion = mensajes::leer_verificacion(&xml).unwrap_or_else(|error| panic!("{error:?}: {xml}"));
    assert!(verificacion.estado.pendiente());
    // The same message altered after signing is refused.
    let alterado =
        sobre.replace(&format!("IdSolicitud=\"{id}\""), "IdSolicitud=\"00000000-0000-0000-0000-000000000000\"");
    assert_eq!(cod_estatus(&post(&e, VERIFICA, ACCION_VERIFICA, Some(&token), alterado).await.1), "302");
}
