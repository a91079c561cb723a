//! The traffic every bundle carries at a cycle (`base × growth × wave × spikes × noise`) and the
//! heap a broker reports (a GC sawtooth). Noise is a pure function of (seed, bundle name, cycle), so
//! every configuration of a comparison sees exactly the same load whatever it does with the bundles.

use crate::model::NamespaceBundleStats;
use crate::rng::SplitMix64;

use super::scenario::{HeapModel, LoadSpec};

/// A stable 64-bit key of a name (FNV-1a), to derive per-bundle and per-broker random streams.
pub fn name_key(name: &str) -> u64 {
    crate::model::fingerprint::fnv1a64(name.as_bytes())
}

/// Uniform in `[0, 1)` for (seed, key, cycle): one SplitMix64 step on a mixed state.
pub fn unit(seed: u64, key: u64, cycle: u32) -> f64 {
    let state = seed ^ key.rotate_left(23) ^ u64::from(cycle).wrapping_mul(0xD1B5_4A32_D192_ED03);
    SplitMix64::new(state).next_f64()
}

/// The multiplier shared by every bundle at `cycle` (growth and daily wave).
pub fn global_factor(load: &LoadSpec, cycle: u32, interval_minutes: f64) -> f64 {
    let growth = libm::pow(1.0 + load.growth_pct_per_cycle / 100.0, f64::from(cycle));
    let wave = load.daily_wave.as_ref().map_or(1.0, |w| {
        let minutes = f64::from(cycle) * interval_minutes + w.phase_minutes;
        1.0 + w.amplitude_fraction * libm::sin(std::f64::consts::TAU * minutes / w.period_minutes)
    });
    growth * wave
}

/// The multiplier of one bundle at `cycle`: spikes it belongs to that are active, and noise.
pub fn bundle_factor(
    load: &LoadSpec,
    spikes_of_bundle: &[usize],
    seed: u64,
    key: u64,
    cycle: u32,
) -> f64 {
    let mut f = 1.0;
    for &i in spikes_of_bundle {
        if let Some(s) = load.spikes.get(i)
            && (s.start_cycle..s.end_cycle).contains(&cycle)
        {
            f *= s.factor;
        }
    }
    if load.noise_fraction > 0.0 {
        f *= 1.0 + load.noise_fraction * (2.0 * unit(seed, key, cycle) - 1.0);
    }
    f
}

/// `base` with its rates and throughputs scaled (counts unchanged).
pub fn scaled(base: &NamespaceBundleStats, factor: f64) -> NamespaceBundleStats {
    NamespaceBundleStats {
        msg_rate_in: base.msg_rate_in * factor,
        msg_throughput_in: base.msg_throughput_in * factor,
        msg_rate_out: base.msg_rate_out * factor,
        msg_throughput_out: base.msg_throughput_out * factor,
        ..*base
    }
}

/// A broker's heap sawtooth: seeded phase and period (±1 cycle) per broker.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeapCurve {
    pub min_fraction: f64,
    pub max_fraction: f64,
    pub period_cycles: u32,
    pub phase_cycles: u32,
}

impl HeapCurve {
    pub fn for_broker(model: &HeapModel, seed: u64, broker: &str) -> Self {
        let key = name_key(broker);
        let jitter = (unit(seed, key, 0) * 3.0) as u32; // 0, 1 or 2 → period −1, 0, +1
        let period = (model.period_cycles + jitter).saturating_sub(1).max(1);
        let phase = (unit(seed, key, 1) * f64::from(period)) as u32;
        Self {
            min_fraction: model.min_fraction,
            max_fraction: model.max_fraction,
            period_cycles: period,
            phase_cycles: phase,
        }
    }

    /// Fraction of the heap limit in use at `cycle`: rises linearly, drops at each full GC.
    pub fn fraction_at(&self, cycle: u32) -> f64 {
        let period = self.period_cycles.max(1);
        let pos = cycle.wrapping_add(self.phase_cycles) % period;
        let saw = f64::from(pos) / f64::from(period);
        self.min_fraction + (self.max_fraction - self.min_fraction) * saw
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::scenario::{DailyWave, Spike, SpikeTarget};

    #[test]
    fn factors() {
        let mut load = LoadSpec::steady();
        assert_eq!(global_factor(&load, 10, 1.0), 1.0);
        load.growth_pct_per_cycle = 10.0;
        assert!((global_factor(&load, 2, 1.0) - 1.21).abs() < 1e-12);
        load.growth_pct_per_cycle = 0.0;
        load.daily_wave = Some(DailyWave {
            amplitude_fraction: 0.5,
            period_minutes: 1440.0,
            phase_minutes: 0.0,
        });
        // A quarter of a day later the wave is at its peak: 1 + 0.5.
        assert!((global_factor(&load, 360, 1.0) - 1.5).abs() < 1e-12);
        load.spikes.push(Spike {
            target: SpikeTarget::TopBundles(1),
            start_cycle: 5,
            end_cycle: 7,
            factor: 4.0,
        });
        assert_eq!(bundle_factor(&load, &[0], 1, 2, 4), 1.0);
        assert_eq!(bundle_factor(&load, &[0], 1, 2, 6), 4.0);
        assert_eq!(bundle_factor(&load, &[0], 1, 2, 7), 1.0);
        load.noise_fraction = 0.1;
        for c in 0..100 {
            let f = bundle_factor(&load, &[], 9, 3, c);
            assert!((0.9..1.1).contains(&f));
        }
    }

    #[test]
    fn heap_sawtooth() {
        let curve = HeapCurve {
            min_fraction: 0.2,
            max_fraction: 0.8,
            period_cycles: 3,
            phase_cycles: 0,
        };
        assert_eq!(curve.fraction_at(0), 0.2);
        assert!((curve.fraction_at(2) - 0.6).abs() < 1e-12);
        assert_eq!(curve.fraction_at(3), 0.2);
    }
}
