//! `lbplan-wasm`: the JavaScript API of `lbplan-core`, compiled to WebAssembly
//! (`scripts/build-api.sh` builds `dist/api/`; usage in `docs/embedding.md`).
//!
//! Each export is a thin wrapper: it converts its JavaScript arguments to JSON values
//! (serde-wasm-bindgen), calls a plain Rust function of this crate (so native tests exercise the
//! logic; a `#[wasm_bindgen]` function cannot run outside a JavaScript host), and converts the result
//! back to plain JavaScript objects. Every failure is a JavaScript `Error` whose message starts with
//! the path of the bad input (`$.brokers["b1:8080"].local_broker_data.cpu.limit: …`); nothing here
//! panics on input, and a panic hook reports any bug to the console instead of a bare trap.

pub mod calibration_option;
pub mod error;
pub mod export;
pub mod hash;
pub mod history;
pub mod live_history;
pub mod options;
pub mod plan_options;
pub mod rebalance_options;
pub mod simulation;
pub mod snapshot_input;
mod typescript;
pub mod verify;

use lbplan_core::act::export_format::ExportFormat;
use lbplan_core::config::settings::detect_profile;
use lbplan_core::import::{ImportInput, ImportWarning, import};
use lbplan_core::model::Snapshot;
use lbplan_core::plan::{DecisionDetail, Plan, PlanEngine, explain_decision};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

pub use error::ApiError;

// The argument and result types of the exports, as the TypeScript names declared in `typescript.rs`.
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "InputFile[]")]
    pub type JsInputFiles;
    #[wasm_bindgen(typescript_type = "ImportResult")]
    pub type JsImportResult;
    #[wasm_bindgen(typescript_type = "Snapshot")]
    pub type JsSnapshot;
    #[wasm_bindgen(typescript_type = "PlanOptions")]
    pub type JsPlanOptions;
    #[wasm_bindgen(typescript_type = "Plan")]
    pub type JsPlan;
    #[wasm_bindgen(typescript_type = "DecisionRef")]
    pub type JsDecisionRef;
    #[wasm_bindgen(typescript_type = "UnloadDetail | SplitDetail | null")]
    pub type JsDecisionDetail;
    #[wasm_bindgen(typescript_type = "ExportFormat")]
    pub type JsExportFormat;
    #[wasm_bindgen(typescript_type = "ExportOptions")]
    pub type JsExportOptions;
    #[wasm_bindgen(typescript_type = "BundleLayout")]
    pub type JsBundleLayout;
    #[wasm_bindgen(typescript_type = "TopicHash")]
    pub type JsTopicHash;
    #[wasm_bindgen(typescript_type = "Snapshot | string | null")]
    pub type JsSimulationSnapshot;
    #[wasm_bindgen(typescript_type = "SimulateOptions")]
    pub type JsSimulateOptions;
    #[wasm_bindgen(typescript_type = "(done: number, total: number) => boolean | void")]
    pub type JsProgress;
    #[wasm_bindgen(typescript_type = "Comparison")]
    pub type JsComparison;
    #[wasm_bindgen(typescript_type = "RebalanceOptions")]
    pub type JsRebalanceOptions;
    #[wasm_bindgen(typescript_type = "Proposal")]
    pub type JsProposal;
    #[wasm_bindgen(typescript_type = "HistoryOptions")]
    pub type JsHistoryOptions;
    #[wasm_bindgen(typescript_type = "HistoryReport")]
    pub type JsHistoryReport;
    #[wasm_bindgen(typescript_type = "LiveHistoryOptions")]
    pub type JsLiveHistoryOptions;
    #[wasm_bindgen(typescript_type = "PrometheusHistoryOptions")]
    pub type JsPrometheusHistoryOptions;
    #[wasm_bindgen(typescript_type = "VerifyOptions")]
    pub type JsVerifyOptions;
    #[wasm_bindgen(typescript_type = "Verification")]
    pub type JsVerification;
}

/// What `importFiles` returns.
#[derive(Serialize)]
pub struct ImportResult<'a> {
    pub snapshot: &'a Snapshot,
    pub warnings: &'a [ImportWarning],
}

