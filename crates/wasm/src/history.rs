//! `explainHistory`: a recorded series (the files of a stored series directory, a zip of one, or
//! ordinary snapshot files) explained by core's `history`: every change between consecutive
//! snapshots with its cause, and the summary. Options are `plan()`'s `profile`, `settings` and
//! `seed` (the replayed leader's), and the leader's log as text (`leaderLog`: one string per file,
//! merged by core's `history::leader_log`; gzip files are for the dashboard's upload, which hands
//! their bytes to the worker).

use lbplan_core::history::leader_log::{DEFAULT_CLOCK_TOLERANCE_MS, attach_files};
use lbplan_core::history::store::Files;
use lbplan_core::history::{ExplainOptions, HistoryReport, explain_uploaded};
use serde_json::Value;

use serde::Deserialize;

use crate::error::ApiError;
use crate::options::{self, List, SafeInt, Settings, Text};
use crate::plan_options::profile;

/// `explainHistory()`'s options (`HistoryOptions` in the declarations): the replayed leader's
/// profile, settings and seed; the calibration; the leader's log files' text and the clock
/// tolerance (ms).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryOptions {
    profile: Option<Text>,
    settings: Option<Settings>,
    seed: Option<SafeInt>,
    /// Read by `calibration_option` (listed so it is not refused as unknown).
    #[allow(dead_code)]
    calibration: Option<Value>,
    leader_log: Option<List<Text>>,
    clock_tolerance_ms: Option<SafeInt>,
}

/// `explainHistoryFromPrometheus()`'s options (`PrometheusHistoryOptions`): `explainHistory()`'s,
/// plus the layout snapshot, the label naming the broker and explicit label → brokerId pairs.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PrometheusHistoryOptions {
    profile: Option<Text>,
    settings: Option<Settings>,
    seed: Option<SafeInt>,
    #[allow(dead_code)]
    calibration: Option<Value>,
    leader_log: Option<List<Text>>,
    clock_tolerance_ms: Option<SafeInt>,
    layout: Option<Value>,
    broker_label: Option<Text>,
    broker_map: Option<std::collections::BTreeMap<String, String>>,
}

/// What only `explainHistoryFromPrometheus()` reads.
struct RangeReading {
    layout: Option<Value>,
    broker_label: Option<Text>,
    broker_map: Option<std::collections::BTreeMap<String, String>>,
}

impl PrometheusHistoryOptions {
    /// The options both calls share, and the rest.
    fn split(self) -> (HistoryOptions, RangeReading) {
        (
            HistoryOptions {
                profile: self.profile,
                settings: self.settings,
                seed: self.seed,
                calibration: None,
                leader_log: self.leader_log,
                clock_tolerance_ms: self.clock_tolerance_ms,
            },
            RangeReading {
                layout: self.layout,
                broker_label: self.broker_label,
                broker_map: self.broker_map,
            },
        )
    }
}

/// The replayed leader's options (`options` is the whole object, for its calibration).
fn explain_options(o: &mut HistoryOptions, options: &Value) -> Result<ExplainOptions, ApiError> {
    Ok(ExplainOptions {
        profile: o.profile.take().map(|Text(p)| profile(&p)).transpose()?,
        settings: o.settings.take().map(|Settings(s)| s).unwrap_or_default(),
        seed: o.seed.take().map_or(0, |SafeInt(s)| s),
        load_model: crate::calibration_option::load_model(options)?,
    })
}

/// The leader's log files given as text (named by their place in `options.leaderLog`) and the
/// clock tolerance: read before the series, so a bad option is named before any work.
struct LeaderLogInput {
    files: Vec<(String, Vec<u8>)>,
    tolerance_ms: i64,
}

