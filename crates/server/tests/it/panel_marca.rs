//! The dashboard's branding and ZIP export pages over plain HTTP (no browser), issue 32: the
//! preview is an SVG the service draws from the values typed (before saving), a saved logo,
//! color and note reach the API's company and the preview; a bad color is explained; an export
//! asked for in the page is listed with its status and its link downloads the ZIP; another
//! person's company shows none of it; forms without their CSRF token are refused.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::redirect::Policy;
use timbra_services::clock::Clock;
use timbra_services::config::Config;

use crate::cfdi::{factura, timbrar};
use crate::harness::{As, TestApp, each_backend_with};
use crate::receiver::wait_for;

/// The clock pinned to 2026-03-20; quick jobs.
fn ajustes(config: &mut Config) {
    let objetivo = time::macros::datetime!(2026-03-20 18:00 UTC);
    config.clock = Clock::shifted((objetivo - time::OffsetDateTime::now_utc()).whole_seconds(), 1.0);
    config.jobs.poll = Duration::from_millis(20);
}

struct Html {
    status: StatusCode,
    location: String,
    content_type: String,
    body: String,
}

fn cliente() -> reqwest::Client {
    reqwest::Client::builder().redirect(Policy::none()).build().unwrap()
}

async fn leer(response: reqwest::Response) -> Html {
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let (status, location, content_type) = (response.status(), header("location"), header("content-type"));
    Html { status, location, content_type, body: response.text().await.unwrap() }
}

async fn ver(app: &TestApp, session: &str, path: &str) -> Html {
    let request = cliente().get(format!("{}{path}", app.base)).header("cookie", format!("timbra_session={session}"));
    leer(request.send().await.unwrap()).await
}