/// Reports a Rust panic (a bug: inputs never panic) on the console with its message.
fn init() {
    console_error_panic_hook::set_once();
}

fn js_error(e: ApiError) -> JsError {
    JsError::new(&e.to_string())
}

/// A JavaScript argument as JSON; `null`/`undefined` become `Value::Null`.
fn from_js(v: &JsValue, what: &str) -> Result<Value, ApiError> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    serde_wasm_bindgen::from_value(v.clone()).map_err(|e| {
        ApiError::at(
            what,
            format!("not a plain JSON-like value ({e}); pass objects, arrays, strings, numbers and booleans"),
        )
    })
}

/// A result as plain JavaScript objects (maps as objects, 64-bit integers as numbers).
/// An optional `options` argument: absent, `undefined` and `null` all read as no options.
fn options_from_js(options: Option<&JsValue>) -> Result<Value, ApiError> {
    options.map_or(Ok(Value::Null), |o| from_js(o, "options"))
}

fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, ApiError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| ApiError::whole(format!("cannot return the result to JavaScript: {e}")))
}

/// The crate version (the planner's version).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Imports Pulsar exports (load reports, bundle data, layouts, policies, `broker.conf`, topic lists,
/// metadata-store trees as `.zip`/`.tar.gz`, or one of our snapshots) into one validated snapshot,
/// with the warnings import worked around. Throws an `Error` naming the file and JSON path.
#[wasm_bindgen(js_name = importFiles)]
pub fn import_files_js(files: &JsInputFiles) -> Result<JsImportResult, JsError> {
    init();
    let run = || -> Result<JsValue, ApiError> {
        let files = read_files(files)?;
        let inputs: Vec<ImportInput<'_>> = files
            .iter()
            .map(|(name, bytes)| ImportInput::given(name.as_str(), bytes.as_slice()))
            .collect();
        let imported = import(&inputs).map_err(|e| ApiError::whole(e.to_string()))?;
        to_js(&ImportResult {
            snapshot: &imported.snapshot,
            warnings: &imported.warnings,
        })
    };
    run().map(JsCast::unchecked_into).map_err(js_error)
}

/// `files` as `(name, bytes)`: each item `{name: string, bytes: Uint8Array | ArrayBuffer | string}`.
fn read_files(files: &JsValue) -> Result<Vec<(String, Vec<u8>)>, ApiError> {
    if !js_sys::Array::is_array(files) {
        return Err(ApiError::at(
            "files",
            "expected an array of {name: string, bytes: Uint8Array}",
        ));
    }
    let list = js_sys::Array::from(files);
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let get = |key: &str| {
            if item.is_object() {
                js_sys::Reflect::get(&item, &JsValue::from_str(key)).ok()
            } else {
                None
            }
        };
        let name = get("name")
            .and_then(|v| v.as_string())
            .ok_or_else(|| ApiError::at(format!("files[{i}].name"), "expected a string"))?;
        let bytes = get("bytes").unwrap_or(JsValue::UNDEFINED);
        let bytes = if let Some(a) = bytes.dyn_ref::<js_sys::Uint8Array>() {
            a.to_vec()
        } else if let Some(b) = bytes.dyn_ref::<js_sys::ArrayBuffer>() {
            js_sys::Uint8Array::new(b).to_vec()
        } else if let Some(text) = bytes.as_string() {
            text.into_bytes()
        } else {
            return Err(ApiError::at(
                format!("files[{i}].bytes"),
                "expected a Uint8Array (or an ArrayBuffer, or a string of text)",
            ));
        };
        out.push((name, bytes));
    }
    Ok(out)
}

