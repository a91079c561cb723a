//! The page's side of the History view's worker job: starts a worker (`lbplan-worker`) per
//! uploaded series, sends the `history` request once the worker is ready, turns its answers into
//! [`HistoryEvent`]s, and cancels by terminating it (dropping the handle does too).

use lbplan_worker::protocol::{HistoryView, Response, WORKER_PROTOCOL_VERSION};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use yew::Callback;

/// What the page hears about a job.
#[derive(Clone, Debug, PartialEq)]
pub enum HistoryEvent {
    Progress { done: u32, total: u32 },
    Done(Box<HistoryView>),
    Failed(String),
}

/// A running history job; terminated when dropped.
pub struct HistoryWorker {
    worker: web_sys::Worker,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl HistoryWorker {
    /// Starts the worker at `url` and runs `request` (a `protocol::Request::History` as JSON) with
    /// id `id`; answers to other ids are ignored.
    pub fn start(
        url: &str,
        request: String,
        id: u32,
        on_event: Callback<HistoryEvent>,
    ) -> Result<HistoryWorker, String> {
        let worker = web_sys::Worker::new(url)
            .map_err(|e| format!("cannot start the history worker ({url}): {e:?}"))?;
        let sender = worker.clone();
        let events = on_event.clone();
        let mut request = Some(request);
        let onmessage = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
            move |e: web_sys::MessageEvent| {
                let text = e.data().as_string().unwrap_or_default();
                let answer: Response = match serde_json::from_str(&text) {
                    Ok(a) => a,
                    Err(err) => {
                        events.emit(HistoryEvent::Failed(format!(
                            "unreadable answer from the worker: {err}"
                        )));
                        return;
                    }
                };
                match answer {
                    Response::Ready { format_version }
                        if format_version != WORKER_PROTOCOL_VERSION =>
                    {
                        events.emit(HistoryEvent::Failed(format!(
                            "the worker speaks format_version {format_version}, the page {WORKER_PROTOCOL_VERSION}: reload the page"
                        )));
                    }
                    Response::Ready { .. } => {
                        if let Some(r) = request.take()
                            && let Err(err) = sender.post_message(&r.into())
                        {
                            events.emit(HistoryEvent::Failed(format!(
                                "cannot send the series to the worker: {err:?}"
                            )));
                        }
                    }
                    Response::Progress { id: i, done, total } if i == id => {
                        events.emit(HistoryEvent::Progress { done, total })
                    }
                    Response::Explained { id: i, result } if i == id => events.emit(match result {
                        Ok(view) => HistoryEvent::Done(view),
                        Err(message) => HistoryEvent::Failed(message),
                    }),
                    Response::Failed { id: i, message } if i == id || i == 0 => {
                        events.emit(HistoryEvent::Failed(message))
                    }
                    _ => {}
                }
            },
        );
        let onerror =
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
                e.prevent_default();
                let what = e.message();
                on_event.emit(HistoryEvent::Failed(if what.is_empty() {
                    "the history worker stopped (it could not load, or ran out of memory)"
                        .to_string()
                } else {
                    format!("the history worker stopped: {what}")
                }));
            });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        Ok(HistoryWorker {
            worker,
            _onmessage: onmessage,
            _onerror: onerror,
        })
    }
}

impl Drop for HistoryWorker {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
