//! Pulsar's `BundleSplitterTask` step, one copy for plans and simulations: which bundles the
//! leader splits this cycle ([`decide`]: `findBundlesToSplit` on the leader's `LoadData`) and each
//! of them split with the default algorithm ([`carry_out`]) on whatever holds the cluster — a
//! plan's snapshot (`plan::split_records`), the simulator's own cluster — through [`SplitHost`],
//! with the limits each bundle exceeded and the split made or why the algorithm declined
//! ([`SplitStep`]; a plan records them as its splits and skipped decisions).
//!
//! A host answers what a split needs (the bundle's owner, its namespace's layout and bundle count)
//! without walking the cluster, so each split costs what it touches; only [`decide`] reads every
//! reported bundle, once per cycle, as Pulsar's task does.

use std::cell::Cell;

use rustc_hash::FxHashMap;

use crate::config::LoadBalancerConfig;
use crate::model::BundleData;
use crate::modular::LoadData;
use crate::naming::BundleName;
use crate::reason::{DecisionReason, ReasonKind};
use crate::split::{
    BrokerBundleStats, ModularSplitCandidate, SplitAlgorithm, SplitResult, SplitThresholds,
    SplitTrigger, auto_split_runs, find_bundles_to_split,
};

/// What the step needs from whatever holds the cluster.
pub trait SplitHost {
    /// The namespace's bundle count now (`None`: no layout for it, and Pulsar skips the bundle).
    fn namespace_bundle_count(&self, namespace: &str) -> Option<i64>;
    /// Told the bundles the step will split, before the first one (a host that indexes their
    /// owners in one pass does it here).
    fn track(&mut self, _bundles: &[ModularSplitCandidate]) {}
    /// The broker recorded as the bundle's owner now; `None` when the host does not hold the
    /// bundle, which the step then leaves alone.
    fn owner(&self, bundle: &str) -> Option<String>;
    /// The split of `bundle` with `algorithm` on the cluster as the earlier splits left it:
    /// `Ok(Err(why))` when the algorithm declines, `Err(why)` when it cannot run.
    fn compute(
        &mut self,
        cfg: &LoadBalancerConfig,
        bundle: &str,
        algorithm: SplitAlgorithm,
    ) -> Result<Result<SplitResult, String>, String>;
    /// Replaces the parent `bundle` by its children.
    fn apply(&mut self, bundle: &str, split: &SplitResult);
}

/// One bundle the task chose, and what became of it.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitStep {
    pub candidate: ModularSplitCandidate,
    /// The owner the host recorded for it.
    pub owner: String,
    pub algorithm: SplitAlgorithm,
    /// The split applied, or why the algorithm did not split.
    pub outcome: Result<SplitResult, String>,
}

