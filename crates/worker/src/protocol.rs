//! The messages between the dashboard and its workers: one JSON text per `postMessage`, tagged by
//! `type`. The worker answers `ready` once loaded. A `simulate` request gets `progress` (throttled)
//! and finally `done` or `failed`; cancelling is the page terminating the worker (a synchronous
//! simulation cannot read messages until it ends). A `plan` request gets `planned`, a `rebalance`
//! request `progress` then `proposed`, a `history` request `progress` then `explained`, an
//! `upgrade` request (in a job worker of its own, like `simulate`) `progress` then `upgraded`; the snapshot
//! travels with the first request that names it and stays in the worker for the next ones, unless
//! the worker imported it itself (`import` → `imported`, then `snapshot_part`s for the page). A
//! `planned` answer reaches the page as its rows in `plan_rows` parts, then the plan without them
//! ([`crate::plan_parts`]), so the page never decodes a large plan in one task.
//!
//! A snapshot travels as its file's JSON text inside a string ([`snapshot_text`]) and the worker
//! reads it with the importer's one snapshot reader (`import::read_snapshot`), as the CLI and the
//! dashboard's saved snapshots are read: not with the model types' own `Deserialize`, a second
//! reader whose messages and limits would differ.

use std::borrow::Cow;

use lbplan_core::config::Profile;
use lbplan_core::history::HistoryReport;
use lbplan_core::model::Snapshot;
use lbplan_core::plan::diff::PlanDiff;
use lbplan_core::plan::{DecisionDetail, DecisionRef, Explain, Plan, PlanRequest};
use lbplan_core::rebalance::{Limits, Proposal};
use lbplan_core::simulate::{Comparison, RunConfig, Scenario};
use lbplan_core::upgrade::UpgradePreview;
use lbplan_core::view::snapshot_chunks::SnapshotChunk;
use lbplan_core::view::timeline::Timeline;
use lbplan_core::watch::live::LiveView;
use serde::{Deserialize, Serialize};

/// Version of these messages; the page refuses a worker that reports another one (a stale cache).
/// 2: snapshots travel as JSON text ([`snapshot_text`]). 3: every snapshot is imported in the plan
/// worker (`import`, also host-given text and kept snapshots), which hands it to a simulation as
/// its file's bytes (`snapshot_file`); a `simulate` request carries a snapshot only for a
/// scenario's built-in cluster; and plans are plan format 4 (a skip's `scope`), which a page of
/// format 3 plans cannot read. 4: a `history` request's files travel beside it like an
/// `import`'s (names in the JSON, bytes as blobs), and an `import` may `restore` a snapshot the
/// page already shows into a new plan worker (no parts sent back). 5: a plan's rows travel in
/// `plan_rows` parts ahead of its `planned` message (`plan_parts`), which a page of format 4
/// cannot read. 6: a large snapshot's namespaces and the bundle lists of brokers with many bundles
/// travel in `lists_part` parts (`lists_apart`), without which a page of format 5 would show
/// those brokers and namespaces empty. 7: a `plan` request says its `explain` level (the dashboard
/// asks for `summary`: details left out) and an `explain` request answers one decision's detail
/// (`decision_explained`), which a page of format 6 would never ask for. 8: `plan`, `rebalance`
/// and `history` requests carry the calibration's `cpu_cost_factors` the dashboard loaded, which
/// a worker of format 7 would drop, predicting with the default model. 9: a `history` request may
/// carry the leader's log files (`leader_logs`) after the series' files, which a worker of format 8
/// would read as part of the series. 10: a `history` request may say its files are Prometheus
/// range results (`prometheus`), with a layout snapshot's bytes after them, which a worker of
/// format 9 would read as a series; an `upgrade` request runs the upgrade preview in a job worker
/// of its own (the snapshot's file beside it, `progress` then `upgraded`), which a worker of
/// format 9 cannot read; an `import` may be `live` (a host's `pushSnapshot`), answered with
/// `live_history` as well, which a worker of format 9 would import without. 11: a plan's
/// per-broker usage before and after (`brokers_before`, `brokers_after`) travels in its
/// `plan_rows` parts too, which a page of format 10 would show empty.
pub const WORKER_PROTOCOL_VERSION: u32 = 11;

/// The load model a request's predictions use: the per-broker CPU cost factors of the calibration
/// the page loaded (`lbplan history --calibrate`), none for the default model. Only the factors
/// travel (not the calibration's fits), so a plan request stays small.
pub type CpuCostFactors = indexmap::IndexMap<String, f64>;

