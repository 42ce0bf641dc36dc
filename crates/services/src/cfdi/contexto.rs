//! What every stamp reads besides its body, kept in memory: the issuing company, the customer
//! and the id of the company's CSD (the opened CSD itself is kept by `credenciales`). Without
//! this each sandbox stamp made three database round trips before sealing, which on SQLite are
//! hand-offs to a connection's worker thread and back: more CPU than the XML.
//!
//! The answers live in [`Memo`]s of the authentication cache (`auth::cache`), so they follow its
//! rules: every change to a company, a customer or a CSD calls `auth::cache::changed` after its
//! commit, which forgets them here and, through PostgreSQL's `NOTIFY`, on every other instance;
//! an answer is trusted at most 5 s, and not at all while another instance's changes may go
//! unheard. Only what exists is kept: a customer created or a CSD stored a moment ago (perhaps
//! by another instance) is read from the database.

use crate::context::AppContext;
use crate::error::ApiResult;
use timbra_store::ids::{ClienteId, EmpresaId};
use timbra_store::{DbConn, clientes, empresas};

use timbra_store::clientes::ClienteReceptor;
use timbra_store::empresas::EmpresaEmisora;

/// A connection taken only when something is not in memory.
struct Perezosa<'a> {
    app: &'a AppContext,
    conn: Option<DbConn>,
}

impl Perezosa<'_> {
    async fn get(&mut self) -> ApiResult<&mut DbConn> {
        let conn = match self.conn.take() {
            Some(conn) => conn,
            None => self.app.db.conn().await?,
        };
        Ok(self.conn.insert(conn))
    }
}

/// The company `empresa_id` as stamping needs it and, when `cliente_id` is given, its customer
/// (`None` when the company has no such customer).
pub async fn emisora_y_receptor(
    app: &AppContext,
    empresa_id: &EmpresaId,
    cliente_id: Option<&str>,
) -> ApiResult<(EmpresaEmisora, Option<ClienteReceptor>)> {
    let contexto = &app.cfdi.contexto;
    let cache = &app.auth_cache;
    let mut conn = Perezosa { app, conn: None };
    let empresa = match contexto.emisoras.get(cache, empresa_id.as_str()) {
        Some(empresa) => empresa,
        None => {
            let generation = cache.generation();
            let empresa = empresas::emisora(conn.get().await?, empresa_id).await?;
            contexto.emisoras.put(empresa_id.as_str().to_owned(), generation, empresa.clone());
            empresa
        }
    };
    let Some(cliente_id) = cliente_id else { return Ok((empresa, None)) };
    let clave = (empresa_id.as_str().to_owned(), cliente_id.to_owned());
    if let Some(cliente) = contexto.receptores.get(cache, &clave) {
        return Ok((empresa, Some(cliente)));
    }
    let generation = cache.generation();
    let cliente = clientes::receptor(conn.get().await?, empresa_id, &ClienteId::from(cliente_id)).await?;
    if let Some(cliente) = &cliente {
        contexto.receptores.put(clave, generation, cliente.clone());
    }
    Ok((empresa, cliente))
}

/// The id of the company's CSD, `None` when it has none.
pub async fn csd_id(app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<Option<String>> {
    let contexto = &app.cfdi.contexto;
    if let Some(id) = contexto.csd_ids.get(&app.auth_cache, empresa_id.as_str()) {
        return Ok(Some(id));
    }
    let generation = app.auth_cache.generation();
    let mut conn = app.db.conn().await?;
    let id = timbra_store::certificados::csd_id(&mut conn, empresa_id).await?;
    if let Some(id) = &id {
        contexto.csd_ids.put(empresa_id.as_str().to_owned(), generation, id.clone());
    }
    Ok(id)
}

/// Forgets the company's CSD id: the next [`csd_id`] reads it (a sandbox CSD being replaced,
/// perhaps by another instance whose notice has not arrived yet).
pub fn olvidar_csd(app: &AppContext, empresa_id: &EmpresaId) {
    app.cfdi.contexto.csd_ids.forget(empresa_id.as_str());
}
