//! The error of a malformed scenario (file, built-in or the JavaScript API's `scenario` option) or
//! of an event that cannot apply to the simulated cluster: a JSON path (`$.load.spikes[1].factor`)
//! and what is wrong there. Simulation's own, so a change to the conformance replay's errors does
//! not change what a scenario author reads.

/// A scenario problem at a JSON path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// `path` is a JSON path such as `$.events[0].kind`.
    #[error("{path}: {message}")]
    Malformed { path: String, message: String },
}

impl ScenarioError {
    pub fn malformed(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError::Malformed {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The JSON path.
    pub fn path(&self) -> &str {
        match self {
            ScenarioError::Malformed { path, .. } => path,
        }
    }

    /// What is wrong there.
    pub fn message(&self) -> &str {
        match self {
            ScenarioError::Malformed { message, .. } => message,
        }
    }
}

impl From<crate::typed_json::ReadError> for ScenarioError {
    fn from(e: crate::typed_json::ReadError) -> Self {
        ScenarioError::malformed(e.path, e.message)
    }
}
