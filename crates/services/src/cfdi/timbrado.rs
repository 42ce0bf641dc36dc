//! From the stamping body to a validated, unsealed [`Comprobante`]: every input problem and
//! every Anexo 20 rule broken comes back at once (CFDI_001) before a folio is spent.

use rust_decimal::Decimal;
use serde::Deserialize;
use timbra_cfdi::catalogos::{
    Exportacion, FormaPago, Impuesto, MetodoPago, ObjetoImp, TipoDeComprobante, TipoFactor, TipoRelacion,
};
use timbra_cfdi::construccion::{ClaseImpuesto, NuevoComprobante, NuevoConcepto, NuevoImpuesto};
use timbra_cfdi::{CfdiRelacionados, Comprobante, Emisor, InformacionGlobal, Receptor, validacion};
use time::OffsetDateTime;
use utoipa::ToSchema;

use timbra_store::clientes::ClienteReceptor;
use timbra_store::empresas::EmpresaEmisora;

use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use crate::validate::{self, RawAmount};
use timbra_cfdi::tipos::{CampoTexto, Esquema, FolioFiscal, NOMBRE_PUBLICO_GENERAL, RFC_PUBLICO_GENERAL};

/// Most conceptos one invoice may carry.
pub const MAX_CONCEPTOS: usize = 1000;

/// Body of `POST /api/cfdi/timbrar`. Amounts are JSON numbers or strings in plain decimal
/// notation (no exponent, `_` or `+`), read exactly and never rounded: at most 18 integer
/// digits and 6 decimals, as SAT's schema (tdCFDI t_Importe; Cantidad, TasaOCuota and
/// TipoCambio have 6 decimals too). Free texts follow their cfdv40.xsd pattern and length.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct TimbrarBody {
    /// I (default), E or T. Payments (P) use `/api/cfdi/pagos/timbrar`.
    pub tipo_comprobante: Option<String>,
    /// c_FormaPago (01 cash, 03 transfer, 04 credit card, 99 to be defined); required for I and E.
    pub forma_pago: Option<String>,
    /// PUE or PPD; required for I and E.
    pub metodo_pago: Option<String>,
    /// c_Moneda, default MXN (XXX for T).
    pub moneda: Option<String>,
    /// Exchange rate to MXN; required when `moneda` is not MXN or XXX.
    #[schema(value_type = Option<String>, example = "17.2545")]
    pub tipo_cambio: Option<RawAmount>,
    /// Customer id; omitted = the generic public customer (XAXX010101000) for I and E, the
    /// issuer itself for T.
    pub cliente_id: Option<String>,
    /// c_UsoCFDI, default the customer's (S01 for the public customer and for T).
    pub uso_cfdi: Option<String>,
    /// Series; default the company's `seriePredeterminada`.
    pub serie: Option<String>,
    /// `AAAA-MM-DDThh:mm:ss` in the local time of the company's postal code (its
    /// LugarExpedicion's zone in c_CodigoPostal: Centro, Pacífico, Noroeste, Sureste, the border
    /// strip with daylight saving); default now.
    /// SAT accepts at most 72 hours before stamping.
    pub fecha: Option<String>,
    /// Free text, e.g. "30 días" (1 to 1,000 characters, no `|`).
    pub condiciones_de_pago: Option<String>,
    /// c_Exportacion, default 01.
    pub exportacion: Option<String>,
    /// Related CFDI (e.g. tipoRelacion 01 for a credit note).
    pub cfdi_relacionados: Option<Vec<RelacionadosBody>>,
    /// Global invoice data; filled in automatically (daily, this month) for an I to the public
    /// customer when omitted.
    pub informacion_global: Option<InformacionGlobalBody>,
    /// The lines, 1 to 1,000.
    pub conceptos: Option<Vec<ConceptoBody>>,
    /// Complements: `cartaPorte` (Carta Porte 3.1, on I and T) and `comercioExterior`
    /// (Comercio Exterior 2.0, on I with `exportacion` 02).
    pub complementos: Option<super::complementos::ComplementosBody>,
    /// E-mail the stamped CFDI (XML and PDF) to the customer's `email` after the stamp
    /// (`POST /api/cfdi/{id}/correo`); absent, the company's `correo.enviarAlTimbrar` decides.
    pub enviar_correo: Option<bool>,
    /// Notes printed on the PDF after the totals (not part of the XML), up to 2,000 characters.
    pub notas: Option<String>,
}

