//! Keeping an instance's work across reloads: the session (profile, edit history; versioned by the
//! core's `Session::format_version`) in localStorage; an uploaded or fetched snapshot as its files
//! themselves ([`save_upload`]: `Blob` handles in IndexedDB, whose bytes the browser copies off
//! the page's thread, lossless and with no serialisation), imported again in the plan worker on
//! reload. A snapshot an older dashboard kept as JSON text (localStorage under ~4 MB, else
//! IndexedDB) is still read back ([`load_kept_snapshot`]) and imported in the worker. Every stored
//! item carries a `format_version`.

use lbplan_core::view::share::Session;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Version of the kept upload (`{format_version, source, names, in_tree, files}`).
pub const STORED_UPLOAD_FORMAT_VERSION: u32 = 1;
const DB_NAME: &str = "lbplan";
const STORE: &str = "snapshots";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn session_key(prefix: &str) -> String {
    format!("{prefix}.session")
}

fn snapshot_key(prefix: &str) -> String {
    format!("{prefix}.snapshot")
}

fn upload_key(prefix: &str) -> String {
    format!("{prefix}.upload")
}

/// Uploaded files kept in IndexedDB, to be imported again (in the worker).
pub struct KeptUpload {
    pub source: String,
    /// `(name, found_in_a_tree)` per file, in the order of `blobs`.
    pub files: Vec<(String, bool)>,
    pub blobs: Vec<web_sys::Blob>,
}

/// Keeps the uploaded files (handles: nothing is read or serialised on the page) in place of any
/// snapshot kept before; where it was kept, in words for the page.
pub async fn save_upload(prefix: &str, upload: &KeptUpload) -> String {
    let record = js_sys::Object::new();
    let names = js_sys::Array::new();
    let trees = js_sys::Array::new();
    let blobs = js_sys::Array::new();
    for ((name, tree), blob) in upload.files.iter().zip(&upload.blobs) {
        names.push(&JsValue::from_str(name));
        trees.push(&JsValue::from_bool(*tree));
        blobs.push(blob);
    }
    for (k, v) in [
        (
            "format_version",
            JsValue::from_f64(f64::from(STORED_UPLOAD_FORMAT_VERSION)),
        ),
        ("source", JsValue::from_str(&upload.source)),
        ("names", names.into()),
        ("in_tree", trees.into()),
        ("files", blobs.into()),
    ] {
        let _ = js_sys::Reflect::set(&record, &JsValue::from_str(k), &v);
    }
    let mib = upload.blobs.iter().map(web_sys::Blob::size).sum::<f64>() / (1024.0 * 1024.0);
    if let Some(s) = storage() {
        let _ = s.remove_item(&snapshot_key(prefix));
    }
    let _ = idb_delete(prefix).await;
    match idb_put(&upload_key(prefix), &record).await {
        Ok(()) => format!(
            "Kept in this browser (IndexedDB: the uploaded files, {mib:.1} MiB, imported again on reload)."
        ),
        Err(e) => format!(
            "Not kept across reloads: the files ({mib:.1} MiB) are too large for this browser's storage ({e})."
        ),
    }
}

/// The kept upload, if any (an unknown `format_version` is an error).
pub async fn load_upload(prefix: &str) -> Option<Result<KeptUpload, String>> {
    let record = idb_get(&upload_key(prefix)).await.ok()?;
    if record.is_undefined() || record.is_null() {
        return None;
    }
    let field = |k: &str| js_sys::Reflect::get(&record, &JsValue::from_str(k)).ok();
    let version = field("format_version").and_then(|v| v.as_f64());
    if version != Some(f64::from(STORED_UPLOAD_FORMAT_VERSION)) {
        return Some(Err(format!(
            "kept files: format_version {} is not supported",
            version.map_or("(none)".to_string(), |v| v.to_string())
        )));
    }
    let array =
        |k: &str| -> js_sys::Array { field(k).and_then(|v| v.dyn_into().ok()).unwrap_or_default() };
    let (names, trees, blobs) = (array("names"), array("in_tree"), array("files"));
    let mut upload = KeptUpload {
        source: field("source")
            .and_then(|v| v.as_string())
            .unwrap_or_default(),
        files: Vec::new(),
        blobs: Vec::new(),
    };
    for ((name, tree), blob) in names.iter().zip(trees.iter()).zip(blobs.iter()) {
        let (Some(name), Ok(blob)) = (name.as_string(), blob.dyn_into::<web_sys::Blob>()) else {
            return Some(Err("kept files: an entry is not a named file".to_string()));
        };
        upload.files.push((name, tree.is_truthy()));
        upload.blobs.push(blob);
    }
    if upload.files.is_empty() || upload.files.len() != names.length() as usize {
        return Some(Err("kept files: the record is incomplete".to_string()));
    }
    Some(Ok(upload))
}

