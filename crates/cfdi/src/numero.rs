//! Text-preserving decimal numbers.
//!
//! Every amount of a CFDI is signed through the cadena original, which copies the
//! attribute *text* (Anexo 20, "Generación de la cadena original": the values are taken
//! as written, only whitespace is normalised). A received invoice may therefore carry
//! `1.50`, `1.5` or a value with 38 decimals (beyond `rust_decimal`'s 28 digits) and the
//! seal only verifies if that exact text is kept. [`Numero`] keeps the text and converts
//! to [`Decimal`] on demand; numbers made by this crate come from a `Decimal` rounded to
//! the decimals SAT requires.

use std::fmt;
use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};

/// A decimal number exactly as it appears (or will appear) in a CFDI attribute.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Numero(String);

/// The text of a [`Numero`] is not a decimal number that fits in a [`Decimal`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("«{texto}» no es un número decimal válido")]
pub struct NumeroInvalido {
    /// The text that failed to convert.
    pub texto: String,
}

impl Numero {
    /// Keeps `texto` verbatim (used by the parser; the text is checked by validation, not here).
    pub fn from_texto(texto: impl Into<String>) -> Self {
        Self(texto.into())
    }

    /// Writes `valor` rounded half away from zero to exactly `decimales` decimals
    /// (`decimales` is usually the c_Moneda `decimales` of the document's currency).
    pub fn con_decimales(valor: Decimal, decimales: u32) -> Self {
        let mut redondeado = valor.round_dp_with_strategy(decimales, RoundingStrategy::MidpointAwayFromZero);
        redondeado.rescale(decimales);
        Self(redondeado.to_string())
    }

    /// The exact text.
    pub fn texto(&self) -> &str {
        &self.0
    }

    /// The value as a [`Decimal`]. Texts with more than 28 significant digits are rounded
    /// by `rust_decimal` (the text itself is untouched); texts that are not numbers fail.
    pub fn valor(&self) -> Result<Decimal, NumeroInvalido> {
        let texto = self.0.trim();
        // XML Schema xs:decimal allows a leading '+', which rust_decimal does not.
        let texto = texto.strip_prefix('+').unwrap_or(texto);
        if texto.is_empty() || !texto.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'-') {
            return Err(NumeroInvalido { texto: self.0.clone() });
        }
        Decimal::from_str(texto).map_err(|_| NumeroInvalido { texto: self.0.clone() })
    }

    /// Number of digits after the decimal point in the text (`"1.50"` → 2).
    pub fn decimales(&self) -> u32 {
        match self.0.trim().split_once('.') {
            Some((_, fraccion)) => u32::try_from(fraccion.len()).unwrap_or(u32::MAX),
            None => 0,
        }
    }
}

impl From<Decimal> for Numero {
    /// Keeps the scale of the decimal (`Decimal` `1.50` → `"1.50"`).
    fn from(valor: Decimal) -> Self {
        Self(valor.to_string())
    }
}

impl fmt::Display for Numero {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn conserva_texto_y_redondea() {
        assert_eq!(Numero::con_decimales(dec!(1.005), 2).texto(), "1.01");
        assert_eq!(Numero::con_decimales(dec!(-1.005), 2).texto(), "-1.01");
        assert_eq!(Numero::con_decimales(dec!(7), 2).texto(), "7.00");
        assert_eq!(Numero::con_decimales(dec!(7), 0).texto(), "7");
        let largo = Numero::from_texto("1.12345678901234567890123456789012345678");
        assert_eq!(largo.decimales(), 38);
        assert!(largo.valor().is_ok());
        assert!(Numero::from_texto("1e5").valor().is_err());
        assert!(Numero::from_texto("").valor().is_err());
        assert_eq!(Numero::from_texto("+2.5").valor(), Ok(dec!(2.5)));
    }
}