/// `cfdiRelacionados` item.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RelacionadosBody {
    /// c_TipoRelacion (01 nota de crédito, 04 sustitución, 07 anticipo, ...).
    pub tipo_relacion: Option<String>,
    /// UUIDs, bare or with the `SANDBOX-` prefix.
    pub uuids: Option<Vec<String>>,
}

/// `informacionGlobal`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InformacionGlobalBody {
    /// c_Periodicidad (01 daily ... 05 bimonthly).
    pub periodicidad: Option<String>,
    /// c_Meses (01-12, 13-18 bimesters).
    pub meses: Option<String>,
    /// Four-digit year.
    pub ano: Option<String>,
}

/// One line.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConceptoBody {
    /// c_ClaveProdServ.
    pub clave_prod_serv: Option<String>,
    /// c_ClaveUnidad (E48 service, H87 piece).
    pub clave_unidad: Option<String>,
    /// Unit name, optional (1 to 20 characters, no `|`).
    pub unidad: Option<String>,
    /// Your SKU, optional (1 to 100 characters, no `|`).
    pub no_identificacion: Option<String>,
    /// Description (1 to 1,000 characters, no `|`).
    pub descripcion: Option<String>,
    /// Greater than 0, at most 18 integer digits and 6 decimals.
    #[schema(value_type = Option<String>, example = "2")]
    pub cantidad: Option<RawAmount>,
    /// Unit price, 0 or more, at most 18 integer digits and 6 decimals.
    #[schema(value_type = Option<String>, example = "1500.50")]
    pub precio_unitario: Option<RawAmount>,
    /// Discount on the line, default 0.
    #[schema(value_type = Option<String>)]
    pub descuento: Option<RawAmount>,
    /// c_ObjetoImp: 01 not subject, 02 subject (default for I and E; 16% IVA when no
    /// `impuestos`), 03 subject but not obliged.
    pub objeto_impuesto: Option<String>,
    /// Explicit taxes; replaces the automatic 16% IVA.
    pub impuestos: Option<ImpuestosBody>,
}

/// Taxes of a line.
#[derive(Deserialize, ToSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct ImpuestosBody {
    /// Transferred taxes (IVA, IEPS).
    pub traslados: Option<Vec<ImpuestoBody>>,
    /// Withheld taxes (ISR, IVA).
    pub retenciones: Option<Vec<ImpuestoBody>>,
}

/// One tax.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImpuestoBody {
    /// `IVA`, `IEPS`, `ISR` or the c_Impuesto code (002, 003, 001).
    pub impuesto: Option<String>,
    /// `Tasa` (default), `Cuota` (IEPS per unit) or `Exento` (IVA traslado only).
    pub tipo_factor: Option<String>,
    /// Rate (0.160000) or amount per unit; not for Exento.
    #[schema(value_type = Option<String>, example = "0.16")]
    pub tasa_o_cuota: Option<RawAmount>,
    /// Explicit base; default the line's importe minus descuento.
    #[schema(value_type = Option<String>)]
    pub base: Option<RawAmount>,
}

/// A built and validated invoice waiting for its folio and seal.
pub struct Preparado {
    /// The comprobante without serie, folio, seal or TFD.
    pub comprobante: Comprobante,
    /// The series it will carry.
    pub serie: String,
}

/// A catalog code or other short required text: present, at most `max` characters, and
/// nothing SAT's patterns or an XML document refuse (`|`, control characters), by the same
/// rule as every SAT text ([`validate::sat_text`]); the catalog itself is checked later.
fn texto(
    problems: &mut Vec<FieldProblem>,
    field: &str,
    value: Option<&str>,
    atributo: &'static str,
    max: usize,
) -> String {
    validate::sat_text(problems, field, value, CampoTexto { atributo, minimo: 1, maximo: max, sin_barra: true })
}

