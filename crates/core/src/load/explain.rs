//! What a predicted usage rests on: for each broker a plan's moves change, and each resource, the
//! arithmetic of the one load model — the broker's limit, its idle baseline, the work of the
//! bundles it keeps, of those it receives and of those it gives away — with the estimate flagged
//! weak where it is (heap, a bundle whose owner reports no throughput, a bundle without
//! `lastStats`) and a range where the model's assumptions allow several answers (the idle
//! baseline from none to twice the default; heap from none of it moving to its traffic share).

use std::collections::HashMap;

use serde::Serialize;

use crate::load::bundle_load::{BundleLoad, bundle_load_from};
use crate::model::{LocalBrokerData, Snapshot};
use crate::units::percent_usage as units_percent;

use super::work::{
    Amounts, BundleShare, CPU, LoadModel, MEMORY, NIC_IN, NIC_OUT, OwnerTraffic, ShareBasis,
    estimate_owner,
};

/// One move of a plan: bundle, from, to.
pub type Move<'a> = (&'a str, &'a str, &'a str);

/// A bundle's work moving in or out of a broker, in the resource's absolute unit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MovedWork {
    pub bundle: String,
    /// The broker it comes from (moved in) or goes to (moved out).
    pub broker: String,
    pub amount: f64,
}

/// The arithmetic of one predicted usage.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UsageExplanation {
    pub broker: String,
    /// `cpu`, `memory`, `direct_memory`, `bandwidth_in`, `bandwidth_out`.
    pub resource: &'static str,
    /// `cores`, `MiB`, `bytes/s`.
    pub unit: &'static str,
    pub limit: f64,
    pub before: f64,
    /// Usage none of its bundles explains.
    pub baseline: f64,
    pub moved_in: Vec<MovedWork>,
    pub moved_out: Vec<MovedWork>,
    pub after: f64,
    pub before_pct: f64,
    pub after_pct: f64,
    /// The lowest and highest `after_pct` the model's other assumptions give, when they differ
    /// by more than half a point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range_pct: Option<(f64, f64)>,
    /// Why the figure is weak, one short sentence each (empty: as good as the report allows).
    pub weak: Vec<String>,
}

fn unit_of(r: usize) -> (&'static str, f64) {
    match r {
        CPU => ("cores", 0.01),
        NIC_IN | NIC_OUT => ("bytes/s", 1000.0 / 8.0),
        _ => ("MiB", 1.0),
    }
}

fn fmt(x: f64, unit: &str) -> String {
    match unit {
        "cores" => format!("{x:.2} cores"),
        "bytes/s" => crate::text::rate(x),
        _ => format!("{x:.0} MiB"),
    }
}

impl UsageExplanation {
    /// One line: "broker-10 cpu: 1 core; 0.05 idle + 0.30 kept + 8 bundles in (0.10 cores each on
    /// average) = 1.09 cores = 109.0 %".
    pub fn text(&self) -> String {
        let u = self.unit;
        let kept =
            self.before - self.baseline - self.moved_out.iter().map(|m| m.amount).sum::<f64>();
        let mut s = format!(
            "{} {}: limit {}; {} idle baseline + {} its bundles keep",
            self.broker,
            self.resource,
            fmt(self.limit, u),
            fmt(self.baseline, u),
            fmt(kept.max(0.0), u)
        );
        let sum = |v: &[MovedWork]| v.iter().map(|m| m.amount).sum::<f64>();
        if !self.moved_in.is_empty() {
            let n = self.moved_in.len();
            s.push_str(&format!(
                " + {n} bundle{} in ({}{})",
                if n == 1 { "" } else { "s" },
                fmt(sum(&self.moved_in), u),
                if n > 1 {
                    format!(
                        ", {} each on average",
                        fmt(sum(&self.moved_in) / n as f64, u)
                    )
                } else {
                    String::new()
                }
            ));
        }
        if !self.moved_out.is_empty() {
            let n = self.moved_out.len();
            s.push_str(&format!(
                " ({n} bundle{} out, {})",
                if n == 1 { "" } else { "s" },
                fmt(sum(&self.moved_out), u)
            ));
        }
        s.push_str(&format!(
            " = {} = {:.1} % (was {:.1} %)",
            fmt(self.after, u),
            self.after_pct,
            self.before_pct
        ));
        if let Some((lo, hi)) = self.range_pct {
            s.push_str(&format!(
                "; between {lo:.1} % and {hi:.1} % under other assumptions"
            ));
        }
        if !self.weak.is_empty() {
            s.push_str(&format!("; weak: {}", self.weak.join("; ")));
        }
        s
    }
}

