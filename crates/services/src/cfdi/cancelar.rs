//! The cancellation of an issued invoice, as `POST /api/cfdi/{id}/cancelar` asks it: the
//! request checked (`cancelacion::revisar`, payments of a PPD invoice), then in sandbox SAT's
//! rules played by the service (cancelled at once, or PENDIENTE for the receiver's answer); in live the request signed and sent through the PAC with the
//! Idempotency-Key held meanwhile, SAT's status read, and the state recorded
//! (`cancelacion::registrar`) with its answer stored under the key, in one transaction.

use serde::Serialize;
use serde_json::json;
use timbra_store::ids::{CfdiId, EmpresaId};
use utoipa::ToSchema;

use timbra_store::cfdis::PorCancelar;
use timbra_store::estados::{EstadoCancelacion, EstadoCfdi};

use crate::cfdi::cancelacion::{self, OPERACION};
use crate::context::AppContext;
use crate::error::{ApiError, Code};
use crate::idempotency::{self, Answer};

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

/// The invoice `id` of `empresa_id` to cancel, or CANCEL_002 (an id of another company is not
/// found), CANCEL_003 for a received one. `ve_nomina`: whether the caller may see payroll (a
/// payroll receipt is not found for who may not).
pub async fn buscar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    ve_nomina: bool,
) -> Result<PorCancelar, ApiError> {
    let no_encontrada = || ApiError::new(Code::Cancel002, format!("invoice {id} not found in this company"));
    let cfdi_id = CfdiId::from(id);
    let fila = timbra_store::cfdis::por_cancelar(&mut app.db.conn().await?, empresa_id, &cfdi_id)
        .await?
        .ok_or_else(no_encontrada)?;
    if fila.tipo_comprobante == "N" && !ve_nomina {
        return Err(no_encontrada());
    }
    if fila.tipo == "RECIBIDA" {
        return Err(ApiError::new(
            Code::Cancel003,
            "this invoice was received (downloaded from SAT): only its issuer can cancel it",
        ));
    }
    Ok(fila)
}

/// Cancels invoice `id` (`fila`, from [`buscar`]) for `motivo` and `folio_sustitucion`; the
/// answer (envelope of [`CancelacionOut`] in `mode`) is stored under `clave`.
#[allow(clippy::too_many_arguments)]
pub async fn cancelar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    fila: &PorCancelar,
    motivo: &str,
    folio_sustitucion: Option<&str>,
    clave: Option<&idempotency::Key>,
    mode: &str,
) -> Result<Answer, ApiError> {
    let (motivo, sustitucion) = cancelacion::revisar(app, empresa_id, fila, motivo, folio_sustitucion).await?;
    crate::cfdi::pagos::exigir_sin_pagos(app, empresa_id, id).await?;
    let now = app.clock.now();
    let cfdi_id = CfdiId::from(id);
    let datos = cancelacion::Datos {
        cfdi_id: &cfdi_id,
        uuid: &fila.uuid,
        motivo: &motivo,
        tipo_comprobante: &fila.tipo_comprobante,
        sandbox: fila.sandbox,
    };
    let uso = idempotency::Uso::sobre(OPERACION, &cfdi_id);

    let sin_aceptacion = crate::cfdi::tipos::por_tipo_comprobante(&fila.tipo_comprobante)
        .is_some_and(crate::cfdi::tipos::TipoDocumento::cancela_sin_aceptacion);
    if fila.sandbox {
        crate::cfdi::receptor::exigir_sin_notas_de_credito(app, empresa_id, fila).await?;
        // Sandbox: the service plays SAT with SAT's rules (regla 2.7.1.35 as of 2026). An invoice
        // cancelable without acceptance is cancelled at once; one that needs the receiver's
        // acceptance waits PENDIENTE for the receiver (every sandbox company of this
        // installation with its RFC) or for its deadline (`receptor::solicitudes`).
        let mut tx = app.db.begin().await?;
        crate::cfdi::pagos::exigir_sin_pagos_en(&mut tx, empresa_id, id, now).await?;
        let estado = match crate::cfdi::receptor::cancelable(fila, false, now) {
            crate::cfdi::plazos::Cancelable::ConAceptacion if !sin_aceptacion => EstadoCancelacion::Pendiente,
            _ => EstadoCancelacion::SinAceptacion,
        };
        cancelacion::registrar(&mut tx, now, empresa_id, &datos, estado, sustitucion.as_deref(), None).await?;
        if estado == EstadoCancelacion::Pendiente {
            // SAT sets no deadline for a request that follows a rejection.
            let tras_rechazo = fila.estado_cancelacion.as_deref() == Some(EstadoCancelacion::Rechazada.as_str());
            crate::cfdi::receptor::solicitudes::solicitar_sandbox(
                &mut tx,
                now,
                empresa_id,
                &CfdiId::from(id),
                fila,
                tras_rechazo,
            )
            .await?;
        }
        let answer = respuesta(id, &fila.uuid, &fila.status, estado, None, mode);
        return cancelacion::cerrar(app, tx, empresa_id, clave, uso, answer, now, false).await;
    }
    // As in live stamping, the key is held while the PAC answers, so a second request with it
    // meanwhile gets IDEMPOTENCY_002 instead of a second cancellation request.
    if let Some(clave) = clave {
        let mut tx = app.db.begin().await?;
        if !idempotency::reserve(&mut tx, empresa_id, clave, uso, now).await? {
            drop(tx);
            return idempotency::winner(&app.db, empresa_id, clave, Some(uso), now).await;
        }
        tx.commit().await?;
    }
    let solicitada = match cancelacion::solicitar(app, empresa_id, id, fila, &motivo, sustitucion.as_deref(), now).await
    {
        Ok(solicitada) => solicitada,
        Err(error) => {
            if let Some(clave) = clave {
                let mut tx = app.db.begin().await?;
                idempotency::release(&mut tx, empresa_id, clave).await?;
                tx.commit().await?;
            }
            return Err(error);
        }
    };
    let (estado, acuse_path) = (solicitada.estado, solicitada.acuse_path);
    let mut tx = app.db.begin().await?;
    cancelacion::registrar(&mut tx, now, empresa_id, &datos, estado, sustitucion.as_deref(), Some(&acuse_path)).await?;
    let answer = respuesta(id, &fila.uuid, &fila.status, estado, Some(&acuse_path), mode);
    cancelacion::cerrar(app, tx, empresa_id, clave, uso, answer, now, clave.is_some()).await
}

fn respuesta(
    id: &str,
    uuid: &str,
    status: &str,
    estado: EstadoCancelacion,
    acuse_url: Option<&str>,
    mode: &str,
) -> String {
    let data = CancelacionOut {
        cfdi_id: id.to_owned(),
        uuid: uuid.to_owned(),
        // Not cancelled: the status it had (TIMBRADO, or TIMBRADO_SANDBOX in sandbox).
        status: if estado.cancelado() { EstadoCfdi::Cancelado.as_str() } else { status }.to_owned(),
        cancellation_status: estado.as_str().to_owned(),
        acuse_url: acuse_url.map(str::to_owned),
    };
    json!({ "success": true, "mode": mode, "data": data }).to_string()
}
