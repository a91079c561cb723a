//! The journal of a guarded apply (`format_version` 1): the plan's snapshot fingerprint, the
//! shedding setting found before the run (so that a crashed run can still be put back), and each
//! step's status, call and outcome. The front end writes it after every step; `--resume` runs what
//! is not done, `--rollback` moves the done unloads back (splits cannot be undone).

use serde::{Deserialize, Serialize};

use super::check::Outcome;
use super::{ApplyPlan, ApplyStep, StepKind};
use crate::plan::export::{ExportError, RestCall, rollback_call};
use crate::typed_json::Obj;

/// Version of the journal format.
pub const JOURNAL_FORMAT_VERSION: u32 = 1;

/// `loadBalancerSheddingEnabled` before a run that paused it: a dynamic override, or none (then
/// the override is deleted afterwards and `broker.conf` applies again).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SheddingBefore {
    NoOverride,
    Override(bool),
}

impl SheddingBefore {
    /// From the dynamic configuration's `loadBalancerSheddingEnabled` value, if any; `None` for a
    /// value that is not a boolean (then nothing must be changed).
    pub fn from_override(value: Option<&str>) -> Option<Self> {
        match value.map(str::trim) {
            None => Some(SheddingBefore::NoOverride),
            Some(v) if v.eq_ignore_ascii_case("true") => Some(SheddingBefore::Override(true)),
            Some(v) if v.eq_ignore_ascii_case("false") => Some(SheddingBefore::Override(false)),
            Some(_) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Pending,
    /// Sent and verified.
    Done,
    /// The call failed, or the verification did.
    Failed,
    /// Refused: the bundle was not where the plan expected it.
    Drifted,
    /// Moved back by a rollback.
    RolledBack,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalStep {
    pub index: usize,
    pub kind: String,
    pub method: String,
    pub path: String,
    #[serde(default)]
    pub bundle: Option<String>,
    /// The owner the plan expects before the step.
    #[serde(default)]
    pub from: Option<String>,
    pub status: StepStatus,
    /// The verification, once the step ran.
    #[serde(default)]
    pub outcome: Option<Outcome>,
    /// The owner read after the step (what a rollback expects).
    #[serde(default)]
    pub owner_after: Option<String>,
    /// Why it failed or drifted, one line.
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    pub format_version: u32,
    pub snapshot_fingerprint: String,
    /// The admin URL the run talked to (no credential is ever part of it).
    pub admin_url: String,
    /// Set when the run paused automatic shedding; what to restore.
    #[serde(default)]
    pub shedding_before: Option<SheddingBefore>,
    /// Whether the paused setting was put back.
    #[serde(default)]
    pub shedding_restored: bool,
    pub steps: Vec<JournalStep>,
}

/// Why a journal cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    #[error("not a journal: {0}")]
    Json(String),
    #[error("$.format_version: expected {JOURNAL_FORMAT_VERSION}, found {0}")]
    Version(u64),
    #[error(
        "$.snapshot_fingerprint: the journal is of a plan of snapshot {journal}, this plan is of {plan}"
    )]
    OtherPlan { journal: String, plan: String },
    #[error("$.steps[{index}]: the journal's step `{journal}` is not the plan's `{plan}`")]
    OtherStep {
        index: usize,
        journal: String,
        plan: String,
    },
    #[error("$.steps: the journal has {journal} steps, the plan {plan}")]
    StepCount { journal: usize, plan: usize },
}

/// One move of a rollback: a done unload sent back to where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RollbackStep {
    /// The journal step it undoes.
    pub index: usize,
    pub bundle: String,
    pub back_to: String,
    /// Where the bundle should be now (the owner read after the step, else its destination).
    pub expected_owner: Option<String>,
    pub call: RestCall,
}

fn call_text(method: &str, path: &str) -> String {
    format!("{method} {path}")
}

impl Journal {
    /// A new journal: every step pending.
    pub fn new(plan: &ApplyPlan, admin_url: &str) -> Self {
        Self {
            format_version: JOURNAL_FORMAT_VERSION,
            snapshot_fingerprint: plan.snapshot_fingerprint.clone(),
            admin_url: admin_url.to_string(),
            shedding_before: None,
            shedding_restored: false,
            steps: plan.steps.iter().map(pending).collect(),
        }
    }

