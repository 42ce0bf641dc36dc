//! Carta Porte 3.1 and Comercio Exterior 2.0 (issue 33): four documents built from the API's
//! JSON through the complements' builders, added to the golden set (`documentos::todos`), so
//! `golden.rs` seals them (the project's CSD and SAT's), checks them with one xmllint call
//! against `cfdv40-with-complements.xsd`, compares the native cadena with xsltproc byte for
//! byte and verifies the seal with openssl. Here: they validate, read back into an equal
//! model, and give the same cadena from the model and from the XML.

use rust_decimal_macros::dec;
use timbra_cfdi::carta_porte::{self, id_ccp};
use timbra_cfdi::catalogos::{Exportacion, FormaPago, MetodoPago, ObjetoImp, SinCatalogos, TipoDeComprobante};
use timbra_cfdi::comercio_exterior;
use timbra_cfdi::construccion::{NuevoConcepto, NuevoImpuesto};
use timbra_cfdi::entrada::ruta_json;
use timbra_cfdi::{Complemento, Comprobante, Receptor, cadena, escritura, parser, validacion};

use crate::documentos::{emisor, ingreso, receptor_moral};

/// The example body of issue 33 (its `cartaPorte` member).
pub const TRASLADO: &str = r#"{"transpInternac":"No","totalDistRec":"250","ubicaciones":[{"tipoUbicacion":"Origen","idUbicacion":"OR000001","rfcRemitenteDestinatario":"EKU9003173C9","fechaHoraSalidaLlegada":"2026-12-01T08:00:00","domicilio":{"estado":"HID","pais":"MEX","codigoPostal":"42501"}},{"tipoUbicacion":"Destino","idUbicacion":"DE000001","rfcRemitenteDestinatario":"XIA190128J61","fechaHoraSalidaLlegada":"2026-12-01T14:00:00","distanciaRecorrida":"250","domicilio":{"estado":"QUE","pais":"MEX","codigoPostal":"76343"}}],"mercancias":{"pesoBrutoTotal":"1500","unidadPeso":"KGM","numTotalMercancias":1,"mercancia":[{"bienesTransp":"24112700","descripcion":"Cajas de cartón","cantidad":"100","claveUnidad":"XBX","pesoEnKg":"1500","materialPeligroso":"No"}],"autotransporte":{"permSCT":"TPAF01","numPermisoSCT":"0X2XTXZ0X5X0X3X2X1X0","identificacionVehicular":{"configVehicular":"C2","pesoBrutoVehicular":"12","placaVM":"501AAA","anioModeloVM":2020},"seguros":{"aseguraRespCivil":"SEGUROS SA","polizaRespCivil":"123456"}}},"figuraTransporte":[{"tipoFigura":"01","rfcFigura":"VAAM130719H60","numLicencia":"a234567890","nombreFigura":"OPERADOR"}]}"#;

