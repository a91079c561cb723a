//! `lbplan-wasm`: the JavaScript-facing API of `lbplan-core`, compiled to WebAssembly.
//!
//! Each export is a thin wrapper: it takes and returns JSON text (the snapshot file format in, a
//! small camelCase object out), calls the core, and turns errors into JavaScript exceptions. The
//! logic lives in plain Rust functions next to each export so native tests can exercise it (calling
//! a `#[wasm_bindgen]` function outside a JavaScript host aborts).

use lbplan_core::config::Profile;
use lbplan_core::model::{SNAPSHOT_FORMAT_VERSION, Snapshot};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// What `demoSummary` returns (as JSON text).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotSummary {
    pub format_version: u32,
    pub cluster: Option<String>,
    pub brokers: usize,
    pub namespaces: usize,
    pub bundles: usize,
    /// The profile implied by the first broker's `brokerVersionString` (4.x when absent).
    pub profile: String,
}

/// The crate version (the planner's version).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Parses a snapshot file and returns `{formatVersion, cluster, brokers, namespaces, bundles,
/// profile}` as JSON text. Throws an `Error` naming what is wrong with the input.
#[wasm_bindgen(js_name = demoSummary)]
pub fn demo_summary(snapshot_json: &str) -> Result<String, JsError> {
    let summary = summarize(snapshot_json).map_err(|e| JsError::new(&e))?;
    serde_json::to_string(&summary).map_err(|e| JsError::new(&e.to_string()))
}

/// The logic behind [`demo_summary`].
pub fn summarize(snapshot_json: &str) -> Result<SnapshotSummary, String> {
    let snapshot: Snapshot =
        serde_json::from_str(snapshot_json).map_err(|e| format!("invalid snapshot: {e}"))?;
    if snapshot.format_version != SNAPSHOT_FORMAT_VERSION {
        return Err(format!(
            "snapshot format_version {} is not supported (expected {SNAPSHOT_FORMAT_VERSION})",
            snapshot.format_version
        ));
    }
    let version = snapshot
        .brokers
        .values()
        .find_map(|b| b.local_broker_data.broker_version_string.as_deref());
    let profile = version.map_or(Profile::Pulsar4x, Profile::from_broker_version);
    Ok(SnapshotSummary {
        format_version: snapshot.format_version,
        cluster: snapshot.cluster.clone(),
        brokers: snapshot.brokers.len(),
        namespaces: snapshot.namespaces.len(),
        bundles: snapshot.bundle_data.len(),
        profile: profile.name().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMO: &str = include_str!("../../../static/demo-snapshot.json");

    #[test]
    fn summarizes_the_demo() {
        let s = summarize(DEMO).unwrap();
        assert_eq!(s.format_version, 1);
        assert_eq!(s.cluster.as_deref(), Some("demo"));
        assert_eq!(s.brokers, 12);
        // 5 tenant namespaces + 12 heartbeat namespaces; 124 + 12 bundles.
        assert_eq!(s.namespaces, 17);
        assert_eq!(s.bundles, 136);
        assert_eq!(s.profile, "4.x");
    }

    #[test]
    fn rejects_bad_input_with_a_message() {
        assert!(summarize("{").unwrap_err().starts_with("invalid snapshot"));
        assert!(
            summarize(r#"{"format_version": 99}"#)
                .unwrap_err()
                .contains("format_version 99")
        );
        assert!(summarize(r#"{"format_version": 1, "bogus": 1}"#).is_err());
    }
}
