//! Replay of modular `shedding` scenarios (being implemented).

use serde_json::Value;

use super::ReplayError;

pub(super) fn run(_scenario: &Value, _base: &str, _seed: u64) -> Result<Value, ReplayError> {
    Err(ReplayError::UnsupportedKind("shedding".to_string()))
}
