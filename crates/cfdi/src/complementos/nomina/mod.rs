//! Complemento de nómina 1.2 (namespace `http://www.sat.gob.mx/nomina12`), revision E.
//!
//! The model covers what a payroll receipt needs and every attribute the SAT cadena
//! original stylesheet `nomina12.xslt` reads.
//!
//! The whole unit: the model below and, in its private submodules, `escritura` (XML
//! writer), `lectura` (parser), `cadena` (its part of the cadena original, from the model
//! and from the XML), `validacion` (rules on the comprobante that carries it) and
//! `construccion` ([`calcular_totales`] and the `NuevoComprobante` preset).

mod cadena;
mod construccion;
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

pub use self::construccion::calcular_totales;
pub use self::validacion::{LimitesSubsidio, antiguedad, semanas_de_antiguedad};

/// Namespace of Nómina 1.2.
pub const NS_NOMINA12: &str = "http://www.sat.gob.mx/nomina12";
/// Schema location of Nómina 1.2.
pub const XSD_NOMINA12: &str = "http://www.sat.gob.mx/sitio_internet/cfd/nomina/nomina12.xsd";

/// `nomina12:Nomina`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Nomina {
    /// `Version`, always `1.2`.
    pub version: String,
    /// `TipoNomina` (c_TipoNomina): O ordinaria, E extraordinaria.
    pub tipo_nomina: String,
    /// `FechaPago`.
    pub fecha_pago: String,
    /// `FechaInicialPago`.
    pub fecha_inicial_pago: String,
    /// `FechaFinalPago`.
    pub fecha_final_pago: String,
    /// `NumDiasPagados`.
    pub num_dias_pagados: Numero,
    /// `TotalPercepciones`.
    pub total_percepciones: Option<Numero>,
    /// `TotalDeducciones`.
    pub total_deducciones: Option<Numero>,
    /// `TotalOtrosPagos`.
    pub total_otros_pagos: Option<Numero>,
    /// `nomina12:Emisor`.
    pub emisor: Option<NominaEmisor>,
    /// `nomina12:Receptor`.
    pub receptor: NominaReceptor,
    /// `nomina12:Percepciones`.
    pub percepciones: Option<Percepciones>,
    /// `nomina12:Deducciones`.
    pub deducciones: Option<Deducciones>,
    /// `nomina12:OtrosPagos/nomina12:OtroPago`.
    pub otros_pagos: Vec<OtroPago>,
    /// `nomina12:Incapacidades/nomina12:Incapacidad`.
    pub incapacidades: Vec<Incapacidad>,
}

/// `nomina12:Emisor`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct NominaEmisor {
    /// `Curp` (employer who is a natural person).
    pub curp: Option<String>,
    /// `RegistroPatronal`: IMSS employer registration.
    pub registro_patronal: Option<String>,
    /// `RfcPatronOrigen`.
    pub rfc_patron_origen: Option<String>,
    /// `nomina12:EntidadSNCF`.
    pub entidad_sncf: Option<EntidadSncf>,
}

/// `nomina12:EntidadSNCF`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct EntidadSncf {
    /// `OrigenRecurso`.
    pub origen_recurso: String,
    /// `MontoRecursoPropio`.
    pub monto_recurso_propio: Option<Numero>,
}

/// `nomina12:Receptor`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct NominaReceptor {
    /// `Curp`.
    pub curp: String,
    /// `NumSeguridadSocial`.
    pub num_seguridad_social: Option<String>,
    /// `FechaInicioRelLaboral`.
    pub fecha_inicio_rel_laboral: Option<String>,
    /// `Antigüedad`: ISO 8601 duration (`P52W`, `P1Y2M3D`).
    pub antiguedad: Option<String>,
    /// `TipoContrato` (c_TipoContrato).
    pub tipo_contrato: String,
    /// `Sindicalizado`: Sí / No.
    pub sindicalizado: Option<String>,
    /// `TipoJornada` (c_TipoJornada).
    pub tipo_jornada: Option<String>,
    /// `TipoRegimen` (c_TipoRegimen).
    pub tipo_regimen: String,
    /// `NumEmpleado`.
    pub num_empleado: String,
    /// `Departamento`.
    pub departamento: Option<String>,
    /// `Puesto`.
    pub puesto: Option<String>,
    /// `RiesgoPuesto` (c_RiesgoPuesto).
    pub riesgo_puesto: Option<String>,
    /// `PeriodicidadPago` (c_PeriodicidadPago).
    pub periodicidad_pago: String,
    /// `Banco` (c_Banco).
    pub banco: Option<String>,
    /// `CuentaBancaria`.
    pub cuenta_bancaria: Option<String>,
    /// `SalarioBaseCotApor`.
    pub salario_base_cot_apor: Option<Numero>,
    /// `SalarioDiarioIntegrado`.
    pub salario_diario_integrado: Option<Numero>,
    /// `ClaveEntFed` (c_Estado).
    pub clave_ent_fed: String,
    /// `nomina12:SubContratacion` elements.
    pub subcontratacion: Vec<SubContratacion>,
}

/// `nomina12:SubContratacion`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SubContratacion {
    /// `RfcLabora`.
    pub rfc_labora: String,
    /// `PorcentajeTiempo`.
    pub porcentaje_tiempo: Numero,
}

