//! End-to-end tests of `lbplan watch` with real parts: a fake Pulsar admin API (two brokers whose
//! load the test drives), the built binary, and a real Prometheus (Debian's `prometheus`, which
//! `scripts/setup.sh` installs) scraping the watch's endpoint every second. The query API must
//! return the unloads `lbplan plan` predicts for the same cluster; a cluster that goes down is
//! reported by the metrics while the watch keeps running; SIGTERM ends it with exit 0 and a
//! readable series, which a restart continues; retention deletes old snapshots and their parts.

#[path = "support/fake_admin.rs"]
mod fake_admin;
#[path = "support/http_head.rs"]
mod http_head;

use fake_admin::{Answer, Server, serve};
use lbplan_core::history::store;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/collect");
/// Every wait of these tests ends by this (a wait, not a timing: it fails only when stuck).
const WAIT: Duration = Duration::from_secs(60);

fn fixture(name: &str) -> String {
    let p = Path::new(FIXTURES).join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let d = std::env::temp_dir().join(format!(
        "lbplan-watch-{tag}-{}-{nanos}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The four bundles of `public/default` (the fixtures' 4-bundle layout).
const BUNDLES: [&str; 4] = [
    "public/default/0x00000000_0x40000000",
    "public/default/0x40000000_0x80000000",
    "public/default/0x80000000_0xc0000000",
    "public/default/0xc0000000_0xffffffff",
];

/// A broker's load as the test sets it: CPU percent and the bundles it owns.
#[derive(Clone)]
struct Load {
    cpu_pct: f64,
    bundles: Vec<&'static str>,
}

/// The cluster the test drives: each broker's load, and whether the admin API answers at all.
struct State {
    a: Load,
    b: Load,
    /// Every answer a 503.
    down: bool,
    /// The load reports are not JSON (a proxy's error page).
    garbage: bool,
    /// Every answer comes after the watch's `--timeout 2`.
    slow: bool,
}

/// Each bundle's share of the traffic, in the order of [`BUNDLES`]: uneven, as real bundles are.
const WEIGHTS: [f64; 4] = [1.0, 2.0, 8.0, 20.0];

/// A `LocalBrokerData` in the shape of the fixture's real report (reference §2.3), with the CPU,
/// the bundles and each bundle's traffic (its weight × 500 msg/s and × 5 MiB/s, in and out) set
/// by the test: enough for the shedder's floors (UniformLoadShedder's `minUnloadMessage`, 1,000
/// msg/s; `loadBalancerBundleUnloadMinThroughputThreshold`, 10 MB/s).
fn report(id: &str, load: &Load) -> String {
    let mut last_stats = serde_json::Map::new();
    let (mut rate, mut bytes) = (0.0, 0.0);
    for b in &load.bundles {
        let w = BUNDLES
            .iter()
            .position(|x| x == b)
            .map_or(1.0, |i| WEIGHTS[i]);
        let (r, t) = (w * 500.0, w * 5.0 * 1024.0 * 1024.0);
        rate += r;
        bytes += t;
        last_stats.insert(
            (*b).to_string(),
            serde_json::json!({"msgRateIn": r, "msgThroughputIn": t,
                "msgRateOut": r, "msgThroughputOut": t, "consumerCount": 1,
                "producerCount": 1, "topics": 1, "cacheSize": 0}),
        );
    }
    serde_json::json!({
        "webServiceUrl": format!("http://{id}"),
        "pulsarServiceUrl": "pulsar://127.0.0.1:6650",
        "persistentTopicsEnabled": true, "nonPersistentTopicsEnabled": false,
        "cpu": {"usage": load.cpu_pct, "limit": 100.0},
        "memory": {"usage": 100.0, "limit": 1228.0},
        "directMemory": {"usage": 32.0, "limit": 1228.0},
        "bandwidthIn": {"usage": 0.0, "limit": 0.0},
        "bandwidthOut": {"usage": 0.0, "limit": 0.0},
        "msgThroughputIn": bytes, "msgThroughputOut": bytes,
        "msgRateIn": rate, "msgRateOut": rate,
        "lastUpdate": 1_650_886_425_227i64,
        "lastStats": last_stats,
        "numTopics": load.bundles.len(), "numBundles": load.bundles.len(),
        "numConsumers": load.bundles.len(), "numProducers": load.bundles.len(),
        "bundles": load.bundles,
        "lastBundleGains": [], "lastBundleLosses": [],
        "brokerVersionString": "4.0.7",
        "protocols": {}, "advertisedListeners": {},
        "maxResourceUsage": load.cpu_pct / 100.0,
        "loadReportType": "LocalBrokerData"
    })
    .to_string()
}

/// What a misconfigured proxy in front of the brokers answers.
const PROXY_PAGE: &str = "<html><body><h1>502 Bad Gateway</h1></body></html>";

struct Cluster {
    _a: Server,
    _b: Server,
    admin_url: String,
    state: Arc<Mutex<State>>,
}

/// Broker A answers the admin API and its own load report, broker B its own load report.
fn start_cluster(state: State) -> Cluster {
    let la = TcpListener::bind("127.0.0.1:0").unwrap();
    let lb = TcpListener::bind("127.0.0.1:0").unwrap();
    let ids = [
        format!("127.0.0.1:{}", la.local_addr().unwrap().port()),
        format!("127.0.0.1:{}", lb.local_addr().unwrap().port()),
    ];
    let state = Arc::new(Mutex::new(state));
    let (s, ids_a) = (state.clone(), ids.clone());
    let admin = move |path: &str, _: usize| -> Answer {
        let st = s.lock().unwrap();
        if st.down {
            return Answer::Json(503, fixture("error-503.json"));
        }
        if st.slow {
            return Answer::Slow("[]".into());
        }
        let ok = |body: String| Answer::Json(200, body);
        let p = path.strip_prefix("/admin/v2").unwrap_or("");
        match p {
            "/clusters" => ok(fixture("clusters.json")),
            "/brokers/standalone" => ok(serde_json::json!(ids_a).to_string()),
            "/brokers/leaderBroker" => ok(serde_json::json!({
                "serviceUrl": format!("http://{}", ids_a[0]), "brokerId": ids_a[0]})
            .to_string()),
            "/broker-stats/load-report" if st.garbage => Answer::Text(200, PROXY_PAGE.into()),
            "/broker-stats/load-report" => ok(report(&ids_a[0], &st.a)),
            "/brokers/configuration/runtime" => ok(fixture("runtime-configuration.json")),
            "/brokers/configuration/values" => ok(fixture("dynamic-configuration.json")),
            "/tenants" => ok("[\"public\"]".into()),
            "/namespaces/public" => ok("[\"public/default\"]".into()),
            "/clusters/standalone/failureDomains" => ok("{}".into()),
            "/clusters/standalone/namespaceIsolationPolicies" => ok("{}".into()),
            "/namespaces/public/default/bundles" => ok(fixture("bundles-public-default.json")),
            "/namespaces/public/default" => ok(fixture("policies-public-default.json")),
            "/namespaces/public/default/antiAffinity" => Answer::Empty(204),
            "/namespaces/public/default/topics?mode=ALL&includeSystemTopic=true" => {
                ok(fixture("topics-public-default.json"))
            }
            _ => Answer::Json(404, "{\"reason\":\"Not found\"}".into()),
        }
    };
    let (s, id_b) = (state.clone(), ids[1].clone());
    let broker_b = move |path: &str, _: usize| -> Answer {
        let st = s.lock().unwrap();
        match path {
            _ if st.down => Answer::Json(503, fixture("error-503.json")),
            _ if st.slow => Answer::Slow("[]".into()),
            "/admin/v2/broker-stats/load-report" if st.garbage => {
                Answer::Text(200, PROXY_PAGE.into())
            }
            "/admin/v2/broker-stats/load-report" => Answer::Json(200, report(&id_b, &st.b)),
            _ => Answer::Json(404, "{\"reason\":\"Not found\"}".into()),
        }
    };
    Cluster {
        _a: serve(la, Arc::new(admin)),
        _b: serve(lb, Arc::new(broker_b)),
        admin_url: format!("http://{}", ids[0]),
        state,
    }
}

/// Both brokers at 20 % CPU, two bundles each: nothing to shed.
fn balanced() -> State {
    State {
        a: Load {
            cpu_pct: 20.0,
            bundles: BUNDLES[..2].to_vec(),
        },
        b: Load {
            cpu_pct: 20.0,
            bundles: BUNDLES[2..].to_vec(),
        },
        down: false,
        garbage: false,
        slow: false,
    }
}

/// A running `lbplan watch`, killed when dropped if still running.
struct Watch {
    child: Child,
    stderr: PathBuf,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.child.kill().ok();
            self.child.wait().ok();
        }
    }
}

impl Watch {
    fn start(admin_url: &str, series: &Path, extra: &[&str], work: &Path) -> Watch {
        let stderr = work.join(format!("watch-stderr-{}.txt", temp_tag()));
        let child = Command::new(env!("CARGO_BIN_EXE_lbplan"))
            .args([
                "watch",
                "--admin-url",
                admin_url,
                "--series",
                series.to_str().unwrap(),
                "--every",
                "1s",
                "--metrics-listen",
                "127.0.0.1:0",
                "--timeout",
                "2",
                "--attempts",
                "1",
            ])
            .args(extra)
            .env_remove("PULSAR_AUTH_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        Watch { child, stderr }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// The endpoint's `host:port`, from the line the watch prints when it listens.
    fn metrics_addr(&self) -> String {
        let started = Instant::now();
        loop {
            let text = self.stderr();
            if let Some(rest) = text.split("metrics at http://").nth(1) {
                return rest.split('/').next().unwrap().to_string();
            }
            assert!(started.elapsed() < WAIT, "the watch never listened: {text}");
            thread::sleep(Duration::from_millis(50));
        }
    }

    fn terminate(&mut self) -> i32 {
        // SAFETY: kill(2) on our own child's pid.
        let pid = i32::try_from(self.child.id()).unwrap();
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let started = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code().unwrap_or(-1);
            }
            assert!(started.elapsed() < WAIT, "the watch ignored SIGTERM");
            thread::sleep(Duration::from_millis(50));
        }
    }
}

fn temp_tag() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// One HTTP/1.1 GET; (status, body).
fn http_get(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

/// A sample's value in an exposition text (`name{labels}` written out exactly).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Waits until the watch's exposition satisfies `ok`; returns it.
fn metrics_until(addr: &str, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let started = Instant::now();
    loop {
        let (status, body) = http_get(addr, "/metrics");
        if status == 200 && ok(&body) {
            return body;
        }
        assert!(
            started.elapsed() < WAIT,
            "the metrics never showed {what}:\n{body}"
        );
        thread::sleep(Duration::from_millis(200));
    }
}

fn need(tool: &str) -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(tool))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "`{tool}` is not installed: run scripts/setup.sh (it installs Debian's prometheus \
             package, with promtool), which this test needs"
        )
    })
}

