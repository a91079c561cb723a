//! `collect-report.json`: the one definition of the report `lbplan collect` writes (what was fetched
//! and into which file, what is missing and why, what the REST API cannot give) and its reading by the
//! importer, where every item the collector could not fetch (`missing`) becomes one import warning
//! naming what is absent from the snapshot, why, and how to fill the gap, and every key this
//! version does not know becomes an unknown-field warning with its JSON path. The collector serialises
//! [`CollectReport`] and the importer deserialises the same type, so the two cannot drift apart.

use crate::typed_json::kind_of as describe;
use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::typed::{Leaf, Object};
use crate::typed_json::{self, UnknownKey};

/// The `kind` tag of a collect report.
pub const KIND: &str = "lbplan-collect-report";
/// The newest `format_version` understood; bump on incompatible changes (older readers refuse it).
pub const FORMAT_VERSION: u32 = 1;
/// The report's file name at the root of a collection.
pub const FILE_NAME: &str = "collect-report.json";

/// Text the collector mostly fills with its own constants; owned when read back.
pub type Label = Cow<'static, str>;

/// The whole report. Fields a reader does not need are optional on read (`#[serde(default)]`), and
/// unknown fields are warnings, so a later collector's additions do not break an older importer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CollectReport {
    pub kind: Label,
    pub format_version: u32,
    pub tool: String,
    pub admin_url: String,
    pub credential: Label,
    pub collected_at_ms: u64,
    pub elapsed_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    pub clusters: Vec<String>,
    pub brokers: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader: Option<String>,
    /// `modular`, `extensible` or `unknown` (from `loadManagerClassName`).
    pub load_manager: String,
    pub namespaces: Vec<String>,
    pub fetched: Vec<Fetched>,
    pub missing: Vec<Missing>,
    /// Notes that are not gaps (a V1 namespace skipped, keys dropped from broker.conf).
    pub notes: Vec<String>,
}

/// One answer the collector got.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Fetched {
    pub what: Label,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    pub url: String,
    /// Output files written from this answer.
    pub files: Vec<String>,
    pub attempts: u32,
    pub elapsed_ms: u64,
}

/// One item the collector could not get.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Missing {
    /// What is missing (`load_report`, `bundles`, `bundle_data`, …).
    pub what: Label,
    /// The broker, namespace, tenant or cluster concerned, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `unauthorized`, `forbidden`, `not_found`, `http_status`, `timeout`, `connect`, `protocol`,
    /// `too_large`, `redirect_refused`, `malformed`, `invalid_name`, `skipped`,
    /// `not_exposed_by_rest_api`, …
    pub reason: Label,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    #[serde(default)]
    pub message: String,
    /// What the snapshot lacks because of it.
    #[serde(default)]
    pub consequence: String,
    /// How to fill the gap by hand (see docs/collecting-snapshots.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how_to_fill: Option<String>,
}

/// A malformed report: the file, a JSON path (`$.missing[2].reason`) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {at}: {message}")]
pub struct CollectReportError {
    pub file: String,
    pub at: String,
    pub message: String,
}

/// One gap the collector recorded, as an import warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectWarning {
    /// The report file.
    pub file: String,
    /// Where in the report: `$.missing[<i>]`.
    pub at: String,
    pub what: String,
    pub subject: Option<String>,
    pub reason: String,
    /// One line for the user: what is missing, why, what it means, how to fill it.
    pub message: String,
}

/// What the importer takes from a report: the cluster, the gaps, and the keys this lbplan does not
/// know (a later collector's additions: warned about, not refused).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedCollectReport {
    pub cluster: Option<String>,
    pub warnings: Vec<CollectWarning>,
    pub unknown: Vec<UnknownKey>,
}

fn err(file: &str, at: impl Into<String>, message: impl Into<String>) -> CollectReportError {
    CollectReportError {
        file: file.to_string(),
        at: at.into(),
        message: message.into(),
    }
}

/// Text that is not JSON: the line and column, worded as every import names them.
fn syntax(file: &str, text: &str, e: &serde_json::Error) -> CollectReportError {
    match super::json::syntax_error(file, text, e) {
        super::diag::ImportError::At { file, at, message } => {
            CollectReportError { file, at, message }
        }
        other => err(file, "$", other.to_string()),
    }
}

/// The version, read before the rest: a report of another version may have changed any other field,
/// and "collect and import with the same lbplan version" is the message that helps then.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Header<'a> {
    #[serde(borrow)]
    format_version: Option<Leaf<'a>>,
}

