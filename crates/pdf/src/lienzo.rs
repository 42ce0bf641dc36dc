//! A minimal page canvas: the layout records drawing operations per page (so the page count
//! is known before the footers "Página i de n" are written), then everything is emitted
//! through krilla. Coordinates are points from the top-left corner; text `y` is the baseline.

use krilla::Document;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect};
use krilla::metadata::Metadata;
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, FillRule};
use krilla::text::TextDirection;

use crate::PdfError;
use crate::fuentes::Fuentes;

/// US Letter, the usual paper in Mexico.
pub(crate) const ANCHO_PAGINA: f32 = 612.0;
pub(crate) const ALTO_PAGINA: f32 = 792.0;
pub(crate) const MARGEN: f32 = 36.0;

/// Colours used: text, muted text, section bars, their titles, rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Tinta {
    Negro,
    Gris,
    Barra,
    /// A section bar's title: black on the default bar, white on the company's color.
    SobreBarra,
    Linea,
    /// The sandbox mark's text and its band: a strong red on a pale one.
    Pruebas,
    PruebasFondo,
}

impl Tinta {
    /// The colour, with the company's primary color (`#RRGGBB`) for the bars when it has one.
    fn rgb(self, primario: Option<[u8; 3]>) -> rgb::Color {
        match (self, primario) {
            (Tinta::Negro, _) | (Tinta::SobreBarra, None) => rgb::Color::new(0, 0, 0),
            (Tinta::Gris, _) => rgb::Color::new(90, 90, 90),
            (Tinta::Barra, None) => rgb::Color::new(225, 230, 238),
            (Tinta::Barra, Some([r, g, b])) => rgb::Color::new(r, g, b),
            (Tinta::SobreBarra, Some(_)) => rgb::Color::new(255, 255, 255),
            (Tinta::Linea, _) => rgb::Color::new(170, 170, 170),
            (Tinta::Pruebas, _) => rgb::Color::new(190, 30, 30),
            (Tinta::PruebasFondo, _) => rgb::Color::new(253, 226, 226),
        }
    }
}

/// One drawing operation.
pub(crate) enum Op {
    Texto {
        x: f32,
        y: f32,
        tamano: f32,
        negrita: bool,
        tinta: Tinta,
        texto: String,
    },
    Rect {
        x: f32,
        y: f32,
        ancho: f32,
        alto: f32,
        tinta: Tinta,
    },
    /// A PNG image drawn `ancho` × `alto` points with its top-left corner at `x`, `y`.
    Imagen {
        x: f32,
        y: f32,
        ancho: f32,
        alto: f32,
        png: Vec<u8>,
    },
    /// A QR symbol: `modulos` row-major, `lado` modules per side, drawn `tamano` points wide.
    Qr {
        x: f32,
        y: f32,
        tamano: f32,
        lado: usize,
        modulos: Vec<bool>,
    },
}

/// Text style.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Estilo {
    pub(crate) tamano: f32,
    pub(crate) negrita: bool,
    pub(crate) tinta: Tinta,
}

impl Estilo {
    pub(crate) const fn normal(tamano: f32) -> Self {
        Self { tamano, negrita: false, tinta: Tinta::Negro }
    }
    pub(crate) const fn negrita(tamano: f32) -> Self {
        Self { tamano, negrita: true, tinta: Tinta::Negro }
    }
    pub(crate) const fn gris(tamano: f32) -> Self {
        Self { tamano, negrita: false, tinta: Tinta::Gris }
    }
    /// Baseline-to-baseline distance.
    pub(crate) fn interlineado(self) -> f32 {
        self.tamano * 1.22
    }
}

/// Horizontal alignment inside a box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Alineacion {
    Izquierda,
    Derecha,
}

/// Pages of operations being laid out.
pub(crate) struct Lienzo<'f> {
    pub(crate) fuentes: &'f Fuentes,
    pub(crate) paginas: Vec<Vec<Op>>,
    /// The company's primary color for the section bars.
    pub(crate) primario: Option<[u8; 3]>,
}

impl<'f> Lienzo<'f> {
    pub(crate) fn new(fuentes: &'f Fuentes, primario: Option<[u8; 3]>) -> Self {
        Self { fuentes, paginas: vec![Vec::new()], primario }
    }

    pub(crate) fn nueva_pagina(&mut self) {
        self.paginas.push(Vec::new());
    }

