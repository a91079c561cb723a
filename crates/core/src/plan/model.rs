//! The plan document: `format_version`, the snapshot it was made from, the decisions and the
//! before/after view. This is what `lbplan plan --format json` prints and the dashboard renders.

use serde::{Deserialize, Serialize};

pub use super::detail::{PlacedOperation, SplitDetail, UnloadDetail};
use super::verdict_types::Verdict;
use crate::reason::DecisionReason;

/// Version of the plan JSON format (2: the `verdict`, which the exports' refusal to apply reads;
/// 3: every decision's `reason` is a machine-readable [`DecisionReason`] — `kind` and numbers — and
/// the one-line text of unloads and splits moved to `reason_text`; 4: a skipped decision says its
/// `scope` — `cycle`, `broker` or `bundle` — with `broker` and `bundle` present only where they
/// apply, instead of empty `bundle` / `from` strings; 5: the plan names its `cluster` and its
/// snapshot's `snapshot_captured_at_ms`, which the apply policy's age check reads; 6: `profile` is
/// the Pulsar release whose behaviour was used (`4.0.7`; the line names resolve to their newest
/// patch) and `release_basis` says why — the leader's version, the majority's, or the operator's).
pub const PLAN_FORMAT_VERSION: u32 = 6;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub format_version: u32,
    /// Fingerprint of the snapshot the plan was made from (see [`crate::model::fingerprint`]).
    pub snapshot_fingerprint: String,
    /// The cluster the snapshot was taken from, when it says (`null` otherwise).
    #[serde(default)]
    pub cluster: Option<String>,
    /// When the snapshot was captured (ms since the epoch; `null` when unknown): an apply refuses
    /// a plan older than its `--max-age` without an acknowledgement (see [`crate::act::safety`]).
    #[serde(default)]
    pub snapshot_captured_at_ms: Option<i64>,
    /// The Pulsar release whose behaviour the plan used: `4.0.7`, `5.0.0`, `master-90cba329`.
    pub profile: String,
    /// Why that release: the leader's `brokerVersionString`, the majority's, or the operator's
    /// choice; the brokers on other versions (absent from plans before format 6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_basis: Option<crate::release::ReleaseBasis>,
    /// The per-broker CPU cost factors of the calibration the predictions used (`--calibration`,
    /// the dashboard's calibration file); absent with the default model, where every broker's
    /// factor is 1 (`docs/plan-model.md` §4).
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub cpu_cost_factors: indexmap::IndexMap<String, f64>,
    /// `modular` or `extensible`.
    pub load_manager: String,
    pub shedding_strategy: String,
    pub placement_strategy: String,
    pub seed: u64,
    /// Whether the plan leaves the cluster better or worse balanced, and why (see [`super::verdict`]).
    pub verdict: Verdict,
    /// `broker.conf` overrides the operator applied on top of the snapshot.
    pub settings: Vec<(String, String)>,
    /// Manual operations, in the order applied, as text.
    pub operations: Vec<String>,
    pub splits: Vec<PlannedSplit>,
    pub unloads: Vec<PlannedUnload>,
    /// Topics to unload (`pulsar-admin topics unload`): they reconnect on the bundle's same owner.
    pub topic_unloads: Vec<String>,
    /// Decisions the strategy made that the leader would not carry out, with why.
    pub skipped: Vec<SkippedDecision>,
    pub brokers_before: Vec<BrokerLoadView>,
    pub brokers_after: Vec<BrokerLoadView>,
    pub balance_before: BalanceSummary,
    pub balance_after: BalanceSummary,
    /// When the first cycle does nothing: whether and when the strategy would act if load stayed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outlook: Option<Outlook>,
    pub warnings: Vec<String>,
    /// Below `explain: full`, what the plan left out and how to get it (absent from a Full plan,
    /// and from plans of the shape before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explained: Option<super::explain_level::Explained>,
}