/// The load model of `factors` (the default model when empty).
pub fn load_model(factors: &CpuCostFactors) -> lbplan_core::load::LoadModel {
    lbplan_core::load::LoadModel {
        cpu_factors: factors.clone(),
        ..lbplan_core::load::LoadModel::default()
    }
}

/// What the page asks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request<'a> {
    Simulate(Box<SimulateRequest<'a>>),
    Plan(Box<PlanJob<'a>>),
    Explain(Box<ExplainJob<'a>>),
    Rebalance(Box<RebalanceJob<'a>>),
    History(Box<HistoryJob>),
    Import(Box<ImportJob>),
    SnapshotFile(Box<SnapshotFileJob>),
    Upgrade(Box<UpgradeJob>),
}

/// The upgrade preview (`lbplan_core::upgrade::upgrade_preview`, what `lbplan upgrade` prints) of
/// the snapshot sent beside this JSON as its file's bytes (the plan worker's
/// [`Response::SnapshotFile`], transferred); answered with `progress` (each plan and simulated
/// cycle: `upgrade::upgrade_steps`) and then `upgraded`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UpgradeJob {
    pub format_version: u32,
    pub id: u32,
    /// Today's release (`lbplan upgrade --from`); `None`: the leader's.
    pub profile: Option<Profile>,
    /// The release to upgrade to (`--to`).
    pub to: Profile,
    /// Cycles simulated under each release (`--cycles`).
    pub cycles: u32,
}

/// The snapshot the worker holds as its file's bytes (what `lbplan import -o` writes), answered
/// with [`Response::SnapshotFile`] (the bytes in a transferred `ArrayBuffer`, beside the JSON):
/// how a simulation gets the snapshot without the page serialising it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotFileJob {
    pub format_version: u32,
    pub id: u32,
    pub snapshot_id: u64,
}

/// Uploaded files imported by core in the worker (`lbplan_core::import`, warnings and errors as in
/// every import); the worker keeps the snapshot as `snapshot_id` for the plans that follow (they
/// never carry it) and answers `imported`, then, when it succeeded, the snapshot in
/// `snapshot_part` messages (`view::snapshot_chunks`). The files' bytes travel beside this JSON
/// in the same message, as blobs or transferred buffers (`import_job`), never inside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportJob {
    pub format_version: u32,
    pub id: u32,
    pub snapshot_id: u64,
    /// `(name, found_in_a_tree)` of each file, in the order of the bytes sent along.
    pub files: Vec<(String, bool)>,
    /// Budget of one snapshot part in bytes; 0 for `snapshot_chunks::DEFAULT_CHUNK_BYTES`.
    #[serde(default)]
    pub chunk_bytes: usize,
    /// The one file is a snapshot the dashboard kept before every import moved to the worker
    /// (`{format_version, source, warnings, snapshot}`, `import_job::read_kept`), not an export.
    #[serde(default)]
    pub kept: bool,
    /// The page already shows this snapshot: a plan worker started after the last one died
    /// imports it again from the same files to hold it, and answers `imported` without the parts.
    #[serde(default)]
    pub restore: bool,
    /// The snapshot is the next of a stream (an embedding page's `pushSnapshot`): once imported
    /// it also joins the worker's live history (core's `watch::live`), answered with
    /// [`Response::LiveHistory`] after `imported`.
    #[serde(default)]
    pub live: bool,
}

/// One part of an imported snapshot, as the page reads it. The worker writes these messages
/// itself ([`Response::Part`]), so the part's JSON is written once, straight from the snapshot,
/// and the page decodes it in one pass (a struct, not the internally tagged [`Response`]).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SnapshotPart {
    pub id: u32,
    pub chunk: SnapshotChunk,
}

const PART_PREFIX: &str = "{\"type\":\"snapshot_part\",";

/// Some of the lists sent apart from the snapshot's parts, as the page reads them (`lists_apart`): written by the
/// worker ([`Response::ListsPart`]) and decoded in one pass, like [`SnapshotPart`].
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ListsMessage {
    pub id: u32,
    pub part: crate::lists_apart::ListsPart,
}

const LISTS_PREFIX: &str = "{\"type\":\"lists_part\",";

impl ListsMessage {
    /// The part in a `lists_part` message's UTF-8 bytes, or `None` when they are another message.
    pub fn read_bytes(bytes: &[u8]) -> Option<Result<ListsMessage, String>> {
        bytes.starts_with(LISTS_PREFIX.as_bytes()).then(|| {
            serde_json::from_slice(bytes).map_err(|e| format!("unreadable lists part: {e}"))
        })
    }
}

