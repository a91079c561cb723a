//! One safety policy for carrying a plan out, used by every way of doing it (`lbplan apply`, the
//! dashboard's and the embedded Apply, the exported scripts): a plan judged worse, a plan whose
//! snapshot is older than a limit (the leader's view has moved on since) or dated in the future (a
//! clock skew: its age cannot be trusted) or of unknown age, and a plan made with another profile
//! than the cluster's version are refused unless the operator acknowledges them (`--i-know`, or a
//! typed confirmation in the UI). The same text heads every dry run and confirmation, and the
//! assessment is recorded in the journal. Core has no clock: the caller passes `now_ms`.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::names::shell_quote;
use crate::calendar::utc;
use crate::plan::model::Plan;
use crate::plan::verdict::{I_KNOW_FLAG, Outcome};

/// The default `--max-age`: the leader's load reports and its shedding move on within minutes, so
/// a plan older than this is likely to move bundles that are no longer where it thinks.
pub const DEFAULT_MAX_AGE_MS: i64 = 15 * 60 * 1000;

/// A snapshot dated up to this far after `now` is taken as a small clock difference (age 0);
/// further ahead, one of the two clocks is wrong and the age means nothing.
pub const CLOCK_SKEW_TOLERANCE_MS: i64 = 60 * 1000;

/// Where a plan came from and what it predicts, as every artefact states it (plan document,
/// scripts, journal, confirmations).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanContext {
    /// The cluster's name, when the snapshot knew it.
    #[serde(default)]
    pub cluster: Option<String>,
    /// When the snapshot was captured (ms since the epoch), when known.
    #[serde(default)]
    pub snapshot_captured_at_ms: Option<i64>,
    #[serde(default)]
    pub snapshot_fingerprint: String,
    /// The profile the plan was made with (`3.x`, `4.x`, `5.0`, …).
    #[serde(default)]
    pub profile: String,
    /// The verdict's outcome (`better`, `worse`, `mixed`, `no change`).
    #[serde(default)]
    pub verdict: String,
    /// The verdict's one-line headline.
    #[serde(default)]
    pub headline: String,
    /// The broker with the highest weighted max usage after the plan, and that usage.
    #[serde(default)]
    pub worst_broker: Option<String>,
    #[serde(default)]
    pub worst_after_fraction: Option<f64>,
    /// The rows of the release table the plan's decisions read (`release_basis.reads`): another
    /// release differing only outside them decides alike. `None` (a plan before them): every row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads: Option<Vec<crate::release::Change>>,
}

impl PlanContext {
    /// The context of a plan document.
    pub fn of(plan: &Plan) -> Self {
        let worst =
            plan.brokers_after
                .iter()
                .fold(None, |best: Option<(&str, f64)>, b| match best {
                    Some((_, u)) if u >= b.weighted_max_usage_fraction => best,
                    _ => Some((b.broker.as_str(), b.weighted_max_usage_fraction)),
                });
        Self {
            cluster: plan.cluster.clone(),
            snapshot_captured_at_ms: plan.snapshot_captured_at_ms,
            snapshot_fingerprint: plan.snapshot_fingerprint.clone(),
            profile: plan.profile.clone(),
            verdict: plan.verdict.outcome.name().to_string(),
            headline: plan.verdict.headline.clone(),
            worst_broker: worst.map(|(b, _)| b.to_string()),
            worst_after_fraction: worst.map(|(_, u)| u),
            reads: plan.release_basis.as_ref().and_then(|b| b.reads.clone()),
        }
    }

    pub fn is_worse(&self) -> bool {
        self.verdict == Outcome::Worse.name()
    }
}

/// What the run knows that the plan does not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Now, ms since the epoch (the caller's clock).
    pub now_ms: i64,
    /// The oldest snapshot a plan may come from without an acknowledgement.
    pub max_age_ms: i64,
    /// The profile the cluster's version implies (`Profile::from_broker_version`), when read.
    pub cluster_profile: Option<String>,
}

/// One reason a plan must not be carried out without an acknowledgement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "hazard", rename_all = "snake_case")]
pub enum Hazard {
    /// The verdict is `worse`.
    Worse {
        headline: String,
        worst_broker: Option<String>,
        worst_after_fraction: Option<f64>,
    },
    /// The snapshot is older than the limit.
    Stale { age_ms: i64, max_age_ms: i64 },
    /// The snapshot is dated after now by more than the tolerance (a clock is wrong).
    FromTheFuture { ahead_ms: i64 },
    /// The plan does not say when its snapshot was captured.
    AgeUnknown,
    /// The plan was made with another profile than the cluster's version implies.
    OtherProfile { plan: String, cluster: String },
}

