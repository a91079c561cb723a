//! Where everything the CLI prints goes. A command's result goes to a file (written whole or not at
//! all, [`crate::atomic_write`]) or to standard output through a fallible writer: a reader that went
//! away (`| head`) ends the command quietly, a full disk (`> /dev/full`) is an error, never a panic
//! as with `print!`. Messages go to stderr with control characters escaped
//! ([`lbplan_core::text::escape_control`]); a failing stderr is ignored, as there is nowhere left
//! to report it.

use std::io::{self, Write};
use std::path::Path;

use lbplan_core::text::escape_control;

use crate::atomic_write::{self, Existing};
use crate::exit::CliError;

/// Writes a command's result to `output`, or to standard output when there is none.
pub fn emit(output: Option<&Path>, bytes: &[u8]) -> Result<(), CliError> {
    match output {
        Some(path) => atomic_write::write_file(path, bytes, Existing::Replace)
            .map_err(|e| CliError::Failed(e.to_string())),
        None => to_stdout(bytes),
    }
}

/// Writes `bytes` to standard output and flushes them.
pub fn to_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

fn stdout_error(e: io::Error) -> CliError {
    if e.kind() == io::ErrorKind::BrokenPipe {
        CliError::StdoutClosed
    } else {
        CliError::Failed(format!("standard output: {e}"))
    }
}

/// One line on stderr: `prefix` (ours) then `text` (may quote the input) escaped.
pub fn message(prefix: &str, text: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{prefix}{}", escape_control(text));
}
