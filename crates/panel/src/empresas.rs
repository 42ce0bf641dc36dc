//! The dashboard's home and the companies: list, create, switch, edit, members and roles, CSD
//! and FIEL upload. Every action calls the services the API's `/api/empresas` routes call
//! (`timbra_services::{empresas, memberships}`, `cfdi::{credenciales, fiel}`), with the same
//! permissions.

use std::collections::HashMap;
use timbra_store::ids::{EmpresaId, UserId};

use axum::Router;
use axum::extract::{Path as AxumPath, Query, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use maud::{Markup, html};
use time::OffsetDateTime;

use super::layout::{
    Columna, Contexto, Errores, Tipo, caja_errores, campo, campo_con, contexto, csrf_oculto, encabezados, pagina,
    seleccion,
};
use super::{Campos, Formulario, Pagina, Session, Vista, html_con, html_ok, redirigir};
use timbra_services::auth::roles::Permission;
use timbra_services::cfdi::credenciales::{self, Guardado};
use timbra_services::cfdi::fiel;
use timbra_services::context::AppContext;
use timbra_services::error::ApiError;
use timbra_services::{empresas, memberships};
use timbra_store::empresas::EmpresaRow;
use timbra_store::fiel::FielGuardada;
use timbra_store::memberships::MemberRow;

/// Routes of the companies' pages.
pub fn rutas() -> Router<AppContext> {
    Router::new()
        .route("/panel/empresas", get(lista).post(crear))
        .route("/panel/empresas/{id}", get(detalle).post(editar))
        .route("/panel/empresas/{id}/csd", post(subir_csd))
        .route("/panel/empresas/{id}/fiel", post(subir_fiel))
        .route("/panel/empresas/{id}/miembros", post(add_member))
        .route("/panel/empresas/{id}/miembros/{user_id}", post(change_member))
        .route("/panel/empresas/{id}/miembros/{user_id}/quitar", post(remove_member))
}

/// Regímenes fiscales offered in the forms (c_RegimenFiscal; the API checks the code against
/// the RFC's kind of taxpayer).
const REGIMENES: &[(&str, &str)] = &[
    ("601", "601 General de Ley Personas Morales"),
    ("603", "603 Personas Morales con Fines no Lucrativos"),
    ("605", "605 Sueldos y Salarios"),
    ("606", "606 Arrendamiento"),
    ("612", "612 Personas Físicas con Actividades Empresariales y Profesionales"),
    ("616", "616 Sin obligaciones fiscales"),
    ("621", "621 Incorporación Fiscal"),
    ("625", "625 Actividades Empresariales con ingresos a través de Plataformas Tecnológicas"),
    ("626", "626 Régimen Simplificado de Confianza"),
];

const ROLES: &[(&str, &str)] = &[
    ("USUARIO", "Usuario (consulta)"),
    ("FACTURADOR", "Facturador"),
    ("CONTADOR", "Contador"),
    ("ADMINISTRADOR", "Administrador"),
    ("PROPIETARIO", "Propietario"),
];

/// `GET /panel`: the home page of the current company.
pub async fn tablero(vista: Vista) -> Pagina {
    let ctx = vista.ctx;
    let Some(empresa) = &ctx.empresa else {
        return Ok(redirigir("/panel/empresas?aviso=sin-empresa"));
    };
    let contenido = html! {
        section aria-labelledby="resumen" {
            h2 id="resumen" { (empresa.razon_social) }
            dl.datos {
                dt { "RFC" } dd { (empresa.rfc) }
                dt { "Su rol" } dd { (empresa.role.as_str()) }
                dt { "Modo" } dd { @if empresa.sandbox { "Pruebas (sandbox)" } @else { "Real (live)" } }
                dt { "Timbres disponibles" } dd { (empresa.saldo) }
            }
        }
        section aria-labelledby="acciones" {
            h2 id="acciones" { "¿Qué desea hacer?" }
            ul.acciones {
                li { a.boton href="/panel/facturas/nueva" { "Timbrar una factura" } }
                li { a href="/panel/facturas" { "Ver facturas" } }
                li { a href="/panel/clientes" { "Clientes" } }
                li { a href="/panel/productos" { "Productos" } }
                li { a href={ "/panel/empresas/" (empresa.id) } { "Datos, certificados y miembros de la empresa" } }
            }
        }
    };
    Ok(html_ok(pagina(&ctx, "Panel", "/panel", contenido)))
}

fn form_crear(ctx: &Contexto, campos: &Campos, errores: &Errores) -> Markup {
    html! {
        section aria-labelledby="nueva" {
            h2 id="nueva" { "Nueva empresa" }
            (caja_errores(errores))
            form method="post" action="/panel/empresas" {
                (csrf_oculto(&ctx.session))
                (campo("rfc", "RFC", Tipo::Texto, campos.valor("rfc"), true, errores))
                (campo_con("razonSocial", "Razón social", Tipo::Texto, campos.valor("razonSocial"), true, errores,
                    Some("Como en la Constancia de Situación Fiscal, sin «S.A. de C.V.»")))
                (seleccion("regimenFiscal", "Régimen fiscal", REGIMENES, campos.valor("regimenFiscal"), errores))
                (campo("codigoPostal", "Código postal del domicilio fiscal", Tipo::Texto, campos.valor("codigoPostal"), true, errores))
                (campo("nombreComercial", "Nombre comercial", Tipo::Texto, campos.valor("nombreComercial"), false, errores))
                (seleccion("sandbox", "Modo", &[("true", "Pruebas (sandbox)"), ("false", "Real (live)")],
                    campos.valor("sandbox"), errores))
                button type="submit" { "Crear empresa" }
            }
        }
    }
}

fn pagina_lista(ctx: &Contexto, campos: &Campos, errores: &Errores) -> Markup {
    let contenido = html! {
        @if ctx.empresas.is_empty() {
            p { "Aún no tiene empresas." }
        } @else {
            table {
                caption { "Sus empresas" }
                (encabezados(&[Columna::Texto("Razón social"), Columna::Texto("RFC"), Columna::Texto("Su rol"), Columna::Texto("CSD"), Columna::Texto("Modo")]))
                tbody {
                    @for e in &ctx.empresas {
                        tr {
                            td { a href={ "/panel/empresas/" (e.id) } { (e.razon_social) } }
                            td { (e.rfc) }
                            td { (e.role) }
                            td { @if e.csd_vigencia_fin.is_some() { "Sí" } @else { "No" } }
                            td { @if e.sandbox { "Pruebas" } @else { "Real" } }
                        }
                    }
                }
            }
        }
        (form_crear(ctx, campos, errores))
    };
    pagina(ctx, "Empresas", "/panel/empresas", contenido)
}

/// `GET /panel/empresas`.
pub async fn lista(vista: Vista) -> Pagina {
    let ctx = vista.ctx;
    Ok(html_ok(pagina_lista(&ctx, &Campos::default(), &Errores::default())))
}

/// The form's text of field `name`, when filled in.
fn texto(campos: &Campos, name: &str) -> Option<String> {
    campos.valor(name).map(str::to_owned)
}

/// `POST /panel/empresas`: creates the company as `POST /api/empresas` does; the new company
/// becomes the current one.
pub async fn crear(State(app): State<AppContext>, headers: HeaderMap, formulario: Formulario) -> Pagina {
    let Formulario { session, campos } = formulario;
    let fields = empresas::Campos {
        rfc: texto(&campos, "rfc"),
        razon_social: texto(&campos, "razonSocial"),
        regimen_fiscal: texto(&campos, "regimenFiscal"),
        codigo_postal: texto(&campos, "codigoPostal"),
        nombre_comercial: texto(&campos, "nombreComercial"),
        sandbox: Some(campos.valor("sandbox") != Some("false")),
        ..empresas::Campos::default()
    };
    match empresas::create(&app, &session.caller, fields).await {
        Ok(empresa) => {
            let mut response = redirigir(&format!("/panel/empresas/{}?aviso=empresa-creada", empresa.id));
            if let Some(value) = super::cookie_panel(&app, super::EMPRESA_COOKIE, empresa.id.as_str(), "Lax") {
                response.headers_mut().insert(axum::http::header::SET_COOKIE, value);
            }
            Ok(response)
        }
        Err(error) => {
            let ctx = contexto(&app, session, &headers, &HashMap::new()).await?;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_lista(&ctx, &campos, &errores)))
        }
    }
}

