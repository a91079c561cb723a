//! A series on disk (`docs/history.md`): appending snapshots to a stored series directory, and
//! reading a series from a directory (stored or of ordinary snapshot files) or a zip. The encoding
//! and the reader are core's (`history::store`); this module is the file system around them.
//!
//! Writing: the directory is opened once and every file is created and renamed through that
//! handle ([`PinnedDir`]), so a symlink or directory swapped in at its path during a long
//! recording cannot redirect later files. Snapshots are committed in batches: a batch's parts and
//! manifests are written under temporary names, one `syncfs` makes them durable, then they are
//! renamed to their real names (manifests last, each refused if its name exists) and the names
//! made durable. A crash leaves every committed snapshot readable and nothing half-written under
//! a real name (temporary files are removed when the series is next opened).
//!
//! Reading: only the series' own files are opened (`series.json`, `snapshots/*`, `parts/*`, or
//! the `.json` files of a directory of snapshot files), each when the reader needs it, its size
//! checked on the open handle against the cap before a byte is read (a sparse file claiming
//! gigabytes is refused unread).

use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use lbplan_core::history::store::{
    self, HEADER_FILE, PARTS_DIR, ReadError, SNAPSHOTS_DIR, SeriesLimits, SeriesSource, ZipSource,
    encode_snapshot, header_bytes, manifest_order,
};
use lbplan_core::history::{
    ExplainOptions, HistoryError, HistoryReport, SeriesError, explain_source,
};
use lbplan_core::model::Snapshot;

use crate::exit::CliError;
use crate::pinned_dir::PinnedDir;

/// A zip of a series is at most this large (it is read whole; its members are inflated one at a
/// time within the reader's caps).
pub const MAX_ZIP_BYTES: u64 = 1 << 30;
/// Files listed in a series directory (or members of a zip) at most.
pub const MAX_FILES: usize = 2_000_000;
/// A single file given as a series is one snapshot file: the importer's cap.
const MAX_SNAPSHOT_FILE_BYTES: u64 = lbplan_core::import::DEFAULT_MAX_FILE_BYTES;
/// Snapshots appended before their batch is made durable (`simulate --record-series`).
pub const RECORD_BATCH: usize = 64;
/// Temporary files of a batch end with this (and start with a dot); the reader never lists them.
const TEMP_SUFFIX: &str = ".lbplan-tmp";

/// Appends snapshots to a stored series.
pub struct SeriesWriter {
    dir: PinnedDir,
    parts_dir: PinnedDir,
    snapshots_dir: PinnedDir,
    parts: HashSet<String>,
    next_seq: u64,
    /// The cluster the series records (its latest snapshot's), once known.
    cluster: Option<Option<String>>,
    /// Snapshots appended before the batch is committed.
    batch: usize,
    /// The batch not yet committed: (temporary name, real name) of parts, then of manifests.
    pending_parts: Vec<(String, String)>,
    pending_manifests: Vec<(String, String)>,
    temp_counter: u64,
}

fn failed(what: &str, e: impl std::fmt::Display) -> CliError {
    CliError::Failed(format!("{what}: {e}"))
}

/// Refuses a path that is not a directory before anything is created: a file where the series
/// directory should be is bad input (exit 2), named.
pub fn check_series_dir(dir: &Path) -> Result<(), CliError> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => Err(CliError::BadInput(format!(
            "{}: is a symbolic link; give the series directory itself (a series is written only \
             into a directory opened once, never through a link)",
            dir.display()
        ))),
        Ok(m) if !m.is_dir() => Err(CliError::BadInput(format!(
            "{}: is a file, not a directory (a series is recorded into a directory)",
            dir.display()
        ))),
        _ => Ok(()),
    }
}

