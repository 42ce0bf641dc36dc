//! Payroll: the gross-to-net calculator (the same calculation as `POST /api/nomina/calcular`,
//! figures updated as the person types through htmx), employees (list with search, create,
//! edit, deactivate and re-activate) and pay periods (list, create, calculate, stamp, the
//! receipts with their XML and PDF). Each action calls the services the API's `/api/nomina`
//! routes call (`timbra_services::nomina`, `cfdi::nomina::timbrar_periodo`), with the same
//! permissions.

use std::collections::HashMap;
use timbra_store::ids::{EmpresaId, PeriodoId};

use axum::Router;
use axum::extract::{Path as AxumPath, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use maud::{Markup, html};
use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::layout::{
    Columna, Contexto, Errores, Tipo, busqueda, caja_errores, campo_con, contexto, csrf_oculto, listado, pagina,
    paginas_de, seleccion,
};
use super::{
    Accion, Campos, Formulario, Pagina, Session, Vista, cuerpo, descarga, html_con, html_ok, paging, paging_de, pesos,
    redirigir,
};
use timbra_nomina::ResultadoNomina;
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::archivos;
use timbra_services::context::AppContext;
use timbra_services::error::ApiError;
use timbra_services::nomina::empleados::{self, Clave, Empleados};
use timbra_services::nomina::recibo::{self, ReciboOut};
use timbra_services::nomina::{Empleado, PeriodicidadPago, periodos};
use timbra_services::scoped;
use timbra_services::validate::RawAmount;
use timbra_store::Paging;
use timbra_store::nomina::PeriodoRow;

/// Path of the calculator (the payroll section's first page).
pub const RUTA: &str = "/panel/nomina";
const EMPLEADOS: &str = "/panel/nomina/empleados";
const PERIODOS: &str = "/panel/nomina/periodos";

/// Routes of the payroll pages.
pub fn rutas() -> Router<AppContext> {
    Router::new()
        .route(RUTA, get(calculadora))
        .route("/panel/nomina/calculadora", post(calcular_form))
        .route(EMPLEADOS, get(lista_empleados).post(crear_empleado))
        .route("/panel/nomina/empleados/nuevo", get(nuevo_empleado))
        .route("/panel/nomina/empleados/{id}", get(ficha_empleado).post(editar_empleado))
        .route("/panel/nomina/empleados/{id}/baja", post(baja_empleado))
        .route("/panel/nomina/empleados/{id}/alta", post(alta_empleado))
        .route(PERIODOS, get(lista_periodos).post(crear_periodo))
        .route("/panel/nomina/periodos/{id}", get(detalle_periodo))
        .route("/panel/nomina/periodos/{id}/calcular", post(calcular_periodo))
        .route("/panel/nomina/periodos/{id}/timbrar", post(timbrar_periodo))
        .route("/panel/nomina/recibos/{id}/xml", get(recibo_xml))
        .route("/panel/nomina/recibos/{id}/pdf", get(recibo_pdf))
}

/// The notice of a finished action (query `hecho`).
fn aviso(params: &HashMap<String, String>) -> Option<&'static str> {
    Some(match params.get("hecho").map(String::as_str)? {
        "empleado-creado" => "Empleado registrado.",
        "empleado-guardado" => "Empleado guardado.",
        "baja" => "Empleado dado de baja: ya no recibe recibos; su historial se conserva.",
        "alta" => "Empleado reactivado.",
        "periodo-creado" => "Periodo creado. Calcúlelo cuando las incidencias estén aprobadas.",
        "calculado" => "Periodo calculado.",
        "timbrado" => "Timbrado terminado: vea el estado de cada recibo.",
        _ => return None,
    })
}

/// The section's own links (calculator, employees, periods).
fn subnav(actual: &str) -> Markup {
    let enlaces = [(RUTA, "Calculadora"), (EMPLEADOS, "Empleados"), (PERIODOS, "Periodos")];
    html! {
        nav aria-label="Nómina" {
            ul.acciones {
                @for (ruta, nombre) in enlaces {
                    li { a href=(ruta) aria-current=[(ruta == actual).then_some("page")] { (nombre) } }
                }
            }
        }
    }
}

const PERIODICIDADES_CALCULO: &[(&str, &str)] = &[
    ("quincenal", "Quincenal"),
    ("semanal", "Semanal"),
    ("decenal", "Decenal"),
    ("catorcenal", "Catorcenal"),
    ("mensual", "Mensual"),
];
const RIESGOS: &[(&str, &str)] =
    &[("1", "Clase I"), ("2", "Clase II"), ("3", "Clase III"), ("4", "Clase IV"), ("5", "Clase V")];
const ZONAS: &[(&str, &str)] = &[("general", "General"), ("frontera", "Zona Libre de la Frontera Norte")];

