//! Validation of a retention document against `retencionpagov2.xsd`, SAT's filling rules for
//! Retenciones 2.0 and the Servicios de Plataformas Tecnológicas 1.0 rules (SAT's SPT error
//! matrix, numbers given per rule). Every problem is returned at once as timbra-cfdi's
//! [`Problema`] `{regla, campo, mensaje}`, with a stable rule id and a Spanish message that
//! says what to fix.
//!
//! The model's types already enforce the catalogs, RFC and postal-code shapes, dates and
//! `NacionalidadR` ↔ `Nacional`/`Extranjero`; those rules are reported by
//! [`crate::construccion::construir`] when it reads the input (their ids are in [`REGLAS`]
//! too). [`validar`] checks what a typed document can still get wrong.

use rust_decimal::{Decimal, RoundingStrategy};
use timbra_cfdi::tipos::{RFC_EXTRANJERO, primer_caracter_no_xml};

pub use timbra_cfdi::validacion::Problema;

use crate::catalogos::{CveRetenc, EJERCICIOS};
use crate::model::*;

/// Every rule id this crate reports, with what it checks.
pub const REGLAS: &[(&str, &str)] = &[
    ("RET20_CVE_RETENC", "CveRetenc está en c_CveRetenc"),
    ("RET20_DESC_RETENC", "CveRetenc 25 (Otro tipo de retenciones) requiere DescRetenc"),
    ("RET20_FOLIO_INT", "FolioInt: 1 a 20 letras o dígitos"),
    ("RET20_TEXTO", "nombres, DescRetenc y NumRegIdTribR: largo del esquema y caracteres que XML admite"),
    ("RET20_LUGAR_EXP", "LugarExpRetenc es un código postal de 5 dígitos"),
    ("RET20_TIPO_RELACION", "CfdiRetenRelacionados/@TipoRelacion está en c_TipoRelacion"),
    ("RET20_UUID_RELACIONADO", "CfdiRetenRelacionados/@UUID es un folio fiscal"),
    ("RET20_NACIONALIDAD", "NacionalidadR es Nacional o Extranjero"),
    ("RET20_RECEPTOR_RFC", "el receptor Nacional lleva un RfcR válido que no es el genérico extranjero"),
    ("RET20_RECEPTOR_EXTRANJERO", "el receptor Extranjero no lleva RfcR, CurpR ni DomicilioFiscalR"),
    ("RET20_DOMICILIO_FISCAL_R", "el receptor Nacional lleva DomicilioFiscalR de 5 dígitos"),
    ("RET20_CURP", "CurpR tiene la forma de tdCFDI t_CURP"),
    ("RET20_MES", "MesIni y MesFin son meses 01 a 12 (c_Periodo)"),
    ("RET20_PERIODO_MESES", "MesIni no es posterior a MesFin"),
    ("RET20_EJERCICIO", "Ejercicio está en c_Ejercicio y no es posterior al año de FechaExp"),
    ("RET20_IMPORTE", "importes de Totales: no negativos, 18 enteros y 2 decimales a lo más (t_ImporteMXN)"),
    ("RET20_MONTO_TOT_OPERACION", "MontoTotOperacion = MontoTotGrav + MontoTotExent"),
    ("RET20_MONTO_TOT_RET", "MontoTotRet = suma de ImpRetenidos/@MontoRet"),
    ("RET20_IMPUESTO_RET", "ImpuestoRet está en c_Impuesto"),
    ("RET20_TIPO_PAGO_RET", "TipoPagoRet está en c_TipoPagoRet"),
    ("RET20_PT_CVE_RETENC", "SPT102: con Plataformas Tecnológicas CveRetenc es 26"),
    ("RET20_PT_DESC_RETENC", "SPT103: con Plataformas Tecnológicas no se registra DescRetenc"),
    ("RET20_PT_RECEPTOR", "SPT104: con Plataformas Tecnológicas el receptor es Nacional"),
    ("RET20_PT_PERIODO", "SPT106: con Plataformas Tecnológicas MesIni = MesFin"),
    ("RET20_PT_MONTO_TOT_OPERACION", "SPT108: MontoTotOperacion = MonTotServSIVA"),
    ("RET20_PT_MONTO_TOT_GRAV", "SPT109: MontoTotGrav = MontoTotOperacion"),
    ("RET20_PT_MONTO_TOT_EXENT", "SPT110: MontoTotExent = 0"),
    ("RET20_PT_NUM_SERV", "SPT116: NumServ = número de DetallesDelServicio (al menos uno)"),
    ("RET20_PT_MON_TOT_SERV", "SPT117: MonTotServSIVA = suma de PrecioServSinIVA"),
    ("RET20_PT_TOTAL_IVA_TRASLADADO", "SPT118: TotalIVATrasladado = suma de ImpuestosTrasladadosdelServicio/@Importe"),
    ("RET20_PT_DIF_IVA", "SPT121: DifIVAEntregadoPrestServ = TotalIVATrasladado − TotalIVARetenido"),
    ("RET20_PT_USO_PLATAFORMA", "SPT122: MonTotalporUsoPlataforma = suma de ComisionDelServicio/@Importe"),
    (
        "RET20_PT_CONTRIBUCION",
        "SPT123: MonTotalContribucionGubernamental existe con ContribucionGubernamental y es la suma de ImpContrib",
    ),
    ("RET20_PT_FECHA_SERV", "SPT128: FechaServ es una fecha del mes MesIni del Ejercicio"),
    ("RET20_PT_BASE", "SPT129: ImpuestosTrasladadosdelServicio/@Base = PrecioServSinIVA"),
    ("RET20_PT_IMPORTE_TRASLADO", "SPT130: Importe = Base × TasaCuota, redondeado a los decimales del Importe"),
    ("RET20_PT_COMISION", "SPT132: ComisionDelServicio/@Importe es mayor que cero"),
    ("RET20_PT_IMPORTE", "importes del complemento: no negativos, 18 enteros y 6 decimales a lo más (t_Importe)"),
    ("RET20_PT_PORCENTAJE", "ComisionDelServicio/@Porcentaje entre 0.001 y 1.0 con 3 decimales a lo más"),
    ("RET20_PT_RFC_TERCERO", "RFCTerceroAutorizado es el RFC de una persona física (t_RFC_PF)"),
    ("RET20_PT_PERIODICIDAD", "Periodicidad está en c_Periodicidad"),
    ("RET20_PT_FORMA_PAGO_SERV", "FormaPagoServ está en c_FormaPagoServ"),
    ("RET20_PT_TIPO_DE_SERV", "TipoDeServ está en c_TipoDeServ"),
    ("RET20_PT_SUB_TIP_SERV", "SubTipServ está en c_SubTipoServ"),
    ("RET20_PT_IMPUESTO", "ImpuestosTrasladadosdelServicio/@Impuesto está en c_TipoImpuesto"),
    ("RET20_PT_TASA_CUOTA", "TasaCuota está en c_TasaCuota"),
    ("RET20_PT_ENTIDAD", "EntidadDondePagaLaContribucion está en c_EntidadesFederativas"),
];

