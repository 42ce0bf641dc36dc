//! Parser (roxmltree) from Retenciones 2.0 XML into the model.
//!
//! Reads any prefix, a UTF-8 BOM, pretty-printing and character references. Values are
//! typed as they are read: a code outside its catalog, an amount that is not a decimal or a
//! malformed date is an [`ErrorParseo::ValorInvalido`] that names the element and attribute,
//! never a panic. The Plataformas Tecnológicas complement and the TFD are read into their
//! models; any other complement is kept as raw XML ([`XmlCrudo`]).
//!
//! The model keeps values, not their text: a received document whose amounts carry leading
//! zeros (`0100.00`) reads as `100.00`. Its seal is verified on the XML itself
//! ([`crate::sello::verificar_sello_xml`]), whose cadena never goes through the model.

use std::str::FromStr;

use roxmltree::{Document, Node};
use rust_decimal::Decimal;
use timbra_cfdi::parser::ErrorXml;
use timbra_cfdi::tfd::NS_TFD;
use timbra_cfdi::{CodigoPostal, Rfc};

use crate::catalogos::*;
use crate::model::*;

/// Why a document could not be read into the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorParseo {
    /// Not well-formed XML (or not UTF-8).
    #[error(transparent)]
    Xml(#[from] ErrorXml),
    /// The root is not a Retenciones 2.0 document.
    #[error("el elemento raíz es {encontrado}; se esperaba {{{NS_RETENCIONES}}}Retenciones con Version=\"2.0\"")]
    NoEsRetenciones20 {
        /// Expanded name (and version) of the root found.
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
    /// An attribute's value is not of its type (catalog code, amount, date, RFC…).
    #[error(
        "{elemento}/@{atributo} = «{valor}» no es válido: se esperaba {esperado} (línea {linea}, columna {columna})"
    )]
    ValorInvalido {
        /// Element local name.
        elemento: String,
        /// Attribute name.
        atributo: String,
        /// The value found.
        valor: String,
        /// What the schema expects.
        esperado: String,
        /// Line of the element.
        linea: u32,
        /// Column of the element.
        columna: u32,
    },
}

/// Parses a Retenciones 2.0 document from text.
pub fn parsear(xml: &str) -> Result<Retenciones, ErrorParseo> {
    let documento = timbra_cfdi::parser::documento(xml)?;
    desde_documento(&documento)
}

/// Parses a Retenciones 2.0 document from bytes (UTF-8, optional BOM).
pub fn parsear_bytes(xml: &[u8]) -> Result<Retenciones, ErrorParseo> {
    let documento = timbra_cfdi::parser::documento_bytes(xml)?;
    desde_documento(&documento)
}

