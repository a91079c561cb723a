//! End-to-end tests of `lbplan collect` against a fake Pulsar admin API served from this process
//! (127.0.0.1 only): output layout, the missing-data report (401, 404 broker, down broker, slow
//! endpoint, malformed body, retried 503), that the credential reaches the server and never the
//! output, and that the report parses into import warnings.

#[path = "support/fake_admin.rs"]
mod fake_admin;
#[path = "support/http_head.rs"]
mod http_head;

use fake_admin::{Answer, Server, serve};

use std::collections::BTreeMap;
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use lbplan_core::import::collect_report;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/collect");

fn fixture(name: &str) -> String {
    let p = Path::new(FIXTURES).join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

struct Cluster {
    admin: Server,
    broker_b: Server,
    ids: [String; 3],
}

fn start_cluster() -> Cluster {
    start_cluster_with(false)
}

/// The fake cluster; with `bad_first_report` its first load report names a bundle of the
/// namespace `acme/..`, which the importer refuses (a round whose answers do not import).
fn start_cluster_with(bad_first_report: bool) -> Cluster {
    let la = TcpListener::bind("127.0.0.1:0").unwrap();
    let lb = TcpListener::bind("127.0.0.1:0").unwrap();
    // Broker C: a port that was bound and released, so connections are refused.
    let pc = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let ids = [
        format!("127.0.0.1:{}", la.local_addr().unwrap().port()),
        format!("127.0.0.1:{}", lb.local_addr().unwrap().port()),
        format!("127.0.0.1:{pc}"),
    ];
    let sub = {
        let ids = ids.clone();
        move |s: String| {
            s.replace("{{BROKER_A}}", &ids[0])
                .replace("{{BROKER_B}}", &ids[1])
                .replace("{{BROKER_C}}", &ids[2])
        }
    };
    let admin_router = move |path: &str, hit: usize| -> Answer {
        let ok = |name: &str| Answer::Json(200, sub(fixture(name)));
        let p = path.strip_prefix("/admin/v2").unwrap_or("");
        match p {
            "/clusters" => ok("clusters.json"),
            "/brokers/standalone" => ok("brokers.json"),
            "/brokers/leaderBroker" => ok("leader.json"),
            "/broker-stats/load-report" if bad_first_report && hit == 1 => Answer::Json(
                200,
                sub(fixture("load-report.json")).replace("pulsar/pulsar/", "acme/../"),
            ),
            "/broker-stats/load-report" => ok("load-report.json"),
            "/brokers/configuration/runtime" => ok("runtime-configuration.json"),
            "/brokers/configuration/values" => ok("dynamic-configuration.json"),
            "/tenants" if hit == 1 => Answer::Json(503, fixture("error-503.json")),
            "/tenants" => ok("tenants.json"),
            "/namespaces/public" => ok("namespaces-public.json"),
            "/namespaces/pulsar" => ok("namespaces-pulsar.json"),
            "/clusters/standalone/failureDomains" => ok("failure-domains.json"),
            "/clusters/standalone/namespaceIsolationPolicies" => ok("isolation-policies.json"),
            "/namespaces/public/default/bundles" => ok("bundles-public-default.json"),
            "/namespaces/public/functions/bundles" => ok("bundles-public-functions.json"),
            "/namespaces/pulsar/system/bundles" => Answer::Json(401, fixture("error-401.json")),
            "/namespaces/public/default" => ok("policies-public-default.json"),
            "/namespaces/public/functions" => ok("policies-public-functions-truncated.json"),
            "/namespaces/pulsar/system" => ok("policies-pulsar-system.json"),
            "/namespaces/public/default/antiAffinity" => Answer::Text(200, "orders-group".into()),
            "/namespaces/public/functions/antiAffinity"
            | "/namespaces/pulsar/system/antiAffinity" => Answer::Empty(204),
            "/namespaces/public/default/topics?mode=ALL&includeSystemTopic=true" => {
                ok("topics-public-default.json")
            }
            "/namespaces/public/functions/topics?mode=ALL&includeSystemTopic=true" => {
                ok("topics-public-functions.json")
            }
            "/namespaces/pulsar/system/topics?mode=ALL&includeSystemTopic=true" => {
                Answer::Slow("[]".into())
            }
            _ => Answer::Json(404, "{\"reason\":\"Not found\"}".into()),
        }
    };
    let b_router = |_: &str, _: usize| Answer::Json(404, fixture("error-404.json"));
    Cluster {
        admin: serve(la, Arc::new(admin_router)),
        broker_b: serve(lb, Arc::new(b_router)),
        ids,
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let d = std::env::temp_dir().join(format!(
        "lbplan-collect-{tag}-{}-{nanos}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the built binary with a deadline; stdout and stderr go to files.
fn run_lbplan(args: &[&str], env_token: Option<&str>, work: &Path) -> Ran {
    let out_p = work.join("stdout.txt");
    let err_p = work.join("stderr.txt");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lbplan"));
    cmd.args(args)
        .env_remove("PULSAR_AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_p).unwrap())
        .stderr(std::fs::File::create(&err_p).unwrap());
    if let Some(t) = env_token {
        cmd.env("PULSAR_AUTH_TOKEN", t);
    }
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

fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, root, out);
        } else {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.insert(rel, std::fs::read(&p).unwrap());
        }
    }
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
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

fn missing_of<'a>(
    report: &'a serde_json::Value,
    what: &str,
    subject: &str,
) -> &'a serde_json::Value {
    report["missing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["what"] == what && m["subject"] == subject)
        .unwrap_or_else(|| panic!("no missing item {what} {subject} in {report:#}"))
}

#[test]
fn collects_a_directory_with_gaps_reported_and_no_token_leaks() {
    let cluster = start_cluster();
    let [a, b, c] = cluster.ids.clone();
    let work = temp_dir("dir");
    let token = unique_token();
    let token_file = work.join("token");
    std::fs::write(&token_file, format!("{token}\n")).unwrap();
    let out = work.join("out");
    let admin = format!("http://{a}");
    let ran = run_lbplan(
        &[
            "collect",
            "--admin-url",
            &admin,
            "--token-file",
            token_file.to_str().unwrap(),
            // Broker B is another origin: it gets the credential only when allowed.
            "--send-credential-to-brokers",
            "-o",
            out.to_str().unwrap(),
            "--timeout",
            "1",
            "--attempts",
            "3",
            "--backoff-ms",
            "20",
        ],
        None,
        &work,
    );
    assert_eq!(ran.code, Some(0), "stderr:\n{}", ran.stderr);

    let mut files = BTreeMap::new();
    walk(&out, &out, &mut files);
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    let expected = vec![
        "admin/clusters/standalone/failureDomain/domain-a".to_string(),
        "admin/clusters/standalone/failureDomain/domain-b".to_string(),
        "admin/clusters/standalone/namespaceIsolationPolicies".to_string(),
        "admin/local-policies/public/default".to_string(),
        "admin/local-policies/public/functions".to_string(),
        "admin/policies/public/default".to_string(),
        "admin/policies/pulsar/system".to_string(),
        "broker.conf".to_string(),
        "collect-report.json".to_string(),
        format!("loadbalance/brokers/{a}"),
        "loadbalance/leader".to_string(),
        "topics/public/default.json".to_string(),
        "topics/public/functions.json".to_string(),
    ];
    assert_eq!(
        names,
        expected.iter().map(String::as_str).collect::<Vec<_>>()
    );

    // Answers are kept byte for byte.
    assert_eq!(
        files[&format!("loadbalance/brokers/{a}")],
        fixture("load-report.json").into_bytes()
    );
    assert_eq!(
        files["admin/policies/public/default"],
        fixture("policies-public-default.json").into_bytes()
    );
    assert_eq!(
        files["topics/public/default.json"],
        fixture("topics-public-default.json").into_bytes()
    );
    let leader: serde_json::Value = serde_json::from_slice(&files["loadbalance/leader"]).unwrap();
    assert_eq!(leader["brokerId"], a.as_str());
    // Local policies rebuilt from `bundles` and `antiAffinity`.
    let local: serde_json::Value =
        serde_json::from_slice(&files["admin/local-policies/public/default"]).unwrap();
    assert_eq!(local["namespaceAntiAffinityGroup"], "orders-group");
    assert_eq!(local["bundles"]["numBundles"], 4);
    assert_eq!(local["bundles"]["boundaries"][1], "0x40000000");
    // pulsar/system: bundles were a 401 and there is no anti-affinity group: no local policies.
    let functions: serde_json::Value =
        serde_json::from_slice(&files["admin/local-policies/public/functions"]).unwrap();
    let one_bundle =
        serde_json::json!({"boundaries": ["0x00000000", "0xffffffff"], "numBundles": 1});
    assert_eq!(functions, serde_json::json!({ "bundles": one_bundle }));
    let domain_b: serde_json::Value =
        serde_json::from_slice(&files["admin/clusters/standalone/failureDomain/domain-b"]).unwrap();
    assert_eq!(domain_b, serde_json::json!({"brokers": [b, c]}));

    // broker.conf: load-balancing keys with the dynamic override, no secrets.
    let conf = String::from_utf8(files["broker.conf"].clone()).unwrap();
    for line in [
        "clusterName=standalone",
        "loadBalancerLoadSheddingStrategy=org.apache.pulsar.broker.loadbalance.impl.UniformLoadShedder",
        "loadBalancerSheddingExcludedNamespaces=public/functions",
        "loadBalancerBrokerOverloadedThresholdPercentage=85",
        "loadBalancerOverrideBrokerNicSpeedGbps=",
    ] {
        assert!(
            conf.lines().any(|l| l == line),
            "broker.conf lacks `{line}`:\n{conf}"
        );
    }
    assert!(!conf.contains("brokerClientAuthentication") && !conf.contains("webServicePort"));

    // The report.
    let report: serde_json::Value = serde_json::from_slice(&files["collect-report.json"]).unwrap();
    assert_eq!(report["kind"], "lbplan-collect-report");
    assert_eq!(report["format_version"], 1);
    assert_eq!(report["cluster"], "standalone");
    assert_eq!(report["load_manager"], "modular");
    let mut brokers = vec![a.clone(), b.clone(), c.clone()];
    brokers.sort();
    assert_eq!(report["brokers"], serde_json::json!(brokers));
    assert_eq!(report["credential"], "token file");
    assert_eq!(
        report["namespaces"],
        serde_json::json!(["public/default", "public/functions", "pulsar/system"])
    );
    let m = missing_of(&report, "load_report", &b);
    assert_eq!(
        (m["reason"].as_str(), m["http_status"].as_u64()),
        (Some("not_found"), Some(404))
    );
    assert!(
        m["message"]
            .as_str()
            .unwrap()
            .contains("Broker-stats not found")
    );
    assert!(
        m["how_to_fill"]
            .as_str()
            .unwrap()
            .contains("broker-stats load-report")
    );
    let m = missing_of(&report, "load_report", &c);
    assert_eq!(
        (m["reason"].as_str(), m["attempts"].as_u64()),
        (Some("connect"), Some(3))
    );
    let m = missing_of(&report, "bundles", "pulsar/system");
    assert_eq!(
        (m["reason"].as_str(), m["http_status"].as_u64()),
        (Some("unauthorized"), Some(401))
    );
    let m = missing_of(&report, "policies", "public/functions");
    assert_eq!(m["reason"], "malformed");
    let m = missing_of(&report, "topics", "pulsar/system");
    assert_eq!(
        (m["reason"].as_str(), m["attempts"].as_u64()),
        (Some("timeout"), Some(1))
    );
    let msg = m["message"].as_str().unwrap();
    assert!(
        msg.starts_with("no complete answer within 1000 ms"),
        "{msg}"
    );
    let not_exposed: Vec<&str> = report["missing"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["reason"] == "not_exposed_by_rest_api")
        .map(|m| m["what"].as_str().unwrap())
        .collect();
    assert_eq!(not_exposed, vec!["bundle_data", "broker_time_average"]);
    assert_eq!(report["missing"].as_array().unwrap().len(), 7, "{report:#}");
    let tenants = report["fetched"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["what"] == "tenants")
        .unwrap();
    assert_eq!(tenants["attempts"], 2, "the 503 was retried");

    // The report parses into one import warning per missing item.
    let parsed = collect_report::parse("collect-report.json", &report.to_string()).unwrap();
    assert_eq!(parsed.cluster.as_deref(), Some("standalone"));
    assert_eq!(parsed.warnings.len(), 7);
    let w = parsed
        .warnings
        .iter()
        .find(|w| w.subject.as_deref() == Some(b.as_str()))
        .unwrap();
    assert!(w.message.starts_with(&format!(
        "collect could not get load report of `{b}` (not found: HTTP 404"
    )));

    // `lbplan import` of the directory: the report's gaps are import warnings, and the rest imports.
    let snap = work.join("snapshot.json");
    let imported = run_lbplan(
        &[
            "import",
            out.to_str().unwrap(),
            "-o",
            snap.to_str().unwrap(),
        ],
        None,
        &work,
    );
    assert_eq!(imported.code, Some(0), "{}", imported.stderr);
    let report_file = out.join("collect-report.json");
    let gap = format!("warning: {}: $.missing[", report_file.display());
    let gaps: Vec<&str> = imported
        .stderr
        .lines()
        .filter(|l| l.starts_with(&gap))
        .collect();
    assert_eq!(gaps.len(), 7, "{}", imported.stderr);
    assert!(
        gaps.iter().any(|l| l.contains(&format!(
            "collect could not get load report of `{b}` (not found: HTTP 404"
        ))),
        "{gaps:?}"
    );
    let snapshot: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&snap).unwrap()).unwrap();
    assert_eq!(snapshot["cluster"], "standalone");
    assert_eq!(
        snapshot["namespaces"]["public/default"]["anti_affinity_group"],
        "orders-group"
    );

    // The credential reached every server request and nothing that was written or printed.
    let seen_a = cluster.admin.seen.lock().unwrap().clone();
    let seen_b = cluster.broker_b.seen.lock().unwrap().clone();
    assert!(seen_a.len() >= 20, "{seen_a:?}");
    assert_eq!(
        seen_b.len(),
        1,
        "broker B's own web service was asked for its load report"
    );
    assert_eq!(seen_b[0].path, "/admin/v2/broker-stats/load-report");
    for s in seen_a.iter().chain(&seen_b) {
        assert_eq!(
            s.authorization.as_deref(),
            Some(format!("Bearer {token}").as_str()),
            "{}",
            s.path
        );
    }
    let marker = token.split('.').nth(1).unwrap();
    assert!(!ran.stdout.contains(marker) && !ran.stderr.contains(marker));
    for (name, bytes) in &files {
        assert!(!contains(bytes, marker), "{name} holds the token");
        assert!(
            !contains(bytes, "CONF-SECRET-MARKER"),
            "{name} holds a configuration secret"
        );
    }
    // Progress went to stderr, nothing to stdout.
    assert!(ran.stdout.is_empty());
    assert!(ran.stderr.contains("retrying"), "{}", ran.stderr);
    assert!(ran.stderr.contains("items(s)") || ran.stderr.contains("item(s) could not be fetched"));
    std::fs::remove_dir_all(&work).ok();
}

#[test]
fn collects_a_zip_of_chosen_namespaces_with_the_env_token() {
    let cluster = start_cluster();
    let a = cluster.ids[0].clone();
    let work = temp_dir("zip");
    let token = unique_token();
    let out = work.join("snap.zip");
    let admin = format!("http://{a}/");
    let ran = run_lbplan(
        &[
            "collect",
            "--admin-url",
            &admin,
            "--namespace",
            "public/default",
            "--format",
            "zip",
            "-o",
            out.to_str().unwrap(),
            "--timeout",
            "1",
            "--attempts",
            "2",
            "--backoff-ms",
            "10",
            "--quiet",
        ],
        Some(&token),
        &work,
    );
    assert_eq!(ran.code, Some(0), "stderr:\n{}", ran.stderr);
    assert!(ran.stderr.is_empty(), "--quiet: {}", ran.stderr);
    let bytes = std::fs::read(&out).unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut entries = BTreeMap::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let mut data = Vec::new();
        f.read_to_end(&mut data).unwrap();
        entries.insert(f.name().to_string(), data);
    }
    let names: Vec<&str> = entries.keys().map(String::as_str).collect();
    assert!(names.contains(&"collect-report.json"));
    assert!(names.contains(&format!("loadbalance/brokers/{a}").as_str()));
    assert!(names.contains(&"admin/policies/public/default"));
    assert!(names.contains(&"topics/public/default.json"));
    assert!(
        !names
            .iter()
            .any(|n| n.contains("public/functions") || n.contains("pulsar/system")),
        "{names:?}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&entries["collect-report.json"]).unwrap();
    assert_eq!(report["credential"], "PULSAR_AUTH_TOKEN");
    assert_eq!(report["namespaces"], serde_json::json!(["public/default"]));
    let seen = cluster.admin.seen.lock().unwrap().clone();
    assert!(
        !seen.iter().any(|s| s.path.ends_with("/tenants")),
        "no tenant listing with --namespace"
    );
    for s in &seen {
        assert_eq!(
            s.authorization.as_deref(),
            Some(format!("Bearer {token}").as_str())
        );
    }
    let marker = token.split('.').nth(1).unwrap();
    for (name, data) in &entries {
        assert!(!contains(data, marker), "{name} holds the token");
    }
    assert!(!ran.stdout.contains(marker));
    std::fs::remove_dir_all(&work).ok();
}

#[test]
fn collects_one_snapshot_json_through_the_importer() {
    let cluster = start_cluster();
    let [a, b, _] = cluster.ids.clone();
    let work = temp_dir("json");
    let admin = format!("http://{a}");
    let ran = run_lbplan(
        &[
            "collect",
            "--admin-url",
            &admin,
            "--namespace",
            "public/default",
            "--format",
            "json",
            "--timeout",
            "1",
            "--attempts",
            "2",
            "--backoff-ms",
            "10",
        ],
        None,
        &work,
    );
    assert_eq!(ran.code, Some(0), "stderr:\n{}", ran.stderr);
    let snapshot: serde_json::Value = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("stdout is not a snapshot ({e}):\n{}", ran.stdout));
    assert_eq!(snapshot["format_version"], 1);
    assert_eq!(snapshot["cluster"], "standalone");
    assert_eq!(snapshot["leader_broker"], a.as_str());
    let brokers: Vec<&String> = snapshot["brokers"].as_object().unwrap().keys().collect();
    assert_eq!(brokers, [&a]);
    // The load report's cpu, as the fixture has it.
    assert_eq!(
        snapshot["brokers"][a.as_str()]["local_broker_data"]["cpu"]["usage"],
        3.1577712104798255
    );
    let ns = &snapshot["namespaces"]["public/default"];
    assert_eq!(ns["bundles"]["numBundles"], 4);
    assert_eq!(ns["anti_affinity_group"], "orders-group");
    assert_eq!(
        snapshot["broker_conf"]["loadBalancerBrokerOverloadedThresholdPercentage"],
        "85"
    );
    // The gaps are warnings on stderr, one line each, naming the report and the item.
    assert!(
        ran.stderr.lines().any(
            |l| l.starts_with("warning: collect-report.json: $.missing[")
                && l.contains(&format!(
                    "collect could not get load report of `{b}` (not found: HTTP 404"
                ))
        ),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("listed as collect_gap warnings"),
        "{}",
        ran.stderr
    );
    std::fs::remove_dir_all(&work).ok();
}

