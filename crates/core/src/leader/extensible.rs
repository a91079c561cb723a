//! The extensible load manager's leader cycle on a snapshot: TransferShedder on the brokers'
//! published load ([`super::extensible_view`]), and while
//! `loadBalancerSheddingConditionHitCountThreshold` holds it back, the look-ahead — further shedder
//! calls on unchanged load, a cycle interval apart ([`first_acting`]) — until a cycle decides; each
//! decision with its destination (TransferShedder's, or with transfers off, extensible
//! LeastResourceUsageWithWeight's placement by the leader's picker). What a plan records of it is
//! `plan::transfer_cycle`'s.

use crate::extensible::{SkipReason, TransferShedder, UnloadDecision};
use crate::model::Snapshot;
use crate::modular::leader::{CycleSkip, shedding_disabled};
use crate::reason::NotShed;

use super::context::cycle_interval_ms;
use super::extensible_view::{
    ExtensibleCycle, extensible_view, place_plain_unload, run_transfer_shedder,
};
use super::memory::LeaderMemory;
use super::outlook::first_acting;

/// One TransferShedder decision and where its bundle goes.
#[derive(Clone, Debug, PartialEq)]
pub struct TransferUnload {
    pub decision: UnloadDecision,
    /// The destination: the decision's own, or the plain unload's placement (`None`: no broker
    /// takes it).
    pub to: Option<String>,
    /// Whether the unload names `to` as `destinationBroker` (a transfer does; a plain unload lets
    /// the lookup choose, which `to` predicts).
    pub pass_destination: bool,
}

/// What the extensible leader's cycle decided.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransferCycle {
    /// Shedding is off ([`CycleSkip::SheddingDisabled`]): nothing else ran.
    pub cycle_skipped: Option<CycleSkip>,
    /// What building the shedder's inputs from the snapshot derived.
    pub warnings: Vec<String>,
    /// The first cycle's most-loaded brokers that gave nothing, with why.
    pub not_shed: Vec<NotShed>,
    /// Why the first cycle decided nothing, with its load average and standard deviation.
    pub first_skip: Option<SkipReason>,
    pub first_load_avg_std: Option<(f64, f64)>,
    /// The cycle [`Self::unloads`] are from: 1 is the first; a later one is the look-ahead's (the
    /// last one looked at when none decided).
    pub cycle: u32,
    /// That cycle's load average and standard deviation.
    pub load_avg_std: Option<(f64, f64)>,
    pub unloads: Vec<TransferUnload>,
}

/// The extensible leader's cycle on the snapshot `snapshot()` gives (asked for only when shedding
/// is on), looking at most `outlook_cycles` cycles further while the hit-count threshold holds the
/// first back; `leader` gives the configuration and the picker of plain unloads' placements.
pub fn run_cycle<'s>(
    leader: &mut LeaderMemory,
    outlook_cycles: u32,
    snapshot: impl FnOnce() -> &'s Snapshot,
) -> TransferCycle {
    let cfg = leader.config();
    if shedding_disabled(cfg) {
        return TransferCycle {
            cycle_skipped: Some(CycleSkip::SheddingDisabled),
            ..TransferCycle::default()
        };
    }
    let snapshot = snapshot();
    let view = extensible_view(snapshot, cfg);
    let mut shedder = TransferShedder::new();
    let recent = &snapshot.recently_unloaded_bundles;
    let mut cycle = 1;
    let mut outcome = run_transfer_shedder(&mut shedder, &view, cfg, recent, view.now_ms);
    let not_shed = std::mem::take(&mut outcome.not_shed);
    let first_skip = outcome.skip_reason;
    let first_load_avg_std = outcome.load_avg_std;
    // While `loadBalancerSheddingConditionHitCountThreshold` holds it back, the look-ahead calls
    // the shedder again until a cycle decides, or skips for another reason.
    let held_back =
        |o: &ExtensibleCycle| o.decisions.is_empty() && o.skip_reason == Some(SkipReason::HitCount);
    if held_back(&outcome) && outlook_cycles > 0 {
        let later = first_acting(
            cycle_interval_ms(cfg),
            view.now_ms,
            outlook_cycles,
            |_, at_ms| {
                let o = run_transfer_shedder(&mut shedder, &view, cfg, recent, at_ms);
                (!held_back(&o)).then_some(o)
            },
        );
        match later {
            Some((extra, later)) => {
                cycle = extra + 1;
                outcome = later;
            }
            // The last cycle decided nothing, like the first.
            None => cycle = outlook_cycles + 1,
        }
    }
    let unloads = outcome
        .decisions
        .into_iter()
        .map(|decision| {
            let (to, pass_destination) = match &decision.dest_broker {
                Some(dest) => (Some(dest.clone()), true),
                None => {
                    let (cfg, picker) = leader.config_and_picker();
                    let to = place_plain_unload(
                        &view,
                        cfg,
                        &decision.service_unit,
                        &decision.source_broker,
                        picker,
                    );
                    (to, false)
                }
            };
            TransferUnload {
                decision,
                to,
                pass_destination,
            }
        })
        .collect();
    TransferCycle {
        cycle_skipped: None,
        warnings: view.warnings,
        not_shed,
        first_skip,
        first_load_avg_std,
        cycle,
        load_avg_std: outcome.load_avg_std,
        unloads,
    }
}
