//! `lbplan`: thin command-line front end over `lbplan-core`. Each subcommand lives in its own module
//! and maps arguments to core calls and results to output; exit status 0 ok, 2 bad input, 1 failure.
//! Output goes through [`output`] (files written whole through [`atomic_write`], standard output
//! through a fallible writer, messages escaped), never `print!`, which panics on a closed pipe.

mod apply_live;
mod apply_signal;
mod atomic_write;
mod calibration_file;
mod cmd_apply;
mod cmd_collect;
mod cmd_config;
mod cmd_generate;
mod cmd_hash;
mod cmd_history;
mod cmd_import;
mod cmd_plan;
mod cmd_rebalance;
mod cmd_replay;
mod cmd_simulate;
mod cmd_size;
mod cmd_upgrade;
mod cmd_verify;
mod cmd_watch;
// Shared admin REST client (credentials, origins, limits): `collect` and `apply`.
mod collect;
mod connection_args;
mod exit;
mod input_files;
mod leader_log_files;
mod option_args;
mod output;
mod pinned_dir;
mod plan_text;
mod prometheus;
mod series_store;
mod snapshot_input;
// `lbplan watch`: the metrics endpoint and the state a round updates.
mod watch;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "lbplan",
    version,
    about = "What-if planner for Apache Pulsar broker load balancing"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the effective load-balancing configuration of a profile.
    Config(cmd_config::Args),
    /// Replay a conformance scenario and print the decisions as JSON.
    Replay(cmd_replay::Args),
    /// Import Pulsar exports (files, directories, .zip, .tar.gz) into one snapshot.
    Import(cmd_import::Args),
    /// Plan one leader cycle (and manual what-ifs) on a snapshot; export as text, JSON or scripts.
    Plan(cmd_plan::Args),
    /// Propose unloads with destinations that reach a balance goal and that Pulsar would not undo.
    Rebalance(cmd_rebalance::Args),
    /// Print each topic's hash and bundle.
    Hash(cmd_hash::Args),
    /// Collect a snapshot from a live cluster through the admin REST API.
    Collect(cmd_collect::Args),
    /// Apply a plan through the admin REST API, guarded: dry run unless --execute, drift check,
    /// batches, verification of each move, a journal to resume or roll back.
    Apply(cmd_apply::Args),
    /// Compare a plan with a snapshot taken after it was applied: each bundle where predicted,
    /// each broker's usage against the prediction, anything the leader moved back.
    Verify(cmd_verify::Args),
    /// Write a synthetic cluster snapshot (the dashboard's demo, or a large one for benchmarks).
    Generate(cmd_generate::Args),
    /// How a namespace's topics and load would spread over 4, 16, 32, 64, 128 bundles and the brokers.
    Size(cmd_size::Args),
    /// Run the leader's loop for many cycles under a scenario; compare configurations.
    Simulate(cmd_simulate::Args),
    /// Explain a recorded series of snapshots: every move, split, join and leave, and its cause.
    History(cmd_history::Args),
    /// Preview an upgrade to another Pulsar release: the behaviour that differs, this cycle's
    /// decisions that change and why, simulated cycles, and the broker.conf lines that keep today's.
    Upgrade(cmd_upgrade::Args),
    /// Watch a live cluster: collect every interval, keep a series with bounded retention, plan
    /// the leader's next cycle, explain the history as it grows, serve Prometheus metrics.
    Watch(cmd_watch::Args),
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => std::process::exit(exit::usage(e)),
    };
    let result = match cli.command {
        Command::Config(args) => cmd_config::run(args),
        Command::Upgrade(args) => cmd_upgrade::run(args),
        Command::Replay(args) => cmd_replay::run(args),
        Command::Import(args) => cmd_import::run(args),
        Command::Hash(args) => cmd_hash::run(args),
        Command::Collect(args) => cmd_collect::run(args),
        Command::Plan(args) => cmd_plan::run(args),
        Command::Apply(args) => cmd_apply::run(args),
        Command::Verify(args) => cmd_verify::run(args),
        Command::Rebalance(args) => cmd_rebalance::run(args),
        Command::Generate(args) => cmd_generate::run(args),
        Command::Simulate(args) => cmd_simulate::run(args),
        Command::Size(args) => cmd_size::run(args),
        Command::History(args) => cmd_history::run(args),
        Command::Watch(args) => cmd_watch::run(args),
    };
    std::process::exit(exit::report(result));
}
