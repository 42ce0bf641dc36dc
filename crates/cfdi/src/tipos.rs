//! Values checked once at the edge, as SAT's schemas define them: [`Rfc`] (tdCFDI `t_RFC`),
//! [`CodigoPostal`], [`TextoSat`] (the free texts of cfdv40.xsd, Pagos20.xsd and
//! nomina12.xsd with their pattern and length) and [`Importe`] (decimal amounts bounded by
//! the schema's digits and decimals, read only from plain decimal notation).
//!
//! Every constructor returns a typed error that says what is wrong, so an HTTP edge can turn
//! it into a field problem; the XML writer relies on [`caracter_xml`] for the same rule.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;

/// RFC genérico for operations with the general public (Anexo 20, Guía de llenado, Receptor).
pub const RFC_PUBLICO_GENERAL: &str = "XAXX010101000";
/// RFC genérico for foreign receivers without a Mexican RFC (Anexo 20, Guía de llenado).
pub const RFC_EXTRANJERO: &str = "XEXX010101000";
/// The receiver `Nombre` that goes with [`RFC_PUBLICO_GENERAL`] on a factura global.
pub const NOMBRE_PUBLICO_GENERAL: &str = "PUBLICO EN GENERAL";

/// Whether XML 1.0 (§2.2 `Char`) can carry `caracter` at all, escaped or not: everything but
/// the C0 controls other than tab, line feed and carriage return, and U+FFFE / U+FFFF
/// (surrogates cannot occur in a Rust `char`).
pub fn caracter_xml(caracter: char) -> bool {
    !matches!(caracter, '\u{0}'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}')
}

/// The first character of `texto` that XML 1.0 cannot carry, with its position (in
/// characters, from 0).
pub fn primer_caracter_no_xml(texto: &str) -> Option<(usize, char)> {
    texto.chars().enumerate().find(|(_, caracter)| !caracter_xml(*caracter))
}

/// How a character is named in a message: `U+0007` for invisible ones.
fn nombre_caracter(caracter: char) -> String {
    format!("U+{:04X}", u32::from(caracter))
}

/// The two kinds of taxpayer an RFC can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Persona {
    /// Persona moral: 12 characters (3 letters, date, homoclave).
    Moral,
    /// Persona física: 13 characters (4 letters, date, homoclave).
    Fisica,
}

/// Why a text is not an RFC.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RfcInvalido {
    /// Neither 12 nor 13 characters.
    #[error("RFC must have 12 characters (persona moral) or 13 (persona física)")]
    Largo,
    /// The leading letters are not uppercase letters, Ñ or &.
    #[error("the first {letras} characters of the RFC must be uppercase letters, Ñ or &")]
    Letras {
        /// 3 or 4.
        letras: usize,
    },
    /// No YYMMDD date after the letters.
    #[error("the RFC must have its date (YYMMDD) after the letters")]
    SinFecha,
    /// A month or day out of range.
    #[error("the RFC date {fecha} is not a valid YYMMDD date")]
    Fecha {
        /// The six digits.
        fecha: String,
    },
    /// The homoclave is not `[A-Z0-9]{2}[0-9A]`.
    #[error("the RFC must end in a homoclave of 2 uppercase letters or digits and a digit or A")]
    Homoclave,
}

/// An RFC that matches tdCFDI `t_RFC`:
/// `[A-Z&Ñ]{3,4}[0-9]{2}(0[1-9]|1[012])(0[1-9]|[12][0-9]|3[01])[A-Z0-9]{2}[0-9A]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rfc(String);

