//! The modular load manager's candidate pipeline (§6.4–6.5): `selectBrokerForAssignment` /
//! `selectBroker` narrowing the live brokers step by step before the placement strategy picks, and
//! the anti-affinity check the shedding cycle runs before unloading.
//!
//! The candidate set is a Java `HashSet` model ([`JavaHashTable`]) reused across calls like Pulsar's
//! `brokerCandidateCache`, so strategies see the candidates in the order Java would iterate them. It
//! holds brokers by their position in `LoadData.brokers` (with their names' hashes), so narrowing
//! the set allocates no names; how much of each step is written down is the context's
//! [`PipelineTrace`] level (the decisions do not depend on it).

use indexmap::{IndexMap, IndexSet};
use serde::{Deserialize, Serialize};

use super::load_data::namespace_of_bundle;
use super::placement::{PlacementChoice, PlacementStrategy, RoundRobinBrokerSelector};
use super::{BrokerData, LoadData};
use crate::config::LoadBalancerConfig;
use crate::isolation::{
    BrokerOffer, IsolationPolicies, IsolationPolicyError, NamespacePoliciesOutcome,
};
use crate::model::{BundleData, NamespaceIsolationPolicy};
use crate::naming::java_map_order::{JavaHashSet, JavaHashTable, hash_map_hash};
use crate::rng::Picker;

pub use super::placement::PipelineTrace;

/// `LoadManagerShared.DEFAULT_DOMAIN_TYPE`: the failure domain of brokers listed in none.
pub const DEFAULT_DOMAIN: &str = "default";

/// The namespace Pulsar always distributes evenly, whatever the setting says.
const SYSTEM_NAMESPACE: &str = "pulsar/system";

/// The candidate set: positions in `LoadData.brokers`, in Java `HashSet` order of their names.
type Candidates = JavaHashTable<usize>;

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
    /// The cluster's namespace isolation policies (none: every broker is shared).
    pub isolation: IsolationPolicies,
    /// Bundles that hold non-persistent topics (need `nonPersistentTopicsEnabled`).
    pub non_persistent_bundles: IndexSet<String>,
    /// The selector for `loadBalancerSheddingExcludedNamespaces`, a manager-level instance.
    pub round_robin: RoundRobinBrokerSelector,
    /// How much of each placement is explained (default: everything).
    pub trace: PipelineTrace,
    /// `brokerCandidateCache`, reused across selections: its capacity is what it has grown to (Java
    /// never shrinks it), and its buckets keep their allocations. `None` before the first selection.
    candidate_cache: Option<Candidates>,
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
    crate::naming::BundleName::parts(bundle).unwrap_or((bundle, ""))
}

/// Fills one broker's namespace → ranges map, remembering the last namespace's slot (a broker's
/// bundles often come grouped by namespace, so most bundles skip the namespace lookup).
struct RangeFiller<'m, 'b> {
    namespaces: &'m mut IndexMap<String, IndexSet<String>>,
    last: Option<(&'b str, usize)>,
}

impl<'m, 'b> RangeFiller<'m, 'b> {
    fn new(namespaces: &'m mut IndexMap<String, IndexSet<String>>) -> Self {
        Self {
            namespaces,
            last: None,
        }
    }

    fn add(&mut self, bundle: &'b str) {
        let (ns, range) = split_bundle(bundle);
        let slot = match self.last {
            Some((last_ns, slot)) if last_ns == ns => slot,
            _ => match self.namespaces.get_index_of(ns) {
                Some(slot) => slot,
                None => {
                    self.namespaces
                        .insert_full(ns.to_string(), IndexSet::new())
                        .0
                }
            },
        };
        self.last = Some((ns, slot));
        // `insert` keeps an existing range where it is; most ranges are new here, so one probe with
        // the copied name is cheaper than `contains` first.
        if let Some((_, ranges)) = self.namespaces.get_index_mut(slot) {
            ranges.insert(range.to_string());
        }
    }
}

impl PlacementContext {
    pub fn new() -> Self {
        Self::default()
    }

