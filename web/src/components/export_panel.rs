//! Export and apply: the plan as a `pulsar-admin` script, curl calls (with rollback and the "pause
//! automatic shedding" option) or JSON, with copy and download; and, when the host gave an
//! `adminBaseUrl`, the Apply flow: a confirmation listing every REST call, then the guarded run of
//! [`super::apply_run`] (core's `act::apply`: owners checked for drift first, calls in batches,
//! each verified after a wait, stop at the first failure, drift or Stop, shedding restored), each
//! status and the journal shown and offered as a download. A journal (the one of the run just
//! stopped, or one loaded from a file) can be resumed (the steps not done) or rolled back (the done
//! unloads moved back to their sources) through the same core `act::apply::Session` as
//! `lbplan apply --resume/--rollback`, with the same checks. Nothing that changes the cluster is
//! sent without that confirmation.

use std::cell::Cell;
use std::rc::Rc;

use lbplan_core::act::apply::{ApplyPlan, DEFAULT_MAX_AGE_MS, Journal, Mode, Session, StepStatus};
use lbplan_core::act::export::{ExportOptions, RestCall, rest_calls};
use lbplan_core::act::export_format::{ExportFormat, export_plan};
use lbplan_core::act::safety::{Assessment, Limits};
use lbplan_core::plan::Plan;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::apply_run::{self, Progress, Target};

use crate::loader::{copy_to_clipboard, download, read_file_list};

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
    /// Asks for the plan again with every decision's detail: a plan made without them
    /// (`explain: summary`, the plan worker's) is never exported; the export waits for the Full one.
    #[prop_or_default]
    pub on_need_full: Option<Callback<()>>,
}

impl PartialEq for ExportProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan)
            && self.readonly == o.readonly
            && self.admin_base_url == o.admin_base_url
            && self.auth_headers == o.auth_headers
            && self.on_need_full == o.on_need_full
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

/// A run waiting for the operator's confirmation: its session, the calls it lists, and core's
/// safety assessment of the plan (the verdict, the snapshot's age, the hazards that need a typed
/// acknowledgement).
#[derive(Clone, Debug, PartialEq)]
pub struct Confirming {
    pub session: Session,
    pub calls: Vec<RestCall>,
    pub assessment: Assessment,
}

/// Core's policy for a run starting now: the dashboard's clock, the default age limit. The
/// cluster's version is not read before the confirmation, so the profile is not compared here
/// (`lbplan apply` compares it).
fn assess_now(ap: &ApplyPlan) -> Assessment {
    ap.assess(&Limits {
        now_ms: js_sys::Date::now() as i64,
        max_age_ms: DEFAULT_MAX_AGE_MS,
        cluster_profile: None,
    })
}