/// The predicted usage after `moves` of every broker they touch, for every resource, with its
/// arithmetic: the same numbers as a plan's `brokers_after` under `model` (the NIC limits as the
/// snapshot reports them: `nic_limit_kbps` overrides them as `loadBalancerOverrideBrokerNicSpeedGbps`
/// does).
pub fn explain_moves(
    snapshot: &Snapshot,
    moves: &[Move<'_>],
    model: &LoadModel,
    nic_limit_kbps: Option<f64>,
) -> Vec<UsageExplanation> {
    let low = LoadModel {
        idle_cpu_fraction: 0.0,
        ..model.clone()
    };
    let high = LoadModel {
        idle_cpu_fraction: (model.idle_cpu_fraction * 2.0).min(1.0),
        ..model.clone()
    };
    // Each broker's bundles are read once for the three models and the baselines.
    let mut read = OwnerReads::default();
    let main = Prediction::of(snapshot, moves, model, &mut read);
    let alts = [
        Prediction::of(snapshot, moves, &low, &mut read),
        Prediction::of(snapshot, moves, &high, &mut read),
    ];
    let mut out = Vec::new();
    for broker in main.touched.iter() {
        let Some(b) = snapshot.brokers.get(broker) else {
            continue;
        };
        let local = &b.local_broker_data;
        let limits = {
            let mut l = crate::load::work::limit_amounts(local);
            if let Some(k) = nic_limit_kbps {
                l[NIC_IN] = k;
                l[NIC_OUT] = k;
            }
            l
        };
        let usage = crate::load::work::usage_amounts(local);
        let est = read.get(snapshot, broker).map(|o| o.estimate(model));
        for (r, name) in crate::load::resource_names().into_iter().enumerate() {
            let (unit, scale) = unit_of(r);
            let get = |a: &Amounts| a.get(r).copied().unwrap_or(0.0);
            let limit = get(&limits);
            let before = get(&usage);
            let after_raw = main.after(broker, r, before);
            let pct = |raw: f64| units_percent(raw, limit);
            let after_pct = pct(after_raw);
            let mut candidates: Vec<f64> = alts
                .iter()
                .map(|p| pct(p.after(broker, r, before)))
                .collect();
            if r == MEMORY {
                // Heap does not follow traffic: from none of it moving to the traffic share.
                candidates.push(pct(before));
            }
            let lo = candidates.iter().copied().fold(after_pct, f64::min);
            let hi = candidates.iter().copied().fold(after_pct, f64::max);
            let moved = |list: &[(String, String, Amounts)]| {
                list.iter()
                    .map(|(bundle, other, w)| MovedWork {
                        bundle: bundle.clone(),
                        broker: other.clone(),
                        amount: get(w) * scale,
                    })
                    .collect::<Vec<_>>()
            };
            let empty = Vec::new();
            let moved_in = moved(main.ins.get(broker).unwrap_or(&empty));
            let moved_out = moved(main.outs.get(broker).unwrap_or(&empty));
            let mut weak = Vec::new();
            if r == MEMORY {
                weak.push(
                    "heap is not proportional to traffic (garbage collection decides it)"
                        .to_string(),
                );
            }
            for (bundle, _, _) in main
                .ins
                .get(broker)
                .into_iter()
                .chain(main.outs.get(broker))
                .flatten()
            {
                if let Some(w) = main.weakness.get(bundle) {
                    weak.push(format!("{bundle}: {w}"));
                }
            }
            out.push(UsageExplanation {
                broker: broker.clone(),
                resource: name,
                unit,
                limit: limit * scale,
                before: before * scale,
                baseline: est.as_ref().map_or(0.0, |e| get(&e.baseline)) * scale,
                moved_in,
                moved_out,
                after: after_raw * scale,
                before_pct: pct(before),
                after_pct,
                range_pct: (hi - lo > 0.5).then_some((lo, hi)),
                weak,
            });
        }
    }
    out
}

/// An owner's bundles as the load model reads them (`owner_work`'s reading, which no model
/// changes): each bundle's traffic and their sums.
struct OwnerRead<'s> {
    local: &'s LocalBrokerData,
    loads: Vec<(&'s str, BundleLoad)>,
    traffic: OwnerTraffic,
}

impl OwnerRead<'_> {
    fn estimate(&self, model: &LoadModel) -> super::work::OwnerEstimate {
        estimate_owner(self.local, self.traffic, model)
    }

    /// The share and work of `bundle` (its first entry) under `model`, as `owner_work` gives it.
    fn work(&self, bundle: &str, model: &LoadModel) -> Option<(BundleShare, Amounts)> {
        let (_, load) = self.loads.iter().find(|(b, _)| *b == bundle)?;
        let share = BundleShare::of(&load.stats, &self.traffic);
        Some((share, share.work(&self.estimate(model).busy)))
    }
}

