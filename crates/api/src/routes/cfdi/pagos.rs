//! `POST /api/cfdi/pagos/timbrar`: parses, authorizes and hands the payment CFDI (type P,
//! Pagos 2.0) to the stamping pipeline, with the balances it moves (`cfdi::pagos`).

use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::response::Response;
use sha2::Digest;
use timbra_store::ids::EmpresaId;

use super::admit;
use crate::error::HttpResult;
use crate::extract::EmpresaScope;
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Caller;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::pagos::{self, PagoBody, PagoTimbradoOut};
use timbra_services::cfdi::pipeline;
use timbra_services::cfdi::{hora_de_expedicion, hora_local};
use timbra_services::context::AppContext;
use timbra_services::idempotency;

/// Stamps a payment CFDI applied to PPD invoices of the company (FACTURADOR or higher).
#[utoipa::path(post, path = "/cfdi/pagos/timbrar", tag = "cfdi", request_body = PagoBody,
    params(("x-empresa-id" = String, Header, description = "company"),
        ("Idempotency-Key" = Option<String>, Header, description = "replays the first answer for the same body")),
    responses(
        (status = 201, description = "Stamped: serie `seriePagos` of the company (default P); each invoice's new saldoInsoluto", body = Envelope<PagoTimbradoOut>),
        (status = 400, description = "PAGO_001 every problem of the body in `details.fields` (monto ≠ Σ impPagado ÷ equivalenciaDR, \
            missing tipoCambioP, amounts ≤ 0 or with too many decimals, no doctoRelacionados, ...); PAGO_004 only balance arithmetic \
            (impSaldoInsoluto ≠ impSaldoAnt − impPagado, impPagado > impSaldoAnt or ≤ 0); PAGO_003 an invoice is cancelled, not a PPD \
            ingreso, in another currency than monedaDR, or of another receiver; CFDI_002/CFDI_003 CSD (live); REQUEST_001", body = ErrorBody),
        (status = 402, description = "QUOTA_001 no stamps left (live)", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "PAGO_002 an idDocumento is not an invoice issued by this company (`details.fields`)", body = ErrorBody),
        (status = 409, description = "PAGO_005 impSaldoAnt or numParcialidad is not the invoice's stored balance and next installment \
            (the message and `details` give both); IDEMPOTENCY_001 / IDEMPOTENCY_002", body = ErrorBody),
        (status = 501, description = "LIVE_001 no PAC configured", body = ErrorBody),
        (status = 502, description = "PAC_001 the PAC refused (the balances are given back); PAC_002 outcome unknown (the balances \
            stay held until it is reconciled)", body = ErrorBody),
    ))]
pub async fn timbrar_pago(scope: EmpresaScope, headers: HeaderMap, body: Bytes) -> HttpResult<Response> {
    let clave = idempotency::from_headers(&headers, &body)?;
    Ok(crate::error::answer(timbrar(&scope.app, &scope.caller, &scope.empresa_id, clave, &body).await?))
}

/// The stamp of a payment CFDI, as `POST /api/cfdi/pagos/timbrar` and the MCP tool
/// `timbrar_pago` do it.
pub(crate) async fn timbrar(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
    clave: Option<idempotency::Key>,
    bytes: &[u8],
) -> HttpResult<idempotency::Answer> {
    let access = caller.authorize(app, empresa_id, Permission::CfdiTimbrar).await?;
    let body: PagoBody = match admit(app, empresa_id, clave.as_ref(), pagos::OPERACION, bytes).await? {
        Ok(body) => body,
        Err(replayed) => return Ok(replayed),
    };
    let enviar_correo = body.enviar_correo;
    let notas = body.notas.clone();
    timbra_services::marca::revisar_notas(notas.as_deref())?;
    let (empresa, _) = timbra_services::cfdi::contexto::emisora_y_receptor(app, empresa_id, None).await?;
    // Only a live retry looks its attempt up by the body: sandbox stamps skip the digest.
    let request_hash = if empresa.sandbox { String::new() } else { hex::encode(sha2::Sha256::digest(bytes)) };
    let now = app.clock.now();
    let fecha_local = hora_local(now.replace_nanosecond(0).unwrap_or(now));
    let expedicion = hora_de_expedicion(&*app.catalogos.indice, &empresa.codigo_postal, now);
    let (documento, efectos) = pagos::preparar(app, &empresa, body, expedicion, &request_hash).await?;
    let peticion = pipeline::Peticion {
        empresa: &empresa,
        user_id: &caller.user_id,
        mode: access.mode(),
        clave: clave.as_ref(),
        request_hash,
        now,
        fecha_local,
    };
    let efectos = timbra_services::correo::efectos_al_timbrar(app, empresa_id, enviar_correo, Some(efectos)).await;
    let answer = pipeline::timbrar_con_efectos(app, &peticion, documento, efectos).await?;
    super::despues_de_timbrar(app, empresa_id, &answer, notas.as_deref()).await;
    Ok(answer)
}
