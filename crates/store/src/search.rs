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
/// PostgreSQL's word splitting and a query's agree.
pub fn folded(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    let mut gap = false;
    for c in text.chars().flat_map(char::to_lowercase).map(unaccented) {
        if c.is_alphanumeric() {
            if gap && !folded.is_empty() {
                folded.push(' ');
            }
            gap = false;
            folded.push(c);
        } else {
            gap = true;
        }
    }
    folded
}

/// The words of query `q`, folded, at most `max` of them (a query is a few words typed in a
/// form; more would only make the search slower).
pub fn words(q: &str, max: usize) -> Vec<String> {
    folded(q).split(' ').filter(|word| !word.is_empty()).take(max).map(str::to_owned).collect()
}

/// A lower-case letter without its accent (the ones of Spanish and SAT's country names).
fn unaccented(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' => 'o',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'ñ' => 'n',
        'ç' => 'c',
        'ý' | 'ÿ' => 'y',
        c => c,
    }
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
