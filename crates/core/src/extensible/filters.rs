//! The extensible broker filter pipeline used by placement and by TransferShedder's transfer check
//! (§9.1), in `ExtensibleLoadManagerImpl`'s order: `BrokerLoadManagerClassFilter`,
//! `BrokerMaxTopicCountFilter`, (`BrokerVersionFilter`, not modelled: it acts only with
//! `preferLaterVersions`), then the two policy filters added at start-up, `AntiAffinityGroupPolicyFilter`
//! and `BrokerIsolationPoliciesFilter`; and TransferShedder's policy checks
//! (`canTransferWithIsolationPoliciesToBroker`, `AntiAffinityGroupPolicyHelper.canUnload`).

use indexmap::{IndexMap, IndexSet};

use crate::config::LoadBalancerConfig;
use crate::isolation::{BrokerOffer, IsolationPolicies};
use crate::model::BrokerLoadData;
use crate::modular::load_data::namespace_of_bundle;
use crate::modular::pipeline::DEFAULT_DOMAIN;

/// Candidate brokers with their `BrokerLookupData.loadManagerClassName`, in iteration order.
pub type CandidateBrokers = IndexMap<String, String>;

/// `BrokerLoadManagerClassFilter`: keeps brokers running the configured `loadManagerClassName`.
pub fn broker_load_manager_class_filter(
    candidates: &mut CandidateBrokers,
    conf: &LoadBalancerConfig,
) {
    candidates.retain(|_, class| *class == conf.load_manager_class_name);
}

/// `BrokerMaxTopicCountFilter`: drops brokers whose reported `topics >= loadBalancerBrokerMaxTopics`
/// (note `>=`, where the modular filter keeps equality). Brokers without load data count 0 topics.
pub fn broker_max_topic_count_filter(
    candidates: &mut CandidateBrokers,
    store: &IndexMap<String, BrokerLoadData>,
    conf: &LoadBalancerConfig,
) {
    let max_topics = conf.load_balancer_broker_max_topics;
    candidates.retain(|broker, _| {
        let topics = store.get(broker).map_or(0, |d| i64::from(d.topics));
        topics < max_topics
    });
}

/// What the policy filters read besides the candidates: the cluster's policies and the service-unit
/// channel's ownership.
#[derive(Clone, Copy, Debug)]
pub struct PolicyInputs<'a> {
    pub isolation: &'a IsolationPolicies,
    /// Namespace (`tenant/ns`) → `namespaceAntiAffinityGroup` (blank groups count as none).
    pub anti_affinity_groups: &'a IndexMap<String, String>,
    /// Failure domain → its brokers (used when `failureDomainsEnabled`).
    pub failure_domains: &'a IndexMap<String, Vec<String>>,
    /// Bundle → owner broker: the channel's `Owned` entries.
    pub owners: &'a IndexMap<String, String>,
    /// Broker → (`persistentTopicsEnabled`, `nonPersistentTopicsEnabled`) of its `BrokerLookupData`;
    /// a broker missing here takes both kinds.
    pub topic_kinds: &'a IndexMap<String, (bool, bool)>,
    /// Bundles that hold non-persistent topics.
    pub non_persistent_bundles: &'a IndexSet<String>,
}

