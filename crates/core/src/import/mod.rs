//! Import of Pulsar exports (load reports, bundle data, time averages, layouts, policies,
//! `broker.conf`, topic lists, extensible load data, our own snapshots, and metadata-store trees as
//! `.zip`/`.tar.gz`/`.tar`) into one validated [`Snapshot`], with warnings for every gap.
//!
//! No file system here: the caller (CLI, browser) hands in `(name, bytes)` entries; directories are
//! expanded by the caller, archives are expanded here from bytes. Each entry's format is decided
//! once, from its path in a metadata-store tree and an outline of its content ([`detect::format`]),
//! read by that format's one reader (typed, from the text, for JSON), collected ([`collect`]) and
//! assembled with cross-file checks ([`assemble`]). The format written is documented in
//! `docs/snapshot-format.md`.
//!
//! A JSON input is scanned up to three times, each pass for a reason the others cannot serve:
//! 1. [`json_guard::check`] counts the values on the raw bytes, allocating nothing per value, and
//!    refuses the file over `max_json_values` before any parser allocates (it also finds repeated
//!    keys, which every parser resolves silently). It must come first and cannot be a serde pass:
//!    a serde visitor is handed a value only after serde built it.
//! 2. [`detect::peek`] outlines the top level (its keys, the kinds of their values, a `kind` tag)
//!    with serde_json, so keys with escapes compare as decoded and a syntax error has its line and
//!    column. It runs only where the path does not tell the format: not for the metadata-store
//!    nodes of bundle data, time averages, policies, layouts and cluster nodes, which are most of
//!    a large import (200,000 of 201,000 files in the bench), but for broker nodes (report or
//!    lookup data) and files outside a tree. Nor for our own snapshot file, the largest input
//!    (a full skipping pass was about 13 % of reading it): the guard lists the top-level keys as
//!    written, and when none has an escape (so the written key is the parsed key) `format_version`
//!    without `kind` decides it. Decoding keys in the guard for every other case would mean a
//!    second JSON string decoder there.
//! 3. The format's typed reader builds only what the format keeps. For our snapshot file, the
//!    largest input, [`snapshot`]'s fast reader reads it first in one scan straight into the model, and
//!    gives it to the typed reader whole on anything it does not read exactly as that reader would.

mod archive;
mod assemble;
mod broker_conf;
mod broker_load_data;
mod broker_report;
mod bundle_data;
mod cluster;
mod collect;
pub mod collect_report;
mod consume_output;
mod detect;
mod diag;
mod fields;
mod json;
mod json_guard;
mod layout;
mod limits;
mod policies;
mod snapshot;
pub mod store_files;
pub mod store_layout;
mod time_average;
mod top_bundles;
mod topic_list;
mod typed;
mod warning_groups;
pub(crate) mod zip_names;
pub(crate) mod zip_reader;

use std::borrow::Cow;

use crate::model::Snapshot;
use crate::naming::parse_bundle_name;
use collect::{Collected, LayoutEntry, LayoutRank, Src};
use detect::{Location, Shape};
use diag::Diag;
pub use diag::{ImportError, ImportWarning, MAX_ALSO, MAX_WARNINGS, WarningKind};
use json::{Ctx, JPath};
pub use limits::{
    DEFAULT_MAX_ENTRIES, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_JSON_VALUES, DEFAULT_MAX_TOTAL_BYTES,
    ImportOptions,
};
pub use policies::MAX_BUNDLES_PER_NAMESPACE;
pub use warning_groups::{GROUP_EXAMPLES, WarningGroup, group_warnings};

/// How an input was named: by the user (anything unrecognised is an error), or found while walking a
/// directory or archive (unrecognised files are skipped with a warning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Given,
    Tree,
    /// A file that must be one of our snapshots ([`read_snapshot`]): anything else is refused
    /// after the guard's pass, before a reader runs.
    Snapshot,
}

/// One input: a name (used to recognise it), its bytes, and how messages name it.
///
/// `name` should be the path *relative to the directory or archive the user gave*: recognition looks
/// for `loadbalance/…` and `admin/…` anywhere in it, so the directories above the dump (such as
/// `/home/admin`) must not be part of it. Messages use `display` when set (the CLI passes the full
/// path there), else `name`.
#[derive(Clone, Debug)]
pub struct ImportInput<'a> {
    pub name: Cow<'a, str>,
    pub bytes: Cow<'a, [u8]>,
    pub origin: Origin,
    pub display: Option<Cow<'a, str>>,
}

