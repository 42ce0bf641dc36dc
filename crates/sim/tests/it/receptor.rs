//! The receiver's side through the simulator, over loopback HTTP: `get_pending` and
//! `accept_reject_signature` with Finkok's client, SAT's `ConsultaCFDIService` with
//! `ClienteConsulta`. The receiver's RFC is `H&E951128469` (an `&`, escaped in the XML and in
//! the QR expression).

use rust_decimal::Decimal;
use timbra_cfdi::aceptacion_rechazo::{
    FolioRespuesta, Respuesta as RespuestaReceptor, SolicitudAceptacionRechazo, escribir_aceptacion_rechazo,
};
use timbra_credentials::xmldsig;
use timbra_pac::consulta::{
    ClienteConsulta, ConsultaConfig, DatosExpresion, ErrorConsulta, expresion_del_cfdi, expresion_impresa,
};
use timbra_pac::finkok::FinkokClient;
use timbra_pac::{EstadoCancelacion, Pac, PacError, Timbrado};
use timbra_sim::{Falla, Sim};
use time::Duration;

use crate::comun::{
    AHORA, CSD, FECHA, LIMITE_CONSULTA_CORTO, RFC_EMISOR, RFC_RECEPTOR, arrancar_con_consulta,
    arrancar_con_consulta_impaciente, cancelacion, factura, factura_valida, respuesta_receptor,
};

/// 2,000.00 + IVA = 2,320.00 for [`RFC_RECEPTOR`]: cancelling needs the receiver's acceptance.
async fn timbrar_grande(pac: &FinkokClient, folio: &str) -> Timbrado {
    pac.timbrar(&factura(&CSD, FECHA, Decimal::new(200_000, 2), RFC_RECEPTOR, folio)).await.unwrap()
}

/// A simulator where [`RFC_RECEPTOR`] answers only through its PAC.
async fn arrancar() -> (Sim, FinkokClient, ClienteConsulta) {
    arrancar_con_consulta(|config| config.receptores_que_responden = vec![RFC_RECEPTOR.into()]).await
}

#[tokio::test]
async fn el_receptor_acepta_y_el_sat_lo_muestra() {
    let (_, pac, sat) = arrancar().await;
    let timbrado = timbrar_grande(&pac, "R1").await;
    let expresion = expresion_del_cfdi(&timbrado.xml).unwrap();
    assert!(expresion.contains("&rr=H&amp;E951128469&tt=2320.0&fe="), "{expresion}");
    let antes = sat.consultar(&expresion).await.unwrap();
    assert_eq!((antes.estado.as_str(), antes.es_cancelable.as_str()), ("Vigente", "Cancelable con aceptación"));
    assert_eq!(antes.validacion_efos.as_deref(), Some("200"));
    assert!(pac.pendientes(RFC_RECEPTOR).await.unwrap().is_empty());

    assert_eq!(pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap().estatus_uuid, "201");
    assert_eq!(pac.pendientes(RFC_RECEPTOR).await.unwrap(), vec![timbrado.uuid.clone()]);
    // The receiver that answers through its PAC keeps the request waiting, however often asked.
    for _ in 0..3 {
        assert_eq!(sat.consultar(&expresion).await.unwrap().cancelacion(), EstadoCancelacion::EnProceso);
    }
    assert!(pac.pendientes(RFC_EMISOR).await.unwrap().is_empty());

    let respuesta =
        pac.aceptar_rechazar(&respuesta_receptor(&[(&timbrado.uuid, RespuestaReceptor::Aceptacion)])).await.unwrap();
    let folio = respuesta.folio(&timbrado.uuid).unwrap();
    assert!(folio.recibida(), "{respuesta:?}");
    assert_eq!(folio.respuesta, RespuestaReceptor::Aceptacion);
    assert!(pac.pendientes(RFC_RECEPTOR).await.unwrap().is_empty());
    let despues = sat.consultar(&expresion).await.unwrap();
    assert_eq!(
        (despues.estado.as_str(), despues.estatus_cancelacion.as_str()),
        ("Cancelado", "Cancelado con aceptación")
    );

    // Answering twice: 1002.
    let otra =
        pac.aceptar_rechazar(&respuesta_receptor(&[(&timbrado.uuid, RespuestaReceptor::Rechazo)])).await.unwrap();
    assert_eq!(otra.folios[0].codigo, "1002");
    assert_eq!(otra.folios[0].mensaje(), "Ya se recibió una respuesta para la petición de cancelación del UUID");
}

