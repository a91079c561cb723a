//! A bundle's work and a broker's idle baseline, estimated from the owner's report.
//!
//! Pulsar reports resource usage per broker, traffic per bundle. The work a bundle carries is its
//! share of its owner's *busy* usage (the usage above the owner's idle baseline): of CPU, heap and
//! direct memory its share of the owner's bundles' throughput (in + out), else of their message
//! rate, else 1/n; of each NIC direction its share of that direction's throughput. Amounts are
//! kept in the report's own units (CPU in percent of a core, memory in MiB, NIC in Kbps) so a
//! prediction adds and subtracts exactly what the report holds; [`Work`]'s accessors give the
//! absolute units (cores, MiB, bytes/s). Why the share of bytes and not a fitted line per broker:
//! `docs/plan-model.md` §4.

use indexmap::IndexMap;

use crate::model::{LocalBrokerData, NamespaceBundleStats, ResourceUsage};

/// Raw usage in the report's units: cpu (percent of one core), heap (MiB), direct memory (MiB),
/// NIC in (Kbps), NIC out (Kbps).
pub type Amounts = [f64; 5];

pub const CPU: usize = 0;
pub const MEMORY: usize = 1;
pub const DIRECT_MEMORY: usize = 2;
pub const NIC_IN: usize = 3;
pub const NIC_OUT: usize = 4;

/// The resources' names, in [`Amounts`] order, as the plan JSON and the texts name them.
pub fn resource_names() -> [&'static str; 5] {
    [
        "cpu",
        "memory",
        "direct_memory",
        "bandwidth_in",
        "bandwidth_out",
    ]
}

/// The idle CPU a broker burns with no bundle, as a fraction of its limit: the part of a report's
/// CPU that moves with no bundle (JVM, ZooKeeper/metadata sessions, load reports, GC). 5 %, as the
/// simulator assumed since its first version; a scenario may set another (`idle_cpu_fraction`).
pub const DEFAULT_IDLE_CPU_FRACTION: f64 = 0.05;

/// The model's parameters: the idle CPU fraction and per-broker CPU cost factors.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadModel {
    pub idle_cpu_fraction: f64,
    /// The cores one unit of work needs on a broker relative to the cluster's typical broker
    /// (`lbplan history --calibrate`): 2.0 on a broker whose cores do half as much per second.
    /// A broker not listed (or a factor that is not finite and positive) counts as 1.
    pub cpu_factors: IndexMap<String, f64>,
}

impl Default for LoadModel {
    fn default() -> Self {
        Self {
            idle_cpu_fraction: DEFAULT_IDLE_CPU_FRACTION,
            cpu_factors: IndexMap::new(),
        }
    }
}

impl LoadModel {
    /// The model with an idle CPU fraction (clamped to 0–1; not finite → the default).
    pub fn with_idle_cpu_fraction(idle: f64) -> Self {
        Self {
            idle_cpu_fraction: if idle.is_finite() {
                idle.clamp(0.0, 1.0)
            } else {
                DEFAULT_IDLE_CPU_FRACTION
            },
            ..Self::default()
        }
    }

    /// A broker's CPU cost factor (1 when it has none).
    pub fn cpu_factor(&self, broker: &str) -> f64 {
        self.cpu_factors
            .get(broker)
            .copied()
            .filter(|f| f.is_finite() && *f > 0.0)
            .unwrap_or(1.0)
    }

    /// Work as it costs on `to`, given what it cost on `from`: CPU scaled by the brokers' cost
    /// factors, the rest unchanged (a byte is a byte, a MiB a MiB).
    pub fn carried(&self, work: &Amounts, from: &str, to: &str) -> Amounts {
        let mut w = *work;
        if let Some(cpu) = w.get_mut(CPU) {
            *cpu *= self.cpu_factor(to) / self.cpu_factor(from);
        }
        w
    }
}

/// What a bundle's share of its owner's usage was taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareBasis {
    /// Its share of the owner's bundles' throughput (in + out).
    Throughput,
    /// The owner's bundles carry no bytes: its share of their message rate.
    MessageRate,
    /// Neither: one n-th of the owner's n bundles.
    BundleCount,
}

impl ShareBasis {
    pub fn name(self) -> &'static str {
        match self {
            ShareBasis::Throughput => "throughput",
            ShareBasis::MessageRate => "message_rate",
            ShareBasis::BundleCount => "bundle_count",
        }
    }
}

/// The sums over an owner's bundles that a share is taken of.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OwnerTraffic {
    pub bytes_in: f64,
    pub bytes_out: f64,
    pub msg_rate: f64,
    pub bundles: usize,
}

