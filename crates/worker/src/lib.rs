//! `lbplan-worker`: the dashboard's Web Workers. Long simulations run here, off the page's thread,
//! so the page stays responsive and can show progress and cancel (by terminating the worker); so
//! do the plans of large snapshots, which keep their snapshot in the worker between plans, the
//! upgrade preview, and the History view's decoding and explaining of an uploaded series.
//!
//! [`WorkerState::handle`] is the whole behaviour (pure, tested natively); [`start`] wires it to
//! the worker's `onmessage`/`postMessage` in the browser.

pub mod import_job;
pub mod lists_apart;
pub mod plan_parts;
pub mod protocol;

use lbplan_core::model::Snapshot;
use lbplan_core::plan::diff::diff_plans;
use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::{Plan, PlanEngine, PlanRequest};
use lbplan_core::simulate::{RunOptions, compare};

use lbplan_core::history::{ExplainOptions, explain_uploaded};
use lbplan_core::rebalance::{Goal, RebalanceRequest, propose_with_fingerprint};
use lbplan_core::upgrade::{upgrade_preview_with_progress, upgrade_steps};
use lbplan_core::view::timeline::TimelineBuilder;
use lbplan_core::watch::live::{DEFAULT_WINDOW_MS, LiveHistory};
use protocol::{
    ExplainJob, HistoryJob, HistoryView, PlanJob, RebalanceJob, Request, Response, SimulateRequest,
    UpgradeJob, WORKER_PROTOCOL_VERSION,
};

/// Progress messages are sent at most this often: enough for a smooth bar, few enough that posting
/// them costs nothing next to the simulation.
pub const PROGRESS_INTERVAL_MS: f64 = 100.0;

/// Broker usages are kept per cycle only up to this many values per configuration (brokers ×
/// cycles); beyond it the per-broker chart is left out rather than sending hundreds of MB.
pub const MAX_BROKER_USAGE_VALUES: u64 = 400_000;

/// Whether a run of `brokers` brokers over `cycles` cycles may keep every broker's usage.
pub fn broker_usage_fits(brokers: usize, cycles: u32) -> bool {
    (brokers as u64).saturating_mul(u64::from(cycles)) <= MAX_BROKER_USAGE_VALUES
}

