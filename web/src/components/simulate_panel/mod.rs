//! The Simulate panel: choose a scenario (built-in or a file), the number of cycles, the seed and
//! the configurations to compare; run them in the simulation worker with a progress bar and a
//! cancel button; then read the comparison (summary table, charts of spread, hottest broker, unloads
//! and per-broker usage) and replay the bundle map cycle by cycle with the time slider.
//! The simulation, the charts' data and the replayed layouts all come from `lbplan-core`.

use std::borrow::Cow;
use std::rc::Rc;

use lbplan_core::config::{Profile, simple_class_name};
use lbplan_core::model::Snapshot;
use lbplan_core::simulate::{
    Comparison, RunConfig, Scenario, builtin_scenario, builtin_scenario_names,
    builtin_snapshot_name, render_csv, render_cycles_csv, resolve_builtin_snapshot, snapshot_after,
};
use lbplan_core::view::bundle_map::BundleMap;
use lbplan_core::view::palette::css_hex;
use lbplan_core::view::sim_chart::{
    Chart, RUN_COLOURS, broker_usage_chart, comparison_charts, run_colour,
};
use lbplan_worker::broker_usage_fits;
use lbplan_worker::protocol::{Request, SimulateRequest, WORKER_PROTOCOL_VERSION};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::event_value;

use super::bundle_map::{BundleMapView, now_ms};
use super::sim_chart::SimChartView;
use super::styled::Swatch;
use crate::format;
use crate::loader::download;
use crate::sim_client::{SimEvent, SimWorker};
use crate::state::Loaded;

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
}

impl PartialEq for SimulateProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.loaded, &o.loaded)
            && self.profile == o.profile
            && self.overrides == o.overrides
            && self.dark == o.dark
            && self.worker_url == o.worker_url
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
    Sim(u32, SimEvent),
    ReplayRun(usize),
    ReplayCycle(u32),
    Select(Option<usize>),
    Download(&'static str),
}

/// A finished comparison and what is drawn from it.
struct Outcome {
    comparison: Comparison,
    charts: Vec<Rc<Chart>>,
    /// Per run; `None` when broker usage was not kept.
    broker_charts: Vec<Option<Rc<Chart>>>,
    /// The snapshot the runs started from (the replay's cycle 0).
    snapshot: Rc<Snapshot>,
    elapsed_ms: f64,
}

struct Running {
    _worker: SimWorker,
    /// The snapshot the run started from (the loaded one, or the scenario's built-in cluster).
    snapshot: Rc<Snapshot>,
    id: u32,
    done: u32,
    total: u32,
    started_ms: f64,
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

