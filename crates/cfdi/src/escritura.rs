//! XML writer (quick-xml) for the CFDI 4.0 model.
//!
//! Anexo 20 requires UTF-8, SAT's attribute names, the namespace and `schemaLocation` of
//! every complement, and no empty optional attributes (the builder never produces them; a
//! parsed document keeps whatever it had so its cadena original does not change).
//!
//! The writer never emits a character XML 1.0 cannot carry (C0 controls other than tab, LF
//! and CR; U+FFFE; U+FFFF): no escape exists for them, so [`escribir`] refuses the document
//! with [`ErrorEscritura`] naming the element and attribute instead of producing XML that is
//! not well-formed.

use std::borrow::Cow;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};

use crate::implocal::{ImpuestosLocales, NS_IMPLOCAL, XSD_IMPLOCAL};
use crate::model::{Complemento, Comprobante, Concepto, NS_CFDI, NS_XSI, XSD_CFDI, XmlCrudo};
use crate::nomina::{NS_NOMINA12, Nomina, XSD_NOMINA12};
use crate::numero::Numero;
use crate::pagos::{NS_PAGOS20, Pagos, XSD_PAGOS20};
use crate::tfd::{NS_TFD, TimbreFiscalDigital, XSD_TFD};
use crate::tipos::primer_caracter_no_xml;

/// A value holds a character that XML 1.0 cannot carry; nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{elemento}/@{atributo} contains U+{codigo:04X} at position {posicion}, a character XML 1.0 cannot carry")]
pub struct ErrorEscritura {
    /// The element, e.g. `cfdi:Receptor` (or the parent of a raw fragment).
    pub elemento: String,
    /// The attribute, e.g. `Nombre` (`*` for a raw fragment: complement or addenda).
    pub atributo: String,
    /// The character's code point.
    pub codigo: u32,
    /// Its position in the value, in characters from 0.
    pub posicion: usize,
}

/// Escapes an attribute value: the five XML special characters and the three whitespace
/// characters that attribute-value normalisation would otherwise turn into spaces
/// (XML 1.0 §3.3.3), so the parsed value equals the model's text.
pub fn escapar_atributo(valor: &str) -> Cow<'_, str> {
    if !valor.bytes().any(|b| matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'' | b'\t' | b'\n' | b'\r')) {
        return Cow::Borrowed(valor);
    }
    let mut salida = String::with_capacity(valor.len() + 16);
    for caracter in valor.chars() {
        match caracter {
            '&' => salida.push_str("&amp;"),
            '<' => salida.push_str("&lt;"),
            '>' => salida.push_str("&gt;"),
            '"' => salida.push_str("&quot;"),
            '\'' => salida.push_str("&apos;"),
            '\t' => salida.push_str("&#9;"),
            '\n' => salida.push_str("&#10;"),
            '\r' => salida.push_str("&#13;"),
            otro => salida.push(otro),
        }
    }
    Cow::Owned(salida)
}

/// Start tag under construction: name plus already-escaped attributes, and the first value
/// that XML cannot carry, if any.
struct Etiqueta {
    contenido: String,
    largo_nombre: usize,
    error: Option<ErrorEscritura>,
}

impl Etiqueta {
    fn new(nombre: &str) -> Self {
        let mut contenido = String::with_capacity(256);
        contenido.push_str(nombre);
        Self { contenido, largo_nombre: nombre.len(), error: None }
    }

    /// Required attribute: always written.
    fn req(mut self, nombre: &str, valor: &str) -> Self {
        if self.error.is_none()
            && let Some((posicion, caracter)) = primer_caracter_no_xml(valor)
        {
            self.error = Some(ErrorEscritura {
                elemento: self.contenido[..self.largo_nombre].to_owned(),
                atributo: nombre.to_owned(),
                codigo: u32::from(caracter),
                posicion,
            });
        }
        self.contenido.push(' ');
        self.contenido.push_str(nombre);
        self.contenido.push_str("=\"");
        self.contenido.push_str(&escapar_atributo(valor));
        self.contenido.push('"');
        self
    }

    /// Optional attribute: written only when present.
    fn opt(self, nombre: &str, valor: Option<&str>) -> Self {
        match valor {
            Some(valor) => self.req(nombre, valor),
            None => self,
        }
    }

    fn num(self, nombre: &str, valor: &Numero) -> Self {
        self.req(nombre, valor.texto())
    }

    fn opt_num(self, nombre: &str, valor: Option<&Numero>) -> Self {
        self.opt(nombre, valor.map(Numero::texto))
    }
}

