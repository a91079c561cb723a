//! Effective load-balancing configuration: every `broker.conf` key the load manager reads, verbatim,
//! with its type and its default per profile (§11 and §13.1 of the reference).
//!
//! Resolution order: profile defaults → snapshot's `broker.conf` values → operator overrides. Unknown
//! keys are kept and reported, never fatal.

pub mod settings;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::release::{Behaviour, Line, Release, Stage, resolve_version};
use crate::units::ResourceWeights;

pub const THRESHOLD_SHEDDER: &str = "org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder";
pub const OVERLOAD_SHEDDER: &str = "org.apache.pulsar.broker.loadbalance.impl.OverloadShedder";
pub const UNIFORM_LOAD_SHEDDER: &str =
    "org.apache.pulsar.broker.loadbalance.impl.UniformLoadShedder";
pub const AVG_SHEDDER: &str = "org.apache.pulsar.broker.loadbalance.impl.AvgShedder";

/// `defaultNumberOfSystemNamespaceBundles` (apache/pulsar#26609 / #26610, 5.0.0): the bundles a
/// system namespace (`pulsar/system`, heartbeat, SLA monitor) is created with. Not a key the load
/// managers read; before 5.0 there is no such key and system namespaces get
/// `defaultNumberOfNamespaceBundles`.
pub const SYSTEM_NAMESPACE_BUNDLES_KEY: &str = "defaultNumberOfSystemNamespaceBundles";
/// Its 5.0 default.
pub const SYSTEM_NAMESPACE_BUNDLES_5_0: i64 = 64;

/// The bundles a new system namespace gets on `profile`'s release with `broker_conf`: the 5.0 key
/// (set, else 64) from 5.0.0, else the release's `defaultNumberOfNamespaceBundles` (`cfg`'s).
pub fn system_namespace_bundles(
    profile: Profile,
    cfg: &LoadBalancerConfig,
    broker_conf: &indexmap::IndexMap<String, String>,
) -> i64 {
    if profile.behaviour().defaults_5_0 {
        broker_conf
            .get(SYSTEM_NAMESPACE_BUNDLES_KEY)
            .and_then(|v| v.trim().parse::<i64>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(SYSTEM_NAMESPACE_BUNDLES_5_0)
    } else {
        cfg.default_number_of_namespace_bundles
    }
}
pub const TRANSFER_SHEDDER: &str =
    "org.apache.pulsar.broker.loadbalance.extensions.scheduler.TransferShedder";
pub const LEAST_LONG_TERM_MESSAGE_RATE: &str =
    "org.apache.pulsar.broker.loadbalance.impl.LeastLongTermMessageRate";
pub const LEAST_RESOURCE_USAGE_WITH_WEIGHT: &str =
    "org.apache.pulsar.broker.loadbalance.impl.LeastResourceUsageWithWeight";
pub const MODULAR_LOAD_MANAGER: &str =
    "org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl";
pub const EXTENSIBLE_LOAD_MANAGER: &str =
    "org.apache.pulsar.broker.loadbalance.extensions.ExtensibleLoadManagerImpl";

/// Which Pulsar release's behaviour to follow where releases differ (§13 of the reference): a
/// release of the table in [`crate::release`]. The line names (`3.x`, `4.x`, `4.1`, `4.2`, `5.0`)
/// are aliases for the newest known patch of the line; `master-90cba329` is the commit the
/// conformance oracle ran. Strategies read [`Profile::behaviour`]'s flags, never the version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Profile {
    release: Release,
}

