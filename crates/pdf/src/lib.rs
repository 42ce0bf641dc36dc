//! # timbra-pdf
//!
//! The printed representation of a stamped CFDI 4.0 as PDF: every fiscal field (issuer,
//! receiver, concepts with their taxes, tax summary, totals in figures and in words, folio
//! fiscal, certificate numbers, both seals, the TFD cadena original, the PAC's RFC) and the
//! QR code with SAT's expresión impresa. Pure: no I/O; fonts (DejaVu Sans Condensed) are
//! embedded in the binary, parsed once per process, subset into each PDF.
//!
//! ```no_run
//! # fn ejemplo(xml_timbrado: &str) -> Result<(), timbra_pdf::PdfError> {
//! let pdf: Vec<u8> = timbra_pdf::render_xml(xml_timbrado)?;
//! # Ok(()) }
//! ```

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![warn(missing_docs)]

mod documento;
mod fuentes;
mod letra;
mod lienzo;
mod retencion;
mod textos;

use krilla::metadata::Metadata;
use qrcode::{EcLevel, QrCode};
use timbra_cfdi::model::Comprobante;
use timbra_cfdi::{cadena, parser, timbre};

pub use letra::{importe_con_letra, numero_en_palabras};
pub use retencion::url_verificacion as url_retencion;

/// Why a PDF could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    /// The XML is not a CFDI 4.0 the parser accepts.
    #[error("the XML is not a readable CFDI 4.0: {0}")]
    Xml(#[from] parser::ErrorParseo),
    /// The XML is not a CFDI de Retenciones 2.0 the parser accepts.
    #[error("the XML is not a readable CFDI de Retenciones 2.0: {0}")]
    Retencion(String),
    /// The comprobante has no TimbreFiscalDigital: only stamped CFDI have a printed
    /// representation (the QR and the folio fiscal come from the stamp).
    #[error("the CFDI is not stamped (no TimbreFiscalDigital): it has no printed representation")]
    SinTimbre,
    /// The expresión impresa does not fit in a QR code.
    #[error("the QR code cannot hold the expresión impresa: {0}")]
    Qr(String),
    /// The embedded fonts could not be loaded (a corrupt build).
    #[error("the embedded fonts could not be loaded")]
    Fuente,
    /// krilla refused to write the document.
    #[error("the PDF could not be written: {0}")]
    Pdf(String),
}

/// The issuer's branding of its printed CFDI: a logo at the top, its primary color on the
/// section bars, a note at the foot of every page, and the document's own notes (printed, not
/// part of the XML).
#[derive(Clone, Debug, Default)]
pub struct Marca {
    /// The logo, a PNG.
    pub logo_png: Option<Vec<u8>>,
    /// The section bars' color (RGB).
    pub color_primario: Option<[u8; 3]>,
    /// One line at the foot of every page.
    pub nota_pie: Option<String>,
    /// The document's notes, printed after the totals.
    pub notas: Option<String>,
}

/// The mark printed on every page of a sandbox document (a banner at the top, as text so
/// `pdftotext` and a reader's search find it): a sandbox timbre is signed by timbra's own test
/// certificate, never by SAT or a PAC, and its printed form must not pass for a real CFDI.
pub const MARCA_PRUEBAS: &str = "PRUEBAS — SIN VALIDEZ FISCAL";

/// What a sandbox document's QR code holds instead of SAT's verification URL: a QR pointing at
/// SAT with a UUID SAT never issued would make a test document look verifiable.
pub fn texto_qr_pruebas(uuid: &str) -> String {
    format!(
        "PRUEBAS - SIN VALIDEZ FISCAL. Documento de pruebas (sandbox) de timbra: no es un CFDI \
         timbrado y no se verifica ante el SAT. Folio de pruebas {uuid}"
    )
}

/// `#RRGGBB` as RGB; `None` for anything else.
pub fn color_hex(texto: &str) -> Option<[u8; 3]> {
    let hex = texto.strip_prefix('#')?;
    if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let canal = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    Some([canal(0)?, canal(2)?, canal(4)?])
}

/// Renders a stamped comprobante (its `Complemento` holds the TimbreFiscalDigital).
pub fn render(comprobante: &Comprobante) -> Result<Vec<u8>, PdfError> {
    render_con_marca(comprobante, &Marca::default(), false)
}

