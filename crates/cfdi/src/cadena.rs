//! Native cadena original, byte-identical to SAT's XSLT run by `xsltproc`.
//!
//! Anexo 20, apartado "Secuencia de formación de la cadena original", implemented by SAT's
//! `cadenaoriginal_4_0.xslt` (with `utilerias.xslt`, `Pagos20.xslt`, `nomina12.xslt`,
//! `implocal.xslt`) and `cadenaoriginal_TFD_1_1.xslt`:
//!
//! * the cadena starts with `||` and ends with `||`; every value is preceded by `|`;
//! * *Requerido* values are always written, even when the attribute is missing (empty);
//! * *Opcional* values are written when the attribute exists, even if it is empty;
//! * every value goes through XPath `normalize-space` (trim, collapse runs of
//!   `#x20 #x9 #xD #xA` into one space);
//! * elements are visited in the order the stylesheet names them, each group in document
//!   order.
//!
//! Two entry points: [`desde_xml`] reads any document (received invoices, samples) and
//! [`desde_comprobante`] works on the model (the fast path used for sealing). Documents with
//! a complement whose stylesheet this crate does not implement get
//! [`CadenaError::ComplementoNoSoportado`], never a wrong cadena.

use roxmltree::{Document, Node};

use crate::implocal::{ImpuestosLocales, NS_IMPLOCAL};
use crate::model::{Complemento, Comprobante, NS_CFDI};
use crate::nomina::{NS_NOMINA12, Nomina};
use crate::numero::Numero;
use crate::pagos::{NS_PAGOS20, Pagos};
use crate::parser::{self, ErrorXml};
use crate::tfd::{NS_TFD, TimbreFiscalDigital};

/// Why a cadena original could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CadenaError {
    /// The input is not well-formed XML.
    #[error(transparent)]
    Xml(#[from] ErrorXml),
    /// The root element is not `{http://www.sat.gob.mx/cfd/4}Comprobante` (or, for the TFD
    /// cadena, no `TimbreFiscalDigital` was found).
    #[error("el elemento raíz es {encontrado}, se esperaba {esperado}")]
    RaizInesperada {
        /// Expanded name of the element found.
        encontrado: String,
        /// Expanded name expected.
        esperado: String,
    },
    /// A complement whose cadena rules this crate does not implement.
    #[error("complemento no soportado para la cadena original: {{{espacio}}}{nombre}")]
    ComplementoNoSoportado {
        /// Namespace URI of the complement.
        espacio: String,
        /// Local name of the complement element.
        nombre: String,
    },
}

/// Appends `valor` after XPath 1.0 `normalize-space` (utilerias.xslt `ManejaEspacios`).
pub fn normalizar_espacios(salida: &mut String, valor: &str) {
    let es_blanco = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let bytes = valor.as_bytes();
    // Fast path: nothing to collapse or trim.
    let limpio = !bytes.first().is_some_and(|&b| es_blanco(b))
        && !bytes.last().is_some_and(|&b| es_blanco(b))
        && !bytes.windows(2).any(|par| es_blanco(par[0]) && (es_blanco(par[1]) || par[0] != b' '))
        && !bytes.iter().any(|&b| matches!(b, b'\t' | b'\n' | b'\r'));
    if limpio {
        salida.push_str(valor);
        return;
    }
    let mut primero = true;
    for palabra in valor.split([' ', '\t', '\n', '\r']).filter(|palabra| !palabra.is_empty()) {
        if !primero {
            salida.push(' ');
        }
        salida.push_str(palabra);
        primero = false;
    }
}

/// Accumulates the cadena.
struct Cadena {
    texto: String,
}

impl Cadena {
    fn con_capacidad(capacidad: usize) -> Self {
        let mut texto = String::with_capacity(capacidad);
        texto.push('|');
        Self { texto }
    }

    /// utilerias.xslt `Requerido`.
    fn req(&mut self, valor: &str) {
        self.texto.push('|');
        normalizar_espacios(&mut self.texto, valor);
    }

    /// utilerias.xslt `Opcional`.
    fn opt(&mut self, valor: Option<&str>) {
        if let Some(valor) = valor {
            self.req(valor);
        }
    }

    fn num(&mut self, valor: &Numero) {
        self.req(valor.texto());
    }

    fn opt_num(&mut self, valor: Option<&Numero>) {
        self.opt(valor.map(Numero::texto));
    }

    fn terminar(mut self) -> String {
        self.texto.push_str("||");
        self.texto
    }
}

// ---------------------------------------------------------------------------------------
// From the model
// ---------------------------------------------------------------------------------------

