//! `lbplan apply` against a local fake admin server that keeps who owns which bundle, answers the
//! admin REST calls at Pulsar's paths (reference §10; `ownedNamespaces`, the dynamic
//! configuration), records every call, fails the calls a test names and can move a bundle behind
//! the plan's back. Checks: a dry run sends nothing that changes the cluster; drift refuses the run;
//! a failure stops it and the journal says so; resume continues; rollback moves the bundles back;
//! a paused shedding setting is restored after a failure, after each signal (INT, TERM, HUP, QUIT)
//! and, after a `kill -9`, by the next resume or rollback (with or without `--pause-shedding`), to
//! the value found before the first pause; a failed restore prints the commands to run; an edited
//! journal is refused; a symlink planted at the journal's path is not followed; a destination not
//! honoured stops the run.

#[path = "support/http_head.rs"]
mod http_head;

use std::collections::BTreeMap;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

const SPLIT: &str = "public/default/0x00000000_0x40000000";
const MOVE_1: &str = "public/default/0x80000000_0xc0000000";
const MOVE_2: &str = "tenant/ns/0x40000000_0x80000000";
const B1: &str = "b1:8080";
const B2: &str = "b2:8080";
const B3: &str = "b3:8080";

const SPLIT_CALL: &str = "/admin/v2/namespaces/public/default/0x00000000_0x40000000/split?unload=false&splitAlgorithmName=range_equally_divide";
const MOVE_1_CALL: &str =
    "/admin/v2/namespaces/public/default/0x80000000_0xc0000000/unload?destinationBroker=b2%3A8080";
const MOVE_2_CALL: &str =
    "/admin/v2/namespaces/tenant/ns/0x40000000_0x80000000/unload?destinationBroker=b3%3A8080";
const SHEDDING: &str = "/admin/v2/brokers/configuration/loadBalancerSheddingEnabled";

#[derive(Default)]
struct State {
    owners: BTreeMap<String, String>,
    shedding: Option<String>,
    calls: Vec<(String, String)>,
    /// Answer 500 to a mutating call whose path contains this.
    fail: Option<String>,
    /// After this many mutating calls, move (bundle, to) without being asked.
    drift_after: Option<(usize, String, String)>,
    /// Unloads land on b3 whatever the destination.
    ignore_destination: bool,
    /// Answer 500 to the calls that put shedding back (`…/true` and the DELETE).
    fail_restore: bool,
    /// What `GET /admin/v2/brokers/version` answers.
    version: String,
}

