//! `lbplan replay`: runs a conformance scenario (`tests/conformance/oracle*/`) through the core
//! and prints the decisions in the oracle's output shape. This module (with `import`) is the only
//! place that reads the scenario wire format; strategies only see model types. Each kind reads its
//! scenario into its own serde-derived input type (`json::read`: errors and unknown keys name their
//! JSON path); the decisions it prints are built as JSON in the oracle's output shape.

mod error;
mod extensible;
mod java_order;
mod json;
mod modular_input;
mod modular_placement;
mod modular_shedding;
mod picks;
mod split_and_naming;

use serde_json::Value;

pub use error::ReplayError;
pub use picks::Picks;

/// Runs one scenario file (`{"scenario": ...}` or a bare scenario) and returns the output object.
pub fn replay(file: &Value, picks: Option<&Picks>, seed: u64) -> Result<Value, ReplayError> {
    let (scenario, base) = match file.get("scenario") {
        Some(s) => (s, "$.scenario"),
        None => (file, "$"),
    };
    let kind = scenario
        .get("kind")
        .and_then(Value::as_str)
        .ok_or_else(|| ReplayError::malformed(format!("{base}.kind"), "expected a string"))?;
    match kind {
        "topic_bundle" | "split_algorithm" | "bundle_split" | "split_decision_extensible" => {
            split_and_naming::run(kind, scenario, base, picks, seed)
        }
        "shedding" => modular_shedding::run(scenario, base, seed),
        "placement" => modular_placement::run(scenario, base, picks, seed),
        "shedding_extensible" | "placement_extensible" => {
            extensible::run(kind, scenario, base, picks, seed)
        }
        other => Err(ReplayError::UnsupportedKind(other.to_string())),
    }
}