/// The calculator's body: the form's fields under the API's names, one optional extra
/// perception and deduction.
fn cuerpo_calculo(campos: &Campos) -> Value {
    let mut body = campos.objeto(&[
        "salarioDiario",
        "salarioDiarioIntegrado",
        "diasPagados",
        "periodicidad",
        "riesgoPuesto",
        "zona",
        "fechaPago",
    ]);
    if campos.valor("percepcionImporte").is_some() || campos.valor("percepcionTipo").is_some() {
        body["percepciones"] = json!([{
            "tipo": campos.valor("percepcionTipo").unwrap_or_default(),
            "concepto": campos.valor("percepcionConcepto").unwrap_or("Percepción adicional"),
            "importe": campos.valor("percepcionImporte").unwrap_or_default(),
        }]);
    }
    if campos.valor("deduccionImporte").is_some() || campos.valor("deduccionTipo").is_some() {
        body["deducciones"] = json!([{
            "tipo": campos.valor("deduccionTipo").unwrap_or_default(),
            "concepto": campos.valor("deduccionConcepto").unwrap_or("Deducción adicional"),
            "importe": campos.valor("deduccionImporte").unwrap_or_default(),
        }]);
    }
    body
}

/// An amount cell: MXN for people, the exact figure in `data-valor`.
fn importe(campo: &str, value: Decimal) -> Markup {
    html! { td.importe data-campo=(campo) data-valor=(value.to_string()) { (pesos(value)) } }
}

/// The calculator's answer: figures, or the problems (id `resultado`, swapped by htmx).
fn resultado(resultado: Option<&ResultadoNomina>, errores: &Errores) -> Markup {
    html! {
        section id="resultado" aria-live="polite" aria-labelledby="resultado-titulo" {
            h2 id="resultado-titulo" { "Resultado" }
            (caja_errores(errores))
            @for problema in errores.con_prefijo("percepciones").into_iter().chain(errores.con_prefijo("deducciones")) {
                p.problemas { (problema.linea()) }
            }
            @if let Some(r) = resultado {
                @let p = &r.percepciones;
                @let d = &r.deducciones;
                @let o = &r.otros_pagos;
                @let g = &r.desglose;
                table.totales {
                    caption { "Del bruto al neto" }
                    tbody {
                        tr { th scope="row" { "Sueldo base" } (importe("sueldoBase", p.sueldo_base)) }
                        tr { th scope="row" { "Percepciones gravadas" } (importe("totalGravado", p.total_gravado)) }
                        tr { th scope="row" { "Percepciones exentas" } (importe("totalExento", p.total_exento)) }
                        tr { th scope="row" { "Total percepciones" } (importe("totalPercepciones", p.total_percepciones)) }
                        tr { th scope="row" { "ISR según tarifa" } (importe("isrBruto", d.isr_bruto)) }
                        tr { th scope="row" { "Subsidio para el empleo aplicado" } (importe("subsidioAlEmpleo", d.subsidio_al_empleo)) }
                        tr { th scope="row" { "ISR retenido" } (importe("isrRetenido", d.isr_retenido)) }
                        tr { th scope="row" { "Cuotas IMSS del trabajador" } (importe("imssEmpleado", d.imss_empleado)) }
                        tr { th scope="row" { "Total deducciones" } (importe("totalDeducciones", d.total_deducciones)) }
                        tr { th scope="row" { "Otros pagos" } (importe("totalOtrosPagos", o.total_otros_pagos)) }
                        tr.total { th scope="row" { "Neto a pagar" } (importe("netoAPagar", r.neto_a_pagar)) }
                    }
                }
                details {
                    summary { "Cómo se calculó" }
                    table {
                        caption { "Desglose (" (g.tarifa_isr) ", parámetros al " (g.fecha_parametros) ")" }
                        tbody {
                            tr { th scope="row" { "Base gravable ISR" } (importe("baseGravableISR", g.base_gravable_isr)) }
                            tr { th scope="row" { "Tabla" } td { (g.tabla_isr) } }
                            tr { th scope="row" { "Límite inferior" } (importe("limiteInferior", g.limite_inferior)) }
                            tr { th scope="row" { "Excedente del límite inferior" } (importe("excedenteLimInf", g.excedente_lim_inf)) }
                            tr { th scope="row" { "Tasa marginal" } td { (g.rango_isr) } }
                            tr { th scope="row" { "ISR marginal" } (importe("isrMarginal", g.isr_marginal)) }
                            tr { th scope="row" { "Cuota fija" } (importe("cuotaFija", g.cuota_fija)) }
                            tr { th scope="row" { "Subsidio causado" } (importe("subsidioCausado", g.subsidio_causado)) }
                            tr { th scope="row" { "Salario base de cotización" } (importe("salarioBaseCotizacion", g.salario_base_cotizacion)) }
                            tr { th scope="row" { "IMSS enfermedad y maternidad" } (importe("enfermedadYMaternidad", g.imss_desglose.enfermedad_y_maternidad)) }
                            tr { th scope="row" { "IMSS invalidez y vida" } (importe("invalidezYVida", g.imss_desglose.invalidez_y_vida)) }
                            tr { th scope="row" { "IMSS cesantía y vejez" } (importe("cesantiaYVejez", g.imss_desglose.cesantia_y_vejez)) }
                        }
                    }
                }
            } @else if errores.error.is_none() {
                p { "Escriba el salario y los días: el resultado aparece aquí." }
            }
        }
    }
}

