//! Field checks shared by the company, customer and product routes. Each returns a
//! [`FieldProblem`] that says what to fix, so a handler can report every problem at once.

use rust_decimal::Decimal;

use crate::error::FieldProblem;
use timbra_cfdi::catalogos::RegimenFiscal;

/// The two kinds of taxpayer an RFC can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Persona {
    /// Persona moral: 12 characters (3 letters, date, homoclave).
    Moral,
    /// Persona física: 13 characters (4 letters, date, homoclave).
    Fisica,
}

/// Checks an RFC against SAT's pattern (`[A-ZÑ&]{3,4}` + `YYMMDD` + 3 alphanumerics) with a real
/// date, and tells whether it names a persona moral or física.
pub fn rfc(text: &str) -> Result<Persona, String> {
    let chars: Vec<char> = text.chars().collect();
    let (letters, persona) = match chars.len() {
        12 => (3, Persona::Moral),
        13 => (4, Persona::Fisica),
        _ => return Err("RFC must have 12 characters (persona moral) or 13 (persona física)".into()),
    };
    if !chars[..letters].iter().all(|c| c.is_ascii_uppercase() || *c == 'Ñ' || *c == '&') {
        return Err(format!("the first {letters} characters of the RFC must be uppercase letters, Ñ or &"));
    }
    let date: String = chars[letters..letters + 6].iter().collect();
    if !date.chars().all(|c| c.is_ascii_digit()) {
        return Err("the RFC must have its date (YYMMDD) after the letters".into());
    }
    let month: u32 = date[2..4].parse().unwrap_or(0);
    let day: u32 = date[4..6].parse().unwrap_or(0);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return Err(format!("the RFC date {date} is not a valid YYMMDD date"));
    }
    if !chars[letters + 6..].iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()) {
        return Err("the RFC must end in 3 uppercase letters or digits (homoclave)".into());
    }
    Ok(persona)
}

/// The generic RFCs: público en general and extranjero.
pub fn is_generic_rfc(rfc: &str) -> bool {
    rfc == "XAXX010101000" || rfc == "XEXX010101000"
}

/// A required, trimmed text field of at most `max` characters.
pub fn required_text(problems: &mut Vec<FieldProblem>, field: &str, value: Option<&str>, max: usize) -> String {
    let value = value.map(str::trim).unwrap_or_default();
    if value.is_empty() {
        problems.push(FieldProblem::new(field, format!("{field} is required")));
    } else if value.chars().count() > max {
        problems.push(FieldProblem::new(field, format!("{field} has at most {max} characters")));
    }
    value.to_owned()
}

/// An RFC field: required, uppercase, SAT's pattern.
pub fn rfc_field(problems: &mut Vec<FieldProblem>, field: &str, value: Option<&str>) -> (String, Option<Persona>) {
    let value = value.map(|v| v.trim().to_uppercase()).unwrap_or_default();
    if value.is_empty() {
        problems.push(FieldProblem::new(field, format!("{field} is required")));
        return (value, None);
    }
    match rfc(&value) {
        Ok(persona) => (value, Some(persona)),
        Err(message) => {
            problems.push(FieldProblem::new(field, message));
            (value, None)
        }
    }
}

/// A postal code: exactly five digits.
pub fn codigo_postal(problems: &mut Vec<FieldProblem>, field: &str, value: Option<&str>) -> String {
    let value = value.map(str::trim).unwrap_or_default().to_owned();
    if value.len() != 5 || !value.chars().all(|c| c.is_ascii_digit()) {
        problems.push(FieldProblem::new(field, "codigoPostal must be 5 digits"));
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

/// An amount with at most `decimals` decimals, not negative.
pub fn amount(problems: &mut Vec<FieldProblem>, field: &str, value: Option<Decimal>, decimals: u32) -> Decimal {
    match value {
        None => {
            problems.push(FieldProblem::new(field, format!("{field} is required")));
            Decimal::ZERO
        }
        Some(value) if value.is_sign_negative() && !value.is_zero() => {
            problems.push(FieldProblem::new(field, format!("{field} cannot be negative")));
            value
        }
        Some(value) if value.normalize().scale() > decimals => {
            problems.push(FieldProblem::new(field, format!("{field} has at most {decimals} decimals")));
            value
        }
        Some(value) => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfcs_of_sat_test_taxpayers() {
        assert_eq!(rfc("EKU9003173C9"), Ok(Persona::Moral));
        assert_eq!(rfc("H&E951128469"), Ok(Persona::Moral));
        assert_eq!(rfc("XIQB891116QE4"), Ok(Persona::Fisica));
        assert_eq!(rfc("IAÑL750210963"), Ok(Persona::Fisica));
        assert_eq!(rfc("XAXX010101000"), Ok(Persona::Fisica));
        for bad in ["", "EKU900317", "eku9003173c9", "EKU9013173C9", "EKU9003323C9", "1KU9003173C9", "EKU9003173C-"] {
            assert!(rfc(bad).is_err(), "{bad} accepted");
        }
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
        let mut problems = Vec::new();
        assert_eq!(amount(&mut problems, "p", Some(Decimal::new(1050, 2)), 6), Decimal::new(1050, 2));
        amount(&mut problems, "p", Some(Decimal::new(-1, 0)), 6);
        amount(&mut problems, "p", Some(Decimal::new(1, 7)), 6);
        amount(&mut problems, "p", None, 6);
        assert_eq!(problems.len(), 3);
    }
}
