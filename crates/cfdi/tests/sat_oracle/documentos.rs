//! Representative invoices built through the crate's builder (the same API the server uses).

use rust_decimal::Decimal;
use rust_decimal_macros::dec;
use timbra_cfdi::catalogos::{Exportacion, FormaPago, MetodoPago, ObjetoImp, TipoDeComprobante, TipoRelacion};
use timbra_cfdi::construccion::{NuevoComprobante, NuevoConcepto, NuevoImpuesto};
use timbra_cfdi::implocal::{ImpuestosLocales, RetencionLocal, TrasladoLocal};
use timbra_cfdi::nomina::*;
use timbra_cfdi::pagos::*;
use timbra_cfdi::{CfdiRelacionados, Comprobante, Emisor, InformacionGlobal, Numero, Receptor};

/// Pinned date inside the validity of the SAT test CSD (valid until 2027-05-18).
pub const FECHA: &str = "2026-11-20T10:30:00";

pub fn emisor() -> Emisor {
    Emisor {
        rfc: "EKU9003173C9".into(),
        nombre: "ESCUELA KEMPER URGATE".into(),
        regimen_fiscal: "601".into(),
        fac_atr_adquirente: None,
    }
}

pub fn receptor_moral() -> Receptor {
    Receptor {
        rfc: "H&E951128469".into(),
        nombre: "HERRERIA & ELECTRICOS".into(),
        domicilio_fiscal_receptor: "06002".into(),
        residencia_fiscal: None,
        num_reg_id_trib: None,
        regimen_fiscal_receptor: "601".into(),
        uso_cfdi: "G03".into(),
    }
}

pub fn receptor_fisica() -> Receptor {
    Receptor {
        rfc: "IAÑL750210963".into(),
        nombre: "LUIS IAN ÑUZCO".into(),
        domicilio_fiscal_receptor: "30230".into(),
        residencia_fiscal: None,
        num_reg_id_trib: None,
        regimen_fiscal_receptor: "612".into(),
        uso_cfdi: "G03".into(),
    }
}

pub fn ingreso(conceptos: Vec<NuevoConcepto>) -> NuevoComprobante {
    NuevoComprobante {
        tipo: TipoDeComprobante::Ingreso,
        serie: Some("A".into()),
        folio: Some("1001".into()),
        fecha: FECHA.into(),
        forma_pago: Some(FormaPago::TransferenciaElectronica),
        metodo_pago: Some(MetodoPago::Pue),
        condiciones_de_pago: None,
        moneda: "MXN".into(),
        tipo_cambio: None,
        exportacion: Exportacion::NoAplica,
        lugar_expedicion: "86000".into(),
        emisor: emisor(),
        receptor: receptor_moral(),
        informacion_global: None,
        cfdi_relacionados: Vec::new(),
        conceptos,
        impuestos_locales: None,
        complementos: Vec::new(),
    }
}

fn concepto(descripcion: &str, cantidad: Decimal, valor: Decimal, objeto: ObjetoImp) -> NuevoConcepto {
    NuevoConcepto::new("43211500", cantidad, "H87", descripcion, valor, objeto)
}

fn con(mut c: NuevoConcepto, impuestos: Vec<NuevoImpuesto>) -> NuevoConcepto {
    c.impuestos = Some(impuestos);
    c
}

