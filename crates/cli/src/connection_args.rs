//! The admin-connection options `lbplan collect` and `lbplan apply` share (`--admin-url`, the
//! credential files, where the credential may go, `--tls-trust-certs`) as one `#[command(flatten)]`
//! clap struct, and the one place an HTTP client is built from them, so both commands follow the
//! same credential rules (never on a command line, never in a file we write, only to the admin
//! URL's origin unless allowed; see `collect/origins.rs`).

use std::path::PathBuf;

use url::Url;

use crate::collect::auth::{self, Redactor, TOKEN_ENV};
use crate::collect::http::{Client, HttpOptions, load_trust_certs};
use crate::collect::limits::Limits;
use crate::collect::origins;
use crate::exit::CliError;
use url::Origin;

/// `--admin-url` checked and normalised: `(base without trailing slash, scheme, URL)`. A URL that
/// does not parse (`http://[::1`, port 99999) is a bad argument, not a failed collection.
pub(crate) fn admin_base(text: &str) -> Result<(String, String, Url), CliError> {
    // Never echo credentials a user put in the URL.
    let shown = match text.split_once("://") {
        Some((s, rest)) => match rest.split('/').next().unwrap_or("").rsplit_once('@') {
            Some((_, host)) => format!("{s}://***@{host}"),
            None => text.to_string(),
        },
        None => text.to_string(),
    };
    let bad = |why: &str| CliError::BadInput(format!("--admin-url `{shown}`: {why}"));
    let url = origins::parse_http_url(text).map_err(|e| bad(&e))?;
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("expected no query string or fragment"));
    }
    let base = url.as_str().trim_end_matches('/').to_string();
    Ok((base, url.scheme().to_string(), url))
}

/// A CA bundle is at most a few hundred KiB; 4 MiB leaves room and bounds `/dev/zero`.
const TRUST_CERTS_MAX_BYTES: u64 = 4 * 1024 * 1024;

#[derive(clap::Args, Clone, Debug)]
pub struct ConnectionArgs {
    /// The admin REST API, e.g. http://broker-0:8080 or https://pulsar.example.com:8443 (needed
    /// by every command that talks to the cluster; `collect --prometheus` talks to Prometheus).
    #[arg(long, value_name = "URL")]
    pub admin_url: Option<String>,
    /// File holding a token, sent as `Authorization: Bearer …` (else $PULSAR_AUTH_TOKEN).
    #[arg(long, value_name = "FILE", conflicts_with = "auth_header_file")]
    pub token_file: Option<PathBuf>,
    /// File holding one header line `Name: value` (a bare value is the Authorization value).
    #[arg(long, value_name = "FILE")]
    pub auth_header_file: Option<PathBuf>,
    /// Also send the credential to HOST[:PORT] (repeatable; the scheme is --admin-url's). By
    /// default only the admin URL's scheme, host and port get it.
    #[arg(long = "allow-credential-to", value_name = "HOST[:PORT]")]
    pub allow_credential_to: Vec<String>,
    /// Send the credential to every broker the admin server lists (their load reports need it
    /// when authentication is on, and Pulsar redirects some admin calls to the owning broker or
    /// the leader). Off by default: the broker list comes from the server.
    #[arg(long)]
    pub send_credential_to_brokers: bool,
    /// PEM file of certificates to trust for https (instead of the public web roots).
    #[arg(long, value_name = "FILE")]
    pub tls_trust_certs: Option<PathBuf>,
}

/// The admin endpoint, checked: its base URL, scheme, parsed URL and the extra credential origins.
pub struct Endpoint {
    pub base: String,
    pub scheme: String,
    pub url: Url,
    pub credential_to: Vec<Origin>,
}

/// A client ready to talk to the admin endpoint, the redactor for its credential, and where the
/// credential came from (for progress lines).
pub struct Connection {
    pub client: Client,
    pub redactor: Redactor,
    pub source: &'static str,
}

impl ConnectionArgs {
    /// Checks `--admin-url` and `--allow-credential-to` (no IO).
    pub fn endpoint(&self) -> Result<Endpoint, CliError> {
        let Some(admin_url) = &self.admin_url else {
            return Err(CliError::BadInput(
                "--admin-url URL is needed (the cluster's admin REST API)".into(),
            ));
        };
        let (base, scheme, url) = admin_base(admin_url)?;
        let mut credential_to = Vec::new();
        for host in &self.allow_credential_to {
            credential_to.push(origins::origin_of_authority(&scheme, host).ok_or_else(|| {
                CliError::BadInput(format!(
                    "--allow-credential-to `{host}`: expected HOST or HOST:PORT (the scheme is \
                     that of --admin-url)"
                ))
            })?);
        }
        Ok(Endpoint {
            base,
            scheme,
            url,
            credential_to,
        })
    }

    /// Reads the credential (file or $PULSAR_AUTH_TOKEN) and the trusted certificates and builds
    /// the client for `endpoint`.
    pub fn connect(&self, endpoint: &Endpoint, http: HttpOptions) -> Result<Connection, CliError> {
        let (credential, source) = auth::load(
            self.token_file.as_deref(),
            self.auth_header_file.as_deref(),
            std::env::var(TOKEN_ENV).ok(),
        )
        .map_err(CliError::BadInput)?;
        let trust = match &self.tls_trust_certs {
            Some(p) => {
                let pem =
                    auth::read_bounded(p, TRUST_CERTS_MAX_BYTES).map_err(CliError::BadInput)?;
                Some(
                    load_trust_certs(&pem)
                        .map_err(|e| CliError::BadInput(format!("{}: {e}", p.display())))?,
                )
            }
            None => None,
        };
        let redactor = credential
            .as_ref()
            .map(auth::Credential::redactor)
            .unwrap_or_default();
        let client = Client::new(http, credential, trust, &endpoint.url, Limits::DEFAULT);
        client.allow_credential(endpoint.credential_to.clone());
        Ok(Connection {
            client,
            redactor,
            source: source.label(),
        })
    }
}
