//! Retentions (CFDI de Retenciones e Información de Pagos 2.0): the company's list with their
//! XML and PDF, and a form for the common case (ISR and IVA withheld from one receiver for a
//! period). The page calls the services and the store directly (no API handler in process):
//! `timbra_services::cfdi::retenciones::timbrar` stamps as `POST /api/retenciones/timbrar` does.

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use maud::html;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use sha2::Digest;

use super::layout::{
    Columna, Contexto, Errores, Tipo, caja_errores, campo, campo_con, csrf_oculto, listado, pagina, paginas_breves,
    seleccion,
};
use super::{Accion, Campos, Pagina, Vista, html_con, paging, paging_de, pesos, redirigir};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::{links, retenciones};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code, FieldProblem};
use timbra_store::Paging;
use timbra_store::retenciones::Filtro;

/// Routes of the retentions page.
pub fn rutas() -> Router<AppContext> {
    Router::new().route("/panel/retenciones", get(lista).post(emitir))
}

/// The kinds of retention the form offers (c_CveRetenc; the API takes every code).
const CLAVES: &[(&str, &str)] = &[
    ("01", "01 · Servicios profesionales"),
    ("05", "05 · Arrendamiento"),
    ("14", "14 · Dividendos o utilidades distribuidas"),
    ("16", "16 · Intereses"),
    ("18", "18 · Pagos a residentes en el extranjero"),
    ("20", "20 · Obtención de premios"),
    ("25", "25 · Otro tipo de retenciones"),
];

const MESES: &[(&str, &str)] = &[
    ("01", "Enero"),
    ("02", "Febrero"),
    ("03", "Marzo"),
    ("04", "Abril"),
    ("05", "Mayo"),
    ("06", "Junio"),
    ("07", "Julio"),
    ("08", "Agosto"),
    ("09", "Septiembre"),
    ("10", "Octubre"),
    ("11", "Noviembre"),
    ("12", "Diciembre"),
];

/// `GET /panel/retenciones`.
pub async fn lista(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
    pagina_retenciones(&app, &ctx, paging(&params)?, &Campos::default(), &Errores::default()).await
}

async fn pagina_retenciones(
    app: &AppContext,
    ctx: &Contexto,
    paging: Paging,
    form: &Campos,
    errores: &Errores,
) -> Pagina {
    let empresa = ctx.empresa()?;
    ctx.session.caller.authorize(app, &empresa.id, Permission::CfdiView).await?;
    let (filas, total) = {
        let mut conn = app.db.conn().await?;
        timbra_store::retenciones::listar(&mut conn, &empresa.id, &Filtro::default(), paging.page_size, paging.offset())
            .await?
    };
    let secret = app.cfdi.link_secret()?;
    let now = app.clock.now().unix_timestamp();
    let valor = |nombre: &str| form.valor(nombre).map(str::to_owned);
    let ejercicio = valor("ejercicio").unwrap_or_else(|| app.clock.now().year().to_string());
    let contenido = html! {
        p { "Las constancias de retenciones (CFDI de Retenciones e Información de Pagos 2.0) amparan el ISR y el IVA "
            "que su empresa retuvo a otros en un periodo. Se cancelan sin aceptación del receptor." }
        section aria-labelledby="emitidas" {
            h2 id="emitidas" { "Retenciones emitidas" }
            (listado(
                &filas[..],
                html! { "Aún no hay retenciones." },
                html! { "Retenciones, la más reciente primero" },
                &[Columna::Texto("Folio"), Columna::Texto("Receptor"), Columna::Texto("Periodo"), Columna::Importe("Operación"), Columna::Importe("Retenido"), Columna::Texto("Estado"), Columna::Texto("Archivos")],
                |r| html! {
                    tr {
                        td data-titulo="Folio" { (r.folio_int.clone().unwrap_or_default()) br; small.uuid { (r.uuid) } }
                        td data-titulo="Receptor" { (r.receptor_nombre) br; small { (r.receptor_rfc.clone().unwrap_or_else(|| r.nacionalidad.clone())) } }
                        td data-titulo="Periodo" { (format!("{:02}–{:02}/{}", r.mes_ini, r.mes_fin, r.ejercicio)) }
                        td.importe data-titulo="Operación" { (pesos(r.monto_tot_operacion.0)) }
                        td.importe data-titulo="Retenido" { (pesos(r.monto_tot_ret.0)) }
                        td data-titulo="Estado" { (r.status) }
                        td data-titulo="Archivos" {
                            @if let Some(xml) = &r.xml_url {
                                a href=(links::url(&secret, xml, now)) { "XML" } " · "
                                a href=(links::url(&secret, &links::ruta_pdf(xml), now)) { "PDF" }
                            }
                        }
                    }
                },
                Some(paginas_breves("/panel/retenciones", total, paging)),
            ))
        }
        section aria-labelledby="nueva" {
            h2 id="nueva" { "Emitir una retención" }
            @if !empresa.sandbox {
                p.aviso { "Su empresa está en modo real: la retención se timbra con su PAC, gasta un timbre y tiene validez fiscal." }
            }
            (caja_errores(errores))
            @if let Some((error, problemas)) = errores.error.as_ref().and_then(|e| e.problemas().map(|p| (e, p))) {
                ul.problemas role="alert" {
                    @for p in &problemas {
                        li {
                            (super::problemas::problema(error.code, &p.field).linea())
                            @if let Some(regla) = p.regla.as_deref().filter(|r| *r != timbra_services::error::REGLA_ENTRADA) {
                                " (regla " code { (regla) } ")"
                            }
                        }
                    }
                }
            }
            form method="post" action="/panel/retenciones" {
                (csrf_oculto(&ctx.session))
                (seleccion("cveRetenc", "Tipo de retención", CLAVES, form.valor("cveRetenc"), errores))
                (campo_con("descRetenc", "Descripción (obligatoria con «25 · Otro»)", Tipo::Texto, form.valor("descRetenc"), false, errores, None))
                (campo("rfcR", "RFC del receptor", Tipo::Texto, form.valor("rfcR"), true, errores))
                (campo("nomDenRazSocR", "Nombre o razón social del receptor", Tipo::Texto, form.valor("nomDenRazSocR"), true, errores))
                (campo("domicilioFiscalR", "Código postal del receptor", Tipo::Texto, form.valor("domicilioFiscalR"), true, errores))
                (seleccion("mesIni", "Mes inicial", MESES, form.valor("mesIni"), errores))
                (seleccion("mesFin", "Mes final", MESES, form.valor("mesFin"), errores))
                (campo("ejercicio", "Ejercicio", Tipo::Texto, Some(&ejercicio), true, errores))
                (campo("montoTotOperacion", "Monto de la operación", Tipo::Importe, form.valor("montoTotOperacion"), true, errores))
                (campo_con("montoTotGrav", "Monto gravado", Tipo::Importe, form.valor("montoTotGrav"), false, errores, Some("Si lo deja vacío, toda la operación es gravada.")))
                (campo("isrRetenido", "ISR retenido", Tipo::Importe, form.valor("isrRetenido"), false, errores))
                (campo("ivaRetenido", "IVA retenido", Tipo::Importe, form.valor("ivaRetenido"), false, errores))
                button type="submit" { "Timbrar retención" }
            }
        }
    };
    Ok(html_con(errores.status(), pagina(ctx, "Retenciones", "/panel/retenciones", contenido)))
}