impl SplitStep {
    /// Every limit the bundle exceeded, as text.
    pub fn triggers(&self) -> Vec<String> {
        self.candidate
            .triggers
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// The one-line reason of a split: every limit exceeded.
    pub fn reason_text(&self) -> String {
        split_reason(&self.triggers())
    }

    /// Every limit the bundle exceeded, as numbers: the reason of a split and of a declined one.
    pub fn triggers_reason(&self) -> DecisionReason {
        triggers_reason(&self.candidate)
    }
}

/// `BundleSplitterTask.findBundlesToSplit` on a leader view `data`: the accepted bundles, in order,
/// with the limits each exceeds. `namespace_bundle_count(ns)` is the namespace's bundle count now;
/// `long_term(broker_pos, k, name)` is the long-term (`totalMsgRate`, `totalMsgThroughput`) of the
/// k-th `lastStats` entry of the broker at `broker_pos` in `data.brokers` (0 when the leader has no
/// data): by name in plans ([`long_term_of`]), by position in the simulation, which keeps its
/// reports aligned with its bundle table.
pub fn decide(
    cfg: &LoadBalancerConfig,
    data: &LoadData,
    namespace_bundle_count: impl Fn(&str) -> Option<i64>,
    long_term: impl Fn(usize, usize, &str) -> (f64, f64),
) -> Vec<ModularSplitCandidate> {
    if !auto_split_runs(cfg, data.brokers.len()) {
        return Vec::new();
    }
    let thresholds = SplitThresholds::from_config(cfg);
    // Only a bundle with two topics or more that exceeds a limit, in a namespace with a known bundle
    // count still under `loadBalancerNamespaceMaximumBundles` with the bundles accepted before it,
    // can be accepted; every bundle passed on is accepted (the cap counts accepted ones, in the
    // order `findBundlesToSplit` walks), so leaving the others out gives the same accepted list
    // without a skip record (names and triggers copied) for each bundle that cannot be.
    // Looked up once per bundle over a limit (most of them when the topic limit is low), never
    // iterated: the fast hasher keeps the accepted list as it is.
    let mut namespaces: FxHashMap<&str, (Option<i64>, i64)> = FxHashMap::default();
    let mut reports: Vec<BrokerBundleStats<'_>> = Vec::new();
    for (pos, (id, b)) in data.brokers.iter().enumerate() {
        let mut bundles = Vec::new();
        for (k, (n, s)) in b.local.last_stats.iter().enumerate() {
            if s.topics < 2 {
                continue;
            }
            // The limits first, the namespace's cap (a search for the name's last `/` and a hash
            // of its namespace, which over every bundle every cycle were most of a simulated
            // cycle's cost) only for a bundle that exceeds one: a bundle under every limit is never
            // accepted and leaves its namespace's count as it is, so the accepted list is the same.
            // The report's own counts first: a bundle over the topic or session limit is over a
            // limit whatever its rates (`exceeds_any` is an `or`; no rate exceeds -∞), so its
            // long-term data is not looked up.
            let sessions = s.consumer_count.saturating_add(s.producer_count);
            let over =
                thresholds.exceeds_any(s.topics, sessions, f64::NEG_INFINITY, f64::NEG_INFINITY)
                    || {
                        let (rate, throughput) = long_term(pos, k, n);
                        thresholds.exceeds_any(s.topics, sessions, rate, throughput)
                    };
            if !over {
                continue;
            }
            let ns = BundleName::namespace_of(n);
            let (count, accepted) = namespaces
                .entry(ns)
                .or_insert_with(|| (namespace_bundle_count(ns), 0));
            let Some(count) = *count else {
                continue;
            };
            if count.saturating_add(*accepted) < thresholds.max_bundles_per_namespace {
                *accepted += 1;
                bundles.push((n.as_str(), s));
            }
        }
        if !bundles.is_empty() {
            reports.push(BrokerBundleStats {
                broker: id.as_str(),
                bundles,
            });
        }
    }
    find_bundles_to_split(
        &reports,
        &data.bundle_data,
        namespace_bundle_count,
        &thresholds,
    )
    .accepted
}

/// The long-term (`totalMsgRate`, `totalMsgThroughput`) of a bundle in the leader's data, 0 without.
pub fn long_term_of(data: &LoadData, bundle: &str) -> (f64, f64) {
    data.bundle_data.get(bundle).map_or((0.0, 0.0), long_term)
}

fn long_term(d: &BundleData) -> (f64, f64) {
    (
        d.long_term_data.total_msg_rate(),
        d.long_term_data.total_msg_throughput(),
    )
}

/// [`long_term_of`] for names asked in the order [`decide`] walks the reports: each answer is the
/// same, but the entry after the one found last is tried first (compared by name) before a lookup
/// by hash. A leader view built from a snapshot files `bundle_data` in the order of the brokers'
/// lists, which is the order of their `lastStats` as brokers write them, so on a kept view the
/// walk reads `bundle_data` in order instead of hashing 200,000 names at random places.
pub struct LongTermCursor<'d> {
    data: &'d LoadData,
    next: Cell<usize>,
}

impl<'d> LongTermCursor<'d> {
    pub fn new(data: &'d LoadData) -> Self {
        Self {
            data,
            next: Cell::new(0),
        }
    }

    /// [`long_term_of`]`(data, bundle)`.
    pub fn get(&self, bundle: &str) -> (f64, f64) {
        long_term_after(self.data, bundle, &self.next)
    }
}

/// [`long_term_of`]`(data, bundle)`, trying the entry at `next` first and leaving `next` after the
/// entry found: [`LongTermCursor`] for a caller handed the data at each call (the history's carried
/// leader, whose kept view keeps the first snapshot's order, moved bundles aside).
pub fn long_term_after(data: &LoadData, bundle: &str, next: &Cell<usize>) -> (f64, f64) {
    let hint = next.get();
    let found = match data.bundle_data.get_index(hint) {
        Some((name, d)) if name == bundle => Some((hint, d)),
        _ => data
            .bundle_data
            .get_full(bundle)
            .map(|(index, _, d)| (index, d)),
    };
    match found {
        Some((index, d)) => {
            next.set(index.saturating_add(1));
            long_term(d)
        }
        None => (0.0, 0.0),
    }
}

