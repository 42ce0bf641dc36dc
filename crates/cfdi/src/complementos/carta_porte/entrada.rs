//! The model read from the API's JSON (SAT's names in camelCase, see [`super`]).

use super::*;
use crate::construccion::ErrorConstruccion;
use crate::entrada::Objeto;

pub(super) fn leer(o: &mut Objeto<'_>) -> Result<CartaPorte, ErrorConstruccion> {
    carta_porte(o)
}

fn carta_porte(o: &mut Objeto<'_>) -> Result<CartaPorte, ErrorConstruccion> {
    let x = CartaPorte {
        version: o.texto("version")?.unwrap_or_default(),
        id_ccp: o.texto("idCCP")?.unwrap_or_default(),
        transp_internac: o.texto_req("transpInternac")?,
        entrada_salida_merc: o.texto("entradaSalidaMerc")?,
        pais_origen_destino: o.texto("paisOrigenDestino")?,
        via_entrada_salida: o.texto("viaEntradaSalida")?,
        total_dist_rec: o.numero("totalDistRec")?,
        registro_istmo: o.texto("registroISTMO")?,
        ubicacion_polo_origen: o.texto("ubicacionPoloOrigen")?,
        ubicacion_polo_destino: o.texto("ubicacionPoloDestino")?,
        regimenes_aduaneros: o
            .lista("regimenesAduaneros")?
            .iter_mut()
            .map(regimen_aduanero_ccp)
            .collect::<Result<_, _>>()?,
        ubicaciones: o.lista("ubicaciones")?.iter_mut().map(ubicacion).collect::<Result<_, _>>()?,
        mercancias: mercancias(&mut o.objeto_req("mercancias")?)?,
        figura_transporte: o.lista("figuraTransporte")?.iter_mut().map(tipos_figura).collect::<Result<_, _>>()?,
    };
    o.terminar()?;
    Ok(x)
}

fn regimen_aduanero_ccp(o: &mut Objeto<'_>) -> Result<RegimenAduaneroCcp, ErrorConstruccion> {
    let x = RegimenAduaneroCcp { regimen_aduanero: o.texto_req("regimenAduanero")? };
    o.terminar()?;
    Ok(x)
}

fn ubicacion(o: &mut Objeto<'_>) -> Result<Ubicacion, ErrorConstruccion> {
    let x = Ubicacion {
        tipo_ubicacion: o.texto_req("tipoUbicacion")?,
        id_ubicacion: o.texto("idUbicacion")?,
        rfc_remitente_destinatario: o.texto_req("rfcRemitenteDestinatario")?,
        nombre_remitente_destinatario: o.texto("nombreRemitenteDestinatario")?,
        num_reg_id_trib: o.texto("numRegIdTrib")?,
        residencia_fiscal: o.texto("residenciaFiscal")?,
        num_estacion: o.texto("numEstacion")?,
        nombre_estacion: o.texto("nombreEstacion")?,
        navegacion_trafico: o.texto("navegacionTrafico")?,
        fecha_hora_salida_llegada: o.texto_req("fechaHoraSalidaLlegada")?,
        tipo_estacion: o.texto("tipoEstacion")?,
        distancia_recorrida: o.numero("distanciaRecorrida")?,
        domicilio: o.objeto("domicilio")?.as_mut().map(domicilio).transpose()?,
    };
    o.terminar()?;
    Ok(x)
}

