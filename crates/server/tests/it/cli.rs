//! `timbra cfdi …` on SAT's sample invoices (read from `$TIMBRA_SAT_DIR` or ../shared/sat at run time).

use std::path::PathBuf;
use std::process::Command;

/// SAT's files with the samples; `None` after a reported skip: the command line is not checked.
fn sat_dir() -> Option<PathBuf> {
    timbra_testkit::sat("samples/I_ISD950921HE5_real_tfd.xml")
}

fn timbra(args: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_timbra")).args(args).output().unwrap();
    (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn cadena_verify_and_validate_sat_samples() {
    let Some(sat) = sat_dir() else { return };
    let sample = sat.join("samples/I_ISD950921HE5_real_tfd.xml");
    let sample = sample.to_str().unwrap();
    let expected = std::fs::read_to_string(sat.join("samples/expected/I_ISD950921HE5_real_tfd.cadena.txt")).unwrap();
    assert_eq!(timbra(&["cfdi", "cadena", sample]), (0, expected));
    let expected_tfd =
        std::fs::read_to_string(sat.join("samples/expected/I_ISD950921HE5_real_tfd.tfd_cadena.txt")).unwrap();
    assert_eq!(timbra(&["cfdi", "cadena", "--tfd", sample]), (0, expected_tfd));

    let sat_cert = sat.join("certs/00001000000708361114.cer");
    let (status, out) = timbra(&["cfdi", "verify", sample, "--sat-cert", sat_cert.to_str().unwrap()]);
    assert!(out.contains("sello: ok") && out.contains("timbre: ok"), "{out}");
    assert_eq!(status, i32::from(!out.contains("validation: ok")), "{out}");

    let bad = sat.join("samples/NEG_I_HE951128469_bad_sello.xml");
    let (status, out) = timbra(&["cfdi", "verify", bad.to_str().unwrap()]);
    assert_eq!(status, 1, "{out}");
    assert!(out.contains("sello: FAILED"), "{out}");

    let (status, _) = timbra(&["cfdi", "cadena", "/nonexistent.xml"]);
    assert_eq!(status, 2);

    // validate checks SAT's catalogs as the service ships them: a ClaveProdServ SAT does not
    // have is CFDI40162, as a sandbox stamp would answer (not a skipped check).
    let xml = std::fs::read_to_string(sat.join("samples/I_ISD950921HE5_real_tfd.xml")).unwrap();
    let otra = std::env::temp_dir().join(format!("timbra-cli-clave-{}.xml", std::process::id()));
    std::fs::write(&otra, xml.replace("ClaveProdServ=\"80141628\"", "ClaveProdServ=\"80141699\"")).unwrap();
    let (status, out) = timbra(&["cfdi", "validate", otra.to_str().unwrap()]);
    std::fs::remove_file(&otra).unwrap();
    assert_eq!(status, 1, "{out}");
    assert!(out.contains("catalogs: SAT's edition 20"), "{out}");
    assert!(out.lines().any(|line| line.starts_with("CFDI40162 ")), "{out}");
}

/// `timbra sim sat` end to end: the binary serves a folder of CFDI on loopback and
/// `timbra-sat`'s client authenticates, requests, polls, downloads and reads the package.
#[tokio::test]
async fn sim_sat_serves_a_folder_to_the_sat_client() {
    use std::io::{BufRead, BufReader};
    use std::sync::Arc;

    use timbra_sat::{ClienteSat, EstadoSello, EstadoTimbre, Periodo, SatConfig, SolicitudEmitidos, TipoSolicitud};
    use time::macros::datetime;

    let Some(sat) = sat_dir() else { return };
    let folder = std::env::temp_dir().join(format!("timbra-sim-sat-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    for name in ["I_EKU9003173C9_finkok_tfd.xml", "I_EKU9003173C9_descuento_tfd.xml"] {
        std::fs::copy(sat.join("samples").join(name), folder.join(name)).unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_timbra"))
        .args(["sim", "sat", "--listen", "127.0.0.1:0", "--now", "2026-11-20T18:00:00Z", "--polls-accepted", "0"])
        .args(["--polls-in-process", "1", "--xml-dir", folder.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let base = line.split_whitespace().find(|word| word.starts_with("http://")).unwrap().to_owned();
    assert!(line.contains("(2 CFDI)"), "{line}");

    let read = |name: &str| std::fs::read(sat.join("certs").join(name)).unwrap();
    let fiel = timbra_credentials::Credential::open(
        &read("30001000000500003415.cer"),
        &read("30001000000500003415.key"),
        b"12345678a",
    )
    .unwrap();
    let mut config = SatConfig::con_base(&base);
    config.pausa_verificacion = std::time::Duration::from_millis(10);
    config.carpeta_certificados = Some(sat.join("certs"));
    let client = ClienteSat::new(config, fiel).unwrap().con_reloj(Arc::new(|| datetime!(2026-11-20 18:00:30 UTC)));
    let request = SolicitudEmitidos {
        periodo: Periodo::new(datetime!(2024-01-01 00:00:00), datetime!(2025-12-31 23:59:59), TipoSolicitud::Cfdi),
        rfc_receptores: vec![],
    };
    let outcome = async {
        let accepted = client.solicitar_emitidos(&request).await?;
        let verified = client.esperar(&accepted.id_solicitud, 3).await?;
        let package = client.descargar(&verified.ids_paquetes[0]).await?;
        client.leer_paquete(&package)
    }
    .await;
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&folder);
    let package = outcome.unwrap();
    assert_eq!(package.documentos.len(), 2);
    for document in &package.documentos {
        assert_eq!(document.sello, EstadoSello::Verificado);
        assert_eq!(document.timbre, EstadoTimbre::Verificado { no_certificado_sat: "30001000000500003456".into() });
    }
}
