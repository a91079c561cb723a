//! Splits in a plan: cut points from the chosen algorithm (with the namespace's topic list where the
//! algorithm needs one), the factory's arithmetic, and the snapshot after the split (children share
//! the parent's traffic in proportion to their hash range and stay on the parent's owner).

use std::collections::hash_map::Entry;

use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::config::LoadBalancerConfig;
use crate::load::bundle_load::owner_of;
use crate::model::{BundleData, NamespaceBundleStats, Snapshot, TimeAverageMessageData};
use crate::naming::{BundleName, BundleRange, NamespaceBundles, TopicName, parse_bundle_name};
use crate::split::{
    SplitAlgorithm, SplitPoints, SplitResult, range_equally_divide, specified_positions_divide,
    split_bundles, topic_count_equally_divide,
};

/// The namespace's layout as the snapshot records it.
pub fn namespace_layout(snapshot: &Snapshot, namespace: &str) -> Result<NamespaceBundles, String> {
    let ns = snapshot
        .namespaces
        .get(namespace)
        .ok_or_else(|| format!("the snapshot has no bundle layout for namespace `{namespace}`"))?;
    NamespaceBundles::from_bundles_data(namespace, &ns.bundles).map_err(|e| e.to_string())
}

/// Sorted hashes of the namespace's known topics (full names, partitions included); `None` when the
/// snapshot has no topic list for it.
fn namespace_topic_hashes(snapshot: &Snapshot, namespace: &str) -> Option<Vec<u32>> {
    let topics = snapshot.namespaces.get(namespace)?.topics.as_ref()?;
    let mut hashes: Vec<u32> = topics
        .iter()
        .filter_map(|t| TopicName::parse(t).ok())
        .map(|t| t.bundle_hash())
        .collect();
    hashes.sort_unstable();
    Some(hashes)
}

/// Whether `algorithm` looks at the bundle's topics: only then are the namespace's topic names
/// parsed and hashed (hundreds per namespace, the largest cost of a split that reads them).
fn reads_topics(algorithm: SplitAlgorithm) -> bool {
    matches!(
        algorithm,
        SplitAlgorithm::TopicCountEquallyDivide
            | SplitAlgorithm::SpecifiedPositionsDivide
            | SplitAlgorithm::SpecifiedPositionsDivideForce
    )
}

/// The hashes of sorted `hashes` that fall in `range` (a contiguous run: two binary searches).
fn hashes_in(hashes: &[u32], range: BundleRange) -> &[u32] {
    let start = hashes.partition_point(|h| *h < range.lo);
    let end = if range.hi == u32::MAX {
        hashes.len()
    } else {
        hashes.partition_point(|h| *h < range.hi)
    };
    hashes.get(start..end.max(start)).unwrap_or_default()
}

/// `Err` when `algorithm` is not one the configuration allows (checked before anything is read).
fn check_algorithm(cfg: &LoadBalancerConfig, algorithm: SplitAlgorithm) -> Result<(), String> {
    if cfg
        .supported_namespace_bundle_split_algorithms
        .iter()
        .any(|a| a == algorithm.name())
    {
        Ok(())
    } else {
        Err(format!(
            "`{}` is not in supportedNamespaceBundleSplitAlgorithms (Pulsar answers HTTP 412)",
            algorithm.name()
        ))
    }
}

/// Runs `algorithm` on `bundle` and the factory split. `Ok(None)` = the algorithm declines (Pulsar
/// completes the admin call without splitting), with why. For many splits on one snapshot, use a
/// [`SplitBatch`], which reads each namespace's layout and topics once.
pub fn compute_split(
    snapshot: &Snapshot,
    cfg: &LoadBalancerConfig,
    bundle: &str,
    algorithm: SplitAlgorithm,
    positions: &[u32],
) -> Result<Result<SplitResult, String>, String> {
    let name = parse_bundle_name(bundle).map_err(|e| e.to_string())?;
    check_algorithm(cfg, algorithm)?;
    let layout = namespace_layout(snapshot, &name.namespace)?;
    let topics = reads_topics(algorithm)
        .then(|| namespace_topic_hashes(snapshot, &name.namespace))
        .flatten();
    split_in(
        name,
        &layout,
        topics.as_deref(),
        algorithm,
        positions,
        || bundle_topic_count(snapshot, bundle, snapshot.bundle_data.get(bundle)),
    )
}

