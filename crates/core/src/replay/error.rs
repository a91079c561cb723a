//! Why a conformance scenario cannot be replayed: malformed (with its JSON path) or of a kind
//! not supported.

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// The scenario is malformed; `path` is a JSON path such as `$.scenario.cycles[0].brokers[2].cpu`.
    #[error("{path}: {message}")]
    Malformed { path: String, message: String },
    #[error("scenario kind `{0}` is not supported")]
    UnsupportedKind(String),
}

impl ReplayError {
    pub fn malformed(path: impl Into<String>, message: impl Into<String>) -> Self {
        ReplayError::Malformed {
            path: path.into(),
            message: message.into(),
        }
    }
}
