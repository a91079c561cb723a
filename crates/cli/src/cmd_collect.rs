//! `lbplan collect --admin-url URL [--token-file F | --auth-header-file F] [--tls-trust-certs F]
//! [--namespace T/NS]... [--format dir|zip|json] [-o OUT]`: gathers a snapshot from a live cluster
//! through Pulsar's admin REST API into the importer's metadata-store layout, plus
//! `collect-report.json` listing what could not be fetched and why. See
//! `docs/collecting-snapshots.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::collect;
use collect::auth;
use collect::gather::{self, Options};
use collect::http::{Client, HttpOptions};
use collect::names::parse_namespace;
use collect::progress::Progress;
use collect::report;
use collect::writer;

use lbplan_core::import::{ImportInput, import};

use crate::cmd_import::write_snapshot;
use crate::connection_args::ConnectionArgs;
use crate::exit::CliError;
use crate::input_files::print_warnings;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A directory tree (the metadata-store layout `lbplan import` reads).
    Dir,
    /// The same tree as one .zip file.
    Zip,
    /// One snapshot JSON, through the importer.
    Json,
}

/// What one collection needs, shared by `lbplan collect` and `lbplan watch` (one
/// `#[command(flatten)]` struct, so both follow the same connection and credential rules).
#[derive(clap::Args)]
pub struct CollectArgs {
    #[command(flatten)]
    pub connection: ConnectionArgs,
    /// Collect only this namespace (repeatable); default: every tenant's namespaces.
    #[arg(long = "namespace", value_name = "TENANT/NS")]
    pub namespaces: Vec<String>,
    /// The cluster to collect (default: `clusterName` of the broker behind --admin-url).
    #[arg(long, value_name = "NAME")]
    pub cluster: Option<String>,
    /// Requests in flight at once (1 to 16).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=16))]
    pub concurrency: u16,
    /// Seconds one attempt of a request may take (connect, headers and body).
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Attempts per request; connect errors, 5xx and 429 are retried.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=10))]
    pub attempts: u32,
    /// Wait before the first retry, doubled for each further one (capped at 30 s).
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub backoff_ms: u64,
    /// No progress lines on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// A connected collector: the client, the credential's redactor, progress lines and the
/// gathering options.
pub(crate) struct Session {
    pub(crate) client: Client,
    pub(crate) redactor: auth::Redactor,
    pub(crate) progress: Progress,
    pub(crate) opts: Options,
}

