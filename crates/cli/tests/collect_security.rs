//! `lbplan collect` against hostile or odd admin servers, served from this process on 127.0.0.1:
//! an https server that redirects to plain http on its own host and port (the credential must not
//! follow), relative redirects (`?query`, `../`), answers too large to keep (cut and reported,
//! with the child's memory capped to prove it), and a server that hands the token back as tenant,
//! namespace, failure-domain and broker names (refused, never a path, never resolved), plus which
//! brokers get the credential.

#[path = "support/http_head.rs"]
mod http_head;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/collect");
/// No server thread or child process outlives this.
const DEADLINE: Duration = Duration::from_secs(90);

fn fixture(name: &str) -> String {
    let p = Path::new(FIXTURES).join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[derive(Clone, Debug)]
struct Seen {
    path: String,
    authorization: Option<String>,
    tls: bool,
}

enum Reply {
    Json(u16, String),
    Empty(u16),
    Redirect(String),
    /// `["","",…]` with `n` elements, streamed with its exact `Content-Length`.
    EmptyStrings(u64),
    /// Announces a body of `n` bytes of a JSON string and streams it.
    Announced(u64),
}

type Router = dyn Fn(&str, Option<&str>) -> Reply + Send + Sync;

struct Server {
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl Server {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Serves `router` on a new 127.0.0.1 port. With `tls`, a connection whose first byte is a TLS
/// handshake is served over TLS and any other as plain HTTP on the same port (what a redirect from
/// `https://h:p` to `http://h:p` reaches).
fn serve(router: Arc<Router>, tls: Option<Arc<rustls::ServerConfig>>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let (seen2, stop2) = (seen.clone(), stop.clone());
    thread::spawn(move || {
        let started = Instant::now();
        while !stop2.load(Ordering::Relaxed) && started.elapsed() < DEADLINE {
            match listener.accept() {
                Ok((stream, _)) => {
                    let (router, seen, tls) = (router.clone(), seen2.clone(), tls.clone());
                    thread::spawn(move || connection(stream, &*router, &seen, tls));
                }
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    Server { seen, stop, port }
}

fn connection(
    stream: TcpStream,
    router: &Router,
    seen: &Mutex<Vec<Seen>>,
    tls: Option<Arc<rustls::ServerConfig>>,
) {
    stream.set_nonblocking(false).ok();
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
    let mut first = [0u8; 1];
    let is_tls = tls.is_some() && matches!(stream.peek(&mut first), Ok(1) if first[0] == 0x16);
    match tls {
        Some(config) if is_tls => {
            let conn = rustls::ServerConnection::new(config).unwrap();
            let mut s = rustls::StreamOwned::new(conn, stream);
            exchange(&mut s, router, seen, true);
            s.conn.send_close_notify();
            s.flush().ok();
        }
        _ => {
            let mut s = stream;
            exchange(&mut s, router, seen, false);
        }
    }
}

fn exchange<S: Read + Write>(s: &mut S, router: &Router, seen: &Mutex<Vec<Seen>>, tls: bool) {
    let Some((path, authorization)) = http_head::read_request_head(s) else {
        return;
    };
    seen.lock().unwrap().push(Seen {
        path: path.clone(),
        authorization: authorization.clone(),
        tls,
    });
    let head = |status: u16, extra: &str, len: u64| {
        format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}Content-Length: {len}\r\nConnection: close\r\n\r\n"
        )
    };
    match router(&path, authorization.as_deref()) {
        Reply::Json(status, body) => {
            let h = head(status, "", body.len() as u64);
            s.write_all(format!("{h}{body}").as_bytes()).ok();
        }
        Reply::Empty(status) => {
            s.write_all(head(status, "", 0).as_bytes()).ok();
        }
        Reply::Redirect(location) => {
            let h = head(307, &format!("Location: {location}\r\n"), 0);
            s.write_all(h.as_bytes()).ok();
        }
        Reply::EmptyStrings(n) => {
            // `[` + `"",` × (n-1) + `""]`: 3n + 1 bytes, made as it is sent.
            if s.write_all(head(200, "", 3 * n + 1).as_bytes()).is_err() {
                return;
            }
            let piece = "\"\",".repeat(20_000);
            let per_piece = 20_000u64;
            let mut left = n - 1;
            if s.write_all(b"[").is_err() {
                return;
            }
            while left > 0 {
                let k = left.min(per_piece);
                let bytes = piece.as_bytes().get(..(3 * k) as usize).unwrap();
                if s.write_all(bytes).is_err() {
                    return; // the client hung up
                }
                left -= k;
            }
            s.write_all(b"\"\"]").ok();
        }
        Reply::Announced(n) => {
            if s.write_all(head(200, "", n).as_bytes()).is_err() {
                return;
            }
            let piece = vec![b'a'; 64 * 1024];
            let mut left = n.saturating_sub(2);
            s.write_all(b"\"").ok();
            while left > 0 {
                let k = left.min(piece.len() as u64);
                if s.write_all(&piece[..k as usize]).is_err() {
                    return;
                }
                left -= k;
            }
            s.write_all(b"\"").ok();
        }
    }
    s.flush().ok();
}

/// A CA made for this test, and a server certificate for 127.0.0.1 signed by it.
fn tls_config(work: &Path) -> (Arc<rustls::ServerConfig>, PathBuf) {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "lbplan collect test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let mut leaf = CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
    leaf.distinguished_name
        .push(DnType::CommonName, "127.0.0.1");
    leaf.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let leaf_cert = leaf.signed_by(&leaf_key, &ca_cert, &ca_key).unwrap();
    let ca_file = work.join("ca.pem");
    std::fs::write(&ca_file, ca_cert.pem()).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![leaf_cert.der().clone()], key)
    .unwrap();
    (Arc::new(config), ca_file)
}

fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let d = std::env::temp_dir().join(format!(
        "lbplan-collect-sec-{tag}-{}-{nanos}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn unique_token() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "eyJhbGciOiJIUzI1NiJ9.TOKEN-MARKER-{}-{nanos}.c2lnbmF0dXJl",
        std::process::id()
    )
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the built binary (through `sh -c 'ulimit -v KB; exec …'` when `memory_kb` is given) with a
/// deadline; stdout and stderr go to files.
fn run_lbplan(args: &[&str], memory_kb: Option<u64>, work: &Path) -> Ran {
    let out_p = work.join("stdout.txt");
    let err_p = work.join("stderr.txt");
    let bin = env!("CARGO_BIN_EXE_lbplan");
    let mut cmd = match memory_kb {
        Some(kb) => {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg(format!("ulimit -v {kb} && exec \"$0\" \"$@\""))
                .arg(bin);
            c
        }
        None => Command::new(bin),
    };
    cmd.args(args)
        .env_remove("PULSAR_AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_p).unwrap())
        .stderr(std::fs::File::create(&err_p).unwrap());
    let mut child = cmd.spawn().unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            child.wait().ok();
            panic!("lbplan collect did not finish within 60 s");
        }
        thread::sleep(Duration::from_millis(20));
    };
    Ran {
        code: status.code(),
        stdout: std::fs::read_to_string(&out_p).unwrap(),
        stderr: std::fs::read_to_string(&err_p).unwrap(),
    }
}

fn report_of_dir(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("collect-report.json")).unwrap()).unwrap()
}

fn missing_with<'a>(report: &'a serde_json::Value, reason: &str) -> Vec<&'a serde_json::Value> {
    report["missing"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["reason"] == reason)
        .collect()
}

