//! Sales tickets (issue 31): a ticket computed with the same concept and tax code as an
//! invoice ([`timbrado::preparar`]), the global invoice to "PUBLICO EN GENERAL" of the ABIERTO
//! tickets of a period, and the document types whose stamp moves tickets in the stamp's own
//! transaction ([`Efectos`]): two submissions of one ticket, or two global invoices of one
//! range, give one stamp.
//!
//! A ticket keeps its lines as computed: net unit prices (the taxes backed out of the prices
//! the customer paid, to the centavo), so the invoice made from it — a self-invoice built
//! from the same lines, or its concept in a global invoice — agrees with it.

use std::sync::Arc;
use timbra_store::ids::{CfdiId, ClienteId, EmpresaId, UserId};

pub mod clave;
pub mod escritor;

use clave::ALFABETO;
pub use clave::{LARGO_CLAVE, normalizar_clave, nueva_clave};

use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{Value as Json, json};
use timbra_cfdi::catalogos::{Exportacion, FormaPago, Impuesto, MetodoPago, ObjetoImp, TipoDeComprobante, TipoFactor};
use timbra_cfdi::construccion::{ClaseImpuesto, NuevoComprobante, NuevoConcepto, NuevoImpuesto, redondear};
use timbra_cfdi::tipos::{Esquema, NOMBRE_PUBLICO_GENERAL, RFC_PUBLICO_GENERAL};
use timbra_cfdi::{Comprobante, Emisor, InformacionGlobal, Receptor, validacion};
use timbra_credentials::Credential;
use timbra_store::empresas::EmpresaEmisora;
use timbra_store::recibos::{self as db, ReciboRow};
use timbra_store::{Money, Tx};
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};
use utoipa::ToSchema;

use super::documento::Sellable;
use super::pipeline::{self, Documento, Efectos, Escrito, Fila, Hecho, Registro, Resumen};
use super::timbrado::{self, ConceptoBody, TimbrarBody};
use super::tipos::TipoDocumento;
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use crate::events::payloads::FacturaTimbrada;
use crate::events::{self, Emission, Event};
use crate::validate::{self, RawAmount};

/// The operation name of a global invoice's stamp.
pub const OPERACION_GLOBAL: &str = "cfdi.global";
/// The operation name of a self-invoice's stamp.
pub const OPERACION_AUTOFACTURA: &str = "recibos.autofactura";

/// Most lines one ticket may carry.
pub const MAX_LINEAS: usize = 1000;

/// Body of `POST /api/recibos`.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct CrearReciboBody {
    /// The sale's local time `AAAA-MM-DDThh:mm:ss` (the issuer's zone); default now.
    pub fecha: Option<String>,
    /// c_FormaPago (01 cash, 04 credit card, 28 debit card…).
    pub forma_pago: Option<String>,
    /// c_Moneda, default MXN.
    pub moneda: Option<String>,
    /// Exchange rate to MXN; required when `moneda` is not MXN.
    #[schema(value_type = Option<String>)]
    pub tipo_cambio: Option<RawAmount>,
    /// The lines, as an invoice's (`POST /api/cfdi/timbrar`'s `conceptos`); no retenciones.
    pub conceptos: Option<Vec<ConceptoBody>>,
    /// `true` (default): `precioUnitario` and `descuento` include the transferred taxes and the
    /// service backs them out so the ticket's total is what the customer paid, to the centavo.
    pub precios_con_impuestos: Option<bool>,
    /// Your folio; default the company's next ticket number.
    pub folio: Option<String>,
    /// Branch.
    pub sucursal: Option<String>,
    /// The customer's e-mail.
    pub email: Option<String>,
}

fn problema(field: impl Into<String>, message: impl Into<String>) -> FieldProblem {
    FieldProblem::new(field, message)
}

/// The rates of a line whose prices include its taxes: Σ of the `Tasa` rates of its traslados
/// (16% IVA when none are given), each one, and Σ of the `Cuota` amounts per unit.
struct Tasas {
    tasas: Vec<Decimal>,
    cuota: Decimal,
}

fn tasas_de(p: &mut Vec<FieldProblem>, i: usize, linea: &Json) -> Option<Tasas> {
    let objeto = linea.get("objetoImpuesto").and_then(Json::as_str).unwrap_or("02").trim();
    if objeto != "02" {
        return None;
    }
    let Some(impuestos) = linea.get("impuestos").filter(|v| !v.is_null()) else {
        return Some(Tasas { tasas: vec![Decimal::new(16, 2)], cuota: Decimal::ZERO });
    };
    if impuestos.get("retenciones").and_then(Json::as_array).is_some_and(|r| !r.is_empty()) {
        p.push(problema(
            format!("conceptos[{i}].impuestos.retenciones"),
            "a ticket carries no retenciones (a sale to the public): invoice the customer with POST /api/cfdi/timbrar",
        ));
    }
    let mut tasas = Tasas { tasas: Vec::new(), cuota: Decimal::ZERO };
    for traslado in impuestos.get("traslados").and_then(Json::as_array).into_iter().flatten() {
        let factor = traslado.get("tipoFactor").and_then(Json::as_str).unwrap_or("Tasa");
        let valor = traslado.get("tasaOCuota").and_then(|v| match v {
            Json::String(s) => s.parse::<Decimal>().ok(),
            Json::Number(n) => n.to_string().parse::<Decimal>().ok(),
            _ => None,
        });
        match (factor, valor) {
            (f, Some(v)) if f.eq_ignore_ascii_case("Tasa") => tasas.tasas.push(v),
            (f, Some(v)) if f.eq_ignore_ascii_case("Cuota") => tasas.cuota += v,
            _ => {}
        }
    }
    Some(tasas)
}

fn texto_decimal(linea: &Json, campo: &str) -> Option<Decimal> {
    match linea.get(campo)? {
        Json::String(s) => s.trim().parse().ok(),
        Json::Number(n) => n.to_string().parse().ok(),
        _ => None,
    }
}

/// Backs the taxes out of a line whose `precioUnitario` and `descuento` include them: the net
/// base B (2 decimals) such that B + Σ round(B × tasa) + round(cantidad × cuota) is what the
/// customer paid, round(cantidad × precio) − descuento, when such a B exists (else the
/// nearest), and the net unit price and discount that give it.
fn sin_impuestos(linea: &mut Json, tasas: &Tasas) {
    let (Some(cantidad), Some(precio)) = (texto_decimal(linea, "cantidad"), texto_decimal(linea, "precioUnitario"))
    else {
        return;
    };
    if cantidad <= Decimal::ZERO || precio <= Decimal::ZERO {
        return;
    }
    let descuento = texto_decimal(linea, "descuento").unwrap_or_default();
    let factor = Decimal::ONE + tasas.tasas.iter().copied().sum::<Decimal>();
    let cuota = redondear(cantidad * tasas.cuota, 2);
    let pagado = redondear(cantidad * precio, 2) - descuento;
    let bruto = |base: Decimal| base + tasas.tasas.iter().map(|t| redondear(base * t, 2)).sum::<Decimal>() + cuota;
    let inicial = redondear((pagado - cuota) / factor, 2);
    let centavo = Decimal::new(1, 2);
    let base = [0i64, -1, 1, -2, 2]
        .into_iter()
        .map(|k| inicial + centavo * Decimal::from(k))
        .find(|base| bruto(*base) == pagado)
        .unwrap_or(inicial);
    let descuento_neto = if descuento.is_zero() { Decimal::ZERO } else { redondear(descuento / factor, 2) };
    let importe = base + descuento_neto;
    let unitario = (importe / cantidad).round_dp(6).normalize();
    linea["precioUnitario"] = Json::String(unitario.to_string());
    if !descuento_neto.is_zero() {
        linea["descuento"] = Json::String(descuento_neto.to_string());
    }
}

/// A ticket computed from its body, before its folio and code.
struct Calculado {
    lineas: Vec<Json>,
    comprobante: Comprobante,
}

