//! Native cadena original, byte-identical to SAT's `retenciones.xslt` (with `utilerias.xslt`
//! and `ServiciosPlataformasTecnologicas10.xslt`) run by `xsltproc`.
//!
//! The rules are those of CFDI 4.0: the cadena starts with `||` and ends with `||`; every
//! value is preceded by `|`; *Requerido* values are written even when the attribute is
//! missing, *Opcional* ones when the attribute exists (even empty); every value goes through
//! XPath `normalize-space`. The order is the stylesheet's: Version, NoCertificado, FolioInt,
//! FechaExp, LugarExpRetenc, CveRetenc, DescRetenc, then CfdiRetenRelacionados, Emisor,
//! Receptor (NacionalidadR, then Nacional or Extranjero), Periodo, Totales (its attributes,
//! then each ImpRetenidos) and the children of Complemento. The Addenda is not part of it.
//!
//! Inside `Complemento`, the TFD adds nothing (no template: XSLT's built-in rule copies its
//! text, and it has none); Servicios de Plataformas Tecnológicas follows its own stylesheet;
//! an element of a namespace the stylesheet has no template for adds its text content
//! verbatim (built-in rule); Dividendos 1.0 follows `dividendos.xslt` (received documents
//! carry it often); the other retention complements SAT's stylesheet includes (intereses,
//! pagosaextranjeros…) are not implemented here and give
//! [`ErrorCadena::ComplementoNoSoportado`], never a wrong cadena.
//!
//! Two entry points: [`desde_retenciones`] works on the model (used to seal) and
//! [`desde_xml`] on any document (received ones: the values are taken as written).

use roxmltree::{Document, Node};
use rust_decimal::Decimal;
use timbra_cfdi::cadena::normalizar_espacios;
use timbra_cfdi::parser::ErrorXml;

use crate::model::*;
use crate::parser::{es, hijo, hijos, nombre_expandido};

/// Namespaces of the complements `retenciones.xslt` has a stylesheet for, other than
/// Plataformas Tecnológicas (which this crate implements).
pub const ESPACIOS_CON_PLANTILLA: [&str; 11] = [
    "http://www.sat.gob.mx/esquemas/retencionpago/1/arrendamientoenfideicomiso",
    "http://www.sat.gob.mx/esquemas/retencionpago/1/dividendos",
    "http://www.sat.gob.mx/esquemas/retencionpago/1/enajenaciondeacciones",
    "http://www.sat.gob.mx/esquemas/retencionpago/1/fideicomisonoempresarial",
    "http://www.sat.gob.mx/esquemas/retencionpago/1/intereses",
    "http://www.sat.gob.mx/esquemas/retencionpago/1/intereseshipotecarios",
    "http://www.sat.gob.mx/esquemas/retencionpago/1/operacionesderivados",
    "http://www.sat.gob.mx/esquemas/retencionpago/1/pagosaextranjeros",
    "http://www.sat.gob.mx/esquemas/retencionpago/1/premios",
    "http://www.sat.gob.mx/esquemas/retencionpago/1/sectorfinanciero",
    "http://www.sat.gob.mx/esquemas/retencionpago/1/planesderetiro11",
];

/// Why a cadena original could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorCadena {
    /// The input (a document or a raw complement) is not well-formed XML.
    #[error(transparent)]
    Xml(#[from] ErrorXml),
    /// The root element is not `{http://www.sat.gob.mx/esquemas/retencionpago/2}Retenciones`.
    #[error("el elemento raíz es {encontrado}, se esperaba {{{NS_RETENCIONES}}}Retenciones")]
    RaizInesperada {
        /// Expanded name of the element found.
        encontrado: String,
    },
    /// A complement whose stylesheet this crate does not implement.
    #[error("complemento no soportado para la cadena original: {{{espacio}}}{nombre}")]
    ComplementoNoSoportado {
        /// Namespace URI of the complement.
        espacio: String,
        /// Local name of the complement element.
        nombre: String,
    },
}

/// Accumulates the cadena.
struct Cadena(String);

impl Cadena {
    fn new() -> Self {
        let mut texto = String::with_capacity(1024);
        texto.push('|');
        Self(texto)
    }

    /// utilerias.xslt `Requerido`.
    fn req(&mut self, valor: &str) {
        self.0.push('|');
        normalizar_espacios(&mut self.0, valor);
    }

    /// utilerias.xslt `Opcional`.
    fn opt(&mut self, valor: Option<&str>) {
        if let Some(valor) = valor {
            self.req(valor);
        }
    }

    fn dec(&mut self, valor: Decimal) {
        self.req(&valor.to_string());
    }

