//! Parser (roxmltree) from CFDI 4.0 XML into the model.
//!
//! Reads any prefix, a UTF-8 BOM, CRLF, character references and pretty-printing. Numbers
//! keep their text ([`Numero`]). Each complement registered in [`crate::complementos`] reads
//! its own element; any other is kept as raw XML ([`XmlCrudo`]). Malformed
//! input gives an error with line and column, never a panic.

use roxmltree::{Document, Node, ParsingOptions};

use crate::complementos;
use crate::model::*;
use crate::numero::Numero;

pub use crate::complementos::tfd::parsear as parsear_tfd;

/// Malformed XML, located by line and column (1-based).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("XML mal formado en línea {linea}, columna {columna}: {mensaje}")]
pub struct ErrorXml {
    /// Line, starting at 1.
    pub linea: u32,
    /// Column, starting at 1.
    pub columna: u32,
    /// What the XML parser said.
    pub mensaje: String,
}

impl ErrorXml {
    pub(crate) fn de_roxmltree(error: &roxmltree::Error) -> Self {
        let posicion = error.pos();
        Self { linea: posicion.row, columna: posicion.col, mensaje: error.to_string() }
    }
}

/// Why a document could not be read into the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorParseo {
    /// Not well-formed XML (or not UTF-8).
    #[error(transparent)]
    Xml(#[from] ErrorXml),
    /// The root is not a CFDI 4.0 `Comprobante`.
    #[error("el elemento raíz es {encontrado}; se esperaba {{http://www.sat.gob.mx/cfd/4}}Comprobante")]
    NoEsCfdi40 {
        /// Expanded name of the root found.
        encontrado: String,
    },
    /// A required attribute is missing.
    #[error("falta el atributo {atributo} de {elemento} (línea {linea}, columna {columna})")]
    FaltaAtributo {
        /// Element local name.
        elemento: String,
        /// Attribute name.
        atributo: String,
        /// Line of the element.
        linea: u32,
        /// Column of the element.
        columna: u32,
    },
    /// A required child element is missing.
    #[error("falta el elemento {hijo} dentro de {elemento} (línea {linea}, columna {columna})")]
    FaltaElemento {
        /// Parent element local name.
        elemento: String,
        /// Missing child local name.
        hijo: String,
        /// Line of the parent.
        linea: u32,
        /// Column of the parent.
        columna: u32,
    },
}

/// Parses bytes (UTF-8, optional BOM) into a roxmltree document.
pub fn documento_bytes(xml: &[u8]) -> Result<Document<'_>, ErrorXml> {
    let texto = std::str::from_utf8(xml).map_err(|error| {
        let valido = &xml[..error.valid_up_to()];
        let linea = valido.iter().filter(|&&b| b == b'\n').count() + 1;
        let columna = valido.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        ErrorXml {
            linea: u32::try_from(linea).unwrap_or(u32::MAX),
            columna: u32::try_from(columna).unwrap_or(u32::MAX),
            mensaje: "el documento no es UTF-8 válido (Anexo 20 exige UTF-8)".into(),
        }
    })?;
    documento(texto)
}

/// Parses text into a roxmltree document (BOM skipped, DTDs refused).
pub fn documento(xml: &str) -> Result<Document<'_>, ErrorXml> {
    let xml = xml.strip_prefix('\u{feff}').unwrap_or(xml);
    let opciones = ParsingOptions { allow_dtd: false, ..ParsingOptions::default() };
    Document::parse_with_options(xml, opciones).map_err(|error| ErrorXml::de_roxmltree(&error))
}

/// Parses a CFDI 4.0 from bytes.
pub fn parsear_bytes(xml: &[u8]) -> Result<Comprobante, ErrorParseo> {
    let documento = documento_bytes(xml)?;
    desde_documento(&documento)
}

/// Parses a CFDI 4.0 from text.
pub fn parsear(xml: &str) -> Result<Comprobante, ErrorParseo> {
    let documento = documento(xml)?;
    desde_documento(&documento)
}

