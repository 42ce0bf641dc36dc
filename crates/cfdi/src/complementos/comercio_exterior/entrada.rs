//! The model read from and written as the API's JSON (SAT's names in camelCase, see
//! `construccion`).

use super::*;
use crate::construccion::ErrorConstruccion;
use crate::entrada::{Objeto, Valor};

pub(super) fn leer(o: &mut Objeto<'_>) -> Result<ComercioExterior, ErrorConstruccion> {
    comercio_exterior(o)
}

/// The model as the API's JSON: the same names; decimals as strings that keep their text,
/// SAT's whole numbers (`xs:int`) as numbers, absent attributes and empty lists left out.
pub(super) fn escribir(x: &ComercioExterior) -> Valor {
    salida::comercio_exterior(x)
}

fn comercio_exterior(o: &mut Objeto<'_>) -> Result<ComercioExterior, ErrorConstruccion> {
    let x = ComercioExterior {
        version: o.texto("version")?.unwrap_or_default(),
        motivo_traslado: o.texto("motivoTraslado")?,
        clave_de_pedimento: o.texto_req("claveDePedimento")?,
        certificado_origen: o.numero_req("certificadoOrigen")?,
        num_certificado_origen: o.texto("numCertificadoOrigen")?,
        numero_exportador_confiable: o.texto("numeroExportadorConfiable")?,
        incoterm: o.texto("incoterm")?,
        observaciones: o.texto("observaciones")?,
        tipo_cambio_usd: o.numero_req("tipoCambioUSD")?,
        total_usd: o.numero("totalUSD")?.unwrap_or_default(),
        emisor: o.objeto("emisor")?.as_mut().map(emisor_cce).transpose()?,
        propietario: o.lista("propietario")?.iter_mut().map(propietario).collect::<Result<_, _>>()?,
        receptor: o.objeto("receptor")?.as_mut().map(receptor_cce).transpose()?,
        destinatario: o.lista("destinatario")?.iter_mut().map(destinatario).collect::<Result<_, _>>()?,
        mercancias: o.lista("mercancias")?.iter_mut().map(mercancia_cce).collect::<Result<_, _>>()?,
    };
    o.terminar()?;
    Ok(x)
}

fn emisor_cce(o: &mut Objeto<'_>) -> Result<EmisorCce, ErrorConstruccion> {
    let x = EmisorCce { curp: o.texto("curp")?, domicilio: domicilio_cce(&mut o.objeto_req("domicilio")?)? };
    o.terminar()?;
    Ok(x)
}

fn domicilio_cce(o: &mut Objeto<'_>) -> Result<DomicilioCce, ErrorConstruccion> {
    let x = DomicilioCce {
        calle: o.texto_req("calle")?,
        numero_exterior: o.texto("numeroExterior")?,
        numero_interior: o.texto("numeroInterior")?,
        colonia: o.texto("colonia")?,
        localidad: o.texto("localidad")?,
        referencia: o.texto("referencia")?,
        municipio: o.texto("municipio")?,
        estado: o.texto_req("estado")?,
        pais: o.texto_req("pais")?,
        codigo_postal: o.texto_req("codigoPostal")?,
    };
    o.terminar()?;
    Ok(x)
}

fn propietario(o: &mut Objeto<'_>) -> Result<Propietario, ErrorConstruccion> {
    let x = Propietario {
        num_reg_id_trib: o.texto_req("numRegIdTrib")?,
        residencia_fiscal: o.texto_req("residenciaFiscal")?,
    };
    o.terminar()?;
    Ok(x)
}

fn receptor_cce(o: &mut Objeto<'_>) -> Result<ReceptorCce, ErrorConstruccion> {
    let x = ReceptorCce {
        num_reg_id_trib: o.texto("numRegIdTrib")?,
        domicilio: o.objeto("domicilio")?.as_mut().map(domicilio_cce).transpose()?,
    };
    o.terminar()?;
    Ok(x)
}

fn destinatario(o: &mut Objeto<'_>) -> Result<Destinatario, ErrorConstruccion> {
    let x = Destinatario {
        num_reg_id_trib: o.texto("numRegIdTrib")?,
        nombre: o.texto("nombre")?,
        domicilio: o.lista("domicilio")?.iter_mut().map(domicilio_cce).collect::<Result<_, _>>()?,
    };
    o.terminar()?;
    Ok(x)
}

fn mercancia_cce(o: &mut Objeto<'_>) -> Result<MercanciaCce, ErrorConstruccion> {
    let x = MercanciaCce {
        no_identificacion: o.texto_req("noIdentificacion")?,
        fraccion_arancelaria: o.texto("fraccionArancelaria")?,
        cantidad_aduana: o.numero("cantidadAduana")?,
        unidad_aduana: o.texto("unidadAduana")?,
        valor_unitario_aduana: o.numero("valorUnitarioAduana")?,
        valor_dolares: o.numero_req("valorDolares")?,
        descripciones_especificas: o
            .lista("descripcionesEspecificas")?
            .iter_mut()
            .map(descripciones_especificas)
            .collect::<Result<_, _>>()?,
    };
    o.terminar()?;
    Ok(x)
}

