//! The worker's identifiers on a payroll receipt: CURP (Nómina 1.2 `t_CURP`, with RENAPO's
//! check digit) and NSS (IMSS número de seguridad social, 11 digits with a Luhn check digit).

/// SAT's `t_CURP` pattern, part by part, with RENAPO's check digit.
///
/// `[A-Z][AEIOUX][A-Z]{2}[0-9]{2}(0[1-9]|1[012])(0[1-9]|[12][0-9]|3[01])[MH]` + state +
/// `[BCDFGHJ-NP-TV-Z]{3}[0-9A-Z][0-9]`.
///
/// # Errors
/// What is wrong, in English, for the API's `details`.
pub fn validar_curp(curp: &str) -> Result<(), String> {
    let c: Vec<char> = curp.chars().collect();
    if c.len() != 18 {
        return Err(format!("a CURP has 18 characters, not {}", c.len()));
    }
    let letra = |x: char| x.is_ascii_uppercase();
    if !letra(c[0]) || !"AEIOUX".contains(c[1]) || !letra(c[2]) || !letra(c[3]) {
        return Err("a CURP starts with 4 uppercase letters (the second a vowel or X)".into());
    }
    if !c[4..10].iter().all(char::is_ascii_digit) {
        return Err("characters 5 to 10 of a CURP are the birth date YYMMDD".into());
    }
    let numero = |i: usize| c[i].to_digit(10).unwrap_or(0) * 10 + c[i + 1].to_digit(10).unwrap_or(0);
    if !(1..=12).contains(&numero(6)) || !(1..=31).contains(&numero(8)) {
        return Err(format!(
            "the CURP's birth date {} is not a valid YYMMDD date",
            c[4..10].iter().collect::<String>()
        ));
    }
    if !matches!(c[10], 'H' | 'M') {
        return Err("character 11 of a CURP is H or M (SAT's t_CURP)".into());
    }
    let estado: String = c[11..13].iter().collect();
    if !ESTADOS.contains(&estado.as_str()) {
        return Err(format!("{estado} is not a state code of the CURP (AS, BC, … ZS, or NE born abroad)"));
    }
    if !c[13..16].iter().all(|x| letra(*x) && !"AEIOU".contains(*x)) {
        return Err("characters 14 to 16 of a CURP are uppercase consonants".into());
    }
    if !(c[16].is_ascii_digit() || letra(c[16])) || !c[17].is_ascii_digit() {
        return Err("a CURP ends in a digit or letter (century) and its check digit".into());
    }
    let esperado = digito_curp(&c[..17]);
    if c[17] != esperado {
        return Err(format!("the CURP's check digit should be {esperado}, not {}; check the CURP", c[17]));
    }
    Ok(())
}

/// The states of the CURP (RENAPO), and NE for those born abroad.
const ESTADOS: [&str; 33] = [
    "AS", "BC", "BS", "CC", "CL", "CM", "CS", "CH", "DF", "DG", "GT", "GR", "HG", "JC", "MC", "MN", "MS", "NT", "NL",
    "OC", "PL", "QT", "QR", "SP", "SL", "SR", "TC", "TS", "TL", "VZ", "YN", "ZS", "NE",
];

/// RENAPO's check digit: each of the 17 characters valued in `0-9A-NÑO-Z` (0 to 36) times
/// its weight (18 down to 2); 10 minus the sum modulo 10, 10 being 0.
fn digito_curp(c: &[char]) -> char {
    const VALORES: &str = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ";
    let suma: usize =
        c.iter().zip((2..=18).rev()).map(|(x, peso)| VALORES.chars().position(|v| v == *x).unwrap_or(0) * peso).sum();
    let digito = (10 - suma % 10) % 10;
    char::from_digit(u32::try_from(digito).unwrap_or(0), 10).unwrap_or('0')
}

/// An IMSS NSS: 11 digits, the last the Luhn check digit of the first ten (weights 1, 2, 1, …
/// from the left, digits of each product added).
///
/// # Errors
/// What is wrong.
pub fn validar_nss(nss: &str) -> Result<(), String> {
    if nss.len() != 11 || !nss.bytes().all(|b| b.is_ascii_digit()) {
        return Err("an NSS has exactly 11 digits".into());
    }
    let digitos: Vec<u32> = nss.bytes().map(|b| u32::from(b - b'0')).collect();
    let suma: u32 = digitos[..10]
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let p = if i % 2 == 1 { d * 2 } else { *d };
            p / 10 + p % 10
        })
        .sum();
    let esperado = (10 - suma % 10) % 10;
    if digitos[10] != esperado {
        return Err(format!("the NSS's check digit should be {esperado}, not {}; check the NSS", digitos[10]));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curps() {
        for buena in ["MAHJ280603MSPRRV09", "GORS800101HDFNMR08"] {
            assert_eq!(validar_curp(buena), Ok(()), "{buena}");
        }
        for (mala, dice) in [
            ("MAHJ280603MSPRRV0", "18 characters"),
            ("M1HJ280603MSPRRV09", "4 uppercase"),
            ("MAHJ281303MSPRRV09", "not a valid YYMMDD"),
            ("MAHJ280603XSPRRV09", "H or M"),
            ("MAHJ280603MXXRRV09", "state code"),
            ("MAHJ280603MSPARV09", "consonants"),
            ("MAHJ280603MSPRRV08", "should be 9"),
        ] {
            let error = validar_curp(mala).unwrap_err();
            assert!(error.contains(dice), "{mala}: {error}");
        }
    }

    #[test]
    fn nss() {
        assert_eq!(validar_nss("12345678903"), Ok(()));
        assert_eq!(validar_nss("72897606546"), Ok(()));
        assert!(validar_nss("12345678904").unwrap_err().contains("should be 3"));
        assert!(validar_nss("1234567890").unwrap_err().contains("11 digits"));
        assert!(validar_nss("1234567890A").is_err());
    }
}
