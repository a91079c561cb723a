//! The Simulate panel's worker lifecycle: a run asks the plan worker for the loaded snapshot's
//! file (written there, from the snapshot it imported), then starts a simulation worker with the
//! request and that file beside it, transferred: the page never serialises the snapshot. Only a
//! scenario's built-in cluster (small, built on the page for the replay) travels in the request.
//! A plan worker started after the last one died is given the snapshot's files again first
//! (`WorkerImports::hold`); when the file still cannot be had the run fails saying so, and Run
//! tries again. Cancelling drops the worker, which terminates it.

use std::borrow::Cow;
use std::rc::Rc;

use lbplan_core::model::Snapshot;
use lbplan_core::simulate::{RunConfig, Scenario, resolve_builtin_snapshot};
use lbplan_worker::broker_usage_fits;
use lbplan_worker::protocol::{Request, SimulateRequest, WORKER_PROTOCOL_VERSION};
use yew::prelude::*;

use super::{MAX_CYCLES, Msg, SimulatePanel, scenario_cluster};
use crate::components::bundle_map::now_ms;
use crate::plan_client::SnapshotFile;
use crate::sim_client::SimWorker;

/// A run under way: waiting for the snapshot's file, then simulating.
pub(super) struct Running {
    /// `None` while the plan worker writes the snapshot's file.
    pub(super) _worker: Option<SimWorker>,
    /// What to send once the file came (the request without its snapshot).
    pub(super) waiting: Option<Waiting>,
    /// The snapshot the run started from (the loaded one, or the scenario's built-in cluster).
    pub(super) snapshot: Rc<Snapshot>,
    /// `snapshot` is the scenario's built-in cluster (sent in the request), not the loaded one.
    pub(super) builtin: bool,
    pub(super) id: u32,
    pub(super) done: u32,
    pub(super) total: u32,
    pub(super) started_ms: f64,
}

/// A request waiting for the snapshot's file.
pub(super) struct Waiting {
    pub(super) scenario: Scenario,
    pub(super) configs: Vec<RunConfig>,
    pub(super) cycles: u32,
    pub(super) seed: u64,
}

impl Waiting {
    fn request<'a>(self, id: u32, snapshot: Option<&'a Snapshot>, brokers: usize) -> Request<'a> {
        Request::Simulate(Box::new(SimulateRequest {
            format_version: WORKER_PROTOCOL_VERSION,
            id,
            snapshot: snapshot.map(Cow::Borrowed),
            record_broker_usage: broker_usage_fits(brokers, self.cycles),
            scenario: self.scenario,
            configs: self.configs,
            cycles: self.cycles,
            seed: self.seed,
            record_ownership: true,
        }))
    }
}

impl SimulatePanel {
    /// Checks the form and starts a run.
    pub(super) fn start(&mut self, ctx: &Context<Self>) {
        let p = ctx.props();
        let mut scenario = match &self.scenario {
            Ok(s) => s.clone(),
            Err(e) => {
                self.form_error = Some(e.clone());
                return;
            }
        };
        // The brokers run at the loaded calibration's speeds (a scenario's own factors win).
        if let Some(c) = &p.calibration {
            scenario.load.add_calibration(&c.calibration);
        }
        let cycles = match self.cycles_text.trim().parse::<u32>() {
            Ok(n) if (1..=MAX_CYCLES).contains(&n) => n,
            _ => {
                self.form_error = Some(format!("cycles: a whole number from 1 to {MAX_CYCLES}"));
                return;
            }
        };
        let Ok(seed) = self.seed_text.trim().parse::<u64>() else {
            self.form_error = Some("seed: a whole number from 0 to 18446744073709551615".into());
            return;
        };
        self.form_error = None;
        self.error = None;
        self.note = None;
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let own = scenario_cluster(&self.scenario).filter(|_| self.own_cluster);
        let builtin = match own.map(resolve_builtin_snapshot) {
            Some(Ok(Some(s))) => Some(Rc::new(s)),
            Some(Err(e)) => {
                self.form_error = Some(e.to_string());
                return;
            }
            Some(Ok(None)) | None => None,
        };
        let waiting = Waiting {
            scenario,
            configs: self.configs(p),
            cycles,
            seed,
        };
        self.running = Some(Running {
            _worker: None,
            waiting: Some(waiting),
            snapshot: builtin.clone().unwrap_or_else(|| p.loaded.snapshot.clone()),
            builtin: builtin.is_some(),
            id,
            done: 0,
            total: cycles,
            started_ms: now_ms(),
        });
        if builtin.is_some() {
            // The scenario's own cluster: small, and not the one the plan worker holds.
            self.launch(ctx, id, Err(String::new()));
            return;
        }
        let answer = ctx.link().callback(move |f| Msg::SnapshotFile(id, f));
        p.plan_worker.ask_snapshot_file(p.loaded.id, answer);
    }

    /// Starts the simulation worker of run `id` with the snapshot's file, or, for a scenario's
    /// built-in cluster, the snapshot in the request (`file` is then `Err` and unused).
    pub(super) fn launch(&mut self, ctx: &Context<Self>, id: u32, file: SnapshotFile) {
        let Some(r) = self.running.as_mut().filter(|r| r.id == id) else {
            // Cancelled, or replaced by a newer run.
            return;
        };
        let Some(waiting) = r.waiting.take() else {
            return;
        };
        let brokers = r.snapshot.brokers.len();
        let (request, file) = match file {
            Ok(buffer) => (waiting.request(id, None, brokers), Some(buffer)),
            Err(_) if r.builtin => (
                waiting.request(id, Some(r.snapshot.as_ref()), brokers),
                None,
            ),
            Err(e) => {
                // Never the page's snapshot instead: serialising it here is a long task.
                self.running = None;
                self.error = Some(format!(
                    "Could not get the loaded snapshot from the plan worker ({e}). Run again to restart it."
                ));
                return;
            }
        };
        let text = match serde_json::to_string(&request) {
            Ok(t) => t,
            Err(e) => {
                self.running = None;
                self.error = Some(format!("cannot send the request to the worker: {e}"));
                return;
            }
        };
        let on_event = ctx.link().callback(move |e| Msg::Sim(id, e));
        match SimWorker::start(&ctx.props().worker_url, text, file, id, on_event) {
            Ok(worker) => r._worker = Some(worker),
            Err(e) => {
                self.running = None;
                self.error = Some(e);
            }
        }
    }
}
