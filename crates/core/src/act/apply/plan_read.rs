//! Reads the parts of a plan JSON an apply needs (its snapshot fingerprint, cluster, capture time,
//! profile, verdict and brokers' usage before and after, which the safety policy and the step
//! descriptions read, and its decisions), and nothing else: fields it does not use may change shape (a decision's `reason` as text or as a
//! structured object) without breaking an apply. Read typed from the text (`typed_json`), never
//! through a tree: `format_version` is checked first, then a malformed value is refused naming its
//! JSON path (`$.unloads[0].from`) before anything else is built.

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::plan::model::{BrokerLoadView, PLAN_FORMAT_VERSION, Plan, PlannedSplit, PlannedUnload};
use crate::plan::verdict::Outcome;
use crate::reason::{DecisionReason, ReasonKind};
use crate::typed_json::{self, Obj, ReadError};

/// Why a plan JSON cannot be applied: the JSON path and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {what}")]
pub struct PlanReadError {
    pub path: String,
    pub what: String,
}

fn err(path: impl Into<String>, what: impl Into<String>) -> PlanReadError {
    PlanReadError {
        path: path.into(),
        what: what.into(),
    }
}

impl From<ReadError> for PlanReadError {
    fn from(e: ReadError) -> Self {
        err(e.path, e.message)
    }
}

/// The version, read before the rest: another version may have changed any other field.
#[derive(Deserialize)]
struct Header {
    format_version: Option<u64>,
}

/// What apply reads of a plan; other keys are skipped. An `Option` field may be absent or `null`.
#[derive(Deserialize)]
struct RawPlan {
    snapshot_fingerprint: String,
    cluster: Option<String>,
    snapshot_captured_at_ms: Option<i64>,
    profile: Option<String>,
    settings: Option<Vec<(String, String)>>,
    verdict: Option<Obj<RawVerdict>>,
    brokers_before: Option<Vec<Obj<RawBroker>>>,
    brokers_after: Option<Vec<Obj<RawBroker>>>,
    splits: Option<Vec<Obj<RawSplit>>>,
    unloads: Option<Vec<Obj<RawUnload>>>,
    topic_unloads: Option<Vec<String>>,
}

/// What the safety policy reads of the verdict: the outcome and its headline.
#[derive(Deserialize)]
struct RawVerdict {
    outcome: Option<Outcome>,
    headline: Option<String>,
}

/// What the policy and the step descriptions read of a broker's load before / after the plan.
#[derive(Deserialize)]
struct RawBroker {
    broker: String,
    weighted_max_usage_fraction: Option<f64>,
}

fn brokers(raw: Option<Vec<Obj<RawBroker>>>) -> Vec<BrokerLoadView> {
    raw.unwrap_or_default()
        .into_iter()
        .map(|Obj(b)| BrokerLoadView {
            broker: b.broker,
            weighted_max_usage_fraction: b.weighted_max_usage_fraction.unwrap_or(0.0),
            ..BrokerLoadView::default()
        })
        .collect()
}

#[derive(Deserialize)]
struct RawSplit {
    bundle: String,
    broker: String,
    algorithm: String,
    boundaries: Option<Vec<u32>>,
    #[serde(default)] // text, an object, or absent
    reason: RawReason,
    reason_text: Option<String>,
    origin: Option<String>,
}

#[derive(Deserialize)]
struct RawUnload {
    bundle: String,
    from: String,
    to: Option<String>,
    pass_destination: Option<bool>,
    #[serde(default)] // text, an object, or absent
    reason: RawReason,
    reason_text: Option<String>,
    origin: Option<String>,
}

/// A decision's `reason`: a format 2 plan's text, a format 3 plan's structured object, or anything
/// else (ignored: apply needs only the calls). The object is the one free-form part of a decision
/// (its numbers are named by the strategy), so it is kept as the model's own map.
#[derive(Default)]
enum RawReason {
    Text(String),
    Structured(Map<String, Value>),
    #[default]
    Other,
}