    fn start(&mut self, ctx: &Context<Self>) {
        let p = ctx.props();
        let scenario = match &self.scenario {
            Ok(s) => s.clone(),
            Err(e) => {
                self.form_error = Some(e.clone());
                return;
            }
        };
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
        let snapshot = match own.map(resolve_builtin_snapshot) {
            Some(Ok(Some(s))) => Rc::new(s),
            Some(Err(e)) => {
                self.form_error = Some(e.to_string());
                return;
            }
            Some(Ok(None)) | None => p.loaded.snapshot.clone(),
        };
        let configs = self.configs(p);
        let request = Request::Simulate(Box::new(SimulateRequest {
            format_version: WORKER_PROTOCOL_VERSION,
            id,
            snapshot: Cow::Borrowed(snapshot.as_ref()),
            scenario,
            configs,
            cycles,
            seed,
            record_broker_usage: broker_usage_fits(snapshot.brokers.len(), cycles),
            record_ownership: true,
        }));
        let text = match serde_json::to_string(&request) {
            Ok(t) => t,
            Err(e) => {
                self.error = Some(format!("cannot send the snapshot to the worker: {e}"));
                return;
            }
        };
        let on_event = ctx.link().callback(move |e| Msg::Sim(id, e));
        match SimWorker::start(&p.worker_url, text, id, on_event) {
            Ok(worker) => {
                self.running = Some(Running {
                    _worker: worker,
                    snapshot: snapshot.clone(),
                    id,
                    done: 0,
                    total: cycles,
                    started_ms: now_ms(),
                });
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn finish(&mut self, comparison: Comparison, elapsed_ms: f64, snapshot: Rc<Snapshot>) {
        let charts = comparison_charts(&comparison)
            .into_iter()
            .map(Rc::new)
            .collect();
        let broker_charts = comparison
            .runs
            .iter()
            .map(|r| broker_usage_chart(r).map(Rc::new))
            .collect();
        self.replay_run = 0;
        self.replay_cycle = comparison
            .runs
            .first()
            .map_or(0, |r| u32::try_from(r.cycles.len()).unwrap_or(0));
        self.outcome = Some(Rc::new(Outcome {
            comparison,
            charts,
            broker_charts,
            snapshot,
            elapsed_ms,
        }));
        self.rebuild_replay();
    }

    /// The bundle map after `replay_cycle` cycles of `replay_run`, marking what its last cycle changed.
    fn rebuild_replay(&mut self) {
        let Some(o) = &self.outcome else {
            self.replay = None;
            return;
        };
        let Some(run) = o.comparison.runs.get(self.replay_run) else {
            self.replay = None;
            return;
        };
        let snap = snapshot_after(&o.snapshot, &run.cycles, self.replay_cycle);
        let map = BundleMap::from_snapshot(&snap);
        let mut marked: Vec<usize> = Vec::new();
        if let Some(last) = self
            .replay_cycle
            .checked_sub(1)
            .and_then(|k| run.cycles.iter().find(|m| m.cycle == k))
        {
            for change in &last.ownership {
                for bundle in change.changed_bundles() {
                    marked.extend(map.find(&bundle));
                }
            }
        }
        marked.sort_unstable();
        marked.dedup();
        self.replay = Some((Rc::new(map), Rc::new(marked)));
    }

    fn view_form(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let p = ctx.props();
        let running = self.running.is_some();
        let names = builtin_scenario_names();
        let description = self
            .scenario
            .as_ref()
            .map(|s| s.description.clone())
            .unwrap_or_default();
        let on_file = link.batch_callback(|e: Event| {
            let input: web_sys::HtmlInputElement = e.target()?.dyn_into().ok()?;
            let file = input.files()?.get(0)?;
            input.set_value("");
            Some(Msg::ScenarioFile(file))
        });
        let configs = self.configs(p);
        let offset = usize::from(self.include_current);
        let is_current = move |k: usize| offset == 1 && k == 0;
        html! {
            <>
                <div class="sim-form">
                    <label>{ "Scenario " }
                        <select data-testid="simulation-scenario" disabled={running}
                            onchange={link.callback(|e: Event| Msg::Scenario(event_value(&e)))}>
                            { for names.iter().map(|n| html! {
                                <option value={*n} selected={self.scenario_key == *n}>{ *n }</option>
                            }) }
                            if let Some(u) = &self.uploaded {
                                <option value={UPLOADED} selected={self.scenario_key == UPLOADED}>{ format!("{} (file)", u.name) }</option>
                            }
                        </select>
                    </label>
                    <label class="file-button">{ "or a scenario file " }
                        <input type="file" accept=".json,application/json" data-testid="simulation-scenario-file"
                            disabled={running} onchange={on_file} />
                    </label>
                    <label>{ "Cycles " }
                        <input type="number" min="1" max={MAX_CYCLES.to_string()} class="num-input" data-testid="simulation-cycles"
                            value={self.cycles_text.clone()} disabled={running}
                            onchange={link.callback(|e: Event| Msg::Cycles(event_value(&e)))} />
                    </label>
                    <label>{ "Seed " }
                        <input type="number" min="0" class="num-input" value={self.seed_text.clone()} disabled={running}
                            onchange={link.callback(|e: Event| Msg::Seed(event_value(&e)))} />
                    </label>
                </div>
                <p class="muted small">{ description }</p>
                if let Some(reference) = scenario_cluster(&self.scenario) {
                    <label class="small">
                        <input type="checkbox" data-testid="simulation-own-cluster" checked={self.own_cluster} disabled={running}
                            onchange={{ let on = self.own_cluster; link.callback(move |_| Msg::OwnCluster(!on)) }} />
                        { format!(" run on the scenario's own cluster ({reference}) instead of the loaded snapshot") }
                    </label>
                }
                if let Err(e) = &self.scenario {
                    <p class="error-text" role="alert">{ e.clone() }</p>
                }
                <h3>{ "Configurations" }</h3>
                <ul class="sim-configs" data-testid="simulation-configs">
                    { for configs.iter().enumerate().map(|(k, c)| {
                        let text = c.to_text();
                        html! {
                            <li>
                                <Swatch colour={css_hex(run_colour(k))} />
                                <strong>{ if c.name.is_empty() { format!("configuration {}", k + 1) } else { c.name.clone() } }</strong>
                                <span class="mono small muted">{ if is_current(k) { describe_current(c) } else { text } }</span>
                                if !running && configs.len() > 1 {
                                    <button type="button" class="small" aria-label={format!("remove {}", c.name)}
                                        onclick={link.callback(move |_| if is_current(k) { Msg::Current(false) } else { Msg::Remove(k - offset) })}>{ "remove" }</button>
                                }
                            </li>
                        }
                    }) }
                </ul>
                if configs.len() < MAX_CONFIGS && !running {
                    <div class="sim-form">
                        if !self.include_current {
                            <button type="button" data-testid="simulation-add-current" onclick={link.callback(|_| Msg::Current(true))}>{ "add current settings" }</button>
                        }
                        <label>{ "Compare with " }
                            <select data-testid="simulation-preset" onchange={link.callback(|e: Event| Msg::AddPreset(event_value(&e)))}>
                                <option value="" selected=true>{ "a preset…" }</option>
                                { for PRESETS.iter().map(|(label, text)| html! { <option value={*text}>{ *label }</option> }) }
                            </select>
                        </label>
                        <label>{ "or " }
                            <input type="text" class="mono custom-config" placeholder="name=mine;loadBalancerBrokerThresholdShedderPercentage=5"
                                aria-label="A configuration: name=…;profile=…;KEY=VALUE;…" value={self.custom.clone()}
                                oninput={link.callback(|e: InputEvent| Msg::Custom(e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).map(|i| i.value()).unwrap_or_default()))} />
                        </label>
                        <button type="button" onclick={link.callback(|_| Msg::AddCustom)} disabled={self.custom.trim().is_empty()}>{ "add" }</button>
                    </div>
                }
                if let Some(e) = &self.form_error {
                    <p class="error-text" role="alert" data-testid="simulation-form-error">{ e.clone() }</p>
                }
                <div class="actions">
                    <button type="button" class="primary" data-testid="run-simulation" disabled={running || self.scenario.is_err()}
                        onclick={link.callback(|_| Msg::Run)}>{ "Run simulation" }</button>
                    <span class="muted small">{ "Starts from the loaded snapshot with each configuration; manual moves in the history are not applied. Runs in a Web Worker." }</span>
                </div>
            </>
        }
    }

    fn view_progress(&self, ctx: &Context<Self>) -> Html {
        let Some(r) = &self.running else {
            return html! {};
        };
        let elapsed = (now_ms() - r.started_ms) / 1000.0;
        html! {
            <div class="sim-progress" data-testid="simulation-running" aria-live="polite">
                <progress data-testid="simulation-progress" max={r.total.max(1).to_string()} value={r.done.to_string()}></progress>
                <span data-testid="simulation-progress-text">{ format!("{} of {} cycles · {elapsed:.1} s", format::count(i64::from(r.done)), format::count(i64::from(r.total))) }</span>
                <button type="button" data-testid="cancel-simulation" onclick={ctx.link().callback(|_| Msg::Cancel)}>{ "Cancel" }</button>
            </div>
        }
    }

    fn view_outcome(&self, ctx: &Context<Self>) -> Html {
        let Some(o) = self.outcome.clone() else {
            return html! {};
        };
        let link = ctx.link();
        let p = ctx.props();
        let c = &o.comparison;
        let cycles_run = c.runs.iter().map(|r| r.cycles.len()).max().unwrap_or(0);
        let run = c.runs.get(self.replay_run);
        let cursor = self.replay_cycle.checked_sub(1);
        let pick = link.callback(|k: u32| Msg::ReplayCycle(k + 1));
        let minute = run
            .and_then(|r| cursor.and_then(|k| r.cycles.iter().find(|m| m.cycle == k)))
            .map_or(0, |m| m.minute);
        let events: Vec<String> = run
            .and_then(|r| cursor.and_then(|k| r.cycles.iter().find(|m| m.cycle == k)))
            .map(|m| {
                let mut v = m.events.clone();
                if m.bundles_unloaded > 0 {
                    v.insert(0, format!("{} bundle(s) unloaded", m.bundles_unloaded));
                }
                if m.splits > 0 {
                    v.push(format!("{} split(s)", m.splits));
                }
                v
            })
            .unwrap_or_default();
        let broker_chart = o.broker_charts.get(self.replay_run).cloned().flatten();
        html! {
            <div class="sim-results" data-testid="simulation-results">
                <p class="muted small" data-testid="simulation-done">{ format!(
                    "{} configuration(s) × {} cycles of {} on {} ({} brokers, {} bundles) in {:.1} s, seed {}.",
                    c.runs.len(), cycles_run, c.scenario,
                    o.snapshot.cluster.as_deref().unwrap_or("the snapshot"),
                    format::count(o.snapshot.brokers.len() as i64), format::count(o.snapshot.brokers.values().map(|b| b.local_broker_data.bundles.len()).sum::<usize>() as i64),
                    o.elapsed_ms / 1000.0, c.seed) }</p>
                <div class="table-scroll">
                    <table class="data" data-testid="simulation-summary">
                        <thead><tr>
                            <th>{ "Configuration" }</th><th>{ "Shedding + placement" }</th><th>{ "Balanced" }</th>
                            <th class="num">{ "Unloads" }</th><th class="num">{ "Cycles with unloads" }</th>
                            <th class="num">{ "Thrashing" }</th><th class="num">{ "From recent destinations" }</th>
                            <th class="num" title="throughput of the unloaded bundles × the cycle's duration">{ "Moved" }</th><th class="num">{ "Splits" }</th>
                            <th class="num">{ "Peak max" }</th><th class="num">{ "Final max/mean" }</th><th class="num">{ "Final std" }</th><th class="num">{ "Cycles over capacity" }</th>
                        </tr></thead>
                        <tbody>
                            { for c.runs.iter().enumerate().map(|(k, r)| {
                                let s = &r.summary;
                                let balanced = match (s.balanced_at_cycle, s.balanced_after_minutes) {
                                    (Some(c), Some(m)) => format!("cycle {c} ({m} min){}", if s.balanced_at_end { "" } else { ", not at the end" }),
                                    _ => "never".to_string(),
                                };
                                html! {
                                    <tr data-testid="simulation-run">
                                        <th><Swatch colour={css_hex(run_colour(k))} />
                                            { r.config.name.clone() }{ if r.cancelled { " (cancelled)" } else { "" } }</th>
                                        <td>{ format!("{} + {}", simple_class_name(&r.shedding_strategy), simple_class_name(&r.placement_strategy)) }</td>
                                        <td>{ balanced }</td>
                                        <td class="num">{ format::count(s.total_unloads as i64) }</td>
                                        <td class="num">{ format::count(i64::from(s.cycles_with_unloads)) }</td>
                                        <td class="num">{ format::count(s.total_thrashing as i64) }</td>
                                        <td class="num">{ format::count(s.total_unloads_from_recent_destinations as i64) }</td>
                                        <td class="num">{ format!("{:.1} GiB", s.total_bytes_moved / (1024.0 * 1024.0 * 1024.0)) }</td>
                                        <td class="num">{ format::count(s.total_splits as i64) }</td>
                                        <td class="num">{ format::pct(s.peak_max_usage_fraction * 100.0) }</td>
                                        <td class="num">{ format!("{:.2}", s.final_max_over_mean) }</td>
                                        <td class="num">{ format::pct(s.final_std_usage_fraction * 100.0) }</td>
                                        <td class="num">{ format::count(i64::from(s.cycles_over_capacity)) }</td>
                                    </tr>
                                }
                            }) }
                        </tbody>
                    </table>
                </div>
                { for c.runs.iter().filter_map(|r| r.summary.over_capacity_text().map(|t| (r, t))).map(|(r, t)| html! {
                    <p class="warning small" data-testid="simulation-over-capacity">{ format!("{}: {t}", r.config.name) }</p>
                }) }
                { for c.identical_runs.iter().filter_map(|[k, j]| Some((c.runs.get(*k)?, c.runs.get(*j)?))).map(|(a, b)| html! {
                    <p class="warning small" data-testid="simulation-identical">{ format!(
                        "{} and {} measured the same in every cycle: on this cluster these settings make no difference (their chart lines coincide).",
                        a.config.name, b.config.name) }</p>
                }) }
                { for c.runs.iter().filter(|r| !r.warnings.is_empty()).map(|r| html! {
                    <details class="small"><summary>{ format!("{}: {} warning(s)", r.config.name, r.warnings.len()) }</summary>
                        <ul>{ for r.warnings.iter().map(|w| html! { <li>{ w.clone() }</li> }) }</ul></details>
                }) }
                <div class="actions">
                    <button type="button" onclick={link.callback(|_| Msg::Download("json"))}>{ "Download JSON" }</button>
                    <button type="button" onclick={link.callback(|_| Msg::Download("csv"))}>{ "Download summary CSV" }</button>
                    <button type="button" onclick={link.callback(|_| Msg::Download("cycles"))}>{ "Download per-cycle CSV" }</button>
                </div>
                <div class="sim-charts">
                    { for o.charts.iter().map(|chart| html! {
                        <SimChartView chart={chart.clone()} dark={p.dark} cursor={cursor} on_pick={pick.clone()} />
                    }) }
                    if let Some(chart) = broker_chart {
                        <SimChartView chart={chart} dark={p.dark} cursor={cursor} on_pick={pick.clone()} />
                    } else {
                        <p class="muted small">{ format!("Per-broker lines are kept for up to {} broker-cycles per configuration; run fewer cycles to see them.", format::count(lbplan_worker::MAX_BROKER_USAGE_VALUES as i64)) }</p>
                    }
                </div>
                <h3>{ "Replay" }</h3>
                <div class="sim-form">
                    if c.runs.len() > 1 {
                        <label>{ "Configuration " }
                            <select data-testid="simulation-replay-run" onchange={link.callback(|e: Event| Msg::ReplayRun(event_value(&e).parse().unwrap_or(0)))}>
                                { for c.runs.iter().enumerate().map(|(k, r)| html! {
                                    <option value={k.to_string()} selected={k == self.replay_run}>{ r.config.name.clone() }</option>
                                }) }
                            </select>
                        </label>
                    }
                    <label class="slider">{ "After cycle " }
                        <input type="range" min="0" max={run.map_or(0, |r| r.cycles.len()).to_string()} step="1"
                            data-testid="simulation-cycle" value={self.replay_cycle.to_string()}
                            aria-valuetext={format!("after {} cycles", self.replay_cycle)}
                            onchange={link.callback(|e: Event| Msg::ReplayCycle(event_value(&e).parse().unwrap_or(0)))} />
                    </label>
                    <span data-testid="simulation-cycle-label">{ format!("{} of {} (minute {minute})", self.replay_cycle, run.map_or(0, |r| r.cycles.len())) }</span>
                </div>
                if !events.is_empty() {
                    <ul class="small sim-events">{ for events.iter().map(|e| html! { <li>{ e.clone() }</li> }) }</ul>
                }
                if let Some((map, marked)) = &self.replay {
                    <BundleMapView map={map.clone()} highlighted={marked.clone()} after_owners={None::<Rc<Vec<u32>>>}
                        selected={self.selected} dark={p.dark} testid="simulation-map"
                        on_select={link.callback(Msg::Select)} />
                }
            </div>
        }
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
