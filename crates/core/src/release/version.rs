//! Pulsar releases the planner knows, and how a version text (`--profile 4.0.7`, a broker's
//! `brokerVersionString` such as `4.1.0-SNAPSHOT` or a vendor build `3.0.10.0`) resolves to one of
//! them: exactly, as the newest patch of a line (`4.x`), or as the nearest known release with a
//! warning naming both.

use std::fmt;

/// A release line the planner models. Lines are ordered as their versions are; `Master` is the
/// commit the conformance oracle ran and is only reachable by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Line {
    V3_0,
    V3_3,
    V4_0,
    V4_1,
    V4_2,
    V5_0,
    /// apache/pulsar master at 90cba329 (2026-07-21).
    Master,
}

impl Line {
    pub const ALL: [Line; 7] = [
        Line::V3_0,
        Line::V3_3,
        Line::V4_0,
        Line::V4_1,
        Line::V4_2,
        Line::V5_0,
        Line::Master,
    ];

    /// `(major, minor)`; `None` for master.
    pub fn numbers(self) -> Option<(u32, u32)> {
        match self {
            Line::V3_0 => Some((3, 0)),
            Line::V3_3 => Some((3, 3)),
            Line::V4_0 => Some((4, 0)),
            Line::V4_1 => Some((4, 1)),
            Line::V4_2 => Some((4, 2)),
            Line::V5_0 => Some((5, 0)),
            Line::Master => None,
        }
    }

    /// `4.0.x`.
    pub fn label(self) -> &'static str {
        match self {
            Line::V3_0 => "3.0.x",
            Line::V3_3 => "3.3.x",
            Line::V4_0 => "4.0.x",
            Line::V4_1 => "4.1.x",
            Line::V4_2 => "4.2.x",
            Line::V5_0 => "5.0.x",
            Line::Master => "master",
        }
    }

    /// The newest release of the line the release notes list (docs/versions.md gives the pages).
    pub fn newest(self) -> Release {
        let patch = match self {
            Line::V3_0 => 17,
            Line::V3_3 => 9,
            Line::V4_0 => 14,
            Line::V4_1 => 3,
            Line::V4_2 => 5,
            Line::V5_0 | Line::Master => 0,
        };
        Release {
            line: self,
            patch,
            stage: Stage::Final,
        }
    }

    fn oldest(self) -> Release {
        Release {
            line: self,
            patch: 0,
            stage: if self == Line::V5_0 {
                Stage::M1
            } else {
                Stage::Final
            },
        }
    }
}

/// Milestones come before the final release of the same number (`5.0.0-M1 < 5.0.0-M2 < 5.0.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    M1,
    M2,
    Final,
}

/// One Pulsar release (`4.0.7`, `5.0.0-M2`) or the master commit. Ordered by version within the
/// modelled lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Release {
    pub line: Line,
    pub patch: u32,
    pub stage: Stage,
}

impl Release {
    pub const MASTER_90CBA329: Release = Release {
        line: Line::Master,
        patch: 0,
        stage: Stage::Final,
    };

    /// `4.0.7`, `5.0.0-M1`, `master-90cba329`.
    pub fn name(self) -> String {
        match (self.line.numbers(), self.stage) {
            (None, _) => "master-90cba329".to_string(),
            (Some((a, b)), Stage::Final) => format!("{a}.{b}.{}", self.patch),
            (Some((a, b)), Stage::M1) => format!("{a}.{b}.{}-M1", self.patch),
            (Some((a, b)), Stage::M2) => format!("{a}.{b}.{}-M2", self.patch),
        }
    }

    /// Whether the planner knows this exact release (a patch the notes list).
    pub fn is_known(self) -> bool {
        self.line == Line::Master
            || (self >= self.line.oldest() && self <= self.line.newest() && self.stage_fits())
    }

    fn stage_fits(self) -> bool {
        self.stage == Stage::Final || (self.line == Line::V5_0 && self.patch == 0)
    }

