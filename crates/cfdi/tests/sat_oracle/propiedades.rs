//! Property test with the oracle: random valid invoices, built by the crate, always satisfy
//! SAT's sum rules (validation) and pass xmllint, xsltproc (cadena equality) and openssl
//! (seal verification). Batched: one xmllint call for all of them.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use rust_decimal::Decimal;
use timbra_cfdi::catalogos::{FormaPago, MetodoPago, ObjetoImp, SinCatalogos, TipoDeComprobante};
use timbra_cfdi::construccion::{NuevoComprobante, NuevoConcepto, NuevoImpuesto};
use timbra_cfdi::{Receptor, escritura, sello, validacion};

use crate::comun::sat;
use crate::documentos;
use crate::oraculo::{FirmanteOpenssl, dir_temporal, verificar_lote};

fn decimal(maximo: i64, escala: u32) -> impl Strategy<Value = Decimal> {
    (1..maximo).prop_map(move |n| Decimal::new(n, escala))
}

fn texto() -> impl Strategy<Value = String> {
    // SAT texts: letters, Ñ, accents, XML specials and whitespace runs that the cadena
    // collapses.
    proptest::string::string_regex("[A-Za-z0-9ÑñÁé&<>\"' \t]{1,40}")
        .unwrap()
        .prop_filter("no vacío tras normalizar", |s| !s.trim().is_empty())
}

fn impuestos() -> impl Strategy<Value = Option<Vec<NuevoImpuesto>>> {
    let iva = prop_oneof![
        Just(NuevoImpuesto::iva(Decimal::new(16, 2))),
        Just(NuevoImpuesto::iva(Decimal::new(8, 2))),
        Just(NuevoImpuesto::iva(Decimal::ZERO)),
        Just(NuevoImpuesto::iva_exento()),
    ];
    let ieps = proptest::option::of(prop_oneof![
        Just(NuevoImpuesto::ieps_tasa(Decimal::new(8, 2))),
        Just(NuevoImpuesto::ieps_tasa(Decimal::new(265, 3))),
        Just(NuevoImpuesto::ieps_cuota(Decimal::new(61752, 4))),
    ]);
    let isr = proptest::option::of(Just(NuevoImpuesto::retencion_isr(Decimal::new(10, 2))));
    let ret_iva = proptest::option::of(Just(NuevoImpuesto::retencion_iva(Decimal::new(106_667, 6))));
    prop_oneof![
        Just(None),
        (iva, ieps, isr, ret_iva).prop_map(|(iva, ieps, isr, ret_iva)| {
            let mut lista: Vec<NuevoImpuesto> = ieps.into_iter().collect();
            lista.push(iva);
            lista.extend(isr);
            lista.extend(ret_iva);
            Some(lista)
        }),
    ]
}

fn concepto() -> impl Strategy<Value = NuevoConcepto> {
    (
        decimal(100_000, 3),
        decimal(10_000_000, 4),
        proptest::option::of(0u32..90),
        prop_oneof![Just(ObjetoImp::SiObjeto), Just(ObjetoImp::NoObjeto), Just(ObjetoImp::SiObjetoNoObligadoDesglose)],
        impuestos(),
        texto(),
    )
        // Ten units of any currency at least: JPY has no decimals, so a taxed line worth a yen or
        // less (after a discount of up to 89%) has a base that rounds to zero, which SAT (and the
        // builder) refuse.
        .prop_filter("importe de al menos diez unidades", |(cantidad, valor, ..)| *cantidad * *valor >= Decimal::TEN)
        .prop_map(|(cantidad, valor, descuento, objeto, impuestos, descripcion)| {
            let mut c = NuevoConcepto::new("01010101", cantidad, "H87", &descripcion, valor, objeto);
            // A discount below 90% of the amount keeps every tax base positive.
            c.descuento = descuento.map(|pct| (cantidad * valor * Decimal::new(i64::from(pct), 2)).round_dp(2));
            c.impuestos = if objeto == ObjetoImp::SiObjeto { impuestos } else { None };
            c
        })
}

fn comprobante() -> impl Strategy<Value = NuevoComprobante> {
    (
        proptest::collection::vec(concepto(), 1..6),
        prop_oneof![
            Just(("MXN", None)),
            Just(("USD", Some(Decimal::new(172_545, 4)))),
            Just(("JPY", Some(Decimal::new(1_234, 4)))),
            Just(("KWD", Some(Decimal::new(56_123_456, 6))))
        ],
        any::<bool>(),
        prop_oneof![Just(TipoDeComprobante::Ingreso), Just(TipoDeComprobante::Egreso)],
        texto(),
    )
        .prop_map(|(conceptos, (moneda, tipo_cambio), ppd, tipo, nombre)| {
            let mut c = documentos::ingreso(conceptos);
            c.tipo = tipo;
            c.moneda = moneda.into();
            c.tipo_cambio = tipo_cambio;
            if ppd {
                c.metodo_pago = Some(MetodoPago::Ppd);
                c.forma_pago = Some(FormaPago::PorDefinir);
            }
            c.condiciones_de_pago = Some(nombre.clone());
            c.receptor = Receptor { nombre, ..documentos::receptor_fisica() };
            c
        })
}

#[test]
fn facturas_aleatorias_pasan_los_tres_oraculos() {
    let casos: usize = std::env::var("TIMBRA_CASOS").ok().and_then(|c| c.parse().ok()).unwrap_or(120);
    let mut runner = TestRunner::new(Config::default());
    let estrategia = comprobante();
    let mut comprobantes = Vec::with_capacity(casos);
    for _ in 0..casos {
        let nuevo = estrategia.new_tree(&mut runner).unwrap().current();
        let comprobante = nuevo.clone().construir().unwrap_or_else(|e| panic!("{e}: {nuevo:?}"));
        // SAT's sum rules hold for every built invoice.
        let informe = validacion::validar(&comprobante, &SinCatalogos);
        assert!(informe.es_valido(), "{:?}\n{nuevo:?}", informe.problemas);
        comprobantes.push(comprobante);
    }
    let Some(sat) = sat() else { return };
    let dir = dir_temporal("propiedades");
    let csd = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/csd");
    let firmante = FirmanteOpenssl::new(&csd.join("emisor.key.pem"), &csd.join("emisor.cer"));
    let mut archivos = Vec::new();
    let mut cadenas = Vec::new();
    for (indice, mut comprobante) in comprobantes.into_iter().enumerate() {
        cadenas.push(sello::sellar(&mut comprobante, &firmante).unwrap());
        let ruta = dir.join(format!("caso{indice:03}.xml"));
        std::fs::write(&ruta, escritura::escribir(&comprobante).unwrap()).unwrap();
        archivos.push(ruta);
    }
    verificar_lote(&sat, &dir, &archivos, &cadenas, None);
}
