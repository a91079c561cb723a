//! The formats a plan is exported in, by the names every front end accepts (`pulsar-admin`, `curl`,
//! `json`), and the one dispatch from a format to its text, so the CLI, the JS API and the dashboard
//! cannot disagree on what a name means or quietly substitute another format.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::export::{ExportOptions, ScriptFormat, export_script};
use crate::plan::model::Plan;

/// A plan export format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportFormat {
    /// A bash script of `pulsar-admin` commands.
    PulsarAdmin,
    /// A bash script of admin REST calls with curl.
    Curl,
    /// The plan document itself (`format_version`ed JSON).
    Json,
}

/// A format name that is not one of [`ExportFormat::ALL`].
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("unknown export format `{found}` (expected pulsar-admin, curl or json)")]
pub struct UnknownExportFormat {
    pub found: String,
}

/// Why a plan could not be exported.
#[derive(Debug, Error)]
pub enum ExportError {
    /// A name the script would carry fails the naming rule (which decision, and why).
    #[error(transparent)]
    Name(#[from] crate::act::export::ExportError),
    #[error("cannot write the plan as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl ExportFormat {
    pub const ALL: [ExportFormat; 3] = [
        ExportFormat::PulsarAdmin,
        ExportFormat::Curl,
        ExportFormat::Json,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::PulsarAdmin => "pulsar-admin",
            ExportFormat::Curl => "curl",
            ExportFormat::Json => "json",
        }
    }

    /// The file name a download of this format gets.
    pub fn file_name(self) -> &'static str {
        match self {
            ExportFormat::PulsarAdmin | ExportFormat::Curl => "plan.sh",
            ExportFormat::Json => "plan.json",
        }
    }

    /// The media type of that file.
    pub fn media_type(self) -> &'static str {
        match self {
            ExportFormat::PulsarAdmin | ExportFormat::Curl => "text/x-shellscript",
            ExportFormat::Json => "application/json",
        }
    }
}

impl fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ExportFormat {
    type Err = UnknownExportFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownExportFormat {
                found: s.escape_default().to_string(),
            })
    }
}

/// The plan in a format: a script (names checked first) or the pretty-printed plan document, each
/// ending with a newline.
pub fn export_plan(
    plan: &Plan,
    format: ExportFormat,
    opts: ExportOptions,
) -> Result<String, ExportError> {
    match format {
        ExportFormat::PulsarAdmin => Ok(export_script(plan, ScriptFormat::PulsarAdmin, opts)?),
        ExportFormat::Curl => Ok(export_script(plan, ScriptFormat::Curl, opts)?),
        ExportFormat::Json => Ok(serde_json::to_string_pretty(plan)? + "\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_names_and_refuses_others_listing_them() {
        assert_eq!("pulsar-admin".parse(), Ok(ExportFormat::PulsarAdmin));
        assert_eq!("curl".parse(), Ok(ExportFormat::Curl));
        assert_eq!("json".parse(), Ok(ExportFormat::Json));
        // The dashboard used to turn any unknown name into a pulsar-admin script.
        let e = "yaml".parse::<ExportFormat>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown export format `yaml` (expected pulsar-admin, curl or json)"
        );
        // Names are exact, as the CLI's and the JS API's always were.
        assert!("Pulsar-Admin".parse::<ExportFormat>().is_err());
        assert!("".parse::<ExportFormat>().is_err());
        for f in ExportFormat::ALL {
            assert_eq!(f.name().parse(), Ok(f));
        }
    }
}