/// (file name, comprobante) for every golden document.
pub fn todos() -> Vec<(&'static str, Comprobante)> {
    let mut documentos = Vec::new();

    let mut c =
        concepto("Computadora portátil <14\"> & accesorios 'pro'", dec!(2), dec!(15999.99), ObjetoImp::SiObjeto);
    c.descuento = Some(dec!(500));
    c.no_identificacion = Some("LAP-14".into());
    c.unidad = Some("Pieza".into());
    let servicio = NuevoConcepto::new(
        "81111500",
        dec!(1.5),
        "E48",
        "Soporte   técnico\ten sitio",
        dec!(850.333333),
        ObjetoImp::SiObjeto,
    );
    documentos.push(("I_iva16", ingreso(vec![c, servicio]).construir().unwrap()));

    let mut iva8 = ingreso(vec![con(
        concepto("Venta en región fronteriza", dec!(3), dec!(100.10), ObjetoImp::SiObjeto),
        vec![NuevoImpuesto::iva(dec!(0.08))],
    )]);
    iva8.lugar_expedicion = "22000".into();
    documentos.push(("I_iva8", iva8.construir().unwrap()));

    let mut iva0 = ingreso(vec![con(
        concepto("Tortilla de maíz", dec!(10.5), dec!(22), ObjetoImp::SiObjeto),
        vec![NuevoImpuesto::iva(dec!(0))],
    )]);
    iva0.receptor = receptor_fisica();
    documentos.push(("I_iva0", iva0.construir().unwrap()));

    let exento = ingreso(vec![
        con(concepto("Libro de texto", dec!(4), dec!(250), ObjetoImp::SiObjeto), vec![NuevoImpuesto::iva_exento()]),
        concepto("Otro libro", dec!(1), dec!(99.5), ObjetoImp::NoObjeto),
    ]);
    documentos.push(("I_exento", exento.construir().unwrap()));

    let mut honorarios = ingreso(vec![con(
        NuevoConcepto::new("80101500", dec!(1), "E48", "Honorarios por asesoría", dec!(10000), ObjetoImp::SiObjeto),
        vec![
            NuevoImpuesto::iva(dec!(0.16)),
            NuevoImpuesto::retencion_isr(dec!(0.10)),
            NuevoImpuesto::retencion_iva(dec!(0.106667)),
        ],
    )]);
    honorarios.emisor = Emisor {
        rfc: "XIQB891116QE4".into(),
        nombre: "BERENICE XIMO QUEZADA".into(),
        regimen_fiscal: "612".into(),
        fac_atr_adquirente: None,
    };
    documentos.push(("I_retenciones", honorarios.construir().unwrap()));

    let ieps = ingreso(vec![
        con(
            concepto("Refresco 600 ml", dec!(24), dec!(12.5), ObjetoImp::SiObjeto),
            vec![NuevoImpuesto::ieps_tasa(dec!(0.08)), NuevoImpuesto::iva(dec!(0.16))],
        ),
        con(
            concepto("Gasolina magna litros", dec!(40), dec!(20.25), ObjetoImp::SiObjeto),
            vec![NuevoImpuesto::ieps_cuota(dec!(6.1752)), NuevoImpuesto::iva(dec!(0.16))],
        ),
    ]);
    documentos.push(("I_ieps", ieps.construir().unwrap()));

    let mut usd = ingreso(vec![concepto("Licencia anual de software", dec!(3), dec!(1200.55), ObjetoImp::SiObjeto)]);
    usd.moneda = "USD".into();
    usd.tipo_cambio = Some(dec!(17.2545));
    usd.metodo_pago = Some(MetodoPago::Ppd);
    usd.forma_pago = Some(FormaPago::PorDefinir);
    documentos.push(("I_usd", usd.construir().unwrap()));

    let mut global = ingreso(vec![concepto("Venta del día", dec!(1), dec!(5830.17), ObjetoImp::SiObjeto)]);
    global.receptor = Receptor {
        rfc: "XAXX010101000".into(),
        nombre: "PUBLICO EN GENERAL".into(),
        domicilio_fiscal_receptor: "86000".into(),
        residencia_fiscal: None,
        num_reg_id_trib: None,
        regimen_fiscal_receptor: "616".into(),
        uso_cfdi: "S01".into(),
    };
    global.forma_pago = Some(FormaPago::Efectivo);
    global.informacion_global =
        Some(InformacionGlobal { periodicidad: "01".into(), meses: "11".into(), ano: "2026".into() });
    documentos.push(("I_global", global.construir().unwrap()));

    let mut locales = ingreso(vec![concepto("Servicio de hospedaje", dec!(2), dec!(1500), ObjetoImp::SiObjeto)]);
    locales.impuestos_locales = Some(ImpuestosLocales {
        version: "1.0".into(),
        total_de_retenciones: Numero::from(dec!(30.00)),
        total_de_traslados: Numero::from(dec!(90.00)),
        retenciones_locales: vec![RetencionLocal {
            imp_loc_retenido: "RETENCION 1 AL MILLAR".into(),
            tasa_de_retencion: Numero::from(dec!(1.00)),
            importe: Numero::from(dec!(30.00)),
        }],
        traslados_locales: vec![TrasladoLocal {
            imp_loc_trasladado: "ISH".into(),
            tasa_de_traslado: Numero::from(dec!(3.00)),
            importe: Numero::from(dec!(90.00)),
        }],
    });
    documentos.push(("I_implocal", locales.construir().unwrap()));

    let mut egreso = ingreso(vec![NuevoConcepto::new(
        "84111506",
        dec!(1),
        "ACT",
        "Devolución parcial",
        dec!(1000),
        ObjetoImp::SiObjeto,
    )]);
    egreso.tipo = TipoDeComprobante::Egreso;
    egreso.receptor.uso_cfdi = "G02".into();
    egreso.forma_pago = Some(FormaPago::TransferenciaElectronica);
    egreso.cfdi_relacionados = vec![CfdiRelacionados {
        tipo_relacion: TipoRelacion::NotaDeCredito.codigo().into(),
        uuids: vec!["C2832671-DA6D-11EF-A83D-00155D012007".into(), "AF124DC7-BD75-5EFF-8EDF-28C1E7D43B1D".into()],
    }];
    documentos.push(("E_nota_credito", egreso.construir().unwrap()));

    let mut traslado = ingreso(vec![
        NuevoConcepto::new("56101700", dec!(25), "H87", "Sillas escolares", dec!(0), ObjetoImp::NoObjeto),
        NuevoConcepto::new("43211500", dec!(3), "H87", "Computadoras", dec!(0), ObjetoImp::NoObjeto),
    ]);
    traslado.tipo = TipoDeComprobante::Traslado;
    traslado.moneda = "XXX".into();
    traslado.forma_pago = None;
    traslado.metodo_pago = None;
    traslado.receptor = Receptor {
        rfc: "EKU9003173C9".into(),
        nombre: "ESCUELA KEMPER URGATE".into(),
        domicilio_fiscal_receptor: "86000".into(),
        residencia_fiscal: None,
        num_reg_id_trib: None,
        regimen_fiscal_receptor: "601".into(),
        uso_cfdi: "S01".into(),
    };
    documentos.push(("T_traslado", traslado.construir().unwrap()));

    documentos.push(("P_pagos20", pago().construir().unwrap()));
    documentos.push(("N_nomina12", nomina().construir().unwrap()));
    documentos.extend(crate::carta_porte::documentos());
    documentos
}

