//! The API's one error type: where in the caller's input (a JSON path such as
//! `$.brokers["b1:8080"].local_broker_data.cpu.limit` or `options.seed`) and what is wrong. At the
//! JavaScript boundary it becomes an `Error` whose message is `path: message`.

use std::fmt;

use lbplan_core::import::ImportError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// Where the problem is, in the argument the caller passed; empty for whole-call problems.
    pub path: String,
    pub message: String,
}

impl ApiError {
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }

    /// An error about the call as a whole (no place in the input to point at).
    pub fn whole(message: impl Into<String>) -> Self {
        Self::at("", message)
    }

    /// An import error of a snapshot passed as an object: the importer names the input `file`, which
    /// means nothing to the caller, so only the JSON path is kept.
    pub fn from_snapshot_import(e: ImportError) -> Self {
        match e {
            ImportError::At { at, message, .. } => Self::at(at, message),
            ImportError::Conflict {
                at,
                message,
                other_at,
                ..
            } => Self::at(at, format!("{message} (conflicts with {other_at})")),
            ImportError::File { message, .. } => Self::at("$", message),
            other => Self::whole(other.to_string()),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ApiError {}

/// A short description of a JSON value's type for "expected X, found Y" messages (core's).
pub use lbplan_core::typed_json::kind_of;
