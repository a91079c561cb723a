//! The History view: upload a recorded series (a folder, a zip of one, or ordinary snapshot
//! files). It needs no loaded snapshot (the series brings its own, and the replayed leader reads
//! only those), so the app shows it with or without one. The files go to a worker of their own as
//! `Blob` handles, unread on the page; the worker decodes and explains them (`history_client`),
//! the page draws what
//! core computed — the headline numbers, a time × hash-range canvas per namespace
//! (`view::timeline`: colour = owner, shading = load), each broker's load over time (core's
//! `view::timeline::broker_load_chart`, a `usage_lines_chart` like the simulation's per-broker
//! chart, drawn by the one chart component `sim_chart`), the instant
//! the slider shows (its owners per namespace), and the paged list of changes with their causes;
//! a click on a change shows its full reason. A leader's log picked beside the series goes to the same
//! job and is merged with it (`history_leader_log`). Instead of a series, Prometheus range results
//! (the `/api/v1/query_range` answers a portal or `curl` fetched, never fetched by the page) with an
//! optional layout snapshot: the worker builds the series as `lbplan history --prometheus` does and
//! the report says what was derived (core's `history::prometheus`).
//! When the page follows a live history (a
//! watch's `/watch/history-view.json`, a host's `pushSnapshot`), its newest view is shown as it
//! comes (`live`), at its latest snapshot.

use std::collections::HashMap;
use std::rc::Rc;

use lbplan_core::history::prometheus::mapping::parse_pairs;
use lbplan_core::history::prometheus::render::basis_lines;
use lbplan_core::history::render::{cause_text, change_text};
use lbplan_core::naming::BrokerNames;
use lbplan_core::view::lane_colouring::{LaneColouring, LanePainter};
use lbplan_core::view::palette::css_hex;
use lbplan_core::view::sim_chart::Chart;
use lbplan_core::view::timeline::{Lane, Timeline, broker_load_chart, change_page};
use lbplan_core::watch::live::LiveView;
use lbplan_worker::protocol::{
    HistoryJob, HistoryView, PrometheusUpload, Request, WORKER_PROTOCOL_VERSION,
};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::broker_picker::BrokerPicker;
use super::history_answers::HistoryAnswersView;
use super::history_leader_log::HistoryLeaderLogView;
use super::model_accuracy::ModelAccuracyView;
use super::sim_chart::{SimChartView, hidpi_context};
use super::{event_value, named_text};
use crate::format::{bytes_per_sec, pct};
use crate::history_client::{HistoryEvent, HistoryWorker};
use crate::loader::{Picked, pick_file_list};
use crate::worker_files::Body;

/// Changes per page of the list (never one DOM node per change beyond this).
const CHANGES_PER_PAGE: usize = 100;
/// Namespace maps per page.
const LANES_PER_PAGE: usize = 8;
/// CSS height of a namespace's map (the stylesheet sizes the canvas; this sets its backing store).
const LANE_HEIGHT_PX: f64 = 96.0;

#[derive(Clone, PartialEq, Properties)]
pub struct HistoryViewProps {
    pub worker_url: AttrValue,
    pub dark: bool,
    /// The calibration the model check uses (`lbplan history --calibration`; `None`: default).
    #[prop_or_default]
    pub calibration: Option<std::rc::Rc<crate::state::LoadedCalibration>>,
    /// The live history's newest view (core's `watch::live::LiveView`), shown when it changes.
    #[prop_or_default]
    pub live: Option<Rc<LiveView>>,
}

pub enum Msg {
    Files(Vec<Picked>),
    /// Prometheus range results: explained instead of a series.
    Ranges(Vec<Picked>),
    /// The layout snapshot the range results are read with.
    Layout(Vec<Picked>),
    BrokerLabel(String),
    BrokerMap(String),
    /// The leader's log files (plain or .gz): kept, and the series explained again with them.
    Logs(Vec<Picked>),
    Job(u32, HistoryEvent),
    Cancel,
    Step(usize),
    Page(usize),
    LanePage(usize),
    Cause(String),
    Select(usize),
    /// A `LaneColouring` key from the lanes' colour picker.
    Colouring(String),
    /// One broker picked for the lanes' colouring (`None`: that picker emptied).
    ColourBroker(Option<String>),
    /// Back to the live history from an uploaded series.
    ShowLive,
}

