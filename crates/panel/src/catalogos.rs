//! Customers and products: one list/form shape for both (search, paging, create, edit,
//! delete), each action the shared CRUD of the services (`timbra_services::scoped`) that the
//! API's `/api/clientes` and `/api/productos` call, with the same permissions.

use std::collections::HashMap;
use timbra_store::ids::EmpresaId;

use axum::Router;
use axum::extract::{Path as AxumPath, Query, State};
use axum::routing::{get, post};
use maud::{Markup, html};

use super::layout::{
    Columna, Contexto, Errores, Sugerencias, Tipo, busqueda, caja_errores, campo_sugerido, csrf_oculto, listado,
    pagina, paginas_de,
};
use super::{Accion, Campos, Pagina, Session, Vista, html_con, html_ok, paging, pesos, redirigir};
use timbra_services::auth::roles::Permission;
use timbra_services::clientes::{self, Clientes};
use timbra_services::context::AppContext;
use timbra_services::error::ApiError;
use timbra_services::productos::{self, Productos};
use timbra_services::scoped;
use timbra_services::validate::RawAmount;
use timbra_store::Paging;
use timbra_store::clientes::ClienteRow;
use timbra_store::productos::ProductoRow;

/// Routes of the customers' and products' pages.
pub fn rutas() -> Router<AppContext> {
    let mut router = Router::new();
    for catalogo in [Catalogo::Clientes, Catalogo::Productos] {
        let c = catalogo;
        router = router
            .route(c.ruta(), get(move |a, v| listar_pagina(c, a, v)).post(move |a, f| crear(c, a, f)))
            .route(&format!("{}/nuevo", c.ruta()), get(move |a, v| nuevo(c, a, v)))
            .route(
                &format!("{}/{{id}}", c.ruta()),
                get(move |a, v, p| ficha(c, a, v, p)).post(move |a, p, f| editar(c, a, p, f)),
            )
            .route(&format!("{}/{{id}}/borrar", c.ruta()), post(move |a, p, f| borrar(c, a, p, f)));
    }
    router
        .route("/panel/sugerencias/{catalogo}", get(sugerencias))
        .route("/panel/opciones/usos-cfdi", get(opciones_usos))
}

/// Most suggestions a field shows.
const MAX_SUGERENCIAS: usize = 20;

/// The type-ahead of the forms' catalog fields: `option`s for the field's `datalist`, from
/// SAT's catalogs held in memory (the searches of `GET /api/catalogos/…`). Any logged-in
/// person: it answers SAT's public catalogs, nothing of a company.
async fn sugerencias(
    State(app): State<AppContext>,
    _session: Session,
    AxumPath(catalogo): AxumPath<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let valor = |nombre: &str| params.get(nombre).map(|v| v.trim()).unwrap_or_default();
    let hoy = app.clock.now().date();
    let opciones: Vec<(String, String)> = match catalogo.as_str() {
        "productos-servicios" => app
            .catalogos
            .buscador
            .buscar(valor("claveProdServ"), 0, MAX_SUGERENCIAS)
            .filas
            .into_iter()
            .map(|p| (p.clave.clone(), format!("{} — {}", p.clave, p.descripcion)))
            .collect(),
        "unidades" => timbra_catalogos::buscador::buscar_unidades(&app.catalogos.unidades, valor("claveUnidad"), hoy)
            .into_iter()
            .take(MAX_SUGERENCIAS)
            .map(|u| (u.clave.clone(), format!("{} — {}", u.clave, u.nombre)))
            .collect(),
        "regimenes-fiscales" => app
            .catalogos
            .pequenos
            .get("cfdi40/c_RegimenFiscal")
            .map(|c| c.filas.iter().map(|f| (f.clave.clone(), format!("{} — {}", f.clave, f.descripcion))).collect())
            .unwrap_or_default(),
        "usos-cfdi" => usos(&app, valor("regimenFiscal"), valor("rfc")),
        _ => return Err(ApiError::not_found("catalog").into()),
    };
    Ok(html_ok(html! { @for (valor, texto) in &opciones { option value=(valor) { (texto) } } }))
}

