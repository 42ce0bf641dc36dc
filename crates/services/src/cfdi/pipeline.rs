//! The stamping pipeline every CFDI type goes through, in named steps:
//!
//! 1. **prepare** (the caller): a typed, validated, unsealed [`Documento`] — `timbrado::preparar`
//!    for I, E and T; payments and payroll receipts plug in with their own builders.
//! 2. **credentials**: the CSD that seals and, in live mode, the PAC ([`credenciales`]).
//! 3. **reserve folio**, 4. **seal**, 5. **timbre**: sandbox ([`sandbox`]) predicts the folio,
//!    seals and adds the sandbox TFD outside the write transaction, and the process's writer
//!    ([`group_commit`]) takes the folio inside it; live (`cfdi::live`) is two-phase:
//!    *reserve* (stamp, folio, sealed attempt and Idempotency-Key committed) → *PAC call* →
//!    *persist*, or an unknown outcome is kept and reconciled.
//! 6. **persist**: the invoice row, its XML (compressed, `timbra_store::cfdi_xml`), its type's persist
//!    effects ([`Efectos::al_persistir`]: `factura.timbrada` by default) and the idempotent
//!    answer, in one transaction: a batch of sandbox stamps at a time
//!    ([`group_commit`]), one live stamp at a time ([`persistir`]).
//! 7. **answer**: the `201` body, the same one a replay of the Idempotency-Key gives.
//!
//! Handlers only parse, authorize, call [`timbrar`] and return what it gives.
//!
//! A document type that must change other rows with its stamp hands [`timbrar_con_efectos`]
//! its [`Efectos`], the one stamp-time write mechanism of every path: *aplicar* runs in the
//! transaction that takes the folio — the sandbox batch that writes the invoice, the live
//! *reserve* before the PAC is called — so an error there (a payment's balance moved
//! meanwhile) rolls the stamp back and nothing is spent; *al_persistir* writes the type's
//! records and event with the invoice row (a payroll receipt becomes TIMBRADO and emits
//! `nomina.recibo_timbrado` instead of `factura.timbrada`); *devolver* gives back what
//! *aplicar* held when the PAC refuses.
//!
//! A batch of documents of one company (a payroll period's receipts) stamps in sandbox through
//! [`sellar_en_orden`] with predicted folios, on the sealing threads, and
//! [`escribir_lote`], which takes the batch's folios in one statement, seals again any whose
//! prediction missed, and writes the invoice rows, their XML and their type's persist effects
//! ([`Efectos::al_persistir`]: the receipts, their events) in the caller's transaction.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use timbra_store::ids::{CfdiId, EmpresaId, UserId};

use crate::idempotency::Answer;
use http::StatusCode;
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::json;
use timbra_cfdi::Comprobante;
use timbra_cfdi::timbre::DatosTimbre;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::documento::{PorSellar, Sellable, sellar_con_timbre};
use super::{credenciales, fecha_cfdi, group_commit, leer_fecha_expedicion};
use crate::context::AppContext;
use crate::error::{ApiError, ApiResult, Code};
use crate::events::payloads::FacturaTimbrada;
use crate::events::{self, Emission, Event};
use crate::idempotency::{self, Key};
use timbra_store::cfdi_xml;
use timbra_store::empresas::EmpresaEmisora;
use timbra_store::{Money, MultiInsert, Tx, Value};

/// A prepared document: what a document type gives the pipeline.
pub struct Documento {
    /// Built and validated, without folio, seal or TFD: a CFDI 4.0 `Comprobante` or any other
    /// [`Sellable`] (a CFDI de Retenciones).
    pub contenido: PorSellar,
    /// The series it will carry.
    pub serie: String,
    /// The customer it was issued to, when it is one of the company's customers.
    pub cliente_id: Option<String>,
    /// The Idempotency-Key operation name (`cfdi.timbrar`).
    pub operacion: &'static str,
}

/// What an [`Efectos`] hook gives back: a boxed future over the stamp's transaction.
pub type Hecho<'a> = Pin<Box<dyn Future<Output = ApiResult<()>> + Send + 'a>>;

/// A stamp as written in its transaction (invoice row and XML already inserted), as a
/// document type's [`Efectos::al_persistir`] sees it.
pub struct Escrito<'a> {
    /// The company.
    pub empresa_id: &'a EmpresaId,
    /// The record fields.
    pub registro: &'a Registro,
    /// The row's values from the sealed comprobante.
    pub fila: &'a Fila,
    /// The UUID as the API shows it.
    pub uuid_api: &'a str,
    /// The folio taken.
    pub folio: i64,
    /// The request's time (UTC).
    pub now: OffsetDateTime,
}