impl SeriesWriter {
    /// Opens `dir` to append to, creating it (and its header) when missing. A directory that is
    /// not empty must hold a stored series. `batch` snapshots are made durable together (1: each
    /// on its own).
    pub fn open(dir: &Path, batch: usize) -> Result<Self, CliError> {
        check_series_dir(dir)?;
        let shown = dir.display().to_string();
        std::fs::create_dir_all(dir).map_err(|e| failed(&shown, e))?;
        let pinned = PinnedDir::open(dir).map_err(|e| failed(&shown, e))?;
        let names = pinned.names(MAX_FILES).map_err(|e| failed(&shown, e))?;
        let has_header = names.iter().any(|n| n == HEADER_FILE);
        if has_header {
            let (file, _) = pinned
                .open_file(HEADER_FILE)
                .map_err(|e| failed(&pinned.shown(HEADER_FILE), e))?;
            let mut bytes = Vec::new();
            file.take(1 << 20)
                .read_to_end(&mut bytes)
                .map_err(|e| failed(&pinned.shown(HEADER_FILE), e))?;
            let files = vec![(HEADER_FILE.to_string(), bytes)];
            // Reuses the reader's header check (an empty series is fine here).
            match store::StoredSeries::open(&files) {
                Ok(_) | Err(SeriesError::Empty) => {}
                Err(e) => return Err(CliError::BadInput(format!("{shown}: {e}"))),
            }
        } else if names.iter().any(|n| !n.starts_with('.')) {
            return Err(CliError::BadInput(format!(
                "{shown}: not empty and not a series (no {HEADER_FILE}); choose a new directory"
            )));
        }
        let parts_dir = pinned
            .subdir(PARTS_DIR)
            .map_err(|e| failed(&pinned.shown(PARTS_DIR), e))?;
        let snapshots_dir = pinned
            .subdir(SNAPSHOTS_DIR)
            .map_err(|e| failed(&pinned.shown(SNAPSHOTS_DIR), e))?;
        let mut writer = Self {
            dir: pinned,
            parts_dir,
            snapshots_dir,
            parts: HashSet::new(),
            next_seq: 0,
            cluster: None,
            batch: batch.max(1),
            pending_parts: Vec::new(),
            pending_manifests: Vec::new(),
            temp_counter: 0,
        };
        if !has_header {
            writer.put_header()?;
        }
        writer.load_existing()?;
        Ok(writer)
    }

