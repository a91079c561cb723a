//! Getting bytes into the page: files from the file and folder pickers, files and folders dropped
//! on the page (folders walked with `webkitGetAsEntry`), and URLs on the page's own origin. Import
//! itself (archives included) is the core's, in the plan worker: snapshots are [`Picked`] without
//! reading them and go to the worker as `Blob` handles (read there), and so do the History view's
//! series. Only the export panel's journals (small) are read here ([`read_file_list`]).

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// `(name, bytes, found_in_a_tree)`: a folder's files and dropped folders' files are `true`.
pub type Input = (String, Vec<u8>, bool);

/// A file picked, dropped or fetched, not read yet: a `Blob` is a handle, so passing it to the
/// worker or keeping it in IndexedDB copies nothing on the page.
#[derive(Clone, Debug, PartialEq)]
pub struct Picked {
    pub name: String,
    pub in_tree: bool,
    pub blob: web_sys::Blob,
}

/// The files of an `<input type=file>`, not read (a folder picker's carry their relative path).
pub fn pick_file_list(list: &web_sys::FileList) -> Vec<Picked> {
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|file| {
            let relative = js_sys::Reflect::get(&file, &JsValue::from_str("webkitRelativePath"))
                .ok()
                .and_then(|v| v.as_string())
                .filter(|p| !p.is_empty());
            let in_tree = relative.is_some();
            Picked {
                name: relative.unwrap_or_else(|| file.name()),
                in_tree,
                blob: file.into(),
            }
        })
        .collect()
}

async fn file_bytes(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buf = JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| format!("{}: could not be read", file.name()))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// The files of an `<input type=file>` (a folder picker's carry their relative path).
pub async fn read_file_list(list: &web_sys::FileList) -> Result<Vec<Input>, String> {
    let mut out = Vec::new();
    for i in 0..list.length() {
        let Some(file) = list.item(i) else { continue };
        let relative = js_sys::Reflect::get(&file, &JsValue::from_str("webkitRelativePath"))
            .ok()
            .and_then(|v| v.as_string())
            .filter(|p| !p.is_empty());
        let in_tree = relative.is_some();
        let name = relative.unwrap_or_else(|| file.name());
        out.push((name, file_bytes(&file).await?, in_tree));
    }
    Ok(out)
}

/// Entries of a drop, taken synchronously (the `DataTransfer` is emptied after the event).
pub fn dropped_entries(event: &web_sys::DragEvent) -> Vec<web_sys::FileSystemEntry> {
    let Some(dt) = event.data_transfer() else {
        return Vec::new();
    };
    let items = dt.items();
    (0..items.length())
        .filter_map(|i| items.get(i))
        .filter_map(|item| item.webkit_get_as_entry().ok().flatten())
        .collect()
}

fn entry_file(entry: &web_sys::FileSystemFileEntry) -> js_sys::Promise {
    js_sys::Promise::new(&mut |resolve, reject| {
        let ok = Closure::once_into_js(move |f: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &f);
        });
        let err = Closure::once_into_js(move |e: JsValue| {
            let _ = reject.call1(&JsValue::NULL, &e);
        });
        entry.file_with_callback_and_callback(ok.unchecked_ref(), err.unchecked_ref());
    })
}

fn read_batch(reader: &web_sys::FileSystemDirectoryReader) -> js_sys::Promise {
    js_sys::Promise::new(&mut |resolve, reject| {
        let ok = Closure::once_into_js(move |list: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &list);
        });
        let err = Closure::once_into_js(move |e: JsValue| {
            let _ = reject.call1(&JsValue::NULL, &e);
        });
        let _ =
            reader.read_entries_with_callback_and_callback(ok.unchecked_ref(), err.unchecked_ref());
    })
}

