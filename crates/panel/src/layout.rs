//! The page shell: header with the company switcher, the stamp balance and the sandbox/live
//! badge, the navigation, notices; plus the form pieces every page shares (fields with their
//! problems beside them, the error box) and the embedded static files.

use std::collections::HashMap;
use std::sync::LazyLock;
use timbra_store::ids::EmpresaId;

use axum::extract::{Path as AxumPath, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};
use serde_json::Value;
use sha2::Digest;

use super::problemas::{self, Problema};
use super::{EMPRESA_COOKIE, Fallo, Session, csrf, redirigir, textos};
use timbra_services::auth::roles::{Permission, Role};
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_store::empresas::EmpresaRow;

const CSS: &str = include_str!("../assets/panel.css");
const HTMX: &str = include_str!("../assets/htmx.min.js");
const PANEL_JS: &str = include_str!("../assets/panel.js");

/// A short digest of the static files, appended to their URLs so a long cache never serves an
/// old copy after an upgrade.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    let mut digest = sha2::Sha256::new();
    digest.update(CSS);
    digest.update(HTMX);
    digest.update(PANEL_JS);
    hex::encode(&digest.finalize()[..6])
});

/// `GET /panel/estatico/{archivo}`: the embedded CSS and scripts, cached for a year.
pub async fn estatico(AxumPath(archivo): AxumPath<String>) -> Response {
    let (body, tipo) = match archivo.as_str() {
        "panel.css" => (CSS, "text/css; charset=utf-8"),
        "htmx.min.js" => (HTMX, "text/javascript; charset=utf-8"),
        "panel.js" => (PANEL_JS, "text/javascript; charset=utf-8"),
        _ => return Fallo::Api(ApiError::new(Code::NotFound, "no such file")).into_response(),
    };
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(tipo));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=31536000, immutable"));
    response
}

/// The company a page acts on, as the role table sees the person in it.
#[derive(Clone, Debug)]
pub struct EmpresaActual {
    /// Id.
    pub id: EmpresaId,
    /// RFC.
    pub rfc: String,
    /// Legal name.
    pub razon_social: String,
    /// Sandbox or live.
    pub sandbox: bool,
    /// The person's role there.
    pub role: Role,
    /// Stamps left.
    pub saldo: i64,
}

/// Everything the shell needs: the person, their companies, the current one, the notice.
pub struct Contexto {
    /// The session.
    pub session: Session,
    /// The person's companies (what `GET /api/empresas` lists).
    pub empresas: Vec<EmpresaRow>,
    /// The company chosen (query `empresa`, else the cookie, else the first).
    pub empresa: Option<EmpresaActual>,
    /// A notice after a successful form (query `aviso`).
    pub aviso: Option<&'static str>,
}

impl Contexto {
    /// The current company, or a redirect to the companies page when the person has none.
    pub fn empresa(&self) -> Result<&EmpresaActual, Fallo> {
        self.empresa.as_ref().ok_or_else(|| Fallo::Redirigir("/panel/empresas?aviso=sin-empresa".to_owned()))
    }
}

/// Builds the context of a page. A company id given explicitly (`?empresa=`) that the person
/// does not belong to is a 404; a stale cookie is ignored.
pub async fn contexto(
    app: &AppContext,
    session: Session,
    headers: &HeaderMap,
    params: &HashMap<String, String>,
) -> Result<Contexto, Fallo> {
    let empresas = timbra_services::empresas::list(app, &session.caller).await?;
    let pedida = params.get("empresa").map(String::as_str).filter(|id| !id.is_empty());
    let elegida = match pedida {
        Some(id) => Some(id.to_owned()),
        None => csrf::cookie(headers, EMPRESA_COOKIE)
            .filter(|id| empresas.iter().any(|e| e.id == *id))
            .or_else(|| empresas.first().map(|e| e.id.as_str()))
            .map(str::to_owned),
    };
    let empresa = match elegida {
        Some(id) => Some(empresa_actual(app, &session, &EmpresaId::from(id)).await?),
        None => None,
    };
    let aviso = params.get("aviso").and_then(|clave| aviso(clave));
    Ok(Contexto { session, empresas, empresa, aviso })
}

