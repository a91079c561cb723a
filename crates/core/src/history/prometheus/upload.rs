//! Prometheus range results handed over as files (the dashboard's upload, an embedding portal
//! through the JS API): each file is either one `/api/v1/query_range` answer as Prometheus sends
//! it (its series grouped by their `__name__`), or one document bundling several:
//!
//! ```json
//! {"format_version": 1, "kind": "lbplan-prometheus-ranges", "step_ms": 60000,
//!  "results": [{"metric": "pulsar_lb_cpu_usage", "response": {"status": "success", "data": …}}]}
//! ```
//!
//! The steps are the sample times' grid: from the earliest, every `step_ms` (the document's, else
//! the smallest gap between two sample times). Nothing here calls a server.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::model::Snapshot;
use crate::plan::PlanError;

use super::range::{PromSeries, RangeLimits, parse_matrix};
use super::{BrokerMapping, PromHistory, Window};
use crate::history::explain::ExplainOptions;
use crate::history::report::HistoryReport;

/// `format_version` of the bundling document.
pub const RANGES_FORMAT_VERSION: u32 = 1;
/// `kind` of the bundling document.
pub const RANGES_KIND: &str = "lbplan-prometheus-ranges";
/// The most steps an upload may span (a year of one-minute steps).
pub const MAX_UPLOAD_STEPS: i64 = 366 * 24 * 60;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UploadError {
    #[error("{file}: {why}")]
    File { file: String, why: String },
    #[error("no sample in the uploaded Prometheus results: nothing to explain")]
    Empty,
    #[error(transparent)]
    Plan(#[from] PlanError),
}

fn bad(file: &str, why: impl Into<String>) -> UploadError {
    UploadError::File {
        file: file.to_string(),
        why: why.into(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RangesDoc {
    format_version: u32,
    kind: String,
    #[serde(default)]
    step_ms: Option<i64>,
    results: Vec<RangesItem>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RangesItem {
    metric: String,
    response: serde_json::Value,
}

/// Series by metric name.
pub type ByMetric = BTreeMap<String, Vec<PromSeries>>;

/// Every file's series by metric name, and the step a bundling document gave.
pub fn read_uploads(
    files: &[(String, Vec<u8>)],
    limits: RangeLimits,
) -> Result<(ByMetric, Option<i64>), UploadError> {
    let mut by_metric: ByMetric = BTreeMap::new();
    let mut step = None;
    for (name, bytes) in files {
        let doc_like = serde_json::from_slice::<serde_json::Value>(bytes)
            .map_err(|e| bad(name, format!("not JSON: {e}")))?;
        if doc_like.get("kind").is_some() {
            let doc: RangesDoc = serde_json::from_value(doc_like)
                .map_err(|e| bad(name, format!("not an {RANGES_KIND} document: {e}")))?;
            if doc.kind != RANGES_KIND {
                return Err(bad(
                    name,
                    format!("$.kind is `{}`, expected `{RANGES_KIND}`", doc.kind),
                ));
            }
            if doc.format_version != RANGES_FORMAT_VERSION {
                return Err(bad(
                    name,
                    format!(
                        "$.format_version {} is not {RANGES_FORMAT_VERSION}, the version this \
                         reads",
                        doc.format_version
                    ),
                ));
            }
            if let Some(s) = doc.step_ms {
                if s <= 0 {
                    return Err(bad(name, "$.step_ms must be positive"));
                }
                step = Some(s);
            }
            for (i, item) in doc.results.into_iter().enumerate() {
                let text = serde_json::to_vec(&item.response)
                    .map_err(|e| bad(name, format!("$.results[{i}].response: {e}")))?;
                let (series, _) = parse_matrix(&text, limits)
                    .map_err(|e| bad(name, format!("$.results[{i}].response: {e}")))?;
                by_metric.entry(item.metric).or_default().extend(series);
            }
        } else {
            let (series, _) = parse_matrix(bytes, limits).map_err(|e| bad(name, e.to_string()))?;
            for s in series {
                let metric = s.label("__name__").unwrap_or_default().to_string();
                by_metric.entry(metric).or_default().push(s);
            }
        }
    }
    Ok((by_metric, step))
}

/// The steps the samples lie on.
fn grid(by_metric: &ByMetric, step: Option<i64>) -> Result<Window, UploadError> {
    let times: BTreeSet<i64> = by_metric
        .values()
        .flatten()
        .flat_map(|s| s.points.iter().map(|(t, _)| *t))
        .collect();
    let (Some(&start), Some(&end)) = (times.first(), times.last()) else {
        return Err(UploadError::Empty);
    };
    let step_ms = step
        .or_else(|| {
            times
                .iter()
                .zip(times.iter().skip(1))
                .map(|(a, b)| b - a)
                .filter(|d| *d > 0)
                .min()
        })
        .unwrap_or(60_000);
    let steps = (end - start) / step_ms + 1;
    if steps > MAX_UPLOAD_STEPS {
        return Err(bad(
            "",
            format!("the results span {steps} steps of {step_ms} ms, more than {MAX_UPLOAD_STEPS}"),
        ));
    }
    Ok(Window {
        start_ms: start,
        step_ms,
        steps: usize::try_from(steps).unwrap_or(0),
    })
}

/// Explains uploaded range results (see the module doc) with an optional layout snapshot.
pub fn explain_uploaded_ranges(
    files: &[(String, Vec<u8>)],
    layout: Option<Snapshot>,
    mapping: BrokerMapping,
    opts: &ExplainOptions,
) -> Result<HistoryReport, UploadError> {
    explain_uploaded_ranges_observed(files, layout, mapping, opts, &mut |_, _, _| {})
}

/// [`explain_uploaded_ranges`], showing each snapshot built to `seen(index, total, snapshot)` (the
/// dashboard's worker builds the History view's timeline from them and reports progress).
pub fn explain_uploaded_ranges_observed(
    files: &[(String, Vec<u8>)],
    layout: Option<Snapshot>,
    mapping: BrokerMapping,
    opts: &ExplainOptions,
    seen: &mut dyn FnMut(usize, usize, &Snapshot),
) -> Result<HistoryReport, UploadError> {
    let (by_metric, step) = read_uploads(files, RangeLimits::default())?;
    let window = grid(&by_metric, step)?;
    let results: Vec<(&str, Vec<PromSeries>)> = by_metric
        .into_iter()
        .map(|(m, s)| (super::names::all().find(|n| *n == m).unwrap_or(""), s))
        .filter(|(m, _)| !m.is_empty())
        .collect();
    let total = window.steps;
    let mut index = 0;
    let mut history = PromHistory::new(layout, mapping, opts.clone());
    history.push_window(window, &results, &mut |s| {
        seen(index, total, s);
        index += 1;
    })?;
    if history.snapshots() == 0 {
        return Err(UploadError::Empty);
    }
    Ok(history.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage_answer(instance: &str, pct: &str) -> String {
        let series: Vec<String> = super::super::names::USAGE
            .iter()
            .map(|m| {
                format!(
                    r#"{{"metric":{{"__name__":"{m}","instance":"{instance}"}},"values":[[1750000000,"{pct}"],[1750000060,"{pct}"]]}}"#
                )
            })
            .collect();
        format!(
            r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#,
            series.join(",")
        )
    }

    #[test]
    fn raw_answers_and_a_bundling_document_read_the_same() {
        let raw = usage_answer("b1:8080", "40");
        let r = explain_uploaded_ranges(
            &[("q.json".into(), raw.clone().into_bytes())],
            None,
            BrokerMapping::default(),
            &ExplainOptions::default(),
        )
        .unwrap();
        assert_eq!(r.times_ms, vec![1_750_000_000_000, 1_750_000_060_000]);
        assert_eq!(r.basis.source, "prometheus");
        let response: serde_json::Value = serde_json::from_str(&raw).unwrap();
        let doc = serde_json::json!({
            "format_version": 1, "kind": "lbplan-prometheus-ranges", "step_ms": 60000,
            "results": [{"metric": "pulsar_lb_cpu_usage", "response": response}]
        });
        let (by, step) = read_uploads(
            &[("d.json".into(), doc.to_string().into_bytes())],
            RangeLimits::default(),
        )
        .unwrap();
        assert_eq!(step, Some(60_000));
        assert_eq!(by["pulsar_lb_cpu_usage"].len(), 5);
    }

    #[test]
    fn a_wrong_document_is_named() {
        let doc = r#"{"format_version": 2, "kind": "lbplan-prometheus-ranges", "results": []}"#;
        let e = read_uploads(
            &[("d.json".into(), doc.as_bytes().to_vec())],
            RangeLimits::default(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "d.json: $.format_version 2 is not 1, the version this reads"
        );
        let empty = explain_uploaded_ranges(
            &[],
            None,
            BrokerMapping::default(),
            &ExplainOptions::default(),
        );
        assert_eq!(empty.unwrap_err(), UploadError::Empty);
    }
}
