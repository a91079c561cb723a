//! Credentials for the admin API: a token from `--token-file` or `PULSAR_AUTH_TOKEN`, or a whole
//! header from `--auth-header-file`. Never taken from the command line, never printed: the
//! [`Credential`] redacts itself in `Debug`, and [`Redactor`] scrubs the secret from every text and
//! file `collect` writes, in case a server echoes it back.

use std::fmt;
use std::path::Path;

/// Environment variable holding a token when no file is given.
pub const TOKEN_ENV: &str = "PULSAR_AUTH_TOKEN";

/// One header to send with every request (`Authorization: Bearer …` for tokens).
#[derive(Clone)]
pub struct Credential {
    pub header_name: String,
    header_value: String,
    /// The secret part, for redaction (the token, or the header value).
    secret: String,
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Credential({}: ***)", self.header_name)
    }
}

impl Credential {
    pub fn header_value(&self) -> &str {
        &self.header_value
    }

    pub fn redactor(&self) -> Redactor {
        Redactor {
            secrets: vec![self.secret.clone(), self.header_value.clone()],
        }
    }
}

/// Where the credential came from (for the report; never the value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CredentialSource {
    TokenFile,
    HeaderFile,
    Env,
    None,
}

impl CredentialSource {
    pub fn label(self) -> &'static str {
        match self {
            CredentialSource::TokenFile => "token file",
            CredentialSource::HeaderFile => "auth header file",
            CredentialSource::Env => "PULSAR_AUTH_TOKEN",
            CredentialSource::None => "none",
        }
    }
}

/// Reads the credential: token file, else header file, else `PULSAR_AUTH_TOKEN` (if `env_token` is
/// given: the caller reads the environment so tests of this function stay pure).
pub fn load(
    token_file: Option<&Path>,
    header_file: Option<&Path>,
    env_token: Option<String>,
) -> Result<(Option<Credential>, CredentialSource), String> {
    if let Some(p) = token_file {
        let text = read_secret_file(p)?;
        return token(&text)
            .map(|c| (Some(c), CredentialSource::TokenFile))
            .map_err(|e| format!("{}: {e}", p.display()));
    }
    if let Some(p) = header_file {
        let text = read_secret_file(p)?;
        return header(&text)
            .map(|c| (Some(c), CredentialSource::HeaderFile))
            .map_err(|e| format!("{}: {e}", p.display()));
    }
    match env_token {
        Some(t) if !t.trim().is_empty() => token(&t)
            .map(|c| (Some(c), CredentialSource::Env))
            .map_err(|e| format!("{TOKEN_ENV}: {e}")),
        _ => Ok((None, CredentialSource::None)),
    }
}

/// The most a token or header file may hold: a JWT is a few KiB. Reading stops one byte past it, so
/// `/dev/zero` or a runaway writer fails at once instead of filling memory; a FIFO (`<(…)`) still works.
pub const MAX_SECRET_FILE_BYTES: u64 = 64 * 1024;

fn read_secret_file(p: &Path) -> Result<String, String> {
    let bytes = read_bounded(p, MAX_SECRET_FILE_BYTES)?;
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", p.display()))
}

/// At most `cap` bytes of `p`, or an error naming the file and the cap.
pub fn read_bounded(p: &Path, cap: u64) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let file = std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", p.display()))?;
    if bytes.len() as u64 > cap {
        return Err(format!(
            "{}: more than {cap} bytes (the most this file may hold)",
            p.display()
        ));
    }
    Ok(bytes)
}

/// A token as Pulsar's token file holds it (one line; a `token:` prefix as in `authParams` is
/// accepted). Sent as `Authorization: Bearer <token>`.
fn token(text: &str) -> Result<Credential, String> {
    let t = text.trim();
    let t = t.strip_prefix("token:").unwrap_or(t).trim();
    if t.is_empty() {
        return Err("the token is empty".to_string());
    }
    if !t.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(
            "the token must be one line of printable ASCII without spaces (is the file a JWT?)"
                .to_string(),
        );
    }
    Ok(Credential {
        header_name: "Authorization".to_string(),
        header_value: format!("Bearer {t}"),
        secret: t.to_string(),
    })
}

