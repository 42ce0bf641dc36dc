//! The `data` of every event the service emits, one struct per payload. The webhook
//! documentation (`x-webhook-events` in `/api/docs`) is generated from these structs, so what
//! is documented is what is sent.

use rust_decimal::Decimal;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use super::EventType;

/// An event with its data, ready to be recorded. Every emitted type has a variant here; types
/// of SPEC.md that no feature emits yet have none (their documentation says `data: null`).
#[derive(Clone, Debug)]
pub enum Event {
    /// `factura.timbrada`.
    FacturaTimbrada(FacturaTimbrada),
    /// `factura.cancelada`: SAT says the invoice is cancelled.
    FacturaCancelada(Cancelacion),
    /// `factura.cancelacion_pendiente`: SAT waits for the receiver.
    FacturaCancelacionPendiente(Cancelacion),
    /// `factura.cancelacion_aceptada`: the receiver accepted, or let the deadline pass.
    FacturaCancelacionAceptada(Cancelacion),
    /// `factura.cancelacion_rechazada`: the receiver rejected the cancellation.
    FacturaCancelacionRechazada(Cancelacion),
    /// `nomina.recibo_timbrado`.
    NominaReciboTimbrado(ReciboTimbrado),
    /// `timbres.saldo_bajo`.
    TimbresSaldoBajo(SaldoBajo),
    /// `certificado.por_expirar`.
    CertificadoPorExpirar(CertificadoPorExpirar),
    /// `webhook.ping`, to one endpoint only.
    WebhookPing(Ping),
    /// `cfdi.xml_disponible`: a received invoice known by its metadata only got its XML.
    CfdiXmlDisponible(XmlDisponible),
    /// `nomina.calculada`: a pay period was calculated.
    NominaCalculada(NominaCalculada),
    /// `factura.cancelacion_recibida`: a cancellation request to answer, once per request.
    FacturaCancelacionRecibida(CancelacionRecibida),
    /// `factura.cancelacion_respondida`: the company answered a cancellation request.
    FacturaCancelacionRespondida(CancelacionRespondida),
    /// `cfdi.estado_cambiado`: SAT's status of a received CFDI changed.
    CfdiEstadoCambiado(EstadoCambiado),
    /// `nomina.sua_generado`: a month's SUA files were written.
    NominaSuaGenerado(NominaSuaGenerado),
    /// `retencion.timbrada`.
    RetencionTimbrada(RetencionTimbrada),
    /// `correo.enviado`.
    CorreoEnviado(Correo),
    /// `correo.fallido`.
    CorreoFallido(Correo),
}

impl Event {
    /// The event's type.
    pub fn event_type(&self) -> EventType {
        match self {
            Event::FacturaTimbrada(_) => EventType::FacturaTimbrada,
            Event::FacturaCancelada(_) => EventType::FacturaCancelada,
            Event::FacturaCancelacionPendiente(_) => EventType::FacturaCancelacionPendiente,
            Event::FacturaCancelacionAceptada(_) => EventType::FacturaCancelacionAceptada,
            Event::FacturaCancelacionRechazada(_) => EventType::FacturaCancelacionRechazada,
            Event::NominaReciboTimbrado(_) => EventType::NominaReciboTimbrado,
            Event::TimbresSaldoBajo(_) => EventType::TimbresSaldoBajo,
            Event::CertificadoPorExpirar(_) => EventType::CertificadoPorExpirar,
            Event::WebhookPing(_) => EventType::WebhookPing,
            Event::CfdiXmlDisponible(_) => EventType::CfdiXmlDisponible,
            Event::NominaCalculada(_) => EventType::NominaCalculada,
            Event::FacturaCancelacionRecibida(_) => EventType::FacturaCancelacionRecibida,
            Event::FacturaCancelacionRespondida(_) => EventType::FacturaCancelacionRespondida,
            Event::CfdiEstadoCambiado(_) => EventType::CfdiEstadoCambiado,
            Event::NominaSuaGenerado(_) => EventType::NominaSuaGenerado,
            Event::RetencionTimbrada(_) => EventType::RetencionTimbrada,
            Event::CorreoEnviado(_) => EventType::CorreoEnviado,
            Event::CorreoFallido(_) => EventType::CorreoFallido,
        }
    }

