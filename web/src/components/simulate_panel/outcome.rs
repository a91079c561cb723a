//! The Simulate panel's results: the summary table per configuration, warnings, downloads and
//! the charts (spread, hottest broker, unloads, per-broker usage), all drawn from core's
//! comparison and chart data.

use std::rc::Rc;

use lbplan_core::config::simple_class_name;
use lbplan_core::model::Snapshot;
use lbplan_core::simulate::Comparison;
use lbplan_core::view::palette::css_hex;
use lbplan_core::view::sim_chart::{Chart, broker_usage_chart, comparison_charts, run_colour};
use yew::prelude::*;

use super::{Msg, SimulatePanel};
use crate::components::sim_chart::SimChartView;
use crate::components::styled::Swatch;
use crate::format;

/// A finished comparison and what is drawn from it.
pub(super) struct Outcome {
    pub(super) comparison: Comparison,
    pub(super) charts: Vec<Rc<Chart>>,
    /// Per run; `None` when broker usage was not kept.
    pub(super) broker_charts: Vec<Option<Rc<Chart>>>,
    /// The snapshot the runs started from (the replay's cycle 0).
    pub(super) snapshot: Rc<Snapshot>,
    pub(super) elapsed_ms: f64,
}

impl SimulatePanel {
    pub(super) fn finish(
        &mut self,
        comparison: Comparison,
        elapsed_ms: f64,
        snapshot: Rc<Snapshot>,
    ) {
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

    pub(super) fn view_outcome(&self, ctx: &Context<Self>) -> Html {
        let Some(o) = self.outcome.clone() else {
            return html! {};
        };
        let link = ctx.link();
        let p = ctx.props();
        let c = &o.comparison;
        let cycles_run = c.runs.iter().map(|r| r.cycles.len()).max().unwrap_or(0);
        let cursor = self.replay_cycle.checked_sub(1);
        let pick = link.callback(|k: u32| Msg::ReplayCycle(k + 1));
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
                { self.view_replay(ctx, &o) }
            </div>
        }
    }
}