/// What a worker keeps between messages: the last snapshot a plan request carried, as a plan
/// engine (its fingerprint and the leader's view built once, so an edit costs its change).
#[derive(Default)]
pub struct WorkerState {
    /// (the page's id for it, the engine holding the snapshot).
    snapshot: Option<(u64, PlanEngine<'static>)>,
    /// The plan without operations the last diff was taken against, with what it was made for, so
    /// each edit costs one plan, not two.
    baseline: Option<(String, Plan)>,
    /// The files' bytes that came with the message being handled (an `import`).
    inbox: Vec<Vec<u8>>,
    /// The history of the snapshots imported as `live` (an embedding page's stream), explained
    /// as they arrive (core's `watch::live`).
    live: Option<LiveHistory>,
    /// The phases of the last message handled, `(name, start, end)` on the clock `handle` was
    /// given: the browser's trace names them (`start` turns them into `performance.measure`s).
    pub spans: Vec<(&'static str, f64, f64)>,
}

fn stale(id: u32, version: u32) -> Option<Response> {
    (version != WORKER_PROTOCOL_VERSION).then(|| Response::Failed {
        id,
        message: format!(
            "request format_version {version} (this worker reads {WORKER_PROTOCOL_VERSION}): reload the page"
        ),
    })
}

impl WorkerState {
    /// Answers one message from the page: `post` receives each answer as it is ready; `now_ms`
    /// is the clock that throttles progress messages.
    pub fn handle(
        &mut self,
        text: &str,
        post: &mut dyn FnMut(Response),
        now_ms: &mut dyn FnMut() -> f64,
    ) {
        self.spans.clear();
        let request: Request<'static> = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => {
                post(Response::Failed {
                    id: 0,
                    message: format!("the worker could not read the request: {e}"),
                });
                return;
            }
        };
        match request {
            Request::Simulate(req) => {
                if let Some(r) = stale(req.id, req.format_version) {
                    post(r);
                    return;
                }
                let files = std::mem::take(&mut self.inbox);
                simulate(*req, files, post, now_ms);
            }
            Request::SnapshotFile(job) => {
                if let Some(r) = stale(job.id, job.format_version) {
                    post(r);
                    return;
                }
                post(self.snapshot_file(job.id, job.snapshot_id));
            }
            Request::Plan(job) => {
                if let Some(r) = stale(job.id, job.format_version) {
                    post(r);
                    return;
                }
                let answer = self.plan(*job, now_ms);
                post(answer);
            }
            Request::Explain(job) => {
                if let Some(r) = stale(job.id, job.format_version) {
                    post(r);
                    return;
                }
                let t = now_ms();
                let answer = self.explain(*job);
                self.spans.push(("worker: explain decision", t, now_ms()));
                post(answer);
            }
            Request::Rebalance(job) => {
                if let Some(r) = stale(job.id, job.format_version) {
                    post(r);
                    return;
                }
                let answer = self.rebalance(*job, post);
                post(answer);
            }
            Request::History(job) => {
                if let Some(r) = stale(job.id, job.format_version) {
                    post(r);
                    return;
                }
                let files = std::mem::take(&mut self.inbox);
                let answer = history(*job, files, post, now_ms);
                post(answer);
            }
            Request::Upgrade(job) => {
                if let Some(r) = stale(job.id, job.format_version) {
                    post(r);
                    return;
                }
                let files = std::mem::take(&mut self.inbox);
                let t = now_ms();
                let answer = upgrade(*job, files, post, now_ms);
                self.spans.push(("worker: upgrade preview", t, now_ms()));
                post(answer);
            }
            Request::Import(job) => {
                if let Some(r) = stale(job.id, job.format_version) {
                    post(r);
                    return;
                }
                let files = std::mem::take(&mut self.inbox);
                let t = now_ms();
                let (id, live) = (job.id, job.live && !job.restore);
                let imported = import_job::run(*job, files, post);
                self.spans.push(("worker: import and parts", t, now_ms()));
                if live && let Some((_, snapshot, _)) = &imported {
                    let t = now_ms();
                    let history = self.live.get_or_insert_with(|| {
                        LiveHistory::new(ExplainOptions::default(), DEFAULT_WINDOW_MS)
                    });
                    let result = history
                        .push(snapshot.clone())
                        .map(|()| Box::new(history.view()))
                        .map_err(|e| e.to_string());
                    self.spans.push(("worker: live history", t, now_ms()));
                    post(Response::LiveHistory { id, result });
                }
                if let Some((snapshot_id, snapshot, fingerprint)) = imported {
                    let mut engine = PlanEngine::with_fingerprint(
                        std::borrow::Cow::Owned(snapshot),
                        fingerprint,
                    );
                    // The leader's view is built now, while the page assembles the parts just
                    // posted, not in the first plan the page asks for once it has shown them
                    // (the same view: a plan rebuilds it only under another NIC override).
                    let t = now_ms();
                    engine.prepare();
                    self.spans.push(("worker: leader view built", t, now_ms()));
                    self.snapshot = Some((snapshot_id, engine));
                    self.baseline = None;
                }
            }
        }
    }

