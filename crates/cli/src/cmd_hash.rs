//! `lbplan hash --namespace NS (--bundles N | --boundaries FILE) TOPIC...`: each topic's complete
//! name, CRC-32 (hex and decimal) and bundle, as Pulsar's `ConsistentHashingTopicBundleAssigner`
//! computes them. `lbplan hash --snapshot S TOPIC...` answers "who owns this topic": the bundle from
//! the snapshot's layout of each topic's namespace, the broker owning it and the bundle's load
//! (core's `load::locate`). FILE is a `BundlesData` JSON (`pulsar-admin namespaces bundles`), a JSON list of
//! boundaries, or boundaries separated by spaces, commas or newlines. A namespace has at most
//! [`MAX_BUNDLES_PER_NAMESPACE`] bundles here, the importer's cap: Pulsar itself accepts up to 2^32,
//! which would be 16 GiB of boundaries.

use std::path::{Path, PathBuf};

use lbplan_core::import::MAX_BUNDLES_PER_NAMESPACE;
use lbplan_core::load::locate::{TopicLocation, locate_topic};
use lbplan_core::model::BundlesData;
use lbplan_core::naming::{NamespaceBundles, NamespaceName, TopicName, parse_hex_boundary};
use lbplan_core::plan::summary::{count, rate};
use lbplan_core::text::escape_control;
use serde_json::Value;

use crate::exit::CliError;
use crate::input_files::read_text;
use crate::snapshot_input::load_snapshot;

/// `--bundles`' upper bound, as clap's range wants it.
const MAX_BUNDLES_ARG: i64 = MAX_BUNDLES_PER_NAMESPACE as i64;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("layout").required(true).args(["bundles", "boundaries", "snapshot"])))]
pub struct Args {
    /// The namespace, `tenant/namespace` (with --snapshot: each topic's own namespace, so bare names
    /// need none; given, it is the namespace of bare names).
    #[arg(long, required_unless_present = "snapshot")]
    namespace: Option<String>,
    /// A snapshot (or anything the importer reads): print each topic's bundle in the snapshot's layout,
    /// its owner broker and the bundle's load.
    #[arg(long, conflicts_with_all = ["bundles", "boundaries"])]
    snapshot: Option<PathBuf>,
    /// The namespace has N bundles of the default partition (`PoliciesUtil.getBundles(N)`), N from 1
    /// to 1048576 (2^20, the importer's cap on bundles per namespace).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_BUNDLES_ARG))]
    bundles: Option<u32>,
    /// The namespace's boundaries: `BundlesData` JSON or a plain list of boundaries (`-` reads
    /// standard input); at most 1048577 boundaries.
    #[arg(long)]
    boundaries: Option<PathBuf>,
    /// Topic names in any form Pulsar accepts (`my-topic`, `tenant/ns/topic`, `persistent://…`).
    #[arg(required = true)]
    topics: Vec<String>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    if let Some(path) = &args.snapshot {
        return run_snapshot(path, args.namespace.as_deref(), &args.topics);
    }
    let namespace_arg = args.namespace.as_deref().unwrap_or_default();
    let namespace = NamespaceName::parse(namespace_arg)
        .map_err(|e| CliError::BadInput(format!("--namespace: {e}")))?;
    let layout = match (args.bundles, &args.boundaries) {
        (Some(n), _) => NamespaceBundles::with_default_partition(namespace.as_str(), n)
            .map_err(|e| CliError::BadInput(format!("--bundles: {e}")))?,
        (None, Some(path)) => read_layout(namespace.as_str(), path)?,
        (None, None) => {
            return Err(CliError::BadInput(
                "give --bundles N or --boundaries FILE".to_string(),
            ));
        }
    };

    // Validate every name before printing anything, so a typo never yields a partial table.
    let mut rows = Vec::with_capacity(args.topics.len());
    let mut problems = Vec::new();
    for input in &args.topics {
        match TopicName::parse(input) {
            Err(e) => problems.push(e.to_string()),
            Ok(topic) => match layout.find_bundle(&topic) {
                Ok(range) => rows.push((topic, range)),
                // A bare `topic` expands to public/default, which is rarely what was meant.
                Err(e) if !input.contains('/') => problems.push(format!(
                    "{e} (a bare name means public/default; write tenant/namespace/topic)"
                )),
                Err(e) => problems.push(e.to_string()),
            },
        }
    }
    if !problems.is_empty() {
        return Err(CliError::BadInputs(problems));
    }
    crate::output::to_stdout(render(&rows).as_bytes())
}

