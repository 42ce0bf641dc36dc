//! SAT's daily download quota per RFC: 2,000 XML a day, of which the service uses at most
//! 1,800 (a buffer of 200 for downloads made elsewhere with the same FIEL). Only XML stored
//! count; metadata and answers from what is already stored are free. The day is Mexico City's
//! (UTC−6 all year since 2022), so the count starts again at its midnight.

use http::{HeaderMap, HeaderValue};
use time::OffsetDateTime;

use crate::cfdi::hora_local;
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use timbra_store::{self as db, Tx};

/// SAT's limit per RFC and day.
pub const LIMITE_SAT: i64 = 2_000;
/// Kept free under SAT's limit.
pub const RESERVA: i64 = 200;
/// What the service downloads at most per RFC and day.
pub const LIMITE: i64 = LIMITE_SAT - RESERVA;

/// The quota of one RFC now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cuota {
    /// XML downloaded today.
    pub usadas: i64,
    /// [`LIMITE`].
    pub limite: i64,
    /// Seconds until midnight in Mexico City.
    pub reinicio: i64,
}

impl Cuota {
    /// Downloads left today.
    pub fn restantes(&self) -> i64 {
        (self.limite - self.usadas).max(0)
    }

    /// `X-SAT-Downloads-Used`, `-Limit`, `-Remaining` and `-Reset` (seconds).
    pub fn cabeceras(&self, headers: &mut HeaderMap) {
        for (nombre, valor) in [
            ("x-sat-downloads-used", self.usadas),
            ("x-sat-downloads-limit", self.limite),
            ("x-sat-downloads-remaining", self.restantes()),
            ("x-sat-downloads-reset", self.reinicio),
        ] {
            headers.insert(nombre, HeaderValue::from(valor));
        }
    }

    /// SAT_QUOTA (429) with `Retry-After` at the reset.
    pub fn agotada(&self) -> ApiError {
        let mut error = ApiError::new(
            Code::SatQuota,
            format!(
                "the daily quota of {} XML downloads from SAT for this RFC is used up; it resets at midnight Mexico \
                 City time, in {} seconds",
                self.limite, self.reinicio
            ),
        )
        .with_details(serde_json::json!({ "used": self.usadas, "limit": self.limite, "resetSeconds": self.reinicio }));
        error.retry_after = Some(u64::try_from(self.reinicio.max(1)).unwrap_or(1));
        error
    }
}

/// The Mexico City day of `now` (`AAAA-MM-DD`), the key of the count.
pub fn dia(now: OffsetDateTime) -> String {
    hora_local(now).date().to_string()
}

/// Seconds from `now` to the next midnight in Mexico City.
pub fn segundos_para_reinicio(now: OffsetDateTime) -> i64 {
    let local = hora_local(now);
    let manana = local.date().next_day().unwrap_or(local.date()).midnight().assume_offset(local.offset());
    (manana - local).whole_seconds().max(0)
}

/// The quota of `rfc` now.
pub async fn leer(app: &AppContext, rfc: &str) -> ApiResult<Cuota> {
    let now = app.clock.now();
    let mut conn = app.db.conn().await?;
    let usadas = db::sat_cuota::usadas(&mut conn, rfc, &dia(now)).await?;
    Ok(Cuota { usadas, limite: LIMITE, reinicio: segundos_para_reinicio(now) })
}

/// Reserves up to `cantidad` downloads for `rfc` in the caller's transaction (the count and
/// the stored XML commit together); gives how many were granted.
pub async fn reservar(tx: &mut Tx, rfc: &str, cantidad: i64, now: OffsetDateTime) -> timbra_store::DbResult<i64> {
    if cantidad <= 0 {
        return Ok(0);
    }
    let (concedidas, _) = db::sat_cuota::reservar(tx, rfc, &dia(now), cantidad, LIMITE, now).await?;
    Ok(concedidas)
}

/// Gives back reserved downloads that were not used.
pub async fn devolver(tx: &mut Tx, rfc: &str, cantidad: i64, now: OffsetDateTime) -> timbra_store::DbResult<()> {
    db::sat_cuota::devolver(tx, rfc, &dia(now), cantidad, now).await.map(|_| ())
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn the_day_and_its_reset_are_mexico_citys() {
        // 23:59:30 in Mexico City is 05:59:30 UTC the next day.
        let now = datetime!(2026-11-21 05:59:30 UTC);
        assert_eq!(dia(now), "2026-11-20");
        assert_eq!(segundos_para_reinicio(now), 30);
        let after = datetime!(2026-11-21 06:00:00 UTC);
        assert_eq!(dia(after), "2026-11-21");
        assert_eq!(segundos_para_reinicio(after), 86_400);
        let cuota = Cuota { usadas: 1_799, limite: LIMITE, reinicio: 10 };
        assert_eq!(cuota.restantes(), 1);
        assert_eq!(Cuota { usadas: 1_900, ..cuota }.restantes(), 0);
        let error = cuota.agotada();
        assert_eq!((error.code, error.retry_after), (Code::SatQuota, Some(10)));
    }
}
