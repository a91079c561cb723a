//! The worker's behaviour without a browser: requests in, answers out.

use std::borrow::Cow;

use lbplan_core::simulate::{RunConfig, Scenario, builtin_scenario, builtin_scenario_names};

use lbplan_core::model::Snapshot;
use lbplan_core::plan::PlanRequest;

use super::*;
use crate::protocol::{PlanJob, SimulateRequest};

fn request(id: u32, cycles: u32, configs: Vec<RunConfig>) -> String {
    let snapshot = lbplan_core::synthetic::demo().unwrap();
    let scenario = builtin_scenario("hot-spike").unwrap().unwrap();
    serde_json::to_string(&Request::Simulate(Box::new(SimulateRequest {
        format_version: WORKER_PROTOCOL_VERSION,
        id,
        snapshot: Some(Cow::Owned(snapshot)),
        scenario,
        configs,
        cycles,
        seed: 7,
        record_broker_usage: true,
        record_ownership: true,
    })))
    .unwrap()
}

/// Runs `handle` with a clock that advances `step_ms` per reading.
fn answers(text: &str, step_ms: f64) -> Vec<Response> {
    let mut out = Vec::new();
    let mut t = 0.0;
    WorkerState::default().handle(text, &mut |r| out.push(r), &mut || {
        t += step_ms;
        t
    });
    out
}

#[test]
fn a_simulation_reports_throttled_progress_then_the_comparison() {
    let configs = vec![
        RunConfig::parse("name=4.x;profile=4.x").unwrap(),
        RunConfig::parse("name=5.0;profile=5.0").unwrap(),
    ];
    // 2 configurations × 40 cycles = 80 progress calls, the clock moving 10 ms per call: a message
    // at calls 1, 11, …, 71 (every 100 ms) and at the last one.
    let out = answers(&request(3, 40, configs), 10.0);
    let progress: Vec<(u32, u32)> = out
        .iter()
        .filter_map(|r| match r {
            Response::Progress { id: 3, done, total } => Some((*done, *total)),
            _ => None,
        })
        .collect();
    assert_eq!(
        progress,
        vec![
            (1, 80),
            (11, 80),
            (21, 80),
            (31, 80),
            (41, 80),
            (51, 80),
            (61, 80),
            (71, 80),
            (80, 80)
        ]
    );
    let Some(Response::Done { id, comparison }) = out.last() else {
        panic!("no comparison: {:?}", out.last());
    };
    assert_eq!(*id, 3);
    assert_eq!(comparison.scenario, "hot-spike");
    assert_eq!(comparison.runs.len(), 2);
    // The profiles' default strategies (reference §13.1).
    assert_eq!(
        comparison.runs[0].shedding_strategy,
        "org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder"
    );
    assert_eq!(
        comparison.runs[1].shedding_strategy,
        "org.apache.pulsar.broker.loadbalance.impl.AvgShedder"
    );
    assert!(
        comparison
            .runs
            .iter()
            .all(|r| r.cycles.len() == 40 && !r.cancelled)
    );
    // Broker usage was asked for: the dashboard demo's 12 brokers in every cycle.
    assert_eq!(comparison.runs[0].cycles[0].broker_usage_fraction.len(), 12);
}

#[test]
fn bad_requests_fail_with_a_reason() {
    let out = answers("{\"type\":\"simulate\"", 1.0);
    assert!(
        matches!(&out[..], [Response::Failed { id: 0, message }] if message.starts_with("the worker could not read the request"))
    );
    let stale = request(9, 1, Vec::new()).replacen(
        &format!("\"format_version\":{WORKER_PROTOCOL_VERSION}"),
        "\"format_version\":99",
        1,
    );
    let out = answers(&stale, 1.0);
    assert!(
        matches!(&out[..], [Response::Failed { id: 9, message }] if message.contains("format_version 99"))
    );
    let bad_setting = request(
        4,
        2,
        vec![RunConfig::parse("loadBalancerBrokerThresholdShedderPercentage=lots").unwrap()],
    );
    let out = answers(&bad_setting, 1.0);
    assert!(
        matches!(out.last(), Some(Response::Failed { id: 4, message }) if message.contains("loadBalancerBrokerThresholdShedderPercentage")),
        "{:?}",
        out.last()
    );
}

#[test]
fn built_in_scenarios_survive_the_trip_to_the_worker() {
    for name in builtin_scenario_names() {
        let s = builtin_scenario(name).unwrap().unwrap();
        let back: Scenario = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s, "{name}");
    }
}

#[test]
fn broker_usage_is_kept_up_to_the_cap() {
    assert!(broker_usage_fits(1_000, 400));
    assert!(!broker_usage_fits(1_000, 401));
    assert!(broker_usage_fits(12, 10_000));
}

fn plan_job(id: u32, snapshot_id: u64, snapshot: Option<Snapshot>, operations: &[&str]) -> String {
    serde_json::to_string(&Request::Plan(Box::new(PlanJob {
        format_version: WORKER_PROTOCOL_VERSION,
        id,
        snapshot_id,
        snapshot: snapshot.map(Cow::Owned),
        profile: None,
        settings: Vec::new(),
        operations: operations.iter().map(|o| o.to_string()).collect(),
        seed: 0,
        leader_cycle: true,
        outlook_cycles: 10,
        diff_baseline: true,
        explain: lbplan_core::plan::Explain::Full,
        cpu_cost_factors: Default::default(),
    })))
    .unwrap()
}