/// The algorithm and the factory split of the bundle `name` in `layout`; `ns_topics` are the sorted
/// hashes of the namespace's topics, `owned_topics` the bundle's topic count where there are none.
fn split_in(
    name: BundleName,
    layout: &NamespaceBundles,
    ns_topics: Option<&[u32]>,
    algorithm: SplitAlgorithm,
    positions: &[u32],
    owned_topics: impl FnOnce() -> usize,
) -> Result<Result<SplitResult, String>, String> {
    let topics = ns_topics.map(|h| hashes_in(h, name.range));
    let points = match algorithm {
        SplitAlgorithm::RangeEquallyDivide => range_equally_divide(name.range),
        SplitAlgorithm::TopicCountEquallyDivide => {
            let hashes = topics.ok_or(
                "topic_count_equally_divide needs the namespace's topic list in the snapshot",
            )?;
            topic_count_equally_divide(hashes)
        }
        SplitAlgorithm::SpecifiedPositionsDivide
        | SplitAlgorithm::SpecifiedPositionsDivideForce => {
            let owned = topics.map_or_else(owned_topics, <[u32]>::len);
            let positions: Vec<i64> = positions.iter().map(|p| i64::from(*p)).collect();
            specified_positions_divide(
                name.range,
                &positions,
                owned,
                algorithm == SplitAlgorithm::SpecifiedPositionsDivideForce,
            )
            .map_err(|e| e.to_string())?
        }
        SplitAlgorithm::FlowOrQpsEquallyDivide => {
            return Err(
                "flow_or_qps_equally_divide needs per-topic rates, which a snapshot does not carry"
                    .to_string(),
            );
        }
    };
    let cuts = match points {
        SplitPoints::Split(cuts) if !cuts.is_empty() => cuts,
        SplitPoints::Split(_) => {
            return Ok(Err("the algorithm returned no split point".to_string()));
        }
        SplitPoints::NoSplit(why) => return Ok(Err(format!("{why:?}"))),
    };
    let split = split_bundles(layout, name.range, 0, Some(&cuts)).map_err(|e| e.to_string())?;
    Ok(Ok(SplitResult {
        namespace: name.namespace,
        parent: name.range,
        cut_points: cuts,
        children: split.children,
        layout_after: split.layout_after,
    }))
}

/// A bundle's topic count: from the first broker's `lastStats` that has it, else from its bundle
/// data `data`.
fn bundle_topic_count(snapshot: &Snapshot, bundle: &str, data: Option<&BundleData>) -> usize {
    let from_stats = snapshot
        .brokers
        .values()
        .find_map(|b| b.local_broker_data.last_stats.get(bundle).map(|s| s.topics));
    let topics = from_stats
        .or_else(|| data.map(|d| i64::from(d.topics)))
        .unwrap_or(0);
    usize::try_from(topics).unwrap_or(0)
}

fn scale_stats(s: &NamespaceBundleStats, f: f64) -> NamespaceBundleStats {
    let scale_i = |v: i64| (v as f64 * f).round() as i64;
    NamespaceBundleStats {
        msg_rate_in: s.msg_rate_in * f,
        msg_throughput_in: s.msg_throughput_in * f,
        msg_rate_out: s.msg_rate_out * f,
        msg_throughput_out: s.msg_throughput_out * f,
        consumer_count: scale_i(s.consumer_count),
        producer_count: scale_i(s.producer_count),
        topics: scale_i(s.topics),
        cache_size: scale_i(s.cache_size),
    }
}

fn scale_window(w: &TimeAverageMessageData, f: f64) -> TimeAverageMessageData {
    TimeAverageMessageData {
        msg_throughput_in: w.msg_throughput_in * f,
        msg_throughput_out: w.msg_throughput_out * f,
        msg_rate_in: w.msg_rate_in * f,
        msg_rate_out: w.msg_rate_out * f,
        ..*w
    }
}

