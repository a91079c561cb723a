//! The modular load manager's candidate pipeline (§6.4–6.5): `selectBrokerForAssignment` /
//! `selectBroker` narrowing the live brokers step by step before the placement strategy picks, and
//! the checks the shedding cycle runs before unloading (`shouldNamespacePoliciesUnload`,
//! `shouldAntiAffinityNamespaceUnload`).
//!
//! The candidate set is a Java `HashSet` model ([`JavaHashTable`](crate::naming::java_map_order::JavaHashTable)) reused across calls like Pulsar's
//! `brokerCandidateCache`, so strategies see the candidates in the order Java would iterate them. It
//! holds brokers by their position in `LoadData.brokers` (with their names' hashes), so narrowing
//! the set allocates no names. What the leader knows besides `LoadData` is the
//! [`PlacementContext`] (`placement_context`); how much of each step is written down is the
//! context's [`PipelineTrace`] level, recorded by the explain layer (`placement_explain`): the
//! decisions do not depend on it. The steps themselves are `pipeline_steps`; the shedding cycle's
//! memo of them is `shed_memo`.

use serde::{Deserialize, Serialize};

use super::LoadData;
use super::load_data::namespace_of_bundle;
use super::pipeline_steps::{
    apply_broker_filters, apply_namespace_policies, filter_anti_affinity,
    namespace_policy_candidates, narrow_first, narrow_rest,
};
pub use super::pipeline_steps::{
    remove_most_servicing_brokers_for_namespace, should_namespace_policies_unload,
};
use super::placement::{PlacementChoice, PlacementStrategy};
use super::placement_context::Candidates;
use super::placement_explain::StageLog;
pub use super::shed_memo::ShedSelectionMemo;
use super::shed_memo::narrow_with_memo;
use crate::config::LoadBalancerConfig;
use crate::model::BundleData;
use crate::rng::Picker;

pub use super::placement::PipelineTrace;
pub use super::placement_context::{DEFAULT_DOMAIN, PlacementContext};
pub use super::placement_explain::{PipelineStage, PlacementOutcome, StageCount};

/// Which entry point runs the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectionPath {
    /// `selectBrokerForAssignment`: answers from preallocations first, preallocates the result.
    Assignment,
    /// `selectBroker` as the shedding cycle calls it: no preallocation either way.
    Shedding,
}

pub(super) use super::placement::name_at;

/// [`should_namespace_policies_unload`] within one shedding cycle. Without isolation policies the
/// policy-only set does not depend on the namespace, only on the bundle's topic kind, and nothing
/// it reads (the available brokers, their reports) changes during the cycle: it is built once per
/// topic kind and kept in `memo`. The same answer.
pub fn should_namespace_policies_unload_memo(
    bundle: &str,
    current_broker: &str,
    data: &LoadData,
    ctx: &PlacementContext,
    memo: &mut ShedSelectionMemo,
) -> bool {
    if !ctx.isolation.is_empty() {
        return should_namespace_policies_unload(bundle, current_broker, data, ctx);
    }
    let non_persistent = ctx.non_persistent_bundles.contains(bundle);
    let kept = if non_persistent {
        &mut memo.policy_only_non_persistent
    } else {
        &mut memo.policy_only_persistent
    };
    let candidates =
        kept.get_or_insert_with(|| namespace_policy_candidates(bundle, data, ctx).candidates);
    let current = data.brokers.get_index_of(current_broker);
    candidates.iter().any(|&pos| Some(pos) != current)
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
    select_broker_for_bundle_memo(
        bundle,
        bundle_data,
        path,
        data,
        ctx,
        cfg,
        placement,
        picker,
        None,
    )
}

