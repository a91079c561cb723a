//! A broker entry of our snapshot format read fast, for the history store's broker parts.
//!
//! A series decodes a broker part for every broker whose report changed, several per snapshot;
//! most of a part is its `lastStats` (one `NamespaceBundleStats` per bundle) and its bundle lists,
//! and the importer's generic typed reader (a `Leaf` per value, a JSON path per check) spent about
//! two thirds of the part's decoding there (performance.md, Round 26). This reader scans the text
//! once and reads those four members straight into the model, with the importer's checks (bundle
//! names parsed and written canonically, rates non-negative and finite, counts non-negative
//! integers, no bundle twice). Every other member is copied, as written, into a small entry that
//! the importer's reader checks as before ([`super::typed_reader::broker_entry`]).
//!
//! It never decides an error itself: on anything it does not read exactly as the importer would
//! (an escape in a key or name, a negative or fractional count, `null`, a repeated key, an unknown
//! key in a stats object, a syntax error, deep nesting) it answers `None` and the caller reads the
//! whole text with the importer's reader, which gives the error or warning text it always gave.
//! So a value it returns is the importer's value for the same text, and the errors are unchanged.

use indexmap::IndexMap;

use super::scanner::Scan;
use super::typed_reader;
use crate::import::diag::Diag;
use crate::import::fields::{bundle_key, split_bundle};
use crate::import::json::Ctx;
use crate::model::{BrokerSnapshot, NamespaceBundleStats};

/// The entry read from `text`, or `None` when the importer's reader must read it (see the module
/// comment): `None` is never wrong, only slower.
pub(crate) fn read(file: &str, text: &str) -> Option<BrokerSnapshot> {
    let mut s = Scan::new(text);
    let b = entry(file, &mut s, false)?;
    s.ws();
    (s.i == s.s.len()).then_some(b)
}

/// The broker entry (an object) at the cursor, the cursor left after it; `None` as for [`read`].
/// With `quiet`, also `None` when the importer's reader would warn about the entry (an unknown
/// key, a report whose totals disagree with its `lastStats`): our snapshot file's fast reader
/// ([`super::fast_reader`]) must give the importer's warnings too, and gives none.
pub(super) fn entry(file: &str, s: &mut Scan<'_>, quiet: bool) -> Option<BrokerSnapshot> {
    let text = s.t;
    // The entry without the fast members: `{"local_broker_data":{<others>}<, other top members>}`.
    let mut rest = String::with_capacity(1024);
    rest.push_str("{\"local_broker_data\":{");
    let mut hot = Hot::default();
    let mut top_others: Vec<&str> = Vec::new();
    let mut seen_local = false;
    s.expect(b'{')?;
    if !s.eat(b'}') {
        loop {
            let key_at = s.at();
            let key = s.plain_str()?;
            s.expect(b':')?;
            if key == "local_broker_data" {
                if seen_local {
                    return None;
                }
                seen_local = true;
                s.local(&mut hot, &mut rest)?;
            } else {
                s.skip_value()?;
                top_others.push(text.get(key_at..s.i)?);
            }
            if !s.eat(b',') {
                s.expect(b'}')?;
                break;
            }
        }
    }
    if !seen_local {
        return None;
    }
    rest.push('}');
    for m in top_others {
        rest.push(',');
        rest.push_str(m);
    }
    rest.push('}');
    let mut diag = Diag::default();
    let mut ctx = Ctx {
        file,
        diag: &mut diag,
    };
    let mut b = typed_reader::broker_entry(&mut ctx, &rest).ok()?;
    // The copy has no `lastStats` nor bundle lists, so its reader had nothing to compare (see
    // `consistency_issues`): that check is made below on the whole report.
    if quiet && !diag.is_empty() {
        return None;
    }
    let d = &mut b.local_broker_data;
    if let Some(stats) = hot.last_stats {
        d.last_stats = stats;
    }
    for (slot, list) in [
        (&mut d.bundles, hot.bundles),
        (&mut d.last_bundle_gains, hot.gains),
        (&mut d.last_bundle_losses, hot.losses),
    ] {
        if let Some(list) = list {
            *slot = list;
        }
    }
    if quiet && !crate::import::broker_report::consistency_issues(d).is_empty() {
        return None;
    }
    Some(b)
}

