//! TypeScript declarations of the API's option and result objects, appended to the `.d.ts` that
//! wasm-bindgen generates; the exports name them through `typescript_type` (see `lib.rs`).

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** A planner snapshot (`format_version` 1): see docs/snapshot-format.md. Pulsar's own objects keep
 *  Pulsar's field names. */
export interface Snapshot {
  format_version: number;
  cluster?: string;
  captured_at_ms?: number;
  leader_broker?: string;
  broker_conf?: Record<string, string>;
  brokers: Record<string, BrokerSnapshot>;
  bundle_data?: Record<string, unknown>;
  namespaces?: Record<string, { bundles: BundlesData; anti_affinity_group?: string }>;
  failure_domains?: Record<string, string[]>;
  namespace_isolation_policies?: Record<string, unknown>;
  recently_unloaded_bundles?: Record<string, number>;
}

/** One broker of a snapshot: its `LocalBrokerData` and optional leader / extensible data. */
export interface BrokerSnapshot {
  local_broker_data: Record<string, unknown>;
  time_average_broker_data?: Record<string, unknown>;
  broker_load_data?: Record<string, unknown>;
  top_bundles_load_data?: Record<string, unknown>;
}

/** `pulsar-admin namespaces bundles` output. */
export interface BundlesData {
  boundaries: string[];
  numBundles?: number;
}

/** One input of `importFiles`: a path or file name (used for detection and in messages) and its
 *  bytes (a `Uint8Array`; an `ArrayBuffer` or a string of text are accepted too). Archives
 *  (`.zip`, `.tar.gz`, `.tar`) are expanded. */
export interface InputFile {
  name: string;
  bytes: Uint8Array | ArrayBuffer | string;
}

/** Something import worked around; `at` is a JSON path or a line when known. */
export interface ImportWarning {
  kind: string;
  file: string;
  at?: string;
  message: string;
  /** Further places that produced the same warning. */
  more?: number;
  /** The other files among `more`: all of them for skipped files, the first 100 otherwise. */
  also?: string[];
}

export interface ImportResult {
  snapshot: Snapshot;
  warnings: ImportWarning[];
}

/** A Pulsar release (`4.0.7`, `5.0.0-M2`), a line (`3.x`, `4.x`, `4.1`, `4.2`, `5.0`: its newest
 * known patch) or `master-90cba329`. */
export type Profile = string;

/** Options of `plan()` (and `simulate()`); every field is optional. */
export interface PlanOptions {
  /** Default: from the brokers' `brokerVersionString`. */
  profile?: Profile;
  /** `broker.conf` overrides, applied after the snapshot's own values. */
  settings?: Record<string, string | number | boolean>;
  /** Manual what-if operations in their text form: `unload-namespace=T/NS`,
   *  `unload-bundle=T/NS/0x…_0x…[->HOST:PORT]`, `unload-topic=TOPIC`,
   *  `split-bundle=T/NS/0x…_0x…[:ALGORITHM[:P1,P2]]`, `add-broker=HOST:PORT[~LIKE]`,
   *  `remove-broker=HOST:PORT`, `set=KEY=VALUE`. */
  operations?: string[];
  /** Seed of the random picks among equally good brokers (a safe integer; default 0). */
  seed?: number;
  /** Run the leader's shedding cycle after the operations (default true). */
  leaderCycle?: boolean;
  /** Extra cycles to look ahead when the first cycle unloads nothing (default 10). */
  outlookCycles?: number;
  /** `"full"` (default): every decision's `detail`. `"summary"`: `reason` and `reason_text` as
   *  full gives them, every `detail` `null` and the plan's `explained` saying so — faster on large
   *  clusters; ask for one decision's detail with `explainDecision`. */
  explain?: Explain;
  /** Predict with a calibration (the object `lbplan history --calibrate` writes): per-broker CPU
   *  cost factors fitted from a recorded series. Default: every broker at factor 1. */
  calibration?: Calibration;
}

/** What `lbplan history --calibrate` writes (`format_version` 1): each broker's CPU cost relative to
 *  the median broker (2.0: twice the cores for the same traffic), with the fitted lines. */
