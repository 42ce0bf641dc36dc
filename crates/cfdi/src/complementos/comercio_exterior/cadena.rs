//! Its part of the cadena original: SAT's stylesheet for the complement, included by
//! `cadenaoriginal_4_0.xslt`, from the model and from the XML (same order of values: each
//! template's attributes, Requerido or Opcional as the stylesheet says, then its children in
//! the order the stylesheet visits them).

use super::*;

/// From the model (the fast path used when sealing).
pub(super) fn desde_modelo(k: &mut Cadena, x: &ComercioExterior) {
    modelo::comercio_exterior(k, x);
}

/// From the XML: the stylesheet's templates, value by value.
pub(super) fn plantilla(k: &mut Cadena, n: Node<'_, '_>) {
    xml::comercio_exterior(k, n);
}

mod modelo {
    use super::*;

    pub(super) fn comercio_exterior(k: &mut Cadena, x: &ComercioExterior) {
        k.req(&x.version);
        k.opt(x.motivo_traslado.as_deref());
        k.req(&x.clave_de_pedimento);
        k.num(&x.certificado_origen);
        k.opt(x.num_certificado_origen.as_deref());
        k.opt(x.numero_exportador_confiable.as_deref());
        k.opt(x.incoterm.as_deref());
        k.opt(x.observaciones.as_deref());
        k.num(&x.tipo_cambio_usd);
        k.num(&x.total_usd);
        if let Some(h) = &x.emisor {
            emisor_cce(k, h);
        }
        for h in &x.propietario {
            propietario(k, h);
        }
        if let Some(h) = &x.receptor {
            receptor_cce(k, h);
        }
        for h in &x.destinatario {
            destinatario(k, h);
        }
        for h in &x.mercancias {
            mercancia_cce(k, h);
        }
    }

    fn emisor_cce(k: &mut Cadena, x: &EmisorCce) {
        k.opt(x.curp.as_deref());
        domicilio_cce(k, &x.domicilio);
    }

    fn domicilio_cce(k: &mut Cadena, x: &DomicilioCce) {
        k.req(&x.calle);
        k.opt(x.numero_exterior.as_deref());
        k.opt(x.numero_interior.as_deref());
        k.opt(x.colonia.as_deref());
        k.opt(x.localidad.as_deref());
        k.opt(x.referencia.as_deref());
        k.opt(x.municipio.as_deref());
        k.req(&x.estado);
        k.req(&x.pais);
        k.req(&x.codigo_postal);
    }

    fn propietario(k: &mut Cadena, x: &Propietario) {
        k.req(&x.num_reg_id_trib);
        k.req(&x.residencia_fiscal);
    }

    fn receptor_cce(k: &mut Cadena, x: &ReceptorCce) {
        k.opt(x.num_reg_id_trib.as_deref());
        if let Some(h) = &x.domicilio {
            domicilio_cce(k, h);
        }
    }

    fn destinatario(k: &mut Cadena, x: &Destinatario) {
        k.opt(x.num_reg_id_trib.as_deref());
        k.opt(x.nombre.as_deref());
        for h in &x.domicilio {
            domicilio_cce(k, h);
        }
    }

    fn mercancia_cce(k: &mut Cadena, x: &MercanciaCce) {
        k.req(&x.no_identificacion);
        k.opt(x.fraccion_arancelaria.as_deref());
        k.opt_num(x.cantidad_aduana.as_ref());
        k.opt(x.unidad_aduana.as_deref());
        k.opt_num(x.valor_unitario_aduana.as_ref());
        k.num(&x.valor_dolares);
        for h in &x.descripciones_especificas {
            descripciones_especificas(k, h);
        }
    }

    fn descripciones_especificas(k: &mut Cadena, x: &DescripcionesEspecificas) {
        k.req(&x.marca);
        k.opt(x.modelo.as_deref());
        k.opt(x.sub_modelo.as_deref());
        k.opt(x.numero_serie.as_deref());
    }
}

mod xml {
    use super::*;
    use crate::cadena::attr;
    use crate::parser::hijos;

    const NS: &str = NS_CCE20;

    pub(super) fn comercio_exterior(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "Version"));
        k.opt(n.attribute("MotivoTraslado"));
        k.req(attr(n, "ClaveDePedimento"));
        k.req(attr(n, "CertificadoOrigen"));
        k.opt(n.attribute("NumCertificadoOrigen"));
        k.opt(n.attribute("NumeroExportadorConfiable"));
        k.opt(n.attribute("Incoterm"));
        k.opt(n.attribute("Observaciones"));
        k.req(attr(n, "TipoCambioUSD"));
        k.req(attr(n, "TotalUSD"));
        for h in hijos(n, NS, "Emisor") {
            emisor_cce(k, h);
        }
        for h in hijos(n, NS, "Propietario") {
            propietario(k, h);
        }
        for h in hijos(n, NS, "Receptor") {
            receptor_cce(k, h);
        }
        for h in hijos(n, NS, "Destinatario") {
            destinatario(k, h);
        }
        for c in hijos(n, NS, "Mercancias") {
            for h in hijos(c, NS, "Mercancia") {
                mercancia_cce(k, h);
            }
        }
    }

    fn emisor_cce(k: &mut Cadena, n: Node<'_, '_>) {
        k.opt(n.attribute("Curp"));
        for h in hijos(n, NS, "Domicilio") {
            domicilio_cce(k, h);
        }
    }

    fn domicilio_cce(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "Calle"));
        k.opt(n.attribute("NumeroExterior"));
        k.opt(n.attribute("NumeroInterior"));
        k.opt(n.attribute("Colonia"));
        k.opt(n.attribute("Localidad"));
        k.opt(n.attribute("Referencia"));
        k.opt(n.attribute("Municipio"));
        k.req(attr(n, "Estado"));
        k.req(attr(n, "Pais"));
        k.req(attr(n, "CodigoPostal"));
    }

    fn propietario(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "NumRegIdTrib"));
        k.req(attr(n, "ResidenciaFiscal"));
    }

    fn receptor_cce(k: &mut Cadena, n: Node<'_, '_>) {
        k.opt(n.attribute("NumRegIdTrib"));
        for h in hijos(n, NS, "Domicilio") {
            domicilio_cce(k, h);
        }
    }

    fn destinatario(k: &mut Cadena, n: Node<'_, '_>) {
        k.opt(n.attribute("NumRegIdTrib"));
        k.opt(n.attribute("Nombre"));
        for h in hijos(n, NS, "Domicilio") {
            domicilio_cce(k, h);
        }
    }

    fn mercancia_cce(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "NoIdentificacion"));
        k.opt(n.attribute("FraccionArancelaria"));
        k.opt(n.attribute("CantidadAduana"));
        k.opt(n.attribute("UnidadAduana"));
        k.opt(n.attribute("ValorUnitarioAduana"));
        k.req(attr(n, "ValorDolares"));
        for h in hijos(n, NS, "DescripcionesEspecificas") {
            descripciones_especificas(k, h);
        }
    }

    fn descripciones_especificas(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "Marca"));
        k.opt(n.attribute("Modelo"));
        k.opt(n.attribute("SubModelo"));
        k.opt(n.attribute("NumeroSerie"));
    }
}
