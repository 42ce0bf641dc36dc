//! Rules the Guía de llenado of the complement sets on the comprobante that carries it, and
//! the PAC's Nómina 1.2 matrix (revision E, in force from 2026-01-01) as far as a receipt built
//! here can break it. Rule names carry the matrix number (`NOM44`) where
//! PAYROLL_2026.md §6 cites one, a descriptive name otherwise.

use rust_decimal::Decimal;

use super::*;

/// Revision E limits on `SubsidioAlEmpleo/@SubsidioCausado` (NOM101, NOM108). SAT moves them
/// when the subsidy changes (they were 407.02 and 13.39 until 2025), so they are kept in one
/// place; [`LimitesSubsidio::REVISION_E`] is what [`Comprobante`] validation applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitesSubsidio {
    /// Most SubsidioCausado when NumDiasPagados ≤ 31 (NOM101).
    pub hasta_31_dias: Decimal,
    /// Most SubsidioCausado per day paid when NumDiasPagados > 31 (NOM108).
    pub por_dia: Decimal,
}

impl LimitesSubsidio {
    /// Revision E: 628.00 up to 31 days, 20.66 per day beyond.
    pub const REVISION_E: Self = Self {
        hasta_31_dias: Decimal::from_parts(62800, 0, 0, false, 2),
        por_dia: Decimal::from_parts(2066, 0, 0, false, 2),
    };

    /// The most SubsidioCausado a receipt of `dias` days paid may report.
    pub fn maximo(&self, dias: Decimal) -> Decimal {
        if dias <= Decimal::from(31) { self.hasta_31_dias } else { self.por_dia * dias }
    }
}

/// TipoContrato values that require the employer's RegistroPatronal (NOM42): 01–08.
fn contrato_con_registro(tipo_contrato: &str) -> bool {
    matches!(tipo_contrato, "01" | "02" | "03" | "04" | "05" | "06" | "07" | "08")
}

