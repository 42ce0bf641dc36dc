//! XML writer of `pago20:Pagos`.

use super::*;
use crate::escritura::Etiqueta;

pub(super) fn escribir(e: &mut Escritor, p: &Pagos) {
    e.abrir(Etiqueta::new("pago20:Pagos").req("Version", &p.version));
    let t = &p.totales;
    e.vacio(
        Etiqueta::new("pago20:Totales")
            .opt_num("TotalRetencionesIVA", t.total_retenciones_iva.as_ref())
            .opt_num("TotalRetencionesISR", t.total_retenciones_isr.as_ref())
            .opt_num("TotalRetencionesIEPS", t.total_retenciones_ieps.as_ref())
            .opt_num("TotalTrasladosBaseIVA16", t.total_traslados_base_iva16.as_ref())
            .opt_num("TotalTrasladosImpuestoIVA16", t.total_traslados_impuesto_iva16.as_ref())
            .opt_num("TotalTrasladosBaseIVA8", t.total_traslados_base_iva8.as_ref())
            .opt_num("TotalTrasladosImpuestoIVA8", t.total_traslados_impuesto_iva8.as_ref())
            .opt_num("TotalTrasladosBaseIVA0", t.total_traslados_base_iva0.as_ref())
            .opt_num("TotalTrasladosImpuestoIVA0", t.total_traslados_impuesto_iva0.as_ref())
            .opt_num("TotalTrasladosBaseIVAExento", t.total_traslados_base_iva_exento.as_ref())
            .num("MontoTotalPagos", &t.monto_total_pagos),
    );
    for pago in &p.pagos {
        e.abrir(
            Etiqueta::new("pago20:Pago")
                .req("FechaPago", &pago.fecha_pago)
                .req("FormaDePagoP", &pago.forma_de_pago_p)
                .req("MonedaP", &pago.moneda_p)
                .opt_num("TipoCambioP", pago.tipo_cambio_p.as_ref())
                .num("Monto", &pago.monto)
                .opt("NumOperacion", pago.num_operacion.as_deref())
                .opt("RfcEmisorCtaOrd", pago.rfc_emisor_cta_ord.as_deref())
                .opt("NomBancoOrdExt", pago.nom_banco_ord_ext.as_deref())
                .opt("CtaOrdenante", pago.cta_ordenante.as_deref())
                .opt("RfcEmisorCtaBen", pago.rfc_emisor_cta_ben.as_deref())
                .opt("CtaBeneficiario", pago.cta_beneficiario.as_deref())
                .opt("TipoCadPago", pago.tipo_cad_pago.as_deref())
                .opt("CertPago", pago.cert_pago.as_deref())
                .opt("CadPago", pago.cad_pago.as_deref())
                .opt("SelloPago", pago.sello_pago.as_deref()),
        );
        for d in &pago.doctos_relacionados {
            let etiqueta = Etiqueta::new("pago20:DoctoRelacionado")
                .req("IdDocumento", &d.id_documento)
                .opt("Serie", d.serie.as_deref())
                .opt("Folio", d.folio.as_deref())
                .req("MonedaDR", &d.moneda_dr)
                .opt_num("EquivalenciaDR", d.equivalencia_dr.as_ref())
                .req("NumParcialidad", &d.num_parcialidad)
                .num("ImpSaldoAnt", &d.imp_saldo_ant)
                .num("ImpPagado", &d.imp_pagado)
                .num("ImpSaldoInsoluto", &d.imp_saldo_insoluto)
                .req("ObjetoImpDR", &d.objeto_imp_dr);
            let Some(impuestos) = &d.impuestos_dr else {
                e.vacio(etiqueta);
                continue;
            };
            e.abrir(etiqueta);
            e.abrir(Etiqueta::new("pago20:ImpuestosDR"));
            if !impuestos.retenciones_dr.is_empty() {
                e.abrir(Etiqueta::new("pago20:RetencionesDR"));
                for r in &impuestos.retenciones_dr {
                    e.vacio(
                        Etiqueta::new("pago20:RetencionDR")
                            .num("BaseDR", &r.base_dr)
                            .req("ImpuestoDR", &r.impuesto_dr)
                            .req("TipoFactorDR", &r.tipo_factor_dr)
                            .num("TasaOCuotaDR", &r.tasa_o_cuota_dr)
                            .num("ImporteDR", &r.importe_dr),
                    );
                }
                e.cerrar("pago20:RetencionesDR");
            }
            if !impuestos.traslados_dr.is_empty() {
                e.abrir(Etiqueta::new("pago20:TrasladosDR"));
                for t in &impuestos.traslados_dr {
                    e.vacio(
                        Etiqueta::new("pago20:TrasladoDR")
                            .num("BaseDR", &t.base_dr)
                            .req("ImpuestoDR", &t.impuesto_dr)
                            .req("TipoFactorDR", &t.tipo_factor_dr)
                            .opt_num("TasaOCuotaDR", t.tasa_o_cuota_dr.as_ref())
                            .opt_num("ImporteDR", t.importe_dr.as_ref()),
                    );
                }
                e.cerrar("pago20:TrasladosDR");
            }
            e.cerrar("pago20:ImpuestosDR");
            e.cerrar("pago20:DoctoRelacionado");
        }
        if let Some(impuestos) = &pago.impuestos_p {
            e.abrir(Etiqueta::new("pago20:ImpuestosP"));
            if !impuestos.retenciones_p.is_empty() {
                e.abrir(Etiqueta::new("pago20:RetencionesP"));
                for r in &impuestos.retenciones_p {
                    e.vacio(
                        Etiqueta::new("pago20:RetencionP")
                            .req("ImpuestoP", &r.impuesto_p)
                            .num("ImporteP", &r.importe_p),
                    );
                }
                e.cerrar("pago20:RetencionesP");
            }
            if !impuestos.traslados_p.is_empty() {
                e.abrir(Etiqueta::new("pago20:TrasladosP"));
                for t in &impuestos.traslados_p {
                    e.vacio(
                        Etiqueta::new("pago20:TrasladoP")
                            .num("BaseP", &t.base_p)
                            .req("ImpuestoP", &t.impuesto_p)
                            .req("TipoFactorP", &t.tipo_factor_p)
                            .opt_num("TasaOCuotaP", t.tasa_o_cuota_p.as_ref())
                            .opt_num("ImporteP", t.importe_p.as_ref()),
                    );
                }
                e.cerrar("pago20:TrasladosP");
            }
            e.cerrar("pago20:ImpuestosP");
        }
        e.cerrar("pago20:Pago");
    }
    e.cerrar("pago20:Pagos");
}