/// Walks dropped entries depth first; a top-level file is "given", files inside folders are "tree".
/// The files are not read.
pub async fn read_entries(entries: Vec<web_sys::FileSystemEntry>) -> Result<Vec<Picked>, String> {
    let mut out = Vec::new();
    let mut stack: Vec<(web_sys::FileSystemEntry, bool)> =
        entries.into_iter().rev().map(|e| (e, false)).collect();
    while let Some((entry, in_tree)) = stack.pop() {
        let path = entry.full_path().trim_start_matches('/').to_string();
        if entry.is_directory() {
            let dir: web_sys::FileSystemDirectoryEntry = entry.unchecked_into();
            let reader = dir.create_reader();
            // readEntries returns batches until an empty one.
            loop {
                let batch = JsFuture::from(read_batch(&reader))
                    .await
                    .map_err(|_| format!("{path}: the folder could not be read"))?;
                let batch: js_sys::Array = batch.unchecked_into();
                if batch.length() == 0 {
                    break;
                }
                for e in batch.iter() {
                    stack.push((e.unchecked_into(), true));
                }
            }
        } else {
            let fe: web_sys::FileSystemFileEntry = entry.unchecked_into();
            let file = JsFuture::from(entry_file(&fe))
                .await
                .map_err(|_| format!("{path}: the file could not be read"))?;
            let file: web_sys::File = file.unchecked_into();
            out.push(Picked {
                name: path,
                in_tree,
                blob: file.into(),
            });
        }
    }
    Ok(out)
}

/// The URL resolved against the page; only the page's own origin is accepted.
pub fn same_origin_url(url: &str) -> Result<String, String> {
    let location = web_sys::window().ok_or("no window")?.location();
    let base = location.href().map_err(|_| "no page URL")?;
    let origin = location.origin().map_err(|_| "no page origin")?;
    let resolved =
        web_sys::Url::new_with_base(url, &base).map_err(|_| format!("`{url}` is not a URL"))?;
    if resolved.origin() != origin {
        return Err(format!(
            "`{url}` is not on this page's origin ({origin}); snapshots are only loaded from the page's own origin"
        ));
    }
    Ok(resolved.href())
}

/// GETs a same-origin URL and keeps the response only when its status is a success.
async fn get_ok(url: &str) -> Result<gloo::net::http::Response, String> {
    let url = same_origin_url(url)?;
    let response = gloo::net::http::Request::get(&url)
        .send()
        .await
        .map_err(|e| format!("request failed: {e}"))?;
    if !response.ok() {
        return Err(format!(
            "HTTP {} {}",
            response.status(),
            response.status_text()
        ));
    }
    Ok(response)
}

/// GETs a same-origin URL's JSON (small documents only: a snapshot goes as a `Blob`).
pub async fn fetch_json<T: serde::de::DeserializeOwned>(url: &str) -> Result<T, String> {
    get_ok(url)
        .await?
        .json::<T>()
        .await
        .map_err(|e| format!("{url}: {e}"))
}

/// GETs a URL as a `Blob` (not read into the page); any failure (network, HTTP status) becomes a sentence.
pub async fn fetch_blob(url: &str) -> Result<web_sys::Blob, String> {
    let response = get_ok(url).await?;
    let raw: web_sys::Response = response.into();
    let promise = raw
        .blob()
        .map_err(|_| "could not read the response".to_string())?;
    JsFuture::from(promise)
        .await
        .map_err(|_| "could not read the response".to_string())?
        .dyn_into()
        .map_err(|_| "could not read the response".to_string())
}

/// Offers text as a file download.
pub fn download(name: &str, text: &str, mime: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let a = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok());
    if let Some(a) = a {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Copies text to the clipboard (the async Clipboard API, through JS to avoid unstable web-sys APIs).
pub fn copy_to_clipboard(text: &str) {
    let Some(nav) = web_sys::window().map(|w| w.navigator()) else {
        return;
    };
    let Ok(clip) = js_sys::Reflect::get(&nav, &JsValue::from_str("clipboard")) else {
        return;
    };
    if let Ok(f) = js_sys::Reflect::get(&clip, &JsValue::from_str("writeText"))
        && let Some(f) = f.dyn_ref::<js_sys::Function>()
        && let Ok(p) = f.call1(&clip, &JsValue::from_str(text))
        && let Ok(p) = p.dyn_into::<js_sys::Promise>()
    {
        // A denied permission is not an error worth a console line.
        let ignore = Closure::wrap(Box::new(|_: JsValue| {}) as Box<dyn FnMut(JsValue)>);
        let _ = p.catch(&ignore);
        ignore.forget();
    }
}