export interface Calibration {
  format_version: number;
  cpu_cost_factors: Record<string, number>;
  fits: { broker: string; samples: number; cores_per_mb_per_sec: number; idle_cores: number;
    r_squared: number }[];
  not_fitted?: Record<string, string>;
}

/** How much of each decision's explanation a plan carries (`PlanOptions.explain`). */
export type Explain = "full" | "summary";

/** One decision of a plan, for `explainDecision`: the first unload of `bundle` in `unloads`, the
 *  outlook's unload of it (`outlook.unloads_then`), or its split. */
export interface DecisionRef {
  kind: "unload" | "outlook_unload" | "split";
  bundle: string;
}

/** In a plan made below `explain: "full"`: what it left out and how to get it. */
export interface Explained {
  level: Explain;
  left_out: string;
}

export interface PlannedUnload {
  bundle: string;
  from: string;
  to: string | null;
  pass_destination: boolean;
  /** What decided: a stable snake_case `kind` and its numbers (docs/plan-model.md). */
  reason: DecisionReason;
  /** One line an operator can read. */
  reason_text: string;
  /** The strategy's full record; `null` in a plan made at `explain: "summary"` (see `explained`)
   *  and in a plan read back for an apply. */
  detail: UnloadDetail | null;
  bytes_per_sec: number;
  msg_per_sec: number;
  /** `shedding`, `manual` or `remove-broker`. */
  origin: string;
}

export interface PlannedSplit {
  bundle: string;
  broker: string;
  algorithm: string;
  boundaries: number[];
  new_bundles: string[];
  reason: DecisionReason;
  reason_text: string;
  /** The limits exceeded, or the manual operation; `null` in a plan made at
   *  `explain: "summary"` and in a plan read back for an apply. */
  detail: SplitDetail | null;
  permanent: boolean;
  origin: string;
}

/** What an unload's `detail` holds, told apart by its keys (docs/plan-model.md §3a): the leader's
 * shedding (the rule's numbers and the placement pipeline's record), an operation placed by the
 * strategy, an operation that named its destination, TransferShedder's `UnloadDecision`, or a
 * rebalance step (its reason again). */
export type UnloadDetail =
  | { shedding: { strategy: string; [field: string]: unknown }; placement: PlacementOutcome }
  | { operation: "manual unload" | "namespace unload" | "its broker was removed"; placement: PlacementOutcome }
  | { operation: string }
  | { sourceBroker: string; serviceUnit: string; destBroker: string | null; label: "Success"; reason: "Overloaded" | "Underloaded" }
  | DecisionReason;

/** The placement pipeline's answer for one bundle: the chosen broker, the strategy's choice with
 * its score and runner-up, and each pipeline stage's candidates. */
export interface PlacementOutcome {
  bundle: string;
  broker: string | null;
  choice: unknown;
  strategy: string;
  stages: { stage: string; remaining: string[]; removed: string[]; note: string | null }[];
  overloaded_first_choice: unknown;
  from_preallocation: boolean;
}

/** What a split's `detail` holds: `BundleSplitterTask`'s limits exceeded, or the manual operation. */
export type SplitDetail = { triggers: string[] } | { operation: string };

/** A decision not carried out (plan `format_version` 4): `scope` says what it is about, and only
 * the names that scope has are present. */
export type SkippedDecision =
  | { scope: "cycle"; why: string; reason: DecisionReason }
  | { scope: "broker"; broker: string; why: string; reason: DecisionReason }
  | { scope: "bundle"; bundle: string; broker: string; why: string; reason: DecisionReason };

/** A decision's machine-readable reason: `kind` (e.g. `placement_chose_current_owner`,
 * `recently_unloaded`, `isolation`) and the numbers that rule compared, flattened. */
export interface DecisionReason {
  kind: string;
  [number: string]: unknown;
}

export interface BrokerLoadView {
  broker: string;
  cpu_pct: number;
  memory_pct: number;
  direct_memory_pct: number;
  bandwidth_in_pct: number;
  bandwidth_out_pct: number;
  weighted_max_usage_fraction: number;
  msg_rate_in: number;
  msg_rate_out: number;
  msg_throughput_in_bytes_per_sec: number;
  msg_throughput_out_bytes_per_sec: number;
  bundle_count: number;
  topic_count: number;
}

