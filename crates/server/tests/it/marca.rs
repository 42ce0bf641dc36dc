//! Branded PDFs (issue 32): the logo (checked, re-encoded, visible with `pdfimages -list`), the
//! primary color on the section bars (pixels of the rendered page), the footer note and the
//! stamp's `notas` (pdftotext), and a stored PDF rendered again after a branding change.

use std::io::Cursor;
use std::path::Path;

use reqwest::Method;
use serde_json::json;

use crate::cfdi::{factura, setup, sh, timbrar};
use crate::harness::{As, TempDir, TestApp, each_backend};

fn herramientas() -> bool {
    if !timbra_testkit::tools(&["pdftotext", "pdfimages", "pdftoppm"]) {
        return false;
    }
    true
}

/// An image of `ancho` × `alto` pixels of one color, encoded as `formato`.
fn imagen(ancho: u32, alto: u32, formato: image::ImageFormat) -> Vec<u8> {
    let pixeles = image::RgbImage::from_pixel(ancho, alto, image::Rgb([200, 30, 30]));
    let mut bytes = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(pixeles).write_to(&mut bytes, formato).unwrap();
    bytes.into_inner()
}

async fn put_logo(app: &TestApp, who: &As, empresa: &str, content_type: &str, body: Vec<u8>) -> crate::harness::Answer {
    let response = app
        .client
        .put(format!("{}/api/empresas/{empresa}/logo", app.base))
        .bearer_auth(who.key.as_deref().unwrap())
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    TestApp::read(response).await
}

async fn pdf(app: &TestApp, who: &As, id: &str, dir: &Path, nombre: &str) -> std::path::PathBuf {
    let response = app
        .client
        .get(format!("{}/api/cfdi/{id}/pdf", app.base))
        .bearer_auth(who.key.as_deref().unwrap())
        .header("x-empresa-id", who.empresa.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let file = dir.join(nombre);
    std::fs::write(&file, response.bytes().await.unwrap()).unwrap();
    file
}

/// Images listed by `pdfimages -list` (after its two header lines).
fn imagenes(file: &Path) -> usize {
    let (ok, out, err) = sh("pdfimages", &["-list", file.to_str().unwrap()], Path::new("."));
    assert!(ok, "pdfimages: {err}");
    String::from_utf8(out).unwrap().lines().skip(2).filter(|l| !l.trim().is_empty()).count()
}

fn texto(file: &Path) -> String {
    let (ok, out, err) = sh("pdftotext", &["-layout", file.to_str().unwrap(), "-"], Path::new("."));
    assert!(ok, "pdftotext: {err}");
    String::from_utf8(out).unwrap()
}

/// Pixels of page 1 (rendered at 40 dpi) exactly of color `rgb`.
fn pixeles_de(file: &Path, dir: &Path, rgb: [u8; 3]) -> usize {
    let prefijo = dir.join("pagina");
    let (ok, _, err) =
        sh("pdftoppm", &["-r", "40", "-f", "1", "-l", "1", file.to_str().unwrap(), prefijo.to_str().unwrap()], dir);
    assert!(ok, "pdftoppm: {err}");
    let ppm = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "ppm"))
        .unwrap();
    let bytes = std::fs::read(&ppm).unwrap();
    std::fs::remove_file(&ppm).unwrap();
    // P6\nW H\n255\n then RGB triples.
    let mut campos = 0;
    let mut inicio = 0;
    for (i, b) in bytes.iter().enumerate() {
        if b.is_ascii_whitespace() && i > 0 && !bytes[i - 1].is_ascii_whitespace() {
            campos += 1;
            if campos == 4 {
                inicio = i + 1;
                break;
            }
        }
    }
    bytes[inicio..].chunks(3).filter(|p| p == &rgb).count()
}

