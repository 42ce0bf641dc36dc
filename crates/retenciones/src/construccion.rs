//! Builder from a simple input: the JSON the API receives (issue 34), with SAT's names in
//! camelCase.
//!
//! ```json
//! {
//!   "folioInt": "R1",
//!   "lugarExpRetenc": "86000",
//!   "cveRetenc": "26",
//!   "receptor": {"nacionalidad": "Nacional", "rfcR": "XIQB891116QE4",
//!                "nomDenRazSocR": "…", "domicilioFiscalR": "86000"},
//!   "periodo": {"mesIni": "01", "mesFin": 1, "ejercicio": "2026"},
//!   "totales": {"montoTotOperacion": "1000.00", "montoTotGrav": "1000.00", "montoTotExent": "0"},
//!   "impRetenidos": [{"impuestoRet": "001", "montoRet": "10.00", "tipoPagoRet": "03"}],
//!   "complementos": {"plataformasTecnologicas": {"periodicidad": "04", "servicios": [ … ]}}
//! }
//! ```
//!
//! Amounts and periodo values are accepted as strings or JSON numbers (numbers are read from
//! their exact text, never through a float); catalog codes are strings. `impRetenidos` goes
//! under `Totales` in the XML. Derived totals may be omitted and are then computed:
//! `MontoTotRet` (Σ MontoRet) and, in Plataformas Tecnológicas, `NumServ`, `MonTotServSIVA`,
//! `TotalIVATrasladado`, `DifIVAEntregadoPrestServ`, `MonTotalporUsoPlataforma`,
//! `MonTotalContribucionGubernamental`, and `TotalIVARetenido`/`TotalISRRetenido` (Σ MontoRet
//! of the IVA/ISR `impRetenidos`). The emisor and `FechaExp` come from the caller (the
//! company's CSD and the clock), not from the input.
//!
//! [`construir`] reports every input problem at once with the rule ids of
//! [`crate::validacion`], then validates the document it built.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use timbra_cfdi::{CodigoPostal, Rfc};
use time::PrimitiveDateTime;

use crate::catalogos::*;
use crate::model::*;
use crate::validacion::{Problema, Problemas, validar};

/// A scalar given as a JSON string or number, kept as its exact text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Valor(pub String);

impl From<&str> for Valor {
    fn from(texto: &str) -> Self {
        Valor(texto.to_owned())
    }
}

