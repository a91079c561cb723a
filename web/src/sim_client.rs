//! The page's side of the simulation worker (`lbplan-worker`): starts a worker per run, sends the
//! request once the worker says it is ready, turns its answers into [`SimEvent`]s, and cancels by
//! terminating it (dropping the handle does too), so a cancelled run costs nothing afterwards.

use lbplan_core::simulate::Comparison;
use lbplan_worker::protocol::{Response, WORKER_PROTOCOL_VERSION};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use yew::Callback;

/// What the page hears about a run.
#[derive(Clone, Debug, PartialEq)]
pub enum SimEvent {
    Progress { done: u32, total: u32 },
    Done(Box<Comparison>),
    Failed(String),
}

/// A running simulation; terminated when dropped.
pub struct SimWorker {
    worker: web_sys::Worker,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl SimWorker {
    /// Starts the worker at `url` (`static/lbplan-worker-boot.js`) and runs `request` (a
    /// `protocol::Request` as JSON) with id `id`; answers to other ids are ignored.
    pub fn start(
        url: &str,
        request: String,
        id: u32,
        on_event: Callback<SimEvent>,
    ) -> Result<SimWorker, String> {
        let worker = web_sys::Worker::new(url)
            .map_err(|e| format!("cannot start the simulation worker ({url}): {e:?}"))?;
        let sender = worker.clone();
        let events = on_event.clone();
        let mut request = Some(request);
        let onmessage = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
            move |e: web_sys::MessageEvent| {
                let text = e.data().as_string().unwrap_or_default();
                let answer: Response = match serde_json::from_str(&text) {
                    Ok(a) => a,
                    Err(err) => {
                        events.emit(SimEvent::Failed(format!(
                            "unreadable answer from the worker: {err}"
                        )));
                        return;
                    }
                };
                match answer {
                    Response::Ready { format_version }
                        if format_version != WORKER_PROTOCOL_VERSION =>
                    {
                        events.emit(SimEvent::Failed(format!(
                            "the worker speaks format_version {format_version}, the page {WORKER_PROTOCOL_VERSION}: reload the page"
                        )));
                    }
                    Response::Ready { .. } => {
                        if let Some(r) = request.take()
                            && let Err(err) = sender.post_message(&r.into())
                        {
                            events.emit(SimEvent::Failed(format!(
                                "cannot send the request to the worker: {err:?}"
                            )));
                        }
                    }
                    Response::Progress { id: i, done, total } if i == id => {
                        events.emit(SimEvent::Progress { done, total })
                    }
                    Response::Done { id: i, comparison } if i == id => {
                        events.emit(SimEvent::Done(Box::new(comparison)))
                    }
                    Response::Failed { id: i, message } if i == id || i == 0 => {
                        events.emit(SimEvent::Failed(message))
                    }
                    _ => {}
                }
            },
        );
        let onerror =
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
                e.prevent_default();
                let what = e.message();
                on_event.emit(SimEvent::Failed(if what.is_empty() {
                    "the simulation worker stopped (it could not load, or ran out of memory)"
                        .to_string()
                } else {
                    format!("the simulation worker stopped: {what}")
                }));
            });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        Ok(SimWorker {
            worker,
            _onmessage: onmessage,
            _onerror: onerror,
        })
    }
}

impl Drop for SimWorker {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