// The constants keep the names of the enum variants they replace, so callers read unchanged.
#[allow(non_upper_case_globals)]
impl Profile {
    /// The newest 3.x release known (3.3.9): unweighted overload checks (before PIP-358).
    pub const Pulsar3x: Profile = Profile {
        release: Release {
            line: Line::V3_3,
            patch: 9,
            stage: Stage::Final,
        },
    };
    /// The newest 4.0.x (LTS) release known (4.0.14).
    pub const Pulsar4x: Profile = Profile {
        release: Release {
            line: Line::V4_0,
            patch: 14,
            stage: Stage::Final,
        },
    };
    /// Pulsar 5.0.0: AvgShedder for shedding and placement, 32 bundles, destinations by name.
    pub const Pulsar50: Profile = Profile {
        release: Release {
            line: Line::V5_0,
            patch: 0,
            stage: Stage::Final,
        },
    };
    /// Master at commit 90cba329 (2026-07-21), the code the conformance oracle ran.
    pub const Master90cba329: Profile = Profile {
        release: Release::MASTER_90CBA329,
    };

    /// The line aliases (and the oracle's commit), as the CLI lists them.
    pub const ALL: [Profile; 4] = [
        Profile::Pulsar3x,
        Profile::Pulsar4x,
        Profile::Pulsar50,
        Profile::Master90cba329,
    ];

    /// The profile of a release.
    pub fn of_release(release: Release) -> Profile {
        Profile { release }
    }

    pub fn release(self) -> Release {
        self.release
    }

    /// The release's flags, read from the table.
    pub fn behaviour(self) -> Behaviour {
        Behaviour::of(self.release)
    }

    /// `4.0.7`, `5.0.0`, `master-90cba329`.
    pub fn name(self) -> String {
        self.release.name()
    }

    /// A line alias, a full version (`4.0.7`, `4.1.0-SNAPSHOT`, the nearest known release for an
    /// unknown one) or `master-90cba329`; `None` for text that is no version
    /// ([`crate::release::resolve_version`] says why).
    pub fn parse(text: &str) -> Option<Profile> {
        resolve_version(text)
            .ok()
            .map(|m| Profile::of_release(m.release))
    }

    /// The profile a broker's `brokerVersionString` implies (the nearest known release; an
    /// unreadable version → 4.x's newest).
    pub fn from_broker_version(version: &str) -> Profile {
        Profile::parse(version).unwrap_or(Profile::Pulsar4x)
    }

    /// UniformLoadShedder accepts `metric <= need + 1000` (before apache/pulsar#21906).
    pub fn uniform_shedder_slack(self) -> bool {
        !self.behaviour().uniform_slack_removed
    }

    /// OverloadShedder, LeastLongTermMessageRate and the placement overload check compare the
    /// weighted max usage (PIP-358, #22888); before it the unweighted max.
    pub fn weighted_overload_checks(self) -> bool {
        self.behaviour().weighted_overload_checks
    }

    /// AvgShedder keys its planned destinations by bundle name (apache/pulsar#26246) rather than by
    /// `BundleData` value.
    pub fn avg_shedder_destinations_by_name(self) -> bool {
        self.behaviour().avg_shedder_destinations_by_name
    }

    /// The shedding filter uses the patterns from before PIP-457: V1 heartbeat/SLA names
    /// (`pulsar/<cluster>/<host:port>`, `sla-monitor/<cluster>/<host:port>`) are excluded from
    /// shedding, and `sla-monitor/<host:port>` is not.
    pub fn filters_v1_heartbeat_names(self) -> bool {
        !self.behaviour().pip457_name_patterns
    }
}

impl Serialize for Profile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Profile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        resolve_version(&text)
            .map(|m| Profile::of_release(m.release))
            .map_err(serde::de::Error::custom)
    }
}

/// The leading numbers of a version string (`3.0.6-SNAPSHOT` → `[3, 0, 6]`).
fn version_numbers(version: &str) -> Vec<u32> {
    version
        .trim()
        .split(['.', '-', '+'])
        .map_while(|p| p.parse::<u32>().ok())
        .take(3)
        .collect()
}

/// Whether a `brokerVersionString` is older than any profile models (before 3.0).
pub fn version_older_than_modelled(version: &str) -> bool {
    version_numbers(version).first().is_some_and(|&m| m < 3)
}

