//! `lbplan simulate [SNAPSHOT] --cycles N [--scenario NAME|FILE] [--seed N] [--compare CONFIG]...
//! [--set KEY=VALUE]... [--format text|json|csv] [--wide] [-o FILE]`: the leader's loop over many cycles,
//! one or several configurations side by side. SNAPSHOT is a file or `builtin:demo|pr-16059|bench`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use lbplan_core::model::Snapshot;
use lbplan_core::naming::BrokerNames;
use lbplan_core::simulate::limits::check_cycles;
use lbplan_core::simulate::{
    self, Comparison, RunConfig, RunOptions, Scenario, builtin_scenario, builtin_scenario_names,
    resolve_builtin_snapshot,
};
use lbplan_core::text::escape_lines;

use crate::exit::CliError;
use crate::input_files::read_text;
use crate::option_args::parse_settings;
use crate::series_store::{RECORD_BATCH, SeriesWriter, check_series_dir};
use crate::snapshot_input::load_snapshot;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Csv,
}

#[derive(clap::Args)]
pub struct Args {
    /// A snapshot file, or builtin:demo / builtin:pr-16059 / builtin:bench (synthetic clusters).
    /// Default: the scenario's own snapshot.
    snapshot: Option<String>,
    /// Number of cycles (each loadBalancerSheddingIntervalMinutes long), 1 to 100000
    /// (`simulate::MAX_CYCLES`). Default: the scenario's, else 100.
    #[arg(long)]
    cycles: Option<u32>,
    /// A built-in scenario (steady, daily-wave, hot-spike, broker-crash, rolling-restart,
    /// pr-16059) or a scenario JSON file.
    #[arg(long, default_value = "steady")]
    scenario: String,
    /// Seed of the load noise and of the random picks among equally good brokers (the dashboard's
    /// default too).
    #[arg(long, default_value_t = simulate::DEFAULT_SEED)]
    seed: u64,
    /// A configuration to compare (repeatable): `name=N;profile=4.x;KEY=VALUE;KEY=VALUE`, items
    /// separated by `;`, KEY a broker.conf key. Default: the scenario's list, else the snapshot's
    /// own configuration.
    #[arg(long = "compare", value_name = "CONFIG")]
    compare: Vec<String>,
    /// A broker.conf override applied to every configuration, KEY=VALUE (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Text: also print every cycle; CSV: one row per cycle instead of one per configuration.
    #[arg(long)]
    per_cycle: bool,
    /// Text: every summary column (the default table fits 120 columns).
    #[arg(long)]
    wide: bool,
    /// JSON: include every broker's usage at every cycle.
    #[arg(long)]
    broker_usage: bool,
    /// JSON: include every cycle's ownership changes (bundle → broker, splits), in order.
    #[arg(long)]
    ownership: bool,
    /// Do not draw the progress bar (it is drawn only when stderr is a terminal).
    #[arg(long)]
    no_progress: bool,
    /// Write the output to a file instead of stdout (whole or not at all).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Also record the leader's view at every cycle as a series in DIR (new, or a series to append
    /// to), for `lbplan history`. One configuration only.
    #[arg(long, value_name = "DIR")]
    record_series: Option<PathBuf>,
    /// Per-broker CPU cost factors from a calibration file (`lbplan history --calibrate -o FILE`):
    /// a broker that needs more CPU per byte gets it in the simulation and in the predictions. A
    /// scenario's own `load.cpu_cost_factors` win for the brokers they name.
    #[arg(long, value_name = "FILE")]
    calibration: Option<PathBuf>,
}

fn load_scenario(arg: &str) -> Result<Scenario, CliError> {
    if let Some(found) = builtin_scenario(arg) {
        return found.map_err(|e| CliError::Failed(format!("built-in scenario {arg}: {e}")));
    }
    let path = Path::new(arg);
    if !path.exists() {
        return Err(CliError::BadInput(format!(
            "--scenario {arg}: no such file and not a built-in scenario ({})",
            builtin_scenario_names().join(", ")
        )));
    }
    let text = read_text(path)?;
    Scenario::from_json_text(&text).map_err(|e| CliError::BadInput(format!("{arg}: {e}")))
}