impl Rfc {
    /// Checks `texto` exactly as given (callers trim and uppercase user input first).
    ///
    /// # Errors
    /// [`RfcInvalido`] saying which part is wrong.
    pub fn new(texto: &str) -> Result<Self, RfcInvalido> {
        let caracteres: Vec<char> = texto.chars().collect();
        let letras = match caracteres.len() {
            12 => 3,
            13 => 4,
            _ => return Err(RfcInvalido::Largo),
        };
        if !caracteres[..letras].iter().all(|c| c.is_ascii_uppercase() || *c == 'Ñ' || *c == '&') {
            return Err(RfcInvalido::Letras { letras });
        }
        let fecha = &caracteres[letras..letras + 6];
        if !fecha.iter().all(char::is_ascii_digit) {
            return Err(RfcInvalido::SinFecha);
        }
        let digito = |i: usize| fecha[i].to_digit(10).unwrap_or(0);
        let mes = digito(2) * 10 + digito(3);
        let dia = digito(4) * 10 + digito(5);
        if !(1..=12).contains(&mes) || !(1..=31).contains(&dia) {
            return Err(RfcInvalido::Fecha { fecha: fecha.iter().collect() });
        }
        let homoclave = &caracteres[letras + 6..];
        let alfanumerico = |c: &char| c.is_ascii_uppercase() || c.is_ascii_digit();
        if !homoclave[..2].iter().all(alfanumerico) || !(homoclave[2].is_ascii_digit() || homoclave[2] == 'A') {
            return Err(RfcInvalido::Homoclave);
        }
        Ok(Self(texto.to_owned()))
    }

    /// Persona moral (12 characters) or física (13).
    pub fn persona(&self) -> Persona {
        if self.0.chars().count() == 13 { Persona::Fisica } else { Persona::Moral }
    }

    /// The check digit (the last character) SAT's algorithm gives for the first eleven or
    /// twelve characters: each character's value in `0-9A-N&O-Z Ñ` (0 to 38) times its weight
    /// (13 down to 2, a persona moral's RFC padded with a leading space), and 11 minus the sum
    /// modulo 11, where 11 is `0` and 10 is `A`. The generic RFCs do not follow it.
    pub fn digito_verificador(&self) -> char {
        const VALORES: &str = "0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ Ñ";
        let caracteres: Vec<char> = self.0.chars().collect();
        let base = &caracteres[..caracteres.len() - 1];
        let relleno = (base.len() == 11).then_some(' ');
        let suma: usize = relleno
            .into_iter()
            .chain(base.iter().copied())
            .zip((2..=13).rev())
            .map(|(c, peso)| VALORES.chars().position(|v| v == c).unwrap_or(0) * peso)
            .sum();
        match 11 - suma % 11 {
            11 => '0',
            10 => 'A',
            // 1 to 9: a digit.
            d => char::from_digit(u32::try_from(d).unwrap_or(0), 10).unwrap_or('0'),
        }
    }

    /// Whether the last character is the [`Rfc::digito_verificador`].
    pub fn digito_verificador_valido(&self) -> bool {
        self.0.ends_with(self.digito_verificador())
    }