/// What the company page shows besides the shell: the company, its FIEL status and members.
struct Detalle {
    empresa: EmpresaRow,
    fiel: Option<FielGuardada>,
    /// Whether the stored FIEL's validity ended.
    fiel_vencida: bool,
    members: Vec<MemberRow>,
}

async fn leer_detalle(app: &AppContext, session: &Session, id: &str) -> Result<Detalle, ApiError> {
    session.caller.authorize(app, &EmpresaId::from(id), Permission::EmpresaView).await?;
    let empresa = empresas::get(app, &session.caller, id).await?;
    let fiel = fiel::guardada(app, &EmpresaId::from(id)).await?;
    let fiel_vencida = fiel.as_ref().is_some_and(|fiel| fiel.vigencia_fin <= app.clock.now());
    let members = memberships::list(app, &EmpresaId::from(id)).await.unwrap_or_default();
    Ok(Detalle { empresa, fiel, fiel_vencida, members })
}

/// Which form of the company page failed, so its problems show beside it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seccion {
    Ninguna,
    Datos,
    Csd,
    Fiel,
    Members,
}

/// The day of an instant, `AAAA-MM-DD`.
fn fecha(at: OffsetDateTime) -> String {
    format!("{:04}-{:02}-{:02}", at.year(), u8::from(at.month()), at.day())
}