#[tokio::test]
async fn el_receptor_rechaza_y_el_emisor_puede_volver_a_pedir() {
    let (_, pac, sat) = arrancar().await;
    let timbrado = timbrar_grande(&pac, "R2").await;
    pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap();
    let respuesta =
        pac.aceptar_rechazar(&respuesta_receptor(&[(&timbrado.uuid, RespuestaReceptor::Rechazo)])).await.unwrap();
    assert!(respuesta.folios[0].recibida());
    let datos = DatosExpresion {
        uuid: timbrado.uuid.clone(),
        rfc_emisor: RFC_EMISOR.into(),
        rfc_receptor: RFC_RECEPTOR.into(),
        total: "2320.00".into(),
        sello: String::new(),
    };
    let estado = sat.consultar_datos(&datos).await.unwrap();
    assert_eq!((estado.estado.as_str(), estado.estatus_cancelacion.as_str()), ("Vigente", "Solicitud rechazada"));
    assert_eq!(estado.cancelacion(), EstadoCancelacion::Rechazado);

    // A new request waits again.
    assert_eq!(pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap().estatus_uuid, "201");
    assert_eq!(pac.pendientes(RFC_RECEPTOR).await.unwrap(), vec![timbrado.uuid.clone()]);
}

#[tokio::test]
async fn sin_respuesta_en_tres_dias_habiles_vence_el_plazo() {
    let (sim, pac, sat) = arrancar().await;
    // Friday 20 Nov 2026: Monday, Tuesday and Wednesday are the receiver's days.
    let timbrado = timbrar_grande(&pac, "R3").await;
    pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap();
    let expresion = expresion_del_cfdi(&timbrado.xml).unwrap();

    sim.configurar(|config| config.ahora = Some(AHORA + Duration::days(5)));
    assert_eq!(pac.pendientes(RFC_RECEPTOR).await.unwrap(), vec![timbrado.uuid.clone()], "Wednesday noon");
    sim.configurar(|config| config.ahora = Some(AHORA + Duration::days(6)));
    assert!(pac.pendientes(RFC_RECEPTOR).await.unwrap().is_empty(), "Thursday");
    let estado = sat.consultar(&expresion).await.unwrap();
    assert_eq!((estado.estado.as_str(), estado.estatus_cancelacion.as_str()), ("Cancelado", "Plazo vencido"));
    let tarde =
        pac.aceptar_rechazar(&respuesta_receptor(&[(&timbrado.uuid, RespuestaReceptor::Rechazo)])).await.unwrap();
    assert_eq!(tarde.folios[0].codigo, "1001");
}