struct Shown {
    view: Rc<HistoryView>,
    timeline: Rc<Timeline>,
    chart: Rc<Chart>,
    /// A live history's view (the section follows it), not an uploaded series'.
    live: bool,
    /// The series' brokers by core's display rule (60-character ids make owners, changes and
    /// reasons unreadable at 1,000 brokers); full ids on hover.
    names: Rc<BrokerNames>,
    /// The lanes as listed: namespaces that changed first, brokers' own namespaces last (core's
    /// `Timeline::lanes_by_activity`), worked out once per series, not per slider step.
    lane_order: Rc<Vec<usize>>,
    /// The series' brokers, for the lanes' broker picker.
    brokers: Rc<Vec<String>>,
}

impl Shown {
    fn of(view: HistoryView, live: bool) -> Self {
        let chart = Rc::new(broker_load_chart(&view.report));
        let timeline = Rc::new(view.timeline.clone());
        let names = Rc::new(BrokerNames::new(
            timeline
                .brokers
                .iter()
                .chain(view.report.broker_load.keys())
                .map(String::as_str),
        ));
        let lane_order = Rc::new(timeline.lanes_by_activity());
        let brokers = Rc::new(timeline.brokers.clone());
        Self {
            view: Rc::new(view),
            timeline,
            chart,
            live,
            names,
            lane_order,
            brokers,
        }
    }
}

pub struct HistoryTimeline {
    next_id: u32,
    /// The last series and leader's log picked (handles), to explain again when the other changes.
    series: Vec<Picked>,
    logs: Vec<Picked>,
    /// `series` are Prometheus range results, read with this layout, label and map.
    prometheus: bool,
    layout: Option<Picked>,
    broker_label: String,
    broker_map: String,
    running: Option<(HistoryWorker, u32, u32, u32)>,
    error: Option<String>,
    shown: Option<Shown>,
    step: usize,
    page: usize,
    lane_page: usize,
    cause: Option<String>,
    selected: Option<usize>,
    /// The lanes' colouring picked (`None`: core's default for the series).
    colouring: Option<LaneColouring>,
}

fn on_pick(ctx: &Context<HistoryTimeline>, msg: fn(Vec<Picked>) -> Msg) -> Callback<Event> {
    let link = ctx.link().clone();
    Callback::from(move |e: Event| {
        let Some(input) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(list) = input.files() else { return };
        // Handles, not bytes: the worker reads the files.
        let picked = pick_file_list(&list);
        input.set_value("");
        if !picked.is_empty() {
            link.send_message(msg(picked));
        }
    })
}

fn minute_label(times: &[i64], step: usize) -> String {
    let t0 = times.first().copied().unwrap_or(0);
    let t = times.get(step).copied().unwrap_or(t0);
    let iso = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(t as f64))
        .to_iso_string()
        .as_string()
        .unwrap_or_default();
    format!(
        "snapshot {} of {} — minute {:.0} ({iso})",
        step + 1,
        times.len(),
        (t - t0) as f64 / 60_000.0
    )
}

impl Component for HistoryTimeline {
    type Message = Msg;
    type Properties = HistoryViewProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut me = Self::empty();
        if let Some(live) = &ctx.props().live {
            me.show_live(live);
        }
        me
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Self::Properties) -> bool {
        let new = &ctx.props().live;
        // An uploaded series stays shown until the operator goes back to the live history.
        let following = self.shown.as_ref().is_none_or(|s| s.live);
        if let Some(live) = new
            && following
            && !old.live.as_ref().is_some_and(|o| Rc::ptr_eq(o, live))
        {
            self.show_live(live);
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        self.update_msg(ctx, msg)
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        self.render(ctx)
    }
}

impl HistoryTimeline {
    fn empty() -> Self {
        Self {
            next_id: 1,
            series: Vec::new(),
            logs: Vec::new(),
            prometheus: false,
            layout: None,
            broker_label: String::new(),
            broker_map: String::new(),
            running: None,
            error: None,
            shown: None,
            step: 0,
            page: 0,
            lane_page: 0,
            cause: None,
            selected: None,
            colouring: None,
        }
    }

    /// The live history's newest view, at its latest snapshot (the list and map pages stay).
    fn show_live(&mut self, live: &LiveView) {
        let view = HistoryView {
            report: live.report.clone(),
            timeline: live.timeline.clone(),
        };
        self.step = view.timeline.times_ms.len().saturating_sub(1);
        self.selected = None;
        self.shown = Some(Shown::of(view, true));
    }

