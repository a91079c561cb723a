//! `lbplan plan` on the demo snapshot: golden output in every format (regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p lbplan --test plan_cli` and review the diff), byte-identical JSON for
//! the same inputs, and exit 2 with a message for bad arguments.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lbplan(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

fn check_golden(name: &str, args: &[&str]) {
    let out = lbplan(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &out.stdout).unwrap();
        return;
    }
    let want = std::fs::read(&golden).unwrap_or_default();
    assert!(
        out.stdout == want,
        "{name} differs from the golden file; if the change is intended, run UPDATE_GOLDEN=1 and review:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

const DEMO: &str = "static/demo-snapshot.json";

#[test]
fn demo_plan_text() {
    check_golden("demo-plan.txt", &["plan", DEMO]);
}

#[test]
fn demo_plan_json() {
    check_golden("demo-plan.json", &["plan", DEMO, "--format", "json"]);
}

#[test]
fn demo_plan_pulsar_admin_script() {
    check_golden(
        "demo-plan.pulsar-admin.sh",
        &["plan", DEMO, "--format", "pulsar-admin", "--pause-shedding"],
    );
}

#[test]
fn demo_plan_curl_script() {
    check_golden("demo-plan.curl.sh", &["plan", DEMO, "--format", "curl"]);
}

#[test]
fn same_inputs_give_byte_identical_json() {
    let args = [
        "plan",
        DEMO,
        "--format",
        "json",
        "--seed",
        "7",
        "--op",
        "remove-broker=broker-04.demo.svc:8080",
    ];
    let (a, b) = (lbplan(&args), lbplan(&args));
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let plan: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(plan["format_version"], 6);
    assert!(
        plan["snapshot_fingerprint"]
            .as_str()
            .unwrap()
            .starts_with("fnv1a64:")
    );
    // The removed broker's 25 bundles are all placed elsewhere.
    let moved = plan["unloads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["origin"] == "remove-broker")
        .count();
    assert_eq!(moved, 25);
}

#[test]
fn bad_arguments_exit_2() {
    for args in [
        vec!["plan", DEMO, "--profile", "banana"],
        vec!["plan", DEMO, "--set", "noequals"],
        vec!["plan", DEMO, "--op", "explode=now"],
        vec![
            "plan",
            DEMO,
            "--op",
            "unload-bundle=nope/ns/0x00000000_0x10000000",
        ],
        vec!["plan", "no-such-file.json"],
    ] {
        let out = lbplan(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn an_unknown_format_is_refused_listing_cores_formats() {
    let out = lbplan(&["plan", DEMO, "--format", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown export format `yaml` (expected pulsar-admin, curl or json), or text"),
        "{err}"
    );
}

#[test]
fn exported_scripts_are_valid_bash() {
    for format in ["pulsar-admin", "curl"] {
        let out = lbplan(&["plan", DEMO, "--format", format, "--pause-shedding"]);
        assert!(out.status.success());
        let path = std::env::temp_dir().join(format!("lbplan-{format}-{}.sh", std::process::id()));
        std::fs::write(&path, &out.stdout).unwrap();
        let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(
            check.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
}

/// The demo snapshot plus two isolation policies (`tests/fixtures/isolation-snapshot.json`):
/// `globex/clickstream` pinned to primary `broker-04\..*` (min_limit 1) and `acme/orders` to primaries
/// `broker-0[0-1]\..*` (secondary `broker-02\..*`, min_limit 1). Without policies the demo plan moves
/// two clickstream bundles and one orders bundle off broker-04 (golden `demo-plan.txt`).
#[test]
fn plan_honours_namespace_isolation_policies() {
    let out = lbplan(&["plan", "crates/cli/tests/fixtures/isolation-snapshot.json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // Clickstream's only allowed broker (host "broker-04.demo.svc" matches `broker-04\..*` whole)
    // is its owner: shouldNamespacePoliciesUnload is false, so both picks are skipped with the reason.
    for bundle in [
        "globex/clickstream/0xf0000000_0xf8000000",
        "globex/clickstream/0x98000000_0xa0000000",
    ] {
        // The entry's line and its wrapped continuation (indented deeper), read as one sentence.
        let mut lines = text
            .lines()
            .skip_while(|l| !l.trim_start().starts_with(bundle));
        let first = lines
            .next()
            .unwrap_or_else(|| panic!("{bundle} missing:\n{text}"));
        let entry = std::iter::once(first)
            .chain(lines.take_while(|l| l.starts_with("    ")))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            entry.contains("namespace isolation policies allow no other broker"),
            "{entry}"
        );
    }
    // Orders: 2 primaries (broker-00, broker-01) ≥ min_limit 1, no failover; broker-00 was already
    // LeastLongTermMessageRate's answer in the unconstrained demo plan, and it is allowed.
    assert!(
        text.contains(
            "  from broker-04 (1, 6.2 MiB/s):\n    acme/orders/0x00000000_0x10000000 -> broker-00  "
        ),
        "{text}"
    );
    assert!(
        text.starts_with("1 move, 6.2 MiB/s: broker-04 → broker-00;"),
        "{text}"
    );
    assert!(text.contains("Moves (1, 6.2 MiB/s):"), "{text}");
}

/// After a what-if, the difference from the baseline. On the demo, threshold 10 → 20
/// (`loadBalancerBrokerThresholdShedderPercentage`): broker-04 at 79.2 % is still ≥ 34.9 % + 20 %,
/// and with the extra margin the amount to shed drops from (0.792 − 0.349 − 0.1 + 0.05) to
/// (0.792 − 0.349 − 0.2 + 0.05) of its throughput, so the what-if moves fewer bundles.
#[test]
fn diff_baseline_after_a_what_if() {
    let out = lbplan(&[
        "plan",
        DEMO,
        "--set",
        "loadBalancerBrokerThresholdShedderPercentage=20",
        "--diff-baseline",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["format_version"], 1);
    assert_eq!(d["identical_decisions"], false);
    assert!(!d["moves_removed"].as_array().unwrap().is_empty(), "{d:#}");
    assert!(d["moves_added"].as_array().unwrap().is_empty(), "{d:#}");
    // Both plans start from the same cluster.
    assert_eq!(d["baseline"]["before"], d["what_if"]["before"]);

    let text = lbplan(&[
        "plan",
        DEMO,
        "--set",
        "loadBalancerBrokerThresholdShedderPercentage=20",
        "--diff-baseline",
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    // First the what-if judged against the baseline: one move fewer leaves broker-05
    // the busiest either way (60.2 %) and the usages less even (std up), so it is worse.
    assert!(
        text.starts_with(
            "Worse than the baseline: max 60.2% → 60.2%, max/mean 1.73 → 1.73, std 11.6% → "
        ),
        "{text}"
    );
    assert!(
        text.contains("\nAgainst the baseline: 0 move(s) added, "),
        "{text}"
    );
    assert!(text.contains("\nBaseline: max 79.2% → "), "{text}");

    let refused = lbplan(&["plan", DEMO, "--diff-baseline", "--format", "curl"]);
    assert_eq!(refused.status.code(), Some(2));
}
