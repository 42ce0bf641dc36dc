//! CFDI de Retenciones e Información de Pagos 2.0 (`retencionpagov2.xsd`) as a document type of
//! the stamping pipeline: the first one that is not a CFDI 4.0 `Comprobante` (its own namespace,
//! cadena original and TFD placement, `timbra_retenciones`). It plugs in as every type does: a
//! [`Sellable`] the pipeline seals and stamps without looking inside, a [`Resumen`] for its
//! `201` answer, its [`Efectos`] (its own row and `retencion.timbrada`), and [`TIPO`] in the
//! registry.
//!
//! Its `cfdis` row has tipo_comprobante `RET` (the document has no TipoDeComprobante), so it
//! shares folios, XML storage, signed links, idempotency and live reconciliation with every
//! CFDI; invoice listings leave `RET` out and `GET /api/retenciones` lists them
//! (`timbra_store::retenciones`). `FolioInt` is the serie and the folio with no separator
//! (`R1`, `R2`, …: the serie's counter is the company's, shared with an invoice serie of the
//! same name).

pub mod lote;

use std::any::Any;
use std::sync::Arc;
use timbra_store::ids::{CfdiId, EmpresaId, UserId};

use rust_decimal::Decimal;
use serde_json::{Value, json};
use timbra_cfdi::catalogos::Catalogos;
use timbra_cfdi::timbre::DatosTimbre;
use timbra_cfdi::tipos::Rfc;
use timbra_credentials::Credential;
use timbra_retenciones::catalogos::RegimenFiscal;
use timbra_retenciones::model::{Complemento, Emisor, Receptor, Retenciones, formato_fecha, formato_fecha_hora};
use timbra_retenciones::{EntradaRetenciones, Problema};
use timbra_store::empresas::EmpresaEmisora;
use timbra_store::{Money, Tx};
use time::{OffsetDateTime, PrimitiveDateTime};

use super::documento::Sellable;
use super::pipeline::{Documento, Efectos, Escrito, Fila, Hecho, Registro, Resumen};
use super::tipos::{TipoDocumento, sin_efectos};
use super::{credenciales, fecha_de_expedicion, hora_de_expedicion, hora_local, timbrado};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code, FieldProblem};
use crate::events::payloads::RetencionTimbrada;
use crate::events::{self, Emission, Event};

/// The operation name of its Idempotency-Keys and live attempts.
pub const OPERACION: &str = "retenciones.timbrar";
/// The serie of `FolioInt` when the body names none.
pub const SERIE_PREDETERMINADA: &str = "R";
/// The `cfdis.tipo_comprobante` of a retention.
pub const TIPO_FILA: &str = "RET";

/// The retention as a document type.
pub static TIPO: TipoDocumento = TipoDocumento {
    operacion: OPERACION,
    ruta: "POST /api/retenciones/timbrar",
    tipos_comprobante: &[TIPO_FILA],
    efectos_guardados: Some(&EFECTOS),
    // A retention is cancelled without the receiver's acceptance and undoes nothing else.
    al_cancelar: sin_efectos,
    leer_timbrado: leer,
    // Finkok's `retentions` service; SAT cancels a retention without acceptance.
    servicio_pac: timbra_pac::Servicio::Retenciones,
};

static EFECTOS: EfectosRetencion = EfectosRetencion;

/// A retention document with the serie its `FolioInt` takes.
struct Retencion {
    documento: Retenciones,
    serie: String,
}

impl Sellable for Retencion {
    fn sellado(&self, folio: i64, csd: &Credential) -> ApiResult<Box<dyn Sellable>> {
        let mut documento = self.documento.clone();
        documento.folio_int = Some(format!("{}{folio}", self.serie));
        timbra_retenciones::sello::sellar(&mut documento, csd).map_err(|e| ApiError::internal("sello", e))?;
        Ok(Box::new(Retencion { documento, serie: self.serie.clone() }))
    }

    fn timbrar(&mut self, datos: DatosTimbre, pac: &Credential) -> ApiResult<()> {
        timbra_retenciones::sello::timbrar(&mut self.documento, datos, pac)
            .map_err(|e| ApiError::internal("timbre", e))?;
        Ok(())
    }

    fn xml(&self) -> ApiResult<String> {
        timbra_retenciones::escribir(&self.documento).map_err(timbrado::error_escritura)
    }

