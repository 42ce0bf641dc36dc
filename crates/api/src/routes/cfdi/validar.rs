//! The dry run: `POST /api/cfdi/validar` (the body of `/cfdi/timbrar`) and
//! `POST /api/cfdi/pagos/validar` (the body of `/cfdi/pagos/timbrar`). They build and check the
//! document with the stamp's own code (`factura::preparar`, `pagos::preparar`) and answer what
//! the stamp would refuse as `valido: false` with every problem; nothing is reserved, sealed,
//! stored or charged (`services::cfdi::ensayo`). And the validator of any CFDI 4.0,
//! `POST /api/cfdi/validar-xml` (`services::cfdi::validador`).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::IntoResponse;
use timbra_cfdi::validacion;
use timbra_store::ids::EmpresaId;

use super::parse_body;
use crate::envelope::ok;
use crate::error::HttpResult;
use crate::extract::{Auth, EmpresaHeader};
use crate::openapi::{Envelope, ErrorBody};
use timbra_services::auth::caller::Caller;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::ensayo::{self, EnsayoOut};
use timbra_services::cfdi::pagos::{self, PagoBody};
use timbra_services::cfdi::timbrado::TimbrarBody;
use timbra_services::cfdi::validador::{self, ValidacionXmlOut};
use timbra_services::cfdi::{contexto, hora_de_expedicion};
use timbra_services::context::AppContext;
use timbra_services::error::ApiError;

/// Checks an invoice without stamping it (FACTURADOR or higher, as stamping).
#[utoipa::path(post, path = "/cfdi/validar", tag = "cfdi", request_body = TimbrarBody,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 200, description = "The verdict: `valido`, every problem ({regla, campo, mensaje}), the checks left to the PAC (`omitidas`), \
            and for a valid document its `totales` and unsealed `xml` (no Folio; nothing reserved, sealed, stored or charged)", body = Envelope<EnsayoOut>),
        (status = 400, description = "REQUEST_001 malformed JSON or wrong types; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 413, description = "REQUEST_002 body too large", body = ErrorBody),
    ))]
pub async fn validar(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    body: Bytes,
) -> HttpResult<impl IntoResponse> {
    Ok(ok(validar_factura(&app, &caller, &empresa_id, &body).await?))
}

/// The dry run of an invoice's stamp, as `POST /api/cfdi/validar` and the MCP tool
/// `validar_factura` do it.
pub(crate) async fn validar_factura(
    app: &AppContext,
    caller: &Caller,
    empresa_id: &EmpresaId,
    bytes: &[u8],
) -> HttpResult<EnsayoOut> {
    caller.authorize(app, empresa_id, Permission::CfdiTimbrar).await?;
    let body: TimbrarBody = parse_body(bytes)?;
    let now = app.clock.now();
    Ok(match timbra_services::cfdi::factura::preparar(app, empresa_id, body, now).await {
        Ok(factura) => {
            ensayo::valido(&factura.preparado.comprobante, &*app.catalogos.indice, contexto_de(factura.expedicion))?
        }
        Err(error) => ensayo::invalido(error)?,
    })
}

/// Checks a payment CFDI without stamping it (FACTURADOR or higher, as stamping): the
/// balances are read, never moved.
#[utoipa::path(post, path = "/cfdi/pagos/validar", tag = "cfdi", request_body = PagoBody,
    params(("x-empresa-id" = String, Header, description = "company")),
    responses(
        (status = 200, description = "The verdict as `/cfdi/validar`; a stale balance is the problem `PAGO_005`, an unknown invoice `PAGO_002`", body = Envelope<EnsayoOut>),
        (status = 400, description = "REQUEST_001 malformed JSON or wrong types; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 413, description = "REQUEST_002 body too large", body = ErrorBody),
    ))]
pub async fn validar_pago(
    State(app): State<AppContext>,
    Auth(caller): Auth,
    EmpresaHeader(empresa_id): EmpresaHeader,
    body: Bytes,
) -> HttpResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiTimbrar).await?;
    let body: PagoBody = parse_body(&body)?;
    let (empresa, _) = contexto::emisora_y_receptor(&app, &empresa_id, None).await?;
    let now = app.clock.now();
    let expedicion = hora_de_expedicion(&*app.catalogos.indice, &empresa.codigo_postal, now);
    // No request digest: a dry run is never a live retry of an attempt.
    let ensayo = match pagos::preparar(&app, &empresa, body, expedicion, "").await {
        Ok((documento, _efectos)) => {
            let comprobante = documento
                .contenido
                .como_comprobante()
                .ok_or_else(|| ApiError::internal("dry run", "a payment that is not a CFDI 4.0 Comprobante"))?;
            ensayo::valido(comprobante, &*app.catalogos.indice, contexto_de(expedicion))?
        }
        Err(error) => ensayo::invalido(error)?,
    };
    Ok(ok(ensayo))
}

/// The stamp's validation context: certified now, in the issuer's local time.
fn contexto_de(fecha_local: time::OffsetDateTime) -> validacion::Contexto {
    validacion::Contexto { certificacion: Some(time::PrimitiveDateTime::new(fecha_local.date(), fecha_local.time())) }
}

/// `{ "xml": "..." }`, the JSON form of `POST /api/cfdi/validar-xml`.
#[derive(serde::Deserialize, utoipa::ToSchema)]
pub struct XmlBody {
    /// The CFDI's XML.
    pub xml: String,
}

/// Validates any CFDI 4.0, stamped or not, from anyone (any authenticated caller; no company).
#[utoipa::path(post, path = "/cfdi/validar-xml", tag = "cfdi",
    request_body(content = XmlBody, description = "the XML itself (Content-Type: application/xml or text/xml), or `{\"xml\": \"...\"}` (application/json)"),
    responses(
        (status = 200, description = "The verdict: `valido`, `esquema`, `sello`, `timbre` (`ok` / `error` / `no_aplica`, reasons in `motivos`), \
            `problemas`, `omitidas`, `uuid`, `emisorRfc`, `receptorRfc`, `total`", body = Envelope<ValidacionXmlOut>),
        (status = 400, description = "CFDI_005 not UTF-8, not well-formed, or with a DOCTYPE (never resolved); REQUEST_001 malformed JSON", body = ErrorBody),
        (status = 401, description = "AUTH_001", body = ErrorBody),
        (status = 413, description = "REQUEST_002 body too large", body = ErrorBody),
    ))]
pub async fn validar_xml(
    State(app): State<AppContext>,
    Auth(_caller): Auth,
    headers: HeaderMap,
    body: Bytes,
) -> HttpResult<impl IntoResponse> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("application/json"));
    let xml = if json {
        let body: XmlBody = parse_body(&body)?;
        validador::leer(body.xml.as_bytes())?.to_owned()
    } else {
        validador::leer(&body)?.to_owned()
    };
    Ok(ok(validador::validar(&app, &xml).await?))
}
