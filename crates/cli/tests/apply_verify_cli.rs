//! `lbplan apply --execute --verify` against a fake cluster of three brokers on 127.0.0.1, each
//! its own listener serving Pulsar's admin REST shapes (reference §10): the admin reads `collect`
//! makes (`clusters`, `tenants`, namespaces, `bundles`, the runtime and dynamic configuration, the
//! active brokers), each broker's own `broker-stats/load-report` (a `LocalBrokerData` whose
//! `bundles`, CPU usage and `lastUpdate` follow the unloads when the broker reports), and the
//! apply's `ownedNamespaces`. Checks: after the last batch the CLI collects a fresh snapshot and
//! prints core's verification (bundles where predicted, each broker's usage against the
//! prediction); a broker whose report predates the apply is "not yet reported since the apply";
//! a bundle the leader moved back after the run is reported, exit status 1; JSON to a file.

#[path = "support/http_head.rs"]
mod http_head;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

const MOVE_1: &str = "public/default/0x80000000_0xc0000000";
const MOVE_2: &str = "tenant/ns/0x40000000_0x80000000";
const SHEDDING: &str = "/admin/v2/brokers/configuration/loadBalancerSheddingEnabled";

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

struct State {
    /// Broker ids (`127.0.0.1:PORT`), b1 first: the admin URL is b1's.
    brokers: Vec<String>,
    owners: BTreeMap<String, String>,
    /// Each broker's CPU usage in its last report, percent of a 100 % limit.
    cpu: BTreeMap<String, f64>,
    last_update: BTreeMap<String, i64>,
    /// Brokers that do not rewrite their report after a move (below Pulsar's
    /// loadBalancerReportUpdateThresholdPercentage).
    silent: BTreeSet<String>,
    /// When shedding is put back, the leader moves this bundle back to this broker.
    move_back_on_restore: Option<(String, String)>,
    shedding: Option<String>,
}

/// What a bundle costs its owner in CPU points (the fake's load model): MOVE_1 takes b1 from
/// 79.2 % to 60.2 %, MOVE_2 takes b3 from 12 % to 24 %.
fn cost(bundle: &str) -> f64 {
    if bundle == MOVE_1 { 19.0 } else { 12.0 }
}

fn move_bundle(st: &mut State, bundle: &str, to: &str) {
    let from = st.owners.insert(bundle.to_string(), to.to_string());
    // The report is written after the change (Pulsar looks every
    // loadBalancerReportUpdateMinIntervalMillis), so strictly after the call that caused it.
    let now = now_ms() + 5;
    for (b, sign) in [(from.unwrap_or_default(), -1.0), (to.to_string(), 1.0)] {
        if st.silent.contains(&b) || !st.cpu.contains_key(&b) {
            continue;
        }
        *st.cpu.get_mut(&b).unwrap() += sign * cost(bundle);
        st.last_update.insert(b, now);
    }
}

/// `LocalBrokerData` as `GET /admin/v2/broker-stats/load-report` serves it.
fn load_report(st: &State, broker: &str) -> String {
    let bundles: Vec<&String> = st
        .owners
        .iter()
        .filter(|(_, o)| o.as_str() == broker)
        .map(|(b, _)| b)
        .collect();
    let stats: serde_json::Map<String, serde_json::Value> = bundles
        .iter()
        .map(|b| {
            (
                b.to_string(),
                serde_json::json!({"msgRateIn": 100.0, "msgThroughputIn": 10000.0, "msgRateOut": 100.0,
                    "msgThroughputOut": 10000.0, "consumerCount": 1, "producerCount": 1, "topics": 2,
                    "cacheSize": 0}),
            )
        })
        .collect();
    let cpu = st.cpu[broker];
    serde_json::json!({
        "webServiceUrl": format!("http://{broker}"),
        "pulsarServiceUrl": format!("pulsar://{broker}"),
        "persistentTopicsEnabled": true, "nonPersistentTopicsEnabled": true,
        "cpu": {"usage": cpu, "limit": 100.0},
        "memory": {"usage": 100.0, "limit": 4096.0},
        "directMemory": {"usage": 10.0, "limit": 4096.0},
        "bandwidthIn": {"usage": 0.0, "limit": 0.0},
        "bandwidthOut": {"usage": 0.0, "limit": 0.0},
        "msgThroughputIn": 10000.0 * bundles.len() as f64,
        "msgThroughputOut": 10000.0 * bundles.len() as f64,
        "msgRateIn": 100.0 * bundles.len() as f64,
        "msgRateOut": 100.0 * bundles.len() as f64,
        "lastUpdate": st.last_update[broker],
        "lastStats": stats,
        "numTopics": 2 * bundles.len(), "numBundles": bundles.len(),
        "numConsumers": bundles.len(), "numProducers": bundles.len(),
        "bundles": bundles,
        "lastBundleGains": [], "lastBundleLosses": [],
        "brokerVersionString": "4.0.3",
        "loadManagerClassName": "org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl",
        "maxResourceUsage": cpu / 100.0,
        "loadReportType": "LocalBrokerData"
    })
    .to_string()
}

