//! Codes of the small catalogs of SAT's `catCartaPorte.xsd`, copied from its enumerations; the large
//! ones (c_ClaveProdServCP, c_MaterialPeligroso, c_Estaciones, c_ClaveUnidadPeso, ...) are checked by
//! shape here and by membership through [`crate::catalogos::Catalogos::en_catalogo`].

/// c_RegimenAduanero.
pub(crate) const REGIMEN_ADUANERO: &[&str] = &["IMD", "EXD", "ITR", "ITE", "ETR", "ETE", "DFI", "RFE", "RFS", "TRA"];
/// c_CveTransporte.
pub(crate) const CVE_TRANSPORTE: &[&str] = &["01", "02", "03", "04", "05"];
/// c_TipoEstacion.
pub(crate) const TIPO_ESTACION: &[&str] = &["01", "02", "03"];
/// c_TipoEmbalaje.
pub(crate) const TIPO_EMBALAJE: &[&str] = &[
    "1A1", "1A2", "1B1", "1B2", "1D", "1G", "1H1", "1H2", "1N1", "1N2", "3A1", "3A2", "3B1", "3B2", "3H1", "3H2", "4A",
    "4B", "4C1", "4C2", "4D", "4F", "4G", "4H1", "4H2", "5H1", "5H2", "5H3", "5H4", "5L1", "5L2", "5L3", "5M1", "5M2",
    "6HA1", "6HA2", "6HB1", "6HB2", "6HC", "6HD1", "6HD2", "6HG1", "6HG2", "6HH1", "6HH2", "6PA1", "6PA2", "6PB1",
    "6PB2", "6PC", "6PD1", "6PD2", "6PG1", "6PG2", "6PH1", "6PH2", "7H1", "7L1", "Z01",
];
/// c_TipoPermiso.
pub(crate) const TIPO_PERMISO: &[&str] = &[
    "TPAF01", "TPAF02", "TPAF03", "TPAF04", "TPAF05", "TPAF06", "TPAF07", "TPAF08", "TPAF09", "TPAF10", "TPAF11",
    "TPAF12", "TPAF13", "TPAF14", "TPAF15", "TPAF16", "TPAF17", "TPAF18", "TPAF19", "TPAF20", "TPTM01", "TPTA01",
    "TPTA02", "TPTA03", "TPTA04", "TPXX00",
];
/// c_ConfigAutotransporte.
pub(crate) const CONFIG_AUTOTRANSPORTE: &[&str] = &[
    "C2", "C3", "C2R2", "C3R2", "C2R3", "C3R3", "T2S1", "T2S2", "T2S3", "T3S1", "T3S2", "T3S3", "T2S1R2", "T2S2R2",
    "T2S1R3", "T3S1R2", "T3S1R3", "T3S2R2", "T3S2R3", "T3S2R4", "T2S2S2", "T3S2S2", "T3S3S2", "OTROEV", "OTROEGP",
    "OTROSG", "VL", "OTROEVGP", "GPLUTA", "GPLUTB", "GPLUTC", "GPLUTD", "GPLATA", "GPLATB", "GPLATC", "GPLATD",
];
/// c_SubTipoRem.
pub(crate) const SUB_TIPO_REM: &[&str] = &[
    "CTR001", "CTR002", "CTR003", "CTR004", "CTR005", "CTR006", "CTR007", "CTR008", "CTR009", "CTR010", "CTR011",
    "CTR012", "CTR013", "CTR014", "CTR015", "CTR016", "CTR017", "CTR018", "CTR019", "CTR020", "CTR021", "CTR022",
    "CTR023", "CTR024", "CTR025", "CTR026", "CTR027", "CTR028", "CTR029", "CTR030", "CTR031", "CTR032",
];
/// c_ConfigMaritima.
pub(crate) const CONFIG_MARITIMA: &[&str] =
    &["B01", "B02", "B03", "B04", "B05", "B06", "B07", "B08", "B09", "B10", "B11", "B12", "B13", "B14", "B15"];
/// c_ClaveTipoCarga.
pub(crate) const CLAVE_TIPO_CARGA: &[&str] = &["CGS", "CGC", "GMN", "GAG", "OFL", "PYD"];
/// c_ContenedorMaritimo.
pub(crate) const CONTENEDOR_MARITIMO: &[&str] =
    &["CM001", "CM002", "CM003", "CM004", "CM005", "CM006", "CM007", "CM008", "CM009", "CM010", "CM011", "CM012"];
/// c_TipoDeServicio.
pub(crate) const TIPO_DE_SERVICIO: &[&str] = &["TS01", "TS02", "TS03", "TS04"];
/// c_TipoCarro.
pub(crate) const TIPO_CARRO: &[&str] =
    &["TC01", "TC02", "TC03", "TC04", "TC05", "TC06", "TC07", "TC08", "TC09", "TC10", "TC11"];
/// c_Contenedor.
pub(crate) const CONTENEDOR: &[&str] = &["TC01", "TC02", "TC03", "TC04", "TC05"];
/// c_TipoDeTrafico.
pub(crate) const TIPO_DE_TRAFICO: &[&str] = &["TT01", "TT02", "TT03", "TT04"];
/// c_FiguraTransporte.
pub(crate) const FIGURA_TRANSPORTE: &[&str] = &["01", "02", "03", "04", "05"];
/// c_ParteTransporte.
pub(crate) const PARTE_TRANSPORTE: &[&str] =
    &["PT01", "PT02", "PT03", "PT04", "PT05", "PT06", "PT07", "PT08", "PT09", "PT10", "PT11", "PT12"];
/// c_DocumentoAduanero.
pub(crate) const DOCUMENTO_ADUANERO: &[&str] = &[
    "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19",
    "20",
];
/// c_TipoMateria.
pub(crate) const TIPO_MATERIA: &[&str] = &["01", "02", "03", "04", "05"];
/// c_SectorCOFEPRIS.
pub(crate) const SECTOR_COFEPRIS: &[&str] = &["01", "02", "03", "04", "05"];
/// c_FormaFarmaceutica.
pub(crate) const FORMA_FARMACEUTICA: &[&str] = &[
    "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19",
    "20",
];
/// c_CondicionesEspeciales.
pub(crate) const CONDICIONES_ESPECIALES: &[&str] = &["01", "02", "03", "04"];
/// c_RegistroISTMO.
pub(crate) const REGISTRO_ISTMO: &[&str] = &["01", "02", "03", "04", "05", "06"];