    fn put_header(&mut self) -> Result<(), CliError> {
        let temp = self.temp_name(HEADER_FILE);
        let shown = self.dir.shown(HEADER_FILE);
        let mut f = self.dir.create_new(&temp).map_err(|e| failed(&shown, e))?;
        f.write_all(&header_bytes())
            .and_then(|()| f.sync_all())
            .map_err(|e| failed(&shown, e))?;
        match self.dir.link_new(&temp, HEADER_FILE) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let _ = self.dir.remove(&temp);
                return Err(CliError::Failed(format!(
                    "{shown}: appeared while the series was being created"
                )));
            }
            Err(e) => return Err(failed(&shown, e)),
        }
        let _ = self.dir.remove(&temp);
        self.dir.sync().map_err(|e| failed(&shown, e))
    }

    /// Known parts, the next sequence number and the series' cluster; temporary files left by an
    /// interrupted batch are removed.
    fn load_existing(&mut self) -> Result<(), CliError> {
        let shown = self.dir.shown(PARTS_DIR);
        for name in self
            .parts_dir
            .names(MAX_FILES)
            .map_err(|e| failed(&shown, e))?
        {
            if name.starts_with('.') && name.ends_with(TEMP_SUFFIX) {
                let _ = self.parts_dir.remove(&name);
            } else if let Some(id) = name.strip_suffix(".json.gz") {
                self.parts.insert(id.to_string());
            }
        }
        let shown = self.dir.shown(SNAPSHOTS_DIR);
        let mut latest: Option<((u64, u64), String)> = None;
        for name in self
            .snapshots_dir
            .names(MAX_FILES)
            .map_err(|e| failed(&shown, e))?
        {
            if name.starts_with('.') && name.ends_with(TEMP_SUFFIX) {
                let _ = self.snapshots_dir.remove(&name);
            } else if let Some(order) = manifest_order(&name) {
                self.next_seq = self.next_seq.max(order.1.saturating_add(1));
                if latest.as_ref().is_none_or(|(o, _)| order > *o) {
                    latest = Some((order, name));
                }
            }
        }
        if let Some((_, name)) = latest {
            self.cluster = Some(self.cluster_of(&name)?);
        }
        Ok(())
    }

    /// The cluster named by manifest `name` (its envelope's `cluster`).
    fn cluster_of(&self, name: &str) -> Result<Option<String>, CliError> {
        let shown = self.snapshots_dir.shown(name);
        let (file, _) = self
            .snapshots_dir
            .open_file(name)
            .map_err(|e| failed(&shown, e))?;
        let cap = SeriesLimits::default().max_manifest_bytes;
        let mut bytes = Vec::new();
        file.take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| failed(&shown, e))?;
        let m: store::SnapshotManifest = serde_json::from_slice(&bytes)
            .map_err(|e| CliError::BadInput(format!("{shown}: not a manifest: {e}")))?;
        Ok(m.envelope.cluster)
    }

    fn temp_name(&mut self, name: &str) -> String {
        self.temp_counter += 1;
        let stem: String = name.chars().take(64).collect();
        format!(
            ".{stem}.{}.{}{TEMP_SUFFIX}",
            std::process::id(),
            self.temp_counter
        )
    }

    /// Appends one snapshot (it must have `captured_at_ms`, and be of the series' cluster);
    /// returns the bytes written. It is durable once its batch is committed ([`Self::commit`],
    /// done every `batch` snapshots and by [`Self::finish`]).
    pub fn append(&mut self, snapshot: &Snapshot) -> Result<u64, CliError> {
        let Some(at) = snapshot.captured_at_ms else {
            return Err(CliError::BadInput(
                "a snapshot without $.captured_at_ms cannot join a series".to_string(),
            ));
        };
        lbplan_core::history::check_time("the snapshot", at)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        match &self.cluster {
            Some(cluster) if *cluster != snapshot.cluster => {
                let name = |c: &Option<String>| {
                    c.as_ref()
                        .map_or_else(|| "(none)".to_string(), |c| format!("`{c}`"))
                };
                return Err(CliError::BadInput(format!(
                    "{}: records cluster {}; this snapshot is of cluster {}: a series records \
                     one cluster (record it in a new directory)",
                    self.dir.shown(""),
                    name(cluster),
                    name(&snapshot.cluster)
                )));
            }
            Some(_) => {}
            None => self.cluster = Some(snapshot.cluster.clone()),
        }
        let known = &self.parts;
        let encoded = encode_snapshot(snapshot, self.next_seq, &|id| known.contains(id))
            .map_err(|e| CliError::Failed(format!("encoding a snapshot: {e}")))?;
        let mut written = 0u64;
        let parts_before = self.pending_parts.len();
        for (name, bytes) in &encoded.parts {
            let temp = self.temp_name(name);
            if let Err(e) = write_new(&self.parts_dir, &temp, bytes) {
                self.undo_parts_since(parts_before);
                return Err(e);
            }
            self.pending_parts.push((temp, name.clone()));
            written += bytes.len() as u64;
            if let Some(id) = name.strip_suffix(".json.gz") {
                self.parts.insert(id.to_string());
            }
        }
        let temp = self.temp_name(&encoded.manifest_name);
        if let Err(e) = write_new(&self.snapshots_dir, &temp, &encoded.manifest) {
            self.undo_parts_since(parts_before);
            return Err(e);
        }
        self.pending_manifests
            .push((temp, encoded.manifest_name.clone()));
        written += encoded.manifest.len() as u64;
        self.next_seq += 1;
        if self.pending_manifests.len() >= self.batch {
            self.commit()?;
        }
        Ok(written)
    }

    /// Makes the snapshots appended so far durable: one flush for the batch's files, then their
    /// real names (parts before the manifests that refer to them), then one flush for the names.
    pub fn commit(&mut self) -> Result<(), CliError> {
        if self.pending_manifests.is_empty() && self.pending_parts.is_empty() {
            return Ok(());
        }
        let shown = self.dir.shown("");
        self.dir.sync_all_files().map_err(|e| failed(&shown, e))?;
        for (temp, name) in std::mem::take(&mut self.pending_parts) {
            // Parts are named by their content: one already there is the same bytes.
            self.parts_dir
                .rename(&temp, &name)
                .map_err(|e| failed(&self.parts_dir.shown(&name), e))?;
        }
        self.parts_dir
            .sync()
            .map_err(|e| failed(&self.dir.shown(PARTS_DIR), e))?;
        for (temp, name) in std::mem::take(&mut self.pending_manifests) {
            let shown = self.snapshots_dir.shown(&name);
            match self.snapshots_dir.link_new(&temp, &name) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let _ = self.snapshots_dir.remove(&temp);
                    return Err(CliError::Failed(format!(
                        "{shown}: already exists (another recording into the same series?)"
                    )));
                }
                Err(e) => return Err(failed(&shown, e)),
            }
            let _ = self.snapshots_dir.remove(&temp);
        }
        self.snapshots_dir
            .sync()
            .map_err(|e| failed(&self.dir.shown(SNAPSHOTS_DIR), e))
    }

    /// Removes the parts written for a snapshot whose append failed (a full disk, an I/O error):
    /// the batch's earlier snapshots stay whole and can still be committed, and no part that no
    /// manifest names is left behind to take the space.
    fn undo_parts_since(&mut self, first: usize) {
        for (temp, name) in self
            .pending_parts
            .split_off(first.min(self.pending_parts.len()))
        {
            let _ = self.parts_dir.remove(&temp);
            if let Some(id) = name.strip_suffix(".json.gz") {
                self.parts.remove(id);
            }
        }
    }

    /// Snapshots of the series that are durable under their real names (committed batches).
    pub fn committed(&self) -> u64 {
        self.next_seq
            .saturating_sub(self.pending_manifests.len() as u64)
    }

    /// Forgets the snapshots not yet committed (after a failed write): their temporary files are
    /// removed and their parts no longer taken for stored.
    pub fn abandon(&mut self) {
        self.undo_parts_since(0);
        for (temp, _) in std::mem::take(&mut self.pending_manifests) {
            let _ = self.snapshots_dir.remove(&temp);
        }
    }

    /// Whether `path` still names the directory this writer opened (same device and inode, not a
    /// link): a recording reports a directory moved or replaced under it.
    pub fn still_at(&self, path: &Path) -> bool {
        self.dir.is_at(path)
    }

    /// Commits what is pending; the series is complete and durable.
    pub fn finish(mut self) -> Result<(), CliError> {
        self.commit()
    }
}