impl<'de> Deserialize<'de> for Valor {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Valor;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("un texto o un número")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Valor, E> {
                Ok(Valor(v.to_owned()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Valor, E> {
                Ok(Valor(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Valor, E> {
                Ok(Valor(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Valor, E> {
                Err(E::custom("escribe los importes con decimales como texto, por ejemplo \"1000.50\""))
            }
            // serde_json with `arbitrary_precision` hands numbers over as a one-entry map
            // whose value is the number's exact text.
            fn visit_map<A: MapAccess<'de>>(self, mut mapa: A) -> Result<Valor, A::Error> {
                match mapa.next_entry::<String, String>()? {
                    Some((_, texto)) => Ok(Valor(texto)),
                    None => Err(de::Error::custom("se esperaba un texto o un número")),
                }
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// The input of [`construir`].
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntradaRetenciones {
    /// `FolioInt`.
    #[serde(default)]
    pub folio_int: Option<String>,
    /// `LugarExpRetenc`: postal code.
    pub lugar_exp_retenc: String,
    /// `CveRetenc` (c_CveRetenc).
    pub cve_retenc: String,
    /// `DescRetenc`.
    #[serde(default)]
    pub desc_retenc: Option<String>,
    /// `CfdiRetenRelacionados`.
    #[serde(default)]
    pub cfdi_reten_relacionados: Option<EntradaRelacionados>,
    /// `Receptor`.
    pub receptor: EntradaReceptor,
    /// `Periodo`.
    pub periodo: EntradaPeriodo,
    /// `Totales` (without its `ImpRetenidos`, which are top level).
    pub totales: EntradaTotales,
    /// `Totales/ImpRetenidos`.
    #[serde(default)]
    pub imp_retenidos: Vec<EntradaImpRetenido>,
    /// `Complemento`.
    #[serde(default)]
    pub complementos: EntradaComplementos,
}

/// `CfdiRetenRelacionados`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntradaRelacionados {
    /// `TipoRelacion` (c_TipoRelacion).
    pub tipo_relacion: String,
    /// `UUID`.
    #[serde(alias = "UUID")]
    pub uuid: String,
}

/// `Receptor`: `nacionalidad` chooses `Nacional` or `Extranjero`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntradaReceptor {
    /// `NacionalidadR`: `Nacional` or `Extranjero`.
    #[serde(alias = "nacionalidadR")]
    pub nacionalidad: String,
    /// `RfcR` (Nacional only).
    #[serde(default)]
    pub rfc_r: Option<String>,
    /// `NomDenRazSocR`.
    #[serde(default)]
    pub nom_den_raz_soc_r: Option<String>,
    /// `CurpR` (Nacional only).
    #[serde(default)]
    pub curp_r: Option<String>,
    /// `DomicilioFiscalR` (Nacional only).
    #[serde(default)]
    pub domicilio_fiscal_r: Option<String>,
    /// `NumRegIdTribR` (Extranjero only).
    #[serde(default)]
    pub num_reg_id_trib_r: Option<String>,
}

/// `Periodo`: months `"01"`/`1`, ejercicio `"2026"`/`2026`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntradaPeriodo {
    /// `MesIni`.
    pub mes_ini: Valor,
    /// `MesFin`.
    pub mes_fin: Valor,
    /// `Ejercicio`.
    pub ejercicio: Valor,
}

/// `Totales` attributes.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntradaTotales {
    /// `MontoTotOperacion`.
    pub monto_tot_operacion: Valor,
    /// `MontoTotGrav`.
    pub monto_tot_grav: Valor,
    /// `MontoTotExent`.
    pub monto_tot_exent: Valor,
    /// `MontoTotRet`: Σ MontoRet when absent.
    #[serde(default)]
    pub monto_tot_ret: Option<Valor>,
    /// `UtilidadBimestral`.
    #[serde(default)]
    pub utilidad_bimestral: Option<Valor>,
    /// `ISRCorrespondiente`.
    #[serde(default, alias = "ISRCorrespondiente")]
    pub isr_correspondiente: Option<Valor>,
}

/// `Totales/ImpRetenidos`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntradaImpRetenido {
    /// `BaseRet`.
    #[serde(default)]
    pub base_ret: Option<Valor>,
    /// `ImpuestoRet` (c_Impuesto: 001, 002, 003).
    #[serde(default)]
    pub impuesto_ret: Option<String>,
    /// `MontoRet`.
    pub monto_ret: Valor,
    /// `TipoPagoRet` (c_TipoPagoRet).
    pub tipo_pago_ret: String,
}

/// `Complemento`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntradaComplementos {
    /// Servicios de Plataformas Tecnológicas 1.0.
    #[serde(default)]
    pub plataformas_tecnologicas: Option<EntradaPlataformas>,
}

/// `ServiciosPlataformasTecnologicas`; totals computed when absent.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntradaPlataformas {
    /// `Periodicidad` (c_Periodicidad).
    pub periodicidad: String,
    /// `NumServ`.
    #[serde(default, rename = "numServ")]
    pub num_serv: Option<Valor>,
    /// `MonTotServSIVA`.
    #[serde(default, rename = "monTotServSIVA")]
    pub mon_tot_serv_siva: Option<Valor>,
    /// `TotalIVATrasladado`.
    #[serde(default, rename = "totalIVATrasladado")]
    pub total_iva_trasladado: Option<Valor>,
    /// `TotalIVARetenido`.
    #[serde(default, rename = "totalIVARetenido")]
    pub total_iva_retenido: Option<Valor>,
    /// `TotalISRRetenido`.
    #[serde(default, rename = "totalISRRetenido")]
    pub total_isr_retenido: Option<Valor>,
    /// `DifIVAEntregadoPrestServ`.
    #[serde(default, rename = "difIVAEntregadoPrestServ")]
    pub dif_iva_entregado_prest_serv: Option<Valor>,
    /// `MonTotalporUsoPlataforma`.
    #[serde(default, rename = "monTotalporUsoPlataforma")]
    pub mon_totalpor_uso_plataforma: Option<Valor>,
    /// `MonTotalContribucionGubernamental`.
    #[serde(default, rename = "monTotalContribucionGubernamental")]
    pub mon_total_contribucion_gubernamental: Option<Valor>,
    /// `Servicios/DetallesDelServicio`.
    pub servicios: Vec<EntradaServicio>,
}

/// `DetallesDelServicio`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntradaServicio {
    /// `FormaPagoServ` (c_FormaPagoServ).
    #[serde(rename = "formaPagoServ")]
    pub forma_pago_serv: String,
    /// `TipoDeServ` (c_TipoDeServ).
    #[serde(rename = "tipoDeServ")]
    pub tipo_de_serv: String,
    /// `SubTipServ` (c_SubTipoServ).
    #[serde(default, rename = "subTipServ")]
    pub sub_tip_serv: Option<String>,
    /// `RFCTerceroAutorizado`.
    #[serde(default, rename = "rfcTerceroAutorizado", alias = "RFCTerceroAutorizado")]
    pub rfc_tercero_autorizado: Option<String>,
    /// `FechaServ`: `AAAA-MM-DD`.
    #[serde(rename = "fechaServ")]
    pub fecha_serv: String,
    /// `PrecioServSinIVA`.
    #[serde(rename = "precioServSinIVA")]
    pub precio_serv_sin_iva: Valor,
    /// `ImpuestosTrasladadosdelServicio`.
    #[serde(default, rename = "impuestosTrasladadosdelServicio")]
    pub impuestos_trasladados_del_servicio: Option<EntradaTrasladoServicio>,
    /// `ContribucionGubernamental`.
    #[serde(default, rename = "contribucionGubernamental")]
    pub contribucion_gubernamental: Option<EntradaContribucion>,
    /// `ComisionDelServicio`.
    #[serde(default, rename = "comisionDelServicio")]
    pub comision_del_servicio: Option<EntradaComision>,
}

/// `ImpuestosTrasladadosdelServicio` (`TipoFactor` is always `Tasa`); `importe` is
/// `base × tasaCuota` rounded to 2 decimals when absent, `base` is `PrecioServSinIVA`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntradaTrasladoServicio {
    /// `Base`.
    #[serde(default)]
    pub base: Option<Valor>,
    /// `Impuesto` (c_TipoImpuesto).
    pub impuesto: String,
    /// `TasaCuota` (c_TasaCuota), e.g. `"0.160000"` or `"0.16"`.
    pub tasa_cuota: Valor,
    /// `Importe`.
    #[serde(default)]
    pub importe: Option<Valor>,
}

/// `ContribucionGubernamental`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntradaContribucion {
    /// `ImpContrib`.
    pub imp_contrib: Valor,
    /// `EntidadDondePagaLaContribucion` (c_EntidadesFederativas).
    pub entidad_donde_paga_la_contribucion: String,
}

