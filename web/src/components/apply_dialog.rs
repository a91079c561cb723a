//! The dashboard's and the embedded Apply: the state machine around core's `plan::apply`
//! (moved out of the export panel, which only exports). A confirmation lists every REST call under
//! core's safety header (`plan::safety`: verdict first, cluster, snapshot age, profile, hazards
//! needing a typed acknowledgement); then the guarded run of [`super::apply_run`] (owners checked
//! for drift first, calls in batches, each verified after a wait, stop at the first failure, drift
//! or Stop, shedding restored), each status and the journal shown and offered as a download. A
//! journal (the one of the run just stopped, or one loaded from a file) can be resumed or rolled
//! back through the same core `plan::apply::Session` as `lbplan apply --resume/--rollback`.
//! Nothing that changes the cluster is sent without that confirmation.

use std::cell::Cell;
use std::rc::Rc;

use lbplan_core::act::apply::{ApplyPlan, DEFAULT_MAX_AGE_MS, Journal, Mode, Session, StepStatus};
use lbplan_core::act::export::{ExportOptions, RestCall, rest_calls};
use lbplan_core::act::safety::{Assessment, Limits, assess};
use lbplan_core::model::Snapshot;
use lbplan_core::plan::Plan;
use lbplan_core::plan::verify::Verification;
use yew::prelude::*;

use super::apply_run::{self, DryRun, Progress, Target};

use crate::loader::{download, read_file_list};

#[derive(Clone, Properties)]
pub struct ApplyProps {
    /// The plan the export panel shows (shared, compared by pointer).
    pub plan: Rc<Result<Plan, String>>,
    /// The host's `adminBaseUrl`: every call goes there and nowhere else.
    pub base: AttrValue,
    /// The host's `authHeaders()`.
    #[prop_or_default]
    pub auth: Option<js_sys::Function>,
    /// Pause automatic shedding around the run (the export panel's checkbox, on by default).
    pub pause: bool,
    /// The snapshot the plan was made from: Verify reads the cluster after the apply against it.
    #[prop_or_default]
    pub snapshot: Option<Rc<Snapshot>>,
}

impl PartialEq for ApplyProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan)
            && self.base == o.base
            && self.auth == o.auth
            && self.pause == o.pause
            && match (&self.snapshot, &o.snapshot) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
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
/// cluster's version is read by the dry run, which re-assesses with the profile it implies
/// ([`reassess`]), as `lbplan apply` compares it.
fn assess_now(ap: &ApplyPlan) -> Assessment {
    ap.assess(&Limits {
        now_ms: js_sys::Date::now() as i64,
        max_age_ms: DEFAULT_MAX_AGE_MS,
        cluster_profile: None,
    })
}

/// The same policy once the dry run read the brokers' version: a plan of another profile needs
/// the typed acknowledgement too.
fn reassess(a: &Assessment, cluster_profile: Option<String>) -> Assessment {
    assess(
        &a.context,
        &Limits {
            now_ms: js_sys::Date::now() as i64,
            max_age_ms: a.max_age_ms,
            cluster_profile,
        },
    )
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
    /// The confirmation's dry run (started when it opens): running, then what it found. Send is
    /// enabled only after a dry run that passed on exactly the calls confirmed.
    pub dry_running: bool,
    pub dry_run: Option<DryRun>,
    /// Counts the confirmations opened (each starts its own dry run).
    pub confirmations: u32,
    /// The mode of the last run and when its first batch started (ms), for Verify: a broker's
    /// report older than that predates the moves.
    pub last_run: Option<(Mode, i64)>,
    /// Verify after the run: running, then core's report or why not.
    pub verifying: bool,
    pub verification: Option<Result<Verification, String>>,
}