/// A manifest's (capture time, seq) and file name.
type OrderedManifest = ((u64, u64), String);

/// Retention (`lbplan watch --keep`): snapshots older than the kept window are deleted safely.
/// Parts are content-addressed and shared between manifests, so a manifest is deleted first (and
/// the deletion made durable), then, in a separate sweep, only the parts no remaining manifest
/// refers to. A crash at any point leaves a readable series: at worst parts nobody refers to,
/// which the next sweep removes.
impl SeriesWriter {
    /// The committed manifests' names with their (time, seq), oldest first.
    fn manifests(&self) -> Result<Vec<OrderedManifest>, CliError> {
        let shown = self.dir.shown(SNAPSHOTS_DIR);
        let mut out: Vec<OrderedManifest> = self
            .snapshots_dir
            .names(MAX_FILES)
            .map_err(|e| failed(&shown, e))?
            .into_iter()
            .filter_map(|n| manifest_order(&n).map(|o| (o, n)))
            .collect();
        out.sort();
        Ok(out)
    }

    /// Snapshots committed in the series.
    pub fn manifest_count(&self) -> Result<u64, CliError> {
        Ok(self.manifests()?.len() as u64)
    }

    /// Deletes the manifests of snapshots captured before `cutoff_ms`, never the latest, after
    /// committing what is pending; returns how many. Their parts stay until [`Self::sweep_parts`].
    pub fn expire_before(&mut self, cutoff_ms: i64) -> Result<usize, CliError> {
        self.commit()?;
        let manifests = self.manifests()?;
        let keep_latest = manifests.len().saturating_sub(1);
        let cutoff = u64::try_from(cutoff_ms).unwrap_or(0);
        let mut deleted = 0;
        for ((time, _), name) in manifests.iter().take(keep_latest) {
            if *time >= cutoff {
                break;
            }
            match self.snapshots_dir.remove(name) {
                Ok(()) => deleted += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(failed(&self.snapshots_dir.shown(name), e)),
            }
        }
        if deleted > 0 {
            // The manifests are gone for good before any part they named is touched.
            self.snapshots_dir
                .sync()
                .map_err(|e| failed(&self.dir.shown(SNAPSHOTS_DIR), e))?;
        }
        Ok(deleted)
    }

