//! The root component of one mounted planner: loads the first snapshot (options, `?snapshot=URL`,
//! what was kept, or the demo), restores the session (share link or kept), persists changes, and lays
//! out the panels. Everything it shows is computed by `lbplan-core`.

use std::cell::RefCell;
use std::rc::Rc;

use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::settings::resolve_config;
use lbplan_core::split::operator_split_algorithms;
use lbplan_core::view::brokers::broker_rows;
use lbplan_core::view::settings::effective_profile;
use lbplan_core::view::share::Session;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

use crate::components::{
    BrokerDetailView, BrokerTable, BundleMapView, ErrorBanner, ExportPanel, Header, History,
    HistoryTimeline, LoadedProps, LoaderBar, NamespaceList, Nav, PlanView, RebalancePanel,
    SettingsPanel, SimulatePanel, WhatIf,
};
use crate::embed::{External, Options};
use crate::loader::{
    Input, Picked, dropped_entries, fetch_blob, fetch_bytes, read_entries, read_picked, total_bytes,
};
use crate::persist::{self, STORED_SNAPSHOT_FORMAT_VERSION, StoredSnapshot};
use crate::plan_client::PlanWorker;
use crate::state::{
    Action, AppState, IMPORT_IN_WORKER_FROM_BYTES, Loaded, Status, import_files, loaded_from,
};
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

fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Imports inputs and hands the result to the store; keeps it when persisting.
fn load_inputs(
    state: UseReducerDispatcher<AppState>,
    inputs: Vec<Input>,
    label: String,
    keep_session: bool,
    persist_prefix: Option<String>,
    note: UseStateHandle<Option<AttrValue>>,
) {
    match import_files(&inputs) {
        Ok(imported) => {
            let loaded = loaded_from(imported, label);
            let stored = persist_prefix.map(|p| {
                (
                    p,
                    StoredSnapshot {
                        format_version: STORED_SNAPSHOT_FORMAT_VERSION,
                        source: loaded.source.clone(),
                        warnings: loaded.warnings.clone(),
                        snapshot: (*loaded.snapshot).clone(),
                    },
                )
            });
            state.dispatch(Action::Loaded {
                loaded: Rc::new(loaded),
                keep_session,
            });
            if let Some((prefix, stored)) = stored {
                yew::platform::spawn_local(async move {
                    let n = persist::save_snapshot(&prefix, &stored).await;
                    note.set(Some(n.into()));
                });
            }
        }
        Err(e) => state.dispatch(Action::Failed(format!("Could not import {label}: {e}"))),
    }
}

/// Picked files into the store: large ones imported in the plan worker (nothing read on the
/// page), small ones read and imported here.
fn load_picked(
    imports: &WorkerImports,
    picked: Vec<Picked>,
    label: String,
    keep_session: bool,
    persist_prefix: Option<String>,
) {
    if total_bytes(&picked) >= IMPORT_IN_WORKER_FROM_BYTES {
        imports.start(picked, label, keep_session, persist_prefix);
        return;
    }
    let (d, note) = (imports.dispatcher.clone(), imports.note.clone());
    yew::platform::spawn_local(async move {
        match read_picked(&picked).await {
            Ok(inputs) => load_inputs(d, inputs, label, keep_session, persist_prefix, note),
            Err(e) => d.dispatch(Action::Failed(format!("Could not import {label}: {e}"))),
        }
    });
}

/// Sends a plan job to the plan worker, starting one if there is none (or it died); the snapshot
/// goes along when the worker does not hold it yet (it holds what it imported).
fn send_plan_job(imports: &WorkerImports, job: &crate::state::PlanJob, loaded: &Loaded) {
    let dispatcher = imports.dispatcher.clone();
    if let Err(message) = imports.ensure_worker() {
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
        lbplan_worker::protocol::PlanJob::new(
            job.id,
            loaded.id,
            (!w.has_snapshot(loaded.id)).then_some(loaded.snapshot.as_ref()),
            &job.request,
        )
        .with_diff_baseline(!job.request.operations.is_empty()),
    ));
    match serde_json::to_string(&request) {
        Ok(text) => w.send(text, loaded.id),
        Err(e) => dispatcher.dispatch(Action::PlanFailed {
            id: job.id,
            message: format!("cannot send the snapshot to the plan worker: {e}"),
        }),
    }
}

