//! The bundle map's level of detail. Per-bundle colours read while rows are a few pixels tall; at
//! cluster scale (2,000 namespaces on a 420-pixel canvas) they are noise. The map then draws one
//! band per tenant, or per namespace, split across the canvas among the brokers that own its
//! bundles in proportion to their share of its load (largest first), so "this namespace sits on one
//! broker" and "this tenant is spread over 300" both read at a glance, and a band's shade says how
//! much load it carries. Clicking a band narrows the filter (tenant, then namespace) until bundles fit.

use super::bundle_map::{BundleMap, MapFilter, NO_OWNER, RenderStyle, SHADES, Viewport};

/// Per-bundle rows shorter than this are unreadable: below it, `auto` aggregates.
pub const MIN_BUNDLE_ROW_PX: f64 = 6.0;
/// The shortest band the namespace level draws before `auto` groups by tenant.
pub const MIN_BAND_PX: f64 = 4.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapLevel {
    /// One band per tenant.
    Tenants,
    /// One band per namespace.
    Namespaces,
    /// One row per namespace, one segment per bundle.
    Bundles,
}

impl MapLevel {
    pub fn label(self) -> &'static str {
        match self {
            MapLevel::Tenants => "tenants",
            MapLevel::Namespaces => "namespaces",
            MapLevel::Bundles => "bundles",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "tenants" => Some(MapLevel::Tenants),
            "namespaces" => Some(MapLevel::Namespaces),
            "bundles" => Some(MapLevel::Bundles),
            _ => None,
        }
    }
}

/// The level that keeps the map readable for `rows` filtered rows on a canvas `height_px` tall.
pub fn auto_level(map: &BundleMap, rows: &[u32], height_px: u32) -> MapLevel {
    let height = f64::from(height_px);
    let n = rows.len() as f64;
    if n * MIN_BUNDLE_ROW_PX <= height {
        return MapLevel::Bundles;
    }
    if n * MIN_BAND_PX <= height {
        return MapLevel::Namespaces;
    }
    let mut tenants: Vec<&str> = rows
        .iter()
        .filter_map(|r| map.rows.get(*r as usize))
        .map(|r| r.tenant())
        .collect();
    tenants.sort_unstable();
    tenants.dedup();
    if tenants.len() > 1 {
        MapLevel::Tenants
    } else {
        MapLevel::Namespaces
    }
}

/// A band: the rows it aggregates and the filter that drilling into it applies.
#[derive(Clone, Debug, PartialEq)]
pub struct MapGroup {
    /// The tenant or `tenant/namespace`.
    pub label: String,
    /// Indices into [`BundleMap::rows`].
    pub rows: Vec<u32>,
    pub level: MapLevel,
}

impl MapGroup {
    /// `filter` narrowed to this band.
    pub fn drill(&self, filter: &MapFilter) -> MapFilter {
        let mut f = filter.clone();
        match self.level {
            MapLevel::Tenants => f.tenant = Some(self.label.clone()),
            MapLevel::Namespaces | MapLevel::Bundles => {
                f.only_namespace = Some(self.label.clone());
            }
        }
        f
    }
}

/// The bands of an aggregated level, in row order (tenants in order of their first namespace).
pub fn groups(map: &BundleMap, rows: &[u32], level: MapLevel) -> Vec<MapGroup> {
    let mut out: Vec<MapGroup> = Vec::new();
    let mut tenant_at: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for &r in rows {
        let Some(row) = map.rows.get(r as usize) else {
            continue;
        };
        match level {
            MapLevel::Tenants => {
                let t = row.tenant();
                if let Some(g) = tenant_at.get(t).and_then(|i| out.get_mut(*i)) {
                    g.rows.push(r);
                } else {
                    tenant_at.insert(t, out.len());
                    out.push(MapGroup {
                        label: t.to_string(),
                        rows: vec![r],
                        level,
                    });
                }
            }
            MapLevel::Namespaces | MapLevel::Bundles => out.push(MapGroup {
                label: row.namespace.clone(),
                rows: vec![r],
                level,
            }),
        }
    }
    out
}

/// One broker's part of a band.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OwnerShare {
    /// Index into [`BundleMap::brokers`], or [`NO_OWNER`].
    pub owner: u32,
    pub bytes_per_sec: f64,
    pub bundles: u32,
    /// Fraction of the band (of its load; of its bundles when it carries none).
    pub share: f64,
}