/// Writes a document type makes in its stamp's own transaction (see the module doc). Every
/// stamp path calls the same hooks: the sandbox writer ([`group_commit`]), a sandbox batch
/// ([`escribir_lote`]), and live (`cfdi::live`: *reserve*, [`persistir`], a refusal), where a
/// stamp resolved later by the reconciliation job finds its type's hooks by its operation
/// name (`cfdi::live`).
pub trait Efectos: Send + Sync {
    /// Checks and applies them in `tx` for the CFDI `cfdi_id` (in live mode, the id of its
    /// stamping attempt, which the invoice keeps) before the stamp: in the sandbox batch that
    /// writes the invoice, in the live *reserve* before the PAC is called. An error rolls the
    /// stamp back and is the request's answer. In live mode what this holds is given back by
    /// [`Efectos::devolver`] when the PAC refuses, and kept while the outcome is unknown.
    fn aplicar<'a>(&'a self, _tx: &'a mut Tx, _cfdi_id: &'a CfdiId, _now: OffsetDateTime) -> Hecho<'a> {
        Box::pin(async { Ok(()) })
    }

    /// The type's records and events of stamps just written in `tx` (a batch of one live, a
    /// chunk in a sandbox batch). The default is each invoice's `factura.timbrada`; a type
    /// with its own event (a payroll receipt's `nomina.recibo_timbrado`) emits that instead.
    fn al_persistir<'a, 'b: 'a>(&'a self, tx: &'a mut Tx, escritos: &'a [Escrito<'b>]) -> Hecho<'a> {
        Box::pin(emitir_timbradas(tx, escritos))
    }

    /// The PAC refused the stamp of CFDI `cfdi_id`: gives back what [`Efectos::aplicar`] held.
    fn devolver<'a>(
        &'a self,
        _tx: &'a mut Tx,
        _empresa_id: &'a EmpresaId,
        _cfdi_id: &'a CfdiId,
        _now: OffsetDateTime,
    ) -> Hecho<'a> {
        Box::pin(async { Ok(()) })
    }
}

/// The `factura.timbrada` events of `escritos`, in one statement per table.
pub async fn emitir_timbradas(tx: &mut Tx, escritos: &[Escrito<'_>]) -> ApiResult<()> {
    let emisiones: Vec<Emission<'_>> = escritos
        .iter()
        .map(|e| Emission {
            now: e.now,
            empresa_id: e.empresa_id,
            event: Event::FacturaTimbrada(e.fila.timbrada(e.registro, e.uuid_api, e.folio)),
        })
        .collect();
    events::emit_many(tx, &emisiones).await?;
    Ok(())
}

/// [`Efectos::al_persistir`] of `efectos`, or the default when the type has none.
pub async fn al_persistir(efectos: Option<&dyn Efectos>, tx: &mut Tx, escritos: &[Escrito<'_>]) -> ApiResult<()> {
    match efectos {
        Some(efectos) => efectos.al_persistir(tx, escritos).await,
        None => emitir_timbradas(tx, escritos).await,
    }
}

/// Who asks, for which company.
pub struct Peticion<'a> {
    /// The issuing company, as read for this request.
    pub empresa: &'a EmpresaEmisora,
    /// The user acting (recorded on the stamp movement in live mode).
    pub user_id: &'a UserId,
    /// The `mode` of the answer envelope.
    pub mode: &'a str,
    /// The Idempotency-Key, when sent.
    pub clave: Option<&'a Key>,
    /// SHA-256 hex of the request body: a live retry of the same body finds its attempt.
    pub request_hash: String,
    /// The request's time (UTC).
    pub now: OffsetDateTime,
    /// The same instant in the issuer's local time, whole seconds (CFDI `Fecha`).
    pub fecha_local: OffsetDateTime,
}

/// Answer of a stamp.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimbradoOut {
    cfdi_id: String,
    /// `SANDBOX-` + the XML's UUID in sandbox; the bare UUID in live.
    uuid: String,
    /// ISO 8601 with the issuer's offset.
    fecha_timbrado: String,
    /// Storage path of the XML.
    xml_url: String,
    xml_uploaded: bool,
    serie: String,
    folio: String,
    /// Decimal string, exact.
    #[schema(value_type = String)]
    total: Decimal,
}

/// A stamped document on its way to the database.
pub(super) struct Timbrado {
    pub(super) documento: Box<dyn Sellable>,
    /// The XML as stored ([`cfdi_xml::comprimir`]).
    pub(super) xml_comprimido: Vec<u8>,
    pub(super) folio: i64,
    pub(super) uuid_xml: String,
    pub(super) uuid_api: String,
    pub(super) timbrado_en: OffsetDateTime,
}

/// The record fields of an invoice that do not come from the comprobante.
pub struct Registro {
    /// The invoice's id.
    pub cfdi_id: CfdiId,
    /// Sandbox or live.
    pub sandbox: bool,
    /// The series it carries.
    pub serie: String,
    /// The customer it was issued to, when one of the company's.
    pub cliente_id: Option<String>,
    /// Storage path of the XML (`xmlUrl`).
    pub xml_path: String,
    /// The Idempotency-Key operation name.
    pub operacion: &'static str,
}

/// The values of an invoice row that come from the sealed comprobante, read before the write
/// transaction (an amount or date that does not parse fails the stamp there, alone) and the
/// same whatever folio the stamp gets.
pub struct Fila {
    pub(crate) tipo_comprobante: String,
    pub(crate) fecha: OffsetDateTime,
    pub(crate) subtotal: Decimal,
    pub(crate) descuento: Option<Decimal>,
    pub(crate) total: Decimal,
    pub(crate) moneda: String,
    pub(crate) tipo_cambio: Option<Decimal>,
    pub(crate) forma_pago: Option<String>,
    pub(crate) metodo_pago: Option<String>,
    pub(crate) emisor_rfc: String,
    pub(crate) emisor_nombre: String,
    pub(crate) emisor_regimen: String,
    pub(crate) receptor_rfc: String,
    pub(crate) receptor_nombre: String,
    pub(crate) receptor_uso_cfdi: String,
    pub(crate) conceptos: String,
    /// The complements it carries by JSON name (`cartaPorte,comercioExterior`).
    pub(crate) complementos: String,
    /// What its type answers and announces beyond an invoice's fields (a payment's amounts,
    /// a retention's totals); `None`: an invoice's.
    pub(crate) resumen: Option<Box<dyn Resumen>>,
}