    /// [`RFC_PUBLICO_GENERAL`] or [`RFC_EXTRANJERO`].
    pub fn es_generico(&self) -> bool {
        es_rfc_generico(&self.0)
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for Rfc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `rfc` is one of the two generic RFCs ([`RFC_PUBLICO_GENERAL`], [`RFC_EXTRANJERO`]).
pub fn es_rfc_generico(rfc: &str) -> bool {
    rfc == RFC_PUBLICO_GENERAL || rfc == RFC_EXTRANJERO
}

/// A postal code is not five digits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a postal code (c_CodigoPostal) is exactly 5 digits")]
pub struct CodigoPostalInvalido;

/// A postal code of the c_CodigoPostal shape (five digits; membership in the catalog is a
/// separate check, see [`crate::catalogos::Catalogos`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CodigoPostal(String);

impl CodigoPostal {
    /// Checks `texto` exactly as given.
    ///
    /// # Errors
    /// [`CodigoPostalInvalido`] unless it is five ASCII digits.
    pub fn new(texto: &str) -> Result<Self, CodigoPostalInvalido> {
        if texto.len() == 5 && texto.bytes().all(|b| b.is_ascii_digit()) {
            Ok(Self(texto.to_owned()))
        } else {
            Err(CodigoPostalInvalido)
        }
    }

    /// The five digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Prefix of the folio fiscal the API shows for sandbox stamps (`SANDBOX-` + the XML's UUID).
pub const PREFIJO_SANDBOX: &str = "SANDBOX-";

/// A text is not a folio fiscal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a folio fiscal is a UUID XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX (hexadecimal), optionally prefixed SANDBOX-")]
pub struct FolioFiscalInvalido;

/// A folio fiscal (the TimbreFiscalDigital's UUID) as clients write it: bare or with the
/// sandbox prefix, any case, surrounding spaces ignored. Kept as SAT writes it in the XML
/// (upper case, no prefix).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FolioFiscal(String);

impl FolioFiscal {
    /// Reads `texto`.
    ///
    /// # Errors
    /// [`FolioFiscalInvalido`] unless it is 8-4-4-4-12 hexadecimal digits after the prefix.
    pub fn leer(texto: &str) -> Result<Self, FolioFiscalInvalido> {
        let texto = texto.trim();
        let sin_prefijo = match texto.get(..PREFIJO_SANDBOX.len()) {
            Some(prefijo) if prefijo.eq_ignore_ascii_case(PREFIJO_SANDBOX) => &texto[PREFIJO_SANDBOX.len()..],
            _ => texto,
        };
        let uuid = sin_prefijo.to_ascii_uppercase();
        if crate::timbre::uuid_valido(&uuid) { Ok(Self(uuid)) } else { Err(FolioFiscalInvalido) }
    }

    /// The UUID as the XML carries it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for FolioFiscal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The schema facets of one SAT free-text attribute: `minLength`, `maxLength` and whether
/// its pattern is `[^|]{min,max}` (most are; the pipe separates fields of the cadena
/// original).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CampoTexto {
    /// SAT's attribute name, for messages.
    pub atributo: &'static str,
    /// `minLength`.
    pub minimo: usize,
    /// `maxLength`.
    pub maximo: usize,
    /// The pattern forbids `|`.
    pub sin_barra: bool,
}

impl CampoTexto {
    const fn sat(atributo: &'static str, minimo: usize, maximo: usize) -> Self {
        Self { atributo, minimo, maximo, sin_barra: true }
    }

    /// cfdv40.xsd `Emisor/@Nombre`, `Receptor/@Nombre`: `[^|]{1,300}`.
    pub const NOMBRE: Self = Self::sat("Nombre", 1, 300);
    /// cfdv40.xsd `Concepto/@Descripcion`, `Parte/@Descripcion`: `[^|]{1,1000}`.
    pub const DESCRIPCION: Self = Self::sat("Descripcion", 1, 1000);
    /// cfdv40.xsd `Concepto/@NoIdentificacion`: `[^|]{1,100}`.
    pub const NO_IDENTIFICACION: Self = Self::sat("NoIdentificacion", 1, 100);
    /// cfdv40.xsd `Concepto/@Unidad`: `[^|]{1,20}`.
    pub const UNIDAD: Self = Self::sat("Unidad", 1, 20);
    /// cfdv40.xsd `Comprobante/@Serie`: `[^|]{1,25}`.
    pub const SERIE: Self = Self::sat("Serie", 1, 25);
    /// cfdv40.xsd `Comprobante/@Folio`: `[^|]{1,40}`.
    pub const FOLIO: Self = Self::sat("Folio", 1, 40);
    /// cfdv40.xsd `Comprobante/@CondicionesDePago`: `[^|]{1,1000}`.
    pub const CONDICIONES_DE_PAGO: Self = Self::sat("CondicionesDePago", 1, 1000);
    /// cfdv40.xsd `Receptor/@NumRegIdTrib`: 1 to 40 characters (no pattern of its own).
    pub const NUM_REG_ID_TRIB: Self = Self { atributo: "NumRegIdTrib", minimo: 1, maximo: 40, sin_barra: false };
    /// nomina12.xsd `Percepcion|Deduccion|OtroPago/@Concepto`: `[^|]{1,100}`.
    pub const CONCEPTO_NOMINA: Self = Self::sat("Concepto", 1, 100);
    /// nomina12.xsd `Percepcion|Deduccion|OtroPago/@Clave`: `[^|]{3,15}`.
    pub const CLAVE_NOMINA: Self = Self::sat("Clave", 3, 15);
    /// nomina12.xsd `Receptor/@NumEmpleado`: `[^|]{1,15}`.
    pub const NUM_EMPLEADO: Self = Self::sat("NumEmpleado", 1, 15);
    /// nomina12.xsd `Receptor/@Departamento`: `[^|]{1,100}`.
    pub const DEPARTAMENTO: Self = Self::sat("Departamento", 1, 100);
    /// nomina12.xsd `Receptor/@Puesto`: `[^|]{1,100}`.
    pub const PUESTO: Self = Self::sat("Puesto", 1, 100);
    /// Pagos20.xsd `Pago/@NumOperacion`: `[^|]{1,100}`.
    pub const NUM_OPERACION: Self = Self::sat("NumOperacion", 1, 100);
    /// Pagos20.xsd `Pago/@NomBancoOrdExt`: `[^|]{1,300}`.
    pub const NOM_BANCO_ORD_EXT: Self = Self::sat("NomBancoOrdExt", 1, 300);
}

/// Why a text does not fit its SAT attribute.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextoInvalido {
    /// Empty (after the caller's trimming).
    #[error("is required and cannot be empty ({atributo} has {minimo} to {maximo} characters)")]
    Vacio {
        /// SAT's attribute.
        atributo: &'static str,
        /// `minLength`.
        minimo: usize,
        /// `maxLength`.
        maximo: usize,
    },
    /// Shorter than `minLength`.
    #[error("has {largo} characters; {atributo} has at least {minimo}")]
    Corto {
        /// SAT's attribute.
        atributo: &'static str,
        /// `minLength`.
        minimo: usize,
        /// Characters given.
        largo: usize,
    },
    /// Longer than `maxLength`.
    #[error("has {largo} characters; {atributo} has at most {maximo}")]
    Largo {
        /// SAT's attribute.
        atributo: &'static str,
        /// `maxLength`.
        maximo: usize,
        /// Characters given.
        largo: usize,
    },
    /// Contains `|`, which the SAT pattern `[^|]` forbids.
    #[error("cannot contain '|' (SAT's pattern for {atributo} is [^|]); remove it")]
    Barra {
        /// SAT's attribute.
        atributo: &'static str,
    },
    /// Contains a character XML 1.0 cannot carry (a control character, U+FFFE or U+FFFF).
    #[error(
        "contains the control character {nombre} at position {posicion}, which an XML document cannot carry; remove it"
    )]
    Caracter {
        /// SAT's attribute.
        atributo: &'static str,
        /// `U+0007`.
        nombre: String,
        /// Position in characters, from 0.
        posicion: usize,
    },
}

