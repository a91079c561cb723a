//! Bundle-map geometry, computed once per snapshot: one row per namespace spanning the hash range
//! `0x00000000..=0xffffffff`, one segment per bundle with its owner and load; plus the per-frame
//! work the canvas needs (rows after filters, hit testing, and rasterising the visible part into an
//! RGBA buffer the page puts on the canvas in one call, so a frame costs one pass over the visible
//! segments and pixels whatever the number of bundles).

use std::collections::HashMap;

use crate::load::bundle_load::bundle_load;
use crate::model::Snapshot;
use crate::naming::{
    BundleRange, NamespaceBundles, is_sla_or_heartbeat_namespace, parse_bundle_name,
};

use super::palette::{broker_colour, shade};

/// `owner` of a bundle no live broker reports.
pub const NO_OWNER: u32 = u32::MAX;
const HASH_SPAN: f64 = 4_294_967_296.0;
/// Load shading levels (enough to see differences, few enough to precompute per broker).
pub const SHADES: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapSegment {
    pub lo: u32,
    pub hi: u32,
    /// Index into [`BundleMap::brokers`], or [`NO_OWNER`].
    pub owner: u32,
    pub bytes_per_sec: f32,
    pub msg_per_sec: f32,
    pub topics: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MapRow {
    /// `tenant/namespace`.
    pub namespace: String,
    /// Segments `start..end` of [`BundleMap::segments`], ordered by `lo`.
    pub start: usize,
    pub end: usize,
    /// A broker's heartbeat or SLA-monitor namespace (one bundle each, folded away by default).
    pub system: bool,
}

impl MapRow {
    pub fn tenant(&self) -> &str {
        self.namespace.split('/').next().unwrap_or_default()
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BundleMap {
    pub rows: Vec<MapRow>,
    pub segments: Vec<MapSegment>,
    /// Row of each segment.
    pub segment_row: Vec<u32>,
    pub brokers: Vec<String>,
    pub colours: Vec<[u8; 3]>,
    /// The busiest bundle's throughput (the top of the shading scale).
    pub max_bytes_per_sec: f32,
    /// Shade level (`0..SHADES`) of each segment's load, fixed per snapshot.
    pub shade_level: Vec<u8>,
    /// RGBA of broker `b` at shade level `l`: `shaded[b * SHADES + l]`, computed once per snapshot so
    /// a frame only looks colours up.
    shaded: Vec<[u8; 4]>,
    row_of_namespace: HashMap<String, u32>,
    broker_index: HashMap<String, u32>,
}

/// Which rows to show. A broker filter keeps the namespaces where it owns a bundle and greys the
/// other owners' segments. Heartbeat and SLA-monitor namespaces (one per broker: on a 12-broker
/// cluster with 5 tenant namespaces they would take 12 of 17 rows) show only when asked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapFilter {
    pub tenant: Option<String>,
    /// Substring of `tenant/namespace`.
    pub namespace: Option<String>,
    /// Exactly this `tenant/namespace` (drilling into a namespace, a topic search).
    pub only_namespace: Option<String>,
    pub broker: Option<String>,
    pub show_system: bool,
}

/// What part of the map the canvas shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Visible hash range as fractions of the full range (`0.0..=1.0`, `x0 < x1`).
    pub x0: f64,
    pub x1: f64,
    /// First visible (filtered) row, fractional while panning.
    pub row0: f64,
    pub row_height_px: f64,
    pub width_px: u32,
    pub height_px: u32,
}

impl Viewport {
    pub fn full(width_px: u32, height_px: u32, rows: usize) -> Self {
        let fit = f64::from(height_px) / rows.max(1) as f64;
        Viewport {
            x0: 0.0,
            x1: 1.0,
            row0: 0.0,
            row_height_px: fit.clamp(4.0, 28.0),
            width_px,
            height_px,
        }
    }

    /// Zooms the hash axis by `factor` (>1 zooms in) around the canvas x `at_px`.
    pub fn zoom(&mut self, factor: f64, at_px: f64) {
        if !(factor.is_finite() && factor > 0.0) {
            return;
        }
        let span = self.x1 - self.x0;
        let anchor = self.x0 + span * (at_px / f64::from(self.width_px.max(1))).clamp(0.0, 1.0);
        // Never narrower than ~1,000 hashes per canvas: deeper zoom shows nothing new.
        let new_span = (span / factor).clamp(1e-6, 1.0);
        let mut x0 = anchor - (anchor - self.x0) * new_span / span;
        x0 = x0.clamp(0.0, 1.0 - new_span);
        self.x0 = x0;
        self.x1 = x0 + new_span;
    }

    /// Pans by pixels (positive dx shows hashes further left, positive dy rows further up).
    pub fn pan(&mut self, dx_px: f64, dy_px: f64, rows: usize) {
        let span = self.x1 - self.x0;
        let shift = -dx_px / f64::from(self.width_px.max(1)) * span;
        let x0 = (self.x0 + shift).clamp(0.0, 1.0 - span);
        self.x0 = x0;
        self.x1 = x0 + span;
        let visible = f64::from(self.height_px) / self.row_height_px.max(1.0);
        let max_row0 = (rows as f64 - visible).max(0.0);
        self.row0 = (self.row0 - dy_px / self.row_height_px.max(1.0)).clamp(0.0, max_row0);
    }

    /// Brings filtered row `row` into view and zooms the hash axis onto `[lo, hi]` (fractions), the
    /// range taking the middle half of the canvas (a topic search landing on its bundle).
    pub fn focus(&mut self, row: usize, rows: usize, lo: f64, hi: f64) {
        let visible = f64::from(self.height_px) / self.row_height_px.max(1.0);
        let max_row0 = (rows as f64 - visible).max(0.0);
        self.row0 = (row as f64 - visible / 2.0 + 0.5).clamp(0.0, max_row0);
        let span = ((hi - lo) * 2.0).clamp(1e-6, 1.0);
        let x0 = ((lo + hi) / 2.0 - span / 2.0).clamp(0.0, 1.0 - span);
        self.x0 = x0;
        self.x1 = x0 + span;
    }

    pub(crate) fn hash_at(&self, x_px: f64) -> f64 {
        self.x0 + (self.x1 - self.x0) * x_px / f64::from(self.width_px.max(1))
    }

    pub(crate) fn px_of(&self, fraction: f64) -> f64 {
        (fraction - self.x0) / (self.x1 - self.x0) * f64::from(self.width_px)
    }
}

/// Per-frame drawing options.
#[derive(Clone, Debug, Default)]
pub struct RenderStyle<'a> {
    /// Owner per segment to draw instead of the snapshot's (the plan's "after" view).
    pub owners: Option<&'a [u32]>,
    /// Segments to mark (the plan's moves), by segment index.
    pub highlighted: &'a [usize],
    pub selected: Option<usize>,
    /// Only this broker's segments in colour.
    pub focus_broker: Option<u32>,
    pub background: [u8; 3],
    pub dark: bool,
}