#[test]
fn refuses_tokens_on_the_command_line_and_bad_urls() {
    let work = temp_dir("args");
    let ran = run_lbplan(
        &[
            "collect",
            "--admin-url",
            "http://127.0.0.1:9",
            "--token",
            "abc",
        ],
        None,
        &work,
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    let ran = run_lbplan(
        &["collect", "--admin-url", "http://user:pw@127.0.0.1:9"],
        None,
        &work,
    );
    assert_eq!(ran.code, Some(2));
    assert!(!ran.stderr.contains("pw@"), "{}", ran.stderr);
    let ran = run_lbplan(
        &[
            "collect",
            "--admin-url",
            "http://127.0.0.1:9",
            "--namespace",
            "nope",
        ],
        None,
        &work,
    );
    assert_eq!(ran.code, Some(2));
    assert!(ran.stderr.contains("TENANT/NAMESPACE"), "{}", ran.stderr);
    // URLs that do not parse are bad arguments (exit 2), not failed collections (exit 1).
    for (url, why) in [
        ("http://[::1", "invalid IPv6 address"),
        ("http://127.0.0.1:99999", "invalid port number"),
        ("ftp://127.0.0.1:21", "expected http:// or https://"),
    ] {
        let ran = run_lbplan(&["collect", "--admin-url", url], None, &work);
        assert_eq!(ran.code, Some(2), "{url}: {}", ran.stderr);
        assert!(
            ran.stderr
                .starts_with(&format!("error: --admin-url `{url}`: "))
                && ran.stderr.contains(why),
            "{url}: {}",
            ran.stderr
        );
    }
    let ran = run_lbplan(
        &[
            "collect",
            "--admin-url",
            "http://127.0.0.1:9",
            "--allow-credential-to",
            "evil.example/path",
        ],
        None,
        &work,
    );
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("--allow-credential-to `evil.example/path`: expected HOST or HOST:PORT"),
        "{}",
        ran.stderr
    );
    std::fs::remove_dir_all(&work).ok();
}

