//! `lbplan rebalance SNAPSHOT --goal 'max/mean<=1.15' [--max-moves N] [--max-moves-per-broker K]
//! [--drain BROKER]... [--set KEY=VALUE]... [--format text|json|pulsar-admin|curl|proposal-json]
//! [-o FILE]`: a proposal of unloads with destinations that reaches the goal and that the configured
//! leader would leave alone (core `rebalance`). `json` and the scripts are the plan formats, so
//! everything that reads a plan reads a proposal; `proposal-json` adds the curve and the check.

use std::fmt::Write as _;
use std::path::PathBuf;

use lbplan_core::act::export::ExportOptions;
use lbplan_core::act::export_format::{ExportError, ExportFormat, export_plan};
use lbplan_core::plan::summary::broker_names;
use lbplan_core::rebalance::{Goal, Limits, Proposal, RebalanceRequest, propose};
use lbplan_core::text::{escape_control, wrap_hanging};

use crate::exit::CliError;
use crate::option_args::{parse_optional_profile, parse_settings};
use crate::plan_text::render_text;
use crate::snapshot_input::load_snapshot;
use lbplan_core::plan::MAX_OUTLOOK_CYCLES;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    ProposalJson,
    Export(ExportFormat),
}

fn parse_format(s: &str) -> Result<Format, String> {
    match s {
        "text" => Ok(Format::Text),
        "proposal-json" => Ok(Format::ProposalJson),
        _ => s
            .parse()
            .map(Format::Export)
            .map_err(|e| format!("{e}, text or proposal-json")),
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// A snapshot (`lbplan import -o`), or any file the importer accepts; `-` reads standard input.
    snapshot: PathBuf,
    /// The balance to reach: `max/mean<=1.15`, `std<=5%` or `max<=80%`.
    #[arg(long, default_value = "max/mean<=1.15")]
    goal: String,
    /// At most this many unloads.
    #[arg(long)]
    max_moves: Option<usize>,
    /// Take exactly this many of the search's moves (a point of the trade-off table) instead of
    /// the fewest that meet the goal and that Pulsar leaves alone.
    #[arg(long, value_name = "K")]
    moves: Option<usize>,
    /// At most this many unloads into or out of any one broker.
    #[arg(long)]
    max_moves_per_broker: Option<usize>,
    /// Brokers to empty before maintenance (repeatable; heartbeat and SLA namespaces stay).
    #[arg(long, value_name = "BROKER", num_args = 1..)]
    drain: Vec<String>,
    /// The Pulsar release: 4.0.7, 4.1.0-SNAPSHOT, a line (3.x, 4.x, 4.1, 4.2, 5.0: its newest known
    /// patch) or master-90cba329; default: the leader's brokerVersionString (else the majority's).
    #[arg(long)]
    profile: Option<String>,
    /// A broker.conf override, KEY=VALUE (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// Seed of the leader's random picks in the check.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Leader cycles looked at after the first when checking whether Pulsar would undo the proposal.
    /// 0 to 1000 (`MAX_OUTLOOK_CYCLES`).
    #[arg(long, default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_OUTLOOK_CYCLES)))]
    outlook_cycles: u32,
    /// Wrap the scripts with loadBalancerSheddingEnabled=false … true.
    #[arg(long)]
    pause_shedding: bool,
    /// text, json (the plan), pulsar-admin, curl or proposal-json.
    #[arg(long, value_parser = parse_format, default_value = "text")]
    format: Format,
    /// Predict usages with the per-broker CPU cost factors of a calibration file
    /// (`lbplan history --calibrate -o FILE`): the search and the final plan use them.
    #[arg(long, value_name = "FILE")]
    calibration: Option<PathBuf>,
    /// Write the output to a file instead of stdout (whole or not at all).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let goal = Goal::parse(&args.goal).map_err(|e| CliError::BadInput(format!("--goal {e}")))?;
    let snapshot = load_snapshot(&args.snapshot)?;
    let profile = parse_optional_profile(args.profile.as_deref())?;
    let settings = parse_settings(&args.settings)?;
    let req = RebalanceRequest {
        limits: Limits {
            max_moves: args.max_moves,
            max_moves_per_broker: args.max_moves_per_broker,
            drain: args.drain.clone(),
        },
        profile,
        settings,
        seed: args.seed,
        outlook_cycles: args.outlook_cycles,
        load_model: crate::calibration_file::load_model(args.calibration.as_deref())?,
        chosen_moves: args.moves,
        ..RebalanceRequest::new(goal)
    };
    let proposal = propose(&snapshot, &req)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.snapshot.display())))?;
    let opts = ExportOptions {
        pause_automatic_shedding: args.pause_shedding,
        i_know: false,
    };
    let text = match args.format {
        Format::Text => render(&proposal),
        Format::ProposalJson => {
            serde_json::to_string_pretty(&proposal).map_err(|e| CliError::Failed(e.to_string()))?
                + "\n"
        }
        Format::Export(f) => export_plan(&proposal.plan, f, opts).map_err(|e| match e {
            ExportError::Name(e) => CliError::BadInput(format!("{}: {e}", args.snapshot.display())),
            ExportError::Json(e) => CliError::Failed(e.to_string()),
        })?,
    };
    crate::output::emit(args.output.as_deref(), text.as_bytes())
}

