//! Plans: each new plan job of the store goes to the plan worker, which holds the snapshot it
//! imported (a worker started after the last one died is given its files again first:
//! `WorkerImports::hold`; the page never sends its snapshot).

use yew::prelude::*;

use crate::components::pipeline_detail::ExplainSource;
use crate::state::{Action, AppState, Loaded, PlanJob};
use crate::worker_import::WorkerImports;

/// Sends a plan job to the plan worker, starting one if there is none (or it died).
fn send_plan_job(imports: &WorkerImports, job: &PlanJob, loaded: &Loaded) {
    let dispatcher = imports.dispatcher.clone();
    if let Err(message) = imports.hold(loaded.id) {
        dispatcher.dispatch(Action::PlanFailed {
            id: job.id,
            message,
        });
        return;
    }
    let slot = imports.worker.borrow();
    let Some(w) = slot.as_ref() else {
        return;
    };
    let request = lbplan_worker::protocol::Request::Plan(Box::new(
        lbplan_worker::protocol::PlanJob::new(job.id, loaded.id, None, &job.request)
            .with_diff_baseline(!job.request.operations.is_empty())
            .with_cpu_cost_factors(job.cpu_cost_factors.clone()),
    ));
    match serde_json::to_string(&request) {
        Ok(text) => w.send(text, loaded.id),
        Err(e) => dispatcher.dispatch(Action::PlanFailed {
            id: job.id,
            message: format!("cannot send the plan job to the plan worker: {e}"),
        }),
    }
}

/// Hands each new plan job of `state` to the plan worker.
#[hook]
pub fn use_plan_jobs(state: &UseReducerHandle<AppState>, imports: &WorkerImports) {
    let job = state.plan_job.clone();
    let loaded = state.loaded().cloned();
    let imports = imports.clone();
    use_effect_with(state.plan_job.as_ref().map(|j| j.id), move |_| {
        if let (Some(job), Some(l)) = (job, loaded) {
            send_plan_job(&imports, &job, &l);
        }
    });
}

/// Where a plan view asks for one decision's detail. Plans from the worker come without their
/// details (`explain: summary`): a decision's detail is asked of the worker when its pane's
/// pipeline is opened (and an export asks for the full plan first, `Action::WantFullPlan`).
pub fn explain_source(imports: &WorkerImports, loaded: &Loaded, state: &AppState) -> ExplainSource {
    let (worker, snapshot_id, request) = (
        imports.worker.clone(),
        loaded.id,
        state.worker_request(false),
    );
    Callback::from(
        move |(which, answer): (
            lbplan_core::plan::DecisionRef,
            Callback<crate::plan_client::Explanation>,
        )| {
            match worker.borrow().as_ref() {
                Some(w) => w.ask_explanation(snapshot_id, &request, which, answer),
                None => answer.emit(Err("the plan worker is not running".to_string())),
            }
        },
    )
}
