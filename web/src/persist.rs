//! Keeping an instance's work across reloads: the session (profile, edit history; versioned by the
//! core's `Session::format_version`) in localStorage, the snapshot in localStorage when its JSON is
//! under ~4 MB, else in IndexedDB. Every stored item carries a `format_version`.

use lbplan_core::model::Snapshot;
use lbplan_core::view::share::Session;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Version of the stored snapshot envelope.
pub const STORED_SNAPSHOT_FORMAT_VERSION: u32 = 1;
/// localStorage holds ~5 MB per origin; beyond this the snapshot goes to IndexedDB.
pub const LOCAL_STORAGE_MAX_BYTES: usize = 4 * 1024 * 1024;
const DB_NAME: &str = "lbplan";
const STORE: &str = "snapshots";

#[derive(Serialize)]
pub struct StoredSnapshot {
    pub format_version: u32,
    pub source: String,
    pub warnings: Vec<String>,
    pub snapshot: Snapshot,
}

/// A kept snapshot as read back: the snapshot itself goes through core's one snapshot reader
/// (`import::read_snapshot`), so an unknown key is a warning as in every import.
#[derive(Deserialize)]
struct StoredEnvelope {
    format_version: u32,
    source: String,
    warnings: Vec<String>,
    snapshot: serde_json::Value,
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn session_key(prefix: &str) -> String {
    format!("{prefix}.session")
}

fn snapshot_key(prefix: &str) -> String {
    format!("{prefix}.snapshot")
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

/// Where a snapshot was kept, in words for the page.
pub async fn save_snapshot(prefix: &str, stored: &StoredSnapshot) -> String {
    let Ok(json) = serde_json::to_string(stored) else {
        return "Not kept: the snapshot could not be serialised.".to_string();
    };
    let mib = json.len() as f64 / (1024.0 * 1024.0);
    if json.len() <= LOCAL_STORAGE_MAX_BYTES
        && let Some(s) = storage()
        && s.set_item(&snapshot_key(prefix), &json).is_ok()
    {
        let _ = idb_delete(prefix).await;
        return format!("Kept in this browser (localStorage, {mib:.1} MiB).");
    }
    if let Some(s) = storage() {
        let _ = s.remove_item(&snapshot_key(prefix));
    }
    match idb_put(prefix, &json).await {
        Ok(()) => format!("Kept in this browser (IndexedDB, {mib:.1} MiB)."),
        Err(e) => format!(
            "Not kept across reloads: the snapshot ({mib:.1} MiB) is too large for this browser's storage ({e})."
        ),
    }
}

/// The saved snapshot, if any (an unknown `format_version` is an error).
pub async fn load_snapshot(prefix: &str) -> Option<Result<StoredSnapshot, String>> {
    let text = match storage().and_then(|s| s.get_item(&snapshot_key(prefix)).ok().flatten()) {
        Some(t) => t,
        None => idb_get(prefix).await.ok().flatten()?,
    };
    Some(read_stored(&text))
}

/// The kept envelope, checked: its version, then the snapshot by core's snapshot reader (unknown
/// keys found by that reading are added to the warnings kept; the others were kept at import).
fn read_stored(text: &str) -> Result<StoredSnapshot, String> {
    let env: StoredEnvelope =
        serde_json::from_str(text).map_err(|e| format!("saved snapshot: {e}"))?;
    if env.format_version != STORED_SNAPSHOT_FORMAT_VERSION {
        return Err(format!(
            "saved snapshot format_version {} is not supported",
            env.format_version
        ));
    }
    let body = serde_json::to_string(&env.snapshot).map_err(|e| format!("saved snapshot: {e}"))?;
    let read =
        lbplan_core::import::read_snapshot("saved snapshot", &body).map_err(|e| e.to_string())?;
    let mut warnings = env.warnings;
    warnings.extend(
        read.warnings
            .iter()
            .filter(|w| w.kind == lbplan_core::import::WarningKind::UnknownField)
            .map(ToString::to_string),
    );
    Ok(StoredSnapshot {
        format_version: env.format_version,
        source: env.source,
        warnings,
        snapshot: read.snapshot,
    })
}

/// Forgets the kept snapshot (the page goes back to the demo on reload).
pub async fn clear_snapshot(prefix: &str) {
    if let Some(s) = storage() {
        let _ = s.remove_item(&snapshot_key(prefix));
    }
    let _ = idb_delete(prefix).await;
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

async fn idb_put(prefix: &str, json: &str) -> Result<(), String> {
    let db = open_db().await?;
    let s = store(&db, web_sys::IdbTransactionMode::Readwrite)?;
    let req = s
        .put_with_key(&JsValue::from_str(json), &JsValue::from_str(prefix))
        .map_err(|_| "IndexedDB put failed (quota?)".to_string())?;
    request_done(&req).await.map(|_| ())
}

async fn idb_get(prefix: &str) -> Result<Option<String>, String> {
    let db = open_db().await?;
    let s = store(&db, web_sys::IdbTransactionMode::Readonly)?;
    let req = s
        .get(&JsValue::from_str(prefix))
        .map_err(|_| "IndexedDB get failed".to_string())?;
    Ok(request_done(&req).await?.as_string())
}

async fn idb_delete(prefix: &str) -> Result<(), String> {
    let db = open_db().await?;
    let s = store(&db, web_sys::IdbTransactionMode::Readwrite)?;
    let req = s
        .delete(&JsValue::from_str(prefix))
        .map_err(|_| "IndexedDB delete failed".to_string())?;
    request_done(&req).await.map(|_| ())
}
