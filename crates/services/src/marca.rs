//! Branded PDFs (issue 32): a company's logo (a PNG or JPEG up to 1 MB, decoded, scaled down
//! to fit 600 × 240 px and re-encoded as PNG: what is stored and served is never the upload),
//! its primary color and footer note. Every change bumps the company's branding version; a
//! stored PDF rendered with an older version is rendered again on its next download
//! (`cfdi::archivos::pdf`).

use std::io::Cursor;
use timbra_store::ids::{CfdiId, EmpresaId};

use image::{DynamicImage, ImageFormat};
use serde_json::json;

use crate::context::AppContext;
use crate::correo::direccion::tiene_saltos;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use timbra_store::marca;

/// The largest logo accepted, in bytes as uploaded.
pub const LOGO_MAX_BYTES: usize = 1024 * 1024;
/// The largest stored logo, in pixels (a larger one is scaled down, proportions kept).
pub const LOGO_MAX_PX: (u32, u32) = (600, 240);
/// The longest footer note, in characters.
pub const NOTA_PIE_MAX: usize = 300;

fn logo_invalido(message: impl Into<String>) -> ApiError {
    ApiError::new(Code::Logo001, message)
}

/// The stored PNG of an uploaded logo: LOGO_001 when it is over 1 MB, not a PNG or JPEG, or
/// cannot be decoded.
pub fn preparar_logo(bytes: &[u8]) -> ApiResult<Vec<u8>> {
    if bytes.is_empty() {
        return Err(logo_invalido("send the logo: a PNG or JPEG image as the body, or { \"logoBase64\": \"...\" }"));
    }
    if bytes.len() > LOGO_MAX_BYTES {
        return Err(logo_invalido(format!(
            "the logo has {} bytes; at most {LOGO_MAX_BYTES} (1 MB): send a smaller PNG or JPEG",
            bytes.len()
        ))
        .with_details(json!({ "bytes": bytes.len(), "maximo": LOGO_MAX_BYTES })));
    }
    let formato = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        ImageFormat::Png
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        ImageFormat::Jpeg
    } else {
        return Err(logo_invalido("the logo is not a PNG or JPEG image"));
    };
    let imagen = image::load_from_memory_with_format(bytes, formato)
        .map_err(|error| logo_invalido(format!("the logo cannot be read as {formato:?}: {error}")))?;
    let (ancho, alto) = LOGO_MAX_PX;
    let imagen = if imagen.width() > ancho || imagen.height() > alto { imagen.thumbnail(ancho, alto) } else { imagen };
    let imagen = DynamicImage::ImageRgba8(imagen.to_rgba8());
    let mut png = Cursor::new(Vec::new());
    imagen.write_to(&mut png, ImageFormat::Png).map_err(|error| ApiError::internal("logo encode", error))?;
    Ok(png.into_inner())
}

/// Stores the company's logo (checked and re-encoded by [`preparar_logo`]).
pub async fn guardar_logo(app: &AppContext, empresa_id: &EmpresaId, bytes: &[u8]) -> ApiResult<()> {
    let png = preparar_logo(bytes)?;
    let mut conn = app.db.conn().await?;
    marca::guardar_logo(&mut conn, empresa_id, Some(&png), app.clock.now()).await?;
    Ok(())
}

