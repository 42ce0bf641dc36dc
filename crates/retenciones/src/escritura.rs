//! XML writer for the Retenciones 2.0 model.
//!
//! The document is written as SAT's examples are: UTF-8, the `retenciones` prefix for
//! `http://www.sat.gob.mx/esquemas/retencionpago/2`, the namespace and schema location of
//! each modelled complement declared on the root (`plataformasTecnologicas`; the TFD declares
//! its own, as PACs write it), attributes in the schema's order and no empty optional
//! attributes. Values XML 1.0 cannot carry are refused with [`ErrorEscritura`].

use rust_decimal::Decimal;
use timbra_cfdi::escritura::{ErrorEscritura, escapar_atributo};
use timbra_cfdi::model::NS_XSI;
use timbra_cfdi::tfd::{NS_TFD, XSD_TFD};
use timbra_cfdi::tipos::primer_caracter_no_xml;

use crate::model::*;

/// A start tag under construction; the first value XML cannot carry is kept as the error.
struct Etiqueta {
    nombre: &'static str,
    contenido: String,
    error: Option<ErrorEscritura>,
}

impl Etiqueta {
    fn new(nombre: &'static str) -> Self {
        let mut contenido = String::with_capacity(256);
        contenido.push('<');
        contenido.push_str(nombre);
        Self { nombre, contenido, error: None }
    }

    fn req(mut self, atributo: &str, valor: &str) -> Self {
        if self.error.is_none()
            && let Some((posicion, caracter)) = primer_caracter_no_xml(valor)
        {
            self.error = Some(ErrorEscritura {
                elemento: self.nombre.to_owned(),
                atributo: atributo.to_owned(),
                codigo: u32::from(caracter),
                posicion,
            });
        }
        self.contenido.push(' ');
        self.contenido.push_str(atributo);
        self.contenido.push_str("=\"");
        self.contenido.push_str(&escapar_atributo(valor));
        self.contenido.push('"');
        self
    }

    fn opt(self, atributo: &str, valor: Option<&str>) -> Self {
        match valor {
            Some(valor) => self.req(atributo, valor),
            None => self,
        }
    }

    fn dec(self, atributo: &str, valor: Decimal) -> Self {
        self.req(atributo, &valor.to_string())
    }

    fn opt_dec(self, atributo: &str, valor: Option<Decimal>) -> Self {
        match valor {
            Some(valor) => self.dec(atributo, valor),
            None => self,
        }
    }
}

/// The document being written.
struct Escritor {
    xml: String,
    error: Option<ErrorEscritura>,
}

impl Escritor {
    fn anotar(&mut self, error: Option<ErrorEscritura>) {
        if self.error.is_none() {
            self.error = error;
        }
    }

    fn abrir(&mut self, etiqueta: Etiqueta) {
        self.anotar(etiqueta.error);
        self.xml.push_str(&etiqueta.contenido);
        self.xml.push('>');
    }

    fn vacio(&mut self, etiqueta: Etiqueta) {
        self.anotar(etiqueta.error);
        self.xml.push_str(&etiqueta.contenido);
        self.xml.push_str("/>");
    }

    fn cerrar(&mut self, nombre: &str) {
        self.xml.push_str("</");
        self.xml.push_str(nombre);
        self.xml.push('>');
    }

    fn crudo(&mut self, padre: &str, xml: &str) {
        if let Some((posicion, caracter)) = primer_caracter_no_xml(xml) {
            self.anotar(Some(ErrorEscritura {
                elemento: padre.to_owned(),
                atributo: "*".to_owned(),
                codigo: u32::from(caracter),
                posicion,
            }));
        }
        self.xml.push_str(xml);
    }
}

