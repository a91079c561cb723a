//! `lbplan history`: a series recorded by `lbplan simulate --record-series` is explained by the
//! replayed leader; a directory or zip of ordinary snapshot files is a series too.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("runs lbplan")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lbplan-history-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn history_json(path: &Path) -> Value {
    let out = lbplan(&["history", path.to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The built-in broker-crash scenario recorded for 44 cycles: the busiest broker leaves at cycle 40,
/// its bundles are attributed to the leave, every other move to the leader's shedding with the
/// destination it chose.
#[test]
fn a_recorded_simulation_is_explained_by_the_leader_and_the_leave() {
    let dir = scratch("crash");
    let out = lbplan(&[
        "simulate",
        "--scenario",
        "broker-crash",
        "--cycles",
        "44",
        "--no-progress",
        "--record-series",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifests = std::fs::read_dir(dir.join("snapshots")).unwrap().count();
    assert_eq!(manifests, 44);
    let r = history_json(&dir);
    assert_eq!(r["format_version"], 4);
    let s = &r["summary"];
    assert_eq!(s["snapshots"], 44);
    assert_eq!(s["broker_leaves"], 1);
    assert_eq!(s["unexplained"], 0);
    assert_eq!(s["predicted_not_seen"], 0);
    let seen = s["moves_seen"].as_u64().unwrap();
    let by_leave = s["moves_by_broker_left"].as_u64().unwrap();
    assert!(by_leave > 0);
    assert_eq!(s["moves_predicted"].as_u64().unwrap(), seen - by_leave);
    assert_eq!(s["destination_agreements"], s["moves_predicted"]);
    // CSV: a header and one row per change.
    let csv = lbplan(&["history", dir.to_str().unwrap(), "--format", "csv"]);
    let text = String::from_utf8(csv.stdout).unwrap();
    assert!(text.starts_with("step,from_ms,at_ms,kind,bundle,from,to,cause,"));
    assert_eq!(
        text.lines().count() - 1,
        r["changes"].as_array().unwrap().len()
    );
    // The answers: every move is one broker's "in" and another's "out"; the broker that left
    // gave away the bundles its leave moved.
    let brokers = r["answers"]["brokers"].as_array().unwrap();
    let sum = |k: &str| brokers.iter().map(|b| b[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("bundles_in"), seen);
    assert_eq!(sum("bundles_out"), seen);
    let left = r["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["change"]["kind"] == "broker_left")
        .find_map(|c| c["change"]["broker"].as_str().map(str::to_string))
        .expect("a broker_left change");
    let gone = brokers
        .iter()
        .find(|b| b["broker"] == left.as_str())
        .unwrap();
    assert!(gone["bundles_out"].as_u64().unwrap() >= by_leave);
    // The text fits a 120-column terminal, with a per-broker section; the full reasons stay in
    // the JSON and CSV.
    let out = lbplan(&["history", dir.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    let wide: Vec<&str> = text.lines().filter(|l| l.chars().count() > 120).collect();
    assert!(wide.is_empty(), "{wide:#?}");
    assert!(
        text.contains("\nper broker (bundles received / given away"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn demo() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/demo-snapshot.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Two ordinary snapshot files a minute apart (written in the reverse order of their times), the
/// later one with a bundle moved by hand: one unexplained move, from a directory and from a zip.
#[test]
fn ordinary_snapshot_files_form_a_series_in_time_order() {
    let dir = scratch("files");
    std::fs::create_dir_all(&dir).unwrap();
    let first = demo();
    let t0 = first["captured_at_ms"].as_i64().unwrap();
    let mut second = first.clone();
    second["captured_at_ms"] = Value::from(t0 + 60_000);
    let brokers = second["brokers"].as_object_mut().unwrap();
    let ids: Vec<String> = brokers.keys().cloned().collect();
    let from = brokers[&ids[0]]["local_broker_data"].clone();
    let bundle = from["bundles"][0].as_str().unwrap().to_string();
    let stats = from["lastStats"][&bundle].clone();
    {
        let f = brokers.get_mut(&ids[0]).unwrap()["local_broker_data"]
            .as_object_mut()
            .unwrap();
        f["bundles"]
            .as_array_mut()
            .unwrap()
            .retain(|b| b.as_str() != Some(&bundle));
        f["lastStats"].as_object_mut().unwrap().remove(&bundle);
    }
    {
        let t = brokers.get_mut(&ids[1]).unwrap()["local_broker_data"]
            .as_object_mut()
            .unwrap();
        t["bundles"]
            .as_array_mut()
            .unwrap()
            .push(Value::from(bundle.clone()));
        t["lastStats"]
            .as_object_mut()
            .unwrap()
            .insert(bundle.clone(), stats);
    }
    let files = [
        ("a-later.json", serde_json::to_vec(&second).unwrap()),
        ("b-earlier.json", serde_json::to_vec(&first).unwrap()),
    ];
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let zip_path = dir.with_extension("zip");
    {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
        for (name, bytes) in &files {
            zip.start_file(
                format!("series/{name}"),
                zip::write::SimpleFileOptions::default(),
            )
            .unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap();
    }
    for path in [&dir, &zip_path] {
        let r = history_json(path);
        assert_eq!(r["times_ms"], serde_json::json!([t0, t0 + 60_000]));
        let moved: Vec<&Value> = r["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["change"]["kind"] == "moved")
            .collect();
        assert_eq!(moved.len(), 1, "{path:?}");
        assert_eq!(moved[0]["change"]["bundle"], bundle.as_str());
        assert_eq!(moved[0]["change"]["from"], ids[0].as_str());
        assert_eq!(moved[0]["change"]["to"], ids[1].as_str());
        assert_eq!(moved[0]["cause"]["cause"], "unexplained");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&zip_path);
}
