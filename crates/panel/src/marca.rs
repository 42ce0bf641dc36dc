//! The company's branding (issue 32): logo, primary color and footer note of its PDFs, with a
//! live preview the service renders (`timbra_services::marca::vista_previa_svg`, an SVG image
//! drawn from the values in the form, before they are saved; not a frame of a PDF download).
//! The page calls the services with typed values: `marca::guardar_logo`, `marca::borrar_logo`,
//! `marca::guardar_pdf`, as `PUT /api/empresas/{id}/logo` and `PATCH /api/empresas/{id}` do.

use std::collections::HashMap;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::IntoResponse;
use axum::routing::get;
use base64::Engine;
use maud::{Markup, html};

use super::layout::{Contexto, Errores, Tipo, caja_errores, campo_con, contexto, csrf_oculto, pagina};
use super::{Campos, Formulario, Pagina, Vista, html_con, html_ok, redirigir};
use timbra_services::auth::roles::Permission;
use timbra_services::context::AppContext;
use timbra_services::error::{ApiError, Code};
use timbra_services::marca::{self, CambioPdf};

/// Routes of the branding page.
pub fn rutas() -> Router<AppContext> {
    Router::new()
        .route("/panel/marca", get(ver).post(guardar))
        .route("/panel/marca/vista", get(vista))
        .route("/panel/marca/vista.svg", get(vista_svg))
}

/// The preview's address for the form's values.
fn ruta_vista(color: &str, nota: &str) -> String {
    format!("/panel/marca/vista.svg?colorPrimario={}&notaPie={}", urlencoding::encode(color), urlencoding::encode(nota))
}

/// The preview image (replaced by htmx as the person types).
fn imagen(color: &str, nota: &str) -> Markup {
    html! {
        img id="vista-marca" src=(ruta_vista(color, nota)) width="600" height="420"
            alt="Vista previa del PDF con el logotipo, el color y la nota al pie";
    }
}

/// `GET /panel/marca`.
pub async fn ver(State(app): State<AppContext>, vista: Vista) -> Pagina {
    let ctx = vista.ctx;
    pagina_marca(&app, &ctx, None, &Errores::default()).await
}

async fn pagina_marca(app: &AppContext, ctx: &Contexto, form: Option<&Campos>, errores: &Errores) -> Pagina {
    let empresa = ctx.empresa()?;
    ctx.session.caller.authorize(app, &empresa.id, Permission::EmpresaView).await?;
    let guardada = marca::de_empresa(app, &empresa.id).await?;
    let color = form
        .and_then(|f| f.valor("colorPrimario"))
        .map(str::to_owned)
        .or(guardada.pdf_color_primario.clone())
        .unwrap_or_default();
    let nota =
        form.and_then(|f| f.valor("notaPie")).map(str::to_owned).or(guardada.pdf_nota_pie.clone()).unwrap_or_default();
    let actualizar = r#"[name='colorPrimario'],[name='notaPie']"#;
    let contenido = html! {
        p { "El logotipo, el color y la nota al pie aparecen en los PDF de sus facturas, pagos y recibos de nómina, "
            "y en la página de autofacturación. Un PDF guardado antes de un cambio se vuelve a generar en su siguiente descarga." }
        div.marca {
            section aria-labelledby="ajustes-marca" {
                h2 id="ajustes-marca" { "Marca" }
                (caja_errores(errores))
                form method="post" action="/panel/marca" enctype="multipart/form-data" {
                    (csrf_oculto(&ctx.session))
                    (campo_con("logo", "Logotipo (PNG o JPEG, hasta 1 MB)", Tipo::Archivo, None, false, errores,
                        Some(if guardada.logo_png.is_some() { "Ya tiene un logotipo; suba otro para reemplazarlo." } else { "Aún no tiene logotipo." })))
                    @if guardada.logo_png.is_some() {
                        div.campo {
                            label { input type="checkbox" name="quitarLogo" value="true"; " Quitar el logotipo" }
                        }
                    }
                    div.campo {
                        label for="campo-colorPrimario" { "Color principal (#RRGGBB; vacío: barras grises)" }
                        input id="campo-colorPrimario" type="text" name="colorPrimario" value=(color)
                            placeholder="#1F4E79" maxlength="7"
                            hx-get="/panel/marca/vista" hx-trigger="input changed delay:300ms"
                            hx-target="#vista-marca" hx-swap="outerHTML" hx-include=(actualizar);
                    }
                    div.campo {
                        label for="campo-notaPie" { "Nota al pie (una línea, hasta 300 caracteres)" }
                        input id="campo-notaPie" type="text" name="notaPie" value=(nota) maxlength="300"
                            hx-get="/panel/marca/vista" hx-trigger="input changed delay:300ms"
                            hx-target="#vista-marca" hx-swap="outerHTML" hx-include=(actualizar);
                    }
                    button type="submit" { "Guardar" }
                }
            }
            section aria-labelledby="vista-previa" {
                h2 id="vista-previa" { "Vista previa" }
                p { small { "Un boceto de la primera página con estos valores, antes de guardarlos." } }
                (imagen(&color, &nota))
            }
        }
    };
    Ok(html_con(errores.status(), pagina(ctx, "Marca de los PDF", "/panel/marca", contenido)))
}

