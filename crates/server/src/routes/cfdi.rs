//! Invoices: stamping (`POST /api/cfdi/timbrar`), listing, detail, XML download and signed
//! links.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::{AssertSqlSafe, FromRow};
use timbra_cfdi::numero::Numero;
use timbra_cfdi::timbre::DatosTimbre;
use timbra_cfdi::{escritura, sello, timbre};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::auth::caller::{Caller, EmpresaHeader};
use crate::auth::roles::Permission;
use crate::cfdi::eventos::{FacturaTimbrada, emitir_factura_timbrada};
use crate::cfdi::timbrado::{self, ClienteReceptor, EmpresaEmisora, TimbrarBody};
use crate::cfdi::{cancelacion, credenciales, fecha_cfdi, hora_local, idempotencia, leer_fecha_cfdi, links};
use crate::db::{Backend, DbConn, Exec, Money};
use crate::envelope::{Path, Query, ok};
use crate::error::{ApiError, ApiResult, Code};
use crate::openapi::{Envelope, ErrorBody};
use crate::state::AppState;
use crate::{ids, sql};

/// Most items a listing page may hold.
pub const MAX_LIMIT: i64 = 1000;

/// Answer of a stamp.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimbradoOut {
    cfdi_id: String,
    /// `SANDBOX-` + the XML's UUID in sandbox; the bare UUID in live.
    uuid: String,
    /// ISO 8601 with the issuer's offset.
    fecha_timbrado: String,
    /// Storage path of the XML.
    xml_url: String,
    xml_uploaded: bool,
    serie: String,
    folio: String,
    /// Decimal string, exact.
    #[schema(value_type = String)]
    total: Decimal,
}

fn parse_body<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> ApiResult<T> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::new(Code::Request001, "send a JSON body (Content-Type: application/json)"));
    }
    serde_json::from_slice(bytes).map_err(|error| {
        let what = if error.is_data() { "a field has the wrong type" } else { "the body is not valid JSON" };
        ApiError::new(Code::Request001, format!("{what}: {error}"))
    })
}

fn numero(n: &Numero) -> Value {
    serde_json::from_str(n.texto()).unwrap_or_else(|_| Value::String(n.texto().to_owned()))
}

fn decimal(n: &Numero) -> ApiResult<Decimal> {
    n.valor().map_err(|e| ApiError::internal("amount", e))
}

fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

/// Stamps an invoice (FACTURADOR or higher).
#[utoipa::path(post, path = "/cfdi/timbrar", tag = "cfdi", request_body = TimbrarBody,
    params(("x-empresa-id" = String, Header, description = "company"),
        ("Idempotency-Key" = Option<String>, Header, description = "replays the first answer for the same body")),
    responses(
        (status = 201, description = "Stamped (sandbox: TIMBRADO_SANDBOX, uuid SANDBOX-...)", body = Envelope<TimbradoOut>),
        (status = 400, description = "CFDI_001 every problem in `details.fields`; CFDI_002 no CSD (live); CFDI_003 CSD expired; \
            REQUEST_001 malformed JSON or wrong types; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001 / AUTH_003", body = ErrorBody),
        (status = 404, description = "CFDI_004 unknown clienteId", body = ErrorBody),
        (status = 409, description = "IDEMPOTENCY_001 key reused with another body; IDEMPOTENCY_002 (live) the same key is still waiting for the PAC", body = ErrorBody),
        (status = 413, description = "REQUEST_002 body too large", body = ErrorBody),
        (status = 402, description = "QUOTA_001 no stamps left (live)", body = ErrorBody),
        (status = 501, description = "LIVE_001 no PAC configured on this installation (TIMBRA_PAC_URL)", body = ErrorBody),
        (status = 502, description = "PAC_001 the PAC rejected the invoice (details.pacCode, folio recorded as a failed attempt); \
            PAC_002 no usable answer from the PAC", body = ErrorBody),
    ))]