/// A real Prometheus on a free loopback port with its own storage, killed when dropped.
struct Prometheus {
    child: Child,
    addr: String,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

fn start_prometheus(target: &str, work: &Path) -> Prometheus {
    let bin = need("prometheus");
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = work.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  \
             - job_name: lbplan-watch\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .unwrap();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(bin)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            work.join("tsdb").display()
        ))
        .arg(format!("--web.listen-address={addr}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(work.join("prometheus.log")).unwrap())
        .spawn()
        .unwrap();
    Prometheus { child, addr }
}

/// `/api/v1/query` until its vector satisfies `ok` (each element: labels and value).
fn query_until(
    prom: &Prometheus,
    query: &str,
    ok: impl Fn(&[(serde_json::Value, f64)]) -> bool,
) -> Vec<(serde_json::Value, f64)> {
    let encoded: String = query
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'.' | b'-' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let started = Instant::now();
    let mut last = String::new();
    loop {
        if let Ok(mut s) = TcpStream::connect(&prom.addr) {
            s.set_read_timeout(Some(Duration::from_secs(10))).ok();
            let _ = write!(
                s,
                "GET /api/v1/query?query={encoded} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                prom.addr
            );
            let mut text = String::new();
            let _ = s.read_to_string(&mut text);
            let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
            // The body may be chunked; the JSON object is between the first { and the last }.
            let json = match (body.find('{'), body.rfind('}')) {
                (Some(a), Some(b)) if a < b => &body[a..=b],
                _ => "",
            };
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(json) {
                let result: Vec<(serde_json::Value, f64)> = v["data"]["result"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|r| {
                        let value = r["value"][1].as_str().unwrap().parse().unwrap();
                        (r["metric"].clone(), value)
                    })
                    .collect();
                if ok(&result) {
                    return result;
                }
                last = json.to_string();
            }
        }
        assert!(
            started.elapsed() < WAIT,
            "Prometheus never answered `{query}` as expected; last: {last}"
        );
        thread::sleep(Duration::from_millis(300));
    }
}

fn run_lbplan(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .env_remove("PULSAR_AUTH_TOKEN")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn manifests(series: &Path) -> usize {
    std::fs::read_dir(series.join("snapshots"))
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .count()
        })
        .unwrap_or(0)
}

