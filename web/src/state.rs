//! The dashboard's state (a `use_reducer` store, one per mounted instance): the loaded snapshot and
//! what is derived from it once (bundle-map geometry, namespace rows), the profile, the edit history
//! with undo/redo, the last plan and the selection. Plans are made by `lbplan-core`: in the reducer
//! for ordinary snapshots, and for large ones (at least `plan_worker_from_bundles` bundles) as a
//! job the app hands to the plan worker, whose answer comes back as `Action::Planned`.

use std::rc::Rc;

use lbplan_core::config::Profile;
use lbplan_core::load::calibration::Calibration;
use lbplan_core::model::Snapshot;
use lbplan_core::model::fingerprint::snapshot_fingerprint;
use lbplan_core::plan::diff::{PlanDiff, diff_plans};
use lbplan_core::plan::operations::{Operation, stale_operations};
use lbplan_core::plan::{Explain, Plan, PlanEngine, PlanRequest};
use lbplan_core::view::bundle_map::{BundleMap, BundleMapBuilder};
use lbplan_core::view::namespaces::{NamespaceRow, NamespaceRowsBuilder, namespace_rows};
use lbplan_core::view::share::{SESSION_FORMAT_VERSION, Session};
use lbplan_core::watch::live::LiveView;
use yew::Reducible;

use crate::sliced::{self, Sliced};

/// Where the dashboard loads its demo cluster from (relative, so it works under any base path).
pub const DEMO_SNAPSHOT_URL: &str = "static/demo-snapshot.json";

/// Snapshots with at least this many bundles are planned in the plan worker (a plan of 200,000
/// bundles takes seconds; below this it takes a few hundred milliseconds at most).
pub const PLAN_WORKER_FROM_BUNDLES: usize = 20_000;

thread_local! {
    static NEXT_LOADED_ID: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
}

/// A loaded snapshot and what is derived from it once.
#[derive(Debug)]
pub struct Loaded {
    /// Numbers the snapshots loaded in this page (the plan worker keeps one by this id).
    pub id: u64,
    pub snapshot: Rc<Snapshot>,
    /// Bundles in the namespaces' layouts.
    pub bundle_count: usize,
    /// The snapshot's fingerprint, computed at the first plan and reused by every later one.
    fingerprint: std::cell::OnceCell<String>,
    /// Where it came from (file names, URL, "demo").
    pub source: String,
    /// Import warnings: file, JSON path, message.
    pub warnings: Vec<String>,
    pub map: Rc<BundleMap>,
    pub namespaces: Vec<NamespaceRow>,
}

impl Loaded {
    pub fn new(snapshot: Snapshot, source: String, warnings: Vec<String>) -> Self {
        Self::with_id(next_loaded_id(), snapshot, source, warnings)
    }

    /// [`Loaded::new`] under an id taken earlier with [`next_loaded_id`] (the plan worker that
    /// imported the snapshot holds it under that id).
    pub fn with_id(id: u64, snapshot: Snapshot, source: String, warnings: Vec<String>) -> Self {
        let map = Rc::new(BundleMap::from_snapshot(&snapshot));
        let namespaces = namespace_rows(&snapshot);
        Self {
            id,
            bundle_count: map.segments.len(),
            fingerprint: std::cell::OnceCell::new(),
            snapshot: Rc::new(snapshot),
            source,
            warnings,
            map,
            namespaces,
        }
    }

    /// [`Loaded::with_id`] built in slices between the page's other tasks (`sliced`): the map
    /// geometry and namespace rows of 200,000 bundles took 2.3 s in one task. Also answers how the
    /// slices went.
    pub async fn build(
        id: u64,
        snapshot: Snapshot,
        source: String,
        warnings: Vec<String>,
    ) -> (Self, Sliced) {
        let snapshot = Rc::new(snapshot);
        let mut stats = Sliced::default();
        let t = crate::page_trace::start();
        let mut map = BundleMapBuilder::new(&snapshot);
        crate::page_trace::measure("loaded: map start", t);
        sliced::run(&mut stats, |n| map.step(n)).await;
        let t = crate::page_trace::start();
        let map = Rc::new(map.finish());
        crate::page_trace::measure("loaded: map finish", t);
        let t = crate::page_trace::start();
        let mut rows = NamespaceRowsBuilder::new(&snapshot);
        crate::page_trace::measure("loaded: rows start", t);
        sliced::run(&mut stats, |n| rows.step(n)).await;
        let t = crate::page_trace::start();
        let namespaces = rows.finish();
        crate::page_trace::measure("loaded: rows finish", t);
        // The page's render of the new snapshot (≈ 20–30 ms at 1,000 brokers) in a task of its
        // own, not after the last slice in the same one.
        sliced::yield_to_page().await;
        let loaded = Self {
            id,
            bundle_count: map.segments.len(),
            fingerprint: std::cell::OnceCell::new(),
            snapshot,
            source,
            warnings,
            map,
            namespaces,
        };
        (loaded, stats)
    }

