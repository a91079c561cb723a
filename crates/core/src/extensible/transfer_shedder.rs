//! `TransferShedder`: the extensible load manager's unload strategy (§9.3). One instance keeps the
//! shedding-condition hit counter across cycles; each call computes `LoadStats`, applies the
//! persistence gate and pairs the most loaded brokers with the least loaded ones, walking each max
//! broker's top bundles smallest first and optionally swapping bundles back from the min broker.

use crate::reason::{DecisionReason, NotShed, ReasonKind};
use indexmap::{IndexMap, IndexSet};

use super::decision::{SkipReason, UnloadDecision, UnloadReason};
use super::load_stats::LoadStats;
use crate::config::LoadBalancerConfig;
use crate::model::{BrokerLoadData, TopBundlesLoadData};
use crate::modular::load_data::namespace_of_bundle;

/// What the broker around the shedder answers: the service-unit channel's ownership and the
/// policy/filter check for a move. The caller decides how faithful these are (a running broker's
/// filters, or Pulsar's unit-test constructor where every move is transferable).
pub trait UnloadChecks {
    /// `channel.isOwner(bundle, broker)`.
    fn is_owner(&self, bundle: &str, broker: &str) -> bool;
    /// `isTransferable(bundle, src, dst)`.
    fn is_transferable(&self, bundle: &str, src_broker: &str, dst_broker: Option<&str>) -> bool;
}

/// Checks of `new TransferShedder(counter)` (no broker): everything owned, everything transferable.
#[derive(Clone, Copy, Debug, Default)]
pub struct PermissiveChecks;

impl UnloadChecks for PermissiveChecks {
    fn is_owner(&self, _bundle: &str, _broker: &str) -> bool {
        true
    }
    fn is_transferable(&self, _bundle: &str, _src: &str, _dst: Option<&str>) -> bool {
        true
    }
}

/// The leader's view handed to one call of `findBundlesForUnloading`.
pub struct SheddingInput<'a> {
    /// The cycle's clock (TTL check).
    pub now_ms: i64,
    /// Broker load-data store; its iteration order is the input of the stable sort.
    pub load_store: &'a IndexMap<String, BrokerLoadData>,
    /// Each broker's published top bundles, ascending.
    pub top_bundles: &'a IndexMap<String, TopBundlesLoadData>,
    /// Registered (live) brokers.
    pub available_brokers: &'a [String],
    /// Bundle → time it was last unloaded (ms); such bundles are not moved again.
    pub recently_unloaded_bundles: &'a IndexMap<String, i64>,
}

/// The result of one cycle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SheddingOutcome {
    /// The decision set, in the order the shedder produced them (duplicates removed).
    pub decisions: Vec<UnloadDecision>,
    /// The `Skip` reason counted when no decision was made.
    pub skip_reason: Option<SkipReason>,
    /// `(loadAvg, loadStd)` given to the counter, when the statistics were computed this cycle.
    pub load_avg_std: Option<(f64, f64)>,
    /// `LoadStats` after the cycle, simulated offloads applied.
    pub stats: LoadStats,
    /// The hit counter after the call.
    pub unload_condition_hit_count: i64,
    /// Brokers polled as the most loaded that gave nothing, with why.
    pub not_shed: Vec<NotShed>,
}

/// The text of a TransferShedder why-not.
fn transfer_why_not(max: &str, min: &str, reason: UnloadReason, why: &DecisionReason) -> String {
    let n = |k: &str| why.number(k).unwrap_or(0.0);
    let rule = match why.kind {
        ReasonKind::SoleBundle => {
            "its only top bundle would just move the problem (a broker keeps one bundle)"
                .to_string()
        }
        ReasonKind::NoBundleFits => format!(
            "its largest movable bundle ({:.1} MiB/s) overshoots the {:.1} MiB/s to offload and no swap with {min} compensates",
            n("first_bundle_bytes_per_sec") / crate::units::MIB,
            n("offload_bytes_per_sec") / crate::units::MIB
        ),
        _ => format!(
            "none of its {} top bundles can move ({} recently unloaded, {} in loadBalancerSheddingExcludedNamespaces, {} not transferable to {min} by isolation or anti-affinity, {} without traffic, {} not owned)",
            n("top_bundles"),
            n("recently_unloaded"),
            n("excluded_namespace"),
            n("not_transferable"),
            n("without_traffic"),
            n("not_owned")
        ),
    };
    format!(
        "TransferShedder moves nothing from {max} ({}, paired with {min}): {rule}",
        reason.name()
    )
}

