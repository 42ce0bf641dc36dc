//! Payment CFDI (type P with Pagos 2.0): from the body of `POST /api/cfdi/pagos/timbrar` to a
//! [`Documento`] for the stamping pipeline, and the balances the service keeps of the PPD
//! invoices it pays.
//!
//! Checks run in the order the API promises: every problem of the body at once (PAGO_001, or
//! PAGO_004 when the only problems are the balance arithmetic), then unknown or foreign
//! documents (PAGO_002, 404), unusable ones (PAGO_003), then the stored balances (PAGO_005,
//! 409) — all before a folio or a stamp is spent. The balances are checked again and moved by
//! [`EfectosPago`] in the stamp's own transaction (compare and set on the stored balance and
//! installment), so two payments racing for one invoice never both take an installment or
//! drive it below zero: the one that comes second is rolled back with PAGO_005.
//!
//! Amounts of a related document (`impSaldoAnt`, `impPagado`, `impSaldoInsoluto`) are in the
//! document's currency; `equivalenciaDR` is units of the document's currency per unit of the
//! payment's (SAT's definition), 1 when both currencies are the same, `impPagado ÷ monto` when
//! omitted with a single document. `monto` must equal Σ impPagado ÷ equivalenciaDR to the
//! centavo (rounded or truncated).

use std::collections::HashSet;
use std::sync::Arc;
use timbra_store::ids::{CfdiId, EmpresaId, PagoId};

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};
use serde_json::json;
use timbra_cfdi::catalogos::{self, FormaPago};
use timbra_cfdi::construccion::NuevoComprobante;
use timbra_cfdi::numero::Numero;
use timbra_cfdi::pagos::{self, DoctoRelacionado, Pago, Pagos, Totales};
use timbra_cfdi::tipos::{CampoTexto, Esquema, FolioFiscal, PREFIJO_SANDBOX};
use timbra_cfdi::{Comprobante, Emisor, Receptor, validacion};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::pipeline::{Documento, Efectos, Hecho, Registro};
use super::{credenciales, fecha_cfdi, hora_local};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use crate::validate::{self, RawAmount};
use timbra_store::cfdi_xml;
use timbra_store::empresas::EmpresaEmisora;
use timbra_store::estados::EstadoCfdi;
use timbra_store::pagos::{self as db, Aplicacion, Relacionado, Saldo};
use timbra_store::{Money, Tx};

/// The Idempotency-Key operation name of payments.
pub const OPERACION: &str = "cfdi.pagos.timbrar";

/// Most related documents one payment may carry: the XML stays under a megabyte and the
/// stamp's transaction moves at most this many balances.
pub const MAX_DOCTOS: usize = 1000;

/// Body of `POST /api/cfdi/pagos/timbrar`: one payment (`pago20:Pago`) applied to one or more
/// PPD invoices of the company. Amounts are JSON numbers or strings in plain decimal notation,
/// read exactly, with at most the currency's decimals (2 for MXN and USD).
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct PagoBody {
    /// When the money was received: `AAAA-MM-DDThh:mm:ss` in the issuer's local time, or an
    /// RFC 3339 instant; not in the future.
    pub fecha_pago: Option<String>,
    /// c_FormaPago of the payment (01 cash, 02 cheque, 03 transfer, ...; not 99).
    pub forma_pago: Option<String>,
    /// c_Moneda of the payment, default MXN (not XXX).
    pub moneda_p: Option<String>,
    /// MXN per unit of `monedaP`; required when `monedaP` is not MXN.
    #[schema(value_type = Option<String>, example = "17.2545")]
    pub tipo_cambio_p: Option<RawAmount>,
    /// The amount received, in `monedaP`: Σ impPagado ÷ equivalenciaDR, to the centavo.
    #[schema(value_type = String, example = "11600.00")]
    pub monto: Option<RawAmount>,
    /// Bank reference (1 to 100 characters, no `|`).
    pub num_operacion: Option<String>,
    /// The invoices paid, 1 to 1,000.
    pub docto_relacionados: Option<Vec<DoctoBody>>,
    /// E-mail the stamped payment CFDI to the customer's `email` after the stamp; absent, the
    /// company's `correo.enviarAlTimbrar` decides.
    pub enviar_correo: Option<bool>,
    /// Notes printed on the PDF (not part of the XML), up to 2,000 characters.
    pub notas: Option<String>,
}

/// One invoice paid (`pago20:DoctoRelacionado`).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoctoBody {
    /// UUID of a PPD invoice of the company, bare or with the `SANDBOX-` prefix.
    pub id_documento: Option<String>,
    /// The installment: the invoice's next one (1, 2, 3, ...; `GET /api/cfdi/{id}` shows the
    /// payments so far).
    #[schema(value_type = u32, example = 1)]
    pub num_parcialidad: Option<RawAmount>,
    /// Balance before this payment, in the invoice's currency: its stored `saldoInsoluto`.
    #[schema(value_type = String, example = "23200.00")]
    pub imp_saldo_ant: Option<RawAmount>,
    /// Amount paid, in the invoice's currency; greater than 0 and at most `impSaldoAnt`.
    #[schema(value_type = String, example = "11600.00")]
    pub imp_pagado: Option<RawAmount>,
    /// Balance after it: `impSaldoAnt − impPagado`.
    #[schema(value_type = String, example = "11600.00")]
    pub imp_saldo_insoluto: Option<RawAmount>,
    /// The invoice's currency, default MXN (must be the invoice's).
    #[serde(rename = "monedaDR")]
    pub moneda_dr: Option<String>,
    /// Units of `monedaDR` per unit of `monedaP` (up to 10 decimals); 1 when they are the same
    /// currency; when omitted with a single document, `impPagado ÷ monto`.
    #[serde(rename = "equivalenciaDR")]
    #[schema(value_type = Option<String>, example = "0.0579556")]
    pub equivalencia_dr: Option<RawAmount>,
    /// c_ObjetoImp of the payment: 01 (not subject) or 02 (subject: the invoice's taxes are
    /// carried in proportion). Default 02 when the invoice has taxes, 01 when it has none.
    #[serde(rename = "objetoImpDR")]
    pub objeto_imp_dr: Option<String>,
}

