//! Extensible load manager `BrokerLoadData` (value of the broker-load-data system topic, key =
//! brokerId; §2.8). One typed reader ([`typed`] leaves), from the text or from a parsed tree (our
//! snapshot file).

use super::diag::ImportError;
use super::fields::{RawResourceField, resources};
use super::json::{Ctx, JPath};
use super::typed::{self, Leaf, Object, Unknown, json_object};
use crate::model::BrokerLoadData;

/// A `BrokerLoadData` as read, its fields in Pulsar's order.
#[derive(Default)]
pub(crate) struct RawBrokerLoadData<'a> {
    cpu: RawResourceField<'a>,
    memory: RawResourceField<'a>,
    direct_memory: RawResourceField<'a>,
    bandwidth_in: RawResourceField<'a>,
    bandwidth_out: RawResourceField<'a>,
    msg_throughput_in: Option<Leaf<'a>>,
    msg_throughput_out: Option<Leaf<'a>>,
    msg_rate_in: Option<Leaf<'a>>,
    msg_rate_out: Option<Leaf<'a>>,
    bundle_count: Option<Leaf<'a>>,
    topics: Option<Leaf<'a>>,
    max_resource_usage: Option<Leaf<'a>>,
    weighted_max_ema: Option<Leaf<'a>>,
    msg_throughput_ema: Option<Leaf<'a>>,
    updated_at: Option<Leaf<'a>>,
    reported_at: Option<Leaf<'a>>,
    unknown: Unknown<'a>,
}

json_object!(RawBrokerLoadData, "a BrokerLoadData", {
    "cpu" => cpu,
    "memory" => memory,
    "directMemory" => direct_memory,
    "bandwidthIn" => bandwidth_in,
    "bandwidthOut" => bandwidth_out,
    "msgThroughputIn" => msg_throughput_in,
    "msgThroughputOut" => msg_throughput_out,
    "msgRateIn" => msg_rate_in,
    "msgRateOut" => msg_rate_out,
    "bundleCount" => bundle_count,
    "topics" => topics,
    "maxResourceUsage" => max_resource_usage,
    "weightedMaxEMA" => weighted_max_ema,
    "msgThroughputEMA" => msg_throughput_ema,
    "updatedAt" => updated_at,
    "reportedAt" => reported_at,
}, unknown: unknown);

/// Keys only `BrokerLoadData` has (shape detection).
pub(crate) const DISTINCTIVE: &[&str] = &[
    "weightedMaxEMA",
    "msgThroughputEMA",
    "bundleCount",
    "updatedAt",
    "reportedAt",
];

/// A `BrokerLoadData`, read from its text.
pub(crate) fn from_text(ctx: &mut Ctx<'_>, text: &str) -> Result<BrokerLoadData, ImportError> {
    let raw = typed::from_text(ctx.file, text)?;
    check(ctx, raw, &JPath::ROOT)
}

/// The checks: resources as in a load report, numbers finite and ≥ 0, counts Java `int`s.
pub(crate) fn check(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawBrokerLoadData<'_>>,
    p: &JPath<'_>,
) -> Result<BrokerLoadData, ImportError> {
    let m = raw.get(ctx, p, "a BrokerLoadData")?;
    m.unknown.warn(ctx, p);
    let mut d = BrokerLoadData::default();
    resources(
        ctx,
        [
            m.cpu,
            m.memory,
            m.direct_memory,
            m.bandwidth_in,
            m.bandwidth_out,
        ],
        p,
        &mut d,
    )?;
    for (key, x, slot) in [
        (
            "msgThroughputIn",
            m.msg_throughput_in,
            &mut d.msg_throughput_in,
        ),
        (
            "msgThroughputOut",
            m.msg_throughput_out,
            &mut d.msg_throughput_out,
        ),
        ("msgRateIn", m.msg_rate_in, &mut d.msg_rate_in),
        ("msgRateOut", m.msg_rate_out, &mut d.msg_rate_out),
        (
            "maxResourceUsage",
            m.max_resource_usage,
            &mut d.max_resource_usage,
        ),
        (
            "weightedMaxEMA",
            m.weighted_max_ema,
            &mut d.weighted_max_ema,
        ),
        (
            "msgThroughputEMA",
            m.msg_throughput_ema,
            &mut d.msg_throughput_ema,
        ),
    ] {
        if let Some(x) = x {
            *slot = ctx.non_negative(&x.value(), &p.key(key))?;
        }
    }
    for (key, x, slot) in [
        ("bundleCount", m.bundle_count, &mut d.bundle_count),
        ("topics", m.topics, &mut d.topics),
    ] {
        if let Some(x) = x {
            *slot = ctx.non_negative_i32(&x.value(), &p.key(key))?;
        }
    }
    for (key, x, slot) in [
        ("updatedAt", m.updated_at, &mut d.updated_at),
        ("reportedAt", m.reported_at, &mut d.reported_at),
    ] {
        if let Some(x) = x {
            *slot = ctx.non_negative_i64(&x.value(), &p.key(key))?;
        }
    }
    Ok(d)
}
