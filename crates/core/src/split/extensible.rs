//! The extensible load manager's automatic split decision (`DefaultNamespaceBundleSplitStrategyImpl`,
//! run by every broker on its own bundles each `loadBalancerSplitIntervalMinutes`): the same limits
//! as the modular task but on the **latest** bundle stats, kept up for more than
//! `loadBalancerNamespaceBundleSplitConditionHitCountThreshold` consecutive cycles (a per-bundle hit
//! counter that lives in the strategy instance).

use std::collections::BTreeMap;

use super::thresholds::SplitThresholds;
use super::{SplitError, SplitPoints, SplitTrigger};
use crate::config::LoadBalancerConfig;
use crate::model::NamespaceBundleStats;
use crate::naming::BundleName;
use crate::naming::BundleRange;

/// Pulsar's `SplitDecision.Reason` (the first exceeded limit in priority order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SplitReason {
    Topics,
    Sessions,
    MsgRate,
    Bandwidth,
}

impl SplitReason {
    pub fn name(self) -> &'static str {
        match self {
            SplitReason::Topics => "Topics",
            SplitReason::Sessions => "Sessions",
            SplitReason::MsgRate => "MsgRate",
            SplitReason::Bandwidth => "Bandwidth",
        }
    }

    fn of(trigger: &SplitTrigger) -> Self {
        match trigger {
            SplitTrigger::Topics { .. } => SplitReason::Topics,
            SplitTrigger::Sessions { .. } => SplitReason::Sessions,
            SplitTrigger::MsgRate { .. } => SplitReason::MsgRate,
            SplitTrigger::Bandwidth { .. } => SplitReason::Bandwidth,
        }
    }
}

/// What the strategy asks of the broker around it.
pub trait ExtensibleSplitInput {
    /// This broker's id (`sourceBroker` of every decision).
    fn local_broker(&self) -> &str;
    /// `channel.isOwner(bundle)`.
    fn is_owner(&self, bundle: &str) -> bool;
    /// `NamespaceService.getBundleCount(namespace)`; `None` when it fails.
    fn namespace_bundle_count(&self, namespace: &str) -> Option<i64>;
    /// Bundles in `Splitting` state in the service-unit channel.
    fn splitting_bundles(&self) -> Vec<String>;
    /// The default algorithm's split points for the bundle (`NamespaceService.getSplitBoundary`).
    fn split_boundary(&self, bundle: &str, range: BundleRange) -> Result<SplitPoints, SplitError>;
}

/// A split the strategy decided (`SplitDecision` with label `Success`).
#[derive(Clone, Debug, PartialEq)]
pub struct ExtensibleSplitDecision {
    /// The bundle, as named in the stats map.
    pub service_unit: String,
    pub source_broker: String,
    /// The two children, in hash order.
    pub children: [BundleRange; 2],
    pub reason: SplitReason,
    /// The limit behind `reason`, with value and limit.
    pub trigger: SplitTrigger,
    /// The hit count that passed the threshold.
    pub hit_count: i64,
}

/// Why a bundle was not split this cycle.
#[derive(Clone, Debug, PartialEq)]
pub enum ExtensibleSplitSkip {
    FewerThanTwoTopics {
        topics: i64,
    },
    NotOwner,
    /// Counted as `Failure/Unknown`.
    RangeNotSplittable,
    /// No limit exceeded (the counter is removed) or not for long enough.
    HitCountNotAboveThreshold {
        hit_count: i64,
        threshold: i64,
        trigger: Option<SplitTrigger>,
    },
    /// Counted as `Failure/Unknown`: the namespace's bundle count could not be read.
    NamespaceBundleCountUnavailable {
        namespace: String,
    },
    NamespaceAtMaximumBundles {
        namespace: String,
        current_bundles: i64,
        accepted_this_cycle: i64,
        maximum: i64,
    },
    /// A bundle of the namespace whose range starts with this bundle's lower bound or ends with its
    /// upper bound is splitting.
    RelatedBundleSplitting {
        splitting_bundle: String,
    },
    /// Counted as `Failure/Unknown`: the algorithm failed, declined, or gave other than one cut point.
    NoSingleSplitBoundary {
        why: String,
    },
}