    pub fn fingerprint(&self) -> String {
        self.fingerprint
            .get_or_init(|| snapshot_fingerprint(&self.snapshot))
            .clone()
    }

    pub fn cluster_name(&self) -> &str {
        self.snapshot
            .cluster
            .as_deref()
            .unwrap_or("(unnamed cluster)")
    }
}

/// Two `Loaded` are the same when they are the same load: ids are never reused, and comparing the
/// snapshots themselves (what a derived `PartialEq` did, at every render that compared props) costs
/// a pass over 200,000 bundles.
impl PartialEq for Loaded {
    fn eq(&self, o: &Self) -> bool {
        self.id == o.id && Rc::ptr_eq(&self.snapshot, &o.snapshot)
    }
}

/// A new id for a loaded snapshot.
pub fn next_loaded_id() -> u64 {
    NEXT_LOADED_ID.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1));
        id
    })
}

/// What the page shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Status {
    #[default]
    Loading,
    Loaded(Rc<Loaded>),
    Failed(String),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppState {
    pub status: Status,
    /// The latest failure (import, fetch, operation); shown in the error banner, never replacing
    /// what is loaded.
    pub error: Option<String>,
    /// `None`: detect from the brokers.
    pub profile: Option<Profile>,
    pub operations: Vec<Operation>,
    pub redo: Vec<Operation>,
    /// Run the leader's cycle after the manual operations.
    pub leader_cycle: bool,
    /// Whether plans are being made (after the first `run-plan` or edit).
    pub planning: bool,
    pub plan: Option<Rc<Result<Plan, String>>>,
    /// Selected segment of the bundle map.
    pub selected: Option<usize>,
    /// Bumped on every new plan, so listeners can tell plans apart.
    pub plan_serial: u32,
    /// Plan in the worker from this many bundles on.
    pub plan_worker_from_bundles: usize,
    /// The plan the worker is making (the newest asked for; older answers are ignored).
    pub plan_job: Option<PlanJob>,
    /// Numbers plan jobs.
    pub plan_job_serial: u32,
    /// The plan without any edit (same snapshot, profile and leader-cycle switch), the "before" of
    /// a what-if's difference; kept with what it was made for (plans made on the page; the plan
    /// worker keeps its own).
    pub baseline: Option<(BaselineKey, Rc<Result<Plan, String>>)>,
    /// What the edits change against the plan without them; `None` without edits.
    pub plan_diff: Option<Rc<PlanDiff>>,
    /// The next worker plan carries every decision's detail (an export asked for the Full plan);
    /// taken by that plan, so later what-ifs are light again.
    pub full_details_next: bool,
    /// The calibration file the operator loaded (`lbplan history --calibrate`): every plan,
    /// what-if, rebalance, simulation and history check predicts with its factors.
    pub calibration: Option<Rc<LoadedCalibration>>,
    /// The live history of the snapshots streamed in (a watch followed, a host's `pushSnapshot`):
    /// what the History section shows while there is one.
    pub live_history: Option<Rc<LiveView>>,
}

/// A calibration file as loaded: its name (shown, and named in errors) and its content.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedCalibration {
    pub name: String,
    pub calibration: Calibration,
}

impl LoadedCalibration {
    /// The factors that travel with each job (empty: the default model).
    pub fn factors(
        loaded: Option<&Rc<LoadedCalibration>>,
    ) -> lbplan_worker::protocol::CpuCostFactors {
        loaded
            .map(|c| c.calibration.cpu_cost_factors.clone())
            .unwrap_or_default()
    }
}

/// What a baseline plan was made for: snapshot id, profile, leader cycle on/off.
pub type BaselineKey = (u64, Option<Profile>, bool);

/// A plan asked of the plan worker.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanJob {
    pub id: u32,
    pub request: PlanRequest,
    /// The loaded calibration's factors (empty: the default model).
    pub cpu_cost_factors: lbplan_worker::protocol::CpuCostFactors,
    /// Asked after an operation was pushed: a refusal takes the operation back.
    pub after_push: bool,
}