    /// Every known release, oldest first (master last).
    pub fn known() -> Vec<Release> {
        let mut out = Vec::new();
        for line in Line::ALL {
            if line == Line::V5_0 {
                for stage in [Stage::M1, Stage::M2, Stage::Final] {
                    out.push(Release {
                        line,
                        patch: 0,
                        stage,
                    });
                }
                continue;
            }
            for patch in 0..=line.newest().patch {
                out.push(Release {
                    line,
                    patch,
                    stage: Stage::Final,
                });
            }
        }
        out
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// A version text that names no release.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    #[error(
        "`{value}` is not a Pulsar version (expected e.g. 4.0.7, 4.1.0-SNAPSHOT, 5.0.0-M1, a line \
         such as 4.x, 4.1 or 5.0, or master-90cba329)"
    )]
    NotAVersion { value: String },
}

/// How a version text became a release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionMatch {
    pub release: Release,
    /// Why the text is not exactly that release (alias, nearest known, snapshot or vendor build);
    /// `None` when it is.
    pub note: Option<String>,
    /// Whether the note is a warning (the behaviour may differ from the named version's).
    pub approximate: bool,
}

/// A version read as numbers and a suffix: `4.1.0-SNAPSHOT` → `(4, 1, Some(0), "-SNAPSHOT")`,
/// `3.0.10.0` → `(3, 0, Some(10), ".0")`.
struct Parsed<'a> {
    major: u32,
    minor: u32,
    patch: Option<u32>,
    suffix: &'a str,
}

fn leading_number(s: &str) -> Option<(u32, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, rest) = s.split_at(end);
    if digits.is_empty() || digits.len() > 6 {
        return None;
    }
    digits.parse().ok().map(|n| (n, rest))
}

fn parse_numbers(text: &str) -> Option<Parsed<'_>> {
    let s = text.strip_prefix('v').unwrap_or(text);
    let (major, rest) = leading_number(s)?;
    let rest = rest.strip_prefix('.')?;
    let (minor, rest) = leading_number(rest)?;
    let (patch, suffix) = match rest.strip_prefix('.').and_then(leading_number) {
        Some((p, tail)) => (Some(p), tail),
        None => (None, rest),
    };
    Some(Parsed {
        major,
        minor,
        patch,
        suffix,
    })
}

/// The line names the planner has always accepted, plus `4.1` / `4.2`: each the newest patch.
fn alias(text: &str) -> Option<Line> {
    match text {
        "3.x" | "3" => Some(Line::V3_3),
        "3.0" | "3.0.x" => Some(Line::V3_0),
        "3.3" | "3.3.x" => Some(Line::V3_3),
        "4.x" | "4" | "4.0" | "4.0.x" => Some(Line::V4_0),
        "4.1" | "4.1.x" => Some(Line::V4_1),
        "4.2" | "4.2.x" => Some(Line::V4_2),
        "5.0" | "5" | "5.x" | "5.0.x" => Some(Line::V5_0),
        "master-90cba329" | "oracle" | "master" => Some(Line::Master),
        _ => None,
    }
}

/// The newest known release not newer than `(major, minor, patch, stage)`, else the oldest known.
fn nearest(major: u32, minor: u32, patch: u32, stage: Stage) -> Release {
    let key = (major, minor, patch, stage);
    let versioned: Vec<Release> = Release::known()
        .into_iter()
        .filter(|r| r.line != Line::Master)
        .collect();
    let as_key = |r: &Release| {
        let (a, b) = r.line.numbers().unwrap_or((0, 0));
        (a, b, r.patch, r.stage)
    };
    versioned
        .iter()
        .rev()
        .find(|r| as_key(r) <= key)
        .or_else(|| versioned.first())
        .copied()
        .unwrap_or(Release::MASTER_90CBA329)
}

fn line_of(major: u32, minor: u32) -> Option<Line> {
    Line::ALL
        .into_iter()
        .find(|l| l.numbers() == Some((major, minor)))
}

