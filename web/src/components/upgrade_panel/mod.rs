//! Upgrade preview: the loaded snapshot's cluster moved from the release it runs (the Settings
//! panel's choice, else its leader's) to a chosen release, as `lbplan upgrade` shows it — core's
//! `upgrade::upgrade_preview`, run in a worker of its own: the plan worker writes the snapshot's
//! file, a job worker plans twice and simulates, reporting each step, and Cancel terminates it
//! (at 1,000 brokers the preview takes seconds, far over a page task's budget). `result` draws
//! the answer.

mod result;

use std::rc::Rc;

use lbplan_core::config::Profile;
use lbplan_core::release::{LINE_ALIASES, releases_by_line};
use lbplan_core::upgrade::{UpgradePreview, upgrade_step_label, upgrade_steps};
use lbplan_worker::protocol::{Request, UpgradeJob, WORKER_PROTOCOL_VERSION};
use yew::prelude::*;

use super::event_value;
use crate::components::bundle_map::now_ms;
use crate::format;
use crate::loader::download;
use crate::plan_client::SnapshotFile;
use crate::state::Loaded;
use crate::upgrade_client::{UpgradeEvent, UpgradeWorker};
use crate::worker_import::WorkerImports;

/// Simulated cycles under each release (the CLI's `--cycles` defaults to 30; 10 keep a
/// 1,000-broker preview under a minute).
const CYCLES: u32 = 10;

#[derive(Clone, Properties)]
pub struct UpgradePanelProps {
    pub loaded: Rc<Loaded>,
    /// The Settings panel's release (`None`: the leader's).
    pub profile: Option<Profile>,
    /// The worker's boot script (`static/lbplan-worker-boot.js`).
    pub worker_url: AttrValue,
    /// The app's plan worker: it holds the loaded snapshot and writes its file for a preview.
    pub plan_worker: WorkerImports,
}

impl PartialEq for UpgradePanelProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.loaded, &other.loaded)
            && self.profile == other.profile
            && self.worker_url == other.worker_url
            && self.plan_worker == other.plan_worker
    }
}

pub enum Msg {
    Target(String),
    Run,
    Cancel,
    /// Preview `id`'s snapshot file from the plan worker (or why not).
    SnapshotFile(u32, SnapshotFile),
    Job(u32, UpgradeEvent),
    Download,
}

/// A preview under way: waiting for the snapshot's file, then in its worker.
struct Running {
    id: u32,
    /// The request, until the snapshot's file came.
    job: Option<UpgradeJob>,
    /// Terminated when dropped (Cancel, a newer preview, another snapshot).
    _worker: Option<UpgradeWorker>,
    /// The worker has reported a step (it is loaded and has the request).
    heard: bool,
    done: u32,
    total: u32,
    started_ms: f64,
}

pub struct UpgradePanel {
    target: String,
    next_id: u32,
    running: Option<Running>,
    result: Option<Result<Rc<UpgradePreview>, String>>,
    note: Option<String>,
}

impl Component for UpgradePanel {
    type Message = Msg;
    type Properties = UpgradePanelProps;