/// Whether Pulsar `version` has `AvgShedder` (reference §13: since 3.0.6 / 3.2.4 / 3.3.1, and in
/// every 3.4+ and later release); an unreadable version is taken to have it. 3.1 and 3.2 are not
/// lines of the release table, hence this reading of the number itself.
pub fn avg_shedder_available(version: &str) -> bool {
    let n = version_numbers(version);
    let at = |i: usize| n.get(i).copied().unwrap_or(0);
    match (n.first().copied(), at(1)) {
        (None, _) => true,
        (Some(m), _) if m < 3 => false,
        (Some(3), 0) => at(2) >= 6,
        (Some(3), 1) => false,
        (Some(3), 2) => at(2) >= 4,
        (Some(3), 3) => at(2) >= 1,
        _ => true,
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// A setting's value as the load manager reads it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ConfigValue {
    Bool(bool),
    Int(i64),
    Double(f64),
    Text(String),
    List(Vec<String>),
}

/// The Java type of a key, which decides how text is parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigType {
    Bool,
    Int,
    Double,
    Text,
    List,
    /// An optional number (`loadBalancerOverrideBrokerNicSpeedGbps`, `Optional<Double>` in Pulsar):
    /// empty means unset.
    OptionalDouble,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("`{key}`: expected {expected}, found `{found}`")]
    BadValue {
        key: String,
        expected: &'static str,
        found: String,
    },
    /// An operator's key that no load manager reads: refused rather than ignored, because the plan
    /// would otherwise run without a setting the operator believes is applied.
    #[error("`{key}` is not a load-balancing key{}", did_you_mean(*.suggestion))]
    UnknownKey {
        key: String,
        suggestion: Option<&'static str>,
    },
    /// The release to plan as cannot be told (a version that does not parse, an unknown leader).
    #[error("{0}")]
    Release(crate::release::basis::ReleaseError),
}

fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!("; did you mean `{s}`?"))
}

macro_rules! load_balancer_config {
    ($( $field:ident : $ty:ident = $key:literal, $default:expr ;)*) => {
        /// The effective value of every load-balancing key. Field names are the keys in snake case;
        /// [`LoadBalancerConfig::KEYS`] maps them back to the verbatim `broker.conf` names.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub struct LoadBalancerConfig {
            $( pub $field: load_balancer_config!(@rust $ty), )*
            /// Not a `broker.conf` key: the profile's [`Profile::weighted_overload_checks`], read
            /// through [`LoadBalancerConfig::overload_check_usage`].
            #[serde(skip, default = "yes")]
            pub weighted_overload_checks: bool,
        }

        impl LoadBalancerConfig {
            /// Every key this crate reads, with its type.
            pub const KEYS: &'static [(&'static str, ConfigType)] = &[ $( ($key, ConfigType::$ty), )* ];

            /// Pulsar's defaults at the commit the reference was written from (4.x values).
            fn base_defaults() -> Self {
                Self { $( $field: $default.into(), )* weighted_overload_checks: true }
            }

            /// Sets one key from its `broker.conf` text. Unknown keys return `Ok(false)`.
            pub fn set_text(&mut self, key: &str, text: &str) -> Result<bool, ConfigError> {
                match key {
                    $( $key => { self.$field = load_balancer_config!(@parse $ty, key, text)?; Ok(true) } )*
                    _ => Ok(false),
                }
            }

            /// The current value of a key, as text in `broker.conf` form.
            pub fn get_text(&self, key: &str) -> Option<String> {
                match key {
                    $( $key => Some(load_balancer_config!(@show $ty, &self.$field)), )*
                    _ => None,
                }
            }
        }
    };
    (@rust Bool) => { bool };
    (@rust Int) => { i64 };
    (@rust Double) => { f64 };
    (@rust Text) => { String };
    (@rust List) => { Vec<String> };
    (@rust OptionalDouble) => { Option<f64> };
    (@parse Bool, $key:expr, $t:expr) => { parse_bool($key, $t) };
    (@parse Int, $key:expr, $t:expr) => { parse_int($key, $t) };
    (@parse Double, $key:expr, $t:expr) => { parse_double($key, $t) };
    (@parse Text, $key:expr, $t:expr) => { Ok::<String, ConfigError>($t.trim().to_string()) };
    (@parse List, $key:expr, $t:expr) => { Ok::<Vec<String>, ConfigError>(parse_list($t)) };
    (@parse OptionalDouble, $key:expr, $t:expr) => { parse_optional_double($key, $t) };
    (@show Bool, $v:expr) => { $v.to_string() };
    (@show Int, $v:expr) => { $v.to_string() };
    (@show Double, $v:expr) => { show_double(*$v) };
    (@show Text, $v:expr) => { $v.clone() };
    (@show List, $v:expr) => { $v.join(",") };
    (@show OptionalDouble, $v:expr) => { $v.map(show_double).unwrap_or_default() };
}

