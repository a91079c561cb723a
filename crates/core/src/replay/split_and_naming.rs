//! Replay of the naming and split scenario kinds: `topic_bundle`, `split_algorithm`, `bundle_split`
//! (oracle) and `split_decision_extensible` (oracle-extensible). Each prints the compared fields of
//! `oracle_output`, plus a few debugging fields of the same names the oracle uses.

mod bundle_split;
mod input;
mod split_algorithm;
mod split_decision_extensible;
mod topic_bundle;

use serde_json::Value;

use super::{Picks, ReplayError};

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
