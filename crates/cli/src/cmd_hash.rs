//! `lbplan hash --namespace NS (--bundles N | --boundaries FILE) TOPIC...` (being implemented).

use std::path::PathBuf;

use crate::exit::CliError;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    namespace: String,
    #[arg(long)]
    bundles: Option<u32>,
    #[arg(long)]
    boundaries: Option<PathBuf>,
    topics: Vec<String>,
}

pub fn run(_args: Args) -> Result<(), CliError> {
    Err(CliError::Failed("hash is not implemented yet".to_string()))
}