/// The members read here rather than by the importer's reader (`None`: absent).
#[derive(Default)]
struct Hot<'a> {
    last_stats: Option<IndexMap<String, NamespaceBundleStats>>,
    /// `lastStats`' names as written, in order: a report lists its bundles in the same order and
    /// spelling, and a name written as the k-th of these has the k-th canonical name (the same
    /// text gives the same name), so it is copied rather than parsed and written again.
    stat_texts: Vec<&'a str>,
    bundles: Option<Vec<String>>,
    gains: Option<Vec<String>>,
    losses: Option<Vec<String>>,
}

/// A bundle name in its canonical spelling (`canonical_bundle_name`'s value).
fn canonical(text: &str) -> Option<String> {
    split_bundle(text).map(|(namespace, range)| bundle_key(namespace, range))
}

impl<'a> Scan<'a> {
    /// `local_broker_data`'s value: the fast members into `hot`, the others copied to `rest`.
    fn local(&mut self, hot: &mut Hot<'a>, rest: &mut String) -> Option<()> {
        self.expect(b'{')?;
        if self.eat(b'}') {
            return Some(());
        }
        let mut first = true;
        loop {
            let key_at = self.at();
            let key = self.plain_str()?;
            self.expect(b':')?;
            match key {
                "lastStats" => {
                    if hot.last_stats.is_some() {
                        return None;
                    }
                    hot.last_stats = Some(self.last_stats(&mut hot.stat_texts)?);
                }
                "bundles" | "lastBundleGains" | "lastBundleLosses" => {
                    let slot = match key {
                        "bundles" => &mut hot.bundles,
                        "lastBundleGains" => &mut hot.gains,
                        _ => &mut hot.losses,
                    };
                    if slot.is_some() {
                        return None;
                    }
                    *slot = Some(self.names(&hot.stat_texts, hot.last_stats.as_ref())?);
                }
                _ => {
                    self.skip_value()?;
                    if !first {
                        rest.push(',');
                    }
                    first = false;
                    rest.push_str(self.t.get(key_at..self.i)?);
                }
            }
            if !self.eat(b',') {
                return self.expect(b'}');
            }
        }
    }

    /// A list of bundle names; `texts` and `stats`: `lastStats` as read (see [`Hot::stat_texts`]).
    fn names(
        &mut self,
        texts: &[&str],
        stats: Option<&IndexMap<String, NamespaceBundleStats>>,
    ) -> Option<Vec<String>> {
        self.expect(b'[')?;
        let mut out = Vec::with_capacity(texts.len());
        if self.eat(b']') {
            return Some(out);
        }
        loop {
            let text = self.plain_str()?;
            let same = texts
                .get(out.len())
                .filter(|t| **t == text)
                .and_then(|_| stats?.get_index(out.len()));
            out.push(match same {
                Some((name, _)) => name.clone(),
                None => canonical(text)?,
            });
            if !self.eat(b',') {
                self.expect(b']')?;
                return Some(out);
            }
        }
    }

    /// `lastStats`: bundle name → stats, each bundle once after canonical spelling; the names as
    /// written go to `texts`.
    fn last_stats(
        &mut self,
        texts: &mut Vec<&'a str>,
    ) -> Option<IndexMap<String, NamespaceBundleStats>> {
        self.expect(b'{')?;
        let mut out = IndexMap::new();
        if self.eat(b'}') {
            return Some(out);
        }
        loop {
            let text = self.plain_str()?;
            texts.push(text);
            let name = canonical(text)?;
            self.expect(b':')?;
            let stats = self.stats()?;
            match out.entry(name) {
                indexmap::map::Entry::Vacant(slot) => {
                    slot.insert(stats);
                }
                indexmap::map::Entry::Occupied(_) => return None,
            }
            if !self.eat(b',') {
                self.expect(b'}')?;
                return Some(out);
            }
        }
    }