struct Escritor {
    xml: Writer<Vec<u8>>,
    /// The first value refused; the document is then discarded.
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
        let inicio = BytesStart::from_content(etiqueta.contenido, etiqueta.largo_nombre);
        self.evento(Event::Start(inicio));
    }

    fn vacio(&mut self, etiqueta: Etiqueta) {
        self.anotar(etiqueta.error);
        let inicio = BytesStart::from_content(etiqueta.contenido, etiqueta.largo_nombre);
        self.evento(Event::Empty(inicio));
    }

    fn cerrar(&mut self, nombre: &str) {
        self.evento(Event::End(BytesEnd::new(nombre)));
    }

    /// A raw fragment (complement or addenda) inside `padre`.
    fn crudo(&mut self, padre: &str, xml: &str) {
        if let Some((posicion, caracter)) = primer_caracter_no_xml(xml) {
            self.anotar(Some(ErrorEscritura {
                elemento: padre.to_owned(),
                atributo: "*".to_owned(),
                codigo: u32::from(caracter),
                posicion,
            }));
        }
        self.xml.get_mut().extend_from_slice(xml.as_bytes());
    }

    fn evento(&mut self, evento: Event<'_>) {
        // Invariant: the sink is a Vec<u8>, whose io::Write never fails.
        if let Err(error) = self.xml.write_event(evento) {
            unreachable!("escribir en Vec<u8> no falla: {error}");
        }
    }
}

