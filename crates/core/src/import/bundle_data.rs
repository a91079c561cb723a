//! `BundleData` (`/loadbalance/bundle-data/<tenant>/<ns>/<range>`): the leader's short- and
//! long-term averages of one bundle (§2.4–2.5). One typed reader ([`typed`] leaves), from the
//! node's text or from a parsed tree (shape detection, our snapshot file).

use super::diag::ImportError;
use super::json::{Ctx, JPath};
use super::typed::{Leaf, Object, Unknown, json_object};
use crate::model::{BundleData, NUM_LONG_SAMPLES, NUM_SHORT_SAMPLES, TimeAverageMessageData};

/// A `TimeAverageMessageData` as read.
#[derive(Default)]
pub(crate) struct RawWindow<'a> {
    max_samples: Option<Leaf<'a>>,
    num_samples: Option<Leaf<'a>>,
    msg_throughput_in: Option<Leaf<'a>>,
    msg_throughput_out: Option<Leaf<'a>>,
    msg_rate_in: Option<Leaf<'a>>,
    msg_rate_out: Option<Leaf<'a>>,
    unknown: Unknown<'a>,
}

json_object!(RawWindow, "a TimeAverageMessageData", {
    "maxSamples" => max_samples,
    "numSamples" => num_samples,
    "msgThroughputIn" => msg_throughput_in,
    "msgThroughputOut" => msg_throughput_out,
    "msgRateIn" => msg_rate_in,
    "msgRateOut" => msg_rate_out,
}, unknown: unknown);

/// A `BundleData` as read (a `null` field is an absent one, as Jackson reads it).
#[derive(Default)]
pub(crate) struct RawBundleData<'a> {
    short_term_data: Option<Object<'a, RawWindow<'a>>>,
    long_term_data: Option<Object<'a, RawWindow<'a>>>,
    topics: Option<Leaf<'a>>,
    unknown: Unknown<'a>,
}

json_object!(RawBundleData, "a BundleData", {
    "shortTermData" => short_term_data,
    "longTermData" => long_term_data,
    "topics" => topics,
}, unknown: unknown);

/// The checks on a `BundleData` read at `p`.
pub(crate) fn check(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawBundleData<'_>>,
    p: &JPath<'_>,
) -> Result<BundleData, ImportError> {
    let raw = raw.get(ctx, p, "a BundleData")?;
    raw.unknown.warn(ctx, p);
    let mut d = BundleData::pulsar_default();
    if let Some(w) = raw.short_term_data {
        d.short_term_data = window(ctx, w, &p.key("shortTermData"), NUM_SHORT_SAMPLES)?;
    }
    if let Some(w) = raw.long_term_data {
        d.long_term_data = window(ctx, w, &p.key("longTermData"), NUM_LONG_SAMPLES)?;
    }
    if let Some(t) = raw.topics {
        d.topics = ctx.non_negative_i32(&t.value(), &p.key("topics"))?;
    }
    Ok(d)
}

