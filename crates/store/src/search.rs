//! What `q=` searches: the lowercase text stored beside a record, and the `LIKE` pattern of a
//! query, with `%`, `_` and `\` in the query matched literally.

/// The lowercase text `q=` searches in.
pub fn search_text(parts: &[&str]) -> String {
    parts.join(" ").to_lowercase()
}

/// A `LIKE ... ESCAPE '\'` pattern that finds `q` anywhere.
pub fn like_pattern(q: Option<&str>) -> String {
    let q = q.map(str::trim).unwrap_or_default().to_lowercase();
    let mut pattern = String::with_capacity(q.len() + 2);
    pattern.push('%');
    for c in q.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(like_pattern(Some("Ab")), "%ab%");
        assert_eq!(like_pattern(Some("100%_\\")), "%100\\%\\_\\\\%");
        assert_eq!(like_pattern(None), "%%");
        assert_eq!(search_text(&["IAÑL750210963", "Ñandú Éxito"]), "iañl750210963 ñandú éxito");
    }
}