/// `TransferShedder` with its cross-cycle state.
#[derive(Clone, Debug, Default)]
pub struct TransferShedder {
    unload_condition_hit_count: i64,
}

/// Per-call settings, read once from the configuration.
struct Settings<'a> {
    target_std: f64,
    transfer: bool,
    debug_mode: bool,
    overload_threshold: f64,
    hit_count_threshold: i64,
    excluded_namespaces: &'a [String],
}

impl TransferShedder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn unload_condition_hit_count(&self) -> i64 {
        self.unload_condition_hit_count
    }

    /// `findBundlesForUnloading(context, recentlyUnloadedBundles, recentlyUnloadedBrokers)`. The shedder
    /// prunes `recently_unloaded_brokers` of brokers whose load data is newer than the cool-down.
    pub fn find_bundles_for_unloading(
        &mut self,
        conf: &LoadBalancerConfig,
        input: &SheddingInput<'_>,
        recently_unloaded_brokers: &mut IndexMap<String, i64>,
        checks: &dyn UnloadChecks,
    ) -> SheddingOutcome {
        let settings = Settings {
            target_std: conf.load_balancer_broker_load_target_std,
            transfer: conf.load_balancer_transfer_enabled,
            debug_mode: conf.load_balancer_debug_mode_enabled,
            overload_threshold: conf.overloaded_threshold_fraction(),
            hit_count_threshold: conf.load_balancer_shedding_condition_hit_count_threshold,
            excluded_namespaces: &conf.load_balancer_shedding_excluded_namespaces,
        };
        let mut out = SheddingOutcome::default();
        let mut stats = LoadStats::default();
        stats.set_load_data_store(input.load_store);
        if let Some(reason) = stats.update(
            input.load_store,
            input.available_brokers,
            recently_unloaded_brokers,
            conf,
            input.now_ms,
        ) {
            out.skip_reason = Some(reason);
            out.stats = stats;
            out.unload_condition_hit_count = self.unload_condition_hit_count;
            return out;
        }
        out.load_avg_std = Some((stats.avg, stats.std));

        let store = input.load_store;
        let condition = stats.std > settings.target_std
            || is_underloaded(store, stats.peek_min_broker(), &stats, settings.target_std)
            || is_overloaded(store, stats.peek_max_broker(), stats.avg, &settings);
        self.unload_condition_hit_count = if condition {
            self.unload_condition_hit_count.saturating_add(1)
        } else {
            0
        };
        if self.unload_condition_hit_count <= settings.hit_count_threshold {
            out.skip_reason = Some(SkipReason::HitCount);
            out.stats = stats;
            out.unload_condition_hit_count = self.unload_condition_hit_count;
            return out;
        }

        let mut decisions: IndexSet<UnloadDecision> = IndexSet::new();
        let mut brokers_with_empty_load_data = 0u32;
        let mut brokers_with_few_bundles = 0u32;
        while stats.has_transferable_brokers() {
            let reason = if stats.std > settings.target_std {
                UnloadReason::Overloaded
            } else if is_underloaded(store, stats.peek_min_broker(), &stats, settings.target_std) {
                UnloadReason::Underloaded
            } else if is_overloaded(store, stats.peek_max_broker(), stats.avg, &settings) {
                UnloadReason::Overloaded
            } else {
                // The cluster meets the target.
                break;
            };
            let Some(max_broker) = stats.poll_max_broker() else {
                break;
            };
            let Some(min_broker) = stats.peek_min_broker().map(str::to_string) else {
                break;
            };
            let (Some(max_data), Some(min_data)) = (store.get(&max_broker), store.get(&min_broker))
            else {
                brokers_with_empty_load_data += 1;
                continue;
            };
            let pair = BrokerPair {
                max_broker: &max_broker,
                min_broker: &min_broker,
                max_data,
                min_data,
                reason,
            };
            match self.plan_pair(&pair, input, &settings, checks, &mut decisions) {
                PairResult::NoTopBundles => {
                    brokers_with_empty_load_data += 1;
                    out.not_shed.push(NotShed {
                        broker: max_broker.clone(),
                        why: format!(
                            "TransferShedder moves nothing from {max_broker} ({}): it published no top bundles (loadBalancerMaxNumberOfBundlesInBundleLoadReport)",
                            reason.name()
                        ),
                        reason: DecisionReason::new(ReasonKind::NoTopBundles)
                            .with("unload_reason", reason.name()),
                    });
                }
                PairResult::FewBundles(why) => {
                    brokers_with_few_bundles += 1;
                    out.not_shed.push(NotShed {
                        broker: max_broker.clone(),
                        why: transfer_why_not(&max_broker, &min_broker, reason, &why),
                        reason: why
                            .with("unload_reason", reason.name())
                            .with("min_broker", min_broker.clone()),
                    });
                }
                PairResult::Moved { offload_fraction } => stats.offload(
                    max_data.weighted_max_ema,
                    min_data.weighted_max_ema,
                    offload_fraction,
                ),
            }
        }

        if decisions.is_empty() {
            out.skip_reason = Some(if brokers_with_empty_load_data > 0 {
                SkipReason::NoLoadData
            } else if brokers_with_few_bundles > 0 {
                SkipReason::NoBundles
            } else {
                SkipReason::HitCount
            });
        } else {
            self.unload_condition_hit_count = 0;
        }
        out.decisions = decisions.into_iter().collect();
        out.stats = stats;
        out.unload_condition_hit_count = self.unload_condition_hit_count;
        out
    }

    /// Steps C.3–C.5 for one (max, min) pair: adds the pair's decisions and says what happened.
    fn plan_pair(
        &self,
        pair: &BrokerPair<'_>,
        input: &SheddingInput<'_>,
        settings: &Settings<'_>,
        checks: &dyn UnloadChecks,
        decisions: &mut IndexSet<UnloadDecision>,
    ) -> PairResult {
        let max_load = pair.max_data.weighted_max_ema;
        let min_load = pair.min_data.weighted_max_ema;
        let offload = (max_load - min_load) / 2.0;
        let max_broker_throughput = pair.max_data.msg_throughput();
        let min_broker_throughput = pair.min_data.msg_throughput();
        let offload_throughput = max_broker_throughput * offload / max_load;

        let max_top = match input.top_bundles.get(pair.max_broker) {
            Some(t) if !t.top_bundles_load_data.is_empty() => &t.top_bundles_load_data,
            _ => return PairResult::NoTopBundles,
        };
        if max_top.len() == 1 {
            // A sole bundle is what overloads the broker; moving it only moves the problem.
            return PairResult::FewBundles(
                DecisionReason::new(ReasonKind::SoleBundle).with("top_bundles", 1),
            );
        }
        // What kept each top bundle on the broker, for the why-not when nothing moves.
        let (mut not_owned, mut excluded, mut recent, mut not_transferable, mut idle) =
            (0_u32, 0_u32, 0_u32, 0_u32, 0_u32);
        let mut overshoot: Option<f64> = None;
        // One iterator over the min broker's bundles for this whole max broker: a min bundle is
        // considered for swapping at most once.
        let mut min_iter = input
            .top_bundles
            .get(pair.min_broker)
            .map(|t| t.top_bundles_load_data.iter());

        let mut remaining_top_bundles = max_top.len();
        let mut traffic_marked_to_offload = 0.0;
        let mut traffic_marked_to_gain = 0.0;
        for entry in max_top {
            let bundle = entry.bundle_name.as_str();
            if !checks.is_owner(bundle, pair.max_broker) {
                not_owned += 1;
                continue;
            }
            let namespace = namespace_of_bundle(bundle);
            if settings
                .excluded_namespaces
                .iter()
                .any(|ns| ns == namespace)
            {
                excluded += 1;
                continue;
            }
            if input.recently_unloaded_bundles.contains_key(bundle) {
                recent += 1;
                continue;
            }
            if !checks.is_transferable(bundle, pair.max_broker, Some(pair.min_broker)) {
                not_transferable += 1;
                continue;
            }
            if remaining_top_bundles <= 1 {
                // Always leave one bundle on the broker.
                break;
            }
            let max_broker_bundle_throughput = entry.stats.total_msg_throughput();
            if max_broker_bundle_throughput == 0.0 {
                idle += 1;
                continue;
            }
            let mut swap = false;
            let mut min_to_max: Vec<UnloadDecision> = Vec::new();
            let mut min_broker_bundle_swap_throughput = 0.0;
            if traffic_marked_to_offload - traffic_marked_to_gain + max_broker_bundle_throughput
                > offload_throughput
            {
                // The bundle overshoots the target: try to compensate with bundles from the min broker.
                if let (true, Some(iter)) = (settings.transfer, min_iter.as_mut()) {
                    let mut max_new = max_broker_throughput - traffic_marked_to_offload
                        + traffic_marked_to_gain
                        - max_broker_bundle_throughput;
                    let mut min_new = min_broker_throughput + traffic_marked_to_offload
                        - traffic_marked_to_gain
                        + max_broker_bundle_throughput;
                    for min_entry in iter.by_ref() {
                        let min_bundle = min_entry.bundle_name.as_str();
                        if !checks.is_transferable(
                            min_bundle,
                            pair.min_broker,
                            Some(pair.max_broker),
                        ) {
                            continue;
                        }
                        let s = min_entry.stats.total_msg_throughput();
                        if s == 0.0 {
                            continue;
                        }
                        let max_new_tmp = max_new + s;
                        let min_new_tmp = min_new - s;
                        if max_new_tmp < max_broker_throughput
                            && min_new_tmp < max_broker_throughput
                        {
                            min_to_max.push(UnloadDecision {
                                source_broker: pair.min_broker.to_string(),
                                service_unit: min_bundle.to_string(),
                                dest_broker: Some(pair.max_broker.to_string()),
                                reason: pair.reason,
                            });
                            max_new = max_new_tmp;
                            min_new = min_new_tmp;
                            min_broker_bundle_swap_throughput += s;
                            if min_new <= max_new && max_new < max_broker_throughput * 0.75 {
                                swap = true;
                                break;
                            }
                        }
                    }
                }
                if !swap {
                    overshoot = Some(max_broker_bundle_throughput);
                    break;
                }
            }
            let dest_broker = if settings.transfer {
                if swap {
                    decisions.extend(min_to_max);
                    // Pulsar adds the swapped-in traffic inside its debug-logging block, so the
                    // compensation only counts when debug mode is on.
                    if settings.debug_mode {
                        traffic_marked_to_gain += min_broker_bundle_swap_throughput;
                    }
                }
                Some(pair.min_broker.to_string())
            } else {
                None
            };
            decisions.insert(UnloadDecision {
                source_broker: pair.max_broker.to_string(),
                service_unit: bundle.to_string(),
                dest_broker,
                reason: pair.reason,
            });
            traffic_marked_to_offload += max_broker_bundle_throughput;
            remaining_top_bundles -= 1;
        }
        if traffic_marked_to_offload > 0.0 {
            PairResult::Moved {
                offload_fraction: (traffic_marked_to_offload - traffic_marked_to_gain) * max_load
                    / max_broker_throughput,
            }
        } else {
            let kind = if overshoot.is_some() {
                ReasonKind::NoBundleFits
            } else if recent > 0 {
                ReasonKind::RecentlyUnloaded
            } else {
                ReasonKind::NoUnloadableBundle
            };
            let mut r = DecisionReason::new(kind)
                .with("top_bundles", max_top.len())
                .with("offload_bytes_per_sec", offload_throughput)
                .with("not_owned", not_owned)
                .with("excluded_namespace", excluded)
                .with("recently_unloaded", recent)
                .with("not_transferable", not_transferable)
                .with("without_traffic", idle);
            if let Some(t) = overshoot {
                r = r.with("first_bundle_bytes_per_sec", t);
            }
            PairResult::FewBundles(r)
        }
    }
}

