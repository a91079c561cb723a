//! Broker ids as people read them: the one rule that shortens a cluster's broker ids for display
//! and reads a short name typed back. Real ids are long
//! (`pulsar-broker-3.pulsar-broker.pulsar.svc.cluster.local:8080`); what tells brokers apart is
//! the part they do not share. The rule, over the whole set of ids:
//!
//! - the host's trailing DNS labels that every broker shares are dropped (at least one label of
//!   each host is kept; no label is dropped when any host is an IP address, whose labels are not a
//!   hierarchy);
//! - the port is dropped where it is the cluster's usual port (the most common one, ties to the
//!   lowest), kept where it differs;
//! - if two short names would collide, those brokers keep their full ids.
//!
//! So each short name is unique, and a broker's short name depends only on the set of ids (not
//! their order): the same cluster gives the same names every time. Exports, JSON and scripts keep
//! the full id; this is for tables, legends, plan rows and the CLI's text.
//!
//! [`BrokerNames::resolve`] reads what an operator types (a full id, a short name, a host without
//! its port) back to the full id, or says which ids it could mean.

use std::collections::{BTreeMap, HashMap};

/// Host and port of an id (`host:port`, `[v6]:port`); no port when the id has none.
fn split_id(id: &str) -> (&str, Option<&str>) {
    match id.rsplit_once(':') {
        Some((host, port))
            if !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
                && (!host.contains(':') || (host.starts_with('[') && host.ends_with(']'))) =>
        {
            (host, Some(port))
        }
        _ => (id, None),
    }
}

/// A host written as an IP address (v4 dotted numbers, or bracketed / bare v6).
fn is_ip(host: &str) -> bool {
    host.starts_with('[')
        || host.contains(':')
        || (!host.is_empty() && host.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// The labels every host shares at its end, as a count, keeping at least one label per host.
fn shared_suffix_labels(hosts: &[Vec<&str>]) -> usize {
    let Some(first) = hosts.first() else {
        return 0;
    };
    let max = hosts
        .iter()
        .map(|h| h.len().saturating_sub(1))
        .min()
        .unwrap_or(0);
    let mut n = 0;
    while n < max {
        let label = first.get(first.len() - 1 - n);
        if hosts.iter().any(|h| h.get(h.len() - 1 - n) != label) {
            break;
        }
        n += 1;
    }
    n
}

/// What a typed broker name resolves to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// One broker: its full id.
    One(String),
    /// No broker has this name; the full ids it may have meant (at most [`MAX_SUGGESTIONS`]).
    Unknown { did_you_mean: Vec<String> },
    /// Several brokers answer to it; their full ids.
    Ambiguous(Vec<String>),
}

/// How many "did you mean" ids are offered.
pub const MAX_SUGGESTIONS: usize = 5;

/// The short display name of every broker of a cluster, and the way back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrokerNames {
    short: HashMap<String, String>,
    /// Short name → full id (unique by construction).
    full: HashMap<String, String>,
}