/// A calibration loaded in the dashboard reaches the plan: the same decisions (Pulsar's strategies
/// do not read the planner's load model), the destination's CPU after the moves predicted at its
/// factor, exactly as core's engine with that model predicts; clearing it plans with the default
/// model again, not from a baseline kept under the calibration.
#[test]
fn a_calibration_changes_the_predictions_and_clearing_it_restores_them() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let plain = lbplan_core::plan::make_plan(&demo, &PlanRequest::leader_cycle()).unwrap();
    let dest = plain
        .unloads
        .iter()
        .find_map(|u| u.to.clone())
        .expect("the demo's cycle moves a bundle");
    let factors: protocol::CpuCostFactors = [(dest.clone(), 2.0)].into_iter().collect();
    let job = |id: u32, snapshot: Option<Snapshot>, factors: protocol::CpuCostFactors| {
        let mut request = PlanRequest::leader_cycle();
        request.explain = lbplan_core::plan::Explain::Full;
        serde_json::to_string(&Request::Plan(Box::new(
            PlanJob::new(id, 7, snapshot.as_ref(), &request)
                .with_diff_baseline(true)
                .with_cpu_cost_factors(factors),
        )))
        .unwrap()
    };
    let mut state = WorkerState::default();
    let Response::Planned {
        result: Ok(calibrated),
        ..
    } = planned(&mut state, &job(1, Some(demo.clone()), factors.clone()))
    else {
        panic!("no plan");
    };
    // The snapshot's trip as text changes nothing but how its fingerprint is computed.
    let mut engine = lbplan_core::plan::PlanEngine::with_fingerprint(
        Cow::Owned(demo.clone()),
        calibrated.snapshot_fingerprint.clone(),
    )
    .with_load_model(protocol::load_model(&factors));
    assert_eq!(
        *calibrated,
        engine.plan(&PlanRequest::leader_cycle()).unwrap()
    );
    assert_eq!(calibrated.cpu_cost_factors, factors);
    assert!(
        calibrated
            .prediction_basis()
            .unwrap()
            .contains(&format!("{dest} ×2.00"))
    );
    let moves = |p: &lbplan_core::plan::Plan| -> Vec<(String, String, Option<String>)> {
        p.unloads
            .iter()
            .map(|u| (u.bundle.clone(), u.from.clone(), u.to.clone()))
            .collect()
    };
    assert_eq!(moves(&calibrated), moves(&plain));
    let cpu = |p: &lbplan_core::plan::Plan| {
        p.brokers_after
            .iter()
            .find(|b| b.broker == dest)
            .map(|b| b.cpu_pct)
            .unwrap()
    };
    let before = plain
        .brokers_before
        .iter()
        .find(|b| b.broker == dest)
        .unwrap()
        .cpu_pct;
    // Twice the cores for the same work: the rise doubles (to the f32 of a usage).
    let rise_plain = cpu(&plain) - before;
    let rise_calibrated = cpu(&calibrated) - before;
    assert!(rise_plain > 0.0, "{rise_plain}");
    assert!(
        (rise_calibrated - 2.0 * rise_plain).abs() < 1e-3,
        "{rise_plain} {rise_calibrated}"
    );

    let Response::Planned {
        result: Ok(cleared),
        ..
    } = planned(&mut state, &job(2, None, Default::default()))
    else {
        panic!("no plan");
    };
    let plain = lbplan_core::plan::PlanEngine::with_fingerprint(
        Cow::Owned(demo.clone()),
        calibrated.snapshot_fingerprint.clone(),
    )
    .plan(&PlanRequest::leader_cycle())
    .unwrap();
    assert_eq!(*cleared, plain);
    assert_eq!(state.baseline.as_ref().map(|(_, b)| b), Some(&plain));
}

fn planned(state: &mut WorkerState, text: &str) -> Response {
    let mut out = Vec::new();
    state.handle(text, &mut |r| out.push(r), &mut || 0.0);
    assert_eq!(out.len(), 1, "{out:?}");
    out.remove(0)
}

#[test]
fn plans_keep_their_snapshot_in_the_worker() {
    // The demo as the page holds it: read by the importer, as the worker reads what it is sent.
    let demo = lbplan_core::import::read_snapshot(
        "demo-snapshot.json",
        include_str!("../../../static/demo-snapshot.json"),
    )
    .unwrap()
    .snapshot;
    let mut state = WorkerState::default();
    let first = planned(&mut state, &plan_job(1, 7, Some(demo.clone()), &[]));
    let Response::Planned {
        id: 1,
        result: Ok(plan),
        diff: None,
    } = &first
    else {
        panic!("{first:?}");
    };
    // The demo's brokers above the mean weighted max (about 35 %) + the 10 % threshold are
    // broker-04 (79.2 %) and broker-05 (60.2 %): ThresholdShedder unloads only from them.
    assert!(!plan.unloads.is_empty());
    for u in &plan.unloads {
        assert!(
            ["broker-04.demo.svc:8080", "broker-05.demo.svc:8080"].contains(&u.from.as_str()),
            "{u:?}"
        );
    }
    // The same plan as on the page's thread.
    assert_eq!(
        **plan,
        lbplan_core::plan::make_plan(&demo, &PlanRequest::leader_cycle()).unwrap()
    );
    // It survives the trip back to the page.
    let back: Response = serde_json::from_str(&first.to_json()).unwrap();
    assert_eq!(back, first);

    // The plan without operations is kept as the next what-if's baseline: the first edit makes
    // one plan, not two.
    assert_eq!(state.baseline.as_ref().map(|(_, b)| b), Some(&**plan));

    // Next request: no snapshot sent, the worker still has snapshot 7.
    let op = "unload-bundle=initech/billing/0x00000000_0x40000000->broker-11.demo.svc:8080";
    let second = planned(&mut state, &plan_job(2, 7, None, &[op]));
    let Response::Planned {
        id: 2,
        result: Ok(plan),
        ..
    } = &second
    else {
        panic!("{second:?}");
    };
    assert!(plan.unloads.iter().any(|u| u.origin == "manual"
        && u.bundle == "initech/billing/0x00000000_0x40000000"
        && u.to.as_deref() == Some("broker-11.demo.svc:8080")));
    // With an operation, the answer carries what it changes against the plan without it: the
    // same diff the page computes from the two plans.
    let Response::Planned {
        diff: Some(diff), ..
    } = &second
    else {
        panic!("no diff: {second:?}");
    };
    let baseline = lbplan_core::plan::make_plan(&demo, &PlanRequest::leader_cycle()).unwrap();
    assert_eq!(
        **diff,
        lbplan_core::plan::diff::diff_plans(&baseline, plan).unwrap()
    );
    assert!(
        diff.moves_added
            .iter()
            .any(|m| m.bundle == "initech/billing/0x00000000_0x40000000")
    );

    // A snapshot it was never sent, and an operation that does not parse.
    assert!(matches!(
        planned(&mut state, &plan_job(3, 8, None, &[])),
        Response::Failed { id: 3, message } if message.contains("snapshot 8")
    ));
    assert!(matches!(
        planned(&mut state, &plan_job(4, 7, None, &["move-everything"])),
        Response::Planned {
            id: 4,
            result: Err(_),
            diff: None,
        }
    ));
}