load_balancer_config! {
    load_manager_class_name: Text = "loadManagerClassName", MODULAR_LOAD_MANAGER;
    load_balancer_enabled: Bool = "loadBalancerEnabled", true;
    load_balancer_shedding_enabled: Bool = "loadBalancerSheddingEnabled", true;
    load_balancer_load_shedding_strategy: Text = "loadBalancerLoadSheddingStrategy", THRESHOLD_SHEDDER;
    load_balancer_load_placement_strategy: Text = "loadBalancerLoadPlacementStrategy", LEAST_LONG_TERM_MESSAGE_RATE;
    lower_boundary_shedding_enabled: Bool = "lowerBoundarySheddingEnabled", false;
    load_balancer_shedding_interval_minutes: Int = "loadBalancerSheddingIntervalMinutes", 1;
    load_balancer_shedding_grace_period_minutes: Int = "loadBalancerSheddingGracePeriodMinutes", 30;
    load_balancer_report_update_threshold_percentage: Int = "loadBalancerReportUpdateThresholdPercentage", 10;
    load_balancer_report_update_min_interval_millis: Int = "loadBalancerReportUpdateMinIntervalMillis", 5000;
    load_balancer_report_update_max_interval_minutes: Int = "loadBalancerReportUpdateMaxIntervalMinutes", 15;
    load_balancer_host_usage_check_interval_minutes: Int = "loadBalancerHostUsageCheckIntervalMinutes", 1;
    load_balancer_resource_quota_update_interval_minutes: Int = "loadBalancerResourceQuotaUpdateIntervalMinutes", 15;
    load_balancer_broker_overloaded_threshold_percentage: Int = "loadBalancerBrokerOverloadedThresholdPercentage", 85;
    load_balancer_broker_threshold_shedder_percentage: Int = "loadBalancerBrokerThresholdShedderPercentage", 10;
    load_balancer_history_resource_percentage: Double = "loadBalancerHistoryResourcePercentage", 0.9;
    load_balancer_cpu_resource_weight: Double = "loadBalancerCPUResourceWeight", 1.0;
    load_balancer_memory_resource_weight: Double = "loadBalancerMemoryResourceWeight", 0.0;
    load_balancer_direct_memory_resource_weight: Double = "loadBalancerDirectMemoryResourceWeight", 0.0;
    load_balancer_bandwidth_in_resource_weight: Double = "loadBalancerBandwidthInResourceWeight", 1.0;
    load_balancer_bandwidth_out_resource_weight: Double = "loadBalancerBandwidthOutResourceWeight", 1.0;
    load_balancer_bandwith_in_resource_weight: Double = "loadBalancerBandwithInResourceWeight", 1.0;
    load_balancer_bandwith_out_resource_weight: Double = "loadBalancerBandwithOutResourceWeight", 1.0;
    load_balancer_bundle_unload_min_throughput_threshold: Double = "loadBalancerBundleUnloadMinThroughputThreshold", 10.0;
    load_balancer_average_resource_usage_difference_threshold_percentage: Int = "loadBalancerAverageResourceUsageDifferenceThresholdPercentage", 10;
    load_balancer_msg_rate_difference_shedder_threshold: Double = "loadBalancerMsgRateDifferenceShedderThreshold", 50.0;
    load_balancer_msg_throughput_multiplier_difference_shedder_threshold: Double = "loadBalancerMsgThroughputMultiplierDifferenceShedderThreshold", 4.0;
    max_unload_percentage: Double = "maxUnloadPercentage", 0.2;
    min_unload_message: Int = "minUnloadMessage", 1000;
    min_unload_message_throughput: Int = "minUnloadMessageThroughput", 1048576;
    max_unload_bundle_num_per_shedding: Int = "maxUnloadBundleNumPerShedding", -1;
    load_balancer_avg_shedder_low_threshold: Int = "loadBalancerAvgShedderLowThreshold", 15;
    load_balancer_avg_shedder_high_threshold: Int = "loadBalancerAvgShedderHighThreshold", 40;
    load_balancer_avg_shedder_hit_count_low_threshold: Int = "loadBalancerAvgShedderHitCountLowThreshold", 8;
    load_balancer_avg_shedder_hit_count_high_threshold: Int = "loadBalancerAvgShedderHitCountHighThreshold", 2;
    load_balancer_distribute_bundles_evenly_enabled: Bool = "loadBalancerDistributeBundlesEvenlyEnabled", true;
    load_balancer_broker_max_topics: Int = "loadBalancerBrokerMaxTopics", 50000;
    load_balancer_shedding_excluded_namespaces: List = "loadBalancerSheddingExcludedNamespaces", Vec::<String>::new();
    load_balancer_auto_bundle_split_enabled: Bool = "loadBalancerAutoBundleSplitEnabled", true;
    load_balancer_auto_unload_split_bundles_enabled: Bool = "loadBalancerAutoUnloadSplitBundlesEnabled", true;
    load_balancer_namespace_bundle_max_topics: Int = "loadBalancerNamespaceBundleMaxTopics", 1000;
    load_balancer_namespace_bundle_max_sessions: Int = "loadBalancerNamespaceBundleMaxSessions", 1000;
    load_balancer_namespace_bundle_max_msg_rate: Int = "loadBalancerNamespaceBundleMaxMsgRate", 30000;
    load_balancer_namespace_bundle_max_bandwidth_mbytes: Int = "loadBalancerNamespaceBundleMaxBandwidthMbytes", 100;
    load_balancer_namespace_maximum_bundles: Int = "loadBalancerNamespaceMaximumBundles", 128;
    flow_or_qps_difference_threshold_percentage: Int = "flowOrQpsDifferenceThresholdPercentage", 10;
    default_number_of_namespace_bundles: Int = "defaultNumberOfNamespaceBundles", 4;
    supported_namespace_bundle_split_algorithms: List = "supportedNamespaceBundleSplitAlgorithms",
        vec!["range_equally_divide".to_string(), "topic_count_equally_divide".to_string(),
             "specified_positions_divide".to_string(), "flow_or_qps_equally_divide".to_string()];
    default_namespace_bundle_split_algorithm: Text = "defaultNamespaceBundleSplitAlgorithm", "range_equally_divide";
    topic_bundle_assignment_strategy: Text = "topicBundleAssignmentStrategy", "org.apache.pulsar.common.naming.ConsistentHashingTopicBundleAssigner";
    load_balancer_max_number_of_bundles_in_bundle_load_report: Int = "loadBalancerMaxNumberOfBundlesInBundleLoadReport", 10;
    load_balancer_override_broker_nic_speed_gbps: OptionalDouble = "loadBalancerOverrideBrokerNicSpeedGbps", None::<f64>;
    prefer_later_versions: Bool = "preferLaterVersions", false;
    failure_domains_enabled: Bool = "failureDomainsEnabled", false;
    load_balancer_broker_load_target_std: Double = "loadBalancerBrokerLoadTargetStd", 0.25;
    load_balancer_shedding_condition_hit_count_threshold: Int = "loadBalancerSheddingConditionHitCountThreshold", 3;
    load_balancer_transfer_enabled: Bool = "loadBalancerTransferEnabled", true;
    load_balancer_max_number_of_broker_shedding_per_cycle: Int = "loadBalancerMaxNumberOfBrokerSheddingPerCycle", 3;
    load_balance_shedding_delay_in_seconds: Int = "loadBalanceSheddingDelayInSeconds", 180;
    load_balancer_broker_load_data_ttl_in_seconds: Int = "loadBalancerBrokerLoadDataTTLInSeconds", 1800;
    load_balancer_debug_mode_enabled: Bool = "loadBalancerDebugModeEnabled", false;
    load_balancer_split_interval_minutes: Int = "loadBalancerSplitIntervalMinutes", 1;
    load_balancer_max_number_of_bundles_to_split_per_cycle: Int = "loadBalancerMaxNumberOfBundlesToSplitPerCycle", 10;
    load_balancer_namespace_bundle_split_condition_hit_count_threshold: Int = "loadBalancerNamespaceBundleSplitConditionHitCountThreshold", 3;
    load_balancer_shedding_bundles_with_policies_enabled: Bool = "loadBalancerSheddingBundlesWithPoliciesEnabled", false;
}

