//! History: a recorded *series* of snapshots, what changed between consecutive ones, and why —
//! each ownership change, split, broker join or leave and namespace creation or deletion
//! attributed to the leader's shedding (replayed with its state carried along the series), an
//! automatic split, a broker leaving, or listed as unexplained. See `docs/history.md`.

pub mod answers;
pub mod cause;
pub mod diff;
pub mod explain;
pub mod leader_log;
pub mod load;
pub mod metrics;
pub mod prometheus;
pub mod render;
pub mod report;
pub mod series;
pub mod store;

pub use diff::{Change, diff};
pub use explain::{Cause, ExplainOptions, Explainer, explain};
pub use load::{
    HistoryError, explain_files, explain_files_observed, explain_source, explain_uploaded,
};
pub use report::{HISTORY_FORMAT_VERSION, HistoryReport};
pub use series::{MAX_TIME_MS, Series, SeriesError, check_time};
pub use store::SERIES_FORMAT_VERSION;
