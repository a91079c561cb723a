//! History: series recorded from the simulator (the leader's view at each cycle) explained by the
//! replayed leader, an injected manual unload, a broker crash, the #16059 ping-pong, and the
//! stored form of a series.

use lbplan_core::history::store::{
    Files, HEADER_FILE, PARTS_DIR, SNAPSHOTS_DIR, SeriesLimits, StoredSeries, decode_all,
    encode_snapshot, header_bytes,
};
use lbplan_core::history::{Cause, Change, ExplainOptions, HistoryReport, Series, diff, explain};
use lbplan_core::model::Snapshot;
use lbplan_core::simulate::{
    RunConfig, RunOptions, Scenario, SimulationRun, builtin_scenario, builtin_snapshot,
    simulate_recording,
};

const SEED: u64 = 7;

fn record(
    snap: &Snapshot,
    scenario: &Scenario,
    config: &str,
    cycles: u32,
) -> (SimulationRun, Vec<Snapshot>) {
    simulate_recording(
        snap,
        scenario,
        &RunConfig::parse(config).unwrap(),
        RunOptions {
            cycles,
            seed: SEED,
            record_broker_usage: false,
            record_ownership: true,
        },
        &mut |_, _| true,
    )
    .unwrap()
}

fn explained(series: &[Snapshot]) -> HistoryReport {
    let named = series
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("#{i}"), s.clone()))
        .collect();
    explain(
        &Series::from_named(named).unwrap(),
        &ExplainOptions {
            seed: SEED,
            ..ExplainOptions::default()
        },
    )
    .unwrap()
}

const THRESHOLD_LLTMR: &str = "loadBalancerLoadSheddingStrategy=ThresholdShedder;\
                               loadBalancerLoadPlacementStrategy=LeastLongTermMessageRate";

/// The #16059 cluster under ThresholdShedder + LeastLongTermMessageRate: every move of the recorded
/// series is the replayed leader's, to the destination it chose, and the churn the history counts
/// is the simulator's own count of the same cycles (its thrashing window is 60 one-minute cycles,
/// the history's ping-pong window an hour).
#[test]
fn pr_16059_series_is_explained_by_the_leader_with_its_ping_pong() {
    let scenario = builtin_scenario("pr-16059").unwrap().unwrap();
    let snap = builtin_snapshot("pr-16059").unwrap();
    let cycles = 40;
    let (run, series) = record(&snap, &scenario, THRESHOLD_LLTMR, cycles);
    assert_eq!(series.len(), cycles as usize);
    let r = explained(&series);
    assert_eq!(
        r.shedding_strategy,
        "org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder"
    );
    let s = &r.summary;
    // The series shows the unloads of every cycle but the last (no snapshot after it).
    let seen_cycles = &run.cycles[..run.cycles.len() - 1];
    let sim_unloads: usize = seen_cycles.iter().map(|c| c.bundles_unloaded).sum();
    assert!(sim_unloads > 100, "the #16059 cluster sheds: {sim_unloads}");
    assert_eq!(s.moves_seen, sim_unloads);
    assert_eq!(s.moves_predicted, s.moves_seen);
    assert_eq!(s.destination_agreements, s.moves_seen);
    assert_eq!((s.unexplained, s.predicted_not_seen), (0, 0));
    assert_eq!(s.predicted_fraction(), 1.0);
    let sim_thrashing: usize = seen_cycles.iter().map(|c| c.thrashing).sum();
    assert_eq!(run.summary.thrashing_window_cycles, 60);
    assert!(
        sim_thrashing > 0,
        "the scenario ping-pongs within 40 cycles"
    );
    assert_eq!(s.ping_pong_within_hour, sim_thrashing);
    // ThresholdShedder never sheds a bundle again within its grace period (30 minutes).
    assert_eq!(s.grace_period_ms, 30 * 60_000);
    assert_eq!(s.ping_pong_within_grace, 0);
    // One-minute cycles: 39 intervals.
    assert_eq!(s.duration_ms, 39 * 60_000);
    // Bytes moved from cycle 1 on, when every report is the load model's (at cycle 0 the reports
    // are the snapshot's own, the simulator counts its model's traffic).
    let sim_bytes: f64 = seen_cycles[1..].iter().map(|c| c.bytes_moved).sum();
    let bytes: f64 = r
        .changes
        .iter()
        .filter(|c| c.step >= 1)
        .map(|c| c.throughput_bytes_per_sec * 60.0)
        .sum();
    assert!(sim_bytes > 0.0);
    assert!(
        (bytes - sim_bytes).abs() <= 1e-9 * sim_bytes,
        "{bytes} {sim_bytes}"
    );
}