/// "Who owns this topic": every name checked and located before anything is printed.
fn run_snapshot(path: &Path, namespace: Option<&str>, topics: &[String]) -> Result<(), CliError> {
    let snapshot = load_snapshot(path)?;
    let namespace = namespace
        .map(|n| {
            NamespaceName::parse(n).map_err(|e| CliError::BadInput(format!("--namespace: {e}")))
        })
        .transpose()?;
    let mut rows = Vec::with_capacity(topics.len());
    let mut problems = Vec::new();
    for input in topics {
        // A bare name is in --namespace when given (Pulsar's default, public/default, otherwise).
        let name = match &namespace {
            Some(ns) if !input.contains('/') => format!("{}/{input}", ns.as_str()),
            _ => input.clone(),
        };
        match TopicName::parse(&name) {
            Err(e) => problems.push(e.to_string()),
            Ok(topic) => match locate_topic(&snapshot, &topic) {
                Ok(at) => rows.push((topic, at)),
                Err(e) => problems.push(format!("{}: {e}", path.display())),
            },
        }
    }
    if !problems.is_empty() {
        return Err(CliError::BadInputs(problems));
    }
    crate::output::to_stdout(render_located(&rows).as_bytes())
}

/// Topic, hash, bundle, owner and the bundle's load; names from the snapshot and the command line
/// are escaped.
fn render_located(rows: &[(TopicName, TopicLocation)]) -> String {
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|(topic, at)| {
            [
                escape_control(topic.complete_name()).into_owned(),
                format!("{:#010x}", topic.bundle_hash()),
                escape_control(&at.bundle).into_owned(),
                at.owner.as_deref().map_or_else(
                    || "(unowned)".to_string(),
                    |o| escape_control(o).into_owned(),
                ),
                format!("{} msg/s", count(at.load.msg_per_sec())),
                rate(at.load.bytes_per_sec()),
            ]
        })
        .collect();
    let header = [
        "topic",
        "hash",
        "bundle",
        "owner",
        "bundle msg/s",
        "bundle in+out",
    ];
    let mut widths = header.map(str::len);
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |row: &[String]| -> String {
        let mut text = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            let pad = w.saturating_sub(cell.chars().count());
            // Names left-aligned, figures right-aligned; no trailing spaces.
            if i >= 4 {
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            } else if i + 1 == row.len() {
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            }
            if i + 1 < row.len() {
                text.push_str("  ");
            }
        }
        text.push('\n');
        text
    };
    let mut out = line(&header.map(str::to_string));
    for row in &cells {
        out.push_str(&line(row));
    }
    out
}

/// The table; topic names are escaped (they come from the command line or a file).
fn render(rows: &[(TopicName, impl std::fmt::Display)]) -> String {
    let names: Vec<String> = rows
        .iter()
        .map(|(t, _)| escape_control(t.complete_name()).into_owned())
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max("topic".len());
    let mut out = format!(
        "{:<width$}  {:<10}  {:>10}  bundle\n",
        "topic", "hash", "hash_dec"
    );
    for (name, (topic, range)) in names.iter().zip(rows) {
        let hash = topic.bundle_hash();
        out.push_str(&format!(
            "{:<width$}  {:<10}  {:>10}  {}\n",
            name,
            format!("{hash:#010x}"),
            hash,
            escape_control(&range.to_string())
        ));
    }
    out
}

/// Reads a layout file: `BundlesData` JSON, a JSON array, or plain text boundaries.
fn read_layout(namespace: &str, path: &Path) -> Result<NamespaceBundles, CliError> {
    let text = read_text(path)?;
    let bad = |m: String| CliError::BadInput(format!("{}: {m}", path.display()));
    let boundaries: Vec<String> = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(_)) => {
            let data: BundlesData = serde_json::from_str(&text)
                .map_err(|e| bad(format!("not a BundlesData object: {e}")))?;
            data.boundaries
        }
        Ok(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(bad(format!("`{other}` is not a boundary"))),
            })
            .collect::<Result<_, _>>()?,
        _ => text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    };
    if boundaries.len() > MAX_BUNDLES_PER_NAMESPACE + 1 {
        return Err(bad(format!(
            "{} boundaries, more than the {} of {MAX_BUNDLES_PER_NAMESPACE} bundles",
            boundaries.len(),
            MAX_BUNDLES_PER_NAMESPACE + 1
        )));
    }
    let values = boundaries
        .iter()
        .map(|b| parse_hex_boundary(b))
        .collect::<Result<Vec<u32>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    NamespaceBundles::new(namespace, values).map_err(|e| bad(e.to_string()))
}
