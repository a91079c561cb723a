//! `topic_bundle`: each topic's complete name, CRC-32 and bundle in the namespace layout, or the
//! error Pulsar raises (an invalid name, or a topic of another namespace).

use serde_json::{Value, json};

use super::input;
use crate::naming::TopicName;
use crate::replay::ReplayError;
use crate::replay::json;

pub(super) fn run(scenario: &Value, base: &str) -> Result<Value, ReplayError> {
    let namespace = json::string(
        json::required(scenario, "namespace", base)?,
        &format!("{base}.namespace"),
    )?;
    let layout = input::layout(scenario, base, namespace)?;
    let topics = json::string_list(
        json::required(scenario, "topics", base)?,
        &format!("{base}.topics"),
    )?;
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
