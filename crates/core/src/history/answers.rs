//! The history's answers to "what did the leader do, and why?": per broker, what it received and
//! gave away; every bundle that came back to a broker it had left (ping-pong, with its path and
//! times); and the bursts — steps with far more moves than the series' usual — each with its likely
//! trigger (a broker joining or leaving, the shedding grace period of an earlier burst expiring, a
//! broker's load jumping). Derived from the report's changes by the summary's own reading of a
//! move (`metrics::seen_moves`, `metrics::returns`).

use indexmap::IndexMap;

use super::cause::Cause;
use super::diff::Change;
use super::metrics::{HOUR_MS, SeenMove, returns, seen_moves};
use super::report::{BrokerMoves, Burst, HistoryAnswers, HistoryReport, PingPong};

/// A step is a burst when it has at least this many moves…
const BURST_MIN_MOVES: usize = 10;
/// …and at least this many times the median of the steps with moves.
const BURST_FACTOR: f64 = 3.0;
/// A broker's load rising by at least this much (0–1) between two snapshots is a trigger.
const LOAD_JUMP: f64 = 0.10;

/// The answers for `report` (its changes, times and each broker's load over time).
pub fn answer(report: &HistoryReport) -> HistoryAnswers {
    let moves = seen_moves(report);
    HistoryAnswers {
        brokers: per_broker(report, &moves),
        ping_pong: ping_pong(report, &moves),
        bursts: bursts(report, &moves),
    }
}

fn caused_by_leader(report: &HistoryReport, m: &SeenMove<'_>) -> bool {
    report
        .changes
        .get(m.change)
        .is_some_and(|c| matches!(c.cause, Cause::LeaderShedding { .. }))
}

fn caused_by_leave(report: &HistoryReport, m: &SeenMove<'_>) -> bool {
    report
        .changes
        .get(m.change)
        .is_some_and(|c| matches!(c.cause, Cause::BrokerLeft { .. }))
}

