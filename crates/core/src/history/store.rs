//! A series as stored: unchanged parts stored once. Each snapshot is a small *manifest* (its
//! envelope, and for each broker report, each namespace layout and each run of one namespace's
//! `BundleData` the id of a *part*); a part is the gzip of its JSON, named by the FNV-1a 64 hash
//! and length of that JSON, so a report or a layout that did not change between snapshots is
//! stored once. Pure encode/decode; the CLI writes the files (each atomically) and reads them.
//!
//! A broker part and a run of `BundleData` are pieces of our snapshot format and are read by its one
//! reader, the importer's (`import::read_broker_entry`, `import::read_bundle_data_entries`: its
//! checks, errors naming the part and the JSON path). The store's own records (header, manifests,
//! the namespace index and the list of runs) are read as the store's serde types.
//!
//! Layout of a stored series (a directory, or a zip of one):
//! `series.json` (`format_version`), `snapshots/<captured_at_ms>-<seq>.json` (manifests),
//! `parts/<id>.json.gz`. A directory or zip of ordinary snapshot files is read too.

use crate::naming::BundleName;
use std::collections::HashMap;

use crate::import::zip_reader::{MemberError, OpenError, ZipReader, refused_warning};
use std::io::{Read, Write};
use std::rc::Rc;

use flate2::Compression;
use flate2::bufread::GzDecoder;
use flate2::write::GzEncoder;
use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::model::fingerprint::fnv1a64;
use crate::model::{BrokerSnapshot, BundleData, NamespaceSnapshot, Snapshot};

use super::series::{Series, SeriesError};

/// Version of the stored series (header and manifests).
pub const SERIES_FORMAT_VERSION: u32 = 1;
/// The header file; its presence marks a stored series.
pub const HEADER_FILE: &str = "series.json";
pub const SNAPSHOTS_DIR: &str = "snapshots";
pub const PARTS_DIR: &str = "parts";
const KIND: &str = "lbplan-series";
/// A part's JSON is at most this long once decompressed (a bound on a hostile gzip).
pub const MAX_PART_BYTES: u64 = 256 << 20;

/// Caps on reading a stored series, so that a hostile one (a gzip bomb part, millions of tiny
/// files, a huge manifest) is refused with a message naming the file instead of exhausting
/// memory. Like the importer's archive budget, one budget covers the whole read: every distinct
/// part's *gunzipped* size counts against `max_total_bytes` (a part reused by later snapshots
/// counts once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesLimits {
    /// Files in the series (header, manifests, parts, anything else).
    pub max_files: usize,
    /// One manifest's bytes.
    pub max_manifest_bytes: u64,
    /// One part's gunzipped bytes.
    pub max_part_bytes: u64,
    /// All distinct parts' gunzipped bytes.
    pub max_total_bytes: u64,
    /// Decoded parts kept for later snapshots, counted by their gunzipped bytes (one budget for
    /// reports, layouts and bundle data): beyond the latest snapshot's own parts (always kept), the
    /// most recently used older ones within this budget, so a report that comes back (a bundle
    /// moved away and back) is not decoded again.
    pub max_cached_bytes: u64,
    /// What one snapshot expands to: its brokers, namespaces and runs of bundle data, each counted
    /// as its part's JSON plus [`ENTRY_COST_BYTES`] however often the part is referenced (a
    /// manifest listing one part 350,000 times is the snapshot file holding 350,000 copies).
    pub max_snapshot_bytes: u64,
    /// One ordinary snapshot file's bytes (a series of snapshot files, not a stored series).
    pub max_file_bytes: u64,
    /// Ordinary snapshot files whose bytes add up to at most this are kept between the pass that
    /// learns their times and the pass that explains them; beyond it each is imported again when
    /// its turn comes (one held at a time).
    pub max_kept_bytes: u64,
}

