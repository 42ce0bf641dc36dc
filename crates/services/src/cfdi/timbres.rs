//! Top-ups of a company's stamp balance: the installation operator's act, on the server's
//! command line (`timbra timbres recargar`) or through the API with an operator account. Live
//! stamps are bought from the PAC by whoever runs the installation; a company's owner adding
//! them would spend the operator's stamps (issue 28, finding 5). Sandbox stamping takes none.

use timbra_store::ids::{EmpresaId, UserId};
use time::OffsetDateTime;

use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use timbra_store::{Db, timbres};

/// Most stamps one top-up may add.
pub const MAX_RECARGA: i64 = 10_000_000;

/// Adds `cantidad` stamps to the balance of company `empresa_id`, recorded with `concepto`
/// (default `recarga`) and the operator's account (`None` on the command line); the new
/// balance. TIMBRES_001 for a `cantidad` outside 1 to [`MAX_RECARGA`], NOT_FOUND for a company
/// that does not exist.
pub async fn recargar(
    db: &Db,
    empresa_id: &EmpresaId,
    cantidad: Option<i64>,
    concepto: Option<&str>,
    operador: Option<&UserId>,
    now: OffsetDateTime,
) -> ApiResult<i64> {
    let cantidad = match cantidad {
        Some(n) if (1..=MAX_RECARGA).contains(&n) => n,
        _ => {
            return Err(ApiError::fields(
                Code::Timbres001,
                vec![FieldProblem::new("cantidad", format!("cantidad is a whole number from 1 to {MAX_RECARGA}"))],
            ));
        }
    };
    let concepto = concepto.map(|c| c.trim().chars().take(200).collect::<String>()).unwrap_or_else(|| "recarga".into());
    let mut tx = db.begin().await?;
    if !timbres::empresa_activa(&mut tx, empresa_id).await? {
        return Err(ApiError::not_found("company"));
    }
    let saldo = timbres::recargar(&mut tx, empresa_id, cantidad, &concepto, operador, now).await?;
    tx.commit().await?;
    Ok(saldo)
}
