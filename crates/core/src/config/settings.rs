//! Resolves the effective configuration of a plan: profile (explicit or from the brokers' versions),
//! the snapshot's `broker.conf`, then the operator's overrides; and applies
//! `loadBalancerOverrideBrokerNicSpeedGbps` to the brokers' bandwidth limits.

use indexmap::IndexMap;

use crate::config::{
    AVG_SHEDDER, ConfigError, EXTENSIBLE_LOAD_MANAGER, LEAST_LONG_TERM_MESSAGE_RATE,
    LoadBalancerConfig, MODULAR_LOAD_MANAGER, OVERLOAD_SHEDDER, Profile, avg_shedder_available,
    qualify_strategy_name, simple_class_name, version_older_than_modelled,
};

/// A `loadManagerClassName` value as the brokers report it (fully qualified).
fn qualify_load_manager(name: &str) -> &str {
    match name.trim() {
        "ModularLoadManagerImpl" => MODULAR_LOAD_MANAGER,
        "ExtensibleLoadManagerImpl" => EXTENSIBLE_LOAD_MANAGER,
        other => other,
    }
}
use crate::model::{ResourceUsage, Snapshot};
use crate::release::basis::ReleaseError;
use crate::release::{BasisSource, ReleaseBasis, resolve_release};

#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedConfig {
    pub profile: Profile,
    /// Which release's behaviour the plan uses, and why (leader, majority, operator).
    pub basis: ReleaseBasis,
    pub config: LoadBalancerConfig,
    pub warnings: Vec<String>,
}

/// The profile the snapshot's versions imply ([`resolve_release`]: the leader's release, else the
/// majority's), with the basis's warnings (mixed versions, approximations) as one note. A version
/// that does not parse is reported in the note and planned as 4.x's newest; [`resolve_config`]
/// refuses it instead.
pub fn detect_profile(snapshot: &Snapshot) -> (Profile, Option<String>) {
    match resolve_release(snapshot, None, None) {
        Ok((release, basis)) => {
            let mut notes = basis.warnings;
            if basis.source == BasisSource::Majority && !basis.other_versions.is_empty() {
                notes.insert(0, basis.why.clone());
            }
            let older: Vec<&str> = snapshot
                .brokers
                .values()
                .filter_map(|b| b.local_broker_data.broker_version_string.as_deref())
                .filter(|v| version_older_than_modelled(v))
                .collect();
            if let Some(v) = older.first() {
                notes.push(format!(
                    "broker version {v} is older than any modelled release (3.0.0 is the oldest): \
                     Pulsar before 3.0 differs more (memory in the weighted max, other defaults)"
                ));
            }
            (
                Profile::of_release(release),
                (!notes.is_empty()).then(|| notes.join("; ")),
            )
        }
        Err(e) => (
            Profile::Pulsar4x,
            Some(format!("{e}; planned as {}", Profile::Pulsar4x)),
        ),
    }
}

/// Why the plan used `profile`: the snapshot's basis when the profile was detected, else the
/// operator's choice (noting when it differs from what the leader runs).
pub fn release_basis(
    snapshot: &Snapshot,
    chosen: Option<Profile>,
) -> Result<ReleaseBasis, ReleaseError> {
    match chosen {
        None => resolve_release(snapshot, None, None).map(|(_, b)| b),
        Some(p) => {
            let mut basis = resolve_release(snapshot, Some(&p.name()), None)?.1;
            basis.why = format!("profile {p} chosen by the operator");
            if let Ok((detected, _)) = resolve_release(snapshot, None, None)
                && detected != p.release()
            {
                basis.why.push_str(&format!(
                    " (the snapshot's brokers imply {detected}, which decides differently where the release table differs)"
                ));
            }
            Ok(basis)
        }
    }
}