impl Default for SeriesLimits {
    /// Room for a week of one-minute snapshots of a 100-broker / 10,000-bundle cluster.
    fn default() -> Self {
        Self {
            max_files: 2_000_000,
            max_manifest_bytes: 16 << 20,
            max_part_bytes: MAX_PART_BYTES,
            max_total_bytes: 64 << 30,
            max_cached_bytes: 256 << 20,
            // What one snapshot file may be (the importer's cap per file).
            max_snapshot_bytes: crate::import::DEFAULT_MAX_FILE_BYTES,
            max_file_bytes: crate::import::DEFAULT_MAX_FILE_BYTES,
            max_kept_bytes: 64 << 20,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesHeader {
    pub format_version: u32,
    pub kind: String,
}

/// The header's bytes.
pub fn header_bytes() -> Vec<u8> {
    let h = SeriesHeader {
        format_version: SERIES_FORMAT_VERSION,
        kind: KIND.to_string(),
    };
    serde_json::to_vec_pretty(&h).unwrap_or_default()
}

/// One snapshot of a stored series.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotManifest {
    pub format_version: u32,
    /// The snapshot without brokers, bundle data and namespaces.
    pub envelope: Snapshot,
    /// brokerId → part (`BrokerSnapshot`), in the snapshot's order.
    pub brokers: IndexMap<String, String>,
    /// A part listing parts (`BundleData` by bundle name), each a run of one namespace's bundles,
    /// in order: the list itself is stored once while no namespace's data changes.
    pub bundle_data: String,
    /// A part mapping namespace → part (`NamespaceSnapshot`), stored once while no layout changes.
    pub namespaces: String,
}

/// A snapshot ready to store: its manifest and every part it refers to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EncodedSnapshot {
    /// File name of the manifest under [`SNAPSHOTS_DIR`] (orders by time, then `seq`).
    pub manifest_name: String,
    pub manifest: Vec<u8>,
    /// (file name under [`PARTS_DIR`], gzip bytes); a part already stored need not be rewritten.
    pub parts: Vec<(String, Vec<u8>)>,
}

fn part_id(json: &[u8]) -> String {
    format!("{:016x}-{}", fnv1a64(json), json.len())
}

/// The file name of part `id`.
pub fn part_file(id: &str) -> String {
    format!("{id}.json.gz")
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    // Writing to a Vec does not fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

/// Splits `snapshot` into its manifest and parts; `seq` orders snapshots of the same time.
/// `known(id)` says whether a part is already stored (its bytes are then not produced).
pub fn encode_snapshot(
    snapshot: &Snapshot,
    seq: u64,
    known: &dyn Fn(&str) -> bool,
) -> Result<EncodedSnapshot, serde_json::Error> {
    let mut parts: Vec<(String, Vec<u8>)> = Vec::new();
    let mut add = |json: Vec<u8>| -> String {
        let id = part_id(&json);
        if !known(&id) && !parts.iter().any(|(n, _)| *n == part_file(&id)) {
            parts.push((part_file(&id), gzip(&json)));
        }
        id
    };
    let mut manifest = SnapshotManifest {
        format_version: SERIES_FORMAT_VERSION,
        envelope: Snapshot {
            format_version: snapshot.format_version,
            cluster: snapshot.cluster.clone(),
            captured_at_ms: snapshot.captured_at_ms,
            leader_broker: snapshot.leader_broker.clone(),
            broker_conf: snapshot.broker_conf.clone(),
            failure_domains: snapshot.failure_domains.clone(),
            namespace_isolation_policies: snapshot.namespace_isolation_policies.clone(),
            recently_unloaded_bundles: snapshot.recently_unloaded_bundles.clone(),
            ..Snapshot::default()
        },
        ..SnapshotManifest::default()
    };
    for (id, b) in &snapshot.brokers {
        let part = add(serde_json::to_vec(b)?);
        manifest.brokers.insert(id.clone(), part);
    }
    let mut namespaces: IndexMap<&str, String> = IndexMap::new();
    for (ns, n) in &snapshot.namespaces {
        let part = add(serde_json::to_vec(n)?);
        namespaces.insert(ns.as_str(), part);
    }
    manifest.namespaces = add(serde_json::to_vec(&namespaces)?);
    let mut runs: Vec<String> = Vec::new();
    let mut run: IndexMap<&str, &BundleData> = IndexMap::new();
    let mut run_ns = "";
    for (name, d) in &snapshot.bundle_data {
        let ns = BundleName::namespace_of(name);
        if ns != run_ns && !run.is_empty() {
            runs.push(add(serde_json::to_vec(&run)?));
            run.clear();
        }
        run_ns = ns;
        run.insert(name.as_str(), d);
    }
    if !run.is_empty() {
        runs.push(add(serde_json::to_vec(&run)?));
    }
    manifest.bundle_data = add(serde_json::to_vec(&runs)?);
    Ok(EncodedSnapshot {
        manifest_name: format!(
            "{:015}-{seq:06}.json",
            snapshot.captured_at_ms.unwrap_or(0).max(0)
        ),
        manifest: serde_json::to_vec(&manifest)?,
        parts,
    })
}

/// Files of a series by relative path (`series.json`, `snapshots/…`, `parts/…`, or ordinary
/// snapshot files), as a directory or a zip gives them.
pub type Files = Vec<(String, Vec<u8>)>;

/// Whether `files` hold a stored series (a `series.json` at their root).
pub fn is_stored_series(files: &Files) -> bool {
    files.iter().any(|(p, _)| p == HEADER_FILE)
}

/// Why a [`SeriesSource`] did not hand over a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// No such file in the series.
    Missing,
    /// Larger than the cap asked for: refused from its size when known, else after reading one
    /// byte past the cap (a zip member's header or a file's size may lie, the bytes do not).
    TooLarge,
    /// Anything else (an I/O error, a corrupt zip member), in words.
    Other(String),
}

/// Where a series' files come from: a directory, a zip, or files already in memory. A reader asks
/// for the names first and for each file's bytes only when it needs them, with a cap, so that it
/// holds one snapshot's files at a time and never reads a file that is not part of the series.
pub trait SeriesSource {
    /// Whether the source is a stored series (a `series.json` at its root).
    fn is_stored(&self) -> bool;
    /// The file names directly under `snapshots/` (a stored series' manifests), unread.
    fn manifest_names(&mut self) -> Result<Vec<String>, SeriesError>;
    /// The paths of the ordinary snapshot files (every `.json`), unread.
    fn snapshot_files(&mut self) -> Result<Vec<String>, SeriesError>;
    /// The bytes of `path` (relative, `/`-separated), at most `cap` of them.
    fn read(&mut self, path: &str, cap: u64) -> Result<Vec<u8>, ReadError>;
}

impl<S: SeriesSource + ?Sized> SeriesSource for &mut S {
    fn is_stored(&self) -> bool {
        (**self).is_stored()
    }
    fn manifest_names(&mut self) -> Result<Vec<String>, SeriesError> {
        (**self).manifest_names()
    }
    fn snapshot_files(&mut self) -> Result<Vec<String>, SeriesError> {
        (**self).snapshot_files()
    }
    fn read(&mut self, path: &str, cap: u64) -> Result<Vec<u8>, ReadError> {
        (**self).read(path, cap)
    }
}

/// Files already in memory (the dashboard's upload, a test) as a [`SeriesSource`].
pub struct FilesSource<'a> {
    files: &'a Files,
    by_path: HashMap<&'a str, &'a [u8]>,
}

impl<'a> FilesSource<'a> {
    pub fn new(files: &'a Files) -> Self {
        let mut by_path = HashMap::with_capacity(files.len());
        for (p, b) in files {
            by_path.entry(p.as_str()).or_insert(b.as_slice());
        }
        Self { files, by_path }
    }
}

impl SeriesSource for FilesSource<'_> {
    fn is_stored(&self) -> bool {
        self.by_path.contains_key(HEADER_FILE)
    }

    fn manifest_names(&mut self) -> Result<Vec<String>, SeriesError> {
        let prefix = format!("{SNAPSHOTS_DIR}/");
        Ok(self
            .files
            .iter()
            .filter_map(|(p, _)| p.strip_prefix(&prefix))
            .filter(|n| !n.contains('/'))
            .map(str::to_string)
            .collect())
    }

    fn snapshot_files(&mut self) -> Result<Vec<String>, SeriesError> {
        Ok(self
            .files
            .iter()
            .filter(|(p, _)| p.ends_with(".json"))
            .map(|(p, _)| p.clone())
            .collect())
    }

    fn read(&mut self, path: &str, cap: u64) -> Result<Vec<u8>, ReadError> {
        let bytes = self.by_path.get(path).ok_or(ReadError::Missing)?;
        if bytes.len() as u64 > cap {
            return Err(ReadError::TooLarge);
        }
        Ok(bytes.to_vec())
    }
}