    /// Installs the cluster's isolation policies; returns what cannot be evaluated exactly (the
    /// policies still apply, as Pulsar's exception paths would).
    pub fn set_isolation_policies(
        &mut self,
        policies: &IndexMap<String, NamespaceIsolationPolicy>,
    ) -> Vec<IsolationPolicyError> {
        let (compiled, errors) = IsolationPolicies::compile(policies);
        self.isolation = compiled;
        errors
    }

    /// Rebuilds `brokerToNamespaceToBundleRange` from every broker's reported bundles (`bundles`
    /// and `lastStats`) and preallocated bundles, as the leader does on each update.
    pub fn rebuild_bundle_range_cache(&mut self, data: &LoadData) {
        self.bundle_range_cache.clear();
        for (broker, bd) in &data.brokers {
            let entry = self.bundle_range_cache.entry(broker.clone()).or_default();
            let mut filler = RangeFiller::new(entry);
            let bundles = &bd.local.bundles;
            for bundle in bundles {
                filler.add(bundle);
            }
            // Brokers report the same bundles in `bundles` and `lastStats`, usually in the same
            // order: a key equal to the name at its position in `bundles` is already in (adding it
            // again would change nothing), so only the others are looked up.
            for (i, bundle) in bd.local.last_stats.keys().enumerate() {
                if bundles.get(i) != Some(bundle) {
                    filler.add(bundle);
                }
            }
            for bundle in bd.preallocated.keys() {
                filler.add(bundle);
            }
        }
    }

    /// Records a bundle as served by a broker in the range cache.
    pub fn add_to_bundle_range_cache(&mut self, broker: &str, bundle: &str) {
        let slot = match self.bundle_range_cache.get_index_of(broker) {
            Some(slot) => slot,
            None => {
                self.bundle_range_cache
                    .insert_full(broker.to_string(), IndexMap::new())
                    .0
            }
        };
        if let Some((_, namespaces)) = self.bundle_range_cache.get_index_mut(slot) {
            RangeFiller::new(namespaces).add(bundle);
        }
    }

    /// Forgets that `broker` serves `bundle` (the bundle moved away), so anti-affinity counts follow
    /// a proposal's moves. An emptied namespace entry is left empty, which the counts skip.
    pub fn remove_from_bundle_range_cache(&mut self, broker: &str, bundle: &str) {
        let (ns, range) = split_bundle(bundle);
        if let Some(ranges) = self
            .bundle_range_cache
            .get_mut(broker)
            .and_then(|m| m.get_mut(ns))
        {
            ranges.shift_remove(range);
        }
    }

    /// The registered brokers in the order Pulsar iterates them (`LoadData.brokers` is kept in
    /// the broker map's Java iteration order).
    pub fn available_brokers(&self, data: &LoadData) -> Vec<String> {
        match &self.available_brokers {
            Some(list) => list.clone(),
            None => data.brokers.keys().cloned().collect(),
        }
    }

    /// `getAvailableBrokers().size()`, without copying the names.
    pub fn available_broker_count(&self, data: &LoadData) -> usize {
        match &self.available_brokers {
            Some(list) => list.len(),
            None => data.brokers.len(),
        }
    }

