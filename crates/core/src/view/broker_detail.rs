//! "Why is this broker hot?": one broker's bundles ranked by their share of its traffic, each
//! resource's usage with its `loadBalancer*ResourceWeight` and whether it counts towards the
//! weighted maximum the modular shedders and placement compare (heap memory never does:
//! `getMaxResourceUsageWithWeight` leaves it out; a resource with weight 0 contributes 0), the
//! resource that decides that maximum, and what a plan does to the broker.

use crate::config::LoadBalancerConfig;
use crate::load::bundle_load::bundle_load;
use crate::model::Snapshot;
use crate::plan::Plan;
use crate::units::percent_usage;

/// One resource of the broker's report.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceRow {
    /// Pulsar's name: `cpu`, `memory`, `directMemory`, `bandwidthIn`, `bandwidthOut`.
    pub resource: &'static str,
    /// The `broker.conf` key of its weight (`None` for heap memory, which has no weight here).
    pub weight_key: Option<&'static str>,
    pub usage_pct: f64,
    pub weight: f64,
    /// `usage_pct × weight`; what enters the weighted maximum (0 when it does not count).
    pub weighted_pct: f64,
    /// Whether it enters the modular load manager's weighted maximum at all.
    pub counted: bool,
    /// The resource whose weighted usage is the maximum (the first of equals, as Java's max keeps).
    pub driving: bool,
}

/// One bundle of the broker and its part of the broker's traffic.
#[derive(Clone, Debug, PartialEq)]
pub struct BundleShare {
    pub bundle: String,
    pub bytes_per_sec: f64,
    pub msg_per_sec: f64,
    /// Fraction of the broker's bundles' traffic (bytes in + out).
    pub share: f64,
}

/// What a plan does to the broker.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanEffect {
    pub usage_before_pct: Option<f64>,
    pub usage_after_pct: Option<f64>,
    /// Bundles the plan moves away (bundle, destination).
    pub moves_out: Vec<(String, Option<String>)>,
    /// Bundles the plan moves here (bundle, source).
    pub moves_in: Vec<(String, String)>,
    pub splits: Vec<String>,
    /// Each predicted usage of this broker with its arithmetic (the one load model,
    /// `load::explain`): "cpu: limit 8.00 cores; 0.40 cores idle baseline + …", weak flags and
    /// range included; empty when the plan does not change its usage.
    pub usage_explained: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BrokerDetail {
    pub broker: String,
    /// Its limits: "8 cores · NIC 2.0 Gbps · heap 4.0 GiB · direct 4.0 GiB".
    pub capacity: String,
    pub weighted_max_pct: f64,
    pub resources: Vec<ResourceRow>,
    /// Largest share first.
    pub bundles: Vec<BundleShare>,
    pub plan: Option<PlanEffect>,
}