fn per_broker(report: &HistoryReport, moves: &[SeenMove<'_>]) -> Vec<BrokerMoves> {
    let mut by: IndexMap<&str, BrokerMoves> = IndexMap::new();
    for m in moves {
        let bytes = report
            .changes
            .get(m.change)
            .map_or(0.0, |c| c.throughput_bytes_per_sec);
        let leader = caused_by_leader(report, m);
        let from = by.entry(m.from).or_insert_with(|| BrokerMoves {
            broker: m.from.to_string(),
            ..BrokerMoves::default()
        });
        from.bundles_out += 1;
        from.out_by_leader += usize::from(leader);
        from.bytes_out_per_sec += bytes;
        let to = by.entry(m.to).or_insert_with(|| BrokerMoves {
            broker: m.to.to_string(),
            ..BrokerMoves::default()
        });
        to.bundles_in += 1;
        to.bytes_in_per_sec += bytes;
    }
    let mut out: Vec<BrokerMoves> = by.into_values().collect();
    out.sort_by(|a, b| {
        (b.bundles_in + b.bundles_out)
            .cmp(&(a.bundles_in + a.bundles_out))
            .then_with(|| a.broker.cmp(&b.broker))
    });
    out
}

fn ping_pong(report: &HistoryReport, moves: &[SeenMove<'_>]) -> Vec<PingPong> {
    let grace = report.summary.grace_period_ms;
    returns(moves, HOUR_MS)
        .into_iter()
        .filter_map(|(k, j)| {
            let (back, left) = (moves.get(k)?, moves.get(j)?);
            // The path: where it left from, then every owner up to its return.
            let mut brokers = vec![left.from.to_string()];
            brokers.extend(
                moves
                    .get(j..=k)?
                    .iter()
                    .filter(|m| m.bundle == back.bundle)
                    .map(|m| m.to.to_string()),
            );
            Some(PingPong {
                bundle: back.bundle.to_string(),
                brokers,
                left_at_ms: left.at_ms,
                back_at_ms: back.at_ms,
                step: back.step,
                within_grace: back.at_ms.saturating_sub(left.at_ms) <= grace,
            })
        })
        .collect()
}

fn median(mut values: Vec<usize>) -> f64 {
    values.sort_unstable();
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values.get(n / 2).copied().unwrap_or(0) as f64,
        _ => {
            let a = values.get(n / 2 - 1).copied().unwrap_or(0);
            let b = values.get(n / 2).copied().unwrap_or(0);
            (a + b) as f64 / 2.0
        }
    }
}

fn bursts(report: &HistoryReport, moves: &[SeenMove<'_>]) -> Vec<Burst> {
    // Moves per step (a broker leaving moves its bundles by itself: not the leader's doing).
    let mut per_step: IndexMap<usize, usize> = IndexMap::new();
    for m in moves.iter().filter(|m| !caused_by_leave(report, m)) {
        *per_step.entry(m.step).or_default() += 1;
    }
    let usual = median(per_step.values().copied().collect());
    let mut out: Vec<Burst> = Vec::new();
    for (&step, &n) in &per_step {
        if n < BURST_MIN_MOVES || (n as f64) < BURST_FACTOR * usual.max(1.0) {
            continue;
        }
        let from_ms = report.times_ms.get(step).copied().unwrap_or(0);
        let at_ms = report.times_ms.get(step + 1).copied().unwrap_or(from_ms);
        let trigger = trigger(report, step, from_ms, at_ms, &per_step);
        out.push(Burst {
            step,
            from_ms,
            at_ms,
            moves: n,
            usual_moves: usual,
            trigger,
        });
    }
    out
}

/// The likely trigger of a burst in `step` (between `from_ms` and `at_ms`): membership first, then
/// an earlier step's bundles coming out of the shedding grace period, then a load jump.
fn trigger(
    report: &HistoryReport,
    step: usize,
    from_ms: i64,
    at_ms: i64,
    per_step: &IndexMap<usize, usize>,
) -> String {
    let membership: Vec<String> = report
        .changes
        .iter()
        .filter(|c| c.step + 1 >= step && c.step <= step)
        .filter_map(|c| match &c.change {
            Change::BrokerJoined { broker } => Some(format!("{broker} joined")),
            Change::BrokerLeft { broker, .. } => Some(format!("{broker} left")),
            _ => None,
        })
        .collect();
    if !membership.is_empty() {
        return format!("membership changed: {}", membership.join(", "));
    }
    // A configuration seen changed at the snapshot before the burst or during it: the leader
    // applies it at its next cycle.
    let config: Vec<String> = report
        .config_changes
        .iter()
        .filter(|c| c.step + 1 >= step && c.step <= step)
        .map(|c| {
            let value = |v: &Option<String>| v.clone().unwrap_or_else(|| "(default)".to_string());
            format!("{} {} → {}", c.key, value(&c.before), value(&c.after))
        })
        .collect();
    if let Some(first) = config.first() {
        let more = match config.len() {
            1 => String::new(),
            n => format!(" (and {} more key(s))", n - 1),
        };
        return format!("broker.conf changed: {first}{more}");
    }
    let grace = report.summary.grace_period_ms;
    if grace > 0 {
        // Bundles unloaded at an earlier step are skipped by the shedder until the grace period
        // has passed; a burst right after that moment is those bundles (or their brokers) again.
        let expired = per_step.iter().find(|&(&s, &n)| {
            let moved_at = report.times_ms.get(s + 1).copied().unwrap_or(i64::MAX);
            s < step && n > 0 && (from_ms..=at_ms).contains(&moved_at.saturating_add(grace))
        });
        if let Some((&s, &n)) = expired {
            return format!(
                "the shedding grace period (loadBalancerSheddingGracePeriodMinutes = {} min) of the \
                 {n} move(s) seen at snapshot {} expired: those bundles could be shed again",
                grace / 60_000,
                s + 1
            );
        }
    }
    let load_at = |b: &Vec<Option<f64>>, i: usize| b.get(i).copied().flatten();
    let jump = report
        .broker_load
        .iter()
        .filter_map(|(id, series)| {
            let now = load_at(series, step)?;
            let before = step.checked_sub(1).and_then(|p| load_at(series, p))?;
            Some((id, before, now))
        })
        .max_by(|a, b| (a.2 - a.1).total_cmp(&(b.2 - b.1)));
    match jump {
        Some((id, before, now)) if now - before >= LOAD_JUMP => format!(
            "{id}'s load rose {:.1} % → {:.1} % just before",
            before * 100.0,
            now * 100.0
        ),
        _ if step == 0 => {
            "the first step of the series: the leader's cycle on the state it was recorded in"
                .to_string()
        }
        _ => "no trigger found (membership, grace period expiry and load jumps ruled out)"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::report::{ExplainedChange, HistorySummary};

    const MIN: i64 = 60_000;

    fn moved(step: usize, bundle: &str, from: &str, to: &str, cause: Cause) -> ExplainedChange {
        ExplainedChange {
            step,
            from_ms: step as i64 * MIN,
            at_ms: (step as i64 + 1) * MIN,
            change: Change::Moved {
                bundle: bundle.to_string(),
                from: from.to_string(),
                to: to.to_string(),
            },
            cause,
            throughput_bytes_per_sec: 1_000.0,
        }
    }

    fn leader() -> Cause {
        Cause::LeaderShedding {
            predicted_to: String::new(),
            destination_agrees: true,
            reason: String::new(),
        }
    }

    /// One snapshot a minute for `n` minutes, a 30-minute grace period (Pulsar's default).
    fn report(n: usize, changes: Vec<ExplainedChange>) -> HistoryReport {
        HistoryReport {
            times_ms: (0..n as i64).map(|i| i * MIN).collect(),
            summary: HistorySummary {
                grace_period_ms: 30 * MIN,
                ..HistorySummary::default()
            },
            changes,
            ..HistoryReport::default()
        }
    }

    /// A bundle shed a → b at minute 1, then b → a at minute 41 (after the grace period, within
    /// the hour): one ping-pong with its path and times, not within the grace period; per broker,
    /// a and b each received and gave away one bundle, by the leader.
    #[test]
    fn ping_pong_is_listed_with_its_path_and_the_brokers_counted() {
        let r = report(
            45,
            vec![
                moved(0, "t/n/0x0_0x1", "a", "b", leader()),
                moved(40, "t/n/0x0_0x1", "b", "a", leader()),
            ],
        );
        let a = answer(&r);
        assert_eq!(a.ping_pong.len(), 1);
        let p = &a.ping_pong[0];
        assert_eq!(p.brokers, vec!["a", "b", "a"]);
        assert_eq!((p.left_at_ms, p.back_at_ms, p.step), (MIN, 41 * MIN, 40));
        assert!(!p.within_grace);
        assert_eq!(a.brokers.len(), 2);
        for b in &a.brokers {
            assert_eq!((b.bundles_in, b.bundles_out, b.out_by_leader), (1, 1, 1));
            assert_eq!(b.bytes_in_per_sec, 1_000.0);
        }
        assert!(a.bursts.is_empty());
    }

    /// Twelve unloads at minute 1, then one or two a step, then twelve again the step the first
    /// ones' grace period ends (31 minutes after they were seen): a burst whose likely trigger is
    /// that expiry, named with the setting.
    #[test]
    fn a_burst_when_the_grace_period_expires_names_it() {
        let mut changes = Vec::new();
        for i in 0..12 {
            changes.push(moved(0, &format!("t/n/b{i}"), "hot", "cold", leader()));
        }
        for step in [5, 10, 15, 20] {
            changes.push(moved(
                step,
                &format!("t/n/x{step}"),
                "hot",
                "cold",
                leader(),
            ));
        }
        // Seen at minute 1; the grace period ends at minute 31, inside the step 30 → 31.
        for i in 0..12 {
            changes.push(moved(30, &format!("t/n/c{i}"), "hot", "cold", leader()));
        }
        let a = answer(&report(40, changes));
        // Moves per step: 12, 1, 1, 1, 1, 12 → median 1; both twelves are bursts.
        assert_eq!(
            a.bursts
                .iter()
                .map(|b| (b.step, b.moves))
                .collect::<Vec<_>>(),
            vec![(0, 12), (30, 12)]
        );
        assert!(
            a.bursts[1].trigger.starts_with(
                "the shedding grace period (loadBalancerSheddingGracePeriodMinutes = 30 min) of the 12 move(s) seen at snapshot 1 expired"
            ),
            "{}",
            a.bursts[1].trigger
        );
        assert!(
            a.bursts[0]
                .trigger
                .starts_with("the first step of the series")
        );
    }

    /// A burst in the step a broker left is put down to the membership change, and the bundles
    /// the leaving broker's lookups re-assigned are not counted as the leader's burst.
    #[test]
    fn a_burst_with_a_broker_leaving_names_the_broker() {
        let mut changes = vec![ExplainedChange {
            step: 3,
            from_ms: 3 * MIN,
            at_ms: 4 * MIN,
            change: Change::BrokerLeft {
                broker: "gone".to_string(),
                bundles: 20,
            },
            cause: Cause::Observed,
            throughput_bytes_per_sec: 0.0,
        }];
        for i in 0..20 {
            changes.push(moved(
                3,
                &format!("t/n/g{i}"),
                "gone",
                "a",
                Cause::BrokerLeft {
                    broker: "gone".to_string(),
                },
            ));
        }
        for i in 0..11 {
            changes.push(moved(3, &format!("t/n/s{i}"), "hot", "a", leader()));
        }
        for step in [0, 1, 2, 4] {
            changes.push(moved(step, &format!("t/n/one{step}"), "hot", "a", leader()));
        }
        // Moves per step, without the leave's: 1, 1, 1, 11, 1 → median 1.
        let a = answer(&report(6, changes));
        assert_eq!(a.bursts.len(), 1);
        assert_eq!(a.bursts[0].moves, 11);
        assert_eq!(a.bursts[0].trigger, "membership changed: gone left");
    }

    /// Eleven unloads the step after `loadBalancerBrokerThresholdShedderPercentage` went from 10 to
    /// 5 between two snapshots: the burst names the change (membership would win, and did not
    /// change).
    #[test]
    fn a_burst_after_a_config_change_names_the_key() {
        let mut changes = Vec::new();
        for step in [0, 1, 2, 5] {
            changes.push(moved(step, &format!("t/n/one{step}"), "hot", "a", leader()));
        }
        for i in 0..11 {
            changes.push(moved(4, &format!("t/n/s{i}"), "hot", "a", leader()));
        }
        let mut r = report(7, changes);
        let mut before = indexmap::IndexMap::new();
        before.insert(
            "loadBalancerBrokerThresholdShedderPercentage".to_string(),
            "10".to_string(),
        );
        before.insert(
            "loadBalancerSheddingIntervalMinutes".to_string(),
            "1".to_string(),
        );
        let mut after = before.clone();
        after.insert(
            "loadBalancerBrokerThresholdShedderPercentage".to_string(),
            "5".to_string(),
        );
        after.shift_remove("loadBalancerSheddingIntervalMinutes");
        r.config_changes = crate::history::report::config_changes(3, 4 * MIN, &before, &after);
        assert_eq!(r.config_changes.len(), 2);
        assert_eq!(r.config_changes[1].after, None);
        let a = answer(&r);
        assert_eq!(a.bursts.len(), 1);
        assert_eq!(
            a.bursts[0].trigger,
            "broker.conf changed: loadBalancerBrokerThresholdShedderPercentage 10 → 5 (and 1 more key(s))"
        );
    }
}
