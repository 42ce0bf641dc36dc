//! Batches of received invoices to serve: CFDI 4.0 issued by a generated taxpayer to a
//! given receiver, sealed with the issuer's generated CSD and stamped (TFD 1.1) with a
//! generated stamping certificate, as SAT's packages carry them. For tests, benchmarks and
//! local development (`timbra sim sat --generate`).

use std::sync::Arc;

use rust_decimal::Decimal;
use timbra_cfdi::catalogos::{Exportacion, FormaPago, MetodoPago, ObjetoImp, TipoDeComprobante};
use timbra_cfdi::construccion::{NuevoComprobante, NuevoConcepto};
use timbra_cfdi::timbre::{self, DatosTimbre};
use timbra_cfdi::{Emisor, Receptor, escritura, sello};
use timbra_credentials::testgen::{self, Options};
use timbra_credentials::{Certificate, Credential};
use time::macros::datetime;
use time::{Duration, PrimitiveDateTime};

use super::DocumentoSim;

/// RFC of the generated issuer of every batch.
pub const RFC_EMISOR_LOTE: &str = "XIA190128J61";

/// The generated credentials a batch is sealed and stamped with.
#[derive(Clone)]
pub struct Firmantes {
    /// The issuer's RFC.
    pub rfc_emisor: String,
    /// The issuer's CSD.
    pub csd_emisor: Arc<Credential>,
    /// The stamping certificate that signs `SelloSAT` (put its `.cer` in the folder of
    /// `TIMBRA_SAT_CERTS_DIR` to have it verified).
    pub sat: Arc<Credential>,
}

impl Firmantes {
    /// Generates both for [`RFC_EMISOR_LOTE`] (two RSA keys: tens of milliseconds), valid
    /// 2020–2040.
    ///
    /// # Errors
    /// Key generation failure.
    pub fn generar() -> Result<Self, timbra_credentials::Error> {
        Self::generar_para(RFC_EMISOR_LOTE)
    }

    /// As [`Firmantes::generar`] for another issuer.
    ///
    /// # Errors
    /// Key generation failure.
    pub fn generar_para(rfc_emisor: &str) -> Result<Self, timbra_credentials::Error> {
        let desde = datetime!(2020-01-01 00:00 UTC);
        let hasta = datetime!(2040-01-01 00:00 UTC);
        let csd = testgen::generate(&Options::csd(rfc_emisor, "XENON INDUSTRIAL ARTICLES", desde, hasta))?;
        let sat = testgen::generate(&Options::csd(
            crate::pac::RFC_CERTIFICADO_PAC,
            "SAT PRUEBAS SIMULADOR TIMBRA",
            desde,
            hasta,
        ))?;
        Ok(Firmantes {
            rfc_emisor: rfc_emisor.to_owned(),
            csd_emisor: Arc::new(csd.credential()?),
            sat: Arc::new(sat.credential()?),
        })
    }

    /// The stamping certificate (to write as `<NoCertificado>.cer`).
    pub fn certificado_sat(&self) -> &Certificate {
        self.sat.certificate()
    }
}

/// `cantidad` received invoices for `receptor`, dated from `desde` one minute apart
/// (issuer's local time), each with one line and 16% IVA.
///
/// # Errors
/// A document that cannot be built, sealed or stamped (message).
pub fn recibidos(
    firmantes: &Firmantes,
    receptor: &str,
    nombre_receptor: &str,
    desde: PrimitiveDateTime,
    cantidad: usize,
) -> Result<Vec<DocumentoSim>, String> {
    let formato = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    (0..cantidad)
        .map(|n| {
            let minutos = i64::try_from(n).unwrap_or(i64::MAX);
            let fecha = desde + Duration::minutes(minutos);
            let fecha_texto = fecha.format(formato).map_err(|e| e.to_string())?;
            let timbrado = (fecha + Duration::seconds(40)).format(formato).map_err(|e| e.to_string())?;
            let valor = Decimal::new(10_000 + i64::try_from(n % 5_000).unwrap_or(0) * 137, 2);
            let nuevo = NuevoComprobante {
                tipo: TipoDeComprobante::Ingreso,
                serie: Some("R".into()),
                folio: Some((n + 1).to_string()),
                fecha: fecha_texto,
                forma_pago: Some(FormaPago::TransferenciaElectronica),
                metodo_pago: Some(MetodoPago::Pue),
                condiciones_de_pago: None,
                moneda: "MXN".into(),
                tipo_cambio: None,
                exportacion: Exportacion::NoAplica,
                lugar_expedicion: "86000".into(),
                emisor: Emisor {
                    rfc: firmantes.rfc_emisor.clone(),
                    nombre: "XENON INDUSTRIAL ARTICLES".into(),
                    regimen_fiscal: "601".into(),
                    fac_atr_adquirente: None,
                },
                receptor: Receptor {
                    rfc: receptor.into(),
                    nombre: nombre_receptor.into(),
                    domicilio_fiscal_receptor: "42501".into(),
                    residencia_fiscal: None,
                    num_reg_id_trib: None,
                    regimen_fiscal_receptor: "601".into(),
                    uso_cfdi: "G03".into(),
                },
                informacion_global: None,
                cfdi_relacionados: Vec::new(),
                conceptos: vec![NuevoConcepto::new(
                    "43211500",
                    Decimal::ONE,
                    "H87",
                    "Computadora portátil",
                    valor,
                    ObjetoImp::SiObjeto,
                )],
                impuestos_locales: None,
                complementos: Vec::new(),
            };
            let mut comprobante = nuevo.construir().map_err(|e| e.to_string())?;
            sello::sellar(&mut comprobante, firmantes.csd_emisor.as_ref()).map_err(|e| e.to_string())?;
            let datos = DatosTimbre {
                uuid: uuid::Uuid::new_v4().to_string().to_uppercase(),
                fecha_timbrado: timbrado,
                rfc_prov_certif: crate::pac::RFC_PROV_CERTIF.into(),
                leyenda: None,
            };
            timbre::timbrar(&mut comprobante, datos, firmantes.sat.as_ref()).map_err(|e| e.to_string())?;
            let xml = escritura::escribir(&comprobante).map_err(|e| e.to_string())?;
            DocumentoSim::desde_xml(&xml)
        })
        .collect()
}

