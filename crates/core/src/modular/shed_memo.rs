//! The shedding cycle's memo of candidate steps ([`ShedSelectionMemo`]): within one
//! `doLoadShedding`, what the §6.4 steps left for a namespace is kept and reused by the cycle's
//! later selections, so a cycle that places hundreds of bundles runs the steps once per namespace.
//! The pipeline's steps themselves stay in `pipeline`; this module only decides when a kept result
//! is still the one the steps would give, and records new ones.

use super::LoadData;
use super::pipeline_steps::{RangeIndex, narrow_first, narrow_rest, narrow_rest_listed};
use super::placement::{CycleScores, PipelineTrace};
use super::placement_context::{Candidates, PlacementContext};
use super::placement_explain::{LoggedSteps, StageLog};
use crate::config::LoadBalancerConfig;

/// What one shedding cycle's candidate steps found, kept for the cycle's later selections: during
/// `doLoadShedding` nothing the §6.4 steps read changes between selections (`selectBroker`
/// preallocates nothing; the cycle only records recently-unloaded bundles, which no step reads),
/// and every step depends on the bundle only through its namespace and whether it holds
/// non-persistent topics. Without isolation policies and without an anti-affinity group for the
/// namespace, the first three steps (namespace policies, topic count, anti-affinity) do not depend
/// on the namespace either, so their result is kept once for all such namespaces and only the
/// namespace's even distribution and the broker filters run for each new namespace. The set's
/// iteration order also depends on the reused set's capacity, so an entry is used only at the
/// capacity it was computed at. The strategy still runs for every bundle (it may keep state, and
/// its random pick advances the picker), as do the overload re-selection and the restores.
#[derive(Default)]
pub struct ShedSelectionMemo {
    /// The candidates the strategy was given, per namespace.
    whole: Vec<MemoEntry>,
    /// Positions in `whole` by namespace, in the order pushed: a cycle places bundles of a hundred
    /// namespaces and more, and a scan comparing names for each placement cost more than the
    /// lookup.
    whole_by_namespace: rustc_hash::FxHashMap<String, Vec<usize>>,
    /// The set after the first three steps, for namespaces without a policy or group (the
    /// namespace field is empty).
    shared_prefix: Vec<MemoEntry>,
    /// The brokers' range-cache entries by position, found at the cycle's first even distribution.
    range_index: Option<RangeIndex>,
    /// The strategy's per-broker scores for the cycle.
    pub(super) scores: CycleScores,
    /// Whether the context's broker hashes were brought up to date in this cycle.
    hashes_fresh: bool,
    /// The policy-only set (positions) per topic kind, without isolation policies (see
    /// [`should_namespace_policies_unload_memo`]).
    pub(super) policy_only_persistent: Option<Vec<usize>>,
    pub(super) policy_only_non_persistent: Option<Vec<usize>>,
}

struct MemoEntry {
    namespace: String,
    non_persistent: bool,
    /// The reused set's capacity when the steps ran.
    capacity: usize,
    /// The candidates in iteration order, with their hashes.
    candidates: Vec<(u32, usize)>,
    /// The steps as the log recorded them.
    steps: LoggedSteps,
}

impl ShedSelectionMemo {
    pub fn new() -> Self {
        Self::default()
    }

    /// [`Self::find`] in `whole`: the first entry pushed for the namespace with the same kind
    /// and capacity, as the scan found it.
    fn find_whole(
        &self,
        namespace: &str,
        non_persistent: bool,
        capacity: usize,
    ) -> Option<&MemoEntry> {
        self.whole_by_namespace
            .get(namespace)?
            .iter()
            .filter_map(|&i| self.whole.get(i))
            .find(|e| e.non_persistent == non_persistent && e.capacity == capacity)
    }

    fn push_whole(&mut self, entry: MemoEntry) {
        self.whole_by_namespace
            .entry(entry.namespace.clone())
            .or_default()
            .push(self.whole.len());
        self.whole.push(entry);
    }

    fn find<'m>(
        entries: &'m [MemoEntry],
        namespace: &str,
        non_persistent: bool,
        capacity: usize,
    ) -> Option<&'m MemoEntry> {
        entries.iter().find(|e| {
            e.non_persistent == non_persistent && e.capacity == capacity && e.namespace == namespace
        })
    }
}