    /// Deletes the parts no committed manifest refers to (directly or through its index parts);
    /// returns how many. Nothing is deleted when any manifest or index part cannot be read.
    pub fn sweep_parts(&mut self) -> Result<usize, CliError> {
        self.commit()?;
        let limits = SeriesLimits::default();
        let mut referenced: HashSet<String> = HashSet::new();
        let mut indexes = std::collections::HashMap::new();
        for (_, name) in self.manifests()? {
            let shown = self.snapshots_dir.shown(&name);
            let (file, len) = self
                .snapshots_dir
                .open_file(&name)
                .map_err(|e| failed(&shown, e))?;
            let bytes = read_capped(file, len, limits.max_manifest_bytes).map_err(|e| {
                CliError::Failed(format!("{shown}: cannot be read for retention: {e:?}"))
            })?;
            let parts_dir = &self.parts_dir;
            let refs = store::manifest_part_refs(&name, &bytes, limits, &mut indexes, &mut |f| {
                let name = f
                    .strip_prefix(PARTS_DIR)
                    .unwrap_or(f)
                    .trim_start_matches('/');
                let (file, len) = parts_dir.open_file(name).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::NotFound {
                        ReadError::Missing
                    } else {
                        ReadError::Other(e.to_string())
                    }
                })?;
                read_capped(file, len, limits.max_part_bytes.saturating_add(1 << 20))
            })
            .map_err(|e| CliError::Failed(format!("retention: {e}")))?;
            referenced.extend(refs);
        }
        let shown = self.dir.shown(PARTS_DIR);
        let mut deleted = 0;
        for name in self
            .parts_dir
            .names(MAX_FILES)
            .map_err(|e| failed(&shown, e))?
        {
            let Some(id) = name.strip_suffix(".json.gz") else {
                continue;
            };
            if name.starts_with('.') || referenced.contains(id) {
                continue;
            }
            // Forgotten first: a later snapshot with the same content writes it again.
            self.parts.remove(id);
            match self.parts_dir.remove(&name) {
                Ok(()) => deleted += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(failed(&self.parts_dir.shown(&name), e)),
            }
        }
        if deleted > 0 {
            self.parts_dir.sync().map_err(|e| failed(&shown, e))?;
        }
        Ok(deleted)
    }
}

impl Drop for SeriesWriter {
    /// A writer dropped on an error path still commits the snapshots it completed.
    fn drop(&mut self) {
        let _ = self.commit();
    }
}

