//! The page's side of the one import path: every snapshot (uploads of any size, the demo,
//! `?snapshot=URL`, host-given text, a snapshot kept by an older dashboard) is imported in the plan
//! worker. The files go with a `protocol::Request::Import` as `Blob` handles (`worker_files`;
//! host-given text: encoded once into a `Blob`);
//! the worker imports them (core), keeps the snapshot for its plans, and sends it back in
//! `view::snapshot_chunks` parts, each decoded in its own message task (`plan_client`) and
//! assembled here, with a progress bar between them, so no step on the page is long. When every
//! part came the store gets the `Loaded` under the id the worker holds it by, so plans never send
//! the snapshot. Keeping it across reloads keeps the files themselves (`persist::save_upload`).
//! The shown snapshot's file handles stay here too: a plan worker started after the last one died
//! is given them again ([`WorkerImports::hold`], a `restore` import), so no job ever needs the
//! page to serialise its snapshot.

use std::cell::RefCell;
use std::rc::Rc;

use lbplan_core::view::snapshot_chunks::Assembler;
use lbplan_worker::lists_apart::ListsApart;
use lbplan_worker::protocol::{ImportJob, Request, WORKER_PROTOCOL_VERSION};
use yew::{AttrValue, Callback, UseReducerDispatcher, UseStateHandle};

use crate::loader::Picked;
use crate::persist::{self, KeptUpload};
use crate::plan_client::{ImportAnswer, PlanAnswer, PlanWorker};
use crate::state::{Action, AppState, Loaded, next_loaded_id};
use crate::worker_files::Body;

/// Parts of a quarter MiB: on a loaded 2-core machine a 1 MiB part (core's default) took 50–130 ms
/// to decode on the page, a long task each.
pub const PART_BYTES: usize = 256 * 1024;

/// Import jobs are numbered from here, apart from plan jobs (numbered from 1).
const FIRST_IMPORT_ID: u32 = 0x8000_0000;

thread_local! {
    static NEXT_IMPORT_ID: std::cell::Cell<u32> = const { std::cell::Cell::new(FIRST_IMPORT_ID) };
}

fn next_import_id() -> u32 {
    NEXT_IMPORT_ID.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1).max(FIRST_IMPORT_ID));
        id
    })
}

/// Where an import's progress goes: the progress bar's own state, so a moving bar re-renders the
/// bar alone (as the app's state, each percent re-rendered the whole app: 50–110 ms tasks while
/// the parts arrived at 40,000 bundles). Keeps the last value for a bar mounted later.
#[derive(Clone, Default)]
pub struct ProgressSink(Rc<RefCell<ProgressSlot>>);

/// (entries received, entries in all) of the snapshot arriving, and the bar listening.
type ProgressSlot = (
    Option<(usize, usize)>,
    Option<Callback<Option<(usize, usize)>>>,
);

impl PartialEq for ProgressSink {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}

impl ProgressSink {
    pub fn set(&self, progress: Option<(usize, usize)>) {
        let listener = {
            let mut slot = self.0.borrow_mut();
            slot.0 = progress;
            slot.1.clone()
        };
        if let Some(cb) = listener {
            cb.emit(progress);
        }
    }

    pub fn get(&self) -> Option<(usize, usize)> {
        self.0.borrow().0
    }

    /// The bar that shows the progress from now on (`None`: it went away).
    pub fn listen(&self, listener: Option<Callback<Option<(usize, usize)>>>) {
        self.0.borrow_mut().1 = listener;
    }
}

/// One file for the worker to import.
pub struct ImportFile {
    pub name: String,
    pub in_tree: bool,
    pub body: Body,
}

impl From<Picked> for ImportFile {
    fn from(p: Picked) -> Self {
        Self {
            name: p.name,
            in_tree: p.in_tree,
            body: Body::Blob(p.blob),
        }
    }
}

impl ImportFile {
    /// Text the page was given (a host's snapshot), as a `Blob` the worker reads.
    pub fn text(name: &str, text: &str) -> Result<Self, String> {
        Ok(Self {
            name: name.to_string(),
            in_tree: false,
            body: Body::text(text)?,
        })
    }
}

/// The files a snapshot was imported from, as the worker was sent them: what a new plan worker
/// imports again to hold the snapshot the page shows.
#[derive(Clone)]
struct Held {
    snapshot_id: u64,
    files: Vec<(String, bool)>,
    bodies: Vec<Body>,
    kept: bool,
}

