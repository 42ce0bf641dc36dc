//! The model read from the API's JSON (SAT's names in camelCase, see [`super`]).

use super::*;
use crate::construccion::ErrorConstruccion;
use crate::entrada::Objeto;

pub(super) fn leer(o: &mut Objeto<'_>) -> Result<ComercioExterior, ErrorConstruccion> {
    comercio_exterior(o)
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
