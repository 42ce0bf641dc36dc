//! A very small DER reader and writer: only what RSA key components and the
//! test-certificate generator need. Not a general ASN.1 library.

/// Universal tags used here.
pub(crate) mod tag {
    pub const BOOLEAN: u8 = 0x01;
    pub const INTEGER: u8 = 0x02;
    pub const BIT_STRING: u8 = 0x03;
    pub const OCTET_STRING: u8 = 0x04;
    pub const NULL: u8 = 0x05;
    pub const OID: u8 = 0x06;
    pub const UTF8_STRING: u8 = 0x0c;
    pub const PRINTABLE_STRING: u8 = 0x13;
    pub const IA5_STRING: u8 = 0x16;
    pub const UTC_TIME: u8 = 0x17;
    pub const GENERALIZED_TIME: u8 = 0x18;
    pub const UNIVERSAL_STRING: u8 = 0x1c;
    pub const BMP_STRING: u8 = 0x1e;
    pub const SEQUENCE: u8 = 0x30;
    pub const SET: u8 = 0x31;
}

/// Reads one TLV with a single-byte tag; returns (tag, content, rest).
pub(crate) fn read_tlv(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag_byte, rest) = input.split_first()?;
    let (&first_len, rest) = rest.split_first()?;
    let (len, rest) = if first_len < 0x80 {
        (usize::from(first_len), rest)
    } else {
        let count = usize::from(first_len & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let len = rest[..count].iter().fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (len, &rest[count..])
    };
    if rest.len() < len {
        return None;
    }
    Some((tag_byte, &rest[..len], &rest[len..]))
}

/// Reads one TLV and checks its tag.
pub(crate) fn expect(input: &[u8], expected: u8) -> Option<(&[u8], &[u8])> {
    let (found, content, rest) = read_tlv(input)?;
    (found == expected).then_some((content, rest))
}

/// An INTEGER's magnitude without sign-padding zero bytes.
pub(crate) fn unsigned_magnitude(content: &[u8]) -> &[u8] {
    let leading = content.iter().take_while(|&&b| b == 0).count();
    &content[leading..]
}

/// Appends the DER length octets for `len`.
fn push_len(out: &mut Vec<u8>, len: usize) {
    if len < 0x80 {
        // fits in the short form: the cast cannot truncate
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        let significant = &bytes[skip..];
        // at most size_of::<usize>() bytes, far below 0x7f
        out.push(0x80 | significant.len() as u8);
        out.extend_from_slice(significant);
    }
}

/// A whole TLV.
pub(crate) fn tlv(tag_byte: u8, content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + 6);
    out.push(tag_byte);
    push_len(&mut out, content.len());
    out.extend_from_slice(content);
    out
}

/// A constructed TLV from already-encoded parts.
pub(crate) fn constructed(tag_byte: u8, parts: &[&[u8]]) -> Vec<u8> {
    tlv(tag_byte, &parts.concat())
}

/// SEQUENCE of already-encoded parts.
pub(crate) fn sequence(parts: &[&[u8]]) -> Vec<u8> {
    constructed(tag::SEQUENCE, parts)
}

/// INTEGER from an unsigned big-endian magnitude.
pub(crate) fn unsigned_integer(magnitude: &[u8]) -> Vec<u8> {
    let trimmed = unsigned_magnitude(magnitude);
    let mut content = Vec::with_capacity(trimmed.len() + 1);
    if trimmed.first().is_none_or(|&b| b & 0x80 != 0) {
        content.push(0);
    }
    content.extend_from_slice(trimmed);
    tlv(tag::INTEGER, &content)
}

/// OBJECT IDENTIFIER from its dotted arcs (first arc 0..=2, second < 40 for arcs 0 and 1).
pub(crate) fn oid(arcs: &[u64]) -> Vec<u8> {
    let mut content = Vec::new();
    if let [first, second, rest @ ..] = arcs {
        push_base128(&mut content, first * 40 + second);
        for &arc in rest {
            push_base128(&mut content, arc);
        }
    }
    tlv(tag::OID, &content)
}

fn push_base128(out: &mut Vec<u8>, mut value: u64) {
    let mut groups = [0u8; 10];
    let mut count = 0;
    loop {
        // the mask keeps 7 bits: the cast cannot truncate
        groups[count] = (value & 0x7f) as u8;
        count += 1;
        value >>= 7;
        if value == 0 {
            break;
        }
    }
    for index in (0..count).rev() {
        let continuation = if index == 0 { 0 } else { 0x80 };
        out.push(groups[index] | continuation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oid_encoding_matches_known_values() {
        // 1.2.840.113549.1.1.11 sha256WithRSAEncryption
        assert_eq!(
            oid(&[1, 2, 840, 113_549, 1, 1, 11]),
            [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b]
        );
        assert_eq!(oid(&[2, 5, 4, 45]), [0x06, 0x03, 0x55, 0x04, 0x2d]);
    }

    #[test]
    fn lengths_round_trip() {
        for len in [0usize, 1, 127, 128, 255, 256, 70_000] {
            let encoded = tlv(tag::OCTET_STRING, &vec![7u8; len]);
            let (t, content, rest) = read_tlv(&encoded).unwrap();
            assert_eq!((t, content.len(), rest.len()), (tag::OCTET_STRING, len, 0));
        }
    }

    #[test]
    fn integers_get_sign_padding() {
        assert_eq!(unsigned_integer(&[0x80]), [0x02, 0x02, 0x00, 0x80]);
        assert_eq!(unsigned_integer(&[0x00, 0x01]), [0x02, 0x01, 0x01]);
        assert_eq!(unsigned_integer(&[]), [0x02, 0x01, 0x00]);
    }
}