pub async fn timbrar(
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Response> {
    let access = caller.authorize(&app, &empresa_id, Permission::CfdiTimbrar).await?;
    let clave = idempotencia::de_headers(&headers, &body)?;
    if let Some(clave) = &clave {
        let mut conn = app.db.conn().await?;
        if let Some(replayed) = idempotencia::replay(&mut conn, &empresa_id, clave, app.clock.now()).await? {
            return Ok(replayed);
        }
    }
    let body: TimbrarBody = parse_body(&body)?;
    let mut conn = app.db.conn().await?;
    let empresa = sql!(fetch_one conn, EmpresaEmisora,
        "SELECT id, rfc, razon_social, regimen_fiscal, codigo_postal, serie_predeterminada, sandbox, folio_sandbox \
         FROM empresas WHERE id = $1",
        &empresa_id)?;
    let cliente = match body.cliente_id.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(id) => Some(
            sql!(fetch_optional conn, ClienteReceptor,
                "SELECT id, rfc, razon_social, regimen_fiscal, codigo_postal, uso_cfdi FROM clientes WHERE id = $1 AND empresa_id = $2",
                id, &empresa_id)?
            .ok_or_else(|| ApiError::new(Code::Cfdi004, format!("customer {id} not found in this company")))?,
        ),
    };
    drop(conn);
    let now = app.clock.now();
    let ahora = hora_local(now.replace_nanosecond(0).unwrap_or(now));
    let preparado = timbrado::preparar(body, &empresa, cliente.as_ref(), ahora)?;

    let sandbox = empresa.sandbox;
    let (csd, pac_live) = if sandbox {
        (credenciales::csd_sandbox(&app, &empresa_id, &empresa.rfc, &empresa.razon_social).await?, None)
    } else {
        let csd = csd_live(&app, &empresa_id, now).await?;
        let pac = app.pac.clone().ok_or_else(|| {
            ApiError::new(
                Code::Live001,
                "live stamping needs a PAC: the installation must set TIMBRA_PAC_URL (see /llms-full.txt); \
                 switch the company to sandbox: true to test",
            )
        })?;
        (csd, Some(pac))
    };

    let cfdi_id = ids::new_id();
    let mut comprobante = preparado.comprobante;
    let fecha_local =
        leer_fecha_cfdi(&comprobante.fecha).ok_or_else(|| ApiError::internal("fecha", &comprobante.fecha))?;
    let storage_path = format!("cfdi/{empresa_id}/{:04}/{:02}/{cfdi_id}.xml", ahora.year(), u8::from(ahora.month()));
    let serie = preparado.serie;

    let guardar_xml = async |xml: String| {
        app.cfdi.storage.put(&storage_path, xml.into_bytes()).await.map_err(|e| ApiError::internal("storage put", e))
    };
    let (mut tx, folio, uuid_xml, uuid_api, timbrado_en, turno) = match pac_live {
        None => {
            // Sandbox, one transaction: the folio, the invoice and its event exist together or
            // not at all. The seal, the TFD and the file are made before it with the folio
            // predicted for this stamp (cfdi::folios), so concurrent stamps sign in parallel;
            // when the transaction takes another folio they are made again inside it.
            let pac = credenciales::pac_sandbox(&app).await?;
            let uuid_xml = uuid::Uuid::new_v4().to_string().to_uppercase();
            let datos = DatosTimbre {
                uuid: uuid_xml.clone(),
                fecha_timbrado: fecha_cfdi(ahora),
                rfc_prov_certif: credenciales::RFC_PAC_SANDBOX.into(),
                leyenda: None,
            };
            let turno = app.cfdi.folios.turno(&empresa_id, empresa.folio_sandbox);
            let (sellado, xml) =
                sellar_sandbox(comprobante.clone(), turno.folio, csd.clone(), pac.clone(), datos.clone()).await?;
            guardar_xml(xml).await?;
            turno.esperar().await;
            let mut tx = app.db.begin().await?;
            let folio = sql!(scalar_one tx, i64,
                "UPDATE empresas SET folio_sandbox = folio_sandbox + 1 WHERE id = $1 RETURNING folio_sandbox", &empresa_id)?;
            if folio == turno.folio {
                comprobante = sellado;
            } else {
                let (sellado, xml) = sellar_sandbox(comprobante, folio, csd, pac, datos).await?;
                guardar_xml(xml).await?;
                comprobante = sellado;
            }
            let uuid_api = format!("SANDBOX-{uuid_xml}");
            (tx, folio, uuid_xml, uuid_api, ahora, Some(turno))
        }
        Some(pac) => {
            // Live: the folio is inside the sealed XML the PAC signs, so it is spent (with one
            // stamp reserved and the attempt recorded) before the PAC is called, and the
            // attempt row explains the gap when the PAC refuses.
            let mut tx = app.db.begin().await?;
            let saldo = sql!(scalar_optional tx, i64,
                "UPDATE timbres_saldo SET saldo = saldo - 1, updated_at = $2 WHERE empresa_id = $1 AND saldo > 0 RETURNING saldo",
                &empresa_id, now)?;
            let Some(saldo) = saldo else {
                return Err(ApiError::new(
                    Code::Quota001,
                    "this company has no stamps left: add stamps at POST /api/timbres/recargas (PROPIETARIO)",
                ));
            };
            // Crossing the threshold (not every stamp below it) announces the low balance.
            let umbral = app.config.stamp_low_balance;
            if saldo == umbral - 1 {
                let data = json!({ "empresaId": empresa_id, "saldo": saldo, "umbral": umbral });
                crate::events::emit(&mut tx, now, &empresa_id, crate::events::EventType::TimbresSaldoBajo, &data)
                    .await?;
            }
            let folio = sql!(scalar_one tx, i64,
                "UPDATE empresas SET folio_live = folio_live + 1 WHERE id = $1 RETURNING folio_live", &empresa_id)?;
            comprobante.folio = Some(folio.to_string());
            sello::sellar(&mut comprobante, &csd.credential).map_err(|e| ApiError::internal("sello", e))?;
            let xml = escritura::escribir(&comprobante).map_err(timbrado::error_escritura)?;
            sql!(execute tx,
                "INSERT INTO intentos_timbrado (id, empresa_id, serie, folio, status, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, 'ENVIADO', $5, $5)",
                &cfdi_id, &empresa_id, &serie, folio, now)?;
            if let Some(clave) = &clave
                && !idempotencia::reservar(&mut tx, &empresa_id, clave, "cfdi.timbrar", now).await?
            {
                // Another request with this key got there first: nothing of this one is kept.
                drop(tx);
                return idempotencia::ganadora(&app, &empresa_id, clave, now).await;
            }
            tx.commit().await?;

            let respuesta = timbra_pac::timbrar_sin_duplicar(pac.as_ref(), &xml).await;
            let mut tx = app.db.begin().await?;
            let timbrado = match respuesta {
                Ok(timbrado) => timbrado,
                Err(error) => {
                    let (status, code) = match &error {
                        timbra_pac::PacError::Rejected { .. } => ("RECHAZADO", Code::Pac001),
                        _ => ("SIN_RESPUESTA", Code::Pac002),
                    };
                    sql!(execute tx,
                        "UPDATE intentos_timbrado SET status = $1, pac_code = $2, error = $3, updated_at = $4 WHERE id = $5",
                        status, error.code(), error.to_string(), app.clock.now(), &cfdi_id)?;
                    // A refusal spent no stamp at the PAC: give the reserved one back. Without an
                    // answer the PAC may have stamped, so the stamp stays spent.
                    if let Some(clave) = &clave {
                        idempotencia::liberar(&mut tx, &empresa_id, clave).await?;
                    }
                    if status == "RECHAZADO" {
                        sql!(execute tx,
                            "UPDATE timbres_saldo SET saldo = saldo + 1, updated_at = $2 WHERE empresa_id = $1",
                            &empresa_id, now)?;
                    }
                    tx.commit().await?;
                    return Err(ApiError::new(
                        code,
                        format!("{error}; folio {serie}-{folio} is recorded as a failed attempt, fix and send again"),
                    )
                    .with_details(json!({ "pacCode": error.code(), "folio": folio, "serie": serie })));
                }
            };
            sql!(execute tx,
                "UPDATE intentos_timbrado SET status = 'TIMBRADO', updated_at = $1 WHERE id = $2", app.clock.now(), &cfdi_id)?;
            sql!(execute tx,
                "INSERT INTO timbres_movimientos (id, empresa_id, cantidad, concepto, user_id, created_at) \
                 VALUES ($1, $2, -1, $3, $4, $5)",
                ids::new_id(), &empresa_id, format!("timbrado {}", timbrado.uuid), &caller.user_id, now)?;
            comprobante = timbra_cfdi::parser::parsear(&timbrado.xml).map_err(|e| ApiError::internal("PAC XML", e))?;
            let timbrado_en = leer_fecha_cfdi(&timbrado.fecha_timbrado).unwrap_or(ahora);
            let uuid = timbrado.uuid.to_uppercase();
            guardar_xml(timbrado.xml).await?;
            (tx, folio, uuid.clone(), uuid, timbrado_en, None)
        }
    };

    let total = decimal(&comprobante.total)?;
    let conceptos: Vec<Value> = comprobante
        .conceptos
        .iter()
        .map(|c| {
            json!({
                "claveProdServ": c.clave_prod_serv, "claveUnidad": c.clave_unidad, "descripcion": c.descripcion,
                "cantidad": numero(&c.cantidad), "precioUnitario": numero(&c.valor_unitario), "importe": numero(&c.importe),
                "descuento": c.descuento.as_ref().map(numero), "objetoImpuesto": c.objeto_imp,
            })
        })
        .collect();
    let folio_text = folio.to_string();
    sql!(execute tx,
        "INSERT INTO cfdis (id, empresa_id, tipo, origen, tipo_comprobante, sandbox, uuid, uuid_xml, serie, folio, folio_num, fecha, \
         fecha_timbrado, subtotal, descuento, total, moneda, tipo_cambio, forma_pago, metodo_pago, status, emisor_rfc, emisor_nombre, \
         emisor_regimen, receptor_rfc, receptor_nombre, receptor_uso_cfdi, emisor_nombre_lower, receptor_nombre_lower, cliente_id, \
         xml_url, conceptos, created_at) \
         VALUES ($1, $2, 'EMITIDA', 'API', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $31, \
         $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30)",
        &cfdi_id, &empresa_id, &comprobante.tipo_de_comprobante, sandbox, &uuid_api, &uuid_xml, &serie, &folio_text, folio,
        fecha_local, timbrado_en, Money(decimal(&comprobante.sub_total)?),
        comprobante.descuento.as_ref().map(decimal).transpose()?.map(Money), Money(total), &comprobante.moneda,
        comprobante.tipo_cambio.as_ref().map(decimal).transpose()?.map(Money), &comprobante.forma_pago, &comprobante.metodo_pago,
        &comprobante.emisor.rfc, &comprobante.emisor.nombre, &comprobante.emisor.regimen_fiscal, &comprobante.receptor.rfc,
        &comprobante.receptor.nombre, &comprobante.receptor.uso_cfdi, comprobante.emisor.nombre.to_lowercase(),
        comprobante.receptor.nombre.to_lowercase(), cliente.as_ref().map(|c| c.id.clone()), &storage_path,
        Value::Array(conceptos).to_string(), now, if sandbox { "TIMBRADO_SANDBOX" } else { "TIMBRADO" })?;
    emitir_factura_timbrada(
        &mut tx,
        now,
        &FacturaTimbrada {
            empresa_id: &empresa_id,
            cfdi_id: &cfdi_id,
            uuid: &uuid_api,
            total,
            serie: &serie,
            folio: &folio_text,
        },
    )
    .await?;
    let data = TimbradoOut {
        cfdi_id,
        uuid: uuid_api,
        fecha_timbrado: rfc3339(timbrado_en),
        xml_url: storage_path,
        xml_uploaded: true,
        serie,
        folio: folio_text,
        total,
    };
    let answer = json!({ "success": true, "mode": access.mode(), "data": data }).to_string();
    let reservada = !sandbox;
    let response = idempotencia::confirmar(
        &app,
        tx,
        &empresa_id,
        clave.as_ref(),
        "cfdi.timbrar",
        StatusCode::CREATED,
        answer,
        now,
        reservada,
    )
    .await?;
    // A replay means this transaction rolled back: its folio was not taken, and dropping the
    // turn tells the stamps after it.
    if let Some(turno) = turno
        && !response.headers().contains_key(idempotencia::REPLAYED)
    {
        turno.confirmar(folio);
    }
    Ok(response)
}

