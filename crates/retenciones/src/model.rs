//! The CFDI de Retenciones e Información de Pagos 2.0 model (`retencionpagov2.xsd`).
//!
//! Field names follow SAT's attribute names. Values are typed at the edge: catalog codes are
//! the enums of [`crate::catalogos`], amounts are [`Decimal`] (the scale is kept: `1000.00`
//! is written back as `1000.00`), dates are `time` values, RFCs and postal codes are the
//! checked types of timbra-cfdi. Free texts stay `String` and are checked by
//! [`crate::validacion`]. `Version` is not stored: the writer always writes `2.0` and the
//! parser refuses any other.

use rust_decimal::Decimal;
use time::{Date, PrimitiveDateTime};

pub use timbra_cfdi::model::XmlCrudo;
pub use timbra_cfdi::tfd::TimbreFiscalDigital;
use timbra_cfdi::{CodigoPostal, Rfc};

use crate::catalogos::{
    CveRetenc, EntidadFederativa, FormaPagoServ, Impuesto, Mes, Periodicidad, RegimenFiscal, SubTipoServ, TasaCuota,
    TipoDeServ, TipoImpuesto, TipoPagoRet, TipoRelacion,
};

/// Namespace of Retenciones 2.0.
pub const NS_RETENCIONES: &str = "http://www.sat.gob.mx/esquemas/retencionpago/2";
/// Location of the Retenciones 2.0 schema, for `xsi:schemaLocation`.
pub const XSD_RETENCIONES: &str = "http://www.sat.gob.mx/esquemas/retencionpago/2/retencionpagov2.xsd";
/// Namespace of Servicios de Plataformas Tecnológicas 1.0.
pub const NS_PLATAFORMAS: &str = "http://www.sat.gob.mx/esquemas/retencionpago/1/PlataformasTecnologicas10";
/// Location of the Servicios de Plataformas Tecnológicas 1.0 schema.
pub const XSD_PLATAFORMAS: &str =
    "http://www.sat.gob.mx/esquemas/retencionpago/1/PlataformasTecnologicas10/ServiciosPlataformasTecnologicas10.xsd";
/// `Version` of the document.
pub const VERSION: &str = "2.0";
/// `Version` of the Plataformas Tecnológicas complement.
pub const VERSION_PLATAFORMAS: &str = "1.0";

/// `retenciones:Retenciones`, the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Retenciones {
    /// `FolioInt`: the issuer's internal folio, `[0-9a-zA-Z]{1,20}`.
    pub folio_int: Option<String>,
    /// `Sello`: base64 RSA-SHA256 of the cadena original (empty before sealing).
    pub sello: String,
    /// `NoCertificado`: the 20-digit number of the issuer's CSD.
    pub no_certificado: String,
    /// `Certificado`: the CSD, DER in base64 (empty before sealing).
    pub certificado: String,
    /// `FechaExp`: `AAAA-MM-DDThh:mm:ss`, local time of the place of issue.
    pub fecha_exp: PrimitiveDateTime,
    /// `LugarExpRetenc`: postal code of the place of issue.
    pub lugar_exp_retenc: CodigoPostal,
    /// `CveRetenc` (c_CveRetenc).
    pub cve_retenc: CveRetenc,
    /// `DescRetenc`: required when `CveRetenc` is 25 (Otro tipo de retenciones).
    pub desc_retenc: Option<String>,
    /// `retenciones:CfdiRetenRelacionados`.
    pub cfdi_reten_relacionados: Option<CfdiRetenRelacionados>,
    /// `retenciones:Emisor`.
    pub emisor: Emisor,
    /// `retenciones:Receptor`.
    pub receptor: Receptor,
    /// `retenciones:Periodo`.
    pub periodo: Periodo,
    /// `retenciones:Totales`.
    pub totales: Totales,
    /// Children of `retenciones:Complemento`, in document order.
    pub complementos: Vec<Complemento>,
    /// `retenciones:Addenda`: its children as raw XML (not part of the cadena original).
    pub addenda: Option<XmlCrudo>,
}

/// `retenciones:CfdiRetenRelacionados`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfdiRetenRelacionados {
    /// `TipoRelacion` (c_TipoRelacion).
    pub tipo_relacion: TipoRelacion,
    /// `UUID` of the related retention document.
    pub uuid: String,
}

/// `retenciones:Emisor`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emisor {
    /// `RfcE`.
    pub rfc_e: Rfc,
    /// `NomDenRazSocE`: 1–254 characters.
    pub nom_den_raz_soc_e: String,
    /// `RegimenFiscalE` (c_RegimenFiscal).
    pub regimen_fiscal_e: RegimenFiscal,
}

/// `retenciones:Receptor`: `NacionalidadR` is the variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Receptor {
    /// `NacionalidadR="Nacional"` with `retenciones:Nacional`.
    Nacional(ReceptorNacional),
    /// `NacionalidadR="Extranjero"` with `retenciones:Extranjero`.
    Extranjero(ReceptorExtranjero),
}