    fn fila(&self, catalogos: &dyn Catalogos) -> ApiResult<Fila> {
        let r = &self.documento;
        let fecha = fecha_de_expedicion(catalogos, r.lugar_exp_retenc.as_str(), r.fecha_exp);
        let (receptor_rfc, receptor_id) = match &r.receptor {
            Receptor::Nacional(nacional) => {
                (Some(nacional.rfc_r.as_str().to_owned()), nacional.rfc_r.as_str().to_owned())
            }
            Receptor::Extranjero(extranjero) => (None, extranjero.num_reg_id_trib_r.clone().unwrap_or_default()),
        };
        let resumen = ResumenRetencion {
            folio_int: r.folio_int.clone(),
            cve_retenc: r.cve_retenc.codigo().to_owned(),
            nacionalidad: r.receptor.nacionalidad(),
            receptor_rfc,
            receptor_nombre: r.receptor.nom_den_raz_soc_r().to_owned(),
            mes_ini: i64::from(r.periodo.mes_ini.numero()),
            mes_fin: i64::from(r.periodo.mes_fin.numero()),
            ejercicio: i64::from(r.periodo.ejercicio),
            monto_tot_operacion: r.totales.monto_tot_operacion,
            monto_tot_ret: r.totales.monto_tot_ret,
            detalle: detalle(r),
        };
        Ok(Fila {
            tipo_comprobante: TIPO_FILA.to_owned(),
            fecha,
            subtotal: r.totales.monto_tot_operacion,
            descuento: None,
            total: r.totales.monto_tot_operacion,
            // Retentions are stated in pesos (retencionpagov2.xsd has no currency).
            moneda: "MXN".to_owned(),
            tipo_cambio: None,
            forma_pago: None,
            metodo_pago: None,
            emisor_rfc: r.emisor.rfc_e.as_str().to_owned(),
            emisor_nombre: r.emisor.nom_den_raz_soc_e.clone(),
            emisor_regimen: r.emisor.regimen_fiscal_e.codigo().to_owned(),
            receptor_rfc: receptor_id,
            receptor_nombre: r.receptor.nom_den_raz_soc_r().to_owned(),
            receptor_uso_cfdi: String::new(),
            conceptos: "[]".to_owned(),
            complementos: if r.plataformas_tecnologicas().is_some() {
                "plataformasTecnologicas".to_owned()
            } else {
                String::new()
            },
            resumen: Some(Box::new(resumen)),
        })
    }
}

/// The `cfdis` row (tipo_comprobante `RET`, the issuer's and receiver's data, `FechaExp` in the
/// place of issue's zone) of a retention downloaded from SAT; its [`Resumen`] carries the
/// `retenciones` row [`guardar_recibida`] writes.
///
/// # Errors
/// Never for a parsed document today (the row is read from the model); kept fallible like
/// every document type's row.
pub fn fila_recibida(retencion: &Retenciones, catalogos: &dyn Catalogos) -> ApiResult<Fila> {
    Retencion { documento: retencion.clone(), serie: String::new() }.fila(catalogos)
}

/// Writes the `retenciones` row of a received retention whose `cfdis` row `cfdi_id` was just
/// written from `fila` ([`fila_recibida`]), in the same transaction. No event: a received
/// document is not a stamp of this company.
pub async fn guardar_recibida(
    tx: &mut Tx,
    fila: &Fila,
    cfdi_id: &CfdiId,
    empresa_id: &EmpresaId,
    now: OffsetDateTime,
) -> ApiResult<()> {
    let resumen = fila
        .resumen
        .as_ref()
        .and_then(|resumen| resumen.como_any().downcast_ref::<ResumenRetencion>())
        .ok_or_else(|| ApiError::internal("retención", "a retention's row without its summary"))?;
    let detalle = resumen.detalle.to_string();
    let nueva = timbra_store::retenciones::NuevaRetencion {
        cfdi_id,
        empresa_id,
        folio_int: resumen.folio_int.as_deref(),
        cve_retenc: &resumen.cve_retenc,
        nacionalidad: resumen.nacionalidad,
        receptor_rfc: resumen.receptor_rfc.as_deref(),
        receptor_nombre: &resumen.receptor_nombre,
        mes_ini: resumen.mes_ini,
        mes_fin: resumen.mes_fin,
        ejercicio: resumen.ejercicio,
        monto_tot_operacion: Money(resumen.monto_tot_operacion),
        monto_tot_ret: Money(resumen.monto_tot_ret),
        detalle: &detalle,
    };
    timbra_store::retenciones::insertar(tx, &nueva, now).await?;
    Ok(())
}

/// A retention stamped by the PAC, read back for its row.
fn leer(xml: &str) -> ApiResult<Box<dyn Sellable>> {
    let documento = timbra_retenciones::parsear(xml).map_err(|e| ApiError::internal("PAC XML", e))?;
    Ok(Box::new(Retencion { documento, serie: String::new() }))
}

