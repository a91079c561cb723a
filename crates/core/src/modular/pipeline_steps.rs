//! The §6.4 steps of the modular candidate pipeline, each narrowing the candidate set in Java's
//! order: the namespace's isolation policies, the topic-count limit, anti-affinity, even
//! distribution over the namespace's bundles, and the broker filters (load-manager class, later
//! versions), with the restore Pulsar does when a step leaves nothing. The pipeline
//! (`pipeline`) runs them in order; the shedding memo (`shed_memo`) resumes them from kept first
//! steps; the explain layer (`placement_explain`) records what each removed.

use indexmap::IndexMap;

use super::LoadData;
use super::load_data::namespace_of_bundle;
use super::placement::name_at;
use super::placement_context::{
    BrokerRanges, BundleRangeCache, Candidates, DEFAULT_DOMAIN, PlacementContext,
};
use super::placement_explain::{StageLog, namespace_policies_note, stage};
use crate::config::LoadBalancerConfig;
use crate::isolation::{BrokerOffer, NamespacePoliciesOutcome};
use crate::naming::java_map_order::{JavaHashSet, JavaHashTable};

/// The namespace Pulsar always distributes evenly, whatever the setting says.
const SYSTEM_NAMESPACE: &str = "pulsar/system";

/// `applyNamespacePolicies` (§6.4 step 1) as positions in `LoadData.brokers`: an isolated namespace
/// gets its policy's primaries, plus its secondaries when fewer primaries than `min_limit` qualify;
/// any other namespace gets the shared brokers (no policy names their host as a primary) that take
/// the bundle's topic kind. Only brokers with load data are offered. Primaries come first.
pub(super) fn namespace_policy_candidates(
    bundle: &str,
    data: &LoadData,
    ctx: &PlacementContext,
) -> NamespacePoliciesOutcome<usize> {
    let non_persistent = ctx.non_persistent_bundles.contains(bundle);
    let offers = ctx
        .available_with_data(data)
        .map(|(pos, name, bd)| BrokerOffer {
            item: pos,
            broker_id: name,
            persistent_topics_enabled: bd.local.persistent_topics_enabled,
            non_persistent_topics_enabled: bd.local.non_persistent_topics_enabled,
        });
    ctx.isolation
        .apply_namespace_policies(namespace_of_bundle(bundle), non_persistent, offers)
}