    fn create(_ctx: &Context<Self>) -> Self {
        Self {
            target: "5.0.0".to_string(),
            next_id: 1,
            running: None,
            result: None,
            note: None,
        }
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &UpgradePanelProps) -> bool {
        let p = ctx.props();
        if !Rc::ptr_eq(&p.loaded, &old.loaded) || p.profile != old.profile {
            // Another snapshot or release: the preview shown, or under way, no longer applies.
            self.running = None;
            self.result = None;
            self.note = None;
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Target(t) => self.target = t,
            Msg::Run => self.start(ctx),
            Msg::Cancel => {
                if let Some(r) = self.running.take() {
                    self.note = Some(format!(
                        "Cancelled after {} of {} steps; the worker was stopped.",
                        format::count(i64::from(r.done)),
                        format::count(i64::from(r.total))
                    ));
                }
            }
            Msg::SnapshotFile(id, file) => self.launch(ctx, id, file),
            Msg::Job(id, event) => {
                let Some(r) = self.running.as_mut().filter(|r| r.id == id) else {
                    return false;
                };
                match event {
                    UpgradeEvent::Progress { done, total } => {
                        r.heard = true;
                        r.done = done;
                        r.total = total;
                    }
                    UpgradeEvent::Done(preview) => {
                        self.running = None;
                        self.result = Some(Ok(Rc::new(*preview)));
                    }
                    UpgradeEvent::Failed(message) => {
                        self.running = None;
                        self.result = Some(Err(message));
                    }
                }
            }
            Msg::Download => {
                if let Some(Ok(p)) = &self.result
                    && let Ok(mut text) = serde_json::to_string_pretty(p.as_ref())
                {
                    // Byte for byte what `lbplan upgrade --format json` prints.
                    text.push('\n');
                    let name = format!("lbplan-upgrade-{}-to-{}.json", p.from.release, p.to);
                    download(&name, &text, "application/json");
                }
                return false;
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let p = ctx.props();
        html! {
            <section class="panel upgrade" data-testid="upgrade-panel">
                <h2>{ "Upgrade preview" }</h2>
                <label>{ "Upgrade to " }
                    <select data-testid="upgrade-target" onchange={link.callback(|e: Event| Msg::Target(event_value(&e)))}>
                        <optgroup label="Lines">
                            { for LINE_ALIASES.iter().map(|a| html! {
                                <option value={a.to_string()} selected={*a == self.target.as_str()}>{ *a }</option>
                            }) }
                        </optgroup>
                        { for releases_by_line().into_iter().map(|(line, releases)| html! {
                            <optgroup label={line.label()}>
                                { for releases.into_iter().map(|r| {
                                    let name = r.name();
                                    let selected = name == self.target;
                                    html! { <option value={name.clone()} {selected}>{ name }</option> }
                                }) }
                            </optgroup>
                        }) }
                    </select>
                </label>
                <button type="button" data-testid="upgrade-run" onclick={link.callback(|_| Msg::Run)}>{ "Preview" }</button>
                if p.loaded.bundle_count > 20_000 {
                    <p class="muted small">{ format!("Large snapshot: the preview plans twice and simulates {CYCLES} cycles under each release, in a worker; it takes a while.") }</p>
                }
                { self.view_progress(ctx) }
                if let Some(n) = &self.note {
                    <p class="muted" data-testid="upgrade-note">{ n.clone() }</p>
                }
                { match &self.result {
                    None => html! {},
                    Some(Err(e)) => html! { <p class="error" role="alert" data-testid="upgrade-error">{ e.clone() }</p> },
                    Some(Ok(preview)) => html! {
                        <>
                            <button type="button" data-testid="upgrade-download" onclick={link.callback(|_| Msg::Download)}>{ "Download JSON" }</button>
                            { result::view(preview) }
                        </>
                    },
                } }
            </section>
        }
    }
}

impl UpgradePanel {
    /// Checks the target and asks the plan worker for the snapshot's file.
    fn start(&mut self, ctx: &Context<Self>) {
        let p = ctx.props();
        self.note = None;
        self.result = None;
        let Some(to) = Profile::parse(&self.target) else {
            self.running = None;
            self.result = Some(Err(format!("`{}` is not a Pulsar release", self.target)));
            return;
        };
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.running = Some(Running {
            id,
            job: Some(UpgradeJob {
                format_version: WORKER_PROTOCOL_VERSION,
                id,
                profile: p.profile,
                to,
                cycles: CYCLES,
            }),
            _worker: None,
            heard: false,
            done: 0,
            total: upgrade_steps(CYCLES),
            started_ms: now_ms(),
        });
        let answer = ctx.link().callback(move |f| Msg::SnapshotFile(id, f));
        p.plan_worker.ask_snapshot_file(p.loaded.id, answer);
    }

    /// Starts preview `id`'s worker with the snapshot's file.
    fn launch(&mut self, ctx: &Context<Self>, id: u32, file: SnapshotFile) {
        let Some(r) = self.running.as_mut().filter(|r| r.id == id) else {
            // Cancelled, or replaced by a newer preview.
            return;
        };
        let Some(job) = r.job.take() else {
            return;
        };
        let buffer = match file {
            Ok(b) => b,
            Err(e) => {
                // Never the page's snapshot instead: serialising it here is a long task.
                self.running = None;
                self.result = Some(Err(format!(
                    "Could not get the loaded snapshot from the plan worker ({e}). Preview again to restart it."
                )));
                return;
            }
        };
        let text = match serde_json::to_string(&Request::Upgrade(Box::new(job))) {
            Ok(t) => t,
            Err(e) => {
                self.running = None;
                self.result = Some(Err(format!("cannot send the request to the worker: {e}")));
                return;
            }
        };
        let on_event = ctx.link().callback(move |e| Msg::Job(id, e));
        match UpgradeWorker::start(&ctx.props().worker_url, text, buffer, id, on_event) {
            Ok(worker) => r._worker = Some(worker),
            Err(e) => {
                self.running = None;
                self.result = Some(Err(e));
            }
        }
    }

    /// Steps done of all, what runs now, time, Cancel.
    fn view_progress(&self, ctx: &Context<Self>) -> Html {
        let Some(r) = &self.running else {
            return html! {};
        };
        let elapsed = (now_ms() - r.started_ms) / 1000.0;
        let now = if r._worker.is_none() {
            "writing the snapshot for the worker".to_string()
        } else if !r.heard {
            "starting the worker".to_string()
        } else {
            upgrade_step_label(r.done, CYCLES)
        };
        html! {
            <div class="sim-progress" data-testid="upgrade-running" aria-live="polite">
                <progress data-testid="upgrade-progress" max={r.total.max(1).to_string()} value={r.done.to_string()}></progress>
                <span data-testid="upgrade-progress-text">{ format!("{} of {} steps · {now} · {elapsed:.1} s", format::count(i64::from(r.done)), format::count(i64::from(r.total))) }</span>
                <button type="button" data-testid="upgrade-cancel" onclick={ctx.link().callback(|_| Msg::Cancel)}>{ "Cancel" }</button>
            </div>
        }
    }
}