/// c_RegimenFiscal as `(clave, "clave — descripción")`, the options of a régimen picker.
pub fn regimenes(app: &AppContext) -> Vec<(String, String)> {
    app.catalogos
        .pequenos
        .get("cfdi40/c_RegimenFiscal")
        .map(|c| c.filas.iter().map(|f| (f.clave.clone(), format!("{} — {}", f.clave, f.descripcion))).collect())
        .unwrap_or_default()
}

/// The usos of c_UsoCFDI a receiver may be given, as `(clave, "clave — descripción")`: Anexo
/// 20's catalog lists the receiver's régimenes each uso goes with and whether a persona física
/// or moral may take it (an RFC of 12 characters is a persona moral's, of 13 a física's);
/// an empty régimen or RFC does not filter.
pub fn usos(app: &AppContext, regimen: &str, rfc: &str) -> Vec<(String, String)> {
    let moral = match rfc.trim().chars().count() {
        12 => Some(true),
        13 => Some(false),
        _ => None,
    };
    app.catalogos
        .usos
        .iter()
        .filter(|u| regimen.is_empty() || u.regimenes_receptores.iter().any(|r| r == regimen))
        .filter(|u| moral.is_none_or(|moral| if moral { u.aplica_moral } else { u.aplica_fisica }))
        .map(|u| (u.clave.clone(), format!("{} — {}", u.clave, u.descripcion)))
        .collect()
}

/// `GET /panel/opciones/usos-cfdi` (htmx, when the régimen or the customer changes): the
/// `option`s of a uso picker for the régimen and RFC given (`regimenFiscal`, `rfc`), or for
/// the customer `clienteId` of the current company (an invoice's picker; empty: público en
/// general, régimen 616). The chosen `usoCfdi` stays chosen while it still applies.
async fn opciones_usos(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
    let valor = |nombre: &str| params.get(nombre).map(|v| v.trim().to_owned()).unwrap_or_default();
    let elegido = valor("usoCfdi");
    let (regimen, rfc, vacia) = match params.get("clienteId") {
        None => (valor("regimenFiscal"), valor("rfc"), VACIA_USO.to_owned()),
        Some(id) if id.is_empty() => ("616".to_owned(), "XAXX010101000".to_owned(), VACIA_USO_FACTURA.to_owned()),
        Some(id) => {
            let empresa_id = ctx.empresa()?.id.clone();
            let Registro::Cliente(cliente) = Catalogo::Clientes.leer(&app, &ctx.session, &empresa_id, id).await? else {
                return Err(ApiError::not_found("customer").into());
            };
            let vacia = format!("{} ({})", VACIA_USO_FACTURA, cliente.uso_cfdi);
            (cliente.regimen_fiscal, cliente.rfc, vacia)
        }
    };
    let opciones = usos(&app, &regimen, &rfc);
    Ok(html_ok(opciones_de(&vacia, &opciones, Some(&elegido))))
}

/// The empty choice of the customers' uso picker (the services then use G03).
const VACIA_USO: &str = "— Elija el uso —";
/// The empty choice of an invoice's uso picker: the customer's own uso.
pub const VACIA_USO_FACTURA: &str = "El del cliente";

/// A picker's `option`s: the empty choice `vacia`, then `opciones`, `elegido` selected.
pub fn opciones_de(vacia: &str, opciones: &[(String, String)], elegido: Option<&str>) -> Markup {
    html! {
        option value="" { (vacia) }
        @for (valor, texto) in opciones {
            option value=(valor) selected[elegido == Some(valor.as_str())] { (texto) }
        }
    }
}

/// Which catalog a page shows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Catalogo {
    /// Customers (`/api/clientes`).
    Clientes,
    /// Products (`/api/productos`).
    Productos,
}

/// A field of the form: API name, label, kind, required, hint, type-ahead from SAT's catalogs.
struct Campo {
    nombre: &'static str,
    etiqueta: &'static str,
    tipo: Tipo,
    requerido: bool,
    ayuda: Option<&'static str>,
    sugerencias: Option<Sugerencias>,
    /// Picked from a SAT catalog instead of typed.
    lista: Option<Lista>,
}