/// Writes `bytes` to the new file `name` of `dir` (no flush: the batch's commit flushes).
fn write_new(dir: &PinnedDir, name: &str, bytes: &[u8]) -> Result<(), CliError> {
    let shown = dir.shown(name);
    let mut f = dir.create_new(name).map_err(|e| failed(&shown, e))?;
    f.write_all(bytes).map_err(|e| {
        let _ = dir.remove(name);
        failed(&shown, e)
    })
}

/// A series directory as the reader's source: only the series' own files are listed and opened.
struct DirSource {
    root: PathBuf,
    stored: bool,
}

impl DirSource {
    fn path(&self, rel: &str) -> PathBuf {
        let mut p = self.root.clone();
        p.extend(rel.split('/'));
        p
    }

    /// Regular files directly in `dir` (links, directories and special files are not listed).
    fn list(
        &self,
        dir: &Path,
        out: &mut Vec<String>,
        rel: &str,
        recurse: bool,
    ) -> Result<(), SeriesError> {
        let bad =
            |e: std::io::Error| SeriesError::malformed(dir.display().to_string(), e.to_string());
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(bad)?
            .filter_map(Result::ok)
            .map(|e| (e.file_name(), e.file_type()))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in entries {
            let (Some(name), Ok(kind)) = (name.to_str(), kind) else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let rel_name = if rel.is_empty() {
                name.to_string()
            } else {
                format!("{rel}/{name}")
            };
            if kind.is_dir() && recurse {
                self.list(&dir.join(name), out, &rel_name, true)?;
            } else if kind.is_file() && (!recurse || name.ends_with(".json")) {
                if out.len() >= MAX_FILES {
                    return Err(SeriesError::malformed(
                        self.root.display().to_string(),
                        format!("more than {MAX_FILES} files"),
                    ));
                }
                out.push(rel_name);
            }
        }
        Ok(())
    }
}

impl SeriesSource for DirSource {
    fn is_stored(&self) -> bool {
        self.stored
    }

    fn manifest_names(&mut self) -> Result<Vec<String>, SeriesError> {
        let mut out = Vec::new();
        let dir = self.root.join(SNAPSHOTS_DIR);
        if dir.is_dir() {
            self.list(&dir, &mut out, "", false)?;
        }
        Ok(out)
    }

    fn snapshot_files(&mut self) -> Result<Vec<String>, SeriesError> {
        let mut out = Vec::new();
        let root = self.root.clone();
        self.list(&root, &mut out, "", true)?;
        Ok(out)
    }

    fn read(&mut self, rel: &str, cap: u64) -> Result<Vec<u8>, ReadError> {
        let (file, len) = match open_regular(&self.path(rel)) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ReadError::Missing),
            Err(e) => return Err(ReadError::Other(e.to_string())),
        };
        read_capped(file, len, cap)
    }
}

/// A stored series' snapshots captured at or after `since_ms`, in order: only their manifests
/// are listed, so a week of older snapshots is never decoded (`lbplan watch` restarting primes
/// its live history with the last window).
struct SinceSource {
    inner: DirSource,
    since_ms: u64,
}

impl SeriesSource for SinceSource {
    fn is_stored(&self) -> bool {
        self.inner.is_stored()
    }

    fn manifest_names(&mut self) -> Result<Vec<String>, SeriesError> {
        let since = self.since_ms;
        Ok(self
            .inner
            .manifest_names()?
            .into_iter()
            .filter(|n| manifest_order(n).is_some_and(|(t, _)| t >= since))
            .collect())
    }

    fn snapshot_files(&mut self) -> Result<Vec<String>, SeriesError> {
        self.inner.snapshot_files()
    }

    fn read(&mut self, path: &str, cap: u64) -> Result<Vec<u8>, ReadError> {
        self.inner.read(path, cap)
    }
}

