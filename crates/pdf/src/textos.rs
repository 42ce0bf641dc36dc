//! How values read on paper: grouped amounts, rates as percentages, catalog codes with SAT's
//! description.

use timbra_cfdi::catalogos::{
    Exportacion, FormaPago, MetodoPago, Periodicidad, RegimenFiscal, TipoDeComprobante, TipoRelacion, UsoCfdi,
};
use timbra_cfdi::numero::Numero;

/// The amount's XML text with thousands separators: `1234567.50` → `1,234,567.50`. The
/// text is kept (no re-rounding), so the paper shows exactly what the XML says.
pub(crate) fn cantidad(numero: &Numero) -> String {
    agrupar(numero.texto().trim())
}

/// `$1,234.56`.
pub(crate) fn dinero(numero: &Numero) -> String {
    format!("${}", cantidad(numero))
}

fn agrupar(texto: &str) -> String {
    let (signo, sin_signo) = match texto.strip_prefix('-') {
        Some(resto) => ("-", resto),
        None => ("", texto),
    };
    let (entero, decimales) = match sin_signo.split_once('.') {
        Some((entero, decimales)) => (entero, Some(decimales)),
        None => (sin_signo, None),
    };
    if !entero.bytes().all(|b| b.is_ascii_digit()) {
        return texto.to_owned();
    }
    let mut agrupado = String::with_capacity(texto.len() + entero.len() / 3);
    for (indice, digito) in entero.chars().enumerate() {
        if indice > 0 && (entero.len() - indice) % 3 == 0 {
            agrupado.push(',');
        }
        agrupado.push(digito);
    }
    match decimales {
        Some(decimales) => format!("{signo}{agrupado}.{decimales}"),
        None => format!("{signo}{agrupado}"),
    }
}

/// A rate `0.160000` as `16%`; a cuota stays as written.
pub(crate) fn tasa(tipo_factor: &str, tasa_o_cuota: Option<&Numero>) -> String {
    match (tipo_factor, tasa_o_cuota.and_then(|n| n.valor().ok())) {
        ("Tasa", Some(valor)) => format!("{}%", (valor * rust_decimal::Decimal::ONE_HUNDRED).normalize()),
        ("Cuota", Some(_)) => format!("cuota {}", tasa_o_cuota.map_or("", |n| n.texto())),
        (factor, _) => factor.to_owned(),
    }
}

/// c_Impuesto code → name.
pub(crate) fn impuesto(codigo: &str) -> &str {
    match codigo {
        "001" => "ISR",
        "002" => "IVA",
        "003" => "IEPS",
        otro => otro,
    }
}

/// `code - description` when the code is in the catalog, the bare code otherwise (received
/// invoices may carry codes outside the catalogs; they are printed verbatim).
fn con_descripcion(codigo: &str, descripcion: Option<&str>) -> String {
    match descripcion {
        Some(descripcion) => format!("{codigo} - {descripcion}"),
        None => codigo.to_owned(),
    }
}

pub(crate) fn regimen(codigo: &str) -> String {
    con_descripcion(codigo, RegimenFiscal::desde_codigo(codigo).map(RegimenFiscal::descripcion))
}

pub(crate) fn uso_cfdi(codigo: &str) -> String {
    con_descripcion(codigo, UsoCfdi::desde_codigo(codigo).map(UsoCfdi::descripcion))
}

pub(crate) fn forma_pago(codigo: &str) -> String {
    con_descripcion(codigo, FormaPago::desde_codigo(codigo).map(FormaPago::descripcion))
}

pub(crate) fn metodo_pago(codigo: &str) -> String {
    con_descripcion(codigo, MetodoPago::desde_codigo(codigo).map(MetodoPago::descripcion))
}

pub(crate) fn exportacion(codigo: &str) -> String {
    con_descripcion(codigo, Exportacion::desde_codigo(codigo).map(Exportacion::descripcion))
}

pub(crate) fn tipo_comprobante(codigo: &str) -> String {
    con_descripcion(codigo, TipoDeComprobante::desde_codigo(codigo).map(TipoDeComprobante::descripcion))
}

pub(crate) fn tipo_relacion(codigo: &str) -> String {
    con_descripcion(codigo, TipoRelacion::desde_codigo(codigo).map(TipoRelacion::descripcion))
}

pub(crate) fn periodicidad(codigo: &str) -> String {
    con_descripcion(codigo, Periodicidad::desde_codigo(codigo).map(Periodicidad::descripcion))
}

/// The document's title by type.
pub(crate) fn titulo(tipo: &str) -> &'static str {
    match tipo {
        "I" => "FACTURA",
        "E" => "NOTA DE CRÉDITO",
        "T" => "CARTA PORTE / TRASLADO",
        "P" => "RECIBO ELECTRÓNICO DE PAGO",
        "N" => "RECIBO DE NÓMINA",
        _ => "CFDI",
    }
}

/// `2026-11-20T10:30:00` → `2026-11-20 10:30:00`.
pub(crate) fn fecha(texto: &str) -> String {
    texto.replacen('T', " ", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrupa_miles_sin_redondear() {
        assert_eq!(cantidad(&Numero::from_texto("1234567.50")), "1,234,567.50");
        assert_eq!(cantidad(&Numero::from_texto("123.456789")), "123.456789");
        assert_eq!(cantidad(&Numero::from_texto("1000")), "1,000");
        assert_eq!(cantidad(&Numero::from_texto("-1000.5")), "-1,000.5");
        assert_eq!(dinero(&Numero::from_texto("0.00")), "$0.00");
    }

    #[test]
    fn tasas() {
        assert_eq!(tasa("Tasa", Some(&Numero::from_texto("0.160000"))), "16%");
        assert_eq!(tasa("Tasa", Some(&Numero::from_texto("0.106667"))), "10.6667%");
        assert_eq!(tasa("Exento", None), "Exento");
    }
}