/// Cadena original of a CFDI 4.0 from the model (the fast path used when sealing).
pub fn desde_comprobante(c: &Comprobante) -> Result<String, CadenaError> {
    let mut k = Cadena::con_capacidad(1024 + c.conceptos.len() * 160);
    k.req(&c.version);
    k.opt(c.serie.as_deref());
    k.opt(c.folio.as_deref());
    k.req(&c.fecha);
    k.opt(c.forma_pago.as_deref());
    k.req(&c.no_certificado);
    k.opt(c.condiciones_de_pago.as_deref());
    k.num(&c.sub_total);
    k.opt_num(c.descuento.as_ref());
    k.req(&c.moneda);
    k.opt_num(c.tipo_cambio.as_ref());
    k.num(&c.total);
    k.req(&c.tipo_de_comprobante);
    k.req(&c.exportacion);
    k.opt(c.metodo_pago.as_deref());
    k.req(&c.lugar_expedicion);
    k.opt(c.confirmacion.as_deref());
    if let Some(global) = &c.informacion_global {
        k.req(&global.periodicidad);
        k.req(&global.meses);
        k.req(&global.ano);
    }
    for relacionados in &c.cfdi_relacionados {
        k.req(&relacionados.tipo_relacion);
        for uuid in &relacionados.uuids {
            k.req(uuid);
        }
    }
    k.req(&c.emisor.rfc);
    k.req(&c.emisor.nombre);
    k.req(&c.emisor.regimen_fiscal);
    k.opt(c.emisor.fac_atr_adquirente.as_deref());
    let r = &c.receptor;
    k.req(&r.rfc);
    k.req(&r.nombre);
    k.req(&r.domicilio_fiscal_receptor);
    k.opt(r.residencia_fiscal.as_deref());
    k.opt(r.num_reg_id_trib.as_deref());
    k.req(&r.regimen_fiscal_receptor);
    k.req(&r.uso_cfdi);
    for concepto in &c.conceptos {
        k.req(&concepto.clave_prod_serv);
        k.opt(concepto.no_identificacion.as_deref());
        k.num(&concepto.cantidad);
        k.req(&concepto.clave_unidad);
        k.opt(concepto.unidad.as_deref());
        k.req(&concepto.descripcion);
        k.num(&concepto.valor_unitario);
        k.num(&concepto.importe);
        k.opt_num(concepto.descuento.as_ref());
        k.req(&concepto.objeto_imp);
        if let Some(impuestos) = &concepto.impuestos {
            for t in &impuestos.traslados {
                k.num(&t.base);
                k.req(&t.impuesto);
                k.req(&t.tipo_factor);
                k.opt_num(t.tasa_o_cuota.as_ref());
                k.opt_num(t.importe.as_ref());
            }
            for r in &impuestos.retenciones {
                k.num(&r.base);
                k.req(&r.impuesto);
                k.req(&r.tipo_factor);
                k.num(&r.tasa_o_cuota);
                k.num(&r.importe);
            }
        }
        if let Some(terceros) = &concepto.a_cuenta_terceros {
            k.req(&terceros.rfc);
            k.req(&terceros.nombre);
            k.req(&terceros.regimen_fiscal);
            k.req(&terceros.domicilio_fiscal);
        }
        for pedimento in &concepto.informacion_aduanera {
            k.req(pedimento);
        }
        for numero in &concepto.cuenta_predial {
            k.req(numero);
        }
        if let Some(complemento) = &concepto.complemento_concepto {
            // Concept complements are stylesheets this crate does not implement; the raw
            // fragment is re-read so an empty ComplementoConcepto still works.
            cadena_de_fragmento(&mut k, &complemento.xml)?;
        }
        for parte in &concepto.partes {
            k.req(&parte.clave_prod_serv);
            k.opt(parte.no_identificacion.as_deref());
            k.num(&parte.cantidad);
            k.opt(parte.unidad.as_deref());
            k.req(&parte.descripcion);
            k.opt_num(parte.valor_unitario.as_ref());
            k.opt_num(parte.importe.as_ref());
            for pedimento in &parte.informacion_aduanera {
                k.req(pedimento);
            }
        }
    }
    if let Some(impuestos) = &c.impuestos {
        for retencion in &impuestos.retenciones {
            k.req(&retencion.impuesto);
            k.num(&retencion.importe);
        }
        k.opt_num(impuestos.total_impuestos_retenidos.as_ref());
        for traslado in &impuestos.traslados {
            k.num(&traslado.base);
            k.req(&traslado.impuesto);
            k.req(&traslado.tipo_factor);
            k.opt_num(traslado.tasa_o_cuota.as_ref());
            k.opt_num(traslado.importe.as_ref());
        }
        k.opt_num(impuestos.total_impuestos_trasladados.as_ref());
    }
    for complemento in &c.complementos {
        match complemento {
            Complemento::Pagos(pagos) => cadena_pagos(&mut k, pagos),
            Complemento::Nomina(nomina) => cadena_nomina(&mut k, nomina),
            Complemento::ImpuestosLocales(locales) => cadena_implocal(&mut k, locales),
            // cadenaoriginal_4_0.xslt has no template for the TFD: the built-in rule copies
            // its text content, which the model (an empty element) does not have.
            Complemento::TimbreFiscalDigital(_) => {}
            Complemento::Otro(crudo) => cadena_de_fragmento(&mut k, &crudo.xml)?,
        }
    }
    Ok(k.terminar())
}

/// Re-reads a raw fragment (one or more elements) and applies the XSLT rules to it.
fn cadena_de_fragmento(k: &mut Cadena, xml: &str) -> Result<(), CadenaError> {
    if xml.trim().is_empty() {
        return Ok(());
    }
    let envuelto = format!("<r>{xml}</r>");
    let documento = Document::parse(&envuelto).map_err(|error| ErrorXml::de_roxmltree(&error))?;
    for hijo in documento.root_element().children().filter(Node::is_element) {
        aplicar_plantillas(k, hijo)?;
    }
    Ok(())
}