/// Checks the lines and computes them as an invoice's ([`timbrado::preparar`]).
fn calcular(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    forma_pago: &str,
    moneda: &str,
    tipo_cambio: Option<Decimal>,
    lineas: Vec<Json>,
    expedicion: OffsetDateTime,
) -> ApiResult<Calculado> {
    let conceptos: Vec<ConceptoBody> = lineas
        .iter()
        .map(|l| serde_json::from_value(l.clone()))
        .collect::<Result<_, _>>()
        .map_err(|e| ApiError::new(Code::Recibo001, format!("conceptos: {e}")))?;
    let body = TimbrarBody {
        tipo_comprobante: Some("I".into()),
        forma_pago: Some(forma_pago.to_owned()),
        metodo_pago: Some("PUE".into()),
        moneda: Some(moneda.to_owned()),
        tipo_cambio: tipo_cambio.map(RawAmount::from_decimal),
        conceptos: Some(conceptos),
        ..TimbrarBody::default()
    };
    let preparado = timbrado::preparar(&*app.catalogos.indice, body, empresa, None, expedicion).map_err(|mut e| {
        if e.code == Code::Cfdi001 {
            e.code = Code::Recibo001;
        }
        e
    })?;
    Ok(Calculado { lineas, comprobante: preparado.comprobante })
}

fn numero(n: &timbra_cfdi::numero::Numero) -> ApiResult<Decimal> {
    n.valor().map_err(|e| ApiError::internal("amount", e))
}

/// The lines of a ticket as stored: the body's (net prices) plus each line's `importe`.
fn lineas_guardadas(calculado: &Calculado) -> String {
    let lineas: Vec<Json> = calculado
        .lineas
        .iter()
        .zip(&calculado.comprobante.conceptos)
        .map(|(linea, concepto)| {
            let mut linea = linea.clone();
            linea["importe"] = Json::String(concepto.importe.texto().to_owned());
            linea
        })
        .collect();
    Json::Array(lineas).to_string()
}

/// The ticket's transferred taxes grouped as the comprobante's (tax, factor, rate, Σ base).
fn impuestos_guardados(c: &Comprobante) -> String {
    let traslados: Vec<Json> = c
        .impuestos
        .iter()
        .flat_map(|i| &i.traslados)
        .map(|t| {
            json!({
                "impuesto": t.impuesto, "tipoFactor": t.tipo_factor, "base": t.base.texto(),
                "tasaOCuota": t.tasa_o_cuota.as_ref().map(|n| n.texto()), "importe": t.importe.as_ref().map(|n| n.texto()),
            })
        })
        .collect();
    Json::Array(traslados).to_string()
}

/// The end of the month of `fecha_local` (its first instant of the next month), in its offset.
fn fin_de_mes(fecha_local: OffsetDateTime) -> OffsetDateTime {
    let (ano, mes) = match fecha_local.month() {
        Month::December => (fecha_local.year() + 1, Month::January),
        otro => (fecha_local.year(), otro.next()),
    };
    let inicio = Date::from_calendar_date(ano, mes, 1).unwrap_or(fecha_local.date());
    PrimitiveDateTime::new(inicio, Time::MIDNIGHT).assume_offset(fecha_local.offset())
}

/// Creates a ticket of `empresa` (FACTURADOR+; the route authorizes). Gives it with the
/// company's self-invoicing page (`autofactura_slug`), read with its settings.
pub async fn crear(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    body: CrearReciboBody,
    lineas_json: Vec<Json>,
    now: OffsetDateTime,
) -> ApiResult<(ReciboRow, Option<String>)> {
    let mut p = Vec::new();
    let catalogos = &*app.catalogos.indice;
    let ahora_local = super::hora_de_expedicion(catalogos, &empresa.codigo_postal, now);
    let forma_pago = body.forma_pago.as_deref().map(str::trim).unwrap_or_default().to_owned();
    if forma_pago.is_empty() {
        p.push(problema("formaPago", "formaPago is required (c_FormaPago: 01 cash, 04 credit card, 28 debit card…)"));
    } else if FormaPago::desde_codigo(&forma_pago).is_none() {
        p.push(problema("formaPago", format!("{forma_pago:?} is not a code of SAT's catalog c_FormaPago")));
    } else if forma_pago == "99" {
        p.push(problema("formaPago", "a ticket is paid: formaPago 99 (por definir) is for PPD invoices"));
    }
    let moneda = body.moneda.as_deref().map(|m| m.trim().to_uppercase()).unwrap_or_else(|| "MXN".into());
    let tipo_cambio = validate::amount(&mut p, "tipoCambio", body.tipo_cambio.as_ref(), Esquema::TIPO_CAMBIO, false);
    if moneda != "MXN" && tipo_cambio.is_none_or(|t| t <= Decimal::ZERO) {
        p.push(problema(
            "tipoCambio",
            format!("a ticket in {moneda} needs tipoCambio (greater than 0): pesos per unit"),
        ));
    }
    if moneda == "XXX" {
        p.push(problema("moneda", "a ticket is a sale: moneda is MXN or a currency, not XXX"));
    }
    let fecha = match body.fecha.as_deref().map(str::trim) {
        None | Some("") => ahora_local,
        Some(texto) => match super::leer_fecha_local(texto) {
            None => {
                p.push(problema("fecha", "fecha is AAAA-MM-DDThh:mm:ss (local time, no offset)"));
                ahora_local
            }
            Some(local) => {
                let fecha = super::fecha_de_expedicion(catalogos, &empresa.codigo_postal, local);
                if fecha > now + time::Duration::minutes(5) {
                    p.push(problema("fecha", "fecha cannot be in the future"));
                }
                fecha
            }
        },
    };
    let folio = body.folio.as_deref().map(str::trim).filter(|f| !f.is_empty()).map(str::to_owned);
    if let Some(folio) = &folio
        && (folio.chars().count() > 40 || folio.contains('|') || folio.chars().any(char::is_control))
    {
        p.push(problema("folio", "folio is 1 to 40 characters, without | or control characters"));
    }
    let email = body.email.as_deref().map(str::trim).filter(|e| !e.is_empty()).map(str::to_owned);
    if let Some(email) = &email
        && (email.len() > 254 || !email.contains('@') || email.contains(char::is_whitespace))
    {
        p.push(problema("email", "email is an address like cliente@example.com"));
    }
    let sucursal = body.sucursal.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
    if sucursal.as_ref().is_some_and(|s| s.chars().count() > 100) {
        p.push(problema("sucursal", "sucursal is at most 100 characters"));
    }

    let mut lineas = lineas_json;
    if lineas.is_empty() {
        p.push(problema("conceptos", "conceptos is required: at least one line"));
    } else if lineas.len() > MAX_LINEAS {
        p.push(problema("conceptos", format!("a ticket takes at most {MAX_LINEAS} lines")));
    }
    let con_impuestos = body.precios_con_impuestos.unwrap_or(true);
    for (i, linea) in lineas.iter_mut().enumerate() {
        for campo in ["cantidad", "precioUnitario"] {
            match texto_decimal(linea, campo) {
                Some(v) if v > Decimal::ZERO => {}
                Some(_) => {
                    p.push(problema(format!("conceptos[{i}].{campo}"), format!("{campo} must be greater than 0")))
                }
                None => p.push(problema(
                    format!("conceptos[{i}].{campo}"),
                    format!("{campo} is required: a decimal greater than 0"),
                )),
            }
        }
        if let Some(d) = texto_decimal(linea, "descuento")
            && d < Decimal::ZERO
        {
            p.push(problema(format!("conceptos[{i}].descuento"), "descuento cannot be negative"));
        }
        let tasas = tasas_de(&mut p, i, linea);
        if con_impuestos
            && p.is_empty()
            && let Some(tasas) = tasas
        {
            sin_impuestos(linea, &tasas);
        }
    }
    if !p.is_empty() {
        return Err(ApiError::fields(Code::Recibo001, p));
    }
    let calculado = calcular(app, empresa, &forma_pago, &moneda, tipo_cambio, lineas, ahora_local)?;
    let c = &calculado.comprobante;
    let ajustes = db::ajustes(&mut app.db.conn().await?, &empresa.id).await?;
    let slug = ajustes.as_ref().and_then(|a| a.autofactura_slug.clone());
    let vence = match ajustes.and_then(|a| a.autofactura_dias_vigencia) {
        Some(dias) => fecha + time::Duration::days(dias),
        None => fin_de_mes(fecha),
    };
    let utc = |t: OffsetDateTime| t.to_offset(UtcOffset::UTC);
    let mut fila = ReciboRow {
        id: timbra_store::ids::new_id(),
        empresa_id: empresa.id.clone(),
        folio: folio.clone().unwrap_or_default(),
        fecha: utc(fecha),
        moneda,
        tipo_cambio: tipo_cambio.map(Money),
        forma_pago,
        conceptos: lineas_guardadas(&calculado),
        impuestos: impuestos_guardados(c),
        subtotal: Money(numero(&c.sub_total)?),
        descuento: c.descuento.as_ref().map(numero).transpose()?.map(Money),
        total: Money(numero(&c.total)?),
        status: "ABIERTO".into(),
        clave_autofactura: String::new(),
        vence: utc(vence),
        cfdi_id: None,
        sucursal,
        email,
        created_at: now,
        updated_at: now,
    };
    // The folio (when the body gave none) and the write: the process's ticket writer commits
    // the tickets waiting together (`escritor`).
    fila.clave_autofactura = nueva_clave();
    let fila = app.cfdi.recibos.escribir(&app.db, fila, folio.is_some()).await?;
    Ok((fila, slug))
}

