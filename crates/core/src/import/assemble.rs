//! Assembly and cross-file validation: who owns which bundle (never two brokers), each namespace's
//! layout (exported, or inferred from bundle names, or guessed with a warning), `BundleData` for
//! every owned bundle (Pulsar's defaults when missing), time averages (recomputed when missing), and
//! references to brokers. Output order is canonical (sorted) so that a directory, a zip and a tar of
//! the same tree give the same snapshot.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use rustc_hash::{FxHashMap, FxHashSet};

use super::collect::{Collected, FxIndexMap, LayoutEntry, LayoutRank, Src, quoted};
use super::diag::{Diag, ImportError, Tally, WarningKind};
use super::fields::split_bundle;
use super::layout::{Inferred, has_bundle, infer};
use super::policies::format_boundaries;
use crate::model::{
    BrokerLoadData, BrokerSnapshot, BundleData, BundlesData, LocalBrokerData, NamespaceSnapshot,
    SNAPSHOT_FORMAT_VERSION, Snapshot, TimeAverageBrokerData,
};
use crate::naming::{BundleRange, default_boundaries};

/// Bundles per namespace assumed when nothing tells the layout (`defaultNumberOfNamespaceBundles`
/// of the 4.x profile, unless `broker.conf` says otherwise).
const DEFAULT_BUNDLES: u32 = 4;

/// Bundle ranges tagged with an index into the origins list.
type Ranges = Vec<(BundleRange, usize)>;

/// Where a bundle name was seen.
#[derive(Clone, Copy)]
enum Origin<'a> {
    /// In broker `broker`'s `lastStats` (`list == None`) or `bundles[list]`.
    Owned {
        broker: usize,
        key: &'a str,
        list: Option<usize>,
    },
    /// A stored `BundleData`.
    Data { key: &'a str },
    /// Entry `i` of broker `broker`'s `TopBundlesLoadData`.
    Top { broker: &'a str, i: usize },
}

struct Places<'a> {
    c: &'a Collected,
}

impl Places<'_> {
    /// (file, JSON path) of an origin.
    fn place(&self, o: Origin<'_>) -> (String, String) {
        match o {
            Origin::Owned { broker, key, list } => {
                let Some((_, e)) = self.c.brokers.get_index(broker) else {
                    return (String::new(), String::new());
                };
                let at = match list {
                    None => e.src.at(&format!(".lastStats{}", quoted(key))),
                    Some(i) => e.src.at(&format!(".bundles[{i}]")),
                };
                (e.src.file.to_string(), at)
            }
            Origin::Data { key } => match self.c.bundle_data.get(key) {
                Some(e) => (e.src.file.to_string(), e.src.at("")),
                None => (String::new(), String::new()),
            },
            Origin::Top { broker, i } => match self.c.top_bundles.get(broker) {
                Some((src, _)) => (
                    src.file.to_string(),
                    src.at(&format!(".topBundlesLoadData[{i}]")),
                ),
                None => (String::new(), String::new()),
            },
        }
    }

    fn name(&self, o: Origin<'_>) -> String {
        match o {
            Origin::Owned { key, .. } | Origin::Data { key } => key.to_string(),
            Origin::Top { broker, i } => self
                .c
                .top_bundles
                .get(broker)
                .and_then(|(_, t)| t.top_bundles_load_data.get(i))
                .map(|b| b.bundle_name.clone())
                .unwrap_or_default(),
        }
    }

    fn conflict(&self, a: Origin<'_>, b: Origin<'_>, message: String) -> ImportError {
        let (file, at) = self.place(a);
        let (other_file, other_at) = self.place(b);
        ImportError::Conflict {
            file,
            at,
            message,
            other_file,
            other_at,
        }
    }
}

pub(crate) fn assemble(mut c: Collected, diag: &mut Diag) -> Result<Snapshot, ImportError> {
    add_brokers_without_reports(&mut c, diag);
    warn_listed_without_report(&c, diag);
    c.brokers.sort_keys();
    let c = c;
    let places = Places { c: &c };
    let (mut origins, owned) = ownership(&c, &places)?;
    let (by_ns, data_base) = ranges_by_namespace(&c, &owned, &mut origins);
    let namespaces = namespace_names(&c, &by_ns);
    let (ns_out, stale) = namespace_layouts(&c, &namespaces, &by_ns, &origins, &places, diag)?;
    let bundle_data = bundle_data_of(
        &c,
        &namespaces,
        &owned,
        &origins,
        &places,
        &stale,
        data_base,
        diag,
    );
    let averages = time_averages(&c, &bundle_data, diag);
    check_broker_references(&c, diag);
    check_report_ages(&c, diag);
    let captured_at_ms = captured_at(&c, diag);
    Ok(into_snapshot(
        c,
        averages,
        bundle_data,
        ns_out,
        captured_at_ms,
    ))
}

