//! Builder: from conceptos (cantidad, valor unitario, descuento, ObjetoImp, optional taxes)
//! to a complete [`Comprobante`] with every amount computed per Anexo 20.
//!
//! Rules applied (Anexo 20 4.0, Guía de llenado, "Conceptos" and "Impuestos"):
//! * `Importe = Cantidad × ValorUnitario`, rounded to the currency's decimals (c_Moneda);
//! * `Base = Importe − Descuento`; each tax `Importe = Base × TasaOCuota`, rounded per line
//!   to the currency's decimals, then summed (never the other way round);
//! * comprobante `Impuestos`: traslados grouped by Impuesto + TipoFactor + TasaOCuota,
//!   retenciones by Impuesto; Exento traslados carry no TasaOCuota/Importe and do not count
//!   in `TotalImpuestosTrasladados`;
//! * `SubTotal = Σ Importe`, `Descuento = Σ Descuento` (only when some concept has one),
//!   `Total = SubTotal − Descuento + trasladados − retenidos (+ locales)`;
//! * ObjetoImp 02 with no explicit taxes gets IVA 16% (the general rate, LIVA art. 1);
//! * the IVA base of a line includes the IEPS transferred on it (LIVA art. 18).

use rust_decimal::{Decimal, RoundingStrategy};

use crate::catalogos::{self, Exportacion, FormaPago, Impuesto, MetodoPago, ObjetoImp, TipoDeComprobante, TipoFactor};
use crate::complementos::implocal::ImpuestosLocales;
use crate::model::*;
use crate::numero::Numero;
use crate::tipos::LIMITE_IMPORTE;

/// Why a comprobante could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorConstruccion {
    /// A value breaks a rule; `campo` is the field path.
    #[error("{campo}: {mensaje}")]
    Invalido {
        /// Field path, e.g. `Conceptos[0].Descuento`.
        campo: String,
        /// What is wrong.
        mensaje: String,
    },
}

pub(crate) fn invalido(campo: impl Into<String>, mensaje: impl Into<String>) -> ErrorConstruccion {
    ErrorConstruccion::Invalido { campo: campo.into(), mensaje: mensaje.into() }
}

/// Traslado or retención.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaseImpuesto {
    /// Tax transferred to the receiver.
    Traslado,
    /// Tax withheld by the receiver.
    Retencion,
}

/// An explicit tax on a concept.
#[derive(Clone, Debug, PartialEq)]
pub struct NuevoImpuesto {
    /// Traslado or retención.
    pub clase: ClaseImpuesto,
    /// ISR, IVA or IEPS.
    pub impuesto: Impuesto,
    /// Tasa, Cuota or Exento.
    pub tipo_factor: TipoFactor,
    /// The rate (`0.16`) or amount per unit; ignored for Exento.
    pub tasa_o_cuota: Decimal,
    /// Explicit base; by default `Importe − Descuento` (for Cuota: `Cantidad`, the number
    /// of units the quota applies to).
    pub base: Option<Decimal>,
}

impl NuevoImpuesto {
    fn nuevo(clase: ClaseImpuesto, impuesto: Impuesto, tipo_factor: TipoFactor, tasa: Decimal) -> Self {
        Self { clase, impuesto, tipo_factor, tasa_o_cuota: tasa, base: None }
    }
    /// IVA transferred at `tasa` (0.16, 0.08, 0).
    pub fn iva(tasa: Decimal) -> Self {
        Self::nuevo(ClaseImpuesto::Traslado, Impuesto::Iva, TipoFactor::Tasa, tasa)
    }
    /// IVA exento.
    pub fn iva_exento() -> Self {
        Self::nuevo(ClaseImpuesto::Traslado, Impuesto::Iva, TipoFactor::Exento, Decimal::ZERO)
    }
    /// IEPS transferred at a rate.
    pub fn ieps_tasa(tasa: Decimal) -> Self {
        Self::nuevo(ClaseImpuesto::Traslado, Impuesto::Ieps, TipoFactor::Tasa, tasa)
    }
    /// IEPS transferred as an amount per unit.
    pub fn ieps_cuota(cuota: Decimal) -> Self {
        Self::nuevo(ClaseImpuesto::Traslado, Impuesto::Ieps, TipoFactor::Cuota, cuota)
    }
    /// ISR withheld at `tasa` (e.g. 0.10 for honorarios, 0.0125 RESICO).
    pub fn retencion_isr(tasa: Decimal) -> Self {
        Self::nuevo(ClaseImpuesto::Retencion, Impuesto::Isr, TipoFactor::Tasa, tasa)
    }
    /// IVA withheld at `tasa` (e.g. 0.106667, two thirds of 16%).
    pub fn retencion_iva(tasa: Decimal) -> Self {
        Self::nuevo(ClaseImpuesto::Retencion, Impuesto::Iva, TipoFactor::Tasa, tasa)
    }
    /// Sets an explicit base.
    pub fn con_base(mut self, base: Decimal) -> Self {
        self.base = Some(base);
        self
    }
}