    fn update_msg(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Files(picked) => {
                self.series = picked;
                self.prometheus = false;
                self.start(ctx);
            }
            Msg::Ranges(picked) => {
                self.series = picked;
                self.prometheus = true;
                self.start(ctx);
            }
            Msg::Layout(picked) => {
                self.layout = picked.into_iter().next();
                if self.prometheus && !self.series.is_empty() {
                    self.start(ctx);
                }
            }
            Msg::BrokerLabel(label) => {
                self.broker_label = label;
                return false;
            }
            Msg::BrokerMap(map) => {
                self.broker_map = map;
                return false;
            }
            Msg::Logs(picked) => {
                self.logs = picked;
                if !self.series.is_empty() {
                    self.start(ctx);
                }
            }
            Msg::Job(id, event) => {
                if self.running.as_ref().is_none_or(|r| r.1 != id) {
                    return false;
                }
                match event {
                    HistoryEvent::Progress { done, total } => {
                        if let Some(r) = self.running.as_mut() {
                            r.2 = done;
                            r.3 = total;
                        }
                    }
                    HistoryEvent::Done(view) => {
                        self.running = None;
                        self.shown = Some(Shown::of(*view, false));
                        self.step = 0;
                        self.page = 0;
                        self.lane_page = 0;
                        self.cause = None;
                        self.selected = None;
                    }
                    HistoryEvent::Failed(e) => {
                        self.running = None;
                        self.error = Some(e);
                    }
                }
            }
            Msg::Cancel => self.running = None,
            Msg::Step(s) => self.step = s,
            Msg::Page(p) => self.page = p,
            Msg::LanePage(p) => self.lane_page = p,
            Msg::Cause(c) => {
                self.cause = (!c.is_empty()).then_some(c);
                self.page = 0;
            }
            Msg::Select(i) => self.selected = Some(i),
            Msg::Colouring(key) => self.colouring = Some(LaneColouring::from_key(&key)),
            Msg::ColourBroker(Some(id)) => self.colouring = Some(LaneColouring::Broker(id)),
            Msg::ColourBroker(None) => {
                if matches!(self.colouring, Some(LaneColouring::Broker(_))) {
                    self.colouring = None;
                }
            }
            Msg::ShowLive => {
                if let Some(live) = ctx.props().live.clone() {
                    self.show_live(&live);
                }
            }
        }
        true
    }

    fn render(&self, ctx: &Context<Self>) -> Html {
        let pick = on_pick(ctx, Msg::Files);
        let pick_log = on_pick(ctx, Msg::Logs);
        let pick_ranges = on_pick(ctx, Msg::Ranges);
        let pick_layout = on_pick(ctx, Msg::Layout);
        let on_label = ctx.link().callback(|e: InputEvent| {
            Msg::BrokerLabel(
                e.target_dyn_into::<web_sys::HtmlInputElement>()
                    .map(|i| i.value())
                    .unwrap_or_default(),
            )
        });
        let on_map = ctx.link().callback(|e: InputEvent| {
            Msg::BrokerMap(
                e.target_dyn_into::<web_sys::HtmlTextAreaElement>()
                    .map(|t| t.value())
                    .unwrap_or_default(),
            )
        });
        let status = match &self.running {
            Some((_, _, done, total)) => html! {
                <p class="busy small" role="status" data-testid="history-progress">
                    { format!("Explaining the series… {done} of {total} snapshots read ") }
                    <button type="button" data-testid="history-cancel"
                        onclick={ctx.link().callback(|_| Msg::Cancel)}>{ "Cancel" }</button>
                </p>
            },
            None => html! {},
        };
        html! {
            <section class="panel history-view" data-testid="history-view">
                <h2>{ "History" }</h2>
                <p class="muted small">{ "What did the leader do, and why? Upload a series recorded with " }
                    <code>{ "lbplan collect --every 60s" }</code>{ " (its folder, or a zip of it) or a set of snapshot files." }</p>
                <div class="history-upload">
                    <label>{ "Series folder " }
                        <input type="file" webkitdirectory={true} multiple={true}
                            data-testid="history-folder-input" onchange={pick.clone()} /></label>
                    <label>{ "Zip or snapshot files " }
                        <input type="file" multiple={true} accept=".zip,.json"
                            data-testid="history-files-input" onchange={pick} /></label>
                    <label>{ "Leader's log (optional; plain or .gz) " }
                        <input type="file" multiple={true} accept=".log,.gz,.txt,.json"
                            data-testid="history-leader-log-input" onchange={pick_log} /></label>
                    <details class="history-prometheus" data-testid="history-prometheus">
                        <summary>{ "…or from Prometheus (no series recorded)" }</summary>
                        <p class="muted small">{ "The " }<code>{ "/api/v1/query_range" }</code>
                            { " answers of the load-balancing metrics (one file per answer, or an " }
                            <code>{ "lbplan-prometheus-ranges" }</code>{ " document), as docs/history.md \"From Prometheus\" lists them. The page reads the files; it calls no server." }</p>
                        <label>{ "Layout snapshot (optional: namespaces' boundaries, broker.conf, limits) " }
                            <input type="file" accept=".json"
                                data-testid="history-layout-input" onchange={pick_layout} /></label>
                        if let Some(l) = &self.layout {
                            <span class="small muted" data-testid="history-layout-picked">{ l.name.clone() }</span>
                        }
                        <label>{ "Broker label " }
                            <input type="text" placeholder="instance" value={self.broker_label.clone()}
                                data-testid="history-broker-label" oninput={on_label} /></label>
                        <label>{ "Label value = brokerId, one per line (optional) " }
                            <textarea rows="2" placeholder="10.0.0.7:8080=broker-1.pulsar.svc:8080"
                                value={self.broker_map.clone()} data-testid="history-broker-map"
                                oninput={on_map} /></label>
                        <label>{ "Range results " }
                            <input type="file" multiple={true} accept=".json"
                                data-testid="history-prometheus-input" onchange={pick_ranges} /></label>
                    </details>
                    if !self.logs.is_empty() {
                        <span class="small muted" data-testid="history-leader-log-picked">
                            { format!("{} log file(s): {}", self.logs.len(), self.logs.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")) }
                        </span>
                    }
                </div>
                { status }
                if let Some(e) = &self.error {
                    <p class="error small" role="alert" data-testid="history-error">{ e.clone() }</p>
                }
                if ctx.props().live.is_some() && self.shown.as_ref().is_some_and(|s| !s.live) {
                    <p class="small">
                        <button type="button" data-testid="history-show-live"
                            onclick={ctx.link().callback(|_| Msg::ShowLive)}>{ "Show the live history" }</button>
                        { " (an uploaded series is shown; the live history goes on growing)" }
                    </p>
                }
                if let Some(s) = self.shown.as_ref().filter(|s| s.live) {
                    <p class="small" data-testid="history-live">
                        { format!("Live: the history of the last {} snapshot(s), following the cluster as they arrive.", s.timeline.times_ms.len()) }
                    </p>
                }
                if let Some(s) = &self.shown {
                    { self.shown_view(ctx, s) }
                }
            </section>
        }
    }
}

impl HistoryTimeline {
    /// Explains the picked series (with the picked leader's log) in a new worker job.
    fn start(&mut self, ctx: &Context<Self>) {
        let id = self.next_id;
        self.next_id += 1;
        self.error = None;
        let names = self.series.iter().map(|p| p.name.clone()).collect();
        let leader_logs = self.logs.iter().map(|p| p.name.clone()).collect();
        let prometheus = if self.prometheus {
            let broker_map = match parse_pairs(&self.broker_map) {
                Ok(m) => m,
                Err(e) => {
                    self.error = Some(format!("label value = brokerId: {e}"));
                    return;
                }
            };
            let label = self.broker_label.trim();
            Some(PrometheusUpload {
                broker_label: (!label.is_empty()).then(|| label.to_string()),
                broker_map,
                layout: self.layout.as_ref().map(|l| l.name.clone()),
            })
        } else {
            None
        };
        // The range results, then the layout (Prometheus only), then the logs: the order the
        // worker reads them in.
        let layout = self.layout.iter().filter(|_| self.prometheus);
        let files: Vec<Body> = self
            .series
            .iter()
            .chain(layout)
            .chain(self.logs.iter())
            .cloned()
            .map(Body::from)
            .collect();
        let request = Request::History(Box::new(HistoryJob {
            format_version: WORKER_PROTOCOL_VERSION,
            id,
            files: names,
            profile: None,
            settings: Vec::new(),
            seed: 0,
            cpu_cost_factors: crate::state::LoadedCalibration::factors(
                ctx.props().calibration.as_ref(),
            ),
            leader_logs,
            prometheus,
        }));
        let text = match serde_json::to_string(&request) {
            Ok(t) => t,
            Err(e) => {
                self.error = Some(format!("cannot send the series to the worker: {e}"));
                return;
            }
        };
        let on_event = ctx.link().callback(move |e| Msg::Job(id, e));
        match HistoryWorker::start(&ctx.props().worker_url, text, files, id, on_event) {
            Ok(w) => self.running = Some((w, id, 0, 0)),
            Err(e) => self.error = Some(e),
        }
    }

    fn shown_view(&self, ctx: &Context<Self>, s: &Shown) -> Html {
        let r = &s.view.report;
        let m = &r.summary;
        let t = &s.timeline;
        let n = t.times_ms.len();
        let step = self.step.min(n.saturating_sub(1));
        let on_step = ctx.link().callback(Msg::Step);
        let headline = html! {
            <dl class="history-metrics" data-testid="history-metrics">
                <dt>{ "Moves explained" }</dt>
                <dd data-testid="history-explained">{ format!("{} ({} of {})", pct(100.0 * m.predicted_fraction()), m.moves_predicted, m.moves_seen.saturating_sub(m.moves_by_broker_left)) }</dd>
                <dt>{ "Destination agreement" }</dt><dd>{ pct(100.0 * m.destination_fraction()) }</dd>
                <dt>{ "Unloads per hour" }</dt><dd>{ format!("{:.1}", m.unloads_per_hour) }</dd>
                <dt>{ "Ping-pong" }</dt><dd>{ format!("{} within the grace period, {} within an hour", m.ping_pong_within_grace, m.ping_pong_within_hour) }</dd>
                <dt>{ "Bytes moved" }</dt><dd>{ bytes(m.bytes_moved) }</dd>
                <dt>{ "Unexplained" }</dt><dd>{ m.unexplained.to_string() }</dd>
                <dt>{ "Leader replayed" }</dt><dd class="mono small">{ format!("{} + {}", short(&r.shedding_strategy), short(&r.placement_strategy)) }</dd>
            </dl>
        };
        let basis = basis_lines(&r.basis, m);
        let basis = (!basis.is_empty()).then(|| {
            html! {
                <div class="history-basis small" data-testid="history-basis">
                    { for basis.iter().map(|l| html! { <p class="mono">{ l.trim_start().to_string() }</p> }) }
                </div>
            }
        });
        let colouring = self
            .colouring
            .clone()
            .unwrap_or_else(|| LaneColouring::default_for(t));
        let colour_picker = {
            let picked = colouring.key();
            let option = |key: String, label: String, title: String| {
                let selected = key == picked;
                html! { <option value={key} {selected} {title}>{ label }</option> }
            };
            // One broker is picked with the cluster's broker picker (a search field at 1,000
            // brokers); only the broker picked is an entry of this select.
            let picked_broker = match &colouring {
                LaneColouring::Broker(b) => Some(b.clone()),
                _ => None,
            };
            let on_broker = ctx.link().callback(Msg::ColourBroker);
            html! {
                <div class="history-colouring small">
                    <label data-testid="history-colouring-label">{ "Colour lanes by " }
                        <select data-testid="history-colouring"
                            onchange={ctx.link().callback(|e: Event| Msg::Colouring(event_value(&e)))}>
                            { option(LaneColouring::Owner.key(), "owning broker".to_string(), String::new()) }
                            { option(LaneColouring::Moved.key(), "moved vs stayed".to_string(), String::new()) }
                            if let Some(b) = picked_broker.clone() {
                                { option(LaneColouring::Broker(b.clone()).key(), format!("broker {}", s.names.short(&b)), b.clone()) }
                            }
                        </select>
                    </label>
                    <label>{ " or one broker " }
                        <BrokerPicker brokers={s.brokers.clone()} names={s.names.clone()}
                            selected={picked_broker.clone().map(AttrValue::from)} empty="none"
                            what="Colour lanes by" testid="history-colouring-broker" on_pick={on_broker} />
                    </label>
                </div>
            }
        };
        let legend = s.names.shorten_text(&colouring.legend());
        let lanes_total = t.lanes.len();
        let pages = lanes_total.div_ceil(LANES_PER_PAGE).max(1);
        let lane_page = self.lane_page.min(pages - 1);
        let lanes: Vec<Html> = s
            .lane_order
            .iter()
            .skip(lane_page * LANES_PER_PAGE)
            .take(LANES_PER_PAGE)
            .filter_map(|&i| t.lanes.get(i).map(|lane| (i, lane)))
            .map(|(i, lane)| {
                let owners = t.owners_at(lane, step);
                let owners_text = owners
                    .iter()
                    .take(6)
                    .map(|(b, k)| format!("{} ×{k}", s.names.short(b)))
                    .collect::<Vec<_>>()
                    .join(", ");
                let more = owners.len().saturating_sub(6);
                html! {
                    <figure class="history-lane" data-testid="history-lane" data-namespace={lane.namespace.clone()}>
                        <figcaption class="mono small">{ named_text(&s.names, &lane.namespace) }
                            <span class="muted">{ format!(" — {} cells", lane.cells.len()) }</span></figcaption>
                        <LaneCanvas timeline={t.clone()} lane={i} step={step} dark={ctx.props().dark}
                            colouring={colouring.clone()} on_pick={on_step.clone()} />
                        <p class="small history-owners" data-testid="history-owners">
                            { format!("owners at this instant: {owners_text}") }
                            if more > 0 { { format!(" and {more} more") } }
                        </p>
                    </figure>
                }
            })
            .collect();
        let lane_nav = (pages > 1).then(|| {
            let link = ctx.link().clone();
            html! {
                <p class="pager small">
                    <button type="button" disabled={lane_page == 0}
                        onclick={{ let l = link.clone(); Callback::from(move |_| l.send_message(Msg::LanePage(lane_page.saturating_sub(1)))) }}>{ "◀" }</button>
                    { format!(" namespaces {}–{} of {lanes_total} ", lane_page * LANES_PER_PAGE + 1, ((lane_page + 1) * LANES_PER_PAGE).min(lanes_total)) }
                    <button type="button" disabled={lane_page + 1 >= pages}
                        onclick={Callback::from(move |_| link.send_message(Msg::LanePage(lane_page + 1)))}>{ "▶" }</button>
                </p>
            }
        });
        let slider = html! {
            <div class="history-slider">
                <input type="range" min="0" max={n.saturating_sub(1).to_string()} value={step.to_string()}
                    data-testid="history-slider" aria-label="Instant shown"
                    oninput={ctx.link().callback(|e: InputEvent| {
                        let v = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                            .and_then(|i| i.value().parse::<usize>().ok()).unwrap_or(0);
                        Msg::Step(v)
                    })} />
                <span class="small" data-testid="history-instant">{ minute_label(&t.times_ms, step) }</span>
            </div>
        };
        html! {
            <>
                { headline }
                { for basis }
                <HistoryAnswersView view={s.view.clone()} on_step={on_step.clone()} />
                <HistoryLeaderLogView view={s.view.clone()} on_step={on_step.clone()} />
                <ModelAccuracyView accuracy={r.load_model.clone()} />
                { slider }
                { colour_picker }
                <p class="muted small" data-testid="history-lanes-legend">{ format!("x = time, y = the 32-bit hash range; {legend}, darker = busier bundle. A band that changes colour is a bundle changing owner; a band that divides is a split. Namespaces where bundles moved or split come first; brokers' own heartbeat and SLA-monitor namespaces last. Click a map to move the instant.") }</p>
                { for lanes }
                { lane_nav.unwrap_or_default() }
                <div class="sim-charts history-load">
                    <SimChartView chart={s.chart.clone()} dark={ctx.props().dark} x_unit="snapshots"
                        cursor={u32::try_from(step).ok()}
                        on_pick={ctx.link().callback(|k: u32| Msg::Step(k as usize))} />
                </div>
                { self.changes_view(ctx, s) }
            </>
        }
    }

    fn changes_view(&self, ctx: &Context<Self>, s: &Shown) -> Html {
        let r = &s.view.report;
        let (rows, total) = change_page(r, self.cause.as_deref(), self.page, CHANGES_PER_PAGE);
        let mut causes: Vec<&'static str> = r.changes.iter().map(|c| c.cause.name()).collect();
        causes.sort_unstable();
        causes.dedup();
        let pages = total.div_ceil(CHANGES_PER_PAGE).max(1);
        let page = self.page.min(pages - 1);
        let link = ctx.link().clone();
        let detail = self.selected.and_then(|i| r.changes.get(i)).map(|c| {
            let t0 = r.times_ms.first().copied().unwrap_or(0);
            html! {
                <div class="history-reason panel" data-testid="history-reason" role="region" aria-label="Reason">
                    <p><strong>{ named_text(&s.names, &change_text(&c.change)) }</strong></p>
                    <p class="small">{ format!("between minute {:.0} and minute {:.0} (snapshots {} and {})",
                        (c.from_ms - t0) as f64 / 60_000.0, (c.at_ms - t0) as f64 / 60_000.0, c.step + 1, c.step + 2) }</p>
                    <p class="small" data-testid="history-reason-text">{ named_text(&s.names, &cause_text(&c.cause)) }</p>
                    if c.throughput_bytes_per_sec > 0.0 {
                        <p class="small muted">{ format!("throughput {}", bytes_per_sec(c.throughput_bytes_per_sec)) }</p>
                    }
                </div>
            }
        });
        html! {
            <div class="history-changes">
                <h3>{ format!("Changes ({total})") }</h3>
                <label class="small">{ "Cause " }
                    <select data-testid="history-cause-filter" onchange={ctx.link().callback(|e: Event| Msg::Cause(event_value(&e)))}>
                        <option value="" selected={self.cause.is_none()}>{ "all" }</option>
                        { for causes.iter().map(|c| html! { <option value={*c} selected={self.cause.as_deref() == Some(*c)}>{ *c }</option> }) }
                    </select>
                </label>
                { detail.unwrap_or_default() }
                <ol class="history-change-list">
                    { for rows.into_iter().map(|row| {
                        let index = row.index;
                        let step = r.changes.get(index).map_or(0, |c| c.step + 1);
                        let onclick = { let l = link.clone(); Callback::from(move |_| { l.send_message(Msg::Select(index)); l.send_message(Msg::Step(step)); }) };
                        html! {
                            <li>
                                <button type="button" class={classes!("linkish", (self.selected == Some(index)).then_some("selected"))}
                                    data-testid="history-change" data-cause={row.cause} {onclick}>
                                    <span class="mono small">{ format!("min {:.0} ", row.minute) }</span>
                                    { named_text(&s.names, &row.text) }
                                    <span class={classes!("cause", row.cause)}>{ format!(" {}", row.cause) }</span>
                                </button>
                            </li>
                        }
                    }) }
                </ol>
                if pages > 1 {
                    <p class="pager small">
                        <button type="button" disabled={page == 0}
                            onclick={{ let l = link.clone(); Callback::from(move |_| l.send_message(Msg::Page(page.saturating_sub(1)))) }}>{ "◀" }</button>
                        { format!(" page {} of {pages} ", page + 1) }
                        <button type="button" disabled={page + 1 >= pages}
                            onclick={Callback::from(move |_| link.send_message(Msg::Page(page + 1)))}>{ "▶" }</button>
                    </p>
                }
            </div>
        }
    }
}

/// Bytes in binary units (`1.5 GiB`).
fn bytes(v: f64) -> String {
    let s = bytes_per_sec(v);
    s.strip_suffix("/s").unwrap_or(&s).to_string()
}

/// The class name without its package.
fn short(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

#[derive(Clone, Properties)]
struct LaneProps {
    timeline: Rc<Timeline>,
    lane: usize,
    step: usize,
    dark: bool,
    colouring: LaneColouring,
    on_pick: Callback<usize>,
}

impl PartialEq for LaneProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.timeline, &o.timeline)
            && self.lane == o.lane
            && self.step == o.step
            && self.dark == o.dark
            && self.colouring == o.colouring
    }
}