    /// Keeps the snapshot a job carries (as a new engine); the held engine when its snapshot is
    /// the one the job names.
    fn hold<'e>(
        held: &'e mut Option<(u64, PlanEngine<'static>)>,
        id: u32,
        snapshot_id: u64,
        sent: Option<std::borrow::Cow<'static, Snapshot>>,
    ) -> Result<&'e mut PlanEngine<'static>, Response> {
        if let Some(s) = sent {
            *held = Some((snapshot_id, PlanEngine::new(s.into_owned())));
        }
        match held {
            Some((sid, engine)) if *sid == snapshot_id => Ok(engine),
            _ => Err(Response::Failed {
                id,
                message: format!(
                    "the worker does not have snapshot {snapshot_id} (it was not sent)"
                ),
            }),
        }
    }

    /// The held snapshot `snapshot_id` as its file's bytes, written here (off the page's thread).
    fn snapshot_file(&self, id: u32, snapshot_id: u64) -> Response {
        let engine = match &self.snapshot {
            Some((sid, engine)) if *sid == snapshot_id => engine,
            _ => {
                return Response::Failed {
                    id,
                    message: format!("the worker does not have snapshot {snapshot_id}"),
                };
            }
        };
        match serde_json::to_vec(engine.snapshot()) {
            Ok(bytes) => Response::SnapshotFile {
                id,
                snapshot_id,
                bytes,
            },
            Err(e) => Response::Failed {
                id,
                message: format!("cannot write the snapshot: {e}"),
            },
        }
    }

    fn rebalance(
        &mut self,
        job: RebalanceJob<'static>,
        post: &mut dyn FnMut(Response),
    ) -> Response {
        let id = job.id;
        let goal = match Goal::parse(&job.goal) {
            Ok(g) => g,
            Err(e) => {
                return Response::Proposed {
                    id,
                    result: Err(e.to_string()),
                };
            }
        };
        // The fingerprint kept with the snapshot: not computed again per proposal.
        let (snapshot, fingerprint) =
            match Self::hold(&mut self.snapshot, id, job.snapshot_id, job.snapshot) {
                Ok(engine) => (engine.snapshot(), engine.fingerprint().to_string()),
                Err(r) => return r,
            };
        let request = RebalanceRequest {
            load_model: protocol::load_model(&job.cpu_cost_factors),
            goal,
            limits: job.limits,
            profile: job.profile,
            settings: job.settings,
            seed: job.seed,
            outlook_cycles: job.outlook_cycles,
            chosen_moves: job.chosen_moves,
            ..RebalanceRequest::new(goal)
        };
        // Phases: the search, each check, the final plan.
        let total = u32::try_from(request.max_checks)
            .unwrap_or(u32::MAX)
            .saturating_add(2);
        let mut done = 0u32;
        let result = propose_with_fingerprint(snapshot, &request, fingerprint, &mut |_, _, _| {
            done = done.saturating_add(1).min(total);
            post(Response::Progress { id, done, total });
        });
        Response::Proposed {
            id,
            result: result.map(Box::new).map_err(|e| e.to_string()),
        }
    }

    /// One decision's detail in the plan `job.plan` asks for, on the held engine.
    fn explain(&mut self, job: ExplainJob<'static>) -> Response {
        let id = job.id;
        let request = plan_request(&job.plan);
        let engine = match Self::hold(
            &mut self.snapshot,
            id,
            job.plan.snapshot_id,
            job.plan.snapshot,
        ) {
            Ok(engine) => engine,
            Err(r) => return r,
        };
        if engine.set_load_model(protocol::load_model(&job.plan.cpu_cost_factors)) {
            self.baseline = None;
        }
        let result = request.and_then(|req| {
            lbplan_core::plan::explain_decision(engine, &req, &job.decision)
                .map(|d| d.map(Box::new))
                .map_err(|e| e.to_string())
        });
        Response::DecisionExplained { id, result }
    }

    fn plan(&mut self, job: PlanJob<'static>, now_ms: &mut dyn FnMut() -> f64) -> Response {
        let id = job.id;
        let request = plan_request(&job);
        let engine = match Self::hold(&mut self.snapshot, id, job.snapshot_id, job.snapshot) {
            Ok(engine) => engine,
            Err(r) => return r,
        };
        // A calibration loaded or cleared: the kept baseline was predicted with the old model.
        if engine.set_load_model(protocol::load_model(&job.cpu_cost_factors)) {
            self.baseline = None;
        }
        let request = match request {
            Ok(r) => r,
            Err(e) => {
                return Response::Planned {
                    id,
                    result: Err(e),
                    diff: None,
                };
            }
        };
        let base_request = PlanRequest {
            operations: Vec::new(),
            ..request.clone()
        };
        let key = format!("{}:{base_request:?}", job.snapshot_id);
        let t = now_ms();
        let result = engine.plan(&request).map_err(|e| e.to_string());
        self.spans.push(("worker: plan", t, now_ms()));
        let edited = !request.operations.is_empty();
        if let (Ok(plan), false) = (&result, edited) {
            // The page's first what-if diffs against this plan: kept, it is not made again.
            self.baseline = Some((key.clone(), plan.clone()));
        }
        let t = now_ms();
        let diff = match (&result, job.diff_baseline && edited) {
            (Ok(plan), true) => {
                let cached = self
                    .baseline
                    .take()
                    .filter(|(k, _)| *k == key)
                    .map(|(_, b)| b);
                let baseline = match cached {
                    Some(b) => Some(b),
                    None => engine.plan(&base_request).ok(),
                };
                self.spans.push(("worker: baseline plan", t, now_ms()));
                let t = now_ms();
                let diff = baseline
                    .as_ref()
                    .and_then(|b| diff_plans(b, plan).ok())
                    .map(Box::new);
                if let Some(b) = baseline {
                    self.baseline = Some((key, b));
                }
                self.spans.push(("worker: diff", t, now_ms()));
                diff
            }
            _ => None,
        };
        Response::Planned {
            id,
            result: result.map(Box::new),
            diff,
        }
    }
}

