//! Snapshots from Prometheus' range results, one per step: each broker's report (its usage from
//! `pulsar_lb_*_usage`, its bundles and their stats from the series it exposed), the namespaces'
//! layouts, and the leader's `BundleData` derived as the leader derives it (each step's reported
//! stats applied once, starting from the layout snapshot's data or Pulsar's defaults). Steps come
//! in windows (the caller queries a window at a time), so memory is one window plus the index
//! (the carried `BundleData`, the topic → bundle cache, the latest layouts).

use std::collections::{BTreeMap, HashMap, VecDeque};

use indexmap::IndexMap;
use rustc_hash::FxHashMap;

use crate::model::{
    BrokerSnapshot, BundleData, LocalBrokerData, NamespaceBundleStats, NamespaceSnapshot,
    ResourceUsage, Snapshot,
};
use crate::naming::{BundleName, BundleRange, NamespaceBundles, TopicName};

use super::basis::{ATTRIBUTION_CONSISTENT, Gap, SOURCE_PROMETHEUS, SeriesBasis};
use super::index::Names;
use super::mapping::BrokerMapping;
use super::names::{self, BundleSource, Field};
use super::range::PromSeries;

/// The steps of one window: `start_ms`, `start_ms + step_ms`, … (`steps` of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start_ms: i64,
    pub step_ms: i64,
    pub steps: usize,
}

impl Window {
    /// The step a sample time falls on (Prometheus evaluates a range query exactly there).
    fn index_of(&self, at_ms: i64) -> Option<usize> {
        let off = at_ms.checked_sub(self.start_ms)?;
        if off < 0 || self.step_ms <= 0 {
            return None;
        }
        // Times come back as float seconds: accept a millisecond either way.
        let i = (off + 1) / self.step_ms;
        let exact = i.checked_mul(self.step_ms)?;
        if (off - exact).abs() > 1 {
            return None;
        }
        usize::try_from(i).ok().filter(|i| *i < self.steps)
    }

    fn at(&self, i: usize) -> i64 {
        self.start_ms.saturating_add(
            self.step_ms
                .saturating_mul(i64::try_from(i).unwrap_or(i64::MAX)),
        )
    }
}

/// One step's readings.
#[derive(Default)]
struct Frame {
    /// brokerId → its five usage percentages (`names::USAGE` order).
    usage: BTreeMap<String, [Option<f64>; 5]>,
    /// brokerId → bundle → stats summed from its topics.
    topics: BTreeMap<String, BTreeMap<String, NamespaceBundleStats>>,
    /// brokerId → counter values.
    unloads: BTreeMap<String, f64>,
    splits: BTreeMap<String, f64>,
    /// brokerIds whose scrape failed (`up == 0`).
    down: Vec<String>,
}

/// A window's bundle readings, by bundle number then step: a series' points (one bundle, every
/// step) land side by side, where a table per step took a cache miss for each point; a step's
/// readings are read once, when the step is built.
struct BundleGrid {
    steps: usize,
    /// Entry `id * steps + i`: bundle `id` at step `i`: its first exposer's broker number and its
    /// stats.
    cells: Vec<Option<(u32, NamespaceBundleStats)>>,
}

impl BundleGrid {
    fn new(steps: usize) -> Self {
        Self {
            steps,
            cells: Vec::new(),
        }
    }

    /// Bundle `id`'s entry at step `i` (the grid grows to hold it).
    fn cell(&mut self, id: usize, i: usize) -> Option<&mut Option<(u32, NamespaceBundleStats)>> {
        if i >= self.steps {
            return None;
        }
        let at = id.checked_mul(self.steps)?.checked_add(i)?;
        if self.cells.len() <= at {
            let len = id.checked_add(1)?.checked_mul(self.steps)?;
            self.cells.resize(len, None);
        }
        self.cells.get_mut(at)
    }

    /// Bundle `id`'s entry at step `i`.
    fn get(&self, id: usize, i: usize) -> Option<&(u32, NamespaceBundleStats)> {
        if i >= self.steps {
            return None;
        }
        self.cells
            .get(id.checked_mul(self.steps)?.checked_add(i)?)?
            .as_ref()
    }
}

/// A broker's report as last built, with what it was built from: a step that reads the same
/// bundles, stats and usage (to the bit) keeps the report instead of building it again.
struct Kept {
    /// Its bundles (numbers, by name) and their stats.
    owned: Vec<(u32, NamespaceBundleStats)>,
    usage: [Option<f64>; 5],
    local: LocalBrokerData,
    /// `local == local` (no NaN in it): only then is an unchanged report equal to itself.
    self_equal: bool,
    /// Which build of a report this is (a recycled snapshot holding it needs no copy).
    generation: u64,
}

/// What a snapshot handed out was built from: the generations of its brokers' reports, of the
/// stored `BundleData`'s bundles and of the namespaces (a snapshot given back is brought to the
/// next step by copying only what changed since).
struct Handed {
    at_ms: i64,
    brokers: Vec<u64>,
    bundle_data: u64,
    namespaces: u64,
}

