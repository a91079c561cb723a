//! Lines in each release's shape (built from the format strings cited in `messages`), read and
//! merged with a hand-made report.

use super::*;
use crate::history::cause::Cause;
use crate::history::diff::Change;
use crate::history::report::{ExplainedChange, HistoryReport, PredictedNotSeen};

const MODULAR: &str = "org.apache.pulsar.broker.loadbalance.impl.ModularLoadManagerImpl";
const B: &str = "public/default/0x40000000_0x80000000";

fn read(text: &str) -> LeaderLog {
    let mut log = LeaderLog::default();
    read_bytes(&mut log, "broker.log", text.as_bytes()).unwrap();
    log
}

#[test]
fn modular_unload_in_each_release() {
    // 3.0.17 / 3.3.9 / 4.1.3 pattern (no %X): ThresholdShedder's words, then the unload.
    let v3 = format!(
        "2026-08-20T08:57:36,900+0000 [pulsar-load-manager-5-1] INFO  \
         org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder - Attempting to shed load on b1:8080, \
         which has max resource usage above avgUsage and threshold 91.5% > 60.2% + 10.0% -- Offloading at \
         least 12.5 MByte/s of traffic, left throughput 80.1 MByte/s (cpu: 91.50%, memory: 40.00%, \
         directMemory: 2.00%, bandwidthIn: 30.00%, bandwidthOut: 31.00%)\n\
         2026-08-20T08:57:37,123+0000 [pulsar-load-manager-5-1] INFO  {MODULAR} - [ThresholdShedder] \
         Unloading bundle: {B} from broker b1:8080 to dest broker b2:8080\n"
    );
    // 4.0.13 / 4.2.4: ` {}` after each message.
    let v4 = format!(
        "2026-08-20T08:57:37,123+0000 [pulsar-load-manager-5-1] INFO  {MODULAR} - [OverloadShedder] \
         Unloading bundle: {B} from broker b1:8080 to dest broker b2:8080 {{}}\n"
    );
    // master: slog attributes through %X (keys sorted).
    let master = format!(
        "2026-08-20T08:57:37,123+0000 [pulsar-load-manager-5-1] INFO  {MODULAR} - Unloading bundle from \
         source broker to dest broker {{bundle={B}, class=AvgShedder, destBroker=b2:8080, sourceBroker=b1:8080}}\n"
    );
    let json = format!(
        "{{\"Timestamp\":\"2026-08-20T08:57:37.123Z\",\"SeverityText\":\"INFO\",\"Body\":\"Unloading bundle \
         from source broker to dest broker\",\"Attributes\":{{\"thread.name\":\"pulsar-load-manager-5-1\",\
         \"code.namespace\":\"{MODULAR}\",\"bundle\":\"{B}\",\"class\":\"UniformLoadShedder\",\
         \"destBroker\":\"b2:8080\",\"sourceBroker\":\"b1:8080\"}}}}\n"
    );
    for (text, strategy) in [
        (v3, "ThresholdShedder"),
        (v4, "OverloadShedder"),
        (master, "AvgShedder"),
        (json, "UniformLoadShedder"),
    ] {
        let log = read(&text);
        assert_eq!(log.actions.len(), 1, "{text}");
        let a = &log.actions[0];
        assert_eq!(a.kind, ActionKind::Unload);
        assert_eq!(a.at_ms, 1_787_216_257_123);
        assert_eq!(a.bundle, B);
        assert_eq!(a.from, "b1:8080");
        assert_eq!(a.to.as_deref(), Some("b2:8080"));
        assert_eq!(a.strategy, strategy);
        assert_eq!(a.line, text.lines().count() as u64);
        assert!(
            log.files[0].skipped.is_empty(),
            "{:?}",
            log.files[0].skipped
        );
    }
    let log = read(&format!(
        "2026-08-20T08:57:36,900+0000 [t] INFO  org.apache.pulsar.broker.loadbalance.impl.ThresholdShedder \
         - Attempting to shed load on b1:8080, which has max resource usage above avgUsage\n\
         2026-08-20T08:57:37,123+0000 [t] INFO  {MODULAR} - [ThresholdShedder] Unloading bundle: {B} from \
         broker b1:8080 to dest broker b2:8080\n"
    ));
    assert!(
        log.actions[0]
            .words
            .as_deref()
            .unwrap()
            .starts_with("Attempting to shed load on b1:8080")
    );
}

