//! JSON round trip as the server sees it: a request body (amounts as numbers and as strings)
//! deserializes, and the serialized response has exactly SPEC.md's field names, with exact
//! decimal numbers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use timbra_nomina::{CalculoNomina, calcular_solicitud};
use time::macros::date;

/// Keys of a JSON object, sorted.
fn claves(valor: &Value) -> Vec<&str> {
    let mut claves: Vec<&str> = valor.as_object().expect("an object").keys().map(String::as_str).collect();
    claves.sort_unstable();
    claves
}

/// Raw text of a JSON number (serde_json `arbitrary_precision` keeps it as written).
fn numero(valor: &Value) -> String {
    assert!(valor.is_number(), "{valor} is not a JSON number");
    valor.to_string()
}

// Quincena of SD 500 / SDI 522.47 on 2026-03-13 (worked in `calculo_tests.rs::quincenal`:
// ISR 709.86, IMSS 196.36) plus an aguinaldo of "1000.00" sent as a string (all exempt: 30
// UMA = 3,519.30) and a Fonacot deduction of 250.50.
const CUERPO: &str = r#"{
    "salarioDiario": 500.00,
    "salarioDiarioIntegrado": "522.47",
    "diasPagados": 15,
    "periodicidad": "QUINCENAL",
    "riesgoPuesto": "3",
    "percepciones": [
        {"tipo": "002", "concepto": "Aguinaldo", "importe": "1000.00"}
    ],
    "deducciones": [
        {"tipo": "011", "concepto": "Fonacot", "importe": 250.50}
    ],
    "fechaPago": "2026-03-13",
    "campoDesconocido": "se ignora"
}"#;

#[test]
fn respuesta_con_los_campos_de_spec() {
    let solicitud: CalculoNomina = serde_json::from_str(CUERPO).unwrap();
    // "today" differs from fechaPago on purpose: the body's date wins.
    let resultado = calcular_solicitud(&solicitud, date!(2026 - 11 - 20)).unwrap();
    let json = serde_json::to_value(&resultado).unwrap();

    assert_eq!(claves(&json), ["deducciones", "desglose", "netoAPagar", "otrosPagos", "percepciones"]);
    assert_eq!(claves(&json["percepciones"]), ["sueldoBase", "totalExento", "totalGravado", "totalPercepciones"]);
    assert_eq!(
        claves(&json["deducciones"]),
        ["imssEmpleado", "isrBruto", "isrRetenido", "subsidioAlEmpleo", "totalDeducciones"]
    );
    assert_eq!(claves(&json["otrosPagos"]), ["subsidioEntregado", "totalOtrosPagos"]);
    assert_eq!(
        claves(&json["desglose"]["imssDesglose"]),
        ["cesantiaYVejez", "enfermedadYMaternidad", "invalidezYVida", "total"]
    );
    for campo in [
        "baseGravableISR",
        "rangoISR",
        "cuotaFija",
        "excedenteLimInf",
        "isrMarginal",
        "subsidioCausado",
        "imssDesglose",
    ] {
        assert!(json["desglose"].get(campo).is_some(), "desglose.{campo}");
    }

    // Exact numbers with two decimals, never floats.
    assert_eq!(numero(&json["percepciones"]["sueldoBase"]), "7500.00");
    assert_eq!(numero(&json["percepciones"]["totalExento"]), "1000.00");
    assert_eq!(numero(&json["percepciones"]["totalPercepciones"]), "8500.00");
    assert_eq!(numero(&json["deducciones"]["isrBruto"]), "709.86");
    assert_eq!(numero(&json["deducciones"]["imssEmpleado"]), "196.36");
    // 709.86 + 196.36 + 250.50 = 1,156.72; net 8,500 − 1,156.72 = 7,343.28.
    assert_eq!(numero(&json["deducciones"]["totalDeducciones"]), "1156.72");
    assert_eq!(numero(&json["otrosPagos"]["subsidioEntregado"]), "0.00");
    assert_eq!(numero(&json["netoAPagar"]), "7343.28");
    assert_eq!(json["desglose"]["rangoISR"], "17.92%");
    assert_eq!(numero(&json["desglose"]["imssDesglose"]["total"]), "196.36");
    assert_eq!(json["desglose"]["riesgoPuesto"], 3);
    assert_eq!(json["desglose"]["periodicidad"], "quincenal");
    assert_eq!(json["desglose"]["fechaParametros"], "2026-03-13");
    assert_eq!(json["desglose"]["percepciones"][0]["exentoCalculado"], true);

    // The text itself carries the numbers unquoted.
    let texto = serde_json::to_string(&resultado).unwrap();
    assert!(texto.contains(r#""netoAPagar":7343.28"#), "{texto}");
}

#[test]
fn problemas_en_json() {
    let solicitud: CalculoNomina = serde_json::from_str(
        r#"{"salarioDiario": "0", "diasPagados": 20, "periodicidad": "semanal",
            "riesgoPuesto": 9, "percepciones": [{"tipo": "002", "concepto": "x"}]}"#,
    )
    .unwrap();
    let problemas = calcular_solicitud(&solicitud, date!(2026 - 03 - 13)).unwrap_err();
    let json = serde_json::to_value(&problemas).unwrap();
    let campos: Vec<&str> = json.as_array().unwrap().iter().map(|p| p["campo"].as_str().unwrap()).collect();
    assert_eq!(
        campos,
        ["salarioDiario", "salarioDiarioIntegrado", "diasPagados", "riesgoPuesto", "percepciones[0].importe"]
    );
    assert!(json[0]["mensaje"].as_str().is_some_and(|m| !m.is_empty()));
}

// A value with more digits than f64 can hold survives exactly.
#[test]
fn sin_perdida_por_flotantes() {
    let solicitud: CalculoNomina = serde_json::from_str(
        r#"{"salarioDiario": 12345678.91, "salarioDiarioIntegrado": 12345678.91,
            "diasPagados": 7, "periodicidad": "semanal", "riesgoPuesto": 1,
            "fechaPago": "2026-03-13"}"#,
    )
    .unwrap();
    let resultado = calcular_solicitud(&solicitud, date!(2026 - 03 - 13)).unwrap();
    let json = serde_json::to_value(&resultado).unwrap();
    // 12,345,678.91 × 7 = 86,419,752.37 exactly.
    assert_eq!(numero(&json["percepciones"]["sueldoBase"]), "86419752.37");
}