/// Collects problems.
#[derive(Default)]
pub(crate) struct Problemas(pub(crate) Vec<Problema>);

impl Problemas {
    pub(crate) fn agregar(&mut self, regla: &'static str, campo: impl Into<String>, mensaje: impl Into<String>) {
        self.0.push(Problema { regla, campo: campo.into(), mensaje: mensaje.into() });
    }

    /// A free text: not empty, within `minimo..=maximo` characters, only characters XML 1.0
    /// can carry (RET20_TEXTO).
    pub(crate) fn texto(&mut self, campo: &str, texto: &str, maximo: usize) {
        if let Some((posicion, caracter)) = primer_caracter_no_xml(texto) {
            self.agregar(
                "RET20_TEXTO",
                campo,
                format!(
                    "{campo} contiene el carácter de control U+{:04X} en la posición {posicion}, que un documento XML no puede llevar; quítalo",
                    u32::from(caracter)
                ),
            );
        }
        let largo = texto.trim().chars().count();
        if largo == 0 {
            self.agregar("RET20_TEXTO", campo, format!("{campo} es obligatorio y no puede estar vacío"));
        } else if texto.chars().count() > maximo {
            self.agregar(
                "RET20_TEXTO",
                campo,
                format!("{campo} tiene {} caracteres; el máximo es {maximo}", texto.chars().count()),
            );
        }
    }