impl OwnerTraffic {
    pub fn of<'a>(loads: impl IntoIterator<Item = &'a NamespaceBundleStats>) -> Self {
        let mut t = Self::default();
        for s in loads {
            t.add(s);
        }
        t
    }

    pub fn add(&mut self, s: &NamespaceBundleStats) {
        self.bytes_in += finite(s.msg_throughput_in);
        self.bytes_out += finite(s.msg_throughput_out);
        self.msg_rate += finite(s.msg_rate_in) + finite(s.msg_rate_out);
        self.bundles += 1;
    }
}

fn finite(x: f64) -> f64 {
    if x.is_finite() { x.max(0.0) } else { 0.0 }
}

fn share(part: f64, whole: f64) -> Option<f64> {
    (whole > 0.0).then(|| (finite(part) / whole).clamp(0.0, 1.0))
}

/// The share of its owner's busy usage a bundle carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BundleShare {
    /// Of CPU, heap and direct memory.
    pub overall: f64,
    pub nic_in: f64,
    pub nic_out: f64,
    pub basis: ShareBasis,
}

impl BundleShare {
    /// The share of the bundle with traffic `s` among its owner's bundles (`owner` includes it).
    pub fn of(s: &NamespaceBundleStats, owner: &OwnerTraffic) -> Self {
        let bytes = owner.bytes_in + owner.bytes_out;
        let (overall, basis) = match share(
            finite(s.msg_throughput_in) + finite(s.msg_throughput_out),
            bytes,
        ) {
            Some(x) => (x, ShareBasis::Throughput),
            None => match share(
                finite(s.msg_rate_in) + finite(s.msg_rate_out),
                owner.msg_rate,
            ) {
                Some(x) => (x, ShareBasis::MessageRate),
                None => (1.0 / (owner.bundles.max(1) as f64), ShareBasis::BundleCount),
            },
        };
        Self {
            overall,
            nic_in: share(s.msg_throughput_in, owner.bytes_in).unwrap_or(overall),
            nic_out: share(s.msg_throughput_out, owner.bytes_out).unwrap_or(overall),
            basis,
        }
    }

    /// The work this share of `busy` is.
    pub fn work(&self, busy: &Amounts) -> Amounts {
        let f = [
            self.overall,
            self.overall,
            self.overall,
            self.nic_in,
            self.nic_out,
        ];
        let mut w = [0.0; 5];
        for ((w, b), f) in w.iter_mut().zip(busy).zip(f) {
            *w = b * f;
        }
        w
    }
}

fn usages(local: &LocalBrokerData) -> [ResourceUsage; 5] {
    [
        local.cpu,
        local.memory,
        local.direct_memory,
        local.bandwidth_in,
        local.bandwidth_out,
    ]
}

/// A report's usage per resource (a negative or non-finite usage counts as none).
pub fn usage_amounts(local: &LocalBrokerData) -> Amounts {
    usages(local).map(|u| finite(u.usage))
}

/// A report's limits per resource.
pub fn limit_amounts(local: &LocalBrokerData) -> Amounts {
    usages(local).map(|u| u.limit)
}

/// An owner's usage split into its idle baseline and the busy part its bundles carry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OwnerEstimate {
    /// Usage no bundle explains: the idle CPU (`idle_cpu_fraction` of the limit, at most the
    /// usage) of a broker with bundles; everything of a broker without any.
    pub baseline: Amounts,
    /// Usage above the baseline, shared among the bundles.
    pub busy: Amounts,
    pub traffic: OwnerTraffic,
}

/// The baseline and busy usage of an owner whose bundles' traffic sums to `traffic`.
pub fn estimate_owner(
    local: &LocalBrokerData,
    traffic: OwnerTraffic,
    model: &LoadModel,
) -> OwnerEstimate {
    let usage = usage_amounts(local);
    let mut baseline = usage;
    if traffic.bundles > 0 {
        baseline = [0.0; 5];
        let idle = model.idle_cpu_fraction * finite(local.cpu.limit);
        if let (Some(b), Some(u)) = (baseline.get_mut(CPU), usage.get(CPU)) {
            *b = u.min(idle);
        }
    }
    let mut busy = [0.0; 5];
    for ((b, u), base) in busy.iter_mut().zip(usage).zip(baseline) {
        *b = u - base;
    }
    OwnerEstimate {
        baseline,
        busy,
        traffic,
    }
}

/// Work in absolute units.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work(pub Amounts);

