//! The basis of a Prometheus history in the text report: where the series came from, what was
//! derived, the gaps, and the leader's own counters beside the replay's counts (each line within
//! 120 columns, as the rest of the report).

use super::basis::SeriesBasis;
use crate::history::report::HistorySummary;

/// Lines for the text report (none for a recorded series: its basis is the leader's own data).
pub fn basis_lines(b: &SeriesBasis, s: &HistorySummary) -> Vec<String> {
    if !b.is_prometheus() {
        return Vec::new();
    }
    let mut out = vec![format!(
        "built from Prometheus ({} steps queried, {} left out as gaps): causes are consistent with \
         the leader,",
        b.steps_queried,
        b.gaps.len()
    )];
    out.push(
        "  not certain: the leader's BundleData and smoothed averages are derived (JSON: basis.derived)"
            .to_string(),
    );
    if let Some(n) = b.leader_unloads_counted {
        out.push(format!(
            "  the leader's counter pulsar_lb_unload_bundle_total rose by {n}; the replay predicted {} \
             unloads seen",
            s.moves_predicted
        ));
    } else {
        out.push("  no broker exposed pulsar_lb_unload_bundle_total: no cross-check".to_string());
    }
    if let Some(n) = b.leader_splits_counted {
        out.push(format!(
            "  pulsar_lb_bundles_split_total rose by {n}; splits seen {}",
            s.splits_seen
        ));
    }
    for g in b.gaps.iter().take(5) {
        let mut missing = g.missing.join(", ");
        if missing.len() > 60 {
            missing = format!("{} metrics", g.missing.len());
        }
        out.push(format!(
            "  gap at {} ms: {} missing {}",
            g.at_ms,
            crate::text::escape_control(&g.broker),
            missing
        ));
    }
    if b.gaps.len() > 5 {
        out.push(format!(
            "  … and {} more gaps (JSON: basis.gaps)",
            b.gaps.len() - 5
        ));
    }
    out
}