/// Seals `comprobante` with `folio` and adds the sandbox TFD, on the blocking pool (two RSA
/// signatures, about a millisecond each on this machine); gives it back with its XML.
async fn sellar_sandbox(
    mut comprobante: timbra_cfdi::Comprobante,
    folio: i64,
    csd: Arc<credenciales::Csd>,
    pac: Arc<timbra_credentials::Credential>,
    datos: DatosTimbre,
) -> ApiResult<(timbra_cfdi::Comprobante, String)> {
    tokio::task::spawn_blocking(move || {
        comprobante.folio = Some(folio.to_string());
        sello::sellar(&mut comprobante, &csd.credential).map_err(|e| ApiError::internal("sello", e))?;
        timbre::timbrar(&mut comprobante, datos, pac.as_ref()).map_err(|e| ApiError::internal("timbre", e))?;
        let xml = escritura::escribir(&comprobante).map_err(timbrado::error_escritura)?;
        Ok((comprobante, xml))
    })
    .await
    .map_err(|e| ApiError::internal("sello", e))?
}

/// The company's uploaded, valid CSD for live stamping: CFDI_002 when there is none (or only
/// the generated sandbox one), CFDI_003 when it expired.
async fn csd_live(app: &AppState, empresa_id: &str, now: OffsetDateTime) -> ApiResult<Arc<credenciales::Csd>> {
    match credenciales::csd_activo(app, empresa_id).await? {
        None => Err(ApiError::new(
            Code::Cfdi002,
            "this company has no CSD: upload it at POST /api/empresas/{empresaId}/certificados to stamp in live mode",
        )),
        Some(csd) if csd.origen != "UPLOAD" => Err(ApiError::new(
            Code::Cfdi002,
            "this company has only the generated sandbox CSD: upload its real CSD to stamp in live mode",
        )),
        Some(csd) if csd.vigencia_fin <= now => Err(ApiError::new(
            Code::Cfdi003,
            format!("the company's CSD expired on {}; upload a current one", rfc3339(csd.vigencia_fin)),
        )),
        Some(csd) => Ok(csd),
    }
}