/// How an import is asked for besides its files.
pub struct ImportRequest {
    /// What the page calls it (file names, URL, "snapshot (from the host page)").
    pub label: String,
    /// Keep the edit history (restoring a session) rather than starting a new one.
    pub keep_session: bool,
    /// The storage prefix to keep the files under (only `Blob`s are kept).
    pub keep: Option<String>,
    /// The one file is a snapshot kept by an older dashboard (`ImportJob::kept`).
    pub kept: bool,
    /// The snapshot also joins the plan worker's live history (`ImportJob::live`: a host's
    /// `pushSnapshot`).
    pub live: bool,
}

/// The import under way.
struct Importing {
    id: u32,
    label: String,
    keep_session: bool,
    snapshot_id: u64,
    warnings: Vec<String>,
    assembler: Assembler,
    /// The namespaces and large brokers' bundle lists, which come apart from core's parts
    /// (`lists_apart`).
    lists: ListsApart,
    /// Entries assembled when the progress bar was last moved.
    shown: usize,
    /// Where to keep the files once the import succeeded.
    keep: Option<(String, KeptUpload)>,
    /// The files, to give a new plan worker (`None` when one was moved, not sent as a handle).
    held: Option<Held>,
}

/// The plan worker, and where an import's answers go; cloned into the app's callbacks.
#[derive(Clone)]
pub struct WorkerImports {
    pub worker: Rc<RefCell<Option<PlanWorker>>>,
    pub url: String,
    pub dispatcher: UseReducerDispatcher<AppState>,
    pub progress: ProgressSink,
    pub note: UseStateHandle<Option<AttrValue>>,
    importing: Rc<RefCell<Option<Importing>>>,
    /// The files of the snapshot the page shows (from its import's success on).
    held: Rc<RefCell<Option<Held>>>,
    /// The `restore` import under way in a new plan worker, by job id.
    restoring: Rc<std::cell::Cell<Option<u32>>>,
}

impl PartialEq for WorkerImports {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.worker, &o.worker) && self.url == o.url
    }
}

impl WorkerImports {
    pub fn new(
        worker: Rc<RefCell<Option<PlanWorker>>>,
        url: String,
        dispatcher: UseReducerDispatcher<AppState>,
        progress: ProgressSink,
        note: UseStateHandle<Option<AttrValue>>,
    ) -> Self {
        Self {
            worker,
            url,
            dispatcher,
            progress,
            note,
            importing: Rc::default(),
            held: Rc::default(),
            restoring: Rc::default(),
        }
    }

    /// The file of loaded snapshot `snapshot_id`, written by the plan worker (given the files
    /// again first if it restarted, [`Self::hold`]), to `answer`; an error when it cannot be had.
    /// What a job that runs in a worker of its own (a simulation, an upgrade preview) sends beside
    /// its request.
    pub fn ask_snapshot_file(
        &self,
        snapshot_id: u64,
        answer: Callback<crate::plan_client::SnapshotFile>,
    ) {
        match self.hold(snapshot_id) {
            Ok(()) => match self.worker.borrow().as_ref() {
                Some(w) => w.ask_snapshot_file(snapshot_id, answer),
                None => answer.emit(Err("no plan worker".to_string())),
            },
            Err(e) => answer.emit(Err(e)),
        }
    }

    /// Makes sure the plan worker holds loaded snapshot `snapshot_id`: a worker started after the
    /// last one died is sent the snapshot's files again (a `restore` import, queued before the job
    /// that needs it), never the page's snapshot. `Err` when no worker can start or the files are
    /// not here (then the page says to load the snapshot again).
    pub fn hold(&self, snapshot_id: u64) -> Result<(), String> {
        self.ensure_worker()?;
        let slot = self.worker.borrow();
        let w = slot.as_ref().ok_or("no plan worker")?;
        if w.has_snapshot(snapshot_id) {
            return Ok(());
        }
        if self.importing.borrow().is_some() {
            // The worker is importing the snapshot that replaces this one.
            return Err("a newer snapshot is being imported".to_string());
        }
        let held = self
            .held
            .borrow()
            .clone()
            .filter(|h| h.snapshot_id == snapshot_id)
            .ok_or("the plan worker stopped and the snapshot's files are gone: load the snapshot again")?;
        let id = next_import_id();
        let request = Request::Import(Box::new(ImportJob {
            format_version: WORKER_PROTOCOL_VERSION,
            id,
            snapshot_id,
            files: held.files,
            chunk_bytes: PART_BYTES,
            kept: held.kept,
            restore: true,
            live: false,
        }));
        let text = serde_json::to_string(&request).map_err(|e| e.to_string())?;
        self.restoring.set(Some(id));
        w.send_import(text, &held.bodies, snapshot_id);
        Ok(())
    }

