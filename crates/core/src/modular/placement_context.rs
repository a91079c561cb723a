//! What the leader knows besides `LoadData` when it places a bundle ([`PlacementContext`]): the
//! anti-affinity groups, failure domains, isolation policies and the broker → namespace → bundle
//! range cache (`brokerToNamespaceToBundleRange`) that even distribution and anti-affinity count,
//! with the preallocations, the round-robin selector and the reused candidate set.

use indexmap::{IndexMap, IndexSet};

use super::placement::{PipelineTrace, RoundRobinBrokerSelector};
use super::{BrokerData, LoadData};
use crate::isolation::{IsolationPolicies, IsolationPolicyError};
use crate::model::NamespaceIsolationPolicy;
use crate::naming::java_map_order::{JavaHashTable, hash_map_hash};

/// `LoadManagerShared.DEFAULT_DOMAIN_TYPE`: the failure domain of brokers listed in none.
pub const DEFAULT_DOMAIN: &str = "default";

/// The candidate set: positions in `LoadData.brokers`, in Java `HashSet` order of their names.
pub(super) type Candidates = JavaHashTable<usize>;

pub use super::range_cache::{BrokerRanges, BundleRangeCache, NamespaceId};

/// What the leader knows besides `LoadData` when it places a bundle.
#[derive(Clone, Debug, Default)]
pub struct PlacementContext {
    /// Namespace (`tenant/ns`) → `namespaceAntiAffinityGroup`.
    pub namespace_anti_affinity_groups: IndexMap<String, String>,
    /// Failure domain → its brokers (`failureDomainsEnabled` decides whether it is used).
    pub failure_domains: IndexMap<String, Vec<String>>,
    /// `brokerToNamespaceToBundleRange`: broker → namespace → bundle ranges it serves or was
    /// preallocated (even distribution and anti-affinity count these).
    pub bundle_range_cache: BundleRangeCache,
    /// `preallocatedBundleToBroker`: bundle → the broker it was assigned to.
    pub preallocated: IndexMap<String, String>,
    /// `getAvailableBrokers()`: registered brokers; `None` means every broker with load data.
    pub available_brokers: Option<Vec<String>>,
    /// The cluster's namespace isolation policies (none: every broker is shared).
    pub isolation: IsolationPolicies,
    /// Bundles that hold non-persistent topics (need `nonPersistentTopicsEnabled`).
    pub non_persistent_bundles: IndexSet<String>,
    /// The selector for `loadBalancerSheddingExcludedNamespaces`, a manager-level instance.
    pub round_robin: RoundRobinBrokerSelector,
    /// How much of each placement is explained (default: everything).
    pub trace: PipelineTrace,
    /// `brokerCandidateCache`, reused across selections: its capacity is what it has grown to (Java
    /// never shrinks it), and its buckets keep their allocations. `None` before the first selection.
    pub(super) candidate_cache: Option<Candidates>,
    /// Each broker's name and Java `HashMap` hash by its position in `LoadData.brokers`, as last
    /// seen: every selection puts every broker in the candidate set, and comparing a name is
    /// cheaper than hashing it again. An entry whose name is not the broker's at its position is
    /// not used.
    broker_hashes: Vec<(String, u32)>,
}

impl PlacementContext {
    pub fn new() -> Self {
        Self::default()
    }

    /// Installs the cluster's isolation policies; returns what cannot be evaluated exactly (the
    /// policies still apply, as Pulsar's exception paths would).
    pub fn set_isolation_policies(
        &mut self,
        policies: &IndexMap<String, NamespaceIsolationPolicy>,
    ) -> Vec<IsolationPolicyError> {
        let (compiled, errors) = IsolationPolicies::compile(policies);
        self.isolation = compiled;
        errors
    }

    /// Rebuilds `brokerToNamespaceToBundleRange` from every broker's reported bundles (`bundles`
    /// and `lastStats`) and preallocated bundles, as the leader does on each update.
    pub fn rebuild_bundle_range_cache(&mut self, data: &LoadData) {
        self.bundle_range_cache.clear();
        for (broker, bd) in &data.brokers {
            let bundles = &bd.local.bundles;
            let Some(mut filler) = self.bundle_range_cache.filler(broker, bundles.len()) else {
                continue;
            };
            for bundle in bundles {
                filler.add(bundle);
            }
            // Brokers report the same bundles in `bundles` and `lastStats`, usually in the same
            // order: a key equal to the name at its position in `bundles` is already in (adding it
            // again would change nothing), so only the others are looked up.
            for (i, bundle) in bd.local.last_stats.keys().enumerate() {
                if bundles.get(i) != Some(bundle) {
                    filler.add(bundle);
                }
            }
            for bundle in bd.preallocated.keys() {
                filler.add(bundle);
            }
        }
    }

