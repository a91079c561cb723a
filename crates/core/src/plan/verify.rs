//! Did the cluster do what the plan said? Compares a plan with a snapshot taken after it was
//! applied: where each bundle the plan moved is now (where predicted, back on its source — the
//! leader moved it back, or it never moved — or elsewhere), whether each split happened, and each
//! broker's weighted max usage now against the plan's prediction, within the load model's stated
//! error. `lbplan verify`, `lbplan apply --verify` and the dashboard's Apply print the same
//! report, as text an operator can paste into a change ticket or as JSON.
//!
//! Ownership is visible at once (a broker's `ownedNamespaces` changes with the unload), but a
//! broker's load report is only rewritten when `loadBalancerReportUpdateMaxIntervalMinutes` has
//! passed or its load changed by more than `loadBalancerReportUpdateThresholdPercentage`: a broker
//! the plan touched whose report predates the apply is "not yet reported since the apply", not
//! wrong, and the report says so.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::engine::make_plan;
use super::model::Plan;
use super::request::PlanRequest;
use crate::calendar::utc;
use crate::config::{LoadBalancerConfig, Profile};
use crate::model::Snapshot;
use crate::model::fingerprint::snapshot_fingerprint;

/// Version of the verification report's JSON (2: brokers not yet reported since the apply,
/// `applied_at_ms`, `owners_read_live`, `complete`).
pub const VERIFY_FORMAT_VERSION: u32 = 2;

/// What the caller knows about the apply that the snapshot after does not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerifyOptions {
    /// When the apply's first call was sent (ms since the epoch). A broker the plan touched
    /// whose load report (`lastUpdate`) is older has not reported since the apply. Without it,
    /// the plan's snapshot time is the bound (a report no newer than the plan's own snapshot
    /// certainly predates the apply).
    pub applied_at_ms: Option<i64>,
    /// Each bundle's owner read live after the apply (`ownedNamespaces`, as the apply's own
    /// verification reads it): where the bundles are, even before the brokers' next reports list
    /// them. Without it, the owners are the load reports' bundle lists.
    pub live_owners: Option<BTreeMap<String, String>>,
}

/// The load model's stated error on a broker's weighted max usage after a plan, in fraction
/// points: a move carries the bundle's last reported rates to the destination and leaves the
/// brokers' other load as it was, while the brokers' next reports measure the real load (the
/// bundle's clients reconnect, rates drift), so a prediction within 5 points is as predicted.
pub const USAGE_TOLERANCE_FRACTION: f64 = 0.05;

/// Where a bundle the plan touched is in the snapshot after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum BundleStatus {
    /// On the broker the plan predicted.
    AsPredicted,
    /// Off its source; the plan named no destination (Pulsar chose).
    Moved,
    /// Back on (or still on) its source: the leader moved it back, or the unload never happened.
    OnSource,
    /// On a broker the plan did not predict.
    Elsewhere,
    /// No broker reports it (not owned yet, or its namespace was split or removed since).
    NotFound,
    /// A split bundle that is gone (its children replaced it).
    Split,
    /// A split bundle that still exists.
    NotSplit,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BundleCheck {
    pub bundle: String,
    /// `unload` or `split`.
    pub kind: String,
    pub from: String,
    /// The broker the plan predicted (`None`: Pulsar's choice).
    pub predicted: Option<String>,
    /// The owner in the snapshot after.
    pub found: Option<String>,
    #[serde(flatten)]
    pub status: BundleStatus,
}