    /// An amount of its schema: not negative, at most 18 integer digits and `decimales`
    /// decimals.
    pub(crate) fn importe(&mut self, regla: &'static str, campo: &str, valor: Decimal, decimales: u32) {
        if valor.is_sign_negative() && !valor.is_zero() {
            self.agregar(regla, campo, format!("{campo} = {valor} no puede ser negativo"));
        }
        if valor.scale() > decimales {
            self.agregar(
                regla,
                campo,
                format!("{campo} = {valor} tiene {} decimales; el esquema admite {decimales} a lo más", valor.scale()),
            );
        }
        if valor.abs() >= Decimal::from(1_000_000_000_000_000_000_i64) {
            self.agregar(regla, campo, format!("{campo} = {valor} excede los 18 dígitos enteros de un importe"));
        }
    }
}

/// Validates everything at once; an empty list means the document follows every rule this
/// crate knows.
pub fn validar(r: &Retenciones) -> Vec<Problema> {
    let mut p = Problemas::default();
    encabezado(&mut p, r);
    receptor(&mut p, r);
    periodo(&mut p, r);
    totales(&mut p, r);
    if let Some(plataformas) = r.plataformas_tecnologicas() {
        validar_plataformas(&mut p, r, plataformas);
    }
    p.0
}

fn encabezado(p: &mut Problemas, r: &Retenciones) {
    if let Some(folio) = &r.folio_int {
        let largo = folio.chars().count();
        if !(1..=20).contains(&largo) || !folio.chars().all(|c| c.is_ascii_alphanumeric()) {
            p.agregar(
                "RET20_FOLIO_INT",
                "FolioInt",
                format!(
                    "FolioInt «{folio}» debe tener de 1 a 20 letras (sin acentos) o dígitos, sin espacios ni signos"
                ),
            );
        }
    }
    match (&r.desc_retenc, r.cve_retenc) {
        (None, CveRetenc::Otro) => p.agregar(
            "RET20_DESC_RETENC",
            "DescRetenc",
            "CveRetenc 25 (Otro tipo de retenciones) requiere DescRetenc: describe la retención",
        ),
        (Some(desc), _) => p.texto("DescRetenc", desc, 100),
        (None, _) => {}
    }
    p.texto("Emisor.NomDenRazSocE", &r.emisor.nom_den_raz_soc_e, 254);
    if let Some(relacionados) = &r.cfdi_reten_relacionados
        && !timbra_cfdi::timbre::uuid_valido(&relacionados.uuid)
    {
        p.agregar(
            "RET20_UUID_RELACIONADO",
            "CfdiRetenRelacionados.UUID",
            format!(
                "«{}» no es un folio fiscal: escribe el UUID del comprobante de retenciones relacionado (8-4-4-4-12 dígitos hexadecimales)",
                relacionados.uuid
            ),
        );
    }
}

fn receptor(p: &mut Problemas, r: &Retenciones) {
    match &r.receptor {
        Receptor::Nacional(n) => {
            if n.rfc_r.as_str() == RFC_EXTRANJERO {
                p.agregar(
                    "RET20_RECEPTOR_RFC",
                    "Receptor.Nacional.RfcR",
                    format!("{RFC_EXTRANJERO} es el RFC genérico de extranjeros: para un residente en el extranjero usa NacionalidadR Extranjero"),
                );
            }
            p.texto("Receptor.Nacional.NomDenRazSocR", &n.nom_den_raz_soc_r, 254);
            if let Some(curp) = &n.curp_r
                && !curp_valida(curp)
            {
                p.agregar(
                    "RET20_CURP",
                    "Receptor.Nacional.CurpR",
                    format!("«{curp}» no es una CURP: 18 caracteres, 4 letras, fecha AAMMDD, H/M/X, entidad, 3 consonantes y 2 caracteres finales"),
                );
            }
        }
        Receptor::Extranjero(x) => {
            p.texto("Receptor.Extranjero.NomDenRazSocR", &x.nom_den_raz_soc_r, 300);
            if let Some(num) = &x.num_reg_id_trib_r {
                p.texto("Receptor.Extranjero.NumRegIdTribR", num, 20);
            }
        }
    }
}

