//! Golden files: representative invoices built by the crate, sealed with the project's own
//! test CSD (`tests/golden/csd`, generated with openssl; never a SAT certificate), some
//! stamped with the project's test "PAC" key, and checked with xmllint, xsltproc and
//! openssl. The same documents are also sealed at run time with SAT's EKU9003173C9 test CSD
//! in a temporary directory.

use std::path::{Path, PathBuf};

use timbra_cfdi::timbre::{self, DatosTimbre};
use timbra_cfdi::{Comprobante, escritura, parser, sello};

use crate::comun::sat;
use crate::documentos;
use crate::oraculo::{FirmanteOpenssl, dir_temporal, verificar_lote};

fn dir_golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn firmante_proyecto() -> FirmanteOpenssl {
    let csd = dir_golden().join("csd");
    FirmanteOpenssl::new(&csd.join("emisor.key.pem"), &csd.join("emisor.cer"))
}

fn firmante_pac() -> FirmanteOpenssl {
    let csd = dir_golden().join("csd");
    FirmanteOpenssl::new(&csd.join("pac.key.pem"), &csd.join("pac.cer"))
}

/// Seals every document (and stamps I_iva16, P and N) and returns (name, xml, cadena).
fn sellar_todos(firmante: &FirmanteOpenssl) -> Vec<(String, String, String)> {
    let pac = firmante_pac();
    documentos::todos()
        .into_iter()
        .enumerate()
        .map(|(indice, (nombre, mut comprobante)): (usize, (&str, Comprobante))| {
            let informe = timbra_cfdi::validacion::validar(&comprobante, &timbra_cfdi::catalogos::SinCatalogos);
            assert!(informe.es_valido(), "{nombre}: {:?}", informe.problemas);
            let cadena = sello::sellar(&mut comprobante, firmante).unwrap();
            if matches!(nombre, "I_iva16" | "P_pagos20" | "N_nomina12") {
                let datos = DatosTimbre {
                    uuid: format!("5F2A8C3E-1B7D-4E9A-9C0F-3D6B8A2E71{indice:02}"),
                    fecha_timbrado: "2026-11-20T10:31:00".into(),
                    rfc_prov_certif: "SPR190613I52".into(),
                    leyenda: None,
                };
                timbre::timbrar(&mut comprobante, datos, &pac).unwrap();
            }
            (nombre.to_owned(), escritura::escribir(&comprobante).unwrap(), cadena)
        })
        .collect()
}

fn escribir(dir: &Path, documentos: &[(String, String, String)]) -> Vec<PathBuf> {
    documentos
        .iter()
        .map(|(nombre, xml, _)| {
            let ruta = dir.join(format!("{nombre}.xml"));
            std::fs::write(&ruta, xml).unwrap();
            ruta
        })
        .collect()
}

#[test]
fn golden_con_csd_del_proyecto() {
    let documentos = sellar_todos(&firmante_proyecto());
    let golden = dir_golden();
    if std::env::var("TIMBRA_ACTUALIZAR_GOLDEN").as_deref() == Ok("1") {
        escribir(&golden, &documentos);
    }
    let mut diferentes = Vec::new();
    for (nombre, xml, _) in &documentos {
        let guardado = std::fs::read_to_string(golden.join(format!("{nombre}.xml")))
            .unwrap_or_else(|_| panic!("falta tests/golden/{nombre}.xml (TIMBRA_ACTUALIZAR_GOLDEN=1 lo crea)"));
        if &guardado != xml {
            diferentes.push(nombre.clone());
        }
        // The Rust verifier agrees with openssl on the committed seal.
        timbra_cfdi::sello::verificar_sello_xml(&guardado).unwrap_or_else(|e| panic!("{nombre}: {e}"));
        // The committed file parses back to the same model and re-serialises identically.
        assert_eq!(
            escritura::escribir(&parser::parsear(&guardado).unwrap()).unwrap(),
            guardado,
            "{nombre}: ida y vuelta"
        );
    }
    assert!(diferentes.is_empty(), "golden distintos (TIMBRA_ACTUALIZAR_GOLDEN=1 para regenerar): {diferentes:?}");

    let Some(sat) = sat() else { return };
    let dir = dir_temporal("golden");
    let archivos: Vec<PathBuf> = documentos.iter().map(|(nombre, ..)| golden.join(format!("{nombre}.xml"))).collect();
    // Work on copies so the oracle's output files stay out of the source tree.
    let copias = escribir(&dir, &documentos);
    assert_eq!(archivos.len(), copias.len());
    let cadenas: Vec<String> = documentos.iter().map(|(_, _, cadena)| cadena.clone()).collect();
    verificar_lote(&sat, &dir, &copias, &cadenas, Some(&firmante_pac().certificado_der));
}

#[test]
fn mismos_documentos_con_csd_sat() {
    let Some(sat) = sat() else { return };
    let dir = dir_temporal("sat-csd");
    let firmante = FirmanteOpenssl::desde_sat(
        &sat.join("certs/30001000000500003416.cer"),
        &sat.join("certs/30001000000500003416.key"),
        "12345678a",
        &dir,
    );
    assert_eq!(firmante.no_certificado, "30001000000500003416");
    let documentos = sellar_todos(&firmante);
    let archivos = escribir(&dir, &documentos);
    let cadenas: Vec<String> = documentos.iter().map(|(_, _, cadena)| cadena.clone()).collect();
    verificar_lote(&sat, &dir, &archivos, &cadenas, Some(&firmante_pac().certificado_der));
}