/// The stored value of the company form's field `name`.
fn guardado(e: &EmpresaRow, name: &str) -> Option<String> {
    match name {
        "razonSocial" => Some(e.razon_social.clone()),
        "regimenFiscal" => Some(e.regimen_fiscal.clone()),
        "codigoPostal" => Some(e.codigo_postal.clone()),
        "nombreComercial" => e.nombre_comercial.clone(),
        "seriePredeterminada" => Some(e.serie_predeterminada.clone()),
        "registroPatronal" => e.registro_patronal.clone(),
        _ => None,
    }
}

fn pagina_detalle(
    ctx: &Contexto,
    detalle: &Detalle,
    seccion: Seccion,
    campos: &Campos,
    errores: &Errores,
    resultado: Option<Markup>,
) -> Markup {
    let e = &detalle.empresa;
    let id = e.id.as_str();
    let vacio = Errores::default();
    let err = |s: Seccion| if s == seccion { errores } else { &vacio };
    let valor = |s: Seccion, name: &str| -> Option<String> {
        if s == seccion { campos.valor(name).map(str::to_owned) } else { guardado(e, name) }
    };
    let contenido = html! {
        @if let Some(resultado) = resultado { (resultado) }
        section aria-labelledby="datos" {
            h2 id="datos" { "Datos fiscales" }
            p { "RFC: " strong { (e.rfc) } " · Su rol: " (e.role) }
            (caja_errores(err(Seccion::Datos)))
            form method="post" action={ "/panel/empresas/" (id) } {
                (csrf_oculto(&ctx.session))
                (campo("razonSocial", "Razón social", Tipo::Texto, valor(Seccion::Datos, "razonSocial").as_deref(), true, err(Seccion::Datos)))
                (seleccion("regimenFiscal", "Régimen fiscal", REGIMENES, valor(Seccion::Datos, "regimenFiscal").as_deref(), err(Seccion::Datos)))
                (campo("codigoPostal", "Código postal", Tipo::Texto, valor(Seccion::Datos, "codigoPostal").as_deref(), true, err(Seccion::Datos)))
                (campo("nombreComercial", "Nombre comercial", Tipo::Texto, valor(Seccion::Datos, "nombreComercial").as_deref(), false, err(Seccion::Datos)))
                (campo("seriePredeterminada", "Serie de facturas", Tipo::Texto, valor(Seccion::Datos, "seriePredeterminada").as_deref(), false, err(Seccion::Datos)))
                (campo("registroPatronal", "Registro patronal (IMSS)", Tipo::Texto, valor(Seccion::Datos, "registroPatronal").as_deref(), false, err(Seccion::Datos)))
                (seleccion("sandbox", "Modo", &[("true", "Pruebas (sandbox)"), ("false", "Real (live)")],
                    Some(if seccion == Seccion::Datos { campos.valor("sandbox").unwrap_or("true") }
                         else if e.sandbox { "true" } else { "false" }),
                    err(Seccion::Datos)))
                button type="submit" { "Guardar cambios" }
            }
        }
        section aria-labelledby="csd" {
            h2 id="csd" { "Certificado de sello digital (CSD)" }
            @if let Some(fin) = e.csd_vigencia_fin {
                p { "Vigente hasta " strong { (fecha(fin)) } "." }
            } @else {
                p { "Sin CSD. " @if e.sandbox {
                    "En modo pruebas no hace falta: el servicio usa un CSD de prueba para su RFC." } }
            }
            (caja_errores(err(Seccion::Csd)))
            (form_certificado(ctx, &format!("/panel/empresas/{id}/csd"), "Subir CSD", err(Seccion::Csd)))
        }
        section aria-labelledby="fiel" {
            h2 id="fiel" { "e.firma (FIEL)" }
            @if let Some(fiel) = &detalle.fiel {
                p {
                    "No. de certificado " strong { (fiel.no_certificado) }
                    ", vigente hasta " strong { (fecha(fiel.vigencia_fin)) }
                    @if detalle.fiel_vencida { " (vencida)" }
                    "."
                }
            } @else {
                p { "Sin e.firma: hace falta para descargar del SAT las facturas recibidas." }
            }
            (caja_errores(err(Seccion::Fiel)))
            (form_certificado(ctx, &format!("/panel/empresas/{id}/fiel"), "Subir e.firma", err(Seccion::Fiel)))
        }
        @if !detalle.members.is_empty() {
            section aria-labelledby="miembros" {
                h2 id="miembros" { "Miembros y roles" }
                table {
                    caption { "Personas con acceso a esta empresa" }
                    (encabezados(&[Columna::Texto("Nombre"), Columna::Texto("Correo"), Columna::Texto("Rol"), Columna::Texto("Quitar")]))
                    tbody {
                        @for m in &detalle.members {
                            tr {
                                td { (m.name) }
                                td { (m.email) }
                                td {
                                    form.en-linea method="post" action={ "/panel/empresas/" (id) "/miembros/" (m.user_id) } {
                                        (csrf_oculto(&ctx.session))
                                        label.oculto for={ "rol-" (m.user_id) } { "Rol de " (m.email) }
                                        select id={ "rol-" (m.user_id) } name="role" {
                                            @for (value, text) in ROLES {
                                                option value=(value) selected[*value == m.role] { (text) }
                                            }
                                        }
                                        button type="submit" { "Cambiar rol" }
                                    }
                                }
                                td {
                                    form.en-linea method="post" action={ "/panel/empresas/" (id) "/miembros/" (m.user_id) "/quitar" } {
                                        (csrf_oculto(&ctx.session))
                                        button.peligro type="submit" aria-label={ "Quitar a " (m.email) } { "Quitar" }
                                    }
                                }
                            }
                        }
                    }
                }
                h3 { "Agregar miembro" }
                (caja_errores(err(Seccion::Members)))
                form method="post" action={ "/panel/empresas/" (id) "/miembros" } {
                    (csrf_oculto(&ctx.session))
                    (campo("email", "Correo de un usuario registrado", Tipo::Correo,
                        if seccion == Seccion::Members { campos.valor("email") } else { None }, true, err(Seccion::Members)))
                    (seleccion("role", "Rol", ROLES, Some("CONTADOR"), err(Seccion::Members)))
                    button type="submit" { "Agregar" }
                }
            }
        }
    };
    pagina(ctx, &e.razon_social, "/panel/empresas", contenido)
}

