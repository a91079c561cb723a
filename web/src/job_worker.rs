//! The page's side of one worker job (`lbplan-worker`): starts a worker per job, sends the request
//! once the worker says it is ready (and speaks our protocol version), turns progress and failure
//! into [`JobEvent`]s, and cancels by terminating the worker (dropping the handle does too), so a
//! cancelled job costs nothing afterwards. Each job kind only says which answer finishes it. Files
//! sent along (a simulation's snapshot as the plan worker wrote it, a History series' files) go
//! beside the request the one way files reach a worker (`worker_files`): never read or copied here.

use lbplan_worker::protocol::{Response, WORKER_PROTOCOL_VERSION};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use yew::Callback;

use crate::worker_files::{self, Body};

/// What the page hears about a job whose result is a `T`.
#[derive(Clone, Debug, PartialEq)]
pub enum JobEvent<T> {
    Progress { done: u32, total: u32 },
    Done(T),
    Failed(String),
}

/// Which answer ends a job, and with what: `None` for answers that are not this job's end.
pub type Finish<T> = fn(Response, u32) -> Option<JobEvent<T>>;

/// A running job; its worker is terminated when dropped.
pub struct JobWorker {
    worker: web_sys::Worker,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl JobWorker {
    /// Starts the worker at `url` (`static/lbplan-worker-boot.js`) and runs `request` (a
    /// `protocol::Request` as JSON, with `files` beside it) with id `id`; answers to other ids are
    /// ignored. `what` names the job in messages ("simulation", "history").
    pub fn start<T: 'static>(
        url: &str,
        what: &'static str,
        request: String,
        files: Vec<Body>,
        id: u32,
        on_event: Callback<JobEvent<T>>,
        finish: Finish<T>,
    ) -> Result<JobWorker, String> {
        let worker = web_sys::Worker::new(url)
            .map_err(|e| format!("cannot start the {what} worker ({url}): {e:?}"))?;
        let sender = worker.clone();
        let events = on_event.clone();
        let mut request = Some((request, files));
        let onmessage = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
            move |e: web_sys::MessageEvent| {
                let text = e.data().as_string().unwrap_or_default();
                let answer: Response = match serde_json::from_str(&text) {
                    Ok(a) => a,
                    Err(err) => {
                        events.emit(JobEvent::Failed(format!(
                            "unreadable answer from the worker: {err}"
                        )));
                        return;
                    }
                };
                match answer {
                    Response::Ready { format_version }
                        if format_version != WORKER_PROTOCOL_VERSION =>
                    {
                        events.emit(JobEvent::Failed(format!(
                            "the worker speaks format_version {format_version}, the page {WORKER_PROTOCOL_VERSION}: reload the page"
                        )));
                    }
                    Response::Ready { .. } => {
                        if let Some((r, files)) = request.take()
                            && let Err(err) = worker_files::post(&sender, r, &files)
                        {
                            events.emit(JobEvent::Failed(format!(
                                "cannot send the {what} request to the worker: {err:?}"
                            )));
                        }
                    }
                    Response::Progress { id: i, done, total } if i == id => {
                        events.emit(JobEvent::Progress { done, total })
                    }
                    Response::Failed { id: i, message } if i == id || i == 0 => {
                        events.emit(JobEvent::Failed(message))
                    }
                    other => {
                        if let Some(event) = finish(other, id) {
                            events.emit(event);
                        }
                    }
                }
            },
        );
        let onerror =
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
                e.prevent_default();
                let message = e.message();
                on_event.emit(JobEvent::Failed(if message.is_empty() {
                    format!("the {what} worker stopped (it could not load, or ran out of memory)")
                } else {
                    format!("the {what} worker stopped: {message}")
                }));
            });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        Ok(JobWorker {
            worker,
            _onmessage: onmessage,
            _onerror: onerror,
        })
    }
}

impl Drop for JobWorker {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
