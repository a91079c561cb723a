//! The leader's log merged into a history report: files read whole (an upload, the JS API) or a
//! log already read (the CLI streams its files).

use super::merge::merge;
use super::reader::{LeaderLog, read_bytes};
use super::types::LeaderLogError;
use crate::history::report::HistoryReport;

/// Reads whole files (plain or gzip) and merges them into `report`.
pub fn attach_files(
    report: &mut HistoryReport,
    files: &[(String, Vec<u8>)],
    tolerance_ms: i64,
) -> Result<(), LeaderLogError> {
    let mut log = LeaderLog::default();
    for (name, bytes) in files {
        read_bytes(&mut log, name, bytes)?;
    }
    attach(report, log, tolerance_ms);
    Ok(())
}

/// Merges `log` into `report` (sorting its actions by time first).
pub fn attach(report: &mut HistoryReport, mut log: LeaderLog, tolerance_ms: i64) {
    log.sort();
    report.leader_log = Some(merge(report, &log, tolerance_ms));
}