fn pagina_calculadora(ctx: &Contexto, campos: &Campos, calculo: Option<&ResultadoNomina>, errores: &Errores) -> Markup {
    let contenido = html! {
        (subnav(RUTA))
        p { "ISR (artículo 96 LISR), subsidio para el empleo y cuotas IMSS del trabajador con los parámetros vigentes a la fecha de pago: "
            "las mismas cifras que la API (" code { "POST /api/nomina/calcular" } ") y que los recibos timbrados." }
        form id="calculadora" method="post" action="/panel/nomina/calculadora"
            hx-post="/panel/nomina/calculadora" hx-trigger="submit, input delay:400ms, change"
            hx-target="#resultado" hx-swap="outerHTML" {
            (csrf_oculto(&ctx.session))
            div.linea {
                (campo_con("salarioDiario", "Salario diario", Tipo::Importe, campos.valor("salarioDiario"), true, errores, None))
                (campo_con("salarioDiarioIntegrado", "Salario diario integrado", Tipo::Importe, campos.valor("salarioDiarioIntegrado"), true, errores,
                    Some("SDI (artículo 27 LSS)")))
                (campo_con("diasPagados", "Días pagados", Tipo::Importe, Some(campos.valor("diasPagados").unwrap_or("15")), true, errores, None))
                (seleccion("periodicidad", "Periodicidad", PERIODICIDADES_CALCULO, campos.valor("periodicidad"), errores))
                (seleccion("riesgoPuesto", "Riesgo de puesto", RIESGOS, campos.valor("riesgoPuesto"), errores))
                (seleccion("zona", "Zona del salario mínimo", ZONAS, campos.valor("zona"), errores))
                (campo_con("fechaPago", "Fecha de pago", Tipo::Texto, campos.valor("fechaPago"), false, errores,
                    Some("AAAA-MM-DD; vacía = hoy")))
            }
            fieldset {
                legend { "Percepción adicional (opcional)" }
                div.linea {
                    (campo_con("percepcionTipo", "Tipo (c_TipoPercepcion)", Tipo::Texto, campos.valor("percepcionTipo"), false, errores,
                        Some("p. ej. 002 aguinaldo, 019 horas extra")))
                    (campo_con("percepcionConcepto", "Concepto", Tipo::Texto, campos.valor("percepcionConcepto"), false, errores, None))
                    (campo_con("percepcionImporte", "Importe", Tipo::Importe, campos.valor("percepcionImporte"), false, errores, None))
                }
            }
            fieldset {
                legend { "Deducción adicional (opcional)" }
                div.linea {
                    (campo_con("deduccionTipo", "Tipo (c_TipoDeduccion)", Tipo::Texto, campos.valor("deduccionTipo"), false, errores,
                        Some("p. ej. 004 otros, 010 vivienda")))
                    (campo_con("deduccionConcepto", "Concepto", Tipo::Texto, campos.valor("deduccionConcepto"), false, errores, None))
                    (campo_con("deduccionImporte", "Importe", Tipo::Importe, campos.valor("deduccionImporte"), false, errores, None))
                }
            }
            button type="submit" { "Calcular" }
        }
        (resultado(calculo, errores))
    };
    pagina(ctx, "Nómina: calculadora de sueldo neto", RUTA, contenido)
}

/// `GET /panel/nomina`: the calculator.
async fn calculadora(vista: Vista) -> Pagina {
    let ctx = vista.ctx;
    Ok(html_ok(pagina_calculadora(&ctx, &Campos::default(), None, &Errores::default())))
}

/// `POST /panel/nomina/calculadora`: the calculation of `POST /api/nomina/calcular`; htmx gets
/// the result section only
/// (always 200, so htmx swaps the problems in too), a plain form the whole page.
async fn calcular_form(State(app): State<AppContext>, headers: HeaderMap, formulario: Formulario) -> Pagina {
    let Formulario { session, campos } = formulario;
    let calculo = cuerpo(cuerpo_calculo(&campos)).and_then(|body| timbra_services::nomina::calcular_neto(&body));
    let (calculo, errores) = match calculo {
        Ok(calculo) => (Some(calculo), Errores::default()),
        Err(error) => (None, Errores::de(error)),
    };
    if headers.contains_key("hx-request") {
        return Ok(html_ok(resultado(calculo.as_ref(), &errores)));
    }
    let ctx = contexto(&app, session, &headers, &HashMap::new()).await?;
    Ok(html_con(errores.status(), pagina_calculadora(&ctx, &campos, calculo.as_ref(), &errores)))
}

