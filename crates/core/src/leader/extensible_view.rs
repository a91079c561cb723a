//! The extensible load manager's leader on a snapshot (`UnloadScheduler` + `TransferShedder`,
//! §9.2–9.3), for clusters whose `loadManagerClassName` is `ExtensibleLoadManagerImpl`: its inputs
//! built once ([`ExtensibleView`]), one shedder call ([`run_transfer_shedder`]) and where a plain
//! unload lands ([`place_plain_unload`]). The cycle with its look-ahead is `leader::extensible`.
//!
//! The shedder reads each broker's published `BrokerLoadData` and `TopBundlesLoadData`. When a snapshot
//! has only the modular reports, both are derived from them (the EMA then equals the latest sample, and
//! the top bundles come from `lastStats` through Pulsar's top-K rules) and the view's warnings say so.

use indexmap::{IndexMap, IndexSet};

use crate::config::LoadBalancerConfig;
use crate::extensible::{
    CandidateBrokers, PolicyInputs, SheddingInput, SkipReason, TopKFilter, TransferShedder,
    UnloadChecks, UnloadDecision, is_transferable_with_filters, select_broker, top_k_bundles,
};
use crate::isolation::IsolationPolicies;
use crate::model::{BrokerLoadData, BrokerLoadSample, Snapshot, TopBundlesLoadData};
use crate::rng::Picker;

/// The extensible leader's inputs, built once from a snapshot.
pub struct ExtensibleView {
    pub load_store: IndexMap<String, BrokerLoadData>,
    pub top_bundles: IndexMap<String, TopBundlesLoadData>,
    pub available: CandidateBrokers,
    pub owners: IndexMap<String, String>,
    pub now_ms: i64,
    pub warnings: Vec<String>,
    /// Namespace isolation policies, anti-affinity groups, failure domains and each broker's topic
    /// kinds, for the policy filters and checks.
    pub isolation: IsolationPolicies,
    pub anti_affinity_groups: IndexMap<String, String>,
    pub failure_domains: IndexMap<String, Vec<String>>,
    pub topic_kinds: IndexMap<String, (bool, bool)>,
    pub non_persistent_bundles: IndexSet<String>,
}

impl ExtensibleView {
    /// The inputs of the policy filters.
    pub fn policy_inputs(&self) -> PolicyInputs<'_> {
        PolicyInputs {
            isolation: &self.isolation,
            anti_affinity_groups: &self.anti_affinity_groups,
            failure_domains: &self.failure_domains,
            owners: &self.owners,
            topic_kinds: &self.topic_kinds,
            non_persistent_bundles: &self.non_persistent_bundles,
        }
    }
}

