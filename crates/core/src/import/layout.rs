//! Namespace layouts as sorted boundary lists: membership of a bundle range, and inference of a
//! layout from the bundle names seen when no `BundlesData` was exported (tiling, overlaps, holes).

use crate::naming::BundleRange;

/// Whether `r` is exactly one bundle of the layout.
pub(crate) fn has_bundle(boundaries: &[u32], r: BundleRange) -> bool {
    match boundaries.binary_search(&r.lo) {
        Ok(i) => boundaries.get(i + 1) == Some(&r.hi),
        Err(_) => false,
    }
}

/// The layout implied by a set of bundle ranges.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Inferred {
    /// The ranges tile `[0x00000000, 0xffffffff]` exactly.
    Tiles(Vec<u32>),
    /// The ranges leave holes; each hole was taken as one bundle (a guess).
    Holes {
        boundaries: Vec<u32>,
        holes: Vec<BundleRange>,
    },
}

/// Infers a layout from ranges tagged with an origin index. Identical ranges may repeat; two ranges
/// that overlap give `Err((a, b))` with their origins.
pub(crate) fn infer(ranges: &mut [(BundleRange, usize)]) -> Result<Inferred, (usize, usize)> {
    ranges.sort_unstable();
    let mut boundaries = vec![0u32];
    let mut holes = Vec::new();
    let mut prev: Option<(BundleRange, usize)> = None;
    for &(r, origin) in ranges.iter() {
        if let Some((p, p_origin)) = prev {
            if p == r {
                continue;
            }
            if r.lo < p.hi {
                return Err((p_origin, origin));
            }
        }
        let cur = boundaries.last().copied().unwrap_or(0);
        if r.lo > cur {
            holes.push(BundleRange { lo: cur, hi: r.lo });
            boundaries.push(r.lo);
        }
        boundaries.push(r.hi);
        prev = Some((r, origin));
    }
    let cur = boundaries.last().copied().unwrap_or(0);
    if cur < u32::MAX {
        holes.push(BundleRange {
            lo: cur,
            hi: u32::MAX,
        });
        boundaries.push(u32::MAX);
    }
    if holes.is_empty() {
        Ok(Inferred::Tiles(boundaries))
    } else {
        Ok(Inferred::Holes { boundaries, holes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(lo: u32, hi: u32) -> BundleRange {
        BundleRange { lo, hi }
    }

    #[test]
    fn tiles_holes_and_overlaps() {
        let mut t = vec![
            (r(0x8000_0000, u32::MAX), 0),
            (r(0, 0x8000_0000), 1),
            (r(0, 0x8000_0000), 2),
        ];
        assert_eq!(
            infer(&mut t),
            Ok(Inferred::Tiles(vec![0, 0x8000_0000, u32::MAX]))
        );
        let mut h = vec![(r(0x4000_0000, 0x8000_0000), 0)];
        assert_eq!(
            infer(&mut h),
            Ok(Inferred::Holes {
                boundaries: vec![0, 0x4000_0000, 0x8000_0000, u32::MAX],
                holes: vec![r(0, 0x4000_0000), r(0x8000_0000, u32::MAX)],
            })
        );
        let mut o = vec![(r(0, 0x8000_0000), 7), (r(0x4000_0000, u32::MAX), 9)];
        assert_eq!(infer(&mut o), Err((7, 9)));
        assert!(has_bundle(
            &[0, 0x8000_0000, u32::MAX],
            r(0x8000_0000, u32::MAX)
        ));
        assert!(!has_bundle(&[0, 0x8000_0000, u32::MAX], r(0, u32::MAX)));
    }
}
