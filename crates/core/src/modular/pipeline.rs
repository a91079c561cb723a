//! The modular load manager's candidate pipeline (§6.4–6.5): `selectBrokerForAssignment` /
//! `selectBroker` narrowing the live brokers step by step before the placement strategy picks, and
//! the anti-affinity check the shedding cycle runs before unloading.
//!
//! The candidate set is a [`JavaHashSet`] reused across calls like Pulsar's `brokerCandidateCache`,
//! so strategies see the candidates in the order Java would iterate them.

use indexmap::{IndexMap, IndexSet};
use serde::{Deserialize, Serialize};

use super::LoadData;
use super::load_data::namespace_of_bundle;
use super::placement::java_order::JavaHashSet;
use super::placement::{PlacementChoice, PlacementStrategy, RoundRobinBrokerSelector};
use crate::config::LoadBalancerConfig;
use crate::model::BundleData;
use crate::rng::Picker;

/// `LoadManagerShared.DEFAULT_DOMAIN_TYPE`: the failure domain of brokers listed in none.
pub const DEFAULT_DOMAIN: &str = "default";

/// The namespace Pulsar always distributes evenly, whatever the setting says.
const SYSTEM_NAMESPACE: &str = "pulsar/system";

/// What the leader knows besides `LoadData` when it places a bundle.
#[derive(Clone, Debug, Default)]
pub struct PlacementContext {
    /// Namespace (`tenant/ns`) → `namespaceAntiAffinityGroup`.
    pub namespace_anti_affinity_groups: IndexMap<String, String>,
    /// Failure domain → its brokers (`failureDomainsEnabled` decides whether it is used).
    pub failure_domains: IndexMap<String, Vec<String>>,
    /// `brokerToNamespaceToBundleRange`: broker → namespace → bundle ranges it serves or was
    /// preallocated (even distribution and anti-affinity count these).
    pub bundle_range_cache: IndexMap<String, IndexMap<String, IndexSet<String>>>,
    /// `preallocatedBundleToBroker`: bundle → the broker it was assigned to.
    pub preallocated: IndexMap<String, String>,
    /// `getAvailableBrokers()`: registered brokers; `None` means every broker with load data.
    pub available_brokers: Option<Vec<String>>,
    /// Bundles that hold non-persistent topics (need `nonPersistentTopicsEnabled`).
    pub non_persistent_bundles: IndexSet<String>,
    /// The selector for `loadBalancerSheddingExcludedNamespaces`, a manager-level instance.
    pub round_robin: RoundRobinBrokerSelector,
    /// Capacity the reused candidate set has grown to (Java never shrinks it).
    candidate_cache_capacity: usize,
}

/// Which entry point runs the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectionPath {
    /// `selectBrokerForAssignment`: answers from preallocations first, preallocates the result.
    Assignment,
    /// `selectBroker` as the shedding cycle calls it: no preallocation either way.
    Shedding,
}

/// One pipeline step and what it left.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PipelineStage {
    /// `after_namespace_policies`, `after_large_topic_count`, `after_anti_affinity`,
    /// `after_distribute_evenly`, `after_broker_filters`, `after_restore_all`, `reselect_policy_only`.
    pub stage: String,
    /// Candidates after the step, in iteration order.
    pub remaining: Vec<String>,
    /// Candidates the step removed (or, for restores, that it brought back).
    pub removed: Vec<String>,
    /// The numbers behind the step, when it has any.
    pub note: Option<String>,
}

/// The pipeline's answer for one bundle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacementOutcome {
    pub bundle: String,
    /// The chosen broker; `None` when no broker is available.
    pub broker: Option<String>,
    /// The strategy's final answer (after the overload re-selection, if it ran).
    pub choice: Option<PlacementChoice>,
    /// The strategy that decided (`RoundRobinBrokerSelector` for excluded namespaces).
    pub strategy: String,
    pub stages: Vec<PipelineStage>,
    /// The first choice when it landed on an overloaded broker and the strategy was re-run on the
    /// policy-only set.
    pub overloaded_first_choice: Option<PlacementChoice>,
    /// Answered from `preallocatedBundleToBroker` without running the pipeline.
    pub from_preallocation: bool,
}

