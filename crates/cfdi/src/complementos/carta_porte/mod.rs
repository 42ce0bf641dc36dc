//! Complemento Carta Porte 3.1 (namespace `http://www.sat.gob.mx/CartaPorte31`), for the
//! CFDI de ingreso (freight service) or de traslado (own goods) that covers goods moving by
//! road, sea, air or rail in Mexico.
//!
//! The model has every element and attribute of SAT's `CartaPorte31.xsd` (autotransporte
//! with its permits, vehicle, trailers and insurance; hazardous materials and packaging;
//! CantidadTransporta; international transport with DocumentacionAduanera and
//! RegimenesAduaneros; the maritime, air and rail nodes; FiguraTransporte), its fields
//! named after SAT's attributes: a required attribute is a `String` or [`Numero`], an optional
//! one an `Option`; a repeated element is a `Vec` named after its container where SAT has one
//! (`ubicaciones` for Ubicaciones/Ubicacion) and after the element where SAT repeats it bare
//! (`mercancia`, `cantidad_transporta`).
//!
//! The whole unit: the model below and, in its private submodules, `escritura` (XML writer),
//! `lectura` (parser), `cadena` (`CartaPorte31.xslt`, from the model and from the XML),
//! `validacion` (the rules of SAT's Guía de llenado that need no registry, ids `CP31_*`),
//! `entrada` (the model from the API's JSON) and `construccion` ([`construir`],
//! [`completar`], [`id_ccp`]).
//!
//! The element and attribute code was written mechanically from `CartaPorte31.xsd` (names,
//! use, numeric types, element order) and `CartaPorte31.xslt` (Requerido/Opcional, the order
//! of the cadena), so the three agree by construction; the SAT oracle tests check it.

mod cadena;
mod catalogo;
mod construccion;
mod entrada;
mod escritura;
mod lectura;
mod validacion;

use roxmltree::Node;

use super::{Complemento, Unidad};
use crate::cadena::Cadena;
use crate::catalogos::TipoDeComprobante;
use crate::escritura::Escritor;
use crate::model::Comprobante;
use crate::numero::Numero;
use crate::parser::{ErrorParseo, Lector};
use crate::validacion::Validador;

pub use self::construccion::{a_json, a_valor, completar, construir, desde_json, id_ccp, leer_json};
pub use self::validacion::{CONFIGURACIONES_AUTOTRANSPORTE, Remolques, remolques_de_configuracion};

/// Namespace of Carta Porte 3.1.
pub const NS_CARTAPORTE31: &str = "http://www.sat.gob.mx/CartaPorte31";
/// Schema location of Carta Porte 3.1.
pub const XSD_CARTAPORTE31: &str = "http://www.sat.gob.mx/sitio_internet/cfd/CartaPorte/CartaPorte31.xsd";
/// `Version` of the complement.
pub const VERSION: &str = "3.1";

/// `cartaporte31:CartaPorte`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CartaPorte {
    /// `Version`.
    pub version: String,
    /// `IdCCP`.
    pub id_ccp: String,
    /// `TranspInternac`.
    pub transp_internac: String,
    /// `EntradaSalidaMerc`.
    pub entrada_salida_merc: Option<String>,
    /// `PaisOrigenDestino` (c_Pais).
    pub pais_origen_destino: Option<String>,
    /// `ViaEntradaSalida` (c_CveTransporte).
    pub via_entrada_salida: Option<String>,
    /// `TotalDistRec`.
    pub total_dist_rec: Option<Numero>,
    /// `RegistroISTMO`.
    pub registro_istmo: Option<String>,
    /// `UbicacionPoloOrigen` (c_RegistroISTMO).
    pub ubicacion_polo_origen: Option<String>,
    /// `UbicacionPoloDestino` (c_RegistroISTMO).
    pub ubicacion_polo_destino: Option<String>,
    /// `cartaporte31:RegimenesAduaneros/cartaporte31:RegimenAduaneroCCP`.
    pub regimenes_aduaneros: Vec<RegimenAduaneroCcp>,
    /// `cartaporte31:Ubicaciones/cartaporte31:Ubicacion`.
    pub ubicaciones: Vec<Ubicacion>,
    /// `cartaporte31:Mercancias`.
    pub mercancias: Mercancias,
    /// `cartaporte31:FiguraTransporte/cartaporte31:TiposFigura`.
    pub figura_transporte: Vec<TiposFigura>,
}

