//! Which release decides, and why. During a rolling upgrade the leader's version decides shedding
//! and placement (the leader runs them); without a known leader the majority's version; an
//! operator's `--profile` overrides both. The answer names the release, its source and the brokers on
//! other versions, so every output can say which behaviour it used.

use serde::{Deserialize, Serialize};

use super::version::{Release, VersionError, VersionMatch, resolve_version};
use crate::model::Snapshot;

/// Where the deciding release came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BasisSource {
    /// The operator named it (`--profile`, a settings choice).
    Override,
    /// The leader broker's `brokerVersionString`.
    Leader,
    /// No leader known: the version most brokers report.
    Majority,
    /// No broker reports a version: the 4.x line's newest release.
    Default,
}

/// A broker and the version it reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerVersion {
    pub broker: String,
    pub version: String,
}

/// The release whose behaviour an output used, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleaseBasis {
    /// `4.0.7`, `5.0.0-M2`, `master-90cba329`.
    pub release: String,
    pub source: BasisSource,
    /// One sentence: "leader broker-1:8080 reports 4.0.7".
    pub why: String,
    /// The leader the decision assumed, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leader_broker: Option<String>,
    /// Brokers reporting another version than the deciding one (rolling upgrade).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_versions: Vec<BrokerVersion>,
    /// Approximations (nearest known release, snapshot or vendor builds, unreadable versions of
    /// other brokers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The rows of the release table the decisions read (their load manager and strategies, keys
    /// left at the release's default, names the shedding filter treats differently, destination
    /// unloads sharing a range): another release that differs only outside them decides alike.
    /// Absent: not known (every row counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads: Option<Vec<super::table::Change>>,
}

impl ReleaseBasis {
    /// The one line every text output states once: `Behaviour of Pulsar 4.0.7: the leader … reports 4.0.7; …`.
    pub fn line(&self) -> String {
        format!("Behaviour of Pulsar {}: {}", self.release, self.why)
    }
}

/// A deciding version that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseError {
    #[error("--profile: {0}")]
    Profile(VersionError),
    #[error("broker `{broker}` brokerVersionString: {error}")]
    BrokerVersion { broker: String, error: VersionError },
    #[error(
        "leader broker `{broker}` is not among the snapshot's brokers ({known}); name one of them"
    )]
    UnknownLeader { broker: String, known: String },
}