fn cadena_pagos(k: &mut Cadena, p: &Pagos) {
    k.req(&p.version);
    let t = &p.totales;
    k.opt_num(t.total_retenciones_iva.as_ref());
    k.opt_num(t.total_retenciones_isr.as_ref());
    k.opt_num(t.total_retenciones_ieps.as_ref());
    k.opt_num(t.total_traslados_base_iva16.as_ref());
    k.opt_num(t.total_traslados_impuesto_iva16.as_ref());
    k.opt_num(t.total_traslados_base_iva8.as_ref());
    k.opt_num(t.total_traslados_impuesto_iva8.as_ref());
    k.opt_num(t.total_traslados_base_iva0.as_ref());
    k.opt_num(t.total_traslados_impuesto_iva0.as_ref());
    k.opt_num(t.total_traslados_base_iva_exento.as_ref());
    k.num(&t.monto_total_pagos);
    for pago in &p.pagos {
        k.req(&pago.fecha_pago);
        k.req(&pago.forma_de_pago_p);
        k.req(&pago.moneda_p);
        k.opt_num(pago.tipo_cambio_p.as_ref());
        k.num(&pago.monto);
        k.opt(pago.num_operacion.as_deref());
        k.opt(pago.rfc_emisor_cta_ord.as_deref());
        k.opt(pago.nom_banco_ord_ext.as_deref());
        k.opt(pago.cta_ordenante.as_deref());
        k.opt(pago.rfc_emisor_cta_ben.as_deref());
        k.opt(pago.cta_beneficiario.as_deref());
        k.opt(pago.tipo_cad_pago.as_deref());
        k.opt(pago.cert_pago.as_deref());
        k.opt(pago.cad_pago.as_deref());
        k.opt(pago.sello_pago.as_deref());
        for d in &pago.doctos_relacionados {
            k.req(&d.id_documento);
            k.opt(d.serie.as_deref());
            k.opt(d.folio.as_deref());
            k.req(&d.moneda_dr);
            k.opt_num(d.equivalencia_dr.as_ref());
            k.req(&d.num_parcialidad);
            k.num(&d.imp_saldo_ant);
            k.num(&d.imp_pagado);
            k.num(&d.imp_saldo_insoluto);
            k.req(&d.objeto_imp_dr);
            if let Some(impuestos) = &d.impuestos_dr {
                for r in &impuestos.retenciones_dr {
                    k.num(&r.base_dr);
                    k.req(&r.impuesto_dr);
                    k.req(&r.tipo_factor_dr);
                    k.num(&r.tasa_o_cuota_dr);
                    k.num(&r.importe_dr);
                }
                for t in &impuestos.traslados_dr {
                    k.num(&t.base_dr);
                    k.req(&t.impuesto_dr);
                    k.req(&t.tipo_factor_dr);
                    k.opt_num(t.tasa_o_cuota_dr.as_ref());
                    k.opt_num(t.importe_dr.as_ref());
                }
            }
        }
        if let Some(impuestos) = &pago.impuestos_p {
            for r in &impuestos.retenciones_p {
                k.req(&r.impuesto_p);
                k.num(&r.importe_p);
            }
            for t in &impuestos.traslados_p {
                k.num(&t.base_p);
                k.req(&t.impuesto_p);
                k.req(&t.tipo_factor_p);
                k.opt_num(t.tasa_o_cuota_p.as_ref());
                k.opt_num(t.importe_p.as_ref());
            }
        }
    }
}

fn cadena_implocal(k: &mut Cadena, l: &ImpuestosLocales) {
    k.req(&l.version);
    k.num(&l.total_de_retenciones);
    k.num(&l.total_de_traslados);
    for r in &l.retenciones_locales {
        k.req(&r.imp_loc_retenido);
        k.num(&r.tasa_de_retencion);
        k.num(&r.importe);
    }
    for t in &l.traslados_locales {
        k.req(&t.imp_loc_trasladado);
        k.num(&t.tasa_de_traslado);
        k.num(&t.importe);
    }
}