/// `ComisionDelServicio`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntradaComision {
    /// `Base`.
    #[serde(default)]
    pub base: Option<Valor>,
    /// `Porcentaje`.
    #[serde(default)]
    pub porcentaje: Option<Valor>,
    /// `Importe`.
    pub importe: Valor,
}

/// Reads an amount in plain notation with at most `decimales` decimals (never rounded):
/// `regla` is reported otherwise. MXN amounts (`decimales` 2) are written with two decimals.
fn importe(p: &mut Problemas, regla: &'static str, campo: &str, valor: &Valor, decimales: u32) -> Option<Decimal> {
    let texto = valor.0.trim();
    let Some(mut numero) = crate::parser::decimal(texto) else {
        p.agregar(
            regla,
            campo,
            format!(
                "{campo} «{}» no es un importe: escribe dígitos con punto decimal opcional, p. ej. 1000.50",
                valor.0
            ),
        );
        return None;
    };
    if numero.scale() > decimales {
        p.agregar(regla, campo, format!("{campo} «{texto}» tiene más de {decimales} decimales; redondéalo"));
        return None;
    }
    if numero.abs() >= Decimal::from(1_000_000_000_000_000_000_i64) {
        p.agregar(regla, campo, format!("{campo} «{texto}» excede los 18 dígitos enteros de un importe"));
        return None;
    }
    if decimales == 2 {
        numero.rescale(2);
    }
    Some(numero)
}

fn codigo<T>(
    p: &mut Problemas,
    regla: &'static str,
    campo: &str,
    catalogo: &str,
    texto: &str,
    buscar: fn(&str) -> Option<T>,
) -> Option<T> {
    let encontrado = buscar(texto.trim());
    if encontrado.is_none() {
        p.agregar(regla, campo, format!("{campo} «{texto}» no está en el catálogo {catalogo}"));
    }
    encontrado
}