/// Reads the model out of a parsed document.
pub fn desde_documento(documento: &Document<'_>) -> Result<Retenciones, ErrorParseo> {
    Lector { documento }.retenciones(documento.root_element())
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

/// `{namespace}name` of an element.
pub(crate) fn nombre_expandido(nodo: Node<'_, '_>) -> String {
    match nodo.tag_name().namespace() {
        Some(ns) => format!("{{{ns}}}{}", nodo.tag_name().name()),
        None => nodo.tag_name().name().to_owned(),
    }
}

struct Lector<'d, 'i> {
    documento: &'d Document<'i>,
}

impl Lector<'_, '_> {
    fn posicion(&self, nodo: Node<'_, '_>) -> (u32, u32) {
        let posicion = self.documento.text_pos_at(nodo.range().start);
        (posicion.row, posicion.col)
    }

    fn req<'n>(&self, nodo: Node<'n, '_>, atributo: &str) -> Result<&'n str, ErrorParseo> {
        nodo.attribute(atributo).ok_or_else(|| {
            let (linea, columna) = self.posicion(nodo);
            ErrorParseo::FaltaAtributo {
                elemento: nodo.tag_name().name().to_owned(),
                atributo: atributo.to_owned(),
                linea,
                columna,
            }
        })
    }

    fn falta(&self, nodo: Node<'_, '_>, hijo: &str) -> ErrorParseo {
        let (linea, columna) = self.posicion(nodo);
        ErrorParseo::FaltaElemento {
            elemento: nodo.tag_name().name().to_owned(),
            hijo: hijo.to_owned(),
            linea,
            columna,
        }
    }

    fn invalido(&self, nodo: Node<'_, '_>, atributo: &str, valor: &str, esperado: &str) -> ErrorParseo {
        let (linea, columna) = self.posicion(nodo);
        ErrorParseo::ValorInvalido {
            elemento: nodo.tag_name().name().to_owned(),
            atributo: atributo.to_owned(),
            valor: valor.to_owned(),
            esperado: esperado.to_owned(),
            linea,
            columna,
        }
    }

    /// A required attribute converted by `convertir` (whitespace collapsed first, as the
    /// schema's `whiteSpace="collapse"` does); `esperado` names the type in the error.
    fn valor<T>(
        &self,
        nodo: Node<'_, '_>,
        atributo: &str,
        esperado: &str,
        convertir: impl Fn(&str) -> Option<T>,
    ) -> Result<T, ErrorParseo> {
        let texto = self.req(nodo, atributo)?;
        convertir(texto.trim()).ok_or_else(|| self.invalido(nodo, atributo, texto, esperado))
    }

    fn opcional<T>(
        &self,
        nodo: Node<'_, '_>,
        atributo: &str,
        esperado: &str,
        convertir: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, ErrorParseo> {
        match nodo.attribute(atributo) {
            Some(_) => self.valor(nodo, atributo, esperado, convertir).map(Some),
            None => Ok(None),
        }
    }

    fn texto(&self, nodo: Node<'_, '_>, atributo: &str) -> Result<String, ErrorParseo> {
        self.req(nodo, atributo).map(str::to_owned)
    }

    fn decimal(&self, nodo: Node<'_, '_>, atributo: &str) -> Result<Decimal, ErrorParseo> {
        self.valor(nodo, atributo, "un importe decimal", decimal)
    }

    fn decimal_opt(&self, nodo: Node<'_, '_>, atributo: &str) -> Result<Option<Decimal>, ErrorParseo> {
        self.opcional(nodo, atributo, "un importe decimal", decimal)
    }

    fn retenciones(&self, r: Node<'_, '_>) -> Result<Retenciones, ErrorParseo> {
        if !es(r, NS_RETENCIONES, "Retenciones") || r.attribute("Version").map(str::trim) != Some(VERSION) {
            let version = r.attribute("Version").map(|v| format!(" Version=\"{v}\"")).unwrap_or_default();
            return Err(ErrorParseo::NoEsRetenciones20 { encontrado: format!("{}{version}", nombre_expandido(r)) });
        }
        let emisor = hijo(r, NS_RETENCIONES, "Emisor").ok_or_else(|| self.falta(r, "Emisor"))?;
        let receptor = hijo(r, NS_RETENCIONES, "Receptor").ok_or_else(|| self.falta(r, "Receptor"))?;
        let periodo = hijo(r, NS_RETENCIONES, "Periodo").ok_or_else(|| self.falta(r, "Periodo"))?;
        let totales = hijo(r, NS_RETENCIONES, "Totales").ok_or_else(|| self.falta(r, "Totales"))?;
        let cfdi_reten_relacionados = match hijo(r, NS_RETENCIONES, "CfdiRetenRelacionados") {
            Some(rel) => Some(CfdiRetenRelacionados {
                tipo_relacion: self.valor(
                    rel,
                    "TipoRelacion",
                    "una clave de c_TipoRelacion",
                    TipoRelacion::desde_codigo,
                )?,
                uuid: self.texto(rel, "UUID")?,
            }),
            None => None,
        };
        let mut complementos = Vec::new();
        for complemento in hijos(r, NS_RETENCIONES, "Complemento") {
            for nodo in complemento.children().filter(Node::is_element) {
                complementos.push(self.complemento(nodo)?);
            }
        }
        let addenda = hijo(r, NS_RETENCIONES, "Addenda").map(|addenda| self.crudo_hijos(addenda));
        Ok(Retenciones {
            folio_int: r.attribute("FolioInt").map(str::to_owned),
            sello: self.texto(r, "Sello")?,
            no_certificado: self.texto(r, "NoCertificado")?,
            certificado: self.texto(r, "Certificado")?,
            fecha_exp: self.valor(r, "FechaExp", "una fecha AAAA-MM-DDThh:mm:ss", leer_fecha_hora)?,
            lugar_exp_retenc: self
                .valor(r, "LugarExpRetenc", "un código postal de 5 dígitos", |t| CodigoPostal::new(t).ok())?,
            cve_retenc: self.valor(r, "CveRetenc", "una clave de c_CveRetenc", CveRetenc::desde_codigo)?,
            desc_retenc: r.attribute("DescRetenc").map(str::to_owned),
            cfdi_reten_relacionados,
            emisor: Emisor {
                rfc_e: self.valor(emisor, "RfcE", "un RFC", |t| Rfc::new(t).ok())?,
                nom_den_raz_soc_e: self.texto(emisor, "NomDenRazSocE")?,
                regimen_fiscal_e: self.valor(
                    emisor,
                    "RegimenFiscalE",
                    "una clave de c_RegimenFiscal",
                    RegimenFiscal::desde_codigo,
                )?,
            },
            receptor: self.receptor(receptor)?,
            periodo: Periodo {
                mes_ini: self.valor(periodo, "MesIni", "un mes 01 a 12 (c_Periodo)", Mes::desde_codigo)?,
                mes_fin: self.valor(periodo, "MesFin", "un mes 01 a 12 (c_Periodo)", Mes::desde_codigo)?,
                ejercicio: self.valor(periodo, "Ejercicio", "un año de cuatro dígitos", |t| {
                    if t.len() == 4 && t.bytes().all(|b| b.is_ascii_digit()) { t.parse().ok() } else { None }
                })?,
            },
            totales: self.totales(totales)?,
            complementos,
            addenda,
        })
    }

    fn receptor(&self, receptor: Node<'_, '_>) -> Result<Receptor, ErrorParseo> {
        let nacionalidad = self.req(receptor, "NacionalidadR")?;
        match nacionalidad.trim() {
            "Nacional" => {
                let n = hijo(receptor, NS_RETENCIONES, "Nacional").ok_or_else(|| self.falta(receptor, "Nacional"))?;
                Ok(Receptor::Nacional(ReceptorNacional {
                    rfc_r: self.valor(n, "RfcR", "un RFC", |t| Rfc::new(t).ok())?,
                    nom_den_raz_soc_r: self.texto(n, "NomDenRazSocR")?,
                    curp_r: n.attribute("CurpR").map(str::to_owned),
                    domicilio_fiscal_r: self.valor(n, "DomicilioFiscalR", "un código postal de 5 dígitos", |t| {
                        CodigoPostal::new(t).ok()
                    })?,
                }))
            }
            "Extranjero" => {
                let x =
                    hijo(receptor, NS_RETENCIONES, "Extranjero").ok_or_else(|| self.falta(receptor, "Extranjero"))?;
                Ok(Receptor::Extranjero(ReceptorExtranjero {
                    num_reg_id_trib_r: x.attribute("NumRegIdTribR").map(str::to_owned),
                    nom_den_raz_soc_r: self.texto(x, "NomDenRazSocR")?,
                }))
            }
            otro => Err(self.invalido(receptor, "NacionalidadR", otro, "Nacional o Extranjero")),
        }
    }

    fn totales(&self, t: Node<'_, '_>) -> Result<Totales, ErrorParseo> {
        let mut imp_retenidos = Vec::new();
        for imp in hijos(t, NS_RETENCIONES, "ImpRetenidos") {
            imp_retenidos.push(ImpRetenidos {
                base_ret: self.decimal_opt(imp, "BaseRet")?,
                impuesto_ret: self.opcional(imp, "ImpuestoRet", "una clave de c_Impuesto", Impuesto::desde_codigo)?,
                monto_ret: self.decimal(imp, "MontoRet")?,
                tipo_pago_ret: self.valor(
                    imp,
                    "TipoPagoRet",
                    "una clave de c_TipoPagoRet",
                    TipoPagoRet::desde_codigo,
                )?,
            });
        }
        Ok(Totales {
            monto_tot_operacion: self.decimal(t, "MontoTotOperacion")?,
            monto_tot_grav: self.decimal(t, "MontoTotGrav")?,
            monto_tot_exent: self.decimal(t, "MontoTotExent")?,
            monto_tot_ret: self.decimal(t, "MontoTotRet")?,
            utilidad_bimestral: self.decimal_opt(t, "UtilidadBimestral")?,
            isr_correspondiente: self.decimal_opt(t, "ISRCorrespondiente")?,
            imp_retenidos,
        })
    }

    fn complemento(&self, nodo: Node<'_, '_>) -> Result<Complemento, ErrorParseo> {
        if es(nodo, NS_PLATAFORMAS, "ServiciosPlataformasTecnologicas") && nodo.attribute("Version") == Some("1.0") {
            return Ok(Complemento::PlataformasTecnologicas(Box::new(self.plataformas(nodo)?)));
        }
        // A TFD with content would add its text to the cadena (XSLT built-in rule): such an
        // unusual element is kept verbatim, as timbra-cfdi does.
        if es(nodo, NS_TFD, "TimbreFiscalDigital") && !nodo.has_children() {
            return Ok(Complemento::TimbreFiscalDigital(Box::new(TimbreFiscalDigital {
                version: self.texto(nodo, "Version")?,
                uuid: self.texto(nodo, "UUID")?,
                fecha_timbrado: self.texto(nodo, "FechaTimbrado")?,
                rfc_prov_certif: self.texto(nodo, "RfcProvCertif")?,
                leyenda: nodo.attribute("Leyenda").map(str::to_owned),
                sello_cfd: self.texto(nodo, "SelloCFD")?,
                no_certificado_sat: self.texto(nodo, "NoCertificadoSAT")?,
                sello_sat: self.texto(nodo, "SelloSAT")?,
            })));
        }
        Ok(Complemento::Otro(self.crudo(nodo)))
    }

    fn plataformas(&self, p: Node<'_, '_>) -> Result<ServiciosPlataformasTecnologicas, ErrorParseo> {
        let lista = hijo(p, NS_PLATAFORMAS, "Servicios").ok_or_else(|| self.falta(p, "Servicios"))?;
        let mut servicios = Vec::new();
        for s in hijos(lista, NS_PLATAFORMAS, "DetallesDelServicio") {
            servicios.push(self.servicio(s)?);
        }
        Ok(ServiciosPlataformasTecnologicas {
            periodicidad: self.valor(p, "Periodicidad", "una clave de c_Periodicidad", Periodicidad::desde_codigo)?,
            num_serv: self.valor(p, "NumServ", "un entero positivo", |t| t.parse().ok())?,
            mon_tot_serv_siva: self.decimal(p, "MonTotServSIVA")?,
            total_iva_trasladado: self.decimal(p, "TotalIVATrasladado")?,
            total_iva_retenido: self.decimal(p, "TotalIVARetenido")?,
            total_isr_retenido: self.decimal(p, "TotalISRRetenido")?,
            dif_iva_entregado_prest_serv: self.decimal(p, "DifIVAEntregadoPrestServ")?,
            mon_totalpor_uso_plataforma: self.decimal(p, "MonTotalporUsoPlataforma")?,
            mon_total_contribucion_gubernamental: self.decimal_opt(p, "MonTotalContribucionGubernamental")?,
            servicios,
        })
    }

    fn servicio(&self, s: Node<'_, '_>) -> Result<DetallesDelServicio, ErrorParseo> {
        let impuestos = match hijo(s, NS_PLATAFORMAS, "ImpuestosTrasladadosdelServicio") {
            Some(i) => {
                self.valor(i, "TipoFactor", "Tasa", |t| (t == "Tasa").then_some(()))?;
                Some(ImpuestosTrasladadosDelServicio {
                    base: self.decimal(i, "Base")?,
                    impuesto: self.valor(i, "Impuesto", "una clave de c_TipoImpuesto", TipoImpuesto::desde_codigo)?,
                    tasa_cuota: self
                        .valor(i, "TasaCuota", "un valor de c_TasaCuota", |t| TasaCuota::desde_valor(decimal(t)?))?,
                    importe: self.decimal(i, "Importe")?,
                })
            }
            None => None,
        };
        let contribucion = match hijo(s, NS_PLATAFORMAS, "ContribucionGubernamental") {
            Some(c) => Some(ContribucionGubernamental {
                imp_contrib: self.decimal(c, "ImpContrib")?,
                entidad_donde_paga_la_contribucion: self.valor(
                    c,
                    "EntidadDondePagaLaContribucion",
                    "una clave de c_EntidadesFederativas",
                    EntidadFederativa::desde_codigo,
                )?,
            }),
            None => None,
        };
        let comision = match hijo(s, NS_PLATAFORMAS, "ComisionDelServicio") {
            Some(c) => Some(ComisionDelServicio {
                base: self.decimal_opt(c, "Base")?,
                porcentaje: self.decimal_opt(c, "Porcentaje")?,
                importe: self.decimal(c, "Importe")?,
            }),
            None => None,
        };
        Ok(DetallesDelServicio {
            forma_pago_serv: self.valor(
                s,
                "FormaPagoServ",
                "una clave de c_FormaPagoServ",
                FormaPagoServ::desde_codigo,
            )?,
            tipo_de_serv: self.valor(s, "TipoDeServ", "una clave de c_TipoDeServ", TipoDeServ::desde_codigo)?,
            sub_tip_serv: self.opcional(s, "SubTipServ", "una clave de c_SubTipoServ", SubTipoServ::desde_codigo)?,
            rfc_tercero_autorizado: self.opcional(s, "RFCTerceroAutorizado", "un RFC", |t| Rfc::new(t).ok())?,
            fecha_serv: self.valor(s, "FechaServ", "una fecha AAAA-MM-DD", leer_fecha)?,
            precio_serv_sin_iva: self.decimal(s, "PrecioServSinIVA")?,
            impuestos_trasladados_del_servicio: impuestos,
            contribucion_gubernamental: contribucion,
            comision_del_servicio: comision,
        })
    }

    /// Raw XML of the element children of `nodo` (Addenda).
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

    /// Raw XML of one element, standing on its own (`timbra_cfdi::parser::xml_crudo`).
    fn crudo(&self, nodo: Node<'_, '_>) -> XmlCrudo {
        timbra_cfdi::parser::xml_crudo(self.documento.input_text(), nodo)
    }
}

/// A decimal in plain notation (`[0-9]+(\.[0-9]+)?`, as the schema's pattern), never a float.
pub(crate) fn decimal(texto: &str) -> Option<Decimal> {
    let (entero, fraccion) = texto.split_once('.').map_or((texto, None), |(e, f)| (e, Some(f)));
    let digitos = |parte: &str| !parte.is_empty() && parte.bytes().all(|b| b.is_ascii_digit());
    if !digitos(entero) || fraccion.is_some_and(|f| !digitos(f)) {
        return None;
    }
    Decimal::from_str(texto).ok()
}
