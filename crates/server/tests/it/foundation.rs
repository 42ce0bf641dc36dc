//! Accounts, keys, companies, members, customers, products, the envelope and rate limits.

use reqwest::Method;
use serde_json::{Value, json};

use crate::harness::{As, TestApp, each_backend, each_backend_with};

fn cliente(rfc: &str, name: &str) -> Value {
    json!({ "rfc": rfc, "razonSocial": name, "regimenFiscal": "626", "codigoPostal": "64000" })
}

#[tokio::test]
async fn registration_validates_every_field_and_keeps_unicode() {
    each_backend(|app: TestApp| async move {
        let bad = app
            .post("/api/auth/register", &As::default(), json!({ "name": "A", "email": "nope", "password": "short" }))
            .await;
        bad.assert_error(400, "USER_001");
        let fields: Vec<&str> = bad.body["error"]["details"]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap())
            .collect();
        assert_eq!(fields, ["name", "email", "password"]);

        let body = json!({ "name": "José Ñúñez", "email": "Jose@Example.com", "password": "Contraseña9#" });
        let created = app.post("/api/auth/register", &As::default(), body).await;
        assert_eq!(created.data(201)["name"], json!("José Ñúñez"));
        assert!(created.data(201)["password"].is_null());
        // Emails are unique whatever their case.
        let again = app
            .post(
                "/api/auth/register",
                &As::default(),
                json!({ "name": "Otro", "email": "jose@example.COM", "password": "Secreto1!" }),
            )
            .await;
        again.assert_error(409, "USER_002");
    })
    .await;
}

#[tokio::test]
async fn login_sets_an_http_only_cookie_and_wrong_credentials_say_nothing_more() {
    each_backend(|app: TestApp| async move {
        app.user("ana@example.com").await;
        let response = app
            .client
            .post(format!("{}/auth/callback/credentials", app.base))
            .json(&json!({ "email": "ana@example.com", "password": "Secreto1!" }))
            .send()
            .await
            .unwrap();
        let cookie = response.headers()["set-cookie"].to_str().unwrap().to_owned();
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"), "{cookie}");
        let answer = TestApp::read(response).await;
        assert_eq!(answer.data(200)["user"]["email"], json!("ana@example.com"));

        let wrong_password = app
            .post(
                "/api/auth/callback/credentials",
                &As::default(),
                json!({ "email": "ana@example.com", "password": "Secreto2!" }),
            )
            .await;
        let wrong_email = app
            .post(
                "/api/auth/callback/credentials",
                &As::default(),
                json!({ "email": "eva@example.com", "password": "Secreto1!" }),
            )
            .await;
        wrong_password.assert_error(401, "AUTH_004");
        wrong_email.assert_error(401, "AUTH_004");
        assert_eq!(wrong_password.body["error"]["message"], wrong_email.body["error"]["message"]);

        // The session lists keys; after logout it no longer works.
        let session = app.login("ana@example.com").await;
        let who = As { session: Some(session), ..As::default() };
        app.get("/api/api-keys", &who).await.data(200);
        app.post("/api/auth/logout", &who, json!({})).await.data(200);
        app.get("/api/api-keys", &who).await.assert_error(401, "AUTH_001");
    })
    .await;
}

