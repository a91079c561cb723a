//! Errors of the split algorithms and of the factory's split arithmetic (Pulsar's
//! `IllegalArgumentException`s there).

use crate::naming::BundleRange;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// `canSplitBundle`: `hi - lo > 1` is required.
    #[error("bundle {0} can't be split further since range not larger than 1")]
    RangeNotSplittable(BundleRange),
    /// `specified_positions_divide` without positions.
    #[error("SplitBoundaries can't be empty")]
    EmptyPositions,
    /// Explicit boundaries must lie strictly inside the bundle.
    #[error("split boundary {boundary:#x} is not strictly inside bundle {range}")]
    BoundaryOutsideBundle { boundary: u64, range: BundleRange },
    /// A split into 0 parts.
    #[error("the number of bundles to split into must be at least 1")]
    ZeroParts,
    /// A child would be empty: repeated boundaries, or more parts than the range is wide. Pulsar would
    /// create the empty bundle; we refuse (documented deviation).
    #[error("splitting {range} would create an empty bundle")]
    EmptyChild { range: BundleRange },
    /// The bundle is not one of the namespace's bundles.
    #[error("bundle {0} is not in the namespace's layout")]
    TargetNotFound(BundleRange),
}
