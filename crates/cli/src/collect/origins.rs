//! Where `collect` may send a request and where the credential may go, by whole origin (scheme,
//! host and port, as the URL standard defines it), so that a redirect from `https://h:8443` to
//! `http://h:8443` is a different place, not the same host. Requests go to the admin URL and the
//! cluster's brokers; the credential goes to the admin URL's origin only, and to other origins only
//! when the operator names them (`--allow-credential-to`) or allows the brokers
//! (`--send-credential-to-brokers`).

use url::{Origin, Url};

/// An `http://` or `https://` URL with a host and without user information, or why not.
pub fn parse_http_url(text: &str) -> Result<Url, String> {
    let url = Url::parse(text).map_err(|e| format!("not a URL ({e})"))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err("expected http:// or https://".to_string());
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("expected a host".to_string());
    }
    if url.port() == Some(0) {
        return Err("port 0 is not a port to connect to".to_string());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "credentials in the URL are not accepted (they would show in process lists); use \
             --auth-header-file"
                .to_string(),
        );
    }
    Ok(url)
}

/// The origin of `scheme://authority` (a broker id `host:port`, or an operator's `HOST[:PORT]`);
/// `None` when that is not a plain authority.
pub fn origin_of_authority(scheme: &str, authority: &str) -> Option<Origin> {
    if authority.is_empty() || authority.contains(['/', '?', '#', '@', '\\']) {
        return None;
    }
    let url = Url::parse(&format!("{scheme}://{authority}/")).ok()?;
    url.host_str()
        .is_some_and(|h| !h.is_empty())
        .then(|| url.origin())
}

/// `scheme://host:port` for messages (the port always shown, so that 80 and 8080 are told apart).
pub fn show(origin: &Origin) -> String {
    match origin {
        Origin::Tuple(scheme, host, port) => format!("{scheme}://{host}:{port}"),
        Origin::Opaque(_) => "(opaque origin)".to_string(),
    }
}

/// Resolves a `Location` header against the URL that answered (RFC 3986: `../x`, `?q`, `//h/p`
/// and absolute forms).
pub fn resolve(current: &Url, location: &str) -> Result<Url, String> {
    current
        .join(location.trim())
        .map_err(|e| format!("unusable Location `{}` ({e})", location.trim()))
}

/// Why a redirect is not followed, or `None` when it may be.
pub fn refuse_redirect(from: &Url, to: &Url, places: &Places) -> Option<String> {
    if from.scheme() == "https" && to.scheme() != "https" {
        return Some(format!(
            "redirect from https to {} refused: the request and its credential would travel in \
             clear text",
            show(&to.origin())
        ));
    }
    if !places.may_visit(&to.origin()) {
        return Some(format!(
            "redirect to {} refused: not the admin URL's origin nor a broker of this cluster",
            show(&to.origin())
        ));
    }
    None
}

/// The origins requests may go to, and the subset that gets the credential.
#[derive(Clone, Debug)]
pub struct Places {
    visit: Vec<Origin>,
    credential: Vec<Origin>,
}

impl Places {
    /// The admin URL's origin: visited and given the credential.
    pub fn new(admin: Origin) -> Self {
        Self {
            visit: vec![admin.clone()],
            credential: vec![admin],
        }
    }

    /// Origins requests (and redirects) may go to, without the credential.
    pub fn allow_visit(&mut self, origins: impl IntoIterator<Item = Origin>) {
        for o in origins {
            if !self.visit.contains(&o) {
                self.visit.push(o);
            }
        }
    }

    /// Origins that get the credential (and may therefore be visited).
    pub fn allow_credential(&mut self, origins: impl IntoIterator<Item = Origin>) {
        for o in origins {
            self.allow_visit([o.clone()]);
            if !self.credential.contains(&o) {
                self.credential.push(o);
            }
        }
    }

    pub fn may_visit(&self, origin: &Origin) -> bool {
        self.visit.contains(origin)
    }

