//! `lbplan replay SCENARIO.json [--picks PICKS.json] [--seed N]`.

use std::path::PathBuf;

use lbplan_core::replay::{Picks, replay};

use crate::exit::CliError;
use crate::input_files::read_json;

#[derive(clap::Args)]
pub struct Args {
    /// A scenario file (`{"scenario": ...}` or a bare scenario).
    scenario: PathBuf,
    /// Picks to follow at each random choice: `{"cycles": [["broker", ...], ...]}`.
    #[arg(long)]
    picks: Option<PathBuf>,
    /// Seed of the random picks made when no outside pick applies.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let file = read_json(&args.scenario)?;
    let picks = match &args.picks {
        Some(p) => Some(
            Picks::from_json(&read_json(p)?)
                .map_err(|e| CliError::BadInput(format!("{}: {e}", p.display())))?,
        ),
        None => None,
    };
    let out = replay(&file, picks.as_ref(), args.seed)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.scenario.display())))?;
    let text = serde_json::to_string_pretty(&out)
        .map_err(|e| CliError::Failed(format!("cannot serialise the decisions: {e}")))?;
    crate::output::to_stdout(format!("{text}\n").as_bytes())
}