/// [`select_broker_for_bundle`] within one shedding cycle, the §6.4 steps' result taken from (or
/// added to) `memo` when one is given (see [`ShedSelectionMemo`]: only valid while nothing the
/// steps read changes, i.e. for the `Shedding` path within one `doLoadShedding`).
#[allow(clippy::too_many_arguments)]
pub fn select_broker_for_bundle_memo(
    bundle: &str,
    bundle_data: &BundleData,
    path: SelectionPath,
    data: &mut LoadData,
    ctx: &mut PlacementContext,
    cfg: &LoadBalancerConfig,
    placement: &mut dyn PlacementStrategy,
    picker: &mut dyn Picker,
    mut memo: Option<&mut ShedSelectionMemo>,
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
            stage_counts: Vec::new(),
            overloaded_first_choice: None,
            from_preallocation: true,
        };
    }
    // The memo is for the shedding cycle's selections only.
    if path != SelectionPath::Shedding {
        memo = None;
    }
    // Its kept steps only where the log counts: a named log (`Stages`, `Full`) would be kept and
    // resumed as copies of every candidate's name per stage, which costs more than running the
    // steps again (a plan's cycle of 37 placements on 1,000 brokers: +50 M instructions). The
    // cycle's scores are kept at every level.
    let keep_steps = !matches!(ctx.trace, PipelineTrace::Stages | PipelineTrace::Full);

    let trace = ctx.trace;
    let (choice, overloaded_first_choice, (stages, stage_counts)) = {
        // Taken out while the context is also read; put back below (no early return in between).
        let mut set = ctx.candidate_cache.take().unwrap_or_default();
        let non_persistent =
            keep_steps && memo.is_some() && ctx.non_persistent_bundles.contains(bundle);
        let (mut log, candidates) = match memo.as_deref_mut().filter(|_| keep_steps) {
            None => {
                ctx.refresh_broker_hashes(data);
                let mut log = StageLog::new(data, trace);
                narrow_first(bundle, data, ctx, cfg, &mut set, &mut log);
                narrow_rest(bundle, namespace, data, ctx, cfg, &mut set, &mut log, None);
                let candidates: Vec<usize> = set.iter().copied().collect();
                (log, candidates)
            }
            Some(m) => narrow_with_memo(
                m,
                bundle,
                namespace,
                non_persistent,
                data,
                ctx,
                cfg,
                &mut set,
                trace,
            ),
        };
        let view: &LoadData = data;

        // The round-robin selector lives in the context; take it out while the context is also read.
        let mut round_robin = std::mem::take(&mut ctx.round_robin);
        let strategy: &mut dyn PlacementStrategy = if excluded {
            &mut round_robin
        } else {
            placement
        };
        let mut scores = memo.map(|m| &mut m.scores);
        let mut select = |strategy: &mut dyn PlacementStrategy,
                          candidates: &[usize],
                          picker: &mut dyn Picker| match scores
            .as_deref_mut()
        {
            Some(scores) => strategy.select_broker_at_cycle(
                candidates,
                bundle,
                bundle_data,
                view,
                cfg,
                picker,
                trace,
                scores,
            ),
            None => {
                strategy.select_broker_at(candidates, bundle, bundle_data, view, cfg, picker, trace)
            }
        };
        let mut choice = select(strategy, &candidates, picker);

        let mut overloaded_first_choice = None;
        if let Some(first) = &choice {
            let threshold = cfg.overloaded_threshold_fraction();
            let usage = view
                .brokers
                .get(&first.broker)
                .map_or(0.0, |bd| cfg.overload_check_usage(&bd.local));
            if usage > threshold {
                ctx.refresh_broker_hashes(view);
                apply_namespace_policies(bundle, view, ctx, &mut set);
                let retry_candidates: Vec<usize> = set.iter().copied().collect();
                log.reselected(&retry_candidates, || {
                    format!(
                        "{} is at {:.2}% > loadBalancerBrokerOverloadedThresholdPercentage={}; strategy re-run on the policy-only set",
                        first.broker,
                        usage * 100.0,
                        cfg.load_balancer_broker_overloaded_threshold_percentage
                    )
                });
                let retry = select(strategy, &retry_candidates, picker);
                if let Some(retry) = retry {
                    overloaded_first_choice = choice.replace(retry);
                }
            }
        }
        ctx.round_robin = round_robin;
        ctx.candidate_cache = Some(set);
        (choice, overloaded_first_choice, log.finish())
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
        stage_counts,
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
    use super::super::pipeline_steps::filter_large_topic_count;
    use super::super::placement_explain::names_of;
    use super::*;
    use crate::modular::BrokerData;
    use crate::naming::java_map_order::JavaHashSet;
    use crate::naming::java_map_order::hash_map_hash;
    use indexmap::IndexSet;

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

    /// One placement at every trace level: the same decision, and the counts the history records
    /// ([`PipelineTrace::Counts`], no names) are those of the stages a plan records named.
    fn each_level(
        bundle: &str,
        data: &LoadData,
        ctx: &PlacementContext,
        cfg: &LoadBalancerConfig,
    ) -> Vec<(PipelineTrace, PlacementOutcome)> {
        use crate::modular::placement::LeastLongTermMessageRate;
        use crate::rng::SeededPicker;
        [
            PipelineTrace::Off,
            PipelineTrace::Summary,
            PipelineTrace::Counts,
            PipelineTrace::Stages,
            PipelineTrace::Full,
        ]
        .into_iter()
        .map(|trace| {
            let (mut data, mut ctx) = (data.clone(), ctx.clone());
            ctx.trace = trace;
            let outcome = select_broker_for_bundle(
                bundle,
                &BundleData::pulsar_default(),
                SelectionPath::Shedding,
                &mut data,
                &mut ctx,
                cfg,
                &mut LeastLongTermMessageRate,
                &mut SeededPicker::new(7),
            );
            (trace, outcome)
        })
        .collect()
    }

    /// Every step kind, counted and named: a listed broker without load data and an isolation
    /// policy's first step, the topic-count, anti-affinity and even-distribution filters, a failing
    /// version filter, the restore of the policy-only set and the overload re-selection.
    #[test]
    fn counted_stages_are_the_named_stages_counts() {
        use crate::model::ResourceUsage;
        use crate::plan::reasons::describe_placement;
        let names = [
            "b1:8080", "b2:8080", "b3:8080", "b4:8080", "b5:8080", "b6:8080",
        ];
        let mut data = brokers(&names);
        for (i, b) in data.brokers.values_mut().enumerate() {
            b.local.num_topics = 10 * i as i64;
            b.local.broker_version_string = Some(format!("4.0.{i}"));
            b.local.cpu = ResourceUsage {
                usage: 10.0 + i as f64,
                limit: 100.0,
            };
        }
        let mut ctx = PlacementContext::new();
        let mut available: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        available.push("gone:8080".to_string());
        ctx.available_brokers = Some(available);
        ctx.namespace_anti_affinity_groups
            .insert("t/a".into(), "g".into());
        ctx.namespace_anti_affinity_groups
            .insert("t/b".into(), "g".into());
        ctx.add_to_bundle_range_cache("b6:8080", "t/b/0x00000000_0x80000000");
        ctx.add_to_bundle_range_cache("b2:8080", "t/a/0x80000000_0xffffffff");
        ctx.add_to_bundle_range_cache("b1:8080", "t/c/0x80000000_0xffffffff");
        // A bundle of the anti-affinity group, and one whose namespace b1 already serves.
        let bundles = ["t/a/0x00000000_0x80000000", "t/c/0x00000000_0x80000000"];
        let mut cfg = LoadBalancerConfig::pulsar_4x();
        cfg.load_balancer_broker_max_topics = 35;

        let mut cases: Vec<(&str, LoadData, LoadBalancerConfig)> =
            vec![("filters", data.clone(), cfg.clone())];
        // A bad version string makes the version filter throw: the policy-only set comes back.
        let mut bad_version = data.clone();
        bad_version.brokers[0].local.broker_version_string = Some("four".into());
        let mut later = cfg.clone();
        later.prefer_later_versions = true;
        cases.push(("version filter throws", bad_version, later));
        // No broker runs the configured load manager: nothing is left, all are restored.
        let mut other_manager = data.clone();
        for b in other_manager.brokers.values_mut() {
            b.local.load_manager_class_name = Some("Other".into());
        }
        cases.push(("restore all", other_manager, cfg.clone()));
        // Every broker overloaded: the strategy is re-run on the policy-only set.
        let mut overloaded = data.clone();
        for b in overloaded.brokers.values_mut() {
            b.local.cpu.usage += 90.0;
        }
        cases.push(("overloaded", overloaded, cfg.clone()));

        let mut seen: IndexSet<String> = IndexSet::new();
        for ((case, data, cfg), bundle) in cases.iter().flat_map(|c| bundles.map(|b| (c, b))) {
            let outcomes = each_level(bundle, data, &ctx, cfg);
            let (_, full) = &outcomes[4];
            let (_, stages) = &outcomes[3];
            let (_, counts) = &outcomes[2];
            assert!(counts.stages.is_empty(), "{case}: no names at Counts");
            assert!(
                full.stage_counts.is_empty(),
                "{case}: no counts beside names"
            );
            assert_eq!(counts.stage_counts(), full.stage_counts(), "{case}");
            assert_eq!(
                describe_placement(counts),
                describe_placement(stages),
                "{case}"
            );
            for (trace, o) in &outcomes {
                assert_eq!(o.broker, full.broker, "{case} at {trace:?}");
                assert_eq!(
                    o.choice.as_ref().map(|c| &c.choice_set),
                    full.choice.as_ref().map(|c| &c.choice_set),
                    "{case} at {trace:?}"
                );
            }
            for s in full.stage_counts() {
                if s.removed > 0 || s.stage == "reselect_policy_only" {
                    seen.insert(s.stage.to_string());
                }
            }
        }
        let every: IndexSet<String> = [
            "after_namespace_policies",
            "after_large_topic_count",
            "after_anti_affinity",
            "after_distribute_evenly",
            "after_broker_filters",
            "after_restore_all",
            "reselect_policy_only",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(
            seen.iter().collect::<std::collections::BTreeSet<_>>(),
            every.iter().collect::<std::collections::BTreeSet<_>>()
        );
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