    /// The `data` object as JSON text.
    pub fn data_json(&self) -> serde_json::Result<String> {
        match self {
            Event::FacturaTimbrada(data) => serde_json::to_string(data),
            Event::FacturaCancelada(data)
            | Event::FacturaCancelacionPendiente(data)
            | Event::FacturaCancelacionAceptada(data)
            | Event::FacturaCancelacionRechazada(data) => serde_json::to_string(data),
            Event::NominaReciboTimbrado(data) => serde_json::to_string(data),
            Event::TimbresSaldoBajo(data) => serde_json::to_string(data),
            Event::CertificadoPorExpirar(data) => serde_json::to_string(data),
            Event::WebhookPing(data) => serde_json::to_string(data),
            Event::CfdiXmlDisponible(data) => serde_json::to_string(data),
            Event::NominaCalculada(data) => serde_json::to_string(data),
            Event::FacturaCancelacionRecibida(data) => serde_json::to_string(data),
            Event::FacturaCancelacionRespondida(data) => serde_json::to_string(data),
            Event::CfdiEstadoCambiado(data) => serde_json::to_string(data),
            Event::NominaSuaGenerado(data) => serde_json::to_string(data),
            Event::RetencionTimbrada(data) => serde_json::to_string(data),
            Event::CorreoEnviado(data) | Event::CorreoFallido(data) => serde_json::to_string(data),
        }
    }
}

/// The JSON schema of `data` for each type, from the payload structs; `None` for types no
/// feature emits yet. The match is exhaustive so a new type must decide its schema here.
pub fn data_schema(event: EventType) -> Option<RefOr<Schema>> {
    match event {
        EventType::FacturaTimbrada => Some(FacturaTimbrada::schema()),
        EventType::FacturaCancelada
        | EventType::FacturaCancelacionPendiente
        | EventType::FacturaCancelacionAceptada
        | EventType::FacturaCancelacionRechazada => Some(Cancelacion::schema()),
        EventType::NominaReciboTimbrado => Some(ReciboTimbrado::schema()),
        EventType::TimbresSaldoBajo => Some(SaldoBajo::schema()),
        EventType::CertificadoPorExpirar => Some(CertificadoPorExpirar::schema()),
        EventType::WebhookPing => Some(Ping::schema()),
        EventType::CfdiXmlDisponible => Some(XmlDisponible::schema()),
        EventType::NominaCalculada => Some(NominaCalculada::schema()),
        EventType::FacturaCancelacionRecibida => Some(CancelacionRecibida::schema()),
        EventType::FacturaCancelacionRespondida => Some(CancelacionRespondida::schema()),
        EventType::CfdiEstadoCambiado => Some(EstadoCambiado::schema()),
        EventType::NominaSuaGenerado => Some(NominaSuaGenerado::schema()),
        EventType::NominaSipareExitoso => None,
        EventType::RetencionTimbrada => Some(RetencionTimbrada::schema()),
        EventType::CorreoEnviado | EventType::CorreoFallido => Some(Correo::schema()),
    }
}

/// An amount written as an exact JSON number (never through floating point).
fn numero_exacto() -> Schema {
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(Type::Number)
            .description(Some("exact decimal, written as a JSON number with the CFDI's decimals"))
            .build(),
    )
}

/// A timestamp (RFC 3339).
fn instante() -> Schema {
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::DateTime)))
            .build(),
    )
}

/// `factura.timbrada`: an invoice was stamped (written in the stamping transaction).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FacturaTimbrada {
    /// The invoice's id.
    pub cfdi_id: String,
    /// The UUID as the API shows it (`SANDBOX-…` in sandbox).
    pub uuid: String,
    /// The invoice's Total.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(schema_with = numero_exacto)]
    pub total: Decimal,
    /// Serie.
    pub serie: String,
    /// Folio.
    pub folio: String,
    /// I, E, T, P or N (absent in events written before it was added).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tipo_comprobante: Option<String>,
    /// Payment CFDI (P) only: the amount paid (`Monto`, in the payment's currency); their
    /// `total` is 0, as SAT defines it.
    #[serde(skip_serializing_if = "Option::is_none", with = "rust_decimal::serde::arbitrary_precision_option")]
    #[schema(schema_with = numero_exacto)]
    pub monto: Option<Decimal>,
    /// `true` on a global invoice of sales tickets (`POST /api/cfdi/global` or the automatic
    /// one); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global: Option<bool>,
}