/// The company `id` as the person may see it: the same role check as the API (404 page when
/// they have no role there).
pub async fn empresa_actual(app: &AppContext, session: &Session, id: &EmpresaId) -> Result<EmpresaActual, Fallo> {
    let access = session.caller.authorize(app, id, Permission::CfdiView).await?;
    let mut conn = app.db.conn().await?;
    let fila = timbra_store::empresas::leer(&mut conn, &session.caller.user_id, id)
        .await?
        .ok_or_else(|| ApiError::new(Code::NotFound, "company not found"))?;
    let saldo = timbra_store::timbres::saldo(&mut conn, id).await?;
    Ok(EmpresaActual {
        id: fila.id,
        rfc: fila.rfc,
        razon_social: fila.razon_social,
        sandbox: access.sandbox,
        role: access.role,
        saldo,
    })
}

/// The notices pages may show after a redirect, by key.
fn aviso(clave: &str) -> Option<&'static str> {
    Some(match clave {
        "bienvenida" => "Bienvenido. Cree su primera empresa para empezar a facturar.",
        "sin-empresa" => "Primero cree una empresa (o pida que lo agreguen a una).",
        "empresa-creada" => "Empresa creada.",
        "empresa-guardada" => "Cambios guardados.",
        "miembro-agregado" => "Miembro agregado.",
        "miembro-guardado" => "Rol actualizado.",
        "miembro-quitado" => "Miembro quitado de la empresa.",
        "cliente-creado" => "Cliente creado.",
        "cliente-guardado" => "Cliente guardado.",
        "cliente-borrado" => "Cliente eliminado.",
        "producto-creado" => "Producto creado.",
        "producto-guardado" => "Producto guardado.",
        "producto-borrado" => "Producto eliminado.",
        "factura-timbrada" => "Factura timbrada.",
        "factura-cancelada" => "Solicitud de cancelación registrada.",
        "correo-encolado" => "Correo en cola de envío: el registro de envíos muestra su estado.",
        "retencion-timbrada" => "Retención timbrada.",
        "marca-guardada" => "Marca guardada: los PDF usan el logotipo, el color y la nota al pie nuevos.",
        "zip-pedido" => "Exportación en cola: la lista muestra su avance y el enlace de descarga.",
        "cancelacion-aceptada" => "Cancelación aceptada: el SAT cancela el comprobante.",
        "cancelacion-rechazada" => "Cancelación rechazada: el comprobante sigue vigente.",
        "registrado" => "Cuenta creada. Ya puede entrar.",
        "salida" => "Sesión cerrada.",
        _ => return None,
    })
}

/// One entry of the navigation.
struct Enlace {
    ruta: &'static str,
    texto: &'static str,
}

/// The navigation, in order (modules add their entry here).
const NAVEGACION: &[Enlace] = &[
    Enlace { ruta: "/panel", texto: "Inicio" },
    Enlace { ruta: "/panel/facturas", texto: "Facturas" },
    Enlace { ruta: "/panel/recibos", texto: "Tickets" },
    Enlace { ruta: "/panel/retenciones", texto: "Retenciones" },
    Enlace { ruta: "/panel/exportar", texto: "Exportar" },
    Enlace { ruta: "/panel/buzon", texto: "Buzón" },
    Enlace { ruta: "/panel/clientes", texto: "Clientes" },
    Enlace { ruta: "/panel/productos", texto: "Productos" },
    Enlace { ruta: "/panel/empresas", texto: "Empresas" },
    Enlace { ruta: "/panel/marca", texto: "Marca" },
    Enlace { ruta: "/panel/nomina", texto: "Nómina" },
    Enlace { ruta: "/panel/webhooks", texto: "Webhooks" },
    Enlace { ruta: "/panel/trabajos", texto: "Trabajos" },
    Enlace { ruta: "/panel/llaves", texto: "Llaves de API" },
];

