//! The Rebalance panel: a goal, limits and brokers to drain in; the core's proposal out (computed in
//! the plan worker, off the page's thread, with progress): its summary, the trade-off chart (SVG),
//! the "would Pulsar undo it?" verdict and notes, then the proposal's plan in the ordinary plan view
//! and export panel (scripts, Apply). The proposal is made by the app's plan worker, which holds
//! the snapshot it imported: the job names it, the page does not send it.

use std::rc::Rc;

use lbplan_core::config::Profile;
use lbplan_core::naming::BrokerNames;
use lbplan_core::plan::Plan;
use lbplan_core::rebalance::{CurvePoint, Goal, Limits, Proposal};
use lbplan_worker::protocol::{RebalanceJob, Request, WORKER_PROTOCOL_VERSION};
use yew::prelude::*;

use super::broker_picker::BrokerPicker;
use super::{ExportPanel, PlanView, event_value};
use crate::format;
use crate::plan_client::{FIRST_REBALANCE_ID, RebalanceAnswer};
use crate::state::Loaded;
use crate::worker_import::WorkerImports;

#[derive(Clone, Properties)]
pub struct RebalanceProps {
    pub loaded: Rc<Loaded>,
    pub profile: Option<Profile>,
    /// `broker.conf` overrides from the edit history.
    pub overrides: Rc<Vec<(String, String)>>,
    /// The app's plan worker (it holds the loaded snapshot).
    pub plan_worker: WorkerImports,
    pub readonly: bool,
    #[prop_or_default]
    pub admin_base_url: Option<AttrValue>,
    #[prop_or_default]
    pub auth_headers: Option<js_sys::Function>,
    pub on_export: Callback<(String, String)>,
    /// Set by a worse plan's "Propose a rebalance instead": the goal and move limit to start from.
    #[prop_or_default]
    pub prefill: Option<RebalancePrefill>,
    /// The calibration the predictions use (`None`: the default model).
    #[prop_or_default]
    pub calibration: Option<Rc<crate::state::LoadedCalibration>>,
}

/// What "Propose a rebalance instead" puts in the panel (core's `verdict::rebalance_instead`);
/// `serial` changes with each click.
#[derive(Clone, Debug, PartialEq)]
pub struct RebalancePrefill {
    pub serial: u32,
    pub goal: String,
    pub max_moves: Option<usize>,
}

impl PartialEq for RebalanceProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.loaded, &o.loaded)
            && self.profile == o.profile
            && self.overrides == o.overrides
            && self.plan_worker == o.plan_worker
            && self.readonly == o.readonly
            && self.admin_base_url == o.admin_base_url
            && self.auth_headers == o.auth_headers
            && self.on_export == o.on_export
            && self.prefill == o.prefill
            && self.calibration == o.calibration
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Status {
    Idle,
    Running { done: u32, total: u32 },
    Failed(String),
    Done(Rc<Proposal>),
}

/// Parses an optional count field ("" → none).
fn count(text: &str, what: &str) -> Result<Option<usize>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<usize>()
        .map(Some)
        .map_err(|_| format!("{what}: `{t}` is not a whole number"))
}

