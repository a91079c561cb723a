//! `lbplan watch`'s rules, pure: what the leader would do at its next cycle on the latest
//! snapshot (`next_cycle`: the plan's own code, reduced to counts per broker), the history kept
//! explained as snapshots arrive over a bounded window (`live`), and the Prometheus text the
//! watch serves (`metrics`); with `--serve`, the status the dashboard polls to follow the watch
//! (`page`). The CLI only collects, stores, serves and keeps time.

pub mod live;
pub mod metrics;
pub mod next_cycle;
pub mod page;
