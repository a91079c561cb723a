//! `lbplan plan SNAPSHOT [--profile 4.x|5.0] [--set KEY=VALUE]... [--seed N] [--op OPERATION]...
//! [--format text|json|pulsar-admin|curl] [--verbose] [--i-know] [--diff-baseline]
//! [--calibration FILE] [--explain-usage]`: one leader cycle (plus manual what-ifs) on a
//! snapshot. A plan whose verdict is `worse` is said so on stderr when exported as a script, and the
//! script refuses to apply unless run with `--i-know` (or exported with `--i-know`).

use std::path::PathBuf;

use lbplan_core::act::export::ExportOptions;
use lbplan_core::act::export_format::{ExportError, ExportFormat, export_plan};
use lbplan_core::load::LoadModel;
use lbplan_core::plan::balance::explain_plan;
use lbplan_core::plan::diff::{against_baseline, describe, diff_plans};
use lbplan_core::plan::operations::Operation;
use lbplan_core::plan::summary::broker_names;
use lbplan_core::plan::{PlanEngine, PlanRequest};

use crate::exit::CliError;
use crate::option_args::{apply_leader, parse_optional_profile, parse_settings};
use crate::plan_text::render_text;
use crate::snapshot_input::load_snapshot;
use lbplan_core::plan::MAX_OUTLOOK_CYCLES;

/// `--format`: the text report, or one of core's export formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Export(ExportFormat),
}

fn parse_format(s: &str) -> Result<Format, String> {
    if s == "text" {
        return Ok(Format::Text);
    }
    s.parse()
        .map(Format::Export)
        .map_err(|e| format!("{e}, or text"))
}