/// Reads snapshots of a stored series one at a time, in time order: a manifest is read and
/// parsed only when its snapshot is next (the order comes from the manifests' names,
/// `<captured_at_ms>-<seq>.json`, checked against each envelope). Decoded parts are kept by id
/// (bounded by `SeriesLimits::max_cached_bytes`), so a snapshot costs the gunzip and parse of the
/// parts it changed only.
pub struct StoredSeries<S: SeriesSource> {
    source: S,
    limits: SeriesLimits,
    /// What is left of `limits.max_total_bytes`.
    total_left: u64,
    /// Parts already counted against the budget.
    counted: std::collections::HashSet<String>,
    /// Manifest file names in time order (with the time and sequence their names give).
    names: Vec<(u64, u64, String)>,
    next: usize,
    /// The manifest of the snapshot read last.
    previous: Option<Rc<SnapshotManifest>>,
    brokers: PartCache<BrokerSnapshot>,
    bundles: PartCache<IndexMap<String, BundleData>>,
    namespaces: PartCache<NamespaceSnapshot>,
    /// The latest namespace index and `BundleData` run list, by part id (usually unchanged).
    index: Option<(String, IndexMap<String, String>)>,
    runs: Option<(String, Vec<String>)>,
    /// Manifests of the snapshots handed out and not yet given back, oldest first (a few at most:
    /// a caller that never gives back does not make this grow).
    handed_out: std::collections::VecDeque<Rc<SnapshotManifest>>,
    /// A snapshot given back by [`Self::recycle`]: the next one takes its unchanged values.
    spare: Option<Spare>,
}

/// Snapshots handed out and remembered for [`StoredSeries::recycle`].
const MAX_HANDED_OUT: usize = 4;

/// What one reference of a manifest (a broker, a namespace, a run of bundle data) costs in memory
/// beyond its part's JSON: its map entry, key and struct.
pub const ENTRY_COST_BYTES: u64 = 256;

/// An envelope without brokers, bundle data or namespaces of its own: what parts assemble is the
/// whole of those maps, so a spare snapshot's can stand in for them.
fn bare_envelope(envelope: &Snapshot) -> bool {
    envelope.brokers.is_empty() && envelope.bundle_data.is_empty() && envelope.namespaces.is_empty()
}

/// A snapshot given back, with the manifest it was assembled from.
struct Spare {
    snapshot: Snapshot,
    manifest: Rc<SnapshotManifest>,
}

/// Decoded parts by id, bounded: the parts used by the latest snapshot, then the most recently
/// used older ones while their gunzipped bytes fit the budget.
struct PartCache<T> {
    /// id → (value, gunzipped bytes, the last snapshot that used it).
    entries: HashMap<String, (T, u64, usize)>,
    /// Gunzipped bytes of the entries.
    bytes: u64,
}

impl<T> Default for PartCache<T> {
    fn default() -> Self {
        Self {
            entries: HashMap::new(),
            bytes: 0,
        }
    }
}

impl<T: Clone> PartCache<T> {
    /// The cached value of `id`, marked as used by snapshot `seq`.
    fn get(&mut self, id: &str, seq: usize) -> Option<T> {
        let (value, _, used) = self.entries.get_mut(id)?;
        *used = seq;
        Some(value.clone())
    }

    /// Marks `id` as used by snapshot `seq` (its value came from elsewhere).
    fn touch(&mut self, id: &str, seq: usize) {
        if let Some((_, _, used)) = self.entries.get_mut(id) {
            *used = seq;
        }
    }

    fn insert(&mut self, id: &str, value: T, bytes: u64, seq: usize) {
        if let Some((_, old, _)) = self.entries.insert(id.to_string(), (value, bytes, seq)) {
            self.bytes = self.bytes.saturating_sub(old);
        }
        self.bytes = self.bytes.saturating_add(bytes);
    }

    /// Drops the least recently used parts not used by snapshot `seq` until the rest fit `budget`
    /// (the latest snapshot's own parts are kept whatever their size).
    fn evict(&mut self, seq: usize, budget: u64) {
        if self.bytes <= budget {
            return;
        }
        let mut older: Vec<(usize, String)> = self
            .entries
            .iter()
            .filter(|(_, (_, _, used))| *used != seq)
            .map(|(id, (_, _, used))| (*used, id.clone()))
            .collect();
        older.sort_unstable();
        for (_, id) in older {
            if self.bytes <= budget {
                break;
            }
            if let Some((_, bytes, _)) = self.entries.remove(&id) {
                self.bytes = self.bytes.saturating_sub(bytes);
            }
        }
    }
}

fn check_header(bytes: &[u8]) -> Result<(), SeriesError> {
    let h: SeriesHeader = serde_json::from_slice(bytes)
        .map_err(|e| SeriesError::malformed(HEADER_FILE, format!("not a series header: {e}")))?;
    if h.kind != KIND {
        return Err(SeriesError::malformed(
            HEADER_FILE,
            format!("$.kind is `{}`, expected `{KIND}`", h.kind),
        ));
    }
    if h.format_version != SERIES_FORMAT_VERSION {
        return Err(SeriesError::malformed(
            HEADER_FILE,
            format!(
                "$.format_version {} is not supported (this build reads {SERIES_FORMAT_VERSION})",
                h.format_version
            ),
        ));
    }
    Ok(())
}

/// The header's cap: it is a few dozen bytes.
const MAX_HEADER_BYTES: u64 = 1 << 20;

/// `<captured_at_ms>-<seq>.json` → (time, seq); `None` for any other name (not a manifest).
pub fn manifest_order(name: &str) -> Option<(u64, u64)> {
    let stem = name.strip_suffix(".json")?;
    let (time, seq) = stem.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(time) || !digits(seq) {
        return None;
    }
    Some((time.parse().ok()?, seq.parse().ok()?))
}

