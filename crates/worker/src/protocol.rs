//! The messages between the dashboard and its worker: one JSON text per `postMessage`, tagged by
//! `type`. The page sends a `simulate` request; the worker answers `ready` once loaded, then
//! `progress` (throttled) and finally `done` or `failed` for each request. Cancelling is the page
//! terminating the worker: a synchronous simulation cannot read messages until it ends.

use std::borrow::Cow;

use lbplan_core::model::Snapshot;
use lbplan_core::simulate::{Comparison, RunConfig, Scenario};
use serde::{Deserialize, Serialize};

/// Version of these messages; the page refuses a worker that reports another one (a stale cache).
pub const WORKER_PROTOCOL_VERSION: u32 = 1;

/// What the page asks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request<'a> {
    Simulate(SimulateRequest<'a>),
}

/// Runs `configs` side by side on `snapshot` under `scenario` (`lbplan_core::simulate::compare`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulateRequest<'a> {
    pub format_version: u32,
    /// Echoed in every answer, so answers to an older request can be told apart.
    pub id: u32,
    pub snapshot: Cow<'a, Snapshot>,
    pub scenario: Scenario,
    /// An empty list runs the snapshot's own configuration.
    pub configs: Vec<RunConfig>,
    pub cycles: u32,
    pub seed: u64,
    pub record_broker_usage: bool,
    pub record_ownership: bool,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Response {
    /// The worker's wasm is loaded and listening.
    Ready {
        format_version: u32,
    },
    /// `done` of `total` cycles (over all configurations) have run.
    Progress {
        id: u32,
        done: u32,
        total: u32,
    },
    Done {
        id: u32,
        comparison: Comparison,
    },
    /// The request could not run (a bad message, a bad setting in a configuration).
    Failed {
        id: u32,
        message: String,
    },
}

impl Response {
    pub fn to_json(&self) -> String {
        // A `Response` holds only strings, numbers and maps with string keys: it always serialises.
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(r#"{{"type":"failed","id":0,"message":"cannot encode the answer: {e}"}}"#)
        })
    }
}
