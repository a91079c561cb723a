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
#[derive(Debug)]
pub struct AccuracyCheck {
    model: LoadModel,
    moves: usize,
    steps: usize,
    /// resource → signed errors.
    errors: Vec<(&'static str, Vec<f64>)>,
    /// Every bundle of the last `after` → the index of the one broker listing it, kept between
    /// steps told which brokers changed, so such a step hashes only those brokers' bundles
    /// instead of the cluster's. `None` when unknown or when some bundle was listed twice.
    owners: Option<rustc_hash::FxHashMap<String, usize>>,
}

impl Clone for AccuracyCheck {
    /// The owner index is not copied: a clone rebuilds it when next told what changed.
    fn clone(&self) -> Self {
        Self {
            model: self.model.clone(),
            moves: self.moves,
            steps: self.steps,
            errors: self.errors.clone(),
            owners: None,
        }
    }
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
            owners: None,
        }
    }

    /// The load model checked.
    pub fn model(&self) -> &LoadModel {
        &self.model
    }

    /// One step: the moves from `before` to `after`, predicted on `before`, compared with `after`.
    pub fn step(&mut self, before: &Snapshot, after: &Snapshot) {
        self.owners = None;
        let moves = all_moves(before, after);
        self.compare(before, after, &moves);
    }

    /// [`Self::step`] when only the reports of `changed_brokers` may differ between `before` and
    /// `after` (`None`: unknown), `before` being the `after` of the step before (the explainer's
    /// consecutive snapshots): the same moves, found from the changed brokers' bundles alone.
    pub fn step_changed(
        &mut self,
        before: &Snapshot,
        after: &Snapshot,
        changed_brokers: Option<&[String]>,
    ) {
        let moves = match changed_brokers {
            Some(changed) if before.brokers.keys().eq(after.brokers.keys()) => {
                match self.moves_of_changed(before, after, changed) {
                    Some(moves) => moves,
                    None => {
                        self.owners = None;
                        all_moves(before, after)
                    }
                }
            }
            _ => {
                self.owners = None;
                all_moves(before, after)
            }
        };
        self.compare(before, after, &moves);
    }

    /// The moves of a step whose brokers are those of `before` in the same order, from the owner
    /// index carried forward over the changed brokers; `None` (index dropped) when a bundle is
    /// listed twice, where only the full scan gives the first lister.
    fn moves_of_changed<'a>(
        &mut self,
        before: &'a Snapshot,
        after: &'a Snapshot,
        changed: &[String],
    ) -> Option<Vec<Move<'a>>> {
        let mut owners = match self.owners.take() {
            Some(o) => o,
            None => owner_index(before)?,
        };
        let mut touched: Vec<usize> = changed
            .iter()
            .filter_map(|id| before.brokers.get_index_of(id))
            .collect();
        touched.sort_unstable();
        touched.dedup();
        // Unique listers in `before`: each changed broker's bundles are its own to drop.
        for &i in &touched {
            let (_, b) = before.brokers.get_index(i)?;
            for bundle in &b.local_broker_data.bundles {
                owners.remove(bundle.as_str());
            }
        }
        for &i in &touched {
            let (_, b) = after.brokers.get_index(i)?;
            for bundle in &b.local_broker_data.bundles {
                if owners.insert(bundle.clone(), i).is_some() {
                    return None;
                }
            }
        }
        // An unchanged broker lists the same bundles on both sides, each its own alone: no move.
        let mut moves = Vec::new();
        for &i in &touched {
            let (from, b) = before.brokers.get_index(i)?;
            for bundle in &b.local_broker_data.bundles {
                if let Some(&j) = owners.get(bundle.as_str())
                    && j != i
                    && let Some((to, _)) = before.brokers.get_index(j)
                {
                    moves.push((bundle.as_str(), from.as_str(), to.as_str()));
                }
            }
        }
        self.owners = Some(owners);
        Some(moves)
    }

    fn compare(&mut self, before: &Snapshot, after: &Snapshot, moves: &[Move<'_>]) {
        if moves.is_empty() {
            return;
        }
        self.moves += moves.len();
        self.steps += 1;
        for e in explain_moves(before, moves, &self.model, None) {
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

/// Every bundle owned by one live broker in `before`, then by another (the first to list it) in
/// `after`, in `before`'s order.
fn all_moves<'a>(before: &'a Snapshot, after: &'a Snapshot) -> Vec<Move<'a>> {
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
    moves
}

/// Every bundle of `snapshot` → the index of its broker; `None` when one is listed twice.
fn owner_index(snapshot: &Snapshot) -> Option<rustc_hash::FxHashMap<String, usize>> {
    let listed = snapshot
        .brokers
        .values()
        .map(|b| b.local_broker_data.bundles.len())
        .sum();
    let mut owners = rustc_hash::FxHashMap::with_capacity_and_hasher(listed, Default::default());
    for (i, b) in snapshot.brokers.values().enumerate() {
        for bundle in &b.local_broker_data.bundles {
            if owners.insert(bundle.clone(), i).is_some() {
                return None;
            }
        }
    }
    Some(owners)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::builtin_snapshot;

    /// Moves `bundle` (listed and with stats) from broker `from` to broker `to` (indices), and
    /// changes the usage of both as the cluster would: returns their ids, the step's hint.
    fn move_bundle(s: &mut Snapshot, bundle: &str, from: usize, to: usize) -> Vec<String> {
        let (from_id, b) = s.brokers.get_index_mut(from).unwrap();
        let from_id = from_id.clone();
        let l = &mut b.local_broker_data;
        l.bundles.retain(|x| x != bundle);
        let stats = l.last_stats.shift_remove(bundle);
        l.cpu.usage *= 0.9;
        let (to_id, b) = s.brokers.get_index_mut(to).unwrap();
        let to_id = to_id.clone();
        let l = &mut b.local_broker_data;
        l.bundles.push(bundle.to_string());
        if let Some(st) = stats {
            l.last_stats.insert(bundle.to_string(), st);
        }
        l.cpu.usage *= 1.1;
        vec![from_id, to_id]
    }

    fn bundle_of(s: &Snapshot, broker: usize, k: usize) -> String {
        s.brokers[broker].local_broker_data.bundles[k].clone()
    }

    /// A series of moves with the changed brokers named, one step with no hint, one where a
    /// bundle is listed by two brokers, one where the hint names more than changed: the owner
    /// index kept between hinted steps finds the moves the full scan finds, to the bit.
    #[test]
    fn told_what_changed_it_finds_the_same_moves() {
        let first = builtin_snapshot("demo").unwrap();
        let n = first.brokers.len();
        assert!(n >= 3);
        let mut series = vec![(first.clone(), None)];
        let mut s = first;
        let mut made = 0;
        for step in 0..8 {
            let from = step % n;
            let to = (step + 1) % n;
            let mut hint = None;
            if !s.brokers[from].local_broker_data.bundles.is_empty() {
                let bundle = bundle_of(&s, from, 0);
                hint = Some(move_bundle(&mut s, &bundle, from, to));
                made += 1;
            }
            match step {
                // Unknown: the index is dropped and rebuilt at the next hinted step.
                3 => hint = None,
                // Listed twice: the later broker keeps listing a bundle the first also lists.
                5 if !s.brokers[0].local_broker_data.bundles.is_empty() => {
                    let dup = bundle_of(&s, 0, 0);
                    s.brokers[2].local_broker_data.bundles.push(dup);
                    let id = s.brokers.get_index(2).unwrap().0.clone();
                    hint.get_or_insert_with(Vec::new).push(id);
                }
                // More named than changed, and one twice.
                6 => {
                    let ids: Vec<String> = s.brokers.keys().cloned().collect();
                    let h = hint.get_or_insert_with(Vec::new);
                    h.extend(ids);
                    h.push(h[0].clone());
                }
                _ => {}
            }
            series.push((s.clone(), hint));
        }
        assert!(made >= 6);
        let mut full = AccuracyCheck::new(LoadModel::default());
        let mut told = AccuracyCheck::new(LoadModel::default());
        for (i, pair) in series.windows(2).enumerate() {
            let [(before, _), (after, hint)] = pair else {
                unreachable!()
            };
            full.step(before, after);
            told.step_changed(before, after, hint.as_deref());
            if i == 1 {
                // A clone forgets the index and still agrees.
                told = told.clone();
            }
            assert_eq!(told.moves, full.moves, "step {i}");
        }
        let (full, told) = (full.finish(), told.finish());
        // Every move made, and the duplicate listing counted as one more by both.
        assert!(full.moves >= made);
        assert_eq!(
            serde_json::to_string(&told).unwrap(),
            serde_json::to_string(&full).unwrap()
        );
    }
}