impl<'a> ImportInput<'a> {
    /// A file the user named.
    pub fn given(name: impl Into<Cow<'a, str>>, bytes: impl Into<Cow<'a, [u8]>>) -> Self {
        Self {
            name: name.into(),
            bytes: bytes.into(),
            origin: Origin::Given,
            display: None,
        }
    }

    /// A file found inside a directory the user named; `name` relative to that directory.
    pub fn in_tree(name: impl Into<Cow<'a, str>>, bytes: impl Into<Cow<'a, [u8]>>) -> Self {
        Self {
            name: name.into(),
            bytes: bytes.into(),
            origin: Origin::Tree,
            display: None,
        }
    }

    /// The same input, named `display` in messages.
    pub fn shown_as(mut self, display: impl Into<Cow<'a, str>>) -> Self {
        self.display = Some(display.into());
        self
    }

    /// How messages name this input.
    pub fn display_name(&self) -> &str {
        self.display.as_deref().unwrap_or(&self.name)
    }
}

/// A validated snapshot and what import had to work around.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub snapshot: Snapshot,
    pub warnings: Vec<ImportWarning>,
}

/// Imports with the default caps.
pub fn import(inputs: &[ImportInput<'_>]) -> Result<Imported, ImportError> {
    import_with(inputs, &ImportOptions::default())
}

pub fn import_with(
    inputs: &[ImportInput<'_>],
    opts: &ImportOptions,
) -> Result<Imported, ImportError> {
    if inputs.is_empty() {
        return Err(ImportError::Empty("no input files".to_string()));
    }
    let mut diag = Diag::default();
    let mut c = Collected::default();
    let mut budget = archive::Budget {
        total_bytes_left: opts.max_total_bytes,
        entries_left: opts.max_entries,
    };
    for input in inputs {
        process(input, opts, &mut budget, &mut c, &mut diag)?;
    }
    if c.recognised == 0 {
        // Inputs recognised but not usable alone (a partitioned lookup, a `BundlesData` without
        // its namespace path) say so, naming the file: "none is recognised" would be wrong.
        let skipped = diag.skipped();
        if !skipped.is_empty() {
            let more = skipped.len().saturating_sub(5);
            let shown: Vec<&str> = skipped.iter().take(5).map(String::as_str).collect();
            return Err(ImportError::Empty(format!(
                "no data the planner reads in the {} input(s): {}{}",
                inputs.len(),
                shown.join("; "),
                if more > 0 {
                    format!("; and {more} more skipped")
                } else {
                    String::new()
                }
            )));
        }
        return Err(ImportError::Empty(format!(
            "none of the {} input(s) is a recognised export (expected {})",
            inputs.len(),
            detect::ACCEPTED
        )));
    }
    let found = found_summary(&c);
    let snapshot = assemble::assemble(c, &mut diag)?;
    if snapshot.brokers.is_empty() {
        return Err(ImportError::Empty(format!(
            "no broker in the input ({found}): brokers come from load reports \
             (`pulsar-admin broker-stats load-report` on each broker, or the metadata-store nodes \
             /loadbalance/brokers/*)"
        )));
    }
    Ok(Imported {
        snapshot,
        warnings: diag.finish(),
    })
}

/// Reads one of our snapshot files (`lbplan import -o`, what the dashboard keeps, a snapshot handed
/// to the wasm API) with the one snapshot reader, so that an unknown key is a warning naming its
/// JSON path here as in every import. Anything else (a raw Pulsar export) is refused.
pub fn read_snapshot(name: &str, text: &str) -> Result<Imported, ImportError> {
    let input = ImportInput {
        origin: Origin::Snapshot,
        ..ImportInput::given(name, text.as_bytes())
    };
    import_with(&[input], &ImportOptions::default())
}

/// What [`read_snapshot`] says of an input that is not one of our snapshots.
fn not_a_snapshot(file: &str) -> ImportError {
    ImportError::at(
        file,
        "$.format_version",
        "missing: expected an lbplan snapshot (from `lbplan import` or importFiles); raw Pulsar \
         exports are imported, not read as a snapshot",
    )
}

/// A broker entry of our snapshot format read on its own (`$.brokers["<id>"]`'s value), by the
/// snapshot reader's checks: the history store keeps a snapshot in parts, and a part is read by
/// the one reader of the format it is a piece of. Warnings are not returned: the snapshot was
/// imported (and warned about) before it was stored. The bulk of the entry (`lastStats`, the
/// bundle lists) is read by [`snapshot::read_broker_part`] when it can; anything it leaves, this reader reads.
pub(crate) fn read_broker_entry(
    file: &str,
    text: &str,
) -> Result<crate::model::BrokerSnapshot, ImportError> {
    if let Some(b) = snapshot::read_broker_part(file, text) {
        return Ok(b);
    }
    let mut diag = Diag::default();
    let mut ctx = Ctx {
        file,
        diag: &mut diag,
    };
    snapshot::broker_entry(&mut ctx, text)
}

/// [`read_broker_entry`] by the importer's reader alone (tests compare the two).
#[cfg(test)]
pub(crate) fn read_broker_entry_generic(
    file: &str,
    text: &str,
) -> Result<crate::model::BrokerSnapshot, ImportError> {
    let mut diag = Diag::default();
    let mut ctx = Ctx {
        file,
        diag: &mut diag,
    };
    snapshot::broker_entry(&mut ctx, text)
}

/// `bundle_data` entries of our snapshot format read on their own, as [`read_broker_entry`].
pub(crate) fn read_bundle_data_entries(
    file: &str,
    text: &str,
) -> Result<indexmap::IndexMap<String, crate::model::BundleData>, ImportError> {
    let mut diag = Diag::default();
    let mut ctx = Ctx {
        file,
        diag: &mut diag,
    };
    snapshot::bundle_data_entries(&mut ctx, text)
}

/// What an import without brokers found, for its error.
fn found_summary(c: &Collected) -> String {
    let mut parts = Vec::new();
    let mut add = |n: usize, what: &str| {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    };
    add(
        c.listed_brokers.len(),
        "broker(s) listed without a load report",
    );
    add(c.bundle_data.len(), "BundleData");
    add(c.layouts.len(), "namespace layout(s)");
    add(c.topics.len(), "namespace(s) of topics");
    add(c.conf.len(), "broker.conf key(s)");
    add(c.isolation.len(), "isolation policy(ies)");
    if parts.is_empty() {
        "found no load-balancing data".to_string()
    } else {
        format!("found {}", parts.join(", "))
    }
}

fn process(
    input: &ImportInput<'_>,
    opts: &ImportOptions,
    budget: &mut archive::Budget,
    c: &mut Collected,
    diag: &mut Diag,
) -> Result<(), ImportError> {
    let file = input.display_name();
    let path = input.name.as_ref();
    let bytes = input.bytes.as_ref();
    let len = bytes.len() as u64;
    if len > opts.max_file_bytes {
        return Err(ImportError::file(
            file,
            format!(
                "is {len} bytes, over the cap of {} bytes per file",
                opts.max_file_bytes
            ),
        ));
    }
    budget.take_entry(opts)?;
    budget.take_bytes(len, opts)?;
    if let Some(kind) = archive::sniff(bytes) {
        if input.origin == Origin::Snapshot {
            return Err(not_a_snapshot(file));
        }
        // Member path → its position: a tar or zip may hold one name twice, and extracting it
        // would keep the last silently.
        let mut seen: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        let mut index = 0usize;
        let mut each = |m: archive::Member, diag: &mut Diag| {
            index += 1;
            let display = format!("{file}!/{}", m.path);
            if let Some(first) = seen.insert(m.path.clone(), index) {
                diag.warn(
                    WarningKind::Duplicate,
                    &display,
                    None,
                    format!(
                        "the archive holds `{}` twice (members #{first} and #{index}); both \
                         are read, and extracting the archive would keep only the later",
                        m.path
                    ),
                );
            }
            process_file(&display, &m.path, &m.bytes, Origin::Tree, opts, c, diag)
        };
        return archive::expand(file, kind, bytes, opts, budget, diag, &mut each);
    }
    process_file(file, path, bytes, input.origin, opts, c, diag)
}

fn skip(diag: &mut Diag, file: &str, why: &str) {
    diag.warn(
        WarningKind::IgnoredFile,
        file,
        None,
        format!("{why}; skipped"),
    );
}

fn process_file(
    file: &str,
    path: &str,
    bytes: &[u8],
    origin: Origin,
    opts: &ImportOptions,
    c: &mut Collected,
    diag: &mut Diag,
) -> Result<(), ImportError> {
    let loc = detect::locate(path);
    let tree = origin == Origin::Tree;
    if tree && loc == Location::OtherMetadata {
        skip(diag, file, "metadata-store node not used by load balancing");
        return Ok(());
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) if tree && loc == Location::None => {
            skip(diag, file, "not UTF-8 text");
            return Ok(());
        }
        Err(e) => {
            return Err(ImportError::file(
                file,
                format!(
                    "not UTF-8 text (invalid byte at offset {}): expected a JSON or text export",
                    e.valid_up_to()
                ),
            ));
        }
    };
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        if tree {
            skip(diag, file, "empty file");
            return Ok(());
        }
        return Err(ImportError::file(
            file,
            format!("is empty: expected {}", detect::ACCEPTED),
        ));
    }
    let mut top_keys = None;
    // Whether the guard ran and found no key given twice (our snapshot's fast reader needs both).
    let mut unique_keys = false;
    if detect::is_json(trimmed) {
        // Before any reader or the outline: the guard bounds what they may build.
        let scan = json_guard::check(file, text, opts.max_json_values)?;
        top_keys = scan.top_keys;
        unique_keys = scan.duplicates.is_empty();
        for at in scan.duplicates {
            diag.warn(
                WarningKind::Duplicate,
                file,
                Some(at),
                "this key appears twice in its object: the later value is used (as every JSON \
                 parser does silently); check which one is meant",
            );
        }
    }
    let shape = detect::format(file, &loc, path, text, top_keys.as_deref())?;
    if origin == Origin::Snapshot && shape != Shape::Snapshot {
        return Err(not_a_snapshot(file));
    }
    let input = Recognised {
        file,
        path,
        loc: &loc,
        shape,
        text,
        origin,
        unique_keys,
    };
    read_input(input, opts, c, diag)
}

