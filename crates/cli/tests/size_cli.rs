//! `lbplan size`: the spread of a namespace's topics over bundle counts, checked against hashes
//! computed independently (Python's zlib.crc32 gives 500 per bundle for the 2,000 partition names below:
//! CRC-32 is linear, so the four partitions of a topic fall in four different quarter ranges).

use std::process::Command;

#[test]
fn partitions_spread_evenly_over_four_bundles() {
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args([
            "size",
            "--namespace",
            "acme/orders",
            "--topic-count",
            "500",
            "--partitions",
            "4",
            "--brokers",
            "12",
        ])
        .args(["--bundles", "4,16", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &doc["rows"][0];
    assert_eq!(row["bundles"], 4);
    assert_eq!(row["topics"], 2000);
    assert_eq!(
        (
            row["min_topics_per_bundle"].as_u64(),
            row["max_topics_per_bundle"].as_u64()
        ),
        (Some(500), Some(500))
    );
    assert_eq!(row["largest_bundle_load_fraction"], 0.25);
    assert_eq!(doc["rows"][1]["bundles"], 16);
}

#[test]
fn a_topic_of_another_namespace_is_refused() {
    let list = std::env::temp_dir().join(format!("lbplan-size-{}.txt", std::process::id()));
    std::fs::write(
        &list,
        "persistent://acme/orders/a\npersistent://other/ns/b\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(["size", "--namespace", "acme/orders", "--topics"])
        .arg(&list)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&list);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not in namespace `acme/orders`"));
}