impl LeaderLogInput {
    fn read(o: &mut HistoryOptions) -> Result<Self, ApiError> {
        let logs = match o.leader_log.take() {
            Some(list) => list.items(
                "options.leaderLog",
                "an array of strings (each a log file's text)",
            )?,
            None => Vec::new(),
        };
        Ok(Self {
            files: logs
                .into_iter()
                .enumerate()
                .map(|(i, Text(t))| (format!("options.leaderLog[{i}]"), t.into_bytes()))
                .collect(),
            tolerance_ms: o
                .clock_tolerance_ms
                .take()
                .map_or(DEFAULT_CLOCK_TOLERANCE_MS, |SafeInt(t)| {
                    i64::try_from(t).unwrap_or(i64::MAX)
                }),
        })
    }

    /// Merged into `report` by core's `history::leader_log` (nothing when no log was given).
    fn attach(self, report: &mut HistoryReport) -> Result<(), ApiError> {
        if self.files.is_empty() {
            return Ok(());
        }
        attach_files(report, &self.files, self.tolerance_ms)
            .map_err(|e| ApiError::whole(e.to_string()))
    }
}

/// The logic behind `explainHistory`.
pub fn explain_history_files(files: Files, options: &Value) -> Result<HistoryReport, ApiError> {
    let (mut o, unknown) = options::read::<HistoryOptions>(options)?;
    options::refuse_unknown::<HistoryOptions>(&unknown, "")?;
    let opts = explain_options(&mut o, options)?;
    let log = LeaderLogInput::read(&mut o)?;
    let mut report = explain_uploaded(files, &opts, &mut |_, _, _| {})
        .map_err(|e| ApiError::whole(e.to_string()))?;
    log.attach(&mut report)?;
    Ok(report)
}

