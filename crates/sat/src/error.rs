//! Errors of the descarga masiva client, each with the SPEC.md code the server answers with.

use std::time::Duration;

/// Why a descarga masiva call failed.
///
/// [`SatError::codigo`] gives the error code of SPEC.md (or, where SPEC.md has none, a new
/// code in the same style: `SAT_<CodEstatus>`, `SAT_AUTH`, `SAT_UNAVAILABLE`).
#[derive(Debug, thiserror::Error)]
pub enum SatError {
    /// The FIEL is not valid at the time of the call (expired or not yet valid).
    #[error("la FIEL no está vigente: {0}")]
    FielVencida(String),
    /// The credential is not a FIEL (a CSD cannot sign descarga masiva requests).
    #[error("el certificado no es una FIEL: {0}")]
    NoEsFiel(String),
    /// The FIEL's RFC is not the RFC the request is about.
    #[error("la FIEL es del RFC {fiel}, la solicitud es del RFC {solicitud}")]
    FielRfcDistinto {
        /// RFC of the FIEL.
        fiel: String,
        /// RFC the request names.
        solicitud: String,
    },
    /// Signing the request failed.
    #[error("no se pudo firmar la petición: {0}")]
    Firma(String),
    /// The request is invalid before reaching SAT (dates, RFC, UUID).
    #[error("petición inválida: {0}")]
    Peticion(String),
    /// A folio (UUID) is not `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
    #[error("el folio {0} no es un UUID válido")]
    UuidInvalido(String),
    /// SAT refused the authentication (SOAP fault, e.g. `a:InvalidSecurity`).
    #[error("SAT rechazó la autenticación: {codigo}: {mensaje}")]
    Autenticacion {
        /// `faultcode`.
        codigo: String,
        /// `faultstring`.
        mensaje: String,
    },
    /// SAT answered the call with a `CodEstatus` other than 5000.
    #[error("SAT respondió {cod_estatus}: {mensaje}")]
    CodEstatus {
        /// SAT's `CodEstatus` (300–305, 5001–5008, 404, …).
        cod_estatus: String,
        /// SAT's `Mensaje`.
        mensaje: String,
    },
    /// SAT answered a SOAP fault to a business call.
    #[error("SAT respondió un SOAP Fault: {codigo}: {mensaje}")]
    Fault {
        /// `faultcode`.
        codigo: String,
        /// `faultstring`.
        mensaje: String,
    },
    /// The request ended in a state without packages (`EstadoSolicitud` 4, 5 or 6).
    #[error("la solicitud terminó en estado {estado} (CodigoEstadoSolicitud {codigo_estado}): {mensaje}")]
    Solicitud {
        /// `EstadoSolicitud`: 4 error, 5 rechazada, 6 vencida.
        estado: u8,
        /// `CodigoEstadoSolicitud` (5000, 5002, 5003, 5004, 5005, 404).
        codigo_estado: String,
        /// SAT's `Mensaje`.
        mensaje: String,
    },
    /// The request was still accepted or in process after the allowed polls.
    #[error("SAT no terminó la solicitud {id_solicitud} tras {consultas} consultas")]
    VerificaTimeout {
        /// The request still pending (keep it: SAT may finish it later).
        id_solicitud: String,
        /// Polls made.
        consultas: u32,
    },
    /// The package came empty (no bytes, or a ZIP without CFDI or metadata).
    #[error("SAT entregó un paquete vacío")]
    PaqueteVacio,
    /// The package went over a limit of [`crate::paquete::LimitesPaquete`] while it was
    /// decompressed (a ZIP bomb, or a package larger than this installation accepts).
    #[error("el paquete excede el límite de {limite} ({maximo}){}", entrada.as_ref().map(|e| format!(" en {e:?}")).unwrap_or_default())]
    PaqueteExcedido {
        /// Which limit.
        limite: crate::paquete::LimitePaquete,
        /// Its configured value.
        maximo: u64,
        /// The entry being read when it was passed (`None`: the package's directory).
        entrada: Option<String>,
    },
    /// The package or a document in it could not be read.
    #[error("no se pudo leer {que}: {motivo}")]
    Parseo {
        /// What was being read (package, document name, response).
        que: String,
        /// Why it failed.
        motivo: String,
    },
    /// SAT's answer was not the expected SOAP message.
    #[error("respuesta inesperada de SAT: {0}")]
    Respuesta(String),
    /// Network failure, HTTP error status or timeout.
    #[error("SAT no disponible: {0}")]
    Transporte(String),
    /// The client did not wait longer for an answer.
    #[error("SAT no respondió en {0:?}")]
    Timeout(Duration),
    /// Bad configuration (URL, folder).
    #[error("configuración inválida: {0}")]
    Configuracion(String),
}