/// The proposal's summary, trade-off and check, then the plan's own text report.
fn render(p: &Proposal) -> String {
    let mut out = String::new();
    // Brokers by their short names (the JSON and scripts keep full ids), lines within a
    // terminal's 120 columns, and nothing from the snapshot can drive the terminal.
    let names = broker_names(&p.plan);
    let text = |t: &str| escape_control(&names.shorten_text(t)).into_owned();
    let para = |out: &mut String, first: &str, t: &str| {
        for line in wrap_hanging(&text(t), 120, first, "    ") {
            let _ = writeln!(out, "{line}");
        }
    };
    let b = &p.balance_before;
    let a = &p.plan.balance_after;
    // A drain's outcome is what the operator acts on (stop the broker or not): it comes first.
    for d in &p.drain_status {
        let mark = if d.empty { "DRAINED" } else { "NOT DRAINED" };
        para(&mut out, "", &format!("{mark}: {}", d.headline));
        for bundle in d.bundles_left.iter().take(10) {
            let _ = writeln!(out, "  still there: {}", text(bundle));
        }
        if d.bundles_left.len() > 10 {
            let _ = writeln!(out, "  … and {} more", d.bundles_left.len() - 10);
        }
    }
    let _ = writeln!(
        out,
        "Rebalance toward {}: {} move(s) of {} found; goal {}.",
        p.goal,
        p.chosen_moves,
        p.steps.len(),
        if p.goal_met { "met" } else { "NOT met" }
    );
    let _ = writeln!(
        out,
        "  max/mean {:.3} → {:.3}   max {:.1} % → {:.1} %   std {:.1} % → {:.1} %",
        b.max_over_mean,
        a.max_over_mean,
        b.max_usage_fraction * 100.0,
        a.max_usage_fraction * 100.0,
        b.std_usage_fraction * 100.0,
        a.std_usage_fraction * 100.0
    );
    if let Some(basis) = &p.plan.release_basis {
        para(&mut out, "", &basis.line());
    }
    para(
        &mut out,
        "",
        &format!("Would Pulsar undo it? {}", p.stick_summary),
    );
    for n in &p.notes {
        para(&mut out, "  ", &format!("note: {n}"));
    }
    let _ = writeln!(out, "Trade-off (moves → max/mean, std %, MiB/s moved):");
    // At most ~12 rows: the start, evenly spaced points, the chosen size and the end.
    let len = p.curve.len();
    let stride = (len / 10).max(1);
    for (i, c) in p.curve.iter().enumerate() {
        if i % stride != 0 && i + 1 != len && c.moves != p.chosen_moves {
            continue;
        }
        let _ = writeln!(
            out,
            "  {:>5}  {:>6.3}  {:>5.1}  {:>10.2}{}{}",
            c.moves,
            c.max_over_mean,
            c.std_usage_fraction * 100.0,
            c.bytes_moved_per_sec / (1024.0 * 1024.0),
            if c.meets_goal { "  meets goal" } else { "" },
            if c.moves == p.chosen_moves {
                "  ← chosen"
            } else {
                ""
            }
        );
        if let Some(why) = &c.rises_because {
            para(&mut out, "         ", &format!("rises: {why}"));
        }
    }
    if p.curve.len() > 2 {
        let _ = writeln!(
            out,
            "  (another point: --moves K takes exactly K of these moves)"
        );
    }
    out.push('\n');
    out.push_str(&render_text(&p.plan, false));
    out
}