/// The length a part's id names (`<hash>-<length>`), checked against its JSON when it is read.
fn named_len(id: &str) -> Option<u64> {
    id.rsplit_once('-')
        .and_then(|(hash, len)| (hash.len() == 16).then_some(len))
        .and_then(|len| len.parse::<u64>().ok())
}

/// One snapshot's size as it is assembled: every reference counts its part's JSON and
/// [`ENTRY_COST_BYTES`], whether or not the part was read before, so that a manifest listing one
/// part many times is held to the same cap as a snapshot file holding that many copies.
struct Expansion<'m> {
    manifest: &'m str,
    bytes: u64,
    cap: u64,
}

impl Expansion<'_> {
    fn add(&mut self, key: &str, part: &str) -> Result<(), SeriesError> {
        let len = named_len(part).ok_or_else(|| {
            SeriesError::malformed(
                self.manifest,
                format!("part id `{part}` is not `<hash>-<length>`"),
            )
        })?;
        self.bytes = self
            .bytes
            .saturating_add(len)
            .saturating_add(key.len() as u64)
            .saturating_add(ENTRY_COST_BYTES);
        if self.bytes > self.cap {
            return Err(SeriesError::malformed(
                self.manifest,
                format!(
                    "the snapshot expands to more than {} bytes (its brokers, namespaces and \
                     bundle data, each entry counted as its part's JSON plus {ENTRY_COST_BYTES} \
                     bytes: the cap on one snapshot)",
                    self.cap
                ),
            ));
        }
        Ok(())
    }
}

impl<'a> StoredSeries<FilesSource<'a>> {
    pub fn open(files: &'a Files) -> Result<Self, SeriesError> {
        Self::open_with(files, SeriesLimits::default())
    }

    /// [`Self::open`] within `limits`.
    pub fn open_with(files: &'a Files, limits: SeriesLimits) -> Result<Self, SeriesError> {
        if files.len() > limits.max_files {
            return Err(SeriesError::malformed(
                HEADER_FILE,
                format!(
                    "the series has {} files, more than {} (cap on the number of files)",
                    files.len(),
                    limits.max_files
                ),
            ));
        }
        StoredSeries::from_source(FilesSource::new(files), limits)
    }
}

impl<S: SeriesSource> StoredSeries<S> {
    /// Opens the stored series of `source`: its header is checked and its manifests listed (none
    /// is read yet).
    pub fn from_source(mut source: S, limits: SeriesLimits) -> Result<Self, SeriesError> {
        let header = source
            .read(HEADER_FILE, MAX_HEADER_BYTES)
            .map_err(|e| match e {
                ReadError::Missing => SeriesError::malformed(HEADER_FILE, "missing"),
                ReadError::TooLarge => SeriesError::malformed(
                    HEADER_FILE,
                    format!("more than {MAX_HEADER_BYTES} bytes: not a series header"),
                ),
                ReadError::Other(why) => SeriesError::malformed(HEADER_FILE, why),
            })?;
        check_header(&header)?;
        let listed = source.manifest_names()?;
        if listed.len() > limits.max_files {
            return Err(SeriesError::malformed(
                SNAPSHOTS_DIR,
                format!(
                    "{} manifests, more than {} (cap on the number of files)",
                    listed.len(),
                    limits.max_files
                ),
            ));
        }
        // Anything else in `snapshots/` (an editor's backup, a temporary file) is not read.
        let mut names: Vec<(u64, u64, String)> = listed
            .into_iter()
            .filter_map(|n| manifest_order(&n).map(|(t, s)| (t, s, n)))
            .collect();
        if names.is_empty() {
            return Err(SeriesError::Empty);
        }
        names.sort_unstable();
        Ok(Self {
            source,
            limits,
            total_left: limits.max_total_bytes.saturating_sub(header.len() as u64),
            counted: std::collections::HashSet::new(),
            names,
            next: 0,
            previous: None,
            brokers: PartCache::default(),
            bundles: PartCache::default(),
            namespaces: PartCache::default(),
            index: None,
            runs: None,
            handed_out: std::collections::VecDeque::new(),
            spare: None,
        })
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// `bytes` more read, against the one budget; `file` is named when it is exhausted.
    fn spend(&mut self, file: &str, bytes: u64) -> Result<(), SeriesError> {
        self.total_left = self.total_left.checked_sub(bytes).ok_or_else(|| {
            SeriesError::malformed(
                file,
                format!(
                    "the series' files decompress to more than {} bytes (cap on the total size \
                     read, manifests and parts)",
                    self.limits.max_total_bytes
                ),
            )
        })?;
        Ok(())
    }

    /// The manifest `name` (under `snapshots/`), read and checked: every read counts against the
    /// budget (a manifest hard-linked under many names counts each time).
    fn manifest(&mut self, name: &str, time: u64) -> Result<SnapshotManifest, SeriesError> {
        let path = format!("{SNAPSHOTS_DIR}/{name}");
        let cap = self.limits.max_manifest_bytes.min(self.total_left);
        let bytes = self.source.read(&path, cap).map_err(|e| match e {
            ReadError::Missing => SeriesError::malformed(path.clone(), "missing"),
            ReadError::TooLarge if cap == self.limits.max_manifest_bytes => SeriesError::malformed(
                path.clone(),
                format!(
                    "more than a manifest may have ({} bytes)",
                    self.limits.max_manifest_bytes
                ),
            ),
            ReadError::TooLarge => SeriesError::malformed(
                path.clone(),
                format!(
                    "the series' files decompress to more than {} bytes (cap on the total size \
                     read, manifests and parts)",
                    self.limits.max_total_bytes
                ),
            ),
            ReadError::Other(why) => SeriesError::malformed(path.clone(), why),
        })?;
        self.spend(&path, bytes.len() as u64)?;
        let m: SnapshotManifest =
            serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_slice(&bytes))
                .map_err(|e| {
                    SeriesError::malformed(path.clone(), format!("{}: {}", e.path(), e.inner()))
                })?;
        if m.format_version != SERIES_FORMAT_VERSION {
            return Err(SeriesError::malformed(
                path,
                format!("$.format_version {} is not supported", m.format_version),
            ));
        }
        let at = m
            .envelope
            .captured_at_ms
            .ok_or_else(|| SeriesError::NoTime { name: path.clone() })?;
        super::series::check_time(&path, at)?;
        if u64::try_from(at).ok() != Some(time) {
            return Err(SeriesError::malformed(
                path,
                format!(
                    "$.envelope.captured_at_ms is {at}, but the file's name says {time} (a \
                     manifest is named by its capture time)"
                ),
            ));
        }
        Ok(m)
    }