#[tokio::test]
async fn api_keys_are_shown_once_listed_by_prefix_and_revocable_three_ways() {
    each_backend(|app: TestApp| async move {
        let (_, key) = app.user("ana@example.com").await;
        assert!(key.starts_with("tmb_sk_") && key.len() >= 7 + 43);
        let session = As { session: Some(app.login("ana@example.com").await), ..As::default() };

        // Listing needs a session; a key is not enough.
        app.get("/api/api-keys", &As::key(&key)).await.assert_error(401, "AUTH_001");
        let by_session = app.post("/api/api-keys", &session, json!({ "name": "ci", "expiresInDays": 30 })).await;
        let by_session = by_session.data(201).clone();
        assert!(by_session["expiresAt"].is_string());
        let rotated = app.post("/api/api-keys", &As::key(&key), json!({ "name": "rotated" })).await;
        let rotated_key = rotated.data(201)["key"].as_str().unwrap().to_owned();

        let listed = app.get("/api/api-keys", &session).await;
        let items = listed.data(200).as_array().unwrap().clone();
        assert_eq!(items.len(), 3);
        for item in &items {
            assert!(item.get("key").is_none(), "listing leaked a key: {item}");
            assert_eq!(item["active"], json!(true));
            assert!(
                key.starts_with(item["keyPrefix"].as_str().unwrap()) || !item["keyPrefix"].as_str().unwrap().is_empty()
            );
        }
        let first = items.iter().find(|item| item["name"] == json!("test")).unwrap();
        assert!(key.starts_with(first["keyPrefix"].as_str().unwrap()));
        // The key used above was touched once.
        assert!(first["lastUsedAt"].is_string());

        // Revoke by path, by query and by body.
        let revoke_path = app
            .call(Method::DELETE, &format!("/api/api-keys/{}", by_session["id"].as_str().unwrap()), &session, None)
            .await;
        assert_eq!(revoke_path.data(200)["revoked"], json!(true));
        let rotated_id = rotated.data(201)["id"].as_str().unwrap();
        app.call(Method::DELETE, &format!("/api/api-keys?id={rotated_id}"), &session, None).await.data(200);
        app.get("/api/empresas", &As::key(&rotated_key)).await.assert_error(401, "AUTH_001");
        let first_id = first["id"].as_str().unwrap();
        app.call(Method::DELETE, "/api/api-keys", &session, Some(json!({ "id": first_id }))).await.data(200);
        app.get("/api/empresas", &As::key(&key)).await.assert_error(401, "AUTH_001");
        app.call(Method::DELETE, "/api/api-keys", &session, None).await.assert_error(400, "APIKEY_001");
        app.call(Method::DELETE, "/api/api-keys/nope", &session, None).await.assert_error(404, "NOT_FOUND");
        let listed = app.get("/api/api-keys", &session).await;
        assert!(listed.data(200).as_array().unwrap().iter().all(|item| item["active"] == json!(false)));
    })
    .await;
}

#[tokio::test]
async fn expired_keys_and_deleted_accounts() {
    let clock = timbra_services::clock::Clock::shifted(0, 1.0);
    let adjust = {
        let clock = clock.clone();
        move |config: &mut timbra_services::config::Config| config.clock = clock.clone()
    };
    each_backend_with(adjust, |app: TestApp| {
        let clock = clock.clone();
        async move {
            let (_, key) = app.user("ana@example.com").await;
            let session = As { session: Some(app.login("ana@example.com").await), ..As::default() };
            let short = app.post("/api/api-keys", &session, json!({ "name": "short", "expiresInDays": 1 })).await;
            let short_key = short.data(201)["key"].as_str().unwrap().to_owned();
            app.get("/api/empresas", &As::key(&short_key)).await.data(200);
            // A day later the key has expired, although it was just used (and remembered).
            clock.advance(std::time::Duration::from_secs(86_400 + 60));
            app.get("/api/empresas", &As::key(&short_key)).await.assert_error(401, "AUTH_001");

            // Deleting the account takes the session and the password, never a key.
            app.call(Method::DELETE, "/api/auth/account", &As::key(&key), None).await.assert_error(403, "AUTH_005");
            app.call(Method::DELETE, "/api/auth/account", &session, Some(json!({ "password": "Secreto1!" })))
                .await
                .data(200);
            app.get("/api/empresas", &As::key(&key)).await.assert_error(401, "AUTH_002");
            app.get("/api/api-keys", &session).await.assert_error(401, "AUTH_001");
            app.post(
                "/api/auth/callback/credentials",
                &As::default(),
                json!({ "email": "ana@example.com", "password": "Secreto1!" }),
            )
            .await
            .assert_error(401, "AUTH_004");
        }
    })
    .await;
}