/// The Dividendos 1.0 complement of [`retenciones_recibidas`]'s second document (kept raw by
/// `timbra_retenciones`).
pub const DIVIDENDOS: &str = concat!(
    r#"<dividendos:Dividendos xmlns:dividendos="http://www.sat.gob.mx/esquemas/retencionpago/1/dividendos" "#,
    r#"Version="1.0"><dividendos:DividOUtil CveTipDivOUtil="01" MontISRAcredRetMexico="1500.00" "#,
    r#"MontISRAcredRetExtranjero="0.00" TipoSocDistrDiv="Sociedad Nacional" MontISRAcredNal="1500.00" "#,
    r#"MontDivAcumNal="10000.00" MontDivAcumExt="0.00"/><dividendos:Remanente ProporcionRem="0.50"/>"#,
    r#"</dividendos:Dividendos>"#
);

/// Two retention documents issued by the batch's issuer to `receptor` (the retention service's
/// documents), dated `desde` and one hour later (`FechaExp`, issuer's local time), sealed and
/// stamped like [`recibidos`]:
///
/// 1. a digital platform's month (c_CveRetenc 26) with the Servicios de Plataformas
///    Tecnológicas 1.0 complement: 1,500.00 of services, 151.50 withheld (ISR 31.50, IVA 120.00);
/// 2. dividends (c_CveRetenc 14) with the Dividendos 1.0 complement ([`DIVIDENDOS`]): 10,000.00
///    paid, 1,000.00 of ISR withheld.
///
/// # Errors
/// A document that cannot be built, sealed or stamped (message).
pub fn retenciones_recibidas(
    firmantes: &Firmantes,
    receptor: &str,
    nombre_receptor: &str,
    desde: PrimitiveDateTime,
) -> Result<Vec<DocumentoSim>, String> {
    let formato = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    let (mes, ejercicio) = (u8::from(desde.month()).to_string(), desde.year().to_string());
    let dia =
        desde.date().format(time::macros::format_description!("[year]-[month]-[day]")).map_err(|e| e.to_string())?;
    let receptor_json = serde_json::json!({
        "nacionalidad": "Nacional", "rfcR": receptor, "nomDenRazSocR": nombre_receptor, "domicilioFiscalR": "42501",
    });
    let plataformas = serde_json::json!({
        "lugarExpRetenc": "86000",
        "cveRetenc": "26",
        "receptor": receptor_json,
        "periodo": { "mesIni": mes, "mesFin": mes, "ejercicio": ejercicio },
        "totales": { "montoTotOperacion": "1500.00", "montoTotGrav": "1500.00", "montoTotExent": "0.00" },
        "impRetenidos": [
            { "baseRet": "1500.00", "impuestoRet": "001", "montoRet": "31.50", "tipoPagoRet": "01" },
            { "baseRet": "1500.00", "impuestoRet": "002", "montoRet": "120.00", "tipoPagoRet": "01" } ],
        "complementos": { "plataformasTecnologicas": {
            "periodicidad": "04",
            "servicios": [
                { "formaPagoServ": "03", "tipoDeServ": "03", "subTipServ": "04", "fechaServ": dia,
                  "precioServSinIVA": "1000.00",
                  "impuestosTrasladadosdelServicio": { "impuesto": "02", "tasaCuota": "0.160000" },
                  "comisionDelServicio": { "base": "1000.00", "porcentaje": "0.150", "importe": "150.00" } },
                { "formaPagoServ": "04", "tipoDeServ": "01", "fechaServ": dia, "precioServSinIVA": "500.00",
                  "impuestosTrasladadosdelServicio": { "impuesto": "02", "tasaCuota": "0.160000" },
                  "comisionDelServicio": { "importe": "75.00" } } ] } }
    });
    let dividendos = serde_json::json!({
        "lugarExpRetenc": "86000",
        "cveRetenc": "14",
        "receptor": receptor_json,
        "periodo": { "mesIni": mes, "mesFin": mes, "ejercicio": ejercicio },
        "totales": { "montoTotOperacion": "10000.00", "montoTotGrav": "10000.00", "montoTotExent": "0.00" },
        "impRetenidos": [ { "baseRet": "10000.00", "impuestoRet": "001", "montoRet": "1000.00", "tipoPagoRet": "01" } ]
    });
    [(plataformas, None), (dividendos, Some(DIVIDENDOS))]
        .into_iter()
        .enumerate()
        .map(|(n, (cuerpo, crudo))| {
            let fecha = desde + Duration::hours(i64::try_from(n).unwrap_or(0));
            let entrada: timbra_retenciones::EntradaRetenciones =
                serde_json::from_str(&cuerpo.to_string()).map_err(|e| e.to_string())?;
            let emisor = timbra_retenciones::Emisor {
                rfc_e: timbra_cfdi::tipos::Rfc::new(&firmantes.rfc_emisor).map_err(|e| e.to_string())?,
                nom_den_raz_soc_e: "XENON INDUSTRIAL ARTICLES".into(),
                regimen_fiscal_e: timbra_retenciones::catalogos::RegimenFiscal::desde_codigo("601")
                    .ok_or("régimen 601")?,
            };
            let mut retencion =
                timbra_retenciones::construir(&entrada, emisor, fecha).map_err(|problemas| format!("{problemas:?}"))?;
            retencion.folio_int = Some(format!("D{}", n + 1));
            if let Some(xml) = crudo {
                retencion.complementos.push(timbra_retenciones::Complemento::Otro(timbra_cfdi::model::XmlCrudo {
                    espacio: timbra_retenciones::cadena::NS_DIVIDENDOS.into(),
                    xml: xml.into(),
                }));
            }
            timbra_retenciones::sello::sellar(&mut retencion, firmantes.csd_emisor.as_ref())
                .map_err(|e| e.to_string())?;
            let datos = DatosTimbre {
                uuid: uuid::Uuid::new_v4().to_string().to_uppercase(),
                fecha_timbrado: (fecha + Duration::seconds(40)).format(formato).map_err(|e| e.to_string())?,
                rfc_prov_certif: crate::pac::RFC_PROV_CERTIF.into(),
                leyenda: None,
            };
            timbra_retenciones::sello::timbrar(&mut retencion, datos, firmantes.sat.as_ref())
                .map_err(|e| e.to_string())?;
            let xml = timbra_retenciones::escribir(&retencion).map_err(|e| e.to_string())?;
            DocumentoSim::desde_retencion(&xml)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_batch_verifies_like_sat_would_deliver_it() {
        let firmantes = Firmantes::generar().unwrap();
        let lote =
            recibidos(&firmantes, "EKU9003173C9", "ESCUELA KEMPER URGATE", datetime!(2026-10-05 09:00), 3).unwrap();
        assert_eq!(lote.len(), 3);
        for documento in &lote {
            assert_eq!(documento.rfc_receptor, "EKU9003173C9");
            assert!(sello::verificar_sello_xml(&documento.xml).is_ok());
            assert!(sello::verificar_timbre_xml(&documento.xml, firmantes.certificado_sat()).is_ok());
        }
        assert_eq!(lote[2].fecha, datetime!(2026-10-05 09:02));
    }

    #[test]
    fn retentions_verify_like_sat_would_deliver_them() {
        let firmantes = Firmantes::generar().unwrap();
        let lote =
            retenciones_recibidas(&firmantes, "EKU9003173C9", "ESCUELA KEMPER URGATE", datetime!(2026-10-05 09:00))
                .unwrap();
        assert_eq!(lote.len(), 2);
        for documento in &lote {
            assert_eq!((documento.rfc_receptor.as_str(), documento.tipo.as_str()), ("EKU9003173C9", "RET"));
            let retencion = timbra_retenciones::parsear(&documento.xml).unwrap();
            timbra_retenciones::sello::verificar_sello_xml(&documento.xml).unwrap();
            timbra_retenciones::sello::verificar_timbre(&retencion, firmantes.certificado_sat()).unwrap();
        }
        assert!(lote[0].xml.contains("plataformasTecnologicas:ServiciosPlataformasTecnologicas"));
        assert!(lote[1].xml.contains("dividendos:Dividendos"));
        assert_eq!((lote[0].total.as_str(), lote[1].total.as_str()), ("1500.00", "10000.00"));
        assert_eq!(lote[1].fecha, datetime!(2026-10-05 10:00));
    }
}