/// Listing parameters.
#[derive(Deserialize, IntoParams, Default)]
#[serde(rename_all = "camelCase")]
pub struct ListCfdiParams {
    /// Page from 1 (default 1).
    page: Option<i64>,
    /// Items per page, 1 to 1,000 (default 50).
    limit: Option<i64>,
    /// EMITIDA or RECIBIDA, or a voucher type I, E, T, P, N.
    tipo: Option<String>,
    /// TIMBRADO (also matches TIMBRADO_SANDBOX), TIMBRADO_SANDBOX or CANCELADO.
    status: Option<String>,
    /// From this date (`AAAA-MM-DD`, issuer's local day) or instant (RFC 3339), inclusive.
    desde: Option<String>,
    /// Up to this date (whole local day) or instant, inclusive.
    hasta: Option<String>,
    /// UUID (bare or SANDBOX-, prefix), folio (exact), RFC (prefix), or words that each start a word
    /// of the issuer's or receiver's name.
    search: Option<String>,
    /// Adds xmlDownloadUrl, pdfDownloadUrl and downloadExpiresIn (signed links, 1 hour).
    include_download_urls: Option<bool>,
}

/// One invoice.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CfdiOut {
    id: String,
    uuid: String,
    tipo: String,
    origen: String,
    tipo_comprobante: String,
    serie: Option<String>,
    folio: Option<String>,
    /// ISO 8601 in the issuer's local time.
    fecha: String,
    fecha_timbrado: Option<String>,
    #[schema(value_type = String)]
    subtotal: Decimal,
    #[schema(value_type = Option<String>)]
    descuento: Option<Decimal>,
    /// Decimal string.
    total: String,
    moneda: String,
    #[schema(value_type = Option<String>)]
    tipo_cambio: Option<Decimal>,
    forma_pago: Option<String>,
    metodo_pago: Option<String>,
    status: String,
    emisor_rfc: String,
    emisor_nombre: String,
    emisor_regimen: String,
    receptor_rfc: String,
    receptor_nombre: String,
    receptor_uso_cfdi: String,
    xml_url: Option<String>,
    /// The cancellation process, separate from `status`: null (none), SIN_ACEPTACION, PENDIENTE
    /// (waiting for the receiver; status stays TIMBRADO), ACEPTADA, PLAZO_VENCIDO (the receiver did
    /// not answer in time; SAT cancelled), RECHAZADA.
    cancellation_status: Option<String>,
    xml_download_status: String,
    xml_retry_count: i64,
    xml_next_retry_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    xml_download_url: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pdf_download_url: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    download_expires_in: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    conceptos: Option<Value>,
}

/// A page of invoices.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CfdiPage {
    cfdis: Vec<CfdiOut>,
    total: i64,
    page: i64,
    limit: i64,
    total_pages: i64,
    has_more: bool,
}

#[derive(FromRow)]
struct CfdiRow {
    id: String,
    uuid: String,
    tipo: String,
    origen: String,
    tipo_comprobante: String,
    serie: Option<String>,
    folio: Option<String>,
    fecha: OffsetDateTime,
    fecha_timbrado: Option<OffsetDateTime>,
    subtotal: Money,
    descuento: Option<Money>,
    total: Money,
    moneda: String,
    tipo_cambio: Option<Money>,
    forma_pago: Option<String>,
    metodo_pago: Option<String>,
    status: String,
    emisor_rfc: String,
    emisor_nombre: String,
    emisor_regimen: String,
    receptor_rfc: String,
    receptor_nombre: String,
    receptor_uso_cfdi: String,
    xml_url: Option<String>,
    cancellation_status: Option<String>,
}

const COLUMNS: &str = "SELECT id, uuid, tipo, origen, tipo_comprobante, serie, folio, fecha, fecha_timbrado, subtotal, descuento, \
    total, moneda, tipo_cambio, forma_pago, metodo_pago, status, emisor_rfc, emisor_nombre, emisor_regimen, receptor_rfc, \
    receptor_nombre, receptor_uso_cfdi, xml_url, cancellation_status FROM cfdis ";

impl CfdiRow {
    fn into_out(self, links: Option<([u8; 32], i64)>) -> CfdiOut {
        let xml_download_url =
            links.map(|(secret, now)| self.xml_url.as_deref().map(|path| links::url(&secret, path, now)));
        CfdiOut {
            xml_download_status: if self.xml_url.is_some() { "COMPLETE" } else { "METADATA_ONLY" }.to_owned(),
            xml_retry_count: 0,
            xml_next_retry_at: None,
            download_expires_in: links.map(|_| links::LINK_SECONDS),
            // The PDF is rendered on its first download (never on the stamping path), so the link
            // exists whenever the XML does.
            pdf_download_url: links
                .map(|(secret, now)| self.xml_url.as_deref().map(|path| links::url(&secret, &ruta_pdf(path), now))),
            xml_download_url,
            id: self.id,
            uuid: self.uuid,
            tipo: self.tipo,
            origen: self.origen,
            tipo_comprobante: self.tipo_comprobante,
            serie: self.serie,
            folio: self.folio,
            fecha: rfc3339(hora_local(self.fecha)),
            fecha_timbrado: self.fecha_timbrado.map(|at| rfc3339(hora_local(at))),
            subtotal: self.subtotal.0,
            descuento: self.descuento.map(|m| m.0),
            total: self.total.0.to_string(),
            moneda: self.moneda,
            tipo_cambio: self.tipo_cambio.map(|m| m.0),
            forma_pago: self.forma_pago,
            metodo_pago: self.metodo_pago,
            status: self.status,
            emisor_rfc: self.emisor_rfc,
            emisor_nombre: self.emisor_nombre,
            emisor_regimen: self.emisor_regimen,
            receptor_rfc: self.receptor_rfc,
            receptor_nombre: self.receptor_nombre,
            receptor_uso_cfdi: self.receptor_uso_cfdi,
            xml_url: self.xml_url,
            cancellation_status: self.cancellation_status,
            conceptos: None,
        }
    }
}

