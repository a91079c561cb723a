//! Upgrade preview: what changes when the cluster moves from the release it runs to a target
//! release. This cycle's decisions under both (each change attributed to the table rows that differ
//! and touch the strategies in use), the first cycles simulated under each (moves, bytes moved,
//! ping-pong, time to balance), and the `broker.conf` lines that keep today's defaults.

pub mod causes;

use serde::{Deserialize, Serialize};

use crate::config::settings::resolve_config;
use crate::config::{
    LoadBalancerConfig, Profile, SYSTEM_NAMESPACE_BUNDLES_KEY, system_namespace_bundles,
};
use crate::model::Snapshot;
use crate::plan::diff::{PlanDiff, diff_plans};
use crate::plan::{Explain, PlanEngine, PlanError, PlanRequest};
use crate::release::basis::ReleaseBasis;
use crate::release::table::{CHANGES, Change};
use crate::simulate::metrics::RunSummary;
use crate::simulate::{RunConfig, RunOptions, builtin_scenario, compare};

/// Version of the upgrade preview JSON (`lbplan upgrade --format json`; 2: `new_namespaces`, the
/// bundles new namespaces get under each release, and `decision_causes`, the PRs per changed
/// decision).
pub const UPGRADE_FORMAT_VERSION: u32 = 2;

/// The bundles a namespace created under one release gets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewNamespaceBundles {
    pub release: String,
    /// `defaultNumberOfNamespaceBundles` (4 before 5.0, 32 from 5.0.0 unless set).
    pub namespace_bundles: i64,
    /// A new system namespace's (`defaultNumberOfSystemNamespaceBundles`, 64 from 5.0.0; before,
    /// the namespace default).
    pub system_namespace_bundles: i64,
}

/// A table row whose flag differs between the two releases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleaseChange {
    /// `apache/pulsar#24954`.
    pub prs: String,
    pub summary: String,
    /// `gained` (the target carries it, today's release does not) or `lost` (a downgrade).
    pub direction: String,
    /// Whether it touches this cluster's strategies or keys (the decisions below may show it).
    pub applies: bool,
}

/// The first cycles simulated under one release.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulatedUpgrade {
    pub release: String,
    pub shedding_strategy: String,
    pub placement_strategy: String,
    pub summary: RunSummary,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UpgradePreview {
    pub format_version: u32,
    /// Today's release and why (the leader's version, the majority's, an override).
    pub from: ReleaseBasis,
    pub to: String,
    pub changes: Vec<ReleaseChange>,
    /// This cycle's decisions today against after the upgrade (`baseline` = today).
    pub decisions: PlanDiff,
    /// The PRs the changed decisions are attributed to: the differing rows that apply.
    pub attributed_to: Vec<String>,
    /// Each changed decision with the PRs of the rows acting on the side of the cycle that made it
    /// ([`causes::decision_causes`]).
    pub decision_causes: Vec<causes::DecisionCause>,
    /// The first `cycles` simulated today and after the upgrade (the `steady` scenario).
    pub simulated: Vec<SimulatedUpgrade>,
    pub cycles: u32,
    /// `broker.conf` lines that keep today's defaults after the upgrade (keys the snapshot does not
    /// set whose default differs).
    pub keep_today: Vec<String>,
    /// Today's and the target's bundles for a new namespace and a new system namespace.
    pub new_namespaces: Vec<NewNamespaceBundles>,
    pub warnings: Vec<String>,
}

/// The preview of upgrading the cluster of `snapshot` (today: `from`, else its leader's release)
/// to `to`, with `cycles` simulated cycles (0: none).
pub fn upgrade_preview(
    snapshot: &Snapshot,
    from: Option<Profile>,
    to: Profile,
    cycles: u32,
) -> Result<UpgradePreview, PlanError> {
    upgrade_preview_with_progress(snapshot, from, to, cycles, &mut |_, _| {})
}

/// The steps [`upgrade_preview_with_progress`] counts: today's plan, the target's plan, then each
/// simulated cycle under today's release and under the target's.
pub fn upgrade_steps(cycles: u32) -> u32 {
    cycles.saturating_mul(2).saturating_add(2)
}

/// What runs after `done` of [`upgrade_steps`] steps, in words (the dashboard's progress line).
pub fn upgrade_step_label(done: u32, cycles: u32) -> String {
    match done {
        0 => "planning this cycle under today's release".to_string(),
        1 => "planning this cycle under the target release".to_string(),
        _ => {
            let cycle = done - 2;
            let (which, k) = if cycle < cycles {
                ("today's release", cycle)
            } else {
                ("the target release", cycle - cycles)
            };
            if k >= cycles {
                "comparing".to_string()
            } else {
                format!("simulating cycle {} of {cycles} under {which}", k + 1)
            }
        }
    }
}