/// The demo cluster with shedding off: nothing moves, so a bundle moved by hand between two
/// snapshots is the one unexplained change.
#[test]
fn a_manual_unload_is_listed_as_unexplained() {
    let snap = builtin_snapshot("demo").unwrap();
    let (_, mut series) = record(
        &snap,
        &Scenario::steady(),
        "loadBalancerSheddingEnabled=false",
        6,
    );
    let quiet = explained(&series);
    assert_eq!(quiet.changes, Vec::new());
    // From snapshot 3 on, the first bundle of the first broker is on the second broker.
    let ids: Vec<String> = series[0].brokers.keys().cloned().collect();
    let bundle = series[0].brokers[&ids[0]].local_broker_data.bundles[0].clone();
    for s in series.iter_mut().skip(3) {
        let from = &mut s.brokers[&ids[0]].local_broker_data;
        from.bundles.retain(|b| *b != bundle);
        let stats = from.last_stats.shift_remove(&bundle).unwrap();
        let to = &mut s.brokers[&ids[1]].local_broker_data;
        to.bundles.push(bundle.clone());
        to.last_stats.insert(bundle.clone(), stats);
    }
    let r = explained(&series);
    assert_eq!(r.changes.len(), 1);
    let c = &r.changes[0];
    assert_eq!(c.step, 2);
    assert_eq!(
        c.change,
        Change::Moved {
            bundle,
            from: ids[0].clone(),
            to: ids[1].clone()
        }
    );
    assert_eq!(c.cause.name(), "unexplained");
    assert_eq!(r.summary.unexplained, 1);
    assert_eq!((r.summary.moves_seen, r.summary.moves_predicted), (1, 0));
}

/// An operator turns shedding back on between snapshots 2 and 3: the report lists the key with
/// both values at that step, once (the later snapshots keep the new value).
#[test]
fn a_broker_conf_change_is_listed_at_its_step() {
    let snap = builtin_snapshot("demo").unwrap();
    let (_, mut series) = record(
        &snap,
        &Scenario::steady(),
        "loadBalancerSheddingEnabled=false",
        6,
    );
    assert_eq!(
        series[0]
            .broker_conf
            .get("loadBalancerSheddingEnabled")
            .map(String::as_str),
        Some("false")
    );
    for s in series.iter_mut().skip(3) {
        s.broker_conf
            .insert("loadBalancerSheddingEnabled".into(), "true".into());
    }
    let r = explained(&series);
    assert_eq!(r.config_changes.len(), 1, "{:?}", r.config_changes);
    let c = &r.config_changes[0];
    assert_eq!(
        (
            c.step,
            c.key.as_str(),
            c.before.as_deref(),
            c.after.as_deref()
        ),
        (
            2,
            "loadBalancerSheddingEnabled",
            Some("false"),
            Some("true")
        )
    );
    assert_eq!(Some(c.at_ms), series[3].captured_at_ms);
}

/// Series recorded from the simulator (moves each cycle, a crash with its re-assignments): the
/// diff from the brokers whose lists changed equals the comparison of whole snapshots.
#[test]
fn the_diff_from_changed_lists_equals_the_whole_comparison_on_recorded_series() {
    let pr = builtin_scenario("pr-16059").unwrap().unwrap();
    let crash = builtin_scenario("broker-crash").unwrap().unwrap();
    let mut moves = 0;
    for (snap, scenario, config, cycles) in [
        (
            builtin_snapshot("pr-16059").unwrap(),
            &pr,
            THRESHOLD_LLTMR,
            30,
        ),
        (builtin_snapshot("demo").unwrap(), &crash, "", 44),
    ] {
        let (_, series) = record(&snap, scenario, config, cycles);
        for (i, pair) in series.windows(2).enumerate() {
            let full = diff::diff_full(&pair[0], &pair[1]);
            assert_eq!(diff::diff(&pair[0], &pair[1]), full, "pair {i}");
            moves += full
                .iter()
                .filter(|c| matches!(c, Change::Moved { .. }))
                .count();
        }
    }
    assert!(moves > 10, "{moves} moves");
}

