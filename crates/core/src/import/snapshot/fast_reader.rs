//! Our snapshot file read fast: its two big members, `brokers` (each entry by the history store's
//! broker-part scanner, [`broker_part::entry`]) and `bundle_data` (here), scanned once straight
//! into the model with the importer's checks; every other member (`format_version`, `cluster`,
//! `broker_conf`, `namespaces`, …) copied as written into a small snapshot that the importer's
//! reader checks ([`super::typed_reader::check_quiet`]). Round 17 measured the importer's reader
//! at ≈ 3.5× serde_json's typed parse on this file, most of it building a `Leaf` per value and a
//! JSON path per check for 200,000 `BundleData` and 1,000 reports (performance.md, Round 32).
//!
//! As in `broker_part`, it decides no error and gives no warning: on anything it does not read
//! exactly as the importer would (an escape in a key, `null`, a minus sign, a fractional or
//! too-large count, `maxSamples` 0, `numSamples` over `maxSamples`, a repeated or unknown key, a
//! syntax error, a member the importer would warn about) it answers `None`, and the caller reads
//! the whole file with the importer's reader, whose values, warnings and error texts are the
//! importer's. The caller tries it only when the size guard (`json_guard`, run first as for every
//! JSON input) found no repeated key: the importer keeps a repeated map key's first place and later
//! value, which this scan would not see.

use super::broker_part;
use super::scanner::Scan;
use super::typed_reader::{BrokerParts, Parts, check_quiet};
use crate::model::{BundleData, NUM_LONG_SAMPLES, NUM_SHORT_SAMPLES, TimeAverageMessageData};
use crate::naming::{BundleName, parse_bundle_name};

/// The file's parts, or `None` when the importer's reader must read it (see the module comment).
pub(super) fn read(file: &str, text: &str) -> Option<Parts> {
    let mut s = Scan::new(text);
    // The snapshot without `brokers` and `bundle_data`, members as written.
    let mut rest = String::with_capacity(4096);
    rest.push('{');
    let mut brokers = None;
    let mut bundle_data = None;
    s.expect(b'{')?;
    if !s.eat(b'}') {
        loop {
            let key_at = s.at();
            let key = s.plain_str()?;
            s.expect(b':')?;
            match key {
                "brokers" if brokers.is_none() => brokers = Some(read_brokers(file, &mut s)?),
                "bundle_data" if bundle_data.is_none() => {
                    bundle_data = Some(read_bundle_data(&mut s)?);
                }
                "brokers" | "bundle_data" => return None,
                _ => {
                    s.skip_value()?;
                    if rest.len() > 1 {
                        rest.push(',');
                    }
                    rest.push_str(s.since(key_at)?);
                }
            }
            if !s.eat(b',') {
                s.expect(b'}')?;
                break;
            }
        }
    }
    if !s.at_end() {
        return None;
    }
    rest.push('}');
    let mut parts = check_quiet(file, &rest)?;
    parts.brokers = brokers.unwrap_or_default();
    parts.bundle_data = bundle_data.unwrap_or_default();
    Some(parts)
}

/// `$.brokers`: broker id → entry, each entry with no warning from the importer's reader.
fn read_brokers(file: &str, s: &mut Scan<'_>) -> Option<Vec<BrokerParts>> {
    s.expect(b'{')?;
    let mut out = Vec::new();
    if s.eat(b'}') {
        return Some(out);
    }
    loop {
        let name = s.plain_str()?;
        s.expect(b':')?;
        let b = broker_part::entry(file, s, true)?;
        out.push(BrokerParts {
            name: name.to_string(),
            report: b.local_broker_data,
            time_average: b.time_average_broker_data,
            load_data: b.broker_load_data,
            top_bundles: b.top_bundles_load_data,
        });
        if !s.eat(b',') {
            s.expect(b'}')?;
            return Some(out);
        }
    }
}