pub fn save_session(prefix: &str, session: &Session) {
    if let Some(s) = storage() {
        let _ = s.set_item(&session_key(prefix), &session.to_json());
    }
}

pub fn load_session(prefix: &str) -> Option<Result<Session, String>> {
    let text = storage()?.get_item(&session_key(prefix)).ok().flatten()?;
    Some(Session::from_json(&text).map_err(|e| format!("saved session: {e}")))
}

/// The text of a snapshot an older dashboard kept (`{format_version, source, warnings,
/// snapshot}`; read and checked in the worker, `import_job::read_kept`), if any.
pub async fn load_kept_snapshot(prefix: &str) -> Option<String> {
    match storage().and_then(|s| s.get_item(&snapshot_key(prefix)).ok().flatten()) {
        Some(t) => Some(t),
        None => idb_get(prefix).await.ok()?.as_string(),
    }
}

/// Forgets the kept snapshot (the page goes back to the demo on reload).
pub async fn clear_snapshot(prefix: &str) {
    if let Some(s) = storage() {
        let _ = s.remove_item(&snapshot_key(prefix));
    }
    let _ = idb_delete(prefix).await;
    let _ = idb_delete(&upload_key(prefix)).await;
}

/// Resolves when an IDB request succeeds (its result) or fails.
async fn request_done(req: &web_sys::IdbRequest) -> Result<JsValue, String> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        let ok = Closure::once_into_js(move |_e: web_sys::Event| {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let err = Closure::once_into_js(move |_e: web_sys::Event| {
            let _ = reject.call0(&JsValue::NULL);
        });
        req.set_onsuccess(Some(ok.unchecked_ref()));
        req.set_onerror(Some(err.unchecked_ref()));
    });
    JsFuture::from(promise)
        .await
        .map_err(|_| "IndexedDB request failed".to_string())?;
    req.result().map_err(|_| "IndexedDB result".to_string())
}

async fn open_db() -> Result<web_sys::IdbDatabase, String> {
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or("IndexedDB is not available")?;
    let req = factory
        .open_with_u32(DB_NAME, 1)
        .map_err(|_| "IndexedDB open failed")?;
    let upgrade = Closure::once_into_js(move |e: web_sys::Event| {
        let db = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::IdbOpenDbRequest>().ok())
            .and_then(|r| r.result().ok())
            .and_then(|d| d.dyn_into::<web_sys::IdbDatabase>().ok());
        if let Some(db) = db
            && !db.object_store_names().contains(STORE)
        {
            let _ = db.create_object_store(STORE);
        }
    });
    req.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    let db = request_done(&req).await?;
    db.dyn_into().map_err(|_| "IndexedDB open".to_string())
}

fn store(
    db: &web_sys::IdbDatabase,
    mode: web_sys::IdbTransactionMode,
) -> Result<web_sys::IdbObjectStore, String> {
    db.transaction_with_str_and_mode(STORE, mode)
        .and_then(|t| t.object_store(STORE))
        .map_err(|_| "IndexedDB transaction failed".to_string())
}

async fn idb_put(key: &str, value: &JsValue) -> Result<(), String> {
    let db = open_db().await?;
    let s = store(&db, web_sys::IdbTransactionMode::Readwrite)?;
    let req = s
        .put_with_key(value, &JsValue::from_str(key))
        .map_err(|_| "IndexedDB put failed (quota?)".to_string())?;
    request_done(&req).await.map(|_| ())
}

async fn idb_get(key: &str) -> Result<JsValue, String> {
    let db = open_db().await?;
    let s = store(&db, web_sys::IdbTransactionMode::Readonly)?;
    let req = s
        .get(&JsValue::from_str(key))
        .map_err(|_| "IndexedDB get failed".to_string())?;
    request_done(&req).await
}

async fn idb_delete(key: &str) -> Result<(), String> {
    let db = open_db().await?;
    let s = store(&db, web_sys::IdbTransactionMode::Readwrite)?;
    let req = s
        .delete(&JsValue::from_str(key))
        .map_err(|_| "IndexedDB delete failed".to_string())?;
    request_done(&req).await.map(|_| ())
}
