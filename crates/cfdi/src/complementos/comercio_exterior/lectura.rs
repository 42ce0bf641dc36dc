//! Parser of `ComercioExterior` into the model.

use super::*;
use crate::parser::{hijo, hijos};

const NS: &str = NS_CCE20;

pub(super) fn leer(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<ComercioExterior, ErrorParseo> {
    comercio_exterior(l, n)
}

fn comercio_exterior(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<ComercioExterior, ErrorParseo> {
    Ok(ComercioExterior {
        version: l.req(n, "Version")?,
        motivo_traslado: l.opt(n, "MotivoTraslado"),
        clave_de_pedimento: l.req(n, "ClaveDePedimento")?,
        certificado_origen: l.num(n, "CertificadoOrigen")?,
        num_certificado_origen: l.opt(n, "NumCertificadoOrigen"),
        numero_exportador_confiable: l.opt(n, "NumeroExportadorConfiable"),
        incoterm: l.opt(n, "Incoterm"),
        observaciones: l.opt(n, "Observaciones"),
        tipo_cambio_usd: l.num(n, "TipoCambioUSD")?,
        total_usd: l.num(n, "TotalUSD")?,
        emisor: hijo(n, NS, "Emisor").map(|h| emisor_cce(l, h)).transpose()?,
        propietario: hijos(n, NS, "Propietario").map(|h| propietario(l, h)).collect::<Result<_, _>>()?,
        receptor: hijo(n, NS, "Receptor").map(|h| receptor_cce(l, h)).transpose()?,
        destinatario: hijos(n, NS, "Destinatario").map(|h| destinatario(l, h)).collect::<Result<_, _>>()?,
        mercancias: hijos(n, NS, "Mercancias")
            .flat_map(|c| hijos(c, NS, "Mercancia"))
            .map(|h| mercancia_cce(l, h))
            .collect::<Result<_, _>>()?,
    })
}

fn emisor_cce(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<EmisorCce, ErrorParseo> {
    Ok(EmisorCce {
        curp: l.opt(n, "Curp"),
        domicilio: domicilio_cce(l, hijo(n, NS, "Domicilio").ok_or_else(|| l.falta(n, "Domicilio"))?)?,
    })
}

fn domicilio_cce(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<DomicilioCce, ErrorParseo> {
    Ok(DomicilioCce {
        calle: l.req(n, "Calle")?,
        numero_exterior: l.opt(n, "NumeroExterior"),
        numero_interior: l.opt(n, "NumeroInterior"),
        colonia: l.opt(n, "Colonia"),
        localidad: l.opt(n, "Localidad"),
        referencia: l.opt(n, "Referencia"),
        municipio: l.opt(n, "Municipio"),
        estado: l.req(n, "Estado")?,
        pais: l.req(n, "Pais")?,
        codigo_postal: l.req(n, "CodigoPostal")?,
    })
}

fn propietario(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Propietario, ErrorParseo> {
    Ok(Propietario { num_reg_id_trib: l.req(n, "NumRegIdTrib")?, residencia_fiscal: l.req(n, "ResidenciaFiscal")? })
}

fn receptor_cce(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<ReceptorCce, ErrorParseo> {
    Ok(ReceptorCce {
        num_reg_id_trib: l.opt(n, "NumRegIdTrib"),
        domicilio: hijo(n, NS, "Domicilio").map(|h| domicilio_cce(l, h)).transpose()?,
    })
}

fn destinatario(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Destinatario, ErrorParseo> {
    Ok(Destinatario {
        num_reg_id_trib: l.opt(n, "NumRegIdTrib"),
        nombre: l.opt(n, "Nombre"),
        domicilio: hijos(n, NS, "Domicilio").map(|h| domicilio_cce(l, h)).collect::<Result<_, _>>()?,
    })
}

fn mercancia_cce(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<MercanciaCce, ErrorParseo> {
    Ok(MercanciaCce {
        no_identificacion: l.req(n, "NoIdentificacion")?,
        fraccion_arancelaria: l.opt(n, "FraccionArancelaria"),
        cantidad_aduana: l.opt_num(n, "CantidadAduana"),
        unidad_aduana: l.opt(n, "UnidadAduana"),
        valor_unitario_aduana: l.opt_num(n, "ValorUnitarioAduana"),
        valor_dolares: l.num(n, "ValorDolares")?,
        descripciones_especificas: hijos(n, NS, "DescripcionesEspecificas")
            .map(|h| descripciones_especificas(l, h))
            .collect::<Result<_, _>>()?,
    })
}

fn descripciones_especificas(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<DescripcionesEspecificas, ErrorParseo> {
    Ok(DescripcionesEspecificas {
        marca: l.req(n, "Marca")?,
        modelo: l.opt(n, "Modelo"),
        sub_modelo: l.opt(n, "SubModelo"),
        numero_serie: l.opt(n, "NumeroSerie"),
    })
}

#[cfg(test)]
mod tests {
    const GOLDEN: &str = include_str!("../../../tests/golden/I_comercio_exterior.xml");

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(200))]

        /// A damaged Comercio Exterior document gives a model or an error, never a panic.
        #[test]
        fn nunca_entra_en_panico(corte in 0usize..GOLDEN.len(), posicion in 0usize..GOLDEN.len(), byte in proptest::num::u8::ANY, insertar in proptest::bool::ANY) {
            let mut bytes = GOLDEN.as_bytes().to_vec();
            if insertar {
                bytes.insert(posicion, byte);
            } else {
                bytes[posicion] = byte;
            }
            bytes.truncate(corte.max(posicion));
            if let Ok(modelo) = crate::parser::parsear_bytes(&bytes) {
                let xml = crate::escritura::escribir(&modelo).unwrap();
                proptest::prop_assert_eq!(crate::parser::parsear(&xml).unwrap(), modelo.clone());
                let _ = crate::validacion::validar(&modelo, &crate::catalogos::SinCatalogos);
            }
            let _ = crate::cadena::desde_xml(&String::from_utf8_lossy(&bytes));
        }
    }
}
