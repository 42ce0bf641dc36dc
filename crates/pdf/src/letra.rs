//! The amount in words printed beside the total ("importe con letra"), in Mexican invoicing
//! style: `MIL DOSCIENTOS TREINTA Y CUATRO PESOS 56/100 M.N.`.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};

/// `importe` in words for `moneda` (c_Moneda code): the integer part in upper-case Spanish,
/// the currency name, the cents as `NN/100` and the currency suffix (`M.N.` for pesos, the
/// ISO code otherwise). Rounded to cents half away from zero; the sign is ignored.
pub fn importe_con_letra(importe: Decimal, moneda: &str) -> String {
    let redondeado = importe.abs().round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    let entero = redondeado.trunc();
    let centavos = ((redondeado - entero) * Decimal::ONE_HUNDRED).to_u64().unwrap_or(0);
    let Some(entero) = entero.to_u64() else {
        // Beyond u64 no invoice exists; keep the figure rather than fail.
        return format!("{entero} {centavos:02}/100 {moneda}");
    };
    let mut palabras = numero_en_palabras(entero);
    // "UN MILLÓN DE PESOS", "DOS MILLONES DE DÓLARES"
    if entero != 0 && entero % 1_000_000 == 0 {
        palabras.push_str(" DE");
    }
    let (singular, plural, sufijo) = match moneda {
        "MXN" => ("PESO", "PESOS", "M.N."),
        "USD" => ("DÓLAR", "DÓLARES", "USD"),
        "EUR" => ("EURO", "EUROS", "EUR"),
        otra => ("", "", otra),
    };
    let nombre = if entero == 1 { singular } else { plural };
    if nombre.is_empty() {
        format!("{palabras} {centavos:02}/100 {sufijo}")
    } else {
        format!("{palabras} {nombre} {centavos:02}/100 {sufijo}")
    }
}

/// A whole number in upper-case Spanish words, with "UN" before the noun ("VEINTIÚN",
/// "UN MIL" is just "MIL"), as amounts are written.
pub fn numero_en_palabras(numero: u64) -> String {
    if numero == 0 {
        return "CERO".to_owned();
    }
    let mut partes: Vec<String> = Vec::new();
    // Long scale: billón = 10^12, trillón = 10^18.
    let escalas: [(u64, &str, &str); 2] =
        [(1_000_000_000_000_000_000, "TRILLÓN", "TRILLONES"), (1_000_000_000_000, "BILLÓN", "BILLONES")];
    let mut resto = numero;
    for (valor, singular, plural) in escalas {
        let cuantos = resto / valor;
        resto %= valor;
        if cuantos == 1 {
            partes.push(format!("UN {singular}"));
        } else if cuantos > 1 {
            partes.push(format!("{} {plural}", hasta_millon(cuantos)));
        }
    }
    let millones = resto / 1_000_000;
    resto %= 1_000_000;
    if millones == 1 {
        partes.push("UN MILLÓN".to_owned());
    } else if millones > 1 {
        partes.push(format!("{} MILLONES", hasta_millon(millones)));
    }
    if resto > 0 {
        partes.push(hasta_millon(resto));
    }
    partes.join(" ")
}

/// 1 ..= 999,999.
fn hasta_millon(numero: u64) -> String {
    let miles = numero / 1000;
    let resto = numero % 1000;
    let mut partes = Vec::new();
    match miles {
        0 => {}
        1 => partes.push("MIL".to_owned()),
        _ => partes.push(format!("{} MIL", centenas(miles))),
    }
    if resto > 0 {
        partes.push(centenas(resto));
    }
    partes.join(" ")
}

/// 1 ..= 999.
fn centenas(numero: u64) -> String {
    const CENTENAS: [&str; 10] = [
        "",
        "CIENTO",
        "DOSCIENTOS",
        "TRESCIENTOS",
        "CUATROCIENTOS",
        "QUINIENTOS",
        "SEISCIENTOS",
        "SETECIENTOS",
        "OCHOCIENTOS",
        "NOVECIENTOS",
    ];
    if numero == 100 {
        return "CIEN".to_owned();
    }
    let c = (numero / 100) as usize;
    let resto = numero % 100;
    match (c, resto) {
        (0, r) => decenas(r),
        (c, 0) => CENTENAS[c].to_owned(),
        (c, r) => format!("{} {}", CENTENAS[c], decenas(r)),
    }
}

