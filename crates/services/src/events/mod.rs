//! Events: what happened in a company, recorded in the transaction of the change that caused
//! it, with one delivery job per subscribed webhook. Every feature emits through [`emit`] with
//! an [`Event`]: the list of types is here, the payload structs in [`payloads`].

pub mod payloads;

use std::collections::HashMap;
use timbra_store::ids::{DeliveryId, EmpresaId, EventId, WebhookId};

pub use payloads::Event;
use serde::Serialize;
use time::OffsetDateTime;

use crate::jobs::{NewJob, enqueue, enqueue_many};
use timbra_store::events::{self as store_events, EventRow, Subscriber};
use timbra_store::ids;
use timbra_store::{MultiInsert, Tx};

/// The job kind that delivers one `webhook_deliveries` row (run by `webhooks::delivery`).
/// Named here because emitting an event queues its deliveries, and the emitter must not
/// depend on the code that sends them.
pub const DELIVERY_KIND: &str = "webhook.deliver";
/// A delivery's runs: the first attempt and 5 retries.
pub const DELIVERY_MAX_ATTEMPTS: i64 = 6;

/// What a delivery job carries.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryPayload {
    /// The `webhook_deliveries` row to send.
    pub delivery_id: String,
}

macro_rules! event_types {
    ($( $variant:ident = $name:literal, $doc:literal; )*) => {
        /// Every event type (SPEC.md "Events"), serialized as its dotted name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum EventType { $( #[doc = $doc] $variant, )* }

        impl EventType {
            /// Every type, in the documentation's order.
            pub const ALL: &'static [EventType] = &[$(EventType::$variant),*];

            /// The dotted name (`factura.timbrada`).
            pub fn as_str(self) -> &'static str {
                match self { $(EventType::$variant => $name,)* }
            }

            /// What it means.
            pub fn description(self) -> &'static str {
                match self { $(EventType::$variant => $doc,)* }
            }

            /// Parses a dotted name.
            pub fn parse(name: &str) -> Option<EventType> {
                Self::ALL.iter().copied().find(|event| event.as_str() == name)
            }
        }
    };
}

event_types! {
    FacturaTimbrada = "factura.timbrada", "invoice stamped successfully";
    FacturaCancelada = "factura.cancelada", "invoice cancelled with the tax authority";
    FacturaCancelacionPendiente = "factura.cancelacion_pendiente", "cancellation needs the receiver's acceptance";
    FacturaCancelacionAceptada = "factura.cancelacion_aceptada", "receiver accepted the cancellation";
    FacturaCancelacionRechazada = "factura.cancelacion_rechazada", "receiver rejected the cancellation";
    FacturaCancelacionRecibida = "factura.cancelacion_recibida", "a supplier asked to cancel a CFDI this company received: accept or reject it before plazoVence";
    FacturaCancelacionRespondida = "factura.cancelacion_respondida", "this company answered a supplier's cancellation request (accepted or rejected)";
    NominaCalculada = "nomina.calculada", "payroll of a period calculated";
    NominaReciboTimbrado = "nomina.recibo_timbrado", "payroll receipt stamped";
    NominaSuaGenerado = "nomina.sua_generado", "social-security payment file generated";
    NominaSipareExitoso = "nomina.sipare_exitoso", "payment reference line obtained from SIPARE";
    TimbresSaldoBajo = "timbres.saldo_bajo", "stamp balance below the threshold";
    CertificadoPorExpirar = "certificado.por_expirar", "a CSD expires within 30 days";
    CfdiEstadoCambiado = "cfdi.estado_cambiado", "SAT's status (Estado or EstatusCancelacion) of a received CFDI changed";
    CfdiXmlDisponible = "cfdi.xml_disponible", "the XML of a received invoice, known before by its metadata only, became available";
    CorreoEnviado = "correo.enviado", "the e-mail of a CFDI (or of its cancellation notice) was accepted by the SMTP server";
    CorreoFallido = "correo.fallido", "the e-mail of a CFDI could not be sent after every retry (FALLIDO)";
    RetencionTimbrada = "retencion.timbrada", "CFDI de Retenciones e Información de Pagos stamped";
    WebhookPing = "webhook.ping", "test event sent by POST /api/webhooks/{id}/test, to that endpoint only";
}

impl Serialize for EventType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Records `event` of `empresa_id` and enqueues its delivery to every active webhook of the
/// company subscribed to its type (a webhook with no list gets every type but pings), in the
/// caller's transaction. Returns the event id.
pub async fn emit(
    tx: &mut Tx,
    now: OffsetDateTime,
    empresa_id: &EmpresaId,
    event: &Event,
) -> timbra_store::DbResult<String> {
    let event_id = record(tx, now, empresa_id, event).await?;
    let event = event.event_type();
    let subscribers = store_events::subscribers(tx, empresa_id).await?;
    for webhook in subscribers {
        if subscribed(webhook.events.as_deref(), event) {
            deliver(tx, now, empresa_id, &WebhookId::from(&webhook.id), &EventId::from(&event_id)).await?;
        }
    }
    Ok(event_id)
}

/// Whether a webhook's stored `events` list takes `event`.
pub fn subscribed(events: Option<&str>, event: EventType) -> bool {
    if event == EventType::WebhookPing {
        return false;
    }
    match events.map(serde_json::from_str::<Vec<String>>) {
        None => true,
        Some(Ok(names)) => names.is_empty() || names.iter().any(|name| name == event.as_str()),
        Some(Err(_)) => false,
    }
}