/// A band's owners and totals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupMix {
    /// Largest share first; ties by broker index, so the order is stable.
    pub shares: Vec<OwnerShare>,
    pub bytes_per_sec: f64,
    pub bundles: u32,
    /// Bundles the plan moves (highlighted segments) in this band.
    pub moved: u32,
    /// Whether the selected bundle is in this band.
    pub selected: bool,
}

/// Owner shares of each band, with `owners` in place of the snapshot's when given (the plan's
/// "after" view) and the plan's moved bundles counted. One pass over the bands' segments.
pub fn mixes(map: &BundleMap, groups: &[MapGroup], style: &RenderStyle<'_>) -> Vec<GroupMix> {
    let mut by_owner: rustc_hash::FxHashMap<u32, (f64, u32)> = rustc_hash::FxHashMap::default();
    groups
        .iter()
        .map(|g| {
            by_owner.clear();
            let mut mix = GroupMix::default();
            for row in g.rows.iter().filter_map(|r| map.rows.get(*r as usize)) {
                for seg in row.start..row.end {
                    let Some(s) = map.segments.get(seg) else {
                        continue;
                    };
                    let owner = style
                        .owners
                        .and_then(|o| o.get(seg).copied())
                        .unwrap_or(s.owner);
                    let e = by_owner.entry(owner).or_insert((0.0, 0));
                    e.0 += f64::from(s.bytes_per_sec);
                    e.1 += 1;
                    mix.bytes_per_sec += f64::from(s.bytes_per_sec);
                    mix.bundles += 1;
                    if !style.highlighted.is_empty()
                        && style.highlighted.binary_search(&seg).is_ok()
                    {
                        mix.moved += 1;
                    }
                    if style.selected == Some(seg) {
                        mix.selected = true;
                    }
                }
            }
            let by_load = mix.bytes_per_sec > 0.0;
            let total = if by_load {
                mix.bytes_per_sec
            } else {
                f64::from(mix.bundles.max(1))
            };
            mix.shares = by_owner
                .iter()
                .map(|(&owner, &(bytes, bundles))| OwnerShare {
                    owner,
                    bytes_per_sec: bytes,
                    bundles,
                    share: if by_load { bytes } else { f64::from(bundles) } / total,
                })
                .collect();
            mix.shares.sort_by(|a, b| {
                b.share
                    .total_cmp(&a.share)
                    .then_with(|| a.owner.cmp(&b.owner))
            });
            mix
        })
        .collect()
}

/// The band and owner under canvas pixel (`x_px`, `y_px`).
pub fn hit(mixes: &[GroupMix], vp: &Viewport, x_px: f64, y_px: f64) -> Option<(usize, usize)> {
    let r = (vp.row0 + y_px / vp.row_height_px.max(1.0)).floor();
    if r.is_nan() || r < 0.0 {
        return None;
    }
    let g = r as usize;
    let mix = mixes.get(g)?;
    let at = vp.hash_at(x_px);
    let mut start = 0.0;
    for (i, s) in mix.shares.iter().enumerate() {
        let end = start + s.share;
        if at >= start && at < end {
            return Some((g, i));
        }
        start = end;
    }
    None
}