/// `$.bundle_data`: bundle name (as written, and parsed) → `BundleData`.
fn read_bundle_data(s: &mut Scan<'_>) -> Option<Vec<(String, BundleName, BundleData)>> {
    s.expect(b'{')?;
    let mut out = Vec::new();
    if s.eat(b'}') {
        return Some(out);
    }
    loop {
        let key = s.plain_str()?;
        let name = parse_bundle_name(key).ok()?;
        // A name the rule refuses goes to the importer's reader, which says why.
        crate::naming::check_imported_namespace(BundleName::namespace_of(key)).ok()?;
        s.expect(b':')?;
        out.push((key.to_string(), name, bundle(s)?));
        if !s.eat(b',') {
            s.expect(b'}')?;
            return Some(out);
        }
    }
}

/// One `BundleData` with only its known keys, each once (`bundle_data::check`'s value).
fn bundle(s: &mut Scan<'_>) -> Option<BundleData> {
    let mut d = BundleData::pulsar_default();
    s.known_fields(|s, key| {
        Some(match key {
            "shortTermData" => {
                d.short_term_data = window(s, NUM_SHORT_SAMPLES)?;
                1
            }
            "longTermData" => {
                d.long_term_data = window(s, NUM_LONG_SAMPLES)?;
                2
            }
            "topics" => {
                d.topics = java_int(s)?;
                4
            }
            _ => return None,
        })
    })?;
    Some(d)
}

/// One `TimeAverageMessageData` (`bundle_data::window`'s value): `maxSamples` ≥ 1 when given,
/// `numSamples` ≤ `maxSamples` when given; where the importer refuses, `None`.
fn window(s: &mut Scan<'_>, default_max: i32) -> Option<TimeAverageMessageData> {
    let mut w = TimeAverageMessageData::with_defaults(default_max);
    let seen = s.known_fields(|s, key| {
        Some(match key {
            "maxSamples" => {
                w.max_samples = java_int(s)?;
                1
            }
            "numSamples" => {
                w.num_samples = java_int(s)?;
                2
            }
            "msgThroughputIn" => {
                w.msg_throughput_in = s.rate()?;
                4
            }
            "msgThroughputOut" => {
                w.msg_throughput_out = s.rate()?;
                8
            }
            "msgRateIn" => {
                w.msg_rate_in = s.rate()?;
                16
            }
            "msgRateOut" => {
                w.msg_rate_out = s.rate()?;
                32
            }
            _ => return None,
        })
    })?;
    let max_given = seen & 1 != 0;
    let num_given = seen & 2 != 0;
    if (max_given && w.max_samples == 0) || (num_given && w.num_samples > w.max_samples) {
        return None;
    }
    Some(w)
}

/// `Ctx::non_negative_i32`'s value for a plain integer.
fn java_int(s: &mut Scan<'_>) -> Option<i32> {
    i32::try_from(s.count()?).ok()
}

#[cfg(test)]
mod tests {
    //! The fast reader against the importer's reader alone on the same text: the same snapshot and
    //! warnings, or the same error text, on written snapshots, hand-made edits and every one-byte
    //! edit of a small snapshot. Where a test says the fast reader reads a text itself, the value is
    //! also compared with the snapshot that was written (read back to itself).

    use crate::import::diag::{Diag, WarningKind};
    use crate::import::{DEFAULT_MAX_JSON_VALUES, assemble, collect::Collected, json_guard};
    use crate::import::{ImportWarning, snapshot};
    use crate::model::Snapshot;

    type Outcome = Result<(Snapshot, Vec<ImportWarning>), String>;

    /// What the import of `text` as a snapshot gives (guard, reader, assembly), with the fast
    /// reader allowed or not.
    fn run(text: &str, fast: bool) -> Outcome {
        let mut diag = Diag::default();
        let scan = json_guard::check("s.json", text, DEFAULT_MAX_JSON_VALUES)
            .map_err(|e| e.to_string())?;
        let unique = scan.duplicates.is_empty();
        for at in scan.duplicates {
            diag.warn(WarningKind::Duplicate, "s.json", Some(at), "twice");
        }
        let mut c = Collected::default();
        snapshot::read("s.json", text, fast && unique, &mut c, &mut diag)
            .map_err(|e| e.to_string())?;
        let snapshot = assemble::assemble(c, &mut diag).map_err(|e| e.to_string())?;
        Ok((snapshot, diag.finish()))
    }