/// [`namespace_policy_candidates`] into the candidate set; returns what was decided, for
/// explanations.
pub(super) fn apply_namespace_policies(
    bundle: &str,
    data: &LoadData,
    ctx: &PlacementContext,
    set: &mut Candidates,
) -> NamespacePoliciesOutcome<()> {
    set.clear();
    let outcome = namespace_policy_candidates(bundle, data, ctx);
    // Primaries are added before secondaries, as Pulsar's two `addAll` calls do.
    for &pos in &outcome.candidates {
        set.insert_hashed(ctx.broker_hash(pos, name_at(data, pos)), pos);
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

/// `shouldNamespacePoliciesUnload`: some broker other than the current owner may take the bundle
/// (the policy-only set is non-empty and is not just the owner). Asked for every bundle the
/// shedder selects, so it reads the policy's answer without building the candidate set.
pub fn should_namespace_policies_unload(
    bundle: &str,
    current_broker: &str,
    data: &LoadData,
    ctx: &PlacementContext,
) -> bool {
    let current = data.brokers.get_index_of(current_broker);
    namespace_policy_candidates(bundle, data, ctx)
        .candidates
        .iter()
        .any(|&pos| Some(pos) != current)
}

/// `filterBrokersWithLargeTopicCount`: keep brokers whose topics (reported + preallocated) are within
/// `loadBalancerBrokerMaxTopics`; keep everyone if that would leave none. The note only when `explain`.
pub(super) fn filter_large_topic_count(
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
pub(super) fn filter_anti_affinity(
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
pub(super) fn keep_least_servicing<K: PartialEq>(
    set: &mut JavaHashTable<K>,
    count: impl Fn(&K) -> usize,
) -> usize {
    let min = set.iter().map(&count).min().unwrap_or(0);
    set.retain(|k| count(k) == min);
    min
}

/// Cached ranges of `namespace` on `broker`.
pub(super) fn ranges_on(cache: &BundleRangeCache, broker: &str, namespace: &str) -> usize {
    cache.ranges_on(broker, namespace)
}

/// `removeMostServicingBrokersForNamespace`: keep the candidates with the fewest cached ranges of the
/// bundle's namespace.
pub fn remove_most_servicing_brokers_for_namespace(
    bundle: &str,
    set: &mut JavaHashSet,
    cache: &BundleRangeCache,
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
/// candidate's ranges are counted once (the minimum and the filter read the same counts). Its
/// range-cache entry comes from `index` when the caller holds one for the cycle (see
/// [`RangeIndex`]), else it is found by position first (the entry at the broker's position is its
/// own when the cache was built in `LoadData.brokers` order; checked by name, else looked up).
/// The namespace is hashed once for all candidates' inner maps (they share the Fx hasher).
pub(super) fn remove_most_servicing(
    bundle: &str,
    set: &mut Candidates,
    data: &LoadData,
    cache: &BundleRangeCache,
    index: Option<&RangeIndex>,
    explain: bool,
) -> Option<String> {
    if set.is_empty() {
        return None;
    }
    let namespace = namespace_of_bundle(bundle);
    let ranges_of = ranges_counter(namespace, data, cache, index);
    let mut counts = vec![0usize; data.brokers.len()];
    let mut min = usize::MAX;
    // How many candidates have the minimum: when all do, the filter keeps every one and the
    // set's walk over its buckets to remove none is skipped.
    let mut at_min = 0usize;
    for &pos in set.iter() {
        let count = ranges_of(pos);
        if let Some(c) = counts.get_mut(pos) {
            *c = count;
        }
        if count < min {
            min = count;
            at_min = 1;
        } else if count == min {
            at_min += 1;
        }
    }
    let count = |pos: usize| counts.get(pos).copied().unwrap_or(0);
    let listed = explain.then(|| {
        set.iter()
            .map(|&pos| format!("{}={}", name_at(data, pos), count(pos)))
            .collect::<Vec<_>>()
            .join(", ")
    });
    if at_min != set.len() {
        set.retain(|&pos| count(pos) == min);
    }
    listed.map(|listed| format!("bundles of {namespace} per broker: {listed} (min {min})"))
}

/// The cached ranges of `namespace` on the broker at a position, from `index` when the caller
/// holds one for the cycle. The namespace's id is looked up once for all brokers (a namespace the
/// cache has never seen has no ranges anywhere).
pub(super) fn ranges_counter<'c>(
    namespace: &'c str,
    data: &'c LoadData,
    cache: &'c BundleRangeCache,
    index: Option<&'c RangeIndex>,
) -> impl Fn(usize) -> usize + 'c {
    let namespace = cache.namespace_id(namespace);
    move |pos| {
        let Some(namespace) = namespace else {
            return 0;
        };
        let entry = match index {
            Some(index) => index.entry(cache, pos),
            None => RangeIndex::find(cache, data, pos),
        };
        entry.map_or(0, |m| m.count(namespace))
    }
}

/// Each broker's entry in the range cache, by its position in `LoadData.brokers`: found once per
/// shedding cycle instead of hashing every candidate's name for every new namespace (the cache is
/// not in the brokers' order once the kept view has refilled it). Valid while neither the
/// brokers nor the cache's broker entries change: within one `doLoadShedding`.
pub(super) struct RangeIndex(Vec<Option<usize>>);

impl RangeIndex {
    pub(super) fn new(cache: &BundleRangeCache, data: &LoadData) -> Self {
        Self(
            (0..data.brokers.len())
                .map(|pos| match cache.get_index(pos) {
                    Some((broker, _)) if broker == name_at(data, pos) => Some(pos),
                    _ => cache.get_index_of(name_at(data, pos)),
                })
                .collect(),
        )
    }

    /// The entry of the broker at `pos` (`None`: it has none).
    fn entry<'c>(&self, cache: &'c BundleRangeCache, pos: usize) -> Option<&'c BrokerRanges> {
        let at = self.0.get(pos).copied().flatten()?;
        cache.get_index(at).map(|(_, m)| m)
    }

    /// The entry of the broker at `pos`, looked up without an index.
    fn find<'c>(
        cache: &'c BundleRangeCache,
        data: &LoadData,
        pos: usize,
    ) -> Option<&'c BrokerRanges> {
        let name = name_at(data, pos);
        match cache.get_index(pos) {
            Some((broker, namespaces)) if broker == name => Some(namespaces),
            _ => cache.get(name),
        }
    }
}

