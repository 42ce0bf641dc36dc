//! `POST /api/cfdi/{id}/cancelar`: sandbox cancels at once; live signs the request with the
//! CSD, sends it through the PAC, then asks SAT's status at once: the invoice is CANCELADO only
//! when SAT says so, and a durable job follows any state that is not final
//! (`cfdi::cancelacion`).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use super::parse_body;

use crate::envelope::Path;
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::cancelacion::{self, OPERACION};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_services::idempotency;
use timbra_store::cfdis;
use timbra_store::estados::EstadoCancelacion;
use timbra_store::estados::EstadoCfdi;

/// Cancellation request.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelarBody {
    /// c_MotivoCancelacion: `01` errors with a replacement (needs `folioSustitucion`), `02`
    /// errors without relation, `03` the operation did not happen, `04` nominative operation in
    /// a global invoice.
    motivo: String,
    /// UUID of the invoice that replaces this one (motivo 01 only; `SANDBOX-` prefix accepted).
    folio_sustitucion: Option<String>,
}

/// Where a cancellation stands.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelacionOut {
    cfdi_id: String,
    uuid: String,
    /// CANCELADO only when SAT says the invoice is cancelled; TIMBRADO while SAT has not decided,
    /// waits for the receiver, or after a rejection.
    status: String,
    /// What SAT's status said right after the request: SOLICITADA (request received, SAT still
    /// shows the invoice in force), PENDIENTE (SAT waits for the receiver), SIN_ACEPTACION,
    /// ACEPTADA or PLAZO_VENCIDO (cancelled), RECHAZADA. SOLICITADA and PENDIENTE are followed by
    /// a job every 15 minutes.
    cancellation_status: String,
    /// Storage path of SAT's acuse (live), downloadable at `/api/cfdi/{id}/acuse`.
    acuse_url: Option<String>,
}

/// Cancels an invoice (CONTADOR or higher; `cfdi:cancelar`).
#[utoipa::path(post, path = "/cfdi/{id}/cancelar", tag = "cfdi", request_body = CancelarBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header),
        ("Idempotency-Key" = Option<String>, Header, description = "replays the first answer for the same body")),
    responses(
        (status = 200, description = "Request accepted: cancelled when SAT says so, else SOLICITADA or PENDIENTE (followed by a job)", body = Envelope<CancelacionOut>),
        (status = 400, description = "CANCEL_001 invalid motivo or folioSustitucion; CANCEL_003 not TIMBRADO (or a cancellation is in progress, \
            or a PPD invoice with payments that are not cancelled: `details.pagos` names them); \
            CANCEL_004 motivo 01 without folioSustitucion; CFDI_002/CFDI_003 CSD missing or expired (live); REQUEST_001", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "CANCEL_002 no such invoice in this company", body = ErrorBody),
        (status = 409, description = "IDEMPOTENCY_001", body = ErrorBody),
        (status = 502, description = "PAC_001 the PAC or SAT refused (details.pacCode); PAC_002 no usable answer", body = ErrorBody),
    ))]