#[tokio::test]
async fn narrowed_keys_stay_narrow() {
    each_backend(|app: TestApp| async move {
        let (_, key) = app.user("ana@example.com").await;
        let first = app.empresa(&key, "EKU9003173C9").await;
        let second = app.empresa(&key, "XIA190128J61").await;
        let narrow = app
            .post(
                "/api/api-keys",
                &As::key(&key),
                json!({ "name": "one company", "empresaIds": [first], "scopes": ["cliente:view"] }),
            )
            .await;
        let narrow = narrow.data(201)["key"].as_str().unwrap().to_owned();
        let listed = app.get("/api/empresas", &As::key(&narrow)).await;
        assert_eq!(listed.data(200).as_array().unwrap().len(), 1);
        app.get("/api/clientes", &As::key(&narrow).in_empresa(&first)).await.data(200);
        app.get("/api/clientes", &As::key(&narrow).in_empresa(&second)).await.assert_error(403, "SCOPE_001");
        app.post("/api/clientes", &As::key(&narrow).in_empresa(&first), cliente("XIQB891116QE4", "Bety"))
            .await
            .assert_error(403, "SCOPE_002");
        // It cannot mint a wider key, nor a key for the other company, nor new companies.
        app.post("/api/api-keys", &As::key(&narrow), json!({ "name": "wider", "scopes": ["*"] }))
            .await
            .assert_error(403, "APIKEY_002");
        app.post("/api/api-keys", &As::key(&narrow), json!({ "name": "other", "empresaIds": [second] }))
            .await
            .assert_error(403, "APIKEY_002");
        let same = app.post("/api/api-keys", &As::key(&narrow), json!({ "name": "same" })).await;
        assert_eq!(same.data(201)["scopes"], json!(["cliente:view"]));
        assert_eq!(same.data(201)["empresaIds"], json!([first]));
        app.post("/api/empresas", &As::key(&narrow), json!({})).await.assert_error(403, "SCOPE_001");
        app.post("/api/api-keys", &As::key(&key), json!({ "name": "bad", "scopes": ["nope:x"] }))
            .await
            .assert_error(400, "APIKEY_001");
    })
    .await;
}

#[tokio::test]
async fn companies_validate_rfc_and_regimen_and_are_unique_per_account() {
    each_backend(|app: TestApp| async move {
        let (_, key) = app.user("ana@example.com").await;
        let bad = app.post("/api/empresas", &As::key(&key), json!({ "rfc": "EKU9013173C9", "regimenFiscal": "999", "codigoPostal": "4250" })).await;
        bad.assert_error(400, "EMPRESA_001");
        let fields: Vec<&str> = bad.body["error"]["details"]["fields"].as_array().unwrap().iter().map(|f| f["field"].as_str().unwrap()).collect();
        assert_eq!(fields, ["rfc", "razonSocial", "regimenFiscal", "codigoPostal"]);
        let moral_with_fisica_regimen = app
            .post("/api/empresas", &As::key(&key), json!({ "rfc": "EKU9003173C9", "razonSocial": "X", "regimenFiscal": "605", "codigoPostal": "42501" }))
            .await;
        moral_with_fisica_regimen.assert_error(400, "EMPRESA_001");
        assert!(moral_with_fisica_regimen.body["error"]["message"].as_str().unwrap().contains("personas físicas"));

        let created = app
            .post("/api/empresas", &As::key(&key), json!({ "rfc": "eku9003173c9", "razonSocial": "ESCUELA KEMPER URGATE", "regimenFiscal": "601", "codigoPostal": "42501" }))
            .await;
        let data = created.data(201);
        assert_eq!((data["rfc"].as_str(), data["seriePredeterminada"].as_str(), data["folioActual"].as_i64()), (Some("EKU9003173C9"), Some("A"), Some(0)));
        assert_eq!(data["sandbox"], json!(true));
        assert_eq!(created.headers["x-service-mode"], "sandbox");
        app.post("/api/empresas", &As::key(&key), json!({ "rfc": "EKU9003173C9", "razonSocial": "Y", "regimenFiscal": "601", "codigoPostal": "42501" }))
            .await
            .assert_error(409, "EMPRESA_002");
        // Another account may create the same SAT test RFC and learns nothing of the first.
        let (_, other) = app.user("eva@example.com").await;
        app.empresa(&other, "EKU9003173C9").await;
        assert_eq!(app.get("/api/empresas", &As::key(&other)).await.data(200).as_array().unwrap().len(), 1);

        // Going live shows in the mode header of requests acting on the company.
        let id = data["id"].as_str().unwrap().to_owned();
        let updated = app.call(Method::PATCH, &format!("/api/empresas/{id}"), &As::key(&key), Some(json!({ "sandbox": false, "registroPatronal": "B5510768108" }))).await;
        assert_eq!(updated.data(200)["registroPatronal"], json!("B5510768108"));
        assert_eq!(updated.headers["x-service-mode"], "live");
        assert_eq!(app.get("/api/clientes", &As::key(&key).in_empresa(&id)).await.headers["x-service-mode"], "live");
        app.call(Method::DELETE, &format!("/api/empresas/{id}"), &As::key(&key), None).await.data(200);
        assert_eq!(app.get("/api/empresas", &As::key(&key)).await.data(200).as_array().unwrap().len(), 0);
    })
    .await;
}