/// A free text that fits its SAT attribute ([`CampoTexto`]): length in characters within
/// `minLength..=maxLength`, no `|` where the pattern forbids it, and only characters an XML
/// 1.0 document can carry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TextoSat(String);

impl TextoSat {
    /// Checks `texto` exactly as given against `campo` (callers trim user input first).
    ///
    /// # Errors
    /// [`TextoInvalido`] with the first problem: the character problems first (they are the
    /// ones that break documents), then the length.
    pub fn new(campo: CampoTexto, texto: &str) -> Result<Self, TextoInvalido> {
        if let Some((posicion, caracter)) = primer_caracter_no_xml(texto) {
            return Err(TextoInvalido::Caracter {
                atributo: campo.atributo,
                nombre: nombre_caracter(caracter),
                posicion,
            });
        }
        if campo.sin_barra && texto.contains('|') {
            return Err(TextoInvalido::Barra { atributo: campo.atributo });
        }
        let largo = texto.chars().count();
        if largo == 0 {
            return Err(TextoInvalido::Vacio { atributo: campo.atributo, minimo: campo.minimo, maximo: campo.maximo });
        }
        if largo < campo.minimo {
            return Err(TextoInvalido::Corto { atributo: campo.atributo, minimo: campo.minimo, largo });
        }
        if largo > campo.maximo {
            return Err(TextoInvalido::Largo { atributo: campo.atributo, maximo: campo.maximo, largo });
        }
        Ok(Self(texto.to_owned()))
    }

    /// A `Nombre` (emisor, receptor, razón social).
    ///
    /// # Errors
    /// See [`TextoSat::new`].
    pub fn nombre(texto: &str) -> Result<Self, TextoInvalido> {
        Self::new(CampoTexto::NOMBRE, texto)
    }

