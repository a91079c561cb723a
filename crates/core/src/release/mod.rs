//! Version truth: which Pulsar release the leader runs, and what that release does where releases
//! differ. [`table`] holds each behaviour-changing PR with its first release per line,
//! [`Behaviour`] the flags resolved from it, [`version`] the parsing of version texts, [`basis`] the
//! choice of the release that decides (the leader's, the majority's or the operator's).

pub mod basis;
pub mod behaviour;
pub mod table;
pub mod version;

pub use basis::{BasisSource, ReleaseBasis, resolve_release};
pub use behaviour::Behaviour;
pub use table::{CHANGES, Change, ChangeRow};
pub use version::{Line, Release, Stage, VersionError, VersionMatch, resolve_version};

/// Every known release grouped by line, newest first within a line (for a release picker).
pub fn releases_by_line() -> Vec<(Line, Vec<Release>)> {
    Line::ALL
        .iter()
        .map(|&line| {
            let mut rs: Vec<Release> = Release::known()
                .into_iter()
                .filter(|r| r.line == line)
                .collect();
            rs.reverse();
            (line, rs)
        })
        .collect()
}

/// The line aliases a picker offers first (each the newest patch of its line).
pub const LINE_ALIASES: [&str; 7] = ["3.0", "3.x", "4.x", "4.1", "4.2", "5.0", "master-90cba329"];