impl PolicyInputs<'_> {
    fn group(&self, namespace: &str) -> Option<&str> {
        self.anti_affinity_groups
            .get(namespace)
            .map(String::as_str)
            .filter(|g| !g.trim().is_empty())
    }

    /// `getAntiAffinityNamespaceOwnedBrokers` over the channel's ownership entries: per broker, the
    /// number of **owned bundles** whose namespace is in the bundle's group (case-insensitive). `None`
    /// when the bundle's namespace has no group.
    pub fn anti_affinity_counts(&self, bundle: &str) -> Option<IndexMap<&str, i64>> {
        let group = self.group(namespace_of_bundle(bundle))?;
        let mut counts: IndexMap<&str, i64> = IndexMap::new();
        for (owned, broker) in self.owners {
            let same = self
                .group(namespace_of_bundle(owned))
                .is_some_and(|g| g.eq_ignore_ascii_case(group));
            if same && !broker.trim().is_empty() {
                *counts.entry(broker.as_str()).or_insert(0) += 1;
            }
        }
        Some(counts)
    }

    /// `BrokerIsolationPoliciesFilter`: keeps the brokers `applyNamespacePolicies` allows.
    pub fn isolation_filter(&self, candidates: &mut CandidateBrokers, bundle: &str) {
        let allowed: IndexSet<String> = self
            .allowed_by_isolation(candidates, bundle)
            .into_iter()
            .map(str::to_string)
            .collect();
        candidates.retain(|b, _| allowed.contains(b));
    }

    /// `IsolationPoliciesHelper.applyIsolationPolicies` over `brokers`.
    fn allowed_by_isolation<'b>(
        &self,
        brokers: &'b CandidateBrokers,
        bundle: &str,
    ) -> IndexSet<&'b str> {
        let non_persistent = self.non_persistent_bundles.contains(bundle);
        let offers = brokers.keys().map(|b| {
            let (persistent, non_persistent_ok) =
                self.topic_kinds.get(b).copied().unwrap_or((true, true));
            BrokerOffer {
                item: b.as_str(),
                broker_id: b.as_str(),
                persistent_topics_enabled: persistent,
                non_persistent_topics_enabled: non_persistent_ok,
            }
        });
        self.isolation
            .apply_namespace_policies(namespace_of_bundle(bundle), non_persistent, offers)
            .candidates
            .into_iter()
            .collect()
    }

    /// `AntiAffinityGroupPolicyFilter` (`LoadManagerShared.filterAntiAffinityGroupOwnedBrokers` with
    /// the channel's ownership): with failure domains enabled, keep the domains owning the fewest
    /// bundles of the group; then, if some candidate owns none, drop those owning any, else keep those
    /// owning the fewest.
    pub fn anti_affinity_filter(
        &self,
        candidates: &mut CandidateBrokers,
        bundle: &str,
        conf: &LoadBalancerConfig,
    ) {
        if candidates.is_empty() {
            return;
        }
        let Some(counts) = self.anti_affinity_counts(bundle) else {
            return;
        };
        let mut broker_domain: IndexMap<&str, &str> = IndexMap::new();
        if conf.failure_domains_enabled {
            for (domain, brokers) in self.failure_domains {
                for b in brokers {
                    broker_domain.insert(b.as_str(), domain.as_str());
                }
            }
        }
        if !broker_domain.is_empty() {
            let domain_of = |b: &str| broker_domain.get(b).copied().unwrap_or(DEFAULT_DOMAIN);
            let mut per_domain: IndexMap<&str, i64> = IndexMap::new();
            for b in candidates.keys() {
                *per_domain.entry(domain_of(b)).or_insert(0) +=
                    counts.get(b.as_str()).copied().unwrap_or(0);
            }
            let least = per_domain.values().copied().min().unwrap_or(i64::MAX);
            let keep: IndexSet<String> = candidates
                .keys()
                .filter(|b| per_domain.get(domain_of(b)).is_none_or(|c| *c == least))
                .cloned()
                .collect();
            candidates.retain(|b, _| keep.contains(b));
        }
        let mut least = i64::MAX;
        for b in candidates.keys() {
            match counts.get(b.as_str()) {
                Some(c) => least = least.min(*c),
                None => {
                    least = 0;
                    break;
                }
            }
        }
        if least == 0 {
            candidates.retain(|b, _| counts.get(b.as_str()).is_none_or(|c| *c <= 0));
        } else {
            candidates.retain(|b, _| counts.get(b.as_str()).is_some_and(|c| *c == least));
        }
    }

    /// `canTransferWithIsolationPoliciesToBroker`: bundles of isolated namespaces move only when
    /// `loadBalancerSheddingBundlesWithPoliciesEnabled`, and only to a broker the policy allows
    /// (an unload needs some allowed broker other than the source).
    pub fn can_transfer_with_isolation_policies(
        &self,
        available: &CandidateBrokers,
        conf: &LoadBalancerConfig,
        bundle: &str,
        src_broker: &str,
        dst_broker: Option<&str>,
    ) -> bool {
        if !self
            .isolation
            .are_isolation_policies_present(namespace_of_bundle(bundle))
        {
            return true;
        }
        if !conf.load_balancer_shedding_bundles_with_policies_enabled {
            return false;
        }
        let mut allowed = self.allowed_by_isolation(available, bundle);
        allowed.shift_remove(src_broker);
        match dst_broker {
            Some(dst) if conf.load_balancer_transfer_enabled => allowed.contains(dst),
            _ => !allowed.is_empty(),
        }
    }

    /// `AntiAffinityGroupPolicyHelper.canUnload`: without a group, yes; otherwise the anti-affinity
    /// filter over the available brokers, minus the source, must keep the destination (transfer) or
    /// someone (unload).
    pub fn can_unload_anti_affinity(
        &self,
        available: &CandidateBrokers,
        conf: &LoadBalancerConfig,
        bundle: &str,
        src_broker: &str,
        dst_broker: Option<&str>,
    ) -> bool {
        if self.group(namespace_of_bundle(bundle)).is_none() {
            return true;
        }
        let mut candidates = available.clone();
        self.anti_affinity_filter(&mut candidates, bundle, conf);
        candidates.shift_remove(src_broker);
        match dst_broker {
            None => !candidates.is_empty(),
            Some(dst) => candidates.contains_key(dst),
        }
    }

    /// TopKBundles' `hasPolicies`: an isolation policy or an anti-affinity group.
    pub fn namespace_has_policies(&self, namespace: &str) -> bool {
        self.isolation.are_isolation_policies_present(namespace) || self.group(namespace).is_some()
    }
}