/// Draws the visible bands into `buf` (RGBA, `width_px × height_px × 4` bytes): each band split by
/// owner share, shaded by the band's load relative to the busiest band, a mark at the left edge
/// of bands holding moved (or the selected) bundles. Returns the number of parts drawn.
pub fn render_rgba(
    map: &BundleMap,
    mixes: &[GroupMix],
    vp: &Viewport,
    style: &RenderStyle<'_>,
    buf: &mut [u8],
) -> usize {
    let Some((w, h)) = style.clear(vp, buf) else {
        return 0;
    };
    let bg = style.background_px();
    let (grey, unowned) = style.neutral_colours();
    let busiest = mixes
        .iter()
        .map(|m| m.bytes_per_sec)
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let top = (SHADES - 1) as f64;
    let rh = vp.row_height_px.max(1.0);
    let gap = if rh >= 6.0 { 1.0 } else { 0.0 };
    let row_bytes = w * 4;
    let mut line = vec![0u8; row_bytes];
    let mut drawn = 0;
    let first = vp.row0.floor().max(0.0) as usize;
    for (k, mix) in mixes.iter().enumerate().skip(first) {
        let y_top = ((k as f64 - vp.row0) * rh).round();
        if y_top >= h as f64 {
            break;
        }
        let y0 = y_top.max(0.0) as usize;
        let y1 = (((k + 1) as f64 - vp.row0) * rh - gap)
            .round()
            .clamp(0.0, h as f64) as usize;
        if y1 <= y0 {
            continue;
        }
        let level = (libm::sqrt(mix.bytes_per_sec / busiest) * top)
            .round()
            .clamp(0.0, top) as u8;
        for px in line.chunks_exact_mut(4) {
            px.copy_from_slice(&bg);
        }
        let mut start = 0.0;
        let mut last_col: isize = -1;
        for s in &mix.shares {
            let end = start + s.share;
            let c0 = (vp.px_of(start).max(0.0).round() as isize).max(last_col + 1);
            let c1 = (vp.px_of(end).min(w as f64).round() as isize).min(w as isize);
            start = end;
            if c1 <= c0 {
                continue;
            }
            let colour = match style.focus_broker {
                Some(f) if f != s.owner && s.owner != NO_OWNER => grey,
                _ if s.owner == NO_OWNER => unowned,
                _ => map.shaded_colour(s.owner, level).unwrap_or(unowned),
            };
            if let Some(dst) = line.get_mut(c0 as usize * 4..c1 as usize * 4) {
                for px in dst.chunks_exact_mut(4) {
                    px.copy_from_slice(&colour);
                }
            }
            last_col = c1 - 1;
            drawn += 1;
        }
        if mix.moved > 0 || mix.selected {
            let mark = match (mix.selected, style.dark) {
                (true, _) => [230, 0, 160, 255],
                (false, true) => [255, 255, 255, 255],
                (false, false) => [20, 20, 20, 255],
            };
            for px in line.chunks_exact_mut(4).take(4) {
                px.copy_from_slice(&mark);
            }
        }
        for y in y0..y1 {
            if let Some(dst) = buf.get_mut(y * row_bytes..(y + 1) * row_bytes) {
                dst.copy_from_slice(&line);
            }
        }
    }
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, BundlesData, NamespaceSnapshot, Snapshot};
    use crate::synthetic::{SyntheticSpec, generate};

    /// `tenants` tenants of `per_tenant` one-bundle namespaces; bundle `k` on broker `k % 3`.
    fn cluster(tenants: usize, per_tenant: usize) -> Snapshot {
        let mut s = Snapshot::default();
        let mut brokers = vec![BrokerSnapshot::default(); 3];
        for t in 0..tenants {
            for n in 0..per_tenant {
                let ns = format!("t{t:02}/ns{n:03}");
                s.namespaces.insert(
                    ns.clone(),
                    NamespaceSnapshot {
                        bundles: BundlesData {
                            boundaries: vec!["0x00000000".into(), "0xffffffff".into()],
                            num_bundles: 1,
                        },
                        ..NamespaceSnapshot::default()
                    },
                );
                brokers[(t * per_tenant + n) % 3]
                    .local_broker_data
                    .bundles
                    .push(format!("{ns}/0x00000000_0xffffffff"));
            }
        }
        for (i, b) in brokers.into_iter().enumerate() {
            s.brokers.insert(format!("b{i}:8080"), b);
        }
        s
    }

    #[test]
    fn the_demo_shows_its_five_namespaces_bundle_by_bundle_heartbeats_folded() {
        // The demo: 12 brokers, 5 tenant namespaces, one heartbeat namespace per broker.
        let demo = generate(&SyntheticSpec::demo(), 1).unwrap_or_default();
        let m = BundleMap::from_snapshot(&demo);
        assert_eq!(m.rows.len(), 17);
        assert_eq!(m.system_rows(), 12);
        let rows = m.filtered_rows(&MapFilter::default());
        assert_eq!(rows.len(), 5);
        assert!(rows.iter().all(|r| !m.rows[*r as usize].system));
        let all = MapFilter {
            show_system: true,
            ..MapFilter::default()
        };
        assert_eq!(m.filtered_rows(&all).len(), 17);
        assert_eq!(auto_level(&m, &rows, 420), MapLevel::Bundles);
    }

    #[test]
    fn cluster_scale_aggregates_by_tenant_then_namespace_then_bundles() {
        let m = BundleMap::from_snapshot(&cluster(20, 100));
        let rows = m.filtered_rows(&MapFilter::default());
        assert_eq!(rows.len(), 2_000);
        assert_eq!(auto_level(&m, &rows, 420), MapLevel::Tenants);
        let tenants = groups(&m, &rows, MapLevel::Tenants);
        assert_eq!(tenants.len(), 20);
        assert_eq!(tenants[3].label, "t03");
        assert_eq!(tenants[3].rows.len(), 100);
        // Drilling into a tenant: 100 bands of 4 px fit 420 px.
        let f = tenants[3].drill(&MapFilter::default());
        let rows = m.filtered_rows(&f);
        assert_eq!(auto_level(&m, &rows, 420), MapLevel::Namespaces);
        let namespaces = groups(&m, &rows, MapLevel::Namespaces);
        let f = namespaces[7].drill(&f);
        assert_eq!(f.only_namespace.as_deref(), Some("t03/ns007"));
        let rows = m.filtered_rows(&f);
        assert_eq!(rows.len(), 1);
        assert_eq!(auto_level(&m, &rows, 420), MapLevel::Bundles);
    }

    #[test]
    fn owner_shares_follow_load_and_the_plan() {
        // One tenant of 3 namespaces, bundles on b0, b1, b2; every bundle carries Pulsar's default
        // load (no BundleData, no lastStats: 100,000 B/s), so each broker holds a third.
        let m = BundleMap::from_snapshot(&cluster(1, 3));
        let rows = m.filtered_rows(&MapFilter::default());
        let g = groups(&m, &rows, MapLevel::Tenants);
        let mix = &mixes(&m, &g, &RenderStyle::default())[0];
        assert_eq!(mix.bundles, 3);
        assert_eq!(mix.bytes_per_sec, 300_000.0);
        let owners: Vec<u32> = mix.shares.iter().map(|s| s.owner).collect();
        assert_eq!(owners, vec![0, 1, 2]);
        assert!(
            mix.shares
                .iter()
                .all(|s| (s.share - 1.0 / 3.0).abs() < 1e-12)
        );
        // After a plan that moves the b1 and b2 bundles to b0: b0 holds everything, two moved.
        let after = vec![0, 0, 0];
        let style = RenderStyle {
            owners: Some(&after),
            highlighted: &[1, 2],
            ..RenderStyle::default()
        };
        let mix = &mixes(&m, &g, &style)[0];
        assert_eq!(mix.shares.len(), 1);
        assert_eq!(mix.shares[0].share, 1.0);
        assert_eq!(mix.moved, 2);
    }

    #[test]
    fn bands_are_drawn_in_owner_colours_by_share() {
        let m = BundleMap::from_snapshot(&cluster(2, 3));
        let rows = m.filtered_rows(&MapFilter::default());
        let g = groups(&m, &rows, MapLevel::Tenants);
        let style = RenderStyle {
            background: [1, 2, 3],
            ..RenderStyle::default()
        };
        let mx = mixes(&m, &g, &style);
        let vp = Viewport {
            x0: 0.0,
            x1: 1.0,
            row0: 0.0,
            row_height_px: 10.0,
            width_px: 90,
            height_px: 30,
        };
        let mut buf = vec![0u8; 90 * 30 * 4];
        assert_eq!(render_rgba(&m, &mx, &vp, &style, &mut buf), 6);
        let px = |x: usize, y: usize| -> [u8; 4] {
            let i = (y * 90 + x) * 4;
            [buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]
        };
        // Both bands carry the busiest load: full shade; thirds of 90 px per owner.
        let full = |b: u32| m.shaded_colour(b, (SHADES - 1) as u8).unwrap();
        assert_eq!(px(10, 5), full(0));
        assert_eq!(px(40, 5), full(1));
        assert_eq!(px(80, 15), full(2));
        assert_eq!(px(10, 25), [1, 2, 3, 255]);
        assert_eq!(hit(&mx, &vp, 40.0, 15.0), Some((1, 1)));
        assert_eq!(hit(&mx, &vp, 40.0, 25.0), None);
    }
}
