//! The history report: every change with its cause, the leader's predictions nobody saw happen,
//! the summary and each broker's load over time. Serialisable, versioned by `format_version`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::cause::Cause;
use super::diff::Change;

/// Version of the history report's JSON (2: `load_model`, the one load model's error on the
/// series' moves; 3: `answers`, per broker, ping-pong and bursts; 4: `basis`, what the series was
/// built from and which numbers are derived, and `leader_log`, the leader's log merged with the
/// changes).
pub const HISTORY_FORMAT_VERSION: u32 = 4;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HistoryReport {
    pub format_version: u32,
    /// The replayed leader's strategy class names.
    pub shedding_strategy: String,
    pub placement_strategy: String,
    /// Which release the replayed leader decided as, and why (the first snapshot's leader's
    /// version, the majority's, or `--profile`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_basis: Option<crate::release::ReleaseBasis>,
    /// Capture time of each snapshot (ms since epoch), in order.
    pub times_ms: Vec<i64>,
    pub summary: HistorySummary,
    /// Every change between consecutive snapshots, in order.
    pub changes: Vec<ExplainedChange>,
    /// Unloads the replayed leader decided that the next snapshot does not show.
    pub predicted_not_seen: Vec<PredictedNotSeen>,
    /// brokerId → weighted max usage (`loadBalancerResourceWeights`, 0–1) at each snapshot,
    /// `null` where the broker was not live.
    pub broker_load: IndexMap<String, Vec<Option<f64>>>,
    /// The one load model checked on every move of the series (`load::accuracy`).
    #[serde(default)]
    pub load_model: crate::load::accuracy::ModelAccuracy,
    /// What the leader did, answered: per broker, ping-pong, bursts (`history::answers`).
    #[serde(default)]
    pub answers: HistoryAnswers,
    /// What the series was built from (a recorded series, or Prometheus with what was derived).
    #[serde(default)]
    pub basis: super::prometheus::SeriesBasis,
    /// The leader's log merged with the changes (`--leader-log`), when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_log: Option<super::leader_log::types::LeaderLogSection>,
    /// `broker.conf` keys whose value differs between two consecutive snapshots (at most
    /// [`MAX_CONFIG_CHANGES`]): the leader reconfigures at its next cycle, so a burst after one
    /// names it as its likely trigger.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub config_changes: Vec<ConfigChange>,
    pub warnings: Vec<String>,
}

/// The most `broker.conf` changes a report keeps (a series whose every snapshot rewrites the whole
/// file stays bounded).
pub const MAX_CONFIG_CHANGES: usize = 1_000;

/// One `broker.conf` key changed between the snapshots `step` and `step + 1`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfigChange {
    pub step: usize,
    pub at_ms: i64,
    pub key: String,
    /// The value before and after (`None`: not set, the release's default).
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The keys whose value differs between `before` and `after` (in `after`'s order, then the keys
/// only `before` has).
pub fn config_changes(
    step: usize,
    at_ms: i64,
    before: &indexmap::IndexMap<String, String>,
    after: &indexmap::IndexMap<String, String>,
) -> Vec<ConfigChange> {
    let changed = |key: &String, b: Option<&String>, a: Option<&String>| ConfigChange {
        step,
        at_ms,
        key: key.clone(),
        before: b.cloned(),
        after: a.cloned(),
    };
    let mut out: Vec<ConfigChange> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, v)| changed(k, before.get(k), Some(v)))
        .collect();
    out.extend(
        before
            .iter()
            .filter(|(k, _)| !after.contains_key(*k))
            .map(|(k, v)| changed(k, Some(v), None)),
    );
    out
}

impl HistoryReport {
    pub fn empty() -> Self {
        Self {
            format_version: HISTORY_FORMAT_VERSION,
            ..Self::default()
        }
    }
}

/// One change and its cause. `step` is the index of the earlier snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExplainedChange {
    pub step: usize,
    /// Capture time of the earlier snapshot.
    pub from_ms: i64,
    /// Capture time of the later snapshot (where the change is first seen).
    pub at_ms: i64,
    pub change: Change,
    pub cause: Cause,
    /// A move's bundle throughput (in + out, bytes/s) in the earlier snapshot's report; 0 else.
    pub throughput_bytes_per_sec: f64,
}

