//! Builds the application context from the configuration: the one place that names every
//! part (job kinds, caches, clients), so that [`crate::context`] names none of them.

use std::sync::Arc;

use crate::config::Config;
use crate::context::AppContext;
use crate::rate_limit::RateLimiter;
use timbra_store::Db;

impl AppContext {
    /// Builds the state around an open database.
    pub fn new(db: Db, config: Config) -> Self {
        crate::idempotency::rutas_de(crate::cfdi::tipos::ruta_de_operacion);
        let rate_limiter = Arc::new(RateLimiter::for_db(config.rate_limit.clone(), &db));
        let clock = config.clock.clone();
        let webhook_client = crate::webhooks::red::client(&config.webhooks);
        let cfdi = Arc::new(crate::cfdi::state::CfdiState::new(&config));
        let pac = config.pac.clone().and_then(|pac| match timbra_pac::finkok::FinkokClient::new(pac) {
            Ok(client) => Some(Arc::new(client) as Arc<dyn timbra_pac::Pac>),
            Err(error) => {
                tracing::error!(%error, "the PAC client could not be built; live stamping is off");
                None
            }
        });
        Self {
            db,
            config: Arc::new(config),
            rate_limiter,
            key_touches: Arc::default(),
            auth_cache: Arc::default(),
            clock,
            jobs: Arc::new(crate::jobs::kinds::registry()),
            webhook_client,
            catalogos: crate::catalogos::incluidos(),
            cfdi,
            pac,
        }
    }
}