#[test]
fn an_unreachable_cluster_still_writes_the_report_and_fails() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let work = temp_dir("down");
    let out = work.join("out");
    let ran = run_lbplan(
        &[
            "collect",
            "--admin-url",
            &format!("http://127.0.0.1:{port}"),
            "-o",
            out.to_str().unwrap(),
            "--attempts",
            "2",
            "--backoff-ms",
            "5",
            "--timeout",
            "2",
        ],
        None,
        &work,
    );
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("collect-report.json")).unwrap()).unwrap();
    assert_eq!(report["credential"], "none");
    let reasons: Vec<&str> = report["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["reason"].as_str().unwrap())
        .collect();
    assert!(
        reasons.iter().filter(|r| **r == "connect").count() >= 5,
        "{reasons:?}"
    );
    std::fs::remove_dir_all(&work).ok();
}

/// A token or CA file that never ends (`/dev/zero`) is refused after its cap, before any request:
/// reading it whole would fill memory (SECURITY.md, limits).
#[test]
fn endless_token_and_ca_files_are_refused_at_their_cap() {
    let work = temp_dir("endless");
    for flag in ["--token-file", "--auth-header-file", "--tls-trust-certs"] {
        let ran = run_lbplan(
            &[
                "collect",
                "--admin-url",
                "http://127.0.0.1:9",
                flag,
                "/dev/zero",
            ],
            None,
            &work,
        );
        assert_eq!(ran.code, Some(2), "{flag}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("/dev/zero: more than"),
            "{flag}: {}",
            ran.stderr
        );
    }
}

