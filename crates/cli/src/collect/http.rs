//! The HTTP client: one blocking GET with a deadline, retried with exponential backoff on transient
//! failures (connect errors, 5xx, 429), following redirects only to origins of the cluster being
//! collected and never from https to http (Pulsar redirects admin calls between brokers; see
//! [`super::origins`] for where the credential may go), reading answers within [`super::limits`].
//! Failures are classified for the missing-data report.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};
use url::{Origin, Url};

use super::auth::{Credential, Redactor};
use super::limits::{self, Budget, Limits};
use super::origins::{self, Places};
/// Redirects followed per request.
const MAX_REDIRECTS: usize = 3;
/// Longest wait between two attempts, whatever the backoff or `Retry-After` says.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Deadline of one attempt (connect, headers and body).
    pub timeout: Duration,
    /// Attempts per request, at least 1.
    pub attempts: u32,
    /// Wait before the second attempt; doubled for each further attempt.
    pub backoff: Duration,
}

/// Why a request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    Unauthorized,
    Forbidden,
    NotFound,
    HttpStatus,
    Timeout,
    Connect,
    Protocol,
    TooLarge,
    RedirectRefused,
}

impl FailureKind {
    /// The `reason` written to `collect-report.json`.
    pub fn code(self) -> &'static str {
        match self {
            FailureKind::Unauthorized => "unauthorized",
            FailureKind::Forbidden => "forbidden",
            FailureKind::NotFound => "not_found",
            FailureKind::HttpStatus => "http_status",
            FailureKind::Timeout => "timeout",
            FailureKind::Connect => "connect",
            FailureKind::Protocol => "protocol",
            FailureKind::TooLarge => "too_large",
            FailureKind::RedirectRefused => "redirect_refused",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: FailureKind,
    pub http_status: Option<u16>,
    pub message: String,
    pub attempts: u32,
    /// The origin that answered an error to a request sent without the credential because that
    /// origin may not have it (a broker, or a redirect target).
    pub credential_withheld_from: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Fetched {
    pub status: u16,
    pub body: Vec<u8>,
    pub attempts: u32,
    pub elapsed: Duration,
}

/// Called before each retry with (attempt number about to start, wait, why).
pub type RetryHook<'a> = &'a (dyn Fn(u32, Duration, &str) + Sync);

pub struct Client {
    agent: ureq::Agent,
    opts: HttpOptions,
    credential: Option<Credential>,
    redactor: Redactor,
    /// Origins requests may go to and those that get the credential.
    places: RwLock<Places>,
    limits: Limits,
    /// What all answers kept so far took from `limits`' totals.
    budget: Budget,
}

/// Reads PEM certificates for `--tls-trust-certs`.
pub fn load_trust_certs(pem: &[u8]) -> Result<Vec<Certificate<'static>>, String> {
    let mut out = Vec::new();
    for item in ureq::tls::parse_pem(pem) {
        match item {
            Ok(PemItem::Certificate(c)) => out.push(c),
            Ok(_) => {}
            Err(e) => return Err(format!("not a PEM certificate file: {e}")),
        }
    }
    if out.is_empty() {
        return Err("no certificate found (expected PEM `BEGIN CERTIFICATE` blocks)".to_string());
    }
    Ok(out)
}

impl Client {
    pub fn new(
        opts: HttpOptions,
        credential: Option<Credential>,
        trust: Option<Vec<Certificate<'static>>>,
        admin: &Url,
        limits: Limits,
    ) -> Self {
        let mut tls = TlsConfig::builder();
        if let Some(certs) = trust {
            tls = tls.root_certs(RootCerts::Specific(Arc::new(certs)));
        }
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .timeout_global(Some(opts.timeout))
            .timeout_connect(Some(opts.timeout.min(Duration::from_secs(10))))
            .user_agent(format!("lbplan/{}", env!("CARGO_PKG_VERSION")))
            .accept("application/json")
            // No proxy from the environment: requests go straight to the cluster.
            .proxy(None)
            .tls_config(tls.build())
            .build();
        let redactor = credential
            .as_ref()
            .map(Credential::redactor)
            .unwrap_or_default();
        Self {
            agent: config.into(),
            opts,
            credential,
            redactor,
            places: RwLock::new(Places::new(admin.origin())),
            limits,
            budget: Budget::default(),
        }
    }

    /// Origins requests and redirects may go to (the cluster's brokers), without the credential.
    pub fn allow_visit(&self, origins: impl IntoIterator<Item = Origin>) {
        if let Ok(mut p) = self.places.write() {
            p.allow_visit(origins);
        }
    }

    /// Origins that get the credential (`--allow-credential-to`, `--send-credential-to-brokers`).
    pub fn allow_credential(&self, origins: impl IntoIterator<Item = Origin>) {
        if let Ok(mut p) = self.places.write() {
            p.allow_credential(origins);
        }
    }