pub async fn cancelar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> HttpResult<Response> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiCancelar).await?;
    let clave = idempotency::from_headers(&headers, &body)?;
    if let Some(replayed) =
        super::replayed(&app, &empresa_id, clave.as_ref(), idempotency::Uso::sobre(OPERACION, &id)).await?
    {
        return Ok(replayed);
    }
    // The invoice first: an id of another company is CANCEL_002 whatever the body says.
    let fila = {
        let mut conn = app.db.conn().await?;
        cfdis::por_cancelar(&mut conn, &empresa_id, &id).await?
    }
    .ok_or_else(|| ApiError::new(Code::Cancel002, format!("invoice {id} not found in this company")))?;
    // A payroll receipt is not there for who may not read payroll (issue 28, finding 2).
    if fila.tipo_comprobante == "N" && !super::ve_nomina(&caller, &access) {
        return Err(ApiError::new(Code::Cancel002, format!("invoice {id} not found in this company")).into());
    }
    if fila.tipo == "RECIBIDA" {
        return Err(ApiError::new(
            Code::Cancel003,
            "this invoice was received (downloaded from SAT): only its issuer can cancel it",
        )
        .into());
    }
    let body: CancelarBody = parse_body(&body)?;
    let (motivo, sustitucion) =
        cancelacion::revisar(&app, &empresa_id, &fila, &body.motivo, body.folio_sustitucion.as_deref()).await?;
    timbra_services::cfdi::pagos::exigir_sin_pagos(&app, &empresa_id, &id).await?;
    let now = app.clock.now();
    let datos = cancelacion::Datos {
        cfdi_id: &id,
        uuid: &fila.uuid,
        motivo: &motivo,
        tipo_comprobante: &fila.tipo_comprobante,
    };
    let uso = idempotency::Uso::sobre(OPERACION, &id);

    if fila.sandbox {
        // Sandbox: SAT is not involved; the invoice is cancelled at once, without acceptance.
        let mut tx = app.db.begin().await?;
        timbra_services::cfdi::pagos::exigir_sin_pagos_en(&mut tx, &empresa_id, &id, now).await?;
        let estado = EstadoCancelacion::SinAceptacion;
        cancelacion::registrar(&mut tx, now, &empresa_id, &datos, estado, sustitucion.as_deref(), None).await?;
        let answer = respuesta(&id, &fila.uuid, estado, None, access.mode());
        Ok(crate::error::answer(
            cancelacion::cerrar(&app, tx, &empresa_id, clave.as_ref(), uso, answer, now, false).await?,
        ))
    } else {
        // As in live stamping, the key is held while the PAC answers, so a second request with it
        // meanwhile gets IDEMPOTENCY_002 instead of a second cancellation request.
        if let Some(clave) = &clave {
            let mut tx = app.db.begin().await?;
            if !idempotency::reserve(&mut tx, &empresa_id, clave, uso, now).await? {
                drop(tx);
                return Ok(crate::error::answer(
                    idempotency::winner(&app.db, &empresa_id, clave, Some(uso), now).await?,
                ));
            }
            tx.commit().await?;
        }
        let solicitada =
            match cancelacion::solicitar(&app, &empresa_id, &id, &fila, &motivo, sustitucion.as_deref(), now).await {
                Ok(solicitada) => solicitada,
                Err(error) => {
                    if let Some(clave) = &clave {
                        let mut tx = app.db.begin().await?;
                        idempotency::release(&mut tx, &empresa_id, clave).await?;
                        tx.commit().await?;
                    }
                    return Err(error.into());
                }
            };
        let (estado, acuse_path) = (solicitada.estado, solicitada.acuse_path);
        let mut tx = app.db.begin().await?;
        cancelacion::registrar(&mut tx, now, &empresa_id, &datos, estado, sustitucion.as_deref(), Some(&acuse_path))
            .await?;
        let answer = respuesta(&id, &fila.uuid, estado, Some(&acuse_path), access.mode());
        Ok(crate::error::answer(
            cancelacion::cerrar(&app, tx, &empresa_id, clave.as_ref(), uso, answer, now, clave.is_some()).await?,
        ))
    }
}

fn respuesta(id: &str, uuid: &str, estado: EstadoCancelacion, acuse_url: Option<&str>, mode: &str) -> String {
    let data = CancelacionOut {
        cfdi_id: id.to_owned(),
        uuid: uuid.to_owned(),
        status: if estado.cancelado() { EstadoCfdi::Cancelado } else { EstadoCfdi::Timbrado }.as_str().to_owned(),
        cancellation_status: estado.as_str().to_owned(),
        acuse_url: acuse_url.map(str::to_owned),
    };
    json!({ "success": true, "mode": mode, "data": data }).to_string()
}
