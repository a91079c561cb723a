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
use std::io::{Read, Write};

use flate2::Compression;
use flate2::bufread::GzDecoder;
use flate2::write::GzEncoder;
use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::model::{BrokerSnapshot, BundleData, NamespaceSnapshot, Snapshot};
use crate::plan::fingerprint::fnv1a64;

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

/// Reads snapshots of a stored series one at a time, in time order. Decoded parts are kept by id
/// (bounded by `SeriesLimits::max_cached_bytes`), so a snapshot costs the gunzip and parse of the
/// parts it changed only.
pub struct StoredSeries<'a> {
    limits: SeriesLimits,
    /// What is left of `limits.max_total_bytes`.
    total_left: u64,
    /// Parts already counted against the budget.
    counted: std::collections::HashSet<String>,
    manifests: Vec<(String, SnapshotManifest)>,
    parts: HashMap<&'a str, &'a [u8]>,
    next: usize,
    brokers: PartCache<BrokerSnapshot>,
    bundles: PartCache<IndexMap<String, BundleData>>,
    namespaces: PartCache<NamespaceSnapshot>,
    /// The latest namespace index and `BundleData` run list, by part id (usually unchanged).
    index: Option<(String, IndexMap<String, String>)>,
    runs: Option<(String, Vec<String>)>,
    /// Manifest positions of the snapshots handed out and not yet given back, oldest first.
    handed_out: std::collections::VecDeque<usize>,
    /// A snapshot given back by [`Self::recycle`]: the next one takes its unchanged values.
    spare: Option<Spare>,
}

/// An envelope without brokers, bundle data or namespaces of its own: what parts assemble is the
/// whole of those maps, so a spare snapshot's can stand in for them.
fn bare_envelope(envelope: &Snapshot) -> bool {
    envelope.brokers.is_empty() && envelope.bundle_data.is_empty() && envelope.namespaces.is_empty()
}

/// A snapshot given back, with the part ids it was assembled from.
struct Spare {
    snapshot: Snapshot,
    brokers: IndexMap<String, String>,
    bundle_data: String,
    namespaces: String,
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

impl<'a> StoredSeries<'a> {
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
        let header = files
            .iter()
            .find(|(p, _)| p == HEADER_FILE)
            .ok_or_else(|| SeriesError::malformed(HEADER_FILE, "missing"))?;
        check_header(&header.1)?;
        let mut manifests = Vec::new();
        let mut parts = HashMap::new();
        let snapshots_prefix = format!("{SNAPSHOTS_DIR}/");
        let parts_prefix = format!("{PARTS_DIR}/");
        for (path, bytes) in files {
            if let Some(name) = path.strip_prefix(&snapshots_prefix) {
                if !name.ends_with(".json") || name.contains('/') {
                    continue;
                }
                if bytes.len() as u64 > limits.max_manifest_bytes {
                    return Err(SeriesError::malformed(
                        path.clone(),
                        format!(
                            "{} bytes, more than a manifest may have ({})",
                            bytes.len(),
                            limits.max_manifest_bytes
                        ),
                    ));
                }
                let m: SnapshotManifest = serde_path_to_error::deserialize(
                    &mut serde_json::Deserializer::from_slice(bytes),
                )
                .map_err(|e| {
                    SeriesError::malformed(path.clone(), format!("{}: {}", e.path(), e.inner()))
                })?;
                if m.format_version != SERIES_FORMAT_VERSION {
                    return Err(SeriesError::malformed(
                        path.clone(),
                        format!("$.format_version {} is not supported", m.format_version),
                    ));
                }
                if m.envelope.captured_at_ms.is_none() {
                    return Err(SeriesError::NoTime { name: path.clone() });
                }
                manifests.push((path.clone(), m));
            } else if let Some(name) = path.strip_prefix(&parts_prefix)
                && let Some(id) = name.strip_suffix(".json.gz")
            {
                parts.insert(id, bytes.as_slice());
            }
        }
        if manifests.is_empty() {
            return Err(SeriesError::Empty);
        }
        manifests.sort_by(|(pa, a), (pb, b)| {
            a.envelope
                .captured_at_ms
                .cmp(&b.envelope.captured_at_ms)
                .then_with(|| pa.cmp(pb))
        });
        Ok(Self {
            limits,
            total_left: limits.max_total_bytes,
            counted: std::collections::HashSet::new(),
            manifests,
            parts,
            next: 0,
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
        self.manifests.len()
    }

    pub fn is_empty(&self) -> bool {
        self.manifests.is_empty()
    }

    /// Part `id` decoded by `decode` (from the part's file name and JSON), with its gunzipped size.
    fn part<T>(
        &mut self,
        manifest: &str,
        id: &str,
        decode: fn(&str, &[u8]) -> Result<T, String>,
    ) -> Result<(T, u64), SeriesError> {
        let file = format!("{PARTS_DIR}/{}", part_file(id));
        let gz: &'a [u8] = self.parts.get(id).copied().ok_or_else(|| {
            SeriesError::malformed(manifest, format!("refers to {file}, which is missing"))
        })?;
        // Never more than the part cap nor what is left of the budget is decompressed.
        let fresh = !self.counted.contains(id);
        let cap = if fresh {
            self.limits.max_part_bytes.min(self.total_left)
        } else {
            self.limits.max_part_bytes
        };
        // The id names the JSON's length: room for it at once, and the gzip read straight from the
        // stored bytes (`bufread`: no intermediate buffer per part). The name is not trusted
        // further than the cap and what deflate can expand the part's bytes to (≤ 1032×).
        let named_len = id
            .rsplit_once('-')
            .and_then(|(_, len)| len.parse::<u64>().ok())
            .unwrap_or(0)
            .min(cap)
            .min((gz.len() as u64).saturating_mul(1032));
        let mut json = Vec::with_capacity(usize::try_from(named_len).unwrap_or(0));
        GzDecoder::new(gz)
            .take(cap.saturating_add(1))
            .read_to_end(&mut json)
            .map_err(|e| SeriesError::malformed(file.clone(), format!("not valid gzip: {e}")))?;
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
            self.total_left = self.total_left.checked_sub(len).ok_or_else(|| {
                SeriesError::malformed(
                    file.clone(),
                    format!(
                        "the series' parts decompress to more than {} bytes (cap on the total \
                         size read)",
                        self.limits.max_total_bytes
                    ),
                )
            })?;
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
        let at = self.next;
        let (name, m) = self.manifests.get(at)?.clone();
        self.next += 1;
        let assembled = self.assemble(&name, &m);
        if assembled.is_ok() {
            self.handed_out.push_back(at);
        }
        Some(assembled)
    }