/// The dashboard's plans come without details (`explain: summary`); an `explain` request answers
/// one decision's detail from the kept engine, the one the Full plan carries.
#[test]
fn a_light_plan_and_one_decision_explained_on_demand() {
    let demo = lbplan_core::synthetic::demo().unwrap();
    let full = lbplan_core::plan::make_plan(&demo, &PlanRequest::leader_cycle()).unwrap();
    let mut state = WorkerState::default();
    let light_request = PlanRequest {
        explain: lbplan_core::plan::Explain::Summary,
        ..PlanRequest::leader_cycle()
    };
    let job = PlanJob::new(1, 7, Some(&demo), &light_request);
    let answer = planned(
        &mut state,
        &serde_json::to_string(&Request::Plan(Box::new(job))).unwrap(),
    );
    let Response::Planned {
        result: Ok(light), ..
    } = &answer
    else {
        panic!("{answer:?}");
    };
    assert!(light.explained.is_some());
    assert_eq!(light.unloads.len(), full.unloads.len());
    assert!(light.unloads.iter().all(|u| u.detail.is_none()));
    let first = full.unloads.first().unwrap();
    let ask = crate::protocol::ExplainJob {
        format_version: WORKER_PROTOCOL_VERSION,
        id: 2,
        decision: lbplan_core::plan::DecisionRef::Unload {
            bundle: first.bundle.clone(),
        },
        plan: PlanJob::new(2, 7, None, &light_request),
    };
    let answer = planned(
        &mut state,
        &serde_json::to_string(&Request::Explain(Box::new(ask))).unwrap(),
    );
    let back: Response = serde_json::from_str(&answer.to_json()).unwrap();
    assert_eq!(back, answer);
    let Response::DecisionExplained {
        id: 2,
        result: Ok(Some(detail)),
    } = answer
    else {
        panic!("{answer:?}");
    };
    assert_eq!(
        Some(*detail),
        first
            .detail
            .clone()
            .map(lbplan_core::plan::DecisionDetail::Unload)
    );
}