fn cadena_nomina(k: &mut Cadena, n: &Nomina) {
    k.req(&n.version);
    k.req(&n.tipo_nomina);
    k.req(&n.fecha_pago);
    k.req(&n.fecha_inicial_pago);
    k.req(&n.fecha_final_pago);
    k.num(&n.num_dias_pagados);
    k.opt_num(n.total_percepciones.as_ref());
    k.opt_num(n.total_deducciones.as_ref());
    k.opt_num(n.total_otros_pagos.as_ref());
    if let Some(emisor) = &n.emisor {
        k.opt(emisor.curp.as_deref());
        k.opt(emisor.registro_patronal.as_deref());
        k.opt(emisor.rfc_patron_origen.as_deref());
        if let Some(entidad) = &emisor.entidad_sncf {
            k.req(&entidad.origen_recurso);
            k.opt_num(entidad.monto_recurso_propio.as_ref());
        }
    }
    let r = &n.receptor;
    k.req(&r.curp);
    k.opt(r.num_seguridad_social.as_deref());
    k.opt(r.fecha_inicio_rel_laboral.as_deref());
    k.opt(r.antiguedad.as_deref());
    k.req(&r.tipo_contrato);
    k.opt(r.sindicalizado.as_deref());
    k.opt(r.tipo_jornada.as_deref());
    k.req(&r.tipo_regimen);
    k.req(&r.num_empleado);
    k.opt(r.departamento.as_deref());
    k.opt(r.puesto.as_deref());
    k.opt(r.riesgo_puesto.as_deref());
    k.req(&r.periodicidad_pago);
    k.opt(r.banco.as_deref());
    k.opt(r.cuenta_bancaria.as_deref());
    k.opt_num(r.salario_base_cot_apor.as_ref());
    k.opt_num(r.salario_diario_integrado.as_ref());
    k.req(&r.clave_ent_fed);
    for s in &r.subcontratacion {
        k.req(&s.rfc_labora);
        k.num(&s.porcentaje_tiempo);
    }
    if let Some(p) = &n.percepciones {
        k.opt_num(p.total_sueldos.as_ref());
        k.opt_num(p.total_separacion_indemnizacion.as_ref());
        k.opt_num(p.total_jubilacion_pension_retiro.as_ref());
        k.num(&p.total_gravado);
        k.num(&p.total_exento);
        for percepcion in &p.percepciones {
            k.req(&percepcion.tipo_percepcion);
            k.req(&percepcion.clave);
            k.req(&percepcion.concepto);
            k.num(&percepcion.importe_gravado);
            k.num(&percepcion.importe_exento);
            if let Some(acciones) = &percepcion.acciones_o_titulos {
                k.num(&acciones.valor_mercado);
                k.num(&acciones.precio_al_otorgarse);
            }
            for horas in &percepcion.horas_extra {
                k.req(&horas.dias);
                k.req(&horas.tipo_horas);
                k.req(&horas.horas_extra);
                k.num(&horas.importe_pagado);
            }
        }
        if let Some(j) = &p.jubilacion_pension_retiro {
            k.opt_num(j.total_una_exhibicion.as_ref());
            k.opt_num(j.total_parcialidad.as_ref());
            k.opt_num(j.monto_diario.as_ref());
            k.num(&j.ingreso_acumulable);
            k.num(&j.ingreso_no_acumulable);
        }
        if let Some(s) = &p.separacion_indemnizacion {
            k.num(&s.total_pagado);
            k.req(&s.num_anos_servicio);
            k.num(&s.ultimo_sueldo_mens_ord);
            k.num(&s.ingreso_acumulable);
            k.num(&s.ingreso_no_acumulable);
        }
    }
    if let Some(d) = &n.deducciones {
        k.opt_num(d.total_otras_deducciones.as_ref());
        k.opt_num(d.total_impuestos_retenidos.as_ref());
        for deduccion in &d.deducciones {
            k.req(&deduccion.tipo_deduccion);
            k.req(&deduccion.clave);
            k.req(&deduccion.concepto);
            k.num(&deduccion.importe);
        }
    }
    for otro in &n.otros_pagos {
        k.req(&otro.tipo_otro_pago);
        k.req(&otro.clave);
        k.req(&otro.concepto);
        k.num(&otro.importe);
        if let Some(subsidio) = &otro.subsidio_al_empleo {
            k.num(&subsidio.subsidio_causado);
        }
        if let Some(compensacion) = &otro.compensacion_saldos_a_favor {
            k.num(&compensacion.saldo_a_favor);
            k.req(&compensacion.ano);
            k.num(&compensacion.remanente_sal_fav);
        }
    }
    for incapacidad in &n.incapacidades {
        k.req(&incapacidad.dias_incapacidad);
        k.req(&incapacidad.tipo_incapacidad);
        k.opt_num(incapacidad.importe_monetario.as_ref());
    }
}

/// Cadena original of a TimbreFiscalDigital 1.1 (`cadenaoriginal_TFD_1_1.xslt`).
pub fn tfd_desde_modelo(t: &TimbreFiscalDigital) -> String {
    let mut k = Cadena::con_capacidad(512);
    k.req(&t.version);
    k.req(&t.uuid);
    k.req(&t.fecha_timbrado);
    k.req(&t.rfc_prov_certif);
    k.opt(t.leyenda.as_deref());
    k.req(&t.sello_cfd);
    k.req(&t.no_certificado_sat);
    k.terminar()
}

// ---------------------------------------------------------------------------------------
// From the XML
// ---------------------------------------------------------------------------------------

/// Cadena original of a CFDI 4.0 read directly from its XML (any prefixes, BOM, CRLF,
/// pretty-printing, character references).
pub fn desde_xml(xml: &str) -> Result<String, CadenaError> {
    let documento = parser::documento(xml)?;
    desde_documento(&documento)
}

/// Cadena original of an already parsed roxmltree document.
pub fn desde_documento(documento: &Document<'_>) -> Result<String, CadenaError> {
    let raiz = documento.root_element();
    if !es(raiz, NS_CFDI, "Comprobante") {
        return Err(CadenaError::RaizInesperada {
            encontrado: nombre_expandido(raiz),
            esperado: format!("{{{NS_CFDI}}}Comprobante"),
        });
    }
    let mut k = Cadena::con_capacidad(xml_len_estimado(documento));
    plantilla_comprobante(&mut k, raiz)?;
    Ok(k.terminar())
}