impl BrokerNames {
    /// The names of the brokers `ids` (duplicates are ignored).
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>) -> Self {
        let mut ids: Vec<&str> = ids.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        let parts: Vec<(&str, Option<&str>)> = ids.iter().map(|id| split_id(id)).collect();
        let any_ip = parts.iter().any(|(h, _)| is_ip(h));
        let hosts: Vec<Vec<&str>> = parts.iter().map(|(h, _)| h.split('.').collect()).collect();
        let drop = if any_ip {
            0
        } else {
            shared_suffix_labels(&hosts)
        };
        let mut port_counts: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, p) in &parts {
            *port_counts.entry(p.unwrap_or("")).or_insert(0) += 1;
        }
        // The most common port; ties go to the first in order, so the choice is independent of
        // the ids' order.
        let usual = port_counts
            .iter()
            .fold(
                ("", 0usize),
                |best, (p, n)| if *n > best.1 { (p, *n) } else { best },
            )
            .0;
        let mut candidates: Vec<String> = Vec::with_capacity(ids.len());
        for ((_, port), labels) in parts.iter().zip(&hosts) {
            let keep = labels.len().saturating_sub(drop);
            let mut s = labels.get(..keep).unwrap_or_default().join(".");
            match port {
                Some(p) if *p != usual => {
                    s.push(':');
                    s.push_str(p);
                }
                _ => {}
            }
            candidates.push(s);
        }
        let mut uses: HashMap<&str, usize> = HashMap::new();
        for c in &candidates {
            *uses.entry(c.as_str()).or_insert(0) += 1;
        }
        let mut chosen: Vec<String> = ids
            .iter()
            .zip(&candidates)
            .map(|(id, c)| {
                if uses.get(c.as_str()).copied().unwrap_or(0) > 1 {
                    (*id).to_string()
                } else {
                    c.clone()
                }
            })
            .collect();
        // A full id kept for a collision may equal another broker's short name: then no name is
        // shortened (unique above all).
        let mut seen = std::collections::HashSet::new();
        if !chosen.iter().all(|c| seen.insert(c.as_str())) {
            chosen = ids.iter().map(|id| (*id).to_string()).collect();
        }
        let mut out = BrokerNames::default();
        for (id, s) in ids.iter().zip(chosen) {
            out.full.insert(s.clone(), (*id).to_string());
            out.short.insert((*id).to_string(), s);
        }
        out
    }

    /// The display name of `id` (the id itself for an id not in the set).
    pub fn short<'a>(&'a self, id: &'a str) -> &'a str {
        self.short.get(id).map_or(id, String::as_str)
    }

    /// The number of brokers named.
    pub fn len(&self) -> usize {
        self.short.len()
    }

    pub fn is_empty(&self) -> bool {
        self.short.is_empty()
    }

    /// The full id `typed` names: a full id, a short name, or a host without its port when one
    /// broker has that host; else the ids it could mean.
    pub fn resolve(&self, typed: &str) -> Resolved {
        let t = typed.trim();
        if self.short.contains_key(t) {
            return Resolved::One(t.to_string());
        }
        if let Some(id) = self.full.get(t) {
            return Resolved::One(id.clone());
        }
        let mut ids: Vec<&String> = self.short.keys().collect();
        ids.sort_unstable();
        // The host (without port), or the host's first labels, of exactly one broker.
        let same_host: Vec<String> = ids
            .iter()
            .filter(|id| {
                let (host, _) = split_id(id);
                host == t
                    || host
                        .strip_prefix(t)
                        .is_some_and(|rest| rest.starts_with('.'))
            })
            .map(|id| (*id).clone())
            .collect();
        match same_host.len() {
            1 => return Resolved::One(same_host.into_iter().next().unwrap_or_default()),
            0 => {}
            _ => return Resolved::Ambiguous(same_host),
        }
        let lower = t.to_ascii_lowercase();
        let mut did_you_mean: Vec<String> = ids
            .iter()
            .filter(|id| !lower.is_empty() && id.to_ascii_lowercase().contains(&lower))
            .take(MAX_SUGGESTIONS)
            .map(|id| (*id).clone())
            .collect();
        if did_you_mean.is_empty() {
            // A typo of a short name (`broker-4` for `broker-04`): the nearest, within two edits.
            let scored: Vec<(usize, &String)> = ids
                .iter()
                .map(|id| {
                    (
                        edit_distance(&lower, &self.short(id).to_ascii_lowercase()),
                        *id,
                    )
                })
                .filter(|(d, _)| *d <= 2)
                .collect();
            let best = scored.iter().map(|(d, _)| *d).min();
            did_you_mean = scored
                .iter()
                .filter(|(d, _)| Some(*d) == best)
                .take(MAX_SUGGESTIONS)
                .map(|(_, id)| (*id).clone())
                .collect();
        }
        Resolved::Unknown { did_you_mean }
    }

    /// [`Self::resolve`] as a result whose error says what to type instead (`what`: the option or
    /// operation the name was given to, e.g. `--drain`).
    pub fn resolve_or_explain(&self, typed: &str, what: &str) -> Result<String, String> {
        match self.resolve(typed) {
            Resolved::One(id) => Ok(id),
            Resolved::Ambiguous(ids) => Err(format!(
                "{what} `{typed}` names {} brokers: {}; give one of them",
                ids.len(),
                list(&ids)
            )),
            Resolved::Unknown { did_you_mean } if did_you_mean.is_empty() => {
                Err(format!("{what} `{typed}`: no such broker in the snapshot"))
            }
            Resolved::Unknown { did_you_mean } => Err(format!(
                "{what} `{typed}`: no such broker in the snapshot; did you mean {}?",
                list(&did_you_mean)
            )),
        }
    }
}