/// Resolves a version text to a release: a line alias (newest patch), an exact known release, or
/// the nearest known release with a warning naming both. Text that is not a version is an error
/// naming it.
pub fn resolve_version(text: &str) -> Result<VersionMatch, VersionError> {
    let t = text.trim();
    if let Some(line) = alias(t) {
        let release = line.newest();
        let note = (line != Line::Master).then(|| {
            format!(
                "`{t}` is the newest {} release known, {release}",
                line.label()
            )
        });
        return Ok(VersionMatch {
            release,
            note,
            approximate: false,
        });
    }
    let bad = || VersionError::NotAVersion {
        value: text.to_string(),
    };
    let p = parse_numbers(t).ok_or_else(bad)?;
    let upper = p.suffix.to_ascii_uppercase();
    let stage = if upper.starts_with("-M1") {
        Stage::M1
    } else if upper.starts_with("-M2") {
        Stage::M2
    } else {
        Stage::Final
    };
    let patch = p.patch.unwrap_or(0);
    let exact = line_of(p.major, p.minor).map(|line| Release { line, patch, stage });
    let mut notes = Vec::new();
    let mut approximate = false;
    let release = match exact {
        Some(r) if r.is_known() => r,
        _ => {
            let r = nearest(p.major, p.minor, patch, stage);
            approximate = true;
            notes.push(format!(
                "Pulsar {t} is not a release the planner knows: using the nearest known, {r}"
            ));
            r
        }
    };
    let suffix = p.suffix.trim_start_matches(['-', '.', '+']);
    if !suffix.is_empty() && stage == Stage::Final {
        if upper.contains("SNAPSHOT") {
            notes.push(format!(
                "{t} is a development build: planned as {release}, whose fixes it may lack or exceed"
            ));
        } else {
            notes.push(format!(
                "{t} carries a vendor suffix `{suffix}`: planned as upstream {release}; vendor backports are not modelled"
            ));
        }
    }
    Ok(VersionMatch {
        release,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        approximate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> Release {
        resolve_version(text).unwrap().release
    }

    #[test]
    fn full_versions_and_broker_version_strings() {
        assert_eq!(r("4.0.7").name(), "4.0.7");
        assert_eq!(r("4.0.0").name(), "4.0.0");
        assert_eq!(r("3.0.12").name(), "3.0.12");
        assert_eq!(r("4.1.0-SNAPSHOT").name(), "4.1.0");
        assert_eq!(r("5.0.0-M1").name(), "5.0.0-M1");
        assert_eq!(r("5.0.0-M2").name(), "5.0.0-M2");
        // A vendor build (four numbers) is its upstream patch, said so.
        let v = resolve_version("3.0.10.0").unwrap();
        assert_eq!(v.release.name(), "3.0.10");
        assert!(v.note.unwrap().contains("vendor suffix"));
        assert!(resolve_version("4.0.7").unwrap().note.is_none());
    }

    #[test]
    fn line_names_are_the_newest_patch() {
        assert_eq!(r("4.x").name(), "4.0.14");
        assert_eq!(r("4.1").name(), "4.1.3");
        assert_eq!(r("4.2").name(), "4.2.5");
        assert_eq!(r("5.0").name(), "5.0.0");
        assert_eq!(r("3.x").name(), "3.3.9");
        assert_eq!(r("3.0").name(), "3.0.17");
        assert_eq!(r("master-90cba329"), Release::MASTER_90CBA329);
    }

    #[test]
    fn unknown_versions_take_the_nearest_known_and_say_so() {
        let v = resolve_version("4.0.15").unwrap();
        assert_eq!(v.release.name(), "4.0.14");
        assert!(v.approximate);
        assert!(v.note.as_deref().unwrap().contains("4.0.15"));
        assert!(v.note.as_deref().unwrap().contains("4.0.14"));
        assert_eq!(r("3.2.4").name(), "3.0.17");
        assert_eq!(r("4.3.0").name(), "4.2.5");
        assert_eq!(r("6.1.2").name(), "5.0.0");
        assert_eq!(r("2.11.0-SNAPSHOT").name(), "3.0.0");
    }

    #[test]
    fn text_that_is_no_version_is_an_error_naming_it() {
        for bad in ["", "four", "latest", "x.1.2", "4.", "v"] {
            let e = resolve_version(bad).unwrap_err();
            assert!(e.to_string().contains(&format!("`{bad}`")), "{e}");
        }
    }
}