/// Cadena original of the first `TimbreFiscalDigital` in the document (the CFDI itself or
/// a TFD on its own), as `extract_element.xslt | cadenaoriginal_TFD_1_1.xslt` produce it.
pub fn tfd_desde_xml(xml: &str) -> Result<String, CadenaError> {
    let documento = parser::documento(xml)?;
    let Some(tfd) = documento.descendants().find(|nodo| es(*nodo, NS_TFD, "TimbreFiscalDigital")) else {
        return Err(CadenaError::RaizInesperada {
            encontrado: nombre_expandido(documento.root_element()),
            esperado: format!("{{{NS_TFD}}}TimbreFiscalDigital"),
        });
    };
    let mut k = Cadena::con_capacidad(512);
    for nombre in ["Version", "UUID", "FechaTimbrado", "RfcProvCertif"] {
        k.req(attr(tfd, nombre));
    }
    k.opt(tfd.attribute("Leyenda"));
    k.req(attr(tfd, "SelloCFD"));
    k.req(attr(tfd, "NoCertificadoSAT"));
    Ok(k.terminar())
}

fn xml_len_estimado(documento: &Document<'_>) -> usize {
    (documento.input_text().len() / 3).clamp(256, 1 << 20)
}

fn nombre_expandido(nodo: Node<'_, '_>) -> String {
    match nodo.tag_name().namespace() {
        Some(ns) => format!("{{{ns}}}{}", nodo.tag_name().name()),
        None => nodo.tag_name().name().to_owned(),
    }
}

fn es(nodo: Node<'_, '_>, ns: &str, nombre: &str) -> bool {
    nodo.is_element() && nodo.tag_name().name() == nombre && nodo.tag_name().namespace() == Some(ns)
}

/// Missing attribute reads as the empty string (XPath `string()` of an empty node-set).
fn attr<'a>(nodo: Node<'a, '_>, nombre: &str) -> &'a str {
    nodo.attribute(nombre).unwrap_or("")
}

fn hijos<'a, 'i>(nodo: Node<'a, 'i>, ns: &'a str, nombre: &'a str) -> impl Iterator<Item = Node<'a, 'i>> {
    nodo.children().filter(move |hijo| es(*hijo, ns, nombre))
}

fn req_all(k: &mut Cadena, nodo: Node<'_, '_>, nombres: &[&str]) {
    for nombre in nombres {
        k.req(attr(nodo, nombre));
    }
}

fn plantilla_comprobante(k: &mut Cadena, c: Node<'_, '_>) -> Result<(), CadenaError> {
    k.req(attr(c, "Version"));
    k.opt(c.attribute("Serie"));
    k.opt(c.attribute("Folio"));
    k.req(attr(c, "Fecha"));
    k.opt(c.attribute("FormaPago"));
    k.req(attr(c, "NoCertificado"));
    k.opt(c.attribute("CondicionesDePago"));
    k.req(attr(c, "SubTotal"));
    k.opt(c.attribute("Descuento"));
    k.req(attr(c, "Moneda"));
    k.opt(c.attribute("TipoCambio"));
    k.req(attr(c, "Total"));
    k.req(attr(c, "TipoDeComprobante"));
    k.req(attr(c, "Exportacion"));
    k.opt(c.attribute("MetodoPago"));
    k.req(attr(c, "LugarExpedicion"));
    k.opt(c.attribute("Confirmacion"));
    for global in hijos(c, NS_CFDI, "InformacionGlobal") {
        req_all(k, global, &["Periodicidad", "Meses", "Año"]);
    }
    for relacionados in hijos(c, NS_CFDI, "CfdiRelacionados") {
        k.req(attr(relacionados, "TipoRelacion"));
        for relacionado in hijos(relacionados, NS_CFDI, "CfdiRelacionado") {
            k.req(attr(relacionado, "UUID"));
        }
    }
    for emisor in hijos(c, NS_CFDI, "Emisor") {
        req_all(k, emisor, &["Rfc", "Nombre", "RegimenFiscal"]);
        k.opt(emisor.attribute("FacAtrAdquirente"));
    }
    for receptor in hijos(c, NS_CFDI, "Receptor") {
        req_all(k, receptor, &["Rfc", "Nombre", "DomicilioFiscalReceptor"]);
        k.opt(receptor.attribute("ResidenciaFiscal"));
        k.opt(receptor.attribute("NumRegIdTrib"));
        req_all(k, receptor, &["RegimenFiscalReceptor", "UsoCFDI"]);
    }
    for conceptos in hijos(c, NS_CFDI, "Conceptos") {
        for concepto in hijos(conceptos, NS_CFDI, "Concepto") {
            plantilla_concepto(k, concepto)?;
        }
    }
    for impuestos in hijos(c, NS_CFDI, "Impuestos") {
        for retenciones in hijos(impuestos, NS_CFDI, "Retenciones") {
            for retencion in hijos(retenciones, NS_CFDI, "Retencion") {
                req_all(k, retencion, &["Impuesto", "Importe"]);
            }
        }
        k.opt(impuestos.attribute("TotalImpuestosRetenidos"));
        for traslados in hijos(impuestos, NS_CFDI, "Traslados") {
            for traslado in hijos(traslados, NS_CFDI, "Traslado") {
                req_all(k, traslado, &["Base", "Impuesto", "TipoFactor"]);
                k.opt(traslado.attribute("TasaOCuota"));
                k.opt(traslado.attribute("Importe"));
            }
        }
        k.opt(impuestos.attribute("TotalImpuestosTrasladados"));
    }
    for complemento in hijos(c, NS_CFDI, "Complemento") {
        for hijo in complemento.children().filter(Node::is_element) {
            aplicar_plantillas(k, hijo)?;
        }
    }
    Ok(())
}