/// Body of `POST /api/cfdi/global`.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct GlobalBody {
    /// c_Periodicidad: 01 daily, 02 weekly, 03 fortnightly, 04 monthly, 05 bimonthly.
    pub periodicidad: Option<String>,
    /// c_Meses: 01 to 12, or 13 to 18 (January–February … November–December) for 05.
    pub meses: Option<String>,
    /// The year, four digits (`ano` is accepted too).
    #[serde(rename = "año", alias = "ano")]
    #[schema(value_type = Option<String>, example = "2026")]
    pub ano: Option<serde_json::Value>,
    /// First day `AAAA-MM-DD` (issuer's local time); default the first of `meses`.
    pub desde: Option<String>,
    /// Last day `AAAA-MM-DD`, included; default the last of `meses`.
    pub hasta: Option<String>,
}

/// A checked global invoice request: SAT's codes and the local range of ticket dates.
pub struct Periodo {
    /// c_Periodicidad.
    pub periodicidad: String,
    /// c_Meses.
    pub meses: String,
    /// Año.
    pub ano: i32,
    /// `fecha >= desde`.
    pub desde: OffsetDateTime,
    /// `fecha < hasta`.
    pub hasta: OffsetDateTime,
}

fn leer_dia(texto: &str) -> Option<Date> {
    Date::parse(texto.trim(), &time::macros::format_description!("[year]-[month]-[day]")).ok()
}

/// The first and last month (1–12) of c_Meses `meses`.
pub fn meses_de(meses: u8) -> Option<(u8, u8)> {
    match meses {
        1..=12 => Some((meses, meses)),
        13..=18 => Some(((meses - 13) * 2 + 1, (meses - 13) * 2 + 2)),
        _ => None,
    }
}

/// Checks a global invoice request: RECIBO_001 with every problem.
pub fn periodo(app: &AppContext, empresa: &EmpresaEmisora, body: &GlobalBody) -> ApiResult<Periodo> {
    let mut p = Vec::new();
    let periodicidad = body.periodicidad.as_deref().map(str::trim).unwrap_or_default().to_owned();
    if !["01", "02", "03", "04", "05"].contains(&periodicidad.as_str()) {
        p.push(problema(
            "periodicidad",
            "periodicidad is c_Periodicidad: 01 daily, 02 weekly, 03 fortnightly, 04 monthly, 05 bimonthly",
        ));
    }
    let meses = body.meses.as_deref().map(str::trim).unwrap_or_default().to_owned();
    let rango_meses = meses.parse::<u8>().ok().filter(|_| meses.len() == 2).and_then(meses_de);
    match rango_meses {
        None => p.push(problema("meses", "meses is c_Meses: 01 to 12, or 13 to 18 (bimesters) with periodicidad 05")),
        Some(_) if periodicidad == "05" && !(13..=18).contains(&meses.parse::<u8>().unwrap_or(0)) => {
            p.push(problema("meses", "periodicidad 05 (bimonthly) takes meses 13 to 18"))
        }
        Some(_) if periodicidad != "05" && !(1..=12).contains(&meses.parse::<u8>().unwrap_or(0)) => {
            p.push(problema("meses", "meses 13 to 18 (bimesters) go with periodicidad 05"))
        }
        Some(_) => {}
    }
    let ano = match &body.ano {
        Some(Json::Number(n)) => n.as_i64(),
        Some(Json::String(s)) if s.trim().len() == 4 => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|a| (2022..=2099).contains(a));
    if ano.is_none() {
        p.push(problema("año", "año is the year, four digits (2022 or later)"));
    }
    let catalogos = &*app.catalogos.indice;
    let local = |dia: Date| {
        super::fecha_de_expedicion(catalogos, &empresa.codigo_postal, PrimitiveDateTime::new(dia, Time::MIDNIGHT))
    };
    let mut rango = None;
    if let (Some(ano), Some((primero, ultimo))) = (ano, rango_meses) {
        let ano = ano as i32;
        let inicio = Month::try_from(primero).ok().and_then(|m| Date::from_calendar_date(ano, m, 1).ok());
        let fin = Month::try_from(ultimo).ok().and_then(|m| Date::from_calendar_date(ano, m, 1).ok()).map(|d| {
            let siguiente = fin_de_mes(PrimitiveDateTime::new(d, Time::MIDNIGHT).assume_utc());
            siguiente.date()
        });
        if let (Some(inicio), Some(fin)) = (inicio, fin) {
            let mut desde = inicio;
            let mut hasta = fin;
            if let Some(texto) = &body.desde {
                match leer_dia(texto) {
                    Some(d) => desde = d,
                    None => p.push(problema("desde", "desde is a date AAAA-MM-DD")),
                }
            }
            if let Some(texto) = &body.hasta {
                match leer_dia(texto).and_then(Date::next_day) {
                    Some(d) => hasta = d,
                    None => p.push(problema("hasta", "hasta is a date AAAA-MM-DD")),
                }
            }
            if desde >= hasta {
                p.push(problema("desde", "desde must be on or before hasta"));
            } else if desde < inicio || hasta > fin {
                p.push(problema("desde", format!("desde and hasta must fall within meses {meses} of {ano}")));
            }
            rango = Some((local(desde), local(hasta)));
        }
    }
    if !p.is_empty() {
        return Err(ApiError::fields(Code::Recibo001, p));
    }
    let Some((desde, hasta)) = rango else { return Err(ApiError::internal("global", "no range")) };
    Ok(Periodo { periodicidad, meses, ano: ano.unwrap_or_default() as i32, desde, hasta })
}

/// A global invoice: its comprobante and how many tickets it holds (its `201` answers them).
struct Global {
    comprobante: Comprobante,
    recibos: usize,
}

struct ResumenGlobal {
    recibos: usize,
    total: Decimal,
}

impl Resumen for ResumenGlobal {
    fn respuesta_201(
        &self,
        mode: &str,
        registro: &Registro,
        uuid_api: &str,
        timbrado_en: OffsetDateTime,
        folio: i64,
    ) -> String {
        json!({ "success": true, "mode": mode, "data": {
            "cfdiId": registro.cfdi_id, "uuid": uuid_api,
            "fechaTimbrado": super::credenciales::rfc3339(timbrado_en), "xmlUrl": registro.xml_path,
            "serie": registro.serie, "folio": folio.to_string(),
            "total": self.total.to_string(), "recibos": self.recibos,
        }})
        .to_string()
    }

