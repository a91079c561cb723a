//! A history from Prometheus: the brokers' `/metrics` as Prometheus kept them (range queries of
//! its HTTP API) turned into the series `history` explains, one snapshot per step. `range` reads
//! the API's answers within limits, `names` is which metrics and why, `mapping` says which broker
//! exposed a series, `build` makes the snapshots (deriving what the metrics do not hold the way
//! the leader would), `basis` states what was derived. The front ends query; this only reads.

pub mod basis;
pub mod build;
mod index;
pub mod mapping;
pub mod names;
pub mod range;
pub mod render;
pub mod upload;

pub use basis::{Gap, SeriesBasis};
pub use build::{SeriesBuilder, Window};
pub use mapping::BrokerMapping;
pub use range::{PromSeries, RangeError, RangeLimits, parse_error, parse_matrix};

use crate::model::Snapshot;
use crate::plan::PlanError;

use super::explain::{ExplainOptions, Explainer};
use super::report::HistoryReport;

/// Builds and explains a Prometheus history window by window: only one window's answers and
/// snapshots are held, besides the builder's index and the explainer's latest snapshot.
pub struct PromHistory {
    builder: SeriesBuilder,
    explainer: Option<Explainer>,
    opts: ExplainOptions,
    /// `false`: only build the snapshots (`collect --prometheus` stores them).
    explain: bool,
    snapshots: usize,
}

impl PromHistory {
    pub fn new(layout: Option<Snapshot>, mapping: BrokerMapping, opts: ExplainOptions) -> Self {
        Self {
            builder: SeriesBuilder::new(layout, mapping),
            explainer: None,
            opts,
            explain: true,
            snapshots: 0,
        }
    }

    /// Builds the snapshots without explaining them.
    pub fn build_only(layout: Option<Snapshot>, mapping: BrokerMapping) -> Self {
        Self {
            explain: false,
            ..Self::new(layout, mapping, ExplainOptions::default())
        }
    }

    /// One window's query results (`(metric name, series)`); `seen` gets each snapshot built
    /// (a `collect --prometheus` stores them).
    pub fn push_window(
        &mut self,
        window: Window,
        results: &[(&str, Vec<PromSeries>)],
        seen: &mut dyn FnMut(&Snapshot),
    ) -> Result<(), PlanError> {
        let Self {
            builder,
            explainer,
            opts,
            explain,
            snapshots,
        } = self;
        // Each snapshot is explained as soon as it is built (one step is held, not a window), and
        // the one the explainer is done with goes back to the builder to become the next.
        builder.window_each(window, results, |(s, changed)| {
            seen(&s);
            *snapshots += 1;
            if !*explain {
                return Ok(Some(s));
            }
            let ex = match explainer.as_mut() {
                Some(ex) => ex,
                None => explainer.insert(Explainer::new(&s, opts)?),
            };
            // The first push has no snapshot before it: no hint.
            ex.push_changed(s, changed.as_deref())
        })
    }

    /// Snapshots built so far.
    pub fn snapshots(&self) -> usize {
        self.snapshots
    }

    /// The basis alone (what `build_only` found).
    pub fn basis(self) -> SeriesBasis {
        self.builder.finish()
    }

    /// The report with its basis (an empty report when no step had metrics).
    pub fn finish(self) -> HistoryReport {
        let mut report = self
            .explainer
            .map_or_else(HistoryReport::empty, Explainer::finish);
        report.basis = self.builder.finish();
        report
    }
}