fn cabeza(titulo: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            // The pages' CSP allows no inline style or eval: htmx is told not to inject its
            // indicator <style> nor evaluate attributes (router::HTML_CSP).
            meta name="htmx-config" content=r#"{"includeIndicatorStyles":false,"allowEval":false}"#;
            title { (titulo) " · timbra" }
            link rel="stylesheet" href={ "/panel/estatico/panel.css?v=" (*VERSION) };
            script src={ "/panel/estatico/htmx.min.js?v=" (*VERSION) } defer {}
            script src={ "/panel/estatico/panel.js?v=" (*VERSION) } defer {}
        }
    }
}

/// A page of a logged-in person: header, navigation, notice, content. `actual` is the path of
/// the navigation entry to mark.
pub fn pagina(ctx: &Contexto, titulo: &str, actual: &str, contenido: Markup) -> Markup {
    let csrf_header = format!(r#"{{"X-CSRF-Token": "{}"}}"#, ctx.session.csrf);
    html! {
        (DOCTYPE)
        html lang="es-MX" {
            (cabeza(titulo))
            body hx-headers=(csrf_header) {
                a.saltar href="#contenido" { "Saltar al contenido" }
                header.barra {
                    a.marca href="/panel" { "timbra" }
                    @if let Some(empresa) = &ctx.empresa {
                        form.cambio method="get" action="/panel/empresa" {
                            label for="empresa-elegida" { "Empresa" }
                            select id="empresa-elegida" name="id" {
                                @for e in &ctx.empresas {
                                    option value=(e.id) selected[e.id == empresa.id] {
                                        (e.razon_social) " (" (e.rfc) ")"
                                    }
                                }
                            }
                            button type="submit" { "Cambiar" }
                        }
                        span.saldo { "Saldo: " strong { (empresa.saldo) } " timbres" }
                        @if empresa.sandbox {
                            span.modo.pruebas title="Las facturas no tienen validez fiscal" { "Modo pruebas (sandbox)" }
                        } @else {
                            span.modo.real { "Modo real (live)" }
                        }
                    }
                    form.salir method="post" action="/panel/salir" {
                        input type="hidden" name=(csrf::CAMPO) value=(ctx.session.csrf);
                        span.quien { (ctx.session.email) }
                        button type="submit" { "Salir" }
                    }
                }
                nav aria-label="Secciones" {
                    ul {
                        @for enlace in NAVEGACION {
                            li {
                                a href=(enlace.ruta) aria-current=[(enlace.ruta == actual).then_some("page")] { (enlace.texto) }
                            }
                        }
                    }
                }
                main id="contenido" {
                    h1 { (titulo) }
                    @if let Some(aviso) = ctx.aviso {
                        p.aviso role="status" { (aviso) }
                    }
                    (contenido)
                }
            }
        }
    }
}

/// A page outside the shell (login, registration, errors).
pub fn pagina_suelta(titulo: &str, contenido: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="es-MX" {
            (cabeza(titulo))
            body.suelta {
                main id="contenido" {
                    p.marca { a href="/panel" { "timbra" } }
                    h1 { (titulo) }
                    (contenido)
                }
            }
        }
    }
}

/// The problems of a failed form: the error (its Spanish text) and the field problems by
/// field, in Spanish ([`problemas`]): the API's English messages are never shown.
#[derive(Default)]
pub struct Errores {
    /// The error, if any.
    pub error: Option<ApiError>,
    problemas: Vec<Problema>,
}