/// One invoice of the answer.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoctoOut {
    /// The invoice's UUID as the API shows it.
    uuid: String,
    /// `impPagado` of this payment (decimal string, the invoice's currency).
    #[schema(value_type = String)]
    pagado: Decimal,
    /// Its balance after this payment (decimal string).
    #[schema(value_type = String)]
    saldo_insoluto: Decimal,
}

/// Answer of a payment stamp.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PagoTimbradoOut {
    cfdi_id: String,
    /// `SANDBOX-` + the XML's UUID in sandbox; the bare UUID in live.
    uuid: String,
    /// ISO 8601 with the issuer's offset.
    fecha_timbrado: String,
    /// Storage path of the XML.
    xml_url: String,
    serie: String,
    folio: String,
    /// The amount received, in the payment's currency (decimal string).
    #[schema(value_type = String)]
    monto: Decimal,
    docto_relacionados: Vec<DoctoOut>,
    sandbox: bool,
}

/// What a stamped payment paid, read from its complement (the answer and the event say it).
pub struct ResumenPago {
    /// Σ Monto of its `Pago` nodes.
    pub monto: Decimal,
    /// (IdDocumento, ImpPagado, ImpSaldoInsoluto) of each document.
    doctos: Vec<(String, Decimal, Decimal)>,
}

impl ResumenPago {
    /// Reads it from the complement.
    pub fn de(pagos: &Pagos) -> ApiResult<Self> {
        let valor = |n: &Numero| n.valor().map_err(|e| ApiError::internal("pago", e));
        let mut monto = Decimal::ZERO;
        let mut doctos = Vec::new();
        for pago in &pagos.pagos {
            monto += valor(&pago.monto)?;
            for d in &pago.doctos_relacionados {
                doctos.push((d.id_documento.clone(), valor(&d.imp_pagado)?, valor(&d.imp_saldo_insoluto)?));
            }
        }
        Ok(Self { monto, doctos })
    }
}

impl super::pipeline::Resumen for ResumenPago {
    /// The `201` body of the payment, as first given and as replayed.
    fn respuesta_201(
        &self,
        mode: &str,
        registro: &Registro,
        uuid_api: &str,
        timbrado_en: OffsetDateTime,
        folio: i64,
    ) -> String {
        let prefijo = if registro.sandbox { PREFIJO_SANDBOX } else { "" };
        let data = PagoTimbradoOut {
            cfdi_id: registro.cfdi_id.as_str().to_owned(),
            uuid: uuid_api.to_owned(),
            fecha_timbrado: credenciales::rfc3339(timbrado_en),
            xml_url: registro.xml_path.clone(),
            serie: registro.serie.clone(),
            folio: folio.to_string(),
            monto: self.monto,
            docto_relacionados: self
                .doctos
                .iter()
                .map(|(uuid, pagado, saldo)| DoctoOut {
                    uuid: format!("{prefijo}{uuid}"),
                    pagado: *pagado,
                    saldo_insoluto: *saldo,
                })
                .collect(),
            sandbox: registro.sandbox,
        };
        json!({ "success": true, "mode": mode, "data": data }).to_string()
    }

    fn monto(&self) -> Option<Decimal> {
        Some(self.monto)
    }