#[tokio::test]
async fn the_role_table_is_enforced_for_members() {
    each_backend(|app: TestApp| async move {
        let (owner_id, owner) = app.user("owner@example.com").await;
        let (facturador_id, facturador) = app.user("fact@example.com").await;
        let (_, usuario) = app.user("user@example.com").await;
        let empresa = app.empresa(&owner, "EKU9003173C9").await;
        let members = format!("/api/empresas/{empresa}/miembros");
        app.post(&members, &As::key(&owner), json!({ "email": "fact@example.com", "role": "FACTURADOR" }))
            .await
            .data(201);
        app.post(&members, &As::key(&owner), json!({ "email": "USER@example.com", "role": "USUARIO" })).await.data(201);
        app.post(&members, &As::key(&owner), json!({ "email": "user@example.com", "role": "USUARIO" }))
            .await
            .assert_error(409, "MEMBER_002");
        app.post(&members, &As::key(&owner), json!({ "email": "ghost@example.com", "role": "USUARIO" }))
            .await
            .assert_error(400, "MEMBER_001");
        app.post(&members, &As::key(&owner), json!({ "email": "ghost@example.com", "role": "JEFE" }))
            .await
            .assert_error(400, "MEMBER_001");

        let as_facturador = As::key(&facturador).in_empresa(&empresa);
        let as_usuario = As::key(&usuario).in_empresa(&empresa);
        let created = app.post("/api/clientes", &as_facturador, cliente("XIQB891116QE4", "Bety")).await;
        let cliente_id = created.data(201)["id"].as_str().unwrap().to_owned();
        app.post("/api/clientes", &as_usuario, cliente("XAXX010101000", "Público")).await.assert_error(403, "AUTH_003");
        app.get("/api/clientes", &as_usuario).await.data(200);
        let denied = app.call(Method::DELETE, &format!("/api/clientes/{cliente_id}"), &as_facturador, None).await;
        denied.assert_error(403, "AUTH_003");
        assert_eq!(denied.body["error"]["details"]["requiredRole"], json!("CONTADOR"));
        app.call(
            Method::PATCH,
            &format!("/api/empresas/{empresa}"),
            &As::key(&facturador),
            Some(json!({ "razonSocial": "X" })),
        )
        .await
        .assert_error(403, "AUTH_003");
        app.post(&members, &As::key(&facturador), json!({ "email": "user@example.com", "role": "USUARIO" }))
            .await
            .assert_error(403, "AUTH_003");

        // Promote to ADMINISTRADOR: may manage members but not grant PROPIETARIO nor touch the owner.
        app.call(
            Method::PATCH,
            &format!("{members}/{facturador_id}"),
            &As::key(&owner),
            Some(json!({ "role": "ADMINISTRADOR" })),
        )
        .await
        .data(200);
        app.call(
            Method::PATCH,
            &format!("{members}/{owner_id}"),
            &As::key(&facturador),
            Some(json!({ "role": "USUARIO" })),
        )
        .await
        .assert_error(403, "AUTH_003");
        app.call(Method::DELETE, &format!("/api/empresas/{empresa}"), &As::key(&facturador), None)
            .await
            .assert_error(403, "AUTH_003");
        // The last PROPIETARIO cannot leave or be demoted.
        app.call(Method::DELETE, &format!("{members}/{owner_id}"), &As::key(&owner), None)
            .await
            .assert_error(409, "EMPRESA_004");
        app.call(
            Method::PATCH,
            &format!("{members}/{owner_id}"),
            &As::key(&owner),
            Some(json!({ "role": "CONTADOR" })),
        )
        .await
        .assert_error(409, "EMPRESA_004");
        let listed = app.get(&members, &As::key(&usuario)).await;
        assert_eq!(listed.data(200).as_array().unwrap().len(), 3);
    })
    .await;
}

