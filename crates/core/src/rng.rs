//! Seeded randomness for Pulsar's "random pick among equally good brokers".
//!
//! Strategies never own a random source: they ask a [`Picker`] to choose an index in a choice set.
//! [`SeededPicker`] makes plans reproducible from a seed; [`ScriptedPicker`] replays picks taken from
//! outside (the conformance oracle's choices) and falls back to its own seeded pick when told a broker
//! that is not in the set.

/// SplitMix64: tiny, fast, and good enough for uniform picks; identical on every platform.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by rejection so there is no modulo bias.
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        if n <= 1 {
            return 0;
        }
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The outcome of one random pick, kept so a plan can say how a broker was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pick {
    pub index: usize,
    /// An outside pick was offered but was not in the choice set.
    pub rejected_outside_pick: bool,
}

/// Chooses one element of a non-empty choice set of broker names.
pub trait Picker {
    fn pick(&mut self, choice_set: &[String]) -> Pick;
}

#[derive(Clone, Debug)]
pub struct SeededPicker {
    rng: SplitMix64,
}

impl SeededPicker {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: SplitMix64::new(seed),
        }
    }
}

impl Picker for SeededPicker {
    fn pick(&mut self, choice_set: &[String]) -> Pick {
        Pick {
            index: self.rng.below(choice_set.len()),
            rejected_outside_pick: false,
        }
    }
}

/// Takes picks in order from a list (one per random choice); falls back to a seeded pick when the
/// list is exhausted or names a broker outside the choice set.
#[derive(Clone, Debug)]
pub struct ScriptedPicker {
    script: std::collections::VecDeque<String>,
    fallback: SeededPicker,
}

impl ScriptedPicker {
    pub fn new(script: impl IntoIterator<Item = String>, seed: u64) -> Self {
        Self {
            script: script.into_iter().collect(),
            fallback: SeededPicker::new(seed),
        }
    }
}

impl Picker for ScriptedPicker {
    fn pick(&mut self, choice_set: &[String]) -> Pick {
        match self.script.pop_front() {
            Some(wanted) => match choice_set.iter().position(|b| *b == wanted) {
                Some(index) => Pick {
                    index,
                    rejected_outside_pick: false,
                },
                None => Pick {
                    rejected_outside_pick: true,
                    ..self.fallback.pick(choice_set)
                },
            },
            None => self.fallback.pick(choice_set),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        for _ in 0..100 {
            assert_eq!(a.below(13), b.below(13));
        }
    }

    #[test]
    fn scripted_picks_follow_script_and_flag_rejections() {
        let set = vec!["a:1".to_string(), "b:1".to_string()];
        let mut p = ScriptedPicker::new(vec!["b:1".to_string(), "zzz".to_string()], 0);
        assert_eq!(
            p.pick(&set),
            Pick {
                index: 1,
                rejected_outside_pick: false
            }
        );
        assert!(p.pick(&set).rejected_outside_pick);
    }
}