impl Kept {
    fn same_readings(
        &self,
        owned: &[(u32, NamespaceBundleStats)],
        usage: &[Option<f64>; 5],
    ) -> bool {
        let bits = |v: &Option<f64>| v.map(f64::to_bits);
        self.self_equal
            && self.usage.iter().map(bits).eq(usage.iter().map(bits))
            && self.owned.len() == owned.len()
            && self
                .owned
                .iter()
                .zip(owned)
                .all(|((a, x), (b, y))| a == b && same_stats_bits(x, y))
    }
}

/// Equal to the bit (a `-0.0` where `0.0` was is a different report to copy).
fn same_stats_bits(a: &NamespaceBundleStats, b: &NamespaceBundleStats) -> bool {
    a.msg_rate_in.to_bits() == b.msg_rate_in.to_bits()
        && a.msg_rate_out.to_bits() == b.msg_rate_out.to_bits()
        && a.msg_throughput_in.to_bits() == b.msg_throughput_in.to_bits()
        && a.msg_throughput_out.to_bits() == b.msg_throughput_out.to_bits()
        && a.topics == b.topics
        && a.consumer_count == b.consumer_count
        && a.producer_count == b.producer_count
        && a.cache_size == b.cache_size
}

/// Builds the snapshots of a Prometheus history, window by window.
pub struct SeriesBuilder {
    layout: Snapshot,
    mapping: BrokerMapping,
    /// Bundle and broker names, numbered once (the index).
    bundle_names: Names,
    broker_names: Names,
    /// Broker label value → its broker's number.
    broker_of_value: FxHashMap<String, u32>,
    /// The leader's `BundleData` before the next step's samples, by bundle number.
    carried: Vec<Option<BundleData>>,
    /// Namespace → its latest layout.
    layouts: BTreeMap<String, NamespaceBundles>,
    /// Topic label → its bundle's full name (`None`: not hashable).
    topic_bundle: HashMap<String, Option<String>>,
    default_bundles: u32,
    /// Brokers that have exposed usage so far.
    seen_brokers: std::collections::BTreeSet<String>,
    last_unloads: BTreeMap<String, f64>,
    last_splits: BTreeMap<String, f64>,
    basis: SeriesBasis,
    uses_bundle_metrics: bool,
    uses_topic_metrics: bool,
    /// The previous step's reports: a report whose content did not change keeps its
    /// `lastUpdate` (a broker writes a new report only when it changed), and the explainer is
    /// told which reports changed.
    kept: IndexMap<String, Kept>,
    /// The previous snapshot's stored `BundleData` and its bundles' numbers: a step with the same
    /// bundles only writes the values.
    bundle_data: IndexMap<String, BundleData>,
    bundle_data_ids: Vec<u32>,
    /// The bundles owned at the last step whose layouts were observed (numbers, ascending).
    observed_owned: Option<Vec<u32>>,
    /// The namespaces as the layouts give them (`None` after a layout changed).
    namespaces: Option<IndexMap<String, NamespaceSnapshot>>,
    /// Counts builds of reports, of `bundle_data`'s keys and of the namespaces.
    generation: u64,
    bundle_data_generation: u64,
    namespaces_generation: u64,
    /// The latest snapshots handed out (what they hold), and one given back to be reused.
    handed: VecDeque<Handed>,
    spare: Option<(Snapshot, Handed)>,
}

/// A built snapshot and the brokers whose report differs from the snapshot built before it
/// (`None`: the broker set changed, or it is the first).
pub type Built = (Snapshot, Option<Vec<String>>);

impl SeriesBuilder {
    /// `layout`: a snapshot of the cluster (e.g. one `lbplan collect` run) giving the namespaces'
    /// boundaries, `broker.conf`, policies, each broker's limits and version, and the leader's
    /// `BundleData` at the start; `None`: boundaries from the bundles seen, else the default
    /// bundle count, and Pulsar's defaults.
    pub fn new(layout: Option<Snapshot>, mut mapping: BrokerMapping) -> Self {
        let has_layout = layout.is_some();
        let layout = layout.unwrap_or_default();
        if mapping.known.is_empty() {
            mapping.known = layout.brokers.keys().cloned().collect();
        }
        let default_bundles = layout
            .broker_conf
            .get("defaultNumberOfNamespaceBundles")
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(4);
        let layouts = layout
            .namespaces
            .iter()
            .filter_map(|(ns, n)| {
                NamespaceBundles::from_bundles_data(ns, &n.bundles)
                    .ok()
                    .map(|b| (ns.clone(), b))
            })
            .collect();
        let mut bundle_names = Names::default();
        let mut carried: Vec<Option<BundleData>> = Vec::new();
        for (k, v) in &layout.bundle_data {
            if let Some(id) = bundle_names.id(k) {
                carried.resize(bundle_names.len(), None);
                if let Some(slot) = carried.get_mut(id as usize) {
                    *slot = Some(*v);
                }
            }
        }
        let mut derived = vec![
            "bundle_data: the leader's BundleData time averages, each step's reported stats \
             applied once (one sample per step; the leader takes one per report)"
                .to_string(),
            "time_average_broker_data: from that BundleData, as the leader computes it".to_string(),
            "the shedder's smoothed broker averages and the grace list: the replayed leader's own, \
             carried from the first step"
                .to_string(),
            "broker reports: usage percent × the layout broker's limit (limit 100 without a \
             layout); rates, topics, consumers and producers summed from the bundles"
                .to_string(),
            "each broker's bundle order (lastStats): by name; Prometheus' answers do not keep the \
             order a broker listed them in, which the shedder follows among bundles of exactly \
             equal load"
                .to_string(),
        ];
        if has_layout {
            derived.push(
                "broker.conf, policies, versions and the leader's BundleData at the first step: \
                 from the layout snapshot"
                    .to_string(),
            );
        } else {
            derived.push(
                "broker.conf: the profile's defaults (no layout snapshot); BundleData starts \
                 from Pulsar's defaults"
                    .to_string(),
            );
        }
        let basis = SeriesBasis {
            source: SOURCE_PROMETHEUS.to_string(),
            attribution: ATTRIBUTION_CONSISTENT.to_string(),
            derived,
            broker_mapping: Some(mapping.describe()),
            ..SeriesBasis::default()
        };
        Self {
            layout,
            mapping,
            bundle_names,
            broker_names: Names::default(),
            broker_of_value: FxHashMap::default(),
            carried,
            layouts,
            topic_bundle: HashMap::new(),
            default_bundles,
            seen_brokers: Default::default(),
            last_unloads: BTreeMap::new(),
            last_splits: BTreeMap::new(),
            basis,
            uses_bundle_metrics: false,
            uses_topic_metrics: false,
            kept: IndexMap::new(),
            bundle_data: IndexMap::new(),
            bundle_data_ids: Vec::new(),
            observed_owned: None,
            namespaces: None,
            generation: 0,
            bundle_data_generation: 0,
            namespaces_generation: 0,
            handed: VecDeque::new(),
            spare: None,
        }
    }

