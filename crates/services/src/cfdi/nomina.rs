//! Payroll receipts as CFDI: one comprobante tipo N with Nómina 1.2 (revision E) per receipt
//! of a calculated period, stamped through the pipeline, and their cancellation.
//!
//! Stamping a period ([`timbrar_periodo`]) checks each receipt on its own (employee active,
//! totalDeducciones ≤ totalPercepciones, the comprobante built and valid by Anexo 20 and the
//! Nómina 1.2 matrix): a failing receipt becomes PENDIENTE with its reason and the others go
//! on; a later call stamps the PENDIENTE ones. Sandbox stamps the whole period as a batch
//! (`pipeline::sellar_en_orden`, one thread per core, with predicted folios, then
//! `pipeline::escribir_lote` a chunk at a time, by a writer task while the next receipts are
//! sealed); each chunk's invoice rows, XML, receipt updates and `nomina.recibo_timbrado`
//! events commit in one transaction. Live takes one stamp
//! per receipt from the balance (TIMBRE_001, nothing stamped, when it cannot cover them all)
//! and sends each receipt through the live two-phase pipeline (`cfdi::live`). Both paths write
//! the receipt's update and event in the stamp's transaction through the pipeline's one
//! stamp-time hook ([`EfectosRecibo`], a `pipeline::Efectos`).

use std::collections::HashMap;
use std::sync::Arc;
use timbra_store::ids::{CfdiId, EmpresaId, IntentoId, PeriodoId, ReciboNominaId, UserId};

use rust_decimal::Decimal;
use serde::Serialize;
use timbra_cfdi::catalogos::Catalogos;
use timbra_cfdi::construccion::NuevoComprobante;
use timbra_cfdi::nomina::{
    CompensacionSaldosAFavor, Deduccion, Deducciones, HorasExtra, Incapacidad, Nomina, NominaEmisor, NominaReceptor,
    OtroPago, Percepcion, Percepciones, SeparacionIndemnizacion, SubsidioAlEmpleo, antiguedad,
};
use timbra_cfdi::numero::Numero;
use timbra_cfdi::{Comprobante, Emisor, Receptor, validacion};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::links::Enlaces;
use super::pipeline::{self, Escrito, Registro, SelladoLote};
use super::{credenciales, fecha_cfdi, hora_local};
use timbra_nomina::periodo::LineasRecibo;
use timbra_store::empresas::EmpresaEmisora;

use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::events::payloads::ReciboTimbrado;
use crate::events::{self, Emission, Event};
use crate::nomina::Empleado;
use timbra_store::nomina_timbrado::{self as db, ReciboFila};
use timbra_store::{Tx, empresas, intentos, timbres};

/// The serie payroll receipts carry (their folios run on their own, apart from invoices').
pub const SERIE_NOMINA: &str = "N";
/// The Idempotency-Key / attempt operation name of a receipt's stamp.
pub const OPERACION: &str = "nomina.timbrar";
/// The most receipts written per transaction in sandbox: bounds the time a chunk holds the
/// write turn (as `group_commit::MAX_BATCH`, but larger: a period's writer has no client
/// waiting per stamp).
const POR_TRANSACCION: usize = 200;
/// The fewest receipts a sandbox chunk waits for (fewer only at the end). A writer that keeps
/// up would otherwise commit two to eight receipts at a time, and a transaction costs about a
/// millisecond whatever it holds (every index page it touches goes to the WAL again): 150
/// commits of a few receipts stamped at 52–56% of the ceiling, 16–20 commits of 64 or more at
/// 66–70%.
const MIN_POR_TRANSACCION: usize = 64;

/// `data` of `POST /api/nomina/periodos/{id}/timbrar`.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct TimbradoPeriodo {
    /// The period.
    pub periodo_id: String,
    /// Receipts this call tried to stamp (CALCULADO and PENDIENTE ones).
    pub total_recibos: usize,
    /// Stamped by this call.
    pub timbrados: usize,
    /// Left PENDIENTE by this call.
    pub errores: usize,
    /// The period's status after this call: TIMBRADO or TIMBRADO_PARCIAL.
    pub status: String,
    /// The receipts stamped by this call.
    pub recibos: Vec<ReciboTimbradoOut>,
    /// The receipts left PENDIENTE, each with what to fix.
    pub detalle_errores: Vec<ErrorRecibo>,
}

/// A receipt stamped.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ReciboTimbradoOut {
    /// The receipt.
    pub recibo_id: String,
    /// The worker.
    pub empleado_nombre: String,
    /// `SANDBOX-` + the XML's UUID in sandbox; the bare UUID in live.
    pub uuid: String,
    /// The CFDI id: `/api/cfdi/{cfdiId}/xml` and `/pdf` download it.
    pub cfdi_id: String,
    /// Net pay (the CFDI Total), exact decimal string.
    #[schema(value_type = String)]
    pub total: Decimal,
    /// Storage path of the XML (as an invoice's `xmlUrl`).
    pub xml_url: String,
    /// `xmlDownloadUrl`, `pdfDownloadUrl` (signed, valid an hour) and `downloadExpiresIn`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub enlaces: Option<Enlaces>,
}

/// A receipt left PENDIENTE.
#[derive(Serialize, ToSchema, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ErrorRecibo {
    /// The receipt.
    pub recibo_id: String,
    /// The worker.
    pub empleado_nombre: String,
    /// Why, and what to fix.
    pub error: String,
}

/// A receipt to stamp, read from its row.
#[derive(Clone, Debug)]
pub struct ReciboParaTimbrar {
    /// Id.
    pub id: String,
    /// The employee.
    pub empleado_id: String,
    /// The employee's name when calculated.
    pub empleado_nombre: String,
    /// The employee as calculated.
    pub empleado: Empleado,
    /// The CFDI lines.
    pub lineas: LineasRecibo,
    /// NumDiasPagados.
    pub dias_pagados: Decimal,
    /// TotalPercepciones.
    pub total_percepciones: Decimal,
    /// TotalDeducciones.
    pub total_deducciones: Decimal,
    /// SubsidioCausado.
    pub subsidio_causado: Decimal,
    /// FechaInicialPago.
    pub fecha_inicio: String,
    /// FechaFinalPago.
    pub fecha_fin: String,
    /// FechaPago.
    pub fecha_pago: String,
    /// The employee is active now.
    pub empleado_activo: bool,
    /// The serie it carries.
    pub serie: String,
    /// TipoNomina: O, or E for an EXTRAORDINARIA period (PeriodicidadPago 99).
    pub tipo_nomina: String,
    /// An EXTRAORDINARIA period's concepto (AGUINALDO, PTU, FINIQUITO).
    pub concepto: Option<String>,
}