impl Work {
    fn at(&self, i: usize) -> f64 {
        self.0.get(i).copied().unwrap_or(0.0)
    }
    /// CPU in cores (the report counts 100 per core).
    pub fn cpu_cores(&self) -> f64 {
        self.at(CPU) / 100.0
    }
    pub fn heap_mib(&self) -> f64 {
        self.at(MEMORY)
    }
    pub fn direct_memory_mib(&self) -> f64 {
        self.at(DIRECT_MEMORY)
    }
    /// NIC in, bytes/s (the report counts Kbps: 1,000 bits).
    pub fn nic_in_bytes_per_sec(&self) -> f64 {
        self.at(NIC_IN) * 1000.0 / 8.0
    }
    pub fn nic_out_bytes_per_sec(&self) -> f64 {
        self.at(NIC_OUT) * 1000.0 / 8.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner() -> LocalBrokerData {
        LocalBrokerData {
            cpu: ResourceUsage::new(300.0, 400.0),
            memory: ResourceUsage::new(1024.0, 4096.0),
            direct_memory: ResourceUsage::new(-5.0, 4096.0),
            bandwidth_in: ResourceUsage::new(800.0, 1e6),
            bandwidth_out: ResourceUsage::new(600.0, 1e6),
            ..LocalBrokerData::default()
        }
    }

    fn traffic(thr: (f64, f64), rate: (f64, f64)) -> NamespaceBundleStats {
        NamespaceBundleStats {
            msg_throughput_in: thr.0,
            msg_throughput_out: thr.1,
            msg_rate_in: rate.0,
            msg_rate_out: rate.1,
            ..NamespaceBundleStats::default()
        }
    }

    #[test]
    fn a_bundle_carries_its_share_of_the_busy_usage() {
        let bundles = [
            traffic((1000.0, 500.0), (1.0, 1.0)),
            traffic((2000.0, 2500.0), (9.0, 9.0)),
        ];
        let t = OwnerTraffic::of(&bundles);
        let est = estimate_owner(&owner(), t, &LoadModel::default());
        // 4 cores at 300 %: 5 % of 400 = 20 idle, 280 busy; heap all busy; direct memory none.
        assert_eq!(est.baseline, [20.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(est.busy, [280.0, 1024.0, 0.0, 800.0, 600.0]);
        let s = BundleShare::of(&bundles[0], &t);
        assert_eq!(s.basis, ShareBasis::Throughput);
        assert_eq!(s.overall, 0.25);
        let w = s.work(&est.busy);
        assert_eq!(w[CPU], 70.0);
        assert_eq!(w[MEMORY], 256.0);
        assert_eq!(w[NIC_IN], 800.0 * (1000.0 / 3000.0));
        assert_eq!(w[NIC_OUT], 600.0 * (500.0 / 3000.0));
        assert_eq!(Work(w).cpu_cores(), 0.7);
        // The two bundles' work and the baseline add up to the report.
        let w2 = BundleShare::of(&bundles[1], &t).work(&est.busy);
        for r in 0..5 {
            assert!((est.baseline[r] + w[r] + w2[r] - usage_amounts(&owner())[r]).abs() < 1e-9);
        }
    }

    #[test]
    fn fallbacks_message_rate_then_one_nth_and_an_empty_broker_is_all_baseline() {
        let bundles = [
            traffic((0.0, 0.0), (4.0, 1.0)),
            traffic((0.0, 0.0), (11.0, 4.0)),
        ];
        let t = OwnerTraffic::of(&bundles);
        let s = BundleShare::of(&bundles[0], &t);
        assert_eq!(
            (s.basis, s.overall, s.nic_in),
            (ShareBasis::MessageRate, 0.25, 0.25)
        );
        let bundles = [NamespaceBundleStats::default(); 5];
        let t = OwnerTraffic::of(&bundles);
        let s = BundleShare::of(&bundles[0], &t);
        assert_eq!((s.basis, s.overall), (ShareBasis::BundleCount, 0.2));
        let est = estimate_owner(&owner(), OwnerTraffic::default(), &LoadModel::default());
        assert_eq!(est.baseline, [300.0, 1024.0, 0.0, 800.0, 600.0]);
        assert_eq!(est.busy, [0.0; 5]);
    }

    #[test]
    fn cpu_factors_scale_cpu_only() {
        let mut m = LoadModel::default();
        m.cpu_factors.insert("slow".into(), 2.0);
        m.cpu_factors.insert("bad".into(), f64::NAN);
        let w = [100.0, 10.0, 10.0, 10.0, 10.0];
        assert_eq!(
            m.carried(&w, "fast", "slow"),
            [200.0, 10.0, 10.0, 10.0, 10.0]
        );
        assert_eq!(m.carried(&w, "slow", "bad"), [50.0, 10.0, 10.0, 10.0, 10.0]);
    }
}
