//! The journal of a guarded apply (`format_version` 2): the plan's snapshot fingerprint, the
//! safety policy's assessment (the plan's cluster, capture time, profile and verdict, the age at
//! run time, the hazards and whether they were acknowledged), the shedding setting found before
//! the first pause (written once, so that a crashed run can still be put back), and each step's
//! status, call, expected effect and outcome. The front end writes it after every step; `--resume` runs what
//! is not done, `--rollback` moves the done unloads back (splits cannot be undone).

use serde::{Deserialize, Serialize};

use super::check::Outcome;
use super::{ApplyPlan, ApplyStep, StepKind};
use crate::act::export::{
    ExportError, RestCall, rollback_call, set_shedding_call, unset_shedding_call,
};
use crate::act::safety::Assessment;
use crate::typed_json::Obj;

/// Version of the journal format (2: the `safety` assessment and each step's `expected` effect;
/// a version 1 journal, which has neither, is still read).
pub const JOURNAL_FORMAT_VERSION: u32 = 2;

/// The oldest journal version read.
const OLDEST_JOURNAL_FORMAT: u64 = 1;

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

    /// The call that puts this setting back: the previous override, or the override deleted.
    pub fn restore_call(self) -> RestCall {
        match self {
            SheddingBefore::Override(v) => set_shedding_call(v),
            SheddingBefore::NoOverride => unset_shedding_call(),
        }
    }

    /// The exact commands an operator runs to put it back by hand when a run could not, as
    /// `pulsar-admin` and as the REST call against `admin_url` (no credential in either).
    pub fn by_hand(self, admin_url: &str) -> String {
        let call = self.restore_call();
        let admin = match self {
            SheddingBefore::Override(v) => format!(
                "pulsar-admin brokers update-dynamic-config --config loadBalancerSheddingEnabled --value {v}"
            ),
            SheddingBefore::NoOverride => {
                "pulsar-admin brokers delete-dynamic-config --config loadBalancerSheddingEnabled"
                    .to_string()
            }
        };
        let base = if admin_url.is_empty() {
            "$PULSAR_ADMIN_URL"
        } else {
            admin_url
        };
        format!(
            "{admin}   (or: curl -X {} '{base}{}')",
            call.method, call.path
        )
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
    /// What the plan predicts the step does (bundle, from → to, usage before → after).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Journal {
    pub format_version: u32,
    pub snapshot_fingerprint: String,
    /// The admin URL the run talked to (no credential is ever part of it).
    pub admin_url: String,
    /// The safety policy's assessment of the plan when the run started: its context (cluster,
    /// capture time, profile, verdict), the snapshot's age, the hazards and whether the operator
    /// acknowledged them.
    #[serde(default)]
    pub safety: Option<Assessment>,
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
    #[error(
        "$.format_version: expected {OLDEST_JOURNAL_FORMAT} to {JOURNAL_FORMAT_VERSION}, found {0}"
    )]
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
    /// A step whose bundle, source or kind is not the plan's (a journal edited by hand, or of
    /// another plan): a resume or rollback acts only on the plan's own steps.
    #[error("$.steps[{index}].{field}: the journal says `{journal}`, the plan `{plan}`")]
    StepDiffers {
        index: usize,
        field: &'static str,
        journal: String,
        plan: String,
    },
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
            safety: None,
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
        if !(OLDEST_JOURNAL_FORMAT..=u64::from(JOURNAL_FORMAT_VERSION)).contains(&version) {
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
        for (pos, (j, p)) in self.steps.iter().zip(&plan.steps).enumerate() {
            let (jt, pt) = (
                call_text(&j.method, &j.path),
                call_text(p.step.call.method, &p.step.call.path),
            );
            if jt != pt {
                return Err(JournalError::OtherStep {
                    index: pos,
                    journal: jt,
                    plan: pt,
                });
            }
            let shown = |v: Option<&str>| v.unwrap_or("(none)").to_string();
            let differs = |field: &'static str, journal: String, plan: String| {
                (journal != plan).then_some(JournalError::StepDiffers {
                    index: pos,
                    field,
                    journal,
                    plan,
                })
            };
            let found = differs("index", j.index.to_string(), p.index.to_string())
                .or_else(|| differs("kind", j.kind.clone(), kind_name(&p.step.kind)))
                .or_else(|| {
                    differs(
                        "bundle",
                        shown(j.bundle.as_deref()),
                        shown(p.step.bundle.as_deref()),
                    )
                })
                .or_else(|| {
                    differs(
                        "from",
                        shown(j.from.as_deref()),
                        shown(p.step.expected_owner.as_deref()),
                    )
                });
            if let Some(e) = found {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Whether a run of this journal paused automatic shedding and did not put it back (killed,
    /// or the restore failed): the next resume or rollback restores it.
    pub fn shedding_left_paused(&self) -> bool {
        self.shedding_before.is_some() && !self.shedding_restored
    }

    /// Whether a run that pauses shedding must first read the current setting: only when no
    /// earlier run of this journal recorded it (read after a pause, it would be the paused value).
    pub fn needs_shedding_read(&self) -> bool {
        self.shedding_before.is_none()
    }

    /// Records a pause. The setting found before the first pause is written once and never
    /// replaced: `found` is used only when the journal has none.
    pub fn record_pause(&mut self, found: SheddingBefore) {
        if self.shedding_before.is_none() {
            self.shedding_before = Some(found);
        }
        self.shedding_restored = false;
    }

    /// The call that puts shedding back, when a run paused it and it is not restored yet.
    pub fn shedding_restore_call(&self) -> Option<RestCall> {
        self.shedding_before
            .filter(|_| !self.shedding_restored)
            .map(SheddingBefore::restore_call)
    }

    /// The commands to put shedding back by hand, when it is paused and not restored.
    pub fn shedding_by_hand(&self) -> Option<String> {
        self.shedding_before
            .filter(|_| !self.shedding_restored)
            .map(|b| b.by_hand(&self.admin_url))
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
    /// The bundle and its source are the plan's step (the journal only says which steps are done;
    /// [`Journal::check_matches`] refuses a journal whose steps differ from the plan's); where the
    /// bundle should be now is the owner read after the step, else the plan's destination, and the
    /// drift check makes sure it is there before anything is sent.
    pub fn rollback_steps(&self, plan: &ApplyPlan) -> Result<Vec<RollbackStep>, ExportError> {
        let mut out = Vec::new();
        for s in self.steps.iter().rev() {
            if s.status != StepStatus::Done || s.kind != kind_name(&StepKind::Unload) {
                continue;
            }
            let Some(step) = plan.steps.get(s.index).filter(|p| p.index == s.index) else {
                continue;
            };
            if step.step.kind != StepKind::Unload {
                continue;
            }
            let (Some(bundle), Some(from)) = (&step.step.bundle, &step.step.expected_owner) else {
                continue;
            };
            let expected = s
                .owner_after
                .clone()
                .or_else(|| match &s.outcome {
                    Some(Outcome::Honoured { owner } | Outcome::Moved { owner }) => {
                        Some(owner.clone())
                    }
                    _ => None,
                })
                .or_else(|| step.step.predicted.clone());
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
        expected: s.expected.clone(),
        status: StepStatus::Pending,
        outcome: None,
        owner_after: None,
        message: None,
    }
}
