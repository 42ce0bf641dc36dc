//! Shared set-up: credentials, sealed invoices, a simulator on a random port and a client.

use std::path::PathBuf;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use rust_decimal::Decimal;
use timbra_cfdi::aceptacion_rechazo::{
    FolioRespuesta, Respuesta as RespuestaReceptor, SolicitudAceptacionRechazo, firmar_aceptacion_rechazo,
};
use timbra_cfdi::catalogos::{Exportacion, FormaPago, MetodoPago, ObjetoImp, TipoDeComprobante};
use timbra_cfdi::construccion::{NuevoComprobante, NuevoConcepto};
use timbra_cfdi::{Emisor, Receptor, escritura, sello};
use timbra_credentials::testgen::{self, Options};
use timbra_credentials::{CertificateKind, Credential, xmldsig};
use timbra_pac::consulta::{ClienteConsulta, ConsultaConfig};
use timbra_pac::finkok::{FinkokClient, FinkokConfig};
use timbra_sim::{Sim, SimConfig};
use time::OffsetDateTime;
use time::macros::datetime;

/// The simulator's pinned clock: 2026-11-20 12:00 in Mexico City.
pub const AHORA: OffsetDateTime = datetime!(2026-11-20 18:00 UTC);
/// A Fecha 90 minutes before [`AHORA`], issuer's local time.
pub const FECHA: &str = "2026-11-20T10:30:00";
pub const RFC_EMISOR: &str = "EKU9003173C9";
pub const RFC_RECEPTOR: &str = "H&E951128469";

fn generar(opciones: Options) -> Credential {
    testgen::generate(&opciones).unwrap().credential().unwrap()
}

/// The issuer's CSD, valid 2025–2029.
pub static CSD: LazyLock<Credential> = LazyLock::new(|| {
    generar(Options::csd(
        RFC_EMISOR,
        "ESCUELA KEMPER URGATE",
        datetime!(2025-01-01 0:00 UTC),
        datetime!(2029-01-01 0:00 UTC),
    ))
});
/// The issuer's CSD that expired in 2024.
pub static CSD_VENCIDO: LazyLock<Credential> = LazyLock::new(|| {
    generar(Options::csd(
        RFC_EMISOR,
        "ESCUELA KEMPER URGATE",
        datetime!(2020-01-01 0:00 UTC),
        datetime!(2024-01-01 0:00 UTC),
    ))
});
/// The issuer's e.firma (FIEL), valid 2025–2029.
pub static FIEL: LazyLock<Credential> = LazyLock::new(|| {
    let credencial = generar(Options::fiel(
        RFC_EMISOR,
        "ESCUELA KEMPER URGATE",
        datetime!(2025-01-01 0:00 UTC),
        datetime!(2029-01-01 0:00 UTC),
    ));
    assert_eq!(credencial.certificate().kind(), CertificateKind::Fiel);
    credencial
});
/// The receiver's CSD (an RFC with `&`), valid 2025–2029.
pub static CSD_RECEPTOR: LazyLock<Credential> = LazyLock::new(|| {
    generar(Options::csd(
        RFC_RECEPTOR,
        "HERRERIA & ELECTRICOS",
        datetime!(2025-01-01 0:00 UTC),
        datetime!(2029-01-01 0:00 UTC),
    ))
});
static PAC: LazyLock<Arc<Credential>> = LazyLock::new(|| SimConfig::generar().unwrap().credencial_pac);

/// A sealed Ingreso invoice: one line of `valor` + 16% IVA, for `receptor`.
pub fn factura(credencial: &Credential, fecha: &str, valor: Decimal, receptor: &str, folio: &str) -> String {
    factura_de(credencial, fecha, valor, receptor, folio, "43211500")
}

/// [`factura`] of one concept of c_ClaveProdServ `clave_prod_serv`.
pub fn factura_de(
    credencial: &Credential,
    fecha: &str,
    valor: Decimal,
    receptor: &str,
    folio: &str,
    clave_prod_serv: &str,
) -> String {
    let nuevo = NuevoComprobante {
        tipo: TipoDeComprobante::Ingreso,
        serie: Some("A".into()),
        folio: Some(folio.into()),
        fecha: fecha.into(),
        forma_pago: Some(FormaPago::TransferenciaElectronica),
        metodo_pago: Some(MetodoPago::Pue),
        condiciones_de_pago: None,
        moneda: "MXN".into(),
        tipo_cambio: None,
        exportacion: Exportacion::NoAplica,
        lugar_expedicion: "86000".into(),
        emisor: Emisor {
            rfc: RFC_EMISOR.into(),
            nombre: "ESCUELA KEMPER URGATE".into(),
            regimen_fiscal: "601".into(),
            fac_atr_adquirente: None,
        },
        receptor: Receptor {
            rfc: receptor.into(),
            nombre: "HERRERIA & ELECTRICOS".into(),
            domicilio_fiscal_receptor: "06002".into(),
            residencia_fiscal: None,
            num_reg_id_trib: None,
            regimen_fiscal_receptor: "601".into(),
            uso_cfdi: "G03".into(),
        },
        informacion_global: None,
        cfdi_relacionados: Vec::new(),
        conceptos: vec![NuevoConcepto::new(
            clave_prod_serv,
            Decimal::ONE,
            "H87",
            "Computadora portátil",
            valor,
            ObjetoImp::SiObjeto,
        )],
        impuestos_locales: None,
        complementos: Vec::new(),
    };
    let mut comprobante = nuevo.construir().unwrap();
    sello::sellar(&mut comprobante, credencial).unwrap();
    escritura::escribir(&comprobante).unwrap()
}