/// The core request a plan job asks for (its operations parsed from their text).
fn plan_request(job: &PlanJob<'_>) -> Result<PlanRequest, String> {
    let operations = job
        .operations
        .iter()
        .map(|o| Operation::parse(o).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(PlanRequest {
        profile: job.profile,
        settings: job.settings.clone(),
        operations,
        seed: job.seed,
        leader_cycle: job.leader_cycle,
        outlook_cycles: job.outlook_cycles,
        explain: job.explain,
    })
}

/// The series' files: `job.files` names the bytes that came beside the request, in order, then
/// the Prometheus layout's (when `job.prometheus` names one), then the leader's logs'.
fn history(
    job: HistoryJob,
    bytes: Vec<Vec<u8>>,
    post: &mut dyn FnMut(Response),
    now_ms: &mut dyn FnMut() -> f64,
) -> Response {
    let id = job.id;
    let layouts = usize::from(job.prometheus.as_ref().is_some_and(|p| p.layout.is_some()));
    let expected = job.files.len() + layouts + job.leader_logs.len();
    if bytes.len() != expected {
        return Response::Explained {
            id,
            result: Err(format!(
                "the worker received {} file(s) for {expected} name(s): reload the page",
                bytes.len(),
            )),
        };
    }
    let mut bytes = bytes;
    let log_bytes = bytes.split_off(job.files.len() + layouts);
    let layout_bytes = bytes.split_off(job.files.len());
    let logs: Vec<(String, Vec<u8>)> = job.leader_logs.into_iter().zip(log_bytes).collect();
    let named: Vec<(String, Vec<u8>)> = job.files.into_iter().zip(bytes).collect();
    let opts = ExplainOptions {
        profile: job.profile,
        settings: job.settings,
        seed: job.seed,
        load_model: protocol::load_model(&job.cpu_cost_factors),
    };
    let mut builder = TimelineBuilder::new();
    let mut last = f64::NEG_INFINITY;
    let mut seen = |i: usize, total: usize, s: &lbplan_core::model::Snapshot| {
        builder.push(s);
        let t = now_ms();
        let done = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let total = u32::try_from(total).unwrap_or(u32::MAX);
        if t - last >= PROGRESS_INTERVAL_MS || done == total {
            last = t;
            post(Response::Progress { id, done, total });
        }
    };
    let result = match job.prometheus {
        Some(p) => explain_ranges(named, p, layout_bytes, &opts, &mut seen),
        // A zip is read member by member as the series needs them (core's `explain_uploaded`).
        None => explain_uploaded(named, &opts, &mut seen).map_err(|e| e.to_string()),
    };
    let result = result.and_then(|mut report| {
        if !logs.is_empty() {
            lbplan_core::history::leader_log::attach_files(
                &mut report,
                &logs,
                lbplan_core::history::leader_log::DEFAULT_CLOCK_TOLERANCE_MS,
            )
            .map_err(|e| e.to_string())?;
        }
        Ok(report)
    });
    Response::Explained {
        id,
        result: result.map(|report| {
            Box::new(HistoryView {
                report,
                timeline: builder.finish(),
            })
        }),
    }
}

/// Uploaded Prometheus range results explained (core's `history::prometheus::upload`), with the
/// layout snapshot read by the importer when one came.
fn explain_ranges(
    files: Vec<(String, Vec<u8>)>,
    upload: protocol::PrometheusUpload,
    layout_bytes: Vec<Vec<u8>>,
    opts: &ExplainOptions,
    seen: &mut dyn FnMut(usize, usize, &lbplan_core::model::Snapshot),
) -> Result<lbplan_core::history::HistoryReport, String> {
    use lbplan_core::history::prometheus::BrokerMapping;
    use lbplan_core::history::prometheus::upload::explain_uploaded_ranges_observed;
    let layout = match (upload.layout, layout_bytes.into_iter().next()) {
        (Some(name), Some(bytes)) => {
            let text = std::str::from_utf8(&bytes).map_err(|e| format!("{name}: {e}"))?;
            let imported =
                lbplan_core::import::read_snapshot(&name, text).map_err(|e| e.to_string())?;
            Some(imported.snapshot)
        }
        _ => None,
    };
    let mapping = BrokerMapping::new(upload.broker_label, upload.broker_map, layout.as_ref());
    explain_uploaded_ranges_observed(&files, layout, mapping, opts, seen).map_err(|e| e.to_string())
}

/// What a job's snapshot is called in messages when it came as a file.
const SENT_SNAPSHOT: &str = "the loaded snapshot";

/// The request's snapshot, or the one file sent beside it (read by the importer's snapshot reader).
fn simulated_snapshot(
    snapshot: Option<std::borrow::Cow<'_, Snapshot>>,
    files: Vec<Vec<u8>>,
) -> Result<std::borrow::Cow<'_, Snapshot>, String> {
    if let Some(s) = snapshot {
        return Ok(s);
    }
    sent_snapshot("a simulation", files).map(std::borrow::Cow::Owned)
}

