//! The root component of one mounted planner: it starts the planner (`boot`: session, options,
//! first snapshot), keeps the session, and lays out the sections. Each other job has its module:
//! where snapshots come from (`loading`, onto the one import path in the plan worker), drops
//! (`drop`), keyboard shortcuts (`keyboard`), the theme (`theme`), plan jobs for the worker
//! (`plan_jobs`), what the host hears (`host`), and what is derived from the snapshot and plan
//! (`derived`). Everything it shows is computed by `lbplan-core`.

mod boot;
mod derived;
mod drop;
mod host;
mod keyboard;
mod loading;
mod plan_jobs;
mod theme;

pub(crate) use loading::load_url;

use std::cell::RefCell;
use std::rc::Rc;

use lbplan_core::plan::operations::Operation;
use lbplan_core::view::settings::effective_profile;
use yew::prelude::*;

use crate::components::{
    BrokerDetailView, BrokerTable, BundleMapView, ErrorBanner, ExportPanel, Header, History,
    HistoryTimeline, LiveBar, LoadedProps, LoaderBar, NamespaceList, Nav, PlanView, RebalancePanel,
    RebalancePrefill, SettingsPanel, SimulatePanel, UpgradePanel, WhatIf,
};
use crate::embed::External;
use crate::embed::Options;
use crate::loader::Picked;
use crate::persist;
use crate::plan_client::PlanWorker;
use crate::state::{Action, AppState, Status};
use crate::worker_import::WorkerImports;

/// The handle through which `PlannerHandle` talks to a mounted app.
#[derive(Default)]
pub struct BridgeInner {
    pub pending: Vec<External>,
    pub callback: Option<Callback<External>>,
}
pub type Bridge = Rc<RefCell<BridgeInner>>;

#[derive(Clone, Properties)]
pub struct AppProps {
    pub options: Rc<Options>,
    pub bridge: Bridge,
}