impl CollectArgs {
    /// Checks the arguments, then `before_connect` (the caller's own checks), then connects
    /// (reads the credential and trusted certificates).
    pub(crate) fn session(
        &self,
        before_connect: impl FnOnce() -> Result<(), CliError>,
    ) -> Result<Session, CliError> {
        let endpoint = self.connection.endpoint()?;
        let (base, scheme) = (endpoint.base.clone(), endpoint.scheme.clone());
        for ns in &self.namespaces {
            if parse_namespace(ns).is_none() {
                return Err(CliError::BadInput(format!(
                    "--namespace `{ns}`: expected TENANT/NAMESPACE"
                )));
            }
        }
        let timeout = Duration::try_from_secs_f64(self.timeout)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| {
                CliError::BadInput("--timeout: expected a positive number of seconds".into())
            })?;
        before_connect()?;
        let connection = self.connection.connect(
            &endpoint,
            HttpOptions {
                timeout,
                attempts: self.attempts,
                backoff: Duration::from_millis(self.backoff_ms),
            },
        )?;
        let (client, redactor, source) =
            (connection.client, connection.redactor, connection.source);
        let progress = Progress::new(!self.quiet, redactor.clone());
        progress.note(&format!("collecting from {base} (credential: {})", source));
        let opts = Options {
            admin_base: base,
            broker_scheme: scheme,
            namespaces: self.namespaces.clone(),
            cluster: self.cluster.clone(),
            concurrency: usize::from(self.concurrency),
            credential: source,
            credential_to_brokers: self.connection.send_credential_to_brokers,
        };
        Ok(Session {
            client,
            redactor,
            progress,
            opts,
        })
    }
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    collect: CollectArgs,
    #[arg(long, value_enum, default_value = "dir")]
    format: Format,
    /// Output directory or file (default: pulsar-snapshot, pulsar-snapshot.zip, or stdout for json).
    #[arg(short = 'o', long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// With --format zip: replace an existing file at -o (refused otherwise).
    #[arg(long)]
    force: bool,
    /// Record a series (docs/history.md): collect every INTERVAL (`60s`, `5m`, `1h`) and append
    /// each snapshot to the series directory -o (default pulsar-series), each committed on its
    /// own so an interrupted recording keeps what it recorded; a failed round is skipped and
    /// reported. Stops after --count rounds, after --for, or after --max-failures failed rounds in
    /// a row, whichever comes first.
    #[arg(long, value_name = "INTERVAL", value_parser = parse_duration)]
    every: Option<Duration>,
    /// With --every: how many rounds to run, 1 to 1000000 (each records one snapshot, or is
    /// skipped and reported when its collection fails).
    #[arg(long, value_name = "N", requires = "every",
          value_parser = clap::value_parser!(u64).range(1..=MAX_COUNT))]
    count: Option<u64>,
    /// With --every: stop (exit 1) after N rounds in a row that recorded nothing, 1 to 1000000.
    #[arg(long, value_name = "N", requires = "every", default_value_t = DEFAULT_MAX_FAILURES,
          value_parser = clap::value_parser!(u32).range(1..=MAX_FAILURES_CAP))]
    max_failures: u32,
    /// With --every: how long to record (`2h`, `90m`).
    #[arg(long = "for", value_name = "DURATION", requires = "every", value_parser = parse_duration)]
    for_duration: Option<Duration>,
    /// A series built from Prometheus instead (`--prometheus URL --from T1 --to T2 [--step 60s]
    /// -o DIR`): one snapshot per step written as a stored series (docs/history.md).
    #[command(flatten)]
    prometheus: crate::prometheus::PromArgs,
}

/// The most rounds `--count` asks for (a year of one-minute rounds is 525,600).
pub const MAX_COUNT: u64 = 1_000_000;
/// Failed rounds in a row after which a recording stops, unless `--max-failures` says otherwise.
pub const DEFAULT_MAX_FAILURES: u32 = 10;
const MAX_FAILURES_CAP: i64 = 1_000_000;
/// Reasons of skipped rounds kept for the closing summary (every one is reported as it happens).
const KEPT_REASONS: usize = 5;

