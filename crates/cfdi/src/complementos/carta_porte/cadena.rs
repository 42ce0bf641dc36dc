//! Its part of the cadena original: SAT's stylesheet for the complement, included by
//! `cadenaoriginal_4_0.xslt`, from the model and from the XML (same order of values: each
//! template's attributes, Requerido or Opcional as the stylesheet says, then its children in
//! the order the stylesheet visits them).

use super::*;

/// From the model (the fast path used when sealing).
pub(super) fn desde_modelo(k: &mut Cadena, x: &CartaPorte) {
    modelo::carta_porte(k, x);
}

/// From the XML: the stylesheet's templates, value by value.
pub(super) fn plantilla(k: &mut Cadena, n: Node<'_, '_>) {
    xml::carta_porte(k, n);
}

mod modelo {
    use super::*;

    pub(super) fn carta_porte(k: &mut Cadena, x: &CartaPorte) {
        k.req(&x.version);
        k.req(&x.id_ccp);
        k.req(&x.transp_internac);
        k.opt(x.entrada_salida_merc.as_deref());
        k.opt(x.pais_origen_destino.as_deref());
        k.opt(x.via_entrada_salida.as_deref());
        k.opt_num(x.total_dist_rec.as_ref());
        k.opt(x.registro_istmo.as_deref());
        k.opt(x.ubicacion_polo_origen.as_deref());
        k.opt(x.ubicacion_polo_destino.as_deref());
        for h in &x.regimenes_aduaneros {
            regimen_aduanero_ccp(k, h);
        }
        for h in &x.ubicaciones {
            ubicacion(k, h);
        }
        mercancias(k, &x.mercancias);
        for h in &x.figura_transporte {
            tipos_figura(k, h);
        }
    }

    fn regimen_aduanero_ccp(k: &mut Cadena, x: &RegimenAduaneroCcp) {
        k.req(&x.regimen_aduanero);
    }

    fn ubicacion(k: &mut Cadena, x: &Ubicacion) {
        k.req(&x.tipo_ubicacion);
        k.opt(x.id_ubicacion.as_deref());
        k.req(&x.rfc_remitente_destinatario);
        k.opt(x.nombre_remitente_destinatario.as_deref());
        k.opt(x.num_reg_id_trib.as_deref());
        k.opt(x.residencia_fiscal.as_deref());
        k.opt(x.num_estacion.as_deref());
        k.opt(x.nombre_estacion.as_deref());
        k.opt(x.navegacion_trafico.as_deref());
        k.req(&x.fecha_hora_salida_llegada);
        k.opt(x.tipo_estacion.as_deref());
        k.opt_num(x.distancia_recorrida.as_ref());
        if let Some(h) = &x.domicilio {
            domicilio(k, h);
        }
    }

