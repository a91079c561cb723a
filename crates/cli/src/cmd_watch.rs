//! `lbplan watch --admin-url URL [connection flags] [--every 60s] [--series DIR] [--keep 7d]
//! [--history-window 6h] [--metrics-listen 127.0.0.1:9464] [--profile P] [--set K=V]...`: one
//! long-running process per cluster. Every round it collects a snapshot with `collect`'s code and
//! flags, stores it in a series with bounded retention, plans the leader's next cycle on it,
//! pushes it to the history kept live, and serves all of it as Prometheus metrics. Rounds start
//! on a fixed schedule (every `--every` since the start; one that overran skips to the next slot). A round that
//! fails is counted and the watch goes on; SIGTERM (or Ctrl-C) ends it after the round in
//! progress, with exit 0; a restart continues the series. See `docs/watch.md`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lbplan_core::history::ExplainOptions;
use lbplan_core::watch::live::LiveHistory;
use lbplan_core::watch::next_cycle::NextCycleOptions;

use crate::apply_signal;
use crate::cmd_collect::{
    CollectArgs, Gathered, Session, collect_once, import_collected, parse_duration,
};
use crate::exit::CliError;
use crate::option_args::{parse_optional_profile, parse_settings};
use crate::series_store::SeriesWriter;
use crate::watch::listen::{self, DEFAULT_LISTEN};
use crate::watch::server::{self, Served, now_ms};
use crate::watch::state::{RoundError, Watcher};

/// Parts of deleted snapshots are swept at most this often (a sweep reads every manifest).
const SWEEP_EVERY: Duration = Duration::from_secs(3600);

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    collect: CollectArgs,
    /// Collect every INTERVAL (`30s`, `1m`, `5m`).
    #[arg(long, value_name = "INTERVAL", default_value = "60s", value_parser = parse_duration)]
    every: Duration,
    /// The series directory (created, or continued after a restart).
    #[arg(long, value_name = "DIR", default_value = "pulsar-watch")]
    series: PathBuf,
    /// Keep the snapshots of the last DURATION (`7d`, `36h`); older ones are deleted.
    #[arg(long, value_name = "DURATION", default_value = "7d", value_parser = parse_duration)]
    keep: Duration,
    /// The history explained live covers the last DURATION (at least 2h: a ping-pong in the last
    /// hour may have started an hour before).
    #[arg(long, value_name = "DURATION", default_value = "6h", value_parser = parse_duration)]
    history_window: Duration,
    /// Serve Prometheus metrics at http://ADDR/metrics (a loopback address unless
    /// --metrics-allow-remote).
    #[arg(long, value_name = "IP:PORT", default_value = DEFAULT_LISTEN)]
    metrics_listen: String,
    /// Allow --metrics-listen on a non-loopback address (the endpoint has no authentication).
    #[arg(long)]
    metrics_allow_remote: bool,
    /// The Pulsar release (as `lbplan plan --profile`); default: the leader's brokerVersionString.
    #[arg(long)]
    profile: Option<String>,
    /// A broker.conf override for the planned leader, KEY=VALUE (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// Seed of the planned leader's random picks (as `lbplan plan --seed`).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Also serve the built dashboard (`trunk build`'s dist/ directory) on the metrics listener:
    /// `/` opens it on the watched cluster's latest snapshot (`/watch/latest.json`, same origin)
    /// and the page follows the watch (`/watch/status.json`); `/watch/history.json` is the live
    /// history's report, `/watch/history-view.json` its History view.
    #[arg(long, value_name = "DIST_DIR")]
    serve: Option<PathBuf>,
    /// Stop after N rounds (default: run until SIGTERM or Ctrl-C).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    count: Option<u64>,
}

/// `6h`, `90m`, `45s`: a duration as the flags spell it.
fn humanize(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        _ if s.is_multiple_of(3600) => format!("{}h", s / 3600),
        _ if s.is_multiple_of(60) => format!("{}m", s / 60),
        _ => format!("{s}s"),
    }
}

