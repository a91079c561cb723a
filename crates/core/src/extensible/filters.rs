//! The extensible broker filter pipeline used by placement and by TransferShedder's transfer check
//! (§9.1): `BrokerLoadManagerClassFilter`, then `BrokerMaxTopicCountFilter`. Isolation, anti-affinity
//! and version filters are not modelled (the conformance scenarios have no such policies).

use indexmap::IndexMap;

use crate::config::LoadBalancerConfig;
use crate::model::BrokerLoadData;

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

/// The pipeline in Pulsar's order.
pub fn apply_broker_filters(
    candidates: &mut CandidateBrokers,
    store: &IndexMap<String, BrokerLoadData>,
    conf: &LoadBalancerConfig,
) {
    broker_load_manager_class_filter(candidates, conf);
    broker_max_topic_count_filter(candidates, store, conf);
}

/// TransferShedder's `isTransferable` as a running broker evaluates it: the destination must survive
/// the filter pipeline over the available brokers; a plain unload (no destination, or transfers
/// disabled) needs some broker other than the source to remain.
pub fn is_transferable_with_filters(
    available_brokers: &CandidateBrokers,
    store: &IndexMap<String, BrokerLoadData>,
    conf: &LoadBalancerConfig,
    src_broker: &str,
    dst_broker: Option<&str>,
) -> bool {
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