/// `90`, `90s`, `5m`, `2h`, `7d` → a duration (at least one second).
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}`: expected a number with s, m, h or d (60s, 5m, 2h, 7d)"))?;
    let secs = match unit {
        "s" => Some(n),
        "m" => n.checked_mul(60),
        "h" => n.checked_mul(3600),
        "d" => n.checked_mul(86_400),
        _ => None,
    }
    .filter(|s| *s >= 1)
    .ok_or_else(|| {
        format!("`{text}`: expected a number with s, m, h or d (60s, 5m, 2h, 7d), at least 1s")
    })?;
    Ok(Duration::from_secs(secs))
}

/// The collected tree through the importer (its warnings to stderr unless `quiet`).
pub(crate) fn import_collected(
    files: &BTreeMap<String, Vec<u8>>,
    quiet: bool,
) -> Result<lbplan_core::model::Snapshot, CliError> {
    let inputs: Vec<ImportInput<'_>> = files
        .iter()
        .map(|(name, bytes)| ImportInput::in_tree(name.as_str(), bytes.as_slice()))
        .collect();
    let imported = import(&inputs).map_err(|e| {
        CliError::Failed(format!(
            "the collected data does not import: {e} (collect with --format dir to inspect it)"
        ))
    })?;
    if !quiet {
        print_warnings(&imported.warnings);
    }
    Ok(imported.snapshot)
}

/// `--format json`: the collected tree (report included, so its gaps become warnings) through the
/// importer, written as one snapshot JSON; the import's warnings go to stderr unless `quiet`.
fn write_json(
    files: &BTreeMap<String, Vec<u8>>,
    output: Option<&Path>,
    quiet: bool,
) -> Result<(), CliError> {
    write_snapshot(&import_collected(files, quiet)?, output)
}

/// One collection's files (report included, credential redacted), whether any request
/// succeeded, and how many items could not be fetched.
pub(crate) struct Gathered {
    pub(crate) files: BTreeMap<String, Vec<u8>>,
    pub(crate) any_success: bool,
    pub(crate) missing: usize,
}

/// One collection: the metadata-store files (report included, credential redacted), whether any
/// request succeeded, and how many items could not be fetched.
pub(crate) fn collect_once(
    client: &Client,
    progress: &Progress,
    opts: &Options,
    redactor: &auth::Redactor,
) -> Result<Gathered, CliError> {
    let gathered = gather::run(client, progress, opts);
    let mut files = gathered.files;
    let mut scrubbed = Vec::new();
    for (path, bytes) in files.iter_mut() {
        if redactor.bytes(bytes) {
            scrubbed.push(path.clone());
        }
    }
    let mut rep = gathered.report;
    for p in scrubbed {
        rep.notes.push(format!(
            "{p}: the credential appeared in the answer and was redacted"
        ));
    }
    let missing = rep
        .missing
        .iter()
        .filter(|m| m.reason != "not_exposed_by_rest_api")
        .count();
    let report_text = serde_json::to_string_pretty(&rep)
        .map_err(|e| CliError::Failed(format!("cannot serialise the report: {e}")))?;
    files.insert(
        report::FILE_NAME.to_string(),
        redactor.text(&report_text).into_bytes(),
    );
    Ok(Gathered {
        files,
        any_success: gathered.any_success,
        missing,
    })
}

/// One round of a recording: collected, imported and appended (the bytes written), or why not.
fn record_round(
    args: &Args,
    series: &mut crate::series_store::SeriesWriter,
    client: &Client,
    progress: &Progress,
    opts: &Options,
    redactor: &auth::Redactor,
) -> Result<(u64, usize), String> {
    let Gathered {
        files,
        any_success,
        missing,
    } = collect_once(client, progress, opts, redactor).map_err(|e| e.to_string())?;
    if !any_success {
        return Err("no request succeeded".to_string());
    }
    let mut snapshot = import_collected(&files, args.collect.quiet).map_err(|e| e.to_string())?;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    // The series orders snapshots by when they were collected.
    snapshot.captured_at_ms = Some(now_ms);
    let bytes = series.append(&snapshot).map_err(|e| {
        // The round's files are not in the series; the next round starts clean.
        series.abandon();
        e.to_string()
    })?;
    Ok((bytes, missing))
}

/// `--every`: collections appended to the series in `dir`, each stamped with the time it ended.
/// A round that fails (nothing answered, the answers do not import, the disk refused the write) is
/// skipped and reported, and the recording goes on; `--max-failures` failed rounds in a row stop it.
#[allow(clippy::too_many_arguments)]
fn record_series(
    args: &Args,
    every: Duration,
    dir: &Path,
    client: &Client,
    progress: &Progress,
    opts: &Options,
    redactor: &auth::Redactor,
) -> Result<(), CliError> {
    let mut series = crate::series_store::SeriesWriter::open(dir, 1)?;
    let start = std::time::Instant::now();
    let mut recorded = 0u64;
    let mut skipped = 0u64;
    let mut failures_in_a_row = 0u32;
    let mut reasons: Vec<String> = Vec::new();
    let mut round = 0u32;
    let mut moved_noted = false;
    let stopped = loop {
        round = round.saturating_add(1);
        match record_round(args, &mut series, client, progress, opts, redactor) {
            Ok((bytes, missing)) => {
                recorded += 1;
                failures_in_a_row = 0;
                progress.note(&format!(
                    "round {round}: snapshot {recorded} appended to {} ({bytes} bytes new; \
                     {missing} item(s) could not be fetched)",
                    dir.display()
                ));
            }
            Err(why) => {
                skipped += 1;
                failures_in_a_row += 1;
                progress.note(&format!("round {round} skipped: {why}"));
                if reasons.len() < KEPT_REASONS {
                    reasons.push(format!("round {round}: {why}"));
                }
            }
        }
        if !moved_noted && !series.still_at(dir) {
            moved_noted = true;
            progress.note(&format!(
                "{} no longer names the series directory opened at the start (it was moved or \
                 replaced); the recording goes on into the directory opened at the start",
                dir.display()
            ));
        }
        if failures_in_a_row >= args.max_failures {
            break true;
        }
        if args.count.is_some_and(|n| u64::from(round) >= n) {
            break false;
        }
        let next = every.saturating_mul(round);
        if args.for_duration.is_some_and(|d| next >= d) {
            break false;
        }
        if let Some(wait) = next.checked_sub(start.elapsed()) {
            std::thread::sleep(wait);
        }
    };
    series.finish()?;
    let summary = format!(
        "{recorded} snapshot(s) recorded in {round} round(s), {skipped} skipped{}",
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join("; "))
        }
    );
    if stopped {
        return Err(CliError::Failed(format!(
            "stopped after {} failed rounds in a row (--max-failures): {summary}",
            args.max_failures
        )));
    }
    if recorded == 0 {
        return Err(CliError::Failed(format!(
            "no snapshot recorded from {}: {summary}",
            args.collect
                .connection
                .admin_url
                .as_deref()
                .unwrap_or_default()
        )));
    }
    progress.note(&summary);
    Ok(())
}

pub fn run(args: Args) -> Result<(), CliError> {
    if args.prometheus.prometheus.is_some() {
        if args.collect.connection.admin_url.is_some() || args.every.is_some() {
            return Err(CliError::BadInput(
                "--prometheus builds a series from Prometheus: without --admin-url or --every"
                    .into(),
            ));
        }
        let out = args
            .output
            .clone()
            .unwrap_or_else(|| PathBuf::from("pulsar-series"));
        return crate::prometheus::collect_series(&args.prometheus, &out, args.collect.quiet);
    }
    let out = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(match args.format {
            Format::Zip => "pulsar-snapshot.zip",
            _ => "pulsar-snapshot",
        })
    });
    let Session {
        client,
        redactor,
        progress,
        opts,
    } = args.collect.session(|| {
        match args.format {
            _ if args.every.is_some() => {}
            Format::Dir => writer::check_dir_target(&out).map_err(CliError::BadInput)?,
            Format::Zip => {
                writer::check_file_target(&out, args.force).map_err(CliError::BadInput)?;
            }
            Format::Json => {}
        }
        Ok(())
    })?;
    if let Some(every) = args.every {
        let dir = args
            .output
            .clone()
            .unwrap_or_else(|| PathBuf::from("pulsar-series"));
        return record_series(&args, every, &dir, &client, &progress, &opts, &redactor);
    }
    let gathered = collect_once(&client, &progress, &opts, &redactor)?;
    let (files, missing) = (&gathered.files, gathered.missing);

    let written = match args.format {
        Format::Dir => writer::write_dir(&out, files).map(|()| out.display().to_string()),
        Format::Zip => writer::zip_bytes(files)
            .and_then(|b| writer::write_file(&out, &b, args.force))
            .map(|()| out.display().to_string()),
        Format::Json => {
            // Nothing can be imported when no request succeeded; that failure is reported below.
            if gathered.any_success {
                write_json(files, args.output.as_deref(), args.collect.quiet)?;
            }
            Ok(args.output.as_ref().map_or_else(
                || "the snapshot to stdout".to_string(),
                |p| p.display().to_string(),
            ))
        }
    }
    .map_err(CliError::Failed)?;

    let listed = if args.format == Format::Json {
        "listed as collect_gap warnings".to_string()
    } else {
        format!("see {} in it", report::FILE_NAME)
    };
    progress.note(&format!(
        "wrote {written} ({} files collected); {missing} item(s) could not be fetched, {listed}",
        files.len(),
    ));
    if !gathered.any_success {
        return Err(CliError::Failed(format!(
            "no request to {} succeeded; {} lists why",
            args.collect
                .connection
                .admin_url
                .as_deref()
                .unwrap_or_default(),
            report::FILE_NAME
        )));
    }
    Ok(())
}