/// Ranges of one namespace: (owned, seen elsewhere: stored data and top bundles).
type NamespaceRanges = (Ranges, Ranges);

/// An owned bundle: its origin (an index into the origins), namespace and range.
type Owned<'a> = (usize, &'a str, BundleRange);

/// Who owns which bundle: a bundle may be served by one broker only. Each owned bundle's origin
/// (an index into the returned origins), namespace and range.
fn ownership<'a>(
    c: &'a Collected,
    places: &Places<'_>,
) -> Result<(Vec<Origin<'a>>, Vec<Owned<'a>>), ImportError> {
    let mut origins: Vec<Origin<'a>> = Vec::new();
    let mut owner: FxHashMap<&'a str, usize> = FxHashMap::default();
    let mut owned: Vec<Owned<'a>> = Vec::new();
    for (bi, (_, e)) in c.brokers.iter().enumerate() {
        let listed = e.data.bundles.iter().enumerate().map(|(i, k)| (k, Some(i)));
        for (key, list) in e.data.last_stats.keys().map(|k| (k, None)).chain(listed) {
            if list.is_some() && e.data.last_stats.contains_key(key) {
                continue;
            }
            let here = Origin::Owned {
                broker: bi,
                key: key.as_str(),
                list,
            };
            if let Some(&prev) = owner.get(key.as_str()) {
                let Some(&Origin::Owned { broker: pb, .. }) = origins.get(prev) else {
                    continue;
                };
                if pb == bi {
                    continue;
                }
                let names = |i: usize| {
                    c.brokers
                        .get_index(i)
                        .map(|(n, _)| n.as_str())
                        .unwrap_or("")
                };
                let prev_origin = origins.get(prev).copied().unwrap_or(here);
                return Err(places.conflict(
                    here,
                    prev_origin,
                    format!(
                        "bundle {key} is owned by two brokers, `{}` and `{}`",
                        names(bi),
                        names(pb)
                    ),
                ));
            }
            let Some((ns, range)) = split_bundle(key) else {
                continue;
            };
            owner.insert(key.as_str(), origins.len());
            owned.push((origins.len(), ns, range));
            origins.push(here);
        }
    }
    Ok((origins, owned))
}

/// Every range seen, per namespace: owned first, then stored data and top bundles (their origins
/// appended). The origin of the i-th stored `BundleData` is the returned base + i.
fn ranges_by_namespace<'a>(
    c: &'a Collected,
    owned: &[Owned<'a>],
    origins: &mut Vec<Origin<'a>>,
) -> (FxIndexMap<&'a str, NamespaceRanges>, usize) {
    let mut by_ns: FxIndexMap<&'a str, NamespaceRanges> = FxIndexMap::default();
    for &(o, ns, r) in owned {
        by_ns.entry(ns).or_default().0.push((r, o));
    }
    let data_base = origins.len();
    for (key, e) in &c.bundle_data {
        let o = origins.len();
        origins.push(Origin::Data { key: key.as_str() });
        by_ns
            .entry(key.get(..e.namespace_len).unwrap_or(""))
            .or_default()
            .1
            .push((e.range, o));
    }
    for (broker, (_, top)) in &c.top_bundles {
        for (i, b) in top.top_bundles_load_data.iter().enumerate() {
            let Some((ns, range)) = split_bundle(&b.bundle_name) else {
                continue;
            };
            let o = origins.len();
            origins.push(Origin::Top {
                broker: broker.as_str(),
                i,
            });
            by_ns.entry(ns).or_default().1.push((range, o));
        }
    }
    (by_ns, data_base)
}