impl Plan {
    /// What the plan's predicted usages rest on when it is not the default model: the
    /// calibration's CPU cost factors, the ones furthest from 1 first (`None` with the default).
    pub fn prediction_basis(&self) -> Option<String> {
        if self.cpu_cost_factors.is_empty() {
            return None;
        }
        let mut off: Vec<(&String, f64)> = self
            .cpu_cost_factors
            .iter()
            .filter(|(_, f)| (**f - 1.0).abs() >= 0.005)
            .map(|(b, f)| (b, *f))
            .collect();
        off.sort_by(|a, b| (b.1 - 1.0).abs().total_cmp(&(a.1 - 1.0).abs()));
        let mut text = format!(
            "Predicted with a calibration: CPU cost factors for {} broker(s)",
            self.cpu_cost_factors.len()
        );
        if !off.is_empty() {
            let listed: Vec<String> = off
                .iter()
                .take(3)
                .map(|(b, f)| format!("{b} ×{f:.2}"))
                .collect();
            text.push_str(&format!(", {}", listed.join(", ")));
            if off.len() > 3 {
                text.push_str(&format!(" and {} more not at 1", off.len() - 3));
            }
        }
        Some(text)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedUnload {
    pub bundle: String,
    pub from: String,
    /// The broker the bundle lands on (the placement strategy's choice, or the operator's).
    pub to: Option<String>,
    /// Whether the unload call names `to` as `destinationBroker` (the leader's shedding always does;
    /// a manual unload without a destination lets the next lookup choose, which `to` predicts).
    pub pass_destination: bool,
    /// What decided, for tools: a stable `kind` and its numbers (`docs/plan-model.md`).
    pub reason: DecisionReason,
    /// One line an operator can read.
    pub reason_text: String,
    /// The strategy's full record: the rule that fired, the placement pipeline, every candidate.
    /// `None` only in a plan read back for an apply, which does not read it (JSON `null`).
    #[serde(default)]
    pub detail: Option<UnloadDetail>,
    /// Short-term throughput moved with the bundle (in + out).
    pub bytes_per_sec: f64,
    /// Short-term message rate moved with the bundle (in + out).
    pub msg_per_sec: f64,
    /// Where this came from: `shedding`, `manual`, `remove-broker`.
    pub origin: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedSplit {
    pub bundle: String,
    pub broker: String,
    pub algorithm: String,
    /// Split points (unsigned 32-bit).
    pub boundaries: Vec<u32>,
    /// The children, as full bundle names.
    pub new_bundles: Vec<String>,
    /// What decided, for tools: a stable `kind` and its numbers.
    pub reason: DecisionReason,
    /// One line an operator can read.
    pub reason_text: String,
    /// What decided: the limits exceeded, or the operation. `None` only in a plan read back for an
    /// apply (JSON `null`).
    #[serde(default)]
    pub detail: Option<SplitDetail>,
    /// Pulsar cannot merge bundles: a split is permanent.
    pub permanent: bool,
    pub origin: String,
}

/// A decision the leader (or an operation) did not carry out, at the scope it applies to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkippedDecision {
    /// `"scope"` and the names that scope has, first in the JSON object.
    #[serde(flatten)]
    pub scope: SkipScope,
    /// One line an operator can read.
    pub why: String,
    /// Why not, for tools: a stable `kind` and its numbers.
    pub reason: DecisionReason,
}

/// What a skip is about: the whole cycle, one broker, or one bundle on its owner. In the JSON,
/// `"scope": "cycle" | "broker" | "bundle"` with `broker` and `bundle` only where they apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "scope", rename_all = "snake_case")]
pub enum SkipScope {
    /// The cycle did not run (shedding disabled, a single broker, TransferShedder's `Skip`).
    Cycle,
    /// A broker over the strategy's threshold that sheds nothing.
    Broker { broker: String },
    /// A bundle the strategy selected (or a split chose) that was left on `broker`, its owner.
    Bundle { bundle: String, broker: String },
}

impl SkipScope {
    /// The scope's name in the JSON (`cycle`, `broker`, `bundle`).
    pub fn name(&self) -> &'static str {
        match self {
            SkipScope::Cycle => "cycle",
            SkipScope::Broker { .. } => "broker",
            SkipScope::Bundle { .. } => "bundle",
        }
    }
}

impl SkippedDecision {
    /// The bundle, for a bundle-level skip.
    pub fn bundle(&self) -> Option<&str> {
        match &self.scope {
            SkipScope::Bundle { bundle, .. } => Some(bundle),
            SkipScope::Cycle | SkipScope::Broker { .. } => None,
        }
    }

    /// The broker: the one that sheds nothing, or the skipped bundle's owner.
    pub fn broker(&self) -> Option<&str> {
        match &self.scope {
            SkipScope::Broker { broker } | SkipScope::Bundle { broker, .. } => Some(broker),
            SkipScope::Cycle => None,
        }
    }
}

/// A broker over the strategy's threshold that sheds nothing (both load managers' shedders).
impl From<&crate::reason::NotShed> for SkippedDecision {
    fn from(n: &crate::reason::NotShed) -> Self {
        SkippedDecision {
            scope: SkipScope::Broker {
                broker: n.broker.clone(),
            },
            why: n.why.clone(),
            reason: n.reason.clone(),
        }
    }
}

/// One broker's load as the plan shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BrokerLoadView {
    pub broker: String,
    pub cpu_pct: f64,
    pub memory_pct: f64,
    pub direct_memory_pct: f64,
    pub bandwidth_in_pct: f64,
    pub bandwidth_out_pct: f64,
    /// The weighted max the modular strategies compare (fraction).
    pub weighted_max_usage_fraction: f64,
    pub msg_rate_in: f64,
    pub msg_rate_out: f64,
    pub msg_throughput_in_bytes_per_sec: f64,
    pub msg_throughput_out_bytes_per_sec: f64,
    pub bundle_count: usize,
    pub topic_count: i64,
}

/// Cluster balance over brokers' weighted max usage.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BalanceSummary {
    pub broker_count: usize,
    pub max_usage_fraction: f64,
    pub mean_usage_fraction: f64,
    /// max / mean (1.0 is perfectly even; 0 when the mean is 0).
    pub max_over_mean: f64,
    /// Population standard deviation of the weighted max usage.
    pub std_usage_fraction: f64,
    pub min_bundle_count: usize,
    pub max_bundle_count: usize,
}

/// What a stateful strategy would do on later cycles if the load stayed as in the snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outlook {
    /// Cycles simulated beyond the first.
    pub cycles_examined: u32,
    /// The first later cycle (1-based; the plan itself is cycle 1) at which the strategy unloads.
    pub acts_at_cycle: Option<u32>,
    /// Unloads it would make then.
    pub unloads_then: Vec<PlannedUnload>,
    pub summary: String,
}