#[tokio::test]
async fn customers_crud_search_and_catalog_rules() {
    each_backend(|app: TestApp| async move {
        let (_, key) = app.user("ana@example.com").await;
        let empresa = app.empresa(&key, "EKU9003173C9").await;
        let who = As::key(&key).in_empresa(&empresa);
        app.get("/api/clientes", &As::key(&key)).await.assert_error(400, "EMPRESA_003");

        let created = app.post("/api/clientes", &who, json!({ "rfc": "IAÑL750210963", "razonSocial": "LUIS IAN ÑUZCO", "regimenFiscal": "612", "codigoPostal": "30230", "email": "luis@example.com" })).await;
        let data = created.data(201).clone();
        assert_eq!((data["rfc"].as_str(), data["usoCfdi"].as_str(), data["razonSocial"].as_str()), (Some("IAÑL750210963"), Some("G03"), Some("LUIS IAN ÑUZCO")));
        app.post("/api/clientes", &who, json!({ "rfc": "IAÑL750210963", "razonSocial": "Otro", "regimenFiscal": "612", "codigoPostal": "30230" })).await.assert_error(409, "CLIENTE_002");
        // The generic RFCs may repeat.
        for _ in 0..2 {
            app.post("/api/clientes", &who, json!({ "rfc": "XAXX010101000", "razonSocial": "PUBLICO EN GENERAL", "regimenFiscal": "616", "codigoPostal": "42501", "usoCfdi": "S01" })).await.data(201);
        }
        // G03 with régimen 616 is refused, suggesting S01.
        let refused = app.post("/api/clientes", &who, json!({ "rfc": "XIQB891116QE4", "razonSocial": "Bety", "regimenFiscal": "616", "codigoPostal": "42501" })).await;
        refused.assert_error(400, "CLIENTE_001");
        assert!(refused.body["error"]["message"].as_str().unwrap().contains("S01"), "{}", refused.body);
        let bad = app.post("/api/clientes", &who, json!({ "rfc": 12, "razonSocial": "x" })).await;
        bad.assert_error(400, "REQUEST_001");

        for (index, name) in ["ALFA SA", "BETA SC", "GAMMA 100% _ REAL"].iter().enumerate() {
            let rfc = format!("AAA01010{}AA{index}", index + 1);
            app.post("/api/clientes", &who, cliente(&rfc, name)).await.data(201);
        }
        let page = app.get("/api/clientes?page=1&pageSize=2", &who).await;
        let page = page.data(200);
        assert_eq!((page["total"].as_i64(), page["totalPages"].as_i64(), page["items"].as_array().unwrap().len()), (Some(6), Some(3), 2));
        assert_eq!(page["items"][0]["razonSocial"], json!("GAMMA 100% _ REAL"));
        let search = |q: &str| {
            let app = &app;
            let who = who.clone();
            let q = urlencode(q);
            async move { app.get(&format!("/api/clientes?q={q}"), &who).await.data(200)["total"].as_i64().unwrap() }
        };
        assert_eq!(search("beta").await, 1);
        assert_eq!(search("ñuzco").await, 1);
        assert_eq!(search("iañl").await, 1);
        assert_eq!(search("100%").await, 1);
        assert_eq!(search("_").await, 1);
        assert_eq!(search("' OR 1=1 --").await, 0);
        assert_eq!(search("%").await, 1);
        app.get("/api/clientes?pageSize=101", &who).await.assert_error(400, "REQUEST_001");
        app.get("/api/clientes?page=abc", &who).await.assert_error(400, "REQUEST_001");

        let id = data["id"].as_str().unwrap();
        let updated = app.call(Method::PATCH, &format!("/api/clientes/{id}"), &who, Some(json!({ "usoCfdi": "D01" }))).await;
        assert_eq!(updated.data(200)["usoCfdi"], json!("D01"));
        app.call(Method::PATCH, &format!("/api/clientes/{id}"), &who, Some(json!({ "regimenFiscal": "601" }))).await.assert_error(400, "CLIENTE_001");
        assert_eq!(app.get(&format!("/api/clientes/{id}"), &who).await.data(200)["email"], json!("luis@example.com"));
        app.call(Method::DELETE, &format!("/api/clientes/{id}"), &who, None).await.data(200);
        app.get(&format!("/api/clientes/{id}"), &who).await.assert_error(404, "NOT_FOUND");
    })
    .await;
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

#[tokio::test]
async fn products_keep_amounts_exact() {
    each_backend(|app: TestApp| async move {
        let (_, key) = app.user("ana@example.com").await;
        let empresa = app.empresa(&key, "EKU9003173C9").await;
        let who = As::key(&key).in_empresa(&empresa);
        let body = r#"{"claveProdServ":"81112100","claveUnidad":"E48","descripcion":"Servicio de timbrado","precioUnitario":1234.567891}"#;
        let response = app.client.post(format!("{}/api/productos", app.base)).bearer_auth(&key).header("x-empresa-id", &empresa).header("content-type", "application/json").body(body).send().await.unwrap();
        let raw = response.text().await.unwrap();
        assert!(raw.contains(r#""precioUnitario":1234.567891"#), "{raw}");
        assert!(raw.contains(r#""ivaRate":0.16"#), "{raw}");
        let from_string = app.post("/api/productos", &who, json!({ "claveProdServ": "01010101", "claveUnidad": "H87", "descripcion": "Pieza", "precioUnitario": "0.1", "ivaRate": "0.08" })).await;
        assert_eq!(from_string.data(201)["precioUnitario"].to_string(), "0.1");
        let bad = app.post("/api/productos", &who, json!({ "claveProdServ": "81", "claveUnidad": "", "descripcion": "", "precioUnitario": "1.0000001", "ivaRate": 0.15 })).await;
        bad.assert_error(400, "PRODUCTO_001");
        assert_eq!(bad.body["error"]["details"]["fields"].as_array().unwrap().len(), 5);
        app.post("/api/productos", &who, json!({ "claveProdServ": "81112100", "claveUnidad": "E48", "descripcion": "x", "precioUnitario": -1 })).await.assert_error(400, "PRODUCTO_001");
        let list = app.get("/api/productos?q=timbrado", &who).await;
        assert_eq!(list.data(200)["items"][0]["precioUnitario"].to_string(), "1234.567891");
    })
    .await;
}

#[tokio::test]
async fn every_failure_is_an_envelope() {
    each_backend(|app: TestApp| async move {
        let (_, key) = app.user("ana@example.com").await;
        app.get("/api/nope", &As::default()).await.assert_error(404, "NOT_FOUND");
        app.get("/nope", &As::key(&key)).await.assert_error(404, "NOT_FOUND");
        app.call(Method::PUT, "/api/empresas", &As::key(&key), None).await.assert_error(405, "METHOD_NOT_ALLOWED");
        let send = |body: &'static str, content_type: Option<&'static str>| {
            let mut request = app.client.post(format!("{}/api/empresas", app.base)).bearer_auth(&key).body(body);
            if let Some(content_type) = content_type {
                request = request.header("content-type", content_type);
            }
            async move { TestApp::read(request.send().await.unwrap()).await }
        };
        send("{not json", Some("application/json")).await.assert_error(400, "REQUEST_001");
        send(r#"{"rfc": 5}"#, Some("application/json")).await.assert_error(400, "REQUEST_001");
        send(r#"{"rfc": "EKU9003173C9"}"#, None).await.assert_error(400, "REQUEST_001");
        let huge = format!(r#"{{"rfc": "{}"}}"#, "A".repeat(3 * 1024 * 1024));
        let response = app
            .client
            .post(format!("{}/api/empresas", app.base))
            .bearer_auth(&key)
            .header("content-type", "application/json")
            .body(huge)
            .send()
            .await
            .unwrap();
        TestApp::read(response).await.assert_error(413, "REQUEST_002");
        // Both path forms reach the same resource.
        assert_eq!(
            app.get("/empresas", &As::key(&key)).await.data(200),
            app.get("/api/empresas", &As::key(&key)).await.data(200)
        );
        app.get("/api/empresas", &As::key("tmb_sk_wrong")).await.assert_error(401, "AUTH_001");
        app.get("/api/empresas", &As::default()).await.assert_error(401, "AUTH_001");
    })
    .await;
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after() {
    each_backend_with(
        |config| {
            config.rate_limit.enabled = true;
            config.rate_limit.key_per_second = 1;
            config.rate_limit.key_burst = 3;
            config.rate_limit.ip_per_second = 1;
            config.rate_limit.ip_burst = 50;
        },
        |app: TestApp| async move {
            let (_, key) = app.user("ana@example.com").await;
            let mut statuses = Vec::new();
            for _ in 0..5 {
                statuses.push(app.get("/api/empresas", &As::key(&key)).await);
            }
            let limited = statuses.iter().find(|answer| answer.status == 429).expect("a request was limited");
            limited.assert_error(429, "RATE_001");
            assert!(limited.headers["retry-after"].to_str().unwrap().parse::<u64>().unwrap() >= 1);
            // Another key has its own bucket.
            let (_, other) = app.user("eva@example.com").await;
            app.get("/api/empresas", &As::key(&other)).await.data(200);
        },
    )
    .await;
}

#[tokio::test]
async fn payroll_calculator_is_public_and_validates() {
    each_backend(|app: TestApp| async move {
        let body = json!({ "salarioDiario": 500, "salarioDiarioIntegrado": "522.60", "diasPagados": 15, "periodicidad": "QUINCENAL", "riesgoPuesto": "1", "fechaPago": "2026-03-15" });
        let answer = app.post("/api/nomina/calcular", &As::default(), body).await;
        let data = answer.data(200);
        assert_eq!(data["percepciones"]["sueldoBase"].to_string(), "7500.00");
        let neto = data["netoAPagar"].as_f64().unwrap();
        let total = data["percepciones"]["totalPercepciones"].as_f64().unwrap() - data["deducciones"]["totalDeducciones"].as_f64().unwrap();
        assert!((neto - total).abs() < 0.001);
        assert!(data["desglose"]["rangoISR"].as_str().unwrap().ends_with('%'));
        let bad = app.post("/api/nomina/calcular", &As::default(), json!({ "salarioDiario": -5, "periodicidad": "anual" })).await;
        bad.assert_error(400, "NOMINA_001");
        let fields: Vec<&str> = bad.body["error"]["details"]["fields"].as_array().unwrap().iter().map(|f| f["field"].as_str().unwrap()).collect();
        assert!(fields.contains(&"salarioDiario") && fields.contains(&"periodicidad"), "{fields:?}");
    })
    .await;
}