impl ReciboParaTimbrar {
    /// Reads a stored receipt; an unreadable one is reported, not stamped.
    fn de(fila: ReciboFila) -> Result<Self, String> {
        let (dias_pagados, total_percepciones, total_deducciones, subsidio_causado) = fila.totales();
        let leido = serde_json::from_str::<Empleado>(&fila.empleado)
            .and_then(|empleado| Ok((empleado, serde_json::from_str::<LineasRecibo>(&fila.lineas)?)));
        let (empleado, lineas) = leido.map_err(|error| {
            tracing::error!(recibo.id = %fila.id, error.message = %error, "stored payroll receipt unreadable");
            "the stored receipt could not be read; recalculate the period (POST /api/nomina/periodos/{id})".to_owned()
        })?;
        Ok(Self {
            id: String::from(fila.id),
            empleado_id: fila.empleado_id,
            empleado_nombre: fila.empleado_nombre,
            empleado,
            lineas,
            dias_pagados,
            total_percepciones,
            total_deducciones,
            subsidio_causado,
            fecha_inicio: fila.fecha_inicio.chars().take(10).collect(),
            fecha_fin: fila.fecha_fin.chars().take(10).collect(),
            fecha_pago: fila.fecha_pago.chars().take(10).collect(),
            empleado_activo: fila.empleado_activo,
            serie: SERIE_NOMINA.to_owned(),
            tipo_nomina: if fila.periodo_tipo == "EXTRAORDINARIA" { "E" } else { "O" }.to_owned(),
            concepto: fila.periodo_concepto,
        })
    }
}

/// c_PeriodicidadPago of a period's periodicidad.
fn periodicidad_pago(periodicidad: &str) -> &'static str {
    match periodicidad.to_uppercase().as_str() {
        "SEMANAL" => "02",
        "CATORCENAL" => "03",
        "QUINCENAL" => "04",
        "MENSUAL" => "05",
        _ => "99",
    }
}

fn dos(valor: Decimal) -> Numero {
    Numero::con_decimales(valor.round_dp(2), 2)
}

fn opcional(texto: &Option<String>) -> Option<String> {
    texto.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned)
}

