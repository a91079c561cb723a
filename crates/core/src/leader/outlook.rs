//! The outlook: the leader's next cycles on unchanged load, one tick each a cycle interval apart,
//! until one acts. Plans of either load manager look ahead through it; what a tick is (the
//! modular leader's [`LeaderMemory::tick_shedding_only`](super::memory::LeaderMemory), the
//! extensible leader's TransferShedder) is the caller's.

use super::context::cycle_start_ms;

/// Ticks the cycles after the one at `first_ms`, `interval_ms` apart
/// ([`cycle_interval_ms`](super::context::cycle_interval_ms)), at most `cycles` of them, until
/// `tick(extra, at_ms)` returns what the cycle did: that, with `extra` (1 for the cycle after the
/// first). `None` when none of them did.
pub fn first_acting<T>(
    interval_ms: i64,
    first_ms: i64,
    cycles: u32,
    mut tick: impl FnMut(u32, i64) -> Option<T>,
) -> Option<(u32, T)> {
    (1..=cycles).find_map(|extra| {
        tick(extra, cycle_start_ms(first_ms, interval_ms, extra)).map(|acted| (extra, acted))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{LoadBalancerConfig, Profile};
    use crate::leader::context::cycle_interval_ms;

    /// Each further cycle is asked at its own time, `loadBalancerSheddingIntervalMinutes` apart,
    /// and the look stops at the first that acts.
    #[test]
    fn ticks_a_cycle_interval_apart_until_one_acts() {
        let mut cfg = LoadBalancerConfig::for_profile(Profile::Pulsar4x);
        cfg.load_balancer_shedding_interval_minutes = 3;
        let mut asked = Vec::new();
        let acted = first_acting(cycle_interval_ms(&cfg), 1_000, 10, |extra, at| {
            asked.push(at);
            (extra == 4).then_some("unloads")
        });
        assert_eq!(acted, Some((4, "unloads")));
        assert_eq!(asked, [181_000, 361_000, 541_000, 721_000]);
        let none = first_acting(cycle_interval_ms(&cfg), 0, 2, |_, _| None::<()>);
        assert_eq!(none, None);
        assert_eq!(
            first_acting(cycle_interval_ms(&cfg), 0, 0, |_, _| Some(())),
            None
        );
    }
}