impl SatError {
    /// The error code of SPEC.md this error answers with.
    ///
    /// | error | code |
    /// |---|---|
    /// | FIEL expired, or SAT's 304 | `FIEL_EXPIRED` |
    /// | FIEL of another RFC, or SAT's 303 | `FIEL_RFC_MISMATCH` |
    /// | not a FIEL, or SAT's 305 | `FIEL_005` |
    /// | invalid UUID | `INVALID_UUID` |
    /// | CodEstatus 5002 / 5004 / 5005 (also as CodigoEstadoSolicitud of a rejected request) | `SAT_5002` / `SAT_5004` / `SAT_5005` |
    /// | other CodEstatus (300, 301, 302, 5001, 5003, 5006, 5007, 5008, 404, …) | `SAT_<code>` |
    /// | EstadoSolicitud 4 / 5 / 6 | `SAT_ESTADO_4` / `SAT_ESTADO_5` / `SAT_ESTADO_6` |
    /// | polls exhausted | `VERIFICA_TIMEOUT` |
    /// | empty package | `EMPTY_PACKAGE` |
    /// | unreadable package or document | `PARSE_ERROR` |
    /// | package over a limit (ZIP bomb) | `PAQUETE_001` |
    /// | authentication refused | `SAT_AUTH` |
    /// | network, HTTP, unexpected answer, timeout | `SAT_UNAVAILABLE` |
    /// | bad request or configuration, signing failure | `FIEL_999` |
    pub fn codigo(&self) -> String {
        match self {
            SatError::FielVencida(_) => "FIEL_EXPIRED".into(),
            SatError::FielRfcDistinto { .. } => "FIEL_RFC_MISMATCH".into(),
            SatError::NoEsFiel(_) => "FIEL_005".into(),
            SatError::UuidInvalido(_) => "INVALID_UUID".into(),
            SatError::Autenticacion { .. } => "SAT_AUTH".into(),
            SatError::CodEstatus { cod_estatus, .. } => match cod_estatus.as_str() {
                "303" => "FIEL_RFC_MISMATCH".into(),
                "304" => "FIEL_EXPIRED".into(),
                "305" => "FIEL_005".into(),
                otro => format!("SAT_{otro}"),
            },
            SatError::Solicitud { estado, codigo_estado, .. } => match (*estado, codigo_estado.as_str()) {
                (5, codigo @ ("5002" | "5003" | "5004" | "5005")) => format!("SAT_{codigo}"),
                (estado, _) => format!("SAT_ESTADO_{estado}"),
            },
            SatError::VerificaTimeout { .. } => "VERIFICA_TIMEOUT".into(),
            SatError::PaqueteVacio => "EMPTY_PACKAGE".into(),
            SatError::Parseo { .. } => "PARSE_ERROR".into(),
            SatError::PaqueteExcedido { .. } => "PAQUETE_001".into(),
            SatError::Fault { .. } | SatError::Respuesta(_) | SatError::Transporte(_) | SatError::Timeout(_) => {
                "SAT_UNAVAILABLE".into()
            }
            SatError::Firma(_) | SatError::Peticion(_) | SatError::Configuracion(_) => "FIEL_999".into(),
        }
    }

    /// SAT's `CodEstatus` when SAT answered one.
    pub fn cod_estatus(&self) -> Option<&str> {
        match self {
            SatError::CodEstatus { cod_estatus, .. } => Some(cod_estatus),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cod(code: &str) -> SatError {
        SatError::CodEstatus { cod_estatus: code.into(), mensaje: String::new() }
    }

    fn estado(estado: u8, codigo: &str) -> SatError {
        SatError::Solicitud { estado, codigo_estado: codigo.into(), mensaje: String::new() }
    }

    #[test]
    fn codes_follow_spec() {
        assert_eq!(cod("5002").codigo(), "SAT_5002");
        assert_eq!(cod("5004").codigo(), "SAT_5004");
        assert_eq!(cod("5005").codigo(), "SAT_5005");
        assert_eq!(cod("300").codigo(), "SAT_300");
        assert_eq!(cod("303").codigo(), "FIEL_RFC_MISMATCH");
        assert_eq!(cod("304").codigo(), "FIEL_EXPIRED");
        assert_eq!(cod("5008").codigo(), "SAT_5008");
        assert_eq!(estado(4, "5000").codigo(), "SAT_ESTADO_4");
        assert_eq!(estado(5, "5004").codigo(), "SAT_5004");
        assert_eq!(estado(5, "5003").codigo(), "SAT_5003");
        assert_eq!(estado(5, "404").codigo(), "SAT_ESTADO_5");
        assert_eq!(estado(6, "5000").codigo(), "SAT_ESTADO_6");
        assert_eq!(SatError::PaqueteVacio.codigo(), "EMPTY_PACKAGE");
        assert_eq!(SatError::VerificaTimeout { id_solicitud: "x".into(), consultas: 3 }.codigo(), "VERIFICA_TIMEOUT");
        assert_eq!(SatError::Parseo { que: "a".into(), motivo: "b".into() }.codigo(), "PARSE_ERROR");
        assert_eq!(SatError::UuidInvalido("x".into()).codigo(), "INVALID_UUID");
        assert_eq!(SatError::FielVencida("x".into()).codigo(), "FIEL_EXPIRED");
    }
}