struct BrokerPair<'a> {
    max_broker: &'a str,
    min_broker: &'a str,
    max_data: &'a BrokerLoadData,
    min_data: &'a BrokerLoadData,
    reason: UnloadReason,
}

enum PairResult {
    /// The max broker published no top bundles.
    NoTopBundles,
    /// A single top bundle, or nothing that could be moved: why, for the plan's why-not.
    FewBundles(DecisionReason),
    /// Something was moved; the load fraction to simulate.
    Moved { offload_fraction: f64 },
}

/// `isUnderLoaded`: far below the mean load, or far below the max broker's throughput.
fn is_underloaded(
    store: &IndexMap<String, BrokerLoadData>,
    broker: Option<&str>,
    stats: &LoadStats,
    target_std: f64,
) -> bool {
    let Some(data) = broker.and_then(|b| store.get(b)) else {
        return false;
    };
    // `clamp` keeps NaN like Java's `Math.min(0.5, Math.max(0.0, x))`.
    let multiplier = (target_std / 2.0).clamp(0.0, 0.5);
    if data.weighted_max_ema < stats.avg * multiplier {
        return true;
    }
    let Some(max_data) = stats.peek_max_broker().and_then(|b| store.get(b)) else {
        return false;
    };
    data.msg_throughput_ema < max_data.msg_throughput_ema * multiplier
}

/// `isOverLoaded`: above the overload threshold and more than one target std above the mean.
fn is_overloaded(
    store: &IndexMap<String, BrokerLoadData>,
    broker: Option<&str>,
    avg_load: f64,
    settings: &Settings<'_>,
) -> bool {
    let Some(data) = broker.and_then(|b| store.get(b)) else {
        return false;
    };
    let load = data.weighted_max_ema;
    load > settings.overload_threshold && load > avg_load + settings.target_std
}
