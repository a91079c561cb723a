//! Import warnings grouped for people: one group per kind, with its count, the kinds an operator
//! can act on (an export to add, a file that was skipped, a conflict) first and in full, then the
//! informational ones with their first examples. The CLI prints these; the JSON warnings keep every warning and file.

use super::diag::{ImportWarning, WarningKind};

/// Examples shown per informational group.
pub const GROUP_EXAMPLES: usize = 3;

/// One kind of warning: how many places produced it and the first few.
#[derive(Clone, Debug, PartialEq)]
pub struct WarningGroup {
    pub kind: WarningKind,
    /// Places (files, JSON paths) that produced it, merged duplicates included.
    pub count: usize,
    /// Whether the operator can do something about it (export another file, fix a conflict).
    pub actionable: bool,
    /// What the kind means, in a few words.
    pub title: &'static str,
    /// The likely cause, when one is known.
    pub cause: Option<&'static str>,
    /// The warnings shown, in import order: all of an actionable kind, else the first
    /// [`GROUP_EXAMPLES`].
    pub examples: Vec<ImportWarning>,
    /// Warnings of the kind not in `examples`.
    pub hidden: usize,
}

/// (actionable, title, likely cause) of a kind.
fn describe(kind: WarningKind) -> (bool, &'static str, Option<&'static str>) {
    use WarningKind as K;
    match kind {
        K::MissingReport => (true, "brokers without a load report", None),
        K::NotModelled => (true, "exports not used", None),
        K::IgnoredFile => (true, "files skipped", None),
        K::CollectGap => (true, "items lbplan collect could not fetch", None),
        K::DefaultBundleData => (
            true,
            "bundles without BundleData (Pulsar's defaults used)",
            None,
        ),
        K::OrphanBrokerData => (true, "data of brokers without a report", None),
        K::UnknownBroker => (true, "references to unknown brokers", None),
        K::LayoutConflict => (true, "conflicting namespace layouts", None),
        K::ValueConflict => (true, "conflicting values", None),
        K::ConfOverridden => (true, "broker.conf keys set twice", None),
        K::StaleBundle => (true, "stale bundle data dropped", None),
        K::ReportsApart => (true, "load reports captured far apart", None),
        K::Duplicate => (true, "names given twice", None),
        K::InconsistentReport => (
            false,
            "reports whose totals disagree with their bundles",
            Some(
                "a report that carries only its top-N bundles \
                 (loadBalancerMaxNumberOfBundlesInBundleLoadReport, default 10) has totals above \
                 the sum of the bundles it lists",
            ),
        ),
        K::UnknownField => (false, "unknown fields ignored", None),
        K::InferredLayout => (false, "layouts inferred from bundle names", None),
        K::GuessedLayout => (false, "layouts guessed", None),
        K::RecomputedTimeAverage => (false, "time averages recomputed", None),
        K::UnsampledResource => (false, "resources Pulsar did not sample", None),
        K::MissingResource => (false, "resources missing from reports", None),
        K::BrokerNamedFromFile => (false, "brokers named after their file", None),
        K::ConfKeyIgnored => (
            false,
            "broker.conf keys the load manager does not read",
            None,
        ),
        K::CapturedAt => (false, "capture time taken from the reports", None),
        K::Truncated => (false, "warnings not kept", None),
    }
}

/// Groups `warnings` by kind: actionable kinds first, then the others, each in order of first
/// appearance.
pub fn group_warnings(warnings: &[ImportWarning]) -> Vec<WarningGroup> {
    let mut groups: Vec<WarningGroup> = Vec::new();
    for w in warnings {
        let i = match groups.iter().position(|g| g.kind == w.kind) {
            Some(i) => i,
            None => {
                let (actionable, title, cause) = describe(w.kind);
                groups.push(WarningGroup {
                    kind: w.kind,
                    count: 0,
                    actionable,
                    title,
                    cause,
                    examples: Vec::new(),
                    hidden: 0,
                });
                groups.len() - 1
            }
        };
        let Some(g) = groups.get_mut(i) else {
            continue;
        };
        g.count += 1 + w.more;
        // Actionable warnings are all shown: each names something to export or fix.
        if g.actionable || g.examples.len() < GROUP_EXAMPLES {
            g.examples.push(w.clone());
        } else {
            g.hidden += 1;
        }
    }
    // Stable: first appearance kept within each half.
    groups.sort_by_key(|g| !g.actionable);
    groups
}
