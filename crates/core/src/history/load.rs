//! A series' files explained, whatever form they come in (a stored series streamed one snapshot
//! at a time, or ordinary snapshot files ordered by capture time): the one entry point the CLI and
//! the JavaScript API call.

use crate::model::Snapshot;
use crate::plan::PlanError;

use super::explain::{ExplainOptions, Explainer};
use super::report::HistoryReport;
use super::series::SeriesError;
use super::store::{
    Files, FilesSource, SeriesLimits, SeriesSource, SnapshotFiles, StoredSeries, ZipSource,
    strip_common_dir,
};

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
    if files.len() > SeriesLimits::default().max_files {
        return Err(HistoryError::Series(SeriesError::malformed(
            "",
            format!(
                "the series has {} files, more than {} (cap on the number of files)",
                files.len(),
                SeriesLimits::default().max_files
            ),
        )));
    }
    let mut source = FilesSource::new(files);
    explain_source(&mut source, SeriesLimits::default(), opts, seen)
}

/// Explains what was uploaded as a series (the dashboard's and the JavaScript API's one entry
/// point): one zip — a zipped series folder or zipped snapshot files — read like a directory, each
/// member inflated only when the reader needs it and within the same limits, so a zip costs its
/// compressed bytes plus one snapshot at a time; or the files of a folder (a common top directory
/// removed).
pub fn explain_uploaded(
    files: Files,
    opts: &ExplainOptions,
    seen: &mut dyn FnMut(usize, usize, &Snapshot),
) -> Result<HistoryReport, HistoryError> {
    match files.as_slice() {
        [(name, bytes)] if bytes.starts_with(b"PK") => {
            let limits = SeriesLimits::default();
            let mut zip = ZipSource::open(name, bytes, limits.max_files)?;
            let mut report =
                explain_source(&mut zip, limits, opts, seen).map_err(|e| in_zip(name, e))?;
            report.warnings.splice(0..0, zip.warnings());
            Ok(report)
        }
        _ => explain_files_observed(&strip_common_dir(files), opts, seen),
    }
}

/// Names the zip in an error about one of its members (`s.zip: snapshots/…: why`).
fn in_zip(zip: &str, e: HistoryError) -> HistoryError {
    let inside = |file: String| {
        if file.starts_with(zip) {
            file
        } else {
            format!("{zip}: {file}")
        }
    };
    match e {
        HistoryError::Series(SeriesError::Malformed { file, why }) => {
            HistoryError::Series(SeriesError::Malformed {
                file: inside(file),
                why,
            })
        }
        HistoryError::Series(SeriesError::NoTime { name }) => {
            HistoryError::Series(SeriesError::NoTime { name: inside(name) })
        }
        other => other,
    }
}

/// Explains the series of `source` (a stored series or ordinary snapshot files), reading one
/// snapshot at a time within `limits`.
pub fn explain_source(
    source: &mut dyn SeriesSource,
    limits: SeriesLimits,
    opts: &ExplainOptions,
    seen: &mut dyn FnMut(usize, usize, &Snapshot),
) -> Result<HistoryReport, HistoryError> {
    let mut explainer: Option<Explainer> = None;
    let mut index = 0;
    if source.is_stored() {
        let mut stored = StoredSeries::from_source(source, limits)?;
        let total = stored.len();
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
    } else {
        let mut plain = SnapshotFiles::open(source, limits)?;
        let total = plain.len();
        while let Some(next) = plain.next_snapshot() {
            let s = next?;
            seen(index, total, &s);
            index += 1;
            let ex = match explainer.as_mut() {
                Some(ex) => ex,
                None => explainer.insert(Explainer::new(&s, opts)?),
            };
            ex.push(s)?;
        }
    }
    explainer
        .map(Explainer::finish)
        .ok_or(HistoryError::Series(SeriesError::Empty))
}
