//! `NamespaceBundleFactory.splitBundles(bundle, n, boundaries)`: the children of a split and the
//! namespace layout after it.

use super::SplitError;
use crate::naming::{BundleRange, NamespaceBundles};

/// A completed split: the children (in hash order) and the whole layout after the split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactorySplit {
    pub children: Vec<BundleRange>,
    pub layout_after: NamespaceBundles,
}

/// The cut points of a split of `range` into `n` parts, or at explicit `boundaries`:
/// * the range must be wider than 1 (`canSplitBundle`);
/// * explicit boundaries (non-empty) are sorted, the first must be `> lo` and the last `< hi`;
/// * otherwise `seg = (hi - lo) / n` (integer) and the cuts are `lo + seg, …, lo + (n-1)·seg`; the
///   last child ends at `hi`. Splitting the full range in two gives `0x7fffffff`.
///
/// A child that would be empty (repeated boundaries, or `n` larger than the range is wide) is refused
/// (Pulsar would create it).
pub fn split_cut_points(
    range: BundleRange,
    n: u32,
    boundaries: Option<&[u32]>,
) -> Result<Vec<u32>, SplitError> {
    if !range.is_splittable() {
        return Err(SplitError::RangeNotSplittable(range));
    }
    let cuts = match boundaries.filter(|b| !b.is_empty()) {
        Some(given) => {
            let mut sorted = given.to_vec();
            sorted.sort_unstable();
            for &b in [sorted.first(), sorted.last()].into_iter().flatten() {
                if b <= range.lo || b >= range.hi {
                    return Err(SplitError::BoundaryOutsideBundle {
                        boundary: u64::from(b),
                        range,
                    });
                }
            }
            sorted
        }
        None => {
            if n == 0 {
                return Err(SplitError::ZeroParts);
            }
            let seg = (range.hi - range.lo) / n;
            // `lo + k·seg <= lo + (hi - lo) < 2^32` for `k < n`, so every cut fits.
            (1..n)
                .filter_map(|k| {
                    u64::from(range.lo)
                        .checked_add(u64::from(k) * u64::from(seg))
                        .and_then(|c| u32::try_from(c).ok())
                })
                .collect()
        }
    };
    // Children must be non-empty: lo < c1 < … < ck < hi.
    let mut previous = range.lo;
    for &c in cuts.iter().chain(std::iter::once(&range.hi)) {
        if c <= previous {
            return Err(SplitError::EmptyChild { range });
        }
        previous = c;
    }
    Ok(cuts)
}

/// `splitBundles`: splits `target`, which must be one of `layout`'s bundles, into `n` parts or at
/// `boundaries` (see [`split_cut_points`]).
pub fn split_bundles(
    layout: &NamespaceBundles,
    target: BundleRange,
    n: u32,
    boundaries: Option<&[u32]>,
) -> Result<FactorySplit, SplitError> {
    let cuts = split_cut_points(target, n, boundaries)?;
    let Some(position) = layout.position_of(target) else {
        return Err(SplitError::TargetNotFound(target));
    };
    let old = layout.boundaries();
    let mut after = Vec::with_capacity(old.len() + cuts.len());
    after.extend(old.get(..=position).unwrap_or_default());
    after.extend(&cuts);
    after.extend(old.get(position + 1..).unwrap_or_default());
    let layout_after = NamespaceBundles::new(layout.namespace(), after)
        .map_err(|_| SplitError::EmptyChild { range: target })?;
    let mut edges = Vec::with_capacity(cuts.len() + 2);
    edges.push(target.lo);
    edges.extend(&cuts);
    edges.push(target.hi);
    let children = edges
        .windows(2)
        .filter_map(|w| match w {
            [lo, hi] => BundleRange::new(*lo, *hi).ok(),
            _ => None,
        })
        .collect();
    Ok(FactorySplit {
        children,
        layout_after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(children: &[BundleRange]) -> Vec<String> {
        children.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn full_range_in_four_is_not_the_default_partition() {
        // split/factory_split_in_four.json (derived) and reference §5.1.
        let layout = NamespaceBundles::with_default_partition("pulsar/ns1", 1).unwrap();
        let s = split_bundles(&layout, BundleRange::FULL, 4, None).unwrap();
        assert_eq!(
            names(&s.children),
            [
                "0x00000000_0x3fffffff",
                "0x3fffffff_0x7ffffffe",
                "0x7ffffffe_0xbffffffd",
                "0xbffffffd_0xffffffff"
            ]
        );
        assert_eq!(s.layout_after.len(), 4);
    }

    #[test]
    fn fixed_boundaries_must_be_strictly_inside() {
        let r = BundleRange::FULL;
        assert!(split_cut_points(r, 2, Some(&[0])).is_err());
        assert!(split_cut_points(r, 2, Some(&[u32::MAX])).is_err());
        assert_eq!(split_cut_points(r, 2, Some(&[10])), Ok(vec![10]));
        assert!(split_cut_points(BundleRange::new(0, 1).unwrap(), 2, None).is_err());
        assert!(split_cut_points(BundleRange::new(0, 2).unwrap(), 4, None).is_err());
    }

    proptest::proptest! {
        #[test]
        fn children_tile_the_parent(lo: u32, width in 2u32.., n in 1u32..64) {
            let hi = lo.saturating_add(width);
            proptest::prop_assume!(u64::from(hi) - u64::from(lo) >= u64::from(n).max(2));
            let parent = BundleRange::new(lo, hi).unwrap();
            let cuts = split_cut_points(parent, n, None).unwrap();
            proptest::prop_assert_eq!(cuts.len() as u32, n - 1);
            let mut edges = vec![lo];
            edges.extend(&cuts);
            edges.push(hi);
            proptest::prop_assert!(edges.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