    fn como_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// One document of a payment, as the body gave it and the checks completed it.
struct Docto {
    campo: String,
    uuid_xml: String,
    num_parcialidad: i64,
    saldo_ant: Decimal,
    pagado: Decimal,
    insoluto: Decimal,
    moneda_dr: String,
    equivalencia: Decimal,
    /// As sent: `None` takes the default from the invoice.
    objeto_imp_dr: Option<String>,
}

/// The body, checked.
struct Solicitud {
    fecha_pago: String,
    forma_pago: String,
    moneda_p: String,
    tipo_cambio_p: Option<Decimal>,
    monto: Decimal,
    num_operacion: Option<String>,
    doctos: Vec<Docto>,
}

/// `valor` with at most `decimales` decimals (the currency's), or a problem.
fn decimales(problems: &mut Vec<FieldProblem>, field: &str, valor: Option<Decimal>, moneda: &str) -> Option<Decimal> {
    let valor = valor?;
    let maximo = catalogos::decimales_moneda(moneda);
    if valor.normalize().scale() > maximo {
        problems.push(FieldProblem::new(field, format!("{field} has at most {maximo} decimals in {moneda}")));
    }
    Some(valor)
}

/// A currency of c_Moneda other than XXX, upper case; `default` when absent.
fn moneda(problems: &mut Vec<FieldProblem>, field: &str, value: Option<&str>, default: &str) -> String {
    let value = value.map(|m| m.trim().to_uppercase()).filter(|m| !m.is_empty()).unwrap_or_else(|| default.into());
    if value == "XXX" || catalogos::moneda(&value).is_none() {
        problems.push(FieldProblem::new(field, format!("{value:?} is not a currency of SAT's catalog c_Moneda")));
    }
    value
}

/// `texto` as a FechaPago (the issuer's local time, whole seconds), or a problem.
fn fecha_pago(problems: &mut Vec<FieldProblem>, texto: Option<&str>, fecha_local: OffsetDateTime) -> String {
    let Some(texto) = texto.map(str::trim).filter(|t| !t.is_empty()) else {
        problems.push(FieldProblem::new("fechaPago", "fechaPago is required: when the money was received"));
        return String::new();
    };
    // A local time is the issuer's (LugarExpedicion's zone, `fecha_local`'s offset).
    let local = super::leer_fecha_local(texto).map(|fecha| fecha.assume_offset(fecha_local.offset())).or_else(|| {
        OffsetDateTime::parse(texto, &time::format_description::well_known::Rfc3339)
            .ok()
            .map(|at| at.replace_nanosecond(0).unwrap_or(at).to_offset(fecha_local.offset()))
    });
    match local {
        None => {
            problems.push(FieldProblem::new(
                "fechaPago",
                "fechaPago is AAAA-MM-DDThh:mm:ss (local time) or an RFC 3339 instant with offset",
            ));
            String::new()
        }
        Some(at) if at > fecha_local + time::Duration::minutes(5) => {
            problems.push(FieldProblem::new("fechaPago", "fechaPago cannot be in the future"));
            String::new()
        }
        Some(at) => fecha_cfdi(at),
    }
}

/// Checks the body: every problem at once, PAGO_001 (PAGO_004 when all of them are the balance
/// arithmetic of the documents).
fn leer(body: PagoBody, fecha_local: OffsetDateTime) -> ApiResult<Solicitud> {
    let mut p = Vec::new();
    // Balance arithmetic (PAGO_004), kept apart to choose the code.
    let mut saldos = Vec::new();
    let fecha_pago = fecha_pago(&mut p, body.fecha_pago.as_deref(), fecha_local);
    let forma_pago = match body.forma_pago.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        None => {
            p.push(FieldProblem::new("formaPago", "formaPago is required (c_FormaPago: 01 cash, 03 transfer, ...)"));
            String::new()
        }
        Some(codigo) => {
            match FormaPago::desde_codigo(codigo) {
                None => p.push(FieldProblem::new(
                    "formaPago",
                    format!("{codigo:?} is not a code of SAT's catalog c_FormaPago"),
                )),
                Some(FormaPago::PorDefinir) => p.push(FieldProblem::new(
                    "formaPago",
                    "a payment says how it was paid: 99 (por definir) is not allowed (Pagos 2.0 FormaDePagoP)",
                )),
                Some(_) => {}
            }
            codigo.to_owned()
        }
    };
    let moneda_p = moneda(&mut p, "monedaP", body.moneda_p.as_deref(), "MXN");
    let tipo_cambio_p =
        validate::amount(&mut p, "tipoCambioP", body.tipo_cambio_p.as_ref(), Esquema::TIPO_CAMBIO, false);
    match (moneda_p.as_str(), tipo_cambio_p) {
        ("MXN", Some(tc)) if tc != Decimal::ONE => {
            p.push(FieldProblem::new("tipoCambioP", "a payment in MXN has tipoCambioP 1 (or none)"));
        }
        ("MXN", _) => {}
        (_, None) if body.tipo_cambio_p.is_none() => p.push(FieldProblem::new(
            "tipoCambioP",
            format!("tipoCambioP is required when monedaP is {moneda_p}: MXN per {moneda_p} on fechaPago"),
        )),
        (_, Some(tc)) if tc.is_zero() => p.push(FieldProblem::new("tipoCambioP", "tipoCambioP must be greater than 0")),
        _ => {}
    }
    let monto = validate::amount(&mut p, "monto", body.monto.as_ref(), Esquema::IMPORTE, true);
    let monto = decimales(&mut p, "monto", monto, &moneda_p);
    if monto.is_some_and(|m| m.is_zero()) {
        p.push(FieldProblem::new("monto", "monto must be greater than 0"));
    }
    let num_operacion =
        validate::optional_sat_text(&mut p, "numOperacion", body.num_operacion.as_deref(), CampoTexto::NUM_OPERACION);

