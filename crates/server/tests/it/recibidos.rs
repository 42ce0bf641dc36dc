//! Received invoices from SAT, end to end against `timbra sim sat` over loopback HTTP:
//! `sync-recibidos` (stored once, progress, SAT's refusals, a kill -9 mid-way), download by
//! UUID (sat_portal, cache, metadata-only with its durable retries, 202 and the job, every
//! refusal), the daily quota (atomic, headers, 429, reset at midnight in Mexico City) and the
//! RECIBIDA listing.

use std::collections::HashSet;
use std::path::Path;
use std::sync::LazyLock;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use timbra_credentials::testgen::{self, Options};
use timbra_services::clock::Clock;
use timbra_services::config::Config;
use timbra_sim::sat::lote::{self, Firmantes};
use timbra_sim::sat::{Desenlace, DocumentoSim, SatSim, SatSimConfig};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::harness::{Answer, As, Server, TempDir, TestApp, each_backend_with, free_port};
use crate::receiver::{Receiver, wait_for};

pub(crate) const RFC: &str = "EKU9003173C9";
const MASTER_KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

/// The issuer of the received invoices and SAT's stamping certificate (generated once).
pub(crate) static FIRMANTES: LazyLock<Firmantes> = LazyLock::new(|| Firmantes::generar().unwrap());

/// The month before the system clock's (a month that has ended, in Mexico City).
pub(crate) fn mes_pasado() -> (i32, u8, PrimitiveDateTime) {
    let local = OffsetDateTime::now_utc().to_offset(time::UtcOffset::from_hms(-6, 0, 0).unwrap());
    let primero = local.date().replace_day(1).unwrap().previous_day().unwrap().replace_day(1).unwrap();
    (primero.year(), u8::from(primero.month()), primero.with_hms(9, 0, 0).unwrap())
}

/// `cantidad` invoices received by [`RFC`] in the previous month.
pub(crate) fn recibidas(cantidad: usize) -> Vec<DocumentoSim> {
    let (_, _, desde) = mes_pasado();
    lote::recibidos(&FIRMANTES, RFC, "ESCUELA KEMPER URGATE", desde, cantidad).unwrap()
}

fn fiel_body() -> Value {
    let now = OffsetDateTime::now_utc();
    let fiel = testgen::generate(&Options::fiel(
        RFC,
        "ESCUELA KEMPER URGATE",
        now - time::Duration::days(1),
        now + time::Duration::days(365),
    ))
    .unwrap();
    json!({ "cerBase64": STANDARD.encode(&fiel.cer_der), "keyBase64": STANDARD.encode(&fiel.key_der_encrypted), "password": "12345678a" })
}

/// A SAT simulator on loopback, and a folder with SAT's stamping certificate.
pub(crate) struct Sat {
    pub(crate) sim: SatSim,
    base: String,
    certs: TempDir,
}