    fn como_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Sellable for Global {
    fn sellado(&self, folio: i64, csd: &Credential) -> ApiResult<Box<dyn Sellable>> {
        let sellado = self.comprobante.sellado(folio, csd)?;
        let comprobante = sellado.como_comprobante().cloned().ok_or_else(|| ApiError::internal("global", "sello"))?;
        Ok(Box::new(Global { comprobante, recibos: self.recibos }))
    }

    fn timbrar(&mut self, datos: timbra_cfdi::timbre::DatosTimbre, pac: &Credential) -> ApiResult<()> {
        self.comprobante.timbrar(datos, pac)
    }

    fn xml(&self) -> ApiResult<String> {
        self.comprobante.xml()
    }

    fn fila(&self, catalogos: &dyn timbra_cfdi::catalogos::Catalogos) -> ApiResult<Fila> {
        let mut fila = Fila::de(&self.comprobante, catalogos)?;
        fila.resumen = Some(Box::new(ResumenGlobal { recibos: self.recibos, total: fila.total }));
        Ok(fila)
    }

    fn como_comprobante(&self) -> Option<&Comprobante> {
        Some(&self.comprobante)
    }
}

/// A transferred tax of a ticket as stored.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TrasladoGuardado {
    impuesto: String,
    tipo_factor: String,
    base: String,
    tasa_o_cuota: Option<String>,
}

/// The concept of ticket `r` in a global invoice (SAT's filling guide: ClaveProdServ
/// 01010101, ClaveUnidad ACT, Descripcion "Venta", Cantidad 1, NoIdentificacion the ticket's
/// folio, its amounts and taxes; a ticket in another currency converted at its tipoCambio).
fn concepto_global(r: &ReciboRow) -> ApiResult<NuevoConcepto> {
    let tc = if r.moneda == "MXN" { None } else { r.tipo_cambio.map(|t| t.0) };
    let pesos = |v: Decimal| match tc {
        Some(tc) => redondear(v * tc, 2),
        None => v,
    };
    let traslados: Vec<TrasladoGuardado> =
        serde_json::from_str(&r.impuestos).map_err(|e| ApiError::internal("ticket taxes", e))?;
    let objeto = if traslados.is_empty() { ObjetoImp::NoObjeto } else { ObjetoImp::SiObjeto };
    let mut concepto = NuevoConcepto::new("01010101", Decimal::ONE, "ACT", "Venta", pesos(r.subtotal.0), objeto);
    concepto.no_identificacion = Some(r.folio.clone());
    concepto.descuento = r.descuento.map(|d| pesos(d.0)).filter(|d| !d.is_zero());
    if !traslados.is_empty() {
        let mut impuestos = Vec::with_capacity(traslados.len());
        for t in traslados {
            let impuesto =
                Impuesto::desde_codigo(&t.impuesto).ok_or_else(|| ApiError::internal("impuesto", &t.impuesto))?;
            let factor = [TipoFactor::Tasa, TipoFactor::Cuota, TipoFactor::Exento]
                .into_iter()
                .find(|f| f.codigo() == t.tipo_factor)
                .ok_or_else(|| ApiError::internal("tipo factor", &t.tipo_factor))?;
            let base: Decimal = t.base.parse().map_err(|e| ApiError::internal("base", e))?;
            let tasa: Decimal =
                t.tasa_o_cuota.as_deref().unwrap_or("0").parse().map_err(|e| ApiError::internal("tasa", e))?;
            // A quota's base is units: not converted.
            let base = if factor == TipoFactor::Cuota { base } else { pesos(base) };
            impuestos.push(
                NuevoImpuesto {
                    clase: ClaseImpuesto::Traslado,
                    impuesto,
                    tipo_factor: factor,
                    tasa_o_cuota: tasa,
                    base: None,
                }
                .con_base(base),
            );
        }
        concepto.impuestos = Some(impuestos);
    }
    Ok(concepto)
}

/// What a global invoice's stamp does in its transaction: its tickets become GLOBAL (all of
/// them, or the stamp is refused: another request took some meanwhile), `factura.timbrada`
/// with `global: true`; a refused live stamp gives them back.
struct EfectosGlobal {
    empresa_id: EmpresaId,
    ids: Vec<String>,
}

async fn marcar_todos(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    ids: &[String],
    status: &str,
    cfdi_id: &CfdiId,
    now: OffsetDateTime,
) -> ApiResult<()> {
    let movidos = db::marcar(tx, empresa_id, ids, status, cfdi_id, now).await?;
    if movidos as usize != ids.len() {
        return Err(ApiError::new(
            Code::Recibo003,
            if ids.len() == 1 {
                "the ticket is no longer ABIERTO: it was invoiced, included in a global invoice or cancelled meanwhile; nothing was stamped".to_owned()
            } else {
                format!(
                    "{} of the {} tickets are no longer ABIERTO (another global invoice or a self-invoice took them meanwhile); nothing was stamped: ask again",
                    ids.len() - movidos as usize,
                    ids.len()
                )
            },
        ));
    }
    Ok(())
}

async fn emitir_globales(tx: &mut Tx, escritos: &[Escrito<'_>]) -> ApiResult<()> {
    let eventos: Vec<FacturaTimbrada> = escritos
        .iter()
        .map(|e| FacturaTimbrada { global: Some(true), ..e.fila.timbrada(e.registro, e.uuid_api, e.folio) })
        .collect();
    let emisiones: Vec<Emission<'_>> = escritos
        .iter()
        .zip(eventos)
        .map(|(e, evento)| Emission { now: e.now, empresa_id: e.empresa_id, event: Event::FacturaTimbrada(evento) })
        .collect();
    events::emit_many(tx, &emisiones).await?;
    Ok(())
}

impl Efectos for EfectosGlobal {
    fn aplicar<'a>(&'a self, tx: &'a mut Tx, cfdi_id: &'a CfdiId, now: OffsetDateTime) -> Hecho<'a> {
        Box::pin(marcar_todos(tx, &self.empresa_id, &self.ids, "GLOBAL", cfdi_id, now))
    }

    fn al_persistir<'a, 'b: 'a>(&'a self, tx: &'a mut Tx, escritos: &'a [Escrito<'b>]) -> Hecho<'a> {
        Box::pin(emitir_globales(tx, escritos))
    }

    fn devolver<'a>(
        &'a self,
        tx: &'a mut Tx,
        empresa_id: &'a EmpresaId,
        cfdi_id: &'a CfdiId,
        now: OffsetDateTime,
    ) -> Hecho<'a> {
        al_cancelar(tx, empresa_id, cfdi_id, now)
    }
}

/// A global invoice resolved later from its stored live attempt: its event and refusal.
struct GlobalGuardado;

impl Efectos for GlobalGuardado {
    fn al_persistir<'a, 'b: 'a>(&'a self, tx: &'a mut Tx, escritos: &'a [Escrito<'b>]) -> Hecho<'a> {
        Box::pin(emitir_globales(tx, escritos))
    }

    fn devolver<'a>(
        &'a self,
        tx: &'a mut Tx,
        empresa_id: &'a EmpresaId,
        cfdi_id: &'a CfdiId,
        now: OffsetDateTime,
    ) -> Hecho<'a> {
        al_cancelar(tx, empresa_id, cfdi_id, now)
    }
}

/// A self-invoice resolved later from its stored live attempt: a refusal gives the ticket back.
struct AutofacturaGuardada;

impl Efectos for AutofacturaGuardada {
    fn devolver<'a>(
        &'a self,
        tx: &'a mut Tx,
        empresa_id: &'a EmpresaId,
        cfdi_id: &'a CfdiId,
        now: OffsetDateTime,
    ) -> Hecho<'a> {
        al_cancelar(tx, empresa_id, cfdi_id, now)
    }
}