    let cuerpo = body.docto_relacionados.unwrap_or_default();
    if cuerpo.is_empty() {
        p.push(FieldProblem::new("doctoRelacionados", "doctoRelacionados is required: at least one invoice paid"));
    } else if cuerpo.len() > MAX_DOCTOS {
        return Err(ApiError::fields(
            Code::Pago001,
            vec![FieldProblem::new(
                "doctoRelacionados",
                format!(
                    "{} documents: a payment takes at most {MAX_DOCTOS}; split it into several payments",
                    cuerpo.len()
                ),
            )],
        ));
    }
    let un_docto = cuerpo.len() == 1;
    let mut vistos = HashSet::new();
    let mut doctos = Vec::with_capacity(cuerpo.len());
    for (i, d) in cuerpo.into_iter().enumerate() {
        let campo = format!("doctoRelacionados[{i}]");
        let f = |name: &str| format!("{campo}.{name}");
        let uuid_xml = match d.id_documento.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            None => {
                p.push(FieldProblem::new(f("idDocumento"), "idDocumento is required: the UUID of the invoice paid"));
                String::new()
            }
            Some(texto) => match FolioFiscal::leer(texto) {
                Ok(folio) => {
                    let uuid = folio.as_str().to_owned();
                    if !vistos.insert(uuid.clone()) {
                        p.push(FieldProblem::new(
                            f("idDocumento"),
                            format!("invoice {uuid} appears twice: one entry per invoice, with the whole amount"),
                        ));
                    }
                    uuid
                }
                Err(error) => {
                    p.push(FieldProblem::new(f("idDocumento"), error.to_string()));
                    String::new()
                }
            },
        };
        let num_parcialidad = match validate::amount(
            &mut p,
            &f("numParcialidad"),
            d.num_parcialidad.as_ref(),
            Esquema { enteros: 3, decimales: 0 },
            true,
        ) {
            Some(n) if n.is_zero() => {
                p.push(FieldProblem::new(f("numParcialidad"), "numParcialidad starts at 1"));
                0
            }
            Some(n) => i64::try_from(n.mantissa()).unwrap_or_default(),
            None => 0,
        };
        let moneda_dr = moneda(&mut p, &f("monedaDR"), d.moneda_dr.as_deref(), "MXN");
        let importe = |p: &mut Vec<FieldProblem>, name: &str, raw: Option<&RawAmount>| {
            let valor = validate::amount(p, &f(name), raw, Esquema::IMPORTE, true);
            decimales(p, &f(name), valor, &moneda_dr)
        };
        let saldo_ant = importe(&mut p, "impSaldoAnt", d.imp_saldo_ant.as_ref());
        let pagado = importe(&mut p, "impPagado", d.imp_pagado.as_ref());
        let insoluto = importe(&mut p, "impSaldoInsoluto", d.imp_saldo_insoluto.as_ref());
        if let (Some(ant), Some(pagado), Some(insoluto)) = (saldo_ant, pagado, insoluto) {
            if pagado.is_zero() {
                saldos.push(FieldProblem::new(f("impPagado"), "impPagado must be greater than 0"));
            } else if pagado > ant {
                saldos.push(FieldProblem::new(
                    f("impPagado"),
                    format!("impPagado {pagado} is more than impSaldoAnt {ant}: a payment cannot exceed the balance"),
                ));
            } else if insoluto != ant - pagado {
                saldos.push(FieldProblem::new(
                    f("impSaldoInsoluto"),
                    format!("impSaldoInsoluto must be impSaldoAnt − impPagado = {}, not {insoluto}", ant - pagado),
                ));
            }
        }
        let equivalencia = validate::amount(
            &mut p,
            &f("equivalenciaDR"),
            d.equivalencia_dr.as_ref(),
            Esquema { enteros: 18, decimales: 10 },
            false,
        );
        let equivalencia = match equivalencia {
            Some(e) if e.is_zero() => {
                p.push(FieldProblem::new(f("equivalenciaDR"), "equivalenciaDR must be greater than 0"));
                None
            }
            Some(e) if moneda_dr == moneda_p && e != Decimal::ONE => {
                p.push(FieldProblem::new(
                    f("equivalenciaDR"),
                    "equivalenciaDR is 1 when monedaDR and monedaP are the same currency",
                ));
                None
            }
            Some(e) => Some(e),
            None if moneda_dr == moneda_p => Some(Decimal::ONE),
            None if d.equivalencia_dr.is_some() => None,
            // SAT: units of the document's currency per unit of the payment's.
            None if un_docto => match (pagado, monto) {
                (Some(pagado), Some(monto)) if !monto.is_zero() => pagado
                    .checked_div(monto)
                    .map(|e| e.round_dp_with_strategy(10, RoundingStrategy::MidpointAwayFromZero).normalize()),
                _ => None,
            },
            None => {
                p.push(FieldProblem::new(
                    f("equivalenciaDR"),
                    format!(
                        "equivalenciaDR is required: the invoice is paid in {moneda_p} and monedaDR is {moneda_dr} \
                         ({moneda_dr} per 1 {moneda_p})"
                    ),
                ));
                None
            }
        };
        let objeto_imp_dr = match d.objeto_imp_dr.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(codigo @ ("01" | "02")) => Some(codigo.to_owned()),
            Some(other) => {
                p.push(FieldProblem::new(f("objetoImpDR"), format!("objetoImpDR is 01 or 02, not {other:?}")));
                None
            }
        };
        doctos.push(Docto {
            campo,
            uuid_xml,
            num_parcialidad,
            saldo_ant: saldo_ant.unwrap_or_default(),
            pagado: pagado.unwrap_or_default(),
            insoluto: insoluto.unwrap_or_default(),
            moneda_dr,
            equivalencia: equivalencia.unwrap_or(Decimal::ONE),
            objeto_imp_dr,
        });
    }
    // Monto against the documents, only when every amount it depends on was read.
    if p.is_empty()
        && let Some(monto) = monto
    {
        let suma: Option<Decimal> =
            doctos.iter().try_fold(Decimal::ZERO, |suma, d| Some(suma + d.pagado.checked_div(d.equivalencia)?));
        let centavos = catalogos::decimales_moneda(&moneda_p);
        if let Some(suma) = suma {
            let redondeada = suma.round_dp_with_strategy(centavos, RoundingStrategy::MidpointAwayFromZero);
            let truncada = suma.round_dp_with_strategy(centavos, RoundingStrategy::ToZero);
            if monto != redondeada && monto != truncada {
                p.push(FieldProblem::new(
                    "monto",
                    format!(
                        "monto must equal Σ impPagado ÷ equivalenciaDR = {redondeada} {moneda_p}, not {monto}; \
                         the amounts of each document are in its own currency"
                    ),
                ));
            }
        }
    }
    if !p.is_empty() {
        p.extend(saldos);
        return Err(ApiError::fields(Code::Pago001, p));
    }
    if !saldos.is_empty() {
        return Err(ApiError::fields(Code::Pago004, saldos));
    }
    Ok(Solicitud {
        fecha_pago,
        forma_pago,
        moneda_p,
        tipo_cambio_p,
        monto: monto.unwrap_or_default(),
        num_operacion,
        doctos,
    })
}