/// `--every 1s --count 2`: two collections appended to a series directory, stamped a second or
/// more apart; `lbplan history` reads it (nothing moved between them).
#[test]
fn records_a_series_of_collections() {
    let cluster = start_cluster();
    let [a, _, _] = cluster.ids.clone();
    let work = temp_dir("series");
    let series = work.join("series");
    let admin = format!("http://{a}");
    let ran = run_lbplan(
        &[
            "collect",
            "--admin-url",
            &admin,
            "--namespace",
            "public/default",
            "--timeout",
            "1",
            "--attempts",
            "2",
            "--backoff-ms",
            "10",
            "--every",
            "1s",
            "--count",
            "2",
            "-o",
            series.to_str().unwrap(),
        ],
        None,
        &work,
    );
    assert_eq!(ran.code, Some(0), "stderr:\n{}", ran.stderr);
    assert!(series.join("series.json").is_file());
    assert_eq!(
        std::fs::read_dir(series.join("snapshots")).unwrap().count(),
        2
    );
    let ran = run_lbplan(
        &["history", series.to_str().unwrap(), "--format", "json"],
        None,
        &work,
    );
    assert_eq!(ran.code, Some(0), "stderr:\n{}", ran.stderr);
    let r: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let times = r["times_ms"].as_array().unwrap();
    assert_eq!(times.len(), 2);
    // Stamped when each collection ended: in order, though less than the interval apart when the
    // first collection took longer than the second (the rounds start `--every` apart).
    assert!(times[1].as_i64().unwrap() > times[0].as_i64().unwrap());
    assert_eq!(r["summary"]["moves_seen"], 0);
    // The broker that reports a load is live at both instants.
    let load = &r["broker_load"][a.as_str()];
    assert_eq!(load.as_array().unwrap().len(), 2);
    std::fs::remove_dir_all(&work).ok();
}