/// [`upgrade_preview`], calling `progress(done, total)` after each of the [`upgrade_steps`] steps
/// (the two plans, each simulated cycle), so a caller off the page's thread can show how far it is.
pub fn upgrade_preview_with_progress(
    snapshot: &Snapshot,
    from: Option<Profile>,
    to: Profile,
    cycles: u32,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<UpgradePreview, PlanError> {
    let total = upgrade_steps(cycles);
    // Both plans on one engine: the snapshot's fingerprint and the leader's view once. Only the
    // decisions are compared, so no outlook, no verdict alternatives and no per-decision detail
    // (at 1,000 brokers these were most of the cost).
    let mut engine = PlanEngine::new_borrowed(snapshot);
    let req = |profile: Option<Profile>| PlanRequest {
        profile,
        outlook_cycles: 0,
        explain: Explain::Summary,
        ..PlanRequest::leader_cycle()
    };
    let today = engine.plan_decisions(&req(from))?;
    progress(1, total);
    let from_profile = Profile::parse(&today.profile).unwrap_or(Profile::Pulsar4x);
    let after = engine.plan_decisions(&req(Some(to)))?;
    progress(2, total);
    let decisions = diff_plans(&today, &after).map_err(|e| PlanError::Operation {
        op: "upgrade".to_string(),
        why: e.to_string(),
    })?;
    let (b_from, b_to) = (from_profile.behaviour(), to.behaviour());
    // A row applies when today's or the target's decisions read it (one rule with the apply check).
    let reads: Vec<Change> = [&today, &after]
        .iter()
        .filter_map(|p| p.release_basis.as_ref().and_then(|b| b.reads.clone()))
        .flatten()
        .collect();
    let changes: Vec<ReleaseChange> = CHANGES
        .iter()
        .filter(|r| b_from.has(r.change) != b_to.has(r.change))
        .map(|r| ReleaseChange {
            prs: r.pr_label(),
            summary: r.summary.to_string(),
            direction: if b_to.has(r.change) { "gained" } else { "lost" }.to_string(),
            applies: reads.contains(&r.change),
        })
        .collect();
    let attributed_to = if decisions.identical_decisions {
        Vec::new()
    } else {
        changes
            .iter()
            .filter(|c| c.applies)
            .map(|c| c.prs.clone())
            .collect()
    };
    let strategies_replaced = today.shedding_strategy != after.shedding_strategy
        || today.placement_strategy != after.placement_strategy;
    let decision_causes =
        causes::decision_causes(&decisions, &b_from, &b_to, &reads, strategies_replaced);
    let (d_from, d_to) = (
        LoadBalancerConfig::for_profile(from_profile),
        LoadBalancerConfig::for_profile(to),
    );
    let mut keep_today: Vec<String> = LoadBalancerConfig::KEYS
        .iter()
        .filter(|(key, _)| !snapshot.broker_conf.contains_key(*key))
        .filter_map(|(key, _)| {
            let (a, b) = (d_from.get_text(key)?, d_to.get_text(key)?);
            (a != b).then(|| format!("{key}={a}"))
        })
        .collect();
    let resolved = |p: Profile| {
        resolve_config(snapshot, Some(p), &[])
            .map_or_else(|_| LoadBalancerConfig::for_profile(p), |r| r.config)
    };
    let new_namespaces: Vec<NewNamespaceBundles> = [from_profile, to]
        .iter()
        .map(|&p| {
            let cfg = resolved(p);
            NewNamespaceBundles {
                release: p.name(),
                namespace_bundles: cfg.default_number_of_namespace_bundles,
                system_namespace_bundles: system_namespace_bundles(p, &cfg, &snapshot.broker_conf),
            }
        })
        .collect();
    // The 5.0 key is not one of the load managers': keep today's count for system namespaces.
    if let [today_ns, after_ns] = new_namespaces.as_slice()
        && today_ns.system_namespace_bundles != after_ns.system_namespace_bundles
        && !snapshot
            .broker_conf
            .contains_key(SYSTEM_NAMESPACE_BUNDLES_KEY)
        && to.behaviour().defaults_5_0
    {
        keep_today.push(format!(
            "{SYSTEM_NAMESPACE_BUNDLES_KEY}={}",
            today_ns.system_namespace_bundles
        ));
    }
    let mut warnings = Vec::new();
    let simulated = if cycles == 0 {
        Vec::new()
    } else {
        simulate_both(
            snapshot,
            from_profile,
            to,
            cycles,
            &mut warnings,
            &mut |done| {
                progress(done.saturating_add(2).min(total), total);
            },
        )
    };
    Ok(UpgradePreview {
        format_version: UPGRADE_FORMAT_VERSION,
        from: today.release_basis.clone().unwrap_or_else(|| ReleaseBasis {
            release: today.profile.clone(),
            source: crate::release::BasisSource::Override,
            why: String::new(),
            leader_broker: None,
            other_versions: Vec::new(),
            warnings: Vec::new(),
            reads: None,
        }),
        to: to.name(),
        changes,
        decisions,
        attributed_to,
        decision_causes,
        simulated,
        cycles,
        keep_today,
        new_namespaces,
        warnings,
    })
}

fn simulate_both(
    snapshot: &Snapshot,
    from: Profile,
    to: Profile,
    cycles: u32,
    warnings: &mut Vec<String>,
    progress: &mut dyn FnMut(u32),
) -> Vec<SimulatedUpgrade> {
    let Some(Ok(scenario)) = builtin_scenario("steady") else {
        warnings.push("the built-in steady scenario is missing: no simulation".to_string());
        return Vec::new();
    };
    let configs: Vec<RunConfig> = [from, to]
        .iter()
        .map(|p| RunConfig {
            name: p.name(),
            profile: Some(*p),
            ..RunConfig::default()
        })
        .collect();
    let opts = RunOptions {
        cycles,
        seed: 0,
        record_broker_usage: false,
        record_ownership: false,
    };
    let mut on_cycle = |done: u32, _total: u32| {
        progress(done);
        true
    };
    match compare(snapshot, &scenario, &configs, opts, &mut on_cycle) {
        Ok(c) => c
            .runs
            .into_iter()
            .map(|r| SimulatedUpgrade {
                release: r.profile,
                shedding_strategy: r.shedding_strategy,
                placement_strategy: r.placement_strategy,
                summary: r.summary,
            })
            .collect(),
        Err(e) => {
            warnings.push(format!("simulation: {e}"));
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The demo's brokers report 4.0.7: upgrading to 5.0.0 gains the 5.0 defaults (#26609 /
    /// #26610), whose broker.conf lines keep ThresholdShedder, LeastLongTermMessageRate, 0.2, even
    /// distribution and 4 bundles.
    #[test]
    fn demo_to_5_0_lists_the_changes_and_the_lines_that_keep_today() {
        let snap = crate::synthetic::demo().unwrap();
        let p = upgrade_preview(&snap, None, Profile::parse("5.0.0").unwrap(), 0).unwrap();
        assert_eq!(p.from.release, "4.0.7");
        assert_eq!(p.to, "5.0.0");
        let prs: Vec<&str> = p.changes.iter().map(|c| c.prs.as_str()).collect();
        for pr in [
            "apache/pulsar#21906",
            "apache/pulsar#24954",
            "apache/pulsar#25275 / #25304",
            "apache/pulsar#26609 / #26610",
        ] {
            assert!(prs.contains(&pr), "{pr} in {prs:?}");
        }
        for line in [
            "loadBalancerLoadSheddingStrategy=org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder",
            "maxUnloadPercentage=0.2",
            "loadBalancerDistributeBundlesEvenlyEnabled=true",
            "defaultNumberOfNamespaceBundles=4",
        ] {
            assert!(
                p.keep_today.iter().any(|l| l == line),
                "{line} in {:?}",
                p.keep_today
            );
        }
        // New namespaces: 4 bundles today (system namespaces too); 32 and 64 on 5.0.0 (#26609 / #26610).
        assert_eq!(
            p.new_namespaces
                .iter()
                .map(|n| (
                    n.release.as_str(),
                    n.namespace_bundles,
                    n.system_namespace_bundles
                ))
                .collect::<Vec<_>>(),
            vec![("4.0.7", 4, 4), ("5.0.0", 32, 64)]
        );
        assert!(
            p.keep_today
                .iter()
                .any(|l| l == "defaultNumberOfSystemNamespaceBundles=4")
        );
        // 4.0.7 → 4.0.8 gains only #24954 (and nothing in between applies to ThresholdShedder).
        let p = upgrade_preview(&snap, None, Profile::parse("4.0.8").unwrap(), 0).unwrap();
        assert_eq!(p.changes.len(), 1);
        assert!(!p.changes[0].applies);
        assert!(p.keep_today.is_empty());
    }

    /// The steps are reported in order, one per plan and per simulated cycle under each release,
    /// and reporting them changes nothing in the preview.
    #[test]
    fn progress_counts_both_plans_and_every_simulated_cycle() {
        let snap = crate::synthetic::demo().unwrap();
        let to = Profile::parse("5.0.0").unwrap();
        let mut seen = Vec::new();
        let with = upgrade_preview_with_progress(&snap, None, to, 3, &mut |d, t| seen.push((d, t)))
            .unwrap();
        assert_eq!(seen, (1..=8).map(|d| (d, 8)).collect::<Vec<_>>());
        assert_eq!(with, upgrade_preview(&snap, None, to, 3).unwrap());
        assert_eq!(upgrade_steps(3), 8);
        let labels: Vec<String> = [0, 1, 2, 4, 5, 7, 8]
            .map(|d| upgrade_step_label(d, 3))
            .into();
        assert_eq!(
            labels,
            [
                "planning this cycle under today's release",
                "planning this cycle under the target release",
                "simulating cycle 1 of 3 under today's release",
                "simulating cycle 3 of 3 under today's release",
                "simulating cycle 1 of 3 under the target release",
                "simulating cycle 3 of 3 under the target release",
                "comparing",
            ]
        );
        assert_eq!(upgrade_step_label(2, 0), "comparing");
    }
}