    /// Takes back a snapshot this builder handed out, unmodified, once its user is done with it
    /// (the explainer gives back the one before the latest): the next step's snapshot is that one
    /// with what changed since copied in, instead of every name copied again. Any other snapshot
    /// is dropped.
    pub fn recycle(&mut self, snapshot: Snapshot) {
        let Some(at) = snapshot.captured_at_ms else {
            return;
        };
        if let Some(i) = self.handed.iter().position(|h| h.at_ms == at) {
            let h = self.handed.drain(..=i).next_back();
            self.spare = h.map(|h| (snapshot, h));
        }
    }

    /// The snapshots of one window's steps from its query results (`(metric name, series)`),
    /// in time order; a step where a broker's metrics are missing is a gap, left out.
    pub fn window(&mut self, window: Window, results: &[(&str, Vec<PromSeries>)]) -> Vec<Snapshot> {
        self.window_changes(window, results)
            .into_iter()
            .map(|(s, _)| s)
            .collect()
    }

    /// [`Self::window`], each snapshot with the brokers whose report changed since the one before.
    pub fn window_changes(
        &mut self,
        window: Window,
        results: &[(&str, Vec<PromSeries>)],
    ) -> Vec<Built> {
        let mut out = Vec::with_capacity(window.steps);
        let done: Result<(), std::convert::Infallible> = self.window_each(window, results, |b| {
            out.push(b);
            Ok(None)
        });
        match done {
            Ok(()) => out,
        }
    }

    /// [`Self::window_changes`], each snapshot handed to `each` as soon as it is built (only one
    /// is held); `each` may give back a snapshot it is done with ([`Self::recycle`]); stops at the
    /// first error `each` gives.
    pub fn window_each<E>(
        &mut self,
        window: Window,
        results: &[(&str, Vec<PromSeries>)],
        mut each: impl FnMut(Built) -> Result<Option<Snapshot>, E>,
    ) -> Result<(), E> {
        self.basis.steps_queried = self.basis.steps_queried.saturating_add(window.steps);
        let mut frames: Vec<Frame> = (0..window.steps).map(|_| Frame::default()).collect();
        let mut grid = BundleGrid::new(window.steps);
        for (name, series) in results {
            let Some(field) = names::field_of(name) else {
                continue;
            };
            for s in series {
                self.read_series(field, s, window, &mut frames, &mut grid);
            }
        }
        for (i, frame) in frames.into_iter().enumerate() {
            if let Some(s) = self.snapshot(window.at(i), frame, |id| grid.get(id, i))
                && let Some(done) = each(s)?
            {
                self.recycle(done);
            }
        }
        Ok(())
    }

    /// The number of the broker that exposed a series with these labels (a label value's broker
    /// is worked out once).
    fn broker_number(&mut self, labels: &[(String, String)]) -> Option<u32> {
        let value = labels
            .iter()
            .find(|(k, _)| *k == self.mapping.label)
            .map(|(_, v)| v.as_str())?;
        if let Some(id) = self.broker_of_value.get(value) {
            return Some(*id);
        }
        let id = self.broker_names.id(&self.mapping.broker_id(value))?;
        self.broker_of_value.insert(value.to_string(), id);
        Some(id)
    }