/// What a document type answers on `201` and adds to its event, beyond an invoice's fields.
pub trait Resumen: Send + Sync {
    /// The `201` body of the document stamped with `folio`, as first given and as replayed.
    fn respuesta_201(
        &self,
        mode: &str,
        registro: &Registro,
        uuid_api: &str,
        timbrado_en: OffsetDateTime,
        folio: i64,
    ) -> String;

    /// The `monto` of its `factura.timbrada` (a payment's Σ Monto).
    fn monto(&self) -> Option<Decimal> {
        None
    }

    /// Itself, for its type's [`Efectos`] to read back.
    fn como_any(&self) -> &dyn std::any::Any;
}

impl Fila {
    /// Reads the row's values from `c`; its `Fecha` is read in its LugarExpedicion's zone
    /// (c_CodigoPostal of `catalogos`).
    pub fn de(c: &Comprobante, catalogos: &dyn timbra_cfdi::catalogos::Catalogos) -> ApiResult<Self> {
        let decimal = |n: &timbra_cfdi::numero::Numero| n.valor().map_err(|e| ApiError::internal("amount", e));
        let numero = |n: &timbra_cfdi::numero::Numero| {
            serde_json::from_str(n.texto()).unwrap_or_else(|_| serde_json::Value::String(n.texto().to_owned()))
        };
        let conceptos: Vec<serde_json::Value> = c
            .conceptos
            .iter()
            .map(|concepto| {
                json!({
                    "claveProdServ": concepto.clave_prod_serv, "claveUnidad": concepto.clave_unidad,
                    "descripcion": concepto.descripcion, "cantidad": numero(&concepto.cantidad),
                    "precioUnitario": numero(&concepto.valor_unitario), "importe": numero(&concepto.importe),
                    "descuento": concepto.descuento.as_ref().map(numero), "objetoImpuesto": concepto.objeto_imp,
                })
            })
            .collect();
        Ok(Self {
            tipo_comprobante: c.tipo_de_comprobante.clone(),
            fecha: leer_fecha_expedicion(catalogos, &c.lugar_expedicion, &c.fecha)
                .ok_or_else(|| ApiError::internal("fecha", &c.fecha))?,
            subtotal: decimal(&c.sub_total)?,
            descuento: c.descuento.as_ref().map(decimal).transpose()?,
            total: decimal(&c.total)?,
            moneda: c.moneda.clone(),
            tipo_cambio: c.tipo_cambio.as_ref().map(decimal).transpose()?,
            forma_pago: c.forma_pago.clone(),
            metodo_pago: c.metodo_pago.clone(),
            emisor_rfc: c.emisor.rfc.clone(),
            emisor_nombre: c.emisor.nombre.clone(),
            emisor_regimen: c.emisor.regimen_fiscal.clone(),
            receptor_rfc: c.receptor.rfc.clone(),
            receptor_nombre: c.receptor.nombre.clone(),
            receptor_uso_cfdi: c.receptor.uso_cfdi.clone(),
            conceptos: serde_json::Value::Array(conceptos).to_string(),
            complementos: super::complementos::nombres(c),
            resumen: match c.pagos() {
                Some(pagos) => Some(Box::new(super::pagos::ResumenPago::de(pagos)?)),
                None => None,
            },
        })
    }

    /// The row of an invoice SAT described by its metadata only (PROTOCOLS.md §1.8): what the
    /// metadata does not carry (currency, payment, regime, use, lines) stays empty until the
    /// XML arrives.
    #[allow(clippy::too_many_arguments)]
    pub fn solo_metadatos(
        tipo_comprobante: &str,
        fecha: OffsetDateTime,
        total: Decimal,
        emisor_rfc: &str,
        emisor_nombre: &str,
        receptor_rfc: &str,
        receptor_nombre: &str,
    ) -> Self {
        Self {
            tipo_comprobante: tipo_comprobante.to_owned(),
            fecha,
            subtotal: total,
            descuento: None,
            total,
            moneda: String::new(),
            tipo_cambio: None,
            forma_pago: None,
            metodo_pago: None,
            emisor_rfc: emisor_rfc.to_owned(),
            emisor_nombre: emisor_nombre.to_owned(),
            emisor_regimen: String::new(),
            receptor_rfc: receptor_rfc.to_owned(),
            receptor_nombre: receptor_nombre.to_owned(),
            receptor_uso_cfdi: String::new(),
            conceptos: "[]".to_owned(),
            complementos: String::new(),
            resumen: None,
        }
    }

    /// The invoice's Total.
    pub fn total(&self) -> Decimal {
        self.total
    }

    /// The `factura.timbrada` event of this row stamped with `folio`.
    pub fn timbrada(&self, registro: &Registro, uuid_api: &str, folio: i64) -> FacturaTimbrada {
        FacturaTimbrada {
            cfdi_id: registro.cfdi_id.as_str().to_owned(),
            uuid: uuid_api.to_owned(),
            total: self.total,
            serie: registro.serie.clone(),
            folio: folio.to_string(),
            tipo_comprobante: Some(self.tipo_comprobante.clone()),
            monto: self.resumen.as_ref().and_then(|resumen| resumen.monto()),
            global: None,
        }
    }

    /// The `201` body of this row stamped with `folio`: a payment's own answer
    /// (`cfdi::pagos`), or [`respuesta_201`].
    pub fn respuesta(
        &self,
        mode: &str,
        registro: &Registro,
        uuid_api: &str,
        timbrado_en: OffsetDateTime,
        folio: i64,
    ) -> String {
        match &self.resumen {
            Some(resumen) => resumen.respuesta_201(mode, registro, uuid_api, timbrado_en, folio),
            None => respuesta_201(mode, registro, uuid_api, timbrado_en, folio, self.total),
        }
    }