/// A concept as the caller gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct NuevoConcepto {
    /// c_ClaveProdServ.
    pub clave_prod_serv: String,
    /// Issuer's SKU.
    pub no_identificacion: Option<String>,
    /// Quantity (up to 6 decimals).
    pub cantidad: Decimal,
    /// c_ClaveUnidad.
    pub clave_unidad: String,
    /// Issuer's unit name.
    pub unidad: Option<String>,
    /// Description.
    pub descripcion: String,
    /// Unit value before taxes (up to 6 decimals).
    pub valor_unitario: Decimal,
    /// Discount on this line.
    pub descuento: Option<Decimal>,
    /// c_ObjetoImp.
    pub objeto_imp: ObjetoImp,
    /// Explicit taxes; `None` means "the default": IVA 16% for ObjetoImp 02, none otherwise.
    pub impuestos: Option<Vec<NuevoImpuesto>>,
    /// Third party on whose behalf the line is invoiced.
    pub a_cuenta_terceros: Option<ACuentaTerceros>,
    /// Customs document numbers.
    pub informacion_aduanera: Vec<String>,
    /// Property-tax account numbers.
    pub cuenta_predial: Vec<String>,
}

impl NuevoConcepto {
    /// A concept with the required data and defaults for the rest.
    pub fn new(
        clave_prod_serv: &str,
        cantidad: Decimal,
        clave_unidad: &str,
        descripcion: &str,
        valor_unitario: Decimal,
        objeto_imp: ObjetoImp,
    ) -> Self {
        Self {
            clave_prod_serv: clave_prod_serv.to_owned(),
            no_identificacion: None,
            cantidad,
            clave_unidad: clave_unidad.to_owned(),
            unidad: None,
            descripcion: descripcion.to_owned(),
            valor_unitario,
            descuento: None,
            objeto_imp,
            impuestos: None,
            a_cuenta_terceros: None,
            informacion_aduanera: Vec::new(),
            cuenta_predial: Vec::new(),
        }
    }
}

/// Everything the caller decides about a comprobante; [`NuevoComprobante::construir`]
/// computes the rest.
#[derive(Clone, Debug, PartialEq)]
pub struct NuevoComprobante {
    /// I, E, T, N or P.
    pub tipo: TipoDeComprobante,
    /// Series.
    pub serie: Option<String>,
    /// Folio.
    pub folio: Option<String>,
    /// `AAAA-MM-DDThh:mm:ss`, issuer's local time.
    pub fecha: String,
    /// c_FormaPago.
    pub forma_pago: Option<FormaPago>,
    /// c_MetodoPago.
    pub metodo_pago: Option<MetodoPago>,
    /// Free text.
    pub condiciones_de_pago: Option<String>,
    /// c_Moneda code.
    pub moneda: String,
    /// Pesos per unit of `moneda` (required for currencies other than MXN and XXX).
    pub tipo_cambio: Option<Decimal>,
    /// c_Exportacion.
    pub exportacion: Exportacion,
    /// Postal code of issue.
    pub lugar_expedicion: String,
    /// Issuer.
    pub emisor: Emisor,
    /// Receiver.
    pub receptor: Receptor,
    /// Global invoice data (público en general).
    pub informacion_global: Option<InformacionGlobal>,
    /// Related CFDI.
    pub cfdi_relacionados: Vec<CfdiRelacionados>,
    /// The lines.
    pub conceptos: Vec<NuevoConcepto>,
    /// Local taxes (their totals enter `Total`).
    pub impuestos_locales: Option<ImpuestosLocales>,
    /// Other complements (Pagos, Nómina) already built.
    pub complementos: Vec<Complemento>,
}

