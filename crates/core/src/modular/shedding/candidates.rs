//! What the four modular shedders share: a broker's candidate bundles ranked by a traffic metric the
//! way Pulsar's stream pipelines rank them, Java's `Double.compare`, and Java's `(int)` conversion.

use std::cmp::Ordering;

use crate::model::{BundleData, LocalBrokerData};
use crate::modular::LoadData;
use crate::modular::load_data::hidden_from_shedding;
use crate::modular::load_data::namespace_of_bundle;
use crate::reason::{DecisionReason, ReasonKind};

/// One bundle of a broker that may be unloaded, with the metric it was ranked by.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate<'a> {
    pub name: &'a str,
    pub data: &'a BundleData,
    pub value: f64,
}

/// Java's `Double.compare(a, b)`: `-0.0 < 0.0`, and NaN (any bit pattern) equals itself and is
/// larger than everything, including +∞.
pub(crate) fn java_double_compare(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.total_cmp(&b),
    }
}

/// Java's `(int) x` for a double: truncation toward zero, saturating at the `int` range, NaN → 0.
/// Rust's float-to-int `as` has exactly these semantics, which is why it is used here.
pub(crate) fn java_int(x: f64) -> i32 {
    x as i32
}

/// `bundle_data_for_shedding()` restricted to `broker`'s bundles, minus recently unloaded ones, in
/// the iteration order of `LoadData::bundle_data`, then stably sorted by descending `metric`
/// (`sorted((e1, e2) -> Double.compare(e2, e1))` in Pulsar; ties keep iteration order).
pub(crate) fn ranked_candidates<'a>(
    data: &'a LoadData,
    include_v1_heartbeat_names: bool,
    broker: &LocalBrokerData,
    metric: impl Fn(&BundleData) -> f64,
) -> Vec<Candidate<'a>> {
    ranked_candidates_counted(data, include_v1_heartbeat_names, broker, metric).0
}

/// What the exclusions of [`ranked_candidates`] took from a broker's bundle list, counted per
/// listed name in the order [`no_candidate_reason`] tests them: a heartbeat or SLA-monitor bundle,
/// else one without bundle data, else one unloaded within the grace period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Excluded {
    recent: u64,
    heartbeat: u64,
    no_data: u64,
}

/// [`ranked_candidates`] with its [`Excluded`] counts, from one pass over the broker's list: a
/// shedder that finds no candidate explains why with these counts instead of looking every bundle
/// up again (two hashes of each name; on the history's replayed cycles, most brokers over the
/// threshold have only bundles within the grace period, and the second pass cost as much as the
/// first). The candidates are the same: a listed name is excluded by the same tests, only in an
/// order that also counts, and the kept positions are sorted and deduplicated as before.
pub(crate) fn ranked_candidates_counted<'a>(
    data: &'a LoadData,
    include_v1_heartbeat_names: bool,
    broker: &LocalBrokerData,
    metric: impl Fn(&BundleData) -> f64,
) -> (Vec<Candidate<'a>>, Excluded) {
    // The broker's own bundles taken in `bundle_data` order (by position), rather than filtering
    // every bundle of the cluster: the same candidates in the same order, in O(bundles of the
    // broker) — this runs once per shed broker per cycle in multi-cycle simulations.
    // A view built from a snapshot files `bundle_data` in the order of the brokers' lists, and a
    // kept view keeps that order for every bundle that has not moved: the entry after the last one
    // found is compared first (names are unique keys, so a match is the lookup's answer), and only
    // a miss hashes the name.
    let mut excluded = Excluded::default();
    let mut positions: Vec<usize> = Vec::with_capacity(broker.bundles.len());
    let mut next = 0_usize;
    for name in &broker.bundles {
        if is_heartbeat_or_sla_bundle(name, include_v1_heartbeat_names) {
            excluded.heartbeat += 1;
        } else {
            let at = match data.bundle_data.get_index(next) {
                Some((k, _)) if k == name => Some(next),
                _ => data.bundle_data.get_index_of(name.as_str()),
            };
            if let Some(p) = at {
                next = p + 1;
            }
            match at {
                None => excluded.no_data += 1,
                Some(_) if data.recently_unloaded.contains_key(name.as_str()) => {
                    excluded.recent += 1;
                }
                Some(p) => positions.push(p),
            }
        }
    }
    positions.sort_unstable();
    positions.dedup();
    let mut out: Vec<Candidate<'a>> = positions
        .into_iter()
        .filter_map(|p| data.bundle_data.get_index(p))
        .map(|(name, bundle)| Candidate {
            name: name.as_str(),
            data: bundle,
            value: metric(bundle),
        })
        .collect();
    out.sort_by(|a, b| java_double_compare(b.value, a.value));
    (out, excluded)
}

/// Whether `name` is a bundle of a heartbeat or SLA-monitor namespace. Such a namespace starts
/// with `pulsar/` or `sla-monitor/`, and a namespace is the start of its bundles' names, so a name
/// starting with neither is answered without finding its namespace (a search for the last `/`,
/// for every bundle of every broker the shedders look at).
fn is_heartbeat_or_sla_bundle(name: &str, include_v1_heartbeat_names: bool) -> bool {
    (name.starts_with("pulsar/") || name.starts_with("sla-monitor/"))
        && hidden_from_shedding(namespace_of_bundle(name), include_v1_heartbeat_names)
}

/// `LocalBrokerData.getBundles().size() > 1` (a set): whether the report names at least two
/// distinct bundles. The shedders only ever compare the count with 1, so no set is built: the
/// answer is whether any name differs from the first.
pub(crate) fn has_several_bundles(broker: &LocalBrokerData) -> bool {
    let mut names = broker.bundles.iter();
    let Some(first) = names.next() else {
        return false;
    };
    names.any(|b| b != first)
}