    /// Part `id` decoded by `decode` (from the part's file name and JSON), with its gunzipped size.
    fn part<T>(
        &mut self,
        manifest: &str,
        id: &str,
        decode: fn(&str, &[u8]) -> Result<T, String>,
    ) -> Result<(T, u64), SeriesError> {
        let file = format!("{PARTS_DIR}/{}", part_file(id));
        // Never more than the part cap nor what is left of the budget is decompressed.
        let fresh = !self.counted.contains(id);
        let cap = if fresh {
            self.limits.max_part_bytes.min(self.total_left)
        } else {
            self.limits.max_part_bytes
        };
        // A gzip is not larger than what it holds by more than its framing.
        let gz = self
            .source
            .read(&file, self.limits.max_part_bytes.saturating_add(1 << 20))
            .map_err(|e| match e {
                ReadError::Missing => {
                    SeriesError::malformed(manifest, format!("refers to {file}, which is missing"))
                }
                ReadError::TooLarge => SeriesError::malformed(
                    file.clone(),
                    format!(
                        "larger than a part may be ({} bytes)",
                        self.limits.max_part_bytes
                    ),
                ),
                ReadError::Other(why) => SeriesError::malformed(file.clone(), why),
            })?;
        // The id names the JSON's length: room for it at once. The name is not trusted further
        // than the cap and what deflate can expand the part's bytes to (≤ 1032×).
        let named = named_len(id)
            .unwrap_or(0)
            .min(cap)
            .min((gz.len() as u64).saturating_mul(1032));
        let mut json = Vec::with_capacity(usize::try_from(named).unwrap_or(0));
        GzDecoder::new(gz.as_slice())
            .take(cap.saturating_add(1))
            .read_to_end(&mut json)
            .map_err(|e| SeriesError::malformed(file.clone(), format!("not valid gzip: {e}")))?;
        drop(gz);
        let len = json.len() as u64;
        if len > self.limits.max_part_bytes {
            return Err(SeriesError::malformed(
                file,
                format!(
                    "decompresses to more than {} bytes (cap on one part)",
                    self.limits.max_part_bytes
                ),
            ));
        }
        if fresh {
            self.spend(&file, len)?;
            self.counted.insert(id.to_string());
        }
        if part_id(&json) != id {
            return Err(SeriesError::malformed(
                file,
                "content does not match its name (hash and length)",
            ));
        }
        decode(&file, &json)
            .map(|value| (value, len))
            .map_err(|why| SeriesError::malformed(file, why))
    }

    /// The next snapshot in time order, `None` after the last.
    pub fn next_snapshot(&mut self) -> Option<Result<Snapshot, SeriesError>> {
        self.next_snapshot_with_changes()
            .map(|next| next.map(|(s, _)| s))
    }

    /// [`Self::next_snapshot`] with the brokers whose part changed since the snapshot handed out
    /// before it (their reports may differ; every other broker's is the same value): `None` for
    /// the first snapshot, or when the broker list (names or order) changed.
    #[allow(clippy::type_complexity)]
    pub fn next_snapshot_with_changes(
        &mut self,
    ) -> Option<Result<(Snapshot, Option<Vec<String>>), SeriesError>> {
        let at = self.next;
        let (time, _, name) = self.names.get(at)?.clone();
        Some(self.read_next(at, &name, time))
    }

    fn read_next(
        &mut self,
        at: usize,
        name: &str,
        time: u64,
    ) -> Result<(Snapshot, Option<Vec<String>>), SeriesError> {
        // A failed snapshot ends the series: nothing after it is read.
        self.next = self.names.len();
        let m = Rc::new(self.manifest(name, time)?);
        let changed = self.previous.as_ref().and_then(|before| {
            let comparable = bare_envelope(&before.envelope)
                && bare_envelope(&m.envelope)
                && before.brokers.keys().eq(m.brokers.keys());
            comparable.then(|| {
                m.brokers
                    .iter()
                    .zip(before.brokers.values())
                    .filter(|((_, part), part_before)| part != part_before)
                    .map(|((id, _), _)| id.clone())
                    .collect()
            })
        });
        let s = self.assemble(&format!("{SNAPSHOTS_DIR}/{name}"), &m, at)?;
        self.next = at + 1;
        if self.handed_out.len() >= MAX_HANDED_OUT {
            self.handed_out.pop_front();
        }
        self.handed_out.push_back(Rc::clone(&m));
        self.previous = Some(m);
        Ok((s, changed))
    }

    /// Gives back the oldest snapshot handed out and not given back yet, unmodified, once the
    /// caller is done with it: the next snapshot moves its unchanged values (a broker report, the
    /// namespaces, the `BundleData` map whose part id is the same) instead of copying them from the
    /// decoded parts. One snapshot is kept at a time (a second replaces the first), outside
    /// `SeriesLimits::max_cached_bytes`: it is the snapshot the caller held.
    pub fn recycle(&mut self, snapshot: Snapshot) {
        let Some(m) = self.handed_out.pop_front() else {
            return;
        };
        // A snapshot that is not the one assembled from `m` is dropped, not reused; so is one
        // whose envelope carried values of its own (the series' encoder writes none).
        if !snapshot.brokers.keys().eq(m.brokers.keys())
            || snapshot.captured_at_ms != m.envelope.captured_at_ms
            || !bare_envelope(&m.envelope)
        {
            return;
        }
        self.spare = Some(Spare {
            snapshot,
            manifest: m,
        });
    }