/// The receipt's comprobante, built and checked: Anexo 20 and the Nómina 1.2 (revision E)
/// rules, every problem in one message that says what to fix.
pub fn comprobante(
    catalogos: &dyn Catalogos,
    empresa: &EmpresaEmisora,
    registro_patronal: &str,
    recibo: &ReciboParaTimbrar,
    fecha: &str,
) -> Result<Comprobante, String> {
    let e = &recibo.empleado;
    let l = &recibo.lineas;
    let clave = |clave: &str, tipo: &str| if clave.trim().is_empty() { tipo.to_owned() } else { clave.to_owned() };
    let percepciones: Vec<Percepcion> = l
        .percepciones
        .iter()
        .map(|p| Percepcion {
            tipo_percepcion: p.tipo.clone(),
            clave: clave(&p.clave, &p.tipo),
            concepto: p.concepto.clone(),
            importe_gravado: dos(p.gravado),
            importe_exento: dos(p.exento),
            acciones_o_titulos: None,
            horas_extra: p
                .horas_extra
                .iter()
                .map(|h| HorasExtra {
                    dias: h.dias.to_string(),
                    tipo_horas: h.tipo_horas.clone(),
                    horas_extra: h.horas.to_string(),
                    importe_pagado: dos(h.importe_pagado),
                })
                .collect(),
        })
        .collect();
    let deducciones: Vec<Deduccion> = l
        .deducciones
        .iter()
        .filter(|d| d.importe > Decimal::ZERO)
        .map(|d| Deduccion {
            tipo_deduccion: d.tipo.clone(),
            clave: clave(&d.clave, &d.tipo),
            concepto: d.concepto.clone(),
            importe: dos(d.importe),
        })
        .collect();
    let mut otros_pagos: Vec<OtroPago> = l
        .otros_pagos
        .iter()
        .map(|o| OtroPago {
            tipo_otro_pago: o.tipo.clone(),
            clave: clave(&o.clave, &o.tipo),
            concepto: o.concepto.clone(),
            importe: dos(o.importe),
            subsidio_al_empleo: (o.tipo == "002")
                .then(|| SubsidioAlEmpleo { subsidio_causado: dos(o.subsidio_causado.unwrap_or_default()) }),
            compensacion_saldos_a_favor: o.compensacion.as_ref().map(|c| CompensacionSaldosAFavor {
                saldo_a_favor: dos(c.saldo_a_favor),
                ano: c.anio.to_string(),
                remanente_sal_fav: dos(c.remanente_sal_fav),
            }),
        })
        .collect();
    // Revision E (NOM105, PAYROLL_2026.md §6): a TipoRegimen 02 receipt reports OtroPago 002
    // even when no subsidy was caused, at zero; since May 2024 the subsidy is never paid in
    // cash, so Importe is 0.00 and SubsidioCausado carries it.
    // An extraordinary receipt (TipoNomina E) carries no subsidy: it belongs to the month's
    // ordinary payroll (PAYROLL_EXTRAS_2026.md §1.4).
    let extraordinaria = recibo.tipo_nomina == "E";
    if !extraordinaria && e.tipo_regimen == "02" && !otros_pagos.iter().any(|o| o.tipo_otro_pago == "002") {
        otros_pagos.push(OtroPago {
            tipo_otro_pago: "002".into(),
            clave: "002".into(),
            concepto: "Subsidio para el empleo".into(),
            importe: dos(Decimal::ZERO),
            subsidio_al_empleo: Some(SubsidioAlEmpleo { subsidio_causado: dos(recibo.subsidio_causado) }),
            compensacion_saldos_a_favor: None,
        });
    }
    let con_registro = !matches!(e.tipo_contrato.as_str(), "09" | "10" | "99");
    let nomina = Nomina {
        version: "1.2".into(),
        tipo_nomina: recibo.tipo_nomina.clone(),
        fecha_pago: recibo.fecha_pago.clone(),
        fecha_inicial_pago: recibo.fecha_inicio.clone(),
        fecha_final_pago: recibo.fecha_fin.clone(),
        num_dias_pagados: Numero::con_decimales(
            recibo.dias_pagados.normalize(),
            recibo.dias_pagados.normalize().scale(),
        ),
        total_percepciones: None,
        total_deducciones: None,
        total_otros_pagos: None,
        emisor: con_registro
            .then(|| NominaEmisor { registro_patronal: Some(registro_patronal.to_owned()), ..NominaEmisor::default() }),
        receptor: NominaReceptor {
            curp: e.curp.clone(),
            num_seguridad_social: opcional(&e.nss),
            fecha_inicio_rel_laboral: Some(e.fecha_inicio_rel_laboral.clone()),
            antiguedad: antiguedad(&e.fecha_inicio_rel_laboral, &recibo.fecha_fin),
            tipo_contrato: e.tipo_contrato.clone(),
            sindicalizado: None,
            tipo_jornada: opcional(&e.tipo_jornada),
            tipo_regimen: e.tipo_regimen.clone(),
            num_empleado: e.num_empleado.clone(),
            departamento: opcional(&e.departamento),
            puesto: opcional(&e.puesto),
            riesgo_puesto: Some(e.riesgo_puesto.clone()).filter(|r| !r.is_empty()),
            periodicidad_pago: if extraordinaria { "99" } else { periodicidad_pago(&e.periodicidad) }.to_owned(),
            // A CLABE (18 digits) carries no Banco (NOM62-65).
            banco: opcional(&e.banco).filter(|_| e.cuenta_bancaria.as_deref().map(str::len) != Some(18)),
            cuenta_bancaria: opcional(&e.cuenta_bancaria),
            salario_base_cot_apor: Some(dos(e.salario_diario_integrado)),
            salario_diario_integrado: Some(dos(e.salario_diario_integrado)),
            clave_ent_fed: e.clave_ent_fed.clone(),
            subcontratacion: Vec::new(),
        },
        percepciones: (!percepciones.is_empty()).then(|| Percepciones {
            percepciones,
            separacion_indemnizacion: l.separacion.as_ref().map(|s| SeparacionIndemnizacion {
                total_pagado: dos(s.total_pagado),
                num_anos_servicio: s.num_anios_servicio.to_string(),
                ultimo_sueldo_mens_ord: dos(s.ultimo_sueldo_mens_ord),
                ingreso_acumulable: dos(s.ingreso_acumulable),
                ingreso_no_acumulable: dos(s.ingreso_no_acumulable),
            }),
            ..Percepciones::default()
        }),
        deducciones: (!deducciones.is_empty()).then(|| Deducciones { deducciones, ..Deducciones::default() }),
        otros_pagos,
        incapacidades: l
            .incapacidades
            .iter()
            .map(|i| Incapacidad {
                dias_incapacidad: i.dias.to_string(),
                tipo_incapacidad: i.tipo.clone(),
                importe_monetario: None,
            })
            .collect(),
    };
    let emisor = Emisor {
        rfc: empresa.rfc.clone(),
        nombre: empresa.razon_social.clone(),
        regimen_fiscal: empresa.regimen_fiscal.clone(),
        fac_atr_adquirente: None,
    };
    let receptor = Receptor {
        rfc: e.rfc.clone(),
        nombre: e.nombre.clone(),
        domicilio_fiscal_receptor: e.codigo_postal.clone(),
        residencia_fiscal: None,
        num_reg_id_trib: None,
        regimen_fiscal_receptor: "605".into(),
        uso_cfdi: "CN01".into(),
    };
    let mut nuevo = NuevoComprobante::recibo_nomina(fecha, &empresa.codigo_postal, emisor, receptor, nomina)
        .map_err(|e| e.to_string())?;
    nuevo.serie = Some(recibo.serie.clone());
    let comprobante = nuevo.construir().map_err(|e| e.to_string())?;
    let informe = validacion::validar(&comprobante, catalogos);
    if !informe.es_valido() {
        let problemas: Vec<String> =
            informe.problemas.iter().map(|p| format!("{}: {} ({})", p.campo, p.mensaje, p.regla)).collect();
        return Err(format!(
            "the receipt breaks SAT's rules; fix the employee or the calculation: {}",
            problemas.join("; ")
        ));
    }
    Ok(comprobante)
}

/// The checks of one receipt before it is built (SPEC: employee active, totalDeducciones ≤
/// totalPercepciones).
fn revisar(recibo: &ReciboParaTimbrar) -> Result<(), String> {
    // A finiquito pays the employee its baja deactivated; a PTU is owed to those who left too.
    if !recibo.empleado_activo && !matches!(recibo.concepto.as_deref(), Some("FINIQUITO" | "PTU")) {
        return Err(format!(
            "employee {} is no longer active: re-activate them (PATCH /api/nomina/empleados/{} with activo: true) \
             or recalculate the period",
            recibo.empleado.nombre, recibo.empleado_id
        ));
    }
    if recibo.total_deducciones > recibo.total_percepciones {
        return Err(format!(
            "totalDeducciones {} exceeds totalPercepciones {}: a receipt cannot pay a negative amount; \
             review the DEDUCCION incidences of this employee and recalculate",
            recibo.total_deducciones, recibo.total_percepciones
        ));
    }
    Ok(())
}

/// A receipt built and checked, waiting for its stamp.
struct Listo {
    recibo: ReciboParaTimbrar,
    comprobante: Comprobante,
    registro: Registro,
}

