//! The modular load manager's leader cycle in a plan: one tick of the plan's leader
//! (`crate::leader::memory`) on its view, the unloads and skips recorded with their reasons,
//! the splits `BundleSplitterTask` chose carried out on the after view, and the outlook — further
//! ticks on unchanged load (`crate::leader::outlook`) — when the first cycle unloads nothing.

use std::cell::Cell;

use crate::config::LoadBalancerConfig;
use crate::leader::context::cycle_interval_ms;
use crate::leader::memory::Tick;
use crate::leader::outlook::first_acting;
use crate::modular::LoadData;
use crate::modular::leader::{CycleSkip, SheddingCycleReport};
use crate::modular::pipeline::{PipelineTrace, PlacementContext};
use crate::reason::{DecisionReason, ReasonKind};
use crate::split::ModularSplitCandidate;

use super::after_view::AfterView;
use super::model::{Outlook, Plan, PlannedUnload, SkipScope, SkippedDecision, UnloadDetail};
use super::reasons::{describe_skip, shedding_reason, skip_reason, unload_reason};
use super::request::Workspace;
use super::split_records::auto_splits_step;
use super::working_view::WorkingView;
use crate::leader::splitter_task::long_term_after;
use crate::leader::state::LeaderState;

/// A cycle that did not run, as plans of either load manager record it: shedding is off, or at
/// most one broker is available.
pub(super) fn cycle_skip(skip: &CycleSkip, cfg: &LoadBalancerConfig) -> SkippedDecision {
    match skip {
        CycleSkip::SheddingDisabled => SkippedDecision {
            scope: SkipScope::Cycle,
            why: "no shedding: loadBalancerEnabled or loadBalancerSheddingEnabled is false"
                .to_string(),
            reason: shedding_disabled_reason(cfg),
        },
        CycleSkip::SingleBroker { available } => SkippedDecision {
            scope: SkipScope::Cycle,
            why: format!("no shedding: only {available} broker available"),
            reason: DecisionReason::new(ReasonKind::SingleBroker)
                .with("available_brokers", *available),
        },
    }
}

/// A whole cycle off: which of the two switches is off.
fn shedding_disabled_reason(cfg: &LoadBalancerConfig) -> DecisionReason {
    DecisionReason::new(ReasonKind::SheddingDisabled)
        .with("loadBalancerEnabled", cfg.load_balancer_enabled)
        .with(
            "loadBalancerSheddingEnabled",
            cfg.load_balancer_shedding_enabled,
        )
}

/// The cycle's unloads as the plan records them, moved out of `report` (their explanations name
/// every candidate of every step: on 1,000 brokers a copy costs as much as the rest of the plan).
fn unloads_of(report: &mut SheddingCycleReport, after: &mut AfterView<'_>) -> Vec<PlannedUnload> {
    std::mem::take(&mut report.unloads)
        .into_iter()
        .map(|u| {
            let load = after.bundle_load(&u.from, &u.bundle);
            let reason = unload_reason(&u.shed_reason, &u.placement);
            let reason_text = shedding_reason(&u);
            PlannedUnload {
                reason,
                reason_text,
                detail: Some(UnloadDetail::Shedding {
                    shedding: u.shed_reason,
                    placement: Box::new(u.placement),
                }),
                bytes_per_sec: load.bytes_per_sec(),
                msg_per_sec: load.msg_per_sec(),
                bundle: u.bundle,
                from: u.from,
                to: Some(u.to),
                pass_destination: true,
                origin: "shedding".to_string(),
            }
        })
        .collect()
}

/// [`auto_splits_step`] on the plan's after view, `candidates` being what `BundleSplitterTask`
/// chose in the cycle's tick: the whole snapshot is asked for only when it chose a bundle
/// (splitting changes the bundle set and the layouts).
fn auto_splits_on_after(
    ws: &mut Workspace<'_>,
    candidates: &[ModularSplitCandidate],
    data: &LoadData,
    plan: &mut Plan,
) {
    // A bundle this cycle unloads is left alone by `auto_splits_step`: when it is every candidate
    // (the usual case on a cluster the cycle acts on), nothing would change.
    if candidates
        .iter()
        .all(|c| plan.unloads.iter().any(|u| u.bundle == c.bundle))
    {
        return;
    }
    auto_splits_step(ws.after.to_mut(), ws.leader.config(), data, plan);
}