/// The `tenant/ns` and range parts of a bundle name.
fn split_bundle(bundle: &str) -> (&str, &str) {
    match bundle.rsplit_once('/') {
        Some((ns, range)) => (ns, range),
        None => (bundle, ""),
    }
}

impl PlacementContext {
    pub fn new() -> Self {
        Self::default()
    }

    /// Rebuilds `brokerToNamespaceToBundleRange` from every broker's reported bundles (`bundles`
    /// and `lastStats`) and preallocated bundles, as the leader does on each update.
    pub fn rebuild_bundle_range_cache(&mut self, data: &LoadData) {
        self.bundle_range_cache.clear();
        for (broker, bd) in &data.brokers {
            let entry = self.bundle_range_cache.entry(broker.clone()).or_default();
            let reported = bd.local.bundles.iter().chain(bd.local.last_stats.keys());
            for bundle in reported.chain(bd.preallocated.keys()) {
                let (ns, range) = split_bundle(bundle);
                entry
                    .entry(ns.to_string())
                    .or_default()
                    .insert(range.to_string());
            }
        }
    }

    /// Records a bundle as served by a broker in the range cache.
    pub fn add_to_bundle_range_cache(&mut self, broker: &str, bundle: &str) {
        let (ns, range) = split_bundle(bundle);
        self.bundle_range_cache
            .entry(broker.to_string())
            .or_default()
            .entry(ns.to_string())
            .or_default()
            .insert(range.to_string());
    }

    /// The registered brokers in the order Pulsar iterates them (`LoadData.brokers` is kept in
    /// the broker map's Java iteration order).
    pub fn available_brokers(&self, data: &LoadData) -> Vec<String> {
        match &self.available_brokers {
            Some(list) => list.clone(),
            None => data.brokers.keys().cloned().collect(),
        }
    }

    fn anti_affinity_group(&self, namespace: &str) -> Option<&str> {
        self.namespace_anti_affinity_groups
            .get(namespace)
            .map(|g| g.as_str())
            .filter(|g| !g.trim().is_empty())
    }

    /// `brokerToFailureDomainMap`: broker → domain (a broker listed twice keeps the last domain).
    fn broker_to_domain(&self) -> IndexMap<&str, &str> {
        let mut out = IndexMap::new();
        for (domain, brokers) in &self.failure_domains {
            for b in brokers {
                out.insert(b.as_str(), domain.as_str());
            }
        }
        out
    }

    /// `getAntiAffinityNamespaceOwnedBrokers`: broker → number of namespaces of the bundle's
    /// anti-affinity group with at least one cached range on it. `None` when the namespace has no group.
    pub fn anti_affinity_namespace_counts(&self, namespace: &str) -> Option<IndexMap<String, i64>> {
        let group = self.anti_affinity_group(namespace)?;
        let mut counts: IndexMap<String, i64> = IndexMap::new();
        for (broker, namespaces) in &self.bundle_range_cache {
            for (ns, ranges) in namespaces {
                if ranges.is_empty() {
                    continue;
                }
                let same_group = self
                    .anti_affinity_group(ns)
                    .is_some_and(|g| g.eq_ignore_ascii_case(group));
                if same_group {
                    *counts.entry(broker.clone()).or_insert(0) += 1;
                }
            }
        }
        Some(counts)
    }
}

/// `applyNamespacePolicies` without isolation policies: every broker is shared; keep the available
/// brokers with load data that support the bundle's topic kind.
fn apply_namespace_policies(
    bundle: &str,
    data: &LoadData,
    ctx: &PlacementContext,
    set: &mut JavaHashSet,
) {
    set.clear();
    let non_persistent = ctx.non_persistent_bundles.contains(bundle);
    for broker in ctx.available_brokers(data) {
        let Some(bd) = data.brokers.get(&broker) else {
            continue;
        };
        let supported = if non_persistent {
            bd.local.non_persistent_topics_enabled
        } else {
            bd.local.persistent_topics_enabled
        };
        if supported {
            set.insert(&broker);
        }
    }
}