/// Input that is no export we know: skipped inside a directory or archive, an error if named.
fn unrecognised(file: &str, origin: Origin, diag: &mut Diag) -> Result<(), ImportError> {
    if origin == Origin::Tree {
        skip(diag, file, "not a recognised export");
        return Ok(());
    }
    Err(ImportError::file(
        file,
        format!("unrecognised content: expected {}", detect::ACCEPTED),
    ))
}

/// The bundle a `BundleData` node's path names.
fn bundle_path_name(file: &str, name: &str) -> Result<crate::naming::BundleName, ImportError> {
    let bundle = parse_bundle_name(name).map_err(|e| {
        ImportError::file(
            file,
            format!("path does not end in <tenant>/<namespace>/0xXXXXXXXX_0xXXXXXXXX: {e}"),
        )
    })?;
    crate::naming::check_imported_namespace(crate::naming::BundleName::namespace_of(name))
        .map_err(|e| ImportError::file(file, format!("the path names bundle `{name}`, but {e}")))?;
    Ok(bundle)
}

fn policies_rank(loc: &Location) -> LayoutRank {
    if matches!(loc, Location::Policies(_)) {
        LayoutRank::Policies
    } else {
        LayoutRank::LocalPolicies
    }
}

/// A report found at `loadbalance/brokers/<id>`: the node name is the broker.
fn add_broker_node(
    file: &str,
    id: &str,
    report: broker_report::BrokerReport,
    c: &mut Collected,
    diag: &mut Diag,
) -> Result<(), ImportError> {
    if let Some(b) = &report.broker_id
        && b != id
    {
        diag.warn(
            WarningKind::ValueConflict,
            file,
            Some(JPath::ROOT.key("brokerId").render()),
            format!("brokerId `{b}` differs from the node name `{id}`; the node name is used"),
        );
    }
    c.add_broker(id.to_string(), Src::whole(file), report.data)
}

