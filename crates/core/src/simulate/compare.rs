//! Several configurations on the same snapshot, scenario and seed, side by side (JSON, a text
//! table, CSV), and the built-in scenarios (the files under `scenarios/`, embedded).

use serde::{Deserialize, Serialize};

use crate::config::simple_class_name;
use crate::model::Snapshot;
use crate::model::fingerprint::snapshot_fingerprint;

use super::engine::{RunOptions, SimulateError, simulate};
use super::error::ScenarioError;
use super::metrics::SimulationRun;
use super::run_config::RunConfig;
use super::scenario::Scenario;

/// Version of the comparison JSON this crate writes.
/// 2: `total_bytes_moved` (bytes over the cycles' durations) replaces `total_bytes_moved_per_sec`
/// (a sum of rates); over-capacity counts and `identical_runs` added. 3: each run's `profile` is
/// the Pulsar release used (`4.0.7`) and `release_basis` says why.
pub const COMPARISON_FORMAT_VERSION: u32 = 3;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub format_version: u32,
    pub scenario: String,
    pub snapshot_fingerprint: String,
    pub seed: u64,
    pub cycles: u32,
    pub runs: Vec<SimulationRun>,
    /// Pairs `[k, j]` (k < j, indices into `runs`) whose every cycle measured the same: the two
    /// configurations behaved identically on this snapshot and scenario (see [`identical_runs`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identical_runs: Vec<[usize; 2]>,
}

/// Pairs of runs whose per-cycle metrics and summaries are equal (both complete). Two
/// configurations that read differently can still behave the same (a key the snapshot already
/// sets, a strategy the broker falls back from), and a comparison must say so rather than show two
/// rows and two chart lines that only look like a comparison.
pub fn identical_runs(runs: &[SimulationRun]) -> Vec<[usize; 2]> {
    let mut out = Vec::new();
    for (k, a) in runs.iter().enumerate() {
        for (j, b) in runs.iter().enumerate().skip(k + 1) {
            if !a.cancelled && !b.cancelled && a.summary == b.summary && a.cycles == b.cycles {
                out.push([k, j]);
            }
        }
    }
    out
}

/// Runs every configuration (an empty list runs the snapshot's own configuration once).
/// `progress(done, total)` counts cycles over all runs; returning `false` stops after the current
/// cycle (that run is marked `cancelled`, later ones are not started).
pub fn compare(
    snapshot: &Snapshot,
    scenario: &Scenario,
    configs: &[RunConfig],
    opts: RunOptions,
    progress: &mut dyn FnMut(u32, u32) -> bool,
) -> Result<Comparison, SimulateError> {
    let default = [RunConfig::default()];
    let configs = if configs.is_empty() {
        &default[..]
    } else {
        configs
    };
    let n = u32::try_from(configs.len()).unwrap_or(u32::MAX);
    let total = opts.cycles.saturating_mul(n);
    let mut out = Comparison {
        format_version: COMPARISON_FORMAT_VERSION,
        scenario: scenario.name.clone(),
        snapshot_fingerprint: snapshot_fingerprint(snapshot),
        seed: opts.seed,
        cycles: opts.cycles,
        runs: Vec::new(),
        identical_runs: Vec::new(),
    };
    for (k, cfg) in configs.iter().enumerate() {
        let offset = opts
            .cycles
            .saturating_mul(u32::try_from(k).unwrap_or(u32::MAX));
        let run = simulate(snapshot, scenario, cfg, opts, &mut |done, _| {
            progress(offset.saturating_add(done), total)
        })?;
        let stop = run.cancelled;
        out.runs.push(run);
        if stop {
            break;
        }
    }
    out.identical_runs = identical_runs(&out.runs);
    Ok(out)
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "never".to_string(), |x| x.to_string())
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// The widest line the default text table may print (`--wide` prints every column).
pub const TABLE_MAX_COLUMNS: usize = 120;

