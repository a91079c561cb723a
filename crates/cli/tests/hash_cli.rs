//! `lbplan hash` end to end, with the worked examples of the reference's §4.4.

use std::path::PathBuf;
use std::process::{Command, Output};

fn lbplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .args(args)
        .output()
        .expect("run lbplan")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The output line of a complete topic name.
fn line_of<'a>(text: &'a str, topic: &str) -> &'a str {
    text.lines()
        .find(|l| l.split_whitespace().next() == Some(topic))
        .unwrap_or_else(|| panic!("no line for {topic} in:\n{text}"))
}

fn temp_file(name: &str, contents: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lbplan-hash-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

#[test]
fn worked_examples_with_four_default_bundles() {
    let out = lbplan(&[
        "hash",
        "--namespace",
        "public/default",
        "--bundles",
        "4",
        "my-topic",
        "persistent://public/default/my-topic-partition-2",
        "non-persistent://public/default/my-topic",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let fields = |topic: &str| -> Vec<String> {
        line_of(&text, topic)
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        fields("persistent://public/default/my-topic"),
        [
            "persistent://public/default/my-topic",
            "0x2bad45f7",
            "732775927",
            "0x00000000_0x40000000"
        ]
    );
    assert_eq!(
        fields("persistent://public/default/my-topic-partition-2"),
        [
            "persistent://public/default/my-topic-partition-2",
            "0xd3452319",
            "3544523545",
            "0xc0000000_0xffffffff"
        ]
    );
    assert_eq!(
        fields("non-persistent://public/default/my-topic"),
        [
            "non-persistent://public/default/my-topic",
            "0x831e214a",
            "2199789898",
            "0x80000000_0xc0000000"
        ]
    );
}

#[test]
fn boundaries_from_a_bundles_data_file_or_a_plain_list() {
    // pulsar-unit-tests/naming/topic_hash_to_bundle.json: my-topic is bundle 2 of 16
    // (0x20000000_0x30000000).
    let sixteen: Vec<String> = (0..16u64)
        .map(|i| format!("\"0x{:08x}\"", i << 28))
        .chain(std::iter::once("\"0xffffffff\"".to_string()))
        .collect();
    let json = temp_file(
        "bundles.json",
        &format!(
            "{{\"boundaries\": [{}], \"numBundles\": 16}}",
            sixteen.join(", ")
        ),
    );
    let out = lbplan(&[
        "hash",
        "--namespace",
        "public/default",
        "--boundaries",
        json.to_str().expect("utf-8 path"),
        "my-topic",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        line_of(&stdout(&out), "persistent://public/default/my-topic")
            .ends_with("0x20000000_0x30000000")
    );

    // oracle/handmade-hash_3_custom_boundaries.json layout, as plain text.
    let plain = temp_file(
        "bounds.txt",
        "0x00000000 0x10000000\n0x20000000,0xfffffff0 0xffffffff\n",
    );
    let out = lbplan(&[
        "hash",
        "--namespace",
        "public/default",
        "--boundaries",
        plain.to_str().expect("utf-8 path"),
        "my-topic",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        line_of(&stdout(&out), "persistent://public/default/my-topic")
            .ends_with("0x20000000_0xfffffff0")
    );
}

#[test]
fn bad_names_exit_2_with_a_message() {
    for args in [
        vec![
            "hash",
            "--namespace",
            "public/default",
            "--bundles",
            "4",
            "a/b",
        ],
        vec![
            "hash",
            "--namespace",
            "public/default",
            "--bundles",
            "4",
            "persistent://bad name with spaces",
        ],
        // A topic of another namespace (Pulsar's `findBundle` refuses it).
        vec![
            "hash",
            "--namespace",
            "acme/orders",
            "--bundles",
            "4",
            "my-topic",
        ],
        vec![
            "hash",
            "--namespace",
            "not-a-namespace",
            "--bundles",
            "4",
            "x",
        ],
        vec![
            "hash",
            "--namespace",
            "public/default",
            "--bundles",
            "0",
            "x",
        ],
    ] {
        let out = lbplan(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(!out.stderr.is_empty(), "{args:?}: no message");
        assert!(out.stdout.is_empty(), "{args:?}: partial output");
    }
}