impl Hazard {
    /// One line for an operator, naming what differs.
    pub fn describe(&self) -> String {
        match self {
            Hazard::Worse {
                headline,
                worst_broker,
                worst_after_fraction,
            } => {
                let mut s = format!("the plan is judged WORSE: {headline}");
                if let (Some(b), Some(u)) = (worst_broker, worst_after_fraction) {
                    let _ = write!(s, " (worst broker after it: {b} at {:.1}%)", u * 100.0);
                }
                s
            }
            Hazard::Stale { age_ms, max_age_ms } => format!(
                "the snapshot is {} old, over the limit of {} (--max-age): the leader's view has moved on since",
                duration(*age_ms),
                duration(*max_age_ms)
            ),
            Hazard::FromTheFuture { ahead_ms } => format!(
                "the snapshot is dated {} after this machine's clock: one of the clocks is wrong, its age cannot be known",
                duration(*ahead_ms)
            ),
            Hazard::AgeUnknown => {
                "the plan does not say when its snapshot was captured: its age cannot be checked"
                    .to_string()
            }
            Hazard::OtherProfile { plan, cluster } => format!(
                "the plan was made with the {plan} profile, the cluster's version is {cluster}: re-plan with --profile {cluster}"
            ),
        }
    }
}

/// The policy's answer for one plan and one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assessment {
    pub context: PlanContext,
    /// When the run checked (ms since the epoch).
    pub checked_at_ms: i64,
    /// The snapshot's age then (`None`: unknown or from the future).
    pub age_ms: Option<i64>,
    pub max_age_ms: i64,
    pub hazards: Vec<Hazard>,
    /// Whether the operator acknowledged the hazards (`--i-know`, the typed confirmation).
    #[serde(default)]
    pub acknowledged: bool,
}

/// Judges a plan's context against the run's limits.
pub fn assess(context: &PlanContext, limits: &Limits) -> Assessment {
    let mut hazards = Vec::new();
    if context.is_worse() {
        hazards.push(Hazard::Worse {
            headline: context.headline.clone(),
            worst_broker: context.worst_broker.clone(),
            worst_after_fraction: context.worst_after_fraction,
        });
    }
    let age_ms = match context.snapshot_captured_at_ms {
        None => {
            hazards.push(Hazard::AgeUnknown);
            None
        }
        Some(at) => {
            let age = limits.now_ms.saturating_sub(at);
            if age < -CLOCK_SKEW_TOLERANCE_MS {
                hazards.push(Hazard::FromTheFuture {
                    ahead_ms: age.saturating_neg(),
                });
                None
            } else {
                let age = age.max(0);
                if age > limits.max_age_ms {
                    hazards.push(Hazard::Stale {
                        age_ms: age,
                        max_age_ms: limits.max_age_ms,
                    });
                }
                Some(age)
            }
        }
    };
    // Another release matters only where it differs in a row of the table the plan reads.
    let decides_differently = |cluster: &str, plan: &str| match (
        crate::config::Profile::parse(cluster),
        crate::config::Profile::parse(plan),
    ) {
        (Some(c), Some(p)) => !c
            .behaviour()
            .decides_alike(&p.behaviour(), context.reads.as_deref()),
        _ => cluster != plan,
    };
    if let Some(cluster) = &limits.cluster_profile
        && !context.profile.is_empty()
        && decides_differently(cluster, &context.profile)
    {
        hazards.push(Hazard::OtherProfile {
            plan: context.profile.clone(),
            cluster: cluster.clone(),
        });
    }
    Assessment {
        context: context.clone(),
        checked_at_ms: limits.now_ms,
        age_ms,
        max_age_ms: limits.max_age_ms,
        hazards,
        acknowledged: false,
    }
}

impl Assessment {
    pub fn needs_acknowledgement(&self) -> bool {
        !self.hazards.is_empty()
    }

    /// Whether the run may go ahead: no hazard, or each acknowledged.
    pub fn allows(&self) -> bool {
        self.hazards.is_empty() || self.acknowledged
    }

