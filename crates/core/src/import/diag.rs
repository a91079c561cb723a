//! Import diagnostics: the fatal [`ImportError`] (always naming the file and the JSON path, line or
//! archive entry, and what was expected) and the [`ImportWarning`]s collected for every gap or oddity
//! that import worked around. Warnings that repeat across files are merged into one with a count.

use std::fmt;

use indexmap::IndexMap;
use serde::Serialize;

/// A fatal import problem. Every variant names the input file (for archive members
/// `archive.zip!/path/in/archive`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// Something wrong at one place of one file: `at` is a JSON path (`$.cpu.limit`) or a line
    /// (`line 12`, `line 3, column 7`).
    #[error("{file}: {at}: {message}")]
    At {
        file: String,
        at: String,
        message: String,
    },
    /// Something wrong with a file as a whole: encoding, size, unrecognised content, bad archive.
    #[error("{file}: {message}")]
    File { file: String, message: String },
    /// Two inputs contradict each other (a bundle owned twice, a broker given twice, overlapping ranges).
    #[error("{file}: {at}: {message} (conflicts with {other_file}: {other_at})")]
    Conflict {
        file: String,
        at: String,
        message: String,
        other_file: String,
        other_at: String,
    },
    /// A cap on the whole import (total bytes, number of entries) was exceeded.
    #[error("{0}")]
    Limit(String),
    /// No usable input at all.
    #[error("nothing to import: {0}")]
    Empty(String),
}

impl ImportError {
    pub(crate) fn at(file: &str, at: impl Into<String>, message: impl Into<String>) -> Self {
        ImportError::At {
            file: file.to_string(),
            at: at.into(),
            message: message.into(),
        }
    }

    pub(crate) fn file(file: &str, message: impl Into<String>) -> Self {
        ImportError::File {
            file: file.to_string(),
            message: message.into(),
        }
    }

    /// The file the error is about (`None` for import-wide errors).
    pub fn file_name(&self) -> Option<&str> {
        match self {
            ImportError::At { file, .. }
            | ImportError::File { file, .. }
            | ImportError::Conflict { file, .. } => Some(file),
            ImportError::Limit(_) | ImportError::Empty(_) => None,
        }
    }
}

/// What a warning is about, for callers that filter or count them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// A JSON field (or snapshot field) this importer does not know; ignored.
    UnknownField,
    /// A file that is not one of the accepted kinds, found inside a directory or archive; skipped.
    IgnoredFile,
    /// An owned bundle with no `BundleData`; Pulsar's defaults (50 msg/s, 50000 B/s) were used.
    DefaultBundleData,
    /// A namespace layout inferred from bundle names that tile the hash range.
    InferredLayout,
    /// A namespace layout guessed (holes filled, or a default partitioning assumed).
    GuessedLayout,
    /// Two sources gave different layouts for a namespace; the one named was kept.
    LayoutConflict,
    /// Data for a bundle that is not in its namespace's layout (stale after a split); dropped.
    StaleBundle,
    /// A broker's `TimeAverageBrokerData` was missing and was recomputed from bundle data.
    RecomputedTimeAverage,
    /// A resource with Pulsar's "not sampled" marker (−1) or a limit of 0; counts as 0 % or less.
    UnsampledResource,
    /// A resource missing from a report; `{usage: 0, limit: 0}` assumed.
    MissingResource,
    /// A report whose totals or counts disagree with its per-bundle stats (kept as reported).
    InconsistentReport,
    /// A broker named after its file because the JSON carries no `brokerId`.
    BrokerNamedFromFile,
    /// Data for a broker that has no report (dead broker); dropped or given an empty report.
    OrphanBrokerData,
    /// `broker.conf` keys the load manager does not read; dropped.
    ConfKeyIgnored,
    /// A `broker.conf` key set twice with different values; the later value kept.
    ConfOverridden,
    /// The leader, a failure-domain member or another reference names an unknown broker.
    UnknownBroker,
    /// `captured_at_ms` was not given and was taken from the newest report.
    CapturedAt,
    /// Two inputs disagree on a scalar (cluster name, anti-affinity group); the first was kept.
    ValueConflict,
    /// An item `lbplan collect` could not fetch (from its `collect-report.json`): the snapshot lacks it.
    CollectGap,
    /// A real Pulsar export the planner does not take (`pulsar-admin topics partitioned-lookup`, the
    /// legacy SimpleLoadManager `LoadReport`), or a layout whose namespace cannot be known; skipped.
    NotModelled,
    /// A broker named by `pulsar-admin brokers list` with no load report: not in the snapshot.
    MissingReport,
    /// Load reports whose `lastUpdate` times differ by more than a few reporting intervals.
    ReportsApart,
    /// One name twice: two archive members with the same path.
    Duplicate,
    /// More warnings than the cap; the rest were counted, not kept.
    Truncated,
}