/// Rounds half away from zero to `decimales` and fixes the scale.
pub fn redondear(valor: Decimal, decimales: u32) -> Decimal {
    let mut redondeado = valor.round_dp_with_strategy(decimales, RoundingStrategy::MidpointAwayFromZero);
    redondeado.rescale(decimales);
    redondeado
}

/// Formats a TasaOCuota with the six decimals of c_TasaOCuota (`0.160000`).
pub fn formato_tasa(tasa: Decimal) -> Numero {
    Numero::con_decimales(tasa, 6)
}

/// Text for a value given by the caller: at least `minimo` decimals, at most 6 (XSD
/// t_Importe / cantidad), never losing precision.
fn texto_valor(valor: Decimal, minimo: u32, campo: &str) -> Result<Numero, ErrorConstruccion> {
    let normalizado = valor.normalize();
    if normalizado.scale() > 6 {
        return Err(invalido(campo, "admite como máximo 6 decimales (cfdv40.xsd)"));
    }
    let mut v = normalizado;
    if v.scale() < minimo {
        v.rescale(minimo);
    }
    Ok(Numero::from(v))
}

/// `a × b`, or an error naming `campo` when the product leaves `Decimal` or `t_Importe`.
pub(crate) fn multiplicar(a: Decimal, b: Decimal, campo: &str) -> Result<Decimal, ErrorConstruccion> {
    a.checked_mul(b).filter(|p| p.abs() < LIMITE_IMPORTE).ok_or_else(|| fuera_de_rango(campo))
}

/// `a + b`, or an error naming `campo` when the sum leaves `Decimal` or `t_Importe`.
pub(crate) fn sumar(a: Decimal, b: Decimal, campo: &str) -> Result<Decimal, ErrorConstruccion> {
    a.checked_add(b).filter(|s| s.abs() < LIMITE_IMPORTE).ok_or_else(|| fuera_de_rango(campo))
}

fn fuera_de_rango(campo: &str) -> ErrorConstruccion {
    invalido(campo, "el resultado excede el máximo de un importe (tdCFDI t_Importe: 18 dígitos enteros)")
}

fn no_vacio(valor: Option<String>) -> Option<String> {
    valor.filter(|texto| !texto.trim().is_empty())
}

/// A comprobante-level traslado group: impuesto, tipo factor, tasa text, Σ base, Σ importe.
type GrupoTraslado = (String, String, Option<String>, Decimal, Option<Decimal>);

/// Accumulates comprobante-level taxes in order of first appearance.
#[derive(Default)]
struct Resumen {
    traslados: Vec<GrupoTraslado>,
    retenciones: Vec<(String, Decimal)>,
}

impl Resumen {
    fn traslado(&mut self, t: &Traslado, base: Decimal, importe: Option<Decimal>) -> Result<(), ErrorConstruccion> {
        let tasa = t.tasa_o_cuota.as_ref().map(|n| n.texto().to_owned());
        match self.traslados.iter_mut().find(|(i, f, k, ..)| *i == t.impuesto && *f == t.tipo_factor && *k == tasa) {
            Some(grupo) => {
                grupo.3 = sumar(grupo.3, base, "Impuestos.Traslados.Base")?;
                grupo.4 = match (grupo.4, importe) {
                    (Some(a), Some(b)) => Some(sumar(a, b, "Impuestos.Traslados.Importe")?),
                    (a, b) => a.or(b),
                };
            }
            None => self.traslados.push((t.impuesto.clone(), t.tipo_factor.clone(), tasa, base, importe)),
        }
        Ok(())
    }