    /// The lines that head every dry run and confirmation: the verdict and its headline first,
    /// then the cluster, the snapshot's time and age, and the profile.
    pub fn header_lines(&self) -> Vec<String> {
        let c = &self.context;
        let mut lines = vec![format!(
            "Verdict: {}{}",
            c.verdict,
            if c.headline.is_empty() {
                String::new()
            } else {
                format!(" — {}", c.headline)
            }
        )];
        lines.push(format!(
            "Cluster: {}",
            c.cluster
                .as_deref()
                .unwrap_or("(not named by the snapshot)")
        ));
        lines.push(format!(
            "Snapshot: captured {}{}",
            c.snapshot_captured_at_ms
                .map(utc)
                .unwrap_or_else(|| "at an unknown time".to_string()),
            match self.age_ms {
                Some(age) => format!(", {} old at {}", duration(age), utc(self.checked_at_ms)),
                None => String::new(),
            }
        ));
        lines.push(format!(
            "Profile: {}",
            if c.profile.is_empty() {
                "(not stated)"
            } else {
                &c.profile
            }
        ));
        lines
    }

    /// Why the run is refused (`None` when it may go ahead), for a front end whose
    /// acknowledgement is `how` (`--i-know`, or the typed confirmation).
    pub fn refusal(&self, how: &str) -> Option<String> {
        if self.allows() {
            return None;
        }
        let mut s = String::from("refused without an acknowledgement:");
        for h in &self.hazards {
            let _ = write!(s, "\n  - {}", h.describe());
        }
        let _ = write!(s, "\nAcknowledge with {how} to carry it out anyway.");
        Some(s)
    }

    /// The refusal of a command-line run (`--i-know`).
    pub fn cli_refusal(&self) -> Option<String> {
        self.refusal(I_KNOW_FLAG)
    }

    /// What the UI asks the operator to type to acknowledge: the worst broker of a worse plan
    /// (the one it overloads), else the cluster's name, else `apply`.
    pub fn confirmation_word(&self) -> Option<String> {
        if !self.needs_acknowledgement() {
            return None;
        }
        let worse = self.hazards.iter().find_map(|h| match h {
            Hazard::Worse { worst_broker, .. } => worst_broker.clone(),
            _ => None,
        });
        Some(
            worse
                .or_else(|| self.context.cluster.clone())
                .unwrap_or_else(|| "apply".to_string()),
        )
    }

    /// Whether `typed` acknowledges (the confirmation word, surrounding spaces ignored).
    pub fn acknowledges(&self, typed: &str) -> bool {
        self.confirmation_word().is_none_or(|w| typed.trim() == w)
    }
}

/// Control characters (a newline in a reason) become spaces: a comment stays one line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A line of text safe inside single quotes and on one line.
fn quoted(text: &str) -> String {
    shell_quote(&one_line(text))
}