/// A path as an operator reads it: percent-escapes decoded (`b1%3A8080` → `b1:8080`).
fn readable(path: &str) -> String {
    js_sys::decode_uri_component(path)
        .map(String::from)
        .unwrap_or_else(|_| path.to_string())
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ApplyState {
    pub confirming: Option<Confirming>,
    pub running: bool,
    pub results: Vec<CallResult>,
    pub journal: Option<Journal>,
    /// Why the journal file the operator chose cannot be used.
    pub journal_error: Option<String>,
    pub finished: Option<String>,
    /// The confirmation's dry run: running, then what it found.
    pub dry_running: bool,
    pub dry_run: Option<String>,
}

pub enum ApplyAction {
    /// Boxed: a confirmation (its session, journal and assessment) is much larger than the rest.
    Confirm(Box<Confirming>),
    Cancel,
    Start,
    Result(CallResult),
    Journal(Journal),
    /// A journal file read (or why not).
    Loaded(Result<Journal, String>),
    Finished(String),
    DryRunStarted,
    DryRun(String),
}

impl Reducible for ApplyState {
    type Action = ApplyAction;
    fn reduce(self: Rc<Self>, a: ApplyAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match a {
            ApplyAction::Confirm(c) => {
                let c = *c;
                // A new run starts from nothing; a resume or rollback keeps its journal shown.
                let journal = (c.session.mode != Mode::Apply)
                    .then(|| s.journal.clone())
                    .flatten();
                s = ApplyState {
                    confirming: Some(c),
                    journal,
                    ..Default::default()
                }
            }
            ApplyAction::Cancel => s.confirming = None,
            ApplyAction::Start => {
                s.running = true;
                s.results.clear();
                s.journal_error = None;
                s.finished = None;
            }
            ApplyAction::Result(r) => s.results.push(r),
            ApplyAction::Journal(j) => s.journal = Some(j),
            ApplyAction::Loaded(Ok(j)) => {
                s.journal = Some(j);
                s.journal_error = None;
                s.results.clear();
                s.finished = None;
            }
            ApplyAction::Loaded(Err(e)) => s.journal_error = Some(e),
            ApplyAction::DryRunStarted => {
                s.dry_running = true;
                s.dry_run = None;
            }
            ApplyAction::DryRun(m) => {
                s.dry_running = false;
                s.dry_run = Some(m);
            }
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

/// The confirmation dialog's name of a run's mode (`data-mode`).
fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Apply => "apply",
        Mode::Resume => "resume",
        Mode::Rollback => "rollback",
    }
}

/// The head of every confirmation: the verdict and its headline first, the plan's cluster,
/// snapshot time and age, and profile (core's `Assessment::header_lines`), then each hazard and,
/// when one needs it, the typed acknowledgement naming the worst broker.
fn policy_view(a: &Assessment, mode: Mode, ack: &UseStateHandle<String>) -> Html {
    let word = a.confirmation_word();
    let on_input = {
        let ack = ack.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            {
                ack.set(i.value());
            }
        })
    };
    html! {
        <div class="apply-policy" data-testid="apply-policy" data-verdict={a.context.verdict.clone()}>
            { for a.header_lines().into_iter().enumerate().map(|(i, l)| html! {
                <p class={classes!("small", (i == 0).then_some("strong"))} data-testid="apply-policy-line">{ l }</p>
            }) }
            if a.context.is_worse() && mode != Mode::Rollback {
                <p class="verdict-banner" role="alert" data-testid="apply-worse">{ &a.context.headline }</p>
            }
            if !a.hazards.is_empty() {
                <ul class="small">
                    { for a.hazards.iter().map(|h| html! { <li class="error-text" data-testid="apply-hazard">{ h.describe() }</li> }) }
                </ul>
            }
            if let (Some(word), true) = (word, mode != Mode::Rollback) {
                <label class="small" data-testid="apply-ack-label">{ "Refused unless you acknowledge it: type " }
                    <code>{ word.clone() }</code>{ " to carry it out anyway " }
                    <input type="text" data-testid="apply-ack" data-word={word} value={(**ack).clone()} oninput={on_input} autocomplete="off" />
                </label>
            }
        </div>
    }
}

/// Which export the user asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ExportKind {
    Copy,
    Download,
}

fn run_export(kind: ExportKind, f: ExportFormat, text: &str, cb: &Callback<(String, String)>) {
    match kind {
        ExportKind::Copy => copy_to_clipboard(text),
        ExportKind::Download => download(f.file_name(), text, f.media_type()),
    }
    cb.emit((f.name().to_string(), text.to_string()));
}