pub fn pago() -> NuevoComprobante {
    let n = |v: Decimal| Numero::from(v);
    let pagos = Pagos {
        version: "2.0".into(),
        // Computed by NuevoComprobante::recepcion_de_pagos.
        totales: Totales::default(),
        pagos: vec![Pago {
            fecha_pago: "2026-11-19T12:00:00".into(),
            forma_de_pago_p: "03".into(),
            moneda_p: "MXN".into(),
            tipo_cambio_p: Some(Numero::from_texto("1")),
            monto: n(dec!(11600.00)),
            num_operacion: Some("REF-0001".into()),
            doctos_relacionados: vec![DoctoRelacionado {
                id_documento: "C2832671-DA6D-11EF-A83D-00155D012007".into(),
                serie: Some("A".into()),
                folio: Some("1001".into()),
                moneda_dr: "MXN".into(),
                equivalencia_dr: Some(Numero::from_texto("1")),
                num_parcialidad: "1".into(),
                imp_saldo_ant: n(dec!(23200.00)),
                imp_pagado: n(dec!(11600.00)),
                imp_saldo_insoluto: n(dec!(11600.00)),
                objeto_imp_dr: "02".into(),
                impuestos_dr: Some(ImpuestosDR {
                    retenciones_dr: Vec::new(),
                    traslados_dr: vec![TrasladoDR {
                        base_dr: n(dec!(10000.00)),
                        impuesto_dr: "002".into(),
                        tipo_factor_dr: "Tasa".into(),
                        tasa_o_cuota_dr: Some(Numero::from_texto("0.160000")),
                        importe_dr: Some(n(dec!(1600.00))),
                    }],
                }),
            }],
            impuestos_p: Some(ImpuestosP {
                retenciones_p: Vec::new(),
                traslados_p: vec![TrasladoP {
                    base_p: n(dec!(10000.00)),
                    impuesto_p: "002".into(),
                    tipo_factor_p: "Tasa".into(),
                    tasa_o_cuota_p: Some(Numero::from_texto("0.160000")),
                    importe_p: Some(n(dec!(1600.00))),
                }],
            }),
            ..Pago::default()
        }],
    };
    let mut p = NuevoComprobante::recepcion_de_pagos(FECHA, "86000", emisor(), receptor_moral(), pagos).unwrap();
    p.serie = Some("P".into());
    p.folio = Some("1001".into());
    p
}