export interface BalanceSummary {
  broker_count: number;
  max_usage_fraction: number;
  mean_usage_fraction: number;
  max_over_mean: number;
  std_usage_fraction: number;
  min_bundle_count: number;
  max_bundle_count: number;
}

export interface Outlook {
  cycles_examined: number;
  acts_at_cycle: number | null;
  unloads_then: PlannedUnload[];
  summary: string;
}

/** `better`, `worse`, `mixed` (some measures improve, others worsen) or `no-change`. */
export type Outcome = "better" | "worse" | "mixed" | "no-change";

export interface MetricChange {
  /** `max_usage_fraction`, `max_over_mean` or `std_usage_fraction`. */
  metric: string;
  before: number;
  after: number;
  change: "better" | "worse" | "no-change";
}

export interface BrokerOverLimit {
  broker: string;
  /** `null`: the broker was added by the plan. */
  before_fraction: number | null;
  after_fraction: number;
  /** Over the limit after the plan and not before. */
  new: boolean;
}

export type Pattern =
  | { kind: "converging-destination"; destination: string; unloads: number; of_unloads: number;
      before_fraction: number; after_fraction: number }
  | { kind: "shed-again"; broker: string; received: number; shed: number; at_cycle: number };

/** One `broker.conf` setting changed, the plan made again (same snapshot, operations, seed). */
export interface Alternative {
  key: string;
  value: string;
  outcome: Outcome;
  max_usage_after_fraction: number;
  max_over_mean_after: number;
  avoids_worse: boolean;
}

/** Whether the plan leaves the cluster better or worse balanced. A `worse` plan's exported script
 *  refuses to apply unless run with `--i-know` (or exported with `{iKnow: true}`). */
export interface Verdict {
  outcome: Outcome;
  headline: string;
  /** Why the outcome is `worse` (empty otherwise). */
  reasons: string[];
  metrics: MetricChange[];
  /** `loadBalancerBrokerOverloadedThresholdPercentage` / 100. */
  overloaded_threshold_fraction: number;
  overloaded: BrokerOverLimit[];
  above_capacity: BrokerOverLimit[];
  patterns: Pattern[];
  /** For a `worse` plan: the settings tried by re-planning; one with `avoids_worse` is the fix. */
  alternatives: Alternative[];
}

/** The plan document (`format_version` 5), as `lbplan plan --format json` writes it. */
export interface Plan {
  format_version: number;
  snapshot_fingerprint: string;
  /** The snapshot's cluster name, when it says. */
  cluster: string | null;
  /** When the snapshot was captured (ms since the epoch), when known: an apply refuses a plan
   *  older than its limit without an acknowledgement. */
  snapshot_captured_at_ms: number | null;
  profile: string;
  /** The calibration's CPU cost factors the predictions used (absent with the default model). */
  cpu_cost_factors?: Record<string, number>;
  /** `modular` or `extensible`. */
  load_manager: string;
  shedding_strategy: string;
  placement_strategy: string;
  seed: number;
  verdict: Verdict;
  settings: [string, string][];
  operations: string[];
  splits: PlannedSplit[];
  unloads: PlannedUnload[];
  topic_unloads: string[];
  skipped: SkippedDecision[];
  brokers_before: BrokerLoadView[];
  brokers_after: BrokerLoadView[];
  balance_before: BalanceSummary;
  balance_after: BalanceSummary;
  outlook?: Outlook;
  warnings: string[];
  /** Only in a plan made below `explain: "full"`: its details were left out. */
  explained?: Explained;
}

/** A configuration of `simulate()`: `name=N;profile=P;KEY=VALUE;…` text or an object. */
export type RunConfigInput = string | {
  name?: string;
  profile?: Profile;
  settings?: Record<string, string | number | boolean>;
};

