//! The builder: the complement from the API's JSON, with what SAT derives filled in.
//!
//! The JSON names are SAT's in camelCase with a leading acronym lower-cased (`IdCCP` →
//! `idCCP`, `RFCFigura` → `rfcFigura`, `IDUbicacion` → `idUbicacion`, `PermSCT` →
//! `permSCT`); a repeated element is an array named after its SAT container where there is
//! one (`ubicaciones`, `figuraTransporte`, `regimenesAduaneros`, `autotransporte.remolques`,
//! `contenedor[].remolquesCCP`) and after the element where SAT repeats it bare
//! (`mercancias.mercancia`, `cantidadTransporta`, `documentacionAduanera`); array items are
//! objects; numeric attributes take a JSON number or a string.
//!
//! [`completar`] fills only what SAT derives: `Version` 3.1, `IdCCP` (from the caller's
//! generator, see [`id_ccp`]), `Mercancias/@NumTotalMercancias`, `Mercancias/@PesoBrutoTotal`
//! and `TotalDistRec` when omitted, and checks them when sent. Nothing else is added.

use rust_decimal::Decimal;

use super::*;
use crate::construccion::{ErrorConstruccion, invalido, sumar};
use crate::entrada::{Objeto, Valor, leer as leer_valor};

/// Reads the complement from the object `valor` found at `ruta` (`cartaPorte`), as sent: the
/// derived attributes may be absent (empty).
///
/// # Errors
/// [`ErrorConstruccion::Invalido`] naming the JSON path of the first member that is missing,
/// unknown or of the wrong type.
pub fn leer_json(valor: &Valor, ruta: &str) -> Result<CartaPorte, ErrorConstruccion> {
    super::entrada::leer(&mut Objeto::de(valor, ruta)?)
}

/// The complement as the API's JSON (the `cartaPorte` object, same names as the body): what a
/// response returns, and what [`desde_json`] reads back into an equal model.
pub fn a_json(carta_porte: &CartaPorte) -> String {
    a_valor(carta_porte).a_texto()
}

/// The complement as a JSON [`Valor`], to place inside a larger document.
pub fn a_valor(carta_porte: &CartaPorte) -> Valor {
    super::entrada::escribir(carta_porte)
}

/// Reads the complement from the JSON text of the `cartaPorte` object.
///
/// # Errors
/// As [`leer_json`], or malformed JSON.
pub fn desde_json(json: &str) -> Result<CartaPorte, ErrorConstruccion> {
    leer_json(&leer_valor(json)?, "cartaPorte")
}

/// [`desde_json`] then [`completar`]: the complement ready to go in
/// `NuevoComprobante::complementos` as [`Complemento::CartaPorte`].
///
/// # Errors
/// As [`desde_json`] and [`completar`].
pub fn construir(json: &str, generar_id: impl FnOnce() -> String) -> Result<CartaPorte, ErrorConstruccion> {
    let mut carta_porte = desde_json(json)?;
    completar(&mut carta_porte, generar_id)?;
    Ok(carta_porte)
}

