//! Extensible load manager `BrokerLoadData` (value of the broker-load-data system topic, key =
//! brokerId; §2.8).

use serde_json::Value;

use super::diag::ImportError;
use super::fields::resources;
use super::json::{Ctx, JPath, field};
use crate::model::BrokerLoadData;

pub(crate) const KNOWN: &[&str] = &[
    "cpu",
    "memory",
    "directMemory",
    "bandwidthIn",
    "bandwidthOut",
    "msgThroughputIn",
    "msgThroughputOut",
    "msgRateIn",
    "msgRateOut",
    "bundleCount",
    "topics",
    "maxResourceUsage",
    "weightedMaxEMA",
    "msgThroughputEMA",
    "updatedAt",
    "reportedAt",
];

/// Keys only `BrokerLoadData` has (shape detection).
pub(crate) const DISTINCTIVE: &[&str] = &[
    "weightedMaxEMA",
    "msgThroughputEMA",
    "bundleCount",
    "updatedAt",
    "reportedAt",
];

pub(crate) fn parse(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<BrokerLoadData, ImportError> {
    let m = ctx.object(v, p, "a BrokerLoadData")?;
    ctx.check_known(m, KNOWN, p);
    let mut d = BrokerLoadData::default();
    let [cpu, memory, direct, bw_in, bw_out] = resources(ctx, m, p)?;
    d.cpu = cpu;
    d.memory = memory;
    d.direct_memory = direct;
    d.bandwidth_in = bw_in;
    d.bandwidth_out = bw_out;
    for (key, slot) in [
        ("msgThroughputIn", &mut d.msg_throughput_in),
        ("msgThroughputOut", &mut d.msg_throughput_out),
        ("msgRateIn", &mut d.msg_rate_in),
        ("msgRateOut", &mut d.msg_rate_out),
        ("maxResourceUsage", &mut d.max_resource_usage),
        ("weightedMaxEMA", &mut d.weighted_max_ema),
        ("msgThroughputEMA", &mut d.msg_throughput_ema),
    ] {
        if let Some(x) = field(m, key) {
            *slot = ctx.non_negative(x, &p.key(key))?;
        }
    }
    for (key, slot) in [
        ("bundleCount", &mut d.bundle_count),
        ("topics", &mut d.topics),
    ] {
        if let Some(x) = field(m, key) {
            *slot = ctx.non_negative_i32(x, &p.key(key))?;
        }
    }
    for (key, slot) in [
        ("updatedAt", &mut d.updated_at),
        ("reportedAt", &mut d.reported_at),
    ] {
        if let Some(x) = field(m, key) {
            *slot = ctx.non_negative_i64(x, &p.key(key))?;
        }
    }
    Ok(d)
}