#[tokio::test]
async fn respuestas_que_el_pac_no_admite() {
    let (sim, pac, _) = arrancar().await;
    let grande = timbrar_grande(&pac, "R4").await;
    pac.cancelar(&cancelacion(&grande.uuid)).await.unwrap();
    let firmada = respuesta_receptor(&[(&grande.uuid, RespuestaReceptor::Aceptacion)]);

    // Bad credentials (the account's password changed under the client).
    sim.configurar(|config| config.password = Some("otra".into()));
    assert_eq!(pac.pendientes(RFC_RECEPTOR).await.unwrap_err().code(), Some("300"));
    assert_eq!(pac.aceptar_rechazar(&firmada).await.unwrap_err().code(), Some("300"));
    sim.configurar(|config| config.password = Some("secreto".into()));

    // Altered after signing.
    let alterada = firmada.replace("<Respuesta>Aceptacion</Respuesta>", "<Respuesta>Rechazo</Respuesta>");
    assert_eq!(pac.aceptar_rechazar(&alterada).await.unwrap_err().code(), Some("302"));
    // Not signed at all.
    let solicitud = SolicitudAceptacionRechazo {
        rfc_receptor: RFC_RECEPTOR.into(),
        rfc_pac_envia_solicitud: "CVD110412TF6".into(),
        fecha: "2026-11-20T12:30:00".into(),
        folios: vec![FolioRespuesta { uuid: grande.uuid.clone(), respuesta: RespuestaReceptor::Aceptacion }],
    };
    let sin_firma = escribir_aceptacion_rechazo(&solicitud).unwrap();
    assert_eq!(pac.aceptar_rechazar(&sin_firma).await.unwrap_err().code(), Some("302"));
    // Signed with the issuer's CSD: the seal is not the receiver's.
    let ajena = xmldsig::sign_enveloped_csd(&CSD, &sin_firma).unwrap();
    assert_eq!(pac.aceptar_rechazar(&ajena).await.unwrap().folios[0].codigo, "1003");
    // A cancellation request is not an answer.
    assert_eq!(pac.aceptar_rechazar(&cancelacion(&grande.uuid)).await.unwrap_err().code(), Some("301"));
    assert_eq!(pac.pendientes(RFC_RECEPTOR).await.unwrap(), vec![grande.uuid.clone()], "nothing resolved it");

    // A UUID Finkok never saw: its recorded error, "UUID: … No Encontrado".
    let desconocido = "11111111-2222-3333-4444-000000000001";
    match pac.aceptar_rechazar(&respuesta_receptor(&[(desconocido, RespuestaReceptor::Aceptacion)])).await {
        Err(PacError::Rejected { message, .. }) => {
            assert_eq!(message, format!("UUID: {desconocido} No Encontrado"));
        }
        otro => panic!("{otro:?}"),
    }
    // A UUID with no request waiting: never requested, or cancelled without acceptance.
    let chica = pac.timbrar(&factura_valida("R5")).await.unwrap();
    let sin_solicitud =
        pac.aceptar_rechazar(&respuesta_receptor(&[(&chica.uuid, RespuestaReceptor::Aceptacion)])).await.unwrap();
    assert_eq!(sin_solicitud.folios[0].codigo, "1001");
    pac.cancelar(&cancelacion(&chica.uuid)).await.unwrap();
    let sin_aceptacion =
        pac.aceptar_rechazar(&respuesta_receptor(&[(&chica.uuid, RespuestaReceptor::Rechazo)])).await.unwrap();
    assert_eq!(sin_aceptacion.folios[0].codigo, "1001");
    assert!(!sin_aceptacion.folios[0].recibida());

    // The PAC unreachable mid-answer: an indeterminate error, the answer may have arrived.
    sim.fallar("accept_reject_signature", [Falla::Corte]);
    let error = pac.aceptar_rechazar(&firmada).await.unwrap_err();
    assert!(error.is_indeterminate(), "{error:?}");
    // It did: the retry is told it was answered before.
    assert_eq!(pac.aceptar_rechazar(&firmada).await.unwrap().folios[0].codigo, "1002");
}

