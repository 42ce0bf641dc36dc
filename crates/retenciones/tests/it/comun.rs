//! Shared helpers: locating SAT's files, the SAT test CSD and the pinned example inputs.

use std::path::{Path, PathBuf};

use timbra_cfdi::Rfc;
use timbra_credentials::Credential;
use timbra_retenciones::catalogos::RegimenFiscal;
use timbra_retenciones::{Emisor, EntradaRetenciones, Retenciones, construir};
use time::PrimitiveDateTime;
use time::macros::datetime;

/// SAT's files (`$TIMBRA_SAT_DIR`, else `../shared/sat`) when they and xmllint, xsltproc and
/// openssl are present; `None` after a reported skip otherwise (a failure under
/// `TIMBRA_REQUIRE_SAT=1`).
pub fn sat() -> Option<PathBuf> {
    let dir = timbra_testkit::sat("xslt/retenciones20/retenciones.xslt")?;
    timbra_testkit::tools(&["xmllint", "xsltproc", "openssl"]).then_some(dir)
}

/// A fresh scratch folder under the system's temp dir.
pub fn temporal(nombre: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timbra-retenciones-{}-{nombre}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The SAT test CSD of EKU9003173C9 (2023–2027).
pub fn csd(sat: &Path) -> Credential {
    let certs = sat.join("certs");
    let password = std::fs::read_to_string(certs.join("password.txt")).unwrap();
    Credential::open(
        &std::fs::read(certs.join("30001000000500003416.cer")).unwrap(),
        &std::fs::read(certs.join("30001000000500003416.key")).unwrap(),
        password.trim().as_bytes(),
    )
    .unwrap()
}

/// The pinned issue date of every document.
pub const FECHA_EXP: PrimitiveDateTime = datetime!(2026-11-20 10:30:00);

/// The issuer of every document: the SAT test taxpayer of the CSD.
pub fn emisor() -> Emisor {
    Emisor {
        rfc_e: Rfc::new("EKU9003173C9").unwrap(),
        nom_den_raz_soc_e: "ESCUELA KEMPER URGATE".into(),
        regimen_fiscal_e: RegimenFiscal::GeneralPersonasMorales,
    }
}

/// Builds from JSON, panicking with the problems when the input is refused.
pub fn construir_json(json: &str) -> Retenciones {
    let entrada: EntradaRetenciones = serde_json::from_str(json).unwrap();
    match construir(&entrada, emisor(), FECHA_EXP) {
        Ok(retenciones) => retenciones,
        Err(problemas) => panic!("{problemas:#?}"),
    }
}

/// Honorarios to a national receiver: ISR and IVA withheld, months as numbers and strings.
pub const NACIONAL: &str = r#"{
  "folioInt": "R100",
  "lugarExpRetenc": "86000",
  "cveRetenc": "01",
  "receptor": {"nacionalidad": "Nacional", "rfcR": "XIQB891116QE4", "nomDenRazSocR": "KARLA FUENTE NOLASCO",
               "curpR": "XIQB891116MVZXRR09", "domicilioFiscalR": "01030"},
  "periodo": {"mesIni": 1, "mesFin": "10", "ejercicio": 2026},
  "totales": {"montoTotOperacion": 25000, "montoTotGrav": "20000.5", "montoTotExent": "4999.50",
              "utilidadBimestral": "100.00", "isrCorrespondiente": "10.00"},
  "impRetenidos": [
    {"baseRet": "20000.50", "impuestoRet": "001", "montoRet": "2000.05", "tipoPagoRet": "04"},
    {"baseRet": "20000.50", "impuestoRet": "002", "montoRet": "2133.39", "tipoPagoRet": "01"}
  ]
}"#;

/// A payment to a foreign resident, "otro tipo de retenciones" with its description, and a
/// related document it replaces.
pub const EXTRANJERO: &str = r#"{
  "lugarExpRetenc": "86000",
  "cveRetenc": "25",
  "descRetenc": "Regalías por uso de software & licencias <internacionales>",
  "cfdiRetenRelacionados": {"tipoRelacion": "04", "uuid": "5F2A8C3E-1B7D-4E9A-9C0F-3D6B8A2E7100"},
  "receptor": {"nacionalidad": "Extranjero", "numRegIdTribR": "123456789", "nomDenRazSocR": "ACME SOFTWARE  LLC"},
  "periodo": {"mesIni": "03", "mesFin": "03", "ejercicio": "2026"},
  "totales": {"montoTotOperacion": "50000.00", "montoTotGrav": "50000.00", "montoTotExent": "0"},
  "impRetenidos": [{"baseRet": "50000", "impuestoRet": "001", "montoRet": "12500.00", "tipoPagoRet": "03"}]
}"#;

/// Servicios de Plataformas Tecnológicas: two services in October 2026, one with a
/// government contribution, both with the platform's commission.
pub const PLATAFORMAS: &str = r#"{
  "folioInt": "PT202610",
  "lugarExpRetenc": "86000",
  "cveRetenc": "26",
  "receptor": {"nacionalidad": "Nacional", "rfcR": "XIQB891116QE4", "nomDenRazSocR": "KARLA FUENTE NOLASCO",
               "domicilioFiscalR": "01030"},
  "periodo": {"mesIni": "10", "mesFin": "10", "ejercicio": "2026"},
  "totales": {"montoTotOperacion": "1500.00", "montoTotGrav": "1500.00", "montoTotExent": "0.00"},
  "impRetenidos": [
    {"baseRet": "1500.00", "impuestoRet": "001", "montoRet": "31.50", "tipoPagoRet": "01"},
    {"baseRet": "1500.00", "impuestoRet": "002", "montoRet": "120.00", "tipoPagoRet": "01"}
  ],
  "complementos": {"plataformasTecnologicas": {
    "periodicidad": "04",
    "servicios": [
      {"formaPagoServ": "03", "tipoDeServ": "03", "subTipServ": "04", "fechaServ": "2026-10-05",
       "precioServSinIVA": "1000.00",
       "impuestosTrasladadosdelServicio": {"impuesto": "02", "tasaCuota": "0.160000"},
       "contribucionGubernamental": {"impContrib": "30.00", "entidadDondePagaLaContribucion": "27"},
       "comisionDelServicio": {"base": "1000.00", "porcentaje": "0.150", "importe": "150.00"}},
      {"formaPagoServ": "04", "tipoDeServ": "01", "rfcTerceroAutorizado": "XIQB891116QE4",
       "fechaServ": "2026-10-28", "precioServSinIVA": "500.00",
       "impuestosTrasladadosdelServicio": {"impuesto": "02", "tasaCuota": 0.16, "importe": "80.00"},
       "comisionDelServicio": {"importe": "75.00"}}
    ]
  }}
}"#;
