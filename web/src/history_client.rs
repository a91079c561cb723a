//! The page's side of the History view's worker job: a [`JobWorker`] per uploaded series whose job
//! ends with the worker's `Explained` answer (the report and its timeline, or why not). The
//! series' files go beside the request as `Blob` handles (`worker_files`): the page never reads them.

use lbplan_worker::protocol::{HistoryView, Response};
use yew::Callback;

use crate::job_worker::{JobEvent, JobWorker};
use crate::worker_files::Body;

/// What the page hears about a job.
pub type HistoryEvent = JobEvent<Box<HistoryView>>;

/// A running history job; terminated when dropped.
pub struct HistoryWorker {
    _job: JobWorker,
}

impl HistoryWorker {
    /// Starts the worker at `url` and runs `request` (a `protocol::Request::History` as JSON, naming
    /// `files` in their order) with id `id`.
    pub fn start(
        url: &str,
        request: String,
        files: Vec<Body>,
        id: u32,
        on_event: Callback<HistoryEvent>,
    ) -> Result<HistoryWorker, String> {
        JobWorker::start(
            url,
            "history",
            request,
            files,
            id,
            on_event,
            |answer, id| match answer {
                Response::Explained { id: i, result } if i == id => Some(match result {
                    Ok(view) => JobEvent::Done(view),
                    Err(message) => JobEvent::Failed(message),
                }),
                _ => None,
            },
        )
        .map(|job| HistoryWorker { _job: job })
    }
}
