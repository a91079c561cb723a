//! The Simulate panel's replay: the bundle map after any cycle of any configuration (core's
//! `snapshot_after`), marking what that cycle changed, with the cycle's events.

use std::rc::Rc;

use lbplan_core::simulate::snapshot_after;
use lbplan_core::view::bundle_map::BundleMap;
use yew::prelude::*;

use super::outcome::Outcome;
use super::{Msg, SimulatePanel};
use crate::components::bundle_map::BundleMapView;
use crate::components::event_value;

impl SimulatePanel {
    /// The bundle map after `replay_cycle` cycles of `replay_run`, marking what its last cycle changed.
    pub(super) fn rebuild_replay(&mut self) {
        let Some(o) = &self.outcome else {
            self.replay = None;
            return;
        };
        let Some(run) = o.comparison.runs.get(self.replay_run) else {
            self.replay = None;
            return;
        };
        let snap = snapshot_after(&o.snapshot, &run.cycles, self.replay_cycle);
        let map = BundleMap::from_snapshot(&snap);
        let mut marked: Vec<usize> = Vec::new();
        if let Some(last) = self
            .replay_cycle
            .checked_sub(1)
            .and_then(|k| run.cycles.iter().find(|m| m.cycle == k))
        {
            for change in &last.ownership {
                for bundle in change.changed_bundles() {
                    marked.extend(map.find(&bundle));
                }
            }
        }
        marked.sort_unstable();
        marked.dedup();
        self.replay = Some((Rc::new(map), Rc::new(marked)));
    }

    /// The replay's controls, the cycle's events and its map.
    pub(super) fn view_replay(&self, ctx: &Context<Self>, o: &Outcome) -> Html {
        let link = ctx.link();
        let p = ctx.props();
        let c = &o.comparison;
        let run = c.runs.get(self.replay_run);
        let cursor = self.replay_cycle.checked_sub(1);
        let cycle = run.and_then(|r| cursor.and_then(|k| r.cycles.iter().find(|m| m.cycle == k)));
        let minute = cycle.map_or(0, |m| m.minute);
        let events: Vec<String> = cycle
            .map(|m| {
                let mut v = m.events.clone();
                if m.bundles_unloaded > 0 {
                    v.insert(0, format!("{} bundle(s) unloaded", m.bundles_unloaded));
                }
                if m.splits > 0 {
                    v.push(format!("{} split(s)", m.splits));
                }
                v
            })
            .unwrap_or_default();
        html! {
            <>
                <h3>{ "Replay" }</h3>
                <div class="sim-form">
                    if c.runs.len() > 1 {
                        <label>{ "Configuration " }
                            <select data-testid="simulation-replay-run" onchange={link.callback(|e: Event| Msg::ReplayRun(event_value(&e).parse().unwrap_or(0)))}>
                                { for c.runs.iter().enumerate().map(|(k, r)| html! {
                                    <option value={k.to_string()} selected={k == self.replay_run}>{ r.config.name.clone() }</option>
                                }) }
                            </select>
                        </label>
                    }
                    <label class="slider">{ "After cycle " }
                        <input type="range" min="0" max={run.map_or(0, |r| r.cycles.len()).to_string()} step="1"
                            data-testid="simulation-cycle" value={self.replay_cycle.to_string()}
                            aria-valuetext={format!("after {} cycles", self.replay_cycle)}
                            onchange={link.callback(|e: Event| Msg::ReplayCycle(event_value(&e).parse().unwrap_or(0)))} />
                    </label>
                    <span data-testid="simulation-cycle-label">{ format!("{} of {} (minute {minute})", self.replay_cycle, run.map_or(0, |r| r.cycles.len())) }</span>
                </div>
                if !events.is_empty() {
                    <ul class="small sim-events">{ for events.iter().map(|e| html! { <li>{ e.clone() }</li> }) }</ul>
                }
                if let Some((map, marked)) = &self.replay {
                    <BundleMapView map={map.clone()} highlighted={marked.clone()} after_owners={None::<Rc<Vec<u32>>>}
                        selected={self.selected} dark={p.dark} testid="simulation-map"
                        on_select={link.callback(Msg::Select)} />
                }
            </>
        }
    }
}