/// The invoices the documents name: PAGO_002 for those that are not invoices the company
/// issued here; PAGO_003 for those a payment cannot apply to.
async fn relacionados(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    solicitud: &Solicitud,
) -> ApiResult<Vec<Relacionado>> {
    let empresa_id = empresa.id.as_str();
    let mut conn = app.db.conn().await?;
    let mut encontrados = Vec::with_capacity(solicitud.doctos.len());
    let mut faltan = Vec::new();
    for d in &solicitud.doctos {
        match db::relacionado(&mut conn, &EmpresaId::from(empresa_id), &d.uuid_xml).await? {
            Some(r) => encontrados.push(r),
            None => faltan.push(FieldProblem::new(
                format!("{}.idDocumento", d.campo),
                format!("{} is not an invoice issued by this company", d.uuid_xml),
            )),
        }
    }
    drop(conn);
    if !faltan.is_empty() {
        let mut error = ApiError::fields(Code::Pago002, faltan);
        error.message = format!("invoice not found in this company: {}", error.message);
        return Err(error);
    }
    let mut problemas = Vec::new();
    let receptor = encontrados.first().map(|r| r.receptor_rfc.clone()).unwrap_or_default();
    for (d, r) in solicitud.doctos.iter().zip(&encontrados) {
        let field = format!("{}.idDocumento", d.campo);
        let uuid = &r.uuid;
        if !EstadoCfdi::parse(&r.status).is_some_and(EstadoCfdi::vigente) {
            problemas.push(FieldProblem::new(field, format!("invoice {uuid} is {}: it cannot be paid", r.status)));
        } else if r.sandbox != empresa.sandbox {
            let (de, modo) = if r.sandbox { ("a sandbox", "live") } else { ("a live", "sandbox") };
            problemas.push(FieldProblem::new(
                field,
                format!("invoice {uuid} is {de} invoice: the company stamps in {modo} now, and a payment CFDI pays invoices of its own mode"),
            ));
        } else if r.tipo_comprobante != "I" || r.metodo_pago.as_deref() != Some("PPD") || r.saldo_insoluto.is_none() {
            problemas.push(FieldProblem::new(
                field,
                format!(
                    "invoice {uuid} is not an ingreso with metodoPago PPD (it is {} {}): only PPD invoices take \
                     payment CFDI; a PUE invoice was paid when issued",
                    r.tipo_comprobante,
                    r.metodo_pago.as_deref().unwrap_or("without metodoPago")
                ),
            ));
        } else if r.moneda != d.moneda_dr {
            problemas.push(FieldProblem::new(
                format!("{}.monedaDR", d.campo),
                format!(
                    "invoice {uuid} is in {}: send monedaDR {} and the amounts in {} (with equivalenciaDR)",
                    r.moneda, r.moneda, r.moneda
                ),
            ));
        } else if !r.receptor_rfc.eq_ignore_ascii_case(&receptor) {
            problemas.push(FieldProblem::new(
                field,
                format!(
                    "invoice {uuid} was issued to {}, the first one to {receptor}: one payment CFDI pays invoices of \
                     one receiver",
                    r.receptor_rfc
                ),
            ));
        }
    }
    if !problemas.is_empty() {
        return Err(ApiError::fields(Code::Pago003, problemas));
    }
    Ok(encontrados)
}

/// A stored amount with at least two decimals: PostgreSQL gives a NUMERIC zero back as `0`.
fn centavos(mut valor: Decimal) -> Decimal {
    if valor.scale() < 2 {
        valor.rescale(2);
    }
    valor
}

/// PAGO_005 naming what the stored balance expects.
fn error_saldo(uuid: &str, esperado: Saldo, d: &Docto) -> ApiError {
    let (saldo, siguiente) = (centavos(esperado.saldo_insoluto.0), esperado.ultima_parcialidad + 1);
    ApiError::new(
        Code::Pago005,
        format!(
            "invoice {uuid} has saldoInsoluto {saldo} and its next numParcialidad is {siguiente}; this payment \
             says impSaldoAnt {} and numParcialidad {}: send impSaldoAnt {saldo} and numParcialidad {siguiente}",
            d.saldo_ant, d.num_parcialidad
        ),
    )
    .with_details(json!({
        "field": format!("{}.impSaldoAnt", d.campo), "idDocumento": uuid,
        "saldoInsoluto": saldo.to_string(), "numParcialidad": siguiente,
    }))
}

/// Whether `d` is the payment the stored balance expects next.
fn coincide(saldo: Saldo, d: &Docto) -> bool {
    saldo.saldo_insoluto.0 == d.saldo_ant && saldo.ultima_parcialidad + 1 == d.num_parcialidad
}

/// The related invoice's stamped XML, parsed.
async fn factura(app: &AppContext, r: &Relacionado) -> ApiResult<Comprobante> {
    let path = r.xml_url.as_deref().ok_or_else(|| ApiError::internal("pago", "invoice without XML"))?;
    let bytes = {
        let mut conn = app.db.conn().await?;
        cfdi_xml::leer(&mut conn, path).await?
    };
    let bytes = match bytes {
        Some(bytes) => bytes,
        None => app.cfdi.storage.get(path).await.map_err(|e| ApiError::internal("storage get", e))?,
    };
    let xml = String::from_utf8(bytes).map_err(|e| ApiError::internal("invoice XML", e))?;
    timbra_cfdi::parser::parsear(&xml).map_err(|e| ApiError::internal("invoice XML", e))
}

