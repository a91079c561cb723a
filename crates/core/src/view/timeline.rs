//! The History view's geometry: for each namespace, a time × hash-range map of *cells* (one bundle
//! range owned by one broker at one load level over a run of consecutive snapshots), built one
//! snapshot at a time. A bundle that stays put at the same load level is one cell however long the
//! series (the level of detail: adjacent identical cells are merged), a bundle bouncing between
//! brokers is a run of short cells of alternating owners (a striped band), a split ends the
//! parent's cell where its children's start (a band that divides). Also the pixel rectangle of a
//! cell and the owners of a namespace at any instant (the view's slider). The web only draws.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::history::HistoryReport;
use crate::history::diff::owners;
use crate::history::render::change_text;
use crate::model::Snapshot;
use crate::naming::BundleRange;
use crate::view::sim_chart::{Chart, usage_lines_chart};

/// Load shading levels: a cell's load is its bundle's throughput (in + out, the owner's report)
/// over the busiest bundle's at that snapshot, rounded up to quarters so that small changes do
/// not break a cell (0 only for a bundle without traffic).
pub const SHADE_LEVELS: u8 = 4;

/// One bundle range, one owner, one load level, snapshots `from..to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// First snapshot (index into `times_ms`).
    pub from: u32,
    /// One past the last snapshot.
    pub to: u32,
    /// The range `[lo, hi)` (`hi == 0xffffffff` includes it, as Pulsar's bundle ranges).
    pub lo: u32,
    pub hi: u32,
    /// Index into [`Timeline::brokers`].
    pub owner: u32,
    /// 0..=[`SHADE_LEVELS`].
    pub shade: u8,
}

impl Cell {
    /// The load share `shade / SHADE_LEVELS`, for `palette::shade`.
    pub fn load_share(&self) -> f32 {
        f32::from(self.shade) / f32::from(SHADE_LEVELS)
    }
}

/// One namespace's cells, ordered by first snapshot, then range.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Lane {
    pub namespace: String,
    pub cells: Vec<Cell>,
}

/// Every namespace's map over the series.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Capture time of each snapshot.
    pub times_ms: Vec<i64>,
    /// Owners, in first-seen order (a cell's `owner` indexes this).
    pub brokers: Vec<String>,
    /// Namespaces by name.
    pub lanes: Vec<Lane>,
}

/// A pixel rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

fn range_end(hi: u32) -> f64 {
    if hi == u32::MAX {
        4_294_967_296.0
    } else {
        f64::from(hi)
    }
}

impl Timeline {
    /// Time edges of the snapshots, relative to the first: snapshot `i` covers
    /// `edges[i]..edges[i + 1]`; the last one lasts as long as the interval before it (a minute
    /// when there is a single snapshot).
    pub fn edges_ms(&self) -> Vec<f64> {
        let Some(&t0) = self.times_ms.first() else {
            return Vec::new();
        };
        let mut edges: Vec<f64> = self.times_ms.iter().map(|t| (t - t0) as f64).collect();
        let last_len = match self.times_ms.as_slice() {
            [.., a, b] => (b - a) as f64,
            _ => 60_000.0,
        };
        let end = edges.last().copied().unwrap_or(0.0) + last_len.max(1.0);
        edges.push(end);
        edges
    }

    /// `cell` in a `width` × `height` map (x = time, y = hash range, 0 at the top), given
    /// [`Self::edges_ms`].
    pub fn rect(edges: &[f64], cell: &Cell, width: f64, height: f64) -> Rect {
        let total = edges.last().copied().unwrap_or(1.0).max(1.0);
        let at = |i: u32| edges.get(i as usize).copied().unwrap_or(total) / total * width;
        let x = at(cell.from);
        let y = f64::from(cell.lo) / 4_294_967_296.0 * height;
        Rect {
            x,
            y,
            w: at(cell.to) - x,
            h: range_end(cell.hi) / 4_294_967_296.0 * height - y,
        }
    }

