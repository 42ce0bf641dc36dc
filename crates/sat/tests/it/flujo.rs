//! The whole flow: authenticate → request → verify (N polls) → download → read → seals.

use timbra_sat::{
    EstadoSello, EstadoSolicitud, EstadoTimbre, Periodo, SolicitudEmitidos, SolicitudRecibidos, TipoSolicitud,
};
use time::macros::datetime;

use crate::comun::{self, entorno};

fn periodo(tipo: TipoSolicitud) -> Periodo {
    Periodo::new(datetime!(2024-01-01 00:00:00), datetime!(2025-12-31 23:59:59), tipo)
}

#[tokio::test]
async fn emitidos_cfdi_whole_flow_with_seals_verified() {
    let Some(e) = entorno(|c| {
        c.consultas_aceptada = 2;
        c.consultas_en_proceso = 3;
        c.documentos_por_paquete = 3;
    })
    .await
    else {
        return;
    };
    let solicitud = SolicitudEmitidos { periodo: periodo(TipoSolicitud::Cfdi), rfc_receptores: vec![] };
    let aceptada = e.cliente.solicitar_emitidos(&solicitud).await.unwrap();
    assert_eq!(aceptada.cod_estatus, "5000");
    assert_eq!(aceptada.mensaje, "Solicitud Aceptada");

    // Two polls "Aceptada", three "En proceso", then "Terminada".
    let mut estados = Vec::new();
    for _ in 0..5 {
        estados.push(e.cliente.verificar(&aceptada.id_solicitud).await.unwrap().estado);
    }
    use EstadoSolicitud::*;
    assert_eq!(estados, [Aceptada, Aceptada, EnProceso, EnProceso, EnProceso]);
    let verificacion = e.cliente.esperar(&aceptada.id_solicitud, 3).await.unwrap();
    assert_eq!(verificacion.estado, Terminada);
    assert_eq!(verificacion.codigo_estado, "5000");
    assert_eq!(verificacion.numero_cfdis, 4);
    assert_eq!(verificacion.ids_paquetes.len(), 2, "3 CFDI per package");
    assert!(verificacion.ids_paquetes[0].ends_with("_01"));
    assert!(verificacion.ids_paquetes[0].starts_with(&aceptada.id_solicitud.to_uppercase()));

    let mut documentos = Vec::new();
    for id in &verificacion.ids_paquetes {
        let bytes = e.cliente.descargar(id).await.unwrap();
        let paquete = e.cliente.leer_paquete(&bytes).unwrap();
        assert!(paquete.ilegibles.is_empty() && paquete.metadatos.is_empty());
        documentos.extend(paquete.documentos);
    }
    assert_eq!(documentos.len(), 4);
    assert!(documentos.iter().all(|d| d.sello == EstadoSello::Verificado), "issuer seals verify");
    let verificados = documentos
        .iter()
        .filter(|d| d.timbre == EstadoTimbre::Verificado { no_certificado_sat: "30001000000500003456".into() })
        .count();
    assert_eq!(verificados, 2, "both TFD verify with SAT's test stamping certificate from the folder");
    assert_eq!(documentos.iter().filter(|d| d.timbre == EstadoTimbre::SinTimbre).count(), 2);
    let uuid = comun::uuid_finkok(&e.sat);
    let finkok = documentos.iter().find(|d| d.uuid == uuid).unwrap();
    assert_eq!(finkok.nombre, format!("{uuid}.xml"));
    assert_eq!(finkok.comprobante.emisor.rfc, comun::RFC);

    // One token for the whole flow (valid 5 minutes).
    assert_eq!(e.sim.tokens_emitidos(), 1);
}