/// Checks the body of a payment and builds it for `empresa` at local time `fecha_local`: the
/// document for the pipeline and the effects that move the balances in its stamp.
/// `request_hash` is the body's digest in live mode (empty in sandbox).
pub async fn preparar(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    body: PagoBody,
    fecha_local: OffsetDateTime,
    request_hash: &str,
) -> ApiResult<(Documento, Arc<dyn Efectos>)> {
    let solicitud = leer(body, fecha_local)?;
    let relacionados = relacionados(app, empresa, &solicitud).await?;
    // A live retry of a payment whose outcome is unknown finds its own amounts held: the
    // pipeline resends that attempt, so the balances are not read here.
    let reintento = !empresa.sandbox && {
        let mut conn = app.db.conn().await?;
        timbra_store::intentos::pendiente_por_hash(&mut conn, &empresa.id, request_hash).await?.is_some()
    };
    // The stored balances, read (cheap refusals before sealing): the stamp checks them again in
    // its transaction.
    for (d, r) in solicitud.doctos.iter().zip(&relacionados).filter(|_| !reintento) {
        let saldo = Saldo {
            saldo_insoluto: r.saldo_insoluto.unwrap_or(Money(Decimal::ZERO)),
            ultima_parcialidad: r.ultima_parcialidad.unwrap_or_default(),
        };
        if !coincide(saldo, d) {
            return Err(error_saldo(&r.uuid, saldo, d));
        }
    }

    let mut doctos_relacionados = Vec::with_capacity(solicitud.doctos.len());
    let mut receptor = None;
    for (d, r) in solicitud.doctos.iter().zip(&relacionados) {
        let factura = factura(app, r).await?;
        let impuestos_dr = pagos::impuestos_dr(&factura, d.pagado).map_err(|e| ApiError::internal("ImpuestosDR", e))?;
        let objeto = d.objeto_imp_dr.clone().unwrap_or_else(|| if impuestos_dr.is_some() { "02" } else { "01" }.into());
        if objeto == "02" && impuestos_dr.is_none() {
            return Err(ApiError::fields(
                Code::Pago003,
                vec![FieldProblem::new(
                    format!("{}.objetoImpDR", d.campo),
                    format!("invoice {} carries no taxes: its payments are objetoImpDR 01", r.uuid),
                )],
            ));
        }
        let dos = |v: Decimal| Numero::con_decimales(v, catalogos::decimales_moneda(&d.moneda_dr));
        doctos_relacionados.push(DoctoRelacionado {
            id_documento: r.uuid_xml.clone(),
            serie: r.serie.clone(),
            folio: r.folio.clone(),
            moneda_dr: d.moneda_dr.clone(),
            equivalencia_dr: Some(Numero::from(d.equivalencia.normalize())),
            num_parcialidad: d.num_parcialidad.to_string(),
            imp_saldo_ant: dos(d.saldo_ant),
            imp_pagado: dos(d.pagado),
            imp_saldo_insoluto: dos(d.insoluto),
            objeto_imp_dr: objeto.clone(),
            impuestos_dr: if objeto == "02" { impuestos_dr } else { None },
        });
        receptor.get_or_insert(factura.receptor);
    }
    let Some(receptor) = receptor else {
        return Err(ApiError::internal("pago", "no related document"));
    };
    let receptor = Receptor { uso_cfdi: "CP01".into(), ..receptor };
    let pago = Pago {
        fecha_pago: solicitud.fecha_pago.clone(),
        forma_de_pago_p: solicitud.forma_pago.clone(),
        moneda_p: solicitud.moneda_p.clone(),
        // Pagos 2.0: TipoCambioP is 1 for MXN.
        tipo_cambio_p: Some(match solicitud.tipo_cambio_p {
            Some(tc) if solicitud.moneda_p != "MXN" => Numero::from(tc.normalize()),
            _ => Numero::from_texto("1"),
        }),
        monto: Numero::con_decimales(solicitud.monto, catalogos::decimales_moneda(&solicitud.moneda_p)),
        num_operacion: solicitud.num_operacion.clone(),
        doctos_relacionados,
        ..Pago::default()
    };
    let complemento = Pagos { version: "2.0".into(), totales: Totales::default(), pagos: vec![pago] };
    let emisor = Emisor {
        rfc: empresa.rfc.clone(),
        nombre: empresa.razon_social.clone(),
        regimen_fiscal: empresa.regimen_fiscal.clone(),
        fac_atr_adquirente: None,
    };
    let invalido = |e: timbra_cfdi::construccion::ErrorConstruccion| match e {
        timbra_cfdi::construccion::ErrorConstruccion::Invalido { campo, mensaje } => {
            ApiError::fields(Code::Pago001, vec![FieldProblem::new(campo, mensaje)])
        }
    };
    let serie = {
        let mut conn = app.db.conn().await?;
        timbra_store::empresas::serie_pagos(&mut conn, &empresa.id).await?
    };
    let mut nuevo = NuevoComprobante::recepcion_de_pagos(
        &fecha_cfdi(fecha_local),
        &empresa.codigo_postal,
        emisor,
        receptor,
        complemento,
    )
    .map_err(invalido)?;
    nuevo.serie = Some(serie.clone());
    let comprobante = nuevo.construir().map_err(invalido)?;
    let contexto = validacion::Contexto {
        certificacion: Some(time::PrimitiveDateTime::new(fecha_local.date(), fecha_local.time())),
    };
    let informe = validacion::validar_con(&comprobante, &*app.catalogos.indice, contexto);
    if !informe.es_valido() {
        // Each with SAT's matrix code (CRP20…, CFDI40…) in `details.problemas` too.
        let problems = informe.problemas.into_iter().map(super::complementos::problema_de_validacion).collect();
        return Err(ApiError::reglas(Code::Pago001, problems));
    }
    let efectos = EfectosPago {
        empresa_id: empresa.id.clone(),
        fecha_pago: solicitud.fecha_pago.clone(),
        doctos: solicitud
            .doctos
            .into_iter()
            .zip(relacionados.iter())
            .map(|(d, r)| (r.id.clone(), r.uuid.clone(), d))
            .collect(),
    };
    let documento = Documento {
        contenido: Arc::new(comprobante),
        serie,
        cliente_id: relacionados.first().and_then(|r| r.cliente_id.clone()),
        operacion: OPERACION,
    };
    Ok((documento, Arc::new(efectos)))
}

