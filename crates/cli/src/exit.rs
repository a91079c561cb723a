//! Errors the CLI reports, and their exit codes.

use std::fmt;

/// A command failure: `BadInput` (exit 2) names the file and what was wrong; `Failed` is exit 1.
#[derive(Debug)]
pub enum CliError {
    BadInput(String),
    #[allow(dead_code)]
    Failed(String),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::BadInput(m) | CliError::Failed(m) => f.write_str(m),
        }
    }
}

pub fn report(result: Result<(), CliError>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            match e {
                CliError::BadInput(_) => 2,
                CliError::Failed(_) => 1,
            }
        }
    }
}

/// Reads a file as UTF-8 text, naming the file in every error.
pub fn read_text(path: &std::path::Path) -> Result<String, CliError> {
    let bytes =
        std::fs::read(path).map_err(|e| CliError::BadInput(format!("{}: {e}", path.display())))?;
    String::from_utf8(bytes)
        .map_err(|e| CliError::BadInput(format!("{}: not UTF-8 text ({e})", path.display())))
}

/// Reads and parses a JSON file, naming the file and position in errors.
pub fn read_json(path: &std::path::Path) -> Result<serde_json::Value, CliError> {
    let text = read_text(path)?;
    serde_json::from_str(&text)
        .map_err(|e| CliError::BadInput(format!("{}: invalid JSON: {e}", path.display())))
}