    fn domicilio(k: &mut Cadena, x: &Domicilio) {
        k.opt(x.calle.as_deref());
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

    fn mercancias(k: &mut Cadena, x: &Mercancias) {
        k.num(&x.peso_bruto_total);
        k.req(&x.unidad_peso);
        k.opt_num(x.peso_neto_total.as_ref());
        k.num(&x.num_total_mercancias);
        k.opt_num(x.cargo_por_tasacion.as_ref());
        k.opt(x.logistica_inversa_recoleccion_devolucion.as_deref());
        for h in &x.mercancia {
            mercancia(k, h);
        }
        if let Some(h) = &x.autotransporte {
            autotransporte(k, h);
        }
        if let Some(h) = &x.transporte_maritimo {
            transporte_maritimo(k, h);
        }
        if let Some(h) = &x.transporte_aereo {
            transporte_aereo(k, h);
        }
        if let Some(h) = &x.transporte_ferroviario {
            transporte_ferroviario(k, h);
        }
    }

    fn mercancia(k: &mut Cadena, x: &Mercancia) {
        k.req(&x.bienes_transp);
        k.opt(x.clave_stcc.as_deref());
        k.req(&x.descripcion);
        k.num(&x.cantidad);
        k.req(&x.clave_unidad);
        k.opt(x.unidad.as_deref());
        k.opt(x.dimensiones.as_deref());
        k.opt(x.material_peligroso.as_deref());
        k.opt(x.cve_material_peligroso.as_deref());
        k.opt(x.embalaje.as_deref());
        k.opt(x.descrip_embalaje.as_deref());
        k.opt(x.sector_cofepris.as_deref());
        k.opt(x.nombre_ingrediente_activo.as_deref());
        k.opt(x.nom_quimico.as_deref());
        k.opt(x.denominacion_generica_prod.as_deref());
        k.opt(x.denominacion_distintiva_prod.as_deref());
        k.opt(x.fabricante.as_deref());
        k.opt(x.fecha_caducidad.as_deref());
        k.opt(x.lote_medicamento.as_deref());
        k.opt(x.forma_farmaceutica.as_deref());
        k.opt(x.condiciones_esp_transp.as_deref());
        k.opt(x.registro_sanitario_folio_autorizacion.as_deref());
        k.opt(x.permiso_importacion.as_deref());
        k.opt(x.folio_impo_vucem.as_deref());
        k.opt(x.num_cas.as_deref());
        k.opt(x.razon_social_emp_imp.as_deref());
        k.opt(x.num_reg_san_plag_cofepris.as_deref());
        k.opt(x.datos_fabricante.as_deref());
        k.opt(x.datos_formulador.as_deref());
        k.opt(x.datos_maquilador.as_deref());
        k.opt(x.uso_autorizado.as_deref());
        k.num(&x.peso_en_kg);
        k.opt_num(x.valor_mercancia.as_ref());
        k.opt(x.moneda.as_deref());
        k.opt(x.fraccion_arancelaria.as_deref());
        k.opt(x.uuid_comercio_ext.as_deref());
        k.opt(x.tipo_materia.as_deref());
        k.opt(x.descripcion_materia.as_deref());
        for h in &x.documentacion_aduanera {
            documentacion_aduanera(k, h);
        }
        for h in &x.guias_identificacion {
            guias_identificacion(k, h);
        }
        for h in &x.cantidad_transporta {
            cantidad_transporta(k, h);
        }
        if let Some(h) = &x.detalle_mercancia {
            detalle_mercancia(k, h);
        }
    }

    fn documentacion_aduanera(k: &mut Cadena, x: &DocumentacionAduanera) {
        k.req(&x.tipo_documento);
        k.opt(x.num_pedimento.as_deref());
        k.opt(x.ident_doc_aduanero.as_deref());
        k.opt(x.rfc_impo.as_deref());
    }

    fn guias_identificacion(k: &mut Cadena, x: &GuiasIdentificacion) {
        k.req(&x.numero_guia_identificacion);
        k.req(&x.descrip_guia_identificacion);
        k.num(&x.peso_guia_identificacion);
    }

    fn cantidad_transporta(k: &mut Cadena, x: &CantidadTransporta) {
        k.num(&x.cantidad);
        k.req(&x.id_origen);
        k.req(&x.id_destino);
        k.opt(x.cves_transporte.as_deref());
    }

    fn detalle_mercancia(k: &mut Cadena, x: &DetalleMercancia) {
        k.req(&x.unidad_peso_merc);
        k.num(&x.peso_bruto);
        k.num(&x.peso_neto);
        k.num(&x.peso_tara);
        k.opt_num(x.num_piezas.as_ref());
    }

    fn autotransporte(k: &mut Cadena, x: &Autotransporte) {
        k.req(&x.perm_sct);
        k.req(&x.num_permiso_sct);
        identificacion_vehicular(k, &x.identificacion_vehicular);
        seguros(k, &x.seguros);
        for h in &x.remolques {
            remolque(k, h);
        }
    }

    fn identificacion_vehicular(k: &mut Cadena, x: &IdentificacionVehicular) {
        k.req(&x.config_vehicular);
        k.num(&x.peso_bruto_vehicular);
        k.req(&x.placa_vm);
        k.num(&x.anio_modelo_vm);
    }

    fn seguros(k: &mut Cadena, x: &Seguros) {
        k.req(&x.asegura_resp_civil);
        k.req(&x.poliza_resp_civil);
        k.opt(x.asegura_med_ambiente.as_deref());
        k.opt(x.poliza_med_ambiente.as_deref());
        k.opt(x.asegura_carga.as_deref());
        k.opt(x.poliza_carga.as_deref());
        k.opt_num(x.prima_seguro.as_ref());
    }

    fn remolque(k: &mut Cadena, x: &Remolque) {
        k.req(&x.sub_tipo_rem);
        k.req(&x.placa);
    }

    fn transporte_maritimo(k: &mut Cadena, x: &TransporteMaritimo) {
        k.opt(x.perm_sct.as_deref());
        k.opt(x.num_permiso_sct.as_deref());
        k.opt(x.nombre_aseg.as_deref());
        k.opt(x.num_poliza_seguro.as_deref());
        k.req(&x.tipo_embarcacion);
        k.req(&x.matricula);
        k.req(&x.numero_omi);
        k.opt_num(x.anio_embarcacion.as_ref());
        k.opt(x.nombre_embarc.as_deref());
        k.req(&x.nacionalidad_embarc);
        k.num(&x.unidades_de_arq_bruto);
        k.req(&x.tipo_carga);
        k.opt_num(x.eslora.as_ref());
        k.opt_num(x.manga.as_ref());
        k.opt_num(x.calado.as_ref());
        k.opt_num(x.puntal.as_ref());
        k.opt(x.linea_naviera.as_deref());
        k.req(&x.nombre_agente_naviero);
        k.req(&x.num_autorizacion_naviero);
        k.opt(x.num_viaje.as_deref());
        k.opt(x.num_conoc_embarc.as_deref());
        k.opt(x.permiso_temp_navegacion.as_deref());
        for h in &x.contenedor {
            contenedor_maritimo(k, h);
        }
    }

    fn contenedor_maritimo(k: &mut Cadena, x: &ContenedorMaritimo) {
        k.req(&x.tipo_contenedor);
        k.opt(x.matricula_contenedor.as_deref());
        k.opt(x.num_precinto.as_deref());
        k.opt(x.id_ccp_relacionado.as_deref());
        k.opt(x.placa_vmccp.as_deref());
        k.opt(x.fecha_certificacion_ccp.as_deref());
        for h in &x.remolques_ccp {
            remolque_ccp(k, h);
        }
    }

    fn remolque_ccp(k: &mut Cadena, x: &RemolqueCcp) {
        k.req(&x.sub_tipo_rem_ccp);
        k.req(&x.placa_ccp);
    }

    fn transporte_aereo(k: &mut Cadena, x: &TransporteAereo) {
        k.req(&x.perm_sct);
        k.req(&x.num_permiso_sct);
        k.opt(x.matricula_aeronave.as_deref());
        k.opt(x.nombre_aseg.as_deref());
        k.opt(x.num_poliza_seguro.as_deref());
        k.req(&x.numero_guia);
        k.opt(x.lugar_contrato.as_deref());
        k.req(&x.codigo_transportista);
        k.opt(x.rfc_embarcador.as_deref());
        k.opt(x.num_reg_id_trib_embarc.as_deref());
        k.opt(x.residencia_fiscal_embarc.as_deref());
        k.opt(x.nombre_embarcador.as_deref());
    }

    fn transporte_ferroviario(k: &mut Cadena, x: &TransporteFerroviario) {
        k.req(&x.tipo_de_servicio);
        k.req(&x.tipo_de_trafico);
        k.opt(x.nombre_aseg.as_deref());
        k.opt(x.num_poliza_seguro.as_deref());
        for h in &x.derechos_de_paso {
            derechos_de_paso(k, h);
        }
        for h in &x.carro {
            carro(k, h);
        }
    }

    fn derechos_de_paso(k: &mut Cadena, x: &DerechosDePaso) {
        k.req(&x.tipo_derecho_de_paso);
        k.num(&x.kilometraje_pagado);
    }

    fn carro(k: &mut Cadena, x: &Carro) {
        k.req(&x.tipo_carro);
        k.req(&x.matricula_carro);
        k.req(&x.guia_carro);
        k.num(&x.toneladas_netas_carro);
        for h in &x.contenedor {
            contenedor_carro(k, h);
        }
    }

    fn contenedor_carro(k: &mut Cadena, x: &ContenedorCarro) {
        k.req(&x.tipo_contenedor);
        k.num(&x.peso_contenedor_vacio);
        k.num(&x.peso_neto_mercancia);
    }

    fn tipos_figura(k: &mut Cadena, x: &TiposFigura) {
        k.req(&x.tipo_figura);
        k.opt(x.rfc_figura.as_deref());
        k.opt(x.num_licencia.as_deref());
        k.req(&x.nombre_figura);
        k.opt(x.num_reg_id_trib_figura.as_deref());
        k.opt(x.residencia_fiscal_figura.as_deref());
        for h in &x.partes_transporte {
            partes_transporte(k, h);
        }
        if let Some(h) = &x.domicilio {
            domicilio(k, h);
        }
    }

    fn partes_transporte(k: &mut Cadena, x: &PartesTransporte) {
        k.req(&x.parte_transporte);
    }
}

mod xml {
    use super::*;
    use crate::cadena::attr;
    use crate::parser::hijos;

