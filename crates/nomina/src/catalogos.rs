//! The SAT catalogs of Nómina 1.2 (catNomina.xsd) an employee and an incidence are checked
//! against, and the Mexican states of c_Estado (ClaveEntFed). A test compares them with SAT's
//! schema when `../shared/sat` is present.

/// c_TipoContrato.
pub const TIPOS_CONTRATO: [&str; 11] = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "99"];

/// c_TipoJornada.
pub const TIPOS_JORNADA: [&str; 9] = ["01", "02", "03", "04", "05", "06", "07", "08", "99"];

/// c_TipoRegimen.
pub const TIPOS_REGIMEN: [&str; 13] = ["02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "99"];

/// c_TipoIncapacidad: 01 riesgo de trabajo, 02 enfermedad en general, 03 maternidad, 04 licencia
/// por cuidados médicos de hijos diagnosticados con cáncer.
pub const TIPOS_INCAPACIDAD: [&str; 4] = ["01", "02", "03", "04"];

/// c_TipoPercepcion.
pub const TIPOS_PERCEPCION: [&str; 47] = [
    "001", "002", "003", "004", "005", "006", "009", "010", "011", "012", "013", "014", "015", "019", "020", "021",
    "022", "023", "024", "025", "026", "027", "028", "029", "030", "031", "032", "033", "034", "035", "036", "037",
    "038", "039", "044", "045", "046", "047", "048", "049", "050", "051", "052", "053", "054", "055", "056",
];

/// c_TipoDeduccion: 001 to 113, every one in between.
pub fn es_tipo_deduccion(clave: &str) -> bool {
    clave.len() == 3 && clave.parse::<u16>().is_ok_and(|n| (1..=113).contains(&n))
}

/// c_Banco.
pub const BANCOS: [&str; 106] = [
    "002", "006", "009", "012", "014", "019", "021", "030", "032", "036", "037", "042", "044", "058", "059", "060",
    "062", "072", "102", "103", "106", "108", "110", "112", "113", "116", "124", "126", "127", "128", "129", "130",
    "131", "132", "133", "134", "135", "136", "137", "138", "139", "140", "141", "143", "145", "147", "148", "149",
    "150", "151", "152", "153", "154", "155", "156", "157", "158", "159", "160", "166", "168", "600", "601", "602",
    "605", "606", "607", "608", "610", "614", "615", "616", "617", "618", "619", "620", "621", "622", "623", "626",
    "627", "628", "629", "630", "631", "632", "633", "634", "636", "637", "638", "640", "642", "646", "647", "648",
    "649", "651", "652", "653", "655", "656", "659", "670", "901", "902",
];

/// c_Estado of Mexico (país MEX), CMX and the former DIF included.
pub const ESTADOS: [&str; 33] = [
    "AGU", "BCN", "BCS", "CAM", "CHP", "CHH", "COA", "COL", "CMX", "DIF", "DUR", "GUA", "GRO", "HID", "JAL", "MEX",
    "MIC", "MOR", "NAY", "NLE", "OAX", "PUE", "QUE", "ROO", "SLP", "SIN", "SON", "TAB", "TAM", "TLA", "VER", "YUC",
    "ZAC",
];

/// Whether the contract type is one of 01–08, which the employer registers with IMSS: then
/// the receipt carries RegistroPatronal, and the worker's NSS, FechaInicioRelLaboral,
/// Antigüedad, RiesgoPuesto and SalarioDiarioIntegrado (Nómina 1.2 NOM42/NOM44), and
/// TipoRegimen is 02, 03 or 04 (NOM57).
pub fn contrato_con_imss(tipo_contrato: &str) -> bool {
    TIPOS_CONTRATO[..8].contains(&tipo_contrato)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values of a simple type of catNomina.xsd.
    fn del_xsd(xsd: &str, tipo: &str) -> Vec<String> {
        let inicio = xsd.find(&format!("<xs:simpleType name=\"{tipo}\">")).unwrap();
        let fin = inicio + xsd[inicio..].find("</xs:simpleType>").unwrap();
        xsd[inicio..fin]
            .split("<xs:enumeration value=\"")
            .skip(1)
            .map(|parte| parte[..parte.find('"').unwrap()].to_owned())
            .collect()
    }

    #[test]
    fn the_lists_are_sats() {
        let Some(sat) = timbra_testkit::sat("xsd/catNomina.xsd") else { return };
        let xsd = std::fs::read_to_string(sat.join("xsd/catNomina.xsd")).unwrap();
        assert_eq!(del_xsd(&xsd, "c_TipoContrato"), TIPOS_CONTRATO);
        assert_eq!(del_xsd(&xsd, "c_TipoJornada"), TIPOS_JORNADA);
        assert_eq!(del_xsd(&xsd, "c_TipoRegimen"), TIPOS_REGIMEN);
        assert_eq!(del_xsd(&xsd, "c_TipoIncapacidad"), TIPOS_INCAPACIDAD);
        assert_eq!(del_xsd(&xsd, "c_TipoPercepcion"), TIPOS_PERCEPCION);
        assert_eq!(del_xsd(&xsd, "c_Banco"), BANCOS);
        let deducciones = del_xsd(&xsd, "c_TipoDeduccion");
        assert!(deducciones.iter().all(|d| es_tipo_deduccion(d)));
        assert_eq!(deducciones.len(), 113);
        assert!(!es_tipo_deduccion("114") && !es_tipo_deduccion("000") && !es_tipo_deduccion("1"));
        assert!(contrato_con_imss("08") && !contrato_con_imss("09"));
    }
}
