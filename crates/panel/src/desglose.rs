//! The tax breakdown of an invoice's page, read from its stamped XML: subtotal, descuento,
//! each traslado by impuesto and tasa (the comprobante's own `cfdi:Impuestos`), each
//! retención by impuesto and tasa (added up from its lines, since the comprobante's level
//! carries neither base nor tasa of a retención), total.

use maud::{Markup, html};
use rust_decimal::Decimal;
use timbra_cfdi::{Comprobante, Numero};

use super::pesos;

/// One line of traslado or retención: impuesto, factor and tasa; Base and Importe (none for
/// an exempt traslado).
#[derive(Debug, PartialEq)]
pub struct Linea {
    /// c_Impuesto (`002`).
    pub impuesto: String,
    /// `Tasa`, `Cuota` or `Exento`.
    pub tipo_factor: String,
    /// TasaOCuota as written (`0.160000`); none when exempt.
    pub tasa: Option<String>,
    /// Base.
    pub base: Decimal,
    /// Importe.
    pub importe: Option<Decimal>,
}

/// The breakdown of a comprobante.
#[derive(Debug)]
pub struct Desglose {
    subtotal: Decimal,
    descuento: Option<Decimal>,
    traslados: Vec<Linea>,
    retenciones: Vec<Linea>,
    total: Decimal,
}

fn cifra(numero: &Numero) -> Decimal {
    numero.valor().unwrap_or_default()
}

impl Desglose {
    /// The breakdown of `comprobante`.
    pub fn de(comprobante: &Comprobante) -> Self {
        let traslados = comprobante
            .impuestos
            .iter()
            .flat_map(|i| &i.traslados)
            .map(|t| Linea {
                impuesto: t.impuesto.clone(),
                tipo_factor: t.tipo_factor.clone(),
                tasa: t.tasa_o_cuota.as_ref().map(|n| n.texto().to_owned()),
                base: cifra(&t.base),
                importe: t.importe.as_ref().map(cifra),
            })
            .collect();
        let mut retenciones: Vec<Linea> = Vec::new();
        for r in comprobante.conceptos.iter().filter_map(|c| c.impuestos.as_ref()).flat_map(|i| &i.retenciones) {
            let tasa = r.tasa_o_cuota.texto().to_owned();
            let (base, importe) = (cifra(&r.base), cifra(&r.importe));
            match retenciones.iter_mut().find(|l| {
                l.impuesto == r.impuesto && l.tipo_factor == r.tipo_factor && l.tasa.as_deref() == Some(&tasa)
            }) {
                Some(linea) => {
                    linea.base += base;
                    linea.importe = Some(linea.importe.unwrap_or_default() + importe);
                }
                None => retenciones.push(Linea {
                    impuesto: r.impuesto.clone(),
                    tipo_factor: r.tipo_factor.clone(),
                    tasa: Some(tasa),
                    base,
                    importe: Some(importe),
                }),
            }
        }
        Desglose {
            subtotal: cifra(&comprobante.sub_total),
            descuento: comprobante.descuento.as_ref().map(cifra),
            traslados,
            retenciones,
            total: cifra(&comprobante.total),
        }
    }

    /// The table of the invoice's page.
    pub fn tabla(&self) -> Markup {
        let fila = |tipo: &str, l: &Linea| {
            let nombre = format!("{} {tipo} {}", impuesto(&l.impuesto), tasa(&l.tipo_factor, l.tasa.as_deref()));
            let clave = format!("{tipo} {} {}", impuesto(&l.impuesto), l.tasa.as_deref().unwrap_or("Exento"));
            html! {
                tr data-impuesto=(clave) {
                    th scope="row" { (nombre) }
                    td.importe data-titulo="Base" { (pesos(l.base)) }
                    td.importe data-titulo="Importe" {
                        @match l.importe {
                            Some(i) => { @if tipo == "retenido" { "−" } (pesos(i)) }
                            None => { "Exento" }
                        }
                    }
                }
            }
        };
        html! {
            table.apilada.desglose id="desglose" {
                caption { "Impuestos y totales" }
                thead { tr { th scope="col" { "Concepto" } th.importe scope="col" { "Base" } th.importe scope="col" { "Importe" } } }
                tbody {
                    tr data-desglose="subtotal" { th scope="row" { "Subtotal" } td {} td.importe data-titulo="Importe" { (pesos(self.subtotal)) } }
                    @if let Some(d) = self.descuento {
                        tr data-desglose="descuento" { th scope="row" { "Descuento" } td {} td.importe data-titulo="Importe" { "−" (pesos(d)) } }
                    }
                    @for l in &self.traslados { (fila("trasladado", l)) }
                    @for l in &self.retenciones { (fila("retenido", l)) }
                    tr.total data-desglose="total" { th scope="row" { "Total" } td {} td.importe data-titulo="Importe" { strong { (pesos(self.total)) } } }
                }
            }
        }
    }
}

/// c_Impuesto's name.
fn impuesto(clave: &str) -> &str {
    match clave {
        "001" => "ISR",
        "002" => "IVA",
        "003" => "IEPS",
        otro => otro,
    }
}

/// A tasa as a percentage (`0.106667` → `10.6667 %`), a cuota as written, or «exento».
fn tasa(tipo_factor: &str, tasa: Option<&str>) -> String {
    match (tipo_factor, tasa.and_then(|t| t.parse::<Decimal>().ok())) {
        ("Tasa", Some(t)) => format!("{} %", (t * Decimal::ONE_HUNDRED).normalize()),
        ("Cuota", Some(t)) => format!("cuota {}", t.normalize()),
        _ => "exento".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::tasa;

    #[test]
    fn tasas_read_as_percentages() {
        assert_eq!(tasa("Tasa", Some("0.160000")), "16 %");
        assert_eq!(tasa("Tasa", Some("0.106667")), "10.6667 %");
        assert_eq!(tasa("Tasa", Some("0.000000")), "0 %");
        assert_eq!(tasa("Exento", None), "exento");
    }
}