    /// The snapshot shown at `x` pixels of a `width`-wide map (the last one at or before it).
    pub fn step_at(edges: &[f64], x: f64, width: f64) -> usize {
        let total = edges.last().copied().unwrap_or(1.0);
        let t = x / width.max(1.0) * total;
        let n = edges.len().saturating_sub(1);
        edges.iter().take(n).rposition(|e| *e <= t).unwrap_or(0)
    }

    /// The cells of `lane` live at snapshot `step`, by range.
    pub fn cells_at(lane: &Lane, step: usize) -> Vec<Cell> {
        let mut out: Vec<Cell> = lane
            .cells
            .iter()
            .filter(|c| (c.from as usize) <= step && step < c.to as usize)
            .copied()
            .collect();
        out.sort_by_key(|c| c.lo);
        out
    }

    /// Owners of `lane` at `step`: (broker, bundles), most bundles first, then by name.
    pub fn owners_at(&self, lane: &Lane, step: usize) -> Vec<(String, usize)> {
        let mut counts: IndexMap<u32, usize> = IndexMap::new();
        for c in Self::cells_at(lane, step) {
            *counts.entry(c.owner).or_default() += 1;
        }
        let mut out: Vec<(String, usize)> = counts
            .into_iter()
            .map(|(o, n)| {
                let name = self.brokers.get(o as usize).cloned().unwrap_or_default();
                (name, n)
            })
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// Cells over all lanes (the size of what the view draws).
    pub fn cell_count(&self) -> usize {
        self.lanes.iter().map(|l| l.cells.len()).sum()
    }

    /// Lane indices in the order the History view lists them: the namespaces where something
    /// happened first (most bundles changing owner, splitting or appearing), then the quiet ones
    /// by name, brokers' own heartbeat and SLA-monitor namespaces last. At 1,000 brokers those
    /// are 1,000 lanes the leader never moves; listed by name they would bury the few that
    /// changed.
    pub fn lanes_by_activity(&self) -> Vec<usize> {
        let mut keyed: Vec<(bool, std::cmp::Reverse<usize>, &str, usize)> = self
            .lanes
            .iter()
            .enumerate()
            .map(|(i, lane)| {
                let system = crate::naming::is_sla_or_heartbeat_namespace(&lane.namespace);
                (
                    system,
                    std::cmp::Reverse(lane_events(lane)),
                    lane.namespace.as_str(),
                    i,
                )
            })
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|(.., i)| i).collect()
    }
}

/// How often a lane's bundles changed: a range whose owner differs from the same range's cell
/// just before it, or a range that first shows after the first snapshot (a split's child, a new
/// namespace's bundle). A change of shade alone is not an event.
fn lane_events(lane: &Lane) -> usize {
    let mut last: HashMap<(u32, u32), (u32, u32)> = HashMap::with_capacity(lane.cells.len());
    let mut events = 0;
    for c in &lane.cells {
        match last.insert((c.lo, c.hi), (c.to, c.owner)) {
            Some((to, owner)) if to == c.from && owner != c.owner => events += 1,
            Some(_) => {}
            None if c.from > 0 => events += 1,
            None => {}
        }
    }
    events
}

/// What a cell is while it may still grow: its owner and shade, and where it started.
#[derive(Clone, Copy)]
struct Open {
    from: u32,
    owner: u32,
    shade: u8,
    /// The last snapshot it was seen in.
    seen: u32,
}

/// Builds a [`Timeline`] from snapshots pushed in time order.
#[derive(Default)]
pub struct TimelineBuilder {
    times_ms: Vec<i64>,
    brokers: IndexMap<String, ()>,
    namespaces: IndexMap<String, Vec<Cell>>,
    /// (namespace index, lo, hi) → the open cell.
    open: HashMap<(u32, u32, u32), Open>,
}

fn shade_of(throughput: f64, max: f64) -> u8 {
    if max <= 0.0 || throughput <= 0.0 || !throughput.is_finite() {
        return 0;
    }
    let levels = f64::from(SHADE_LEVELS);
    let level = libm::ceil(throughput / max * levels).clamp(1.0, levels);
    level as u8
}