/// Unloads per source broker of `lbplan plan` on a snapshot collected from the same cluster.
fn planned_unloads(admin_url: &str, work: &Path) -> Vec<(String, String)> {
    let snap = work.join(format!("snap-{}.json", temp_tag()));
    let (code, _, err) = run_lbplan(&[
        "collect",
        "--admin-url",
        admin_url,
        "--format",
        "json",
        "-q",
        "-o",
        snap.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run_lbplan(&["plan", snap.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let plan: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut unloads: Vec<(String, String)> = plan["unloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["from"].as_str().unwrap().to_string(),
                u["reason"]["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    unloads.sort();
    unloads
}

/// The whole story with a real Prometheus: a balanced cluster (no unload predicted), broker A
/// driven hot (Prometheus returns the unloads `lbplan plan` predicts, per broker and reason),
/// the cluster down (the watch keeps running, the metrics say so), SIGTERM (exit 0, a readable
/// series), a restart (the series continues).
#[test]
fn prometheus_scrapes_the_predicted_unloads_and_the_watch_survives_the_cluster() {
    let work = temp_dir("prom");
    let cluster = start_cluster(balanced());
    let series = work.join("series");
    let mut watch = Watch::start(&cluster.admin_url, &series, &[], &work);
    let addr = watch.metrics_addr();
    let calm = metrics_until(&addr, "a planned balanced cluster", |t| {
        sample(t, "lbplan_last_collection_success").is_some_and(|v| v == 1.0)
            && t.contains("lbplan_release_info{")
    });
    assert!(
        !calm.contains("lbplan_next_cycle_unloads{"),
        "a balanced cluster sheds nothing:\n{calm}"
    );
    assert!(
        calm.contains("lbplan_release_info{release=\"4.0.7\""),
        "{calm}"
    );
    assert!(planned_unloads(&cluster.admin_url, &work).is_empty());

    // The exposition passes Prometheus' own lint.
    let promtool = need("promtool");
    let mut lint = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    lint.stdin
        .take()
        .unwrap()
        .write_all(calm.as_bytes())
        .unwrap();
    let linted = lint.wait_with_output().unwrap();
    assert!(
        linted.status.success(),
        "promtool check metrics: {}{}",
        String::from_utf8_lossy(&linted.stdout),
        String::from_utf8_lossy(&linted.stderr)
    );

    let prom = start_prometheus(&addr, &work);
    query_until(
        &prom,
        "lbplan_next_cycle_verdict{verdict=\"no_change\"}",
        |r| r.len() == 1 && r[0].1 == 1.0,
    );

    // Broker A hot: 90 % CPU and all four bundles; B idle.
    {
        let mut st = cluster.state.lock().unwrap();
        st.a = Load {
            cpu_pct: 90.0,
            bundles: BUNDLES.to_vec(),
        };
        st.b = Load {
            cpu_pct: 5.0,
            bundles: Vec::new(),
        };
    }
    let expected = planned_unloads(&cluster.admin_url, &work);
    assert!(!expected.is_empty(), "the hot broker sheds");
    let broker_a = cluster.admin_url.trim_start_matches("http://").to_string();
    assert!(expected.iter().all(|(from, _)| *from == broker_a));
    let total = expected.len() as f64;
    let result = query_until(&prom, "lbplan_next_cycle_unloads", |r| {
        r.iter().map(|(_, v)| v).sum::<f64>() == total
    });
    let mut seen: Vec<(String, String)> = Vec::new();
    for (labels, v) in &result {
        for _ in 0..(*v as usize) {
            seen.push((
                labels["broker"].as_str().unwrap().to_string(),
                labels["reason"].as_str().unwrap().to_string(),
            ));
        }
        // Brokers are labels, bundles never are.
        assert!(labels.get("bundle").is_none());
    }
    seen.sort();
    assert_eq!(seen, expected);
    query_until(
        &prom,
        "lbplan_balance_max_usage_ratio{when=\"before\"}",
        |r| r.len() == 1 && (r[0].1 - 0.9).abs() < 1e-6,
    );

    // The cluster goes down: the watch keeps running and says so.
    let errors_before = sample(
        &http_get(&addr, "/metrics").1,
        "lbplan_collection_errors_total{kind=\"unreachable\"}",
    )
    .unwrap();
    cluster.state.lock().unwrap().down = true;
    let down = metrics_until(&addr, "the cluster down", |t| {
        sample(t, "lbplan_last_collection_success") == Some(0.0)
            && sample(t, "lbplan_collection_errors_total{kind=\"unreachable\"}")
                .is_some_and(|n| n > errors_before)
    });
    // The last good snapshot's prediction stays, with its age.
    assert!(down.contains("lbplan_next_cycle_unloads{"));
    assert!(sample(&down, "lbplan_last_good_snapshot_age_seconds").unwrap() >= 0.0);
    assert!(matches!(watch.child.try_wait(), Ok(None)), "still running");
    query_until(&prom, "lbplan_last_collection_success", |r| {
        r.len() == 1 && r[0].1 == 0.0
    });

    // SIGTERM: exit 0, the series complete and readable.
    assert_eq!(watch.terminate(), 0, "{}", watch.stderr());
    let recorded = manifests(&series);
    assert!(recorded >= 2, "{}", watch.stderr());
    let (code, out, err) = run_lbplan(&["history", series.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["times_ms"].as_array().unwrap().len(), recorded);

    // A restart continues the series.
    cluster.state.lock().unwrap().down = false;
    let mut again = Watch::start(&cluster.admin_url, &series, &["--count", "1"], &work);
    let started = Instant::now();
    while matches!(again.child.try_wait(), Ok(None)) {
        assert!(started.elapsed() < WAIT);
        thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        again.child.wait().unwrap().code(),
        Some(0),
        "{}",
        again.stderr()
    );
    assert_eq!(manifests(&series), recorded + 1);
    assert!(
        again
            .stderr()
            .contains(&format!("({recorded} snapshot(s) already)"))
    );
    // The live history resumed with what was stored, not from nothing.
    assert!(
        again.stderr().contains(&format!(
            "the live history resumes with the {recorded} stored snapshot(s) of the last 6h"
        )),
        "{}",
        again.stderr()
    );
    std::fs::remove_dir_all(&work).ok();
}

/// Retention: with `--keep 3s` old snapshots are deleted, the series stays readable and the
/// parts left are exactly those the remaining manifests refer to (a snapshot that changed every
/// round leaves none of its own behind).
#[test]
fn retention_deletes_old_snapshots_and_only_their_own_parts() {
    let work = temp_dir("keep");
    let cluster = start_cluster(balanced());
    let series = work.join("series");
    let mut watch = Watch::start(&cluster.admin_url, &series, &["--keep", "3s"], &work);
    let addr = watch.metrics_addr();
    for cpu in [21.0, 22.0, 23.0, 24.0, 25.0, 26.0] {
        cluster.state.lock().unwrap().a.cpu_pct = cpu;
        let rounds = sample(
            &http_get(&addr, "/metrics").1,
            "lbplan_collection_rounds_total",
        );
        metrics_until(&addr, "another round", |t| {
            sample(t, "lbplan_collection_rounds_total") > rounds
        });
    }
    assert_eq!(watch.terminate(), 0, "{}", watch.stderr());
    assert!(watch.stderr().contains("retention:"), "{}", watch.stderr());
    let kept = manifests(&series);
    assert!((1..=5).contains(&kept), "kept {kept}");
    let (code, out, err) = run_lbplan(&["history", series.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["times_ms"].as_array().unwrap().len(), kept);
    // The parts left are exactly those the remaining manifests refer to.
    let mut referenced = std::collections::BTreeSet::new();
    let mut indexes = std::collections::HashMap::new();
    for e in std::fs::read_dir(series.join("snapshots")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().to_string();
        let bytes = std::fs::read(e.path()).unwrap();
        let refs = store::manifest_part_refs(
            &name,
            &bytes,
            store::SeriesLimits::default(),
            &mut indexes,
            &mut |f| Ok(std::fs::read(series.join(f)).unwrap()),
        )
        .unwrap();
        referenced.extend(refs);
    }
    let on_disk: std::collections::BTreeSet<String> = std::fs::read_dir(series.join("parts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .map(|n| n.strip_suffix(".json.gz").unwrap().to_string())
        .collect();
    assert_eq!(on_disk, referenced);
    let swept: usize = watch
        .stderr()
        .lines()
        .filter_map(|l| l.split(" snapshot(s) and ").nth(1))
        .filter_map(|t| t.split(' ').next()?.parse::<usize>().ok())
        .sum();
    assert!(
        swept > 0,
        "old reports' parts were deleted: {}",
        watch.stderr()
    );
    std::fs::remove_dir_all(&work).ok();
}

/// Only loopback by default; a bad address is bad input.
#[test]
fn a_non_loopback_metrics_address_needs_the_flag() {
    let (code, _, err) = run_lbplan(&[
        "watch",
        "--admin-url",
        "http://127.0.0.1:1",
        "--metrics-listen",
        "0.0.0.0:9464",
        "--count",
        "1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--metrics-allow-remote"), "{err}");
}

/// A watch whose disk fills (a small tmpfs in a private mount namespace, filled after the first
/// snapshot): recording pauses with an error metric while planning goes on, nothing half-written
/// stays, and recording resumes once space is freed; the series reads whole.
#[test]
fn a_full_disk_pauses_recording_with_an_error_metric_and_never_corrupts_the_series() {
    let cluster = start_cluster(balanced());
    let work = temp_dir("full-disk");
    let mnt = work.join("mnt");
    let out = work.join("out");
    std::fs::create_dir_all(&mnt).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let bin = env!("CARGO_BIN_EXE_lbplan");
    let script = format!(
        "unset PULSAR_AUTH_TOKEN
mount -t tmpfs -o size=2m tmpfs '{m}' || exit 97
touch '{o}/mounted'
'{bin}' watch --admin-url {url} --series '{m}/s' --every 1s --count 8 --timeout 2 \
  --attempts 1 --metrics-listen 127.0.0.1:0 2> '{o}/watch.err' & pid=$!
wait_for() {{ i=0; while ! grep -q \"$1\" '{o}/watch.err' && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; }}
wait_for 'round 1: stored'
head -c 4000000 /dev/zero > '{m}/filler' 2> /dev/null
wait_for 'recording paused'
addr=$(grep -o 'metrics at http://[^/]*' '{o}/watch.err' | head -n 1 | sed 's|metrics at http://||')
curl -s \"http://$addr/metrics\" > '{o}/paused.metrics'
rm '{m}/filler'
wait $pid; echo $? > '{o}/watch.rc'
'{bin}' history '{m}/s' --format json > '{o}/h.json' 2> '{o}/h.err'",
        m = mnt.display(),
        o = out.display(),
        url = cluster.admin_url,
    );
    let status = Command::new("unshare")
        .args(["-rm", "sh", "-c", &script])
        .status();
    match status {
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
        Ok(_) => {}
    }
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap_or_default();
    let err = read("watch.err");
    assert_eq!(read("watch.rc").trim(), "0", "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    let paused = read("paused.metrics");
    assert_eq!(
        sample(&paused, "lbplan_recording_paused"),
        Some(1.0),
        "{paused}"
    );
    assert!(sample(&paused, "lbplan_recording_errors_total").unwrap() >= 1.0);
    // Planning went on while the disk was full.
    assert_eq!(sample(&paused, "lbplan_last_collection_success"), Some(1.0));
    let stored = err.matches(": stored (").count();
    assert!(
        stored >= 2,
        "recording resumed after the space was freed: {err}"
    );
    let h: serde_json::Value = serde_json::from_str(&read("h.json")).unwrap_or_default();
    assert_eq!(
        h["summary"]["snapshots"].as_u64(),
        Some(stored as u64),
        "{}\n{err}",
        read("h.err")
    );
    std::fs::remove_dir_all(&work).ok();
}

/// A cluster that answers garbage, then slowly: each round is counted by kind, the watch keeps
/// running, and the last good snapshot's prediction stays with its age.
#[test]
fn garbage_and_slow_answers_are_counted_and_the_watch_goes_on() {
    let work = temp_dir("garbage");
    let cluster = start_cluster(balanced());
    let series = work.join("series");
    let watch = Watch::start(&cluster.admin_url, &series, &[], &work);
    let addr = watch.metrics_addr();
    metrics_until(&addr, "a good round", |t| {
        sample(t, "lbplan_last_collection_success") == Some(1.0)
    });
    cluster.state.lock().unwrap().garbage = true;
    let garbled = metrics_until(&addr, "an import error", |t| {
        sample(t, "lbplan_collection_errors_total{kind=\"import\"}").is_some_and(|n| n >= 1.0)
            && sample(t, "lbplan_last_collection_success") == Some(0.0)
    });
    assert!(garbled.contains("lbplan_next_cycle_verdict{"), "{garbled}");
    {
        let mut st = cluster.state.lock().unwrap();
        st.garbage = false;
        st.slow = true;
    }
    let before = sample(
        &http_get(&addr, "/metrics").1,
        "lbplan_collection_errors_total{kind=\"unreachable\"}",
    )
    .unwrap();
    metrics_until(&addr, "a timed-out round", |t| {
        sample(t, "lbplan_collection_errors_total{kind=\"unreachable\"}")
            .is_some_and(|n| n > before)
    });
    cluster.state.lock().unwrap().slow = false;
    let back = metrics_until(&addr, "the cluster back", |t| {
        sample(t, "lbplan_last_collection_success") == Some(1.0)
    });
    assert!(sample(&back, "lbplan_last_good_snapshot_age_seconds").unwrap() < 60.0);
    drop(watch);
    std::fs::remove_dir_all(&work).ok();
}

/// `--serve DIST`: the dashboard on the watch's own listener, `/` opening it on the latest
/// snapshot (same origin), which `/watch/latest.json` serves as the collected snapshot; the live
/// history's report at `/watch/history.json`; nothing outside DIST.
#[test]
fn serve_hands_the_dashboard_the_latest_snapshot_same_origin() {
    let work = temp_dir("serve");
    let dist = work.join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(
        dist.join("index.html"),
        "<!doctype html><title>lbplan</title>",
    )
    .unwrap();
    std::fs::write(work.join("outside.txt"), "not served").unwrap();
    let cluster = start_cluster(balanced());
    let series = work.join("series");
    let watch = Watch::start(
        &cluster.admin_url,
        &series,
        &["--serve", dist.to_str().unwrap()],
        &work,
    );
    let addr = watch.metrics_addr();
    metrics_until(&addr, "a good round", |t| {
        sample(t, "lbplan_last_collection_success") == Some(1.0)
    });
    let mut s = TcpStream::connect(&addr).unwrap();
    write!(s, "GET / HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut head = String::new();
    s.read_to_string(&mut head).unwrap();
    assert!(head.starts_with("HTTP/1.1 302"), "{head}");
    assert!(
        head.contains("\r\nLocation: /?snapshot=/watch/latest.json&watch\r\n"),
        "{head}"
    );
    let (status, page) = http_get(&addr, "/?snapshot=/watch/latest.json");
    assert_eq!(
        (status, page.as_str()),
        (200, "<!doctype html><title>lbplan</title>")
    );
    let (status, latest) = http_get(&addr, "/watch/latest.json");
    assert_eq!(status, 200);
    let snap: serde_json::Value = serde_json::from_str(&latest).unwrap();
    let broker_a = cluster.admin_url.trim_start_matches("http://");
    assert!(snap["brokers"][broker_a].is_object(), "{latest}");
    assert!(snap["captured_at_ms"].as_i64().unwrap() > 0);
    let (status, history) = http_get(&addr, "/watch/history.json");
    assert_eq!(status, 200);
    let report: serde_json::Value = serde_json::from_str(&history).unwrap();
    assert!(!report["times_ms"].as_array().unwrap().is_empty());
    assert_eq!(http_get(&addr, "/../outside.txt").0, 404);
    drop(watch);
    std::fs::remove_dir_all(&work).ok();
}

/// `GET path` answered 200, as JSON.
fn get_json(addr: &str, path: &str) -> serde_json::Value {
    let (status, body) = http_get(addr, path);
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

/// What the dashboard follows a watch with: `/watch/status.json` (the interval and the capture
/// times of the latest snapshot and of the History view) changes with each round, and after a
/// bundle moves from broker A to broker B the History view (`/watch/history-view.json`: the
/// report and the per-namespace timeline of the same window) lists the move and draws the
/// bundle's range on B.
#[test]
fn serve_tells_the_page_what_changed_and_the_history_view_follows_a_move() {
    let work = temp_dir("serve-live");
    let dist = work.join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html>").unwrap();
    let cluster = start_cluster(balanced());
    let watch = Watch::start(
        &cluster.admin_url,
        &work.join("series"),
        &["--serve", dist.to_str().unwrap()],
        &work,
    );
    let addr = watch.metrics_addr();
    let broker_a = cluster.admin_url.trim_start_matches("http://").to_string();
    let (started, first) = loop {
        let (code, body) = http_get(&addr, "/watch/status.json");
        assert_eq!(code, 200, "{body}");
        let s: serde_json::Value = serde_json::from_str(&body).unwrap();
        if s["latest_captured_at_ms"].is_i64() {
            break (Instant::now(), s);
        }
        thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(first["format_version"], 1);
    assert_eq!(first["interval_ms"], 1000);
    // Every answer keeps the page on this origin (requests elsewhere refused by the browser).
    let mut s = TcpStream::connect(&addr).unwrap();
    write!(s, "GET /index.html HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut head = String::new();
    s.read_to_string(&mut head).unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.contains("\r\nContent-Security-Policy: default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self';"),
        "{head}"
    );
    assert_eq!(first["last_round_ok"], true);
    let latest = get_json(&addr, "/watch/latest.json");
    assert_eq!(latest["captured_at_ms"], first["latest_captured_at_ms"]);
    // A moves its first bundle to B.
    {
        let mut st = cluster.state.lock().unwrap();
        let moved = st.a.bundles.remove(0);
        st.b.bundles.push(moved);
    }
    let view = loop {
        let view = get_json(&addr, "/watch/history-view.json");
        let moved = view["report"]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| {
                c["change"]["bundle"] == BUNDLES[0] && c["change"]["from"] == broker_a.as_str()
            });
        if moved {
            break view;
        }
        assert!(started.elapsed() < WAIT, "no move: {view}");
        thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(view["format_version"], 1);
    let status = get_json(&addr, "/watch/status.json");
    assert!(status["history_latest_ms"].as_i64() > first["latest_captured_at_ms"].as_i64());
    assert_eq!(
        view["timeline"]["times_ms"].as_array().unwrap().last(),
        view["report"]["times_ms"].as_array().unwrap().last()
    );
    // The bundle's range (0x00000000-0x40000000) has a cell on A, then one on B.
    let brokers = view["timeline"]["brokers"].as_array().unwrap().clone();
    let lane = &view["timeline"]["lanes"][0];
    assert_eq!(lane["namespace"], "public/default");
    let owners: Vec<&str> = lane["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["lo"] == 0 && c["hi"] == 0x4000_0000u32)
        .map(|c| {
            brokers[c["owner"].as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(owners.first(), Some(&broker_a.as_str()));
    assert_ne!(owners.last(), Some(&broker_a.as_str()));
    drop(watch);
    std::fs::remove_dir_all(&work).ok();
}