/// The wait until the next multiple of `every` since the start: a round that overran its
/// interval is followed by the next slot, not by rounds in a burst catching up.
fn until_next_slot(elapsed: Duration, every: Duration) -> Duration {
    let every_ms = every.as_millis().max(1);
    let slots = elapsed.as_millis() / every_ms + 1;
    let next = Duration::from_millis(u64::try_from(slots * every_ms).unwrap_or(u64::MAX));
    next.saturating_sub(elapsed)
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

pub fn run(args: Args) -> Result<(), CliError> {
    let (addr, warning) = listen::check(&args.metrics_listen, args.metrics_allow_remote)?;
    let profile = parse_optional_profile(args.profile.as_deref())?;
    let settings = parse_settings(&args.settings)?;
    crate::series_store::check_series_dir(&args.series)?;
    let Session {
        client,
        redactor,
        progress,
        opts,
    } = args.collect.session(|| Ok(()))?;
    let series = SeriesWriter::open(&args.series, 1)?;
    let stored = series.manifest_count()?;
    let dist = match &args.serve {
        Some(d) => Some(
            d.canonicalize()
                .ok()
                .filter(|c| c.join("index.html").is_file())
                .ok_or_else(|| {
                    CliError::BadInput(format!(
                        "--serve {}: not a built dashboard (no index.html; `trunk build \
                         --release` writes dist/)",
                        d.display()
                    ))
                })?,
        ),
        None => None,
    };
    let shared = Arc::new(Served {
        dist,
        interval_ms: u64::try_from(args.every.as_millis()).unwrap_or(u64::MAX),
        ..Served::default()
    });
    let bound = server::start(addr, shared.clone())
        .map_err(|e| CliError::Failed(format!("--metrics-listen {addr}: {e}")))?;
    if let Some(w) = warning {
        crate::output::message("lbplan: warning: ", &w);
    }
    progress.note(&format!(
        "metrics at http://{bound}/metrics; series {} ({stored} snapshot(s) already)",
        args.series.display()
    ));
    if args.serve.is_some() {
        progress.note(&format!("dashboard at http://{bound}/"));
    }
    let mut watcher = Watcher {
        shared,
        history: LiveHistory::new(
            ExplainOptions {
                profile,
                settings: settings.clone(),
                seed: lbplan_core::simulate::DEFAULT_SEED,
                load_model: lbplan_core::load::LoadModel::default(),
            },
            millis(args.history_window),
        ),
        plan_opts: NextCycleOptions {
            profile,
            settings,
            seed: args.seed,
        },
        series,
        stored,
    };
    // A restart carries on: the live history is primed with the stored window.
    let mut latest = None;
    let since = now_ms().saturating_sub(millis(args.history_window));
    let primed = crate::series_store::read_stored_since(&args.series, since, &mut |s| {
        if watcher.history.push(s.clone()).is_ok() {
            latest = Some(s);
        }
    });
    match primed {
        Ok(0) => {}
        Ok(n) => progress.note(&format!(
            "the live history resumes with the {n} stored snapshot(s) of the last {}",
            humanize(args.history_window)
        )),
        Err(e) => progress.note(&format!(
            "the live history starts empty: the stored series could not be read back: {e}"
        )),
    }
    if let Some(latest) = latest {
        watcher.resume_from(latest);
    }
    apply_signal::install();
    let keep_ms = millis(args.keep);
    let start = Instant::now();
    // A sweep at the start removes what an interrupted one left.
    let mut last_sweep: Option<Instant> = None;
    let mut round = 0u64;
    loop {
        round += 1;
        let note = match collect_once(&client, &progress, &opts, &redactor) {
            Err(e) => {
                watcher.failed_round(RoundError::Unreachable);
                format!("no snapshot: {e}")
            }
            Ok(Gathered {
                any_success: false, ..
            }) => {
                watcher.failed_round(RoundError::Unreachable);
                "no snapshot: no request succeeded".to_string()
            }
            Ok(g) => match import_collected(&g.files, args.collect.quiet) {
                Err(e) => {
                    watcher.failed_round(RoundError::Import);
                    format!("no snapshot: {e}")
                }
                Ok(mut snapshot) => {
                    // The series orders snapshots by when they were collected.
                    snapshot.captured_at_ms = Some(now_ms());
                    watcher.good_round(snapshot).0
                }
            },
        };
        progress.note(&format!("round {round}: {note}"));
        let sweep = last_sweep.is_none_or(|t| t.elapsed() >= SWEEP_EVERY.min(args.keep / 4));
        match watcher.retain(now_ms().saturating_sub(keep_ms), sweep) {
            Ok(done) => {
                if sweep {
                    last_sweep = Some(Instant::now());
                    progress.note(&done);
                }
            }
            Err(e) => progress.note(&format!("retention skipped this round: {e}")),
        }
        if apply_signal::interrupted() || args.count.is_some_and(|n| round >= n) {
            break;
        }
        if !apply_signal::sleep(until_next_slot(start.elapsed(), args.every)) {
            break;
        }
    }
    watcher.series.finish()?;
    progress.note(&format!(
        "stopped after {round} round(s); the series in {} is complete",
        args.series.display()
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_keep_to_their_slots_and_an_overrun_skips_to_the_next() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        assert_eq!(until_next_slot(ms(200), s(60)), ms(59_800));
        assert_eq!(until_next_slot(s(61), s(60)), s(59));
        // A round that took two and a half intervals waits for the third slot.
        assert_eq!(until_next_slot(ms(150_000), s(60)), s(30));
        assert_eq!(until_next_slot(s(120), s(60)), s(60));
    }
}
