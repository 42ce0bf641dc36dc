//! The embedded fonts (DejaVu Sans Condensed, regular and bold; licence in `fonts/`) and
//! their advance widths for line wrapping. Parsed once per process: rendering never reads
//! a font file or re-parses a font.

use std::sync::OnceLock;

use krilla::text::Font;
use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, MetadataProvider};

static REGULAR: &[u8] = include_bytes!("../fonts/DejaVuSansCondensed.ttf");
static NEGRITA: &[u8] = include_bytes!("../fonts/DejaVuSansCondensed-Bold.ttf");

/// Characters below this code point have their width precomputed (Latin-1 and Latin
/// Extended cover Spanish and everything SAT's catalogs use).
const TABLA: usize = 0x250;

/// One face: the krilla font (which subsets and embeds itself) and a width table.
pub(crate) struct Cara {
    pub(crate) fuente: Font,
    datos: FontRef<'static>,
    /// Advance per character in em units.
    anchos: Vec<f32>,
    unidades_por_em: f32,
}

impl Cara {
    fn cargar(datos: &'static [u8]) -> Option<Self> {
        let fuente = Font::new(datos.into(), 0)?;
        let referencia = FontRef::new(datos).ok()?;
        let unidades_por_em = f32::from(referencia.metrics(Size::unscaled(), LocationRef::default()).units_per_em);
        let mut cara = Self { fuente, datos: referencia, anchos: Vec::new(), unidades_por_em };
        cara.anchos = (0..TABLA).map(|codigo| char::from_u32(codigo as u32).map_or(0.0, |c| cara.medir(c))).collect();
        Some(cara)
    }

    fn medir(&self, caracter: char) -> f32 {
        let metricas = self.datos.glyph_metrics(Size::unscaled(), LocationRef::default());
        // Unmapped characters render as .notdef (glyph 0): measure that.
        let glifo = self.datos.charmap().map(caracter).unwrap_or_default();
        metricas.advance_width(glifo).unwrap_or(0.0) / self.unidades_por_em
    }

    /// Width of `texto` at `tamano` points (no kerning: kerning only narrows, so wrapping
    /// on these widths never overflows).
    pub(crate) fn ancho(&self, texto: &str, tamano: f32) -> f32 {
        texto.chars().map(|c| self.anchos.get(c as usize).copied().unwrap_or_else(|| self.medir(c))).sum::<f32>()
            * tamano
    }
}

/// Both faces.
pub(crate) struct Fuentes {
    pub(crate) regular: Cara,
    pub(crate) negrita: Cara,
}

impl Fuentes {
    pub(crate) fn cara(&self, negrita: bool) -> &Cara {
        if negrita { &self.negrita } else { &self.regular }
    }
}

/// The process-wide fonts; `None` only if the embedded files were corrupt.
pub(crate) fn fuentes() -> Option<&'static Fuentes> {
    static FUENTES: OnceLock<Option<Fuentes>> = OnceLock::new();
    FUENTES.get_or_init(|| Some(Fuentes { regular: Cara::cargar(REGULAR)?, negrita: Cara::cargar(NEGRITA)? })).as_ref()
}