/// Each snapshot of the stored series in `dir` captured at or after `since_ms`, in time order,
/// given to `each`; returns how many. An empty or missing series gives none.
pub fn read_stored_since(
    dir: &Path,
    since_ms: i64,
    each: &mut dyn FnMut(Snapshot),
) -> Result<usize, CliError> {
    if !dir.join(HEADER_FILE).is_file() {
        return Ok(0);
    }
    let shown = dir.display().to_string();
    let source = SinceSource {
        inner: DirSource {
            root: dir.to_path_buf(),
            stored: true,
        },
        since_ms: u64::try_from(since_ms).unwrap_or(0),
    };
    let mut series = match store::StoredSeries::from_source(source, SeriesLimits::default()) {
        Ok(s) => s,
        Err(SeriesError::Empty) => return Ok(0),
        Err(e) => return Err(CliError::Failed(format!("{shown}: {e}"))),
    };
    let mut n = 0;
    while let Some(next) = series.next_snapshot() {
        each(next.map_err(|e| CliError::Failed(format!("{shown}: {e}")))?);
        n += 1;
    }
    Ok(n)
}

/// Opens `path` for reading if it is a regular file (checked on the open handle; a FIFO is opened
/// non-blocking so that it cannot hang the read), with its size.
fn open_regular(path: &Path) -> std::io::Result<(std::fs::File, u64)> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok((file, meta.len()))
}

/// The bytes of `file` (of size `len`), at most `cap`: refused from its size, unread, when that is
/// over the cap (a sparse file claiming gigabytes costs nothing), and never read past `cap + 1`.
fn read_capped(file: std::fs::File, len: u64, cap: u64) -> Result<Vec<u8>, ReadError> {
    if len > cap {
        return Err(ReadError::TooLarge);
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Other(e.to_string()))?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

/// Explains the series at `path`: a directory (stored series or snapshot files), a `.zip` of one,
/// or a single snapshot file; read one snapshot at a time within the reader's limits.
pub fn explain_series(
    path: &Path,
    opts: &ExplainOptions,
    seen: &mut dyn FnMut(usize, usize, &Snapshot),
) -> Result<HistoryReport, CliError> {
    let shown = path.display().to_string();
    let limits = SeriesLimits::default();
    let named = |e: HistoryError| CliError::BadInput(format!("{shown}: {e}"));
    if path.is_dir() {
        let stored = path.join(HEADER_FILE).is_file();
        let mut source = DirSource {
            root: path.to_path_buf(),
            stored,
        };
        return explain_source(&mut source, limits, opts, seen).map_err(named);
    }
    let bad = |e: std::io::Error| CliError::BadInput(format!("{shown}: {e}"));
    let (mut file, len) = open_regular(path).map_err(bad)?;
    let mut magic = [0u8; 2];
    let zip = file.read_exact(&mut magic).is_ok() && magic == *b"PK";
    std::io::Seek::rewind(&mut file).map_err(bad)?;
    let cap = if zip {
        MAX_ZIP_BYTES
    } else {
        MAX_SNAPSHOT_FILE_BYTES
    };
    let bytes = read_capped(file, len, cap).map_err(|e| match e {
        ReadError::TooLarge => CliError::BadInput(format!(
            "{shown}: is {len} bytes, over the cap of {cap} bytes for a {}",
            if zip {
                "zip of a series"
            } else {
                "snapshot file"
            }
        )),
        ReadError::Missing => CliError::BadInput(format!("{shown}: missing")),
        ReadError::Other(why) => CliError::BadInput(format!("{shown}: {why}")),
    })?;
    if zip {
        let mut source = ZipSource::open(&shown, &bytes, MAX_FILES)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        let mut report = explain_source(&mut source, limits, opts, seen).map_err(named)?;
        report.warnings.splice(0..0, source.warnings());
        return Ok(report);
    }
    let files = vec![(shown.clone(), bytes)];
    let mut source = store::FilesSource::new(&files);
    explain_source(&mut source, limits, opts, seen).map_err(named)
}
