//! Shared set-up: SAT's test FIEL and CSD, sample CFDI, a simulator on a random port with a
//! clock shared with the client.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use timbra_credentials::Credential;
use timbra_sat::{ClienteSat, SatConfig};
use timbra_sim::sat::{DocumentoSim, SatSim, SatSimConfig};
use time::OffsetDateTime;
use time::macros::datetime;

/// The pinned "now": 2026-11-20 12:00 in Mexico City.
pub const AHORA: OffsetDateTime = datetime!(2026-11-20 18:00 UTC);
/// RFC of SAT's test FIEL 30001000000500003415.
pub const RFC: &str = "EKU9003173C9";

/// SAT's files (`$TIMBRA_SAT_DIR`, else `../shared/sat`); `None` after a reported skip when
/// absent (a failure under `TIMBRA_REQUIRE_SAT=1`).
pub fn sat_dir() -> Option<PathBuf> {
    timbra_testkit::sat("certs/30001000000500003415.cer")
}

pub fn credencial(sat: &std::path::Path, numero: &str) -> Credential {
    let cer = std::fs::read(sat.join(format!("certs/{numero}.cer"))).unwrap();
    let key = std::fs::read(sat.join(format!("certs/{numero}.key"))).unwrap();
    Credential::open(&cer, &key, b"12345678a").unwrap()
}

/// SAT's test FIEL of EKU9003173C9.
pub fn fiel(sat: &std::path::Path) -> Credential {
    credencial(sat, "30001000000500003415")
}

/// SAT's test CSD of EKU9003173C9 (must be refused by descarga masiva).
pub fn csd(sat: &std::path::Path) -> Credential {
    credencial(sat, "30001000000500003416")
}

pub fn muestra(sat: &std::path::Path, nombre: &str) -> DocumentoSim {
    DocumentoSim::desde_xml(&std::fs::read_to_string(sat.join("samples").join(nombre)).unwrap()).unwrap()
}

/// Issued by EKU9003173C9 in 2024–2025: two with a TFD by SAT's test stamping certificate.
pub const EMITIDOS: [&str; 4] = [
    "I_EKU9003173C9_descuento_tfd.xml",
    "I_EKU9003173C9_finkok_tfd.xml",
    "E_EKU9003173C9_nota_credito_generated.xml",
    "T_EKU9003173C9_traslado_generated.xml",
];
/// UUID of `I_EKU9003173C9_finkok_tfd.xml`'s TFD.
pub fn uuid_finkok(sat: &std::path::Path) -> String {
    muestra(sat, "I_EKU9003173C9_finkok_tfd.xml").uuid
}

/// A simulator, its address, a clock shared by it and the client, and a client.
pub struct Entorno {
    pub sat: PathBuf,
    pub sim: SatSim,
    pub base: String,
    pub reloj: Arc<Mutex<OffsetDateTime>>,
    pub cliente: ClienteSat,
}

impl Entorno {
    /// Moves both clocks.
    pub fn avanzar(&self, cuanto: time::Duration) {
        let mut reloj = self.reloj.lock().unwrap();
        *reloj += cuanto;
        let ahora = *reloj;
        self.sim.configurar(|c| c.ahora = Some(ahora));
    }

    /// Another client on the same simulator and clock.
    pub fn cliente_con(&self, credencial: Credential) -> Result<ClienteSat, timbra_sat::SatError> {
        let reloj = self.reloj.clone();
        Ok(ClienteSat::new(config(&self.base, &self.sat), credencial)?
            .con_reloj(Arc::new(move || *reloj.lock().unwrap())))
    }
}

fn config(base: &str, sat: &std::path::Path) -> SatConfig {
    let mut config = SatConfig::con_base(base);
    config.pausa_verificacion = std::time::Duration::from_millis(5);
    config.carpeta_certificados = Some(sat.join("certs"));
    config
}

/// A simulator serving [`EMITIDOS`] and the other samples of EKU9003173C9, the clock at
/// [`AHORA`], and a client with the test FIEL.
pub async fn entorno(ajuste: impl FnOnce(&mut SatSimConfig)) -> Option<Entorno> {
    let sat = sat_dir()?;
    let mut sim_config = SatSimConfig { ahora: Some(AHORA), ..SatSimConfig::default() };
    sim_config.documentos = EMITIDOS.iter().map(|nombre| muestra(&sat, nombre)).collect();
    sim_config.documentos.push(muestra(&sat, "P_EKU9003173C9_pagos20.xml"));
    ajuste(&mut sim_config);
    let sim = SatSim::new(sim_config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(sim.clone().serve(listener));
    let reloj = Arc::new(Mutex::new(AHORA));
    let reloj_cliente = reloj.clone();
    let cliente = ClienteSat::new(config(&base, &sat), fiel(&sat))
        .unwrap()
        .con_reloj(Arc::new(move || *reloj_cliente.lock().unwrap()));
    Some(Entorno { sat, sim, base, reloj, cliente })
}
