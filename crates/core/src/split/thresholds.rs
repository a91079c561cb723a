//! The bundle limits both automatic split decisions test (`loadBalancerNamespaceBundleMax*`,
//! `loadBalancerNamespaceMaximumBundles`) and the structured trigger naming which one was exceeded.

use std::fmt;

use crate::config::LoadBalancerConfig;

/// Pulsar's `LoadManagerShared.MIBI` as a Java `long`.
const MIBI: i64 = 1024 * 1024;

/// The limits, in the units Pulsar compares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitThresholds {
    /// `loadBalancerNamespaceBundleMaxTopics`.
    pub max_topics: i64,
    /// `loadBalancerNamespaceBundleMaxSessions`; `<= 0` disables the sessions check.
    pub max_sessions: i64,
    /// `loadBalancerNamespaceBundleMaxMsgRate`.
    pub max_msg_rate_per_sec: i64,
    /// `loadBalancerNamespaceBundleMaxBandwidthMbytes × 1048576`.
    pub max_bandwidth_bytes_per_sec: i64,
    /// `loadBalancerNamespaceMaximumBundles`.
    pub max_bundles_per_namespace: i64,
}

impl SplitThresholds {
    pub fn from_config(cfg: &LoadBalancerConfig) -> Self {
        Self {
            max_topics: cfg.load_balancer_namespace_bundle_max_topics,
            max_sessions: cfg.load_balancer_namespace_bundle_max_sessions,
            max_msg_rate_per_sec: cfg.load_balancer_namespace_bundle_max_msg_rate,
            max_bandwidth_bytes_per_sec: cfg
                .load_balancer_namespace_bundle_max_bandwidth_mbytes
                .saturating_mul(MIBI),
            max_bundles_per_namespace: cfg.load_balancer_namespace_maximum_bundles,
        }
    }

    /// Whether the bundle exceeds any limit: `!exceeded(..).is_empty()` without building the list
    /// (the split checks ask this of every bundle every cycle).
    pub fn exceeds_any(
        &self,
        topics: i64,
        sessions: i64,
        msg_rate_per_sec: f64,
        throughput_bytes_per_sec: f64,
    ) -> bool {
        topics > self.max_topics
            || (self.max_sessions > 0 && sessions > self.max_sessions)
            || msg_rate_per_sec > self.max_msg_rate_per_sec as f64
            || throughput_bytes_per_sec > self.max_bandwidth_bytes_per_sec as f64
    }

    /// Every limit the bundle exceeds, in Pulsar's reason priority Topics > Sessions > MsgRate >
    /// Bandwidth. `msg_rate` and `throughput` are in+out totals.
    pub fn exceeded(
        &self,
        topics: i64,
        sessions: i64,
        msg_rate_per_sec: f64,
        throughput_bytes_per_sec: f64,
    ) -> Vec<SplitTrigger> {
        let mut out = Vec::new();
        if topics > self.max_topics {
            out.push(SplitTrigger::Topics {
                topics,
                limit: self.max_topics,
            });
        }
        if self.max_sessions > 0 && sessions > self.max_sessions {
            out.push(SplitTrigger::Sessions {
                sessions,
                limit: self.max_sessions,
            });
        }
        // Java compares `double > long`, widening the limit.
        if msg_rate_per_sec > self.max_msg_rate_per_sec as f64 {
            out.push(SplitTrigger::MsgRate {
                msg_rate_per_sec,
                limit_per_sec: self.max_msg_rate_per_sec,
            });
        }
        if throughput_bytes_per_sec > self.max_bandwidth_bytes_per_sec as f64 {
            out.push(SplitTrigger::Bandwidth {
                throughput_bytes_per_sec,
                limit_bytes_per_sec: self.max_bandwidth_bytes_per_sec,
            });
        }
        out
    }
}

/// One exceeded limit: the value and the limit it was compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SplitTrigger {
    /// `topics > loadBalancerNamespaceBundleMaxTopics`.
    Topics { topics: i64, limit: i64 },
    /// `consumers + producers > loadBalancerNamespaceBundleMaxSessions`.
    Sessions { sessions: i64, limit: i64 },
    /// `msgRateIn + msgRateOut > loadBalancerNamespaceBundleMaxMsgRate`.
    MsgRate {
        msg_rate_per_sec: f64,
        limit_per_sec: i64,
    },
    /// `msgThroughputIn + msgThroughputOut > loadBalancerNamespaceBundleMaxBandwidthMbytes × MiB`.
    Bandwidth {
        throughput_bytes_per_sec: f64,
        limit_bytes_per_sec: i64,
    },
}

impl SplitTrigger {
    /// Pulsar's `SplitDecision.Reason` name.
    pub fn reason_name(&self) -> &'static str {
        match self {
            SplitTrigger::Topics { .. } => "Topics",
            SplitTrigger::Sessions { .. } => "Sessions",
            SplitTrigger::MsgRate { .. } => "MsgRate",
            SplitTrigger::Bandwidth { .. } => "Bandwidth",
        }
    }
}

impl fmt::Display for SplitTrigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SplitTrigger::Topics { topics, limit } => {
                write!(
                    f,
                    "topics {topics} > loadBalancerNamespaceBundleMaxTopics {limit}"
                )
            }
            SplitTrigger::Sessions { sessions, limit } => write!(
                f,
                "sessions {sessions} > loadBalancerNamespaceBundleMaxSessions {limit}"
            ),
            SplitTrigger::MsgRate {
                msg_rate_per_sec,
                limit_per_sec,
            } => write!(
                f,
                "msg rate {msg_rate_per_sec} msg/s > loadBalancerNamespaceBundleMaxMsgRate {limit_per_sec}"
            ),
            SplitTrigger::Bandwidth {
                throughput_bytes_per_sec,
                limit_bytes_per_sec,
            } => write!(
                f,
                "throughput {throughput_bytes_per_sec} B/s > loadBalancerNamespaceBundleMaxBandwidthMbytes × MiB = {limit_bytes_per_sec} B/s"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exceeds_any_agrees_with_exceeded() {
        let t = SplitThresholds {
            max_topics: 1000,
            max_sessions: 1000,
            max_msg_rate_per_sec: 30_000,
            max_bandwidth_bytes_per_sec: 100 * MIBI,
            max_bundles_per_namespace: 128,
        };
        let no_sessions = SplitThresholds {
            max_sessions: 0,
            ..t
        };
        for limits in [t, no_sessions] {
            for topics in [0, 1000, 1001] {
                for sessions in [0, 1000, 1001] {
                    for rate in [0.0, 30_000.0, 30_000.5, f64::NAN] {
                        for bytes in [0.0, 104_857_600.0, 104_857_601.0, f64::INFINITY] {
                            assert_eq!(
                                limits.exceeds_any(topics, sessions, rate, bytes),
                                !limits.exceeded(topics, sessions, rate, bytes).is_empty()
                            );
                        }
                    }
                }
            }
        }
    }
}
