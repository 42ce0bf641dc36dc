//! Finkok's `retentions` service: `stamp` / `stamped` of a sealed CFDI de Retenciones 2.0 and
//! `cancel_signature` of its signed cancellation request. The checks are a PAC's (schema-level
//! parse, the issuer's seal and CSD, the 72-hour window, SAT's Retenciones 2.0 rules through
//! `timbra_retenciones::validar`) and the answers Finkok's: the stamp fields of the `stamp`
//! service, and SAT's retention cancellation codes (`1201` accepted, `1202` cancelled before,
//! `1203` not the issuer's, `1205` unknown UUID: phpcfdi/finkok's retention tests), never
//! a wait for the receiver (retentions are cancelled without acceptance).

use timbra_cfdi::escritura::escapar_atributo as escapar;
use timbra_cfdi::timbre::DatosTimbre;
use timbra_credentials::{CertificateKind, xmldsig};
use timbra_retenciones::Receptor;
use timbra_retenciones::sello::{self, ErrorSello};
use time::OffsetDateTime;
use time::macros::offset;

use super::soap::{Emitido, FolioRespuesta, Incidencia, ResultadoCancelacion};
use super::timbrado::{decodificar, fecha_local};
use super::{Documento, EstadoDocumento, Sim, SimConfig, bloquear};

/// The namespace SAT's retention cancellation request is in (Retenciones 1.0's, kept).
const NS_CANCELACION_RETENCIONES: &str = "http://www.sat.gob.mx/esquemas/retencionpago/1";

fn parsear(xml: &str) -> Result<timbra_retenciones::Retenciones, Incidencia> {
    timbra_retenciones::parsear(xml).map_err(|e| Incidencia::new("301", format!("XML mal formado: {e}")))
}

impl Sim {
    /// `stamped` of the retentions service: the stamp of a document stamped before, or 603.
    pub(super) fn consultar_retencion(&self, xml_base64: &str) -> Result<Emitido, Incidencia> {
        let retencion = parsear(&decodificar(xml_base64)?)?;
        self.previo(retencion.sello.trim(), true)
            .ok_or_else(|| Incidencia::new("603", "No se encontró un timbre previo para este comprobante"))
    }

    /// `stamp` of the retentions service.
    pub(super) fn timbrar_retencion(
        &self,
        config: &SimConfig,
        ahora: OffsetDateTime,
        xml_base64: &str,
    ) -> Result<Emitido, Incidencia> {
        let xml = decodificar(xml_base64)?;
        let mut retencion = parsear(&xml)?;
        if retencion.timbre().is_some() {
            return Err(Incidencia::new("707", "El XML ya contiene un nodo TimbreFiscalDigital"));
        }
        let verificado = sello::verificar_sello_xml(&xml).map_err(|error| match error {
            ErrorSello::Certificado(detalle) => {
                Incidencia::new("308", format!("Certificado no expedido por el SAT: {detalle}"))
            }
            ErrorSello::NoCertificadoDistinto { .. } => {
                Incidencia::new("303", format!("Sello no corresponde al emisor: {error}"))
            }
            otro => Incidencia::new("302", format!("Sello mal formado o inválido: {otro}")),
        })?;
        let sello_retencion = retencion.sello.trim().to_owned();
        // The same document again: the original stamp, never a second one.
        if let Some(previo) = self.previo(&sello_retencion, true) {
            return Ok(previo);
        }
        let certificado = &verificado.certificado;
        if certificado.kind() != CertificateKind::Csd {
            return Err(Incidencia::new(
                "306",
                format!("El certificado no es de tipo CSD (es {})", certificado.kind()),
            ));
        }
        let rfc_emisor = retencion.emisor.rfc_e.as_str().to_owned();
        if certificado.rfc() != rfc_emisor {
            return Err(Incidencia::new(
                "303",
                format!("Sello no corresponde al emisor: el certificado es de {}", certificado.rfc()),
            ));
        }
        // FechaExp carries no zone in Retenciones 2.0; the PAC reads it as Mexico's central time.
        let fecha = retencion.fecha_exp.assume_offset(offset!(-6));
        if certificado.check_valid_at(fecha).is_err() {
            return Err(Incidencia::new("305", "La fecha de emisión no está dentro de la vigencia del CSD del Emisor"));
        }
        if certificado.check_valid_at(ahora).is_err() {
            return Err(Incidencia::new("304", "Certificado revocado o caduco"));
        }
        if ahora - fecha > time::Duration::hours(72) || fecha - ahora > time::Duration::minutes(5) {
            return Err(Incidencia::new(
                "401",
                format!("Fecha y hora de generación fuera de rango: {} no está dentro de las 72 horas previas", fecha),
            ));
        }
        let problemas = timbra_retenciones::validar(&retencion);
        if let Some(primero) = problemas.first() {
            let todos: Vec<String> = problemas.iter().map(|p| format!("{}: {}", p.campo, p.mensaje)).collect();
            return Err(Incidencia::new(primero.regla, todos.join("; ")));
        }
        let fecha_timbrado = fecha_local(ahora);
        let datos = DatosTimbre {
            uuid: uuid::Uuid::new_v4().to_string().to_uppercase(),
            fecha_timbrado: fecha_timbrado.clone(),
            rfc_prov_certif: config.rfc_prov_certif.clone(),
            leyenda: None,
        };
        let tfd = sello::timbrar(&mut retencion, datos, config.credencial_pac.as_ref())
            .map_err(|e| Incidencia::new("999", format!("Error interno del simulador al timbrar: {e}")))?;
        let timbrado = timbra_retenciones::escribir(&retencion)
            .map_err(|e| Incidencia::new("999", format!("Error interno del simulador al escribir: {e}")))?;
        let rfc_receptor = match &retencion.receptor {
            Receptor::Nacional(nacional) => nacional.rfc_r.as_str().to_owned(),
            Receptor::Extranjero(_) => "XEXX010101000".to_owned(),
        };
        let mut registro = bloquear(&self.interno.registro);
        if let Some(documento) = registro.por_sello.get(&sello_retencion).and_then(|u| registro.por_uuid.get(u)) {
            return Ok(Emitido {
                xml: documento.xml.clone(),
                uuid: documento.uuid.clone(),
                fecha_timbrado: documento.fecha_timbrado.clone(),
                previo: true,
                con_timbre: true,
            });
        }
        registro.por_sello.insert(sello_retencion, tfd.uuid.clone());
        registro.por_uuid.insert(
            tfd.uuid.clone(),
            Documento {
                xml: timbrado.clone(),
                uuid: tfd.uuid.clone(),
                fecha_timbrado: fecha_timbrado.clone(),
                rfc_emisor,
                rfc_receptor,
                total: retencion.totales.monto_tot_operacion,
                requiere_aceptacion: false,
                estado: EstadoDocumento::Vigente,
            },
        );
        Ok(Emitido { xml: timbrado, uuid: tfd.uuid, fecha_timbrado, previo: false, con_timbre: true })
    }

