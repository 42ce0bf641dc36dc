//! `Idempotency-Key` on stamping and cancellation: the same key with the same body replays the
//! first answer
//! (status and body); with another body it is refused (409 IDEMPOTENCY_001). Keys are per
//! company and kept with the invoice in the same transaction, so a replay exists exactly when
//! the invoice does. Only successful answers are kept: a request that failed may be retried
//! with the same key.
//!
//! A key is bound to its first use: the operation (`cfdi.timbrar`, `cfdi.pagos.timbrar`,
//! `cfdi.cancelar`) and, for an operation on an existing invoice, that invoice. The same key
//! on another operation or invoice is refused with 409 IDEMPOTENCY_001 naming the first use
//! (`details.route`, `details.cfdiId`), before the body is validated.
//!
//! A live stamp or cancellation waits for the PAC outside any transaction, so its key is first
//! *reserved* (status [`IN_PROGRESS`]; for a stamp, in the transaction that spends the folio): a
//! second request with the same key meanwhile gets 409 IDEMPOTENCY_002 instead of reaching the
//! PAC again. The
//! reservation becomes the answer on success and is removed on failure; one left by a process
//! that died is given up after [`ABANDONED_AFTER`].

use http::{HeaderMap, StatusCode};
use sha2::{Digest, Sha256};
use timbra_store::ids::{CfdiId, EmpresaId};

use serde_json::json;
use timbra_store::AsExec;
use timbra_store::idempotency_keys::{self, NewAnswer, StoredAnswer};

use crate::error::{ApiError, ApiResult, Code};

/// Longest key accepted.
pub const MAX_KEY: usize = 255;
/// The header set on a replayed answer.
pub const REPLAYED: &str = "idempotent-replayed";
/// The stored status of a reserved key (HTTP 102 Processing).
pub const IN_PROGRESS: i64 = 102;
/// After this long a reservation is taken as left by a process that stopped mid-request.
pub const ABANDONED_AFTER: time::Duration = time::Duration::minutes(10);

/// A key and the digest of the body it came with.
#[derive(Clone, Debug)]
pub struct Key {
    /// The key as sent.
    pub key: String,
    /// SHA-256 hex of the body bytes.
    pub request_hash: String,
}

/// What a key is used for: its operation and, for an operation on an existing invoice (a
/// cancellation), that invoice.
#[derive(Clone, Copy, Debug)]
pub struct Uso<'a> {
    /// `cfdi.timbrar`, `cfdi.pagos.timbrar`, `cfdi.cancelar`, ...
    pub operation: &'a str,
    /// The invoice acted on.
    pub cfdi_id: Option<&'a str>,
}

impl<'a> Uso<'a> {
    /// A use that creates a document (a stamp).
    pub fn de(operation: &'a str) -> Self {
        Self { operation, cfdi_id: None }
    }

    /// A use on the existing invoice `cfdi_id`.
    pub fn sobre(operation: &'a str, cfdi_id: &'a CfdiId) -> Self {
        Self { operation, cfdi_id: Some(cfdi_id.as_str()) }
    }
}

/// The `Idempotency-Key` header, if sent (REQUEST_001 when empty or too long).
pub fn from_headers(headers: &HeaderMap, body: &[u8]) -> ApiResult<Option<Key>> {
    let Some(value) = headers.get("idempotency-key") else { return Ok(None) };
    let key = value.to_str().map(str::trim).unwrap_or_default();
    if key.is_empty() || key.len() > MAX_KEY {
        return Err(ApiError::new(
            Code::Request001,
            format!("Idempotency-Key must be 1 to {MAX_KEY} visible ASCII characters"),
        ));
    }
    Ok(Some(Key { key: key.to_owned(), request_hash: hex::encode(Sha256::digest(body)) }))
}

/// How an operation name reads as the route that answers it (`cfdi.pagos` →
/// `POST /api/cfdi/pagos/timbrar`). The document types' registry knows, and it sits above this
/// module (its types stamp through here), so [`crate::wiring`] hands the lookup down once at
/// start ([`rutas_de`]) instead of this module naming the registry.
pub type Rutas = fn(operation: &str, cfdi_id: Option<&str>) -> String;

static RUTAS: std::sync::OnceLock<Rutas> = std::sync::OnceLock::new();

/// Sets how operation names read as routes (once per process; later calls keep the first).
pub fn rutas_de(rutas: Rutas) {
    let _ = RUTAS.set(rutas);
}

/// The route a stored operation answers on, as the API documents it; the bare operation name
/// before [`rutas_de`] was called.
fn route(operation: &str, cfdi_id: Option<&str>) -> String {
    match RUTAS.get() {
        Some(rutas) => rutas(operation, cfdi_id),
        None => operation.to_owned(),
    }
}

