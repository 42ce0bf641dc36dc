//! What an e-mail address, display name or subject may hold (no header injection).

/// Whether `direccion` is one plain mailbox address (`nombre@dominio`): no display name, no
/// spaces, no line break (header injection), at most 254 characters.
pub fn direccion_valida(direccion: &str) -> bool {
    direccion.len() <= 254
        && !direccion.chars().any(|c| c.is_control() || c.is_whitespace() || matches!(c, '<' | '>' | ',' | ';'))
        && direccion.parse::<lettre::Address>().is_ok()
}

/// Whether a name or subject holds a line break or another control character (a header
/// injection attempt).
pub fn tiene_saltos(texto: &str) -> bool {
    texto.chars().any(char::is_control)
}

/// `texto` with every control character (CR, LF, tab...) replaced by a space: what a subject
/// or display name built from stored data carries.
pub(crate) fn sin_saltos(texto: &str) -> String {
    texto.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}