    /// The row, in the order of `timbra_store::cfdis::CFDIS_INSERT`.
    #[allow(clippy::too_many_arguments)]
    pub fn valores(
        &self,
        empresa_id: &EmpresaId,
        registro: &Registro,
        folio: i64,
        uuid_api: &str,
        uuid_xml: &str,
        timbrado_en: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Vec<Value> {
        self.valores_de(&Cabecera {
            cfdi_id: &registro.cfdi_id,
            empresa_id,
            tipo: "EMITIDA",
            origen: "API",
            sandbox: registro.sandbox,
            uuid_api,
            uuid_xml,
            serie: Some(registro.serie.clone()),
            folio: Some(folio.to_string()),
            folio_num: Some(folio),
            timbrado_en: Some(timbrado_en),
            status: timbra_store::estados::EstadoCfdi::timbrado(registro.sandbox).as_str(),
            cliente_id: registro.cliente_id.clone(),
            xml_path: Some(&registro.xml_path),
            now,
        })
    }

    /// The row of any invoice (issued here or received from SAT), in the order of
    /// `timbra_store::cfdis::CFDIS_INSERT`.
    pub fn valores_de(&self, cabecera: &Cabecera<'_>) -> Vec<Value> {
        vec![
            cabecera.cfdi_id.into(),
            cabecera.empresa_id.into(),
            cabecera.tipo.into(),
            cabecera.origen.into(),
            self.tipo_comprobante.as_str().into(),
            cabecera.sandbox.into(),
            cabecera.uuid_api.into(),
            cabecera.uuid_xml.into(),
            cabecera.serie.clone().into(),
            cabecera.folio.clone().into(),
            cabecera.folio_num.into(),
            self.fecha.into(),
            cabecera.timbrado_en.into(),
            Money(self.subtotal).into(),
            self.descuento.map(Money).into(),
            Money(self.total).into(),
            self.moneda.as_str().into(),
            self.tipo_cambio.map(Money).into(),
            self.forma_pago.clone().into(),
            self.metodo_pago.clone().into(),
            cabecera.status.into(),
            self.emisor_rfc.as_str().into(),
            self.emisor_nombre.as_str().into(),
            self.emisor_regimen.as_str().into(),
            self.receptor_rfc.as_str().into(),
            self.receptor_nombre.as_str().into(),
            self.receptor_uso_cfdi.as_str().into(),
            self.emisor_nombre.to_lowercase().into(),
            self.receptor_nombre.to_lowercase().into(),
            cabecera.cliente_id.clone().into(),
            cabecera.xml_path.map(str::to_owned).into(),
            self.conceptos.as_str().into(),
            cabecera.now.into(),
            self.complementos.as_str().into(),
        ]
    }

    /// The receiver's RFC.
    pub fn receptor_rfc(&self) -> &str {
        &self.receptor_rfc
    }

    /// The issuer's RFC.
    pub fn emisor_rfc(&self) -> &str {
        &self.emisor_rfc
    }
}

/// The values of an invoice row that do not come from its comprobante.
pub struct Cabecera<'a> {
    /// Id.
    pub cfdi_id: &'a CfdiId,
    /// Company.
    pub empresa_id: &'a EmpresaId,
    /// EMITIDA or RECIBIDA.
    pub tipo: &'static str,
    /// API or SAT_DESCARGA.
    pub origen: &'static str,
    /// Stamped in sandbox.
    pub sandbox: bool,
    /// UUID as the API shows it.
    pub uuid_api: &'a str,
    /// UUID as the XML carries it.
    pub uuid_xml: &'a str,
    /// Serie.
    pub serie: Option<String>,
    /// Folio as written.
    pub folio: Option<String>,
    /// Folio number (issued invoices).
    pub folio_num: Option<i64>,
    /// TFD FechaTimbrado.
    pub timbrado_en: Option<OffsetDateTime>,
    /// TIMBRADO, TIMBRADO_SANDBOX, CANCELADO.
    pub status: &'a str,
    /// The company's customer (issued invoices).
    pub cliente_id: Option<String>,
    /// Storage path of the XML.
    pub xml_path: Option<&'a str>,
    /// Written at.
    pub now: OffsetDateTime,
}

/// The `201` body of a stamp, as first given and as replayed.
pub fn respuesta_201(
    mode: &str,
    registro: &Registro,
    uuid_api: &str,
    timbrado_en: OffsetDateTime,
    folio: i64,
    total: Decimal,
) -> String {
    let data = TimbradoOut {
        cfdi_id: registro.cfdi_id.as_str().to_owned(),
        uuid: uuid_api.to_owned(),
        fecha_timbrado: credenciales::rfc3339(timbrado_en),
        xml_url: registro.xml_path.clone(),
        xml_uploaded: true,
        serie: registro.serie.clone(),
        folio: folio.to_string(),
        total,
    };
    json!({ "success": true, "mode": mode, "data": data }).to_string()
}

/// Stamps `documento` for `peticion.empresa` and answers `201` (or the replay of the request
/// that used the same Idempotency-Key first).
pub async fn timbrar(app: &AppContext, peticion: &Peticion<'_>, documento: Documento) -> ApiResult<Answer> {
    timbrar_con_efectos(app, peticion, documento, None).await
}

/// [`timbrar`], with `efectos` applied in the stamp's own transaction (see the module doc).
pub async fn timbrar_con_efectos(
    app: &AppContext,
    peticion: &Peticion<'_>,
    documento: Documento,
    efectos: Option<Arc<dyn Efectos>>,
) -> ApiResult<Answer> {
    let Documento { contenido, serie, cliente_id, operacion } = documento;
    let registro = Registro::nuevo(peticion.empresa, peticion.fecha_local, serie, cliente_id, operacion);
    timbrar_con_registro(app, peticion, contenido, registro, efectos).await
}

