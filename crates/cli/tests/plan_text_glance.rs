//! `lbplan plan` text reads at a glance: the plan in one line first, moves grouped
//! by the broker they leave with the same figure as their reason, short strategy names, splits counted
//! with the first few per namespace (all with `--verbose`), no long decimals.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lbplan(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const DEMO: &str = "static/demo-snapshot.json";
/// The demo with automatic splitting on and a message-rate limit most bundles exceed.
const SPLITTING: [&str; 6] = [
    "plan",
    DEMO,
    "--set",
    "loadBalancerAutoBundleSplitEnabled=true",
    "--set",
    "loadBalancerNamespaceBundleMaxMsgRate=100",
];

/// Each move's line with its reason, the reason's wrapped lines (8 spaces in) read as one.
fn moves_with_reasons(text: &str) -> Vec<(&str, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        if !line.starts_with("    ") || line.starts_with("        ") || !line.contains(" -> ") {
            continue;
        }
        let reason = lines[k + 1..]
            .iter()
            .take_while(|l| l.starts_with("        "))
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ");
        out.push((*line, reason));
    }
    out
}

/// The number before " MiB/s" at the end of `text` up to `end`.
fn mib_before(text: &str) -> f64 {
    let head = text.trim_end().strip_suffix("MiB/s").unwrap().trim_end();
    head.rsplit([' ', '(']).next().unwrap().parse().unwrap()
}

#[test]
fn the_plan_in_one_line_comes_first() {
    let text = lbplan(&["plan", DEMO]);
    let first = text.lines().next().unwrap();
    // The demo: three bundles leave broker-04 for broker-10 and broker-00; the busiest
    // broker goes from 79% (broker-04, 79.2%) to 60% (broker-05, 60.2%, which sheds nothing).
    assert!(first.starts_with("3 moves, "), "{first}");
    assert!(
        first.ends_with(" MiB/s: broker-04 → broker-10, broker-00; max 79% → 60%"),
        "{first}"
    );
    // The total is the sum of the figures the reasons give.
    let carried: f64 = moves_with_reasons(&text)
        .iter()
        .filter_map(|(_, r)| r.split("bundle carries ").nth(1))
        .map(|rest| mib_before(rest.split(';').next().unwrap()))
        .sum();
    let total = mib_before(first.split(':').next().unwrap());
    assert!((total - carried).abs() < 0.15, "{total} vs {carried}");
}

#[test]
fn moves_are_grouped_by_source_and_quote_their_reason_figure() {
    let text = lbplan(&["plan", DEMO]);
    assert!(
        text.contains("Shedding: ThresholdShedder   Placement: LeastLongTermMessageRate\n"),
        "{text}"
    );
    assert!(text.contains("\n  from broker-04 (3, "), "{text}");
    let mut checked = 0;
    for (line, reason) in moves_with_reasons(&text) {
        let figure = line.split("  (").nth(1).unwrap().split(',').next().unwrap();
        assert!(
            reason.contains(&format!("bundle carries {figure}")),
            "{line}\n{reason}"
        );
        checked += 1;
    }
    assert_eq!(checked, 3);
}

#[test]
fn figures_have_sensible_precision() {
    let text = lbplan(&["plan", DEMO]);
    // The issue: "13,209 msg/s, not 13209.3467"; LeastLongTermMessageRate's score of broker-00.
    assert!(
        text.contains("least long-term message rate 19,191 msg/s"),
        "{text}"
    );
    let long_decimal = text
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .any(|w| {
            w.split_once('.')
                .is_some_and(|(_, frac)| frac.len() > 2 && frac.chars().all(|c| c.is_ascii_digit()))
        });
    assert!(!long_decimal, "{text}");
}

#[test]
fn splits_are_counted_and_the_first_few_per_namespace_shown() {
    let json = lbplan(&[SPLITTING.as_slice(), &["--format", "json"]].concat());
    let plan: serde_json::Value = serde_json::from_str(&json).unwrap();
    let splits = plan["splits"].as_array().unwrap();
    assert!(
        splits.len() > 20,
        "the demo splits many bundles at 100 msg/s"
    );
    let text = lbplan(&SPLITTING);
    let listed = |t: &str| t.lines().filter(|l| l.ends_with("[PERMANENT]")).count();
    assert!(
        text.contains(&format!("Splits ({}):", splits.len())),
        "{text}"
    );
    let namespaces: std::collections::BTreeSet<&str> = splits
        .iter()
        .map(|s| s["bundle"].as_str().unwrap().rsplit_once('/').unwrap().0)
        .collect();
    assert_eq!(
        listed(&text),
        namespaces
            .iter()
            .map(|ns| splits
                .iter()
                .filter(|s| s["bundle"].as_str().unwrap().starts_with(&format!("{ns}/")))
                .count()
                .min(3))
            .sum::<usize>()
    );
    assert!(
        text.contains("--verbose or --format json lists them all"),
        "{text}"
    );
    let verbose = lbplan(&[SPLITTING.as_slice(), &["--verbose"]].concat());
    assert_eq!(listed(&verbose), splits.len());
    assert!(!verbose.contains("lists them all"), "{verbose}");
}