fn form_certificado(ctx: &Contexto, action: &str, boton: &str, errores: &Errores) -> Markup {
    html! {
        form method="post" action=(action) enctype="multipart/form-data" {
            (csrf_oculto(&ctx.session))
            (campo("cerBase64", "Archivo .cer", Tipo::Archivo, None, true, errores))
            (campo("keyBase64", "Archivo .key", Tipo::Archivo, None, true, errores))
            (campo("password", "Contraseña de la llave privada", Tipo::Clave, None, true, errores))
            button type="submit" { (boton) }
        }
    }
}

async fn render_detalle(
    app: &AppContext,
    session: Session,
    headers: &HeaderMap,
    id: &str,
    aviso: Option<&str>,
    fallo: Option<(Seccion, Campos, ApiError)>,
    resultado: Option<Markup>,
) -> Pagina {
    let mut params = HashMap::from([("empresa".to_owned(), id.to_owned())]);
    if let Some(aviso) = aviso {
        params.insert("aviso".to_owned(), aviso.to_owned());
    }
    let detalle = leer_detalle(app, &session, id).await?;
    let ctx = contexto(app, session, headers, &params).await?;
    Ok(match fallo {
        Some((seccion, campos, error)) => {
            let errores = Errores::de(error);
            html_con(errores.status(), pagina_detalle(&ctx, &detalle, seccion, &campos, &errores, resultado))
        }
        None => html_ok(pagina_detalle(
            &ctx,
            &detalle,
            Seccion::Ninguna,
            &Campos::default(),
            &Errores::default(),
            resultado,
        )),
    })
}

