//! `lbplan verify PLAN --snapshot AFTER`: the demo plan against a snapshot in
//! which only its first move happened; the text report names each bundle and broker, the JSON
//! report is core's `Verification`, the exit status says "not as predicted", and `-o` never
//! follows a symlink planted at its path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lbplan-verify-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .unwrap()
}

/// The demo snapshot, its plan, and the snapshot after with only the first unload done.
fn setup(dir: &Path) -> (PathBuf, PathBuf, serde_json::Value) {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let snap = dir.join("before.json");
    std::fs::write(&snap, lbplan_core::synthetic::to_json(&demo).unwrap()).unwrap();
    let plan_path = dir.join("plan.json");
    let out = lbplan(&[
        "plan",
        snap.to_str().unwrap(),
        "--format",
        "json",
        "-o",
        plan_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan_path).unwrap()).unwrap();
    let first = &plan["unloads"][0];
    let (bundle, from, to) = (
        first["bundle"].as_str().unwrap(),
        first["from"].as_str().unwrap(),
        first["to"].as_str().unwrap(),
    );
    let mut after = demo.clone();
    after.captured_at_ms = demo.captured_at_ms.map(|t| t + 600_000);
    // The bundle and its last reported stats go from the source's report to the destination's.
    let source = &mut after.brokers.get_mut(from).unwrap().local_broker_data;
    source.bundles.retain(|b| b != bundle);
    let stats = source.last_stats.shift_remove(bundle);
    let dest = &mut after.brokers.get_mut(to).unwrap().local_broker_data;
    dest.bundles.push(bundle.to_string());
    if let Some(stats) = stats {
        dest.last_stats.insert(bundle.to_string(), stats);
    }
    let after_path = dir.join("after.json");
    std::fs::write(
        &after_path,
        lbplan_core::synthetic::to_json(&after).unwrap(),
    )
    .unwrap();
    (plan_path, after_path, plan)
}

#[test]
fn a_partly_applied_plan_is_reported_bundle_by_bundle() {
    let dir = scratch("text");
    let (plan_path, after_path, plan) = setup(&dir);
    let out = lbplan(&[
        "verify",
        plan_path.to_str().unwrap(),
        "--snapshot",
        after_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let unloads = plan["unloads"].as_array().unwrap().len();
    assert!(
        text.starts_with(&format!(
            "lbplan verify: NOT AS PREDICTED: 1 of {unloads} bundle(s) where predicted"
        )),
        "{text}"
    );
    let first = &plan["unloads"][0];
    assert!(
        text.contains(&format!(
            "ok   {} {} → {}: now on {} — as predicted",
            first["bundle"].as_str().unwrap(),
            first["from"].as_str().unwrap(),
            first["to"].as_str().unwrap(),
            first["to"].as_str().unwrap()
        )),
        "{text}"
    );
    assert!(text.contains("ON ITS SOURCE AGAIN"), "{text}");
    assert!(text.contains("Cluster: demo"), "{text}");

    let out = lbplan(&[
        "verify",
        plan_path.to_str().unwrap(),
        "--snapshot",
        after_path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format_version"], 2);
    // The brokers' reports did not change since the plan's snapshot: the brokers the plan moved
    // load to or from have not reported since the apply, and are not compared.
    assert!(v["not_yet_reported"].as_u64().unwrap() >= 2);
    assert_eq!(v["complete"], false);
    assert!(text.contains("not yet reported since the apply"), "{text}");
    assert_eq!(v["as_predicted"], false);
    assert_eq!(v["bundles"][0]["status"], "as_predicted");
    assert_eq!(v["moved_back"], unloads - 1);
    assert_eq!(v["tolerance_fraction"], 0.05);
}

#[cfg(unix)]
#[test]
fn the_report_file_never_follows_a_planted_symlink() {
    let dir = scratch("symlink");
    let (plan_path, after_path, _) = setup(&dir);
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "keep me\n").unwrap();
    let report = dir.join("report.txt");
    std::os::unix::fs::symlink(&victim, &report).unwrap();
    let out = lbplan(&[
        "verify",
        plan_path.to_str().unwrap(),
        "--snapshot",
        after_path.to_str().unwrap(),
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    assert!(
        std::fs::read_to_string(&report)
            .unwrap()
            .starts_with("lbplan verify: NOT AS PREDICTED")
    );
}