fn domicilio(o: &mut Objeto<'_>) -> Result<Domicilio, ErrorConstruccion> {
    let x = Domicilio {
        calle: o.texto("calle")?,
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

fn mercancias(o: &mut Objeto<'_>) -> Result<Mercancias, ErrorConstruccion> {
    let x = Mercancias {
        peso_bruto_total: o.numero("pesoBrutoTotal")?.unwrap_or_default(),
        unidad_peso: o.texto_req("unidadPeso")?,
        peso_neto_total: o.numero("pesoNetoTotal")?,
        num_total_mercancias: o.numero("numTotalMercancias")?.unwrap_or_default(),
        cargo_por_tasacion: o.numero("cargoPorTasacion")?,
        logistica_inversa_recoleccion_devolucion: o.texto("logisticaInversaRecoleccionDevolucion")?,
        mercancia: o.lista("mercancia")?.iter_mut().map(mercancia).collect::<Result<_, _>>()?,
        autotransporte: o.objeto("autotransporte")?.as_mut().map(autotransporte).transpose()?,
        transporte_maritimo: o.objeto("transporteMaritimo")?.as_mut().map(transporte_maritimo).transpose()?,
        transporte_aereo: o.objeto("transporteAereo")?.as_mut().map(transporte_aereo).transpose()?,
        transporte_ferroviario: o.objeto("transporteFerroviario")?.as_mut().map(transporte_ferroviario).transpose()?,
    };
    o.terminar()?;
    Ok(x)
}

fn mercancia(o: &mut Objeto<'_>) -> Result<Mercancia, ErrorConstruccion> {
    let x = Mercancia {
        bienes_transp: o.texto_req("bienesTransp")?,
        clave_stcc: o.texto("claveSTCC")?,
        descripcion: o.texto_req("descripcion")?,
        cantidad: o.numero_req("cantidad")?,
        clave_unidad: o.texto_req("claveUnidad")?,
        unidad: o.texto("unidad")?,
        dimensiones: o.texto("dimensiones")?,
        material_peligroso: o.texto("materialPeligroso")?,
        cve_material_peligroso: o.texto("cveMaterialPeligroso")?,
        embalaje: o.texto("embalaje")?,
        descrip_embalaje: o.texto("descripEmbalaje")?,
        sector_cofepris: o.texto("sectorCOFEPRIS")?,
        nombre_ingrediente_activo: o.texto("nombreIngredienteActivo")?,
        nom_quimico: o.texto("nomQuimico")?,
        denominacion_generica_prod: o.texto("denominacionGenericaProd")?,
        denominacion_distintiva_prod: o.texto("denominacionDistintivaProd")?,
        fabricante: o.texto("fabricante")?,
        fecha_caducidad: o.texto("fechaCaducidad")?,
        lote_medicamento: o.texto("loteMedicamento")?,
        forma_farmaceutica: o.texto("formaFarmaceutica")?,
        condiciones_esp_transp: o.texto("condicionesEspTransp")?,
        registro_sanitario_folio_autorizacion: o.texto("registroSanitarioFolioAutorizacion")?,
        permiso_importacion: o.texto("permisoImportacion")?,
        folio_impo_vucem: o.texto("folioImpoVUCEM")?,
        num_cas: o.texto("numCAS")?,
        razon_social_emp_imp: o.texto("razonSocialEmpImp")?,
        num_reg_san_plag_cofepris: o.texto("numRegSanPlagCOFEPRIS")?,
        datos_fabricante: o.texto("datosFabricante")?,
        datos_formulador: o.texto("datosFormulador")?,
        datos_maquilador: o.texto("datosMaquilador")?,
        uso_autorizado: o.texto("usoAutorizado")?,
        peso_en_kg: o.numero_req("pesoEnKg")?,
        valor_mercancia: o.numero("valorMercancia")?,
        moneda: o.texto("moneda")?,
        fraccion_arancelaria: o.texto("fraccionArancelaria")?,
        uuid_comercio_ext: o.texto("uuidComercioExt")?,
        tipo_materia: o.texto("tipoMateria")?,
        descripcion_materia: o.texto("descripcionMateria")?,
        documentacion_aduanera: o
            .lista("documentacionAduanera")?
            .iter_mut()
            .map(documentacion_aduanera)
            .collect::<Result<_, _>>()?,
        guias_identificacion: o
            .lista("guiasIdentificacion")?
            .iter_mut()
            .map(guias_identificacion)
            .collect::<Result<_, _>>()?,
        cantidad_transporta: o
            .lista("cantidadTransporta")?
            .iter_mut()
            .map(cantidad_transporta)
            .collect::<Result<_, _>>()?,
        detalle_mercancia: o.objeto("detalleMercancia")?.as_mut().map(detalle_mercancia).transpose()?,
    };
    o.terminar()?;
    Ok(x)
}

fn documentacion_aduanera(o: &mut Objeto<'_>) -> Result<DocumentacionAduanera, ErrorConstruccion> {
    let x = DocumentacionAduanera {
        tipo_documento: o.texto_req("tipoDocumento")?,
        num_pedimento: o.texto("numPedimento")?,
        ident_doc_aduanero: o.texto("identDocAduanero")?,
        rfc_impo: o.texto("rfcImpo")?,
    };
    o.terminar()?;
    Ok(x)
}

fn guias_identificacion(o: &mut Objeto<'_>) -> Result<GuiasIdentificacion, ErrorConstruccion> {
    let x = GuiasIdentificacion {
        numero_guia_identificacion: o.texto_req("numeroGuiaIdentificacion")?,
        descrip_guia_identificacion: o.texto_req("descripGuiaIdentificacion")?,
        peso_guia_identificacion: o.numero_req("pesoGuiaIdentificacion")?,
    };
    o.terminar()?;
    Ok(x)
}

fn cantidad_transporta(o: &mut Objeto<'_>) -> Result<CantidadTransporta, ErrorConstruccion> {
    let x = CantidadTransporta {
        cantidad: o.numero_req("cantidad")?,
        id_origen: o.texto_req("idOrigen")?,
        id_destino: o.texto_req("idDestino")?,
        cves_transporte: o.texto("cvesTransporte")?,
    };
    o.terminar()?;
    Ok(x)
}

fn detalle_mercancia(o: &mut Objeto<'_>) -> Result<DetalleMercancia, ErrorConstruccion> {
    let x = DetalleMercancia {
        unidad_peso_merc: o.texto_req("unidadPesoMerc")?,
        peso_bruto: o.numero_req("pesoBruto")?,
        peso_neto: o.numero_req("pesoNeto")?,
        peso_tara: o.numero_req("pesoTara")?,
        num_piezas: o.numero("numPiezas")?,
    };
    o.terminar()?;
    Ok(x)
}

fn autotransporte(o: &mut Objeto<'_>) -> Result<Autotransporte, ErrorConstruccion> {
    let x = Autotransporte {
        perm_sct: o.texto_req("permSCT")?,
        num_permiso_sct: o.texto_req("numPermisoSCT")?,
        identificacion_vehicular: identificacion_vehicular(&mut o.objeto_req("identificacionVehicular")?)?,
        seguros: seguros(&mut o.objeto_req("seguros")?)?,
        remolques: o.lista("remolques")?.iter_mut().map(remolque).collect::<Result<_, _>>()?,
    };
    o.terminar()?;
    Ok(x)
}

fn identificacion_vehicular(o: &mut Objeto<'_>) -> Result<IdentificacionVehicular, ErrorConstruccion> {
    let x = IdentificacionVehicular {
        config_vehicular: o.texto_req("configVehicular")?,
        peso_bruto_vehicular: o.numero_req("pesoBrutoVehicular")?,
        placa_vm: o.texto_req("placaVM")?,
        anio_modelo_vm: o.numero_req("anioModeloVM")?,
    };
    o.terminar()?;
    Ok(x)
}

fn seguros(o: &mut Objeto<'_>) -> Result<Seguros, ErrorConstruccion> {
    let x = Seguros {
        asegura_resp_civil: o.texto_req("aseguraRespCivil")?,
        poliza_resp_civil: o.texto_req("polizaRespCivil")?,
        asegura_med_ambiente: o.texto("aseguraMedAmbiente")?,
        poliza_med_ambiente: o.texto("polizaMedAmbiente")?,
        asegura_carga: o.texto("aseguraCarga")?,
        poliza_carga: o.texto("polizaCarga")?,
        prima_seguro: o.numero("primaSeguro")?,
    };
    o.terminar()?;
    Ok(x)
}

fn remolque(o: &mut Objeto<'_>) -> Result<Remolque, ErrorConstruccion> {
    let x = Remolque { sub_tipo_rem: o.texto_req("subTipoRem")?, placa: o.texto_req("placa")? };
    o.terminar()?;
    Ok(x)
}

fn transporte_maritimo(o: &mut Objeto<'_>) -> Result<TransporteMaritimo, ErrorConstruccion> {
    let x = TransporteMaritimo {
        perm_sct: o.texto("permSCT")?,
        num_permiso_sct: o.texto("numPermisoSCT")?,
        nombre_aseg: o.texto("nombreAseg")?,
        num_poliza_seguro: o.texto("numPolizaSeguro")?,
        tipo_embarcacion: o.texto_req("tipoEmbarcacion")?,
        matricula: o.texto_req("matricula")?,
        numero_omi: o.texto_req("numeroOMI")?,
        anio_embarcacion: o.numero("anioEmbarcacion")?,
        nombre_embarc: o.texto("nombreEmbarc")?,
        nacionalidad_embarc: o.texto_req("nacionalidadEmbarc")?,
        unidades_de_arq_bruto: o.numero_req("unidadesDeArqBruto")?,
        tipo_carga: o.texto_req("tipoCarga")?,
        eslora: o.numero("eslora")?,
        manga: o.numero("manga")?,
        calado: o.numero("calado")?,
        puntal: o.numero("puntal")?,
        linea_naviera: o.texto("lineaNaviera")?,
        nombre_agente_naviero: o.texto_req("nombreAgenteNaviero")?,
        num_autorizacion_naviero: o.texto_req("numAutorizacionNaviero")?,
        num_viaje: o.texto("numViaje")?,
        num_conoc_embarc: o.texto("numConocEmbarc")?,
        permiso_temp_navegacion: o.texto("permisoTempNavegacion")?,
        contenedor: o.lista("contenedor")?.iter_mut().map(contenedor_maritimo).collect::<Result<_, _>>()?,
    };
    o.terminar()?;
    Ok(x)
}

fn contenedor_maritimo(o: &mut Objeto<'_>) -> Result<ContenedorMaritimo, ErrorConstruccion> {
    let x = ContenedorMaritimo {
        tipo_contenedor: o.texto_req("tipoContenedor")?,
        matricula_contenedor: o.texto("matriculaContenedor")?,
        num_precinto: o.texto("numPrecinto")?,
        id_ccp_relacionado: o.texto("idCCPRelacionado")?,
        placa_vmccp: o.texto("placaVMCCP")?,
        fecha_certificacion_ccp: o.texto("fechaCertificacionCCP")?,
        remolques_ccp: o.lista("remolquesCCP")?.iter_mut().map(remolque_ccp).collect::<Result<_, _>>()?,
    };
    o.terminar()?;
    Ok(x)
}

fn remolque_ccp(o: &mut Objeto<'_>) -> Result<RemolqueCcp, ErrorConstruccion> {
    let x = RemolqueCcp { sub_tipo_rem_ccp: o.texto_req("subTipoRemCCP")?, placa_ccp: o.texto_req("placaCCP")? };
    o.terminar()?;
    Ok(x)
}

fn transporte_aereo(o: &mut Objeto<'_>) -> Result<TransporteAereo, ErrorConstruccion> {
    let x = TransporteAereo {
        perm_sct: o.texto_req("permSCT")?,
        num_permiso_sct: o.texto_req("numPermisoSCT")?,
        matricula_aeronave: o.texto("matriculaAeronave")?,
        nombre_aseg: o.texto("nombreAseg")?,
        num_poliza_seguro: o.texto("numPolizaSeguro")?,
        numero_guia: o.texto_req("numeroGuia")?,
        lugar_contrato: o.texto("lugarContrato")?,
        codigo_transportista: o.texto_req("codigoTransportista")?,
        rfc_embarcador: o.texto("rfcEmbarcador")?,
        num_reg_id_trib_embarc: o.texto("numRegIdTribEmbarc")?,
        residencia_fiscal_embarc: o.texto("residenciaFiscalEmbarc")?,
        nombre_embarcador: o.texto("nombreEmbarcador")?,
    };
    o.terminar()?;
    Ok(x)
}

fn transporte_ferroviario(o: &mut Objeto<'_>) -> Result<TransporteFerroviario, ErrorConstruccion> {
    let x = TransporteFerroviario {
        tipo_de_servicio: o.texto_req("tipoDeServicio")?,
        tipo_de_trafico: o.texto_req("tipoDeTrafico")?,
        nombre_aseg: o.texto("nombreAseg")?,
        num_poliza_seguro: o.texto("numPolizaSeguro")?,
        derechos_de_paso: o.lista("derechosDePaso")?.iter_mut().map(derechos_de_paso).collect::<Result<_, _>>()?,
        carro: o.lista("carro")?.iter_mut().map(carro).collect::<Result<_, _>>()?,
    };
    o.terminar()?;
    Ok(x)
}

fn derechos_de_paso(o: &mut Objeto<'_>) -> Result<DerechosDePaso, ErrorConstruccion> {
    let x = DerechosDePaso {
        tipo_derecho_de_paso: o.texto_req("tipoDerechoDePaso")?,
        kilometraje_pagado: o.numero_req("kilometrajePagado")?,
    };
    o.terminar()?;
    Ok(x)
}

fn carro(o: &mut Objeto<'_>) -> Result<Carro, ErrorConstruccion> {
    let x = Carro {
        tipo_carro: o.texto_req("tipoCarro")?,
        matricula_carro: o.texto_req("matriculaCarro")?,
        guia_carro: o.texto_req("guiaCarro")?,
        toneladas_netas_carro: o.numero_req("toneladasNetasCarro")?,
        contenedor: o.lista("contenedor")?.iter_mut().map(contenedor_carro).collect::<Result<_, _>>()?,
    };
    o.terminar()?;
    Ok(x)
}

fn contenedor_carro(o: &mut Objeto<'_>) -> Result<ContenedorCarro, ErrorConstruccion> {
    let x = ContenedorCarro {
        tipo_contenedor: o.texto_req("tipoContenedor")?,
        peso_contenedor_vacio: o.numero_req("pesoContenedorVacio")?,
        peso_neto_mercancia: o.numero_req("pesoNetoMercancia")?,
    };
    o.terminar()?;
    Ok(x)
}

fn tipos_figura(o: &mut Objeto<'_>) -> Result<TiposFigura, ErrorConstruccion> {
    let x = TiposFigura {
        tipo_figura: o.texto_req("tipoFigura")?,
        rfc_figura: o.texto("rfcFigura")?,
        num_licencia: o.texto("numLicencia")?,
        nombre_figura: o.texto_req("nombreFigura")?,
        num_reg_id_trib_figura: o.texto("numRegIdTribFigura")?,
        residencia_fiscal_figura: o.texto("residenciaFiscalFigura")?,
        partes_transporte: o.lista("partesTransporte")?.iter_mut().map(partes_transporte).collect::<Result<_, _>>()?,
        domicilio: o.objeto("domicilio")?.as_mut().map(domicilio).transpose()?,
    };
    o.terminar()?;
    Ok(x)
}

fn partes_transporte(o: &mut Objeto<'_>) -> Result<PartesTransporte, ErrorConstruccion> {
    let x = PartesTransporte { parte_transporte: o.texto_req("parteTransporte")? };
    o.terminar()?;
    Ok(x)
}