/// A broker name for a report that does not carry one: the file name, with a warning.
fn broker_from_file(
    ctx: &mut Ctx<'_>,
    path: &str,
    url: Option<&str>,
) -> Result<String, ImportError> {
    let name = detect::stem(path);
    if name.is_empty() {
        return Err(ImportError::file(
            ctx.file,
            "cannot tell which broker this is: name the file <brokerId>.json",
        ));
    }
    let hint = url
        .and_then(cluster::host_port)
        .filter(|hp| *hp != name)
        .map(|hp| {
            format!(" (its webServiceUrl suggests `{hp}`; name the file {hp}.json to use that)")
        })
        .unwrap_or_default();
    ctx.diag.warn(
        WarningKind::BrokerNamedFromFile,
        ctx.file,
        None,
        format!("no brokerId in the data: broker named `{name}` after the file{hint}"),
    );
    Ok(name)
}

/// One input as [`detect::format`] recognised it: what [`read_input`] reads.
#[derive(Clone, Copy)]
struct Recognised<'a> {
    file: &'a str,
    path: &'a str,
    /// The broker, bundle, namespace or cluster of a metadata-store node; outside a tree the path
    /// (or the content) tells them.
    loc: &'a Location,
    shape: Shape,
    text: &'a str,
    origin: Origin,
    /// The size guard ran and found no key given twice (our snapshot's fast reader needs both).
    unique_keys: bool,
}