fn mes(p: &mut Problemas, campo: &str, valor: &Valor) -> Option<Mes> {
    let texto = valor.0.trim();
    let encontrado = if texto.len() <= 2 && !texto.is_empty() && texto.bytes().all(|b| b.is_ascii_digit()) {
        texto.parse().ok().and_then(Mes::desde_numero)
    } else {
        None
    };
    if encontrado.is_none() {
        p.agregar("RET20_MES", campo, format!("{campo} «{}» debe ser un mes de 1 a 12 (\"01\" a \"12\")", valor.0));
    }
    encontrado
}

/// Builds a retention document from `entrada`, for `emisor` and issued at `fecha_exp`
/// (`NoCertificado`, `Certificado` and `Sello` are left empty for [`crate::sello::sellar`]).
///
/// # Errors
/// Every problem of the input, then every rule [`validar`] finds in the document built.
pub fn construir(
    entrada: &EntradaRetenciones,
    emisor: Emisor,
    fecha_exp: PrimitiveDateTime,
) -> Result<Retenciones, Vec<Problema>> {
    let mut p = Problemas::default();
    let lugar = CodigoPostal::new(entrada.lugar_exp_retenc.trim()).ok();
    if lugar.is_none() {
        p.agregar(
            "RET20_LUGAR_EXP",
            "lugarExpRetenc",
            format!(
                "lugarExpRetenc «{}» debe ser el código postal de 5 dígitos del lugar de expedición",
                entrada.lugar_exp_retenc
            ),
        );
    }
    let cve =
        codigo(&mut p, "RET20_CVE_RETENC", "cveRetenc", "c_CveRetenc", &entrada.cve_retenc, CveRetenc::desde_codigo);
    let relacionados = entrada.cfdi_reten_relacionados.as_ref().and_then(|rel| {
        let tipo = codigo(
            &mut p,
            "RET20_TIPO_RELACION",
            "cfdiRetenRelacionados.tipoRelacion",
            "c_TipoRelacion",
            &rel.tipo_relacion,
            TipoRelacion::desde_codigo,
        )?;
        Some(CfdiRetenRelacionados { tipo_relacion: tipo, uuid: rel.uuid.trim().to_owned() })
    });
    let receptor = receptor(&mut p, &entrada.receptor);
    let mes_ini = mes(&mut p, "periodo.mesIni", &entrada.periodo.mes_ini);
    let mes_fin = mes(&mut p, "periodo.mesFin", &entrada.periodo.mes_fin);
    let ejercicio_texto = entrada.periodo.ejercicio.0.trim();
    let ejercicio = (ejercicio_texto.len() == 4 && ejercicio_texto.bytes().all(|b| b.is_ascii_digit()))
        .then(|| ejercicio_texto.parse::<u16>().ok())
        .flatten();
    if ejercicio.is_none() {
        p.agregar(
            "RET20_EJERCICIO",
            "periodo.ejercicio",
            format!(
                "periodo.ejercicio «{}» debe ser un año de cuatro dígitos, p. ej. 2026",
                entrada.periodo.ejercicio.0
            ),
        );
    }

    let t = &entrada.totales;
    let operacion = importe(&mut p, "RET20_IMPORTE", "totales.montoTotOperacion", &t.monto_tot_operacion, 2);
    let grav = importe(&mut p, "RET20_IMPORTE", "totales.montoTotGrav", &t.monto_tot_grav, 2);
    let exent = importe(&mut p, "RET20_IMPORTE", "totales.montoTotExent", &t.monto_tot_exent, 2);
    let utilidad =
        t.utilidad_bimestral.as_ref().map(|v| importe(&mut p, "RET20_IMPORTE", "totales.utilidadBimestral", v, 2));
    let isr =
        t.isr_correspondiente.as_ref().map(|v| importe(&mut p, "RET20_IMPORTE", "totales.isrCorrespondiente", v, 2));
    let mut imp_retenidos = Vec::new();
    let mut imp_completos = true;
    for (i, imp) in entrada.imp_retenidos.iter().enumerate() {
        let campo = |nombre: &str| format!("impRetenidos[{i}].{nombre}");
        let base = imp.base_ret.as_ref().map(|v| importe(&mut p, "RET20_IMPORTE", &campo("baseRet"), v, 2));
        let impuesto = imp.impuesto_ret.as_ref().map(|texto| {
            codigo(&mut p, "RET20_IMPUESTO_RET", &campo("impuestoRet"), "c_Impuesto", texto, Impuesto::desde_codigo)
        });
        let monto = importe(&mut p, "RET20_IMPORTE", &campo("montoRet"), &imp.monto_ret, 2);
        let tipo = codigo(
            &mut p,
            "RET20_TIPO_PAGO_RET",
            &campo("tipoPagoRet"),
            "c_TipoPagoRet",
            &imp.tipo_pago_ret,
            TipoPagoRet::desde_codigo,
        );
        match (base.presente(), impuesto.presente(), monto, tipo) {
            (Some(base_ret), Some(impuesto_ret), Some(monto_ret), Some(tipo_pago_ret)) => {
                imp_retenidos.push(ImpRetenidos { base_ret, impuesto_ret, monto_ret, tipo_pago_ret });
            }
            _ => imp_completos = false,
        }
    }
    let monto_tot_ret = match &t.monto_tot_ret {
        Some(valor) => importe(&mut p, "RET20_IMPORTE", "totales.montoTotRet", valor, 2),
        None => {
            let mut suma: Decimal = imp_retenidos.iter().map(|imp| imp.monto_ret).sum();
            suma.rescale(2);
            Some(suma)
        }
    };
    let retenido = |impuesto: Impuesto| -> Decimal {
        imp_retenidos.iter().filter(|imp| imp.impuesto_ret == Some(impuesto)).map(|imp| imp.monto_ret).sum()
    };
    let plataformas = entrada
        .complementos
        .plataformas_tecnologicas
        .as_ref()
        .map(|pt| plataformas(&mut p, pt, retenido(Impuesto::Iva), retenido(Impuesto::Isr)));

    let mut problemas = p;
    let (
        Some(lugar_exp_retenc),
        Some(cve_retenc),
        Some(receptor),
        Some(mes_ini),
        Some(mes_fin),
        Some(ejercicio),
        Some(monto_tot_operacion),
        Some(monto_tot_grav),
        Some(monto_tot_exent),
        Some(monto_tot_ret),
        Some(utilidad_bimestral),
        Some(isr_correspondiente),
        Some(plataformas),
        true,
        true,
    ) = (
        lugar,
        cve,
        receptor,
        mes_ini,
        mes_fin,
        ejercicio,
        operacion,
        grav,
        exent,
        monto_tot_ret,
        utilidad.presente(),
        isr.presente(),
        plataformas.presente(),
        imp_completos,
        entrada.cfdi_reten_relacionados.is_none() || relacionados.is_some(),
    )
    else {
        return Err(problemas.0);
    };
    if !problemas.0.is_empty() {
        return Err(problemas.0);
    }
    let retenciones = Retenciones {
        folio_int: entrada.folio_int.as_ref().map(|folio| folio.trim().to_owned()),
        sello: String::new(),
        no_certificado: String::new(),
        certificado: String::new(),
        fecha_exp,
        lugar_exp_retenc,
        cve_retenc,
        desc_retenc: entrada.desc_retenc.as_ref().map(|desc| desc.trim().to_owned()),
        cfdi_reten_relacionados: relacionados,
        emisor,
        receptor,
        periodo: Periodo { mes_ini, mes_fin, ejercicio },
        totales: Totales {
            monto_tot_operacion,
            monto_tot_grav,
            monto_tot_exent,
            monto_tot_ret,
            utilidad_bimestral,
            isr_correspondiente,
            imp_retenidos,
        },
        complementos: plataformas.map(|pt| Complemento::PlataformasTecnologicas(Box::new(pt))).into_iter().collect(),
        addenda: None,
    };
    problemas.0.extend(validar(&retenciones));
    if problemas.0.is_empty() { Ok(retenciones) } else { Err(problemas.0) }
}

