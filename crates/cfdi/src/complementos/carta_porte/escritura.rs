//! XML writer of `CartaPorte`: elements and attributes in the schema's order.

use super::*;
use crate::escritura::Etiqueta;

pub(super) fn escribir(e: &mut Escritor, x: &CartaPorte) {
    carta_porte(e, x);
}

fn carta_porte(e: &mut Escritor, x: &CartaPorte) {
    let etiqueta = Etiqueta::new("cartaporte31:CartaPorte")
        .req("Version", &x.version)
        .req("IdCCP", &x.id_ccp)
        .req("TranspInternac", &x.transp_internac)
        .opt("EntradaSalidaMerc", x.entrada_salida_merc.as_deref())
        .opt("PaisOrigenDestino", x.pais_origen_destino.as_deref())
        .opt("ViaEntradaSalida", x.via_entrada_salida.as_deref())
        .opt_num("TotalDistRec", x.total_dist_rec.as_ref())
        .opt("RegistroISTMO", x.registro_istmo.as_deref())
        .opt("UbicacionPoloOrigen", x.ubicacion_polo_origen.as_deref())
        .opt("UbicacionPoloDestino", x.ubicacion_polo_destino.as_deref());
    e.abrir(etiqueta);
    if !x.regimenes_aduaneros.is_empty() {
        e.abrir(Etiqueta::new("cartaporte31:RegimenesAduaneros"));
        for h in &x.regimenes_aduaneros {
            regimen_aduanero_ccp(e, h);
        }
        e.cerrar("cartaporte31:RegimenesAduaneros");
    }
    e.abrir(Etiqueta::new("cartaporte31:Ubicaciones"));
    for h in &x.ubicaciones {
        ubicacion(e, h);
    }
    e.cerrar("cartaporte31:Ubicaciones");
    mercancias(e, &x.mercancias);
    if !x.figura_transporte.is_empty() {
        e.abrir(Etiqueta::new("cartaporte31:FiguraTransporte"));
        for h in &x.figura_transporte {
            tipos_figura(e, h);
        }
        e.cerrar("cartaporte31:FiguraTransporte");
    }
    e.cerrar("cartaporte31:CartaPorte");
}

fn regimen_aduanero_ccp(e: &mut Escritor, x: &RegimenAduaneroCcp) {
    let etiqueta = Etiqueta::new("cartaporte31:RegimenAduaneroCCP").req("RegimenAduanero", &x.regimen_aduanero);
    e.vacio(etiqueta);
}

