//! A snapshot in parts, so the dashboard's worker (which imported it) can hand a 200,000-bundle
//! snapshot to the page without one long task there: a head with everything but the namespaces,
//! the brokers' reports and `bundle_data` (and the entry counts, for a progress bar), then parts of
//! whole namespace entries (their bundle boundaries: ≈ 2.8 MB at 1,000 namespaces of 200 bundles,
//! which in the head made one 34 ms decode), of broker entries and of bundle entries, each cut once
//! its JSON passes a byte budget, so one part decodes in a few milliseconds. The page decodes one
//! part per message and assembles them in order.
//!
//! The parts are in the model types' own serde form (`Snapshot`, `BrokerSnapshot`, `BundleData`),
//! not read by `import::read_snapshot`: that reader takes a whole file, and these parts only travel
//! between two builds of this crate after the import in the worker validated the snapshot. The
//! stream is versioned by [`CHUNK_FORMAT_VERSION`] in the head; an unknown version is refused.
//! Parts are externally tagged (`{"brokers":[…]}`) because serde decodes that form without first
//! buffering the whole part, as an internally tagged enum would.

use std::fmt;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::model::{BrokerSnapshot, BundleData, NamespaceSnapshot, Snapshot};

/// Version of the parts' format (2: namespaces in parts of their own, not in the head).
pub const CHUNK_FORMAT_VERSION: u32 = 2;

/// The default budget of one part: ~1 MiB of JSON decodes in ~5–10 ms in the browser's wasm.
pub const DEFAULT_CHUNK_BYTES: usize = 1 << 20;

/// The most entries of a kind reserved from the head's announced count (a count is a hint; memory
/// grows with what the parts hold, not with what a head claims).
const MAX_RESERVE: usize = 1 << 20;

/// One part of the stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotChunk {
    /// First: the format, how many entries follow, and the snapshot without namespaces, brokers
    /// and bundle data.
    Head {
        format_version: u32,
        namespaces: usize,
        brokers: usize,
        bundles: usize,
        snapshot: Box<Snapshot>,
    },
    /// Namespace entries in the snapshot's order (before any broker entry).
    Namespaces(Vec<(String, NamespaceSnapshot)>),
    /// Broker entries in the snapshot's order.
    Brokers(Vec<(String, BrokerSnapshot)>),
    /// `bundle_data` entries in the snapshot's order.
    Bundles(Vec<(String, BundleData)>),
}

/// Why a stream of parts cannot be assembled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkError {
    /// A part came before the head, or a second head.
    OutOfOrder(&'static str),
    /// The head names a format this build does not read.
    Version(u32),
    /// More or fewer entries than the head announced.
    Count {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// The JSON of a part could not be written (never for model types).
    Encode(String),
}

impl fmt::Display for ChunkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutOfOrder(what) => write!(f, "snapshot parts out of order: {what}"),
            Self::Version(v) => write!(
                f,
                "snapshot parts format_version {v} (this page reads {CHUNK_FORMAT_VERSION}): reload the page"
            ),
            Self::Count {
                what,
                expected,
                got,
            } => write!(
                f,
                "snapshot parts: {got} {what} received, {expected} announced"
            ),
            Self::Encode(e) => write!(f, "snapshot parts: cannot encode: {e}"),
        }
    }
}

impl std::error::Error for ChunkError {}

fn encode(e: impl fmt::Display) -> ChunkError {
    ChunkError::Encode(e.to_string())
}

/// Writes `snapshot` as parts, each part's JSON handed to `out` (the head first); a part holds
/// entries until its JSON reaches `budget_bytes` (at least one entry per part). Entries are
/// serialised straight from the snapshot, never copied.
pub fn write_chunks(
    snapshot: &Snapshot,
    budget_bytes: usize,
    out: &mut dyn FnMut(&str),
) -> Result<(), ChunkError> {
    let head_snapshot = Snapshot {
        brokers: IndexMap::new(),
        bundle_data: IndexMap::new(),
        format_version: snapshot.format_version,
        cluster: snapshot.cluster.clone(),
        captured_at_ms: snapshot.captured_at_ms,
        leader_broker: snapshot.leader_broker.clone(),
        broker_conf: snapshot.broker_conf.clone(),
        namespaces: IndexMap::new(),
        failure_domains: snapshot.failure_domains.clone(),
        namespace_isolation_policies: snapshot.namespace_isolation_policies.clone(),
        recently_unloaded_bundles: snapshot.recently_unloaded_bundles.clone(),
    };
    let head = SnapshotChunk::Head {
        format_version: CHUNK_FORMAT_VERSION,
        namespaces: snapshot.namespaces.len(),
        brokers: snapshot.brokers.len(),
        bundles: snapshot.bundle_data.len(),
        snapshot: Box::new(head_snapshot),
    };
    out(&serde_json::to_string(&head).map_err(encode)?);
    write_entries("namespaces", &snapshot.namespaces, budget_bytes, out)?;
    write_entries("brokers", &snapshot.brokers, budget_bytes, out)?;
    write_entries("bundles", &snapshot.bundle_data, budget_bytes, out)
}

