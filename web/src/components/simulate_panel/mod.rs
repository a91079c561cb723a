//! The Simulate panel: its state and messages (the form's fields, the run under way, the outcome
//! and the replay's cursor), one module per job: `form` (scenario, cycles, seed, configurations),
//! `run` (the workers: the snapshot's file from the plan worker, then the simulation worker),
//! `progress`, `outcome` (summary table and charts) and `replay` (the map after any cycle).
//! The simulation, the charts' data and the replayed layouts all come from `lbplan-core`.

mod form;
mod outcome;
mod progress;
mod replay;
mod run;

use std::rc::Rc;

use lbplan_core::config::Profile;
use lbplan_core::simulate::{
    RunConfig, Scenario, builtin_scenario, builtin_snapshot_name, render_csv, render_cycles_csv,
};
use lbplan_core::view::bundle_map::BundleMap;
use lbplan_core::view::sim_chart::RUN_COLOURS;
use yew::prelude::*;

use crate::components::bundle_map::now_ms;
use crate::format;
use crate::loader::download;
use crate::plan_client::SnapshotFile;
use crate::sim_client::SimEvent;
use crate::state::Loaded;
use crate::worker_import::WorkerImports;
use outcome::Outcome;
use run::Running;

/// Configurations an operator commonly compares: core's list, so `lbplan simulate --compare` and
/// the dashboard run the same thing for the same name.
pub use lbplan_core::simulate::run_config::PRESETS;

/// At most this many configurations side by side (the charts' colours).
pub const MAX_CONFIGS: usize = RUN_COLOURS.len();
/// The core's limit: the panel offers what the simulation accepts.
pub use lbplan_core::simulate::MAX_CYCLES;
const DEFAULT_CYCLES: u32 = 100;
const DEFAULT_SCENARIO: &str = "steady";
const UPLOADED: &str = "(file)";

#[derive(Clone, Properties)]
pub struct SimulateProps {
    pub loaded: Rc<Loaded>,
    /// The dashboard's profile choice (`None`: detected).
    pub profile: Option<Profile>,
    /// `broker.conf` overrides from the edit history: the "current settings" configuration.
    pub overrides: Rc<Vec<(String, String)>>,
    pub dark: bool,
    /// The worker's boot script (`static/lbplan-worker-boot.js`).
    pub worker_url: AttrValue,
    /// The app's plan worker: it holds the loaded snapshot and writes its file for a run.
    pub plan_worker: WorkerImports,
    /// The calibration the predictions use (`None`: the default model).
    #[prop_or_default]
    pub calibration: Option<Rc<crate::state::LoadedCalibration>>,
}

impl PartialEq for SimulateProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.loaded, &o.loaded)
            && self.profile == o.profile
            && self.overrides == o.overrides
            && self.dark == o.dark
            && self.worker_url == o.worker_url
            && self.plan_worker == o.plan_worker
            && self.calibration == o.calibration
    }
}

pub enum Msg {
    Scenario(String),
    ScenarioFile(web_sys::File),
    ScenarioText(String, Result<String, String>),
    Cycles(String),
    Seed(String),
    OwnCluster(bool),
    AddPreset(String),
    Custom(String),
    AddCustom,
    Remove(usize),
    /// Include the "current settings" configuration or not.
    Current(bool),
    Run,
    Cancel,
    /// Run `id`'s snapshot file from the plan worker (or why not).
    SnapshotFile(u32, SnapshotFile),
    Sim(u32, SimEvent),
    ReplayRun(usize),
    ReplayCycle(u32),
    Select(Option<usize>),
    Download(&'static str),
}

pub struct SimulatePanel {
    scenario_key: String,
    scenario: Result<Scenario, String>,
    uploaded: Option<Scenario>,
    cycles_text: String,
    seed_text: String,
    /// Run on the scenario's own built-in cluster (`"snapshot": "builtin:…"`) instead of the loaded one.
    own_cluster: bool,
    /// Whether "current settings" is the first configuration.
    include_current: bool,
    extras: Vec<RunConfig>,
    custom: String,
    form_error: Option<String>,
    next_id: u32,
    running: Option<Running>,
    outcome: Option<Rc<Outcome>>,
    error: Option<String>,
    note: Option<String>,
    replay_run: usize,
    replay_cycle: u32,
    replay: Option<(Rc<BundleMap>, Rc<Vec<usize>>)>,
    selected: Option<usize>,
}

fn builtin(name: &str) -> Result<Scenario, String> {
    match builtin_scenario(name) {
        Some(r) => r.map_err(|e| e.to_string()),
        None => Err(format!("no built-in scenario `{name}`")),
    }
}

impl SimulatePanel {
    fn configs(&self, p: &SimulateProps) -> Vec<RunConfig> {
        let current = RunConfig {
            name: "current settings".to_string(),
            profile: p.profile,
            settings: (*p.overrides).clone(),
            // The snapshot's broker.conf and then the operator's edits, as the plan uses them.
            from_defaults: false,
        };
        let current = self.include_current.then_some(current);
        current
            .into_iter()
            .chain(self.extras.iter().cloned())
            .collect()
    }