/// The one file sent beside a `what` request: the snapshot's file the plan worker wrote.
fn sent_snapshot(what: &str, files: Vec<Vec<u8>>) -> Result<Snapshot, String> {
    let [bytes] = <[Vec<u8>; 1]>::try_from(files)
        .map_err(|f| format!("{what} needs its snapshot: {} file(s) came", f.len()))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| format!("{SENT_SNAPSHOT}: {e}"))?;
    lbplan_core::import::read_snapshot(SENT_SNAPSHOT, text)
        .map(|i| i.snapshot)
        .map_err(|e| e.to_string())
}

/// The upgrade preview of the snapshot sent beside the request, with progress per plan and per
/// simulated cycle (throttled like a simulation's).
fn upgrade(
    job: UpgradeJob,
    files: Vec<Vec<u8>>,
    post: &mut dyn FnMut(Response),
    now_ms: &mut dyn FnMut() -> f64,
) -> Response {
    let id = job.id;
    let total = upgrade_steps(job.cycles);
    // Reading a large snapshot takes a while: the page shows the steps from here.
    post(Response::Progress { id, done: 0, total });
    let snapshot = match sent_snapshot("an upgrade preview", files) {
        Ok(s) => s,
        Err(message) => {
            return Response::Upgraded {
                id,
                result: Err(message),
            };
        }
    };
    let mut last = now_ms();
    let result = upgrade_preview_with_progress(
        &snapshot,
        job.profile,
        job.to,
        job.cycles,
        &mut |done, total| {
            let t = now_ms();
            // Each plan is a step worth showing; cycles are throttled.
            if done <= 2 || t - last >= PROGRESS_INTERVAL_MS || done == total {
                last = t;
                post(Response::Progress { id, done, total });
            }
        },
    );
    Response::Upgraded {
        id,
        result: result.map(Box::new).map_err(|e| e.to_string()),
    }
}

fn simulate(
    req: SimulateRequest<'_>,
    files: Vec<Vec<u8>>,
    post: &mut dyn FnMut(Response),
    now_ms: &mut dyn FnMut() -> f64,
) {
    let id = req.id;
    let snapshot = match simulated_snapshot(req.snapshot, files) {
        Ok(s) => s,
        Err(message) => {
            post(Response::Failed { id, message });
            return;
        }
    };
    let opts = RunOptions {
        cycles: req.cycles,
        seed: req.seed,
        record_broker_usage: req.record_broker_usage,
        record_ownership: req.record_ownership,
    };
    let mut last = f64::NEG_INFINITY;
    let result = compare(
        &snapshot,
        &req.scenario,
        &req.configs,
        opts,
        &mut |done, total| {
            let t = now_ms();
            if t - last >= PROGRESS_INTERVAL_MS || done == total {
                last = t;
                post(Response::Progress { id, done, total });
            }
            true
        },
    );
    post(match result {
        Ok(comparison) => Response::Done { id, comparison },
        Err(e) => Response::Failed {
            id,
            message: e.to_string(),
        },
    });
}