/// Removes the company's logo.
pub async fn borrar_logo(app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<()> {
    let mut conn = app.db.conn().await?;
    marca::guardar_logo(&mut conn, empresa_id, None, app.clock.now()).await?;
    Ok(())
}

/// The company's stored logo (PNG), if any.
pub async fn logo(app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<Option<Vec<u8>>> {
    let mut conn = app.db.conn().await?;
    Ok(marca::leer(&mut conn, empresa_id).await?.and_then(|m| m.logo_png))
}

/// `PATCH /api/empresas/{empresaId}` `pdf`: what is `None` stays; `""` clears.
#[derive(Debug, Default)]
pub struct CambioPdf {
    /// `#RRGGBB`.
    pub color_primario: Option<String>,
    /// One line, at most 300 characters.
    pub nota_pie: Option<String>,
}

/// EMPRESA_001 for a color that is not `#RRGGBB` or a footer note with a line break or over 300
/// characters.
pub fn revisar_pdf(cambio: &CambioPdf) -> ApiResult<()> {
    let mut problemas = Vec::new();
    if let Some(color) = &cambio.color_primario
        && !color.trim().is_empty()
        && timbra_pdf::color_hex(color.trim()).is_none()
    {
        problemas.push(FieldProblem::new("pdf.colorPrimario", format!("a color like #1F4E79, not {color:?}")));
    }
    if let Some(nota) = &cambio.nota_pie
        && (tiene_saltos(nota) || nota.chars().count() > NOTA_PIE_MAX)
    {
        problemas.push(FieldProblem::new(
            "pdf.notaPie",
            format!("one line of at most {NOTA_PIE_MAX} characters, without line breaks"),
        ));
    }
    if problemas.is_empty() { Ok(()) } else { Err(ApiError::fields(Code::Empresa001, problemas)) }
}

/// Writes the color and the footer note (checked by [`revisar_pdf`]).
pub async fn guardar_pdf(app: &AppContext, empresa_id: &EmpresaId, cambio: CambioPdf) -> ApiResult<()> {
    revisar_pdf(&cambio)?;
    let mut conn = app.db.conn().await?;
    let actual = marca::leer(&mut conn, empresa_id).await?.ok_or_else(|| ApiError::not_found("company"))?;
    let limpio = |nuevo: Option<String>, actual: Option<String>| match nuevo {
        Some(texto) => Some(texto.trim().to_owned()).filter(|t| !t.is_empty()),
        None => actual,
    };
    let color = limpio(cambio.color_primario, actual.pdf_color_primario).map(|c| c.to_uppercase());
    let nota = limpio(cambio.nota_pie, actual.pdf_nota_pie);
    marca::guardar_pdf(&mut conn, empresa_id, color.as_deref(), nota.as_deref(), app.clock.now()).await?;
    Ok(())
}

/// The branding of company `empresa_id` for the PDF of its CFDI `cfdi_id` (with the CFDI's
/// notes), and the version it is.
pub async fn de_cfdi(
    app: &AppContext,
    empresa_id: &EmpresaId,
    cfdi_id: &CfdiId,
) -> ApiResult<(timbra_pdf::Marca, i64)> {
    let mut conn = app.db.conn().await?;
    let guardada = marca::leer(&mut conn, empresa_id).await?.unwrap_or_default();
    let notas = marca::notas(&mut conn, empresa_id, cfdi_id).await?;
    let version = guardada.marca_version;
    Ok((a_pdf(guardada, notas), version))
}

/// The stored branding as the PDF crate takes it.
pub fn a_pdf(guardada: marca::Marca, notas: Option<String>) -> timbra_pdf::Marca {
    timbra_pdf::Marca {
        logo_png: guardada.logo_png,
        color_primario: guardada.pdf_color_primario.as_deref().and_then(timbra_pdf::color_hex),
        nota_pie: guardada.pdf_nota_pie,
        notas,
    }
}

/// After a stamp's commit: the body's `notas` (printed on its PDF, not part of the XML).
pub async fn guardar_notas(app: &AppContext, empresa_id: &EmpresaId, cfdi_id: &CfdiId, notas: &str) -> ApiResult<()> {
    let mut conn = app.db.conn().await?;
    marca::guardar_notas(&mut conn, empresa_id, cfdi_id, notas).await?;
    Ok(())
}

/// The longest `notas` of a stamp body, in characters.
pub const NOTAS_MAX: usize = 2000;

/// CFDI_001 when a stamp body's `notas` is over [`NOTAS_MAX`] characters.
pub fn revisar_notas(notas: Option<&str>) -> ApiResult<()> {
    match notas {
        Some(notas) if notas.chars().count() > NOTAS_MAX => Err(ApiError::fields(
            Code::Cfdi001,
            vec![FieldProblem::new("notas", format!("at most {NOTAS_MAX} characters (printed on the PDF only)"))],
        )),
        _ => Ok(()),
    }
}

/// The company's stored branding (the dashboard's settings page shows it).
pub async fn de_empresa(app: &AppContext, empresa_id: &EmpresaId) -> ApiResult<marca::Marca> {
    let mut conn = app.db.conn().await?;
    Ok(marca::leer(&mut conn, empresa_id).await?.unwrap_or_default())
}

/// The section bars of a PDF without the company's color (the PDF crate's, with black titles).
pub const BARRA_PREDETERMINADA: &str = "#E1E6EE";

/// A preview of the branded PDF's first page as an SVG image the service renders (the
/// dashboard's branding page shows it as the person edits the color and note, before saving):
/// the logo, the issuer's name and RFC, the section bars and totals in the primary color, the
/// footer note. Not the PDF itself: a sketch of where each piece goes, drawn from the same
/// settings. `color` is taken when it is `#RRGGBB`; texts are escaped.
pub fn vista_previa_svg(razon_social: &str, rfc: &str, logo_png: Option<&[u8]>, color: &str, nota_pie: &str) -> String {
    use base64::Engine;
    // As the PDF draws them: the company's color with white titles, or light grey with black.
    let (color, tinta) = match timbra_pdf::color_hex(color.trim()) {
        Some([r, g, b]) => (format!("#{r:02X}{g:02X}{b:02X}"), "#FFFFFF"),
        None => (BARRA_PREDETERMINADA.to_owned(), "#000000"),
    };
    let texto = |t: &str| -> String {
        let mut salida = String::with_capacity(t.len());
        for c in t.chars().filter(|c| !c.is_control()).take(NOTA_PIE_MAX) {
            match c {
                '&' => salida.push_str("&amp;"),
                '<' => salida.push_str("&lt;"),
                '>' => salida.push_str("&gt;"),
                '"' => salida.push_str("&quot;"),
                '\'' => salida.push_str("&#39;"),
                c => salida.push(c),
            }
        }
        salida
    };
    let logo = match logo_png {
        Some(png) => format!(
            "<image x=\"24\" y=\"20\" width=\"200\" height=\"80\" preserveAspectRatio=\"xMinYMid meet\" href=\"data:image/png;base64,{}\"/>",
            base64::engine::general_purpose::STANDARD.encode(png)
        ),
        None => "<rect x=\"24\" y=\"20\" width=\"200\" height=\"80\" fill=\"#F2F2F2\" stroke=\"#CCCCCC\" stroke-dasharray=\"4 3\"/>\
                 <text x=\"124\" y=\"65\" text-anchor=\"middle\" font-size=\"13\" fill=\"#888888\">Sin logotipo</text>"
            .to_owned(),
    };
    let mut filas = String::new();
    for i in 0..4 {
        let y = 190 + i * 26;
        filas.push_str(&format!(
            "<rect x=\"24\" y=\"{y}\" width=\"552\" height=\"20\" fill=\"{}\"/>\
             <rect x=\"32\" y=\"{}\" width=\"260\" height=\"6\" fill=\"#BBBBBB\"/>\
             <rect x=\"496\" y=\"{}\" width=\"72\" height=\"6\" fill=\"#BBBBBB\"/>",
            if i % 2 == 0 { "#FFFFFF" } else { "#F5F5F5" },
            y + 7,
            y + 7
        ));
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 600 420\" width=\"600\" height=\"420\" \
         font-family=\"Helvetica, Arial, sans-serif\" role=\"img\" aria-label=\"Vista previa del PDF\">\
         <rect width=\"600\" height=\"420\" fill=\"#FFFFFF\" stroke=\"#DDDDDD\"/>\
         {logo}\
         <text x=\"576\" y=\"44\" text-anchor=\"end\" font-size=\"16\" font-weight=\"bold\" fill=\"#222222\">{razon}</text>\
         <text x=\"576\" y=\"66\" text-anchor=\"end\" font-size=\"12\" fill=\"#444444\">RFC {rfc}</text>\
         <text x=\"576\" y=\"90\" text-anchor=\"end\" font-size=\"12\" fill=\"#444444\">Factura A-1</text>\
         <rect x=\"24\" y=\"124\" width=\"552\" height=\"22\" fill=\"{color}\"/>\
         <text x=\"32\" y=\"139\" font-size=\"12\" font-weight=\"bold\" fill=\"{tinta}\">Receptor</text>\
         <rect x=\"32\" y=\"154\" width=\"220\" height=\"6\" fill=\"#BBBBBB\"/>\
         <rect x=\"24\" y=\"166\" width=\"552\" height=\"22\" fill=\"{color}\"/>\
         <text x=\"32\" y=\"181\" font-size=\"12\" font-weight=\"bold\" fill=\"{tinta}\">Conceptos</text>\
         {filas}\
         <rect x=\"376\" y=\"300\" width=\"200\" height=\"24\" fill=\"{color}\"/>\
         <text x=\"384\" y=\"316\" font-size=\"12\" font-weight=\"bold\" fill=\"{tinta}\">Total</text>\
         <text x=\"568\" y=\"316\" text-anchor=\"end\" font-size=\"12\" font-weight=\"bold\" fill=\"{tinta}\">$0.00</text>\
         <line x1=\"24\" y1=\"380\" x2=\"576\" y2=\"380\" stroke=\"#DDDDDD\"/>\
         <text x=\"300\" y=\"400\" text-anchor=\"middle\" font-size=\"11\" fill=\"#555555\">{nota}</text>\
         </svg>",
        razon = texto(razon_social),
        rfc = texto(rfc),
        nota = texto(nota_pie),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preview_draws_the_color_and_escapes_the_texts() {
        let svg = vista_previa_svg("A&B <S.A.>", "EKU9003173C9", None, "#aa0011", "Gracias \"por\" su compra");
        assert!(svg.contains("fill=\"#AA0011\""), "{svg}");
        assert!(svg.contains("A&amp;B &lt;S.A.&gt;") && svg.contains("Gracias &quot;por&quot; su compra"));
        assert!(!svg.contains("<S.A.>"));
        let por_defecto = vista_previa_svg("X", "Y", Some(b"png"), "rojo", "");
        assert!(por_defecto.contains(BARRA_PREDETERMINADA) && por_defecto.contains("data:image/png;base64,cG5n"));
    }

    #[test]
    fn a_logo_is_checked_scaled_and_reencoded() {
        let grande = DynamicImage::ImageRgb8(image::RgbImage::from_pixel(1200, 300, image::Rgb([200, 10, 10])));
        let mut jpeg = Cursor::new(Vec::new());
        grande.write_to(&mut jpeg, ImageFormat::Jpeg).unwrap();
        let png = preparar_logo(jpeg.get_ref()).unwrap();
        assert!(png.starts_with(b"\x89PNG"));
        let leido = image::load_from_memory(&png).unwrap();
        assert_eq!((leido.width(), leido.height()), (600, 150));
        assert_eq!(preparar_logo(b"GIF89a....").unwrap_err().code, Code::Logo001);
        assert_eq!(preparar_logo(b"\x89PNG\r\n\x1a\nnot really").unwrap_err().code, Code::Logo001);
        assert_eq!(preparar_logo(&vec![0xFF; LOGO_MAX_BYTES + 1]).unwrap_err().code, Code::Logo001);
    }

    #[test]
    fn colors_and_footer_notes_are_checked() {
        let ok = CambioPdf { color_primario: Some("#1f4e79".into()), nota_pie: Some("Gracias".into()) };
        assert!(revisar_pdf(&ok).is_ok());
        let mal = CambioPdf { color_primario: Some("rojo".into()), nota_pie: Some("a\r\nb".into()) };
        assert_eq!(revisar_pdf(&mal).unwrap_err().details["fields"].as_array().unwrap().len(), 2);
    }
}