/// Reads an input whose format [`detect::format`] decided: one reader per format (for JSON, one
/// typed reader from the text).
fn read_input(
    input: Recognised<'_>,
    opts: &ImportOptions,
    c: &mut Collected,
    diag: &mut Diag,
) -> Result<(), ImportError> {
    let Recognised {
        file,
        path,
        loc,
        shape,
        text,
        origin,
        unique_keys,
    } = input;
    let mut ctx = Ctx { file, diag };
    match shape {
        Shape::CollectReport => return read_collect_report(file, text, c, diag),
        Shape::Snapshot => {
            // Counts itself as recognised.
            return snapshot::read(file, text, unique_keys, c, diag);
        }
        Shape::LocalBrokerData | Shape::BrokerLookupData => {
            let report = if shape == Shape::LocalBrokerData {
                broker_report::local_broker_data_from_text(&mut ctx, text)?
            } else {
                broker_report::lookup_data_from_text(&mut ctx, text)?
            };
            if let Location::Broker(id) = loc {
                add_broker_node(file, id, report, c, diag)?;
            } else {
                let name = match &report.broker_id {
                    Some(id) => id.clone(),
                    None => {
                        broker_from_file(&mut ctx, path, report.data.web_service_url.as_deref())?
                    }
                };
                c.add_broker(name, Src::whole(file), report.data)?;
            }
        }
        Shape::BrokerLoadData => {
            let d = broker_load_data::from_text(&mut ctx, text)?;
            let name = broker_from_file(&mut ctx, path, None)?;
            c.add_load_data(name, Src::whole(file), d)?;
        }
        Shape::TopBundlesLoadData => {
            let d = top_bundles::from_text(&mut ctx, text)?;
            let name = broker_from_file(&mut ctx, path, None)?;
            c.add_top_bundles(name, Src::whole(file), d)?;
        }
        Shape::TimeAverageBrokerData => {
            let d = time_average::from_text(&mut ctx, text)?;
            let name = match loc {
                Location::TimeAverage(id) => id.clone(),
                _ => broker_from_file(&mut ctx, path, None)?,
            };
            c.add_time_average(name, Src::whole(file), d)?;
        }
        Shape::BundleData => {
            // Syntax, then the path, then the content: the order of the messages.
            let raw = typed::from_text(file, text)?;
            let (namespace, range) = match loc {
                // The canonical spelling without a parse (200,000 nodes in a large cluster).
                Location::BundleData(name) => match fields::split_bundle(name) {
                    Some((ns, range)) => (Cow::Borrowed(ns), range),
                    None => {
                        let bn = bundle_path_name(file, name)?;
                        (Cow::Owned(bn.namespace), bn.range)
                    }
                },
                _ => {
                    let bn = detect::bundle_from_path(path)
                        .and_then(|n| parse_bundle_name(&n).ok())
                        .ok_or_else(|| {
                            ImportError::file(
                                file,
                                "a BundleData, but its path does not tell the bundle: put it at \
                                 loadbalance/bundle-data/<tenant>/<namespace>/0xXXXXXXXX_0xXXXXXXXX",
                            )
                        })?;
                    (Cow::Owned(bn.namespace), bn.range)
                }
            };
            let d = bundle_data::check(&mut ctx, raw, &JPath::ROOT)?;
            c.add_bundle_data(&namespace, range, Src::whole(file), d)?;
        }
        Shape::Policies if let Location::Policies(ns) | Location::LocalPolicies(ns) = loc => {
            let p = policies::policies_from_text(&mut ctx, text)?;
            add_policies(file, ns, policies_rank(loc), p, c, diag);
        }
        Shape::BundlesData | Shape::Policies => {
            let Some(ns) = layout_namespace(file, path)? else {
                let what = if shape == Shape::BundlesData {
                    "`pulsar-admin namespaces bundles` output (BundlesData)"
                } else {
                    "namespace policies (`pulsar-admin namespaces policies`)"
                };
                diag.warn(
                    WarningKind::NotModelled,
                    file,
                    None,
                    format!(
                        "{what}, but nothing tells which namespace it is for: name it \
                         <tenant>/<namespace>/bundles.json (policies: \
                         <tenant>/<namespace>/policies.json) or put it at \
                         admin/local-policies/<tenant>/<namespace>; skipped"
                    ),
                );
                return Ok(());
            };
            if shape == Shape::BundlesData {
                let b = policies::bundles_data_from_text(&mut ctx, text)?;
                c.add_layout(
                    ns,
                    LayoutEntry {
                        src: Src::whole(file),
                        at: "$.boundaries".to_string(),
                        rank: LayoutRank::BundlesData,
                        boundaries: b,
                    },
                );
            } else {
                let p = policies::policies_from_text(&mut ctx, text)?;
                add_policies(file, &ns, LayoutRank::Policies, p, c, diag);
            }
        }
        Shape::Leader => {
            let leader = cluster::leader_from_text(&mut ctx, text)?;
            c.set_leader(leader, Src::whole(file), diag);
        }
        Shape::FailureDomain => {
            let brokers = cluster::failure_domain_from_text(&mut ctx, text)?;
            match loc {
                Location::FailureDomain { cluster, domain } => {
                    c.set_cluster(cluster.clone(), Src::whole(file), diag);
                    c.add_failure_domain(domain.clone(), brokers, Src::whole(file), diag);
                }
                _ => c.add_failure_domain(detect::stem(path), brokers, Src::whole(file), diag),
            }
        }
        Shape::IsolationPolicies => {
            let pols = cluster::isolation_policies_from_text(&mut ctx, text)?;
            if let Location::IsolationPolicies { cluster } = loc {
                c.set_cluster(cluster.clone(), Src::whole(file), diag);
            }
            for (name, p) in pols {
                let src = Src::within(file, JPath::ROOT.key(&name).render());
                c.add_isolation(name, p, src, diag);
            }
        }
        Shape::IsolationPolicy => {
            // The single policy carries no name: the file's (documented in snapshot-format.md).
            let name = detect::stem(path);
            if name.is_empty() {
                return Err(ImportError::file(
                    file,
                    "a namespace isolation policy without its name: name the file <policy>.json",
                ));
            }
            let p = cluster::isolation_policy_from_text(&mut ctx, text)?;
            c.add_isolation(name, p, Src::whole(file), diag);
        }
        Shape::DynamicConfig => {
            let conf = broker_conf::dynamic_from_text(&ctx, text)?;
            let at = |k: &str| JPath::ROOT.key(k).render();
            for s in conf.settings {
                let src = Src::within(file, at(&s.key));
                c.add_conf(s.key, s.value, src, diag);
            }
            if let Some(s) = conf.cluster_name {
                let src = Src::within(file, at(&s.key));
                c.set_cluster(s.value, src, diag);
            }
            warn_ignored_keys(diag, file, conf.ignored);
        }
        Shape::TopicList => {
            let Some(topics) = topic_list::read_json_text(&mut ctx, text)? else {
                // An array of anything else is no export we know (the outline says the same).
                return unrecognised(file, origin, diag);
            };
            for (ns, names) in topics {
                c.topics.entry(ns).or_default().extend(names);
            }
        }
        Shape::LegacyLoadReport => {
            let what = "the legacy SimpleLoadManagerImpl LoadReport (systemResourceUsage, \
                        bundleStats): not modelled; export the modular load manager's \
                        LocalBrokerData (`pulsar-admin broker-stats load-report` on a broker \
                        running ModularLoadManagerImpl, or /loadbalance/brokers/*)";
            if origin == Origin::Tree {
                diag.warn(
                    WarningKind::NotModelled,
                    file,
                    None,
                    format!("{what}; skipped"),
                );
                return Ok(());
            }
            return Err(ImportError::file(file, what));
        }
        Shape::ConsumeOutput => return read_consume_output(file, text, origin, opts, c, diag),
        Shape::PartitionedLookup => {
            diag.warn(
                WarningKind::NotModelled,
                file,
                None,
                "`pulsar-admin topics partitioned-lookup` output (each partition and the broker \
                 URL serving it), not a topic list: ownership comes from the load reports (each \
                 broker's bundles), so it is not used; skipped",
            );
            return Ok(());
        }
        Shape::BrokersList => {
            for (i, line) in text.lines().enumerate() {
                let b = line.trim();
                if !b.is_empty() {
                    c.listed_brokers
                        .entry(b.to_string())
                        .or_insert_with(|| Src::within(file, format!("line {}", i + 1)));
                }
            }
        }
        Shape::TopicLines => {
            for (ns, topics) in topic_list::parse_text(file, text)? {
                c.topics.entry(ns).or_default().extend(topics);
            }
        }
        Shape::BrokerConf => {
            let conf = broker_conf::parse(file, text)?;
            for s in conf.settings {
                let src = Src::within(file, format!("line {}", s.line));
                c.add_conf(s.key, s.value, src, diag);
            }
            if let Some(s) = conf.cluster_name {
                c.set_cluster(s.value, Src::within(file, format!("line {}", s.line)), diag);
            }
            warn_ignored_keys(diag, file, conf.ignored);
        }
        Shape::Unknown => return unrecognised(file, origin, diag),
    }
    c.recognised += 1;
    Ok(())
}