/// A sealed 500.00 + IVA invoice with the valid CSD, dated [`FECHA`].
pub fn factura_valida(folio: &str) -> String {
    factura(&CSD, FECHA, Decimal::new(50000, 2), RFC_RECEPTOR, folio)
}

/// A signed cancellation request for one UUID, motive 02.
pub fn cancelacion(uuid: &str) -> String {
    let folio = xmldsig::CancelacionFolio { uuid: uuid.to_owned(), motivo: "02".into(), folio_sustitucion: None };
    xmldsig::sign_cancelacion(&CSD, RFC_EMISOR, "2026-11-20T11:00:00", &[folio]).unwrap()
}

/// The receiver's answer for `folios`, signed with [`CSD_RECEPTOR`].
pub fn respuesta_receptor(folios: &[(&str, RespuestaReceptor)]) -> String {
    let solicitud = SolicitudAceptacionRechazo {
        rfc_receptor: RFC_RECEPTOR.into(),
        rfc_pac_envia_solicitud: "CVD110412TF6".into(),
        fecha: "2026-11-20T12:30:00".into(),
        folios: folios
            .iter()
            .map(|(uuid, respuesta)| FolioRespuesta { uuid: (*uuid).to_owned(), respuesta: *respuesta })
            .collect(),
    };
    firmar_aceptacion_rechazo(&solicitud, &CSD_RECEPTOR).unwrap()
}

/// The client's time limit. Generous: CI runs these tests in parallel with debug builds on
/// two cores, where a stamp can take seconds (a 2 s limit failed there). The timeout test sets
/// its own short limit with [`arrancar_con_limite`].
const LIMITE: Duration = Duration::from_secs(30);

/// A simulator (clock at [`AHORA`], user `usuario` / `secreto`) on a random loopback port,
/// and a client for it with a [`LIMITE`] time limit.
pub async fn arrancar(ajuste: impl FnOnce(&mut SimConfig)) -> (Sim, FinkokClient) {
    arrancar_con_limite(ajuste, LIMITE).await
}

/// [`arrancar`] with a client that gives up after `limite`.
pub async fn arrancar_con_limite(ajuste: impl FnOnce(&mut SimConfig), limite: Duration) -> (Sim, FinkokClient) {
    let (sim, pac, _) = arrancar_completo(ajuste, limite, limite).await;
    (sim, pac)
}

/// [`arrancar`], plus a client of SAT's status service the simulator serves on the same
/// address (`/ConsultaCFDIService.svc`).
pub async fn arrancar_con_consulta(ajuste: impl FnOnce(&mut SimConfig)) -> (Sim, FinkokClient, ClienteConsulta) {
    arrancar_completo(ajuste, LIMITE, LIMITE).await
}

/// The time limit of the status service's client in the tests of a slow SAT: a
/// status query costs no signature, so 5 s is far above what it takes even on a loaded CI.
pub const LIMITE_CONSULTA_CORTO: Duration = Duration::from_secs(5);

/// [`arrancar_con_consulta`] with a status client that gives up after [`LIMITE_CONSULTA_CORTO`]
/// (the tests of a slow SAT).
pub async fn arrancar_con_consulta_impaciente(
    ajuste: impl FnOnce(&mut SimConfig),
) -> (Sim, FinkokClient, ClienteConsulta) {
    arrancar_completo(ajuste, LIMITE, LIMITE_CONSULTA_CORTO).await
}

async fn arrancar_completo(
    ajuste: impl FnOnce(&mut SimConfig),
    limite: Duration,
    limite_consulta: Duration,
) -> (Sim, FinkokClient, ClienteConsulta) {
    let mut config = SimConfig::new(Arc::clone(&PAC));
    config.ahora = Some(AHORA);
    config.usuario = Some("usuario".into());
    config.password = Some("secreto".into());
    ajuste(&mut config);
    let sim = Sim::new(config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let direccion = listener.local_addr().unwrap();
    tokio::spawn(sim.clone().serve(listener));
    let mut config_cliente = FinkokConfig::new(&format!("http://{direccion}"), "usuario", "secreto");
    config_cliente.timeout = limite;
    let mut config_consulta = ConsultaConfig::new(&format!("http://{direccion}/ConsultaCFDIService.svc"));
    config_consulta.timeout = limite_consulta;
    (sim, FinkokClient::new(config_cliente).unwrap(), ClienteConsulta::new(config_consulta).unwrap())
}

/// SAT's XSD (`$TIMBRA_SAT_DIR`, else `../shared/sat`); `None` after a reported skip when
/// absent (a failure under `TIMBRA_REQUIRE_SAT=1`).
pub fn sat() -> Option<PathBuf> {
    timbra_testkit::sat("xsd/cfdv40-with-complements.xsd")
}