/// The SAT catalogs a field is picked from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lista {
    /// c_RegimenFiscal; choosing one refreshes the uso picker.
    Regimen,
    /// c_UsoCFDI, filtered by the régimen and the RFC's persona.
    Uso,
}
/// c_ClaveProdServ by code or words of its description.
const PRODUCTOS_SERVICIOS: Sugerencias = Sugerencias { ruta: "/panel/sugerencias/productos-servicios", incluir: None };
/// c_ClaveUnidad by code or name.
const UNIDADES: Sugerencias = Sugerencias { ruta: "/panel/sugerencias/unidades", incluir: None };

const CAMPOS_CLIENTE: &[Campo] = &[
    Campo {
        nombre: "rfc",
        etiqueta: "RFC",
        tipo: Tipo::Texto,
        requerido: true,
        ayuda: None,
        sugerencias: None,
        lista: None,
    },
    Campo {
        nombre: "razonSocial",
        etiqueta: "Razón social",
        tipo: Tipo::Texto,
        requerido: true,
        ayuda: Some("Como en su Constancia de Situación Fiscal"),
        sugerencias: None,
        lista: None,
    },
    Campo {
        nombre: "regimenFiscal",
        etiqueta: "Régimen fiscal",
        tipo: Tipo::Texto,
        requerido: true,
        ayuda: Some("Como en la Constancia de Situación Fiscal del cliente"),
        sugerencias: None,
        lista: Some(Lista::Regimen),
    },
    Campo {
        nombre: "codigoPostal",
        etiqueta: "Código postal del domicilio fiscal",
        tipo: Tipo::Texto,
        requerido: true,
        ayuda: None,
        sugerencias: None,
        lista: None,
    },
    Campo {
        nombre: "usoCfdi",
        etiqueta: "Uso del CFDI",
        tipo: Tipo::Texto,
        requerido: false,
        ayuda: Some("Los usos que el SAT permite para el régimen y el RFC; G03 si no elige otro"),
        sugerencias: None,
        lista: Some(Lista::Uso),
    },
    Campo {
        nombre: "email",
        etiqueta: "Correo electrónico",
        tipo: Tipo::Correo,
        requerido: false,
        ayuda: None,
        sugerencias: None,
        lista: None,
    },
];

const CAMPOS_PRODUCTO: &[Campo] = &[
    Campo {
        nombre: "descripcion",
        etiqueta: "Descripción",
        tipo: Tipo::Texto,
        requerido: true,
        ayuda: None,
        sugerencias: None,
        lista: None,
    },
    Campo {
        nombre: "claveProdServ",
        etiqueta: "Clave de producto o servicio",
        tipo: Tipo::Texto,
        requerido: true,
        ayuda: Some("8 dígitos del catálogo c_ClaveProdServ, p. ej. 81112100"),
        sugerencias: Some(PRODUCTOS_SERVICIOS),
        lista: None,
    },
    Campo {
        nombre: "claveUnidad",
        etiqueta: "Clave de unidad",
        tipo: Tipo::Texto,
        requerido: true,
        ayuda: Some("c_ClaveUnidad: E48 servicio, H87 pieza"),
        sugerencias: Some(UNIDADES),
        lista: None,
    },
    Campo {
        nombre: "precioUnitario",
        etiqueta: "Precio unitario (sin IVA)",
        tipo: Tipo::Importe,
        requerido: true,
        ayuda: None,
        sugerencias: None,
        lista: None,
    },
    Campo {
        nombre: "ivaRate",
        etiqueta: "Tasa de IVA",
        tipo: Tipo::Importe,
        requerido: false,
        ayuda: Some("0.16, 0.08 o 0; 0.16 si lo deja vacío"),
        sugerencias: None,
        lista: None,
    },
];

