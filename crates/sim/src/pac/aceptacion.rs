//! The receiver's side of a cancellation (PROTOCOLS.md §2.2, §2.5): `get_pending` lists the
//! requests waiting for a receiver's answer, `accept_reject_signature` takes its signed
//! `SolicitudAceptacionRechazo` and resolves them.
//!
//! A request waits when SAT's rule says the CFDI needs acceptance (see [`super::cancelacion`]):
//! `cancel_signature` leaves it `En proceso` with a deadline of three business days after
//! the request (Monday to Friday, on the simulator's clock, Mexico central time); past it SAT
//! cancels ("Plazo vencido") and nothing is pending any more.
//!
//! Checks, like the real service (the answer's shape is python-satcfdi's recorded Finkok
//! answer: `aceptacion/Acepta{status, uuid}`, `rechazo/Rechaza{status, uuid}`, `error`):
//! credentials (`error` `300 - …`), base64 / XML / root `SolicitudAceptacionRechazo` (`301`),
//! XMLDSig (`302`), certificate a CSD (`306`) valid now (`304`); a UUID the simulator never
//! stamped answers Finkok's `UUID: … No Encontrado` (phpcfdi/finkok's recorded error). Per UUID,
//! SAT's codes: `1005` malformed UUID, `1003` certificate not of `RfcReceptor`, `1001` no
//! request waiting for this receiver, `1002` already answered, else `1000` and the CFDI is
//! cancelled (`Cancelado con aceptación`) or stays valid (`Solicitud rechazada`).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use timbra_cfdi::aceptacion_rechazo::Respuesta as RespuestaReceptor;
use timbra_cfdi::timbre::uuid_valido;
use timbra_credentials::{CertificateKind, xmldsig};
use time::macros::{offset, time};
use time::{Duration, OffsetDateTime, Weekday};

use super::soap::ResultadoAceptacionRechazo;
use super::{EstadoDocumento, Sim, bloquear};

const NS_CANCELACION: &str = "http://cancelacfd.sat.gob.mx";

/// Business days the receiver has to answer (RMF 2.7.1.35; PROTOCOLS.md §2.5).
pub const DIAS_HABILES_PARA_RESPONDER: u8 = 3;

/// When a request made at `solicitada` expires: the end of the third business day (Monday to
/// Friday; holidays not modelled) after the request's day, Mexico central time.
pub(super) fn vencimiento(solicitada: OffsetDateTime) -> OffsetDateTime {
    let mut dia = solicitada.to_offset(offset!(-6)).date();
    let mut habiles = 0;
    while habiles < DIAS_HABILES_PARA_RESPONDER {
        dia = dia.next_day().unwrap_or(dia);
        if !matches!(dia.weekday(), Weekday::Saturday | Weekday::Sunday) {
            habiles += 1;
        }
    }
    dia.saturating_add(Duration::days(1)).with_time(time!(0:00)).assume_offset(offset!(-6))
}

fn error(codigo: &str, mensaje: impl std::fmt::Display) -> String {
    format!("{codigo} - {mensaje}")
}

impl Sim {
    /// `get_pending`: UUIDs received by `rfc_receptor` waiting for its answer, oldest request
    /// first.
    pub(super) fn pendientes(&self, ahora: OffsetDateTime, rfc_receptor: &str) -> Vec<String> {
        let mut registro = bloquear(&self.interno.registro);
        let mut pendientes: Vec<(OffsetDateTime, String)> = registro
            .por_uuid
            .values_mut()
            .filter(|documento| documento.rfc_receptor == rfc_receptor.trim())
            .filter_map(|documento| {
                documento.estado = documento.estado.al_momento(ahora);
                match documento.estado {
                    EstadoDocumento::EnProceso { vence, .. } => Some((vence, documento.uuid.clone())),
                    _ => None,
                }
            })
            .collect();
        pendientes.sort();
        pendientes.into_iter().map(|(_, uuid)| uuid).collect()
    }

