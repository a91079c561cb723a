//! A snapshot handed in as a JavaScript object: validated field by field by the core importer (the
//! same checks as `lbplan import` on a snapshot file), so a bad field is reported with its JSON path
//! instead of being guessed at.

use lbplan_core::import::{ImportInput, ImportWarning, import};
use lbplan_core::model::Snapshot;
use serde_json::Value;

use crate::error::{ApiError, kind_of};

/// The name the importer gives the object (not shown: errors keep only the JSON path).
const SNAPSHOT_NAME: &str = "snapshot.json";

/// Validates `value` as one of our snapshots (it must carry `format_version`: a raw Pulsar export is
/// for `importFiles`, not a snapshot).
pub fn snapshot_from_value(value: &Value) -> Result<(Snapshot, Vec<ImportWarning>), ApiError> {
    let Value::Object(map) = value else {
        return Err(ApiError::at(
            "$",
            format!(
                "expected a snapshot object (from importFiles or `lbplan import`), found {}",
                kind_of(value)
            ),
        ));
    };
    if !map.contains_key("format_version") {
        return Err(ApiError::at(
            "$.format_version",
            "missing: expected a snapshot (from importFiles or `lbplan import`); pass raw Pulsar exports to importFiles",
        ));
    }
    let bytes = serde_json::to_vec(value).map_err(|e| ApiError::at("$", e.to_string()))?;
    let imported = import(&[ImportInput::given(SNAPSHOT_NAME, bytes)])
        .map_err(ApiError::from_snapshot_import)?;
    Ok((imported.snapshot, imported.warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMO: &str = include_str!("../../../static/demo-snapshot.json");

    #[test]
    fn the_demo_round_trips() {
        let v: Value = serde_json::from_str(DEMO).unwrap();
        let (s, _) = snapshot_from_value(&v).unwrap();
        assert_eq!(s.format_version, 1);
        assert_eq!(s.cluster.as_deref(), Some("demo"));
        assert_eq!(s.brokers.len(), 12);
    }

    #[test]
    fn a_bad_field_is_named_by_its_path() {
        let mut v: Value = serde_json::from_str(DEMO).unwrap();
        v["brokers"]["broker-00.demo.svc:8080"]["local_broker_data"]["cpu"]["limit"] =
            Value::String("lots".into());
        let e = snapshot_from_value(&v).unwrap_err();
        assert!(
            e.path
                .starts_with(r#"$.brokers["broker-00.demo.svc:8080"]"#),
            "{e}"
        );
        assert!(e.path.ends_with("cpu.limit"), "{e}");
        assert!(e.to_string().contains("number"), "{e}");
    }

    #[test]
    fn not_a_snapshot() {
        assert_eq!(
            snapshot_from_value(&Value::Null).unwrap_err().path,
            "$".to_string()
        );
        assert_eq!(
            snapshot_from_value(&serde_json::json!({"cluster": "x"}))
                .unwrap_err()
                .path,
            "$.format_version"
        );
        let e = snapshot_from_value(&serde_json::json!({"format_version": 99})).unwrap_err();
        assert_eq!(e.path, "$.format_version", "{e}");
    }
}
