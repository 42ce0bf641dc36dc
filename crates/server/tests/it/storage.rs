//! Files in an S3-compatible bucket: an `s3s-fs` server in this test process over a temp folder
//! (SigV4 checked), the app configured with `TIMBRA_STORAGE_URL=s3://…` and the `AWS_*`
//! settings. PDFs land in the bucket, download links answer with URLs the bucket presigned,
//! and a bucket that stops answering costs no stamp and gives a clear 503.

use std::path::{Path, PathBuf};

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder as ConnBuilder;

use crate::cfdi::{factura, setup, timbrar};
use crate::harness::{TempDir, TestApp, each_backend_with};

const ACCESS_KEY: &str = "timbra-test";
const SECRET_KEY: &str = "timbra-test-secret-key";
const BUCKET: &str = "facturas";

/// An S3 server on loopback over `root` (bucket = a folder in it); stops when dropped.
struct S3Server {
    endpoint: String,
    root: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl S3Server {
    async fn start(root: &Path) -> Self {
        std::fs::create_dir_all(root.join(BUCKET)).unwrap();
        let fs = s3s_fs::FileSystem::new(root).unwrap();
        let mut builder = s3s::service::S3ServiceBuilder::new(fs);
        builder.set_auth(s3s::auth::SimpleAuth::from_single(ACCESS_KEY, SECRET_KEY));
        let service = builder.build();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let server = ConnBuilder::new(TokioExecutor::new());
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((socket, _)) = accepted else { continue };
                        let connection = server.serve_connection(TokioIo::new(socket), service.clone()).into_owned();
                        tokio::spawn(async move { let _ = connection.await; });
                    }
                    _ = &mut stopped => return,
                }
            }
        });
        Self { endpoint, root: root.to_owned(), stop: Some(stop) }
    }

    /// Stops accepting connections (the bucket "goes down").
    fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Objects stored under the prefix, as relative paths.
    fn objects(&self, prefix: &str) -> Vec<String> {
        let base = self.root.join(BUCKET).join(prefix);
        let mut found = Vec::new();
        let mut stack = vec![base.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                if entry.file_type().unwrap().is_dir() {
                    stack.push(entry.path());
                } else {
                    found.push(entry.path().strip_prefix(&base).unwrap().display().to_string());
                }
            }
        }
        found
    }
}