/// A bound argument of a query assembled from optional filters.
#[derive(Clone)]
enum Arg {
    Text(String),
    Time(OffsetDateTime),
    Int(i64),
}

/// Binds `args` in order to a query of either backend.
macro_rules! ligar {
    ($query:expr, $args:expr) => {{
        let mut query = $query;
        for arg in $args {
            query = match arg {
                Arg::Text(v) => query.bind(v),
                Arg::Time(v) => query.bind(v),
                Arg::Int(v) => query.bind(v),
            };
        }
        query
    }};
}

async fn fetch_rows(conn: &mut DbConn, sql: String, args: Vec<Arg>) -> Result<Vec<CfdiRow>, sqlx::Error> {
    match crate::db::AsExec::exec(conn) {
        Exec::Sqlite(c) => ligar!(sqlx::query_as::<sqlx::Sqlite, CfdiRow>(AssertSqlSafe(sql)), args).fetch_all(c).await,
        Exec::Pg(c) => ligar!(sqlx::query_as::<sqlx::Postgres, CfdiRow>(AssertSqlSafe(sql)), args).fetch_all(c).await,
    }
}

async fn count_rows(conn: &mut DbConn, sql: String, args: &[Arg]) -> Result<i64, sqlx::Error> {
    let args = args.iter().cloned();
    match crate::db::AsExec::exec(conn) {
        Exec::Sqlite(c) => ligar!(sqlx::query_scalar::<sqlx::Sqlite, i64>(AssertSqlSafe(sql)), args).fetch_one(c).await,
        Exec::Pg(c) => ligar!(sqlx::query_scalar::<sqlx::Postgres, i64>(AssertSqlSafe(sql)), args).fetch_one(c).await,
    }
}

/// A date (`AAAA-MM-DD`, the issuer's local day; `end` = the day after) or an RFC 3339 instant.
fn bound(field: &str, text: &str, end: bool) -> ApiResult<OffsetDateTime> {
    let text = text.trim();
    if let Ok(at) = OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339) {
        return Ok(if end { at + time::Duration::nanoseconds(1) } else { at });
    }
    let date = time::Date::parse(text, time::macros::format_description!("[year]-[month]-[day]")).map_err(|_| {
        ApiError::new(Code::Request001, format!("{field} is a date AAAA-MM-DD or an ISO 8601 instant with offset"))
    })?;
    let date = if end { date.next_day().unwrap_or(date) } else { date };
    let noon = date.midnight().assume_utc() + time::Duration::hours(12);
    Ok(date.midnight().assume_offset(hora_local(noon).offset()))
}

/// Search text with LIKE wildcards removed (they have no meaning in UUIDs, RFCs or folios).
fn plain(text: &str) -> String {
    text.chars().filter(|c| !matches!(c, '%' | '_' | '\\')).collect()
}

/// The words of a search, lower case, split at anything that is not a letter or a digit (as
/// FTS5's unicode61 tokenizer splits names); at most eight.
fn palabras(search: &str) -> Vec<String> {
    search
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .take(8)
        .map(str::to_owned)
        .collect()
}

/// Lists the company's invoices, most recent first.
#[utoipa::path(get, path = "/cfdi", tag = "cfdi", params(ListCfdiParams, ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "One page", body = Envelope<CfdiPage>),
        (status = 400, description = "REQUEST_001 bad page, limit, tipo, status or dates; EMPRESA_003", body = ErrorBody),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
    ))]
