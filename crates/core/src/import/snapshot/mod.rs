//! Our own snapshot file and the history store's broker parts, read two ways: `fast_reader` (with
//! `broker_part`) scans the big members straight into the model with its JSON `scanner`, and
//! `typed_reader`, the importer's reader, checks everything and decides every error and warning.
//! The fast readers answer `None` on anything they do not read exactly as the typed reader would,
//! and the typed reader then reads the text whole. Both run after the size guard (`json_guard`),
//! which every JSON input passes first.

mod broker_part;
mod fast_reader;
mod scanner;
mod typed_reader;

pub(crate) use broker_part::read as read_broker_part;
pub(crate) use typed_reader::{broker_entry, bundle_data_entries};

use super::collect::Collected;
use super::diag::{Diag, ImportError};

/// Reads our snapshot file from its text and adds it to what was collected. With `fast` (the size
/// guard found no repeated key), [`fast_reader`] reads it when it can, and the typed reader when
/// not.
pub(crate) fn read(
    file: &str,
    text: &str,
    fast: bool,
    c: &mut Collected,
    diag: &mut Diag,
) -> Result<(), ImportError> {
    let parts = match fast.then(|| fast_reader::read(file, text)).flatten() {
        Some(parts) => parts,
        None => typed_reader::parts(file, text, diag)?,
    };
    typed_reader::apply(file, parts, c, diag)
}