    fn assemble(
        &mut self,
        name: &str,
        m: &SnapshotManifest,
        seq: usize,
    ) -> Result<Snapshot, SeriesError> {
        let mut size = Expansion {
            manifest: name,
            bytes: 0,
            cap: self.limits.max_snapshot_bytes,
        };
        // What the manifest lists is counted before anything is built from it.
        for (id, part) in &m.brokers {
            size.add(id, part)?;
        }
        let mut s = m.envelope.clone();
        let mut spare = self.spare.take().filter(|_| bare_envelope(&m.envelope));
        for (id, part) in &m.brokers {
            // Same part id, same value: moved from the spare snapshot.
            let reused = spare
                .as_mut()
                .filter(|sp| sp.manifest.brokers.get(id) == Some(part))
                .and_then(|sp| sp.snapshot.brokers.swap_remove(id));
            let b = match reused {
                Some(b) => {
                    self.brokers.touch(part, seq);
                    b
                }
                None => match self.brokers.get(part, seq) {
                    Some(b) => b,
                    None => {
                        let (b, bytes) = self.part(name, part, broker_part)?;
                        self.brokers.insert(part, b.clone(), bytes, seq);
                        b
                    }
                },
            };
            s.brokers.insert(id.clone(), b);
        }
        let index = match self.index.take() {
            Some((id, index)) if id == m.namespaces => index,
            _ => {
                self.part(name, &m.namespaces, serde_part::<IndexMap<String, String>>)?
                    .0
            }
        };
        for (ns, part) in &index {
            size.add(ns, part)?;
        }
        let spare_namespaces = spare
            .as_mut()
            .filter(|sp| sp.manifest.namespaces == m.namespaces)
            .map(|sp| std::mem::take(&mut sp.snapshot.namespaces));
        match spare_namespaces {
            Some(namespaces) => {
                for part in index.values() {
                    self.namespaces.touch(part, seq);
                }
                s.namespaces = namespaces;
            }
            None => {
                for (ns, part) in &index {
                    let n = match self.namespaces.get(part, seq) {
                        Some(n) => n,
                        None => {
                            let (n, bytes) =
                                self.part(name, part, serde_part::<NamespaceSnapshot>)?;
                            self.namespaces.insert(part, n.clone(), bytes, seq);
                            n
                        }
                    };
                    s.namespaces.insert(ns.clone(), n);
                }
            }
        }
        self.index = Some((m.namespaces.clone(), index));
        let runs = match self.runs.take() {
            Some((id, runs)) if id == m.bundle_data => runs,
            _ => {
                self.part(name, &m.bundle_data, serde_part::<Vec<String>>)?
                    .0
            }
        };
        for part in &runs {
            size.add("", part)?;
        }
        let spare_bundle_data = spare
            .as_mut()
            .filter(|sp| sp.manifest.bundle_data == m.bundle_data)
            .map(|sp| std::mem::take(&mut sp.snapshot.bundle_data));
        match spare_bundle_data {
            Some(bundle_data) => {
                for part in &runs {
                    self.bundles.touch(part, seq);
                }
                s.bundle_data = bundle_data;
            }
            None => {
                for part in &runs {
                    match self.bundles.entries.get_mut(part.as_str()) {
                        Some((run, _, used)) => {
                            *used = seq;
                            s.bundle_data
                                .extend(run.iter().map(|(k, v)| (k.clone(), *v)));
                        }
                        None => {
                            let (run, bytes) = self.part(name, part, bundle_data_part)?;
                            s.bundle_data
                                .extend(run.iter().map(|(k, v)| (k.clone(), *v)));
                            self.bundles.insert(part, run, bytes, seq);
                        }
                    }
                }
            }
        }
        self.runs = Some((m.bundle_data.clone(), runs));
        // One budget over the three kinds.
        let budget = self.limits.max_cached_bytes;
        let others = self.namespaces.bytes.saturating_add(self.bundles.bytes);
        self.brokers.evict(seq, budget.saturating_sub(others));
        let others = self.brokers.bytes.saturating_add(self.namespaces.bytes);
        self.bundles.evict(seq, budget.saturating_sub(others));
        let others = self.brokers.bytes.saturating_add(self.bundles.bytes);
        self.namespaces.evict(seq, budget.saturating_sub(others));
        Ok(s)
    }
}

/// A part the store itself defines (the namespace index, the list of runs), or a namespace entry.
fn serde_part<T: DeserializeOwned>(_file: &str, json: &[u8]) -> Result<T, String> {
    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_slice(json))
        .map_err(|e| format!("{}: {}", e.path(), e.inner()))
}

/// A broker entry, by the snapshot format's one reader (the importer's checks).
fn broker_part(file: &str, json: &[u8]) -> Result<BrokerSnapshot, String> {
    let text = std::str::from_utf8(json).map_err(|e| format!("not UTF-8 text: {e}"))?;
    crate::import::read_broker_entry(file, text).map_err(import_why)
}

/// A run of `bundle_data` entries, by the snapshot format's one reader.
fn bundle_data_part(file: &str, json: &[u8]) -> Result<IndexMap<String, BundleData>, String> {
    let text = std::str::from_utf8(json).map_err(|e| format!("not UTF-8 text: {e}"))?;
    crate::import::read_bundle_data_entries(file, text).map_err(import_why)
}

/// The importer's message without the file name, which `SeriesError::Malformed` adds.
fn import_why(e: crate::import::ImportError) -> String {
    match e {
        crate::import::ImportError::At { at, message, .. } => format!("{at}: {message}"),
        other => other.to_string(),
    }
}

/// Ordinary snapshot files of a series, read one at a time in time order. Their times are
/// learnt by importing each file once; while the files read so far are small
/// (`SeriesLimits::max_kept_bytes` in all) their snapshots are kept for the second pass, beyond
/// that each is imported again when its turn comes, so that one snapshot is held at a time.
pub struct SnapshotFiles<'s, S: SeriesSource + ?Sized> {
    source: &'s mut S,
    /// (time, path, the snapshot when kept), in time order.
    order: std::vec::IntoIter<(i64, String, Option<Snapshot>)>,
    len: usize,
    total_left: u64,
    limits: SeriesLimits,
}