impl Catalogo {
    fn ruta(self) -> &'static str {
        match self {
            Catalogo::Clientes => "/panel/clientes",
            Catalogo::Productos => "/panel/productos",
        }
    }
    fn titulo(self) -> &'static str {
        match self {
            Catalogo::Clientes => "Clientes",
            Catalogo::Productos => "Productos",
        }
    }
    fn singular(self) -> &'static str {
        match self {
            Catalogo::Clientes => "cliente",
            Catalogo::Productos => "producto",
        }
    }
    fn campos(self) -> &'static [Campo] {
        match self {
            Catalogo::Clientes => CAMPOS_CLIENTE,
            Catalogo::Productos => CAMPOS_PRODUCTO,
        }
    }
    fn busqueda(self) -> &'static str {
        match self {
            Catalogo::Clientes => "Buscar por RFC o razón social",
            Catalogo::Productos => "Buscar por descripción o clave",
        }
    }

    /// The permissions of viewing, creating, editing and deleting a record (the API's).
    fn permisos(self) -> [Permission; 4] {
        match self {
            Catalogo::Clientes => {
                [Permission::ClienteView, Permission::ClienteCreate, Permission::ClienteEdit, Permission::ClienteDelete]
            }
            Catalogo::Productos => [
                Permission::ProductoView,
                Permission::ProductoCreate,
                Permission::ProductoEdit,
                Permission::ProductoDelete,
            ],
        }
    }

    /// One page of this catalog in the company, those matching `q`; and how many match.
    async fn listar(
        self,
        app: &AppContext,
        session: &Session,
        empresa_id: &EmpresaId,
        q: Option<&str>,
        paging: &Paging,
    ) -> Result<(Vec<Registro>, i64), ApiError> {
        session.caller.authorize(app, empresa_id, self.permisos()[0]).await?;
        Ok(match self {
            Catalogo::Clientes => {
                let (filas, total) = scoped::page::<Clientes>(app, empresa_id, q, paging).await?;
                (filas.into_iter().map(Registro::Cliente).collect(), total)
            }
            Catalogo::Productos => {
                let (filas, total) = scoped::page::<Productos>(app, empresa_id, q, paging).await?;
                (filas.into_iter().map(Registro::Producto).collect(), total)
            }
        })
    }

    async fn leer(
        self,
        app: &AppContext,
        session: &Session,
        empresa_id: &EmpresaId,
        id: &str,
    ) -> Result<Registro, ApiError> {
        session.caller.authorize(app, empresa_id, self.permisos()[0]).await?;
        Ok(match self {
            Catalogo::Clientes => Registro::Cliente(scoped::get::<Clientes>(app, empresa_id, id).await?),
            Catalogo::Productos => Registro::Producto(scoped::get::<Productos>(app, empresa_id, id).await?),
        })
    }

    /// Creates (`id` absent) or updates the record from the form's fields; fields left empty
    /// are not sent (on update they keep their value).
    async fn guardar(
        self,
        app: &AppContext,
        session: &Session,
        empresa_id: &EmpresaId,
        id: Option<&str>,
        campos: &Campos,
    ) -> Result<(), ApiError> {
        let permiso = if id.is_some() { self.permisos()[2] } else { self.permisos()[1] };
        session.caller.authorize(app, empresa_id, permiso).await?;
        let texto = |nombre: &str| campos.valor(nombre).map(str::to_owned);
        match self {
            Catalogo::Clientes => {
                let fields = clientes::Campos {
                    rfc: texto("rfc"),
                    razon_social: texto("razonSocial"),
                    regimen_fiscal: texto("regimenFiscal"),
                    codigo_postal: texto("codigoPostal"),
                    uso_cfdi: texto("usoCfdi"),
                    email: texto("email"),
                    residencia_fiscal: None,
                    num_reg_id_trib: None,
                };
                match id {
                    None => scoped::create::<Clientes>(app, empresa_id, fields).await.map(drop),
                    Some(id) => scoped::update::<Clientes>(app, empresa_id, id, fields).await.map(drop),
                }
            }
            Catalogo::Productos => {
                let fields = productos::Campos {
                    clave_prod_serv: texto("claveProdServ"),
                    clave_unidad: texto("claveUnidad"),
                    descripcion: texto("descripcion"),
                    precio_unitario: campos.valor("precioUnitario").map(RawAmount::from_text),
                    iva_rate: campos.valor("ivaRate").map(RawAmount::from_text),
                    fraccion_arancelaria: None,
                    material_peligroso: None,
                };
                match id {
                    None => scoped::create::<Productos>(app, empresa_id, fields).await.map(drop),
                    Some(id) => scoped::update::<Productos>(app, empresa_id, id, fields).await.map(drop),
                }
            }
        }
    }

    async fn borrar(
        self,
        app: &AppContext,
        session: &Session,
        empresa_id: &EmpresaId,
        id: &str,
    ) -> Result<(), ApiError> {
        session.caller.authorize(app, empresa_id, self.permisos()[3]).await?;
        match self {
            Catalogo::Clientes => scoped::delete::<Clientes>(app, empresa_id, id).await,
            Catalogo::Productos => scoped::delete::<Productos>(app, empresa_id, id).await,
        }
    }

    fn encabezados(self) -> &'static [Columna] {
        use Columna::Texto;
        match self {
            Catalogo::Clientes => {
                &[Texto("Razón social"), Texto("RFC"), Texto("Régimen"), Texto("C.P."), Texto("Uso CFDI")]
            }
            Catalogo::Productos => {
                &[Texto("Descripción"), Texto("Clave"), Texto("Unidad"), Texto("Precio"), Texto("IVA")]
            }
        }
    }
}

