//! Every validation rule has a failing input: each case changes one valid example and
//! expects its rule among the problems; the cases together cover [`REGLAS`].

use std::collections::BTreeSet;

use serde_json::{Value, json};
use timbra_cfdi::Rfc;
use timbra_retenciones::validacion::REGLAS;
use timbra_retenciones::{EntradaRetenciones, Problema, Receptor, ReceptorExtranjero, construir, validar};

use crate::comun::{EXTRANJERO, FECHA_EXP, NACIONAL, PLATAFORMAS, construir_json, emisor};

/// Sets `valor` at the JSON pointer `ruta` (creating the last key of an object).
fn poner(documento: &mut Value, ruta: &str, valor: Value) {
    let (padre, clave) = ruta.rsplit_once('/').unwrap();
    match documento.pointer_mut(padre).unwrap_or_else(|| panic!("{ruta}")) {
        Value::Object(mapa) => {
            mapa.insert(clave.to_owned(), valor);
        }
        Value::Array(lista) => lista[clave.parse::<usize>().unwrap()] = valor,
        otro => panic!("{ruta}: {otro}"),
    }
}

fn problemas(base: &str, cambios: &[(&str, Value)]) -> Vec<Problema> {
    let mut documento: Value = serde_json::from_str(base).unwrap();
    for (ruta, valor) in cambios {
        poner(&mut documento, ruta, valor.clone());
    }
    // From text, as the API reads it: serde_json hands exact number texts over only then.
    let entrada: EntradaRetenciones = serde_json::from_str(&documento.to_string()).unwrap();
    match construir(&entrada, emisor(), FECHA_EXP) {
        Ok(_) => Vec::new(),
        Err(problemas) => problemas,
    }
}

const PT: &str = "/complementos/plataformasTecnologicas";

/// `(rule expected, valid example, changes as (JSON pointer, value))`.
type Caso = (&'static str, &'static str, Vec<(String, Value)>);

