//! The settings table: every `broker.conf` key the load managers read, with Pulsar's default for the
//! profile, the effective value (profile → snapshot `broker.conf` → the operator's overrides) and
//! where that value came from.

use crate::config::settings::{detect_profile, resolve_config};
use crate::config::{ConfigType, LoadBalancerConfig, Profile};
use crate::model::Snapshot;
use crate::modular::leader::resolve_strategy_names;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueSource {
    PulsarDefault,
    SnapshotConf,
    Override,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SettingRow {
    pub key: &'static str,
    pub kind: ConfigType,
    pub pulsar_default: String,
    /// The value the broker runs with: for the two strategy keys, the class the broker resolves at
    /// startup (5.0's default placement AvgShedder paired with a classic shedder falls back to
    /// LeastLongTermMessageRate), which can differ from the configured text.
    pub effective: String,
    pub source: ValueSource,
    /// Why `effective` differs from the configured value (the broker's startup warning).
    pub note: Option<String>,
}

/// The settings an operator reaches for first, in the order the panel shows them at its top, each
/// with one line saying what it decides.
pub const TOP_SETTINGS: &[(&str, &str)] = &[
    (
        "loadBalancerLoadSheddingStrategy",
        "Which brokers shed bundles each cycle, and how much.",
    ),
    (
        "loadBalancerLoadPlacementStrategy",
        "Which broker an unloaded bundle lands on.",
    ),
    (
        "loadBalancerBrokerThresholdShedderPercentage",
        "ThresholdShedder sheds from a broker whose usage is this many points above the cluster average.",
    ),
    (
        "loadBalancerBrokerOverloadedThresholdPercentage",
        "Usage above which a broker counts as overloaded: OverloadShedder sheds it, placement avoids it.",
    ),
    (
        "loadBalancerSheddingEnabled",
        "Whether the leader sheds bundles at all.",
    ),
    (
        "loadBalancerAutoBundleSplitEnabled",
        "Whether the leader splits bundles over the split thresholds.",
    ),
];

/// The profile a plan would use: the chosen one, else the one detected from the brokers.
pub fn effective_profile(snapshot: &Snapshot, chosen: Option<Profile>) -> Profile {
    chosen.unwrap_or_else(|| detect_profile(snapshot).0)
}

/// One row per key of [`LoadBalancerConfig::KEYS`]. A bad override shows as the text entered.
pub fn setting_rows(
    snapshot: &Snapshot,
    chosen: Option<Profile>,
    overrides: &[(String, String)],
) -> Vec<SettingRow> {
    let profile = effective_profile(snapshot, chosen);
    let defaults = LoadBalancerConfig::for_profile(profile);
    let effective = resolve_config(snapshot, Some(profile), overrides)
        .map(|r| r.config)
        .or_else(|_| resolve_config(snapshot, Some(profile), &[]).map(|r| r.config))
        .unwrap_or_else(|_| defaults.clone());
    // The strategies the broker would start with; a pair it refuses keeps the configured text.
    let resolution = resolve_strategy_names(&effective, profile).ok();
    LoadBalancerConfig::KEYS
        .iter()
        .map(|(key, kind)| {
            let over = overrides.iter().rev().find(|(k, _)| k == key);
            let source = if over.is_some() {
                ValueSource::Override
            } else if snapshot.broker_conf.contains_key(*key) {
                ValueSource::SnapshotConf
            } else {
                ValueSource::PulsarDefault
            };
            let configured = effective
                .get_text(key)
                .or_else(|| over.map(|(_, v)| v.clone()))
                .unwrap_or_default();
            let resolved = resolution.as_ref().and_then(|r| match *key {
                "loadBalancerLoadSheddingStrategy" => Some((r.shedding.clone(), &r.warnings)),
                "loadBalancerLoadPlacementStrategy" => Some((r.placement.clone(), &r.warnings)),
                _ => None,
            });
            let (effective_text, note) = match resolved {
                Some((class, warnings))
                    if class != crate::config::qualify_strategy_name(&configured) =>
                {
                    (class, warnings.first().cloned())
                }
                _ => (configured, None),
            };
            SettingRow {
                key,
                kind: *kind,
                pulsar_default: defaults.get_text(key).unwrap_or_default(),
                effective: effective_text,
                source,
                note,
            }
        })
        .collect()
}

/// Strategy class names offered in the settings menus (Pulsar's simple names; the config accepts them).
pub const SHEDDING_STRATEGIES: &[&str] = &[
    "org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder",
    "org.apache.pulsar.broker.loadbalance.impl.OverloadShedder",
    "org.apache.pulsar.broker.loadbalance.impl.UniformLoadShedder",
    "org.apache.pulsar.broker.loadbalance.impl.AvgShedder",
];
pub const PLACEMENT_STRATEGIES: &[&str] = &[
    "org.apache.pulsar.broker.loadbalance.impl.LeastLongTermMessageRate",
    "org.apache.pulsar.broker.loadbalance.impl.LeastResourceUsageWithWeight",
    "org.apache.pulsar.broker.loadbalance.impl.RoundRobinBrokerSelector",
    "org.apache.pulsar.broker.loadbalance.impl.AvgShedder",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_and_values() {
        let mut s = Snapshot::default();
        s.broker_conf.insert(
            "loadBalancerBrokerThresholdShedderPercentage".into(),
            "20".into(),
        );
        let rows = setting_rows(
            &s,
            Some(Profile::Pulsar4x),
            &[(
                "loadBalancerBrokerOverloadedThresholdPercentage".into(),
                "70".into(),
            )],
        );
        assert_eq!(rows.len(), LoadBalancerConfig::KEYS.len());
        let get = |k: &str| rows.iter().find(|r| r.key == k).cloned();
        let t = get("loadBalancerBrokerThresholdShedderPercentage").unwrap_or_else(|| panic!());
        // Pulsar's default for loadBalancerBrokerThresholdShedderPercentage is 10.
        assert_eq!(
            (t.pulsar_default.as_str(), t.effective.as_str()),
            ("10", "20")
        );
        assert_eq!(t.source, ValueSource::SnapshotConf);
        let o = get("loadBalancerBrokerOverloadedThresholdPercentage").unwrap_or_else(|| panic!());
        assert_eq!(
            (o.pulsar_default.as_str(), o.effective.as_str()),
            ("85", "70")
        );
        assert_eq!(o.source, ValueSource::Override);
        let p = get("loadBalancerLoadSheddingStrategy").unwrap_or_else(|| panic!());
        assert!(p.effective.ends_with("ThresholdShedder"));
        let five = setting_rows(&s, Some(Profile::Pulsar50), &[]);
        let p5 = five
            .iter()
            .find(|r| r.key == "loadBalancerLoadSheddingStrategy")
            .unwrap_or_else(|| panic!());
        assert!(p5.pulsar_default.ends_with("AvgShedder"));
    }

    /// The case: a 5.0 snapshot whose broker.conf sets ThresholdShedder and leaves the
    /// placement at 5.0's default AvgShedder. The broker falls back to LeastLongTermMessageRate
    /// (`ModularLoadManagerImpl` logs it); the row shows what runs, not AvgShedder.
    #[test]
    fn placement_row_shows_the_class_the_broker_falls_back_to() {
        let mut s = Snapshot::default();
        s.broker_conf.insert(
            "loadBalancerLoadSheddingStrategy".into(),
            "org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder".into(),
        );
        let rows = setting_rows(&s, Some(Profile::Pulsar50), &[]);
        let p = rows
            .iter()
            .find(|r| r.key == "loadBalancerLoadPlacementStrategy")
            .unwrap_or_else(|| panic!());
        assert_eq!(
            p.effective,
            "org.apache.pulsar.broker.loadbalance.impl.LeastLongTermMessageRate"
        );
        assert!(p.pulsar_default.ends_with("AvgShedder"));
        assert!(
            p.note
                .as_deref()
                .is_some_and(|n| n.contains("falls back to LeastLongTermMessageRate"))
        );
        let sh = rows
            .iter()
            .find(|r| r.key == "loadBalancerLoadSheddingStrategy")
            .unwrap_or_else(|| panic!());
        assert!(sh.effective.ends_with(".ThresholdShedder"));
        assert_eq!(sh.note, None);
    }

    #[test]
    fn the_top_settings_are_keys_the_load_managers_read() {
        for (key, why) in TOP_SETTINGS {
            assert!(
                LoadBalancerConfig::KEYS.iter().any(|(k, _)| k == key),
                "{key}"
            );
            assert!(!why.is_empty());
        }
    }
}