/// `cartaporte31:RegimenAduaneroCCP`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RegimenAduaneroCcp {
    /// `RegimenAduanero` (c_RegimenAduanero).
    pub regimen_aduanero: String,
}

/// `cartaporte31:Ubicacion`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Ubicacion {
    /// `TipoUbicacion`.
    pub tipo_ubicacion: String,
    /// `IDUbicacion`.
    pub id_ubicacion: Option<String>,
    /// `RFCRemitenteDestinatario`.
    pub rfc_remitente_destinatario: String,
    /// `NombreRemitenteDestinatario`.
    pub nombre_remitente_destinatario: Option<String>,
    /// `NumRegIdTrib`.
    pub num_reg_id_trib: Option<String>,
    /// `ResidenciaFiscal` (c_Pais).
    pub residencia_fiscal: Option<String>,
    /// `NumEstacion` (c_Estaciones).
    pub num_estacion: Option<String>,
    /// `NombreEstacion`.
    pub nombre_estacion: Option<String>,
    /// `NavegacionTrafico`.
    pub navegacion_trafico: Option<String>,
    /// `FechaHoraSalidaLlegada`.
    pub fecha_hora_salida_llegada: String,
    /// `TipoEstacion` (c_TipoEstacion).
    pub tipo_estacion: Option<String>,
    /// `DistanciaRecorrida`.
    pub distancia_recorrida: Option<Numero>,
    /// `cartaporte31:Domicilio`.
    pub domicilio: Option<Domicilio>,
}

/// `cartaporte31:Domicilio`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Domicilio {
    /// `Calle`.
    pub calle: Option<String>,
    /// `NumeroExterior`.
    pub numero_exterior: Option<String>,
    /// `NumeroInterior`.
    pub numero_interior: Option<String>,
    /// `Colonia`.
    pub colonia: Option<String>,
    /// `Localidad`.
    pub localidad: Option<String>,
    /// `Referencia`.
    pub referencia: Option<String>,
    /// `Municipio`.
    pub municipio: Option<String>,
    /// `Estado`.
    pub estado: String,
    /// `Pais` (c_Pais).
    pub pais: String,
    /// `CodigoPostal`.
    pub codigo_postal: String,
}

/// `cartaporte31:Mercancias`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Mercancias {
    /// `PesoBrutoTotal`.
    pub peso_bruto_total: Numero,
    /// `UnidadPeso` (c_ClaveUnidadPeso).
    pub unidad_peso: String,
    /// `PesoNetoTotal`.
    pub peso_neto_total: Option<Numero>,
    /// `NumTotalMercancias`.
    pub num_total_mercancias: Numero,
    /// `CargoPorTasacion`.
    pub cargo_por_tasacion: Option<Numero>,
    /// `LogisticaInversaRecoleccionDevolucion`.
    pub logistica_inversa_recoleccion_devolucion: Option<String>,
    /// `cartaporte31:Mercancia` elements.
    pub mercancia: Vec<Mercancia>,
    /// `cartaporte31:Autotransporte`.
    pub autotransporte: Option<Autotransporte>,
    /// `cartaporte31:TransporteMaritimo`.
    pub transporte_maritimo: Option<TransporteMaritimo>,
    /// `cartaporte31:TransporteAereo`.
    pub transporte_aereo: Option<TransporteAereo>,
    /// `cartaporte31:TransporteFerroviario`.
    pub transporte_ferroviario: Option<TransporteFerroviario>,
}