/// Every namespace the inputs name (bundles, layouts, topics, anti-affinity groups), sorted.
fn namespace_names<'a>(
    c: &'a Collected,
    by_ns: &FxIndexMap<&'a str, NamespaceRanges>,
) -> Vec<&'a str> {
    let mut namespaces: Vec<&'a str> = by_ns.keys().copied().collect();
    namespaces.extend(c.layouts.keys().map(String::as_str));
    namespaces.extend(c.topics.keys().map(String::as_str));
    namespaces.extend(c.anti_affinity.keys().map(String::as_str));
    namespaces.sort_unstable();
    namespaces.dedup();
    namespaces
}

/// Each namespace's layout (exported, inferred from bundle names, or guessed with a warning), and
/// the origins of bundles with data that the layout leaves out (stale after a split).
fn namespace_layouts(
    c: &Collected,
    namespaces: &[&str],
    by_ns: &FxIndexMap<&str, NamespaceRanges>,
    origins: &[Origin<'_>],
    places: &Places<'_>,
    diag: &mut Diag,
) -> Result<(IndexMap<String, NamespaceSnapshot>, FxHashSet<usize>), ImportError> {
    let default_n = c
        .conf
        .get("defaultNumberOfNamespaceBundles")
        .and_then(|(_, v)| v.trim().parse::<u32>().ok())
        .filter(|&n| n > 0 && n as usize <= super::policies::MAX_BUNDLES_PER_NAMESPACE)
        .unwrap_or(DEFAULT_BUNDLES);
    let mut stale: FxHashSet<usize> = FxHashSet::default();
    let mut stale_tally = Tally::new(
        WarningKind::StaleBundle,
        "bundles with data but not in their namespace's layout (stale after a split?) were dropped",
    );
    let mut inferred_tally = Tally::new(
        WarningKind::InferredLayout,
        "namespaces had no exported layout; boundaries inferred from bundle names that tile the range",
    );
    let empty = (Vec::new(), Vec::new());
    let mut ns_out: IndexMap<String, NamespaceSnapshot> = IndexMap::new();
    for &ns in namespaces {
        let (owned_r, other_r) = by_ns.get(ns).unwrap_or(&empty);
        let mut layout = choose_layout(ns, c.layouts.get(ns).map(Vec::as_slice), diag);
        if let Some(l) = layout
            && let Some(&(r, o)) = owned_r.iter().find(|(r, _)| !has_bundle(&l.boundaries, *r))
        {
            let o = origins
                .get(o)
                .copied()
                .ok_or_else(|| ImportError::Empty(String::new()))?;
            if l.rank == LayoutRank::Policies {
                diag.warn(
                    WarningKind::LayoutConflict,
                    &l.src.file,
                    Some(l.at.clone()),
                    format!(
                        "boundaries of {ns} in namespace policies (written at creation, stale \
                             after splits) do not match owned bundle {}/{r}; layout inferred from \
                             bundle names instead",
                        ns
                    ),
                );
                layout = None;
            } else {
                let (file, at) = places.place(o);
                return Err(ImportError::Conflict {
                    file,
                    at,
                    message: format!(
                        "bundle {} is not one of the {} bundles of {ns} (its ranges would \
                             overlap or leave holes)",
                        places.name(o),
                        l.boundaries.len().saturating_sub(1)
                    ),
                    other_file: l.src.file.to_string(),
                    other_at: l.at.clone(),
                });
            }
        }
        let boundaries = match layout {
            Some(l) => {
                for &(r, o) in other_r {
                    if !has_bundle(&l.boundaries, r) {
                        stale.insert(o);
                        if let Some(&og) = origins.get(o) {
                            let (file, _) = places.place(og);
                            stale_tally.add(&file, || places.name(og));
                        }
                    }
                }
                l.boundaries.clone()
            }
            None => infer_layout(
                ns,
                owned_r,
                other_r,
                origins,
                places,
                &mut stale,
                &mut stale_tally,
                &mut inferred_tally,
                default_n,
                diag,
            )?,
        };
        let num_bundles = i32::try_from(boundaries.len().saturating_sub(1)).unwrap_or(i32::MAX);
        ns_out.insert(
            ns.to_string(),
            NamespaceSnapshot {
                bundles: BundlesData {
                    boundaries: format_boundaries(&boundaries),
                    num_bundles,
                },
                anti_affinity_group: c.anti_affinity.get(ns).map(|(_, g)| g.clone()),
                topics: c.topics.get(ns).map(|t| t.iter().cloned().collect()),
            },
        );
    }
    stale_tally.emit(diag);
    inferred_tally.emit(diag);
    Ok((ns_out, stale))
}

/// `BundleData`: stored data (minus stale), plus Pulsar's defaults for owned bundles without any,
/// in (namespace, lower bound) order; namespaces are ranked once rather than compared per bundle.
#[allow(clippy::too_many_arguments)]
fn bundle_data_of(
    c: &Collected,
    namespaces: &[&str],
    owned: &[Owned<'_>],
    origins: &[Origin<'_>],
    places: &Places<'_>,
    stale: &FxHashSet<usize>,
    data_base: usize,
    diag: &mut Diag,
) -> IndexMap<String, BundleData> {
    let ns_rank: FxHashMap<&str, usize> = namespaces
        .iter()
        .enumerate()
        .map(|(i, &n)| (n, i))
        .collect();
    let rank = |ns: &str| ns_rank.get(ns).copied().unwrap_or(usize::MAX);
    let mut data: Vec<(usize, u32, &str, BundleData)> = Vec::with_capacity(c.bundle_data.len());
    for (i, (key, e)) in c.bundle_data.iter().enumerate() {
        if !stale.contains(&(data_base + i)) {
            let ns = key.get(..e.namespace_len).unwrap_or("");
            data.push((rank(ns), e.range.lo, key.as_str(), e.data));
        }
    }
    let mut default_tally = Tally::new(
        WarningKind::DefaultBundleData,
        "owned bundles have no BundleData; Pulsar's defaults used (50 msg/s and 50000 B/s each way)",
    );
    for &(o, ns, r) in owned {
        let Some(&og @ Origin::Owned { key, .. }) = origins.get(o) else {
            continue;
        };
        if !c.bundle_data.contains_key(key) {
            let (file, _) = places.place(og);
            default_tally.add(&file, || key.to_string());
            data.push((rank(ns), r.lo, key, BundleData::pulsar_default()));
        }
    }
    default_tally.emit(diag);
    data.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut bundle_data: IndexMap<String, BundleData> = IndexMap::with_capacity(data.len());
    for (_, _, key, d) in data {
        bundle_data.insert(key.to_string(), d);
    }
    bundle_data
}

/// Each broker's time averages, recomputed from its bundles' data where the inputs have none.
fn time_averages(
    c: &Collected,
    bundle_data: &IndexMap<String, BundleData>,
    diag: &mut Diag,
) -> Vec<TimeAverageBrokerData> {
    let mut recomputed = Tally::new(
        WarningKind::RecomputedTimeAverage,
        "brokers have no TimeAverageBrokerData; recomputed from their bundles' BundleData",
    );
    let mut averages: Vec<TimeAverageBrokerData> = Vec::with_capacity(c.brokers.len());
    for (name, e) in &c.brokers {
        averages.push(match c.time_averages.get(name) {
            Some((_, t)) => *t,
            None => {
                // The extensible load manager keeps no time averages: nothing to say about a
                // broker known only from its BrokerLoadData.
                if !c.load_data.contains_key(name) || !e.data.bundles.is_empty() {
                    recomputed.add(&e.src.file, || name.clone());
                }
                TimeAverageBrokerData::from_bundles(
                    e.data.last_stats.keys().map(String::as_str),
                    bundle_data,
                )
            }
        });
    }
    recomputed.emit(diag);
    for (name, (src, _)) in &c.time_averages {
        if !c.brokers.contains_key(name) {
            diag.warn(
                WarningKind::OrphanBrokerData,
                &src.file,
                None,
                format!("TimeAverageBrokerData of `{name}`, which has no load report (dead broker?); dropped"),
            );
        }
    }
    averages
}

/// The capture instant: the inputs', else the newest report's (with a warning).
fn captured_at(c: &Collected, diag: &mut Diag) -> Option<i64> {
    c.captured_at_ms.or_else(|| {
        let newest = c
            .brokers
            .values()
            .map(|e| e.data.last_update)
            .chain(c.load_data.values().map(|(_, d)| d.updated_at))
            .max()
            .filter(|&t| t > 0)?;
        diag.warn(
            WarningKind::CapturedAt,
            "(import)",
            None,
            format!("captured_at_ms taken as the newest report time, {newest}"),
        );
        Some(newest)
    })
}

/// Everything is checked: the collected data moves into the snapshot (no copies).
fn into_snapshot(
    c: Collected,
    averages: Vec<TimeAverageBrokerData>,
    bundle_data: IndexMap<String, BundleData>,
    ns_out: IndexMap<String, NamespaceSnapshot>,
    captured_at_ms: Option<i64>,
) -> Snapshot {
    let Collected {
        brokers: collected_brokers,
        mut load_data,
        mut top_bundles,
        conf,
        cluster,
        leader,
        failure_domains,
        isolation,
        recently_unloaded,
        ..
    } = c;
    let mut brokers: IndexMap<String, BrokerSnapshot> =
        IndexMap::with_capacity(collected_brokers.len());
    for ((name, e), time_average) in collected_brokers.into_iter().zip(averages) {
        let broker_load_data = load_data.swap_remove(&name).map(|(_, d)| d);
        let top_bundles_load_data = top_bundles.swap_remove(&name).map(|(_, d)| d);
        brokers.insert(
            name,
            BrokerSnapshot {
                local_broker_data: e.data,
                time_average_broker_data: Some(time_average),
                broker_load_data,
                top_bundles_load_data,
            },
        );
    }

    Snapshot {
        format_version: SNAPSHOT_FORMAT_VERSION,
        cluster: cluster.map(|(_, n)| n),
        captured_at_ms,
        leader_broker: leader.map(|(_, n)| n),
        broker_conf: conf.into_iter().map(|(k, (_, v))| (k, v)).collect(),
        brokers,
        bundle_data,
        namespaces: ns_out,
        failure_domains: failure_domains
            .into_iter()
            .map(|(k, (_, b))| (k, b))
            .collect(),
        namespace_isolation_policies: isolation.into_iter().map(|(k, (_, p))| (k, p)).collect(),
        recently_unloaded_bundles: recently_unloaded,
    }
}

/// Brokers known only from extensible data: a broker of the extensible load manager serves no
/// `LocalBrokerData` (§9.4), so its report is derived from its `BrokerLoadData` (the same five
/// resources, rates, throughputs, `bundleCount` as `numBundles`, `topics` as `numTopics`,
/// `updatedAt` as `lastUpdate`) and says it runs `ExtensibleLoadManagerImpl`. A broker with only
/// `TopBundlesLoadData` gets an empty report. Either way with a warning.
fn add_brokers_without_reports(c: &mut Collected, diag: &mut Diag) {
    let mut missing: Vec<(String, Src)> = Vec::new();
    for (name, (src, _)) in &c.load_data {
        if !c.brokers.contains_key(name) && !missing.iter().any(|(n, _)| n == name) {
            missing.push((name.clone(), src.clone()));
        }
    }
    for (name, (src, _)) in &c.top_bundles {
        if !c.brokers.contains_key(name) && !missing.iter().any(|(n, _)| n == name) {
            missing.push((name.clone(), src.clone()));
        }
    }
    let mut derived = Tally::new(
        WarningKind::OrphanBrokerData,
        "brokers known only from their extensible BrokerLoadData (no load report or \
         registration): usage, rates and bundle counts taken from it",
    );
    for (name, src) in missing {
        let data = match c.load_data.get(&name) {
            Some((_, d)) => {
                derived.add(&src.file, || name.clone());
                local_from_load_data(d)
            }
            None => {
                diag.warn(
                    WarningKind::OrphanBrokerData,
                    &src.file,
                    None,
                    format!(
                        "no load report, registration or BrokerLoadData for broker `{name}`; \
                         added with an empty LocalBrokerData (its TopBundlesLoadData is kept)"
                    ),
                );
                LocalBrokerData::default()
            }
        };
        c.brokers
            .insert(name, super::collect::BrokerEntry { src, data });
    }
    derived.emit(diag);
}

/// Brokers that `pulsar-admin brokers list` names but no load report covers: they are not in the
/// snapshot, so say which export would bring each in.
fn warn_listed_without_report(c: &Collected, diag: &mut Diag) {
    for (name, src) in &c.listed_brokers {
        if c.brokers.contains_key(name) {
            continue;
        }
        diag.warn(
            WarningKind::MissingReport,
            &src.file,
            Some(src.at("")),
            format!(
                "broker `{name}` is listed (`pulsar-admin brokers list`) but has no load report, \
                 so it is not in the snapshot: export `pulsar-admin broker-stats load-report` on \
                 {name}, or the metadata-store node /loadbalance/brokers/{name}"
            ),
        );
    }
}

/// Reports captured far apart do not describe one instant: warn when the brokers' `lastUpdate`
/// times differ by more than three reporting intervals (`loadBalancerReportUpdateMaxIntervalMinutes`,
/// Pulsar's longest wait between two reports of a broker), naming the oldest.
fn check_report_ages(c: &Collected, diag: &mut Diag) {
    const INTERVALS: i64 = 3;
    let minutes = c
        .conf
        .get("loadBalancerReportUpdateMaxIntervalMinutes")
        .and_then(|(_, v)| v.trim().parse::<i64>().ok())
        .filter(|&m| m > 0)
        .unwrap_or(15);
    let limit_ms = minutes.saturating_mul(INTERVALS).saturating_mul(60_000);
    let dated = c.brokers.iter().filter(|(_, e)| e.data.last_update > 0);
    let (Some(oldest), Some(newest)) = (
        dated.clone().min_by_key(|(_, e)| e.data.last_update),
        dated.max_by_key(|(_, e)| e.data.last_update),
    ) else {
        return;
    };
    let gap = newest
        .1
        .data
        .last_update
        .saturating_sub(oldest.1.data.last_update);
    if gap > limit_ms {
        diag.warn(
            WarningKind::ReportsApart,
            &oldest.1.src.file,
            Some(oldest.1.src.at(".lastUpdate")),
            format!(
                "load reports were captured {} min apart (over {INTERVALS} reporting intervals of \
                 {minutes} min): the oldest is broker `{}` ({}), the newest `{}` ({}); the \
                 snapshot mixes moments, so export the reports again together",
                gap / 60_000,
                oldest.0,
                oldest.1.data.last_update,
                newest.0,
                newest.1.data.last_update
            ),
        );
    }
}

/// The highest-ranked layout (the first of equals), warning about any source that disagrees.
fn choose_layout<'a>(
    ns: &str,
    entries: Option<&'a [LayoutEntry]>,
    diag: &mut Diag,
) -> Option<&'a LayoutEntry> {
    let entries = entries?;
    let best = entries.iter().rev().max_by_key(|e| e.rank)?;
    for e in entries {
        if !std::ptr::eq(e, best) && e.boundaries != best.boundaries {
            diag.warn(
                WarningKind::LayoutConflict,
                &e.src.file,
                Some(e.at.clone()),
                format!(
                    "boundaries of {ns} differ from those in {} ({}), which are kept",
                    best.src.file, best.at
                ),
            );
        }
    }
    Some(best)
}

/// A layout from the bundle names alone: owned ranges must not overlap (error); other ranges that
/// overlap owned ones are stale (dropped); holes are filled with one bundle each (warning).
#[allow(clippy::too_many_arguments)]
fn infer_layout(
    ns: &str,
    owned: &[(BundleRange, usize)],
    other: &[(BundleRange, usize)],
    origins: &[Origin<'_>],
    places: &Places<'_>,
    stale: &mut FxHashSet<usize>,
    stale_tally: &mut Tally,
    inferred_tally: &mut Tally,
    default_n: u32,
    diag: &mut Diag,
) -> Result<Vec<u32>, ImportError> {
    if owned.is_empty() && other.is_empty() {
        diag.warn(
            WarningKind::GuessedLayout,
            "(import)",
            None,
            format!(
                "namespace {ns} has no layout and no bundles; assumed the default {default_n} \
                 bundles (defaultNumberOfNamespaceBundles)"
            ),
        );
        return Ok(default_boundaries(default_n).unwrap_or_else(|| vec![0, u32::MAX]));
    }
    // lo → (hi, origin) of accepted ranges, checked for overlap as they are added.
    let mut accepted: BTreeMap<u32, (u32, usize)> = BTreeMap::new();
    let overlapping = |acc: &BTreeMap<u32, (u32, usize)>, r: BundleRange| -> Option<usize> {
        if let Some((&lo, &(hi, o))) = acc.range(..=r.lo).next_back()
            && hi > r.lo
            && !(lo == r.lo && hi == r.hi)
        {
            return Some(o);
        }
        if let Some((&lo, &(_, o))) = acc.range(r.lo.saturating_add(1)..).next()
            && lo < r.hi
        {
            return Some(o);
        }
        None
    };
    let mut sorted_owned: Vec<(BundleRange, usize)> = owned.to_vec();
    sorted_owned.sort_unstable();
    for &(r, o) in &sorted_owned {
        if let Some(prev) = overlapping(&accepted, r) {
            let (Some(&a), Some(&b)) = (origins.get(o), origins.get(prev)) else {
                continue;
            };
            return Err(places.conflict(
                a,
                b,
                format!(
                    "bundle {} overlaps bundle {}",
                    places.name(a),
                    places.name(b)
                ),
            ));
        }
        accepted.entry(r.lo).or_insert((r.hi, o));
    }
    for &(r, o) in other {
        if overlapping(&accepted, r).is_some() {
            stale.insert(o);
            if let Some(&og) = origins.get(o) {
                let (file, _) = places.place(og);
                stale_tally.add(&file, || places.name(og));
            }
        } else {
            accepted.entry(r.lo).or_insert((r.hi, o));
        }
    }
    let mut ranges: Vec<(BundleRange, usize)> = accepted
        .iter()
        .map(|(&lo, &(hi, o))| (BundleRange { lo, hi }, o))
        .collect();
    let first_file = ranges
        .first()
        .and_then(|(_, o)| origins.get(*o))
        .map(|&o| places.place(o).0)
        .unwrap_or_default();
    match infer(&mut ranges) {
        Ok(Inferred::Tiles(b)) => {
            inferred_tally.add(&first_file, || ns.to_string());
            Ok(b)
        }
        Ok(Inferred::Holes { boundaries, holes }) => {
            let shown: Vec<String> = holes.iter().take(3).map(ToString::to_string).collect();
            diag.warn(
                WarningKind::GuessedLayout,
                &first_file,
                None,
                format!(
                    "namespace {ns} has no exported layout and its bundles leave {} hole(s) ({}{}); \
                     each hole taken as one bundle — export admin/local-policies/{ns} for the real \
                     layout",
                    holes.len(),
                    shown.join(", "),
                    if holes.len() > 3 { ", …" } else { "" }
                ),
            );
            Ok(boundaries)
        }
        Err((a, b)) => {
            let (Some(&a), Some(&b)) = (origins.get(a), origins.get(b)) else {
                return Err(ImportError::Empty(format!("internal: bad origin in {ns}")));
            };
            Err(places.conflict(
                a,
                b,
                format!(
                    "bundle {} overlaps bundle {}",
                    places.name(a),
                    places.name(b)
                ),
            ))
        }
    }
}

/// The leader and failure-domain members should be live brokers.
fn check_broker_references(c: &Collected, diag: &mut Diag) {
    if let Some((src, leader)) = &c.leader
        && !c.brokers.contains_key(leader)
    {
        diag.warn(
            WarningKind::UnknownBroker,
            &src.file,
            src.base.clone(),
            format!("leader `{leader}` is not among the imported brokers"),
        );
    }
    for (domain, (src, members)) in &c.failure_domains {
        for b in members {
            if !c.brokers.contains_key(b) {
                diag.warn(
                    WarningKind::UnknownBroker,
                    &src.file,
                    src.base.clone(),
                    format!("failure domain `{domain}` lists `{b}`, which is not among the imported brokers"),
                );
            }
        }
    }
}

/// The `LocalBrokerData` a broker of the extensible load manager would report, from its
/// `BrokerLoadData` (field for field; `bundleCount` → `numBundles`, `topics` → `numTopics`).
fn local_from_load_data(d: &BrokerLoadData) -> LocalBrokerData {
    LocalBrokerData {
        cpu: d.cpu,
        memory: d.memory,
        direct_memory: d.direct_memory,
        bandwidth_in: d.bandwidth_in,
        bandwidth_out: d.bandwidth_out,
        msg_throughput_in: d.msg_throughput_in,
        msg_throughput_out: d.msg_throughput_out,
        msg_rate_in: d.msg_rate_in,
        msg_rate_out: d.msg_rate_out,
        last_update: d.updated_at,
        num_topics: i64::from(d.topics),
        num_bundles: i64::from(d.bundle_count),
        load_manager_class_name: Some(crate::config::EXTENSIBLE_LOAD_MANAGER.to_string()),
        ..LocalBrokerData::default()
    }
}