/// Runs `collect --every 1s` against `admin` into `series` with `extra` arguments.
fn record_every(admin: &str, series: &Path, extra: &[&str], work: &Path) -> Ran {
    let mut args = vec![
        "collect",
        "--admin-url",
        admin,
        "--namespace",
        "public/default",
        "--timeout",
        "1",
        "--attempts",
        "1",
        "--backoff-ms",
        "10",
        "--every",
        "1s",
        "-o",
        series.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run_lbplan(&args, None, work)
}

fn manifest_count(series: &Path) -> usize {
    std::fs::read_dir(series.join("snapshots"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_str()
                    .unwrap()
                    .ends_with(".json")
            })
            .count()
        })
        .unwrap_or(0)
}

/// A round whose answers do not import (a load report naming the namespace `acme/..`) is skipped
/// and reported with its reason; the recording goes on and records the next round (it used to end
/// the recording with exit 1).
#[test]
fn a_bad_round_is_skipped_and_reported() {
    let cluster = start_cluster_with(true);
    let [a, _, _] = cluster.ids.clone();
    let work = temp_dir("bad-round");
    let series = work.join("series");
    let ran = record_every(&format!("http://{a}"), &series, &["--count", "2"], &work);
    assert_eq!(ran.code, Some(0), "stderr:\n{}", ran.stderr);
    assert_eq!(manifest_count(&series), 1);
    assert!(
        ran.stderr
            .contains("round 1 skipped: the collected data does not import"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("1 snapshot(s) recorded in 2 round(s), 1 skipped"),
        "{}",
        ran.stderr
    );
    std::fs::remove_dir_all(&work).ok();
}

/// With the cluster down, `--count 2` ends after two rounds (it never ended: only recorded
/// snapshots counted), exit 1 saying why; `--max-failures 2` ends a recording without `--count`.
#[test]
fn a_recording_of_a_cluster_that_is_down_ends() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let admin = format!("http://127.0.0.1:{port}");
    let work = temp_dir("down-every");
    let ran = record_every(&admin, &work.join("a"), &["--count", "2"], &work);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("0 snapshot(s) recorded in 2 round(s), 2 skipped"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("round 1 skipped: no request succeeded"),
        "{}",
        ran.stderr
    );
    let ran = record_every(&admin, &work.join("b"), &["--max-failures", "2"], &work);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("stopped after 2 failed rounds in a row (--max-failures)"),
        "{}",
        ran.stderr
    );
    std::fs::remove_dir_all(&work).ok();
}