fn common_args<'a>(admin: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "collect",
        "--admin-url",
        admin,
        "-o",
        out,
        "--timeout",
        "5",
        "--attempts",
        "1",
    ]
}

#[test]
fn an_https_redirect_to_plain_http_on_the_same_host_and_port_gets_no_credential() {
    let work = temp_dir("tls");
    let (config, ca_file) = tls_config(&work);
    let port = Arc::new(AtomicUsize::new(0));
    let port2 = port.clone();
    let router = move |path: &str, _: Option<&str>| -> Reply {
        if path == "/admin/v2/clusters" {
            return Reply::Json(200, r#"["standalone"]"#.to_string());
        }
        // Everything else is sent to plain http on this very host and port.
        let p = port2.load(Ordering::SeqCst);
        Reply::Redirect(format!("http://127.0.0.1:{p}{path}"))
    };
    let server = serve(Arc::new(router), Some(config));
    port.store(usize::from(server.port), Ordering::SeqCst);
    let token = unique_token();
    let token_file = work.join("token");
    std::fs::write(&token_file, &token).unwrap();
    let admin = format!("https://127.0.0.1:{}", server.port);
    let out = work.join("out");
    let mut args = common_args(&admin, out.to_str().unwrap());
    args.extend([
        "--token-file",
        token_file.to_str().unwrap(),
        "--tls-trust-certs",
        ca_file.to_str().unwrap(),
    ]);
    let ran = run_lbplan(&args, None, &work);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);

    let seen = server.seen();
    let plain: Vec<&Seen> = seen.iter().filter(|s| !s.tls).collect();
    assert!(plain.is_empty(), "plain http requests: {plain:?}");
    let bearer = format!("Bearer {token}");
    assert!(
        seen.iter()
            .all(|s| s.authorization.as_deref() == Some(bearer.as_str()))
    );
    let report = report_of_dir(&out);
    assert_eq!(report["clusters"], serde_json::json!(["standalone"]));
    let refused = missing_with(&report, "redirect_refused");
    assert!(!refused.is_empty(), "{report:#}");
    let expected = format!(
        "HTTP 307 redirect from https to http://127.0.0.1:{} refused",
        server.port
    );
    for m in refused {
        let msg = m["message"].as_str().unwrap();
        assert!(msg.starts_with(&expected), "{msg}");
    }
    std::fs::remove_dir_all(&work).ok();
}