pub async fn list(
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Query(params): Query<ListCfdiParams>,
) -> ApiResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let page = params.page.unwrap_or(1);
    let limit = params.limit.unwrap_or(50);
    if page < 1 {
        return Err(ApiError::new(Code::Request001, "page starts at 1"));
    }
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::new(Code::Request001, format!("limit must be between 1 and {MAX_LIMIT}")));
    }
    let mut filter = String::from("WHERE empresa_id = $1");
    let mut args = vec![Arg::Text(empresa_id.clone())];
    let mut push = |filter: &mut String, clause: &str, arg: Arg| {
        args.push(arg);
        filter.push_str(&clause.replace("$?", &format!("${}", args.len())));
    };
    if let Some(tipo) = params.tipo.as_deref().map(|t| t.trim().to_uppercase()).filter(|t| !t.is_empty()) {
        match tipo.as_str() {
            "EMITIDA" | "RECIBIDA" => push(&mut filter, " AND tipo = $?", Arg::Text(tipo)),
            "I" | "E" | "T" | "P" | "N" => push(&mut filter, " AND tipo_comprobante = $?", Arg::Text(tipo)),
            _ => return Err(ApiError::new(Code::Request001, "tipo is EMITIDA, RECIBIDA, I, E, T, P or N")),
        }
    }
    if let Some(status) = params.status.as_deref().map(|s| s.trim().to_uppercase()).filter(|s| !s.is_empty()) {
        match status.as_str() {
            "TIMBRADO" => filter.push_str(" AND status IN ('TIMBRADO', 'TIMBRADO_SANDBOX')"),
            "TIMBRADO_SANDBOX" | "CANCELADO" => push(&mut filter, " AND status = $?", Arg::Text(status)),
            _ => return Err(ApiError::new(Code::Request001, "status is TIMBRADO, TIMBRADO_SANDBOX or CANCELADO")),
        }
    }
    // Tipo and status alone: the total is a sum over the counters the triggers keep.
    let mut counted = true;
    if let Some(desde) = params.desde.as_deref().filter(|d| !d.trim().is_empty()) {
        push(&mut filter, " AND fecha >= $?", Arg::Time(bound("desde", desde, false)?));
        counted = false;
    }
    if let Some(hasta) = params.hasta.as_deref().filter(|d| !d.trim().is_empty()) {
        push(&mut filter, " AND fecha < $?", Arg::Time(bound("hasta", hasta, true)?));
        counted = false;
    }
    if let Some(search) = params.search.as_deref().map(plain).map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()) {
        counted = false;
        let upper = search.to_uppercase();
        let bare = upper.strip_prefix("SANDBOX-").unwrap_or(&upper).to_owned();
        let words = palabras(&search);
        // Each alternative has its own index: a prefix range (SQLite) or a prefix LIKE on a
        // text_pattern_ops index (PostgreSQL) for UUID and RFC, equality for the folio, FTS5
        // or trigrams for the words of the names.
        match app.db.backend() {
            Backend::Sqlite => {
                push(&mut filter, " AND ((uuid_xml >= $?", Arg::Text(bare.clone()));
                push(&mut filter, " AND uuid_xml < $?)", Arg::Text(format!("{bare}\u{10FFFF}")));
                push(&mut filter, " OR folio = $?", Arg::Text(search.clone()));
                for column in ["emisor_rfc", "receptor_rfc"] {
                    push(&mut filter, &format!(" OR ({column} >= $?"), Arg::Text(upper.clone()));
                    push(&mut filter, &format!(" AND {column} < $?)"), Arg::Text(format!("{upper}\u{10FFFF}")));
                }
                if !words.is_empty() {
                    let query = words.iter().map(|w| format!("\"{w}\"*")).collect::<Vec<_>>().join(" AND ");
                    push(
                        &mut filter,
                        " OR id IN (SELECT cfdi_id FROM cfdis_nombres WHERE cfdis_nombres MATCH $?)",
                        Arg::Text(query),
                    );
                }
                filter.push(')');
            }
            Backend::Postgres => {
                push(&mut filter, " AND (uuid_xml LIKE $?", Arg::Text(format!("{bare}%")));
                push(&mut filter, " OR folio = $?", Arg::Text(search.clone()));
                push(&mut filter, " OR emisor_rfc LIKE $? OR receptor_rfc LIKE $?", Arg::Text(format!("{upper}%")));
                for (i, word) in words.iter().enumerate() {
                    let clause = if i == 0 { " OR (" } else { " AND " };
                    filter.push_str(clause);
                    // Words are letters and digits only, so they are safe inside the pattern.
                    push(
                        &mut filter,
                        "(emisor_nombre_lower ~ $? OR receptor_nombre_lower ~ $?)",
                        Arg::Text(format!("(^|[^[:alnum:]]){word}")),
                    );
                }
                if !words.is_empty() {
                    filter.push(')');
                }
                filter.push(')');
            }
        }
    }
    let mut conn = app.db.conn().await?;
    let count = if counted {
        format!("SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM cfdi_conteos {filter}")
    } else {
        format!("SELECT COUNT(*) FROM cfdis {filter}")
    };
    let total = count_rows(&mut conn, count, &args).await?;
    args.push(Arg::Int((page - 1) * limit));
    // The limit is written into the SQL: see `db::con_limite`.
    let sql = format!("{COLUMNS}{filter} ORDER BY fecha DESC, id DESC LIMIT {limit} OFFSET ${}", args.len());
    let rows = fetch_rows(&mut conn, sql, args).await?;
    let links = if params.include_download_urls == Some(true) {
        Some((app.cfdi.link_secret()?, app.clock.now().unix_timestamp()))
    } else {
        None
    };
    let cfdis: Vec<CfdiOut> = rows.into_iter().map(|row| row.into_out(links)).collect();
    let total_pages = if total == 0 { 0 } else { (total + limit - 1) / limit };
    Ok(ok(CfdiPage { cfdis, total, page, limit, total_pages, has_more: page < total_pages }))
}

async fn load(app: &AppState, empresa_id: &str, id: &str) -> ApiResult<(CfdiRow, String)> {
    let mut conn = app.db.conn().await?;
    let sql = format!("{COLUMNS}WHERE id = $1 AND empresa_id = $2");
    let row = fetch_rows(&mut conn, sql, vec![Arg::Text(id.to_owned()), Arg::Text(empresa_id.to_owned())]).await?.pop();
    let row = row.ok_or_else(|| ApiError::not_found("invoice"))?;
    let conceptos = sql!(scalar_one conn, String, "SELECT conceptos FROM cfdis WHERE id = $1", id)?;
    Ok((row, conceptos))
}

/// One invoice with its lines and a signed XML link.
#[utoipa::path(get, path = "/cfdi/{id}", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The invoice", body = Envelope<CfdiOut>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for ids of other companies)", body = ErrorBody),
    ))]
pub async fn get(
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> ApiResult<impl IntoResponse> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let (row, conceptos) = load(&app, &empresa_id, &id).await?;
    let links = Some((app.cfdi.link_secret()?, app.clock.now().unix_timestamp()));
    let mut out = row.into_out(links);
    out.conceptos = Some(serde_json::from_str(&conceptos).map_err(|e| ApiError::internal("conceptos", e))?);
    Ok(ok(out))
}

fn file_response(bytes: Vec<u8>, path: &str, name: &str) -> Response {
    let content_type = if path.ends_with(".pdf") { "application/pdf" } else { "application/xml; charset=utf-8" };
    let disposition = format!("attachment; filename=\"{name}\"");
    let mut response = bytes.into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

async fn read_file(app: &AppState, path: &str) -> ApiResult<Vec<u8>> {
    app.cfdi.storage.get(path).await.map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => ApiError::not_found("file"),
        _ => ApiError::internal("storage get", error),
    })
}