#[test]
fn splits_extensible_unloads_and_failures() {
    let text = format!(
        "2026-08-20T08:00:00,000+0000 [main] INFO  org.apache.pulsar.broker.PulsarService - This broker \
         b1:8080 was elected leader\n\
         2026-08-20T08:00:01,000+0000 [pulsar-modular-load-manager-7-1] INFO  \
         org.apache.pulsar.broker.loadbalance.impl.BundleSplitterTask - The bundle {B} is considered to be \
         unload. Topics: 1200/1000, Sessions: (0+0)/1000, Message Rate: 10.0/30000 (msgs/s), Message \
         Throughput: 1.0/100 (MB/s)\n\
         2026-08-20T08:00:01,100+0000 [pulsar-modular-load-manager-7-1] INFO  {MODULAR} - Load-manager \
         splitting bundle {B} and unloading true\n\
         2026-08-20T08:00:02,000+0000 [pulsar-load-manager-5-1] INFO  \
         org.apache.pulsar.broker.loadbalance.extensions.scheduler.UnloadScheduler - [TransferShedder] \
         Unloading bundle: Unload[sourceBroker=b1:8080, serviceUnit=public/default/0x00000000_0x40000000, \
         destBroker=Optional.empty, force=false]\n\
         2026-08-20T08:00:03,000+0000 [pulsar-load-manager-5-1] INFO  {MODULAR} - [ThresholdShedder] \
         Unloading bundle: public/default/0x80000000_0xc0000000 from broker b1:8080 to dest broker b3:8080\n\
         2026-08-20T08:00:03,050+0000 [pulsar-load-manager-5-1] WARN  {MODULAR} - Error when trying to \
         perform load shedding on public/default/0x80000000_0xc0000000 for broker b3:8080\n\
         org.apache.pulsar.client.admin.PulsarAdminException: timed out\n\
         \tat org.apache.pulsar.client.admin.internal.BaseResource.getApiException(BaseResource.java:1)\n\
         2026-08-20T08:00:04,000+0000 [pulsar-2-1] INFO  \
         org.apache.pulsar.broker.loadbalance.extensions.manager.SplitManager - Published the bundle split \
         event for bundle:public/default/0xc0000000_0xffffffff. Waiting the split event to complete. \
         Timeout: 10000 MILLISECONDS\n\
         2026-08-20T08:00:05,000+0000 [pulsar-load-manager-5-1] INFO  {MODULAR} - [ThresholdShedder] \
         Unloading bundle: not-a-bundle from broker b1:8080 to dest broker b3:8080\n\
         2026-08-20T08:00:06 garbage\n"
    );
    let log = read(&text);
    let f = &log.files[0];
    assert_eq!(f.leader.as_deref(), Some("b1:8080"));
    assert_eq!(f.lines, 11);
    assert_eq!(f.skipped.get("no_timestamp"), Some(&2));
    assert_eq!(f.skipped.get("garbled_action"), Some(&1));
    assert_eq!(f.skipped.get("garbled"), Some(&1));
    let kinds: Vec<(ActionKind, &str, bool)> = log
        .actions
        .iter()
        .map(|a| (a.kind, a.bundle.as_str(), a.failed))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (ActionKind::Split, B, false),
            (
                ActionKind::Unload,
                "public/default/0x00000000_0x40000000",
                false
            ),
            (
                ActionKind::Unload,
                "public/default/0x80000000_0xc0000000",
                true
            ),
            (
                ActionKind::Split,
                "public/default/0xc0000000_0xffffffff",
                false
            ),
        ]
    );
    assert_eq!(log.actions[0].unloading, Some(true));
    assert!(
        log.actions[0]
            .words
            .as_deref()
            .unwrap()
            .contains("Topics: 1200/1000")
    );
    assert_eq!(log.actions[1].to, None);
    assert_eq!(log.actions[1].strategy, "TransferShedder");
    // master's extensible line: the record in the `bundle` attribute.
    let log = read(
        "2026-08-20T08:00:02,000+0000 [pulsar-load-manager-5-1] INFO  \
         org.apache.pulsar.broker.loadbalance.extensions.scheduler.UnloadScheduler - Unloading bundle \
         {bundle=Unload[sourceBroker=b1:8080, serviceUnit=public/default/0x00000000_0x40000000, \
         destBroker=Optional[b2:8080], force=false], strategy=TransferShedder}\n",
    );
    assert_eq!(log.actions[0].to.as_deref(), Some("b2:8080"));
}

#[test]
fn hostile_input_is_bounded_and_counted() {
    let mut log = LeaderLog::default();
    let mut r = LogReader::new(&mut log, "huge.log");
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..4 {
        r.push(&chunk).unwrap();
    }
    r.push(b"\n\xff\xfe\n").unwrap();
    r.finish().unwrap();
    let f = &log.files[0];
    assert_eq!(f.skipped.get("too_long"), Some(&1));
    assert_eq!(f.skipped.get("not_utf8"), Some(&1));
    // gzip, as Log4j rolls files.
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(
        format!(
            "2026-08-20T08:57:37,123+0000 [t] INFO  {MODULAR} - [ThresholdShedder] Unloading bundle: {B} \
             from broker b1:8080 to dest broker b2:8080\n"
        )
        .as_bytes(),
    )
    .unwrap();
    let mut log = LeaderLog::default();
    read_bytes(&mut log, "broker.log.1.gz", &gz.finish().unwrap()).unwrap();
    assert_eq!(log.actions.len(), 1);
    let mut log = LeaderLog::default();
    assert!(matches!(
        read_bytes(&mut log, "bad.gz", &[0x1f, 0x8b, 8, 0, 1, 2]),
        Err(LeaderLogError::Gzip { .. })
    ));
}