impl RenderStyle<'_> {
    /// Fills the viewport's `width × height` RGBA pixels of `buf` with the background and gives
    /// back the size, or `None` when `buf` is too small or the viewport empty (nothing drawn).
    pub(crate) fn clear(&self, vp: &Viewport, buf: &mut [u8]) -> Option<(usize, usize)> {
        let w = vp.width_px as usize;
        let h = vp.height_px as usize;
        if buf.len() < w * h * 4 || w == 0 || h == 0 {
            return None;
        }
        let bg = self.background_px();
        for px in buf.chunks_exact_mut(4).take(w * h) {
            px.copy_from_slice(&bg);
        }
        Some((w, h))
    }

    /// The background as an opaque RGBA pixel.
    pub(crate) fn background_px(&self) -> [u8; 4] {
        [
            self.background[0],
            self.background[1],
            self.background[2],
            255,
        ]
    }

    /// The colours of a segment outside the focus (`grey`) and of a bundle nobody owns, for the
    /// theme.
    pub(crate) fn neutral_colours(&self) -> (/* grey */ [u8; 4], /* unowned */ [u8; 4]) {
        if self.dark {
            ([70, 70, 78, 255], [40, 40, 40, 255])
        } else {
            ([205, 205, 210, 255], [235, 235, 235, 255])
        }
    }
}

