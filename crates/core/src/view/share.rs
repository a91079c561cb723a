//! The dashboard's session (profile, settings, edit history) as it is persisted across reloads and
//! carried in share links (`#s=<percent-encoded JSON>`); versioned by `format_version`. The snapshot
//! is never part of a share link. The section the operator was looking at rides along as
//! `view=<section>` (`#s=…&view=plan`), so a reload or a shared link opens at the same place.

use crate::naming::percent::{percent_decode, percent_encode};
use serde::{Deserialize, Serialize};

use crate::plan::operations::Operation;

pub const SESSION_FORMAT_VERSION: u32 = 1;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub format_version: u32,
    /// `4.x`, `5.0`, or `None` for detection from the brokers.
    #[serde(default)]
    pub profile: Option<String>,
    #[serde(default)]
    pub settings: Vec<(String, String)>,
    /// Operations in their text form (see [`Operation`]).
    #[serde(default)]
    pub operations: Vec<String>,
    /// Undone operations that redo would re-apply (persisted, not shared).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redo: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SessionError {
    #[error("the session is not valid JSON: {0}")]
    Json(String),
    #[error(
        "session format_version {0} is not supported (this dashboard reads {SESSION_FORMAT_VERSION})"
    )]
    Version(u32),
    #[error("{0}")]
    Operation(String),
    #[error("the link has no session (expected #s=…)")]
    Missing,
}

impl Session {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses and checks the version and every operation.
    pub fn from_json(text: &str) -> Result<Session, SessionError> {
        let s: Session =
            serde_json::from_str(text).map_err(|e| SessionError::Json(e.to_string()))?;
        if s.format_version != SESSION_FORMAT_VERSION {
            return Err(SessionError::Version(s.format_version));
        }
        s.parsed_operations()?;
        Ok(s)
    }

    pub fn parsed_operations(&self) -> Result<Vec<Operation>, SessionError> {
        self.operations
            .iter()
            .map(|o| Operation::parse(o).map_err(|e| SessionError::Operation(e.to_string())))
            .collect()
    }

    /// The URL fragment (without `#`) of a share link: no redo stack.
    pub fn to_fragment(&self) -> String {
        let shared = Session {
            redo: Vec::new(),
            ..self.clone()
        };
        format!("s={}", percent_encode(&shared.to_json()))
    }

    pub fn from_fragment(fragment: &str) -> Result<Session, SessionError> {
        let f = fragment.strip_prefix('#').unwrap_or(fragment);
        let value = f
            .split('&')
            .find_map(|p| p.strip_prefix("s="))
            .ok_or(SessionError::Missing)?;
        let json = percent_decode(value).ok_or_else(|| {
            SessionError::Json("the link's session is not valid percent-encoding".into())
        })?;
        Session::from_json(&json)
    }
}

/// The dashboard's sections, in page order: `(id, label)`. The navigation lists these; `view=` in
/// the URL names one of the ids.
pub const SECTIONS: &[(&str, &str)] = &[
    ("cluster", "Cluster"),
    ("map", "Bundle map"),
    ("plan", "Plan"),
    ("rebalance", "Rebalance"),
    ("simulate", "Simulate"),
    ("namespaces", "Namespaces"),
    ("history", "History"),
];

/// The section a URL fragment names (`view=<id>` among `&`-separated parameters), if it is one of
/// [`SECTIONS`].
pub fn section_of_fragment(fragment: &str) -> Option<&'static str> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    let wanted = f.split('&').find_map(|p| p.strip_prefix("view="))?;
    SECTIONS.iter().map(|(id, _)| *id).find(|id| *id == wanted)
}

/// `fragment` with its `view=` parameter set to `section` (other parameters, e.g. the session's
/// `s=`, kept in order). Returned without the leading `#`.
pub fn fragment_with_section(fragment: &str, section: &str) -> String {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    let mut parts: Vec<String> = f
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("view="))
        .map(str::to_string)
        .collect();
    parts.push(format!("view={section}"));
    parts.join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_round_trip_drops_redo() {
        let s = Session {
            format_version: SESSION_FORMAT_VERSION,
            profile: Some("5.0".into()),
            settings: vec![(
                "loadBalancerBrokerThresholdShedderPercentage".into(),
                "5".into(),
            )],
            operations: vec!["unload-bundle=t/n/0x00000000_0x40000000->b2:8080".into()],
            redo: vec!["remove-broker=b3:8080".into()],
        };
        let f = s.to_fragment();
        assert!(f.starts_with("s=%7B"));
        let back = Session::from_fragment(&format!("#{f}")).unwrap_or_default();
        assert_eq!(back.operations, s.operations);
        assert_eq!(back.settings, s.settings);
        assert!(back.redo.is_empty());
    }

    #[test]
    fn bad_links_are_errors() {
        assert_eq!(Session::from_fragment("#x=1"), Err(SessionError::Missing));
        assert!(matches!(
            Session::from_fragment("s=%7B%22format_version%22%3A9%7D"),
            Err(SessionError::Version(9))
        ));
        assert!(matches!(
            Session::from_fragment("s=%ZZ"),
            Err(SessionError::Json(_))
        ));
        assert!(matches!(
            Session::from_json(r#"{"format_version":1,"operations":["explode=now"]}"#),
            Err(SessionError::Operation(_))
        ));
    }

    #[test]
    fn the_section_rides_along_with_the_session() {
        assert_eq!(section_of_fragment("#s=%7B%7D&view=plan"), Some("plan"));
        assert_eq!(section_of_fragment("view=simulate"), Some("simulate"));
        assert_eq!(section_of_fragment("#view=elsewhere"), None);
        assert_eq!(section_of_fragment(""), None);
        assert_eq!(
            fragment_with_section("#s=%7B%7D&view=plan", "map"),
            "s=%7B%7D&view=map"
        );
        assert_eq!(fragment_with_section("", "cluster"), "view=cluster");
        // A session link keeps reading its session with the section beside it.
        let session = Session {
            format_version: SESSION_FORMAT_VERSION,
            ..Session::default()
        };
        let link = fragment_with_section(&session.to_fragment(), "plan");
        assert_eq!(
            Session::from_fragment(&link).map(|s| s.format_version),
            Ok(SESSION_FORMAT_VERSION)
        );
    }
}