/// One column: header, and the cell of a run.
type Column = (&'static str, fn(&SimulationRun) -> String);

/// Every column, in order; the narrow table keeps the ones in [`NARROW`]. Usages and std are
/// percentages (the plan prints percentages too); bytes moved are GiB.
const COLUMNS: [Column; 17] = [
    ("config", |r| r.config.name.clone()),
    ("shedding", |r| {
        simple_class_name(&r.shedding_strategy).to_string()
    }),
    ("placement", |r| {
        simple_class_name(&r.placement_strategy).to_string()
    }),
    ("balanced@cycle", |r| opt(r.summary.balanced_at_cycle)),
    ("balanced@min", |r| opt(r.summary.balanced_after_minutes)),
    ("unloads", |r| r.summary.total_unloads.to_string()),
    ("cycles w/ unloads", |r| {
        r.summary.cycles_with_unloads.to_string()
    }),
    ("last unload", |r| opt(r.summary.last_unload_cycle)),
    ("moved GiB", |r| {
        format!("{:.1}", r.summary.total_bytes_moved / GIB)
    }),
    ("thrashing", |r| r.summary.total_thrashing.to_string()),
    ("from recent dest", |r| {
        r.summary.total_unloads_from_recent_destinations.to_string()
    }),
    ("splits", |r| r.summary.total_splits.to_string()),
    ("peak max", |r| pct(r.summary.peak_max_usage_fraction)),
    ("final max", |r| pct(r.summary.final_max_usage_fraction)),
    ("final max/mean", |r| {
        format!("{:.2}", r.summary.final_max_over_mean)
    }),
    ("final std", |r| pct(r.summary.final_std_usage_fraction)),
    ("over capacity", |r| {
        r.summary.cycles_over_capacity.to_string()
    }),
];

/// The default table's columns (indices into [`COLUMNS`]).
const NARROW: [usize; 9] = [0, 3, 5, 8, 9, 12, 13, 15, 16];

/// An aligned text table of the runs' summaries: [`TABLE_MAX_COLUMNS`] wide at most (configuration
/// names cut with `…` when needed), or every column with `wide`.
pub fn render_table_with(c: &Comparison, wide: bool) -> String {
    let columns: Vec<&Column> = if wide {
        COLUMNS.iter().collect()
    } else {
        NARROW.iter().filter_map(|&i| COLUMNS.get(i)).collect()
    };
    let mut rows: Vec<Vec<String>> = c
        .runs
        .iter()
        .map(|r| columns.iter().map(|(_, cell)| cell(r)).collect())
        .collect();
    let mut widths: Vec<usize> = columns.iter().map(|(h, _)| h.chars().count()).collect();
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    if !wide {
        // Only the first column (the name) is cut; the numbers always fit.
        let rest: usize = widths.iter().skip(1).map(|w| w + 2).sum();
        let room = TABLE_MAX_COLUMNS.saturating_sub(rest).max(8);
        if let Some(w) = widths.first_mut()
            && *w > room
        {
            *w = room;
            for r in &mut rows {
                if let Some(name) = r.first_mut() {
                    *name = crate::text::fit_width(name, room);
                }
            }
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = w.saturating_sub(cell.chars().count());
            if i == 0 || (wide && i < 3) {
                s.push_str(cell);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = format!(
        "scenario {} · {} cycles · seed {} · snapshot {}\n",
        c.scenario, c.cycles, c.seed, c.snapshot_fingerprint
    );
    if let Some(r) = c.runs.first() {
        out.push_str(&format!(
            "balanced = std of weighted max usage < {} for {} consecutive cycles; thrashing window {} cycles\n",
            pct(r.summary.balanced_std_fraction),
            r.summary.balanced_consecutive_cycles,
            r.summary.thrashing_window_cycles
        ));
        out.push_str(
            "moved GiB = unloaded bundles' throughput × the cycle's duration; over capacity = cycles with a broker over 100 %\n\n",
        );
    }
    out.push_str(&line(columns.iter().map(|(h, _)| *h).collect()));
    for r in &rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    if !wide {
        out.push_str("(--wide: strategies, minutes, last unload, from recent dest, splits, max/mean; json/csv: all)\n");
    }
    // Below the table, within its width too.
    out.push_str(&release_lines(c));
    for r in &c.runs {
        if let Some(flag) = r.summary.over_capacity_text() {
            push_wrapped(&mut out, &format!("[{}] {flag}", r.config.name));
        }
    }
    for [k, j] in &c.identical_runs {
        if let (Some(a), Some(b)) = (c.runs.get(*k), c.runs.get(*j)) {
            push_wrapped(
                &mut out,
                &format!(
                    "identical: [{}] and [{}] measured the same in every cycle (these settings make no difference here)",
                    a.config.name, b.config.name
                ),
            );
        }
    }
    for r in &c.runs {
        for w in &r.warnings {
            push_wrapped(&mut out, &format!("warning [{}]: {w}", r.config.name));
        }
        if r.cancelled {
            push_wrapped(
                &mut out,
                &format!(
                    "[{}] cancelled after {} cycles",
                    r.config.name, r.summary.cycles_run
                ),
            );
        }
    }
    out
}

/// Which release each run decided as, once: one line when every run used the same, else one per
/// release naming its runs.
fn release_lines(c: &Comparison) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for r in &c.runs {
        let Some(basis) = &r.release_basis else {
            continue;
        };
        let line = basis.line();
        match groups.iter_mut().find(|(l, _)| *l == line) {
            Some((_, names)) => names.push(&r.config.name),
            None => groups.push((line, vec![&r.config.name])),
        }
    }
    let single = groups.len() == 1;
    groups
        .into_iter()
        .map(|(line, names)| {
            let line = if single {
                line
            } else {
                format!("[{}] {line}", names.join(", "))
            };
            let mut text = String::new();
            push_wrapped(&mut text, &line);
            text
        })
        .collect()
}

/// A note under the table, within its 120 columns (a leader's id can be a long host name), its
/// wrapped lines indented.
fn push_wrapped(out: &mut String, text: &str) {
    for line in crate::text::wrap_hanging(text, 120, "", "  ") {
        out.push_str(&line);
        out.push('\n');
    }
}

/// The default text table ([`render_table_with`] not wide).
pub fn render_table(c: &Comparison) -> String {
    render_table_with(c, false)
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The summary table as CSV (numbers unrounded).
pub fn render_csv(c: &Comparison) -> String {
    let mut out = String::from(
        "config,shedding,placement,balanced_at_cycle,balanced_after_minutes,total_unloads,cycles_with_unloads,last_unload_cycle,total_bytes_moved,total_thrashing,total_unloads_from_recent_destinations,total_splits,total_reassigned,peak_max_usage_fraction,final_max_usage_fraction,final_max_over_mean,final_std_usage_fraction,cycles_over_capacity,first_cycle_over_capacity\n",
    );
    let o = |v: Option<String>| v.unwrap_or_default();
    for r in &c.runs {
        let s = &r.summary;
        let cells = [
            csv_cell(&r.config.name),
            csv_cell(simple_class_name(&r.shedding_strategy)),
            csv_cell(simple_class_name(&r.placement_strategy)),
            o(s.balanced_at_cycle.map(|x| x.to_string())),
            o(s.balanced_after_minutes.map(|x| x.to_string())),
            s.total_unloads.to_string(),
            s.cycles_with_unloads.to_string(),
            o(s.last_unload_cycle.map(|x| x.to_string())),
            s.total_bytes_moved.to_string(),
            s.total_thrashing.to_string(),
            s.total_unloads_from_recent_destinations.to_string(),
            s.total_splits.to_string(),
            s.total_reassigned.to_string(),
            s.peak_max_usage_fraction.to_string(),
            s.final_max_usage_fraction.to_string(),
            s.final_max_over_mean.to_string(),
            s.final_std_usage_fraction.to_string(),
            s.cycles_over_capacity.to_string(),
            o(s.first_cycle_over_capacity.map(|x| x.to_string())),
        ];
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// Every cycle of every run as CSV (for plotting).
pub fn render_cycles_csv(c: &Comparison) -> String {
    let mut out = String::from(
        "config,cycle,minute,brokers,max_usage_fraction,mean_usage_fraction,max_over_mean,std_usage_fraction,bundles_unloaded,bytes_moved_per_sec,bytes_moved,thrashing,unloads_from_recent_destinations,splits,bundles_reassigned,brokers_over_capacity\n",
    );
    for r in &c.runs {
        let name = csv_cell(&r.config.name);
        for m in &r.cycles {
            out.push_str(&format!(
                "{name},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                m.cycle,
                m.minute,
                m.brokers,
                m.max_usage_fraction,
                m.mean_usage_fraction,
                m.max_over_mean,
                m.std_usage_fraction,
                m.bundles_unloaded,
                m.bytes_moved_per_sec,
                m.bytes_moved,
                m.thrashing,
                m.unloads_from_recent_destinations,
                m.splits,
                m.bundles_reassigned,
                m.brokers_over_capacity
            ));
        }
    }
    out
}

const BUILTIN: &[(&str, &str)] = &[
    ("steady", include_str!("../../../../scenarios/steady.json")),
    (
        "daily-wave",
        include_str!("../../../../scenarios/daily-wave.json"),
    ),
    (
        "hot-spike",
        include_str!("../../../../scenarios/hot-spike.json"),
    ),
    (
        "broker-crash",
        include_str!("../../../../scenarios/broker-crash.json"),
    ),
    (
        "rolling-restart",
        include_str!("../../../../scenarios/rolling-restart.json"),
    ),
    (
        "pr-16059",
        include_str!("../../../../scenarios/pr-16059.json"),
    ),
];

pub fn builtin_scenario_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// A built-in scenario by name (`None` when there is no such name).
pub fn builtin_scenario(name: &str) -> Option<Result<Scenario, ScenarioError>> {
    BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| Scenario::from_json_text(text))
}
