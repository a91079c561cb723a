//! Errors the CLI reports, and their exit codes: 0 ok (also when the reader of standard output went
//! away: `lbplan import x | head` ends quietly), 2 bad input, 1 failure. Messages are escaped on
//! the way to stderr (they quote names from the input).

use std::fmt;

use crate::output;

/// A command failure: `BadInput` (exit 2) names the file and what was wrong; `Failed` is exit 1.
#[derive(Debug)]
pub enum CliError {
    BadInput(String),
    /// Several problems found together (each on its own line), exit 2.
    BadInputs(Vec<String>),
    Failed(String),
    /// Standard output was closed by its reader: stop writing, say nothing, exit 0.
    StdoutClosed,
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::BadInput(m) | CliError::Failed(m) => f.write_str(m),
            CliError::BadInputs(all) => f.write_str(&all.join("; ")),
            CliError::StdoutClosed => f.write_str("standard output was closed"),
        }
    }
}

pub fn report(result: Result<(), CliError>) -> i32 {
    match result {
        Ok(()) | Err(CliError::StdoutClosed) => 0,
        Err(CliError::BadInput(m)) => {
            output::message("error: ", &m);
            2
        }
        Err(CliError::BadInputs(all)) => {
            for m in &all {
                output::message("error: ", m);
            }
            2
        }
        Err(CliError::Failed(m)) => {
            output::message("error: ", &m);
            1
        }
    }
}

/// A command line clap did not run: a usage error (exit 2, from clap), or `--help` / `--version`,
/// whose text goes through [`output::to_stdout`] when piped or redirected, so that a full disk is
/// an error (exit 1) rather than a silent empty help.
pub fn usage(e: clap::Error) -> i32 {
    use std::io::IsTerminal;
    if e.use_stderr() || std::io::stdout().is_terminal() {
        let _ = e.print();
        return e.exit_code();
    }
    match output::to_stdout(e.render().to_string().as_bytes()) {
        Ok(()) => 0,
        Err(err) => report(Err(err)),
    }
}