impl Registro {
    /// The record fields of a new stamp of `empresa` at `fecha_local`: a fresh id and the XML's
    /// storage path by company, year and month.
    pub fn nuevo(
        empresa: &EmpresaEmisora,
        fecha_local: OffsetDateTime,
        serie: String,
        cliente_id: Option<String>,
        operacion: &'static str,
    ) -> Self {
        let cfdi_id = CfdiId::new();
        let xml_path =
            format!("cfdi/{}/{:04}/{:02}/{cfdi_id}.xml", empresa.id, fecha_local.year(), u8::from(fecha_local.month()));
        Registro { cfdi_id, sandbox: empresa.sandbox, serie, cliente_id, xml_path, operacion }
    }
}

/// [`timbrar_con_efectos`] with the record fields chosen by the caller (a payroll receipt knows
/// its CFDI id before it is stamped). Every stamp passes here once and is counted in `/metrics`.
pub async fn timbrar_con_registro(
    app: &AppContext,
    peticion: &Peticion<'_>,
    contenido: PorSellar,
    registro: Registro,
    efectos: Option<Arc<dyn Efectos>>,
) -> ApiResult<Answer> {
    let sandbox = peticion.empresa.sandbox;
    let result = sellar_y_timbrar(app, peticion, contenido, registro, efectos).await;
    crate::metrics::metrics().stamp(sandbox, resultado(&result));
    result
}

/// How a stamp ended, for `/metrics`: a live failure that kept its attempt for reconciliation
/// (5xx with `intentoId`) is `unknown`, any other client-side refusal `rejected`.
fn resultado(result: &ApiResult<Answer>) -> &'static str {
    match result {
        Ok(_) => "stamped",
        Err(error) if error.code.status().is_client_error() => "rejected",
        Err(error) if error.details.get("intentoId").is_some() => "unknown",
        Err(_) => "error",
    }
}

async fn sellar_y_timbrar(
    app: &AppContext,
    peticion: &Peticion<'_>,
    contenido: PorSellar,
    registro: Registro,
    efectos: Option<Arc<dyn Efectos>>,
) -> ApiResult<Answer> {
    let empresa = peticion.empresa;
    if empresa.sandbox {
        let csd = credenciales::csd_sandbox(app, &empresa.id, &empresa.rfc, &empresa.razon_social).await?;
        sandbox(app, peticion, contenido, registro, csd, efectos).await
    } else {
        let csd = credenciales::csd_live(app, &empresa.id, peticion.now).await?;
        let pac = app.pac.clone().ok_or_else(|| {
            ApiError::new(
                Code::Live001,
                "live stamping needs a PAC: the installation must set TIMBRA_PAC_URL (see /llms-full.txt); \
                 switch the company to sandbox: true to test",
            )
        })?;
        super::live::timbrar(app, peticion, contenido.as_ref(), &registro, csd, pac, efectos.as_deref()).await
    }
}

/// Sandbox: the seal and the TFD are made outside the write transaction with the folio
/// predicted for this stamp (`cfdi::folios`), so concurrent stamps sign in parallel; the stamp
/// then waits for the one predicted before it to be queued and goes to the process's writer
/// ([`group_commit`](super::group_commit)), which takes the folio, seals again when it is not
/// the predicted one, and writes the invoice, its XML, its event and the idempotent answer
/// with the rest of its batch in one transaction. The answer comes once that committed.
async fn sandbox(
    app: &AppContext,
    peticion: &Peticion<'_>,
    contenido: PorSellar,
    registro: Registro,
    csd: Arc<credenciales::Csd>,
    efectos: Option<Arc<dyn Efectos>>,
) -> ApiResult<Answer> {
    let empresa = peticion.empresa;
    let pac = credenciales::pac_sandbox(app).await?;
    let datos = timbre_sandbox(peticion.fecha_local);
    let uuid_xml = datos.uuid.clone();
    // The counter only matters the first time this process stamps the serie, or after a
    // prediction missed (another process may be stamping it): a round trip saved otherwise.
    let actual = if app.cfdi.folios.por_leer(&empresa.id, &registro.serie) {
        Some(ultimo_folio(app, &empresa.id, true, &registro.serie).await?)
    } else {
        None
    };
    let turno = app.cfdi.folios.turno(&empresa.id, &registro.serie, actual);
    let en_camino = app.cfdi.group_commit.en_camino();
    let (sellado, xml_comprimido) =
        sellar_sandbox(contenido.clone(), turno.folio, csd.clone(), pac.clone(), datos.clone()).await?;
    let fila = sellado.fila(&*app.catalogos.indice)?;
    turno.esperar().await;
    let sellado = group_commit::Sellado {
        empresa_id: empresa.id.clone(),
        mode: peticion.mode.to_owned(),
        clave: peticion.clave.cloned(),
        now: peticion.now,
        timbrado_en: peticion.fecha_local,
        uuid_api: format!("SANDBOX-{uuid_xml}"),
        uuid_xml,
        fila,
        xml_comprimido,
        folio_sellado: turno.folio,
        resello: group_commit::Resello { contenido, csd, pac, datos },
        turno: Some(turno),
        registro,
        efectos,
    };
    app.cfdi.group_commit.timbrar(&app.db, sellado, en_camino).await
}