fn receptor(p: &mut Problemas, r: &EntradaReceptor) -> Option<Receptor> {
    let nombre = r.nom_den_raz_soc_r.as_deref().map(str::trim).unwrap_or("").to_owned();
    match r.nacionalidad.trim() {
        "Nacional" => {
            let rfc = match r.rfc_r.as_deref().map(str::trim) {
                None | Some("") => {
                    p.agregar(
                        "RET20_RECEPTOR_RFC",
                        "receptor.rfcR",
                        "un receptor Nacional requiere rfcR: escribe el RFC del receptor",
                    );
                    None
                }
                Some(texto) => match Rfc::new(&texto.to_uppercase()) {
                    Ok(rfc) => Some(rfc),
                    Err(error) => {
                        p.agregar("RET20_RECEPTOR_RFC", "receptor.rfcR", format!("rfcR «{texto}»: {error}"));
                        None
                    }
                },
            };
            let domicilio = match r.domicilio_fiscal_r.as_deref().map(str::trim) {
                Some(texto) if CodigoPostal::new(texto).is_ok() => CodigoPostal::new(texto).ok(),
                Some(texto) => {
                    p.agregar(
                        "RET20_DOMICILIO_FISCAL_R",
                        "receptor.domicilioFiscalR",
                        format!("domicilioFiscalR «{texto}» debe ser el código postal de 5 dígitos del domicilio fiscal del receptor"),
                    );
                    None
                }
                None => {
                    p.agregar(
                        "RET20_DOMICILIO_FISCAL_R",
                        "receptor.domicilioFiscalR",
                        "un receptor Nacional requiere domicilioFiscalR: el código postal de su domicilio fiscal",
                    );
                    None
                }
            };
            if r.num_reg_id_trib_r.is_some() {
                p.agregar(
                    "RET20_RECEPTOR_EXTRANJERO",
                    "receptor.numRegIdTribR",
                    "numRegIdTribR es solo para un receptor Extranjero: quítalo o cambia la nacionalidad",
                );
            }
            Some(Receptor::Nacional(ReceptorNacional {
                rfc_r: rfc?,
                nom_den_raz_soc_r: nombre,
                curp_r: r.curp_r.as_deref().map(|curp| curp.trim().to_uppercase()),
                domicilio_fiscal_r: domicilio?,
            }))
        }
        "Extranjero" => {
            for (campo, valor) in
                [("rfcR", &r.rfc_r), ("curpR", &r.curp_r), ("domicilioFiscalR", &r.domicilio_fiscal_r)]
            {
                if valor.is_some() {
                    p.agregar(
                        "RET20_RECEPTOR_EXTRANJERO",
                        format!("receptor.{campo}"),
                        format!("un receptor Extranjero no lleva {campo}: quítalo (su identificación fiscal va en numRegIdTribR)"),
                    );
                }
            }
            Some(Receptor::Extranjero(ReceptorExtranjero {
                num_reg_id_trib_r: r.num_reg_id_trib_r.as_deref().map(|num| num.trim().to_owned()),
                nom_den_raz_soc_r: nombre,
            }))
        }
        otro => {
            p.agregar(
                "RET20_NACIONALIDAD",
                "receptor.nacionalidad",
                format!("nacionalidad «{otro}» debe ser \"Nacional\" o \"Extranjero\""),
            );
            None
        }
    }
}