    /// `accept_reject_signature`: verifies the receiver's signed answer and applies it.
    pub(super) fn aceptar_rechazar(
        &self,
        ahora: OffsetDateTime,
        xml_base64: &str,
    ) -> Result<ResultadoAceptacionRechazo, String> {
        let limpio: String = xml_base64.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let xml = STANDARD
            .decode(limpio)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| error("301", "XML mal formado: el campo xml no es base64 de UTF-8"))?;
        let documento = roxmltree::Document::parse(&xml).map_err(|e| error("301", format!("XML mal formado: {e}")))?;
        let raiz = documento.root_element();
        if raiz.tag_name().name() != "SolicitudAceptacionRechazo" || raiz.tag_name().namespace() != Some(NS_CANCELACION)
        {
            return Err(error(
                "301",
                "XML mal formado: se esperaba SolicitudAceptacionRechazo de http://cancelacfd.sat.gob.mx",
            ));
        }
        let certificado =
            xmldsig::verify(&xml).map_err(|e| error("302", format!("Sello mal formado o inválido: {e}")))?.certificate;
        if certificado.kind() != CertificateKind::Csd {
            return Err(error("306", format!("El certificado no es de tipo CSD (es {})", certificado.kind())));
        }
        if certificado.check_valid_at(ahora).is_err() {
            return Err(error("304", "Certificado revocado o caduco"));
        }
        let rfc_receptor = raiz.attribute("RfcReceptor").unwrap_or("").trim().to_owned();
        let mut folios = Vec::new();
        for folio in raiz.children().filter(|n| n.is_element() && n.tag_name().name() == "Folios") {
            let texto = |nombre: &str| {
                folio
                    .children()
                    .find(|n| n.is_element() && n.tag_name().name() == nombre)
                    .and_then(|n| n.text())
                    .unwrap_or("")
                    .trim()
                    .to_owned()
            };
            let respuesta = RespuestaReceptor::desde_texto(&texto("Respuesta"))
                .ok_or_else(|| error("301", "XML mal formado: Respuesta debe ser Aceptacion o Rechazo"))?;
            folios.push((texto("UUID").to_uppercase(), respuesta));
        }
        if folios.is_empty() {
            return Err(error("301", "XML mal formado: sin Folios"));
        }
        let mut registro = bloquear(&self.interno.registro);
        // Finkok refuses the whole request for a UUID it does not know.
        if let Some((uuid, _)) =
            folios.iter().find(|(uuid, _)| uuid_valido(uuid) && !registro.por_uuid.contains_key(uuid))
        {
            return Err(format!("UUID: {uuid} No Encontrado"));
        }
        let mut resultado = ResultadoAceptacionRechazo::default();
        for (uuid, respuesta) in folios {
            let codigo = match registro.por_uuid.get_mut(&uuid) {
                None => "1005",
                Some(_) if certificado.rfc() != rfc_receptor => "1003",
                Some(documento) if documento.rfc_receptor != rfc_receptor => "1001",
                Some(documento) => match documento.estado.al_momento(ahora) {
                    EstadoDocumento::EnProceso { .. } => {
                        documento.estado = match respuesta {
                            RespuestaReceptor::Aceptacion => EstadoDocumento::Cancelado { con_aceptacion: true },
                            RespuestaReceptor::Rechazo => EstadoDocumento::Rechazada,
                        };
                        "1000"
                    }
                    EstadoDocumento::Cancelado { con_aceptacion: true } | EstadoDocumento::Rechazada => "1002",
                    estado => {
                        documento.estado = estado;
                        "1001"
                    }
                },
            };
            let lista = match respuesta {
                RespuestaReceptor::Aceptacion => &mut resultado.aceptacion,
                RespuestaReceptor::Rechazo => &mut resultado.rechazo,
            };
            lista.push((uuid, codigo.to_owned()));
        }
        Ok(resultado)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn tres_dias_habiles() {
        // Friday 20 Nov 2026, noon in Mexico City: Monday, Tuesday, Wednesday; expires at the
        // start of Thursday.
        assert_eq!(vencimiento(datetime!(2026-11-20 18:00 UTC)), datetime!(2026-11-26 00:00 -6));
        // Monday: Tuesday to Thursday.
        assert_eq!(vencimiento(datetime!(2026-11-23 15:00 -6)), datetime!(2026-11-27 00:00 -6));
        // Saturday counts from Monday.
        assert_eq!(vencimiento(datetime!(2026-11-21 10:00 -6)), datetime!(2026-11-26 00:00 -6));
    }
}
