//! The one table of load-balancing behaviour by release: each behaviour-changing pull request with
//! the first release of each line that carries it. Sources (release-notes page per patch release,
//! and the release branches' history) are in `docs/versions.md`. Code never compares versions: it
//! reads the flags [`super::Behaviour`] resolves from this table.

use serde::{Deserialize, Serialize};

use super::version::{Line, Release, Stage};

/// A behaviour change of the load-balancing path (in JSON, its snake_case name:
/// `avg_shedder_exact_comparator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// PIP-364 (#22949, #23053): `AvgShedder` exists (shedding and placement).
    AvgShedderAvailable,
    /// #22821: `loadBalancerDirectMemoryResourceWeight` default 1.0 → 0.0.
    DirectMemoryWeightZero,
    /// PIP-358 (#22888): OverloadShedder, LeastLongTermMessageRate and the placement overload check
    /// compare the weighted max usage.
    WeightedOverloadChecks,
    /// #21906: UniformLoadShedder no longer accepts `metric <= need + 1000`.
    UniformSlackRemoved,
    /// #24954: AvgShedder sorts brokers by an exact comparison, not `(int)(a - b)`.
    AvgShedderExactComparator,
    /// PIP-457 (#25275, #25304): V1 names dropped; the SLA pattern becomes `sla-monitor/<host:port>`.
    Pip457NamePatterns,
    /// #26031: a shedding/placement pair that cannot be created stops the broker instead of a silent
    /// fallback to SimpleLoadManagerImpl.
    FailFastOnMisconfiguration,
    /// #26246: AvgShedder remembers destinations by bundle name, not by the `BundleData` value.
    AvgShedderDestinationsByName,
    /// #25518: `unload --destinationBroker` affinity keyed by full bundle name, not by range.
    AffinityByFullBundleName,
    /// #25031: a bundle that no longer exists is not split.
    SkipSplitOfMissingBundle,
    /// #24883: `loadBalancerOverrideBrokerNics` exists.
    OverrideBrokerNics,
    /// #26253: a former leader stops shedding and writing load data.
    FormerLeaderStopsShedding,
    /// #26609 / #26610: 5.0 defaults (AvgShedder both ways, `maxUnloadPercentage` 0.5, even
    /// distribution off, 32 bundles, 64 for system namespaces).
    #[serde(rename = "defaults_5_0")]
    Defaults50,
}

/// A row: the change, its pull requests, what it changes, and the first release per line.
#[derive(Clone, Copy, Debug)]
pub struct ChangeRow {
    pub change: Change,
    pub prs: &'static [u32],
    pub summary: &'static str,
    /// The first release of each line carrying it; a line absent here never carries it.
    pub first: &'static [Release],
    /// In master at 90cba329 (the conformance oracle's commit).
    pub in_master_90cba329: bool,
    /// Whether a first-release cell rests on inference rather than a release note or the branch's
    /// history (docs/versions.md says which).
    pub uncertain: bool,
}

const fn rel(line: Line, patch: u32) -> Release {
    Release {
        line,
        patch,
        stage: Stage::Final,
    }
}

const M1: Release = Release {
    line: Line::V5_0,
    patch: 0,
    stage: Stage::M1,
};
const M2: Release = Release {
    line: Line::V5_0,
    patch: 0,
    stage: Stage::M2,
};
const GA50: Release = rel(Line::V5_0, 0);