    fn read_series(
        &mut self,
        field: Field,
        s: &PromSeries,
        window: Window,
        frames: &mut [Frame],
        grid: &mut BundleGrid,
    ) {
        let Some(broker_id) = self.broker_number(&s.labels) else {
            return;
        };
        // A bundle's number is looked up once per series, not per point.
        let bundle_id = match field {
            Field::Bundle(_) => match s.label("bundle") {
                Some(bundle) if BundleName::split(bundle).is_some() => {
                    match self.bundle_names.id(bundle) {
                        Some(id) => Some(id),
                        None => return,
                    }
                }
                _ => return,
            },
            _ => None,
        };
        let broker = match field {
            Field::Bundle(_) => String::new(),
            _ => self.broker_names.name(broker_id).to_string(),
        };
        // A topic's bundle is looked up once per series, not per point.
        let topic_bundle = match field {
            Field::Topic(_) => match self.bundle_of_topic(s) {
                Some(b) => Some(b),
                None => return,
            },
            _ => None,
        };
        for &(t, v) in &s.points {
            let Some(i) = window.index_of(t) else {
                continue;
            };
            let Some(frame) = frames.get_mut(i) else {
                continue;
            };
            // NaN is a value Prometheus can hold; a report never does.
            if !v.is_finite() {
                continue;
            }
            match field {
                Field::Usage(k) => {
                    let slot = match frame.usage.get_mut(&broker) {
                        Some(slot) => slot,
                        None => frame.usage.entry(broker.clone()).or_default(),
                    };
                    if let Some(x) = slot.get_mut(k) {
                        *x = Some(v);
                    }
                }
                Field::Bundle(k) => {
                    let Some(id) = bundle_id.map(|id| id as usize) else {
                        continue;
                    };
                    self.uses_bundle_metrics = true;
                    let Some(slot) = grid.cell(id, i) else {
                        continue;
                    };
                    let entry =
                        slot.get_or_insert_with(|| (broker_id, NamespaceBundleStats::default()));
                    // A bundle two brokers exposed at one step (a move between scrapes): the
                    // first broker by name owns it, as a snapshot's first lister does.
                    let first = entry.0 != broker_id
                        && self.broker_names.name(broker_id) < self.broker_names.name(entry.0);
                    if entry.0 == broker_id || first {
                        if first {
                            *entry = (broker_id, NamespaceBundleStats::default());
                        }
                        set_bundle_field(&mut entry.1, k, v);
                    }
                }
                Field::Topic(k) => {
                    let Some(bundle) = &topic_bundle else {
                        continue;
                    };
                    self.uses_topic_metrics = true;
                    let stats = frame
                        .topics
                        .entry(broker.clone())
                        .or_default()
                        .entry(bundle.clone())
                        .or_default();
                    match k {
                        0 => {
                            stats.msg_rate_in += v;
                            stats.topics += 1;
                        }
                        1 => stats.msg_rate_out += v,
                        2 => stats.msg_throughput_in += v,
                        _ => stats.msg_throughput_out += v,
                    }
                }
                Field::Unloads => {
                    frame.unloads.insert(broker.clone(), v);
                }
                Field::Splits => {
                    frame.splits.insert(broker.clone(), v);
                }
                Field::Up => {
                    if v == 0.0 {
                        frame.down.push(broker.clone());
                    }
                }
            }
        }
    }

    /// The bundle a topic series' topic hashes to, with its namespace's layout.
    fn bundle_of_topic(&mut self, s: &PromSeries) -> Option<String> {
        let topic = s.label("topic")?;
        if let Some(b) = self.topic_bundle.get(topic) {
            return b.clone();
        }
        let found = TopicName::parse(topic).ok().and_then(|t| {
            let ns = t.namespace.as_str().to_string();
            let layout = match self.layouts.get(&ns) {
                Some(l) => l,
                None => {
                    let l =
                        NamespaceBundles::with_default_partition(&ns, self.default_bundles).ok()?;
                    self.namespaces = None;
                    self.layouts.entry(ns.clone()).or_insert(l)
                }
            };
            layout.find_bundle(&t).ok().map(|r| format!("{ns}/{r}"))
        });
        // The cache is the index: one entry per topic, bounded by the answers' caps.
        self.topic_bundle.insert(topic.to_string(), found.clone());
        found
    }