/// The detail of `broker` in `snapshot` under `config`'s weights; `None` for an unknown broker.
pub fn broker_detail(
    snapshot: &Snapshot,
    config: &LoadBalancerConfig,
    broker: &str,
    plan: Option<&Plan>,
) -> Option<BrokerDetail> {
    let data = &snapshot.brokers.get(broker)?.local_broker_data;
    let w = config.resource_weights();
    let pct = |r: &crate::model::ResourceUsage| percent_usage(r.usage, r.limit);
    let mut resources = vec![
        row(
            "cpu",
            Some("loadBalancerCPUResourceWeight"),
            pct(&data.cpu),
            w.cpu,
            true,
        ),
        row("memory", None, pct(&data.memory), w.memory, false),
        row(
            "directMemory",
            Some("loadBalancerDirectMemoryResourceWeight"),
            pct(&data.direct_memory),
            w.direct_memory,
            true,
        ),
        row(
            "bandwidthIn",
            Some("loadBalancerBandwithInResourceWeight"),
            pct(&data.bandwidth_in),
            w.bandwidth_in,
            true,
        ),
        row(
            "bandwidthOut",
            Some("loadBalancerBandwithOutResourceWeight"),
            pct(&data.bandwidth_out),
            w.bandwidth_out,
            true,
        ),
    ];
    // Java's max over the counted resources: the first strictly larger value wins.
    let mut best: Option<(usize, f64)> = None;
    for (i, r) in resources.iter().enumerate().filter(|(_, r)| r.counted) {
        if best.is_none_or(|(_, v)| r.weighted_pct > v) {
            best = Some((i, r.weighted_pct));
        }
    }
    if let Some(r) = best.and_then(|(i, _)| resources.get_mut(i)) {
        r.driving = true;
    }
    let weighted_max_pct = data.max_resource_usage_with_weight(&w) * 100.0;

    let mut bundles: Vec<BundleShare> = data
        .bundles
        .iter()
        .map(|b| {
            let load = bundle_load(snapshot, broker, b);
            BundleShare {
                bundle: b.clone(),
                bytes_per_sec: load.bytes_per_sec(),
                msg_per_sec: load.msg_per_sec(),
                share: 0.0,
            }
        })
        .collect();
    let total: f64 = bundles.iter().map(|b| b.bytes_per_sec).sum();
    for b in &mut bundles {
        b.share = if total > 0.0 {
            b.bytes_per_sec / total
        } else {
            0.0
        };
    }
    bundles.sort_by(|a, b| {
        b.bytes_per_sec
            .total_cmp(&a.bytes_per_sec)
            .then_with(|| a.bundle.cmp(&b.bundle))
    });

    let plan = plan.map(|p| PlanEffect {
        usage_before_pct: p
            .brokers_before
            .iter()
            .find(|b| b.broker == broker)
            .map(|b| b.weighted_max_usage_fraction * 100.0),
        usage_after_pct: p
            .brokers_after
            .iter()
            .find(|b| b.broker == broker)
            .map(|b| b.weighted_max_usage_fraction * 100.0),
        moves_out: p
            .unloads
            .iter()
            .filter(|u| u.from == broker)
            .map(|u| (u.bundle.clone(), u.to.clone()))
            .collect(),
        moves_in: p
            .unloads
            .iter()
            .filter(|u| u.to.as_deref() == Some(broker))
            .map(|u| (u.bundle.clone(), u.from.clone()))
            .collect(),
        splits: p
            .splits
            .iter()
            .filter(|s| s.broker == broker)
            .map(|s| s.bundle.clone())
            .collect(),
        usage_explained: crate::plan::balance::explain_plan(
            snapshot,
            p,
            &crate::load::LoadModel::default(),
        )
        .into_iter()
        .filter(|e| e.broker == broker)
        .map(|e| {
            let text = e.text();
            text.strip_prefix(broker)
                .map(|t| t.trim_start().to_string())
                .unwrap_or(text)
        })
        .collect(),
    });
    Some(BrokerDetail {
        broker: broker.to_string(),
        capacity: super::brokers::capacity_text(data),
        weighted_max_pct,
        resources,
        bundles,
        plan,
    })
}

fn row(
    resource: &'static str,
    weight_key: Option<&'static str>,
    usage_pct: f64,
    weight: f64,
    counted: bool,
) -> ResourceRow {
    ResourceRow {
        resource,
        weight_key,
        usage_pct,
        weight,
        weighted_pct: if counted { usage_pct * weight } else { 0.0 },
        counted,
        driving: false,
    }
}