/// Reads, checks and builds every receipt, in parallel on the blocking pool (a chunk per
/// core): the receipts ready to stamp, in their order, and those that fail with the reason.
async fn preparar(
    catalogos: &Arc<crate::catalogos::CatalogosSat>,
    empresa: &EmpresaEmisora,
    registro_patronal: String,
    recibos: Vec<ReciboFila>,
    fecha_local: OffsetDateTime,
) -> ApiResult<(Vec<Listo>, Vec<ErrorRecibo>)> {
    let fecha = Arc::new(fecha_cfdi(fecha_local));
    let registro_patronal = Arc::new(registro_patronal);
    let nucleos = std::thread::available_parallelism().map_or(2, usize::from);
    let por_tarea = recibos.len().div_ceil(nucleos).max(1);
    let mut recibos = recibos.into_iter().peekable();
    let mut tareas = Vec::new();
    while recibos.peek().is_some() {
        let parte: Vec<ReciboFila> = recibos.by_ref().take(por_tarea).collect();
        let (empresa, registro_patronal, fecha) = (empresa.clone(), registro_patronal.clone(), fecha.clone());
        let catalogos = catalogos.clone();
        tareas.push(tokio::task::spawn_blocking(move || {
            parte
                .into_iter()
                .map(|fila| preparar_uno(&*catalogos.indice, &empresa, &registro_patronal, fila, &fecha, fecha_local))
                .collect::<Vec<_>>()
        }));
    }
    let (mut listos, mut errores) = (Vec::new(), Vec::new());
    for tarea in tareas {
        for hecho in tarea.await.map_err(|e| ApiError::internal("nomina", e))? {
            match hecho {
                Ok(listo) => listos.push(listo),
                Err(error) => errores.push(error),
            }
        }
    }
    Ok((listos, errores))
}

/// One receipt read, checked and built.
fn preparar_uno(
    catalogos: &dyn Catalogos,
    empresa: &EmpresaEmisora,
    registro_patronal: &str,
    fila: ReciboFila,
    fecha: &str,
    fecha_local: OffsetDateTime,
) -> Result<Listo, ErrorRecibo> {
    let (recibo_id, empleado_nombre) = (fila.id.clone(), fila.empleado_nombre.clone());
    let falla = |error| ErrorRecibo {
        recibo_id: recibo_id.as_str().to_owned(),
        empleado_nombre: empleado_nombre.clone(),
        error,
    };
    let recibo = ReciboParaTimbrar::de(fila).map_err(falla)?;
    let comprobante = revisar(&recibo)
        .and_then(|()| comprobante(catalogos, empresa, registro_patronal, &recibo, fecha))
        .map_err(falla)?;
    let cfdi_id = CfdiId::new();
    let xml_path =
        format!("cfdi/{}/{:04}/{:02}/{cfdi_id}.xml", empresa.id, fecha_local.year(), u8::from(fecha_local.month()));
    let registro = Registro {
        cfdi_id,
        sandbox: empresa.sandbox,
        serie: recibo.serie.clone(),
        cliente_id: None,
        xml_path,
        operacion: OPERACION,
    };
    Ok(Listo { recibo, comprobante, registro })
}

/// Stamps the CALCULADO and PENDIENTE receipts of period `periodo_id` of `empresa_id`.
///
/// # Errors
/// NOT_FOUND no such period in the company; NOMINA_011 not calculated; NOMINA_002 no registro patronal;
/// CFDI_002/CFDI_003 the CSD (live); TIMBRE_001 the balance cannot cover the receipts (live);
/// NOMINA_999 the unexpected (logged with the period and company).
pub async fn timbrar_periodo(
    app: &AppContext,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
    user_id: &UserId,
) -> ApiResult<TimbradoPeriodo> {
    let now = app.clock.now();
    let fecha_local = hora_local(now.replace_nanosecond(0).unwrap_or(now));
    let (empresa, registro_patronal, periodo) = {
        let mut conn = app.db.conn().await?;
        let empresa = empresas::emisora(&mut conn, empresa_id).await?;
        let registro = empresas::registro_patronal(&mut conn, empresa_id).await?;
        let periodo = timbra_store::nomina::periodo(&mut conn, empresa_id, periodo_id).await?;
        (empresa, registro, periodo)
    };
    let periodo = periodo.ok_or_else(|| ApiError::not_found("payroll period"))?;
    if periodo.status == "ABIERTO" {
        return Err(ApiError::new(
            Code::Nomina011,
            format!("period {periodo_id} is ABIERTO: calculate it first (POST /api/nomina/periodos/{periodo_id})"),
        ));
    }
    let Some(registro_patronal) = registro_patronal.filter(|r| !r.trim().is_empty()) else {
        return Err(ApiError::new(
            Code::Nomina002,
            "the company has no employer registration: set registroPatronal (PATCH /api/empresas/{id}) and stamp again",
        ));
    };
    let recibos = {
        let mut conn = app.db.conn().await?;
        db::por_timbrar(&mut conn, empresa_id, periodo_id).await?
    };
    let total_recibos = recibos.len();
    // The receipts' `Fecha` is the LugarExpedicion's local time; the TFD's stays in the Centro.
    let expedicion = super::hora_de_expedicion(&*app.catalogos.indice, &empresa.codigo_postal, now);
    let (listos, mut errores) = preparar(&app.catalogos, &empresa, registro_patronal, recibos, expedicion).await?;
    if !empresa.sandbox {
        // One stamp per receipt: the balance must cover every receipt to stamp, or none is.
        let saldo = {
            let mut conn = app.db.conn().await?;
            timbres::saldo(&mut conn, empresa_id).await?
        };
        let necesarios = i64::try_from(listos.len()).unwrap_or(i64::MAX);
        if saldo < necesarios {
            return Err(ApiError::new(
                Code::Timbre001,
                format!(
                    "{necesarios} receipts to stamp need {necesarios} stamps and the balance is {saldo}: \
                     add stamps at POST /api/timbres/recargas (PROPIETARIO); nothing was stamped"
                ),
            )
            .with_details(serde_json::json!({ "saldo": saldo, "necesarios": necesarios })));
        }
    }
    // The failures first, in one transaction: they stay PENDIENTE whatever happens next.
    if !errores.is_empty() {
        let mut tx = app.db.begin().await?;
        for error in &errores {
            db::marcar_pendiente(&mut tx, empresa_id, &error.recibo_id, &error.error, now).await?;
        }
        tx.commit().await?;
    }
    let resultado = if empresa.sandbox {
        sandbox(app, &empresa, &periodo.id, listos, fecha_local, now).await
    } else {
        live(app, &empresa, user_id, listos, fecha_local, now).await
    };
    let (mut timbrados, fallidos) = resultado.map_err(|error| inesperado(error, empresa_id, periodo_id))?;
    let secret = app.cfdi.link_secret()?;
    for recibo in &mut timbrados {
        recibo.enlaces = Some(Enlaces::de(&secret, &recibo.xml_url, app.clock.now().unix_timestamp()));
    }
    errores.extend(fallidos);
    let status = {
        let mut tx = app.db.begin().await?;
        let status = db::actualizar_status_periodo(&mut tx, empresa_id, periodo_id, now).await?;
        tx.commit().await?;
        status
    };
    Ok(TimbradoPeriodo {
        periodo_id: String::from(periodo.id),
        total_recibos,
        timbrados: timbrados.len(),
        errores: errores.len(),
        status,
        recibos: timbrados,
        detalle_errores: errores,
    })
}