/// IDEMPOTENCY_001 when `stored` was another operation or acted on another invoice than `uso`:
/// the key is bound to its first use. Keys stored before the invoice was recorded (no
/// `cfdi_id`) are judged by the operation alone.
fn misma_operacion(stored: &StoredAnswer, uso: Uso<'_>) -> ApiResult<()> {
    let mismo_cfdi = match (stored.cfdi_id.as_ref().map(CfdiId::as_str), uso.cfdi_id) {
        (Some(primero), Some(ahora)) => primero == ahora,
        _ => true,
    };
    if stored.operation == uso.operation && mismo_cfdi {
        return Ok(());
    }
    // A stamp's invoice is in its stored answer (`data.cfdiId`).
    let cfdi_id = stored.cfdi_id.clone().map(String::from).or_else(|| {
        serde_json::from_str::<serde_json::Value>(&stored.response)
            .ok()
            .and_then(|answer| answer["data"]["cfdiId"].as_str().map(str::to_owned))
    });
    let route = route(&stored.operation, stored.cfdi_id.as_ref().map(CfdiId::as_str));
    Err(ApiError::new(
        Code::Idempotency001,
        format!("this Idempotency-Key was first used on {route}; use a new key for another operation or invoice"),
    )
    .with_details(json!({ "route": route, "cfdiId": cfdi_id })))
}

/// The stored answer for `key`, replayed, or `None` when the key is new (or its reservation
/// was abandoned, which is then removed). A key used for another operation or invoice than
/// `uso` is refused (IDEMPOTENCY_001), whatever the body.
pub async fn replay(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    key: &Key,
    uso: Uso<'_>,
    now: time::OffsetDateTime,
) -> ApiResult<Option<Answer>> {
    let Some(stored) = idempotency_keys::get(conn, empresa_id, &key.key).await? else { return Ok(None) };
    misma_operacion(&stored, uso)?;
    replay_stored(conn, empresa_id, key, stored, now).await
}

fn en_curso() -> ApiError {
    ApiError::new(
        Code::Idempotency002,
        "a request with this Idempotency-Key is still waiting for the PAC; retry in a few seconds",
    )
}

/// [`replay`] of a stored key whose use was already checked.
async fn replay_stored(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    key: &Key,
    stored: StoredAnswer,
    now: time::OffsetDateTime,
) -> ApiResult<Option<Answer>> {
    if stored.request_hash != key.request_hash {
        return Err(ApiError::new(
            Code::Idempotency001,
            "this Idempotency-Key was used with another body; use a new key for a new request",
        ));
    }
    if stored.status == IN_PROGRESS && !stored.response.is_empty() {
        // Held by a live stamping attempt (its id is kept as the response). The stamping
        // pipeline finds that attempt by the body and resends it, or answers IDEMPOTENCY_002
        // while it is being sent (`cfdi::live`).
        return Ok(None);
    }
    if stored.status == IN_PROGRESS {
        if now - stored.created_at < ABANDONED_AFTER {
            return Err(en_curso());
        }
        idempotency_keys::delete_if_unchanged(conn, empresa_id, &key.key, IN_PROGRESS, stored.created_at).await?;
        return Ok(None);
    }
    let status = u16::try_from(stored.status).ok().and_then(|s| StatusCode::from_u16(s).ok()).unwrap_or(StatusCode::OK);
    Ok(Some(Answer { status, body: stored.response, replayed: true }))
}

fn fila<'a>(
    empresa_id: &'a EmpresaId,
    key: &'a Key,
    uso: Uso<'a>,
    status: i64,
    response: &'a str,
    now: time::OffsetDateTime,
) -> NewAnswer<'a> {
    NewAnswer {
        empresa_id,
        key: &key.key,
        operation: uso.operation,
        cfdi_id: uso.cfdi_id,
        request_hash: &key.request_hash,
        status,
        response,
        now,
    }
}

/// Records the answer given for `key` (inside the operation's transaction). A unique
/// violation means a concurrent request with the same key won; the caller rolls back and
/// replays it.
pub async fn store(
    conn: &mut impl AsExec,
    empresa_id: &EmpresaId,
    key: &Key,
    uso: Uso<'_>,
    status: StatusCode,
    response: &str,
    now: time::OffsetDateTime,
) -> timbra_store::DbResult<u64> {
    idempotency_keys::insert(conn, &fila(empresa_id, key, uso, i64::from(status.as_u16()), response, now)).await
}

/// Reserves `key` while a live cancellation waits for the PAC. `false` when another request
/// holds or used the key: the caller rolls back and [`replay`]s.
pub async fn reserve(
    tx: &mut timbra_store::Tx,
    empresa_id: &EmpresaId,
    key: &Key,
    uso: Uso<'_>,
    now: time::OffsetDateTime,
) -> ApiResult<bool> {
    reserve_for(tx, empresa_id, key, uso, "", now).await
}

/// Reserves `key` for the live stamping attempt `referencia` (its id), inside the
/// transaction that spends the folio, until the attempt is resolved.
pub async fn reserve_for(
    tx: &mut timbra_store::Tx,
    empresa_id: &EmpresaId,
    key: &Key,
    uso: Uso<'_>,
    referencia: &str,
    now: time::OffsetDateTime,
) -> ApiResult<bool> {
    match idempotency_keys::insert(tx, &fila(empresa_id, key, uso, IN_PROGRESS, referencia, now)).await {
        Err(error) if error.is_duplicate() => Ok(false),
        other => other.map(|_| true).map_err(ApiError::from),
    }
}