fn plantilla_concepto(k: &mut Cadena, c: Node<'_, '_>) -> Result<(), CadenaError> {
    k.req(attr(c, "ClaveProdServ"));
    k.opt(c.attribute("NoIdentificacion"));
    k.req(attr(c, "Cantidad"));
    k.req(attr(c, "ClaveUnidad"));
    k.opt(c.attribute("Unidad"));
    req_all(k, c, &["Descripcion", "ValorUnitario", "Importe"]);
    k.opt(c.attribute("Descuento"));
    k.req(attr(c, "ObjetoImp"));
    for impuestos in hijos(c, NS_CFDI, "Impuestos") {
        for traslados in hijos(impuestos, NS_CFDI, "Traslados") {
            for traslado in hijos(traslados, NS_CFDI, "Traslado") {
                req_all(k, traslado, &["Base", "Impuesto", "TipoFactor"]);
                k.opt(traslado.attribute("TasaOCuota"));
                k.opt(traslado.attribute("Importe"));
            }
        }
    }
    for impuestos in hijos(c, NS_CFDI, "Impuestos") {
        for retenciones in hijos(impuestos, NS_CFDI, "Retenciones") {
            for retencion in hijos(retenciones, NS_CFDI, "Retencion") {
                req_all(k, retencion, &["Base", "Impuesto", "TipoFactor", "TasaOCuota", "Importe"]);
            }
        }
    }
    for terceros in hijos(c, NS_CFDI, "ACuentaTerceros") {
        req_all(
            k,
            terceros,
            &[
                "RfcACuentaTerceros",
                "NombreACuentaTerceros",
                "RegimenFiscalACuentaTerceros",
                "DomicilioFiscalACuentaTerceros",
            ],
        );
    }
    for aduana in hijos(c, NS_CFDI, "InformacionAduanera") {
        k.req(attr(aduana, "NumeroPedimento"));
    }
    for predial in hijos(c, NS_CFDI, "CuentaPredial") {
        k.req(attr(predial, "Numero"));
    }
    for complemento in hijos(c, NS_CFDI, "ComplementoConcepto") {
        for hijo in complemento.children().filter(Node::is_element) {
            aplicar_plantillas(k, hijo)?;
        }
    }
    // `.//cfdi:Parte`: every descendant Parte, in document order.
    for parte in c.descendants().filter(|nodo| es(*nodo, NS_CFDI, "Parte")) {
        plantilla_parte(k, parte);
    }
    Ok(())
}

fn plantilla_parte(k: &mut Cadena, p: Node<'_, '_>) {
    k.req(attr(p, "ClaveProdServ"));
    k.opt(p.attribute("NoIdentificacion"));
    k.req(attr(p, "Cantidad"));
    k.opt(p.attribute("Unidad"));
    k.req(attr(p, "Descripcion"));
    k.opt(p.attribute("ValorUnitario"));
    k.opt(p.attribute("Importe"));
    for aduana in p.descendants().filter(|nodo| es(*nodo, NS_CFDI, "InformacionAduanera")) {
        k.req(attr(aduana, "NumeroPedimento"));
    }
}

/// `xsl:apply-templates` on one element reached from `cfdi:Complemento` or
/// `cfdi:ComplementoConcepto`.
fn aplicar_plantillas(k: &mut Cadena, nodo: Node<'_, '_>) -> Result<(), CadenaError> {
    let ns = nodo.tag_name().namespace().unwrap_or("");
    let nombre = nodo.tag_name().name();
    match (ns, nombre) {
        (NS_PAGOS20, "Pagos") => plantilla_pagos(k, nodo),
        (NS_NOMINA12, "Nomina") => plantilla_nomina(k, nodo),
        (NS_IMPLOCAL, "ImpuestosLocales") => plantilla_implocal(k, nodo),
        // No template matches: XSLT's built-in rule applies templates to the children and
        // copies text nodes. For the TFD (no template in cadenaoriginal_4_0.xslt) this emits
        // its text content, normally nothing.
        (NS_TFD | NS_PAGOS20 | NS_NOMINA12 | NS_IMPLOCAL, _) => {
            for hijo in nodo.children() {
                if hijo.is_text() {
                    k.texto.push_str(hijo.text().unwrap_or(""));
                } else if hijo.is_element() {
                    aplicar_plantillas(k, hijo)?;
                }
            }
            return Ok(());
        }
        _ => {
            return Err(CadenaError::ComplementoNoSoportado { espacio: ns.to_owned(), nombre: nombre.to_owned() });
        }
    }
    Ok(())
}