/// Explains a recorded series: the files of a stored series directory (as a folder upload gives
/// them), one `.zip` of it, or ordinary snapshot files; every change between consecutive snapshots
/// with its cause (see docs/history.md). Long for a day of snapshots: run it in a Worker.
#[wasm_bindgen(js_name = explainHistory)]
pub fn explain_history_js(
    files: &JsInputFiles,
    options: Option<JsHistoryOptions>,
) -> Result<JsHistoryReport, JsError> {
    init();
    let run = || -> Result<JsValue, ApiError> {
        let files = read_files(files)?;
        let options = options_from_js(options.as_deref())?;
        to_js(&history::explain_history_files(files, &options)?)
    };
    run().map(JsCast::unchecked_into).map_err(js_error)
}

/// A history that grows as snapshots arrive: hand it each snapshot a portal collects, in time
/// order, and read the report of the kept window after each (see `LiveHistoryOptions`,
/// docs/embedding.md). The leader's state is carried from snapshot to snapshot; nothing is replayed.
#[wasm_bindgen(js_name = LiveHistory)]
pub struct JsLiveHistory(live_history::LiveHistoryState);

#[wasm_bindgen(js_class = LiveHistory)]
impl JsLiveHistory {
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<JsLiveHistoryOptions>) -> Result<JsLiveHistory, JsError> {
        init();
        let run = || -> Result<JsLiveHistory, ApiError> {
            let options = options_from_js(options.as_deref())?;
            Ok(JsLiveHistory(live_history::LiveHistoryState::new(
                &options,
            )?))
        };
        run().map_err(js_error)
    }

    /// The next snapshot; returns the history's report after it.
    #[wasm_bindgen(js_name = pushSnapshot)]
    pub fn push_snapshot(&mut self, snapshot: &JsSnapshot) -> Result<JsHistoryReport, JsError> {
        let mut run = || -> Result<JsValue, ApiError> {
            let snapshot = from_js(snapshot, "$")?;
            to_js(&self.0.push_value(&snapshot)?)
        };
        run().map(JsCast::unchecked_into).map_err(js_error)
    }

    /// The report of the kept window.
    pub fn report(&self) -> Result<JsHistoryReport, JsError> {
        to_js(&self.0.report())
            .map(JsCast::unchecked_into)
            .map_err(js_error)
    }
}

/// Explains a history built from Prometheus range results handed over by the page or an embedding
/// portal (each file one `/api/v1/query_range` answer, or an `lbplan-prometheus-ranges` document
/// bundling several; see docs/history.md, "From Prometheus"). Nothing is fetched.
#[wasm_bindgen(js_name = explainHistoryFromPrometheus)]
pub fn explain_history_from_prometheus_js(
    files: &JsInputFiles,
    options: Option<JsPrometheusHistoryOptions>,
) -> Result<JsHistoryReport, JsError> {
    init();
    let run = || -> Result<JsValue, ApiError> {
        let files = read_files(files)?;
        let options = options_from_js(options.as_deref())?;
        to_js(&history::explain_prometheus_files(files, &options)?)
    };
    run().map(JsCast::unchecked_into).map_err(js_error)
}

/// One leader cycle (plus manual what-ifs) on a snapshot: what Pulsar's load manager would unload,
/// where it would place it, what it would split, and why. See `PlanOptions`.
#[wasm_bindgen(js_name = plan)]
pub fn plan_js(snapshot: &JsSnapshot, options: Option<JsPlanOptions>) -> Result<JsPlan, JsError> {
    init();
    let run = || -> Result<JsValue, ApiError> {
        let snapshot = from_js(snapshot, "$")?;
        let options = options_from_js(options.as_deref())?;
        to_js(&plan_value(&snapshot, &options)?)
    };
    run().map(JsCast::unchecked_into).map_err(js_error)
}

/// The logic behind [`plan_js`].
pub fn plan_value(snapshot: &Value, options: &Value) -> Result<Plan, ApiError> {
    let request = plan_options::plan_request(options)?;
    let model = calibration_option::load_model(options)?;
    let (snapshot, _warnings) = snapshot_input::snapshot_from_value(snapshot)?;
    PlanEngine::new(snapshot)
        .with_load_model(model)
        .plan(&request)
        .map_err(|e| ApiError::whole(e.to_string()))
}

