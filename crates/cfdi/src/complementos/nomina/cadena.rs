//! Its part of the cadena original: SAT's stylesheet for the complement, included by
//! `cadenaoriginal_4_0.xslt`, from the model and from the XML (same order of values).

use super::*;
use crate::cadena::{attr, req_all};
use crate::parser::hijos;

/// From the model (the fast path used when sealing).
pub(super) fn desde_modelo(k: &mut Cadena, n: &Nomina) {
    k.req(&n.version);
    k.req(&n.tipo_nomina);
    k.req(&n.fecha_pago);
    k.req(&n.fecha_inicial_pago);
    k.req(&n.fecha_final_pago);
    k.num(&n.num_dias_pagados);
    k.opt_num(n.total_percepciones.as_ref());
    k.opt_num(n.total_deducciones.as_ref());
    k.opt_num(n.total_otros_pagos.as_ref());
    if let Some(emisor) = &n.emisor {
        k.opt(emisor.curp.as_deref());
        k.opt(emisor.registro_patronal.as_deref());
        k.opt(emisor.rfc_patron_origen.as_deref());
        if let Some(entidad) = &emisor.entidad_sncf {
            k.req(&entidad.origen_recurso);
            k.opt_num(entidad.monto_recurso_propio.as_ref());
        }
    }
    let r = &n.receptor;
    k.req(&r.curp);
    k.opt(r.num_seguridad_social.as_deref());
    k.opt(r.fecha_inicio_rel_laboral.as_deref());
    k.opt(r.antiguedad.as_deref());
    k.req(&r.tipo_contrato);
    k.opt(r.sindicalizado.as_deref());
    k.opt(r.tipo_jornada.as_deref());
    k.req(&r.tipo_regimen);
    k.req(&r.num_empleado);
    k.opt(r.departamento.as_deref());
    k.opt(r.puesto.as_deref());
    k.opt(r.riesgo_puesto.as_deref());
    k.req(&r.periodicidad_pago);
    k.opt(r.banco.as_deref());
    k.opt(r.cuenta_bancaria.as_deref());
    k.opt_num(r.salario_base_cot_apor.as_ref());
    k.opt_num(r.salario_diario_integrado.as_ref());
    k.req(&r.clave_ent_fed);
    for s in &r.subcontratacion {
        k.req(&s.rfc_labora);
        k.num(&s.porcentaje_tiempo);
    }
    if let Some(p) = &n.percepciones {
        k.opt_num(p.total_sueldos.as_ref());
        k.opt_num(p.total_separacion_indemnizacion.as_ref());
        k.opt_num(p.total_jubilacion_pension_retiro.as_ref());
        k.num(&p.total_gravado);
        k.num(&p.total_exento);
        for percepcion in &p.percepciones {
            k.req(&percepcion.tipo_percepcion);
            k.req(&percepcion.clave);
            k.req(&percepcion.concepto);
            k.num(&percepcion.importe_gravado);
            k.num(&percepcion.importe_exento);
            if let Some(acciones) = &percepcion.acciones_o_titulos {
                k.num(&acciones.valor_mercado);
                k.num(&acciones.precio_al_otorgarse);
            }
            for horas in &percepcion.horas_extra {
                k.req(&horas.dias);
                k.req(&horas.tipo_horas);
                k.req(&horas.horas_extra);
                k.num(&horas.importe_pagado);
            }
        }
        if let Some(j) = &p.jubilacion_pension_retiro {
            k.opt_num(j.total_una_exhibicion.as_ref());
            k.opt_num(j.total_parcialidad.as_ref());
            k.opt_num(j.monto_diario.as_ref());
            k.num(&j.ingreso_acumulable);
            k.num(&j.ingreso_no_acumulable);
        }
        if let Some(s) = &p.separacion_indemnizacion {
            k.num(&s.total_pagado);
            k.req(&s.num_anos_servicio);
            k.num(&s.ultimo_sueldo_mens_ord);
            k.num(&s.ingreso_acumulable);
            k.num(&s.ingreso_no_acumulable);
        }
    }
    if let Some(d) = &n.deducciones {
        k.opt_num(d.total_otras_deducciones.as_ref());
        k.opt_num(d.total_impuestos_retenidos.as_ref());
        for deduccion in &d.deducciones {
            k.req(&deduccion.tipo_deduccion);
            k.req(&deduccion.clave);
            k.req(&deduccion.concepto);
            k.num(&deduccion.importe);
        }
    }
    for otro in &n.otros_pagos {
        k.req(&otro.tipo_otro_pago);
        k.req(&otro.clave);
        k.req(&otro.concepto);
        k.num(&otro.importe);
        if let Some(subsidio) = &otro.subsidio_al_empleo {
            k.num(&subsidio.subsidio_causado);
        }
        if let Some(compensacion) = &otro.compensacion_saldos_a_favor {
            k.num(&compensacion.saldo_a_favor);
            k.req(&compensacion.ano);
            k.num(&compensacion.remanente_sal_fav);
        }
    }
    for incapacidad in &n.incapacidades {
        k.req(&incapacidad.dias_incapacidad);
        k.req(&incapacidad.tipo_incapacidad);
        k.opt_num(incapacidad.importe_monetario.as_ref());
    }
}