/// The pipeline in Pulsar's order, policy filters included when `policies` names the bundle.
pub fn apply_filters_for_bundle(
    candidates: &mut CandidateBrokers,
    store: &IndexMap<String, BrokerLoadData>,
    conf: &LoadBalancerConfig,
    policies: Option<(&str, &PolicyInputs<'_>)>,
) {
    apply_broker_filters(candidates, store, conf);
    if let Some((bundle, p)) = policies {
        p.anti_affinity_filter(candidates, bundle, conf);
        p.isolation_filter(candidates, bundle);
    }
}

/// The load-data filters in Pulsar's order (no policy filters).
pub fn apply_broker_filters(
    candidates: &mut CandidateBrokers,
    store: &IndexMap<String, BrokerLoadData>,
    conf: &LoadBalancerConfig,
) {
    broker_load_manager_class_filter(candidates, conf);
    broker_max_topic_count_filter(candidates, store, conf);
}

/// TransferShedder's `isTransferable` as a running broker evaluates it: the isolation and
/// anti-affinity checks (when `policies` names the bundle), then the destination must survive the
/// filter pipeline over the available brokers; a plain unload (no destination, or transfers disabled)
/// needs some broker other than the source to remain.
pub fn is_transferable_with_filters(
    available_brokers: &CandidateBrokers,
    store: &IndexMap<String, BrokerLoadData>,
    conf: &LoadBalancerConfig,
    src_broker: &str,
    dst_broker: Option<&str>,
    policies: Option<(&str, &PolicyInputs<'_>)>,
) -> bool {
    if let Some((bundle, p)) = policies {
        if !p.can_transfer_with_isolation_policies(
            available_brokers,
            conf,
            bundle,
            src_broker,
            dst_broker,
        ) {
            return false;
        }
        if !p.can_unload_anti_affinity(available_brokers, conf, bundle, src_broker, dst_broker) {
            return false;
        }
    }
    let mut candidates = available_brokers.clone();
    apply_broker_filters(&mut candidates, store, conf);
    if let Some(dst) = dst_broker
        && !candidates.contains_key(dst)
    {
        return false;
    }
    candidates.shift_remove(src_broker);
    match dst_broker {
        Some(dst) if conf.load_balancer_transfer_enabled => candidates.contains_key(dst),
        _ => !candidates.is_empty(),
    }
}