/// One decision's full `detail` — the strategy's rule, the placement pipeline with every candidate —
/// in the plan `options` ask for, as a plan at `explain: "full"` carries it: for a plan made at
/// `explain: "summary"`, whose details were left out. `null` when the plan has no such decision.
#[wasm_bindgen(js_name = explainDecision)]
pub fn explain_decision_js(
    snapshot: &JsSnapshot,
    options: Option<JsPlanOptions>,
    decision: &JsDecisionRef,
) -> Result<JsDecisionDetail, JsError> {
    init();
    let run = || -> Result<JsValue, ApiError> {
        let snapshot = from_js(snapshot, "$")?;
        let options = options_from_js(options.as_deref())?;
        let decision = from_js(decision, "decision")?;
        let detail = explain_value(&snapshot, &options, &decision)?;
        to_js(&detail.as_ref().map(DecisionDetail::detail_json))
    };
    run().map(JsCast::unchecked_into).map_err(js_error)
}

/// The logic behind [`explain_decision_js`].
pub fn explain_value(
    snapshot: &Value,
    options: &Value,
    decision: &Value,
) -> Result<Option<DecisionDetail>, ApiError> {
    let request = plan_options::plan_request(options)?;
    let which = plan_options::decision_ref(decision)?;
    let model = calibration_option::load_model(options)?;
    let (snapshot, _warnings) = snapshot_input::snapshot_from_value(snapshot)?;
    let mut engine = PlanEngine::new(snapshot).with_load_model(model);
    explain_decision(&mut engine, &request, &which).map_err(|e| ApiError::whole(e.to_string()))
}

/// A rebalance proposal: unloads with destinations toward `options.goal` (default
/// `max/mean<=1.15`) that respect Pulsar's placement constraints, the trade-off curve, and whether
/// the configured leader would undo it. `proposal.plan` is a `Plan` (export it with `exportPlan`).
/// Synchronous: run it in a Worker for large snapshots. See `RebalanceOptions`, docs/rebalance.md.
#[wasm_bindgen(js_name = rebalance)]
pub fn rebalance_js(
    snapshot: &JsSnapshot,
    options: Option<JsRebalanceOptions>,
) -> Result<JsProposal, JsError> {
    init();
    let run = || -> Result<JsValue, ApiError> {
        let snapshot = from_js(snapshot, "$")?;
        let options = options_from_js(options.as_deref())?;
        to_js(&rebalance_value(&snapshot, &options)?)
    };
    run().map(JsCast::unchecked_into).map_err(js_error)
}

/// The logic behind [`rebalance_js`].
pub fn rebalance_value(
    snapshot: &Value,
    options: &Value,
) -> Result<lbplan_core::rebalance::Proposal, ApiError> {
    let request = rebalance_options::rebalance_request(options)?;
    let (snapshot, _warnings) = snapshot_input::snapshot_from_value(snapshot)?;
    lbplan_core::rebalance::propose(&snapshot, &request).map_err(|e| ApiError::whole(e.to_string()))
}

/// The leader's loop over many cycles under a scenario, one or several configurations side by
/// side. `onProgress(done, total)` is called after every cycle (synchronously: run it in a Worker to
/// keep a page responsive); returning `false` stops the run, which is then marked `cancelled`.
#[wasm_bindgen(js_name = simulate)]
pub fn simulate_js(
    snapshot: &JsSimulationSnapshot,
    options: Option<JsSimulateOptions>,
    on_progress: Option<JsProgress>,
) -> Result<JsComparison, JsError> {
    init();
    let run = || -> Result<JsValue, ApiError> {
        let snapshot = from_js(snapshot, "$")?;
        let options = options_from_js(options.as_deref())?;
        let input = simulation::simulation_input(&snapshot, &options)?;
        let callback = match &on_progress {
            None => None,
            Some(f) => Some(
                f.dyn_ref::<js_sys::Function>()
                    .ok_or_else(|| ApiError::at("onProgress", "expected a function"))?,
            ),
        };
        let mut thrown: Option<JsValue> = None;
        let mut progress = |done: u32, total: u32| -> bool {
            let Some(f) = callback else { return true };
            match f.call2(&JsValue::NULL, &JsValue::from(done), &JsValue::from(total)) {
                Ok(answer) => answer.as_bool() != Some(false),
                Err(e) => {
                    thrown = Some(e);
                    false
                }
            }
        };
        let comparison = simulation::run(&input, &mut progress)?;
        if let Some(e) = thrown {
            let why = e
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .or_else(|| e.as_string())
                .unwrap_or_else(|| "an exception".to_string());
            return Err(ApiError::at("onProgress", format!("threw: {why}")));
        }
        to_js(&comparison)
    };
    run().map(JsCast::unchecked_into).map_err(js_error)
}

