//! A namespace's bundle layout (`NamespaceBundles`): sorted boundaries `[0, b1, …, 0xffffffff]` that
//! tile the 32-bit hash space, the topic → bundle lookup, and conversion from/to `BundlesData`.
//!
//! **Lookup quirk (documented deviation).** Pulsar binary-searches the hash in the boundaries and takes
//! the bundle whose lower bound is the greatest boundary `<= hash`. For `hash == 0xffffffff` that is the
//! last boundary, and Java indexes one past the bundle list (`IndexOutOfBoundsException`). We return
//! the last bundle instead, which is what the closed upper end of the last range means; the case needs
//! a topic whose CRC-32 is exactly `0xffffffff`.

use super::{BundleRange, NamingError, TopicName, default_boundaries, parse_hex_boundary};
use crate::model::BundlesData;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamespaceBundles {
    namespace: String,
    boundaries: Vec<u32>,
}

/// Checks that `boundaries` tile `0x00000000..=0xffffffff`: at least two, strictly increasing, first
/// `0x00000000`, last `0xffffffff`.
pub fn validate_boundaries(boundaries: &[u32]) -> Result<(), NamingError> {
    let bad = |why: &str| NamingError::BadBoundaries(why.to_string());
    if boundaries.len() < 2 {
        return Err(bad("at least two boundaries are needed"));
    }
    if boundaries.first() != Some(&0) {
        return Err(bad("the first boundary must be 0x00000000"));
    }
    if boundaries.last() != Some(&u32::MAX) {
        return Err(bad("the last boundary must be 0xffffffff"));
    }
    if let Some(pair) = boundaries.windows(2).find(|w| w.first() >= w.get(1)) {
        let (a, b) = (pair.first().copied(), pair.get(1).copied());
        return Err(NamingError::BadBoundaries(format!(
            "boundaries must be strictly increasing (0x{:08x} is followed by 0x{:08x})",
            a.unwrap_or_default(),
            b.unwrap_or_default()
        )));
    }
    Ok(())
}

impl NamespaceBundles {
    /// A layout from explicit boundaries (validated with [`validate_boundaries`]).
    pub fn new(namespace: &str, boundaries: Vec<u32>) -> Result<Self, NamingError> {
        validate_boundaries(&boundaries)?;
        Ok(Self {
            namespace: namespace.to_string(),
            boundaries,
        })
    }

    /// `PoliciesUtil.getBundles(n)`: the layout a namespace created with `n` bundles gets.
    pub fn with_default_partition(namespace: &str, num_bundles: u32) -> Result<Self, NamingError> {
        let boundaries = default_boundaries(num_bundles).ok_or(NamingError::ZeroBundles)?;
        Self::new(namespace, boundaries)
    }

    /// From `BundlesData` (`pulsar-admin namespaces bundles`); boundaries in any `Long.decode` form.
    /// `numBundles` is not trusted: the boundaries decide.
    pub fn from_bundles_data(namespace: &str, data: &BundlesData) -> Result<Self, NamingError> {
        let boundaries = data
            .boundaries
            .iter()
            .map(|b| parse_hex_boundary(b))
            .collect::<Result<Vec<u32>, _>>()?;
        Self::new(namespace, boundaries)
    }

    /// `BundlesData` as Pulsar writes it: lower-case `0x%08x`, `numBundles = len - 1`.
    pub fn to_bundles_data(&self) -> BundlesData {
        BundlesData {
            boundaries: self
                .boundaries
                .iter()
                .map(|&b| super::boundary_text(b))
                .collect(),
            num_bundles: self.to_num_bundles(),
        }
    }

    /// [`Self::to_bundles_data`] written over `out`: its boundary strings are rewritten in place
    /// and only the ones it lacks allocated, because a split batch rewrites the layouts of up to
    /// a thousand namespaces of ~200 boundaries each, and an allocation per boundary was most of it.
    pub fn write_bundles_data(&self, out: &mut BundlesData) {
        out.boundaries.truncate(self.boundaries.len());
        let kept = out.boundaries.len();
        for (text, &b) in out.boundaries.iter_mut().zip(&self.boundaries) {
            text.clear();
            super::push_boundary(text, b);
        }
        out.boundaries.extend(
            self.boundaries
                .iter()
                .skip(kept)
                .map(|&b| super::boundary_text(b)),
        );
        out.num_bundles = self.to_num_bundles();
    }

    /// `numBundles` as [`Self::to_bundles_data`] writes it.
    pub fn to_num_bundles(&self) -> i32 {
        i32::try_from(self.len()).unwrap_or(i32::MAX)
    }

    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    pub fn boundaries(&self) -> &[u32] {
        &self.boundaries
    }

    /// Number of bundles.
    pub fn len(&self) -> usize {
        self.boundaries.len().saturating_sub(1)
    }

