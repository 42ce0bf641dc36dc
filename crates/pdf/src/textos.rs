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

/// c_TipoNomina.
pub(crate) fn tipo_nomina(codigo: &str) -> String {
    let descripcion = match codigo {
        "O" => Some("Nómina ordinaria"),
        "E" => Some("Nómina extraordinaria"),
        _ => None,
    };
    con_descripcion(codigo, descripcion)
}

/// c_PeriodicidadPago (Nómina 1.2).
pub(crate) fn periodicidad_pago(codigo: &str) -> String {
    let descripcion = match codigo {
        "01" => Some("Diario"),
        "02" => Some("Semanal"),
        "03" => Some("Catorcenal"),
        "04" => Some("Quincenal"),
        "05" => Some("Mensual"),
        "06" => Some("Bimestral"),
        "07" => Some("Unidad obra"),
        "08" => Some("Comisión"),
        "09" => Some("Precio alzado"),
        "10" => Some("Decenal"),
        "99" => Some("Otra periodicidad"),
        _ => None,
    };
    con_descripcion(codigo, descripcion)
}

/// c_TipoContrato (Nómina 1.2), short names.
pub(crate) fn tipo_contrato(codigo: &str) -> String {
    let descripcion = match codigo {
        "01" => Some("Por tiempo indeterminado"),
        "02" => Some("Para obra determinada"),
        "03" => Some("Por tiempo determinado"),
        "04" => Some("Por temporada"),
        "05" => Some("Sujeto a prueba"),
        "06" => Some("Con capacitación inicial"),
        "07" => Some("Pago de hora laborada"),
        "08" => Some("Comisión laboral"),
        "09" => Some("Sin relación de trabajo"),
        "10" => Some("Jubilación, pensión, retiro"),
        "99" => Some("Otro contrato"),
        _ => None,
    };
    con_descripcion(codigo, descripcion)
}

/// c_TipoRegimen (Nómina 1.2), the common ones.
pub(crate) fn tipo_regimen(codigo: &str) -> String {
    let descripcion = match codigo {
        "02" => Some("Sueldos"),
        "03" => Some("Jubilados"),
        "04" => Some("Pensionados"),
        "09" => Some("Asimilados a honorarios"),
        "13" => Some("Indemnización o separación"),
        "99" => Some("Otro régimen"),
        _ => None,
    };
    con_descripcion(codigo, descripcion)
}

/// c_TipoHoras.
pub(crate) fn tipo_horas(codigo: &str) -> String {
    let descripcion = match codigo {
        "01" => Some("dobles"),
        "02" => Some("triples"),
        "03" => Some("simples"),
        _ => None,
    };
    con_descripcion(codigo, descripcion)
}

/// c_TipoIncapacidad.
pub(crate) fn tipo_incapacidad(codigo: &str) -> String {
    let descripcion = match codigo {
        "01" => Some("Riesgo de trabajo"),
        "02" => Some("Enfermedad en general"),
        "03" => Some("Maternidad"),
        "04" => Some("Licencia por cuidados médicos de hijos diagnosticados con cáncer"),
        _ => None,
    };
    con_descripcion(codigo, descripcion)
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