fn yes() -> bool {
    true
}

fn parse_bool(key: &str, text: &str) -> Result<bool, ConfigError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(bad(key, "true or false", text)),
    }
}

fn parse_int(key: &str, text: &str) -> Result<i64, ConfigError> {
    text.trim()
        .parse::<i64>()
        .map_err(|_| bad(key, "an integer", text))
}

/// Largest magnitude of a `loadBalancer*ResourceWeight`. A weight multiplies a resource percentage
/// (a Java float, up to 3.4e38) and the products are summed and squared (shedders' averages, the
/// plan's balance): at 1e308 they overflow to infinity and NaN. Pulsar's weights are 0 or 1.
pub const MAX_RESOURCE_WEIGHT: f64 = 1e6;

fn parse_double(key: &str, text: &str) -> Result<f64, ConfigError> {
    match text.trim().parse::<f64>() {
        Ok(v) if key.ends_with("ResourceWeight") && v.abs() > MAX_RESOURCE_WEIGHT => Err(bad(
            key,
            "a resource weight between -1000000 and 1000000",
            text,
        )),
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(bad(key, "a finite number", text)),
    }
}

fn parse_optional_double(key: &str, text: &str) -> Result<Option<f64>, ConfigError> {
    // Java's `Optional.toString()` form, as the runtime-configuration endpoint prints it.
    let t = text.trim();
    let t = t
        .strip_prefix("Optional[")
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or(t);
    if t.is_empty() || t == "Optional.empty" || t == "null" {
        Ok(None)
    } else {
        parse_double(key, t).map(Some)
    }
}