fn answer(state: &Mutex<State>, me: &str, method: &str, path: &str) -> (u16, String) {
    let mut st = state.lock().unwrap();
    let (p, query) = path.split_once('?').unwrap_or((path, ""));
    let json = |v: serde_json::Value| (200, v.to_string());
    let bounds = serde_json::json!({"boundaries": ["0x00000000", "0x40000000", "0x80000000",
        "0xc0000000", "0xffffffff"], "numBundles": 4});
    match (method, p) {
        ("GET", "/admin/v2/broker-stats/load-report") => (200, load_report(&st, me)),
        ("GET", "/admin/v2/clusters") => json(serde_json::json!(["test"])),
        ("GET", "/admin/v2/brokers/configuration/runtime") => {
            json(serde_json::json!({"clusterName": "test"}))
        }
        ("GET", "/admin/v2/brokers/version") => (200, "4.0.3".to_string()),
        ("GET", "/admin/v2/brokers/configuration/values") => (
            200,
            match &st.shedding {
                Some(v) => format!(r#"{{"loadBalancerSheddingEnabled":"{v}"}}"#),
                None => "{}".to_string(),
            },
        ),
        ("GET", "/admin/v2/brokers/test") => json(serde_json::json!(st.brokers)),
        ("GET", "/admin/v2/tenants") => json(serde_json::json!(["public", "tenant"])),
        ("GET", "/admin/v2/namespaces/public") => json(serde_json::json!(["public/default"])),
        ("GET", "/admin/v2/namespaces/tenant") => json(serde_json::json!(["tenant/ns"])),
        ("GET", "/admin/v2/namespaces/public/default/bundles")
        | ("GET", "/admin/v2/namespaces/tenant/ns/bundles") => json(bounds),
        ("GET", p) if p.ends_with("/topics") => json(serde_json::json!([])),
        ("GET", p) if p.ends_with("/antiAffinity") => (204, String::new()),
        ("GET", p) if p.ends_with("/ownedNamespaces") => {
            let broker = p.split('/').nth(5).unwrap_or("").replace("%3A", ":");
            let owned: serde_json::Map<String, serde_json::Value> = st
                .owners
                .iter()
                .filter(|(_, o)| **o == broker)
                .map(|(b, _)| {
                    (
                        b.clone(),
                        serde_json::json!({"broker_assignment": "shared",
                        "is_controlled": false, "is_active": true}),
                    )
                })
                .collect();
            json(serde_json::Value::Object(owned))
        }
        ("POST", p) if p.starts_with(SHEDDING) || p == SHEDDING => {
            let value = p.rsplit('/').next().map(str::to_string);
            if value.as_deref() != Some("false")
                && let Some((b, to)) = st.move_back_on_restore.take()
            {
                move_bundle(&mut st, &b, &to);
            }
            st.shedding = value;
            (204, String::new())
        }
        ("DELETE", SHEDDING) => {
            st.shedding = None;
            if let Some((b, to)) = st.move_back_on_restore.take() {
                move_bundle(&mut st, &b, &to);
            }
            (204, String::new())
        }
        ("PUT", p) if p.ends_with("/unload") => {
            let segs: Vec<&str> = p.split('/').collect();
            let bundle = format!("{}/{}/{}", segs[4], segs[5], segs[6]);
            let to = query
                .strip_prefix("destinationBroker=")
                .unwrap()
                .replace("%3A", ":");
            move_bundle(&mut st, &bundle, &to);
            (204, String::new())
        }
        _ => (404, r#"{"reason":"Not found"}"#.to_string()),
    }
}

struct Fake {
    url: String,
    brokers: Vec<String>,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn handle(mut stream: TcpStream, state: &Mutex<State>, me: &str) {
    stream.set_nonblocking(false).ok();
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
    let Some((method, path, _)) = http_head::read_request(&mut stream) else {
        return;
    };
    let (status, body) = answer(state, me, &method, &path);
    let resp = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(resp.as_bytes()).ok();
    stream.flush().ok();
}

/// Three brokers; the plan's snapshot (an hour's worth of reports ago… a minute ago) has MOVE_1
/// on b1 and MOVE_2 on b2; b1 at 79.2 % CPU, b2 at 41 %, b3 at 12 %.
fn start(silent: &[usize], move_back: bool) -> Fake {
    let listeners: Vec<TcpListener> = (0..3)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let brokers: Vec<String> = listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}", l.local_addr().unwrap().port()))
        .collect();
    let reported = now_ms() - 60_000;
    let mut st = State {
        brokers: brokers.clone(),
        owners: BTreeMap::new(),
        cpu: BTreeMap::new(),
        last_update: BTreeMap::new(),
        silent: silent.iter().map(|i| brokers[*i].clone()).collect(),
        move_back_on_restore: move_back.then(|| (MOVE_2.to_string(), brokers[1].clone())),
        shedding: None,
    };
    for (b, cpu) in brokers.iter().zip([79.2, 41.0, 12.0]) {
        st.cpu.insert(b.clone(), cpu);
        st.last_update.insert(b.clone(), reported);
    }
    st.owners.insert(MOVE_1.to_string(), brokers[0].clone());
    st.owners.insert(MOVE_2.to_string(), brokers[1].clone());
    let state = Arc::new(Mutex::new(st));
    let stop = Arc::new(AtomicBool::new(false));
    for (l, me) in listeners.into_iter().zip(brokers.clone()) {
        l.set_nonblocking(true).unwrap();
        let (state, stop) = (state.clone(), stop.clone());
        thread::spawn(move || {
            let started = Instant::now();
            while !stop.load(Ordering::Relaxed) && started.elapsed() < Duration::from_secs(120) {
                match l.accept() {
                    Ok((stream, _)) => {
                        let (state, me) = (state.clone(), me.clone());
                        thread::spawn(move || handle(stream, &state, &me));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
    }
    Fake {
        url: format!("http://{}", brokers[0]),
        brokers,
        state,
        stop,
    }
}

/// The plan the fake cluster's snapshot gives (format 5, better, its brokers' release 4.0.3, a
/// minute old).
fn work_dir(tag: &str, fake: &Fake) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lbplan-apply-verify-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let [b1, b2, b3] = [&fake.brokers[0], &fake.brokers[1], &fake.brokers[2]];
    let plan = serde_json::json!({
        "format_version": 5,
        "snapshot_fingerprint": "fp-apply-verify",
        "cluster": "test",
        "snapshot_captured_at_ms": now_ms() - 60_000,
        "profile": "4.0.3",
        "verdict": {"outcome": "better", "headline": "Better: max 79.2% → 60.2%"},
        "brokers_before": [
            {"broker": b1, "weighted_max_usage_fraction": 0.792},
            {"broker": b2, "weighted_max_usage_fraction": 0.41},
            {"broker": b3, "weighted_max_usage_fraction": 0.12}
        ],
        "brokers_after": [
            {"broker": b1, "weighted_max_usage_fraction": 0.602},
            {"broker": b2, "weighted_max_usage_fraction": 0.48},
            {"broker": b3, "weighted_max_usage_fraction": 0.25}
        ],
        "splits": [],
        "unloads": [
            {"bundle": MOVE_1, "from": b1, "to": b2, "pass_destination": true,
             "reason": {"kind": "threshold_shedder"}, "origin": "shedding"},
            {"bundle": MOVE_2, "from": b2, "to": b3, "pass_destination": true,
             "reason": "manual", "origin": "manual"}
        ],
        "topic_unloads": []
    });
    std::fs::write(d.join("plan.json"), plan.to_string()).unwrap();
    d
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn apply(dir: &Path, fake: &Fake, extra: &[&str]) -> Ran {
    let mut args = vec![
        "apply".to_string(),
        dir.join("plan.json").display().to_string(),
        "--admin-url".to_string(),
        fake.url.clone(),
        "--wait".to_string(),
        "0s".to_string(),
        "--journal".to_string(),
        dir.join("journal.json").display().to_string(),
        "--execute".to_string(),
        "--verify".to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(&args)
        .env_remove("PULSAR_AUTH_TOKEN")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).to_string(),
    }
}

#[test]
fn apply_verify_collects_after_the_last_batch_and_reports_every_bundle_and_broker() {
    let fake = start(&[], false);
    let dir = work_dir("all", &fake);
    let ran = apply(&dir, &fake, &[]);
    assert_eq!(ran.code, Some(0), "{}\n{}", ran.stdout, ran.stderr);
    let text = &ran.stdout;
    let report = &text[text.find("lbplan verify: ").expect(text)..];
    assert!(
        report.starts_with("lbplan verify: AS PREDICTED: 2 of 2 bundle(s) where predicted, 3 of 3 broker(s) within 5 points of the predicted usage, 0 not yet reported since the apply, 0 bundle(s) on their source again"),
        "{report}"
    );
    assert!(
        report.contains("owners read live after the apply"),
        "{report}"
    );
    let [b1, b2, b3] = [&fake.brokers[0], &fake.brokers[1], &fake.brokers[2]];
    // The fake's reports after the moves: b1 60.2 %, b2 48.0 %, b3 24.0 % CPU.
    for line in [
        format!("ok   {MOVE_1} {b1} → {b2}: now on {b2} — as predicted"),
        format!("ok   {MOVE_2} {b2} → {b3}: now on {b3} — as predicted"),
        format!("ok   {b1}: 79.2% → 60.2%, actual 60.2% (+0.0 points)"),
        format!("ok   {b2}: 41.0% → 48.0%, actual 48.0% (+0.0 points)"),
        format!("ok   {b3}: 12.0% → 25.0%, actual 24.0% (-1.0 points)"),
    ] {
        assert!(report.contains(&line), "{line}\n{report}");
    }
    assert!(
        ran.stderr
            .contains("verify: collecting a fresh snapshot of test"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_broker_whose_report_predates_the_apply_is_not_yet_reported_and_json_goes_to_a_file() {
    // b3 does not rewrite its report (its change stays under the threshold).
    let fake = start(&[2], false);
    let dir = work_dir("silent", &fake);
    let out = dir.join("verify.json");
    let ran = apply(
        &dir,
        &fake,
        &["--format", "json", "-o", out.to_str().unwrap()],
    );
    assert_eq!(ran.code, Some(0), "{}\n{}", ran.stdout, ran.stderr);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["format_version"], 2);
    assert_eq!(v["cluster"], "test");
    assert_eq!(v["owners_read_live"], true);
    assert_eq!(v["not_yet_reported"], 1);
    assert_eq!(v["as_predicted"], true);
    assert_eq!(v["complete"], false);
    assert!(
        v["summary"]
            .as_str()
            .unwrap()
            .starts_with("AS PREDICTED SO FAR: ")
    );
    let b3 = v["brokers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["broker"] == fake.brokers[2].as_str())
        .unwrap();
    assert_eq!(b3["not_yet_reported"], true);
    assert_eq!(b3["actual"], 0.12);
    // The live owners still place MOVE_2 on b3 at once.
    let m2 = v["bundles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["bundle"] == MOVE_2)
        .unwrap();
    assert_eq!(m2["status"], "as_predicted");
    assert_eq!(m2["found"], fake.brokers[2].as_str());
}

#[test]
fn a_bundle_the_leader_moved_back_after_the_run_fails_the_verification() {
    // With shedding paused for the run, the leader moves MOVE_2 back once it is on again.
    let fake = start(&[], true);
    let dir = work_dir("back", &fake);
    let ran = apply(&dir, &fake, &["--pause-shedding", "--verify-after", "0s"]);
    assert_eq!(ran.code, Some(1), "{}\n{}", ran.stdout, ran.stderr);
    let report = &ran.stdout[ran.stdout.find("lbplan verify: ").unwrap()..];
    assert!(
        report.starts_with("lbplan verify: NOT AS PREDICTED: 1 of 2 bundle(s)"),
        "{report}"
    );
    assert!(
        report.contains(&format!(
            "FAIL {MOVE_2} {} → {}: now on {} — ON ITS SOURCE AGAIN",
            fake.brokers[1], fake.brokers[2], fake.brokers[1]
        )),
        "{report}"
    );
    assert_eq!(
        fake.state.lock().unwrap().shedding,
        None,
        "shedding put back"
    );
}

#[test]
fn verify_options_are_checked() {
    let fake = start(&[], false);
    let dir = work_dir("args", &fake);
    let ran = apply(&dir, &fake, &["--verify-after", "16m"]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("at most 15m"), "{}", ran.stderr);
    // Nothing was sent: the arguments are read first.
    assert_eq!(fake.state.lock().unwrap().owners[MOVE_1], fake.brokers[0]);
}