/// Owners read so far (`None`: a broker the snapshot does not have).
#[derive(Default)]
struct OwnerReads<'s> {
    owners: HashMap<&'s str, Option<OwnerRead<'s>>>,
}

impl<'s> OwnerReads<'s> {
    fn get(&mut self, snapshot: &'s Snapshot, owner: &str) -> Option<&OwnerRead<'s>> {
        if !self.owners.contains_key(owner) {
            let read = snapshot.brokers.get_key_value(owner).map(|(id, b)| {
                let local = &b.local_broker_data;
                // As `bundle_load` reads each bundle of the owner's list.
                let loads: Vec<(&str, BundleLoad)> = local
                    .bundles
                    .iter()
                    .map(|name| {
                        let load = bundle_load_from(
                            local.last_stats.get(name.as_str()),
                            snapshot.bundle_data.get(name.as_str()),
                        );
                        (name.as_str(), load)
                    })
                    .collect();
                let traffic = OwnerTraffic::of(loads.iter().map(|(_, l)| &l.stats));
                (
                    id.as_str(),
                    OwnerRead {
                        local,
                        loads,
                        traffic,
                    },
                )
            });
            match read {
                Some((id, read)) => self.owners.insert(id, Some(read)),
                None => return None,
            };
        }
        self.owners.get(owner).and_then(Option::as_ref)
    }
}

/// The moves' work under one model: per broker, what comes in and goes out.
struct Prediction {
    touched: Vec<String>,
    /// broker → (bundle, from, work as it costs here).
    ins: HashMap<String, Vec<(String, String, Amounts)>>,
    /// broker → (bundle, to, work as it cost here).
    outs: HashMap<String, Vec<(String, String, Amounts)>>,
    weakness: HashMap<String, String>,
}

impl Prediction {
    fn of<'s>(
        snapshot: &'s Snapshot,
        moves: &[Move<'_>],
        model: &LoadModel,
        read: &mut OwnerReads<'s>,
    ) -> Self {
        let mut p = Prediction {
            touched: Vec::new(),
            ins: HashMap::new(),
            outs: HashMap::new(),
            weakness: HashMap::new(),
        };
        // Where each bundle started (its work is estimated there) and where it ends.
        let mut start: HashMap<&str, &str> = HashMap::new();
        let mut end: Vec<(&str, &str)> = Vec::new();
        for &(bundle, from, to) in moves {
            start.entry(bundle).or_insert(from);
            match end.iter_mut().find(|(b, _)| *b == bundle) {
                Some(e) => e.1 = to,
                None => end.push((bundle, to)),
            }
        }
        for (bundle, to) in end {
            let Some(&from) = start.get(bundle) else {
                continue;
            };
            if from == to {
                continue;
            }
            let Some((share, work)) = read.get(snapshot, from).and_then(|o| o.work(bundle, model))
            else {
                continue;
            };
            match share.basis {
                ShareBasis::Throughput => {}
                ShareBasis::MessageRate => {
                    p.weakness.insert(
                        bundle.to_string(),
                        "its owner's bundles report no throughput: shared by message rate".into(),
                    );
                }
                ShareBasis::BundleCount => {
                    p.weakness.insert(
                        bundle.to_string(),
                        "its owner's bundles report no traffic: one n-th of the owner's usage"
                            .into(),
                    );
                }
            }
            let listed = snapshot
                .brokers
                .get(from)
                .is_some_and(|b| b.local_broker_data.last_stats.contains_key(bundle));
            if !listed {
                p.weakness.insert(
                    bundle.to_string(),
                    "no lastStats on its owner: its traffic is the leader's stored data".into(),
                );
            }
            for b in [from, to] {
                if !p.touched.iter().any(|t| t == b) {
                    p.touched.push(b.to_string());
                }
            }
            p.outs.entry(from.to_string()).or_default().push((
                bundle.to_string(),
                to.to_string(),
                work,
            ));
            p.ins.entry(to.to_string()).or_default().push((
                bundle.to_string(),
                from.to_string(),
                model.carried(&work, from, to),
            ));
        }
        p
    }