/// `GET /panel/empresas/{id}`.
pub async fn detalle(
    State(app): State<AppContext>,
    session: Session,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    render_detalle(&app, session, &headers, &id, params.get("aviso").map(String::as_str), None, None).await
}

/// `POST /panel/empresas/{id}`: the company's update, as `PATCH /api/empresas/{id}` does it.
pub async fn editar(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    let Formulario { session, campos } = formulario;
    let fields = empresas::Campos {
        razon_social: texto(&campos, "razonSocial"),
        regimen_fiscal: texto(&campos, "regimenFiscal"),
        codigo_postal: texto(&campos, "codigoPostal"),
        nombre_comercial: texto(&campos, "nombreComercial"),
        serie_predeterminada: texto(&campos, "seriePredeterminada"),
        registro_patronal: texto(&campos, "registroPatronal"),
        sandbox: Some(campos.valor("sandbox") != Some("false")),
        ..empresas::Campos::default()
    };
    let result = async {
        session.caller.authorize(&app, &EmpresaId::from(&id), Permission::EmpresaEdit).await?;
        empresas::update(&app, &session.caller, &id, fields).await
    }
    .await;
    match result {
        Ok(_) => Ok(redirigir(&format!("/panel/empresas/{id}?aviso=empresa-guardada"))),
        Err(error) => {
            render_detalle(&app, session, &headers, &id, None, Some((Seccion::Datos, campos, error)), None).await
        }
    }
}

/// The outcome of a certificate upload in words: number and validity.
fn resultado_certificado(que: &str, guardado: &Guardado) -> Markup {
    html! {
        div.aviso role="status" {
            p { strong { (que) " guardado." } }
            p { "No. de certificado: " strong { (guardado.no_certificado) } }
            p { "Vigente hasta: " strong { (fecha(guardado.vigencia_fin)) } }
        }
    }
}