/// The built-in broker-crash scenario: the busiest broker crashes at cycle 40; every bundle it
/// owned at cycle 39 is attributed to its leave, and the shedding around it to the leader.
#[test]
fn a_broker_crash_attributes_its_bundles_to_the_leave() {
    let scenario = builtin_scenario("broker-crash").unwrap().unwrap();
    let snap = builtin_snapshot("demo").unwrap();
    let (run, series) = record(&snap, &scenario, "", 44);
    let crashed = run.cycles[40].events[0]
        .strip_suffix(" crashed")
        .unwrap()
        .to_string();
    let owned: Vec<String> = series[39].brokers[&crashed]
        .local_broker_data
        .bundles
        .clone();
    assert!(!owned.is_empty());
    let r = explained(&series);
    let at_crash: Vec<_> = r.changes.iter().filter(|c| c.step == 39).collect();
    assert!(at_crash.iter().any(|c| c.change
        == Change::BrokerLeft {
            broker: crashed.clone(),
            bundles: owned.len()
        }));
    for b in &owned {
        let c = at_crash
            .iter()
            .find(|c| matches!(&c.change, Change::Moved { bundle, .. } if bundle == b))
            .unwrap_or_else(|| panic!("{b} is re-assigned at the crash"));
        // Re-assigned after the leave, or shed by the leader's last cycle before it.
        match &c.cause {
            Cause::BrokerLeft { broker } => assert_eq!(*broker, crashed),
            Cause::LeaderShedding {
                destination_agrees, ..
            } => assert!(destination_agrees),
            other => panic!("{b}: {other:?}"),
        }
    }
    let shed_before = at_crash
        .iter()
        .filter(|c| matches!(&c.change, Change::Moved { from, .. } if *from == crashed))
        .filter(|c| matches!(c.cause, Cause::LeaderShedding { .. }))
        .count();
    assert_eq!(r.summary.moves_by_broker_left + shed_before, owned.len());
    assert!(r.summary.moves_by_broker_left > 0);
    assert_eq!(r.summary.predicted_not_seen, 0);
    assert_eq!(r.summary.broker_leaves, 1);
    assert_eq!(r.summary.unexplained, 0);
}

fn store(series: &[Snapshot]) -> Files {
    let mut files: Files = vec![(HEADER_FILE.to_string(), header_bytes())];
    for (seq, s) in series.iter().enumerate() {
        let known: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
        let e = encode_snapshot(s, seq as u64, &|id| {
            known.contains(&format!("{PARTS_DIR}/{id}.json.gz"))
        })
        .unwrap();
        files.push((format!("{SNAPSHOTS_DIR}/{}", e.manifest_name), e.manifest));
        for (name, bytes) in e.parts {
            files.push((format!("{PARTS_DIR}/{name}"), bytes));
        }
    }
    files
}

/// A stored series decodes to the snapshots it was made of; unchanged parts are stored once.
#[test]
fn a_stored_series_round_trips_and_stores_unchanged_parts_once() {
    let snap = builtin_snapshot("demo").unwrap();
    let (_, series) = record(
        &snap,
        &Scenario::steady(),
        "loadBalancerSheddingEnabled=false",
        3,
    );
    let files = store(&series);
    let back = decode_all(&files).unwrap();
    assert_eq!(back.snapshots, series);
    // Namespaces never change: each layout is stored once for the three snapshots (reports and
    // bundle data change with every cycle's samples).
    let parts = files
        .iter()
        .filter(|(p, _)| p.starts_with("parts/"))
        .count();
    let namespaces = series[0].namespaces.len();
    let mut runs: Vec<&str> = series[0]
        .bundle_data
        .keys()
        .map(|b| b.rsplit_once('/').unwrap().0)
        .collect();
    runs.dedup();
    let changing = series[0].brokers.len() + runs.len();
    assert!(namespaces > 10);
    assert!(parts <= 3 * changing + namespaces, "{parts} parts");
    // Twice the same snapshot (same time) adds no part.
    let twice = store(&[series[0].clone(), series[0].clone()]);
    let once = store(&series[..1]);
    assert_eq!(
        twice
            .iter()
            .filter(|(p, _)| p.starts_with("parts/"))
            .count(),
        once.iter().filter(|(p, _)| p.starts_with("parts/")).count()
    );
}

/// The demo cluster stored as a one-snapshot series.
fn one_stored() -> Files {
    let mut snap = builtin_snapshot("demo").unwrap();
    snap.captured_at_ms = Some(1_000);
    store(&[snap])
}

