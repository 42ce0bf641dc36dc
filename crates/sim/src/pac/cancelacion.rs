//! `cancel_signature` and `get_sat_status`: SAT's cancellation rules (PROTOCOLS.md §2.4–2.5)
//! with a deterministic receiver.
//!
//! As real Finkok, an accepted request answers `EstatusUUID` `201` with `EstatusCancelacion`
//! [`PETICION_EXITOSA`] whatever SAT will decide (python-satcfdi's recorded Finkok answer): the
//! text only says the request was received. What SAT decided is only in `get_sat_status`.
//!
//! Rule: an Ingreso CFDI whose Total exceeds [`SimConfig::umbral_aceptacion`] (receiver not
//! the generic public/foreign RFC) needs the receiver's acceptance: its status goes to
//! `En proceso`; the first [`SimConfig::consultas_en_proceso`] status queries report
//! `En proceso`, the next one shows the receiver's answer: rejected when the receiver is in
//! [`SimConfig::receptores_que_rechazan`], `Plazo vencido` (cancelled by SAT) when it is in
//! [`SimConfig::receptores_que_no_contestan`], accepted otherwise. Everything else is
//! cancelled at once (`Cancelado sin aceptación`). [`SimConfig::consultas_sin_reflejar`]
//! status queries after a request still show the state before it (SAT's status service lags
//! behind the cancellation service).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rust_decimal::Decimal;
use timbra_credentials::{CertificateKind, xmldsig};
use time::OffsetDateTime;

use timbra_cfdi::escritura::escapar_atributo as escapar;

use super::soap::{EstadoSat, FolioRespuesta, Incidencia, ResultadoCancelacion};
use super::timbrado::fecha_local;
use super::{EstadoDocumento, Respuesta, Sim, SimConfig, bloquear};

const NS_CANCELACION: &str = "http://cancelacfd.sat.gob.mx";

/// Finkok's `EstatusCancelacion` for every accepted (`201`) request, whether SAT cancels at
/// once or waits for the receiver.
pub const PETICION_EXITOSA: &str = "Petición de cancelación realizada exitosamente";

fn texto_estado(estado: EstadoDocumento) -> &'static str {
    match estado {
        EstadoDocumento::Vigente => "",
        EstadoDocumento::EnProceso { .. } => "En proceso",
        EstadoDocumento::Cancelado { con_aceptacion: false } => "Cancelado sin aceptación",
        EstadoDocumento::Cancelado { con_aceptacion: true } => "Cancelado con aceptación",
        EstadoDocumento::PlazoVencido => "Plazo vencido",
        EstadoDocumento::Rechazada => "Solicitud rechazada",
    }
}

struct FolioPedido {
    uuid: String,
    motivo: String,
    sustitucion: Option<String>,
}