/// Freight with hazardous goods, a tractor with a semitrailer, two destinations and the
/// derived totals left to the builder.
pub const PELIGROSO: &str = r#"{
  "transpInternac": "No",
  "ubicaciones": [
    {"tipoUbicacion": "Origen", "idUbicacion": "OR000001", "rfcRemitenteDestinatario": "H&E951128469",
     "nombreRemitenteDestinatario": "HERRERIA & ELECTRICOS", "fechaHoraSalidaLlegada": "2026-11-21T06:00:00",
     "domicilio": {"calle": "Av. Juárez", "numeroExterior": "10", "estado": "CMX", "pais": "MEX", "codigoPostal": "06002"}},
    {"tipoUbicacion": "Destino", "idUbicacion": "DE000001", "rfcRemitenteDestinatario": "H&E951128469",
     "fechaHoraSalidaLlegada": "2026-11-21T11:30:00", "distanciaRecorrida": "210.5",
     "domicilio": {"estado": "PUE", "pais": "MEX", "codigoPostal": "72000"}},
    {"tipoUbicacion": "Destino", "idUbicacion": "DE000002", "rfcRemitenteDestinatario": "XIA190128J61",
     "fechaHoraSalidaLlegada": "2026-11-21T16:00:00", "distanciaRecorrida": 130,
     "domicilio": {"estado": "VER", "pais": "MEX", "codigoPostal": "91000"}}
  ],
  "mercancias": {
    "unidadPeso": "KGM",
    "mercancia": [
      {"bienesTransp": "15101514", "descripcion": "Gasolina", "cantidad": "20000", "claveUnidad": "LTR",
       "materialPeligroso": "Sí", "cveMaterialPeligroso": "1203", "embalaje": "1A1", "descripEmbalaje": "Tambores de acero",
       "pesoEnKg": "15000",
       "cantidadTransporta": [
         {"cantidad": "12000", "idOrigen": "OR000001", "idDestino": "DE000001"},
         {"cantidad": "8000", "idOrigen": "OR000001", "idDestino": "DE000002"}
       ]},
      {"bienesTransp": "24112700", "descripcion": "Tarimas", "cantidad": 10, "claveUnidad": "XBX",
       "materialPeligroso": "No", "pesoEnKg": "250.5"}
    ],
    "autotransporte": {
      "permSCT": "TPAF02", "numPermisoSCT": "PERM-2026-001",
      "identificacionVehicular": {"configVehicular": "T3S2", "pesoBrutoVehicular": "41.5", "placaVM": "85AB3C", "anioModeloVM": 2022},
      "seguros": {"aseguraRespCivil": "SEGUROS SA", "polizaRespCivil": "RC-123456",
                  "aseguraMedAmbiente": "ECOSEGUROS SA", "polizaMedAmbiente": "MA-998877",
                  "aseguraCarga": "SEGUROS SA", "polizaCarga": "CG-5544", "primaSeguro": "1500.00"},
      "remolques": [{"subTipoRem": "CTR004", "placa": "47XY2Z"}]
    }
  },
  "figuraTransporte": [
    {"tipoFigura": "01", "rfcFigura": "VAAM130719H60", "numLicencia": "LIC-0098765", "nombreFigura": "MARIO VARGAS",
     "domicilio": {"estado": "CMX", "pais": "MEX", "codigoPostal": "06002"}},
    {"tipoFigura": "02", "rfcFigura": "EKU9003173C9", "nombreFigura": "ESCUELA KEMPER URGATE",
     "partesTransporte": [{"parteTransporte": "PT01"}]}
  ]
}"#;

/// Goods leaving Mexico by road to the United States.
pub const INTERNACIONAL: &str = r#"{
  "transpInternac": "Sí", "entradaSalidaMerc": "Salida", "paisOrigenDestino": "USA", "viaEntradaSalida": "01",
  "regimenesAduaneros": [{"regimenAduanero": "EXD"}],
  "ubicaciones": [
    {"tipoUbicacion": "Origen", "idUbicacion": "OR000001", "rfcRemitenteDestinatario": "EKU9003173C9",
     "fechaHoraSalidaLlegada": "2026-11-22T05:00:00", "domicilio": {"estado": "NLE", "pais": "MEX", "codigoPostal": "64000"}},
    {"tipoUbicacion": "Destino", "idUbicacion": "DE000001", "rfcRemitenteDestinatario": "XEXX010101000",
     "nombreRemitenteDestinatario": "ACME INC", "numRegIdTrib": "123456789", "residenciaFiscal": "USA",
     "fechaHoraSalidaLlegada": "2026-11-22T13:00:00", "distanciaRecorrida": "235",
     "domicilio": {"calle": "Main St", "estado": "TX", "pais": "USA", "codigoPostal": "78045"}}
  ],
  "mercancias": {
    "unidadPeso": "KGM",
    "mercancia": [
      {"bienesTransp": "24112700", "descripcion": "Cajas de cartón", "cantidad": "100", "claveUnidad": "XBX",
       "pesoEnKg": "1500", "materialPeligroso": "No", "fraccionArancelaria": "4819100100",
       "documentacionAduanera": [{"tipoDocumento": "01", "numPedimento": "26  47  3807  6001234", "rfcImpo": "EKU9003173C9"}],
       "cantidadTransporta": [{"cantidad": "100", "idOrigen": "OR000001", "idDestino": "DE000001", "cvesTransporte": "01"}]}
    ],
    "autotransporte": {
      "permSCT": "TPAF01", "numPermisoSCT": "0X2XTXZ0X5X0X3X2X1X0",
      "identificacionVehicular": {"configVehicular": "C3", "pesoBrutoVehicular": "18.5", "placaVM": "502AAA", "anioModeloVM": 2021},
      "seguros": {"aseguraRespCivil": "SEGUROS SA", "polizaRespCivil": "123456"}
    }
  },
  "figuraTransporte": [{"tipoFigura": "01", "rfcFigura": "VAAM130719H60", "numLicencia": "a234567890", "nombreFigura": "OPERADOR"}]
}"#;