/** Options of `simulate()`; every field is optional. */
export interface SimulateOptions {
  /** A built-in scenario (steady, daily-wave, hot-spike, broker-crash, rolling-restart, pr-16059)
   *  or a scenario object (docs/simulation.md). Default: steady. */
  scenario?: string | Record<string, unknown>;
  /** Default: the scenario's, else 100. */
  cycles?: number;
  /** Seed of the load noise and of the random picks (a safe integer; default 0). */
  seed?: number;
  /** Configurations to compare side by side. Default: the scenario's list, else the snapshot's own. */
  compare?: RunConfigInput[];
  /** `broker.conf` overrides applied to every configuration. */
  settings?: Record<string, string | number | boolean>;
  /** Profile of every configuration that names none. */
  profile?: Profile;
  /** Keep every broker's usage at every cycle (`broker_usage_fraction`). */
  recordBrokerUsage?: boolean;
  /** Keep each cycle's ownership changes (`cycles[i].ownership`), to replay the bundle map. */
  recordOwnership?: boolean;
  /** Run the brokers at a calibration's speeds (a scenario's own `cpu_cost_factors` win). */
  calibration?: Calibration;
}

export interface CycleMetrics {
  cycle: number;
  minute: number;
  brokers: number;
  max_usage_fraction: number;
  mean_usage_fraction: number;
  max_over_mean: number;
  std_usage_fraction: number;
  bundles_unloaded: number;
  bytes_moved_per_sec: number;
  /** `bytes_moved_per_sec` × the cycle's duration. */
  bytes_moved: number;
  /** Live brokers over 100 % of a resource's limit (the model does not saturate). */
  brokers_over_capacity: number;
  thrashing: number;
  unloads_from_recent_destinations: number;
  splits: number;
  bundles_reassigned: number;
  events?: string[];
  broker_usage_fraction?: Record<string, number>;
  ownership?: OwnershipChange[];
  /** The cycle's unloads and splits with their reasons, in order (with `recordOwnership`). */
  decisions?: CycleDecision[];
}

/** One ownership or layout change of a cycle, in order (with `recordOwnership`). */
export type OwnershipChange =
  | { change: "owner"; bundle: string; broker: string | null }
  | { change: "split"; bundle: string; cut_points: number[] };

/** An unload or split the leader decided in a cycle, and why (the plan's wording). */
export interface CycleDecision {
  kind: "unload" | "split";
  bundle: string;
  from: string;
  to?: string;
  reason: string;
}

export interface RunSummary {
  cycles_run: number;
  balanced_std_fraction: number;
  balanced_consecutive_cycles: number;
  thrashing_window_cycles: number;
  balanced_at_cycle: number | null;
  balanced_after_minutes: number | null;
  balanced_at_end: boolean;
  total_unloads: number;
  total_bytes_moved: number;
  total_thrashing: number;
  total_unloads_from_recent_destinations: number;
  total_splits: number;
  total_reassigned: number;
  cycles_with_unloads: number;
  last_unload_cycle: number | null;
  peak_max_usage_fraction: number;
  final_max_usage_fraction: number;
  final_max_over_mean: number;
  final_std_usage_fraction: number;
  /** Cycles with a broker over capacity: usage above 100 % is unserved demand. */
  cycles_over_capacity: number;
  first_cycle_over_capacity: number | null;
}

export interface SimulationRun {
  config: { name: string; profile?: Profile; settings: [string, string][]; from_defaults?: boolean };
  profile: string;
  shedding_strategy: string;
  placement_strategy: string;
  warnings: string[];
  cancelled: boolean;
  summary: RunSummary;
  cycles: CycleMetrics[];
}

/** What `simulate()` returns (`format_version` 2, as `lbplan simulate --format json`). */
/** Options of `explainHistory()`: the replayed leader's profile (default: detected), `broker.conf`
 *  overrides and seed, and the leader's log. */
export interface HistoryOptions {
  profile?: Profile;
  settings?: Record<string, string | number | boolean>;
  seed?: number;
  /** Check the load model with a calibration's factors instead of the default model. */
  calibration?: Calibration;
  /** The leader broker's log files' text (one string per file), merged with the changes: the
   *  report's `leader_log` (docs/history.md, "From the leader's log"). */
  leaderLog?: string[];
  /** Log and series times closer than this agree (ms, default 10000). */
  clockToleranceMs?: number;
}