/// The stamped XML of an invoice.
#[utoipa::path(get, path = "/cfdi/{id}/xml", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The XML", content_type = "application/xml", body = String),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn xml(
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let (row, _) = load(&app, &empresa_id, &id).await?;
    let path = row.xml_url.ok_or_else(|| ApiError::not_found("XML of this invoice"))?;
    let bytes = read_file(&app, &path).await?;
    Ok(file_response(bytes, &path, &format!("{}.xml", row.uuid)))
}

/// The printed representation of an invoice (PDF with the verification QR), rendered from the
/// stored XML on the first request and stored beside it.
#[utoipa::path(get, path = "/cfdi/{id}/pdf", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (also for metadata-only invoices: no XML, no PDF)", body = ErrorBody),
    ))]
pub async fn pdf_route(
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let (row, _) = load(&app, &empresa_id, &id).await?;
    let xml_path = row.xml_url.ok_or_else(|| ApiError::not_found("XML of this invoice"))?;
    let path = ruta_pdf(&xml_path);
    let bytes = pdf(&app, &path).await?;
    Ok(file_response(bytes, &path, &format!("{}.pdf", row.uuid)))
}

/// Where the PDF of the XML stored at `xml_path` lives.
fn ruta_pdf(xml_path: &str) -> String {
    format!("{}.pdf", xml_path.strip_suffix(".xml").unwrap_or(xml_path))
}

/// The stored PDF at `path`, rendered from its XML sibling (and stored) when it is not there
/// yet. Rendering runs on the blocking pool: it is CPU work of a few milliseconds.
async fn pdf(app: &AppState, path: &str) -> ApiResult<Vec<u8>> {
    match app.cfdi.storage.get(path).await {
        Ok(bytes) => return Ok(bytes),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(ApiError::internal("storage get", error)),
    }
    let xml_path = format!("{}.xml", path.strip_suffix(".pdf").unwrap_or(path));
    let xml = String::from_utf8(read_file(app, &xml_path).await?).map_err(|e| ApiError::internal("stored XML", e))?;
    let bytes = tokio::task::spawn_blocking(move || timbra_pdf::render_xml(&xml))
        .await
        .map_err(|e| ApiError::internal("pdf task", e))?
        .map_err(|e| ApiError::internal("pdf render", e))?;
    // Two first requests at once render twice and store the same bytes: harmless.
    app.cfdi.storage.put(path, bytes.clone()).await.map_err(|e| ApiError::internal("storage put", e))?;
    Ok(bytes)
}