    /// Reads a journal typed from its text, checking its `format_version` first; a malformed
    /// value is refused naming its JSON path (`$.steps[2].status`).
    pub fn from_json(text: &str) -> Result<Self, JournalError> {
        /// The version, read before the rest: another version may have changed any other field.
        #[derive(Deserialize)]
        struct Header {
            format_version: Option<u64>,
        }
        let json = |e: crate::typed_json::ReadError| JournalError::Json(e.to_string());
        let version = crate::typed_json::from_str::<Obj<Header>>(text)
            .map_err(json)?
            .value
            .0
            .format_version
            .ok_or_else(|| JournalError::Json("$.format_version: missing".to_string()))?;
        if version != u64::from(JOURNAL_FORMAT_VERSION) {
            return Err(JournalError::Version(version));
        }
        crate::typed_json::from_str::<Obj<Self>>(text)
            .map(|r| r.value.0)
            .map_err(json)
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Whether this journal records a run of `plan`: same snapshot, same calls in the same order.
    pub fn check_matches(&self, plan: &ApplyPlan) -> Result<(), JournalError> {
        if self.snapshot_fingerprint != plan.snapshot_fingerprint {
            return Err(JournalError::OtherPlan {
                journal: self.snapshot_fingerprint.clone(),
                plan: plan.snapshot_fingerprint.clone(),
            });
        }
        if self.steps.len() != plan.steps.len() {
            return Err(JournalError::StepCount {
                journal: self.steps.len(),
                plan: plan.steps.len(),
            });
        }
        for (j, p) in self.steps.iter().zip(&plan.steps) {
            let (jt, pt) = (
                call_text(&j.method, &j.path),
                call_text(p.step.call.method, &p.step.call.path),
            );
            if jt != pt || j.index != p.index {
                return Err(JournalError::OtherStep {
                    index: j.index,
                    journal: jt,
                    plan: pt,
                });
            }
        }
        Ok(())
    }

    /// The steps a resume runs: every step not done, in order.
    pub fn resume_indices(&self) -> Vec<usize> {
        self.steps
            .iter()
            .filter(|s| !matches!(s.status, StepStatus::Done | StepStatus::RolledBack))
            .map(|s| s.index)
            .collect()
    }

    /// The moves a rollback makes: each done unload back to its source, last first. Done splits
    /// are permanent (Pulsar cannot merge bundles) and listed by [`Journal::permanent_splits`].
    pub fn rollback_steps(&self) -> Result<Vec<RollbackStep>, ExportError> {
        let mut out = Vec::new();
        for s in self.steps.iter().rev() {
            if s.status != StepStatus::Done || s.kind != kind_name(&StepKind::Unload) {
                continue;
            }
            let (Some(bundle), Some(from)) = (&s.bundle, &s.from) else {
                continue;
            };
            let expected = s.owner_after.clone().or_else(|| match &s.outcome {
                Some(Outcome::Honoured { owner } | Outcome::Moved { owner }) => Some(owner.clone()),
                _ => None,
            });
            let call = rollback_call(bundle, from, expected.as_deref())?;
            out.push(RollbackStep {
                index: s.index,
                bundle: bundle.clone(),
                back_to: from.clone(),
                expected_owner: expected,
                call,
            });
        }
        Ok(out)
    }

    /// Bundles split by the run: a rollback cannot undo them.
    pub fn permanent_splits(&self) -> Vec<&str> {
        self.steps
            .iter()
            .filter(|s| s.status == StepStatus::Done && s.kind == kind_name(&StepKind::Split))
            .filter_map(|s| s.bundle.as_deref())
            .collect()
    }

    /// Records a step's result.
    pub fn record(
        &mut self,
        index: usize,
        status: StepStatus,
        outcome: Option<Outcome>,
        owner_after: Option<String>,
        message: Option<String>,
    ) {
        if let Some(s) = self.steps.iter_mut().find(|s| s.index == index) {
            s.status = status;
            s.outcome = outcome;
            s.owner_after = owner_after;
            s.message = message;
        }
    }

    /// Counts of (done, failed or drifted, pending) steps.
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for s in &self.steps {
            match s.status {
                StepStatus::Done | StepStatus::RolledBack => c.0 += 1,
                StepStatus::Failed | StepStatus::Drifted => c.1 += 1,
                StepStatus::Pending => c.2 += 1,
            }
        }
        c
    }
}

/// The journal's name of a step kind (`split`, `unload`, `unload_topic`).
pub fn kind_name(kind: &StepKind) -> String {
    match kind {
        StepKind::Split => "split",
        StepKind::Unload => "unload",
        StepKind::UnloadTopic => "unload_topic",
    }
    .to_string()
}

fn pending(s: &ApplyStep) -> JournalStep {
    JournalStep {
        index: s.index,
        kind: kind_name(&s.step.kind),
        method: s.step.call.method.to_string(),
        path: s.step.call.path.clone(),
        bundle: s.step.bundle.clone(),
        from: s.step.expected_owner.clone(),
        status: StepStatus::Pending,
        outcome: None,
        owner_after: None,
        message: None,
    }
}
