//! The flags strategies read: one boolean per row of [`super::CHANGES`], resolved for a release.
//! Strategies never compare versions; they ask these flags.

use super::table::{CHANGES, Change};
use super::version::Release;

/// What a release does where releases differ (each flag is "this release carries the change").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Behaviour {
    pub avg_shedder_available: bool,
    pub direct_memory_weight_zero: bool,
    pub weighted_overload_checks: bool,
    pub uniform_slack_removed: bool,
    pub avg_shedder_exact_comparator: bool,
    pub pip457_name_patterns: bool,
    pub fail_fast_on_misconfiguration: bool,
    pub avg_shedder_destinations_by_name: bool,
    pub affinity_by_full_bundle_name: bool,
    pub skip_split_of_missing_bundle: bool,
    pub override_broker_nics: bool,
    pub former_leader_stops_shedding: bool,
    pub defaults_5_0: bool,
}

impl Behaviour {
    /// The flags of `release`, read from the table.
    pub fn of(release: Release) -> Behaviour {
        let mut b = Behaviour::default();
        for row in CHANGES {
            let on = row.carried_by(release);
            let flag = match row.change {
                Change::AvgShedderAvailable => &mut b.avg_shedder_available,
                Change::DirectMemoryWeightZero => &mut b.direct_memory_weight_zero,
                Change::WeightedOverloadChecks => &mut b.weighted_overload_checks,
                Change::UniformSlackRemoved => &mut b.uniform_slack_removed,
                Change::AvgShedderExactComparator => &mut b.avg_shedder_exact_comparator,
                Change::Pip457NamePatterns => &mut b.pip457_name_patterns,
                Change::FailFastOnMisconfiguration => &mut b.fail_fast_on_misconfiguration,
                Change::AvgShedderDestinationsByName => &mut b.avg_shedder_destinations_by_name,
                Change::AffinityByFullBundleName => &mut b.affinity_by_full_bundle_name,
                Change::SkipSplitOfMissingBundle => &mut b.skip_split_of_missing_bundle,
                Change::OverrideBrokerNics => &mut b.override_broker_nics,
                Change::FormerLeaderStopsShedding => &mut b.former_leader_stops_shedding,
                Change::Defaults50 => &mut b.defaults_5_0,
            };
            *flag = on;
        }
        b
    }

    /// Whether the flag of `change` is set.
    pub fn has(&self, change: Change) -> bool {
        match change {
            Change::AvgShedderAvailable => self.avg_shedder_available,
            Change::DirectMemoryWeightZero => self.direct_memory_weight_zero,
            Change::WeightedOverloadChecks => self.weighted_overload_checks,
            Change::UniformSlackRemoved => self.uniform_slack_removed,
            Change::AvgShedderExactComparator => self.avg_shedder_exact_comparator,
            Change::Pip457NamePatterns => self.pip457_name_patterns,
            Change::FailFastOnMisconfiguration => self.fail_fast_on_misconfiguration,
            Change::AvgShedderDestinationsByName => self.avg_shedder_destinations_by_name,
            Change::AffinityByFullBundleName => self.affinity_by_full_bundle_name,
            Change::SkipSplitOfMissingBundle => self.skip_split_of_missing_bundle,
            Change::OverrideBrokerNics => self.override_broker_nics,
            Change::FormerLeaderStopsShedding => self.former_leader_stops_shedding,
            Change::Defaults50 => self.defaults_5_0,
        }
    }

    /// The changes whose flag differs between `self` and `other` (for an upgrade preview).
    pub fn differences(&self, other: &Behaviour) -> Vec<Change> {
        CHANGES
            .iter()
            .map(|r| r.change)
            .filter(|c| self.has(*c) != other.has(*c))
            .collect()
    }

    /// The changes among `reads` (every row when `None`: what a decision reads is unknown) whose
    /// flag differs between `self` and `other`.
    pub fn differences_in(&self, other: &Behaviour, reads: Option<&[Change]>) -> Vec<Change> {
        self.differences(other)
            .into_iter()
            .filter(|c| reads.is_none_or(|r| r.contains(c)))
            .collect()
    }

    /// Whether two releases decide alike for a decision that reads the rows `reads` (the plan's
    /// `release_basis.reads`; `None`: every row): the one rule of the apply and export checks.
    pub fn decides_alike(&self, other: &Behaviour, reads: Option<&[Change]>) -> bool {
        self.differences_in(other, reads).is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::resolve_version;

    fn b(v: &str) -> Behaviour {
        Behaviour::of(resolve_version(v).unwrap().release)
    }

    /// Both sides of each row's first release in one line, from the release notes / branch history
    /// in docs/versions.md.
    #[test]
    fn each_row_flips_at_its_first_release() {
        let sides: &[(Change, &str, &str)] = &[
            (Change::AvgShedderAvailable, "3.0.5", "3.0.6"),
            (Change::AvgShedderAvailable, "3.3.0", "3.3.1"),
            (Change::DirectMemoryWeightZero, "3.3.0", "3.3.1"),
            (Change::WeightedOverloadChecks, "3.3.9", "4.0.0"),
            (Change::UniformSlackRemoved, "4.0.14", "4.1.0"),
            (Change::AvgShedderExactComparator, "4.0.7", "4.0.8"),
            (Change::AvgShedderExactComparator, "4.1.1", "4.1.2"),
            (Change::Pip457NamePatterns, "4.1.3", "4.2.0"),
            (Change::FailFastOnMisconfiguration, "4.0.11", "4.0.12"),
            (Change::FailFastOnMisconfiguration, "4.2.2", "4.2.3"),
            (Change::AvgShedderDestinationsByName, "4.0.13", "4.0.14"),
            (Change::AvgShedderDestinationsByName, "5.0.0-M1", "5.0.0-M2"),
            (Change::AffinityByFullBundleName, "4.0.9", "4.0.10"),
            (Change::AffinityByFullBundleName, "4.2.0", "4.2.1"),
            (Change::SkipSplitOfMissingBundle, "4.0.8", "4.0.9"),
            (Change::SkipSplitOfMissingBundle, "4.1.2", "4.1.3"),
            (Change::OverrideBrokerNics, "4.1.3", "4.2.0"),
            (Change::FormerLeaderStopsShedding, "4.2.4", "4.2.5"),
            (Change::Defaults50, "5.0.0-M2", "5.0.0"),
        ];
        for (change, before, after) in sides {
            assert!(!b(before).has(*change), "{change:?} not in {before}");
            assert!(b(after).has(*change), "{change:?} in {after}");
        }
    }

    #[test]
    fn lines_that_never_got_a_fix_do_not_have_it() {
        // #25518 is on branch-4.1 but no 4.1 release after 4.1.3 carries it.
        assert!(!b("4.1.3").affinity_by_full_bundle_name);
        // #21906 never reached 3.x or 4.0.
        assert!(!b("3.0.17").uniform_slack_removed);
        assert!(!b("4.0.14").uniform_slack_removed);
        // The oracle's master commit: #21906, #24954, PIP-457, #26031 yes; #26246, #26253, 5.0 defaults no.
        let m = b("master-90cba329");
        assert!(
            m.uniform_slack_removed && m.avg_shedder_exact_comparator && m.pip457_name_patterns
        );
        assert!(m.fail_fast_on_misconfiguration);
        assert!(!m.avg_shedder_destinations_by_name && !m.former_leader_stops_shedding);
        assert!(!m.defaults_5_0);
    }
}