/// A cancelled (or refused) invoice's tickets go back to ABIERTO: a global invoice's to be
/// included in another, a self-invoice's to be invoiced again.
pub fn al_cancelar<'a>(
    tx: &'a mut Tx,
    empresa_id: &'a EmpresaId,
    cfdi_id: &'a CfdiId,
    now: OffsetDateTime,
) -> Hecho<'a> {
    Box::pin(async move {
        db::devolver(tx, empresa_id, cfdi_id, now).await?;
        Ok(())
    })
}

/// The global invoice: `POST /api/cfdi/global` and the automatic job.
pub static TIPO_GLOBAL: TipoDocumento = TipoDocumento {
    operacion: OPERACION_GLOBAL,
    ruta: "POST /api/cfdi/global",
    tipos_comprobante: &[],
    efectos_guardados: Some(&GlobalGuardado),
    al_cancelar,
    leer_timbrado: leer_global,
    servicio_pac: timbra_pac::Servicio::Cfdi,
};

/// A global invoice the PAC stamped, read back so its `201` answers `recibos` as the sandbox's
/// does: one concept per ticket (SAT's filling guide for the global invoice).
fn leer_global(xml: &str) -> ApiResult<Box<dyn Sellable>> {
    let comprobante = timbra_cfdi::parser::parsear(xml).map_err(|e| ApiError::internal("PAC XML", e))?;
    let recibos = comprobante.conceptos.len();
    Ok(Box::new(Global { comprobante, recibos }))
}

/// A self-invoice from the public page `/autofactura/{slug}`.
pub static TIPO_AUTOFACTURA: TipoDocumento = TipoDocumento {
    operacion: OPERACION_AUTOFACTURA,
    ruta: "POST /autofactura/{slug}",
    tipos_comprobante: &[],
    efectos_guardados: Some(&AutofacturaGuardada),
    al_cancelar,
    leer_timbrado: super::documento::leer_comprobante,
    servicio_pac: timbra_pac::Servicio::Cfdi,
};

/// A global invoice ready for the pipeline.
pub struct GlobalPreparada {
    /// The document.
    pub documento: Documento,
    /// Its stamp's effects.
    pub efectos: Arc<dyn Efectos>,
    /// The issuer's local time of the stamp.
    pub fecha_local: OffsetDateTime,
}

/// Builds the global invoice of `empresa`'s ABIERTO tickets of `periodo` at `now`: RECIBO_002
/// when there are none.
pub async fn preparar_global(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    periodo: &Periodo,
    now: OffsetDateTime,
) -> ApiResult<GlobalPreparada> {
    let recibos = {
        let mut conn = app.db.conn().await?;
        db::abiertos(
            &mut conn,
            &empresa.id,
            periodo.desde.to_offset(UtcOffset::UTC),
            periodo.hasta.to_offset(UtcOffset::UTC),
        )
        .await?
    };
    if recibos.is_empty() {
        return Err(ApiError::new(
            Code::Recibo002,
            format!(
                "no ABIERTO ticket dated {} to {} (meses {} of {}): nothing to include in a global invoice",
                super::fecha_cfdi(periodo.desde),
                super::fecha_cfdi(periodo.hasta),
                periodo.meses,
                periodo.ano
            ),
        ));
    }
    let catalogos = &*app.catalogos.indice;
    let expedicion = super::hora_de_expedicion(catalogos, &empresa.codigo_postal, now);
    let conceptos = recibos.iter().map(concepto_global).collect::<ApiResult<Vec<_>>>()?;
    let nuevo = NuevoComprobante {
        tipo: TipoDeComprobante::Ingreso,
        serie: Some(empresa.serie_predeterminada.clone()),
        folio: None,
        fecha: super::fecha_cfdi(expedicion),
        forma_pago: Some(forma_pago_global(&recibos)),
        metodo_pago: MetodoPago::desde_codigo("PUE"),
        condiciones_de_pago: None,
        moneda: "MXN".into(),
        tipo_cambio: None,
        exportacion: Exportacion::NoAplica,
        lugar_expedicion: empresa.codigo_postal.clone(),
        emisor: Emisor {
            rfc: empresa.rfc.clone(),
            nombre: empresa.razon_social.clone(),
            regimen_fiscal: empresa.regimen_fiscal.clone(),
            fac_atr_adquirente: None,
        },
        receptor: Receptor {
            rfc: RFC_PUBLICO_GENERAL.into(),
            nombre: NOMBRE_PUBLICO_GENERAL.into(),
            domicilio_fiscal_receptor: empresa.codigo_postal.clone(),
            residencia_fiscal: None,
            num_reg_id_trib: None,
            regimen_fiscal_receptor: "616".into(),
            uso_cfdi: "S01".into(),
        },
        informacion_global: Some(InformacionGlobal {
            periodicidad: periodo.periodicidad.clone(),
            meses: periodo.meses.clone(),
            ano: periodo.ano.to_string(),
        }),
        cfdi_relacionados: Vec::new(),
        conceptos,
        impuestos_locales: None,
        complementos: Default::default(),
    };
    let comprobante = nuevo.construir().map_err(|error| match error {
        timbra_cfdi::construccion::ErrorConstruccion::Invalido { campo, mensaje } => {
            ApiError::reglas(Code::Recibo001, vec![problema(campo, mensaje).con_regla(crate::error::REGLA_ENTRADA)])
        }
    })?;
    let contexto =
        validacion::Contexto { certificacion: Some(PrimitiveDateTime::new(expedicion.date(), expedicion.time())) };
    let informe = validacion::validar_con(&comprobante, catalogos, contexto);
    if !informe.es_valido() {
        let problems = informe.problemas.into_iter().map(super::complementos::problema_de_validacion).collect();
        return Err(ApiError::reglas(Code::Recibo001, problems));
    }
    let ids: Vec<String> = recibos.iter().map(|r| r.id.clone()).collect();
    let documento = Documento {
        contenido: Arc::new(Global { comprobante, recibos: ids.len() }),
        serie: empresa.serie_predeterminada.clone(),
        cliente_id: None,
        operacion: OPERACION_GLOBAL,
    };
    Ok(GlobalPreparada {
        documento,
        efectos: Arc::new(EfectosGlobal { empresa_id: empresa.id.clone(), ids }),
        fecha_local: super::hora_local(now.replace_nanosecond(0).unwrap_or(now)),
    })
}

/// The global invoice's FormaPago: the one of the largest share of its tickets' totals
/// (SAT's filling guide: the form of the greatest amount).
fn forma_pago_global(recibos: &[ReciboRow]) -> FormaPago {
    let mut por_forma: Vec<(String, Decimal)> = Vec::new();
    for r in recibos {
        match por_forma.iter_mut().find(|(f, _)| *f == r.forma_pago) {
            Some((_, suma)) => *suma += r.total.0,
            None => por_forma.push((r.forma_pago.clone(), r.total.0)),
        }
    }
    por_forma
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1))
        .and_then(|(f, _)| FormaPago::desde_codigo(&f))
        .unwrap_or(FormaPago::Efectivo)
}

/// Stamps a global invoice for `peticion` (the route's or the job's).
pub async fn timbrar_global(
    app: &AppContext,
    peticion: &pipeline::Peticion<'_>,
    preparada: GlobalPreparada,
) -> ApiResult<crate::idempotency::Answer> {
    pipeline::timbrar_con_efectos(app, peticion, preparada.documento, Some(preparada.efectos)).await
}

/// What the customer types on the self-invoicing page.
#[derive(Clone, Debug, Default)]
pub struct DatosCliente {
    /// RFC.
    pub rfc: String,
    /// Razón social, as in the Constancia de Situación Fiscal.
    pub razon_social: String,
    /// c_RegimenFiscal.
    pub regimen_fiscal: String,
    /// Código postal of the fiscal address.
    pub codigo_postal: String,
    /// c_UsoCFDI (one the régimen allows).
    pub uso_cfdi: String,
    /// Where the invoice is sent.
    pub email: Option<String>,
}

