//! The page's side of the plan worker (`lbplan-worker`), used for large snapshots so a plan never
//! freezes the page: one long-lived worker per planner, messages queued until it is ready, the
//! snapshot sent once per loaded snapshot (the worker keeps it), answers turned into
//! [`PlanAnswer`]s. Large uploads are imported by this worker ([`PlanWorker::send_import`]: the
//! files go as `Blob` handles, `worker_files`), which then holds the snapshot without the page sending it; the
//! snapshot's parts are decoded here, one per message (one task each), into [`ImportAnswer`]s.
//! Parts, plans and proposals arrive as their JSON's bytes in a transferred `ArrayBuffer`
//! (`Response::travels_as_bytes`), read without a JavaScript string in between; a plan's rows
//! arrive in parts ahead of it (`lbplan_worker::plan_parts`), one task each, and are joined here.
//! Every snapshot is imported by this worker (`worker_import`), so it holds the loaded one; a
//! simulation gets it from here as its file's bytes ([`PlanWorker::ask_snapshot_file`]: written
//! in the worker, handed over in a transferred `ArrayBuffer`). Job ids are numbered in ranges per
//! kind (plans from 1, [`FIRST_REBALANCE_ID`], [`FIRST_FILE_ID`], [`FIRST_EXPLAIN_ID`], imports
//! from `0x8000_0000`) so a
//! failure reaches the one who asked. A worker that dies is marked dead; the next job starts a new
//! one.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use lbplan_core::plan::diff::PlanDiff;
use lbplan_core::plan::{DecisionDetail, DecisionRef, Plan, PlanRequest};
use lbplan_core::rebalance::Proposal;
use lbplan_core::view::snapshot_chunks::SnapshotChunk;
use lbplan_core::watch::live::LiveView;
use lbplan_worker::lists_apart::ListsPart;
use lbplan_worker::plan_parts::{PlanAssembly, PlanRows, PlannedHead};
use lbplan_worker::protocol::{
    ExplainJob, ListsMessage, PlanJob, Request, Response, SNAPSHOT_FILE_TYPE, SnapshotFileJob,
    SnapshotPart, WORKER_PROTOCOL_VERSION,
};
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use yew::Callback;

use crate::worker_files::{self, Body};

/// What the page hears about a plan job.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanAnswer {
    Planned {
        id: u32,
        result: Result<Box<Plan>, String>,
        /// What the edits change against the plan without them (asked with every edited job).
        diff: Option<Box<PlanDiff>>,
    },
    /// The worker could not run the job (or died): `id` 0 when no job is named.
    Failed { id: u32, message: String },
}

/// Rebalance jobs are numbered from here (plan jobs from 1).
pub const FIRST_REBALANCE_ID: u32 = 0x4000_0000;
/// Requests for the snapshot's file are numbered from here.
pub const FIRST_FILE_ID: u32 = 0x6000_0000;

/// Requests for one decision's detail are numbered from here (to `0x8000_0000`).
pub const FIRST_EXPLAIN_ID: u32 = 0x7000_0000;

/// One decision's detail as the worker gives it (`None`: no such decision), or why not.
pub type Explanation = Result<Option<DecisionDetail>, String>;

/// What the page hears about a rebalance job (the same worker answers both kinds).
#[derive(Clone, Debug, PartialEq)]
pub enum RebalanceAnswer {
    /// `done` of `total` phases (search, checks against the leader, final plan).
    Progress { id: u32, done: u32, total: u32 },
    Proposed {
        id: u32,
        result: Result<Box<Proposal>, String>,
    },
    /// The job could not run (`id` 0: the worker died).
    Failed { id: u32, message: String },
}

/// The snapshot's file as the worker wrote it, or why not.
pub type SnapshotFile = Result<js_sys::ArrayBuffer, String>;

thread_local! {
    static NEXT_FILE_ID: Cell<u32> = const { Cell::new(FIRST_FILE_ID) };
    static NEXT_EXPLAIN_ID: Cell<u32> = const { Cell::new(FIRST_EXPLAIN_ID) };
}

/// The next id of a range `[first, end)`, wrapping.
fn next_id(counter: &'static std::thread::LocalKey<Cell<u32>>, first: u32, end: u32) -> u32 {
    counter.with(|n| {
        let id = n.get();
        n.set(if id.wrapping_add(1) >= end {
            first
        } else {
            id + 1
        });
        id
    })
}

/// Messages (with their transfer lists) waiting for the worker to be ready.
type Queue = Rc<RefCell<Vec<(JsValue, Option<js_sys::Array>)>>>;

/// Who waits for which snapshot file.
type FileWaiters = Rc<RefCell<Vec<(u32, Callback<SnapshotFile>)>>>;