fn parse_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

fn show_double(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.1}")
    } else {
        v.to_string()
    }
}

fn bad(key: &str, expected: &'static str, found: &str) -> ConfigError {
    ConfigError::BadValue {
        key: key.to_string(),
        expected,
        found: found.trim().to_string(),
    }
}

/// Turns a JSON value (as vectors and our snapshot files carry them) into `broker.conf` text.
pub fn json_to_conf_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => items
            .iter()
            .map(json_to_conf_text)
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}

impl LoadBalancerConfig {
    /// The defaults of a profile (§13.1).
    pub fn for_profile(profile: Profile) -> Self {
        let mut cfg = Self::base_defaults();
        let b = profile.behaviour();
        if b.defaults_5_0 {
            // apache/pulsar#26609 / #26610 and the 5.0 upgrade guide.
            cfg.load_balancer_load_shedding_strategy = AVG_SHEDDER.to_string();
            cfg.load_balancer_load_placement_strategy = AVG_SHEDDER.to_string();
            cfg.default_number_of_namespace_bundles = 32;
            cfg.max_unload_percentage = 0.5;
            cfg.load_balancer_distribute_bundles_evenly_enabled = false;
        }
        if !b.direct_memory_weight_zero {
            // apache/pulsar#22821 (3.3.1, 4.0.0): 3.0.x still weighs direct memory fully.
            cfg.load_balancer_direct_memory_resource_weight = 1.0;
        }
        cfg.weighted_overload_checks = b.weighted_overload_checks;
        cfg
    }