    fn set_scenario(&mut self, scenario: Result<Scenario, String>) {
        if let Ok(s) = &scenario {
            self.cycles_text = s.cycles.unwrap_or(DEFAULT_CYCLES).to_string();
            if !s.compare.is_empty() {
                // The scenario says what to compare: its list replaces the current selection.
                self.include_current = false;
                self.extras = s.compare.iter().take(MAX_CONFIGS).cloned().collect();
            }
        }
        self.scenario = scenario;
    }
}

/// The built-in cluster a scenario was written for (`"snapshot": "builtin:NAME"`), as written.
fn scenario_cluster(scenario: &Result<Scenario, String>) -> Option<&str> {
    let reference = scenario.as_ref().ok()?.snapshot.as_deref()?;
    builtin_snapshot_name(reference).map(|_| reference)
}

/// The "current settings" configuration in words.
fn describe_current(c: &RunConfig) -> String {
    let profile = c
        .profile
        .map_or("profile detected from the brokers".to_string(), |p| {
            format!("profile {}", p.name())
        });
    if c.settings.is_empty() {
        format!("{profile}, the snapshot's broker.conf")
    } else {
        let keys: Vec<String> = c.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{profile}, {}", keys.join(", "))
    }
}

impl Component for SimulatePanel {
    type Message = Msg;
    type Properties = SimulateProps;