/// The table (docs/versions.md renders it with sources).
pub const CHANGES: &[ChangeRow] = &[
    ChangeRow {
        change: Change::AvgShedderAvailable,
        prs: &[22949, 23053],
        summary: "AvgShedder (shedding and placement) exists",
        first: &[
            rel(Line::V3_0, 6),
            rel(Line::V3_3, 1),
            rel(Line::V4_0, 0),
            rel(Line::V4_1, 0),
            rel(Line::V4_2, 0),
            M1,
        ],
        in_master_90cba329: true,
        uncertain: false,
    },
    ChangeRow {
        change: Change::DirectMemoryWeightZero,
        prs: &[22821],
        summary: "loadBalancerDirectMemoryResourceWeight default 1.0 → 0.0",
        first: &[
            rel(Line::V3_3, 1),
            rel(Line::V4_0, 0),
            rel(Line::V4_1, 0),
            rel(Line::V4_2, 0),
            M1,
        ],
        in_master_90cba329: true,
        uncertain: false,
    },
    ChangeRow {
        change: Change::WeightedOverloadChecks,
        prs: &[22888],
        summary: "OverloadShedder, LeastLongTermMessageRate and the placement overload check use the weighted max usage (PIP-358)",
        first: &[
            rel(Line::V4_0, 0),
            rel(Line::V4_1, 0),
            rel(Line::V4_2, 0),
            M1,
        ],
        in_master_90cba329: true,
        uncertain: false,
    },
    ChangeRow {
        change: Change::UniformSlackRemoved,
        prs: &[21906],
        summary: "UniformLoadShedder's +1000 slack removed",
        first: &[rel(Line::V4_1, 0), rel(Line::V4_2, 0), M1],
        in_master_90cba329: true,
        uncertain: false,
    },
    ChangeRow {
        change: Change::AvgShedderExactComparator,
        prs: &[24954],
        summary: "AvgShedder's broker comparator exact instead of (int)(a - b)",
        first: &[
            rel(Line::V4_0, 8),
            rel(Line::V4_1, 2),
            rel(Line::V4_2, 0),
            M1,
        ],
        in_master_90cba329: true,
        uncertain: false,
    },
    ChangeRow {
        change: Change::Pip457NamePatterns,
        prs: &[25275, 25304],
        summary: "V1 names and their heartbeat/SLA patterns dropped; sla-monitor/<host:port> recognised (PIP-457)",
        first: &[rel(Line::V4_2, 0), M1],
        in_master_90cba329: true,
        uncertain: false,
    },
    ChangeRow {
        change: Change::FailFastOnMisconfiguration,
        prs: &[26031],
        summary: "a shedding/placement pair that cannot work stops the broker instead of a silent SimpleLoadManagerImpl",
        first: &[rel(Line::V4_0, 12), rel(Line::V4_2, 3), M1],
        in_master_90cba329: true,
        uncertain: false,
    },
    ChangeRow {
        change: Change::AvgShedderDestinationsByName,
        prs: &[26246],
        summary: "AvgShedder remembers destinations by bundle name, not by the mutable BundleData",
        first: &[rel(Line::V4_0, 14), rel(Line::V4_2, 5), M2],
        in_master_90cba329: false,
        uncertain: false,
    },
    ChangeRow {
        change: Change::AffinityByFullBundleName,
        prs: &[25518],
        summary: "unload --destinationBroker affinity keyed by full bundle name, not by range",
        first: &[rel(Line::V4_0, 10), rel(Line::V4_2, 1), M1],
        in_master_90cba329: true,
        uncertain: false,
    },
    ChangeRow {
        change: Change::SkipSplitOfMissingBundle,
        prs: &[25031],
        summary: "no split of a bundle that no longer exists",
        first: &[
            rel(Line::V4_0, 9),
            rel(Line::V4_1, 3),
            rel(Line::V4_2, 0),
            M1,
        ],
        in_master_90cba329: true,
        uncertain: false,
    },
    ChangeRow {
        change: Change::OverrideBrokerNics,
        prs: &[24883],
        summary: "loadBalancerOverrideBrokerNics exists",
        first: &[rel(Line::V4_2, 0), M1],
        in_master_90cba329: true,
        uncertain: false,
    },
    ChangeRow {
        change: Change::FormerLeaderStopsShedding,
        prs: &[26253],
        summary: "a former leader stops shedding and writing load data",
        first: &[rel(Line::V4_0, 14), rel(Line::V4_2, 5), M2],
        in_master_90cba329: false,
        uncertain: false,
    },
    ChangeRow {
        change: Change::Defaults50,
        prs: &[26609, 26610],
        summary: "5.0 defaults: AvgShedder both ways, maxUnloadPercentage 0.5, even distribution off, 32 bundles (64 for system namespaces)",
        first: &[GA50],
        in_master_90cba329: false,
        uncertain: true,
    },
];

impl ChangeRow {
    /// Whether `release` carries this change.
    pub fn carried_by(&self, release: Release) -> bool {
        if release.line == Line::Master {
            return self.in_master_90cba329;
        }
        self.first
            .iter()
            .find(|f| f.line == release.line)
            .is_some_and(|f| release >= *f)
    }

    /// The first release of `line` carrying the change, if any.
    pub fn first_in(&self, line: Line) -> Option<Release> {
        self.first.iter().find(|f| f.line == line).copied()
    }

    /// `apache/pulsar#24954` (or `#25275 / #25304`).
    pub fn pr_label(&self) -> String {
        let prs: Vec<String> = self.prs.iter().map(|n| format!("#{n}")).collect();
        format!("apache/pulsar{}", prs.join(" / "))
    }
}

/// The row of a change.
pub fn row(change: Change) -> Option<&'static ChangeRow> {
    CHANGES.iter().find(|r| r.change == change)
}