/// A form amount, or a field problem naming it.
fn importe(campos: &Campos, nombre: &str) -> Result<Option<Decimal>, FieldProblem> {
    match campos.valor(nombre) {
        None => Ok(None),
        Some(texto) => texto
            .replace([',', '$'], "")
            .parse::<Decimal>()
            .map(Some)
            .map_err(|_| FieldProblem::new(nombre, format!("«{texto}» no es un importe (use por ejemplo 1500.00)"))),
    }
}

/// The API body of the form: one national receiver, ISR and IVA withheld as definitive
/// payments (c_TipoPagoRet 03 and 01), the operation all taxed unless `montoTotGrav` says.
fn cuerpo(campos: &Campos) -> Result<Value, ApiError> {
    let invalido = |problemas: Vec<FieldProblem>| ApiError::reglas(Code::Retencion001, problemas);
    let mut problemas = Vec::new();
    let mut leer = |nombre| {
        importe(campos, nombre).unwrap_or_else(|p| {
            problemas.push(p);
            None
        })
    };
    let (operacion, gravado, isr, iva) =
        (leer("montoTotOperacion"), leer("montoTotGrav"), leer("isrRetenido"), leer("ivaRetenido"));
    if !problemas.is_empty() {
        return Err(invalido(problemas));
    }
    let operacion = operacion.unwrap_or_default();
    let gravado = gravado.unwrap_or(operacion);
    let mut retenidos = Vec::new();
    if let Some(isr) = isr.filter(|m| !m.is_zero()) {
        retenidos.push(json!({ "baseRet": gravado.to_string(), "impuestoRet": "001", "montoRet": isr.to_string(), "tipoPagoRet": "03" }));
    }
    if let Some(iva) = iva.filter(|m| !m.is_zero()) {
        retenidos.push(json!({ "baseRet": gravado.to_string(), "impuestoRet": "002", "montoRet": iva.to_string(), "tipoPagoRet": "01" }));
    }
    let mut body = json!({
        "cveRetenc": campos.valor("cveRetenc").unwrap_or("01"),
        "receptor": {
            "nacionalidad": "Nacional",
            "rfcR": campos.valor("rfcR").unwrap_or_default().to_uppercase(),
            "nomDenRazSocR": campos.valor("nomDenRazSocR").unwrap_or_default(),
            "domicilioFiscalR": campos.valor("domicilioFiscalR").unwrap_or_default(),
        },
        "periodo": {
            "mesIni": campos.valor("mesIni").unwrap_or("01"),
            "mesFin": campos.valor("mesFin").unwrap_or("01"),
            "ejercicio": campos.valor("ejercicio").unwrap_or_default(),
        },
        "totales": {
            "montoTotOperacion": operacion.to_string(),
            "montoTotGrav": gravado.to_string(),
            "montoTotExent": (operacion - gravado).to_string(),
        },
        "impRetenidos": retenidos,
    });
    if let Some(descripcion) = campos.valor("descRetenc") {
        body["descRetenc"] = json!(descripcion);
    }
    Ok(body)
}

/// `POST /panel/retenciones`: stamps the form's retention, back to the list with a notice.
pub async fn emitir(State(app): State<AppContext>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let resultado = async {
        let access = ctx.session.caller.authorize(&app, &empresa_id, Permission::CfdiTimbrar).await?;
        let body = cuerpo(&campos)?;
        // A double submission of the same form is the same request (a live retry resends it).
        let hash = hex::encode(sha2::Sha256::digest(body.to_string().as_bytes()));
        retenciones::timbrar(&app, &empresa_id, &ctx.session.caller.user_id, access.mode(), None, body, hash).await
    }
    .await;
    match resultado {
        Ok(_) => Ok(redirigir("/panel/retenciones?aviso=retencion-timbrada")),
        Err(error) => pagina_retenciones(&app, &ctx, paging_de(1)?, &campos, &Errores::de(error)).await,
    }
}