/// `{"<tag>":[["name",{…}],…]}` parts of `entries`, cut at the budget.
fn write_entries<V: Serialize>(
    tag: &str,
    entries: &IndexMap<String, V>,
    budget_bytes: usize,
    out: &mut dyn FnMut(&str),
) -> Result<(), ChunkError> {
    let open = format!("{{\"{tag}\":[");
    let mut buf: Vec<u8> = Vec::with_capacity(budget_bytes.min(64 << 20).saturating_add(4096));
    let mut n = 0usize;
    let mut flush = |buf: &mut Vec<u8>, n: &mut usize| -> Result<(), ChunkError> {
        if *n > 0 {
            buf.extend_from_slice(b"]}");
            out(std::str::from_utf8(buf).map_err(encode)?);
        }
        buf.clear();
        *n = 0;
        Ok(())
    };
    for entry in entries {
        if n == 0 {
            buf.extend_from_slice(open.as_bytes());
        } else {
            buf.push(b',');
        }
        serde_json::to_writer(&mut buf, &entry).map_err(encode)?;
        n += 1;
        if buf.len() >= budget_bytes {
            flush(&mut buf, &mut n)?;
        }
    }
    flush(&mut buf, &mut n)
}

/// Collects parts in order into the snapshot.
#[derive(Debug, Default)]
pub struct Assembler {
    snapshot: Option<Snapshot>,
    namespaces: usize,
    brokers: usize,
    bundles: usize,
}