/// A field of the employee form.
enum Entrada {
    Texto(Tipo, Option<&'static str>),
    Lista(&'static [(&'static str, &'static str)]),
}

const PERIODICIDADES: &[(&str, &str)] =
    &[("QUINCENAL", "Quincenal"), ("SEMANAL", "Semanal"), ("CATORCENAL", "Catorcenal"), ("MENSUAL", "Mensual")];
const CONTRATOS: &[(&str, &str)] = &[
    ("01", "01 Por tiempo indeterminado"),
    ("02", "02 Para obra determinada"),
    ("03", "03 Por tiempo determinado"),
    ("04", "04 Por temporada"),
    ("05", "05 Sujeto a prueba"),
    ("06", "06 Con capacitación inicial"),
    ("07", "07 Por pago de hora laborada"),
    ("08", "08 Por comisión laboral"),
    ("09", "09 Sin relación de trabajo"),
    ("10", "10 Jubilación, pensión, retiro"),
    ("99", "99 Otro contrato"),
];
const JORNADAS: &[(&str, &str)] = &[
    ("", "Sin especificar"),
    ("01", "01 Diurna"),
    ("02", "02 Nocturna"),
    ("03", "03 Mixta"),
    ("04", "04 Por hora"),
    ("05", "05 Reducida"),
    ("06", "06 Continuada"),
    ("07", "07 Partida"),
    ("08", "08 Por turnos"),
    ("99", "99 Otra jornada"),
];

const CAMPOS_EMPLEADO: &[(&str, &str, bool, Entrada)] = &[
    ("numEmpleado", "Número de empleado", true, Entrada::Texto(Tipo::Texto, Some("Hasta 15 caracteres"))),
    ("nombre", "Nombre", true, Entrada::Texto(Tipo::Texto, Some("Como en su Constancia de Situación Fiscal"))),
    ("rfc", "RFC", true, Entrada::Texto(Tipo::Texto, None)),
    ("curp", "CURP", true, Entrada::Texto(Tipo::Texto, None)),
    (
        "nss",
        "Número de seguridad social (NSS)",
        false,
        Entrada::Texto(Tipo::Texto, Some("11 dígitos; obligatorio para contratos 01 a 08")),
    ),
    ("codigoPostal", "Código postal del domicilio fiscal", true, Entrada::Texto(Tipo::Texto, None)),
    ("fechaInicioRelLaboral", "Inicio de la relación laboral", true, Entrada::Texto(Tipo::Texto, Some("AAAA-MM-DD"))),
    ("salarioDiario", "Salario diario", true, Entrada::Texto(Tipo::Importe, None)),
    (
        "salarioDiarioIntegrado",
        "Salario diario integrado",
        true,
        Entrada::Texto(Tipo::Importe, Some("No menor que el salario diario")),
    ),
    ("periodicidad", "Periodicidad de pago", true, Entrada::Lista(PERIODICIDADES)),
    ("tipoContrato", "Tipo de contrato", true, Entrada::Lista(CONTRATOS)),
    ("tipoJornada", "Tipo de jornada", false, Entrada::Lista(JORNADAS)),
    ("riesgoPuesto", "Riesgo de puesto", true, Entrada::Lista(RIESGOS)),
    (
        "claveEntFed",
        "Entidad federativa donde trabaja",
        true,
        Entrada::Texto(Tipo::Texto, Some("Clave c_Estado, p. ej. CMX, JAL, NLE")),
    ),
    ("departamento", "Departamento", false, Entrada::Texto(Tipo::Texto, None)),
    ("puesto", "Puesto", false, Entrada::Texto(Tipo::Texto, None)),
    ("banco", "Banco (c_Banco)", false, Entrada::Texto(Tipo::Texto, Some("3 dígitos; no hace falta con CLABE"))),
    ("cuentaBancaria", "Cuenta, tarjeta o CLABE", false, Entrada::Texto(Tipo::Texto, None)),
];

/// The stored value of the employee form's field `nombre`.
fn guardado_empleado(e: &Empleado, nombre: &str) -> Option<String> {
    let texto = |t: &str| Some(t.to_owned());
    match nombre {
        "numEmpleado" => texto(&e.num_empleado),
        "nombre" => texto(&e.nombre),
        "rfc" => texto(&e.rfc),
        "curp" => texto(&e.curp),
        "nss" => e.nss.clone(),
        "codigoPostal" => texto(&e.codigo_postal),
        "fechaInicioRelLaboral" => texto(&e.fecha_inicio_rel_laboral),
        "salarioDiario" => Some(e.salario_diario.to_string()),
        "salarioDiarioIntegrado" => Some(e.salario_diario_integrado.to_string()),
        "periodicidad" => texto(&e.periodicidad),
        "tipoContrato" => texto(&e.tipo_contrato),
        "tipoJornada" => e.tipo_jornada.clone(),
        "riesgoPuesto" => texto(&e.riesgo_puesto),
        "claveEntFed" => texto(&e.clave_ent_fed),
        "departamento" => e.departamento.clone(),
        "puesto" => e.puesto.clone(),
        "banco" => e.banco.clone(),
        "cuentaBancaria" => e.cuenta_bancaria.clone(),
        _ => None,
    }
}

/// What a field shows: what was typed (after a failure), else the stored value.
fn valor_empleado(campos: &Campos, guardado: Option<&Empleado>, nombre: &str) -> Option<String> {
    if !campos.0.is_empty() {
        return campos.valor(nombre).map(str::to_owned);
    }
    guardado_empleado(guardado?, nombre)
}

fn form_empleado(
    ctx: &Contexto,
    accion: &str,
    guardado: Option<&Empleado>,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    html! {
        (caja_errores(errores))
        form method="post" action=(accion) {
            (csrf_oculto(&ctx.session))
            div.linea {
                @for (nombre, etiqueta, requerido, entrada) in CAMPOS_EMPLEADO {
                    @let valor = valor_empleado(campos, guardado, nombre);
                    @match entrada {
                        Entrada::Texto(tipo, ayuda) => (campo_con(nombre, etiqueta, *tipo, valor.as_deref(), *requerido, errores, *ayuda)),
                        Entrada::Lista(opciones) => (seleccion(nombre, etiqueta, opciones, valor.as_deref(), errores)),
                    }
                }
            }
            button type="submit" { @if guardado.is_some() { "Guardar cambios" } @else { "Registrar empleado" } }
        }
    }
}

/// The employee's fields of the form: on creation only the fields filled in; on edit every
/// field sent, so an emptied optional field is cleared.
fn campos_empleado(campos: &Campos, edicion: bool) -> empleados::Campos {
    let v = |nombre: &str| match campos.valor(nombre) {
        Some(valor) => Some(valor.to_owned()),
        None if edicion && campos.0.iter().any(|(k, _)| k == nombre) => Some(String::new()),
        None => None,
    };
    let importe = |nombre: &str| v(nombre).map(|t| RawAmount::from_text(&t));
    let clave = |nombre: &str| v(nombre).map(|t| Clave::texto(&t));
    empleados::Campos {
        num_empleado: v("numEmpleado"),
        nombre: v("nombre"),
        rfc: v("rfc"),
        curp: v("curp"),
        nss: v("nss"),
        codigo_postal: v("codigoPostal"),
        fecha_inicio_rel_laboral: v("fechaInicioRelLaboral"),
        salario_diario: importe("salarioDiario"),
        salario_diario_integrado: importe("salarioDiarioIntegrado"),
        periodicidad: v("periodicidad"),
        tipo_contrato: clave("tipoContrato"),
        tipo_jornada: clave("tipoJornada"),
        riesgo_puesto: clave("riesgoPuesto"),
        clave_ent_fed: v("claveEntFed"),
        departamento: v("departamento"),
        puesto: v("puesto"),
        banco: clave("banco"),
        cuenta_bancaria: v("cuentaBancaria"),
        ..empleados::Campos::default()
    }
}

/// `GET /panel/nomina/empleados`.
async fn lista_empleados(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
    let empresa = ctx.empresa()?;
    let q = params.get("q").map(String::as_str).filter(|q| !q.is_empty());
    let paging = paging(&params)?;
    ctx.session.caller.authorize(&app, &empresa.id, Permission::NominaView).await?;
    let (filas, total) = scoped::page::<Empleados>(&app, &empresa.id, q, &paging).await?;
    let items: Vec<Empleado> = filas.into_iter().map(Empleado::from).collect();
    let contenido = html! {
        (subnav(EMPLEADOS))
        @if let Some(aviso) = aviso(&params) { p.aviso role="status" { (aviso) } }
        p { a.boton href="/panel/nomina/empleados/nuevo" { "Registrar empleado" } }
        (busqueda(EMPLEADOS, "Buscar por número, nombre, RFC o CURP", q))
        (listado(
            &items[..],
            html! { @if q.is_some() { "Nada coincide con la búsqueda." } @else { "Aún no hay empleados." } },
            html! { "Empleados de " (empresa.razon_social) },
            &[Columna::Texto("Número"), Columna::Texto("Nombre"), Columna::Texto("RFC"), Columna::Texto("Periodicidad"), Columna::Importe("Salario diario"), Columna::Texto("Estado")],
            |e| html! {
                tr {
                    td data-titulo="Número" { (e.num_empleado) }
                    td data-titulo="Nombre" { a href={ (EMPLEADOS) "/" (e.id) } { (e.nombre) } }
                    td data-titulo="RFC" { (e.rfc) }
                    td data-titulo="Periodicidad" { (e.periodicidad) }
                    td.importe data-titulo="Salario diario" { (pesos(e.salario_diario)) }
                    td data-titulo="Estado" {
                        @if e.activo { "Activo" } @else { "Baja desde " (e.fecha_baja.as_deref().unwrap_or_default()) }
                    }
                }
            },
            Some(paginas_de(EMPLEADOS, q, total, paging)),
        ))
    };
    Ok(html_ok(pagina(&ctx, "Nómina: empleados", RUTA, contenido)))
}

fn pagina_nuevo(ctx: &Contexto, campos: &Campos, errores: &Errores) -> Markup {
    let contenido = html! {
        (subnav(EMPLEADOS))
        (form_empleado(ctx, EMPLEADOS, None, campos, errores))
    };
    pagina(ctx, "Nómina: nuevo empleado", RUTA, contenido)
}

/// `GET /panel/nomina/empleados/nuevo`.
async fn nuevo_empleado(vista: Vista) -> Pagina {
    let ctx = vista.ctx;
    ctx.empresa()?;
    Ok(html_ok(pagina_nuevo(&ctx, &Campos::default(), &Errores::default())))
}

/// `POST /panel/nomina/empleados`: registers the employee as the API does.
async fn crear_empleado(State(app): State<AppContext>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let creado = async {
        ctx.session.caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
        scoped::create::<Empleados>(&app, &empresa_id, campos_empleado(&campos, false)).await
    }
    .await;
    match creado {
        Ok(_) => Ok(redirigir(&format!("{EMPLEADOS}?hecho=empleado-creado"))),
        Err(error) => {
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_nuevo(&ctx, &campos, &errores)))
        }
    }
}

