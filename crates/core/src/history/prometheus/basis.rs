//! What a history was built from, and which of its numbers are derived rather than read: a
//! recorded series is the leader's own data replayed; a series built from Prometheus has the
//! brokers' usage and bundles' rates as exposed, and everything else (the leader's `BundleData`
//! time averages, its smoothed broker averages, the grace list) derived the way the leader would,
//! so its attribution is "consistent with the leader", not the leader's certainty.

use serde::{Deserialize, Serialize};

use super::names::BundleSource;

/// `source` of a series recorded by `collect --every` or `simulate --record-series`.
pub const SOURCE_RECORDED: &str = "recorded_series";
/// `source` of a series built from Prometheus' range queries.
pub const SOURCE_PROMETHEUS: &str = "prometheus";
/// `attribution` when the replay reads the leader's own data.
pub const ATTRIBUTION_REPLAYED: &str = "replayed";
/// `attribution` when part of what the leader read is derived: a cause is consistent with what
/// the leader would have done, not proven.
pub const ATTRIBUTION_CONSISTENT: &str = "consistent_with_leader";

/// The basis of a history report (report `format_version` 4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SeriesBasis {
    pub source: String,
    pub attribution: String,
    /// The numbers the replay read that the source does not hold, each with how it was derived.
    pub derived: Vec<String>,
    /// Prometheus: the rule from a series' labels to a brokerId.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broker_mapping: Option<String>,
    /// Prometheus: where each namespace's bundle boundaries came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundaries: Option<String>,
    /// Prometheus: where bundle ownership and rates came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle_source: Option<BundleSource>,
    /// Prometheus: steps queried, and those left out as gaps.
    pub steps_queried: usize,
    pub gaps: Vec<Gap>,
    /// Prometheus: the leader's own counters over the range (`pulsar_lb_unload_bundle_total`,
    /// `pulsar_lb_bundles_split_total`, increases summed, a drop read as a restart or a new
    /// leader), `None` when no broker exposed them: the cross-check of the replay's counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader_unloads_counted: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader_splits_counted: Option<f64>,
}

impl Default for SeriesBasis {
    fn default() -> Self {
        Self {
            source: SOURCE_RECORDED.to_string(),
            attribution: ATTRIBUTION_REPLAYED.to_string(),
            derived: Vec::new(),
            broker_mapping: None,
            boundaries: None,
            bundle_source: None,
            steps_queried: 0,
            gaps: Vec::new(),
            leader_unloads_counted: None,
            leader_splits_counted: None,
        }
    }
}

impl SeriesBasis {
    pub fn is_prometheus(&self) -> bool {
        self.source == SOURCE_PROMETHEUS
    }
}

/// A step left out: a broker's metrics were missing or its scrape failed there, so the step's
/// snapshot would have been a guess.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gap {
    pub at_ms: i64,
    pub broker: String,
    /// What was missing (metric names, or `up == 0`).
    pub missing: Vec<String>,
}