/// Whether the first three candidate steps ignore `namespace` (no isolation policy, no
/// anti-affinity group).
fn prefix_is_shared(ctx: &PlacementContext, namespace: &str) -> bool {
    ctx.isolation.is_empty() && ctx.anti_affinity_group(namespace).is_none()
}

fn hashed_items(set: &Candidates) -> Vec<(u32, usize)> {
    set.iter_hashed().map(|(h, &p)| (h, p)).collect()
}

/// The candidates of one shedding-path selection, from `memo` where it kept them (see
/// [`ShedSelectionMemo`]) and recorded in it otherwise; `set` is the reused candidate set, whose
/// capacity decides whether a kept entry applies.
#[allow(clippy::too_many_arguments)]
pub(super) fn narrow_with_memo<'d>(
    m: &mut ShedSelectionMemo,
    bundle: &str,
    namespace: &str,
    non_persistent: bool,
    data: &'d LoadData,
    ctx: &mut PlacementContext,
    cfg: &LoadBalancerConfig,
    set: &mut Candidates,
    trace: PipelineTrace,
) -> (StageLog<'d>, Vec<usize>) {
    let capacity = set.capacity();
    if let Some(e) = m.find_whole(namespace, non_persistent, capacity) {
        return (
            StageLog::resumed(data, &e.steps),
            e.candidates.iter().map(|&(_, p)| p).collect(),
        );
    }
    // The brokers' names and order do not change during the cycle.
    if !m.hashes_fresh {
        ctx.refresh_broker_hashes(data);
        m.hashes_fresh = true;
    }
    let shared = prefix_is_shared(ctx, namespace);
    let prefix_key = if shared { "" } else { namespace };
    let index: &RangeIndex = m
        .range_index
        .get_or_insert_with(|| RangeIndex::new(&ctx.bundle_range_cache, data));
    let prefix = ShedSelectionMemo::find(&m.shared_prefix, prefix_key, non_persistent, capacity)
        .filter(|_| shared);
    // The first steps, resumed from the kept prefix or run; the rest of the steps run on the
    // kept list where they can (`narrow_rest_listed`), otherwise on the set.
    let narrowed = match prefix {
        Some(e) => {
            let mut log = StageLog::resumed(data, &e.steps);
            let listed = if log.named() {
                None
            } else {
                narrow_rest_listed(
                    namespace,
                    data,
                    &ctx.bundle_range_cache,
                    index,
                    cfg,
                    &e.candidates,
                    &mut log,
                )
            };
            match listed {
                Some(items) => Narrowed::Done(log, items),
                None => {
                    // Refilled in iteration order at the same capacity: the same order.
                    set.clear();
                    for &(h, p) in &e.candidates {
                        set.insert_hashed(h, p);
                    }
                    Narrowed::First(StageLog::resumed(data, &e.steps))
                }
            }
        }
        None => {
            let mut log = StageLog::new(data, trace);
            narrow_first(bundle, data, ctx, cfg, set, &mut log);
            if shared && set.capacity() == capacity {
                m.shared_prefix.push(MemoEntry {
                    namespace: String::new(),
                    non_persistent,
                    capacity,
                    candidates: hashed_items(set),
                    steps: log.steps_so_far(),
                });
            }
            Narrowed::First(log)
        }
    };
    let (log, items) = match narrowed {
        Narrowed::Done(log, items) => (log, items),
        Narrowed::First(mut log) => {
            narrow_rest(
                bundle,
                namespace,
                data,
                ctx,
                cfg,
                set,
                &mut log,
                Some(index),
            );
            (log, hashed_items(set))
        }
    };
    let candidates = items.iter().map(|&(_, p)| p).collect();
    if set.capacity() == capacity {
        m.push_whole(MemoEntry {
            namespace: namespace.to_string(),
            non_persistent,
            capacity,
            candidates: items,
            steps: log.steps_so_far(),
        });
    }
    (log, candidates)
}

/// How far [`narrow_with_memo`] got before the steps after the first three.
enum Narrowed<'d> {
    /// Every step done on the kept list.
    Done(StageLog<'d>, Vec<(u32, usize)>),
    /// The first three steps done (in the set); the rest still to run.
    First(StageLog<'d>),
}