impl TimelineBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next snapshot (owners from the brokers' reports, as the history's diff reads them).
    pub fn push(&mut self, snapshot: &Snapshot) {
        let step = u32::try_from(self.times_ms.len()).unwrap_or(u32::MAX);
        self.times_ms.push(snapshot.captured_at_ms.unwrap_or(0));
        let owned = owners(snapshot);
        let throughput = |bundle: &str, owner: &str| {
            snapshot
                .brokers
                .get(owner)
                .and_then(|b| b.local_broker_data.last_stats.get(bundle))
                .map_or(0.0, |s| s.msg_throughput_in + s.msg_throughput_out)
        };
        let max = owned
            .iter()
            .map(|(b, o)| throughput(b, o))
            .fold(0.0_f64, f64::max);
        for (bundle, owner) in &owned {
            let Some((ns, range)) = crate::naming::BundleName::parts(bundle) else {
                continue;
            };
            let Ok(range) = BundleRange::parse(range) else {
                continue;
            };
            let ns_index = match self.namespaces.get_index_of(ns) {
                Some(i) => i,
                None => self.namespaces.insert_full(ns.to_string(), Vec::new()).0,
            };
            let ns_index = u32::try_from(ns_index).unwrap_or(u32::MAX);
            let owner_index = match self.brokers.get_index_of(*owner) {
                Some(i) => i,
                None => self.brokers.insert_full(owner.to_string(), ()).0,
            };
            let owner_index = u32::try_from(owner_index).unwrap_or(u32::MAX);
            let shade = shade_of(throughput(bundle, owner), max);
            let key = (ns_index, range.lo, range.hi);
            match self.open.get_mut(&key) {
                Some(o) if o.owner == owner_index && o.shade == shade && o.seen + 1 == step => {
                    o.seen = step;
                }
                _ => {
                    let fresh = Open {
                        from: step,
                        owner: owner_index,
                        shade,
                        seen: step,
                    };
                    if let Some(old) = self.open.insert(key, fresh) {
                        self.close(key, old);
                    }
                }
            }
        }
        // Ranges not seen in this snapshot (moved away, split, unowned) end where they were last.
        let gone: Vec<(u32, u32, u32)> = self
            .open
            .iter()
            .filter(|(_, o)| o.seen != step)
            .map(|(k, _)| *k)
            .collect();
        for key in gone {
            if let Some(old) = self.open.remove(&key) {
                self.close(key, old);
            }
        }
    }

    fn close(&mut self, (ns, lo, hi): (u32, u32, u32), o: Open) {
        if let Some((_, cells)) = self.namespaces.get_index_mut(ns as usize) {
            cells.push(Cell {
                from: o.from,
                to: o.seen + 1,
                lo,
                hi,
                owner: o.owner,
                shade: o.shade,
            });
        }
    }

    /// Forgets the snapshots captured before `cutoff_ms` (always keeping the latest), as
    /// `history::Explainer::forget_before` does for the report: cells that end before what is
    /// kept are dropped, the others start at the first kept snapshot at the latest, and steps are
    /// renumbered from 0. The timeline then has the cells a build from the kept snapshots would
    /// have (a live history's window, `watch::live`). Returns how many snapshots were forgotten.
    pub fn forget_before(&mut self, cutoff_ms: i64) -> usize {
        let keep_from = self.times_ms.len().saturating_sub(1);
        let k = self
            .times_ms
            .iter()
            .take(keep_from)
            .take_while(|t| **t < cutoff_ms)
            .count();
        if k == 0 {
            return 0;
        }
        self.times_ms.drain(..k);
        let k32 = u32::try_from(k).unwrap_or(u32::MAX);
        for cells in self.namespaces.values_mut() {
            cells.retain(|c| c.to > k32);
            for c in cells.iter_mut() {
                c.from = c.from.saturating_sub(k32);
                c.to = c.to.saturating_sub(k32);
            }
        }
        for o in self.open.values_mut() {
            o.from = o.from.saturating_sub(k32);
            o.seen = o.seen.saturating_sub(k32);
        }
        k
    }

    /// The timeline of the snapshots pushed (and kept) so far, while the builder goes on; only
    /// the brokers that own a cell are named.
    pub fn current(&self) -> Timeline {
        let mut t = Self {
            times_ms: self.times_ms.clone(),
            brokers: self.brokers.clone(),
            namespaces: self.namespaces.clone(),
            open: self.open.clone(),
        }
        .finish();
        // A namespace whose bundles are all forgotten has no lane.
        t.lanes.retain(|l| !l.cells.is_empty());
        let mut used = vec![false; t.brokers.len()];
        for c in t.lanes.iter().flat_map(|l| &l.cells) {
            if let Some(u) = used.get_mut(c.owner as usize) {
                *u = true;
            }
        }
        if used.iter().all(|u| *u) {
            return t;
        }
        let mut renumber = vec![0u32; used.len()];
        let mut brokers = Vec::new();
        for ((name, u), r) in t.brokers.into_iter().zip(&used).zip(renumber.iter_mut()) {
            if *u {
                *r = u32::try_from(brokers.len()).unwrap_or(u32::MAX);
                brokers.push(name);
            }
        }
        for c in t.lanes.iter_mut().flat_map(|l| l.cells.iter_mut()) {
            c.owner = renumber.get(c.owner as usize).copied().unwrap_or(0);
        }
        t.brokers = brokers;
        t
    }

    pub fn finish(mut self) -> Timeline {
        let open: Vec<((u32, u32, u32), Open)> = self.open.drain().collect();
        for (key, o) in open {
            self.close(key, o);
        }
        let mut lanes: Vec<Lane> = self
            .namespaces
            .into_iter()
            .map(|(namespace, mut cells)| {
                cells.sort_by_key(|c| (c.from, c.lo, c.hi));
                Lane { namespace, cells }
            })
            .collect();
        lanes.sort_by(|a, b| a.namespace.cmp(&b.namespace));
        Timeline {
            times_ms: self.times_ms,
            brokers: self.brokers.into_keys().collect(),
            lanes,
        }
    }
}

