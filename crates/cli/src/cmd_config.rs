//! `lbplan config [--profile P] [--snapshot S]`: the effective load-balancing configuration as
//! `broker.conf` lines. With a snapshot: its profile (from the brokers' `brokerVersionString` unless
//! `--profile`), then its `broker.conf`, with the keys that differ from the profile's defaults listed
//! first as comments (core's `view::settings::setting_rows`, the dashboard's settings table), so the
//! output stays a valid `broker.conf`.

use std::path::PathBuf;

use lbplan_core::config::settings::{detect_profile, release_basis};
use lbplan_core::config::{LoadBalancerConfig, Profile};
use lbplan_core::text::escape_control;
use lbplan_core::view::settings::{ValueSource, setting_rows};
use lbplan_core::view::settings_check::{Severity, check_settings, finding_line};

use crate::exit::CliError;
use crate::option_args::parse_profile;
use crate::snapshot_input::load_snapshot;

#[derive(clap::Args)]
pub struct Args {
    /// The Pulsar release: 4.0.7, a line (3.x, 4.x, 4.1, 4.2, 5.0: its newest known patch) or
    /// master-90cba329 (default 4.x; with --snapshot, the leader's brokerVersionString).
    #[arg(long)]
    profile: Option<String>,
    /// A snapshot (or anything the importer reads): print its effective configuration and how it
    /// differs from the profile's defaults.
    #[arg(long)]
    snapshot: Option<PathBuf>,
    /// With --snapshot: check its broker.conf against the leader's release (keys it does not know,
    /// strategy pairs it falls back from or refuses, values it ignores) instead of printing the
    /// configuration; exit 1 when the broker would not run the configured modular manager.
    #[arg(long, requires = "snapshot")]
    check: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let chosen = args.profile.as_deref().map(parse_profile).transpose()?;
    let Some(path) = &args.snapshot else {
        let cfg = LoadBalancerConfig::for_profile(chosen.unwrap_or(Profile::Pulsar4x));
        let mut text = String::new();
        for (key, _) in LoadBalancerConfig::KEYS {
            text.push_str(&format!(
                "{key}={}\n",
                cfg.get_text(key).unwrap_or_default()
            ));
        }
        return crate::output::to_stdout(text.as_bytes());
    };
    let snapshot = load_snapshot(path)?;
    if args.check {
        return check(&snapshot, chosen);
    }
    let (detected, mixed) = detect_profile(&snapshot);
    let profile = chosen.unwrap_or(detected);
    let rows = setting_rows(&snapshot, Some(profile), &[]);
    let how = release_basis(&snapshot, chosen)
        .map(|b| b.why)
        .unwrap_or_else(|e| e.to_string());
    let mut text = format!(
        "# Effective load-balancing configuration of {} (profile {profile}, {})\n",
        escape_control(&path.display().to_string()),
        escape_control(&how)
    );
    if let (Some(w), None) = (mixed, chosen) {
        text.push_str(&format!("# warning: {}\n", escape_control(&w)));
    }
    let differing: Vec<_> = rows
        .iter()
        .filter(|r| r.effective != r.pulsar_default)
        .collect();
    if differing.is_empty() {
        text.push_str(&format!("# Every key has the {profile} default.\n"));
    } else {
        text.push_str(&format!(
            "# {} from the {profile} defaults:\n",
            match differing.len() {
                1 => "1 key differs".to_string(),
                n => format!("{n} keys differ"),
            }
        ));
        for r in &differing {
            text.push_str(&format!(
                "#   {}={}   (default: {})\n",
                r.key,
                escape_control(&r.effective),
                if r.pulsar_default.is_empty() {
                    "unset".into()
                } else {
                    escape_control(&r.pulsar_default)
                }
            ));
        }
    }
    // Keys the snapshot sets to the default value, or with a value the importer refused.
    for r in rows
        .iter()
        .filter(|r| r.source == ValueSource::SnapshotConf)
    {
        if r.effective == r.pulsar_default
            && snapshot.broker_conf.get(r.key).map(String::as_str) != Some(r.effective.as_str())
        {
            text.push_str(&format!(
                "# note: the snapshot's broker.conf sets {}={}, read as the default\n",
                r.key,
                escape_control(snapshot.broker_conf.get(r.key).map_or("", String::as_str))
            ));
        }
    }
    for r in &rows {
        text.push_str(&format!("{}={}\n", r.key, escape_control(&r.effective)));
    }
    crate::output::to_stdout(text.as_bytes())
}

/// `--check`: core's version-aware settings check, one finding a line.
fn check(snapshot: &lbplan_core::model::Snapshot, chosen: Option<Profile>) -> Result<(), CliError> {
    let c = check_settings(snapshot, chosen, &[]).map_err(|e| CliError::BadInput(e.to_string()))?;
    let mut text = format!(
        "Settings checked against {}\n",
        escape_control(&c.basis.line())
    );
    if c.findings.is_empty() {
        text.push_str(&format!(
            "No finding: Pulsar {} knows every key set and runs the configured strategies.\n",
            c.release
        ));
    }
    for f in &c.findings {
        text.push_str(&escape_control(&finding_line(f)));
        text.push('\n');
    }
    crate::output::to_stdout(text.as_bytes())?;
    if c.has_errors() {
        let n = c
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        return Err(CliError::Failed(format!(
            "settings check: {n} error(s) on Pulsar {}",
            c.release
        )));
    }
    Ok(())
}