/// `cartaporte31:Mercancia`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Mercancia {
    /// `BienesTransp` (c_ClaveProdServCP).
    pub bienes_transp: String,
    /// `ClaveSTCC`.
    pub clave_stcc: Option<String>,
    /// `Descripcion`.
    pub descripcion: String,
    /// `Cantidad`.
    pub cantidad: Numero,
    /// `ClaveUnidad` (c_ClaveUnidad).
    pub clave_unidad: String,
    /// `Unidad`.
    pub unidad: Option<String>,
    /// `Dimensiones`.
    pub dimensiones: Option<String>,
    /// `MaterialPeligroso`.
    pub material_peligroso: Option<String>,
    /// `CveMaterialPeligroso` (c_MaterialPeligroso).
    pub cve_material_peligroso: Option<String>,
    /// `Embalaje` (c_TipoEmbalaje).
    pub embalaje: Option<String>,
    /// `DescripEmbalaje`.
    pub descrip_embalaje: Option<String>,
    /// `SectorCOFEPRIS` (c_SectorCOFEPRIS).
    pub sector_cofepris: Option<String>,
    /// `NombreIngredienteActivo`.
    pub nombre_ingrediente_activo: Option<String>,
    /// `NomQuimico`.
    pub nom_quimico: Option<String>,
    /// `DenominacionGenericaProd`.
    pub denominacion_generica_prod: Option<String>,
    /// `DenominacionDistintivaProd`.
    pub denominacion_distintiva_prod: Option<String>,
    /// `Fabricante`.
    pub fabricante: Option<String>,
    /// `FechaCaducidad`.
    pub fecha_caducidad: Option<String>,
    /// `LoteMedicamento`.
    pub lote_medicamento: Option<String>,
    /// `FormaFarmaceutica` (c_FormaFarmaceutica).
    pub forma_farmaceutica: Option<String>,
    /// `CondicionesEspTransp` (c_CondicionesEspeciales).
    pub condiciones_esp_transp: Option<String>,
    /// `RegistroSanitarioFolioAutorizacion`.
    pub registro_sanitario_folio_autorizacion: Option<String>,
    /// `PermisoImportacion`.
    pub permiso_importacion: Option<String>,
    /// `FolioImpoVUCEM`.
    pub folio_impo_vucem: Option<String>,
    /// `NumCAS`.
    pub num_cas: Option<String>,
    /// `RazonSocialEmpImp`.
    pub razon_social_emp_imp: Option<String>,
    /// `NumRegSanPlagCOFEPRIS`.
    pub num_reg_san_plag_cofepris: Option<String>,
    /// `DatosFabricante`.
    pub datos_fabricante: Option<String>,
    /// `DatosFormulador`.
    pub datos_formulador: Option<String>,
    /// `DatosMaquilador`.
    pub datos_maquilador: Option<String>,
    /// `UsoAutorizado`.
    pub uso_autorizado: Option<String>,
    /// `PesoEnKg`.
    pub peso_en_kg: Numero,
    /// `ValorMercancia`.
    pub valor_mercancia: Option<Numero>,
    /// `Moneda` (c_Moneda).
    pub moneda: Option<String>,
    /// `FraccionArancelaria` (c_FraccionArancelaria).
    pub fraccion_arancelaria: Option<String>,
    /// `UUIDComercioExt`.
    pub uuid_comercio_ext: Option<String>,
    /// `TipoMateria` (c_TipoMateria).
    pub tipo_materia: Option<String>,
    /// `DescripcionMateria`.
    pub descripcion_materia: Option<String>,
    /// `cartaporte31:DocumentacionAduanera` elements.
    pub documentacion_aduanera: Vec<DocumentacionAduanera>,
    /// `cartaporte31:GuiasIdentificacion` elements.
    pub guias_identificacion: Vec<GuiasIdentificacion>,
    /// `cartaporte31:CantidadTransporta` elements.
    pub cantidad_transporta: Vec<CantidadTransporta>,
    /// `cartaporte31:DetalleMercancia`.
    pub detalle_mercancia: Option<DetalleMercancia>,
}