/// Days since 0000-03-01 of an `AAAA-MM-DD` date (Hinnant's `days_from_civil`); `None` when
/// the text is not a calendar date.
fn dia_civil(fecha: &str) -> Option<i64> {
    let mut partes = fecha.get(..10)?.split('-');
    let (a, m, d): (i64, i64, i64) =
        (partes.next()?.parse().ok()?, partes.next()?.parse().ok()?, partes.next()?.parse().ok()?);
    let bisiesto = a % 4 == 0 && (a % 100 != 0 || a % 400 == 0);
    let dias_mes = [31, if bisiesto { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if fecha.len() != 10 || !(1..=12).contains(&m) || d < 1 || d > dias_mes[usize::try_from(m - 1).ok()?] {
        return None;
    }
    let a = if m <= 2 { a - 1 } else { a };
    let era = a.div_euclid(400);
    let anio_era = a - era * 400;
    let dia_anio = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let dia_era = anio_era * 365 + anio_era / 4 - anio_era / 100 + dia_anio;
    Some(era * 146_097 + dia_era)
}

/// Whole weeks of the labour relation up to the end of the paid period, both days counted:
/// the most `Antigüedad` in weeks may say (NOM54). `None` when a date is not a date or the
/// relation starts after the period ends.
pub fn semanas_de_antiguedad(fecha_inicio_rel_laboral: &str, fecha_final_pago: &str) -> Option<i64> {
    let dias = dia_civil(fecha_final_pago)? - dia_civil(fecha_inicio_rel_laboral)? + 1;
    (dias > 0).then_some(dias / 7)
}

/// `Antigüedad` as the guide's weeks form, `P{n}W`, from the start of the relation to the end
/// of the paid period.
pub fn antiguedad(fecha_inicio_rel_laboral: &str, fecha_final_pago: &str) -> Option<String> {
    semanas_de_antiguedad(fecha_inicio_rel_laboral, fecha_final_pago).map(|semanas| format!("P{semanas}W"))
}

/// Rules for a comprobante of tipo N (Guía de llenado del comprobante del recibo de pago de
/// nómina y su complemento, CFDI 4.0, and the revision E matrix).
pub(super) fn validar(v: &mut Validador<'_>, c: &Comprobante, tipo: Option<TipoDeComprobante>) {
    if !matches!(tipo, Some(TipoDeComprobante::Nomina)) {
        return;
    }
    if c.nominas().next().is_none() {
        v.problema(
            "TIMBRA_NOMINA_COMPLEMENTO",
            "Complemento",
            "un comprobante de nómina requiere el complemento Nómina 1.2",
        );
    }
    if c.receptor.uso_cfdi != "CN01" {
        v.problema("NOM12", "Receptor.UsoCFDI", "un recibo de nómina usa UsoCFDI CN01");
    }
    if c.receptor.regimen_fiscal_receptor != "605" {
        v.problema("NOM11", "Receptor.RegimenFiscalReceptor", "un recibo de nómina usa RegimenFiscalReceptor 605");
    }
    if c.moneda != "MXN" {
        v.problema("NOM1", "Moneda", "un recibo de nómina usa Moneda MXN");
    }
    if c.forma_pago.is_some() {
        v.problema("CFDI40103", "FormaPago", "no debe existir en un comprobante de nómina");
    }
    for nomina in c.nominas() {
        validar_nomina(v, nomina);
    }
}

fn validar_nomina(v: &mut Validador<'_>, n: &Nomina) {
    let r = &n.receptor;
    match (n.tipo_nomina.as_str(), r.periodicidad_pago.as_str()) {
        ("O", "99") => v.problema("NOM33", "Nomina.Receptor.PeriodicidadPago", "la nómina ordinaria (O) no usa 99"),
        ("E", p) if p != "99" => {
            v.problema("NOM34", "Nomina.Receptor.PeriodicidadPago", "la nómina extraordinaria (E) usa 99");
        }
        ("O" | "E", _) => {}
        (otro, _) => v.problema("NOMINA_TIPO", "Nomina.TipoNomina", format!("«{otro}» no es O ni E")),
    }
    match (dia_civil(&n.fecha_inicial_pago), dia_civil(&n.fecha_final_pago)) {
        (Some(inicio), Some(fin)) if inicio > fin => {
            v.problema("NOM35", "Nomina.FechaInicialPago", "FechaInicialPago debe ser menor o igual a FechaFinalPago");
        }
        (Some(_), Some(_)) => {}
        _ => v.problema("NOM35", "Nomina.FechaInicialPago", "FechaInicialPago y FechaFinalPago son fechas AAAA-MM-DD"),
    }
    if n.total_percepciones.is_none() && n.total_otros_pagos.is_none() {
        v.problema("NOM31", "Nomina.TotalPercepciones", "se requiere TotalPercepciones o TotalOtrosPagos");
    }
    let registro = n.emisor.as_ref().and_then(|e| e.registro_patronal.as_deref());
    if contrato_con_registro(&r.tipo_contrato) {
        if registro.is_none() {
            v.problema(
                "NOM42",
                "Nomina.Emisor.RegistroPatronal",
                "se requiere el registro patronal cuando TipoContrato es 01 a 08",
            );
        }
        if !matches!(r.tipo_regimen.as_str(), "02" | "03" | "04") {
            v.problema("NOM57", "Nomina.Receptor.TipoRegimen", "TipoContrato 01 a 08 requiere TipoRegimen 02, 03 o 04");
        }
    } else if registro.is_some() {
        v.problema("NOM43", "Nomina.Emisor.RegistroPatronal", "no debe existir cuando TipoContrato es 09, 10 o 99");
    }
    if registro.is_some() {
        let requeridos = [
            ("NumSeguridadSocial", r.num_seguridad_social.is_some()),
            ("FechaInicioRelLaboral", r.fecha_inicio_rel_laboral.is_some()),
            ("Antigüedad", r.antiguedad.is_some()),
            ("RiesgoPuesto", r.riesgo_puesto.is_some()),
            ("SalarioDiarioIntegrado", r.salario_diario_integrado.is_some()),
        ];
        for (atributo, presente) in requeridos {
            if !presente {
                v.problema(
                    "NOM44",
                    format!("Nomina.Receptor.{atributo}"),
                    "se requiere cuando existe el registro patronal",
                );
            }
        }
    }
    if let (Some(inicio), Some(semanas)) = (
        r.fecha_inicio_rel_laboral.as_deref(),
        r.antiguedad.as_deref().and_then(|a| a.strip_prefix('P')).and_then(|a| a.strip_suffix('W')),
    ) {
        let maximo = semanas_de_antiguedad(inicio, &n.fecha_final_pago);
        if semanas.parse::<i64>().ok().zip(maximo).is_none_or(|(semanas, maximo)| semanas > maximo) {
            v.problema(
                "NOM54",
                "Nomina.Receptor.Antigüedad",
                format!(
                    "«P{semanas}W» excede las semanas completas entre FechaInicioRelLaboral y FechaFinalPago ({})",
                    maximo.map_or_else(|| "fechas inválidas".to_owned(), |m| m.to_string())
                ),
            );
        }
    }
    let valor = |numero: &Numero| numero.valor().unwrap_or_default();
    if let Some(p) = &n.percepciones {
        for (indice, percepcion) in p.percepciones.iter().enumerate() {
            if valor(&percepcion.importe_gravado).is_zero() && valor(&percepcion.importe_exento).is_zero() {
                v.problema(
                    "NOM110",
                    format!("Nomina.Percepciones.Percepcion[{indice}]"),
                    "ImporteGravado e ImporteExento no pueden ser ambos cero",
                );
            }
        }
    }
    let dias = valor(&n.num_dias_pagados);
    for (indice, otro) in n.otros_pagos.iter().enumerate() {
        let campo = format!("Nomina.OtrosPagos.OtroPago[{indice}]");
        match (otro.tipo_otro_pago.as_str(), &otro.subsidio_al_empleo) {
            ("002", None) => {
                v.problema("NOMINA_SUBSIDIO_NODO", campo, "TipoOtroPago 002 requiere el nodo SubsidioAlEmpleo")
            }
            ("002", Some(subsidio)) => {
                let causado = valor(&subsidio.subsidio_causado);
                if valor(&otro.importe) > causado {
                    v.problema("NOM107", campo.clone(), "Importe no puede exceder SubsidioCausado");
                }
                let maximo = LimitesSubsidio::REVISION_E.maximo(dias);
                if causado > maximo {
                    let regla = if dias <= Decimal::from(31) { "NOM101" } else { "NOM108" };
                    v.problema(regla, campo, format!("SubsidioCausado {causado} excede el límite de {maximo}"));
                }
            }
            (_, Some(_)) => {
                v.problema("NOMINA_SUBSIDIO_TIPO", campo, "SubsidioAlEmpleo sólo existe con TipoOtroPago 002")
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semanas_completas_contando_ambos_dias() {
        assert_eq!(antiguedad("2020-01-01", "2026-11-15").as_deref(), Some("P358W"));
        assert_eq!(semanas_de_antiguedad("2026-01-01", "2026-01-07"), Some(1));
        assert_eq!(semanas_de_antiguedad("2026-01-01", "2026-01-06"), Some(0));
        assert_eq!(semanas_de_antiguedad("2024-02-28", "2024-03-06"), Some(1));
        assert_eq!(semanas_de_antiguedad("2026-02-01", "2026-01-01"), None);
        assert_eq!(semanas_de_antiguedad("2026-02-30", "2026-03-01"), None);
        assert_eq!(semanas_de_antiguedad("2026-1-01", "2026-03-01"), None);
    }

    fn reglas(c: &Comprobante) -> Vec<&'static str> {
        let informe = crate::validacion::validar(c, &crate::catalogos::SinCatalogos);
        informe.problemas.iter().map(|p| p.regla).collect()
    }

    fn nomina(c: &mut Comprobante) -> &mut Nomina {
        c.complementos
            .iter_mut()
            .find_map(|complemento| match complemento {
                Complemento::Nomina(nomina) => Some(nomina.as_mut()),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn cada_regla_de_la_revision_e_se_informa() {
        let golden = crate::parser::parsear(include_str!("../../../tests/golden/N_nomina12.xml")).unwrap();
        assert!(reglas(&golden).is_empty(), "{:?}", reglas(&golden));
        type Caso = (&'static str, fn(&mut Comprobante));
        let casos: [Caso; 14] = [
            ("TIMBRA_NOMINA_COMPLEMENTO", |c| c.complementos.clear()),
            ("NOM1", |c| c.moneda = "USD".into()),
            ("NOM12", |c| c.receptor.uso_cfdi = "G03".into()),
            ("NOM11", |c| c.receptor.regimen_fiscal_receptor = "601".into()),
            ("CFDI40103", |c| c.forma_pago = Some("99".into())),
            ("NOM33", |c| nomina(c).receptor.periodicidad_pago = "99".into()),
            ("NOM35", |c| nomina(c).fecha_inicial_pago = "2026-11-16".into()),
            ("NOM42", |c| nomina(c).emisor = None),
            ("NOM43", |c| nomina(c).receptor.tipo_contrato = "09".into()),
            ("NOM44", |c| nomina(c).receptor.num_seguridad_social = None),
            ("NOM54", |c| nomina(c).receptor.antiguedad = Some("P359W".into())),
            ("NOM110", |c| {
                let p = nomina(c).percepciones.as_mut().unwrap();
                p.percepciones[1].importe_exento = Numero::from_texto("0.00");
            }),
            ("NOM101", |c| {
                nomina(c).otros_pagos[0].subsidio_al_empleo =
                    Some(SubsidioAlEmpleo { subsidio_causado: Numero::from_texto("628.01") });
            }),
            ("NOM107", |c| nomina(c).otros_pagos[0].importe = Numero::from_texto("0.01")),
        ];
        for (regla, romper) in casos {
            let mut c = golden.clone();
            romper(&mut c);
            assert!(reglas(&c).contains(&regla), "{regla}: {:?}", reglas(&c));
        }
    }

    #[test]
    fn limites_de_subsidio_de_la_revision_e() {
        let l = LimitesSubsidio::REVISION_E;
        assert_eq!(l.maximo(Decimal::from(15)).to_string(), "628.00");
        assert_eq!(l.maximo(Decimal::from(31)).to_string(), "628.00");
        assert_eq!(l.maximo(Decimal::from(40)).to_string(), "826.40");
    }
}