fn plataformas(
    p: &mut Problemas,
    e: &EntradaPlataformas,
    iva_retenido: Decimal,
    isr_retenido: Decimal,
) -> Option<ServiciosPlataformasTecnologicas> {
    const C: &str = "complementos.plataformasTecnologicas";
    let periodicidad = codigo(
        p,
        "RET20_PT_PERIODICIDAD",
        &format!("{C}.periodicidad"),
        "c_Periodicidad",
        &e.periodicidad,
        Periodicidad::desde_codigo,
    );
    let mut servicios = Vec::new();
    let mut completos = true;
    for (i, s) in e.servicios.iter().enumerate() {
        match servicio(p, &format!("{C}.servicios[{i}]"), s) {
            Some(servicio) => servicios.push(servicio),
            None => completos = false,
        }
    }
    let opcional = |p: &mut Problemas, nombre: &str, valor: &Option<Valor>| -> Option<Option<Decimal>> {
        match valor {
            Some(valor) => importe(p, "RET20_PT_IMPORTE", &format!("{C}.{nombre}"), valor, 6).map(Some),
            None => Some(None),
        }
    };
    let mon_tot = opcional(p, "monTotServSIVA", &e.mon_tot_serv_siva);
    let iva_trasladado = opcional(p, "totalIVATrasladado", &e.total_iva_trasladado);
    let iva_ret = opcional(p, "totalIVARetenido", &e.total_iva_retenido);
    let isr_ret = opcional(p, "totalISRRetenido", &e.total_isr_retenido);
    let dif = opcional(p, "difIVAEntregadoPrestServ", &e.dif_iva_entregado_prest_serv);
    let uso = opcional(p, "monTotalporUsoPlataforma", &e.mon_totalpor_uso_plataforma);
    let contribucion = opcional(p, "monTotalContribucionGubernamental", &e.mon_total_contribucion_gubernamental);
    let num_serv = match &e.num_serv {
        Some(valor) => match valor.0.trim().parse::<u32>() {
            Ok(numero) => Some(numero),
            Err(_) => {
                p.agregar(
                    "RET20_PT_NUM_SERV",
                    format!("{C}.numServ"),
                    format!("numServ «{}» debe ser un entero positivo", valor.0),
                );
                None
            }
        },
        None => u32::try_from(e.servicios.len()).ok(),
    };
    let (periodicidad, mon_tot, iva_trasladado, iva_ret, isr_ret, dif, uso, contribucion, num_serv) =
        (periodicidad?, mon_tot?, iva_trasladado?, iva_ret?, isr_ret?, dif?, uso?, contribucion?, num_serv?);
    if !completos {
        return None;
    }
    let mon_tot_serv_siva = mon_tot.unwrap_or_else(|| servicios.iter().map(|s| s.precio_serv_sin_iva).sum());
    let total_iva_trasladado = iva_trasladado.unwrap_or_else(|| {
        servicios.iter().filter_map(|s| s.impuestos_trasladados_del_servicio.as_ref()).map(|i| i.importe).sum()
    });
    let total_iva_retenido = iva_ret.unwrap_or(iva_retenido);
    let contribuciones: Vec<Decimal> =
        servicios.iter().filter_map(|s| s.contribucion_gubernamental.as_ref()).map(|c| c.imp_contrib).collect();
    Some(ServiciosPlataformasTecnologicas {
        periodicidad,
        num_serv,
        mon_tot_serv_siva,
        total_iva_trasladado,
        total_iva_retenido,
        total_isr_retenido: isr_ret.unwrap_or(isr_retenido),
        dif_iva_entregado_prest_serv: dif.unwrap_or(total_iva_trasladado - total_iva_retenido),
        mon_totalpor_uso_plataforma: uso.unwrap_or_else(|| {
            servicios.iter().filter_map(|s| s.comision_del_servicio.as_ref()).map(|c| c.importe).sum()
        }),
        mon_total_contribucion_gubernamental: contribucion
            .or_else(|| (!contribuciones.is_empty()).then(|| contribuciones.iter().copied().sum())),
        servicios,
    })
}