/// Serialises a comprobante to a UTF-8 XML document (no indentation).
///
/// # Errors
/// [`ErrorEscritura`] when a value holds a character XML 1.0 cannot carry: such a document
/// would not be well-formed, so none is returned.
pub fn escribir(comprobante: &Comprobante) -> Result<String, ErrorEscritura> {
    let mut escritor = Escritor { xml: Writer::new(Vec::with_capacity(8192)), error: None };
    escritor.evento(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    escribir_comprobante(&mut escritor, comprobante);
    if let Some(error) = escritor.error {
        return Err(error);
    }
    let bytes = escritor.xml.into_inner();
    // Invariant: every piece written is a &str, so the buffer is UTF-8.
    Ok(String::from_utf8(bytes).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
}

fn escribir_comprobante(e: &mut Escritor, c: &Comprobante) {
    // Anexo 20: each complement's namespace and schema location are declared; we declare
    // them on the root, as SAT's examples do (the TFD declares its own, as PACs do).
    let mut ubicaciones = String::with_capacity(256);
    ubicaciones.push_str(NS_CFDI);
    ubicaciones.push(' ');
    ubicaciones.push_str(XSD_CFDI);
    let mut etiqueta = Etiqueta::new("cfdi:Comprobante").req("xmlns:cfdi", NS_CFDI).req("xmlns:xsi", NS_XSI);
    let mut vistos = [false; 3];
    for complemento in &c.complementos {
        let (indice, prefijo, ns, xsd) = match complemento {
            Complemento::Pagos(_) => (0, "xmlns:pago20", NS_PAGOS20, XSD_PAGOS20),
            Complemento::Nomina(_) => (1, "xmlns:nomina12", NS_NOMINA12, XSD_NOMINA12),
            Complemento::ImpuestosLocales(_) => (2, "xmlns:implocal", NS_IMPLOCAL, XSD_IMPLOCAL),
            Complemento::TimbreFiscalDigital(_) | Complemento::Otro(_) => continue,
        };
        if !vistos[indice] {
            vistos[indice] = true;
            etiqueta = etiqueta.req(prefijo, ns);
            ubicaciones.push(' ');
            ubicaciones.push_str(ns);
            ubicaciones.push(' ');
            ubicaciones.push_str(xsd);
        }
    }
    let etiqueta = etiqueta
        .req("xsi:schemaLocation", &ubicaciones)
        .req("Version", &c.version)
        .opt("Serie", c.serie.as_deref())
        .opt("Folio", c.folio.as_deref())
        .req("Fecha", &c.fecha)
        .req("Sello", &c.sello)
        .opt("FormaPago", c.forma_pago.as_deref())
        .req("NoCertificado", &c.no_certificado)
        .req("Certificado", &c.certificado)
        .opt("CondicionesDePago", c.condiciones_de_pago.as_deref())
        .num("SubTotal", &c.sub_total)
        .opt_num("Descuento", c.descuento.as_ref())
        .req("Moneda", &c.moneda)
        .opt_num("TipoCambio", c.tipo_cambio.as_ref())
        .num("Total", &c.total)
        .req("TipoDeComprobante", &c.tipo_de_comprobante)
        .req("Exportacion", &c.exportacion)
        .opt("MetodoPago", c.metodo_pago.as_deref())
        .req("LugarExpedicion", &c.lugar_expedicion)
        .opt("Confirmacion", c.confirmacion.as_deref());
    e.abrir(etiqueta);

    if let Some(global) = &c.informacion_global {
        e.vacio(
            Etiqueta::new("cfdi:InformacionGlobal")
                .req("Periodicidad", &global.periodicidad)
                .req("Meses", &global.meses)
                .req("Año", &global.ano),
        );
    }
    for relacionados in &c.cfdi_relacionados {
        e.abrir(Etiqueta::new("cfdi:CfdiRelacionados").req("TipoRelacion", &relacionados.tipo_relacion));
        for uuid in &relacionados.uuids {
            e.vacio(Etiqueta::new("cfdi:CfdiRelacionado").req("UUID", uuid));
        }
        e.cerrar("cfdi:CfdiRelacionados");
    }
    e.vacio(
        Etiqueta::new("cfdi:Emisor")
            .req("Rfc", &c.emisor.rfc)
            .req("Nombre", &c.emisor.nombre)
            .req("RegimenFiscal", &c.emisor.regimen_fiscal)
            .opt("FacAtrAdquirente", c.emisor.fac_atr_adquirente.as_deref()),
    );
    let r = &c.receptor;
    e.vacio(
        Etiqueta::new("cfdi:Receptor")
            .req("Rfc", &r.rfc)
            .req("Nombre", &r.nombre)
            .req("DomicilioFiscalReceptor", &r.domicilio_fiscal_receptor)
            .opt("ResidenciaFiscal", r.residencia_fiscal.as_deref())
            .opt("NumRegIdTrib", r.num_reg_id_trib.as_deref())
            .req("RegimenFiscalReceptor", &r.regimen_fiscal_receptor)
            .req("UsoCFDI", &r.uso_cfdi),
    );
    e.abrir(Etiqueta::new("cfdi:Conceptos"));
    for concepto in &c.conceptos {
        escribir_concepto(e, concepto);
    }
    e.cerrar("cfdi:Conceptos");

    if let Some(impuestos) = &c.impuestos {
        e.abrir(
            Etiqueta::new("cfdi:Impuestos")
                .opt_num("TotalImpuestosRetenidos", impuestos.total_impuestos_retenidos.as_ref())
                .opt_num("TotalImpuestosTrasladados", impuestos.total_impuestos_trasladados.as_ref()),
        );
        if !impuestos.retenciones.is_empty() {
            e.abrir(Etiqueta::new("cfdi:Retenciones"));
            for retencion in &impuestos.retenciones {
                e.vacio(
                    Etiqueta::new("cfdi:Retencion")
                        .req("Impuesto", &retencion.impuesto)
                        .num("Importe", &retencion.importe),
                );
            }
            e.cerrar("cfdi:Retenciones");
        }
        if !impuestos.traslados.is_empty() {
            e.abrir(Etiqueta::new("cfdi:Traslados"));
            for traslado in &impuestos.traslados {
                e.vacio(
                    Etiqueta::new("cfdi:Traslado")
                        .num("Base", &traslado.base)
                        .req("Impuesto", &traslado.impuesto)
                        .req("TipoFactor", &traslado.tipo_factor)
                        .opt_num("TasaOCuota", traslado.tasa_o_cuota.as_ref())
                        .opt_num("Importe", traslado.importe.as_ref()),
                );
            }
            e.cerrar("cfdi:Traslados");
        }
        e.cerrar("cfdi:Impuestos");
    }

    if !c.complementos.is_empty() {
        e.abrir(Etiqueta::new("cfdi:Complemento"));
        for complemento in &c.complementos {
            match complemento {
                Complemento::Pagos(pagos) => escribir_pagos(e, pagos),
                Complemento::Nomina(nomina) => escribir_nomina(e, nomina),
                Complemento::ImpuestosLocales(locales) => escribir_implocal(e, locales),
                Complemento::TimbreFiscalDigital(tfd) => escribir_tfd(e, tfd),
                Complemento::Otro(crudo) => e.crudo("cfdi:Complemento", &crudo.xml),
            }
        }
        e.cerrar("cfdi:Complemento");
    }
    if let Some(XmlCrudo { xml, .. }) = &c.addenda {
        e.abrir(Etiqueta::new("cfdi:Addenda"));
        e.crudo("cfdi:Addenda", xml);
        e.cerrar("cfdi:Addenda");
    }
    e.cerrar("cfdi:Comprobante");
}

fn escribir_concepto(e: &mut Escritor, c: &Concepto) {
    let etiqueta = Etiqueta::new("cfdi:Concepto")
        .req("ClaveProdServ", &c.clave_prod_serv)
        .opt("NoIdentificacion", c.no_identificacion.as_deref())
        .num("Cantidad", &c.cantidad)
        .req("ClaveUnidad", &c.clave_unidad)
        .opt("Unidad", c.unidad.as_deref())
        .req("Descripcion", &c.descripcion)
        .num("ValorUnitario", &c.valor_unitario)
        .num("Importe", &c.importe)
        .opt_num("Descuento", c.descuento.as_ref())
        .req("ObjetoImp", &c.objeto_imp);
    let con_hijos = c.impuestos.is_some()
        || c.a_cuenta_terceros.is_some()
        || !c.informacion_aduanera.is_empty()
        || !c.cuenta_predial.is_empty()
        || c.complemento_concepto.is_some()
        || !c.partes.is_empty();
    if !con_hijos {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    if let Some(impuestos) = &c.impuestos {
        e.abrir(Etiqueta::new("cfdi:Impuestos"));
        if !impuestos.traslados.is_empty() {
            e.abrir(Etiqueta::new("cfdi:Traslados"));
            for t in &impuestos.traslados {
                e.vacio(
                    Etiqueta::new("cfdi:Traslado")
                        .num("Base", &t.base)
                        .req("Impuesto", &t.impuesto)
                        .req("TipoFactor", &t.tipo_factor)
                        .opt_num("TasaOCuota", t.tasa_o_cuota.as_ref())
                        .opt_num("Importe", t.importe.as_ref()),
                );
            }
            e.cerrar("cfdi:Traslados");
        }
        if !impuestos.retenciones.is_empty() {
            e.abrir(Etiqueta::new("cfdi:Retenciones"));
            for r in &impuestos.retenciones {
                e.vacio(
                    Etiqueta::new("cfdi:Retencion")
                        .num("Base", &r.base)
                        .req("Impuesto", &r.impuesto)
                        .req("TipoFactor", &r.tipo_factor)
                        .num("TasaOCuota", &r.tasa_o_cuota)
                        .num("Importe", &r.importe),
                );
            }
            e.cerrar("cfdi:Retenciones");
        }
        e.cerrar("cfdi:Impuestos");
    }
    if let Some(terceros) = &c.a_cuenta_terceros {
        e.vacio(
            Etiqueta::new("cfdi:ACuentaTerceros")
                .req("RfcACuentaTerceros", &terceros.rfc)
                .req("NombreACuentaTerceros", &terceros.nombre)
                .req("RegimenFiscalACuentaTerceros", &terceros.regimen_fiscal)
                .req("DomicilioFiscalACuentaTerceros", &terceros.domicilio_fiscal),
        );
    }
    for pedimento in &c.informacion_aduanera {
        e.vacio(Etiqueta::new("cfdi:InformacionAduanera").req("NumeroPedimento", pedimento));
    }
    for numero in &c.cuenta_predial {
        e.vacio(Etiqueta::new("cfdi:CuentaPredial").req("Numero", numero));
    }
    if let Some(complemento) = &c.complemento_concepto {
        e.abrir(Etiqueta::new("cfdi:ComplementoConcepto"));
        e.crudo("cfdi:ComplementoConcepto", &complemento.xml);
        e.cerrar("cfdi:ComplementoConcepto");
    }
    for parte in &c.partes {
        let etiqueta = Etiqueta::new("cfdi:Parte")
            .req("ClaveProdServ", &parte.clave_prod_serv)
            .opt("NoIdentificacion", parte.no_identificacion.as_deref())
            .num("Cantidad", &parte.cantidad)
            .opt("Unidad", parte.unidad.as_deref())
            .req("Descripcion", &parte.descripcion)
            .opt_num("ValorUnitario", parte.valor_unitario.as_ref())
            .opt_num("Importe", parte.importe.as_ref());
        if parte.informacion_aduanera.is_empty() {
            e.vacio(etiqueta);
        } else {
            e.abrir(etiqueta);
            for pedimento in &parte.informacion_aduanera {
                e.vacio(Etiqueta::new("cfdi:InformacionAduanera").req("NumeroPedimento", pedimento));
            }
            e.cerrar("cfdi:Parte");
        }
    }
    e.cerrar("cfdi:Concepto");
}

fn escribir_tfd(e: &mut Escritor, t: &TimbreFiscalDigital) {
    let ubicacion = format!("{NS_TFD} {XSD_TFD}");
    e.vacio(
        Etiqueta::new("tfd:TimbreFiscalDigital")
            .req("xmlns:tfd", NS_TFD)
            .req("xsi:schemaLocation", &ubicacion)
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

/// Serialises a TimbreFiscalDigital on its own (root element with its namespaces), as PACs
/// return it and as SAT's `cadenaoriginal_TFD_1_1.xslt` expects it.
///
/// # Errors
/// [`ErrorEscritura`] when a value (e.g. a PAC's `Leyenda`) holds a character XML cannot carry.
pub fn escribir_tfd_documento(tfd: &TimbreFiscalDigital) -> Result<String, ErrorEscritura> {
    let mut escritor = Escritor { xml: Writer::new(Vec::with_capacity(1024)), error: None };
    escritor.evento(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let ubicacion = format!("{NS_TFD} {XSD_TFD}");
    escritor.vacio(
        Etiqueta::new("tfd:TimbreFiscalDigital")
            .req("xmlns:tfd", NS_TFD)
            .req("xmlns:xsi", NS_XSI)
            .req("xsi:schemaLocation", &ubicacion)
            .req("Version", &tfd.version)
            .req("UUID", &tfd.uuid)
            .req("FechaTimbrado", &tfd.fecha_timbrado)
            .req("RfcProvCertif", &tfd.rfc_prov_certif)
            .opt("Leyenda", tfd.leyenda.as_deref())
            .req("SelloCFD", &tfd.sello_cfd)
            .req("NoCertificadoSAT", &tfd.no_certificado_sat)
            .req("SelloSAT", &tfd.sello_sat),
    );
    if let Some(error) = escritor.error {
        return Err(error);
    }
    Ok(String::from_utf8_lossy(&escritor.xml.into_inner()).into_owned())
}

fn escribir_implocal(e: &mut Escritor, l: &ImpuestosLocales) {
    let etiqueta = Etiqueta::new("implocal:ImpuestosLocales")
        .req("version", &l.version)
        .num("TotaldeRetenciones", &l.total_de_retenciones)
        .num("TotaldeTraslados", &l.total_de_traslados);
    if l.retenciones_locales.is_empty() && l.traslados_locales.is_empty() {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    for r in &l.retenciones_locales {
        e.vacio(
            Etiqueta::new("implocal:RetencionesLocales")
                .req("ImpLocRetenido", &r.imp_loc_retenido)
                .num("TasadeRetencion", &r.tasa_de_retencion)
                .num("Importe", &r.importe),
        );
    }
    for t in &l.traslados_locales {
        e.vacio(
            Etiqueta::new("implocal:TrasladosLocales")
                .req("ImpLocTrasladado", &t.imp_loc_trasladado)
                .num("TasadeTraslado", &t.tasa_de_traslado)
                .num("Importe", &t.importe),
        );
    }
    e.cerrar("implocal:ImpuestosLocales");
}

fn escribir_pagos(e: &mut Escritor, p: &Pagos) {
    e.abrir(Etiqueta::new("pago20:Pagos").req("Version", &p.version));
    let t = &p.totales;
    e.vacio(
        Etiqueta::new("pago20:Totales")
            .opt_num("TotalRetencionesIVA", t.total_retenciones_iva.as_ref())
            .opt_num("TotalRetencionesISR", t.total_retenciones_isr.as_ref())
            .opt_num("TotalRetencionesIEPS", t.total_retenciones_ieps.as_ref())
            .opt_num("TotalTrasladosBaseIVA16", t.total_traslados_base_iva16.as_ref())
            .opt_num("TotalTrasladosImpuestoIVA16", t.total_traslados_impuesto_iva16.as_ref())
            .opt_num("TotalTrasladosBaseIVA8", t.total_traslados_base_iva8.as_ref())
            .opt_num("TotalTrasladosImpuestoIVA8", t.total_traslados_impuesto_iva8.as_ref())
            .opt_num("TotalTrasladosBaseIVA0", t.total_traslados_base_iva0.as_ref())
            .opt_num("TotalTrasladosImpuestoIVA0", t.total_traslados_impuesto_iva0.as_ref())
            .opt_num("TotalTrasladosBaseIVAExento", t.total_traslados_base_iva_exento.as_ref())
            .num("MontoTotalPagos", &t.monto_total_pagos),
    );
    for pago in &p.pagos {
        e.abrir(
            Etiqueta::new("pago20:Pago")
                .req("FechaPago", &pago.fecha_pago)
                .req("FormaDePagoP", &pago.forma_de_pago_p)
                .req("MonedaP", &pago.moneda_p)
                .opt_num("TipoCambioP", pago.tipo_cambio_p.as_ref())
                .num("Monto", &pago.monto)
                .opt("NumOperacion", pago.num_operacion.as_deref())
                .opt("RfcEmisorCtaOrd", pago.rfc_emisor_cta_ord.as_deref())
                .opt("NomBancoOrdExt", pago.nom_banco_ord_ext.as_deref())
                .opt("CtaOrdenante", pago.cta_ordenante.as_deref())
                .opt("RfcEmisorCtaBen", pago.rfc_emisor_cta_ben.as_deref())
                .opt("CtaBeneficiario", pago.cta_beneficiario.as_deref())
                .opt("TipoCadPago", pago.tipo_cad_pago.as_deref())
                .opt("CertPago", pago.cert_pago.as_deref())
                .opt("CadPago", pago.cad_pago.as_deref())
                .opt("SelloPago", pago.sello_pago.as_deref()),
        );
        for d in &pago.doctos_relacionados {
            let etiqueta = Etiqueta::new("pago20:DoctoRelacionado")
                .req("IdDocumento", &d.id_documento)
                .opt("Serie", d.serie.as_deref())
                .opt("Folio", d.folio.as_deref())
                .req("MonedaDR", &d.moneda_dr)
                .opt_num("EquivalenciaDR", d.equivalencia_dr.as_ref())
                .req("NumParcialidad", &d.num_parcialidad)
                .num("ImpSaldoAnt", &d.imp_saldo_ant)
                .num("ImpPagado", &d.imp_pagado)
                .num("ImpSaldoInsoluto", &d.imp_saldo_insoluto)
                .req("ObjetoImpDR", &d.objeto_imp_dr);
            let Some(impuestos) = &d.impuestos_dr else {
                e.vacio(etiqueta);
                continue;
            };
            e.abrir(etiqueta);
            e.abrir(Etiqueta::new("pago20:ImpuestosDR"));
            if !impuestos.retenciones_dr.is_empty() {
                e.abrir(Etiqueta::new("pago20:RetencionesDR"));
                for r in &impuestos.retenciones_dr {
                    e.vacio(
                        Etiqueta::new("pago20:RetencionDR")
                            .num("BaseDR", &r.base_dr)
                            .req("ImpuestoDR", &r.impuesto_dr)
                            .req("TipoFactorDR", &r.tipo_factor_dr)
                            .num("TasaOCuotaDR", &r.tasa_o_cuota_dr)
                            .num("ImporteDR", &r.importe_dr),
                    );
                }
                e.cerrar("pago20:RetencionesDR");
            }
            if !impuestos.traslados_dr.is_empty() {
                e.abrir(Etiqueta::new("pago20:TrasladosDR"));
                for t in &impuestos.traslados_dr {
                    e.vacio(
                        Etiqueta::new("pago20:TrasladoDR")
                            .num("BaseDR", &t.base_dr)
                            .req("ImpuestoDR", &t.impuesto_dr)
                            .req("TipoFactorDR", &t.tipo_factor_dr)
                            .opt_num("TasaOCuotaDR", t.tasa_o_cuota_dr.as_ref())
                            .opt_num("ImporteDR", t.importe_dr.as_ref()),
                    );
                }
                e.cerrar("pago20:TrasladosDR");
            }
            e.cerrar("pago20:ImpuestosDR");
            e.cerrar("pago20:DoctoRelacionado");
        }
        if let Some(impuestos) = &pago.impuestos_p {
            e.abrir(Etiqueta::new("pago20:ImpuestosP"));
            if !impuestos.retenciones_p.is_empty() {
                e.abrir(Etiqueta::new("pago20:RetencionesP"));
                for r in &impuestos.retenciones_p {
                    e.vacio(
                        Etiqueta::new("pago20:RetencionP")
                            .req("ImpuestoP", &r.impuesto_p)
                            .num("ImporteP", &r.importe_p),
                    );
                }
                e.cerrar("pago20:RetencionesP");
            }
            if !impuestos.traslados_p.is_empty() {
                e.abrir(Etiqueta::new("pago20:TrasladosP"));
                for t in &impuestos.traslados_p {
                    e.vacio(
                        Etiqueta::new("pago20:TrasladoP")
                            .num("BaseP", &t.base_p)
                            .req("ImpuestoP", &t.impuesto_p)
                            .req("TipoFactorP", &t.tipo_factor_p)
                            .opt_num("TasaOCuotaP", t.tasa_o_cuota_p.as_ref())
                            .opt_num("ImporteP", t.importe_p.as_ref()),
                    );
                }
                e.cerrar("pago20:TrasladosP");
            }
            e.cerrar("pago20:ImpuestosP");
        }
        e.cerrar("pago20:Pago");
    }
    e.cerrar("pago20:Pagos");
}

fn escribir_nomina(e: &mut Escritor, n: &Nomina) {
    e.abrir(
        Etiqueta::new("nomina12:Nomina")
            .req("Version", &n.version)
            .req("TipoNomina", &n.tipo_nomina)
            .req("FechaPago", &n.fecha_pago)
            .req("FechaInicialPago", &n.fecha_inicial_pago)
            .req("FechaFinalPago", &n.fecha_final_pago)
            .num("NumDiasPagados", &n.num_dias_pagados)
            .opt_num("TotalPercepciones", n.total_percepciones.as_ref())
            .opt_num("TotalDeducciones", n.total_deducciones.as_ref())
            .opt_num("TotalOtrosPagos", n.total_otros_pagos.as_ref()),
    );
    if let Some(emisor) = &n.emisor {
        let etiqueta = Etiqueta::new("nomina12:Emisor")
            .opt("Curp", emisor.curp.as_deref())
            .opt("RegistroPatronal", emisor.registro_patronal.as_deref())
            .opt("RfcPatronOrigen", emisor.rfc_patron_origen.as_deref());
        match &emisor.entidad_sncf {
            None => e.vacio(etiqueta),
            Some(entidad) => {
                e.abrir(etiqueta);
                e.vacio(
                    Etiqueta::new("nomina12:EntidadSNCF")
                        .req("OrigenRecurso", &entidad.origen_recurso)
                        .opt_num("MontoRecursoPropio", entidad.monto_recurso_propio.as_ref()),
                );
                e.cerrar("nomina12:Emisor");
            }
        }
    }
    let r = &n.receptor;
    let etiqueta = Etiqueta::new("nomina12:Receptor")
        .req("Curp", &r.curp)
        .opt("NumSeguridadSocial", r.num_seguridad_social.as_deref())
        .opt("FechaInicioRelLaboral", r.fecha_inicio_rel_laboral.as_deref())
        .opt("Antigüedad", r.antiguedad.as_deref())
        .req("TipoContrato", &r.tipo_contrato)
        .opt("Sindicalizado", r.sindicalizado.as_deref())
        .opt("TipoJornada", r.tipo_jornada.as_deref())
        .req("TipoRegimen", &r.tipo_regimen)
        .req("NumEmpleado", &r.num_empleado)
        .opt("Departamento", r.departamento.as_deref())
        .opt("Puesto", r.puesto.as_deref())
        .opt("RiesgoPuesto", r.riesgo_puesto.as_deref())
        .req("PeriodicidadPago", &r.periodicidad_pago)
        .opt("Banco", r.banco.as_deref())
        .opt("CuentaBancaria", r.cuenta_bancaria.as_deref())
        .opt_num("SalarioBaseCotApor", r.salario_base_cot_apor.as_ref())
        .opt_num("SalarioDiarioIntegrado", r.salario_diario_integrado.as_ref())
        .req("ClaveEntFed", &r.clave_ent_fed);
    if r.subcontratacion.is_empty() {
        e.vacio(etiqueta);
    } else {
        e.abrir(etiqueta);
        for s in &r.subcontratacion {
            e.vacio(
                Etiqueta::new("nomina12:SubContratacion")
                    .req("RfcLabora", &s.rfc_labora)
                    .num("PorcentajeTiempo", &s.porcentaje_tiempo),
            );
        }
        e.cerrar("nomina12:Receptor");
    }
    if let Some(p) = &n.percepciones {
        e.abrir(
            Etiqueta::new("nomina12:Percepciones")
                .opt_num("TotalSueldos", p.total_sueldos.as_ref())
                .opt_num("TotalSeparacionIndemnizacion", p.total_separacion_indemnizacion.as_ref())
                .opt_num("TotalJubilacionPensionRetiro", p.total_jubilacion_pension_retiro.as_ref())
                .num("TotalGravado", &p.total_gravado)
                .num("TotalExento", &p.total_exento),
        );
        for percepcion in &p.percepciones {
            let etiqueta = Etiqueta::new("nomina12:Percepcion")
                .req("TipoPercepcion", &percepcion.tipo_percepcion)
                .req("Clave", &percepcion.clave)
                .req("Concepto", &percepcion.concepto)
                .num("ImporteGravado", &percepcion.importe_gravado)
                .num("ImporteExento", &percepcion.importe_exento);
            if percepcion.acciones_o_titulos.is_none() && percepcion.horas_extra.is_empty() {
                e.vacio(etiqueta);
                continue;
            }
            e.abrir(etiqueta);
            if let Some(acciones) = &percepcion.acciones_o_titulos {
                e.vacio(
                    Etiqueta::new("nomina12:AccionesOTitulos")
                        .num("ValorMercado", &acciones.valor_mercado)
                        .num("PrecioAlOtorgarse", &acciones.precio_al_otorgarse),
                );
            }
            for horas in &percepcion.horas_extra {
                e.vacio(
                    Etiqueta::new("nomina12:HorasExtra")
                        .req("Dias", &horas.dias)
                        .req("TipoHoras", &horas.tipo_horas)
                        .req("HorasExtra", &horas.horas_extra)
                        .num("ImportePagado", &horas.importe_pagado),
                );
            }
            e.cerrar("nomina12:Percepcion");
        }
        if let Some(j) = &p.jubilacion_pension_retiro {
            e.vacio(
                Etiqueta::new("nomina12:JubilacionPensionRetiro")
                    .opt_num("TotalUnaExhibicion", j.total_una_exhibicion.as_ref())
                    .opt_num("TotalParcialidad", j.total_parcialidad.as_ref())
                    .opt_num("MontoDiario", j.monto_diario.as_ref())
                    .num("IngresoAcumulable", &j.ingreso_acumulable)
                    .num("IngresoNoAcumulable", &j.ingreso_no_acumulable),
            );
        }
        if let Some(s) = &p.separacion_indemnizacion {
            e.vacio(
                Etiqueta::new("nomina12:SeparacionIndemnizacion")
                    .num("TotalPagado", &s.total_pagado)
                    .req("NumAñosServicio", &s.num_anos_servicio)
                    .num("UltimoSueldoMensOrd", &s.ultimo_sueldo_mens_ord)
                    .num("IngresoAcumulable", &s.ingreso_acumulable)
                    .num("IngresoNoAcumulable", &s.ingreso_no_acumulable),
            );
        }
        e.cerrar("nomina12:Percepciones");
    }
    if let Some(d) = &n.deducciones {
        e.abrir(
            Etiqueta::new("nomina12:Deducciones")
                .opt_num("TotalOtrasDeducciones", d.total_otras_deducciones.as_ref())
                .opt_num("TotalImpuestosRetenidos", d.total_impuestos_retenidos.as_ref()),
        );
        for deduccion in &d.deducciones {
            e.vacio(
                Etiqueta::new("nomina12:Deduccion")
                    .req("TipoDeduccion", &deduccion.tipo_deduccion)
                    .req("Clave", &deduccion.clave)
                    .req("Concepto", &deduccion.concepto)
                    .num("Importe", &deduccion.importe),
            );
        }
        e.cerrar("nomina12:Deducciones");
    }
    if !n.otros_pagos.is_empty() {
        e.abrir(Etiqueta::new("nomina12:OtrosPagos"));
        for otro in &n.otros_pagos {
            let etiqueta = Etiqueta::new("nomina12:OtroPago")
                .req("TipoOtroPago", &otro.tipo_otro_pago)
                .req("Clave", &otro.clave)
                .req("Concepto", &otro.concepto)
                .num("Importe", &otro.importe);
            if otro.subsidio_al_empleo.is_none() && otro.compensacion_saldos_a_favor.is_none() {
                e.vacio(etiqueta);
                continue;
            }
            e.abrir(etiqueta);
            if let Some(subsidio) = &otro.subsidio_al_empleo {
                e.vacio(Etiqueta::new("nomina12:SubsidioAlEmpleo").num("SubsidioCausado", &subsidio.subsidio_causado));
            }
            if let Some(compensacion) = &otro.compensacion_saldos_a_favor {
                e.vacio(
                    Etiqueta::new("nomina12:CompensacionSaldosAFavor")
                        .num("SaldoAFavor", &compensacion.saldo_a_favor)
                        .req("Año", &compensacion.ano)
                        .num("RemanenteSalFav", &compensacion.remanente_sal_fav),
                );
            }
            e.cerrar("nomina12:OtroPago");
        }
        e.cerrar("nomina12:OtrosPagos");
    }
    if !n.incapacidades.is_empty() {
        e.abrir(Etiqueta::new("nomina12:Incapacidades"));
        for incapacidad in &n.incapacidades {
            e.vacio(
                Etiqueta::new("nomina12:Incapacidad")
                    .req("DiasIncapacidad", &incapacidad.dias_incapacidad)
                    .req("TipoIncapacidad", &incapacidad.tipo_incapacidad)
                    .opt_num("ImporteMonetario", incapacidad.importe_monetario.as_ref()),
            );
        }
        e.cerrar("nomina12:Incapacidades");
    }
    e.cerrar("nomina12:Nomina");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn con_receptor(nombre: &str) -> Comprobante {
        let mut c = Comprobante { version: "4.0".into(), ..Comprobante::default() };
        c.receptor.nombre = nombre.into();
        c
    }

    #[test]
    fn rechaza_caracteres_que_xml_no_admite() {
        for malo in ["A\u{0}B", "A\u{7}", "\u{1B}[31m", "\u{FFFE}", "x\u{FFFF}", "\u{B}", "\u{C}"] {
            let error = escribir(&con_receptor(malo)).unwrap_err();
            assert_eq!((error.elemento.as_str(), error.atributo.as_str()), ("cfdi:Receptor", "Nombre"), "{malo:?}");
        }
        let error = escribir(&con_receptor("ACME\u{7}")).unwrap_err();
        assert_eq!((error.codigo, error.posicion), (7, 4));
        assert!(error.to_string().contains("U+0007"), "{error}");
    }

    #[test]
    fn escapa_lo_que_xml_admite() {
        let xml = escribir(&con_receptor("Tab\tLF\nCR\r <&>\"' Ñ \u{FFFD} \u{1F600}")).unwrap();
        assert!(xml.contains(r#"Nombre="Tab&#9;LF&#10;CR&#13; &lt;&amp;&gt;&quot;&apos; Ñ"#), "{xml}");
        let documento = roxmltree::Document::parse(&xml).unwrap();
        let receptor = documento.descendants().find(|n| n.has_tag_name((crate::model::NS_CFDI, "Receptor"))).unwrap();
        assert_eq!(receptor.attribute("Nombre"), Some("Tab\tLF\nCR\r <&>\"' Ñ \u{FFFD} \u{1F600}"));
    }

    #[test]
    fn rechaza_fragmentos_crudos_con_controles() {
        let mut c = con_receptor("ok");
        c.addenda = Some(XmlCrudo { espacio: String::new(), xml: "<a>\u{1}</a>".into() });
        assert_eq!(escribir(&c).unwrap_err().elemento, "cfdi:Addenda");
    }
}