impl<'s, S: SeriesSource + ?Sized> SnapshotFiles<'s, S> {
    pub fn open(source: &'s mut S, limits: SeriesLimits) -> Result<Self, SeriesError> {
        let paths = source.snapshot_files()?;
        if paths.len() > limits.max_files {
            return Err(SeriesError::malformed(
                paths.first().map_or("", String::as_str),
                format!(
                    "{} snapshot files, more than {} (cap on the number of files)",
                    paths.len(),
                    limits.max_files
                ),
            ));
        }
        let mut total_left = limits.max_total_bytes;
        let mut kept_bytes = 0u64;
        let mut order = Vec::with_capacity(paths.len());
        for path in paths {
            let (snapshot, len) = read_one(source, &path, &limits, &mut total_left)?;
            let at = snapshot
                .captured_at_ms
                .ok_or_else(|| SeriesError::NoTime { name: path.clone() })?;
            super::series::check_time(&path, at)?;
            kept_bytes = kept_bytes.saturating_add(len);
            let keep = kept_bytes <= limits.max_kept_bytes;
            if !keep {
                for (_, _, kept) in order.iter_mut() {
                    *kept = None;
                }
            }
            order.push((at, path, keep.then_some(snapshot)));
        }
        if order.is_empty() {
            return Err(SeriesError::Empty);
        }
        // Equal times keep the order given.
        order.sort_by_key(|(at, _, _)| *at);
        Ok(Self {
            len: order.len(),
            order: order.into_iter(),
            source,
            total_left,
            limits,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The next snapshot in time order, `None` after the last.
    pub fn next_snapshot(&mut self) -> Option<Result<Snapshot, SeriesError>> {
        let (at, path, kept) = self.order.next()?;
        if let Some(s) = kept {
            return Some(Ok(s));
        }
        Some(
            read_one(self.source, &path, &self.limits, &mut self.total_left).and_then(|(s, _)| {
                if s.captured_at_ms == Some(at) {
                    Ok(s)
                } else {
                    Err(SeriesError::malformed(
                        path,
                        "changed while the series was read",
                    ))
                }
            }),
        )
    }
}

/// One ordinary snapshot file read (within the per-file cap and what is left of the budget) and
/// imported; its bytes' length.
fn read_one<S: SeriesSource + ?Sized>(
    source: &mut S,
    path: &str,
    limits: &SeriesLimits,
    total_left: &mut u64,
) -> Result<(Snapshot, u64), SeriesError> {
    let cap = limits.max_file_bytes.min(*total_left);
    let bytes = source.read(path, cap).map_err(|e| match e {
        ReadError::Missing => SeriesError::malformed(path, "missing"),
        ReadError::TooLarge if cap == limits.max_file_bytes => SeriesError::malformed(
            path,
            format!(
                "larger than the cap of {} bytes per file",
                limits.max_file_bytes
            ),
        ),
        ReadError::TooLarge => SeriesError::malformed(
            path,
            format!(
                "the series' files add up to more than {} bytes (cap on the total size read)",
                limits.max_total_bytes
            ),
        ),
        ReadError::Other(why) => SeriesError::malformed(path, why),
    })?;
    let len = bytes.len() as u64;
    *total_left = total_left.saturating_sub(len);
    Ok((read_snapshot_file(path, &bytes)?, len))
}

/// Every snapshot of `files` in time order: a stored series, or ordinary snapshot files (each
/// `.json` file imported; its `captured_at_ms` places it).
pub fn decode_all(files: &Files) -> Result<Series, SeriesError> {
    let mut out = Vec::new();
    if is_stored_series(files) {
        let mut stored = StoredSeries::open(files)?;
        while let Some(s) = stored.next_snapshot() {
            out.push(s?);
        }
    } else {
        let mut source = FilesSource::new(files);
        let mut plain = SnapshotFiles::open(&mut source, SeriesLimits::default())?;
        while let Some(s) = plain.next_snapshot() {
            out.push(s?);
        }
    }
    Ok(Series { snapshots: out })
}

/// Ordinary snapshot files of `files` (every `.json`), in the order given.
pub fn snapshot_files(files: &Files) -> impl Iterator<Item = &(String, Vec<u8>)> {
    files.iter().filter(|(p, _)| p.ends_with(".json"))
}

/// One ordinary snapshot file, through the importer.
pub fn read_snapshot_file(path: &str, bytes: &[u8]) -> Result<Snapshot, SeriesError> {
    let input = crate::import::ImportInput::given(path, bytes);
    crate::import::import(&[input])
        .map(|i| i.snapshot)
        .map_err(|e| SeriesError::malformed(path, e.to_string()))
}

/// A zip of a series (a stored series, possibly under one top directory, or snapshot files) read
/// member by member on demand through the importer's zip reader (`import::zip_reader`): its
/// listing is checked when opened (member count, a name given twice and a second `series.json`
/// refused; a name that is absolute or has a `..` component refused and counted, as the importer
/// does), and each member is inflated only when asked for, never past the cap asked (its header's
/// size is checked first and the inflation stops one byte past the cap, whatever the header said).
pub struct ZipSource<'a> {
    file: String,
    zip: ZipReader<'a>,
    /// Member path (top directory of a zipped series folder removed) → index.
    index: HashMap<String, usize>,
    /// Paths in the zip's order.
    paths: Vec<String>,
}

impl<'a> ZipSource<'a> {
    pub fn open(file: &str, bytes: &'a [u8], max_members: usize) -> Result<Self, SeriesError> {
        let zip = ZipReader::open(bytes, max_members).map_err(|e| {
            SeriesError::malformed(
                file,
                match e {
                    OpenError::Unreadable(why) => format!("not a readable zip: {why}"),
                    OpenError::Duplicate(name) => {
                        crate::import::zip_names::duplicate_message(&name)
                    }
                    OpenError::TooManyEntries(n) => format!("{n} members, more than {max_members}"),
                },
            )
        })?;
        let mut paths: Vec<(String, usize)> = zip.files().to_vec();
        let headers: Vec<&str> = paths
            .iter()
            .map(|(p, _)| p.as_str())
            .filter(|p| *p == HEADER_FILE || p.ends_with(&format!("/{HEADER_FILE}")))
            .collect();
        if headers.len() > 1 {
            return Err(SeriesError::malformed(
                file,
                format!(
                    "holds {} {HEADER_FILE} files ({}): a zip holds one series",
                    headers.len(),
                    headers.join(", ")
                ),
            ));
        }
        // A zipped series folder: its top directory is removed, and what is outside it ignored.
        if let Some(root) = headers
            .first()
            .and_then(|h| h.strip_suffix(HEADER_FILE))
            .filter(|root| !root.is_empty())
            .map(str::to_string)
        {
            paths.retain(|(p, _)| p.starts_with(&root));
            for (p, _) in paths.iter_mut() {
                *p = p.get(root.len()..).unwrap_or_default().to_string();
            }
        }
        let mut index = HashMap::with_capacity(paths.len());
        for (p, i) in &paths {
            if index.insert(p.clone(), *i).is_some() {
                return Err(SeriesError::malformed(
                    file,
                    format!(
                        "member {p} appears twice (a zip whose members share a name is refused: \
                         which one is meant is not known)"
                    ),
                ));
            }
        }
        Ok(Self {
            file: file.to_string(),
            zip,
            index,
            paths: paths.into_iter().map(|(p, _)| p).collect(),
        })
    }

    /// Member paths, in the zip's order.
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// What the reader of the series says about the zip: the members it refused for their names
    /// (the importer's warning, naming the zip).
    pub fn warnings(&self) -> Vec<String> {
        refused_warning(self.zip.refused())
            .map(|why| format!("{}: {why}", self.file))
            .into_iter()
            .collect()
    }
}

impl SeriesSource for ZipSource<'_> {
    fn is_stored(&self) -> bool {
        self.index.contains_key(HEADER_FILE)
    }

    fn manifest_names(&mut self) -> Result<Vec<String>, SeriesError> {
        let prefix = format!("{SNAPSHOTS_DIR}/");
        Ok(self
            .paths
            .iter()
            .filter_map(|p| p.strip_prefix(&prefix))
            .filter(|n| !n.contains('/'))
            .map(str::to_string)
            .collect())
    }

    fn snapshot_files(&mut self) -> Result<Vec<String>, SeriesError> {
        Ok(self
            .paths
            .iter()
            .filter(|p| p.ends_with(".json"))
            .cloned()
            .collect())
    }

    fn read(&mut self, path: &str, cap: u64) -> Result<Vec<u8>, ReadError> {
        let i = *self.index.get(path).ok_or(ReadError::Missing)?;
        self.zip.read(i, cap).map_err(|e| match e {
            MemberError::TooLarge => ReadError::TooLarge,
            MemberError::Other(why) => {
                ReadError::Other(format!("{}: member {path}: {why}", self.file))
            }
        })
    }
}

/// Removes a directory every path starts with (`series/series.json` → `series.json`), when the
/// files do not already have a `series.json` at their root.
pub fn strip_common_dir(mut files: Files) -> Files {
    if is_stored_series(&files) {
        return files;
    }
    let Some(root) = files
        .iter()
        .find(|(p, _)| p.ends_with(&format!("/{HEADER_FILE}")))
        .and_then(|(p, _)| p.strip_suffix(HEADER_FILE))
        .map(str::to_string)
    else {
        return files;
    };
    files.retain(|(p, _)| p.starts_with(&root));
    for (p, _) in files.iter_mut() {
        *p = p.get(root.len()..).unwrap_or_default().to_string();
    }
    files
}

/// The parts a manifest refers to, directly (its brokers' parts, its namespace index and its
/// list of bundle-data runs) and through its two index parts (each namespace's part, each run's
/// part), for retention: a part no remaining manifest refers to may be deleted. `index` gives an
/// index part's gzip bytes (read under `limits.max_part_bytes`); an index part already in
/// `known_indexes` is not read again (indexes are shared by every manifest while nothing changes).
pub fn manifest_part_refs(
    manifest_name: &str,
    manifest: &[u8],
    limits: SeriesLimits,
    known_indexes: &mut HashMap<String, Vec<String>>,
    index: &mut dyn FnMut(&str) -> Result<Vec<u8>, ReadError>,
) -> Result<Vec<String>, SeriesError> {
    let path = format!("{SNAPSHOTS_DIR}/{manifest_name}");
    let m: SnapshotManifest =
        serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_slice(manifest))
            .map_err(|e| {
                SeriesError::malformed(path.clone(), format!("{}: {}", e.path(), e.inner()))
            })?;
    let mut refs: Vec<String> = m.brokers.values().cloned().collect();
    for (id, is_namespaces) in [(&m.namespaces, true), (&m.bundle_data, false)] {
        refs.push(id.clone());
        if let Some(listed) = known_indexes.get(id.as_str()) {
            refs.extend(listed.iter().cloned());
            continue;
        }
        let file = format!("{PARTS_DIR}/{}", part_file(id));
        let gz = index(&file).map_err(|e| {
            let why = match e {
                ReadError::Missing => "missing".to_string(),
                ReadError::TooLarge => "larger than a part may be".to_string(),
                ReadError::Other(why) => why,
            };
            SeriesError::malformed(file.clone(), why)
        })?;
        let mut json = Vec::new();
        GzDecoder::new(gz.as_slice())
            .take(limits.max_part_bytes.saturating_add(1))
            .read_to_end(&mut json)
            .map_err(|e| SeriesError::malformed(file.clone(), format!("not valid gzip: {e}")))?;
        if json.len() as u64 > limits.max_part_bytes {
            return Err(SeriesError::malformed(
                file,
                "decompresses to more than a part may",
            ));
        }
        let listed: Vec<String> = if is_namespaces {
            serde_part::<IndexMap<String, String>>(&file, &json)
                .map_err(|why| SeriesError::malformed(file.clone(), why))?
                .into_values()
                .collect()
        } else {
            serde_part::<Vec<String>>(&file, &json)
                .map_err(|why| SeriesError::malformed(file.clone(), why))?
        };
        refs.extend(listed.iter().cloned());
        known_indexes.insert(id.clone(), listed);
    }
    Ok(refs)
}
