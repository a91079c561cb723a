//! `lbplan history --prometheus`: a simulated cluster's metrics, as its brokers would have exposed
//! them (core's `synthetic::pulsar_metrics`), backfilled into a real Prometheus with
//! `promtool tsdb create-blocks-from openmetrics`, explained from Prometheus alone; the causes of
//! the moves match the history of the recorded series of the same simulation. And a fake
//! Prometheus for bad answers: slow, an error envelope, a huge body, too many series, a broker
//! whose metrics are missing at a step (a gap, not a guess).

#[path = "support/http_head.rs"]
mod http_head;
#[path = "support/log4j_time.rs"]
mod log4j;
use log4j::log4j_time;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use lbplan_core::history::store::{Files, StoredSeries};
use lbplan_core::model::Snapshot;
use lbplan_core::synthetic::pulsar_metrics::{MetricsOptions, OpenMetricsWriter, unloads_between};
use serde_json::Value;

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("runs lbplan")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lbplan-prom-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn need(tool: &str) -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(tool))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "`{tool}` is not installed: run scripts/setup.sh (it installs Debian's prometheus \
             package, with promtool), then this test again"
        )
    })
}

/// Every file under `dir`, relative paths (a stored series read as the core reads uploads).
fn files_of(dir: &Path) -> Files {
    fn walk(root: &Path, dir: &Path, out: &mut Files) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn snapshots(dir: &Path) -> Vec<Snapshot> {
    let files = files_of(dir);
    let mut stored = StoredSeries::open(&files).unwrap();
    let mut out = Vec::new();
    while let Some(s) = stored.next_snapshot() {
        out.push(s.unwrap());
    }
    out
}

/// A Prometheus started on a TSDB, killed when dropped.
struct PrometheusGuard {
    child: Child,
    port: u16,
}

impl Drop for PrometheusGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let status = text.split(' ').nth(1)?.parse().ok()?;
    Some((status, text))
}