    fn opt_dec(&mut self, valor: Option<Decimal>) {
        if let Some(valor) = valor {
            self.dec(valor);
        }
    }

    fn terminar(mut self) -> String {
        self.0.push_str("||");
        self.0
    }
}

// ---------------------------------------------------------------------------------------
// From the model
// ---------------------------------------------------------------------------------------

/// Cadena original of a retention document from the model (used when sealing).
///
/// # Errors
/// [`ErrorCadena::ComplementoNoSoportado`] for a raw complement of a namespace whose
/// stylesheet is not implemented; [`ErrorCadena::Xml`] for a raw complement that is not XML.
pub fn desde_retenciones(r: &Retenciones) -> Result<String, ErrorCadena> {
    let mut k = Cadena::new();
    k.req(VERSION);
    k.req(&r.no_certificado);
    k.opt(r.folio_int.as_deref());
    k.req(&formato_fecha_hora(r.fecha_exp));
    k.req(r.lugar_exp_retenc.as_str());
    k.req(r.cve_retenc.codigo());
    k.opt(r.desc_retenc.as_deref());
    if let Some(relacionados) = &r.cfdi_reten_relacionados {
        k.req(relacionados.tipo_relacion.codigo());
        k.req(&relacionados.uuid);
    }
    k.req(r.emisor.rfc_e.as_str());
    k.req(&r.emisor.nom_den_raz_soc_e);
    k.req(r.emisor.regimen_fiscal_e.codigo());
    k.req(r.receptor.nacionalidad());
    match &r.receptor {
        Receptor::Nacional(n) => {
            k.req(n.rfc_r.as_str());
            k.req(&n.nom_den_raz_soc_r);
            k.opt(n.curp_r.as_deref());
            k.req(n.domicilio_fiscal_r.as_str());
        }
        Receptor::Extranjero(x) => {
            k.opt(x.num_reg_id_trib_r.as_deref());
            k.req(&x.nom_den_raz_soc_r);
        }
    }
    k.req(r.periodo.mes_ini.codigo());
    k.req(r.periodo.mes_fin.codigo());
    k.req(&r.periodo.ejercicio.to_string());
    let t = &r.totales;
    k.dec(t.monto_tot_operacion);
    k.dec(t.monto_tot_grav);
    k.dec(t.monto_tot_exent);
    k.dec(t.monto_tot_ret);
    k.opt_dec(t.utilidad_bimestral);
    k.opt_dec(t.isr_correspondiente);
    for imp in &t.imp_retenidos {
        k.opt_dec(imp.base_ret);
        k.opt(imp.impuesto_ret.map(|i| i.codigo()));
        k.dec(imp.monto_ret);
        k.req(imp.tipo_pago_ret.codigo());
    }
    for complemento in &r.complementos {
        match complemento {
            Complemento::PlataformasTecnologicas(p) => plataformas(&mut k, p),
            Complemento::TimbreFiscalDigital(_) => {}
            Complemento::Otro(crudo) => {
                let documento = timbra_cfdi::parser::documento(&crudo.xml)?;
                sin_plantilla(&mut k, documento.root_element())?;
            }
        }
    }
    Ok(k.terminar())
}

fn plataformas(k: &mut Cadena, p: &ServiciosPlataformasTecnologicas) {
    k.req(VERSION_PLATAFORMAS);
    k.req(p.periodicidad.codigo());
    k.req(&p.num_serv.to_string());
    k.dec(p.mon_tot_serv_siva);
    k.dec(p.total_iva_trasladado);
    k.dec(p.total_iva_retenido);
    k.dec(p.total_isr_retenido);
    k.dec(p.dif_iva_entregado_prest_serv);
    k.dec(p.mon_totalpor_uso_plataforma);
    k.opt_dec(p.mon_total_contribucion_gubernamental);
    for s in &p.servicios {
        k.req(s.forma_pago_serv.codigo());
        k.req(s.tipo_de_serv.codigo());
        k.opt(s.sub_tip_serv.map(|sub| sub.codigo()));
        k.opt(s.rfc_tercero_autorizado.as_ref().map(|rfc| rfc.as_str()));
        k.req(&formato_fecha(s.fecha_serv));
        k.dec(s.precio_serv_sin_iva);
        if let Some(i) = &s.impuestos_trasladados_del_servicio {
            k.dec(i.base);
            k.req(i.impuesto.codigo());
            k.req("Tasa");
            k.req(i.tasa_cuota.codigo());
            k.dec(i.importe);
        }
        if let Some(c) = &s.contribucion_gubernamental {
            k.dec(c.imp_contrib);
            k.req(c.entidad_donde_paga_la_contribucion.codigo());
        }
        if let Some(c) = &s.comision_del_servicio {
            k.opt_dec(c.base);
            k.opt_dec(c.porcentaje);
            k.dec(c.importe);
        }
    }
}

