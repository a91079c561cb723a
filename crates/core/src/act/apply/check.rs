//! The two checks of a guarded apply against the cluster's live owners (bundle → broker, read from
//! each active broker's `ownedNamespaces`): before a step, whether its bundle is still where the
//! plan's snapshot put it (drift); after it, where the bundle went (verification). A bundle nobody
//! owns is normal right after an unload in the modular load manager: the next lookup assigns it,
//! to the `destinationBroker` the leader remembered.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{ApplyStep, StepKind};

/// Bundle (`tenant/ns/0x…_0x…`) → the broker that owns it now.
pub type LiveOwners = BTreeMap<String, String>;

/// A step whose bundle is no longer on the broker the plan expects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Drift {
    pub index: usize,
    pub bundle: String,
    pub expected: String,
    /// The owner now, or `None` when no active broker owns it.
    pub found: Option<String>,
}

impl Drift {
    /// One line for an operator.
    pub fn describe(&self) -> String {
        format!(
            "{}: the plan expects it on {}, it is {}",
            self.bundle,
            self.expected,
            match &self.found {
                Some(b) => format!("on {b}"),
                None => "not owned by any active broker".to_string(),
            }
        )
    }
}

/// The steps among `indices` whose bundle drifted from its expected owner. Topic unloads have no
/// bundle to check.
pub fn drifted(steps: &[ApplyStep], indices: &[usize], owners: &LiveOwners) -> Vec<Drift> {
    indices
        .iter()
        .filter_map(|&i| steps.get(i))
        .filter_map(|s| {
            let bundle = s.step.bundle.as_ref()?;
            let expected = s.step.expected_owner.as_ref()?;
            let found = owners.get(bundle);
            (found != Some(expected)).then(|| Drift {
                index: s.index,
                bundle: bundle.clone(),
                expected: expected.clone(),
                found: found.cloned(),
            })
        })
        .collect()
}

/// Where a bundle is after its step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum Outcome {
    /// On the `destinationBroker` the call named.
    Honoured { owner: String },
    /// Off the source broker (the call named no destination; Pulsar chose).
    Moved { owner: String },
    /// On a broker other than the destination the call named.
    MovedElsewhere { owner: String, destination: String },
    /// Still on the broker it was unloaded from (or the split bundle still exists).
    StillOnSource { owner: String },
    /// No active broker owns it yet: the next lookup assigns it.
    Unowned,
    /// The split bundle is gone: its children replaced it.
    SplitDone,
    /// A topic unload: nothing to check (the topic reconnects to the same bundle's owner).
    NotChecked,
}

impl Outcome {
    /// Whether the step did what the plan asked.
    pub fn ok(&self) -> bool {
        !matches!(
            self,
            Outcome::MovedElsewhere { .. } | Outcome::StillOnSource { .. }
        )
    }

    /// One line for an operator.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Honoured { owner } => format!("now on {owner}, the destination"),
            Outcome::Moved { owner } => format!("now on {owner}"),
            Outcome::MovedElsewhere { owner, destination } => {
                format!("now on {owner}, NOT on the destination {destination}")
            }
            Outcome::StillOnSource { owner } => format!("still on {owner}"),
            Outcome::Unowned => {
                "not owned yet (the next lookup assigns it; Pulsar keeps the destination)"
                    .to_string()
            }
            Outcome::SplitDone => "split: the bundle was replaced by its children".to_string(),
            Outcome::NotChecked => "sent (a topic unload is not checked)".to_string(),
        }
    }
}

/// The outcome of a step, given its bundle's owner after the step (`None`: no active broker owns
/// it).
pub fn verify(step: &ApplyStep, owner_after: Option<&str>) -> Outcome {
    let s = &step.step;
    match s.kind {
        StepKind::UnloadTopic => Outcome::NotChecked,
        StepKind::Split => match owner_after {
            Some(owner) => Outcome::StillOnSource {
                owner: owner.to_string(),
            },
            None => Outcome::SplitDone,
        },
        StepKind::Unload => {
            let Some(owner) = owner_after else {
                return Outcome::Unowned;
            };
            let owner = owner.to_string();
            if s.expected_owner.as_deref() == Some(owner.as_str()) {
                return Outcome::StillOnSource { owner };
            }
            match &s.destination {
                Some(d) if *d == owner => Outcome::Honoured { owner },
                Some(d) => Outcome::MovedElsewhere {
                    owner,
                    destination: d.clone(),
                },
                None => Outcome::Moved { owner },
            }
        }
    }
}

/// The steps among `indices` the cluster already shows as applied (a run interrupted after sending
/// them, before verifying): the bundle is on the destination, off its source, or split. A resume
/// records them as done instead of calling them drifted. An unowned bundle is not counted: it may
/// never have been unloaded by us.
pub fn already_applied(
    steps: &[ApplyStep],
    indices: &[usize],
    owners: &LiveOwners,
) -> Vec<(usize, Outcome)> {
    indices
        .iter()
        .filter_map(|&i| steps.get(i))
        .filter(|s| s.step.kind != StepKind::UnloadTopic)
        .filter_map(|s| {
            let owner = s.step.bundle.as_ref().and_then(|b| owners.get(b));
            let outcome = verify(s, owner.map(String::as_str));
            matches!(
                outcome,
                Outcome::Honoured { .. } | Outcome::Moved { .. } | Outcome::SplitDone
            )
            .then_some((s.index, outcome))
        })
        .collect()
}