    fn retencion(&mut self, impuesto: &str, importe: Decimal) -> Result<(), ErrorConstruccion> {
        match self.retenciones.iter_mut().find(|(i, _)| i == impuesto) {
            Some(grupo) => grupo.1 = sumar(grupo.1, importe, "Impuestos.Retenciones.Importe")?,
            None => self.retenciones.push((impuesto.to_owned(), importe)),
        }
        Ok(())
    }
}

impl NuevoComprobante {
    /// Builds the comprobante: amounts, taxes and totals computed; Sello, NoCertificado and
    /// Certificado left empty for [`crate::sello`].
    pub fn construir(self) -> Result<Comprobante, ErrorConstruccion> {
        let moneda = self.moneda.trim().to_owned();
        let Some(datos_moneda) = catalogos::moneda(&moneda) else {
            return Err(invalido("Moneda", format!("«{moneda}» no está en c_Moneda")));
        };
        let dec = datos_moneda.decimales;
        // Anexo 20, TipoCambio: required for currencies other than MXN and XXX; for MXN it
        // may only be 1 and is omitted; XXX must not carry it.
        let tipo_cambio = match (moneda.as_str(), self.tipo_cambio) {
            ("XXX", _) => None,
            ("MXN", None) => None,
            ("MXN", Some(tc)) if tc == Decimal::ONE => None,
            ("MXN", Some(_)) => {
                return Err(invalido("TipoCambio", "con Moneda MXN el tipo de cambio es 1"));
            }
            (_, None) => {
                return Err(invalido("TipoCambio", "requerido cuando Moneda no es MXN ni XXX"));
            }
            (_, Some(tc)) if tc <= Decimal::ZERO => {
                return Err(invalido("TipoCambio", "debe ser mayor que cero"));
            }
            (_, Some(tc)) => Some(texto_valor(tc, 0, "TipoCambio")?),
        };
        if self.conceptos.is_empty() {
            return Err(invalido("Conceptos", "se requiere al menos un concepto"));
        }
        let mut resumen = Resumen::default();
        let mut sub_total = Decimal::ZERO;
        let mut descuento_total: Option<Decimal> = None;
        let mut conceptos = Vec::with_capacity(self.conceptos.len());
        for (indice, nuevo) in self.conceptos.into_iter().enumerate() {
            let campo = |nombre: &str| format!("Conceptos[{indice}].{nombre}");
            if nuevo.cantidad <= Decimal::ZERO {
                return Err(invalido(campo("Cantidad"), "debe ser mayor que cero"));
            }
            if nuevo.valor_unitario < Decimal::ZERO {
                return Err(invalido(campo("ValorUnitario"), "no puede ser negativo"));
            }
            let cantidad = texto_valor(nuevo.cantidad, 0, &campo("Cantidad"))?;
            let valor_unitario = texto_valor(nuevo.valor_unitario, dec, &campo("ValorUnitario"))?;
            // Anexo 20, Concepto/Importe: Cantidad × ValorUnitario, with the currency's decimals.
            let importe = redondear(multiplicar(nuevo.cantidad, nuevo.valor_unitario, &campo("Importe"))?, dec);
            let descuento = match nuevo.descuento {
                None => None,
                Some(d) if d < Decimal::ZERO => {
                    return Err(invalido(campo("Descuento"), "no puede ser negativo"));
                }
                Some(d) => {
                    let d = redondear(d, dec);
                    // Anexo 20, Concepto/Descuento: must not exceed Importe.
                    if d > importe {
                        return Err(invalido(campo("Descuento"), "no puede ser mayor que el Importe"));
                    }
                    Some(d)
                }
            };
            sub_total = sumar(sub_total, importe, "SubTotal")?;
            if let Some(d) = descuento {
                descuento_total = Some(sumar(descuento_total.unwrap_or(Decimal::ZERO), d, "Descuento")?);
            }
            let base_general = importe - descuento.unwrap_or(Decimal::ZERO);
            let impuestos_pedidos = match (nuevo.objeto_imp, nuevo.impuestos) {
                (ObjetoImp::SiObjeto, None) => vec![NuevoImpuesto::iva(Decimal::new(16, 2))],
                (objeto, Some(lista)) if !objeto.requiere_impuestos() && !lista.is_empty() => {
                    return Err(invalido(
                        campo("Impuestos"),
                        format!(
                            "con ObjetoImp {} el concepto no lleva impuestos (Guía de llenado, ObjetoImp)",
                            objeto.codigo()
                        ),
                    ));
                }
                (objeto, lista) if objeto.requiere_impuestos() && lista.as_ref().is_none_or(Vec::is_empty) => {
                    return Err(invalido(
                        campo("Impuestos"),
                        format!("con ObjetoImp {} se requiere al menos un impuesto", objeto.codigo()),
                    ));
                }
                (_, lista) => lista.unwrap_or_default(),
            };
            if matches!(self.tipo, TipoDeComprobante::Traslado | TipoDeComprobante::Pago | TipoDeComprobante::Nomina)
                && !impuestos_pedidos.is_empty()
            {
                return Err(invalido(campo("Impuestos"), "los comprobantes T, P y N no llevan impuestos en conceptos"));
            }
            // LIVA art. 18: the IVA base includes the IEPS transferred on the same line.
            let mut ieps_trasladado = Decimal::ZERO;
            for (j, p) in impuestos_pedidos.iter().enumerate() {
                if p.clase != ClaseImpuesto::Traslado
                    || p.impuesto != Impuesto::Ieps
                    || p.tipo_factor == TipoFactor::Exento
                {
                    continue;
                }
                let base = match (p.base, p.tipo_factor) {
                    (Some(b), _) => redondear(b, dec),
                    (None, TipoFactor::Cuota) => nuevo.cantidad,
                    (None, _) => base_general,
                };
                let campo_imp = format!("Conceptos[{indice}].Impuestos[{j}]");
                let monto = redondear(multiplicar(base, p.tasa_o_cuota, &campo_imp)?, dec);
                ieps_trasladado = sumar(ieps_trasladado, monto, &campo_imp)?;
            }
            let mut traslados = Vec::new();
            let mut retenciones = Vec::new();
            for (j, pedido) in impuestos_pedidos.iter().enumerate() {
                let campo_imp = format!("Conceptos[{indice}].Impuestos[{j}]");
                let base = match (pedido.base, pedido.tipo_factor) {
                    (Some(b), _) => redondear(b, dec),
                    (None, TipoFactor::Cuota) => nuevo.cantidad,
                    (None, _) if pedido.impuesto == Impuesto::Iva && pedido.clase == ClaseImpuesto::Traslado => {
                        sumar(base_general, ieps_trasladado, &campo_imp)?
                    }
                    (None, _) => base_general,
                };
                // cfdv40.xsd: Base has minInclusive 0.000001.
                if base <= Decimal::ZERO {
                    return Err(invalido(campo_imp, "la Base debe ser mayor que cero"));
                }
                let base_numero = texto_valor(base, dec.min(6), &campo_imp)?;
                let es_retencion = pedido.clase == ClaseImpuesto::Retencion;
                if pedido.tipo_factor == TipoFactor::Exento {
                    if es_retencion {
                        return Err(invalido(campo_imp, "una retención no puede ser Exento"));
                    }
                    let t = Traslado {
                        base: base_numero,
                        impuesto: pedido.impuesto.codigo().to_owned(),
                        tipo_factor: TipoFactor::Exento.codigo().to_owned(),
                        tasa_o_cuota: None,
                        importe: None,
                    };
                    resumen.traslado(&t, base, None)?;
                    traslados.push(t);
                    continue;
                }
                let tasa = formato_tasa(pedido.tasa_o_cuota);
                if !catalogos::tasa_o_cuota_permitida(pedido.impuesto, pedido.tipo_factor, tasa.texto(), es_retencion) {
                    return Err(invalido(
                        campo_imp,
                        format!(
                            "TasaOCuota {} no está en c_TasaOCuota para {} {} ({})",
                            tasa.texto(),
                            pedido.impuesto.descripcion(),
                            pedido.tipo_factor.codigo(),
                            if es_retencion { "retención" } else { "traslado" }
                        ),
                    ));
                }
                // Anexo 20, Traslado/Importe: Base × TasaOCuota, rounded per line.
                let monto = redondear(multiplicar(base, pedido.tasa_o_cuota, &campo_imp)?, dec);
                if es_retencion {
                    resumen.retencion(pedido.impuesto.codigo(), monto)?;
                    retenciones.push(Retencion {
                        base: base_numero,
                        impuesto: pedido.impuesto.codigo().to_owned(),
                        tipo_factor: pedido.tipo_factor.codigo().to_owned(),
                        tasa_o_cuota: tasa,
                        importe: Numero::from(monto),
                    });
                } else {
                    let t = Traslado {
                        base: base_numero,
                        impuesto: pedido.impuesto.codigo().to_owned(),
                        tipo_factor: pedido.tipo_factor.codigo().to_owned(),
                        tasa_o_cuota: Some(tasa),
                        importe: Some(Numero::from(monto)),
                    };
                    resumen.traslado(&t, base, Some(monto))?;
                    traslados.push(t);
                }
            }
            let impuestos = if traslados.is_empty() && retenciones.is_empty() {
                None
            } else {
                Some(ImpuestosConcepto { traslados, retenciones })
            };
            conceptos.push(Concepto {
                clave_prod_serv: nuevo.clave_prod_serv,
                no_identificacion: no_vacio(nuevo.no_identificacion),
                cantidad,
                clave_unidad: nuevo.clave_unidad,
                unidad: no_vacio(nuevo.unidad),
                descripcion: nuevo.descripcion,
                valor_unitario,
                importe: Numero::from(importe),
                descuento: descuento.map(Numero::from),
                objeto_imp: nuevo.objeto_imp.codigo().to_owned(),
                impuestos,
                a_cuenta_terceros: nuevo.a_cuenta_terceros,
                informacion_aduanera: nuevo.informacion_aduanera,
                cuenta_predial: nuevo.cuenta_predial,
                complemento_concepto: None,
                partes: Vec::new(),
            });
        }

        let mut total_trasladados: Option<Decimal> = None;
        for importe in resumen.traslados.iter().filter_map(|grupo| grupo.4) {
            total_trasladados = Some(match total_trasladados {
                Some(suma) => sumar(suma, importe, "Impuestos.TotalImpuestosTrasladados")?,
                None => importe,
            });
        }
        let mut total_retenidos: Option<Decimal> = None;
        for importe in resumen.retenciones.iter().map(|grupo| grupo.1) {
            total_retenidos = Some(match total_retenidos {
                Some(suma) => sumar(suma, importe, "Impuestos.TotalImpuestosRetenidos")?,
                None => importe,
            });
        }
        let impuestos = if resumen.traslados.is_empty() && resumen.retenciones.is_empty() {
            None
        } else {
            Some(Impuestos {
                total_impuestos_retenidos: total_retenidos.map(|t| Numero::from(redondear(t, dec))),
                total_impuestos_trasladados: total_trasladados.map(|t| Numero::from(redondear(t, dec))),
                retenciones: resumen
                    .retenciones
                    .iter()
                    .map(|(impuesto, importe)| RetencionComprobante {
                        impuesto: impuesto.clone(),
                        importe: Numero::from(redondear(*importe, dec)),
                    })
                    .collect(),
                traslados: resumen
                    .traslados
                    .iter()
                    .map(|(impuesto, factor, tasa, base, importe)| TrasladoComprobante {
                        base: Numero::from(redondear(*base, dec)),
                        impuesto: impuesto.clone(),
                        tipo_factor: factor.clone(),
                        tasa_o_cuota: tasa.clone().map(Numero::from_texto),
                        importe: importe.map(|i| Numero::from(redondear(i, dec))),
                    })
                    .collect(),
            })
        };
        let (locales_trasladados, locales_retenidos) =
            self.impuestos_locales.as_ref().map_or((Decimal::ZERO, Decimal::ZERO), ImpuestosLocales::totales);
        // Each term is below 10^18 (t_Importe) or a parsed local-tax total; checked all the same.
        let total = sub_total
            .checked_sub(descuento_total.unwrap_or(Decimal::ZERO))
            .and_then(|t| t.checked_add(total_trasladados.unwrap_or_default()))
            .and_then(|t| t.checked_sub(total_retenidos.unwrap_or_default()))
            .and_then(|t| t.checked_add(locales_trasladados))
            .and_then(|t| t.checked_sub(locales_retenidos))
            .filter(|t| t.abs() < LIMITE_IMPORTE)
            .ok_or_else(|| fuera_de_rango("Total"))?;
        if total < Decimal::ZERO {
            return Err(invalido("Total", "el total no puede ser negativo"));
        }
        // c_TipoDeComprobante valor_maximo: a Traslado totals zero.
        if total > self.tipo.valor_maximo() {
            return Err(invalido("Total", format!("excede el valor máximo para tipo {}", self.tipo.codigo())));
        }
        let mut complementos = self.complementos;
        if let Some(locales) = self.impuestos_locales {
            complementos.push(Complemento::ImpuestosLocales(Box::new(locales)));
        }
        let emisor = Emisor { fac_atr_adquirente: no_vacio(self.emisor.fac_atr_adquirente), ..self.emisor };
        let receptor = Receptor {
            residencia_fiscal: no_vacio(self.receptor.residencia_fiscal),
            num_reg_id_trib: no_vacio(self.receptor.num_reg_id_trib),
            ..self.receptor
        };
        Ok(Comprobante {
            version: "4.0".to_owned(),
            serie: no_vacio(self.serie),
            folio: no_vacio(self.folio),
            fecha: self.fecha,
            sello: String::new(),
            forma_pago: self.forma_pago.map(|f| f.codigo().to_owned()),
            no_certificado: String::new(),
            certificado: String::new(),
            condiciones_de_pago: no_vacio(self.condiciones_de_pago),
            sub_total: Numero::from(redondear(sub_total, dec)),
            descuento: descuento_total.map(|d| Numero::from(redondear(d, dec))),
            moneda,
            tipo_cambio,
            total: Numero::from(redondear(total, dec)),
            tipo_de_comprobante: self.tipo.codigo().to_owned(),
            exportacion: self.exportacion.codigo().to_owned(),
            metodo_pago: self.metodo_pago.map(|m| m.codigo().to_owned()),
            lugar_expedicion: self.lugar_expedicion,
            confirmacion: None,
            informacion_global: self.informacion_global,
            cfdi_relacionados: self.cfdi_relacionados,
            emisor,
            receptor,
            conceptos,
            impuestos,
            complementos,
            addenda: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn base(conceptos: Vec<NuevoConcepto>) -> NuevoComprobante {
        NuevoComprobante {
            tipo: TipoDeComprobante::Ingreso,
            serie: None,
            folio: None,
            fecha: "2026-11-20T10:00:00".into(),
            forma_pago: Some(FormaPago::TransferenciaElectronica),
            metodo_pago: Some(MetodoPago::Pue),
            condiciones_de_pago: None,
            moneda: "MXN".into(),
            tipo_cambio: None,
            exportacion: Exportacion::NoAplica,
            lugar_expedicion: "86000".into(),
            emisor: Emisor::default(),
            receptor: Receptor::default(),
            informacion_global: None,
            cfdi_relacionados: Vec::new(),
            conceptos,
            impuestos_locales: None,
            complementos: Vec::new(),
        }
    }

    #[test]
    fn iva_16_por_omision() {
        let mut concepto = NuevoConcepto::new("01010101", dec!(3), "H87", "x", dec!(33.333), ObjetoImp::SiObjeto);
        concepto.descuento = Some(dec!(10));
        let c = base(vec![concepto]).construir().unwrap();
        assert_eq!(c.conceptos[0].importe.texto(), "100.00");
        let t = &c.conceptos[0].impuestos.as_ref().unwrap().traslados[0];
        assert_eq!(t.base.texto(), "90.00");
        assert_eq!(t.tasa_o_cuota.as_ref().unwrap().texto(), "0.160000");
        assert_eq!(t.importe.as_ref().unwrap().texto(), "14.40");
        assert_eq!(c.sub_total.texto(), "100.00");
        assert_eq!(c.descuento.as_ref().unwrap().texto(), "10.00");
        assert_eq!(c.total.texto(), "104.40");
    }

    #[test]
    fn desbordes_son_errores_no_panicos() {
        let enorme = NuevoConcepto::new("01010101", dec!(1e28), "H87", "x", Decimal::MAX, ObjetoImp::SiObjeto);
        let error = base(vec![enorme]).construir().unwrap_err();
        assert!(
            matches!(&error, ErrorConstruccion::Invalido { campo, .. } if campo == "Conceptos[0].Importe"),
            "{error}"
        );
        // Each line fits t_Importe, their sum does not.
        let linea =
            || NuevoConcepto::new("01010101", dec!(1), "H87", "x", dec!(600000000000000000), ObjetoImp::NoObjeto);
        let error = base(vec![linea(), linea()]).construir().unwrap_err();
        assert!(matches!(&error, ErrorConstruccion::Invalido { campo, .. } if campo == "SubTotal"), "{error}");
        // The tax on a line that fits may not.
        let mut cuota = NuevoConcepto::new("01010101", dec!(1), "H87", "x", dec!(1), ObjetoImp::SiObjeto);
        cuota.impuestos = Some(vec![NuevoImpuesto {
            clase: ClaseImpuesto::Traslado,
            impuesto: Impuesto::Ieps,
            tipo_factor: TipoFactor::Cuota,
            tasa_o_cuota: Decimal::MAX,
            base: Some(Decimal::MAX),
        }]);
        assert!(base(vec![cuota]).construir().is_err());
    }

    proptest::proptest! {
        /// Any amounts a caller can hand over give a comprobante or an error, never a panic.
        #[test]
        fn importes_cualesquiera_no_causan_panico(
            cantidad in proptest::num::u128::ANY,
            escala_cantidad in 0u32..29,
            valor in proptest::num::u128::ANY,
            escala_valor in 0u32..29,
            descuento in proptest::option::of(proptest::num::i64::ANY),
            tasa in proptest::num::u64::ANY,
        ) {
            let decimal = |n: u128, escala: u32| {
                Decimal::from_i128_with_scale((n % (1u128 << 96)) as i128, escala)
            };
            let mut concepto = NuevoConcepto::new(
                "01010101",
                decimal(cantidad, escala_cantidad),
                "H87",
                "x",
                decimal(valor, escala_valor),
                ObjetoImp::SiObjeto,
            );
            concepto.descuento = descuento.map(Decimal::from);
            concepto.impuestos = Some(vec![
                NuevoImpuesto::iva(dec!(0.16)),
                NuevoImpuesto { base: None, ..NuevoImpuesto::retencion_iva(Decimal::from(tasa)) },
            ]);
            let _ = base(vec![concepto.clone(), concepto]).construir();
        }
    }

    #[test]
    fn rechaza_impuestos_con_objeto_01_y_moneda_sin_tipo_cambio() {
        let mut concepto = NuevoConcepto::new("01010101", dec!(1), "H87", "x", dec!(1), ObjetoImp::NoObjeto);
        concepto.impuestos = Some(vec![NuevoImpuesto::iva(dec!(0.16))]);
        assert!(base(vec![concepto]).construir().is_err());
        let mut usd = base(vec![NuevoConcepto::new("01010101", dec!(1), "H87", "x", dec!(1), ObjetoImp::NoObjeto)]);
        usd.moneda = "USD".into();
        assert!(usd.construir().is_err());
    }
}