/// `shouldNamespacePoliciesUnload`: some broker other than the current owner may take the bundle.
pub fn should_namespace_policies_unload(
    bundle: &str,
    current_broker: &str,
    data: &LoadData,
    ctx: &PlacementContext,
) -> bool {
    let mut set = JavaHashSet::new();
    apply_namespace_policies(bundle, data, ctx, &mut set);
    !set.is_empty() && (set.len() > 1 || !set.contains(current_broker))
}

/// `filterBrokersWithLargeTopicCount`: keep brokers whose topics (reported + preallocated) are within
/// `loadBalancerBrokerMaxTopics`; keep everyone if that would leave none.
fn filter_large_topic_count(set: &mut JavaHashSet, data: &LoadData, max_topics: i64) -> String {
    let mut filtered = JavaHashSet::new();
    let mut over = Vec::new();
    for broker in set.iter() {
        let total: i64 = data.brokers.get(broker).map_or(0, |bd| {
            let pre: i64 = bd.preallocated.values().map(|b| i64::from(b.topics)).sum();
            pre.saturating_add(bd.local.num_topics)
        });
        if total <= max_topics {
            filtered.insert(broker);
        } else {
            over.push(format!("{broker}={total}"));
        }
    }
    let mut note = format!("loadBalancerBrokerMaxTopics={max_topics}");
    if !over.is_empty() {
        note.push_str(&format!("; over: {}", over.join(", ")));
    }
    if filtered.is_empty() {
        note.push_str("; none left, all kept");
    } else {
        let order = filtered.to_vec();
        set.clear();
        for b in &order {
            set.insert(b);
        }
    }
    note
}

