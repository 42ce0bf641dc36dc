//! XML writer of `nomina12:Nomina`.

use super::*;
use crate::escritura::Etiqueta;

pub(super) fn escribir(e: &mut Escritor, n: &Nomina) {
    e.abrir(
        Etiqueta::new("nomina12:Nomina")
            .req("Version", &n.version)
            .req("TipoNomina", &n.tipo_nomina)
            .req("FechaPago", &n.fecha_pago)
            .req("FechaInicialPago", &n.fecha_inicial_pago)
            .req("FechaFinalPago", &n.fecha_final_pago)
            .num("NumDiasPagados", &n.num_dias_pagados)
            .opt_num("TotalPercepciones", n.total_percepciones.as_ref())
            .opt_num("TotalDeducciones", n.total_deducciones.as_ref())
            .opt_num("TotalOtrosPagos", n.total_otros_pagos.as_ref()),
    );
    if let Some(emisor) = &n.emisor {
        let etiqueta = Etiqueta::new("nomina12:Emisor")
            .opt("Curp", emisor.curp.as_deref())
            .opt("RegistroPatronal", emisor.registro_patronal.as_deref())
            .opt("RfcPatronOrigen", emisor.rfc_patron_origen.as_deref());
        match &emisor.entidad_sncf {
            None => e.vacio(etiqueta),
            Some(entidad) => {
                e.abrir(etiqueta);
                e.vacio(
                    Etiqueta::new("nomina12:EntidadSNCF")
                        .req("OrigenRecurso", &entidad.origen_recurso)
                        .opt_num("MontoRecursoPropio", entidad.monto_recurso_propio.as_ref()),
                );
                e.cerrar("nomina12:Emisor");
            }
        }
    }
    let r = &n.receptor;
    let etiqueta = Etiqueta::new("nomina12:Receptor")
        .req("Curp", &r.curp)
        .opt("NumSeguridadSocial", r.num_seguridad_social.as_deref())
        .opt("FechaInicioRelLaboral", r.fecha_inicio_rel_laboral.as_deref())
        .opt("Antigüedad", r.antiguedad.as_deref())
        .req("TipoContrato", &r.tipo_contrato)
        .opt("Sindicalizado", r.sindicalizado.as_deref())
        .opt("TipoJornada", r.tipo_jornada.as_deref())
        .req("TipoRegimen", &r.tipo_regimen)
        .req("NumEmpleado", &r.num_empleado)
        .opt("Departamento", r.departamento.as_deref())
        .opt("Puesto", r.puesto.as_deref())
        .opt("RiesgoPuesto", r.riesgo_puesto.as_deref())
        .req("PeriodicidadPago", &r.periodicidad_pago)
        .opt("Banco", r.banco.as_deref())
        .opt("CuentaBancaria", r.cuenta_bancaria.as_deref())
        .opt_num("SalarioBaseCotApor", r.salario_base_cot_apor.as_ref())
        .opt_num("SalarioDiarioIntegrado", r.salario_diario_integrado.as_ref())
        .req("ClaveEntFed", &r.clave_ent_fed);
    if r.subcontratacion.is_empty() {
        e.vacio(etiqueta);
    } else {
        e.abrir(etiqueta);
        for s in &r.subcontratacion {
            e.vacio(
                Etiqueta::new("nomina12:SubContratacion")
                    .req("RfcLabora", &s.rfc_labora)
                    .num("PorcentajeTiempo", &s.porcentaje_tiempo),
            );
        }
        e.cerrar("nomina12:Receptor");
    }
    if let Some(p) = &n.percepciones {
        e.abrir(
            Etiqueta::new("nomina12:Percepciones")
                .opt_num("TotalSueldos", p.total_sueldos.as_ref())
                .opt_num("TotalSeparacionIndemnizacion", p.total_separacion_indemnizacion.as_ref())
                .opt_num("TotalJubilacionPensionRetiro", p.total_jubilacion_pension_retiro.as_ref())
                .num("TotalGravado", &p.total_gravado)
                .num("TotalExento", &p.total_exento),
        );
        for percepcion in &p.percepciones {
            let etiqueta = Etiqueta::new("nomina12:Percepcion")
                .req("TipoPercepcion", &percepcion.tipo_percepcion)
                .req("Clave", &percepcion.clave)
                .req("Concepto", &percepcion.concepto)
                .num("ImporteGravado", &percepcion.importe_gravado)
                .num("ImporteExento", &percepcion.importe_exento);
            if percepcion.acciones_o_titulos.is_none() && percepcion.horas_extra.is_empty() {
                e.vacio(etiqueta);
                continue;
            }
            e.abrir(etiqueta);
            if let Some(acciones) = &percepcion.acciones_o_titulos {
                e.vacio(
                    Etiqueta::new("nomina12:AccionesOTitulos")
                        .num("ValorMercado", &acciones.valor_mercado)
                        .num("PrecioAlOtorgarse", &acciones.precio_al_otorgarse),
                );
            }
            for horas in &percepcion.horas_extra {
                e.vacio(
                    Etiqueta::new("nomina12:HorasExtra")
                        .req("Dias", &horas.dias)
                        .req("TipoHoras", &horas.tipo_horas)
                        .req("HorasExtra", &horas.horas_extra)
                        .num("ImportePagado", &horas.importe_pagado),
                );
            }
            e.cerrar("nomina12:Percepcion");
        }
        if let Some(j) = &p.jubilacion_pension_retiro {
            e.vacio(
                Etiqueta::new("nomina12:JubilacionPensionRetiro")
                    .opt_num("TotalUnaExhibicion", j.total_una_exhibicion.as_ref())
                    .opt_num("TotalParcialidad", j.total_parcialidad.as_ref())
                    .opt_num("MontoDiario", j.monto_diario.as_ref())
                    .num("IngresoAcumulable", &j.ingreso_acumulable)
                    .num("IngresoNoAcumulable", &j.ingreso_no_acumulable),
            );
        }
        if let Some(s) = &p.separacion_indemnizacion {
            e.vacio(
                Etiqueta::new("nomina12:SeparacionIndemnizacion")
                    .num("TotalPagado", &s.total_pagado)
                    .req("NumAñosServicio", &s.num_anos_servicio)
                    .num("UltimoSueldoMensOrd", &s.ultimo_sueldo_mens_ord)
                    .num("IngresoAcumulable", &s.ingreso_acumulable)
                    .num("IngresoNoAcumulable", &s.ingreso_no_acumulable),
            );
        }
        e.cerrar("nomina12:Percepciones");
    }
    if let Some(d) = &n.deducciones {
        e.abrir(
            Etiqueta::new("nomina12:Deducciones")
                .opt_num("TotalOtrasDeducciones", d.total_otras_deducciones.as_ref())
                .opt_num("TotalImpuestosRetenidos", d.total_impuestos_retenidos.as_ref()),
        );
        for deduccion in &d.deducciones {
            e.vacio(
                Etiqueta::new("nomina12:Deduccion")
                    .req("TipoDeduccion", &deduccion.tipo_deduccion)
                    .req("Clave", &deduccion.clave)
                    .req("Concepto", &deduccion.concepto)
                    .num("Importe", &deduccion.importe),
            );
        }
        e.cerrar("nomina12:Deducciones");
    }
    if !n.otros_pagos.is_empty() {
        e.abrir(Etiqueta::new("nomina12:OtrosPagos"));
        for otro in &n.otros_pagos {
            let etiqueta = Etiqueta::new("nomina12:OtroPago")
                .req("TipoOtroPago", &otro.tipo_otro_pago)
                .req("Clave", &otro.clave)
                .req("Concepto", &otro.concepto)
                .num("Importe", &otro.importe);
            if otro.subsidio_al_empleo.is_none() && otro.compensacion_saldos_a_favor.is_none() {
                e.vacio(etiqueta);
                continue;
            }
            e.abrir(etiqueta);
            if let Some(subsidio) = &otro.subsidio_al_empleo {
                e.vacio(Etiqueta::new("nomina12:SubsidioAlEmpleo").num("SubsidioCausado", &subsidio.subsidio_causado));
            }
            if let Some(compensacion) = &otro.compensacion_saldos_a_favor {
                e.vacio(
                    Etiqueta::new("nomina12:CompensacionSaldosAFavor")
                        .num("SaldoAFavor", &compensacion.saldo_a_favor)
                        .req("Año", &compensacion.ano)
                        .num("RemanenteSalFav", &compensacion.remanente_sal_fav),
                );
            }
            e.cerrar("nomina12:OtroPago");
        }
        e.cerrar("nomina12:OtrosPagos");
    }
    if !n.incapacidades.is_empty() {
        e.abrir(Etiqueta::new("nomina12:Incapacidades"));
        for incapacidad in &n.incapacidades {
            e.vacio(
                Etiqueta::new("nomina12:Incapacidad")
                    .req("DiasIncapacidad", &incapacidad.dias_incapacidad)
                    .req("TipoIncapacidad", &incapacidad.tipo_incapacidad)
                    .opt_num("ImporteMonetario", incapacidad.importe_monetario.as_ref()),
            );
        }
        e.cerrar("nomina12:Incapacidades");
    }
    e.cerrar("nomina12:Nomina");
}
