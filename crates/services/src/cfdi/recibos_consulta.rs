//! Reading the company's sales tickets (issue 31) as clients see them: a ticket with its
//! dates in the issuer's zone and its self-invoicing link ([`ReciboOut`]), a page of them with
//! the list's filters ([`listar`]), one ([`obtener`]), and the global invoice of a period from
//! its body ([`timbrar_global`]). `GET /api/recibos`, `GET /api/recibos/{id}`,
//! `POST /api/cfdi/global` and the dashboard's tickets call these.

use serde::Serialize;
use sha2::Digest;
use timbra_store::ids::{EmpresaId, ReciboId};
use utoipa::ToSchema;

use crate::cfdi::consulta::Cifra;
use crate::cfdi::credenciales::rfc3339;
use crate::cfdi::factura::Solicitante;
use crate::cfdi::recibos::{self, GlobalBody};
use crate::cfdi::{contexto, hora_de_expedicion, pipeline};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::idempotency::Answer;
use timbra_store::Paging;
use timbra_store::recibos::{self as db, Filtro, ReciboRow};

/// A ticket.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReciboOut {
    pub id: String,
    pub folio: String,
    /// The sale's instant, ISO 8601 with the issuer's offset.
    pub fecha: String,
    pub moneda: String,
    pub tipo_cambio: Option<String>,
    pub forma_pago: String,
    /// Exact decimal text.
    pub subtotal: String,
    pub descuento: Option<String>,
    /// Exact decimal text.
    pub total: String,
    /// ABIERTO, FACTURADO, GLOBAL or CANCELADO.
    pub status: String,
    /// The code the customer types on the self-invoicing page (10 characters, no 0/O/1/I/L).
    pub clave_autofactura: String,
    /// The self-invoicing page with the code filled in; `null` until the company has an
    /// `autofactura.slug`.
    pub url_autofactura: Option<String>,
    /// The page refuses the code after this instant.
    pub autofactura_vence: String,
    /// The invoice (FACTURADO: the customer's; GLOBAL: the global invoice).
    pub cfdi_id: Option<String>,
    pub sucursal: Option<String>,
    pub email: Option<String>,
    /// The lines as computed: net `precioUnitario` (taxes backed out) and `importe`.
    #[schema(value_type = Object)]
    pub conceptos: serde_json::Value,
    pub created_at: String,
}

/// A line of a ticket as text: what it sells, how many, the net unit price and the amount.
#[derive(Clone, Debug, Default)]
pub struct Linea {
    /// Descripcion.
    pub descripcion: String,
    /// Cantidad.
    pub cantidad: String,
    /// Unit price without taxes.
    pub precio_unitario: String,
    /// Amount without taxes.
    pub importe: String,
}

/// The lines of ticket `recibo` (none when its stored lines are not a list).
pub fn lineas(recibo: &ReciboOut) -> Vec<Linea> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Guardada {
        #[serde(default)]
        descripcion: Option<Cifra>,
        #[serde(default)]
        cantidad: Option<Cifra>,
        #[serde(default)]
        precio_unitario: Option<Cifra>,
        #[serde(default)]
        importe: Option<Cifra>,
    }
    let texto = |c: Option<Cifra>| c.map(|c| c.texto()).unwrap_or_default();
    serde_json::from_value::<Vec<Guardada>>(recibo.conceptos.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|l| Linea {
            descripcion: texto(l.descripcion),
            cantidad: texto(l.cantidad),
            precio_unitario: texto(l.precio_unitario),
            importe: texto(l.importe),
        })
        .collect()
}

/// The public base URL of this installation: `TIMBRA_PUBLIC_URL`, else the request's host and
/// scheme.
pub fn url_publica(app: &AppContext, headers: &http::HeaderMap) -> String {
    if let Some(url) = &app.config.public_url {
        return url.clone();
    }
    let host = headers.get("host").and_then(|h| h.to_str().ok()).unwrap_or("localhost");
    let proto = headers
        .get("x-forwarded-proto")
        .and_then(|h| h.to_str().ok())
        .filter(|p| *p == "https" || *p == "http")
        .unwrap_or("http");
    format!("{proto}://{host}")
}

/// `urlAutofactura` of the code `clave` on the page of `slug`.
pub fn url_autofactura(base: &str, slug: &str, clave: &str) -> String {
    format!("{base}/autofactura/{slug}?clave={clave}")
}

/// Ticket `row` as clients see it: dates in the zone of `codigo_postal`, the link on the page
/// of `slug` under `base`.
pub fn recibo_out(row: ReciboRow, app: &AppContext, codigo_postal: &str, base: &str, slug: Option<&str>) -> ReciboOut {
    let catalogos = &*app.catalogos.indice;
    let local = |t| rfc3339(hora_de_expedicion(catalogos, codigo_postal, t));
    ReciboOut {
        url_autofactura: slug.map(|slug| url_autofactura(base, slug, &row.clave_autofactura)),
        fecha: local(row.fecha),
        autofactura_vence: local(row.vence),
        created_at: rfc3339(row.created_at),
        conceptos: serde_json::from_str(&row.conceptos).unwrap_or(serde_json::Value::Null),
        id: row.id,
        folio: row.folio,
        moneda: row.moneda,
        tipo_cambio: row.tipo_cambio.map(|t| t.0.to_string()),
        forma_pago: row.forma_pago,
        subtotal: row.subtotal.0.to_string(),
        descuento: row.descuento.map(|d| d.0.to_string()),
        total: row.total.0.to_string(),
        status: row.status,
        clave_autofactura: row.clave_autofactura,
        cfdi_id: row.cfdi_id.map(String::from),
        sucursal: row.sucursal,
        email: row.email,
    }
}

