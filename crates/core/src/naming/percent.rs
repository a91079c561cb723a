//! Names inside URLs: percent-encoding of a path segment or query value (RFC 3986's unreserved
//! characters kept), so a `/`, `%` or `&` in a bundle, broker or session text stays inside its
//! segment, and its inverse for the session links the dashboard shares.

/// Percent-encodes `s` as one URL path segment or query value.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The text `s` encodes (`+` read as a space, as a form-encoded query writes it); `None` when a
/// `%` is not followed by two hex digits or the bytes are not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(if b == b'+' { b' ' } else { b });
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_name_stays_one_segment_and_comes_back() {
        let bundle = "acme/orders/0x00000000_0x40000000";
        assert_eq!(
            percent_encode(bundle),
            "acme%2Forders%2F0x00000000_0x40000000"
        );
        assert_eq!(percent_encode("a b&c%"), "a%20b%26c%25");
        assert_eq!(
            percent_decode(&percent_encode(bundle)).as_deref(),
            Some(bundle)
        );
        assert_eq!(percent_decode("a+b").as_deref(), Some("a b"));
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%4"), None);
    }
}