#[tokio::test]
async fn cien_solicitudes_pendientes_a_la_vez() {
    let (_, pac, _) = arrancar().await;
    let mut uuids = Vec::new();
    for folio in 0..100 {
        let timbrado = timbrar_grande(&pac, &format!("C{folio}")).await;
        assert_eq!(pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap().estatus_uuid, "201");
        uuids.push(timbrado.uuid);
    }
    let mut pendientes = pac.pendientes(RFC_RECEPTOR).await.unwrap();
    assert_eq!(pendientes.len(), 100);
    pendientes.sort();
    let mut esperados = uuids.clone();
    esperados.sort();
    assert_eq!(pendientes, esperados);

    // One signed answer for all of them: even ones accepted, odd ones rejected.
    let folios: Vec<(&str, RespuestaReceptor)> = uuids
        .iter()
        .enumerate()
        .map(|(i, uuid)| {
            (uuid.as_str(), if i % 2 == 0 { RespuestaReceptor::Aceptacion } else { RespuestaReceptor::Rechazo })
        })
        .collect();
    let respuesta = pac.aceptar_rechazar(&respuesta_receptor(&folios)).await.unwrap();
    assert_eq!(respuesta.folios.len(), 100);
    assert!(respuesta.folios.iter().all(|folio| folio.recibida()), "{respuesta:?}");
    for (uuid, esperada) in &folios {
        assert_eq!(respuesta.folio(uuid).unwrap().respuesta, *esperada);
    }
    assert!(pac.pendientes(RFC_RECEPTOR).await.unwrap().is_empty());
}

#[tokio::test]
async fn consulta_del_sat_estricta() {
    let (sim, pac, sat) = arrancar_con_consulta_impaciente(|config| {
        config.receptores_que_responden = vec![RFC_RECEPTOR.into()];
    })
    .await;
    let timbrado = timbrar_grande(&pac, "S1").await;
    let datos = DatosExpresion {
        uuid: timbrado.uuid.clone(),
        rfc_emisor: RFC_EMISOR.into(),
        rfc_receptor: RFC_RECEPTOR.into(),
        total: "2320".into(),
        sello: String::new(),
    };
    assert_eq!(sat.consultar_datos(&datos).await.unwrap().cancelacion(), EstadoCancelacion::Vigente);

    // The RFC's `&` not escaped inside the expression: SAT cannot read it.
    let cruda = format!("?re={RFC_EMISOR}&rr={RFC_RECEPTOR}&tt=2320.0&id={}", timbrado.uuid);
    let error = sat.consultar(&cruda).await.unwrap_err();
    assert_eq!(error.codigo(), Some("601"), "{error:?}");
    assert!(matches!(&error, ErrorConsulta::Respondida { codigo_estatus, .. }
            if codigo_estatus == "N - 601: La expresión impresa proporcionada no es válida."));
    // Well formed, but no such CFDI (another total, an unknown UUID).
    let mut otro_total = datos.clone();
    otro_total.total = "2320.01".into();
    assert!(sat.consultar_datos(&otro_total).await.unwrap_err().no_encontrado());
    let mut desconocido = datos.clone();
    desconocido.uuid = "62B00C5E-4187-4336-B569-44E0030DC729".into();
    let error = sat.consultar(&expresion_impresa(&desconocido).unwrap()).await.unwrap_err();
    assert!(error.no_encontrado() && error.transitorio(), "{error:?}");

    // SAT slow, down, or answering garbage.
    sim.fallar("Consulta", [Falla::Lenta(LIMITE_CONSULTA_CORTO + std::time::Duration::from_secs(2))]);
    assert!(matches!(sat.consultar_datos(&datos).await.unwrap_err(), ErrorConsulta::Timeout(_)));
    sim.fallar("Consulta", [Falla::NoDisponible]);
    assert!(matches!(sat.consultar_datos(&datos).await.unwrap_err(), ErrorConsulta::Inalcanzable(_)));
    sim.configurar(|config| config.basura = true);
    assert!(matches!(sat.consultar_datos(&datos).await.unwrap_err(), ErrorConsulta::Ilegible { .. }));
    // Nobody listening.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let direccion = listener.local_addr().unwrap();
    drop(listener);
    let nadie =
        ClienteConsulta::new(ConsultaConfig::new(&format!("http://{direccion}/ConsultaCFDIService.svc"))).unwrap();
    let error = nadie.consultar_datos(&datos).await.unwrap_err();
    assert!(matches!(error, ErrorConsulta::Inalcanzable(_)) && error.transitorio(), "{error:?}");
}