impl SnapshotPart {
    /// The part in a `snapshot_part` message, or `None` when `text` is another message.
    pub fn read(text: &str) -> Option<Result<SnapshotPart, String>> {
        Self::read_bytes(text.as_bytes())
    }

    /// [`Self::read`] of the message's UTF-8 bytes (parts travel as bytes:
    /// [`Response::travels_as_bytes`]).
    pub fn read_bytes(bytes: &[u8]) -> Option<Result<SnapshotPart, String>> {
        bytes.starts_with(PART_PREFIX.as_bytes()).then(|| {
            serde_json::from_slice(bytes).map_err(|e| format!("unreadable snapshot part: {e}"))
        })
    }
}

/// A recorded series explained (`lbplan_core::history::explain_files_observed`) and its timeline
/// built (`view::timeline`); answered with `progress` (snapshots read of total) and then
/// `explained`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryJob {
    pub format_version: u32,
    pub id: u32,
    /// The uploaded files' relative paths (a stored series' folder, one zip of it, or ordinary
    /// snapshot files), in the order of the bytes that travel beside this JSON in the same
    /// message (blobs, read in the worker), as an `import`'s do: never inside it.
    pub files: Vec<String>,
    #[serde(default)]
    pub profile: Option<Profile>,
    #[serde(default)]
    pub settings: Vec<(String, String)>,
    #[serde(default)]
    pub seed: u64,
    /// The model the history's check of predictions uses (`lbplan history --calibration`).
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub cpu_cost_factors: CpuCostFactors,
    /// The leader's log files (plain or gzip), whose bytes follow the series' files' (and the
    /// layout's) in the same message: merged with the explanation (`history::leader_log`).
    #[serde(default)]
    pub leader_logs: Vec<String>,
    /// `files` are Prometheus range results (`/api/v1/query_range` answers or
    /// `lbplan-prometheus-ranges` documents) rather than a series: `history::prometheus::upload`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prometheus: Option<PrometheusUpload>,
}

/// How uploaded Prometheus range results become a series (`lbplan history --prometheus`'s
/// `--layout`, `--broker-label`, `--broker-map`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrometheusUpload {
    /// The label naming the broker that exposed a series (`None`: `instance`).
    #[serde(default)]
    pub broker_label: Option<String>,
    /// Label value → brokerId.
    #[serde(default)]
    pub broker_map: std::collections::BTreeMap<String, String>,
    /// The layout snapshot's file name; its bytes follow the range results' in the message.
    #[serde(default)]
    pub layout: Option<String>,
}

/// What the History view draws: the report and the per-namespace timeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryView {
    pub report: HistoryReport,
    pub timeline: Timeline,
}

/// A rebalance proposal (`lbplan_core::rebalance::propose`) of the snapshot `snapshot_id`; answered
/// with `progress` (phases done of total) and then `proposed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RebalanceJob<'a> {
    pub format_version: u32,
    pub id: u32,
    pub snapshot_id: u64,
    #[serde(default, with = "snapshot_text::optional")]
    pub snapshot: Option<Cow<'a, Snapshot>>,
    pub profile: Option<Profile>,
    pub settings: Vec<(String, String)>,
    /// `max/mean<=1.15`, `std<=5%` or `max<=80%`.
    pub goal: String,
    pub limits: Limits,
    pub seed: u64,
    pub outlook_cycles: u32,
    /// A point picked on the trade-off curve: exactly this many of the search's moves.
    #[serde(default)]
    pub chosen_moves: Option<usize>,
    /// The model the search and the final plan predict with (`lbplan rebalance --calibration`).
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub cpu_cost_factors: CpuCostFactors,
}

/// One plan (`lbplan_core::plan::make_plan`) of the snapshot `snapshot_id`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanJob<'a> {
    pub format_version: u32,
    pub id: u32,
    /// Which loaded snapshot (the page numbers them); the worker keeps the last one it was sent.
    pub snapshot_id: u64,
    /// The snapshot itself, when the worker does not have `snapshot_id` yet.
    #[serde(default, with = "snapshot_text::optional")]
    pub snapshot: Option<Cow<'a, Snapshot>>,
    pub profile: Option<Profile>,
    pub settings: Vec<(String, String)>,
    /// Operations in their text form (`Operation::to_string`).
    pub operations: Vec<String>,
    pub seed: u64,
    pub leader_cycle: bool,
    pub outlook_cycles: u32,
    /// Also answer what the operations change against the plan without them (`plan::diff`); the
    /// worker keeps that baseline plan between edits.
    #[serde(default)]
    pub diff_baseline: bool,
    /// How much of each decision's explanation the plan carries (`full` when absent).
    #[serde(default)]
    pub explain: Explain,
    /// The model the plan predicts with (`lbplan plan --calibration`); empty: the default.
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub cpu_cost_factors: CpuCostFactors,
}