fn plantilla_pagos(k: &mut Cadena, p: Node<'_, '_>) {
    k.req(attr(p, "Version"));
    for totales in hijos(p, NS_PAGOS20, "Totales") {
        for nombre in [
            "TotalRetencionesIVA",
            "TotalRetencionesISR",
            "TotalRetencionesIEPS",
            "TotalTrasladosBaseIVA16",
            "TotalTrasladosImpuestoIVA16",
            "TotalTrasladosBaseIVA8",
            "TotalTrasladosImpuestoIVA8",
            "TotalTrasladosBaseIVA0",
            "TotalTrasladosImpuestoIVA0",
            "TotalTrasladosBaseIVAExento",
        ] {
            k.opt(totales.attribute(nombre));
        }
        k.req(attr(totales, "MontoTotalPagos"));
    }
    for pago in hijos(p, NS_PAGOS20, "Pago") {
        req_all(k, pago, &["FechaPago", "FormaDePagoP", "MonedaP"]);
        k.opt(pago.attribute("TipoCambioP"));
        k.req(attr(pago, "Monto"));
        for nombre in [
            "NumOperacion",
            "RfcEmisorCtaOrd",
            "NomBancoOrdExt",
            "CtaOrdenante",
            "RfcEmisorCtaBen",
            "CtaBeneficiario",
            "TipoCadPago",
            "CertPago",
            "CadPago",
            "SelloPago",
        ] {
            k.opt(pago.attribute(nombre));
        }
        for docto in hijos(pago, NS_PAGOS20, "DoctoRelacionado") {
            k.req(attr(docto, "IdDocumento"));
            k.opt(docto.attribute("Serie"));
            k.opt(docto.attribute("Folio"));
            k.req(attr(docto, "MonedaDR"));
            k.opt(docto.attribute("EquivalenciaDR"));
            req_all(k, docto, &["NumParcialidad", "ImpSaldoAnt", "ImpPagado", "ImpSaldoInsoluto", "ObjetoImpDR"]);
            for impuestos in hijos(docto, NS_PAGOS20, "ImpuestosDR") {
                for retenciones in hijos(impuestos, NS_PAGOS20, "RetencionesDR") {
                    for r in hijos(retenciones, NS_PAGOS20, "RetencionDR") {
                        req_all(k, r, &["BaseDR", "ImpuestoDR", "TipoFactorDR", "TasaOCuotaDR", "ImporteDR"]);
                    }
                }
            }
            for impuestos in hijos(docto, NS_PAGOS20, "ImpuestosDR") {
                for traslados in hijos(impuestos, NS_PAGOS20, "TrasladosDR") {
                    for t in hijos(traslados, NS_PAGOS20, "TrasladoDR") {
                        req_all(k, t, &["BaseDR", "ImpuestoDR", "TipoFactorDR"]);
                        k.opt(t.attribute("TasaOCuotaDR"));
                        k.opt(t.attribute("ImporteDR"));
                    }
                }
            }
        }
        for impuestos in hijos(pago, NS_PAGOS20, "ImpuestosP") {
            for retenciones in hijos(impuestos, NS_PAGOS20, "RetencionesP") {
                for r in hijos(retenciones, NS_PAGOS20, "RetencionP") {
                    req_all(k, r, &["ImpuestoP", "ImporteP"]);
                }
            }
            for traslados in hijos(impuestos, NS_PAGOS20, "TrasladosP") {
                for t in hijos(traslados, NS_PAGOS20, "TrasladoP") {
                    req_all(k, t, &["BaseP", "ImpuestoP", "TipoFactorP"]);
                    k.opt(t.attribute("TasaOCuotaP"));
                    k.opt(t.attribute("ImporteP"));
                }
            }
        }
    }
}

fn plantilla_implocal(k: &mut Cadena, l: Node<'_, '_>) {
    req_all(k, l, &["version", "TotaldeRetenciones", "TotaldeTraslados"]);
    for r in hijos(l, NS_IMPLOCAL, "RetencionesLocales") {
        req_all(k, r, &["ImpLocRetenido", "TasadeRetencion", "Importe"]);
    }
    for t in hijos(l, NS_IMPLOCAL, "TrasladosLocales") {
        req_all(k, t, &["ImpLocTrasladado", "TasadeTraslado", "Importe"]);
    }
}

