//! Replay of the naming and split scenario kinds: `topic_bundle`, `split_algorithm`, `bundle_split`
//! (oracle) and `split_decision_extensible` (oracle-extensible). Each prints the compared fields of
//! `oracle_output`, plus a few debugging fields of the same names the oracle uses.

mod bundle_split;
mod input;
mod split_algorithm;
mod split_decision_extensible;
mod topic_bundle;

use serde_json::Value;

use super::error::ReplayError;
use super::picks::Picks;

/// These kinds make no random choice, so picks and seed are unused.
pub(super) fn run(
    kind: &str,
    scenario: &Value,
    base: &str,
    _picks: Option<&Picks>,
    _seed: u64,
) -> Result<Value, ReplayError> {
    match kind {
        "topic_bundle" => topic_bundle::run(scenario, base),
        "split_algorithm" => split_algorithm::run(scenario, base),
        "bundle_split" => bundle_split::run(scenario, base),
        "split_decision_extensible" => split_decision_extensible::run(scenario, base),
        other => Err(ReplayError::UnsupportedKind(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::replay::{ReplayError, replay};

    #[test]
    fn malformed_input_names_the_json_path() {
        let file = json!({"scenario": {"kind": "topic_bundle", "namespace": "t/ns", "numBundles": "four", "topics": []}});
        assert!(matches!(
            replay(&file, None, 0),
            Err(ReplayError::Malformed { path, .. }) if path == "$.scenario.numBundles"
        ));
        let file = json!({"kind": "bundle_split", "cycles": [{"brokers": [{"name": "b:1", "lastStats": {"t/ns/0x00000000_0xffffffff": {"topics": "many"}}}]}]});
        assert!(matches!(
            replay(&file, None, 0),
            Err(ReplayError::Malformed { path, .. })
                if path == "$.cycles[0].brokers[0].lastStats[\"t/ns/0x00000000_0xffffffff\"].topics"
        ));
        let file = json!({"kind": "split_algorithm", "namespace": "t/ns", "numBundles": 1,
            "bundle": "0x00000000_0xffffffff", "algorithm": "range_equally_divide",
            "config": {"loadBalancerNamespaceBundleMaxMsgRate": "fast"}});
        assert!(matches!(
            replay(&file, None, 0),
            Err(ReplayError::Malformed { path, .. })
                if path == "$.config.loadBalancerNamespaceBundleMaxMsgRate"
        ));
    }

    #[test]
    fn a_target_outside_the_layout_is_reported() {
        let file = json!({"kind": "split_algorithm", "namespace": "t/ns", "numBundles": 4,
            "bundle": "0x00000000_0x80000000", "algorithm": "range_equally_divide"});
        let out = replay(&file, None, 0).unwrap();
        assert_eq!(out["result"], "target_not_found");
    }
}
