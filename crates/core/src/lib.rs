//! `lbplan-core`: a pure, deterministic re-implementation of Apache Pulsar's broker load balancing.
//!
//! Nothing in this crate reads a clock, the network, the file system or an unseeded random source:
//! time is passed in (cycle index or milliseconds), randomness comes from a [`rng::Picker`] the caller
//! owns, so every result is reproducible from (snapshot, config, seed).

pub mod act;
pub mod calendar;
pub mod config;
pub mod extensible;
pub mod history;
pub mod import;
pub mod isolation;
pub mod leader;
pub mod load;
pub mod model;
pub mod modular;
pub mod naming;
pub mod plan;
pub mod reason;
pub mod rebalance;
pub mod release;
pub mod replay;
pub mod rng;
pub mod simulate;
pub mod split;
pub mod synthetic;
pub mod text;
pub mod typed_json;
pub mod units;
pub mod upgrade;
pub mod view;
pub mod watch;