/// Each broker's load over the series (`HistoryReport::broker_load`) as the chart the simulation's
/// per-broker usage uses (x = snapshot index), brokers by name.
pub fn broker_load_chart(report: &HistoryReport) -> Chart {
    let mut lines: Vec<(String, Vec<f64>)> = report
        .broker_load
        .iter()
        .map(|(b, v)| (b.clone(), v.iter().map(|u| u.unwrap_or(f64::NAN)).collect()))
        .collect();
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    usage_lines_chart("Weighted max usage per broker over the series", lines)
}

/// One row of the History view's change list.
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeRow {
    /// Index into `HistoryReport::changes` (a click shows that change's full reason).
    pub index: usize,
    /// Minutes from the first snapshot to the one where the change is first seen.
    pub minute: f64,
    pub text: String,
    /// `Cause::name`.
    pub cause: &'static str,
}

/// The rows of page `page` (`per_page` rows each) of the changes whose cause is `cause` (all when
/// `None`), and how many changes match.
pub fn change_page(
    report: &HistoryReport,
    cause: Option<&str>,
    page: usize,
    per_page: usize,
) -> (Vec<ChangeRow>, usize) {
    let t0 = report.times_ms.first().copied().unwrap_or(0);
    let matching = report
        .changes
        .iter()
        .enumerate()
        .filter(|(_, c)| cause.is_none_or(|want| c.cause.name() == want));
    let total = matching.clone().count();
    let rows = matching
        .skip(page.saturating_mul(per_page))
        .take(per_page)
        .map(|(index, c)| ChangeRow {
            index,
            minute: (c.at_ms - t0) as f64 / 60_000.0,
            text: change_text(&c.change),
            cause: c.cause.name(),
        })
        .collect();
    (rows, total)
}

