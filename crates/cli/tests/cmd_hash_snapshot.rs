//! `lbplan hash --snapshot S TOPIC...` answers "who owns this topic": the bundle
//! from the snapshot's layout of the topic's namespace (the same bundle `--boundaries` gives for that
//! layout), the broker whose load report lists it, and the bundle's load from that report.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

const DEMO: &str = "static/demo-snapshot.json";

fn demo() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(DEMO)).unwrap()).unwrap()
}

#[test]
fn owner_bundle_and_load_come_from_the_snapshot() {
    let snapshot = demo();
    for (namespace, topic) in [
        ("acme/orders", "persistent://acme/orders/my-topic"),
        (
            "globex/clickstream",
            "persistent://globex/clickstream/page-views-partition-3",
        ),
    ] {
        // The bundle the namespace's layout gives, computed by the plain `hash` command.
        let layout = serde_json::to_string(&snapshot["namespaces"][namespace]["bundles"]).unwrap();
        let file = std::env::temp_dir().join(format!(
            "lbplan-hash-snapshot-{}-{}.json",
            std::process::id(),
            namespace.replace('/', "_")
        ));
        std::fs::write(&file, layout).unwrap();
        let plain = lbplan(&[
            "hash",
            "--namespace",
            namespace,
            "--boundaries",
            file.to_str().unwrap(),
            topic,
        ]);
        let _ = std::fs::remove_file(&file);
        assert!(plain.status.success(), "{plain:?}");
        let plain = String::from_utf8(plain.stdout).unwrap();
        let range = plain
            .lines()
            .nth(1)
            .unwrap()
            .split_whitespace()
            .nth(3)
            .unwrap();
        let bundle = format!("{namespace}/{range}");

        let out = lbplan(&["hash", "--snapshot", DEMO, topic]);
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let row: Vec<&str> = text.lines().nth(1).unwrap().split_whitespace().collect();
        assert_eq!(row[0], topic);
        assert_eq!(row[2], bundle);
        // The owner: the broker whose `bundles` list it; the load: its `lastStats` entry.
        let (owner, data) = snapshot["brokers"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, b)| {
                b["local_broker_data"]["bundles"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| x == &serde_json::Value::String(bundle.clone()))
            })
            .unwrap();
        assert_eq!(row[3], owner);
        let stats = &data["local_broker_data"]["lastStats"][&bundle];
        let msg = stats["msgRateIn"].as_f64().unwrap() + stats["msgRateOut"].as_f64().unwrap();
        assert_eq!(row[4].replace(',', "").parse::<f64>().unwrap(), msg.round());
        assert_eq!(row[5], "msg/s");
    }
}

#[test]
fn a_namespace_missing_from_the_snapshot_exits_2_naming_the_file() {
    let out = lbplan(&["hash", "--snapshot", DEMO, "persistent://nope/ns/t"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("static/demo-snapshot.json: namespace `nope/ns` of topic `persistent://nope/ns/t` is not in the snapshot"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn bare_names_take_the_namespace_given() {
    let out = lbplan(&[
        "hash",
        "--snapshot",
        DEMO,
        "--namespace",
        "acme/orders",
        "my-topic",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("persistent://acme/orders/my-topic "),
        "{text}"
    );
}
