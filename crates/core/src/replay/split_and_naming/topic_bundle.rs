//! `topic_bundle`: each topic's complete name, CRC-32 and bundle in the namespace layout, or the
//! error Pulsar raises (an invalid name, or a topic of another namespace).

use serde::Deserialize;
use serde_json::{Value, json};

use super::input;
use crate::naming::TopicName;
use crate::replay::error::ReplayError;
use crate::replay::json::{self, Boundary};

/// A `kind: "topic_bundle"` scenario.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Scenario {
    #[serde(rename = "kind")]
    _kind: String,
    namespace: String,
    num_bundles: Option<u32>,
    boundaries: Option<Vec<Boundary>>,
    topics: Vec<String>,
}

pub(super) fn run(scenario: &Value, base: &str) -> Result<Value, ReplayError> {
    let Scenario {
        namespace,
        num_bundles,
        boundaries,
        topics,
        ..
    } = json::read(scenario, base)?;
    let namespace = namespace.as_str();
    let layout = input::layout(namespace, boundaries.as_deref(), num_bundles, base)?;
    let rows: Vec<Value> = topics
        .iter()
        .map(|topic| match TopicName::parse(topic) {
            Err(e) => json!({"topic": topic, "error": e.to_string()}),
            Ok(name) => {
                let hash = name.bundle_hash();
                match layout.find_bundle(&name) {
                    Ok(range) => json!({
                        "topic": topic,
                        "full_name": name.complete_name(),
                        "hash": hash,
                        "bundle": range.to_string(),
                        "bundle_full": format!("{namespace}/{range}"),
                    }),
                    Err(e) => json!({
                        "topic": topic,
                        "full_name": name.complete_name(),
                        "hash": hash,
                        "error": e.to_string(),
                    }),
                }
            }
        })
        .collect();
    Ok(json!({
        "kind": "topic_bundle",
        "bundles": input::range_strings(&layout),
        "topics": rows,
    }))
}