/// The sandbox TFD's fields for a stamp made at `fecha_local`, with a fresh UUID.
pub fn timbre_sandbox(fecha_local: OffsetDateTime) -> DatosTimbre {
    DatosTimbre {
        uuid: uuid::Uuid::new_v4().to_string().to_uppercase(),
        fecha_timbrado: fecha_cfdi(fecha_local),
        rfc_prov_certif: credenciales::RFC_PAC_SANDBOX.into(),
        leyenda: None,
    }
}

/// The last folio taken of (`empresa_id`, mode, `serie`), 0 before the first.
pub async fn ultimo_folio(app: &AppContext, empresa_id: &EmpresaId, sandbox: bool, serie: &str) -> ApiResult<i64> {
    let mut conn = app.db.conn().await?;
    Ok(timbra_store::folios::ultimo(&mut conn, empresa_id, sandbox, serie).await?)
}

/// A document of a sandbox batch, sealed with a predicted folio ([`sellar_en_orden`]).
pub struct SelladoLote {
    /// The record fields that do not come from the comprobante.
    pub registro: Registro,
    /// The document without folio, seal or TFD, to seal again when the prediction misses.
    pub contenido: PorSellar,
    /// The sandbox TFD's fields.
    pub datos: DatosTimbre,
    /// The folio the XML carries; [`escribir_lote`] sets the one given.
    pub folio: i64,
    /// The row's values from the sealed comprobante.
    pub fila: Fila,
    /// The compressed XML.
    pub xml_comprimido: Vec<u8>,
}

impl SelladoLote {
    /// The UUID as the API shows it (`SANDBOX-…`).
    pub fn uuid_api(&self) -> String {
        format!("SANDBOX-{}", self.datos.uuid)
    }
}

/// Writes a sandbox batch of one company and serie in `tx`: takes its folios in one statement,
/// seals again (in parallel, on the blocking pool) each document whose predicted folio is not
/// the one given, inserts the invoice rows and their XML, and runs the type's persist effects
/// on the whole batch ([`Efectos::al_persistir`]). The caller commits: nothing of the batch is
/// visible before.
#[allow(clippy::too_many_arguments)]
pub async fn escribir_lote(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    serie: &str,
    lote: &mut [SelladoLote],
    efectos: Option<&dyn Efectos>,
    csd: &Arc<credenciales::Csd>,
    pac: &Arc<timbra_credentials::Credential>,
    timbrado_en: OffsetDateTime,
    now: OffsetDateTime,
) -> ApiResult<()> {
    if lote.is_empty() {
        return Ok(());
    }
    let cantidad = i64::try_from(lote.len()).map_err(|e| ApiError::internal("lote", e))?;
    let ultimo = timbra_store::folios::tomar(tx, empresa_id, true, serie, cantidad, now).await?;
    let mut resellos = Vec::new();
    for (folio, sellado) in (ultimo - cantidad + 1..).zip(lote.iter_mut()) {
        if sellado.folio != folio {
            let tarea =
                sellar_sandbox_ya(sellado.contenido.clone(), folio, csd.clone(), pac.clone(), sellado.datos.clone());
            resellos.push((folio, tokio::spawn(tarea)));
        }
    }
    crate::metrics::metrics().folio_predictions(lote.len() - resellos.len(), resellos.len());
    if !resellos.is_empty() {
        tracing::debug!(stamps = resellos.len(), "batch folio predictions missed, sealing again");
    }
    let mut resellados = resellos.into_iter();
    for (folio, sellado) in (ultimo - cantidad + 1..).zip(lote.iter_mut()) {
        if sellado.folio != folio {
            let Some((_, tarea)) = resellados.next() else { break };
            let (documento, xml) = tarea.await.map_err(|e| ApiError::internal("sello", e))??;
            // Only the folio changed: the row keeps its date as read the first time.
            let fecha = sellado.fila.fecha;
            sellado.fila = documento.fila(&timbra_cfdi::catalogos::SinCatalogos)?;
            sellado.fila.fecha = fecha;
            sellado.xml_comprimido = xml;
            sellado.folio = folio;
        }
    }
    let mut cfdis = MultiInsert::new(timbra_store::cfdis::CFDIS_INSERT, timbra_store::cfdis::CFDIS_COLUMNS, "");
    let mut xmls = MultiInsert::new(cfdi_xml::INSERT, cfdi_xml::COLUMNS, "");
    for sellado in lote.iter() {
        let registro = &sellado.registro;
        let uuid_api = sellado.uuid_api();
        cfdis.row(sellado.fila.valores(
            empresa_id,
            registro,
            sellado.folio,
            &uuid_api,
            &sellado.datos.uuid,
            timbrado_en,
            now,
        ));
        xmls.row(cfdi_xml::valores(
            &registro.cfdi_id,
            empresa_id,
            &registro.xml_path,
            sellado.xml_comprimido.clone(),
            now,
        ));
    }
    cfdis.execute(tx).await?;
    xmls.execute(tx).await?;
    let uuids: Vec<String> = lote.iter().map(SelladoLote::uuid_api).collect();
    let escritos: Vec<Escrito<'_>> = lote
        .iter()
        .zip(&uuids)
        .map(|(sellado, uuid_api)| Escrito {
            empresa_id,
            registro: &sellado.registro,
            fila: &sellado.fila,
            uuid_api,
            folio: sellado.folio,
            now,
        })
        .collect();
    al_persistir(efectos, tx, &escritos).await
}

/// Takes the next folio of (`empresa_id`, mode, `serie`) in `tx`: each serie runs 1..N on its
/// own, and the row lock held until commit keeps concurrent stamps of the serie in line.
pub(super) async fn siguiente_folio(
    tx: &mut Tx,
    empresa_id: &EmpresaId,
    sandbox: bool,
    serie: &str,
    now: OffsetDateTime,
) -> timbra_store::DbResult<i64> {
    timbra_store::folios::tomar(tx, empresa_id, sandbox, serie, 1, now).await
}