/// The namespace of a layout or policies file outside a metadata tree, from a metadata-like path
/// only (`…/<tenant>/<namespace>/bundles.json`, `policies`, `local-policies`): a bare file name
/// such as `raw/namespaces-bundles-my-tenant-my-ns.txt` would only be a guess. The name must pass
/// Pulsar's rule (`naming::rules::check_namespace`).
fn layout_namespace(file: &str, path: &str) -> Result<Option<String>, ImportError> {
    let stem = detect::stem(path);
    if !["bundles", "policies", "local-policies"].contains(&stem.as_str()) {
        return Ok(None);
    }
    let Some(ns) = detect::namespace_from_path(path) else {
        return Ok(None);
    };
    crate::naming::check_namespace(&ns).map_err(|e| {
        ImportError::file(file, format!("the path names namespace `{ns}`, but {e}"))
    })?;
    Ok(Some(ns))
}

/// `collect-report.json` of `lbplan collect`: each missing item becomes a [`WarningKind::CollectGap`]
/// warning. The report alone is no data, so it does not count as a recognised input.
fn read_collect_report(
    file: &str,
    text: &str,
    c: &mut Collected,
    diag: &mut Diag,
) -> Result<(), ImportError> {
    let report = collect_report::parse(file, text).map_err(|e| ImportError::At {
        file: e.file,
        at: e.at,
        message: e.message,
    })?;
    if let Some(name) = report.cluster {
        c.set_cluster(name, Src::within(file, "$.cluster".to_string()), diag);
    }
    for w in report.warnings {
        diag.warn(WarningKind::CollectGap, &w.file, Some(w.at), w.message);
    }
    for u in report.unknown {
        let message = format!("unknown field `{}` ignored", u.key);
        diag.warn(WarningKind::UnknownField, file, Some(u.at), message);
    }
    Ok(())
}