/// The timeline of `snapshots` (in time order).
pub fn timeline<'a>(snapshots: impl IntoIterator<Item = &'a Snapshot>) -> Timeline {
    let mut b = TimelineBuilder::new();
    for s in snapshots {
        b.push(s);
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, NamespaceBundleStats};

    const LEFT: &str = "t/ns/0x00000000_0x80000000";
    const RIGHT: &str = "t/ns/0x80000000_0xffffffff";
    const RIGHT_LO: &str = "t/ns/0x80000000_0xc0000000";
    const RIGHT_HI: &str = "t/ns/0xc0000000_0xffffffff";

    /// A snapshot at minute `minute` where each broker reports its bundles with throughputs
    /// (in bytes/s; out is 0).
    fn snap(minute: i64, owned: &[(&str, &[(&str, f64)])]) -> Snapshot {
        let mut s = Snapshot {
            captured_at_ms: Some(minute * 60_000),
            ..Snapshot::default()
        };
        for (broker, bundles) in owned {
            let mut b = BrokerSnapshot::default();
            for (name, tp) in *bundles {
                b.local_broker_data.bundles.push((*name).to_string());
                b.local_broker_data.last_stats.insert(
                    (*name).to_string(),
                    NamespaceBundleStats {
                        msg_throughput_in: *tp,
                        ..NamespaceBundleStats::default()
                    },
                );
            }
            s.brokers.insert((*broker).to_string(), b);
        }
        s
    }

    /// Minute 0: LEFT on A (100 B/s), RIGHT on B (40). Minute 1: LEFT moved to B, same loads.
    /// Minute 2: RIGHT split on B into RIGHT_LO (30) and RIGHT_HI (10), LEFT still 100.
    fn three() -> Timeline {
        timeline(&[
            snap(0, &[("A", &[(LEFT, 100.0)]), ("B", &[(RIGHT, 40.0)])]),
            snap(1, &[("A", &[]), ("B", &[(LEFT, 100.0), (RIGHT, 40.0)])]),
            snap(
                2,
                &[
                    ("A", &[]),
                    ("B", &[(LEFT, 100.0), (RIGHT_LO, 30.0), (RIGHT_HI, 10.0)]),
                ],
            ),
        ])
    }

    #[test]
    fn a_move_ends_a_cell_a_split_divides_the_band_and_steady_bundles_merge() {
        let t = three();
        assert_eq!(t.times_ms, vec![0, 60_000, 120_000]);
        assert_eq!(t.brokers, vec!["A".to_string(), "B".to_string()]);
        assert_eq!(t.lanes.len(), 1);
        let lane = &t.lanes[0];
        assert_eq!(lane.namespace, "t/ns");
        // Shades: max 100 at every snapshot; 40/100 → ceil(1.6) = 2; 30/100 → 2; 10/100 → 1.
        let cell = |from, to, lo, hi, owner, shade| Cell {
            from,
            to,
            lo,
            hi,
            owner,
            shade,
        };
        assert_eq!(
            lane.cells,
            vec![
                cell(0, 1, 0, 0x8000_0000, 0, 4),
                cell(0, 2, 0x8000_0000, 0xffff_ffff, 1, 2),
                cell(1, 3, 0, 0x8000_0000, 1, 4),
                cell(2, 3, 0x8000_0000, 0xc000_0000, 1, 2),
                cell(2, 3, 0xc000_0000, 0xffff_ffff, 1, 1),
            ]
        );
    }

    #[test]
    fn rectangles_map_time_to_x_and_the_hash_range_to_y() {
        let t = three();
        // Three one-minute snapshots, the last lasting a minute: 3 minutes over 300 px.
        let edges = t.edges_ms();
        assert_eq!(edges, vec![0.0, 60_000.0, 120_000.0, 180_000.0]);
        let lane = &t.lanes[0];
        // LEFT on B from minute 1 to the end: x 100..300, the top half of a 200 px map.
        assert_eq!(
            Timeline::rect(&edges, &lane.cells[2], 300.0, 200.0),
            Rect {
                x: 100.0,
                y: 0.0,
                w: 200.0,
                h: 100.0
            }
        );
        // RIGHT_HI (0xc0000000 to the end, included): the bottom quarter in the last minute.
        assert_eq!(
            Timeline::rect(&edges, &lane.cells[4], 300.0, 200.0),
            Rect {
                x: 200.0,
                y: 150.0,
                w: 100.0,
                h: 50.0
            }
        );
        assert_eq!(Timeline::step_at(&edges, 0.0, 300.0), 0);
        assert_eq!(Timeline::step_at(&edges, 150.0, 300.0), 1);
        assert_eq!(Timeline::step_at(&edges, 299.0, 300.0), 2);
        assert_eq!(Timeline::step_at(&edges, 400.0, 300.0), 2);
    }

    #[test]
    fn owners_at_an_instant() {
        let t = three();
        let lane = &t.lanes[0];
        assert_eq!(
            t.owners_at(lane, 0),
            vec![("A".to_string(), 1), ("B".to_string(), 1)]
        );
        assert_eq!(t.owners_at(lane, 2), vec![("B".to_string(), 3)]);
        let at2: Vec<(u32, u32)> = Timeline::cells_at(lane, 2)
            .iter()
            .map(|c| (c.lo, c.hi))
            .collect();
        assert_eq!(
            at2,
            vec![
                (0, 0x8000_0000),
                (0x8000_0000, 0xc000_0000),
                (0xc000_0000, 0xffff_ffff)
            ]
        );
    }

    #[test]
    fn changes_are_paged_and_filtered_by_cause() {
        use crate::history::report::ExplainedChange;
        use crate::history::{Cause, Change};
        let moved = |i: i64, cause: Cause| ExplainedChange {
            step: 0,
            from_ms: 0,
            at_ms: i * 60_000,
            change: Change::Moved {
                bundle: LEFT.to_string(),
                from: "A".to_string(),
                to: "B".to_string(),
            },
            cause,
            throughput_bytes_per_sec: 0.0,
        };
        let report = HistoryReport {
            times_ms: vec![0, 60_000, 120_000, 180_000],
            changes: vec![
                moved(1, Cause::Observed),
                moved(
                    2,
                    Cause::Unexplained {
                        why: "manual".to_string(),
                    },
                ),
                moved(3, Cause::Observed),
            ],
            ..HistoryReport::empty()
        };
        let (rows, total) = change_page(&report, None, 1, 2);
        assert_eq!(total, 3);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].index, 2);
        assert_eq!(rows[0].minute, 3.0);
        assert_eq!(
            rows[0].text,
            "t/ns/0x00000000_0x80000000 moved A → B".to_string()
        );
        let (rows, total) = change_page(&report, Some("unexplained"), 0, 100);
        assert_eq!(total, 1);
        assert_eq!(rows[0].index, 1);
        assert_eq!(rows[0].cause, "unexplained");
    }

    /// Load lines: one per broker by name, `NaN` where it was not live.
    #[test]
    fn broker_load_lines_follow_the_report() {
        let mut report = HistoryReport::empty();
        report
            .broker_load
            .insert("b".to_string(), vec![Some(0.5), None]);
        report
            .broker_load
            .insert("a".to_string(), vec![Some(0.25), Some(0.75)]);
        let c = broker_load_chart(&report);
        assert_eq!(c.cycles, 2);
        let labels: Vec<&str> = c.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, vec!["a", "b"]);
        assert_eq!(c.series[0].values, vec![0.25, 0.75]);
        assert_eq!(c.series[1].values[0], 0.5);
        assert!(c.series[1].values[1].is_nan());
    }

    /// A bundle bouncing A → B → A is three cells of alternating owners (the striped band), not
    /// merged across the gap.
    #[test]
    fn a_bouncing_bundle_is_a_striped_band() {
        let t = timeline(&[
            snap(0, &[("A", &[(LEFT, 1.0)]), ("B", &[])]),
            snap(1, &[("A", &[]), ("B", &[(LEFT, 1.0)])]),
            snap(2, &[("A", &[(LEFT, 1.0)]), ("B", &[])]),
        ]);
        let owners: Vec<(u32, u32, u32)> = t.lanes[0]
            .cells
            .iter()
            .map(|c| (c.from, c.to, c.owner))
            .collect();
        assert_eq!(owners, vec![(0, 1, 0), (1, 2, 1), (2, 3, 0)]);
    }

    /// A window kept live: forgetting the first two of four snapshots leaves the cells a build
    /// from the last two has (LEFT moved to B at minute 1, RIGHT moved from C to B at minute 2,
    /// then split), with only B named.
    #[test]
    fn a_forgotten_start_leaves_the_cells_of_the_kept_snapshots() {
        let series = [
            snap(0, &[("A", &[(LEFT, 100.0)]), ("C", &[(RIGHT, 40.0)])]),
            snap(1, &[("B", &[(LEFT, 100.0)]), ("C", &[(RIGHT, 40.0)])]),
            snap(2, &[("B", &[(LEFT, 100.0), (RIGHT, 40.0)])]),
            snap(
                3,
                &[("B", &[(LEFT, 100.0), (RIGHT_LO, 30.0), (RIGHT_HI, 10.0)])],
            ),
        ];
        let mut b = TimelineBuilder::new();
        for s in &series {
            b.push(s);
        }
        assert_eq!(b.forget_before(120_000), 2);
        let t = b.current();
        assert_eq!(t.times_ms, vec![120_000, 180_000]);
        assert_eq!(t.brokers, vec!["B".to_string()]);
        let cell = |from, to, lo, hi, shade| Cell {
            from,
            to,
            lo,
            hi,
            owner: 0,
            shade,
        };
        // Shades against the busiest (100): 40 → 2, 30 → 2, 10 → 1.
        assert_eq!(
            t.lanes[0].cells,
            vec![
                cell(0, 2, 0, 0x8000_0000, 4),
                cell(0, 1, 0x8000_0000, 0xffff_ffff, 2),
                cell(1, 2, 0x8000_0000, 0xc000_0000, 2),
                cell(1, 2, 0xc000_0000, 0xffff_ffff, 1),
            ]
        );
        assert_eq!(t, timeline(&series[2..]));
        // The latest snapshot is never forgotten; the builder goes on after a forget.
        assert_eq!(b.forget_before(i64::MAX), 1);
        b.push(&series[3]);
        assert_eq!(b.current().times_ms, vec![180_000, 180_000]);
    }

    #[test]
    fn lanes_that_changed_come_first_and_brokers_own_namespaces_last() {
        let hb = "pulsar/broker-a.pulsar-broker.prod.svc:8080/0x00000000_0xffffffff";
        let sla = "pulsar/prod/broker-a.pulsar-broker.prod.svc:8080/0x00000000_0xffffffff";
        let quiet = "a/quiet/0x00000000_0xffffffff";
        // t/ns: LEFT moves A → B at minute 1 (one event), RIGHT splits at minute 2 (two new
        // ranges); z/busy: its bundle moves at minute 1 and back at minute 2 (two events); the
        // heartbeat and SLA bundles change load but never owner; a/quiet never changes.
        let z = "z/busy/0x00000000_0xffffffff";
        let t = timeline(&[
            snap(
                0,
                &[
                    (
                        "A",
                        &[(LEFT, 100.0), (hb, 1.0), (sla, 1.0), (z, 5.0), (quiet, 5.0)],
                    ),
                    ("B", &[(RIGHT, 40.0)]),
                ],
            ),
            snap(
                1,
                &[
                    ("A", &[(hb, 90.0), (sla, 1.0), (quiet, 5.0)]),
                    ("B", &[(LEFT, 100.0), (RIGHT, 40.0), (z, 5.0)]),
                ],
            ),
            snap(
                2,
                &[
                    ("A", &[(hb, 1.0), (sla, 90.0), (z, 5.0), (quiet, 5.0)]),
                    ("B", &[(LEFT, 100.0), (RIGHT_LO, 30.0), (RIGHT_HI, 10.0)]),
                ],
            ),
        ]);
        let order: Vec<&str> = t
            .lanes_by_activity()
            .into_iter()
            .map(|i| t.lanes[i].namespace.as_str())
            .collect();
        // t/ns: 1 move + 2 split children = 3; z/busy: 2; a/quiet: 0; then the broker's own.
        assert_eq!(
            order,
            [
                "t/ns",
                "z/busy",
                "a/quiet",
                "pulsar/broker-a.pulsar-broker.prod.svc:8080",
                "pulsar/prod/broker-a.pulsar-broker.prod.svc:8080",
            ]
        );
    }
}
