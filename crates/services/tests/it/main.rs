//! Service-level tests: operations called with typed values, without HTTP, on a fresh SQLite
//! database (one module per area).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod scoped;

use timbra_services::config::Config;
use timbra_services::context::AppContext;
use timbra_store::ids::{EmpresaId, UserId};
use timbra_store::{Db, empresas, users};

/// A fresh database in its own folder under the system's temporary one, with one user and one
/// company of theirs; the company's id.
async fn app_with_empresa() -> (AppContext, EmpresaId) {
    let dir = std::env::temp_dir().join(format!("timbra-services-{}", uuid::Uuid::new_v4().simple()));
    let mut config = Config::from_lookup(|_| None).unwrap();
    config.data_dir = dir.clone();
    config.database_url = format!("sqlite://{}", dir.join("timbra.db").display());
    timbra_services::private_fs::create_dir(&dir).unwrap();
    timbra_services::private_fs::prepare_sqlite_file(&dir.join("timbra.db")).unwrap();
    let db = Db::connect(&config.database_url).await.unwrap();
    db.migrate().await.unwrap();
    let app = AppContext::new(db, config);
    let now = app.clock.now();
    let (user_id, empresa_id) = (UserId::new(), EmpresaId::new());
    users::crear(&mut app.db.conn().await.unwrap(), &user_id, "Ana", "ana@example.com", "x", now).await.unwrap();
    let datos = empresas::Datos {
        razon_social: "ESCUELA KEMPER URGATE",
        regimen_fiscal: "601",
        codigo_postal: "42501",
        nombre_comercial: None,
        registro_patronal: None,
        sandbox: true,
        serie_predeterminada: "A",
        serie_pagos: "P",
        dias_aguinaldo: 15,
        metodo_isr_extraordinario: "ART96",
        prima_riesgo: None,
    };
    let mut tx = app.db.begin().await.unwrap();
    empresas::crear(&mut tx, &empresa_id, &user_id, "EKU9003173C9", &datos, "PROPIETARIO", now).await.unwrap();
    tx.commit().await.unwrap();
    (app, empresa_id)
}