    /// The redactor of the credential (an empty one without a credential).
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// GET with retries. `on_retry` reports each retry (for progress).
    pub fn get(&self, url: &str, on_retry: RetryHook<'_>) -> Result<Fetched, Failure> {
        let started = Instant::now();
        let attempts = self.opts.attempts.max(1);
        let mut attempt = 1;
        loop {
            match self.once(url) {
                Ok((status, body)) => {
                    return Ok(Fetched {
                        status,
                        body,
                        attempts: attempt,
                        elapsed: started.elapsed(),
                    });
                }
                Err(e) => {
                    let retry = e.transient && attempt < attempts;
                    if !retry {
                        let message = if e.kind == FailureKind::Timeout {
                            format!(
                                "no complete answer within {} ms ({})",
                                self.opts.timeout.as_millis(),
                                e.message
                            )
                        } else {
                            e.message
                        };
                        return Err(Failure {
                            kind: e.kind,
                            http_status: e.status,
                            message: self.redactor.text(&message),
                            attempts: attempt,
                            credential_withheld_from: e
                                .credential_withheld_from
                                .map(|o| self.redactor.text(&o)),
                        });
                    }
                    let wait = self.backoff(attempt, e.retry_after);
                    on_retry(attempt + 1, wait, &self.redactor.text(&e.message));
                    std::thread::sleep(wait);
                    attempt += 1;
                }
            }
        }
    }

    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let exp = attempt.saturating_sub(1).min(16);
        let wait = self.opts.backoff.saturating_mul(1u32 << exp);
        wait.max(retry_after.unwrap_or_default()).min(MAX_BACKOFF)
    }

    /// One request with a method other than GET (`lbplan apply`): sent once, never retried (an
    /// unload must not be sent twice because an answer was slow), following only 307 and 308
    /// redirects, which keep the method and body (Pulsar redirects an unload to the leader).
    pub fn send(&self, method: &str, url: &str, body: Option<&str>) -> Result<Fetched, Failure> {
        let started = Instant::now();
        match self.attempt(method, url, body) {
            Ok((status, body)) => Ok(Fetched {
                status,
                body,
                attempts: 1,
                elapsed: started.elapsed(),
            }),
            Err(e) => Err(Failure {
                kind: e.kind,
                http_status: e.status,
                message: self.redactor.text(&e.message),
                attempts: 1,
                credential_withheld_from: e
                    .credential_withheld_from
                    .map(|o| self.redactor.text(&o)),
            }),
        }
    }

    /// One GET attempt, following allowed redirects.
    fn once(&self, url: &str) -> Result<(u16, Vec<u8>), AttemptError> {
        self.attempt("GET", url, None)
    }

    /// The request itself, with the credential when the origin may have it.
    fn request(
        &self,
        method: &str,
        url: &Url,
        body: Option<&str>,
        credential: Option<&Credential>,
    ) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        fn auth<B>(
            req: ureq::RequestBuilder<B>,
            c: Option<&Credential>,
        ) -> ureq::RequestBuilder<B> {
            match c {
                Some(c) => req.header(c.header_name.as_str(), c.header_value()),
                None => req,
            }
        }
        let with_body = |req: ureq::RequestBuilder<ureq::typestate::WithBody>| {
            let req = auth(req, credential);
            match body {
                Some(b) => req
                    .header("Content-Type", "application/json")
                    .send(b.as_bytes()),
                None => req.send_empty(),
            }
        };
        match method {
            "PUT" => with_body(self.agent.put(url.as_str())),
            "POST" => with_body(self.agent.post(url.as_str())),
            "DELETE" => auth(self.agent.delete(url.as_str()), credential).call(),
            _ => auth(self.agent.get(url.as_str()), credential).call(),
        }
    }

    /// One attempt of `method`, following allowed redirects.
    fn attempt(
        &self,
        method: &str,
        url: &str,
        body: Option<&str>,
    ) -> Result<(u16, Vec<u8>), AttemptError> {
        let mut current = Url::parse(url).map_err(|e| {
            AttemptError::fatal(FailureKind::Protocol, None, format!("not a URL ({e})"))
        })?;
        for _ in 0..=MAX_REDIRECTS {
            let mut withheld = false;
            let mut credential = None;
            if let Some(c) = &self.credential {
                let allowed = self
                    .places
                    .read()
                    .is_ok_and(|p| p.gets_credential(&current.origin()));
                if allowed {
                    credential = Some(c);
                } else {
                    withheld = true;
                }
            }
            let mut resp = self
                .request(method, &current, body, credential)
                .map_err(classify)?;
            let status = resp.status().as_u16();
            if method != "GET" && matches!(status, 301..=303) {
                return Err(AttemptError::fatal(
                    FailureKind::RedirectRefused,
                    Some(status),
                    format!(
                        "HTTP {status} redirect of a {method} not followed (it would become a GET)"
                    ),
                ));
            }
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                let loc = resp
                    .headers()
                    .get("location")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
                    .ok_or_else(|| {
                        AttemptError::fatal(
                            FailureKind::Protocol,
                            Some(status),
                            "redirect without a Location".to_string(),
                        )
                    })?;
                let next = origins::resolve(&current, &loc)
                    .map_err(|m| AttemptError::fatal(FailureKind::Protocol, Some(status), m))?;
                let refused = match self.places.read() {
                    Ok(p) => origins::refuse_redirect(&current, &next, &p),
                    Err(_) => Some("redirect refused".to_string()),
                };
                if let Some(why) = refused {
                    return Err(AttemptError::fatal(
                        FailureKind::RedirectRefused,
                        Some(status),
                        format!("HTTP {status} {why}"),
                    ));
                }
                current = next;
                continue;
            }
            let retry_after = resp
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            if !(200..300).contains(&status) {
                let start = limits::read_error_start(resp.body_mut().with_config().reader());
                let mut e = status_error(status, &start, retry_after);
                if withheld {
                    e.credential_withheld_from = Some(origins::show(&current.origin()));
                }
                return Err(e);
            }
            let declared = resp
                .headers()
                .get("content-length")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            let reader = resp.body_mut().with_config().reader();
            return match limits::read_answer(reader, declared, &self.limits, &self.budget) {
                Ok(Ok(body)) => Ok((status, body)),
                Ok(Err(cut)) => Err(AttemptError::fatal(
                    FailureKind::TooLarge,
                    Some(status),
                    cut.to_string(),
                )),
                Err(io) => Err(classify(ureq::Error::from(io))),
            };
        }
        Err(AttemptError::fatal(
            FailureKind::Protocol,
            None,
            format!("more than {MAX_REDIRECTS} redirects"),
        ))
    }
}