    /// One `NamespaceBundleStats` with only its known keys, each once.
    fn stats(&mut self) -> Option<NamespaceBundleStats> {
        let mut s = NamespaceBundleStats::default();
        self.known_fields(|scan, key| {
            Some(match key {
                "msgRateIn" => {
                    s.msg_rate_in = scan.rate()?;
                    1
                }
                "msgThroughputIn" => {
                    s.msg_throughput_in = scan.rate()?;
                    2
                }
                "msgRateOut" => {
                    s.msg_rate_out = scan.rate()?;
                    4
                }
                "msgThroughputOut" => {
                    s.msg_throughput_out = scan.rate()?;
                    8
                }
                "consumerCount" => {
                    s.consumer_count = scan.count()?;
                    16
                }
                "producerCount" => {
                    s.producer_count = scan.count()?;
                    32
                }
                "topics" => {
                    s.topics = scan.count()?;
                    64
                }
                "cacheSize" => {
                    s.cache_size = scan.count()?;
                    128
                }
                _ => return None,
            })
        })?;
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{read_broker_entry, read_broker_entry_generic};

    /// A broker of the bench cluster as the store writes it (compact serde_json).
    fn stored() -> String {
        let s = crate::simulate::builtin_snapshot("bench").expect("built-in");
        let b = s.brokers.values().next().expect("a broker");
        assert!(b.local_broker_data.last_stats.len() > 10);
        serde_json::to_string(b).expect("serialises")
    }

    /// The entry point (fast path, else the importer) and the importer alone agree on `text`:
    /// the same value or the same error text.
    fn agree(text: &str) {
        let fast = read_broker_entry("parts/x.json.gz", text).map_err(|e| e.to_string());
        let slow = read_broker_entry_generic("parts/x.json.gz", text).map_err(|e| e.to_string());
        assert_eq!(fast, slow, "{}", &text[..text.len().min(200)]);
    }

    #[test]
    fn a_stored_part_is_read_fast_and_as_the_importer_reads_it() {
        let text = stored();
        let fast = read("f", &text).expect("read fast");
        assert_eq!(
            Ok(fast.clone()),
            read_broker_entry_generic("f", &text).map_err(|e| e.to_string())
        );
        assert_eq!(
            fast.local_broker_data.bundles.len(),
            fast.local_broker_data.last_stats.len()
        );
        // Whitespace anywhere, and the members in another order, read the same.
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        let pretty = serde_json::to_string_pretty(&v).expect("pretty");
        assert_eq!(read("f", &pretty), Some(fast));
        agree(&pretty);
    }

    #[test]
    fn what_it_does_not_read_exactly_is_left_to_the_importer() {
        let text = stored();
        let name = {
            let s = crate::simulate::builtin_snapshot("bench").expect("built-in");
            s.brokers
                .values()
                .next()
                .expect("a broker")
                .local_broker_data
                .bundles[0]
                .clone()
        };
        let (ns, range) = name.rsplit_once('/').expect("a bundle name");
        let (lo, hi) = range.split_once('_').expect("a range");
        // The first `from` inside `lastStats` replaced (rates are also names of report members).
        let in_stats = |from: &str, to: &str| {
            let at = text.find("\"lastStats\"").expect("lastStats");
            format!("{}{}", &text[..at], text[at..].replacen(from, to, 1))
        };
        let variants: Vec<(String, bool)> = vec![
            // (text, whether the fast reader reads it itself)
            (in_stats("\"msgRateIn\":", "\"msgRateIn\":-"), false),
            (
                in_stats("\"msgRateIn\":", "\"msgRateIn\":-0.0,\"x\":"),
                false,
            ),
            // A report member it copies: the importer's reader reads it in the copy.
            (
                text.replacen("\"msgRateIn\":", "\"msgRateIn\":-0.0,\"x\":", 1),
                true,
            ),
            (
                text.replacen("\"msgRateIn\":", "\"msgRateIn\":-1,\"x\":", 1),
                false,
            ),
            (
                text.replacen("\"topics\":", "\"topics\":3.0,\"t\":", 1),
                false,
            ),
            (
                text.replacen("\"cacheSize\":", "\"cacheSize\":1e3,\"c\":", 1),
                false,
            ),
            (
                text.replacen("\"topics\":", "\"topics\":99999999999999999999,\"t\":", 1),
                false,
            ),
            (
                in_stats("\"msgRateOut\":", "\"msgRateOut\":1e400,\"m\":"),
                false,
            ),
            (
                in_stats("\"msgRateOut\":", "\"msgRateOut\":01,\"m\":"),
                false,
            ),
            (
                in_stats("\"msgRateOut\":", "\"msgRateOut\":1.,\"m\":"),
                false,
            ),
            (
                in_stats("\"msgRateOut\":", "\"msgRateOut\":12.5e-3,\"msgRateIn\":"),
                false,
            ),
            (in_stats("\"cacheSize\":0", "\"cacheSize\":12"), true),
            (
                in_stats("\"msgRateOut\":", "\"msgRateOut\":1E+2,\"foo\":"),
                false,
            ),
            (text.replacen("\"topics\":", "\"topicz\":", 1), false),
            (
                text.replacen("\"topics\":", "\"topics\":1,\"topics\":", 1),
                false,
            ),
            (
                text.replacen("\"lastStats\":", "\"lastStats\":null,\"x\":", 1),
                false,
            ),
            (text.replacen(&name, &format!("{ns}\\/{range}"), 1), false),
            (text.replacen(&name, "not-a-bundle", 1), false),
            // A name twice in a list is kept twice, as the importer keeps it; twice in lastStats, refused.
            (
                text.replacen(
                    &format!("\"bundles\":[\"{name}\""),
                    &format!("\"bundles\":[\"{name}\",\"{name}\""),
                    1,
                ),
                true,
            ),
            (
                text.replacen(
                    &format!("\"{name}\""),
                    &format!("\"{name}\":{{}},\"{name}\""),
                    1,
                ),
                false,
            ),
            // Another spelling of the same bundle in lastStats: twice after canonical spelling.
            (
                text.replacen(
                    "\"lastStats\":{",
                    &format!(
                        "\"lastStats\":{{\"{ns}/{}_{}\":{{}},",
                        lo.to_uppercase().replace("0X", "0x"),
                        hi
                    ),
                    1,
                ),
                false,
            ),
            (text.replacen("\"bundles\":[", "\"bundles\":[1,", 1), false),
            (
                text.replacen("\"bundles\":", "\"bundles\":[],\"bundles\":", 1),
                false,
            ),
            (
                text.replacen("\"numTopics\":", "\"numTopics\":-1,\"numTopics\":", 1),
                true,
            ),
            (
                text.replacen("\"numTopics\":", "\"numTopics\":\"x\",\"n\":", 1),
                false,
            ),
            (
                text.replacen("\"cpu\":{", "\"cpu\":{\"usage\":-5,", 1),
                true,
            ),
            (
                text.replacen("\"cpu\":{", "\"cpu\":{\"usage\":-7},\"c\":{", 1),
                false,
            ),
            (
                text.replacen(
                    "{\"local_broker_data\"",
                    "{\"extra\":[1,{\"a\":\"}\\\"\"}],\"local_broker_data\"",
                    1,
                ),
                true,
            ),
            (
                text.replacen(
                    "{\"local_broker_data\"",
                    "{\"extra\":[1,{\"a\":\"}\\\"\"}}],\"local_broker_data\"",
                    1,
                ),
                false,
            ),
            (format!("{text} x"), false),
            (format!("{text}\n"), true),
            (text[..text.len() - 1].to_string(), false),
            (
                format!(
                    "{{\"local_broker_data\":{{}},\"local_broker_data\":{}",
                    &text[21..]
                ),
                false,
            ),
            ("{}".to_string(), false),
            ("[]".to_string(), false),
            (String::new(), false),
            ("{\"local_broker_data\":{}}".to_string(), true),
            (format!("{}{}", "[".repeat(70), "]".repeat(70)), false),
        ];
        for (i, (v, fast)) in variants.iter().enumerate() {
            assert_eq!(read("f", v).is_some(), *fast, "variant {i}");
            agree(v);
        }
        // Deep nesting in a member it copies: left to the importer, whose error it is.
        let deep = text.replacen(
            "{\"local_broker_data\"",
            &format!(
                "{{\"x\":{}{},\"local_broker_data\"",
                "[".repeat(200),
                "]".repeat(200)
            ),
            1,
        );
        assert!(read("f", &deep).is_none());
        agree(&deep);
    }

    #[test]
    fn any_one_byte_edit_reads_as_the_importer_reads_it() {
        // A short report, so that every position is edited: each byte deleted, or replaced by a
        // character that matters to JSON or to the checks.
        let mut s = crate::simulate::builtin_snapshot("bench").expect("built-in");
        let b = s.brokers.values_mut().next().expect("a broker");
        let keep: Vec<String> = b
            .local_broker_data
            .bundles
            .iter()
            .take(2)
            .cloned()
            .collect();
        b.local_broker_data.bundles = keep.clone();
        b.local_broker_data
            .last_stats
            .retain(|k, _| keep.contains(k));
        b.local_broker_data.last_bundle_gains = keep.clone();
        let text = serde_json::to_string(&*b).expect("serialises");
        let mut fast = 0;
        for i in 0..text.len() {
            for with in ["", "-", "\\", "\"", "}", "]", ",", "0", "e", " ", "\\u00e9"] {
                let (Some(head), Some(tail)) = (text.get(..i), text.get(i + 1..)) else {
                    continue;
                };
                let v = format!("{head}{with}{tail}");
                fast += usize::from(read("f", &v).is_some());
                agree(&v);
            }
        }
        // Many edits (a digit for a digit, a space) are still read fast.
        assert!(fast > text.len(), "{fast} of {}", text.len() * 11);
    }
}