    /// Records a bundle as served by a broker in the range cache.
    pub fn add_to_bundle_range_cache(&mut self, broker: &str, bundle: &str) {
        self.bundle_range_cache.add(broker, bundle);
    }

    /// Forgets that `broker` serves `bundle` (the bundle moved away), so anti-affinity counts follow
    /// a proposal's moves. An emptied namespace entry is left empty, which the counts skip.
    pub fn remove_from_bundle_range_cache(&mut self, broker: &str, bundle: &str) {
        self.bundle_range_cache.remove(broker, bundle);
    }

    /// Brings the brokers' hashes up to date with `data.brokers` (names that changed are hashed).
    pub(super) fn refresh_broker_hashes(&mut self, data: &LoadData) {
        self.broker_hashes.truncate(data.brokers.len());
        for (pos, name) in data.brokers.keys().enumerate() {
            match self.broker_hashes.get_mut(pos) {
                Some((held, _)) if held == name => {}
                Some(entry) => *entry = (name.clone(), hash_map_hash(name)),
                None => self.broker_hashes.push((name.clone(), hash_map_hash(name))),
            }
        }
    }

    /// `hash_map_hash(name)` of the broker `name` at `pos` in `LoadData.brokers`, from the kept
    /// hashes when they hold that name there.
    pub(super) fn broker_hash(&self, pos: usize, name: &str) -> u32 {
        match self.broker_hashes.get(pos) {
            Some((held, hash)) if held == name => *hash,
            _ => hash_map_hash(name),
        }
    }

    /// The registered brokers in the order Pulsar iterates them (`LoadData.brokers` is kept in
    /// the broker map's Java iteration order).
    pub fn available_brokers(&self, data: &LoadData) -> Vec<String> {
        match &self.available_brokers {
            Some(list) => list.clone(),
            None => data.brokers.keys().cloned().collect(),
        }
    }

    /// `getAvailableBrokers().size()`, without copying the names.
    pub fn available_broker_count(&self, data: &LoadData) -> usize {
        match &self.available_brokers {
            Some(list) => list.len(),
            None => data.brokers.len(),
        }
    }

    /// The available brokers that have load data: (position in `data.brokers`, name, data).
    pub(super) fn available_with_data<'d>(
        &'d self,
        data: &'d LoadData,
    ) -> Box<dyn Iterator<Item = (usize, &'d str, &'d BrokerData)> + 'd> {
        match &self.available_brokers {
            Some(list) => Box::new(list.iter().filter_map(|b| {
                data.brokers
                    .get_full(b.as_str())
                    .map(|(pos, name, bd)| (pos, name.as_str(), bd))
            })),
            None => Box::new(
                data.brokers
                    .iter()
                    .enumerate()
                    .map(|(pos, (name, bd))| (pos, name.as_str(), bd)),
            ),
        }
    }

    pub(super) fn anti_affinity_group(&self, namespace: &str) -> Option<&str> {
        self.namespace_anti_affinity_groups
            .get(namespace)
            .map(|g| g.as_str())
            .filter(|g| !g.trim().is_empty())
    }

    /// `brokerToFailureDomainMap`: broker → domain (a broker listed twice keeps the last domain).
    pub(super) fn broker_to_domain(&self) -> IndexMap<&str, &str> {
        let mut out = IndexMap::new();
        for (domain, brokers) in &self.failure_domains {
            for b in brokers {
                out.insert(b.as_str(), domain.as_str());
            }
        }
        out
    }

    /// `getAntiAffinityNamespaceOwnedBrokers`: broker → number of namespaces of the bundle's
    /// anti-affinity group with at least one cached range on it. `None` when the namespace has no group.
    pub fn anti_affinity_namespace_counts(&self, namespace: &str) -> Option<IndexMap<String, i64>> {
        let group = self.anti_affinity_group(namespace)?;
        let counts = self.bundle_range_cache.count_namespaces(|ns| {
            self.anti_affinity_group(ns)
                .is_some_and(|g| g.eq_ignore_ascii_case(group))
        });
        Some(
            counts
                .into_iter()
                .map(|(broker, n)| (broker.to_string(), n))
                .collect(),
        )
    }
}