struct AttemptError {
    kind: FailureKind,
    status: Option<u16>,
    message: String,
    transient: bool,
    retry_after: Option<Duration>,
    credential_withheld_from: Option<String>,
}

impl AttemptError {
    fn fatal(kind: FailureKind, status: Option<u16>, message: String) -> Self {
        Self {
            kind,
            status,
            message,
            transient: false,
            retry_after: None,
            credential_withheld_from: None,
        }
    }
}

fn status_error(status: u16, body: &[u8], retry_after: Option<Duration>) -> AttemptError {
    let kind = match status {
        401 => FailureKind::Unauthorized,
        403 => FailureKind::Forbidden,
        404 => FailureKind::NotFound,
        _ => FailureKind::HttpStatus,
    };
    let transient = status == 429 || (500..600).contains(&status);
    let detail = body_excerpt(body);
    let message = if detail.is_empty() {
        format!("HTTP {status}")
    } else {
        format!("HTTP {status}: {detail}")
    };
    AttemptError {
        kind,
        status: Some(status),
        message,
        transient,
        retry_after: if status == 429 { retry_after } else { None },
        credential_withheld_from: None,
    }
}

/// The start of an error body, one line (its `reason` or `error` member when it has one).
fn body_excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let reason = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            // Pulsar answers `{"reason": …}`; Prometheus `{"status":"error","error": …}`.
            v.get("reason")
                .or_else(|| v.get("error"))
                .and_then(|r| r.as_str())
                .map(str::to_string)
        });
    let s = reason.unwrap_or_else(|| text.to_string());
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    one_line.chars().take(200).collect()
}

fn classify(e: ureq::Error) -> AttemptError {
    use ureq::Timeout;
    let (kind, transient) = match &e {
        ureq::Error::Timeout(Timeout::Connect | Timeout::Resolve) => (FailureKind::Connect, true),
        ureq::Error::Timeout(_) => (FailureKind::Timeout, false),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            (FailureKind::Timeout, false)
        }
        ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
            (FailureKind::Connect, true)
        }
        _ => (FailureKind::Protocol, false),
    };
    let message = match kind {
        FailureKind::Timeout => format!("timed out ({e})"),
        FailureKind::Connect => format!("cannot connect ({e})"),
        _ => e.to_string(),
    };
    AttemptError {
        kind,
        status: None,
        message,
        transient,
        retry_after: None,
        credential_withheld_from: None,
    }
}

/// A URL for messages: without query string (there is never a secret in ours, but keep lines short).
pub fn display_url(url: &str) -> String {
    url.split('?').next().unwrap_or(url).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_classified() {
        let e = status_error(503, br#"{"reason":"busy"}"#, None);
        assert!(e.transient);
        assert_eq!(e.message, "HTTP 503: busy");
        let e = status_error(429, b"", Some(Duration::from_secs(2)));
        assert!(e.transient && e.retry_after == Some(Duration::from_secs(2)));
        let e = status_error(401, b"", None);
        assert!(!e.transient && e.kind == FailureKind::Unauthorized);
    }
}