/// Every other node of the schema: ISTMO poles, GuiasIdentificacion, DetalleMercancia and the
/// maritime (with a container and its trailer), air and rail (rights of way, a car with its
/// container) transports.
pub const INTERMODAL: &str = r#"{
  "transpInternac": "No", "registroISTMO": "Sí", "ubicacionPoloOrigen": "01", "ubicacionPoloDestino": "02",
  "ubicaciones": [
    {"tipoUbicacion": "Origen", "idUbicacion": "OR000001", "rfcRemitenteDestinatario": "EKU9003173C9",
     "fechaHoraSalidaLlegada": "2026-11-23T08:00:00", "domicilio": {"estado": "VER", "pais": "MEX", "codigoPostal": "91700"}},
    {"tipoUbicacion": "Destino", "idUbicacion": "DE000001", "rfcRemitenteDestinatario": "XIA190128J61",
     "navegacionTrafico": "Cabotaje", "fechaHoraSalidaLlegada": "2026-11-25T18:00:00",
     "domicilio": {"calle": "Muelle 3", "municipio": "Salina Cruz", "estado": "OAX", "pais": "MEX", "codigoPostal": "70600"}}
  ],
  "mercancias": {
    "unidadPeso": "KGM", "pesoNetoTotal": "990", "cargoPorTasacion": "150.00", "logisticaInversaRecoleccionDevolucion": "Sí",
    "mercancia": [
      {"bienesTransp": "24112700", "claveSTCC": "123456", "descripcion": "Cajas de cartón corrugado", "cantidad": "50",
       "claveUnidad": "XBX", "unidad": "Caja", "dimensiones": "30/40/50cm", "pesoEnKg": "1000", "valorMercancia": "25000.00",
       "moneda": "MXN", "tipoMateria": "05", "descripcionMateria": "Cartón corrugado",
       "guiasIdentificacion": [{"numeroGuiaIdentificacion": "GUIA000000001", "descripGuiaIdentificacion": "Guía de embarque", "pesoGuiaIdentificacion": "1000"}],
       "detalleMercancia": {"unidadPesoMerc": "KGM", "pesoBruto": "1000", "pesoNeto": "990", "pesoTara": "10", "numPiezas": 50}}
    ],
    "transporteMaritimo": {
      "permSCT": "TPTM01", "numPermisoSCT": "PERM-MAR-01", "nombreAseg": "SEGUROS SA", "numPolizaSeguro": "POL-123",
      "tipoEmbarcacion": "B01", "matricula": "MAT1234567", "numeroOMI": "IMO1234567", "anioEmbarcacion": 2015,
      "nombreEmbarc": "LA PERLA", "nacionalidadEmbarc": "MEX", "unidadesDeArqBruto": "1200.5", "tipoCarga": "CGC",
      "eslora": "120.50", "manga": "20.00", "calado": "8.50", "puntal": "10.00", "lineaNaviera": "NAVIERA SA",
      "nombreAgenteNaviero": "AGENTE NAVIERO SA", "numAutorizacionNaviero": "ANC001/2022", "numViaje": "V-001",
      "numConocEmbarc": "CE-001", "permisoTempNavegacion": "PTN-1",
      "contenedor": [{"tipoContenedor": "CM001", "matriculaContenedor": "ABCU1234567", "numPrecinto": "PREC-001",
                      "remolquesCCP": [{"subTipoRemCCP": "CTR004", "placaCCP": "47XY2Z"}]}]
    },
    "transporteAereo": {
      "permSCT": "TPTA01", "numPermisoSCT": "PERM-AER-01", "matriculaAeronave": "XA-ABC", "nombreAseg": "SEGUROS SA",
      "numPolizaSeguro": "POL-456", "numeroGuia": "123456789012", "lugarContrato": "CDMX", "codigoTransportista": "CA001",
      "rfcEmbarcador": "EKU9003173C9", "nombreEmbarcador": "ESCUELA KEMPER URGATE"
    },
    "transporteFerroviario": {
      "tipoDeServicio": "TS01", "tipoDeTrafico": "TT01", "nombreAseg": "SEGUROS SA", "numPolizaSeguro": "POL-789",
      "derechosDePaso": [{"tipoDerechoDePaso": "CDP001", "kilometrajePagado": "120.50"}],
      "carro": [{"tipoCarro": "TC01", "matriculaCarro": "MAT-0001", "guiaCarro": "G-01", "toneladasNetasCarro": "1.000",
                 "contenedor": [{"tipoContenedor": "TC01", "pesoContenedorVacio": "2.000", "pesoNetoMercancia": "1.000"}]}]
    }
  },
  "figuraTransporte": [{"tipoFigura": "04", "rfcFigura": "XIA190128J61", "nombreFigura": "NOTIFICADO SA"}]
}"#;