async fn leer_empleado(
    app: &AppContext,
    session: &Session,
    empresa_id: &EmpresaId,
    id: &str,
) -> Result<Empleado, ApiError> {
    session.caller.authorize(app, empresa_id, Permission::NominaView).await?;
    Ok(Empleado::from(scoped::get::<Empleados>(app, empresa_id, id).await?))
}

fn pagina_ficha(
    ctx: &Contexto,
    guardado: &Empleado,
    aviso: Option<&str>,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let base = format!("{EMPLEADOS}/{}", guardado.id);
    let activo = guardado.activo;
    let contenido = html! {
        (subnav(EMPLEADOS))
        @if let Some(aviso) = aviso { p.aviso role="status" { (aviso) } }
        p { "Estado: " strong { @if activo { "Activo" } @else { "Baja desde " (guardado.fecha_baja.as_deref().unwrap_or_default()) } } }
        (form_empleado(ctx, &base, Some(guardado), campos, errores))
        h2 { @if activo { "Dar de baja" } @else { "Reactivar" } }
        @if activo {
            form method="post" action={ (base) "/baja" } {
                (csrf_oculto(&ctx.session))
                p { "Deja de recibir recibos desde hoy; el registro y sus recibos se conservan." }
                button.peligro type="submit" { "Dar de baja" }
            }
        } @else {
            form method="post" action={ (base) "/alta" } {
                (csrf_oculto(&ctx.session))
                button type="submit" { "Reactivar empleado" }
            }
        }
    };
    pagina(ctx, &format!("Empleado {}", guardado.nombre), RUTA, contenido)
}