/// `cartaporte31:DocumentacionAduanera`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DocumentacionAduanera {
    /// `TipoDocumento` (c_DocumentoAduanero).
    pub tipo_documento: String,
    /// `NumPedimento`.
    pub num_pedimento: Option<String>,
    /// `IdentDocAduanero`.
    pub ident_doc_aduanero: Option<String>,
    /// `RFCImpo`.
    pub rfc_impo: Option<String>,
}

/// `cartaporte31:GuiasIdentificacion`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GuiasIdentificacion {
    /// `NumeroGuiaIdentificacion`.
    pub numero_guia_identificacion: String,
    /// `DescripGuiaIdentificacion`.
    pub descrip_guia_identificacion: String,
    /// `PesoGuiaIdentificacion`.
    pub peso_guia_identificacion: Numero,
}

/// `cartaporte31:CantidadTransporta`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CantidadTransporta {
    /// `Cantidad`.
    pub cantidad: Numero,
    /// `IDOrigen`.
    pub id_origen: String,
    /// `IDDestino`.
    pub id_destino: String,
    /// `CvesTransporte` (c_CveTransporte).
    pub cves_transporte: Option<String>,
}

/// `cartaporte31:DetalleMercancia`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DetalleMercancia {
    /// `UnidadPesoMerc` (c_ClaveUnidadPeso).
    pub unidad_peso_merc: String,
    /// `PesoBruto`.
    pub peso_bruto: Numero,
    /// `PesoNeto`.
    pub peso_neto: Numero,
    /// `PesoTara`.
    pub peso_tara: Numero,
    /// `NumPiezas`.
    pub num_piezas: Option<Numero>,
}

/// `cartaporte31:Autotransporte`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Autotransporte {
    /// `PermSCT` (c_TipoPermiso).
    pub perm_sct: String,
    /// `NumPermisoSCT`.
    pub num_permiso_sct: String,
    /// `cartaporte31:IdentificacionVehicular`.
    pub identificacion_vehicular: IdentificacionVehicular,
    /// `cartaporte31:Seguros`.
    pub seguros: Seguros,
    /// `cartaporte31:Remolques/cartaporte31:Remolque`.
    pub remolques: Vec<Remolque>,
}

/// `cartaporte31:IdentificacionVehicular`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct IdentificacionVehicular {
    /// `ConfigVehicular` (c_ConfigAutotransporte).
    pub config_vehicular: String,
    /// `PesoBrutoVehicular`.
    pub peso_bruto_vehicular: Numero,
    /// `PlacaVM`.
    pub placa_vm: String,
    /// `AnioModeloVM`.
    pub anio_modelo_vm: Numero,
}

/// `cartaporte31:Seguros`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Seguros {
    /// `AseguraRespCivil`.
    pub asegura_resp_civil: String,
    /// `PolizaRespCivil`.
    pub poliza_resp_civil: String,
    /// `AseguraMedAmbiente`.
    pub asegura_med_ambiente: Option<String>,
    /// `PolizaMedAmbiente`.
    pub poliza_med_ambiente: Option<String>,
    /// `AseguraCarga`.
    pub asegura_carga: Option<String>,
    /// `PolizaCarga`.
    pub poliza_carga: Option<String>,
    /// `PrimaSeguro`.
    pub prima_seguro: Option<Numero>,
}

/// `cartaporte31:Remolque`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Remolque {
    /// `SubTipoRem` (c_SubTipoRem).
    pub sub_tipo_rem: String,
    /// `Placa`.
    pub placa: String,
}

