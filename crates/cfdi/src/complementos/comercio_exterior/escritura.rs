//! XML writer of `ComercioExterior`: elements and attributes in the schema's order.

use super::*;
use crate::escritura::Etiqueta;

pub(super) fn escribir(e: &mut Escritor, x: &ComercioExterior) {
    comercio_exterior(e, x);
}

fn comercio_exterior(e: &mut Escritor, x: &ComercioExterior) {
    let etiqueta = Etiqueta::new("cce20:ComercioExterior")
        .req("Version", &x.version)
        .opt("MotivoTraslado", x.motivo_traslado.as_deref())
        .req("ClaveDePedimento", &x.clave_de_pedimento)
        .num("CertificadoOrigen", &x.certificado_origen)
        .opt("NumCertificadoOrigen", x.num_certificado_origen.as_deref())
        .opt("NumeroExportadorConfiable", x.numero_exportador_confiable.as_deref())
        .opt("Incoterm", x.incoterm.as_deref())
        .opt("Observaciones", x.observaciones.as_deref())
        .num("TipoCambioUSD", &x.tipo_cambio_usd)
        .num("TotalUSD", &x.total_usd);
    e.abrir(etiqueta);
    if let Some(h) = &x.emisor {
        emisor_cce(e, h);
    }
    for h in &x.propietario {
        propietario(e, h);
    }
    if let Some(h) = &x.receptor {
        receptor_cce(e, h);
    }
    for h in &x.destinatario {
        destinatario(e, h);
    }
    e.abrir(Etiqueta::new("cce20:Mercancias"));
    for h in &x.mercancias {
        mercancia_cce(e, h);
    }
    e.cerrar("cce20:Mercancias");
    e.cerrar("cce20:ComercioExterior");
}

fn emisor_cce(e: &mut Escritor, x: &EmisorCce) {
    let etiqueta = Etiqueta::new("cce20:Emisor").opt("Curp", x.curp.as_deref());
    e.abrir(etiqueta);
    domicilio_cce(e, &x.domicilio);
    e.cerrar("cce20:Emisor");
}

fn domicilio_cce(e: &mut Escritor, x: &DomicilioCce) {
    let etiqueta = Etiqueta::new("cce20:Domicilio")
        .req("Calle", &x.calle)
        .opt("NumeroExterior", x.numero_exterior.as_deref())
        .opt("NumeroInterior", x.numero_interior.as_deref())
        .opt("Colonia", x.colonia.as_deref())
        .opt("Localidad", x.localidad.as_deref())
        .opt("Referencia", x.referencia.as_deref())
        .opt("Municipio", x.municipio.as_deref())
        .req("Estado", &x.estado)
        .req("Pais", &x.pais)
        .req("CodigoPostal", &x.codigo_postal);
    e.vacio(etiqueta);
}

fn propietario(e: &mut Escritor, x: &Propietario) {
    let etiqueta = Etiqueta::new("cce20:Propietario")
        .req("NumRegIdTrib", &x.num_reg_id_trib)
        .req("ResidenciaFiscal", &x.residencia_fiscal);
    e.vacio(etiqueta);
}

fn receptor_cce(e: &mut Escritor, x: &ReceptorCce) {
    let etiqueta = Etiqueta::new("cce20:Receptor").opt("NumRegIdTrib", x.num_reg_id_trib.as_deref());
    if x.domicilio.is_none() {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    if let Some(h) = &x.domicilio {
        domicilio_cce(e, h);
    }
    e.cerrar("cce20:Receptor");
}

fn destinatario(e: &mut Escritor, x: &Destinatario) {
    let etiqueta = Etiqueta::new("cce20:Destinatario")
        .opt("NumRegIdTrib", x.num_reg_id_trib.as_deref())
        .opt("Nombre", x.nombre.as_deref());
    if x.domicilio.is_empty() {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    for h in &x.domicilio {
        domicilio_cce(e, h);
    }
    e.cerrar("cce20:Destinatario");
}

fn mercancia_cce(e: &mut Escritor, x: &MercanciaCce) {
    let etiqueta = Etiqueta::new("cce20:Mercancia")
        .req("NoIdentificacion", &x.no_identificacion)
        .opt("FraccionArancelaria", x.fraccion_arancelaria.as_deref())
        .opt_num("CantidadAduana", x.cantidad_aduana.as_ref())
        .opt("UnidadAduana", x.unidad_aduana.as_deref())
        .opt_num("ValorUnitarioAduana", x.valor_unitario_aduana.as_ref())
        .num("ValorDolares", &x.valor_dolares);
    if x.descripciones_especificas.is_empty() {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    for h in &x.descripciones_especificas {
        descripciones_especificas(e, h);
    }
    e.cerrar("cce20:Mercancia");
}

fn descripciones_especificas(e: &mut Escritor, x: &DescripcionesEspecificas) {
    let etiqueta = Etiqueta::new("cce20:DescripcionesEspecificas")
        .req("Marca", &x.marca)
        .opt("Modelo", x.modelo.as_deref())
        .opt("SubModelo", x.sub_modelo.as_deref())
        .opt("NumeroSerie", x.numero_serie.as_deref());
    e.vacio(etiqueta);
}
