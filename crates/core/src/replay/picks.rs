//! The choices a scenario recorded where Pulsar picks at random, replayed cycle by cycle.

use serde::Deserialize;
use serde_json::Value;

use super::error::ReplayError;
use super::json;

/// Picks taken from outside: one list of broker names per cycle, consumed in order.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Picks {
    pub cycles: Vec<Vec<String>>,
}

impl Picks {
    /// Parses `{"cycles": [["broker", ...], ...]}` (an unknown key is an error, as in a scenario).
    pub fn from_json(value: &Value) -> Result<Self, ReplayError> {
        json::read(value, "$")
    }
}