/// `cartaporte31:TransporteMaritimo`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TransporteMaritimo {
    /// `PermSCT` (c_TipoPermiso).
    pub perm_sct: Option<String>,
    /// `NumPermisoSCT`.
    pub num_permiso_sct: Option<String>,
    /// `NombreAseg`.
    pub nombre_aseg: Option<String>,
    /// `NumPolizaSeguro`.
    pub num_poliza_seguro: Option<String>,
    /// `TipoEmbarcacion` (c_ConfigMaritima).
    pub tipo_embarcacion: String,
    /// `Matricula`.
    pub matricula: String,
    /// `NumeroOMI`.
    pub numero_omi: String,
    /// `AnioEmbarcacion`.
    pub anio_embarcacion: Option<Numero>,
    /// `NombreEmbarc`.
    pub nombre_embarc: Option<String>,
    /// `NacionalidadEmbarc` (c_Pais).
    pub nacionalidad_embarc: String,
    /// `UnidadesDeArqBruto`.
    pub unidades_de_arq_bruto: Numero,
    /// `TipoCarga` (c_ClaveTipoCarga).
    pub tipo_carga: String,
    /// `Eslora`.
    pub eslora: Option<Numero>,
    /// `Manga`.
    pub manga: Option<Numero>,
    /// `Calado`.
    pub calado: Option<Numero>,
    /// `Puntal`.
    pub puntal: Option<Numero>,
    /// `LineaNaviera`.
    pub linea_naviera: Option<String>,
    /// `NombreAgenteNaviero`.
    pub nombre_agente_naviero: String,
    /// `NumAutorizacionNaviero` (c_NumAutorizacionNaviero).
    pub num_autorizacion_naviero: String,
    /// `NumViaje`.
    pub num_viaje: Option<String>,
    /// `NumConocEmbarc`.
    pub num_conoc_embarc: Option<String>,
    /// `PermisoTempNavegacion`.
    pub permiso_temp_navegacion: Option<String>,
    /// `cartaporte31:Contenedor` elements.
    pub contenedor: Vec<ContenedorMaritimo>,
}

/// `cartaporte31:Contenedor`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ContenedorMaritimo {
    /// `TipoContenedor` (c_ContenedorMaritimo).
    pub tipo_contenedor: String,
    /// `MatriculaContenedor`.
    pub matricula_contenedor: Option<String>,
    /// `NumPrecinto`.
    pub num_precinto: Option<String>,
    /// `IdCCPRelacionado`.
    pub id_ccp_relacionado: Option<String>,
    /// `PlacaVMCCP`.
    pub placa_vmccp: Option<String>,
    /// `FechaCertificacionCCP`.
    pub fecha_certificacion_ccp: Option<String>,
    /// `cartaporte31:RemolquesCCP/cartaporte31:RemolqueCCP`.
    pub remolques_ccp: Vec<RemolqueCcp>,
}

/// `cartaporte31:RemolqueCCP`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RemolqueCcp {
    /// `SubTipoRemCCP` (c_SubTipoRem).
    pub sub_tipo_rem_ccp: String,
    /// `PlacaCCP`.
    pub placa_ccp: String,
}

/// `cartaporte31:TransporteAereo`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TransporteAereo {
    /// `PermSCT` (c_TipoPermiso).
    pub perm_sct: String,
    /// `NumPermisoSCT`.
    pub num_permiso_sct: String,
    /// `MatriculaAeronave`.
    pub matricula_aeronave: Option<String>,
    /// `NombreAseg`.
    pub nombre_aseg: Option<String>,
    /// `NumPolizaSeguro`.
    pub num_poliza_seguro: Option<String>,
    /// `NumeroGuia`.
    pub numero_guia: String,
    /// `LugarContrato`.
    pub lugar_contrato: Option<String>,
    /// `CodigoTransportista` (c_CodigoTransporteAereo).
    pub codigo_transportista: String,
    /// `RFCEmbarcador`.
    pub rfc_embarcador: Option<String>,
    /// `NumRegIdTribEmbarc`.
    pub num_reg_id_trib_embarc: Option<String>,
    /// `ResidenciaFiscalEmbarc` (c_Pais).
    pub residencia_fiscal_embarc: Option<String>,
    /// `NombreEmbarcador`.
    pub nombre_embarcador: Option<String>,
}