/// A topic's complete name, CRC-32 and bundle in a namespace layout (`boundaries`: a bundle count,
/// a list of boundaries or a `BundlesData` object).
#[wasm_bindgen(js_name = hashTopic)]
pub fn hash_topic_js(
    namespace: &str,
    boundaries: &JsBundleLayout,
    topic: &str,
) -> Result<JsTopicHash, JsError> {
    init();
    let run = || -> Result<JsValue, ApiError> {
        let layout = from_js(boundaries, "boundaries")?;
        to_js(&hash::hash_topic(namespace, &layout, topic)?)
    };
    run().map(JsCast::unchecked_into).map_err(js_error)
}

/// A plan as a `pulsar-admin` script, curl admin REST calls (both bash with `apply` / `rollback`) or
/// the plan JSON document.
#[wasm_bindgen(js_name = exportPlan)]
pub fn export_plan_js(
    plan: &JsPlan,
    format: &JsExportFormat,
    options: Option<JsExportOptions>,
) -> Result<String, JsError> {
    init();
    let run = || -> Result<String, ApiError> {
        let plan = from_js(plan, "plan")?;
        let format = format.as_string().ok_or_else(|| {
            ApiError::at(
                "format",
                format!("expected a string, one of {}", export_format_names()),
            )
        })?;
        let options = options_from_js(options.as_deref())?;
        export::export_plan(&plan, &format, &options)
    };
    run().map_err(js_error)
}

/// Did the cluster do what the plan said? The plan against a snapshot taken after it was applied
/// (core's `plan::verify`, as `lbplan verify`): each bundle where predicted or back on its source,
/// each broker's usage against the prediction or "not yet reported since the apply".
#[wasm_bindgen(js_name = verifyPlan)]
pub fn verify_plan_js(
    plan: &JsPlan,
    after: &JsSnapshot,
    options: Option<JsVerifyOptions>,
) -> Result<JsVerification, JsError> {
    init();
    let run = || -> Result<JsValue, ApiError> {
        let plan = from_js(plan, "plan")?;
        let after = from_js(after, "after")?;
        let options = options_from_js(options.as_deref())?;
        to_js(&verify::verify_plan(&plan, &after, &options)?)
    };
    run().map(JsCast::unchecked_into).map_err(js_error)
}

/// Core's export format names, for messages.
fn export_format_names() -> String {
    ExportFormat::ALL.map(ExportFormat::name).join(", ")
}

/// What `demoSummary` returns (as JSON text).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotSummary {
    pub format_version: u32,
    pub cluster: Option<String>,
    pub brokers: usize,
    pub namespaces: usize,
    pub bundles: usize,
    /// The release the leader's (else the majority's) `brokerVersionString` implies (core's `detect_profile`; 4.x's newest when absent).
    pub profile: String,
}

/// Parses a snapshot file and returns `{formatVersion, cluster, brokers, namespaces, bundles,
/// profile}` as JSON text. Throws an `Error` naming what is wrong with the input.
#[wasm_bindgen(js_name = demoSummary)]
pub fn demo_summary(snapshot_json: &str) -> Result<String, JsError> {
    init();
    let summary = summarize(snapshot_json).map_err(|e| JsError::new(&e))?;
    serde_json::to_string(&summary).map_err(|e| JsError::new(&e.to_string()))
}