pub enum Action {
    /// A snapshot was imported (in the plan worker, `worker_import`). `keep_session`: keep the edit history (restoring a saved session).
    Loaded {
        loaded: Rc<Loaded>,
        keep_session: bool,
    },
    Failed(String),
    DismissError,
    SetProfile(Option<Profile>),
    SetLeaderCycle(bool),
    Push(Operation),
    Undo,
    Redo,
    ClearHistory,
    RunPlan,
    Select(Option<usize>),
    Restore(Session),
    /// The plan worker's answer to job `id`.
    Planned {
        id: u32,
        result: Result<Box<Plan>, String>,
        diff: Option<Box<PlanDiff>>,
    },
    /// The plan worker could not run job `id` (0: no particular job).
    PlanFailed {
        id: u32,
        message: String,
    },
    SetPlanWorkerFrom(usize),
    /// The plan shown was made without its details (`explain: summary`): make it again at full
    /// (an export needs the Full plan).
    WantFullPlan,
    /// A calibration file loaded, or cleared (`None`): plans predict with it from now on.
    SetCalibration(Option<Rc<LoadedCalibration>>),
    /// The live history grew (or why the snapshot did not join it).
    LiveHistory(Result<Rc<LiveView>, String>),
}

impl AppState {
    pub fn loaded(&self) -> Option<&Rc<Loaded>> {
        match &self.status {
            Status::Loaded(l) => Some(l),
            _ => None,
        }
    }

    pub fn plan_ok(&self) -> Option<&Plan> {
        self.plan.as_deref().and_then(|r| r.as_ref().ok())
    }

    pub fn session(&self) -> Session {
        Session {
            format_version: SESSION_FORMAT_VERSION,
            profile: self.profile.map(|p| p.name().to_string()),
            settings: Vec::new(),
            operations: self.operations.iter().map(Operation::to_string).collect(),
            redo: self.redo.iter().map(Operation::to_string).collect(),
        }
    }

    pub fn request(&self) -> PlanRequest {
        PlanRequest {
            profile: self.profile,
            operations: self.operations.clone(),
            leader_cycle: self.leader_cycle,
            ..PlanRequest::leader_cycle()
        }
    }

    /// What the plan worker is asked: the dashboard's plans and what-ifs at `explain: summary`
    /// (one decision's detail is asked for when its pane is opened), unless `full`.
    pub fn worker_request(&self, full: bool) -> PlanRequest {
        PlanRequest {
            explain: if full {
                Explain::Full
            } else {
                Explain::Summary
            },
            ..self.request()
        }
    }

    /// Whether plans of the loaded snapshot go to the worker.
    pub fn plans_in_worker(&self) -> bool {
        self.loaded()
            .is_some_and(|l| l.bundle_count >= self.plan_worker_from_bundles)
    }

    fn replan(&mut self) {
        self.replan_after(false);
    }

    fn replan_after(&mut self, after_push: bool) {
        if !self.planning {
            return;
        }
        let full = std::mem::take(&mut self.full_details_next);
        if self.plans_in_worker() {
            self.plan_job_serial = self.plan_job_serial.wrapping_add(1);
            self.plan_job = Some(PlanJob {
                id: self.plan_job_serial,
                request: self.worker_request(full),
                cpu_cost_factors: LoadedCalibration::factors(self.calibration.as_ref()),
                after_push,
            });
            return;
        }
        let Some(l) = self.loaded() else {
            return;
        };
        let model = self
            .calibration
            .as_ref()
            .map(|c| c.calibration.model())
            .unwrap_or_default();
        let mut engine =
            PlanEngine::with_fingerprint(std::borrow::Cow::Borrowed(&*l.snapshot), l.fingerprint())
                .with_load_model(model);
        let result = engine.plan(&self.request()).map_err(|e| e.to_string());
        let key = (l.id, self.profile, self.leader_cycle);
        if !self.operations.is_empty() && self.baseline.as_ref().is_none_or(|(k, _)| *k != key) {
            let request = PlanRequest {
                operations: Vec::new(),
                ..self.request()
            };
            let baseline = engine.plan(&request).map_err(|e| e.to_string());
            self.baseline = Some((key, Rc::new(baseline)));
        }
        let diff = match (&result, self.baseline.as_ref()) {
            (Ok(plan), Some((k, base))) if !self.operations.is_empty() && *k == key => base
                .as_ref()
                .as_ref()
                .ok()
                .and_then(|b| diff_plans(b, plan).ok())
                .map(Rc::new),
            _ => None,
        };
        self.set_plan(result);
        self.plan_diff = diff;
    }