/// Pulsar releases before AvgShedder (3.0.0–3.0.5, 3.1, 3.2.0–3.2.3, 3.3.0) cannot create it: the
/// modular manager logs an error and sheds with `OverloadShedder` instead
/// (`createLoadSheddingStrategy`), and placement falls back to `LeastLongTermMessageRate`
/// (`ModularLoadManagerStrategy.create`). Applied on the 3.x profile when any broker runs such a
/// release.
fn without_missing_avg_shedder(
    snapshot: &Snapshot,
    config: &mut LoadBalancerConfig,
    warnings: &mut Vec<String>,
) {
    let mut lacking: Vec<&str> = snapshot
        .brokers
        .values()
        .filter_map(|b| b.local_broker_data.broker_version_string.as_deref())
        .filter(|v| !avg_shedder_available(v))
        .collect();
    lacking.dedup();
    let Some(version) = lacking.first() else {
        return;
    };
    if qualify_strategy_name(&config.load_balancer_load_shedding_strategy) == AVG_SHEDDER {
        warnings.push(format!(
            "loadBalancerLoadSheddingStrategy is AvgShedder, which Pulsar {version} does not have \
             (added in 3.0.6 / 3.2.4 / 3.3.1): the broker logs an error and sheds with \
             OverloadShedder"
        ));
        config.load_balancer_load_shedding_strategy = OVERLOAD_SHEDDER.to_string();
    }
    if qualify_strategy_name(&config.load_balancer_load_placement_strategy) == AVG_SHEDDER {
        warnings.push(format!(
            "loadBalancerLoadPlacementStrategy is AvgShedder, which Pulsar {version} does not have \
             (added in 3.0.6 / 3.2.4 / 3.3.1): the broker logs an error and places with \
             LeastLongTermMessageRate"
        ));
        config.load_balancer_load_placement_strategy = LEAST_LONG_TERM_MESSAGE_RATE.to_string();
    }
}

/// The load manager most brokers say they run (`loadManagerClassName` of their `LocalBrokerData` /
/// `BrokerLookupData`; a report the importer derived from a `BrokerLoadData` says
/// `ExtensibleLoadManagerImpl`), and how many brokers said so; `None` when no broker names one of
/// the two modelled managers.
pub fn detect_load_manager(snapshot: &Snapshot) -> Option<(&str, usize)> {
    let mut counts: IndexMap<&str, usize> = IndexMap::new();
    for b in snapshot.brokers.values() {
        if let Some(c) = &b.local_broker_data.load_manager_class_name
            && (c == MODULAR_LOAD_MANAGER || c == EXTENSIBLE_LOAD_MANAGER)
        {
            *counts.entry(c.as_str()).or_insert(0) += 1;
        }
    }
    // Ties go to the first seen: `max_by_key` keeps the last maximum, so walk in reverse.
    counts.into_iter().rev().max_by_key(|(_, n)| *n)
}

/// Profile defaults → the load manager the brokers' data names (when `broker.conf` does not) →
/// snapshot `broker_conf` (bad values and unknown keys become warnings: a real
/// `broker.conf` holds hundreds of keys load balancing never reads) → overrides (an unknown key or a
/// bad value is an error: the operator typed it and believes it applies; the error names the key
/// meant, [`LoadBalancerConfig::check_key`]).
pub fn resolve_config(
    snapshot: &Snapshot,
    profile: Option<Profile>,
    overrides: &[(String, String)],
) -> Result<ResolvedConfig, ConfigError> {
    let mut warnings = Vec::new();
    let basis = release_basis(snapshot, profile).map_err(ConfigError::Release)?;
    let profile = match profile {
        Some(p) => p,
        None => {
            warnings.extend(basis.warnings.iter().cloned());
            Profile::parse(&basis.release).unwrap_or(Profile::Pulsar4x)
        }
    };
    let mut config = LoadBalancerConfig::for_profile(profile);
    if let Some((manager, n)) = detect_load_manager(snapshot) {
        let total = snapshot.brokers.len();
        match snapshot.broker_conf.get("loadManagerClassName") {
            None if manager != config.load_manager_class_name => {
                warnings.push(format!(
                    "loadManagerClassName taken from the brokers' data: {n} of {total} broker(s) run {}",
                    simple_class_name(manager)
                ));
                config.load_manager_class_name = manager.to_string();
            }
            Some(conf) if qualify_load_manager(conf) != manager => warnings.push(format!(
                "broker.conf sets loadManagerClassName={} but {n} of {total} broker(s) report {}: \
                 planned with broker.conf's",
                simple_class_name(conf),
                simple_class_name(manager)
            )),
            _ => {}
        }
    }
    for (key, value) in &snapshot.broker_conf {
        match config.set_text(key, value) {
            Ok(true) => {}
            Ok(false) => warnings.push(format!(
                "broker.conf key `{key}` is not used by load balancing; ignored"
            )),
            Err(e) => warnings.push(format!("snapshot broker.conf: {e}; using the default")),
        }
    }
    for (key, value) in overrides {
        LoadBalancerConfig::check_key(key)?;
        config.set_text(key, value)?;
    }
    // Only when planning as a 3.x release (3.1 / 3.2 brokers resolve to 3.0.17, hence the brokers'
    // own versions are read too): an operator who chose another release asked for its behaviour.
    if !profile.behaviour().weighted_overload_checks {
        without_missing_avg_shedder(snapshot, &mut config, &mut warnings);
    }
    Ok(ResolvedConfig {
        profile,
        basis,
        config,
        warnings,
    })
}