fn load_snapshot_arg(arg: &str) -> Result<Snapshot, CliError> {
    match resolve_builtin_snapshot(arg) {
        Ok(Some(snapshot)) => Ok(snapshot),
        Ok(None) => load_snapshot(Path::new(arg)),
        Err(e) => Err(CliError::BadInput(e.to_string())),
    }
}

fn render_per_cycle_text(c: &Comparison) -> String {
    let mut out = String::new();
    for r in &c.runs {
        out.push_str(&format!("\n[{}]\n", r.config.name));
        out.push_str(
            "cycle  minute      max     mean      std  unloads  moved MiB  thrash  splits  events\n",
        );
        for m in &r.cycles {
            let mut events = m.events.clone();
            if m.brokers_over_capacity > 0 {
                events.insert(
                    0,
                    format!("{} broker(s) over capacity", m.brokers_over_capacity),
                );
            }
            out.push_str(&format!(
                "{:>5}  {:>6}  {:>6.1}%  {:>6.1}%  {:>6.1}%  {:>7}  {:>9.1}  {:>6}  {:>6}  {}\n",
                m.cycle,
                m.minute,
                m.max_usage_fraction * 100.0,
                m.mean_usage_fraction * 100.0,
                m.std_usage_fraction * 100.0,
                m.bundles_unloaded,
                m.bytes_moved / (1024.0 * 1024.0),
                m.thrashing,
                m.splits,
                events.join("; ")
            ));
        }
    }
    out
}

pub fn run(args: Args) -> Result<(), CliError> {
    let mut scenario = load_scenario(&args.scenario)?;
    let snapshot_arg = args
        .snapshot
        .clone()
        .or_else(|| scenario.snapshot.clone())
        .ok_or_else(|| {
            CliError::BadInput(
                "no SNAPSHOT given and the scenario names none (try builtin:demo)".to_string(),
            )
        })?;
    let snapshot = load_snapshot_arg(&snapshot_arg)?;
    scenario.settings.extend(parse_settings(&args.settings)?);
    if let Some(c) = crate::calibration_file::read(args.calibration.as_deref())? {
        scenario.load.add_calibration(&c);
    }
    let configs: Vec<RunConfig> = if args.compare.is_empty() {
        scenario.compare.clone()
    } else {
        args.compare
            .iter()
            .map(|c| RunConfig::parse(c).map_err(|e| CliError::BadInput(format!("--compare {e}"))))
            .collect::<Result<_, _>>()?
    };
    if let Some(dir) = &args.record_series {
        // A file where the directory should be is refused before the run, not after it.
        check_series_dir(dir)?;
    }
    if let Some(n) = args.cycles {
        check_cycles(n, "--cycles").map_err(|e| CliError::BadInput(e.to_string()))?;
    }
    let opts = RunOptions {
        cycles: args.cycles.or(scenario.cycles).unwrap_or(100),
        seed: args.seed,
        record_broker_usage: args.broker_usage,
        record_ownership: args.ownership,
    };
    let show_progress = !args.no_progress && std::io::stderr().is_terminal();
    let mut last_pct = u32::MAX;
    let mut progress = |done: u32, total: u32| {
        if show_progress && total > 0 {
            let pct = (u64::from(done) * 100 / u64::from(total)) as u32;
            if pct != last_pct {
                last_pct = pct;
                let filled = (pct / 5) as usize;
                let mut err = std::io::stderr();
                let _ = write!(
                    err,
                    "\r[{}{}] {pct:>3}% {done}/{total} cycles",
                    "#".repeat(filled),
                    " ".repeat(20 - filled.min(20))
                );
                let _ = err.flush();
            }
        }
        true
    };
    // Which configuration a series records, decided before the run: a refusal must not come after
    // minutes of simulation.
    let recorded = match &args.record_series {
        Some(_) => Some(recorded_config(&configs, !args.compare.is_empty())?),
        None => None,
    };
    let result = simulate::compare(&snapshot, &scenario, &configs, opts, &mut progress);
    if show_progress {
        let _ = writeln!(std::io::stderr());
    }
    let comparison = result.map_err(|e| CliError::BadInput(e.to_string()))?;
    if let (Some(dir), Some(config)) = (&args.record_series, &recorded) {
        record_series(dir, &snapshot, &scenario, config, opts)?;
    }
    let text = match args.format {
        Format::Json => {
            serde_json::to_string_pretty(&comparison)
                .map_err(|e| CliError::Failed(e.to_string()))?
                + "\n"
        }
        Format::Csv if args.per_cycle => simulate::render_cycles_csv(&comparison),
        Format::Csv => simulate::render_csv(&comparison),
        Format::Text if args.per_cycle => {
            simulate::render_table_with(&comparison, args.wide)
                + &render_per_cycle_text(&comparison)
        }
        Format::Text => simulate::render_table_with(&comparison, args.wide),
    };
    // The table quotes configuration names and events (broker ids) from the inputs; brokers by
    // their short names (the JSON and CSV keep full ids).
    let text = if args.format == Format::Text {
        let names = BrokerNames::new(snapshot.brokers.keys().map(String::as_str));
        escape_lines(&names.shorten_text(&text)).into_owned()
    } else {
        text
    };
    crate::output::emit(args.output.as_deref(), text.as_bytes())
}