impl Receptor {
    /// `NacionalidadR`.
    pub fn nacionalidad(&self) -> &'static str {
        match self {
            Receptor::Nacional(_) => "Nacional",
            Receptor::Extranjero(_) => "Extranjero",
        }
    }

    /// `NomDenRazSocR`.
    pub fn nom_den_raz_soc_r(&self) -> &str {
        match self {
            Receptor::Nacional(nacional) => &nacional.nom_den_raz_soc_r,
            Receptor::Extranjero(extranjero) => &extranjero.nom_den_raz_soc_r,
        }
    }
}

/// `retenciones:Receptor/retenciones:Nacional`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceptorNacional {
    /// `RfcR`.
    pub rfc_r: Rfc,
    /// `NomDenRazSocR`: 1–254 characters.
    pub nom_den_raz_soc_r: String,
    /// `CurpR` (tdCFDI `t_CURP`).
    pub curp_r: Option<String>,
    /// `DomicilioFiscalR`: the receiver's postal code.
    pub domicilio_fiscal_r: CodigoPostal,
}

/// `retenciones:Receptor/retenciones:Extranjero`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceptorExtranjero {
    /// `NumRegIdTribR`: foreign tax id, 1–20 characters.
    pub num_reg_id_trib_r: Option<String>,
    /// `NomDenRazSocR`: 1–300 characters.
    pub nom_den_raz_soc_r: String,
}

/// `retenciones:Periodo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Periodo {
    /// `MesIni` (c_Periodo).
    pub mes_ini: Mes,
    /// `MesFin` (c_Periodo).
    pub mes_fin: Mes,
    /// `Ejercicio` (c_Ejercicio): the fiscal year.
    pub ejercicio: u16,
}

/// `retenciones:Totales`. Amounts are tdCFDI `t_ImporteMXN` (two decimals at most).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Totales {
    /// `MontoTotOperacion`.
    pub monto_tot_operacion: Decimal,
    /// `MontoTotGrav`.
    pub monto_tot_grav: Decimal,
    /// `MontoTotExent`.
    pub monto_tot_exent: Decimal,
    /// `MontoTotRet`: the sum of `ImpRetenidos/@MontoRet`.
    pub monto_tot_ret: Decimal,
    /// `UtilidadBimestral`.
    pub utilidad_bimestral: Option<Decimal>,
    /// `ISRCorrespondiente`.
    pub isr_correspondiente: Option<Decimal>,
    /// `retenciones:ImpRetenidos`.
    pub imp_retenidos: Vec<ImpRetenidos>,
}

/// `retenciones:Totales/retenciones:ImpRetenidos`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImpRetenidos {
    /// `BaseRet`.
    pub base_ret: Option<Decimal>,
    /// `ImpuestoRet` (c_Impuesto): 001 ISR, 002 IVA, 003 IEPS.
    pub impuesto_ret: Option<Impuesto>,
    /// `MontoRet`.
    pub monto_ret: Decimal,
    /// `TipoPagoRet` (c_TipoPagoRet).
    pub tipo_pago_ret: TipoPagoRet,
}

/// One child of `retenciones:Complemento`.
#[derive(Clone, Debug, PartialEq)]
pub enum Complemento {
    /// Servicios de Plataformas Tecnológicas 1.0.
    PlataformasTecnologicas(Box<ServiciosPlataformasTecnologicas>),
    /// Timbre fiscal digital 1.1 added by the PAC.
    TimbreFiscalDigital(Box<TimbreFiscalDigital>),
    /// Any other complement (dividendos, intereses, pagosaextranjeros, arrendamiento en
    /// fideicomiso…), kept as raw XML.
    Otro(XmlCrudo),
}

/// `plataformasTecnologicas:ServiciosPlataformasTecnologicas` (version 1.0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiciosPlataformasTecnologicas {
    /// `Periodicidad` (c_Periodicidad).
    pub periodicidad: Periodicidad,
    /// `NumServ`: number of operations in the period (the `DetallesDelServicio` count).
    pub num_serv: u32,
    /// `MonTotServSIVA`: total of the operations without IVA.
    pub mon_tot_serv_siva: Decimal,
    /// `TotalIVATrasladado`.
    pub total_iva_trasladado: Decimal,
    /// `TotalIVARetenido`.
    pub total_iva_retenido: Decimal,
    /// `TotalISRRetenido`.
    pub total_isr_retenido: Decimal,
    /// `DifIVAEntregadoPrestServ`: IVA handed to the provider (trasladado − retenido).
    pub dif_iva_entregado_prest_serv: Decimal,
    /// `MonTotalporUsoPlataforma`: the platform's commissions in the period.
    pub mon_totalpor_uso_plataforma: Decimal,
    /// `MonTotalContribucionGubernamental`: sum of `ContribucionGubernamental/@ImpContrib`.
    pub mon_total_contribucion_gubernamental: Option<Decimal>,
    /// `Servicios/DetallesDelServicio`, at least one.
    pub servicios: Vec<DetallesDelServicio>,
}