#[test]
fn a_rebalance_reports_its_phases_then_the_proposal() {
    let snapshot = lbplan_core::synthetic::demo().unwrap();
    let job = |goal: &str| {
        serde_json::to_string(&Request::Rebalance(Box::new(
            crate::protocol::RebalanceJob {
                format_version: WORKER_PROTOCOL_VERSION,
                id: 9,
                snapshot_id: 1,
                snapshot: Some(Cow::Owned(snapshot.clone())),
                profile: None,
                settings: Vec::new(),
                goal: goal.to_string(),
                limits: lbplan_core::rebalance::Limits::default(),
                seed: 0,
                outlook_cycles: 10,
                chosen_moves: None,
                cpu_cost_factors: Default::default(),
            },
        )))
        .unwrap()
    };
    let out = answers(&job("max/mean<=1.15"), 1.0);
    let (last, progress) = out.split_last().unwrap();
    // The search, one check (the demo's first proposal meeting the goal is a fixed point), the plan.
    let phases: Vec<(u32, u32)> = progress
        .iter()
        .map(|r| match r {
            Response::Progress { id: 9, done, total } => (*done, *total),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(
        phases.len() >= 3 && phases.iter().all(|(_, t)| *t == 6),
        "{phases:?}"
    );
    match last {
        Response::Proposed {
            id: 9,
            result: Ok(p),
        } => {
            assert!(p.goal_met);
            assert!(p.plan.unloads.iter().all(|u| u.origin == "rebalance"));
        }
        other => panic!("{other:?}"),
    }
    match answers(&job("p99<=3"), 1.0).last() {
        Some(Response::Proposed {
            id: 9,
            result: Err(e),
        }) => assert!(e.contains("p99<=3"), "{e}"),
        other => panic!("{other:?}"),
    }
}

/// The #16059 cluster recorded for `cycles` one-minute cycles under ThresholdShedder +
/// LeastLongTermMessageRate, stored as a series (header, manifests, parts).
fn stored_series(cycles: u32) -> Vec<(String, Vec<u8>)> {
    use lbplan_core::history::store::{
        HEADER_FILE, PARTS_DIR, SNAPSHOTS_DIR, encode_snapshot, header_bytes,
    };
    use lbplan_core::simulate::{RunOptions, builtin_snapshot, simulate_recording};
    let snap = builtin_snapshot("pr-16059").unwrap();
    let scenario = builtin_scenario("pr-16059").unwrap().unwrap();
    let config = RunConfig::parse(
        "loadBalancerLoadSheddingStrategy=ThresholdShedder;\
         loadBalancerLoadPlacementStrategy=LeastLongTermMessageRate",
    )
    .unwrap();
    let (_, series) = simulate_recording(
        &snap,
        &scenario,
        &config,
        RunOptions {
            cycles,
            seed: 7,
            record_broker_usage: false,
            record_ownership: true,
        },
        &mut |_, _| true,
    )
    .unwrap();
    let mut files = vec![(format!("rec/{HEADER_FILE}"), header_bytes())];
    for (seq, s) in series.iter().enumerate() {
        let e = encode_snapshot(s, seq as u64, &|_| false).unwrap();
        files.push((
            format!("rec/{SNAPSHOTS_DIR}/{}", e.manifest_name),
            e.manifest,
        ));
        for (name, bytes) in e.parts {
            files.push((format!("rec/{PARTS_DIR}/{name}"), bytes));
        }
    }
    files
}

/// A history request for `files` (names in the JSON, bytes beside it) and its answers.
fn history_answers(id: u32, files: Vec<(String, Vec<u8>)>) -> Vec<Response> {
    history_answers_with_logs(id, files, Vec::new())
}

/// The same with the leader's log files, whose bytes follow the series'.
fn history_answers_with_logs(
    id: u32,
    files: Vec<(String, Vec<u8>)>,
    logs: Vec<(String, Vec<u8>)>,
) -> Vec<Response> {
    let (names, mut bytes): (Vec<String>, Vec<Vec<u8>>) = files.into_iter().unzip();
    let (leader_logs, log_bytes): (Vec<String>, Vec<Vec<u8>>) = logs.into_iter().unzip();
    bytes.extend(log_bytes);
    let text = serde_json::to_string(&Request::History(Box::new(protocol::HistoryJob {
        format_version: WORKER_PROTOCOL_VERSION,
        id,
        files: names,
        profile: None,
        settings: Vec::new(),
        seed: 7,
        cpu_cost_factors: Default::default(),
        leader_logs,
        prometheus: None,
    })))
    .unwrap();
    let mut out = Vec::new();
    let mut t = 0.0;
    WorkerState::default().handle_with_files(&text, bytes, &mut |r| out.push(r), &mut || {
        t += 1000.0;
        t
    });
    out
}

/// An uploaded folder (under its own top directory) is decoded and explained in the worker: every
/// move is the replayed leader's, and the timeline covers the same snapshots and every bundle of
/// the cluster at each of them.
#[test]
fn a_history_job_reports_progress_then_the_report_and_timeline() {
    let cycles = 12;
    let out = history_answers(5, stored_series(cycles));
    let (last, progress) = out.split_last().unwrap();
    assert!(!progress.is_empty());
    for p in progress {
        assert!(
            matches!(
                p,
                Response::Progress {
                    id: 5,
                    total: 12,
                    ..
                }
            ),
            "{p:?}"
        );
    }
    assert!(matches!(
        progress.last(),
        Some(Response::Progress {
            done: 12,
            total: 12,
            ..
        })
    ));
    let Response::Explained { id: 5, result } = last else {
        panic!("{last:?}");
    };
    let view = result.as_ref().unwrap();
    let s = &view.report.summary;
    assert_eq!(s.snapshots, cycles as usize);
    assert!(s.moves_seen > 0);
    assert_eq!(s.moves_predicted, s.moves_seen);
    assert_eq!(view.timeline.times_ms, view.report.times_ms);
    // Each snapshot's cells tile every namespace's hash range.
    for step in 0..cycles as usize {
        for lane in &view.timeline.lanes {
            let cells = lbplan_core::view::timeline::Timeline::cells_at(lane, step);
            assert_eq!(cells.first().unwrap().lo, 0, "{}", lane.namespace);
            assert_eq!(cells.last().unwrap().hi, u32::MAX, "{}", lane.namespace);
            for pair in cells.windows(2) {
                assert_eq!(pair[0].hi, pair[1].lo, "{}", lane.namespace);
            }
        }
    }
}

/// A series that does not decode is answered with the file to blame; the protocol's new fields
/// default when absent.
#[test]
fn a_broken_series_is_explained_as_an_error_naming_the_file() {
    let mut files = stored_series(2);
    let part = files
        .iter_mut()
        .find(|(p, _)| p.contains("/parts/"))
        .unwrap();
    part.1 = b"not gzip".to_vec();
    let name = part.0.trim_start_matches("rec/").to_string();
    let out = history_answers(6, files);
    let Some(Response::Explained {
        id: 6,
        result: Err(message),
    }) = out.last()
    else {
        panic!("{out:?}");
    };
    assert!(message.contains(&name), "{message}");

    let out = history_answers(9, vec![("a.zip".to_string(), vec![80, 75, 1, 2])]);
    let Some(Response::Explained {
        id: 9,
        result: Err(message),
    }) = out.last()
    else {
        panic!("{out:?}");
    };
    assert!(message.contains("a.zip"), "{message}");

    // The bytes travel beside the request: names without their files are refused.
    let minimal = format!(
        r#"{{"type":"history","format_version":{WORKER_PROTOCOL_VERSION},"id":8,"files":["a.zip"]}}"#
    );
    let out = answers(&minimal, 1000.0);
    let Some(Response::Explained {
        id: 8,
        result: Err(message),
    }) = out.last()
    else {
        panic!("{out:?}");
    };
    assert!(message.contains("0 file(s) for 1 name(s)"), "{message}");
}

/// A snapshot crosses to the worker as its file's text and is read there by the importer's
/// reader: the worker holds the snapshot the page held, and a broken one fails naming the JSON
/// path of the bad value, as an import would.
#[test]
fn a_snapshot_travels_as_text_and_is_read_by_the_importer() {
    let file = include_str!("../../../static/demo-snapshot.json");
    let page = lbplan_core::import::read_snapshot("demo-snapshot.json", file)
        .unwrap()
        .snapshot;
    let text = plan_job(1, 3, Some(page.clone()), &[]);
    let Request::Plan(job) = serde_json::from_str::<Request<'static>>(&text).unwrap() else {
        panic!("not a plan job");
    };
    assert_eq!(job.snapshot.as_deref(), Some(&page));
    let none = plan_job(2, 3, None, &[]);
    let Request::Plan(job) = serde_json::from_str::<Request<'static>>(&none).unwrap() else {
        panic!("not a plan job");
    };
    assert_eq!(job.snapshot, None);

    // The first broker's CPU usage as text instead of a number.
    let mut broken: serde_json::Value = serde_json::from_str(file).unwrap();
    broken["brokers"]["broker-00.demo.svc:8080"]["local_broker_data"]["cpu"]["usage"] =
        serde_json::json!("high");
    let mut request: serde_json::Value = serde_json::from_str(&text).unwrap();
    request["snapshot"] = serde_json::Value::String(broken.to_string());
    let out = answers(&request.to_string(), 1.0);
    assert!(
        matches!(&out[..], [Response::Failed { id: 0, message }]
            if message.contains("the request's snapshot") && message.contains("local_broker_data.cpu.usage")),
        "{out:?}"
    );
}

