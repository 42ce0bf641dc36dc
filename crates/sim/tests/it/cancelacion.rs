//! Cancellation through the simulator: direct, pending then accepted, pending then rejected.
//! As real Finkok, the answer to the request never says what SAT decided: only the status does.

use rust_decimal::Decimal;
use timbra_pac::{ConsultaEstado, EstadoCancelacion, Pac, PacError, Timbrado};

use crate::comun::{CSD, FECHA, RFC_EMISOR, RFC_RECEPTOR, arrancar, cancelacion, factura, factura_valida};

fn consulta(timbrado: &Timbrado, receptor: &str, total: &str) -> ConsultaEstado {
    ConsultaEstado {
        rfc_emisor: RFC_EMISOR.into(),
        rfc_receptor: receptor.into(),
        uuid: timbrado.uuid.clone(),
        total: total.into(),
    }
}

#[tokio::test]
async fn hasta_1000_se_cancela_sin_aceptacion() {
    let (_, pac) = arrancar(|_| {}).await;
    // 500.00 + 16% IVA = 580.00.
    let timbrado = pac.timbrar(&factura_valida("20")).await.unwrap();
    let estado = pac.estatus_cancelacion(&consulta(&timbrado, RFC_RECEPTOR, "580.00")).await.unwrap();
    assert_eq!(estado.cancelacion(), EstadoCancelacion::Vigente);
    assert_eq!(estado.es_cancelable, "Cancelable sin aceptación");

    let respuesta = pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap();
    assert_eq!(respuesta.uuid, timbrado.uuid);
    assert_eq!(respuesta.estatus_uuid, "201");
    assert_eq!(respuesta.estatus_cancelacion.as_deref(), Some("Petición de cancelación realizada exitosamente"));
    assert!(respuesta.acuse.contains(&timbrado.uuid));
    let estado = pac.estatus_cancelacion(&consulta(&timbrado, RFC_RECEPTOR, "580")).await.unwrap();
    assert_eq!(estado.cancelacion(), EstadoCancelacion::Cancelado);
    assert_eq!(estado.estado, "Cancelado");
    assert_eq!(estado.estatus_cancelacion, "Cancelado sin aceptación");

    // Retrying after a lost answer is safe: 202.
    let repetida = pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap();
    assert_eq!(repetida.estatus_uuid, "202");
    assert_eq!(repetida.estatus_cancelacion, None);
}

#[tokio::test]
async fn el_estado_puede_tardar_en_reflejar_la_solicitud() {
    let (_, pac) = arrancar(|config| config.consultas_sin_reflejar = 2).await;
    let timbrado = pac.timbrar(&factura_valida("24")).await.unwrap();
    let respuesta = pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap();
    assert_eq!(respuesta.estatus_uuid, "201");
    let pregunta = consulta(&timbrado, RFC_RECEPTOR, "580.00");
    for _ in 0..2 {
        let estado = pac.estatus_cancelacion(&pregunta).await.unwrap();
        assert_eq!((estado.estado.as_str(), estado.estatus_cancelacion.as_str()), ("Vigente", ""));
        assert_eq!(estado.cancelacion(), EstadoCancelacion::Vigente);
    }
    let estado = pac.estatus_cancelacion(&pregunta).await.unwrap();
    assert_eq!(
        (estado.estado.as_str(), estado.estatus_cancelacion.as_str()),
        ("Cancelado", "Cancelado sin aceptación")
    );
}

#[tokio::test]
async fn receptor_que_no_contesta_vence_el_plazo() {
    let receptor = "XIA190128J61";
    let (_, pac) = arrancar(|config| config.receptores_que_no_contestan = vec![receptor.into()]).await;
    let xml = factura(&CSD, FECHA, Decimal::new(200_000, 2), receptor, "25");
    let timbrado = pac.timbrar(&xml).await.unwrap();
    let respuesta = pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap();
    assert_eq!(respuesta.estatus_cancelacion.as_deref(), Some("Petición de cancelación realizada exitosamente"));
    let pregunta = consulta(&timbrado, receptor, "2320.00");
    assert_eq!(pac.estatus_cancelacion(&pregunta).await.unwrap().estatus_cancelacion, "En proceso");
    let estado = pac.estatus_cancelacion(&pregunta).await.unwrap();
    assert_eq!((estado.estado.as_str(), estado.estatus_cancelacion.as_str()), ("Cancelado", "Plazo vencido"));
}