impl Sim {
    /// `cancel_signature`: verifies the signed `Cancelacion` and answers per UUID.
    pub(super) fn cancelar(
        &self,
        config: &SimConfig,
        ahora: OffsetDateTime,
        xml_base64: &str,
    ) -> Result<ResultadoCancelacion, Incidencia> {
        let limpio: String = xml_base64.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let xml = STANDARD
            .decode(limpio)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| Incidencia::new("301", "XML mal formado: el campo xml no es base64 de UTF-8"))?;
        let documento =
            roxmltree::Document::parse(&xml).map_err(|e| Incidencia::new("301", format!("XML mal formado: {e}")))?;
        let raiz = documento.root_element();
        if raiz.tag_name().name() != "Cancelacion" || raiz.tag_name().namespace() != Some(NS_CANCELACION) {
            return Err(Incidencia::new(
                "301",
                "XML mal formado: se esperaba Cancelacion de http://cancelacfd.sat.gob.mx",
            ));
        }
        let verificado =
            xmldsig::verify(&xml).map_err(|e| Incidencia::new("302", format!("Sello mal formado o inválido: {e}")))?;
        let certificado = verificado.certificate;
        let rfc_emisor = raiz.attribute("RfcEmisor").unwrap_or("").trim().to_owned();
        if certificado.kind() != CertificateKind::Csd {
            return Err(Incidencia::new(
                "306",
                format!("El certificado no es de tipo CSD (es {})", certificado.kind()),
            ));
        }
        if certificado.rfc() != rfc_emisor {
            return Err(Incidencia::new(
                "303",
                format!("El certificado es de {}, no de {rfc_emisor}", certificado.rfc()),
            ));
        }
        if certificado.check_valid_at(ahora).is_err() {
            return Err(Incidencia::new("304", "Certificado revocado o caduco"));
        }
        let pedidos: Vec<FolioPedido> = raiz
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == "Folio")
            .map(|n| FolioPedido {
                uuid: n.attribute("UUID").unwrap_or("").trim().to_uppercase(),
                motivo: n.attribute("Motivo").unwrap_or("").trim().to_owned(),
                sustitucion: n.attribute("FolioSustitucion").map(|s| s.trim().to_uppercase()).filter(|s| !s.is_empty()),
            })
            .collect();
        if pedidos.is_empty() {
            return Err(Incidencia::new("301", "XML mal formado: sin Folios"));
        }
        let mut registro = bloquear(&self.interno.registro);
        let mut folios = Vec::with_capacity(pedidos.len());
        let mut rezagos = Vec::new();
        for pedido in pedidos {
            let sustitucion_existe = pedido.sustitucion.as_ref().is_some_and(|s| registro.por_uuid.contains_key(s));
            let Some(documento) = registro.por_uuid.get_mut(&pedido.uuid) else {
                folios.push(FolioRespuesta {
                    uuid: pedido.uuid,
                    estatus_uuid: "205".into(),
                    estatus_cancelacion: String::new(),
                });
                continue;
            };
            let estatus = if documento.rfc_emisor != rfc_emisor {
                "203"
            } else if !["01", "02", "03", "04"].contains(&pedido.motivo.as_str())
                || (pedido.motivo == "01" && pedido.sustitucion.is_none())
            {
                "207"
            } else if pedido.motivo == "01" && !sustitucion_existe {
                "208"
            } else if pedido.motivo != "01" && pedido.sustitucion.is_some() {
                "209"
            } else if matches!(
                documento.estado.al_momento(ahora),
                EstadoDocumento::EnProceso { .. } | EstadoDocumento::Cancelado { .. } | EstadoDocumento::PlazoVencido
            ) {
                "202"
            } else {
                let anterior = documento.estado;
                documento.estado = if documento.requiere_aceptacion {
                    EstadoDocumento::EnProceso {
                        consultas_restantes: config.consultas_en_proceso,
                        vence: super::aceptacion::vencimiento(ahora),
                        respuesta: if config.receptores_que_responden.contains(&documento.rfc_receptor) {
                            Respuesta::Espera
                        } else if config.receptores_que_rechazan.contains(&documento.rfc_receptor) {
                            Respuesta::Rechaza
                        } else if config.receptores_que_no_contestan.contains(&documento.rfc_receptor) {
                            Respuesta::Calla
                        } else {
                            Respuesta::Acepta
                        },
                    }
                } else {
                    EstadoDocumento::Cancelado { con_aceptacion: false }
                };
                if config.consultas_sin_reflejar > 0 {
                    rezagos.push((pedido.uuid.clone(), (config.consultas_sin_reflejar, anterior)));
                }
                "201"
            };
            // Finkok's text says only that the request was received (SAT's answer is in
            // get_sat_status); a repeated request (202) carries none.
            let estatus_cancelacion = if estatus == "201" { PETICION_EXITOSA } else { "" };
            folios.push(FolioRespuesta {
                uuid: pedido.uuid,
                estatus_uuid: estatus.to_owned(),
                estatus_cancelacion: estatus_cancelacion.to_owned(),
            });
        }
        registro.sin_reflejar.extend(rezagos);
        drop(registro);
        let fecha = fecha_local(ahora);
        // SW's variant of SAT's acuse (PROTOCOLS.md §2.4); the simulator does not sign it.
        let mut acuse =
            format!("<Acuse xmlns=\"{NS_CANCELACION}\" Fecha=\"{fecha}\" RfcEmisor=\"{}\">", escapar(&rfc_emisor));
        for folio in &folios {
            acuse.push_str(&format!(
                "<Folios><UUID>{}</UUID><EstatusUUID>{}</EstatusUUID></Folios>",
                escapar(&folio.uuid),
                folio.estatus_uuid
            ));
        }
        acuse.push_str("</Acuse>");
        Ok(ResultadoCancelacion { folios, acuse, fecha, rfc_emisor })
    }

    /// `get_sat_status` (and SAT's `Consulta`): SAT's view of a CFDI; moves a pending
    /// cancellation along.
    pub(crate) fn estado(
        &self,
        ahora: OffsetDateTime,
        rfc_emisor: &str,
        rfc_receptor: &str,
        uuid: &str,
        total: &str,
    ) -> EstadoSat {
        let no_encontrado = EstadoSat {
            codigo_estatus: "N - 602: Comprobante no encontrado.".into(),
            estado: "No Encontrado".into(),
            es_cancelable: String::new(),
            estatus_cancelacion: String::new(),
        };
        let mut registro = bloquear(&self.interno.registro);
        let registro = &mut *registro;
        let uuid = uuid.trim().to_uppercase();
        let Some(documento) = registro.por_uuid.get_mut(&uuid) else {
            return no_encontrado;
        };
        let total_coincide = total.trim().parse::<Decimal>().is_ok_and(|t| t == documento.total);
        if documento.rfc_emisor != rfc_emisor.trim() || documento.rfc_receptor != rfc_receptor.trim() || !total_coincide
        {
            return no_encontrado;
        }
        // SAT's status service has not caught up with a recent request yet.
        if let Some((restantes, anterior)) = registro.sin_reflejar.remove(&uuid) {
            if restantes > 1 {
                registro.sin_reflejar.insert(uuid, (restantes - 1, anterior));
            }
            return estado_sat(documento.requiere_aceptacion, anterior);
        }
        documento.estado = documento.estado.al_momento(ahora);
        if let EstadoDocumento::EnProceso { consultas_restantes, respuesta, vence } = documento.estado {
            documento.estado = match (consultas_restantes, respuesta) {
                (_, Respuesta::Espera) => documento.estado,
                (0, Respuesta::Rechaza) => EstadoDocumento::Rechazada,
                (0, Respuesta::Calla) => EstadoDocumento::PlazoVencido,
                (0, Respuesta::Acepta) => EstadoDocumento::Cancelado { con_aceptacion: true },
                (n, respuesta) => EstadoDocumento::EnProceso { consultas_restantes: n - 1, respuesta, vence },
            };
        }
        estado_sat(documento.requiere_aceptacion, documento.estado)
    }
}

/// SAT's status fields for a found document.
pub(super) fn estado_sat(requiere_aceptacion: bool, estado: EstadoDocumento) -> EstadoSat {
    EstadoSat {
        codigo_estatus: "S - Comprobante obtenido satisfactoriamente.".into(),
        estado: if matches!(estado, EstadoDocumento::Cancelado { .. } | EstadoDocumento::PlazoVencido) {
            "Cancelado"
        } else {
            "Vigente"
        }
        .into(),
        es_cancelable: if requiere_aceptacion { "Cancelable con aceptación" } else { "Cancelable sin aceptación" }
            .into(),
        estatus_cancelacion: texto_estado(estado).into(),
    }
}