    fn create(_ctx: &Context<Self>) -> Self {
        let mut s = Self {
            scenario_key: DEFAULT_SCENARIO.to_string(),
            scenario: Err(String::new()),
            uploaded: None,
            cycles_text: DEFAULT_CYCLES.to_string(),
            seed_text: lbplan_core::simulate::DEFAULT_SEED.to_string(),
            own_cluster: false,
            include_current: true,
            extras: Vec::new(),
            custom: String::new(),
            form_error: None,
            next_id: 1,
            running: None,
            outcome: None,
            error: None,
            note: None,
            replay_run: 0,
            replay_cycle: 0,
            replay: None,
            selected: None,
        };
        s.set_scenario(builtin(DEFAULT_SCENARIO));
        if s.extras.is_empty()
            && let Ok(c) = RunConfig::parse(PRESETS[1].1)
        {
            // The question most operators ask first: what would 5.0's defaults do here?
            s.extras.push(c);
        }
        s
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &SimulateProps) -> bool {
        if !Rc::ptr_eq(&ctx.props().loaded, &old.loaded) {
            // Results belong to the snapshot they ran on.
            self.running = None;
            self.outcome = None;
            self.replay = None;
            self.note = None;
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Scenario(key) => {
                self.scenario_key = key.clone();
                if key == UPLOADED {
                    let s = self
                        .uploaded
                        .clone()
                        .ok_or_else(|| "no scenario file loaded".to_string());
                    self.set_scenario(s);
                } else {
                    self.set_scenario(builtin(&key));
                }
            }
            Msg::ScenarioFile(file) => {
                let name = file.name();
                let link = ctx.link().clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let text = wasm_bindgen_futures::JsFuture::from(file.text())
                        .await
                        .map(|v| v.as_string().unwrap_or_default())
                        .map_err(|e| format!("{e:?}"));
                    link.send_message(Msg::ScenarioText(name, text));
                });
                return false;
            }
            Msg::ScenarioText(name, text) => {
                let parsed = text
                    .and_then(|t| Scenario::from_json_text(&t).map_err(|e| e.to_string()))
                    .map_err(|e| format!("{name}: {e}"));
                match parsed {
                    Ok(s) => {
                        self.uploaded = Some(s.clone());
                        self.scenario_key = UPLOADED.to_string();
                        self.set_scenario(Ok(s));
                    }
                    // A bad file leaves the chosen scenario as it was.
                    Err(e) => self.form_error = Some(e),
                }
            }
            Msg::Cycles(v) => self.cycles_text = v,
            Msg::Seed(v) => self.seed_text = v,
            Msg::OwnCluster(on) => self.own_cluster = on,
            Msg::AddPreset(text) => {
                if !text.is_empty()
                    && let Ok(c) = RunConfig::parse(&text)
                    && self.extras.len() + usize::from(self.include_current) < MAX_CONFIGS
                {
                    self.extras.push(c);
                }
            }
            Msg::Custom(v) => self.custom = v,
            Msg::AddCustom => match RunConfig::parse(&self.custom) {
                Ok(mut c) => {
                    if c.name.is_empty() {
                        c.name = format!("custom {}", self.extras.len() + 1);
                    }
                    if self.extras.len() + usize::from(self.include_current) < MAX_CONFIGS {
                        self.extras.push(c);
                        self.custom.clear();
                        self.form_error = None;
                    }
                }
                Err(e) => self.form_error = Some(e.to_string()),
            },
            Msg::Remove(k) => {
                if k < self.extras.len() {
                    self.extras.remove(k);
                }
            }
            Msg::Current(on) => {
                if !on || self.extras.len() < MAX_CONFIGS {
                    self.include_current = on;
                }
            }
            Msg::Run => self.start(ctx),
            Msg::SnapshotFile(id, file) => self.launch(ctx, id, file),
            Msg::Cancel => {
                if let Some(r) = self.running.take() {
                    self.note = Some(format!(
                        "Cancelled after {} of {} cycles; the worker was stopped.",
                        format::count(i64::from(r.done)),
                        format::count(i64::from(r.total))
                    ));
                }
            }
            Msg::Sim(id, event) => {
                let Some(r) = self.running.as_mut().filter(|r| r.id == id) else {
                    return false;
                };
                match event {
                    SimEvent::Progress { done, total } => {
                        r.done = done;
                        r.total = total;
                    }
                    SimEvent::Done(comparison) => {
                        let elapsed = now_ms() - r.started_ms;
                        let snapshot = r.snapshot.clone();
                        self.running = None;
                        self.finish(*comparison, elapsed, snapshot);
                    }
                    SimEvent::Failed(message) => {
                        self.running = None;
                        self.error = Some(format!("Simulation failed: {message}"));
                    }
                }
            }
            Msg::ReplayRun(k) => {
                self.replay_run = k;
                if let Some(o) = &self.outcome
                    && let Some(r) = o.comparison.runs.get(k)
                {
                    self.replay_cycle = self
                        .replay_cycle
                        .min(u32::try_from(r.cycles.len()).unwrap_or(0));
                }
                self.rebuild_replay();
            }
            Msg::ReplayCycle(k) => {
                self.replay_cycle = k;
                self.selected = None;
                self.rebuild_replay();
            }
            Msg::Select(s) => self.selected = s,
            Msg::Download(what) => {
                if let Some(o) = &self.outcome {
                    let c = &o.comparison;
                    let stem = format!("lbplan-simulation-{}", c.scenario);
                    match what {
                        "json" => {
                            if let Ok(t) = serde_json::to_string_pretty(c) {
                                download(&format!("{stem}.json"), &t, "application/json");
                            }
                        }
                        "csv" => download(&format!("{stem}.csv"), &render_csv(c), "text/csv"),
                        _ => download(
                            &format!("{stem}-cycles.csv"),
                            &render_cycles_csv(c),
                            "text/csv",
                        ),
                    }
                }
                return false;
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        html! {
            <section class="panel simulate" data-testid="simulate">
                <h2>{ "Simulate" }</h2>
                <p class="muted small">{ "Run the leader's cycle again and again under a load model and events (traffic waves, spikes, crashes, restarts), and compare configurations: how long until balanced, and how much churn on the way." }</p>
                { self.view_form(ctx) }
                { self.view_progress(ctx) }
                if let Some(n) = &self.note {
                    <p class="muted" data-testid="simulation-note">{ n.clone() }</p>
                }
                if let Some(e) = &self.error {
                    <p class="error-text" role="alert" data-testid="simulation-error">{ e.clone() }</p>
                }
                { self.view_outcome(ctx) }
            </section>
        }
    }
}
