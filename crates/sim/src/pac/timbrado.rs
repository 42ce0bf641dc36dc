//! `stamp` / `quick_stamp` / `stamped`: the checks a PAC makes on a sealed pre-CFDI
//! (PROTOCOLS.md §2.1–2.2, Anexo 20 codes 301–308 and 401), then the TFD with the simulator's
//! key.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rust_decimal::Decimal;
use timbra_cfdi::sello::{self, ErrorSello};
use timbra_cfdi::timbre::{self, DatosTimbre};
use timbra_cfdi::{parser, validacion};
use timbra_credentials::CertificateKind;
use time::macros::{format_description, offset};
use time::{Duration, OffsetDateTime, PrimitiveDateTime};

use super::soap::{Emitido, Incidencia};
use super::{Documento, EstadoDocumento, Sim, SimConfig, bloquear};

/// Anexo 20: Fecha at most 72 h before the stamp (PAC error 401).
const VENTANA: Duration = Duration::hours(72);
/// Clocks differ: a Fecha this far ahead of the PAC's clock is still accepted.
const TOLERANCIA_FUTURO: Duration = Duration::minutes(5);

const FORMATO_FECHA: &[time::format_description::BorrowedFormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");

/// `AAAA-MM-DDThh:mm:ss` in Mexico central time (UTC−6 all year since 2022).
pub(super) fn fecha_local(instante: OffsetDateTime) -> String {
    instante.to_offset(offset!(-6)).format(FORMATO_FECHA).unwrap_or_default()
}

pub(super) fn decodificar(base64: &str) -> Result<String, Incidencia> {
    let limpio: String = base64.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let bytes =
        STANDARD.decode(limpio).map_err(|_| Incidencia::new("301", "XML mal formado: el campo xml no es base64"))?;
    String::from_utf8(bytes).map_err(|_| Incidencia::new("301", "XML mal formado: no es UTF-8"))
}

impl Sim {
    /// `stamped`: the stamp of a document stamped before, or 603.
    pub(super) fn consultar(&self, xml_base64: &str) -> Result<Emitido, Incidencia> {
        let xml = decodificar(xml_base64)?;
        let comprobante = parser::parsear(&xml).map_err(|e| Incidencia::new("301", format!("XML mal formado: {e}")))?;
        let registro = bloquear(&self.interno.registro);
        registro
            .por_sello
            .get(comprobante.sello.trim())
            .and_then(|uuid| registro.por_uuid.get(uuid))
            .map(|documento| Emitido {
                xml: documento.xml.clone(),
                uuid: documento.uuid.clone(),
                fecha_timbrado: documento.fecha_timbrado.clone(),
                previo: true,
                con_timbre: true,
            })
            .ok_or_else(|| Incidencia::new("603", "No se encontró un timbre previo para este comprobante"))
    }

    pub(super) fn previo(&self, sello: &str, con_timbre: bool) -> Option<Emitido> {
        let registro = bloquear(&self.interno.registro);
        let documento = registro.por_uuid.get(registro.por_sello.get(sello)?)?;
        Some(Emitido {
            xml: documento.xml.clone(),
            uuid: documento.uuid.clone(),
            fecha_timbrado: documento.fecha_timbrado.clone(),
            previo: true,
            con_timbre,
        })
    }

    /// `stamp` / `quick_stamp`.
    pub(super) fn timbrar(
        &self,
        config: &SimConfig,
        ahora: OffsetDateTime,
        xml_base64: &str,
        rapido: bool,
    ) -> Result<Emitido, Incidencia> {
        let xml = decodificar(xml_base64)?;
        let comprobante = parser::parsear(&xml).map_err(|e| Incidencia::new("301", format!("XML mal formado: {e}")))?;
        if comprobante.timbre().is_some() {
            return Err(Incidencia::new("707", "El XML ya contiene un nodo TimbreFiscalDigital"));
        }
        let verificado = sello::verificar_sello_xml(&xml).map_err(|error| match error {
            ErrorSello::Certificado(detalle) => {
                Incidencia::new("308", format!("Certificado no expedido por el SAT: {detalle}"))
            }
            ErrorSello::NoCertificadoDistinto { .. } => {
                Incidencia::new("303", format!("Sello no corresponde al emisor: {error}"))
            }
            ErrorSello::Parseo(detalle) => Incidencia::new("301", format!("XML mal formado: {detalle}")),
            otro => Incidencia::new("302", format!("Sello mal formado o inválido: {otro}")),
        })?;
        let sello_cfd = comprobante.sello.trim().to_owned();
        // The same document again: the original stamp, never a second one.
        if let Some(previo) = self.previo(&sello_cfd, !rapido) {
            return Ok(previo);
        }
        let certificado = &verificado.certificado;
        if certificado.kind() != CertificateKind::Csd {
            return Err(Incidencia::new(
                "306",
                format!(
                    "El certificado no es de tipo CSD (es {}): una e.firma no puede sellar CFDI",
                    certificado.kind()
                ),
            ));
        }
        if certificado.rfc() != comprobante.emisor.rfc.trim() {
            return Err(Incidencia::new(
                "303",
                format!("Sello no corresponde al emisor: el certificado es de {}", certificado.rfc()),
            ));
        }
        let fecha = PrimitiveDateTime::parse(comprobante.fecha.trim(), FORMATO_FECHA)
            .map_err(|_| Incidencia::new("401", "Fecha y hora de generación fuera de rango: formato inválido"))?
            .assume_offset(offset!(-6));
        if certificado.check_valid_at(fecha).is_err() {
            return Err(Incidencia::new(
                "305",
                format!(
                    "La fecha de emisión no está dentro de la vigencia del CSD del Emisor ({} a {})",
                    fecha_local(certificado.not_before()),
                    fecha_local(certificado.not_after())
                ),
            ));
        }
        if certificado.check_valid_at(ahora).is_err() {
            return Err(Incidencia::new("304", "Certificado revocado o caduco"));
        }
        if ahora - fecha > VENTANA || fecha - ahora > TOLERANCIA_FUTURO {
            return Err(Incidencia::new(
                "401",
                format!(
                    "Fecha y hora de generación fuera de rango: {} no está dentro de las 72 horas previas a {}",
                    comprobante.fecha,
                    fecha_local(ahora)
                ),
            ));
        }
        // SAT's catalogs, as a PAC checks them (c_ClaveProdServ, c_ClaveUnidad, c_CodigoPostal…):
        // the first problem's matrix code is the answer's code (CFDI40162, …).
        let informe = validacion::validar(&comprobante, timbra_catalogos::Indice::incluido());
        if let Some(primero) = informe.problemas.first() {
            let todos: Vec<String> = informe.problemas.iter().map(|p| format!("{}: {}", p.campo, p.mensaje)).collect();
            return Err(Incidencia::new(primero.regla, todos.join("; ")));
        }
        let fecha_timbrado = fecha_local(ahora);
        let datos = DatosTimbre {
            uuid: uuid::Uuid::new_v4().to_string().to_uppercase(),
            fecha_timbrado: fecha_timbrado.clone(),
            rfc_prov_certif: config.rfc_prov_certif.clone(),
            leyenda: None,
        };
        let (timbrado, tfd) = timbre::timbrar_xml(&xml, datos, config.credencial_pac.as_ref())
            .map_err(|e| Incidencia::new("999", format!("Error interno del simulador al timbrar: {e}")))?;
        let total = comprobante.total.valor().unwrap_or(Decimal::ZERO);
        let receptor = comprobante.receptor.rfc.trim().to_owned();
        let requiere_aceptacion = comprobante.tipo_de_comprobante == "I"
            && total > config.umbral_aceptacion
            // Receivers for whom cancelling never needs acceptance (RMF 2.7.1.35 VII and VIII).
            && !timbra_cfdi::tipos::es_rfc_generico(&receptor);
        let mut registro = bloquear(&self.interno.registro);
        // Two identical requests raced: the first one to record wins, the other is a duplicate.
        if let Some(uuid) = registro.por_sello.get(&sello_cfd)
            && let Some(documento) = registro.por_uuid.get(uuid)
        {
            return Ok(Emitido {
                xml: documento.xml.clone(),
                uuid: documento.uuid.clone(),
                fecha_timbrado: documento.fecha_timbrado.clone(),
                previo: true,
                con_timbre: !rapido,
            });
        }
        registro.por_sello.insert(sello_cfd, tfd.uuid.clone());
        registro.por_uuid.insert(
            tfd.uuid.clone(),
            Documento {
                xml: timbrado.clone(),
                uuid: tfd.uuid.clone(),
                fecha_timbrado: fecha_timbrado.clone(),
                rfc_emisor: comprobante.emisor.rfc.trim().to_owned(),
                rfc_receptor: receptor,
                total,
                requiere_aceptacion,
                estado: EstadoDocumento::Vigente,
            },
        );
        Ok(Emitido { xml: timbrado, uuid: tfd.uuid, fecha_timbrado, previo: false, con_timbre: true })
    }
}