    /// A concept's `Descripcion`.
    ///
    /// # Errors
    /// See [`TextoSat::new`].
    pub fn descripcion(texto: &str) -> Result<Self, TextoInvalido> {
        Self::new(CampoTexto::DESCRIPCION, texto)
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

/// 10^18: every amount of tdCFDI `t_Importe` (`[0-9]{1,18}(.[0-9]{1,6})?`) is below it, and
/// the product of two such amounts may overflow `Decimal` (about 7.9 × 10^28), so arithmetic
/// on them is checked against it.
pub const LIMITE_IMPORTE: Decimal = Decimal::from_parts(2_808_348_672, 232_830_643, 0, false, 0);

/// The schema facets of a decimal attribute: integer digits allowed before the point (the
/// `[0-9]{1,18}` of `t_Importe`, or `totalDigits − fractionDigits`) and `fractionDigits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Esquema {
    /// Most digits before the decimal point.
    pub enteros: u32,
    /// Most digits after it.
    pub decimales: u32,
}

impl Esquema {
    /// tdCFDI `t_Importe`: `[0-9]{1,18}(.[0-9]{1,6})?`, not negative. Used for ValorUnitario,
    /// Descuento, Base and every Importe.
    pub const IMPORTE: Self = Self { enteros: 18, decimales: 6 };
    /// cfdv40.xsd `Concepto/@Cantidad`: `fractionDigits` 6. The schema sets no integer limit;
    /// 18 digits keeps `Cantidad × ValorUnitario` within reach of a `t_Importe`.
    pub const CANTIDAD: Self = Self { enteros: 18, decimales: 6 };
    /// cfdv40.xsd `TasaOCuota`: `fractionDigits` 6 (c_TasaOCuota values are below 1 000).
    pub const TASA_O_CUOTA: Self = Self { enteros: 18, decimales: 6 };
    /// cfdv40.xsd `Comprobante/@TipoCambio`: `fractionDigits` 6.
    pub const TIPO_CAMBIO: Self = Self { enteros: 18, decimales: 6 };
}

/// Why a text is not an amount of its schema.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImporteInvalido {
    /// Not plain decimal notation (`-?[0-9]+(\.[0-9]+)?`): exponents, `_`, `+`, spaces,
    /// commas or anything else.
    #[error(
        "«{texto}» is not a plain decimal number; write digits with an optional '.' and decimals, e.g. 1000.50 (no exponent, '_', ',' or '+')"
    )]
    Notacion {
        /// The text.
        texto: String,
    },
    /// Negative where the schema's minimum is 0.
    #[error("cannot be negative")]
    Negativo,
    /// More integer digits than the schema allows.
    #[error("has {digitos} digits before the decimal point; at most {maximo} are allowed")]
    Enteros {
        /// Digits given (leading zeros not counted).
        digitos: usize,
        /// The schema's limit.
        maximo: u32,
    },
    /// More decimals than the schema allows (nothing is rounded silently).
    #[error("has {digitos} decimals; at most {maximo} are allowed")]
    Decimales {
        /// Decimals given.
        digitos: usize,
        /// The schema's limit.
        maximo: u32,
    },
}

/// A non-negative decimal read from plain notation within an [`Esquema`]: the text is never
/// rounded and can never overflow `Decimal` (at most 18 + 6 digits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Importe(Decimal);

impl Importe {
    /// Reads `texto` (no trimming) as a non-negative amount of `esquema`.
    ///
    /// # Errors
    /// [`ImporteInvalido`]: notation, sign, integer digits or decimals.
    pub fn leer(texto: &str, esquema: Esquema) -> Result<Self, ImporteInvalido> {
        let notacion = || ImporteInvalido::Notacion { texto: texto.to_owned() };
        let (negativo, sin_signo) = match texto.strip_prefix('-') {
            Some(resto) => (true, resto),
            None => (false, texto),
        };
        let (entero, fraccion) = match sin_signo.split_once('.') {
            Some((entero, fraccion)) => (entero, Some(fraccion)),
            None => (sin_signo, None),
        };
        let digitos = |parte: &str| !parte.is_empty() && parte.bytes().all(|b| b.is_ascii_digit());
        if !digitos(entero) || fraccion.is_some_and(|f| !digitos(f)) {
            return Err(notacion());
        }
        let significativos = entero.trim_start_matches('0').len();
        if significativos > esquema.enteros as usize {
            return Err(ImporteInvalido::Enteros { digitos: significativos, maximo: esquema.enteros });
        }
        let decimales = fraccion.map_or(0, str::len);
        if decimales > esquema.decimales as usize {
            return Err(ImporteInvalido::Decimales { digitos: decimales, maximo: esquema.decimales });
        }
        // Within 18 + 6 digits the text always fits a Decimal exactly.
        let valor = Decimal::from_str(texto).map_err(|_| notacion())?;
        if negativo && !valor.is_zero() {
            return Err(ImporteInvalido::Negativo);
        }
        Ok(Self(valor))
    }