/// `--count 0` (it recorded one snapshot) and a count over the cap are bad arguments (exit 2)
/// stating the range; so is a file where the series directory should be, named.
#[test]
fn count_and_output_arguments_are_checked() {
    let work = temp_dir("count");
    for n in ["0", "1000001"] {
        let ran = record_every(
            "http://127.0.0.1:9",
            &work.join("s"),
            &["--count", n],
            &work,
        );
        assert_eq!(ran.code, Some(2), "{n}: {}", ran.stderr);
        assert!(ran.stderr.contains("1..=1000000"), "{n}: {}", ran.stderr);
    }
    let file = work.join("file");
    std::fs::write(&file, b"x").unwrap();
    let ran = record_every("http://127.0.0.1:9", &file, &["--count", "1"], &work);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("file: is a file, not a directory"),
        "{}",
        ran.stderr
    );
    std::fs::remove_dir_all(&work).ok();
}

/// The series directory is opened once: moved away during the recording and replaced by a
/// symlink to another directory, the later snapshots still go to the directory opened at the
/// start, nothing to the link's target, and the move is reported.
#[test]
fn a_symlink_swapped_in_does_not_redirect_later_files() {
    let cluster = start_cluster();
    let [a, _, _] = cluster.ids.clone();
    let work = temp_dir("swap");
    let series = work.join("series");
    let moved = work.join("moved");
    let elsewhere = work.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let args = [
        "collect".to_string(),
        "--admin-url".into(),
        format!("http://{a}"),
        "--namespace".into(),
        "public/default".into(),
        "--timeout".into(),
        "1".into(),
        "--attempts".into(),
        "1".into(),
        "--every".into(),
        "2s".into(),
        "--count".into(),
        "3".into(),
        "-o".into(),
        series.to_str().unwrap().to_string(),
    ];
    let err_p = work.join("stderr.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(&args)
        .env_remove("PULSAR_AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_p).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while manifest_count(&series) < 1 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no first snapshot"
        );
        assert!(child.try_wait().unwrap().is_none(), "collect ended early");
        thread::sleep(Duration::from_millis(20));
    }
    std::fs::rename(&series, &moved).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &series).unwrap();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "did not finish"
        );
        thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(&err_p).unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(manifest_count(&moved), 3, "{stderr}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(
        stderr.contains("no longer names the series directory opened at the start"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&work).ok();
}

