//! `TopKBundles`: the k largest bundles of a broker, as it publishes them in `TopBundlesLoadData`
//! (§2.9). TransferShedder walks that list in order, so the exact order — ties included — matters; the
//! partial sort below follows Pulsar's `partitionSort` step by step.

use std::cmp::Ordering;

use indexmap::IndexMap;

use crate::model::{NamespaceBundleStats, TopBundle, TopBundlesLoadData};
use crate::modular::load_data::namespace_of_bundle;
use crate::naming::is_sla_or_heartbeat_namespace;

/// The system namespace whose bundles are never reported.
pub const SYSTEM_NAMESPACE: &str = "pulsar/system";

/// What `TopKBundles.update` reads besides the stats.
pub struct TopKFilter<'a> {
    /// `loadBalancerSheddingExcludedNamespaces`.
    pub shedding_excluded_namespaces: &'a [String],
    /// `loadBalancerSheddingBundlesWithPoliciesEnabled`.
    pub shedding_bundles_with_policies_enabled: bool,
    /// Whether a namespace has an isolation policy or an anti-affinity group.
    pub namespace_has_policies: &'a dyn Fn(&str) -> bool,
}

/// `NamespaceService.isSystemServiceNamespace`: `pulsar/system`, heartbeat and SLA-monitor namespaces.
pub fn is_system_service_namespace(namespace: &str) -> bool {
    namespace == SYSTEM_NAMESPACE || is_sla_or_heartbeat_namespace(namespace)
}

/// `TopKBundles.update(bundleStats, k)`: filters the bundles, keeps the k largest by
/// `NamespaceBundleStats.compareTo` and returns them ascending (largest last). `bundle_stats` is in the
/// broker's map iteration order, which decides the order among coarse-equal bundles.
pub fn top_k_bundles(
    bundle_stats: &IndexMap<String, NamespaceBundleStats>,
    k: i64,
    filter: &TopKFilter<'_>,
) -> TopBundlesLoadData {
    let mut arr: Vec<(&String, &NamespaceBundleStats)> = bundle_stats
        .iter()
        .filter(|(bundle, stats)| {
            // Idle bundles cannot relieve anyone.
            if stats.total_msg_throughput() == 0.0 {
                return false;
            }
            let namespace = namespace_of_bundle(bundle);
            if is_system_service_namespace(namespace) {
                return false;
            }
            if !filter.shedding_bundles_with_policies_enabled
                && (filter.namespace_has_policies)(namespace)
            {
                return false;
            }
            !filter
                .shedding_excluded_namespaces
                .iter()
                .any(|ns| ns == namespace)
        })
        .collect();
    let k = usize::try_from(k).unwrap_or(0).min(arr.len());
    if k == 0 {
        return TopBundlesLoadData::default();
    }
    partition_sort(&mut arr, k, |a, b| a.1.pulsar_cmp(b.1));
    let top_bundles_load_data = arr
        .iter()
        .take(k)
        .rev()
        .map(|(name, stats)| TopBundle {
            bundle_name: (*name).clone(),
            stats: **stats,
        })
        .collect();
    TopBundlesLoadData {
        top_bundles_load_data,
    }
}

/// Pulsar's `TopKBundles.partitionSort`: a three-way quickselect (pivot = last element, larger values
/// moved to the front) that stops once the k-th position falls inside the pivot's run, then a stable
/// descending sort of the prefix before that run. Afterwards `arr[0..k]` holds the k largest, largest
/// first. `1 <= k <= arr.len()`.
fn partition_sort<T: Copy>(arr: &mut [T], k: usize, cmp: impl Fn(&T, &T) -> Ordering) {
    let target = k - 1;
    let mut start = 0usize;
    let mut end = arr.len().saturating_sub(1);
    while start < end {
        let mut lo = start;
        let mut hi = end;
        let mut mid = lo;
        let Some(&pivot) = arr.get(hi) else { break };
        // `hi` only decreases while it is > `mid` >= `lo` >= 0, so it never underflows below `mid`.
        while mid <= hi {
            let Some(current) = arr.get(mid) else { break };
            match cmp(&pivot, current) {
                Ordering::Less => {
                    arr.swap(lo, mid);
                    lo += 1;
                    mid += 1;
                }
                Ordering::Greater => {
                    arr.swap(mid, hi);
                    if hi == 0 {
                        break;
                    }
                    hi -= 1;
                }
                Ordering::Equal => mid += 1,
            }
        }
        if lo <= target && target < mid {
            end = lo;
            break;
        }
        if target < lo {
            // `target < lo` implies `lo >= 1`.
            end = lo - 1;
        } else {
            start = mid;
        }
    }
    if let Some(prefix) = arr.get_mut(..end) {
        prefix.sort_by(|a, b| cmp(b, a));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `isSystemServiceNamespace`: `pulsar/system`, `SLA_NAMESPACE_PATTERN`
    /// (`sla-monitor/<cluster>/<host:port>`, no V2 form) and both heartbeat patterns.
    #[test]
    fn system_service_namespaces_are_pulsars() {
        assert!(is_system_service_namespace("pulsar/system"));
        assert!(is_system_service_namespace("pulsar/10.0.0.1:8080"));
        assert!(is_system_service_namespace("pulsar/use/10.0.0.1:8080"));
        assert!(is_system_service_namespace("sla-monitor/use/10.0.0.1:8080"));
        assert!(!is_system_service_namespace("sla-monitor/10.0.0.1:8080"));
        assert!(!is_system_service_namespace("public/default"));
    }

    fn stats(rate_in: f64, thr_out: f64) -> NamespaceBundleStats {
        NamespaceBundleStats {
            msg_rate_in: rate_in,
            msg_throughput_out: thr_out,
            ..Default::default()
        }
    }

    #[test]
    fn partition_sort_matches_full_sort_on_distinct_values() {
        for k in 1..=7 {
            let mut v = vec![5, 1, 7, 3, 3, 9, 0];
            partition_sort(&mut v, k, |a: &i32, b: &i32| a.cmp(b));
            let mut expect = vec![9, 7, 5, 3, 3, 1, 0];
            expect.truncate(k);
            let mut got: Vec<i32> = v.iter().take(k).copied().collect();
            got.sort_by(|a, b| b.cmp(a));
            assert_eq!(got, expect, "k={k}");
        }
    }

    #[test]
    fn system_and_excluded_namespaces_are_dropped() {
        let mut m = IndexMap::new();
        m.insert(
            "pulsar/system/0x00000000_0xffffffff".to_string(),
            stats(1.0, 1.0),
        );
        m.insert(
            "pulsar/10.0.0.1:8080/0x00000000_0xffffffff".to_string(),
            stats(1.0, 1.0),
        );
        m.insert(
            "t/excluded/0x00000000_0xffffffff".to_string(),
            stats(1.0, 1.0),
        );
        m.insert("t/ns/0x00000000_0xffffffff".to_string(), stats(1.0, 1.0));
        let excluded = vec!["t/excluded".to_string()];
        let out = top_k_bundles(
            &m,
            10,
            &TopKFilter {
                shedding_excluded_namespaces: &excluded,
                shedding_bundles_with_policies_enabled: false,
                namespace_has_policies: &|_| false,
            },
        );
        let names: Vec<&str> = out
            .top_bundles_load_data
            .iter()
            .map(|b| b.bundle_name.as_str())
            .collect();
        assert_eq!(names, vec!["t/ns/0x00000000_0xffffffff"]);
    }
}