/// Reads the model out of a parsed document.
pub fn desde_documento(documento: &Document<'_>) -> Result<Comprobante, ErrorParseo> {
    let lector = Lector::new(documento);
    lector.comprobante(documento.root_element())
}

/// Whether `nodo` is the element `{ns}nombre`.
pub(crate) fn es(nodo: Node<'_, '_>, ns: &str, nombre: &str) -> bool {
    nodo.is_element() && nodo.tag_name().name() == nombre && nodo.tag_name().namespace() == Some(ns)
}

/// The children of `nodo` that are `{ns}nombre` elements, in document order.
pub(crate) fn hijos<'a, 'i>(nodo: Node<'a, 'i>, ns: &'a str, nombre: &'a str) -> impl Iterator<Item = Node<'a, 'i>> {
    nodo.children().filter(move |hijo| es(*hijo, ns, nombre))
}

/// The first child of `nodo` that is a `{ns}nombre` element.
pub(crate) fn hijo<'a, 'i>(nodo: Node<'a, 'i>, ns: &'a str, nombre: &'a str) -> Option<Node<'a, 'i>> {
    hijos(nodo, ns, nombre).next()
}

/// Reads attributes and elements with located errors; complement modules read theirs with it.
pub(crate) struct Lector<'d, 'i> {
    documento: &'d Document<'i>,
}

impl<'d, 'i> Lector<'d, 'i> {
    /// A reader over `documento`.
    pub(crate) fn new(documento: &'d Document<'i>) -> Self {
        Self { documento }
    }

    fn posicion(&self, nodo: Node<'_, '_>) -> (u32, u32) {
        let posicion = self.documento.text_pos_at(nodo.range().start);
        (posicion.row, posicion.col)
    }

    /// Required attribute; its absence is an error located at the element.
    pub(crate) fn req(&self, nodo: Node<'_, '_>, atributo: &str) -> Result<String, ErrorParseo> {
        match nodo.attribute(atributo) {
            Some(valor) => Ok(valor.to_owned()),
            None => {
                let (linea, columna) = self.posicion(nodo);
                Err(ErrorParseo::FaltaAtributo {
                    elemento: nodo.tag_name().name().to_owned(),
                    atributo: atributo.to_owned(),
                    linea,
                    columna,
                })
            }
        }
    }

    /// Optional attribute.
    pub(crate) fn opt(&self, nodo: Node<'_, '_>, atributo: &str) -> Option<String> {
        nodo.attribute(atributo).map(str::to_owned)
    }

    /// Required number, its text kept.
    pub(crate) fn num(&self, nodo: Node<'_, '_>, atributo: &str) -> Result<Numero, ErrorParseo> {
        self.req(nodo, atributo).map(Numero::from_texto)
    }

    /// Optional number, its text kept.
    pub(crate) fn opt_num(&self, nodo: Node<'_, '_>, atributo: &str) -> Option<Numero> {
        nodo.attribute(atributo).map(Numero::from_texto)
    }

    /// A required child element is missing from `nodo`.
    pub(crate) fn falta(&self, nodo: Node<'_, '_>, hijo: &str) -> ErrorParseo {
        let (linea, columna) = self.posicion(nodo);
        ErrorParseo::FaltaElemento {
            elemento: nodo.tag_name().name().to_owned(),
            hijo: hijo.to_owned(),
            linea,
            columna,
        }
    }

