//! Parser of `CartaPorte` into the model.

use super::*;
use crate::parser::{hijo, hijos};

const NS: &str = NS_CARTAPORTE31;

pub(super) fn leer(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<CartaPorte, ErrorParseo> {
    carta_porte(l, n)
}

fn carta_porte(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<CartaPorte, ErrorParseo> {
    Ok(CartaPorte {
        version: l.req(n, "Version")?,
        id_ccp: l.req(n, "IdCCP")?,
        transp_internac: l.req(n, "TranspInternac")?,
        entrada_salida_merc: l.opt(n, "EntradaSalidaMerc"),
        pais_origen_destino: l.opt(n, "PaisOrigenDestino"),
        via_entrada_salida: l.opt(n, "ViaEntradaSalida"),
        total_dist_rec: l.opt_num(n, "TotalDistRec"),
        registro_istmo: l.opt(n, "RegistroISTMO"),
        ubicacion_polo_origen: l.opt(n, "UbicacionPoloOrigen"),
        ubicacion_polo_destino: l.opt(n, "UbicacionPoloDestino"),
        regimenes_aduaneros: hijos(n, NS, "RegimenesAduaneros")
            .flat_map(|c| hijos(c, NS, "RegimenAduaneroCCP"))
            .map(|h| regimen_aduanero_ccp(l, h))
            .collect::<Result<_, _>>()?,
        ubicaciones: hijos(n, NS, "Ubicaciones")
            .flat_map(|c| hijos(c, NS, "Ubicacion"))
            .map(|h| ubicacion(l, h))
            .collect::<Result<_, _>>()?,
        mercancias: mercancias(l, hijo(n, NS, "Mercancias").ok_or_else(|| l.falta(n, "Mercancias"))?)?,
        figura_transporte: hijos(n, NS, "FiguraTransporte")
            .flat_map(|c| hijos(c, NS, "TiposFigura"))
            .map(|h| tipos_figura(l, h))
            .collect::<Result<_, _>>()?,
    })
}

fn regimen_aduanero_ccp(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<RegimenAduaneroCcp, ErrorParseo> {
    Ok(RegimenAduaneroCcp { regimen_aduanero: l.req(n, "RegimenAduanero")? })
}

fn ubicacion(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Ubicacion, ErrorParseo> {
    Ok(Ubicacion {
        tipo_ubicacion: l.req(n, "TipoUbicacion")?,
        id_ubicacion: l.opt(n, "IDUbicacion"),
        rfc_remitente_destinatario: l.req(n, "RFCRemitenteDestinatario")?,
        nombre_remitente_destinatario: l.opt(n, "NombreRemitenteDestinatario"),
        num_reg_id_trib: l.opt(n, "NumRegIdTrib"),
        residencia_fiscal: l.opt(n, "ResidenciaFiscal"),
        num_estacion: l.opt(n, "NumEstacion"),
        nombre_estacion: l.opt(n, "NombreEstacion"),
        navegacion_trafico: l.opt(n, "NavegacionTrafico"),
        fecha_hora_salida_llegada: l.req(n, "FechaHoraSalidaLlegada")?,
        tipo_estacion: l.opt(n, "TipoEstacion"),
        distancia_recorrida: l.opt_num(n, "DistanciaRecorrida"),
        domicilio: hijo(n, NS, "Domicilio").map(|h| domicilio(l, h)).transpose()?,
    })
}

fn domicilio(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Domicilio, ErrorParseo> {
    Ok(Domicilio {
        calle: l.opt(n, "Calle"),
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

fn mercancias(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Mercancias, ErrorParseo> {
    Ok(Mercancias {
        peso_bruto_total: l.num(n, "PesoBrutoTotal")?,
        unidad_peso: l.req(n, "UnidadPeso")?,
        peso_neto_total: l.opt_num(n, "PesoNetoTotal"),
        num_total_mercancias: l.num(n, "NumTotalMercancias")?,
        cargo_por_tasacion: l.opt_num(n, "CargoPorTasacion"),
        logistica_inversa_recoleccion_devolucion: l.opt(n, "LogisticaInversaRecoleccionDevolucion"),
        mercancia: hijos(n, NS, "Mercancia").map(|h| mercancia(l, h)).collect::<Result<_, _>>()?,
        autotransporte: hijo(n, NS, "Autotransporte").map(|h| autotransporte(l, h)).transpose()?,
        transporte_maritimo: hijo(n, NS, "TransporteMaritimo").map(|h| transporte_maritimo(l, h)).transpose()?,
        transporte_aereo: hijo(n, NS, "TransporteAereo").map(|h| transporte_aereo(l, h)).transpose()?,
        transporte_ferroviario: hijo(n, NS, "TransporteFerroviario")
            .map(|h| transporte_ferroviario(l, h))
            .transpose()?,
    })
}

fn mercancia(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Mercancia, ErrorParseo> {
    Ok(Mercancia {
        bienes_transp: l.req(n, "BienesTransp")?,
        clave_stcc: l.opt(n, "ClaveSTCC"),
        descripcion: l.req(n, "Descripcion")?,
        cantidad: l.num(n, "Cantidad")?,
        clave_unidad: l.req(n, "ClaveUnidad")?,
        unidad: l.opt(n, "Unidad"),
        dimensiones: l.opt(n, "Dimensiones"),
        material_peligroso: l.opt(n, "MaterialPeligroso"),
        cve_material_peligroso: l.opt(n, "CveMaterialPeligroso"),
        embalaje: l.opt(n, "Embalaje"),
        descrip_embalaje: l.opt(n, "DescripEmbalaje"),
        sector_cofepris: l.opt(n, "SectorCOFEPRIS"),
        nombre_ingrediente_activo: l.opt(n, "NombreIngredienteActivo"),
        nom_quimico: l.opt(n, "NomQuimico"),
        denominacion_generica_prod: l.opt(n, "DenominacionGenericaProd"),
        denominacion_distintiva_prod: l.opt(n, "DenominacionDistintivaProd"),
        fabricante: l.opt(n, "Fabricante"),
        fecha_caducidad: l.opt(n, "FechaCaducidad"),
        lote_medicamento: l.opt(n, "LoteMedicamento"),
        forma_farmaceutica: l.opt(n, "FormaFarmaceutica"),
        condiciones_esp_transp: l.opt(n, "CondicionesEspTransp"),
        registro_sanitario_folio_autorizacion: l.opt(n, "RegistroSanitarioFolioAutorizacion"),
        permiso_importacion: l.opt(n, "PermisoImportacion"),
        folio_impo_vucem: l.opt(n, "FolioImpoVUCEM"),
        num_cas: l.opt(n, "NumCAS"),
        razon_social_emp_imp: l.opt(n, "RazonSocialEmpImp"),
        num_reg_san_plag_cofepris: l.opt(n, "NumRegSanPlagCOFEPRIS"),
        datos_fabricante: l.opt(n, "DatosFabricante"),
        datos_formulador: l.opt(n, "DatosFormulador"),
        datos_maquilador: l.opt(n, "DatosMaquilador"),
        uso_autorizado: l.opt(n, "UsoAutorizado"),
        peso_en_kg: l.num(n, "PesoEnKg")?,
        valor_mercancia: l.opt_num(n, "ValorMercancia"),
        moneda: l.opt(n, "Moneda"),
        fraccion_arancelaria: l.opt(n, "FraccionArancelaria"),
        uuid_comercio_ext: l.opt(n, "UUIDComercioExt"),
        tipo_materia: l.opt(n, "TipoMateria"),
        descripcion_materia: l.opt(n, "DescripcionMateria"),
        documentacion_aduanera: hijos(n, NS, "DocumentacionAduanera")
            .map(|h| documentacion_aduanera(l, h))
            .collect::<Result<_, _>>()?,
        guias_identificacion: hijos(n, NS, "GuiasIdentificacion")
            .map(|h| guias_identificacion(l, h))
            .collect::<Result<_, _>>()?,
        cantidad_transporta: hijos(n, NS, "CantidadTransporta")
            .map(|h| cantidad_transporta(l, h))
            .collect::<Result<_, _>>()?,
        detalle_mercancia: hijo(n, NS, "DetalleMercancia").map(|h| detalle_mercancia(l, h)).transpose()?,
    })
}

fn documentacion_aduanera(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<DocumentacionAduanera, ErrorParseo> {
    Ok(DocumentacionAduanera {
        tipo_documento: l.req(n, "TipoDocumento")?,
        num_pedimento: l.opt(n, "NumPedimento"),
        ident_doc_aduanero: l.opt(n, "IdentDocAduanero"),
        rfc_impo: l.opt(n, "RFCImpo"),
    })
}

fn guias_identificacion(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<GuiasIdentificacion, ErrorParseo> {
    Ok(GuiasIdentificacion {
        numero_guia_identificacion: l.req(n, "NumeroGuiaIdentificacion")?,
        descrip_guia_identificacion: l.req(n, "DescripGuiaIdentificacion")?,
        peso_guia_identificacion: l.num(n, "PesoGuiaIdentificacion")?,
    })
}

fn cantidad_transporta(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<CantidadTransporta, ErrorParseo> {
    Ok(CantidadTransporta {
        cantidad: l.num(n, "Cantidad")?,
        id_origen: l.req(n, "IDOrigen")?,
        id_destino: l.req(n, "IDDestino")?,
        cves_transporte: l.opt(n, "CvesTransporte"),
    })
}

fn detalle_mercancia(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<DetalleMercancia, ErrorParseo> {
    Ok(DetalleMercancia {
        unidad_peso_merc: l.req(n, "UnidadPesoMerc")?,
        peso_bruto: l.num(n, "PesoBruto")?,
        peso_neto: l.num(n, "PesoNeto")?,
        peso_tara: l.num(n, "PesoTara")?,
        num_piezas: l.opt_num(n, "NumPiezas"),
    })
}

fn autotransporte(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Autotransporte, ErrorParseo> {
    Ok(Autotransporte {
        perm_sct: l.req(n, "PermSCT")?,
        num_permiso_sct: l.req(n, "NumPermisoSCT")?,
        identificacion_vehicular: identificacion_vehicular(
            l,
            hijo(n, NS, "IdentificacionVehicular").ok_or_else(|| l.falta(n, "IdentificacionVehicular"))?,
        )?,
        seguros: seguros(l, hijo(n, NS, "Seguros").ok_or_else(|| l.falta(n, "Seguros"))?)?,
        remolques: hijos(n, NS, "Remolques")
            .flat_map(|c| hijos(c, NS, "Remolque"))
            .map(|h| remolque(l, h))
            .collect::<Result<_, _>>()?,
    })
}

fn identificacion_vehicular(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<IdentificacionVehicular, ErrorParseo> {
    Ok(IdentificacionVehicular {
        config_vehicular: l.req(n, "ConfigVehicular")?,
        peso_bruto_vehicular: l.num(n, "PesoBrutoVehicular")?,
        placa_vm: l.req(n, "PlacaVM")?,
        anio_modelo_vm: l.num(n, "AnioModeloVM")?,
    })
}

fn seguros(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Seguros, ErrorParseo> {
    Ok(Seguros {
        asegura_resp_civil: l.req(n, "AseguraRespCivil")?,
        poliza_resp_civil: l.req(n, "PolizaRespCivil")?,
        asegura_med_ambiente: l.opt(n, "AseguraMedAmbiente"),
        poliza_med_ambiente: l.opt(n, "PolizaMedAmbiente"),
        asegura_carga: l.opt(n, "AseguraCarga"),
        poliza_carga: l.opt(n, "PolizaCarga"),
        prima_seguro: l.opt_num(n, "PrimaSeguro"),
    })
}

fn remolque(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Remolque, ErrorParseo> {
    Ok(Remolque { sub_tipo_rem: l.req(n, "SubTipoRem")?, placa: l.req(n, "Placa")? })
}

fn transporte_maritimo(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<TransporteMaritimo, ErrorParseo> {
    Ok(TransporteMaritimo {
        perm_sct: l.opt(n, "PermSCT"),
        num_permiso_sct: l.opt(n, "NumPermisoSCT"),
        nombre_aseg: l.opt(n, "NombreAseg"),
        num_poliza_seguro: l.opt(n, "NumPolizaSeguro"),
        tipo_embarcacion: l.req(n, "TipoEmbarcacion")?,
        matricula: l.req(n, "Matricula")?,
        numero_omi: l.req(n, "NumeroOMI")?,
        anio_embarcacion: l.opt_num(n, "AnioEmbarcacion"),
        nombre_embarc: l.opt(n, "NombreEmbarc"),
        nacionalidad_embarc: l.req(n, "NacionalidadEmbarc")?,
        unidades_de_arq_bruto: l.num(n, "UnidadesDeArqBruto")?,
        tipo_carga: l.req(n, "TipoCarga")?,
        eslora: l.opt_num(n, "Eslora"),
        manga: l.opt_num(n, "Manga"),
        calado: l.opt_num(n, "Calado"),
        puntal: l.opt_num(n, "Puntal"),
        linea_naviera: l.opt(n, "LineaNaviera"),
        nombre_agente_naviero: l.req(n, "NombreAgenteNaviero")?,
        num_autorizacion_naviero: l.req(n, "NumAutorizacionNaviero")?,
        num_viaje: l.opt(n, "NumViaje"),
        num_conoc_embarc: l.opt(n, "NumConocEmbarc"),
        permiso_temp_navegacion: l.opt(n, "PermisoTempNavegacion"),
        contenedor: hijos(n, NS, "Contenedor").map(|h| contenedor_maritimo(l, h)).collect::<Result<_, _>>()?,
    })
}

fn contenedor_maritimo(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<ContenedorMaritimo, ErrorParseo> {
    Ok(ContenedorMaritimo {
        tipo_contenedor: l.req(n, "TipoContenedor")?,
        matricula_contenedor: l.opt(n, "MatriculaContenedor"),
        num_precinto: l.opt(n, "NumPrecinto"),
        id_ccp_relacionado: l.opt(n, "IdCCPRelacionado"),
        placa_vmccp: l.opt(n, "PlacaVMCCP"),
        fecha_certificacion_ccp: l.opt(n, "FechaCertificacionCCP"),
        remolques_ccp: hijos(n, NS, "RemolquesCCP")
            .flat_map(|c| hijos(c, NS, "RemolqueCCP"))
            .map(|h| remolque_ccp(l, h))
            .collect::<Result<_, _>>()?,
    })
}

fn remolque_ccp(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<RemolqueCcp, ErrorParseo> {
    Ok(RemolqueCcp { sub_tipo_rem_ccp: l.req(n, "SubTipoRemCCP")?, placa_ccp: l.req(n, "PlacaCCP")? })
}

fn transporte_aereo(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<TransporteAereo, ErrorParseo> {
    Ok(TransporteAereo {
        perm_sct: l.req(n, "PermSCT")?,
        num_permiso_sct: l.req(n, "NumPermisoSCT")?,
        matricula_aeronave: l.opt(n, "MatriculaAeronave"),
        nombre_aseg: l.opt(n, "NombreAseg"),
        num_poliza_seguro: l.opt(n, "NumPolizaSeguro"),
        numero_guia: l.req(n, "NumeroGuia")?,
        lugar_contrato: l.opt(n, "LugarContrato"),
        codigo_transportista: l.req(n, "CodigoTransportista")?,
        rfc_embarcador: l.opt(n, "RFCEmbarcador"),
        num_reg_id_trib_embarc: l.opt(n, "NumRegIdTribEmbarc"),
        residencia_fiscal_embarc: l.opt(n, "ResidenciaFiscalEmbarc"),
        nombre_embarcador: l.opt(n, "NombreEmbarcador"),
    })
}

fn transporte_ferroviario(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<TransporteFerroviario, ErrorParseo> {
    Ok(TransporteFerroviario {
        tipo_de_servicio: l.req(n, "TipoDeServicio")?,
        tipo_de_trafico: l.req(n, "TipoDeTrafico")?,
        nombre_aseg: l.opt(n, "NombreAseg"),
        num_poliza_seguro: l.opt(n, "NumPolizaSeguro"),
        derechos_de_paso: hijos(n, NS, "DerechosDePaso").map(|h| derechos_de_paso(l, h)).collect::<Result<_, _>>()?,
        carro: hijos(n, NS, "Carro").map(|h| carro(l, h)).collect::<Result<_, _>>()?,
    })
}

fn derechos_de_paso(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<DerechosDePaso, ErrorParseo> {
    Ok(DerechosDePaso {
        tipo_derecho_de_paso: l.req(n, "TipoDerechoDePaso")?,
        kilometraje_pagado: l.num(n, "KilometrajePagado")?,
    })
}

fn carro(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Carro, ErrorParseo> {
    Ok(Carro {
        tipo_carro: l.req(n, "TipoCarro")?,
        matricula_carro: l.req(n, "MatriculaCarro")?,
        guia_carro: l.req(n, "GuiaCarro")?,
        toneladas_netas_carro: l.num(n, "ToneladasNetasCarro")?,
        contenedor: hijos(n, NS, "Contenedor").map(|h| contenedor_carro(l, h)).collect::<Result<_, _>>()?,
    })
}

fn contenedor_carro(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<ContenedorCarro, ErrorParseo> {
    Ok(ContenedorCarro {
        tipo_contenedor: l.req(n, "TipoContenedor")?,
        peso_contenedor_vacio: l.num(n, "PesoContenedorVacio")?,
        peso_neto_mercancia: l.num(n, "PesoNetoMercancia")?,
    })
}

fn tipos_figura(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<TiposFigura, ErrorParseo> {
    Ok(TiposFigura {
        tipo_figura: l.req(n, "TipoFigura")?,
        rfc_figura: l.opt(n, "RFCFigura"),
        num_licencia: l.opt(n, "NumLicencia"),
        nombre_figura: l.req(n, "NombreFigura")?,
        num_reg_id_trib_figura: l.opt(n, "NumRegIdTribFigura"),
        residencia_fiscal_figura: l.opt(n, "ResidenciaFiscalFigura"),
        partes_transporte: hijos(n, NS, "PartesTransporte")
            .map(|h| partes_transporte(l, h))
            .collect::<Result<_, _>>()?,
        domicilio: hijo(n, NS, "Domicilio").map(|h| domicilio(l, h)).transpose()?,
    })
}

fn partes_transporte(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<PartesTransporte, ErrorParseo> {
    Ok(PartesTransporte { parte_transporte: l.req(n, "ParteTransporte")? })
}

#[cfg(test)]
mod tests {
    const GOLDEN: &str = include_str!("../../../tests/golden/T_carta_porte_intermodal.xml");

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(200))]

        /// A damaged Carta Porte document (a byte replaced or inserted, then cut) gives a
        /// model or an error, never a panic, and a model it gives writes and reads again.
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
                let _ = crate::cadena::desde_comprobante(&modelo);
                let _ = crate::validacion::validar(&modelo, &crate::catalogos::SinCatalogos);
            }
            let _ = crate::cadena::desde_xml(&String::from_utf8_lossy(&bytes));
        }
    }
}