/// Serialises a retention document to UTF-8 XML (no indentation).
///
/// # Errors
/// [`ErrorEscritura`] when a value holds a character XML 1.0 cannot carry.
pub fn escribir(r: &Retenciones) -> Result<String, ErrorEscritura> {
    let mut e = Escritor { xml: String::with_capacity(4096), error: None };
    e.xml.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    let con_plataformas = r.complementos.iter().any(|c| matches!(c, Complemento::PlataformasTecnologicas(_)));
    let mut ubicaciones = format!("{NS_RETENCIONES} {XSD_RETENCIONES}");
    let mut raiz = Etiqueta::new("retenciones:Retenciones").req("xmlns:retenciones", NS_RETENCIONES);
    if con_plataformas {
        raiz = raiz.req("xmlns:plataformasTecnologicas", NS_PLATAFORMAS);
        ubicaciones.push_str(&format!(" {NS_PLATAFORMAS} {XSD_PLATAFORMAS}"));
    }
    let raiz = raiz
        .req("xmlns:xsi", NS_XSI)
        .req("xsi:schemaLocation", &ubicaciones)
        .req("Version", VERSION)
        .opt("FolioInt", r.folio_int.as_deref())
        .req("Sello", &r.sello)
        .req("NoCertificado", &r.no_certificado)
        .req("Certificado", &r.certificado)
        .req("FechaExp", &formato_fecha_hora(r.fecha_exp))
        .req("LugarExpRetenc", r.lugar_exp_retenc.as_str())
        .req("CveRetenc", r.cve_retenc.codigo())
        .opt("DescRetenc", r.desc_retenc.as_deref());
    e.abrir(raiz);

    if let Some(relacionados) = &r.cfdi_reten_relacionados {
        e.vacio(
            Etiqueta::new("retenciones:CfdiRetenRelacionados")
                .req("TipoRelacion", relacionados.tipo_relacion.codigo())
                .req("UUID", &relacionados.uuid),
        );
    }
    e.vacio(
        Etiqueta::new("retenciones:Emisor")
            .req("RfcE", r.emisor.rfc_e.as_str())
            .req("NomDenRazSocE", &r.emisor.nom_den_raz_soc_e)
            .req("RegimenFiscalE", r.emisor.regimen_fiscal_e.codigo()),
    );
    e.abrir(Etiqueta::new("retenciones:Receptor").req("NacionalidadR", r.receptor.nacionalidad()));
    match &r.receptor {
        Receptor::Nacional(n) => e.vacio(
            Etiqueta::new("retenciones:Nacional")
                .req("RfcR", n.rfc_r.as_str())
                .req("NomDenRazSocR", &n.nom_den_raz_soc_r)
                .opt("CurpR", n.curp_r.as_deref())
                .req("DomicilioFiscalR", n.domicilio_fiscal_r.as_str()),
        ),
        Receptor::Extranjero(x) => e.vacio(
            Etiqueta::new("retenciones:Extranjero")
                .opt("NumRegIdTribR", x.num_reg_id_trib_r.as_deref())
                .req("NomDenRazSocR", &x.nom_den_raz_soc_r),
        ),
    }
    e.cerrar("retenciones:Receptor");
    e.vacio(
        Etiqueta::new("retenciones:Periodo")
            .req("MesIni", r.periodo.mes_ini.codigo())
            .req("MesFin", r.periodo.mes_fin.codigo())
            .req("Ejercicio", &r.periodo.ejercicio.to_string()),
    );
    let t = &r.totales;
    let totales = Etiqueta::new("retenciones:Totales")
        .dec("MontoTotOperacion", t.monto_tot_operacion)
        .dec("MontoTotGrav", t.monto_tot_grav)
        .dec("MontoTotExent", t.monto_tot_exent)
        .dec("MontoTotRet", t.monto_tot_ret)
        .opt_dec("UtilidadBimestral", t.utilidad_bimestral)
        .opt_dec("ISRCorrespondiente", t.isr_correspondiente);
    if t.imp_retenidos.is_empty() {
        e.vacio(totales);
    } else {
        e.abrir(totales);
        for imp in &t.imp_retenidos {
            e.vacio(
                Etiqueta::new("retenciones:ImpRetenidos")
                    .opt_dec("BaseRet", imp.base_ret)
                    .opt("ImpuestoRet", imp.impuesto_ret.map(|i| i.codigo()))
                    .dec("MontoRet", imp.monto_ret)
                    .req("TipoPagoRet", imp.tipo_pago_ret.codigo()),
            );
        }
        e.cerrar("retenciones:Totales");
    }
    if !r.complementos.is_empty() {
        e.abrir(Etiqueta::new("retenciones:Complemento"));
        for complemento in &r.complementos {
            match complemento {
                Complemento::PlataformasTecnologicas(p) => escribir_plataformas(&mut e, p),
                Complemento::TimbreFiscalDigital(tfd) => escribir_tfd(&mut e, tfd),
                Complemento::Otro(crudo) => e.crudo("retenciones:Complemento", &crudo.xml),
            }
        }
        e.cerrar("retenciones:Complemento");
    }
    if let Some(addenda) = &r.addenda {
        e.abrir(Etiqueta::new("retenciones:Addenda"));
        e.crudo("retenciones:Addenda", &addenda.xml);
        e.cerrar("retenciones:Addenda");
    }
    e.cerrar("retenciones:Retenciones");
    match e.error {
        Some(error) => Err(error),
        None => Ok(e.xml),
    }
}