/// Installs the message handler in the worker and tells the page it is ready.
#[cfg(target_arch = "wasm32")]
pub fn start() {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;

    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let poster = scope.clone();
    let post = move |r: Response| {
        let t = trace::now_ms();
        let _encoded = trace::Span("worker: answer encode and post", t);
        if let Response::SnapshotFile { bytes, .. } = &r {
            // The bytes go as a transferred buffer beside the header: moved, not copied again.
            let buffer = js_sys::Uint8Array::from(bytes.as_slice()).buffer();
            let message = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&message, &"header".into(), &r.to_json().into());
            let _ = js_sys::Reflect::set(&message, &"bytes".into(), &buffer);
            let _ = poster.post_message_with_transfer(&message, &js_sys::Array::of1(&buffer));
            return;
        }
        if r.travels_as_bytes() {
            let post_bytes = |text: &str| {
                let buffer = js_sys::Uint8Array::from(text.as_bytes()).buffer();
                let _ = poster.post_message_with_transfer(&buffer, &js_sys::Array::of1(&buffer));
            };
            // A plan goes in parts, each decoded in its own task on the page (`plan_parts`).
            match plan_parts::plan_messages(r, plan_parts::PLAN_PART_BYTES) {
                Ok(messages) => messages.iter().for_each(|m| post_bytes(m)),
                Err(r) => post_bytes(&r.to_json()),
            }
            return;
        }
        let _ = poster.post_message(&r.to_json().into());
    };
    let mut state = WorkerState::default();
    let onmessage =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let t = trace::now_ms();
            match import_job::receive(&e.data()) {
                Ok((text, files)) => {
                    trace::measure("worker: request read", t, trace::now_ms());
                    state.handle_with_files(&text, files, &mut post.clone(), &mut trace::now_ms);
                }
                Err(message) => post(Response::Failed { id: 0, message }),
            }
            for (name, start, end) in state.spans.drain(..) {
                trace::measure(name, start, end);
            }
        });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    onmessage.forget();
    let _ = scope.post_message(
        &Response::Ready {
            format_version: WORKER_PROTOCOL_VERSION,
        }
        .to_json()
        .into(),
    );
}

/// The worker's phases as `performance.measure`s, so a DevTools trace of the page names where a
/// plan's time went (the page's `page_trace` does the same on its side).
#[cfg(target_arch = "wasm32")]
mod trace {
    use wasm_bindgen::{JsCast, JsValue};

    fn performance() -> Option<JsValue> {
        js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok()
    }

    fn call(target: &JsValue, name: &str, args: &[JsValue]) -> Option<JsValue> {
        let f = js_sys::Reflect::get(target, &name.into())
            .ok()?
            .dyn_into::<js_sys::Function>()
            .ok()?;
        f.apply(target, &args.iter().collect::<js_sys::Array>())
            .ok()
    }

    /// `performance.now()`: the clock measures are on (progress throttling reads it too).
    pub fn now_ms() -> f64 {
        performance()
            .and_then(|p| call(&p, "now", &[]))
            .and_then(|v| v.as_f64())
            .unwrap_or_else(js_sys::Date::now)
    }

    pub fn measure(name: &str, start: f64, end: f64) {
        let Some(p) = performance() else { return };
        let options = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&options, &"start".into(), &JsValue::from_f64(start));
        let _ = js_sys::Reflect::set(&options, &"end".into(), &JsValue::from_f64(end));
        let _ = call(&p, "measure", &[name.into(), options.into()]);
    }

    /// Measures from its start to its drop.
    pub struct Span(pub &'static str, pub f64);

    impl Drop for Span {
        fn drop(&mut self) {
            measure(self.0, self.1, now_ms());
        }
    }
}

/// Outside a browser there is no worker to serve.
#[cfg(not(target_arch = "wasm32"))]
pub fn start() {
    eprintln!(
        "lbplan-worker runs inside the dashboard's Web Worker (built by trunk from index.html)"
    );
}

#[cfg(test)]
mod tests;