/// A broker version as `BrokerVersionFilter` compares it (semver core, then pre-release).
pub(super) fn parse_version(text: &str) -> Option<(u64, u64, u64, Option<String>)> {
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

pub(super) fn version_key(v: &(u64, u64, u64, Option<String>)) -> (u64, u64, u64, bool, String) {
    // A release sorts after its pre-releases.
    (
        v.0,
        v.1,
        v.2,
        v.3.is_none(),
        v.3.clone().unwrap_or_default(),
    )
}

/// `BrokerLoadManagerClassFilter`'s verdict on the broker at `pos`. A report without
/// `loadManagerClassName` is kept: in our snapshots a missing field means "not exported", not
/// Java's null (which Pulsar would drop).
pub(super) fn runs_configured_manager(
    data: &LoadData,
    cfg: &LoadBalancerConfig,
    pos: usize,
) -> bool {
    data.brokers.get_index(pos).is_some_and(|(_, bd)| {
        bd.local
            .load_manager_class_name
            .as_deref()
            .is_none_or(|c| c == cfg.load_manager_class_name)
    })
}

/// The filter pipeline: `BrokerLoadManagerClassFilter`, then `BrokerVersionFilter` when
/// `preferLaterVersions`. `Err` when a filter throws (Pulsar then restores the policy-only set).
/// The `Ok` note only when `explain`.
pub(super) fn apply_broker_filters(
    set: &mut Candidates,
    data: &LoadData,
    cfg: &LoadBalancerConfig,
    explain: bool,
) -> Result<Option<String>, String> {
    let broker = |pos: &usize| data.brokers.get_index(*pos).map(|(_, bd)| bd);
    // A report without `loadManagerClassName` is kept: in our snapshots a missing field means "not
    // exported", not Java's null (which Pulsar would drop).
    let passes = |pos: &usize| runs_configured_manager(data, cfg, *pos);
    // Usually every candidate passes: then nothing is removed, and the set's per-bucket removal
    // walk is skipped (a `retain` that keeps all leaves the set as it was).
    if !set.iter().all(passes) {
        set.retain(passes);
    }
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

/// The first three §6.4 steps (namespace policies, topic count, anti-affinity), into `set`
/// (cleared first), logged in `log`.
pub(super) fn narrow_first(
    bundle: &str,
    view: &LoadData,
    ctx: &PlacementContext,
    cfg: &LoadBalancerConfig,
    set: &mut Candidates,
    log: &mut StageLog<'_>,
) {
    // The steps' notes are formatted only when the steps are named.
    let explain = log.named();
    let policy_outcome = apply_namespace_policies(bundle, view, ctx, set);
    let note = if explain {
        namespace_policies_note(ctx, &policy_outcome)
    } else {
        None
    };
    log.first_step(
        stage::NAMESPACE_POLICIES,
        ctx.available_brokers.as_deref(),
        set,
        note,
    );

    log.mark(set);
    let note = filter_large_topic_count(set, view, cfg.load_balancer_broker_max_topics, explain);
    log.step_retained(stage::LARGE_TOPIC_COUNT, set, note);

    log.mark(set);
    let note = filter_anti_affinity(bundle, set, view, ctx, cfg, explain);
    log.step_retained(stage::ANTI_AFFINITY, set, note);
}

/// The §6.4 steps after [`narrow_first`]: even distribution, the broker filters, the restore.
/// `range_index`: the cycle's range-cache entries by position, when the caller keeps them.
#[allow(clippy::too_many_arguments)]
pub(super) fn narrow_rest(
    bundle: &str,
    namespace: &str,
    view: &LoadData,
    ctx: &PlacementContext,
    cfg: &LoadBalancerConfig,
    set: &mut Candidates,
    log: &mut StageLog<'_>,
    range_index: Option<&RangeIndex>,
) {
    let explain = log.named();
    if cfg.load_balancer_distribute_bundles_evenly_enabled || namespace == SYSTEM_NAMESPACE {
        log.mark(set);
        let note = remove_most_servicing(
            bundle,
            set,
            view,
            &ctx.bundle_range_cache,
            range_index,
            explain,
        );
        log.step_retained(stage::DISTRIBUTE_EVENLY, set, note);
    }

    log.mark(set);
    match apply_broker_filters(set, view, cfg, explain) {
        Ok(note) => log.step_retained(stage::BROKER_FILTERS, set, note),
        Err(why) => {
            apply_namespace_policies(bundle, view, ctx, set);
            log.step(
                stage::BROKER_FILTERS,
                set,
                explain.then(|| format!("a filter failed ({why}); restored the policy-only set")),
            );
        }
    }

    if set.is_empty() {
        apply_namespace_policies(bundle, view, ctx, set);
        log.restored_all(set);
    }
}

/// [`narrow_rest`] on a kept candidate list instead of the reused set, for a shedding cycle's
/// selection resumed from the kept first steps when its steps are counted or not recorded:
/// `items` are the candidates (with their hashes) in the set's iteration order. The even
/// distribution and the load-manager class filter only remove candidates, and removing keeps the
/// others' relative order, so the list left is the set's iteration order after the same steps;
/// the set itself need not be refilled (its capacity, all that decides later orders, is
/// unchanged: every later use clears it first). `None`, with `log` to be discarded, where the set
/// is needed: the version filter (`preferLaterVersions`, which may throw and restore the
/// policy-only set) or nothing left (the restore).
pub(super) fn narrow_rest_listed(
    namespace: &str,
    view: &LoadData,
    cache: &BundleRangeCache,
    index: &RangeIndex,
    cfg: &LoadBalancerConfig,
    items: &[(u32, usize)],
    log: &mut StageLog<'_>,
) -> Option<Vec<(u32, usize)>> {
    if cfg.prefer_later_versions {
        return None;
    }
    let mut items = items.to_vec();
    if cfg.load_balancer_distribute_bundles_evenly_enabled || namespace == SYSTEM_NAMESPACE {
        log.mark_positions(items.iter().map(|&(_, p)| p));
        let count = ranges_counter(namespace, view, cache, Some(index));
        let counts: Vec<usize> = items.iter().map(|&(_, p)| count(p)).collect();
        if let Some(&min) = counts.iter().min() {
            let mut at = counts.iter();
            items.retain(|_| at.next() == Some(&min));
        }
        log.step_retained_count(stage::DISTRIBUTE_EVENLY, items.len());
    }
    log.mark_positions(items.iter().map(|&(_, p)| p));
    items.retain(|&(_, p)| runs_configured_manager(view, cfg, p));
    log.step_retained_count(stage::BROKER_FILTERS, items.len());
    (!items.is_empty()).then_some(items)
}