fn start_prometheus(dir: &Path, tsdb: &Path) -> PrometheusGuard {
    let config = dir.join("prometheus.yml");
    // No scrape targets: the data is the backfill's.
    std::fs::write(
        &config,
        "global:\n  scrape_interval: 1h\nscrape_configs: []\n",
    )
    .unwrap();
    let port = free_port();
    let child = Command::new(need("prometheus"))
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", tsdb.display()))
        // The backfilled samples are from 2025: keep them.
        .arg("--storage.tsdb.retention.time=100y")
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::from(
            std::fs::File::create(dir.join("prometheus.log")).unwrap(),
        ))
        .spawn()
        .expect("starts prometheus");
    let guard = PrometheusGuard { child, port };
    // Readiness, not speed: wait until it answers (its log is kept for a failure).
    let deadline = Instant::now() + Duration::from_secs(120);
    while http_get(port, "/-/ready").map(|(s, _)| s) != Some(200) {
        assert!(
            Instant::now() < deadline,
            "prometheus did not become ready: {}",
            std::fs::read_to_string(dir.join("prometheus.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    guard
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The attribution of each change: when, what, and its cause (with the destination's agreement).
fn causes(r: &Value) -> Vec<String> {
    let mut out: Vec<String> = r["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {} {} {} {} {}",
                c["at_ms"],
                c["change"],
                c["cause"]["cause"],
                c["cause"]["predicted_to"],
                c["cause"]["destination_agrees"],
                c["cause"]["broker"],
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_simulated_incident_explained_from_a_real_prometheus_matches_its_recorded_series() {
    let promtool = need("promtool");
    let dir = scratch("real");
    let series = dir.join("series");
    // The demo cluster under a hot spike, 60 one-minute cycles: ThresholdShedder moves bundles.
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json");
    let sim = lbplan(&[
        "simulate",
        demo.to_str().unwrap(),
        "--scenario",
        "hot-spike",
        "--cycles",
        "60",
        "--no-progress",
        "--record-series",
        series.to_str().unwrap(),
    ]);
    assert!(
        sim.status.success(),
        "{}",
        String::from_utf8_lossy(&sim.stderr)
    );
    let recorded = json_of(&lbplan(&[
        "history",
        series.to_str().unwrap(),
        "--format",
        "json",
    ]));
    let moves = recorded["summary"]["moves_seen"].as_u64().unwrap();
    assert!(moves > 0, "the incident moves bundles");

    // What the brokers exposed at each cycle, as Prometheus would have stored it.
    let snaps = snapshots(&series);
    assert_eq!(snaps.len(), 60);
    let leader = snaps[0].brokers.keys().next().unwrap().clone();
    let mut w = OpenMetricsWriter::new(
        "pulsar",
        MetricsOptions {
            expose_bundles: true,
            leader_unloads: None,
        },
    );
    let mut unloads = 0;
    for (i, s) in snaps.iter().enumerate() {
        if i > 0 {
            unloads += unloads_between(&snaps[i - 1], s);
        }
        let mut s = s.clone();
        s.leader_broker.get_or_insert(leader.clone());
        w.set_leader_unloads(Some(unloads));
        w.push(&s);
    }
    let om = dir.join("metrics.om");
    std::fs::write(&om, w.finish()).unwrap();
    let tsdb = dir.join("tsdb");
    let backfill = Command::new(promtool)
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&om)
        .arg(&tsdb)
        .output()
        .unwrap();
    assert!(
        backfill.status.success(),
        "promtool: {}{}",
        String::from_utf8_lossy(&backfill.stdout),
        String::from_utf8_lossy(&backfill.stderr)
    );
    let prom = start_prometheus(&dir, &tsdb);

    // The operator's layout: one snapshot of the cluster at the start (`lbplan collect`).
    let layout = dir.join("layout.json");
    std::fs::write(&layout, serde_json::to_vec(&snaps[0]).unwrap()).unwrap();
    let from = snaps[0].captured_at_ms.unwrap() / 1000;
    let to = snaps[59].captured_at_ms.unwrap() / 1000;
    let url = format!("http://127.0.0.1:{}", prom.port);
    let out = lbplan(&[
        "history",
        "--prometheus",
        &url,
        "--from",
        &from.to_string(),
        "--to",
        &to.to_string(),
        "--step",
        "60s",
        "--layout",
        layout.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let from_prom = json_of(&out);
    assert_eq!(from_prom["format_version"], 4);
    let basis = &from_prom["basis"];
    assert_eq!(basis["source"], "prometheus");
    assert_eq!(basis["attribution"], "consistent_with_leader");
    assert_eq!(basis["bundle_source"], "bundle_metrics");
    assert_eq!(basis["steps_queried"], 60);
    assert_eq!(basis["gaps"].as_array().unwrap().len(), 0);
    assert_eq!(from_prom["summary"]["snapshots"], 60);
    // The same incident, the same causes: every move, its cause and its destination.
    let (a, b) = (causes(&from_prom), causes(&recorded));
    let differ: Vec<(&String, &String)> =
        a.iter().zip(&b).filter(|(x, y)| x != y).take(5).collect();
    assert!(
        a.len() == b.len() && differ.is_empty(),
        "{} vs {} changes: {differ:#?}",
        a.len(),
        b.len()
    );
    assert_eq!(
        from_prom["summary"]["moves_seen"],
        recorded["summary"]["moves_seen"]
    );
    assert_eq!(
        from_prom["summary"]["moves_predicted"],
        recorded["summary"]["moves_predicted"]
    );
    // The leader's own counter agrees with the unloads the recorded series shows.
    assert_eq!(
        basis["leader_unloads_counted"].as_f64(),
        Some(unloads as f64)
    );
    // `collect --prometheus` stores the same series: explained, the same causes.
    let stored = dir.join("from-prometheus");
    let collect = lbplan(&[
        "collect",
        "--prometheus",
        &url,
        "--from",
        &from.to_string(),
        "--to",
        &to.to_string(),
        "--layout",
        layout.to_str().unwrap(),
        "-o",
        stored.to_str().unwrap(),
    ]);
    assert!(
        collect.status.success(),
        "{}",
        String::from_utf8_lossy(&collect.stderr)
    );
    let again = json_of(&lbplan(&[
        "history",
        stored.to_str().unwrap(),
        "--format",
        "json",
    ]));
    assert_eq!(again["summary"]["snapshots"], 60);
    assert_eq!(causes(&again), causes(&recorded));
    // Prometheus and the leader's log: what the simulated leader did, logged as Pulsar 4.0 logs
    // it, merged with the history built from Prometheus. Every move of the simulation is its
    // leader's, so the log shows each one: those the replay from Prometheus predicted are
    // confirmed, the rest are the leader's but not predicted, and nothing is missing either way.
    let log = dir.join("leader.log");
    std::fs::write(&log, simulated_leader_log(&snaps, &leader)).unwrap();
    let with_log = json_of(&lbplan(&[
        "history",
        "--prometheus",
        &url,
        "--from",
        &from.to_string(),
        "--to",
        &to.to_string(),
        "--layout",
        layout.to_str().unwrap(),
        "--leader-log",
        log.to_str().unwrap(),
        "--format",
        "json",
    ]));
    assert_eq!(with_log["basis"]["source"], "prometheus");
    let merged = &with_log["leader_log"];
    let seen = from_prom["summary"]["moves_seen"].as_u64().unwrap();
    let predicted = from_prom["summary"]["moves_predicted"].as_u64().unwrap();
    let count = |k: &str| merged[k].as_array().unwrap().len() as u64;
    assert_eq!(merged["actions"].as_u64(), Some(seen));
    assert_eq!(count("confirmed"), predicted);
    assert_eq!(count("not_predicted"), seen - predicted);
    assert_eq!(count("no_change"), 0);
    // Splits are not in this log; every unload is.
    assert!(
        merged["not_logged"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["kind"] == "split"),
        "{}",
        merged["not_logged"]
    );
    assert_eq!(merged["clock"]["disagrees"], false);
    for c in merged["confirmed"].as_array().unwrap() {
        assert_eq!(c["destination_as_logged"], true, "{c}");
    }

    // The text says how sure it is.
    let text = lbplan(&[
        "history",
        "--prometheus",
        &url,
        "--from",
        &from.to_string(),
        "--to",
        &to.to_string(),
        "--layout",
        layout.to_str().unwrap(),
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("consistent with the leader"), "{text}");
    drop(prom);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The leader's log of a simulation: its election, then each bundle that changed owner between
/// two consecutive snapshots (the simulation's own moves, all its leader's) as 4.0's
/// `ModularLoadManagerImpl` logs an unload, half-way through the interval.
fn simulated_leader_log(snaps: &[Snapshot], leader: &str) -> String {
    use lbplan_core::history::diff::{Change, diff};
    const MODULAR: &str = "org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl";
    let t0 = snaps[0].captured_at_ms.unwrap();
    let mut s = format!(
        "{} [main] INFO  org.apache.pulsar.broker.PulsarService - This broker {leader} was elected leader\n",
        log4j_time(t0)
    );
    for pair in snaps.windows(2) {
        let mid = (pair[0].captured_at_ms.unwrap() + pair[1].captured_at_ms.unwrap()) / 2;
        for change in diff(&pair[0], &pair[1]) {
            if let Change::Moved { bundle, from, to } = change {
                s += &format!(
                    "{} [pulsar-load-manager-5-1] INFO  {MODULAR} - [ThresholdShedder] Unloading bundle: \
                     {bundle} from broker {from} to dest broker {to}\n",
                    log4j_time(mid)
                );
            }
        }
    }
    s
}

/// How the fake Prometheus answers a query for a metric.
#[derive(Clone, Copy)]
enum Fake {
    /// Two brokers' usage at both steps, except broker b2's memory at the second.
    MissingBroker,
    /// Waits longer than the client's deadline.
    Slow,
    /// Prometheus' error envelope (HTTP 400).
    ErrorEnvelope,
    /// A body of 2 MiB (a `query_range` of too many points, as a client sees it).
    Huge,
    /// Three series where the cap is two.
    ManySeries,
}

const T0: i64 = 1_750_000_000;

fn matrix(series: &[String]) -> String {
    format!(
        r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#,
        series.join(",")
    )
}

fn usage_series(metric: &str, instance: &str, times: &[i64]) -> String {
    let values: Vec<String> = times.iter().map(|t| format!(r#"[{t},"50"]"#)).collect();
    format!(
        r#"{{"metric":{{"__name__":"{metric}","cluster":"c","broker":"x","metric":"loadBalancing","instance":"{instance}","job":"pulsar"}},"values":[{}]}}"#,
        values.join(",")
    )
}

/// The metric a `query_range` request asks for (the first name of its PromQL).
fn metric_of(path: &str) -> String {
    path.split_once("query=")
        .map(|(_, q)| {
            q.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .unwrap_or_default()
}

fn fake_prometheus(mode: Fake) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            std::thread::spawn(move || {
                let Some((path, _)) = http_head::read_request_head(&mut s) else {
                    return;
                };
                let metric = metric_of(&path);
                let (status, body) = match mode {
                    Fake::Slow => {
                        std::thread::sleep(Duration::from_secs(5));
                        (200, matrix(&[]))
                    }
                    Fake::ErrorEnvelope => (
                        400,
                        r#"{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"}"#.to_string(),
                    ),
                    Fake::Huge => (200, format!("{}{}", matrix(&[]), " ".repeat(2 << 20))),
                    Fake::ManySeries if metric.starts_with("pulsar_lb_") && metric.ends_with("_usage") => {
                        let all: Vec<String> = ["a:8080", "b:8080", "c:8080"]
                            .iter()
                            .map(|i| usage_series(&metric, i, &[T0]))
                            .collect();
                        (200, matrix(&all))
                    }
                    Fake::MissingBroker if metric.starts_with("pulsar_lb_") && metric.ends_with("_usage") => {
                        let b2: &[i64] = if metric == "pulsar_lb_memory_usage" {
                            &[T0]
                        } else {
                            &[T0, T0 + 60]
                        };
                        (
                            200,
                            matrix(&[
                                usage_series(&metric, "b1:8080", &[T0, T0 + 60]),
                                usage_series(&metric, "b2:8080", b2),
                            ]),
                        )
                    }
                    _ => (200, matrix(&[])),
                };
                let _ = write!(
                    s,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    port
}

fn history_from(port: u16, extra: &[&str]) -> Output {
    let url = format!("http://127.0.0.1:{port}");
    let (from, to) = (T0.to_string(), (T0 + 60).to_string());
    let mut args = vec![
        "history",
        "--prometheus",
        &url,
        "--from",
        &from,
        "--to",
        &to,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    lbplan(&args)
}

fn failure(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn bad_answers_are_clear_errors_naming_the_query() {
    let slow = failure(&history_from(
        fake_prometheus(Fake::Slow),
        &["--query-timeout", "1"],
    ));
    assert!(
        slow.contains("Prometheus query `pulsar_lb_cpu_usage and"),
        "{slow}"
    );
    assert!(slow.contains("no complete answer within 1000 ms"), "{slow}");

    let error = failure(&history_from(fake_prometheus(Fake::ErrorEnvelope), &[]));
    assert!(
        error.contains("Prometheus query `pulsar_lb_cpu_usage and"),
        "{error}"
    );
    assert!(
        error.contains("HTTP 400: exceeded maximum resolution of 11,000 points"),
        "{error}"
    );

    let huge = failure(&history_from(
        fake_prometheus(Fake::Huge),
        &["--max-answer-mib", "1"],
    ));
    assert!(
        huge.contains("Prometheus query `pulsar_lb_cpu_usage and"),
        "{huge}"
    );
    assert!(
        huge.contains("an answer may have at most 1048576 bytes"),
        "{huge}"
    );

    let many = failure(&history_from(
        fake_prometheus(Fake::ManySeries),
        &["--max-series", "2"],
    ));
    assert!(
        many.contains("Prometheus query `pulsar_lb_cpu_usage and"),
        "{many}"
    );
    assert!(many.contains("more than 2 series in one answer"), "{many}");
}

#[test]
fn a_broker_missing_its_metrics_at_a_step_is_a_gap_not_a_guess() {
    let out = history_from(fake_prometheus(Fake::MissingBroker), &[]);
    let r = json_of(&out);
    let basis = &r["basis"];
    assert_eq!(basis["steps_queried"], 2);
    let gaps = basis["gaps"].as_array().unwrap();
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    assert_eq!(gaps[0]["broker"], "b2:8080");
    assert_eq!(gaps[0]["at_ms"], (T0 + 60) * 1000);
    assert_eq!(gaps[0]["missing"][0], "pulsar_lb_memory_usage");
    // The step with the gap is left out, not filled in: one snapshot.
    assert_eq!(r["summary"]["snapshots"], 1);
}