/// Replaces the parent by its children in the snapshot: layout, owner's bundle list and stats, and
/// bundle data (each child gets the parent's numbers scaled by its share of the range). For many
/// splits on one snapshot, use a [`SplitBatch`].
pub fn apply_split(snapshot: &mut Snapshot, split: &SplitResult) {
    SplitBatch::new(snapshot, std::iter::empty()).apply(split);
}

/// Many splits on one snapshot (a leader cycle's automatic splits), each costing what it touches
/// rather than the whole cluster: each namespace's layout and sorted topic hashes are read once and
/// kept up to date by the splits, and written back to the snapshot (formatted as `BundlesData`)
/// once per namespace when the batch ends; the brokers listing each bundle named at the start (the
/// candidates) are found in one pass and kept up to date; and the snapshot's `bundle_data` (an
/// ordered map of every bundle, where removing one entry shifts all later ones) is changed once,
/// when the batch ends.
///
/// The snapshot after the batch is exactly what [`apply_split`] one split after another gives,
/// order of `bundle_data` included: the parents' entries removed in place, the children's entries
/// after all others in the order they were added. It is borrowed for the batch's lifetime, so
/// nothing can read it half updated; it is complete when the batch is dropped.
pub struct SplitBatch<'s> {
    snapshot: &'s mut Snapshot,
    // The batch's maps are looked up per split and never iterated in an order that reaches the
    // snapshot (drained into each namespace's own entry, sorted by position, or in insertion
    // order), so they take the fast hasher.
    layouts: FxHashMap<String, NamespaceBundles>,
    /// Namespaces whose layout in `layouts` splits changed and the snapshot does not have yet
    /// (written when the batch ends: a namespace split 200 times is formatted once, not 200 times).
    unwritten_layouts: FxHashSet<String>,
    topic_hashes: FxHashMap<String, Option<Vec<u32>>>,
    /// For each tracked bundle: the positions in `snapshot.brokers` of the brokers listing it, in
    /// order (empty once none does).
    /// (Fx-hashed: every bundle name of every broker is looked up once per batch.)
    listed_by: FxHashMap<String, Vec<usize>>,
    /// Entries of the snapshot's `bundle_data` that splits removed (taken out when the batch ends).
    removed: FxHashSet<String>,
    /// Entries that splits added and that are not live in the snapshot's `bundle_data`, in the
    /// order they were added (appended when the batch ends).
    added: IndexMap<String, BundleData, FxBuildHasher>,
}

