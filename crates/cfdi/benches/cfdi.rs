//! Benchmarks: build + cadena + seal of a 10-line invoice, cadena alone, parse of a received
//! CFDI with TFD, and raw RSA-2048 signing for comparison.
//!
//! `cargo bench -p timbra-cfdi --bench cfdi`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rust_decimal::Decimal;
use timbra_cfdi::catalogos::{Exportacion, FormaPago, MetodoPago, ObjetoImp, TipoDeComprobante};
use timbra_cfdi::construccion::{NuevoComprobante, NuevoConcepto, NuevoImpuesto};
use timbra_cfdi::sello::{self, Firmante};
use timbra_cfdi::{Emisor, Receptor, cadena, escritura, parser};

const LLAVE_PEM: &str = include_str!("../tests/golden/csd/emisor.key.pem");
const CERTIFICADO: &[u8] = include_bytes!("../tests/golden/csd/emisor.cer");
const RECIBIDO: &str = include_str!("../tests/golden/I_iva16.xml");

struct FirmanteAwsLc {
    llave: RsaKeyPair,
    certificado: String,
}

impl FirmanteAwsLc {
    fn new() -> Self {
        let cuerpo: String = LLAVE_PEM.lines().filter(|l| !l.starts_with("-----")).collect();
        let der = STANDARD.decode(cuerpo).unwrap();
        Self { llave: RsaKeyPair::from_pkcs8(&der).unwrap(), certificado: STANDARD.encode(CERTIFICADO) }
    }
}

impl Firmante for FirmanteAwsLc {
    fn no_certificado(&self) -> String {
        "99990000000000000001".into()
    }
    fn certificado_base64(&self) -> String {
        self.certificado.clone()
    }
    fn firmar_sha256(&self, mensaje: &[u8]) -> Result<Vec<u8>, String> {
        let mut firma = vec![0; self.llave.public_modulus_len()];
        self.llave.sign(&RSA_PKCS1_SHA256, &SystemRandom::new(), mensaje, &mut firma).map_err(|e| e.to_string())?;
        Ok(firma)
    }
}

fn factura_10_conceptos() -> NuevoComprobante {
    let conceptos = (0..10)
        .map(|i| {
            let mut c = NuevoConcepto::new(
                "43211500",
                Decimal::new(i64::from(i) + 1, 0),
                "H87",
                "Computadora portátil con garantía extendida & accesorios",
                Decimal::new(1_599_999 + i64::from(i) * 137, 2),
                ObjetoImp::SiObjeto,
            );
            if i % 3 == 0 {
                c.descuento = Some(Decimal::new(5000, 2));
            }
            if i % 4 == 0 {
                c.impuestos = Some(vec![
                    NuevoImpuesto::iva(Decimal::new(16, 2)),
                    NuevoImpuesto::retencion_isr(Decimal::new(10, 2)),
                ]);
            }
            c
        })
        .collect();
    NuevoComprobante {
        tipo: TipoDeComprobante::Ingreso,
        serie: Some("A".into()),
        folio: Some("1001".into()),
        fecha: "2026-11-20T10:30:00".into(),
        forma_pago: Some(FormaPago::TransferenciaElectronica),
        metodo_pago: Some(MetodoPago::Pue),
        condiciones_de_pago: None,
        moneda: "MXN".into(),
        tipo_cambio: None,
        exportacion: Exportacion::NoAplica,
        lugar_expedicion: "86000".into(),
        emisor: Emisor {
            rfc: "EKU9003173C9".into(),
            nombre: "ESCUELA KEMPER URGATE".into(),
            regimen_fiscal: "601".into(),
            fac_atr_adquirente: None,
        },
        receptor: Receptor {
            rfc: "H&E951128469".into(),
            nombre: "HERRERIA & ELECTRICOS".into(),
            domicilio_fiscal_receptor: "06002".into(),
            residencia_fiscal: None,
            num_reg_id_trib: None,
            regimen_fiscal_receptor: "601".into(),
            uso_cfdi: "G03".into(),
        },
        informacion_global: None,
        cfdi_relacionados: Vec::new(),
        conceptos,
        impuestos_locales: None,
        complementos: Vec::new(),
    }
}

fn benches(c: &mut Criterion) {
    let firmante = FirmanteAwsLc::new();
    let nuevo = factura_10_conceptos();

    let mut grupo = c.benchmark_group("cfdi");
    grupo.throughput(Throughput::Elements(1));
    grupo.bench_function("rsa2048_firma_sola", |b| {
        let mensaje = vec![b'|'; 2048];
        b.iter(|| firmante.firmar_sha256(black_box(&mensaje)).unwrap());
    });
    grupo.bench_function("construir_cadena_sellar_xml_10_conceptos", |b| {
        b.iter(|| {
            let mut comprobante = black_box(nuevo.clone()).construir().unwrap();
            sello::sellar(&mut comprobante, &firmante).unwrap();
            escritura::escribir(&comprobante)
        });
    });
    grupo.bench_function("construir_cadena_xml_sin_firma_10_conceptos", |b| {
        b.iter(|| {
            let comprobante = black_box(nuevo.clone()).construir().unwrap();
            let cadena = cadena::desde_comprobante(&comprobante).unwrap();
            (cadena, escritura::escribir(&comprobante))
        });
    });
    let mut sellado = nuevo.clone().construir().unwrap();
    sello::sellar(&mut sellado, &firmante).unwrap();
    let xml = escritura::escribir(&sellado).unwrap();
    grupo.bench_function("cadena_desde_modelo_10_conceptos", |b| {
        b.iter(|| cadena::desde_comprobante(black_box(&sellado)).unwrap())
    });
    grupo.bench_function("cadena_desde_xml_10_conceptos", |b| b.iter(|| cadena::desde_xml(black_box(&xml)).unwrap()));
    grupo.bench_function("parsear_cfdi_recibido_con_tfd", |b| b.iter(|| parser::parsear(black_box(RECIBIDO)).unwrap()));
    grupo.finish();
    std::fs::write(std::env::temp_dir().join("timbra-bench-10-conceptos.xml"), xml).unwrap();
}

criterion_group!(cfdi, benches);
criterion_main!(cfdi);