/// A seal to make on one of [`Selladores`]' threads.
type TrabajoDeSello = Box<dyn FnOnce() + Send>;

/// The invoices' sealing threads, one per core, taking seals in order of arrival from one
/// queue, at a lower priority than the rest of the process ([`ceder_prioridad`]).
///
/// Without a bound, every waiting request (32 connections in the bench) had a blocking thread
/// signing at once, and the one thread that commits them (group commit) got a thirty-fifth of
/// the CPU. A semaphore of one permit per core over the blocking pool bounded that, but each
/// seal then handed its permit on through two task wakeups and a blocking thread's start, and
/// the core stood idle meanwhile: 19% of the machine under the bench. A thread that finishes
/// a seal here takes the next one at once (7% idle).
struct Selladores {
    cola: std::sync::mpsc::Sender<TrabajoDeSello>,
}

fn selladores() -> &'static Selladores {
    static SELLADORES: std::sync::OnceLock<Selladores> = std::sync::OnceLock::new();
    SELLADORES.get_or_init(|| {
        let (cola, trabajos) = std::sync::mpsc::channel::<TrabajoDeSello>();
        let trabajos = Arc::new(std::sync::Mutex::new(trabajos));
        let nucleos = std::thread::available_parallelism().map_or(2, usize::from);
        for numero in 0..nucleos {
            let trabajos = trabajos.clone();
            let hilo = std::thread::Builder::new().name(format!("timbra-sello-{numero}")).spawn(move || {
                ceder_prioridad();
                loop {
                    // The lock is held only while waiting for the next seal, never while sealing.
                    let siguiente = match trabajos.lock() {
                        Ok(trabajos) => trabajos.recv(),
                        Err(envenenado) => envenenado.into_inner().recv(),
                    };
                    let Ok(trabajo) = siguiente else { return };
                    // A panic fails that seal (its answer is dropped), not the thread.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(trabajo));
                }
            });
            if let Err(error) = hilo {
                tracing::error!(error.message = %error, "cannot start a sealing thread");
            }
        }
        Selladores { cola }
    })
}

/// How much lower the sealing threads run than the rest of the process (a nice value, Linux
/// only; elsewhere they run at the same priority).
const NICE_SELLOS: i32 = 10;

/// Lowers the calling thread's priority by [`NICE_SELLOS`]. Sealing is the bulk of a stamp's
/// CPU and can wait a moment; what cannot is the serial work around it: the group-commit
/// writer's transaction (every stamp of the batch waits for it) and the requests' I/O. At equal
/// priority the writer took its turn behind the sealers, each commit took longer, and the
/// sealers then ran out of stamps to seal while the next batch waited for it (a commit of 16
/// took 2.6–2.9 ms instead of 1.9–2.0, and 6–7% of the machine stood idle instead of 2–3%).
fn ceder_prioridad() {
    #[cfg(target_os = "linux")]
    if let Err(error) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), NICE_SELLOS) {
        tracing::warn!(error.message = %error, "cannot lower the sealing thread's priority");
    }
}

/// Runs `sellar` on the sealing threads ([`Selladores`]), after the seals queued before it;
/// its result comes on the receiver. A seal whose receiver is dropped before its turn is
/// skipped (a request that hung up, a payroll run stopped part-way).
fn en_selladores<R: Send + 'static>(
    sellar: impl FnOnce() -> R + Send + 'static,
) -> ApiResult<tokio::sync::oneshot::Receiver<R>> {
    let (listo, sellado) = tokio::sync::oneshot::channel();
    let trabajo: TrabajoDeSello = Box::new(move || {
        if !listo.is_closed() {
            let _ = listo.send(sellar());
        }
    });
    selladores().cola.send(trabajo).map_err(|_| ApiError::internal("sello", "the sealing threads stopped"))?;
    Ok(sellado)
}

/// A seal whose thread dropped its answer (it panicked).
fn sello_perdido() -> ApiError {
    ApiError::internal("sello", "the seal failed on its thread")
}

/// Seals `contenido` with `folio`, adds the sandbox TFD, writes and compresses the XML (two
/// RSA signatures, a fraction of a millisecond each) on the sealing threads ([`Selladores`]),
/// after the seals queued before it.
pub async fn sellar_sandbox(
    contenido: PorSellar,
    folio: i64,
    csd: Arc<credenciales::Csd>,
    pac: Arc<timbra_credentials::Credential>,
    datos: DatosTimbre,
) -> ApiResult<(Box<dyn Sellable>, Vec<u8>)> {
    let sellado = en_selladores(move || sellar_con_timbre(contenido.as_ref(), folio, &csd.credential, &pac, datos))?;
    sellado.await.map_err(|_| sello_perdido())?
}

/// [`sellar_sandbox`] without waiting for a turn: for the writers' re-seals, which hold the
/// write turn and must not queue behind the stamps waiting for it.
pub async fn sellar_sandbox_ya(
    contenido: PorSellar,
    folio: i64,
    csd: Arc<credenciales::Csd>,
    pac: Arc<timbra_credentials::Credential>,
    datos: DatosTimbre,
) -> ApiResult<(Box<dyn Sellable>, Vec<u8>)> {
    tokio::task::spawn_blocking(move || sellar_con_timbre(contenido.as_ref(), folio, &csd.credential, &pac, datos))
        .await
        .map_err(|e| ApiError::internal("sello", e))?
}