/// A self-invoice just stamped.
#[derive(Clone, Debug)]
pub struct Autofacturada {
    /// The invoice.
    pub cfdi_id: String,
    /// Its UUID as the API shows it.
    pub uuid: String,
    /// Its Total, exact text.
    pub total: String,
    /// Storage path of its XML.
    pub xml_path: String,
}

/// The ticket with code `clave` of company `empresa_id` while it can be self-invoiced at
/// `now`; the refusal otherwise (another company's code is unknown here).
pub async fn recibo_para_autofactura(
    app: &AppContext,
    empresa_id: &EmpresaId,
    clave: &str,
    now: OffsetDateTime,
) -> ApiResult<ReciboRow> {
    let clave = normalizar_clave(clave);
    let recibo = if clave.len() == LARGO_CLAVE && clave.bytes().all(|b| ALFABETO.contains(&b)) {
        db::por_clave(&mut app.db.conn().await?, &clave).await?
    } else {
        None
    };
    let Some(recibo) = recibo.filter(|r| r.empresa_id == empresa_id) else {
        return Err(ApiError::new(
            Code::Recibo004,
            "no ticket has this code on this page: check the code printed on the ticket",
        ));
    };
    match recibo.status.as_str() {
        "FACTURADO" => Err(ApiError::new(Code::Recibo005, "this ticket was already invoiced")),
        "GLOBAL" => Err(ApiError::new(Code::Recibo006, "this ticket is included in the company's global invoice")),
        "CANCELADO" => Err(ApiError::new(Code::Recibo003, "this ticket was cancelled")),
        _ if now >= recibo.vence => Err(ApiError::new(Code::Recibo007, "this ticket's code expired")),
        _ => Ok(recibo),
    }
}

/// A self-invoice resolved in this request: the ticket becomes FACTURADO in the stamp's
/// transaction, or the stamp is refused (another submission took it).
struct EfectosAutofactura {
    empresa_id: EmpresaId,
    recibo_id: String,
}

impl Efectos for EfectosAutofactura {
    fn aplicar<'a>(&'a self, tx: &'a mut Tx, cfdi_id: &'a CfdiId, now: OffsetDateTime) -> Hecho<'a> {
        Box::pin(async move {
            marcar_todos(tx, &self.empresa_id, std::slice::from_ref(&self.recibo_id), "FACTURADO", cfdi_id, now)
                .await
                .map_err(|_| ApiError::new(Code::Recibo005, "this ticket was already invoiced"))
        })
    }

    fn devolver<'a>(
        &'a self,
        tx: &'a mut Tx,
        empresa_id: &'a EmpresaId,
        cfdi_id: &'a CfdiId,
        now: OffsetDateTime,
    ) -> Hecho<'a> {
        al_cancelar(tx, empresa_id, cfdi_id, now)
    }
}

/// The company's customer with `rfc`, the oldest when several (a generic RFC).
async fn cliente_por_rfc(app: &AppContext, empresa_id: &EmpresaId, rfc: &str) -> ApiResult<Option<String>> {
    let mut conn = app.db.conn().await?;
    Ok(timbra_store::sql!(
        scalar_optional conn,
        String,
        "SELECT id FROM clientes WHERE empresa_id = $1 AND rfc = $2 ORDER BY created_at LIMIT 1",
        empresa_id,
        rfc
    )?)
}

/// Stamps the type I invoice of ticket `clave` to the customer `datos` (the page's submit):
/// the company's invoice serie, the ticket's formaPago and lines, metodoPago PUE, a customer
/// created or reused by RFC. CLIENTE_001 / RECIBO_001 name the fields to fix; CFDI_001 a rule of
/// SAT's catalogs (a régimen and uso that do not go together, a postal code SAT does not have).
pub async fn autofacturar(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    clave: &str,
    datos: DatosCliente,
    now: OffsetDateTime,
) -> ApiResult<Autofacturada> {
    let recibo = recibo_para_autofactura(app, &empresa.id, clave, now).await?;
    let uso = datos.uso_cfdi.trim().to_uppercase();
    let rfc = datos.rfc.trim().to_uppercase();
    let campos = || crate::clientes::Campos {
        rfc: Some(rfc.clone()),
        razon_social: Some(datos.razon_social.trim().to_uppercase()),
        regimen_fiscal: Some(datos.regimen_fiscal.trim().to_owned()),
        codigo_postal: Some(datos.codigo_postal.trim().to_owned()),
        uso_cfdi: Some(uso.clone()),
        email: datos.email.clone().filter(|e| !e.trim().is_empty()),
        residencia_fiscal: None,
        num_reg_id_trib: None,
    };
    // The customer's fields first (CLIENTE_001), then the pair régimen/uso.
    crate::clientes::check(campos(), &*app.catalogos.indice)?;
    if rfc == RFC_PUBLICO_GENERAL {
        return Err(ApiError::fields(
            Code::Recibo001,
            vec![problema("rfc", "the generic RFC XAXX010101000 is the global invoice's: type your own RFC")],
        ));
    }
    match timbra_cfdi::catalogos::compatibilidad_uso_regimen(&uso, datos.regimen_fiscal.trim()) {
        timbra_cfdi::catalogos::CompatibilidadUso::Compatible => {}
        _ => {
            return Err(ApiError::fields(
                Code::Recibo001,
                vec![problema(
                    "usoCfdi",
                    format!("uso {uso} is not one régimen {} may receive", datos.regimen_fiscal.trim()),
                )],
            ));
        }
    }
    let cliente_id = match cliente_por_rfc(app, &empresa.id, &rfc).await? {
        Some(id) => crate::scoped::update::<crate::clientes::Clientes>(app, &empresa.id, &id, campos()).await?.id,
        None => match crate::scoped::create::<crate::clientes::Clientes>(app, &empresa.id, campos()).await {
            Ok(row) => row.id,
            // Another submission with this RFC created it a moment ago: reuse it.
            Err(error) if error.code == Code::Cliente002 => {
                cliente_por_rfc(app, &empresa.id, &rfc).await?.ok_or(error)?
            }
            Err(error) => return Err(error),
        },
    };
    let receptor = {
        let mut conn = app.db.conn().await?;
        timbra_store::clientes::receptor(&mut conn, &empresa.id, &ClienteId::from(&cliente_id))
            .await?
            .ok_or_else(|| ApiError::internal("autofactura", "customer just written is gone"))?
    };
    let mut lineas: Vec<Json> =
        serde_json::from_str(&recibo.conceptos).map_err(|e| ApiError::internal("ticket lines", e))?;
    for linea in &mut lineas {
        if let Some(objeto) = linea.as_object_mut() {
            objeto.remove("importe");
        }
    }
    let conceptos: Vec<ConceptoBody> = lineas
        .into_iter()
        .map(serde_json::from_value)
        .collect::<Result<_, _>>()
        .map_err(|e| ApiError::internal("ticket lines", e))?;
    let body = TimbrarBody {
        tipo_comprobante: Some("I".into()),
        forma_pago: Some(recibo.forma_pago.clone()),
        metodo_pago: Some("PUE".into()),
        moneda: Some(recibo.moneda.clone()),
        tipo_cambio: recibo.tipo_cambio.map(|t| RawAmount::from_decimal(t.0)),
        uso_cfdi: Some(uso.clone()),
        conceptos: Some(conceptos),
        ..TimbrarBody::default()
    };
    let expedicion = super::hora_de_expedicion(&*app.catalogos.indice, &empresa.codigo_postal, now);
    let preparado = timbrado::preparar(&*app.catalogos.indice, body, empresa, Some(&receptor), expedicion)?;
    let documento = Documento {
        contenido: Arc::new(preparado.comprobante),
        serie: preparado.serie,
        cliente_id: Some(cliente_id),
        operacion: OPERACION_AUTOFACTURA,
    };
    let propietario = db::propietario(&mut app.db.conn().await?, &empresa.id).await?;
    let peticion = pipeline::Peticion {
        empresa,
        user_id: &UserId::from(&propietario),
        mode: if empresa.sandbox { "sandbox" } else { "live" },
        clave: None,
        request_hash: String::new(),
        now,
        fecha_local: super::hora_local(now.replace_nanosecond(0).unwrap_or(now)),
    };
    let efectos: Arc<dyn Efectos> =
        Arc::new(EfectosAutofactura { empresa_id: empresa.id.clone(), recibo_id: recibo.id.clone() });
    let answer = pipeline::timbrar_con_efectos(app, &peticion, documento, Some(efectos)).await?;
    let envelope: Json = serde_json::from_str(&answer.body).map_err(|e| ApiError::internal("stamp answer", e))?;
    let data = &envelope["data"];
    let texto = |k: &str| data[k].as_str().map(str::to_owned).unwrap_or_else(|| data[k].to_string());
    Ok(Autofacturada {
        cfdi_id: texto("cfdiId"),
        uuid: texto("uuid"),
        total: texto("total"),
        xml_path: texto("xmlUrl"),
    })
}

