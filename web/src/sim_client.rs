//! The page's side of the simulation worker: a [`JobWorker`] whose job ends with the worker's
//! `Done` answer (the comparison of the configurations). The loaded snapshot goes beside the
//! request as the file the plan worker wrote (`PlanWorker::ask_snapshot_file`), transferred.

use lbplan_core::simulate::Comparison;
use lbplan_worker::protocol::Response;
use yew::Callback;

use crate::job_worker::{JobEvent, JobWorker};
use crate::worker_files::Body;

/// What the page hears about a run.
pub type SimEvent = JobEvent<Box<Comparison>>;

/// A running simulation; terminated when dropped.
pub struct SimWorker {
    _job: JobWorker,
}

impl SimWorker {
    /// Starts the worker at `url` and runs `request` (a `protocol::Request::Simulate` as JSON,
    /// `snapshot_file` beside it unless the request carries its snapshot) with id `id`.
    pub fn start(
        url: &str,
        request: String,
        snapshot_file: Option<js_sys::ArrayBuffer>,
        id: u32,
        on_event: Callback<SimEvent>,
    ) -> Result<SimWorker, String> {
        JobWorker::start(
            url,
            "simulation",
            request,
            snapshot_file.map(Body::Buffer).into_iter().collect(),
            id,
            on_event,
            |answer, id| match answer {
                Response::Done { id: i, comparison } if i == id => {
                    Some(JobEvent::Done(Box::new(comparison)))
                }
                _ => None,
            },
        )
        .map(|job| SimWorker { _job: job })
    }
}
