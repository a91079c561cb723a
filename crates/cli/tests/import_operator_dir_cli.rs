//! A folder mixing the export shapes an operator has (`crates/core/tests/import_corpus/
//! real/operator-dir`: one load report at its metadata-store path, a 2.x topic list, a bare
//! `namespaces bundles` output, `topics partitioned-lookup` output, a `brokers list`) through
//! `lbplan import`. The dashboard's e2e test uploads the same folder and checks the same values
//! (`tests/e2e/dashboard.test.mjs`, "a folder mixing export shapes"), worked out from the files:
//! one broker, `broker-1:8080`, at 25 % CPU (usage 50 of limit 200) with 2 bundles; one namespace;
//! a warning naming each file that is not modelled or lacks a report.

use std::path::Path;
use std::process::Command;

#[test]
fn the_operator_folder_imports_one_broker_one_namespace_and_names_every_unused_file() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/import_corpus/real/operator-dir");
    let out_dir = std::env::temp_dir().join(format!("lbplan-opdir-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = out_dir.join("snapshot.json");
    let o = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(["import", dir.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let brokers: Vec<&String> = s["brokers"].as_object().unwrap().keys().collect();
    assert_eq!(brokers, ["broker-1:8080"]);
    let b = &s["brokers"]["broker-1:8080"]["local_broker_data"];
    assert_eq!(b["bundles"].as_array().unwrap().len(), 2);
    let cpu = 100.0 * b["cpu"]["usage"].as_f64().unwrap() / b["cpu"]["limit"].as_f64().unwrap();
    assert_eq!(cpu, 25.0);
    let namespaces: Vec<&String> = s["namespaces"].as_object().unwrap().keys().collect();
    assert_eq!(namespaces, ["my-tenant/my-namespace"]);
    for file in [
        "raw/partitioned-lookup.txt",
        "raw/namespaces-bundles-my-tenant-my-namespace.txt",
        "raw/brokers-list.txt",
    ] {
        assert!(stderr.contains(file), "no warning names {file}: {stderr}");
    }
    assert!(
        stderr.contains("pulsar-admin topics partitioned-lookup"),
        "{stderr}"
    );
    assert!(stderr.contains("broker `broker-2:8080`"), "{stderr}");
    let _ = std::fs::remove_dir_all(&out_dir);
}