/// A stored customer or product.
enum Registro {
    Cliente(ClienteRow),
    Producto(ProductoRow),
}

impl Registro {
    fn id(&self) -> &str {
        match self {
            Registro::Cliente(c) => &c.id,
            Registro::Producto(p) => &p.id,
        }
    }

    /// What names it: the customer's legal name, the product's description.
    fn nombre(&self) -> &str {
        match self {
            Registro::Cliente(c) => &c.razon_social,
            Registro::Producto(p) => &p.descripcion,
        }
    }

    /// The stored value of the form's field `nombre`.
    fn valor(&self, nombre: &str) -> Option<String> {
        match self {
            Registro::Cliente(c) => match nombre {
                "rfc" => Some(c.rfc.clone()),
                "razonSocial" => Some(c.razon_social.clone()),
                "regimenFiscal" => Some(c.regimen_fiscal.clone()),
                "codigoPostal" => Some(c.codigo_postal.clone()),
                "usoCfdi" => Some(c.uso_cfdi.clone()),
                "email" => c.email.clone(),
                _ => None,
            },
            Registro::Producto(p) => match nombre {
                "descripcion" => Some(p.descripcion.clone()),
                "claveProdServ" => Some(p.clave_prod_serv.clone()),
                "claveUnidad" => Some(p.clave_unidad.clone()),
                "precioUnitario" => Some(p.precio_unitario.0.to_string()),
                "ivaRate" => Some(p.iva_rate.0.to_string()),
                _ => None,
            },
        }
    }

    /// Its row in the list, linking to its page under `ruta`.
    fn fila(&self, ruta: &str) -> Markup {
        let enlace = format!("{ruta}/{}", self.id());
        match self {
            Registro::Cliente(c) => html! {
                tr {
                    td data-titulo="Razón social" { a href=(enlace) { (c.razon_social) } }
                    td data-titulo="RFC" { (c.rfc) }
                    td data-titulo="Régimen" { (c.regimen_fiscal) }
                    td data-titulo="C.P." { (c.codigo_postal) }
                    td data-titulo="Uso CFDI" { (c.uso_cfdi) }
                }
            },
            Registro::Producto(p) => html! {
                tr {
                    td data-titulo="Descripción" { a href=(enlace) { (p.descripcion) } }
                    td data-titulo="Clave" { (p.clave_prod_serv) }
                    td data-titulo="Unidad" { (p.clave_unidad) }
                    td.importe data-titulo="Precio" { (pesos(p.precio_unitario.0)) }
                    td.importe data-titulo="IVA" { (p.iva_rate.0.to_string()) }
                }
            },
        }
    }
}

/// The form's value of a field: what was typed (after a failure), else the stored one.
fn valor_de(campos: &Campos, guardado: Option<&Registro>, nombre: &str) -> Option<String> {
    match campos.valor(nombre) {
        Some(value) => Some(value.to_owned()),
        None => guardado?.valor(nombre),
    }
}

