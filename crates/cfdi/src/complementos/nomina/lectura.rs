//! Parser of `nomina12:Nomina` into the model.

use super::*;
use crate::parser::{hijo, hijos};

pub(super) fn leer(l: &Lector<'_, '_>, n: Node<'_, '_>) -> Result<Nomina, ErrorParseo> {
    const NS: &str = NS_NOMINA12;
    let receptor = hijo(n, NS, "Receptor").ok_or_else(|| l.falta(n, "Receptor"))?;
    let emisor = match hijo(n, NS, "Emisor") {
        None => None,
        Some(e) => Some(NominaEmisor {
            curp: l.opt(e, "Curp"),
            registro_patronal: l.opt(e, "RegistroPatronal"),
            rfc_patron_origen: l.opt(e, "RfcPatronOrigen"),
            entidad_sncf: match hijo(e, NS, "EntidadSNCF") {
                None => None,
                Some(s) => Some(EntidadSncf {
                    origen_recurso: l.req(s, "OrigenRecurso")?,
                    monto_recurso_propio: l.opt_num(s, "MontoRecursoPropio"),
                }),
            },
        }),
    };
    let r = receptor;
    let receptor = NominaReceptor {
        curp: l.req(r, "Curp")?,
        num_seguridad_social: l.opt(r, "NumSeguridadSocial"),
        fecha_inicio_rel_laboral: l.opt(r, "FechaInicioRelLaboral"),
        antiguedad: l.opt(r, "Antigüedad"),
        tipo_contrato: l.req(r, "TipoContrato")?,
        sindicalizado: l.opt(r, "Sindicalizado"),
        tipo_jornada: l.opt(r, "TipoJornada"),
        tipo_regimen: l.req(r, "TipoRegimen")?,
        num_empleado: l.req(r, "NumEmpleado")?,
        departamento: l.opt(r, "Departamento"),
        puesto: l.opt(r, "Puesto"),
        riesgo_puesto: l.opt(r, "RiesgoPuesto"),
        periodicidad_pago: l.req(r, "PeriodicidadPago")?,
        banco: l.opt(r, "Banco"),
        cuenta_bancaria: l.opt(r, "CuentaBancaria"),
        salario_base_cot_apor: l.opt_num(r, "SalarioBaseCotApor"),
        salario_diario_integrado: l.opt_num(r, "SalarioDiarioIntegrado"),
        clave_ent_fed: l.req(r, "ClaveEntFed")?,
        subcontratacion: hijos(r, NS, "SubContratacion")
            .map(|s| {
                Ok(SubContratacion {
                    rfc_labora: l.req(s, "RfcLabora")?,
                    porcentaje_tiempo: l.num(s, "PorcentajeTiempo")?,
                })
            })
            .collect::<Result<_, ErrorParseo>>()?,
    };
    let percepciones = match hijo(n, NS, "Percepciones") {
        None => None,
        Some(p) => {
            let mut lista = Vec::new();
            for percepcion in hijos(p, NS, "Percepcion") {
                lista.push(Percepcion {
                    tipo_percepcion: l.req(percepcion, "TipoPercepcion")?,
                    clave: l.req(percepcion, "Clave")?,
                    concepto: l.req(percepcion, "Concepto")?,
                    importe_gravado: l.num(percepcion, "ImporteGravado")?,
                    importe_exento: l.num(percepcion, "ImporteExento")?,
                    acciones_o_titulos: match hijo(percepcion, NS, "AccionesOTitulos") {
                        None => None,
                        Some(a) => Some(AccionesOTitulos {
                            valor_mercado: l.num(a, "ValorMercado")?,
                            precio_al_otorgarse: l.num(a, "PrecioAlOtorgarse")?,
                        }),
                    },
                    horas_extra: hijos(percepcion, NS, "HorasExtra")
                        .map(|h| {
                            Ok(HorasExtra {
                                dias: l.req(h, "Dias")?,
                                tipo_horas: l.req(h, "TipoHoras")?,
                                horas_extra: l.req(h, "HorasExtra")?,
                                importe_pagado: l.num(h, "ImportePagado")?,
                            })
                        })
                        .collect::<Result<_, ErrorParseo>>()?,
                });
            }
            Some(Percepciones {
                total_sueldos: l.opt_num(p, "TotalSueldos"),
                total_separacion_indemnizacion: l.opt_num(p, "TotalSeparacionIndemnizacion"),
                total_jubilacion_pension_retiro: l.opt_num(p, "TotalJubilacionPensionRetiro"),
                total_gravado: l.num(p, "TotalGravado")?,
                total_exento: l.num(p, "TotalExento")?,
                percepciones: lista,
                jubilacion_pension_retiro: match hijo(p, NS, "JubilacionPensionRetiro") {
                    None => None,
                    Some(j) => Some(JubilacionPensionRetiro {
                        total_una_exhibicion: l.opt_num(j, "TotalUnaExhibicion"),
                        total_parcialidad: l.opt_num(j, "TotalParcialidad"),
                        monto_diario: l.opt_num(j, "MontoDiario"),
                        ingreso_acumulable: l.num(j, "IngresoAcumulable")?,
                        ingreso_no_acumulable: l.num(j, "IngresoNoAcumulable")?,
                    }),
                },
                separacion_indemnizacion: match hijo(p, NS, "SeparacionIndemnizacion") {
                    None => None,
                    Some(s) => Some(SeparacionIndemnizacion {
                        total_pagado: l.num(s, "TotalPagado")?,
                        num_anos_servicio: l.req(s, "NumAñosServicio")?,
                        ultimo_sueldo_mens_ord: l.num(s, "UltimoSueldoMensOrd")?,
                        ingreso_acumulable: l.num(s, "IngresoAcumulable")?,
                        ingreso_no_acumulable: l.num(s, "IngresoNoAcumulable")?,
                    }),
                },
            })
        }
    };
    let deducciones = match hijo(n, NS, "Deducciones") {
        None => None,
        Some(d) => Some(Deducciones {
            total_otras_deducciones: l.opt_num(d, "TotalOtrasDeducciones"),
            total_impuestos_retenidos: l.opt_num(d, "TotalImpuestosRetenidos"),
            deducciones: hijos(d, NS, "Deduccion")
                .map(|x| {
                    Ok(Deduccion {
                        tipo_deduccion: l.req(x, "TipoDeduccion")?,
                        clave: l.req(x, "Clave")?,
                        concepto: l.req(x, "Concepto")?,
                        importe: l.num(x, "Importe")?,
                    })
                })
                .collect::<Result<_, ErrorParseo>>()?,
        }),
    };
    let mut otros_pagos = Vec::new();
    for lista in hijos(n, NS, "OtrosPagos") {
        for o in hijos(lista, NS, "OtroPago") {
            otros_pagos.push(OtroPago {
                tipo_otro_pago: l.req(o, "TipoOtroPago")?,
                clave: l.req(o, "Clave")?,
                concepto: l.req(o, "Concepto")?,
                importe: l.num(o, "Importe")?,
                subsidio_al_empleo: match hijo(o, NS, "SubsidioAlEmpleo") {
                    None => None,
                    Some(s) => Some(SubsidioAlEmpleo { subsidio_causado: l.num(s, "SubsidioCausado")? }),
                },
                compensacion_saldos_a_favor: match hijo(o, NS, "CompensacionSaldosAFavor") {
                    None => None,
                    Some(s) => Some(CompensacionSaldosAFavor {
                        saldo_a_favor: l.num(s, "SaldoAFavor")?,
                        ano: l.req(s, "Año")?,
                        remanente_sal_fav: l.num(s, "RemanenteSalFav")?,
                    }),
                },
            });
        }
    }
    let mut incapacidades = Vec::new();
    for lista in hijos(n, NS, "Incapacidades") {
        for i in hijos(lista, NS, "Incapacidad") {
            incapacidades.push(Incapacidad {
                dias_incapacidad: l.req(i, "DiasIncapacidad")?,
                tipo_incapacidad: l.req(i, "TipoIncapacidad")?,
                importe_monetario: l.opt_num(i, "ImporteMonetario"),
            });
        }
    }
    Ok(Nomina {
        version: l.req(n, "Version")?,
        tipo_nomina: l.req(n, "TipoNomina")?,
        fecha_pago: l.req(n, "FechaPago")?,
        fecha_inicial_pago: l.req(n, "FechaInicialPago")?,
        fecha_final_pago: l.req(n, "FechaFinalPago")?,
        num_dias_pagados: l.num(n, "NumDiasPagados")?,
        total_percepciones: l.opt_num(n, "TotalPercepciones"),
        total_deducciones: l.opt_num(n, "TotalDeducciones"),
        total_otros_pagos: l.opt_num(n, "TotalOtrosPagos"),
        emisor,
        receptor,
        percepciones,
        deducciones,
        otros_pagos,
        incapacidades,
    })
}
