//! `lbplan generate [--spec demo|large|pr-16059|bench] [--seed N] [--brokers N]
//! [--broker-domain D] [-o FILE]`: writes a synthetic
//! cluster snapshot (`lbplan_core::synthetic`). `static/demo-snapshot.json` (= `builtin:demo`) is
//! `generate --spec demo` with the default seed.

use std::path::PathBuf;

use lbplan_core::synthetic::{self, DEMO_SEED, SyntheticSpec};

use crate::exit::CliError;

#[derive(clap::Args)]
pub struct Args {
    /// Which cluster: `demo` (12 brokers, the dashboard's demo), `large` (1,000 brokers,
    /// 200,000 bundles, for benchmarks), `pr-16059` (136 brokers; `builtin:pr-16059` with seed
    /// 16059) or `bench` (100 brokers, 10,000 bundles; `builtin:bench` with seed 7).
    #[arg(long, default_value = "demo")]
    spec: String,
    /// Seed of the generator; the same seed always gives the same snapshot.
    #[arg(long, default_value_t = DEMO_SEED)]
    seed: u64,
    /// Another broker count than the spec's (the same namespaces and traffic spread over them).
    #[arg(long)]
    brokers: Option<u32>,
    /// Another domain for the broker hosts (`broker-<i>.<domain>.svc:<port>`), e.g.
    /// `pulsar-broker.pulsar-prod` for ids as long as a Kubernetes cluster's.
    #[arg(long)]
    broker_domain: Option<String>,
    /// Output file (default: standard output); written whole or not at all.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let mut spec = SyntheticSpec::by_name(&args.spec).ok_or_else(|| {
        CliError::BadInput(format!(
            "unknown spec `{}` (expected {})",
            args.spec,
            SyntheticSpec::NAMES.join(", ")
        ))
    })?;
    if let Some(n) = args.brokers {
        spec.brokers = n;
    }
    if let Some(d) = args.broker_domain {
        spec.broker_domain = d;
    }
    let snapshot = synthetic::generate(&spec, args.seed)
        .map_err(|e| CliError::BadInput(format!("spec `{}`: {e}", args.spec)))?;
    let text = synthetic::to_json(&snapshot)
        .map_err(|e| CliError::Failed(format!("cannot serialise the snapshot: {e}")))?;
    crate::output::emit(args.output.as_deref(), text.as_bytes())
}