/// An unload the leader would have made in the cycle on snapshot `step` that the next one does
/// not show (the leader's view differed, or the model does).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PredictedNotSeen {
    pub step: usize,
    pub at_ms: i64,
    pub bundle: String,
    pub from: String,
    pub to: String,
    pub reason: String,
}

/// How much of the history the model explains, and the churn that hurts clients.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HistorySummary {
    pub snapshots: usize,
    pub duration_ms: i64,
    /// Bundles that changed owner (`moved`, and `assigned` after being unowned).
    pub moves_seen: usize,
    /// Of those, the ones the replayed leader's shedding predicted.
    pub moves_predicted: usize,
    /// Of the predicted, the ones whose destination is the predicted one.
    pub destination_agreements: usize,
    /// Moves caused by a broker leaving.
    pub moves_by_broker_left: usize,
    pub splits_seen: usize,
    pub splits_predicted: usize,
    pub broker_joins: usize,
    pub broker_leaves: usize,
    pub namespaces_created: usize,
    pub namespaces_deleted: usize,
    /// Changes with no modelled cause.
    pub unexplained: usize,
    /// Predicted unloads the series does not show.
    pub predicted_not_seen: usize,
    /// Moves that were not caused by a broker leaving, per hour of the series.
    pub unloads_per_hour: f64,
    /// Bundles that moved twice or more.
    pub bundles_moved_more_than_once: usize,
    /// Moves back to a broker the bundle left within `loadBalancerSheddingGracePeriodMinutes`
    /// (A → B → A).
    pub ping_pong_within_grace: usize,
    pub grace_period_ms: i64,
    /// Moves back to a broker the bundle left within an hour.
    pub ping_pong_within_hour: usize,
    /// Bytes that moved: each moved bundle's throughput (in + out, the earlier snapshot's report)
    /// times the time to the next snapshot, as the simulation counts it.
    pub bytes_moved: f64,
    /// Time the cluster spent unbalanced: intervals starting at a snapshot whose brokers' usage
    /// standard deviation is at least `balanced_std_fraction`.
    pub time_without_balance_ms: i64,
    /// `loadBalancerBrokerThresholdShedderPercentage / 100` (the simulation's balance target).
    pub balanced_std_fraction: f64,
}

impl HistorySummary {
    /// Moves predicted / moves seen (1 when nothing moved).
    pub fn predicted_fraction(&self) -> f64 {
        let explainable = self.moves_seen.saturating_sub(self.moves_by_broker_left);
        if explainable == 0 {
            1.0
        } else {
            self.moves_predicted as f64 / explainable as f64
        }
    }

    /// Destination agreements / moves predicted (1 when nothing was predicted).
    pub fn destination_fraction(&self) -> f64 {
        if self.moves_predicted == 0 {
            1.0
        } else {
            self.destination_agreements as f64 / self.moves_predicted as f64
        }
    }
}

/// What the leader did, answered (computed by `history::answers`; the types live here, beside the
/// report that carries them).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HistoryAnswers {
    /// Brokers that received or gave away bundles, most moves first.
    pub brokers: Vec<BrokerMoves>,
    /// Every return of a bundle to a broker it left within an hour, in order.
    pub ping_pong: Vec<PingPong>,
    pub bursts: Vec<Burst>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BrokerMoves {
    pub broker: String,
    pub bundles_in: usize,
    pub bundles_out: usize,
    /// Of `bundles_out`, the ones the replayed leader's shedding predicted.
    pub out_by_leader: usize,
    /// Traffic (in + out, bytes/s, as each bundle's report quoted it) received and given away.
    pub bytes_in_per_sec: f64,
    pub bytes_out_per_sec: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PingPong {
    pub bundle: String,
    /// The brokers it went through, from the one it left to the one it came back to (A, B, A).
    pub brokers: Vec<String>,
    /// When it left the first broker and when it was back (the later snapshots' capture times).
    pub left_at_ms: i64,
    pub back_at_ms: i64,
    /// The step of the return (index of the earlier snapshot), to show that moment.
    pub step: usize,
    /// Back within `loadBalancerSheddingGracePeriodMinutes` (Pulsar's guard against exactly this).
    pub within_grace: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Burst {
    pub step: usize,
    pub from_ms: i64,
    pub at_ms: i64,
    /// Moves in the step (not counting those of a broker leaving).
    pub moves: usize,
    /// The median of the series' steps with moves, for scale.
    pub usual_moves: f64,
    /// The likely trigger, in words ("no trigger found" when none of the known ones fits).
    pub trigger: String,
}