fn fraction(h: u32) -> f64 {
    f64::from(h) / HASH_SPAN
}

/// End of a range as a fraction; the last range includes `0xffffffff`.
fn end_fraction(h: u32) -> f64 {
    if h == u32::MAX { 1.0 } else { fraction(h) }
}

impl BundleMap {
    /// Geometry of every namespace layout in the snapshot, with owners and loads.
    pub fn from_snapshot(snapshot: &Snapshot) -> Self {
        let mut builder = BundleMapBuilder::new(snapshot);
        while !builder.step(usize::MAX) {}
        builder.finish()
    }

    fn colour_of(&self, owner: u32, segment: usize) -> Option<[u8; 4]> {
        self.shaded_colour(owner, *self.shade_level.get(segment)?)
    }

    /// RGBA of broker `owner` at shade `level` (`0..SHADES`).
    pub(crate) fn shaded_colour(&self, owner: u32, level: u8) -> Option<[u8; 4]> {
        self.shaded
            .get((owner as usize).checked_mul(SHADES)? + usize::from(level))
            .copied()
    }

    /// Row of a `tenant/namespace`.
    pub fn row_of(&self, namespace: &str) -> Option<u32> {
        self.row_of_namespace.get(namespace).copied()
    }

    /// The segment of row `row` whose range holds `hash`.
    pub fn segment_at_hash(&self, row: u32, hash: u32) -> Option<usize> {
        let row = self.rows.get(row as usize)?;
        let segs = self.segments.get(row.start..row.end)?;
        let i = segs.partition_point(|s| s.hi <= hash && s.hi != u32::MAX);
        let s = segs.get(i)?;
        (s.lo <= hash).then_some(row.start + i)
    }

    /// A segment's range as fractions of the hash range.
    pub fn segment_fractions(&self, segment: usize) -> Option<(f64, f64)> {
        let s = self.segments.get(segment)?;
        Some((fraction(s.lo), end_fraction(s.hi)))
    }

    /// Heartbeat and SLA-monitor rows (the count the "show" toggle names).
    pub fn system_rows(&self) -> usize {
        self.rows.iter().filter(|r| r.system).count()
    }

    pub fn broker_index(&self, broker: &str) -> Option<u32> {
        self.broker_index.get(broker).copied()
    }

    /// `tenant/ns/0x…_0x…` of a segment.
    pub fn bundle_name(&self, segment: usize) -> Option<String> {
        let s = self.segments.get(segment)?;
        let row = self.rows.get(*self.segment_row.get(segment)? as usize)?;
        Some(format!(
            "{}/{}",
            row.namespace,
            BundleRange { lo: s.lo, hi: s.hi }
        ))
    }

    /// The segment of a full bundle name.
    pub fn find(&self, bundle: &str) -> Option<usize> {
        let b = parse_bundle_name(bundle).ok()?;
        let row = self
            .rows
            .get(*self.row_of_namespace.get(&b.namespace)? as usize)?;
        let segs = self.segments.get(row.start..row.end)?;
        let i = segs.binary_search_by(|s| s.lo.cmp(&b.range.lo)).ok()?;
        let s = segs.get(i)?;
        (s.hi == b.range.hi).then_some(row.start + i)
    }

    pub fn owner_name(&self, owner: u32) -> Option<&str> {
        self.brokers.get(owner as usize).map(String::as_str)
    }