#[function_component(RebalancePanel)]
pub fn rebalance_panel(props: &RebalanceProps) -> Html {
    let goal = use_state(|| "max/mean<=1.15".to_string());
    let max_moves = use_state(String::new);
    let per_broker = use_state(String::new);
    let drain = use_state(Vec::<String>::new);
    let status = use_state(|| Status::Idle);
    let job_id = use_mut_ref(|| FIRST_REBALANCE_ID);
    // A worse plan's "Propose a rebalance instead": its goal and move limit, the cluster's own
    // snapshot and settings (the panel's, as they are); no drain.
    {
        let (goal, max_moves, drain) = (goal.clone(), max_moves.clone(), drain.clone());
        use_effect_with(props.prefill.clone(), move |p| {
            if let Some(p) = p {
                goal.set(p.goal.clone());
                max_moves.set(p.max_moves.map(|m| m.to_string()).unwrap_or_default());
                drain.set(Vec::new());
            }
        });
    }

    // One way to propose: the form's limits, and a point picked on the curve when there is one.
    let run = {
        let (goal, max_moves, per_broker, drain, status, job_id) = (
            goal.clone(),
            max_moves.clone(),
            per_broker.clone(),
            drain.clone(),
            status.clone(),
            job_id.clone(),
        );
        let props = props.clone();
        Callback::from(move |chosen: Option<usize>| {
            let limits = match (
                count(&max_moves, "max moves"),
                count(&per_broker, "max moves per broker"),
            ) {
                (Ok(m), Ok(k)) => Limits {
                    max_moves: m,
                    max_moves_per_broker: k,
                    drain: (*drain).clone(),
                },
                (Err(e), _) | (_, Err(e)) => {
                    status.set(Status::Failed(e));
                    return;
                }
            };
            if let Err(e) = Goal::parse(&goal) {
                status.set(Status::Failed(e.to_string()));
                return;
            }
            let id = {
                let mut n = job_id.borrow_mut();
                *n = n.wrapping_add(1).max(FIRST_REBALANCE_ID);
                *n
            };
            start_job(
                &props,
                &status,
                &job_id,
                id,
                (*goal).clone(),
                limits,
                chosen,
            );
        })
    };
    let on_run = run.reform(|_: MouseEvent| None);
    let on_pick = run.reform(Some);

    // The drain picker: a name typed or chosen from the list (short or full, read back by core's
    // one naming rule, with "did you mean"), each chosen broker a removable chip.
    let names = {
        let loaded = props.loaded.clone();
        use_memo(props.loaded.id, move |_| {
            BrokerNames::new(loaded.snapshot.brokers.keys().map(String::as_str))
        })
    };
    let brokers = {
        let loaded = props.loaded.clone();
        use_memo(props.loaded.id, move |_| {
            Rc::new(loaded.snapshot.brokers.keys().cloned().collect::<Vec<_>>())
        })
    };
    let on_add_drain = {
        let drain = drain.clone();
        Callback::from(move |id: Option<String>| {
            if let Some(id) = id
                && !drain.contains(&id)
            {
                let mut next = (*drain).clone();
                next.push(id);
                drain.set(next);
            }
        })
    };
    let remove_drain = |id: &str| {
        let (drain, id) = (drain.clone(), id.to_string());
        Callback::from(move |_: MouseEvent| {
            drain.set(drain.iter().filter(|d| **d != id).cloned().collect());
        })
    };
    let text_input = |state: &UseStateHandle<String>| {
        let state = state.clone();
        Callback::from(move |e: Event| state.set(event_value(&e)))
    };

    let body = match &*status {
        Status::Idle => html! {},
        Status::Running { done, total } => html! {
            <p class="busy small" role="status" data-testid="rebalance-progress">
                <progress max={total.to_string()} value={done.to_string()} />
                { format!(" Proposing… step {done} of {total} (search, checks against the leader, plan)") }
            </p>
        },
        Status::Failed(e) => {
            html! { <p class="error" role="alert" data-testid="rebalance-error">{ e.clone() }</p> }
        }
        Status::Done(p) => view_proposal(p, props, &on_pick),
    };

    html! {
        <section class="panel rebalance" data-testid="rebalance-panel">
            <h2>{ "Rebalance" }</h2>
            <p class="muted small">{ "Unloads with destinations toward a goal, within Pulsar's placement rules, checked against the configured leader: would Pulsar undo it?" }</p>
            <div class="rebalance-form">
                <label>{ "Goal " }<input type="text" value={(*goal).clone()} data-testid="rebalance-goal"
                    onchange={text_input(&goal)} placeholder="max/mean<=1.15, std<=5% or max<=80%" /></label>
                <label>{ "Max moves " }<input type="number" min="0" value={(*max_moves).clone()}
                    data-testid="rebalance-max-moves" onchange={text_input(&max_moves)} /></label>
                <label>{ "Max moves per broker " }<input type="number" min="0" value={(*per_broker).clone()}
                    data-testid="rebalance-max-per-broker" onchange={text_input(&per_broker)} /></label>
                <label>{ "Drain " }<BrokerPicker brokers={(*brokers).clone()} names={names.clone()}
                    empty="broker to empty" what="Drain" testid="rebalance-drain-input" adds=true
                    on_pick={on_add_drain} /></label>
                if !drain.is_empty() {
                    <ul class="chips small" data-testid="rebalance-drain-chips" aria-label="Brokers to drain">
                        { for drain.iter().map(|d| html! {
                            <li data-testid="rebalance-drain-chip" data-broker={d.clone()} title={d.clone()}>
                                { names.short(d).to_string() }
                                <button type="button" aria-label={format!("Do not drain {}", names.short(d))}
                                    onclick={remove_drain(d)}>{ "×" }</button>
                            </li>
                        }) }
                    </ul>
                }
                <button type="button" class="primary" data-testid="run-rebalance" onclick={on_run}
                    disabled={matches!(*status, Status::Running { .. })}>{ "Propose" }</button>
            </div>
            { body }
        </section>
    }
}

