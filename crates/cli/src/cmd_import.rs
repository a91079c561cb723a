//! `lbplan import FILE_OR_DIR... [-o snapshot.json]` (being implemented).

use std::path::PathBuf;

use crate::exit::CliError;

#[derive(clap::Args)]
pub struct Args {
    /// Files, directories, .zip or .tar.gz archives.
    inputs: Vec<PathBuf>,
    /// Where to write the snapshot (stdout when absent).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(_args: Args) -> Result<(), CliError> {
    Err(CliError::Failed(
        "import is not implemented yet".to_string(),
    ))
}