/// A file through a signed link (no credentials: the link is the permission; 1 hour).
#[utoipa::path(get, path = "/descargas/{token}", tag = "cfdi", params(("token" = String, Path)),
    responses(
        (status = 200, description = "The file (XML or PDF)", content_type = "application/xml", body = String),
        (status = 403, description = "DOWNLOAD_001 the link is altered or expired; ask for a new one", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn descarga(State(app): State<AppState>, Path(token): Path<String>) -> ApiResult<Response> {
    let secret = app.cfdi.link_secret()?;
    let path = links::verify(&secret, &token, app.clock.now().unix_timestamp()).map_err(|error| match error {
        links::LinkError::Expired => {
            ApiError::new(Code::Download001, "this download link expired; request the invoice again for a fresh one")
        }
        links::LinkError::Invalid => ApiError::new(Code::Download001, "this download link is not valid"),
    })?;
    let bytes = if path.ends_with(".pdf") { pdf(&app, &path).await? } else { read_file(&app, &path).await? };
    let name = path.rsplit('/').next().unwrap_or("cfdi.xml").to_owned();
    Ok(file_response(bytes, &path, &name))
}

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
    /// TIMBRADO while the receiver decides, CANCELADO once final.
    status: String,
    /// SIN_ACEPTACION (cancelled at once), PENDIENTE (waits for the receiver), ACEPTADA, PLAZO_VENCIDO,
    /// RECHAZADA.
    cancellation_status: String,
    /// Storage path of SAT's acuse (live), downloadable at `/api/cfdi/{id}/acuse`.
    acuse_url: Option<String>,
}

#[derive(FromRow)]
struct PorCancelar {
    uuid: String,
    uuid_xml: String,
    status: String,
    sandbox: bool,
    xml_url: Option<String>,
    cancellation_status: Option<String>,
}

/// Cancels an invoice (CONTADOR or higher; `cfdi:cancelar`).
#[utoipa::path(post, path = "/cfdi/{id}/cancelar", tag = "cfdi", request_body = CancelarBody,
    params(("id" = String, Path), ("x-empresa-id" = String, Header),
        ("Idempotency-Key" = Option<String>, Header, description = "replays the first answer for the same body")),
    responses(
        (status = 200, description = "Cancelled, or pending the receiver's acceptance (cancellationStatus PENDIENTE)", body = Envelope<CancelacionOut>),
        (status = 400, description = "CANCEL_001 invalid motivo or folioSustitucion; CANCEL_003 not TIMBRADO (or already pending); \
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
    let clave = idempotencia::de_headers(&headers, &body)?;
    if let Some(clave) = &clave {
        let mut conn = app.db.conn().await?;
        if let Some(replayed) = idempotencia::replay(&mut conn, &empresa_id, clave, app.clock.now()).await? {
            return Ok(replayed);
        }
    }
    // The invoice first: an id of another company is CANCEL_002 whatever the body says.
    let fila = {
        let mut conn = app.db.conn().await?;
        sql!(fetch_optional conn, PorCancelar,
            "SELECT uuid, uuid_xml, status, sandbox, xml_url, cancellation_status FROM cfdis WHERE id = $1 AND empresa_id = $2",
            &id, &empresa_id)?
    }
    .ok_or_else(|| ApiError::new(Code::Cancel002, format!("invoice {id} not found in this company")))?;
    let body: CancelarBody = parse_body(&body)?;
    let motivo = body.motivo.trim().to_owned();
    if !["01", "02", "03", "04"].contains(&motivo.as_str()) {
        return Err(ApiError::new(
            Code::Cancel001,
            format!("motivo must be 01, 02, 03 or 04 (c_MotivoCancelacion), not «{motivo}»"),
        ));
    }
    let sustitucion = body.folio_sustitucion.as_deref().map(|f| f.trim().trim_start_matches("SANDBOX-").to_uppercase());
    let sustitucion = sustitucion.filter(|f| !f.is_empty());
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
        (Some(f), _) if !timbra_cfdi::timbre::uuid_valido(f) => {
            return Err(ApiError::new(
                Code::Cancel001,
                format!("folioSustitucion «{f}» is not a UUID (XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX)"),
            ));
        }
        _ => {}
    }
    if fila.cancellation_status.as_deref() == Some("PENDIENTE") {
        return Err(ApiError::new(
            Code::Cancel003,
            "a cancellation of this invoice is already waiting for the receiver's answer",
        ));
    }
    if fila.status != "TIMBRADO" && fila.status != "TIMBRADO_SANDBOX" {
        return Err(ApiError::new(
            Code::Cancel003,
            format!("only stamped invoices can be cancelled; this one is {}", fila.status),
        ));
    }
    let now = app.clock.now();
    let ahora = hora_local(now.replace_nanosecond(0).unwrap_or(now));
    let datos = cancelacion::Datos { cfdi_id: &id, uuid: &fila.uuid, motivo: &motivo };

    if fila.sandbox {
        // Sandbox: SAT is not involved; the invoice is cancelled at once, without acceptance.
        let mut tx = app.db.begin().await?;
        cancelacion::registrar(&mut tx, now, &empresa_id, &datos, "SIN_ACEPTACION", sustitucion.as_deref(), None)
            .await?;
        let answer = respuesta(&id, &fila.uuid, "SIN_ACEPTACION", None, access.mode());
        idempotencia::confirmar(
            &app,
            tx,
            &empresa_id,
            clave.as_ref(),
            "cfdi.cancelar",
            StatusCode::OK,
            answer,
            now,
            false,
        )
        .await
    } else {
        let csd = csd_live(&app, &empresa_id, now).await?;
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
            if !idempotencia::reservar(&mut tx, &empresa_id, clave, "cfdi.cancelar", now).await? {
                drop(tx);
                return idempotencia::ganadora(&app, &empresa_id, clave, now).await;
            }
            tx.commit().await?;
        }
        let enviada = async {
            let folios = [timbra_credentials::xmldsig::CancelacionFolio {
                uuid: fila.uuid_xml.clone(),
                motivo: motivo.clone(),
                folio_sustitucion: sustitucion.clone(),
            }];
            let firmada = timbra_credentials::xmldsig::sign_cancelacion(
                &csd.credential,
                csd.credential.certificate().rfc(),
                &fecha_cfdi(ahora),
                &folios,
            )
            .map_err(|e| ApiError::internal("cancelacion", e))?;
            let acuse = pac.cancelar(&firmada).await.map_err(|error| {
                let code =
                    if matches!(error, timbra_pac::PacError::Rejected { .. }) { Code::Pac001 } else { Code::Pac002 };
                ApiError::new(code, format!("{error}; the invoice is unchanged, try again"))
                    .with_details(json!({ "pacCode": error.code() }))
            })?;
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
            let pendiente =
                acuse.estatus_cancelacion.as_deref().is_some_and(|e| e.trim().eq_ignore_ascii_case("en proceso"));
            Ok::<_, ApiError>((acuse_path, if pendiente { "PENDIENTE" } else { "SIN_ACEPTACION" }))
        };
        let (acuse_path, estado) = match enviada.await {
            Ok(enviada) => enviada,
            Err(error) => {
                if let Some(clave) = &clave {
                    let mut tx = app.db.begin().await?;
                    idempotencia::liberar(&mut tx, &empresa_id, clave).await?;
                    tx.commit().await?;
                }
                return Err(error);
            }
        };
        let mut tx = app.db.begin().await?;
        cancelacion::registrar(&mut tx, now, &empresa_id, &datos, estado, sustitucion.as_deref(), Some(&acuse_path))
            .await?;
        let answer = respuesta(&id, &fila.uuid, estado, Some(&acuse_path), access.mode());
        idempotencia::confirmar(
            &app,
            tx,
            &empresa_id,
            clave.as_ref(),
            "cfdi.cancelar",
            StatusCode::OK,
            answer,
            now,
            clave.is_some(),
        )
        .await
    }
}

fn respuesta(id: &str, uuid: &str, estado: &str, acuse_url: Option<&str>, mode: &str) -> String {
    let data = CancelacionOut {
        cfdi_id: id.to_owned(),
        uuid: uuid.to_owned(),
        status: if estado == "PENDIENTE" { "TIMBRADO" } else { "CANCELADO" }.to_owned(),
        cancellation_status: estado.to_owned(),
        acuse_url: acuse_url.map(str::to_owned),
    };
    json!({ "success": true, "mode": mode, "data": data }).to_string()
}

/// SAT's acuse of an invoice's cancellation (live), as the PAC returned it.
#[utoipa::path(get, path = "/cfdi/{id}/acuse", tag = "cfdi", params(("id" = String, Path), ("x-empresa-id" = String, Header)),
    responses(
        (status = 200, description = "The acuse XML", content_type = "application/xml", body = String),
        (status = 403, description = "SCOPE_001", body = ErrorBody),
        (status = 404, description = "NOT_FOUND (no cancellation acuse for this invoice)", body = ErrorBody),
    ))]
pub async fn acuse(
    State(app): State<AppState>,
    caller: Caller,
    EmpresaHeader(empresa_id): EmpresaHeader,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    caller.authorize(&app, &empresa_id, Permission::CfdiView).await?;
    let path = {
        let mut conn = app.db.conn().await?;
        sql!(scalar_optional conn, Option<String>, "SELECT acuse_url FROM cfdis WHERE id = $1 AND empresa_id = $2", &id, &empresa_id)?
    }
    .flatten()
    .ok_or_else(|| ApiError::not_found("cancellation acuse of this invoice"))?;
    let bytes = read_file(&app, &path).await?;
    Ok(file_response(bytes, &path, &format!("{id}.acuse.xml")))
}