/// `nomina12:Percepciones`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Percepciones {
    /// `TotalSueldos`.
    pub total_sueldos: Option<Numero>,
    /// `TotalSeparacionIndemnizacion`.
    pub total_separacion_indemnizacion: Option<Numero>,
    /// `TotalJubilacionPensionRetiro`.
    pub total_jubilacion_pension_retiro: Option<Numero>,
    /// `TotalGravado`.
    pub total_gravado: Numero,
    /// `TotalExento`.
    pub total_exento: Numero,
    /// `nomina12:Percepcion` elements.
    pub percepciones: Vec<Percepcion>,
    /// `nomina12:JubilacionPensionRetiro`.
    pub jubilacion_pension_retiro: Option<JubilacionPensionRetiro>,
    /// `nomina12:SeparacionIndemnizacion`.
    pub separacion_indemnizacion: Option<SeparacionIndemnizacion>,
}

/// `nomina12:Percepcion`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Percepcion {
    /// `TipoPercepcion` (c_TipoPercepcion).
    pub tipo_percepcion: String,
    /// `Clave`: the employer's own key.
    pub clave: String,
    /// `Concepto`.
    pub concepto: String,
    /// `ImporteGravado`.
    pub importe_gravado: Numero,
    /// `ImporteExento`.
    pub importe_exento: Numero,
    /// `nomina12:AccionesOTitulos`.
    pub acciones_o_titulos: Option<AccionesOTitulos>,
    /// `nomina12:HorasExtra` elements.
    pub horas_extra: Vec<HorasExtra>,
}

/// `nomina12:AccionesOTitulos`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AccionesOTitulos {
    /// `ValorMercado`.
    pub valor_mercado: Numero,
    /// `PrecioAlOtorgarse`.
    pub precio_al_otorgarse: Numero,
}

/// `nomina12:HorasExtra`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct HorasExtra {
    /// `Dias`.
    pub dias: String,
    /// `TipoHoras` (c_TipoHoras).
    pub tipo_horas: String,
    /// `HorasExtra`.
    pub horas_extra: String,
    /// `ImportePagado`.
    pub importe_pagado: Numero,
}

/// `nomina12:JubilacionPensionRetiro`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct JubilacionPensionRetiro {
    /// `TotalUnaExhibicion`.
    pub total_una_exhibicion: Option<Numero>,
    /// `TotalParcialidad`.
    pub total_parcialidad: Option<Numero>,
    /// `MontoDiario`.
    pub monto_diario: Option<Numero>,
    /// `IngresoAcumulable`.
    pub ingreso_acumulable: Numero,
    /// `IngresoNoAcumulable`.
    pub ingreso_no_acumulable: Numero,
}

/// `nomina12:SeparacionIndemnizacion`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SeparacionIndemnizacion {
    /// `TotalPagado`.
    pub total_pagado: Numero,
    /// `NumAñosServicio`.
    pub num_anos_servicio: String,
    /// `UltimoSueldoMensOrd`.
    pub ultimo_sueldo_mens_ord: Numero,
    /// `IngresoAcumulable`.
    pub ingreso_acumulable: Numero,
    /// `IngresoNoAcumulable`.
    pub ingreso_no_acumulable: Numero,
}

/// `nomina12:Deducciones`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Deducciones {
    /// `TotalOtrasDeducciones`.
    pub total_otras_deducciones: Option<Numero>,
    /// `TotalImpuestosRetenidos`.
    pub total_impuestos_retenidos: Option<Numero>,
    /// `nomina12:Deduccion` elements.
    pub deducciones: Vec<Deduccion>,
}

/// `nomina12:Deduccion`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Deduccion {
    /// `TipoDeduccion` (c_TipoDeduccion).
    pub tipo_deduccion: String,
    /// `Clave`.
    pub clave: String,
    /// `Concepto`.
    pub concepto: String,
    /// `Importe`.
    pub importe: Numero,
}

/// `nomina12:OtroPago`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OtroPago {
    /// `TipoOtroPago` (c_TipoOtroPago).
    pub tipo_otro_pago: String,
    /// `Clave`.
    pub clave: String,
    /// `Concepto`.
    pub concepto: String,
    /// `Importe`.
    pub importe: Numero,
    /// `nomina12:SubsidioAlEmpleo`.
    pub subsidio_al_empleo: Option<SubsidioAlEmpleo>,
    /// `nomina12:CompensacionSaldosAFavor`.
    pub compensacion_saldos_a_favor: Option<CompensacionSaldosAFavor>,
}

/// `nomina12:SubsidioAlEmpleo`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SubsidioAlEmpleo {
    /// `SubsidioCausado`.
    pub subsidio_causado: Numero,
}

/// `nomina12:CompensacionSaldosAFavor`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CompensacionSaldosAFavor {
    /// `SaldoAFavor`.
    pub saldo_a_favor: Numero,
    /// `Año`.
    pub ano: String,
    /// `RemanenteSalFav`.
    pub remanente_sal_fav: Numero,
}

/// `nomina12:Incapacidad`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Incapacidad {
    /// `DiasIncapacidad`.
    pub dias_incapacidad: String,
    /// `TipoIncapacidad` (c_TipoIncapacidad).
    pub tipo_incapacidad: String,
    /// `ImporteMonetario`.
    pub importe_monetario: Option<Numero>,
}

impl Unidad for Nomina {
    const ESPACIO: &'static str = NS_NOMINA12;
    const ELEMENTO: &'static str = "Nomina";
    const DECLARACION_EN_RAIZ: Option<(&'static str, &'static str)> = Some(("xmlns:nomina12", XSD_NOMINA12));

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
    /// The Nómina 1.2 complements (a payroll CFDI may carry more than one).
    pub fn nominas(&self) -> impl Iterator<Item = &Nomina> {
        self.complementos.iter().filter_map(|complemento| match complemento {
            Complemento::Nomina(nomina) => Some(nomina.as_ref()),
            _ => None,
        })
    }
}