/// A complement child with no implemented template: the stylesheets SAT includes are
/// refused; any other element adds its text content (XSLT's built-in rule).
/// Namespace of the Dividendos 1.0 complement (`dividendos.xslt`).
pub const NS_DIVIDENDOS: &str = "http://www.sat.gob.mx/esquemas/retencionpago/1/dividendos";

/// `dividendos.xslt`: Version, then each `DividOUtil`'s attributes, then each `Remanente`'s.
fn dividendos(k: &mut Cadena, nodo: Node<'_, '_>) {
    let requerido = |k: &mut Cadena, n: Node<'_, '_>, nombre: &str| k.req(n.attribute(nombre).unwrap_or(""));
    let opcional = |k: &mut Cadena, n: Node<'_, '_>, nombre: &str| k.opt(n.attribute(nombre));
    requerido(k, nodo, "Version");
    for divid in hijos(nodo, NS_DIVIDENDOS, "DividOUtil") {
        requerido(k, divid, "CveTipDivOUtil");
        requerido(k, divid, "MontISRAcredRetMexico");
        requerido(k, divid, "MontISRAcredRetExtranjero");
        opcional(k, divid, "MontRetExtDivExt");
        requerido(k, divid, "TipoSocDistrDiv");
        opcional(k, divid, "MontISRAcredNal");
        opcional(k, divid, "MontDivAcumNal");
        opcional(k, divid, "MontDivAcumExt");
    }
    for remanente in hijos(nodo, NS_DIVIDENDOS, "Remanente") {
        opcional(k, remanente, "ProporcionRem");
    }
}

fn sin_plantilla(k: &mut Cadena, nodo: Node<'_, '_>) -> Result<(), ErrorCadena> {
    let espacio = nodo.tag_name().namespace().unwrap_or("");
    if espacio == NS_DIVIDENDOS && nodo.tag_name().name() == "Dividendos" {
        dividendos(k, nodo);
        return Ok(());
    }
    if ESPACIOS_CON_PLANTILLA.contains(&espacio) || espacio == NS_PLATAFORMAS {
        return Err(ErrorCadena::ComplementoNoSoportado {
            espacio: espacio.to_owned(),
            nombre: nodo.tag_name().name().to_owned(),
        });
    }
    texto_descendiente(k, nodo);
    Ok(())
}

/// XSLT's built-in rule for an element: the text of its descendants, verbatim.
fn texto_descendiente(k: &mut Cadena, nodo: Node<'_, '_>) {
    for descendiente in nodo.descendants().filter(Node::is_text) {
        k.0.push_str(descendiente.text().unwrap_or(""));
    }
}

// ---------------------------------------------------------------------------------------
// From the XML
// ---------------------------------------------------------------------------------------

/// Cadena original of any Retenciones 2.0 document, taking every value as written.
///
/// # Errors
/// Malformed XML, another root element, or a complement whose stylesheet is not implemented.
pub fn desde_xml(xml: &str) -> Result<String, ErrorCadena> {
    let documento = timbra_cfdi::parser::documento(xml)?;
    desde_documento(&documento)
}

