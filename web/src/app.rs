//! The root component of one mounted planner: it starts the planner (`boot`: session, options,
//! first snapshot), keeps the session, and lays out the sections. Each other job has its module:
//! where snapshots come from (`loading`, onto the one import path in the plan worker), drops
//! (`drop`), keyboard shortcuts (`keyboard`), the theme (`theme`), plan jobs for the worker
//! (`plan_jobs`), what the host hears (`host`), what is derived from the snapshot and plan
//! (`derived`), and the links between sections (`links`). Everything it shows is computed by `lbplan-core`.

mod actions;
mod boot;
mod derived;
mod drop;
mod host;
mod keyboard;
mod links;
mod loading;
mod plan_jobs;
mod theme;

pub(crate) use loading::load_url;

use std::cell::RefCell;
use std::rc::Rc;

use lbplan_core::plan::operations::Operation;
use yew::prelude::*;

use crate::components::{
    BrokerDetailView, BrokerTable, BundleMapView, ErrorBanner, ExportPanel, Header, History,
    HistoryTimeline, ImportWarnings, LiveBar, LoadedProps, LoaderBar, NamespaceList, Nav, PlanView,
    RebalancePanel, RunPanel, SettingsPanel, SimulatePanel, UpgradePanel, WhatIf,
};
use crate::embed::External;
use crate::embed::Options;
use crate::plan_client::PlanWorker;
use crate::state::{Action, AppState, Status};
use crate::worker_import::WorkerImports;
use actions::act;

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

    boot::use_keep_session(state.session(), prefix.clone());
    host::use_plan_ready(
        state.plan.clone(),
        state.plan_serial,
        options.on_plan_ready.clone(),
    );
    let (dark, theme_class) = theme::use_theme(options.theme.clone());
    let readonly = options.readonly;

    let on_inputs = loading::on_inputs(&imports, prefix.clone(), busy.clone());
    let d = state.dispatcher();
    let on_error = act(&d, Action::Failed);
    let on_demo = loading::on_demo(&imports, prefix.clone(), options.demo_url());
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let ondrop = drop::on_drop(readonly, on_inputs.clone(), on_error.clone(), busy.clone());
    let onkeydown = keyboard::undo_redo_keys(state.dispatcher(), readonly);

    let loaded = state.loaded().cloned();
    let profile = derived::use_effective_profile(loaded.clone(), state.profile);
    let overrides = Operation::config_overrides(&state.operations);
    let config_views = derived::use_config_views(loaded.clone(), profile, overrides.clone());
    let selected_broker = use_state(|| None::<String>);
    let (rebalance_prefill, on_propose_rebalance) = links::use_rebalance_prefill();
    let (map_find, on_find) = links::use_map_find();
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
    let share_url = links::share_url(&state.session().to_fragment());
    let on_op = act(&d, Action::Push);
    let on_set = act(&d, actions::set_config);
    let on_drop_bundle = act(&d, actions::drop_bundle);
    let on_export = host::on_export(options.on_export_requested.clone(), state.plan.clone());
    let light = state.plan_ok().is_some_and(|p| p.explained.is_some());
    let explain_source = loaded
        .as_ref()
        .filter(|_| light)
        .map(|l| plan_jobs::explain_source(&imports, l, &state));
    let on_need_full = light.then(|| act(&d, |()| Action::WantFullPlan));

    let banner = state.error.clone().map(|e| {
        html! { <ErrorBanner message={e} on_dismiss={Some(act(&d, |_| Action::DismissError))} /> }
    });
    let body = match (&state.status, &loaded) {
        (Status::Loading, _) => {
            html! { <p class="loading" data-testid="loading">{ "Loading the cluster…" }</p> }
        }
        (_, None) => html! {},
        (_, Some(l)) => {
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
                    <ImportWarnings loaded={l.clone()} />
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
                            on_select={act(&d, Action::Select)} />
                        <WhatIf map={l.map.clone()} selected={state.selected} on_op={on_op.clone()}
                            on_error={on_error.clone()} readonly={readonly} split_algorithms={config_views.1.clone()} />
                    </div>
                    <div data-section="plan" tabindex="-1">
                    <div class="plan-row">
                        <SettingsPanel snapshot={l.snapshot.clone()} profile={state.profile} operations={ops.clone()}
                            on_profile={act(&d, Action::SetProfile)}
                            on_set={on_set.clone()} readonly={readonly} warnings={plan_warnings}
                            calibration={state.calibration.clone()}
                            on_calibration={act(&d, Action::SetCalibration)} />
                        <RunPanel leader_cycle={state.leader_cycle} pending={state.plan_job.is_some()}
                            worker_bundles={state.plans_in_worker().then_some(l.bundle_count)}
                            on_run={act(&d, |()| Action::RunPlan)}
                            on_leader_cycle={act(&d, Action::SetLeaderCycle)} />
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
                        on_undo={act(&d, |_| Action::Undo)}
                        on_redo={act(&d, |_| Action::Redo)}
                        on_clear={act(&d, |_| Action::ClearHistory)}
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