impl Errores {
    /// The problems of `error` (`details.fields`, or `details.campo` of an error about one
    /// field), each once.
    pub fn de(error: ApiError) -> Self {
        let mut campos: Vec<String> = error.field_problems().into_iter().map(|p| p.field).collect();
        if let Some(campo) = error.details.get("campo").and_then(Value::as_str) {
            campos.push(campo.to_owned());
        }
        let mut lista: Vec<Problema> = Vec::new();
        for campo in campos {
            let problema = problemas::problema(error.code, &campo);
            if !lista.contains(&problema) {
                lista.push(problema);
            }
        }
        Errores { error: Some(error), problemas: lista }
    }

    /// The sentences of one field (beside it in the form).
    pub fn de_campo(&self, campo: &str) -> Vec<String> {
        let mut frases: Vec<String> = Vec::new();
        for p in self.problemas.iter().filter(|p| p.campo == campo) {
            if !frases.contains(&p.frase) {
                frases.push(p.frase.clone());
            }
        }
        frases
    }

    /// The sentences of the fields starting with `prefijo` (a field of checkboxes, whose
    /// problems name each box), each once.
    pub fn frases_con_prefijo(&self, prefijo: &str) -> Vec<String> {
        let mut frases: Vec<String> = Vec::new();
        for p in self.con_prefijo(prefijo) {
            if !frases.contains(&p.frase) {
                frases.push(p.frase);
            }
        }
        frases
    }

    /// Problems reported for fields starting with `prefijo` (e.g. the lines of an invoice),
    /// in the order of their fields.
    pub fn con_prefijo(&self, prefijo: &str) -> Vec<Problema> {
        let mut out: Vec<Problema> = self.problemas.iter().filter(|p| p.campo.starts_with(prefijo)).cloned().collect();
        out.sort_by(|a, b| a.campo.cmp(&b.campo));
        out
    }

    /// HTTP status for re-rendering the form.
    pub fn status(&self) -> StatusCode {
        self.error.as_ref().map_or(StatusCode::OK, |error| match error.code {
            Code::Scope001 => StatusCode::NOT_FOUND,
            code if code.status().is_success() => StatusCode::BAD_REQUEST,
            code => code.status(),
        })
    }
}

/// The error box of a failed action: the code's Spanish text and the code (the API's English
/// message stays in the API).
pub fn error_api(error: &ApiError) -> Markup {
    html! {
        div.error role="alert" {
            p { strong { (textos::mensaje(error.code)) } }
            p.codigo { "Código: " code { (error.code.as_str()) } }
        }
    }
}

/// The error box of `errores`, if any.
pub fn caja_errores(errores: &Errores) -> Markup {
    html! {
        @if let Some(error) = &errores.error { (error_api(error)) }
    }
}

/// Kinds of input.
#[derive(Clone, Copy)]
pub enum Tipo {
    /// Free text.
    Texto,
    /// Email.
    Correo,
    /// Password.
    Clave,
    /// Decimal amount (typed as text: the server reads it exactly).
    Importe,
    /// A file.
    Archivo,
}

/// A labelled input with its problems beside it (`aria-describedby`, `aria-invalid`).
pub fn campo(
    nombre: &str,
    etiqueta: &str,
    tipo: Tipo,
    valor: Option<&str>,
    requerido: bool,
    errores: &Errores,
) -> Markup {
    campo_con(nombre, etiqueta, tipo, valor, requerido, errores, None)
}

/// [`campo`] with a hint under the label.
pub fn campo_con(
    nombre: &str,
    etiqueta: &str,
    tipo: Tipo,
    valor: Option<&str>,
    requerido: bool,
    errores: &Errores,
    ayuda: Option<&str>,
) -> Markup {
    campo_sugerido(nombre, etiqueta, tipo, valor, requerido, errores, ayuda, None)
}

/// Where a field's type-ahead comes from: the suggestions page (`/panel/sugerencias/…`) and
/// the other fields it sends along (CSS selectors for htmx's `hx-include`).
#[derive(Clone, Copy)]
pub struct Sugerencias {
    pub ruta: &'static str,
    pub incluir: Option<&'static str>,
}