fn formulario(
    app: &AppContext,
    catalogo: Catalogo,
    ctx: &Contexto,
    accion: &str,
    guardado: Option<&Registro>,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    html! {
        (caja_errores(errores))
        form method="post" action=(accion) {
            (csrf_oculto(&ctx.session))
            @for c in catalogo.campos() {
                @let valor = valor_de(campos, guardado, c.nombre);
                @match c.lista {
                    None => { (campo_sugerido(c.nombre, c.etiqueta, c.tipo, valor.as_deref(), c.requerido, errores, c.ayuda, c.sugerencias)) }
                    Some(Lista::Regimen) => { (lista(c, errores, valor.as_deref(), opciones_de("— Elija el régimen —", &regimenes(app), valor.as_deref()),
                        Some(Recarga { ruta: "/panel/opciones/usos-cfdi", incluir: "#campo-rfc, #campo-usoCfdi", destino: "#campo-usoCfdi" }))) }
                    Some(Lista::Uso) => {
                        @let regimen = valor_de(campos, guardado, "regimenFiscal").unwrap_or_default();
                        @let rfc = valor_de(campos, guardado, "rfc").unwrap_or_default();
                        (lista(c, errores, valor.as_deref(), opciones_de(VACIA_USO, &usos(app, &regimen, &rfc), valor.as_deref()), None))
                    }
                }
            }
            button type="submit" { @if guardado.is_some() { "Guardar cambios" } @else { "Crear " (catalogo.singular()) } }
        }
    }
}

/// What a picker reloads when its choice changes (htmx): the options of `destino` from `ruta`,
/// sending the picker's value and the fields `incluir`.
struct Recarga {
    ruta: &'static str,
    incluir: &'static str,
    destino: &'static str,
}

/// A labelled picker of a SAT catalog (`opciones` already rendered) with its hint and its
/// problems beside it.
fn lista(c: &Campo, errores: &Errores, valor: Option<&str>, opciones: Markup, recarga: Option<Recarga>) -> Markup {
    let id = format!("campo-{}", c.nombre);
    let problemas = errores.de_campo(c.nombre);
    let (ayuda_id, error_id) = (format!("{id}-ayuda"), format!("{id}-error"));
    let mut descrita = Vec::new();
    if c.ayuda.is_some() {
        descrita.push(ayuda_id.clone());
    }
    if !problemas.is_empty() {
        descrita.push(error_id.clone());
    }
    let descrita = (!descrita.is_empty()).then(|| descrita.join(" "));
    html! {
        div.campo {
            label for=(id) { (c.etiqueta) @if c.requerido { span.requerido aria-hidden="true" { " *" } } }
            @if let Some(ayuda) = c.ayuda { small id=(ayuda_id) { (ayuda) } }
            select id=(id) name=(c.nombre) required[c.requerido] data-valor=[valor]
                aria-invalid=[(!problemas.is_empty()).then_some("true")] aria-describedby=[descrita]
                hx-get=[recarga.as_ref().map(|r| r.ruta)] hx-include=[recarga.as_ref().map(|r| r.incluir)]
                hx-target=[recarga.as_ref().map(|r| r.destino)] hx-swap=[recarga.as_ref().map(|_| "innerHTML")]
                hx-trigger=[recarga.as_ref().map(|_| "change")] {
                (opciones)
            }
            @if !problemas.is_empty() {
                ul.problemas id=(error_id) { @for problema in &problemas { li { (problema) } } }
            }
        }
    }
}

async fn listar_pagina(catalogo: Catalogo, State(app): State<AppContext>, vista: Vista) -> Pagina {
    let Vista { ctx, params } = vista;
    let empresa = ctx.empresa()?;
    let q = params.get("q").map(String::as_str).filter(|q| !q.is_empty());
    let paging = paging(&params)?;
    let (items, total) = catalogo.listar(&app, &ctx.session, &empresa.id, q, &paging).await?;
    let contenido = html! {
        p { a.boton href={ (catalogo.ruta()) "/nuevo" } { "Nuevo " (catalogo.singular()) } }
        (busqueda(catalogo.ruta(), catalogo.busqueda(), q))
        (listado(
            &items[..],
            html! { @if q.is_some() { "Nada coincide con la búsqueda." } @else { "Aún no hay registros." } },
            html! { (catalogo.titulo()) " de " (empresa.razon_social) },
            catalogo.encabezados(),
            |item| item.fila(catalogo.ruta()),
            Some(paginas_de(catalogo.ruta(), q, total, paging)),
        ))
    };
    Ok(html_ok(pagina(&ctx, catalogo.titulo(), catalogo.ruta(), contenido)))
}

