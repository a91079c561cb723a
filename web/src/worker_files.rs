//! The one way files go from the page to a worker: beside the request's JSON in the same message
//! (`{request, files}`), each a `Blob` handle (the worker reads it with `FileReaderSync`) or an
//! `ArrayBuffer` in the transfer list (moved, not copied). A snapshot to import, a series for the
//! History view and a simulation's snapshot file all travel so; none is read or copied on the page.
//! The worker's side is `lbplan_worker::import_job::receive`.

use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;

use crate::loader::Picked;

/// A file's bytes as the page hands them over: neither is read or copied on the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Picked, dropped or fetched: a handle the worker reads (and the page may send again).
    Blob(web_sys::Blob),
    /// Bytes another worker wrote (a snapshot's file), moved to this one in the transfer list.
    Buffer(js_sys::ArrayBuffer),
}

impl From<Picked> for Body {
    fn from(p: Picked) -> Self {
        Body::Blob(p.blob)
    }
}

impl Body {
    /// Text the page was given (a host's snapshot) as a `Blob`: encoded once, then a handle that
    /// can be sent again (to a plan worker started after the last one died).
    pub fn text(text: &str) -> Result<Self, String> {
        let parts = js_sys::Array::of1(&JsValue::from_str(text));
        web_sys::Blob::new_with_str_sequence(&parts)
            .map(Body::Blob)
            .map_err(|e| format!("cannot hold the text as a file: {e:?}"))
    }
}

/// `{request, files}` and its transfer list (the buffers among `files`), for `postMessage`.
pub fn message(request: String, files: &[Body]) -> (JsValue, js_sys::Array) {
    let list = js_sys::Array::new();
    let transfer = js_sys::Array::new();
    for f in files {
        match f {
            Body::Blob(b) => list.push(b),
            Body::Buffer(b) => {
                list.push(b);
                transfer.push(b)
            }
        };
    }
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"request".into(), &request.into());
    let _ = js_sys::Reflect::set(&message, &"files".into(), &list);
    (message.unchecked_into(), transfer)
}

/// Posts `request` to `worker`: the text alone without files, else [`message`] with its transfer list.
pub fn post(worker: &web_sys::Worker, request: String, files: &[Body]) -> Result<(), JsValue> {
    if files.is_empty() {
        return worker.post_message(&request.into());
    }
    let (message, transfer) = message(request, files);
    worker.post_message_with_transfer(&message, &transfer)
}