#[test]
fn relative_redirects_with_a_query_or_dot_dot_are_resolved_as_rfc_3986_says() {
    let work = temp_dir("rel");
    let router = |path: &str, _: Option<&str>| -> Reply {
        match path {
            "/admin/v2/clusters" => Reply::Redirect("?moved=1".to_string()),
            "/admin/v2/clusters?moved=1" => Reply::Json(200, r#"["standalone"]"#.to_string()),
            "/admin/v2/brokers/leaderBroker" => {
                Reply::Redirect("../brokers/leaderBroker?moved=1".to_string())
            }
            "/admin/v2/brokers/leaderBroker?moved=1" => Reply::Json(
                200,
                r#"{"serviceUrl":"http://10.0.0.1:8080","brokerId":"10.0.0.1:8080"}"#.to_string(),
            ),
            _ => Reply::Json(404, r#"{"reason":"Not found"}"#.to_string()),
        }
    };
    let server = serve(Arc::new(router), None);
    let admin = format!("http://127.0.0.1:{}", server.port);
    let out = work.join("out");
    let ran = run_lbplan(&common_args(&admin, out.to_str().unwrap()), None, &work);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let report = report_of_dir(&out);
    assert_eq!(report["clusters"], serde_json::json!(["standalone"]));
    assert_eq!(report["leader"], "10.0.0.1:8080");
    let paths: Vec<String> = server.seen().into_iter().map(|s| s.path).collect();
    assert!(paths.contains(&"/admin/v2/clusters?moved=1".to_string()));
    assert!(paths.contains(&"/admin/v2/brokers/leaderBroker?moved=1".to_string()));
    std::fs::remove_dir_all(&work).ok();
}

#[test]
fn answers_past_the_limits_are_cut_and_reported_in_bounded_memory() {
    let work = temp_dir("huge");
    let router = |path: &str, _: Option<&str>| -> Reply {
        match path.strip_prefix("/admin/v2").unwrap_or("") {
            "/clusters" => Reply::Json(200, r#"["standalone"]"#.to_string()),
            "/brokers/configuration/runtime" => {
                Reply::Json(200, r#"{"clusterName":"standalone"}"#.to_string())
            }
            // 200 MB, under the 256 MiB byte limit, but 66 million elements (gigabytes parsed).
            "/tenants" => Reply::EmptyStrings(66_666_667),
            // Over the byte limit by its Content-Length.
            "/brokers/standalone" => Reply::Announced(300_000_000),
            _ => Reply::Json(404, r#"{"reason":"Not found"}"#.to_string()),
        }
    };
    let server = serve(Arc::new(router), None);
    let admin = format!("http://127.0.0.1:{}", server.port);
    let out = work.join("out");
    // 1 GiB of address space: the tenants answer alone would need several once parsed.
    let ran = run_lbplan(
        &common_args(&admin, out.to_str().unwrap()),
        Some(1024 * 1024),
        &work,
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let report = report_of_dir(&out);
    let cut = missing_with(&report, "too_large");
    let whats: Vec<&str> = cut.iter().map(|m| m["what"].as_str().unwrap()).collect();
    assert_eq!(whats, ["tenants", "brokers"], "{report:#}");
    let tenants = cut[0]["message"].as_str().unwrap();
    assert!(
        tenants.starts_with("cut after ")
            && tenants.ends_with(
                "bytes: an answer may have at most 2000000 JSON elements (array elements and \
                 object members)"
            ),
        "{tenants}"
    );
    assert_eq!(
        cut[1]["message"],
        "not read: announced 300000000 bytes and an answer may have at most 268435456 bytes"
    );
    for what in ["tenants", "brokers/standalone"] {
        let line = format!("warning: collect: GET {admin}/admin/v2/{what}: answer cut (");
        assert!(
            ran.stderr.lines().any(|l| l.starts_with(&line)),
            "no `{line}` in\n{}",
            ran.stderr
        );
    }
    std::fs::remove_dir_all(&work).ok();
}

struct Hostile {
    admin: Server,
    broker_b: Server,
    a: String,
    b: String,
}

/// An admin server that hands the token back as a tenant, a namespace, a failure domain and a
/// broker, and a second broker (another port) whose load report needs the credential.
fn hostile_cluster(token: &str) -> Hostile {
    let b_router = |path: &str, auth: Option<&str>| -> Reply {
        match (path, auth) {
            ("/admin/v2/broker-stats/load-report", Some(_)) => {
                Reply::Json(200, fixture("load-report.json"))
            }
            _ => Reply::Json(401, fixture("error-401.json")),
        }
    };
    let broker_b = serve(Arc::new(b_router), None);
    let b = format!("127.0.0.1:{}", broker_b.port);
    let a_cell: Arc<Mutex<String>> = Arc::default();
    let (t, a2, b2) = (token.to_string(), a_cell.clone(), b.clone());
    let router = move |path: &str, _: Option<&str>| -> Reply {
        let a = a2.lock().unwrap().clone();
        let ok = |s: String| Reply::Json(200, s);
        let p = path.strip_prefix("/admin/v2").unwrap_or("");
        match p {
            "/clusters" => ok(r#"["standalone"]"#.to_string()),
            "/brokers/leaderBroker" => {
                ok(format!(r#"{{"serviceUrl":"http://{a}","brokerId":"{a}"}}"#))
            }
            "/brokers/configuration/runtime" => ok(fixture("runtime-configuration.json")),
            "/brokers/configuration/values" => ok("{}".to_string()),
            "/tenants" => ok(format!(r#"["public","{t}"]"#)),
            "/namespaces/public" => ok(format!(r#"["public/default","public/{t}"]"#)),
            "/brokers/standalone" => ok(format!(r#"["{a}","{b2}","{t}:8080"]"#)),
            "/clusters/standalone/failureDomains" => ok(format!(
                r#"{{"{t}":{{"brokers":["{a}"]}},"d1":{{"brokers":["{b2}"]}}}}"#
            )),
            "/clusters/standalone/namespaceIsolationPolicies" => ok("{}".to_string()),
            "/broker-stats/load-report" => ok(fixture("load-report.json")),
            _ if p.ends_with("/bundles") => ok(fixture("bundles-public-default.json")),
            _ if p.ends_with("/antiAffinity") => Reply::Empty(204),
            _ if p.contains("/topics?") => ok("[]".to_string()),
            _ if p.starts_with("/namespaces/") => ok(fixture("policies-public-default.json")),
            _ => Reply::Json(404, r#"{"reason":"Not found"}"#.to_string()),
        }
    };
    let admin = serve(Arc::new(router), None);
    let a = format!("127.0.0.1:{}", admin.port);
    *a_cell.lock().unwrap() = a.clone();
    Hostile {
        admin,
        broker_b,
        a,
        b,
    }
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn names_holding_the_token_are_refused_and_other_brokers_get_no_credential() {
    let token = unique_token();
    let marker = token.split('.').nth(1).unwrap().to_string();
    let cluster = hostile_cluster(&token);
    let work = temp_dir("names");
    let token_file = work.join("token");
    std::fs::write(&token_file, &token).unwrap();
    let admin = format!("http://{}", cluster.a);
    let out = work.join("snap.zip");
    let mut args = common_args(&admin, out.to_str().unwrap());
    args.extend([
        "--token-file",
        token_file.to_str().unwrap(),
        "--format",
        "zip",
    ]);
    let ran = run_lbplan(&args, None, &work);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);

    // No entry name, entry, or output line holds the token.
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&out).unwrap()).unwrap();
    let mut entries = BTreeMap::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let mut data = Vec::new();
        f.read_to_end(&mut data).unwrap();
        entries.insert(f.name().to_string(), data);
    }
    assert!(entries.contains_key("admin/policies/public/default"));
    for (name, data) in &entries {
        assert!(!name.contains(&marker), "entry name {name}");
        assert!(!contains(data, &marker), "{name} holds the token");
    }
    assert!(!ran.stdout.contains(&marker) && !ran.stderr.contains(&marker));

    // Each refusal is a warning naming the endpoint, and a report item.
    for (endpoint, kind) in [
        ("tenants", "tenant"),
        ("namespaces/public", "namespace"),
        ("brokers/standalone", "broker"),
        ("clusters/standalone/failureDomains", "failure domain"),
    ] {
        let line = format!(
            "warning: collect: GET {admin}/admin/v2/{endpoint}: {kind} name `<redacted>` refused: \
             it contains the credential"
        );
        assert!(
            ran.stderr.lines().any(|l| l == line),
            "no `{line}` in\n{}",
            ran.stderr
        );
    }
    let report: serde_json::Value =
        serde_json::from_slice(&entries["collect-report.json"]).unwrap();
    let refused: Vec<&str> = missing_with(&report, "credential_in_name")
        .iter()
        .map(|m| m["what"].as_str().unwrap())
        .collect();
    assert_eq!(
        refused,
        ["namespaces", "load_report", "failure_domains", "policies"],
        "{report:#}"
    );
    assert_eq!(report["namespaces"], serde_json::json!(["public/default"]));
    let mut brokers = vec![cluster.a.clone(), cluster.b.clone()];
    brokers.sort();
    assert_eq!(report["brokers"], serde_json::json!(brokers));
    // The token's "host" was never asked for (nor resolved): no request line names it.
    assert!(
        !ran.stderr.contains("GET http://<redacted>"),
        "{}",
        ran.stderr
    );
    let admin_seen = cluster.admin.seen();
    assert!(admin_seen.iter().all(|s| !s.path.contains(&marker)));

    // Broker B is not the admin URL's origin: asked without the credential, and the report says how
    // to allow it.
    let seen_b = cluster.broker_b.seen();
    assert_eq!(seen_b.len(), 1);
    assert_eq!(seen_b[0].authorization, None);
    let gap = report["missing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["what"] == "load_report" && m["subject"] == cluster.b.as_str())
        .unwrap();
    assert_eq!(gap["reason"], "unauthorized");
    assert_eq!(
        gap["how_to_fill"],
        format!(
            "the credential was not sent to http://{} (only the admin URL's origin gets it): pass \
             --send-credential-to-brokers, or --allow-credential-to HOST:PORT for this one",
            cluster.b
        )
    );
    std::fs::remove_dir_all(&work).ok();
}

#[test]
fn the_operator_can_send_the_credential_to_brokers() {
    let token = unique_token();
    let marker = token.split('.').nth(1).unwrap().to_string();
    let cluster = hostile_cluster(&token);
    let work = temp_dir("allow");
    let token_file = work.join("token");
    std::fs::write(&token_file, &token).unwrap();
    let admin = format!("http://{}", cluster.a);
    let bearer = format!("Bearer {token}");
    for (i, flag) in [
        vec!["--send-credential-to-brokers"],
        vec!["--allow-credential-to", cluster.b.as_str()],
    ]
    .into_iter()
    .enumerate()
    {
        let out = work.join(format!("out{i}"));
        let mut args = common_args(&admin, out.to_str().unwrap());
        args.extend(["--token-file", token_file.to_str().unwrap(), "--quiet"]);
        args.extend(flag.iter().copied());
        let ran = run_lbplan(&args, None, &work);
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        // --quiet silences progress, not the warnings about names that hold the credential.
        let warning = format!(
            "warning: collect: GET {admin}/admin/v2/tenants: tenant name `<redacted>` refused: it \
             contains the credential"
        );
        assert!(ran.stderr.lines().any(|l| l == warning), "{}", ran.stderr);
        assert!(
            ran.stderr
                .lines()
                .all(|l| l.starts_with("warning: collect: ")),
            "{}",
            ran.stderr
        );
        let seen_b = cluster.broker_b.seen();
        assert_eq!(seen_b.len(), i + 1);
        assert_eq!(
            seen_b[i].authorization.as_deref(),
            Some(bearer.as_str()),
            "{flag:?}"
        );
        let report = report_of_dir(&out);
        assert!(
            report["missing"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["subject"] != cluster.b.as_str()),
            "{report:#}"
        );
        // Output paths never hold the token, whichever flag.
        let mut stack = vec![out.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                assert!(!p.to_string_lossy().contains(&marker), "{}", p.display());
                if p.is_dir() {
                    stack.push(p);
                }
            }
        }
    }
    std::fs::remove_dir_all(&work).ok();
}