    pub fn gets_credential(&self, origin: &Origin) -> bool {
        self.credential.contains(origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn admin_urls_that_cannot_be_connected_to_are_refused() {
        assert_eq!(
            parse_http_url("http://[::1").unwrap_err(),
            "not a URL (invalid IPv6 address)"
        );
        assert_eq!(
            parse_http_url("http://h:99999").unwrap_err(),
            "not a URL (invalid port number)"
        );
        assert!(
            parse_http_url("http://h:0")
                .unwrap_err()
                .starts_with("port 0")
        );
        assert!(parse_http_url("file:///etc/passwd").is_err());
        assert!(
            parse_http_url("http://u:p@h:1/")
                .unwrap_err()
                .starts_with("credentials")
        );
        let ok = parse_http_url("HTTPS://Pulsar.Example:8443/prefix/").unwrap();
        assert_eq!(ok.as_str(), "https://pulsar.example:8443/prefix/");
    }

    #[test]
    fn redirects_resolve_as_rfc_3986_says() {
        // RFC 3986 §5.4.1: "../g" against http://a/b/c/d;p?q is http://a/b/g, "?y" keeps the path.
        let base = url("http://a/b/c/d;p?q");
        assert_eq!(resolve(&base, "../g").unwrap().as_str(), "http://a/b/g");
        assert_eq!(resolve(&base, "?y").unwrap().as_str(), "http://a/b/c/d;p?y");
        assert_eq!(resolve(&base, "g").unwrap().as_str(), "http://a/b/c/g");
        assert_eq!(resolve(&base, "//g").unwrap().as_str(), "http://g/");
        let admin = url("http://10.0.0.1:8080/admin/v2/namespaces/public/default/bundles");
        assert_eq!(
            resolve(&admin, "../functions/bundles").unwrap().as_str(),
            "http://10.0.0.1:8080/admin/v2/namespaces/public/functions/bundles"
        );
        assert_eq!(
            resolve(&admin, "?authoritative=true").unwrap().as_str(),
            "http://10.0.0.1:8080/admin/v2/namespaces/public/default/bundles?authoritative=true"
        );
    }

    #[test]
    fn origins_include_the_scheme_and_the_default_port() {
        let https = url("https://pulsar.example:443/admin").origin();
        assert_eq!(url("https://PULSAR.example/x").origin(), https);
        assert_ne!(url("http://pulsar.example:443/").origin(), https);
        assert_eq!(
            origin_of_authority("http", "10.0.0.2:8080"),
            Some(url("http://10.0.0.2:8080").origin())
        );
        assert_eq!(
            origin_of_authority("https", "[::1]:8443"),
            Some(url("https://[::1]:8443").origin())
        );
        assert_eq!(origin_of_authority("http", "h:80/x"), None);
        assert_eq!(origin_of_authority("http", "u@h:80"), None);
        assert_eq!(origin_of_authority("http", "h:99999"), None);
        assert_eq!(show(&https), "https://pulsar.example:443");
    }

    #[test]
    fn a_downgrade_is_never_followed_even_to_the_same_host_and_port() {
        let from = url("https://h:8443/admin/v2/clusters");
        let mut places = Places::new(from.origin());
        places.allow_visit([url("http://h:8443").origin()]);
        let why = refuse_redirect(&from, &url("http://h:8443/admin/v2/clusters"), &places);
        assert!(
            why.unwrap()
                .starts_with("redirect from https to http://h:8443 refused")
        );
        assert_eq!(
            refuse_redirect(&from, &url("https://h:8443/elsewhere"), &places),
            None
        );
        let other = refuse_redirect(&from, &url("https://evil:8443/"), &places).unwrap();
        assert!(other.contains("not the admin URL's origin"), "{other}");
    }

    #[test]
    fn the_credential_goes_only_where_allowed() {
        let admin = url("http://a:8080").origin();
        let broker = url("http://b:8080").origin();
        let mut places = Places::new(admin.clone());
        places.allow_visit([broker.clone()]);
        assert!(places.gets_credential(&admin));
        assert!(places.may_visit(&broker) && !places.gets_credential(&broker));
        places.allow_credential([broker.clone()]);
        assert!(places.gets_credential(&broker));
    }
}