fn change(step: usize, from_ms: i64, at_ms: i64, change: Change, cause: Cause) -> ExplainedChange {
    ExplainedChange {
        step,
        from_ms,
        at_ms,
        change,
        cause,
        throughput_bytes_per_sec: 0.0,
    }
}

fn moved(bundle: &str, from: &str, to: &str) -> Change {
    Change::Moved {
        bundle: bundle.into(),
        from: from.into(),
        to: to.into(),
    }
}

fn shed(to: &str) -> Cause {
    Cause::LeaderShedding {
        predicted_to: to.into(),
        destination_agrees: true,
        reason: String::new(),
    }
}

fn unload(at_ms: i64, bundle: &str, from: &str, to: &str) -> LoggedAction {
    LoggedAction {
        kind: ActionKind::Unload,
        at_ms,
        bundle: bundle.into(),
        from: from.into(),
        to: Some(to.into()),
        strategy: "ThresholdShedder".into(),
        words: None,
        unloading: None,
        failed: false,
        file: "l".into(),
        line: 1,
    }
}

fn report() -> HistoryReport {
    let t = |m: i64| m * 60_000;
    HistoryReport {
        times_ms: vec![0, t(1), t(2), t(3)],
        changes: vec![
            change(0, 0, t(1), moved("t/n/0x0_0x1", "a:1", "b:1"), shed("b:1")),
            change(
                1,
                t(1),
                t(2),
                moved("t/n/0x1_0x2", "a:1", "c:1"),
                Cause::Unexplained { why: String::new() },
            ),
            change(
                2,
                t(2),
                t(3),
                moved("t/n/0x2_0x3", "a:1", "b:1"),
                shed("b:1"),
            ),
        ],
        predicted_not_seen: vec![PredictedNotSeen {
            step: 1,
            at_ms: t(1),
            bundle: "t/n/0x9_0xa".into(),
            from: "a:1".into(),
            to: "b:1".into(),
            reason: String::new(),
        }],
        ..HistoryReport::default()
    }
}

fn log_of(actions: Vec<LoggedAction>, first_ms: i64, last_ms: i64) -> LeaderLog {
    LeaderLog {
        actions,
        files: vec![LogFileSummary {
            file: "l".into(),
            first_ms: Some(first_ms),
            last_ms: Some(last_ms),
            ..LogFileSummary::default()
        }],
    }
}

#[test]
fn merge_sorts_each_action_and_change() {
    let r = report();
    let log = log_of(
        vec![
            unload(30_000, "t/n/0x0_0x1", "a:1", "b:1"),
            unload(90_000, "t/n/0x1_0x2", "a:1", "c:1"),
            unload(100_000, "t/n/0x9_0xa", "a:1", "b:1"),
            unload(110_000, "t/n/0x7_0x8", "a:1", "b:1"),
        ],
        0,
        180_000,
    );
    let s = merge(&r, &log, 10_000);
    assert_eq!(s.confirmed.len(), 1);
    assert_eq!(s.confirmed[0].change, 0);
    assert_eq!(s.confirmed[0].destination_as_logged, Some(true));
    assert_eq!(s.not_predicted.len(), 1);
    assert_eq!(s.not_predicted[0].cause, "unexplained");
    assert_eq!(s.no_change.len(), 2);
    assert!(s.no_change[0].predicted);
    assert!(!s.no_change[1].predicted);
    assert_eq!(s.not_logged.len(), 1);
    assert_eq!(s.not_logged[0].change, 2);
    assert!(!s.clock.disagrees);
    // A log covering only the first minute leaves the third change unchecked.
    let s = merge(&r, &log_of(vec![], 0, 50_000), 10_000);
    assert_eq!(s.not_logged.len(), 1);
    assert_eq!(s.predictions_outside_log, 1);
}

#[test]
fn merge_reports_a_clock_offset() {
    let r = report();
    // Every action logged 5 min after the snapshot that shows it: the log's clock is ahead.
    let ahead = 300_000;
    let log = log_of(
        vec![
            unload(30_000 + ahead, "t/n/0x0_0x1", "a:1", "b:1"),
            unload(90_000 + ahead, "t/n/0x1_0x2", "a:1", "c:1"),
            unload(150_000 + ahead, "t/n/0x2_0x3", "a:1", "b:1"),
        ],
        ahead,
        200_000 + ahead,
    );
    let s = merge(&r, &log, 10_000);
    assert!(s.clock.disagrees);
    assert_eq!(s.clock.matched, 3);
    // 30 s into a one-minute interval + 5 min ahead = 4.5 min after its end.
    assert_eq!(s.clock.offset_ms, 270_000);
    assert_eq!(s.confirmed.len(), 2);
    assert_eq!(s.not_predicted.len(), 1);
    assert!(s.no_change.is_empty());
}
