//! `--prometheus URL --from T1 --to T2 [--step 60s]`: a history built from the brokers' metrics as
//! a Prometheus kept them, instead of a recorded series. The range is queried a window of steps
//! at a time (far under Prometheus' 11,000 points per series per query), each window's snapshots
//! built by core (`history::prometheus`) and explained before the next window is asked for, so
//! memory is one window's answers plus the index. See `docs/history.md`, "From Prometheus".

mod query;
pub mod time_arg;

use std::path::PathBuf;
use std::time::Duration;

use lbplan_core::history::ExplainOptions;
use lbplan_core::history::HistoryReport;
use lbplan_core::history::prometheus::{BrokerMapping, PromHistory, RangeLimits, Window, names};
use lbplan_core::model::Snapshot;

use crate::exit::CliError;

/// Steps per query window: 60 one-minute steps of 10,000 bundles' 7 metrics is 4.2 million
/// points, the most one window holds.
const WINDOW_STEPS: i64 = 60;
/// The longest range: a year of one-minute steps.
const MAX_STEPS: i64 = 366 * 24 * 60;

#[derive(clap::Args, Clone, Debug)]
pub struct PromArgs {
    /// Build the series from this Prometheus (its HTTP API, e.g. http://prometheus:9090) instead
    /// of a recorded series.
    #[arg(long, value_name = "URL")]
    pub prometheus: Option<String>,
    /// Start of the range: RFC 3339 (2026-12-07T01:00:00Z) or Unix seconds.
    #[arg(long, value_name = "TIME", requires = "prometheus")]
    pub from: Option<String>,
    /// End of the range (inclusive).
    #[arg(long, value_name = "TIME", requires = "prometheus")]
    pub to: Option<String>,
    /// One snapshot per step (the leader sheds every loadBalancerSheddingIntervalMinutes, 1 m).
    #[arg(long, value_name = "DURATION", default_value = "60s")]
    pub step: String,
    /// A snapshot of the cluster (e.g. one `lbplan collect`, near --from): namespaces' bundle
    /// boundaries, broker.conf, policies, brokers' limits and versions, the leader's BundleData at
    /// the start. Without it: boundaries from the bundle metrics or the default bundle count.
    #[arg(long, value_name = "SNAPSHOT", requires = "prometheus")]
    pub layout: Option<PathBuf>,
    /// The label whose value names the broker that exposed a series.
    #[arg(long, value_name = "LABEL", default_value = "instance")]
    pub broker_label: String,
    /// A label value and the brokerId it stands for (repeatable), e.g. 10.0.0.7:8080=broker-1:8080.
    #[arg(long = "broker-map", value_name = "VALUE=BROKER_ID")]
    pub broker_map: Vec<String>,
    /// File holding a token sent to Prometheus as `Authorization: Bearer …` (its origin only).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "prometheus_auth_header_file"
    )]
    pub prometheus_token_file: Option<PathBuf>,
    /// File holding one header line for Prometheus (`Authorization: Basic …`).
    #[arg(long, value_name = "FILE")]
    pub prometheus_auth_header_file: Option<PathBuf>,
    /// Seconds one query may take.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub query_timeout: f64,
    /// Most series one answer may hold.
    #[arg(long, value_name = "N", default_value_t = 200_000)]
    pub max_series: usize,
    /// Most MiB one answer may hold.
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    pub max_answer_mib: u64,
}

/// The range to query, checked.
struct Range {
    from_ms: i64,
    step_ms: i64,
    steps: i64,
}

fn range(args: &PromArgs) -> Result<Range, CliError> {
    let need = |v: &Option<String>, flag: &str| {
        v.clone()
            .ok_or_else(|| CliError::BadInput(format!("--prometheus needs {flag}")))
    };
    let from_ms = time_arg::parse_time(&need(&args.from, "--from")?)
        .map_err(|e| CliError::BadInput(format!("--from {e}")))?;
    let to_ms = time_arg::parse_time(&need(&args.to, "--to")?)
        .map_err(|e| CliError::BadInput(format!("--to {e}")))?;
    let step_ms =
        time_arg::parse_step(&args.step).map_err(|e| CliError::BadInput(format!("--step {e}")))?;
    if to_ms <= from_ms {
        return Err(CliError::BadInput(
            "--to must be after --from (a history compares two steps or more)".into(),
        ));
    }
    let steps = (to_ms - from_ms) / step_ms + 1;
    if steps > MAX_STEPS {
        return Err(CliError::BadInput(format!(
            "--from to --to is {steps} steps of --step, more than {MAX_STEPS}: a longer step"
        )));
    }
    Ok(Range {
        from_ms,
        step_ms,
        steps,
    })
}