/// The balances a payment moves, in its stamp's transaction.
struct EfectosPago {
    empresa_id: EmpresaId,
    fecha_pago: String,
    /// (invoice id, its API UUID, the document) in body order.
    doctos: Vec<(CfdiId, String, Docto)>,
}

impl EfectosPago {
    async fn aplicar_en(&self, tx: &mut Tx, pago_id: &PagoId, now: OffsetDateTime) -> ApiResult<()> {
        // In invoice-id order, so two payments of the same invoices lock them in one order.
        let mut orden: Vec<&(CfdiId, String, Docto)> = self.doctos.iter().collect();
        orden.sort_by(|a, b| a.0.cmp(&b.0));
        for (cfdi_id, uuid, d) in orden {
            let actual = db::saldo(tx, &self.empresa_id, cfdi_id)
                .await?
                .ok_or_else(|| ApiError::internal("pago", "PPD invoice without balance"))?;
            if !coincide(actual, d) {
                return Err(error_saldo(uuid, actual, d));
            }
            let nuevo = Saldo {
                saldo_insoluto: Money(actual.saldo_insoluto.0 - d.pagado),
                ultima_parcialidad: d.num_parcialidad,
            };
            if db::mover(tx, &self.empresa_id, cfdi_id, actual, nuevo, now).await? != 1 {
                // Another payment moved it after the read (PostgreSQL): read what it left.
                let ahora = db::saldo(tx, &self.empresa_id, cfdi_id).await?.unwrap_or(actual);
                return Err(error_saldo(uuid, ahora, d));
            }
            // The balance row is now locked until commit; a cancellation of the invoice takes the
            // same lock first (`exigir_sin_pagos_en`), so one of the two sees the other.
            if let Some(problema) = db::impagable(tx, &self.empresa_id, cfdi_id).await? {
                return Err(ApiError::new(
                    Code::Pago003,
                    format!("invoice {uuid} {problema} while this payment was being stamped: it cannot be paid"),
                ));
            }
            let aplicacion = Aplicacion {
                pago_id,
                cfdi_id,
                num_parcialidad: d.num_parcialidad,
                imp_saldo_ant: d.saldo_ant,
                imp_pagado: d.pagado,
                imp_saldo_insoluto: d.insoluto,
                fecha_pago: &self.fecha_pago,
            };
            match db::aplicar(tx, &self.empresa_id, &aplicacion, now).await {
                Err(error) if error.is_duplicate() => return Err(error_saldo(uuid, actual, d)),
                other => other?,
            };
        }
        Ok(())
    }
}

impl Efectos for EfectosPago {
    fn aplicar<'a>(&'a self, tx: &'a mut Tx, cfdi_id: &'a CfdiId, now: OffsetDateTime) -> Hecho<'a> {
        Box::pin(async move { self.aplicar_en(tx, &PagoId::from(cfdi_id), now).await })
    }

    fn devolver<'a>(
        &'a self,
        tx: &'a mut Tx,
        empresa_id: &'a EmpresaId,
        cfdi_id: &'a CfdiId,
        now: OffsetDateTime,
    ) -> Hecho<'a> {
        EFECTOS_GUARDADOS.devolver(tx, empresa_id, cfdi_id, now)
    }
}

/// A payment's hooks when only its stored attempt is at hand (a live stamp resolved by a later
/// request or the job): a refusal gives back the balances it moved.
pub(super) struct PagoGuardado;

/// [`PagoGuardado`].
pub(super) static EFECTOS_GUARDADOS: PagoGuardado = PagoGuardado;

impl Efectos for PagoGuardado {
    fn devolver<'a>(
        &'a self,
        tx: &'a mut Tx,
        empresa_id: &'a EmpresaId,
        cfdi_id: &'a CfdiId,
        now: OffsetDateTime,
    ) -> Hecho<'a> {
        Box::pin(devolver(tx, empresa_id, cfdi_id, now))
    }
}

/// A payment CFDI (type P): `POST /api/cfdi/pagos/timbrar`.
pub static TIPO: super::tipos::TipoDocumento = super::tipos::TipoDocumento {
    operacion: OPERACION,
    ruta: "POST /api/cfdi/pagos/timbrar",
    tipos_comprobante: &["P"],
    efectos_guardados: Some(&EFECTOS_GUARDADOS),
    al_cancelar: |tx, empresa_id, cfdi_id, now| Box::pin(devolver(tx, empresa_id, cfdi_id, now)),
    leer_timbrado: super::documento::leer_comprobante,
    servicio_pac: timbra_pac::Servicio::Cfdi,
};

/// Gives back to the invoices what payment `pago_id` applied (its stamp was refused, or it
/// was cancelled), in the caller's transaction; nothing for any other CFDI.
pub async fn devolver(tx: &mut Tx, empresa_id: &EmpresaId, cfdi_id: &CfdiId, now: OffsetDateTime) -> ApiResult<()> {
    db::devolver(tx, empresa_id, &PagoId::from(cfdi_id), now).await?;
    Ok(())
}