/// One decision's full detail (`plan::explain_decision`) in the plan `plan` asks for, on the kept
/// engine: what the dashboard's detail pane asks for when its "placement pipeline" is opened on a
/// plan made at `explain: summary`. Answered with `decision_explained`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExplainJob<'a> {
    pub format_version: u32,
    pub id: u32,
    pub decision: DecisionRef,
    /// The plan's request, as it was sent (its own `id` and `explain` are not read).
    pub plan: PlanJob<'a>,
}

/// Runs `configs` side by side on `snapshot` under `scenario` (`lbplan_core::simulate::compare`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulateRequest<'a> {
    pub format_version: u32,
    /// Echoed in every answer, so answers to an older request can be told apart.
    pub id: u32,
    /// The snapshot, when it is not the file sent beside this JSON: the loaded snapshot comes as
    /// the bytes the plan worker wrote ([`Response::SnapshotFile`]), never inside the request.
    #[serde(default, with = "snapshot_text::optional")]
    pub snapshot: Option<Cow<'a, Snapshot>>,
    pub scenario: Scenario,
    /// An empty list runs the snapshot's own configuration.
    pub configs: Vec<RunConfig>,
    pub cycles: u32,
    pub seed: u64,
    pub record_broker_usage: bool,
    pub record_ownership: bool,
}

impl<'a> PlanJob<'a> {
    /// Job `id` for `request` on loaded snapshot `snapshot_id`; `snapshot` when the worker does not
    /// hold it yet.
    pub fn new(
        id: u32,
        snapshot_id: u64,
        snapshot: Option<&'a Snapshot>,
        request: &PlanRequest,
    ) -> Self {
        Self {
            format_version: WORKER_PROTOCOL_VERSION,
            id,
            snapshot_id,
            snapshot: snapshot.map(Cow::Borrowed),
            profile: request.profile,
            settings: request.settings.clone(),
            operations: request.operations.iter().map(ToString::to_string).collect(),
            seed: request.seed,
            leader_cycle: request.leader_cycle,
            outlook_cycles: request.outlook_cycles,
            diff_baseline: false,
            explain: request.explain,
            cpu_cost_factors: CpuCostFactors::new(),
        }
    }

    /// The same job, predicting with a calibration's factors (empty: the default model).
    #[must_use]
    pub fn with_cpu_cost_factors(mut self, factors: CpuCostFactors) -> Self {
        self.cpu_cost_factors = factors;
        self
    }

    /// The same job, asking for the difference from the plan without operations.
    #[must_use]
    pub fn with_diff_baseline(mut self, on: bool) -> Self {
        self.diff_baseline = on;
        self
    }
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Response {
    /// The worker's wasm is loaded and listening.
    Ready {
        format_version: u32,
    },
    /// `done` of `total` cycles (over all configurations) have run.
    Progress {
        id: u32,
        done: u32,
        total: u32,
    },
    Done {
        id: u32,
        comparison: Comparison,
    },
    /// A plan, or why the planner refused the request (as `make_plan`'s error reads).
    Planned {
        id: u32,
        result: Result<Box<Plan>, String>,
        /// What the operations change against the plan without them, when asked and there are some.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<Box<PlanDiff>>,
    },
    /// One decision's detail (`None`: the plan has no such decision), or why the plan was refused.
    DecisionExplained {
        id: u32,
        result: Result<Option<Box<DecisionDetail>>, String>,
    },
    /// A rebalance proposal, or why it could not be made.
    Proposed {
        id: u32,
        result: Result<Box<Proposal>, String>,
    },
    /// An upgrade preview (`UpgradePreview`, as `lbplan upgrade --format json` writes it), or why
    /// it could not be made.
    Upgraded {
        id: u32,
        result: Result<Box<UpgradePreview>, String>,
    },
    /// A series explained, or why it could not be read.
    Explained {
        id: u32,
        result: Result<Box<HistoryView>, String>,
    },
    /// The live history after a `live` import's snapshot joined it (or why it did not).
    LiveHistory {
        id: u32,
        result: Result<Box<LiveView>, String>,
    },
    /// The request could not run (a bad message, a bad setting in a configuration).
    Failed {
        id: u32,
        message: String,
    },
    /// An import's outcome: the import warnings (file, JSON path, message), or why it failed.
    Imported {
        id: u32,
        snapshot_id: u64,
        result: Result<Vec<String>, String>,
    },
    /// One part of the imported snapshot: `json` is a `snapshot_chunks::SnapshotChunk`, written
    /// straight into the message by [`Response::to_json`]; the page reads it as [`SnapshotPart`].
    #[serde(skip)]
    Part {
        id: u32,
        json: String,
    },
    /// Some of the snapshot's namespaces or of a broker's bundle lists (`lists_apart::ListsPart`,
    /// `json`), sent between the snapshot's head and its broker parts; the page reads it as
    /// [`ListsMessage`].
    #[serde(skip)]
    ListsPart {
        id: u32,
        json: String,
    },
    /// The held snapshot's file ([`SnapshotFileJob`]): posted as `{type: "snapshot_file", id,
    /// snapshot_id, bytes}` with `bytes` an `ArrayBuffer` in the transfer list (never JSON).
    #[serde(skip)]
    SnapshotFile {
        id: u32,
        snapshot_id: u64,
        bytes: Vec<u8>,
    },
}

/// The `type` of a [`Response::SnapshotFile`] message.
pub const SNAPSHOT_FILE_TYPE: &str = "snapshot_file";

impl Response {
    /// The answers that grow with the snapshot (its parts, plans, proposals) go to the page as
    /// their JSON's UTF-8 bytes in a transferred `ArrayBuffer`, not as a string: a string is
    /// decoded into the JavaScript heap in the worker and encoded again on the page (at 200,000
    /// bundles ≈ 0.5 s of the page's time over the parts, and the garbage collections it caused
    /// made long tasks).
    pub fn travels_as_bytes(&self) -> bool {
        matches!(
            self,
            Response::Part { .. }
                | Response::ListsPart { .. }
                | Response::Planned { .. }
                | Response::Proposed { .. }
                | Response::LiveHistory { .. }
        )
    }