/// The lane's cells: drawn when the timeline, the lane or the theme change, not when the
/// instant moves (a day of one-minute snapshots is up to tens of thousands of cells per lane).
fn draw_lane(
    canvas: &web_sys::HtmlCanvasElement,
    t: &Timeline,
    lane: &Lane,
    dark: bool,
    colouring: &LaneColouring,
) {
    let Some((ctx, width)) = hidpi_context(canvas, LANE_HEIGHT_PX) else {
        return;
    };
    ctx.set_fill_style_str(if dark { "#1b1f27" } else { "#f3f4f7" });
    ctx.fill_rect(0.0, 0.0, width, LANE_HEIGHT_PX);
    let edges = t.edges_ms();
    let painter = LanePainter::new(t, lane, colouring);
    // One colour string per colour, not per cell.
    let mut colours: HashMap<[u8; 3], String> = HashMap::new();
    for cell in &lane.cells {
        let rgb = painter.colour(cell);
        let colour = colours.entry(rgb).or_insert_with(|| css_hex(rgb));
        let r = Timeline::rect(&edges, cell, width, LANE_HEIGHT_PX);
        ctx.set_fill_style_str(colour);
        // At least a pixel wide so a one-minute owner still shows as a stripe.
        ctx.fill_rect(r.x, r.y, r.w.max(1.0), r.h.max(1.0));
    }
    // How many times the cells were drawn: the e2e test checks a moved instant draws none.
    let draws = canvas
        .get_attribute("data-draws")
        .and_then(|d| d.parse::<u32>().ok())
        .unwrap_or(0);
    let _ = canvas.set_attribute("data-draws", &draws.saturating_add(1).to_string());
}