fn codigo<T>(
    problems: &mut Vec<FieldProblem>,
    field: &str,
    value: Option<&str>,
    catalogo: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Option<T> {
    let value = value.map(str::trim)?;
    let found = parse(value);
    if found.is_none() {
        problems.push(FieldProblem::new(field, format!("{value:?} is not a code of SAT's catalog {catalogo}")));
    }
    found
}

fn impuesto_de(texto: &str) -> Option<Impuesto> {
    match texto.to_uppercase().as_str() {
        "IVA" => Some(Impuesto::Iva),
        "IEPS" => Some(Impuesto::Ieps),
        "ISR" => Some(Impuesto::Isr),
        other => Impuesto::desde_codigo(other),
    }
}

fn impuestos_de(
    problems: &mut Vec<FieldProblem>,
    base_field: &str,
    lista: Option<&Vec<ImpuestoBody>>,
    clase: ClaseImpuesto,
) -> Vec<NuevoImpuesto> {
    let mut out = Vec::new();
    for (i, body) in lista.into_iter().flatten().enumerate() {
        let field = format!("{base_field}[{i}]");
        let impuesto = match body.impuesto.as_deref().map(str::trim) {
            None | Some("") => {
                problems
                    .push(FieldProblem::new(format!("{field}.impuesto"), "impuesto is required (IVA, IEPS or ISR)"));
                None
            }
            Some(text) => {
                let found = impuesto_de(text);
                if found.is_none() {
                    problems.push(FieldProblem::new(
                        format!("{field}.impuesto"),
                        format!("{text:?} is not IVA, IEPS, ISR or a c_Impuesto code"),
                    ));
                }
                found
            }
        };
        let factor_text = body.tipo_factor.as_deref().map(str::trim).unwrap_or("Tasa");
        let factor = [TipoFactor::Tasa, TipoFactor::Cuota, TipoFactor::Exento]
            .into_iter()
            .find(|f| f.codigo().eq_ignore_ascii_case(factor_text));
        if factor.is_none() {
            problems.push(FieldProblem::new(format!("{field}.tipoFactor"), "tipoFactor is Tasa, Cuota or Exento"));
        }
        let exento = factor == Some(TipoFactor::Exento);
        let tasa = validate::amount(
            problems,
            &format!("{field}.tasaOCuota"),
            body.tasa_o_cuota.as_ref(),
            Esquema::TASA_O_CUOTA,
            !exento,
        );
        let base = validate::amount(problems, &format!("{field}.base"), body.base.as_ref(), Esquema::IMPORTE, false);
        if let (Some(impuesto), Some(factor)) = (impuesto, factor) {
            let mut nuevo = NuevoImpuesto {
                clase,
                impuesto,
                tipo_factor: factor,
                tasa_o_cuota: tasa.unwrap_or_default(),
                base: None,
            };
            if let Some(base) = base {
                nuevo = nuevo.con_base(base);
            }
            out.push(nuevo);
        }
    }
    out
}

pub use super::documento::error_escritura;

/// Checks the body and builds the comprobante for `empresa` and `cliente` at local time
/// `fecha_local` (the issuer's local time, whole seconds); every problem, from the body and from Anexo 20's rules, comes back at once.
pub fn preparar(
    catalogos: &dyn timbra_cfdi::catalogos::Catalogos,
    body: TimbrarBody,
    empresa: &EmpresaEmisora,
    cliente: Option<&ClienteReceptor>,
    fecha_local: OffsetDateTime,
) -> ApiResult<Preparado> {
    let mut p = Vec::new();
    let tipo = match body.tipo_comprobante.as_deref().map(str::trim).unwrap_or("I") {
        "I" => Some(TipoDeComprobante::Ingreso),
        "E" => Some(TipoDeComprobante::Egreso),
        "T" => Some(TipoDeComprobante::Traslado),
        "P" => {
            p.push(FieldProblem::new("tipoComprobante", "payment CFDI (P) are stamped at /api/cfdi/pagos/timbrar"));
            None
        }
        other => {
            p.push(FieldProblem::new("tipoComprobante", format!("{other:?} is not I, E or T")));
            None
        }
    };
    let traslado = tipo == Some(TipoDeComprobante::Traslado);
    let forma_pago = codigo(&mut p, "formaPago", body.forma_pago.as_deref(), "c_FormaPago", FormaPago::desde_codigo);
    let metodo_pago = codigo(&mut p, "metodoPago", body.metodo_pago.as_deref(), "c_MetodoPago", |c| {
        MetodoPago::desde_codigo(&c.to_uppercase())
    });
    let exportacion =
        codigo(&mut p, "exportacion", body.exportacion.as_deref(), "c_Exportacion", Exportacion::desde_codigo)
            .unwrap_or(Exportacion::NoAplica);
    let moneda = body
        .moneda
        .as_deref()
        .map(|m| m.trim().to_uppercase())
        .unwrap_or_else(|| if traslado { "XXX" } else { "MXN" }.to_owned());
    let tipo_cambio = validate::amount(&mut p, "tipoCambio", body.tipo_cambio.as_ref(), Esquema::TIPO_CAMBIO, false);
    if tipo_cambio.is_some_and(|t| t.is_zero()) {
        p.push(FieldProblem::new("tipoCambio", "tipoCambio must be greater than 0"));
    }

    let serie = validate::sat_text(
        &mut p,
        "serie",
        Some(body.serie.as_deref().unwrap_or(&empresa.serie_predeterminada)),
        CampoTexto::SERIE,
    );
    let condiciones_de_pago = validate::optional_sat_text(
        &mut p,
        "condicionesDePago",
        body.condiciones_de_pago.as_deref(),
        CampoTexto::CONDICIONES_DE_PAGO,
    );
    let fecha = match body.fecha.as_deref().map(str::trim) {
        None => super::fecha_cfdi(fecha_local),
        Some(text) => {
            // A local time of the issuer's zone (`fecha_local`'s offset).
            let local = super::leer_fecha_local(text).map(|fecha| fecha.assume_offset(fecha_local.offset()));
            match local {
                None => p.push(FieldProblem::new("fecha", "fecha is AAAA-MM-DDThh:mm:ss (local time, no offset)")),
                Some(at) => {
                    if at > fecha_local + time::Duration::minutes(5) {
                        p.push(FieldProblem::new("fecha", "fecha cannot be in the future"));
                    } else if at < fecha_local - time::Duration::hours(72) {
                        p.push(FieldProblem::new("fecha", "SAT stamps only invoices dated within the last 72 hours"));
                    }
                }
            }
            text.to_owned()
        }
    };

    let conceptos_body = body.conceptos.unwrap_or_default();
    if conceptos_body.is_empty() {
        p.push(FieldProblem::new("conceptos", "conceptos is required: at least one line"));
    } else if conceptos_body.len() > MAX_CONCEPTOS {
        return Err(ApiError::fields(
            Code::Cfdi001,
            vec![FieldProblem::new(
                "conceptos",
                format!(
                    "{} conceptos: an invoice takes at most {MAX_CONCEPTOS}; split it into several invoices",
                    conceptos_body.len()
                ),
            )],
        ));
    }
    let objeto_default = if traslado { ObjetoImp::NoObjeto } else { ObjetoImp::SiObjeto };
    let mut conceptos = Vec::with_capacity(conceptos_body.len());
    for (i, c) in conceptos_body.into_iter().enumerate() {
        let f = |name: &str| format!("conceptos[{i}].{name}");
        let clave_prod_serv = texto(&mut p, &f("claveProdServ"), c.clave_prod_serv.as_deref(), "ClaveProdServ", 8);
        let clave_unidad = texto(&mut p, &f("claveUnidad"), c.clave_unidad.as_deref(), "ClaveUnidad", 3);
        let descripcion =
            validate::sat_text(&mut p, &f("descripcion"), c.descripcion.as_deref(), CampoTexto::DESCRIPCION);
        let unidad = validate::optional_sat_text(&mut p, &f("unidad"), c.unidad.as_deref(), CampoTexto::UNIDAD);
        let no_identificacion = validate::optional_sat_text(
            &mut p,
            &f("noIdentificacion"),
            c.no_identificacion.as_deref(),
            CampoTexto::NO_IDENTIFICACION,
        );
        let cantidad = validate::amount(&mut p, &f("cantidad"), c.cantidad.as_ref(), Esquema::CANTIDAD, true);
        if cantidad.is_some_and(|q| q.is_zero()) {
            p.push(FieldProblem::new(f("cantidad"), "cantidad must be greater than 0"));
        }
        let precio = validate::amount(&mut p, &f("precioUnitario"), c.precio_unitario.as_ref(), Esquema::IMPORTE, true);
        let descuento = validate::amount(&mut p, &f("descuento"), c.descuento.as_ref(), Esquema::IMPORTE, false);
        let objeto =
            codigo(&mut p, &f("objetoImpuesto"), c.objeto_impuesto.as_deref(), "c_ObjetoImp", ObjetoImp::desde_codigo)
                .unwrap_or(objeto_default);
        let impuestos = c.impuestos.map(|imp| {
            let mut lista =
                impuestos_de(&mut p, &f("impuestos.traslados"), imp.traslados.as_ref(), ClaseImpuesto::Traslado);
            lista.extend(impuestos_de(
                &mut p,
                &f("impuestos.retenciones"),
                imp.retenciones.as_ref(),
                ClaseImpuesto::Retencion,
            ));
            lista
        });
        let mut nuevo = NuevoConcepto::new(
            &clave_prod_serv,
            cantidad.unwrap_or(Decimal::ONE),
            &clave_unidad,
            &descripcion,
            precio.unwrap_or_default(),
            objeto,
        );
        nuevo.unidad = unidad;
        nuevo.no_identificacion = no_identificacion;
        nuevo.descuento = descuento.filter(|d| !d.is_zero());
        nuevo.impuestos = impuestos;
        conceptos.push(nuevo);
    }

    let mut cfdi_relacionados = Vec::new();
    for (i, r) in body.cfdi_relacionados.into_iter().flatten().enumerate() {
        let field = format!("cfdiRelacionados[{i}]");
        let tipo_relacion = match r.tipo_relacion.as_deref().map(str::trim) {
            None | Some("") => {
                p.push(FieldProblem::new(format!("{field}.tipoRelacion"), "tipoRelacion is required"));
                String::new()
            }
            Some(code) => {
                if TipoRelacion::desde_codigo(code).is_none() {
                    p.push(FieldProblem::new(
                        format!("{field}.tipoRelacion"),
                        format!("{code:?} is not in c_TipoRelacion"),
                    ));
                }
                code.to_owned()
            }
        };
        let textos = r.uuids.unwrap_or_default();
        if textos.is_empty() {
            p.push(FieldProblem::new(format!("{field}.uuids"), "at least one UUID"));
        }
        let mut uuids = Vec::with_capacity(textos.len());
        for (j, texto) in textos.iter().enumerate() {
            match FolioFiscal::leer(texto) {
                Ok(folio) => uuids.push(folio.as_str().to_owned()),
                Err(error) => p.push(FieldProblem::new(format!("{field}.uuids[{j}]"), error.to_string())),
            }
        }
        cfdi_relacionados.push(CfdiRelacionados { tipo_relacion, uuids });
    }

    let emisor = Emisor {
        rfc: empresa.rfc.clone(),
        nombre: empresa.razon_social.clone(),
        regimen_fiscal: empresa.regimen_fiscal.clone(),
        fac_atr_adquirente: None,
    };
    let uso = body.uso_cfdi.as_deref().map(|u| u.trim().to_uppercase());
    let receptor = match cliente {
        Some(c) => Receptor {
            rfc: c.rfc.clone(),
            nombre: c.razon_social.clone(),
            domicilio_fiscal_receptor: c.codigo_postal.clone(),
            residencia_fiscal: c.residencia_fiscal.clone(),
            num_reg_id_trib: c.num_reg_id_trib.clone(),
            regimen_fiscal_receptor: c.regimen_fiscal.clone(),
            uso_cfdi: uso.unwrap_or_else(|| if traslado { "S01".into() } else { c.uso_cfdi.clone() }),
        },
        // A traslado moves the issuer's own goods: the issuer is the receiver.
        None if traslado => Receptor {
            rfc: empresa.rfc.clone(),
            nombre: empresa.razon_social.clone(),
            domicilio_fiscal_receptor: empresa.codigo_postal.clone(),
            residencia_fiscal: None,
            num_reg_id_trib: None,
            regimen_fiscal_receptor: empresa.regimen_fiscal.clone(),
            uso_cfdi: uso.unwrap_or_else(|| "S01".into()),
        },
        // Anexo 20: the public customer's DomicilioFiscalReceptor is the LugarExpedicion.
        None => Receptor {
            rfc: RFC_PUBLICO_GENERAL.into(),
            nombre: NOMBRE_PUBLICO_GENERAL.into(),
            domicilio_fiscal_receptor: empresa.codigo_postal.clone(),
            residencia_fiscal: None,
            num_reg_id_trib: None,
            regimen_fiscal_receptor: "616".into(),
            uso_cfdi: uso.unwrap_or_else(|| "S01".into()),
        },
    };
    let informacion_global = match body.informacion_global {
        Some(g) => Some(InformacionGlobal {
            periodicidad: texto(&mut p, "informacionGlobal.periodicidad", g.periodicidad.as_deref(), "Periodicidad", 2),
            meses: texto(&mut p, "informacionGlobal.meses", g.meses.as_deref(), "Meses", 2),
            ano: texto(&mut p, "informacionGlobal.ano", g.ano.as_deref(), "Año", 4),
        }),
        // SAT requires it on an ingreso to the public customer (a factura global).
        None if receptor.rfc == RFC_PUBLICO_GENERAL
            && receptor.nombre == NOMBRE_PUBLICO_GENERAL
            && tipo == Some(TipoDeComprobante::Ingreso) =>
        {
            Some(InformacionGlobal {
                periodicidad: "01".into(),
                meses: format!("{:02}", u8::from(fecha_local.month())),
                ano: fecha_local.year().to_string(),
            })
        }
        None => None,
    };

    let complementos = body.complementos.map(|c| super::complementos::construir(c, &mut p)).unwrap_or_default();

    let Some(tipo) = tipo else { return Err(ApiError::reglas(Code::Cfdi001, p)) };
    if !p.is_empty() {
        return Err(ApiError::reglas(Code::Cfdi001, p));
    }
    let nuevo = NuevoComprobante {
        tipo,
        serie: Some(serie.clone()),
        folio: None,
        fecha,
        forma_pago: if traslado { None } else { forma_pago },
        metodo_pago: if traslado { None } else { metodo_pago },
        condiciones_de_pago,
        moneda,
        tipo_cambio,
        exportacion,
        lugar_expedicion: empresa.codigo_postal.clone(),
        emisor,
        receptor,
        informacion_global,
        cfdi_relacionados,
        conceptos,
        impuestos_locales: None,
        complementos,
    };
    let comprobante = nuevo.construir().map_err(|error| match error {
        timbra_cfdi::construccion::ErrorConstruccion::Invalido { campo, mensaje } => ApiError::reglas(
            Code::Cfdi001,
            vec![FieldProblem::new(campo, mensaje).con_regla(crate::error::REGLA_ENTRADA)],
        ),
    })?;
    // The document is certified now: Fecha's range (72 hours, not in the future) is checked
    // against the issuer's local time too.
    let contexto = validacion::Contexto {
        certificacion: Some(time::PrimitiveDateTime::new(fecha_local.date(), fecha_local.time())),
    };
    let informe = validacion::validar_con(&comprobante, catalogos, contexto);
    if !informe.es_valido() {
        let problems = informe.problemas.into_iter().map(super::complementos::problema_de_validacion).collect();
        return Err(ApiError::reglas(Code::Cfdi001, problems));
    }
    Ok(Preparado { comprobante, serie })
}
