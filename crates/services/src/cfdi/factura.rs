//! An invoice (I/E/T) from the API's body: built and checked for its company
//! ([`preparar`]: the live preview of the dashboard and the dry run of `POST
//! /api/cfdi/validar` share it, so their totals are the stamp's), then stamped through the
//! pipeline ([`timbrar`]: `POST /api/cfdi/timbrar` and the dashboard's stamp form).

use sha2::Digest;
use timbra_store::ids::{CfdiId, EmpresaId, UserId};
use time::OffsetDateTime;

use crate::cfdi::pipeline;
use crate::cfdi::timbrado::{self, Preparado, TimbrarBody};
use crate::cfdi::{contexto, hora_de_expedicion, hora_local};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::idempotency::{Answer, Key};
use timbra_store::clientes::ClienteReceptor;
use timbra_store::empresas::EmpresaEmisora;

/// The Idempotency-Key operation name of an invoice's stamp.
pub const OPERACION: &str = crate::cfdi::tipos::FACTURA.operacion;

/// An invoice built and checked for its company, before folio and seal.
pub struct Factura {
    /// The issuer.
    pub empresa: EmpresaEmisora,
    /// The customer; `None` for the generic public.
    pub cliente: Option<ClienteReceptor>,
    /// The validated comprobante, with its totals computed by the cfdi crate's rules.
    pub preparado: Preparado,
    /// The moment of the stamp in the Zona Centro (whole seconds): the TFD's `FechaTimbrado`.
    pub fecha_local: OffsetDateTime,
    /// The same moment in the local time of the LugarExpedicion: the default `Fecha`, and the
    /// time its 72-hour range is checked against.
    pub expedicion: OffsetDateTime,
}

/// Reads the issuer and the customer and builds the comprobante of `body` at `now`: every
/// problem at once (CFDI_001), CFDI_004 for a customer of another company.
pub async fn preparar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    body: TimbrarBody,
    now: OffsetDateTime,
) -> ApiResult<Factura> {
    // The issuer and the customer come from memory when nothing changed since (cfdi::contexto).
    let cliente_id = body.cliente_id.as_deref().map(str::trim).filter(|id| !id.is_empty());
    let (empresa, cliente) = contexto::emisora_y_receptor(app, empresa_id, cliente_id).await?;
    let cliente = match cliente_id {
        None => None,
        Some(id) => Some(
            cliente.ok_or_else(|| ApiError::new(Code::Cfdi004, format!("customer {id} not found in this company")))?,
        ),
    };
    let fecha_local = hora_local(now.replace_nanosecond(0).unwrap_or(now));
    let expedicion = hora_de_expedicion(&*app.catalogos.indice, &empresa.codigo_postal, now);
    let preparado = timbrado::preparar(&*app.catalogos.indice, body, &empresa, cliente.as_ref(), expedicion)?;
    Ok(Factura { empresa, cliente, preparado, fecha_local, expedicion })
}

/// Who stamps: the user, the answer's mode and the Idempotency-Key, if any.
pub struct Solicitante<'a> {
    /// The user acting.
    pub user_id: &'a UserId,
    /// The `mode` of the answer envelope (`sandbox` or `live`).
    pub mode: &'a str,
    /// The Idempotency-Key, when sent (already checked for a replay by the caller).
    pub clave: Option<&'a Key>,
}

/// Stamps the invoice of `body` (the caller authorized `cfdi:timbrar`): its `notas` checked,
/// built by [`preparar`], sealed and stamped by the pipeline with its e-mail queued in the same
/// transaction; after a first 201 its notes are written ([`despues_de_timbrar`]). `bytes` is the body as sent: a live
/// retry of the same bytes finds its attempt.
pub async fn timbrar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    solicitante: Solicitante<'_>,
    body: TimbrarBody,
    bytes: &[u8],
) -> ApiResult<Answer> {
    let enviar_correo = body.enviar_correo;
    let notas = body.notas.clone();
    crate::marca::revisar_notas(notas.as_deref())?;
    let now = app.clock.now();
    let Factura { empresa, cliente, preparado, fecha_local, .. } = preparar(app, empresa_id, body, now).await?;
    // Only a live retry looks its attempt up by the body: sandbox stamps skip the digest.
    let request_hash = if empresa.sandbox { String::new() } else { hex::encode(sha2::Sha256::digest(bytes)) };
    let documento = pipeline::Documento {
        contenido: std::sync::Arc::new(preparado.comprobante),
        serie: preparado.serie,
        cliente_id: cliente.map(|c| c.id),
        operacion: OPERACION,
    };
    let peticion = pipeline::Peticion {
        empresa: &empresa,
        user_id: solicitante.user_id,
        mode: solicitante.mode,
        clave: solicitante.clave,
        request_hash,
        now,
        fecha_local,
    };
    // The e-mail (asked by the body or the company's `enviarAlTimbrar`) is queued in the
    // stamp's own transaction.
    let efectos = crate::correo::efectos_al_timbrar(app, empresa_id, enviar_correo, None).await;
    let answer = pipeline::timbrar_con_efectos(app, &peticion, documento, efectos).await?;
    despues_de_timbrar(app, empresa_id, &answer, notas.as_deref()).await;
    Ok(answer)
}

/// After a stamp's first `201` (not a replay): writes the body's `notas` (printed on its PDF).
/// The stamp is committed already: whatever happens here does not change its answer. (Its
/// e-mail was queued in the stamp's own transaction: [`crate::correo::efectos_al_timbrar`].)
pub async fn despues_de_timbrar(app: &AppContext, empresa_id: &EmpresaId, answer: &Answer, notas: Option<&str>) {
    if answer.replayed || answer.status != http::StatusCode::CREATED {
        return;
    }
    let Some(cfdi_id) = answer.cfdi_id() else { return };
    if let Some(notas) = notas.map(str::trim).filter(|notas| !notas.is_empty())
        && let Err(error) = crate::marca::guardar_notas(app, empresa_id, &CfdiId::from(&cfdi_id), notas).await
    {
        tracing::warn!(cfdi.id = cfdi_id, error.message = %error.message, "the stamp's notas were not written");
    }
}