/** Options of `new LiveHistory()`: `explainHistory()`'s, and the window of snapshots kept
 *  (default six hours, at least two). */
export interface LiveHistoryOptions extends HistoryOptions {
  windowMs?: number;
}

/** Options of `explainHistoryFromPrometheus()`: `explainHistory()`'s, plus the layout snapshot
 *  (namespaces' boundaries, broker.conf, limits, the leader's BundleData at the start), the label
 *  naming the broker that exposed a series (default `instance`) and label value → brokerId pairs. */
export interface PrometheusHistoryOptions extends HistoryOptions {
  layout?: Snapshot;
  brokerLabel?: string;
  brokerMap?: Record<string, string>;
}

/** A file bundling several `/api/v1/query_range` answers for `explainHistoryFromPrometheus()`. */
export interface PrometheusRanges {
  format_version: 1;
  kind: "lbplan-prometheus-ranges";
  /** The step of the queries (default: the smallest gap between two sample times). */
  step_ms?: number;
  results: { metric: string; response: unknown }[];
}

/** One change between consecutive snapshots of a series (`kind` says which fields are set). */
export interface HistoryChange {
  kind: "moved" | "split" | "assigned" | "unassigned" | "broker_joined" | "broker_left"
    | "namespace_created" | "namespace_deleted";
  bundle?: string;
  from?: string;
  to?: string;
  parent?: string;
  children?: string[];
  owner?: string | null;
  broker?: string;
  bundles?: number;
  namespace?: string;
}

/** Why a change happened (`cause` says which fields are set). */
export interface HistoryCause {
  cause: "leader_shedding" | "automatic_split" | "broker_left" | "namespace_created" | "observed"
    | "unexplained";
  predicted_to?: string;
  destination_agrees?: boolean;
  reason?: string;
  broker?: string;
  namespace?: string;
  why?: string;
}

/** `explainHistory()`'s result (`format_version` 4): see docs/history.md. */
export interface HistoryReport {
  format_version: number;
  shedding_strategy: string;
  placement_strategy: string;
  times_ms: number[];
  summary: {
    snapshots: number; duration_ms: number; moves_seen: number; moves_predicted: number;
    destination_agreements: number; moves_by_broker_left: number; splits_seen: number;
    splits_predicted: number; broker_joins: number; broker_leaves: number;
    namespaces_created: number; namespaces_deleted: number; unexplained: number;
    predicted_not_seen: number; unloads_per_hour: number; bundles_moved_more_than_once: number;
    ping_pong_within_grace: number; grace_period_ms: number; ping_pong_within_hour: number;
    bytes_moved: number; time_without_balance_ms: number; balanced_std_fraction: number;
  };
  changes: { step: number; from_ms: number; at_ms: number; change: HistoryChange;
    cause: HistoryCause; throughput_bytes_per_sec: number }[];
  predicted_not_seen: { step: number; at_ms: number; bundle: string; from: string; to: string;
    reason: string }[];
  broker_load: Record<string, (number | null)[]>;
  /** The one load model checked on every move: predicted source/destination usage vs the next snapshot. */
  load_model: { moves: number; steps_with_moves: number;
    resources: { resource: string; predictions: number; mean_abs_error_points: number;
      p90_abs_error_points: number; within_3_points_fraction: number; mean_error_points: number }[] };
  /** What the leader did, answered (format 3): per broker, every ping-pong, bursts and their likely trigger. */
  answers: {
    brokers: { broker: string; bundles_in: number; bundles_out: number; out_by_leader: number;
      bytes_in_per_sec: number; bytes_out_per_sec: number }[];
    ping_pong: { bundle: string; brokers: string[]; left_at_ms: number; back_at_ms: number;
      step: number; within_grace: boolean }[];
    bursts: { step: number; from_ms: number; at_ms: number; moves: number; usual_moves: number;
      trigger: string }[];
  };
  /** What the series was built from (format 4): a recorded series is replayed from the leader's
   *  own data; one from Prometheus has derived numbers and causes "consistent with the leader". */
  basis: { source: "recorded_series" | "prometheus";
    attribution: "replayed" | "consistent_with_leader"; derived: string[];
    broker_mapping?: string; boundaries?: string;
    bundle_source?: "bundle_metrics" | "topic_metrics" | "none"; steps_queried: number;
    gaps: { at_ms: number; broker: string; missing: string[] }[];
    leader_unloads_counted?: number; leader_splits_counted?: number };
  /** The leader's log merged with the changes (format 4; only when `leaderLog` was given). */
  leader_log?: HistoryLeaderLog;
  warnings: string[];
}

