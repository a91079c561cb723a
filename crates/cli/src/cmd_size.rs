//! `lbplan size --namespace T/NS (--topics FILE | --topic-count N [--partitions P]) [--snapshot S |
//! --brokers B] [--bundles 4,16,32,64,128] [--format text|json]`: how a namespace's topics and load
//! would spread over bundles and brokers for several bundle counts.
//!
//! The counts are bounded before anything is allocated: a bundle count by the importer's cap on
//! bundles per namespace (2^20; Pulsar accepts up to 2^32), and the topic names a count generates
//! (`--topic-count` × `--partitions`) by [`MAX_TOPIC_NAMES`], since each is a string held in memory.

use std::path::PathBuf;

use lbplan_core::import::MAX_BUNDLES_PER_NAMESPACE;
use lbplan_core::naming::sizing::{
    DEFAULT_BUNDLE_COUNTS, SizingRow, size_namespace, synthetic_topics,
};
use lbplan_core::text::escape_lines;

use crate::exit::CliError;
use crate::input_files::read_text;
use crate::snapshot_input::load_snapshot;

/// Most topic names `--topic-count` (times `--partitions`) may generate: 2^20, as many as bundles
/// a namespace may have here, about 100 MiB of names.
pub const MAX_TOPIC_NAMES: u32 = 1 << 20;
const MAX_TOPIC_NAMES_ARG: i64 = MAX_TOPIC_NAMES as i64;
const MAX_BUNDLES_ARG: i64 = MAX_BUNDLES_PER_NAMESPACE as i64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(clap::Args)]
pub struct Args {
    /// The namespace, tenant/namespace.
    #[arg(long)]
    namespace: String,
    /// A topic list (`pulsar-admin topics list` output: one name per line, or a JSON array); `-`
    /// reads standard input.
    #[arg(long, conflicts_with = "topic_count")]
    topics: Option<PathBuf>,
    /// Size a namespace from a topic count instead (names `persistent://NS/topic-<i>`), 0 to
    /// 1048576 (2^20) names in all, partitions included.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_TOPIC_NAMES_ARG))]
    topic_count: Option<u32>,
    /// With --topic-count: partitions per topic (0 = non-partitioned), 0 to 1048576;
    /// --topic-count × --partitions is at most 1048576.
    #[arg(
        long,
        default_value_t = 0,
        value_parser = clap::value_parser!(u32).range(0..=MAX_TOPIC_NAMES_ARG)
    )]
    partitions: u32,
    /// Take the broker count (and the namespace's topic list, when exported) from a snapshot.
    #[arg(long)]
    snapshot: Option<PathBuf>,
    /// Number of brokers (default: the snapshot's, else 3).
    #[arg(long)]
    brokers: Option<usize>,
    /// Bundle counts to compare, comma separated, each 1 to 1048576 (2^20).
    #[arg(
        long,
        value_delimiter = ',',
        default_values_t = DEFAULT_BUNDLE_COUNTS.to_vec(),
        value_parser = clap::value_parser!(u32).range(1..=MAX_BUNDLES_ARG)
    )]
    bundles: Vec<u32>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

fn topics_from_file(path: &std::path::Path) -> Result<Vec<String>, CliError> {
    let text = read_text(path)?;
    if text.trim_start().starts_with('[') {
        return serde_json::from_str::<Vec<String>>(&text).map_err(|e| {
            CliError::BadInput(format!(
                "{}: expected a JSON array of topic names: {e}",
                path.display()
            ))
        });
    }
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

pub fn run(args: Args) -> Result<(), CliError> {
    let snapshot = args
        .snapshot
        .as_ref()
        .map(|p| load_snapshot(p))
        .transpose()?;
    let topics = match (&args.topics, args.topic_count) {
        (Some(file), _) => topics_from_file(file)?,
        (None, Some(n)) => {
            let names = u64::from(n) * u64::from(args.partitions.max(1));
            if names > u64::from(MAX_TOPIC_NAMES) {
                return Err(CliError::BadInput(format!(
                    "--topic-count {n} × --partitions {}: {names} topic names, more than \
                     {MAX_TOPIC_NAMES}",
                    args.partitions
                )));
            }
            synthetic_topics(&args.namespace, n as usize, args.partitions)
        }
        (None, None) => snapshot
            .as_ref()
            .and_then(|s| s.namespaces.get(&args.namespace))
            .and_then(|n| n.topics.clone())
            .ok_or_else(|| {
                CliError::BadInput(
                    "give --topics FILE or --topic-count N (or a --snapshot that carries the namespace's topic list)"
                        .to_string(),
                )
            })?,
    };
    let brokers = args
        .brokers
        .or_else(|| snapshot.as_ref().map(|s| s.brokers.len()))
        .unwrap_or(3);
    let rows = size_namespace(&args.namespace, &topics, None, brokers, &args.bundles)
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let text = match args.format {
        Format::Json => {
            let doc = serde_json::json!({ "format_version": 1, "namespace": args.namespace, "rows": rows });
            serde_json::to_string_pretty(&doc)
                .map_err(|e| CliError::Failed(format!("cannot serialise the rows: {e}")))?
                + "\n"
        }
        // The title quotes --namespace.
        Format::Text => escape_lines(&render(&args.namespace, &rows)).into_owned(),
    };
    crate::output::to_stdout(text.as_bytes())
}

fn render(namespace: &str, rows: &[SizingRow]) -> String {
    let mut out = String::new();
    if let Some(r) = rows.first() {
        out.push_str(&format!(
            "{namespace}: {} topics over {} brokers\n",
            r.topics, r.brokers
        ));
    }
    // Say what the table is before the reader guesses: each row is one bundle count, topics placed
    // by Pulsar's hash, every topic carrying the same load, bundles spread evenly over the brokers.
    out.push_str(
        "How the topics would spread for each bundle count (topics by Pulsar's CRC-32 hash, equal load per topic, bundles spread evenly; loads are shares of the namespace's load):\n",
    );
    out.push_str("bundles  empty  topics/bundle min..max (mean)  largest bundle  bundles/broker  busiest broker (worst)  even share\n");
    for r in rows {
        out.push_str(&format!(
            "{:>7}  {:>5}  {:>10}..{:<6} ({:>7.1})  {:>13.1}%  {:>9}..{:<4}  {:>21.1}%  {:>9.1}%\n",
            r.bundles,
            r.empty_bundles,
            r.min_topics_per_bundle,
            r.max_topics_per_bundle,
            r.mean_topics_per_bundle,
            r.largest_bundle_load_fraction * 100.0,
            r.min_bundles_per_broker,
            r.max_bundles_per_broker,
            r.worst_broker_load_fraction * 100.0,
            r.ideal_broker_load_fraction * 100.0
        ));
    }
    out
}