#[test]
fn cada_regla_tiene_una_entrada_que_falla() {
    let s0 = "/complementos/plataformasTecnologicas/servicios/0";
    let s1 = "/complementos/plataformasTecnologicas/servicios/1";
    let casos: Vec<Caso> = vec![
        ("RET20_CVE_RETENC", NACIONAL, vec![("/cveRetenc".into(), json!("29"))]),
        ("RET20_DESC_RETENC", NACIONAL, vec![("/cveRetenc".into(), json!("25"))]),
        ("RET20_FOLIO_INT", NACIONAL, vec![("/folioInt".into(), json!("R-100"))]),
        ("RET20_TEXTO", NACIONAL, vec![("/receptor/nomDenRazSocR".into(), json!("  "))]),
        ("RET20_TEXTO", EXTRANJERO, vec![("/descRetenc".into(), json!("x".repeat(101)))]),
        ("RET20_TEXTO", EXTRANJERO, vec![("/receptor/numRegIdTribR".into(), json!("A\u{7}B"))]),
        ("RET20_LUGAR_EXP", NACIONAL, vec![("/lugarExpRetenc".into(), json!("8600"))]),
        ("RET20_TIPO_RELACION", EXTRANJERO, vec![("/cfdiRetenRelacionados/tipoRelacion".into(), json!("10"))]),
        ("RET20_UUID_RELACIONADO", EXTRANJERO, vec![("/cfdiRetenRelacionados/uuid".into(), json!("no-es-uuid"))]),
        ("RET20_NACIONALIDAD", NACIONAL, vec![("/receptor/nacionalidad".into(), json!("Mexicana"))]),
        ("RET20_RECEPTOR_RFC", NACIONAL, vec![("/receptor/rfcR".into(), Value::Null)]),
        ("RET20_RECEPTOR_RFC", NACIONAL, vec![("/receptor/rfcR".into(), json!("XIQB891116QE"))]),
        ("RET20_RECEPTOR_RFC", NACIONAL, vec![("/receptor/rfcR".into(), json!("XEXX010101000"))]),
        ("RET20_RECEPTOR_EXTRANJERO", EXTRANJERO, vec![("/receptor/rfcR".into(), json!("XIQB891116QE4"))]),
        ("RET20_RECEPTOR_EXTRANJERO", EXTRANJERO, vec![("/receptor/domicilioFiscalR".into(), json!("01030"))]),
        ("RET20_RECEPTOR_EXTRANJERO", NACIONAL, vec![("/receptor/numRegIdTribR".into(), json!("123"))]),
        ("RET20_DOMICILIO_FISCAL_R", NACIONAL, vec![("/receptor/domicilioFiscalR".into(), Value::Null)]),
        ("RET20_DOMICILIO_FISCAL_R", NACIONAL, vec![("/receptor/domicilioFiscalR".into(), json!("1030"))]),
        ("RET20_CURP", NACIONAL, vec![("/receptor/curpR".into(), json!("XIQB891116"))]),
        ("RET20_MES", NACIONAL, vec![("/periodo/mesIni".into(), json!(13))]),
        ("RET20_MES", NACIONAL, vec![("/periodo/mesFin".into(), json!("0"))]),
        ("RET20_PERIODO_MESES", NACIONAL, vec![("/periodo/mesIni".into(), json!("11"))]),
        ("RET20_EJERCICIO", NACIONAL, vec![("/periodo/ejercicio".into(), json!(2018))]),
        ("RET20_EJERCICIO", NACIONAL, vec![("/periodo/ejercicio".into(), json!("2027"))]),
        ("RET20_EJERCICIO", NACIONAL, vec![("/periodo/ejercicio".into(), json!("26"))]),
        ("RET20_IMPORTE", NACIONAL, vec![("/totales/montoTotGrav".into(), json!("20000.505"))]),
        ("RET20_IMPORTE", NACIONAL, vec![("/totales/montoTotExent".into(), json!("1e3"))]),
        ("RET20_IMPORTE", NACIONAL, vec![("/impRetenidos/0/montoRet".into(), json!("-1.00"))]),
        ("RET20_MONTO_TOT_OPERACION", NACIONAL, vec![("/totales/montoTotExent".into(), json!("4999.49"))]),
        ("RET20_MONTO_TOT_RET", NACIONAL, vec![("/totales/montoTotRet".into(), json!("4133.45"))]),
        ("RET20_IMPUESTO_RET", NACIONAL, vec![("/impRetenidos/0/impuestoRet".into(), json!("004"))]),
        ("RET20_TIPO_PAGO_RET", NACIONAL, vec![("/impRetenidos/0/tipoPagoRet".into(), json!("05"))]),
        ("RET20_PT_CVE_RETENC", PLATAFORMAS, vec![("/cveRetenc".into(), json!("01"))]),
        ("RET20_PT_DESC_RETENC", PLATAFORMAS, vec![("/descRetenc".into(), json!("Plataforma"))]),
        (
            "RET20_PT_RECEPTOR",
            PLATAFORMAS,
            vec![(
                "/receptor".into(),
                json!({"nacionalidad": "Extranjero", "nomDenRazSocR": "RIDE SHARE INTERNATIONAL INC"}),
            )],
        ),
        ("RET20_PT_PERIODO", PLATAFORMAS, vec![("/periodo/mesIni".into(), json!("09"))]),
        (
            "RET20_PT_MONTO_TOT_OPERACION",
            PLATAFORMAS,
            vec![
                ("/totales/montoTotOperacion".into(), json!("1400.00")),
                ("/totales/montoTotGrav".into(), json!("1400.00")),
            ],
        ),
        (
            "RET20_PT_MONTO_TOT_GRAV",
            PLATAFORMAS,
            vec![("/totales/montoTotGrav".into(), json!("1400.00")), ("/totales/montoTotExent".into(), json!("100"))],
        ),
        (
            "RET20_PT_MONTO_TOT_EXENT",
            PLATAFORMAS,
            vec![("/totales/montoTotGrav".into(), json!("1400.00")), ("/totales/montoTotExent".into(), json!("100"))],
        ),
        ("RET20_PT_NUM_SERV", PLATAFORMAS, vec![(format!("{PT}/numServ"), json!(3))]),
        ("RET20_PT_NUM_SERV", PLATAFORMAS, vec![(format!("{PT}/numServ"), json!("dos"))]),
        ("RET20_PT_MON_TOT_SERV", PLATAFORMAS, vec![(format!("{PT}/monTotServSIVA"), json!("1400.00"))]),
        ("RET20_PT_TOTAL_IVA_TRASLADADO", PLATAFORMAS, vec![(format!("{PT}/totalIVATrasladado"), json!("200.00"))]),
        ("RET20_PT_DIF_IVA", PLATAFORMAS, vec![(format!("{PT}/difIVAEntregadoPrestServ"), json!("1.00"))]),
        ("RET20_PT_USO_PLATAFORMA", PLATAFORMAS, vec![(format!("{PT}/monTotalporUsoPlataforma"), json!("1.00"))]),
        ("RET20_PT_CONTRIBUCION", PLATAFORMAS, vec![(format!("{PT}/monTotalContribucionGubernamental"), json!("1"))]),
        ("RET20_PT_FECHA_SERV", PLATAFORMAS, vec![(format!("{s0}/fechaServ"), json!("2026-09-30"))]),
        ("RET20_PT_FECHA_SERV", PLATAFORMAS, vec![(format!("{s0}/fechaServ"), json!("2026-13-01"))]),
        ("RET20_PT_BASE", PLATAFORMAS, vec![(format!("{s0}/impuestosTrasladadosdelServicio/base"), json!("999.00"))]),
        (
            "RET20_PT_IMPORTE_TRASLADO",
            PLATAFORMAS,
            vec![(format!("{s1}/impuestosTrasladadosdelServicio/importe"), json!("81.00"))],
        ),
        ("RET20_PT_COMISION", PLATAFORMAS, vec![(format!("{s1}/comisionDelServicio/importe"), json!("0"))]),
        ("RET20_PT_IMPORTE", PLATAFORMAS, vec![(format!("{s0}/precioServSinIVA"), json!("1000.0000001"))]),
        ("RET20_PT_PORCENTAJE", PLATAFORMAS, vec![(format!("{s0}/comisionDelServicio/porcentaje"), json!("1.5"))]),
        ("RET20_PT_PORCENTAJE", PLATAFORMAS, vec![(format!("{s0}/comisionDelServicio/porcentaje"), json!("0.1505"))]),
        ("RET20_PT_RFC_TERCERO", PLATAFORMAS, vec![(format!("{s1}/rfcTerceroAutorizado"), json!("EKU9003173C9"))]),
        ("RET20_PT_RFC_TERCERO", PLATAFORMAS, vec![(format!("{s1}/rfcTerceroAutorizado"), json!("XYZ"))]),
        ("RET20_PT_PERIODICIDAD", PLATAFORMAS, vec![(format!("{PT}/periodicidad"), json!("06"))]),
        ("RET20_PT_FORMA_PAGO_SERV", PLATAFORMAS, vec![(format!("{s0}/formaPagoServ"), json!("10"))]),
        ("RET20_PT_TIPO_DE_SERV", PLATAFORMAS, vec![(format!("{s0}/tipoDeServ"), json!("10"))]),
        ("RET20_PT_SUB_TIP_SERV", PLATAFORMAS, vec![(format!("{s0}/subTipServ"), json!("05"))]),
        (
            "RET20_PT_IMPUESTO",
            PLATAFORMAS,
            vec![(format!("{s0}/impuestosTrasladadosdelServicio/impuesto"), json!("04"))],
        ),
        (
            "RET20_PT_TASA_CUOTA",
            PLATAFORMAS,
            vec![(format!("{s0}/impuestosTrasladadosdelServicio/tasaCuota"), json!("0.10"))],
        ),
        (
            "RET20_PT_ENTIDAD",
            PLATAFORMAS,
            vec![(format!("{s0}/contribucionGubernamental/entidadDondePagaLaContribucion"), json!("33"))],
        ),
    ];
    let mut cubiertas = BTreeSet::new();
    for (regla, base, cambios) in &casos {
        let cambios: Vec<(&str, Value)> = cambios.iter().map(|(r, v)| (r.as_str(), v.clone())).collect();
        let encontrados = problemas(base, &cambios);
        assert!(
            encontrados.iter().any(|p| p.regla == *regla),
            "{regla} no se reportó para {cambios:?}: {encontrados:#?}"
        );
        for problema in &encontrados {
            assert!(!problema.campo.is_empty() && !problema.mensaje.is_empty(), "{problema:?}");
        }
        cubiertas.insert(*regla);
    }
    let todas: BTreeSet<&str> = REGLAS.iter().map(|(regla, _)| *regla).collect();
    assert_eq!(cubiertas, todas, "reglas sin caso que falle");
}

