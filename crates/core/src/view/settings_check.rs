//! The version-aware settings check (`lbplan config --snapshot S --check`, the dashboard's settings
//! panel): what the leader's release does with the snapshot's `broker.conf` — keys it does not
//! know, strategy pairs it falls back from or refuses to start with, values it ignores — each with
//! the release-table row (PR and first releases) that changes it.

use serde::{Deserialize, Serialize};

use crate::config::settings::resolve_config;
use crate::config::{
    AVG_SHEDDER, ConfigError, LEAST_LONG_TERM_MESSAGE_RATE, LoadBalancerConfig, OVERLOAD_SHEDDER,
    Profile, qualify_strategy_name, simple_class_name,
};
use crate::model::Snapshot;
use crate::modular::leader::{StrategyConfigError, resolve_strategy_names};
use crate::release::table::row;
use crate::release::{Change, ReleaseBasis};

/// How bad a finding is: an error stops the broker or the modular manager (exit 1 with `--check`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SettingFinding {
    pub severity: Severity,
    pub key: String,
    pub message: String,
    /// The row that changes it: `apache/pulsar#24883 (first in 4.2.0, 5.0.0-M1)`.
    pub changed_by: String,
}

/// The check's answer: the release it checked against and why, and the findings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SettingsCheck {
    pub release: String,
    pub basis: ReleaseBasis,
    pub findings: Vec<SettingFinding>,
}

impl SettingsCheck {
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// `apache/pulsar#N (first in 4.0.12, 4.2.3, 5.0.0-M1)`.
fn changed_by(change: Change) -> String {
    row(change).map_or_else(String::new, |r| {
        let firsts: Vec<String> = r.first.iter().map(|f| f.name()).collect();
        format!("{} (first in {})", r.pr_label(), firsts.join(", "))
    })
}

const WEIGHT_KEYS: [&str; 5] = [
    "loadBalancerCPUResourceWeight",
    "loadBalancerMemoryResourceWeight",
    "loadBalancerDirectMemoryResourceWeight",
    "loadBalancerBandwidthInResourceWeight",
    "loadBalancerBandwidthOutResourceWeight",
];

/// Checks the snapshot's `broker.conf` (and the operator's `overrides`) against the release that
/// decides (`profile`, else the leader's).
pub fn check_settings(
    snapshot: &Snapshot,
    profile: Option<Profile>,
    overrides: &[(String, String)],
) -> Result<SettingsCheck, ConfigError> {
    let resolved = resolve_config(snapshot, profile, overrides)?;
    let release = resolved.profile;
    let b = release.behaviour();
    let name = release.name();
    let configured = |key: &str| -> Option<String> {
        overrides
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .or_else(|| snapshot.broker_conf.get(key).cloned())
    };
    let mut findings = Vec::new();
    // Keys the release does not have.
    if !b.override_broker_nics
        && let Some(v) = configured("loadBalancerOverrideBrokerNics")
    {
        findings.push(SettingFinding {
            severity: Severity::Warning,
            key: "loadBalancerOverrideBrokerNics".to_string(),
            message: format!(
                "loadBalancerOverrideBrokerNics={v}: Pulsar {name} has no such key and ignores it (the NICs it reads are all of the host's)"
            ),
            changed_by: changed_by(Change::OverrideBrokerNics),
        });
    }
    // The strategy pair as the release's broker resolves it at startup.
    let defaults = LoadBalancerConfig::for_profile(release);
    let mut cfg = defaults.clone();
    for key in [
        "loadBalancerLoadSheddingStrategy",
        "loadBalancerLoadPlacementStrategy",
    ] {
        if let Some(v) = configured(key) {
            let _ = cfg.set_text(key, &v);
        }
    }
    let shedding = qualify_strategy_name(&cfg.load_balancer_load_shedding_strategy);
    let placement = qualify_strategy_name(&cfg.load_balancer_load_placement_strategy);
    if !b.avg_shedder_available && (shedding == AVG_SHEDDER || placement == AVG_SHEDDER) {
        let (key, instead) = if shedding == AVG_SHEDDER {
            ("loadBalancerLoadSheddingStrategy", OVERLOAD_SHEDDER)
        } else {
            (
                "loadBalancerLoadPlacementStrategy",
                LEAST_LONG_TERM_MESSAGE_RATE,
            )
        };
        findings.push(SettingFinding {
            severity: Severity::Warning,
            key: key.to_string(),
            message: format!(
                "AvgShedder does not exist in Pulsar {name}: the broker logs an error and runs {} instead",
                simple_class_name(instead)
            ),
            changed_by: changed_by(Change::AvgShedderAvailable),
        });
    } else {
        match resolve_strategy_names(&cfg, release) {
            Ok(r) => {
                for w in r.warnings {
                    findings.push(SettingFinding {
                        severity: Severity::Warning,
                        key: "loadBalancerLoadPlacementStrategy".to_string(),
                        message: w,
                        changed_by: changed_by(Change::Defaults50),
                    });
                }
            }
            Err(e) => {
                let change = match e {
                    StrategyConfigError::FallsBackToSimpleLoadManager { .. }
                    | StrategyConfigError::PlacementShedderMismatch { .. } => {
                        Some(Change::FailFastOnMisconfiguration)
                    }
                    _ => None,
                };
                findings.push(SettingFinding {
                    severity: Severity::Error,
                    key: "loadBalancerLoadPlacementStrategy".to_string(),
                    message: e.to_string(),
                    changed_by: change.map(changed_by).unwrap_or_default(),
                });
            }
        }
    }
    // Values the release ignores: before PIP-358 OverloadShedder and LeastLongTermMessageRate
    // compare the unweighted max, so the resource weights do not reach them.
    if !b.weighted_overload_checks
        && (shedding == OVERLOAD_SHEDDER || placement == LEAST_LONG_TERM_MESSAGE_RATE)
    {
        for key in WEIGHT_KEYS {
            if let Some(v) = configured(key)
                && defaults.get_text(key).as_deref() != Some(v.trim())
            {
                findings.push(SettingFinding {
                    severity: Severity::Warning,
                    key: key.to_string(),
                    message: format!(
                        "{key}={v}: on Pulsar {name} OverloadShedder, LeastLongTermMessageRate and the placement overload check compare the unweighted max usage, so this weight does not reach them"
                    ),
                    changed_by: changed_by(Change::WeightedOverloadChecks),
                });
            }
        }
    }
    Ok(SettingsCheck {
        release: name,
        basis: resolved.basis,
        findings,
    })
}

/// The check as text, one finding a line (the CLI prints it; the dashboard shows the same rows).
pub fn finding_line(f: &SettingFinding) -> String {
    let level = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    if f.changed_by.is_empty() {
        format!("{level}: {}", f.message)
    } else {
        format!("{level}: {} [{}]", f.message, f.changed_by)
    }
}
