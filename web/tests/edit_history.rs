//! The store's edit history and plans in the browser: a plan after `RunPlan`, a manual move as an
//! operation (a `plan-move` with origin `manual`), undo and redo, and a refused operation reported
//! without entering the history.

use std::rc::Rc;

use lbplan_core::plan::operations::Operation;
use lbplan_web::state::{Action, AppState, Loaded};
use wasm_bindgen_test::*;
use yew::Reducible;

wasm_bindgen_test_configure!(run_in_browser);

fn loaded() -> Rc<AppState> {
    let s = lbplan_core::synthetic::demo().unwrap();
    Rc::new(AppState::initial()).reduce(Action::Loaded {
        loaded: Rc::new(Loaded::new(s, "demo".into(), Vec::new())),
        keep_session: true,
    })
}

#[wasm_bindgen_test]
fn plans_moves_undo_redo() {
    let s = loaded();
    assert!(s.plan.is_none());
    let s = s.reduce(Action::RunPlan);
    assert!(s.plan_ok().is_some(), "{:?}", s.plan);

    let l = s.loaded().unwrap().clone();
    let bundle = l.map.bundle_name(0).unwrap();
    let owner = l
        .map
        .owner_name(l.map.segments[0].owner)
        .unwrap()
        .to_string();
    let dest = l.map.brokers.iter().find(|b| **b != owner).unwrap().clone();
    let s = s.reduce(Action::Push(Operation::UnloadBundle {
        bundle: bundle.clone(),
        destination_broker: Some(dest.clone()),
    }));
    let plan = s.plan_ok().unwrap();
    let manual = plan
        .unloads
        .iter()
        .find(|u| u.origin == "manual")
        .expect("a manual move");
    assert_eq!(
        (manual.bundle.as_str(), manual.to.as_deref()),
        (bundle.as_str(), Some(dest.as_str()))
    );
    assert_eq!(s.operations.len(), 1);

    let s = s.reduce(Action::Undo);
    assert!(s.operations.is_empty());
    assert_eq!(s.redo.len(), 1);
    assert!(
        !s.plan_ok()
            .unwrap()
            .unloads
            .iter()
            .any(|u| u.origin == "manual")
    );
    let s = s.reduce(Action::Redo);
    assert_eq!(s.operations.len(), 1);

    // A destination that is not in the snapshot: reported, not kept.
    let s = s.reduce(Action::Push(Operation::UnloadBundle {
        bundle,
        destination_broker: Some("nowhere:8080".into()),
    }));
    assert_eq!(s.operations.len(), 1);
    assert!(
        s.error
            .as_deref()
            .is_some_and(|e| e.contains("nowhere:8080")),
        "{:?}",
        s.error
    );

    // The session carries the operations with a format_version, for share links and reloads.
    let session = s.session();
    assert_eq!(session.format_version, 1);
    assert_eq!(session.operations.len(), 1);
}

/// Large snapshots are planned by the plan worker: the store asks with a job and takes the answer
/// that matches the newest job; a refused operation is taken back when its answer arrives.
#[wasm_bindgen_test]
fn worker_plans_arrive_as_answers_to_the_newest_job() {
    let s = Rc::new(AppState::initial()).reduce(Action::SetPlanWorkerFrom(0));
    let s = s.reduce(Action::Loaded {
        loaded: Rc::new(Loaded::new(
            lbplan_core::synthetic::demo().unwrap(),
            "demo".into(),
            Vec::new(),
        )),
        keep_session: true,
    });
    assert!(s.plans_in_worker());
    let s = s.reduce(Action::RunPlan);
    assert!(s.plan.is_none(), "no plan is made on the page's thread");
    let job = s.plan_job.clone().expect("a job for the worker");
    assert!(!job.after_push);
    assert!(job.request.leader_cycle);

    // A newer job replaces it; the older answer is ignored.
    let s = s.reduce(Action::SetLeaderCycle(false));
    let newer = s.plan_job.clone().unwrap();
    assert_ne!(newer.id, job.id);
    let snapshot = s.loaded().unwrap().snapshot.clone();
    let plan = lbplan_core::plan::make_plan(&snapshot, &newer.request).unwrap();
    let s = s.reduce(Action::Planned {
        id: job.id,
        result: Ok(Box::new(plan.clone())),
        diff: None,
    });
    assert!(s.plan.is_none() && s.plan_job.is_some());
    let s = s.reduce(Action::Planned {
        id: newer.id,
        result: Ok(Box::new(plan.clone())),
        diff: None,
    });
    assert_eq!(s.plan_ok(), Some(&plan));
    assert!(s.plan_job.is_none());

    // A pushed operation the planner refuses is taken back and reported.
    let bundle = s.loaded().unwrap().map.bundle_name(0).unwrap();
    let s = s.reduce(Action::Push(Operation::UnloadBundle {
        bundle,
        destination_broker: Some("nowhere:8080".into()),
    }));
    let pushed = s.plan_job.clone().unwrap();
    assert!(pushed.after_push);
    assert_eq!(s.operations.len(), 1);
    let refusal = lbplan_core::plan::make_plan(&snapshot, &pushed.request)
        .map_err(|e| e.to_string())
        .unwrap_err();
    let s = s.reduce(Action::Planned {
        id: pushed.id,
        result: Err(refusal),
        diff: None,
    });
    assert!(s.operations.is_empty());
    assert!(
        s.error
            .as_deref()
            .is_some_and(|e| e.contains("nowhere:8080")),
        "{:?}",
        s.error
    );
    // ... and the plan without it is asked for again.
    assert!(
        s.plan_job
            .as_ref()
            .is_some_and(|j| !j.after_push && j.request.operations.is_empty())
    );
}
