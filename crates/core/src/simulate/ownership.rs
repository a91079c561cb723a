//! One change of a bundle's ownership or layout that a simulated cycle made: what the metrics
//! record per cycle and the timeline replays.

use serde::{Deserialize, Serialize};

use crate::naming::{BundleRange, parse_bundle_name};

/// One change of ownership or layout, in the order the cycle made it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum OwnershipChange {
    /// `bundle` is now owned by `broker`; `None` when its broker went away and no broker was live
    /// to take it.
    Owner {
        bundle: String,
        broker: Option<String>,
    },
    /// `bundle` was split at `cut_points`; the children stay on the parent's owner.
    Split {
        bundle: String,
        cut_points: Vec<u32>,
    },
}

impl OwnershipChange {
    /// The bundles this change leaves changed: the bundle that got an owner, or a split's
    /// children (the parent's range cut at `cut_points`). Empty for a name that does not parse.
    pub fn changed_bundles(&self) -> Vec<String> {
        match self {
            OwnershipChange::Owner { bundle, .. } => vec![bundle.clone()],
            OwnershipChange::Split { bundle, cut_points } => {
                let Ok(name) = parse_bundle_name(bundle) else {
                    return Vec::new();
                };
                let edges: Vec<u32> = std::iter::once(name.range.lo)
                    .chain(cut_points.iter().copied())
                    .chain(std::iter::once(name.range.hi))
                    .collect();
                edges
                    .windows(2)
                    .filter_map(|w| match w {
                        [lo, hi] => BundleRange::new(*lo, *hi).ok(),
                        _ => None,
                    })
                    .map(|child| format!("{}/{child}", name.namespace))
                    .collect()
            }
        }
    }
}