    /// Owners after moving bundles (`(bundle, destination)` pairs; unknown names are ignored).
    pub fn owners_after<'a>(
        &self,
        moves: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Vec<u32> {
        let mut owners: Vec<u32> = self.segments.iter().map(|s| s.owner).collect();
        for (bundle, to) in moves {
            if let (Some(seg), Some(b)) = (self.find(bundle), self.broker_index(to))
                && let Some(o) = owners.get_mut(seg)
            {
                *o = b;
            }
        }
        owners
    }

    /// Tenants, sorted, for the filter menu.
    pub fn tenants(&self) -> Vec<String> {
        let mut t: Vec<String> = self.rows.iter().map(|r| r.tenant().to_string()).collect();
        t.sort();
        t.dedup();
        t
    }

    /// Indices of the rows a filter keeps.
    pub fn filtered_rows(&self, f: &MapFilter) -> Vec<u32> {
        let broker = f.broker.as_deref().and_then(|b| self.broker_index(b));
        let needle = f.namespace.as_deref().unwrap_or("");
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| f.show_system || !r.system || f.only_namespace.is_some())
            .filter(|(_, r)| f.tenant.as_deref().is_none_or(|t| r.tenant() == t))
            .filter(|(_, r)| r.namespace.contains(needle))
            .filter(|(_, r)| f.only_namespace.as_deref().is_none_or(|n| r.namespace == n))
            .filter(|(_, r)| match (&f.broker, broker) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(_), Some(b)) => self
                    .segments
                    .get(r.start..r.end)
                    .is_some_and(|s| s.iter().any(|s| s.owner == b)),
            })
            .filter_map(|(i, _)| u32::try_from(i).ok())
            .collect()
    }

    /// The segment under canvas pixel (`x_px`, `y_px`).
    pub fn hit(&self, rows: &[u32], vp: &Viewport, x_px: f64, y_px: f64) -> Option<usize> {
        let r = (vp.row0 + y_px / vp.row_height_px.max(1.0)).floor();
        if r.is_nan() || r < 0.0 {
            return None;
        }
        let row = *rows.get(r as usize)?;
        let h = vp.hash_at(x_px);
        if !(0.0..1.0).contains(&h) {
            return None;
        }
        self.segment_at_hash(row, (h * HASH_SPAN) as u32)
    }

    /// Draws the visible part into `buf` (RGBA, `width_px × height_px × 4` bytes). Returns the number
    /// of segments drawn.
    pub fn render_rgba(
        &self,
        rows: &[u32],
        vp: &Viewport,
        style: &RenderStyle<'_>,
        buf: &mut [u8],
    ) -> usize {
        let Some((w, h)) = style.clear(vp, buf) else {
            return 0;
        };
        let row_bytes = w * 4;
        let bg_row = style.background_px().repeat(w);
        let rh = vp.row_height_px.max(1.0);
        let (grey, unowned) = style.neutral_colours();
        let mut line = vec![0u8; row_bytes];
        let mut marks = vec![0u8; w];
        let mut drawn = 0usize;
        let first = vp.row0.floor().max(0.0) as usize;
        let mut k = first;
        loop {
            let top = ((k as f64 - vp.row0) * rh).round();
            if top >= h as f64 {
                break;
            }
            let Some(row) = rows.get(k).and_then(|r| self.rows.get(*r as usize)) else {
                break;
            };
            k += 1;
            let bottom = ((k as f64 - vp.row0) * rh).round();
            // A 1-px gap between rows once rows are tall enough to keep it readable.
            let gap = if rh >= 6.0 { 1.0 } else { 0.0 };
            let y0 = top.max(0.0) as usize;
            let y1 = (bottom - gap).clamp(0.0, h as f64) as usize;
            if y1 <= y0 {
                continue;
            }
            line.copy_from_slice(&bg_row);
            let mut any_mark = false;
            let Some(segs) = self.segments.get(row.start..row.end) else {
                continue;
            };
            let first_seg = segs.partition_point(|s| end_fraction(s.hi) <= vp.x0);
            let mut last_col: isize = -1;
            for (j, s) in segs.iter().enumerate().skip(first_seg) {
                let lo = fraction(s.lo);
                if lo >= vp.x1 {
                    break;
                }
                let seg = row.start + j;
                let px0 = vp.px_of(lo).max(0.0);
                let px1 = vp.px_of(end_fraction(s.hi)).min(w as f64);
                let mut c0 = px0.round() as isize;
                let c1 = (px1.round() as isize).min(w as isize);
                // Sub-pixel bundles: keep one column for the first of them in each pixel.
                if c1 <= c0 {
                    if c0 <= last_col || c0 >= w as isize {
                        continue;
                    }
                } else if c0 <= last_col {
                    c0 = last_col + 1;
                }
                let c1 = c1.max(c0 + 1).min(w as isize);
                let owner = style
                    .owners
                    .and_then(|o| o.get(seg).copied())
                    .unwrap_or(s.owner);
                let colour = match style.focus_broker {
                    Some(f) if f != owner && owner != NO_OWNER => grey,
                    _ => self.colour_of(owner, seg).unwrap_or(unowned),
                };
                let (a, b) = (c0 as usize, c1 as usize);
                if let Some(dst) = line.get_mut(a * 4..b * 4) {
                    for px in dst.chunks_exact_mut(4) {
                        px.copy_from_slice(&colour);
                    }
                    // Bundle edges: a thin darker line when a bundle is wide enough to show one.
                    if b - a >= 5
                        && let Some(edge) = dst.get_mut(0..3)
                    {
                        for v in edge {
                            *v = (u16::from(*v) * 3 / 5) as u8;
                        }
                    }
                }
                let mark = if style.selected == Some(seg) {
                    2
                } else if !style.highlighted.is_empty()
                    && style.highlighted.binary_search(&seg).is_ok()
                {
                    1
                } else {
                    0
                };
                if mark != 0 {
                    any_mark = true;
                    if let Some(m) = marks.get_mut(a..b) {
                        m.fill(mark);
                    }
                }
                last_col = c1 - 1;
                drawn += 1;
            }
            let band = ((y1 - y0) / 4).max(1);
            for y in y0..y1 {
                let Some(dst) = buf.get_mut(y * row_bytes..(y + 1) * row_bytes) else {
                    break;
                };
                dst.copy_from_slice(&line);
                // Marked bundles: stripes along the row's top and bottom edges.
                if any_mark && (y < y0 + band || y >= y1 - band) {
                    for (ci, m) in marks.iter().enumerate() {
                        let c = match m {
                            0 => continue,
                            1 if style.dark => [255, 255, 255],
                            1 => [20, 20, 20],
                            _ => [230, 0, 160],
                        };
                        if let Some(p) = dst.get_mut(ci * 4..ci * 4 + 3) {
                            p.copy_from_slice(&c);
                        }
                    }
                }
            }
            if any_mark {
                marks.fill(0);
            }
        }
        drawn
    }
}