/// `GET /panel/nomina/empleados/{id}`.
async fn ficha_empleado(State(app): State<AppContext>, vista: Vista, AxumPath(id): AxumPath<String>) -> Pagina {
    let Vista { ctx, params } = vista;
    let empresa_id = ctx.empresa()?.id.clone();
    let guardado = leer_empleado(&app, &ctx.session, &empresa_id, &id).await?;
    Ok(html_ok(pagina_ficha(&ctx, &guardado, aviso(&params), &Campos::default(), &Errores::default())))
}

/// `POST /panel/nomina/empleados/{id}`: updates the employee as the API does.
async fn editar_empleado(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let guardado = async {
        ctx.session.caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
        scoped::update::<Empleados>(&app, &empresa_id, &id, campos_empleado(&campos, true)).await
    }
    .await;
    match guardado {
        Ok(_) => Ok(redirigir(&format!("{EMPLEADOS}/{id}?hecho=empleado-guardado"))),
        Err(error) => {
            let actual = leer_empleado(&app, &ctx.session, &empresa_id, &id).await?;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_ficha(&ctx, &actual, None, &campos, &errores)))
        }
    }
}

/// `POST /panel/nomina/empleados/{id}/baja`: deactivates as `DELETE /api/nomina/empleados/{id}`.
async fn baja_empleado(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, .. } = accion;
    ctx.session.caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    empleados::desactivar(&app, &empresa_id, &id).await?;
    Ok(redirigir(&format!("{EMPLEADOS}/{id}?hecho=baja")))
}

/// `POST /panel/nomina/empleados/{id}/alta`: the update with `activo: true`, as the API's.
async fn alta_empleado(State(app): State<AppContext>, AxumPath(id): AxumPath<String>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, .. } = accion;
    ctx.session.caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
    let alta = empleados::Campos { activo: Some(true), ..empleados::Campos::default() };
    scoped::update::<Empleados>(&app, &empresa_id, &id, alta).await?;
    Ok(redirigir(&format!("{EMPLEADOS}/{id}?hecho=alta")))
}

/// A period's or receipt's status in Spanish.
fn estado(status: &str) -> &str {
    match status {
        "ABIERTO" => "Abierto (sin calcular)",
        "CALCULADO" => "Calculado",
        "TIMBRADO" => "Timbrado",
        "TIMBRADO_PARCIAL" => "Timbrado en parte",
        "TIMBRADO_SANDBOX" => "Timbrado (pruebas)",
        "PENDIENTE" => "Pendiente de timbrar",
        "CANCELADO" => "Cancelado",
        other => other,
    }
}

/// One page of the company's pay periods and how many there are.
struct Periodos {
    filas: Vec<PeriodoRow>,
    total: i64,
    paging: Paging,
}

/// A period's total, or "—" before it is calculated.
fn total_nomina(p: &PeriodoRow) -> String {
    p.total_nomina.as_ref().map_or_else(|| "—".to_owned(), |total| pesos(total.0))
}