/// One cycle's result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtensibleSplitCycle {
    pub decisions: Vec<ExtensibleSplitDecision>,
    /// Bundles not split, in visiting order. Bundles after a per-cycle-limit stop are not listed.
    pub skipped: Vec<(String, ExtensibleSplitSkip)>,
    /// `SplitCounter` `Failure/Unknown` increments this cycle.
    pub failure_unknown: u32,
    /// The loop stopped at `loadBalancerMaxNumberOfBundlesToSplitPerCycle`.
    pub stopped_at_split_limit: bool,
}

/// The strategy instance: its hit counters persist from cycle to cycle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtensibleSplitStrategy {
    hit_counts: BTreeMap<String, i64>,
}

impl ExtensibleSplitStrategy {
    pub fn new() -> Self {
        Self::default()
    }

    /// `splitConditionHitCounts` (sorted by bundle name).
    pub fn hit_counts(&self) -> &BTreeMap<String, i64> {
        &self.hit_counts
    }

    /// `findBundlesToSplit`. `bundle_stats` is this broker's bundle → stats map in its iteration
    /// order. Per bundle, in order: `topics < 2` → skip; not owned → skip; range not wider than 1 →
    /// `Failure/Unknown`; the hit counter is incremented when a limit is exceeded, removed otherwise;
    /// counter `<= threshold` → skip; `count + acceptedSoFar >= loadBalancerNamespaceMaximumBundles` →
    /// skip; a related bundle is `Splitting` → skip; the default algorithm must give exactly one cut
    /// point (else `Failure/Unknown`); then the split is decided, its counter removed, and the loop stops
    /// when `loadBalancerMaxNumberOfBundlesToSplitPerCycle` decisions are reached.
    pub fn find_bundles_to_split(
        &mut self,
        bundle_stats: &[(String, NamespaceBundleStats)],
        input: &dyn ExtensibleSplitInput,
        cfg: &LoadBalancerConfig,
    ) -> ExtensibleSplitCycle {
        let thresholds = SplitThresholds::from_config(cfg);
        let max_splits = cfg.load_balancer_max_number_of_bundles_to_split_per_cycle;
        let threshold = cfg.load_balancer_namespace_bundle_split_condition_hit_count_threshold;
        let splitting: Vec<(String, String)> = input
            .splitting_bundles()
            .into_iter()
            .map(|b| {
                let range = BundleName::range_text_of(&b).to_string();
                (b, range)
            })
            .collect();
        let mut out = ExtensibleSplitCycle::default();
        let mut accepted_per_namespace: BTreeMap<String, i64> = BTreeMap::new();

        // Counters of bundles no longer reported are dropped first.
        self.hit_counts
            .retain(|b, _| bundle_stats.iter().any(|(name, _)| name == b));

        for (bundle, stats) in bundle_stats {
            let mut skip = |why| out.skipped.push((bundle.clone(), why));
            if stats.topics < 2 {
                skip(ExtensibleSplitSkip::FewerThanTwoTopics {
                    topics: stats.topics,
                });
                continue;
            }
            if !input.is_owner(bundle) {
                skip(ExtensibleSplitSkip::NotOwner);
                continue;
            }
            let namespace = BundleName::namespace_of(bundle);
            let range_text = BundleName::range_text_of(bundle);
            // Pulsar would throw out of the whole cycle on an unparsable range; we count a failure.
            let range = match BundleRange::parse(range_text) {
                Ok(r) if r.is_splittable() => r,
                _ => {
                    out.failure_unknown += 1;
                    out.skipped
                        .push((bundle.clone(), ExtensibleSplitSkip::RangeNotSplittable));
                    continue;
                }
            };
            let sessions = stats.consumer_count.saturating_add(stats.producer_count);
            let trigger = thresholds
                .exceeded(
                    stats.topics,
                    sessions,
                    stats.msg_rate_in + stats.msg_rate_out,
                    stats.msg_throughput_in + stats.msg_throughput_out,
                )
                .into_iter()
                .next();
            let hit_count = match trigger {
                Some(_) => {
                    let c = self.hit_counts.entry(bundle.clone()).or_insert(0);
                    *c += 1;
                    *c
                }
                None => {
                    self.hit_counts.remove(bundle);
                    0
                }
            };
            let Some(trigger) = trigger.filter(|_| hit_count > threshold) else {
                out.skipped.push((
                    bundle.clone(),
                    ExtensibleSplitSkip::HitCountNotAboveThreshold {
                        hit_count,
                        threshold,
                        trigger,
                    },
                ));
                continue;
            };
            let Some(current) = input.namespace_bundle_count(namespace) else {
                out.failure_unknown += 1;
                out.skipped.push((
                    bundle.clone(),
                    ExtensibleSplitSkip::NamespaceBundleCountUnavailable {
                        namespace: namespace.to_string(),
                    },
                ));
                continue;
            };
            let so_far = accepted_per_namespace.get(namespace).copied().unwrap_or(0);
            if current.saturating_add(so_far) >= thresholds.max_bundles_per_namespace {
                out.skipped.push((
                    bundle.clone(),
                    ExtensibleSplitSkip::NamespaceAtMaximumBundles {
                        namespace: namespace.to_string(),
                        current_bundles: current,
                        accepted_this_cycle: so_far,
                        maximum: thresholds.max_bundles_per_namespace,
                    },
                ));
                continue;
            }
            if let Some(splitting_bundle) = related_splitting(&splitting, namespace, range_text) {
                out.skipped.push((
                    bundle.clone(),
                    ExtensibleSplitSkip::RelatedBundleSplitting { splitting_bundle },
                ));
                continue;
            }
            let children = match input.split_boundary(bundle, range) {
                Ok(SplitPoints::Split(points)) => match points.as_slice() {
                    [cut] if *cut > range.lo && *cut < range.hi => {
                        match (
                            BundleRange::new(range.lo, *cut),
                            BundleRange::new(*cut, range.hi),
                        ) {
                            (Ok(left), Ok(right)) => Ok([left, right]),
                            _ => Err(format!("split boundary {cut:#010x} outside the bundle")),
                        }
                    }
                    [cut] => Err(format!("split boundary {cut:#010x} outside the bundle")),
                    other => Err(format!(
                        "the size of split boundaries is not 1 ({} points)",
                        other.len()
                    )),
                },
                Ok(SplitPoints::NoSplit(why)) => {
                    Err(format!("the split boundaries is null ({why:?})"))
                }
                Err(e) => Err(format!("failed to get split boundaries: {e}")),
            };
            let children = match children {
                Ok(c) => c,
                Err(why) => {
                    out.failure_unknown += 1;
                    out.skipped.push((
                        bundle.clone(),
                        ExtensibleSplitSkip::NoSingleSplitBoundary { why },
                    ));
                    continue;
                }
            };
            out.decisions.push(ExtensibleSplitDecision {
                service_unit: bundle.clone(),
                source_broker: input.local_broker().to_string(),
                children,
                reason: SplitReason::of(&trigger),
                trigger,
                hit_count,
            });
            accepted_per_namespace.insert(namespace.to_string(), so_far + 1);
            self.hit_counts.remove(bundle);
            // Java compares `size == max`: a limit of 0 or less never stops the loop.
            if i64::try_from(out.decisions.len()).is_ok_and(|n| n == max_splits) {
                out.stopped_at_split_limit = true;
                break;
            }
        }
        out
    }
}

/// A `Splitting` bundle whose name starts with the namespace (a plain string prefix, as in Pulsar) and
/// whose range starts with this bundle's lower bound text or ends with its upper bound text.
fn related_splitting(
    splitting: &[(String, String)],
    namespace: &str,
    range_text: &str,
) -> Option<String> {
    let (lower, upper) = range_text.split_once('_')?;
    splitting
        .iter()
        .find(|(name, range)| {
            name.starts_with(namespace) && (range.starts_with(lower) || range.ends_with(upper))
        })
        .map(|(name, _)| name.clone())
}
