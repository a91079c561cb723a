//! What the plan code needs to put names into generated scripts: the name rule itself lives in
//! [`crate::naming`] (re-exported here for the driver's manual operations), plus shell quoting and
//! URL percent-encoding. A snapshot is untrusted input: a broker or namespace name carrying shell
//! metacharacters or dot segments must never turn an exported script into an injection.

pub use crate::naming::{
    NameError, check_broker_id as check_broker, check_bundle, check_namespace, check_topic,
};

/// Quotes a (validated) word for POSIX shells.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Percent-encodes a URL path segment or query value (`naming::percent`), so a `/` or `%` in a
/// name stays inside its segment.
pub use crate::naming::percent::percent_encode as url_encode;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_and_encoding() {
        assert_eq!(shell_quote("a'b"), r"'a'\''b'");
        assert_eq!(url_encode("a b/c"), "a%20b%2Fc");
        assert_eq!(url_encode("[::1]:8080"), "%5B%3A%3A1%5D%3A8080");
    }
}
