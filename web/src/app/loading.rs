//! Where a snapshot comes from, onto the one import path (`worker_import`): picked and dropped
//! files, a URL (the demo, `?snapshot=`), text from the host page, what this browser kept. Nothing
//! here reads or imports a snapshot on the page: each source becomes files for the plan worker.

use std::rc::Rc;

use yew::{AttrValue, Callback, UseStateHandle};

use crate::loader::{Picked, fetch_blob};
use crate::persist;
use crate::state::Action;
use crate::worker_import::{ImportFile, ImportRequest, WorkerImports};

/// What the page calls a snapshot the host page gave (the JS API, the custom element).
pub const HOST_LABEL: &str = "snapshot (from the host page)";

/// Picked or dropped files; `keep`: the storage prefix to keep them under.
pub fn load_picked(
    imports: &WorkerImports,
    picked: Vec<Picked>,
    label: String,
    keep_session: bool,
    keep: Option<String>,
) {
    imports.start(picked, label, keep_session, keep);
}

/// The loader bar's files (picked or dropped): imported, and kept under `prefix` when the page
/// keeps what it loads.
pub fn on_inputs(
    imports: &Rc<WorkerImports>,
    prefix: Option<String>,
    busy: UseStateHandle<bool>,
) -> Callback<(Vec<Picked>, String)> {
    let imports = imports.clone();
    Callback::from(move |(picked, label): (Vec<Picked>, String)| {
        busy.set(false);
        load_picked(&imports, picked, label, false, prefix.clone());
    })
}

/// The loader bar's "demo": the operator's edits and the kept snapshot forgotten, the demo
/// imported from `demo`.
pub fn on_demo(imports: &Rc<WorkerImports>, prefix: Option<String>, demo: String) -> Callback<()> {
    let imports = imports.clone();
    Callback::from(move |()| {
        let (imports, prefix, demo) = (imports.clone(), prefix.clone(), demo.clone());
        imports.dispatcher.dispatch(Action::ClearHistory);
        imports.note.set(None);
        yew::platform::spawn_local(async move {
            if let Some(p) = &prefix {
                persist::clear_snapshot(p).await;
            }
            load_url(&imports, demo, true, None).await;
        });
    })
}

/// A snapshot's JSON text the host page gave: encoded once into a `Blob` the worker reads.
/// `live`: the next of a stream (`pushSnapshot`): it keeps the operator's edits and joins the
/// History section's live history.
pub fn load_text(imports: &WorkerImports, json: &str, live: bool) {
    let file = match ImportFile::text("snapshot", json) {
        Ok(f) => f,
        Err(e) => {
            fail(imports, HOST_LABEL, e);
            return;
        }
    };
    imports.import(
        vec![file],
        ImportRequest {
            label: HOST_LABEL.to_string(),
            keep_session: live,
            keep: None,
            kept: false,
            live,
        },
    );
}

/// GETs `url` as a `Blob` (not read on the page) and imports it; a failed GET is the banner's.
pub async fn load_url(
    imports: &WorkerImports,
    url: String,
    keep_session: bool,
    keep: Option<String>,
) {
    match fetch_blob(&url).await {
        Ok(blob) => load_picked(
            imports,
            vec![Picked {
                name: url.clone(),
                in_tree: false,
                blob,
            }],
            url,
            keep_session,
            keep,
        ),
        Err(e) => imports
            .dispatcher
            .dispatch(Action::Failed(format!("Could not load {url}: {e}"))),
    }
}

/// Imports what this browser kept under `prefix`: the uploaded files, or the snapshot an older
/// dashboard kept (read in the worker, `ImportJob::kept`). False when nothing usable was kept
/// (a kept record that cannot be read is reported, and the caller loads the demo).
pub async fn restore_kept(imports: &WorkerImports, prefix: &str) -> bool {
    let note = |text: &str| imports.note.set(Some(AttrValue::from(text.to_string())));
    match persist::load_upload(prefix).await {
        Some(Ok(u)) => {
            note("Restored from this browser (the kept files, imported again).");
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
            return true;
        }
        Some(Err(e)) => {
            imports
                .dispatcher
                .dispatch(Action::Failed(format!("{e}; loading the demo")));
            return false;
        }
        None => {}
    }
    let Some(text) = persist::load_kept_snapshot(prefix).await else {
        return false;
    };
    note("Restored from this browser.");
    let label = "the snapshot kept in this browser";
    let file = match ImportFile::text("saved snapshot", &text) {
        Ok(f) => f,
        Err(e) => {
            fail(imports, label, e);
            return false;
        }
    };
    imports.import(
        vec![file],
        ImportRequest {
            label: label.to_string(),
            keep_session: true,
            keep: None,
            kept: true,
            live: false,
        },
    );
    true
}

fn fail(imports: &WorkerImports, label: &str, e: String) {
    imports
        .dispatcher
        .dispatch(Action::Failed(format!("Could not import {label}: {e}")));
}