fn pagina_periodos(
    ctx: &Contexto,
    lista: &Periodos,
    aviso: Option<&str>,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let items = &lista.filas;
    let contenido = html! {
        (subnav(PERIODOS))
        @if let Some(aviso) = aviso { p.aviso role="status" { (aviso) } }
        (listado(
            &items[..],
            html! { "Aún no hay periodos de pago." },
            html! { "Periodos de pago, el más reciente primero" },
            &[Columna::Texto("Periodo"), Columna::Texto("Periodicidad"), Columna::Texto("Pago"), Columna::Texto("Estado"), Columna::Importe("Recibos"), Columna::Importe("Total")],
            |p| html! {
                tr {
                    td data-titulo="Periodo" { a href={ (PERIODOS) "/" (p.id) } { (p.fecha_inicio) " a " (p.fecha_fin) } }
                    td data-titulo="Periodicidad" { (p.periodicidad) }
                    td data-titulo="Pago" { (p.fecha_pago) }
                    td data-titulo="Estado" { (estado(&p.status)) }
                    td.importe data-titulo="Recibos" { (p.recibos_calculados) }
                    td.importe data-titulo="Total" { (total_nomina(p)) }
                }
            },
            Some(paginas_de(PERIODOS, None, lista.total, lista.paging)),
        ))
        section aria-labelledby="nuevo-periodo" {
            h2 id="nuevo-periodo" { "Nuevo periodo" }
            (caja_errores(errores))
            form method="post" action=(PERIODOS) {
                (csrf_oculto(&ctx.session))
                div.linea {
                    (seleccion("periodicidad", "Periodicidad", PERIODICIDADES, campos.valor("periodicidad"), errores))
                    (campo_con("fechaInicio", "Primer día", Tipo::Texto, campos.valor("fechaInicio"), true, errores, Some("AAAA-MM-DD")))
                    (campo_con("fechaFin", "Último día", Tipo::Texto, campos.valor("fechaFin"), true, errores, Some("AAAA-MM-DD")))
                    (campo_con("fechaPago", "Fecha de pago", Tipo::Texto, campos.valor("fechaPago"), true, errores,
                        Some("AAAA-MM-DD; fija las tarifas vigentes")))
                }
                @for problema in errores.frases_con_prefijo("diasPagados") { p.problemas { (problema) } }
                button type="submit" { "Crear periodo" }
            }
        }
    };
    pagina(ctx, "Nómina: periodos", RUTA, contenido)
}

async fn listar_periodos(
    app: &AppContext,
    session: &Session,
    empresa_id: &EmpresaId,
    paging: Paging,
) -> Result<Periodos, ApiError> {
    session.caller.authorize(app, empresa_id, Permission::NominaView).await?;
    let (filas, total) = periodos::listar(app, empresa_id, None, &paging).await?;
    Ok(Periodos { filas, total, paging })
}

/// `GET /panel/nomina/periodos`.
async fn lista_periodos(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
    let empresa_id = ctx.empresa()?.id.clone();
    let lista = listar_periodos(&app, &ctx.session, &empresa_id, paging(&params)?).await?;
    Ok(html_ok(pagina_periodos(&ctx, &lista, aviso(&params), &Campos::default(), &Errores::default())))
}

/// `POST /panel/nomina/periodos`: creates the period as the API does (the days paid are the
/// periodicidad's).
async fn crear_periodo(State(app): State<AppContext>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    let texto = |nombre: &str| campos.valor(nombre).map(str::to_owned);
    let nuevo = periodos::Campos {
        fecha_inicio: texto("fechaInicio"),
        fecha_fin: texto("fechaFin"),
        fecha_pago: texto("fechaPago"),
        periodicidad: texto("periodicidad"),
        dias_pagados: campos.valor("periodicidad").and_then(PeriodicidadPago::parse).map(|p| json!(p.dias())),
        ..periodos::Campos::default()
    };
    let creado = async {
        ctx.session.caller.authorize(&app, &empresa_id, Permission::NominaManage).await?;
        periodos::create(&app, &empresa_id, nuevo).await
    }
    .await;
    match creado {
        Ok(periodo) => Ok(redirigir(&format!("{PERIODOS}/{}?hecho=periodo-creado", periodo.id))),
        Err(error) => {
            let lista = listar_periodos(&app, &ctx.session, &empresa_id, paging_de(1)?).await?;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_periodos(&ctx, &lista, None, &campos, &errores)))
        }
    }
}

/// `GET /panel/nomina/periodos/{id}`: the period, its actions and its receipts.
async fn detalle_periodo(State(app): State<AppContext>, vista: Vista, AxumPath(id): AxumPath<String>) -> Pagina {
    let Vista { ctx, params } = vista;
    let periodo = leer_periodo(&app, &ctx, &id).await?;
    Ok(html_ok(pagina_periodo(&ctx, &periodo, aviso(&params), &Errores::default())))
}

/// A pay period with its receipts, as `GET /api/nomina/periodos/{id}` reads it.
struct Periodo {
    fila: PeriodoRow,
    recibos: Vec<ReciboOut>,
}

async fn leer_periodo(app: &AppContext, ctx: &Contexto, id: &str) -> Result<Periodo, ApiError> {
    let empresa_id = ctx.empresa.as_ref().map_or_else(|| EmpresaId::from(""), |e| e.id.clone());
    ctx.session.caller.authorize(app, &empresa_id, Permission::NominaView).await?;
    let fila = periodos::leer(app, &empresa_id, id).await?;
    let recibos = periodos::recibos(app, &empresa_id, id, None).await?;
    Ok(Periodo { fila, recibos })
}