/// The loaded snapshot reaches a simulation as the file the plan worker writes from what it
/// imported (`snapshot_file`), never inside the page's request: the same comparison as with the
/// snapshot in the request, and a request with neither fails naming what is missing.
#[test]
fn a_simulation_runs_on_the_snapshot_file_the_plan_worker_hands_over() {
    let file = include_str!("../../../static/demo-snapshot.json");
    let mut plan_worker = WorkerState::default();
    let import = serde_json::to_string(&Request::Import(Box::new(protocol::ImportJob {
        format_version: WORKER_PROTOCOL_VERSION,
        id: 1,
        snapshot_id: 5,
        files: vec![("demo-snapshot.json".to_string(), false)],
        chunk_bytes: 0,
        kept: false,
        restore: false,
        live: false,
    })))
    .unwrap();
    plan_worker.handle_with_files(
        &import,
        vec![file.as_bytes().to_vec()],
        &mut |_| {},
        &mut || 0.0,
    );
    let ask = |snapshot_id| {
        serde_json::to_string(&Request::SnapshotFile(Box::new(
            protocol::SnapshotFileJob {
                format_version: WORKER_PROTOCOL_VERSION,
                id: 2,
                snapshot_id,
            },
        )))
        .unwrap()
    };
    let mut out = Vec::new();
    plan_worker.handle(&ask(5), &mut |r| out.push(r), &mut || 0.0);
    let bytes = match out.as_slice() {
        [
            Response::SnapshotFile {
                id: 2,
                snapshot_id: 5,
                bytes,
            },
        ] => bytes.clone(),
        other => panic!("{other:?}"),
    };
    // Its header as text, the bytes beside it.
    assert_eq!(
        out[0].to_json(),
        r#"{"type":"snapshot_file","id":2,"snapshot_id":5}"#
    );
    let demo = lbplan_core::import::read_snapshot("demo", file)
        .unwrap()
        .snapshot;
    let mut other = Vec::new();
    plan_worker.handle(&ask(6), &mut |r| other.push(r), &mut || 0.0);
    assert!(
        matches!(&other[..], [Response::Failed { id: 2, message }] if message.contains("snapshot 6")),
        "{other:?}"
    );

    let run = |snapshot: Option<Snapshot>, files: Vec<Vec<u8>>| {
        let text = serde_json::to_string(&Request::Simulate(Box::new(SimulateRequest {
            format_version: WORKER_PROTOCOL_VERSION,
            id: 3,
            snapshot: snapshot.map(Cow::Owned),
            scenario: builtin_scenario("hot-spike").unwrap().unwrap(),
            configs: Vec::new(),
            cycles: 5,
            seed: 7,
            record_broker_usage: true,
            record_ownership: true,
        })))
        .unwrap();
        let mut out = Vec::new();
        WorkerState::default().handle_with_files(&text, files, &mut |r| out.push(r), &mut || 0.0);
        out.pop().unwrap()
    };
    let from_file = run(None, vec![bytes]);
    let from_request = run(Some(demo), Vec::new());
    assert!(
        matches!(from_file, Response::Done { id: 3, .. }),
        "{from_file:?}"
    );
    assert_eq!(from_file, from_request);
    match run(None, Vec::new()) {
        Response::Failed { id: 3, message } => {
            assert!(message.contains("needs its snapshot"), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

/// A snapshot an older dashboard kept (`{format_version: 1, source, warnings, snapshot}` in
/// localStorage) is imported in the worker like any file: the same snapshot, its kept warnings,
/// and an unknown envelope version refused.
#[test]
fn a_snapshot_kept_by_an_older_dashboard_is_read_in_the_worker() {
    let file = include_str!("../../../static/demo-snapshot.json");
    let demo = lbplan_core::import::read_snapshot("demo", file)
        .unwrap()
        .snapshot;
    let envelope = |version: u32| {
        format!(
            r#"{{"format_version":{version},"source":"demo.json","warnings":["w.json: $.x: kept"],"snapshot":{file}}}"#
        )
    };
    let (snapshot, warnings) = import_job::read_kept(envelope(1).as_bytes()).unwrap();
    assert_eq!(snapshot, demo);
    assert_eq!(warnings, vec!["w.json: $.x: kept".to_string()]);
    let e = import_job::read_kept(envelope(9).as_bytes()).unwrap_err();
    assert!(e.contains("format_version 9"), "{e}");
}

/// A plan worker started after the last one died is given the shown snapshot's files again
/// (`restore`): it answers `imported` without sending the parts back, then holds the snapshot and
/// plans on it as the first worker did.
#[test]
fn a_restored_import_holds_the_snapshot_without_sending_parts() {
    let file = include_str!("../../../static/demo-snapshot.json");
    let import = |restore: bool| {
        serde_json::to_string(&Request::Import(Box::new(protocol::ImportJob {
            format_version: WORKER_PROTOCOL_VERSION,
            id: 1,
            snapshot_id: 5,
            files: vec![("demo-snapshot.json".to_string(), false)],
            chunk_bytes: 0,
            kept: false,
            restore,
            live: false,
        })))
        .unwrap()
    };
    let plan = serde_json::to_string(&Request::Plan(Box::new(PlanJob::new(
        2,
        5,
        None,
        &PlanRequest::leader_cycle(),
    ))))
    .unwrap();
    let mut planned = Vec::new();
    for restore in [false, true] {
        let mut worker = WorkerState::default();
        let mut out = Vec::new();
        worker.handle_with_files(
            &import(restore),
            vec![file.as_bytes().to_vec()],
            &mut |r| out.push(r),
            &mut || 0.0,
        );
        let parts = out
            .iter()
            .filter(|r| matches!(r, Response::Part { .. }))
            .count();
        assert!(
            matches!(
                out.first(),
                Some(Response::Imported {
                    id: 1,
                    snapshot_id: 5,
                    result: Ok(_)
                })
            ),
            "{out:?}"
        );
        assert_eq!(parts > 0, !restore, "restore {restore}: {parts} parts");
        let mut answer = Vec::new();
        worker.handle(&plan, &mut |r| answer.push(r), &mut || 0.0);
        planned.push(answer);
    }
    assert!(
        matches!(
            &planned[0][..],
            [Response::Planned {
                id: 2,
                result: Ok(_),
                ..
            }]
        ),
        "{:?}",
        planned[0]
    );
    assert_eq!(planned[0], planned[1]);
}

/// The leader's log travels after the series' files (gzip is read by the same core reader, tested
/// there): the move it names
/// (in 4.0.13's line format, `ModularLoadManagerImpl.java:691`) is confirmed.
#[test]
fn a_history_job_merges_the_leader_log() {
    let out = history_answers(6, stored_series(6));
    let Some(Response::Explained {
        result: Ok(view), ..
    }) = out.last()
    else {
        panic!("{:?}", out.last());
    };
    let c = view
        .report
        .changes
        .iter()
        .find(|c| c.cause.name() == "leader_shedding")
        .expect("a move by the leader");
    let lbplan_core::history::Change::Moved { bundle, from, to } = &c.change else {
        panic!("{c:?}");
    };
    // Logged a millisecond before the snapshot that shows it, in UTC.
    let t = c.at_ms - 1;
    let secs = t.rem_euclid(86_400_000) / 1000;
    let day = t.div_euclid(86_400_000);
    let line = format!(
        "{}T{:02}:{:02}:{:02},{:03}+0000 [pulsar-load-manager-5-1] INFO  \
         org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl - [ThresholdShedder] \
         Unloading bundle: {bundle} from broker {from} to dest broker {to} {{}}\n",
        civil(day),
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        t.rem_euclid(1000)
    );
    let logs = vec![("broker.log".to_string(), line.into_bytes())];
    let out = history_answers_with_logs(7, stored_series(6), logs);
    let Some(Response::Explained {
        result: Ok(view), ..
    }) = out.last()
    else {
        panic!("{:?}", out.last());
    };
    let log = view.report.leader_log.as_ref().unwrap();
    assert_eq!(log.actions, 1);
    assert_eq!(log.confirmed.len(), 1, "{log:?}");
    assert_eq!(&log.confirmed[0].action.bundle, bundle);
}

/// `yyyy-MM-dd` of days since 1970-01-01 (Howard Hinnant's civil_from_days).
fn civil(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    format!("{:04}-{m:02}-{d:02}", yoe + era * 400 + i64::from(m <= 2))
}

/// Two brokers' usage at two one-minute steps as `/api/v1/query_range` answers them (percent of
/// the limit, `instance` = the brokerId), and one bundle's rate exposed by the first broker, then
/// by the second: the bundle moved.
fn two_step_range_answers() -> Vec<(String, Vec<u8>)> {
    use lbplan_core::history::prometheus::names::USAGE;
    let t0 = 1_750_000_000;
    let usage = |m: &str, i: &str| {
        format!(
            r#"{{"metric":{{"__name__":"{m}","instance":"{i}"}},"values":[[{t0},"30"],[{},"31"]]}}"#,
            t0 + 60
        )
    };
    let mut files: Vec<(String, Vec<u8>)> = USAGE
        .iter()
        .map(|m| {
            let body = format!(
                r#"{{"status":"success","data":{{"resultType":"matrix","result":[{},{}]}}}}"#,
                usage(m, "b1:8080"),
                usage(m, "b2:8080")
            );
            (format!("{m}.json"), body.into_bytes())
        })
        .collect();
    let bundle = |i: &str, t: i64| {
        format!(
            r#"{{"metric":{{"__name__":"pulsar_bundle_msg_rate_in","instance":"{i}","bundle":"t/n/0x00000000_0xffffffff"}},"values":[[{t},"100"]]}}"#
        )
    };
    files.push((
        "pulsar_bundle_msg_rate_in.json".into(),
        format!(
            r#"{{"status":"success","data":{{"resultType":"matrix","result":[{},{}]}}}}"#,
            bundle("b1:8080", t0),
            bundle("b2:8080", t0 + 60)
        )
        .into_bytes(),
    ));
    files
}

/// Prometheus range results in a history job: the worker builds the series as core does for
/// `lbplan history --prometheus` (the same report as core's upload reader gives), the timeline
/// covers both steps, a label → brokerId map is applied, and the leader's log follows.
#[test]
fn a_history_job_of_prometheus_range_results() {
    use lbplan_core::history::prometheus::BrokerMapping;
    use lbplan_core::history::prometheus::upload::explain_uploaded_ranges;
    let files = two_step_range_answers();
    let mut map = std::collections::BTreeMap::new();
    map.insert("b2:8080".to_string(), "broker-2.svc:8080".to_string());
    let log = "2025-06-15T15:06:50,000+0000 [pulsar-load-manager-5-1] INFO  \
               org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl - [ThresholdShedder] \
               Unloading bundle: t/n/0x00000000_0xffffffff from broker b1:8080 to dest broker broker-2.svc:8080\n";
    let (names, mut bytes): (Vec<String>, Vec<Vec<u8>>) = files.clone().into_iter().unzip();
    bytes.push(log.as_bytes().to_vec());
    let text = serde_json::to_string(&Request::History(Box::new(protocol::HistoryJob {
        format_version: WORKER_PROTOCOL_VERSION,
        id: 3,
        files: names,
        profile: None,
        settings: Vec::new(),
        seed: 0,
        cpu_cost_factors: Default::default(),
        leader_logs: vec!["leader.log".into()],
        prometheus: Some(protocol::PrometheusUpload {
            broker_label: None,
            broker_map: map.clone(),
            layout: None,
        }),
    })))
    .unwrap();
    let mut out = Vec::new();
    WorkerState::default().handle_with_files(&text, bytes, &mut |r| out.push(r), &mut || 0.0);
    let Some(Response::Explained { id: 3, result }) = out.pop() else {
        panic!("{out:?}");
    };
    let view = result.unwrap();
    let r = &view.report;
    assert_eq!(r.basis.source, "prometheus");
    assert_eq!(r.times_ms, vec![1_750_000_000_000, 1_750_000_060_000]);
    assert_eq!(view.timeline.times_ms, r.times_ms);
    let mapping = BrokerMapping::new(None, map, None);
    let core = explain_uploaded_ranges(&files, None, mapping, &Default::default()).unwrap();
    assert_eq!(r.changes, core.changes);
    assert_eq!(r.changes.len(), 1);
    assert!(format!("{:?}", r.changes[0].change).contains("broker-2.svc:8080"));
    let log = r.leader_log.as_ref().unwrap();
    assert_eq!(log.actions, 1);
    assert_eq!(log.files[0].file, "leader.log");
    // A job that names a layout must bring its bytes.
    let text = text.replace(r#""layout":null"#, r#""layout":"layout.json""#);
    let mut out = Vec::new();
    WorkerState::default().handle_with_files(
        &text,
        files.into_iter().map(|f| f.1).collect(),
        &mut |r| out.push(r),
        &mut || 0.0,
    );
    assert!(
        matches!(out.last(), Some(Response::Explained { result: Err(e), .. }) if e.contains("file(s) for")),
        "{out:?}"
    );
}

/// The upgrade preview of the demo in a job worker, its snapshot the file the plan worker writes:
/// progress for both plans and every simulated cycle, then the same preview as core's
/// `upgrade_preview` called on the demo directly (what `lbplan upgrade --format json` prints);
/// without the file it fails naming what is missing.
#[test]
fn an_upgrade_request_answers_core_s_preview_of_the_sent_snapshot() {
    use lbplan_core::config::Profile;
    use lbplan_core::upgrade::upgrade_preview;

    let file = include_str!("../../../static/demo-snapshot.json");
    let mut plan_worker = WorkerState::default();
    let import = serde_json::to_string(&Request::Import(Box::new(protocol::ImportJob {
        format_version: WORKER_PROTOCOL_VERSION,
        id: 1,
        snapshot_id: 5,
        files: vec![("demo-snapshot.json".to_string(), false)],
        chunk_bytes: 0,
        kept: false,
        restore: false,
        live: false,
    })))
    .unwrap();
    plan_worker.handle_with_files(
        &import,
        vec![file.as_bytes().to_vec()],
        &mut |_| {},
        &mut || 0.0,
    );
    let ask = serde_json::to_string(&Request::SnapshotFile(Box::new(
        protocol::SnapshotFileJob {
            format_version: WORKER_PROTOCOL_VERSION,
            id: 2,
            snapshot_id: 5,
        },
    )))
    .unwrap();
    let mut out = Vec::new();
    plan_worker.handle(&ask, &mut |r| out.push(r), &mut || 0.0);
    let bytes = match out.pop() {
        Some(Response::SnapshotFile { bytes, .. }) => bytes,
        other => panic!("{other:?}"),
    };

    let to = Profile::parse("5.0.0").unwrap();
    let text = serde_json::to_string(&Request::Upgrade(Box::new(protocol::UpgradeJob {
        format_version: WORKER_PROTOCOL_VERSION,
        id: 3,
        profile: None,
        to,
        cycles: 4,
    })))
    .unwrap();
    // The page's JSON names the releases as Pulsar does.
    assert!(text.contains(r#""to":"5.0.0""#), "{text}");
    let run = |files: Vec<Vec<u8>>| {
        let mut out = Vec::new();
        // A clock far apart between readings: no progress message is throttled away.
        let mut t = 0.0;
        WorkerState::default().handle_with_files(&text, files, &mut |r| out.push(r), &mut || {
            t += 1_000.0;
            t
        });
        out
    };
    let mut out = run(vec![bytes]);
    let answer = out.pop().unwrap();
    let progress: Vec<(u32, u32, u32)> = out
        .iter()
        .map(|r| match r {
            Response::Progress { id, done, total } => (*id, *done, *total),
            other => panic!("{other:?}"),
        })
        .collect();
    // Two plans and 4 cycles under each release: 10 steps, from the snapshot read on.
    assert_eq!(progress, (0..=10).map(|d| (3, d, 10)).collect::<Vec<_>>());
    let demo = lbplan_core::import::read_snapshot("demo", file)
        .unwrap()
        .snapshot;
    let direct = upgrade_preview(&demo, None, to, 4).unwrap();
    assert_eq!(direct.from.release, "4.0.7");
    assert_eq!(direct.simulated.len(), 2);
    match &answer {
        Response::Upgraded {
            id: 3,
            result: Ok(p),
        } => assert_eq!(**p, direct),
        other => panic!("{other:?}"),
    }
    // The answer's JSON reads back to the same preview, with its format_version.
    let back: Response = serde_json::from_str(&answer.to_json()).unwrap();
    assert_eq!(back, answer);
    assert!(answer.to_json().contains(&format!(
        "\"format_version\":{}",
        lbplan_core::upgrade::UPGRADE_FORMAT_VERSION
    )));

    match run(Vec::new()).pop() {
        Some(Response::Upgraded {
            id: 3,
            result: Err(message),
        }) => assert!(message.contains("needs its snapshot"), "{message}"),
        other => panic!("{other:?}"),
    }
}

/// `pushSnapshot` of an embedding page: snapshots imported with `live` join the worker's live
/// history, answered after `imported` with the kept window's report and timeline: the demo, then
/// the demo a minute later with a bundle moved by hand, give one unexplained move, as the history
/// of the same two files explains it; an older snapshot is refused with the reason.
#[test]
fn live_imports_grow_the_workers_live_history() {
    let file = include_str!("../../../static/demo-snapshot.json");
    let first: serde_json::Value = serde_json::from_str(file).unwrap();
    let t0 = first["captured_at_ms"].as_i64().unwrap();
    let mut second = first.clone();
    second["captured_at_ms"] = serde_json::Value::from(t0 + 60_000);
    let brokers = second["brokers"].as_object_mut().unwrap();
    let ids: Vec<String> = brokers.keys().cloned().collect();
    let from = &mut brokers.get_mut(&ids[0]).unwrap()["local_broker_data"];
    let bundle = from["bundles"].as_array_mut().unwrap().remove(0);
    from["lastStats"]
        .as_object_mut()
        .unwrap()
        .remove(bundle.as_str().unwrap());
    brokers.get_mut(&ids[1]).unwrap()["local_broker_data"]["bundles"]
        .as_array_mut()
        .unwrap()
        .push(bundle.clone());
    let mut worker = WorkerState::default();
    let mut push = |id: u32, snapshot: &serde_json::Value| {
        let import = serde_json::to_string(&Request::Import(Box::new(protocol::ImportJob {
            format_version: WORKER_PROTOCOL_VERSION,
            id,
            snapshot_id: u64::from(id),
            files: vec![("snapshot".to_string(), false)],
            chunk_bytes: 0,
            kept: false,
            restore: false,
            live: true,
        })))
        .unwrap();
        let mut out = Vec::new();
        worker.handle_with_files(
            &import,
            vec![serde_json::to_vec(snapshot).unwrap()],
            &mut |r| out.push(r),
            &mut || 0.0,
        );
        match out.pop() {
            Some(Response::LiveHistory { id: i, result }) if i == id => result,
            other => panic!("{other:?}"),
        }
    };
    let view = push(1, &first).unwrap();
    assert_eq!(view.report.times_ms, vec![t0]);
    let view = push(2, &second).unwrap();
    assert_eq!(view.report.times_ms, vec![t0, t0 + 60_000]);
    assert_eq!(
        (
            view.report.summary.moves_seen,
            view.report.summary.unexplained
        ),
        (1, 1)
    );
    let moved = &view.report.changes[0].change;
    assert!(
        matches!(moved, lbplan_core::history::Change::Moved { bundle: b, from, to }
            if b == bundle.as_str().unwrap() && *from == ids[0] && *to == ids[1]),
        "{moved:?}"
    );
    assert_eq!(view.timeline.times_ms, vec![t0, t0 + 60_000]);
    let err = push(3, &first).unwrap_err();
    assert!(err.contains("before the latest"), "{err}");
}
