//! `lbplan apply` against a local fake admin server that keeps who owns which bundle, answers the
//! admin REST calls at Pulsar's paths (reference §10; `ownedNamespaces`, the dynamic
//! configuration), records every call, fails the calls a test names and can move a bundle behind
//! the plan's back. Checks: a dry run sends nothing that changes the cluster; drift refuses the run;
//! a failure stops it and the journal says so; resume continues; rollback moves the bundles back;
//! a paused shedding setting is restored after a failure; a destination not honoured stops the run.

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

fn work_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lbplan-apply-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let plan = serde_json::json!({
        "format_version": 2,
        "snapshot_fingerprint": "fp-apply",
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