/// A piece of a text that may name brokers by their full ids (a shedder's or a placement's
/// reason): plain text, or one broker's id with its display name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamePiece<'a> {
    Text(&'a str),
    Broker { id: &'a str, short: &'a str },
}

/// A byte that may be part of a broker id (`host:port`, `[v6]:port`): ids are cut out of a reason
/// at the first byte that is not, so `paired with X (scores …)`, `X=13209.3` and `X;` all give `X`.
fn id_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b':' | b'[' | b']')
}

impl BrokerNames {
    /// `text` cut where it names a broker of this set by its full id, so a reason can be shown
    /// with display names and each full id kept (for hover and copy). One pass over the text:
    /// each run of id bytes is looked up whole, then without a trailing `.` or `:` (the end of a
    /// sentence, `X: …`); ids of other brokers and partial ids stay text.
    pub fn pieces<'a>(&'a self, text: &'a str) -> Vec<NamePiece<'a>> {
        let mut out = Vec::new();
        if self.short.is_empty() {
            out.push(NamePiece::Text(text));
            return out;
        }
        let bytes = text.as_bytes();
        let (mut i, mut plain) = (0, 0);
        while i < bytes.len() {
            if !bytes.get(i).copied().is_some_and(id_byte) {
                i += 1;
                continue;
            }
            let start = i;
            while bytes.get(i).copied().is_some_and(id_byte) {
                i += 1;
            }
            let mut end = i;
            let found = loop {
                // Id bytes are ASCII, so these are char boundaries.
                let token = text.get(start..end).unwrap_or_default();
                if let Some((id, short)) = self.short.get_key_value(token) {
                    break Some((id.as_str(), short.as_str()));
                }
                match bytes.get(end.wrapping_sub(1)) {
                    Some(b'.' | b':') if end > start + 1 => end -= 1,
                    _ => break None,
                }
            };
            if let Some((id, short)) = found {
                if plain < start {
                    out.push(NamePiece::Text(text.get(plain..start).unwrap_or_default()));
                }
                out.push(NamePiece::Broker { id, short });
                plain = end;
            }
        }
        if plain < bytes.len() || out.is_empty() {
            out.push(NamePiece::Text(text.get(plain..).unwrap_or_default()));
        }
        out
    }

    /// `text` with every full broker id of this set written as its display name (where a text
    /// cannot carry the full id beside it, e.g. an `<option>` label).
    pub fn shorten_text(&self, text: &str) -> String {
        self.pieces(text)
            .into_iter()
            .map(|p| match p {
                NamePiece::Text(t) => t,
                NamePiece::Broker { short, .. } => short,
            })
            .collect()
    }
}

/// Levenshtein distance over chars (short names: a few dozen characters).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev.get(j).copied().unwrap_or(0) + usize::from(ca != *cb);
            let delete = prev.get(j + 1).copied().unwrap_or(0) + 1;
            let insert = cur.last().copied().unwrap_or(0) + 1;
            cur.push(substitute.min(delete).min(insert));
        }
        prev = cur;
    }
    prev.last().copied().unwrap_or(0)
}

