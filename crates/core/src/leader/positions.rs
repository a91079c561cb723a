//! The ascending broker positions a leader view's reporter and lister indexes keep per bundle.
//! A bundle nearly always has one owner, and a `Vec` per bundle was 400,000 allocations when the
//! indexes were built (most of a kept engine's first what-if beyond the next one), so one
//! position is held inline.

/// Ascending, without repeats.
#[derive(Clone, Debug)]
pub(super) enum Positions {
    One(usize),
    Many(Vec<usize>),
}

impl Default for Positions {
    fn default() -> Self {
        Self::Many(Vec::new())
    }
}

/// Equal when they hold the same positions, however they hold them.
impl PartialEq for Positions {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Positions {}

impl Positions {
    pub(super) fn as_slice(&self) -> &[usize] {
        match self {
            Self::One(p) => std::slice::from_ref(p),
            Self::Many(v) => v,
        }
    }

    pub(super) fn first(&self) -> Option<usize> {
        self.as_slice().first().copied()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    /// Adds `pos`, which is not below any position held (equal to the last: nothing changes).
    pub(super) fn push_ascending(&mut self, pos: usize) {
        match self {
            Self::One(p) if *p == pos => {}
            Self::One(p) => *self = Self::Many(vec![*p, pos]),
            Self::Many(v) if v.is_empty() => *self = Self::One(pos),
            Self::Many(v) => {
                if v.last() != Some(&pos) {
                    v.push(pos);
                }
            }
        }
    }

    /// Adds `pos` in its place (already held: nothing changes).
    pub(super) fn insert_sorted(&mut self, pos: usize) {
        match self {
            Self::Many(v) if !v.is_empty() => {
                if let Err(at) = v.binary_search(&pos) {
                    v.insert(at, pos);
                }
            }
            Self::Many(_) => *self = Self::One(pos),
            Self::One(p) if *p == pos => {}
            Self::One(p) => {
                let p = *p;
                *self = Self::Many(if p < pos { vec![p, pos] } else { vec![pos, p] });
            }
        }
    }

    /// Takes `pos` out (not held: nothing changes).
    pub(super) fn remove(&mut self, pos: usize) {
        match self {
            Self::One(p) if *p == pos => *self = Self::default(),
            Self::One(_) => {}
            Self::Many(v) => v.retain(|p| *p != pos),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every sequence of adds and removes leaves the positions a sorted, deduplicated `Vec` would
    /// hold.
    #[test]
    fn holds_what_a_sorted_vec_holds() {
        let mut state = 0x9e37_79b9_u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % n
        };
        for _ in 0..200 {
            let (mut p, mut want) = (Positions::default(), Vec::<usize>::new());
            for _ in 0..30 {
                let pos = next(6) as usize;
                match next(3) {
                    0 => {
                        p.insert_sorted(pos);
                        if let Err(at) = want.binary_search(&pos) {
                            want.insert(at, pos);
                        }
                    }
                    1 => {
                        p.remove(pos);
                        want.retain(|x| *x != pos);
                    }
                    _ => {
                        let pos = want.last().map_or(pos, |l| l + pos % 2);
                        p.push_ascending(pos);
                        if want.last() != Some(&pos) {
                            want.push(pos);
                        }
                    }
                }
                assert_eq!(p.as_slice(), want.as_slice());
                assert_eq!(p.first(), want.first().copied());
                assert_eq!(p.is_empty(), want.is_empty());
                assert_eq!(p, Positions::Many(want.clone()));
            }
        }
    }
}