    /// The usage of resource `r` on `broker` after the moves (raw units), from `before`.
    fn after(&self, broker: &str, r: usize, before: f64) -> f64 {
        let sum = |v: Option<&Vec<(String, String, Amounts)>>| {
            v.into_iter()
                .flatten()
                .map(|(_, _, w)| w.get(r).copied().unwrap_or(0.0))
                .sum::<f64>()
        };
        let out = sum(self.outs.get(broker));
        let inn = sum(self.ins.get(broker));
        let mut u = before;
        if out != 0.0 {
            u = (u - out).max(0.0);
        }
        u + inn
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::balance::explain_plan;
    use crate::plan::{PlanRequest, make_plan};
    use crate::simulate::builtin_snapshot;

    /// The explanation's figures are the plan's own `brokers_after`, and add up.
    #[test]
    fn the_arithmetic_is_the_plans() {
        let snapshot = builtin_snapshot("demo").unwrap();
        let plan = make_plan(&snapshot, &PlanRequest::leader_cycle()).unwrap();
        assert!(!plan.unloads.is_empty());
        let ex = explain_plan(&snapshot, &plan, &LoadModel::default());
        assert!(!ex.is_empty());
        for e in &ex {
            let after = plan
                .brokers_after
                .iter()
                .find(|b| b.broker == e.broker)
                .unwrap();
            let pct = match e.resource {
                "cpu" => after.cpu_pct,
                "memory" => after.memory_pct,
                "direct_memory" => after.direct_memory_pct,
                "bandwidth_in" => after.bandwidth_in_pct,
                _ => after.bandwidth_out_pct,
            };
            assert!(
                (pct - e.after_pct).abs() < 1e-3,
                "{}: {pct} vs {}",
                e.text(),
                e.after_pct
            );
            let ins: f64 = e.moved_in.iter().map(|m| m.amount).sum();
            let outs: f64 = e.moved_out.iter().map(|m| m.amount).sum();
            assert!((e.before - outs + ins - e.after).abs() < 1e-6 * e.after.max(1.0));
            if e.resource == "memory" {
                assert!(!e.weak.is_empty());
            }
            if let Some((lo, hi)) = e.range_pct {
                assert!(lo <= e.after_pct && e.after_pct <= hi);
            }
        }
        // A destination's cpu line names its limit in cores and each bundle that comes in.
        let to = plan.unloads[0].to.clone().unwrap();
        let line = ex
            .iter()
            .find(|e| e.broker == to && e.resource == "cpu")
            .unwrap()
            .text();
        assert!(
            line.contains("limit 8.00 cores") && line.contains("in ("),
            "{line}"
        );
    }
}
