//! Small XML helpers shared by the translators.

/// First descendant (or self) element with this local name, any namespace: PAC answers mix
/// prefixes (`tns:`, `s0:`, none) between versions.
pub(crate) fn descendiente<'a, 'i>(nodo: roxmltree::Node<'a, 'i>, local: &str) -> Option<roxmltree::Node<'a, 'i>> {
    nodo.descendants().find(|n| n.is_element() && n.tag_name().name() == local)
}

/// Text of the direct child element with this local name (entities resolved, all text
/// nodes joined), trimmed; `None` when absent or empty.
pub(crate) fn texto_hijo(nodo: roxmltree::Node<'_, '_>, local: &str) -> Option<String> {
    let hijo = nodo.children().find(|n| n.is_element() && n.tag_name().name() == local)?;
    let texto: String = hijo.descendants().filter(|n| n.is_text()).filter_map(|n| n.text()).collect();
    let texto = texto.trim();
    (!texto.is_empty()).then(|| texto.to_owned())
}

/// The first `max` characters of a text, for error excerpts.
pub(crate) fn extracto(texto: &str, max: usize) -> String {
    texto.chars().take(max).collect()
}
