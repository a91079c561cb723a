//! Every output says which release's behaviour it used and why: the history report (the replayed
//! leader), a simulation's text and a rebalance's plan. The demo's brokers report 4.0.7 and its
//! `leader_broker` is broker-00, so its leader's release is 4.0.7.

use lbplan_core::config::Profile;
use lbplan_core::history::explain::{ExplainOptions, explain};
use lbplan_core::history::render::render_text;
use lbplan_core::history::series::Series;
use lbplan_core::rebalance::goal::Goal;
use lbplan_core::rebalance::{RebalanceRequest, propose};
use lbplan_core::release::BasisSource;
use lbplan_core::simulate::{RunConfig, RunOptions, builtin_scenario, compare, render_table};

const LEADER_LINE: &str =
    "Behaviour of Pulsar 4.0.7: the leader broker-00.demo.svc:8080 reports 4.0.7";

#[test]
fn the_history_report_names_the_replayed_leaders_release() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let mut later = demo.clone();
    later.captured_at_ms = demo.captured_at_ms.map(|t| t + 60_000);
    let series = Series {
        snapshots: vec![demo, later],
    };
    let r = explain(&series, &ExplainOptions::default()).unwrap();
    let basis = r.release_basis.clone().unwrap();
    assert_eq!(basis.release, "4.0.7");
    assert_eq!(basis.source, BasisSource::Leader);
    let text = render_text(&r);
    assert_eq!(text.matches("Behaviour of Pulsar").count(), 1, "{text}");
    // The history's text names brokers short (core's one display rule), the JSON by full id.
    assert!(
        text.contains("Behaviour of Pulsar 4.0.7: the leader broker-00 reports 4.0.7"),
        "{text}"
    );
    // --profile overrides, and says so.
    let opts = ExplainOptions {
        profile: Profile::parse("5.0.0"),
        ..ExplainOptions::default()
    };
    let r = explain(&series, &opts).unwrap();
    let basis = r.release_basis.unwrap();
    assert_eq!(
        (basis.release.as_str(), basis.source),
        ("5.0.0", BasisSource::Override)
    );
}

#[test]
fn a_simulation_states_the_release_once_or_per_run() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let scenario = builtin_scenario("steady").unwrap().unwrap();
    let opts = RunOptions {
        cycles: 2,
        seed: 0,
        record_broker_usage: false,
        record_ownership: false,
    };
    let c = compare(&demo, &scenario, &[], opts, &mut |_, _| true).unwrap();
    let text = render_table(&c);
    assert_eq!(text.matches("Behaviour of Pulsar").count(), 1, "{text}");
    assert!(text.contains(LEADER_LINE), "{text}");
    let configs = [
        RunConfig::parse("name=today").unwrap(),
        RunConfig::parse("name=five;profile=5.0.0").unwrap(),
    ];
    let c = compare(&demo, &scenario, &configs, opts, &mut |_, _| true).unwrap();
    // The lines under the table wrap within its 120 columns: read them as one.
    let text = render_table(&c)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains(&format!("[today] {LEADER_LINE}")), "{text}");
    assert!(
        text.contains("[five] Behaviour of Pulsar 5.0.0: profile 5.0.0 chosen by the operator"),
        "{text}"
    );
}

#[test]
fn a_rebalance_plan_carries_the_release_basis() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let p = propose(
        &demo,
        &RebalanceRequest::new(Goal::parse("max/mean<=1.15").unwrap()),
    )
    .unwrap();
    let basis = p.plan.release_basis.unwrap();
    assert_eq!(basis.release, "4.0.7");
    assert_eq!(
        basis.leader_broker.as_deref(),
        Some("broker-00.demo.svc:8080")
    );
}