/// The logic behind [`demo_summary`].
pub fn summarize(snapshot_json: &str) -> Result<SnapshotSummary, String> {
    // Core's one snapshot reader: the same checks and messages as `lbplan import`.
    let snapshot = lbplan_core::import::read_snapshot("snapshot.json", snapshot_json)
        .map_err(|e| format!("invalid snapshot: {e}"))?
        .snapshot;
    let (profile, _) = detect_profile(&snapshot);
    Ok(SnapshotSummary {
        format_version: snapshot.format_version,
        cluster: snapshot.cluster.clone(),
        brokers: snapshot.brokers.len(),
        namespaces: snapshot.namespaces.len(),
        bundles: snapshot.bundle_data.len(),
        profile: profile.name().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMO: &str = include_str!("../../../static/demo-snapshot.json");

    #[test]
    fn summarizes_the_demo() {
        let s = summarize(DEMO).unwrap();
        assert_eq!(s.format_version, 1);
        assert_eq!(s.cluster.as_deref(), Some("demo"));
        assert_eq!(s.brokers, 12);
        // 5 tenant namespaces + 12 heartbeat namespaces; 124 + 12 bundles.
        assert_eq!(s.namespaces, 17);
        assert_eq!(s.bundles, 136);
        // The leader broker-00 reports 4.0.7.
        assert_eq!(s.profile, "4.0.7");
    }

    #[test]
    fn rejects_bad_input_with_a_message() {
        assert!(summarize("{").unwrap_err().starts_with("invalid snapshot"));
        let e = summarize(r#"{"format_version": 99}"#).unwrap_err();
        assert!(
            e.ends_with(
                "$.format_version: expected format_version 1..=1, found 99 (written by a newer \
                 lbplan?)"
            ),
            "{e}"
        );
        assert!(
            summarize(r#"{"cluster": "c"}"#)
                .unwrap_err()
                .contains("$.format_version")
        );
        // An unknown key is a warning, as in every import, not a refusal.
        let v = serde_json::json!({"format_version": 1, "bogus": 1,
            "brokers": {"a:8080": {"local_broker_data": {"brokerVersionString": "4.0.7"}}}});
        assert_eq!(summarize(&v.to_string()).unwrap().brokers, 1);
    }

    /// No leader known; the first broker runs 5.0.0, the other two 4.0.7: the majority (4.0.7) is
    /// the profile.
    #[test]
    fn summary_profile_is_the_majority_not_the_first_broker() {
        let v = |version: &str| serde_json::json!({"local_broker_data": {"brokerVersionString": version}});
        let snapshot = serde_json::json!({
            "format_version": 1,
            "brokers": {"a:8080": v("5.0.0"), "b:8080": v("4.0.7"), "c:8080": v("4.0.7")}
        });
        let summary = summarize(&snapshot.to_string()).unwrap();
        assert_eq!(summary.profile, "4.0.7");
        let snapshot = serde_json::json!({
            "format_version": 1,
            "brokers": {"a:8080": v("4.0.7"), "b:8080": v("5.0.0"), "c:8080": v("5.0.0")}
        });
        assert_eq!(summarize(&snapshot.to_string()).unwrap().profile, "5.0.0");
    }

    /// `options.calibration` reaches every predicting call: the plan names the factors it used
    /// and the rebalance's final plan too (the same model the CLI's `--calibration` gives).
    #[test]
    fn a_calibration_option_reaches_plan_and_rebalance() {
        let snapshot: Value = serde_json::from_str(DEMO).unwrap();
        let options = serde_json::json!({"calibration": {"format_version": 1,
            "cpu_cost_factors": {"broker-10.demo.svc:8080": 2.0}, "fits": []}});
        let plan = plan_value(&snapshot, &options).unwrap();
        assert_eq!(plan.cpu_cost_factors["broker-10.demo.svc:8080"], 2.0);
        let plain = plan_value(&snapshot, &Value::Null).unwrap();
        assert!(plain.cpu_cost_factors.is_empty());
        let after = |p: &Plan| {
            p.brokers_after
                .iter()
                .find(|b| b.broker == "broker-10.demo.svc:8080")
                .unwrap()
                .cpu_pct
        };
        assert!(
            after(&plan) > after(&plain),
            "{} {}",
            after(&plan),
            after(&plain)
        );
        let proposal = rebalance_value(&snapshot, &options).unwrap();
        assert_eq!(
            proposal.plan.cpu_cost_factors["broker-10.demo.svc:8080"],
            2.0
        );
    }

    #[test]
    fn plans_the_demo_and_exports_it() {
        let snapshot: Value = serde_json::from_str(DEMO).unwrap();
        let plan = plan_value(&snapshot, &Value::Null).unwrap();
        assert_eq!(plan.format_version, 6);
        assert_eq!(
            serde_json::to_value(&plan).unwrap()["verdict"]["outcome"],
            "better"
        );
        assert!(!plan.unloads.is_empty(), "the demo has a hot broker");
        let as_value = serde_json::to_value(&plan).unwrap();
        let script = export::export_plan(&as_value, "pulsar-admin", &Value::Null).unwrap();
        assert!(script.contains("namespaces unload"), "{script}");
        let curl = export::export_plan(&as_value, "curl", &Value::Null).unwrap();
        assert!(curl.contains("/unload"), "{curl}");
        let json = export::export_plan(&as_value, "json", &Value::Null).unwrap();
        let back: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back, as_value);
        let e = export::export_plan(&as_value, "yaml", &Value::Null).unwrap_err();
        assert_eq!(e.path, "format");
    }

    #[test]
    fn a_bad_plan_names_its_path() {
        let snapshot: Value = serde_json::from_str(DEMO).unwrap();
        let mut plan = serde_json::to_value(plan_value(&snapshot, &Value::Null).unwrap()).unwrap();
        plan["unloads"][0]["bundle"] = Value::from(7);
        let e = export::export_plan(&plan, "curl", &Value::Null).unwrap_err();
        assert_eq!(e.path, "plan.unloads[0].bundle", "{e}");
        plan["format_version"] = Value::from(1);
        plan["unloads"] = Value::Array(vec![]);
        let e = export::export_plan(&plan, "curl", &Value::Null).unwrap_err();
        assert_eq!(e.path, "plan.format_version", "{e}");
    }

    #[test]
    fn a_worse_plan_exports_a_script_that_asks_for_i_know_unless_acknowledged() {
        let snapshot: Value = serde_json::from_str(DEMO).unwrap();
        let mut plan = serde_json::to_value(plan_value(&snapshot, &Value::Null).unwrap()).unwrap();
        plan["verdict"]["outcome"] = Value::from("worse");
        let script = export::export_plan(&plan, "pulsar-admin", &Value::Null).unwrap();
        assert!(script.contains("= --i-know ]"), "{script}");
        assert!(script.contains("exit 3"), "{script}");
        assert!(script.contains("the plan is judged WORSE"), "{script}");
        // Acknowledged at export, the verdict is no longer a hazard at run time (the snapshot's
        // age still is, so the script keeps its --i-know check).
        let options = serde_json::json!({ "iKnow": true });
        let acknowledged = export::export_plan(&plan, "curl", &options).unwrap();
        assert!(
            !acknowledged.contains("the plan is judged WORSE"),
            "{acknowledged}"
        );
        assert!(
            acknowledged.contains("# Exported with --i-know"),
            "{acknowledged}"
        );
        let bad = serde_json::json!({ "iKnow": "yes" });
        let e = export::export_plan(&plan, "curl", &bad).unwrap_err();
        assert_eq!(e.path, "options.iKnow", "{e}");
    }

    #[test]
    fn a_hostile_bundle_name_is_refused_not_exported() {
        let snapshot: Value = serde_json::from_str(DEMO).unwrap();
        let mut plan = serde_json::to_value(plan_value(&snapshot, &Value::Null).unwrap()).unwrap();
        plan["unloads"][0]["bundle"] = Value::from("a/b/0x0_0x1; rm -rf /");
        assert!(export::export_plan(&plan, "pulsar-admin", &Value::Null).is_err());
    }
}
