//! `lbplan plan` on a plan that makes the cluster worse (issue 22, item 1; the apache/pulsar#16059
//! pattern: 8 unloads converge on a 1-core broker): the text starts with the warning, the JSON has the
//! `verdict`, the script export says so on stderr, and the script makes no `pulsar-admin` call
//! unless run with `--i-know` (run with bash and a fake `pulsar-admin` on PATH that records calls).
//! See: https://github.com/apache/pulsar/pull/16059

#[path = "../../core/tests/support/converging.rs"]
mod converging;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lbplan-verdict-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The converging snapshot as a file in `dir`.
fn converging_snapshot(dir: &Path) -> PathBuf {
    let path = dir.join("converging.json");
    let text = lbplan_core::synthetic::to_json(&converging::snapshot()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

const PLACEMENT: &str = "loadBalancerLoadPlacementStrategy=org.apache.pulsar.broker.loadbalance.impl.LeastLongTermMessageRate";
const SHEDDING: &str =
    "loadBalancerLoadSheddingStrategy=org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder";

fn lbplan(snapshot: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .current_dir(root())
        .arg("plan")
        .arg(snapshot)
        .args(["--set", SHEDDING, "--set", PLACEMENT])
        .args(extra)
        .output()
        .unwrap()
}

/// The text with its wrapped lines read as one (runs of spaces and line breaks as one space).
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn text_starts_with_the_warning() {
    let dir = scratch("text");
    let text = stdout(&lbplan(&converging_snapshot(&dir), &[]));
    assert!(text.starts_with("WORSE: "), "{text}");
    let head = flat(&text.lines().take(8).collect::<Vec<_>>().join("\n"));
    // The verdict names brokers short (the one port all share dropped); the JSON keeps the ids.
    assert!(head.contains("- tiny-1 ends at 102.9%"), "{head}");
    assert!(
        head.contains("8 of 8 unloads converge on tiny-1 "),
        "{head}"
    );
    assert!(
        head.contains(
            "setting loadBalancerLoadPlacementStrategy=LeastResourceUsageWithWeight avoids it"
        ),
        "{head}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_demo_plan_text_starts_with_the_plan_and_says_better() {
    let text = stdout(
        &Command::new(env!("CARGO_BIN_EXE_lbplan"))
            .current_dir(root())
            .args(["plan", "static/demo-snapshot.json"])
            .output()
            .unwrap(),
    );
    // No warning first: the plan in one line, then its header.
    assert!(text.starts_with("3 moves, "), "{text}");
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("Plan for snapshot")),
        "{text}"
    );
    // The demo cycle's balance, as the golden plan prints it.
    assert!(
        text.contains("Verdict: Better: max 79.2% → 60.2%, max/mean 2.27 → 1.73"),
        "{text}"
    );
}

#[test]
fn json_has_the_verdict() {
    let dir = scratch("json");
    let out = stdout(&lbplan(&converging_snapshot(&dir), &["--format", "json"]));
    let plan: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(plan["format_version"], 6);
    let v = &plan["verdict"];
    assert_eq!(v["outcome"], "worse");
    assert_eq!(v["overloaded"][0]["broker"], converging::TINY);
    assert_eq!(v["above_capacity"][0]["broker"], "tiny-1:8080");
    assert_eq!(v["patterns"][0]["kind"], "converging-destination");
    assert_eq!(v["patterns"][0]["destination"], "tiny-1:8080");
    assert_eq!(v["patterns"][0]["unloads"], 8);
    assert_eq!(
        v["alternatives"][0]["value"],
        "org.apache.pulsar.broker.loadbalance.impl.LeastResourceUsageWithWeight"
    );
    assert_eq!(v["alternatives"][0]["avoids_worse"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `pulsar-admin` that answers the scripts' owner check (`brokers namespaces`: every bundle the
/// script names is owned, in Pulsar 2.x/3.x's `key    value` form) and appends every other call's
/// arguments to `calls.log` in `dir`.
fn fake_pulsar_admin(dir: &Path, script: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let text = std::fs::read_to_string(script).unwrap();
    let owned: String = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("if still_owned '"))
        .filter_map(|rest| rest.split('\'').next())
        .map(|bundle| format!("{bundle}    NamespaceOwnershipStatus(broker_assignment=shared, is_controlled=false, is_active=true)\n"))
        .collect();
    std::fs::write(dir.join("owned.txt"), owned).unwrap();
    let fake = bin.join("pulsar-admin");
    std::fs::write(
        &fake,
        format!(
            "#!/usr/bin/env bash\nif [ \"$1 $2\" = 'brokers namespaces' ]; then cat '{}'; exit 0; fi\necho \"$*\" >> '{}'\n",
            dir.join("owned.txt").display(),
            dir.join("calls.log").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn run_script(dir: &Path, script: &Path, args: &[&str]) -> (Output, Vec<String>) {
    let bin = fake_pulsar_admin(dir, script);
    let log = dir.join("calls.log");
    let _ = std::fs::remove_file(&log);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(script)
        .args(args)
        .env("PATH", path)
        .env("PULSAR_CLUSTER", "pulsar-cluster")
        .env_remove("PULSAR_ADMIN")
        .output()
        .unwrap();
    let calls: Vec<String> = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    // An apply first reads the brokers' version (the profile check; the fake prints none, so the
    // check is skipped): only the calls after it are the plan's.
    let calls = match calls.split_first() {
        Some((first, rest)) if first == "brokers version" => rest.to_vec(),
        _ => calls,
    };
    (out, calls)
}

#[test]
fn the_script_refuses_to_apply_without_i_know() {
    let dir = scratch("script");
    let snapshot = converging_snapshot(&dir);
    let script = dir.join("plan.sh");
    let export = lbplan(
        &snapshot,
        &["--format", "pulsar-admin", "-o", script.to_str().unwrap()],
    );
    assert!(export.status.success());
    let stderr = String::from_utf8_lossy(&export.stderr);
    assert!(stderr.contains("lbplan: warning: WORSE"), "{stderr}");
    assert!(stderr.contains("--i-know"), "{stderr}");

    let (out, calls) = run_script(&dir, &script, &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(calls.is_empty(), "{calls:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to apply"));

    let (out, calls) = run_script(&dir, &script, &["--i-know"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(calls.len(), 8, "{calls:?}");
    assert!(
        calls
            .iter()
            .all(|c| c.starts_with("namespaces unload --bundle ")
                && c.ends_with("--destinationBroker tiny-1:8080 -- t/ns")),
        "{calls:?}"
    );

    // Rollback only moves bundles back: never refused.
    let (out, calls) = run_script(&dir, &script, &["rollback"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(calls.len(), 8, "{calls:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exported_with_i_know_the_script_applies_without_asking() {
    let dir = scratch("iknow");
    let snapshot = converging_snapshot(&dir);
    let script = dir.join("plan.sh");
    let export = lbplan(
        &snapshot,
        &[
            "--format",
            "pulsar-admin",
            "--i-know",
            "-o",
            script.to_str().unwrap(),
        ],
    );
    assert!(export.status.success());
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(text.contains("# WORSE: "), "{text}");
    // The verdict was acknowledged at export; the snapshot's age is still checked when the script
    // runs (this synthetic snapshot does not say when it was captured): only the age is named.
    let (out, calls) = run_script(&dir, &script, &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(calls.is_empty(), "{calls:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("HAZARD: the plan does not say when its snapshot was captured"),
        "{stderr}"
    );
    assert!(!stderr.contains("judged WORSE"), "{stderr}");
    let (out, calls) = run_script(&dir, &script, &["apply", "--i-know"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(calls.len(), 8, "{calls:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn curl_export_is_guarded_too() {
    let dir = scratch("curl");
    let snapshot = converging_snapshot(&dir);
    let script = dir.join("plan.sh");
    assert!(
        lbplan(
            &snapshot,
            &["--format", "curl", "-o", script.to_str().unwrap()]
        )
        .status
        .success()
    );
    let out = Command::new("bash")
        .arg(&script)
        .env("PULSAR_ADMIN_URL", "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to apply"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// On the demo cluster: the even-distribution filter removes 11 of 12 brokers; the
/// text names it and stays short, the JSON keeps every candidate's score.
#[test]
fn demo_reasons_name_the_filter_and_keep_lists_in_json() {
    let run = |extra: &[&str]| {
        stdout(
            &Command::new(env!("CARGO_BIN_EXE_lbplan"))
                .current_dir(root())
                .args(["plan", "static/demo-snapshot.json"])
                .args(extra)
                .output()
                .unwrap(),
        )
    };
    let text = flat(&run(&[]));
    assert!(
        text.contains("the even-distribution filter (loadBalancerDistributeBundlesEvenlyEnabled) left 1 of 12 brokers, so LeastLongTermMessageRate chose broker-10 "),
        "{text}"
    );
    assert!(!text.contains("scores:"), "{text}");
    // broker-05 is over average + threshold (60.2% ≥ 34.9% + 10%) and sheds nothing: why not.
    assert!(
        text.contains("ThresholdShedder sheds nothing from broker-05: usage 60.2% ≥ average 34.9% + threshold 10.0%, but "),
        "{text}"
    );
    assert!(
        text.contains("below loadBalancerBundleUnloadMinThroughputThreshold = 10 MiB/s"),
        "{text}"
    );
    let plan: serde_json::Value = serde_json::from_str(&run(&["--format", "json"])).unwrap();
    let first = &plan["unloads"][0];
    assert!(!first["reason_text"].as_str().unwrap().contains("scores:"));
    // The machine-readable reason names the deciding filter and the candidate count.
    assert_eq!(first["reason"]["kind"], "threshold_shedder");
    assert_eq!(first["reason"]["deciding_filter"], "distribute_evenly");
    assert_eq!(first["reason"]["candidates"], 1);
    let full = first["detail"]["placement"]["choice"]["reason"]
        .as_str()
        .unwrap();
    assert!(full.contains("scores: broker-10.demo.svc:8080="), "{full}");
    let stages = first["detail"]["placement"]["stages"].as_array().unwrap();
    assert!(
        stages
            .iter()
            .any(|s| s["stage"] == "after_distribute_evenly"
                && s["removed"].as_array().unwrap().len() == 11)
    );
}

/// The converging snapshot as the e2e test of "Propose a rebalance instead" loads it
/// (`tests/fixtures/converging-snapshot.json`): kept equal to the generator here, so the dashboard
/// test sees the same worse plan this file checks. `UPDATE_GOLDEN=1` rewrites it.
#[test]
fn the_e2e_fixture_is_the_converging_snapshot() {
    let path = root().join("tests/fixtures/converging-snapshot.json");
    let text = lbplan_core::synthetic::to_json(&converging::snapshot()).unwrap();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == text,
        "{} differs from the converging snapshot; run UPDATE_GOLDEN=1 cargo test -p lbplan --test plan_verdict",
        path.display()
    );
}