fn url_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get(name)
}

fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let state = use_reducer(AppState::initial);
    let options = use_state(|| props.options.clone());
    let note = use_state(|| None::<AttrValue>);
    let busy = use_state(|| false);
    let prefix = options.persist.then(|| options.storage_prefix.clone());
    // The plan worker (started on first use): plans of large snapshots, and imports of large files.
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

    // Start: session first (so a kept snapshot keeps its edits), then the snapshot.
    {
        let state = state.clone();
        let options = options.clone();
        let note = note.clone();
        let bridge = props.bridge.clone();
        let imports = imports.clone();
        use_effect_with((), move |_| {
            let o = (*options).clone();
            let dispatcher = state.dispatcher();
            let prefix = o.persist.then(|| o.storage_prefix.clone());
            let hash = if o.standalone {
                location_hash()
            } else {
                String::new()
            };
            let shared = hash.contains("s=");
            if shared {
                match Session::from_fragment(&hash) {
                    Ok(s) => dispatcher.dispatch(Action::Restore(s)),
                    Err(e) => dispatcher.dispatch(Action::Failed(format!("share link: {e}"))),
                }
            } else if let Some(p) = &prefix {
                match persist::load_session(p) {
                    Some(Ok(s)) => dispatcher.dispatch(Action::Restore(s)),
                    Some(Err(e)) => dispatcher.dispatch(Action::Failed(e)),
                    None => {}
                }
            }
            if let Some(p) = o.profile {
                dispatcher.dispatch(Action::SetProfile(Some(p)));
            }
            if let Some(n) = o.plan_worker_from_bundles {
                dispatcher.dispatch(Action::SetPlanWorkerFrom(n));
            }
            let url = o.snapshot_url.clone().or_else(|| {
                if o.standalone {
                    url_param("snapshot")
                } else {
                    None
                }
            });
            let d = dispatcher.clone();
            let note_for_load = note.clone();
            yew::platform::spawn_local(async move {
                let note = note_for_load;
                if let Some(json) = o.snapshot.clone() {
                    load_inputs(
                        d,
                        vec![("snapshot".into(), json.into_bytes(), false)],
                        "snapshot (from the host page)".into(),
                        false,
                        None,
                        note,
                    );
                } else if let Some(url) = url {
                    match fetch_blob(&url).await {
                        Ok(blob) => load_picked(
                            &imports,
                            vec![Picked {
                                name: url.clone(),
                                in_tree: false,
                                blob,
                            }],
                            url,
                            shared,
                            prefix,
                        ),
                        Err(e) => d.dispatch(Action::Failed(format!("Could not load {url}: {e}"))),
                    }
                } else {
                    // Files kept by an import in the worker are imported there again.
                    let upload = match &prefix {
                        Some(p) => persist::load_upload(p).await,
                        None => None,
                    };
                    let kept = match (upload, &prefix) {
                        (Some(Ok(u)), _) => {
                            note.set(Some(
                                "Restored from this browser (the kept files, imported again)."
                                    .into(),
                            ));
                            let picked = u
                                .files
                                .into_iter()
                                .zip(u.blobs)
                                .map(|((name, in_tree), blob)| Picked {
                                    name,
                                    in_tree,
                                    blob,
                                })
                                .collect();
                            imports.start(picked, u.source, true, None);
                            return;
                        }
                        (Some(Err(e)), _) => Some(Err(e)),
                        (None, Some(p)) => persist::load_snapshot(p).await,
                        (None, None) => None,
                    };
                    match kept {
                        Some(Ok(s)) => {
                            note.set(Some("Restored from this browser.".into()));
                            d.dispatch(Action::Loaded {
                                loaded: Rc::new(Loaded::new(s.snapshot, s.source, s.warnings)),
                                keep_session: true,
                            });
                        }
                        other => {
                            if let Some(Err(e)) = other {
                                d.dispatch(Action::Failed(format!("{e}; loading the demo")));
                            }
                            let demo = o.demo_url();
                            let result = fetch_bytes(&demo)
                                .await
                                .map(|b| String::from_utf8_lossy(&b).into_owned());
                            d.dispatch(Action::Fetched {
                                source: demo,
                                result,
                            });
                        }
                    }
                }
            });
            // Messages from the PlannerHandle.
            let cb = {
                let d = dispatcher.clone();
                let options = options.clone();
                let note = note.clone();
                Callback::from(move |m: External| match m {
                    External::SetSnapshot(json) => load_inputs(
                        d.clone(),
                        vec![("snapshot".into(), json.into_bytes(), false)],
                        "snapshot (from the host page)".into(),
                        false,
                        None,
                        note.clone(),
                    ),
                    External::SetOptions(o) => {
                        if let Some(p) = o.profile {
                            d.dispatch(Action::SetProfile(Some(p)));
                        }
                        options.set(o);
                    }
                })
            };
            let pending: Vec<External> = {
                let mut b = bridge.borrow_mut();
                b.callback = Some(cb.clone());
                std::mem::take(&mut b.pending)
            };
            for m in pending {
                cb.emit(m);
            }
            move || {
                bridge.borrow_mut().callback = None;
            }
        });
    }

    // Plans of large snapshots: hand each new job to the plan worker.
    {
        let job = state.plan_job.clone();
        let loaded = state.loaded().cloned();
        let imports = imports.clone();
        use_effect_with(state.plan_job.as_ref().map(|j| j.id), move |_| {
            if let (Some(job), Some(l)) = (job, loaded) {
                send_plan_job(&imports, &job, &l);
            }
        });
    }

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

    // Tell the host about each plan.
    {
        let plan = state.plan.clone();
        let cb = options.on_plan_ready.clone();
        use_effect_with(state.plan_serial, move |_| {
            if let (Some(cb), Some(Ok(plan))) = (cb, plan.as_deref())
                && let Ok(text) = serde_json::to_string(plan)
                && let Ok(v) = js_sys::JSON::parse(&text)
            {
                let _ = cb.call1(&JsValue::NULL, &v);
            }
        });
    }

    // Follow the system's colour scheme as it changes (for the canvas; CSS follows by itself).
    let system_dark = use_state(prefers_dark);
    {
        let system_dark = system_dark.clone();
        use_effect_with((), move |_| {
            let mql = web_sys::window()
                .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten());
            let listener = mql.map(|m| {
                gloo::events::EventListener::new(&m, "change", move |_| {
                    system_dark.set(prefers_dark())
                })
            });
            move || drop(listener)
        });
    }
    let readonly = options.readonly;
    let dark = match options.theme.as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => *system_dark,
    };
    let theme_class = match options.theme.as_deref() {
        Some("dark") => "theme-dark",
        Some("light") => "theme-light",
        _ => "theme-auto",
    };

    let on_inputs = {
        let (imports, prefix, busy) = (imports.clone(), prefix.clone(), busy.clone());
        Callback::from(move |(picked, label): (Vec<Picked>, String)| {
            busy.set(false);
            load_picked(&imports, picked, label, false, prefix.clone());
        })
    };
    let on_error = {
        let d = state.dispatcher();
        Callback::from(move |e: String| d.dispatch(Action::Failed(e)))
    };
    let on_demo = {
        let (d, prefix, note) = (state.dispatcher(), prefix.clone(), note.clone());
        let demo = options.demo_url();
        Callback::from(move |_| {
            let (d, prefix, demo) = (d.clone(), prefix.clone(), demo.clone());
            d.dispatch(Action::ClearHistory);
            note.set(None);
            yew::platform::spawn_local(async move {
                if let Some(p) = &prefix {
                    persist::clear_snapshot(p).await;
                }
                let result = fetch_bytes(&demo)
                    .await
                    .map(|b| String::from_utf8_lossy(&b).into_owned());
                d.dispatch(Action::Fetched {
                    source: demo,
                    result,
                });
            });
        })
    };
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let ondrop = {
        let (on_inputs, on_error, busy) = (on_inputs.clone(), on_error.clone(), busy.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if readonly {
                // The host chooses what a read-only planner shows.
                return;
            }
            let entries = dropped_entries(&e);
            if entries.is_empty() {
                return;
            }
            busy.set(true);
            let (on_inputs, on_error, busy) = (on_inputs.clone(), on_error.clone(), busy.clone());
            yew::platform::spawn_local(async move {
                match read_entries(entries).await {
                    Ok(inputs) if !inputs.is_empty() => {
                        let label = crate::components::loader_bar::label(&inputs);
                        on_inputs.emit((inputs, label));
                    }
                    Ok(_) => busy.set(false),
                    Err(e) => {
                        busy.set(false);
                        on_error.emit(e);
                    }
                }
            });
        })
    };
    let onkeydown = {
        let d = state.dispatcher();
        Callback::from(move |e: KeyboardEvent| {
            if readonly || !(e.ctrl_key() || e.meta_key()) {
                return;
            }
            let in_field = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|el| {
                    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                });
            if in_field {
                return;
            }
            match e.key().to_lowercase().as_str() {
                "z" if e.shift_key() => d.dispatch(Action::Redo),
                "z" => d.dispatch(Action::Undo),
                "y" => d.dispatch(Action::Redo),
                _ => return,
            }
            e.prevent_default();
        })
    };

    let loaded = state.loaded().cloned();
    let profile = loaded
        .as_ref()
        .map(|l| effective_profile(&l.snapshot, state.profile))
        .unwrap_or(lbplan_core::config::Profile::Pulsar4x);
    let overrides: Vec<(String, String)> = state
        .operations
        .iter()
        .filter_map(|o| match o {
            Operation::SetConfig { key, value } => Some((key.clone(), value.clone())),
            _ => None,
        })
        .collect();
    // What the effective configuration decides for the page: broker rows (usage levels) and the split
    // algorithms an operator may pick.
    let config_views = use_memo(
        (
            loaded.as_ref().map(|l| Rc::as_ptr(l) as usize),
            profile,
            overrides.clone(),
        ),
        {
            let loaded = loaded.clone();
            move |(_, profile, overrides)| match &loaded {
                Some(l) => {
                    let cfg = resolve_config(&l.snapshot, Some(*profile), overrides)
                        .or_else(|_| resolve_config(&l.snapshot, Some(*profile), &[]))
                        .map(|r| r.config)
                        .unwrap_or_else(|_| {
                            lbplan_core::config::LoadBalancerConfig::for_profile(*profile)
                        });
                    (
                        Rc::new(broker_rows(&l.snapshot, &cfg)),
                        Rc::new(operator_split_algorithms(&cfg)),
                        Some(Rc::new(cfg)),
                    )
                }
                None => (Rc::new(Vec::new()), Rc::new(Vec::new()), None),
            }
        },
    );
    // "Why is this broker hot?": the selected broker's detail under the effective configuration,
    // with what the current plan does to it.
    let selected_broker = use_state(|| None::<String>);
    let broker_detail = use_memo(
        (
            loaded.as_ref().map(|l| Rc::as_ptr(l) as usize),
            (*selected_broker).clone(),
            config_views.2.as_ref().map(|c| Rc::as_ptr(c) as usize),
            state.plan.as_ref().map(|p| Rc::as_ptr(p) as usize),
        ),
        {
            let loaded = loaded.clone();
            let cfg = config_views.2.clone();
            let plan = state.plan.clone();
            move |(_, broker, _, _)| {
                let (Some(l), Some(broker), Some(cfg)) = (&loaded, broker, &cfg) else {
                    return None;
                };
                let plan = plan.as_deref().and_then(|p| p.as_ref().ok());
                lbplan_core::view::broker_detail::broker_detail(&l.snapshot, cfg, broker, plan)
                    .map(Rc::new)
            }
        },
    );
    let marks = use_memo(
        (
            loaded.as_ref().map(|l| Rc::as_ptr(l) as usize),
            state.plan_serial,
        ),
        {
            let loaded = loaded.clone();
            let plan = state.plan.clone();
            move |_| {
                let (Some(l), Some(Ok(p))) = (&loaded, plan.as_deref()) else {
                    return (Rc::new(Vec::new()), None);
                };
                let mut segs: Vec<usize> = p
                    .unloads
                    .iter()
                    .filter_map(|u| l.map.find(&u.bundle))
                    .chain(p.splits.iter().filter_map(|s| l.map.find(&s.bundle)))
                    .collect();
                segs.sort_unstable();
                segs.dedup();
                let moves: Vec<(&str, &str)> = p
                    .unloads
                    .iter()
                    .filter_map(|u| Some((u.bundle.as_str(), u.to.as_deref()?)))
                    .collect();
                let after = (!moves.is_empty()).then(|| Rc::new(l.map.owners_after(moves)));
                (Rc::new(segs), after)
            }
        },
    );
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
    let on_export = {
        let cb = options.on_export_requested.clone();
        let plan = state.plan.clone();
        Callback::from(move |(format, text): (String, String)| {
            let (Some(cb), Some(Ok(plan))) = (&cb, plan.as_deref()) else {
                return;
            };
            let detail = js_sys::Object::new();
            let plan_js = serde_json::to_string(plan)
                .ok()
                .and_then(|t| js_sys::JSON::parse(&t).ok())
                .unwrap_or(JsValue::NULL);
            let _ = js_sys::Reflect::set(&detail, &"plan".into(), &plan_js);
            let _ = js_sys::Reflect::set(&detail, &"format".into(), &format.into());
            let _ = js_sys::Reflect::set(&detail, &"text".into(), &text.into());
            let _ = cb.call1(&JsValue::NULL, &detail);
        })
    };

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
                    if let Some(detail) = broker_detail.as_ref() {
                        <BrokerDetailView detail={detail.clone()}
                            on_close={{ let sb = selected_broker.clone(); Callback::from(move |_| sb.set(None)) }} />
                    }
                    </div>
                    <div class="map-row" data-section="map" tabindex="-1">
                        <BundleMapView map={l.map.clone()} highlighted={marks.0.clone()} after_owners={marks.1.clone()}
                            selected={state.selected} dark={dark}
                            on_select={{ let d = d.clone(); Callback::from(move |s| d.dispatch(Action::Select(s))) }} />
                        <WhatIf map={l.map.clone()} selected={state.selected} on_op={on_op.clone()}
                            on_error={on_error.clone()} readonly={readonly} split_algorithms={config_views.1.clone()} />
                    </div>
                    <div data-section="plan" tabindex="-1">
                    <div class="plan-row">
                        <SettingsPanel snapshot={l.snapshot.clone()} profile={state.profile} operations={ops.clone()}
                            on_profile={{ let d = d.clone(); Callback::from(move |p| d.dispatch(Action::SetProfile(p))) }}
                            on_set={on_set.clone()} readonly={readonly} warnings={plan_warnings} />
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
                        <PlanView plan={plan.clone()} diff={state.plan_diff.clone()}
                            on_apply_setting={(!readonly).then(|| on_set.clone())} />
                        <ExportPanel plan={plan} readonly={readonly}
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
                        worker_url={AttrValue::from(options.worker_url())} readonly={readonly}
                        admin_base_url={options.admin_base_url.clone().map(AttrValue::from)}
                        auth_headers={options.auth_headers.clone()} on_export={on_export} />
                    </div>
                    <div data-section="simulate" tabindex="-1">
                    <SimulatePanel loaded={l.clone()} profile={state.profile} overrides={sim_overrides.clone()}
                        dark={dark} worker_url={AttrValue::from(options.worker_url())} />
                    </div>
                    <div data-section="namespaces" tabindex="-1">
                    <NamespaceList loaded={l.clone()} />
                    </div>
                    <div data-section="history" tabindex="-1">
                    <HistoryTimeline worker_url={AttrValue::from(options.worker_url())} dark={dark} />
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
                if !readonly {
                    <LoaderBar on_inputs={on_inputs} on_error={on_error.clone()} on_demo={on_demo}
                        storage_note={(*note).clone()} busy={*busy} progress={(*import_progress).clone()} />
                }
                { body }
            </main>
        </div>
    }
}