    /// The usage OverloadShedder, LeastLongTermMessageRate and the placement overload check
    /// compare with `loadBalancerBrokerOverloadedThresholdPercentage`: the weighted max (PIP-358),
    /// or on 3.x `LocalBrokerData.getMaxResourceUsage()`, the unweighted max.
    pub fn overload_check_usage(&self, local: &crate::model::LocalBrokerData) -> f64 {
        if self.weighted_overload_checks {
            local.max_resource_usage_with_weight(&self.resource_weights())
        } else {
            local.max_resource_usage()
        }
    }

    /// Pulsar 4.x defaults.
    pub fn pulsar_4x() -> Self {
        Self::for_profile(Profile::Pulsar4x)
    }

    /// Pulsar 5.0 defaults.
    pub fn pulsar_5_0() -> Self {
        Self::for_profile(Profile::Pulsar50)
    }

    pub fn is_known_key(key: &str) -> bool {
        Self::KEYS.iter().any(|(k, _)| *k == key)
    }

    /// An operator's key (`--set`, a what-if's `set=`, a simulation's configuration) checked
    /// before anything runs: unknown keys are an error naming the nearest known key.
    pub fn check_key(key: &str) -> Result<(), ConfigError> {
        if Self::is_known_key(key) {
            Ok(())
        } else {
            Err(ConfigError::UnknownKey {
                key: key.to_string(),
                suggestion: Self::suggest_key(key),
            })
        }
    }

    /// The known key nearest to a mistyped one: the smallest edit distance (ignoring case, so
    /// `loadbalancersheddingenabled` finds `loadBalancerSheddingEnabled`), if it is at most a third
    /// of the key's length (at least 2); ties go to the first key in `KEYS`.
    pub fn suggest_key(key: &str) -> Option<&'static str> {
        let typed: Vec<char> = key.to_lowercase().chars().collect();
        let limit = (typed.len() / 3).max(2);
        let mut best: Option<(usize, &'static str)> = None;
        for (known, _) in Self::KEYS {
            let candidate: Vec<char> = known.to_lowercase().chars().collect();
            let d = edit_distance(&typed, &candidate);
            if d <= limit && best.is_none_or(|(b, _)| d < b) {
                best = Some((d, known));
            }
        }
        best.map(|(_, k)| k)
    }

    /// Effective weights, honouring the misspelled `...Bandwith...` keys as Pulsar does: the new key
    /// wins when it is not 1.0, otherwise the old key when it is not 1.0, otherwise 1.0.
    pub fn resource_weights(&self) -> ResourceWeights {
        let pick = |new: f64, old: f64| {
            if new != 1.0 {
                new
            } else if old != 1.0 {
                old
            } else {
                1.0
            }
        };
        ResourceWeights {
            cpu: self.load_balancer_cpu_resource_weight,
            memory: self.load_balancer_memory_resource_weight,
            direct_memory: self.load_balancer_direct_memory_resource_weight,
            bandwidth_in: pick(
                self.load_balancer_bandwidth_in_resource_weight,
                self.load_balancer_bandwith_in_resource_weight,
            ),
            bandwidth_out: pick(
                self.load_balancer_bandwidth_out_resource_weight,
                self.load_balancer_bandwith_out_resource_weight,
            ),
        }
    }

    /// `loadBalancerBrokerOverloadedThresholdPercentage / 100`.
    pub fn overloaded_threshold_fraction(&self) -> f64 {
        self.load_balancer_broker_overloaded_threshold_percentage as f64 / 100.0
    }

    pub fn is_extensible(&self) -> bool {
        self.load_manager_class_name
            .ends_with("ExtensibleLoadManagerImpl")
    }
}

/// Expands a strategy's simple class name (`AvgShedder`) to its fully qualified Pulsar name; fully
/// qualified names pass through.
pub fn qualify_strategy_name(name: &str) -> String {
    let name = name.trim();
    if name.contains('.') {
        return name.to_string();
    }
    match name {
        "TransferShedder" => TRANSFER_SHEDDER.to_string(),
        "RoundRobinBrokerSelector" => {
            "org.apache.pulsar.broker.loadbalance.impl.RoundRobinBrokerSelector".to_string()
        }
        other => format!("org.apache.pulsar.broker.loadbalance.impl.{other}"),
    }
}

