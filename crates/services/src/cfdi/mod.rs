//! Invoicing: certificates at rest, the sandbox stamper, stamping, storage of the XML and
//! signed download links. The HTTP handlers live in `routes/cfdi.rs`,
//! `routes/certificados.rs`, `routes/fiel.rs` and `routes/timbres.rs`.

pub mod archivos;
pub mod cancelacion;
pub mod cancelar;
pub mod complementos;
pub mod consulta;
pub mod contexto;
pub mod credenciales;
pub mod crypto;
pub mod csd;
pub mod documento;
pub mod ensayo;
pub mod exportacion;
pub mod factura;
pub mod fiel;
pub mod folios;
pub mod group_commit;
pub mod links;
pub mod live;
pub mod nomina;
pub mod pac_log;
pub mod pagos;
pub mod pipeline;
pub mod plazos;
pub mod receptor;
pub mod recibidos;
pub mod recibos;
pub mod recibos_consulta;
pub mod retenciones;
pub mod state;
pub mod storage;
pub mod timbrado;
pub mod timbres;
pub mod tipos;
pub mod validador;
pub mod vencimiento;

use time::{OffsetDateTime, UtcOffset};

/// The offset of the Zona Centro (America/Mexico_City), UTC−6 all year since Mexico abolished
/// daylight saving time there on 2022-10-30 (Ley de los Sistemas de Horario). SAT's TFD
/// `FechaTimbrado` is written in it (Anexo 20: "debe corresponder con la hora de la Zona Centro"),
/// and so are the dates the service keeps of its own (storage paths, quotas); a CFDI's `Fecha`
/// is in its LugarExpedicion's zone instead ([`hora_de_expedicion`]).
pub const OFFSET_CENTRO: UtcOffset = match UtcOffset::from_hms(-6, 0, 0) {
    Ok(offset) => offset,
    Err(_) => UtcOffset::UTC,
};

/// `at` in the Zona Centro.
pub fn hora_local(at: OffsetDateTime) -> OffsetDateTime {
    at.to_offset(OFFSET_CENTRO)
}

/// `at` (whole seconds) in the local time of the postal code `lugar_expedicion`, as a CFDI's
/// `Fecha` must be (Anexo 20: "la hora local donde se expide el comprobante"): the zone
/// c_CodigoPostal gives it, with the border strip's daylight saving time
/// ([`HusoHorario::desfase`](timbra_cfdi::catalogos::HusoHorario::desfase)); the Zona Centro
/// for a code the catalog does not have (validation refuses that code anyway).
pub fn hora_de_expedicion(
    catalogos: &dyn timbra_cfdi::catalogos::Catalogos,
    lugar_expedicion: &str,
    at: OffsetDateTime,
) -> OffsetDateTime {
    let at = at.replace_nanosecond(0).unwrap_or(at);
    match catalogos.datos_codigo_postal(lugar_expedicion) {
        Some(datos) => at.to_offset(datos.huso_horario.desfase(at)),
        None => hora_local(at),
    }
}

/// Reads a CFDI `Fecha` (`AAAA-MM-DDThh:mm:ss`) as the local time of its LugarExpedicion
/// `lugar_expedicion`, the inverse of [`hora_de_expedicion`]. In the border strip, the hour
/// after the change of schedule is read with the offset of the instant an hour away (the
/// local text alone cannot tell the repeated November hour apart).
pub fn leer_fecha_expedicion(
    catalogos: &dyn timbra_cfdi::catalogos::Catalogos,
    lugar_expedicion: &str,
    texto: &str,
) -> Option<OffsetDateTime> {
    Some(fecha_de_expedicion(catalogos, lugar_expedicion, leer_fecha_local(texto)?))
}

/// [`leer_fecha_expedicion`] of a local time already read (a retention's `FechaExp`).
pub fn fecha_de_expedicion(
    catalogos: &dyn timbra_cfdi::catalogos::Catalogos,
    lugar_expedicion: &str,
    local: time::PrimitiveDateTime,
) -> OffsetDateTime {
    let centro = local.assume_offset(OFFSET_CENTRO);
    match catalogos.datos_codigo_postal(lugar_expedicion) {
        Some(datos) => local.assume_offset(datos.huso_horario.desfase(centro)),
        None => centro,
    }
}

/// Reads a CFDI `Fecha` / TFD `FechaTimbrado` text (`AAAA-MM-DDThh:mm:ss`), a local time
/// without its offset.
pub fn leer_fecha_local(texto: &str) -> Option<time::PrimitiveDateTime> {
    let formato = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    time::PrimitiveDateTime::parse(texto, &formato).ok()
}

/// Reads a TFD `FechaTimbrado` (`AAAA-MM-DDThh:mm:ss`) as a time in the Zona Centro; the
/// inverse of [`fecha_cfdi`] of [`hora_local`].
pub fn leer_fecha_cfdi(texto: &str) -> Option<OffsetDateTime> {
    leer_fecha_local(texto).map(|fecha| fecha.assume_offset(OFFSET_CENTRO))
}

/// `AAAA-MM-DDThh:mm:ss` of a local time, as CFDI `Fecha` and TFD `FechaTimbrado` want it.
pub fn fecha_cfdi(local: OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        local.year(),
        u8::from(local.month()),
        local.day(),
        local.hour(),
        local.minute(),
        local.second()
    )
}

/// RFC 3339 text of an instant (the API's dates).
pub fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}