/// `loadBalancerOverrideBrokerNicSpeedGbps` replaces the NIC limits brokers reported
/// (Gbps × 1,000,000 Kbps, one NIC).
pub fn apply_nic_speed_override(
    snapshot: &mut Snapshot,
    cfg: &LoadBalancerConfig,
) -> Option<String> {
    let limit_kbps = nic_speed_limit_kbps(cfg)?;
    for b in snapshot.brokers.values_mut() {
        let l = &mut b.local_broker_data;
        set_nic_limits(&mut l.bandwidth_in, &mut l.bandwidth_out, limit_kbps);
    }
    nic_speed_override_warning(cfg)
}

/// The bandwidth limit (Kbps) `loadBalancerOverrideBrokerNicSpeedGbps` gives every broker.
pub(crate) fn nic_speed_limit_kbps(cfg: &LoadBalancerConfig) -> Option<f64> {
    cfg.load_balancer_override_broker_nic_speed_gbps
        .map(|gbps| gbps * 1_000_000.0)
}

/// What [`apply_nic_speed_override`] does to one broker's NIC usages: the views that apply the
/// override to a report (the kept leader view, a plan's "after" view) do it here.
pub(crate) fn set_nic_limits(
    bandwidth_in: &mut ResourceUsage,
    bandwidth_out: &mut ResourceUsage,
    limit_kbps: f64,
) {
    bandwidth_in.limit = limit_kbps;
    bandwidth_out.limit = limit_kbps;
}

/// The plan's warning that the override is in force.
pub(crate) fn nic_speed_override_warning(cfg: &LoadBalancerConfig) -> Option<String> {
    let gbps = cfg.load_balancer_override_broker_nic_speed_gbps?;
    let limit_kbps = nic_speed_limit_kbps(cfg)?;
    Some(format!(
        "loadBalancerOverrideBrokerNicSpeedGbps={gbps}: every broker's bandwidth limit set to {limit_kbps} Kbps"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BrokerSnapshot;

    fn broker(version: Option<&str>) -> BrokerSnapshot {
        let mut b = BrokerSnapshot::default();
        b.local_broker_data.broker_version_string = version.map(str::to_string);
        b
    }

    /// Reference §13.1: `brokerVersionString` tells the profile. Without a known leader the
    /// majority decides, not the first broker (the JS API's summary used to read only the first);
    /// with one, the leader's release decides.
    #[test]
    fn the_majority_of_broker_versions_decides_the_profile() {
        let mut s = Snapshot::default();
        s.brokers.insert("a:8080".into(), broker(Some("5.0.0")));
        s.brokers.insert("b:8080".into(), broker(Some("4.0.7")));
        s.brokers.insert("c:8080".into(), broker(Some("4.0.7")));
        s.brokers.insert("d:8080".into(), broker(None));
        let (profile, warning) = detect_profile(&s);
        assert_eq!(profile.name(), "4.0.7");
        let warning = warning.unwrap();
        assert!(
            warning.contains("2 of 3 broker(s) report 4.0.7"),
            "{warning}"
        );
        assert!(warning.contains("1 on 5.0.0 (a:8080)"), "{warning}");
        s.brokers.insert("e:8080".into(), broker(Some("5.0.0")));
        s.brokers.insert("f:8080".into(), broker(Some("5.0.0")));
        assert_eq!(detect_profile(&s).0, Profile::Pulsar50);
        // The leader decides over the majority.
        s.leader_broker = Some("b:8080".into());
        assert_eq!(detect_profile(&s).0.name(), "4.0.7");
        // No versions at all: 4.x's newest, without a warning.
        assert_eq!(
            detect_profile(&Snapshot::default()),
            (Profile::Pulsar4x, None)
        );
    }
}
