//! "Run plan": the button that asks for a plan of the current snapshot and edits, whether the plan
//! includes the leader's shedding cycle, and where the plan is being made (in the background, or in
//! a worker for a large cluster).

use yew::prelude::*;

#[derive(Clone, PartialEq, Properties)]
pub struct RunPanelProps {
    pub leader_cycle: bool,
    /// A plan job is running.
    pub pending: bool,
    /// The snapshot's bundle count when plans are made in a worker (said under the button).
    pub worker_bundles: Option<usize>,
    pub on_run: Callback<()>,
    pub on_leader_cycle: Callback<bool>,
}

#[function_component(RunPanel)]
pub fn run_panel(p: &RunPanelProps) -> Html {
    let on_run = {
        let cb = p.on_run.clone();
        Callback::from(move |_| cb.emit(()))
    };
    let on_toggle = {
        let (cb, on) = (p.on_leader_cycle.clone(), p.leader_cycle);
        Callback::from(move |_| cb.emit(!on))
    };
    html! {
        <section class="panel run">
            <button type="button" class="primary" data-testid="run-plan" onclick={on_run}>{ "Run plan" }</button>
            <label><input type="checkbox" checked={p.leader_cycle} onchange={on_toggle} />
                { " include the leader's shedding cycle" }</label>
            if p.pending {
                <p class="busy small" role="status" data-testid="plan-pending">{ "Planning in the background…" }</p>
            } else if let Some(n) = p.worker_bundles {
                <p class="muted small">{ format!("{} bundles: plans are made in a worker.", crate::format::count(n as i64)) }</p>
            }
        </section>
    }
}