pub fn extensible_view(snapshot: &Snapshot, cfg: &LoadBalancerConfig) -> ExtensibleView {
    let mut warnings = Vec::new();
    let weights = cfg.resource_weights();
    let newest = snapshot
        .brokers
        .values()
        .filter_map(|b| b.broker_load_data.map(|d| d.updated_at))
        .max()
        .unwrap_or(0);
    let now_ms = snapshot.captured_at_ms.unwrap_or(newest).max(newest);
    let mut load_store = IndexMap::new();
    let mut top_bundles = IndexMap::new();
    let mut derived_load = 0;
    let mut derived_top = 0;
    // Isolation problems are reported once per plan by `make_plan`.
    let (isolation, _) = IsolationPolicies::compile(&snapshot.namespace_isolation_policies);
    let anti_affinity_groups: IndexMap<String, String> = snapshot
        .namespaces
        .iter()
        .filter_map(|(ns, n)| n.anti_affinity_group.clone().map(|g| (ns.clone(), g)))
        .collect();
    let no_owners = IndexMap::new();
    let no_kinds = IndexMap::new();
    let no_bundles = IndexSet::new();
    let topk_policies = PolicyInputs {
        isolation: &isolation,
        anti_affinity_groups: &anti_affinity_groups,
        failure_domains: &snapshot.failure_domains,
        owners: &no_owners,
        topic_kinds: &no_kinds,
        non_persistent_bundles: &no_bundles,
    };
    let has_policies = |ns: &str| topk_policies.namespace_has_policies(ns);
    let filter = TopKFilter {
        shedding_excluded_namespaces: &cfg.load_balancer_shedding_excluded_namespaces,
        shedding_bundles_with_policies_enabled: cfg
            .load_balancer_shedding_bundles_with_policies_enabled,
        namespace_has_policies: &has_policies,
    };
    let mut available = CandidateBrokers::new();
    let mut owners = IndexMap::new();
    let mut topic_kinds = IndexMap::new();
    for (id, b) in &snapshot.brokers {
        let local = &b.local_broker_data;
        topic_kinds.insert(
            id.clone(),
            (
                local.persistent_topics_enabled,
                local.non_persistent_topics_enabled,
            ),
        );
        available.insert(
            id.clone(),
            local
                .load_manager_class_name
                .clone()
                .unwrap_or_else(|| cfg.load_manager_class_name.clone()),
        );
        for bundle in &local.bundles {
            owners.insert(bundle.clone(), id.clone());
        }
        let data = match b.broker_load_data {
            Some(d) => d,
            None => {
                derived_load += 1;
                let mut d = BrokerLoadData::default();
                let sample = BrokerLoadSample {
                    usage: local.resource_usage(),
                    msg_throughput_in: local.msg_throughput_in,
                    msg_throughput_out: local.msg_throughput_out,
                    msg_rate_in: local.msg_rate_in,
                    msg_rate_out: local.msg_rate_out,
                    bundle_count: i32::try_from(local.bundles.len()).unwrap_or(i32::MAX),
                    topics: i32::try_from(local.num_topics).unwrap_or(i32::MAX),
                };
                d.update(
                    &sample,
                    &weights,
                    cfg.load_balancer_history_resource_percentage,
                    now_ms,
                );
                d
            }
        };
        load_store.insert(id.clone(), data);
        let top = match &b.top_bundles_load_data {
            Some(t) => t.clone(),
            None => {
                derived_top += 1;
                top_k_bundles(
                    &local.last_stats,
                    cfg.load_balancer_max_number_of_bundles_in_bundle_load_report,
                    &filter,
                )
            }
        };
        top_bundles.insert(id.clone(), top);
    }
    if derived_load > 0 {
        warnings.push(format!(
            "{derived_load} broker(s) have no extensible BrokerLoadData: derived from their load reports (weightedMaxEMA = the latest sample)"
        ));
    }
    if derived_top > 0 {
        warnings.push(format!(
            "{derived_top} broker(s) have no TopBundlesLoadData: derived from lastStats with Pulsar's top-K rules"
        ));
    }
    ExtensibleView {
        load_store,
        top_bundles,
        available,
        owners,
        now_ms,
        warnings,
        isolation,
        anti_affinity_groups,
        failure_domains: snapshot.failure_domains.clone(),
        topic_kinds,
        non_persistent_bundles: IndexSet::new(),
    }
}

struct SnapshotChecks<'a> {
    view: &'a ExtensibleView,
    cfg: &'a LoadBalancerConfig,
}

impl UnloadChecks for SnapshotChecks<'_> {
    fn is_owner(&self, bundle: &str, broker: &str) -> bool {
        self.view
            .owners
            .get(bundle)
            .is_none_or(|owner| owner == broker)
    }

    fn is_transferable(&self, bundle: &str, src: &str, dst: Option<&str>) -> bool {
        let policies = self.view.policy_inputs();
        is_transferable_with_filters(
            &self.view.available,
            &self.view.load_store,
            self.cfg,
            src,
            dst,
            Some((bundle, &policies)),
        )
    }
}

/// One shedder call at `now_ms`.
pub struct ExtensibleCycle {
    pub decisions: Vec<UnloadDecision>,
    pub skip_reason: Option<SkipReason>,
    pub load_avg_std: Option<(f64, f64)>,
    /// Most-loaded brokers that gave nothing, with why.
    pub not_shed: Vec<crate::reason::NotShed>,
}

pub fn run_transfer_shedder(
    shedder: &mut TransferShedder,
    view: &ExtensibleView,
    cfg: &LoadBalancerConfig,
    recently_unloaded_bundles: &IndexMap<String, i64>,
    now_ms: i64,
) -> ExtensibleCycle {
    let available: Vec<String> = view.available.keys().cloned().collect();
    let input = SheddingInput {
        now_ms,
        load_store: &view.load_store,
        top_bundles: &view.top_bundles,
        available_brokers: &available,
        recently_unloaded_bundles,
    };
    let mut recently_unloaded_brokers = IndexMap::new();
    let checks = SnapshotChecks { view, cfg };
    let out =
        shedder.find_bundles_for_unloading(cfg, &input, &mut recently_unloaded_brokers, &checks);
    ExtensibleCycle {
        decisions: out.decisions,
        skip_reason: out.skip_reason,
        load_avg_std: out.load_avg_std,
        not_shed: out.not_shed,
    }
}

/// Where a plain unload (transfers disabled) lands: extensible placement over every other broker,
/// policy filters included.
pub fn place_plain_unload(
    view: &ExtensibleView,
    cfg: &LoadBalancerConfig,
    bundle: &str,
    source: &str,
    picker: &mut dyn Picker,
) -> Option<String> {
    let exclude = vec![source.to_string()];
    let policies = view.policy_inputs();
    select_broker(
        &view.available,
        None,
        &exclude,
        &view.load_store,
        cfg,
        true,
        Some((bundle, &policies)),
        picker,
    )
    .selected
}