/// Splits the `candidates` [`decide`] chose, in order, with the default algorithm
/// (`defaultNamespaceBundleSplitAlgorithm`) on `host`: a bundle `unloaded` this cycle or that the
/// host does not hold is left alone; each other one is split, or declined with why.
pub fn carry_out<H: SplitHost + ?Sized>(
    host: &mut H,
    cfg: &LoadBalancerConfig,
    candidates: Vec<ModularSplitCandidate>,
    unloaded: impl Fn(&str) -> bool,
) -> Vec<SplitStep> {
    let algorithm =
        SplitAlgorithm::by_name_or_default("", &cfg.default_namespace_bundle_split_algorithm);
    host.track(&candidates);
    let mut steps = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        if unloaded(&candidate.bundle) {
            continue;
        }
        let Some(owner) = host.owner(&candidate.bundle) else {
            continue;
        };
        let outcome = match host.compute(cfg, &candidate.bundle, algorithm) {
            Ok(Ok(split)) => {
                host.apply(&candidate.bundle, &split);
                Ok(split)
            }
            Ok(Err(why)) | Err(why) => Err(why),
        };
        steps.push(SplitStep {
            candidate,
            owner,
            algorithm,
            outcome,
        });
    }
    steps
}

/// The whole step on a leader view `data`: [`decide`] with the long-term rates looked up by name,
/// then [`carry_out`].
pub fn run<H: SplitHost + ?Sized>(
    host: &mut H,
    cfg: &LoadBalancerConfig,
    data: &LoadData,
    unloaded: impl Fn(&str) -> bool,
) -> Vec<SplitStep> {
    let long_term = LongTermCursor::new(data);
    let candidates = decide(
        cfg,
        data,
        |ns| host.namespace_bundle_count(ns),
        |_, _, name| long_term.get(name),
    );
    carry_out(host, cfg, candidates, unloaded)
}

/// Why `BundleSplitterTask` split a bundle: every limit it exceeded.
pub fn split_reason(triggers: &[String]) -> String {
    format!("BundleSplitterTask: {}", triggers.join("; "))
}

/// Every limit a split candidate exceeded, as numbers: `topics` and `topics_limit`, `sessions` and
/// `sessions_limit`, `msg_rate_per_sec` and `msg_rate_limit_per_sec`, `throughput_bytes_per_sec`
/// and `throughput_limit_bytes_per_sec`.
fn triggers_reason(candidate: &ModularSplitCandidate) -> DecisionReason {
    let mut r = DecisionReason::new(ReasonKind::SplitThresholdsExceeded);
    for t in &candidate.triggers {
        r = match t {
            SplitTrigger::Topics { topics, limit } => {
                r.with("topics", *topics).with("topics_limit", *limit)
            }
            SplitTrigger::Sessions { sessions, limit } => {
                r.with("sessions", *sessions).with("sessions_limit", *limit)
            }
            SplitTrigger::MsgRate {
                msg_rate_per_sec,
                limit_per_sec,
            } => r
                .with("msg_rate_per_sec", *msg_rate_per_sec)
                .with("msg_rate_limit_per_sec", *limit_per_sec),
            SplitTrigger::Bandwidth {
                throughput_bytes_per_sec,
                limit_bytes_per_sec,
            } => r
                .with("throughput_bytes_per_sec", *throughput_bytes_per_sec)
                .with("throughput_limit_bytes_per_sec", *limit_bytes_per_sec),
        };
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leader::view::load_data_from_snapshot;
    use crate::synthetic::{NamespaceSpec, SyntheticSpec, generate};

    /// The cursor answers as the lookup by name whatever the order of the names asked: the
    /// reports' order (its fast path), reversed, interleaved with unknown and repeated names.
    #[test]
    fn the_cursor_answers_as_the_lookup_by_name_in_any_order() {
        let snapshot = generate(
            &SyntheticSpec {
                brokers: 12,
                namespaces: NamespaceSpec::numbered(10, 6, 8),
                ..SyntheticSpec::bench()
            },
            3,
        )
        .unwrap();
        let data = load_data_from_snapshot(&snapshot);
        let walk: Vec<String> = data
            .brokers
            .values()
            .flat_map(|b| b.local.last_stats.keys().cloned())
            .collect();
        assert!(walk.len() > 50);
        let mut mixed = Vec::new();
        for (i, name) in walk.iter().enumerate() {
            mixed.push(name.clone());
            if i % 7 == 0 {
                mixed.push("no/such/0x00000000_0x10000000".to_string());
            }
            if i % 11 == 0 {
                mixed.push(walk[(i * 13) % walk.len()].clone());
            }
        }
        let reversed: Vec<String> = walk.iter().rev().cloned().collect();
        for names in [walk, reversed, mixed] {
            let cursor = LongTermCursor::new(&data);
            for name in &names {
                let (a, b) = cursor.get(name);
                let (c, d) = long_term_of(&data, name);
                assert_eq!(
                    (a.to_bits(), b.to_bits()),
                    (c.to_bits(), d.to_bits()),
                    "{name}"
                );
            }
        }
    }
}
