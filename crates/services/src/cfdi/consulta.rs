//! Reading the company's invoices: the filter of a listing as a client writes it
//! ([`Consulta`] → [`filtro`]), a page of them ([`listar`]), one with its lines ([`leer`],
//! [`Concepto`]). `GET /api/cfdi`, `GET /api/cfdi/{id}` and the dashboard's invoices call
//! these; who may see payroll receipts (type N) is [`ve_nomina`].

use serde::Deserialize;
use timbra_store::ids::{CfdiId, EmpresaId};
use time::OffsetDateTime;

use crate::auth::caller::{Caller, EmpresaAccess};
use crate::auth::roles::Permission;
use crate::cfdi::hora_local;
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use timbra_store::cfdis::{self, CfdiRow, Filtro};
use timbra_store::estados::EstadoCfdi;

/// Whether the caller may read the company's payroll receipts (type N CFDI) through the
/// invoice routes: `nomina:view` (CONTADOR or higher, or a key with that scope). They hold
/// employees' CURP, NSS, salary and bank account (issue 28, finding 2). `access` is what
/// [`Caller::authorize`] found for the route's own permission.
pub fn ve_nomina(caller: &Caller, access: &EmpresaAccess) -> bool {
    caller.allows(access, Permission::NominaView)
}

/// A listing's filters as a client writes them (each optional; blank is absent).
#[derive(Clone, Debug, Default)]
pub struct Consulta {
    /// `EMITIDA`, `RECIBIDA`, or a TipoDeComprobante letter (I, E, T, P, N).
    pub tipo: Option<String>,
    /// TIMBRADO, TIMBRADO_SANDBOX or CANCELADO.
    pub status: Option<String>,
    /// A date `AAAA-MM-DD` (the issuer's day) or an RFC 3339 instant, inclusive.
    pub desde: Option<String>,
    /// The same, inclusive of that day or instant.
    pub hasta: Option<String>,
    /// UUID or RFC prefix, folio, or words of the names.
    pub search: Option<String>,
    /// PPD invoices with a balance owed (`true`) or settled (`false`).
    pub saldo_pendiente: Option<bool>,
    /// Only invoices with this complement (`cartaPorte`, `comercioExterior`).
    pub complemento: Option<String>,
}

/// A date (`AAAA-MM-DD`, the issuer's local day; `end` = the day after) or an RFC 3339 instant.
fn limite(field: &str, text: &str, end: bool) -> ApiResult<OffsetDateTime> {
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

/// The storage filter of `consulta`: REQUEST_001 saying which value is wrong. Without
/// `ve_nomina` payroll receipts are not listed, not even with `tipo=N`.
pub fn filtro(consulta: &Consulta, ve_nomina: bool) -> ApiResult<Filtro> {
    crate::scoped::check_search("search", consulta.search.as_deref())?;
    let mut filtro = Filtro::default();
    if let Some(tipo) = consulta.tipo.as_deref().map(|t| t.trim().to_uppercase()).filter(|t| !t.is_empty()) {
        match tipo.as_str() {
            "EMITIDA" | "RECIBIDA" => filtro.tipo = Some(tipo),
            "I" | "E" | "T" | "P" | "N" => filtro.tipo_comprobante = Some(tipo),
            _ => return Err(ApiError::new(Code::Request001, "tipo is EMITIDA, RECIBIDA, I, E, T, P or N")),
        }
    }
    if let Some(status) = consulta.status.as_deref().map(|s| s.trim().to_uppercase()).filter(|s| !s.is_empty()) {
        let estado = EstadoCfdi::parse(&status)
            .ok_or_else(|| ApiError::new(Code::Request001, "status is TIMBRADO, TIMBRADO_SANDBOX or CANCELADO"))?;
        filtro.status = Some(estado);
    }
    if let Some(desde) = consulta.desde.as_deref().filter(|d| !d.trim().is_empty()) {
        filtro.desde = Some(limite("desde", desde, false)?);
    }
    if let Some(hasta) = consulta.hasta.as_deref().filter(|d| !d.trim().is_empty()) {
        filtro.hasta = Some(limite("hasta", hasta, true)?);
    }
    filtro.saldo_pendiente = consulta.saldo_pendiente;
    if let Some(complemento) = consulta.complemento.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        let nombre = crate::cfdi::complementos::NOMBRES
            .into_iter()
            .find(|nombre| nombre.eq_ignore_ascii_case(complemento))
            .ok_or_else(|| ApiError::new(Code::Request001, "complemento is cartaPorte or comercioExterior"))?;
        filtro.complemento = Some(nombre.to_owned());
    }
    filtro.sin_nomina = !ve_nomina;
    filtro.search = consulta.search.as_deref().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    Ok(filtro)
}

/// The rows before page `page` (from 1) of `limit` invoices, `limit` from 1 to `max`:
/// REQUEST_001 for a page or limit out of range.
pub fn saltar(page: i64, limit: i64, max: i64) -> ApiResult<i64> {
    if page < 1 {
        return Err(ApiError::new(Code::Request001, "page starts at 1"));
    }
    if !(1..=max).contains(&limit) {
        return Err(ApiError::new(Code::Request001, format!("limit must be between 1 and {max}")));
    }
    page.checked_sub(1).and_then(|before| before.checked_mul(limit)).ok_or_else(|| {
        ApiError::new(Code::Request001, format!("page {page} is beyond any listing; ask for a smaller page number"))
    })
}

/// `limit` invoices matching `filtro` after the first `offset`, most recent first, and how
/// many match in all.
pub async fn listar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    filtro: &Filtro,
    limit: i64,
    offset: i64,
) -> ApiResult<(Vec<CfdiRow>, i64)> {
    let mut conn = app.db.conn().await?;
    Ok(cfdis::listar(&mut conn, app.db.backend(), empresa_id, filtro, limit, offset).await?)
}

/// The company's invoice `id` with its lines' JSON, or NOT_FOUND (also for ids of other
/// companies, and for a payroll receipt when `ve_nomina` is false: like another tenant's
/// record, it is not there).
pub async fn leer(app: &AppContext, empresa_id: &EmpresaId, id: &str, ve_nomina: bool) -> ApiResult<(CfdiRow, String)> {
    let mut conn = app.db.conn().await?;
    cfdis::leer(&mut conn, empresa_id, &CfdiId::from(id))
        .await?
        .filter(|(row, _)| ve_nomina || row.tipo_comprobante != "N")
        .ok_or_else(|| ApiError::not_found("invoice"))
}

/// An amount or quantity of a stored line, as the comprobante wrote it.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Cifra {
    /// A JSON number.
    Numero(serde_json::Number),
    /// A text (a value the stamp kept as written).
    Texto(String),
}

impl Cifra {
    /// Its text.
    pub fn texto(&self) -> String {
        match self {
            Cifra::Numero(number) => number.to_string(),
            Cifra::Texto(text) => text.clone(),
        }
    }
}

/// A line of an invoice as its row stores it (`cfdis.conceptos`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Concepto {
    /// Descripcion.
    #[serde(default)]
    pub descripcion: String,
    /// Cantidad.
    #[serde(default)]
    pub cantidad: Option<Cifra>,
    /// ValorUnitario.
    #[serde(default)]
    pub precio_unitario: Option<Cifra>,
    /// Importe.
    #[serde(default)]
    pub importe: Option<Cifra>,
}

/// The lines of a stored `conceptos` JSON (none when it is not a list of lines).
pub fn conceptos(json: &str) -> Option<Vec<Concepto>> {
    serde_json::from_str(json).ok()
}