/// NOMINA_999 for what was not foreseen, logged with its context; a client error (the CSD,
/// the database being busy) keeps its own code.
fn inesperado(error: ApiError, empresa_id: &EmpresaId, periodo_id: &PeriodoId) -> ApiError {
    if error.code.status().is_server_error() && !matches!(error.code, Code::Busy001 | Code::Live001) {
        tracing::error!(empresa.id = %empresa_id, periodo.id = %periodo_id, error.code = error.code.as_str(),
            error.message = %error.message, "payroll stamping failed unexpectedly");
        ApiError::new(
            Code::Nomina999,
            format!(
                "stamping period {periodo_id} failed unexpectedly ({}); receipts already stamped stay stamped, \
                 call again to stamp the rest",
                error.code.as_str()
            ),
        )
    } else {
        error
    }
}

/// Sandbox: every receipt sealed with a predicted folio, one thread per core in receipt order
/// (`pipeline::sellar_en_orden`), and written as they come by a writer task that commits what
/// has been sealed since its last commit (up to [`POR_TRANSACCION`]), in folio order.
async fn sandbox(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    periodo_id: &PeriodoId,
    listos: Vec<Listo>,
    fecha_local: OffsetDateTime,
    now: OffsetDateTime,
) -> ApiResult<(Vec<ReciboTimbradoOut>, Vec<ErrorRecibo>)> {
    if listos.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let csd = credenciales::csd_sandbox(app, &empresa.id, &empresa.rfc, &empresa.razon_social).await?;
    let pac = credenciales::pac_sandbox(app).await?;
    let serie = listos[0].registro.serie.clone();
    let ultimo = pipeline::ultimo_folio(app, &empresa.id, true, &serie).await?;
    let (enviar, mut recibir) = tokio::sync::mpsc::channel::<(ReciboParaTimbrar, SelladoLote)>(2 * POR_TRANSACCION);
    let por_escribir = listos.len();
    let escritor = {
        let (app, empresa, periodo_id) = (app.clone(), empresa.clone(), periodo_id.to_owned());
        let (csd, pac) = (csd.clone(), pac.clone());
        tokio::spawn(async move {
            let mut timbrados = Vec::with_capacity(por_escribir);
            let mut tanda = Vec::with_capacity(POR_TRANSACCION);
            // Whatever was sealed while the last chunk committed, at least MIN_POR_TRANSACCION
            // (every receipt sent comes): chunks follow the pace of the commits, and the one
            // left after the last seal is small.
            loop {
                let tamano = MIN_POR_TRANSACCION..=POR_TRANSACCION;
                super::group_commit::llenar_lote(&mut recibir, &mut tanda, tamano, None, || true).await;
                if tanda.is_empty() {
                    break;
                }
                let tanda = std::mem::replace(&mut tanda, Vec::with_capacity(POR_TRANSACCION));
                let ultima = timbrados.len() + tanda.len() == por_escribir;
                let escritos =
                    escribir_tanda(&app, &empresa, &periodo_id, tanda, ultima, &csd, &pac, fecha_local, now).await?;
                timbrados.extend(escritos);
            }
            Ok::<_, ApiError>(timbrados)
        })
    };
    let mut recibos = Vec::with_capacity(listos.len());
    let trabajos: Vec<pipeline::Trabajo> = listos
        .into_iter()
        .zip(ultimo + 1..)
        .map(|(Listo { recibo, comprobante, registro }, folio)| {
            let datos = pipeline::timbre_sandbox(fecha_local);
            recibos.push((recibo, registro, datos.clone(), folio));
            (Arc::new(comprobante) as super::documento::PorSellar, folio, datos)
        })
        .collect();
    let mut sellos = pipeline::sellar_en_orden(trabajos, &csd, &pac);
    let mut sellado_fallido = None;
    for (recibo, registro, datos, folio) in recibos {
        let hecho =
            sellos.siguiente().await.unwrap_or_else(|| Err(ApiError::internal("sello", "a sealing thread stopped")));
        let sellado = hecho.and_then(|(contenido, sellado, xml_comprimido)| {
            Ok(SelladoLote {
                fila: sellado.fila(&*app.catalogos.indice)?,
                registro,
                contenido,
                datos,
                folio,
                xml_comprimido,
            })
        });
        match sellado {
            Ok(sellado) => {
                if enviar.send((recibo, sellado)).await.is_err() {
                    // The writer stopped on an error: it says which.
                    break;
                }
            }
            Err(error) => {
                sellado_fallido = Some(error);
                break;
            }
        }
    }
    drop(enviar);
    let timbrados = escritor.await.map_err(|e| ApiError::internal("nomina", e))??;
    match sellado_fallido {
        // What was written stays written; the unexpected failure is reported.
        Some(error) => Err(error),
        None => Ok((timbrados, Vec::new())),
    }
}

