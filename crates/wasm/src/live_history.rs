//! `new LiveHistory(options)` / `pushSnapshot(snapshot)`: a portal hands the planner a stream of
//! snapshots (each one it collects) and the history grows with each, explained incrementally by
//! core's `watch::live::LiveHistory` (the leader's state carried, nothing replayed; the window
//! trimmed to `windowMs`), as `lbplan watch` keeps it. Options are `explainHistory()`'s plus
//! `windowMs`.

use lbplan_core::history::{ExplainOptions, HistoryReport};
use lbplan_core::watch::live::LiveHistory;
use serde::Deserialize;
use serde_json::Value;

use crate::error::ApiError;
use crate::options::{self, SafeInt, Settings, Text};
use crate::plan_options::profile;
use crate::snapshot_input::snapshot_from_value;

/// The window kept unless `windowMs` says otherwise: `lbplan watch`'s `--history-window`.
pub use lbplan_core::watch::live::DEFAULT_WINDOW_MS;

/// `LiveHistory`'s options (`LiveHistoryOptions` in the declarations).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LiveHistoryOptions {
    profile: Option<Text>,
    settings: Option<Settings>,
    seed: Option<SafeInt>,
    window_ms: Option<SafeInt>,
}

/// The logic behind the `LiveHistory` class.
pub struct LiveHistoryState {
    inner: LiveHistory,
}

impl LiveHistoryState {
    pub fn new(options: &Value) -> Result<Self, ApiError> {
        let (o, unknown) = options::read::<LiveHistoryOptions>(options)?;
        options::refuse_unknown::<LiveHistoryOptions>(&unknown, "")?;
        let opts = ExplainOptions {
            profile: o.profile.map(|Text(p)| profile(&p)).transpose()?,
            settings: o.settings.map(|Settings(s)| s).unwrap_or_default(),
            seed: o.seed.map_or(0, |SafeInt(s)| s),
            ..ExplainOptions::default()
        };
        let window = o.window_ms.map_or(DEFAULT_WINDOW_MS, |SafeInt(w)| {
            i64::try_from(w).unwrap_or(i64::MAX)
        });
        Ok(Self {
            inner: LiveHistory::new(opts, window),
        })
    }

    /// The next snapshot (a snapshot object, in time order): the report of the kept window after it.
    pub fn push_value(&mut self, snapshot: &Value) -> Result<HistoryReport, ApiError> {
        let (snapshot, _warnings) = snapshot_from_value(snapshot)?;
        self.inner
            .push(snapshot)
            .map_err(|e| ApiError::whole(e.to_string()))?;
        Ok(self.inner.report())
    }

    /// The kept window's report.
    pub fn report(&self) -> HistoryReport {
        self.inner.report()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMO: &str = include_str!("../../../static/demo-snapshot.json");

    /// The demo, then the demo a minute later with a bundle moved by hand: the history grows by
    /// one snapshot and one unexplained move, as `explainHistory` explains the same two files.
    #[test]
    fn the_history_grows_with_each_snapshot_pushed() {
        let first: Value = serde_json::from_str(DEMO).unwrap();
        let t0 = first["captured_at_ms"].as_i64().unwrap();
        let mut second = first.clone();
        second["captured_at_ms"] = Value::from(t0 + 60_000);
        let brokers = second["brokers"].as_object_mut().unwrap();
        let ids: Vec<String> = brokers.keys().cloned().collect();
        let from = &mut brokers.get_mut(&ids[0]).unwrap()["local_broker_data"];
        let bundle = from["bundles"].as_array_mut().unwrap().remove(0);
        from["lastStats"]
            .as_object_mut()
            .unwrap()
            .remove(bundle.as_str().unwrap());
        brokers.get_mut(&ids[1]).unwrap()["local_broker_data"]["bundles"]
            .as_array_mut()
            .unwrap()
            .push(bundle);
        let mut live = LiveHistoryState::new(&Value::Null).unwrap();
        let r = live.push_value(&first).unwrap();
        assert_eq!((r.times_ms.len(), r.summary.moves_seen), (1, 0));
        let r = live.push_value(&second).unwrap();
        assert_eq!(r.times_ms, vec![t0, t0 + 60_000]);
        assert_eq!(r.summary.moves_seen, 1);
        assert_eq!(r.summary.unexplained, 1);
        let batch = crate::history::explain_history_files(
            vec![
                ("a.json".into(), serde_json::to_vec(&first).unwrap()),
                ("b.json".into(), serde_json::to_vec(&second).unwrap()),
            ],
            &Value::Null,
        )
        .unwrap();
        assert_eq!(live.report(), batch);
        // Time only goes forward.
        let err = live.push_value(&first).unwrap_err();
        assert!(err.to_string().contains("before the latest"), "{err}");
    }

    #[test]
    fn an_unknown_option_is_refused() {
        let err = LiveHistoryState::new(&serde_json::json!({"window": 5}))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("window"), "{err}");
    }
}
