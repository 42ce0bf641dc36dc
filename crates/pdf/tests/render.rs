//! Renders real stamped CFDI (built, sealed and stamped here with generated test
//! certificates; pinned dates) and reads the PDF back with the tools a person would use:
//! `pdftotext` for the text, `pdftoppm` + `zbarimg` for the QR code.
//!
//! Without poppler-utils or zbar-tools the checks that need them are skipped with a notice,
//! unless `TIMBRA_REQUIRE_SAT=1`, which turns a missing tool into a failure.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use rust_decimal::Decimal;
use timbra_cfdi::catalogos::{Exportacion, FormaPago, MetodoPago, ObjetoImp, TipoDeComprobante};
use timbra_cfdi::construccion::{NuevoComprobante, NuevoConcepto, NuevoImpuesto};
use timbra_cfdi::timbre::{self, DatosTimbre};
use timbra_cfdi::{Comprobante, Emisor, Receptor, escritura, sello};
use timbra_credentials::Credential;
use timbra_credentials::testgen::{self, Options};
use time::macros::datetime;

const UUID: &str = "6F1C2A3B-4D5E-4F60-8A7B-9C0D1E2F3A4B";
const LARGA: &str = "Servicio de consultoría en diseño de señalización para la tienda del Ñandú Alegre, \
    incluye levantamiento en sitio, propuesta gráfica, tres revisiones con el cliente, manual de \
    aplicación y supervisión de la instalación en la sucursal de Querétaro";

fn credenciales() -> &'static (Credential, Credential) {
    static CREDENCIALES: OnceLock<(Credential, Credential)> = OnceLock::new();
    CREDENCIALES.get_or_init(|| {
        let desde = datetime!(2026-01-01 0:00 UTC);
        let hasta = datetime!(2030-01-01 0:00 UTC);
        let emisor = testgen::generate(&Options::csd("EKU9003173C9", "ESCUELA KEMPER URGATE", desde, hasta)).unwrap();
        let pac = testgen::generate(&Options::csd("SPR190613I52", "SOLUCION DE PRUEBA", desde, hasta)).unwrap();
        (emisor.credential().unwrap(), pac.credential().unwrap())
    })
}

