//! A series' files explained, whatever form they come in (a stored series streamed one snapshot
//! at a time, or ordinary snapshot files ordered by capture time): the one entry point the CLI and
//! the JavaScript API call.

use crate::model::Snapshot;
use crate::plan::PlanError;

use super::explain::{ExplainOptions, Explainer, explain};
use super::report::HistoryReport;
use super::series::{Series, SeriesError};
use super::store::{Files, StoredSeries, is_stored_series, read_snapshot_file, snapshot_files};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HistoryError {
    #[error(transparent)]
    Series(#[from] SeriesError),
    #[error(transparent)]
    Plan(#[from] PlanError),
}

/// Explains the series held by `files` (relative paths; a zip already expanded).
pub fn explain_files(files: &Files, opts: &ExplainOptions) -> Result<HistoryReport, HistoryError> {
    explain_files_observed(files, opts, &mut |_, _, _| {})
}

/// [`explain_files`], showing each snapshot in time order to `seen(index, total, snapshot)` as it
/// is read (the dashboard's worker builds the timeline from them and reports progress).
pub fn explain_files_observed(
    files: &Files,
    opts: &ExplainOptions,
    seen: &mut dyn FnMut(usize, usize, &Snapshot),
) -> Result<HistoryReport, HistoryError> {
    if is_stored_series(files) {
        let mut stored = StoredSeries::open(files)?;
        let total = stored.len();
        let mut explainer: Option<Explainer> = None;
        let mut index = 0;
        while let Some(next) = stored.next_snapshot_with_changes() {
            let (s, changed) = next?;
            seen(index, total, &s);
            index += 1;
            let ex = match explainer.as_mut() {
                Some(ex) => ex,
                None => explainer.insert(Explainer::new(&s, opts)?),
            };
            if let Some(done) = ex.push_changed(s, changed.as_deref())? {
                stored.recycle(done);
            }
        }
        return explainer
            .map(Explainer::finish)
            .ok_or(HistoryError::Series(SeriesError::Empty));
    }
    let mut named = Vec::new();
    for (name, bytes) in snapshot_files(files) {
        named.push((name.clone(), read_snapshot_file(name, bytes)?));
    }
    let series = Series::from_named(named)?;
    let total = series.snapshots.len();
    for (i, s) in series.snapshots.iter().enumerate() {
        seen(i, total, s);
    }
    Ok(explain(&series, opts)?)
}
