//! What changed from one edition to the next, per catalog: the codes added, removed and
//! changed (any column). Only the catalogs of the new edition are compared: a catalog an import
//! leaves out is kept as it was, not removed.

use std::fmt;

use crate::edicion::Huellas;

/// The changes of one catalog.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CambiosCatalogo {
    /// The catalog's id.
    pub catalogo: String,
    /// Codes only in the new edition, sorted.
    pub agregadas: Vec<String>,
    /// Codes only in the old one, sorted.
    pub eliminadas: Vec<String>,
    /// Codes in both whose row differs, sorted.
    pub cambiadas: Vec<String>,
}

impl CambiosCatalogo {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.agregadas.is_empty() && self.eliminadas.is_empty() && self.cambiadas.is_empty()
    }
}

/// The changes of every catalog that has some, by id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diferencias {
    /// One entry per catalog with changes.
    pub catalogos: Vec<CambiosCatalogo>,
}

impl Diferencias {
    /// Whether the editions hold the same rows.
    pub fn is_empty(&self) -> bool {
        self.catalogos.is_empty()
    }

    /// The changes of catalog `id`.
    pub fn catalogo(&self, id: &str) -> Option<&CambiosCatalogo> {
        self.catalogos.iter().find(|cambios| cambios.catalogo == id)
    }
}

/// The changes from `anterior` to `nueva`, for the catalogs in `nueva`.
pub fn diferencias(anterior: &Huellas, nueva: &Huellas) -> Diferencias {
    let vacio = Default::default();
    let catalogos = nueva
        .iter()
        .map(|(id, filas)| {
            let antes = anterior.get(id).unwrap_or(&vacio);
            let mut cambios = CambiosCatalogo { catalogo: id.clone(), ..Default::default() };
            for (clave, huella) in filas {
                match antes.get(clave) {
                    None => cambios.agregadas.push(clave.clone()),
                    Some(anterior) if anterior != huella => cambios.cambiadas.push(clave.clone()),
                    Some(_) => {}
                }
            }
            cambios.eliminadas = antes.keys().filter(|clave| !filas.contains_key(*clave)).cloned().collect();
            cambios.agregadas.sort();
            cambios.eliminadas.sort();
            cambios.cambiadas.sort();
            cambios
        })
        .filter(|cambios| !cambios.is_empty())
        .collect();
    Diferencias { catalogos }
}

/// How many codes of a list a summary line names before "…".
const NOMBRADAS: usize = 10;

impl fmt::Display for Diferencias {
    /// One line per catalog: `cfdi40/c_Moneda: 1 added (XTS), 0 removed, 2 changed (USD, VES)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return writeln!(f, "no changes");
        }
        for cambios in &self.catalogos {
            write!(f, "{}:", cambios.catalogo)?;
            let listas =
                [("added", &cambios.agregadas), ("removed", &cambios.eliminadas), ("changed", &cambios.cambiadas)];
            for (i, (que, claves)) in listas.into_iter().enumerate() {
                write!(f, "{} {} {que}", if i == 0 { "" } else { "," }, claves.len())?;
                if !claves.is_empty() {
                    let nombradas: Vec<&str> = claves.iter().take(NOMBRADAS).map(String::as_str).collect();
                    let mas = if claves.len() > NOMBRADAS { ", …" } else { "" };
                    write!(f, " ({}{mas})", nombradas.join(", "))?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn huellas(catalogos: &[(&str, &[(&str, &str)])]) -> Huellas {
        catalogos
            .iter()
            .map(|(id, filas)| {
                (id.to_string(), filas.iter().map(|(clave, huella)| (clave.to_string(), huella.to_string())).collect())
            })
            .collect()
    }

    #[test]
    fn finds_added_removed_and_changed_codes() {
        let anterior = huellas(&[
            ("cfdi40/c_Moneda", &[("MXN", "1"), ("USD", "2"), ("VEF", "3")]),
            ("cfdi40/c_Meses", &[("01", "a")]),
            ("nomina12/c_Banco", &[("002", "x")]),
        ]);
        let nueva = huellas(&[
            ("cfdi40/c_Moneda", &[("MXN", "1"), ("USD", "9"), ("VES", "4")]),
            ("cfdi40/c_Meses", &[("01", "a")]),
            ("pagos20/c_TipoCadenaPago", &[("01", "s")]),
        ]);
        let cambios = diferencias(&anterior, &nueva);
        assert_eq!(
            cambios.catalogo("cfdi40/c_Moneda").unwrap(),
            &CambiosCatalogo {
                catalogo: "cfdi40/c_Moneda".into(),
                agregadas: vec!["VES".into()],
                eliminadas: vec!["VEF".into()],
                cambiadas: vec!["USD".into()],
            }
        );
        // c_Meses did not change; c_Banco is not in the new edition, so it is kept.
        assert_eq!(cambios.catalogos.len(), 2);
        assert_eq!(cambios.catalogo("pagos20/c_TipoCadenaPago").unwrap().agregadas, ["01"]);
        assert_eq!(
            cambios.to_string(),
            "cfdi40/c_Moneda: 1 added (VES), 1 removed (VEF), 1 changed (USD)\npagos20/c_TipoCadenaPago: 1 added (01), 0 removed, 0 changed\n"
        );
        assert!(diferencias(&nueva, &nueva).is_empty());
        assert_eq!(diferencias(&nueva, &nueva).to_string(), "no changes\n");
    }
}