/// The settings as the API shows them: `(autofactura, facturaGlobal)`.
pub fn ajustes_json(a: &db::Ajustes) -> (Json, Json) {
    (
        json!({ "slug": a.autofactura_slug, "diasVigencia": a.autofactura_dias_vigencia, "activa": a.autofactura_activa }),
        json!({ "automatica": a.global_automatica, "periodicidad": a.global_periodicidad }),
    )
}

/// Reads `autofactura: { slug, diasVigencia, activa }` and `facturaGlobal: { automatica,
/// periodicidad }` of `PATCH /api/empresas/{id}` over the current settings (each key optional;
/// `diasVigencia: null` goes back to the end of the ticket's month), writing nothing:
/// EMPRESA_001 with every problem. [`guardar_ajustes`] writes them.
pub async fn leer_ajustes(
    app: &AppContext,
    empresa_id: &EmpresaId,
    autofactura: Option<&Json>,
    factura_global: Option<&Json>,
) -> ApiResult<db::Ajustes> {
    let mut conn = app.db.conn().await?;
    let mut a = db::ajustes(&mut conn, empresa_id).await?.ok_or_else(|| ApiError::not_found("company"))?;
    let mut p = Vec::new();
    if let Some(af) = autofactura {
        if !af.is_object() {
            p.push(problema("autofactura", "autofactura is an object { slug, diasVigencia, activa }"));
        }
        match af.get("slug") {
            None => {}
            Some(Json::Null) => a.autofactura_slug = None,
            Some(Json::String(slug)) => {
                let slug = slug.trim().to_lowercase();
                let valido = (3..=40).contains(&slug.len())
                    && slug.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && !slug.starts_with('-')
                    && !slug.ends_with('-');
                if valido {
                    a.autofactura_slug = Some(slug);
                } else {
                    p.push(problema(
                        "autofactura.slug",
                        "slug is 3 to 40 lower-case letters, digits and dashes (mi-tienda)",
                    ));
                }
            }
            Some(_) => p.push(problema("autofactura.slug", "slug is a text (mi-tienda) or null")),
        }
        match af.get("diasVigencia") {
            None => {}
            Some(Json::Null) => a.autofactura_dias_vigencia = None,
            Some(v) => match v.as_i64().filter(|d| (1..=366).contains(d)) {
                Some(d) => a.autofactura_dias_vigencia = Some(d),
                None => p.push(problema(
                    "autofactura.diasVigencia",
                    "diasVigencia is a whole number of days, 1 to 366, or null (until the end of the ticket's month)",
                )),
            },
        }
        match af.get("activa") {
            None => {}
            Some(Json::Bool(b)) => a.autofactura_activa = *b,
            Some(_) => p.push(problema("autofactura.activa", "activa is true or false")),
        }
    }
    if let Some(fg) = factura_global {
        if !fg.is_object() {
            p.push(problema("facturaGlobal", "facturaGlobal is an object { automatica, periodicidad }"));
        }
        match fg.get("automatica") {
            None => {}
            Some(Json::Bool(b)) => a.global_automatica = *b,
            Some(_) => p.push(problema("facturaGlobal.automatica", "automatica is true or false")),
        }
        match fg.get("periodicidad") {
            None => {}
            Some(Json::String(s)) if ["01", "02", "03", "04", "05"].contains(&s.trim()) => {
                a.global_periodicidad = s.trim().to_owned()
            }
            Some(_) => p.push(problema(
                "facturaGlobal.periodicidad",
                "periodicidad is c_Periodicidad: 01 daily, 02 weekly, 03 fortnightly, 04 monthly, 05 bimonthly",
            )),
        }
    }
    if let Some(slug) = &a.autofactura_slug
        && db::por_slug(&mut conn, slug).await?.is_some_and(|otra| otra.id != a.id)
    {
        p.push(problema("autofactura.slug", "this slug is another company's page: choose another"));
    }
    if !p.is_empty() {
        return Err(ApiError::fields(Code::Empresa001, p));
    }
    Ok(a)
}

/// Writes settings read by [`leer_ajustes`].
pub async fn guardar_ajustes(app: &AppContext, a: &db::Ajustes, now: OffsetDateTime) -> ApiResult<()> {
    let mut tx = app.db.begin().await?;
    if !db::guardar_ajustes(&mut tx, a, now).await? {
        return Err(ApiError::fields(
            Code::Empresa001,
            vec![problema("autofactura.slug", "this slug is another company's page: choose another")],
        ));
    }
    tx.commit().await?;
    Ok(())
}

/// The last period of `periodicidad` closed at `hoy` (a local date): its first day, the day
/// after its last, and its c_Meses and Año. Weeks run Monday to Sunday; fortnights 1–15 and 16
/// to the month's end; bimesters January–February … November–December.
pub fn periodo_cerrado(periodicidad: &str, hoy: Date) -> Option<(Date, Date, String, i32)> {
    let primero_de = |d: Date| d.replace_day(1).ok();
    let mes_anterior = |d: Date| primero_de(d).and_then(Date::previous_day).and_then(primero_de);
    let (desde, hasta) = match periodicidad {
        "01" => (hoy.previous_day()?, hoy),
        "02" => {
            let lunes = hoy - time::Duration::days(i64::from(hoy.weekday().number_days_from_monday()));
            (lunes - time::Duration::days(7), lunes)
        }
        "03" => {
            if hoy.day() > 15 {
                (primero_de(hoy)?, hoy.replace_day(16).ok()?)
            } else {
                let anterior = mes_anterior(hoy)?;
                (anterior.replace_day(16).ok()?, primero_de(hoy)?)
            }
        }
        "04" => (mes_anterior(hoy)?, primero_de(hoy)?),
        "05" => {
            // The bimester that ended before the one `hoy` is in.
            let mes = u8::from(hoy.month());
            let inicio_actual =
                Date::from_calendar_date(hoy.year(), Month::try_from(mes - (mes - 1) % 2).ok()?, 1).ok()?;
            let anterior = mes_anterior(inicio_actual).and_then(mes_anterior)?;
            (anterior, inicio_actual)
        }
        _ => return None,
    };
    // A week's or a fortnight's month is the one its last day is in.
    let ultimo = hasta.previous_day()?;
    let meses = match periodicidad {
        "05" => format!("{}", 13 + (u8::from(desde.month()) - 1) / 2),
        _ => format!("{:02}", u8::from(ultimo.month())),
    };
    Some((desde, hasta, meses, ultimo.year()))
}

/// What the automatic global invoice's job of one company and period carries.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayloadGlobal {
    /// The company.
    pub empresa_id: EmpresaId,
    /// c_Periodicidad.
    pub periodicidad: String,
    /// c_Meses.
    pub meses: String,
    /// Año.
    pub ano: i32,
    /// First local day `AAAA-MM-DD`.
    pub desde: String,
    /// The local day after the last `AAAA-MM-DD`.
    pub hasta: String,
}