async fn nuevo(catalogo: Catalogo, State(app): State<AppContext>, vista: Vista) -> Pagina {
    let ctx = vista.ctx;
    ctx.empresa()?;
    let contenido = formulario(&app, catalogo, &ctx, catalogo.ruta(), None, &Campos::default(), &Errores::default());
    Ok(html_ok(pagina(&ctx, &format!("Nuevo {}", catalogo.singular()), catalogo.ruta(), contenido)))
}

async fn crear(catalogo: Catalogo, State(app): State<AppContext>, accion: Accion) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    match catalogo.guardar(&app, &ctx.session, &empresa_id, None, &campos).await {
        Ok(()) => Ok(redirigir(&format!("{}?aviso={}-creado", catalogo.ruta(), catalogo.singular()))),
        Err(error) => {
            let errores = Errores::de(error);
            let contenido = formulario(&app, catalogo, &ctx, catalogo.ruta(), None, &campos, &errores);
            let titulo = format!("Nuevo {}", catalogo.singular());
            Ok(html_con(errores.status(), pagina(&ctx, &titulo, catalogo.ruta(), contenido)))
        }
    }
}

fn pagina_ficha(
    app: &AppContext,
    catalogo: Catalogo,
    ctx: &Contexto,
    guardado: &Registro,
    campos: &Campos,
    errores: &Errores,
) -> Markup {
    let id = guardado.id();
    let accion = format!("{}/{id}", catalogo.ruta());
    let contenido = html! {
        (formulario(app, catalogo, ctx, &accion, Some(guardado), campos, errores))
        h2 { "Eliminar" }
        form method="post" action={ (accion) "/borrar" } {
            (csrf_oculto(&ctx.session))
            p { "Las facturas ya emitidas conservan sus datos." }
            button.peligro type="submit" { "Eliminar " (catalogo.singular()) }
        }
    };
    pagina(ctx, guardado.nombre(), catalogo.ruta(), contenido)
}

async fn ficha(
    catalogo: Catalogo,
    State(app): State<AppContext>,
    vista: Vista,
    AxumPath(id): AxumPath<String>,
) -> Pagina {
    let ctx = vista.ctx;
    let empresa_id = ctx.empresa()?.id.clone();
    let guardado = catalogo.leer(&app, &ctx.session, &empresa_id, &id).await?;
    Ok(html_ok(pagina_ficha(&app, catalogo, &ctx, &guardado, &Campos::default(), &Errores::default())))
}

async fn editar(
    catalogo: Catalogo,
    State(app): State<AppContext>,
    AxumPath(id): AxumPath<String>,
    accion: Accion,
) -> Pagina {
    let Accion { ctx, empresa_id, campos } = accion;
    match catalogo.guardar(&app, &ctx.session, &empresa_id, Some(&id), &campos).await {
        Ok(()) => Ok(redirigir(&format!("{}?aviso={}-guardado", catalogo.ruta(), catalogo.singular()))),
        Err(error) => {
            let guardado = catalogo.leer(&app, &ctx.session, &empresa_id, &id).await?;
            let errores = Errores::de(error);
            Ok(html_con(errores.status(), pagina_ficha(&app, catalogo, &ctx, &guardado, &campos, &errores)))
        }
    }
}

async fn borrar(
    catalogo: Catalogo,
    State(app): State<AppContext>,
    AxumPath(id): AxumPath<String>,
    accion: Accion,
) -> Pagina {
    let Accion { ctx, empresa_id, .. } = accion;
    catalogo.borrar(&app, &ctx.session, &empresa_id, &id).await?;
    Ok(redirigir(&format!("{}?aviso={}-borrado", catalogo.ruta(), catalogo.singular())))
}