/// The policy as the exported scripts carry it out, placed before anything runs: the verdict and
/// the plan's context are printed first (for `apply` and `dry-run`); a worse plan (unless
/// acknowledged at export with `lbplan plan --i-know`), a snapshot older than `LBPLAN_MAX_AGE`
/// seconds (default [`DEFAULT_MAX_AGE_MS`]) or dated in the future, or of unknown age, refuse to
/// apply (exit 3) without `--i-know` on the script's command line. A rollback is never refused.
pub fn script_guard(plan: &Plan, i_know_at_export: bool) -> String {
    let context = PlanContext::of(plan);
    let mut out = String::new();
    // A worse plan's whole verdict (reasons, patterns, alternatives) heads the script; the
    // header above already states any other verdict's headline.
    if context.is_worse() {
        for line in crate::plan::verdict::verdict_lines(&plan.verdict, plan.seed) {
            let _ = writeln!(out, "# {}", one_line(&line));
        }
    }
    out.push_str(
        "# The safety policy (as `lbplan apply`): a plan judged worse, a snapshot older than\n\
         # LBPLAN_MAX_AGE seconds or dated in the future refuse to apply without --i-know.\n",
    );
    let _ = writeln!(out, "lbplan_i_know=0");
    let _ = writeln!(out, "lbplan_args=()");
    let _ = writeln!(out, "for lbplan_arg in \"$@\"; do");
    let _ = writeln!(
        out,
        "  if [ \"$lbplan_arg\" = {I_KNOW_FLAG} ]; then lbplan_i_know=1; else lbplan_args+=(\"$lbplan_arg\"); fi"
    );
    let _ = writeln!(out, "done");
    let _ = writeln!(out, "set -- ${{lbplan_args[@]+\"${{lbplan_args[@]}}\"}}");
    let _ = writeln!(
        out,
        "LBPLAN_CAPTURED_AT_MS={}",
        context
            .snapshot_captured_at_ms
            .map(|t| t.to_string())
            .unwrap_or_default()
    );
    let _ = writeln!(
        out,
        "lbplan_max_age=${{LBPLAN_MAX_AGE:-{}}}",
        DEFAULT_MAX_AGE_MS / 1000
    );
    out.push_str(
        "case \"$lbplan_max_age\" in '' | *[!0-9]*) echo 'LBPLAN_MAX_AGE: expected a number of seconds' >&2; exit 2 ;; esac\n",
    );
    let _ = writeln!(out, "lbplan_hazards=()");
    if context.is_worse() && !i_know_at_export {
        let worse = Hazard::Worse {
            headline: context.headline.clone(),
            worst_broker: context.worst_broker.clone(),
            worst_after_fraction: context.worst_after_fraction,
        };
        let _ = writeln!(out, "lbplan_hazards+=({})", quoted(&worse.describe()));
    }
    let captured = context
        .snapshot_captured_at_ms
        .map(utc)
        .unwrap_or_else(|| "at an unknown time".to_string());
    let _ = writeln!(out, "lbplan_age=");
    out.push_str(&format!(
        r#"if [ -n "$LBPLAN_CAPTURED_AT_MS" ]; then
  lbplan_age=$(( $(date +%s) - LBPLAN_CAPTURED_AT_MS / 1000 ))
  if [ "$lbplan_age" -lt -{skew} ]; then
    lbplan_hazards+=("the snapshot is dated $(( -lbplan_age )) s after this machine's clock: one of the clocks is wrong, its age cannot be known")
  elif [ "$lbplan_age" -gt "$lbplan_max_age" ]; then
    lbplan_hazards+=("the snapshot is $lbplan_age s old, over the limit of $lbplan_max_age s (LBPLAN_MAX_AGE): the leader's view has moved on since")
  fi
else
  lbplan_hazards+=({unknown})
fi
if [ "${{1:-apply}}" != rollback ]; then
  {{
    echo {verdict}
    echo {cluster}
    echo "Snapshot: captured {captured}${{lbplan_age:+, $lbplan_age s old now}}"
    echo {profile}
    for lbplan_hazard in ${{lbplan_hazards[@]+"${{lbplan_hazards[@]}}"}}; do echo "HAZARD: $lbplan_hazard"; done
  }} >&2
fi
if [ "${{#lbplan_hazards[@]}}" -gt 0 ] && [ "$lbplan_i_know" != 1 ] && [ "${{1:-apply}}" = apply ]; then
  echo 'lbplan: refused without an acknowledgement (see HAZARD above); refusing to apply it.' >&2
  echo 'Acknowledge with {flag} to carry it out anyway: bash '"$0"' {flag}' >&2
  exit 3
fi
"#,
        skew = CLOCK_SKEW_TOLERANCE_MS / 1000,
        unknown = quoted(&Hazard::AgeUnknown.describe()),
        verdict = quoted(&format!(
            "Verdict: {}{}",
            context.verdict,
            if context.headline.is_empty() {
                String::new()
            } else {
                format!(" — {}", context.headline)
            }
        )),
        cluster = quoted(&format!(
            "Cluster: {}",
            context
                .cluster
                .as_deref()
                .unwrap_or("(not named by the snapshot)")
        )),
        profile = quoted(&format!("Profile: {}", context.profile)),
        flag = I_KNOW_FLAG,
    ));
    if context.is_worse() && i_know_at_export {
        out.insert_str(
            0,
            &format!(
                "# Exported with {I_KNOW_FLAG}: the operator acknowledged this verdict; only the snapshot's age is checked when it runs.\n"
            ),
        );
    }
    out
}

