//! The page's side of the upgrade preview's worker: a [`JobWorker`] whose job ends with the
//! worker's `Upgraded` answer (core's `UpgradePreview`, or why not). The loaded snapshot goes
//! beside the request as the file the plan worker wrote (`PlanWorker::ask_snapshot_file`),
//! transferred, as a simulation's does.

use lbplan_core::upgrade::UpgradePreview;
use lbplan_worker::protocol::Response;
use yew::Callback;

use crate::job_worker::{JobEvent, JobWorker};
use crate::worker_files::Body;

/// What the page hears about a preview.
pub type UpgradeEvent = JobEvent<Box<UpgradePreview>>;

/// A running preview; terminated when dropped.
pub struct UpgradeWorker {
    _job: JobWorker,
}

impl UpgradeWorker {
    /// Starts the worker at `url` and runs `request` (a `protocol::Request::Upgrade` as JSON) on
    /// `snapshot_file` with id `id`.
    pub fn start(
        url: &str,
        request: String,
        snapshot_file: js_sys::ArrayBuffer,
        id: u32,
        on_event: Callback<UpgradeEvent>,
    ) -> Result<UpgradeWorker, String> {
        JobWorker::start(
            url,
            "upgrade preview",
            request,
            vec![Body::Buffer(snapshot_file)],
            id,
            on_event,
            |answer, id| match answer {
                Response::Upgraded { id: i, result } if i == id => Some(match result {
                    Ok(preview) => JobEvent::Done(preview),
                    Err(message) => JobEvent::Failed(message),
                }),
                _ => None,
            },
        )
        .map(|job| UpgradeWorker { _job: job })
    }
}