/// As [`desde_xml`], on a parsed document.
///
/// # Errors
/// See [`desde_xml`].
pub fn desde_documento(documento: &Document<'_>) -> Result<String, ErrorCadena> {
    let r = documento.root_element();
    if !es(r, NS_RETENCIONES, "Retenciones") {
        return Err(ErrorCadena::RaizInesperada { encontrado: nombre_expandido(r) });
    }
    let mut k = Cadena::new();
    let req = |k: &mut Cadena, nodo: Node<'_, '_>, atributo: &str| k.req(nodo.attribute(atributo).unwrap_or(""));
    let opt = |k: &mut Cadena, nodo: Node<'_, '_>, atributo: &str| k.opt(nodo.attribute(atributo));
    req(&mut k, r, "Version");
    req(&mut k, r, "NoCertificado");
    opt(&mut k, r, "FolioInt");
    req(&mut k, r, "FechaExp");
    req(&mut k, r, "LugarExpRetenc");
    req(&mut k, r, "CveRetenc");
    opt(&mut k, r, "DescRetenc");
    for n in hijos(r, NS_RETENCIONES, "CfdiRetenRelacionados") {
        req(&mut k, n, "TipoRelacion");
        req(&mut k, n, "UUID");
    }
    for n in hijos(r, NS_RETENCIONES, "Emisor") {
        req(&mut k, n, "RfcE");
        req(&mut k, n, "NomDenRazSocE");
        req(&mut k, n, "RegimenFiscalE");
    }
    for n in hijos(r, NS_RETENCIONES, "Receptor") {
        req(&mut k, n, "NacionalidadR");
        if let Some(nacional) = hijo(n, NS_RETENCIONES, "Nacional") {
            req(&mut k, nacional, "RfcR");
            req(&mut k, nacional, "NomDenRazSocR");
            opt(&mut k, nacional, "CurpR");
            req(&mut k, nacional, "DomicilioFiscalR");
        }
        if let Some(extranjero) = hijo(n, NS_RETENCIONES, "Extranjero") {
            opt(&mut k, extranjero, "NumRegIdTribR");
            req(&mut k, extranjero, "NomDenRazSocR");
        }
    }
    for n in hijos(r, NS_RETENCIONES, "Periodo") {
        for atributo in ["MesIni", "MesFin", "Ejercicio"] {
            req(&mut k, n, atributo);
        }
    }
    for n in hijos(r, NS_RETENCIONES, "Totales") {
        for atributo in ["MontoTotOperacion", "MontoTotGrav", "MontoTotExent", "MontoTotRet"] {
            req(&mut k, n, atributo);
        }
        opt(&mut k, n, "UtilidadBimestral");
        opt(&mut k, n, "ISRCorrespondiente");
        for imp in hijos(n, NS_RETENCIONES, "ImpRetenidos") {
            // `apply-templates select="."`: no template matches ImpRetenidos, so the built-in
            // rule copies its text (none in a schema-valid document).
            texto_descendiente(&mut k, imp);
            opt(&mut k, imp, "BaseRet");
            opt(&mut k, imp, "ImpuestoRet");
            req(&mut k, imp, "MontoRet");
            req(&mut k, imp, "TipoPagoRet");
        }
    }
    for n in hijos(r, NS_RETENCIONES, "Complemento") {
        for complemento in n.children().filter(Node::is_element) {
            if es(complemento, NS_PLATAFORMAS, "ServiciosPlataformasTecnologicas") {
                plataformas_xml(&mut k, complemento);
            } else {
                sin_plantilla(&mut k, complemento)?;
            }
        }
    }
    Ok(k.terminar())
}

/// `ServiciosPlataformasTecnologicas10.xslt` on the element as written.
fn plataformas_xml(k: &mut Cadena, p: Node<'_, '_>) {
    let req = |k: &mut Cadena, nodo: Node<'_, '_>, atributo: &str| k.req(nodo.attribute(atributo).unwrap_or(""));
    let opt = |k: &mut Cadena, nodo: Node<'_, '_>, atributo: &str| k.opt(nodo.attribute(atributo));
    for atributo in [
        "Version",
        "Periodicidad",
        "NumServ",
        "MonTotServSIVA",
        "TotalIVATrasladado",
        "TotalIVARetenido",
        "TotalISRRetenido",
        "DifIVAEntregadoPrestServ",
        "MonTotalporUsoPlataforma",
    ] {
        req(k, p, atributo);
    }
    opt(k, p, "MonTotalContribucionGubernamental");
    for servicios in hijos(p, NS_PLATAFORMAS, "Servicios") {
        for s in hijos(servicios, NS_PLATAFORMAS, "DetallesDelServicio") {
            req(k, s, "FormaPagoServ");
            req(k, s, "TipoDeServ");
            opt(k, s, "SubTipServ");
            opt(k, s, "RFCTerceroAutorizado");
            req(k, s, "FechaServ");
            req(k, s, "PrecioServSinIVA");
            for i in hijos(s, NS_PLATAFORMAS, "ImpuestosTrasladadosdelServicio") {
                for atributo in ["Base", "Impuesto", "TipoFactor", "TasaCuota", "Importe"] {
                    req(k, i, atributo);
                }
            }
            for c in hijos(s, NS_PLATAFORMAS, "ContribucionGubernamental") {
                req(k, c, "ImpContrib");
                req(k, c, "EntidadDondePagaLaContribucion");
            }
            for c in hijos(s, NS_PLATAFORMAS, "ComisionDelServicio") {
                opt(k, c, "Base");
                opt(k, c, "Porcentaje");
                req(k, c, "Importe");
            }
        }
    }
}

/// Cadena original of a TimbreFiscalDigital 1.1 (`cadenaoriginal_TFD_1_1.xslt`), from
/// timbra-cfdi: the TFD of a retention is the same complement.
pub use timbra_cfdi::tfd::cadena_original as tfd_desde_modelo;