/// [`render`] with the issuer's branding. A `sandbox` document carries [`MARCA_PRUEBAS`] on
/// every page, a QR of [`texto_qr_pruebas`] instead of SAT's verification URL (and no Carta
/// Porte QR), and its SAT seal labelled as a test seal; a live one prints as SAT describes.
pub fn render_con_marca(comprobante: &Comprobante, marca: &Marca, sandbox: bool) -> Result<Vec<u8>, PdfError> {
    let tfd = comprobante.timbre().ok_or(PdfError::SinTimbre)?;
    let fuentes = fuentes::fuentes().ok_or(PdfError::Fuente)?;
    let url = if sandbox {
        texto_qr_pruebas(&tfd.uuid)
    } else {
        timbre::expresion_impresa(comprobante).map_err(|_| PdfError::SinTimbre)?
    };
    // Level M as SAT's sample prints use; the URL (about 150 bytes) gives a version 7–8 symbol.
    let qr = QrCode::with_error_correction_level(url.as_bytes(), EcLevel::M)
        .map_err(|error| PdfError::Qr(error.to_string()))?;
    let qr_lado = qr.width();
    let qr_modulos = qr.to_colors().into_iter().map(|color| color == qrcode::Color::Dark).collect();
    let cadena_tfd = cadena::tfd_desde_modelo(tfd);
    let qr_ccp = match url_carta_porte(comprobante).filter(|_| !sandbox) {
        None => None,
        Some(url) => {
            let qr = QrCode::with_error_correction_level(url.as_bytes(), EcLevel::M)
                .map_err(|error| PdfError::Qr(error.to_string()))?;
            let lado = qr.width();
            let modulos = qr.to_colors().into_iter().map(|color| color == qrcode::Color::Dark).collect();
            Some((url, lado, modulos))
        }
    };
    let timbrado = documento::Timbrado { tfd, cadena_tfd: &cadena_tfd, qr_lado, qr_modulos, qr_ccp };
    let logo = match &marca.logo_png {
        None => None,
        Some(png) => {
            let imagen = krilla::image::Image::from_png(png.clone().into(), true).map_err(PdfError::Pdf)?;
            let (ancho, alto) = imagen.size();
            Some(documento::Logo { png: png.clone(), ancho, alto })
        }
    };
    let adornos = documento::Adornos { logo, nota_pie: marca.nota_pie.as_deref(), notas: marca.notas.as_deref() };
    let lienzo = lienzo::Lienzo::new(fuentes, marca.color_primario);
    let lienzo = documento::maquetar(comprobante, timbrado, &adornos, sandbox, lienzo);
    let metadatos = Metadata::new()
        .title(format!("CFDI {}", tfd.uuid))
        .description(format!("Representación impresa del CFDI {} de {}", tfd.uuid, comprobante.emisor.rfc))
        .creator("timbra".to_owned())
        .language("es-MX".to_owned());
    lienzo.emitir(metadatos)
}

/// The URL of the Carta Porte QR code for a stamped comprobante that carries the complement:
/// SAT's verification service of the IdCCP with the departure from the origin and the
/// certification time, as the Guía de llenado del complemento Carta Porte describes the
/// printed representation's QR
/// (`https://verificacfdi.facturaelectronica.sat.gob.mx/verificaccp/default.aspx?IdCCP=…&FechaOrig=…&FechaTimb=…`).
/// `FechaOrig` is the `FechaHoraSalidaLlegada` of the first `Origen` Ubicacion, `FechaTimb`
/// the TFD's `FechaTimbrado`, both `AAAA-MM-DDThh:mm:ss` as in the XML (no character needs
/// escaping). `None` without Carta Porte or without a stamp.
pub fn url_carta_porte(comprobante: &Comprobante) -> Option<String> {
    let carta_porte = comprobante.carta_porte()?;
    let tfd = comprobante.timbre()?;
    let origen = carta_porte
        .ubicaciones
        .iter()
        .find(|u| u.tipo_ubicacion == "Origen")
        .map(|u| u.fecha_hora_salida_llegada.as_str())
        .unwrap_or_default();
    Some(format!(
        "https://verificacfdi.facturaelectronica.sat.gob.mx/verificaccp/default.aspx?IdCCP={}&FechaOrig={}&FechaTimb={}",
        carta_porte.id_ccp, origen, tfd.fecha_timbrado
    ))
}

/// Parses a stamped CFDI (as stored) and renders it: a CFDI 4.0, or a CFDI de Retenciones
/// 2.0 (told apart by the root element).
pub fn render_xml(xml: &str) -> Result<Vec<u8>, PdfError> {
    if es_retencion(xml) {
        let retencion = timbra_retenciones::parsear(xml).map_err(|e| PdfError::Retencion(e.to_string()))?;
        return render_retencion(&retencion);
    }
    render(&parser::parsear(xml)?)
}