/// The one configuration `--record-series` records: the one `--compare` given, else the scenario's
/// first (a built-in scenario such as `pr-16059` compares several; the README records it as is),
/// else the defaults. Several `--compare` options are refused: a series is one leader's history.
fn recorded_config(configs: &[RunConfig], given: bool) -> Result<RunConfig, CliError> {
    match configs {
        [] => Ok(RunConfig::default()),
        [one] => Ok(one.clone()),
        [first, ..] if !given => {
            crate::output::message(
                "note: ",
                &format!(
                    "--record-series records one configuration: the scenario's first, `{}` (give one --compare to record another)",
                    first.name
                ),
            );
            Ok(first.clone())
        }
        many => Err(CliError::BadInput(format!(
            "--record-series records one configuration, and {} --compare options were given: give one (or none)",
            many.len()
        ))),
    }
}

/// Runs the one configuration again, recording the leader's view at each cycle into `dir`.
fn record_series(
    dir: &Path,
    snapshot: &Snapshot,
    scenario: &Scenario,
    config: &RunConfig,
    opts: RunOptions,
) -> Result<(), CliError> {
    let mut writer = SeriesWriter::open(dir, RECORD_BATCH)?;
    // Each cycle's snapshot is written as it is taken (one held at a time); the batch commits
    // make every `RECORD_BATCH` snapshots durable with one flush.
    let mut failure = None;
    simulate::simulate_recording_each(
        snapshot,
        scenario,
        config,
        opts,
        &mut |_, _| true,
        &mut |s| match writer.append(&s) {
            Ok(_) => true,
            Err(e) => {
                failure = Some(e);
                false
            }
        },
    )
    .map_err(|e| CliError::BadInput(e.to_string()))?;
    if let Some(e) = failure {
        let CliError::Failed(why) = e else {
            // A snapshot the series refuses (another cluster): nothing about the disk to say.
            return Err(e);
        };
        // A write the disk refused: the snapshots completed before it are whole, so make them
        // durable too and say what the series holds — a full disk is a pause, not a loss.
        let committed = writer.commit();
        let kept = writer.committed();
        let how = match committed {
            Ok(()) => String::new(),
            Err(c) => format!(" (the last batch could not be committed: {c})"),
        };
        return Err(CliError::Failed(format!(
            "{why}\nrecording stopped: {} holds {kept} snapshots, each readable{how}; once the \
             cause is fixed (space, permissions), record into the same directory to continue the \
             series",
            dir.display()
        )));
    }
    writer.finish()
}
