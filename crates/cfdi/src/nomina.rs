//! Complemento de nómina 1.2 (namespace `http://www.sat.gob.mx/nomina12`), revision E.
//!
//! The model covers what a payroll receipt needs and every attribute the SAT cadena
//! original stylesheet `nomina12.xslt` reads.

use crate::construccion::{ErrorConstruccion, sumar};
use crate::numero::Numero;

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

/// Percepción types that are separation/indemnification (Guía de llenado Nómina 1.2,
/// TotalSeparacionIndemnizacion): 022 prima por antigüedad, 023 pagos por separación,
/// 025 indemnizaciones.
const TIPOS_SEPARACION: [&str; 3] = ["022", "023", "025"];
/// Percepción types that are retirement (TotalJubilacionPensionRetiro): 039 and 044.
const TIPOS_JUBILACION: [&str; 2] = ["039", "044"];

/// Fills the totals of a Nómina 1.2 from its lines (Guía de llenado Nómina 1.2):
/// `TotalSueldos`, `TotalSeparacionIndemnizacion`, `TotalJubilacionPensionRetiro`,
/// `TotalGravado`, `TotalExento`, `TotalPercepciones`; `TotalOtrasDeducciones` (all but
/// 002), `TotalImpuestosRetenidos` (002 ISR), `TotalDeducciones`; `TotalOtrosPagos`.
/// Totals of absent groups are left out, as the guide requires.
///
/// # Errors
/// [`ErrorConstruccion`] when a sum leaves `t_Importe` (checked arithmetic: never a panic).
pub fn calcular_totales(nomina: &mut Nomina) -> Result<(), ErrorConstruccion> {
    use rust_decimal::Decimal;

    let valor = |n: &Numero| n.valor().unwrap_or_default();
    let dos = |v: Decimal| Numero::con_decimales(v, 2);
    if let Some(p) = &mut nomina.percepciones {
        let (mut sueldos, mut separacion, mut jubilacion) = (None::<Decimal>, None::<Decimal>, None::<Decimal>);
        let (mut gravado, mut exento) = (Decimal::ZERO, Decimal::ZERO);
        for percepcion in &p.percepciones {
            let g = valor(&percepcion.importe_gravado);
            let e = valor(&percepcion.importe_exento);
            gravado = sumar(gravado, g, "Nomina.Percepciones.TotalGravado")?;
            exento = sumar(exento, e, "Nomina.Percepciones.TotalExento")?;
            let destino = if TIPOS_SEPARACION.contains(&percepcion.tipo_percepcion.as_str()) {
                &mut separacion
            } else if TIPOS_JUBILACION.contains(&percepcion.tipo_percepcion.as_str()) {
                &mut jubilacion
            } else {
                &mut sueldos
            };
            *destino =
                Some(sumar(sumar(destino.unwrap_or_default(), g, "Nomina.Percepciones")?, e, "Nomina.Percepciones")?);
        }
        p.total_sueldos = sueldos.map(dos);
        p.total_separacion_indemnizacion = separacion.map(dos);
        p.total_jubilacion_pension_retiro = jubilacion.map(dos);
        p.total_gravado = dos(gravado);
        p.total_exento = dos(exento);
        let total = sumar(sueldos.unwrap_or_default(), separacion.unwrap_or_default(), "Nomina.TotalPercepciones")?;
        nomina.total_percepciones =
            Some(dos(sumar(total, jubilacion.unwrap_or_default(), "Nomina.TotalPercepciones")?));
    } else {
        nomina.total_percepciones = None;
    }
    if let Some(d) = &mut nomina.deducciones {
        let (mut otras, mut isr) = (None::<Decimal>, None::<Decimal>);
        for deduccion in &d.deducciones {
            let destino = if deduccion.tipo_deduccion == "002" { &mut isr } else { &mut otras };
            *destino = Some(sumar(destino.unwrap_or_default(), valor(&deduccion.importe), "Nomina.Deducciones")?);
        }
        d.total_otras_deducciones = otras.map(dos);
        d.total_impuestos_retenidos = isr.map(dos);
        nomina.total_deducciones =
            Some(dos(sumar(otras.unwrap_or_default(), isr.unwrap_or_default(), "Nomina.TotalDeducciones")?));
    } else {
        nomina.total_deducciones = None;
    }
    nomina.total_otros_pagos = if nomina.otros_pagos.is_empty() {
        None
    } else {
        let total = nomina
            .otros_pagos
            .iter()
            .try_fold(Decimal::ZERO, |suma, o| sumar(suma, valor(&o.importe), "Nomina.TotalOtrosPagos"))?;
        Some(dos(total))
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sumas_enormes_son_errores_no_panicos() {
        let deduccion = |importe: &str| Deduccion { importe: Numero::from_texto(importe), ..Deduccion::default() };
        let mut nomina = Nomina {
            deducciones: Some(Deducciones {
                deducciones: vec![deduccion("79228162514264337593543950335"), deduccion("1")],
                ..Deducciones::default()
            }),
            ..Nomina::default()
        };
        assert!(calcular_totales(&mut nomina).is_err());
        nomina.deducciones = Some(Deducciones { deducciones: vec![deduccion("10.5")], ..Deducciones::default() });
        calcular_totales(&mut nomina).unwrap();
        assert_eq!(nomina.total_deducciones.map(|n| n.texto().to_owned()), Some("10.50".into()));
    }
}