/// What a retention answers, announces and keeps in its own row.
pub struct ResumenRetencion {
    folio_int: Option<String>,
    cve_retenc: String,
    nacionalidad: &'static str,
    receptor_rfc: Option<String>,
    receptor_nombre: String,
    mes_ini: i64,
    mes_fin: i64,
    ejercicio: i64,
    monto_tot_operacion: Decimal,
    monto_tot_ret: Decimal,
    detalle: Value,
}

impl Resumen for ResumenRetencion {
    fn respuesta_201(
        &self,
        mode: &str,
        registro: &Registro,
        uuid_api: &str,
        timbrado_en: OffsetDateTime,
        _folio: i64,
    ) -> String {
        let data = json!({
            "retencionId": registro.cfdi_id,
            "uuid": uuid_api,
            "fechaTimbrado": credenciales::rfc3339(timbrado_en),
            "folioInt": self.folio_int,
            "montoTotRet": self.monto_tot_ret.to_string(),
        });
        json!({ "success": true, "mode": mode, "data": data }).to_string()
    }

    fn como_any(&self) -> &dyn Any {
        self
    }
}

/// A retention's writes with its stamp: its own row and `retencion.timbrada` (instead of an
/// invoice's `factura.timbrada`).
struct EfectosRetencion;

impl Efectos for EfectosRetencion {
    fn al_persistir<'a, 'b: 'a>(&'a self, tx: &'a mut Tx, escritos: &'a [Escrito<'b>]) -> Hecho<'a> {
        Box::pin(async move {
            let mut emisiones = Vec::with_capacity(escritos.len());
            for escrito in escritos {
                let resumen = escrito
                    .fila
                    .resumen
                    .as_ref()
                    .and_then(|resumen| resumen.como_any().downcast_ref::<ResumenRetencion>())
                    .ok_or_else(|| ApiError::internal("retención", "a retention's row without its summary"))?;
                let detalle = resumen.detalle.to_string();
                let fila = timbra_store::retenciones::NuevaRetencion {
                    cfdi_id: &escrito.registro.cfdi_id,
                    empresa_id: escrito.empresa_id,
                    folio_int: resumen.folio_int.as_deref(),
                    cve_retenc: &resumen.cve_retenc,
                    nacionalidad: resumen.nacionalidad,
                    receptor_rfc: resumen.receptor_rfc.as_deref(),
                    receptor_nombre: &resumen.receptor_nombre,
                    mes_ini: resumen.mes_ini,
                    mes_fin: resumen.mes_fin,
                    ejercicio: resumen.ejercicio,
                    monto_tot_operacion: Money(resumen.monto_tot_operacion),
                    monto_tot_ret: Money(resumen.monto_tot_ret),
                    detalle: &detalle,
                };
                timbra_store::retenciones::insertar(tx, &fila, escrito.now).await?;
                emisiones.push(Emission {
                    now: escrito.now,
                    empresa_id: escrito.empresa_id,
                    event: Event::RetencionTimbrada(RetencionTimbrada {
                        retencion_id: escrito.registro.cfdi_id.as_str().to_owned(),
                        uuid: escrito.uuid_api.to_owned(),
                        monto_tot_ret: resumen.monto_tot_ret,
                        receptor_rfc: resumen.receptor_rfc.clone(),
                    }),
                });
            }
            events::emit_many(tx, &emisiones).await?;
            Ok(())
        })
    }
}

/// A retention built and checked for its company, before folio and seal.
pub struct Preparada {
    /// What the pipeline stamps.
    pub documento: Documento,
    /// Its stamp-time writes.
    pub efectos: Arc<dyn Efectos>,
    /// The request's time in the Zona Centro, whole seconds: the TFD's `FechaTimbrado`
    /// (`FechaExp` is the same instant in the expedition place's zone).
    pub fecha_local: OffsetDateTime,
}

/// Builds the retention of `body` (`POST /api/retenciones/timbrar`) for `empresa` at `now`:
/// the body under SAT's names in camelCase ([`EntradaRetenciones`]) plus an optional `serie`;
/// the service fills the emisor, `FechaExp`, `LugarExpRetenc` (the company's postal code unless
/// given) and `FolioInt`. Every problem is one `RETENCION_001` with SAT's rule ids.
pub fn preparar(app: &AppContext, empresa: &EmpresaEmisora, body: Value, now: OffsetDateTime) -> ApiResult<Preparada> {
    let Value::Object(mut campos) = body else {
        return Err(invalida(vec![FieldProblem::new("body", "the body must be a JSON object")]));
    };
    if campos.contains_key("folioInt") {
        return Err(invalida(vec![FieldProblem::new(
            "folioInt",
            "FolioInt is assigned by the service from the serie and its counter (R1, R2, …): send `serie` instead",
        )]));
    }
    let serie = match campos.remove("serie") {
        None | Some(Value::Null) => SERIE_PREDETERMINADA.to_owned(),
        Some(Value::String(serie)) if valida_serie(&serie) => serie,
        Some(_) => {
            return Err(invalida(vec![FieldProblem::new(
                "serie",
                "serie: 1 to 10 letters (FolioInt is the serie and the number, at most 20 characters)",
            )]));
        }
    };
    campos.entry("lugarExpRetenc").or_insert_with(|| Value::String(empresa.codigo_postal.clone()));
    // From text: serde_json hands a number's exact text (`1000.50`, never a float) over only then.
    let entrada: EntradaRetenciones = serde_json::from_str(&Value::Object(campos).to_string())
        .map_err(|error| invalida(vec![FieldProblem::new("body", error.to_string())]))?;
    let regimen = RegimenFiscal::desde_codigo(&empresa.regimen_fiscal).ok_or_else(|| {
        invalida(vec![FieldProblem::new(
            "emisor.regimenFiscalE",
            format!(
                "the company's régimen fiscal {} is not in c_RegimenFiscal: correct it with PATCH /api/empresas/{{id}}",
                empresa.regimen_fiscal
            ),
        )])
    })?;
    let emisor = Emisor {
        rfc_e: Rfc::new(&empresa.rfc).map_err(|e| ApiError::internal("RFC", e))?,
        nom_den_raz_soc_e: empresa.razon_social.clone(),
        regimen_fiscal_e: regimen,
    };
    let expedicion = hora_de_expedicion(&*app.catalogos.indice, entrada.lugar_exp_retenc.trim(), now);
    let fecha_exp = PrimitiveDateTime::new(expedicion.date(), expedicion.time());
    let documento = timbra_retenciones::construir(&entrada, emisor, fecha_exp)
        .map_err(|problemas| invalida(problemas.into_iter().map(problema).collect()))?;
    let fecha_local = hora_local(now.replace_nanosecond(0).unwrap_or(now));
    Ok(Preparada {
        documento: Documento {
            contenido: Arc::new(Retencion { documento, serie: serie.clone() }),
            serie,
            cliente_id: None,
            operacion: OPERACION,
        },
        efectos: Arc::new(EfectosRetencion),
        fecha_local,
    })
}

/// Stamps the retention of `body` for `empresa_id` (`POST /api/retenciones/timbrar` and the
/// dashboard's form): the body built and checked ([`preparar`]), then the pipeline, sandbox or
/// live as the company is. `request_hash` is the SHA-256 of the request as sent (a live retry
/// of the same request finds its attempt); the answer is the envelope a route returns.
pub async fn timbrar(
    app: &AppContext,
    empresa_id: &EmpresaId,
    user_id: &UserId,
    mode: &str,
    clave: Option<&crate::idempotency::Key>,
    body: Value,
    request_hash: String,
) -> ApiResult<crate::idempotency::Answer> {
    let now = app.clock.now();
    let (empresa, _) = super::contexto::emisora_y_receptor(app, empresa_id, None).await?;
    let preparada = preparar(app, &empresa, body, now)?;
    let peticion = super::pipeline::Peticion {
        empresa: &empresa,
        user_id,
        mode,
        clave,
        request_hash: if empresa.sandbox { String::new() } else { request_hash },
        now,
        fecha_local: preparada.fecha_local,
    };
    super::pipeline::timbrar_con_efectos(app, &peticion, preparada.documento, Some(preparada.efectos)).await
}

fn valida_serie(serie: &str) -> bool {
    (1..=10).contains(&serie.len()) && serie.bytes().all(|b| b.is_ascii_alphabetic())
}

fn invalida(problemas: Vec<FieldProblem>) -> ApiError {
    let mut error = ApiError::reglas(Code::Retencion001, problemas);
    error.message = format!("{} (see details.problemas)", Code::Retencion001.description());
    error
}

fn problema(p: Problema) -> FieldProblem {
    FieldProblem::new(p.campo, format!("{} ({})", p.mensaje, p.regla)).con_regla(p.regla)
}

fn texto(valor: Decimal) -> Value {
    Value::String(valor.to_string())
}

/// The document's data under the API's names (the body's, plus what the service filled).
fn detalle(r: &Retenciones) -> Value {
    let receptor = match &r.receptor {
        Receptor::Nacional(n) => json!({
            "nacionalidad": "Nacional", "rfcR": n.rfc_r.as_str(), "nomDenRazSocR": n.nom_den_raz_soc_r,
            "curpR": n.curp_r, "domicilioFiscalR": n.domicilio_fiscal_r.as_str(),
        }),
        Receptor::Extranjero(e) => json!({
            "nacionalidad": "Extranjero", "numRegIdTribR": e.num_reg_id_trib_r, "nomDenRazSocR": e.nom_den_raz_soc_r,
        }),
    };
    let imp_retenidos: Vec<Value> = r
        .totales
        .imp_retenidos
        .iter()
        .map(|i| {
            json!({
                "baseRet": i.base_ret.map(texto), "impuestoRet": i.impuesto_ret.map(|x| x.codigo()),
                "montoRet": texto(i.monto_ret), "tipoPagoRet": i.tipo_pago_ret.codigo(),
            })
        })
        .collect();
    let mut complementos = serde_json::Map::new();
    if let Some(p) = r.plataformas_tecnologicas() {
        let servicios: Vec<Value> = p
            .servicios
            .iter()
            .map(|s| {
                json!({
                    "formaPagoServ": s.forma_pago_serv.codigo(), "tipoDeServ": s.tipo_de_serv.codigo(),
                    "subTipServ": s.sub_tip_serv.map(|x| x.codigo()),
                    "rfcTerceroAutorizado": s.rfc_tercero_autorizado.as_ref().map(|x| x.as_str()),
                    "fechaServ": formato_fecha(s.fecha_serv), "precioServSinIVA": texto(s.precio_serv_sin_iva),
                    "comisionDelServicio": s.comision_del_servicio.as_ref().map(|c| json!({
                        "base": c.base.map(texto), "porcentaje": c.porcentaje.map(texto), "importe": texto(c.importe),
                    })),
                })
            })
            .collect();
        complementos.insert(
            "plataformasTecnologicas".into(),
            json!({
                "periodicidad": p.periodicidad.codigo(), "numServ": p.num_serv,
                "monTotServSIVA": texto(p.mon_tot_serv_siva), "totalIVATrasladado": texto(p.total_iva_trasladado),
                "totalIVARetenido": texto(p.total_iva_retenido), "totalISRRetenido": texto(p.total_isr_retenido),
                "difIVAEntregadoPrestServ": texto(p.dif_iva_entregado_prest_serv),
                "monTotalporUsoPlataforma": texto(p.mon_totalpor_uso_plataforma),
                "monTotalContribucionGubernamental": p.mon_total_contribucion_gubernamental.map(texto),
                "servicios": servicios,
            }),
        );
    }
    let otros: Vec<&str> = r
        .complementos
        .iter()
        .filter_map(|c| match c {
            Complemento::Otro(crudo) => Some(crudo.espacio.as_str()),
            _ => None,
        })
        .collect();
    json!({
        "folioInt": r.folio_int,
        "fechaExp": formato_fecha_hora(r.fecha_exp),
        "lugarExpRetenc": r.lugar_exp_retenc.as_str(),
        "cveRetenc": r.cve_retenc.codigo(),
        "descRetenc": r.desc_retenc,
        "cfdiRetenRelacionados": r.cfdi_reten_relacionados.as_ref().map(|rel| json!({
            "tipoRelacion": rel.tipo_relacion.codigo(), "uuid": rel.uuid,
        })),
        "emisor": {
            "rfcE": r.emisor.rfc_e.as_str(), "nomDenRazSocE": r.emisor.nom_den_raz_soc_e,
            "regimenFiscalE": r.emisor.regimen_fiscal_e.codigo(),
        },
        "receptor": receptor,
        "periodo": {
            "mesIni": format!("{:02}", r.periodo.mes_ini.numero()),
            "mesFin": format!("{:02}", r.periodo.mes_fin.numero()),
            "ejercicio": r.periodo.ejercicio.to_string(),
        },
        "totales": {
            "montoTotOperacion": texto(r.totales.monto_tot_operacion), "montoTotGrav": texto(r.totales.monto_tot_grav),
            "montoTotExent": texto(r.totales.monto_tot_exent), "montoTotRet": texto(r.totales.monto_tot_ret),
            "utilidadBimestral": r.totales.utilidad_bimestral.map(texto),
            "isrCorrespondiente": r.totales.isr_correspondiente.map(texto),
        },
        "impRetenidos": imp_retenidos,
        "complementos": complementos,
        "otrosComplementos": otros,
    })
}