/// [`campo_con`] with a type-ahead: a `datalist` the suggestions page fills as the person
/// types (htmx; without script the field is a plain text field).
#[allow(clippy::too_many_arguments)]
pub fn campo_sugerido(
    nombre: &str,
    etiqueta: &str,
    tipo: Tipo,
    valor: Option<&str>,
    requerido: bool,
    errores: &Errores,
    ayuda: Option<&str>,
    sugerencias: Option<Sugerencias>,
) -> Markup {
    let id = format!("campo-{nombre}");
    let lista = sugerencias.map(|_| format!("lista-{nombre}"));
    let problemas = errores.de_campo(nombre);
    let error_id = format!("{id}-error");
    let ayuda_id = format!("{id}-ayuda");
    let mut descrita = Vec::new();
    if ayuda.is_some() {
        descrita.push(ayuda_id.clone());
    }
    if !problemas.is_empty() {
        descrita.push(error_id.clone());
    }
    let descrita = (!descrita.is_empty()).then(|| descrita.join(" "));
    let (tipo_html, modo) = match tipo {
        Tipo::Texto => ("text", None),
        Tipo::Correo => ("email", None),
        Tipo::Clave => ("password", None),
        Tipo::Importe => ("text", Some("decimal")),
        Tipo::Archivo => ("file", None),
    };
    html! {
        div.campo {
            label for=(id) { (etiqueta) @if requerido { span.requerido aria-hidden="true" { " *" } } }
            @if let Some(ayuda) = ayuda { small id=(ayuda_id) { (ayuda) } }
            input id=(id) name=(nombre) type=(tipo_html) inputmode=[modo]
                value=[valor.filter(|_| !matches!(tipo, Tipo::Clave | Tipo::Archivo))]
                required[requerido] aria-invalid=[(!problemas.is_empty()).then_some("true")]
                aria-describedby=[descrita]
                list=[lista.as_deref()] autocomplete=[lista.as_ref().map(|_| "off")]
                hx-get=[sugerencias.map(|s| s.ruta)] hx-include=[sugerencias.and_then(|s| s.incluir)]
                hx-trigger=[sugerencias.map(|_| "input changed delay:250ms, focus")]
                hx-target=[lista.as_ref().map(|l| format!("#{l}"))] hx-swap=[lista.as_ref().map(|_| "innerHTML")];
            @if let Some(lista) = &lista { datalist id=(lista) {} }
            @if !problemas.is_empty() {
                ul.problemas id=(error_id) {
                    @for problema in problemas { li { (problema) } }
                }
            }
        }
    }
}

/// A labelled select of `(value, text)` options.
pub fn seleccion(
    nombre: &str,
    etiqueta: &str,
    opciones: &[(&str, &str)],
    valor: Option<&str>,
    errores: &Errores,
) -> Markup {
    let id = format!("campo-{nombre}");
    let problemas = errores.de_campo(nombre);
    html! {
        div.campo {
            label for=(id) { (etiqueta) }
            select id=(id) name=(nombre) aria-invalid=[(!problemas.is_empty()).then_some("true")] {
                @for (value, text) in opciones {
                    option value=(value) selected[Some(*value) == valor] { (text) }
                }
            }
            @if !problemas.is_empty() {
                ul.problemas { @for problema in problemas { li { (problema) } } }
            }
        }
    }
}

/// The hidden CSRF field of a form.
pub fn csrf_oculto(session: &Session) -> Markup {
    html! { input type="hidden" name=(csrf::CAMPO) value=(session.csrf); }
}

