//! An opened CSD, as the caches and the sealing threads hold it.

use timbra_credentials::Credential;
use time::OffsetDateTime;

/// RFC the sandbox stamper signs as (SAT's test PAC RFC).
pub const RFC_PAC_SANDBOX: &str = "SPR190613I52";

/// An opened CSD of a company.
#[derive(Debug)]
pub struct Csd {
    /// Row id in `certificados` (the cache key's version).
    pub id: String,
    /// `UPLOAD` or `SANDBOX`.
    pub origen: String,
    /// End of validity.
    pub vigencia_fin: OffsetDateTime,
    /// Certificate and key.
    pub credential: Credential,
}