/// The Comercio Exterior 2.0 of an export sale to the United States.
pub const EXPORTACION: &str = r#"{
  "claveDePedimento": "A1", "certificadoOrigen": 0, "incoterm": "FOB", "tipoCambioUSD": "17.2545",
  "emisor": {"domicilio": {"calle": "Av. Industria", "numeroExterior": "100", "estado": "TAB", "pais": "MEX", "codigoPostal": "86000"}},
  "receptor": {"domicilio": {"calle": "Main St", "numeroExterior": "500", "estado": "TX", "pais": "USA", "codigoPostal": "78701"}},
  "mercancias": [
    {"noIdentificacion": "LAP-14", "fraccionArancelaria": "8471300101", "cantidadAduana": "2", "unidadAduana": "06",
     "valorUnitarioAduana": "950.00", "valorDolares": "1900.00",
     "descripcionesEspecificas": [{"marca": "ACME", "modelo": "X14", "numeroSerie": "SN-0001"}]},
    {"noIdentificacion": "MOU-01", "fraccionArancelaria": "8471300199", "cantidadAduana": "1", "unidadAduana": "06",
     "valorUnitarioAduana": "100.00", "valorDolares": 100}
  ]
}"#;

/// Deterministic IdCCP of each document.
fn generador(semilla: u8) -> impl FnOnce() -> String {
    move || id_ccp([semilla; 16])
}

fn con_carta_porte(mut c: timbra_cfdi::construccion::NuevoComprobante, json: &str, semilla: u8) -> Comprobante {
    let carta_porte = carta_porte::construir(json, generador(semilla)).unwrap();
    c.complementos.push(Complemento::CartaPorte(Box::new(carta_porte)));
    c.construir().unwrap()
}

/// A carrier's freight invoice carrying the Carta Porte of `json`: IVA 16% and the 4% IVA
/// withheld on freight.
fn flete(json: &str) -> Comprobante {
    let mut flete = NuevoConcepto::new(
        "78101802",
        dec!(1),
        "E48",
        "Flete de gasolina y tarimas CDMX-Puebla-Veracruz",
        dec!(28500),
        ObjetoImp::SiObjeto,
    );
    flete.impuestos = Some(vec![NuevoImpuesto::iva(dec!(0.16)), NuevoImpuesto::retencion_iva(dec!(0.04))]);
    let mut carga = ingreso(vec![flete]);
    carga.serie = Some("F".into());
    carga.receptor = receptor_moral();
    con_carta_porte(carga, json, 0x22)
}

