//! The series reader (`lbplan history`, the JS API's `explainHistory`, the dashboard's worker) on
//! arbitrary input: `history::explain_source` must never panic, and stays within its caps (small
//! ones here). The input is either a zip (starts with `PK`: read through `ZipSource`, its members
//! inflated on demand) or files in a length-prefixed framing, so that a mutated manifest or part
//! still arrives as a file: repeated `[name length: u8][name][content length: u32 LE][content]`.
#![no_main]

use lbplan_core::history::store::{Files, FilesSource, SeriesLimits, ZipSource};
use lbplan_core::history::{ExplainOptions, explain_source};
use libfuzzer_sys::fuzz_target;

const LIMITS: SeriesLimits = SeriesLimits {
    max_files: 1_000,
    max_manifest_bytes: 1 << 20,
    max_part_bytes: 4 << 20,
    max_total_bytes: 32 << 20,
    max_cached_bytes: 4 << 20,
    max_snapshot_bytes: 8 << 20,
    max_file_bytes: 4 << 20,
    max_kept_bytes: 1 << 20,
};

/// The framed files of `data` (a truncated last frame is dropped).
fn framed(mut data: &[u8]) -> Files {
    let mut files = Files::new();
    while let Some((&n, rest)) = data.split_first() {
        let Some((name, rest)) = rest.split_at_checked(usize::from(n)) else {
            break;
        };
        let Some((len, rest)) = rest.split_first_chunk::<4>() else {
            break;
        };
        let len = u32::from_le_bytes(*len) as usize;
        let Some((content, rest)) = rest.split_at_checked(len.min(rest.len())) else {
            break;
        };
        files.push((String::from_utf8_lossy(name).into_owned(), content.to_vec()));
        data = rest;
        if files.len() >= LIMITS.max_files {
            break;
        }
    }
    files
}

fuzz_target!(|data: &[u8]| {
    let opts = ExplainOptions::default();
    if data.starts_with(b"PK") {
        if let Ok(mut source) = ZipSource::open("fuzz.zip", data, LIMITS.max_files) {
            let _ = explain_source(&mut source, LIMITS, &opts, &mut |_, _, _| {});
        }
        return;
    }
    let files = framed(data);
    let mut source = FilesSource::new(&files);
    let _ = explain_source(&mut source, LIMITS, &opts, &mut |_, _, _| {});
});
