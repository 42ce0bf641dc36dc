//! The Rust catalog tables equal SAT's CSV files (read at run time from shared/sat).

use std::collections::BTreeMap;
use std::path::Path;

use timbra_cfdi::catalogos::*;

use crate::comun::sat;

/// Minimal RFC 4180 reader: rows of fields keyed by the header.
fn leer_csv(ruta: &Path) -> Vec<BTreeMap<String, String>> {
    let texto = std::fs::read_to_string(ruta).unwrap();
    let mut filas = Vec::new();
    let mut encabezado: Option<Vec<String>> = None;
    for linea in texto.lines().filter(|l| !l.is_empty()) {
        let mut campos = Vec::new();
        let mut actual = String::new();
        let mut entre_comillas = false;
        for c in linea.chars() {
            match (c, entre_comillas) {
                ('"', _) => entre_comillas = !entre_comillas,
                (',', false) => campos.push(std::mem::take(&mut actual)),
                (c, _) => actual.push(c),
            }
        }
        campos.push(actual);
        match &encabezado {
            None => encabezado = Some(campos),
            Some(nombres) => filas.push(nombres.iter().cloned().zip(campos).collect()),
        }
    }
    filas
}

macro_rules! comparar {
    ($sat:expr, $archivo:literal, $tipo:ty) => {{
        let filas = leer_csv(&$sat.join(concat!("catalogs/cfdi40/", $archivo)));
        let codigos: Vec<&str> = filas.iter().map(|f| f["id"].as_str()).collect();
        let nuestros: Vec<&str> = <$tipo>::TODOS.iter().map(|e| e.codigo()).collect();
        assert_eq!(nuestros, codigos, $archivo);
        for fila in &filas {
            let entrada = <$tipo>::desde_codigo(&fila["id"]).unwrap();
            if let Some(texto) = fila.get("texto") {
                assert_eq!(entrada.descripcion(), texto, "{} {}", $archivo, fila["id"]);
            }
        }
        filas
    }};
}

#[test]
fn tablas_iguales_a_los_csv_del_sat() {
    let Some(sat) = sat() else { return };
    comparar!(sat, "c_FormaPago.csv", FormaPago);
    comparar!(sat, "c_MetodoPago.csv", MetodoPago);
    comparar!(sat, "c_ObjetoImp.csv", ObjetoImp);
    comparar!(sat, "c_TipoDeComprobante.csv", TipoDeComprobante);
    comparar!(sat, "c_TipoRelacion.csv", TipoRelacion);
    comparar!(sat, "c_Exportacion.csv", Exportacion);
    comparar!(sat, "c_Meses.csv", Meses);
    comparar!(sat, "c_Periodicidad.csv", Periodicidad);
    for fila in comparar!(sat, "c_Impuesto.csv", Impuesto) {
        let impuesto = Impuesto::desde_codigo(&fila["id"]).unwrap();
        assert_eq!(impuesto.retencion(), fila["retencion"] == "1");
        assert_eq!(impuesto.traslado(), fila["traslado"] == "1");
    }
    let factores: Vec<String> =
        leer_csv(&sat.join("catalogs/cfdi40/c_TipoFactor.csv")).into_iter().map(|f| f["id"].clone()).collect();
    assert_eq!(TipoFactor::TODOS.iter().map(|f| f.codigo()).collect::<Vec<_>>(), factores);
    for fila in comparar!(sat, "c_RegimenFiscal.csv", RegimenFiscal) {
        let regimen = RegimenFiscal::desde_codigo(&fila["id"]).unwrap();
        assert_eq!(regimen.aplica_fisica(), fila["aplica_fisica"] == "1", "{}", fila["id"]);
        assert_eq!(regimen.aplica_moral(), fila["aplica_moral"] == "1", "{}", fila["id"]);
    }
    for fila in comparar!(sat, "c_UsoCFDI.csv", UsoCfdi) {
        let uso = UsoCfdi::desde_codigo(&fila["id"]).unwrap();
        assert_eq!(uso.aplica_fisica(), fila["aplica_fisica"] == "1", "{}", fila["id"]);
        assert_eq!(uso.aplica_moral(), fila["aplica_moral"] == "1", "{}", fila["id"]);
        let mut esperados: Vec<&str> = fila["regimenes_fiscales_receptores"].split(',').map(str::trim).collect();
        let mut nuestros: Vec<&str> = uso.regimenes_receptores().iter().map(|r| r.codigo()).collect();
        esperados.sort_unstable();
        nuestros.sort_unstable();
        assert_eq!(nuestros, esperados, "{}", fila["id"]);
    }
    let monedas = leer_csv(&sat.join("catalogs/cfdi40/c_Moneda.csv"));
    assert_eq!(monedas.len(), MONEDAS.len());
    for (fila, moneda) in monedas.iter().zip(MONEDAS) {
        assert_eq!(fila["id"], moneda.codigo);
        assert_eq!(fila["texto"], moneda.descripcion);
        assert_eq!(fila["decimales"].parse::<u32>().unwrap(), moneda.decimales);
        assert_eq!(fila["porcentaje_variacion"].parse::<u32>().unwrap_or(0), moneda.porcentaje_variacion);
    }
    let tasas = leer_csv(&sat.join("catalogs/cfdi40/c_TasaOCuota.csv"));
    assert_eq!(tasas.len(), TASAS_O_CUOTAS.len());
    for (fila, tasa) in tasas.iter().zip(TASAS_O_CUOTAS) {
        assert_eq!(fila["tipo"] == "Rango", tasa.rango);
        assert_eq!(fila["minimo"], tasa.minimo);
        assert_eq!(fila["valor"], tasa.valor);
        assert!(fila["impuesto"].starts_with(tasa.impuesto.descripcion()), "{:?}", fila);
        assert_eq!(fila["factor"], tasa.factor.codigo());
        assert_eq!(fila["traslado"] == "1", tasa.traslado);
        assert_eq!(fila["retencion"] == "1", tasa.retencion);
    }
}