    const NS: &str = NS_CARTAPORTE31;

    pub(super) fn carta_porte(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "Version"));
        k.req(attr(n, "IdCCP"));
        k.req(attr(n, "TranspInternac"));
        k.opt(n.attribute("EntradaSalidaMerc"));
        k.opt(n.attribute("PaisOrigenDestino"));
        k.opt(n.attribute("ViaEntradaSalida"));
        k.opt(n.attribute("TotalDistRec"));
        k.opt(n.attribute("RegistroISTMO"));
        k.opt(n.attribute("UbicacionPoloOrigen"));
        k.opt(n.attribute("UbicacionPoloDestino"));
        for c in hijos(n, NS, "RegimenesAduaneros") {
            for h in hijos(c, NS, "RegimenAduaneroCCP") {
                regimen_aduanero_ccp(k, h);
            }
        }
        for c in hijos(n, NS, "Ubicaciones") {
            for h in hijos(c, NS, "Ubicacion") {
                ubicacion(k, h);
            }
        }
        for h in hijos(n, NS, "Mercancias") {
            mercancias(k, h);
        }
        for c in hijos(n, NS, "FiguraTransporte") {
            for h in hijos(c, NS, "TiposFigura") {
                tipos_figura(k, h);
            }
        }
    }

    fn regimen_aduanero_ccp(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "RegimenAduanero"));
    }

    fn ubicacion(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "TipoUbicacion"));
        k.opt(n.attribute("IDUbicacion"));
        k.req(attr(n, "RFCRemitenteDestinatario"));
        k.opt(n.attribute("NombreRemitenteDestinatario"));
        k.opt(n.attribute("NumRegIdTrib"));
        k.opt(n.attribute("ResidenciaFiscal"));
        k.opt(n.attribute("NumEstacion"));
        k.opt(n.attribute("NombreEstacion"));
        k.opt(n.attribute("NavegacionTrafico"));
        k.req(attr(n, "FechaHoraSalidaLlegada"));
        k.opt(n.attribute("TipoEstacion"));
        k.opt(n.attribute("DistanciaRecorrida"));
        for h in hijos(n, NS, "Domicilio") {
            domicilio(k, h);
        }
    }

    fn domicilio(k: &mut Cadena, n: Node<'_, '_>) {
        k.opt(n.attribute("Calle"));
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

    fn mercancias(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "PesoBrutoTotal"));
        k.req(attr(n, "UnidadPeso"));
        k.opt(n.attribute("PesoNetoTotal"));
        k.req(attr(n, "NumTotalMercancias"));
        k.opt(n.attribute("CargoPorTasacion"));
        k.opt(n.attribute("LogisticaInversaRecoleccionDevolucion"));
        for h in hijos(n, NS, "Mercancia") {
            mercancia(k, h);
        }
        for h in hijos(n, NS, "Autotransporte") {
            autotransporte(k, h);
        }
        for h in hijos(n, NS, "TransporteMaritimo") {
            transporte_maritimo(k, h);
        }
        for h in hijos(n, NS, "TransporteAereo") {
            transporte_aereo(k, h);
        }
        for h in hijos(n, NS, "TransporteFerroviario") {
            transporte_ferroviario(k, h);
        }
    }

    fn mercancia(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "BienesTransp"));
        k.opt(n.attribute("ClaveSTCC"));
        k.req(attr(n, "Descripcion"));
        k.req(attr(n, "Cantidad"));
        k.req(attr(n, "ClaveUnidad"));
        k.opt(n.attribute("Unidad"));
        k.opt(n.attribute("Dimensiones"));
        k.opt(n.attribute("MaterialPeligroso"));
        k.opt(n.attribute("CveMaterialPeligroso"));
        k.opt(n.attribute("Embalaje"));
        k.opt(n.attribute("DescripEmbalaje"));
        k.opt(n.attribute("SectorCOFEPRIS"));
        k.opt(n.attribute("NombreIngredienteActivo"));
        k.opt(n.attribute("NomQuimico"));
        k.opt(n.attribute("DenominacionGenericaProd"));
        k.opt(n.attribute("DenominacionDistintivaProd"));
        k.opt(n.attribute("Fabricante"));
        k.opt(n.attribute("FechaCaducidad"));
        k.opt(n.attribute("LoteMedicamento"));
        k.opt(n.attribute("FormaFarmaceutica"));
        k.opt(n.attribute("CondicionesEspTransp"));
        k.opt(n.attribute("RegistroSanitarioFolioAutorizacion"));
        k.opt(n.attribute("PermisoImportacion"));
        k.opt(n.attribute("FolioImpoVUCEM"));
        k.opt(n.attribute("NumCAS"));
        k.opt(n.attribute("RazonSocialEmpImp"));
        k.opt(n.attribute("NumRegSanPlagCOFEPRIS"));
        k.opt(n.attribute("DatosFabricante"));
        k.opt(n.attribute("DatosFormulador"));
        k.opt(n.attribute("DatosMaquilador"));
        k.opt(n.attribute("UsoAutorizado"));
        k.req(attr(n, "PesoEnKg"));
        k.opt(n.attribute("ValorMercancia"));
        k.opt(n.attribute("Moneda"));
        k.opt(n.attribute("FraccionArancelaria"));
        k.opt(n.attribute("UUIDComercioExt"));
        k.opt(n.attribute("TipoMateria"));
        k.opt(n.attribute("DescripcionMateria"));
        for h in hijos(n, NS, "DocumentacionAduanera") {
            documentacion_aduanera(k, h);
        }
        for h in hijos(n, NS, "GuiasIdentificacion") {
            guias_identificacion(k, h);
        }
        for h in hijos(n, NS, "CantidadTransporta") {
            cantidad_transporta(k, h);
        }
        for h in hijos(n, NS, "DetalleMercancia") {
            detalle_mercancia(k, h);
        }
    }

    fn documentacion_aduanera(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "TipoDocumento"));
        k.opt(n.attribute("NumPedimento"));
        k.opt(n.attribute("IdentDocAduanero"));
        k.opt(n.attribute("RFCImpo"));
    }

    fn guias_identificacion(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "NumeroGuiaIdentificacion"));
        k.req(attr(n, "DescripGuiaIdentificacion"));
        k.req(attr(n, "PesoGuiaIdentificacion"));
    }

    fn cantidad_transporta(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "Cantidad"));
        k.req(attr(n, "IDOrigen"));
        k.req(attr(n, "IDDestino"));
        k.opt(n.attribute("CvesTransporte"));
    }

    fn detalle_mercancia(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "UnidadPesoMerc"));
        k.req(attr(n, "PesoBruto"));
        k.req(attr(n, "PesoNeto"));
        k.req(attr(n, "PesoTara"));
        k.opt(n.attribute("NumPiezas"));
    }

    fn autotransporte(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "PermSCT"));
        k.req(attr(n, "NumPermisoSCT"));
        for h in hijos(n, NS, "IdentificacionVehicular") {
            identificacion_vehicular(k, h);
        }
        for h in hijos(n, NS, "Seguros") {
            seguros(k, h);
        }
        for c in hijos(n, NS, "Remolques") {
            for h in hijos(c, NS, "Remolque") {
                remolque(k, h);
            }
        }
    }

    fn identificacion_vehicular(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "ConfigVehicular"));
        k.req(attr(n, "PesoBrutoVehicular"));
        k.req(attr(n, "PlacaVM"));
        k.req(attr(n, "AnioModeloVM"));
    }

    fn seguros(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "AseguraRespCivil"));
        k.req(attr(n, "PolizaRespCivil"));
        k.opt(n.attribute("AseguraMedAmbiente"));
        k.opt(n.attribute("PolizaMedAmbiente"));
        k.opt(n.attribute("AseguraCarga"));
        k.opt(n.attribute("PolizaCarga"));
        k.opt(n.attribute("PrimaSeguro"));
    }

    fn remolque(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "SubTipoRem"));
        k.req(attr(n, "Placa"));
    }

    fn transporte_maritimo(k: &mut Cadena, n: Node<'_, '_>) {
        k.opt(n.attribute("PermSCT"));
        k.opt(n.attribute("NumPermisoSCT"));
        k.opt(n.attribute("NombreAseg"));
        k.opt(n.attribute("NumPolizaSeguro"));
        k.req(attr(n, "TipoEmbarcacion"));
        k.req(attr(n, "Matricula"));
        k.req(attr(n, "NumeroOMI"));
        k.opt(n.attribute("AnioEmbarcacion"));
        k.opt(n.attribute("NombreEmbarc"));
        k.req(attr(n, "NacionalidadEmbarc"));
        k.req(attr(n, "UnidadesDeArqBruto"));
        k.req(attr(n, "TipoCarga"));
        k.opt(n.attribute("Eslora"));
        k.opt(n.attribute("Manga"));
        k.opt(n.attribute("Calado"));
        k.opt(n.attribute("Puntal"));
        k.opt(n.attribute("LineaNaviera"));
        k.req(attr(n, "NombreAgenteNaviero"));
        k.req(attr(n, "NumAutorizacionNaviero"));
        k.opt(n.attribute("NumViaje"));
        k.opt(n.attribute("NumConocEmbarc"));
        k.opt(n.attribute("PermisoTempNavegacion"));
        for h in hijos(n, NS, "Contenedor") {
            contenedor_maritimo(k, h);
        }
    }

    fn contenedor_maritimo(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "TipoContenedor"));
        k.opt(n.attribute("MatriculaContenedor"));
        k.opt(n.attribute("NumPrecinto"));
        k.opt(n.attribute("IdCCPRelacionado"));
        k.opt(n.attribute("PlacaVMCCP"));
        k.opt(n.attribute("FechaCertificacionCCP"));
        for c in hijos(n, NS, "RemolquesCCP") {
            for h in hijos(c, NS, "RemolqueCCP") {
                remolque_ccp(k, h);
            }
        }
    }

    fn remolque_ccp(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "SubTipoRemCCP"));
        k.req(attr(n, "PlacaCCP"));
    }

    fn transporte_aereo(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "PermSCT"));
        k.req(attr(n, "NumPermisoSCT"));
        k.opt(n.attribute("MatriculaAeronave"));
        k.opt(n.attribute("NombreAseg"));
        k.opt(n.attribute("NumPolizaSeguro"));
        k.req(attr(n, "NumeroGuia"));
        k.opt(n.attribute("LugarContrato"));
        k.req(attr(n, "CodigoTransportista"));
        k.opt(n.attribute("RFCEmbarcador"));
        k.opt(n.attribute("NumRegIdTribEmbarc"));
        k.opt(n.attribute("ResidenciaFiscalEmbarc"));
        k.opt(n.attribute("NombreEmbarcador"));
    }

    fn transporte_ferroviario(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "TipoDeServicio"));
        k.req(attr(n, "TipoDeTrafico"));
        k.opt(n.attribute("NombreAseg"));
        k.opt(n.attribute("NumPolizaSeguro"));
        for h in hijos(n, NS, "DerechosDePaso") {
            derechos_de_paso(k, h);
        }
        for h in hijos(n, NS, "Carro") {
            carro(k, h);
        }
    }

    fn derechos_de_paso(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "TipoDerechoDePaso"));
        k.req(attr(n, "KilometrajePagado"));
    }

    fn carro(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "TipoCarro"));
        k.req(attr(n, "MatriculaCarro"));
        k.req(attr(n, "GuiaCarro"));
        k.req(attr(n, "ToneladasNetasCarro"));
        for h in hijos(n, NS, "Contenedor") {
            contenedor_carro(k, h);
        }
    }

    fn contenedor_carro(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "TipoContenedor"));
        k.req(attr(n, "PesoContenedorVacio"));
        k.req(attr(n, "PesoNetoMercancia"));
    }

    fn tipos_figura(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "TipoFigura"));
        k.opt(n.attribute("RFCFigura"));
        k.opt(n.attribute("NumLicencia"));
        k.req(attr(n, "NombreFigura"));
        k.opt(n.attribute("NumRegIdTribFigura"));
        k.opt(n.attribute("ResidenciaFiscalFigura"));
        for h in hijos(n, NS, "PartesTransporte") {
            partes_transporte(k, h);
        }
        for h in hijos(n, NS, "Domicilio") {
            domicilio(k, h);
        }
    }

    fn partes_transporte(k: &mut Cadena, n: Node<'_, '_>) {
        k.req(attr(n, "ParteTransporte"));
    }
}