/// tdCFDI `t_CURP` without the state list: `[A-Z][AEIOUX][A-Z]{2}` date `[MHX]` `[A-Z]{2}`
/// `[B-DF-HJ-NP-TV-Z]{3}` `[0-9A-Z][0-9]`.
fn curp_valida(curp: &str) -> bool {
    let c: Vec<char> = curp.chars().collect();
    let letra = |x: char| x.is_ascii_uppercase();
    let digito = |x: char| x.is_ascii_digit();
    let consonante = |x: char| letra(x) && !"AEIOU".contains(x);
    c.len() == 18
        && letra(c[0])
        && "AEIOUX".contains(c[1])
        && letra(c[2])
        && letra(c[3])
        && c[4..10].iter().all(|x| digito(*x))
        && "MHX".contains(c[10])
        && letra(c[11])
        && letra(c[12])
        && c[13..16].iter().all(|x| consonante(*x))
        && (digito(c[16]) || letra(c[16]))
        && digito(c[17])
}

fn periodo(p: &mut Problemas, r: &Retenciones) {
    let periodo = r.periodo;
    if periodo.mes_ini > periodo.mes_fin {
        p.agregar(
            "RET20_PERIODO_MESES",
            "Periodo.MesIni",
            format!(
                "MesIni {} es posterior a MesFin {}: el periodo va de MesIni a MesFin dentro de un mismo Ejercicio",
                periodo.mes_ini.codigo(),
                periodo.mes_fin.codigo()
            ),
        );
    }
    if !EJERCICIOS.contains(&periodo.ejercicio) {
        p.agregar(
            "RET20_EJERCICIO",
            "Periodo.Ejercicio",
            format!(
                "Ejercicio {} no está en c_Ejercicio: debe estar entre {} y {}",
                periodo.ejercicio,
                EJERCICIOS.start(),
                EJERCICIOS.end()
            ),
        );
    } else if i32::from(periodo.ejercicio) > r.fecha_exp.year() {
        p.agregar(
            "RET20_EJERCICIO",
            "Periodo.Ejercicio",
            format!(
                "Ejercicio {} es posterior al año de FechaExp ({}): no se informan retenciones de ejercicios futuros",
                periodo.ejercicio,
                r.fecha_exp.year()
            ),
        );
    }
}

fn totales(p: &mut Problemas, r: &Retenciones) {
    let t = &r.totales;
    for (campo, valor) in [
        ("Totales.MontoTotOperacion", Some(t.monto_tot_operacion)),
        ("Totales.MontoTotGrav", Some(t.monto_tot_grav)),
        ("Totales.MontoTotExent", Some(t.monto_tot_exent)),
        ("Totales.MontoTotRet", Some(t.monto_tot_ret)),
        ("Totales.UtilidadBimestral", t.utilidad_bimestral),
        ("Totales.ISRCorrespondiente", t.isr_correspondiente),
    ] {
        if let Some(valor) = valor {
            p.importe("RET20_IMPORTE", campo, valor, 2);
        }
    }
    for (i, imp) in t.imp_retenidos.iter().enumerate() {
        if let Some(base) = imp.base_ret {
            p.importe("RET20_IMPORTE", &format!("ImpRetenidos[{i}].BaseRet"), base, 2);
        }
        p.importe("RET20_IMPORTE", &format!("ImpRetenidos[{i}].MontoRet"), imp.monto_ret, 2);
    }
    // Three t_ImporteMXN amounts: the sum of two of them is exact, so SAT's rule is equality.
    let suma = t.monto_tot_grav + t.monto_tot_exent;
    if t.monto_tot_operacion != suma {
        p.agregar(
            "RET20_MONTO_TOT_OPERACION",
            "Totales.MontoTotOperacion",
            format!(
                "MontoTotOperacion {} debe ser MontoTotGrav {} + MontoTotExent {} = {suma}",
                t.monto_tot_operacion, t.monto_tot_grav, t.monto_tot_exent
            ),
        );
    }
    if !t.imp_retenidos.is_empty() {
        let suma: Decimal = t.imp_retenidos.iter().map(|imp| imp.monto_ret).sum();
        if t.monto_tot_ret != suma {
            p.agregar(
                "RET20_MONTO_TOT_RET",
                "Totales.MontoTotRet",
                format!("MontoTotRet {} debe ser la suma de los MontoRet de ImpRetenidos: {suma}", t.monto_tot_ret),
            );
        }
    }
}

