//! `lbplan upgrade SNAPSHOT --to VERSION [--from VERSION] [--leader BROKER] [--cycles N]
//! [--format text|json] [-o FILE]`: what changes when the cluster moves from the release its leader
//! runs to `VERSION` (core `release::upgrade`): the table rows that differ, this cycle's decisions
//! that change with the PRs they are attributed to, the first N cycles simulated under both
//! releases, and the `broker.conf` lines that keep today's defaults.

use std::fmt::Write as _;
use std::path::PathBuf;

use lbplan_core::text::escape_control as e;
use lbplan_core::upgrade::{UpgradePreview, upgrade_preview};

use crate::exit::CliError;
use crate::option_args::{apply_leader, parse_optional_profile, parse_profile};
use crate::snapshot_input::load_snapshot;

#[derive(clap::Args)]
pub struct Args {
    /// A snapshot (`lbplan import -o`), or any file the importer accepts; `-` reads standard input.
    snapshot: PathBuf,
    /// The release to upgrade to: 5.0.0, 4.0.14, a line (4.x, 4.2, 5.0: its newest known patch).
    #[arg(long)]
    to: String,
    /// Today's release; default: the leader's brokerVersionString (else the majority's).
    #[arg(long)]
    from: Option<String>,
    /// The leader broker (HOST:PORT) whose release is today's; default: the snapshot's leader_broker.
    #[arg(long, value_name = "BROKER")]
    leader: Option<String>,
    /// Leader cycles simulated under each release (0 to 1000; 0: none).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=1000))]
    cycles: u32,
    /// text or json.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    format: String,
    /// Write the output to a file instead of stdout (whole or not at all).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let mut snapshot = load_snapshot(&args.snapshot)?;
    apply_leader(&mut snapshot, args.leader.as_deref())?;
    let from = parse_optional_profile(args.from.as_deref())?;
    let to = parse_profile(&args.to)?;
    let preview = upgrade_preview(&snapshot, from, to, args.cycles)
        .map_err(|err| CliError::BadInput(err.to_string()))?;
    let text = if args.format == "json" {
        let mut t =
            serde_json::to_string_pretty(&preview).map_err(|e| CliError::Failed(e.to_string()))?;
        t.push('\n');
        t
    } else {
        render(&preview)
    };
    crate::output::emit(args.output.as_deref(), text.as_bytes())
}

fn render(p: &UpgradePreview) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Upgrade {} → {} ({})",
        e(&p.from.release),
        e(&p.to),
        e(&p.from.why)
    );
    for w in p.from.warnings.iter().chain(&p.warnings) {
        let _ = writeln!(out, "warning: {}", e(w));
    }
    out.push('\n');
    if p.changes.is_empty() {
        let _ = writeln!(
            out,
            "No row of the release table differs between the two releases."
        );
    } else {
        let _ = writeln!(out, "Behaviour that differs:");
        for c in &p.changes {
            let _ = writeln!(
                out,
                "  {} {}: {}{}",
                c.direction,
                e(&c.prs),
                e(&c.summary),
                if c.applies {
                    ""
                } else {
                    " (not used by this cluster)"
                }
            );
        }
    }
    out.push('\n');
    let d = &p.decisions;
    if d.identical_decisions {
        let _ = writeln!(out, "This cycle's decisions: the same under both releases.");
    } else {
        let _ = writeln!(
            out,
            "This cycle's decisions change (attributed to {}):",
            if p.attributed_to.is_empty() {
                "no row of the table; defaults only".to_string()
            } else {
                e(&p.attributed_to.join(", ")).into_owned()
            }
        );
        // Each changed decision with the PRs of the rows acting on the side that made it.
        let why = |bundle: &str, decision: &str| -> String {
            p.decision_causes
                .iter()
                .find(|c| c.bundle == bundle && c.decision == decision)
                .filter(|c| !c.prs.is_empty())
                .map_or_else(String::new, |c| format!("   [{}]", e(&c.prs.join(", "))))
        };
        for m in &d.moves_added {
            let _ = writeln!(
                out,
                "  + {} {} → {}{}",
                e(&m.bundle),
                e(&m.from),
                e(m.to.as_deref().unwrap_or("?")),
                why(&m.bundle, "added")
            );
        }
        for m in &d.moves_removed {
            let _ = writeln!(
                out,
                "  - {} {} → {}{}",
                e(&m.bundle),
                e(&m.from),
                e(m.to.as_deref().unwrap_or("?")),
                why(&m.bundle, "removed")
            );
        }
        for m in &d.moves_changed {
            let _ = writeln!(
                out,
                "  ~ {} to {} instead of {}{}",
                e(&m.bundle),
                e(m.what_if.to.as_deref().unwrap_or("?")),
                e(m.baseline.to.as_deref().unwrap_or("?")),
                why(&m.bundle, "destination")
            );
        }
    }
    if !p.simulated.is_empty() {
        out.push('\n');
        let _ = writeln!(out, "The first {} cycles (steady load):", p.cycles);
        for s in &p.simulated {
            let m = &s.summary;
            let _ = writeln!(
                out,
                "  {}: {} unloads, {:.1} GB moved, {} ping-pong, balanced {}",
                e(&s.release),
                m.total_unloads,
                m.total_bytes_moved / 1e9,
                m.total_thrashing,
                m.balanced_at_cycle
                    .map_or_else(|| "never".to_string(), |c| format!("at cycle {c}"))
            );
        }
    }
    if !p.new_namespaces.is_empty() {
        out.push('\n');
        let _ = writeln!(out, "Bundles of a new namespace (system namespace):");
        for n in &p.new_namespaces {
            let _ = writeln!(
                out,
                "  {}: {} ({})",
                e(&n.release),
                n.namespace_bundles,
                n.system_namespace_bundles
            );
        }
    }
    out.push('\n');
    if p.keep_today.is_empty() {
        let _ = writeln!(
            out,
            "No default differs: broker.conf needs no line to keep today's behaviour."
        );
    } else {
        let _ = writeln!(out, "broker.conf lines that keep today's defaults:");
        for l in &p.keep_today {
            let _ = writeln!(out, "  {}", e(l));
        }
    }
    out
}