impl Assembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the next part.
    pub fn push(&mut self, chunk: SnapshotChunk) -> Result<(), ChunkError> {
        match (chunk, self.snapshot.as_mut()) {
            (
                SnapshotChunk::Head {
                    format_version,
                    namespaces,
                    brokers,
                    bundles,
                    snapshot,
                },
                None,
            ) => {
                if format_version != CHUNK_FORMAT_VERSION {
                    return Err(ChunkError::Version(format_version));
                }
                let mut s = *snapshot;
                // Counts are only hints for the reserve: a part's entries are what is kept.
                s.namespaces.reserve(namespaces.min(MAX_RESERVE));
                s.brokers.reserve(brokers.min(MAX_RESERVE));
                s.bundle_data.reserve(bundles.min(MAX_RESERVE));
                self.namespaces = namespaces;
                self.brokers = brokers;
                self.bundles = bundles;
                self.snapshot = Some(s);
                Ok(())
            }
            (SnapshotChunk::Head { .. }, Some(_)) => Err(ChunkError::OutOfOrder("a second head")),
            (_, None) => Err(ChunkError::OutOfOrder("a part before the head")),
            (SnapshotChunk::Namespaces(entries), Some(s)) => {
                if !s.brokers.is_empty() || !s.bundle_data.is_empty() {
                    return Err(ChunkError::OutOfOrder(
                        "namespaces after brokers or bundle data",
                    ));
                }
                s.namespaces.extend(entries);
                Ok(())
            }
            (SnapshotChunk::Brokers(entries), Some(s)) => {
                if !s.bundle_data.is_empty() {
                    return Err(ChunkError::OutOfOrder("brokers after bundle data"));
                }
                s.brokers.extend(entries);
                Ok(())
            }
            (SnapshotChunk::Bundles(entries), Some(s)) => {
                s.bundle_data.extend(entries);
                Ok(())
            }
        }
    }

    /// (entries received, entries announced), for a progress bar; (0, 0) before the head.
    pub fn progress(&self) -> (usize, usize) {
        let got = self.snapshot.as_ref().map_or(0, |s| {
            s.namespaces.len() + s.brokers.len() + s.bundle_data.len()
        });
        (got, self.namespaces + self.brokers + self.bundles)
    }

    /// Whether the head came and every announced entry with it.
    pub fn is_complete(&self) -> bool {
        self.snapshot.as_ref().is_some_and(|s| {
            s.namespaces.len() == self.namespaces
                && s.brokers.len() == self.brokers
                && s.bundle_data.len() == self.bundles
        })
    }

    /// The snapshot, once every announced entry came.
    pub fn finish(self) -> Result<Snapshot, ChunkError> {
        let s = self
            .snapshot
            .ok_or(ChunkError::OutOfOrder("no head received"))?;
        for (what, expected, got) in [
            ("namespaces", self.namespaces, s.namespaces.len()),
            ("brokers", self.brokers, s.brokers.len()),
            ("bundles", self.bundles, s.bundle_data.len()),
        ] {
            if expected != got {
                return Err(ChunkError::Count {
                    what,
                    expected,
                    got,
                });
            }
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &Snapshot, budget: usize) -> Vec<String> {
        let mut v = Vec::new();
        write_chunks(s, budget, &mut |t| v.push(t.to_string())).unwrap();
        v
    }

    fn assemble(texts: &[String]) -> Result<Snapshot, ChunkError> {
        let mut a = Assembler::new();
        for t in texts {
            a.push(serde_json::from_str(t).unwrap())?;
        }
        a.finish()
    }

    #[test]
    fn the_demo_cluster_comes_back_equal_from_small_parts() {
        let s = crate::synthetic::demo().unwrap();
        let texts = parts(&s, 16 * 1024);
        // A head, then several parts of each kind: the budget cuts them.
        assert!(texts[0].starts_with("{\"head\":"));
        assert!(texts[1].starts_with("{\"namespaces\":"));
        assert!(
            texts
                .iter()
                .filter(|t| t.starts_with("{\"brokers\":"))
                .count()
                > 1
        );
        assert!(
            texts
                .iter()
                .filter(|t| t.starts_with("{\"bundles\":"))
                .count()
                > 1
        );
        let back = assemble(&texts).unwrap();
        assert_eq!(back, s);
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            serde_json::to_string(&s).unwrap()
        );
    }

    #[test]
    fn one_part_per_kind_when_the_budget_is_large() {
        let s = crate::synthetic::demo().unwrap();
        let texts = parts(&s, usize::MAX / 2);
        assert_eq!(texts.len(), 4);
        assert_eq!(assemble(&texts).unwrap(), s);
    }

    #[test]
    fn progress_counts_entries_and_a_missing_part_is_an_error() {
        let s = crate::synthetic::demo().unwrap();
        let texts = parts(&s, 16 * 1024);
        let mut a = Assembler::new();
        assert_eq!(a.progress(), (0, 0));
        for t in &texts[..texts.len() - 1] {
            a.push(serde_json::from_str(t).unwrap()).unwrap();
        }
        let total = s.namespaces.len() + s.brokers.len() + s.bundle_data.len();
        assert_eq!(a.progress().1, total);
        assert!(a.progress().0 < total);
        assert!(!a.is_complete());
        assert!(matches!(
            a.finish(),
            Err(ChunkError::Count {
                what: "bundles",
                ..
            })
        ));
    }

    #[test]
    fn out_of_order_and_unknown_versions_are_refused() {
        let s = crate::synthetic::demo().unwrap();
        let texts = parts(&s, 16 * 1024);
        let mut a = Assembler::new();
        assert_eq!(
            a.push(serde_json::from_str(&texts[1]).unwrap()),
            Err(ChunkError::OutOfOrder("a part before the head"))
        );
        // The format before namespaces had parts of their own.
        let head = texts[0].replacen(
            "\"format_version\":2,\"namespaces\"",
            "\"format_version\":1,\"namespaces\"",
            1,
        );
        assert_ne!(head, texts[0]);
        let err = Assembler::new()
            .push(serde_json::from_str(&head).unwrap())
            .unwrap_err();
        assert_eq!(err, ChunkError::Version(1));
        assert!(err.to_string().contains("format_version 1"));
        // Namespaces come before the brokers.
        let brokers = texts
            .iter()
            .find(|t| t.starts_with("{\"brokers\":"))
            .unwrap();
        let namespaces = texts
            .iter()
            .find(|t| t.starts_with("{\"namespaces\":"))
            .unwrap();
        let mut a = Assembler::new();
        a.push(serde_json::from_str(&texts[0]).unwrap()).unwrap();
        a.push(serde_json::from_str(brokers).unwrap()).unwrap();
        assert_eq!(
            a.push(serde_json::from_str(namespaces).unwrap()),
            Err(ChunkError::OutOfOrder(
                "namespaces after brokers or bundle data"
            ))
        );
    }

    #[test]
    fn the_head_carries_no_namespace_and_a_head_that_overstates_counts_is_incomplete() {
        let s = crate::synthetic::demo().unwrap();
        assert!(!s.namespaces.is_empty());
        let texts = parts(&s, 16 * 1024);
        let head: SnapshotChunk = serde_json::from_str(&texts[0]).unwrap();
        let SnapshotChunk::Head {
            namespaces,
            snapshot,
            ..
        } = head
        else {
            panic!("not a head: {}", &texts[0]);
        };
        assert_eq!(namespaces, s.namespaces.len());
        assert!(snapshot.namespaces.is_empty());
        // A head announcing more than any part brings (usize::MAX) reserves a bounded amount and
        // never completes.
        let head = texts[0].replacen(
            &format!("\"namespaces\":{namespaces},"),
            &format!("\"namespaces\":{},", usize::MAX),
            1,
        );
        assert_ne!(head, texts[0]);
        let mut a = Assembler::new();
        for t in std::iter::once(&head).chain(&texts[1..]) {
            a.push(serde_json::from_str(t).unwrap()).unwrap();
        }
        assert!(!a.is_complete());
        assert!(matches!(
            a.finish(),
            Err(ChunkError::Count {
                what: "namespaces",
                ..
            })
        ));
    }
}