    /// [`Self::next_snapshot`] with the brokers whose part changed since the snapshot handed out
    /// before it (their reports may differ; every other broker's is the same value): `None` for
    /// the first snapshot, or when the broker list (names or order) changed.
    #[allow(clippy::type_complexity)]
    pub fn next_snapshot_with_changes(
        &mut self,
    ) -> Option<Result<(Snapshot, Option<Vec<String>>), SeriesError>> {
        let at = self.next;
        let changed = at
            .checked_sub(1)
            .and_then(|before| self.manifests.get(before))
            .zip(self.manifests.get(at))
            .and_then(|((_, before), (_, now))| {
                let comparable = bare_envelope(&before.envelope)
                    && bare_envelope(&now.envelope)
                    && before.brokers.keys().eq(now.brokers.keys());
                comparable.then(|| {
                    now.brokers
                        .iter()
                        .zip(before.brokers.values())
                        .filter(|((_, part), part_before)| part != part_before)
                        .map(|((id, _), _)| id.clone())
                        .collect()
                })
            });
        self.next_snapshot()
            .map(|snapshot| snapshot.map(|s| (s, changed)))
    }

    /// Gives back the oldest snapshot handed out and not given back yet, unmodified, once the
    /// caller is done with it: the next snapshot moves its unchanged values (a broker report, the
    /// namespaces, the `BundleData` map whose part id is the same) instead of copying them from the
    /// decoded parts. One snapshot is kept at a time (a second replaces the first), outside
    /// `SeriesLimits::max_cached_bytes`: it is the snapshot the caller held.
    pub fn recycle(&mut self, snapshot: Snapshot) {
        let Some(at) = self.handed_out.pop_front() else {
            return;
        };
        let Some((_, m)) = self.manifests.get(at) else {
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
            brokers: m.brokers.clone(),
            bundle_data: m.bundle_data.clone(),
            namespaces: m.namespaces.clone(),
        });
    }

    fn assemble(&mut self, name: &str, m: &SnapshotManifest) -> Result<Snapshot, SeriesError> {
        let seq = self.next;
        let mut s = m.envelope.clone();
        let mut spare = self.spare.take().filter(|_| bare_envelope(&m.envelope));
        for (id, part) in &m.brokers {
            // Same part id, same value: moved from the spare snapshot.
            let reused = spare
                .as_mut()
                .filter(|sp| sp.brokers.get(id) == Some(part))
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
        let spare_namespaces = spare
            .as_mut()
            .filter(|sp| sp.namespaces == m.namespaces)
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
        let spare_bundle_data = spare
            .as_mut()
            .filter(|sp| sp.bundle_data == m.bundle_data)
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

/// Every snapshot of `files` in time order: a stored series, or ordinary snapshot files (each
/// `.json` file imported; its `captured_at_ms` places it).
pub fn decode_all(files: &Files) -> Result<Series, SeriesError> {
    if is_stored_series(files) {
        let mut stored = StoredSeries::open(files)?;
        let mut out = Vec::with_capacity(stored.len());
        while let Some(s) = stored.next_snapshot() {
            out.push(s?);
        }
        return Ok(Series { snapshots: out });
    }
    let mut named = Vec::new();
    for (path, bytes) in snapshot_files(files) {
        named.push((path.clone(), read_snapshot_file(path, bytes)?));
    }
    Series::from_named(named)
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

/// The members of a zip (directories and unsafe paths skipped), at most `max_members` and
/// `max_total_bytes` decompressed. A common top directory (a zipped series folder) is removed.
pub fn zip_members(
    file: &str,
    bytes: &[u8],
    max_members: usize,
    max_total_bytes: u64,
) -> Result<Files, SeriesError> {
    let bad =
        |e: zip::result::ZipError| SeriesError::malformed(file, format!("not a readable zip: {e}"));
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(bad)?;
    if zip.len() > max_members {
        return Err(SeriesError::malformed(
            file,
            format!("{} members, more than {max_members}", zip.len()),
        ));
    }
    let mut out = Vec::new();
    let mut left = max_total_bytes;
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(bad)?;
        if entry.is_dir() {
            continue;
        }
        let Some(path) = entry.enclosed_name() else {
            continue;
        };
        let path = path.to_string_lossy().replace('\\', "/");
        let mut data = Vec::new();
        entry
            .take(left + 1)
            .read_to_end(&mut data)
            .map_err(|e| SeriesError::malformed(file, format!("member {path}: {e}")))?;
        left = left.checked_sub(data.len() as u64).ok_or_else(|| {
            SeriesError::malformed(
                file,
                format!("more than {max_total_bytes} bytes decompressed"),
            )
        })?;
        out.push((path, data));
    }
    Ok(strip_common_dir(out))
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