#[test]
fn a_tampered_part_is_an_error_naming_the_file() {
    let mut files = one_stored();
    let (name, bytes) = files
        .iter_mut()
        .find(|(p, _)| p.starts_with("parts/"))
        .unwrap();
    let name = name.clone();
    let mut json = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut json).unwrap();
    json.push(b' ');
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, &json).unwrap();
    *bytes = enc.finish().unwrap();
    let err = decode_all(&files).unwrap_err().to_string();
    assert!(err.starts_with(&name), "{err}");
    assert!(err.contains("does not match"), "{err}");
}

/// A stored broker part is read by the snapshot format's one reader (the importer's checks): a
/// negative rate, which serde would take as any f64, is refused naming the part and the JSON path.
#[test]
fn a_broker_part_is_checked_by_the_snapshot_reader() {
    let mut files = one_stored();
    let gunzip = |gz: &[u8]| {
        let mut json = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(gz), &mut json).unwrap();
        String::from_utf8(json).unwrap()
    };
    let at = files
        .iter()
        .position(|(p, gz)| {
            p.starts_with("parts/") && gunzip(gz).starts_with("{\"local_broker_data\"")
        })
        .unwrap();
    let old_id = files[at]
        .0
        .trim_start_matches("parts/")
        .trim_end_matches(".json.gz")
        .to_string();
    let json = gunzip(&files[at].1);
    let key = "\"msgRateIn\":";
    let start = json.find(key).unwrap() + key.len();
    let end = start + json[start..].find([',', '}']).unwrap();
    let json = format!("{}-1.5{}", &json[..start], &json[end..]);
    // The part is renamed after its new content, and the manifest follows.
    let new_id = format!(
        "{:016x}-{}",
        lbplan_core::model::fingerprint::fnv1a64(json.as_bytes()),
        json.len()
    );
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, json.as_bytes()).unwrap();
    files[at] = (format!("parts/{new_id}.json.gz"), enc.finish().unwrap());
    for (p, bytes) in files.iter_mut() {
        if p.starts_with("snapshots/") {
            *bytes = String::from_utf8(bytes.clone())
                .unwrap()
                .replace(&old_id, &new_id)
                .into_bytes();
        }
    }
    let err = decode_all(&files).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "parts/{new_id}.json.gz: $.local_broker_data.msgRateIn: expected a non-negative \
             number, found -1.5"
        )
    );
}

#[test]
fn a_snapshot_without_capture_time_cannot_join_a_series() {
    let snap = builtin_snapshot("demo").unwrap();
    let err = Series::from_named(vec![(
        "a.json".to_string(),
        Snapshot {
            captured_at_ms: None,
            ..snap
        },
    )])
    .unwrap_err();
    assert!(err.to_string().starts_with("a.json: $.captured_at_ms"));
}

/// The demo cluster stored as a two-snapshot series.
fn two_stored() -> Files {
    let snap = builtin_snapshot("demo").unwrap();
    let mut a = snap.clone();
    a.captured_at_ms = Some(1_000);
    let mut b = snap;
    b.captured_at_ms = Some(61_000);
    store(&[a, b])
}

fn read_within(files: &Files, limits: SeriesLimits) -> Result<usize, String> {
    let mut s = StoredSeries::open_with(files, limits).map_err(|e| e.to_string())?;
    let mut n = 0;
    while let Some(snap) = s.next_snapshot() {
        snap.map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(n)
}

/// A part that gunzips to far more than a part may hold (a gzip bomb: 64 MiB of zeros in about
/// 64 KiB) is refused by name after reading no more than the cap.
#[test]
fn a_gzip_bomb_part_is_refused_naming_it() {
    let mut files = two_stored();
    let (name, bytes) = files
        .iter_mut()
        .find(|(p, _)| p.starts_with("parts/"))
        .unwrap();
    let name = name.clone();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        std::io::Write::write_all(&mut enc, &zeros).unwrap();
    }
    *bytes = enc.finish().unwrap();
    assert!(bytes.len() < 1 << 20);
    let limits = SeriesLimits {
        max_part_bytes: 8 << 20,
        ..SeriesLimits::default()
    };
    let err = read_within(&files, limits).unwrap_err();
    assert!(err.starts_with(&name), "{err}");
    assert!(
        err.contains("more than 8388608 bytes (cap on one part)"),
        "{err}"
    );
}