/** One unload or split read from the leader's log. */
export interface LoggedAction {
  kind: "unload" | "split"; at_ms: number; bundle: string; from: string; to: string | null;
  strategy: string; words: string | null; unloading: boolean | null; failed: boolean;
  file: string; line: number;
}

/** A logged action matched to a change (`change` indexes `changes`). */
export interface MatchedLogAction {
  change: number; step: number; from_ms: number; at_ms: number; cause: string;
  destination_as_logged: boolean | null; action: LoggedAction;
}

/** `HistoryReport.leader_log`: see docs/history.md, "From the leader's log". */
export interface HistoryLeaderLog {
  files: { file: string; lines: number; actions: number; leader: string | null;
    first_ms: number | null; last_ms: number | null; skipped: Record<string, number> }[];
  actions: number;
  failed: number;
  clock: { matched: number; offset_ms: number; tolerance_ms: number; disagrees: boolean };
  confirmed: MatchedLogAction[];
  not_predicted: MatchedLogAction[];
  no_change: { note: string; predicted: boolean; action: LoggedAction }[];
  not_logged: { change: number; step: number; from_ms: number; at_ms: number;
    kind: "unload" | "split"; bundle: string; from: string }[];
  predictions_outside_log: number;
}

export interface Comparison {
  format_version: number;
  scenario: string;
  snapshot_fingerprint: string;
  seed: number;
  cycles: number;
  runs: SimulationRun[];
  /** Pairs of `runs` indices whose every cycle measured the same. */
  identical_runs?: [number, number][];
}

export type ExportFormat = "pulsar-admin" | "curl" | "json";

export interface ExportOptions {
  /** Pause automatic shedding (`loadBalancerSheddingEnabled=false`) while the script runs; the
   *  previous value is restored on every exit. */
  pauseAutomaticShedding?: boolean;
  /** The operator acknowledges a `worse` verdict: the script applies without asking for `--i-know`. */
  iKnow?: boolean;
}

export interface VerifyOptions {
  /** When the apply's first call was sent (ms since the epoch): a broker the plan touched whose
   *  load report (`lastUpdate`) is older has not reported since the apply. Default: the plan's
   *  snapshot time. */
  appliedAtMs?: number;
  /** Each bundle's owner read live after the apply (`ownedNamespaces`), `{bundle: broker}`. */
  liveOwners?: Record<string, string>;
}

/** `verifyPlan`'s report (core's `plan::verify::Verification`, `format_version` 2). */
export interface Verification {
  format_version: number;
  cluster: string | null;
  plan_snapshot_fingerprint: string;
  plan_snapshot_captured_at_ms: number | null;
  after_snapshot_fingerprint: string;
  after_snapshot_captured_at_ms: number | null;
  tolerance_fraction: number;
  applied_at_ms: number | null;
  owners_read_live: boolean;
  report_update_max_interval_minutes: number;
  report_update_threshold_percentage: number;
  bundles: {
    bundle: string; kind: "unload" | "split"; from: string; predicted: string | null; found: string | null;
    status: "as_predicted" | "moved" | "on_source" | "elsewhere" | "not_found" | "split" | "not_split";
  }[];
  brokers: {
    broker: string; before: number | null; predicted: number | null; actual: number | null;
    difference: number | null; within_tolerance: boolean; reported_at_ms: number | null;
    not_yet_reported: boolean;
  }[];
  moved_back: number;
  not_yet_reported: number;
  as_predicted: boolean;
  complete: boolean;
  summary: string;
}