impl PartialEq for AppProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.options, &o.options) && Rc::ptr_eq(&self.bridge, &o.bridge)
    }
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let state = use_reducer(AppState::initial);
    let options = use_state(|| props.options.clone());
    let note = use_state(|| None::<AttrValue>);
    let busy = use_state(|| false);
    let prefix = options.persist.then(|| options.storage_prefix.clone());
    // The plan worker (started on first use): it imports every snapshot and holds it for plans,
    // proposals and simulations.
    let plan_worker = use_mut_ref(|| None::<PlanWorker>);
    let import_progress = use_memo((), |_| crate::worker_import::ProgressSink::default());
    let imports = {
        let (w, url, d, p, n) = (
            plan_worker.clone(),
            options.worker_url(),
            state.dispatcher(),
            (*import_progress).clone(),
            note.clone(),
        );
        use_memo((), move |_| WorkerImports::new(w, url, d, p, n))
    };
    boot::use_boot(props, &options, &imports);
    plan_jobs::use_plan_jobs(&state, &imports);

    // Keep the session whenever it changes.
    {
        let session = state.session();
        let prefix = prefix.clone();
        use_effect_with(session, move |s| {
            if let Some(p) = prefix {
                persist::save_session(&p, s);
            }
        });
    }
    host::use_plan_ready(
        state.plan.clone(),
        state.plan_serial,
        options.on_plan_ready.clone(),
    );
    let (dark, theme_class) = theme::use_theme(options.theme.clone());
    let readonly = options.readonly;

    let on_inputs = {
        let (imports, prefix, busy) = (imports.clone(), prefix.clone(), busy.clone());
        Callback::from(move |(picked, label): (Vec<Picked>, String)| {
            busy.set(false);
            loading::load_picked(&imports, picked, label, false, prefix.clone());
        })
    };
    let on_error = {
        let d = state.dispatcher();
        Callback::from(move |e: String| d.dispatch(Action::Failed(e)))
    };
    let on_demo = {
        let (imports, prefix) = (imports.clone(), prefix.clone());
        let demo = options.demo_url();
        Callback::from(move |_| {
            let (imports, prefix, demo) = (imports.clone(), prefix.clone(), demo.clone());
            imports.dispatcher.dispatch(Action::ClearHistory);
            imports.note.set(None);
            yew::platform::spawn_local(async move {
                if let Some(p) = &prefix {
                    persist::clear_snapshot(p).await;
                }
                loading::load_url(&imports, demo, true, None).await;
            });
        })
    };
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let ondrop = drop::on_drop(readonly, on_inputs.clone(), on_error.clone(), busy.clone());
    let onkeydown = keyboard::undo_redo_keys(state.dispatcher(), readonly);

    let loaded = state.loaded().cloned();
    let profile = loaded
        .as_ref()
        .map(|l| effective_profile(&l.snapshot, state.profile))
        .unwrap_or(lbplan_core::config::Profile::Pulsar4x);
    let overrides = Operation::config_overrides(&state.operations);
    let config_views = derived::use_config_views(loaded.clone(), profile, overrides.clone());
    let selected_broker = use_state(|| None::<String>);
    // "Propose a rebalance instead" on a worse plan: the rebalance panel's goal and move limit,
    // with a serial so the same prefill asked twice still applies.
    let rebalance_prefill = use_state(|| None::<RebalancePrefill>);
    let prefill_serial = use_mut_ref(|| 0_u32);
    let on_propose_rebalance = {
        let (prefill, counter) = (rebalance_prefill.clone(), prefill_serial.clone());
        Callback::from(move |(goal, max_moves): (String, Option<usize>)| {
            let serial = {
                let mut n = counter.borrow_mut();
                *n = n.wrapping_add(1);
                *n
            };
            prefill.set(Some(RebalancePrefill {
                serial,
                goal,
                max_moves,
            }));
        })
    };
    // A bundle link (plan rows, broker detail) asks the map's Find for it: (serial, query).
    let map_find = use_state(|| None::<(u32, AttrValue)>);
    let on_find = {
        let map_find = map_find.clone();
        Callback::from(move |bundle: String| {
            let serial = map_find.as_ref().map_or(0, |(n, _)| n.wrapping_add(1));
            map_find.set(Some((serial, AttrValue::from(bundle))));
        })
    };
    let broker_detail = derived::use_broker_detail(
        loaded.clone(),
        (*selected_broker).clone(),
        config_views.2.clone(),
        state.plan.clone(),
    );
    let marks = derived::use_plan_marks(loaded.clone(), state.plan.clone(), state.plan_serial);
    let sim_overrides = Rc::new(overrides.clone());
    let ops = Rc::new(state.operations.clone());
    let redo = Rc::new(state.redo.clone());
    let share_url = {
        let base = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .map(|h| h.split('#').next().unwrap_or_default().to_string())
            .unwrap_or_default();
        format!("{base}#{}", state.session().to_fragment())
    };
    let on_op = {
        let d = state.dispatcher();
        Callback::from(move |op: Operation| d.dispatch(Action::Push(op)))
    };
    let on_set = {
        let d = state.dispatcher();
        Callback::from(move |(key, value): (String, String)| {
            d.dispatch(Action::Push(Operation::SetConfig { key, value }))
        })
    };
    let on_drop_bundle = {
        let d = state.dispatcher();
        Callback::from(move |(bundle, broker): (String, String)| {
            d.dispatch(Action::Push(Operation::UnloadBundle {
                bundle,
                destination_broker: Some(broker),
            }))
        })
    };
    let on_export = host::on_export(options.on_export_requested.clone(), state.plan.clone());
    // Plans from the worker come without their details (`explain: summary`): a decision's detail
    // is asked of the worker when its pane's pipeline is opened, and an export asks for the Full
    // plan first.
    let light = state.plan_ok().is_some_and(|p| p.explained.is_some());
    let explain_source = loaded.as_ref().filter(|_| light).map(|l| {
        let (worker, snapshot_id, request) =
            (imports.worker.clone(), l.id, state.worker_request(false));
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
    });
    let on_need_full = light.then(|| {
        let d = state.dispatcher();
        Callback::from(move |()| d.dispatch(Action::WantFullPlan))
    });

    let banner = state.error.clone().map(|e| {
        let d = state.dispatcher();
        html! { <ErrorBanner message={e} on_dismiss={Some(Callback::from(move |_| d.dispatch(Action::DismissError)))} /> }
    });
    let body = match (&state.status, &loaded) {
        (Status::Loading, _) => {
            html! { <p class="loading" data-testid="loading">{ "Loading the cluster…" }</p> }
        }
        (_, None) => html! {},
        (_, Some(l)) => {
            let d = state.dispatcher();
            let plan_warnings = Rc::new(
                state
                    .plan_ok()
                    .map(|p| p.warnings.clone())
                    .unwrap_or_default(),
            );
            html! {
                <>
                    <Nav present={vec!["cluster", "map", "plan", "rebalance", "simulate", "namespaces", "history"]} standalone={options.standalone} />
                    <div data-section="cluster" tabindex="-1">
                    if !l.warnings.is_empty() {
                        <details class="panel warnings-panel" open={l.warnings.len() <= 5}>
                            <summary>{ format!("{} import warning(s)", l.warnings.len()) }</summary>
                            <ul class="warnings" data-testid="warnings">
                                { for l.warnings.iter().map(|w| html! { <li class="mono small">{ w }</li> }) }
                            </ul>
                        </details>
                    }
                    <BrokerTable rows={config_views.0.clone()} on_drop_bundle={on_drop_bundle} readonly={readonly}
                        selected={(*selected_broker).clone()}
                        on_select={{ let sb = selected_broker.clone(); Callback::from(move |b| sb.set(b)) }} />
                    if let Some(detail) = (*broker_detail).clone() {
                        <BrokerDetailView detail={detail} on_find={Some(on_find.clone())}
                            on_close={{ let sb = selected_broker.clone(); Callback::from(move |_| sb.set(None)) }} />
                    }
                    </div>
                    <div class="map-row" data-section="map" tabindex="-1">
                        <BundleMapView map={l.map.clone()} highlighted={marks.0.clone()} after_owners={marks.1.clone()}
                            selected={state.selected} dark={dark} find={(*map_find).clone()}
                            on_select={{ let d = d.clone(); Callback::from(move |s| d.dispatch(Action::Select(s))) }} />
                        <WhatIf map={l.map.clone()} selected={state.selected} on_op={on_op.clone()}
                            on_error={on_error.clone()} readonly={readonly} split_algorithms={config_views.1.clone()} />
                    </div>
                    <div data-section="plan" tabindex="-1">
                    <div class="plan-row">
                        <SettingsPanel snapshot={l.snapshot.clone()} profile={state.profile} operations={ops.clone()}
                            on_profile={{ let d = d.clone(); Callback::from(move |p| d.dispatch(Action::SetProfile(p))) }}
                            on_set={on_set.clone()} readonly={readonly} warnings={plan_warnings}
                            calibration={state.calibration.clone()}
                            on_calibration={{ let d = d.clone(); Callback::from(move |c| d.dispatch(Action::SetCalibration(c))) }} />
                        <section class="panel run">
                            <button type="button" class="primary" data-testid="run-plan"
                                onclick={{ let d = d.clone(); Callback::from(move |_| d.dispatch(Action::RunPlan)) }}>{ "Run plan" }</button>
                            <label><input type="checkbox" checked={state.leader_cycle}
                                onchange={{ let d = d.clone(); let on = state.leader_cycle; Callback::from(move |_| d.dispatch(Action::SetLeaderCycle(!on))) }} />
                                { " include the leader's shedding cycle" }</label>
                            if state.plan_job.is_some() {
                                <p class="busy small" role="status" data-testid="plan-pending">{ "Planning in the background…" }</p>
                            } else if state.plans_in_worker() {
                                <p class="muted small">{ format!("{} bundles: plans are made in a worker.", crate::format::count(l.bundle_count as i64)) }</p>
                            }
                        </section>
                    </div>
                    if let Some(plan) = state.plan.clone() {
                        <PlanView plan={plan.clone()} diff={state.plan_diff.clone()} on_find={Some(on_find.clone())}
                            on_apply_setting={(!readonly).then(|| on_set.clone())}
                            on_propose_rebalance={(!readonly).then(|| on_propose_rebalance.clone())}
                            explain={explain_source.clone()} />
                        <ExportPanel plan={plan} readonly={readonly} on_need_full={on_need_full.clone()}
                            snapshot={loaded.as_ref().map(|l| l.snapshot.clone())}
                            admin_base_url={options.admin_base_url.clone().map(AttrValue::from)}
                            auth_headers={options.auth_headers.clone()} on_export={on_export.clone()} />
                    }
                    <History operations={ops.clone()} redo={redo}
                        on_undo={{ let d = d.clone(); Callback::from(move |_| d.dispatch(Action::Undo)) }}
                        on_redo={{ let d = d.clone(); Callback::from(move |_| d.dispatch(Action::Redo)) }}
                        on_clear={{ let d = d.clone(); Callback::from(move |_| d.dispatch(Action::ClearHistory)) }}
                        share_url={share_url} readonly={readonly} />
                    </div>
                    <div data-section="rebalance" tabindex="-1">
                    <RebalancePanel loaded={l.clone()} profile={state.profile} overrides={sim_overrides.clone()}
                        prefill={(*rebalance_prefill).clone()}
                        plan_worker={(*imports).clone()} readonly={readonly}
                        admin_base_url={options.admin_base_url.clone().map(AttrValue::from)}
                        auth_headers={options.auth_headers.clone()} on_export={on_export}
                        calibration={state.calibration.clone()} />
                    </div>
                    <div data-section="simulate" tabindex="-1">
                    <SimulatePanel loaded={l.clone()} profile={state.profile} overrides={sim_overrides.clone()}
                        dark={dark} worker_url={AttrValue::from(options.worker_url())}
                        plan_worker={(*imports).clone()} calibration={state.calibration.clone()} />
                    <UpgradePanel loaded={l.clone()} profile={state.profile}
                        worker_url={AttrValue::from(options.worker_url())} plan_worker={(*imports).clone()} />
                    </div>
                    <div data-section="namespaces" tabindex="-1">
                    <NamespaceList loaded={l.clone()} />
                    </div>
                </>
            }
        }
    };
    html! {
        <div class={classes!("lbplan-app", theme_class, readonly.then_some("readonly"))}
             {ondragover} {ondrop} {onkeydown}>
            <main class="app">
                <Header inner={loaded.clone().map(|l| LoadedProps { loaded: l })} profile={profile} />
                { banner.unwrap_or_default() }
                if options.follow_watch {
                    <LiveBar imports={(*imports).clone()}
                        shown_at={loaded.as_ref().and_then(|l| l.snapshot.captured_at_ms)} />
                }
                if !readonly {
                    <LoaderBar on_inputs={on_inputs} on_error={on_error.clone()} on_demo={on_demo}
                        storage_note={(*note).clone()} busy={*busy} progress={(*import_progress).clone()} />
                }
                { body }
                // A recorded series brings its own snapshots: the History view works with no
                // snapshot loaded (and keeps what it shows when one is loaded or replaced).
                <div data-section="history" tabindex="-1">
                <HistoryTimeline worker_url={AttrValue::from(options.worker_url())} dark={dark}
                    calibration={state.calibration.clone()} live={state.live_history.clone()} />
                </div>
            </main>
        </div>
    }
}