/// Writes the event row only (a ping is recorded, then delivered to one endpoint).
pub async fn record(
    tx: &mut Tx,
    now: OffsetDateTime,
    empresa_id: &EmpresaId,
    event: &Event,
) -> timbra_store::DbResult<String> {
    let data = event.data_json().map_err(|error| sqlx::Error::Encode(Box::new(error)))?;
    let id = ids::new_id();
    let row = EventRow { id: &id, empresa_id, event_type: event.event_type().as_str(), data, now };
    store_events::insert_event(tx, &row).await?;
    Ok(id)
}

/// Writes a pending delivery of `event_id` to `webhook_id` and its job. Returns the delivery id.
pub async fn deliver(
    tx: &mut Tx,
    now: OffsetDateTime,
    empresa_id: &EmpresaId,
    webhook_id: &WebhookId,
    event_id: &EventId,
) -> timbra_store::DbResult<String> {
    let id = ids::new_id();
    store_events::insert_delivery(tx, &id, webhook_id, event_id, now).await?;
    let payload = DeliveryPayload { delivery_id: id.clone() };
    enqueue(tx, now, NewJob::new(DELIVERY_KIND, &payload, DELIVERY_MAX_ATTEMPTS).for_empresa(empresa_id)).await?;
    Ok(id)
}

/// One event of a batch for [`emit_many`].
pub struct Emission<'a> {
    /// When it happened.
    pub now: OffsetDateTime,
    /// The company it belongs to.
    pub empresa_id: &'a EmpresaId,
    /// What happened.
    pub event: Event,
}

/// [`emit`] for a batch, with one statement per table instead of several per event (group
/// commit of stamps): the events, then the deliveries and their jobs for the webhooks
/// subscribed, read once per company. Returns the event ids, in the order given.
pub async fn emit_many(tx: &mut Tx, emissions: &[Emission<'_>]) -> timbra_store::DbResult<Vec<String>> {
    let (events, event_ids) = event_rows(emissions)?;
    events.execute(tx).await?;
    deliver_many(tx, emissions, &event_ids).await?;
    Ok(event_ids)
}

/// The first half of [`emit_many`], for a writer that sends the events' insert with its own
/// ([`MultiInsert::execute_together`]): the insert of `emissions`, and their ids in order.
pub fn event_rows(emissions: &[Emission<'_>]) -> timbra_store::DbResult<(MultiInsert, Vec<String>)> {
    let mut events = store_events::events_insert();
    let mut event_ids = Vec::with_capacity(emissions.len());
    for emission in emissions {
        let data = emission.event.data_json().map_err(|error| sqlx::Error::Encode(Box::new(error)))?;
        let id = ids::new_id();
        let row = EventRow {
            id: &id,
            empresa_id: emission.empresa_id,
            event_type: emission.event.event_type().as_str(),
            data,
            now: emission.now,
        };
        store_events::push_event(&mut events, row);
        event_ids.push(id);
    }
    Ok((events, event_ids))
}

/// The second half of [`emit_many`], once the events are inserted: the deliveries and their
/// jobs for the webhooks subscribed, read once per company.
pub async fn deliver_many(tx: &mut Tx, emissions: &[Emission<'_>], event_ids: &[String]) -> timbra_store::DbResult<()> {
    let mut subscribers: HashMap<&str, Vec<Subscriber>> = HashMap::new();
    for emission in emissions {
        if !subscribers.contains_key(emission.empresa_id.as_str()) {
            let found = store_events::subscribers(tx, emission.empresa_id).await?;
            subscribers.insert(emission.empresa_id.as_str(), found);
        }
    }
    let mut deliveries = store_events::deliveries_insert();
    let mut jobs = Vec::new();
    for (emission, event_id) in emissions.iter().zip(event_ids) {
        let event = emission.event.event_type();
        for webhook in subscribers.get(emission.empresa_id.as_str()).map(Vec::as_slice).unwrap_or_default() {
            if subscribed(webhook.events.as_deref(), event) {
                let id = ids::new_id();
                let now = emission.now;
                store_events::push_delivery(
                    &mut deliveries,
                    &DeliveryId::from(&id),
                    &WebhookId::from(&webhook.id),
                    &EventId::from(event_id),
                    now,
                );
                let payload = DeliveryPayload { delivery_id: id };
                jobs.push((
                    now,
                    NewJob::new(DELIVERY_KIND, &payload, DELIVERY_MAX_ATTEMPTS).for_empresa(emission.empresa_id),
                ));
            }
        }
    }
    deliveries.execute(tx).await?;
    enqueue_many(tx, jobs).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_of_the_spec_has_its_dotted_name() {
        for name in [
            "factura.timbrada",
            "factura.cancelada",
            "factura.cancelacion_pendiente",
            "factura.cancelacion_aceptada",
            "factura.cancelacion_rechazada",
            "nomina.calculada",
            "nomina.recibo_timbrado",
            "nomina.sua_generado",
            "nomina.sipare_exitoso",
            "timbres.saldo_bajo",
            "certificado.por_expirar",
            "cfdi.xml_disponible",
        ] {
            let event = EventType::parse(name).unwrap();
            assert_eq!(serde_json::to_value(event).unwrap(), serde_json::json!(name));
        }
    }

    #[test]
    fn subscriptions() {
        assert!(subscribed(None, EventType::FacturaTimbrada));
        assert!(subscribed(Some("[]"), EventType::FacturaTimbrada));
        assert!(subscribed(Some(r#"["factura.timbrada"]"#), EventType::FacturaTimbrada));
        assert!(!subscribed(Some(r#"["factura.cancelada"]"#), EventType::FacturaTimbrada));
        assert!(!subscribed(None, EventType::WebhookPing));
    }
}