/// `nomina.recibo_timbrado`: a payroll receipt was stamped (written in the stamp's
/// transaction, with the receipt's new status).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReciboTimbrado {
    /// The receipt's id.
    pub recibo_id: String,
    /// Its period.
    pub periodo_id: String,
    /// The UUID as the API shows it (`SANDBOX-…` in sandbox).
    pub uuid: String,
    /// Storage path of the XML, downloadable at `/api/cfdi/{cfdiId}/xml`.
    pub xml_url: String,
    /// The receipt's CFDI Total: the net pay.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(schema_with = numero_exacto)]
    pub total: Decimal,
}

/// The four `factura.cancel*` events. Each is emitted when SAT's status (not the PAC's answer
/// to the request) shows its state, once per state.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cancelacion {
    /// The invoice's id.
    pub cfdi_id: String,
    /// The UUID as the API shows it.
    pub uuid: String,
    /// c_MotivoCancelacion (01–04).
    pub motivo: Option<String>,
    /// What SAT's status says: PENDIENTE (waits for the receiver; `factura.cancelacion_pendiente`),
    /// SIN_ACEPTACION, ACEPTADA or PLAZO_VENCIDO (cancelled; `factura.cancelada`, after
    /// `factura.cancelacion_aceptada` for the last two) or RECHAZADA
    /// (`factura.cancelacion_rechazada`; the invoice stays TIMBRADO).
    pub cancellation_status: String,
}

/// `timbres.saldo_bajo`: a live stamp took the balance below the threshold.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SaldoBajo {
    /// The company.
    pub empresa_id: String,
    /// Stamps left.
    pub saldo: i64,
    /// `TIMBRA_STAMP_LOW_BALANCE`.
    pub umbral: i64,
}

/// `certificado.por_expirar`: an uploaded CSD expires within 30 days.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificadoPorExpirar {
    /// The company.
    pub empresa_id: String,
    /// The certificate's number.
    pub no_certificado: String,
    /// The certificate's RFC.
    pub rfc: String,
    /// End of validity.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(schema_with = instante)]
    pub vigencia_fin: OffsetDateTime,
    /// Whole days left.
    pub dias_restantes: i64,
}

/// `webhook.ping`: `POST /api/webhooks/{id}/test`, to that endpoint only.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ping {
    /// The endpoint tested.
    pub webhook_id: String,
    /// A fixed text.
    pub message: String,
}

/// `cfdi.xml_disponible`: the XML of a received invoice that was METADATA_ONLY arrived (by a
/// background retry, a new download by UUID or a sync) and is stored; the invoice is COMPLETE.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct XmlDisponible {
    /// The invoice's id.
    pub cfdi_id: String,
    /// Its UUID.
    pub uuid: String,
    /// The issuer's RFC.
    pub emisor_rfc: String,
    /// Where the XML is (`xmlUrl`; signed links from the listing or the detail).
    pub xml_url: String,
    /// Background retries made before it arrived.
    pub xml_retry_count: i64,
}

/// `nomina.calculada`: a pay period was calculated (written in the calculation's transaction).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NominaCalculada {
    /// The period.
    pub periodo_id: String,
    /// Receipts written by this calculation.
    pub recibos_calculados: i64,
    /// Σ of the period's receipts' net pay (their CFDI Total).
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(schema_with = numero_exacto)]
    pub total_nomina: Decimal,
}

/// `factura.cancelacion_recibida`: a supplier asked to cancel a CFDI this company received
/// and SAT waits for this company's answer (`POST /api/cancelaciones/pendientes/{uuid}`);
/// emitted once per request.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelacionRecibida {
    /// The CFDI's UUID.
    pub uuid: String,
    /// The issuer's RFC, when the service knows it (the received CFDI is stored, or sandbox).
    pub rfc_emisor: Option<String>,
    /// When the request was made (or first seen).
    #[serde(with = "time::serde::rfc3339")]
    #[schema(schema_with = instante)]
    pub fecha_solicitud: OffsetDateTime,
    /// Three business days after `fechaSolicitud`: with no answer by then SAT cancels the CFDI
    /// ("Plazo vencido").
    #[serde(with = "time::serde::rfc3339")]
    #[schema(schema_with = instante)]
    pub plazo_vence: OffsetDateTime,
}

