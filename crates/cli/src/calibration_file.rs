//! `--calibration FILE` (written by `lbplan history --calibrate`): the load model every predicting
//! command uses — per-broker CPU cost factors fitted from a recorded series — or the default
//! model without one. One reader for `plan`, `rebalance`, `simulate` and `history`.

use std::path::Path;

use lbplan_core::load::LoadModel;
use lbplan_core::load::calibration::Calibration;

use crate::exit::CliError;

/// A calibration file is small (a few numbers per broker); this bounds a wrong file given.
const MAX_CALIBRATION_BYTES: u64 = 16 * 1024 * 1024;

/// The calibration file's model (the default model without one).
pub fn load_model(path: Option<&Path>) -> Result<LoadModel, CliError> {
    Ok(read(path)?.map_or_else(LoadModel::default, |c| c.model()))
}

/// The calibration file, read and checked (its `format_version`, its factors), naming the file
/// in any error.
pub fn read(path: Option<&Path>) -> Result<Option<Calibration>, CliError> {
    let Some(path) = path else {
        return Ok(None);
    };
    let bytes = crate::input_files::read_path(path, MAX_CALIBRATION_BYTES)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| CliError::BadInput(format!("{}: not UTF-8", path.display())))?;
    Calibration::from_json_text(&text)
        .map(Some)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", path.display())))
}
