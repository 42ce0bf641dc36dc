//! What full validation adds to a stamp (issue 29's "stays within 5% of the ratio"): the time
//! of `validar_con` with SAT's catalogs held (the shipped edition) on the bench's invoice
//! (2 conceptos) and on one of 20, against the time of the two RSA-2048 signatures every stamp
//! makes (CSD seal and TFD), measured in the same run on one core.
//! `cargo run --release -p timbra-services --example validacion_costo`

use std::time::{Duration, Instant};

use rust_decimal::Decimal;
use timbra_cfdi::catalogos::{Exportacion, FormaPago, MetodoPago, ObjetoImp, TipoDeComprobante};
use timbra_cfdi::construccion::{NuevoComprobante, NuevoConcepto};
use timbra_cfdi::{Emisor, Receptor, validacion};
use timbra_credentials::Credential;
use timbra_credentials::testgen::{self, Options};
use timbra_services::catalogos::{CatalogosSat, Origen};
use time::macros::datetime;

fn factura(conceptos: usize) -> anyhow::Result<timbra_cfdi::Comprobante> {
    NuevoComprobante {
        tipo: TipoDeComprobante::Ingreso,
        serie: Some("A".into()),
        folio: Some("1".into()),
        fecha: "2026-11-28T10:00:00".into(),
        forma_pago: Some(FormaPago::TransferenciaElectronica),
        metodo_pago: Some(MetodoPago::Pue),
        condiciones_de_pago: None,
        moneda: "MXN".into(),
        tipo_cambio: None,
        exportacion: Exportacion::NoAplica,
        lugar_expedicion: "42501".into(),
        emisor: Emisor {
            rfc: "EKU9003173C9".into(),
            nombre: "ESCUELA KEMPER URGATE".into(),
            regimen_fiscal: "601".into(),
            fac_atr_adquirente: None,
        },
        receptor: Receptor {
            rfc: "XIQB891116QE4".into(),
            nombre: "XIMENA QUIROZ BARRAGAN".into(),
            domicilio_fiscal_receptor: "42501".into(),
            residencia_fiscal: None,
            num_reg_id_trib: None,
            regimen_fiscal_receptor: "626".into(),
            uso_cfdi: "G03".into(),
        },
        informacion_global: None,
        cfdi_relacionados: Vec::new(),
        conceptos: (0..conceptos)
            .map(|i| {
                NuevoConcepto::new(
                    "81112100",
                    Decimal::from(i + 1),
                    "E48",
                    "Servicio de timbrado",
                    Decimal::new(150_050, 2),
                    ObjetoImp::SiObjeto,
                )
            })
            .collect(),
        impuestos_locales: None,
        complementos: Vec::new(),
    }
    .construir()
    .map_err(|e| anyhow::anyhow!("the bench invoice: {e:?}"))
}

fn por_vez(total: Duration, veces: u32) -> f64 {
    total.as_secs_f64() * 1e6 / f64::from(veces)
}

fn main() -> anyhow::Result<()> {
    let catalogos = CatalogosSat::de_paquete(timbra_catalogos::paquete::INCLUIDO, Origen::Incluida)?;
    let contexto = validacion::Contexto { certificacion: Some(datetime!(2026-11-28 10:00:05)) };
    let generado = testgen::generate(&Options::csd(
        "EKU9003173C9",
        "ESCUELA KEMPER URGATE",
        datetime!(2026-01-01 0:00 UTC),
        datetime!(2030-01-01 0:00 UTC),
    ))?;
    let credencial = Credential::open(&generado.cer_der, &generado.key_der_encrypted, &generado.password)?;
    let firmas = 400;
    let inicio = Instant::now();
    for i in 0..firmas {
        std::hint::black_box(credencial.sign_sha256(format!("cadena {i}").as_bytes())?);
    }
    let firma_us = por_vez(inicio.elapsed(), firmas);
    println!("RSA-2048 signature: {firma_us:.1} µs; a stamp signs twice: {:.1} µs", 2.0 * firma_us);
    for conceptos in [2, 20] {
        let comprobante = factura(conceptos)?;
        let informe = validacion::validar_con(&comprobante, &*catalogos.indice, contexto);
        anyhow::ensure!(informe.es_valido(), "{:?}", informe.problemas);
        let veces = 20_000;
        let inicio = Instant::now();
        for _ in 0..veces {
            std::hint::black_box(validacion::validar_con(
                std::hint::black_box(&comprobante),
                &*catalogos.indice,
                contexto,
            ));
        }
        let validar_us = por_vez(inicio.elapsed(), veces);
        println!(
            "validar_con, {conceptos} conceptos, SAT's catalogs: {validar_us:.1} µs = {:.2}% of the two signatures",
            100.0 * validar_us / (2.0 * firma_us)
        );
    }
    Ok(())
}