/// `GET /panel/marca/vista`: the preview image for the values typed (htmx).
pub async fn vista(
    State(app): State<AppContext>,
    session: super::Session,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, session, &headers, &HashMap::new()).await?;
    let empresa = ctx.empresa()?;
    ctx.session.caller.authorize(&app, &empresa.id, Permission::EmpresaView).await?;
    let valor = |nombre: &str| params.get(nombre).map(String::as_str).unwrap_or_default();
    Ok(html_ok(imagen(valor("colorPrimario"), valor("notaPie"))))
}

/// `GET /panel/marca/vista.svg`: the preview of the current company's PDF with the stored logo
/// and the color and note of the query (the service renders it).
pub async fn vista_svg(
    State(app): State<AppContext>,
    session: super::Session,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Pagina {
    let ctx = contexto(&app, session, &headers, &HashMap::new()).await?;
    let empresa = ctx.empresa()?;
    ctx.session.caller.authorize(&app, &empresa.id, Permission::EmpresaView).await?;
    let guardada = marca::de_empresa(&app, &empresa.id).await?;
    let valor = |nombre: &str| params.get(nombre).map(String::as_str).unwrap_or_default();
    let svg = marca::vista_previa_svg(
        &empresa.razon_social,
        &empresa.rfc,
        guardada.logo_png.as_deref(),
        valor("colorPrimario"),
        valor("notaPie"),
    );
    let mut response = svg.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/svg+xml"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // Opened on its own, the image runs nothing and loads nothing but its embedded logo.
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; img-src data:; sandbox"),
    );
    Ok(response)
}

/// `POST /panel/marca`: the logo (replaced or removed), color and note, then back to the page.
pub async fn guardar(State(app): State<AppContext>, headers: HeaderMap, formulario: Formulario) -> Pagina {
    let Formulario { session, campos } = formulario;
    let ctx = contexto(&app, session, &headers, &HashMap::new()).await?;
    let empresa_id = ctx.empresa()?.id.clone();
    let resultado = async {
        ctx.session.caller.authorize(&app, &empresa_id, Permission::EmpresaEdit).await?;
        let cambio = CambioPdf {
            color_primario: Some(campos.valor("colorPrimario").unwrap_or_default().to_owned()),
            nota_pie: Some(campos.valor("notaPie").unwrap_or_default().to_owned()),
        };
        // Both checked before anything is written.
        marca::revisar_pdf(&cambio)?;
        let logo = match campos.valor("logo").filter(|logo| !logo.is_empty()) {
            Some(codificado) => Some(
                base64::engine::general_purpose::STANDARD
                    .decode(codificado)
                    .map_err(|_| ApiError::new(Code::Logo001, "the logo could not be read"))?,
            ),
            None => None,
        };
        if let Some(logo) = &logo {
            marca::preparar_logo(logo)?;
        }
        if let Some(logo) = logo {
            marca::guardar_logo(&app, &empresa_id, &logo).await?;
        } else if campos.valor("quitarLogo") == Some("true") {
            marca::borrar_logo(&app, &empresa_id).await?;
        }
        marca::guardar_pdf(&app, &empresa_id, cambio).await?;
        Ok::<_, ApiError>(())
    }
    .await;
    match resultado {
        Ok(()) => Ok(redirigir("/panel/marca?aviso=marca-guardada")),
        Err(error) => pagina_marca(&app, &ctx, Some(&campos), &Errores::de(error)).await,
    }
}