/// Builds a [`BundleMap`] a bounded piece at a time (the one way it is built:
/// [`BundleMap::from_snapshot`] runs it to the end), so a page can build the map of 200,000 bundles
/// between its other tasks: each [`BundleMapBuilder::step`] does at most `budget` bundles' work.
pub struct BundleMapBuilder<'a> {
    snapshot: &'a Snapshot,
    map: BundleMap,
    owner_of: HashMap<&'a str, u32>,
    /// Next broker whose bundles are read into `owner_of`, then next namespace laid out.
    next_broker: usize,
    next_namespace: usize,
    /// The namespace being laid out: its row, ranges and the next range.
    current: Option<(u32, Vec<BundleRange>, usize)>,
}

impl<'a> BundleMapBuilder<'a> {
    pub fn new(snapshot: &'a Snapshot) -> Self {
        let brokers: Vec<String> = snapshot.brokers.keys().cloned().collect();
        let colours = brokers.iter().map(|b| broker_colour(b)).collect();
        let broker_index: HashMap<String, u32> = brokers
            .iter()
            .enumerate()
            .map(|(i, b)| (b.clone(), u32::try_from(i).unwrap_or(NO_OWNER)))
            .collect();
        // Sized for every bundle up front: growing these tables in a step rehashed or copied
        // what earlier steps built (at 200,000 bundles one such step took 70 ms on the page).
        let bundles = snapshot.bundle_data.len();
        BundleMapBuilder {
            snapshot,
            map: BundleMap {
                brokers,
                colours,
                broker_index,
                segments: Vec::with_capacity(bundles),
                segment_row: Vec::with_capacity(bundles),
                ..BundleMap::default()
            },
            owner_of: HashMap::with_capacity(bundles),
            next_broker: 0,
            next_namespace: 0,
            current: None,
        }
    }

