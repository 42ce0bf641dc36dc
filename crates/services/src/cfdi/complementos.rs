//! The complements an invoice body may carry (`complementos.cartaPorte`,
//! `complementos.comercioExterior`) between the API's JSON and timbra-cfdi's units: built from
//! the body with what SAT derives filled in, their validation problems named by the body's JSON
//! path, and read back from a stored CFDI (issued or received) as the same JSON.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use timbra_cfdi::complementos::Complemento;
use timbra_cfdi::construccion::ErrorConstruccion;
use timbra_cfdi::validacion::Problema;
use timbra_cfdi::{Comprobante, carta_porte, comercio_exterior, entrada};
use utoipa::ToSchema;

use crate::error::FieldProblem;

/// JSON name of Carta Porte 3.1 under `complementos`.
pub const CARTA_PORTE: &str = "cartaPorte";
/// JSON name of Comercio Exterior 2.0 under `complementos`.
pub const COMERCIO_EXTERIOR: &str = "comercioExterior";
/// The complements an invoice body may carry, by JSON name.
pub const NOMBRES: [&str; 2] = [CARTA_PORTE, COMERCIO_EXTERIOR];

/// `complementos` of `POST /api/cfdi/timbrar`. Names are SAT's attributes and elements in
/// camelCase with a leading acronym lower-cased (`idCCP`, `rfcFigura`, `permSCT`,
/// `totalUSD`); a repeated element is an array named by its SAT container (`ubicaciones`,
/// `figuraTransporte`, `regimenesAduaneros`, `autotransporte.remolques`) or by the element
/// where SAT repeats it bare (`mercancias.mercancia`, `cantidadTransporta`,
/// `documentacionAduanera`). Decimals are strings or numbers, kept exactly.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct ComplementosBody {
    /// Carta Porte 3.1 (on I and T invoices). The service fills `version` 3.1, `idCCP` (a fresh
    /// `CCC…` id), `mercancias.numTotalMercancias`, `mercancias.pesoBrutoTotal` and
    /// `totalDistRec` when omitted, and checks them when sent.
    #[schema(value_type = Option<Object>)]
    pub carta_porte: Option<Value>,
    /// Comercio Exterior 2.0 (on I invoices with `exportacion` 02). The service fills `version`
    /// 2.0 and `totalUSD` (Σ valorDolares) when omitted, and checks them when sent; nothing else
    /// is added (the receiver's NumRegIdTrib stays on the CFDI's Receptor, from the customer).
    #[schema(value_type = Option<Object>)]
    pub comercio_exterior: Option<Value>,
    /// Any other member: refused, naming it.
    #[serde(flatten)]
    #[schema(ignore)]
    pub otros: serde_json::Map<String, Value>,
}

/// The rule a builder's refusal stands for: the derived attributes it checks have their rule
/// in the complement's validation; anything else is the body's shape.
fn regla_de_construccion(campo: &str) -> &'static str {
    let ultimo = campo.rsplit('.').next().unwrap_or(campo);
    match (campo.starts_with(CARTA_PORTE), ultimo) {
        (true, "numTotalMercancias") => "CP31_NUM_TOTAL_MERCANCIAS",
        (true, "pesoBrutoTotal") => "CP31_PESO_BRUTO_TOTAL",
        (true, "totalDistRec") => "CP31_TOTAL_DIST_REC",
        (true, "idCCP") => "CP31_ID_CCP",
        (true, "version") => "CP31_VERSION",
        (false, "totalUSD") => "CCE20_TOTAL_USD",
        (false, "version") => "CCE20_VERSION",
        _ => crate::error::REGLA_ENTRADA,
    }
}

fn problema_de_construccion(error: ErrorConstruccion) -> FieldProblem {
    match error {
        ErrorConstruccion::Invalido { campo, mensaje } => {
            let regla = regla_de_construccion(&campo);
            FieldProblem::new(format!("complementos.{campo}"), mensaje).con_regla(regla)
        }
    }
}

/// The complements of `body`, built (what SAT derives filled in); every problem goes to
/// `problems` with its JSON path under `complementos.` and its rule.
pub fn construir(body: ComplementosBody, problems: &mut Vec<FieldProblem>) -> Vec<Complemento> {
    let mut complementos = Vec::new();
    for nombre in body.otros.keys() {
        problems.push(
            FieldProblem::new(
                format!("complementos.{nombre}"),
                "unknown complement: complementos takes cartaPorte and comercioExterior",
            )
            .con_regla(crate::error::REGLA_ENTRADA),
        );
    }
    if let Some(json) = body.carta_porte.filter(|v| !v.is_null()) {
        match carta_porte::construir(&json.to_string(), || carta_porte::id_ccp(rand::random())) {
            Ok(cp) => complementos.push(Complemento::CartaPorte(Box::new(cp))),
            Err(error) => problems.push(problema_de_construccion(error)),
        }
    }
    if let Some(json) = body.comercio_exterior.filter(|v| !v.is_null()) {
        match comercio_exterior::construir(&json.to_string()) {
            Ok(cce) => complementos.push(Complemento::ComercioExterior(Box::new(cce))),
            Err(error) => problems.push(problema_de_construccion(error)),
        }
    }
    complementos
}