// Only plain decimal notation is read: exponents and `_` are refused, never rounded or
// re-read; a concept that breaks nomina12.xsd's `[^|]{1,100}` or XML is refused too.
#[test]
fn notacion_simple_y_conceptos_del_sat() {
    let solicitud: CalculoNomina = serde_json::from_str(
        r#"{"salarioDiario": 1e28, "salarioDiarioIntegrado": "1_000", "diasPagados": "1E1",
            "periodicidad": "semanal", "riesgoPuesto": 1, "fechaPago": "2026-03-13",
            "percepciones": [{"tipo": "038", "concepto": "Bono|extra", "importe": 100},
                             {"tipo": "038", "concepto": "Bono\u0007", "importe": 100},
                             {"tipo": "038", "concepto": "Bono", "importe": 0.123456789012345678901234567890}]}"#,
    )
    .unwrap();
    let problemas = calcular_solicitud(&solicitud, date!(2026 - 03 - 13)).unwrap_err();
    let campos: Vec<&str> = problemas.iter().map(|p| p.campo.as_str()).collect();
    assert_eq!(
        campos,
        [
            "salarioDiario",
            "salarioDiarioIntegrado",
            "diasPagados",
            "percepciones[0].concepto",
            "percepciones[1].concepto",
            "percepciones[2].importe"
        ],
        "{problemas:?}"
    );
    assert!(problemas[3].mensaje.contains('|'), "{}", problemas[3].mensaje);
    assert!(problemas[4].mensaje.contains("U+0007"), "{}", problemas[4].mensaje);
}

// The largest amounts the request accepts, many times over, compute without overflow.
#[test]
fn montos_maximos_sin_desborde() {
    let maximo = "999999999.99";
    let percepciones: Vec<String> = (0..500)
        .map(|i| {
            let tipo = ["001", "002", "003", "019", "021", "038"][i % 6];
            format!(r#"{{"tipo": "{tipo}", "concepto": "x", "importe": {maximo}}}"#)
        })
        .collect();
    let deducciones: Vec<String> =
        (0..500).map(|_| format!(r#"{{"tipo": "004", "concepto": "x", "importe": {maximo}}}"#)).collect();
    let cuerpo = format!(
        r#"{{"salarioDiario": {maximo}, "salarioDiarioIntegrado": {maximo}, "diasPagados": 31,
            "periodicidad": "mensual", "riesgoPuesto": 5, "fechaPago": "2026-03-13",
            "percepciones": [{}], "deducciones": [{}]}}"#,
        percepciones.join(","),
        deducciones.join(",")
    );
    let solicitud: CalculoNomina = serde_json::from_str(&cuerpo).unwrap();
    assert!(calcular_solicitud(&solicitud, date!(2026 - 03 - 13)).is_ok());
}