impl BundleCheck {
    pub fn ok(&self) -> bool {
        matches!(
            self.status,
            BundleStatus::AsPredicted | BundleStatus::Moved | BundleStatus::Split
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BrokerCheck {
    pub broker: String,
    /// The plan's weighted max usage before and its prediction after (`None`: not in the plan).
    pub before: Option<f64>,
    pub predicted: Option<f64>,
    /// Measured in the snapshot after (`None`: the broker is gone).
    pub actual: Option<f64>,
    /// `actual - predicted`, when both are known.
    pub difference: Option<f64>,
    /// Whether the difference is within [`USAGE_TOLERANCE_FRACTION`] (false while not yet
    /// reported: nothing to compare yet).
    pub within_tolerance: bool,
    /// The `lastUpdate` of the broker's load report in the snapshot after (`None`: not stated).
    pub reported_at_ms: Option<i64>,
    /// The plan moved load to or from this broker and its report predates the apply: its usage
    /// is not compared yet (not counted as a failure).
    pub not_yet_reported: bool,
}

/// The report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verification {
    pub format_version: u32,
    pub cluster: Option<String>,
    pub plan_snapshot_fingerprint: String,
    pub plan_snapshot_captured_at_ms: Option<i64>,
    pub after_snapshot_fingerprint: String,
    pub after_snapshot_captured_at_ms: Option<i64>,
    pub tolerance_fraction: f64,
    /// The bound a broker's report must be newer than to count as reported since the apply.
    pub applied_at_ms: Option<i64>,
    /// Whether the bundles' owners were read live (`ownedNamespaces`) rather than from the reports.
    pub owners_read_live: bool,
    /// How a broker's report is refreshed (`loadBalancerReportUpdateMaxIntervalMinutes`,
    /// `loadBalancerReportUpdateThresholdPercentage`), for the "not yet reported" note.
    pub report_update_max_interval_minutes: i64,
    pub report_update_threshold_percentage: i64,
    pub bundles: Vec<BundleCheck>,
    pub brokers: Vec<BrokerCheck>,
    /// Bundles on their source again (moved back by the leader, or never moved).
    pub moved_back: usize,
    /// Brokers the plan touched that have not reported since the apply.
    pub not_yet_reported: usize,
    /// Whether nothing differs from the prediction (brokers not yet reported are not counted).
    pub as_predicted: bool,
    /// Whether every comparison could be made (no broker waits for its next report).
    pub complete: bool,
    /// One line.
    pub summary: String,
}

/// Why a verification cannot be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum VerifyError {
    #[error("the snapshot after is of cluster `{after}`, the plan of `{plan}`")]
    OtherCluster { plan: String, after: String },
    #[error("the snapshot after was captured before the plan's snapshot ({after} < {plan})")]
    Older { plan: String, after: String },
    #[error("cannot read the brokers' usage of the snapshot after: {0}")]
    Usage(String),
}

fn owner_in(after: &Snapshot, bundle: &str) -> Option<String> {
    after
        .brokers
        .iter()
        .find(|(_, b)| b.local_broker_data.bundles.iter().any(|x| x == bundle))
        .map(|(id, _)| id.clone())
}

/// Compares `plan` with `after`, a snapshot of the same cluster taken after the plan was applied,
/// knowing nothing else about the apply (`lbplan verify`).
pub fn verify(plan: &Plan, after: &Snapshot) -> Result<Verification, VerifyError> {
    verify_with(plan, after, &VerifyOptions::default())
}

/// An `Int` load-balancing key as the plan's run saw it: its setting, else the profile's default.
fn plan_setting(plan: &Plan, key: &str) -> i64 {
    let mut config =
        LoadBalancerConfig::for_profile(Profile::parse(&plan.profile).unwrap_or(Profile::Pulsar4x));
    for (k, v) in &plan.settings {
        let _ = config.set_text(k, v);
    }
    config
        .get_text(key)
        .and_then(|t| t.parse().ok())
        .unwrap_or_default()
}

/// [`verify`] with what the caller knows about the apply: when it ended, and the owners it read.
pub fn verify_with(
    plan: &Plan,
    after: &Snapshot,
    options: &VerifyOptions,
) -> Result<Verification, VerifyError> {
    if let (Some(p), Some(a)) = (&plan.cluster, &after.cluster)
        && p != a
    {
        return Err(VerifyError::OtherCluster {
            plan: p.clone(),
            after: a.clone(),
        });
    }
    if let (Some(p), Some(a)) = (plan.snapshot_captured_at_ms, after.captured_at_ms)
        && a < p
    {
        return Err(VerifyError::Older {
            plan: utc(p),
            after: utc(a),
        });
    }
    let owner = |bundle: &str| match &options.live_owners {
        Some(live) => live.get(bundle).cloned(),
        None => owner_in(after, bundle),
    };
    let mut bundles = Vec::new();
    for s in &plan.splits {
        let found = owner(&s.bundle);
        bundles.push(BundleCheck {
            bundle: s.bundle.clone(),
            kind: "split".to_string(),
            from: s.broker.clone(),
            predicted: Some(s.broker.clone()),
            status: if found.is_some() {
                BundleStatus::NotSplit
            } else {
                BundleStatus::Split
            },
            found,
        });
    }
    for u in &plan.unloads {
        let found = owner(&u.bundle);
        let status = match (&found, &u.to) {
            (None, _) => BundleStatus::NotFound,
            (Some(f), _) if *f == u.from => BundleStatus::OnSource,
            (Some(f), Some(to)) if f == to => BundleStatus::AsPredicted,
            (Some(_), Some(_)) => BundleStatus::Elsewhere,
            (Some(_), None) => BundleStatus::Moved,
        };
        bundles.push(BundleCheck {
            bundle: u.bundle.clone(),
            kind: "unload".to_string(),
            from: u.from.clone(),
            predicted: u.to.clone(),
            found,
            status,
        });
    }
    // The brokers' usage now, read exactly as the plan read its "before": a plan of the snapshot
    // after with the plan's profile and settings and no decision.
    let request = PlanRequest {
        profile: Profile::parse(&plan.profile),
        settings: plan.settings.clone(),
        operations: Vec::new(),
        leader_cycle: false,
        outlook_cycles: 0,
        ..PlanRequest::leader_cycle()
    };
    let now = make_plan(after, &request).map_err(|e| VerifyError::Usage(e.to_string()))?;
    let mut names: Vec<&str> = plan
        .brokers_after
        .iter()
        .map(|b| b.broker.as_str())
        .collect();
    for b in &now.brokers_before {
        if !names.contains(&b.broker.as_str()) {
            names.push(&b.broker);
        }
    }
    let usage = |v: &[super::model::BrokerLoadView], name: &str| {
        v.iter()
            .find(|b| b.broker == name)
            .map(|b| b.weighted_max_usage_fraction)
    };
    // The brokers the plan moves load to or from: their reports must follow the apply.
    let touched = |name: &str| {
        plan.unloads
            .iter()
            .any(|u| u.from == name || u.to.as_deref() == Some(name))
            || plan.splits.iter().any(|s| s.broker == name)
    };
    let applied_at_ms = options.applied_at_ms.or(plan.snapshot_captured_at_ms);
    let brokers: Vec<BrokerCheck> = names
        .into_iter()
        .map(|name| {
            let predicted = usage(&plan.brokers_after, name);
            let actual = usage(&now.brokers_before, name);
            let reported_at_ms = after
                .brokers
                .get(name)
                .map(|b| b.local_broker_data.last_update)
                .filter(|t| *t > 0);
            let not_yet_reported = touched(name)
                && actual.is_some()
                && matches!((reported_at_ms, applied_at_ms), (Some(r), Some(a)) if r <= a);
            let difference = predicted.zip(actual).map(|(p, a)| a - p);
            BrokerCheck {
                broker: name.to_string(),
                before: usage(&plan.brokers_before, name),
                predicted,
                actual,
                difference,
                within_tolerance: !not_yet_reported
                    && difference.is_some_and(|d| d.abs() <= USAGE_TOLERANCE_FRACTION + 1e-9),
                reported_at_ms,
                not_yet_reported,
            }
        })
        .collect();
    let moved_back = bundles
        .iter()
        .filter(|b| b.status == BundleStatus::OnSource)
        .count();
    let bundles_ok = bundles.iter().filter(|b| b.ok()).count();
    let brokers_ok = brokers.iter().filter(|b| b.within_tolerance).count();
    let not_yet_reported = brokers.iter().filter(|b| b.not_yet_reported).count();
    let as_predicted =
        bundles_ok == bundles.len() && brokers_ok + not_yet_reported == brokers.len();
    let complete = not_yet_reported == 0;
    let summary = format!(
        "{}: {bundles_ok} of {} bundle(s) where predicted, {brokers_ok} of {} broker(s) within {:.0} points of the predicted usage, {not_yet_reported} not yet reported since the apply, {moved_back} bundle(s) on their source again",
        match (as_predicted, complete) {
            (false, _) => "NOT AS PREDICTED",
            (true, false) => "AS PREDICTED SO FAR",
            (true, true) => "AS PREDICTED",
        },
        bundles.len(),
        brokers.len(),
        USAGE_TOLERANCE_FRACTION * 100.0
    );
    Ok(Verification {
        format_version: VERIFY_FORMAT_VERSION,
        cluster: plan.cluster.clone().or_else(|| after.cluster.clone()),
        plan_snapshot_fingerprint: plan.snapshot_fingerprint.clone(),
        plan_snapshot_captured_at_ms: plan.snapshot_captured_at_ms,
        after_snapshot_fingerprint: snapshot_fingerprint(after),
        after_snapshot_captured_at_ms: after.captured_at_ms,
        tolerance_fraction: USAGE_TOLERANCE_FRACTION,
        applied_at_ms,
        owners_read_live: options.live_owners.is_some(),
        report_update_max_interval_minutes: plan_setting(
            plan,
            "loadBalancerReportUpdateMaxIntervalMinutes",
        ),
        report_update_threshold_percentage: plan_setting(
            plan,
            "loadBalancerReportUpdateThresholdPercentage",
        ),
        bundles,
        brokers,
        moved_back,
        not_yet_reported,
        as_predicted,
        complete,
        summary,
    })
}

/// The snapshot after an apply as a front end reading one admin URL sees it (the dashboard's
/// Verify): the snapshot the plan was made from, each broker's bundle list replaced by the owners
/// read live (`ownedNamespaces`), and each fresh load report it could read
/// (`GET /admin/v2/broker-stats/load-report`, served by the broker behind the URL; matched to a
/// broker by its `webServiceUrl` or `webServiceUrlTls` host:port) in place of the broker's old
/// one. The other brokers keep their old reports, whose `lastUpdate` predates the apply, so
/// [`verify_with`] says they have not reported since. Brokers absent from the live owners keep
/// no bundle.
pub fn live_after(
    before: &Snapshot,
    owners: &BTreeMap<String, String>,
    fresh_reports: &[crate::model::LocalBrokerData],
    captured_at_ms: i64,
) -> Snapshot {
    let mut after = before.clone();
    after.captured_at_ms = Some(captured_at_ms);
    let authority = |url: &Option<String>| {
        url.as_deref()
            .and_then(|u| u.split_once("://"))
            .map(|(_, rest)| rest.split('/').next().unwrap_or("").to_string())
    };
    for (id, broker) in after.brokers.iter_mut() {
        if let Some(fresh) = fresh_reports.iter().find(|r| {
            authority(&r.web_service_url).as_deref() == Some(id.as_str())
                || authority(&r.web_service_url_tls).as_deref() == Some(id.as_str())
        }) {
            broker.local_broker_data = fresh.clone();
        }
        let data = &mut broker.local_broker_data;
        data.bundles = owners
            .iter()
            .filter(|(_, o)| *o == id)
            .map(|(b, _)| b.clone())
            .collect();
        data.num_bundles = i64::try_from(data.bundles.len()).unwrap_or(i64::MAX);
    }
    after
}

fn pct(f: Option<f64>) -> String {
    f.map(|v| format!("{:.1}%", v * 100.0))
        .unwrap_or_else(|| "—".to_string())
}

impl Verification {
    /// The report as text for a change ticket.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "lbplan verify: {}", self.summary);
        let _ = writeln!(
            out,
            "Cluster: {}",
            self.cluster.as_deref().unwrap_or("(not named)")
        );
        let time = |t: Option<i64>| t.map(utc).unwrap_or_else(|| "unknown time".to_string());
        let _ = writeln!(
            out,
            "Plan of snapshot {} (captured {}); snapshot after {} (captured {})",
            self.plan_snapshot_fingerprint,
            time(self.plan_snapshot_captured_at_ms),
            self.after_snapshot_fingerprint,
            time(self.after_snapshot_captured_at_ms)
        );
        let _ = writeln!(
            out,
            "Bundles ({}):",
            if self.owners_read_live {
                "owners read live after the apply, ownedNamespaces"
            } else {
                "owners as the brokers' load reports list them"
            }
        );
        for b in &self.bundles {
            let what = match &b.status {
                BundleStatus::AsPredicted => "as predicted".to_string(),
                BundleStatus::Moved => "moved (Pulsar chose the broker)".to_string(),
                BundleStatus::OnSource => {
                    "ON ITS SOURCE AGAIN (moved back by the leader, or never moved)".to_string()
                }
                BundleStatus::Elsewhere => "ELSEWHERE".to_string(),
                BundleStatus::NotFound => "NOT FOUND on any broker".to_string(),
                BundleStatus::Split => "split".to_string(),
                BundleStatus::NotSplit => "NOT SPLIT".to_string(),
            };
            let _ = writeln!(
                out,
                "  {} {} {} → {}: now on {} — {what}",
                if b.ok() { "ok  " } else { "FAIL" },
                b.bundle,
                b.from,
                b.predicted.as_deref().unwrap_or("(Pulsar's choice)"),
                b.found.as_deref().unwrap_or("no broker"),
            );
        }
        let _ = writeln!(
            out,
            "Brokers (weighted max usage: before → predicted, actual; tolerance ±{:.0} points):",
            self.tolerance_fraction * 100.0
        );
        for b in &self.brokers {
            if b.not_yet_reported {
                let _ = writeln!(
                    out,
                    "  WAIT {}: {} → {}, not yet reported since the apply (its load report is of {})",
                    b.broker,
                    pct(b.before),
                    pct(b.predicted),
                    b.reported_at_ms.map(utc).unwrap_or_default()
                );
                continue;
            }
            let _ = writeln!(
                out,
                "  {} {}: {} → {}, actual {}{}",
                if b.within_tolerance { "ok  " } else { "FAIL" },
                b.broker,
                pct(b.before),
                pct(b.predicted),
                pct(b.actual),
                b.difference
                    .map(|d| format!(" ({:+.1} points)", d * 100.0))
                    .unwrap_or_default()
            );
        }
        if self.not_yet_reported > 0 {
            let _ = writeln!(
                out,
                "{} broker(s) not yet reported since the apply{}: a broker rewrites its load report after loadBalancerReportUpdateMaxIntervalMinutes ({} min) or when its load changes by more than loadBalancerReportUpdateThresholdPercentage ({} %); verify again later for their usage.",
                self.not_yet_reported,
                self.applied_at_ms
                    .map(|t| format!(" (at {})", utc(t)))
                    .unwrap_or_default(),
                self.report_update_max_interval_minutes,
                self.report_update_threshold_percentage
            );
        }
        out
    }
}