#[tokio::test]
async fn the_logo_color_and_notes_print_and_a_stored_pdf_follows_the_branding() {
    if !herramientas() {
        return;
    }
    each_backend(|app: TestApp| async move {
        let (who, cliente) = setup(&app, "marca@example.com").await;
        let empresa = who.empresa.clone().unwrap();
        let dir = TempDir::new();

        // A PDF before any branding: no image, grey bars.
        let mut body = factura(&cliente);
        body["notas"] = json!("Entrega en almacén 3, horario 9 a 14 h.");
        let stamped = timbrar(&app, &who, &body, None).await.data(201).clone();
        let id = stamped["cfdiId"].as_str().unwrap().to_owned();
        let antes = pdf(&app, &who, &id, &dir.0, "antes.pdf").await;
        assert_eq!(imagenes(&antes), 0);
        let texto_antes = texto(&antes);
        assert!(texto_antes.contains("Entrega en almacén 3"), "the notas are printed:\n{texto_antes}");
        let (status, xml) = crate::cfdi::raw(&app, &format!("/api/cfdi/{id}/xml"), Some(&who)).await;
        assert_eq!(status, 200);
        assert!(!xml.contains("almacén"), "the notas are not in the XML");
        assert_eq!(pixeles_de(&antes, &dir.0, [0x1F, 0x4E, 0x79]), 0);

        // Bad logos.
        put_logo(&app, &who, &empresa, "image/gif", b"GIF89a\x01\x00".to_vec()).await.assert_error(400, "LOGO_001");
        put_logo(&app, &who, &empresa, "image/png", b"\x89PNG\r\n\x1a\nroto".to_vec()).await.assert_error(400, "LOGO_001");
        let mut grande = b"\x89PNG\r\n\x1a\n".to_vec();
        grande.resize(1024 * 1024 + 1, 7);
        put_logo(&app, &who, &empresa, "image/png", grande).await.assert_error(400, "LOGO_001");
        app.get(&format!("/api/empresas/{empresa}/logo"), &who).await.assert_error(404, "NOT_FOUND");

        // A JPEG as base64 JSON, then a PNG as the body: stored re-encoded as PNG.
        let jpeg = imagen(900, 300, image::ImageFormat::Jpeg);
        let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &jpeg);
        let answer = app
            .call(Method::PUT, &format!("/api/empresas/{empresa}/logo"), &who, Some(json!({ "logoBase64": b64 })))
            .await;
        answer.data(200);
        let png = imagen(300, 100, image::ImageFormat::Png);
        put_logo(&app, &who, &empresa, "image/png", png).await.data(200);
        let servido = app
            .client
            .get(format!("{}/api/empresas/{empresa}/logo", app.base))
            .bearer_auth(who.key.as_deref().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(servido.headers()["content-type"], "image/png");
        let servido = image::load_from_memory(&servido.bytes().await.unwrap()).unwrap();
        assert_eq!((servido.width(), servido.height()), (300, 100));

        // Color and footer note; bad values are refused whole.
        let mal = json!({ "pdf": { "colorPrimario": "azul", "notaPie": "a\nb" } });
        let answer = app.call(Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(mal)).await;
        answer.assert_error(400, "EMPRESA_001");
        let ajustes = json!({ "pdf": { "colorPrimario": "#1f4e79", "notaPie": "Gracias por su preferencia · www.kemper.example" } });
        let out = app.call(Method::PATCH, &format!("/api/empresas/{empresa}"), &who, Some(ajustes)).await;
        assert_eq!(
            out.data(200)["pdf"],
            json!({ "colorPrimario": "#1F4E79", "notaPie": "Gracias por su preferencia · www.kemper.example", "logo": true })
        );

        // The stored PDF is rendered again with the branding.
        let despues = pdf(&app, &who, &id, &dir.0, "despues.pdf").await;
        assert_eq!(imagenes(&despues), 1, "the logo is in the PDF");
        let texto_despues = texto(&despues);
        assert!(texto_despues.contains("Gracias por su preferencia"), "{texto_despues}");
        assert!(texto_despues.contains("Entrega en almacén 3"));
        assert!(pixeles_de(&despues, &dir.0, [0x1F, 0x4E, 0x79]) > 100, "the bars carry the company's color");
        // And stays as it is while nothing changes.
        let otra_vez = pdf(&app, &who, &id, &dir.0, "otra.pdf").await;
        assert_eq!(std::fs::read(&otra_vez).unwrap(), std::fs::read(&despues).unwrap());

        // Without the logo the next download has no image.
        let answer = app.call(Method::DELETE, &format!("/api/empresas/{empresa}/logo"), &who, None).await;
        answer.data(200);
        let sin_logo = pdf(&app, &who, &id, &dir.0, "sin-logo.pdf").await;
        assert_eq!(imagenes(&sin_logo), 0);

        // Another company's logo is not reachable.
        let (_, otra_key) = app.user("ajena@example.com").await;
        let ajena = As::key(&otra_key);
        put_logo(&app, &ajena, &empresa, "image/png", imagen(10, 10, image::ImageFormat::Png))
            .await
            .assert_error(403, "SCOPE_001");
        app.get(&format!("/api/empresas/{empresa}/logo"), &ajena).await.assert_error(403, "SCOPE_001");
    })
    .await;
}