/// The known releases that decide as `plan_profile`'s release (the same flags in the rows of the
/// release table the plan reads, `reads`; every row when `None`) and those that do not: the one
/// rule `lbplan apply`'s check applies ([`assess`]), listed for a script.
pub fn releases_deciding_as(
    plan_profile: &str,
    reads: Option<&[crate::release::Change]>,
) -> (Vec<String>, Vec<String>) {
    use crate::config::Profile;
    use crate::release::Release;
    let Some(plan) = Profile::parse(plan_profile) else {
        return (Vec::new(), Vec::new());
    };
    let mine = plan.behaviour();
    Release::known()
        .into_iter()
        // The script reads the version's numbers only (`5.0.0-M1` is `5.0.0` to it).
        .filter(|r| r.line.numbers().is_some() && r.stage == crate::release::Stage::Final)
        .map(|r| {
            (
                r.name(),
                Profile::of_release(r)
                    .behaviour()
                    .decides_alike(&mine, reads),
            )
        })
        .fold(
            (Vec::new(), Vec::new()),
            |(mut same, mut other), (name, eq)| {
                if eq {
                    same.push(name);
                } else {
                    other.push(name);
                }
                (same, other)
            },
        )
}

/// The profile check as the exported scripts run it (before `apply` and `dry-run`, after the
/// format's primitives): the brokers' version read from the admin API (`broker_version`:
/// `pulsar-admin brokers version`, or `GET /admin/v2/brokers/version`, what `lbplan apply` reads)
/// is matched against the known releases that decide as the plan's release and those that do not
/// ([`releases_deciding_as`], the release table's rule — written out here as a `case`, so the rule
/// has one home); another behaviour refuses to apply (exit 3) without `--i-know`, with
/// [`Hazard::OtherProfile`]'s text. A version that cannot be read, or that this build's table
/// does not know, is said and not checked.
pub fn script_profile_check(plan: &Plan) -> String {
    let reads = plan.release_basis.as_ref().and_then(|b| b.reads.as_deref());
    let (same, other) = releases_deciding_as(&plan.profile, reads);
    let arm = |names: &[String], what: &str| -> String {
        if names.is_empty() {
            String::new()
        } else {
            format!("    {}) lbplan_same={what} ;;\n", names.join(" | "))
        }
    };
    let case = format!("{}{}", arm(&same, "1"), arm(&other, "0"));
    // The hazard's own words, the cluster's version filled in when the script runs.
    const AT: &str = "\u{1}";
    let hazard = Hazard::OtherProfile {
        plan: one_line(&plan.profile),
        cluster: AT.to_string(),
    }
    .describe();
    let hazard = hazard
        .split(AT)
        .map(shell_quote)
        .collect::<Vec<_>>()
        .join("\"$lbplan_release\"");
    format!(
        r#"# The profile check (as `lbplan apply`): the brokers' version is a Pulsar release; one that
# decides differently from the plan's ({plan_profile}) refuses to apply without {flag}.
lbplan_check_profile() {{
  local lbplan_version lbplan_release lbplan_same
  lbplan_version=$(broker_version 2>/dev/null | tr -d '"[:space:]') || lbplan_version=""
  case "$lbplan_version" in
    '' | *[!-+.0-9A-Za-z_]*)
      echo "cannot read the brokers' version: the plan's profile is not checked" >&2
      return 0
      ;;
  esac
  lbplan_release=${{lbplan_version%%[!0-9.]*}}
  lbplan_same=unknown
  case "$lbplan_release" in
{case}  esac
  if [ "$lbplan_same" = unknown ]; then
    echo "Cluster's version: $lbplan_version, a release this plan's table does not know: the profile is not checked" >&2
    return 0
  fi
  echo "Cluster's version: $lbplan_version (release $lbplan_release)" >&2
  if [ "$lbplan_same" != 1 ]; then
    echo "HAZARD: "{hazard} >&2
    if [ "$lbplan_i_know" != 1 ] && [ "$LBPLAN_DRY_RUN" != 1 ]; then
      echo 'lbplan: refused without an acknowledgement (see HAZARD above); refusing to apply it.' >&2
      echo 'Acknowledge with {flag} to carry it out anyway: bash '"$0"' {flag}' >&2
      exit 3
    fi
  fi
}}
"#,
        flag = I_KNOW_FLAG,
        plan_profile = one_line(&plan.profile),
    )
}