/// An `IdCCP` from 16 random bytes: a UUID version 4 in upper case whose first three
/// characters are replaced by `CCC`, as SAT's Guía de llenado describes it (pattern
/// `[C]{3}[a-f0-9A-F]{5}-[a-f0-9A-F]{4}-[a-f0-9A-F]{4}-[a-f0-9A-F]{4}-[a-f0-9A-F]{12}`).
/// The service passes fresh random bytes; tests pass fixed ones.
pub fn id_ccp(mut bytes: [u8; 16]) -> String {
    bytes[6] = (bytes[6] & 0x0F) | 0x40;
    bytes[8] = (bytes[8] & 0x3F) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
    format!("CCC{}-{}-{}-{}-{}", &hex[3..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// Whether `id` has the shape of `IdCCP` (CartaPorte31.xsd).
pub(super) fn id_ccp_valido(id: &str) -> bool {
    let Some(resto) = id.strip_prefix("CCC") else { return false };
    let partes: Vec<&str> = resto.split('-').collect();
    partes.len() == 5
        && partes
            .iter()
            .zip([5, 4, 4, 4, 12])
            .all(|(parte, largo)| parte.len() == largo && parte.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn valor(numero: &Numero, campo: &str) -> Result<Decimal, ErrorConstruccion> {
    numero.valor().map_err(|_| invalido(campo, format!("«{}» no es un número decimal", numero.texto())))
}

/// `Σ DistanciaRecorrida` of the Ubicaciones (`None` when none carries one).
pub(super) fn suma_distancias(carta_porte: &CartaPorte) -> Result<Option<Decimal>, ErrorConstruccion> {
    let mut suma: Option<Decimal> = None;
    for (i, ubicacion) in carta_porte.ubicaciones.iter().enumerate() {
        if let Some(distancia) = &ubicacion.distancia_recorrida {
            let campo = format!("cartaPorte.ubicaciones[{i}].distanciaRecorrida");
            suma = Some(sumar(suma.unwrap_or_default(), valor(distancia, &campo)?, "cartaPorte.totalDistRec")?);
        }
    }
    Ok(suma)
}

/// `Σ PesoEnKg` of the Mercancia.
pub(super) fn suma_pesos(mercancias: &Mercancias) -> Result<Decimal, ErrorConstruccion> {
    let mut suma = Decimal::ZERO;
    for (i, mercancia) in mercancias.mercancia.iter().enumerate() {
        let campo = format!("cartaPorte.mercancias.mercancia[{i}].pesoEnKg");
        suma = sumar(suma, valor(&mercancia.peso_en_kg, &campo)?, "cartaPorte.mercancias.pesoBrutoTotal")?;
    }
    Ok(suma)
}

/// Fills what SAT derives and checks it when the caller sent it: `Version` 3.1, `IdCCP`
/// (`generar_id()` when empty, e.g. `|| id_ccp(rand::random())`), `NumTotalMercancias` (the
/// number of Mercancia), `PesoBrutoTotal` (Σ PesoEnKg) and `TotalDistRec` (Σ
/// DistanciaRecorrida, when some Ubicacion carries one).
///
/// # Errors
/// [`ErrorConstruccion::Invalido`] naming the JSON path of a sent value that disagrees.
pub fn completar(carta_porte: &mut CartaPorte, generar_id: impl FnOnce() -> String) -> Result<(), ErrorConstruccion> {
    match carta_porte.version.as_str() {
        "" => carta_porte.version = VERSION.to_owned(),
        VERSION => {}
        otra => return Err(invalido("cartaPorte.version", format!("«{otra}»: la versión del complemento es 3.1"))),
    }
    if carta_porte.id_ccp.is_empty() {
        carta_porte.id_ccp = generar_id();
    }
    if !id_ccp_valido(&carta_porte.id_ccp) {
        return Err(invalido(
            "cartaPorte.idCCP",
            format!(
                "«{}» no tiene la forma CCC + 33 caracteres de un UUID (CCCxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
                carta_porte.id_ccp
            ),
        ));
    }
    let m = &mut carta_porte.mercancias;
    let numero = m.mercancia.len();
    if m.num_total_mercancias.texto().is_empty() {
        m.num_total_mercancias = Numero::from_texto(numero.to_string());
    } else if valor(&m.num_total_mercancias, "cartaPorte.mercancias.numTotalMercancias")? != Decimal::from(numero) {
        return Err(invalido(
            "cartaPorte.mercancias.numTotalMercancias",
            format!("debe ser {numero}, el número de elementos de mercancia"),
        ));
    }
    let peso = suma_pesos(m)?;
    if m.peso_bruto_total.texto().is_empty() {
        m.peso_bruto_total = Numero::from(peso);
    } else if valor(&m.peso_bruto_total, "cartaPorte.mercancias.pesoBrutoTotal")? != peso {
        return Err(invalido(
            "cartaPorte.mercancias.pesoBrutoTotal",
            format!("debe ser {peso}, la suma de pesoEnKg de las mercancías"),
        ));
    }
    if let Some(distancia) = suma_distancias(carta_porte)? {
        match &carta_porte.total_dist_rec {
            None => carta_porte.total_dist_rec = Some(Numero::from(distancia)),
            Some(total) if valor(total, "cartaPorte.totalDistRec")? != distancia => {
                return Err(invalido(
                    "cartaPorte.totalDistRec",
                    format!("debe ser {distancia}, la suma de distanciaRecorrida de las ubicaciones"),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The example body of issue 33.
#[cfg(test)]
pub(super) const EJEMPLO: &str = r#"{"cartaPorte":{"transpInternac":"No","totalDistRec":"250","ubicaciones":[{"tipoUbicacion":"Origen","idUbicacion":"OR000001","rfcRemitenteDestinatario":"EKU9003173C9","fechaHoraSalidaLlegada":"2026-12-01T08:00:00","domicilio":{"estado":"HID","pais":"MEX","codigoPostal":"42501"}},{"tipoUbicacion":"Destino","idUbicacion":"DE000001","rfcRemitenteDestinatario":"XIA190128J61","fechaHoraSalidaLlegada":"2026-12-01T14:00:00","distanciaRecorrida":"250","domicilio":{"estado":"QUE","pais":"MEX","codigoPostal":"76343"}}],"mercancias":{"pesoBrutoTotal":"1500","unidadPeso":"KGM","numTotalMercancias":1,"mercancia":[{"bienesTransp":"24112700","descripcion":"Cajas de cartón","cantidad":"100","claveUnidad":"XBX","pesoEnKg":"1500","materialPeligroso":"No"}],"autotransporte":{"permSCT":"TPAF01","numPermisoSCT":"0X2XTXZ0X5X0X3X2X1X0","identificacionVehicular":{"configVehicular":"C2","pesoBrutoVehicular":"12","placaVM":"501AAA","anioModeloVM":2020},"seguros":{"aseguraRespCivil":"SEGUROS SA","polizaRespCivil":"123456"}}},"figuraTransporte":[{"tipoFigura":"01","rfcFigura":"VAAM130719H60","numLicencia":"a234567890","nombreFigura":"OPERADOR"}]}}"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn cuerpo(json: &str) -> Result<CartaPorte, ErrorConstruccion> {
        let valor = leer_valor(json)?;
        let Valor::Objeto(miembros) = &valor else { panic!("cuerpo") };
        let mut carta_porte = leer_json(&miembros[0].1, "cartaPorte")?;
        completar(&mut carta_porte, || id_ccp([0xA5; 16]))?;
        Ok(carta_porte)
    }

    #[test]
    fn el_ejemplo_del_issue_se_lee_y_completa() {
        let cp = cuerpo(EJEMPLO).unwrap();
        assert_eq!(cp.version, "3.1");
        assert_eq!(cp.id_ccp, "CCC5A5A5-A5A5-45A5-A5A5-A5A5A5A5A5A5");
        assert!(id_ccp_valido(&cp.id_ccp));
        assert_eq!(cp.ubicaciones.len(), 2);
        assert_eq!(cp.ubicaciones[1].domicilio.as_ref().unwrap().codigo_postal, "76343");
        let m = &cp.mercancias;
        assert_eq!((m.num_total_mercancias.texto(), m.peso_bruto_total.texto()), ("1", "1500"));
        let auto = m.autotransporte.as_ref().unwrap();
        assert_eq!(auto.identificacion_vehicular.anio_modelo_vm.texto(), "2020");
        assert_eq!(cp.figura_transporte[0].rfc_figura.as_deref(), Some("VAAM130719H60"));
        // Nothing is added that the body does not send.
        assert!(cp.entrada_salida_merc.is_none() && cp.regimenes_aduaneros.is_empty());
        assert!(auto.remolques.is_empty() && m.mercancia[0].cantidad_transporta.is_empty());
    }

    #[test]
    fn deriva_lo_omitido_y_revisa_lo_enviado() {
        let sin_derivados = EJEMPLO
            .replace(r#""totalDistRec":"250","#, "")
            .replace(r#""pesoBrutoTotal":"1500","#, "")
            .replace(r#""numTotalMercancias":1,"#, "");
        let cp = cuerpo(&sin_derivados).unwrap();
        assert_eq!(cp.total_dist_rec.as_ref().map(Numero::texto), Some("250"));
        assert_eq!(cp.mercancias.peso_bruto_total.texto(), "1500");
        assert_eq!(cp.mercancias.num_total_mercancias.texto(), "1");
        for (malo, campo) in [
            (EJEMPLO.replace(r#""totalDistRec":"250""#, r#""totalDistRec":"251""#), "cartaPorte.totalDistRec"),
            (
                EJEMPLO.replace(r#""pesoBrutoTotal":"1500""#, r#""pesoBrutoTotal":1400"#),
                "cartaPorte.mercancias.pesoBrutoTotal",
            ),
            (
                EJEMPLO.replace(r#""numTotalMercancias":1"#, r#""numTotalMercancias":2"#),
                "cartaPorte.mercancias.numTotalMercancias",
            ),
            (EJEMPLO.replace(r#""transpInternac":"No""#, r#""transpInternac":"No","idCCP":"ABC""#), "cartaPorte.idCCP"),
            (
                EJEMPLO.replace(r#""transpInternac":"No""#, r#""transpInternac":"No","version":"3.0""#),
                "cartaPorte.version",
            ),
            (
                EJEMPLO.replace(r#""placaVM""#, r#""placa":"501AAA","placaVM""#),
                "cartaPorte.mercancias.autotransporte.identificacionVehicular.placa",
            ),
            (
                EJEMPLO.replace(r#""codigoPostal":"42501""#, r#""codigoPostal":42501"#),
                "cartaPorte.ubicaciones[0].domicilio.codigoPostal",
            ),
            (
                EJEMPLO.replace(r#""descripcion":"Cajas de cartón","#, ""),
                "cartaPorte.mercancias.mercancia[0].descripcion",
            ),
        ] {
            let error = cuerpo(&malo).unwrap_err();
            let ErrorConstruccion::Invalido { campo: encontrado, .. } = &error;
            assert_eq!(encontrado, campo, "{error}");
        }
        // An IdCCP sent is kept.
        let enviado = EJEMPLO.replace(
            r#""transpInternac":"No""#,
            r#""transpInternac":"No","idCCP":"CCCBBBBB-1111-4222-8333-444455556666""#,
        );
        assert_eq!(cuerpo(&enviado).unwrap().id_ccp, "CCCBBBBB-1111-4222-8333-444455556666");
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(300))]

        /// Any damaged body gives a complement or an error naming a field, never a panic.
        #[test]
        fn cuerpos_danados_no_causan_panico(corte in 0usize..EJEMPLO.len(), posicion in 0usize..EJEMPLO.len(), byte in 0x20u8..0x7f) {
            let mut bytes = EJEMPLO.as_bytes().to_vec();
            bytes[posicion] = byte;
            bytes.truncate(corte.max(posicion));
            let texto = String::from_utf8_lossy(&bytes);
            if let Ok(valor) = leer_valor(&texto)
                && let Valor::Objeto(miembros) = &valor
                && let Some((_, cuerpo)) = miembros.first()
                && let Ok(mut cp) = leer_json(cuerpo, "cartaPorte")
            {
                let _ = completar(&mut cp, || id_ccp([1; 16]));
            }
        }
    }
}