/// Reads a report from its text, typed, without a tree: the version first (a pass that keeps only
/// that value), then the whole report as the collector's own [`CollectReport`] with JSON paths in
/// its errors; unknown keys are returned with their paths, not refused. A syntax error names its
/// line and column.
pub fn parse(file: &str, text: &str) -> Result<ParsedCollectReport, CollectReportError> {
    let header = match serde_json::from_str::<Object<'_, Header<'_>>>(text) {
        Ok(Object::Obj(h)) => h,
        Ok(Object::Not(l)) => {
            return Err(err(
                file,
                "$",
                format!(
                    "expected a collect report object, found {}",
                    describe(&l.value())
                ),
            ));
        }
        Err(e) => return Err(syntax(file, text, &e)),
    };
    match header.format_version.as_ref().map(Leaf::value).as_deref() {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(n) if (1..=u64::from(FORMAT_VERSION)).contains(&n) => {}
            _ => {
                return Err(err(
                    file,
                    "$.format_version",
                    format!(
                        "format_version {n} is not one this lbplan reads (1 to {FORMAT_VERSION}): \
                         collect and import with the same lbplan version"
                    ),
                ));
            }
        },
        other => {
            return Err(err(
                file,
                "$.format_version",
                format!(
                    "expected a number, found {}",
                    other.map_or("nothing", describe)
                ),
            ));
        }
    }
    let read =
        typed_json::from_str::<CollectReport>(text).map_err(|e| err(file, e.path, e.message))?;
    let report = read.value;
    let mut warnings = Vec::with_capacity(report.missing.len());
    for (i, m) in report.missing.into_iter().enumerate() {
        let what = m.what.into_owned();
        let reason = m.reason.into_owned();
        let mut message = format!("collect could not get {}", what.replace('_', " "));
        if let Some(s) = &m.subject {
            message.push_str(&format!(" of `{s}`"));
        }
        message.push_str(&format!(" ({}", reason.replace('_', " ")));
        if !m.message.is_empty() {
            message.push_str(&format!(": {}", m.message));
        }
        message.push(')');
        if !m.consequence.is_empty() {
            message.push_str(&format!("; {}", m.consequence));
        }
        if let Some(h) = m.how_to_fill.as_deref().filter(|h| !h.is_empty()) {
            message.push_str(&format!("; to fill it: {h}"));
        }
        warnings.push(CollectWarning {
            file: file.to_string(),
            at: format!("$.missing[{i}]"),
            what,
            subject: m.subject,
            reason,
            message,
        });
    }
    Ok(ParsedCollectReport {
        cluster: report.cluster,
        warnings,
        unknown: read.unknown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<ParsedCollectReport, CollectReportError> {
        parse("r.json", &v.to_string())
    }

    #[test]
    fn missing_items_become_warnings() {
        let v = json!({
            "kind": KIND, "format_version": 1, "cluster": "standalone", "future_field": [1],
            "missing": [
                {"what": "load_report", "subject": "10.0.0.2:8080", "reason": "not_found",
                 "http_status": 404, "message": "HTTP 404", "consequence": "no report"},
                {"what": "bundle_data", "reason": "not_exposed_by_rest_api", "message": "only in the store",
                 "how_to_fill": "dump /loadbalance/bundle-data"}
            ]
        });
        let r = parse("collect-report.json", &v.to_string()).unwrap();
        assert_eq!(r.cluster.as_deref(), Some("standalone"));
        assert_eq!(r.warnings.len(), 2);
        assert_eq!(
            r.unknown,
            vec![UnknownKey {
                at: "$".into(),
                key: "future_field".into()
            }]
        );
        assert_eq!(
            r.warnings[0].message,
            "collect could not get load report of `10.0.0.2:8080` (not found: HTTP 404); no report"
        );
        assert_eq!(r.warnings[1].at, "$.missing[1]");
        assert!(
            r.warnings[1]
                .message
                .ends_with("to fill it: dump /loadbalance/bundle-data")
        );
    }

    /// What the collector writes is what the importer reads: the report built as `lbplan collect`
    /// builds it, serialised, then parsed (the two used to be separate definitions kept "in step").
    #[test]
    fn the_written_report_reads_back() {
        let written = CollectReport {
            kind: KIND.into(),
            format_version: FORMAT_VERSION,
            tool: "lbplan collect 0.1.0".into(),
            admin_url: "http://localhost:8080".into(),
            credential: "none".into(),
            cluster: Some("standalone".into()),
            missing: vec![Missing {
                what: "load_report".into(),
                subject: Some("10.0.0.2:8080".into()),
                url: Some("http://10.0.0.2:8080/admin/v2/broker-stats/load-report".into()),
                reason: "not_found".into(),
                http_status: Some(404),
                attempts: Some(1),
                message: "HTTP 404".into(),
                consequence: "no report".into(),
                how_to_fill: None,
            }],
            ..CollectReport::default()
        };
        let v = serde_json::to_value(&written).unwrap();
        let back: CollectReport = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(back, written);
        let r = parse(FILE_NAME, &v.to_string()).unwrap();
        assert!(r.unknown.is_empty(), "{:?}", r.unknown);
        assert_eq!(
            r.warnings[0].message,
            "collect could not get load report of `10.0.0.2:8080` (not found: HTTP 404); no report"
        );
    }

    #[test]
    fn malformed_reports_name_the_place() {
        let e = read(json!({"kind": KIND, "format_version": 2})).unwrap_err();
        assert_eq!(e.at, "$.format_version");
        assert_eq!(
            e.message,
            "format_version 2 is not one this lbplan reads (1 to 1): collect and import with the \
             same lbplan version"
        );
        let e =
            read(json!({"kind": KIND, "format_version": 1, "missing": [{"what": 3}]})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.json: $.missing[0].what: invalid type: integer `3`, expected a string"
        );
        let e = read(json!({"kind": KIND, "format_version": 1, "missing": [{"what": "x", "reason": "y", "http_status": 99999, "later": 1}]}),
        )
        .unwrap_err();
        assert_eq!(e.at, "$.missing[0].http_status");
        assert_eq!(e.message, "invalid value: integer `99999`, expected u16");
        let e = read(json!({"kind": KIND, "format_version": "1"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.json: $.format_version: expected a number, found a string"
        );
        let e = read(json!({"kind": KIND})).unwrap_err();
        assert_eq!(e.message, "expected a number, found nothing");
        let e = read(json!([])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.json: $: expected a collect report object, found an array"
        );
        // Read from the text: a syntax error keeps its line and column.
        let e = parse(
            "r.json",
            "{\"kind\": \"lbplan-collect-report\",\n \"format_version\": 1,\n \"missing\": [}",
        )
        .unwrap_err();
        assert_eq!(e.at, "line 3, column 14");
        assert!(e.message.starts_with("invalid JSON: expected value"), "{e}");
    }
}