/// `plataformasTecnologicas:DetallesDelServicio`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetallesDelServicio {
    /// `FormaPagoServ` (c_FormaPagoServ).
    pub forma_pago_serv: FormaPagoServ,
    /// `TipoDeServ` (c_TipoDeServ).
    pub tipo_de_serv: TipoDeServ,
    /// `SubTipServ` (c_SubTipoServ).
    pub sub_tip_serv: Option<SubTipoServ>,
    /// `RFCTerceroAutorizado` (tdCFDI `t_RFC_PF`: a persona física).
    pub rfc_tercero_autorizado: Option<Rfc>,
    /// `FechaServ`: the day the customer paid.
    pub fecha_serv: Date,
    /// `PrecioServSinIVA`.
    pub precio_serv_sin_iva: Decimal,
    /// `ImpuestosTrasladadosdelServicio`.
    pub impuestos_trasladados_del_servicio: Option<ImpuestosTrasladadosDelServicio>,
    /// `ContribucionGubernamental`.
    pub contribucion_gubernamental: Option<ContribucionGubernamental>,
    /// `ComisionDelServicio`.
    pub comision_del_servicio: Option<ComisionDelServicio>,
}

/// `plataformasTecnologicas:ImpuestosTrasladadosdelServicio` (`TipoFactor` is fixed `Tasa`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImpuestosTrasladadosDelServicio {
    /// `Base`.
    pub base: Decimal,
    /// `Impuesto` (c_TipoImpuesto).
    pub impuesto: TipoImpuesto,
    /// `TasaCuota` (c_TasaCuota).
    pub tasa_cuota: TasaCuota,
    /// `Importe`.
    pub importe: Decimal,
}

/// `plataformasTecnologicas:ContribucionGubernamental`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContribucionGubernamental {
    /// `ImpContrib`.
    pub imp_contrib: Decimal,
    /// `EntidadDondePagaLaContribucion` (c_EntidadesFederativas).
    pub entidad_donde_paga_la_contribucion: EntidadFederativa,
}

/// `plataformasTecnologicas:ComisionDelServicio`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComisionDelServicio {
    /// `Base`.
    pub base: Option<Decimal>,
    /// `Porcentaje`: 0.001 to 1.0, three decimals at most.
    pub porcentaje: Option<Decimal>,
    /// `Importe`.
    pub importe: Decimal,
}

impl Retenciones {
    /// The TimbreFiscalDigital complement, if the document is stamped.
    pub fn timbre(&self) -> Option<&TimbreFiscalDigital> {
        self.complementos.iter().find_map(|complemento| match complemento {
            Complemento::TimbreFiscalDigital(tfd) => Some(tfd.as_ref()),
            _ => None,
        })
    }

    /// The Servicios de Plataformas Tecnológicas complement, if present.
    pub fn plataformas_tecnologicas(&self) -> Option<&ServiciosPlataformasTecnologicas> {
        self.complementos.iter().find_map(|complemento| match complemento {
            Complemento::PlataformasTecnologicas(plataformas) => Some(plataformas.as_ref()),
            _ => None,
        })
    }
}

/// `FechaExp` as the XML writes it: `AAAA-MM-DDThh:mm:ss`.
pub fn formato_fecha_hora(fecha: PrimitiveDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        fecha.year(),
        u8::from(fecha.month()),
        fecha.day(),
        fecha.hour(),
        fecha.minute(),
        fecha.second()
    )
}

/// `FechaServ` as the XML writes it: `AAAA-MM-DD`.
pub fn formato_fecha(fecha: Date) -> String {
    format!("{:04}-{:02}-{:02}", fecha.year(), u8::from(fecha.month()), fecha.day())
}

/// Reads `AAAA-MM-DDThh:mm:ss` (tdCFDI `t_FechaH`, without fractions or offset).
pub fn leer_fecha_hora(texto: &str) -> Option<PrimitiveDateTime> {
    let b = texto.as_bytes();
    if b.len() != 19 || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let fecha = leer_fecha(&texto[..10])?;
    let numero = |rango: std::ops::Range<usize>| -> Option<u8> {
        let parte = &texto[rango];
        if parte.bytes().all(|c| c.is_ascii_digit()) { parte.parse().ok() } else { None }
    };
    let hora = time::Time::from_hms(numero(11..13)?, numero(14..16)?, numero(17..19)?).ok()?;
    Some(PrimitiveDateTime::new(fecha, hora))
}

/// Reads `AAAA-MM-DD` (tdCFDI `t_Fecha`).
pub fn leer_fecha(texto: &str) -> Option<Date> {
    let b = texto.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digitos = |parte: &str| parte.bytes().all(|c| c.is_ascii_digit());
    let (ano, mes, dia) = (&texto[..4], &texto[5..7], &texto[8..10]);
    if !digitos(ano) || !digitos(mes) || !digitos(dia) {
        return None;
    }
    let mes = time::Month::try_from(mes.parse::<u8>().ok()?).ok()?;
    Date::from_calendar_date(ano.parse().ok()?, mes, dia.parse().ok()?).ok()
}