/// Resolves the deciding release: `profile` (operator) → the leader (`leader`, else the snapshot's
/// `leader_broker`) → the majority of `brokerVersionString`s → 4.x's newest.
pub fn resolve_release(
    snapshot: &Snapshot,
    profile: Option<&str>,
    leader: Option<&str>,
) -> Result<(Release, ReleaseBasis), ReleaseError> {
    let versions: Vec<(&str, &str)> = snapshot
        .brokers
        .iter()
        .filter_map(|(name, b)| {
            b.local_broker_data
                .broker_version_string
                .as_deref()
                .map(|v| (name.as_str(), v.trim()))
        })
        .collect();
    let mut warnings = Vec::new();
    // An operator's leader must exist; a snapshot's stale `leader_broker` is only a warning.
    let leader = match (leader, snapshot.leader_broker.as_deref()) {
        (Some(l), _) => {
            Some(
                find_broker(snapshot, l).ok_or_else(|| ReleaseError::UnknownLeader {
                    broker: l.to_string(),
                    known: known_list(snapshot),
                })?,
            )
        }
        (None, Some(l)) => {
            let found = find_broker(snapshot, l);
            if found.is_none() {
                warnings.push(format!(
                    "the snapshot's leader_broker `{l}` is not among its brokers: the majority's version decides"
                ));
            }
            found
        }
        (None, None) => None,
    };
    let (m, source, why, deciding_version): (VersionMatch, BasisSource, String, Option<String>) =
        if let Some(text) = profile {
            let m = resolve_version(text).map_err(ReleaseError::Profile)?;
            let why = format!("--profile {}", text.trim());
            (m, BasisSource::Override, why, None)
        } else if let Some((name, Some(v))) =
            leader.map(|l| (l, versions.iter().find(|(n, _)| *n == l).map(|(_, v)| *v)))
        {
            let m = resolve_version(v).map_err(|error| ReleaseError::BrokerVersion {
                broker: name.to_string(),
                error,
            })?;
            let why = format!(
                "the leader {name} reports {v}; the leader's release decides shedding and placement"
            );
            (m, BasisSource::Leader, why, Some(v.to_string()))
        } else if let Some((v, n)) = majority(&versions) {
            let m = resolve_version(v).map_err(|error| ReleaseError::BrokerVersion {
                broker: versions
                    .iter()
                    .find(|(_, bv)| *bv == v)
                    .map_or_else(String::new, |(b, _)| (*b).to_string()),
                error,
            })?;
            let why = match leader {
                Some(l) => format!(
                    "the leader {l} reports no version; {n} of {} broker(s) report {v}",
                    versions.len()
                ),
                None => format!(
                    "no leader known (set leader_broker or --leader): {n} of {} broker(s) report {v}",
                    versions.len()
                ),
            };
            (m, BasisSource::Majority, why, Some(v.to_string()))
        } else {
            let m = resolve_version("4.x").map_err(ReleaseError::Profile)?;
            let why =
                "no broker reports brokerVersionString: the 4.x line's newest release".to_string();
            (m, BasisSource::Default, why, None)
        };
    let mut why = why;
    if let Some(note) = &m.note {
        // A line alias the operator typed (or the default) is explained, not warned about.
        if !m.approximate && matches!(source, BasisSource::Override | BasisSource::Default) {
            why = format!("{why} ({note})");
        } else {
            warnings.push(note.clone());
        }
    }
    let mut other_versions = Vec::new();
    // Each distinct text resolved once: a cluster's brokers report a handful of versions, and the
    // dashboard asks this at every change of the snapshot or the profile (1,000 brokers).
    let mut resolved: Vec<(&str, Result<Release, String>)> = Vec::new();
    for (broker, v) in &versions {
        if deciding_version.as_deref() == Some(*v) {
            continue;
        }
        let other = match resolved.iter().find(|(text, _)| text == v) {
            Some((_, r)) => r.clone(),
            None => {
                let r = resolve_version(v)
                    .map(|o| o.release)
                    .map_err(|e| e.to_string());
                resolved.push((v, r.clone()));
                r
            }
        };
        match other {
            Ok(other) if source == BasisSource::Override && other == m.release => {}
            Ok(_) => other_versions.push(BrokerVersion {
                broker: (*broker).to_string(),
                version: (*v).to_string(),
            }),
            Err(e) => warnings.push(format!("broker `{broker}` brokerVersionString: {e}")),
        }
    }
    if !other_versions.is_empty() && source != BasisSource::Override {
        warnings.push(format!(
            "mixed versions: {} broker(s) run another release ({}); planned as {} (choose the leader with --leader or leader_broker, or a release with --profile)",
            other_versions.len(),
            summarize(&other_versions),
            m.release
        ));
    }
    let basis = ReleaseBasis {
        release: m.release.name(),
        source,
        why,
        leader_broker: leader.map(str::to_string),
        other_versions,
        warnings,
        reads: None,
    };
    Ok((m.release, basis))
}

fn find_broker<'a>(snapshot: &'a Snapshot, name: &str) -> Option<&'a str> {
    let bare = name
        .trim()
        .trim_start_matches("http://")
        .trim_start_matches("https://")
        .trim_end_matches('/');
    snapshot
        .brokers
        .keys()
        .find(|k| k.as_str() == bare)
        .map(String::as_str)
}

fn known_list(snapshot: &Snapshot) -> String {
    let names: Vec<&str> = snapshot
        .brokers
        .keys()
        .take(5)
        .map(String::as_str)
        .collect();
    let more = snapshot.brokers.len().saturating_sub(names.len());
    if more > 0 {
        format!("{}, … {more} more", names.join(", "))
    } else {
        names.join(", ")
    }
}

/// The version most brokers report; a tie goes to the first seen.
fn majority<'a>(versions: &[(&str, &'a str)]) -> Option<(&'a str, usize)> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for (_, v) in versions {
        match counts.iter_mut().find(|(c, _)| c == v) {
            Some((_, n)) => *n += 1,
            None => counts.push((v, 1)),
        }
    }
    let mut best: Option<(&str, usize)> = None;
    for (v, n) in counts {
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((v, n));
        }
    }
    best
}

