//! The dry run (issue 29, `POST /api/cfdi/validar` and `/api/cfdi/pagos/validar`): a stamping
//! body checked and built exactly as the stamp would (the same `preparar` of invoices and of
//! payments, the same catalogs and rules), answered as problems instead of an error. Nothing is
//! reserved, sealed, stored or charged: no folio is taken, no CSD is generated, no row written.

use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;
use timbra_cfdi::{Comprobante, escritura, validacion};
use utoipa::ToSchema;

use crate::error::{ApiError, ApiResult, Code, REGLA_ENTRADA};

/// Answer of a dry run. An invalid body is `valido: false` with its problems (200), never an
/// error: only malformed JSON (REQUEST_001) and the caller's access are.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct EnsayoOut {
    /// No problem found: the same body to the stamping route would be stamped (the PAC still
    /// checks what `omitidas` lists).
    pub valido: bool,
    /// Every problem at once: `regla` is SAT's matrix code (`CFDI40162`), the project's
    /// `TIMBRA_…`/`CP31_…`/`CCE20_…` id, `ENTRADA` for the body's shape, or the error code the
    /// stamp would answer (`CFDI_004` unknown customer, `PAGO_005` stale balance, …).
    pub problemas: Vec<ProblemaOut>,
    /// Checks not made here, with why: rules that need SAT's registry of taxpayers (the PAC
    /// makes them), the TipoCambio variation (no rate source), catalogs not loaded.
    pub omitidas: Vec<OmitidaOut>,
    /// The document's totals as they would be stamped; `null` when it is not valid.
    pub totales: Option<TotalesOut>,
    /// The document as it would be stamped, unsealed: no Folio (none is reserved), and
    /// `Sello`, `NoCertificado` and `Certificado` empty. `null` when it is not valid.
    pub xml: Option<String>,
}

/// One problem.
#[derive(Serialize, ToSchema, Debug)]
pub struct ProblemaOut {
    /// The rule broken.
    pub regla: String,
    /// Where: SAT's path (`Conceptos[0].ClaveProdServ`) or the body's JSON path.
    pub campo: String,
    /// What is wrong and what to fix.
    pub mensaje: String,
}

/// One check not made.
#[derive(Serialize, ToSchema, Debug)]
pub struct OmitidaOut {
    /// SAT's matrix code(s), or `TIMBRA_CATALOGO` for a catalog this installation lacks.
    pub regla: String,
    /// Why it is not checked here.
    pub motivo: String,
}

/// Totals of the document, decimal strings as written in the XML.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct TotalesOut {
    #[schema(value_type = String)]
    pub sub_total: Decimal,
    #[schema(value_type = String)]
    pub descuento: Decimal,
    #[schema(value_type = String)]
    pub total_impuestos_trasladados: Decimal,
    #[schema(value_type = String)]
    pub total_impuestos_retenidos: Decimal,
    #[schema(value_type = String)]
    pub total: Decimal,
}

/// The matrix rules no offline check can make (crates/cfdi/REGLAS.md, "Skipped"): the PAC
/// and SAT make them at stamping. The TipoCambio variation is here because no rate source is
/// configured, and a stale built-in rate must never refuse a document (issue 29).
pub const OMITIDAS_SIEMPRE: &[(&str, &str)] = &[
    (
        "CFDI40118, CFDI40127-CFDI40129",
        "TipoCambio within c_Moneda's variation of the day's published rate: no rate source is configured",
    ),
    ("CFDI40120", "a Total above SAT's limit needs the PAC's Confirmacion key"),
    ("CFDI40106", "the certificate in force and the issuer's: SAT's certificate registry (LCO)"),
    ("CFDI40138, CFDI40139", "the issuer's name as registered: SAT's registry of taxpayers (l_RFC)"),
    ("CFDI40143-CFDI40145", "the receiver's RFC registered and its name: SAT's registry of taxpayers (l_RFC)"),
    (
        "CFDI40147, CFDI40148",
        "DomicilioFiscalReceptor is the receiver's registered postal code: SAT's registry (l_RFC)",
    ),
    ("CFDI40187-CFDI40193", "ACuentaTerceros RFC, name and postal code: SAT's registry (l_RFC)"),
];