/// Short-term msgThroughputIn + msgThroughputOut (bytes/s).
pub(crate) fn short_term_throughput(b: &BundleData) -> f64 {
    b.short_term_data.msg_throughput_in + b.short_term_data.msg_throughput_out
}

/// Short-term msgRateIn + msgRateOut (msg/s).
pub(crate) fn short_term_rate(b: &BundleData) -> f64 {
    b.short_term_data.msg_rate_in + b.short_term_data.msg_rate_out
}

/// The pick loop of ThresholdShedder and OverloadShedder: walk candidates by descending throughput,
/// take one while less than `need_bytes_per_sec` is marked, and always take the first (so it
/// overshoots). Returns `(bundle, its throughput)` in selection order.
pub(crate) fn pick_until_covered<'a>(
    candidates: &[Candidate<'a>],
    need_bytes_per_sec: f64,
) -> Vec<Candidate<'a>> {
    let mut marked = 0.0_f64;
    let mut picked = Vec::new();
    for c in candidates {
        if marked < need_bytes_per_sec || picked.is_empty() {
            marked += c.value;
            picked.push(*c);
        }
    }
    picked
}

/// Why a broker with several bundles has no candidate: how many of its bundles each exclusion took
/// (`recently_unloaded` when any was unloaded within the grace period, else `no_unloadable_bundle`).
pub(crate) fn no_candidate_reason(
    data: &LoadData,
    include_v1_heartbeat_names: bool,
    broker: &LocalBrokerData,
) -> DecisionReason {
    let (mut recent, mut heartbeat, mut no_data) = (0_u64, 0_u64, 0_u64);
    for name in &broker.bundles {
        if is_heartbeat_or_sla_bundle(name, include_v1_heartbeat_names) {
            heartbeat += 1;
        } else if !data.bundle_data.contains_key(name.as_str()) {
            no_data += 1;
        } else if data.recently_unloaded.contains_key(name.as_str()) {
            recent += 1;
        }
    }
    excluded_reason(
        Excluded {
            recent,
            heartbeat,
            no_data,
        },
        broker,
    )
}

/// [`no_candidate_reason`] from the counts [`ranked_candidates_counted`] made.
pub(crate) fn excluded_reason(e: Excluded, broker: &LocalBrokerData) -> DecisionReason {
    let kind = if e.recent > 0 {
        ReasonKind::RecentlyUnloaded
    } else {
        ReasonKind::NoUnloadableBundle
    };
    DecisionReason::new(kind)
        .with("bundles", broker.bundles.len())
        .with("recently_unloaded", e.recent)
        .with("heartbeat_or_sla", e.heartbeat)
        .with("without_bundle_data", e.no_data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_bundles_means_two_distinct_names() {
        let with = |names: &[&str]| LocalBrokerData {
            bundles: names.iter().map(|s| s.to_string()).collect(),
            ..LocalBrokerData::default()
        };
        assert!(!has_several_bundles(&with(&[])));
        assert!(!has_several_bundles(&with(&["t/n/0x0_0x1"])));
        assert!(!has_several_bundles(&with(&["t/n/0x0_0x1", "t/n/0x0_0x1"])));
        assert!(has_several_bundles(&with(&[
            "t/n/0x0_0x1",
            "t/n/0x0_0x1",
            "t/n/0x1_0x2"
        ])));
    }

    #[test]
    fn java_conversions() {
        assert_eq!(java_int(2.9), 2);
        assert_eq!(java_int(-2.9), -2);
        assert_eq!(java_int(1e300), i32::MAX);
        assert_eq!(java_int(f64::NAN), 0);
        assert_eq!(java_double_compare(-0.0, 0.0), Ordering::Less);
        assert_eq!(
            java_double_compare(f64::NAN, f64::INFINITY),
            Ordering::Greater
        );
        assert_eq!(java_double_compare(-f64::NAN, f64::NAN), Ordering::Equal);
    }

    #[test]
    fn one_pass_counts_what_no_candidate_reason_counts() {
        let mut data = LoadData::default();
        for b in [
            "t/n/0x0_0x1",
            "t/n/0x1_0x2",
            "t/n/0x2_0x3",
            "pulsar/h:8080/0x0_0x1",
        ] {
            data.bundle_data
                .insert(b.to_string(), BundleData::default());
        }
        data.recently_unloaded.insert("t/n/0x1_0x2".to_string(), 1);
        let listed = [
            "t/n/0x1_0x2",
            "t/n/0x0_0x1",
            "t/n/0x9_0xa",
            "pulsar/h:8080/0x0_0x1",
            "t/n/0x1_0x2",
            "t/n/0x0_0x1",
        ];
        let broker = LocalBrokerData {
            bundles: listed.iter().map(|s| s.to_string()).collect(),
            ..LocalBrokerData::default()
        };
        let (candidates, excluded) = ranked_candidates_counted(&data, false, &broker, |_| 1.0);
        let names: Vec<&str> = candidates.iter().map(|c| c.name).collect();
        assert_eq!(names, ["t/n/0x0_0x1"]);
        assert_eq!(
            excluded,
            Excluded {
                recent: 2,
                heartbeat: 1,
                no_data: 1
            }
        );
        assert_eq!(
            excluded_reason(excluded, &broker),
            no_candidate_reason(&data, false, &broker)
        );
        assert_eq!(ranked_candidates(&data, false, &broker, |_| 1.0).len(), 1);
    }
}