/// `factura.cancelacion_respondida`: the company answered a cancellation request.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelacionRespondida {
    /// The CFDI's UUID.
    pub uuid: String,
    /// `aceptar` or `rechazar`.
    pub respuesta: String,
    /// SAT's `EstatusCancelacion` after the answer: `Cancelado con aceptación` or `Solicitud rechazada`.
    pub estatus: String,
    /// The received CFDI stored in this company, when there is one.
    pub cfdi_id: Option<String>,
}

/// `cfdi.estado_cambiado`: SAT's `Estado` or `EstatusCancelacion` of a received CFDI changed
/// (seen by the watch of received CFDI or by `GET /api/cfdi/{id}/estado-sat`).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EstadoCambiado {
    /// The received CFDI's id.
    pub cfdi_id: String,
    /// Its UUID.
    pub uuid: String,
    /// I, E, T, P or N.
    pub tipo: String,
    /// SAT's `Estado` before (`Vigente`, `Cancelado`, `No Encontrado`).
    pub estado_anterior: String,
    /// SAT's `Estado` now.
    pub estado: String,
    /// SAT's `EstatusCancelacion` now (empty, `En proceso`, `Cancelado sin aceptación`,
    /// `Cancelado con aceptación`, `Plazo vencido`, `Solicitud rechazada`).
    pub estatus_cancelacion: String,
}

/// `nomina.sua_generado`: a month's SUA import files were written to the file storage
/// (`POST /api/nomina/imss/{año}/{mes}/sua`, in the transaction that records the event).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NominaSuaGenerado {
    /// The month, AAAA-MM.
    pub periodo: String,
    /// Signed link to the ZIP with the workers (ASEG) and movements (MOVT) files, valid 3,600 s
    /// from the generation (`POST` again for a fresh one).
    pub archivo_url: String,
    /// Workers in the workers file.
    pub trabajadores: i64,
    /// Σ employer and worker dues of the month of the workers in the file.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(schema_with = numero_exacto)]
    pub total_cuotas: Decimal,
}

/// `retencion.timbrada`: a CFDI de Retenciones e Información de Pagos 2.0 was stamped.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RetencionTimbrada {
    /// The retention's id (`GET /api/retenciones/{id}`).
    pub retencion_id: String,
    /// `SANDBOX-` + the TFD's UUID in sandbox; the bare UUID in live.
    pub uuid: String,
    /// `Totales/@MontoTotRet`.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    #[schema(schema_with = numero_exacto)]
    pub monto_tot_ret: Decimal,
    /// `RfcR` of a national receiver; `null` for a foreign one.
    pub receptor_rfc: Option<String>,
}

/// `correo.enviado` / `correo.fallido`: a sending of a CFDI by e-mail ended.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Correo {
    /// The sending (`GET /api/cfdi/{id}/correos`).
    pub envio_id: String,
    /// The CFDI sent.
    pub cfdi_id: String,
    /// Its UUID as the API shows it.
    pub uuid: String,
    /// `TIMBRADO` (the CFDI with its XML and PDF) or `CANCELACION` (the notice).
    pub motivo: String,
    /// The addresses.
    pub para: Vec<String>,
    /// Attempts made.
    pub intentos: i64,
    /// The last error (`correo.fallido`); null when sent.
    pub ultimo_error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_emitted_type_documents_the_fields_it_sends() {
        let timbrada = Event::FacturaTimbrada(FacturaTimbrada {
            cfdi_id: "c".into(),
            uuid: "SANDBOX-U".into(),
            total: Decimal::ZERO,
            serie: "P".into(),
            folio: "1".into(),
            tipo_comprobante: Some("P".into()),
            monto: Some(Decimal::new(11600, 2)),
            global: Some(true),
        });
        let data: serde_json::Value = serde_json::from_str(&timbrada.data_json().unwrap()).unwrap();
        assert_eq!((data["total"].to_string(), data["monto"].to_string()), ("0".into(), "116.00".into()));
        let schema = serde_json::to_value(data_schema(timbrada.event_type()).unwrap()).unwrap();
        let documented: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        let sent: Vec<&String> = data.as_object().unwrap().keys().collect();
        assert_eq!(documented, sent);
        assert_eq!(schema["properties"]["total"]["type"], "number");
        assert_eq!(schema["properties"]["monto"]["type"], "number");
    }
}