    fn actual(&mut self) -> &mut Vec<Op> {
        if self.paginas.is_empty() {
            self.paginas.push(Vec::new());
        }
        let ultima = self.paginas.len() - 1;
        &mut self.paginas[ultima]
    }

    pub(crate) fn ancho(&self, texto: &str, estilo: Estilo) -> f32 {
        self.fuentes.cara(estilo.negrita).ancho(texto, estilo.tamano)
    }

    /// One line of text at baseline `y`, aligned inside `[x, x + ancho]`.
    pub(crate) fn texto(&mut self, x: f32, y: f32, ancho: f32, alineacion: Alineacion, estilo: Estilo, texto: &str) {
        if texto.is_empty() {
            return;
        }
        let x = match alineacion {
            Alineacion::Izquierda => x,
            Alineacion::Derecha => x + ancho - self.ancho(texto, estilo),
        };
        let op = Op::Texto {
            x,
            y,
            tamano: estilo.tamano,
            negrita: estilo.negrita,
            tinta: estilo.tinta,
            texto: texto.to_owned(),
        };
        self.actual().push(op);
    }

    pub(crate) fn rect(&mut self, x: f32, y: f32, ancho: f32, alto: f32, tinta: Tinta) {
        self.actual().push(Op::Rect { x, y, ancho, alto, tinta });
    }

    /// [`crate::MARCA_PRUEBAS`] on the current page: a band across the top margin (above any
    /// content, which starts at [`MARGEN`]) with the mark centred in it.
    pub(crate) fn marca_pruebas(&mut self) {
        let estilo = Estilo { tamano: 10.0, negrita: true, tinta: Tinta::Pruebas };
        let texto = format!("{}  ·  documento de pruebas (sandbox), no es un CFDI", crate::MARCA_PRUEBAS);
        self.rect(MARGEN, 10.0, ANCHO_PAGINA - 2.0 * MARGEN, 18.0, Tinta::PruebasFondo);
        let x = (ANCHO_PAGINA - self.ancho(&texto, estilo)) / 2.0;
        self.texto(x, 23.0, ANCHO_PAGINA, Alineacion::Izquierda, estilo, &texto);
    }

    /// A horizontal rule.
    pub(crate) fn linea(&mut self, x: f32, y: f32, ancho: f32) {
        self.rect(x, y, ancho, 0.5, Tinta::Linea);
    }

    /// A PNG image (checked by the caller) at `x`, `y`, `ancho` × `alto` points.
    pub(crate) fn imagen(&mut self, x: f32, y: f32, ancho: f32, alto: f32, png: Vec<u8>) {
        self.actual().push(Op::Imagen { x, y, ancho, alto, png });
    }

    pub(crate) fn qr(&mut self, x: f32, y: f32, tamano: f32, lado: usize, modulos: Vec<bool>) {
        self.actual().push(Op::Qr { x, y, tamano, lado, modulos });
    }

    /// `texto` broken into lines no wider than `ancho`: at spaces when possible, inside a
    /// word when the word alone is too wide (seals, long codes). Explicit newlines are kept.
    pub(crate) fn partir(&self, texto: &str, ancho: f32, estilo: Estilo) -> Vec<String> {
        let cara = self.fuentes.cara(estilo.negrita);
        let espacio = cara.ancho(" ", estilo.tamano);
        let mut lineas = Vec::new();
        for parrafo in texto.split('\n') {
            let mut linea = String::new();
            let mut ancho_linea = 0.0;
            for palabra in parrafo.split_whitespace() {
                let ancho_palabra = cara.ancho(palabra, estilo.tamano);
                let separador = if linea.is_empty() { 0.0 } else { espacio };
                if ancho_linea + separador + ancho_palabra <= ancho {
                    if !linea.is_empty() {
                        linea.push(' ');
                    }
                    linea.push_str(palabra);
                    ancho_linea += separador + ancho_palabra;
                    continue;
                }
                if ancho_palabra <= ancho {
                    if !linea.is_empty() {
                        lineas.push(std::mem::take(&mut linea));
                    }
                    linea.push_str(palabra);
                    ancho_linea = ancho_palabra;
                    continue;
                }
                // The word alone overflows: break it character by character, starting on
                // the current line.
                if !linea.is_empty() {
                    linea.push(' ');
                    ancho_linea += espacio;
                }
                for caracter in palabra.chars() {
                    let mut buffer = [0u8; 4];
                    let ancho_caracter = cara.ancho(caracter.encode_utf8(&mut buffer), estilo.tamano);
                    if ancho_linea + ancho_caracter > ancho && !linea.trim().is_empty() {
                        lineas.push(std::mem::take(&mut linea).trim_end().to_owned());
                        ancho_linea = 0.0;
                    }
                    linea.push(caracter);
                    ancho_linea += ancho_caracter;
                }
            }
            lineas.push(linea);
        }
        lineas
    }