    fn comprobante(&self, c: Node<'_, '_>) -> Result<Comprobante, ErrorParseo> {
        if !es(c, NS_CFDI, "Comprobante") {
            let encontrado = match c.tag_name().namespace() {
                Some(ns) => format!("{{{ns}}}{}", c.tag_name().name()),
                None => c.tag_name().name().to_owned(),
            };
            return Err(ErrorParseo::NoEsCfdi40 { encontrado });
        }
        let emisor = hijo(c, NS_CFDI, "Emisor").ok_or_else(|| self.falta(c, "Emisor"))?;
        let receptor = hijo(c, NS_CFDI, "Receptor").ok_or_else(|| self.falta(c, "Receptor"))?;
        let mut conceptos = Vec::new();
        for lista in hijos(c, NS_CFDI, "Conceptos") {
            for concepto in hijos(lista, NS_CFDI, "Concepto") {
                conceptos.push(self.concepto(concepto)?);
            }
        }
        let mut complementos = Vec::new();
        for complemento in hijos(c, NS_CFDI, "Complemento") {
            for nodo in complemento.children().filter(Node::is_element) {
                complementos.push(complementos::leer(self, nodo)?);
            }
        }
        Ok(Comprobante {
            version: self.req(c, "Version")?,
            serie: self.opt(c, "Serie"),
            folio: self.opt(c, "Folio"),
            fecha: self.req(c, "Fecha")?,
            sello: self.req(c, "Sello")?,
            forma_pago: self.opt(c, "FormaPago"),
            no_certificado: self.req(c, "NoCertificado")?,
            certificado: self.req(c, "Certificado")?,
            condiciones_de_pago: self.opt(c, "CondicionesDePago"),
            sub_total: self.num(c, "SubTotal")?,
            descuento: self.opt_num(c, "Descuento"),
            moneda: self.req(c, "Moneda")?,
            tipo_cambio: self.opt_num(c, "TipoCambio"),
            total: self.num(c, "Total")?,
            tipo_de_comprobante: self.req(c, "TipoDeComprobante")?,
            exportacion: self.req(c, "Exportacion")?,
            metodo_pago: self.opt(c, "MetodoPago"),
            lugar_expedicion: self.req(c, "LugarExpedicion")?,
            confirmacion: self.opt(c, "Confirmacion"),
            informacion_global: match hijo(c, NS_CFDI, "InformacionGlobal") {
                Some(g) => Some(InformacionGlobal {
                    periodicidad: self.req(g, "Periodicidad")?,
                    meses: self.req(g, "Meses")?,
                    ano: self.req(g, "Año")?,
                }),
                None => None,
            },
            cfdi_relacionados: hijos(c, NS_CFDI, "CfdiRelacionados")
                .map(|r| {
                    Ok(CfdiRelacionados {
                        tipo_relacion: self.req(r, "TipoRelacion")?,
                        uuids: hijos(r, NS_CFDI, "CfdiRelacionado")
                            .map(|u| self.req(u, "UUID"))
                            .collect::<Result<_, _>>()?,
                    })
                })
                .collect::<Result<_, ErrorParseo>>()?,
            emisor: Emisor {
                rfc: self.req(emisor, "Rfc")?,
                nombre: self.req(emisor, "Nombre")?,
                regimen_fiscal: self.req(emisor, "RegimenFiscal")?,
                fac_atr_adquirente: self.opt(emisor, "FacAtrAdquirente"),
            },
            receptor: Receptor {
                rfc: self.req(receptor, "Rfc")?,
                nombre: self.req(receptor, "Nombre")?,
                domicilio_fiscal_receptor: self.req(receptor, "DomicilioFiscalReceptor")?,
                residencia_fiscal: self.opt(receptor, "ResidenciaFiscal"),
                num_reg_id_trib: self.opt(receptor, "NumRegIdTrib"),
                regimen_fiscal_receptor: self.req(receptor, "RegimenFiscalReceptor")?,
                uso_cfdi: self.req(receptor, "UsoCFDI")?,
            },
            conceptos,
            impuestos: match hijo(c, NS_CFDI, "Impuestos") {
                Some(i) => Some(self.impuestos(i)?),
                None => None,
            },
            complementos,
            addenda: hijo(c, NS_CFDI, "Addenda").map(|a| self.crudo_hijos(a)),
        })
    }