impl<'s> SplitBatch<'s> {
    /// A batch on `snapshot` that tracks the owners of `bundles` (one pass over every broker's
    /// bundle list); other bundles can be split too, at the cost of a pass each.
    pub fn new<'b>(snapshot: &'s mut Snapshot, bundles: impl IntoIterator<Item = &'b str>) -> Self {
        let mut batch = Self {
            snapshot,
            layouts: FxHashMap::default(),
            unwritten_layouts: FxHashSet::default(),
            topic_hashes: FxHashMap::default(),
            listed_by: FxHashMap::default(),
            removed: FxHashSet::default(),
            added: IndexMap::default(),
        };
        batch.track_owners(bundles);
        batch
    }

    /// Tracks the owners of `bundles` too (one pass over every broker's bundle list, made before
    /// any split of the batch).
    pub fn track_owners<'b>(&mut self, bundles: impl IntoIterator<Item = &'b str>) {
        let mut new: FxHashMap<String, Vec<usize>> = bundles
            .into_iter()
            .filter(|b| !self.listed_by.contains_key(*b))
            .map(|b| (b.to_string(), Vec::new()))
            .collect();
        if new.is_empty() {
            return;
        }
        for (pos, b) in self.snapshot.brokers.values().enumerate() {
            for bundle in &b.local_broker_data.bundles {
                if let Some(list) = new.get_mut(bundle.as_str())
                    && list.last() != Some(&pos)
                {
                    list.push(pos);
                }
            }
        }
        self.listed_by.extend(new);
    }

    /// The snapshot as it was when the batch began, but for the bundle lists of the splits applied
    /// so far (its namespace layouts and `bundle_data` are changed when the batch ends: see
    /// [`Self::namespace_bundle_count`]).
    pub fn snapshot(&self) -> &Snapshot {
        self.snapshot
    }

    /// The namespace's bundle count after the splits applied so far (`None`: no layout for it).
    pub fn namespace_bundle_count(&self, namespace: &str) -> Option<i64> {
        match self
            .layouts
            .get(namespace)
            .filter(|_| self.unwritten_layouts.contains(namespace))
        {
            Some(layout) => Some(i64::from(layout.to_num_bundles())),
            None => self
                .snapshot
                .namespaces
                .get(namespace)
                .map(|n| i64::from(n.bundles.num_bundles)),
        }
    }

    /// The id of the first broker (in snapshot order) that lists `bundle` now.
    pub fn owner(&self, bundle: &str) -> Option<String> {
        match self.listed_by.get(bundle) {
            Some(list) => list
                .first()
                .and_then(|&pos| self.snapshot.brokers.get_index(pos))
                .map(|(id, _)| id.clone()),
            None => owner_of(self.snapshot, bundle),
        }
    }

    /// [`compute_split`] on the snapshot as the batch's splits so far have left it.
    pub fn compute(
        &mut self,
        cfg: &LoadBalancerConfig,
        bundle: &str,
        algorithm: SplitAlgorithm,
        positions: &[u32],
    ) -> Result<Result<SplitResult, String>, String> {
        let name = parse_bundle_name(bundle).map_err(|e| e.to_string())?;
        check_algorithm(cfg, algorithm)?;
        let snapshot = &*self.snapshot;
        let layout = match self.layouts.entry(name.namespace.clone()) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(namespace_layout(snapshot, &name.namespace)?),
        };
        let topics = if reads_topics(algorithm) {
            self.topic_hashes
                .entry(name.namespace.clone())
                .or_insert_with(|| namespace_topic_hashes(snapshot, &name.namespace))
                .as_deref()
        } else {
            None
        };
        let (added, removed) = (&self.added, &self.removed);
        split_in(name, layout, topics, algorithm, positions, || {
            let data = added.get(bundle).or_else(|| {
                (!removed.contains(bundle))
                    .then(|| snapshot.bundle_data.get(bundle))
                    .flatten()
            });
            bundle_topic_count(snapshot, bundle, data)
        })
    }

    /// [`apply_split`] within the batch.
    pub fn apply(&mut self, split: &SplitResult) {
        let parent_name = format!("{}/{}", split.namespace, split.parent);
        let child_names = split.children_with_shares();
        match self.layouts.get_mut(&split.namespace) {
            Some(layout) => {
                layout.clone_from(&split.layout_after);
                if !self.unwritten_layouts.contains(&split.namespace) {
                    self.unwritten_layouts.insert(split.namespace.clone());
                }
            }
            None => {
                if let Some(ns) = self.snapshot.namespaces.get_mut(&split.namespace) {
                    ns.bundles = split.layout_after.to_bundles_data();
                }
            }
        }
        let listing: Vec<usize> = match self.listed_by.get(&parent_name) {
            Some(list) => list.clone(),
            None => self
                .snapshot
                .brokers
                .values()
                .enumerate()
                .filter(|(_, b)| b.local_broker_data.bundles.contains(&parent_name))
                .map(|(pos, _)| pos)
                .collect(),
        };
        let mut still_listing = Vec::new();
        let mut split_on = Vec::with_capacity(listing.len());
        for &pos in &listing {
            let Some((_, broker)) = self.snapshot.brokers.get_index_mut(pos) else {
                continue;
            };
            let local = &mut broker.local_broker_data;
            let Some(at) = local.bundles.iter().position(|b| *b == parent_name) else {
                continue;
            };
            local.bundles.remove(at);
            let parent_stats = local.last_stats.shift_remove(&parent_name);
            for (offset, (child, f)) in child_names.iter().enumerate() {
                local.bundles.insert(at + offset, child.clone());
                if let Some(s) = &parent_stats {
                    local.last_stats.insert(child.clone(), scale_stats(s, *f));
                }
            }
            local.num_bundles = local.bundles.len() as i64;
            broker.time_average_broker_data = None;
            split_on.push(pos);
            if local.bundles.contains(&parent_name) {
                still_listing.push(pos);
            }
        }
        if let Some(list) = self.listed_by.get_mut(&parent_name) {
            *list = still_listing;
        }
        for (child, _) in &child_names {
            if let Some(list) = self.listed_by.get_mut(child) {
                list.extend(&split_on);
                list.sort_unstable();
                list.dedup();
            }
        }
        if let Some(data) = self.take_bundle_data(&parent_name) {
            for (child, f) in &child_names {
                let scaled = BundleData {
                    short_term_data: scale_window(&data.short_term_data, *f),
                    long_term_data: scale_window(&data.long_term_data, *f),
                    topics: (f64::from(data.topics) * f).round() as i32,
                };
                self.put_bundle_data(child, scaled);
            }
        }
    }

    /// `bundle_data.shift_remove(name)` on the snapshot as the batch sees it.
    fn take_bundle_data(&mut self, name: &str) -> Option<BundleData> {
        if let Some(data) = self.added.shift_remove(name) {
            return Some(data);
        }
        if self.removed.contains(name) {
            return None;
        }
        let data = *self.snapshot.bundle_data.get(name)?;
        self.removed.insert(name.to_string());
        Some(data)
    }

    /// `bundle_data.insert(name, data)` on the snapshot as the batch sees it: a live entry keeps its
    /// place, a new one goes after all others.
    fn put_bundle_data(&mut self, name: &str, data: BundleData) {
        if let Some(slot) = self.added.get_mut(name) {
            *slot = data;
        } else if let Some(slot) = (!self.removed.contains(name))
            .then(|| self.snapshot.bundle_data.get_mut(name))
            .flatten()
        {
            *slot = data;
        } else {
            self.added.insert(name.to_string(), data);
        }
    }
}

