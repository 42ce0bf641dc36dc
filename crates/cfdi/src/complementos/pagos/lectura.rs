//! Parser of `pago20:Pagos` into the model.

use super::*;
use crate::parser::{hijo, hijos};

pub(super) fn leer(l: &Lector<'_, '_>, p: Node<'_, '_>) -> Result<Pagos, ErrorParseo> {
    let totales = hijo(p, NS_PAGOS20, "Totales").ok_or_else(|| l.falta(p, "Totales"))?;
    let mut pagos = Vec::new();
    for pago in hijos(p, NS_PAGOS20, "Pago") {
        let mut doctos = Vec::new();
        for d in hijos(pago, NS_PAGOS20, "DoctoRelacionado") {
            let impuestos_dr = match hijo(d, NS_PAGOS20, "ImpuestosDR") {
                None => None,
                Some(i) => {
                    let mut retenciones_dr = Vec::new();
                    for lista in hijos(i, NS_PAGOS20, "RetencionesDR") {
                        for r in hijos(lista, NS_PAGOS20, "RetencionDR") {
                            retenciones_dr.push(RetencionDR {
                                base_dr: l.num(r, "BaseDR")?,
                                impuesto_dr: l.req(r, "ImpuestoDR")?,
                                tipo_factor_dr: l.req(r, "TipoFactorDR")?,
                                tasa_o_cuota_dr: l.num(r, "TasaOCuotaDR")?,
                                importe_dr: l.num(r, "ImporteDR")?,
                            });
                        }
                    }
                    let mut traslados_dr = Vec::new();
                    for lista in hijos(i, NS_PAGOS20, "TrasladosDR") {
                        for t in hijos(lista, NS_PAGOS20, "TrasladoDR") {
                            traslados_dr.push(TrasladoDR {
                                base_dr: l.num(t, "BaseDR")?,
                                impuesto_dr: l.req(t, "ImpuestoDR")?,
                                tipo_factor_dr: l.req(t, "TipoFactorDR")?,
                                tasa_o_cuota_dr: l.opt_num(t, "TasaOCuotaDR"),
                                importe_dr: l.opt_num(t, "ImporteDR"),
                            });
                        }
                    }
                    Some(ImpuestosDR { retenciones_dr, traslados_dr })
                }
            };
            doctos.push(DoctoRelacionado {
                id_documento: l.req(d, "IdDocumento")?,
                serie: l.opt(d, "Serie"),
                folio: l.opt(d, "Folio"),
                moneda_dr: l.req(d, "MonedaDR")?,
                equivalencia_dr: l.opt_num(d, "EquivalenciaDR"),
                num_parcialidad: l.req(d, "NumParcialidad")?,
                imp_saldo_ant: l.num(d, "ImpSaldoAnt")?,
                imp_pagado: l.num(d, "ImpPagado")?,
                imp_saldo_insoluto: l.num(d, "ImpSaldoInsoluto")?,
                objeto_imp_dr: l.req(d, "ObjetoImpDR")?,
                impuestos_dr,
            });
        }
        let impuestos_p = match hijo(pago, NS_PAGOS20, "ImpuestosP") {
            None => None,
            Some(i) => {
                let mut retenciones_p = Vec::new();
                for lista in hijos(i, NS_PAGOS20, "RetencionesP") {
                    for r in hijos(lista, NS_PAGOS20, "RetencionP") {
                        retenciones_p
                            .push(RetencionP { impuesto_p: l.req(r, "ImpuestoP")?, importe_p: l.num(r, "ImporteP")? });
                    }
                }
                let mut traslados_p = Vec::new();
                for lista in hijos(i, NS_PAGOS20, "TrasladosP") {
                    for t in hijos(lista, NS_PAGOS20, "TrasladoP") {
                        traslados_p.push(TrasladoP {
                            base_p: l.num(t, "BaseP")?,
                            impuesto_p: l.req(t, "ImpuestoP")?,
                            tipo_factor_p: l.req(t, "TipoFactorP")?,
                            tasa_o_cuota_p: l.opt_num(t, "TasaOCuotaP"),
                            importe_p: l.opt_num(t, "ImporteP"),
                        });
                    }
                }
                Some(ImpuestosP { retenciones_p, traslados_p })
            }
        };
        pagos.push(Pago {
            fecha_pago: l.req(pago, "FechaPago")?,
            forma_de_pago_p: l.req(pago, "FormaDePagoP")?,
            moneda_p: l.req(pago, "MonedaP")?,
            tipo_cambio_p: l.opt_num(pago, "TipoCambioP"),
            monto: l.num(pago, "Monto")?,
            num_operacion: l.opt(pago, "NumOperacion"),
            rfc_emisor_cta_ord: l.opt(pago, "RfcEmisorCtaOrd"),
            nom_banco_ord_ext: l.opt(pago, "NomBancoOrdExt"),
            cta_ordenante: l.opt(pago, "CtaOrdenante"),
            rfc_emisor_cta_ben: l.opt(pago, "RfcEmisorCtaBen"),
            cta_beneficiario: l.opt(pago, "CtaBeneficiario"),
            tipo_cad_pago: l.opt(pago, "TipoCadPago"),
            cert_pago: l.opt(pago, "CertPago"),
            cad_pago: l.opt(pago, "CadPago"),
            sello_pago: l.opt(pago, "SelloPago"),
            doctos_relacionados: doctos,
            impuestos_p,
        });
    }
    Ok(Pagos {
        version: l.req(p, "Version")?,
        totales: Totales {
            total_retenciones_iva: l.opt_num(totales, "TotalRetencionesIVA"),
            total_retenciones_isr: l.opt_num(totales, "TotalRetencionesISR"),
            total_retenciones_ieps: l.opt_num(totales, "TotalRetencionesIEPS"),
            total_traslados_base_iva16: l.opt_num(totales, "TotalTrasladosBaseIVA16"),
            total_traslados_impuesto_iva16: l.opt_num(totales, "TotalTrasladosImpuestoIVA16"),
            total_traslados_base_iva8: l.opt_num(totales, "TotalTrasladosBaseIVA8"),
            total_traslados_impuesto_iva8: l.opt_num(totales, "TotalTrasladosImpuestoIVA8"),
            total_traslados_base_iva0: l.opt_num(totales, "TotalTrasladosBaseIVA0"),
            total_traslados_impuesto_iva0: l.opt_num(totales, "TotalTrasladosImpuestoIVA0"),
            total_traslados_base_iva_exento: l.opt_num(totales, "TotalTrasladosBaseIVAExento"),
            monto_total_pagos: l.num(totales, "MontoTotalPagos")?,
        },
        pagos,
    })
}
