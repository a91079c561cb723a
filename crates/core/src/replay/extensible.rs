//! Replay of this module's scenario kinds (being implemented).

use serde_json::Value;

use super::{Picks, ReplayError};

pub(super) fn run(
    kind: &str,
    _scenario: &Value,
    _base: &str,
    _picks: Option<&Picks>,
    _seed: u64,
) -> Result<Value, ReplayError> {
    Err(ReplayError::UnsupportedKind(kind.to_string()))
}