    /// Starts the plan worker when there is none (or it died); its plan answers go to the store,
    /// its import answers here.
    pub fn ensure_worker(&self) -> Result<(), String> {
        let mut slot = self.worker.borrow_mut();
        if slot.as_ref().is_some_and(|w| !w.is_dead()) {
            return Ok(());
        }
        let (d, me) = (self.dispatcher.clone(), self.clone());
        let on_answer = Callback::from(move |a: PlanAnswer| match a {
            PlanAnswer::Planned { id, result, diff } => {
                d.dispatch(Action::Planned { id, result, diff })
            }
            PlanAnswer::Failed { id, message } => {
                if !me.failed(id, &message) {
                    d.dispatch(Action::PlanFailed { id, message });
                }
            }
        });
        let w = PlanWorker::start(&self.url, on_answer)?;
        let me = self.clone();
        w.set_on_import(Callback::from(move |a| me.answer(a)));
        *slot = Some(w);
        Ok(())
    }

    /// Imports `picked` in the worker; `keep`: the storage prefix to keep the files under.
    pub fn start(
        &self,
        picked: Vec<Picked>,
        label: String,
        keep_session: bool,
        keep: Option<String>,
    ) {
        self.import(
            picked.into_iter().map(ImportFile::from).collect(),
            ImportRequest {
                label,
                keep_session,
                keep,
                kept: false,
                live: false,
            },
        );
    }

    /// Imports `files` in the worker, which then holds the snapshot the page shows.
    pub fn import(&self, files: Vec<ImportFile>, how: ImportRequest) {
        let ImportRequest {
            label,
            keep_session,
            keep,
            kept,
            live,
        } = how;
        if let Err(e) = self.ensure_worker() {
            self.dispatcher
                .dispatch(Action::Failed(format!("Could not import {label}: {e}")));
            return;
        }
        let id = next_import_id();
        let snapshot_id = next_loaded_id();
        let names: Vec<(String, bool)> =
            files.iter().map(|f| (f.name.clone(), f.in_tree)).collect();
        let blobs: Vec<web_sys::Blob> = files
            .iter()
            .filter_map(|f| match &f.body {
                Body::Blob(b) => Some(b.clone()),
                Body::Buffer(_) => None,
            })
            .collect();
        let bodies: Vec<Body> = files.into_iter().map(|f| f.body).collect();
        // Handles only: a moved buffer cannot be sent again.
        let held = (blobs.len() == names.len()).then(|| Held {
            snapshot_id,
            files: names.clone(),
            bodies: bodies.clone(),
            kept,
        });
        let request = Request::Import(Box::new(ImportJob {
            format_version: WORKER_PROTOCOL_VERSION,
            id,
            snapshot_id,
            files: names.clone(),
            chunk_bytes: PART_BYTES,
            kept,
            restore: false,
            live,
        }));
        let text = match serde_json::to_string(&request) {
            Ok(t) => t,
            Err(e) => {
                self.dispatcher
                    .dispatch(Action::Failed(format!("Could not import {label}: {e}")));
                return;
            }
        };
        // Only files the browser holds as blobs are kept (what the page was given in text is the
        // host's to give again).
        let keep = keep.filter(|_| blobs.len() == names.len()).map(|prefix| {
            (
                prefix,
                KeptUpload {
                    source: label.clone(),
                    files: names,
                    blobs,
                },
            )
        });
        *self.importing.borrow_mut() = Some(Importing {
            id,
            label,
            keep_session,
            snapshot_id,
            warnings: Vec::new(),
            assembler: Assembler::new(),
            lists: ListsApart::default(),
            shown: 0,
            keep,
            held,
        });
        self.progress.set(Some((0, 0)));
        if let Some(w) = self.worker.borrow().as_ref() {
            w.send_import(text, &bodies, snapshot_id);
        }
    }

