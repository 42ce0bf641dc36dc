//! What the pipeline carries and writes, without running anything: the prepared document, the
//! record fields and row values of an invoice, the hooks a document type plugs in
//! ([`Efectos`], [`Resumen`]) and the `201` body. The batch writers and sealing threads use these
//! too, so nothing here names the application context.

use std::future::Future;
use std::pin::Pin;

use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::json;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::cfdi::rfc3339;
use crate::error::ApiResult;
use crate::events::payloads::FacturaTimbrada;
use crate::events::{self, Emission, Event};
use crate::idempotency::Key;
use timbra_store::empresas::EmpresaEmisora;
use timbra_store::ids::{CfdiId, EmpresaId, UserId};
use timbra_store::{Money, Tx, Value};

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
        fecha_timbrado: rfc3339(timbrado_en),
        xml_url: registro.xml_path.clone(),
        xml_uploaded: true,
        serie: registro.serie.clone(),
        folio: folio.to_string(),
        total,
    };
    json!({ "success": true, "mode": mode, "data": data }).to_string()
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