async fn subir(app: AppContext, headers: HeaderMap, id: String, formulario: Formulario, csd: bool) -> Pagina {
    let Formulario { session, campos } = formulario;
    let (cer, key) = (texto(&campos, "cerBase64"), texto(&campos, "keyBase64"));
    let password = campos.0.iter().find(|(k, _)| k == "password").map(|(_, v)| v.clone()).filter(|v| !v.is_empty());
    let result = async {
        session.caller.authorize(&app, &EmpresaId::from(&id), Permission::EmpresaCsd).await?;
        if csd {
            credenciales::subir_csd(&app, &EmpresaId::from(&id), cer, key, password).await
        } else {
            fiel::subir(&app, &EmpresaId::from(&id), cer, key, password).await
        }
    }
    .await;
    let seccion = if csd { Seccion::Csd } else { Seccion::Fiel };
    match result {
        Ok(guardado) => {
            let que = if csd { "CSD" } else { "e.firma" };
            render_detalle(&app, session, &headers, &id, None, None, Some(resultado_certificado(que, &guardado))).await
        }
        Err(error) => render_detalle(&app, session, &headers, &id, None, Some((seccion, campos, error)), None).await,
    }
}

/// `POST /panel/empresas/{id}/csd` (multipart: the .cer, the .key, the password).
pub async fn subir_csd(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    subir(app, headers, id, formulario, true).await
}

/// `POST /panel/empresas/{id}/fiel`.
pub async fn subir_fiel(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    subir(app, headers, id, formulario, false).await
}

/// The answer of a form of the members' section: back to the section with the notice `aviso`
/// when `result` is done, else the company's page again with the form and its problem.
async fn after_members_form(
    app: &AppContext,
    session: Session,
    headers: &HeaderMap,
    id: &str,
    campos: Campos,
    result: Result<(), ApiError>,
    aviso: &str,
) -> Pagina {
    match result {
        Ok(()) => Ok(redirigir(&format!("/panel/empresas/{id}?aviso={aviso}#miembros"))),
        Err(error) => {
            render_detalle(app, session, headers, id, None, Some((Seccion::Members, campos, error)), None).await
        }
    }
}

/// `POST /panel/empresas/{id}/miembros`: adds the member as the API does.
pub async fn add_member(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath(id): AxumPath<String>,
    formulario: Formulario,
) -> Pagina {
    let Formulario { session, campos } = formulario;
    let result = async {
        let access = session.caller.authorize(&app, &EmpresaId::from(&id), Permission::MemberManage).await?;
        let role = memberships::parse_role(campos.valor("role"))?;
        let email = campos.valor("email").unwrap_or_default();
        memberships::add(&app, access.role, &EmpresaId::from(&id), email, role).await.map(drop)
    }
    .await;
    after_members_form(&app, session, &headers, &id, campos, result, "miembro-agregado").await
}

/// `POST /panel/empresas/{id}/miembros/{user_id}`: changes the role as the API does.
pub async fn change_member(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath((id, user_id)): AxumPath<(String, String)>,
    formulario: Formulario,
) -> Pagina {
    let Formulario { session, campos } = formulario;
    let result = async {
        let access = session.caller.authorize(&app, &EmpresaId::from(&id), Permission::MemberManage).await?;
        let role = memberships::parse_role(campos.valor("role"))?;
        memberships::change_role(&app, access.role, &EmpresaId::from(&id), &UserId::from(&user_id), role)
            .await
            .map(drop)
    }
    .await;
    after_members_form(&app, session, &headers, &id, campos, result, "miembro-guardado").await
}

/// `POST /panel/empresas/{id}/miembros/{user_id}/quitar`: removes the member as the API does
/// (leaving a company oneself takes only a role in it).
pub async fn remove_member(
    State(app): State<AppContext>,
    headers: HeaderMap,
    AxumPath((id, user_id)): AxumPath<(String, String)>,
    formulario: Formulario,
) -> Pagina {
    let Formulario { session, campos } = formulario;
    let result = async {
        let permission =
            if user_id == session.caller.user_id { Permission::EmpresaView } else { Permission::MemberManage };
        let access = session.caller.authorize(&app, &EmpresaId::from(&id), permission).await?;
        memberships::remove(&app, access.role, &EmpresaId::from(&id), &UserId::from(&user_id)).await
    }
    .await;
    after_members_form(&app, session, &headers, &id, campos, result, "miembro-quitado").await
}