/// One header line `Name: value`, or a bare value taken as the `Authorization` value
/// (`Basic dXNlcjpwYXNz`, `Bearer …`).
fn header(text: &str) -> Result<Credential, String> {
    let line = text.trim();
    if line.is_empty() {
        return Err("the header file is empty".to_string());
    }
    if line.contains('\n') || line.contains('\r') {
        return Err("expected one header line".to_string());
    }
    let (name, value) = match line.split_once(':') {
        Some((n, v)) if is_header_name(n.trim()) && !n.contains(' ') => (n.trim(), v.trim()),
        _ => ("Authorization", line),
    };
    if value.is_empty()
        || !value
            .bytes()
            .all(|b| b == b' ' || b == b'\t' || b.is_ascii_graphic())
    {
        return Err("the header value must be printable ASCII".to_string());
    }
    // The secret part of `Bearer xyz` / `Basic xyz` is the last word; redact the whole value too.
    let secret = value.rsplit(' ').next().unwrap_or(value).to_string();
    Ok(Credential {
        header_name: name.to_string(),
        header_value: value.to_string(),
        secret,
    })
}

fn is_header_name(n: &str) -> bool {
    !n.is_empty()
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Replaces every occurrence of the secret in text and bytes.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

/// What stands for the secret wherever it would have appeared.
pub const REDACTED: &str = "<redacted>";

impl Redactor {
    fn active(&self) -> impl Iterator<Item = &str> {
        // Very short secrets would redact ordinary words; Pulsar tokens are long JWTs.
        self.secrets
            .iter()
            .map(String::as_str)
            .filter(|s| s.len() >= 4)
    }

    /// Whether `s` holds the secret (a name a server handed back that must not be used).
    pub fn reveals(&self, s: &str) -> bool {
        self.active().any(|secret| s.contains(secret))
    }

    pub fn text(&self, s: &str) -> String {
        let mut out = s.to_string();
        for secret in self.active() {
            if out.contains(secret) {
                out = out.replace(secret, REDACTED);
            }
        }
        out
    }

    /// Scrubs bytes; returns whether anything was replaced.
    pub fn bytes(&self, data: &mut Vec<u8>) -> bool {
        let mut changed = false;
        for secret in self.active() {
            let needle = secret.as_bytes();
            if find(data, needle).is_none() {
                continue;
            }
            let mut out = Vec::with_capacity(data.len());
            let mut rest: &[u8] = data;
            while let Some(i) = find(rest, needle) {
                out.extend_from_slice(rest.get(..i).unwrap_or_default());
                out.extend_from_slice(REDACTED.as_bytes());
                rest = rest.get(i + needle.len()..).unwrap_or_default();
            }
            out.extend_from_slice(rest);
            *data = out;
            changed = true;
        }
        changed
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_and_header_forms() {
        let c = token("  abc.def.ghi\n").unwrap();
        assert_eq!(c.header_value(), "Bearer abc.def.ghi");
        assert!(token("token:xyz1").is_ok());
        assert!(token("a b").is_err());
        let h = header("Authorization: Basic dXNlcjpwYXNz").unwrap();
        assert_eq!(
            (h.header_name.as_str(), h.header_value()),
            ("Authorization", "Basic dXNlcjpwYXNz")
        );
        let bare = header("Bearer t0ken").unwrap();
        assert_eq!(bare.header_name, "Authorization");
        assert!(!format!("{bare:?}").contains("t0ken"));
    }

    #[test]
    fn redacts_text_and_bytes() {
        let r = token("s3cr3t-token").unwrap().redactor();
        assert_eq!(r.text("x s3cr3t-token y"), "x <redacted> y");
        assert!(r.reveals("tenant-s3cr3t-token") && !r.reveals("public"));
        let mut b = b"s3cr3t-token,s3cr3t-token".to_vec();
        assert!(r.bytes(&mut b));
        assert_eq!(b, format!("{REDACTED},{REDACTED}").into_bytes());
    }
}