    fn impuestos(&self, i: Node<'_, '_>) -> Result<Impuestos, ErrorParseo> {
        let mut retenciones = Vec::new();
        for lista in hijos(i, NS_CFDI, "Retenciones") {
            for r in hijos(lista, NS_CFDI, "Retencion") {
                retenciones.push(RetencionComprobante {
                    impuesto: self.req(r, "Impuesto")?,
                    importe: self.num(r, "Importe")?,
                });
            }
        }
        let mut traslados = Vec::new();
        for lista in hijos(i, NS_CFDI, "Traslados") {
            for t in hijos(lista, NS_CFDI, "Traslado") {
                traslados.push(TrasladoComprobante {
                    base: self.num(t, "Base")?,
                    impuesto: self.req(t, "Impuesto")?,
                    tipo_factor: self.req(t, "TipoFactor")?,
                    tasa_o_cuota: self.opt_num(t, "TasaOCuota"),
                    importe: self.opt_num(t, "Importe"),
                });
            }
        }
        Ok(Impuestos {
            total_impuestos_retenidos: self.opt_num(i, "TotalImpuestosRetenidos"),
            total_impuestos_trasladados: self.opt_num(i, "TotalImpuestosTrasladados"),
            retenciones,
            traslados,
        })
    }

    fn concepto(&self, c: Node<'_, '_>) -> Result<Concepto, ErrorParseo> {
        let impuestos = match hijo(c, NS_CFDI, "Impuestos") {
            None => None,
            Some(i) => {
                let mut traslados = Vec::new();
                for lista in hijos(i, NS_CFDI, "Traslados") {
                    for t in hijos(lista, NS_CFDI, "Traslado") {
                        traslados.push(Traslado {
                            base: self.num(t, "Base")?,
                            impuesto: self.req(t, "Impuesto")?,
                            tipo_factor: self.req(t, "TipoFactor")?,
                            tasa_o_cuota: self.opt_num(t, "TasaOCuota"),
                            importe: self.opt_num(t, "Importe"),
                        });
                    }
                }
                let mut retenciones = Vec::new();
                for lista in hijos(i, NS_CFDI, "Retenciones") {
                    for r in hijos(lista, NS_CFDI, "Retencion") {
                        retenciones.push(Retencion {
                            base: self.num(r, "Base")?,
                            impuesto: self.req(r, "Impuesto")?,
                            tipo_factor: self.req(r, "TipoFactor")?,
                            tasa_o_cuota: self.num(r, "TasaOCuota")?,
                            importe: self.num(r, "Importe")?,
                        });
                    }
                }
                Some(ImpuestosConcepto { traslados, retenciones })
            }
        };
        let a_cuenta_terceros = match hijo(c, NS_CFDI, "ACuentaTerceros") {
            None => None,
            Some(t) => Some(ACuentaTerceros {
                rfc: self.req(t, "RfcACuentaTerceros")?,
                nombre: self.req(t, "NombreACuentaTerceros")?,
                regimen_fiscal: self.req(t, "RegimenFiscalACuentaTerceros")?,
                domicilio_fiscal: self.req(t, "DomicilioFiscalACuentaTerceros")?,
            }),
        };
        let mut partes = Vec::new();
        for p in c.descendants().filter(|nodo| es(*nodo, NS_CFDI, "Parte")) {
            partes.push(Parte {
                clave_prod_serv: self.req(p, "ClaveProdServ")?,
                no_identificacion: self.opt(p, "NoIdentificacion"),
                cantidad: self.num(p, "Cantidad")?,
                unidad: self.opt(p, "Unidad"),
                descripcion: self.req(p, "Descripcion")?,
                valor_unitario: self.opt_num(p, "ValorUnitario"),
                importe: self.opt_num(p, "Importe"),
                informacion_aduanera: p
                    .descendants()
                    .filter(|nodo| es(*nodo, NS_CFDI, "InformacionAduanera"))
                    .map(|a| self.req(a, "NumeroPedimento"))
                    .collect::<Result<_, _>>()?,
            });
        }
        Ok(Concepto {
            clave_prod_serv: self.req(c, "ClaveProdServ")?,
            no_identificacion: self.opt(c, "NoIdentificacion"),
            cantidad: self.num(c, "Cantidad")?,
            clave_unidad: self.req(c, "ClaveUnidad")?,
            unidad: self.opt(c, "Unidad"),
            descripcion: self.req(c, "Descripcion")?,
            valor_unitario: self.num(c, "ValorUnitario")?,
            importe: self.num(c, "Importe")?,
            descuento: self.opt_num(c, "Descuento"),
            objeto_imp: self.req(c, "ObjetoImp")?,
            impuestos,
            a_cuenta_terceros,
            informacion_aduanera: hijos(c, NS_CFDI, "InformacionAduanera")
                .map(|a| self.req(a, "NumeroPedimento"))
                .collect::<Result<_, _>>()?,
            cuenta_predial: hijos(c, NS_CFDI, "CuentaPredial")
                .map(|p| self.req(p, "Numero"))
                .collect::<Result<_, _>>()?,
            complemento_concepto: hijo(c, NS_CFDI, "ComplementoConcepto").map(|cc| self.crudo_hijos(cc)),
            partes,
        })
    }

