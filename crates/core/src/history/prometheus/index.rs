//! The builder's index: each name (a bundle, a broker) numbered once when first seen, with the
//! order of all names by name. A step's readings are then held and compared as numbers, and a
//! name is copied into a snapshot only where that snapshot's content changed.

use rustc_hash::FxHashMap;

/// Names numbered in the order first seen.
#[derive(Default)]
pub(super) struct Names {
    ids: FxHashMap<String, u32>,
    names: Vec<String>,
    /// Every number, ordered by name; `None` after a name was added (sorted again when asked).
    by_name: Option<Vec<u32>>,
    /// number → its place in `by_name`.
    rank: Vec<u32>,
}

impl Names {
    /// The number of `name`, given it now when new (`None` past `u32::MAX` names, which the
    /// answers' caps keep far away).
    pub(super) fn id(&mut self, name: &str) -> Option<u32> {
        if let Some(id) = self.ids.get(name) {
            return Some(*id);
        }
        let id = u32::try_from(self.names.len()).ok()?;
        self.ids.insert(name.to_string(), id);
        self.names.push(name.to_string());
        self.by_name = None;
        Some(id)
    }

    pub(super) fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }

    pub(super) fn len(&self) -> usize {
        self.names.len()
    }

    /// Sorts the numbers by name if a name was added since the last time.
    pub(super) fn sort(&mut self) {
        if self.by_name.is_some() {
            return;
        }
        let names = &self.names;
        let mut order: Vec<u32> = (0..names.len())
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        order.sort_unstable_by(|a, b| {
            let name = |id: &u32| names.get(*id as usize).map_or("", String::as_str);
            name(a).cmp(name(b))
        });
        self.rank = vec![0; names.len()];
        for (place, id) in order.iter().enumerate() {
            if let Some(r) = self.rank.get_mut(*id as usize) {
                *r = u32::try_from(place).unwrap_or(u32::MAX);
            }
        }
        self.by_name = Some(order);
    }

    /// Every number ordered by name (after [`Self::sort`]; empty before).
    pub(super) fn by_name(&self) -> &[u32] {
        self.by_name.as_deref().unwrap_or(&[])
    }

    /// The place of `id` among the names ordered (after [`Self::sort`]).
    pub(super) fn rank(&self, id: u32) -> u32 {
        self.rank.get(id as usize).copied().unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_once_and_orders_by_name() {
        let mut n = Names::default();
        assert_eq!(n.id("b"), Some(0));
        assert_eq!(n.id("a"), Some(1));
        assert_eq!(n.id("b"), Some(0));
        n.sort();
        assert_eq!(n.by_name(), &[1, 0]);
        assert_eq!((n.rank(1), n.rank(0)), (0, 1));
        assert_eq!(n.id("0"), Some(2));
        n.sort();
        assert_eq!(n.by_name(), &[2, 1, 0]);
        assert_eq!(n.name(2), "0");
        assert_eq!(n.len(), 3);
    }
}
