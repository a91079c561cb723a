//! The page's side of the plan worker (`lbplan-worker`), used for large snapshots so a plan never
//! freezes the page: one long-lived worker per planner, messages queued until it is ready, the
//! snapshot sent once per loaded snapshot (the worker keeps it), answers turned into
//! [`PlanAnswer`]s. Large uploads are imported by this worker ([`PlanWorker::send_import`]: the
//! files go as `Blob` handles), which then holds the snapshot without the page sending it; the
//! snapshot's parts are decoded here, one per message (one task each), into [`ImportAnswer`]s.
//! A worker that dies is marked dead; the next job starts a new one.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use lbplan_core::plan::Plan;
use lbplan_core::plan::diff::PlanDiff;
use lbplan_core::rebalance::Proposal;
use lbplan_core::view::snapshot_chunks::SnapshotChunk;
use lbplan_worker::protocol::{Response, SnapshotPart, WORKER_PROTOCOL_VERSION};
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use yew::Callback;

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

/// What the page hears about a rebalance job (the same worker answers both kinds).
#[derive(Clone, Debug, PartialEq)]
pub enum RebalanceAnswer {
    /// `done` of `total` phases (search, checks against the leader, final plan).
    Progress { id: u32, done: u32, total: u32 },
    Proposed {
        id: u32,
        result: Result<Box<Proposal>, String>,
    },
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
    /// A part that could not be read.
    Failed { message: String },
}

pub struct PlanWorker {
    worker: web_sys::Worker,
    ready: Rc<Cell<bool>>,
    dead: Rc<Cell<bool>>,
    queue: Rc<RefCell<Vec<JsValue>>>,
    on_import: Rc<RefCell<Option<Callback<ImportAnswer>>>>,
    /// The loaded snapshot the worker holds.
    snapshot_id: Cell<Option<u64>>,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl PlanWorker {
    pub fn start(url: &str, on_answer: Callback<PlanAnswer>) -> Result<PlanWorker, String> {
        Self::start_with(url, on_answer, None)
    }

    /// [`PlanWorker::start`], also relaying rebalance answers to `on_rebalance`.
    pub fn start_with(
        url: &str,
        on_answer: Callback<PlanAnswer>,
        on_rebalance: Option<Callback<RebalanceAnswer>>,
    ) -> Result<PlanWorker, String> {
        let worker = web_sys::Worker::new(url)
            .map_err(|e| format!("cannot start the plan worker ({url}): {e:?}"))?;
        let ready = Rc::new(Cell::new(false));
        let dead = Rc::new(Cell::new(false));
        let queue: Rc<RefCell<Vec<JsValue>>> = Rc::default();
        let on_import: Rc<RefCell<Option<Callback<ImportAnswer>>>> = Rc::default();
        let onmessage = {
            let (worker, ready, queue, answers, imports) = (
                worker.clone(),
                ready.clone(),
                queue.clone(),
                on_answer.clone(),
                on_import.clone(),
            );
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let text = e.data().as_string().unwrap_or_default();
                let import = |a: ImportAnswer| {
                    if let Some(cb) = imports.borrow().as_ref() {
                        cb.emit(a);
                    }
                };
                // Parts first: decoded here, in this message's own task.
                if let Some(part) = SnapshotPart::read(&text) {
                    import(match part {
                        Ok(p) => ImportAnswer::Part {
                            id: p.id,
                            chunk: Box::new(p.chunk),
                        },
                        Err(message) => ImportAnswer::Failed { message },
                    });
                    return;
                }
                match serde_json::from_str::<Response>(&text) {
                    Ok(Response::Ready { format_version }) if format_version == WORKER_PROTOCOL_VERSION => {
                        ready.set(true);
                        for m in queue.borrow_mut().drain(..) {
                            let _ = worker.post_message(&m);
                        }
                    }
                    Ok(Response::Imported { id, result, .. }) => {
                        import(ImportAnswer::Imported { id, result })
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
                    Ok(Response::Failed { id, message }) => {
                        answers.emit(PlanAnswer::Failed { id, message })
                    }
                    Ok(Response::Progress { id, done, total }) => {
                        if let Some(r) = &on_rebalance {
                            r.emit(RebalanceAnswer::Progress { id, done, total });
                        }
                    }
                    Ok(Response::Proposed { id, result }) => {
                        if let Some(r) = &on_rebalance {
                            r.emit(RebalanceAnswer::Proposed { id, result });
                        }
                    }
                    Ok(_) => {}
                    Err(err) => answers.emit(PlanAnswer::Failed {
                        id: 0,
                        message: format!("unreadable answer from the plan worker: {err}"),
                    }),
                }
            })
        };
        let onerror = {
            let dead = dead.clone();
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
                e.prevent_default();
                dead.set(true);
                let what = e.message();
                on_answer.emit(PlanAnswer::Failed {
                    id: 0,
                    message: if what.is_empty() {
                        "the plan worker stopped (it could not load, or ran out of memory)"
                            .to_string()
                    } else {
                        format!("the plan worker stopped: {what}")
                    },
                });
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

    /// Sends a `protocol::Request::Import` (JSON) with its files as `Blob` handles (the worker
    /// reads them; the page copies nothing); the worker then holds snapshot `snapshot_id`.
    pub fn send_import(&self, text: String, blobs: &[web_sys::Blob], snapshot_id: u64) {
        let files = js_sys::Array::new();
        for b in blobs {
            files.push(b);
        }
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"request".into(), &text.into());
        let _ = js_sys::Reflect::set(&message, &"files".into(), &files);
        self.snapshot_id.set(Some(snapshot_id));
        self.post(message.into());
    }

    fn post(&self, message: JsValue) {
        if self.ready.get() {
            let _ = self.worker.post_message(&message);
        } else {
            self.queue.borrow_mut().push(message);
        }
    }
}

impl Drop for PlanWorker {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