fn escribir_plataformas(e: &mut Escritor, p: &ServiciosPlataformasTecnologicas) {
    e.abrir(
        Etiqueta::new("plataformasTecnologicas:ServiciosPlataformasTecnologicas")
            .req("Version", VERSION_PLATAFORMAS)
            .req("Periodicidad", p.periodicidad.codigo())
            .req("NumServ", &p.num_serv.to_string())
            .dec("MonTotServSIVA", p.mon_tot_serv_siva)
            .dec("TotalIVATrasladado", p.total_iva_trasladado)
            .dec("TotalIVARetenido", p.total_iva_retenido)
            .dec("TotalISRRetenido", p.total_isr_retenido)
            .dec("DifIVAEntregadoPrestServ", p.dif_iva_entregado_prest_serv)
            .dec("MonTotalporUsoPlataforma", p.mon_totalpor_uso_plataforma)
            .opt_dec("MonTotalContribucionGubernamental", p.mon_total_contribucion_gubernamental),
    );
    e.abrir(Etiqueta::new("plataformasTecnologicas:Servicios"));
    for s in &p.servicios {
        let etiqueta = Etiqueta::new("plataformasTecnologicas:DetallesDelServicio")
            .req("FormaPagoServ", s.forma_pago_serv.codigo())
            .req("TipoDeServ", s.tipo_de_serv.codigo())
            .opt("SubTipServ", s.sub_tip_serv.map(|sub| sub.codigo()))
            .opt("RFCTerceroAutorizado", s.rfc_tercero_autorizado.as_ref().map(|rfc| rfc.as_str()))
            .req("FechaServ", &formato_fecha(s.fecha_serv))
            .dec("PrecioServSinIVA", s.precio_serv_sin_iva);
        let con_hijos = s.impuestos_trasladados_del_servicio.is_some()
            || s.contribucion_gubernamental.is_some()
            || s.comision_del_servicio.is_some();
        if !con_hijos {
            e.vacio(etiqueta);
            continue;
        }
        e.abrir(etiqueta);
        if let Some(i) = &s.impuestos_trasladados_del_servicio {
            e.vacio(
                Etiqueta::new("plataformasTecnologicas:ImpuestosTrasladadosdelServicio")
                    .dec("Base", i.base)
                    .req("Impuesto", i.impuesto.codigo())
                    .req("TipoFactor", "Tasa")
                    .req("TasaCuota", i.tasa_cuota.codigo())
                    .dec("Importe", i.importe),
            );
        }
        if let Some(c) = &s.contribucion_gubernamental {
            e.vacio(
                Etiqueta::new("plataformasTecnologicas:ContribucionGubernamental")
                    .dec("ImpContrib", c.imp_contrib)
                    .req("EntidadDondePagaLaContribucion", c.entidad_donde_paga_la_contribucion.codigo()),
            );
        }
        if let Some(c) = &s.comision_del_servicio {
            e.vacio(
                Etiqueta::new("plataformasTecnologicas:ComisionDelServicio")
                    .opt_dec("Base", c.base)
                    .opt_dec("Porcentaje", c.porcentaje)
                    .dec("Importe", c.importe),
            );
        }
        e.cerrar("plataformasTecnologicas:DetallesDelServicio");
    }
    e.cerrar("plataformasTecnologicas:Servicios");
    e.cerrar("plataformasTecnologicas:ServiciosPlataformasTecnologicas");
}

/// The TFD with its own namespace and schema location, as PACs write it (`xsi` is declared
/// on the root).
fn escribir_tfd(e: &mut Escritor, t: &TimbreFiscalDigital) {
    e.vacio(
        Etiqueta::new("tfd:TimbreFiscalDigital")
            .req("xmlns:tfd", NS_TFD)
            .req("xsi:schemaLocation", &format!("{NS_TFD} {XSD_TFD}"))
            .req("Version", &t.version)
            .req("UUID", &t.uuid)
            .req("FechaTimbrado", &t.fecha_timbrado)
            .req("RfcProvCertif", &t.rfc_prov_certif)
            .opt("Leyenda", t.leyenda.as_deref())
            .req("SelloCFD", &t.sello_cfd)
            .req("NoCertificadoSAT", &t.no_certificado_sat)
            .req("SelloSAT", &t.sello_sat),
    );
}