fn ubicacion(e: &mut Escritor, x: &Ubicacion) {
    let etiqueta = Etiqueta::new("cartaporte31:Ubicacion")
        .req("TipoUbicacion", &x.tipo_ubicacion)
        .opt("IDUbicacion", x.id_ubicacion.as_deref())
        .req("RFCRemitenteDestinatario", &x.rfc_remitente_destinatario)
        .opt("NombreRemitenteDestinatario", x.nombre_remitente_destinatario.as_deref())
        .opt("NumRegIdTrib", x.num_reg_id_trib.as_deref())
        .opt("ResidenciaFiscal", x.residencia_fiscal.as_deref())
        .opt("NumEstacion", x.num_estacion.as_deref())
        .opt("NombreEstacion", x.nombre_estacion.as_deref())
        .opt("NavegacionTrafico", x.navegacion_trafico.as_deref())
        .req("FechaHoraSalidaLlegada", &x.fecha_hora_salida_llegada)
        .opt("TipoEstacion", x.tipo_estacion.as_deref())
        .opt_num("DistanciaRecorrida", x.distancia_recorrida.as_ref());
    if x.domicilio.is_none() {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    if let Some(h) = &x.domicilio {
        domicilio(e, h);
    }
    e.cerrar("cartaporte31:Ubicacion");
}

fn domicilio(e: &mut Escritor, x: &Domicilio) {
    let etiqueta = Etiqueta::new("cartaporte31:Domicilio")
        .opt("Calle", x.calle.as_deref())
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

fn mercancias(e: &mut Escritor, x: &Mercancias) {
    let etiqueta = Etiqueta::new("cartaporte31:Mercancias")
        .num("PesoBrutoTotal", &x.peso_bruto_total)
        .req("UnidadPeso", &x.unidad_peso)
        .opt_num("PesoNetoTotal", x.peso_neto_total.as_ref())
        .num("NumTotalMercancias", &x.num_total_mercancias)
        .opt_num("CargoPorTasacion", x.cargo_por_tasacion.as_ref())
        .opt("LogisticaInversaRecoleccionDevolucion", x.logistica_inversa_recoleccion_devolucion.as_deref());
    if x.mercancia.is_empty()
        && x.autotransporte.is_none()
        && x.transporte_maritimo.is_none()
        && x.transporte_aereo.is_none()
        && x.transporte_ferroviario.is_none()
    {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    for h in &x.mercancia {
        mercancia(e, h);
    }
    if let Some(h) = &x.autotransporte {
        autotransporte(e, h);
    }
    if let Some(h) = &x.transporte_maritimo {
        transporte_maritimo(e, h);
    }
    if let Some(h) = &x.transporte_aereo {
        transporte_aereo(e, h);
    }
    if let Some(h) = &x.transporte_ferroviario {
        transporte_ferroviario(e, h);
    }
    e.cerrar("cartaporte31:Mercancias");
}

fn mercancia(e: &mut Escritor, x: &Mercancia) {
    let etiqueta = Etiqueta::new("cartaporte31:Mercancia")
        .req("BienesTransp", &x.bienes_transp)
        .opt("ClaveSTCC", x.clave_stcc.as_deref())
        .req("Descripcion", &x.descripcion)
        .num("Cantidad", &x.cantidad)
        .req("ClaveUnidad", &x.clave_unidad)
        .opt("Unidad", x.unidad.as_deref())
        .opt("Dimensiones", x.dimensiones.as_deref())
        .opt("MaterialPeligroso", x.material_peligroso.as_deref())
        .opt("CveMaterialPeligroso", x.cve_material_peligroso.as_deref())
        .opt("Embalaje", x.embalaje.as_deref())
        .opt("DescripEmbalaje", x.descrip_embalaje.as_deref())
        .opt("SectorCOFEPRIS", x.sector_cofepris.as_deref())
        .opt("NombreIngredienteActivo", x.nombre_ingrediente_activo.as_deref())
        .opt("NomQuimico", x.nom_quimico.as_deref())
        .opt("DenominacionGenericaProd", x.denominacion_generica_prod.as_deref())
        .opt("DenominacionDistintivaProd", x.denominacion_distintiva_prod.as_deref())
        .opt("Fabricante", x.fabricante.as_deref())
        .opt("FechaCaducidad", x.fecha_caducidad.as_deref())
        .opt("LoteMedicamento", x.lote_medicamento.as_deref())
        .opt("FormaFarmaceutica", x.forma_farmaceutica.as_deref())
        .opt("CondicionesEspTransp", x.condiciones_esp_transp.as_deref())
        .opt("RegistroSanitarioFolioAutorizacion", x.registro_sanitario_folio_autorizacion.as_deref())
        .opt("PermisoImportacion", x.permiso_importacion.as_deref())
        .opt("FolioImpoVUCEM", x.folio_impo_vucem.as_deref())
        .opt("NumCAS", x.num_cas.as_deref())
        .opt("RazonSocialEmpImp", x.razon_social_emp_imp.as_deref())
        .opt("NumRegSanPlagCOFEPRIS", x.num_reg_san_plag_cofepris.as_deref())
        .opt("DatosFabricante", x.datos_fabricante.as_deref())
        .opt("DatosFormulador", x.datos_formulador.as_deref())
        .opt("DatosMaquilador", x.datos_maquilador.as_deref())
        .opt("UsoAutorizado", x.uso_autorizado.as_deref())
        .num("PesoEnKg", &x.peso_en_kg)
        .opt_num("ValorMercancia", x.valor_mercancia.as_ref())
        .opt("Moneda", x.moneda.as_deref())
        .opt("FraccionArancelaria", x.fraccion_arancelaria.as_deref())
        .opt("UUIDComercioExt", x.uuid_comercio_ext.as_deref())
        .opt("TipoMateria", x.tipo_materia.as_deref())
        .opt("DescripcionMateria", x.descripcion_materia.as_deref());
    if x.documentacion_aduanera.is_empty()
        && x.guias_identificacion.is_empty()
        && x.cantidad_transporta.is_empty()
        && x.detalle_mercancia.is_none()
    {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    for h in &x.documentacion_aduanera {
        documentacion_aduanera(e, h);
    }
    for h in &x.guias_identificacion {
        guias_identificacion(e, h);
    }
    for h in &x.cantidad_transporta {
        cantidad_transporta(e, h);
    }
    if let Some(h) = &x.detalle_mercancia {
        detalle_mercancia(e, h);
    }
    e.cerrar("cartaporte31:Mercancia");
}

fn documentacion_aduanera(e: &mut Escritor, x: &DocumentacionAduanera) {
    let etiqueta = Etiqueta::new("cartaporte31:DocumentacionAduanera")
        .req("TipoDocumento", &x.tipo_documento)
        .opt("NumPedimento", x.num_pedimento.as_deref())
        .opt("IdentDocAduanero", x.ident_doc_aduanero.as_deref())
        .opt("RFCImpo", x.rfc_impo.as_deref());
    e.vacio(etiqueta);
}

fn guias_identificacion(e: &mut Escritor, x: &GuiasIdentificacion) {
    let etiqueta = Etiqueta::new("cartaporte31:GuiasIdentificacion")
        .req("NumeroGuiaIdentificacion", &x.numero_guia_identificacion)
        .req("DescripGuiaIdentificacion", &x.descrip_guia_identificacion)
        .num("PesoGuiaIdentificacion", &x.peso_guia_identificacion);
    e.vacio(etiqueta);
}

fn cantidad_transporta(e: &mut Escritor, x: &CantidadTransporta) {
    let etiqueta = Etiqueta::new("cartaporte31:CantidadTransporta")
        .num("Cantidad", &x.cantidad)
        .req("IDOrigen", &x.id_origen)
        .req("IDDestino", &x.id_destino)
        .opt("CvesTransporte", x.cves_transporte.as_deref());
    e.vacio(etiqueta);
}

fn detalle_mercancia(e: &mut Escritor, x: &DetalleMercancia) {
    let etiqueta = Etiqueta::new("cartaporte31:DetalleMercancia")
        .req("UnidadPesoMerc", &x.unidad_peso_merc)
        .num("PesoBruto", &x.peso_bruto)
        .num("PesoNeto", &x.peso_neto)
        .num("PesoTara", &x.peso_tara)
        .opt_num("NumPiezas", x.num_piezas.as_ref());
    e.vacio(etiqueta);
}

fn autotransporte(e: &mut Escritor, x: &Autotransporte) {
    let etiqueta = Etiqueta::new("cartaporte31:Autotransporte")
        .req("PermSCT", &x.perm_sct)
        .req("NumPermisoSCT", &x.num_permiso_sct);
    e.abrir(etiqueta);
    identificacion_vehicular(e, &x.identificacion_vehicular);
    seguros(e, &x.seguros);
    if !x.remolques.is_empty() {
        e.abrir(Etiqueta::new("cartaporte31:Remolques"));
        for h in &x.remolques {
            remolque(e, h);
        }
        e.cerrar("cartaporte31:Remolques");
    }
    e.cerrar("cartaporte31:Autotransporte");
}

fn identificacion_vehicular(e: &mut Escritor, x: &IdentificacionVehicular) {
    let etiqueta = Etiqueta::new("cartaporte31:IdentificacionVehicular")
        .req("ConfigVehicular", &x.config_vehicular)
        .num("PesoBrutoVehicular", &x.peso_bruto_vehicular)
        .req("PlacaVM", &x.placa_vm)
        .num("AnioModeloVM", &x.anio_modelo_vm);
    e.vacio(etiqueta);
}

fn seguros(e: &mut Escritor, x: &Seguros) {
    let etiqueta = Etiqueta::new("cartaporte31:Seguros")
        .req("AseguraRespCivil", &x.asegura_resp_civil)
        .req("PolizaRespCivil", &x.poliza_resp_civil)
        .opt("AseguraMedAmbiente", x.asegura_med_ambiente.as_deref())
        .opt("PolizaMedAmbiente", x.poliza_med_ambiente.as_deref())
        .opt("AseguraCarga", x.asegura_carga.as_deref())
        .opt("PolizaCarga", x.poliza_carga.as_deref())
        .opt_num("PrimaSeguro", x.prima_seguro.as_ref());
    e.vacio(etiqueta);
}

fn remolque(e: &mut Escritor, x: &Remolque) {
    let etiqueta = Etiqueta::new("cartaporte31:Remolque").req("SubTipoRem", &x.sub_tipo_rem).req("Placa", &x.placa);
    e.vacio(etiqueta);
}

fn transporte_maritimo(e: &mut Escritor, x: &TransporteMaritimo) {
    let etiqueta = Etiqueta::new("cartaporte31:TransporteMaritimo")
        .opt("PermSCT", x.perm_sct.as_deref())
        .opt("NumPermisoSCT", x.num_permiso_sct.as_deref())
        .opt("NombreAseg", x.nombre_aseg.as_deref())
        .opt("NumPolizaSeguro", x.num_poliza_seguro.as_deref())
        .req("TipoEmbarcacion", &x.tipo_embarcacion)
        .req("Matricula", &x.matricula)
        .req("NumeroOMI", &x.numero_omi)
        .opt_num("AnioEmbarcacion", x.anio_embarcacion.as_ref())
        .opt("NombreEmbarc", x.nombre_embarc.as_deref())
        .req("NacionalidadEmbarc", &x.nacionalidad_embarc)
        .num("UnidadesDeArqBruto", &x.unidades_de_arq_bruto)
        .req("TipoCarga", &x.tipo_carga)
        .opt_num("Eslora", x.eslora.as_ref())
        .opt_num("Manga", x.manga.as_ref())
        .opt_num("Calado", x.calado.as_ref())
        .opt_num("Puntal", x.puntal.as_ref())
        .opt("LineaNaviera", x.linea_naviera.as_deref())
        .req("NombreAgenteNaviero", &x.nombre_agente_naviero)
        .req("NumAutorizacionNaviero", &x.num_autorizacion_naviero)
        .opt("NumViaje", x.num_viaje.as_deref())
        .opt("NumConocEmbarc", x.num_conoc_embarc.as_deref())
        .opt("PermisoTempNavegacion", x.permiso_temp_navegacion.as_deref());
    if x.contenedor.is_empty() {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    for h in &x.contenedor {
        contenedor_maritimo(e, h);
    }
    e.cerrar("cartaporte31:TransporteMaritimo");
}

fn contenedor_maritimo(e: &mut Escritor, x: &ContenedorMaritimo) {
    let etiqueta = Etiqueta::new("cartaporte31:Contenedor")
        .req("TipoContenedor", &x.tipo_contenedor)
        .opt("MatriculaContenedor", x.matricula_contenedor.as_deref())
        .opt("NumPrecinto", x.num_precinto.as_deref())
        .opt("IdCCPRelacionado", x.id_ccp_relacionado.as_deref())
        .opt("PlacaVMCCP", x.placa_vmccp.as_deref())
        .opt("FechaCertificacionCCP", x.fecha_certificacion_ccp.as_deref());
    if x.remolques_ccp.is_empty() {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    if !x.remolques_ccp.is_empty() {
        e.abrir(Etiqueta::new("cartaporte31:RemolquesCCP"));
        for h in &x.remolques_ccp {
            remolque_ccp(e, h);
        }
        e.cerrar("cartaporte31:RemolquesCCP");
    }
    e.cerrar("cartaporte31:Contenedor");
}

fn remolque_ccp(e: &mut Escritor, x: &RemolqueCcp) {
    let etiqueta = Etiqueta::new("cartaporte31:RemolqueCCP")
        .req("SubTipoRemCCP", &x.sub_tipo_rem_ccp)
        .req("PlacaCCP", &x.placa_ccp);
    e.vacio(etiqueta);
}

fn transporte_aereo(e: &mut Escritor, x: &TransporteAereo) {
    let etiqueta = Etiqueta::new("cartaporte31:TransporteAereo")
        .req("PermSCT", &x.perm_sct)
        .req("NumPermisoSCT", &x.num_permiso_sct)
        .opt("MatriculaAeronave", x.matricula_aeronave.as_deref())
        .opt("NombreAseg", x.nombre_aseg.as_deref())
        .opt("NumPolizaSeguro", x.num_poliza_seguro.as_deref())
        .req("NumeroGuia", &x.numero_guia)
        .opt("LugarContrato", x.lugar_contrato.as_deref())
        .req("CodigoTransportista", &x.codigo_transportista)
        .opt("RFCEmbarcador", x.rfc_embarcador.as_deref())
        .opt("NumRegIdTribEmbarc", x.num_reg_id_trib_embarc.as_deref())
        .opt("ResidenciaFiscalEmbarc", x.residencia_fiscal_embarc.as_deref())
        .opt("NombreEmbarcador", x.nombre_embarcador.as_deref());
    e.vacio(etiqueta);
}

fn transporte_ferroviario(e: &mut Escritor, x: &TransporteFerroviario) {
    let etiqueta = Etiqueta::new("cartaporte31:TransporteFerroviario")
        .req("TipoDeServicio", &x.tipo_de_servicio)
        .req("TipoDeTrafico", &x.tipo_de_trafico)
        .opt("NombreAseg", x.nombre_aseg.as_deref())
        .opt("NumPolizaSeguro", x.num_poliza_seguro.as_deref());
    if x.derechos_de_paso.is_empty() && x.carro.is_empty() {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    for h in &x.derechos_de_paso {
        derechos_de_paso(e, h);
    }
    for h in &x.carro {
        carro(e, h);
    }
    e.cerrar("cartaporte31:TransporteFerroviario");
}

fn derechos_de_paso(e: &mut Escritor, x: &DerechosDePaso) {
    let etiqueta = Etiqueta::new("cartaporte31:DerechosDePaso")
        .req("TipoDerechoDePaso", &x.tipo_derecho_de_paso)
        .num("KilometrajePagado", &x.kilometraje_pagado);
    e.vacio(etiqueta);
}

fn carro(e: &mut Escritor, x: &Carro) {
    let etiqueta = Etiqueta::new("cartaporte31:Carro")
        .req("TipoCarro", &x.tipo_carro)
        .req("MatriculaCarro", &x.matricula_carro)
        .req("GuiaCarro", &x.guia_carro)
        .num("ToneladasNetasCarro", &x.toneladas_netas_carro);
    if x.contenedor.is_empty() {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    for h in &x.contenedor {
        contenedor_carro(e, h);
    }
    e.cerrar("cartaporte31:Carro");
}

fn contenedor_carro(e: &mut Escritor, x: &ContenedorCarro) {
    let etiqueta = Etiqueta::new("cartaporte31:Contenedor")
        .req("TipoContenedor", &x.tipo_contenedor)
        .num("PesoContenedorVacio", &x.peso_contenedor_vacio)
        .num("PesoNetoMercancia", &x.peso_neto_mercancia);
    e.vacio(etiqueta);
}

fn tipos_figura(e: &mut Escritor, x: &TiposFigura) {
    let etiqueta = Etiqueta::new("cartaporte31:TiposFigura")
        .req("TipoFigura", &x.tipo_figura)
        .opt("RFCFigura", x.rfc_figura.as_deref())
        .opt("NumLicencia", x.num_licencia.as_deref())
        .req("NombreFigura", &x.nombre_figura)
        .opt("NumRegIdTribFigura", x.num_reg_id_trib_figura.as_deref())
        .opt("ResidenciaFiscalFigura", x.residencia_fiscal_figura.as_deref());
    if x.partes_transporte.is_empty() && x.domicilio.is_none() {
        e.vacio(etiqueta);
        return;
    }
    e.abrir(etiqueta);
    for h in &x.partes_transporte {
        partes_transporte(e, h);
    }
    if let Some(h) = &x.domicilio {
        domicilio(e, h);
    }
    e.cerrar("cartaporte31:TiposFigura");
}

fn partes_transporte(e: &mut Escritor, x: &PartesTransporte) {
    let etiqueta = Etiqueta::new("cartaporte31:PartesTransporte").req("ParteTransporte", &x.parte_transporte);
    e.vacio(etiqueta);
}