/// 1 ..= 99, with the apocope "UN" / "VEINTIÚN".
fn decenas(numero: u64) -> String {
    const UNIDADES: [&str; 30] = [
        "",
        "UN",
        "DOS",
        "TRES",
        "CUATRO",
        "CINCO",
        "SEIS",
        "SIETE",
        "OCHO",
        "NUEVE",
        "DIEZ",
        "ONCE",
        "DOCE",
        "TRECE",
        "CATORCE",
        "QUINCE",
        "DIECISÉIS",
        "DIECISIETE",
        "DIECIOCHO",
        "DIECINUEVE",
        "VEINTE",
        "VEINTIÚN",
        "VEINTIDÓS",
        "VEINTITRÉS",
        "VEINTICUATRO",
        "VEINTICINCO",
        "VEINTISÉIS",
        "VEINTISIETE",
        "VEINTIOCHO",
        "VEINTINUEVE",
    ];
    const DECENAS: [&str; 10] =
        ["", "", "", "TREINTA", "CUARENTA", "CINCUENTA", "SESENTA", "SETENTA", "OCHENTA", "NOVENTA"];
    let n = numero as usize;
    if n < 30 {
        return UNIDADES[n].to_owned();
    }
    let (d, u) = (n / 10, n % 10);
    if u == 0 { DECENAS[d].to_owned() } else { format!("{} Y {}", DECENAS[d], UNIDADES[u]) }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    fn letra(importe: &str, moneda: &str) -> String {
        importe_con_letra(Decimal::from_str(importe).unwrap(), moneda)
    }

    #[test]
    fn ejemplo_del_brief() {
        assert_eq!(letra("1234.56", "MXN"), "MIL DOSCIENTOS TREINTA Y CUATRO PESOS 56/100 M.N.");
    }

    #[test]
    fn singular_cero_y_centavos() {
        assert_eq!(letra("1", "MXN"), "UN PESO 00/100 M.N.");
        assert_eq!(letra("0", "MXN"), "CERO PESOS 00/100 M.N.");
        assert_eq!(letra("0.5", "MXN"), "CERO PESOS 50/100 M.N.");
        assert_eq!(letra("21.01", "MXN"), "VEINTIÚN PESOS 01/100 M.N.");
        // rounded to cents half away from zero, like the builder
        assert_eq!(letra("99.995", "MXN"), "CIEN PESOS 00/100 M.N.");
        assert_eq!(letra("10.004", "MXN"), "DIEZ PESOS 00/100 M.N.");
    }

    #[test]
    fn centenas_y_miles() {
        assert_eq!(letra("100", "MXN"), "CIEN PESOS 00/100 M.N.");
        assert_eq!(letra("101", "MXN"), "CIENTO UN PESOS 00/100 M.N.");
        assert_eq!(letra("116", "MXN"), "CIENTO DIECISÉIS PESOS 00/100 M.N.");
        assert_eq!(letra("555", "MXN"), "QUINIENTOS CINCUENTA Y CINCO PESOS 00/100 M.N.");
        assert_eq!(letra("1000", "MXN"), "MIL PESOS 00/100 M.N.");
        assert_eq!(letra("21000", "MXN"), "VEINTIÚN MIL PESOS 00/100 M.N.");
        assert_eq!(letra("100000", "MXN"), "CIEN MIL PESOS 00/100 M.N.");
        assert_eq!(letra("701991.30", "MXN"), "SETECIENTOS UN MIL NOVECIENTOS NOVENTA Y UN PESOS 30/100 M.N.");
    }

    #[test]
    fn millones() {
        assert_eq!(letra("1000000", "MXN"), "UN MILLÓN DE PESOS 00/100 M.N.");
        assert_eq!(letra("2000000.10", "MXN"), "DOS MILLONES DE PESOS 10/100 M.N.");
        assert_eq!(
            letra("1234567.89", "MXN"),
            "UN MILLÓN DOSCIENTOS TREINTA Y CUATRO MIL QUINIENTOS SESENTA Y SIETE PESOS 89/100 M.N."
        );
        assert_eq!(letra("31000001", "MXN"), "TREINTA Y UN MILLONES UN PESOS 00/100 M.N.");
        assert_eq!(letra("1000000000", "MXN"), "MIL MILLONES DE PESOS 00/100 M.N.");
        assert_eq!(letra("2000000000000", "MXN"), "DOS BILLONES DE PESOS 00/100 M.N.");
    }

    #[test]
    fn otras_monedas() {
        assert_eq!(letra("1500.25", "USD"), "MIL QUINIENTOS DÓLARES 25/100 USD");
        assert_eq!(letra("1", "USD"), "UN DÓLAR 00/100 USD");
        assert_eq!(letra("3000000", "USD"), "TRES MILLONES DE DÓLARES 00/100 USD");
        assert_eq!(letra("44.4", "EUR"), "CUARENTA Y CUATRO EUROS 40/100 EUR");
        assert_eq!(letra("12", "GBP"), "DOCE 00/100 GBP");
        assert_eq!(letra("-5", "MXN"), "CINCO PESOS 00/100 M.N.");
    }
}