/// [`render_xml`] for a sandbox document (see [`render_con_marca`]).
pub fn render_xml_sandbox(xml: &str) -> Result<Vec<u8>, PdfError> {
    render_xml_con_marca(xml, &Marca::default(), true)
}

/// The QR code of `texto` (level M, as the invoices' QR) as an SVG document: dark modules as
/// one path over a white square with a four-module quiet zone; `None` when it does not fit.
/// The dashboard draws a ticket's self-invoicing link with it.
pub fn qr_svg(texto: &str) -> Option<String> {
    let qr = QrCode::with_error_correction_level(texto.as_bytes(), EcLevel::M).ok()?;
    let lado = qr.width();
    let total = lado + 8;
    let mut camino = String::new();
    for (i, color) in qr.to_colors().into_iter().enumerate() {
        if color == qrcode::Color::Dark {
            camino.push_str(&format!("M{} {}h1v1h-1z", i % lado + 4, i / lado + 4));
        }
    }
    Some(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {total} {total}\" shape-rendering=\"crispEdges\" \
         role=\"img\" aria-label=\"Código QR\"><rect width=\"{total}\" height=\"{total}\" fill=\"#fff\"/>\
         <path d=\"{camino}\" fill=\"#000\"/></svg>"
    ))
}

/// [`render_xml`] with the issuer's branding (a CFDI de Retenciones prints without it: its
/// layout has no logo or color yet), marked as a test document when `sandbox`.
pub fn render_xml_con_marca(xml: &str, marca: &Marca, sandbox: bool) -> Result<Vec<u8>, PdfError> {
    if es_retencion(xml) {
        let retencion = timbra_retenciones::parsear(xml).map_err(|e| PdfError::Retencion(e.to_string()))?;
        return render_retencion_en(&retencion, sandbox);
    }
    render_con_marca(&parser::parsear(xml)?, marca, sandbox)
}

/// Whether `xml`'s root element is a `Retenciones` (of any prefix).
fn es_retencion(xml: &str) -> bool {
    let inicio = xml.trim_start_matches('\u{feff}').trim_start();
    let inicio = match inicio.strip_prefix("<?xml") {
        Some(resto) => resto.split_once("?>").map_or("", |(_, r)| r).trim_start(),
        None => inicio,
    };
    let nombre: String =
        inicio.trim_start_matches('<').chars().take_while(|c| !c.is_whitespace() && *c != '>').collect();
    nombre == "Retenciones" || nombre.ends_with(":Retenciones")
}

/// Renders a stamped CFDI de Retenciones 2.0 with the QR of [`url_retencion`].
pub fn render_retencion(retencion: &timbra_retenciones::Retenciones) -> Result<Vec<u8>, PdfError> {
    render_retencion_en(retencion, false)
}

/// [`render_retencion`], marked as a test document when `sandbox` (as [`render_con_marca`]).
fn render_retencion_en(retencion: &timbra_retenciones::Retenciones, sandbox: bool) -> Result<Vec<u8>, PdfError> {
    let tfd = retencion.timbre().ok_or(PdfError::SinTimbre)?;
    let fuentes = fuentes::fuentes().ok_or(PdfError::Fuente)?;
    let url = if sandbox {
        texto_qr_pruebas(&tfd.uuid)
    } else {
        retencion::url_verificacion(retencion).ok_or(PdfError::SinTimbre)?
    };
    let qr = QrCode::with_error_correction_level(url.as_bytes(), EcLevel::M)
        .map_err(|error| PdfError::Qr(error.to_string()))?;
    let lado = qr.width();
    let modulos = qr.to_colors().into_iter().map(|color| color == qrcode::Color::Dark).collect();
    let cadena_tfd = cadena::tfd_desde_modelo(tfd);
    let lienzo =
        retencion::maquetar(retencion, &cadena_tfd, (lado, modulos), sandbox, lienzo::Lienzo::new(fuentes, None));
    let metadatos = Metadata::new()
        .title(format!("CFDI de Retenciones {}", tfd.uuid))
        .description(format!(
            "Representación impresa del CFDI de Retenciones {} de {}",
            tfd.uuid,
            retencion.emisor.rfc_e.as_str()
        ))
        .creator("timbra".to_owned())
        .language("es-MX".to_owned());
    lienzo.emitir(metadatos)
}

#[cfg(test)]
mod qr_tests {
    #[test]
    fn a_link_becomes_an_svg_qr() {
        let svg = super::qr_svg("https://facturas.example.com/autofactura/tienda?clave=7KQ3M9XWTR").unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("<path d=\"M"), "{svg}");
    }
}