impl ResourceRow {
    /// Why this resource does or does not decide the broker's weighted maximum, in one line.
    pub fn explanation(&self) -> String {
        match (self.counted, self.weight_key) {
            (false, _) => {
                "heap memory: not part of the modular load manager's weighted maximum".to_string()
            }
            (true, Some(key)) if self.weight == 0.0 => {
                format!("{key} = 0: does not count, whatever its usage")
            }
            (true, Some(key)) if self.driving => {
                format!("decides the weighted maximum ({key} = {})", self.weight)
            }
            (true, Some(key)) => format!("{key} = {}", self.weight),
            (true, None) => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BrokerSnapshot, ResourceUsage};

    fn snapshot() -> Snapshot {
        let mut s = Snapshot::default();
        let mut b = BrokerSnapshot::default();
        let l = &mut b.local_broker_data;
        l.cpu = ResourceUsage {
            usage: 60.0,
            limit: 100.0,
        };
        l.memory = ResourceUsage {
            usage: 990.0,
            limit: 1000.0,
        };
        l.direct_memory = ResourceUsage {
            usage: 10.0,
            limit: 100.0,
        };
        l.bandwidth_in = ResourceUsage {
            usage: 70.0,
            limit: 100.0,
        };
        l.bandwidth_out = ResourceUsage {
            usage: 20.0,
            limit: 100.0,
        };
        l.bundles = vec![
            "t/n/0x00000000_0x80000000".into(),
            "t/n/0x80000000_0xffffffff".into(),
        ];
        s.brokers.insert("b1:8080".into(), b);
        s
    }

    /// The demo plan sends two bundles to broker-10: its detail says its capacity and the
    /// arithmetic of each predicted usage, the cpu line as `lbplan plan
    /// --explain-usage` prints it.
    #[test]
    fn a_destination_explains_its_predicted_usage() {
        let snapshot = crate::simulate::builtin_snapshot("demo").unwrap();
        let config = LoadBalancerConfig::for_profile(crate::config::Profile::Pulsar4x);
        let plan =
            crate::plan::make_plan(&snapshot, &crate::plan::PlanRequest::leader_cycle()).unwrap();
        let d = broker_detail(&snapshot, &config, "broker-10.demo.svc:8080", Some(&plan)).unwrap();
        assert_eq!(
            d.capacity,
            "8 cores · NIC 2.0 Gbps · heap 4.0 GiB · direct 4.0 GiB"
        );
        let e = d.plan.unwrap();
        assert_eq!(e.moves_in.len(), 2);
        assert_eq!(e.usage_explained.len(), 5);
        let cpu = &e.usage_explained[0];
        assert!(cpu.starts_with("cpu: limit 8.00 cores;"), "{cpu}");
        assert!(
            cpu.contains("+ 2 bundles in") && cpu.contains("= 47.6 %"),
            "{cpu}"
        );
        assert!(e.usage_explained[1].contains("weak: heap"));
    }

    #[test]
    fn the_driving_resource_and_why_heap_does_not_count() {
        let config = LoadBalancerConfig::for_profile(crate::config::Profile::Pulsar4x);
        let d = broker_detail(&snapshot(), &config, "b1:8080", None).unwrap();
        // Default weights (cpu, bandwidth 1.0): bandwidthIn 70 % beats cpu 60 %; heap at 99 %
        // is left out of getMaxResourceUsageWithWeight.
        let driving: Vec<&str> = d
            .resources
            .iter()
            .filter(|r| r.driving)
            .map(|r| r.resource)
            .collect();
        assert_eq!(driving, ["bandwidthIn"]);
        assert_eq!(d.weighted_max_pct, 70.0);
        let heap = d.resources.iter().find(|r| r.resource == "memory").unwrap();
        assert_eq!(
            (heap.usage_pct, heap.weighted_pct, heap.counted),
            (99.0, 0.0, false)
        );
        assert!(heap.explanation().contains("not part of"));
        // Bandwidth-in weight 0: cpu decides.
        let mut config = LoadBalancerConfig::for_profile(crate::config::Profile::Pulsar4x);
        config
            .set_text("loadBalancerBandwithInResourceWeight", "0")
            .unwrap();
        let d = broker_detail(&snapshot(), &config, "b1:8080", None).unwrap();
        let bw = d
            .resources
            .iter()
            .find(|r| r.resource == "bandwidthIn")
            .unwrap();
        assert!(
            bw.explanation()
                .starts_with("loadBalancerBandwithInResourceWeight = 0")
        );
        assert_eq!(
            d.resources.iter().find(|r| r.driving).map(|r| r.resource),
            Some("cpu")
        );
        // percentUsage is a Java float (reference §1.1): 60/100 → 60.000003814697266.
        assert_eq!(d.weighted_max_pct, 60.000003814697266);
        assert!(broker_detail(&snapshot(), &config, "nobody", None).is_none());
    }

    #[test]
    fn bundles_share_the_broker_traffic() {
        let d = broker_detail(
            &snapshot(),
            &LoadBalancerConfig::for_profile(crate::config::Profile::Pulsar4x),
            "b1:8080",
            None,
        )
        .unwrap();
        // No BundleData and no lastStats: each carries Pulsar's default 100,000 B/s, half each.
        assert_eq!(d.bundles.len(), 2);
        assert!(
            d.bundles
                .iter()
                .all(|b| b.share == 0.5 && b.bytes_per_sec == 100_000.0)
        );
    }
}