impl Drop for SplitBatch<'_> {
    fn drop(&mut self) {
        // Each namespace's layout is written to its own entry: the order does not matter.
        for namespace in self.unwritten_layouts.drain() {
            if let (Some(layout), Some(ns)) = (
                self.layouts.get(&namespace),
                self.snapshot.namespaces.get_mut(&namespace),
            ) {
                layout.write_bundles_data(&mut ns.bundles);
            }
        }
        if !self.removed.is_empty() {
            // By position: a few lookups of the removed names instead of hashing every entry.
            let mut at: Vec<usize> = self
                .removed
                .iter()
                .filter_map(|name| self.snapshot.bundle_data.get_index_of(name.as_str()))
                .collect();
            at.sort_unstable();
            let mut next = at.into_iter().peekable();
            let mut pos = 0usize;
            self.snapshot.bundle_data.retain(|_, _| {
                let remove = next.next_if_eq(&pos).is_some();
                pos += 1;
                !remove
            });
        }
        self.snapshot.bundle_data.extend(self.added.drain(..));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits `bundles` (each, when it exists, with `algorithm`) one at a time with
    /// `compute_split`/`apply_split`, and in one batch; returns both snapshots.
    fn both_ways(
        snapshot: &Snapshot,
        bundles: &[String],
        algorithm: SplitAlgorithm,
    ) -> (Snapshot, Snapshot) {
        let cfg = LoadBalancerConfig::pulsar_4x();
        let mut one_by_one = snapshot.clone();
        for b in bundles {
            if let Ok(Ok(split)) = compute_split(&one_by_one, &cfg, b, algorithm, &[]) {
                apply_split(&mut one_by_one, &split);
            }
        }
        let mut batched = snapshot.clone();
        {
            let mut batch = SplitBatch::new(&mut batched, bundles.iter().map(String::as_str));
            for b in bundles {
                if let Ok(Ok(split)) = batch.compute(&cfg, b, algorithm, &[]) {
                    batch.apply(&split);
                }
            }
        }
        (one_by_one, batched)
    }

    /// The demo cluster with a topic list for every namespace (200 topics each, so that
    /// `topic_count_equally_divide` has topics to cut between), and the first three bundles of each
    /// broker.
    fn demo_with_bundles() -> (Snapshot, Vec<String>) {
        let mut snapshot = crate::synthetic::demo().unwrap();
        for (name, ns) in snapshot.namespaces.iter_mut() {
            ns.topics = Some(
                (0..200)
                    .map(|i| format!("persistent://{name}/topic-{i}"))
                    .collect(),
            );
        }
        let bundles: Vec<String> = snapshot
            .brokers
            .values()
            .flat_map(|b| b.local_broker_data.bundles.iter().take(3).cloned())
            .collect();
        (snapshot, bundles)
    }

    #[test]
    fn a_batch_leaves_the_snapshot_as_one_split_after_another() {
        let (snapshot, mut bundles) = demo_with_bundles();
        // A child of an earlier split split again, and a bundle named twice.
        let first = bundles[0].clone();
        let name = parse_bundle_name(&first).unwrap();
        let mid = name.range.lo + (name.range.hi - name.range.lo) / 2;
        bundles.push(format!(
            "{}/0x{:08x}_0x{:08x}",
            name.namespace, name.range.lo, mid
        ));
        bundles.push(bundles[1].clone());
        for algorithm in [
            SplitAlgorithm::RangeEquallyDivide,
            SplitAlgorithm::TopicCountEquallyDivide,
        ] {
            let (one_by_one, batched) = both_ways(&snapshot, &bundles, algorithm);
            assert!(one_by_one != snapshot, "{algorithm:?} split nothing");
            assert!(one_by_one == batched, "{algorithm:?}");
            // Same order of every map, not only the same entries.
            assert_eq!(
                serde_json::to_string(&one_by_one).unwrap(),
                serde_json::to_string(&batched).unwrap()
            );
        }
    }

    #[test]
    fn a_batch_splits_a_bundle_two_brokers_list_on_both() {
        let (mut snapshot, bundles) = demo_with_bundles();
        let shared = bundles[0].clone();
        let (_, other) = snapshot.brokers.get_index_mut(1).unwrap();
        other.local_broker_data.bundles.push(shared.clone());
        let (one_by_one, batched) = both_ways(
            &snapshot,
            std::slice::from_ref(&shared),
            SplitAlgorithm::RangeEquallyDivide,
        );
        assert!(one_by_one == batched);
        let name = parse_bundle_name(&shared).unwrap();
        let mid = name.range.lo + (name.range.hi - name.range.lo) / 2;
        let low = format!("{}/0x{:08x}_0x{mid:08x}", name.namespace, name.range.lo);
        let high = format!("{}/0x{mid:08x}_0x{:08x}", name.namespace, name.range.hi);
        for (_, b) in batched.brokers.iter().take(2) {
            let list = &b.local_broker_data.bundles;
            assert!(!list.contains(&shared));
            let at = list.iter().position(|x| *x == low).unwrap();
            assert_eq!(list.get(at + 1), Some(&high));
        }
        // The parent's bundle data is gone; the children's come last, low then high.
        assert!(!batched.bundle_data.contains_key(&shared));
        let n = batched.bundle_data.len();
        let last: Vec<&String> = batched.bundle_data.keys().skip(n - 2).collect();
        assert_eq!(last, [&low, &high]);
    }

    #[test]
    fn hashes_in_a_range_are_the_contiguous_run() {
        let hashes = [0, 5, 10, 10, 20, u32::MAX];
        let r = |lo, hi| BundleRange::new(lo, hi).unwrap();
        assert_eq!(hashes_in(&hashes, r(5, 20)), [5, 10, 10]);
        assert_eq!(hashes_in(&hashes, r(11, 20)), [0u32; 0]);
        assert_eq!(hashes_in(&hashes, r(20, u32::MAX)), [20, u32::MAX]);
    }
}