/// The simple class name of a strategy (`...impl.ThresholdShedder` → `ThresholdShedder`).
pub fn simple_class_name(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Levenshtein distance (insertions, deletions, substitutions), two rows at a time.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        row.fill(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev
                .get(j)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(usize::from(ca != cb));
            let delete = prev
                .get(j + 1)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            let insert = row.get(j).copied().unwrap_or(usize::MAX).saturating_add(1);
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = substitute.min(delete).min(insert);
            }
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_differ_where_the_reference_says() {
        let v4 = LoadBalancerConfig::pulsar_4x();
        let v5 = LoadBalancerConfig::pulsar_5_0();
        assert_eq!(v4.load_balancer_load_shedding_strategy, THRESHOLD_SHEDDER);
        assert_eq!(v4.default_number_of_namespace_bundles, 4);
        assert_eq!(v5.load_balancer_load_shedding_strategy, AVG_SHEDDER);
        assert_eq!(v5.load_balancer_load_placement_strategy, AVG_SHEDDER);
        assert_eq!(v5.default_number_of_namespace_bundles, 32);
    }

    #[test]
    fn old_bandwith_keys_are_honoured_only_when_new_key_is_default() {
        let mut c = LoadBalancerConfig::pulsar_4x();
        c.set_text("loadBalancerBandwithInResourceWeight", "3.0")
            .unwrap();
        assert_eq!(c.resource_weights().bandwidth_in, 3.0);
        c.set_text("loadBalancerBandwidthInResourceWeight", "2.0")
            .unwrap();
        assert_eq!(c.resource_weights().bandwidth_in, 2.0);
    }

    #[test]
    fn mistyped_keys_name_the_key_meant() {
        // The case: one letter missing from Pulsar's key.
        let e = LoadBalancerConfig::check_key("loadBalancerBrokerThresholdShederPercentage");
        assert_eq!(
            e.map_err(|e| e.to_string()),
            Err(
                "`loadBalancerBrokerThresholdShederPercentage` is not a load-balancing key; \
                 did you mean `loadBalancerBrokerThresholdShedderPercentage`?"
                    .to_string()
            )
        );
        assert_eq!(
            LoadBalancerConfig::suggest_key("loadbalancersheddingenabled"),
            Some("loadBalancerSheddingEnabled")
        );
        assert_eq!(
            LoadBalancerConfig::suggest_key("loadBalancerSheddingIntervalMinute"),
            Some("loadBalancerSheddingIntervalMinutes")
        );
        assert_eq!(edit_distance(&['a', 'b'], &['b', 'a']), 2);
        assert_eq!(edit_distance(&[], &['x', 'y']), 2);
    }

    #[test]
    fn bad_values_and_unknown_keys() {
        let mut c = LoadBalancerConfig::pulsar_4x();
        assert!(c.set_text("loadBalancerBrokerMaxTopics", "lots").is_err());
        assert!(c.set_text("maxUnloadPercentage", "NaN").is_err());
        assert_eq!(c.set_text("noSuchKey", "1"), Ok(false));
        assert_eq!(
            LoadBalancerConfig::check_key("noSuchKey"),
            Err(ConfigError::UnknownKey {
                key: "noSuchKey".to_string(),
                suggestion: None
            })
        );
        assert_eq!(
            LoadBalancerConfig::check_key("loadBalancerSheddingEnabled"),
            Ok(())
        );
        // 5.0.1 is not a known release: the nearest known, 5.0.0.
        assert_eq!(Profile::from_broker_version("5.0.1"), Profile::Pulsar50);
        assert_eq!(
            Profile::from_broker_version("4.0.13-SNAPSHOT").name(),
            "4.0.13"
        );
        assert_eq!(Profile::from_broker_version("4.0.14"), Profile::Pulsar4x);
    }
}