/// The answer of the request that holds or used `key`, for a request that lost the race for
/// it (its own transaction already dropped): a replay, or IDEMPOTENCY_001/_002. `uso` is the
/// losing request's; `None` when it resolves the very attempt that holds the key (a live
/// stamp's retry), whose use is the key's own.
pub async fn winner(
    db: &timbra_store::Db,
    empresa_id: &EmpresaId,
    key: &Key,
    uso: Option<Uso<'_>>,
    now: time::OffsetDateTime,
) -> ApiResult<Answer> {
    let mut conn = db.conn().await?;
    let uso = match uso {
        Some(uso) => uso,
        None => match idempotency_keys::get(&mut conn, empresa_id, &key.key).await? {
            Some(stored) => return replay_stored(&mut conn, empresa_id, key, stored, now).await?.ok_or_else(en_curso),
            None => return Err(en_curso()),
        },
    };
    replay(&mut conn, empresa_id, key, uso, now).await?.ok_or_else(en_curso)
}

/// Claims `key` for a sandbox stamp of a batch (`cfdi::group_commit`), inside the batch's
/// transaction, as a reservation its answer then replaces. `false` when another request holds
/// or used the key. `ON CONFLICT DO NOTHING` rather than a unique violation: on PostgreSQL a
/// failed statement would abort the whole batch.
pub async fn claim(
    tx: &mut timbra_store::Tx,
    empresa_id: &EmpresaId,
    key: &Key,
    uso: Uso<'_>,
    now: time::OffsetDateTime,
) -> timbra_store::DbResult<bool> {
    idempotency_keys::insert_if_new(tx, &fila(empresa_id, key, uso, IN_PROGRESS, "", now)).await
}

/// Removes a reservation after a failed attempt, so the key may be retried.
pub async fn release(tx: &mut timbra_store::Tx, empresa_id: &EmpresaId, key: &Key) -> timbra_store::DbResult<u64> {
    idempotency_keys::delete_with_status(tx, empresa_id, &key.key, IN_PROGRESS).await
}

/// Stores the finished `answer` under `key` (when a key was sent; `reservada` when
/// [`reserve`] already holds it) in `tx`, the operation's own transaction, which the caller
/// then commits. `false` when a concurrent request with the same key stored first: the caller
/// drops `tx` and answers [`winner`].
#[allow(clippy::too_many_arguments)]
pub async fn store_answer(
    tx: &mut timbra_store::Tx,
    empresa_id: &EmpresaId,
    key: Option<&Key>,
    uso: Uso<'_>,
    status: StatusCode,
    answer: &str,
    now: time::OffsetDateTime,
    reservada: bool,
) -> ApiResult<bool> {
    let Some(key) = key else { return Ok(true) };
    if reservada {
        idempotency_keys::set_answer(tx, empresa_id, &key.key, i64::from(status.as_u16()), answer).await?;
        return Ok(true);
    }
    match store(tx, empresa_id, key, uso, status, answer, now).await {
        Err(error) if error.is_duplicate() => Ok(false),
        other => other.map(|_| true).map_err(ApiError::from),
    }
}

/// An answer to give the client, as first given and as replayed: its status and the JSON
/// envelope's text (the HTTP side sends it with `Content-Type: application/json`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The status it is answered with.
    pub status: StatusCode,
    /// The envelope, as stored.
    pub body: String,
    /// Whether it is a replay of a stored answer (the `idempotent-replayed: true` header).
    pub replayed: bool,
}

impl Answer {
    /// The `cfdiId` of a stamp's answer (`data.cfdiId` of its envelope), when it has one.
    pub fn cfdi_id(&self) -> Option<String> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Timbrado {
            cfdi_id: String,
        }
        #[derive(serde::Deserialize)]
        struct Envelope {
            data: Timbrado,
        }
        serde_json::from_str::<Envelope>(&self.body).ok().map(|envelope| envelope.data.cfdi_id)
    }

    /// The error a stored answer carries (`error` of its envelope), when its status is not a
    /// success.
    pub fn error(&self) -> Option<crate::error::ApiError> {
        #[derive(serde::Deserialize)]
        struct Error {
            code: String,
            message: String,
            #[serde(default)]
            details: Option<serde_json::Value>,
        }
        #[derive(serde::Deserialize)]
        struct Envelope {
            error: Error,
        }
        if self.status.is_success() {
            return None;
        }
        let error = serde_json::from_str::<Envelope>(&self.body).ok()?.error;
        let code = crate::error::Code::ALL
            .iter()
            .copied()
            .find(|code| code.as_str() == error.code)
            .unwrap_or(crate::error::Code::Internal);
        let mut answer = crate::error::ApiError::new(code, error.message);
        if let Some(details) = error.details.filter(|d| !d.is_null()) {
            answer.details = details;
        }
        Some(answer)
    }
}

/// The JSON answer `answer` with `status`.
pub fn answer(status: StatusCode, answer: String) -> Answer {
    Answer { status, body: answer, replayed: false }
}