/// A `TimeAverageMessageData`. `maxSamples` must be ≥ 1 (0 divides by zero in Pulsar) and
/// `numSamples` at most `maxSamples`.
fn window(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawWindow<'_>>,
    p: &JPath<'_>,
    default_max: i32,
) -> Result<TimeAverageMessageData, ImportError> {
    let raw = raw.get(ctx, p, "a TimeAverageMessageData")?;
    raw.unknown.warn(ctx, p);
    let mut w = TimeAverageMessageData::with_defaults(default_max);
    if let Some(x) = raw.max_samples {
        let pm = p.key("maxSamples");
        w.max_samples = ctx.non_negative_i32(&x.value(), &pm)?;
        if w.max_samples == 0 {
            return Err(ctx.err(
                &pm,
                "expected maxSamples >= 1 (0 divides by zero in Pulsar)",
            ));
        }
    }
    if let Some(x) = raw.num_samples {
        let pn = p.key("numSamples");
        w.num_samples = ctx.non_negative_i32(&x.value(), &pn)?;
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
    for (key, x, slot) in [
        (
            "msgThroughputIn",
            raw.msg_throughput_in,
            &mut w.msg_throughput_in,
        ),
        (
            "msgThroughputOut",
            raw.msg_throughput_out,
            &mut w.msg_throughput_out,
        ),
        ("msgRateIn", raw.msg_rate_in, &mut w.msg_rate_in),
        ("msgRateOut", raw.msg_rate_out, &mut w.msg_rate_out),
    ] {
        if let Some(x) = x {
            *slot = ctx.non_negative(&x.value(), &p.key(key))?;
        }
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    //! The typed reader's messages and values; the expectations follow the checks above and the
    //! defaults of Pulsar's `BundleData` (short window 10 samples, long window 1000).

    use crate::import::{ImportInput, WarningKind, import};

    const REPORT: &str = r#"{"lastUpdate": 1, "cpu": {"usage": 1, "limit": 100},
        "bundles": ["t/ns/0x00000000_0xffffffff"]}"#;
    const NODE: &str = "loadbalance/bundle-data/t/ns/0x00000000_0xffffffff";

    fn run(text: &str) -> Result<crate::import::Imported, String> {
        let inputs = [
            ImportInput::in_tree("loadbalance/brokers/b1:8080", REPORT.as_bytes()),
            ImportInput::in_tree(NODE, text.as_bytes()),
        ];
        import(&inputs).map_err(|e| e.to_string())
    }

    #[test]
    fn the_checks_name_the_field() {
        let e = run(r#"{"shortTermData": {"maxSamples": 0}}"#).unwrap_err();
        assert!(
            e.ends_with(
                "$.shortTermData.maxSamples: expected maxSamples >= 1 (0 divides by zero in \
                 Pulsar)"
            ),
            "{e}"
        );
        let e = run(r#"{"longTermData": {"maxSamples": 5, "numSamples": 6}}"#).unwrap_err();
        assert!(
            e.ends_with(
                "$.longTermData.numSamples: expected numSamples <= maxSamples (5), found 6"
            ),
            "{e}"
        );
        let e = run(r#"{"shortTermData": {"msgRateIn": "NaN"}}"#).unwrap_err();
        assert!(
            e.ends_with(
                "$.shortTermData.msgRateIn: expected a finite number, found NaN (NaN and \
                 infinite values are not allowed)"
            ),
            "{e}"
        );
        let e = run(r#"{"longTermData": [1]}"#).unwrap_err();
        assert!(
            e.ends_with(
                "$.longTermData: expected a TimeAverageMessageData (a JSON object), found an array"
            ),
            "{e}"
        );
        let e = run(r#"{"topics": -1}"#).unwrap_err();
        assert!(
            e.ends_with("$.topics: expected a non-negative integer, found -1"),
            "{e}"
        );
        let e = run("{\"topics\": 3,\n  \"shortTermData\": {").unwrap_err();
        assert!(
            e.contains("line 2, column 20") && e.contains("truncated"),
            "{e}"
        );
    }

    #[test]
    fn values_defaults_and_unknown_fields() {
        let out = run(
            r#"{"shortTermData": {"msgRateIn": 2.5, "numSamples": 3, "x": 1},
                "longTermData": null, "topics": 4.0, "y": {"z": []}}"#,
        )
        .unwrap();
        let d = out.snapshot.bundle_data.values().next().unwrap();
        assert_eq!(d.short_term_data.msg_rate_in, 2.5);
        assert_eq!(d.short_term_data.num_samples, 3);
        assert_eq!(d.short_term_data.max_samples, 10);
        assert_eq!(d.long_term_data.max_samples, 1000);
        assert_eq!(d.topics, 4);
        let unknown: Vec<_> = out
            .warnings
            .iter()
            .filter(|w| w.kind == WarningKind::UnknownField)
            .map(|w| format!("{}: {}", w.at.clone().unwrap_or_default(), w.message))
            .collect();
        assert_eq!(
            unknown,
            [
                "$: unknown field `y` ignored",
                "$.shortTermData: unknown field `x` ignored"
            ]
        );
    }
}
