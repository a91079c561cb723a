//! `collect-report.json`, written by `lbplan collect`: every item the collector could not fetch
//! (`missing`) becomes one import warning naming what is absent from the snapshot, why, and how to
//! fill the gap. Self-contained (only `serde_json` and `thiserror`) so the importer can wire it in
//! with a one-line dispatch: recognise the file with [`is_collect_report`], then map each
//! [`CollectWarning`] to an import warning and a [`CollectReportError`] to an import error.

use serde_json::{Map, Value};

/// The `kind` tag of a collect report.
pub const KIND: &str = "lbplan-collect-report";
/// The newest `format_version` understood.
pub const FORMAT_VERSION: u64 = 1;

/// A malformed report: the file, a JSON path (`$.missing[2].reason`) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {at}: {message}")]
pub struct CollectReportError {
    pub file: String,
    pub at: String,
    pub message: String,
}

/// One gap the collector recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectWarning {
    /// The report file.
    pub file: String,
    /// Where in the report: `$.missing[<i>]`.
    pub at: String,
    /// What is missing (`load_report`, `bundles`, `bundle_data`, …).
    pub what: String,
    /// The broker, namespace, tenant or cluster concerned, if any.
    pub subject: Option<String>,
    /// Why (`unauthorized`, `not_found`, `timeout`, `malformed`, `not_exposed_by_rest_api`, …).
    pub reason: String,
    /// One line for the user: what is missing, why, what it means, how to fill it.
    pub message: String,
}

/// What a report says besides its gaps.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CollectReport {
    pub cluster: Option<String>,
    pub warnings: Vec<CollectWarning>,
}

/// Whether a JSON value is a collect report (by its `kind` tag).
pub fn is_collect_report(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some(KIND)
}

fn err(file: &str, at: impl Into<String>, message: impl Into<String>) -> CollectReportError {
    CollectReportError {
        file: file.to_string(),
        at: at.into(),
        message: message.into(),
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An optional string field: absent or null is `None`, anything else but a string is an error.
fn opt_str(
    file: &str,
    m: &Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Option<String>, CollectReportError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(err(
            file,
            format!("{at}.{key}"),
            format!("expected a string, found {}", describe(other)),
        )),
    }
}

fn req_str(
    file: &str,
    m: &Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<String, CollectReportError> {
    opt_str(file, m, key, at)?.ok_or_else(|| {
        err(
            file,
            format!("{at}.{key}"),
            "expected a string, found nothing",
        )
    })
}

/// Parses a report; unknown fields are ignored (later versions may add some).
pub fn parse(file: &str, v: &Value) -> Result<CollectReport, CollectReportError> {
    let Value::Object(root) = v else {
        return Err(err(
            file,
            "$",
            format!("expected a collect report object, found {}", describe(v)),
        ));
    };
    match root.get("format_version") {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(1..=FORMAT_VERSION) => {}
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
    let cluster = opt_str(file, root, "cluster", "$")?;
    let missing = match root.get("missing") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(items)) => items.as_slice(),
        Some(other) => {
            return Err(err(
                file,
                "$.missing",
                format!("expected an array, found {}", describe(other)),
            ));
        }
    };
    let mut warnings = Vec::with_capacity(missing.len());
    for (i, item) in missing.iter().enumerate() {
        let at = format!("$.missing[{i}]");
        let Value::Object(m) = item else {
            return Err(err(
                file,
                at,
                format!("expected an object, found {}", describe(item)),
            ));
        };
        let what = req_str(file, m, "what", &at)?;
        let reason = req_str(file, m, "reason", &at)?;
        let subject = opt_str(file, m, "subject", &at)?;
        let detail = opt_str(file, m, "message", &at)?;
        let consequence = opt_str(file, m, "consequence", &at)?;
        let how = opt_str(file, m, "how_to_fill", &at)?;
        let mut message = format!("collect could not get {}", what.replace('_', " "));
        if let Some(s) = &subject {
            message.push_str(&format!(" of `{s}`"));
        }
        message.push_str(&format!(" ({}", reason.replace('_', " ")));
        if let Some(d) = detail.as_deref().filter(|d| !d.is_empty()) {
            message.push_str(&format!(": {d}"));
        }
        message.push(')');
        if let Some(c) = consequence.as_deref().filter(|c| !c.is_empty()) {
            message.push_str(&format!("; {c}"));
        }
        if let Some(h) = how.as_deref().filter(|h| !h.is_empty()) {
            message.push_str(&format!("; to fill it: {h}"));
        }
        warnings.push(CollectWarning {
            file: file.to_string(),
            at,
            what,
            subject,
            reason,
            message,
        });
    }
    Ok(CollectReport { cluster, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        assert!(is_collect_report(&v));
        let r = parse("collect-report.json", &v).unwrap();
        assert_eq!(r.cluster.as_deref(), Some("standalone"));
        assert_eq!(r.warnings.len(), 2);
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

    #[test]
    fn malformed_reports_name_the_place() {
        let e = parse("r.json", &json!({"kind": KIND, "format_version": 2})).unwrap_err();
        assert_eq!(e.at, "$.format_version");
        let e = parse(
            "r.json",
            &json!({"kind": KIND, "format_version": 1, "missing": [{"what": 3}]}),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.json: $.missing[0].what: expected a string, found a number"
        );
        assert!(parse("r.json", &json!([])).is_err());
        assert!(!is_collect_report(&json!({"kind": "other"})));
    }
}