/// One chunk of sandbox receipts in one transaction: folios, invoice rows and XML
/// (`pipeline::escribir_lote`), the receipts TIMBRADO_SANDBOX and their events; `ultima` when
/// no receipt of the call is left to write after it.
#[allow(clippy::too_many_arguments)]
async fn escribir_tanda(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    periodo_id: &PeriodoId,
    tanda: Vec<(ReciboParaTimbrar, SelladoLote)>,
    ultima: bool,
    csd: &Arc<credenciales::Csd>,
    pac: &Arc<timbra_credentials::Credential>,
    fecha_local: OffsetDateTime,
    now: OffsetDateTime,
) -> ApiResult<Vec<ReciboTimbradoOut>> {
    let (recibos, mut lote): (Vec<_>, Vec<_>) = tanda.into_iter().unzip();
    let serie = lote[0].registro.serie.clone();
    let efectos = EfectosRecibo {
        lote: Some(Tanda {
            periodo_id: periodo_id.clone(),
            recibos: recibos
                .iter()
                .zip(&lote)
                .map(|(recibo, sellado)| (sellado.registro.cfdi_id.clone(), ReciboNominaId::from(&recibo.id)))
                .collect(),
            ultima,
        }),
    };
    let mut tx = app.db.begin().await?;
    pipeline::escribir_lote(&mut tx, &empresa.id, &serie, &mut lote, Some(&efectos), csd, pac, fecha_local, now)
        .await?;
    tx.commit().await?;
    let timbrados: Vec<ReciboTimbradoOut> = recibos
        .into_iter()
        .zip(&lote)
        .map(|(recibo, sellado)| ReciboTimbradoOut {
            recibo_id: recibo.id,
            empleado_nombre: recibo.empleado_nombre,
            uuid: sellado.uuid_api(),
            cfdi_id: sellado.registro.cfdi_id.as_str().to_owned(),
            total: sellado.fila.total(),
            xml_url: sellado.registro.xml_path.clone(),
            enlaces: None,
        })
        .collect();
    for _ in &timbrados {
        crate::metrics::metrics().stamp(true, "stamped");
    }
    Ok(timbrados)
}

/// Live: each receipt through the two-phase pipeline, one after the other; a refusal or an
/// unknown outcome leaves that receipt PENDIENTE with the PAC's reason (an unknown one is
/// resent, not stamped twice, by the next call or the reconciliation job).
async fn live(
    app: &AppContext,
    empresa: &EmpresaEmisora,
    user_id: &UserId,
    listos: Vec<Listo>,
    fecha_local: OffsetDateTime,
    now: OffsetDateTime,
) -> ApiResult<(Vec<ReciboTimbradoOut>, Vec<ErrorRecibo>)> {
    let mut timbrados = Vec::new();
    let mut errores = Vec::new();
    if listos.is_empty() {
        return Ok((timbrados, errores));
    }
    // What would fail every receipt alike fails the call instead: no CSD, an expired one, no PAC.
    credenciales::csd_live(app, &empresa.id, now).await?;
    if app.pac.is_none() {
        return Err(ApiError::new(
            Code::Live001,
            "live stamping needs a PAC: the installation must set TIMBRA_PAC_URL; switch the company to sandbox: true to test",
        ));
    }
    for Listo { recibo, comprobante, registro } in listos {
        let peticion = pipeline::Peticion {
            empresa,
            user_id,
            mode: "live",
            clave: None,
            // A retry of the period finds this receipt's unresolved attempt and resends it.
            request_hash: format!("{OPERACION}:{}", recibo.id),
            now,
            fecha_local,
        };
        // The attempt this stamp goes out as: an unresolved one of an earlier call is resent.
        {
            let mut conn = app.db.conn().await?;
            let pendiente = intentos::pendiente_por_hash(&mut conn, &empresa.id, &peticion.request_hash).await?;
            drop(conn);
            let intento_id = pendiente
                .map_or_else(|| IntentoId::from(registro.cfdi_id.as_str()), |intento| IntentoId::from(intento.id));
            let mut tx = app.db.begin().await?;
            db::vincular_intento(&mut tx, &empresa.id, &ReciboNominaId::from(&recibo.id), &intento_id).await?;
            tx.commit().await?;
        }
        let efectos: Arc<dyn pipeline::Efectos> = Arc::new(EfectosRecibo::default());
        match pipeline::timbrar_con_registro(app, &peticion, Arc::new(comprobante), registro, Some(efectos)).await {
            Ok(_) => {
                let mut conn = app.db.conn().await?;
                let fila =
                    timbra_store::nomina::recibo(&mut conn, &empresa.id, &ReciboNominaId::from(&recibo.id)).await?;
                match fila {
                    Some(fila) if fila.cfdi_id.is_some() && fila.uuid.is_some() => timbrados.push(ReciboTimbradoOut {
                        recibo_id: recibo.id.clone(),
                        empleado_nombre: recibo.empleado_nombre.clone(),
                        uuid: fila.uuid.unwrap_or_default(),
                        cfdi_id: fila.cfdi_id.map(String::from).unwrap_or_default(),
                        total: fila.neto.0,
                        xml_url: fila.xml_url.unwrap_or_default(),
                        enlaces: None,
                    }),
                    _ => return Err(ApiError::internal("nomina", "a stamped receipt was not recorded")),
                }
            }
            Err(error)
                if error.code.status().is_server_error() && !matches!(error.code, Code::Pac001 | Code::Pac002) =>
            {
                return Err(error);
            }
            Err(error) => {
                let motivo = format!("{}: {}", error.code.as_str(), error.message);
                let mut tx = app.db.begin().await?;
                db::marcar_pendiente(&mut tx, &empresa.id, &recibo.id, &motivo, now).await?;
                tx.commit().await?;
                errores.push(ErrorRecibo {
                    recibo_id: recibo.id.clone(),
                    empleado_nombre: recibo.empleado_nombre.clone(),
                    error: motivo,
                });
            }
        }
    }
    Ok((timbrados, errores))
}

/// A receipt's stamp-time hooks ([`pipeline::Efectos`]): with its stamp, the receipt becomes
/// TIMBRADO (TIMBRADO_SANDBOX) with its CFDI and UUID, its `nomina.recibo_timbrado` is emitted
/// instead of `factura.timbrada`, and its period's status follows, in the stamp's transaction
/// (a sandbox chunk, a live persist, or the reconciliation job's).
#[derive(Default)]
pub(super) struct EfectosRecibo {
    /// A sandbox chunk's receipts; without it (live) each receipt is found by its attempt or
    /// CFDI.
    lote: Option<Tanda>,
}

/// The receipts of a sandbox chunk, all of one period.
struct Tanda {
    periodo_id: PeriodoId,
    /// Receipt id by CFDI id.
    recibos: HashMap<CfdiId, ReciboNominaId>,
    /// No receipt of the call is left to write after this chunk. Before the last chunk the
    /// period is TIMBRADO_PARCIAL for certain (this chunk stamped, the rest not yet), which
    /// one row's update records; the last chunk counts the period's receipts for the exact
    /// status. Counting on every chunk read all the period's receipts each time: 2–8 ms a chunk.
    ultima: bool,
}