fn servicio(p: &mut Problemas, campo: &str, s: &EntradaServicio) -> Option<DetallesDelServicio> {
    let forma = codigo(
        p,
        "RET20_PT_FORMA_PAGO_SERV",
        &format!("{campo}.formaPagoServ"),
        "c_FormaPagoServ",
        &s.forma_pago_serv,
        FormaPagoServ::desde_codigo,
    );
    let tipo = codigo(
        p,
        "RET20_PT_TIPO_DE_SERV",
        &format!("{campo}.tipoDeServ"),
        "c_TipoDeServ",
        &s.tipo_de_serv,
        TipoDeServ::desde_codigo,
    );
    let subtipo = s.sub_tip_serv.as_ref().map(|texto| {
        codigo(
            p,
            "RET20_PT_SUB_TIP_SERV",
            &format!("{campo}.subTipServ"),
            "c_SubTipoServ",
            texto,
            SubTipoServ::desde_codigo,
        )
    });
    let tercero = s.rfc_tercero_autorizado.as_ref().map(|texto| match Rfc::new(&texto.trim().to_uppercase()) {
        Ok(rfc) => Some(rfc),
        Err(error) => {
            p.agregar("RET20_PT_RFC_TERCERO", format!("{campo}.rfcTerceroAutorizado"), format!("«{texto}»: {error}"));
            None
        }
    });
    let fecha = leer_fecha(s.fecha_serv.trim());
    if fecha.is_none() {
        p.agregar(
            "RET20_PT_FECHA_SERV",
            format!("{campo}.fechaServ"),
            format!("fechaServ «{}» debe ser una fecha AAAA-MM-DD", s.fecha_serv),
        );
    }
    let precio = importe(p, "RET20_PT_IMPORTE", &format!("{campo}.precioServSinIVA"), &s.precio_serv_sin_iva, 6);
    let traslado = s.impuestos_trasladados_del_servicio.as_ref().map(|t| {
        let impuesto = codigo(
            p,
            "RET20_PT_IMPUESTO",
            &format!("{campo}.impuestosTrasladadosdelServicio.impuesto"),
            "c_TipoImpuesto",
            &t.impuesto,
            TipoImpuesto::desde_codigo,
        );
        let tasa = Decimal::from_str(t.tasa_cuota.0.trim()).ok().and_then(TasaCuota::desde_valor);
        if tasa.is_none() {
            p.agregar(
                "RET20_PT_TASA_CUOTA",
                format!("{campo}.impuestosTrasladadosdelServicio.tasaCuota"),
                format!(
                    "tasaCuota «{}» no está en c_TasaCuota (0.160000, 0.080000, 0.000000, 0.500000)",
                    t.tasa_cuota.0
                ),
            );
        }
        let base = match &t.base {
            Some(valor) => {
                importe(p, "RET20_PT_IMPORTE", &format!("{campo}.impuestosTrasladadosdelServicio.base"), valor, 6)
            }
            None => precio,
        };
        let importe_dado = t.importe.as_ref().map(|valor| {
            importe(p, "RET20_PT_IMPORTE", &format!("{campo}.impuestosTrasladadosdelServicio.importe"), valor, 6)
        });
        let (impuesto, tasa_cuota, base) = (impuesto?, tasa?, base?);
        let importe = match importe_dado {
            Some(dado) => dado?,
            None => (base * tasa_cuota.valor())
                .round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero),
        };
        Some(ImpuestosTrasladadosDelServicio { base, impuesto, tasa_cuota, importe })
    });
    let contribucion = s.contribucion_gubernamental.as_ref().map(|c| {
        let imp =
            importe(p, "RET20_PT_IMPORTE", &format!("{campo}.contribucionGubernamental.impContrib"), &c.imp_contrib, 6);
        let entidad = codigo(
            p,
            "RET20_PT_ENTIDAD",
            &format!("{campo}.contribucionGubernamental.entidadDondePagaLaContribucion"),
            "c_EntidadesFederativas",
            &c.entidad_donde_paga_la_contribucion,
            EntidadFederativa::desde_codigo,
        );
        Some(ContribucionGubernamental { imp_contrib: imp?, entidad_donde_paga_la_contribucion: entidad? })
    });
    let comision = s.comision_del_servicio.as_ref().map(|c| {
        let base =
            c.base.as_ref().map(|v| importe(p, "RET20_PT_IMPORTE", &format!("{campo}.comisionDelServicio.base"), v, 6));
        let porcentaje = c
            .porcentaje
            .as_ref()
            .map(|v| importe(p, "RET20_PT_PORCENTAJE", &format!("{campo}.comisionDelServicio.porcentaje"), v, 3));
        let imp = importe(p, "RET20_PT_IMPORTE", &format!("{campo}.comisionDelServicio.importe"), &c.importe, 6);
        Some(ComisionDelServicio { base: base.presente()?, porcentaje: porcentaje.presente()?, importe: imp? })
    });
    Some(DetallesDelServicio {
        forma_pago_serv: forma?,
        tipo_de_serv: tipo?,
        sub_tip_serv: subtipo.presente()?,
        rfc_tercero_autorizado: tercero.presente()?,
        fecha_serv: fecha?,
        precio_serv_sin_iva: precio?,
        impuestos_trasladados_del_servicio: traslado.presente()?,
        contribucion_gubernamental: contribucion.presente()?,
        comision_del_servicio: comision.presente()?,
    })
}

/// An optional input read into `Option<Option<T>>`: absent is fine (`Some(None)`), present
/// but wrong is a failure (`None`, its problem already reported).
trait Presente<T> {
    fn presente(self) -> Option<Option<T>>;
}

impl<T> Presente<T> for Option<Option<T>> {
    fn presente(self) -> Option<Option<T>> {
        match self {
            None => Some(None),
            Some(None) => None,
            Some(Some(valor)) => Some(Some(valor)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valores_de_texto_o_numero_sin_pasar_por_flotantes() {
        let leer = |json: &str| serde_json::from_str::<Valor>(json).map(|valor| valor.0);
        assert_eq!(leer("\"01\"").unwrap(), "01");
        assert_eq!(leer("7").unwrap(), "7");
        // serde_json's arbitrary_precision (the workspace's) keeps the number's exact text.
        assert_eq!(leer("1000.50").unwrap(), "1000.50");
        assert_eq!(leer("0.1234567890123456789").unwrap(), "0.1234567890123456789");
        assert!(leer("true").is_err());
    }
}