/// A validation problem of the comprobante as the API reports it: a complement's field by the
/// body's JSON path (`CartaPorte.Ubicaciones[1].Domicilio.Estado` →
/// `complementos.cartaPorte.ubicaciones[1].domicilio.estado`), any other by its SAT path as
/// before; the message ends with the rule id, which the problem also carries.
pub fn problema_de_validacion(problema: Problema) -> FieldProblem {
    let campo = if problema.campo.starts_with("CartaPorte") || problema.campo.starts_with("ComercioExterior") {
        format!("complementos.{}", entrada::ruta_json(&problema.campo))
    } else {
        problema.campo
    };
    FieldProblem::new(campo, format!("{} ({})", problema.mensaje, problema.regla)).con_regla(problema.regla)
}

/// The JSON names of the complements `comprobante` carries, comma-separated, as stored in
/// `cfdis.complementos` for the listing's filter (empty for none).
pub fn nombres(comprobante: &Comprobante) -> String {
    let mut nombres: Vec<&str> = Vec::new();
    for complemento in &comprobante.complementos {
        let nombre = match complemento {
            Complemento::CartaPorte(_) => CARTA_PORTE,
            Complemento::ComercioExterior(_) => COMERCIO_EXTERIOR,
            _ => continue,
        };
        if !nombres.contains(&nombre) {
            nombres.push(nombre);
        }
    }
    nombres.join(",")
}

/// The complements of a stored CFDI as the API returns them (`complementos.cartaPorte`,
/// `complementos.comercioExterior`: the body's names in SAT's order, decimals as strings), as
/// the JSON text timbra-cfdi writes; `None` when it carries neither.
pub fn a_json(comprobante: &Comprobante) -> Option<Box<RawValue>> {
    let mut miembros: Vec<(&str, String)> = Vec::new();
    for complemento in &comprobante.complementos {
        let (nombre, texto) = match complemento {
            Complemento::CartaPorte(cp) => (CARTA_PORTE, carta_porte::a_json(cp)),
            Complemento::ComercioExterior(cce) => (COMERCIO_EXTERIOR, comercio_exterior::a_json(cce)),
            _ => continue,
        };
        if !miembros.iter().any(|(otro, _)| *otro == nombre) {
            miembros.push((nombre, texto));
        }
    }
    if miembros.is_empty() {
        return None;
    }
    let cuerpo: Vec<String> = miembros.iter().map(|(nombre, texto)| format!("\"{nombre}\":{texto}")).collect();
    match RawValue::from_string(format!("{{{}}}", cuerpo.join(","))) {
        Ok(valor) => Some(valor),
        Err(error) => {
            tracing::warn!(error = %error, "complement JSON did not parse");
            None
        }
    }
}

/// [`a_json`] of a stored XML (issued or received); `None` when it does not parse or carries
/// neither complement.
pub fn a_json_de_xml(xml: &str) -> Option<Box<RawValue>> {
    match timbra_cfdi::parser::parsear(xml) {
        Ok(comprobante) => a_json(&comprobante),
        Err(error) => {
            tracing::warn!(error = %error, "stored CFDI did not parse for its complements");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complement_paths_become_the_bodys_json_paths() {
        let problema = Problema {
            regla: "CP31_ESTADO",
            campo: "CartaPorte.Ubicaciones[1].Domicilio.Estado".into(),
            mensaje: "no".into(),
        };
        let p = problema_de_validacion(problema);
        assert_eq!(p.field, "complementos.cartaPorte.ubicaciones[1].domicilio.estado");
        assert_eq!(p.regla.as_deref(), Some("CP31_ESTADO"));
        let p = problema_de_validacion(Problema {
            regla: "CCE20_RECEPTOR_EXTRANJERO",
            campo: "Receptor.NumRegIdTrib".into(),
            mensaje: "x".into(),
        });
        assert_eq!(p.field, "Receptor.NumRegIdTrib");
        assert_eq!(regla_de_construccion("cartaPorte.mercancias.pesoBrutoTotal"), "CP31_PESO_BRUTO_TOTAL");
        assert_eq!(regla_de_construccion("comercioExterior.totalUSD"), "CCE20_TOTAL_USD");
        assert_eq!(regla_de_construccion("cartaPorte.ubicaciones[0].foo"), "ENTRADA");
    }
}