#[test]
fn los_ejemplos_validos_no_tienen_problemas_y_se_reportan_todos_a_la_vez() {
    for json in [NACIONAL, EXTRANJERO, PLATAFORMAS] {
        assert_eq!(validar(&construir_json(json)), Vec::new());
    }
    let varios = problemas(
        NACIONAL,
        &[("/cveRetenc", json!("99")), ("/periodo/mesIni", json!(13)), ("/lugarExpRetenc", json!("x"))],
    );
    let reglas: BTreeSet<&str> = varios.iter().map(|p| p.regla).collect();
    assert_eq!(reglas, BTreeSet::from(["RET20_CVE_RETENC", "RET20_MES", "RET20_LUGAR_EXP"]));
    let mes = varios.iter().find(|p| p.regla == "RET20_MES").unwrap();
    assert_eq!(mes.campo, "periodo.mesIni");
    assert!(mes.mensaje.contains("1 a 12"), "{}", mes.mensaje);
}

#[test]
fn validar_el_modelo_directamente() {
    // A model put together by hand (not through the builder) is checked the same way.
    let mut retenciones = construir_json(PLATAFORMAS);
    retenciones.receptor =
        Receptor::Extranjero(ReceptorExtranjero { num_reg_id_trib_r: None, nom_den_raz_soc_r: String::new() });
    let reglas: BTreeSet<&str> = validar(&retenciones).into_iter().map(|p| p.regla).collect();
    assert_eq!(reglas, BTreeSet::from(["RET20_PT_RECEPTOR", "RET20_TEXTO"]));
    let mut nacional = construir_json(NACIONAL);
    nacional.emisor.rfc_e = Rfc::new("EKU9003173C9").unwrap();
    nacional.totales.monto_tot_ret = "4133.446".parse().unwrap();
    let reglas: BTreeSet<&str> = validar(&nacional).into_iter().map(|p| p.regla).collect();
    assert_eq!(reglas, BTreeSet::from(["RET20_IMPORTE", "RET20_MONTO_TOT_RET"]));
}
