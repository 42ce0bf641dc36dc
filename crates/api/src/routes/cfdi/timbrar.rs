//! `POST /api/cfdi/timbrar`: parses, authorizes and hands the invoice to the stamping pipeline.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use sha2::Digest;

use super::parse_body;
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Caller;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::pipeline::{self, TimbradoOut};
use timbra_services::cfdi::timbrado::{self, Preparado, TimbrarBody};
use timbra_services::cfdi::{contexto, hora_de_expedicion, hora_local};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_services::idempotency;
use timbra_store::clientes::ClienteReceptor;
use timbra_store::empresas::EmpresaEmisora;
use time::OffsetDateTime;

/// Stamps an invoice (FACTURADOR or higher).
#[utoipa::path(post, path = "/cfdi/timbrar", tag = "cfdi", request_body = TimbrarBody,
    params(("x-empresa-id" = String, Header, description = "company"),
        ("Idempotency-Key" = Option<String>, Header, description = "replays the first answer for the same body")),
    responses(
        (status = 201, description = "Stamped (sandbox: TIMBRADO_SANDBOX, uuid SANDBOX-...)", body = Envelope<TimbradoOut>),
        (status = 400, description = "CFDI_001 every problem in `details.fields` ({field, message}) and `details.problemas` ({regla, campo, mensaje}; complement fields by JSON path, e.g. complementos.cartaPorte.ubicaciones[1].domicilio.estado); CFDI_002 no CSD (live); CFDI_003 CSD expired; \
            REQUEST_001 malformed JSON or wrong types; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "CFDI_004 unknown clienteId", body = ErrorBody),
        (status = 409, description = "IDEMPOTENCY_001 key reused with another body; IDEMPOTENCY_002 (live) the same key is still waiting for the PAC", body = ErrorBody),
        (status = 413, description = "REQUEST_002 body too large", body = ErrorBody),
        (status = 402, description = "QUOTA_001 no stamps left (live)", body = ErrorBody),
        (status = 501, description = "LIVE_001 no PAC configured on this installation (TIMBRA_PAC_URL)", body = ErrorBody),
        (status = 502, description = "PAC_001 the PAC refused the invoice (details.pacCode, intentoId, serie, folio; the folio is a refused attempt); \
            PAC_002 outcome unknown, being reconciled: send the same request again (details.intentoId, serie, folio)", body = ErrorBody),
    ))]
pub async fn timbrar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    headers: HeaderMap,
    body: Bytes,
) -> HttpResult<Response> {
    let clave = idempotency::from_headers(&headers, &body)?;
    Ok(crate::error::answer(timbrar_factura(&app, &caller, &empresa_id, clave, &body).await?))
}

/// The stamp of an invoice, as `POST /api/cfdi/timbrar` and the MCP tool `timbrar_factura` do
/// it: authorizes, replays an Idempotency-Key's first answer, checks the body, stamps through
/// the pipeline, then writes the notes and queues the e-mail.
pub(crate) async fn timbrar_factura(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &str,
    clave: Option<idempotency::Key>,
    bytes: &[u8],
) -> HttpResult<idempotency::Answer> {
    let access = caller.authorize(app, empresa_id, Permission::CfdiTimbrar).await?;
    if let Some(replayed) = super::previa(app, empresa_id, clave.as_ref(), idempotency::Uso::de(OPERACION)).await? {
        return Ok(replayed);
    }
    let body: TimbrarBody = parse_body(bytes)?;
    let enviar_correo = body.enviar_correo;
    let notas = body.notas.clone();
    timbra_services::marca::revisar_notas(notas.as_deref())?;
    let now = app.clock.now();
    let Factura { empresa, cliente, preparado, fecha_local, .. } = preparar_factura(app, empresa_id, body, now).await?;
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
        user_id: &caller.user_id,
        mode: access.mode(),
        clave: clave.as_ref(),
        request_hash,
        now,
        fecha_local,
    };
    let efectos = timbra_services::correo::efectos_al_timbrar(app, empresa_id, enviar_correo, None).await;
    let answer = pipeline::timbrar_con_efectos(app, &peticion, documento, efectos).await?;
    super::despues_de_timbrar(app, empresa_id, &answer, notas.as_deref()).await;
    Ok(answer)
}

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
/// problem at once (CFDI_001), CFDI_004 for a customer of another company. Stamping and the
/// dashboard's live preview share it, so the preview's totals are the stamp's.
pub async fn preparar_factura(
    app: &AppContext,
    empresa_id: &str,
    body: TimbrarBody,
    now: OffsetDateTime,
) -> HttpResult<Factura> {
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

/// The Idempotency-Key operation name of an invoice's stamp.
const OPERACION: &str = timbra_services::cfdi::tipos::FACTURA.operacion;
