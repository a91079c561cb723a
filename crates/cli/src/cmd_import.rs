//! `lbplan import FILE_OR_DIR... [-o snapshot.json]`: reads the inputs (see [`crate::input_files`]),
//! hands them to `lbplan_core::import`, prints each warning to stderr and writes the snapshot JSON.
//! Bad input exits with status 2.

use std::path::PathBuf;

use crate::exit::CliError;
use crate::input_files::import_paths;

#[derive(clap::Args)]
pub struct Args {
    /// Files, directories (laid out like the metadata store or not), .zip, .tar.gz or .tar archives,
    /// or `-` for standard input. Only regular files are read: a FIFO or a device named as a path is
    /// refused (pipe it to `-` instead).
    inputs: Vec<PathBuf>,
    /// Where to write the snapshot (stdout when absent); written whole or not at all.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// Do not print warnings.
    #[arg(short = 'q', long)]
    quiet: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let imported = import_paths(&args.inputs, args.quiet)?;
    write_snapshot(&imported.snapshot, args.output.as_deref())
}

/// Writes a snapshot as pretty JSON to `output`, or stdout.
pub fn write_snapshot(
    snapshot: &lbplan_core::model::Snapshot,
    output: Option<&std::path::Path>,
) -> Result<(), CliError> {
    let mut json = serde_json::to_string_pretty(snapshot)
        .map_err(|e| CliError::Failed(format!("cannot serialize the snapshot: {e}")))?;
    json.push('\n');
    crate::output::emit(output, json.as_bytes())
}