    /// Raw XML of the element children of `nodo` (Addenda, ComplementoConcepto).
    fn crudo_hijos(&self, nodo: Node<'_, '_>) -> XmlCrudo {
        let mut xml = String::new();
        let mut espacio = String::new();
        for hijo in nodo.children().filter(Node::is_element) {
            let crudo = self.crudo(hijo);
            if espacio.is_empty() {
                espacio = crudo.espacio;
            }
            xml.push_str(&crudo.xml);
        }
        XmlCrudo { espacio, xml }
    }

    /// Raw XML of one element ([`xml_crudo`]).
    pub(crate) fn crudo(&self, nodo: Node<'_, '_>) -> XmlCrudo {
        xml_crudo(self.documento.input_text(), nodo)
    }
}

/// Raw XML of element `nodo` of the document whose text is `texto`, with the namespace
/// declarations it inherits added to its start tag so the fragment stands on its own (an
/// unknown complement or an addenda, kept as read; the retentions parser uses it too).
pub fn xml_crudo(texto: &str, nodo: Node<'_, '_>) -> XmlCrudo {
    let fuente = texto.get(nodo.range()).unwrap_or("");
    let fin_nombre = fuente
        .char_indices()
        .skip(1)
        .find(|(_, c)| c.is_whitespace() || *c == '/' || *c == '>')
        .map_or(fuente.len(), |(i, _)| i);
    let etiqueta = &fuente[..fin_etiqueta(fuente)];
    let mut declaraciones = String::new();
    for ns in nodo.namespaces() {
        let declaracion = match ns.name() {
            Some("xml") => continue,
            Some(prefijo) => format!("xmlns:{prefijo}"),
            None => "xmlns".to_owned(),
        };
        if declara(etiqueta, &declaracion) {
            continue;
        }
        declaraciones.push(' ');
        declaraciones.push_str(&declaracion);
        declaraciones.push_str("=\"");
        declaraciones.push_str(&crate::escritura::escapar_atributo(ns.uri()));
        declaraciones.push('"');
    }
    let mut xml = String::with_capacity(fuente.len() + declaraciones.len());
    xml.push_str(&fuente[..fin_nombre]);
    xml.push_str(&declaraciones);
    xml.push_str(&fuente[fin_nombre..]);
    XmlCrudo { espacio: nodo.tag_name().namespace().unwrap_or("").to_owned(), xml }
}