/// From the XML: the stylesheet's template, value by value.
pub(super) fn plantilla(k: &mut Cadena, n: Node<'_, '_>) {
    const NS: &str = NS_NOMINA12;
    req_all(k, n, &["Version", "TipoNomina", "FechaPago", "FechaInicialPago", "FechaFinalPago", "NumDiasPagados"]);
    k.opt(n.attribute("TotalPercepciones"));
    k.opt(n.attribute("TotalDeducciones"));
    k.opt(n.attribute("TotalOtrosPagos"));
    for emisor in hijos(n, NS, "Emisor") {
        k.opt(emisor.attribute("Curp"));
        k.opt(emisor.attribute("RegistroPatronal"));
        k.opt(emisor.attribute("RfcPatronOrigen"));
        for entidad in hijos(emisor, NS, "EntidadSNCF") {
            k.req(attr(entidad, "OrigenRecurso"));
            k.opt(entidad.attribute("MontoRecursoPropio"));
        }
    }
    for r in hijos(n, NS, "Receptor") {
        k.req(attr(r, "Curp"));
        k.opt(r.attribute("NumSeguridadSocial"));
        k.opt(r.attribute("FechaInicioRelLaboral"));
        k.opt(r.attribute("Antigüedad"));
        k.req(attr(r, "TipoContrato"));
        k.opt(r.attribute("Sindicalizado"));
        k.opt(r.attribute("TipoJornada"));
        k.req(attr(r, "TipoRegimen"));
        k.req(attr(r, "NumEmpleado"));
        k.opt(r.attribute("Departamento"));
        k.opt(r.attribute("Puesto"));
        k.opt(r.attribute("RiesgoPuesto"));
        k.req(attr(r, "PeriodicidadPago"));
        k.opt(r.attribute("Banco"));
        k.opt(r.attribute("CuentaBancaria"));
        k.opt(r.attribute("SalarioBaseCotApor"));
        k.opt(r.attribute("SalarioDiarioIntegrado"));
        k.req(attr(r, "ClaveEntFed"));
        for s in hijos(r, NS, "SubContratacion") {
            req_all(k, s, &["RfcLabora", "PorcentajeTiempo"]);
        }
    }
    for p in hijos(n, NS, "Percepciones") {
        k.opt(p.attribute("TotalSueldos"));
        k.opt(p.attribute("TotalSeparacionIndemnizacion"));
        k.opt(p.attribute("TotalJubilacionPensionRetiro"));
        req_all(k, p, &["TotalGravado", "TotalExento"]);
        for percepcion in hijos(p, NS, "Percepcion") {
            req_all(k, percepcion, &["TipoPercepcion", "Clave", "Concepto", "ImporteGravado", "ImporteExento"]);
            for acciones in hijos(percepcion, NS, "AccionesOTitulos") {
                req_all(k, acciones, &["ValorMercado", "PrecioAlOtorgarse"]);
            }
            for horas in hijos(percepcion, NS, "HorasExtra") {
                req_all(k, horas, &["Dias", "TipoHoras", "HorasExtra", "ImportePagado"]);
            }
        }
        for j in hijos(p, NS, "JubilacionPensionRetiro") {
            k.opt(j.attribute("TotalUnaExhibicion"));
            k.opt(j.attribute("TotalParcialidad"));
            k.opt(j.attribute("MontoDiario"));
            req_all(k, j, &["IngresoAcumulable", "IngresoNoAcumulable"]);
        }
        for s in hijos(p, NS, "SeparacionIndemnizacion") {
            req_all(
                k,
                s,
                &["TotalPagado", "NumAñosServicio", "UltimoSueldoMensOrd", "IngresoAcumulable", "IngresoNoAcumulable"],
            );
        }
    }
    for d in hijos(n, NS, "Deducciones") {
        k.opt(d.attribute("TotalOtrasDeducciones"));
        k.opt(d.attribute("TotalImpuestosRetenidos"));
        for deduccion in hijos(d, NS, "Deduccion") {
            req_all(k, deduccion, &["TipoDeduccion", "Clave", "Concepto", "Importe"]);
        }
    }
    for otros in hijos(n, NS, "OtrosPagos") {
        for otro in hijos(otros, NS, "OtroPago") {
            req_all(k, otro, &["TipoOtroPago", "Clave", "Concepto", "Importe"]);
            for subsidio in hijos(otro, NS, "SubsidioAlEmpleo") {
                k.req(attr(subsidio, "SubsidioCausado"));
            }
            for compensacion in hijos(otro, NS, "CompensacionSaldosAFavor") {
                req_all(k, compensacion, &["SaldoAFavor", "Año", "RemanenteSalFav"]);
            }
        }
    }
    for incapacidades in hijos(n, NS, "Incapacidades") {
        for incapacidad in hijos(incapacidades, NS, "Incapacidad") {
            req_all(k, incapacidad, &["DiasIncapacidad", "TipoIncapacidad"]);
            k.opt(incapacidad.attribute("ImporteMonetario"));
        }
    }
}