fn mapping(args: &PromArgs, layout: Option<&Snapshot>) -> Result<BrokerMapping, CliError> {
    let mut explicit = std::collections::BTreeMap::new();
    for item in &args.broker_map {
        let (value, id) = lbplan_core::history::prometheus::mapping::parse_pair(item)
            .map_err(|e| CliError::BadInput(format!("--broker-map {e}")))?;
        explicit.insert(value, id);
    }
    Ok(BrokerMapping::new(
        Some(args.broker_label.clone()),
        explicit,
        layout,
    ))
}

/// Queries the range window by window, showing each built snapshot to `seen`, and explains it.
pub fn explain(
    args: &PromArgs,
    opts: &ExplainOptions,
    seen: &mut dyn FnMut(&Snapshot) -> Result<(), CliError>,
) -> Result<HistoryReport, CliError> {
    Ok(run(args, Some(opts), seen)?.finish())
}

/// `collect --prometheus … -o DIR`: the built snapshots appended to a stored series (the same
/// writer as `collect --every`), committed 64 at a time; the gaps reported on stderr.
pub fn collect_series(args: &PromArgs, dir: &std::path::Path, quiet: bool) -> Result<(), CliError> {
    crate::series_store::check_series_dir(dir)?;
    let mut writer =
        crate::series_store::SeriesWriter::open(dir, crate::series_store::RECORD_BATCH)?;
    let built = run(args, None, &mut |s| writer.append(s).map(drop))?;
    writer.finish()?;
    let basis = built.basis();
    if !quiet {
        crate::output::message(
            "",
            &format!(
                "wrote {} snapshots of {} steps to {} ({} gaps left out)",
                basis.steps_queried - basis.gaps.len().min(basis.steps_queried),
                basis.steps_queried,
                dir.display(),
                basis.gaps.len()
            ),
        );
    }
    for g in &basis.gaps {
        crate::output::message(
            "gap: ",
            &format!(
                "{} ms: {} missing {}",
                g.at_ms,
                g.broker,
                g.missing.join(", ")
            ),
        );
    }
    Ok(())
}

/// Queries and builds (and explains, given `opts`) the whole range.
fn run(
    args: &PromArgs,
    opts: Option<&ExplainOptions>,
    seen: &mut dyn FnMut(&Snapshot) -> Result<(), CliError>,
) -> Result<PromHistory, CliError> {
    let Some(url) = &args.prometheus else {
        return Err(CliError::BadInput("--prometheus URL is needed".into()));
    };
    let r = range(args)?;
    let layout = match &args.layout {
        Some(p) => Some(crate::snapshot_input::load_snapshot(p)?),
        None => None,
    };
    let mapping = mapping(args, layout.as_ref())?;
    let timeout = Duration::try_from_secs_f64(args.query_timeout)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            CliError::BadInput("--query-timeout: expected a positive number of seconds".into())
        })?;
    let (credential, _) = crate::collect::auth::load(
        args.prometheus_token_file.as_deref(),
        args.prometheus_auth_header_file.as_deref(),
        None,
    )
    .map_err(CliError::BadInput)?;
    let prom = query::Prometheus::new(
        url,
        credential,
        timeout,
        args.max_answer_mib.saturating_mul(1024 * 1024),
        RangeLimits {
            max_series: args.max_series,
            ..RangeLimits::default()
        },
    )?;
    let mut history = match opts {
        Some(o) => PromHistory::new(layout, mapping, o.clone()),
        None => PromHistory::build_only(layout, mapping),
    };
    let mut bundle_metrics_seen = false;
    let mut first = 0;
    let mut failure = None;
    while first < r.steps {
        let steps = WINDOW_STEPS.min(r.steps - first);
        let start_ms = r.from_ms + first * r.step_ms;
        let end_ms = start_ms + (steps - 1) * r.step_ms;
        let mut results: Vec<(&str, Vec<_>)> = Vec::new();
        for name in names::all() {
            // Topic metrics only stand in for bundle metrics a cluster does not expose.
            if bundle_metrics_seen && names::TOPIC.contains(&name) {
                continue;
            }
            let series = prom.range(name, start_ms, end_ms, r.step_ms)?;
            if names::BUNDLE.contains(&name) && !series.is_empty() {
                bundle_metrics_seen = true;
            }
            results.push((name, series));
        }
        let window = Window {
            start_ms,
            step_ms: r.step_ms,
            steps: usize::try_from(steps).unwrap_or(0),
        };
        history
            .push_window(window, &results, &mut |s| {
                if failure.is_none()
                    && let Err(e) = seen(s)
                {
                    failure = Some(e);
                }
            })
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        if let Some(e) = failure.take() {
            return Err(e);
        }
        first += steps;
    }
    if history.snapshots() == 0 {
        return Err(CliError::Failed(format!(
            "Prometheus at {url} has none of the load manager's metrics ({}…) from --from to --to \
             (or every step is a gap): nothing to explain",
            names::USAGE[0]
        )));
    }
    Ok(history)
}