pub enum ApplyAction {
    /// Boxed: a confirmation (its session, journal and assessment) is much larger than the rest.
    Confirm(Box<Confirming>),
    Cancel,
    Start,
    Result(CallResult),
    Journal(Journal),
    /// The run's batch started at this time (ms).
    BatchStarted(i64),
    /// A journal file read (or why not).
    Loaded(Result<Journal, String>),
    Finished(String),
    DryRunStarted,
    DryRun(DryRun),
    VerifyStarted,
    Verified(Box<Result<Verification, String>>),
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
                    confirmations: s.confirmations.wrapping_add(1),
                    ..Default::default()
                }
            }
            ApplyAction::Cancel => s.confirming = None,
            ApplyAction::Start => {
                s.last_run = s.confirming.as_ref().map(|c| (c.session.mode, 0));
                s.verification = None;
                s.running = true;
                s.results.clear();
                s.journal_error = None;
                s.finished = None;
            }
            ApplyAction::Result(r) => s.results.push(r),
            ApplyAction::Journal(j) => s.journal = Some(j),
            ApplyAction::BatchStarted(at) => {
                // The first batch's start: a report written before it predates every move.
                if let Some((_, t)) = s.last_run.as_mut()
                    && *t == 0
                {
                    *t = at;
                }
            }
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
            ApplyAction::DryRun(d) => {
                s.dry_running = false;
                // The brokers' version read: the profile check joins the policy.
                if let Some(c) = s.confirming.as_mut()
                    && d.cluster_profile.is_some()
                {
                    c.assessment = reassess(&c.assessment, d.cluster_profile.clone());
                }
                s.dry_run = Some(d);
            }
            ApplyAction::Finished(m) => {
                s.running = false;
                s.confirming = None;
                s.finished = Some(m);
                if let Some((_, at)) = s.last_run.as_mut()
                    && *at == 0
                {
                    *at = js_sys::Date::now() as i64;
                }
            }
            ApplyAction::VerifyStarted => {
                s.verifying = true;
                s.verification = None;
            }
            ApplyAction::Verified(r) => {
                s.verifying = false;
                s.verification = Some(*r);
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
            ack.set(super::event_value(&e));
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

/// Runs the dry run of the confirmation shown (reads only) and records what it found.
fn start_dry_run(apply: &UseReducerHandle<ApplyState>, target: Target) {
    let Some(confirming) = apply.confirming.clone() else {
        return;
    };
    let dispatcher = apply.dispatcher();
    dispatcher.dispatch(ApplyAction::DryRunStarted);
    yew::platform::spawn_local(async move {
        let found = apply_run::dry_run(target, confirming.session, confirming.calls).await;
        dispatcher.dispatch(ApplyAction::DryRun(found));
    });
}

/// Core's verification report, with its text and JSON downloads.
fn verification_view(v: &Result<Verification, String>) -> Html {
    match v {
        Err(e) => {
            html! { <p class="error-text" data-testid="apply-verify-error">{ format!("Cannot verify: {e}") }</p> }
        }
        Ok(r) => {
            let text = r.to_text();
            let json = serde_json::to_string_pretty(r).unwrap_or_default();
            html! {
                <div class="apply-verify" data-testid="apply-verification"
                    data-as-predicted={r.as_predicted.to_string()} data-complete={r.complete.to_string()}>
                    <p class={classes!("strong", (!r.as_predicted).then_some("error-text"))} data-testid="apply-verify-summary">{ &r.summary }</p>
                    <pre class="export-text small" data-testid="apply-verify-text">{ text.clone() }</pre>
                    <button type="button" data-testid="apply-verify-download-text" onclick={
                        Callback::from(move |_| download("apply-verify.txt", &text, "text/plain"))
                    }>{ "Download report (text)" }</button>
                    <button type="button" data-testid="apply-verify-download-json" onclick={
                        Callback::from(move |_| download("apply-verify.json", &json, "application/json"))
                    }>{ "Download report (JSON)" }</button>
                </div>
            }
        }
    }
}

#[function_component(ApplyDialog)]
pub fn apply_dialog(p: &ApplyProps) -> Html {
    let ack = use_state(String::new);
    let batch = use_state(|| 1_usize);
    let wait_s = use_state(|| 5_u32);
    let apply = use_reducer(ApplyState::default);
    let stop = use_mut_ref(|| Rc::new(Cell::new(false)));
    // Each confirmation starts with its dry run: Send stays disabled until it passed.
    {
        let (apply, target) = (
            apply.clone(),
            Target {
                base: p.base.to_string(),
                auth: p.auth.clone(),
            },
        );
        use_effect_with(apply.confirmations, move |_| {
            if apply.confirming.is_some() && !apply.dry_running && apply.dry_run.is_none() {
                start_dry_run(&apply, target);
            }
        });
    }
    // Another plan: a confirmation (and its dry run) of the previous one is dropped.
    {
        let apply = apply.clone();
        use_effect_with(Rc::as_ptr(&p.plan) as usize, move |_| {
            if apply.confirming.is_some() && !apply.running {
                apply.dispatch(ApplyAction::Cancel);
            }
        });
    }
    let Ok(plan) = &*p.plan else {
        return html! {};
    };
    let base = p.base.clone();
    let calls = rest_calls(
        plan,
        ExportOptions {
            pause_automatic_shedding: p.pause,
            ..ExportOptions::default()
        },
    );
    let apply_plan = ApplyPlan::from_plan(plan).map_err(|e| e.to_string());
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
                    let calls = session
                        .pending_steps()
                        .map(|s| s.step.call.clone())
                        .collect();
                    let assessment = assess_now(ap);
                    apply.dispatch(ApplyAction::Confirm(Box::new(Confirming {
                        session,
                        calls,
                        assessment,
                    })));
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
            let Some(list) = super::event_input(&e).and_then(|i| i.files()) else {
                return;
            };
            let d = apply.dispatcher();
            let apply_plan = apply_plan.clone();
            yew::platform::spawn_local(async move {
                let read = read_file_list(&list).await.and_then(|files| {
                    let (name, bytes, _) = files.into_iter().next().ok_or("no file chosen")?;
                    let text =
                        String::from_utf8(bytes).map_err(|_| format!("{name}: not UTF-8 text"))?;
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
        let auth = p.auth.clone();
        let base = base.to_string();
        let (pause, batch, wait_s) = (p.pause, *batch, *wait_s);
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
            // The dry run must have passed on exactly these calls.
            if !apply
                .dry_run
                .as_ref()
                .is_some_and(|d| d.passed && d.calls == confirming.calls)
            {
                return;
            }
            a.acknowledged = a.needs_acknowledgement();
            confirming.session.journal.safety = Some(a);
            let flag = Rc::new(Cell::new(false));
            *stop.borrow_mut() = flag.clone();
            let dispatcher = apply.dispatcher();
            dispatcher.dispatch(ApplyAction::Start);
            let target = Target {
                base: base.clone(),
                auth: auth.clone(),
            };
            yew::platform::spawn_local(async move {
                let d = dispatcher.clone();
                let done = apply_run::run(
                    target,
                    confirming.session,
                    batch,
                    wait_s.saturating_mul(1000),
                    pause,
                    flag,
                    move |p| match p {
                        Progress::Call(call, status, message) => {
                            d.dispatch(ApplyAction::Result(CallResult {
                                call,
                                status,
                                message,
                            }))
                        }
                        Progress::Journal(j) => d.dispatch(ApplyAction::Journal(j)),
                        Progress::BatchStarted(at) => d.dispatch(ApplyAction::BatchStarted(at)),
                    },
                )
                .await;
                dispatcher.dispatch(ApplyAction::Finished(done));
            });
        })
    };
    let on_dry_run = {
        let apply = apply.clone();
        let auth = p.auth.clone();
        let base = base.to_string();
        Callback::from(move |_| {
            start_dry_run(
                &apply,
                Target {
                    base: base.clone(),
                    auth: auth.clone(),
                },
            )
        })
    };
    // Verify (after an apply or a resume): the cluster read through the same admin URL and
    // compared with the plan by core's `plan::verify`.
    let can_verify = !apply.running
        && p.snapshot.is_some()
        && matches!(apply.last_run, Some((mode, _)) if mode != Mode::Rollback)
        && apply
            .journal
            .as_ref()
            .is_some_and(|j| j.steps.iter().any(|s| s.status == StepStatus::Done));
    let on_verify = {
        let apply = apply.clone();
        let auth = p.auth.clone();
        let base = base.to_string();
        let (plan, snapshot) = (plan.clone(), p.snapshot.clone());
        Callback::from(move |_| {
            let (Some(snapshot), Some((_, at))) = (snapshot.clone(), apply.last_run) else {
                return;
            };
            let dispatcher = apply.dispatcher();
            dispatcher.dispatch(ApplyAction::VerifyStarted);
            let target = Target {
                base: base.clone(),
                auth: auth.clone(),
            };
            let plan = plan.clone();
            yew::platform::spawn_local(async move {
                let r = apply_run::verify(target, plan, snapshot, at).await;
                dispatcher.dispatch(ApplyAction::Verified(Box::new(r)));
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
    // Send needs a dry run that passed on exactly the calls confirmed.
    let dry_ok = apply
        .confirming
        .as_ref()
        .zip(apply.dry_run.as_ref())
        .is_some_and(|(c, d)| d.passed && d.calls == c.calls);
    html! {
        <div class="apply">
            <h3>{ "Apply to the cluster" }</h3>
            <p class="muted small">{ format!("Through the admin REST API at {base}. You will see every call before anything is sent.") }</p>
            if let Err(e) = &calls { <p class="error-text">{ format!("Cannot apply: {e}") }</p> }
            <label>{ "Batch " }<input type="number" min="1" max="100" value={batch.to_string()} data-testid="apply-batch"
                onchange={{ let batch = batch.clone(); Callback::from(move |e: Event| {
                    if let Ok(v) = super::event_value(&e).parse::<usize>() { batch.set(v.clamp(1, 100)); }
                }) }} /></label>
            <label>{ " wait (s) " }<input type="number" min="0" max="600" value={wait_s.to_string()} data-testid="apply-wait"
                onchange={{ let wait_s = wait_s.clone(); Callback::from(move |e: Event| {
                    if let Ok(v) = super::event_value(&e).parse::<u32>() { wait_s.set(v.min(600)); }
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
                        if p.pause || session.journal.shedding_left_paused() {
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
                            <button type="button" data-testid="apply-dry-run" onclick={on_dry_run} disabled={apply.dry_running}>{ "Dry run again: check the owners, send nothing" }</button>
                            if apply.dry_running { <span class="busy small" role="status">{ " reading the owners…" }</span> }
                            if let Some(d) = &apply.dry_run {
                                <span data-testid="apply-dry-run-result" data-passed={d.passed.to_string()}
                                    class={classes!((!d.passed).then_some("error-text"))}>{ format!(" {}", d.text) }</span>
                            }
                        </p>
                        if !dry_ok {
                            <p class="muted small" data-testid="apply-needs-dry-run">{ "Send is enabled once a dry run of these calls has read the owners and found no drift." }</p>
                        }
                        <button type="button" data-testid="apply-confirm-ok" onclick={on_ok}
                            disabled={!dry_ok || (session.mode != Mode::Rollback && !assessment.acknowledges(&ack))}>{ "Send the calls" }</button>
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
            if can_verify {
                <p class="small">
                    <button type="button" data-testid="apply-verify" onclick={on_verify} disabled={apply.verifying}>
                        { "Verify: did the cluster do what the plan said?" }</button>
                    if apply.verifying { <span class="busy small" role="status">{ " reading the cluster…" }</span> }
                </p>
            }
            if let Some(v) = &apply.verification { { verification_view(v) } }
        </div>
    }
}