/// A non-fatal finding. `more` counts further files or places that produced the same warning.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportWarning {
    pub kind: WarningKind,
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    pub message: String,
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
    /// The other files among the `more` (each once): all of them for skipped files
    /// ([`WarningKind::IgnoredFile`], [`WarningKind::NotModelled`]), the first [`MAX_ALSO`] otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

/// Other files kept per merged warning, except for skipped files (all kept: an operator must see
/// which different file was skipped).
pub const MAX_ALSO: usize = 100;

/// Files named in a warning's one-line text; the rest are counted.
const ALSO_SHOWN: usize = 3;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl fmt::Display for ImportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file)?;
        if let Some(at) = &self.at {
            write!(f, "{at}: ")?;
        }
        f.write_str(&self.message)?;
        if self.more > 0 {
            write!(f, " (and {} more like it", self.more)?;
            let shown: Vec<&str> = self
                .also
                .iter()
                .take(ALSO_SHOWN)
                .map(String::as_str)
                .collect();
            if !shown.is_empty() {
                write!(f, ": {}", shown.join(", "))?;
                if self.more > shown.len() {
                    f.write_str(", …")?;
                }
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// Most distinct warnings kept; past this they are only counted (a 200,000-file dump with one odd field
/// each must not produce 200,000 lines).
pub const MAX_WARNINGS: usize = 1000;

/// Collects warnings, merging those with the same kind, place and message across files.
#[derive(Debug, Default)]
pub(crate) struct Diag {
    warnings: IndexMap<(WarningKind, Option<String>, String), ImportWarning>,
    dropped: usize,
}

impl Diag {
    /// Whether nothing was warned about.
    pub(crate) fn is_empty(&self) -> bool {
        self.warnings.is_empty() && self.dropped == 0
    }

    pub(crate) fn warn(
        &mut self,
        kind: WarningKind,
        file: &str,
        at: Option<String>,
        message: impl Into<String>,
    ) {
        let message = message.into();
        let key = (kind, at, message);
        if let Some(w) = self.warnings.get_mut(&key) {
            w.more += 1;
            let keep_all = matches!(kind, WarningKind::IgnoredFile | WarningKind::NotModelled);
            if w.file != file
                && (keep_all || w.also.len() < MAX_ALSO)
                && w.also.last().is_none_or(|l| l != file)
            {
                w.also.push(file.to_string());
            }
            return;
        }
        if self.warnings.len() >= MAX_WARNINGS {
            self.dropped += 1;
            return;
        }
        let w = ImportWarning {
            kind,
            file: file.to_string(),
            at: key.1.clone(),
            message: key.2.clone(),
            more: 0,
            also: Vec::new(),
        };
        self.warnings.insert(key, w);
    }

    /// The skipped inputs (what each looked like and why it was not used), as their warnings
    /// read: what an import that recognised nothing says instead of "no recognised export".
    pub(crate) fn skipped(&self) -> Vec<String> {
        self.warnings
            .values()
            .filter(|w| matches!(w.kind, WarningKind::IgnoredFile | WarningKind::NotModelled))
            .map(ToString::to_string)
            .collect()
    }

    pub(crate) fn finish(self) -> Vec<ImportWarning> {
        let mut out: Vec<ImportWarning> = self.warnings.into_values().collect();
        if self.dropped > 0 {
            out.push(ImportWarning {
                kind: WarningKind::Truncated,
                file: "(import)".to_string(),
                at: None,
                message: format!(
                    "{} further warnings were not kept (cap {MAX_WARNINGS})",
                    self.dropped
                ),
                more: 0,
                also: Vec::new(),
            });
        }
        out
    }
}

/// Collects examples of one assembly-level gap (e.g. bundles with no `BundleData`) and emits a single
/// warning with a count and the first few examples.
pub(crate) struct Tally {
    kind: WarningKind,
    what: &'static str,
    count: usize,
    examples: Vec<String>,
    first_file: Option<String>,
}

const TALLY_EXAMPLES: usize = 3;

impl Tally {
    pub(crate) fn new(kind: WarningKind, what: &'static str) -> Self {
        Self {
            kind,
            what,
            count: 0,
            examples: Vec::new(),
            first_file: None,
        }
    }

    pub(crate) fn add(&mut self, file: &str, example: impl FnOnce() -> String) {
        self.count += 1;
        if self.examples.len() < TALLY_EXAMPLES {
            self.examples.push(example());
        }
        if self.first_file.is_none() {
            self.first_file = Some(file.to_string());
        }
    }

    pub(crate) fn emit(self, diag: &mut Diag) {
        let Some(file) = self.first_file else {
            return;
        };
        let mut msg = format!("{} {}: {}", self.count, self.what, self.examples.join(", "));
        if self.count > self.examples.len() {
            msg.push_str(", …");
        }
        diag.warn(self.kind, &file, None, msg);
    }
}