/// `cartaporte31:TransporteFerroviario`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TransporteFerroviario {
    /// `TipoDeServicio` (c_TipoDeServicio).
    pub tipo_de_servicio: String,
    /// `TipoDeTrafico` (c_TipoDeTrafico).
    pub tipo_de_trafico: String,
    /// `NombreAseg`.
    pub nombre_aseg: Option<String>,
    /// `NumPolizaSeguro`.
    pub num_poliza_seguro: Option<String>,
    /// `cartaporte31:DerechosDePaso` elements.
    pub derechos_de_paso: Vec<DerechosDePaso>,
    /// `cartaporte31:Carro` elements.
    pub carro: Vec<Carro>,
}

/// `cartaporte31:DerechosDePaso`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DerechosDePaso {
    /// `TipoDerechoDePaso` (c_DerechosDePaso).
    pub tipo_derecho_de_paso: String,
    /// `KilometrajePagado`.
    pub kilometraje_pagado: Numero,
}

/// `cartaporte31:Carro`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Carro {
    /// `TipoCarro` (c_TipoCarro).
    pub tipo_carro: String,
    /// `MatriculaCarro`.
    pub matricula_carro: String,
    /// `GuiaCarro`.
    pub guia_carro: String,
    /// `ToneladasNetasCarro`.
    pub toneladas_netas_carro: Numero,
    /// `cartaporte31:Contenedor` elements.
    pub contenedor: Vec<ContenedorCarro>,
}

/// `cartaporte31:Contenedor`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ContenedorCarro {
    /// `TipoContenedor` (c_Contenedor).
    pub tipo_contenedor: String,
    /// `PesoContenedorVacio`.
    pub peso_contenedor_vacio: Numero,
    /// `PesoNetoMercancia`.
    pub peso_neto_mercancia: Numero,
}

/// `cartaporte31:TiposFigura`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TiposFigura {
    /// `TipoFigura` (c_FiguraTransporte).
    pub tipo_figura: String,
    /// `RFCFigura`.
    pub rfc_figura: Option<String>,
    /// `NumLicencia`.
    pub num_licencia: Option<String>,
    /// `NombreFigura`.
    pub nombre_figura: String,
    /// `NumRegIdTribFigura`.
    pub num_reg_id_trib_figura: Option<String>,
    /// `ResidenciaFiscalFigura` (c_Pais).
    pub residencia_fiscal_figura: Option<String>,
    /// `cartaporte31:PartesTransporte` elements.
    pub partes_transporte: Vec<PartesTransporte>,
    /// `cartaporte31:Domicilio`.
    pub domicilio: Option<Domicilio>,
}

/// `cartaporte31:PartesTransporte`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PartesTransporte {
    /// `ParteTransporte` (c_ParteTransporte).
    pub parte_transporte: String,
}

impl Unidad for CartaPorte {
    const ESPACIO: &'static str = NS_CARTAPORTE31;
    const ELEMENTO: &'static str = "CartaPorte";
    const DECLARACION_EN_RAIZ: Option<(&'static str, &'static str)> = Some(("xmlns:cartaporte31", XSD_CARTAPORTE31));

    fn leer(lector: &Lector<'_, '_>, nodo: Node<'_, '_>) -> Result<Self, ErrorParseo> {
        lectura::leer(lector, nodo)
    }

    fn escribir(&self, escritor: &mut Escritor) {
        escritura::escribir(escritor, self);
    }

    fn cadena(&self, k: &mut Cadena) {
        cadena::desde_modelo(k, self);
    }

    fn plantilla(k: &mut Cadena, nodo: Node<'_, '_>) -> bool {
        cadena::plantilla(k, nodo);
        true
    }

    fn validar(v: &mut Validador<'_>, c: &Comprobante, tipo: Option<TipoDeComprobante>) {
        validacion::validar(v, c, tipo);
    }
}

impl Comprobante {
    /// The Carta Porte 3.1 complement, if any.
    pub fn carta_porte(&self) -> Option<&CartaPorte> {
        self.complementos.iter().find_map(|complemento| match complemento {
            Complemento::CartaPorte(carta_porte) => Some(carta_porte.as_ref()),
            _ => None,
        })
    }
}
