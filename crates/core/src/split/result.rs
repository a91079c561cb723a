//! A split ready to apply: the parent, the cut points, the children and the namespace's layout
//! after it, with each child's share of the parent's hash range (what a split gives each child of
//! the parent's load). Computed on a plan's snapshot (`plan::splits`) or the simulator's cluster,
//! and applied by either.

use crate::naming::{BundleRange, NamespaceBundles};

/// A split ready to apply.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitResult {
    pub namespace: String,
    pub parent: BundleRange,
    pub cut_points: Vec<u32>,
    pub children: Vec<BundleRange>,
    pub layout_after: NamespaceBundles,
}

impl SplitResult {
    /// Each child's full bundle name with its share of the parent's hash range: what a split gives
    /// each child of the parent's load, in both hosts of the splitter task (a plan's batch, the
    /// simulator's cluster).
    pub fn children_with_shares(&self) -> Vec<(String, f64)> {
        self.children
            .iter()
            .map(|c| {
                (
                    format!("{}/{}", self.namespace, c),
                    range_fraction(*c, self.parent),
                )
            })
            .collect()
    }
}

/// The child's share of its parent's hash range (what a split gives each child of the parent's load).
fn range_fraction(child: BundleRange, parent: BundleRange) -> f64 {
    let width = |r: BundleRange| (u64::from(r.hi) - u64::from(r.lo)) as f64;
    let parent_width = width(parent);
    if parent_width > 0.0 {
        width(child) / parent_width
    } else {
        0.0
    }
}