/// Byte length of the start tag at the beginning of `fuente` (up to and including `>`),
/// skipping `>` inside quoted attribute values.
fn fin_etiqueta(fuente: &str) -> usize {
    let mut comilla: Option<u8> = None;
    for (indice, byte) in fuente.bytes().enumerate() {
        match (comilla, byte) {
            (None, b'"' | b'\'') => comilla = Some(byte),
            (Some(abierta), _) if abierta == byte => comilla = None,
            (None, b'>') => return indice + 1,
            _ => {}
        }
    }
    fuente.len()
}

/// Whether a start tag declares `declaracion` (`xmlns` or `xmlns:p`) itself.
fn declara(etiqueta: &str, declaracion: &str) -> bool {
    let mut resto = etiqueta;
    while let Some(posicion) = resto.find(declaracion) {
        let antes = resto[..posicion].chars().next_back();
        let despues = resto[posicion + declaracion.len()..].trim_start();
        if antes.is_some_and(char::is_whitespace) && despues.starts_with('=') {
            return true;
        }
        resto = &resto[posicion + declaracion.len()..];
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_localizado() {
        let error = parsear("<cfdi:Comprobante xmlns:cfdi=\"http://www.sat.gob.mx/cfd/4\">\n  <a></b>").unwrap_err();
        match error {
            ErrorParseo::Xml(ErrorXml { linea, .. }) => assert_eq!(linea, 2),
            otro => panic!("error inesperado {otro:?}"),
        }
    }

    #[test]
    fn raiz_equivocada() {
        let error = parsear(r#"<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/3"/>"#).unwrap_err();
        assert!(matches!(error, ErrorParseo::NoEsCfdi40 { .. }));
    }

    #[test]
    fn utf8_invalido_localizado() {
        let error = parsear_bytes(b"<a>\n\xff</a>").unwrap_err();
        assert!(matches!(error, ErrorParseo::Xml(ErrorXml { linea: 2, columna: 1, .. })));
    }

    const GOLDEN: &str = include_str!("../tests/golden/P_pagos20.xml");

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(300))]

        /// Malformed input (a golden document cut, with bytes replaced or inserted) gives a
        /// model or an error, never a panic; XML errors carry a position.
        #[test]
        fn nunca_entra_en_panico(corte in 0usize..GOLDEN.len(), posicion in 0usize..GOLDEN.len(), byte in proptest::num::u8::ANY, insertar in proptest::bool::ANY) {
            let mut bytes = GOLDEN.as_bytes().to_vec();
            if insertar {
                bytes.insert(posicion, byte);
            } else {
                bytes[posicion] = byte;
            }
            bytes.truncate(corte.max(posicion));
            match parsear_bytes(&bytes) {
                Ok(modelo) => {
                    let xml = crate::escritura::escribir(&modelo).unwrap();
                    proptest::prop_assert!(parsear(&xml).is_ok());
                }
                Err(ErrorParseo::Xml(error)) => proptest::prop_assert!(error.linea >= 1 && error.columna >= 1),
                Err(_) => {}
            }
            let _ = crate::cadena::desde_xml(&String::from_utf8_lossy(&bytes));
        }

        /// Arbitrary text never panics either.
        #[test]
        fn texto_arbitrario(texto in "\\PC{0,200}") {
            let _ = parsear(&texto);
            let _ = crate::cadena::desde_xml(&texto);
        }
    }

    #[test]
    fn crudo_agrega_espacios_heredados() {
        let xml = r#"<r xmlns:x="urn:x" xmlns:y="urn:y"><x:a y:b="1" xmlns:z="urn:z"><z:c/></x:a></r>"#;
        let documento = documento(xml).unwrap();
        let lector = Lector { documento: &documento };
        let nodo = documento.root_element().first_element_child().unwrap();
        let crudo = lector.crudo(nodo);
        let reparseado = Document::parse(&crudo.xml).unwrap();
        assert_eq!(reparseado.root_element().tag_name().namespace(), Some("urn:x"));
        assert_eq!(crudo.espacio, "urn:x");
    }
}
