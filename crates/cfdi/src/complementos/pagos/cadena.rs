//! Its part of the cadena original: SAT's stylesheet for the complement, included by
//! `cadenaoriginal_4_0.xslt`, from the model and from the XML (same order of values).

use super::*;
use crate::cadena::{attr, req_all};
use crate::parser::hijos;

/// From the model (the fast path used when sealing).
pub(super) fn desde_modelo(k: &mut Cadena, p: &Pagos) {
    k.req(&p.version);
    let t = &p.totales;
    k.opt_num(t.total_retenciones_iva.as_ref());
    k.opt_num(t.total_retenciones_isr.as_ref());
    k.opt_num(t.total_retenciones_ieps.as_ref());
    k.opt_num(t.total_traslados_base_iva16.as_ref());
    k.opt_num(t.total_traslados_impuesto_iva16.as_ref());
    k.opt_num(t.total_traslados_base_iva8.as_ref());
    k.opt_num(t.total_traslados_impuesto_iva8.as_ref());
    k.opt_num(t.total_traslados_base_iva0.as_ref());
    k.opt_num(t.total_traslados_impuesto_iva0.as_ref());
    k.opt_num(t.total_traslados_base_iva_exento.as_ref());
    k.num(&t.monto_total_pagos);
    for pago in &p.pagos {
        k.req(&pago.fecha_pago);
        k.req(&pago.forma_de_pago_p);
        k.req(&pago.moneda_p);
        k.opt_num(pago.tipo_cambio_p.as_ref());
        k.num(&pago.monto);
        k.opt(pago.num_operacion.as_deref());
        k.opt(pago.rfc_emisor_cta_ord.as_deref());
        k.opt(pago.nom_banco_ord_ext.as_deref());
        k.opt(pago.cta_ordenante.as_deref());
        k.opt(pago.rfc_emisor_cta_ben.as_deref());
        k.opt(pago.cta_beneficiario.as_deref());
        k.opt(pago.tipo_cad_pago.as_deref());
        k.opt(pago.cert_pago.as_deref());
        k.opt(pago.cad_pago.as_deref());
        k.opt(pago.sello_pago.as_deref());
        for d in &pago.doctos_relacionados {
            k.req(&d.id_documento);
            k.opt(d.serie.as_deref());
            k.opt(d.folio.as_deref());
            k.req(&d.moneda_dr);
            k.opt_num(d.equivalencia_dr.as_ref());
            k.req(&d.num_parcialidad);
            k.num(&d.imp_saldo_ant);
            k.num(&d.imp_pagado);
            k.num(&d.imp_saldo_insoluto);
            k.req(&d.objeto_imp_dr);
            if let Some(impuestos) = &d.impuestos_dr {
                for r in &impuestos.retenciones_dr {
                    k.num(&r.base_dr);
                    k.req(&r.impuesto_dr);
                    k.req(&r.tipo_factor_dr);
                    k.num(&r.tasa_o_cuota_dr);
                    k.num(&r.importe_dr);
                }
                for t in &impuestos.traslados_dr {
                    k.num(&t.base_dr);
                    k.req(&t.impuesto_dr);
                    k.req(&t.tipo_factor_dr);
                    k.opt_num(t.tasa_o_cuota_dr.as_ref());
                    k.opt_num(t.importe_dr.as_ref());
                }
            }
        }
        if let Some(impuestos) = &pago.impuestos_p {
            for r in &impuestos.retenciones_p {
                k.req(&r.impuesto_p);
                k.num(&r.importe_p);
            }
            for t in &impuestos.traslados_p {
                k.num(&t.base_p);
                k.req(&t.impuesto_p);
                k.req(&t.tipo_factor_p);
                k.opt_num(t.tasa_o_cuota_p.as_ref());
                k.opt_num(t.importe_p.as_ref());
            }
        }
    }
}

/// From the XML: the stylesheet's template, value by value.
pub(super) fn plantilla(k: &mut Cadena, p: Node<'_, '_>) {
    k.req(attr(p, "Version"));
    for totales in hijos(p, NS_PAGOS20, "Totales") {
        for nombre in [
            "TotalRetencionesIVA",
            "TotalRetencionesISR",
            "TotalRetencionesIEPS",
            "TotalTrasladosBaseIVA16",
            "TotalTrasladosImpuestoIVA16",
            "TotalTrasladosBaseIVA8",
            "TotalTrasladosImpuestoIVA8",
            "TotalTrasladosBaseIVA0",
            "TotalTrasladosImpuestoIVA0",
            "TotalTrasladosBaseIVAExento",
        ] {
            k.opt(totales.attribute(nombre));
        }
        k.req(attr(totales, "MontoTotalPagos"));
    }
    for pago in hijos(p, NS_PAGOS20, "Pago") {
        req_all(k, pago, &["FechaPago", "FormaDePagoP", "MonedaP"]);
        k.opt(pago.attribute("TipoCambioP"));
        k.req(attr(pago, "Monto"));
        for nombre in [
            "NumOperacion",
            "RfcEmisorCtaOrd",
            "NomBancoOrdExt",
            "CtaOrdenante",
            "RfcEmisorCtaBen",
            "CtaBeneficiario",
            "TipoCadPago",
            "CertPago",
            "CadPago",
            "SelloPago",
        ] {
            k.opt(pago.attribute(nombre));
        }
        for docto in hijos(pago, NS_PAGOS20, "DoctoRelacionado") {
            k.req(attr(docto, "IdDocumento"));
            k.opt(docto.attribute("Serie"));
            k.opt(docto.attribute("Folio"));
            k.req(attr(docto, "MonedaDR"));
            k.opt(docto.attribute("EquivalenciaDR"));
            req_all(k, docto, &["NumParcialidad", "ImpSaldoAnt", "ImpPagado", "ImpSaldoInsoluto", "ObjetoImpDR"]);
            for impuestos in hijos(docto, NS_PAGOS20, "ImpuestosDR") {
                for retenciones in hijos(impuestos, NS_PAGOS20, "RetencionesDR") {
                    for r in hijos(retenciones, NS_PAGOS20, "RetencionDR") {
                        req_all(k, r, &["BaseDR", "ImpuestoDR", "TipoFactorDR", "TasaOCuotaDR", "ImporteDR"]);
                    }
                }
            }
            for impuestos in hijos(docto, NS_PAGOS20, "ImpuestosDR") {
                for traslados in hijos(impuestos, NS_PAGOS20, "TrasladosDR") {
                    for t in hijos(traslados, NS_PAGOS20, "TrasladoDR") {
                        req_all(k, t, &["BaseDR", "ImpuestoDR", "TipoFactorDR"]);
                        k.opt(t.attribute("TasaOCuotaDR"));
                        k.opt(t.attribute("ImporteDR"));
                    }
                }
            }
        }
        for impuestos in hijos(pago, NS_PAGOS20, "ImpuestosP") {
            for retenciones in hijos(impuestos, NS_PAGOS20, "RetencionesP") {
                for r in hijos(retenciones, NS_PAGOS20, "RetencionP") {
                    req_all(k, r, &["ImpuestoP", "ImporteP"]);
                }
            }
            for traslados in hijos(impuestos, NS_PAGOS20, "TrasladosP") {
                for t in hijos(traslados, NS_PAGOS20, "TrasladoP") {
                    req_all(k, t, &["BaseP", "ImpuestoP", "TipoFactorP"]);
                    k.opt(t.attribute("TasaOCuotaP"));
                    k.opt(t.attribute("ImporteP"));
                }
            }
        }
    }
}