    /// Whether a failure (`id` 0: the worker died) ended the import under way.
    fn failed(&self, id: u32, message: &str) -> bool {
        let mine = self
            .importing
            .borrow()
            .as_ref()
            .is_some_and(|i| id == 0 || i.id == id);
        if mine {
            self.fail(message.to_string());
        }
        mine
    }

    fn fail(&self, message: String) {
        let label = self
            .importing
            .borrow_mut()
            .take()
            .map(|i| i.label)
            .unwrap_or_default();
        self.progress.set(None);
        self.dispatcher.dispatch(Action::Failed(format!(
            "Could not import {label}: {message}"
        )));
    }

    fn answer(&self, a: ImportAnswer) {
        // The live history answers after its import's `imported`, whatever import came since.
        if let ImportAnswer::Live { result, .. } = a {
            self.dispatcher
                .dispatch(Action::LiveHistory(result.map(|v| Rc::new(*v))));
            return;
        }
        if let ImportAnswer::Imported { id, result } = &a
            && self.restoring.get() == Some(*id)
        {
            self.restoring.set(None);
            if let Err(e) = result {
                self.dispatcher.dispatch(Action::Failed(format!(
                    "The plan worker was restarted but could not import the snapshot again: {e}"
                )));
            }
            return;
        }
        let mut slot = self.importing.borrow_mut();
        let Some(imp) = slot.as_mut() else {
            return;
        };
        match a {
            ImportAnswer::Imported { id, .. }
            | ImportAnswer::Part { id, .. }
            | ImportAnswer::ListsPart { id, .. }
                if id != imp.id => {}
            ImportAnswer::Live { .. } => {}
            ImportAnswer::ListsPart { part, .. } => imp.lists.add(*part),
            ImportAnswer::Imported { result: Err(e), .. } => {
                drop(slot);
                self.fail(e);
            }
            ImportAnswer::Failed { message } => {
                drop(slot);
                self.fail(message);
            }
            ImportAnswer::Imported {
                result: Ok(warnings),
                ..
            } => {
                imp.warnings = warnings;
                *self.held.borrow_mut() = imp.held.take();
                if let Some((prefix, upload)) = imp.keep.take() {
                    let note = self.note.clone();
                    yew::platform::spawn_local(async move {
                        let n = persist::save_upload(&prefix, &upload).await;
                        note.set(Some(n.into()));
                    });
                }
            }
            ImportAnswer::Part { chunk, .. } => {
                if let Err(e) = imp.assembler.push(*chunk) {
                    drop(slot);
                    self.fail(e.to_string());
                    return;
                }
                let (done, total) = imp.assembler.progress();
                if !imp.assembler.is_complete() {
                    // The bar moves by whole percents: a render per part would cost more than the part.
                    if done.saturating_sub(imp.shown).saturating_mul(100) >= total.max(1) {
                        imp.shown = done;
                        self.progress.set(Some((done, total)));
                    }
                    return;
                }
                let Some(imp) = slot.take() else {
                    return;
                };
                drop(slot);
                let t = crate::page_trace::start();
                let lists = imp.lists;
                let finished = imp
                    .assembler
                    .finish()
                    .map_err(|e| e.to_string())
                    .and_then(|mut s| lists.restore(&mut s).map(|()| s));
                crate::page_trace::measure("snapshot parts: finish", t);
                match finished {
                    Ok(snapshot) => {
                        // Map geometry and namespace rows in slices: at 200,000 bundles one task
                        // of them took seconds.
                        let (d, progress) = (self.dispatcher.clone(), self.progress.clone());
                        progress.set(Some((done, total)));
                        yew::platform::spawn_local(async move {
                            let (loaded, _) =
                                Loaded::build(imp.snapshot_id, snapshot, imp.label, imp.warnings)
                                    .await;
                            d.dispatch(Action::Loaded {
                                loaded: Rc::new(loaded),
                                keep_session: imp.keep_session,
                            });
                            progress.set(None);
                        });
                    }
                    Err(e) => {
                        self.progress.set(None);
                        self.dispatcher.dispatch(Action::Failed(format!(
                            "Could not import {}: {e}",
                            imp.label
                        )))
                    }
                }
            }
        }
    }
}