    /// The step's snapshot from its `frame` and its bundle readings by number (`bundles`).
    fn snapshot<'g>(
        &mut self,
        at_ms: i64,
        frame: Frame,
        bundles: impl Fn(usize) -> Option<&'g (u32, NamespaceBundleStats)>,
    ) -> Option<Built> {
        self.count_counters(&frame);
        // brokerId → its bundles (numbers, in name order) and their stats.
        let mut owned: BTreeMap<String, Vec<(u32, NamespaceBundleStats)>> = BTreeMap::new();
        if self.uses_bundle_metrics {
            self.bundle_names.sort();
            let mut by_broker: Vec<Vec<(u32, NamespaceBundleStats)>> =
                vec![Vec::new(); self.broker_names.len()];
            for id in self.bundle_names.by_name() {
                if let Some((broker, stats)) = bundles(*id as usize)
                    && let Some(mine) = by_broker.get_mut(*broker as usize)
                {
                    mine.push((*id, *stats));
                }
            }
            for (broker, bundles) in by_broker.into_iter().enumerate() {
                if !bundles.is_empty() {
                    let name = u32::try_from(broker).map_or("", |b| self.broker_names.name(b));
                    owned.insert(name.to_string(), bundles);
                }
            }
        } else {
            for (broker, bundles) in &frame.topics {
                let mine = owned.entry(broker.clone()).or_default();
                for (bundle, stats) in bundles {
                    if let Some(id) = self.bundle_names.id(bundle) {
                        mine.push((id, *stats));
                    }
                }
            }
        }
        // Gaps: a broker with some of its usage metrics, bundles but no usage, or a failed
        // scrape of a broker seen before.
        let mut gaps = Vec::new();
        for (broker, usage) in &frame.usage {
            let missing: Vec<String> = names::USAGE
                .iter()
                .zip(usage)
                .filter(|(_, v)| v.is_none())
                .map(|(n, _)| (*n).to_string())
                .collect();
            if !missing.is_empty() {
                gaps.push(Gap {
                    at_ms,
                    broker: broker.clone(),
                    missing,
                });
            }
        }
        for broker in owned.keys() {
            if !frame.usage.contains_key(broker) {
                gaps.push(Gap {
                    at_ms,
                    broker: broker.clone(),
                    missing: names::USAGE.iter().map(|n| (*n).to_string()).collect(),
                });
            }
        }
        for broker in &frame.down {
            if self.seen_brokers.contains(broker) && !frame.usage.contains_key(broker) {
                gaps.push(Gap {
                    at_ms,
                    broker: broker.clone(),
                    missing: vec!["up == 0 (the scrape failed)".to_string()],
                });
            }
        }
        if !gaps.is_empty() {
            gaps.sort_by(|a, b| a.broker.cmp(&b.broker));
            gaps.dedup_by(|a, b| a.broker == b.broker);
            self.basis.gaps.extend(gaps);
            return None;
        }
        if frame.usage.is_empty() {
            // No broker exposed anything at this step: nothing to say, not a cluster of none.
            return None;
        }
        self.seen_brokers.extend(frame.usage.keys().cloned());
        self.observe_layouts(&owned);
        self.bundle_names.sort();
        let mut before = std::mem::take(&mut self.kept);
        let same_brokers = before.keys().eq(frame.usage.keys());
        let mut changed = Vec::new();
        let mut kept = IndexMap::with_capacity(frame.usage.len());
        for (id, usage) in &frame.usage {
            let mine = owned.remove(id).unwrap_or_default();
            let held = before.swap_remove(id);
            let k = match held {
                Some(k) if k.same_readings(&mine, usage) => k,
                held => {
                    let local = self.report(id, usage, &mine, at_ms, held.as_ref());
                    if held.is_none_or(|k| k.local != local) {
                        changed.push(id.clone());
                    }
                    self.generation = self.generation.wrapping_add(1);
                    Kept {
                        // A report with a NaN is not equal to itself.
                        self_equal: PartialEq::eq(&local, &local),
                        owned: mine,
                        usage: *usage,
                        local,
                        generation: self.generation,
                    }
                }
            };
            kept.insert(id.clone(), k);
        }
        // Bundles exposed by a broker with no usage were refused above, so none is left here.
        let mut ids: Vec<u32> = kept
            .values()
            .flat_map(|k| k.owned.iter().map(|(id, _)| *id))
            .collect();
        ids.sort_unstable_by_key(|id| self.bundle_names.rank(*id));
        ids.dedup();
        self.carried.resize(self.bundle_names.len(), None);
        let carried = |id: &u32| {
            self.carried
                .get(*id as usize)
                .copied()
                .flatten()
                .unwrap_or_else(BundleData::pulsar_default)
        };
        if ids == self.bundle_data_ids {
            for (v, id) in self.bundle_data.values_mut().zip(&ids) {
                *v = carried(id);
            }
        } else {
            self.bundle_data = ids
                .iter()
                .map(|id| (self.bundle_names.name(*id).to_string(), carried(id)))
                .collect();
            self.bundle_data_ids = ids;
            self.bundle_data_generation = self.bundle_data_generation.wrapping_add(1);
        }
        // The leader's samples of this step, for the next one's stored data.
        for k in kept.values() {
            for (id, stats) in &k.owned {
                if let Some(slot) = self.carried.get_mut(*id as usize) {
                    slot.get_or_insert_with(BundleData::pulsar_default)
                        .update(stats);
                }
            }
        }
        let changed = same_brokers.then_some(changed);
        self.kept = kept;
        let snapshot = match self.spare.take() {
            Some((mut s, h)) => {
                self.refresh(&mut s, &h, at_ms);
                s
            }
            None => Snapshot {
                format_version: crate::model::SNAPSHOT_FORMAT_VERSION,
                cluster: self.layout.cluster.clone(),
                captured_at_ms: Some(at_ms),
                leader_broker: self.layout.leader_broker.clone(),
                broker_conf: self.layout.broker_conf.clone(),
                brokers: self.brokers(),
                bundle_data: self.bundle_data.clone(),
                namespaces: self.namespaces(),
                failure_domains: self.layout.failure_domains.clone(),
                namespace_isolation_policies: self.layout.namespace_isolation_policies.clone(),
                recently_unloaded_bundles: IndexMap::new(),
            },
        };
        self.handed.push_back(Handed {
            at_ms,
            brokers: self.kept.values().map(|k| k.generation).collect(),
            bundle_data: self.bundle_data_generation,
            namespaces: self.namespaces_generation,
        });
        // The explainer gives back the one before the latest: a few are enough.
        while self.handed.len() > 4 {
            self.handed.pop_front();
        }
        Some((snapshot, changed))
    }

    fn brokers(&self) -> IndexMap<String, BrokerSnapshot> {
        self.kept
            .iter()
            .map(|(id, k)| {
                (
                    id.clone(),
                    BrokerSnapshot {
                        local_broker_data: k.local.clone(),
                        ..BrokerSnapshot::default()
                    },
                )
            })
            .collect()
    }

    /// Brings `s`, a snapshot handed out as `h` says, to this step: the reports, stored data and
    /// namespaces built since are copied in (into the buffers already there); the layout's parts
    /// never change.
    fn refresh(&mut self, s: &mut Snapshot, h: &Handed, at_ms: i64) {
        s.captured_at_ms = Some(at_ms);
        if s.brokers.keys().eq(self.kept.keys()) && h.brokers.len() == self.kept.len() {
            for ((b, k), g) in s
                .brokers
                .values_mut()
                .zip(self.kept.values())
                .zip(&h.brokers)
            {
                if *g != k.generation {
                    b.local_broker_data.clone_from(&k.local);
                }
            }
        } else {
            s.brokers = self.brokers();
        }
        if h.bundle_data == self.bundle_data_generation {
            for (v, now) in s.bundle_data.values_mut().zip(self.bundle_data.values()) {
                *v = *now;
            }
        } else {
            s.bundle_data.clone_from(&self.bundle_data);
        }
        if self.namespaces.is_none() || h.namespaces != self.namespaces_generation {
            s.namespaces = self.namespaces();
        }
    }

    /// Broker `id`'s report at `at_ms`: the layout's broker (limits, version) with this step's
    /// usage and bundles; `lastUpdate` stays the held report's when nothing else changed.
    fn report(
        &self,
        id: &str,
        usage: &[Option<f64>; 5],
        owned: &[(u32, NamespaceBundleStats)],
        at_ms: i64,
        held: Option<&Kept>,
    ) -> LocalBrokerData {
        let mut local = self
            .layout
            .brokers
            .get(id)
            .map(|b| b.local_broker_data.clone())
            .unwrap_or_default();
        let resources = [
            &mut local.cpu,
            &mut local.memory,
            &mut local.direct_memory,
            &mut local.bandwidth_in,
            &mut local.bandwidth_out,
        ];
        for (r, pct) in resources.into_iter().zip(usage) {
            *r = usage_for_percent(pct.unwrap_or(0.0), r.limit);
        }
        local.set_last_stats(
            owned
                .iter()
                .map(|(b, stats)| (self.bundle_names.name(*b).to_string(), *stats))
                .collect(),
        );
        local.last_update = at_ms;
        local.last_bundle_gains.clear();
        local.last_bundle_losses.clear();
        if let Some(before) = held.map(|k| &k.local) {
            let same = LocalBrokerData {
                last_update: before.last_update,
                ..local.clone()
            } == *before;
            if same {
                local.last_update = before.last_update;
            }
        }
        local
    }

    /// Bundle metrics name every owned bundle: a namespace whose bundles tile its whole range
    /// has that layout now (a split shows as new boundaries); otherwise the last known one stays.
    /// The same bundles as at the last step observed give the same layouts: not looked at again.
    fn observe_layouts(&mut self, owned: &BTreeMap<String, Vec<(u32, NamespaceBundleStats)>>) {
        if !self.uses_bundle_metrics {
            self.observed_owned = None;
            return;
        }
        let mut all: Vec<u32> = owned
            .values()
            .flat_map(|b| b.iter().map(|(id, _)| *id))
            .collect();
        all.sort_unstable();
        if self.observed_owned.as_ref() == Some(&all) {
            return;
        }
        let mut ranges: BTreeMap<&str, Vec<BundleRange>> = BTreeMap::new();
        for id in &all {
            if let Some((ns, r)) = BundleName::split(self.bundle_names.name(*id)) {
                ranges.entry(ns).or_default().push(r);
            }
        }
        let mut found: Vec<(String, NamespaceBundles)> = Vec::new();
        for (ns, mut rs) in ranges {
            rs.sort();
            let tiles = rs.first().is_some_and(|r| r.lo == 0)
                && rs.last().is_some_and(|r| r.hi == u32::MAX)
                && rs.windows(2).all(|w| matches!(w, [a, b] if a.hi == b.lo));
            if tiles {
                let mut boundaries: Vec<u32> = rs.iter().map(|r| r.lo).collect();
                boundaries.push(u32::MAX);
                if let Ok(l) = NamespaceBundles::new(ns, boundaries) {
                    found.push((ns.to_string(), l));
                }
            } else if !self.layouts.contains_key(ns)
                && let Ok(l) = NamespaceBundles::with_default_partition(ns, self.default_bundles)
            {
                found.push((ns.to_string(), l));
            }
        }
        for (ns, l) in found {
            if self.layouts.get(&ns) != Some(&l) {
                self.layouts.insert(ns, l);
                self.namespaces = None;
            }
        }
        self.observed_owned = Some(all);
    }

    fn namespaces(&mut self) -> IndexMap<String, NamespaceSnapshot> {
        if let Some(n) = &self.namespaces {
            return n.clone();
        }
        self.namespaces_generation = self.namespaces_generation.wrapping_add(1);
        let n: IndexMap<String, NamespaceSnapshot> = self
            .layouts
            .iter()
            .map(|(ns, l)| {
                let mut n = self.layout.namespaces.get(ns).cloned().unwrap_or_default();
                n.bundles = l.to_bundles_data();
                (ns.clone(), n)
            })
            .collect();
        self.namespaces = Some(n.clone());
        n
    }

    fn count_counters(&mut self, frame: &Frame) {
        fn add(
            total: &mut Option<f64>,
            last: &mut BTreeMap<String, f64>,
            now: &BTreeMap<String, f64>,
        ) {
            for (broker, v) in now {
                let inc = match last.get(broker) {
                    Some(prev) if v >= prev => v - prev,
                    // A drop: the broker restarted or a new leader counts from 0.
                    Some(_) => *v,
                    // The first reading is the baseline.
                    None => 0.0,
                };
                *total = Some(total.unwrap_or(0.0) + inc);
                last.insert(broker.clone(), *v);
            }
        }
        add(
            &mut self.basis.leader_unloads_counted,
            &mut self.last_unloads,
            &frame.unloads,
        );
        add(
            &mut self.basis.leader_splits_counted,
            &mut self.last_splits,
            &frame.splits,
        );
    }

    /// The basis of the history built so far (stated in the report).
    pub fn finish(mut self) -> SeriesBasis {
        self.basis.bundle_source = Some(if self.uses_bundle_metrics {
            BundleSource::BundleMetrics
        } else if self.uses_topic_metrics {
            BundleSource::TopicMetrics
        } else {
            BundleSource::None
        });
        self.basis.boundaries = Some(if self.uses_bundle_metrics {
            "from the bundles exposed at each step when they tile the namespace's range, else the \
             last known layout (the layout snapshot's, else the default bundle count)"
                .to_string()
        } else if self.layout.namespaces.is_empty() {
            format!(
                "each namespace's default layout ({} bundles, defaultNumberOfNamespaceBundles): \
                 no layout snapshot",
                self.default_bundles
            )
        } else {
            "the layout snapshot's, fixed over the range (splits after it are not seen)".to_string()
        });
        self.basis
    }
}

