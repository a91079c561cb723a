//! Where the leader view's full recompute of bundle values finds each name — a bundle's stored
//! data, and the entry in the view's `bundle_data` of each bundle a broker reports or lists —
//! recorded at one recompute and tried first at the next. A series from Prometheus changes every
//! bundle's stored data at every step, and hashing each 40-byte name three times was most of the
//! view's update. A recorded position is used only when the map's name there is the name looked
//! for (names are unique in each map, so it is the position a lookup gives): nothing needs telling
//! what changed, and a bundle that moved or a map reordered costs a lookup for those names only.

/// `found`'s mark of a name with no recorded position.
const NONE: usize = usize::MAX;

/// One walk's positions, by the name's place in the walk.
#[derive(Default)]
pub(crate) struct Trail {
    found: Vec<usize>,
}

impl Trail {
    /// The position of the walk's name number `k` (counted from 0): the recorded one when `is_at`
    /// says the name is there, else `look_up`'s (recorded for the next walk).
    pub(crate) fn find(
        &mut self,
        k: usize,
        is_at: impl FnOnce(usize) -> bool,
        look_up: impl FnOnce() -> Option<usize>,
    ) -> Option<usize> {
        if let Some(&p) = self.found.get(k)
            && p != NONE
            && is_at(p)
        {
            return Some(p);
        }
        let at = look_up();
        if self.found.len() <= k {
            self.found.resize(k.saturating_add(1), NONE);
        }
        if let Some(slot) = self.found.get_mut(k) {
            *slot = at.unwrap_or(NONE);
        }
        at
    }

    /// Ends a walk of `len` names (what was recorded past them is forgotten).
    pub(crate) fn finish(&mut self, len: usize) {
        self.found.truncate(len);
    }
}

/// The trails of the full recompute: the view's bundle names (found among the stored data) and,
/// per broker position, its `lastStats` and `bundles` names (found among the view's bundle names).
#[derive(Default)]
pub(crate) struct ValueRoutes {
    pub(crate) bundle_names: Trail,
    pub(crate) reported: Vec<Trail>,
    pub(crate) listed: Vec<Trail>,
}

impl ValueRoutes {
    /// One trail per broker of a view with `brokers` brokers.
    pub(crate) fn brokers(&mut self, brokers: usize) {
        self.reported.resize_with(brokers, Trail::default);
        self.listed.resize_with(brokers, Trail::default);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walk answers from the record where the map still has the name there and looks the
    /// others up: a name moved, one gone, one new, and the map reordered.
    #[test]
    fn recorded_positions_only_where_the_name_still_is() {
        let mut t = Trail::default();
        let mut lookups = Vec::new();
        let walk = |t: &mut Trail, map: &[&str], names: &[&str], lookups: &mut Vec<String>| {
            let found: Vec<Option<usize>> = names
                .iter()
                .enumerate()
                .map(|(k, n)| {
                    t.find(
                        k,
                        |p| map.get(p) == Some(n),
                        || {
                            lookups.push((*n).to_string());
                            map.iter().position(|m| m == n)
                        },
                    )
                })
                .collect();
            t.finish(names.len());
            found
        };
        let map = ["a", "b", "c", "d"];
        assert_eq!(
            walk(&mut t, &map, &["c", "a", "x"], &mut lookups),
            [Some(2), Some(0), None]
        );
        assert_eq!(lookups, ["c", "a", "x"]);
        lookups.clear();
        // The same walk: only the name not there is looked up again.
        assert_eq!(
            walk(&mut t, &map, &["c", "a", "x"], &mut lookups),
            [Some(2), Some(0), None]
        );
        assert_eq!(lookups, ["x"]);
        lookups.clear();
        // The map reordered: "c" is elsewhere, "a" still first; "d" takes the third place.
        let map = ["a", "c", "b", "d"];
        assert_eq!(
            walk(&mut t, &map, &["c", "a", "d", "b"], &mut lookups),
            [Some(1), Some(0), Some(3), Some(2)]
        );
        assert_eq!(lookups, ["c", "d", "b"]);
        lookups.clear();
        // A shorter walk forgets the places past it: "b" is looked up when it comes back.
        walk(&mut t, &map, &["c", "a", "d"], &mut lookups);
        assert!(lookups.is_empty());
        walk(&mut t, &map, &["c", "a", "d", "b"], &mut lookups);
        assert_eq!(lookups, ["b"]);
    }
}