fn add_policies(
    file: &str,
    ns: &str,
    rank: LayoutRank,
    p: policies::NamespacePolicies,
    c: &mut Collected,
    diag: &mut Diag,
) {
    if let Some(b) = p.boundaries {
        c.add_layout(
            ns.to_string(),
            LayoutEntry {
                src: Src::whole(file),
                at: "$.bundles.boundaries".to_string(),
                rank,
                boundaries: b,
            },
        );
    }
    if let Some(g) = p.anti_affinity_group {
        c.add_anti_affinity(ns.to_string(), Src::whole(file), g, diag);
    }
}

fn warn_ignored_keys(diag: &mut Diag, file: &str, ignored: usize) {
    if ignored > 0 {
        diag.warn(
            WarningKind::ConfKeyIgnored,
            file,
            None,
            format!("{ignored} keys the load manager does not read were dropped"),
        );
    }
}

/// `pulsar-client consume` output of the extensible load manager's load-data topics (see
/// [`consume_output`]): each broker's latest `BrokerLoadData` (or `TopBundlesLoadData`), named by
/// the message key (the brokerId). Messages are named `<file> (message N, line L)` in diagnostics.
fn read_consume_output(
    file: &str,
    text: &str,
    origin: Origin,
    opts: &ImportOptions,
    c: &mut Collected,
    diag: &mut Diag,
) -> Result<(), ImportError> {
    let msgs = consume_output::messages(text);
    let name =
        |m: &consume_output::Message<'_>| format!("{file} (message {}, line {})", m.index, m.line);
    for m in &msgs.unkeyed {
        diag.warn(
            WarningKind::NotModelled,
            &name(m),
            None,
            "a message without a key: the load-data topics are keyed by brokerId, so the broker \
             is unknown; skipped",
        );
    }
    let mut read = 0usize;
    for (key, m) in &msgs.latest {
        let at = name(m);
        if m.content.is_empty() {
            // A tombstone: the broker deletes its entry when bundle ownership changes (§2.8).
            diag.warn(
                WarningKind::NotModelled,
                &at,
                None,
                format!(
                    "an empty payload: broker `{key}` deleted its load data (as it does after an \
                     ownership change); no load data for it until its next report"
                ),
            );
            continue;
        }
        if !m.content.starts_with('{') {
            return Err(ImportError::file(
                &at,
                "the content is not JSON: consume with the default `bytes` schema (no \
                 `--schema-type`), which prints the JSON the broker published",
            ));
        }
        crate::naming::check_broker_id(key).map_err(|e| {
            ImportError::file(
                &at,
                format!("the message key `{key}` is not a brokerId: {e}"),
            )
        })?;
        let scan = json_guard::check(&at, m.content, opts.max_json_values)?;
        for dup in scan.duplicates {
            diag.warn(
                WarningKind::Duplicate,
                &at,
                Some(dup),
                "this key appears twice in its object: the later value is used",
            );
        }
        let shape = detect::json_shape(&at, &Location::None, m.content, scan.top_keys.as_deref())?;
        let mut ctx = Ctx {
            file: &at,
            diag: &mut *diag,
        };
        match shape {
            Shape::BrokerLoadData => {
                let d = broker_load_data::from_text(&mut ctx, m.content)?;
                c.add_load_data(key.to_string(), Src::whole(&at), d)?;
            }
            Shape::TopBundlesLoadData => {
                let d = top_bundles::from_text(&mut ctx, m.content)?;
                c.add_top_bundles(key.to_string(), Src::whole(&at), d)?;
            }
            _ => {
                diag.warn(
                    WarningKind::NotModelled,
                    &at,
                    None,
                    "neither a BrokerLoadData nor a TopBundlesLoadData (consume \
                     non-persistent://pulsar/system/loadbalancer-broker-load-data); skipped",
                );
                continue;
            }
        }
        read += 1;
    }
    if read == 0 {
        let why = "`pulsar-client consume` output without any BrokerLoadData or \
                   TopBundlesLoadData message";
        if origin == Origin::Tree {
            skip(diag, file, why);
            return Ok(());
        }
        return Err(ImportError::file(file, why));
    }
    c.recognised += 1;
    Ok(())
}
