//! The model read from and written as the API's JSON (SAT's names in camelCase, see
//! `construccion`).

use super::*;
use crate::construccion::ErrorConstruccion;
use crate::entrada::{Objeto, Valor};

pub(super) fn leer(o: &mut Objeto<'_>) -> Result<CartaPorte, ErrorConstruccion> {
    carta_porte(o)
}

/// The model as the API's JSON: the same names; decimals as strings that keep their text,
/// SAT's whole numbers (`xs:int`) as numbers, absent attributes and empty lists left out.
pub(super) fn escribir(x: &CartaPorte) -> Valor {
    salida::carta_porte(x)
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

mod salida {
    use super::*;
    use crate::entrada::Miembros;

    pub(super) fn carta_porte(x: &CartaPorte) -> Valor {
        let mut o = Miembros::default();
        o.texto("version", Some(&x.version));
        o.texto("idCCP", Some(&x.id_ccp));
        o.texto("transpInternac", Some(&x.transp_internac));
        o.texto("entradaSalidaMerc", x.entrada_salida_merc.as_deref());
        o.texto("paisOrigenDestino", x.pais_origen_destino.as_deref());
        o.texto("viaEntradaSalida", x.via_entrada_salida.as_deref());
        o.decimal("totalDistRec", x.total_dist_rec.as_ref());
        o.texto("registroISTMO", x.registro_istmo.as_deref());
        o.texto("ubicacionPoloOrigen", x.ubicacion_polo_origen.as_deref());
        o.texto("ubicacionPoloDestino", x.ubicacion_polo_destino.as_deref());
        o.lista("regimenesAduaneros", x.regimenes_aduaneros.iter().map(regimen_aduanero_ccp));
        o.lista("ubicaciones", x.ubicaciones.iter().map(ubicacion));
        o.objeto("mercancias", Some(mercancias(&x.mercancias)));
        o.lista("figuraTransporte", x.figura_transporte.iter().map(tipos_figura));
        o.valor()
    }

    fn regimen_aduanero_ccp(x: &RegimenAduaneroCcp) -> Valor {
        let mut o = Miembros::default();
        o.texto("regimenAduanero", Some(&x.regimen_aduanero));
        o.valor()
    }

    fn ubicacion(x: &Ubicacion) -> Valor {
        let mut o = Miembros::default();
        o.texto("tipoUbicacion", Some(&x.tipo_ubicacion));
        o.texto("idUbicacion", x.id_ubicacion.as_deref());
        o.texto("rfcRemitenteDestinatario", Some(&x.rfc_remitente_destinatario));
        o.texto("nombreRemitenteDestinatario", x.nombre_remitente_destinatario.as_deref());
        o.texto("numRegIdTrib", x.num_reg_id_trib.as_deref());
        o.texto("residenciaFiscal", x.residencia_fiscal.as_deref());
        o.texto("numEstacion", x.num_estacion.as_deref());
        o.texto("nombreEstacion", x.nombre_estacion.as_deref());
        o.texto("navegacionTrafico", x.navegacion_trafico.as_deref());
        o.texto("fechaHoraSalidaLlegada", Some(&x.fecha_hora_salida_llegada));
        o.texto("tipoEstacion", x.tipo_estacion.as_deref());
        o.decimal("distanciaRecorrida", x.distancia_recorrida.as_ref());
        o.objeto("domicilio", x.domicilio.as_ref().map(domicilio));
        o.valor()
    }

    fn domicilio(x: &Domicilio) -> Valor {
        let mut o = Miembros::default();
        o.texto("calle", x.calle.as_deref());
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

    fn mercancias(x: &Mercancias) -> Valor {
        let mut o = Miembros::default();
        o.decimal("pesoBrutoTotal", Some(&x.peso_bruto_total));
        o.texto("unidadPeso", Some(&x.unidad_peso));
        o.decimal("pesoNetoTotal", x.peso_neto_total.as_ref());
        o.entero("numTotalMercancias", Some(&x.num_total_mercancias));
        o.decimal("cargoPorTasacion", x.cargo_por_tasacion.as_ref());
        o.texto("logisticaInversaRecoleccionDevolucion", x.logistica_inversa_recoleccion_devolucion.as_deref());
        o.lista("mercancia", x.mercancia.iter().map(mercancia));
        o.objeto("autotransporte", x.autotransporte.as_ref().map(autotransporte));
        o.objeto("transporteMaritimo", x.transporte_maritimo.as_ref().map(transporte_maritimo));
        o.objeto("transporteAereo", x.transporte_aereo.as_ref().map(transporte_aereo));
        o.objeto("transporteFerroviario", x.transporte_ferroviario.as_ref().map(transporte_ferroviario));
        o.valor()
    }

    fn mercancia(x: &Mercancia) -> Valor {
        let mut o = Miembros::default();
        o.texto("bienesTransp", Some(&x.bienes_transp));
        o.texto("claveSTCC", x.clave_stcc.as_deref());
        o.texto("descripcion", Some(&x.descripcion));
        o.decimal("cantidad", Some(&x.cantidad));
        o.texto("claveUnidad", Some(&x.clave_unidad));
        o.texto("unidad", x.unidad.as_deref());
        o.texto("dimensiones", x.dimensiones.as_deref());
        o.texto("materialPeligroso", x.material_peligroso.as_deref());
        o.texto("cveMaterialPeligroso", x.cve_material_peligroso.as_deref());
        o.texto("embalaje", x.embalaje.as_deref());
        o.texto("descripEmbalaje", x.descrip_embalaje.as_deref());
        o.texto("sectorCOFEPRIS", x.sector_cofepris.as_deref());
        o.texto("nombreIngredienteActivo", x.nombre_ingrediente_activo.as_deref());
        o.texto("nomQuimico", x.nom_quimico.as_deref());
        o.texto("denominacionGenericaProd", x.denominacion_generica_prod.as_deref());
        o.texto("denominacionDistintivaProd", x.denominacion_distintiva_prod.as_deref());
        o.texto("fabricante", x.fabricante.as_deref());
        o.texto("fechaCaducidad", x.fecha_caducidad.as_deref());
        o.texto("loteMedicamento", x.lote_medicamento.as_deref());
        o.texto("formaFarmaceutica", x.forma_farmaceutica.as_deref());
        o.texto("condicionesEspTransp", x.condiciones_esp_transp.as_deref());
        o.texto("registroSanitarioFolioAutorizacion", x.registro_sanitario_folio_autorizacion.as_deref());
        o.texto("permisoImportacion", x.permiso_importacion.as_deref());
        o.texto("folioImpoVUCEM", x.folio_impo_vucem.as_deref());
        o.texto("numCAS", x.num_cas.as_deref());
        o.texto("razonSocialEmpImp", x.razon_social_emp_imp.as_deref());
        o.texto("numRegSanPlagCOFEPRIS", x.num_reg_san_plag_cofepris.as_deref());
        o.texto("datosFabricante", x.datos_fabricante.as_deref());
        o.texto("datosFormulador", x.datos_formulador.as_deref());
        o.texto("datosMaquilador", x.datos_maquilador.as_deref());
        o.texto("usoAutorizado", x.uso_autorizado.as_deref());
        o.decimal("pesoEnKg", Some(&x.peso_en_kg));
        o.decimal("valorMercancia", x.valor_mercancia.as_ref());
        o.texto("moneda", x.moneda.as_deref());
        o.texto("fraccionArancelaria", x.fraccion_arancelaria.as_deref());
        o.texto("uuidComercioExt", x.uuid_comercio_ext.as_deref());
        o.texto("tipoMateria", x.tipo_materia.as_deref());
        o.texto("descripcionMateria", x.descripcion_materia.as_deref());
        o.lista("documentacionAduanera", x.documentacion_aduanera.iter().map(documentacion_aduanera));
        o.lista("guiasIdentificacion", x.guias_identificacion.iter().map(guias_identificacion));
        o.lista("cantidadTransporta", x.cantidad_transporta.iter().map(cantidad_transporta));
        o.objeto("detalleMercancia", x.detalle_mercancia.as_ref().map(detalle_mercancia));
        o.valor()
    }

    fn documentacion_aduanera(x: &DocumentacionAduanera) -> Valor {
        let mut o = Miembros::default();
        o.texto("tipoDocumento", Some(&x.tipo_documento));
        o.texto("numPedimento", x.num_pedimento.as_deref());
        o.texto("identDocAduanero", x.ident_doc_aduanero.as_deref());
        o.texto("rfcImpo", x.rfc_impo.as_deref());
        o.valor()
    }

    fn guias_identificacion(x: &GuiasIdentificacion) -> Valor {
        let mut o = Miembros::default();
        o.texto("numeroGuiaIdentificacion", Some(&x.numero_guia_identificacion));
        o.texto("descripGuiaIdentificacion", Some(&x.descrip_guia_identificacion));
        o.decimal("pesoGuiaIdentificacion", Some(&x.peso_guia_identificacion));
        o.valor()
    }

    fn cantidad_transporta(x: &CantidadTransporta) -> Valor {
        let mut o = Miembros::default();
        o.decimal("cantidad", Some(&x.cantidad));
        o.texto("idOrigen", Some(&x.id_origen));
        o.texto("idDestino", Some(&x.id_destino));
        o.texto("cvesTransporte", x.cves_transporte.as_deref());
        o.valor()
    }

    fn detalle_mercancia(x: &DetalleMercancia) -> Valor {
        let mut o = Miembros::default();
        o.texto("unidadPesoMerc", Some(&x.unidad_peso_merc));
        o.decimal("pesoBruto", Some(&x.peso_bruto));
        o.decimal("pesoNeto", Some(&x.peso_neto));
        o.decimal("pesoTara", Some(&x.peso_tara));
        o.entero("numPiezas", x.num_piezas.as_ref());
        o.valor()
    }

    fn autotransporte(x: &Autotransporte) -> Valor {
        let mut o = Miembros::default();
        o.texto("permSCT", Some(&x.perm_sct));
        o.texto("numPermisoSCT", Some(&x.num_permiso_sct));
        o.objeto("identificacionVehicular", Some(identificacion_vehicular(&x.identificacion_vehicular)));
        o.objeto("seguros", Some(seguros(&x.seguros)));
        o.lista("remolques", x.remolques.iter().map(remolque));
        o.valor()
    }

    fn identificacion_vehicular(x: &IdentificacionVehicular) -> Valor {
        let mut o = Miembros::default();
        o.texto("configVehicular", Some(&x.config_vehicular));
        o.decimal("pesoBrutoVehicular", Some(&x.peso_bruto_vehicular));
        o.texto("placaVM", Some(&x.placa_vm));
        o.entero("anioModeloVM", Some(&x.anio_modelo_vm));
        o.valor()
    }

    fn seguros(x: &Seguros) -> Valor {
        let mut o = Miembros::default();
        o.texto("aseguraRespCivil", Some(&x.asegura_resp_civil));
        o.texto("polizaRespCivil", Some(&x.poliza_resp_civil));
        o.texto("aseguraMedAmbiente", x.asegura_med_ambiente.as_deref());
        o.texto("polizaMedAmbiente", x.poliza_med_ambiente.as_deref());
        o.texto("aseguraCarga", x.asegura_carga.as_deref());
        o.texto("polizaCarga", x.poliza_carga.as_deref());
        o.decimal("primaSeguro", x.prima_seguro.as_ref());
        o.valor()
    }

    fn remolque(x: &Remolque) -> Valor {
        let mut o = Miembros::default();
        o.texto("subTipoRem", Some(&x.sub_tipo_rem));
        o.texto("placa", Some(&x.placa));
        o.valor()
    }

    fn transporte_maritimo(x: &TransporteMaritimo) -> Valor {
        let mut o = Miembros::default();
        o.texto("permSCT", x.perm_sct.as_deref());
        o.texto("numPermisoSCT", x.num_permiso_sct.as_deref());
        o.texto("nombreAseg", x.nombre_aseg.as_deref());
        o.texto("numPolizaSeguro", x.num_poliza_seguro.as_deref());
        o.texto("tipoEmbarcacion", Some(&x.tipo_embarcacion));
        o.texto("matricula", Some(&x.matricula));
        o.texto("numeroOMI", Some(&x.numero_omi));
        o.entero("anioEmbarcacion", x.anio_embarcacion.as_ref());
        o.texto("nombreEmbarc", x.nombre_embarc.as_deref());
        o.texto("nacionalidadEmbarc", Some(&x.nacionalidad_embarc));
        o.decimal("unidadesDeArqBruto", Some(&x.unidades_de_arq_bruto));
        o.texto("tipoCarga", Some(&x.tipo_carga));
        o.decimal("eslora", x.eslora.as_ref());
        o.decimal("manga", x.manga.as_ref());
        o.decimal("calado", x.calado.as_ref());
        o.decimal("puntal", x.puntal.as_ref());
        o.texto("lineaNaviera", x.linea_naviera.as_deref());
        o.texto("nombreAgenteNaviero", Some(&x.nombre_agente_naviero));
        o.texto("numAutorizacionNaviero", Some(&x.num_autorizacion_naviero));
        o.texto("numViaje", x.num_viaje.as_deref());
        o.texto("numConocEmbarc", x.num_conoc_embarc.as_deref());
        o.texto("permisoTempNavegacion", x.permiso_temp_navegacion.as_deref());
        o.lista("contenedor", x.contenedor.iter().map(contenedor_maritimo));
        o.valor()
    }

    fn contenedor_maritimo(x: &ContenedorMaritimo) -> Valor {
        let mut o = Miembros::default();
        o.texto("tipoContenedor", Some(&x.tipo_contenedor));
        o.texto("matriculaContenedor", x.matricula_contenedor.as_deref());
        o.texto("numPrecinto", x.num_precinto.as_deref());
        o.texto("idCCPRelacionado", x.id_ccp_relacionado.as_deref());
        o.texto("placaVMCCP", x.placa_vmccp.as_deref());
        o.texto("fechaCertificacionCCP", x.fecha_certificacion_ccp.as_deref());
        o.lista("remolquesCCP", x.remolques_ccp.iter().map(remolque_ccp));
        o.valor()
    }

    fn remolque_ccp(x: &RemolqueCcp) -> Valor {
        let mut o = Miembros::default();
        o.texto("subTipoRemCCP", Some(&x.sub_tipo_rem_ccp));
        o.texto("placaCCP", Some(&x.placa_ccp));
        o.valor()
    }

    fn transporte_aereo(x: &TransporteAereo) -> Valor {
        let mut o = Miembros::default();
        o.texto("permSCT", Some(&x.perm_sct));
        o.texto("numPermisoSCT", Some(&x.num_permiso_sct));
        o.texto("matriculaAeronave", x.matricula_aeronave.as_deref());
        o.texto("nombreAseg", x.nombre_aseg.as_deref());
        o.texto("numPolizaSeguro", x.num_poliza_seguro.as_deref());
        o.texto("numeroGuia", Some(&x.numero_guia));
        o.texto("lugarContrato", x.lugar_contrato.as_deref());
        o.texto("codigoTransportista", Some(&x.codigo_transportista));
        o.texto("rfcEmbarcador", x.rfc_embarcador.as_deref());
        o.texto("numRegIdTribEmbarc", x.num_reg_id_trib_embarc.as_deref());
        o.texto("residenciaFiscalEmbarc", x.residencia_fiscal_embarc.as_deref());
        o.texto("nombreEmbarcador", x.nombre_embarcador.as_deref());
        o.valor()
    }

    fn transporte_ferroviario(x: &TransporteFerroviario) -> Valor {
        let mut o = Miembros::default();
        o.texto("tipoDeServicio", Some(&x.tipo_de_servicio));
        o.texto("tipoDeTrafico", Some(&x.tipo_de_trafico));
        o.texto("nombreAseg", x.nombre_aseg.as_deref());
        o.texto("numPolizaSeguro", x.num_poliza_seguro.as_deref());
        o.lista("derechosDePaso", x.derechos_de_paso.iter().map(derechos_de_paso));
        o.lista("carro", x.carro.iter().map(carro));
        o.valor()
    }

    fn derechos_de_paso(x: &DerechosDePaso) -> Valor {
        let mut o = Miembros::default();
        o.texto("tipoDerechoDePaso", Some(&x.tipo_derecho_de_paso));
        o.decimal("kilometrajePagado", Some(&x.kilometraje_pagado));
        o.valor()
    }

    fn carro(x: &Carro) -> Valor {
        let mut o = Miembros::default();
        o.texto("tipoCarro", Some(&x.tipo_carro));
        o.texto("matriculaCarro", Some(&x.matricula_carro));
        o.texto("guiaCarro", Some(&x.guia_carro));
        o.decimal("toneladasNetasCarro", Some(&x.toneladas_netas_carro));
        o.lista("contenedor", x.contenedor.iter().map(contenedor_carro));
        o.valor()
    }

    fn contenedor_carro(x: &ContenedorCarro) -> Valor {
        let mut o = Miembros::default();
        o.texto("tipoContenedor", Some(&x.tipo_contenedor));
        o.decimal("pesoContenedorVacio", Some(&x.peso_contenedor_vacio));
        o.decimal("pesoNetoMercancia", Some(&x.peso_neto_mercancia));
        o.valor()
    }

    fn tipos_figura(x: &TiposFigura) -> Valor {
        let mut o = Miembros::default();
        o.texto("tipoFigura", Some(&x.tipo_figura));
        o.texto("rfcFigura", x.rfc_figura.as_deref());
        o.texto("numLicencia", x.num_licencia.as_deref());
        o.texto("nombreFigura", Some(&x.nombre_figura));
        o.texto("numRegIdTribFigura", x.num_reg_id_trib_figura.as_deref());
        o.texto("residenciaFiscalFigura", x.residencia_fiscal_figura.as_deref());
        o.lista("partesTransporte", x.partes_transporte.iter().map(partes_transporte));
        o.objeto("domicilio", x.domicilio.as_ref().map(domicilio));
        o.valor()
    }

    fn partes_transporte(x: &PartesTransporte) -> Valor {
        let mut o = Miembros::default();
        o.texto("parteTransporte", Some(&x.parte_transporte));
        o.valor()
    }
}
