//! The status of an invoice record (`status`) and of its cancellation (`cancellationStatus`),
//! both client-visible: the names are stored and published as they are.

/// Where an invoice stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EstadoCfdi {
    /// Stamped by the PAC (live) and in force.
    Timbrado,
    /// Stamped with the installation's sandbox key; not a tax document.
    TimbradoSandbox,
    /// SAT says it is cancelled.
    Cancelado,
}

impl EstadoCfdi {
    /// Every status, in the documentation's order.
    pub const ALL: [EstadoCfdi; 3] = [EstadoCfdi::Timbrado, EstadoCfdi::TimbradoSandbox, EstadoCfdi::Cancelado];

    /// The stored and published name.
    pub fn as_str(self) -> &'static str {
        match self {
            EstadoCfdi::Timbrado => "TIMBRADO",
            EstadoCfdi::TimbradoSandbox => "TIMBRADO_SANDBOX",
            EstadoCfdi::Cancelado => "CANCELADO",
        }
    }

    /// The status stored as `nombre`.
    pub fn parse(nombre: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|estado| estado.as_str() == nombre)
    }

    /// The status of a new stamp in this mode.
    pub fn timbrado(sandbox: bool) -> Self {
        if sandbox { EstadoCfdi::TimbradoSandbox } else { EstadoCfdi::Timbrado }
    }

    /// Stamped and in force (either mode): the states a cancellation starts from.
    pub fn vigente(self) -> bool {
        matches!(self, EstadoCfdi::Timbrado | EstadoCfdi::TimbradoSandbox)
    }
}

/// Where a cancellation stands (`cancellationStatus`, client-visible). Only SAT's status
/// (`get_sat_status`) says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EstadoCancelacion {
    /// The PAC accepted the request; SAT still shows the invoice in force (its status service
    /// has not caught up, or does not know the UUID yet). The invoice stays TIMBRADO.
    Solicitada,
    /// SAT waits for the receiver's acceptance (`En proceso`). The invoice stays TIMBRADO.
    Pendiente,
    /// SAT cancelled it without acceptance (`Cancelado sin aceptación`): CANCELADO.
    SinAceptacion,
    /// The receiver accepted (`Cancelado con aceptación`): CANCELADO.
    Aceptada,
    /// The receiver did not answer within three business days (`Plazo vencido`): CANCELADO.
    PlazoVencido,
    /// The receiver rejected (`Solicitud rechazada`): the invoice stays TIMBRADO and may be
    /// cancelled again.
    Rechazada,
}

impl EstadoCancelacion {
    /// The stored and published name.
    pub fn as_str(self) -> &'static str {
        match self {
            EstadoCancelacion::Solicitada => "SOLICITADA",
            EstadoCancelacion::Pendiente => "PENDIENTE",
            EstadoCancelacion::SinAceptacion => "SIN_ACEPTACION",
            EstadoCancelacion::Aceptada => "ACEPTADA",
            EstadoCancelacion::PlazoVencido => "PLAZO_VENCIDO",
            EstadoCancelacion::Rechazada => "RECHAZADA",
        }
    }

    /// The state stored as `nombre`.
    pub fn parse(nombre: &str) -> Option<Self> {
        [
            EstadoCancelacion::Solicitada,
            EstadoCancelacion::Pendiente,
            EstadoCancelacion::SinAceptacion,
            EstadoCancelacion::Aceptada,
            EstadoCancelacion::PlazoVencido,
            EstadoCancelacion::Rechazada,
        ]
        .into_iter()
        .find(|estado| estado.as_str() == nombre)
    }

    /// SAT says the invoice is cancelled: its status is CANCELADO.
    pub fn cancelado(self) -> bool {
        matches!(self, EstadoCancelacion::SinAceptacion | EstadoCancelacion::Aceptada | EstadoCancelacion::PlazoVencido)
    }

    /// Not final: the follow-up job keeps asking SAT, and a new request is refused.
    pub fn en_curso(self) -> bool {
        matches!(self, EstadoCancelacion::Solicitada | EstadoCancelacion::Pendiente)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for estado in EstadoCfdi::ALL {
            assert_eq!(EstadoCfdi::parse(estado.as_str()), Some(estado));
        }
        assert_eq!(EstadoCfdi::parse("PENDIENTE"), None);
        assert!(EstadoCfdi::timbrado(true).vigente() && !EstadoCfdi::Cancelado.vigente());
    }
}