/// A payment of a PPD invoice, as the invoice's detail shows it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PagoDeFacturaOut {
    /// The payment CFDI's id.
    cfdi_id: String,
    /// Its UUID.
    uuid: String,
    /// The payment CFDI's date (ISO 8601, issuer's offset).
    fecha: String,
    /// When the money was received (FechaPago, issuer's local time).
    fecha_pago: String,
    num_parcialidad: i64,
    #[schema(value_type = String)]
    imp_saldo_ant: Decimal,
    #[schema(value_type = String)]
    imp_pagado: Decimal,
    #[schema(value_type = String)]
    imp_saldo_insoluto: Decimal,
}

/// A document a payment CFDI applied to, as the payment's detail shows it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoctoDePagoOut {
    /// The invoice's id.
    cfdi_id: String,
    /// Its UUID.
    uuid: String,
    num_parcialidad: i64,
    #[schema(value_type = String)]
    imp_saldo_ant: Decimal,
    #[schema(value_type = String)]
    imp_pagado: Decimal,
    #[schema(value_type = String)]
    imp_saldo_insoluto: Decimal,
    /// APLICADO, or DEVUELTO once the payment was cancelled (the amount went back).
    status: String,
}

/// What the detail of an invoice adds about payments.
#[derive(Serialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct Cobranza {
    /// PPD invoices: the balance still owed (decimal string, the invoice's currency). It
    /// already counts a live payment waiting for the PAC.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    saldo_insoluto: Option<Decimal>,
    /// PPD invoices: Σ impPagado of its stamped, not cancelled payments.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pagado: Option<Decimal>,
    /// PPD invoices: its stamped, not cancelled payments, by installment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pagos: Option<Vec<PagoDeFacturaOut>>,
    /// Payment CFDI: the invoices it paid.
    #[serde(skip_serializing_if = "Option::is_none")]
    docto_relacionados: Option<Vec<DoctoDePagoOut>>,
}

/// The payments side of invoice `id` (empty for invoices that are neither PPD nor payments).
pub async fn cobranza(
    app: &AppContext,
    empresa_id: &EmpresaId,
    id: &str,
    tipo_comprobante: &str,
) -> ApiResult<Cobranza> {
    let mut conn = app.db.conn().await?;
    if tipo_comprobante == "P" {
        let doctos = db::doctos_de(&mut conn, empresa_id, &PagoId::from(id)).await?;
        return Ok(Cobranza {
            docto_relacionados: Some(
                doctos
                    .into_iter()
                    .map(|d| DoctoDePagoOut {
                        cfdi_id: String::from(d.cfdi_id),
                        uuid: d.uuid,
                        num_parcialidad: d.num_parcialidad,
                        imp_saldo_ant: centavos(d.imp_saldo_ant.0),
                        imp_pagado: centavos(d.imp_pagado.0),
                        imp_saldo_insoluto: centavos(d.imp_saldo_insoluto.0),
                        status: d.status,
                    })
                    .collect(),
            ),
            ..Cobranza::default()
        });
    }
    let Some(saldo) = db::saldo(&mut conn, empresa_id, &CfdiId::from(id)).await? else {
        return Ok(Cobranza::default());
    };
    let pagos = db::pagos_de(&mut conn, empresa_id, &CfdiId::from(id)).await?;
    Ok(Cobranza {
        saldo_insoluto: Some(centavos(saldo.saldo_insoluto.0)),
        pagado: Some(centavos(pagos.iter().map(|p| p.imp_pagado.0).sum())),
        pagos: Some(
            pagos
                .into_iter()
                .map(|p| PagoDeFacturaOut {
                    cfdi_id: p.pago_id,
                    uuid: p.uuid,
                    fecha: credenciales::rfc3339(hora_local(p.fecha)),
                    fecha_pago: p.fecha_pago,
                    num_parcialidad: p.num_parcialidad,
                    imp_saldo_ant: centavos(p.imp_saldo_ant.0),
                    imp_pagado: centavos(p.imp_pagado.0),
                    imp_saldo_insoluto: centavos(p.imp_saldo_insoluto.0),
                })
                .collect(),
        ),
        docto_relacionados: None,
    })
}

/// CANCEL_003 when invoice `id` has payments that are not cancelled (SAT: "No cancelable"):
/// they must be cancelled first.
pub async fn exigir_sin_pagos(app: &AppContext, empresa_id: &EmpresaId, id: &str) -> ApiResult<()> {
    let vigentes = {
        let mut conn = app.db.conn().await?;
        db::pagos_vigentes(&mut conn, empresa_id, &CfdiId::from(id)).await?
    };
    sin_pagos(vigentes)
}

/// [`exigir_sin_pagos`] inside the cancellation's transaction, holding the invoice's balance
/// row: a payment being stamped either committed before (and is seen here) or waits and then
/// sees the invoice cancelled (PAGO_003).
pub async fn exigir_sin_pagos_en(tx: &mut Tx, empresa_id: &EmpresaId, id: &str, now: OffsetDateTime) -> ApiResult<()> {
    db::bloquear_saldo(tx, empresa_id, &CfdiId::from(id), now).await?;
    let vigentes = db::pagos_vigentes(tx, empresa_id, &CfdiId::from(id)).await?;
    sin_pagos(vigentes)
}

fn sin_pagos(vigentes: Vec<String>) -> ApiResult<()> {
    if vigentes.is_empty() {
        return Ok(());
    }
    Err(ApiError::new(
        Code::Cancel003,
        format!(
            "this invoice has payments that are not cancelled ({}): SAT does not cancel an invoice with payments \
             (\"No cancelable\"); cancel the payments first",
            vigentes.join(", ")
        ),
    )
    .with_details(json!({ "pagos": vigentes })))
}
