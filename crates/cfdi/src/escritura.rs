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

use crate::complementos;
use crate::model::{Comprobante, Concepto, NS_CFDI, NS_XSI, XSD_CFDI, XmlCrudo};
use crate::numero::Numero;
use crate::tipos::primer_caracter_no_xml;

pub use crate::complementos::tfd::escribir_documento as escribir_tfd_documento;

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
/// that XML cannot carry, if any. Complement modules build theirs with it.
pub(crate) struct Etiqueta {
    contenido: String,
    largo_nombre: usize,
    error: Option<ErrorEscritura>,
}

impl Etiqueta {
    pub(crate) fn new(nombre: &str) -> Self {
        let mut contenido = String::with_capacity(256);
        contenido.push_str(nombre);
        Self { contenido, largo_nombre: nombre.len(), error: None }
    }

    /// Required attribute: always written.
    pub(crate) fn req(mut self, nombre: &str, valor: &str) -> Self {
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
    pub(crate) fn opt(self, nombre: &str, valor: Option<&str>) -> Self {
        match valor {
            Some(valor) => self.req(nombre, valor),
            None => self,
        }
    }

    pub(crate) fn num(self, nombre: &str, valor: &Numero) -> Self {
        self.req(nombre, valor.texto())
    }

    pub(crate) fn opt_num(self, nombre: &str, valor: Option<&Numero>) -> Self {
        self.opt(nombre, valor.map(Numero::texto))
    }
}

/// The document being written; complement modules write their elements through it.
pub(crate) struct Escritor {
    xml: Writer<Vec<u8>>,
    /// The first value refused; the document is then discarded.
    error: Option<ErrorEscritura>,
}

impl Escritor {
    /// A new document, its XML declaration already written.
    pub(crate) fn documento(capacidad: usize) -> Self {
        let mut escritor = Escritor { xml: Writer::new(Vec::with_capacity(capacidad)), error: None };
        escritor.evento(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
        escritor
    }

    /// The document's text, or the first value refused.
    pub(crate) fn terminar(self) -> Result<String, ErrorEscritura> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let bytes = self.xml.into_inner();
        // Invariant: every piece written is a &str, so the buffer is UTF-8.
        Ok(String::from_utf8(bytes).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
    }

    fn anotar(&mut self, error: Option<ErrorEscritura>) {
        if self.error.is_none() {
            self.error = error;
        }
    }

    pub(crate) fn abrir(&mut self, etiqueta: Etiqueta) {
        self.anotar(etiqueta.error);
        let inicio = BytesStart::from_content(etiqueta.contenido, etiqueta.largo_nombre);
        self.evento(Event::Start(inicio));
    }

    pub(crate) fn vacio(&mut self, etiqueta: Etiqueta) {
        self.anotar(etiqueta.error);
        let inicio = BytesStart::from_content(etiqueta.contenido, etiqueta.largo_nombre);
        self.evento(Event::Empty(inicio));
    }

    pub(crate) fn cerrar(&mut self, nombre: &str) {
        self.evento(Event::End(BytesEnd::new(nombre)));
    }

    /// A raw fragment (complement or addenda) inside `padre`.
    pub(crate) fn crudo(&mut self, padre: &str, xml: &str) {
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
    let mut escritor = Escritor::documento(8192);
    escribir_comprobante(&mut escritor, comprobante);
    escritor.terminar()
}

fn escribir_comprobante(e: &mut Escritor, c: &Comprobante) {
    // Anexo 20: each complement's namespace and schema location are declared; we declare
    // them on the root, as SAT's examples do (the TFD declares its own, as PACs do).
    let mut ubicaciones = String::with_capacity(256);
    ubicaciones.push_str(NS_CFDI);
    ubicaciones.push(' ');
    ubicaciones.push_str(XSD_CFDI);
    let mut etiqueta = Etiqueta::new("cfdi:Comprobante").req("xmlns:cfdi", NS_CFDI).req("xmlns:xsi", NS_XSI);
    for (atributo, espacio, esquema) in complementos::declaraciones_en_raiz(&c.complementos) {
        etiqueta = etiqueta.req(atributo, espacio);
        ubicaciones.push(' ');
        ubicaciones.push_str(espacio);
        ubicaciones.push(' ');
        ubicaciones.push_str(esquema);
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
            complementos::escribir(e, complemento);
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