    /// Both readers agree on `text`; whether the fast one read it itself (it is tried only when
    /// the guard found no repeated key).
    fn agree(text: &str) -> bool {
        let fast = run(text, true);
        let slow = run(text, false);
        assert_eq!(fast, slow, "{}", &text[..text.len().min(300)]);
        json_guard::check("s.json", text, DEFAULT_MAX_JSON_VALUES)
            .is_ok_and(|s| s.duplicates.is_empty())
            && super::read("s.json", text).is_some()
    }

    fn demo() -> &'static str {
        include_str!("../../../../../static/demo-snapshot.json")
    }

    /// A generated cluster as `lbplan` writes it, and the snapshot.
    fn generated(brokers: u32, namespaces: usize) -> Snapshot {
        let mut spec = crate::synthetic::SyntheticSpec::large();
        spec.brokers = brokers;
        spec.namespaces.truncate(namespaces);
        crate::synthetic::generate(&spec, 7).expect("generates")
    }

    #[test]
    fn written_snapshots_are_read_fast_and_as_the_importer_reads_them() {
        let (demo_snapshot, warnings) = run(demo(), false).expect("the demo imports");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(agree(demo()));
        let s = generated(12, 40);
        assert!(s.bundle_data.len() > 500 && s.brokers.len() == 12);
        for text in [
            serde_json::to_string(&s).expect("json"),
            serde_json::to_string_pretty(&s).expect("json"),
        ] {
            assert!(agree(&text));
            // The written snapshot, read back (independently of either reader's code).
            assert_eq!(run(&text, true).map(|(s, _)| s), Ok(s.clone()));
        }
        // And the demo written again reads back to itself.
        let again = serde_json::to_string(&demo_snapshot).expect("json");
        assert!(agree(&again));
        assert_eq!(run(&again, true).map(|(s, _)| s), Ok(demo_snapshot));
    }

    /// A small written snapshot: one broker, two bundles of one namespace.
    fn small() -> String {
        let mut s = generated(1, 1);
        let keep: Vec<String> = s.bundle_data.keys().take(2).cloned().collect();
        s.bundle_data.retain(|k, _| keep.contains(k));
        for b in s.brokers.values_mut() {
            let d = &mut b.local_broker_data;
            d.bundles.retain(|k| keep.contains(k));
            d.last_stats.retain(|k, _| keep.contains(k));
            d.last_bundle_gains = keep.clone();
            d.num_bundles = d.last_stats.len() as i64;
            let st = d.last_stats.values();
            let (ri, ro, ti, to) = st.fold((0.0, 0.0, 0.0, 0.0), |a, x| {
                (
                    a.0 + x.msg_rate_in,
                    a.1 + x.msg_rate_out,
                    a.2 + x.msg_throughput_in,
                    a.3 + x.msg_throughput_out,
                )
            });
            (d.msg_rate_in, d.msg_rate_out) = (ri, ro);
            (d.msg_throughput_in, d.msg_throughput_out) = (ti, to);
            b.top_bundles_load_data = None;
        }
        serde_json::to_string(&s).expect("json")
    }

    #[test]
    fn what_it_does_not_read_exactly_is_left_to_the_importer() {
        let text = serde_json::to_string(&generated(3, 4)).expect("json");
        assert!(agree(&text));
        let bundle = text
            .split("\"bundle_data\":{\"")
            .nth(1)
            .and_then(|t| t.split('"').next())
            .expect("a bundle")
            .to_string();
        let (ns, range) = bundle.rsplit_once('/').expect("a bundle name");
        let broker = text
            .split("\"brokers\":{\"")
            .nth(1)
            .and_then(|t| t.split('"').next())
            .expect("a broker")
            .to_string();
        assert!(
            text.starts_with("{\"format_version\":1,"),
            "{}",
            &text[..40]
        );
        // The first `from` inside `bundle_data` replaced.
        let in_data = |from: &str, to: &str| {
            let at = text.find("\"bundle_data\"").expect("bundle_data");
            format!("{}{}", &text[..at], text[at..].replacen(from, to, 1))
        };
        // The value of the first `key` after `after` replaced by `value`.
        let set = |after: &str, key: &str, value: &str| {
            let from = text.find(after).expect("after");
            let k = from + text[from..].find(&format!("\"{key}\":")).expect("key") + key.len() + 3;
            let end = k + text[k..].find([',', '}']).expect("end");
            format!("{}{value}{}", &text[..k], &text[end..])
        };
        let first_bundle = format!("\"bundle_data\":{{\"{bundle}\":");
        // (text, whether the fast reader reads it itself; `None`: either)
        let variants: Vec<(String, Option<bool>)> = vec![
            // Counts and rates of a BundleData: what the importer refuses or reads otherwise.
            (set("\"bundle_data\"", "topics", "-1"), Some(false)),
            (set("\"bundle_data\"", "topics", "3.0"), Some(false)),
            (set("\"bundle_data\"", "topics", "2147483648"), Some(false)),
            (set("\"bundle_data\"", "topics", "null"), Some(false)),
            (set("\"bundle_data\"", "topics", "\"3\""), Some(false)),
            (set("\"bundle_data\"", "maxSamples", "0"), Some(false)),
            (set("\"bundle_data\"", "maxSamples", "1e1"), Some(false)),
            (set("\"bundle_data\"", "numSamples", "11"), Some(false)),
            (set("\"bundle_data\"", "numSamples", "-0"), Some(false)),
            (set("\"bundle_data\"", "msgRateIn", "-0.0"), Some(false)),
            (set("\"bundle_data\"", "msgRateIn", "-1"), Some(false)),
            (set("\"bundle_data\"", "msgRateIn", "1e400"), Some(false)),
            (set("\"bundle_data\"", "msgRateIn", "\"NaN\""), Some(false)),
            (set("\"bundle_data\"", "msgRateIn", "01"), Some(false)),
            (set("\"bundle_data\"", "msgRateIn", "1."), Some(false)),
            (set("\"bundle_data\"", "shortTermData", "null"), Some(false)),
            (set("\"bundle_data\"", "shortTermData", "[]"), Some(false)),
            // … and what it reads itself: other spellings and values, members left out.
            (set("\"bundle_data\"", "msgRateIn", "1.5E+2"), Some(true)),
            (set("\"bundle_data\"", "msgRateIn", "12.5e-3"), Some(true)),
            (set("\"bundle_data\"", "msgRateIn", "99999999999999999999"), Some(true)),
            (set("\"bundle_data\"", "msgRateOut", "0"), Some(true)),
            (set("\"bundle_data\"", "topics", "0"), Some(true)),
            (set("\"bundle_data\"", "topics", "2147483647"), Some(true)),
            (set("\"bundle_data\"", "numSamples", "9"), Some(true)),
            (set("\"bundle_data\"", "maxSamples", "1"), None),
            (in_data("\"shortTermData\":{", "\"shortTermData\":{\"z\":1,"), Some(false)),
            (in_data("\"topics\":", "\"x\":{},\"topics\":"), Some(false)),
            (in_data("\"topics\":", "\"topics\":1,\"topics\":"), Some(false)),
            (in_data("\"maxSamples\":", "\"maxSamples\":3,\"maxSamples\":"), Some(false)),
            (
                text.replacen(&first_bundle, &format!("\"bundle_data\":{{\"{bundle}\":{{}},\"{ns}/0x00000000_0x00000001\":"), 1),
                Some(true),
            ),
            (
                text.replacen(&first_bundle, &format!("\"bundle_data\":{{\"{bundle}\":{{\"shortTermData\":{{}}}},\"{ns}/0x00000000_0x00000002\":"), 1),
                Some(true),
            ),
            // Bundle names: an escape, not a bundle, upper case, a key twice.
            (text.replacen(&bundle, &format!("{ns}\\/{range}"), 1), Some(false)),
            (in_data(&bundle, "not-a-bundle"), Some(false)),
            (in_data(&bundle, &bundle.to_uppercase().replace("0X", "0x")), None),
            (
                text.replacen(&first_bundle, &format!("{first_bundle}{{}},\"{bundle}\":"), 1),
                Some(false),
            ),
            // Brokers: an escape in the id, an entry twice, a report the importer warns about
            // (totals against lastStats, an unknown key), a broker without a report.
            (
                text.replacen(
                    &format!("\"brokers\":{{\"{broker}\""),
                    &format!("\"brokers\":{{\"{}\"", broker.replace(':', "\\u003a")),
                    1,
                ),
                Some(false),
            ),
            // An escape in a member copied for the importer's reader (`leader_broker`) is its.
            (text.replacen(&broker, &broker.replace(':', "\\u003a"), 1), Some(true)),
            (
                text.replacen(
                    &format!("\"brokers\":{{\"{broker}\":"),
                    &format!("\"brokers\":{{\"{broker}\":{{\"local_broker_data\":{{}}}},\"{broker}\":"),
                    1,
                ),
                Some(false),
            ),
            (set("\"brokers\"", "numBundles", "100000"), Some(false)),
            (set("\"brokers\"", "msgRateIn", "0.5"), Some(false)),
            (set("\"brokers\"", "lastUpdate", "5"), Some(true)),
            (text.replacen("\"local_broker_data\":{", "\"local_broker_data\":{\"zz\":1,", 1), Some(false)),
            (text.replacen("\"local_broker_data\":{", "\"q\":2,\"local_broker_data\":{", 1), Some(false)),
            (
                text.replacen(
                    &format!("\"brokers\":{{\"{broker}\":"),
                    "\"brokers\":{\"b9:8080\":{},\"x\":",
                    1,
                ),
                Some(false),
            ),
            // The top level: members unknown, repeated, missing, null, of another kind.
            (text.replacen("{\"format_version\":1,", "{\"zz\":[1,{\"a\":\"}\\\"\"}],\"format_version\":1,", 1), Some(false)),
            (text.replacen("{\"format_version\":1,", "{", 1), Some(false)),
            (text.replacen("\"format_version\":1", "\"format_version\":2", 1), Some(false)),
            (text.replacen("\"format_version\":1", "\"format_version\":-1", 1), Some(false)),
            (text.replacen("\"format_version\":1,", "\"format_version\":1,\"format_version\":1,", 1), Some(false)),
            (text.replacen("\"format_version\":1,", "\"format_version\":1,\"bundle_data\":{},", 1), Some(false)),
            (text.replacen("\"format_version\":1,", "\"format_version\":1,\"brokers\":{},", 1), Some(false)),
            (text.replacen("\"brokers\":", "\"brokers\":null,\"b\":", 1), Some(false)),
            (text.replacen("\"bundle_data\":", "\"bundle_data\":null,\"bd\":", 1), Some(false)),
            (text.replacen("\"bundle_data\":", "\"bundle_data\":[],\"bd\":", 1), Some(false)),
            (set("{", "cluster", "7"), Some(false)),
            (set("{", "cluster", "\"other\""), Some(true)),
            // Deep nesting, truncation, trailing text.
            (
                text.replacen(
                    "{\"format_version\":1,",
                    &format!("{{\"x\":{}{},\"format_version\":1,", "[".repeat(100), "]".repeat(100)),
                    1,
                ),
                Some(false),
            ),
            (
                text.replacen(
                    "{\"format_version\":1,",
                    &format!("{{\"x\":{}{},\"format_version\":1,", "[".repeat(300), "]".repeat(300)),
                    1,
                ),
                Some(false),
            ),
            (text[..text.len() - 1].to_string(), Some(false)),
            (text[..text.len() / 2].to_string(), Some(false)),
            (format!("{text} x"), Some(false)),
            (format!("\n {text}\n"), Some(true)),
            (format!("{text}{text}"), Some(false)),
        ];
        for (i, (v, fast)) in variants.iter().enumerate() {
            assert!(*v != text, "variant {i} edits the text");
            let read = agree(v);
            if let Some(fast) = fast {
                assert_eq!(read, *fast, "variant {i}");
            }
        }
    }

    #[test]
    fn any_one_byte_edit_reads_as_the_importer_reads_it() {
        let text = small();
        assert!(agree(&text), "the small snapshot is read fast");
        let mut fast = 0;
        for i in 0..text.len() {
            for with in ["", "-", "\\", "\"", "}", "]", ",", "0", "e", " ", "\\u00e9"] {
                let (Some(head), Some(tail)) = (text.get(..i), text.get(i + 1..)) else {
                    continue;
                };
                fast += usize::from(agree(&format!("{head}{with}{tail}")));
            }
        }
        // Many edits (a digit for a digit, a space) are still read fast.
        assert!(fast > text.len(), "{fast} of {}", text.len() * 11);
    }
}
