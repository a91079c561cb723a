//! `lbplan history SERIES [--format text|json|csv] [--set KEY=VALUE]... [--profile P] [--seed N]
//! [--calibrate | --calibration FILE] [--leader-log FILE... [--clock-tolerance S]] [-o FILE]`: what the leader did between the snapshots of a series, and why, and
//! how far the load model's predictions were from what the next snapshots showed; `--calibrate`
//! writes the per-broker CPU cost factors fitted from the series instead (`lbplan plan
//! --calibration FILE` reads them). SERIES is a stored
//! series directory (`lbplan collect --every`, `lbplan simulate --record-series`), a zip of one, or
//! a directory or zip of ordinary snapshot files; or `--prometheus URL --from T1 --to T2` builds
//! the series from Prometheus (`crate::prometheus`). See `docs/history.md`.

use std::path::PathBuf;

use lbplan_core::history::render::{render_csv, render_text};
use lbplan_core::history::{ExplainOptions, HistoryReport};
use lbplan_core::load::calibration::Fitter;

use crate::exit::CliError;
use crate::option_args::{parse_optional_profile, parse_settings};
use crate::series_store::explain_series;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Csv,
}

#[derive(clap::Args)]
pub struct Args {
    /// A stored series directory or zip, or a directory or zip of snapshot files.
    #[arg(required_unless_present = "prometheus", conflicts_with = "prometheus")]
    series: Option<PathBuf>,
    /// The series from Prometheus instead (`--prometheus URL --from T1 --to T2`).
    #[command(flatten)]
    prometheus: crate::prometheus::PromArgs,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// A broker.conf override for the replayed leader, KEY=VALUE (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// The Pulsar release: 4.0.7, 4.1.0-SNAPSHOT, a line (3.x, 4.x, 4.1, 4.2, 5.0: its newest known
    /// patch) or master-90cba329; default: the leader's brokerVersionString (else the majority's).
    #[arg(long)]
    profile: Option<String>,
    /// Seed of the replayed leader's random picks (the simulator's `--seed` to replay its series).
    #[arg(long, default_value_t = lbplan_core::simulate::DEFAULT_SEED)]
    seed: u64,
    /// Write the calibration (per-broker CPU cost factors fitted from the series, JSON) instead of
    /// the report: `lbplan plan --calibration FILE` predicts with it.
    #[arg(long)]
    calibrate: bool,
    /// Check the load model with the per-broker CPU cost factors of a calibration file (from
    /// `--calibrate`, e.g. of an earlier series) instead of the default model.
    #[arg(long, value_name = "FILE", conflicts_with = "calibrate")]
    calibration: Option<PathBuf>,
    /// The leader broker's log files (plain or .gz; `-` is standard input): each logged unload
    /// and split is merged with the series' changes (docs/history.md, "From the leader's log").
    #[arg(long = "leader-log", value_name = "FILE", num_args = 1..)]
    leader_log: Vec<PathBuf>,
    /// Log and series times closer than this (seconds) agree; beyond, the offset is reported.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    clock_tolerance: f64,
    /// Write the output to a file instead of stdout (whole or not at all).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

/// Explains the series at `path`, showing each snapshot to `seen` as it is read.
fn explain_path_observed(
    path: &std::path::Path,
    opts: &ExplainOptions,
    seen: &mut dyn FnMut(&lbplan_core::model::Snapshot),
) -> Result<HistoryReport, CliError> {
    explain_series(path, opts, &mut |_, _, s| seen(s))
}

pub fn run(args: Args) -> Result<(), CliError> {
    let profile = parse_optional_profile(args.profile.as_deref())?;
    let opts = ExplainOptions {
        profile,
        settings: parse_settings(&args.settings)?,
        seed: args.seed,
        load_model: crate::calibration_file::load_model(args.calibration.as_deref())?,
    };
    let mut fitter = Fitter::default();
    let mut report = match &args.series {
        Some(series) => explain_path_observed(series, &opts, &mut |s| {
            if args.calibrate {
                fitter.push(s);
            }
        })?,
        None => crate::prometheus::explain(&args.prometheus, &opts, &mut |s| {
            if args.calibrate {
                fitter.push(s);
            }
            Ok(())
        })?,
    };
    if args.calibrate {
        let text = serde_json::to_string_pretty(&fitter.finish())
            .map_err(|e| CliError::Failed(e.to_string()))?
            + "\n";
        return crate::output::emit(args.output.as_deref(), text.as_bytes());
    }
    if !args.leader_log.is_empty() {
        let log = crate::leader_log_files::read_leader_logs(&args.leader_log)?;
        let tolerance_ms = crate::leader_log_files::tolerance_ms(args.clock_tolerance)?;
        lbplan_core::history::leader_log::attach(&mut report, log, tolerance_ms);
    }
    let text = match args.format {
        Format::Json => {
            serde_json::to_string_pretty(&report).map_err(|e| CliError::Failed(e.to_string()))?
                + "\n"
        }
        Format::Csv => render_csv(&report),
        Format::Text => render_text(&report),
    };
    crate::output::emit(args.output.as_deref(), text.as_bytes())
}
