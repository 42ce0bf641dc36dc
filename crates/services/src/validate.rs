//! Field checks shared by the company, customer and product routes. Each returns a
//! [`FieldProblem`] that says what to fix, so a handler can report every problem at once.

use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer};

use crate::error::FieldProblem;
use timbra_cfdi::catalogos::RegimenFiscal;
use timbra_cfdi::tipos::{CampoTexto, CodigoPostal, Esquema, Importe, Rfc, TextoSat};

pub use timbra_cfdi::tipos::Persona;

/// A required SAT text (`campo` gives SAT's pattern and length), trimmed: every character
/// must be one an XML document can carry, no `|` where SAT's pattern forbids it, and the
/// length within the schema's.
pub fn sat_text(problems: &mut Vec<FieldProblem>, field: &str, value: Option<&str>, campo: CampoTexto) -> String {
    let value = value.map(str::trim).unwrap_or_default();
    if let Err(error) = TextoSat::new(campo, value) {
        problems.push(FieldProblem::new(field, format!("{field} {error}")));
    }
    value.to_owned()
}

/// An optional SAT text: absent or blank is `None`; otherwise as [`sat_text`].
pub fn optional_sat_text(
    problems: &mut Vec<FieldProblem>,
    field: &str,
    value: Option<&str>,
    campo: CampoTexto,
) -> Option<String> {
    let value = value.map(str::trim).filter(|v| !v.is_empty())?;
    Some(sat_text(problems, field, Some(value), campo))
}

/// An RFC field: required, uppercase, tdCFDI `t_RFC` (the one rule: [`Rfc::new`]).
pub fn rfc_field(problems: &mut Vec<FieldProblem>, field: &str, value: Option<&str>) -> (String, Option<Persona>) {
    let value = value.map(|v| v.trim().to_uppercase()).unwrap_or_default();
    if value.is_empty() {
        problems.push(FieldProblem::new(field, format!("{field} is required")));
        return (value, None);
    }
    match Rfc::new(&value) {
        Ok(rfc) => (value, Some(rfc.persona())),
        Err(error) => {
            problems.push(FieldProblem::new(field, error.to_string()));
            (value, None)
        }
    }
}

/// A postal code: exactly five digits.
pub fn codigo_postal(problems: &mut Vec<FieldProblem>, field: &str, value: Option<&str>) -> String {
    let value = value.map(str::trim).unwrap_or_default().to_owned();
    if let Err(error) = CodigoPostal::new(&value) {
        problems.push(FieldProblem::new(field, format!("{field}: {error}")));
    }
    value
}

/// A régimen fiscal code from c_RegimenFiscal that applies to this kind of taxpayer.
pub fn regimen_fiscal(
    problems: &mut Vec<FieldProblem>,
    field: &str,
    value: Option<&str>,
    persona: Option<Persona>,
) -> String {
    let value = value.map(str::trim).unwrap_or_default().to_owned();
    match RegimenFiscal::desde_codigo(&value) {
        None => problems.push(FieldProblem::new(
            field,
            format!("{value:?} is not a régimen fiscal of SAT's catalog c_RegimenFiscal (e.g. 601, 612, 626)"),
        )),
        Some(regimen) => match persona {
            Some(Persona::Moral) if !regimen.aplica_moral() => problems.push(FieldProblem::new(
                field,
                format!(
                    "régimen {value} ({}) applies only to personas físicas (13-character RFC)",
                    regimen.descripcion()
                ),
            )),
            Some(Persona::Fisica) if !regimen.aplica_fisica() => problems.push(FieldProblem::new(
                field,
                format!(
                    "régimen {value} ({}) applies only to personas morales (12-character RFC)",
                    regimen.descripcion()
                ),
            )),
            _ => {}
        },
    }
    value
}

/// An amount as the JSON body wrote it: a number's exact text (serde_json
/// `arbitrary_precision`) or a string, so that [`amount`] judges what was sent: nothing is
/// rounded, and exponents or `_` are refused instead of being read. A value of another JSON
/// kind is kept as that kind, so the problem is reported with the body's other field problems
/// rather than as a malformed body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawAmount(Result<String, &'static str>);

impl RawAmount {
    /// The text of an amount read from storage or computed (always plain notation).
    pub fn from_decimal(value: Decimal) -> Self {
        Self(Ok(value.to_string()))
    }

    /// An amount as typed in a form (trimmed; [`amount`] judges it as it judges the API's).
    pub fn from_text(text: &str) -> Self {
        Self(Ok(text.trim().to_owned()))
    }
}

impl<'de> Deserialize<'de> for RawAmount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde_json::Value;
        Ok(Self(match Value::deserialize(deserializer)? {
            Value::Number(number) => Ok(number.to_string()),
            Value::String(text) => Ok(text.trim().to_owned()),
            Value::Bool(_) => Err("a boolean"),
            Value::Array(_) => Err("an array"),
            Value::Object(_) => Err("an object"),
            // `Option<RawAmount>` turns null into `None` before reaching here.
            Value::Null => Err("null"),
        }))
    }
}