#[function_component(ExportPanel)]
pub fn export_panel(p: &ExportProps) -> Html {
    let format = use_state(|| ExportFormat::PulsarAdmin);
    // On by default: the leader's own shedding would otherwise move bundles while the plan's
    // moves are under way, and the run's verification would report moves the plan never made.
    let pause = use_state(|| true);
    let ack = use_state(String::new);
    let batch = use_state(|| 1_usize);
    let wait_s = use_state(|| 5_u32);
    let apply = use_reducer(ApplyState::default);
    let pending = use_state(|| None::<ExportKind>);
    // An export asked of a plan without its details runs when the Full plan has come.
    {
        let (pending, plan, f, pause, cb) = (
            pending.clone(),
            p.plan.clone(),
            *format,
            *pause,
            p.on_export.clone(),
        );
        use_effect_with((Rc::as_ptr(&p.plan) as usize, *pending), move |_| {
            if let (Some(kind), Ok(plan)) = (*pending, &*plan)
                && plan.explained.is_none()
            {
                pending.set(None);
                let opts = ExportOptions {
                    pause_automatic_shedding: pause,
                    ..ExportOptions::default()
                };
                let text = export_plan(plan, f, opts)
                    .unwrap_or_else(|e| format!("# cannot export: {e}\n"));
                run_export(kind, f, &text, &cb);
            }
        });
    }
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
    // A plan without its details waits for the Full one (asked here), then the export runs.
    let light = plan.explained.is_some();
    let export = |kind: ExportKind| {
        let (text, f, cb) = (text.clone(), *format, p.on_export.clone());
        let (pending, need) = (pending.clone(), p.on_need_full.clone());
        Callback::from(move |_| match (&need, light) {
            (Some(need), true) => {
                pending.set(Some(kind));
                need.emit(());
            }
            _ => run_export(kind, f, &text, &cb),
        })
    };
    let on_copy = export(ExportKind::Copy);
    let on_download = export(ExportKind::Download);
    let apply_ui = p.admin_base_url.clone().map(|base| {
        let calls = rest_calls(
            &plan,
            ExportOptions {
                pause_automatic_shedding: *pause,
                ..ExportOptions::default()
            },
        );
        let apply_plan = ApplyPlan::from_plan(&plan).map_err(|e| e.to_string());
        let on_apply = {
            let apply = apply.clone();
            let ack = ack.clone();
            let calls = calls.clone();
            let (apply_plan, base) = (apply_plan.clone(), base.to_string());
            Callback::from(move |_| {
                ack.set(String::new());
                if let (Ok(c), Ok(ap)) = (&calls, &apply_plan) {
                    apply.dispatch(ApplyAction::Confirm(Box::new(Confirming {
                        session: Session::apply(ap, &base),
                        calls: c.clone(),
                        assessment: assess_now(ap),
                    })));
                }
            })
        };
        // Resume or roll back the journal shown: the session is core's, as for `lbplan apply
        // --resume/--rollback`; the dialog lists the calls it would send.
        let from_journal = |mode: Mode| {
            let apply = apply.clone();
            let apply_plan = apply_plan.clone();
            Callback::from(move |_| {
                let (Some(j), Ok(ap)) = (apply.journal.clone(), &apply_plan) else {
                    return;
                };
                let session = match mode {
                    Mode::Rollback => Session::rollback(ap, j),
                    _ => Session::resume(ap, j),
                };
                match session {
                    Ok(session) => {
                        let calls = session.pending_steps().map(|s| s.step.call.clone()).collect();
                        let assessment = assess_now(ap);
                        apply.dispatch(ApplyAction::Confirm(Box::new(Confirming { session, calls, assessment })));
                    }
                    Err(e) => apply.dispatch(ApplyAction::Loaded(Err(format!(
                        "Cannot use this journal with this plan: {e}"
                    )))),
                }
            })
        };
        let on_resume = from_journal(Mode::Resume);
        let on_rollback = from_journal(Mode::Rollback);
        let on_load = {
            let apply = apply.clone();
            let apply_plan = apply_plan.clone();
            Callback::from(move |e: Event| {
                let Some(list) = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                    .and_then(|i| i.files())
                else {
                    return;
                };
                let d = apply.dispatcher();
                let apply_plan = apply_plan.clone();
                yew::platform::spawn_local(async move {
                    let read = read_file_list(&list).await.and_then(|files| {
                        let (name, bytes, _) =
                            files.into_iter().next().ok_or("no file chosen")?;
                        let text = String::from_utf8(bytes)
                            .map_err(|_| format!("{name}: not UTF-8 text"))?;
                        let j = Journal::from_json(&text).map_err(|e| format!("{name}: {e}"))?;
                        let ap = apply_plan.as_ref().map_err(|e| e.clone())?;
                        j.check_matches(ap)
                            .map_err(|e| format!("{name}: not a journal of this plan: {e}"))?;
                        Ok(j)
                    });
                    d.dispatch(ApplyAction::Loaded(read));
                });
            })
        };
        let on_ok = {
            let apply = apply.clone();
            let stop = stop.clone();
            let auth = p.auth_headers.clone();
            let base = base.to_string();
            let (pause, batch, wait_s) = (*pause, *batch, *wait_s);
            let ack = ack.clone();
            Callback::from(move |_| {
                let Some(mut confirming) = apply.confirming.clone() else {
                    return;
                };
                // Core's policy: a hazard (worse, stale, from the future, unknown age) needs the
                // typed confirmation; a rollback is never refused. The journal records it.
                let mut a = confirming.assessment.clone();
                if confirming.session.mode != Mode::Rollback && !a.acknowledges(&ack) {
                    return;
                }
                a.acknowledged = a.needs_acknowledgement();
                confirming.session.journal.safety = Some(a);
                let flag = Rc::new(Cell::new(false));
                *stop.borrow_mut() = flag.clone();
                let dispatcher = apply.dispatcher();
                dispatcher.dispatch(ApplyAction::Start);
                let target = Target { base: base.clone(), auth: auth.clone() };
                yew::platform::spawn_local(async move {
                    let d = dispatcher.clone();
                    let done = apply_run::run(target, confirming.session, batch, wait_s.saturating_mul(1000), pause, flag, move |p| match p {
                        Progress::Call(call, status, message) => d.dispatch(ApplyAction::Result(CallResult { call, status, message })),
                        Progress::Journal(j) => d.dispatch(ApplyAction::Journal(j)),
                    }).await;
                    dispatcher.dispatch(ApplyAction::Finished(done));
                });
            })
        };
        let on_dry_run = {
            let apply = apply.clone();
            let auth = p.auth_headers.clone();
            let base = base.to_string();
            Callback::from(move |_| {
                let Some(confirming) = apply.confirming.clone() else {
                    return;
                };
                let dispatcher = apply.dispatcher();
                dispatcher.dispatch(ApplyAction::DryRunStarted);
                let target = Target { base: base.clone(), auth: auth.clone() };
                yew::platform::spawn_local(async move {
                    let found = apply_run::dry_run(target, confirming.session).await;
                    dispatcher.dispatch(ApplyAction::DryRun(found));
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
                if let Some(Confirming { session, calls, assessment }) = &apply.confirming {
                    if !apply.running {
                        <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="apply-title" data-testid="apply-confirm" data-mode={mode_name(session.mode)}>
                            { policy_view(assessment, session.mode, &ack) }
                            <h4 id="apply-title">{ match session.mode {
                                Mode::Apply => format!("Send these {} calls, {} at a time?", calls.len(), *batch),
                                Mode::Resume => format!("Resume: send the {} calls not done, {} at a time?", calls.len(), *batch),
                                Mode::Rollback => format!("Roll back: move these {} bundles back to their original brokers, {} at a time?", calls.len(), *batch),
                            } }</h4>
                            if session.mode == Mode::Resume {
                                <p class="muted small">{ "A step the cluster already shows as applied (sent before the interruption, not verified) is recorded as done and not sent again." }</p>
                            }
                            if !session.permanent_splits.is_empty() {
                                <p class="muted small" data-testid="apply-permanent-splits">{ format!("{} split bundle(s) stay split: Pulsar cannot merge bundles.", session.permanent_splits.len()) }</p>
                            }
                            <p class="muted small">{ format!("First the owner of every bundle is read; if one is not where the plan expects it, nothing is sent. After each batch and a {} s wait, each bundle's new owner is checked; the run stops at the first failure. A paused shedding setting is put back to its previous value whatever happens.", *wait_s) }</p>
                            if *pause || session.journal.shedding_left_paused() {
                                <p class="small" data-testid="apply-pause-note">{ "Automatic shedding is paused for the run (loadBalancerSheddingEnabled=false) and put back to its previous value at the end, whatever happens: otherwise the leader keeps shedding while these moves are under way." }</p>
                            } else {
                                <p class="small warning" data-testid="apply-pause-note">{ "Automatic shedding stays ON during the run: the leader may move bundles while these calls are sent, and the verification may then report moves the plan never made." }</p>
                            }
                            <ol class="mono small">
                                { for calls.iter().map(|c| html! { <li>{ format!("{} {}", c.method, readable(&c.path)) }
                                    if let Some(b) = &c.body { { format!(" body {b}") } }
                                    <div class="muted">{ &c.note }</div></li> }) }
                            </ol>
                            <p class="small">
                                <button type="button" data-testid="apply-dry-run" onclick={on_dry_run} disabled={apply.dry_running}>{ "Dry run: check the owners, send nothing" }</button>
                                if apply.dry_running { <span class="busy small" role="status">{ " reading the owners…" }</span> }
                                if let Some(m) = &apply.dry_run { <span data-testid="apply-dry-run-result">{ format!(" {m}") }</span> }
                            </p>
                            <button type="button" data-testid="apply-confirm-ok" onclick={on_ok}
                                disabled={session.mode != Mode::Rollback && !assessment.acknowledges(&ack)}>{ "Send the calls" }</button>
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
                                    <span class="mono">{ format!("{} {}", r.call.method, readable(&r.call.path)) }</span>
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
                                <td class="mono">{ format!("{} {}", s.method, readable(&s.path)) }
                                    if let Some(e) = &s.expected { <div class="muted">{ e }</div> } </td>
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
                    <button type="button" data-testid="apply-resume" onclick={on_resume}
                        disabled={apply.running || j.resume_indices().is_empty()}>{ "Resume…" }</button>
                    <button type="button" data-testid="apply-rollback" onclick={on_rollback}
                        disabled={apply.running || apply_plan.as_ref().ok().and_then(|ap| j.rollback_steps(ap).ok()).is_none_or(|m| m.is_empty())}>{ "Roll back…" }</button>
                }
                <label class="small">{ "Journal of an earlier run " }
                    <input type="file" accept=".json,application/json" data-testid="apply-journal-file"
                        disabled={apply.running} onchange={on_load} /></label>
                if let Some(e) = &apply.journal_error { <p class="error-text" data-testid="apply-journal-error">{ e }</p> }
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
                    { " pause automatic shedding while applying (restored afterwards; otherwise the leader keeps moving bundles during the run)" }</label>
                <button type="button" onclick={on_copy} data-testid="export-copy">{ "Copy" }</button>
                <button type="button" onclick={on_download} data-testid="export-download">{ "Download" }</button>
                if pending.is_some() {
                    <span class="busy small" role="status" data-testid="export-pending">{ " Making the plan with every decision's detail…" }</span>
                }
            </div>
            <pre class="export-text" data-testid="export-commands" tabindex="0">{ text }</pre>
            { apply_ui.unwrap_or_default() }
        </section>
    }
}