/// Sends the job to the app's plan worker (started if there is none); answers update `status`
/// while `id` is the newest job.
fn start_job(
    props: &RebalanceProps,
    status: &UseStateHandle<Status>,
    job_id: &Rc<std::cell::RefCell<u32>>,
    id: u32,
    goal: String,
    limits: Limits,
    chosen_moves: Option<usize>,
) {
    let hub = &props.plan_worker;
    // A worker started after the last one died is given the snapshot's files first.
    if let Err(e) = hub.hold(props.loaded.id) {
        status.set(Status::Failed(e));
        return;
    }
    let slot = hub.worker.borrow();
    let Some(w) = slot.as_ref() else {
        return;
    };
    let (s, j) = (status.clone(), job_id.clone());
    w.set_on_rebalance(Callback::from(move |a: RebalanceAnswer| match a {
        RebalanceAnswer::Progress { id, done, total } if id == *j.borrow() => {
            s.set(Status::Running { done, total });
        }
        RebalanceAnswer::Proposed { id, result } if id == *j.borrow() => s.set(match result {
            Ok(p) => Status::Done(Rc::new(*p)),
            Err(e) => Status::Failed(e),
        }),
        RebalanceAnswer::Failed { id, message } if id == 0 || id == *j.borrow() => {
            s.set(Status::Failed(message))
        }
        _ => {}
    }));
    let loaded = &props.loaded;
    let request = Request::Rebalance(Box::new(RebalanceJob {
        format_version: WORKER_PROTOCOL_VERSION,
        id,
        snapshot_id: loaded.id,
        snapshot: None,
        profile: props.profile,
        settings: (*props.overrides).clone(),
        goal,
        limits,
        seed: 0,
        outlook_cycles: 10,
        chosen_moves,
        cpu_cost_factors: crate::state::LoadedCalibration::factors(props.calibration.as_ref()),
    }));
    match serde_json::to_string(&request) {
        Ok(text) => {
            status.set(Status::Running { done: 0, total: 1 });
            w.send(text, loaded.id);
        }
        Err(e) => status.set(Status::Failed(format!(
            "cannot send the job to the worker: {e}"
        ))),
    }
}

