//! `POST /api/cfdi/{id}/cancelar`: sandbox cancels at once; live signs the request with the
//! CSD, sends it through the PAC, then asks SAT's status at once: the invoice is CANCELADO only
//! when SAT says so, and a durable job follows any state that is not final
//! (`cfdi::cancelacion`).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::json;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::parse_body;
use timbra_cfdi::tipos::FolioFiscal;

use crate::auth::caller::{Caller, EmpresaHeader};
use crate::auth::roles::Permission;
use crate::cfdi::cancelacion::EstadoCancelacion;
use crate::cfdi::estados::EstadoCfdi;
use crate::cfdi::pac_log::{self, PacCall};
use crate::cfdi::{cancelacion, credenciales, fecha_cfdi, hora_local};
use crate::db::cfdis;
use crate::envelope::Path;
use crate::error::{ApiError, ApiResult, Code};
use crate::idempotency;
use crate::openapi::{Envelope, ErrorBody};
use crate::state::AppState;

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
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Response> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiCancelar).await?;
    let clave = idempotency::from_headers(&headers, &body)?;
    if let Some(clave) = &clave {
        let mut conn = app.db.conn().await?;
        if let Some(replayed) = idempotency::replay(&mut conn, &empresa_id, clave, app.clock.now()).await? {
            return Ok(replayed);
        }
    }
    // The invoice first: an id of another company is CANCEL_002 whatever the body says.
    let fila = {
        let mut conn = app.db.conn().await?;
        cfdis::por_cancelar(&mut conn, &empresa_id, &id).await?
    }
    .ok_or_else(|| ApiError::new(Code::Cancel002, format!("invoice {id} not found in this company")))?;
    if fila.tipo == "RECIBIDA" {
        return Err(ApiError::new(
            Code::Cancel003,
            "this invoice was received (downloaded from SAT): only its issuer can cancel it",
        ));
    }
    let body: CancelarBody = parse_body(&body)?;
    let motivo = body.motivo.trim().to_owned();
    if !["01", "02", "03", "04"].contains(&motivo.as_str()) {
        return Err(ApiError::new(
            Code::Cancel001,
            format!("motivo must be 01, 02, 03 or 04 (c_MotivoCancelacion), not «{motivo}»"),
        ));
    }
    let sustitucion = body.folio_sustitucion.as_deref().map(str::trim).filter(|f| !f.is_empty());
    match (&sustitucion, motivo.as_str()) {
        (None, "01") => {
            return Err(ApiError::new(
                Code::Cancel004,
                "motivo 01 requires folioSustitucion: the UUID of the replacing invoice",
            ));
        }
        (Some(_), m) if m != "01" => {
            return Err(ApiError::new(Code::Cancel001, "folioSustitucion is only sent with motivo 01"));
        }
        _ => {}
    }
    let sustitucion = match sustitucion.map(FolioFiscal::leer).transpose() {
        Ok(folio) => folio.map(|folio| folio.as_str().to_owned()),
        Err(error) => return Err(ApiError::new(Code::Cancel001, format!("folioSustitucion: {error}"))),
    };
    if let Some(folio) = &sustitucion {
        // Anexo 20 / Guía de llenado de la cancelación: motivo 01 names the invoice that
        // replaces this one, which must exist, be stamped and come from the same issuer.
        let propio = fila.uuid_xml.to_uppercase();
        let estado = {
            let mut conn = app.db.conn().await?;
            cfdis::status_emitida(&mut conn, &empresa_id, folio).await?
        };
        let problema = match estado.as_deref() {
            _ if *folio == propio => Some("is this same invoice; name the invoice that replaces it"),
            None => Some("is not an invoice issued by this company"),
            Some(status) if EstadoCfdi::parse(status).is_some_and(EstadoCfdi::vigente) => None,
            Some(_) => Some("is not a stamped invoice (it is cancelled or was never stamped)"),
        };
        if let Some(problema) = problema {
            return Err(ApiError::new(
                Code::Cancel001,
                format!("folioSustitucion {folio} {problema}; stamp the replacing invoice first and send its UUID"),
            )
            .with_details(serde_json::json!({ "field": "folioSustitucion" })));
        }
    }
    if let Some(estado) = fila.estado_cancelacion.as_deref().and_then(EstadoCancelacion::parse)
        && estado.en_curso()
    {
        return Err(ApiError::new(
            Code::Cancel003,
            format!(
                "a cancellation of this invoice is in progress ({}): SAT has not decided yet; \
                 its state follows SAT's, see cancellationStatus",
                estado.as_str()
            ),
        ));
    }
    if !EstadoCfdi::parse(&fila.status).is_some_and(EstadoCfdi::vigente) {
        return Err(ApiError::new(
            Code::Cancel003,
            format!("only stamped invoices can be cancelled; this one is {}", fila.status),
        ));
    }
    crate::cfdi::pagos::exigir_sin_pagos(&app, &empresa_id, &id).await?;
    let now = app.clock.now();
    let fecha_local = hora_local(now.replace_nanosecond(0).unwrap_or(now));
    let datos = cancelacion::Datos { cfdi_id: &id, uuid: &fila.uuid, motivo: &motivo };

    if fila.sandbox {
        // Sandbox: SAT is not involved; the invoice is cancelled at once, without acceptance.
        let mut tx = app.db.begin().await?;
        crate::cfdi::pagos::exigir_sin_pagos_en(&mut tx, &empresa_id, &id, now).await?;
        let estado = EstadoCancelacion::SinAceptacion;
        cancelacion::registrar(&mut tx, now, &empresa_id, &datos, estado, sustitucion.as_deref(), None).await?;
        let answer = respuesta(&id, &fila.uuid, estado, None, access.mode());
        cerrar_cancelacion(&app, tx, &empresa_id, clave.as_ref(), answer, now, false).await
    } else {
        let csd = credenciales::csd_live(&app, &empresa_id, now).await?;
        let pac = app.pac.clone().ok_or_else(|| {
            ApiError::new(
                Code::Live001,
                "cancelling live invoices needs a PAC: the installation must set TIMBRA_PAC_URL",
            )
        })?;
        // As in live stamping, the key is held while the PAC answers, so a second request with it
        // meanwhile gets IDEMPOTENCY_002 instead of a second cancellation request.
        if let Some(clave) = &clave {
            let mut tx = app.db.begin().await?;
            if !idempotency::reserve(&mut tx, &empresa_id, clave, "cfdi.cancelar", now).await? {
                drop(tx);
                return idempotency::winner(&app.db, &empresa_id, clave, now).await;
            }
            tx.commit().await?;
        }
        let llamada = |operation| PacCall::new(operation, &empresa_id).cfdi(&id, fila.serie.as_deref(), fila.folio_num);
        let enviada = async {
            let folios = [timbra_credentials::xmldsig::CancelacionFolio {
                uuid: fila.uuid_xml.clone(),
                motivo: motivo.clone(),
                folio_sustitucion: sustitucion.clone(),
            }];
            let firmada = timbra_credentials::xmldsig::sign_cancelacion(
                &csd.credential,
                csd.credential.certificate().rfc(),
                &fecha_cfdi(fecha_local),
                &folios,
            )
            .map_err(|e| ApiError::internal("cancelacion", e))?;
            let solicitud = llamada("cancel_signature").recovery(|_| "invoice unchanged; the client is told to retry");
            let acuse = pac_log::logged(solicitud, pac.cancelar(&firmada))
                .await
                .map_err(|error| ApiError::pac(&error, "the invoice is unchanged, try again"))?;
            let base = fila
                .xml_url
                .as_deref()
                .and_then(|p| p.strip_suffix(".xml"))
                .map(str::to_owned)
                .unwrap_or_else(|| format!("cfdi/{empresa_id}/acuses/{id}"));
            let acuse_path = format!("{base}.acuse.xml");
            app.cfdi
                .storage
                .put(&acuse_path, acuse.acuse.clone().into_bytes())
                .await
                .map_err(|e| ApiError::internal("storage put", e))?;
            Ok::<_, ApiError>(acuse_path)
        };
        let acuse_path = match enviada.await {
            Ok(enviada) => enviada,
            Err(error) => {
                if let Some(clave) = &clave {
                    let mut tx = app.db.begin().await?;
                    idempotency::release(&mut tx, &empresa_id, clave).await?;
                    tx.commit().await?;
                }
                return Err(error);
            }
        };
        // The PAC's answer (201/202, "Petición de cancelación realizada exitosamente") says only
        // that the request was received: SAT's status says what became of it.
        let consulta = timbra_pac::ConsultaEstado {
            rfc_emisor: fila.emisor_rfc.clone(),
            rfc_receptor: fila.receptor_rfc.clone(),
            uuid: fila.uuid_xml.clone(),
            total: fila.total.0.to_string(),
        };
        let consultar = llamada("get_sat_status").recovery(|_| "recorded SOLICITADA; the follow-up job asks again");
        let estado = match cancelacion::consultar_sat(pac.as_ref(), consultar, &consulta).await {
            // A rejection right after a new request is the previous request's: the receiver has
            // not seen this one yet.
            Ok(sat) => match EstadoCancelacion::de_sat(&sat) {
                EstadoCancelacion::Rechazada => EstadoCancelacion::Solicitada,
                estado => estado,
            },
            // The request was accepted: record it and let the job learn SAT's answer.
            Err(_) => EstadoCancelacion::Solicitada,
        };
        let mut tx = app.db.begin().await?;
        cancelacion::registrar(&mut tx, now, &empresa_id, &datos, estado, sustitucion.as_deref(), Some(&acuse_path))
            .await?;
        let answer = respuesta(&id, &fila.uuid, estado, Some(&acuse_path), access.mode());
        cerrar_cancelacion(&app, tx, &empresa_id, clave.as_ref(), answer, now, clave.is_some()).await
    }
}

/// Stores the cancellation's answer under its Idempotency-Key and commits; when a concurrent
/// request with the same key committed first, answers as that one did.
async fn cerrar_cancelacion(
    app: &AppState,
    mut tx: crate::db::Tx,
    empresa_id: &str,
    clave: Option<&idempotency::Key>,
    answer: String,
    now: OffsetDateTime,
    reservada: bool,
) -> ApiResult<Response> {
    let operacion = "cfdi.cancelar";
    if !idempotency::store_answer(&mut tx, empresa_id, clave, operacion, StatusCode::OK, &answer, now, reservada)
        .await?
        && let Some(clave) = clave
    {
        drop(tx);
        return idempotency::winner(&app.db, empresa_id, clave, now).await;
    }
    tx.commit().await?;
    Ok(idempotency::answer(StatusCode::OK, answer))
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