/// The instant's cursor, on its own canvas over the cells.
fn draw_cursor(canvas: &web_sys::HtmlCanvasElement, t: &Timeline, step: usize, dark: bool) {
    let Some((ctx, width)) = hidpi_context(canvas, LANE_HEIGHT_PX) else {
        return;
    };
    ctx.clear_rect(0.0, 0.0, width, LANE_HEIGHT_PX);
    let edges = t.edges_ms();
    if let (Some(a), Some(b)) = (edges.get(step), edges.get(step + 1)) {
        let total = edges.last().copied().unwrap_or(1.0).max(1.0);
        let x = (a + b) / 2.0 / total * width;
        ctx.set_stroke_style_str(if dark { "#ffffff" } else { "#111111" });
        ctx.set_line_width(1.5);
        ctx.begin_path();
        ctx.move_to(x, 0.0);
        ctx.line_to(x, LANE_HEIGHT_PX);
        ctx.stroke();
    }
}

#[function_component(LaneCanvas)]
fn lane_canvas(p: &LaneProps) -> Html {
    let canvas = use_node_ref();
    let cursor = use_node_ref();
    {
        let canvas = canvas.clone();
        let timeline = p.timeline.clone();
        // Keyed by the timeline's address: a new series is a new `Rc`.
        let key = (
            Rc::as_ptr(&p.timeline) as usize,
            p.lane,
            p.dark,
            p.colouring.clone(),
        );
        use_effect_with(key, move |(_, lane, dark, colouring)| {
            if let (Some(c), Some(l)) = (
                canvas.cast::<web_sys::HtmlCanvasElement>(),
                timeline.lanes.get(*lane),
            ) {
                draw_lane(&c, &timeline, l, *dark, colouring);
            }
        });
    }
    {
        let cursor = cursor.clone();
        let timeline = p.timeline.clone();
        let key = (Rc::as_ptr(&p.timeline) as usize, p.step, p.dark);
        use_effect_with(key, move |&(_, step, dark)| {
            if let Some(c) = cursor.cast::<web_sys::HtmlCanvasElement>() {
                draw_cursor(&c, &timeline, step, dark);
            }
        });
    }
    let onclick = {
        let (canvas, t, pick) = (canvas.clone(), p.timeline.clone(), p.on_pick.clone());
        Callback::from(move |e: MouseEvent| {
            let Some(c) = canvas.cast::<web_sys::HtmlCanvasElement>() else {
                return;
            };
            let edges = t.edges_ms();
            pick.emit(Timeline::step_at(
                &edges,
                f64::from(e.offset_x()),
                f64::from(c.client_width()),
            ));
        })
    };
    let cells = p.timeline.lanes.get(p.lane).map_or(0, |l| l.cells.len());
    html! {
        <div class="history-map-box">
            <canvas ref={canvas} class="history-map" data-testid="history-map" data-cells={cells.to_string()}
                role="img" aria-label="Owners over time by hash range" {onclick}></canvas>
            <canvas ref={cursor} class="history-cursor" data-testid="history-cursor" aria-hidden="true"></canvas>
        </div>
    }
}