/// `2 on 4.0.8 (broker-3, broker-4), 1 on 4.0.7 (broker-1)`: grouped by version.
fn summarize(others: &[BrokerVersion]) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for o in others {
        match groups.iter_mut().find(|(v, _)| *v == o.version) {
            Some((_, bs)) => bs.push(&o.broker),
            None => groups.push((&o.version, vec![&o.broker])),
        }
    }
    groups
        .iter()
        .map(|(v, bs)| {
            let shown: Vec<&str> = bs.iter().take(5).copied().collect();
            let more = bs.len().saturating_sub(shown.len());
            let tail = if more > 0 {
                format!(", … {more} more")
            } else {
                String::new()
            };
            format!("{} on {v} ({}{tail})", bs.len(), shown.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BrokerSnapshot;

    fn snap(versions: &[(&str, Option<&str>)], leader: Option<&str>) -> Snapshot {
        let mut s = Snapshot::default();
        for (name, v) in versions {
            let mut b = BrokerSnapshot::default();
            b.local_broker_data.broker_version_string = v.map(str::to_string);
            s.brokers.insert((*name).to_string(), b);
        }
        s.leader_broker = leader.map(str::to_string);
        s
    }

    #[test]
    fn the_leaders_version_decides_a_rolling_upgrade() {
        let s = snap(
            &[
                ("b1:8080", Some("4.0.7")),
                ("b2:8080", Some("4.0.8")),
                ("b3:8080", Some("4.0.8")),
            ],
            Some("b1:8080"),
        );
        let (r, basis) = resolve_release(&s, None, None).unwrap();
        assert_eq!(r.name(), "4.0.7");
        assert_eq!(basis.source, BasisSource::Leader);
        assert_eq!(basis.other_versions.len(), 2);
        assert!(
            basis
                .warnings
                .iter()
                .any(|w| w.contains("2 on 4.0.8 (b2:8080, b3:8080)"))
        );
        // The operator picks another leader.
        let (r, basis) = resolve_release(&s, None, Some("b2:8080")).unwrap();
        assert_eq!(r.name(), "4.0.8");
        assert_eq!(basis.leader_broker.as_deref(), Some("b2:8080"));
        // Without a leader, the majority.
        let s2 = snap(
            &[
                ("b1:8080", Some("4.0.7")),
                ("b2:8080", Some("4.0.8")),
                ("b3:8080", Some("4.0.8")),
            ],
            None,
        );
        let (r, basis) = resolve_release(&s2, None, None).unwrap();
        assert_eq!(
            (r.name().as_str(), basis.source),
            ("4.0.8", BasisSource::Majority)
        );
        // An override wins.
        let (r, basis) = resolve_release(&s, Some("5.0"), None).unwrap();
        assert_eq!(
            (r.name().as_str(), basis.source),
            ("5.0.0", BasisSource::Override)
        );
    }

    #[test]
    fn a_version_many_brokers_share_is_judged_for_each_of_them() {
        let s = snap(
            &[
                ("b1:8080", Some("4.0.8")),
                ("b2:8080", Some("banana")),
                ("b3:8080", Some("banana")),
                ("b4:8080", Some("4.0.7")),
                ("b5:8080", Some("4.0.7")),
            ],
            Some("b1:8080"),
        );
        let (_, basis) = resolve_release(&s, None, None).unwrap();
        for b in ["b2:8080", "b3:8080"] {
            assert!(
                basis
                    .warnings
                    .iter()
                    .any(|w| w.starts_with(&format!("broker `{b}` brokerVersionString"))),
                "{b}: {:?}",
                basis.warnings
            );
        }
        let others: Vec<&str> = basis
            .other_versions
            .iter()
            .map(|o| o.broker.as_str())
            .collect();
        assert_eq!(others, ["b4:8080", "b5:8080"]);
        // Under an override, brokers on the chosen release are not "another release".
        let (_, basis) = resolve_release(&s, Some("4.0.7"), None).unwrap();
        let others: Vec<&str> = basis
            .other_versions
            .iter()
            .map(|o| o.broker.as_str())
            .collect();
        assert_eq!(others, ["b1:8080"]);
    }

    #[test]
    fn bad_input_is_an_error_naming_the_value() {
        let s = snap(&[("b1:8080", Some("banana"))], Some("b1:8080"));
        let e = resolve_release(&s, None, None).unwrap_err().to_string();
        assert!(e.contains("b1:8080") && e.contains("`banana`"), "{e}");
        let e = resolve_release(&s, Some("9.x.y"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`9.x.y`"), "{e}");
        let e = resolve_release(&s, None, Some("nobody:1"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("nobody:1") && e.contains("b1:8080"), "{e}");
        // No version anywhere: 4.x's newest, said so.
        let (r, basis) = resolve_release(&snap(&[("b1:8080", None)], None), None, None).unwrap();
        assert_eq!(
            (r.name().as_str(), basis.source),
            ("4.0.14", BasisSource::Default)
        );
    }
}
