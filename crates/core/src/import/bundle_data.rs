//! `BundleData` (`/loadbalance/bundle-data/<tenant>/<ns>/<range>`): the leader's short- and
//! long-term averages of one bundle (§2.4–2.5).

use serde_json::Value;

use super::diag::ImportError;
use super::json::{Ctx, JPath, field};
use crate::model::{BundleData, NUM_LONG_SAMPLES, NUM_SHORT_SAMPLES, TimeAverageMessageData};

const KNOWN: &[&str] = &["shortTermData", "longTermData", "topics"];
const WINDOW_KNOWN: &[&str] = &[
    "maxSamples",
    "numSamples",
    "msgThroughputIn",
    "msgThroughputOut",
    "msgRateIn",
    "msgRateOut",
];

pub(crate) fn parse(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<BundleData, ImportError> {
    let m = ctx.object(v, p, "a BundleData")?;
    ctx.check_known(m, KNOWN, p);
    let mut d = BundleData::pulsar_default();
    if let Some(w) = field(m, "shortTermData") {
        d.short_term_data = window(ctx, w, &p.key("shortTermData"), NUM_SHORT_SAMPLES)?;
    }
    if let Some(w) = field(m, "longTermData") {
        d.long_term_data = window(ctx, w, &p.key("longTermData"), NUM_LONG_SAMPLES)?;
    }
    if let Some(t) = field(m, "topics") {
        d.topics = ctx.non_negative_i32(t, &p.key("topics"))?;
    }
    Ok(d)
}

/// A `TimeAverageMessageData`. `maxSamples` must be ≥ 1 (0 divides by zero in Pulsar) and
/// `numSamples` at most `maxSamples`.
fn window(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
    default_max: i32,
) -> Result<TimeAverageMessageData, ImportError> {
    let m = ctx.object(v, p, "a TimeAverageMessageData")?;
    ctx.check_known(m, WINDOW_KNOWN, p);
    let mut w = TimeAverageMessageData::with_defaults(default_max);
    if let Some(x) = field(m, "maxSamples") {
        let pm = p.key("maxSamples");
        w.max_samples = ctx.non_negative_i32(x, &pm)?;
        if w.max_samples == 0 {
            return Err(ctx.err(
                &pm,
                "expected maxSamples >= 1 (0 divides by zero in Pulsar)",
            ));
        }
    }
    if let Some(x) = field(m, "numSamples") {
        let pn = p.key("numSamples");
        w.num_samples = ctx.non_negative_i32(x, &pn)?;
        if w.num_samples > w.max_samples {
            return Err(ctx.err(
                &pn,
                format!(
                    "expected numSamples <= maxSamples ({}), found {}",
                    w.max_samples, w.num_samples
                ),
            ));
        }
    }
    for (key, slot) in [
        ("msgThroughputIn", &mut w.msg_throughput_in),
        ("msgThroughputOut", &mut w.msg_throughput_out),
        ("msgRateIn", &mut w.msg_rate_in),
        ("msgRateOut", &mut w.msg_rate_out),
    ] {
        if let Some(x) = field(m, key) {
            *slot = ctx.non_negative(x, &p.key(key))?;
        }
    }
    Ok(w)
}
