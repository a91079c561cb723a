//! A series on disk (`docs/history.md`): appending snapshots to a stored series directory, each
//! file written atomically and a snapshot's manifest after its parts, so an interrupted recording
//! keeps every snapshot whose manifest is there; and reading a series from a directory (stored or
//! of ordinary snapshot files) or a zip. The encoding is core's (`history::store`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use lbplan_core::history::store::{
    self, Files, HEADER_FILE, PARTS_DIR, SNAPSHOTS_DIR, encode_snapshot, header_bytes,
};
use lbplan_core::model::Snapshot;

use crate::atomic_write::{self, Existing};
use crate::exit::CliError;
use crate::input_files::read_path;

/// One file of a series is at most this large.
const MAX_FILE_BYTES: u64 = 2 << 30;
/// A series (all its files, decompressed zip members included) is at most this large.
const MAX_TOTAL_BYTES: u64 = 16 << 30;
const MAX_FILES: usize = 5_000_000;

/// Appends snapshots to a stored series.
pub struct SeriesWriter {
    dir: PathBuf,
    parts: HashSet<String>,
    next_seq: u64,
}

fn failed(path: &Path, e: impl std::fmt::Display) -> CliError {
    CliError::Failed(format!("{}: {e}", path.display()))
}

impl SeriesWriter {
    /// Opens `dir` to append to, creating it (and its header) when missing. A directory that is
    /// not empty must hold a stored series.
    pub fn open(dir: &Path) -> Result<Self, CliError> {
        std::fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
        let header = dir.join(HEADER_FILE);
        if header.exists() {
            let bytes = read_path(&header, 1 << 20)?;
            let files: Files = vec![(HEADER_FILE.to_string(), bytes)];
            // Reuses the reader's header check (an empty series is fine here).
            match store::StoredSeries::open(&files) {
                Ok(_) | Err(lbplan_core::history::SeriesError::Empty) => {}
                Err(e) => return Err(CliError::BadInput(format!("{}: {e}", dir.display()))),
            }
        } else {
            let not_empty = std::fs::read_dir(dir)
                .map_err(|e| failed(dir, e))?
                .next()
                .is_some();
            if not_empty {
                return Err(CliError::BadInput(format!(
                    "{}: not empty and not a series (no {HEADER_FILE}); choose a new directory",
                    dir.display()
                )));
            }
        }
        for sub in [PARTS_DIR, SNAPSHOTS_DIR] {
            std::fs::create_dir_all(dir.join(sub)).map_err(|e| failed(dir, e))?;
        }
        if !header.exists() {
            atomic_write::write_file(&header, &header_bytes(), Existing::Refuse)
                .map_err(|e| CliError::Failed(e.to_string()))?;
        }
        let mut parts = HashSet::new();
        for e in std::fs::read_dir(dir.join(PARTS_DIR)).map_err(|e| failed(dir, e))? {
            let e = e.map_err(|e| failed(dir, e))?;
            if let Some(id) = e
                .file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".json.gz"))
            {
                parts.insert(id.to_string());
            }
        }
        let next_seq = std::fs::read_dir(dir.join(SNAPSHOTS_DIR))
            .map_err(|e| failed(dir, e))?
            .count() as u64;
        Ok(Self {
            dir: dir.to_path_buf(),
            parts,
            next_seq,
        })
    }

    /// Appends one snapshot (it must have `captured_at_ms`); returns the bytes written.
    pub fn append(&mut self, snapshot: &Snapshot) -> Result<u64, CliError> {
        if snapshot.captured_at_ms.is_none() {
            return Err(CliError::BadInput(
                "a snapshot without $.captured_at_ms cannot join a series".to_string(),
            ));
        }
        let known = &self.parts;
        let encoded = encode_snapshot(snapshot, self.next_seq, &|id| known.contains(id))
            .map_err(|e| CliError::Failed(format!("encoding a snapshot: {e}")))?;
        let mut written = 0u64;
        for (name, bytes) in &encoded.parts {
            let path = self.dir.join(PARTS_DIR).join(name);
            atomic_write::write_file(&path, bytes, Existing::Replace)
                .map_err(|e| CliError::Failed(e.to_string()))?;
            written += bytes.len() as u64;
            if let Some(id) = name.strip_suffix(".json.gz") {
                self.parts.insert(id.to_string());
            }
        }
        let path = self.dir.join(SNAPSHOTS_DIR).join(&encoded.manifest_name);
        atomic_write::write_file(&path, &encoded.manifest, Existing::Refuse)
            .map_err(|e| CliError::Failed(e.to_string()))?;
        written += encoded.manifest.len() as u64;
        self.next_seq += 1;
        Ok(written)
    }
}

/// Every regular file under `dir`, named relative to it with `/`, in name order.
fn walk(dir: &Path, rel: &str, out: &mut Files, total: &mut u64) -> Result<(), CliError> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", dir.display())))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let Some(name) = e.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let path = e.path();
        let rel_name = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            walk(&path, &rel_name, out, total)?;
        } else if kind.is_file() {
            if out.len() >= MAX_FILES {
                return Err(CliError::BadInput(format!(
                    "{}: more than {MAX_FILES} files",
                    dir.display()
                )));
            }
            let bytes = read_path(&path, MAX_FILE_BYTES)?;
            *total += bytes.len() as u64;
            if *total > MAX_TOTAL_BYTES {
                return Err(CliError::BadInput(format!(
                    "{}: more than {MAX_TOTAL_BYTES} bytes",
                    dir.display()
                )));
            }
            out.push((rel_name, bytes));
        }
    }
    Ok(())
}

/// The files of a series: a directory (stored series or snapshot files), a `.zip` of one, or a
/// single snapshot file.
pub fn read_series(path: &Path) -> Result<Files, CliError> {
    let shown = path.display().to_string();
    if path.is_dir() {
        let mut out = Vec::new();
        let mut total = 0;
        walk(path, "", &mut out, &mut total)?;
        return Ok(out);
    }
    let bytes = read_path(path, MAX_FILE_BYTES)?;
    if bytes.starts_with(b"PK") {
        return store::zip_members(&shown, &bytes, MAX_FILES, MAX_TOTAL_BYTES)
            .map_err(|e| CliError::BadInput(e.to_string()));
    }
    Ok(vec![(shown, bytes)])
}
