//! The lists that grow inside one entry of a snapshot, sent in parts of their own.
//! `view::snapshot_chunks` puts every namespace in its head and cuts the rest between whole broker
//! entries, so the namespaces travel in one part however many there are, and a broker's report in
//! one part however many bundles it owns. With the demo's tenants copied to 200,000 bundles
//! (≈ 16,000 namespaces, 16,000 bundles on each of 12 brokers) the head and each report were MiBs
//! of JSON, and each was one 100–600 ms task on the page. The worker therefore takes the
//! namespaces (past [`OWN_PARTS_FROM`]) and the `bundles` and `lastStats` of brokers with more than
//! [`OWN_PARTS_FROM`] entries out of what core cuts ([`take_large`]; core's parts are unchanged),
//! and sends them, cut at a byte budget, in `lists_part` messages between the head and the broker
//! parts; the page decodes each in its own task into [`ListsApart`] and puts them back once the
//! snapshot is assembled ([`ListsApart::restore`]). Only data is moved: the page gets the snapshot
//! the worker imported, entry for entry and in order.

use std::collections::HashMap;

use indexmap::IndexMap;
use lbplan_core::model::{NamespaceBundleStats, NamespaceSnapshot, Snapshot};
use serde::{Deserialize, Serialize};

/// A list of more entries than this travels apart (a broker's `bundles` and `lastStats` counted
/// together); below it, it fits one of core's parts (the bench's 200 bundles a broker and 2,000
/// namespaces stay there).
pub const OWN_PARTS_FROM: usize = 2_000;

/// One broker's lists: its name, `bundles`, `lastStats`.
pub type BrokerLists = (String, Vec<String>, IndexMap<String, NamespaceBundleStats>);

/// What [`take_large`] took out of a snapshot.
#[derive(Debug, Default)]
pub struct Taken {
    /// The namespaces, when there were more than [`OWN_PARTS_FROM`] (else empty, left in place).
    pub namespaces: IndexMap<String, NamespaceSnapshot>,
    /// The large brokers' lists, in the snapshot's broker order.
    pub brokers: Vec<BrokerLists>,
}

/// Takes the large lists out of `snapshot` (moved, not copied); [`put_back`] returns them.
pub fn take_large(snapshot: &mut Snapshot) -> Taken {
    let mut taken = Taken::default();
    if snapshot.namespaces.len() > OWN_PARTS_FROM {
        taken.namespaces = std::mem::take(&mut snapshot.namespaces);
    }
    for (name, broker) in &mut snapshot.brokers {
        let report = &mut broker.local_broker_data;
        if report.bundles.len().saturating_add(report.last_stats.len()) > OWN_PARTS_FROM {
            taken.brokers.push((
                name.clone(),
                std::mem::take(&mut report.bundles),
                std::mem::take(&mut report.last_stats),
            ));
        }
    }
    taken
}

/// Gives what [`take_large`] took back to `snapshot`.
pub fn put_back(snapshot: &mut Snapshot, taken: Taken) {
    if !taken.namespaces.is_empty() {
        snapshot.namespaces = taken.namespaces;
    }
    for (name, bundles, stats) in taken.brokers {
        if let Some(broker) = snapshot.brokers.get_mut(&name) {
            broker.local_broker_data.bundles = bundles;
            broker.local_broker_data.last_stats = stats;
        }
    }
}

/// One part: some namespaces, or some of one broker's bundle names or `lastStats` entries, in the
/// snapshot's order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListsPart {
    pub namespaces: Vec<(String, NamespaceSnapshot)>,
    pub broker: String,
    pub bundles: Vec<String>,
    pub last_stats: Vec<(String, NamespaceBundleStats)>,
}

/// Writes `taken` as parts' JSON (each a [`ListsPart`]) to `out`, a part closed once its JSON
/// reaches `budget_bytes` (at least one entry a part). Serialised straight from the lists.
pub fn write_parts(
    taken: &Taken,
    budget_bytes: usize,
    out: &mut dyn FnMut(&str),
) -> Result<(), String> {
    write_list(
        "{\"namespaces\":[",
        taken.namespaces.iter(),
        budget_bytes,
        out,
    )?;
    for (name, bundles, stats) in &taken.brokers {
        let broker = serde_json::to_string(name).map_err(|e| e.to_string())?;
        let open = format!("{{\"broker\":{broker},\"bundles\":[");
        write_list(&open, bundles.iter(), budget_bytes, out)?;
        let open = format!("{{\"broker\":{broker},\"last_stats\":[");
        write_list(&open, stats.iter(), budget_bytes, out)?;
    }
    Ok(())
}

/// `<open>…]}` parts of `items`, cut at the budget; none for no items.
fn write_list<T: Serialize>(
    open: &str,
    items: impl Iterator<Item = T>,
    budget_bytes: usize,
    out: &mut dyn FnMut(&str),
) -> Result<(), String> {
    let mut buf: Vec<u8> = Vec::new();
    let mut flush = |buf: &mut Vec<u8>| -> Result<(), String> {
        if !buf.is_empty() {
            buf.extend_from_slice(b"]}");
            out(std::str::from_utf8(buf).map_err(|e| e.to_string())?);
        }
        buf.clear();
        Ok(())
    };
    for item in items {
        if buf.is_empty() {
            buf.extend_from_slice(open.as_bytes());
        } else {
            buf.push(b',');
        }
        serde_json::to_writer(&mut buf, &item).map_err(|e| e.to_string())?;
        if buf.len() >= budget_bytes {
            flush(&mut buf)?;
        }
    }
    flush(&mut buf)
}