/// (file name, comprobante): the golden documents of issue 33.
pub fn documentos() -> Vec<(&'static str, Comprobante)> {
    let mut documentos = Vec::new();

    // Own goods moved by the issuer: tipo T, Moneda XXX, totals 0.
    let mut traslado = ingreso(vec![NuevoConcepto::new(
        "24112700",
        dec!(100),
        "XBX",
        "Cajas de cartón",
        dec!(0),
        ObjetoImp::NoObjeto,
    )]);
    traslado.tipo = TipoDeComprobante::Traslado;
    traslado.serie = Some("T".into());
    traslado.moneda = "XXX".into();
    traslado.forma_pago = None;
    traslado.metodo_pago = None;
    traslado.receptor = Receptor {
        rfc: "EKU9003173C9".into(),
        nombre: "ESCUELA KEMPER URGATE".into(),
        domicilio_fiscal_receptor: "86000".into(),
        residencia_fiscal: None,
        num_reg_id_trib: None,
        regimen_fiscal_receptor: "601".into(),
        uso_cfdi: "S01".into(),
    };
    documentos.push(("T_carta_porte", con_carta_porte(traslado.clone(), TRASLADO, 0x11)));

    documentos.push(("I_carta_porte_peligroso", flete(PELIGROSO)));

    let mut internacional = traslado.clone();
    internacional.folio = Some("1002".into());
    documentos.push(("T_carta_porte_internacional", con_carta_porte(internacional, INTERNACIONAL, 0x33)));

    let mut intermodal = traslado;
    intermodal.folio = Some("1003".into());
    documentos.push(("T_carta_porte_intermodal", con_carta_porte(intermodal, INTERMODAL, 0x44)));

    // An export sale in dollars to a receiver abroad.
    let mut laptop = NuevoConcepto::new("43211503", dec!(2), "H87", "Laptop X14", dec!(950), ObjetoImp::SiObjeto);
    laptop.no_identificacion = Some("LAP-14".into());
    laptop.impuestos = Some(vec![NuevoImpuesto::iva(dec!(0))]);
    let mut mouse = NuevoConcepto::new("43211708", dec!(1), "H87", "Mouse inalámbrico", dec!(100), ObjetoImp::SiObjeto);
    mouse.no_identificacion = Some("MOU-01".into());
    mouse.impuestos = Some(vec![NuevoImpuesto::iva(dec!(0))]);
    let mut exportacion = ingreso(vec![laptop, mouse]);
    exportacion.serie = Some("E".into());
    exportacion.moneda = "USD".into();
    exportacion.tipo_cambio = Some(dec!(17.2545));
    exportacion.forma_pago = Some(FormaPago::TransferenciaElectronica);
    exportacion.metodo_pago = Some(MetodoPago::Pue);
    exportacion.exportacion = Exportacion::DefinitivaA1;
    exportacion.receptor = Receptor {
        rfc: "XEXX010101000".into(),
        nombre: "ACME INC".into(),
        domicilio_fiscal_receptor: "86000".into(),
        residencia_fiscal: Some("USA".into()),
        num_reg_id_trib: Some("123456789".into()),
        regimen_fiscal_receptor: "616".into(),
        uso_cfdi: "S01".into(),
    };
    exportacion.emisor = emisor();
    let cce = comercio_exterior::construir(EXPORTACION).unwrap();
    exportacion.complementos.push(Complemento::ComercioExterior(Box::new(cce)));
    documentos.push(("I_comercio_exterior", exportacion.construir().unwrap()));
    documentos
}

#[test]
fn validos_y_de_vuelta_al_mismo_modelo() {
    for (nombre, comprobante) in documentos() {
        let informe = validacion::validar(&comprobante, &SinCatalogos);
        assert!(informe.es_valido(), "{nombre}: {:?}", informe.problemas);
        let xml = escritura::escribir(&comprobante).unwrap();
        let leido = parser::parsear(&xml).unwrap();
        assert_eq!(leido, comprobante, "{nombre}: el XML no se lee al mismo modelo");
        assert_eq!(
            cadena::desde_comprobante(&comprobante).unwrap(),
            cadena::desde_xml(&xml).unwrap(),
            "{nombre}: cadena del modelo ≠ cadena del XML"
        );
    }
}