/// Who waits for which decision's detail.
type ExplainWaiters = Rc<RefCell<Vec<(u32, Callback<Explanation>)>>>;

fn take_waiter<T>(waiters: &Rc<RefCell<Vec<(u32, T)>>>, id: u32) -> Option<T> {
    let mut w = waiters.borrow_mut();
    let k = w.iter().position(|(i, _)| *i == id)?;
    Some(w.swap_remove(k).1)
}

/// What the page hears about an import in the worker.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportAnswer {
    /// The import's warnings, or why it failed.
    Imported {
        id: u32,
        result: Result<Vec<String>, String>,
    },
    /// The next part of the imported snapshot, decoded.
    Part { id: u32, chunk: Box<SnapshotChunk> },
    /// Some of the namespaces or of a broker's bundle lists, decoded (`lbplan_worker::lists_apart`):
    /// they join the snapshot once it is assembled.
    ListsPart { id: u32, part: Box<ListsPart> },
    /// A part that could not be read.
    Failed { message: String },
    /// The worker's live history after a `live` import (`pushSnapshot`), or why the snapshot
    /// did not join it.
    Live {
        id: u32,
        result: Result<Box<LiveView>, String>,
    },
}

pub struct PlanWorker {
    worker: web_sys::Worker,
    ready: Rc<Cell<bool>>,
    dead: Rc<Cell<bool>>,
    queue: Queue,
    on_import: Rc<RefCell<Option<Callback<ImportAnswer>>>>,
    on_rebalance: Rc<RefCell<Option<Callback<RebalanceAnswer>>>>,
    files: FileWaiters,
    explains: ExplainWaiters,
    /// The loaded snapshot the worker holds.
    snapshot_id: Cell<Option<u64>>,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl PlanWorker {
    pub fn start(url: &str, on_answer: Callback<PlanAnswer>) -> Result<PlanWorker, String> {
        let worker = web_sys::Worker::new(url)
            .map_err(|e| format!("cannot start the plan worker ({url}): {e:?}"))?;
        let ready = Rc::new(Cell::new(false));
        let dead = Rc::new(Cell::new(false));
        let queue: Queue = Rc::default();
        let on_import: Rc<RefCell<Option<Callback<ImportAnswer>>>> = Rc::default();
        let on_rebalance: Rc<RefCell<Option<Callback<RebalanceAnswer>>>> = Rc::default();
        let files: FileWaiters = Rc::default();
        let explains: ExplainWaiters = Rc::default();
        let onmessage = {
            let assembly = RefCell::new(PlanAssembly::default());
            let explains = explains.clone();
            let (worker, ready, queue, answers, imports, rebalance, files) = (
                worker.clone(),
                ready.clone(),
                queue.clone(),
                on_answer.clone(),
                on_import.clone(),
                on_rebalance.clone(),
                files.clone(),
            );
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let t = crate::page_trace::start();
                let data = e.data();
                // Large answers come as their JSON's bytes (`Response::travels_as_bytes`).
                let bytes = match data.dyn_ref::<js_sys::ArrayBuffer>() {
                    Some(buffer) => Some(js_sys::Uint8Array::new(buffer).to_vec()),
                    None => data.as_string().map(String::into_bytes),
                };
                crate::page_trace::measure("worker message: bytes", t);
                let Some(bytes) = bytes else {
                    // The snapshot's file: a header and a transferred buffer.
                    answer_file(&files, &data);
                    return;
                };
                let import = |a: ImportAnswer| {
                    if let Some(cb) = imports.borrow().as_ref() {
                        cb.emit(a);
                    }
                };
                let on_rebalance = |a: RebalanceAnswer| {
                    if let Some(cb) = rebalance.borrow().as_ref() {
                        cb.emit(a);
                    }
                };
                // Parts first: decoded here, in this message's own task.
                let t = crate::page_trace::start();
                if let Some(part) = SnapshotPart::read_bytes(&bytes) {
                    crate::page_trace::measure("snapshot part: decode", t);
                    let t = crate::page_trace::start();
                    import(match part {
                        Ok(p) => ImportAnswer::Part {
                            id: p.id,
                            chunk: Box::new(p.chunk),
                        },
                        Err(message) => ImportAnswer::Failed { message },
                    });
                    crate::page_trace::measure("snapshot part: assemble", t);
                    return;
                }
                let t = crate::page_trace::start();
                if let Some(part) = ListsMessage::read_bytes(&bytes) {
                    crate::page_trace::measure("lists apart: decode", t);
                    import(match part {
                        Ok(m) => ImportAnswer::ListsPart {
                            id: m.id,
                            part: Box::new(m.part),
                        },
                        Err(message) => ImportAnswer::Failed { message },
                    });
                    return;
                }
                // A plan's rows come in parts ahead of it, each decoded in its own task; the
                // `planned` message then gets them back (`plan_parts`).
                let t = crate::page_trace::start();
                if let Some(part) = PlanRows::read_bytes(&bytes) {
                    match part {
                        Ok(part) => assembly.borrow_mut().add(part),
                        Err(message) => answers.emit(PlanAnswer::Failed { id: 0, message }),
                    }
                    crate::page_trace::measure("plan part: decode", t);
                    return;
                }
                let response = match PlannedHead::read_bytes(&bytes) {
                    Some(Ok(head)) => Ok(assembly.borrow_mut().finish(head)),
                    Some(Err(message)) => {
                        answers.emit(PlanAnswer::Failed { id: 0, message });
                        return;
                    }
                    None => serde_json::from_slice::<Response>(&bytes),
                };
                crate::page_trace::measure("worker answer: decode", t);
                drop(bytes);
                let t = crate::page_trace::start();
                match response {
                    Ok(Response::Ready { format_version }) if format_version == WORKER_PROTOCOL_VERSION => {
                        ready.set(true);
                        for (m, transfer) in queue.borrow_mut().drain(..) {
                            let _ = match transfer {
                                Some(t) => worker.post_message_with_transfer(&m, &t),
                                None => worker.post_message(&m),
                            };
                        }
                    }
                    Ok(Response::Imported { id, result, .. }) => {
                        import(ImportAnswer::Imported { id, result })
                    }
                    Ok(Response::LiveHistory { id, result }) => {
                        import(ImportAnswer::Live { id, result })
                    }
                    Ok(Response::Ready { format_version }) => answers.emit(PlanAnswer::Failed {
                        id: 0,
                        message: format!(
                            "the worker speaks format_version {format_version}, the page {WORKER_PROTOCOL_VERSION}: reload the page"
                        ),
                    }),
                    Ok(Response::Planned { id, result, diff }) => {
                        answers.emit(PlanAnswer::Planned { id, result, diff })
                    }
                    Ok(Response::DecisionExplained { id, result }) => {
                        if let Some(cb) = take_waiter(&explains, id) {
                            cb.emit(result.map(|d| d.map(|d| *d)));
                        }
                    }
                    Ok(Response::Failed { id, message }) => {
                        if let Some(cb) = take_waiter(&explains, id) {
                            cb.emit(Err(message));
                        } else if let Some(cb) = take_waiter(&files, id) {
                            cb.emit(Err(message));
                        } else if (FIRST_REBALANCE_ID..FIRST_FILE_ID).contains(&id) {
                            on_rebalance(RebalanceAnswer::Failed { id, message });
                        } else {
                            answers.emit(PlanAnswer::Failed { id, message });
                        }
                    }
                    Ok(Response::Progress { id, done, total }) => {
                        on_rebalance(RebalanceAnswer::Progress { id, done, total });
                    }
                    Ok(Response::Proposed { id, result }) => {
                        on_rebalance(RebalanceAnswer::Proposed { id, result });
                    }
                    Ok(_) => {}
                    Err(err) => answers.emit(PlanAnswer::Failed {
                        id: 0,
                        message: format!("unreadable answer from the plan worker: {err}"),
                    }),
                }
                crate::page_trace::measure("worker answer: handle", t);
            })
        };
        let onerror = {
            let (dead, rebalance, files) = (dead.clone(), on_rebalance.clone(), files.clone());
            let explains = explains.clone();
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
                e.prevent_default();
                dead.set(true);
                let what = e.message();
                let message = if what.is_empty() {
                    "the plan worker stopped (it could not load, or ran out of memory)".to_string()
                } else {
                    format!("the plan worker stopped: {what}")
                };
                // Everyone waiting on this worker hears it.
                for (_, cb) in files.borrow_mut().drain(..) {
                    cb.emit(Err(message.clone()));
                }
                for (_, cb) in explains.borrow_mut().drain(..) {
                    cb.emit(Err(message.clone()));
                }
                if let Some(cb) = rebalance.borrow().as_ref() {
                    cb.emit(RebalanceAnswer::Failed {
                        id: 0,
                        message: message.clone(),
                    });
                }
                on_answer.emit(PlanAnswer::Failed { id: 0, message });
            })
        };
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        Ok(PlanWorker {
            worker,
            ready,
            dead,
            queue,
            on_import,
            on_rebalance,
            files,
            explains,
            snapshot_id: Cell::new(None),
            _onmessage: onmessage,
            _onerror: onerror,
        })
    }

    pub fn is_dead(&self) -> bool {
        self.dead.get()
    }

    /// Whether the worker already holds loaded snapshot `id`.
    pub fn has_snapshot(&self, id: u64) -> bool {
        self.snapshot_id.get() == Some(id)
    }

    /// Sends a `protocol::Request::Plan` (JSON) about snapshot `snapshot_id`.
    pub fn send(&self, text: String, snapshot_id: u64) {
        self.snapshot_id.set(Some(snapshot_id));
        self.post(text.into());
    }

    /// Where import answers go (one import at a time per worker).
    pub fn set_on_import(&self, cb: Callback<ImportAnswer>) {
        *self.on_import.borrow_mut() = Some(cb);
    }

    /// Where rebalance answers go (the Rebalance panel that asks).
    pub fn set_on_rebalance(&self, cb: Callback<RebalanceAnswer>) {
        *self.on_rebalance.borrow_mut() = Some(cb);
    }

    /// Sends a `protocol::Request::Import` (JSON) with its files beside it (`worker_files`); the
    /// worker then holds snapshot `snapshot_id`.
    pub fn send_import(&self, text: String, files: &[Body], snapshot_id: u64) {
        let (message, transfer) = worker_files::message(text, files);
        self.snapshot_id.set(Some(snapshot_id));
        self.post_with(message, (transfer.length() > 0).then_some(transfer));
    }

    /// Asks the worker for the snapshot it holds (`snapshot_id`) as its file's bytes; `answer`
    /// gets them in an `ArrayBuffer` the page can transfer on, or why not. `Err` at once when the
    /// worker does not hold it.
    pub fn ask_snapshot_file(&self, snapshot_id: u64, answer: Callback<SnapshotFile>) {
        if !self.has_snapshot(snapshot_id) || self.is_dead() {
            answer.emit(Err(format!(
                "the plan worker does not hold snapshot {snapshot_id}"
            )));
            return;
        }
        let id = next_id(&NEXT_FILE_ID, FIRST_FILE_ID, FIRST_EXPLAIN_ID);
        let request = Request::SnapshotFile(Box::new(SnapshotFileJob {
            format_version: WORKER_PROTOCOL_VERSION,
            id,
            snapshot_id,
        }));
        match serde_json::to_string(&request) {
            Ok(text) => {
                self.files.borrow_mut().push((id, answer));
                self.post(text.into());
            }
            Err(e) => answer.emit(Err(e.to_string())),
        }
    }

    /// Asks the worker for the detail of decision `which` in the plan `request` asks of snapshot
    /// `snapshot_id` (a plan it made at `explain: summary`); `answer` gets it, or why not. `Err` at
    /// once when the worker does not hold the snapshot.
    pub fn ask_explanation(
        &self,
        snapshot_id: u64,
        request: &PlanRequest,
        which: DecisionRef,
        answer: Callback<Explanation>,
    ) {
        if !self.has_snapshot(snapshot_id) || self.is_dead() {
            answer.emit(Err(format!(
                "the plan worker does not hold snapshot {snapshot_id}"
            )));
            return;
        }
        let id = next_id(&NEXT_EXPLAIN_ID, FIRST_EXPLAIN_ID, 0x8000_0000);
        let request = Request::Explain(Box::new(ExplainJob {
            format_version: WORKER_PROTOCOL_VERSION,
            id,
            decision: which,
            plan: PlanJob::new(id, snapshot_id, None, request),
        }));
        match serde_json::to_string(&request) {
            Ok(text) => {
                self.explains.borrow_mut().push((id, answer));
                self.post(text.into());
            }
            Err(e) => answer.emit(Err(e.to_string())),
        }
    }

    fn post(&self, message: JsValue) {
        self.post_with(message, None);
    }

    fn post_with(&self, message: JsValue, transfer: Option<js_sys::Array>) {
        if self.ready.get() {
            let _ = match &transfer {
                Some(t) => self.worker.post_message_with_transfer(&message, t),
                None => self.worker.post_message(&message),
            };
        } else {
            self.queue.borrow_mut().push((message, transfer));
        }
    }
}

/// A `snapshot_file` message (`{header, bytes}`) to whoever asked for it.
fn answer_file(files: &FileWaiters, data: &JsValue) {
    let field = |k: &str| js_sys::Reflect::get(data, &k.into()).ok();
    let header = field("header")
        .and_then(|h| h.as_string())
        .unwrap_or_default();
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&header) else {
        return;
    };
    if v.get("type").and_then(|t| t.as_str()) != Some(SNAPSHOT_FILE_TYPE) {
        return;
    }
    let id = v
        .get("id")
        .and_then(serde_json::Value::as_u64)
        .and_then(|i| u32::try_from(i).ok())
        .unwrap_or(0);
    if let Some(cb) = take_waiter(files, id) {
        cb.emit(
            field("bytes")
                .and_then(|b| b.dyn_into::<js_sys::ArrayBuffer>().ok())
                .ok_or_else(|| "the snapshot file came without its bytes".to_string()),
        );
    }
}

impl Drop for PlanWorker {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
