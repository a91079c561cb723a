//! Reading a snapshot argument (`lbplan plan SNAPSHOT`): anything the importer accepts — our own
//! snapshot JSON, a metadata-store directory, a .zip/.tar.gz/.tar, a single load report — through
//! the same import as `lbplan import`. Warnings go to stderr (one line each, `file: $.path: message`);
//! bad input exits 2 naming the file and JSON path.

use std::path::Path;

use lbplan_core::model::Snapshot;

use crate::exit::CliError;
use crate::input_files::import_paths;

pub fn load_snapshot(path: &Path) -> Result<Snapshot, CliError> {
    Ok(import_paths(&[path.to_path_buf()], false)?.snapshot)
}