/// A long recording whose disk fills (a small tmpfs in a private mount namespace, filled after
/// the first snapshot) skips the rounds the disk refuses, naming the file and the reason, and
/// records again once space is freed: the series then holds every recorded round, all readable.
#[cfg(target_os = "linux")]
#[test]
fn a_recording_survives_a_full_disk_and_goes_on_once_space_is_freed() {
    let cluster = start_cluster();
    let [a, _, _] = cluster.ids.clone();
    let work = temp_dir("full-disk");
    let mnt = work.join("mnt");
    let out = work.join("out");
    std::fs::create_dir_all(&mnt).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let bin = env!("CARGO_BIN_EXE_lbplan");
    let collect = format!(
        "'{bin}' collect --admin-url http://{a} --namespace public/default --timeout 1 \
         --attempts 1 --backoff-ms 10 -o '{m}/s'",
        m = mnt.display()
    );
    let script = format!(
        "unset PULSAR_AUTH_TOKEN
mount -t tmpfs -o size=2m tmpfs '{m}' || exit 97
touch '{o}/mounted'
{collect} --every 1s --count 1 2> '{o}/first.err' || exit 96
head -c 4000000 /dev/zero > '{m}/filler' 2> /dev/null
{collect} --every 1s --count 4 2> '{o}/record.err' & pid=$!
i=0
while ! grep -q 'round 1 skipped' '{o}/record.err' && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
rm '{m}/filler'
wait $pid; echo $? > '{o}/record.rc'
'{bin}' history '{m}/s' --format json > '{o}/h.json' 2> '{o}/h.err'",
        m = mnt.display(),
        o = out.display(),
    );
    let status = Command::new("unshare")
        .args(["-rm", "sh", "-c", &script])
        .status();
    match status {
        // Not mounted: unshare or mount refused (an unprivileged container), nothing was run.
        Ok(_) if !out.join("mounted").exists() => {
            eprintln!("skipped: this machine does not allow a private tmpfs mount");
            std::fs::remove_dir_all(&work).ok();
            return;
        }
        Err(e) => {
            eprintln!("skipped: unshare is not available ({e})");
            std::fs::remove_dir_all(&work).ok();
            return;
        }
        Ok(s) => assert_ne!(s.code(), Some(96), "the first round did not record"),
    }
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap_or_default();
    let err = read("record.err");
    assert_eq!(read("record.rc").trim(), "0", "{err}");
    assert!(
        err.contains("round 1 skipped") && err.contains("No space left on device"),
        "{err}"
    );
    // The first recording's snapshot, then the rounds after the space was freed (round 1, and
    // perhaps round 2 if it started before the filler was removed, were refused).
    let h: serde_json::Value = serde_json::from_str(&read("h.json")).unwrap_or_default();
    let seen = h["summary"]["snapshots"].as_u64().unwrap_or(0);
    let summary = " snapshot(s) recorded in 4 round(s)";
    let recorded = err
        .lines()
        .filter_map(|l| l.split_once(summary))
        .find_map(|(before, _)| before.split_whitespace().last()?.parse::<u64>().ok())
        .unwrap_or(0);
    assert!((2..=3).contains(&recorded), "{err}");
    assert_eq!(seen, 1 + recorded, "{}\n{err}", read("h.err"));
    std::fs::remove_dir_all(&work).ok();
}