pub fn nomina() -> NuevoComprobante {
    let n = |v: Decimal| Numero::from(v);
    let nomina = Nomina {
        version: "1.2".into(),
        tipo_nomina: "O".into(),
        fecha_pago: "2026-11-15".into(),
        fecha_inicial_pago: "2026-11-01".into(),
        fecha_final_pago: "2026-11-15".into(),
        num_dias_pagados: Numero::from_texto("15"),
        // Totals computed by NuevoComprobante::recibo_nomina.
        total_percepciones: None,
        total_deducciones: None,
        total_otros_pagos: None,
        emisor: Some(NominaEmisor { registro_patronal: Some("B5510768108".into()), ..NominaEmisor::default() }),
        receptor: NominaReceptor {
            curp: "XIQB891116MCHZRL72".into(),
            num_seguridad_social: Some("04078873454".into()),
            fecha_inicio_rel_laboral: Some("2020-01-01".into()),
            antiguedad: Some("P358W".into()),
            tipo_contrato: "01".into(),
            sindicalizado: Some("No".into()),
            tipo_jornada: Some("01".into()),
            tipo_regimen: "02".into(),
            num_empleado: "000123".into(),
            departamento: Some("Docencia".into()),
            puesto: Some("Profesor".into()),
            riesgo_puesto: Some("1".into()),
            periodicidad_pago: "04".into(),
            salario_base_cot_apor: Some(n(dec!(1050.00))),
            salario_diario_integrado: Some(n(dec!(1050.00))),
            clave_ent_fed: "TAB".into(),
            ..NominaReceptor::default()
        },
        percepciones: Some(Percepciones {
            total_sueldos: None,
            total_gravado: Numero::default(),
            total_exento: Numero::default(),
            percepciones: vec![
                Percepcion {
                    tipo_percepcion: "001".into(),
                    clave: "001".into(),
                    concepto: "Sueldo".into(),
                    importe_gravado: n(dec!(14000.00)),
                    importe_exento: n(dec!(0.00)),
                    ..Percepcion::default()
                },
                Percepcion {
                    tipo_percepcion: "029".into(),
                    clave: "029".into(),
                    concepto: "Vales de despensa".into(),
                    importe_gravado: n(dec!(0.00)),
                    importe_exento: n(dec!(1000.00)),
                    ..Percepcion::default()
                },
            ],
            ..Percepciones::default()
        }),
        deducciones: Some(Deducciones {
            total_otras_deducciones: None,
            total_impuestos_retenidos: None,
            deducciones: vec![
                Deduccion {
                    tipo_deduccion: "002".into(),
                    clave: "002".into(),
                    concepto: "ISR".into(),
                    importe: n(dec!(2040.00)),
                },
                Deduccion {
                    tipo_deduccion: "001".into(),
                    clave: "001".into(),
                    concepto: "IMSS".into(),
                    importe: n(dec!(350.55)),
                },
            ],
        }),
        otros_pagos: vec![OtroPago {
            tipo_otro_pago: "002".into(),
            clave: "002".into(),
            concepto: "Subsidio para el empleo".into(),
            importe: n(dec!(0.00)),
            subsidio_al_empleo: Some(SubsidioAlEmpleo { subsidio_causado: n(dec!(0.00)) }),
            compensacion_saldos_a_favor: None,
        }],
        incapacidades: Vec::new(),
    };
    let receptor = Receptor {
        rfc: "XIQB891116QE4".into(),
        nombre: "BERENICE XIMO QUEZADA".into(),
        domicilio_fiscal_receptor: "86000".into(),
        residencia_fiscal: None,
        num_reg_id_trib: None,
        regimen_fiscal_receptor: "605".into(),
        uso_cfdi: "CN01".into(),
    };
    let mut recibo = NuevoComprobante::recibo_nomina(FECHA, "86000", emisor(), receptor, nomina).unwrap();
    recibo.serie = Some("N".into());
    recibo.folio = Some("1001".into());
    recibo
}