    pub fn to_json(&self) -> String {
        match self {
            Response::Part { id, json } => {
                return format!("{PART_PREFIX}\"id\":{id},\"chunk\":{json}}}");
            }
            Response::ListsPart { id, json } => {
                return format!("{LISTS_PREFIX}\"id\":{id},\"part\":{json}}}");
            }
            // Its bytes travel beside the message (`start`); as text only its header.
            Response::SnapshotFile {
                id, snapshot_id, ..
            } => {
                return format!(
                    "{{\"type\":\"{SNAPSHOT_FILE_TYPE}\",\"id\":{id},\"snapshot_id\":{snapshot_id}}}"
                );
            }
            _ => {}
        }
        // A `Response` holds only strings, numbers and maps with string keys: it always serialises.
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(r#"{{"type":"failed","id":0,"message":"cannot encode the answer: {e}"}}"#)
        })
    }
}

/// A snapshot on the wire: the text of its snapshot file (what `lbplan import -o` writes) as a JSON
/// string, read back with `import::read_snapshot`. A string, not a nested object, because requests
/// are tagged by `type`: serde buffers a tagged message before reading its fields, so a nested
/// object could only reach a reader as a generic tree, never as the text the importer reads.
pub mod snapshot_text {
    use std::borrow::Cow;

    use lbplan_core::import::read_snapshot;
    use lbplan_core::model::Snapshot;
    use serde::de::Error as _;
    use serde::ser::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    /// What the importer's messages call the file.
    const NAME: &str = "the request's snapshot";

    pub fn serialize<S: Serializer>(snapshot: &Snapshot, s: S) -> Result<S::Ok, S::Error> {
        let text = serde_json::to_string(snapshot).map_err(S::Error::custom)?;
        s.serialize_str(&text)
    }

    /// The importer's warnings are not repeated: the page wrote this text from the snapshot it
    /// holds, whose own import already showed them.
    pub fn deserialize<'de, 'a, D: Deserializer<'de>>(d: D) -> Result<Cow<'a, Snapshot>, D::Error> {
        let text = String::deserialize(d)?;
        read_snapshot(NAME, &text)
            .map(|imported| Cow::Owned(imported.snapshot))
            .map_err(D::Error::custom)
    }

    /// The same for an optional snapshot (`null` or missing: none sent).
    pub mod optional {
        use super::*;

        pub fn serialize<S: Serializer>(
            snapshot: &Option<Cow<'_, Snapshot>>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match snapshot {
                Some(snapshot) => super::serialize(snapshot, s),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, 'a, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<Cow<'a, Snapshot>>, D::Error> {
            match Option::<String>::deserialize(d)? {
                Some(text) => read_snapshot(NAME, &text)
                    .map(|imported| Some(Cow::Owned(imported.snapshot)))
                    .map_err(D::Error::custom),
                None => Ok(None),
            }
        }
    }
}