fn descripciones_especificas(o: &mut Objeto<'_>) -> Result<DescripcionesEspecificas, ErrorConstruccion> {
    let x = DescripcionesEspecificas {
        marca: o.texto_req("marca")?,
        modelo: o.texto("modelo")?,
        sub_modelo: o.texto("subModelo")?,
        numero_serie: o.texto("numeroSerie")?,
    };
    o.terminar()?;
    Ok(x)
}

mod salida {
    use super::*;
    use crate::entrada::Miembros;

    pub(super) fn comercio_exterior(x: &ComercioExterior) -> Valor {
        let mut o = Miembros::default();
        o.texto("version", Some(&x.version));
        o.texto("motivoTraslado", x.motivo_traslado.as_deref());
        o.texto("claveDePedimento", Some(&x.clave_de_pedimento));
        o.entero("certificadoOrigen", Some(&x.certificado_origen));
        o.texto("numCertificadoOrigen", x.num_certificado_origen.as_deref());
        o.texto("numeroExportadorConfiable", x.numero_exportador_confiable.as_deref());
        o.texto("incoterm", x.incoterm.as_deref());
        o.texto("observaciones", x.observaciones.as_deref());
        o.decimal("tipoCambioUSD", Some(&x.tipo_cambio_usd));
        o.decimal("totalUSD", Some(&x.total_usd));
        o.objeto("emisor", x.emisor.as_ref().map(emisor_cce));
        o.lista("propietario", x.propietario.iter().map(propietario));
        o.objeto("receptor", x.receptor.as_ref().map(receptor_cce));
        o.lista("destinatario", x.destinatario.iter().map(destinatario));
        o.lista("mercancias", x.mercancias.iter().map(mercancia_cce));
        o.valor()
    }

    fn emisor_cce(x: &EmisorCce) -> Valor {
        let mut o = Miembros::default();
        o.texto("curp", x.curp.as_deref());
        o.objeto("domicilio", Some(domicilio_cce(&x.domicilio)));
        o.valor()
    }

    fn domicilio_cce(x: &DomicilioCce) -> Valor {
        let mut o = Miembros::default();
        o.texto("calle", Some(&x.calle));
        o.texto("numeroExterior", x.numero_exterior.as_deref());
        o.texto("numeroInterior", x.numero_interior.as_deref());
        o.texto("colonia", x.colonia.as_deref());
        o.texto("localidad", x.localidad.as_deref());
        o.texto("referencia", x.referencia.as_deref());
        o.texto("municipio", x.municipio.as_deref());
        o.texto("estado", Some(&x.estado));
        o.texto("pais", Some(&x.pais));
        o.texto("codigoPostal", Some(&x.codigo_postal));
        o.valor()
    }

    fn propietario(x: &Propietario) -> Valor {
        let mut o = Miembros::default();
        o.texto("numRegIdTrib", Some(&x.num_reg_id_trib));
        o.texto("residenciaFiscal", Some(&x.residencia_fiscal));
        o.valor()
    }

    fn receptor_cce(x: &ReceptorCce) -> Valor {
        let mut o = Miembros::default();
        o.texto("numRegIdTrib", x.num_reg_id_trib.as_deref());
        o.objeto("domicilio", x.domicilio.as_ref().map(domicilio_cce));
        o.valor()
    }

    fn destinatario(x: &Destinatario) -> Valor {
        let mut o = Miembros::default();
        o.texto("numRegIdTrib", x.num_reg_id_trib.as_deref());
        o.texto("nombre", x.nombre.as_deref());
        o.lista("domicilio", x.domicilio.iter().map(domicilio_cce));
        o.valor()
    }

    fn mercancia_cce(x: &MercanciaCce) -> Valor {
        let mut o = Miembros::default();
        o.texto("noIdentificacion", Some(&x.no_identificacion));
        o.texto("fraccionArancelaria", x.fraccion_arancelaria.as_deref());
        o.decimal("cantidadAduana", x.cantidad_aduana.as_ref());
        o.texto("unidadAduana", x.unidad_aduana.as_deref());
        o.decimal("valorUnitarioAduana", x.valor_unitario_aduana.as_ref());
        o.decimal("valorDolares", Some(&x.valor_dolares));
        o.lista("descripcionesEspecificas", x.descripciones_especificas.iter().map(descripciones_especificas));
        o.valor()
    }

    fn descripciones_especificas(x: &DescripcionesEspecificas) -> Valor {
        let mut o = Miembros::default();
        o.texto("marca", Some(&x.marca));
        o.texto("modelo", x.modelo.as_deref());
        o.texto("subModelo", x.sub_modelo.as_deref());
        o.texto("numeroSerie", x.numero_serie.as_deref());
        o.valor()
    }
}
