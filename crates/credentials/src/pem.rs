//! Minimal PEM (RFC 7468) reading: the first `BEGIN`/`END` block of a text.

use base64::Engine as _;

/// The label and decoded bytes of the first PEM block in `text`.
///
/// Text before `-----BEGIN` (as `openssl x509 -text` writes) is ignored.
/// Legacy OpenSSL encrypted PEM (with `Proc-Type`/`DEK-Info` headers) is refused.
pub(crate) fn decode(text: &str) -> Result<(String, Vec<u8>), String> {
    let start = text.find("-----BEGIN ").ok_or_else(|| "no -----BEGIN line".to_owned())?;
    let after_begin = &text[start + "-----BEGIN ".len()..];
    let label_end = after_begin.find("-----").ok_or_else(|| "unterminated BEGIN line".to_owned())?;
    let label = after_begin[..label_end].trim().to_owned();
    let body_and_rest = &after_begin[label_end + "-----".len()..];
    let end_marker = format!("-----END {label}-----");
    let body_end = body_and_rest.find(&end_marker).ok_or_else(|| format!("no {end_marker} line"))?;
    let body = &body_and_rest[..body_end];
    if body.contains(':') {
        return Err("encrypted legacy PEM headers (Proc-Type/DEK-Info) are not supported".into());
    }
    let compact: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map_err(|error| format!("bad base64 in PEM: {error}"))?;
    Ok((label, bytes))
}

/// PEM text of `bytes` under `label`, 64 characters a line.
#[cfg_attr(not(test), allow(dead_code))] // used by tests and the generator
pub(crate) fn encode(label: &str, bytes: &[u8]) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut out = format!("-----BEGIN {label}-----\n");
    for chunk in encoded.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(chunk));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_leading_text() {
        let text = format!("Certificate:\n  junk\n{}", encode("CERTIFICATE", &[1, 2, 3, 250]));
        assert_eq!(decode(&text).unwrap(), ("CERTIFICATE".to_owned(), vec![1, 2, 3, 250]));
    }

    #[test]
    fn refuses_garbage() {
        assert!(decode("nothing here").is_err());
        assert!(decode("-----BEGIN X-----\n!!!\n-----END X-----").is_err());
        assert!(decode("-----BEGIN X-----\nAAAA\n").is_err());
    }
}