fn list(ids: &[String]) -> String {
    let shown: Vec<String> = ids
        .iter()
        .take(MAX_SUGGESTIONS)
        .map(|i| format!("`{i}`"))
        .collect();
    let more = ids.len().saturating_sub(MAX_SUGGESTIONS);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(ids: &[&str]) -> BrokerNames {
        BrokerNames::new(ids.iter().copied())
    }

    #[test]
    fn ids_inside_a_strategys_sentence_in_brackets_or_before_punctuation_read_short() {
        let ids = [
            "broker-0341.pulsar-broker-headless.pulsar-prod.svc:8080",
            "broker-0759.pulsar-broker-headless.pulsar-prod.svc:8080",
            "broker-0760.pulsar-broker-headless.pulsar-prod.svc:8081",
        ];
        let names = BrokerNames::new(ids);
        let text = "LeastLongTermMessageRate chose broker-0759.pulsar-broker-headless.pulsar-prod.svc:8080 \
             (least long-term message rate 226 msg/s); runner-up broker-0341.pulsar-broker-headless.pulsar-prod.svc:8080 \
             at 427 msg/s; (broker-0760.pulsar-broker-headless.pulsar-prod.svc:8081), \
             broker-0341.pulsar-broker-headless.pulsar-prod.svc:8080: over";
        assert_eq!(
            names.shorten_text(text),
            "LeastLongTermMessageRate chose broker-0759 (least long-term message rate 226 msg/s); \
             runner-up broker-0341 at 427 msg/s; (broker-0760:8081), broker-0341: over"
        );
        // Not an id: a longer word that starts with one, or a text without ids, is left alone.
        let other = "broker-0341.pulsar-broker-headless.pulsar-prod.svc:80801 stays";
        assert_eq!(names.shorten_text(other), other);
    }

    #[test]
    fn kubernetes_ids_lose_the_service_suffix_and_the_shared_port() {
        let ids: Vec<String> = (0..3)
            .map(|i| format!("pulsar-broker-{i}.pulsar-broker.pulsar.svc.cluster.local:8080"))
            .collect();
        let n = BrokerNames::new(ids.iter().map(String::as_str));
        assert_eq!(n.short(&ids[0]), "pulsar-broker-0");
        assert_eq!(n.short(&ids[2]), "pulsar-broker-2");
        // An id not in the set is shown whole.
        assert_eq!(n.short("other:8080"), "other:8080");
        assert_eq!(n.resolve("pulsar-broker-1"), Resolved::One(ids[1].clone()));
        assert_eq!(n.resolve(&ids[1]), Resolved::One(ids[1].clone()));
    }

    #[test]
    fn the_demo_clusters_ids() {
        let n = names(&["broker-00.demo.svc:8080", "broker-04.demo.svc:8080"]);
        assert_eq!(n.short("broker-04.demo.svc:8080"), "broker-04");
        assert_eq!(
            n.resolve("broker-04"),
            Resolved::One("broker-04.demo.svc:8080".into())
        );
        // The host with its port, and the host's first labels, name the broker too.
        assert_eq!(
            n.resolve("broker-04.demo.svc"),
            Resolved::One("broker-04.demo.svc:8080".into())
        );
        assert_eq!(
            n.resolve_or_explain("broker-4", "--drain"),
            Err("--drain `broker-4`: no such broker in the snapshot; did you mean `broker-04.demo.svc:8080`?".into())
        );
        assert_eq!(
            n.resolve_or_explain("zookeeper", "--drain"),
            Err("--drain `zookeeper`: no such broker in the snapshot".into())
        );
        assert_eq!(edit_distance("broker-4", "broker-04"), 1);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(
            n.resolve_or_explain("broker-0", "--drain"),
            Err("--drain `broker-0`: no such broker in the snapshot; did you mean `broker-00.demo.svc:8080`, `broker-04.demo.svc:8080`?".into())
        );
    }

    #[test]
    fn mixed_ports_keep_the_port_where_it_differs() {
        let n = names(&["a.x.io:8080", "b.x.io:8080", "c.x.io:8443", "a.x.io:8443"]);
        // 8080 and 8443 are equally common: the lower sorts first and is the usual one.
        assert_eq!(n.short("a.x.io:8080"), "a");
        assert_eq!(n.short("b.x.io:8080"), "b");
        assert_eq!(n.short("c.x.io:8443"), "c:8443");
        assert_eq!(n.short("a.x.io:8443"), "a:8443");
        // `a` is one host with two brokers; the short name `a` is still exactly one of them.
        assert_eq!(n.resolve("a"), Resolved::One("a.x.io:8080".into()));
        assert_eq!(
            n.resolve("a.x.io"),
            Resolved::Ambiguous(vec!["a.x.io:8080".into(), "a.x.io:8443".into()])
        );
    }

    #[test]
    fn collisions_keep_full_ids() {
        // `weird` has no port; `weird:8080` on the usual port would shorten to `weird` too.
        let n = names(&["weird", "weird:8080", "x:8080"]);
        assert_eq!(n.short("weird"), "weird");
        assert_eq!(n.short("weird:8080"), "weird:8080");
        assert_eq!(n.short("x:8080"), "x");
    }

    #[test]
    fn ip_addresses_keep_their_labels() {
        let n = names(&["10.0.1.5:8080", "10.0.2.5:8080", "[fd00::1]:8080"]);
        assert_eq!(n.short("10.0.1.5:8080"), "10.0.1.5");
        assert_eq!(n.short("10.0.2.5:8080"), "10.0.2.5");
        assert_eq!(n.short("[fd00::1]:8080"), "[fd00::1]");
    }

    #[test]
    fn one_broker_and_plain_names() {
        let n = names(&["pulsar-0.svc.local:8080"]);
        assert_eq!(n.short("pulsar-0.svc.local:8080"), "pulsar-0");
        let n = names(&["solo:6650"]);
        assert_eq!(n.short("solo:6650"), "solo");
        let n = names(&[]);
        assert!(n.is_empty());
    }

    #[test]
    fn a_thousand_long_ids_are_short_unique_and_order_free() {
        // 60-character ids, as a 1,000-broker Kubernetes cluster names them.
        let ids: Vec<String> = (0..1000)
            .map(|i| {
                format!(
                    "pulsar-broker-{i:04}.pulsar-broker-headless.prod-eu.svc.cluster.local:8080"
                )
            })
            .collect();
        assert!(ids.iter().all(|i| i.len() >= 60));
        let n = BrokerNames::new(ids.iter().map(String::as_str));
        let mut shorts: Vec<&str> = ids.iter().map(|i| n.short(i)).collect();
        assert_eq!(shorts[7], "pulsar-broker-0007");
        assert!(shorts.iter().all(|s| s.len() == 18));
        shorts.sort_unstable();
        shorts.dedup();
        assert_eq!(shorts.len(), 1000);
        let reversed = BrokerNames::new(ids.iter().rev().map(String::as_str));
        assert_eq!(reversed, n);
        assert_eq!(
            n.resolve("pulsar-broker-0999"),
            Resolved::One(ids[999].clone())
        );
        // Every broker contains `pulsar-broker-00`: the suggestions are bounded.
        let Resolved::Unknown { did_you_mean } = n.resolve("broker-00") else {
            panic!()
        };
        assert_eq!(did_you_mean.len(), MAX_SUGGESTIONS);
    }

    #[test]
    fn reasons_are_cut_at_full_ids_only() {
        let ids: Vec<String> = (0..12)
            .map(|i| format!("pulsar-broker-{i}.pulsar-broker.pulsar-prod.svc.cluster.local:8080"))
            .collect();
        let n = BrokerNames::new(ids.iter().map(String::as_str));
        let b = |k: usize| NamePiece::Broker {
            id: ids[k].as_str(),
            short: if k == 3 {
                "pulsar-broker-3"
            } else {
                "pulsar-broker-11"
            },
        };
        // The AvgShedder's line (`paired with X (scores …)`) and a placement's, ending a sentence.
        let text = format!(
            "AvgShedder: paired with {} (scores 80.0 vs 20.0); LeastLongTermMessageRate chose {}.",
            ids[3], ids[11]
        );
        assert_eq!(
            n.pieces(&text),
            vec![
                NamePiece::Text("AvgShedder: paired with "),
                b(3),
                NamePiece::Text(" (scores 80.0 vs 20.0); LeastLongTermMessageRate chose "),
                b(11),
                NamePiece::Text("."),
            ]
        );
        assert_eq!(
            n.shorten_text(&text),
            "AvgShedder: paired with pulsar-broker-3 (scores 80.0 vs 20.0); LeastLongTermMessageRate chose pulsar-broker-11."
        );
        // A score list (`id=score`), an id followed by `:`, an id at the start.
        assert_eq!(
            n.shorten_text(&format!("{}: {}=13209.3467, x", ids[3], ids[11])),
            "pulsar-broker-3: pulsar-broker-11=13209.3467, x"
        );
        // Not this cluster's ids, or a part of one: unchanged; text without ids is one piece.
        let other =
            "pulsar-broker-3.pulsar-broker.pulsar-prod.svc.cluster.local:8081 and pulsar-broker-3";
        assert_eq!(n.pieces(other), vec![NamePiece::Text(other)]);
        assert_eq!(n.pieces(""), vec![NamePiece::Text("")]);
        assert_eq!(
            BrokerNames::default().pieces("a b"),
            vec![NamePiece::Text("a b")]
        );
        // Multi-byte text around ids stays whole.
        assert_eq!(
            n.shorten_text(&format!("→ {} ≥ 85 %", ids[3])),
            "→ pulsar-broker-3 ≥ 85 %"
        );
    }
}