#[derive(clap::Args)]
pub struct Args {
    /// A snapshot (`lbplan import -o`), or any file the importer accepts; `-` reads standard input.
    snapshot: PathBuf,
    /// The Pulsar release to plan as: 4.0.7, 4.1.0-SNAPSHOT, a line (3.x, 4.x, 4.1, 4.2, 5.0: its
    /// newest known patch) or master-90cba329; default: the leader's brokerVersionString (else the
    /// majority's).
    #[arg(long)]
    profile: Option<String>,
    /// The leader broker (HOST:PORT) whose release decides during a rolling upgrade; default: the
    /// snapshot's leader_broker.
    #[arg(long, value_name = "BROKER")]
    leader: Option<String>,
    /// A broker.conf override, KEY=VALUE (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// Seed of the random picks among equally good brokers.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// A manual operation (repeatable): unload-namespace=T/NS, unload-bundle=T/NS/0x…_0x…[->HOST:PORT],
    /// unload-topic=TOPIC, split-bundle=T/NS/0x…_0x…[:ALGORITHM[:P1,P2]], add-broker=HOST:PORT[~LIKE],
    /// remove-broker=HOST:PORT, set=KEY=VALUE.
    #[arg(long = "op", value_name = "OPERATION")]
    operations: Vec<String>,
    /// Only the manual operations: do not run the leader's shedding cycle after them.
    #[arg(long)]
    manual_only: bool,
    /// Extra cycles to look ahead when the first cycle unloads nothing.
    /// 0 to 1000 (`MAX_OUTLOOK_CYCLES`).
    #[arg(long, default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_OUTLOOK_CYCLES)))]
    outlook_cycles: u32,
    /// Wrap the scripts with loadBalancerSheddingEnabled=false … true.
    #[arg(long)]
    pause_shedding: bool,
    /// Acknowledge a plan whose verdict is "worse": the exported script applies without asking for
    /// `--i-know` (its header still carries the verdict).
    #[arg(long)]
    i_know: bool,
    /// text, pulsar-admin, curl or json.
    #[arg(long, value_parser = parse_format, default_value = "text")]
    format: Format,
    /// Compare with the baseline (the same snapshot, profile and seed without --set/--op): moves
    /// added, removed or sent elsewhere, splits, balance before/after for both. Prints the diff
    /// (text or json) instead of the plan.
    #[arg(long)]
    diff_baseline: bool,
    /// Text: list every split (by default the first few per namespace, with the count).
    #[arg(short = 'v', long)]
    verbose: bool,
    /// Predict usages with the per-broker CPU cost factors of a calibration file
    /// (`lbplan history --calibrate -o FILE`).
    #[arg(long, value_name = "FILE")]
    calibration: Option<PathBuf>,
    /// Text: after the plan, the arithmetic of every predicted usage of a broker the plan changes
    /// (limit, idle baseline, the work of the bundles in and out), weak estimates flagged.
    #[arg(long)]
    explain_usage: bool,
    /// Write the output to a file instead of stdout (whole or not at all).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let mut snapshot = load_snapshot(&args.snapshot)?;
    apply_leader(&mut snapshot, args.leader.as_deref())?;
    let profile = parse_optional_profile(args.profile.as_deref())?;
    let settings = parse_settings(&args.settings)?;
    let operations = args
        .operations
        .iter()
        .map(|o| Operation::parse(o).map_err(|e| CliError::BadInput(format!("--op {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let request = PlanRequest {
        profile,
        settings,
        operations,
        seed: args.seed,
        leader_cycle: !args.manual_only,
        outlook_cycles: args.outlook_cycles,
        explain: lbplan_core::plan::Explain::Full,
    };
    let model = crate::calibration_file::load_model(args.calibration.as_deref())?;
    let mut engine = PlanEngine::new(snapshot).with_load_model(model.clone());
    let plan = engine
        .plan(&request)
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    if args.diff_baseline {
        let baseline = PlanRequest {
            settings: Vec::new(),
            operations: Vec::new(),
            leader_cycle: true,
            ..request
        };
        let base = engine
            .plan(&baseline)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        let diff = diff_plans(&base, &plan).map_err(|e| CliError::Failed(e.to_string()))?;
        let text = match args.format {
            Format::Text => {
                // The what-if judged against its baseline first, as the dashboard shows it; the
                // changed moves name brokers by display name (the JSON keeps the full ids).
                let names = broker_names(&plan);
                let mut t = against_baseline(&diff).headline;
                t.push('\n');
                for line in describe(&diff) {
                    t.push_str(&names.shorten_text(&line));
                    t.push('\n');
                }
                t
            }
            Format::Export(ExportFormat::Json) => {
                let mut t = serde_json::to_string_pretty(&diff)
                    .map_err(|e| CliError::Failed(e.to_string()))?;
                t.push('\n');
                t
            }
            Format::Export(_) => {
                return Err(CliError::BadInput(
                    "--diff-baseline prints text or json, not a script".to_string(),
                ));
            }
        };
        return crate::output::emit(args.output.as_deref(), text.as_bytes());
    }
    let opts = ExportOptions {
        pause_automatic_shedding: args.pause_shedding,
        i_know: args.i_know,
    };
    if plan.verdict.is_worse()
        && matches!(
            args.format,
            Format::Export(ExportFormat::PulsarAdmin | ExportFormat::Curl)
        )
    {
        let target = args
            .output
            .as_ref()
            .map_or_else(|| "THE_SCRIPT".to_string(), |p| p.display().to_string());
        crate::output::message("lbplan: warning: ", &plan.verdict.headline);
        for reason in &plan.verdict.reasons {
            crate::output::message("lbplan:   - ", reason);
        }
        if let Some(a) = plan.verdict.suggestion() {
            crate::output::message(
                "lbplan:   - ",
                &lbplan_core::plan::verdict::describe_alternative(a, plan.seed),
            );
        }
        if args.i_know {
            crate::output::message(
                "lbplan: ",
                "--i-know: the script applies this plan without asking again",
            );
        } else {
            crate::output::message(
                "lbplan: ",
                &format!("the script refuses to apply it unless run as `bash {target} --i-know`"),
            );
        }
    }
    let text = match args.format {
        Format::Text => {
            let mut t = render_text(&plan, args.verbose);
            if args.explain_usage {
                t.push_str(&usage_text(engine.snapshot(), &plan, &model));
            }
            t
        }
        Format::Export(f) => export_plan(&plan, f, opts).map_err(|e| match e {
            ExportError::Name(e) => CliError::BadInput(format!("{}: {e}", args.snapshot.display())),
            ExportError::Json(e) => CliError::Failed(e.to_string()),
        })?,
    };
    crate::output::emit(args.output.as_deref(), text.as_bytes())
}

/// `--explain-usage`: each predicted usage of a broker the plan changes, with its arithmetic.
fn usage_text(
    snapshot: &lbplan_core::model::Snapshot,
    plan: &lbplan_core::plan::Plan,
    model: &LoadModel,
) -> String {
    let mut out = String::from(
        "\nPredicted usage, with what it rests on (the one load model, docs/plan-model.md §4):\n",
    );
    let lines = explain_plan(snapshot, plan, model);
    if lines.is_empty() {
        out.push_str("  no broker's usage changes\n");
    }
    for e in lines {
        out.push_str("  ");
        out.push_str(&lbplan_core::text::escape_control(&e.text()));
        out.push('\n');
    }
    out
}