/// The hooks of a receipt known only by its stored attempt (`cfdi::live`).
pub(super) static EFECTOS_RECIBO: EfectosRecibo = EfectosRecibo { lote: None };

/// A payroll receipt (type N): stamped by period, `POST /api/nomina/periodos/{id}/timbrar`.
pub static TIPO: super::tipos::TipoDocumento = super::tipos::TipoDocumento {
    operacion: OPERACION,
    ruta: "POST /api/nomina/periodos/{id}/timbrar",
    tipos_comprobante: &["N"],
    efectos_guardados: Some(&EFECTOS_RECIBO),
    // The receipt follows its CFDI.
    al_cancelar: |tx, empresa_id, cfdi_id, now| {
        Box::pin(async move {
            timbra_store::nomina_timbrado::cancelado_por_cfdi(tx, empresa_id, cfdi_id, now).await?;
            Ok(())
        })
    },
    leer_timbrado: super::documento::leer_comprobante,
    servicio_pac: timbra_pac::Servicio::Cfdi,
};

impl EfectosRecibo {
    async fn persistir(&self, tx: &mut Tx, escritos: &[Escrito<'_>]) -> ApiResult<()> {
        let mut emisiones = Vec::with_capacity(escritos.len());
        let mut marcados: Vec<(String, &Escrito<'_>)> = Vec::with_capacity(escritos.len());
        let mut periodos: Vec<(&str, String, OffsetDateTime)> = Vec::new();
        let mut de_periodo: Vec<String> = Vec::with_capacity(escritos.len());
        for escrito in escritos {
            let (empresa_id, cfdi_id) = (escrito.empresa_id, &escrito.registro.cfdi_id);
            let recibo = match &self.lote {
                Some(tanda) => tanda.recibos.get(cfdi_id).map(|recibo| (recibo.clone(), tanda.periodo_id.clone())),
                None => db::por_cfdi(tx, empresa_id, cfdi_id).await?,
            };
            let Some((recibo_id, periodo_id)) = recibo else {
                return Err(ApiError::internal("nomina", format!("no receipt holds CFDI {cfdi_id}")));
            };
            marcados.push((recibo_id.as_str().to_owned(), escrito));
            de_periodo.push(periodo_id.as_str().to_owned());
            if !periodos.iter().any(|(empresa, periodo, _)| *empresa == empresa_id && *periodo == periodo_id) {
                periodos.push((empresa_id.as_str(), periodo_id.as_str().to_owned(), escrito.now));
            }
            emisiones.push(Emission {
                now: escrito.now,
                empresa_id,
                event: Event::NominaReciboTimbrado(ReciboTimbrado {
                    recibo_id: String::from(recibo_id),
                    periodo_id: String::from(periodo_id),
                    uuid: escrito.uuid_api.to_owned(),
                    xml_url: escrito.registro.xml_path.clone(),
                    total: escrito.fila.total(),
                }),
            });
        }
        let recibos: Vec<db::ReciboTimbrado<'_>> = marcados
            .iter()
            .map(|(recibo_id, escrito)| db::ReciboTimbrado {
                empresa_id: escrito.empresa_id,
                id: recibo_id,
                sandbox: escrito.registro.sandbox,
                cfdi_id: &escrito.registro.cfdi_id,
                uuid: escrito.uuid_api,
                now: escrito.now,
            })
            .collect();
        // One statement for the whole chunk.
        db::marcar_timbrados(tx, &recibos).await?;
        events::emit_many(tx, &emisiones).await?;
        // Each receipt's e-mail to its employee, when its period asks for it (`enviarCorreo`):
        // written with the stamp, so an acknowledged receipt never loses its e-mail.
        let mut con_correo: Vec<(&str, &str)> = Vec::new();
        for (empresa_id, periodo_id, _) in &periodos {
            if timbra_store::nomina::enviar_correo(tx, &EmpresaId::from(*empresa_id), &PeriodoId::from(periodo_id))
                .await?
            {
                con_correo.push((empresa_id, periodo_id));
            }
        }
        if !con_correo.is_empty() {
            for ((_, escrito), periodo_id) in marcados.iter().zip(&de_periodo) {
                if con_correo
                    .iter()
                    .any(|(empresa_id, periodo)| *empresa_id == escrito.empresa_id && periodo == periodo_id)
                {
                    crate::correo::al_persistir_timbre(
                        tx,
                        escrito.now,
                        true,
                        escrito.empresa_id,
                        &escrito.registro.cfdi_id,
                        "N",
                    )
                    .await?;
                }
            }
        }
        for (empresa_id, periodo_id, now) in periodos {
            match &self.lote {
                Some(tanda) if !tanda.ultima => {
                    timbra_store::nomina::set_status_periodo(
                        tx,
                        &EmpresaId::from(empresa_id),
                        &PeriodoId::from(&periodo_id),
                        "TIMBRADO_PARCIAL",
                        now,
                    )
                    .await?;
                }
                _ => {
                    db::actualizar_status_periodo(tx, &EmpresaId::from(empresa_id), &PeriodoId::from(&periodo_id), now)
                        .await?;
                }
            }
        }
        Ok(())
    }
}

impl pipeline::Efectos for EfectosRecibo {
    fn al_persistir<'a, 'b: 'a>(&'a self, tx: &'a mut Tx, escritos: &'a [Escrito<'b>]) -> pipeline::Hecho<'a> {
        Box::pin(self.persistir(tx, escritos))
    }
}

/// Body of `POST /api/nomina/periodos/{id}/cancelar`.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelarReciboBody {
    /// The receipt to cancel.
    pub recibo_id: String,
    /// c_MotivoCancelacion: `01` with a replacement (needs `folioSustitucion`), `02` errors
    /// without relation, `03` not carried out, `04` nominative in a global invoice.
    pub motivo: String,
    /// UUID of the receipt that replaces this one (motivo 01 only; `SANDBOX-` prefix accepted).
    pub folio_sustitucion: Option<String>,
}

/// `data` of `POST /api/nomina/periodos/{id}/cancelar`.
#[derive(Serialize, ToSchema, Debug)]
#[serde(rename_all = "camelCase")]
pub struct CancelacionRecibo {
    /// The receipt.
    pub recibo_id: String,
    /// The receipt's UUID as the API shows it.
    pub uuid: String,
    /// CANCELADO when SAT says so (a payroll receipt needs no acceptance: at once in sandbox
    /// and, normally, live); TIMBRADO while SAT has not decided (a job follows it).
    pub status: String,
    /// What SAT's status said: SIN_ACEPTACION (cancelled), SOLICITADA or PENDIENTE.
    pub cancellation_status: String,
    /// SAT's acuse as XML text (sandbox: an acuse the sandbox writes, unsigned).
    pub acuse: String,
    /// The worker's name.
    pub empleado: String,
}

/// The acuse a sandbox cancellation gives, in the shape of SAT's (`Acuse`/`Folios`), unsigned
/// and marked as sandbox: nothing reached SAT.
fn acuse_sandbox(rfc_emisor: &str, uuid: &str, fecha: &str) -> String {
    let escapar =
        |texto: &str| texto.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><Acuse xmlns=\"http://cancelacfd.sat.gob.mx\" Fecha=\"{}\" \
         RfcEmisor=\"{}\" Sandbox=\"true\"><Folios><UUID>{}</UUID><EstatusUUID>201</EstatusUUID></Folios></Acuse>",
        escapar(fecha),
        escapar(rfc_emisor),
        escapar(uuid)
    )
}

/// NOT_FOUND when the company has no payroll period `periodo_id` (checked before a body is
/// read: an id of another company is NOT_FOUND whatever the body says).
pub async fn exigir_periodo(app: &AppContext, empresa_id: &EmpresaId, periodo_id: &PeriodoId) -> ApiResult<()> {
    let mut conn = app.db.conn().await?;
    timbra_store::nomina::periodo(&mut conn, empresa_id, periodo_id)
        .await?
        .map(|_| ())
        .ok_or_else(|| ApiError::not_found("payroll period"))
}

/// Cancels the receipt `body` names (a [`CancelarReciboBody`]) of period `periodo_id` with the invoices' rules and guarantees
/// (`cfdi::cancelacion`): the same motivo and folioSustitucion checks, live through the PAC
/// with SAT's acuse stored; the receipt becomes CANCELADO when SAT says the CFDI is, and the
/// stamp it took is given back then (live). The period keeps its status.
///
/// # Errors
/// NOT_FOUND no such receipt in the period and company; NOMINA_012 not stamped or already cancelled;
/// CANCEL_001/003/004 as for invoices; CFDI_002/003, LIVE_001, PAC_001/002 live.
pub async fn cancelar_recibo(
    app: &AppContext,
    empresa_id: &EmpresaId,
    periodo_id: &PeriodoId,
    body: &CancelarReciboBody,
    user_id: &UserId,
) -> ApiResult<CancelacionRecibo> {
    exigir_periodo(app, empresa_id, periodo_id).await?;
    let (recibo_id, motivo, folio_sustitucion) = (&body.recibo_id, &body.motivo, body.folio_sustitucion.as_deref());
    let no_existe = || ApiError::not_found("payroll receipt of this period");
    let recibo = {
        let mut conn = app.db.conn().await?;
        timbra_store::nomina::recibo(&mut conn, empresa_id, &ReciboNominaId::from(recibo_id)).await?
    }
    .filter(|r| r.periodo_id == periodo_id)
    .ok_or_else(no_existe)?;
    let no_cancelable = |status: &str| {
        ApiError::new(
            Code::Nomina012,
            format!(
                "receipt {recibo_id} is {status}: only a stamped receipt (TIMBRADO, TIMBRADO_SANDBOX) can be cancelled"
            ),
        )
    };
    let Some(cfdi_id) = recibo.cfdi_id.clone().filter(|_| recibo.status != "CANCELADO") else {
        return Err(no_cancelable(&recibo.status));
    };
    let fila = {
        let mut conn = app.db.conn().await?;
        timbra_store::cfdis::por_cancelar(&mut conn, empresa_id, &cfdi_id).await?
    }
    .ok_or_else(|| {
        ApiError::internal("nomina", format!("receipt {recibo_id} names CFDI {cfdi_id}, which is missing"))
    })?;
    let (motivo, sustitucion) = super::cancelacion::revisar(app, empresa_id, &fila, motivo, folio_sustitucion).await?;
    let now = app.clock.now();
    let datos = super::cancelacion::Datos {
        cfdi_id: &cfdi_id,
        uuid: &fila.uuid,
        motivo: &motivo,
        tipo_comprobante: &fila.tipo_comprobante,
        sandbox: fila.sandbox,
    };
    let (estado, acuse, acuse_path) = if fila.sandbox {
        let fecha = fecha_cfdi(hora_local(now.replace_nanosecond(0).unwrap_or(now)));
        let acuse = acuse_sandbox(&fila.emisor_rfc, &fila.uuid_xml, &fecha);
        let path = super::cancelacion::guardar_acuse(app, empresa_id, cfdi_id.as_str(), &fila, acuse.clone()).await?;
        (timbra_store::estados::EstadoCancelacion::SinAceptacion, acuse, path)
    } else {
        let solicitada = super::cancelacion::solicitar(
            app,
            empresa_id,
            cfdi_id.as_str(),
            &fila,
            &motivo,
            sustitucion.as_deref(),
            now,
        )
        .await?;
        (solicitada.estado, solicitada.acuse, solicitada.acuse_path)
    };
    let mut tx = app.db.begin().await?;
    super::cancelacion::registrar(&mut tx, now, empresa_id, &datos, estado, sustitucion.as_deref(), Some(&acuse_path))
        .await?;
    if estado.cancelado() {
        db::marcar_cancelado(&mut tx, empresa_id, &ReciboNominaId::from(recibo_id), now).await?;
        if !fila.sandbox {
            // Cancelled at once: the stamp it took goes back to the balance.
            timbres::devolver(&mut tx, empresa_id, now).await?;
            timbres::movimiento(&mut tx, empresa_id, 1, &format!("cancelación {}", fila.uuid), user_id, now).await?;
        }
    }
    tx.commit().await?;
    Ok(CancelacionRecibo {
        recibo_id: recibo_id.to_owned(),
        uuid: fila.uuid,
        status: if estado.cancelado() { "CANCELADO" } else { "TIMBRADO" }.to_owned(),
        cancellation_status: estado.as_str().to_owned(),
        acuse,
        empleado: recibo.empleado_nombre,
    })
}
