//! Export and apply: the plan as a `pulsar-admin` script, curl calls (with rollback and the "pause
//! automatic shedding" option) or JSON, with copy and download; and, when the host gave an
//! `adminBaseUrl`, the Apply flow: a confirmation listing every REST call, then the guarded run of
//! [`super::apply_run`] (core's `plan::apply`: owners checked for drift first, calls in batches,
//! each verified after a wait, stop at the first failure, drift or Stop, shedding restored), each
//! status and the journal shown. Nothing that changes the cluster is sent without that
//! confirmation.

use std::cell::Cell;
use std::rc::Rc;

use lbplan_core::plan::Plan;
use lbplan_core::plan::apply::{ApplyPlan, Journal, StepStatus};
use lbplan_core::plan::export::{ExportOptions, RestCall, rest_calls};
use lbplan_core::plan::export_format::{ExportFormat, export_plan};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::apply_run::{self, Progress, Target};

use crate::loader::{copy_to_clipboard, download};

#[derive(Clone, Properties)]
pub struct ExportProps {
    pub plan: Rc<Result<Plan, String>>,
    #[prop_or_default]
    pub readonly: bool,
    #[prop_or_default]
    pub admin_base_url: Option<AttrValue>,
    #[prop_or_default]
    pub auth_headers: Option<js_sys::Function>,
    /// (format, text) after each export the user asks for.
    pub on_export: Callback<(String, String)>,
}

impl PartialEq for ExportProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan)
            && self.readonly == o.readonly
            && self.admin_base_url == o.admin_base_url
            && self.auth_headers == o.auth_headers
    }
}