/// The address (`slug`) of the company's self-invoicing page, once set.
pub async fn slug_de(app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<Option<String>> {
    let mut conn = app.db.conn().await?;
    Ok(db::ajustes(&mut conn, empresa_id).await?.and_then(|a| a.autofactura_slug))
}

/// A listing's filters as a client writes them.
#[derive(Clone, Debug, Default)]
pub struct Consulta {
    /// ABIERTO, FACTURADO, GLOBAL or CANCELADO.
    pub status: Option<String>,
    /// First day `AAAA-MM-DD` (issuer's local time).
    pub desde: Option<String>,
    /// Last day `AAAA-MM-DD`, included.
    pub hasta: Option<String>,
    /// Words of the folio, code, branch or e-mail.
    pub search: Option<String>,
}

fn dia(campo: &str, texto: &str) -> Result<time::Date, ApiError> {
    time::Date::parse(texto.trim(), &time::macros::format_description!("[year]-[month]-[day]"))
        .map_err(|_| ApiError::new(Code::Request001, format!("{campo} is a date AAAA-MM-DD")))
}

/// Page `paging` of the company's tickets matching `consulta`, newest first (REQUEST_001 for a
/// bad status or date), and how many match; `base` is the public URL of the links.
pub async fn listar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    consulta: &Consulta,
    paging: &Paging,
    base: &str,
) -> ApiResult<(Vec<ReciboOut>, i64)> {
    let status = match consulta.status.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s @ ("ABIERTO" | "FACTURADO" | "GLOBAL" | "CANCELADO")) => Some(s.to_owned()),
        Some(_) => {
            return Err(ApiError::new(Code::Request001, "status is ABIERTO, FACTURADO, GLOBAL or CANCELADO"));
        }
    };
    let (empresa, _) = contexto::emisora_y_receptor(app, empresa_id, None).await?;
    let catalogos = &*app.catalogos.indice;
    let inicio = |d: time::Date| {
        crate::cfdi::fecha_de_expedicion(
            catalogos,
            &empresa.codigo_postal,
            time::PrimitiveDateTime::new(d, time::Time::MIDNIGHT),
        )
        .to_offset(time::UtcOffset::UTC)
    };
    let desde = consulta.desde.as_deref().map(|t| dia("desde", t)).transpose()?.map(inicio);
    let hasta =
        consulta.hasta.as_deref().map(|t| dia("hasta", t)).transpose()?.map(|d| inicio(d.next_day().unwrap_or(d)));
    let patron = consulta
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| timbra_store::search::like_pattern(Some(s)));
    let filtro = Filtro { status, desde, hasta, patron };
    let (rows, total) = {
        let mut conn = app.db.conn().await?;
        db::page(&mut conn, empresa_id, &filtro, paging).await?
    };
    let slug = slug_de(app, empresa_id).await?;
    let items = rows.into_iter().map(|r| recibo_out(r, app, &empresa.codigo_postal, base, slug.as_deref())).collect();
    Ok((items, total))
}

/// The company's ticket `id`, or NOT_FOUND (also another company's); `base` is the public URL
/// of its link.
pub async fn obtener(app: &AppContext, empresa_id: &EmpresaId, id: &str, base: &str) -> ApiResult<ReciboOut> {
    let row = {
        let mut conn = app.db.conn().await?;
        db::get(&mut conn, empresa_id, &ReciboId::from(id)).await?.ok_or_else(|| ApiError::not_found("ticket"))?
    };
    let (empresa, _) = contexto::emisora_y_receptor(app, empresa_id, None).await?;
    let slug = slug_de(app, empresa_id).await?;
    Ok(recibo_out(row, app, &empresa.codigo_postal, base, slug.as_deref()))
}

/// Stamps the global invoice of `cuerpo`'s period (the caller authorized `cfdi:timbrar` and
/// looked for a replay of its Idempotency-Key): its ABIERTO tickets become GLOBAL in the
/// stamp's own transaction. `bytes` is the body as sent: a live retry of the same bytes finds
/// its attempt.
pub async fn timbrar_global(
    app: &AppContext,
    empresa_id: &EmpresaId,
    solicitante: Solicitante<'_>,
    cuerpo: &GlobalBody,
    bytes: &[u8],
) -> ApiResult<Answer> {
    let now = app.clock.now();
    let (empresa, _) = contexto::emisora_y_receptor(app, empresa_id, None).await?;
    let periodo = recibos::periodo(app, &empresa, cuerpo)?;
    let preparada = recibos::preparar_global(app, &empresa, &periodo, now).await?;
    let request_hash = if empresa.sandbox { String::new() } else { hex::encode(sha2::Sha256::digest(bytes)) };
    let peticion = pipeline::Peticion {
        empresa: &empresa,
        user_id: solicitante.user_id,
        mode: solicitante.mode,
        clave: solicitante.clave,
        request_hash,
        now,
        fecha_local: preparada.fecha_local,
    };
    recibos::timbrar_global(app, &peticion, preparada).await
}