    /// Does at most about `budget` bundles' work (a broker's bundle list or a namespace's ranges
    /// are split between steps); `true` when everything is laid out and [`Self::finish`] is next.
    pub fn step(&mut self, budget: usize) -> bool {
        let snapshot = self.snapshot;
        let mut left = budget.max(1);
        // Owners first: the first broker that lists a bundle owns it.
        while let Some((_, b)) = snapshot.brokers.get_index(self.next_broker) {
            if left == 0 {
                return false;
            }
            let owner = u32::try_from(self.next_broker).unwrap_or(NO_OWNER);
            for bundle in &b.local_broker_data.bundles {
                self.owner_of.entry(bundle.as_str()).or_insert(owner);
            }
            left = left.saturating_sub(b.local_broker_data.bundles.len().max(1));
            self.next_broker += 1;
        }
        loop {
            if left == 0 {
                return false;
            }
            let Some((row, ranges, next)) = self.current.as_mut() else {
                let Some((ns, n)) = snapshot.namespaces.get_index(self.next_namespace) else {
                    return true;
                };
                let Ok(layout) = NamespaceBundles::from_bundles_data(ns, &n.bundles) else {
                    self.next_namespace += 1;
                    continue;
                };
                let row = u32::try_from(self.map.rows.len()).unwrap_or(u32::MAX);
                self.map.row_of_namespace.insert(ns.clone(), row);
                self.map.rows.push(MapRow {
                    namespace: ns.clone(),
                    start: self.map.segments.len(),
                    end: self.map.segments.len(),
                    system: is_sla_or_heartbeat_namespace(ns),
                });
                self.current = Some((row, layout.ranges().collect(), 0));
                continue;
            };
            let Some(range) = ranges.get(*next) else {
                self.current = None;
                self.next_namespace += 1;
                continue;
            };
            let ns = snapshot
                .namespaces
                .get_index(self.next_namespace)
                .map(|(ns, _)| ns.as_str())
                .unwrap_or_default();
            let name = format!("{ns}/{range}");
            let owner = self
                .owner_of
                .get(name.as_str())
                .copied()
                .unwrap_or(NO_OWNER);
            let owner_name = self
                .map
                .brokers
                .get(owner as usize)
                .map(String::as_str)
                .unwrap_or_default();
            let load = bundle_load(snapshot, owner_name, &name);
            let bytes = load.bytes_per_sec() as f32;
            if bytes > self.map.max_bytes_per_sec {
                self.map.max_bytes_per_sec = bytes;
            }
            self.map.segments.push(MapSegment {
                lo: range.lo,
                hi: range.hi,
                owner,
                bytes_per_sec: bytes,
                msg_per_sec: load.msg_per_sec() as f32,
                topics: load.stats.topics,
            });
            self.map.segment_row.push(*row);
            if let Some(r) = self.map.rows.last_mut() {
                r.end = self.map.segments.len();
            }
            *next += 1;
            left -= 1;
        }
    }

