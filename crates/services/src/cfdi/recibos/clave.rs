//! The self-invoicing code a ticket prints: short, typed by hand, not guessable.

use rand::Rng;

/// The code's alphabet: digits and capitals without the ones read as others (0 O 1 I L).
pub(crate) const ALFABETO: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
/// Characters of a self-invoicing code (31^10 ≈ 8·10^14 codes).
pub const LARGO_CLAVE: usize = 10;

/// A fresh self-invoicing code from the OS's CSPRNG (`rand`'s thread generator is a
/// ChaCha CSPRNG seeded by the OS).
pub fn nueva_clave() -> String {
    let mut rng = rand::rng();
    (0..LARGO_CLAVE).map(|_| ALFABETO[rng.random_range(0..ALFABETO.len())] as char).collect()
}

/// A code as typed: upper case, without spaces or dashes, the ambiguous letters read as the
/// digits they look like.
pub fn normalizar_clave(texto: &str) -> String {
    texto
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| match c.to_ascii_uppercase() {
            'O' => '0',
            'I' | 'L' => '1',
            otra => otra,
        })
        .collect()
}