fn set_bundle_field(s: &mut NamespaceBundleStats, k: usize, v: f64) {
    match k {
        0 => s.msg_rate_in = v,
        1 => s.msg_rate_out = v,
        2 => s.msg_throughput_in = v,
        3 => s.msg_throughput_out = v,
        4 => s.topics = v as i64,
        5 => s.consumer_count = v as i64,
        _ => s.producer_count = v as i64,
    }
}

/// A `ResourceUsage` with `limit` (100 when unknown) whose `percentUsage()` is `pct` exactly when
/// an f32 usage can give it: Pulsar exposes the f32 percentage, so the usage is found back to the
/// bit, not approximated.
fn usage_for_percent(pct: f64, limit: f64) -> ResourceUsage {
    let limit = if limit > 0.0 { limit } else { 100.0 };
    let target = pct as f32;
    let first = (pct / 100.0 * limit) as f32;
    let mut candidate = first;
    for i in 0..8u32 {
        // first, +1 ulp, −1 ulp, +2, −2, …
        let steps = i.div_ceil(2);
        let bits = first.to_bits();
        let moved = if i % 2 == 1 {
            bits.checked_add(steps)
        } else {
            bits.checked_sub(steps)
        };
        let Some(c) = moved.map(f32::from_bits) else {
            continue;
        };
        if ResourceUsage::new(f64::from(c), limit).percent_usage() as f32 == target {
            candidate = c;
            break;
        }
    }
    ResourceUsage::new(f64::from(candidate), limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(labels: &[(&str, &str)], points: &[(i64, f64)]) -> PromSeries {
        let mut labels: Vec<(String, String)> = labels
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        labels.sort();
        PromSeries {
            labels,
            points: points.to_vec(),
        }
    }

    fn usage(b: &str, at: &[i64], pct: f64) -> Vec<(&'static str, Vec<PromSeries>)> {
        names::USAGE
            .iter()
            .map(|n| {
                let pts: Vec<(i64, f64)> = at.iter().map(|t| (*t, pct)).collect();
                (
                    *n,
                    vec![series(
                        &[
                            ("instance", b),
                            ("broker", "h"),
                            ("metric", "loadBalancing"),
                        ],
                        &pts,
                    )],
                )
            })
            .collect()
    }

    #[test]
    fn bundle_metrics_give_owners_and_a_split_layout() {
        let w = Window {
            start_ms: 60_000,
            step_ms: 60_000,
            steps: 2,
        };
        let mut results = usage("b1:8080", &[60_000, 120_000], 40.0);
        results.extend(usage("b2:8080", &[60_000, 120_000], 20.0));
        let rate = vec![
            series(
                &[
                    ("instance", "b1:8080"),
                    ("bundle", "t/n/0x00000000_0xffffffff"),
                ],
                &[(60_000, 10.0)],
            ),
            series(
                &[
                    ("instance", "b1:8080"),
                    ("bundle", "t/n/0x00000000_0x7fffffff"),
                ],
                &[(120_000, 4.0)],
            ),
            series(
                &[
                    ("instance", "b2:8080"),
                    ("bundle", "t/n/0x7fffffff_0xffffffff"),
                ],
                &[(120_000, 6.0)],
            ),
        ];
        results.push(("pulsar_bundle_msg_rate_in", rate));
        let refs: Vec<(&str, Vec<PromSeries>)> = results;
        let mut b = SeriesBuilder::new(None, BrokerMapping::default());
        let snaps = b.window(w, &refs);
        assert_eq!(snaps.len(), 2);
        let first = &snaps[0];
        assert_eq!(
            first.brokers["b1:8080"].local_broker_data.bundles,
            vec!["t/n/0x00000000_0xffffffff".to_string()]
        );
        assert!(
            (first.brokers["b1:8080"]
                .local_broker_data
                .cpu
                .percent_usage()
                - 40.0)
                .abs()
                < 1e-9
        );
        let second = &snaps[1];
        assert_eq!(
            second.namespaces["t/n"].bundles.boundaries,
            vec!["0x00000000", "0x7fffffff", "0xffffffff"]
        );
        assert_eq!(second.brokers["b2:8080"].local_broker_data.msg_rate_in, 6.0);
        // The first step's stats went into the second step's stored BundleData of that bundle.
        assert!(second.bundle_data.contains_key("t/n/0x00000000_0x7fffffff"));
        let basis = b.finish();
        assert_eq!(basis.bundle_source, Some(BundleSource::BundleMetrics));
        assert!(basis.gaps.is_empty());
        assert_eq!(basis.steps_queried, 2);
    }

    #[test]
    fn topic_metrics_hash_onto_the_default_layout() {
        let w = Window {
            start_ms: 0,
            step_ms: 60_000,
            steps: 1,
        };
        let mut results = usage("b1:8080", &[0], 10.0);
        // The bundle is the one core's `find_bundle` (Pulsar's CRC32 hash) gives.
        let topic = "persistent://public/default/my-topic";
        let t = TopicName::parse(topic).unwrap();
        let l = NamespaceBundles::with_default_partition("public/default", 4).unwrap();
        let expected = format!("public/default/{}", l.find_bundle(&t).unwrap());
        results.push((
            "pulsar_rate_in",
            vec![series(
                &[
                    ("instance", "b1:8080"),
                    ("namespace", "public/default"),
                    ("topic", topic),
                ],
                &[(0, 7.5)],
            )],
        ));
        let mut b = SeriesBuilder::new(None, BrokerMapping::default());
        let snaps = b.window(w, &results);
        let local = &snaps[0].brokers["b1:8080"].local_broker_data;
        assert_eq!(local.bundles, vec![expected.clone()]);
        assert_eq!(local.last_stats[&expected].msg_rate_in, 7.5);
        assert_eq!(local.last_stats[&expected].topics, 1);
        assert_eq!(b.finish().bundle_source, Some(BundleSource::TopicMetrics));
    }

    #[test]
    fn a_broker_missing_a_metric_is_a_gap_not_a_guess() {
        let w = Window {
            start_ms: 0,
            step_ms: 60_000,
            steps: 2,
        };
        let mut results = usage("b1:8080", &[0, 60_000], 10.0);
        // b2 exposes its cpu at both steps but the rest only at the first.
        let mut b2 = usage("b2:8080", &[0], 10.0);
        b2[0].1[0].points.push((60_000, 12.0));
        results.extend(b2);
        let mut b = SeriesBuilder::new(None, BrokerMapping::default());
        let snaps = b.window(w, &results);
        assert_eq!(snaps.len(), 1);
        let basis = b.finish();
        assert_eq!(basis.gaps.len(), 1);
        assert_eq!(basis.gaps[0].broker, "b2:8080");
        assert_eq!(basis.gaps[0].at_ms, 60_000);
        assert_eq!(basis.gaps[0].missing.len(), 4);
    }

    #[test]
    fn counters_sum_increases_and_read_a_drop_as_a_restart() {
        let w = Window {
            start_ms: 0,
            step_ms: 1000,
            steps: 4,
        };
        let mut results = usage("b1:8080", &[0, 1000, 2000, 3000], 10.0);
        results.push((
            names::UNLOADS,
            vec![series(
                &[("instance", "b1:8080"), ("metric", "bundleUnloading")],
                &[(0, 5.0), (1000, 7.0), (2000, 1.0), (3000, 4.0)],
            )],
        ));
        let mut b = SeriesBuilder::new(None, BrokerMapping::default());
        b.window(w, &results);
        // 5 is the baseline; +2, then a restart counting 1, then +3.
        assert_eq!(b.finish().leader_unloads_counted, Some(6.0));
    }

    #[test]
    fn usage_is_found_back_to_the_bit() {
        for (pct, limit) in [(79.1_f32, 800.0), (33.333_f32, 10_000.0), (0.5_f32, 1.0)] {
            let u = usage_for_percent(f64::from(pct), limit);
            assert_eq!(u.percent_usage() as f32, pct, "{pct} of {limit}");
        }
    }
}