    /// The value, with the scale it was written with (`1.50` keeps two decimals).
    pub fn valor(self) -> Decimal {
        self.0
    }
}

impl fmt::Display for Importe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folios_fiscales_bare_or_sandbox() {
        let bare = FolioFiscal::leer(" c2832671-da6d-11ef-a83d-00155d012007 ").unwrap();
        assert_eq!(bare.as_str(), "C2832671-DA6D-11EF-A83D-00155D012007");
        assert_eq!(FolioFiscal::leer("sandbox-C2832671-DA6D-11EF-A83D-00155D012007").unwrap(), bare);
        assert_eq!(FolioFiscal::leer("SANDBOX-C2832671-DA6D-11EF-A83D-00155D012007").unwrap(), bare);
        for malo in [
            "",
            "SANDBOX-",
            "C2832671-DA6D-11EF-A83D-00155D01200",
            "G2832671-DA6D-11EF-A83D-00155D012007",
            "SANDBOX-SANDBOX-x",
        ] {
            assert_eq!(FolioFiscal::leer(malo), Err(FolioFiscalInvalido), "{malo}");
        }
    }
    use proptest::prelude::*;
    use rust_decimal_macros::dec;

    #[test]
    fn rfcs_of_sat_test_taxpayers() {
        for (rfc, persona) in [
            ("EKU9003173C9", Persona::Moral),
            ("H&E951128469", Persona::Moral),
            ("XIQB891116QE4", Persona::Fisica),
            ("IAÑL750210963", Persona::Fisica),
            (RFC_PUBLICO_GENERAL, Persona::Fisica),
        ] {
            assert_eq!(Rfc::new(rfc).map(|r| r.persona()), Ok(persona), "{rfc}");
        }
        assert!(Rfc::new(RFC_EXTRANJERO).unwrap().es_generico());
        assert!(!Rfc::new("EKU9003173C9").unwrap().es_generico());
        for bad in [
            "",
            "EKU900317",
            "eku9003173c9",
            "EKU9013173C9",
            "EKU9003323C9",
            "1KU9003173C9",
            "EKU9003173C-",
            "EKU9003173CB",
            "EKU9003173C",
        ] {
            assert!(Rfc::new(bad).is_err(), "{bad} accepted");
        }
        assert_eq!(Rfc::new("EKU9013173C9"), Err(RfcInvalido::Fecha { fecha: "901317".into() }));
    }

    #[test]
    fn check_digits_of_sat_test_taxpayers() {
        // SAT's test certificates (morales padded with a space; Ñ and & have their own values).
        for rfc in ["EKU9003173C9", "XIA190128J61", "URE180429TM6", "XOJI740919U48", "IAÑL750210963", "CACX7605101P8"]
        {
            assert!(Rfc::new(rfc).unwrap().digito_verificador_valido(), "{rfc}");
        }
        let alterado = Rfc::new("XOJI740919U47").unwrap();
        assert!(!alterado.digito_verificador_valido());
        assert_eq!(alterado.digito_verificador(), '8');
        // 11 − remainder: 10 is A, 11 is 0.
        assert_eq!(Rfc::new("AAAA010101AGA").unwrap().digito_verificador(), 'A');
        assert_eq!(Rfc::new("AAAA010101AA0").unwrap().digito_verificador(), '0');
    }

    #[test]
    fn codigos_postales() {
        assert!(CodigoPostal::new("86000").is_ok());
        for bad in ["8600", "860000", "8600a", " 8600", "８６０００"] {
            assert!(CodigoPostal::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn textos_con_control_o_barra() {
        assert_eq!(TextoSat::nombre("ACME SA").unwrap().as_str(), "ACME SA");
        assert!(TextoSat::nombre("Tab\tLF\nCR\r ok").is_ok());
        let error = TextoSat::nombre("ACME\u{7}SA").unwrap_err();
        assert_eq!(error, TextoInvalido::Caracter { atributo: "Nombre", nombre: "U+0007".into(), posicion: 4 });
        assert!(error.to_string().contains("U+0007"), "{error}");
        for bad in ["\u{0}", "a\u{1F}", "\u{FFFE}", "x\u{FFFF}", "\u{B}"] {
            assert!(matches!(TextoSat::descripcion(bad), Err(TextoInvalido::Caracter { .. })), "{bad:?}");
        }
        assert_eq!(TextoSat::descripcion("a|b"), Err(TextoInvalido::Barra { atributo: "Descripcion" }));
        assert!(TextoSat::new(CampoTexto::NUM_REG_ID_TRIB, "a|b").is_ok());
        assert!(matches!(TextoSat::nombre(""), Err(TextoInvalido::Vacio { .. })));
        assert!(matches!(TextoSat::nombre(&"Ñ".repeat(301)), Err(TextoInvalido::Largo { largo: 301, .. })));
        assert!(TextoSat::nombre(&"Ñ".repeat(300)).is_ok());
        assert!(matches!(TextoSat::new(CampoTexto::CLAVE_NOMINA, "01"), Err(TextoInvalido::Corto { .. })));
    }

    #[test]
    fn limite_importe_es_diez_a_la_18() {
        assert_eq!(LIMITE_IMPORTE, Decimal::from(1_000_000_000_000_000_000_i64));
    }

    #[test]
    fn importes_en_notacion_simple() {
        assert_eq!(Importe::leer("1000", Esquema::IMPORTE).unwrap().valor(), dec!(1000));
        assert_eq!(Importe::leer("1.50", Esquema::IMPORTE).unwrap().valor().to_string(), "1.50");
        assert_eq!(Importe::leer("0.000001", Esquema::CANTIDAD).unwrap().valor(), dec!(0.000001));
        assert_eq!(Importe::leer("-0", Esquema::IMPORTE).unwrap().valor(), dec!(0));
        assert!(Importe::leer("999999999999999999.999999", Esquema::IMPORTE).is_ok());
        assert!(Importe::leer("000000000000000000001", Esquema::IMPORTE).is_ok());
        for bad in ["1e28", "1E5", "1_000", "+1", "1,000", " 1", "1.", ".5", "", "-", "0x10", "1.2.3", "NaN", "١"] {
            assert!(matches!(Importe::leer(bad, Esquema::IMPORTE), Err(ImporteInvalido::Notacion { .. })), "{bad}");
        }
        assert_eq!(Importe::leer("-1", Esquema::IMPORTE), Err(ImporteInvalido::Negativo));
        assert_eq!(
            Importe::leer("1000000000000000000", Esquema::IMPORTE),
            Err(ImporteInvalido::Enteros { digitos: 19, maximo: 18 })
        );
        assert_eq!(
            Importe::leer("79228162514264337593543950335", Esquema::IMPORTE),
            Err(ImporteInvalido::Enteros { digitos: 29, maximo: 18 })
        );
        assert_eq!(
            Importe::leer("1.123456789012345678901234567890", Esquema::IMPORTE),
            Err(ImporteInvalido::Decimales { digitos: 30, maximo: 6 })
        );
    }

    proptest! {
        #[test]
        fn cualquier_texto_se_lee_o_se_rechaza_sin_panico(texto in "\\PC{0,40}") {
            let _ = Importe::leer(&texto, Esquema::IMPORTE);
            let _ = TextoSat::nombre(&texto);
            let _ = Rfc::new(&texto);
        }

        #[test]
        fn lo_escrito_se_lee_igual(entero in 0u64..1_000_000_000_000_000_000, fraccion in 0u32..1_000_000) {
            let texto = format!("{entero}.{fraccion:06}");
            let leido = Importe::leer(&texto, Esquema::IMPORTE).unwrap();
            prop_assert_eq!(leido.valor().to_string(), texto);
        }
    }
}