    /// The available brokers that have load data: (position in `data.brokers`, name, data).
    fn available_with_data<'d>(
        &'d self,
        data: &'d LoadData,
    ) -> Box<dyn Iterator<Item = (usize, &'d str, &'d BrokerData)> + 'd> {
        match &self.available_brokers {
            Some(list) => Box::new(list.iter().filter_map(|b| {
                data.brokers
                    .get_full(b.as_str())
                    .map(|(pos, name, bd)| (pos, name.as_str(), bd))
            })),
            None => Box::new(
                data.brokers
                    .iter()
                    .enumerate()
                    .map(|(pos, (name, bd))| (pos, name.as_str(), bd)),
            ),
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

/// The name of the broker at `pos` in `data.brokers`.
fn name_at(data: &LoadData, pos: usize) -> &str {
    data.brokers.get_index(pos).map_or("", |(n, _)| n.as_str())
}

/// The candidates' names in iteration order.
fn names_of(set: &Candidates, data: &LoadData) -> Vec<String> {
    set.iter().map(|&p| name_at(data, p).to_string()).collect()
}

/// `applyNamespacePolicies` (§6.4 step 1): an isolated namespace gets its policy's primaries, plus
/// its secondaries when fewer primaries than `min_limit` qualify; any other namespace gets the shared
/// brokers (no policy names their host as a primary) that take the bundle's topic kind. Only brokers
/// with load data are offered (the set holds positions in `LoadData.brokers`). Returns what was decided,
/// for explanations.
fn apply_namespace_policies(
    bundle: &str,
    data: &LoadData,
    ctx: &PlacementContext,
    set: &mut Candidates,
) -> NamespacePoliciesOutcome<()> {
    set.clear();
    let non_persistent = ctx.non_persistent_bundles.contains(bundle);
    let offers = ctx
        .available_with_data(data)
        .map(|(pos, name, bd)| BrokerOffer {
            item: (hash_map_hash(name), pos),
            broker_id: name,
            persistent_topics_enabled: bd.local.persistent_topics_enabled,
            non_persistent_topics_enabled: bd.local.non_persistent_topics_enabled,
        });
    let outcome =
        ctx.isolation
            .apply_namespace_policies(namespace_of_bundle(bundle), non_persistent, offers);
    // Primaries are added before secondaries, as Pulsar's two `addAll` calls do.
    for &(hash, pos) in &outcome.candidates {
        set.insert_hashed(hash, pos);
    }
    NamespacePoliciesOutcome {
        candidates: Vec::new(),
        policy: outcome.policy,
        primaries: outcome.primaries,
        secondaries: outcome.secondaries,
        failover: outcome.failover,
        min_limit: outcome.min_limit,
        excluded: outcome.excluded,
    }
}

/// The explanation of the namespace-policy step, when isolation policies exist.
fn namespace_policies_note(
    ctx: &PlacementContext,
    outcome: &NamespacePoliciesOutcome<()>,
) -> Option<String> {
    if ctx.isolation.is_empty() {
        return None;
    }
    Some(match &outcome.policy {
        Some(name) => {
            let min_limit = outcome.min_limit.unwrap_or(0);
            format!(
                "isolation policy `{name}`: {} primary broker(s){}",
                outcome.primaries,
                if outcome.failover {
                    format!(
                        " < min_limit={min_limit}, so {} secondary broker(s) added",
                        outcome.secondaries
                    )
                } else {
                    format!(" >= min_limit={min_limit}, secondaries not used")
                }
            )
        }
        None => "no isolation policy for this namespace: only shared brokers (not a primary of any policy)".to_string(),
    })
}

/// `shouldNamespacePoliciesUnload`: some broker other than the current owner may take the bundle
/// (the policy-only set is non-empty and is not just the owner).
pub fn should_namespace_policies_unload(
    bundle: &str,
    current_broker: &str,
    data: &LoadData,
    ctx: &PlacementContext,
) -> bool {
    let mut set = Candidates::new();
    apply_namespace_policies(bundle, data, ctx, &mut set);
    let others = set
        .iter()
        .filter(|&&pos| name_at(data, pos) != current_broker)
        .count();
    others > 0
}

/// `filterBrokersWithLargeTopicCount`: keep brokers whose topics (reported + preallocated) are within
/// `loadBalancerBrokerMaxTopics`; keep everyone if that would leave none. The note only when `explain`.
fn filter_large_topic_count(
    set: &mut Candidates,
    data: &LoadData,
    max_topics: i64,
    explain: bool,
) -> Option<String> {
    let total_of = |pos: usize| -> i64 {
        data.brokers.get_index(pos).map_or(0, |(_, bd)| {
            let pre: i64 = bd.preallocated.values().map(|b| i64::from(b.topics)).sum();
            pre.saturating_add(bd.local.num_topics)
        })
    };
    let mut over = Vec::new();
    let mut any_within = false;
    for &pos in set.iter() {
        let total = total_of(pos);
        if total <= max_topics {
            any_within = true;
        } else if explain {
            over.push(format!("{}={total}", name_at(data, pos)));
        }
    }
    let none_left = !any_within;
    if !none_left {
        // Pulsar builds a fresh `filtered` set, then `brokerCandidateCache.clear(); addAll(filtered)`.
        // That is exactly `retain`: `filtered` ends at a power-of-two capacity no larger than the
        // reused set's (which holds at least as many items at ≤ 0.75 load), so two candidates in the
        // same bucket of the reused set share a bucket of `filtered` too and come back in their old
        // relative order, and the reused set does not grow while refilled.
        set.retain(|&pos| total_of(pos) <= max_topics);
    }
    if !explain {
        return None;
    }
    let mut note = format!("loadBalancerBrokerMaxTopics={max_topics}");
    if !over.is_empty() {
        note.push_str(&format!("; over: {}", over.join(", ")));
    }
    if none_left {
        note.push_str("; none left, all kept");
    }
    Some(note)
}

/// `filterAntiAffinityGroupOwnedBrokers` (§6.5). The note only when `explain`.
fn filter_anti_affinity(
    bundle: &str,
    set: &mut Candidates,
    data: &LoadData,
    ctx: &PlacementContext,
    cfg: &LoadBalancerConfig,
    explain: bool,
) -> Option<String> {
    if set.is_empty() {
        return None;
    }
    let namespace = namespace_of_bundle(bundle);
    let group = ctx.anti_affinity_group(namespace)?.to_string();
    let counts = ctx.anti_affinity_namespace_counts(namespace)?;
    let count_of = |pos: &usize| counts.get(name_at(data, *pos)).copied();
    let mut note = String::new();
    if explain {
        note = format!(
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
    }
    let domains = ctx.broker_to_domain();
    if cfg.failure_domains_enabled && !domains.is_empty() {
        let domain_of = |pos: &usize| {
            domains
                .get(name_at(data, *pos))
                .copied()
                .unwrap_or(DEFAULT_DOMAIN)
        };
        // Sum per domain over the candidates; keep only the domains with the least.
        let mut per_domain: IndexMap<&str, i64> = IndexMap::new();
        for pos in set.iter() {
            *per_domain.entry(domain_of(pos)).or_insert(0) += count_of(pos).unwrap_or(0);
        }
        let least = per_domain.values().copied().min().unwrap_or(i64::MAX);
        if explain {
            note.push_str(&format!(
                "; per failure domain {} (least {least})",
                per_domain
                    .iter()
                    .map(|(d, c)| format!("{d}={c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        set.retain(|pos| per_domain.get(domain_of(pos)).is_none_or(|c| *c == least));
    }
    // A candidate absent from the counts owns none of the group's namespaces.
    let mut least = i64::MAX;
    for pos in set.iter() {
        match count_of(pos) {
            Some(c) => least = least.min(c),
            None => {
                least = 0;
                break;
            }
        }
    }
    if least == 0 {
        set.retain(|pos| count_of(pos).is_none_or(|c| c <= 0));
    } else {
        set.retain(|pos| count_of(pos) == Some(least));
    }
    explain.then_some(note)
}

/// Keeps the candidates with the fewest ranges by `count`; returns that minimum.
fn keep_least_servicing<K: PartialEq>(
    set: &mut JavaHashTable<K>,
    count: impl Fn(&K) -> usize,
) -> usize {
    let min = set.iter().map(&count).min().unwrap_or(0);
    set.retain(|k| count(k) == min);
    min
}

/// Cached ranges of `namespace` on `broker`.
fn ranges_on(
    cache: &IndexMap<String, IndexMap<String, IndexSet<String>>>,
    broker: &str,
    namespace: &str,
) -> usize {
    cache
        .get(broker)
        .and_then(|m| m.get(namespace))
        .map_or(0, IndexSet::len)
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
    let listed = set
        .iter()
        .map(|b| format!("{b}={}", ranges_on(cache, b, namespace)))
        .collect::<Vec<_>>()
        .join(", ");
    let min = keep_least_servicing(set, |b| ranges_on(cache, b, namespace));
    Some(format!(
        "bundles of {namespace} per broker: {listed} (min {min})"
    ))
}

/// The pipeline's form of [`remove_most_servicing_brokers_for_namespace`], on positions. Each
/// candidate's ranges are counted once (the minimum and the filter read the same counts), and its
/// range-cache entry is found by position first: the cache is rebuilt in `LoadData.brokers` order,
/// so the entry at the broker's position is usually its own (checked by name, else looked up).
fn remove_most_servicing(
    bundle: &str,
    set: &mut Candidates,
    data: &LoadData,
    cache: &IndexMap<String, IndexMap<String, IndexSet<String>>>,
    explain: bool,
) -> Option<String> {
    if set.is_empty() {
        return None;
    }
    let namespace = namespace_of_bundle(bundle);
    let mut counts = vec![0usize; data.brokers.len()];
    let mut min = usize::MAX;
    for &pos in set.iter() {
        let name = name_at(data, pos);
        let entry = match cache.get_index(pos) {
            Some((broker, namespaces)) if broker == name => Some(namespaces),
            _ => cache.get(name),
        };
        let count = entry
            .and_then(|m| m.get(namespace))
            .map_or(0, IndexSet::len);
        if let Some(c) = counts.get_mut(pos) {
            *c = count;
        }
        min = min.min(count);
    }
    let count = |pos: usize| counts.get(pos).copied().unwrap_or(0);
    let listed = explain.then(|| {
        set.iter()
            .map(|&pos| format!("{}={}", name_at(data, pos), count(pos)))
            .collect::<Vec<_>>()
            .join(", ")
    });
    set.retain(|&pos| count(pos) == min);
    listed.map(|listed| format!("bundles of {namespace} per broker: {listed} (min {min})"))
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
/// The `Ok` note only when `explain`.
fn apply_broker_filters(
    set: &mut Candidates,
    data: &LoadData,
    cfg: &LoadBalancerConfig,
    explain: bool,
) -> Result<Option<String>, String> {
    let broker = |pos: &usize| data.brokers.get_index(*pos).map(|(_, bd)| bd);
    // A report without `loadManagerClassName` is kept: in our snapshots a missing field means "not
    // exported", not Java's null (which Pulsar would drop).
    set.retain(|pos| {
        broker(pos).is_some_and(|bd| {
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
    for pos in set.iter() {
        let text = broker(pos)
            .and_then(|bd| bd.local.broker_version_string.clone())
            .unwrap_or_default();
        let v = parse_version(&text).ok_or_else(|| {
            format!(
                "bad brokerVersionString `{text}` on {}",
                name_at(data, *pos)
            )
        })?;
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
    set.retain(|pos| {
        broker(pos)
            .and_then(|bd| bd.local.broker_version_string.as_deref())
            .and_then(parse_version)
            .is_some_and(|v| version_key(&v) == version_key(&latest))
    });
    if set.is_empty() {
        return Err("no broker left after the version filter".to_string());
    }
    Ok(explain.then(|| {
        format!(
            "preferLaterVersions: kept {}.{}.{}{}",
            latest.0,
            latest.1,
            latest.2,
            latest.3.map(|p| format!("-{p}")).unwrap_or_default()
        )
    }))
}

/// The stages of one selection, recorded only at [`PipelineTrace::Full`] and [`PipelineTrace::Stages`].
struct StageLog<'d> {
    data: &'d LoadData,
    stages: Option<Vec<PipelineStage>>,
}

impl<'d> StageLog<'d> {
    fn new(data: &'d LoadData, trace: PipelineTrace) -> Self {
        Self {
            data,
            stages: matches!(trace, PipelineTrace::Full | PipelineTrace::Stages).then(Vec::new),
        }
    }

    fn on(&self) -> bool {
        self.stages.is_some()
    }

    /// The candidates before a step (empty when not recording).
    fn before(&self, set: &Candidates) -> Vec<usize> {
        if self.on() {
            set.iter().copied().collect()
        } else {
            Vec::new()
        }
    }

    /// Membership of every broker position in `set`.
    fn kept(&self, set: &Candidates) -> Vec<bool> {
        let mut kept = vec![false; self.data.brokers.len()];
        for &pos in set.iter() {
            if let Some(k) = kept.get_mut(pos) {
                *k = true;
            }
        }
        kept
    }

    /// The first step, narrowing the available brokers (named, some maybe without load data).
    fn first_step(
        &mut self,
        stage: &str,
        available: &[String],
        set: &Candidates,
        note: Option<String>,
    ) {
        if !self.on() {
            return;
        }
        let kept = self.kept(set);
        let data = self.data;
        let removed = available
            .iter()
            .filter(|b| {
                data.brokers
                    .get_index_of(b.as_str())
                    .is_none_or(|pos| !kept.get(pos).copied().unwrap_or(false))
            })
            .cloned()
            .collect();
        self.push(PipelineStage {
            stage: stage.to_string(),
            remaining: names_of(set, data),
            removed,
            note,
        });
    }

    /// A step that narrowed the set from `before` (positions).
    fn step(&mut self, stage: &str, before: &[usize], set: &Candidates, note: Option<String>) {
        if !self.on() {
            return;
        }
        let kept = self.kept(set);
        let data = self.data;
        let removed = before
            .iter()
            .filter(|&&pos| !kept.get(pos).copied().unwrap_or(false))
            .map(|&pos| name_at(data, pos).to_string())
            .collect();
        self.push(PipelineStage {
            stage: stage.to_string(),
            remaining: names_of(set, data),
            removed,
            note,
        });
    }

    /// A stage whose lists are given as is.
    fn push(&mut self, stage: PipelineStage) {
        if let Some(stages) = &mut self.stages {
            stages.push(stage);
        }
    }

    fn into_stages(self) -> Vec<PipelineStage> {
        self.stages.unwrap_or_default()
    }
}

/// `selectBrokerForAssignment` (path `Assignment`) or `selectBroker` (path `Shedding`): the §6.4 steps
/// in order, then the strategy, the overload re-selection and (assignment path) the preallocation.
/// Explained at `ctx.trace` level.
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
    let namespace = namespace_of_bundle(bundle);
    let excluded = cfg
        .load_balancer_shedding_excluded_namespaces
        .iter()
        .any(|n| n == namespace);
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
                score: None,
                runner_up: None,
            }),
            strategy: strategy_name,
            stages: Vec::new(),
            overloaded_first_choice: None,
            from_preallocation: true,
        };
    }

    let trace = ctx.trace;
    let (choice, overloaded_first_choice, stages) = {
        let view: &LoadData = data;
        let mut log = StageLog::new(view, trace);
        let explain = log.on();
        // Taken out while the context is also read; put back below (no early return in between).
        let mut set = ctx.candidate_cache.take().unwrap_or_default();

        let policy_outcome = apply_namespace_policies(bundle, view, ctx, &mut set);
        let available = if explain {
            ctx.available_brokers(view)
        } else {
            Vec::new()
        };
        let note = if explain {
            namespace_policies_note(ctx, &policy_outcome)
        } else {
            None
        };
        log.first_step("after_namespace_policies", &available, &set, note);

        let before = log.before(&set);
        let note =
            filter_large_topic_count(&mut set, view, cfg.load_balancer_broker_max_topics, explain);
        log.step("after_large_topic_count", &before, &set, note);

        let before = log.before(&set);
        let note = filter_anti_affinity(bundle, &mut set, view, ctx, cfg, explain);
        log.step("after_anti_affinity", &before, &set, note);

        if cfg.load_balancer_distribute_bundles_evenly_enabled || namespace == SYSTEM_NAMESPACE {
            let before = log.before(&set);
            let note =
                remove_most_servicing(bundle, &mut set, view, &ctx.bundle_range_cache, explain);
            log.step("after_distribute_evenly", &before, &set, note);
        }

        let before = log.before(&set);
        match apply_broker_filters(&mut set, view, cfg, explain) {
            Ok(note) => log.step("after_broker_filters", &before, &set, note),
            Err(why) => {
                apply_namespace_policies(bundle, view, ctx, &mut set);
                log.step(
                    "after_broker_filters",
                    &before,
                    &set,
                    explain
                        .then(|| format!("a filter failed ({why}); restored the policy-only set")),
                );
            }
        }

        if set.is_empty() {
            apply_namespace_policies(bundle, view, ctx, &mut set);
            if explain {
                let restored = names_of(&set, view);
                log.push(PipelineStage {
                    stage: "after_restore_all".to_string(),
                    remaining: restored.clone(),
                    removed: restored,
                    note: Some("no candidate left; restored the policy-only set".to_string()),
                });
            }
        }

        // The round-robin selector lives in the context; take it out while the context is also read.
        let mut round_robin = std::mem::take(&mut ctx.round_robin);
        let strategy: &mut dyn PlacementStrategy = if excluded {
            &mut round_robin
        } else {
            placement
        };
        let candidates = names_of(&set, view);
        let mut choice = strategy.select_broker_traced(
            &candidates,
            bundle,
            bundle_data,
            view,
            cfg,
            picker,
            trace,
        );

        let mut overloaded_first_choice = None;
        if let Some(first) = &choice {
            let threshold = cfg.overloaded_threshold_fraction();
            let usage = view
                .brokers
                .get(&first.broker)
                .map_or(0.0, |bd| cfg.overload_check_usage(&bd.local));
            if usage > threshold {
                apply_namespace_policies(bundle, view, ctx, &mut set);
                let retry_candidates = names_of(&set, view);
                if explain {
                    log.push(PipelineStage {
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
                }
                let retry = strategy.select_broker_traced(
                    &retry_candidates,
                    bundle,
                    bundle_data,
                    view,
                    cfg,
                    picker,
                    trace,
                );
                if let Some(retry) = retry {
                    overloaded_first_choice = choice.replace(retry);
                }
            }
        }
        ctx.round_robin = round_robin;
        ctx.candidate_cache = Some(set);
        (choice, overloaded_first_choice, log.into_stages())
    };

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

/// The brokers Pulsar's placement would accept for `bundle` as hard constraints, for proposals that
/// choose the destination themselves (`lbplan rebalance`): the namespace-policy set (isolation
/// policies, topic kind), narrowed by the anti-affinity / failure-domain filter and the broker filters
/// exactly as [`select_broker_for_bundle`] narrows them (a failing broker filter restores the
/// policy-only set, as Pulsar does). The soft steps (topic count, even distribution) and the strategy
/// are left out: they choose among acceptable brokers, they do not forbid any. In `data.brokers` order.
pub fn allowed_destinations(
    bundle: &str,
    data: &LoadData,
    ctx: &PlacementContext,
    cfg: &LoadBalancerConfig,
) -> Vec<String> {
    allowed_destination_positions(bundle, data, ctx, cfg)
        .into_iter()
        .map(|p| name_at(data, p).to_string())
        .collect()
}

/// [`allowed_destinations`] as positions in `data.brokers`, ascending (no names built: a caller
/// asking for many bundles keeps its own position map).
pub fn allowed_destination_positions(
    bundle: &str,
    data: &LoadData,
    ctx: &PlacementContext,
    cfg: &LoadBalancerConfig,
) -> Vec<usize> {
    let mut set = Candidates::new();
    apply_namespace_policies(bundle, data, ctx, &mut set);
    filter_anti_affinity(bundle, &mut set, data, ctx, cfg, false);
    if apply_broker_filters(&mut set, data, cfg, false).is_err() {
        apply_namespace_policies(bundle, data, ctx, &mut set);
    }
    let mut positions: Vec<usize> = set.iter().copied().collect();
    positions.sort_unstable();
    positions
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
    let mut candidates = Candidates::new();
    apply_namespace_policies(bundle, data, ctx, &mut candidates);
    let count = |pos: &usize| counts.get(name_at(data, *pos)).copied().unwrap_or(0);
    let mut least = i64::MAX;
    let mut current = 0;
    for pos in candidates.iter() {
        let c = count(pos);
        if name_at(data, *pos) == current_broker {
            current = c;
        }
        least = least.min(c);
    }
    if least == 0 || current > least {
        return true;
    }
    let at_least = candidates.iter().filter(|p| count(p) == least).count();
    candidates.len() != at_least
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brokers(names: &[&str]) -> LoadData {
        let mut data = LoadData::default();
        for n in names {
            data.brokers.insert(n.to_string(), BrokerData::default());
        }
        data
    }

    /// Every broker of `data` as a candidate set, inserted in map order.
    fn candidates(data: &LoadData) -> Candidates {
        let mut set = Candidates::new();
        for (pos, name) in data.brokers.keys().enumerate() {
            set.insert_hashed(hash_map_hash(name), pos);
        }
        set
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
        let data = brokers(&["b1:8080", "b2:8080", "b3:8080"]);
        let mut set = candidates(&data);
        filter_anti_affinity(
            "t/ns2/0x00000000_0x10000000",
            &mut set,
            &data,
            &ctx,
            &cfg,
            true,
        );
        assert_eq!(names_of(&set, &data), ["b3:8080"]);
        // Without failure domains, b2 and b3 own none of the group.
        cfg.failure_domains_enabled = false;
        let mut set = candidates(&data);
        filter_anti_affinity(
            "t/ns2/0x00000000_0x10000000",
            &mut set,
            &data,
            &ctx,
            &cfg,
            false,
        );
        assert_eq!(set.len(), 2);
        assert!(!names_of(&set, &data).contains(&"b1:8080".to_string()));
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

    /// `filterBrokersWithLargeTopicCount` refills the reused set from a fresh `HashSet`; the filter
    /// uses `retain` instead, which must leave the same order and capacity for any hashes, sizes and
    /// reused capacities.
    #[test]
    fn refill_from_fresh_set_is_retain() {
        let mut seed: u32 = 12345;
        let mut next_hash = || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            seed ^ (seed >> 16)
        };
        for n in [0usize, 1, 5, 12, 13, 24, 25, 49, 97, 100, 200, 385] {
            for reused_capacity in [0usize, 64, 128, 1024] {
                for modulus in [2usize, 3, 7, 50] {
                    let mut set = Candidates::with_min_capacity(reused_capacity);
                    for pos in 0..n {
                        set.insert_hashed(next_hash(), pos);
                    }
                    let keep = |pos: usize| pos % modulus != 1;
                    let mut fresh = Candidates::new();
                    for (hash, &pos) in set.iter_hashed() {
                        if keep(pos) {
                            fresh.insert_hashed(hash, pos);
                        }
                    }
                    let mut refilled = set.clone();
                    refilled.clear();
                    for (hash, &pos) in fresh.iter_hashed() {
                        refilled.insert_hashed(hash, pos);
                    }
                    set.retain(|&pos| keep(pos));
                    assert_eq!(
                        refilled, set,
                        "n={n} capacity={reused_capacity} mod={modulus}"
                    );
                }
            }
        }
    }

    #[test]
    fn max_topics_keeps_all_when_none_fit() {
        let mut data = brokers(&["b1:8080", "b2:8080"]);
        for b in data.brokers.values_mut() {
            b.local.num_topics = 150;
        }
        let mut set = candidates(&data);
        let note = filter_large_topic_count(&mut set, &data, 100, true);
        assert_eq!(set.len(), 2);
        assert_eq!(
            note.as_deref(),
            Some(
                "loadBalancerBrokerMaxTopics=100; over: b1:8080=150, b2:8080=150; none left, all kept"
            )
        );
        if let Some(b) = data.brokers.get_mut("b2:8080") {
            b.local.num_topics = 50;
        }
        assert_eq!(filter_large_topic_count(&mut set, &data, 100, false), None);
        assert_eq!(names_of(&set, &data), ["b2:8080"]);
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