/// An amount within the SAT schema `esquema` (integer digits and decimals), not negative,
/// written in plain decimal notation; `None` (with a problem) otherwise, or when absent and
/// `required`.
pub fn amount(
    problems: &mut Vec<FieldProblem>,
    field: &str,
    value: Option<&RawAmount>,
    esquema: Esquema,
    required: bool,
) -> Option<Decimal> {
    let text = match value.map(|raw| &raw.0) {
        None => {
            if required {
                problems.push(FieldProblem::new(field, format!("{field} is required")));
            }
            return None;
        }
        Some(Err(kind)) => {
            problems
                .push(FieldProblem::new(field, format!("{field} must be a number or a decimal string, not {kind}")));
            return None;
        }
        Some(Ok(text)) => text,
    };
    match Importe::leer(text, esquema) {
        Ok(importe) => Some(importe.valor()),
        Err(error) => {
            problems.push(FieldProblem::new(field, format!("{field} {error}")));
            None
        }
    }
}

/// A plausible email: one `@`, something before it, a dot after it, no spaces.
pub fn valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else { return false };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(char::is_whitespace)
        && !domain.contains('@')
        && email.len() <= 254
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        assert!(valid_email("ana@example.com"));
        assert!(valid_email("peña@dominio.mx"));
        for bad in ["", "ana", "ana@", "@x.com", "ana@x", "a b@x.com", "a@@x.com", "a@.com"] {
            assert!(!valid_email(bad), "{bad}");
        }
    }

    #[test]
    fn rfc_fields_name_what_is_wrong() {
        let mut problems = Vec::new();
        assert_eq!(
            rfc_field(&mut problems, "rfc", Some(" eku9003173c9 ")),
            ("EKU9003173C9".into(), Some(Persona::Moral))
        );
        rfc_field(&mut problems, "rfc", Some("EKU9013173C9"));
        rfc_field(&mut problems, "rfc", None);
        assert_eq!(problems.len(), 2);
        assert!(problems[0].message.contains("901317"), "{}", problems[0].message);
    }

    #[test]
    fn sat_texts() {
        let mut problems = Vec::new();
        assert_eq!(sat_text(&mut problems, "razonSocial", Some("  ACME  "), CampoTexto::NOMBRE), "ACME");
        assert!(problems.is_empty());
        sat_text(&mut problems, "razonSocial", Some("AC\u{1}ME"), CampoTexto::NOMBRE);
        sat_text(&mut problems, "descripcion", Some("a|b"), CampoTexto::DESCRIPCION);
        sat_text(&mut problems, "descripcion", None, CampoTexto::DESCRIPCION);
        assert_eq!(optional_sat_text(&mut problems, "unidad", Some("  "), CampoTexto::UNIDAD), None);
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, ["razonSocial", "descripcion", "descripcion"]);
        assert!(
            problems[0].message.starts_with("razonSocial contains the control character U+0001"),
            "{}",
            problems[0].message
        );
    }

    #[test]
    fn regimen_must_fit_the_persona() {
        let mut problems = Vec::new();
        regimen_fiscal(&mut problems, "regimenFiscal", Some("601"), Some(Persona::Moral));
        regimen_fiscal(&mut problems, "regimenFiscal", Some("626"), Some(Persona::Fisica));
        assert!(problems.is_empty());
        regimen_fiscal(&mut problems, "regimenFiscal", Some("605"), Some(Persona::Moral));
        regimen_fiscal(&mut problems, "regimenFiscal", Some("999"), None);
        assert_eq!(problems.len(), 2);
        assert!(problems[0].message.contains("personas físicas"));
    }

    #[test]
    fn amounts() {
        let raw = |text: &str| serde_json::from_str::<RawAmount>(text).unwrap();
        let mut problems = Vec::new();
        assert_eq!(
            amount(&mut problems, "p", Some(&raw("10.50")), Esquema::IMPORTE, true),
            Some(Decimal::new(1050, 2))
        );
        assert_eq!(
            amount(&mut problems, "p", Some(&raw("\"10.50\"")), Esquema::IMPORTE, true),
            Some(Decimal::new(1050, 2))
        );
        assert_eq!(amount(&mut problems, "p", None, Esquema::IMPORTE, false), None);
        assert!(problems.is_empty());
        for bad in ["-1", "0.0000001", "1e28", "\"1e28\"", "\"1_000\"", "true", "1.000000000000000000000000000001"] {
            assert_eq!(amount(&mut problems, "p", Some(&raw(bad)), Esquema::IMPORTE, true), None, "{bad}");
        }
        amount(&mut problems, "p", None, Esquema::IMPORTE, true);
        assert_eq!(problems.len(), 8);
        assert_eq!(raw("1.000000000000000000000000000001").0, Ok("1.000000000000000000000000000001".into()));
    }
}
