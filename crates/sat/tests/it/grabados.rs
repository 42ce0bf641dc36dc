//! The translator on messages in the shape SAT answers (fixtures written after recorded SAT
//! answers published by phpcfdi/sat-ws-descarga-masiva), and the requests it builds against
//! the digests of PROTOCOLS.md §1.11 (reproduced from phpcfdi's recorded requests).

use timbra_sat::mensajes::{self, EstadoSolicitud};
use timbra_sat::{
    CertificadosSat, EstadoComprobante, Periodo, SatError, SolicitudEmitidos, SolicitudRecibidos, TipoSolicitud,
};
use time::macros::datetime;

use crate::comun;

fn fixture(nombre: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures").join(nombre))
        .unwrap()
}

#[test]
fn authentication_answers() {
    let token = mensajes::leer_autenticacion(&fixture("autenticacion-token.xml")).unwrap();
    assert!(token.valor.starts_with("eyJhbGciOi"));
    assert!(token.valor.ends_with("%26wrap_subject%3d3330303031303030303030353030303033343135"));
    assert_eq!(token.creado, datetime!(2026-11-20 18:00:01.127 UTC));
    assert_eq!(token.expira, datetime!(2026-11-20 18:05:01.127 UTC));
    assert!(token.vigente(datetime!(2026-11-20 18:04:00 UTC), time::Duration::seconds(30)));
    assert!(!token.vigente(datetime!(2026-11-20 18:04:40 UTC), time::Duration::seconds(30)));
    assert_eq!(token.autorizacion(), format!("WRAP access_token=\"{}\"", token.valor));

    match mensajes::leer_autenticacion(&fixture("autenticacion-error.xml")).unwrap_err() {
        SatError::Autenticacion { codigo, mensaje } => {
            assert_eq!(codigo, "a:InvalidSecurity");
            assert_eq!(mensaje, "An error occurred when verifying security for the message.");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn request_answers() {
    for (operacion, archivo) in [
        ("SolicitaDescargaEmitidos", "solicitud-emitidos.xml"),
        ("SolicitaDescargaRecibidos", "solicitud-recibidos.xml"),
        ("SolicitaDescargaFolio", "solicitud-folio.xml"),
    ] {
        let aceptada = mensajes::leer_solicitud(operacion, &fixture(archivo)).unwrap();
        assert_eq!(aceptada.id_solicitud, "5b1c7c2e-0a4f-4c0e-9d33-6f0e3a1b2c4d");
        assert_eq!(aceptada.cod_estatus, "5000");
        assert_eq!(aceptada.mensaje, "Solicitud Aceptada");
    }
    let error =
        mensajes::leer_solicitud("SolicitaDescargaRecibidos", &fixture("solicitud-recibidos-301.xml")).unwrap_err();
    assert_eq!(error.codigo(), "SAT_301");
    assert!(error.to_string().contains("No se permite la descarga de xml que se encuentren cancelados"));
}

#[test]
fn verification_answers() {
    let vacia = mensajes::leer_verificacion(&fixture("verificacion-0-paquetes.xml")).unwrap();
    assert_eq!(vacia.estado, EstadoSolicitud::Rechazada);
    assert_eq!(vacia.codigo_estado, "5004");
    assert_eq!(vacia.numero_cfdis, 0);
    assert!(vacia.ids_paquetes.is_empty());
    assert_eq!(vacia.error().unwrap().codigo(), "SAT_5004");

    let lista = mensajes::leer_verificacion(&fixture("verificacion-2-paquetes.xml")).unwrap();
    assert_eq!(lista.estado, EstadoSolicitud::Terminada);
    assert_eq!(lista.numero_cfdis, 1234);
    assert_eq!(
        lista.ids_paquetes,
        ["5B1C7C2E-0A4F-4C0E-9D33-6F0E3A1B2C4D_01", "5B1C7C2E-0A4F-4C0E-9D33-6F0E3A1B2C4D_02"]
    );
    assert!(lista.error().is_none());
}

#[test]
fn download_answers_and_metadata_package() {
    let bytes = mensajes::leer_descarga(&fixture("descarga-paquete.xml")).unwrap();
    let paquete = timbra_sat::leer_paquete(&bytes, &CertificadosSat::vacio()).unwrap();
    assert!(paquete.documentos.is_empty());
    assert_eq!(paquete.metadatos.len(), 2);
    let primero = &paquete.metadatos[0];
    assert_eq!(primero.uuid, "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D");
    assert_eq!(primero.nombre_emisor, "EMPRESA DE PRUEBA", "a bare LF inside a name is not a record end");
    assert_eq!(primero.monto, "1160.00");
    assert!(primero.vigente());
    assert_eq!(primero.rfc_a_cuenta_terceros, None);
    let cancelado = &paquete.metadatos[1];
    assert!(!cancelado.vigente());
    assert_eq!(cancelado.fecha_cancelacion, "2026-10-05 12:00:00");
    assert_eq!(cancelado.rfc_a_cuenta_terceros.as_deref(), Some("XIA190128J61"));

    let error = mensajes::leer_descarga(&fixture("descarga-5008.xml")).unwrap_err();
    assert_eq!(error.codigo(), "SAT_5008");
}

fn digest(xml: &str) -> &str {
    let inicio = xml.find("<DigestValue>").unwrap() + "<DigestValue>".len();
    &xml[inicio..inicio + xml[inicio..].find('<').unwrap()]
}

#[test]
fn requests_reproduce_recorded_digests() {
    let Some(sat) = comun::sat_dir() else { return };
    let fiel = comun::fiel(&sat);
    let inicio = datetime!(2019-01-01 00:00:00);
    let fin = datetime!(2019-01-01 00:04:00);

    let autenticacion = mensajes::sobre_autenticacion(&fiel, datetime!(2019-08-01 03:38:19 UTC), "uuid-x-1").unwrap();
    assert_eq!(digest(&autenticacion), "nQnU35aTer+opzz7HKZiemZZRj8=");

    let mut periodo = Periodo::new(inicio, fin, TipoSolicitud::Metadata);
    periodo.estado_comprobante = Some(EstadoComprobante::Todos);
    let emitidos = SolicitudEmitidos { periodo, rfc_receptores: vec![] };
    assert_eq!(digest(&mensajes::sobre_solicitud_emitidos(&fiel, &emitidos).unwrap()), "BELGF9WsFcnEbvXILi03IoOZkjg=");

    let mut periodo = Periodo::new(inicio, fin, TipoSolicitud::Cfdi);
    periodo.complemento = Some("nomina12".into());
    periodo.rfc_a_cuenta_terceros = Some("XXX01010199A".into());
    periodo.tipo_comprobante = Some("N".into());
    let recibidos = SolicitudRecibidos { periodo, rfc_emisor: Some("AAA010101AAA".into()) };
    assert_eq!(
        digest(&mensajes::sobre_solicitud_recibidos(&fiel, &recibidos).unwrap()),
        "kb02ycztMva0O2fcJU4VMV2gOkg="
    );

    let folio = mensajes::sobre_solicitud_folio(&fiel, "96623061-61fe-49de-b298-c7156476aa8b").unwrap();
    assert_eq!(digest(&folio), "H2TUJWzcQWOWYmOUgFlHcBeZX08=");

    let verifica = mensajes::sobre_verificacion(&fiel, "3f30a4e1-af73-4085-8991-e4d97eef16bd").unwrap();
    assert_eq!(digest(&verifica), "DVHsbfyUP1fm7CPdctOp8N6132E=");
}