/// The leader's cycle in a plan: one tick of the plan's leader on its view, the unloads moved in
/// the after view, the splits `BundleSplitterTask` chose carried out there, and when the cycle
/// unloads nothing, the outlook.
pub(super) fn run_leader_cycle(
    ws: &mut Workspace<'_>,
    view: &mut WorkingView<'_>,
    outlook_cycles: u32,
    plan: &mut Plan,
) {
    let state = view.get(&mut ws.after);
    // The cycle changes only `recently_unloaded` in the leader view (the shedding path preallocates
    // nothing), so the steady view for the split check and the look-ahead is the view with this
    // copy put back: no clone of the whole view. The context's kept parts (policies, range cache)
    // are left as they were too; its per-cycle parts are fresh at each `take_context`.
    let steady_recently_unloaded = state.data().recently_unloaded.clone();
    let mut ctx = state.take_context();
    let Tick {
        splits,
        shedding: mut report,
    } = {
        let rest = ws.after.rest();
        let counts = |ns: &str| {
            rest.namespaces
                .get(ns)
                .map(|n| i64::from(n.bundles.num_bundles))
        };
        // `BundleSplitterTask` asks for the long-term rates in the view's order.
        let next = Cell::new(0);
        ws.leader.tick(
            state.data_mut(),
            &mut ctx,
            ws.now_ms,
            ws.trace,
            counts,
            |data, _, _, name| long_term_after(data, name, &next),
        )
    };
    state.data_mut().recently_unloaded = steady_recently_unloaded;
    if let Some(skip) = &report.cycle_skipped {
        state.restore_context(ctx);
        plan.skipped.push(cycle_skip(skip, ws.leader.config()));
        auto_splits_on_after(ws, &splits, state.data(), plan);
        return;
    }
    let unloads = unloads_of(&mut report, &mut ws.after);
    plan.skipped
        .extend(report.not_shed.iter().map(SkippedDecision::from));
    for s in &report.skipped {
        plan.skipped.push(SkippedDecision {
            scope: SkipScope::Bundle {
                bundle: s.bundle.clone(),
                broker: s.from.clone(),
            },
            why: describe_skip(s),
            reason: skip_reason(s),
        });
    }
    for u in &unloads {
        if let Some(to) = &u.to {
            ws.after.move_bundle(&u.bundle, &u.from, to);
        }
    }
    let acted = !unloads.is_empty();
    plan.unloads.extend(unloads);
    auto_splits_on_after(ws, &splits, state.data(), plan);
    if !acted && outlook_cycles > 0 {
        // A cycle that placed nothing left the context as it was; one that did starts afresh.
        if !report.decisions.is_empty() {
            state.restore_context(ctx);
            ctx = state.take_context();
        }
        plan.outlook = Some(look_ahead(ws, state, &mut ctx, outlook_cycles));
    }
    state.restore_context(ctx);
}

/// Keeps the plan's leader ticking on unchanged load to see when (if ever) it acts: further ticks
/// of the same leader (its strategies' memory, its picker, the grace list it carries).
///
/// Each extra cycle starts from the steady view (`state`, with its own `recently_unloaded`) and a
/// fresh placement context. Both are reused rather than copied: a cycle that selects nothing changes
/// neither (its expiry of `recently_unloaded` entries would happen again at any later cycle, so
/// keeping it changes nothing), and one whose selections were all skipped is followed by a reset.
/// `ctx` is the context lent by `state`; the caller gives it back.
fn look_ahead(
    ws: &mut Workspace<'_>,
    state: &mut LeaderState,
    ctx: &mut PlacementContext,
    cycles: u32,
) -> Outlook {
    let strategy = crate::config::simple_class_name(&ws.leader.resolution().shedding).to_string();
    let steady_recently_unloaded = state.data().recently_unloaded.clone();
    let interval_ms = cycle_interval_ms(ws.leader.config());
    let acting = first_acting(interval_ms, ws.now_ms, cycles, |_, at_ms| {
        let mut report =
            ws.leader
                .tick_shedding_only(state.data_mut(), ctx, at_ms, PipelineTrace::Summary);
        let unloads = unloads_of(&mut report, &mut ws.after);
        if !unloads.is_empty() {
            return Some(unloads);
        }
        if !report.decisions.is_empty() {
            // Skipped selections ran the pipeline, which may have grown the candidate cache or
            // advanced the round robin: start the next cycle from a fresh context, as before.
            state.data_mut().recently_unloaded = steady_recently_unloaded.clone();
            state.restore_context(std::mem::take(ctx));
            *ctx = state.take_context();
        }
        None
    });
    match acting {
        Some((extra, unloads)) => {
            let cycle = extra + 1;
            let mut sources: Vec<&str> = unloads.iter().map(|u| u.from.as_str()).collect();
            sources.dedup();
            let summary = format!(
                "{strategy} unloads {} bundle(s) from {} at cycle {cycle} if the load stays as it is",
                unloads.len(),
                sources.join(", ")
            );
            Outlook {
                cycles_examined: extra,
                acts_at_cycle: Some(cycle),
                unloads_then: unloads,
                summary,
            }
        }
        None => Outlook {
            cycles_examined: cycles,
            acts_at_cycle: None,
            unloads_then: Vec::new(),
            summary: format!(
                "{strategy} would not unload anything in the next {cycles} cycles if the load stays as it is"
            ),
        },
    }
}
