//! The Simulate panel's progress line while a run is under way: cycles done of all, time, Cancel.

use yew::prelude::*;

use super::{Msg, SimulatePanel};
use crate::components::bundle_map::now_ms;
use crate::format;

impl SimulatePanel {
    pub(super) fn view_progress(&self, ctx: &Context<Self>) -> Html {
        let Some(r) = &self.running else {
            return html! {};
        };
        let elapsed = (now_ms() - r.started_ms) / 1000.0;
        html! {
            <div class="sim-progress" data-testid="simulation-running" aria-live="polite">
                <progress data-testid="simulation-progress" max={r.total.max(1).to_string()} value={r.done.to_string()}></progress>
                <span data-testid="simulation-progress-text">{ format!("{} of {} cycles · {elapsed:.1} s", format::count(i64::from(r.done)), format::count(i64::from(r.total))) }</span>
                <button type="button" data-testid="cancel-simulation" onclick={ctx.link().callback(|_| Msg::Cancel)}>{ "Cancel" }</button>
            </div>
        }
    }
}
