//! The extensible load manager's cycle in a plan: the cycle of the plan's leader
//! (`crate::leader::extensible`) recorded — its transfers or plain unloads with their reasons,
//! moved in the after view, its cycle-level skips, and the outlook while
//! `loadBalancerSheddingConditionHitCountThreshold` holds it back.

use crate::config::LoadBalancerConfig;
use crate::reason::{DecisionReason, ReasonKind};

use super::model::{Outlook, Plan, PlannedUnload, SkipScope, SkippedDecision, UnloadDetail};
use super::modular_cycle::cycle_skip;
use super::request::Workspace;
use crate::leader::extensible::run_cycle;

/// A TransferShedder cycle that decided nothing, as a cycle-level skip.
fn transfer_skip(
    skip: crate::extensible::SkipReason,
    stats: Option<(f64, f64)>,
    cfg: &LoadBalancerConfig,
) -> SkippedDecision {
    let why = match (skip, stats) {
        (crate::extensible::SkipReason::HitCount, Some((avg, std))) => format!(
            "TransferShedder skipped the cycle (HitCount): load std {:.1}% vs loadBalancerBrokerLoadTargetStd {:.1}% (avg {:.1}%), no overloaded or underloaded outlier held for more than loadBalancerSheddingConditionHitCountThreshold = {} cycles",
            std * 100.0,
            cfg.load_balancer_broker_load_target_std * 100.0,
            avg * 100.0,
            cfg.load_balancer_shedding_condition_hit_count_threshold
        ),
        (other, _) => format!("TransferShedder skipped the cycle: {}", other.name()),
    };
    SkippedDecision {
        scope: SkipScope::Cycle,
        why,
        reason: transfer_skip_reason(skip, stats, cfg),
    }
}

/// A TransferShedder move: `transfer_shedder_overloaded` / `_underloaded` with the cluster's load
/// average and standard deviation against `loadBalancerBrokerLoadTargetStd`.
fn transfer_reason(
    why: crate::extensible::UnloadReason,
    avg_std: Option<(f64, f64)>,
    cfg: &LoadBalancerConfig,
) -> DecisionReason {
    let kind = match why {
        crate::extensible::UnloadReason::Overloaded => ReasonKind::TransferShedderOverloaded,
        crate::extensible::UnloadReason::Underloaded => ReasonKind::TransferShedderUnderloaded,
    };
    with_load_stats(DecisionReason::new(kind), avg_std, cfg)
}

fn with_load_stats(
    mut r: DecisionReason,
    avg_std: Option<(f64, f64)>,
    cfg: &LoadBalancerConfig,
) -> DecisionReason {
    if let Some((avg, std)) = avg_std {
        r = r
            .with("load_avg_fraction", avg)
            .with("load_std_fraction", std);
    }
    r.with(
        "target_std_fraction",
        cfg.load_balancer_broker_load_target_std,
    )
}

/// A TransferShedder cycle that decided nothing: Pulsar's `Skip` reason name and the statistics.
fn transfer_skip_reason(
    skip: crate::extensible::SkipReason,
    avg_std: Option<(f64, f64)>,
    cfg: &LoadBalancerConfig,
) -> DecisionReason {
    let r = DecisionReason::new(ReasonKind::TransferShedderSkipped).with("skip", skip.name());
    let r = with_load_stats(r, avg_std, cfg);
    if skip == crate::extensible::SkipReason::HitCount {
        r.with(
            "hit_count_threshold",
            cfg.load_balancer_shedding_condition_hit_count_threshold,
        )
    } else {
        r
    }
}

/// The extensible manager's cycle: TransferShedder on the brokers' published load data; decisions carry
/// their destination (or are placed by extensible LeastResourceUsageWithWeight when transfers are off).
pub(super) fn run_extensible_leader_cycle(
    ws: &mut Workspace<'_>,
    outlook_cycles: u32,
    plan: &mut Plan,
    warnings: &mut Vec<String>,
) {
    // TransferShedder reads every broker's published load: the plan works on the whole snapshot.
    let after = &mut ws.after;
    let run = run_cycle(&mut ws.leader, outlook_cycles, || &*after.to_mut());
    if let Some(skip) = &run.cycle_skipped {
        plan.skipped.push(cycle_skip(skip, ws.leader.config()));
        return;
    }
    warnings.extend(run.warnings);
    plan.skipped
        .extend(run.not_shed.iter().map(SkippedDecision::from));
    let cycle = run.cycle;
    let mut first_skip = run.first_skip;
    let first_stats = run.first_load_avg_std;
    let mut unloads = Vec::new();
    for u in run.unloads {
        let d = u.decision;
        let load = ws.after.bundle_load(&d.source_broker, &d.service_unit);
        let stats = run
            .load_avg_std
            .map(|(avg, std)| {
                format!(
                    " (load avg {:.1}%, std {:.1}% vs target {:.1}%)",
                    avg * 100.0,
                    std * 100.0,
                    ws.leader.config().load_balancer_broker_load_target_std * 100.0
                )
            })
            .unwrap_or_default();
        unloads.push(PlannedUnload {
            bundle: d.service_unit.clone(),
            from: d.source_broker.clone(),
            to: u.to,
            pass_destination: u.pass_destination,
            reason: transfer_reason(d.reason, run.load_avg_std, ws.leader.config()),
            reason_text: format!("TransferShedder: {}{stats}", d.reason.name()),
            detail: Some(UnloadDetail::Transfer(d)),
            bytes_per_sec: load.bytes_per_sec(),
            msg_per_sec: load.msg_per_sec(),
            origin: "shedding".to_string(),
        });
    }
    if cycle == 1 {
        if unloads.is_empty()
            && let Some(skip) = first_skip
        {
            plan.skipped
                .push(transfer_skip(skip, first_stats, ws.leader.config()));
        }
        for u in &unloads {
            if let Some(to) = &u.to {
                ws.after.move_bundle(&u.bundle, &u.from, to);
            }
        }
        plan.unloads.extend(unloads);
        return;
    }
    if let Some(skip) = first_skip.take() {
        plan.skipped
            .push(transfer_skip(skip, first_stats, ws.leader.config()));
    }
    let acts = !unloads.is_empty();
    let mut sources: Vec<&str> = unloads.iter().map(|u| u.from.as_str()).collect();
    sources.dedup();
    let summary = if acts {
        format!(
            "TransferShedder unloads {} bundle(s) from {} at cycle {cycle} if the load stays as it is (loadBalancerSheddingConditionHitCountThreshold = {})",
            unloads.len(),
            sources.join(", "),
            ws.leader
                .config()
                .load_balancer_shedding_condition_hit_count_threshold
        )
    } else {
        format!(
            "TransferShedder would not unload anything in the next {outlook_cycles} cycles if the load stays as it is"
        )
    };
    plan.outlook = Some(Outlook {
        cycles_examined: cycle - 1,
        acts_at_cycle: acts.then_some(cycle),
        unloads_then: unloads,
        summary,
    });
}
