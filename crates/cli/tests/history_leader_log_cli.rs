//! `lbplan history SERIES --leader-log FILE...`: a series recorded by `lbplan simulate
//! --record-series`, and the leader's log written for what its leader did, in Pulsar's own line
//! formats (Log4j 2's default pattern `%d{ISO8601_OFFSET_DATE_TIME_HHMM} [%t] %-5level
//! %logger{36} - %msg%n` with the messages of `ModularLoadManagerImpl.java:691 @4.0.13`, the
//! 4.0.13 ` {}` suffix, and master's slog attributes), checked against the listings.

#[path = "support/log4j_time.rs"]
mod log4j;
use log4j::log4j_time;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const MODULAR: &str = "org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl";
const THRESHOLD: &str = "org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder";

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("runs lbplan")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lbplan-leader-log-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Recorded {
    dir: PathBuf,
    report: Value,
}

/// The broker-crash scenario recorded for 44 one-minute cycles, and its history without a log.
fn recorded(name: &str) -> Recorded {
    let dir = scratch(name);
    let series = dir.join("series");
    let out = lbplan(&[
        "simulate",
        "--scenario",
        "broker-crash",
        "--cycles",
        "44",
        "--no-progress",
        "--record-series",
        series.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = lbplan(&["history", series.to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Recorded {
        dir,
        report: serde_json::from_slice(&out.stdout).unwrap(),
    }
}

fn changes<'a>(r: &'a Value, cause: &str) -> Vec<&'a Value> {
    r["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["cause"]["cause"] == cause && c["change"]["kind"] == "moved")
        .collect()
}

fn mid(c: &Value) -> i64 {
    (c["from_ms"].as_i64().unwrap() + c["at_ms"].as_i64().unwrap()) / 2
}

/// The leader's log for the first three leader moves (one line per release's format), one move the
/// replay gave to the crash, one unload no snapshot shows, a stack trace and a garbled line, and a
/// last line at the series' end (so the log covers the whole series).
fn leader_log(r: &Value, shift_ms: i64) -> String {
    let shed = changes(r, "leader_shedding");
    let left = changes(r, "broker_left");
    assert!(shed.len() >= 4 && !left.is_empty(), "{r}");
    let t = |c: &Value| log4j_time(mid(c) + shift_ms);
    let thread = "[pulsar-load-manager-5-1]";
    let mut s = String::new();
    let (a, b, c) = (shed[0], shed[1], shed[2]);
    let first = r["times_ms"][0].as_i64().unwrap();
    let last = r["times_ms"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .as_i64()
        .unwrap();
    s += &format!(
        "{} [main] INFO  org.apache.pulsar.broker.PulsarService - This broker {} was elected leader\n",
        log4j_time(first + shift_ms),
        a["change"]["from"].as_str().unwrap()
    );
    // 3.3.9 / 4.1.3: ThresholdShedder's words, then the unload.
    s += &format!(
        "{} {thread} INFO  {THRESHOLD} - Attempting to shed load on {}, which has max resource usage above \
         avgUsage and threshold 92.0% > 61.5% + 10.0% -- Offloading at least 20.0 MByte/s of traffic, left \
         throughput 180.0 MByte/s (cpu: 92.00%, memory: 40.00%, directMemory: 2.00%, bandwidthIn: 35.00%, \
         bandwidthOut: 36.00%)\n",
        t(a),
        a["change"]["from"].as_str().unwrap()
    );
    for (c, suffix) in [(a, ""), (b, " {}")] {
        s += &format!(
            "{} {thread} INFO  {MODULAR} - [ThresholdShedder] Unloading bundle: {} from broker {} to dest broker {}{suffix}\n",
            t(c),
            c["change"]["bundle"].as_str().unwrap(),
            c["change"]["from"].as_str().unwrap(),
            c["change"]["to"].as_str().unwrap()
        );
    }
    // master: slog attributes, keys sorted.
    s += &format!(
        "{} {thread} INFO  {MODULAR} - Unloading bundle from source broker to dest broker {{bundle={}, \
         class=ThresholdShedder, destBroker={}, sourceBroker={}}}\n",
        t(c),
        c["change"]["bundle"].as_str().unwrap(),
        c["change"]["to"].as_str().unwrap(),
        c["change"]["from"].as_str().unwrap()
    );
    // The leader unloaded a bundle the replay gave to the crash.
    let l = left[0];
    s += &format!(
        "{} {thread} INFO  {MODULAR} - [ThresholdShedder] Unloading bundle: {} from broker {} to dest broker {}\n",
        t(l),
        l["change"]["bundle"].as_str().unwrap(),
        l["change"]["from"].as_str().unwrap(),
        l["change"]["to"].as_str().unwrap()
    );
    s += "\tat org.apache.pulsar.client.admin.internal.BaseResource.getApiException(BaseResource.java:246)\n";
    s += &format!(
        "{} garbled without a thread\n",
        log4j_time(mid(l) + shift_ms + 1)
    );
    // An unload no snapshot shows (a bundle that never moved), 10 s into the series.
    s += &format!(
        "{} {thread} INFO  {MODULAR} - [ThresholdShedder] Unloading bundle: public/default/0x00000000_0x10000000 \
         from broker nowhere:8080 to dest broker elsewhere:8080\n",
        log4j_time(first + 10_000 + shift_ms)
    );
    s += &format!(
        "{} {thread} INFO  {MODULAR} - Only 1 broker available: no load shedding will be performed\n",
        log4j_time(last + shift_ms)
    );
    s
}

fn history_with_log(series: &Path, logs: &[&Path], extra: &[&str]) -> Output {
    let mut args = vec!["history", series.to_str().unwrap()];
    args.extend(extra);
    args.push("--leader-log");
    args.extend(logs.iter().map(|p| p.to_str().unwrap()));
    lbplan(&args)
}

#[test]
fn a_leader_log_confirms_lists_and_counts() {
    let rec = recorded("merge");
    let series = rec.dir.join("series");
    let text = leader_log(&rec.report, 0);
    // Split over two files, the first gzip (a rolled `broker.log.1.gz`), given out of order.
    let lines: Vec<&str> = text.lines().collect();
    let (head, tail) = lines.split_at(5);
    let gz_path = rec.dir.join("broker.log.1.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all((head.join("\n") + "\n").as_bytes()).unwrap();
    std::fs::write(&gz_path, gz.finish().unwrap()).unwrap();
    let plain = rec.dir.join("broker.log");
    std::fs::write(&plain, tail.join("\n") + "\n").unwrap();
    let out = history_with_log(&series, &[&plain, &gz_path], &["--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["format_version"], 4);
    // The log changes nothing of the replay's own attribution.
    assert_eq!(r["changes"], rec.report["changes"]);
    let log = &r["leader_log"];
    let shed = changes(&rec.report, "leader_shedding");
    assert_eq!(log["actions"], 5);
    // The three moves are of one step, logged at one time: compare them as sets.
    let mut confirmed: Vec<&str> = log["confirmed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["action"]["bundle"].as_str().unwrap())
        .collect();
    let mut expected: Vec<&str> = shed[..3]
        .iter()
        .map(|c| c["change"]["bundle"].as_str().unwrap())
        .collect();
    confirmed.sort_unstable();
    expected.sort_unstable();
    assert_eq!(confirmed, expected);
    assert!(
        log["confirmed"][0]["action"]["words"]
            .as_str()
            .unwrap()
            .starts_with("Attempting to shed load on ")
    );
    assert_eq!(log["confirmed"][0]["destination_as_logged"], true);
    assert_eq!(log["not_predicted"].as_array().unwrap().len(), 1);
    assert_eq!(log["not_predicted"][0]["cause"], "broker_left");
    assert_eq!(log["no_change"].as_array().unwrap().len(), 1);
    assert_eq!(
        log["no_change"][0]["action"]["bundle"],
        "public/default/0x00000000_0x10000000"
    );
    // Every other leader move is within the log's span and not in it.
    assert_eq!(log["not_logged"].as_array().unwrap().len(), shed.len() - 3);
    assert_eq!(log["predictions_outside_log"], 0);
    let files = log["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    let skipped = &files[0]["skipped"];
    assert_eq!(skipped["no_timestamp"], 1, "{files:?}");
    assert_eq!(skipped["garbled"], 1);
    assert_eq!(files[1]["leader"], shed[0]["change"]["from"]);
    assert_eq!(log["clock"]["disagrees"], false);
    assert_eq!(log["clock"]["offset_ms"], 0);
    // The text lists the same within 120 columns; the CSV marks each change.
    let out = history_with_log(&series, &[&plain, &gz_path], &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("confirmed 3, by the leader but not predicted 1, logged with no change 1"),
        "{text}"
    );
    assert!(
        text.contains("skipped lines: garbled 1, no_timestamp 1"),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 120), "{text}");
    let out = history_with_log(&series, &[&plain, &gz_path], &["--format", "csv"]);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .ends_with(",detail,leader_log,logged_at_ms")
    );
    assert_eq!(csv.lines().filter(|l| l.contains(",confirmed,")).count(), 3);
    assert_eq!(
        csv.lines().filter(|l| l.ends_with(",not_logged,")).count(),
        shed.len() - 3
    );
}

#[test]
fn a_log_clock_ahead_of_the_series_is_reported() {
    let rec = recorded("skew");
    let series = rec.dir.join("series");
    // The leader's clock 5 minutes ahead: every action logged after the snapshot that shows it.
    let path = rec.dir.join("broker.log");
    std::fs::write(&path, leader_log(&rec.report, 300_000)).unwrap();
    let out = history_with_log(&series, &[&path], &["--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let log = &r["leader_log"];
    assert_eq!(log["clock"]["disagrees"], true);
    // Each line is 30 s into its one-minute interval, so 4.5 min after the snapshot that shows it.
    assert_eq!(log["clock"]["offset_ms"], 270_000);
    assert_eq!(log["confirmed"].as_array().unwrap().len(), 3);
    let out = history_with_log(&series, &[&path], &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "clocks disagree: the log's times are 270.0 s after the snapshots that show its actions"
        ),
        "{text}"
    );
}

#[test]
fn unreadable_logs_are_errors_naming_the_file() {
    let rec = recorded("bad");
    let series = rec.dir.join("series");
    let gz = rec.dir.join("broken.log.gz");
    std::fs::write(&gz, [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]).unwrap();
    let out = history_with_log(&series, &[&gz], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("broken.log.gz: line 1: not a readable gzip file"),
        "{err}"
    );
    let out = history_with_log(&series, &[&rec.dir], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a directory"));
}