/// A document to seal in a run ([`sellar_en_orden`]): the document without folio, seal or
/// TFD, its predicted folio and its sandbox TFD's fields.
pub type Trabajo = (PorSellar, i64, DatosTimbre);
/// A document of a run sealed: the document as given (to seal again when the prediction
/// misses), the sealed one, and its compressed XML.
pub type SelladoEnOrden = (PorSellar, Box<dyn Sellable>, Vec<u8>);

/// A run of sandbox seals on the sealing threads ([`Selladores`]), read back in the order
/// given, with at most [`SellosEnOrden::EN_COLA`] of them queued ahead of the reader.
///
/// A payroll period hands over a thousand documents at once. A blocking task per document
/// started a thread per document: hundreds of threads signing at once, time-sliced, so the
/// first chunk was ready only when nearly all were, and the writer's thread got a sliver of the
/// CPU (its first chunk of 200 took 177 ms instead of 14). On the sealing threads the cores
/// stay busy with finished work in order, the writer keeps its priority, and a period shares
/// the cores with the invoices stamped meanwhile in order of arrival.
pub struct SellosEnOrden {
    por_sellar: std::vec::IntoIter<Trabajo>,
    en_cola: std::collections::VecDeque<tokio::sync::oneshot::Receiver<ApiResult<SelladoEnOrden>>>,
    csd: Arc<credenciales::Csd>,
    pac: Arc<timbra_credentials::Credential>,
}

impl SellosEnOrden {
    /// The most seals of a run queued ahead of its reader: enough that the sealing threads never
    /// wait for it, few enough that a run stopped part-way leaves little work behind (queued
    /// seals whose run was dropped are skipped).
    const EN_COLA: usize = 32;

    /// The next document's result, in the order given; `None` after the last.
    pub async fn siguiente(&mut self) -> Option<ApiResult<SelladoEnOrden>> {
        while self.en_cola.len() < Self::EN_COLA
            && let Some((contenido, folio, datos)) = self.por_sellar.next()
        {
            let (csd, pac) = (self.csd.clone(), self.pac.clone());
            let sellado = en_selladores(move || {
                sellar_con_timbre(contenido.as_ref(), folio, &csd.credential, &pac, datos)
                    .map(|(sellado, xml)| (contenido, sellado, xml))
            });
            match sellado {
                Ok(sellado) => self.en_cola.push_back(sellado),
                Err(error) => return Some(Err(error)),
            }
        }
        let sellado = self.en_cola.pop_front()?;
        Some(sellado.await.unwrap_or_else(|_| Err(sello_perdido())))
    }
}

/// Starts sealing `trabajos` ([`SellosEnOrden`]). Dropping the result drops the seals still
/// queued.
pub fn sellar_en_orden(
    trabajos: Vec<Trabajo>,
    csd: &Arc<credenciales::Csd>,
    pac: &Arc<timbra_credentials::Credential>,
) -> SellosEnOrden {
    SellosEnOrden {
        por_sellar: trabajos.into_iter(),
        en_cola: std::collections::VecDeque::with_capacity(SellosEnOrden::EN_COLA),
        csd: csd.clone(),
        pac: pac.clone(),
    }
}

/// Writes the invoice row, its XML, its type's persist effects (`factura.timbrada` by default,
/// [`Efectos::al_persistir`]) and the idempotent answer in `tx` and commits it; or, when a concurrent request with the same Idempotency-Key stored
/// first, rolls back and answers as that one did.
pub(super) async fn persistir(
    app: &AppContext,
    mut tx: Tx,
    peticion: &Peticion<'_>,
    registro: &Registro,
    timbrado: Timbrado,
    clave_reservada: bool,
    efectos: Option<&dyn Efectos>,
) -> ApiResult<Answer> {
    let empresa_id = &peticion.empresa.id;
    let fila = timbrado.documento.fila(&*app.catalogos.indice)?;
    let mut cfdis = MultiInsert::new(timbra_store::cfdis::CFDIS_INSERT, timbra_store::cfdis::CFDIS_COLUMNS, "");
    cfdis.row(fila.valores(
        empresa_id,
        registro,
        timbrado.folio,
        &timbrado.uuid_api,
        &timbrado.uuid_xml,
        timbrado.timbrado_en,
        peticion.now,
    ));
    cfdis.execute(&mut tx).await?;
    cfdi_xml::guardar(
        &mut tx,
        &registro.cfdi_id,
        empresa_id,
        &registro.xml_path,
        &timbrado.xml_comprimido,
        peticion.now,
    )
    .await?;
    let escrito = Escrito {
        empresa_id,
        registro,
        fila: &fila,
        uuid_api: &timbrado.uuid_api,
        folio: timbrado.folio,
        now: peticion.now,
    };
    al_persistir(efectos, &mut tx, std::slice::from_ref(&escrito)).await?;
    let answer = fila.respuesta(peticion.mode, registro, &timbrado.uuid_api, timbrado.timbrado_en, timbrado.folio);
    let guardada = idempotency::store_answer(
        &mut tx,
        empresa_id,
        peticion.clave,
        idempotency::Uso::de(registro.operacion),
        StatusCode::CREATED,
        &answer,
        peticion.now,
        clave_reservada,
    )
    .await?;
    match peticion.clave {
        Some(clave) if !guardada => {
            drop(tx);
            idempotency::winner(
                &app.db,
                empresa_id,
                clave,
                Some(idempotency::Uso::de(registro.operacion)),
                peticion.now,
            )
            .await
        }
        _ => {
            tx.commit().await?;
            Ok(idempotency::answer(StatusCode::CREATED, answer))
        }
    }
}