struct Fake {
    url: String,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Fake {
    fn mutating(&self) -> Vec<(String, String)> {
        self.state
            .lock()
            .unwrap()
            .calls
            .iter()
            .filter(|(m, _)| m != "GET")
            .cloned()
            .collect()
    }
    fn owner(&self, bundle: &str) -> Option<String> {
        self.state.lock().unwrap().owners.get(bundle).cloned()
    }
}

fn decode(s: &str) -> String {
    s.replace("%3A", ":").replace("%3a", ":")
}

fn answer(state: &Mutex<State>, method: &str, path: &str) -> (u16, String) {
    let mut st = state.lock().unwrap();
    st.calls.push((method.to_string(), path.to_string()));
    let (p, query) = path.split_once('?').unwrap_or((path, ""));
    match (method, p) {
        ("GET", "/admin/v2/brokers/configuration/runtime") => {
            (200, r#"{"clusterName":"test"}"#.to_string())
        }
        ("GET", "/admin/v2/brokers/test") => (200, format!(r#"["{B1}","{B2}","{B3}"]"#)),
        // `pulsar-admin brokers version`: Pulsar answers the bare version string.
        ("GET", "/admin/v2/brokers/version") => (200, st.version.clone()),
        ("GET", "/admin/v2/brokers/configuration/values") => (
            200,
            match &st.shedding {
                Some(v) => format!(r#"{{"loadBalancerSheddingEnabled":"{v}"}}"#),
                None => "{}".to_string(),
            },
        ),
        ("GET", p) if p.ends_with("/ownedNamespaces") => {
            let broker = decode(p.split('/').nth(5).unwrap_or(""));
            let owned: serde_json::Map<String, serde_json::Value> = st
                .owners
                .iter()
                .filter(|(_, o)| **o == broker)
                .map(|(b, _)| {
                    (
                        b.clone(),
                        serde_json::json!({"broker_assignment": "shared", "is_controlled": false, "is_active": true}),
                    )
                })
                .collect();
            (200, serde_json::Value::Object(owned).to_string())
        }
        ("POST", p) if p.starts_with(SHEDDING) && st.fail_restore && !p.ends_with("/false") => {
            (500, r#"{"reason":"injected failure"}"#.to_string())
        }
        ("DELETE", SHEDDING) if st.fail_restore => {
            (500, r#"{"reason":"injected failure"}"#.to_string())
        }
        ("POST", p) if p.starts_with(SHEDDING) => {
            st.shedding = p.rsplit('/').next().map(str::to_string);
            (204, String::new())
        }
        ("DELETE", SHEDDING) => {
            st.shedding = None;
            (204, String::new())
        }
        ("PUT", p) => {
            if st.fail.as_ref().is_some_and(|f| path.contains(f.as_str())) {
                return (500, r#"{"reason":"injected failure"}"#.to_string());
            }
            let segs: Vec<&str> = p.split('/').collect();
            let bundle = format!("{}/{}/{}", segs[4], segs[5], segs[6]);
            if p.ends_with("/unload") {
                let dest = query
                    .strip_prefix("destinationBroker=")
                    .map(decode)
                    .unwrap_or_else(|| B3.to_string());
                let dest = if st.ignore_destination {
                    B3.to_string()
                } else {
                    dest
                };
                st.owners.insert(bundle, dest);
            } else if p.ends_with("/split") {
                let owner = st.owners.remove(&bundle).unwrap();
                let ns = format!("{}/{}", segs[4], segs[5]);
                st.owners
                    .insert(format!("{ns}/0x00000000_0x20000000"), owner.clone());
                st.owners
                    .insert(format!("{ns}/0x20000000_0x40000000"), owner);
            }
            let n = st.calls.iter().filter(|(m, _)| m != "GET").count();
            if let Some((after, b, to)) = st.drift_after.clone()
                && n == after
            {
                st.owners.insert(b, to);
            }
            (204, String::new())
        }
        _ => (404, r#"{"reason":"not found"}"#.to_string()),
    }
}

fn start(shedding: Option<&str>) -> Fake {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let mut st = State {
        shedding: shedding.map(str::to_string),
        version: "4.0.3".to_string(),
        ..State::default()
    };
    for (b, o) in [(SPLIT, B1), (MOVE_1, B1), (MOVE_2, B2)] {
        st.owners.insert(b.to_string(), o.to_string());
    }
    let state = Arc::new(Mutex::new(st));
    let stop = Arc::new(AtomicBool::new(false));
    let (state2, stop2) = (state.clone(), stop.clone());
    thread::spawn(move || {
        let started = Instant::now();
        while !stop2.load(Ordering::Relaxed) && started.elapsed() < Duration::from_secs(120) {
            match listener.accept() {
                Ok((stream, _)) => {
                    let state = state2.clone();
                    thread::spawn(move || handle(stream, &state));
                }
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    Fake { url, state, stop }
}

fn handle(mut stream: TcpStream, state: &Mutex<State>) {
    stream.set_nonblocking(false).ok();
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
    let Some((method, path, _)) = http_head::read_request(&mut stream) else {
        return;
    };
    let (status, body) = answer(state, &method, &path);
    let resp = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(resp.as_bytes()).ok();
    stream.flush().ok();
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// A plan of a snapshot captured a minute ago, judged better, made as Pulsar 4.0.3 (the fake
/// broker runs 4.0.3): the safety policy lets it through.
fn work_dir(tag: &str) -> PathBuf {
    work_dir_with(tag, |_| {})
}

fn work_dir_with(tag: &str, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lbplan-apply-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let mut plan = serde_json::json!({
        "format_version": 5,
        "snapshot_fingerprint": "fp-apply",
        "cluster": "test",
        "snapshot_captured_at_ms": now_ms() - 60_000,
        "profile": "4.0.3",
        "verdict": {"outcome": "better",
                    "headline": "Better: max 79.2% → 60.2%, max/mean 2.27 → 1.73, std 17.1% → 11.6%"},
        "brokers_before": [
            {"broker": B1, "weighted_max_usage_fraction": 0.792},
            {"broker": B2, "weighted_max_usage_fraction": 0.41},
            {"broker": B3, "weighted_max_usage_fraction": 0.12}
        ],
        "brokers_after": [
            {"broker": B1, "weighted_max_usage_fraction": 0.602},
            {"broker": B2, "weighted_max_usage_fraction": 0.48},
            {"broker": B3, "weighted_max_usage_fraction": 0.25}
        ],
        "splits": [{"bundle": SPLIT, "broker": B1, "algorithm": "range_equally_divide",
                    "boundaries": [], "new_bundles": [], "reason": "too many topics"}],
        "unloads": [
            {"bundle": MOVE_1, "from": B1, "to": B2, "pass_destination": true,
             "reason": {"kind": "threshold_shedder"}, "origin": "shedding"},
            {"bundle": MOVE_2, "from": B2, "to": B3, "pass_destination": true,
             "reason": "manual", "origin": "manual"}
        ],
        "topic_unloads": []
    });
    edit(&mut plan);
    std::fs::write(d.join("plan.json"), plan.to_string()).unwrap();
    d
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn lbplan(dir: &Path, fake: &Fake, extra: &[&str]) -> Ran {
    let mut args = vec![
        "apply".to_string(),
        dir.join("plan.json").display().to_string(),
        "--admin-url".to_string(),
        fake.url.clone(),
        "--wait".to_string(),
        "0s".to_string(),
        "--journal".to_string(),
        dir.join("journal.json").display().to_string(),
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

fn journal(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("journal.json")).unwrap()).unwrap()
}

fn statuses(j: &serde_json::Value) -> Vec<String> {
    j["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap().to_string())
        .collect()
}

fn puts(calls: &[(String, String)]) -> Vec<&str> {
    calls
        .iter()
        .filter(|(m, _)| m == "PUT")
        .map(|(_, p)| p.as_str())
        .collect()
}

#[test]
fn a_dry_run_lists_every_call_and_changes_nothing() {
    let dir = work_dir("dry");
    let fake = start(None);
    let ran = lbplan(&dir, &fake, &["--batch", "2", "--pause-shedding"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    for call in [SPLIT_CALL, MOVE_1_CALL, MOVE_2_CALL] {
        assert!(
            ran.stdout.contains(&format!("PUT {call}")),
            "{}",
            ran.stdout
        );
    }
    assert!(ran.stdout.contains(&format!("POST {SHEDDING}/false")));
    assert!(ran.stdout.contains("batch 2:"), "{}", ran.stdout);
    assert!(
        ran.stderr.contains("dry run: no bundle drifted"),
        "{}",
        ran.stderr
    );
    assert_eq!(fake.mutating(), Vec::<(String, String)>::new());
    assert!(!dir.join("journal.json").exists());
}

#[test]
fn drift_refuses_the_run_before_any_call() {
    let dir = work_dir("drift");
    let fake = start(None);
    // Pulsar moved MOVE_1 to b3 after the snapshot.
    fake.state
        .lock()
        .unwrap()
        .owners
        .insert(MOVE_1.to_string(), B3.to_string());
    let ran = lbplan(&dir, &fake, &["--execute", "--pause-shedding"]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stderr.contains(
            "drifted: public/default/0x80000000_0xc0000000: the plan expects it on b1:8080, it is on b3:8080"
        ),
        "{}",
        ran.stderr
    );
    assert_eq!(fake.mutating(), Vec::<(String, String)>::new());
    assert_eq!(
        statuses(&journal(&dir)),
        vec!["pending", "drifted", "pending"]
    );
}

#[test]
fn a_failure_stops_the_run_restores_shedding_and_resume_then_rollback_finish_it() {
    let dir = work_dir("fail");
    let fake = start(Some("true"));
    fake.state.lock().unwrap().fail = Some("tenant/ns".to_string());
    let ran = lbplan(&dir, &fake, &["--execute", "--pause-shedding"]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(ran.stderr.contains("injected failure"), "{}", ran.stderr);
    let m = fake.mutating();
    assert_eq!(
        m.iter()
            .map(|(a, b)| format!("{a} {b}"))
            .collect::<Vec<_>>(),
        vec![
            format!("POST {SHEDDING}/false"),
            format!("PUT {SPLIT_CALL}"),
            format!("PUT {MOVE_1_CALL}"),
            format!("PUT {MOVE_2_CALL}"),
            format!("POST {SHEDDING}/true"),
        ],
        "the failed call is the last one sent, then the previous value is restored"
    );
    assert_eq!(fake.state.lock().unwrap().shedding.as_deref(), Some("true"));
    let j = journal(&dir);
    assert_eq!(statuses(&j), vec!["done", "done", "failed"]);
    assert_eq!(j["shedding_before"], serde_json::json!({"override": true}));
    assert_eq!(j["shedding_restored"], true);
    assert_eq!(j["steps"][1]["outcome"]["outcome"], "honoured");
    assert_eq!(fake.owner(MOVE_1).as_deref(), Some(B2));

    // Resume: only the failed step is sent again.
    fake.state.lock().unwrap().fail = None;
    let before = fake.mutating().len();
    let jpath = dir.join("journal.json").display().to_string();
    let ran = lbplan(&dir, &fake, &["--execute", "--resume", &jpath]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let m = fake.mutating();
    assert_eq!(puts(&m[before..]), vec![MOVE_2_CALL]);
    assert_eq!(statuses(&journal(&dir)), vec!["done", "done", "done"]);
    assert_eq!(fake.owner(MOVE_2).as_deref(), Some(B3));

    // Rollback: the two moves go back, last first, each to its source; the split stays.
    let before = fake.mutating().len();
    let ran = lbplan(&dir, &fake, &["--execute", "--rollback", &jpath]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.stdout.contains("stays split"), "{}", ran.stdout);
    let m = fake.mutating();
    assert_eq!(
        puts(&m[before..]),
        vec![
            "/admin/v2/namespaces/tenant/ns/0x40000000_0x80000000/unload?destinationBroker=b2%3A8080",
            "/admin/v2/namespaces/public/default/0x80000000_0xc0000000/unload?destinationBroker=b1%3A8080",
        ]
    );
    assert_eq!(fake.owner(MOVE_1).as_deref(), Some(B1));
    assert_eq!(fake.owner(MOVE_2).as_deref(), Some(B2));
    assert_eq!(
        statuses(&journal(&dir)),
        vec!["done", "rolled_back", "rolled_back"]
    );
}

#[test]
fn a_pause_without_a_previous_override_deletes_it_after_a_failure() {
    let dir = work_dir("unset");
    let fake = start(None);
    fake.state.lock().unwrap().fail = Some("/split".to_string());
    let ran = lbplan(&dir, &fake, &["--execute", "--pause-shedding"]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let m = fake.mutating();
    assert_eq!(
        m.last().unwrap(),
        &("DELETE".to_string(), SHEDDING.to_string())
    );
    assert_eq!(fake.state.lock().unwrap().shedding, None);
    assert_eq!(
        statuses(&journal(&dir)),
        vec!["failed", "pending", "pending"]
    );
}

#[test]
fn a_destination_not_honoured_or_a_bundle_moved_mid_run_stops_it() {
    let dir = work_dir("verify");
    let fake = start(None);
    fake.state.lock().unwrap().ignore_destination = true;
    let ran = lbplan(&dir, &fake, &["--execute"]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stderr.contains(
            "public/default/0x80000000_0xc0000000: now on b3:8080, NOT on the destination b2:8080"
        ),
        "{}",
        ran.stderr
    );
    assert_eq!(puts(&fake.mutating()), vec![SPLIT_CALL, MOVE_1_CALL]);
    assert_eq!(statuses(&journal(&dir)), vec!["done", "failed", "pending"]);

    // Behind the plan's back: after the split, MOVE_2 goes to b1; the next batch refuses.
    let dir = work_dir("middrift");
    let fake = start(None);
    fake.state.lock().unwrap().drift_after = Some((1, MOVE_2.to_string(), B1.to_string()));
    let ran = lbplan(&dir, &fake, &["--execute", "--batch", "2"]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("drifted: tenant/ns/0x40000000_0x80000000"),
        "{}",
        ran.stderr
    );
    assert_eq!(puts(&fake.mutating()), vec![SPLIT_CALL, MOVE_1_CALL]);
    assert_eq!(statuses(&journal(&dir)), vec!["done", "done", "drifted"]);
}

#[test]
fn ctrl_c_restores_shedding_and_a_resume_counts_what_was_already_applied() {
    let dir = work_dir("sigint");
    let fake = start(None);
    let child = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args([
            "apply",
            &dir.join("plan.json").display().to_string(),
            "--admin-url",
            &fake.url,
            "--wait",
            "60s",
            "--journal",
            &dir.join("journal.json").display().to_string(),
            "--execute",
            "--pause-shedding",
        ])
        .env_remove("PULSAR_AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the first call was sent (the run is then in its 60 s wait), then Ctrl-C.
    let started = Instant::now();
    while puts(&fake.mutating()).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no call was sent"
        );
        thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let m = fake.mutating();
    assert_eq!(
        m.last().unwrap(),
        &("DELETE".to_string(), SHEDDING.to_string()),
        "no override before the run: the override is deleted"
    );
    assert_eq!(puts(&m), vec![SPLIT_CALL]);
    let j = journal(&dir);
    assert_eq!(statuses(&j), vec!["pending", "pending", "pending"]);
    assert_eq!(j["steps"][0]["message"], "sent, not verified (interrupted)");
    assert_eq!(j["shedding_restored"], true);

    // The split went through: a resume counts it as done instead of calling it drifted.
    let jpath = dir.join("journal.json").display().to_string();
    let before = fake.mutating().len();
    let ran = lbplan(&dir, &fake, &["--execute", "--resume", &jpath]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("step 1 already applied"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        puts(&fake.mutating()[before..]),
        vec![MOVE_1_CALL, MOVE_2_CALL]
    );
    assert_eq!(statuses(&journal(&dir)), vec!["done", "done", "done"]);
}

fn shedding(fake: &Fake) -> Option<String> {
    fake.state.lock().unwrap().shedding.clone()
}

/// Starts `apply --execute --pause-shedding` with a 60 s wait, waits until its first call was
/// sent (the run is then in its wait), sends `signal` (`KILL` for `kill -9`) and returns the exit
/// code and stderr.
fn interrupted_run(dir: &Path, fake: &Fake, signal: &str) -> (Option<i32>, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args([
            "apply",
            &dir.join("plan.json").display().to_string(),
            "--admin-url",
            &fake.url,
            "--wait",
            "60s",
            "--journal",
            &dir.join("journal.json").display().to_string(),
            "--execute",
            "--pause-shedding",
        ])
        .env_remove("PULSAR_AUTH_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while puts(&fake.mutating()).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no call was sent"
        );
        thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn every_signal_puts_shedding_back_before_exiting() {
    for signal in ["HUP", "QUIT", "TERM", "INT"] {
        let dir = work_dir(&format!("signal-{signal}"));
        let fake = start(Some("true"));
        let (code, stderr) = interrupted_run(&dir, &fake, signal);
        assert_eq!(code, Some(1), "SIG{signal}: {stderr}");
        assert!(stderr.contains("interrupted"), "SIG{signal}: {stderr}");
        assert_eq!(
            shedding(&fake).as_deref(),
            Some("true"),
            "SIG{signal} must leave shedding as it was"
        );
        let j = journal(&dir);
        assert_eq!(j["shedding_before"], serde_json::json!({"override": true}));
        assert_eq!(j["shedding_restored"], true, "SIG{signal}");
        assert_eq!(
            fake.mutating().last().unwrap(),
            &("POST".to_string(), format!("{SHEDDING}/true"))
        );
    }
}

#[test]
fn after_kill_9_a_resume_with_or_without_pause_shedding_or_a_rollback_puts_shedding_back() {
    for (tag, then) in [
        ("kill9-resume-pause", &["--resume", "--pause-shedding"][..]),
        ("kill9-resume", &["--resume"][..]),
        ("kill9-rollback", &["--rollback"][..]),
    ] {
        let dir = work_dir(tag);
        let fake = start(Some("true"));
        let (code, _) = interrupted_run(&dir, &fake, "KILL");
        assert_eq!(code, None, "{tag}: killed by the signal");
        // kill -9 leaves our pause behind; the journal knows what was there before it.
        assert_eq!(shedding(&fake).as_deref(), Some("false"));
        let j = journal(&dir);
        assert_eq!(j["shedding_before"], serde_json::json!({"override": true}));
        assert_eq!(j["shedding_restored"], false);

        let jpath = dir.join("journal.json").display().to_string();
        let mut args = vec!["--execute", then[0], &jpath];
        args.extend(&then[1..]);
        let ran = lbplan(&dir, &fake, &args);
        assert_eq!(ran.code, Some(0), "{tag}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("left paused by an earlier run"),
            "{tag}: {}",
            ran.stderr
        );
        assert_eq!(
            shedding(&fake).as_deref(),
            Some("true"),
            "{tag}: shedding ends as it began"
        );
        let j = journal(&dir);
        assert_eq!(
            j["shedding_before"],
            serde_json::json!({"override": true}),
            "{tag}: written once, never replaced by the paused value"
        );
        assert_eq!(j["shedding_restored"], true, "{tag}");
    }
}

#[test]
fn a_failed_restore_says_so_with_the_commands_and_the_next_run_restores() {
    let dir = work_dir("restore-fails");
    let fake = start(Some("true"));
    fake.state.lock().unwrap().fail_restore = true;
    let ran = lbplan(&dir, &fake, &["--execute", "--pause-shedding"]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("AUTOMATIC SHEDDING IS STILL PAUSED"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(
            "pulsar-admin brokers update-dynamic-config --config loadBalancerSheddingEnabled --value true"
        ),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains(&format!("curl -X POST '{}{SHEDDING}/true'", fake.url)),
        "{}",
        ran.stderr
    );
    assert_eq!(shedding(&fake).as_deref(), Some("false"));
    let j = journal(&dir);
    assert_eq!(statuses(&j), vec!["done", "done", "done"]);
    assert_eq!(j["shedding_restored"], false);

    // Every step is done; the resume has only the pause to undo, and does.
    fake.state.lock().unwrap().fail_restore = false;
    let jpath = dir.join("journal.json").display().to_string();
    let ran = lbplan(&dir, &fake, &["--execute", "--resume", &jpath]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(shedding(&fake).as_deref(), Some("true"));
    assert_eq!(journal(&dir)["shedding_restored"], true);
}

#[test]
fn a_journal_edited_to_name_other_bundles_or_sources_is_refused() {
    let dir = work_dir("edited");
    let fake = start(None);
    let ran = lbplan(&dir, &fake, &["--execute"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let jpath = dir.join("journal.json");
    let good = std::fs::read_to_string(&jpath).unwrap();
    let cases = [
        (
            "bundle",
            1,
            serde_json::json!("victim/ns/0x00000000_0xffffffff"),
            "$.steps[1].bundle: the journal says `victim/ns/0x00000000_0xffffffff`, the plan `public/default/0x80000000_0xc0000000`",
        ),
        (
            "from",
            2,
            serde_json::json!(B1),
            "$.steps[2].from: the journal says `b1:8080`, the plan `b2:8080`",
        ),
    ];
    for (field, index, value, message) in cases {
        let mut j: serde_json::Value = serde_json::from_str(&good).unwrap();
        j["steps"][index][field] = value;
        std::fs::write(&jpath, j.to_string()).unwrap();
        let before = fake.mutating().len();
        for mode in ["--rollback", "--resume"] {
            let ran = lbplan(
                &dir,
                &fake,
                &["--execute", mode, &jpath.display().to_string()],
            );
            assert_eq!(ran.code, Some(2), "{mode} {field}: {}", ran.stderr);
            assert!(ran.stderr.contains(message), "{mode}: {}", ran.stderr);
            assert!(
                ran.stderr.contains("not a journal of this plan"),
                "{}",
                ran.stderr
            );
        }
        assert_eq!(fake.mutating().len(), before, "nothing was sent");
    }
    assert_eq!(fake.owner("victim/ns/0x00000000_0xffffffff"), None);
}

#[cfg(unix)]
#[test]
fn a_symlink_planted_at_the_journal_path_is_not_followed() {
    let dir = work_dir("symlink");
    let fake = start(None);
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "keep me\n").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("journal.json")).unwrap();
    let ran = lbplan(&dir, &fake, &["--execute"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    let meta = std::fs::symlink_metadata(dir.join("journal.json")).unwrap();
    assert!(
        meta.file_type().is_file(),
        "the link was replaced, not followed"
    );
    assert_eq!(statuses(&journal(&dir)), vec!["done", "done", "done"]);
}

/// The issue's plan: every unload converges on one small broker, judged worse.
fn make_worse(plan: &mut serde_json::Value) {
    plan["verdict"] = serde_json::json!({
        "outcome": "worse",
        "headline": "Worse: max 99.6% → 1032.0%, max/mean 1.31 → 6.45, std 14.0% → 250.1%"
    });
    plan["brokers_after"][2]["weighted_max_usage_fraction"] = serde_json::json!(10.32);
}

#[test]
fn a_worse_plan_is_refused_without_i_know_and_the_verdict_comes_first() {
    let dir = work_dir_with("worse", make_worse);
    let fake = start(Some("true"));
    // The dry run: the verdict first, then the context, the hazard, and that --execute refuses.
    let ran = lbplan(&dir, &fake, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let first = ran.stdout.lines().next().unwrap();
    assert_eq!(
        first,
        "Verdict: worse — Worse: max 99.6% → 1032.0%, max/mean 1.31 → 6.45, std 14.0% → 250.1%"
    );
    assert!(ran.stdout.contains("Cluster: test\n"), "{}", ran.stdout);
    assert!(ran.stdout.contains("Profile: 4.0.3\n"), "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("HAZARD: the plan is judged WORSE: Worse: max 99.6% → 1032.0%"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("(worst broker after it: b3:8080 at 1032.0%)"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stderr
            .contains("dry run: --execute would refuse without --i-know"),
        "{}",
        ran.stderr
    );

    let ran = lbplan(&dir, &fake, &["--execute", "--pause-shedding"]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("refused without an acknowledgement:"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("Acknowledge with --i-know"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        fake.mutating(),
        Vec::<(String, String)>::new(),
        "nothing sent"
    );
    let j = journal(&dir);
    assert_eq!(j["format_version"], 2);
    assert_eq!(j["safety"]["acknowledged"], false);
    assert_eq!(j["safety"]["hazards"][0]["hazard"], "worse");
    assert_eq!(statuses(&j), vec!["pending", "pending", "pending"]);

    let ran = lbplan(&dir, &fake, &["--execute", "--i-know"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.stdout
            .contains("Acknowledged with --i-know: the run goes ahead; the journal records it."),
        "{}",
        ran.stdout
    );
    let j = journal(&dir);
    assert_eq!(j["safety"]["acknowledged"], true);
    assert_eq!(j["safety"]["context"]["verdict"], "worse");
    assert_eq!(j["safety"]["context"]["worst_broker"], B3);
    assert_eq!(statuses(&j), vec!["done", "done", "done"]);
}

#[test]
fn a_stale_or_future_snapshot_or_another_profile_is_refused_naming_what_differs() {
    let three_days = 3 * 86_400_000;
    let cases: [(&str, i64, &str, &str); 3] = [
        (
            "stale",
            -three_days,
            "4.0.3",
            "old, over the limit of 15 min (--max-age)",
        ),
        (
            "future",
            3_600_000,
            "4.0.3",
            "after this machine's clock: one of the clocks is wrong",
        ),
        (
            "profile",
            -60_000,
            "3.0.2",
            "the plan was made with the 4.0.3 profile, the cluster's version is 3.0.2",
        ),
    ];
    for (tag, offset, version, message) in cases {
        let dir = work_dir_with(tag, |p| {
            p["snapshot_captured_at_ms"] = serde_json::json!(now_ms() + offset);
        });
        let fake = start(None);
        fake.state.lock().unwrap().version = version.to_string();
        let ran = lbplan(&dir, &fake, &["--execute"]);
        assert_eq!(ran.code, Some(1), "{tag}: {}", ran.stderr);
        assert!(ran.stderr.contains(message), "{tag}: {}", ran.stderr);
        assert_eq!(fake.mutating(), Vec::<(String, String)>::new(), "{tag}");
        let ran = lbplan(&dir, &fake, &["--execute", "--i-know"]);
        assert_eq!(ran.code, Some(0), "{tag}: {}", ran.stderr);
        assert_eq!(puts(&fake.mutating()).len(), 3, "{tag}");
    }
    // A longer --max-age accepts the three-day-old plan without --i-know.
    let dir = work_dir_with("max-age", |p| {
        p["snapshot_captured_at_ms"] = serde_json::json!(now_ms() - three_days);
    });
    let fake = start(None);
    let ran = lbplan(&dir, &fake, &["--execute", "--max-age", "4d"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    // A plan without a capture time (format 4 and older) has an unknown age.
    let dir = work_dir_with("no-time", |p| {
        p.as_object_mut().unwrap().remove("snapshot_captured_at_ms");
    });
    let ran = lbplan(&dir, &fake, &["--execute"]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("does not say when its snapshot was captured"),
        "{}",
        ran.stderr
    );
}
