//! What a drain leaves behind, said first: for each broker to drain, the bundles it still owns
//! after the chosen moves — apart from its own heartbeat and SLA-monitor bundles, which stay by
//! design (Pulsar serves them from the broker itself and reassigns them when it stops) — and the
//! one sentence an operator needs before stopping it.

use serde::{Deserialize, Serialize};

use super::constraints::{Constraints, Pinned};
use super::search::Step;
use crate::model::Snapshot;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DrainStatus {
    pub broker: String,
    /// Bundles it still owns after the chosen moves, other than its heartbeat/SLA-monitor ones.
    pub bundles_left: Vec<String>,
    /// Its heartbeat and SLA-monitor bundles (they stay).
    pub system_bundles: usize,
    /// Nothing but heartbeat/SLA-monitor bundles left: it can be stopped once the moves are done.
    pub empty: bool,
    /// "broker-04 still owns 3 bundles after these moves: do not stop it yet" or "… is empty …".
    pub headline: String,
}

/// The status of each broker of `drains` after the `chosen` moves (the plan's prefix of the
/// search), in the order given.
pub fn drain_status(
    snapshot: &Snapshot,
    chosen: &[Step],
    drains: &[String],
    constraints: &Constraints,
) -> Vec<DrainStatus> {
    drains
        .iter()
        .map(|broker| {
            let owned = snapshot
                .brokers
                .get(broker)
                .map(|b| b.local_broker_data.bundles.as_slice())
                .unwrap_or_default();
            let moved_away = |bundle: &str| {
                chosen
                    .iter()
                    .any(|s| s.bundle == bundle && &s.from == broker)
            };
            let (system, left): (Vec<&String>, Vec<&String>) = owned
                .iter()
                .filter(|b| !moved_away(b))
                .partition(|b| constraints.pinned(b) == Some(Pinned::HeartbeatOrSla));
            let bundles_left: Vec<String> = left.into_iter().cloned().collect();
            let empty = bundles_left.is_empty();
            let headline = if empty {
                format!(
                    "{broker} is empty after these moves{}: it can be stopped once they are done",
                    match system.len() {
                        0 => String::new(),
                        n => format!(
                            " but for its own {n} heartbeat/SLA-monitor bundle(s), which stay and move when it stops"
                        ),
                    }
                )
            } else {
                format!(
                    "{broker} still owns {} bundle(s) after these moves: do not stop it yet",
                    bundles_left.len()
                )
            };
            DrainStatus {
                broker: broker.clone(),
                bundles_left,
                system_bundles: system.len(),
                empty,
                headline,
            }
        })
        .collect()
}
