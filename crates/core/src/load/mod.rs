//! The one load model: what a bundle costs wherever it runs, and what a broker's usage is made of.
//!
//! A bundle carries absolute *work* — CPU in cores, heap and direct memory in MiB, NIC in and out
//! in bytes/s — estimated once from its owner's report ([`work`]); a broker's usage is its *idle
//! baseline* (what its bundles do not explain) plus the work of the bundles it hosts, each turned
//! into a percentage against that broker's own limits. Every prediction reads it: a plan's after
//! state and verdict, what-ifs, the rebalance search, the simulator's reports (whose own load model
//! only changes traffic over time) and `history`'s measure of the model against what a cluster did.
//! [`explain`] says what each predicted number rests on, [`accuracy`] measures the model on a
//! recorded series, [`calibration`] fits per-broker CPU cost factors from one. See
//! `docs/plan-model.md` §4.

pub mod accuracy;
pub mod bundle_load;
pub mod calibration;
pub mod explain;
pub mod locate;
pub mod work;

pub use work::{
    Amounts, BundleShare, LoadModel, OwnerEstimate, OwnerTraffic, ShareBasis, Work, estimate_owner,
    resource_names,
};