fn view_proposal(p: &Rc<Proposal>, props: &RebalanceProps, on_pick: &Callback<usize>) -> Html {
    let b = &p.balance_before;
    let a = &p.plan.balance_after;
    let fixed = p.stick.as_ref().is_some_and(|s| s.fixed_point);
    let plan: Rc<Result<Plan, String>> = Rc::new(Ok(p.plan.clone()));
    html! {
        <div class="rebalance-result" data-testid="rebalance-result">
            // A drain's outcome is what the operator acts on (stop the broker or not): first.
            { for p.drain_status.iter().map(|d| html! {
                <div class={classes!("drain-status", if d.empty { "ok" } else { "warn" })}
                    data-testid="rebalance-drain-status" data-empty={d.empty.to_string()}>
                    <p><strong>{ if d.empty { "Drained. " } else { "Not drained. " } }</strong>{ d.headline.clone() }</p>
                    if !d.bundles_left.is_empty() {
                        <ul class="small mono">
                            { for d.bundles_left.iter().take(10).map(|b| html! { <li>{ b.clone() }</li> }) }
                            if d.bundles_left.len() > 10 {
                                <li>{ format!("… and {} more", d.bundles_left.len() - 10) }</li>
                            }
                        </ul>
                    }
                </div>
            }) }
            <p data-testid="rebalance-summary">
                <strong>{ format!("{} move(s)", p.chosen_moves) }</strong>
                { format!(
                    " toward {}: max/mean {:.3} → {:.3}, max {} → {}, std {} → {} — goal {}.",
                    p.goal, b.max_over_mean, a.max_over_mean,
                    format::pct(b.max_usage_fraction * 100.0), format::pct(a.max_usage_fraction * 100.0),
                    format::pct(b.std_usage_fraction * 100.0), format::pct(a.std_usage_fraction * 100.0),
                    if p.goal_met { "met" } else { "not met" }
                ) }
            </p>
            <p class={classes!("stick", if fixed { "ok" } else { "warn" })} data-testid="rebalance-stick">
                <strong>{ if fixed { "Pulsar leaves it alone. " } else { "Pulsar would move things again. " } }</strong>
                { p.stick_summary.clone() }
            </p>
            if !p.notes.is_empty() {
                <ul class="small" data-testid="rebalance-notes">
                    { for p.notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }
                </ul>
            }
            { tradeoff_chart(&p.curve, p.chosen_moves, &p.goal, on_pick) }
            <PlanView plan={plan.clone()} applied_order=true />
            <ExportPanel plan={plan} readonly={props.readonly}
                snapshot={Some(props.loaded.snapshot.clone())}
                admin_base_url={props.admin_base_url.clone()}
                auth_headers={props.auth_headers.clone()} on_export={props.on_export.clone()} />
        </div>
    }
}

const W: f64 = 480.0;
const H: f64 = 160.0;
const PAD: f64 = 32.0;