async fn enviar(app: &TestApp, session: &str, path: &str, campos: &[(&str, &str)]) -> Html {
    let body = campos
        .iter()
        .map(|(k, v)| format!("{}={}", urlencoding::encode(k), urlencoding::encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let request = cliente()
        .post(format!("{}{path}", app.base))
        .header("cookie", format!("timbra_session={session}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body);
    leer(request.send().await.unwrap()).await
}

/// A `multipart/form-data` POST of `campos` and one file `logo`.
async fn enviar_con_archivo(app: &TestApp, session: &str, path: &str, campos: &[(&str, &str)], logo: &[u8]) -> Html {
    let frontera = "----timbra-prueba-7MA4YWxkTrZu0gW";
    let mut body = Vec::new();
    for (nombre, valor) in campos {
        body.extend_from_slice(
            format!("--{frontera}\r\nContent-Disposition: form-data; name=\"{nombre}\"\r\n\r\n{valor}\r\n").as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{frontera}\r\nContent-Disposition: form-data; name=\"logo\"; filename=\"logo.png\"\r\nContent-Type: image/png\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(logo);
    body.extend_from_slice(format!("\r\n--{frontera}--\r\n").as_bytes());
    let request = cliente()
        .post(format!("{}{path}", app.base))
        .header("cookie", format!("timbra_session={session}"))
        .header("content-type", format!("multipart/form-data; boundary={frontera}"))
        .body(body);
    leer(request.send().await.unwrap()).await
}

fn csrf(html: &str) -> String {
    let antes = r#"name="_csrf" value=""#;
    let inicio = html.find(antes).unwrap_or_else(|| panic!("no CSRF field in:\n{html}")) + antes.len();
    html[inicio..].split('"').next().unwrap().to_owned()
}

fn png_rojo() -> Vec<u8> {
    let pixeles = image::RgbImage::from_pixel(120, 40, image::Rgb([200, 30, 30]));
    let mut bytes = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(pixeles).write_to(&mut bytes, image::ImageFormat::Png).unwrap();
    bytes.into_inner()
}

#[tokio::test]
async fn the_branding_page_previews_what_the_service_draws_and_saves_it() {
    each_backend_with(ajustes, |app: TestApp| async move {
        let (_, key) = app.user("marca-panel@example.com").await;
        let empresa = app.empresa(&key, crate::cfdi::EMISOR).await;
        let session = app.login("marca-panel@example.com").await;

        let pagina = ver(&app, &session, "/panel/marca").await;
        assert_eq!(pagina.status, 200, "{}", pagina.body);
        assert!(pagina.body.contains("Vista previa") && pagina.body.contains(r#"href="/panel/marca""#));
        assert!(pagina.body.contains(r#"src="/panel/marca/vista.svg?colorPrimario=&amp;notaPie=""#), "{}", pagina.body);
        assert!(pagina.body.contains(r#"hx-get="/panel/marca/vista""#));

        // As the person types: the fragment points at the preview of the values typed.
        let fragmento = ver(&app, &session, "/panel/marca/vista?colorPrimario=%23AA0011&notaPie=Gracias").await;
        assert_eq!(fragmento.status, 200);
        assert!(fragmento.body.contains("vista.svg?colorPrimario=%23AA0011&amp;notaPie=Gracias"), "{}", fragmento.body);
        let svg =
            ver(&app, &session, "/panel/marca/vista.svg?colorPrimario=%23AA0011&notaPie=Gracias%20%3Cpor%3E").await;
        assert_eq!((svg.status.as_u16(), svg.content_type.as_str()), (200, "image/svg+xml"));
        assert!(svg.body.contains(r##"fill="#AA0011""##) && svg.body.contains("Gracias &lt;por&gt;"), "{}", svg.body);
        assert!(svg.body.contains("ESCUELA KEMPER URGATE") && svg.body.contains("Sin logotipo"));

        // Saved without the token: refused; with it: the API's company has it.
        let token = csrf(&pagina.body);
        let campos = [("colorPrimario", "#aa0011"), ("notaPie", "Gracias por su compra")];
        assert_eq!(enviar_con_archivo(&app, &session, "/panel/marca", &campos, &png_rojo()).await.status, 403);
        let mut con = campos.to_vec();
        con.push(("_csrf", token.as_str()));
        let guardada = enviar_con_archivo(&app, &session, "/panel/marca", &con, &png_rojo()).await;
        assert_eq!((guardada.status.as_u16(), guardada.location.as_str()), (303, "/panel/marca?aviso=marca-guardada"));
        let who = As::key(&key);
        let api = app.get(&format!("/api/empresas/{empresa}"), &who).await.data(200)["pdf"].clone();
        assert_eq!(
            api,
            serde_json::json!({ "colorPrimario": "#AA0011", "notaPie": "Gracias por su compra", "logo": true })
        );
        let pagina = ver(&app, &session, "/panel/marca?aviso=marca-guardada").await.body;
        assert!(pagina.contains("Marca guardada") && pagina.contains(r##"value="#AA0011""##), "{pagina}");
        let svg = ver(&app, &session, "/panel/marca/vista.svg?colorPrimario=%23AA0011").await.body;
        assert!(svg.contains("data:image/png;base64,") && !svg.contains("Sin logotipo"));

        // A color that is not #RRGGBB is explained, nothing saved.
        let mala = [("colorPrimario", "rojo"), ("notaPie", ""), ("_csrf", token.as_str())];
        let rechazada = enviar(&app, &session, "/panel/marca", &mala).await;
        assert_eq!(rechazada.status, 400, "{}", rechazada.body);
        assert!(rechazada.body.contains("Revise los datos de la empresa"), "{}", rechazada.body);
        let api = app.get(&format!("/api/empresas/{empresa}"), &who).await.data(200)["pdf"]["colorPrimario"].clone();
        assert_eq!(api, serde_json::json!("#AA0011"));
    })
    .await;
}

#[tokio::test]
async fn the_export_page_queues_a_zip_lists_it_and_its_link_downloads_it() {
    each_backend_with(ajustes, |app: TestApp| async move {
        let (who, cliente_id) = crate::cfdi::setup(&app, "zip-panel@example.com").await;
        timbrar(&app, &who, &factura(&cliente_id), None).await.data(201);
        let session = app.login("zip-panel@example.com").await;

        let pagina = ver(&app, &session, "/panel/exportar").await;
        assert_eq!(pagina.status, 200, "{}", pagina.body);
        assert!(pagina.body.contains("Aún no hay exportaciones") && pagina.body.contains(r#"value="2026-03-01""#));
        let token = csrf(&pagina.body);

        let mala = [("desde", "2026-03-31"), ("hasta", "2026-03-01"), ("_csrf", token.as_str())];
        let rechazada = enviar(&app, &session, "/panel/exportar", &mala).await;
        assert_eq!(rechazada.status, 400);
        assert!(rechazada.body.contains("Revise el periodo"), "{}", rechazada.body);

        let campos =
            [("desde", "2026-03-01"), ("hasta", "2026-03-20"), ("incluirPdf", "true"), ("_csrf", token.as_str())];
        let pedida = enviar(&app, &session, "/panel/exportar", &campos).await;
        assert_eq!((pedida.status.as_u16(), pedida.location.as_str()), (303, "/panel/exportar?aviso=zip-pedido"));
        let mut lista = String::new();
        wait_for(60, "the export in the list", async || {
            lista = ver(&app, &session, "/panel/exportar/lista").await.body;
            lista.contains("Descargar ZIP")
        })
        .await;
        assert!(lista.contains("Listo") && lista.contains("2026-03-01 a 2026-03-20"), "{lista}");
        let inicio = lista.find(r#"href="/api/descargas/"#).unwrap() + r#"href=""#.len();
        let enlace = lista[inicio..].split('"').next().unwrap().to_owned();
        let zip = app.client.get(format!("{}{enlace}", app.base)).send().await.unwrap();
        assert_eq!(zip.headers()["content-type"], "application/zip");
        let bytes = zip.bytes().await.unwrap();
        let archivo = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
        assert_eq!(archivo.len(), 3, "XML, PDF and resumen.csv");

        // Another person's company: none of it.
        let (_, otra) = app.user("otra-zip-panel@example.com").await;
        app.empresa(&otra, crate::cfdi::EMISOR).await;
        let ajena = app.login("otra-zip-panel@example.com").await;
        let suya = ver(&app, &ajena, "/panel/exportar").await.body;
        assert!(suya.contains("Aún no hay exportaciones") && !suya.contains("Descargar ZIP"), "{suya}");
    })
    .await;
}
