//! Pulsar's resource-usage arithmetic: f32 percentages and the three "max usage" functions (§1 of the
//! reference). Every strategy goes through these so that ties and thresholds flip exactly where Java's do.

use crate::model::SystemResourceUsage;

/// `MIBI` in Pulsar: one "MB" in every `*Mbytes` / `*MinThroughputThreshold` setting.
pub const MIB: f64 = 1024.0 * 1024.0;

/// `ResourceUsage.percentUsage()`: computed in 32-bit float (division and the ×100), then widened.
/// A limit of 0 (or less) means "unknown" and gives 0 %.
pub fn percent_usage(usage: f64, limit: f64) -> f64 {
    if limit > 0.0 {
        let ratio = (usage as f32) / (limit as f32);
        (ratio * 100.0_f32) as f64
    } else {
        0.0
    }
}

/// Resource weights as the strategies read them (`loadBalancer*ResourceWeight`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResourceWeights {
    pub cpu: f64,
    pub memory: f64,
    pub direct_memory: f64,
    pub bandwidth_in: f64,
    pub bandwidth_out: f64,
}

impl ResourceWeights {
    /// Pulsar's defaults: cpu and both bandwidths count fully, heap and direct memory not at all.
    pub const PULSAR_DEFAULT: ResourceWeights = ResourceWeights {
        cpu: 1.0,
        memory: 0.0,
        direct_memory: 0.0,
        bandwidth_in: 1.0,
        bandwidth_out: 1.0,
    };
}

/// Java's `max(double...)` helper: starts at −∞ and keeps the first strictly larger value.
fn java_max(values: &[f64]) -> f64 {
    let mut max = f64::NEG_INFINITY;
    for &v in values {
        if v > max {
            max = v;
        }
    }
    max
}

/// `LocalBrokerData.getMaxResourceUsage()`: unweighted, memory ignored, as a fraction.
pub fn unweighted_max_fraction(u: &SystemResourceUsage) -> f64 {
    java_max(&[
        u.cpu.percent_usage(),
        u.direct_memory.percent_usage(),
        u.bandwidth_in.percent_usage(),
        u.bandwidth_out.percent_usage(),
    ]) / 100.0
}

/// `LocalBrokerData.getMaxResourceUsageWithWeight(...)`: the modular load manager's weighted max,
/// memory ignored, as a fraction.
pub fn modular_weighted_max_fraction(u: &SystemResourceUsage, w: &ResourceWeights) -> f64 {
    java_max(&[
        u.cpu.percent_usage() * w.cpu,
        u.direct_memory.percent_usage() * w.direct_memory,
        u.bandwidth_in.percent_usage() * w.bandwidth_in,
        u.bandwidth_out.percent_usage() * w.bandwidth_out,
    ]) / 100.0
}

/// `BrokerLoadData`'s weighted max (extensible load manager): heap memory included.
pub fn extensible_weighted_max_fraction(u: &SystemResourceUsage, w: &ResourceWeights) -> f64 {
    java_max(&[
        u.cpu.percent_usage() * w.cpu,
        u.memory.percent_usage() * w.memory,
        u.direct_memory.percent_usage() * w.direct_memory,
        u.bandwidth_in.percent_usage() * w.bandwidth_in,
        u.bandwidth_out.percent_usage() * w.bandwidth_out,
    ]) / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_is_computed_in_f32_like_java() {
        // Reference §1.1: 999/1000 → 99.9000015258789, not 99.9.
        assert_eq!(percent_usage(999.0, 1000.0), 99.9000015258789);
        assert_eq!(percent_usage(10.0, 100.0), 10.0);
        assert_eq!(percent_usage(5.0, 0.0), 0.0);
    }
}
