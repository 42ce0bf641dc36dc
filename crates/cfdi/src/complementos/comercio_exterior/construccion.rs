//! The builder: the complement from the API's JSON (SAT's names in camelCase as for Carta
//! Porte: `claveDePedimento`, `tipoCambioUSD`, `totalUSD`, `emisor.domicilio`, `propietario`,
//! `destinatario[].domicilio`, `mercancias` for Mercancias/Mercancia,
//! `descripcionesEspecificas`), with what SAT derives filled in: `Version` 2.0 and `TotalUSD`
//! (Σ ValorDolares, two decimals) when omitted, checked when sent. Nothing else is added.

use rust_decimal::Decimal;

use super::*;
use crate::construccion::{ErrorConstruccion, invalido, redondear, sumar};
use crate::entrada::{Objeto, Valor, leer as leer_valor};

/// Reads the complement from the object `valor` found at `ruta` (`comercioExterior`), as sent.
///
/// # Errors
/// [`ErrorConstruccion::Invalido`] naming the JSON path of the first member that is missing,
/// unknown or of the wrong type.
pub fn leer_json(valor: &Valor, ruta: &str) -> Result<ComercioExterior, ErrorConstruccion> {
    super::entrada::leer(&mut Objeto::de(valor, ruta)?)
}

/// The complement as the API's JSON (the `comercioExterior` object, same names as the body): what a
/// response returns, and what [`desde_json`] reads back into an equal model.
pub fn a_json(cce: &ComercioExterior) -> String {
    a_valor(cce).a_texto()
}

/// The complement as a JSON [`Valor`], to place inside a larger document.
pub fn a_valor(cce: &ComercioExterior) -> Valor {
    super::entrada::escribir(cce)
}

/// Reads the complement from the JSON text of the `comercioExterior` object.
///
/// # Errors
/// As [`leer_json`], or malformed JSON.
pub fn desde_json(json: &str) -> Result<ComercioExterior, ErrorConstruccion> {
    leer_json(&leer_valor(json)?, "comercioExterior")
}

/// [`desde_json`] then [`completar`].
///
/// # Errors
/// As [`desde_json`] and [`completar`].
pub fn construir(json: &str) -> Result<ComercioExterior, ErrorConstruccion> {
    let mut cce = desde_json(json)?;
    completar(&mut cce)?;
    Ok(cce)
}

/// `Σ ValorDolares` of the Mercancia, rounded to two decimals (TotalUSD is a t_Importe in
/// dollars).
pub(super) fn total_usd(cce: &ComercioExterior) -> Result<Decimal, ErrorConstruccion> {
    let mut suma = Decimal::ZERO;
    for (i, mercancia) in cce.mercancias.iter().enumerate() {
        let campo = format!("comercioExterior.mercancias[{i}].valorDolares");
        let valor = mercancia
            .valor_dolares
            .valor()
            .map_err(|_| invalido(&campo, format!("«{}» no es un número decimal", mercancia.valor_dolares.texto())))?;
        suma = sumar(suma, valor, "comercioExterior.totalUSD")?;
    }
    Ok(redondear(suma, 2))
}

/// Fills `Version` 2.0 and `TotalUSD` (Σ ValorDolares with two decimals) when omitted, and
/// checks them when sent.
///
/// # Errors
/// [`ErrorConstruccion::Invalido`] naming the JSON path of a sent value that disagrees.
pub fn completar(cce: &mut ComercioExterior) -> Result<(), ErrorConstruccion> {
    match cce.version.as_str() {
        "" => cce.version = VERSION.to_owned(),
        VERSION => {}
        otra => {
            return Err(invalido("comercioExterior.version", format!("«{otra}»: la versión del complemento es 2.0")));
        }
    }
    let total = total_usd(cce)?;
    if cce.total_usd.texto().is_empty() {
        cce.total_usd = Numero::from(total);
    } else if cce.total_usd.valor().ok() != Some(total) {
        return Err(invalido(
            "comercioExterior.totalUSD",
            format!("debe ser {total}, la suma de valorDolares de las mercancías"),
        ));
    }
    Ok(())
}

/// A Comercio Exterior 2.0 body as the API sends it.
#[cfg(test)]
pub(super) const EJEMPLO: &str = r#"{"motivoTraslado":null,"claveDePedimento":"A1","certificadoOrigen":0,"incoterm":"FOB","tipoCambioUSD":"17.2545","emisor":{"domicilio":{"calle":"Av. Industria","numeroExterior":"100","estado":"TAB","pais":"MEX","codigoPostal":"86000"}},"receptor":{"domicilio":{"calle":"Main St","estado":"TX","pais":"USA","codigoPostal":"78701"}},"mercancias":[{"noIdentificacion":"LAP-14","fraccionArancelaria":"8471300100","cantidadAduana":"2","unidadAduana":"06","valorUnitarioAduana":"950.00","valorDolares":"1900.00","descripcionesEspecificas":[{"marca":"ACME","modelo":"X14"}]},{"noIdentificacion":"MOU-01","valorDolares":100.005}]}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lee_y_completa() {
        let cce = construir(EJEMPLO).unwrap();
        assert_eq!((cce.version.as_str(), cce.total_usd.texto()), ("2.0", "2000.01"));
        assert_eq!(cce.certificado_origen.texto(), "0");
        assert_eq!(cce.mercancias[0].descripciones_especificas[0].marca, "ACME");
        assert!(cce.motivo_traslado.is_none() && cce.propietario.is_empty());
        let malo = EJEMPLO.replace(r#""incoterm":"FOB""#, r#""incoterm":"FOB","totalUSD":"2000""#);
        assert!(
            matches!(construir(&malo), Err(ErrorConstruccion::Invalido { campo, .. }) if campo == "comercioExterior.totalUSD")
        );
        let malo = EJEMPLO.replace("\"marca\"", "\"brand\"");
        assert!(
            matches!(construir(&malo), Err(ErrorConstruccion::Invalido { campo, .. }) if campo == "comercioExterior.mercancias[0].descripcionesEspecificas[0].marca")
        );
    }
}