/// The logic behind `explainHistoryFromPrometheus`: uploaded `/api/v1/query_range` answers (or
/// `lbplan-prometheus-ranges` documents) explained by core's `history::prometheus::upload`, then
/// the leader's log merged as `explainHistory` does. The page and the API never call a server:
/// the portal hands the answers over.
pub fn explain_prometheus_files(files: Files, options: &Value) -> Result<HistoryReport, ApiError> {
    use lbplan_core::history::prometheus::BrokerMapping;
    use lbplan_core::history::prometheus::upload::explain_uploaded_ranges;
    let (o, unknown) = options::read::<PrometheusHistoryOptions>(options)?;
    options::refuse_unknown::<PrometheusHistoryOptions>(&unknown, "")?;
    let (mut common, reading) = o.split();
    let layout = match &reading.layout {
        Some(v) => Some(
            crate::snapshot_input::snapshot_from_value(v)
                .map_err(|e| ApiError::whole(format!("options.layout: {e}")))?
                .0,
        ),
        None => None,
    };
    let mapping = BrokerMapping::new(
        reading.broker_label.map(|Text(l)| l),
        reading.broker_map.unwrap_or_default(),
        layout.as_ref(),
    );
    let opts = explain_options(&mut common, options)?;
    let log = LeaderLogInput::read(&mut common)?;
    let mut report = explain_uploaded_ranges(&files, layout, mapping, &opts)
        .map_err(|e| ApiError::whole(e.to_string()))?;
    log.attach(&mut report)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMO: &str = include_str!("../../../static/demo-snapshot.json");

    /// Two snapshot files of a folder upload, a minute apart, the later one with a bundle moved by
    /// hand: one unexplained move.
    #[test]
    fn a_folder_of_snapshots_is_explained() {
        let first: Value = serde_json::from_str(DEMO).unwrap();
        let t0 = first["captured_at_ms"].as_i64().unwrap();
        let mut second = first.clone();
        second["captured_at_ms"] = Value::from(t0 + 60_000);
        let brokers = second["brokers"].as_object_mut().unwrap();
        let ids: Vec<String> = brokers.keys().cloned().collect();
        let bundle = brokers[&ids[0]]["local_broker_data"]["bundles"][0]
            .as_str()
            .unwrap()
            .to_string();
        brokers.get_mut(&ids[0]).unwrap()["local_broker_data"]["bundles"]
            .as_array_mut()
            .unwrap()
            .remove(0);
        brokers.get_mut(&ids[0]).unwrap()["local_broker_data"]["lastStats"]
            .as_object_mut()
            .unwrap()
            .remove(&bundle);
        brokers.get_mut(&ids[1]).unwrap()["local_broker_data"]["bundles"]
            .as_array_mut()
            .unwrap()
            .push(Value::from(bundle.clone()));
        let files = vec![
            (
                "up/b.json".to_string(),
                serde_json::to_vec(&second).unwrap(),
            ),
            ("up/a.json".to_string(), serde_json::to_vec(&first).unwrap()),
        ];
        let r = explain_history_files(files, &Value::Null).unwrap();
        assert_eq!(r.times_ms, vec![t0, t0 + 60_000]);
        assert_eq!(r.summary.moves_seen, 1);
        assert_eq!(r.summary.unexplained, 1);
    }

    /// Two brokers' usage as Prometheus answers `query_range`: a report of two steps, built from
    /// Prometheus, saying so.
    #[test]
    fn uploaded_range_results_are_explained() {
        let series: Vec<String> = lbplan_core::history::prometheus::names::USAGE
            .iter()
            .flat_map(|m| {
                ["b1:8080", "b2:8080"].map(|i| {
                    format!(
                        r#"{{"metric":{{"__name__":"{m}","instance":"{i}"}},"values":[[1750000000,"30"],[1750000060,"31"]]}}"#
                    )
                })
            })
            .collect();
        let body = format!(
            r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#,
            series.join(",")
        );
        let r = explain_prometheus_files(
            vec![("usage.json".into(), body.into_bytes())],
            &serde_json::json!({"brokerMap": {"b2:8080": "broker-2:8080"}}),
        )
        .unwrap();
        assert_eq!(r.summary.snapshots, 2);
        assert_eq!(r.basis.attribution, "consistent_with_leader");
        assert!(r.broker_load.contains_key("broker-2:8080"));
        let e = explain_prometheus_files(Vec::new(), &serde_json::json!({"brokerLabel": 3}))
            .unwrap_err();
        assert!(e.to_string().contains("options.brokerLabel"), "{e}");
    }

    /// The log's text beside the series: the hand-made move is logged by nobody, so it stays
    /// unexplained and the log's unload of it (4.1.3's line format) is "not predicted".
    #[test]
    fn a_leader_log_is_merged() {
        let first: Value = serde_json::from_str(DEMO).unwrap();
        let t0 = first["captured_at_ms"].as_i64().unwrap();
        let mut second = first.clone();
        second["captured_at_ms"] = Value::from(t0 + 60_000);
        let files = vec![
            ("a.json".to_string(), serde_json::to_vec(&first).unwrap()),
            ("b.json".to_string(), serde_json::to_vec(&second).unwrap()),
        ];
        let line = "2026-08-20T08:57:37,123+0000 [pulsar-load-manager-5-1] INFO  \
                    org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl - [ThresholdShedder] \
                    Unloading bundle: public/default/0x00000000_0x40000000 from broker a:8080 to dest broker b:8080\n\
                    not a log line\n";
        let r = explain_history_files(files, &serde_json::json!({"leaderLog": [line]})).unwrap();
        let log = r.leader_log.unwrap();
        assert_eq!(log.actions, 1);
        assert_eq!(log.files[0].file, "options.leaderLog[0]");
        assert_eq!(log.files[0].skipped.get("no_timestamp"), Some(&1));
        let e =
            explain_history_files(Vec::new(), &serde_json::json!({"leaderLog": "x"})).unwrap_err();
        assert!(e.to_string().contains("options.leaderLog"), "{e}");
    }

    #[test]
    fn a_bad_option_is_named() {
        let e = explain_history_files(Vec::new(), &serde_json::json!({"seed": "x"})).unwrap_err();
        assert!(e.to_string().contains("options.seed"), "{e}");
    }
}
