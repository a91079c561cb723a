//! `--calibration FILE` on the commands that predict: a calibration holding the factors a cluster
//! really ran at makes the load model predict what that cluster did. The cluster here is the
//! simulator's, run noise-free with brokers at known CPU cost factors (broker-00 and broker-10 need
//! twice the CPU for the same work, broker-03 half), so "what it did" is known exactly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FACTORS: &str = r#"{"broker-10.demo.svc:8080": 2.0, "broker-00.demo.svc:8080": 2.0, "broker-03.demo.svc:8080": 0.5}"#;

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("runs lbplan")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lbplan-calib-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The calibration file `lbplan history --calibrate` writes, with the given factors.
fn calibration(dir: &Path) -> PathBuf {
    let path = dir.join("calibration.json");
    std::fs::write(
        &path,
        format!(r#"{{"format_version": 1, "cpu_cost_factors": {FACTORS}, "fits": [], "not_fitted": {{}}}}"#),
    )
    .unwrap();
    path
}

/// The CPU row of the history report's load-model check: (predictions, mean |error| in points).
fn cpu_error(series: &Path, extra: &[&str]) -> (u64, f64) {
    let mut args = vec!["history", series.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let v: serde_json::Value = serde_json::from_str(&ok(&lbplan(&args))).unwrap();
    let cpu = v["load_model"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"] == "cpu")
        .unwrap()
        .clone();
    (
        cpu["predictions"].as_u64().unwrap(),
        cpu["mean_abs_error_points"].as_f64().unwrap(),
    )
}

/// Recorded with the factors in the scenario, the series is predicted exactly by a calibration
/// holding them and off by points without it; recorded with the calibration given to `simulate`
/// instead, the same holds (the simulator ran the brokers at the calibration's speeds).
#[test]
fn the_right_factors_predict_what_the_cluster_did() {
    let dir = scratch("check");
    let cal = calibration(&dir);
    let cal = cal.to_str().unwrap();
    let with_factors = dir.join("scenario-factors.json");
    std::fs::write(
        &with_factors,
        format!(
            r#"{{"format_version": 1, "cycles": 12, "load": {{"noise_fraction": 0.0, "cpu_cost_factors": {FACTORS}}}}}"#
        ),
    )
    .unwrap();
    let plain = dir.join("scenario-plain.json");
    std::fs::write(
        &plain,
        r#"{"format_version": 1, "cycles": 12, "load": {"noise_fraction": 0.0}}"#,
    )
    .unwrap();
    let record = |scenario: &Path, series: &Path, extra: &[&str]| {
        let mut args = vec![
            "simulate",
            "builtin:demo",
            "--scenario",
            scenario.to_str().unwrap(),
            "--no-progress",
            "--record-series",
            series.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        ok(&lbplan(&args));
    };
    let a = dir.join("a");
    record(&with_factors, &a, &[]);
    let b = dir.join("b");
    record(&plain, &b, &["--calibration", cal]);
    for series in [&a, &b] {
        let (n, default_error) = cpu_error(series, &[]);
        let (m, calibrated_error) = cpu_error(series, &["--calibration", cal]);
        assert!(n > 0 && n == m, "{n} / {m} predictions");
        assert!(calibrated_error < 1e-9, "{calibrated_error} points");
        assert!(default_error > 1.0, "{default_error} points");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `plan`, `rebalance`, `simulate` and `history` read the file the same way: one that is not a
/// calibration (another format version) is refused, exit 2, naming the file and the JSON path.
#[test]
fn a_file_that_is_not_a_calibration_is_refused_by_every_command() {
    let dir = scratch("bad");
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"format_version": 99, "cpu_cost_factors": {}, "fits": []}"#,
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    let series = dir.join("s");
    ok(&lbplan(&[
        "simulate",
        "builtin:demo",
        "--cycles",
        "1",
        "--no-progress",
        "--record-series",
        series.to_str().unwrap(),
    ]));
    let demo = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../static/demo-snapshot.json"
    );
    for args in [
        vec!["plan", demo, "--calibration", bad],
        vec!["rebalance", demo, "--calibration", bad],
        vec![
            "simulate",
            "builtin:demo",
            "--cycles",
            "1",
            "--calibration",
            bad,
        ],
        vec!["history", series.to_str().unwrap(), "--calibration", bad],
    ] {
        let out = lbplan(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("bad.json") && err.contains("$.format_version: 99"),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