impl<'de> Deserialize<'de> for RawReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawReason;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a reason (text or an object)")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RawReason, E> {
                Ok(RawReason::Text(s.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawReason, A::Error> {
                let mut out = Map::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    out.insert(k, v);
                }
                Ok(RawReason::Structured(out))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<RawReason, E> {
                Ok(RawReason::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<RawReason, E> {
                Ok(RawReason::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<RawReason, E> {
                Ok(RawReason::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<RawReason, E> {
                Ok(RawReason::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<RawReason, E> {
                Ok(RawReason::Other)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<RawReason, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(RawReason::Other)
            }
        }
        d.deserialize_any(V)
    }
}

impl RawReason {
    /// The decision's one-line text: `reason_text`; a format 2 plan's `reason` string; else the kind.
    fn text(&self, reason_text: Option<String>) -> String {
        match (reason_text, self) {
            (Some(s), _) => s,
            (None, RawReason::Text(s)) => s.clone(),
            (None, RawReason::Structured(m)) => m
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            (None, RawReason::Other) => String::new(),
        }
    }

    /// The structured reason; `fallback` when there is none or it cannot be read (an unknown kind
    /// from a later lbplan is no reason to refuse the plan).
    fn decision(self, fallback: ReasonKind) -> DecisionReason {
        match self {
            RawReason::Structured(m) => serde_json::from_value(Value::Object(m)).ok(),
            RawReason::Text(_) | RawReason::Other => None,
        }
        .unwrap_or_else(|| DecisionReason::new(fallback))
    }
}

/// The oldest plan `format_version` apply reads.
const OLDEST_APPLICABLE_FORMAT: u64 = 2;

/// The plan an apply runs, from a plan JSON's text.
pub fn read_plan(text: &str) -> Result<Plan, PlanReadError> {
    let version = typed_json::from_str::<Obj<Header>>(text)?
        .value
        .0
        .format_version
        .ok_or_else(|| err("$.format_version", "missing (is this a plan JSON?)"))?;
    // Format 2 differs from 3 only in how a decision's reason is written, which apply reads either
    // way; 4 from 3 only in how a skipped decision names its scope, which apply does not read; 5
    // adds the cluster and capture time (absent before: the age is then unknown).
    if !(OLDEST_APPLICABLE_FORMAT..=u64::from(PLAN_FORMAT_VERSION)).contains(&version) {
        return Err(err(
            "$.format_version",
            format!(
                "expected {OLDEST_APPLICABLE_FORMAT} to {PLAN_FORMAT_VERSION}, found {version}"
            ),
        ));
    }
    let raw = typed_json::from_str::<Obj<RawPlan>>(text)?.value.0;
    let mut plan = Plan {
        format_version: PLAN_FORMAT_VERSION,
        snapshot_fingerprint: raw.snapshot_fingerprint,
        cluster: raw.cluster,
        snapshot_captured_at_ms: raw.snapshot_captured_at_ms,
        profile: raw.profile.unwrap_or_default(),
        settings: raw.settings.unwrap_or_default(),
        brokers_before: brokers(raw.brokers_before),
        brokers_after: brokers(raw.brokers_after),
        ..Plan::default()
    };
    if let Some(Obj(v)) = raw.verdict {
        plan.verdict.outcome = v.outcome.unwrap_or_default();
        plan.verdict.headline = v.headline.unwrap_or_default();
    }
    for Obj(s) in raw.splits.unwrap_or_default() {
        plan.splits.push(PlannedSplit {
            reason_text: s.reason.text(s.reason_text),
            reason: s.reason.decision(ReasonKind::ManualSplit),
            bundle: s.bundle,
            broker: s.broker,
            algorithm: s.algorithm,
            boundaries: s.boundaries.unwrap_or_default(),
            new_bundles: Vec::new(),
            detail: None,
            permanent: true,
            origin: s.origin.unwrap_or_default(),
        });
    }
    for Obj(u) in raw.unloads.unwrap_or_default() {
        plan.unloads.push(PlannedUnload {
            reason_text: u.reason.text(u.reason_text),
            reason: u.reason.decision(ReasonKind::ManualUnload),
            bundle: u.bundle,
            from: u.from,
            to: u.to,
            pass_destination: u.pass_destination.unwrap_or(false),
            detail: None,
            bytes_per_sec: 0.0,
            msg_per_sec: 0.0,
            origin: u.origin.unwrap_or_default(),
        });
    }
    plan.topic_unloads = raw.topic_unloads.unwrap_or_default();
    Ok(plan)
}