    fn set_plan(&mut self, result: Result<Plan, String>) {
        self.plan = Some(Rc::new(result));
        self.plan_serial = self.plan_serial.wrapping_add(1);
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            Action::Loaded {
                loaded,
                keep_session,
            } => {
                let replacing = matches!(s.status, Status::Loaded(_));
                s.error = None;
                s.selected = None;
                if !keep_session {
                    s.operations.clear();
                    s.redo.clear();
                } else if replacing {
                    // A newer snapshot of the cluster: what-ifs naming what it no longer has are
                    // set aside, and said so; the others still apply.
                    let stale = stale_operations(&s.operations, &loaded.snapshot);
                    if !stale.is_empty() {
                        let gone: Vec<String> = stale.iter().map(ToString::to_string).collect();
                        for st in stale.iter().rev() {
                            if st.index < s.operations.len() {
                                s.operations.remove(st.index);
                            }
                        }
                        s.error = Some(format!(
                            "The new snapshot no longer fits {} what-if(s), set aside: {}",
                            gone.len(),
                            gone.join("; ")
                        ));
                    }
                }
                s.status = Status::Loaded(loaded);
                s.plan = None;
                s.plan_job = None;
                s.replan();
            }
            Action::Failed(e) => {
                if matches!(s.status, Status::Loading) {
                    s.status = Status::Failed(e.clone());
                }
                s.error = Some(e);
            }
            Action::DismissError => s.error = None,
            Action::SetProfile(p) => {
                s.profile = p;
                s.replan();
            }
            Action::SetLeaderCycle(on) => {
                s.leader_cycle = on;
                s.replan();
            }
            Action::Push(op) => {
                s.operations.push(op);
                s.redo.clear();
                s.planning = true;
                if s.plans_in_worker() {
                    // The answer decides whether the operation stays (Action::Planned).
                    s.replan_after(true);
                    return Rc::new(s);
                }
                s.replan();
                // An operation the planner refuses is reported and taken back.
                if let Some(Err(e)) = s.plan.as_deref() {
                    let e = e.clone();
                    s.operations.pop();
                    s.error = Some(e);
                    s.replan();
                }
            }
            Action::Undo => {
                if let Some(op) = s.operations.pop() {
                    s.redo.push(op);
                    s.replan();
                }
            }
            Action::Redo => {
                if let Some(op) = s.redo.pop() {
                    s.operations.push(op);
                    s.replan();
                }
            }
            Action::ClearHistory => {
                s.operations.clear();
                s.redo.clear();
                s.replan();
            }
            Action::RunPlan => {
                s.planning = true;
                s.replan();
            }
            Action::SetCalibration(c) => {
                s.calibration = c;
                // The kept baseline was predicted with the other model.
                s.baseline = None;
                s.replan();
            }
            Action::Select(seg) => s.selected = seg,
            Action::LiveHistory(Ok(view)) => s.live_history = Some(view),
            Action::LiveHistory(Err(e)) => {
                s.error = Some(format!("The live history did not take the snapshot: {e}"))
            }
            Action::Planned { id, result, diff } => {
                let Some(job) = s.plan_job.take_if(|j| j.id == id) else {
                    // An answer to a job that a newer one replaced.
                    return self;
                };
                match result {
                    Err(e) if job.after_push => {
                        s.operations.pop();
                        s.error = Some(e);
                        s.replan();
                    }
                    result => {
                        s.set_plan(result.map(|p| *p));
                        s.plan_diff = diff.map(|d| Rc::new(*d));
                    }
                }
            }
            Action::PlanFailed { id, message } => {
                if id == 0 || s.plan_job.as_ref().is_some_and(|j| j.id == id) {
                    s.plan_job = None;
                    s.error = Some(format!("Planning failed: {message}"));
                }
            }
            Action::SetPlanWorkerFrom(n) => s.plan_worker_from_bundles = n,
            Action::WantFullPlan => {
                let light = s.plan_ok().is_some_and(|p| p.explained.is_some());
                let asked = s
                    .plan_job
                    .as_ref()
                    .is_some_and(|j| j.request.explain == Explain::Full);
                if light && !asked {
                    s.full_details_next = true;
                    s.replan();
                }
            }
            Action::Restore(session) => {
                s.profile = session.profile.as_deref().and_then(Profile::parse);
                match (
                    session.parsed_operations(),
                    Session {
                        operations: session.redo.clone(),
                        ..session.clone()
                    }
                    .parsed_operations(),
                ) {
                    (Ok(ops), Ok(redo)) => {
                        s.planning |= !ops.is_empty();
                        s.operations = ops;
                        s.redo = redo;
                    }
                    (Err(e), _) | (_, Err(e)) => s.error = Some(e.to_string()),
                }
                s.replan();
            }
        }
        Rc::new(s)
    }
}

impl AppState {
    pub fn initial() -> Self {
        Self {
            leader_cycle: true,
            plan_worker_from_bundles: PLAN_WORKER_FROM_BUNDLES,
            ..Self::default()
        }
    }
}