#[tokio::test]
async fn sello_sat_not_verified_without_the_certificate() {
    let Some(e) = entorno(|_| {}).await else { return };
    let cliente = e.cliente.clone().con_certificados(timbra_sat::CertificadosSat::vacio());
    let aceptada = cliente.solicitar_folio(&comun::uuid_finkok(&e.sat)).await.unwrap();
    let verificacion = cliente.esperar(&aceptada.id_solicitud, 5).await.unwrap();
    assert_eq!(verificacion.numero_cfdis, 1);
    let paquete = cliente.leer_paquete(&cliente.descargar(&verificacion.ids_paquetes[0]).await.unwrap()).unwrap();
    assert_eq!(paquete.documentos.len(), 1);
    assert_eq!(
        paquete.documentos[0].timbre,
        EstadoTimbre::NoVerificado { no_certificado_sat: "30001000000500003456".into() }
    );
    assert_eq!(paquete.documentos[0].sello, EstadoSello::Verificado);
}

#[tokio::test]
async fn recibidos_metadata_rows() {
    let Some(e) = entorno(|_| {}).await else { return };
    let solicitud = SolicitudRecibidos { periodo: periodo(TipoSolicitud::Metadata), rfc_emisor: None };
    let aceptada = e.cliente.solicitar_recibidos(&solicitud).await.unwrap();
    let verificacion = e.cliente.esperar(&aceptada.id_solicitud, 5).await.unwrap();
    assert_eq!(verificacion.numero_cfdis, 1, "only the traslado is received by EKU9003173C9");
    let bytes = e.cliente.descargar(&verificacion.ids_paquetes[0]).await.unwrap();
    let paquete = e.cliente.leer_paquete(&bytes).unwrap();
    assert!(paquete.documentos.is_empty());
    assert_eq!(paquete.metadatos.len(), 1);
    let fila = &paquete.metadatos[0];
    assert_eq!(fila.rfc_receptor, comun::RFC);
    assert_eq!(fila.efecto_comprobante, "T");
    assert_eq!(fila.fecha_emision, "2025-06-16 08:00:00");
    assert!(fila.vigente());
}

#[tokio::test]
async fn recibidos_cfdi_are_vigente_only() {
    let Some(e) = entorno(|_| {}).await else { return };
    let solicitud = SolicitudRecibidos { periodo: periodo(TipoSolicitud::Cfdi), rfc_emisor: Some(comun::RFC.into()) };
    let aceptada = e.cliente.solicitar_recibidos(&solicitud).await.unwrap();
    let verificacion = e.cliente.esperar(&aceptada.id_solicitud, 5).await.unwrap();
    let paquete = e.cliente.leer_paquete(&e.cliente.descargar(&verificacion.ids_paquetes[0]).await.unwrap()).unwrap();
    assert_eq!(paquete.documentos.len(), 1);
    assert_eq!(paquete.documentos[0].comprobante.tipo_de_comprobante, "T");

    // The translator refuses to ask for cancelled received XML (SAT would answer 301).
    let mut cancelados = solicitud.clone();
    cancelados.periodo.estado_comprobante = Some(timbra_sat::EstadoComprobante::Cancelado);
    let error = e.cliente.solicitar_recibidos(&cancelados).await.unwrap_err();
    assert!(matches!(error, timbra_sat::SatError::Peticion(_)), "{error:?}");
}

#[tokio::test]
async fn token_is_reused_until_it_expires() {
    let Some(e) = entorno(|_| {}).await else { return };
    let primero = e.cliente.autenticar().await.unwrap();
    assert_eq!(primero.expira - primero.creado, time::Duration::minutes(5));
    assert!(primero.valor.contains("%26wrap_subject%3d"));
    let otra = e.cliente.autenticar().await.unwrap();
    assert_eq!(otra, primero);
    assert_eq!(e.sim.tokens_emitidos(), 1);
    e.avanzar(time::Duration::minutes(6));
    let nuevo = e.cliente.autenticar().await.unwrap();
    assert_ne!(nuevo.valor, primero.valor);
    assert_eq!(e.sim.tokens_emitidos(), 2);
}