pub(crate) async fn sat(ajuste: impl FnOnce(&mut SatSimConfig)) -> Sat {
    let mut config = SatSimConfig { consultas_aceptada: 1, consultas_en_proceso: 1, ..SatSimConfig::default() };
    ajuste(&mut config);
    let sim = SatSim::new(config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(sim.clone().serve(listener));
    let certs = TempDir::new();
    let certificado = FIRMANTES.certificado_sat();
    std::fs::write(certs.0.join(format!("{}.cer", certificado.no_certificado())), certificado.der()).unwrap();
    Sat { sim, base, certs }
}

/// The app pointed at the simulator, on a clock tests move.
pub(crate) fn configurar(sat: &Sat, clock: &Clock) -> impl Fn(&mut Config) + use<> {
    let (base, certs, clock) = (sat.base.clone(), sat.certs.0.clone(), clock.clone());
    move |config: &mut Config| {
        config.sat = timbra_sat::SatConfig::con_base(&base);
        config.sat.pausa_verificacion = Duration::from_millis(5);
        config.sat.carpeta_certificados = Some(certs.clone());
        config.master_key = Some(MASTER_KEY.into());
        config.clock = clock.clone();
        config.jobs.poll = Duration::from_millis(20);
        config.webhooks.allow_private = true;
    }
}

/// A company of [`RFC`] with its FIEL, and who calls.
pub(crate) async fn empresa(app: &TestApp, email: &str) -> (String, As) {
    let (_, key) = app.user(email).await;
    let empresa = app.empresa(&key, RFC).await;
    app.post(&format!("/api/empresas/{empresa}/fiel"), &As::key(&key), fiel_body()).await.data(201);
    (empresa.clone(), As::key(&key).in_empresa(&empresa))
}

fn header(answer: &Answer, name: &str) -> i64 {
    answer.headers.get(name).unwrap_or_else(|| panic!("{name} missing")).to_str().unwrap().parse().unwrap()
}

pub(crate) async fn sync_terminada(app: &TestApp, who: &As) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let last = app.get("/api/cfdi/sync-recibidos", who).await.data(200).clone();
        if last["syncStatus"] != json!("RUNNING") {
            return last;
        }
        if tokio::time::Instant::now() >= deadline {
            let mut conn = app.db.conn().await.unwrap();
            let job = last["jobId"].as_str().unwrap_or_default();
            let error = timbra_store::sql!(scalar_optional conn, Option<String>,
                "SELECT last_error FROM jobs WHERE id = $1", job)
            .unwrap();
            panic!("the sync did not end on {}: {last:#}; job error {error:?}", app.backend);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `POST /api/cfdi/descargar-por-uuid`, following a 202 to the job's answer (a loaded machine
/// may outlast the wait).
pub(crate) async fn pedir(app: &TestApp, who: &As, body: Value) -> Answer {
    let answer = app.post("/api/cfdi/descargar-por-uuid", who, body).await;
    if answer.status.as_u16() != 202 {
        return answer;
    }
    let path = format!("/api/cfdi/descargar-por-uuid/{}", answer.body["data"]["jobId"].as_str().unwrap());
    let mut last = None;
    wait_for(30, "the download job", async || {
        let polled = app.get(&path, who).await;
        let done = polled.status.as_u16() != 202;
        last = Some(polled);
        done
    })
    .await;
    last.unwrap()
}

pub(crate) async fn recibidas_listadas(app: &TestApp, who: &As) -> Vec<Value> {
    let list = app.get("/api/cfdi?tipo=RECIBIDA&includeDownloadUrls=true&limit=100", who).await;
    list.data(200)["cfdis"].as_array().unwrap().clone()
}

#[tokio::test]
async fn sync_recibidos_stores_the_month_once_with_progress_quota_and_listing() {
    let documentos = recibidas(5);
    let sat = sat(|c| {
        c.documentos = documentos.clone();
        c.documentos_por_paquete = 2;
    })
    .await;
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(configurar(&sat, &clock), |app: TestApp| {
        let (sat, documentos) = (&sat, documentos.clone());
        async move {
            sat.sim.reiniciar();
            let (_, owner) = app.user("sin-fiel@example.com").await;
            let sin_fiel = app.empresa(&owner, RFC).await;
            let (year, month, _) = mes_pasado();
            let body = json!({ "year": year, "month": month });
            let sin = As::key(owner.as_str()).in_empresa(&sin_fiel);
            app.post("/api/cfdi/sync-recibidos", &sin, body.clone()).await.assert_error(412, "MISSING_FIEL");

            let (_, who) = empresa(&app, "sync@example.com").await;
            let idle = app.get("/api/cfdi/sync-recibidos", &who).await;
            assert_eq!(idle.data(200)["syncStatus"], json!("IDLE"));
            assert_eq!(idle.data(200)["lastSyncAt"], Value::Null);
            assert_eq!(idle.data(200)["totalRecibidos"], json!(0));
            assert_eq!((header(&idle, "x-sat-downloads-used"), header(&idle, "x-sat-downloads-limit")), (0, 1800));
            assert_eq!(header(&idle, "x-sat-downloads-remaining"), 1800);
            assert!((1..=86_400).contains(&header(&idle, "x-sat-downloads-reset")));
            for (bad, code) in [
                (json!({ "year": year, "month": 13 }), "SYNC_001"),
                (json!({ "year": year }), "SYNC_001"),
                (json!({ "year": 2099, "month": 1 }), "SYNC_001"),
                (json!({ "year": 2015, "month": 1 }), "SYNC_001"),
            ] {
                let refused = app.post("/api/cfdi/sync-recibidos", &who, bad).await;
                refused.assert_error(400, code);
                assert!(refused.headers.get("x-sat-downloads-used").is_some(), "quota headers on errors too");
            }

            let started = app.post("/api/cfdi/sync-recibidos", &who, body.clone()).await;
            let data = started.data(200).clone();
            assert_eq!(
                (&data["status"], &data["year"], &data["month"]),
                (&json!("started"), &json!(year), &json!(month))
            );
            let job = data["jobId"].as_str().unwrap().to_owned();
            let status = sync_terminada(&app, &who).await;
            assert_eq!(status["syncStatus"], json!("IDLE"), "{status:#}");
            assert_eq!(status["jobId"], json!(job));
            assert!(status["lastSyncAt"].as_str().is_some());
            assert_eq!(status["totalRecibidos"], json!(5));
            assert_eq!(
                status["progress"],
                json!({ "paquetesHechos": 3, "paquetesTotal": 3, "cfdiHechos": 5, "cfdiTotal": 5, "cfdiNuevos": 5, "cfdiIlegibles": 0 })
            );

            let listed = recibidas_listadas(&app, &who).await;
            assert_eq!(listed.len(), 5);
            let uuids: HashSet<String> = listed.iter().map(|c| c["uuid"].as_str().unwrap().to_owned()).collect();
            assert_eq!(uuids, documentos.iter().map(|d| d.uuid.clone()).collect());
            for cfdi in &listed {
                assert_eq!((&cfdi["tipo"], &cfdi["origen"]), (&json!("RECIBIDA"), &json!("SAT_DESCARGA")));
                assert_eq!(cfdi["xmlDownloadStatus"], json!("COMPLETE"));
                assert_eq!((&cfdi["xmlRetryCount"], &cfdi["xmlNextRetryAt"]), (&json!(0), &Value::Null));
                assert_eq!(cfdi["receptorRfc"], json!(RFC));
                assert_eq!(cfdi["status"], json!("TIMBRADO"));
                assert_eq!(cfdi["downloadExpiresIn"], json!(3600));
                // The signed link gives SAT's XML byte for byte.
                let url = cfdi["xmlDownloadUrl"].as_str().unwrap();
                let url = if url.starts_with("http") { url.to_owned() } else { format!("{}{url}", app.base) };
                let xml = app.client.get(url).send().await.unwrap().text().await.unwrap();
                let original = documentos.iter().find(|d| d.uuid == cfdi["uuid"].as_str().unwrap()).unwrap();
                assert_eq!(xml, original.xml);
            }
            // Only the issuer cancels a received invoice.
            let id = listed[0]["id"].as_str().unwrap();
            app.post(&format!("/api/cfdi/{id}/cancelar"), &who, json!({ "motivo": "02" }))
                .await
                .assert_error(400, "CANCEL_003");
            // Both seals verified on arrival (SAT's certificate is in TIMBRA_SAT_CERTS_DIR).
            let mut conn = app.db.conn().await.unwrap();
            let checks: Vec<(String, String)> = timbra_store::sql!(fetch_all conn, (String, String),
                "SELECT verificacion_sello, verificacion_timbre FROM cfdis WHERE tipo = 'RECIBIDA'")
            .unwrap();
            drop(conn);
            assert_eq!(checks, vec![("VERIFICADO".to_owned(), "VERIFICADO".to_owned()); 5]);

            let quota = app.get("/api/cfdi/sync-recibidos", &who).await;
            assert_eq!(header(&quota, "x-sat-downloads-used"), 5);
            assert_eq!(header(&quota, "x-sat-downloads-remaining"), 1795);

            // Again: SAT is asked, every UUID is held already: nothing stored, nothing spent.
            app.post("/api/cfdi/sync-recibidos", &who, body.clone()).await.data(200);
            let again = sync_terminada(&app, &who).await;
            assert_eq!(again["syncStatus"], json!("IDLE"));
            assert_eq!(again["progress"]["cfdiHechos"], json!(5));
            assert_eq!(again["progress"]["cfdiNuevos"], json!(0));
            assert_eq!(again["totalRecibidos"], json!(5));
            let quota = app.get("/api/cfdi/sync-recibidos", &who).await;
            assert_eq!(header(&quota, "x-sat-downloads-used"), 5);
            assert_eq!(sat.sim.solicitudes_aceptadas(), 2);
            // The issued-invoice listing is not polluted by received ones.
            assert_eq!(app.get("/api/cfdi?tipo=EMITIDA", &who).await.data(200)["total"], json!(0));

            // SAT allows the same CFDI request twice: the third is refused with 5002.
            app.post("/api/cfdi/sync-recibidos", &who, body.clone()).await.data(200);
            let refused = sync_terminada(&app, &who).await;
            assert_eq!(refused["syncStatus"], json!("FAILED"));
            assert_eq!(refused["error"]["code"], json!("SAT_5002"));
            assert!(refused["lastSyncAt"].as_str().is_some(), "the last successful sync is still shown");
        }
    })
    .await;
}

#[tokio::test]
async fn sync_failures_follow_sats_answers_and_a_second_sync_waits() {
    let documentos = recibidas(2);
    let sat = sat(|c| c.documentos = documentos.clone()).await;
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(configurar(&sat, &clock), |app: TestApp| {
        let sat = &sat;
        async move {
            sat.sim.reiniciar();
            let (_, who) = empresa(&app, "fallas@example.com").await;
            // SAT takes an identical CFDI request twice (then 5002): each accepted outcome asks
            // for another month; refusals of the request itself are not counted.
            let (year, month, _) = mes_pasado();
            let mes = |atras: i32| {
                let n = year * 12 + i32::from(month) - 1 - atras;
                json!({ "year": n / 12, "month": n % 12 + 1 })
            };
            for (desenlace, body, code) in [
                (Desenlace::PaqueteVacio, mes(0), "EMPTY_PACKAGE"),
                (Desenlace::Vencida, mes(1), "SAT_ESTADO_6"),
                (Desenlace::Error, mes(2), "SAT_ESTADO_4"),
                (Desenlace::Rechazo(5005), mes(0), "SAT_5005"),
                (Desenlace::Rechazo(5001), mes(0), "SAT_REJECTED"),
            ] {
                sat.sim.forzar([desenlace]);
                app.post("/api/cfdi/sync-recibidos", &who, body).await.data(200);
                let status = sync_terminada(&app, &who).await;
                assert_eq!(
                    (&status["syncStatus"], &status["error"]["code"]),
                    (&json!("FAILED"), &json!(code)),
                    "{desenlace:?}"
                );
                assert!(!status["error"]["message"].as_str().unwrap().is_empty());
            }
            assert_eq!(app.get("/api/cfdi/sync-recibidos", &who).await.data(200)["totalRecibidos"], json!(0));

            // A month without invoices (SAT rejects with 5004) is a finished sync with nothing.
            let (_, otra) = empresa(&app, "vacio@example.com").await;
            app.post("/api/cfdi/sync-recibidos", &otra, mes(1)).await.data(200);
            let status = sync_terminada(&app, &otra).await;
            assert_eq!(status["syncStatus"], json!("IDLE"), "{status:#}");
            assert_eq!(status["progress"]["cfdiTotal"], json!(0));

            let body = mes(0);
            // While one runs, another is refused.
            sat.sim.forzar([Desenlace::SiempreAceptada]);
            app.post("/api/cfdi/sync-recibidos", &who, body.clone()).await.data(200);
            let second = app.post("/api/cfdi/sync-recibidos", &who, body.clone()).await;
            second.assert_error(409, "SYNC_002");
            assert!(second.body["error"]["details"]["jobId"].as_str().is_some());
        }
    })
    .await;
}

#[tokio::test]
async fn quota_is_atomic_limits_syncs_and_downloads_and_resets_at_mexico_city_midnight() {
    let documentos = recibidas(5);
    let extra = recibidas(1);
    let sat = sat(|c| {
        c.documentos = documentos.iter().chain(&extra).cloned().collect();
    })
    .await;
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(configurar(&sat, &clock), |app: TestApp| {
        let (sat, clock, extra) = (&sat, clock.clone(), extra.clone());
        async move {
            sat.sim.reiniciar();
            // The clock may be ahead from the other backend's run: SAT's follows it.
            sat.sim.configurar(|c| c.ahora = Some(clock.now()));
            // Several writers reserving at once never pass the limit together.
            let rfc = format!("ATO{}", &uuid::Uuid::new_v4().simple().to_string()[..9]).to_uppercase();
            let now = clock.now();
            let mut tasks = Vec::new();
            for _ in 0..12 {
                let (db, rfc) = (app.db.clone(), rfc.clone());
                tasks.push(tokio::spawn(async move {
                    loop {
                        let mut tx = db.begin().await.unwrap();
                        match timbra_services::cfdi::recibidos::cuota::reservar(&mut tx, &rfc, 200, now).await {
                            Ok(granted) => match tx.commit().await {
                                Ok(()) => return granted,
                                Err(_) => continue,
                            },
                            // SQLite's busy writer or a PostgreSQL serialization: try again.
                            Err(_) => continue,
                        }
                    }
                }));
            }
            let mut granted = 0;
            for task in tasks {
                granted += task.await.unwrap();
            }
            assert_eq!(granted, 1800, "12 × 200 asked, exactly the limit granted");

            let (_, who) = empresa(&app, "cuota@example.com").await;
            // 1,797 used today elsewhere with this RFC: three left.
            let dia = timbra_services::cfdi::recibidos::cuota::dia(clock.now());
            let mut conn = app.db.conn().await.unwrap();
            timbra_store::sql!(execute conn,
                "INSERT INTO sat_cuota (rfc, dia, usadas, concedidas, created_at, updated_at) VALUES ($1, $2, 1797, 0, $3, $3)",
                RFC, &dia, clock.now()).unwrap();
            drop(conn);
            let (year, month, _) = mes_pasado();
            let body = json!({ "year": year, "month": month });
            app.post("/api/cfdi/sync-recibidos", &who, body.clone()).await.data(200);
            let status = sync_terminada(&app, &who).await;
            assert_eq!(status["syncStatus"], json!("FAILED"));
            assert_eq!(status["error"]["code"], json!("SAT_QUOTA"));
            assert_eq!(status["totalRecibidos"], json!(3), "the sync spent the remaining quota and stopped");
            let spent = app.get("/api/cfdi/sync-recibidos", &who).await;
            assert_eq!((header(&spent, "x-sat-downloads-used"), header(&spent, "x-sat-downloads-remaining")), (1800, 0));

            // A download is refused with 429 and Retry-After at the reset.
            let refused = app.post("/api/cfdi/descargar-por-uuid", &who, json!({ "uuid": extra[0].uuid })).await;
            refused.assert_error(429, "SAT_QUOTA");
            let reset = header(&refused, "x-sat-downloads-reset");
            assert_eq!(header(&refused, "retry-after"), reset);
            // What is held already is free: the cache answers.
            let held = recibidas_listadas(&app, &who).await[0]["uuid"].as_str().unwrap().to_owned();
            let cache = app.post("/api/cfdi/descargar-por-uuid", &who, json!({ "uuid": held })).await;
            assert_eq!(cache.data(200)["source"], json!("cache"));

            // Midnight in Mexico City: the count starts again.
            clock.advance(Duration::from_secs(u64::try_from(reset).unwrap() + 5));
            sat.sim.configurar(|c| c.ahora = Some(clock.now()));
            let fresh = app.get("/api/cfdi/sync-recibidos", &who).await;
            assert_eq!((header(&fresh, "x-sat-downloads-used"), header(&fresh, "x-sat-downloads-remaining")), (0, 1800));
            assert!(header(&fresh, "x-sat-downloads-reset") > 86_000);
            app.post("/api/cfdi/sync-recibidos", &who, body).await.data(200);
            let status = sync_terminada(&app, &who).await;
            assert_eq!(status["syncStatus"], json!("IDLE"), "{status:#}");
            assert_eq!(status["totalRecibidos"], json!(6));
            assert_eq!(status["progress"]["cfdiNuevos"], json!(3));
            let after = app.get("/api/cfdi/sync-recibidos", &who).await;
            assert_eq!(header(&after, "x-sat-downloads-used"), 3, "held UUIDs cost nothing");
        }
    })
    .await;
}

#[tokio::test]
async fn descargar_por_uuid_portal_cache_refusals_and_the_job_when_sat_is_slow() {
    let documentos = recibidas(3);
    let ajenos = {
        let emitidas = Firmantes::generar_para(RFC).unwrap();
        let (_, _, desde) = mes_pasado();
        lote::recibidos(&emitidas, "MCI7306249Y1", "MARIA CANDELARIA", desde, 1).unwrap()
    };
    let sat = sat(|c| c.documentos = documentos.iter().chain(&ajenos).cloned().collect()).await;
    let clock = Clock::shifted(0, 1.0);
    let adjust = {
        let base = configurar(&sat, &clock);
        move |config: &mut Config| {
            base(config);
            config.sat_espera = Duration::from_millis(400);
        }
    };
    each_backend_with(adjust, |app: TestApp| {
        let (sat, documentos, ajenos) = (&sat, documentos.clone(), ajenos.clone());
        async move {
            sat.sim.reiniciar();
            sat.sim.configurar(|c| c.consultas_en_proceso = 1);
            let (_, key) = app.user("sin-fiel-uuid@example.com").await;
            let sin_fiel = app.empresa(&key, RFC).await;
            let path = "/api/cfdi/descargar-por-uuid";
            let uuid = documentos[0].uuid.clone();
            app.post(path, &As::key(&key).in_empresa(&sin_fiel), json!({ "uuid": uuid }))
                .await
                .assert_error(412, "MISSING_FIEL");
            let narrow =
                app.post("/api/api-keys", &As::key(&key), json!({ "name": "solo ver", "scopes": ["cfdi:view"] })).await;
            let narrow = narrow.data(201)["key"].as_str().unwrap().to_owned();
            app.post(path, &As::key(&narrow).in_empresa(&sin_fiel), json!({ "uuid": uuid }))
                .await
                .assert_error(403, "SCOPE_002");

            let (empresa_id, who) = empresa(&app, "uuid@example.com").await;
            let raw = app
                .client
                .post(format!("{}{path}", app.base))
                .bearer_auth(who.key.as_deref().unwrap())
                .header("x-empresa-id", &empresa_id)
                .header("content-type", "application/json")
                .body("{not json")
                .send()
                .await
                .unwrap();
            TestApp::read(raw).await.assert_error(400, "DESCARGA_001");
            app.post(path, &who, json!({})).await.assert_error(400, "DESCARGA_002");
            app.post(path, &who, json!({ "uuid": 5 })).await.assert_error(400, "DESCARGA_002");
            app.post(path, &who, json!({ "uuid": "not-a-uuid" })).await.assert_error(400, "INVALID_UUID");
            app.post(
                path,
                &who,
                json!({ "uuid": "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?re=X" }),
            )
            .await
            .assert_error(400, "INVALID_UUID");

            // From SAT, asked by its verification URL.
            let url = format!(
                "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id={}&re={}&rr={RFC}&tt=1&fe=abc",
                uuid.to_lowercase(),
                lote::RFC_EMISOR_LOTE
            );
            let portal = pedir(&app, &who, json!({ "uuid": url })).await;
            let data = portal.data(200).clone();
            assert_eq!(data["source"], json!("sat_portal"));
            assert_eq!(data["xmlBytes"], json!(documentos[0].xml.len()));
            assert_eq!(data["cfdi"]["uuid"], json!(uuid));
            assert_eq!(data["cfdi"]["xmlDownloadStatus"], json!("COMPLETE"));
            assert_eq!(data["cfdi"]["downloadExpiresIn"], json!(3600));
            assert!(data["cfdi"]["xmlDownloadUrl"].as_str().is_some());
            assert_eq!(data["cfdi"]["conceptos"][0]["claveProdServ"], json!("43211500"));
            assert_eq!(header(&portal, "x-sat-downloads-used"), 1);
            let pedidas = sat.sim.solicitudes_aceptadas();

            // Held: the cache answers, SAT is not asked, nothing is spent, the link is fresh.
            let cache = app.post(path, &who, json!({ "uuid": uuid })).await;
            assert_eq!(cache.data(200)["source"], json!("cache"));
            assert_eq!(cache.data(200)["cfdi"]["id"], data["cfdi"]["id"]);
            assert!(cache.data(200)["cfdi"]["xmlDownloadUrl"].as_str().is_some());
            assert_eq!(header(&cache, "x-sat-downloads-used"), 1);
            assert_eq!(sat.sim.solicitudes_aceptadas(), pedidas);

            // SAT has nothing: 5004 (answered 200 with the error envelope).
            let nada = pedir(&app, &who, json!({ "uuid": uuid::Uuid::new_v4().to_string() })).await;
            nada.assert_error(200, "SAT_5004");
            // An invoice this company issued: its receiver is another RFC.
            let ajena = pedir(&app, &who, json!({ "uuid": ajenos[0].uuid })).await;
            ajena.assert_error(403, "RECEPTOR_MISMATCH");
            assert!(ajena.body["error"]["message"].as_str().unwrap().contains("MCI7306249Y1"));
            // SAT's own refusals.
            sat.sim.forzar([Desenlace::Rechazo(5002)]);
            pedir(&app, &who, json!({ "uuid": documentos[1].uuid })).await.assert_error(200, "SAT_5002");
            sat.sim.forzar([Desenlace::PaqueteVacio]);
            pedir(&app, &who, json!({ "uuid": documentos[1].uuid })).await.assert_error(200, "EMPTY_PACKAGE");
            let listed = recibidas_listadas(&app, &who).await;
            assert_eq!(listed.len(), 1, "refusals store nothing");

            // SAT slower than TIMBRA_SAT_WAIT_SECONDS: 202 with a job, then the same data.
            sat.sim.configurar(|c| {
                c.consultas_en_proceso = 2;
                c.retraso_descarga = Duration::from_millis(1500);
            });
            let slow = app.post(path, &who, json!({ "uuid": documentos[2].uuid })).await;
            let job = slow.data(202)["jobId"].as_str().unwrap().to_owned();
            assert!(slow.headers.get("x-sat-downloads-used").is_some());
            let job_path = format!("{path}/{job}");
            let running = app.get(&job_path, &who).await;
            assert_eq!(running.data(202)["jobId"], json!(job));
            let mut done = None;
            wait_for(20, "the download job", async || {
                let answer = app.get(&job_path, &who).await;
                let finished = answer.status.as_u16() == 200;
                done = Some(answer);
                finished
            })
            .await;
            let done = done.unwrap();
            assert_eq!(done.data(200)["source"], json!("sat_portal"));
            assert_eq!(done.data(200)["cfdi"]["uuid"], json!(documentos[2].uuid));
            assert_eq!(done.data(200)["xmlBytes"], json!(documentos[2].xml.len()));
            sat.sim.configurar(|c| c.retraso_descarga = Duration::ZERO);
            // Unknown, foreign and missing job ids.
            app.get(&format!("{path}/nope"), &who).await.assert_error(404, "DESCARGA_004");
            let (_, otra) = empresa(&app, "otra-uuid@example.com").await;
            app.get(&job_path, &otra).await.assert_error(404, "DESCARGA_004");
            app.get(path, &who).await.assert_error(400, "DESCARGA_003");
        }
    })
    .await;
}

#[tokio::test]
async fn metadata_only_retries_on_a_durable_schedule_then_completes_or_becomes_permanent() {
    let documentos = recibidas(2);
    let solo: HashSet<String> = documentos.iter().map(|d| d.uuid.clone()).collect();
    let sat = sat(|c| {
        c.documentos = documentos.clone();
        c.uuids_solo_metadatos = solo.clone();
    })
    .await;
    let clock = Clock::shifted(0, 1.0);
    each_backend_with(configurar(&sat, &clock), |app: TestApp| {
        let (sat, clock, documentos, solo) = (&sat, clock.clone(), documentos.clone(), solo.clone());
        async move {
            sat.sim.reiniciar();
            sat.sim.configurar(|c| {
                c.ahora = Some(clock.now());
                c.uuids_solo_metadatos = solo.clone();
            });
            let (empresa_id, who) = empresa(&app, "meta@example.com").await;
            let receiver = Receiver::start().await;
            let hook = json!({ "url": receiver.url, "events": ["cfdi.xml_disponible"] });
            app.post("/api/webhooks", &who, hook).await.data(201);
            let mut ids = Vec::new();
            for documento in &documentos {
                let answer = pedir(&app, &who, json!({ "uuid": documento.uuid })).await;
                let data = answer.data(200).clone();
                assert_eq!(data["source"], json!("sat_metadata_only"));
                assert!(data["warning"].as_str().unwrap().contains("metadata"));
                assert_eq!(data["cfdi"]["xmlDownloadStatus"], json!("METADATA_ONLY"));
                assert_eq!(data["cfdi"]["xmlDownloadUrl"], Value::Null);
                assert_eq!(data["cfdi"]["xmlUrl"], Value::Null);
                assert_eq!(data["cfdi"]["conceptos"], json!([]));
                assert_eq!(data["cfdi"]["emisorRfc"], json!(lote::RFC_EMISOR_LOTE));
                assert_eq!(data["retryStatus"]["retryCount"], json!(0));
                assert_eq!(data["retryStatus"]["nextRetryAt"], data["cfdi"]["xmlNextRetryAt"]);
                assert!(data["retryStatus"]["nextRetryAt"].as_str().is_some());
                assert_eq!(header(&answer, "x-sat-downloads-used"), 0, "metadata is free");
                ids.push(data["cfdi"]["id"].as_str().unwrap().to_owned());
            }
            // The retries are job rows with their run_at.
            let mut conn = app.db.conn().await.unwrap();
            let queued = timbra_store::sql!(scalar_one conn, i64,
                "SELECT COUNT(*) FROM jobs WHERE kind = 'sat.reintentar_xml' AND status = 'queued' AND empresa_id = $1",
                &empresa_id)
            .unwrap();
            drop(conn);
            assert_eq!(queued, 2);

            // SAT gets the first XML; the second never comes.
            sat.sim.configurar(|c| {
                c.uuids_solo_metadatos.remove(&documentos[0].uuid);
            });
            let estado = async |id: &str| app.get(&format!("/api/cfdi/{id}"), &who).await.data(200).clone();
            let waits = timbra_services::cfdi::recibidos::por_uuid::ESPERAS_MINUTOS;
            for (n, minutos) in waits.iter().enumerate() {
                let antes = estado(&ids[1]).await["xmlNextRetryAt"].clone();
                clock.advance(Duration::from_secs(u64::try_from(*minutos).unwrap() * 60 + 1));
                sat.sim.configurar(|c| c.ahora = Some(clock.now()));
                // The attempt is over when the next one is scheduled (or none is left).
                wait_for(20, "the retry", async || {
                    let ahora = estado(&ids[1]).await;
                    ahora["xmlRetryCount"] == json!(n + 1)
                        && (ahora["xmlNextRetryAt"] != antes
                            || ahora["xmlDownloadStatus"] == json!("PERMANENT_METADATA_ONLY"))
                })
                .await;
                if n == 0 {
                    wait_for(20, "the first XML", async || {
                        estado(&ids[0]).await["xmlDownloadStatus"] == json!("COMPLETE")
                    })
                    .await;
                }
            }
            let completo = estado(&ids[0]).await;
            assert_eq!(completo["xmlRetryCount"], json!(1), "the first retry brought it");
            assert_eq!(completo["xmlNextRetryAt"], Value::Null);
            assert_eq!(completo["conceptos"][0]["claveProdServ"], json!("43211500"));
            assert!(completo["xmlDownloadUrl"].as_str().is_some());
            let permanente = estado(&ids[1]).await;
            assert_eq!(permanente["xmlDownloadStatus"], json!("PERMANENT_METADATA_ONLY"));
            assert_eq!(permanente["xmlRetryCount"], json!(8));
            assert_eq!(permanente["xmlNextRetryAt"], Value::Null);

            wait_for(20, "cfdi.xml_disponible", async || !receiver.accepted().is_empty()).await;
            let event = receiver.accepted()[0].json();
            assert_eq!(event["type"], json!("cfdi.xml_disponible"));
            assert_eq!(event["data"]["cfdiId"], json!(ids[0]));
            assert_eq!(event["data"]["uuid"], json!(documentos[0].uuid));
            assert_eq!(event["data"]["xmlRetryCount"], json!(1));
            // Delivery is at least once (the clock jumps hours past delivery leases): one event.
            let ids_eventos: HashSet<String> =
                receiver.accepted().iter().map(|hit| hit.json()["id"].as_str().unwrap().to_owned()).collect();
            assert_eq!(ids_eventos.len(), 1, "one event, for the one that arrived");
            let listed = recibidas_listadas(&app, &who).await;
            let status: HashSet<String> =
                listed.iter().map(|c| c["xmlDownloadStatus"].as_str().unwrap().to_owned()).collect();
            assert_eq!(status, HashSet::from(["COMPLETE".to_owned(), "PERMANENT_METADATA_ONLY".to_owned()]));
        }
    })
    .await;
}

/// `timbra serve` as a child process pointed at the simulator (SAT's pause 0, a 4 s lease).
async fn serve_child(data: &Path, port: u16, sat: &Sat) -> Server {
    let env = [
        ("TIMBRA_JOBS_LEASE_SECONDS", "4".to_owned()),
        ("TIMBRA_SAT_AUTH_URL", format!("{}/Autenticacion/Autenticacion.svc", sat.base)),
        ("TIMBRA_SAT_SOLICITA_URL", format!("{}/SolicitaDescargaService.svc", sat.base)),
        ("TIMBRA_SAT_VERIFICA_URL", format!("{}/VerificaSolicitudDescargaService.svc", sat.base)),
        ("TIMBRA_SAT_DESCARGA_URL", format!("{}/DescargaMasivaService.svc", sat.base)),
        ("TIMBRA_SAT_POLL_SECONDS", "0".to_owned()),
        ("TIMBRA_SAT_CERTS_DIR", sat.certs.0.display().to_string()),
    ];
    Server::start(data, port, &env).await
}

async fn call(server: &Server, method: reqwest::Method, path: &str, who: &As, body: Option<Value>) -> Value {
    let mut request = reqwest::Client::new().request(method, format!("{}{path}", server.base));
    if let Some(key) = &who.key {
        request = request.bearer_auth(key);
    }
    if let Some(empresa) = &who.empresa {
        request = request.header("x-empresa-id", empresa);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap().json().await.unwrap()
}

#[tokio::test]
async fn a_sync_killed_with_sigkill_resumes_from_its_saved_progress() {
    use reqwest::Method;
    let documentos = recibidas(4);
    let sat = sat(|c| {
        c.documentos = documentos.clone();
        c.documentos_por_paquete = 1;
        c.consultas_en_proceso = 2;
        c.retraso_descarga = Duration::from_millis(600);
    })
    .await;
    let data = TempDir::new();
    let port = free_port().await;
    let server = serve_child(&data.0, port, &sat).await;
    let none = As::default();
    call(
        &server,
        Method::POST,
        "/api/auth/register",
        &none,
        Some(json!({ "name": "Ana", "email": "k9@example.com", "password": "Secreto1!" })),
    )
    .await;
    let key = call(
        &server,
        Method::POST,
        "/api/api-keys",
        &none,
        Some(json!({ "name": "t", "email": "k9@example.com", "password": "Secreto1!" })),
    )
    .await["data"]["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let empresa = call(&server, Method::POST, "/api/empresas", &As::key(&key), Some(json!({ "rfc": RFC, "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "42501" })))
        .await["data"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    call(&server, Method::POST, &format!("/api/empresas/{empresa}/fiel"), &As::key(&key), Some(fiel_body())).await;
    let who = As::key(&key).in_empresa(&empresa);
    let (year, month, _) = mes_pasado();
    let started =
        call(&server, Method::POST, "/api/cfdi/sync-recibidos", &who, Some(json!({ "year": year, "month": month })))
            .await;
    assert_eq!(started["data"]["status"], json!("started"), "{started:#}");

    // SIGKILL once the first of four packages is stored.
    wait_for(30, "the first package", async || {
        let status = call(&server, Method::GET, "/api/cfdi/sync-recibidos", &who, None).await;
        status["data"]["progress"]["paquetesHechos"] == json!(1)
    })
    .await;
    server.kill_9();

    let server = serve_child(&data.0, port, &sat).await;
    let mut status = Value::Null;
    wait_for(40, "the resumed sync", async || {
        status = call(&server, Method::GET, "/api/cfdi/sync-recibidos", &who, None).await["data"].clone();
        status["syncStatus"] != json!("RUNNING")
    })
    .await;
    assert_eq!(status["syncStatus"], json!("IDLE"), "{status:#}");
    assert_eq!(status["totalRecibidos"], json!(4));
    assert_eq!(status["progress"]["paquetesHechos"], json!(4));
    assert_eq!(status["progress"]["cfdiNuevos"], json!(4));
    // SAT was asked once, and the stored package was not downloaded again.
    assert_eq!(sat.sim.solicitudes_aceptadas(), 1);
    let listed = call(&server, Method::GET, "/api/cfdi?tipo=RECIBIDA", &who, None).await;
    assert_eq!(listed["data"]["total"], json!(4));
    let paquetes: Vec<String> = {
        let db = timbra_store::Db::connect(&format!("sqlite://{}", data.0.join("timbra.db").display())).await.unwrap();
        let mut conn = db.conn().await.unwrap();
        let texto = timbra_store::sql!(scalar_one conn, String, "SELECT paquetes FROM sincronizaciones").unwrap();
        serde_json::from_str(&texto).unwrap()
    };
    assert_eq!(paquetes.len(), 4);
    assert_eq!(sat.sim.descargas_de(&paquetes[0]), 1, "the package stored before the kill is not downloaded again");
    for paquete in &paquetes[1..] {
        assert!((1..=2).contains(&sat.sim.descargas_de(paquete)), "{paquete}");
    }
    drop(server);
}