/// `filterAntiAffinityGroupOwnedBrokers` (§6.5).
fn filter_anti_affinity(
    bundle: &str,
    set: &mut JavaHashSet,
    ctx: &PlacementContext,
    cfg: &LoadBalancerConfig,
) -> Option<String> {
    if set.is_empty() {
        return None;
    }
    let namespace = namespace_of_bundle(bundle);
    let group = ctx.anti_affinity_group(namespace)?.to_string();
    let counts = ctx.anti_affinity_namespace_counts(namespace)?;
    let mut note = format!(
        "group {group}: namespaces per broker {}",
        if counts.is_empty() {
            "none".to_string()
        } else {
            counts
                .iter()
                .map(|(b, c)| format!("{b}={c}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    let domains = ctx.broker_to_domain();
    if cfg.failure_domains_enabled && !domains.is_empty() {
        // Sum per domain over the candidates; keep only the domains with the least.
        let mut per_domain: IndexMap<&str, i64> = IndexMap::new();
        for broker in set.iter() {
            let domain = domains
                .get(broker.as_str())
                .copied()
                .unwrap_or(DEFAULT_DOMAIN);
            let count = counts.get(broker).copied().unwrap_or(0);
            *per_domain.entry(domain).or_insert(0) += count;
        }
        let least = per_domain.values().copied().min().unwrap_or(i64::MAX);
        let keep_domain = |broker: &str| {
            let domain = domains.get(broker).copied().unwrap_or(DEFAULT_DOMAIN);
            per_domain.get(domain).is_none_or(|c| *c == least)
        };
        note.push_str(&format!(
            "; per failure domain {} (least {least})",
            per_domain
                .iter()
                .map(|(d, c)| format!("{d}={c}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        set.retain(|b| keep_domain(b));
    }
    // A candidate absent from the counts owns none of the group's namespaces.
    let mut least = i64::MAX;
    for broker in set.iter() {
        match counts.get(broker) {
            Some(c) => least = least.min(*c),
            None => {
                least = 0;
                break;
            }
        }
    }
    if least == 0 {
        set.retain(|b| counts.get(b).is_none_or(|c| *c <= 0));
    } else {
        set.retain(|b| counts.get(b).is_some_and(|c| *c == least));
    }
    Some(note)
}

/// `removeMostServicingBrokersForNamespace`: keep the candidates with the fewest cached ranges of the
/// bundle's namespace.
pub fn remove_most_servicing_brokers_for_namespace(
    bundle: &str,
    set: &mut JavaHashSet,
    cache: &IndexMap<String, IndexMap<String, IndexSet<String>>>,
) -> Option<String> {
    if set.is_empty() {
        return None;
    }
    let namespace = namespace_of_bundle(bundle);
    let count = |broker: &str| {
        cache
            .get(broker)
            .and_then(|m| m.get(namespace))
            .map_or(0, IndexSet::len)
    };
    let min = set.iter().map(|b| count(b)).min().unwrap_or(0);
    let listed = set
        .iter()
        .map(|b| format!("{b}={}", count(b)))
        .collect::<Vec<_>>()
        .join(", ");
    set.retain(|b| count(b) == min);
    Some(format!(
        "bundles of {namespace} per broker: {listed} (min {min})"
    ))
}

/// A broker version as `BrokerVersionFilter` compares it (semver core, then pre-release).
fn parse_version(text: &str) -> Option<(u64, u64, u64, Option<String>)> {
    let core_and_pre = text.trim().split('+').next()?;
    let (core, pre) = match core_and_pre.split_once('-') {
        Some((c, p)) => (c, Some(p.to_string())),
        None => (core_and_pre, None),
    };
    let mut parts = core.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next()?.parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some((major, minor, patch, pre))
}

fn version_key(v: &(u64, u64, u64, Option<String>)) -> (u64, u64, u64, bool, String) {
    // A release sorts after its pre-releases.
    (
        v.0,
        v.1,
        v.2,
        v.3.is_none(),
        v.3.clone().unwrap_or_default(),
    )
}

/// The filter pipeline: `BrokerLoadManagerClassFilter`, then `BrokerVersionFilter` when
/// `preferLaterVersions`. `Err` when a filter throws (Pulsar then restores the policy-only set).
fn apply_broker_filters(
    set: &mut JavaHashSet,
    data: &LoadData,
    cfg: &LoadBalancerConfig,
) -> Result<Option<String>, String> {
    // A report without `loadManagerClassName` is kept: in our snapshots a missing field means "not
    // exported", not Java's null (which Pulsar would drop).
    set.retain(|b| {
        data.brokers.get(b).is_some_and(|bd| {
            bd.local
                .load_manager_class_name
                .as_deref()
                .is_none_or(|c| c == cfg.load_manager_class_name)
        })
    });
    if !cfg.prefer_later_versions {
        return Ok(None);
    }
    let mut latest: Option<(u64, u64, u64, Option<String>)> = None;
    for b in set.iter() {
        let text = data
            .brokers
            .get(b)
            .and_then(|bd| bd.local.broker_version_string.clone())
            .unwrap_or_default();
        let v = parse_version(&text)
            .ok_or_else(|| format!("bad brokerVersionString `{text}` on {b}"))?;
        if latest
            .as_ref()
            .is_none_or(|l| version_key(&v) > version_key(l))
        {
            latest = Some(v);
        }
    }
    let Some(latest) = latest else {
        return Ok(None);
    };
    set.retain(|b| {
        data.brokers
            .get(b)
            .and_then(|bd| bd.local.broker_version_string.as_deref())
            .and_then(parse_version)
            .is_some_and(|v| version_key(&v) == version_key(&latest))
    });
    if set.is_empty() {
        return Err("no broker left after the version filter".to_string());
    }
    Ok(Some(format!(
        "preferLaterVersions: kept {}.{}.{}{}",
        latest.0,
        latest.1,
        latest.2,
        latest.3.map(|p| format!("-{p}")).unwrap_or_default()
    )))
}

fn record(
    stages: &mut Vec<PipelineStage>,
    stage: &str,
    before: &[String],
    set: &JavaHashSet,
    note: Option<String>,
) {
    let remaining = set.to_vec();
    let removed = before
        .iter()
        .filter(|b| !set.contains(b))
        .cloned()
        .collect();
    stages.push(PipelineStage {
        stage: stage.to_string(),
        remaining,
        removed,
        note,
    });
}

/// `selectBrokerForAssignment` (path `Assignment`) or `selectBroker` (path `Shedding`): the §6.4 steps
/// in order, then the strategy, the overload re-selection and (assignment path) the preallocation.
#[allow(clippy::too_many_arguments)]
pub fn select_broker_for_bundle(
    bundle: &str,
    bundle_data: &BundleData,
    path: SelectionPath,
    data: &mut LoadData,
    ctx: &mut PlacementContext,
    cfg: &LoadBalancerConfig,
    placement: &mut dyn PlacementStrategy,
    picker: &mut dyn Picker,
) -> PlacementOutcome {
    let namespace = namespace_of_bundle(bundle).to_string();
    let excluded = cfg
        .load_balancer_shedding_excluded_namespaces
        .contains(&namespace);
    let strategy_name = if excluded {
        ctx.round_robin.name().to_string()
    } else {
        placement.name().to_string()
    };
    if path == SelectionPath::Assignment
        && let Some(broker) = ctx.preallocated.get(bundle)
    {
        return PlacementOutcome {
            bundle: bundle.to_string(),
            broker: Some(broker.clone()),
            choice: Some(PlacementChoice {
                broker: broker.clone(),
                choice_set: vec![broker.clone()],
                reason: "already preallocated to this broker".to_string(),
                pick_rejected: false,
            }),
            strategy: strategy_name,
            stages: Vec::new(),
            overloaded_first_choice: None,
            from_preallocation: true,
        };
    }

    let mut set = JavaHashSet::with_min_capacity(ctx.candidate_cache_capacity);
    let mut stages = Vec::new();

    apply_namespace_policies(bundle, data, ctx, &mut set);
    let available = ctx.available_brokers(data);
    record(
        &mut stages,
        "after_namespace_policies",
        &available,
        &set,
        None,
    );

    let before = set.to_vec();
    let note = filter_large_topic_count(&mut set, data, cfg.load_balancer_broker_max_topics);
    record(
        &mut stages,
        "after_large_topic_count",
        &before,
        &set,
        Some(note),
    );

    let before = set.to_vec();
    let note = filter_anti_affinity(bundle, &mut set, ctx, cfg);
    record(&mut stages, "after_anti_affinity", &before, &set, note);

    if cfg.load_balancer_distribute_bundles_evenly_enabled || namespace == SYSTEM_NAMESPACE {
        let before = set.to_vec();
        let note =
            remove_most_servicing_brokers_for_namespace(bundle, &mut set, &ctx.bundle_range_cache);
        record(&mut stages, "after_distribute_evenly", &before, &set, note);
    }

    let before = set.to_vec();
    match apply_broker_filters(&mut set, data, cfg) {
        Ok(note) => record(&mut stages, "after_broker_filters", &before, &set, note),
        Err(why) => {
            apply_namespace_policies(bundle, data, ctx, &mut set);
            record(
                &mut stages,
                "after_broker_filters",
                &before,
                &set,
                Some(format!(
                    "a filter failed ({why}); restored the policy-only set"
                )),
            );
        }
    }

    if set.is_empty() {
        apply_namespace_policies(bundle, data, ctx, &mut set);
        let restored = set.to_vec();
        stages.push(PipelineStage {
            stage: "after_restore_all".to_string(),
            remaining: restored.clone(),
            removed: restored,
            note: Some("no candidate left; restored the policy-only set".to_string()),
        });
    }

    // The round-robin selector lives in the context; take it out while the context is also read.
    let mut round_robin = std::mem::take(&mut ctx.round_robin);
    let strategy: &mut dyn PlacementStrategy = if excluded {
        &mut round_robin
    } else {
        placement
    };
    let candidates = set.to_vec();
    let mut choice = strategy.select_broker(&candidates, bundle, bundle_data, data, cfg, picker);

    let mut overloaded_first_choice = None;
    if let Some(first) = &choice {
        let threshold = cfg.overloaded_threshold_fraction();
        let usage = data.brokers.get(&first.broker).map_or(0.0, |bd| {
            bd.local
                .max_resource_usage_with_weight(&cfg.resource_weights())
        });
        if usage > threshold {
            apply_namespace_policies(bundle, data, ctx, &mut set);
            let retry_candidates = set.to_vec();
            stages.push(PipelineStage {
                stage: "reselect_policy_only".to_string(),
                remaining: retry_candidates.clone(),
                removed: Vec::new(),
                note: Some(format!(
                    "{} is at {:.2}% > loadBalancerBrokerOverloadedThresholdPercentage={}; strategy re-run on the policy-only set",
                    first.broker,
                    usage * 100.0,
                    cfg.load_balancer_broker_overloaded_threshold_percentage
                )),
            });
            let retry =
                strategy.select_broker(&retry_candidates, bundle, bundle_data, data, cfg, picker);
            if let Some(retry) = retry {
                overloaded_first_choice = choice.replace(retry);
            }
        }
    }
    ctx.round_robin = round_robin;
    ctx.candidate_cache_capacity = ctx.candidate_cache_capacity.max(set.capacity());

    let broker = choice.as_ref().map(|c| c.broker.clone());
    if path == SelectionPath::Assignment
        && let Some(b) = &broker
    {
        preallocate(bundle, b, bundle_data, data, ctx);
    }
    PlacementOutcome {
        bundle: bundle.to_string(),
        broker,
        choice,
        strategy: strategy_name,
        stages,
        overloaded_first_choice,
        from_preallocation: false,
    }
}

/// `preallocateBundle`: the broker's preallocated data (the leader's bundle data, created from
/// `bundle_data` when unknown), the bundle → broker map and the range cache.
pub fn preallocate(
    bundle: &str,
    broker: &str,
    bundle_data: &BundleData,
    data: &mut LoadData,
    ctx: &mut PlacementContext,
) {
    let stored = *data
        .bundle_data
        .entry(bundle.to_string())
        .or_insert(*bundle_data);
    if let Some(bd) = data.brokers.get_mut(broker) {
        bd.preallocated.insert(bundle.to_string(), stored);
    }
    ctx.preallocated
        .insert(bundle.to_string(), broker.to_string());
    ctx.add_to_bundle_range_cache(broker, bundle);
}

/// `shouldAntiAffinityNamespaceUnload` (§6.5): whether unloading the bundle from `current_broker`
/// can move it to a broker with fewer namespaces of its anti-affinity group. Always true without a group.
pub fn should_anti_affinity_namespace_unload(
    bundle: &str,
    current_broker: &str,
    data: &LoadData,
    ctx: &PlacementContext,
) -> bool {
    let namespace = namespace_of_bundle(bundle);
    let Some(counts) = ctx.anti_affinity_namespace_counts(namespace) else {
        return true;
    };
    if counts.is_empty() {
        return true;
    }
    let mut candidates = JavaHashSet::new();
    apply_namespace_policies(bundle, data, ctx, &mut candidates);
    let count = |b: &str| counts.get(b).copied().unwrap_or(0);
    let mut least = i64::MAX;
    let mut current = 0;
    for b in candidates.iter() {
        let c = count(b);
        if b == current_broker {
            current = c;
        }
        least = least.min(c);
    }
    if least == 0 || current > least {
        return true;
    }
    let at_least = candidates.iter().filter(|b| count(b) == least).count();
    candidates.len() != at_least
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::modular::BrokerData;

    fn brokers(names: &[&str]) -> LoadData {
        let mut data = LoadData::default();
        for n in names {
            data.brokers.insert(n.to_string(), BrokerData::default());
        }
        data
    }

    #[test]
    fn anti_affinity_with_failure_domains() {
        // Oracle handmade-pipeline_2_anti_affinity: t/ns1 and t/ns2 in group g1, b1 owns a t/ns1
        // bundle, domains d1={b1,b2}, d2={b3}: the first t/ns2 bundle can only go to b3.
        let mut ctx = PlacementContext::new();
        ctx.namespace_anti_affinity_groups
            .insert("t/ns1".into(), "g1".into());
        ctx.namespace_anti_affinity_groups
            .insert("t/ns2".into(), "G1".into());
        ctx.failure_domains
            .insert("d1".into(), vec!["b1:8080".into(), "b2:8080".into()]);
        ctx.failure_domains
            .insert("d2".into(), vec!["b3:8080".into()]);
        ctx.add_to_bundle_range_cache("b1:8080", "t/ns1/0x00000000_0x10000000");
        let mut cfg = LoadBalancerConfig::pulsar_4x();
        cfg.failure_domains_enabled = true;
        let mut set = JavaHashSet::from_ordered(["b1:8080", "b2:8080", "b3:8080"]);
        filter_anti_affinity("t/ns2/0x00000000_0x10000000", &mut set, &ctx, &cfg);
        assert_eq!(set.to_vec(), ["b3:8080"]);
        // Without failure domains, b2 and b3 own none of the group.
        cfg.failure_domains_enabled = false;
        let mut set = JavaHashSet::from_ordered(["b1:8080", "b2:8080", "b3:8080"]);
        filter_anti_affinity("t/ns2/0x00000000_0x10000000", &mut set, &ctx, &cfg);
        assert_eq!(set.len(), 2);
        assert!(!set.contains("b1:8080"));
    }

    #[test]
    fn anti_affinity_unload_check() {
        let data = brokers(&["b1:8080", "b2:8080"]);
        let mut ctx = PlacementContext::new();
        ctx.namespace_anti_affinity_groups
            .insert("t/a".into(), "g".into());
        ctx.namespace_anti_affinity_groups
            .insert("t/b".into(), "g".into());
        ctx.add_to_bundle_range_cache("b1:8080", "t/a/0x00000000_0x80000000");
        // b2 owns none of the group: moving is allowed.
        assert!(should_anti_affinity_namespace_unload(
            "t/a/0x00000000_0x80000000",
            "b1:8080",
            &data,
            &ctx
        ));
        // Both own one namespace of the group: every candidate has the minimum, so no unload.
        ctx.add_to_bundle_range_cache("b2:8080", "t/b/0x00000000_0x80000000");
        assert!(!should_anti_affinity_namespace_unload(
            "t/a/0x00000000_0x80000000",
            "b1:8080",
            &data,
            &ctx
        ));
        // No group: always allowed.
        assert!(should_anti_affinity_namespace_unload(
            "t/c/0x00000000_0x80000000",
            "b1:8080",
            &data,
            &ctx
        ));
    }

    #[test]
    fn max_topics_keeps_all_when_none_fit() {
        let mut data = brokers(&["b1:8080", "b2:8080"]);
        for b in data.brokers.values_mut() {
            b.local.num_topics = 150;
        }
        let mut set = JavaHashSet::from_ordered(["b1:8080", "b2:8080"]);
        filter_large_topic_count(&mut set, &data, 100);
        assert_eq!(set.len(), 2);
        if let Some(b) = data.brokers.get_mut("b2:8080") {
            b.local.num_topics = 50;
        }
        filter_large_topic_count(&mut set, &data, 100);
        assert_eq!(set.to_vec(), ["b2:8080"]);
    }

    #[test]
    fn even_distribution_keeps_least_servicing() {
        // pulsar-unit-tests placement/remove_most_servicing_brokers_for_namespace, step 6.
        let mut ctx = PlacementContext::new();
        ctx.add_to_bundle_range_cache("broker1", "tenant1/ns1/0x40000000_0x80000000");
        ctx.add_to_bundle_range_cache("broker2", "tenant1/ns1/0x80000000_0xc0000000");
        ctx.add_to_bundle_range_cache("broker2", "tenant1/ns1/0xc0000000_0xd0000000");
        let mut set = JavaHashSet::from_ordered(["broker1", "broker2"]);
        remove_most_servicing_brokers_for_namespace(
            "tenant1/ns1/0x00000000_0x40000000",
            &mut set,
            &ctx.bundle_range_cache,
        );
        assert_eq!(set.to_vec(), ["broker1"]);
    }
}
