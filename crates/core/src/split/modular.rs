//! The modular load manager's automatic split decision (`BundleSplitterTask.findBundlesToSplit`,
//! leader only): which bundles of every broker's last report exceed a limit, on the leader's
//! **long-term** averages, within the per-namespace bundle cap.

use indexmap::IndexMap;

use super::SplitTrigger;
use super::thresholds::SplitThresholds;
use crate::config::LoadBalancerConfig;
use crate::model::{BundleData, NamespaceBundleStats};
use crate::naming::BundleName;

/// One broker's last report, bundles in the order its `lastStats` map iterates.
#[derive(Clone, Debug)]
pub struct BrokerBundleStats<'a> {
    pub broker: &'a str,
    pub bundles: Vec<(&'a str, &'a NamespaceBundleStats)>,
}

/// An accepted bundle and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ModularSplitCandidate {
    pub bundle: String,
    /// The broker whose report listed it (the last one, if several did).
    pub broker: String,
    /// Every limit exceeded, highest priority first (never empty).
    pub triggers: Vec<SplitTrigger>,
}

/// Why a reported bundle was not chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum ModularSplitSkip {
    FewerThanTwoTopics {
        topics: i64,
    },
    NoLimitExceeded,
    /// The namespace's bundle count could not be read (Pulsar logs the exception and moves on).
    NamespaceBundleCountUnavailable {
        namespace: String,
    },
    /// `currentBundleCount + acceptedThisCycle >= loadBalancerNamespaceMaximumBundles`.
    NamespaceAtMaximumBundles {
        namespace: String,
        current_bundles: i64,
        accepted_this_cycle: i64,
        maximum: i64,
        triggers: Vec<SplitTrigger>,
    },
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModularSplitPlan {
    /// Accepted bundles, in decision order (`bundleCache`).
    pub accepted: Vec<ModularSplitCandidate>,
    /// Every other reported bundle: (bundle, broker, why).
    pub skipped: Vec<(String, String, ModularSplitSkip)>,
}

/// `ModularLoadManagerImpl.checkNamespaceBundleSplit` runs the task only with
/// `loadBalancerAutoBundleSplitEnabled` and more than one known broker.
pub fn auto_split_runs(cfg: &LoadBalancerConfig, known_brokers: usize) -> bool {
    cfg.load_balancer_auto_bundle_split_enabled && known_brokers > 1
}

/// `BundleSplitterTask.findBundlesToSplit`: brokers in `LoadData` iteration order, each broker's
/// `lastStats` in its order. For each entry: skip `topics < 2`; take the long-term `totalMsgRate` /
/// `totalMsgThroughput` of the bundle's `BundleData` (0 when the leader has none); a candidate exceeds
/// the topic, session, rate or bandwidth limit; it is accepted while
/// `namespace_bundle_count(ns) + acceptedSoFar(ns) < loadBalancerNamespaceMaximumBundles`. A count of
/// `None` (the namespace service failed) skips the bundle.
pub fn find_bundles_to_split<S: std::hash::BuildHasher>(
    brokers: &[BrokerBundleStats<'_>],
    bundle_data: &IndexMap<String, BundleData, S>,
    namespace_bundle_count: impl Fn(&str) -> Option<i64>,
    thresholds: &SplitThresholds,
) -> ModularSplitPlan {
    let mut plan = ModularSplitPlan::default();
    // `bundleCache` (a map: a bundle reported twice keeps its place, the later broker wins) and
    // `namespaceBundleCount`.
    let mut accepted: IndexMap<String, ModularSplitCandidate> = IndexMap::new();
    let mut accepted_per_namespace: IndexMap<String, i64> = IndexMap::new();
    for report in brokers {
        for &(bundle, stats) in &report.bundles {
            let skip = |why| (bundle.to_string(), report.broker.to_string(), why);
            if stats.topics < 2 {
                plan.skipped
                    .push(skip(ModularSplitSkip::FewerThanTwoTopics {
                        topics: stats.topics,
                    }));
                continue;
            }
            let (rate, throughput) = bundle_data.get(bundle).map_or((0.0, 0.0), |d| {
                (
                    d.long_term_data.total_msg_rate(),
                    d.long_term_data.total_msg_throughput(),
                )
            });
            let sessions = stats.consumer_count.saturating_add(stats.producer_count);
            let triggers = thresholds.exceeded(stats.topics, sessions, rate, throughput);
            if triggers.is_empty() {
                plan.skipped.push(skip(ModularSplitSkip::NoLimitExceeded));
                continue;
            }
            let namespace = BundleName::namespace_of(bundle);
            let Some(current) = namespace_bundle_count(namespace) else {
                plan.skipped
                    .push(skip(ModularSplitSkip::NamespaceBundleCountUnavailable {
                        namespace: namespace.to_string(),
                    }));
                continue;
            };
            let so_far = accepted_per_namespace.get(namespace).copied().unwrap_or(0);
            if current.saturating_add(so_far) < thresholds.max_bundles_per_namespace {
                accepted.insert(
                    bundle.to_string(),
                    ModularSplitCandidate {
                        bundle: bundle.to_string(),
                        broker: report.broker.to_string(),
                        triggers,
                    },
                );
                accepted_per_namespace.insert(namespace.to_string(), so_far + 1);
            } else {
                plan.skipped
                    .push(skip(ModularSplitSkip::NamespaceAtMaximumBundles {
                        namespace: namespace.to_string(),
                        current_bundles: current,
                        accepted_this_cycle: so_far,
                        maximum: thresholds.max_bundles_per_namespace,
                        triggers,
                    }));
            }
        }
    }
    plan.accepted = accepted.into_values().collect();
    plan
}