    /// `cancel_signature` of the retentions service: the signed `Cancelacion` in the
    /// retention namespace; each folio cancelled at once (`1201`) or refused with SAT's code.
    pub(super) fn cancelar_retencion(
        &self,
        ahora: OffsetDateTime,
        xml_base64: &str,
    ) -> Result<ResultadoCancelacion, Incidencia> {
        let xml = decodificar(xml_base64)?;
        let documento =
            roxmltree::Document::parse(&xml).map_err(|e| Incidencia::new("301", format!("XML mal formado: {e}")))?;
        let raiz = documento.root_element();
        if raiz.tag_name().name() != "Cancelacion" || raiz.tag_name().namespace() != Some(NS_CANCELACION_RETENCIONES) {
            return Err(Incidencia::new(
                "301",
                format!("XML mal formado: se esperaba Cancelacion de {NS_CANCELACION_RETENCIONES}"),
            ));
        }
        let verificado =
            xmldsig::verify(&xml).map_err(|e| Incidencia::new("302", format!("Sello mal formado o inválido: {e}")))?;
        let rfc_emisor = raiz.attribute("RfcEmisor").unwrap_or("").trim().to_owned();
        if verificado.certificate.kind() != CertificateKind::Csd || verificado.certificate.rfc() != rfc_emisor {
            return Err(Incidencia::new("1308", "Certificado revocado o caduco, o no es un CSD del emisor"));
        }
        let mut registro = bloquear(&self.interno.registro);
        let mut folios = Vec::new();
        for folio in raiz.descendants().filter(|n| n.is_element() && n.tag_name().name() == "Folio") {
            let uuid = folio.attribute("UUID").unwrap_or("").trim().to_uppercase();
            let motivo = folio.attribute("Motivo").unwrap_or("").trim();
            let (estatus, texto) = match registro.por_uuid.get_mut(&uuid) {
                None => ("1205", ""),
                Some(documento) if documento.rfc_emisor != rfc_emisor => ("1203", ""),
                Some(_) if !["01", "02", "03", "04"].contains(&motivo) => ("1207", ""),
                Some(documento) if matches!(documento.estado, EstadoDocumento::Cancelado { .. }) => ("1202", ""),
                Some(documento) => {
                    documento.estado = EstadoDocumento::Cancelado { con_aceptacion: false };
                    ("1201", "Cancelado sin aceptación")
                }
            };
            folios.push(FolioRespuesta {
                uuid,
                estatus_uuid: estatus.to_owned(),
                estatus_cancelacion: texto.to_owned(),
            });
        }
        drop(registro);
        if folios.is_empty() {
            return Err(Incidencia::new("301", "XML mal formado: sin Folios"));
        }
        let fecha = fecha_local(ahora);
        let mut acuse = format!(
            "<Acuse xmlns=\"{NS_CANCELACION_RETENCIONES}\" Fecha=\"{fecha}\" RfcEmisor=\"{}\">",
            escapar(&rfc_emisor)
        );
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
}