/// The dry run's answer for a document `preparar` built and validated: valid, with its totals,
/// its unsealed XML and what was not checked. `catalogos` and `contexto` are the stamp's.
pub fn valido(
    comprobante: &Comprobante,
    catalogos: &dyn timbra_cfdi::catalogos::Catalogos,
    contexto: validacion::Contexto,
) -> ApiResult<EnsayoOut> {
    // `preparar` validated it already; this second pass (microseconds) gives the checks the
    // loaded catalogs could not make, which `preparar` does not keep.
    let informe = validacion::validar_con(comprobante, catalogos, contexto);
    let xml = escritura::escribir(comprobante).map_err(super::timbrado::error_escritura)?;
    let valor = |n: &timbra_cfdi::numero::Numero| n.valor().unwrap_or_default();
    let impuestos = comprobante.impuestos.as_ref();
    let totales = TotalesOut {
        sub_total: valor(&comprobante.sub_total),
        descuento: comprobante.descuento.as_ref().map(valor).unwrap_or_default(),
        total_impuestos_trasladados: impuestos
            .and_then(|i| i.total_impuestos_trasladados.as_ref())
            .map(valor)
            .unwrap_or_default(),
        total_impuestos_retenidos: impuestos
            .and_then(|i| i.total_impuestos_retenidos.as_ref())
            .map(valor)
            .unwrap_or_default(),
        total: valor(&comprobante.total),
    };
    Ok(EnsayoOut {
        valido: informe.es_valido(),
        problemas: informe
            .problemas
            .into_iter()
            .map(|p| ProblemaOut { regla: p.regla.to_owned(), campo: p.campo, mensaje: p.mensaje })
            .collect(),
        omitidas: omitidas(&informe.omitidas),
        totales: Some(totales),
        xml: Some(xml),
    })
}

/// The dry run's answer for what the stamp would refuse for the document itself: its
/// problems, `valido: false`. Errors that are not about the document (access, the company,
/// the database) stay errors.
pub fn invalido(error: ApiError) -> ApiResult<EnsayoOut> {
    let del_documento = matches!(
        error.code,
        Code::Cfdi001 | Code::Cfdi004 | Code::Pago001 | Code::Pago002 | Code::Pago003 | Code::Pago004 | Code::Pago005
    );
    if !del_documento {
        return Err(error);
    }
    let problemas = problemas_de(&error);
    Ok(EnsayoOut { valido: false, problemas, omitidas: omitidas(&[]), totales: None, xml: None })
}

/// The problems an error carries: `details.problemas` (with their rules) when it has them,
/// else `details.fields` under the error's code, else its message.
fn problemas_de(error: &ApiError) -> Vec<ProblemaOut> {
    let texto = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    if let Some(lista) = error.details.get("problemas").and_then(Value::as_array) {
        return lista
            .iter()
            .map(|p| ProblemaOut { regla: texto(p, "regla"), campo: texto(p, "campo"), mensaje: texto(p, "mensaje") })
            .collect();
    }
    let codigo = error.code.as_str().to_owned();
    // CFDI_001 without rules is a problem of the body's shape (ENTRADA, as `ApiError::reglas`).
    let regla = if error.code == Code::Cfdi001 { REGLA_ENTRADA.to_owned() } else { codigo };
    match error.details.get("fields").and_then(Value::as_array) {
        Some(campos) if !campos.is_empty() => campos
            .iter()
            .map(|f| ProblemaOut { regla: regla.clone(), campo: texto(f, "field"), mensaje: texto(f, "message") })
            .collect(),
        _ => vec![ProblemaOut { regla, campo: String::new(), mensaje: error.message.clone() }],
    }
}

/// [`OMITIDAS_SIEMPRE`] and what validation skipped (`Informe::omitidas`): a catalog not
/// held, or Fecha's 72 hours when there is no moment of certification (the validator).
pub fn omitidas(del_informe: &[String]) -> Vec<OmitidaOut> {
    OMITIDAS_SIEMPRE
        .iter()
        .map(|(regla, motivo)| OmitidaOut { regla: (*regla).to_owned(), motivo: (*motivo).to_owned() })
        .chain(del_informe.iter().map(|omitida| {
            if omitida.starts_with("Fecha") {
                OmitidaOut {
                    regla: "TIMBRA_FECHA_72_HORAS".to_owned(),
                    motivo: "Fecha within 72 hours of certification is checked when a document is stamped".to_owned(),
                }
            } else {
                OmitidaOut {
                    regla: "TIMBRA_CATALOGO".to_owned(),
                    motivo: format!("{omitida}: this SAT catalog is not loaded in this installation"),
                }
            }
        }))
        .collect()
}
