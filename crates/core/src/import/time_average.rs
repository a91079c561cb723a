//! `TimeAverageBrokerData` (`/loadbalance/broker-time-average/<broker>`): the leader's per-broker
//! sums of its bundles' averages (§2.6).

use serde_json::Value;

use super::diag::ImportError;
use super::json::{Ctx, JPath, field};
use crate::model::TimeAverageBrokerData;

pub(crate) const KNOWN: &[&str] = &[
    "shortTermMsgThroughputIn",
    "shortTermMsgThroughputOut",
    "shortTermMsgRateIn",
    "shortTermMsgRateOut",
    "longTermMsgThroughputIn",
    "longTermMsgThroughputOut",
    "longTermMsgRateIn",
    "longTermMsgRateOut",
];

pub(crate) fn parse(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<TimeAverageBrokerData, ImportError> {
    let m = ctx.object(v, p, "a TimeAverageBrokerData")?;
    ctx.check_known(m, KNOWN, p);
    let mut d = TimeAverageBrokerData::default();
    let slots = [
        &mut d.short_term_msg_throughput_in,
        &mut d.short_term_msg_throughput_out,
        &mut d.short_term_msg_rate_in,
        &mut d.short_term_msg_rate_out,
        &mut d.long_term_msg_throughput_in,
        &mut d.long_term_msg_throughput_out,
        &mut d.long_term_msg_rate_in,
        &mut d.long_term_msg_rate_out,
    ];
    for (key, slot) in KNOWN.iter().zip(slots) {
        if let Some(x) = field(m, key) {
            *slot = ctx.non_negative(x, &p.key(key))?;
        }
    }
    Ok(d)
}
