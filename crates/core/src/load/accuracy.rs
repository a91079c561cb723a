//! The one load model checked against what a cluster did: for every move between two snapshots
//! of a series, the usage the model predicts for its source and destination (the earlier
//! snapshot's reports with the step's moves carried out, [`super::explain::explain_moves`])
//! against what the later snapshot reports, per resource, in percentage points. Traffic changes
//! between the snapshots count against the model: this is the error an operator reading a plan
//! would have seen.

use serde::{Deserialize, Serialize};

use crate::model::Snapshot;

use super::explain::{Move, explain_moves};
use super::work::LoadModel;

/// A prediction is "close" within this many percentage points.
pub const CLOSE_POINTS: f64 = 3.0;

/// One resource's errors over the series.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceError {
    pub resource: String,
    /// Predictions compared (a source or destination of a step with moves, each).
    pub predictions: usize,
    pub mean_abs_error_points: f64,
    /// 90 % of the predictions were at most this far off.
    pub p90_abs_error_points: f64,
    /// Share of predictions within ±[`CLOSE_POINTS`].
    pub within_3_points_fraction: f64,
    /// Mean of predicted − observed: positive when the model over-predicts.
    pub mean_error_points: f64,
}

/// The model's error on a series.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelAccuracy {
    /// Moves seen (a bundle owned by one live broker, then by another).
    pub moves: usize,
    /// Consecutive pairs of snapshots with at least one move.
    pub steps_with_moves: usize,
    pub resources: Vec<ResourceError>,
}

impl ModelAccuracy {
    /// "CPU predictions were within ±3 points on 90 % of 40 predictions (12 moves)".
    pub fn lines(&self) -> Vec<String> {
        if self.moves == 0 {
            return vec!["load model: no move between consecutive snapshots to check it on".into()];
        }
        let mut out = vec![format!(
            "load model, checked on {} move(s) in {} step(s): each source's and destination's predicted usage vs the next snapshot",
            self.moves, self.steps_with_moves
        )];
        for r in &self.resources {
            out.push(format!(
                "  {}: within ±{CLOSE_POINTS:.0} points on {:.0} % of {} predictions; mean |error| {:.1} points, 90th percentile {:.1}, bias {:+.1}",
                r.resource,
                r.within_3_points_fraction * 100.0,
                r.predictions,
                r.mean_abs_error_points,
                r.p90_abs_error_points,
                r.mean_error_points
            ));
        }
        out
    }
}

/// Accumulates the errors step by step (the history explainer's pairs of snapshots).
#[derive(Clone, Debug)]
pub struct AccuracyCheck {
    model: LoadModel,
    moves: usize,
    steps: usize,
    /// resource → signed errors.
    errors: Vec<(&'static str, Vec<f64>)>,
}

impl AccuracyCheck {
    pub fn new(model: LoadModel) -> Self {
        Self {
            model,
            moves: 0,
            steps: 0,
            errors: crate::load::resource_names()
                .into_iter()
                .map(|r| (r, Vec::new()))
                .collect(),
        }
    }

    /// The load model checked.
    pub fn model(&self) -> &LoadModel {
        &self.model
    }

    /// One step: the moves from `before` to `after`, predicted on `before`, compared with `after`.
    pub fn step(&mut self, before: &Snapshot, after: &Snapshot) {
        // Looked up once per bundle per step: sized up front, with the fast hasher.
        let listed = after
            .brokers
            .values()
            .map(|b| b.local_broker_data.bundles.len())
            .sum();
        let mut owner_after: rustc_hash::FxHashMap<&str, &str> =
            rustc_hash::FxHashMap::with_capacity_and_hasher(listed, Default::default());
        for (id, b) in &after.brokers {
            for bundle in &b.local_broker_data.bundles {
                owner_after.entry(bundle.as_str()).or_insert(id.as_str());
            }
        }
        let mut moves: Vec<Move<'_>> = Vec::new();
        for (from, b) in &before.brokers {
            if !after.brokers.contains_key(from) {
                continue;
            }
            for bundle in &b.local_broker_data.bundles {
                if let Some(&to) = owner_after.get(bundle.as_str())
                    && to != from
                    && before.brokers.contains_key(to)
                {
                    moves.push((bundle.as_str(), from.as_str(), to));
                }
            }
        }
        if moves.is_empty() {
            return;
        }
        self.moves += moves.len();
        self.steps += 1;
        for e in explain_moves(before, &moves, &self.model, None) {
            let Some(b) = after.brokers.get(&e.broker) else {
                continue;
            };
            let l = &b.local_broker_data;
            let observed = match e.resource {
                "cpu" => l.cpu,
                "memory" => l.memory,
                "direct_memory" => l.direct_memory,
                "bandwidth_in" => l.bandwidth_in,
                _ => l.bandwidth_out,
            }
            .percent_usage();
            let err = e.after_pct - observed;
            if let Some((_, v)) = self.errors.iter_mut().find(|(r, _)| *r == e.resource)
                && err.is_finite()
            {
                v.push(err);
            }
        }
    }

    pub fn finish(self) -> ModelAccuracy {
        let resources = self
            .errors
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(r, v)| {
                let n = v.len() as f64;
                let mut abs: Vec<f64> = v.iter().map(|e| e.abs()).collect();
                abs.sort_by(f64::total_cmp);
                let p90 = abs
                    .get(((abs.len() as f64 * 0.9).ceil() as usize).saturating_sub(1))
                    .copied()
                    .unwrap_or(0.0);
                ResourceError {
                    resource: r.to_string(),
                    predictions: v.len(),
                    mean_abs_error_points: abs.iter().sum::<f64>() / n,
                    p90_abs_error_points: p90,
                    within_3_points_fraction: abs.iter().filter(|e| **e <= CLOSE_POINTS).count()
                        as f64
                        / n,
                    mean_error_points: v.iter().sum::<f64>() / n,
                }
            })
            .collect();
        ModelAccuracy {
            moves: self.moves,
            steps_with_moves: self.steps,
            resources,
        }
    }
}