    /// The map, once [`Self::step`] said it is laid out: load shades (one pass over the segments).
    pub fn finish(self) -> BundleMap {
        let mut map = self.map;
        let max = if map.max_bytes_per_sec > 0.0 {
            map.max_bytes_per_sec
        } else {
            1.0
        };
        let top = (SHADES - 1) as f32;
        map.shade_level = map
            .segments
            .iter()
            .map(|s| {
                let t = (s.bytes_per_sec / max).max(0.0).sqrt();
                (t * top).round().clamp(0.0, top) as u8
            })
            .collect();
        map.shaded = map
            .colours
            .iter()
            .flat_map(|c| {
                (0..SHADES).map(move |l| {
                    let [r, g, b] = shade(*c, l as f32 / top);
                    [r, g, b, 255]
                })
            })
            .collect();
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, BundlesData, NamespaceSnapshot};

    /// Two namespaces: `t/a` with 2 bundles (one per broker), `u/b` with 1 bundle on b2.
    fn snapshot() -> Snapshot {
        let mut s = Snapshot::default();
        let ns = |b: &[&str]| NamespaceSnapshot {
            bundles: BundlesData {
                boundaries: b.iter().map(|x| x.to_string()).collect(),
                num_bundles: i32::try_from(b.len()).unwrap_or(0) - 1,
            },
            ..Default::default()
        };
        s.namespaces.insert(
            "t/a".into(),
            ns(&["0x00000000", "0x80000000", "0xffffffff"]),
        );
        s.namespaces
            .insert("u/b".into(), ns(&["0x00000000", "0xffffffff"]));
        let mut b1 = BrokerSnapshot::default();
        b1.local_broker_data.bundles = vec!["t/a/0x00000000_0x80000000".into()];
        let mut b2 = BrokerSnapshot::default();
        b2.local_broker_data.bundles = vec![
            "t/a/0x80000000_0xffffffff".into(),
            "u/b/0x00000000_0xffffffff".into(),
        ];
        s.brokers.insert("b1:8080".into(), b1);
        s.brokers.insert("b2:8080".into(), b2);
        s
    }

    #[test]
    fn geometry_names_and_lookup() {
        let m = BundleMap::from_snapshot(&snapshot());
        assert_eq!(m.rows.len(), 2);
        assert_eq!(m.segments.len(), 3);
        assert_eq!(m.segments[0].owner, 0);
        assert_eq!(m.segments[1].owner, 1);
        assert_eq!(
            m.bundle_name(1).as_deref(),
            Some("t/a/0x80000000_0xffffffff")
        );
        assert_eq!(m.find("u/b/0x00000000_0xffffffff"), Some(2));
        assert_eq!(m.find("u/b/0x00000000_0x80000000"), None);
        // No BundleData and no lastStats: Pulsar's defaults, 50 msg/s in + 50 out, 50000 B/s each way.
        assert_eq!(m.segments[0].bytes_per_sec, 100_000.0);
        assert_eq!(
            m.owners_after([("t/a/0x00000000_0x80000000", "b2:8080")]),
            vec![1, 1, 1]
        );
    }

    #[test]
    fn built_one_bundle_per_step_the_map_has_the_same_geometry() {
        let s = snapshot();
        let mut b = BundleMapBuilder::new(&s);
        let mut steps = 1;
        while !b.step(1) {
            steps += 1;
        }
        let m = b.finish();
        // 3 bundle owners read, then 3 segments laid out, one per step, and the step that ends.
        assert!(steps >= 6, "{steps}");
        assert_eq!(
            m.rows
                .iter()
                .map(|r| (r.namespace.as_str(), r.start, r.end))
                .collect::<Vec<_>>(),
            [("t/a", 0, 2), ("u/b", 2, 3)]
        );
        assert_eq!(
            m.segments.iter().map(|s| s.owner).collect::<Vec<_>>(),
            [0, 1, 1]
        );
        assert_eq!(m.segments[1].lo, 0x8000_0000);
        assert_eq!(m.segment_row, [0, 0, 1]);
        assert_eq!(m.row_of("u/b"), Some(1));
        assert_eq!(m, BundleMap::from_snapshot(&s));
    }