#[tokio::test]
async fn mas_de_1000_espera_al_receptor_que_acepta() {
    let (_, pac) = arrancar(|config| config.consultas_en_proceso = 2).await;
    // 2,000.00 + IVA = 2,320.00.
    let xml = factura(&CSD, FECHA, Decimal::new(200_000, 2), RFC_RECEPTOR, "21");
    let timbrado = pac.timbrar(&xml).await.unwrap();
    let respuesta = pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap();
    assert_eq!(respuesta.estatus_uuid, "201");
    // The same text as a cancellation without acceptance: the request was received, no more.
    assert_eq!(respuesta.estatus_cancelacion.as_deref(), Some("Petición de cancelación realizada exitosamente"));

    let pregunta = consulta(&timbrado, RFC_RECEPTOR, "2320.00");
    for _ in 0..2 {
        let estado = pac.estatus_cancelacion(&pregunta).await.unwrap();
        assert_eq!(estado.cancelacion(), EstadoCancelacion::EnProceso);
        assert_eq!(estado.es_cancelable, "Cancelable con aceptación");
        assert_eq!(estado.estado, "Vigente");
    }
    let estado = pac.estatus_cancelacion(&pregunta).await.unwrap();
    assert_eq!(estado.cancelacion(), EstadoCancelacion::Cancelado);
    assert_eq!(estado.estatus_cancelacion, "Cancelado con aceptación");
}

#[tokio::test]
async fn receptor_configurado_rechaza() {
    let receptor = "XIA190128J61";
    let (_, pac) = arrancar(|config| config.receptores_que_rechazan = vec![receptor.into()]).await;
    let xml = factura(&CSD, FECHA, Decimal::new(200_000, 2), receptor, "22");
    let timbrado = pac.timbrar(&xml).await.unwrap();
    assert_eq!(pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap().estatus_uuid, "201");

    let pregunta = consulta(&timbrado, receptor, "2320.00");
    assert_eq!(pac.estatus_cancelacion(&pregunta).await.unwrap().cancelacion(), EstadoCancelacion::EnProceso);
    let estado = pac.estatus_cancelacion(&pregunta).await.unwrap();
    assert_eq!(estado.cancelacion(), EstadoCancelacion::Rechazado);
    assert_eq!(estado.estado, "Vigente");
    // After a rejection the issuer may ask again.
    assert_eq!(pac.cancelar(&cancelacion(&timbrado.uuid)).await.unwrap().estatus_uuid, "201");
}

#[tokio::test]
async fn uuid_desconocido_es_205_y_no_encontrado() {
    let (_, pac) = arrancar(|_| {}).await;
    let uuid = "62B00C5E-4187-4336-B569-44E0030DC729";
    match pac.cancelar(&cancelacion(uuid)).await {
        Err(PacError::Rejected { code, .. }) => assert_eq!(code, "205"),
        otro => panic!("expected 205, got {otro:?}"),
    }
    let pregunta = ConsultaEstado {
        rfc_emisor: RFC_EMISOR.into(),
        rfc_receptor: RFC_RECEPTOR.into(),
        uuid: uuid.into(),
        total: "1.00".into(),
    };
    assert_eq!(pac.estatus_cancelacion(&pregunta).await.unwrap().cancelacion(), EstadoCancelacion::NoEncontrado);
}

#[tokio::test]
async fn cancelacion_alterada_es_302() {
    let (_, pac) = arrancar(|_| {}).await;
    let timbrado = pac.timbrar(&factura_valida("23")).await.unwrap();
    let alterada = cancelacion(&timbrado.uuid).replace("Motivo=\"02\"", "Motivo=\"03\"");
    match pac.cancelar(&alterada).await {
        Err(PacError::Rejected { code, .. }) => assert_eq!(code, "302"),
        otro => panic!("expected 302, got {otro:?}"),
    }
}
