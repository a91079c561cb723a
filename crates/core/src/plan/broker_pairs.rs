//! Each broker's load before and after a plan, joined by broker id in one pass: what the CLI's table
//! and the dashboard's "each broker before and after" show, so both list the same rows in the same
//! order.

use std::collections::{HashMap, HashSet};

use super::model::{BrokerLoadView, Plan};

/// One broker's load before and after; a broker the plan adds has no `before`, one it removes no
/// `after`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BrokerPair<'a> {
    pub broker: &'a str,
    pub before: Option<&'a BrokerLoadView>,
    pub after: Option<&'a BrokerLoadView>,
}

/// The brokers after the plan in its order (each with its `before`, if it existed), then the brokers
/// only present before, in their order. Linear: each side is indexed once by broker id.
pub fn broker_pairs<'a>(
    before: &'a [BrokerLoadView],
    after: &'a [BrokerLoadView],
) -> Vec<BrokerPair<'a>> {
    let before_by_id: HashMap<&str, &BrokerLoadView> =
        before.iter().map(|b| (b.broker.as_str(), b)).collect();
    let after_ids: HashSet<&str> = after.iter().map(|a| a.broker.as_str()).collect();
    let mut pairs: Vec<BrokerPair<'a>> = after
        .iter()
        .map(|a| BrokerPair {
            broker: &a.broker,
            before: before_by_id.get(a.broker.as_str()).copied(),
            after: Some(a),
        })
        .collect();
    pairs.extend(
        before
            .iter()
            .filter(|b| !after_ids.contains(b.broker.as_str()))
            .map(|b| BrokerPair {
                broker: &b.broker,
                before: Some(b),
                after: None,
            }),
    );
    pairs
}

impl Plan {
    /// [`broker_pairs`] of this plan's `brokers_before` and `brokers_after`.
    pub fn broker_pairs(&self) -> Vec<BrokerPair<'_>> {
        broker_pairs(&self.brokers_before, &self.brokers_after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(broker: &str, bundles: usize) -> BrokerLoadView {
        BrokerLoadView {
            broker: broker.to_string(),
            bundle_count: bundles,
            ..BrokerLoadView::default()
        }
    }

    /// A plan that removes `b:8080` (its 3 bundles go to a and c) and adds `d:8080`.
    #[test]
    fn joins_by_broker_id_with_added_and_removed_brokers() {
        let before = [view("a:8080", 4), view("b:8080", 3), view("c:8080", 5)];
        let after = [view("c:8080", 7), view("a:8080", 5), view("d:8080", 0)];
        let pairs = broker_pairs(&before, &after);
        let summary: Vec<(&str, Option<usize>, Option<usize>)> = pairs
            .iter()
            .map(|p| {
                (
                    p.broker,
                    p.before.map(|b| b.bundle_count),
                    p.after.map(|a| a.bundle_count),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("c:8080", Some(5), Some(7)),
                ("a:8080", Some(4), Some(5)),
                ("d:8080", None, Some(0)),
                ("b:8080", Some(3), None),
            ]
        );
        assert!(broker_pairs(&[], &[]).is_empty());
    }
}