/// One budget for the whole read: the header, every manifest read and the demo's distinct parts
/// gunzipped add up to some total `t`; a budget one byte short of it refuses the series, naming
/// the file that crossed it; `t` reads it.
#[test]
fn the_total_gunzipped_size_is_one_budget() {
    let files = two_stored();
    let total: u64 = files
        .iter()
        .map(|(p, bytes)| {
            if !p.starts_with("parts/") {
                return bytes.len() as u64;
            }
            let mut json = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut json)
                .unwrap();
            json.len() as u64
        })
        .sum();
    let at = |max_total_bytes| SeriesLimits {
        max_total_bytes,
        ..SeriesLimits::default()
    };
    assert_eq!(read_within(&files, at(total)), Ok(2));
    let err = read_within(&files, at(total - 1)).unwrap_err();
    assert!(
        err.starts_with("parts/") || err.starts_with("snapshots/"),
        "{err}"
    );
    assert!(err.contains("cap on the total size read"), "{err}");
}

/// Millions of tiny files are refused before any is read, by count; a huge manifest by its size,
/// naming it.
#[test]
fn too_many_files_and_a_huge_manifest_are_refused() {
    let mut files = two_stored();
    let limits = SeriesLimits {
        max_files: files.len() + 10,
        ..SeriesLimits::default()
    };
    assert_eq!(read_within(&files, limits), Ok(2));
    for i in 0..11 {
        files.push((format!("parts/tiny-{i}.json.gz"), vec![0]));
    }
    let err = read_within(&files, limits).unwrap_err();
    assert!(err.contains("more than"), "{err}");
    assert!(err.contains("cap on the number of files"), "{err}");

    let mut files = two_stored();
    let (name, manifest) = files
        .iter_mut()
        .find(|(p, _)| p.starts_with("snapshots/"))
        .unwrap();
    let name = name.clone();
    manifest.extend(std::iter::repeat_n(b' ', 2 << 20));
    let limits = SeriesLimits {
        max_manifest_bytes: 1 << 20,
        ..SeriesLimits::default()
    };
    let err = read_within(&files, limits).unwrap_err();
    assert!(err.starts_with(&name), "{err}");
    assert!(
        err.contains("more than a manifest may have (1048576 bytes)"),
        "{err}"
    );
}

fn read_all(files: &Files, limits: SeriesLimits) -> Vec<Snapshot> {
    let mut s = StoredSeries::open_with(files, limits).unwrap();
    let mut out = Vec::new();
    while let Some(snap) = s.next_snapshot() {
        out.push(snap.unwrap());
    }
    out
}

/// Reports that change and come back (a bundle moved away and back, a broker's load up and down)
/// decode to the recorded snapshots whether decoded parts are kept (the default budget) or only
/// the latest snapshot's are (no budget).
#[test]
fn kept_parts_decode_the_same_snapshots_as_parts_decoded_again() {
    let mut a = builtin_snapshot("demo").unwrap();
    a.captured_at_ms = Some(0);
    let mut b = a.clone();
    b.captured_at_ms = Some(60_000);
    let (from, to) = (
        b.brokers.keys().next().unwrap().clone(),
        b.brokers.keys().nth(1).unwrap().clone(),
    );
    let moved = b.brokers[&from].local_broker_data.bundles[0].clone();
    b.brokers[&from].local_broker_data.bundles.remove(0);
    let stats = b.brokers[&from]
        .local_broker_data
        .last_stats
        .shift_remove(&moved);
    b.brokers[&to].local_broker_data.bundles.push(moved.clone());
    if let Some(st) = stats {
        b.brokers[&to]
            .local_broker_data
            .last_stats
            .insert(moved, st);
    }
    b.brokers[&to].local_broker_data.cpu.usage += 10.0;
    let mut c = a.clone();
    c.captured_at_ms = Some(120_000);
    let mut d = b.clone();
    d.captured_at_ms = Some(180_000);
    let series = vec![a, b, c, d];
    let files = store(&series);
    assert_eq!(read_all(&files, SeriesLimits::default()), series);
    let none = SeriesLimits {
        max_cached_bytes: 0,
        ..SeriesLimits::default()
    };
    assert_eq!(read_all(&files, none), series);
}

/// Reads every snapshot, giving each back (`recycle`) once the next one is read, as the explainer
/// does; the returned copies are what the reader handed out.
fn read_recycling(files: &Files, limits: SeriesLimits) -> Vec<Snapshot> {
    let mut s = StoredSeries::open_with(files, limits).unwrap();
    let mut out = Vec::new();
    let mut held: Option<Snapshot> = None;
    while let Some(snap) = s.next_snapshot() {
        let snap = snap.unwrap();
        out.push(snap.clone());
        if let Some(done) = held.replace(snap) {
            s.recycle(done);
        }
    }
    out
}

