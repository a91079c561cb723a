//! `lbplan plan --format pulsar-admin|curl` on the demo snapshot: a drain's script pins every
//! destination and leaves the drained broker's heartbeat namespace alone, and names
//! that would reach another endpoint are refused with exit 2.

use std::path::{Path, PathBuf};
use std::process::Command;

const DEMO: &str = "static/demo-snapshot.json";

fn lbplan(args: &[&str]) -> std::process::Output {
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    Command::new(env!("CARGO_BIN_EXE_lbplan"))
        .current_dir(root)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_drain_script_pins_destinations_and_skips_the_heartbeat() {
    let out = lbplan(&[
        "plan",
        DEMO,
        "--manual-only",
        "--op",
        "remove-broker=broker-04.demo.svc:8080",
        "--format",
        "pulsar-admin",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = String::from_utf8(out.stdout).unwrap();
    let apply = script
        .split("\nrollback() {")
        .next()
        .unwrap_or_default()
        .to_string();
    let unloads: Vec<&str> = apply
        .lines()
        .filter(|l| l.contains("\"$PULSAR_ADMIN\" namespaces unload "))
        .collect();
    // broker-04 owns 25 bundles (plan_cli::same_inputs_give_byte_identical_json), one of which is
    // its heartbeat namespace `pulsar/broker-04.demo.svc:8080`.
    assert_eq!(unloads.len(), 24, "{apply}");
    assert!(
        unloads.iter().all(|l| l.contains(" --destinationBroker '")
            && !l.contains("--destinationBroker 'broker-04.demo.svc:8080'")),
        "{unloads:#?}"
    );
    assert!(apply.contains(
        "  # not unloading pulsar/broker-04.demo.svc:8080/0x00000000_0xffffffff from broker-04.demo.svc:8080: a heartbeat or SLA-monitor namespace stays on its broker\n"
    ));
    assert!(!script.contains("-- 'pulsar/broker-04.demo.svc:8080'"));
    // Each unload is guarded by the owner check.
    assert_eq!(apply.matches("  if still_owned '").count(), 24, "{apply}");
}

#[test]
fn names_that_reach_other_endpoints_exit_2() {
    for (op, format) in [
        ("unload-topic=persistent://../../x", "curl"),
        ("unload-namespace=acme/..", "pulsar-admin"),
        ("unload-namespace=acme/-orders", "pulsar-admin"),
    ] {
        let out = lbplan(&["plan", DEMO, "--op", op, "--format", format]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{op}: {stderr}");
        assert!(
            stderr.contains("is not a valid Pulsar name"),
            "{op}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{op}");
    }
}