/// Moves (x) against max/mean (y), with the goal's line when it is a max/mean goal and the chosen
/// size marked: where a smaller plan stops.
fn tradeoff_chart(
    curve: &[CurvePoint],
    chosen: usize,
    goal: &str,
    on_pick: &Callback<usize>,
) -> Html {
    if curve.len() < 2 {
        return html! {};
    }
    let max_x = curve.iter().map(|c| c.moves).max().unwrap_or(1).max(1) as f64;
    let max_y = curve.iter().map(|c| c.max_over_mean).fold(1.0, f64::max);
    let min_y = curve
        .iter()
        .map(|c| c.max_over_mean)
        .fold(max_y, f64::min)
        .min(1.0);
    let span = (max_y - min_y).max(1e-6);
    let x = |m: usize| PAD + (m as f64 / max_x) * (W - 2.0 * PAD);
    let y = |v: f64| H - PAD + -((v - min_y) / span) * (H - 2.0 * PAD);
    let points: Vec<String> = curve
        .iter()
        .map(|c| format!("{:.1},{:.1}", x(c.moves), y(c.max_over_mean)))
        .collect();
    let goal_line = match Goal::parse(goal) {
        Ok(Goal::MaxOverMean(l)) if l >= min_y && l <= max_y => Some(y(l)),
        _ => None,
    };
    let chosen_point = curve.iter().find(|c| c.moves == chosen);
    // About ten points: evenly spaced, the chosen one and the last.
    let shown: Vec<&CurvePoint> = curve
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            i % (curve.len() / 8).max(1) == 0 || c.moves == chosen || i + 1 == curve.len()
        })
        .map(|(_, c)| c)
        .collect();
    html! {
        <figure class="tradeoff" data-testid="rebalance-tradeoff">
            // Drawn at its own size (never stretched to the panel's width, which blew the 11 px
            // labels up with it); static/style.css lets it shrink on narrow screens.
            <svg viewBox={format!("0 0 {W} {H}")} width={W.to_string()} height={H.to_string()} role="img"
                aria-label="Trade-off: moves against the resulting max/mean">
                <line x1={PAD.to_string()} y1={(H - PAD).to_string()} x2={(W - PAD).to_string()} y2={(H - PAD).to_string()} stroke="currentColor" stroke-width="1" />
                <line x1={PAD.to_string()} y1={PAD.to_string()} x2={PAD.to_string()} y2={(H - PAD).to_string()} stroke="currentColor" stroke-width="1" />
                if let Some(gy) = goal_line {
                    <line x1={PAD.to_string()} y1={gy.to_string()} x2={(W - PAD).to_string()} y2={gy.to_string()}
                        stroke="#2a9d8f" stroke-dasharray="4 3" stroke-width="1" />
                }
                <polyline points={points.join(" ")} fill="none" stroke="#e76f51" stroke-width="2" />
                // The table's points, each one click from its plan.
                { for shown.iter().filter(|c| c.moves != chosen).map(|c| {
                    let k = c.moves;
                    html! {
                        <circle class="pick" cx={x(k).to_string()} cy={y(c.max_over_mean).to_string()} r="5"
                            fill="transparent" stroke="#e76f51" stroke-width="1"
                            onclick={on_pick.reform(move |_: MouseEvent| k)}>
                            <title>{ format!("Plan {k} moves: max/mean {:.3}", c.max_over_mean) }</title>
                        </circle>
                    }
                }) }
                if let Some(c) = chosen_point {
                    <circle cx={x(c.moves).to_string()} cy={y(c.max_over_mean).to_string()} r="4" fill="#264653" />
                }
                <text x={PAD.to_string()} y={(H - 8.0).to_string()} font-size="11" fill="currentColor">{ "0 moves" }</text>
                <text x={(W - PAD).to_string()} y={(H - 8.0).to_string()} font-size="11" fill="currentColor" text-anchor="end">{ format!("{} moves", max_x as usize) }</text>
                <text x="4" y={(PAD - 8.0).to_string()} font-size="11" fill="currentColor">{ format!("max/mean {max_y:.2}") }</text>
                <text x="4" y={(H - PAD + 12.0).to_string()} font-size="11" fill="currentColor">{ format!("{min_y:.2}") }</text>
            </svg>
            <figcaption class="small muted">
                { format!("Each move's resulting max/mean (std in the table below); the dot is the proposal ({chosen} moves), the dashed line the goal. Click a point, or a row's button, for the plan of that many moves.") }
            </figcaption>
            <table class="small">
                <thead><tr><th>{ "moves" }</th><th>{ "max/mean" }</th><th>{ "std" }</th><th>{ "moved" }</th><th></th></tr></thead>
                <tbody>
                    { for shown.iter().map(|c| {
                        let k = c.moves;
                        html! {
                            <tr class={classes!((k == chosen).then_some("chosen"))} data-testid="rebalance-point" data-moves={k.to_string()}>
                                <td class="num">{ k }</td>
                                <td class="num">{ format!("{:.3}", c.max_over_mean) }</td>
                                <td class="num">{ format::pct(c.std_usage_fraction * 100.0) }</td>
                                <td class="num">{ format::bytes_per_sec(c.bytes_moved_per_sec) }</td>
                                <td>
                                    if let Some(why) = &c.rises_because {
                                        <span class="small warn" data-testid="rebalance-rise" title={why.clone()}>{ format!("↑ {why}; ") }</span>
                                    }
                                    if k == chosen {
                                        <span class="muted">{ "this plan" }</span>
                                    } else {
                                        <button type="button" class="link" data-testid="rebalance-pick"
                                            onclick={on_pick.reform(move |_: MouseEvent| k)}>{ format!("Plan {k} moves") }</button>
                                    }
                                </td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </figure>
    }
}