/// The page's side: the parts joined as they come, one part a task.
#[derive(Debug, Default)]
pub struct ListsApart {
    namespaces: IndexMap<String, NamespaceSnapshot>,
    brokers: HashMap<String, (Vec<String>, IndexMap<String, NamespaceBundleStats>)>,
}

impl ListsApart {
    /// Adds one decoded part (after the earlier parts of the same list).
    pub fn add(&mut self, part: ListsPart) {
        self.namespaces.extend(part.namespaces);
        if part.bundles.is_empty() && part.last_stats.is_empty() {
            return;
        }
        let (bundles, stats) = self.brokers.entry(part.broker).or_default();
        bundles.extend(part.bundles);
        stats.extend(part.last_stats);
    }

    /// Puts the joined lists into the assembled `snapshot` (which came without them). Lists of a
    /// broker the snapshot lacks, or namespaces beside the head's own, are an error: the parts and
    /// the snapshot are not of one import.
    pub fn restore(self, snapshot: &mut Snapshot) -> Result<(), String> {
        if !self.namespaces.is_empty() {
            if !snapshot.namespaces.is_empty() {
                return Err("snapshot parts: namespaces both in the head and apart".to_string());
            }
            snapshot.namespaces = self.namespaces;
        }
        for (name, (bundles, stats)) in self.brokers {
            let Some(broker) = snapshot.brokers.get_mut(&name) else {
                return Err(format!(
                    "snapshot parts: bundle lists of broker {name}, which the snapshot lacks"
                ));
            };
            broker.local_broker_data.bundles = bundles;
            broker.local_broker_data.last_stats = stats;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use lbplan_core::view::snapshot_chunks::{Assembler, SnapshotChunk, write_chunks};

    use super::*;

    /// The demo with one broker given 5,000 bundles with stats and 3,000 namespaces added (both
    /// over [`OWN_PARTS_FROM`]).
    fn snapshot() -> Snapshot {
        let text = include_str!("../../../static/demo-snapshot.json");
        let mut s = lbplan_core::import::read_snapshot("demo-snapshot.json", text)
            .map(|i| i.snapshot)
            .unwrap_or_default();
        assert!(!s.brokers.is_empty());
        let first_ns = s.namespaces.get_index(0).map(|(_, n)| n.clone());
        for i in 0..3_000 {
            s.namespaces
                .insert(format!("t/ns{i}"), first_ns.clone().unwrap_or_default());
        }
        if let Some((_, broker)) = s.brokers.get_index_mut(0) {
            let report = &mut broker.local_broker_data;
            for i in 0..5_000 {
                let name = format!("t/ns{i}/0x00000000_0xffffffff");
                report.bundles.push(name.clone());
                report
                    .last_stats
                    .insert(name, NamespaceBundleStats::default());
            }
        }
        s
    }

    /// Through the worker's path (lists taken, parts written, lists put back) and the page's
    /// (parts assembled, lists joined and restored), at several budgets: the same snapshot.
    #[test]
    fn the_page_gets_the_snapshot_the_worker_sent() {
        let original = snapshot();
        for budget in [1, 1_000, 64 << 10, 1 << 30] {
            let mut worker = original.clone();
            let taken = take_large(&mut worker);
            assert_eq!(taken.brokers.len(), 1, "one broker over the threshold");
            assert_eq!(taken.namespaces.len(), original.namespaces.len());
            let mut lists = Vec::new();
            assert!(write_parts(&taken, budget, &mut |j| lists.push(j.to_string())).is_ok());
            let mut chunks = Vec::new();
            assert!(write_chunks(&worker, budget, &mut |j| chunks.push(j.to_string())).is_ok());
            put_back(&mut worker, taken);
            assert_eq!(worker, original, "the worker keeps its snapshot");

            let mut page = ListsApart::default();
            for j in &lists {
                let part: ListsPart = serde_json::from_str(j).unwrap_or_default();
                page.add(part);
            }
            let mut assembler = Assembler::new();
            for j in &chunks {
                let chunk: Result<SnapshotChunk, _> = serde_json::from_str(j);
                assert!(chunk.is_ok_and(|c| assembler.push(c).is_ok()));
            }
            let mut got = assembler.finish().unwrap_or_default();
            assert!(page.restore(&mut got).is_ok());
            assert_eq!(got, original, "budget {budget}");
            if budget == 64 << 10 {
                assert!(lists.len() > 3, "cut into parts: {}", lists.len());
            }
        }
    }

    #[test]
    fn the_demo_sends_nothing_apart() {
        let mut s = lbplan_core::import::read_snapshot(
            "demo-snapshot.json",
            include_str!("../../../static/demo-snapshot.json"),
        )
        .map(|i| i.snapshot)
        .unwrap_or_default();
        let taken = take_large(&mut s);
        assert!(taken.namespaces.is_empty() && taken.brokers.is_empty());
    }

    #[test]
    fn lists_of_an_unknown_broker_are_refused() {
        let mut page = ListsApart::default();
        page.add(ListsPart {
            broker: "nowhere:8080".into(),
            bundles: vec!["t/ns/0x00000000_0xffffffff".into()],
            ..ListsPart::default()
        });
        let mut s = snapshot();
        assert!(page.restore(&mut s).is_err());
    }
}
