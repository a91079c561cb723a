//! `lbplan verify PLAN.json --snapshot AFTER [--format text|json] [-o FILE]`: did the cluster do
//! what the plan said? Compares the plan with a snapshot taken after it was applied (anything
//! `lbplan import` reads, or `lbplan collect`'s output): each bundle where predicted or not, each
//! broker's usage against the prediction, and whether the leader moved anything back. The
//! comparison is core's [`lbplan_core::plan::verify`]; exit status 1 when something is not as
//! predicted, so a change pipeline can stop on it. See `docs/apply.md`.

use std::path::PathBuf;

use lbplan_core::act::apply::read_plan;
use lbplan_core::plan::verify::{Verification, verify};

use crate::atomic_write::{self, Existing};
use crate::exit::CliError;
use crate::input_files::read_text;
use crate::output;
use crate::snapshot_input::load_snapshot;

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}

#[derive(clap::Args)]
pub struct Args {
    /// The plan JSON that was applied (`lbplan plan --format json`).
    plan: PathBuf,
    /// A snapshot of the cluster taken after the apply.
    #[arg(long, value_name = "SNAPSHOT")]
    snapshot: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Write the report here (a symlink planted at the path is replaced, never followed).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let text = read_text(&args.plan)?;
    let plan = read_plan(&text)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.plan.display())))?;
    let after = load_snapshot(&args.snapshot)?;
    let report = verify(&plan, &after)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.snapshot.display())))?;
    write_report(&report, args.format, args.output.as_deref())
}

/// Writes the report (text or JSON) to `output` (atomically, never through a planted symlink) or
/// stdout; `Err` (exit status 1) when something is not as predicted. Shared with `apply --verify`.
pub(crate) fn write_report(
    report: &Verification,
    format: Format,
    to: Option<&std::path::Path>,
) -> Result<(), CliError> {
    let body = match format {
        Format::Text => report.to_text(),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(report)
                .map_err(|e| CliError::Failed(format!("cannot write the report: {e}")))?;
            s.push('\n');
            s
        }
    };
    match to {
        Some(path) => atomic_write::write_file(path, body.as_bytes(), Existing::ReplaceEntry)
            .map_err(|e| CliError::Failed(e.to_string()))?,
        None => output::to_stdout(body.as_bytes())?,
    }
    if report.as_predicted {
        Ok(())
    } else {
        Err(CliError::Failed(report.summary.clone()))
    }
}
