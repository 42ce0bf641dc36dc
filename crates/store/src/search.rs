//! What `q=` searches: the lowercase text stored beside a record, and the `LIKE` pattern of a
//! query, with `%`, `_` and `\` in the query matched literally; for word search (SAT's
//! catalogs), text folded to unaccented lower-case words.

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

/// `text` as words for search: lower case, accents removed (SAT writes "Café", users type
/// "cafe"), and every run of anything but letters and digits one space, so SQLite's and
/// PostgreSQL's word splitting, a query's and the in-memory search's
/// (`timbra_catalogos::Buscador`) agree.
pub fn folded(text: &str) -> String {
    timbra_catalogos::buscador::plegar(text)
}

/// The words of query `q`, folded, at most `max` of them (a query is a few words typed in a
/// form; more would only make the search slower).
pub fn words(q: &str, max: usize) -> Vec<String> {
    timbra_catalogos::buscador::palabras(q, max)
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

    #[test]
    fn folds_accents_case_and_punctuation() {
        assert_eq!(folded("Café  instantáneo, 3.5 kg (Ñandú) "), "cafe instantaneo 3 5 kg nandu");
        assert_eq!(folded("Islas Åland"), "islas aland");
        assert_eq!(folded("%_\\'\""), "");
        assert_eq!(words("  CAFÉ molido; tostado ", 2), ["cafe", "molido"]);
        assert!(words("-- ", 8).is_empty());
    }
}
