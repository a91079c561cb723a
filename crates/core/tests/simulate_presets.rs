//! A preset means what its name says on any snapshot, and a comparison whose runs
//! behave the same says so.
//!
//! The snapshot is the built-in demo cluster whose `broker.conf` sets
//! `loadBalancerLoadSheddingStrategy=ThresholdShedder` (the case). Pulsar 5.0's defaults are
//! AvgShedder for both shedding and placement (`ServiceConfiguration` of 5.0); with the snapshot's
//! key applied after them, 5.0 would run ThresholdShedder and fall back to
//! LeastLongTermMessageRate for placement, which is what the preset ran before the fix.

use lbplan_core::simulate::run_config::PRESETS;
use lbplan_core::simulate::{RunConfig, RunOptions, builtin_scenario, builtin_snapshot, compare};

const AVG: &str = "org.apache.pulsar.broker.loadbalance.impl.AvgShedder";
const THRESHOLD: &str = "org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder";
const LLTMR: &str = "org.apache.pulsar.broker.loadbalance.impl.LeastLongTermMessageRate";

fn opts() -> RunOptions {
    RunOptions {
        cycles: 6,
        seed: 0,
        record_broker_usage: false,
        record_ownership: false,
    }
}

fn preset(label_start: &str) -> RunConfig {
    let (_, text) = PRESETS
        .iter()
        .find(|(l, _)| l.starts_with(label_start))
        .unwrap_or_else(|| panic!("no preset {label_start}"));
    RunConfig::parse(text).unwrap()
}

#[test]
fn the_5_0_preset_runs_avg_shedder_when_the_snapshots_broker_conf_sets_the_shedder() {
    let mut snapshot = builtin_snapshot("demo").unwrap();
    snapshot.broker_conf.insert(
        "loadBalancerLoadSheddingStrategy".into(),
        "ThresholdShedder".into(),
    );
    let scenario = builtin_scenario("steady").unwrap().unwrap();
    let current = RunConfig {
        name: "current".into(),
        profile: Some(lbplan_core::config::Profile::Pulsar50),
        ..RunConfig::default()
    };
    let c = compare(
        &snapshot,
        &scenario,
        &[current, preset("Pulsar 5.0 defaults")],
        opts(),
        &mut |_, _| true,
    )
    .unwrap();
    // The snapshot's own configuration: its ThresholdShedder, placement fallen back from 5.0's
    // AvgShedder default.
    assert_eq!(
        (
            c.runs[0].shedding_strategy.as_str(),
            c.runs[0].placement_strategy.as_str()
        ),
        (THRESHOLD, LLTMR)
    );
    // The preset: 5.0's defaults, whatever the snapshot's broker.conf says.
    assert_eq!(
        (
            c.runs[1].shedding_strategy.as_str(),
            c.runs[1].placement_strategy.as_str()
        ),
        (AVG, AVG)
    );
    assert_ne!(c.runs[0].cycles, c.runs[1].cycles);
    assert!(c.identical_runs.is_empty());
}

#[test]
fn runs_that_behave_the_same_are_reported_identical() {
    let mut snapshot = builtin_snapshot("demo").unwrap();
    snapshot.broker_conf.insert(
        "loadBalancerLoadSheddingStrategy".into(),
        "ThresholdShedder".into(),
    );
    let scenario = builtin_scenario("steady").unwrap().unwrap();
    // The snapshot already sets ThresholdShedder: saying it again changes nothing.
    let same =
        RunConfig::parse("name=same;loadBalancerLoadSheddingStrategy=ThresholdShedder").unwrap();
    let other = preset("Pulsar 5.0 defaults");
    let c = compare(
        &snapshot,
        &scenario,
        &[RunConfig::default(), other, same],
        opts(),
        &mut |_, _| true,
    )
    .unwrap();
    assert_eq!(c.identical_runs, vec![[0, 2]]);
    let table = lbplan_core::simulate::render_table(&c);
    assert!(
        table.contains("identical: [") && table.contains("and [same]"),
        "{table}"
    );
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["identical_runs"], serde_json::json!([[0, 2]]));
}