fn s3_settings(endpoint: &str) -> Vec<(String, String)> {
    [
        ("aws_access_key_id", ACCESS_KEY),
        ("aws_secret_access_key", SECRET_KEY),
        ("aws_region", "us-east-1"),
        ("aws_endpoint_url", endpoint),
        ("aws_allow_http", "true"),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .collect()
}

#[tokio::test]
async fn files_live_in_the_bucket_links_are_presigned_and_an_outage_is_a_clear_503() {
    let folder = TempDir::new();
    let mut s3 = S3Server::start(&folder.0).await;
    let endpoint = s3.endpoint.clone();
    let settings = s3_settings(&endpoint);
    each_backend_with(
        |config| {
            config.storage_url = Some(format!("s3://{BUCKET}/tenant-a"));
            config.s3_settings = settings.clone();
        },
        |app: TestApp| {
            let endpoint = endpoint.clone();
            let s3 = &s3;
            async move {
                let ready: serde_json::Value =
                    app.client.get(format!("{}/readyz", app.base)).send().await.unwrap().json().await.unwrap();
                assert_eq!(ready["storage"], "ok", "{ready}");
                let (who, cliente) = setup(&app, "s3@example.com").await;
                let stamped = timbrar(&app, &who, &factura(&cliente), None).await;
                let id = stamped.data(201)["cfdiId"].as_str().unwrap().to_owned();

                // The PDF is rendered once and kept in the bucket, under the prefix.
                let pdf = app
                    .client
                    .get(format!("{}/api/cfdi/{id}/pdf", app.base))
                    .bearer_auth(who.key.as_deref().unwrap())
                    .header("x-empresa-id", who.empresa.as_deref().unwrap())
                    .send()
                    .await
                    .unwrap();
                assert_eq!(pdf.status(), 200);
                let pdf = pdf.bytes().await.unwrap();
                assert!(pdf.starts_with(b"%PDF"));
                let stored = s3.objects("tenant-a");
                assert!(stored.iter().any(|path| path.ends_with(&format!("{id}.pdf"))), "{stored:?}");

                // The invoice's PDF link answers 302 to a URL the bucket signed for an hour; the
                // bucket serves the same bytes to anyone holding it, and refuses it altered.
                let invoice = app.get(&format!("/api/cfdi/{id}"), &who).await;
                let link = invoice.data(200)["pdfDownloadUrl"].as_str().unwrap().to_owned();
                let no_redirects =
                    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
                let answer = no_redirects.get(format!("{}{link}", app.base)).send().await.unwrap();
                assert_eq!(answer.status(), 302);
                let location = answer.headers()["location"].to_str().unwrap().to_owned();
                assert!(location.starts_with(&format!("{endpoint}/{BUCKET}/tenant-a/")), "{location}");
                assert!(location.contains("X-Amz-Expires=3600") && location.contains("X-Amz-Signature="), "{location}");
                let from_bucket = reqwest::get(&location).await.unwrap();
                assert_eq!(from_bucket.status(), 200);
                assert_eq!(from_bucket.bytes().await.unwrap(), pdf);
                let altered = location.replace("X-Amz-Expires=3600", "X-Amz-Expires=86400");
                assert_eq!(reqwest::get(&altered).await.unwrap().status(), 403);
                // The stamped XML is in the database: its link serves it here, no bucket needed.
                let xml_link = invoice.data(200)["xmlDownloadUrl"].as_str().unwrap().to_owned();
                let xml = no_redirects.get(format!("{}{xml_link}", app.base)).send().await.unwrap();
                assert_eq!(xml.status(), 200);
                assert!(xml.text().await.unwrap().contains("cfdi:Comprobante"));

                // A ZIP export goes to the bucket (a multipart upload); its link is presigned too.
                let centro = time::UtcOffset::from_hms(-6, 0, 0).unwrap();
                let hoy = time::OffsetDateTime::now_utc().to_offset(centro).date().to_string();
                let body = serde_json::json!({ "desde": hoy, "hasta": hoy, "incluirPdf": true });
                let job = app.post("/api/cfdi/zip", &who, body).await.data(202)["jobId"].as_str().unwrap().to_owned();
                let mut hecho = serde_json::Value::Null;
                crate::receiver::wait_for(60, "the ZIP in the bucket", async || {
                    hecho = app.get(&format!("/api/cfdi/zip/{job}"), &who).await.data(200).clone();
                    hecho["status"] == "TERMINADO"
                })
                .await;
                let stored = s3.objects("tenant-a");
                assert!(stored.iter().any(|path| path.ends_with(&format!("{job}.zip"))), "{stored:?}");
                let link = hecho["downloadUrl"].as_str().unwrap();
                let answer = no_redirects.get(format!("{}{link}", app.base)).send().await.unwrap();
                assert_eq!(answer.status(), 302);
                let zip = reqwest::get(answer.headers()["location"].to_str().unwrap()).await.unwrap();
                let zip = zip.bytes().await.unwrap().to_vec();
                assert_eq!(zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap().len(), 3, "XML, PDF, resumen.csv");
            }
        },
    )
    .await;

    // The bucket goes down: stamping still works (the XML is committed with its invoice),
    // readiness says what is down, and a PDF answers a clear 503 to retry.
    s3.stop();
    let settings = s3_settings(&s3.endpoint);
    each_backend_with(
        |config| {
            config.storage_url = Some(format!("s3://{BUCKET}/tenant-b"));
            config.s3_settings = settings.clone();
        },
        |app: TestApp| async move {
            let ready = app.client.get(format!("{}/readyz", app.base)).send().await.unwrap();
            assert_eq!(ready.status(), 503);
            let ready: serde_json::Value = ready.json().await.unwrap();
            assert_eq!(ready["database"], "ok");
            assert!(ready["storage"].as_str().unwrap().starts_with("unreachable"), "{ready}");
            let (who, cliente) = setup(&app, "s3-down@example.com").await;
            let stamped = timbrar(&app, &who, &factura(&cliente), None).await;
            let id = stamped.data(201)["cfdiId"].as_str().unwrap().to_owned();
            let xml = app
                .client
                .get(format!("{}/api/cfdi/{id}/xml", app.base))
                .bearer_auth(who.key.as_deref().unwrap())
                .header("x-empresa-id", who.empresa.as_deref().unwrap())
                .send()
                .await
                .unwrap();
            assert_eq!(xml.status(), 200, "the XML does not depend on the bucket");
            let pdf = app.get(&format!("/api/cfdi/{id}/pdf"), &who).await;
            pdf.assert_error(503, "STORAGE_001");
            assert!(pdf.headers.get("retry-after").is_some());
        },
    )
    .await;
}
