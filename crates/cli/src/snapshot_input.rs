//! Reading a snapshot argument: our own snapshot JSON, with errors that name the file and position.

use std::path::Path;

use lbplan_core::model::{SNAPSHOT_FORMAT_VERSION, Snapshot};

use crate::exit::{CliError, read_text};

pub fn load_snapshot(path: &Path) -> Result<Snapshot, CliError> {
    let text = read_text(path)?;
    let snapshot: Snapshot = serde_json::from_str(&text)
        .map_err(|e| CliError::BadInput(format!("{}: not a snapshot: {e}", path.display())))?;
    if snapshot.format_version != SNAPSHOT_FORMAT_VERSION {
        return Err(CliError::BadInput(format!(
            "{}: $.format_version: expected {SNAPSHOT_FORMAT_VERSION}, found {}",
            path.display(),
            snapshot.format_version
        )));
    }
    Ok(snapshot)
}