fn validar_plataformas(p: &mut Problemas, r: &Retenciones, s: &ServiciosPlataformasTecnologicas) {
    const C: &str = "Complemento.ServiciosPlataformasTecnologicas";
    if r.cve_retenc != CveRetenc::PlataformasTecnologicas {
        p.agregar(
            "RET20_PT_CVE_RETENC",
            "CveRetenc",
            format!(
                "CveRetenc {} no corresponde al complemento Servicios de Plataformas Tecnológicas: usa 26",
                r.cve_retenc.codigo()
            ),
        );
    }
    if r.desc_retenc.is_some() {
        p.agregar(
            "RET20_PT_DESC_RETENC",
            "DescRetenc",
            "con el complemento Servicios de Plataformas Tecnológicas no se registra DescRetenc: quítalo",
        );
    }
    if !matches!(r.receptor, Receptor::Nacional(_)) {
        p.agregar(
            "RET20_PT_RECEPTOR",
            "Receptor.NacionalidadR",
            "el complemento Servicios de Plataformas Tecnológicas solo existe con un receptor Nacional",
        );
    }
    if r.periodo.mes_ini != r.periodo.mes_fin {
        p.agregar(
            "RET20_PT_PERIODO",
            "Periodo.MesFin",
            format!(
                "con Plataformas Tecnológicas el periodo es de un mes: MesFin {} debe ser igual a MesIni {}",
                r.periodo.mes_fin.codigo(),
                r.periodo.mes_ini.codigo()
            ),
        );
    }
    let t = &r.totales;
    if t.monto_tot_operacion != s.mon_tot_serv_siva {
        p.agregar(
            "RET20_PT_MONTO_TOT_OPERACION",
            "Totales.MontoTotOperacion",
            format!(
                "MontoTotOperacion {} debe ser igual a MonTotServSIVA {} del complemento",
                t.monto_tot_operacion, s.mon_tot_serv_siva
            ),
        );
    }
    if t.monto_tot_grav != t.monto_tot_operacion {
        p.agregar(
            "RET20_PT_MONTO_TOT_GRAV",
            "Totales.MontoTotGrav",
            format!("MontoTotGrav {} debe ser igual a MontoTotOperacion {}", t.monto_tot_grav, t.monto_tot_operacion),
        );
    }
    if !t.monto_tot_exent.is_zero() {
        p.agregar(
            "RET20_PT_MONTO_TOT_EXENT",
            "Totales.MontoTotExent",
            format!("MontoTotExent {} debe ser 0.00 con Plataformas Tecnológicas", t.monto_tot_exent),
        );
    }
    let cuenta = s.servicios.len();
    if s.servicios.is_empty() || usize::try_from(s.num_serv).ok() != Some(cuenta) {
        p.agregar(
            "RET20_PT_NUM_SERV",
            format!("{C}.NumServ"),
            format!("NumServ {} debe ser el número de DetallesDelServicio ({cuenta}), al menos uno", s.num_serv),
        );
    }
    for (campo, valor) in [
        ("MonTotServSIVA", Some(s.mon_tot_serv_siva)),
        ("TotalIVATrasladado", Some(s.total_iva_trasladado)),
        ("TotalIVARetenido", Some(s.total_iva_retenido)),
        ("TotalISRRetenido", Some(s.total_isr_retenido)),
        ("DifIVAEntregadoPrestServ", Some(s.dif_iva_entregado_prest_serv)),
        ("MonTotalporUsoPlataforma", Some(s.mon_totalpor_uso_plataforma)),
        ("MonTotalContribucionGubernamental", s.mon_total_contribucion_gubernamental),
    ] {
        if let Some(valor) = valor {
            p.importe("RET20_PT_IMPORTE", &format!("{C}.{campo}"), valor, 6);
        }
    }
    let precios: Decimal = s.servicios.iter().map(|d| d.precio_serv_sin_iva).sum();
    if s.mon_tot_serv_siva != precios {
        p.agregar(
            "RET20_PT_MON_TOT_SERV",
            format!("{C}.MonTotServSIVA"),
            format!(
                "MonTotServSIVA {} debe ser la suma de PrecioServSinIVA de los servicios: {precios}",
                s.mon_tot_serv_siva
            ),
        );
    }
    let trasladados: Decimal =
        s.servicios.iter().filter_map(|d| d.impuestos_trasladados_del_servicio.as_ref()).map(|i| i.importe).sum();
    if s.total_iva_trasladado != trasladados {
        p.agregar(
            "RET20_PT_TOTAL_IVA_TRASLADADO",
            format!("{C}.TotalIVATrasladado"),
            format!(
                "TotalIVATrasladado {} debe ser la suma de los Importe de ImpuestosTrasladadosdelServicio: {trasladados}",
                s.total_iva_trasladado
            ),
        );
    }
    let diferencia = s.total_iva_trasladado - s.total_iva_retenido;
    if s.dif_iva_entregado_prest_serv != diferencia {
        p.agregar(
            "RET20_PT_DIF_IVA",
            format!("{C}.DifIVAEntregadoPrestServ"),
            format!(
                "DifIVAEntregadoPrestServ {} debe ser TotalIVATrasladado {} − TotalIVARetenido {} = {diferencia}",
                s.dif_iva_entregado_prest_serv, s.total_iva_trasladado, s.total_iva_retenido
            ),
        );
    }
    let comisiones: Decimal =
        s.servicios.iter().filter_map(|d| d.comision_del_servicio.as_ref()).map(|c| c.importe).sum();
    if s.mon_totalpor_uso_plataforma != comisiones {
        p.agregar(
            "RET20_PT_USO_PLATAFORMA",
            format!("{C}.MonTotalporUsoPlataforma"),
            format!(
                "MonTotalporUsoPlataforma {} debe ser la suma de los Importe de ComisionDelServicio: {comisiones}",
                s.mon_totalpor_uso_plataforma
            ),
        );
    }
    let contribuciones: Vec<Decimal> =
        s.servicios.iter().filter_map(|d| d.contribucion_gubernamental.as_ref()).map(|c| c.imp_contrib).collect();
    match (s.mon_total_contribucion_gubernamental, contribuciones.is_empty()) {
        (None, false) => p.agregar(
            "RET20_PT_CONTRIBUCION",
            format!("{C}.MonTotalContribucionGubernamental"),
            "hay ContribucionGubernamental en los servicios: registra MonTotalContribucionGubernamental con la suma de ImpContrib",
        ),
        (Some(total), _) if total != contribuciones.iter().copied().sum::<Decimal>() => p.agregar(
            "RET20_PT_CONTRIBUCION",
            format!("{C}.MonTotalContribucionGubernamental"),
            format!(
                "MonTotalContribucionGubernamental {total} debe ser la suma de ImpContrib: {}",
                contribuciones.iter().copied().sum::<Decimal>()
            ),
        ),
        _ => {}
    }
    for (i, d) in s.servicios.iter().enumerate() {
        let campo = format!("{C}.Servicios[{i}]");
        if d.fecha_serv.year() != i32::from(r.periodo.ejercicio)
            || d.fecha_serv.month() as u8 != r.periodo.mes_ini.numero()
        {
            p.agregar(
                "RET20_PT_FECHA_SERV",
                format!("{campo}.FechaServ"),
                format!(
                    "FechaServ {} no está en el periodo: debe ser del mes {} del ejercicio {}",
                    formato_fecha(d.fecha_serv),
                    r.periodo.mes_ini.codigo(),
                    r.periodo.ejercicio
                ),
            );
        }
        p.importe("RET20_PT_IMPORTE", &format!("{campo}.PrecioServSinIVA"), d.precio_serv_sin_iva, 6);
        if let Some(rfc) = &d.rfc_tercero_autorizado
            && rfc.as_str().chars().count() != 13
        {
            p.agregar(
                "RET20_PT_RFC_TERCERO",
                format!("{campo}.RFCTerceroAutorizado"),
                format!("RFCTerceroAutorizado {rfc} debe ser el RFC de una persona física (13 caracteres)"),
            );
        }
        if let Some(imp) = &d.impuestos_trasladados_del_servicio {
            p.importe("RET20_PT_IMPORTE", &format!("{campo}.ImpuestosTrasladadosdelServicio.Base"), imp.base, 6);
            p.importe("RET20_PT_IMPORTE", &format!("{campo}.ImpuestosTrasladadosdelServicio.Importe"), imp.importe, 6);
            if imp.base <= Decimal::ZERO {
                p.agregar(
                    "RET20_PT_IMPORTE",
                    format!("{campo}.ImpuestosTrasladadosdelServicio.Base"),
                    "Base debe ser mayor que cero (mínimo 0.000001)",
                );
            }
            if imp.base != d.precio_serv_sin_iva {
                p.agregar(
                    "RET20_PT_BASE",
                    format!("{campo}.ImpuestosTrasladadosdelServicio.Base"),
                    format!("Base {} debe ser igual a PrecioServSinIVA {}", imp.base, d.precio_serv_sin_iva),
                );
            }
            let decimales = imp.importe.scale().max(2);
            let esperado = (imp.base * imp.tasa_cuota.valor())
                .round_dp_with_strategy(decimales, RoundingStrategy::MidpointAwayFromZero);
            if imp.importe != esperado {
                p.agregar(
                    "RET20_PT_IMPORTE_TRASLADO",
                    format!("{campo}.ImpuestosTrasladadosdelServicio.Importe"),
                    format!(
                        "Importe {} debe ser Base {} × TasaCuota {} = {esperado}",
                        imp.importe,
                        imp.base,
                        imp.tasa_cuota.codigo()
                    ),
                );
            }
        }
        if let Some(c) = &d.contribucion_gubernamental {
            p.importe("RET20_PT_IMPORTE", &format!("{campo}.ContribucionGubernamental.ImpContrib"), c.imp_contrib, 6);
        }
        if let Some(c) = &d.comision_del_servicio {
            p.importe("RET20_PT_IMPORTE", &format!("{campo}.ComisionDelServicio.Importe"), c.importe, 6);
            if c.importe <= Decimal::ZERO {
                p.agregar(
                    "RET20_PT_COMISION",
                    format!("{campo}.ComisionDelServicio.Importe"),
                    "el Importe de la comisión por uso de la plataforma debe ser mayor que cero",
                );
            }
            if let Some(base) = c.base {
                p.importe("RET20_PT_IMPORTE", &format!("{campo}.ComisionDelServicio.Base"), base, 6);
                if base <= Decimal::ZERO {
                    p.agregar(
                        "RET20_PT_IMPORTE",
                        format!("{campo}.ComisionDelServicio.Base"),
                        "Base de la comisión debe ser mayor que cero (mínimo 0.000001)",
                    );
                }
            }
            if let Some(porcentaje) = c.porcentaje
                && (porcentaje < Decimal::new(1, 3) || porcentaje > Decimal::ONE || porcentaje.scale() > 3)
            {
                p.agregar(
                    "RET20_PT_PORCENTAJE",
                    format!("{campo}.ComisionDelServicio.Porcentaje"),
                    format!(
                        "Porcentaje {porcentaje} debe estar entre 0.001 y 1.0 con 3 decimales a lo más (0.150 es 15%)"
                    ),
                );
            }
        }
    }
}