fn nueva(conceptos: Vec<NuevoConcepto>) -> NuevoComprobante {
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
            nombre: "HERRERÍA & ELÉCTRICOS MUÑOZ".into(),
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

/// Builds, seals and stamps; returns the stamped XML as it would be stored.
fn timbrar(nuevo: NuevoComprobante) -> (Comprobante, String) {
    let (emisor, pac) = credenciales();
    let mut comprobante = nuevo.construir().unwrap();
    sello::sellar(&mut comprobante, emisor).unwrap();
    let datos = DatosTimbre {
        uuid: UUID.into(),
        fecha_timbrado: "2026-11-20T10:30:05".into(),
        rfc_prov_certif: "SPR190613I52".into(),
        leyenda: None,
    };
    timbre::timbrar(&mut comprobante, datos, pac).unwrap();
    let xml = escritura::escribir(&comprobante).unwrap();
    (comprobante, xml)
}

/// Subtotal 1,064.28 + IVA 170.28 (160.00 + 10.28, rounded per line) = 1,234.56.
fn factura() -> (Comprobante, String) {
    let mut primero = NuevoConcepto::new(
        "80101500",
        Decimal::ONE,
        "E48",
        "Asesoría contable mensual",
        Decimal::new(100_000, 2),
        ObjetoImp::SiObjeto,
    );
    primero.no_identificacion = Some("ASE-001".into());
    primero.unidad = Some("Servicio".into());
    let segundo =
        NuevoConcepto::new("82101500", Decimal::TWO, "E48", LARGA, Decimal::new(3214, 2), ObjetoImp::SiObjeto);
    timbrar(nueva(vec![primero, segundo]))
}

fn temporal(nombre: &str) -> PathBuf {
    let carpeta = std::env::temp_dir().join(format!("timbra-pdf-{}-{nombre}", std::process::id()));
    std::fs::create_dir_all(&carpeta).unwrap();
    carpeta
}

/// Whether `herramienta` runs; a reported skip (a failure under TIMBRA_REQUIRE_SAT=1) when not.
fn hay(herramienta: &str) -> bool {
    timbra_testkit::tools(&[herramienta])
}

fn escribir_pdf(carpeta: &Path, pdf: &[u8]) -> PathBuf {
    let ruta = carpeta.join("cfdi.pdf");
    std::fs::write(&ruta, pdf).unwrap();
    ruta
}

fn pdftotext(ruta: &Path) -> String {
    let salida = Command::new("pdftotext").arg("-layout").arg(ruta).arg("-").output().unwrap();
    assert!(salida.status.success(), "pdftotext: {}", String::from_utf8_lossy(&salida.stderr));
    String::from_utf8(salida.stdout).unwrap()
}

fn paginas(ruta: &Path) -> usize {
    let salida = Command::new("pdfinfo").arg(ruta).output().unwrap();
    let texto = String::from_utf8(salida.stdout).unwrap();
    texto.lines().find_map(|l| l.strip_prefix("Pages:")).unwrap().trim().parse().unwrap()
}

/// Rasterizes `pagina` at 150 dpi and decodes its QR code.
fn leer_qr(ruta: &Path, pagina: usize) -> String {
    let prefijo = ruta.with_extension("");
    let estado = Command::new("pdftoppm")
        .args(["-png", "-r", "150", "-singlefile", "-f", &pagina.to_string(), "-l", &pagina.to_string()])
        .arg(ruta)
        .arg(&prefijo)
        .status()
        .unwrap();
    assert!(estado.success());
    let salida = Command::new("zbarimg").args(["--raw", "-q"]).arg(prefijo.with_extension("png")).output().unwrap();
    assert!(salida.status.success(), "zbarimg found no QR code on page {pagina}");
    String::from_utf8(salida.stdout).unwrap().trim_end_matches('\n').to_owned()
}

fn url_esperada(comprobante: &Comprobante, total: &str) -> String {
    let sello = &comprobante.sello;
    format!(
        "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id={UUID}&re=EKU9003173C9\
         &rr=H&amp;E951128469&tt={total}&fe={}",
        &sello[sello.len() - 8..]
    )
}

#[test]
fn factura_timbrada_muestra_sus_datos_fiscales() {
    let (comprobante, xml) = factura();
    assert_eq!(comprobante.total.texto(), "1234.56");
    let pdf = timbra_pdf::render_xml(&xml).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    if !hay("pdftotext") {
        return;
    }
    let carpeta = temporal("factura");
    let ruta = escribir_pdf(&carpeta, &pdf);
    let texto = pdftotext(&ruta);

    for esperado in [
        UUID,
        "EKU9003173C9",
        "ESCUELA KEMPER URGATE",
        "H&E951128469",
        "HERRERÍA & ELÉCTRICOS MUÑOZ",
        "601 - General de Ley Personas Morales",
        "G03 - Gastos en general",
        "06002",
        "86000",
        "A-1001",
        "2026-11-20 10:30:00",
        "2026-11-20 10:30:05",
        "03 - Transferencia electrónica de fondos",
        "PUE - Pago en una sola exhibición",
        "80101500",
        "ASE-001",
        "E48",
        "1,000.00",
        "32.14",
        "64.28",
        "$1,064.28",
        "IVA trasladado 16%",
        "$170.28",
        "$1,234.56",
        "MIL DOSCIENTOS TREINTA Y CUATRO PESOS 56/100 M.N.",
        "SPR190613I52",
        "Asesoría contable mensual",
        "Página 1 de 1",
        comprobante.no_certificado.as_str(),
    ] {
        assert!(texto.contains(esperado), "the PDF text lacks {esperado:?}:\n{texto}");
    }
    // The TFD cadena and both seals are printed (wrapped, so compare without line breaks).
    let seguido: String = texto.split_whitespace().collect();
    let tfd = comprobante.timbre().unwrap();
    for sello in [&comprobante.sello, &tfd.sello_sat] {
        assert!(seguido.contains(sello.as_str()), "a seal is missing or cut");
    }
    let cadena: String = timbra_cfdi::cadena::tfd_desde_xml(&xml).unwrap().split_whitespace().collect();
    assert!(seguido.contains(&cadena), "the TFD cadena original is missing");

    // The long description is wrapped over several lines inside its column, nothing lost.
    let palabras: Vec<&str> = LARGA.split_whitespace().collect();
    let linea_de = |palabra: &str| texto.lines().position(|l| l.contains(palabra)).unwrap();
    assert!(linea_de("Querétaro") > linea_de("señalización") + 1, "the description is not wrapped");
    assert!(!texto.lines().any(|l| l.contains(LARGA)), "the description was printed on one line");
    let mut desde = 0;
    for palabra in palabras {
        let posicion = texto[desde..].find(palabra).unwrap_or_else(|| panic!("{palabra:?} lost from the description"));
        desde += posicion + palabra.len();
    }

    if !hay("zbarimg") || !hay("pdftoppm") {
        return;
    }
    assert_eq!(leer_qr(&ruta, 1), url_esperada(&comprobante, "1234.56"));
    let _ = std::fs::remove_dir_all(carpeta);
}

#[test]
fn trescientos_conceptos_ocupan_varias_paginas() {
    let conceptos = (1..=300)
        .map(|i| {
            let descripcion =
                if i % 10 == 0 { format!("{LARGA} (partida {i})") } else { format!("Artículo número {i}") };
            NuevoConcepto::new(
                "43211500",
                Decimal::from(i % 7 + 1),
                "H87",
                &descripcion,
                Decimal::new(1_999 + i64::from(i), 2),
                ObjetoImp::SiObjeto,
            )
        })
        .collect();
    let mut nuevo = nueva(conceptos);
    nuevo.conceptos[0].impuestos =
        Some(vec![NuevoImpuesto::iva(Decimal::new(16, 2)), NuevoImpuesto::retencion_isr(Decimal::new(10, 2))]);
    let (comprobante, xml) = timbrar(nuevo);
    let pdf = timbra_pdf::render_xml(&xml).unwrap();
    if !hay("pdftotext") {
        return;
    }
    let carpeta = temporal("300");
    let ruta = escribir_pdf(&carpeta, &pdf);
    let total_paginas = paginas(&ruta);
    assert!(total_paginas >= 4, "300 concepts on {total_paginas} pages");
    let texto = pdftotext(&ruta);
    for pagina in 1..=total_paginas {
        assert!(texto.contains(&format!("Página {pagina} de {total_paginas}")));
    }
    // The table header is repeated on every page the table spans.
    assert!(texto.matches("Valor unitario").count() >= total_paginas - 1);
    for i in [1, 150, 299, 300] {
        let descripcion = if i % 10 == 0 { format!("(partida {i})") } else { format!("Artículo número {i}") };
        assert!(texto.contains(&descripcion), "concept {i} missing");
    }
    assert!(texto.contains("ISR retenido"));
    assert!(texto.contains(&format!("${}", agrupar(comprobante.total.texto()))));
    if !hay("zbarimg") || !hay("pdftoppm") {
        return;
    }
    let total_qr = timbre::formato_total_qr(&comprobante.total);
    assert_eq!(leer_qr(&ruta, total_paginas), url_esperada(&comprobante, &total_qr));
    let _ = std::fs::remove_dir_all(carpeta);
}

fn agrupar(texto: &str) -> String {
    let (entero, decimales) = texto.split_once('.').unwrap();
    let mut salida = String::new();
    for (i, c) in entero.chars().enumerate() {
        if i > 0 && (entero.len() - i) % 3 == 0 {
            salida.push(',');
        }
        salida.push(c);
    }
    format!("{salida}.{decimales}")
}

#[test]
fn dolares_con_tipo_de_cambio() {
    let mut nuevo = nueva(vec![NuevoConcepto::new(
        "43211500",
        Decimal::ONE,
        "H87",
        "Equipo de cómputo",
        Decimal::new(1_000_000, 0),
        ObjetoImp::NoObjeto,
    )]);
    nuevo.moneda = "USD".into();
    nuevo.tipo_cambio = Some(Decimal::new(175_432, 4));
    let (_, xml) = timbrar(nuevo);
    let pdf = timbra_pdf::render_xml(&xml).unwrap();
    if !hay("pdftotext") {
        return;
    }
    let carpeta = temporal("usd");
    let texto = pdftotext(&escribir_pdf(&carpeta, &pdf));
    assert!(texto.contains("UN MILLÓN DE DÓLARES 00/100 USD"), "{texto}");
    assert!(texto.contains("17.5432"));
    assert!(texto.contains("$1,000,000.00"));
    let _ = std::fs::remove_dir_all(carpeta);
}

#[test]
fn pagos_y_nomina_se_imprimen() {
    let pagos = include_str!("../../cfdi/tests/golden/P_pagos20.xml");
    let nomina = include_str!("../../cfdi/tests/golden/N_nomina12.xml");
    let pdf_pagos = timbra_pdf::render_xml(pagos).unwrap();
    let pdf_nomina = timbra_pdf::render_xml(nomina).unwrap();
    if !hay("pdftotext") {
        return;
    }
    let carpeta = temporal("complementos");
    let texto = pdftotext(&escribir_pdf(&carpeta, &pdf_pagos));
    let comprobante = timbra_cfdi::parser::parsear(pagos).unwrap();
    let pago = comprobante.pagos().unwrap();
    assert!(texto.contains("RECIBO ELECTRÓNICO DE PAGO"));
    assert!(texto.contains("COMPLEMENTO PARA RECEPCIÓN DE PAGOS 2.0"));
    assert!(texto.contains(&pago.pagos[0].doctos_relacionados[0].id_documento));
    assert!(texto.contains(comprobante.timbre().unwrap().uuid.as_str()));

    let ruta_nomina = escribir_pdf(&carpeta, &pdf_nomina);
    let texto = pdftotext(&ruta_nomina);
    let comprobante = timbra_cfdi::parser::parsear(nomina).unwrap();
    assert!(texto.contains("RECIBO DE NÓMINA"));
    assert!(texto.contains("COMPLEMENTO DE NÓMINA 1.2"));
    assert!(texto.contains(&comprobante.nominas().next().unwrap().receptor.curp));
    // The receipt's lines, each with its amounts, and the net pay.
    for esperado in [
        "04 - Quincenal",
        "01 - Por tiempo indeterminado",
        "P358W",
        "B5510768108",
        "PERCEPCIONES",
        "Vales de despensa",
        "14,000.00",
        "1,000.00",
        "DEDUCCIONES",
        "2,040.00",
        "350.55",
        "OTROS PAGOS",
        "Subsidio para el empleo",
        "Neto a pagar",
        "$12,609.45",
        "DOCE MIL SEISCIENTOS NUEVE PESOS 45/100 M.N.",
    ] {
        assert!(texto.contains(esperado), "{esperado:?} missing from the receipt:\n{texto}");
    }
    if hay("zbarimg") && hay("pdftoppm") {
        let tfd = comprobante.timbre().unwrap();
        let sello = &comprobante.sello;
        let url = format!(
            "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id={}&re=EKU9003173C9&rr=XIQB891116QE4\
             &tt=12609.45&fe={}",
            tfd.uuid,
            &sello[sello.len() - 8..]
        );
        assert_eq!(leer_qr(&ruta_nomina, paginas(&ruta_nomina)), url);
    }
    let _ = std::fs::remove_dir_all(carpeta);
}

#[test]
fn sin_timbre_o_xml_invalido_es_un_error_claro() {
    let (emisor, _) = credenciales();
    let mut comprobante =
        nueva(vec![NuevoConcepto::new("43211500", Decimal::ONE, "H87", "Artículo", Decimal::TEN, ObjetoImp::SiObjeto)])
            .construir()
            .unwrap();
    sello::sellar(&mut comprobante, emisor).unwrap();
    assert!(matches!(timbra_pdf::render(&comprobante), Err(timbra_pdf::PdfError::SinTimbre)));
    assert!(matches!(timbra_pdf::render_xml("<no-es-cfdi/>"), Err(timbra_pdf::PdfError::Xml(_))));
    assert!(matches!(timbra_pdf::render_xml("<<<"), Err(timbra_pdf::PdfError::Xml(_))));
}

#[test]
fn textos_raros_no_rompen_el_pdf() {
    // A single 3,000-character word, characters outside the font, a very long name.
    let enorme = "X".repeat(3000);
    let mut nuevo = nueva(vec![
        NuevoConcepto::new("43211500", Decimal::ONE, "H87", &enorme, Decimal::TEN, ObjetoImp::SiObjeto),
        NuevoConcepto::new("43211500", Decimal::ONE, "H87", "漢字 テスト 🙂 ∑", Decimal::TEN, ObjetoImp::SiObjeto),
    ]);
    nuevo.receptor.nombre = "Ñ".repeat(250);
    let (_, xml) = timbrar(nuevo);
    let pdf = timbra_pdf::render_xml(&xml).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
}

/// A sandbox document carries the mark on every page, its QR names no SAT URL and its SAT seal
/// is labelled as a test seal; the same XML rendered live has none of that (issue 38).
#[test]
fn sandbox_lleva_la_marca_en_cada_pagina_y_su_qr_no_apunta_al_sat() {
    let conceptos = (1..=80)
        .map(|i| {
            NuevoConcepto::new(
                "43211500",
                Decimal::ONE,
                "H87",
                &format!("{LARGA} (partida {i})"),
                Decimal::new(10_000, 2),
                ObjetoImp::SiObjeto,
            )
        })
        .collect();
    let (comprobante, xml) = timbrar(nueva(conceptos));
    let sandbox = timbra_pdf::render_xml_sandbox(&xml).unwrap();
    let live = timbra_pdf::render_xml(&xml).unwrap();
    if !hay("pdftotext") {
        return;
    }
    let carpeta = temporal("sandbox");
    let ruta = escribir_pdf(&carpeta, &sandbox);
    let total_paginas = paginas(&ruta);
    assert!(total_paginas >= 3, "80 long concepts on {total_paginas} pages");
    for pagina in 1..=total_paginas {
        let salida = Command::new("pdftotext")
            .args(["-layout", "-f", &pagina.to_string(), "-l", &pagina.to_string()])
            .arg(&ruta)
            .arg("-")
            .output()
            .unwrap();
        let texto = String::from_utf8(salida.stdout).unwrap();
        assert!(texto.contains(timbra_pdf::MARCA_PRUEBAS), "page {pagina} lacks the sandbox mark:\n{texto}");
    }
    let texto = pdftotext(&ruta);
    assert!(texto.contains("Sello digital del SAT: sello de pruebas (sandbox)"), "{texto}");
    assert!(!texto.contains("sat.gob.mx"), "{texto}");

    let ruta_live = carpeta.join("live.pdf");
    std::fs::write(&ruta_live, &live).unwrap();
    let texto_live = pdftotext(&ruta_live);
    assert!(!texto_live.contains("PRUEBAS") && !texto_live.contains("sandbox"), "{texto_live}");
    assert!(texto_live.contains("Sello digital del SAT"));

    if !hay("zbarimg") || !hay("pdftoppm") {
        return;
    }
    let qr = leer_qr(&ruta, total_paginas);
    assert!(qr.starts_with("PRUEBAS - SIN VALIDEZ FISCAL") && qr.contains(UUID), "{qr}");
    assert!(!qr.contains("sat.gob.mx") && !qr.contains("http"), "{qr}");
    let total_qr = timbre::formato_total_qr(&comprobante.total);
    assert_eq!(leer_qr(&ruta_live, paginas(&ruta_live)), url_esperada(&comprobante, &total_qr));
    let _ = std::fs::remove_dir_all(carpeta);
}

#[test]
fn pagos_y_nomina_de_sandbox_llevan_la_marca() {
    let carpeta = temporal("sandbox-complementos");
    for xml in
        [include_str!("../../cfdi/tests/golden/P_pagos20.xml"), include_str!("../../cfdi/tests/golden/N_nomina12.xml")]
    {
        let pdf = timbra_pdf::render_xml_sandbox(xml).unwrap();
        if !hay("pdftotext") {
            return;
        }
        let texto = pdftotext(&escribir_pdf(&carpeta, &pdf));
        assert!(texto.contains(timbra_pdf::MARCA_PRUEBAS) && !texto.contains("sat.gob.mx"), "{texto}");
    }
    let _ = std::fs::remove_dir_all(carpeta);
}