    #[test]
    fn filters() {
        let m = BundleMap::from_snapshot(&snapshot());
        let all = MapFilter::default();
        assert_eq!(m.filtered_rows(&all), vec![0, 1]);
        let t = MapFilter {
            tenant: Some("u".into()),
            ..Default::default()
        };
        assert_eq!(m.filtered_rows(&t), vec![1]);
        let b = MapFilter {
            broker: Some("b1:8080".into()),
            ..Default::default()
        };
        assert_eq!(m.filtered_rows(&b), vec![0]);
        assert_eq!(m.tenants(), vec!["t", "u"]);
    }

    #[test]
    fn hit_testing_and_zoom() {
        let m = BundleMap::from_snapshot(&snapshot());
        let rows = vec![0, 1];
        let mut vp = Viewport {
            x0: 0.0,
            x1: 1.0,
            row0: 0.0,
            row_height_px: 10.0,
            width_px: 100,
            height_px: 20,
        };
        assert_eq!(m.hit(&rows, &vp, 10.0, 5.0), Some(0));
        assert_eq!(m.hit(&rows, &vp, 60.0, 5.0), Some(1));
        assert_eq!(m.hit(&rows, &vp, 99.9, 15.0), Some(2));
        assert_eq!(m.hit(&rows, &vp, 10.0, 25.0), None);
        vp.zoom(2.0, 100.0);
        assert_eq!((vp.x0, vp.x1), (0.5, 1.0));
        assert_eq!(m.hit(&rows, &vp, 1.0, 5.0), Some(1));
        vp.pan(50.0, 0.0, rows.len());
        assert_eq!((vp.x0, vp.x1), (0.25, 0.75));
    }

    #[test]
    fn rasterises_rows_with_owner_colours() {
        let m = BundleMap::from_snapshot(&snapshot());
        let rows = vec![0, 1];
        let vp = Viewport {
            x0: 0.0,
            x1: 1.0,
            row0: 0.0,
            row_height_px: 10.0,
            width_px: 100,
            height_px: 30,
        };
        let mut buf = vec![0u8; 100 * 30 * 4];
        let style = RenderStyle {
            background: [1, 2, 3],
            ..Default::default()
        };
        let drawn = m.render_rgba(&rows, &vp, &style, &mut buf);
        assert_eq!(drawn, 3);
        let px = |x: usize, y: usize| -> [u8; 3] {
            let i = (y * 100 + x) * 4;
            [buf[i], buf[i + 1], buf[i + 2]]
        };
        // All bundles carry the same (default) load, so each shows its owner's full colour.
        assert_eq!(px(20, 5), m.colours[0]);
        assert_eq!(px(70, 5), m.colours[1]);
        assert_eq!(px(50, 15), m.colours[1]);
        // The row gap and the empty third row show the background.
        assert_eq!(px(20, 9), [1, 2, 3]);
        assert_eq!(px(20, 25), [1, 2, 3]);
    }

    #[test]
    fn large_map_draws_at_most_one_segment_per_pixel_column() {
        let s = crate::synthetic::generate(&crate::synthetic::SyntheticSpec::demo(), 1)
            .unwrap_or_default();
        let m = BundleMap::from_snapshot(&s);
        assert_eq!(m.segments.len(), s.bundle_data.len());
        let rows = m.filtered_rows(&MapFilter::default());
        let vp = Viewport::full(8, 400, rows.len());
        let mut buf = vec![0u8; 8 * 400 * 4];
        let drawn = m.render_rgba(&rows, &vp, &RenderStyle::default(), &mut buf);
        assert!(drawn <= rows.len() * 8, "{drawn}");
    }
}