    /// Emits the pages through krilla, each with the footer `pie(i, n)` drawn by the caller.
    pub(crate) fn emitir(self, metadatos: Metadata) -> Result<Vec<u8>, PdfError> {
        let mut documento = Document::new();
        documento.set_metadata(metadatos);
        let ajustes = PageSettings::from_wh(ANCHO_PAGINA, ALTO_PAGINA).ok_or(PdfError::Fuente)?;
        for ops in &self.paginas {
            let mut pagina = documento.start_page_with(ajustes.clone());
            let mut superficie = pagina.surface();
            let mut tinta_actual = None;
            for op in ops {
                match op {
                    Op::Texto { x, y, tamano, negrita, tinta, texto } => {
                        poner_tinta(&mut superficie, &mut tinta_actual, *tinta, self.primario);
                        let fuente = self.fuentes.cara(*negrita).fuente.clone();
                        superficie.draw_text(
                            Point::from_xy(*x, *y),
                            fuente,
                            *tamano,
                            texto,
                            false,
                            TextDirection::LeftToRight,
                        );
                    }
                    Op::Rect { x, y, ancho, alto, tinta } => {
                        let Some(rect) = Rect::from_xywh(*x, *y, *ancho, *alto) else { continue };
                        let mut trazo = PathBuilder::new();
                        trazo.push_rect(rect);
                        if let Some(ruta) = trazo.finish() {
                            poner_tinta(&mut superficie, &mut tinta_actual, *tinta, self.primario);
                            superficie.draw_path(&ruta);
                        }
                    }
                    Op::Imagen { x, y, ancho, alto, png } => {
                        let imagen = krilla::image::Image::from_png(png.clone().into(), true).map_err(PdfError::Pdf)?;
                        let Some(tamano) = krilla::geom::Size::from_wh(*ancho, *alto) else { continue };
                        superficie.push_transform(&krilla::geom::Transform::from_translate(*x, *y));
                        superficie.draw_image(imagen, tamano);
                        superficie.pop();
                    }
                    Op::Qr { x, y, tamano, lado, modulos } => {
                        let modulo = tamano / *lado as f32;
                        let mut trazo = PathBuilder::new();
                        // One rectangle per horizontal run of dark modules, all in one path.
                        for (fila, celdas) in modulos.chunks(*lado).enumerate() {
                            let mut columna = 0;
                            while columna < celdas.len() {
                                if !celdas[columna] {
                                    columna += 1;
                                    continue;
                                }
                                let inicio = columna;
                                while columna < celdas.len() && celdas[columna] {
                                    columna += 1;
                                }
                                if let Some(rect) = Rect::from_xywh(
                                    x + inicio as f32 * modulo,
                                    y + fila as f32 * modulo,
                                    (columna - inicio) as f32 * modulo,
                                    modulo,
                                ) {
                                    trazo.push_rect(rect);
                                }
                            }
                        }
                        if let Some(ruta) = trazo.finish() {
                            poner_tinta(&mut superficie, &mut tinta_actual, Tinta::Negro, self.primario);
                            superficie.draw_path(&ruta);
                        }
                    }
                }
            }
            superficie.finish();
            pagina.finish();
        }
        documento.finish().map_err(|error| PdfError::Pdf(error.to_string()))
    }
}

fn poner_tinta(
    superficie: &mut krilla::surface::Surface<'_>,
    actual: &mut Option<Tinta>,
    tinta: Tinta,
    primario: Option<[u8; 3]>,
) {
    if *actual != Some(tinta) {
        superficie.set_fill(Some(Fill {
            paint: tinta.rgb(primario).into(),
            opacity: NormalizedF32::ONE,
            rule: FillRule::NonZero,
        }));
        *actual = Some(tinta);
    }
}