/// A column of a list table.
#[derive(Clone, Copy)]
pub enum Columna {
    /// Text.
    Texto(&'static str),
    /// Amounts (right-aligned, class `importe`).
    Importe(&'static str),
    /// Actions: the heading is for screen readers only.
    Oculta(&'static str),
}

/// The heading row (`thead`) of a list table: one `th scope="col"` per column. The lists of
/// every page share it, with [`paginas_de`] under them.
pub fn encabezados(columnas: &[Columna]) -> Markup {
    html! {
        thead { tr {
            @for columna in columnas {
                @match columna {
                    Columna::Texto(texto) => { th scope="col" { (texto) } }
                    Columna::Importe(texto) => { th.importe scope="col" { (texto) } }
                    Columna::Oculta(texto) => { th scope="col" { span.oculto { (texto) } } }
                }
            }
        } }
    }
}

/// A list of `filas`: the line `vacia` when there are none, else their table (stacked on
/// narrow screens) with its caption, its heading row ([`encabezados`]), one row each
/// (`fila`), and `pie` under it (the page links). The lists of every page share it.
pub fn listado<T>(
    filas: &[T],
    vacia: Markup,
    caption: Markup,
    columnas: &[Columna],
    fila: impl Fn(&T) -> Markup,
    pie: Option<Markup>,
) -> Markup {
    html! {
        @if filas.is_empty() {
            p { (vacia) }
        } @else {
            table.apilada {
                caption { (caption) }
                (encabezados(columnas))
                tbody { @for f in filas { (fila(f)) } }
            }
            @if let Some(pie) = pie { (pie) }
        }
    }
}

/// The search form of a list at `ruta`: one search field `q` labelled `etiqueta`.
pub fn busqueda(ruta: &str, etiqueta: &str, q: Option<&str>) -> Markup {
    html! {
        form.busqueda method="get" action=(ruta) role="search" {
            div.campo {
                label for="q" { (etiqueta) }
                input id="q" name="q" type="search" value=[q];
            }
            button type="submit" { "Buscar" }
        }
    }
}

/// Paging links of page `paging` of a list of `total` rows: "N en total · página P de T" and
/// the previous and next pages (with the search `q` kept).
pub fn paginas_de(ruta: &str, q: Option<&str>, total: i64, paging: timbra_store::Paging) -> Markup {
    let page = paging.page;
    let total_pages = ((total + paging.page_size - 1) / paging.page_size).max(1);
    let q = q.map(|q| format!("&q={}", urlencoding::encode(q))).unwrap_or_default();
    html! {
        nav.paginas aria-label="Páginas" {
            span { (total) " en total · página " (page) " de " (total_pages) }
            @if page > 1 { a href={ (ruta) "?page=" (page - 1) (q) } rel="prev" { "← Anterior" } }
            @if page < total_pages { a href={ (ruta) "?page=" (page + 1) (q) } rel="next" { "Siguiente →" } }
        }
    }
}

/// Paging links that do not count pages ("N en total · página P"), as the Buzón and the
/// retentions show them.
pub fn paginas_breves(ruta: &str, total: i64, paging: timbra_store::Paging) -> Markup {
    let page = paging.page;
    html! {
        nav.paginas aria-label="Páginas" {
            span { (total) " en total · página " (page) }
            @if page > 1 { a href={ (ruta) "?page=" (page - 1) } rel="prev" { "← Anterior" } }
            @if page * paging.page_size < total { a href={ (ruta) "?page=" (page + 1) } rel="next" { "Siguiente →" } }
        }
    }
}

/// `GET /panel/empresa?id=`: remembers the chosen company (cookie, after the same role check
/// as every page) and goes back to the dashboard.
pub async fn cambiar_empresa(
    State(app): State<AppContext>,
    session: Session,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Response, Fallo> {
    let id = params.get("id").cloned().unwrap_or_default();
    let empresa = empresa_actual(&app, &session, &EmpresaId::from(&id)).await?;
    let mut response = redirigir("/panel");
    if let Some(value) = super::cookie_panel(&app, EMPRESA_COOKIE, empresa.id.as_str(), "Lax") {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    Ok(response)
}