/// How the format select names a format.
fn label(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::PulsarAdmin => "pulsar-admin script",
        ExportFormat::Curl => "curl (admin REST)",
        ExportFormat::Json => "plan JSON",
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct CallResult {
    pub call: RestCall,
    /// HTTP status, or 0 when the request failed before a response.
    pub status: u16,
    pub message: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ApplyState {
    pub confirming: Option<Vec<RestCall>>,
    pub running: bool,
    pub results: Vec<CallResult>,
    pub journal: Option<Journal>,
    pub finished: Option<String>,
}

pub enum ApplyAction {
    Confirm(Vec<RestCall>),
    Cancel,
    Start,
    Result(CallResult),
    Journal(Journal),
    Finished(String),
}

impl Reducible for ApplyState {
    type Action = ApplyAction;
    fn reduce(self: Rc<Self>, a: ApplyAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match a {
            ApplyAction::Confirm(calls) => {
                s = ApplyState {
                    confirming: Some(calls),
                    ..Default::default()
                }
            }
            ApplyAction::Cancel => s.confirming = None,
            ApplyAction::Start => {
                s.running = true;
                s.results.clear();
                s.journal = None;
                s.finished = None;
            }
            ApplyAction::Result(r) => s.results.push(r),
            ApplyAction::Journal(j) => s.journal = Some(j),
            ApplyAction::Finished(m) => {
                s.running = false;
                s.confirming = None;
                s.finished = Some(m);
            }
        }
        Rc::new(s)
    }
}

/// The journal's name of a status.
fn status_name(s: StepStatus) -> &'static str {
    match s {
        StepStatus::Pending => "pending",
        StepStatus::Done => "done",
        StepStatus::Failed => "failed",
        StepStatus::Drifted => "drifted",
        StepStatus::RolledBack => "rolled_back",
    }
}

#[function_component(ExportPanel)]
pub fn export_panel(p: &ExportProps) -> Html {
    let format = use_state(|| ExportFormat::PulsarAdmin);
    let pause = use_state(|| false);
    let batch = use_state(|| 1_usize);
    let wait_s = use_state(|| 5_u32);
    let apply = use_reducer(ApplyState::default);
    let stop = use_mut_ref(|| Rc::new(Cell::new(false)));
    let plan = match &*p.plan {
        Ok(plan) => plan.clone(),
        Err(_) => return html! {},
    };
    if p.readonly {
        return html! {};
    }
    // The dashboard's export keeps a worse plan's --i-know guard; Apply asks in its own dialog.
    let opts = ExportOptions {
        pause_automatic_shedding: *pause,
        ..ExportOptions::default()
    };
    let text =
        export_plan(&plan, *format, opts).unwrap_or_else(|e| format!("# cannot export: {e}\n"));
    let on_format = {
        let format = format.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                && let Ok(f) = s.value().parse::<ExportFormat>()
            {
                format.set(f);
            }
        })
    };
    let on_pause = {
        let pause = pause.clone();
        Callback::from(move |_| pause.set(!*pause))
    };
    let on_copy = {
        let (text, f, cb) = (text.clone(), *format, p.on_export.clone());
        Callback::from(move |_| {
            copy_to_clipboard(&text);
            cb.emit((f.name().to_string(), text.clone()));
        })
    };
    let on_download = {
        let (text, f, cb) = (text.clone(), *format, p.on_export.clone());
        Callback::from(move |_| {
            download(f.file_name(), &text, f.media_type());
            cb.emit((f.name().to_string(), text.clone()));
        })
    };
    let apply_ui = p.admin_base_url.clone().map(|base| {
        let calls = rest_calls(
            &plan,
            ExportOptions {
                pause_automatic_shedding: *pause,
                ..ExportOptions::default()
            },
        );
        let on_apply = {
            let apply = apply.clone();
            let calls = calls.clone();
            Callback::from(move |_| {
                if let Ok(c) = &calls {
                    apply.dispatch(ApplyAction::Confirm(c.clone()));
                }
            })
        };
        let on_ok = {
            let apply = apply.clone();
            let stop = stop.clone();
            let auth = p.auth_headers.clone();
            let base = base.to_string();
            let plan = plan.clone();
            let (pause, batch, wait_s) = (*pause, *batch, *wait_s);
            Callback::from(move |_| {
                if apply.confirming.is_none() {
                    return;
                }
                let apply_plan = match ApplyPlan::from_plan(&plan) {
                    Ok(p) => p,
                    Err(e) => {
                        apply.dispatch(ApplyAction::Finished(format!("Cannot apply: {e}")));
                        return;
                    }
                };
                let flag = Rc::new(Cell::new(false));
                *stop.borrow_mut() = flag.clone();
                let dispatcher = apply.dispatcher();
                dispatcher.dispatch(ApplyAction::Start);
                let target = Target { base: base.clone(), auth: auth.clone() };
                yew::platform::spawn_local(async move {
                    let d = dispatcher.clone();
                    let done = apply_run::run(target, apply_plan, batch, wait_s.saturating_mul(1000), pause, flag, move |p| match p {
                        Progress::Call(call, status, message) => d.dispatch(ApplyAction::Result(CallResult { call, status, message })),
                        Progress::Journal(j) => d.dispatch(ApplyAction::Journal(j)),
                    }).await;
                    dispatcher.dispatch(ApplyAction::Finished(done));
                });
            })
        };
        let on_cancel = {
            let apply = apply.clone();
            Callback::from(move |_| apply.dispatch(ApplyAction::Cancel))
        };
        let on_stop = {
            let stop = stop.clone();
            Callback::from(move |_| stop.borrow().set(true))
        };
        html! {
            <div class="apply">
                <h3>{ "Apply to the cluster" }</h3>
                <p class="muted small">{ format!("Through the admin REST API at {base}. You will see every call before anything is sent.") }</p>
                if let Err(e) = &calls { <p class="error-text">{ format!("Cannot apply: {e}") }</p> }
                <label>{ "Batch " }<input type="number" min="1" max="100" value={batch.to_string()} data-testid="apply-batch"
                    onchange={{ let batch = batch.clone(); Callback::from(move |e: Event| {
                        if let Some(v) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).and_then(|i| i.value().parse::<usize>().ok()) { batch.set(v.clamp(1, 100)); }
                    }) }} /></label>
                <label>{ " wait (s) " }<input type="number" min="0" max="600" value={wait_s.to_string()} data-testid="apply-wait"
                    onchange={{ let wait_s = wait_s.clone(); Callback::from(move |e: Event| {
                        if let Some(v) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).and_then(|i| i.value().parse::<u32>().ok()) { wait_s.set(v.min(600)); }
                    }) }} /></label>
                <button type="button" data-testid="apply-plan" onclick={on_apply}
                    disabled={apply.running || calls.as_ref().map(|c| c.is_empty()).unwrap_or(true)}>{ "Apply…" }</button>
                if let Some(calls) = &apply.confirming {
                    if !apply.running {
                        <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="apply-title" data-testid="apply-confirm">
                            <h4 id="apply-title">{ format!("Send these {} calls, {} at a time?", calls.len(), *batch) }</h4>
                            <p class="muted small">{ format!("First the owner of every bundle is read; if one is not where the plan expects it, nothing is sent. After each batch and a {} s wait, each bundle's new owner is checked; the run stops at the first failure. A paused shedding setting is put back to its previous value whatever happens.", *wait_s) }</p>
                            if plan.verdict.is_worse() {
                                // The REST path's counterpart of the script's --i-know: said before the calls are sent.
                                <p class="verdict-banner" role="alert" data-testid="apply-worse">{ &plan.verdict.headline }</p>
                            }
                            <ol class="mono small">
                                { for calls.iter().map(|c| html! { <li>{ format!("{} {}", c.method, c.path) }
                                    if let Some(b) = &c.body { { format!(" body {b}") } }
                                    <div class="muted">{ &c.note }</div></li> }) }
                            </ol>
                            <button type="button" data-testid="apply-confirm-ok" onclick={on_ok}>{ "Send the calls" }</button>
                            <button type="button" onclick={on_cancel}>{ "Cancel" }</button>
                        </div>
                    }
                }
                if apply.running {
                    <button type="button" data-testid="apply-stop" onclick={on_stop}>{ "Stop" }</button>
                    <span class="muted">{ " sending…" }</span>
                }
                if !apply.results.is_empty() {
                    <ol class="small">
                        { for apply.results.iter().map(|r| {
                            let ok = (200..300).contains(&r.status);
                            html! {
                                <li data-testid="apply-result" data-status={r.status.to_string()} class={classes!(if ok { "ok" } else { "failed" })}>
                                    <span class="mono">{ format!("{} {}", r.call.method, r.call.path) }</span>
                                    { format!(" → {} {}", if r.status == 0 { "error".to_string() } else { r.status.to_string() }, r.message) }
                                </li>
                            }
                        }) }
                    </ol>
                }
                if let Some(j) = &apply.journal {
                    <table class="small" data-testid="apply-journal">
                        <thead><tr><th>{ "#" }</th><th>{ "call" }</th><th>{ "status" }</th><th>{ "outcome" }</th></tr></thead>
                        <tbody>
                        { for j.steps.iter().map(|s| html! {
                            <tr data-testid="apply-journal-step" data-status={status_name(s.status)}>
                                <td>{ s.index + 1 }</td>
                                <td class="mono">{ format!("{} {}", s.method, s.path) }</td>
                                <td>{ status_name(s.status) }</td>
                                <td>{ s.message.clone().or_else(|| s.outcome.as_ref().map(|o| o.describe())).unwrap_or_default() }</td>
                            </tr>
                        }) }
                        </tbody>
                    </table>
                    <button type="button" data-testid="apply-journal-download" onclick={{
                        let text = j.to_json();
                        Callback::from(move |_| download("apply-journal.json", &text, "application/json"))
                    }}>{ "Download journal" }</button>
                }
                if let Some(m) = &apply.finished { <p data-testid="apply-finished">{ m }</p> }
            </div>
        }
    });
    html! {
        <section class="panel export" data-testid="export">
            <h2>{ "Export" }</h2>
            <div class="toolbar">
                <label>{ "Format " }
                    <select onchange={on_format} data-testid="export-format">
                        { for ExportFormat::ALL.into_iter().map(|f| html! {
                            <option value={f.name()} selected={*format == f}>{ label(f) }</option>
                        }) }
                    </select>
                </label>
                <label><input type="checkbox" checked={*pause} onchange={on_pause} data-testid="export-pause" />
                    { " pause automatic shedding while applying" }</label>
                <button type="button" onclick={on_copy} data-testid="export-copy">{ "Copy" }</button>
                <button type="button" onclick={on_download} data-testid="export-download">{ "Download" }</button>
            </div>
            <pre class="export-text" data-testid="export-commands" tabindex="0">{ text }</pre>
            { apply_ui.unwrap_or_default() }
        </section>
    }
}