fn pagina_periodo(ctx: &Contexto, periodo: &Periodo, aviso: Option<&str>, errores: &Errores) -> Markup {
    let p = &periodo.fila;
    let base = format!("{PERIODOS}/{}", p.id);
    let status = p.status.as_str();
    let recibos = &periodo.recibos;
    let contenido = html! {
        (subnav(PERIODOS))
        @if let Some(aviso) = aviso { p.aviso role="status" { (aviso) } }
        (caja_errores(errores))
        dl.datos {
            dt { "Periodicidad" } dd { (p.periodicidad) " (" (p.dias_pagados) " días pagados)" }
            dt { "Fecha de pago" } dd { (p.fecha_pago) }
            dt { "Estado" } dd { (estado(status)) }
            dt { "Recibos" } dd { (p.recibos_calculados) }
            dt { "Total de la nómina" } dd { (total_nomina(p)) }
        }
        ul.acciones {
            @if matches!(status, "ABIERTO" | "CALCULADO") {
                li { form.en-linea method="post" action={ (base) "/calcular" } {
                    (csrf_oculto(&ctx.session))
                    button type="submit" { @if status == "ABIERTO" { "Calcular" } @else { "Volver a calcular" } }
                } }
            }
            @if matches!(status, "CALCULADO" | "TIMBRADO_PARCIAL") {
                li { form.en-linea method="post" action={ (base) "/timbrar" } {
                    (csrf_oculto(&ctx.session))
                    button type="submit" { "Timbrar recibos" }
                } }
            }
        }
        (listado(
            &recibos[..],
            html! { "Sin recibos: calcule el periodo para generarlos con los empleados activos de esta periodicidad." },
            html! { "Recibos" },
            &[Columna::Texto("Empleado"), Columna::Texto("Estado"), Columna::Importe("Días"), Columna::Importe("Neto"), Columna::Texto("Folio fiscal (UUID)"), Columna::Texto("Archivos")],
            |r| html! {
                tr {
                    td data-titulo="Empleado" { (r.num_empleado) " · " (r.empleado_nombre) }
                    td data-titulo="Estado" {
                        (estado(&r.status))
                        @if let Some(error) = &r.detalle_errores { br; small { (error) } }
                    }
                    td.importe data-titulo="Días" { (r.dias_pagados.to_string()) }
                    td.importe data-titulo="Neto" { (pesos(r.total)) }
                    td.uuid data-titulo="UUID" { (r.uuid.as_deref().unwrap_or_default()) }
                    td data-titulo="Archivos" {
                        @if r.uuid.is_some() {
                            a href={ "/panel/nomina/recibos/" (r.recibo_id) "/xml" } download { "XML" }
                            " · "
                            a href={ "/panel/nomina/recibos/" (r.recibo_id) "/pdf" } download { "PDF" }
                        }
                    }
                }
            },
            None,
        ))
    };
    pagina(ctx, &format!("Periodo {} a {}", p.fecha_inicio, p.fecha_fin), RUTA, contenido)
}

/// Runs a period action; its error is shown on the period's page.
async fn accion_periodo(
    app: &AppContext,
    headers: &HeaderMap,
    id: &str,
    formulario: Formulario,
    timbrar_: bool,
) -> Pagina {
    let ctx = contexto(app, formulario.session, headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let caller = &ctx.session.caller;
    let hecho = async {
        caller.authorize(app, &empresa_id, Permission::NominaManage).await?;
        if timbrar_ {
            timbra_services::cfdi::nomina::timbrar_periodo(app, &empresa_id, &PeriodoId::from(id), &caller.user_id)
                .await
                .map(|_| "timbrado")
        } else {
            timbra_services::nomina::calculo::calcular_periodo(app, &empresa_id, &PeriodoId::from(id))
                .await
                .map(|_| "calculado")
        }
    }
    .await;
    match hecho {
        Ok(hecho) => Ok(redirigir(&format!("{PERIODOS}/{id}?hecho={hecho}"))),
        Err(error) => {
            let periodo = leer_periodo(app, &ctx, id).await?;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_periodo(&ctx, &periodo, None, &errores)))
        }
    }
}

/// `POST /panel/nomina/periodos/{id}/calcular`.
async fn calcular_periodo(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    accion_periodo(&app, &headers, &id, formulario, false).await
}

/// `POST /panel/nomina/periodos/{id}/timbrar`.
async fn timbrar_periodo(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    accion_periodo(&app, &headers, &id, formulario, true).await
}

/// A receipt's stamped file (as `GET /api/nomina/recibos/{id}/xml` and `/pdf`), in the
/// current company (the same role check as every page).
async fn archivo_recibo(app: &AppContext, session: Session, headers: &HeaderMap, id: &str, pdf: bool) -> Pagina {
    let ctx = contexto(app, session, headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    ctx.session.caller.authorize(app, &empresa_id, Permission::NominaView).await?;
    let cfdi_id = recibo::cfdi_del_recibo(app, &empresa_id, id).await?;
    let archivo = if pdf {
        archivos::pdf_de(app, &empresa_id, &cfdi_id, true).await?
    } else {
        archivos::xml_de(app, &empresa_id, &cfdi_id, true).await?
    };
    Ok(descarga(archivo)?)
}

/// `GET /panel/nomina/recibos/{id}/xml`.
async fn recibo_xml(
    State(app): State<AppContext>,
    session: Session,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
) -> Result<Response, super::Fallo> {
    archivo_recibo(&app, session, &headers, &id, false).await
}

/// `GET /panel/nomina/recibos/{id}/pdf`.
async fn recibo_pdf(
    State(app): State<AppContext>,
    session: Session,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
) -> Result<Response, super::Fallo> {
    archivo_recibo(&app, session, &headers, &id, true).await
}
