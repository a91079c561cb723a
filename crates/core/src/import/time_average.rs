//! `TimeAverageBrokerData` (`/loadbalance/broker-time-average/<broker>`): the leader's per-broker
//! sums of its bundles' averages (§2.6). One typed reader ([`typed`] leaves), from the node's text
//! or from a parsed tree (shape detection, our snapshot file).

use super::diag::ImportError;
use super::json::{Ctx, JPath};
use super::typed::{self, Leaf, Object, Unknown, json_object};
use crate::model::TimeAverageBrokerData;

/// A `TimeAverageBrokerData` as read, its fields in Pulsar's order.
#[derive(Default)]
pub(crate) struct RawTimeAverage<'a> {
    short_throughput_in: Option<Leaf<'a>>,
    short_throughput_out: Option<Leaf<'a>>,
    short_rate_in: Option<Leaf<'a>>,
    short_rate_out: Option<Leaf<'a>>,
    long_throughput_in: Option<Leaf<'a>>,
    long_throughput_out: Option<Leaf<'a>>,
    long_rate_in: Option<Leaf<'a>>,
    long_rate_out: Option<Leaf<'a>>,
    unknown: Unknown<'a>,
}

json_object!(RawTimeAverage, "a TimeAverageBrokerData", {
    "shortTermMsgThroughputIn" => short_throughput_in,
    "shortTermMsgThroughputOut" => short_throughput_out,
    "shortTermMsgRateIn" => short_rate_in,
    "shortTermMsgRateOut" => short_rate_out,
    "longTermMsgThroughputIn" => long_throughput_in,
    "longTermMsgThroughputOut" => long_throughput_out,
    "longTermMsgRateIn" => long_rate_in,
    "longTermMsgRateOut" => long_rate_out,
}, unknown: unknown);

const KEYS: [&str; 8] = [
    "shortTermMsgThroughputIn",
    "shortTermMsgThroughputOut",
    "shortTermMsgRateIn",
    "shortTermMsgRateOut",
    "longTermMsgThroughputIn",
    "longTermMsgThroughputOut",
    "longTermMsgRateIn",
    "longTermMsgRateOut",
];

/// A `TimeAverageBrokerData` node, read from its text.
pub(crate) fn from_text(
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<TimeAverageBrokerData, ImportError> {
    let raw = typed::from_text(ctx.file, text)?;
    check(ctx, raw, &JPath::ROOT)
}

/// The checks: every field a finite number ≥ 0.
pub(crate) fn check(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawTimeAverage<'_>>,
    p: &JPath<'_>,
) -> Result<TimeAverageBrokerData, ImportError> {
    let raw = raw.get(ctx, p, "a TimeAverageBrokerData")?;
    raw.unknown.warn(ctx, p);
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
    let fields = [
        raw.short_throughput_in,
        raw.short_throughput_out,
        raw.short_rate_in,
        raw.short_rate_out,
        raw.long_throughput_in,
        raw.long_throughput_out,
        raw.long_rate_in,
        raw.long_rate_out,
    ];
    for ((key, x), slot) in KEYS.iter().zip(fields).zip(slots) {
        if let Some(x) = x {
            *slot = ctx.non_negative(&x.value(), &p.key(key))?;
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    //! The typed reader's values and messages (every field a finite number ≥ 0).

    use crate::import::{ImportInput, WarningKind, import};

    const REPORT: &str = r#"{"lastUpdate": 1, "cpu": {"usage": 1, "limit": 100}}"#;
    const NODE: &str = "loadbalance/broker-time-average/b1:8080";

    fn run(text: &str) -> Result<crate::import::Imported, String> {
        let inputs = [
            ImportInput::in_tree("loadbalance/brokers/b1:8080", REPORT.as_bytes()),
            ImportInput::in_tree(NODE, text.as_bytes()),
        ];
        import(&inputs).map_err(|e| e.to_string())
    }

    #[test]
    fn values_unknown_fields_and_errors() {
        let out =
            run(r#"{"shortTermMsgRateIn": 12.5, "longTermMsgRateOut": 3, "extra": [1]}"#).unwrap();
        let b = out.snapshot.brokers.values().next().unwrap();
        let t = b.time_average_broker_data.as_ref().unwrap();
        assert_eq!(t.short_term_msg_rate_in, 12.5);
        assert_eq!(t.long_term_msg_rate_out, 3.0);
        assert_eq!(t.long_term_msg_rate_in, 0.0);
        assert!(
            out.warnings
                .iter()
                .any(|w| w.kind == WarningKind::UnknownField
                    && w.file == NODE
                    && w.at.as_deref() == Some("$")
                    && w.message == "unknown field `extra` ignored")
        );
        let e = run(r#"{"longTermMsgThroughputIn": -2}"#).unwrap_err();
        assert!(
            e.ends_with("$.longTermMsgThroughputIn: expected a non-negative number, found -2"),
            "{e}"
        );
        let e = run(r#"{"shortTermMsgRateOut": "x"}"#).unwrap_err();
        assert!(
            e.ends_with("$.shortTermMsgRateOut: expected a number, found the string \"x\""),
            "{e}"
        );
    }
}