fn plantilla_nomina(k: &mut Cadena, n: Node<'_, '_>) {
    const NS: &str = NS_NOMINA12;
    req_all(k, n, &["Version", "TipoNomina", "FechaPago", "FechaInicialPago", "FechaFinalPago", "NumDiasPagados"]);
    k.opt(n.attribute("TotalPercepciones"));
    k.opt(n.attribute("TotalDeducciones"));
    k.opt(n.attribute("TotalOtrosPagos"));
    for emisor in hijos(n, NS, "Emisor") {
        k.opt(emisor.attribute("Curp"));
        k.opt(emisor.attribute("RegistroPatronal"));
        k.opt(emisor.attribute("RfcPatronOrigen"));
        for entidad in hijos(emisor, NS, "EntidadSNCF") {
            k.req(attr(entidad, "OrigenRecurso"));
            k.opt(entidad.attribute("MontoRecursoPropio"));
        }
    }
    for r in hijos(n, NS, "Receptor") {
        k.req(attr(r, "Curp"));
        k.opt(r.attribute("NumSeguridadSocial"));
        k.opt(r.attribute("FechaInicioRelLaboral"));
        k.opt(r.attribute("Antigüedad"));
        k.req(attr(r, "TipoContrato"));
        k.opt(r.attribute("Sindicalizado"));
        k.opt(r.attribute("TipoJornada"));
        k.req(attr(r, "TipoRegimen"));
        k.req(attr(r, "NumEmpleado"));
        k.opt(r.attribute("Departamento"));
        k.opt(r.attribute("Puesto"));
        k.opt(r.attribute("RiesgoPuesto"));
        k.req(attr(r, "PeriodicidadPago"));
        k.opt(r.attribute("Banco"));
        k.opt(r.attribute("CuentaBancaria"));
        k.opt(r.attribute("SalarioBaseCotApor"));
        k.opt(r.attribute("SalarioDiarioIntegrado"));
        k.req(attr(r, "ClaveEntFed"));
        for s in hijos(r, NS, "SubContratacion") {
            req_all(k, s, &["RfcLabora", "PorcentajeTiempo"]);
        }
    }
    for p in hijos(n, NS, "Percepciones") {
        k.opt(p.attribute("TotalSueldos"));
        k.opt(p.attribute("TotalSeparacionIndemnizacion"));
        k.opt(p.attribute("TotalJubilacionPensionRetiro"));
        req_all(k, p, &["TotalGravado", "TotalExento"]);
        for percepcion in hijos(p, NS, "Percepcion") {
            req_all(k, percepcion, &["TipoPercepcion", "Clave", "Concepto", "ImporteGravado", "ImporteExento"]);
            for acciones in hijos(percepcion, NS, "AccionesOTitulos") {
                req_all(k, acciones, &["ValorMercado", "PrecioAlOtorgarse"]);
            }
            for horas in hijos(percepcion, NS, "HorasExtra") {
                req_all(k, horas, &["Dias", "TipoHoras", "HorasExtra", "ImportePagado"]);
            }
        }
        for j in hijos(p, NS, "JubilacionPensionRetiro") {
            k.opt(j.attribute("TotalUnaExhibicion"));
            k.opt(j.attribute("TotalParcialidad"));
            k.opt(j.attribute("MontoDiario"));
            req_all(k, j, &["IngresoAcumulable", "IngresoNoAcumulable"]);
        }
        for s in hijos(p, NS, "SeparacionIndemnizacion") {
            req_all(
                k,
                s,
                &["TotalPagado", "NumAñosServicio", "UltimoSueldoMensOrd", "IngresoAcumulable", "IngresoNoAcumulable"],
            );
        }
    }
    for d in hijos(n, NS, "Deducciones") {
        k.opt(d.attribute("TotalOtrasDeducciones"));
        k.opt(d.attribute("TotalImpuestosRetenidos"));
        for deduccion in hijos(d, NS, "Deduccion") {
            req_all(k, deduccion, &["TipoDeduccion", "Clave", "Concepto", "Importe"]);
        }
    }
    for otros in hijos(n, NS, "OtrosPagos") {
        for otro in hijos(otros, NS, "OtroPago") {
            req_all(k, otro, &["TipoOtroPago", "Clave", "Concepto", "Importe"]);
            for subsidio in hijos(otro, NS, "SubsidioAlEmpleo") {
                k.req(attr(subsidio, "SubsidioCausado"));
            }
            for compensacion in hijos(otro, NS, "CompensacionSaldosAFavor") {
                req_all(k, compensacion, &["SaldoAFavor", "Año", "RemanenteSalFav"]);
            }
        }
    }
    for incapacidades in hijos(n, NS, "Incapacidades") {
        for incapacidad in hijos(incapacidades, NS, "Incapacidad") {
            req_all(k, incapacidad, &["DiasIncapacidad", "TipoIncapacidad"]);
            k.opt(incapacidad.attribute("ImporteMonetario"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalizado(valor: &str) -> String {
        let mut salida = String::new();
        normalizar_espacios(&mut salida, valor);
        salida
    }

    #[test]
    fn normaliza_como_xpath() {
        assert_eq!(normalizado("  a  b\t\nc  "), "a b c");
        assert_eq!(normalizado("a b"), "a b");
        assert_eq!(normalizado("a\tb"), "a b");
        assert_eq!(normalizado(""), "");
        assert_eq!(normalizado("   "), "");
        // Non-breaking space is not XML whitespace.
        assert_eq!(normalizado("a\u{a0} b"), "a\u{a0} b");
    }

    /// BOM, CRLF, pretty-printing, another prefix, a default namespace and character
    /// references all give the same cadena, from the XML and from the parsed model.
    #[test]
    fn variantes_de_forma_dan_la_misma_cadena() {
        let original = include_str!("../tests/golden/I_iva16.xml");
        let esperada = desde_xml(original).unwrap();
        let bonito = original.replace("><", ">\r\n    <");
        let con_bom = format!("\u{feff}{bonito}");
        let otro_prefijo = original.replace("xmlns:cfdi=", "xmlns:c=").replace("cfdi:", "c:");
        let por_omision = original.replace("xmlns:cfdi=", "xmlns=").replace("<cfdi:", "<").replace("</cfdi:", "</");
        let referencias = original.replace("Soporte", "&#83;oporte").replace("ESCUELA", "&#x45;SCUELA");
        for variante in [bonito, con_bom, otro_prefijo, por_omision, referencias] {
            assert_eq!(desde_xml(&variante).unwrap(), esperada);
            let modelo = crate::parser::parsear(&variante).unwrap();
            assert_eq!(desde_comprobante(&modelo).unwrap(), esperada);
        }
    }

    #[test]
    fn complemento_desconocido_es_error() {
        let xml = r#"<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0"><cfdi:Complemento><x:Otro xmlns:x="urn:otro"/></cfdi:Complemento></cfdi:Comprobante>"#;
        assert_eq!(
            desde_xml(xml),
            Err(CadenaError::ComplementoNoSoportado { espacio: "urn:otro".into(), nombre: "Otro".into() })
        );
    }
}
