//! The status of an invoice record (`status`, client-visible): the names are stored and
//! published as they are.

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