#[test]
fn lo_derivado_por_el_constructor() {
    let documentos = documentos();
    let peligroso = documentos[1].1.carta_porte().unwrap();
    assert_eq!(peligroso.id_ccp, "CCC22222-2222-4222-A222-222222222222");
    assert_eq!(peligroso.total_dist_rec.as_ref().map(|n| n.texto()), Some("340.5"));
    assert_eq!(peligroso.mercancias.peso_bruto_total.texto(), "15250.5");
    assert_eq!(peligroso.mercancias.num_total_mercancias.texto(), "2");
    let cce = documentos[4].1.comercio_exterior().unwrap();
    assert_eq!((cce.version.as_str(), cce.total_usd.texto()), ("2.0", "2000.00"));
    assert_eq!(documentos[4].1.total.texto(), "2000.00");
}

/// What a response returns: the complement as the API's JSON, read back into an equal model.
#[test]
fn json_de_ida_y_vuelta() {
    for (nombre, comprobante) in documentos() {
        if let Some(cp) = comprobante.carta_porte() {
            let json = carta_porte::a_json(cp);
            assert_eq!(&carta_porte::desde_json(&json).unwrap(), cp, "{nombre}: {json}");
        }
        if let Some(cce) = comprobante.comercio_exterior() {
            let json = comercio_exterior::a_json(cce);
            assert_eq!(&comercio_exterior::desde_json(&json).unwrap(), cce, "{nombre}: {json}");
        }
    }
    let traslado = carta_porte::construir(TRASLADO, generador(0x11)).unwrap();
    let json = carta_porte::a_json(&traslado);
    assert!(json.starts_with(r#"{"version":"3.1","idCCP":"CCC11111-1111-4111-9111-111111111111","transpInternac":"No","totalDistRec":"250","ubicaciones":[{"tipoUbicacion":"Origen""#), "{json}");
    assert!(json.contains(r#""numTotalMercancias":1,"#) && json.contains(r#""anioModeloVM":2020}"#), "{json}");
}

/// A body that breaks rules gets each problem with its rule id, the SAT path and the JSON path
/// of the member to fix.
#[test]
fn un_cuerpo_que_falla_dice_que_corregir() {
    let cuerpo = PELIGROSO
        .replace(r#""aseguraMedAmbiente": "ECOSEGUROS SA", "polizaMedAmbiente": "MA-998877","#, "")
        .replace(r#""remolques": [{"subTipoRem": "CTR004", "placa": "47XY2Z"}]"#, r#""remolques": []"#)
        .replace(r#""idDestino": "DE000002""#, r#""idDestino": "DE000009""#);
    let informe = validacion::validar(&flete(&cuerpo), &SinCatalogos);
    let problemas: Vec<(&str, String)> = informe.problemas.iter().map(|p| (p.regla, ruta_json(&p.campo))).collect();
    for esperado in [
        ("CP31_SEGURO_AMBIENTAL", "cartaPorte.mercancias.autotransporte.seguros.aseguraMedAmbiente"),
        ("CP31_SEGURO_AMBIENTAL", "cartaPorte.mercancias.autotransporte.seguros.polizaMedAmbiente"),
        ("CP31_REMOLQUE", "cartaPorte.mercancias.autotransporte.remolques"),
        ("CP31_CANTIDAD_TRANSPORTA", "cartaPorte.mercancias.mercancia[0].cantidadTransporta[1].idDestino"),
    ] {
        assert!(
            problemas.iter().any(|(regla, ruta)| (*regla, ruta.as_str()) == esperado),
            "{esperado:?}: {problemas:?}"
        );
    }
    assert_eq!(problemas.len(), 4, "{problemas:?}");
    assert!(informe.problemas.iter().all(|p| !p.mensaje.is_empty()));
}