    /// Never true for a validated layout; present for API completeness.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bundles' ranges, in hash order.
    pub fn ranges(&self) -> impl Iterator<Item = BundleRange> + '_ {
        self.boundaries.windows(2).filter_map(|w| match w {
            [lo, hi] => BundleRange::new(*lo, *hi).ok(),
            _ => None,
        })
    }

    /// Full bundle names `tenant/ns/0x…_0x…`.
    pub fn bundle_names(&self) -> Vec<String> {
        self.ranges()
            .map(|r| format!("{}/{}", self.namespace, r))
            .collect()
    }

    /// Index of the bundle holding `hash` (`NamespaceBundles.getBundle(long)`; see the module doc for
    /// `0xffffffff`).
    pub fn bundle_index_for_hash(&self, hash: u32) -> usize {
        let idx = match self.boundaries.binary_search(&hash) {
            Ok(i) => i,
            Err(insertion) => insertion.saturating_sub(1),
        };
        idx.min(self.len().saturating_sub(1))
    }

    /// The range holding `hash`.
    pub fn bundle_for_hash(&self, hash: u32) -> BundleRange {
        let i = self.bundle_index_for_hash(hash);
        match (self.boundaries.get(i), self.boundaries.get(i + 1)) {
            (Some(&lo), Some(&hi)) => BundleRange { lo, hi },
            // Unreachable for a validated layout (at least two boundaries).
            _ => BundleRange::FULL,
        }
    }

    /// `NamespaceBundles.findBundle(topic)`: refuses a topic of another namespace
    /// (`IllegalArgumentException` in Pulsar).
    pub fn find_bundle(&self, topic: &TopicName) -> Result<BundleRange, NamingError> {
        if topic.namespace.as_str() != self.namespace {
            return Err(NamingError::TopicNotInNamespace {
                topic: topic.complete_name().to_string(),
                namespace: self.namespace.clone(),
            });
        }
        Ok(self.bundle_for_hash(topic.bundle_hash()))
    }

    /// Position of a bundle of exactly this range in the layout.
    pub fn position_of(&self, range: BundleRange) -> Option<usize> {
        self.ranges().position(|r| r == range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_lower_closed_upper_open() {
        let ns = NamespaceBundles::with_default_partition("public/default", 4).unwrap();
        assert_eq!(ns.bundle_index_for_hash(0), 0);
        assert_eq!(ns.bundle_index_for_hash(0x3fff_ffff), 0);
        assert_eq!(ns.bundle_index_for_hash(0x4000_0000), 1);
        assert_eq!(ns.bundle_index_for_hash(0xc000_0000), 3);
        assert_eq!(ns.bundle_index_for_hash(u32::MAX), 3);
        let t = TopicName::parse("my-topic").unwrap();
        assert_eq!(
            ns.find_bundle(&t).unwrap().to_string(),
            "0x00000000_0x40000000"
        );
        let other = TopicName::parse("persistent://other/ns/x").unwrap();
        assert!(ns.find_bundle(&other).is_err());
    }

    /// Over a longer, shorter or equally long layout (and an odd `numBundles`), the result is
    /// the freshly written one.
    #[test]
    fn writing_over_a_layout_equals_writing_a_new_one() {
        let layouts = [1u32, 2, 4, 7, 16]
            .map(|n| NamespaceBundles::with_default_partition("t/ns", n).unwrap());
        for layout in &layouts {
            for old in &layouts {
                let mut out = old.to_bundles_data();
                out.num_bundles = -3;
                layout.write_bundles_data(&mut out);
                assert_eq!(out, layout.to_bundles_data());
            }
            let mut empty = BundlesData::default();
            layout.write_bundles_data(&mut empty);
            assert_eq!(empty, layout.to_bundles_data());
        }
    }

    #[test]
    fn boundaries_must_tile_the_hash_space() {
        assert!(validate_boundaries(&[0, u32::MAX]).is_ok());
        assert!(validate_boundaries(&[0]).is_err());
        assert!(validate_boundaries(&[1, u32::MAX]).is_err());
        assert!(validate_boundaries(&[0, 0xffff_fffe]).is_err());
        assert!(validate_boundaries(&[0, 5, 5, u32::MAX]).is_err());
        assert!(validate_boundaries(&[0, 9, 5, u32::MAX]).is_err());
        let data = BundlesData {
            boundaries: vec![
                "0x00000000".into(),
                "0x40000000".into(),
                "0xFFFFFFFF".into(),
            ],
            num_bundles: 2,
        };
        let ns = NamespaceBundles::from_bundles_data("t/ns", &data).unwrap();
        assert_eq!(
            ns.to_bundles_data().boundaries,
            ["0x00000000", "0x40000000", "0xffffffff"]
        );
    }

    proptest::proptest! {
        #[test]
        fn every_hash_falls_in_the_bundle_found(hash: u32, n in 1u32..300) {
            let ns = NamespaceBundles::with_default_partition("t/ns", n).unwrap();
            let range = ns.bundle_for_hash(hash);
            proptest::prop_assert!(range.contains(hash));
            proptest::prop_assert_eq!(ns.ranges().filter(|r| r.contains(hash)).count(), 1);
        }
    }
}