/// Daily: for each company with `facturaGlobal.automatica`, enqueues the global invoice of the
/// last closed period in the issuer's time zone, once per company and period (the job's
/// dedupe key), however many instances plan it.
pub struct PlanearGlobales;

impl crate::jobs::Job for PlanearGlobales {
    type Context = AppContext;
    const KIND: &'static str = "recibos.planear_globales";
    type Payload = crate::jobs::Day;

    async fn run(app: AppContext, _job: crate::jobs::Claimed) -> crate::jobs::Attempt {
        match planear(&app, app.clock.now()).await {
            Ok(n) => crate::jobs::Attempt::ok(json!({ "encolados": n })),
            Err(error) => {
                crate::jobs::Attempt::retry(format!("{}: {}", error.code.as_str(), error.message), Json::Null)
            }
        }
    }
}

/// [`PlanearGlobales`] at `now`: how many jobs it wrote (0 for periods already planned).
pub async fn planear(app: &AppContext, now: OffsetDateTime) -> ApiResult<usize> {
    let companias = db::con_global_automatica(&mut app.db.conn().await?).await?;
    let mut escritos = 0;
    for a in companias {
        let (emisora, _) = super::contexto::emisora_y_receptor(app, &EmpresaId::from(&a.id), None).await?;
        let hoy = super::hora_de_expedicion(&*app.catalogos.indice, &emisora.codigo_postal, now).date();
        let Some((desde, hasta, meses, ano)) = periodo_cerrado(&a.global_periodicidad, hoy) else { continue };
        let payload = PayloadGlobal {
            empresa_id: EmpresaId::from(a.id.clone()),
            periodicidad: a.global_periodicidad.clone(),
            meses,
            ano,
            desde: desde.to_string(),
            hasta: hasta.to_string(),
        };
        let clave = format!("recibos.global@{}:{}:{}", a.id, payload.periodicidad, payload.desde);
        let job = crate::jobs::NewJob::of::<TimbrarGlobal>(&payload).for_empresa(&EmpresaId::from(&a.id)).dedupe(clave);
        if crate::jobs::enqueue(&mut app.db.conn().await?, now, job).await?.is_some() {
            escritos += 1;
        }
    }
    Ok(escritos)
}

/// Stamps the global invoice of one company and closed period (nothing to include is done, not
/// an error); failures retry and show in `/api/jobs`.
pub struct TimbrarGlobal;

impl crate::jobs::Job for TimbrarGlobal {
    type Context = AppContext;
    const KIND: &'static str = "recibos.factura_global";
    type Payload = PayloadGlobal;
    const MAX_ATTEMPTS: i64 = 10;

    async fn run(app: AppContext, job: crate::jobs::Claimed) -> crate::jobs::Attempt {
        let payload = match job.payload::<Self>() {
            Ok(payload) => payload,
            Err(error) => return crate::jobs::Attempt::fail(error),
        };
        match timbrar_automatica(&app, &payload).await {
            Ok(info) => crate::jobs::Attempt::ok(info),
            Err(error) => {
                crate::jobs::Attempt::retry(format!("{}: {}", error.code.as_str(), error.message), Json::Null)
            }
        }
    }
}

async fn timbrar_automatica(app: &AppContext, p: &PayloadGlobal) -> ApiResult<Json> {
    let (empresa, _) = super::contexto::emisora_y_receptor(app, &p.empresa_id, None).await?;
    let dia = |t: &str| leer_dia(t).ok_or_else(|| ApiError::internal("global job", t));
    let catalogos = &*app.catalogos.indice;
    let local = |d: Date| {
        super::fecha_de_expedicion(catalogos, &empresa.codigo_postal, PrimitiveDateTime::new(d, Time::MIDNIGHT))
    };
    let periodo = Periodo {
        periodicidad: p.periodicidad.clone(),
        meses: p.meses.clone(),
        ano: p.ano,
        desde: local(dia(&p.desde)?),
        hasta: local(dia(&p.hasta)?),
    };
    let now = app.clock.now();
    let preparada = match preparar_global(app, &empresa, &periodo, now).await {
        Ok(preparada) => preparada,
        Err(error) if error.code == Code::Recibo002 => return Ok(json!({ "recibos": 0 })),
        Err(error) => return Err(error),
    };
    let propietario = db::propietario(&mut app.db.conn().await?, &empresa.id).await?;
    let peticion = pipeline::Peticion {
        empresa: &empresa,
        user_id: &UserId::from(&propietario),
        mode: if empresa.sandbox { "sandbox" } else { "live" },
        clave: None,
        request_hash: String::new(),
        now,
        fecha_local: preparada.fecha_local,
    };
    match timbrar_global(app, &peticion, preparada).await {
        Ok(answer) => {
            let envelope: Json = serde_json::from_str(&answer.body).map_err(|e| ApiError::internal("global", e))?;
            Ok(envelope["data"].clone())
        }
        // Another instance or request took the tickets meanwhile: nothing left to do.
        Err(error) if error.code == Code::Recibo003 => Ok(json!({ "recibos": 0 })),
        Err(error) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_use_the_unambiguous_alphabet_and_differ() {
        let a = nueva_clave();
        let b = nueva_clave();
        assert_eq!(a.len(), LARGO_CLAVE);
        assert_ne!(a, b);
        assert!(a.chars().all(|c| !"01OIL".contains(c)), "{a}");
        assert_eq!(normalizar_clave("ab-cd o1l"), "ABCD011");
    }

    #[test]
    fn taxes_are_backed_out_to_the_centavo() {
        let tasas = Tasas { tasas: vec![Decimal::new(16, 2)], cuota: Decimal::ZERO };
        for (cantidad, precio) in [("1", "100.00"), ("3", "33.33"), ("1", "0.10"), ("7", "1234.57")] {
            let mut linea = json!({ "cantidad": cantidad, "precioUnitario": precio });
            sin_impuestos(&mut linea, &tasas);
            let q: Decimal = cantidad.parse().unwrap();
            let p: Decimal = precio.parse().unwrap();
            let neto: Decimal = linea["precioUnitario"].as_str().unwrap().parse().unwrap();
            let importe = redondear(q * neto, 2);
            let iva = redondear(importe * Decimal::new(16, 2), 2);
            assert_eq!(importe + iva, redondear(q * p, 2), "{cantidad} × {precio}: {neto}");
        }
    }

    #[test]
    fn closed_periods_in_the_issuers_calendar() {
        let d = |t: &str| leer_dia(t).unwrap();
        let p = |per: &str, hoy: &str| {
            let (a, b, m, y) = periodo_cerrado(per, d(hoy)).unwrap();
            (a.to_string(), b.to_string(), m, y)
        };
        assert_eq!(p("01", "2026-03-01"), ("2026-02-28".into(), "2026-03-01".into(), "02".into(), 2026));
        // 2026-03-04 is a Wednesday: the week of Monday 2026-02-23.
        assert_eq!(p("02", "2026-03-04"), ("2026-02-23".into(), "2026-03-02".into(), "03".into(), 2026));
        assert_eq!(p("03", "2026-03-10"), ("2026-02-16".into(), "2026-03-01".into(), "02".into(), 2026));
        assert_eq!(p("03", "2026-03-20"), ("2026-03-01".into(), "2026-03-16".into(), "03".into(), 2026));
        assert_eq!(p("04", "2026-01-05"), ("2025-12-01".into(), "2026-01-01".into(), "12".into(), 2025));
        assert_eq!(p("05", "2026-04-10"), ("2026-01-01".into(), "2026-03-01".into(), "13".into(), 2026));
        assert_eq!(p("05", "2026-01-10"), ("2025-11-01".into(), "2026-01-01".into(), "18".into(), 2025));
    }

    #[test]
    fn bimesters_cover_two_months() {
        assert_eq!(meses_de(13), Some((1, 2)));
        assert_eq!(meses_de(18), Some((11, 12)));
        assert_eq!(meses_de(4), Some((4, 4)));
        assert_eq!(meses_de(19), None);
    }
}
