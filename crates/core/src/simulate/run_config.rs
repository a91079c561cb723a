//! One configuration a simulation runs under: a name, an optional profile and `broker.conf`
//! overrides, written on the command line as `name=tlr;profile=4.x;KEY=VALUE;KEY=VALUE`.

use serde::{Deserialize, Serialize};

use crate::config::Profile;

/// A configuration to simulate (one column of a comparison).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// Label in tables; defaults to the shedding + placement strategy pair.
    pub name: String,
    /// `None`: detected from the brokers' `brokerVersionString`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// `broker.conf` overrides, applied after the snapshot's and the scenario's settings.
    pub settings: Vec<(String, String)>,
    /// `base=defaults`: start from the profile's Pulsar defaults and ignore the snapshot's
    /// `broker.conf`, so "Pulsar 5.0 defaults" runs 5.0's defaults even on a snapshot whose
    /// `broker.conf` sets the shedder (the scenario's settings and `settings` still apply after).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_defaults: bool,
}

/// Configurations an operator commonly compares (label, `RunConfig` text), offered by the dashboard
/// and accepted by `lbplan simulate --compare`. Each preset names every key its label promises, so
/// it means the same on every snapshot: the profile presets start from the profile's defaults
/// (`base=defaults`), the others set both strategy keys, which override the snapshot's.
pub const PRESETS: [(&str, &str); 6] = [
    (
        "Pulsar 4.x defaults (ThresholdShedder + LeastLongTermMessageRate)",
        "name=4.x defaults;profile=4.x;base=defaults",
    ),
    (
        "Pulsar 5.0 defaults (AvgShedder)",
        "name=5.0 defaults;profile=5.0;base=defaults",
    ),
    (
        "ThresholdShedder + LeastResourceUsageWithWeight",
        "name=Threshold+LRUWW;loadBalancerLoadSheddingStrategy=ThresholdShedder;loadBalancerLoadPlacementStrategy=LeastResourceUsageWithWeight",
    ),
    (
        "ThresholdShedder with lowerBoundarySheddingEnabled",
        "name=Threshold+lower boundary;loadBalancerLoadSheddingStrategy=ThresholdShedder;loadBalancerLoadPlacementStrategy=LeastLongTermMessageRate;lowerBoundarySheddingEnabled=true",
    ),
    (
        "UniformLoadShedder + LeastLongTermMessageRate",
        "name=Uniform+LLTMR;loadBalancerLoadSheddingStrategy=UniformLoadShedder;loadBalancerLoadPlacementStrategy=LeastLongTermMessageRate",
    ),
    (
        "OverloadShedder + LeastLongTermMessageRate",
        "name=Overload+LLTMR;loadBalancerLoadSheddingStrategy=OverloadShedder;loadBalancerLoadPlacementStrategy=LeastLongTermMessageRate",
    ),
];

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("configuration `{text}`: {why}")]
pub struct RunConfigError {
    pub text: String,
    pub why: String,
}

impl RunConfig {
    /// Parses `name=N;profile=P;KEY=VALUE;...`: items separated by `;` (or `,` is NOT a separator,
    /// because list-valued keys use commas), each `KEY=VALUE` with the value taken verbatim up to
    /// the next `;`. `name`, `profile` and `base` (`defaults` or `snapshot`) are reserved; every other key is a `broker.conf` key.
    /// Empty items are ignored, so a trailing `;` is fine.
    pub fn parse(text: &str) -> Result<Self, RunConfigError> {
        let err = |why: String| RunConfigError {
            text: text.to_string(),
            why,
        };
        let mut out = RunConfig::default();
        for item in text.split(';') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| err(format!("`{item}` is not KEY=VALUE")))?;
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() {
                return Err(err(format!("`{item}` has an empty key")));
            }
            match key {
                "name" => out.name = value.to_string(),
                "base" => {
                    out.from_defaults = match value {
                        "defaults" => true,
                        "snapshot" => false,
                        _ => {
                            return Err(err(format!(
                                "base `{value}`: expected defaults (the profile's Pulsar defaults) or snapshot (the snapshot's broker.conf, the default)"
                            )));
                        }
                    }
                }
                "profile" => {
                    out.profile = Some(
                        crate::release::resolve_version(value)
                            .map(|m| Profile::of_release(m.release))
                            .map_err(|e| err(e.to_string()))?,
                    )
                }
                _ => out.settings.push((key.to_string(), value.to_string())),
            }
        }
        Ok(out)
    }

    /// The canonical text form (`parse` of it gives the same value).
    pub fn to_text(&self) -> String {
        let mut parts = Vec::new();
        if !self.name.is_empty() {
            parts.push(format!("name={}", self.name));
        }
        if let Some(p) = self.profile {
            parts.push(format!("profile={}", p.name()));
        }
        if self.from_defaults {
            parts.push("base=defaults".to_string());
        }
        for (k, v) in &self.settings {
            parts.push(format!("{k}={v}"));
        }
        parts.join(";")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_profiles_and_settings() {
        let c = RunConfig::parse(
            "name=tlr; profile=5.0;loadBalancerLoadSheddingStrategy=ThresholdShedder;loadBalancerSheddingExcludedNamespaces=a/b,c/d;",
        )
        .unwrap();
        assert_eq!(c.name, "tlr");
        assert_eq!(c.profile, Some(Profile::Pulsar50));
        assert_eq!(c.settings.len(), 2);
        assert_eq!(c.settings[1].1, "a/b,c/d");
        assert_eq!(RunConfig::parse(&c.to_text()).unwrap(), c);
        assert!(RunConfig::parse("name=x;oops").is_err());
        assert!(RunConfig::parse("profile=6").is_err());
        assert!(RunConfig::parse("=3").is_err());
        assert!(RunConfig::parse("base=other").is_err());
    }

    #[test]
    fn every_preset_parses_and_round_trips() {
        for (label, text) in PRESETS {
            let c = RunConfig::parse(text).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(RunConfig::parse(&c.to_text()).unwrap(), c, "{label}");
        }
        let five = RunConfig::parse(PRESETS[1].1).unwrap();
        assert!(five.from_defaults);
        assert_eq!(five.profile, Some(Profile::Pulsar50));
    }
}