/// Snapshots assembled with the given-back snapshot's unchanged values are the recorded ones:
/// reports moved away and back, bundle data and layouts changed in between, a recorded
/// simulation whose loads change every cycle; one given back with other brokers is not reused.
#[test]
fn recycled_snapshots_decode_the_same_snapshots() {
    let mut a = builtin_snapshot("demo").unwrap();
    a.captured_at_ms = Some(0);
    let mut b = a.clone();
    b.captured_at_ms = Some(60_000);
    let (from, to) = (
        b.brokers.keys().next().unwrap().clone(),
        b.brokers.keys().nth(1).unwrap().clone(),
    );
    let moved = b.brokers[&from].local_broker_data.bundles.remove(0);
    b.brokers[&to].local_broker_data.bundles.push(moved);
    let mut c = a.clone();
    c.captured_at_ms = Some(120_000);
    c.bundle_data[0].short_term_data.msg_rate_in += 1.5;
    let (ns, layout) = c.namespaces.first_mut().unwrap();
    let ns = ns.clone();
    layout.anti_affinity_group = Some("g".into());
    let mut d = b.clone();
    d.captured_at_ms = Some(180_000);
    let mut e = a.clone();
    e.captured_at_ms = Some(240_000);
    let series = vec![a, b, c, d, e];
    let files = store(&series);
    let none = SeriesLimits {
        max_cached_bytes: 0,
        ..SeriesLimits::default()
    };
    for limits in [SeriesLimits::default(), none] {
        assert_eq!(read_recycling(&files, limits), series);
    }
    // Given back with a broker removed: dropped, so nothing wrong is reused.
    let mut r = StoredSeries::open(&files).unwrap();
    let mut first = r.next_snapshot().unwrap().unwrap();
    let second = r.next_snapshot().unwrap().unwrap();
    first.namespaces.shift_remove(&ns);
    first.brokers.shift_remove(&from);
    r.recycle(first);
    assert_eq!(second, series[1]);
    assert_eq!(r.next_snapshot().unwrap().unwrap(), series[2]);

    let scenario = builtin_scenario("pr-16059").unwrap().unwrap();
    let (_, recorded) = record(
        &builtin_snapshot("pr-16059").unwrap(),
        &scenario,
        THRESHOLD_LLTMR,
        12,
    );
    let files = store(&recorded);
    assert_eq!(read_recycling(&files, SeriesLimits::default()), recorded);
}

/// The store names, for each snapshot, exactly the brokers whose report differs from the one
/// before (none for the first, none known when the broker list changes); and a stored series is
/// explained the same with that hint (the leader's view compares only those reports) as with
/// every report compared: recorded #16059 shedding and a broker crash (the list changes).
#[test]
fn the_stores_changed_brokers_explain_the_same_report() {
    let pr = builtin_scenario("pr-16059").unwrap().unwrap();
    let crash = builtin_scenario("broker-crash").unwrap().unwrap();
    let mut hinted = 0;
    for (snap, scenario, config, cycles) in [
        (
            builtin_snapshot("pr-16059").unwrap(),
            &pr,
            THRESHOLD_LLTMR,
            30,
        ),
        (builtin_snapshot("demo").unwrap(), &crash, "", 44),
    ] {
        let (_, series) = record(&snap, scenario, config, cycles);
        let files = store(&series);
        let mut stored = StoredSeries::open(&files).unwrap();
        let mut i = 0;
        while let Some(next) = stored.next_snapshot_with_changes() {
            let (s, changed) = next.unwrap();
            assert_eq!(s, series[i]);
            let expected = i
                .checked_sub(1)
                .map(|p| &series[p])
                .filter(|before| before.brokers.keys().eq(s.brokers.keys()))
                .map(|before| {
                    s.brokers
                        .iter()
                        // The JSON a part id hashes (`==` ignores `lastStats` order).
                        .filter(|(id, b)| {
                            serde_json::to_vec(&before.brokers[id.as_str()]).unwrap()
                                != serde_json::to_vec(*b).unwrap()
                        })
                        .map(|(id, _)| id.clone())
                        .collect::<Vec<_>>()
                });
            assert_eq!(changed, expected, "snapshot {i}");
            hinted += usize::from(changed.is_some());
            i += 1;
        }
        assert_eq!(i, series.len());
        let opts = ExplainOptions {
            seed: SEED,
            ..ExplainOptions::default()
        };
        assert_eq!(
            lbplan_core::history::explain_files(&files, &opts).unwrap(),
            explained(&series)
        );
    }
    assert!(hinted > 60, "{hinted} hinted snapshots");
}