/** A namespace's bundle layout for `hashTopic`: a bundle count (Pulsar's default partition),
 *  a list of boundaries (`"0x40000000"` or numbers), or a `BundlesData` object. */
export type BundleLayout = number | Array<string | number> | BundlesData;

export interface TopicHash {
  /** The complete name that is hashed (`persistent://public/default/my-topic`). */
  topic: string;
  /** Unsigned CRC-32 of the complete name. */
  hash: number;
  /** `hash` as `0x%08x`. */
  hashHex: string;
  /** The bundle's range, `0x%08x_0x%08x`. */
  bundle: string;
  /** `tenant/namespace/range`. */
  bundleName: string;
  bundleIndex: number;
}

/** Options of `rebalance()`; every field optional. */
export interface RebalanceOptions {
  /** `max/mean<=1.15` (default), `std<=5%` or `max<=80%`. */
  goal?: string;
  maxMoves?: number;
  maxMovesPerBroker?: number;
  /** Brokers to empty before maintenance (heartbeat and SLA namespaces stay). */
  drain?: string[];
  /** A point picked on the trade-off curve: exactly this many of the search's moves. */
  chosenMoves?: number;
  profile?: Profile;
  settings?: Record<string, string | number | boolean>;
  seed?: number;
  /** Leader cycles looked at after the first when checking whether Pulsar would undo it (10). */
  outlookCycles?: number;
  /** Predict with a calibration (the object `lbplan history --calibrate` writes): per-broker CPU
   *  cost factors fitted from a recorded series. Default: every broker at factor 1. */
  calibration?: Calibration;
}

/** One move the search found, with the two brokers' usage (fractions) around it. */
export interface RebalanceStep {
  kind: "drain" | "balance";
  bundle: string;
  from: string;
  to: string;
  bytes_per_sec: number;
  from_usage_before: number;
  from_usage_after: number;
  to_usage_before: number;
  to_usage_after: number;
  balance_after: BalanceSummary;
}

/** The balance after the first `moves` moves. */
export interface CurvePoint {
  moves: number;
  bytes_moved_per_sec: number;
  max_over_mean: number;
  std_usage_fraction: number;
  max_usage_fraction: number;
  meets_goal: boolean;
  /** Why this step raises max/mean, when it does (a drain's forced move, the mean falling). */
  rises_because?: string;
}

/** Whether the configured leader moves anything after a proposal (same load). */
export interface StickCheck {
  moves: number;
  fixed_point: boolean;
  cycles_examined: number;
  acts_at_cycle: number | null;
  would_move: PlannedUnload[];
  undoes_proposal_moves: number;
  shedding_strategy: string;
}

/** What `rebalance()` returns (`format_version` 1); `plan` is an ordinary plan. */
/** A broker to drain after the chosen moves (`empty`: only its heartbeat/SLA-monitor bundles stay). */
export interface DrainStatus {
  broker: string;
  bundles_left: string[];
  system_bundles: number;
  empty: boolean;
  headline: string;
}

export interface Proposal {
  format_version: number;
  goal: string;
  /** Each broker to drain, said first (format 2). */
  drain_status: DrainStatus[];
  goal_met: boolean;
  balance_before: BalanceSummary;
  steps: RebalanceStep[];
  chosen_moves: number;
  curve: CurvePoint[];
  stick: StickCheck | null;
  stick_tried: StickCheck[];
  stick_summary: string;
  too_big: { bundle: string; broker: string; share_of_broker: number; share_of_cluster_bytes: number } | null;
  notes: string[];
  plan: Plan;
}
"#;

#[cfg(test)]
mod tests {
    use lbplan_core::act::export_format::ExportFormat;

    /// The declared union is core's list of export formats, in its order. (The section itself is
    /// consumed by `wasm_bindgen`, so the test reads this file's text.)
    #[test]
    fn export_format_union_is_cores_list() {
        let union = ExportFormat::ALL
            .map(|f| format!("\"{}\"", f.name()))
            .join(" | ");
        assert!(
            include_str!("typescript.rs").contains(&format!("export type ExportFormat = {union};")),
            "{union}"
        );
    }
}