/// A duration for an operator: `45 s`, `12 min`, `3 h 05 min`, `3 d 2 h`.
pub fn duration(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    if s < 120 {
        format!("{s} s")
    } else if s < 3600 {
        format!("{} min", s / 60)
    } else if s < 86_400 {
        format!("{} h {:02} min", s / 3600, (s % 3600) / 60)
    } else {
        format!("{} d {} h", s / 86_400, (s % 86_400) / 3600)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(verdict: &str, captured: Option<i64>) -> PlanContext {
        PlanContext {
            cluster: Some("pulsar-prod".to_string()),
            snapshot_captured_at_ms: captured,
            snapshot_fingerprint: "fp".to_string(),
            profile: "4.x".to_string(),
            verdict: verdict.to_string(),
            headline: "worse: max usage 99.6% → 1032.0%".to_string(),
            worst_broker: Some("small-1:8080".to_string()),
            worst_after_fraction: Some(10.32),
            reads: None,
        }
    }

    const NOW: i64 = 1_796_000_000_000;

    fn limits() -> Limits {
        Limits {
            now_ms: NOW,
            max_age_ms: DEFAULT_MAX_AGE_MS,
            cluster_profile: Some("4.x".to_string()),
        }
    }

    #[test]
    fn a_fresh_better_plan_of_the_clusters_profile_needs_nothing() {
        let a = assess(&context("better", Some(NOW - 60_000)), &limits());
        assert!(a.hazards.is_empty());
        assert!(a.allows());
        assert_eq!(a.age_ms, Some(60_000));
        assert_eq!(a.cli_refusal(), None);
        assert_eq!(a.confirmation_word(), None);
    }

    #[test]
    fn worse_stale_and_another_profile_are_each_refused_until_acknowledged() {
        let three_days = 3 * 86_400_000;
        let mut l = limits();
        l.cluster_profile = Some("3.x".to_string());
        let mut a = assess(&context("worse", Some(NOW - three_days)), &l);
        assert_eq!(a.hazards.len(), 3);
        let refusal = a.cli_refusal().unwrap();
        assert!(refusal.contains("judged WORSE"), "{refusal}");
        assert!(refusal.contains("small-1:8080 at 1032.0%"), "{refusal}");
        assert!(
            refusal.contains("3 d 0 h old, over the limit of 15 min"),
            "{refusal}"
        );
        assert!(
            refusal.contains("made with the 4.x profile, the cluster's version is 3.x"),
            "{refusal}"
        );
        assert!(refusal.ends_with("Acknowledge with --i-know to carry it out anyway."));
        assert_eq!(a.confirmation_word().as_deref(), Some("small-1:8080"));
        assert!(!a.acknowledges("pulsar-prod"));
        assert!(a.acknowledges(" small-1:8080 "));
        a.acknowledged = true;
        assert!(a.allows());
    }

    #[test]
    fn a_snapshot_from_the_future_or_of_unknown_time_has_no_age() {
        let a = assess(&context("better", Some(NOW + 3_600_000)), &limits());
        assert_eq!(
            a.hazards,
            vec![Hazard::FromTheFuture {
                ahead_ms: 3_600_000
            }]
        );
        assert_eq!(a.age_ms, None);
        // Within the tolerance: a small skew, age 0.
        let a = assess(&context("better", Some(NOW + 5_000)), &limits());
        assert!(a.hazards.is_empty());
        assert_eq!(a.age_ms, Some(0));
        let a = assess(&context("better", None), &limits());
        assert_eq!(a.hazards, vec![Hazard::AgeUnknown]);
        assert_eq!(a.confirmation_word().as_deref(), Some("pulsar-prod"));
    }

    #[test]
    fn the_header_starts_with_the_verdict_and_states_cluster_time_and_profile() {
        let a = assess(&context("worse", Some(NOW - 20 * 60_000)), &limits());
        let h = a.header_lines();
        assert_eq!(h[0], "Verdict: worse — worse: max usage 99.6% → 1032.0%");
        assert_eq!(h[1], "Cluster: pulsar-prod");
        assert_eq!(
            h[2],
            "Snapshot: captured 2026-11-30 00:33:20 UTC, 20 min old at 2026-11-30 00:53:20 UTC"
        );
        assert_eq!(h[3], "Profile: 4.x");
    }

    #[test]
    fn utc_and_durations() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        // 2024-02-29 12:00:00 UTC, a leap day.
        assert_eq!(utc(1_709_208_000_000), "2024-02-29 12:00:00 UTC");
        assert_eq!(duration(45_000), "45 s");
        assert_eq!(duration(3 * 3_600_000 + 5 * 60_000), "3 h 05 min");
    }
}
