//! `lbplan apply PLAN.json --admin-url URL [--token-file F] [--batch N] [--wait 30s]
//! [--pause-shedding] [--execute] [--resume JOURNAL | --rollback JOURNAL] [--journal FILE]`: applies
//! a plan through the admin REST API, guarded. Without `--execute` it prints every call and
//! checks for drift without changing anything. With it: the live owner of every bundle is checked
//! against the plan first (a drifted bundle refuses the run), the calls go in batches, each batch
//! is verified after `--wait` (destination honoured, or where the bundle went), the run stops at
//! the first failure or drift, and a journal is written after every step. The model (steps, drift,
//! verification, journal) is core's [`lbplan_core::plan::apply`]; this module does the IO. Same
//! credential rules as `collect`. See `docs/apply.md`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lbplan_core::plan::apply::{
    ApplyPlan, ApplyStep, Journal, LiveOwners, SheddingBefore, StepKind, StepStatus,
    already_applied, batches, drifted, read_plan, verify,
};
use lbplan_core::plan::export::{StepCall, set_shedding_call, unset_shedding_call};

use crate::apply_live::Admin;
use crate::apply_signal;
use crate::atomic_write::{self, Existing};
use crate::collect::auth::Redactor;
use crate::collect::http::HttpOptions;
use crate::connection_args::ConnectionArgs;
use crate::exit::{CliError, read_json, read_text};
use crate::output;

#[derive(clap::Args)]
pub struct Args {
    /// The plan JSON (`lbplan plan --format json`).
    plan: PathBuf,
    #[command(flatten)]
    connection: ConnectionArgs,
    /// The cluster (default: `clusterName` of the broker behind --admin-url).
    #[arg(long, value_name = "NAME")]
    cluster: Option<String>,
    /// Calls sent before each wait and verification.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    batch: u32,
    /// Wait after each batch before reading the new owners (`30s`, `500ms`, `2m`).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_wait)]
    wait: Duration,
    /// Set loadBalancerSheddingEnabled=false for the run; the previous value (or no override) is
    /// restored afterwards, also after a failure or Ctrl-C.
    #[arg(long)]
    pause_shedding: bool,
    /// Send the calls. Without it nothing is changed: the calls are printed and drift is checked.
    #[arg(long)]
    execute: bool,
    /// Continue an interrupted or failed run: the steps its journal does not record as done.
    #[arg(long, value_name = "JOURNAL", conflicts_with = "rollback")]
    resume: Option<PathBuf>,
    /// Move the bundles a run moved (its journal's done unloads) back, last first.
    #[arg(long, value_name = "JOURNAL")]
    rollback: Option<PathBuf>,
    /// Where the journal is written (default: the --resume/--rollback journal, else
    /// PLAN.journal.json).
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// Seconds one request may take.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    timeout: f64,
}

/// `30s`, `500ms`, `2m`, or a number of seconds.
fn parse_wait(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (num, unit) = match t.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => (t.get(..i).unwrap_or(""), t.get(i..).unwrap_or("")),
        None => (t, "s"),
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("`{t}`: expected e.g. 30s, 500ms or 2m"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        _ => return Err(format!("`{t}`: the unit is ms, s or m")),
    };
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| *d <= Duration::from_secs(3600))
        .ok_or_else(|| format!("`{t}`: expected 0 to 60m"))
}

/// What this run does.
enum Mode {
    Apply,
    Resume(Journal),
    Rollback(Journal),
}

fn journal_path(args: &Args) -> PathBuf {
    if let Some(j) = args.journal.clone().or_else(|| args.resume.clone()) {
        return j;
    }
    if let Some(j) = &args.rollback {
        return j.clone();
    }
    let mut name = args.plan.clone().into_os_string();
    name.push(".journal.json");
    PathBuf::from(name)
}

fn read_journal(path: &Path, plan: &ApplyPlan) -> Result<Journal, CliError> {
    let text = read_text(path)?;
    let j = Journal::from_json(&text)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", path.display())))?;
    j.check_matches(plan)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", path.display())))?;
    Ok(j)
}

/// The journal, written whole after every step (never with the credential in it).
struct JournalFile {
    path: PathBuf,
    journal: Journal,
    redactor: Redactor,
}

impl JournalFile {
    fn save(&self) -> Result<(), CliError> {
        let text = self.redactor.text(&self.journal.to_json());
        atomic_write::write_file(&self.path, text.as_bytes(), Existing::Replace)
            .map_err(|e| CliError::Failed(format!("cannot write the journal: {e}")))
    }
}

fn say(text: &str) {
    output::message("apply: ", text);
}

fn call_line(c: &StepCall) -> String {
    let mut line = format!("{} {}", c.call.method, c.call.path);
    if let Some(b) = &c.call.body {
        let _ = write!(line, " body {b}");
    }
    line
}

/// The dry run's listing: every call in order, batch by batch, with the checks around them.
fn listing(
    steps: &[ApplyStep],
    indices: &[usize],
    args: &Args,
    rollback: bool,
    permanent: &[&str],
) -> String {
    let mut out = String::new();
    let what = if rollback { "Rollback" } else { "Apply" };
    let _ = writeln!(
        out,
        "{what}: {} call(s) in batches of {}, each batch verified after {:?}.",
        indices.len(),
        args.batch,
        args.wait
    );
    let _ = writeln!(
        out,
        "Before the first call: the owner of every bundle is read (GET /admin/v2/brokers/CLUSTER, \
         then GET /admin/v2/brokers/CLUSTER/BROKER/ownedNamespaces); a bundle not on its expected \
         broker refuses the run."
    );
    if args.pause_shedding {
        let _ = writeln!(
            out,
            "{}  (the previous value is kept in the journal and restored afterwards, or DELETE {} when there was no override)",
            call_line_raw(&set_shedding_call(false)),
            unset_shedding_call().path
        );
    }
    for (b, batch) in batches(indices, args.batch as usize).iter().enumerate() {
        let _ = writeln!(out, "batch {}:", b + 1);
        for i in batch {
            if let Some(s) = steps.get(*i) {
                let _ = writeln!(out, "  {}. {}", s.index + 1, call_line(&s.step));
                let _ = writeln!(out, "     # {}", s.step.call.note);
            }
        }
    }
    for s in permanent {
        let _ = writeln!(
            out,
            "# {s} stays split: Pulsar cannot merge bundles, a rollback cannot undo a split."
        );
    }
    out
}

fn call_line_raw(c: &lbplan_core::plan::export::RestCall) -> String {
    format!("{} {}", c.method, c.path)
}

/// The rollback's moves as steps of the same model: drift and verification work unchanged.
fn rollback_as_steps(journal: &Journal) -> Result<Vec<ApplyStep>, CliError> {
    let moves = journal
        .rollback_steps()
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    Ok(moves
        .into_iter()
        .map(|m| ApplyStep {
            index: m.index,
            step: StepCall {
                kind: StepKind::Unload,
                bundle: Some(m.bundle),
                expected_owner: m.expected_owner,
                destination: Some(m.back_to.clone()),
                predicted: Some(m.back_to),
                call: m.call,
            },
        })
        .collect())
}

fn build_admin(args: &Args) -> Result<(Admin, Redactor, String), CliError> {
    let endpoint = args.connection.endpoint()?;
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            CliError::BadInput("--timeout: expected a positive number of seconds".into())
        })?;
    let connection = args.connection.connect(
        &endpoint,
        HttpOptions {
            timeout,
            attempts: 3,
            backoff: Duration::from_millis(500),
        },
    )?;
    Ok((
        Admin {
            client: connection.client,
            base: endpoint.base,
            scheme: endpoint.scheme,
            credential_to_brokers: args.connection.send_credential_to_brokers,
        },
        connection.redactor,
        connection.source.to_string(),
    ))
}

pub fn run(args: Args) -> Result<(), CliError> {
    let value = read_json(&args.plan)?;
    let plan = read_plan(&value)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.plan.display())))?;
    let ap = ApplyPlan::from_plan(&plan)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.plan.display())))?;
    let mode = match (&args.resume, &args.rollback) {
        (Some(j), _) => Mode::Resume(read_journal(j, &ap)?),
        (None, Some(j)) => Mode::Rollback(read_journal(j, &ap)?),
        (None, None) => Mode::Apply,
    };
    // `indices` are positions in `steps`; each step's `index` is its place in the journal.
    let (steps, indices, rollback, permanent): (Vec<ApplyStep>, Vec<usize>, bool, Vec<String>) =
        match &mode {
            Mode::Apply => {
                let all = (0..ap.steps.len()).collect();
                (ap.steps.clone(), all, false, Vec::new())
            }
            Mode::Resume(j) => (ap.steps.clone(), j.resume_indices(), false, Vec::new()),
            Mode::Rollback(j) => {
                let moves = rollback_as_steps(j)?;
                let all = (0..moves.len()).collect();
                let permanent = j.permanent_splits().iter().map(|s| s.to_string()).collect();
                (moves, all, true, permanent)
            }
        };
    let perm: Vec<&str> = permanent.iter().map(String::as_str).collect();
    output::to_stdout(listing(&steps, &indices, &args, rollback, &perm).as_bytes())?;
    if indices.is_empty() {
        say("nothing to do");
        return Ok(());
    }

    let (admin, redactor, source) = build_admin(&args)?;
    say(&format!("admin API {} (credential: {source})", admin.base));
    let cluster = match &args.cluster {
        Some(c) => c.clone(),
        None => admin.cluster_name().map_err(CliError::Failed)?,
    };
    let owners = admin
        .live_owners(&cluster)
        .map_err(|e| CliError::Failed(format!("cannot read the bundles' owners: {e}")))?;
    // A resumed run may have sent steps it could not verify (interrupted during the wait): those
    // the cluster already shows as applied are done, not drifted.
    let mut indices = indices;
    let mut applied = Vec::new();
    if let Mode::Resume(_) = &mode {
        applied = already_applied(&steps, &indices, &owners);
        indices.retain(|i| !applied.iter().any(|(a, _)| a == i));
        for (i, outcome) in &applied {
            say(&format!(
                "step {} already applied: {}",
                i + 1,
                outcome.describe()
            ));
        }
    }
    let drift = drifted(&steps, &indices, &owners);
    if !args.execute {
        for d in &drift {
            say(&format!("drifted: {}", d.describe()));
        }
        let text = if drift.is_empty() {
            "dry run: no bundle drifted; nothing was changed. Add --execute to send the calls."
                .to_string()
        } else {
            format!(
                "dry run: {} bundle(s) drifted since the plan's snapshot: --execute would refuse. \
                 Nothing was changed.",
                drift.len()
            )
        };
        say(&text);
        return Ok(());
    }

    let journal = match mode {
        Mode::Apply => Journal::new(&ap, &admin.base),
        Mode::Resume(j) | Mode::Rollback(j) => j,
    };
    let mut jf = JournalFile {
        path: journal_path(&args),
        journal,
        redactor,
    };
    for (i, outcome) in applied {
        let owner = steps
            .get(i)
            .and_then(|s| s.step.bundle.as_ref())
            .and_then(|b| owners.get(b))
            .cloned();
        jf.journal
            .record(i, StepStatus::Done, Some(outcome), owner, None);
    }
    if !drift.is_empty() {
        for d in &drift {
            say(&format!("drifted: {}", d.describe()));
            mark(
                &mut jf.journal,
                d.index,
                rollback,
                StepStatus::Drifted,
                d.describe(),
            );
        }
        jf.save()?;
        return Err(CliError::Failed(format!(
            "refused: {} bundle(s) are not where the plan expects them; nothing was sent \
             (re-plan from a fresh snapshot). Journal: {}",
            drift.len(),
            jf.path.display()
        )));
    }
    apply_signal::install();
    jf.save()?;
    let run = Run {
        admin: &admin,
        cluster: &cluster,
        steps: &steps,
        wait: args.wait,
        rollback,
    };
    let mut result = Ok(());
    if args.pause_shedding {
        result = pause(&admin, &mut jf);
    }
    if result.is_ok() {
        result = run.batches(&indices, args.batch as usize, owners, &mut jf);
    }
    if args.pause_shedding && jf.journal.shedding_before.is_some() {
        let restored = restore(&admin, &mut jf);
        if result.is_ok() {
            result = restored;
        }
    }
    jf.save()?;
    let (done, failed, pending) = jf.journal.counts();
    say(&format!(
        "journal {}: {done} done, {failed} failed or drifted, {pending} pending",
        jf.path.display()
    ));
    result
}

/// Reads the shedding override, keeps it in the journal, then pauses shedding.
fn pause(admin: &Admin, jf: &mut JournalFile) -> Result<(), CliError> {
    let current = admin
        .shedding_override()
        .map_err(|e| CliError::Failed(format!("cannot read loadBalancerSheddingEnabled: {e}")))?;
    let before = SheddingBefore::from_override(current.as_deref()).ok_or_else(|| {
        CliError::Failed(
            "loadBalancerSheddingEnabled has a value that is not true or false; nothing was changed"
                .to_string(),
        )
    })?;
    jf.journal.shedding_before = Some(before);
    jf.journal.shedding_restored = false;
    jf.save()?;
    admin
        .send(&set_shedding_call(false))
        .map_err(|e| CliError::Failed(format!("cannot pause shedding: {e}")))?;
    say("automatic shedding paused (loadBalancerSheddingEnabled=false)");
    Ok(())
}

/// Puts the shedding setting back as the journal recorded it.
fn restore(admin: &Admin, jf: &mut JournalFile) -> Result<(), CliError> {
    let call = match jf.journal.shedding_before {
        Some(SheddingBefore::Override(v)) => set_shedding_call(v),
        Some(SheddingBefore::NoOverride) => unset_shedding_call(),
        None => return Ok(()),
    };
    match admin.send(&call) {
        Ok(_) => {
            jf.journal.shedding_restored = true;
            say(&format!("automatic shedding restored ({})", call.note));
            jf.save()
        }
        Err(e) => {
            jf.save()?;
            Err(CliError::Failed(format!(
                "FAILED to restore loadBalancerSheddingEnabled ({}): {e}; restore it by hand",
                call.note
            )))
        }
    }
}

struct Run<'a> {
    admin: &'a Admin,
    cluster: &'a str,
    steps: &'a [ApplyStep],
    wait: Duration,
    rollback: bool,
}

/// Records a failure or drift: on the step in an apply; in a rollback the step stays done (its
/// bundle was not moved back) with the reason.
fn mark(journal: &mut Journal, index: usize, rollback: bool, status: StepStatus, why: String) {
    if rollback {
        if let Some(s) = journal.steps.iter_mut().find(|s| s.index == index) {
            s.message = Some(format!("rollback: {why}"));
        }
    } else {
        let owner = journal
            .steps
            .iter()
            .find(|s| s.index == index)
            .and_then(|s| s.owner_after.clone());
        journal.record(index, status, None, owner, Some(why));
    }
}

/// A note on a step without changing its status.
fn mark_note(journal: &mut Journal, index: usize, note: &str) {
    if let Some(s) = journal.steps.iter_mut().find(|s| s.index == index) {
        s.message = Some(note.to_string());
    }
}

impl Run<'_> {
    fn batches(
        &self,
        indices: &[usize],
        size: usize,
        mut owners: LiveOwners,
        jf: &mut JournalFile,
    ) -> Result<(), CliError> {
        let stopped = |jf: &JournalFile, why: String| {
            CliError::Failed(format!(
                "{why}; stopped. Journal: {} (--resume or --rollback it)",
                jf.path.display()
            ))
        };
        for batch in batches(indices, size) {
            let drift = drifted(self.steps, &batch, &owners);
            if let Some(d) = drift.first() {
                mark(
                    &mut jf.journal,
                    d.index,
                    self.rollback,
                    StepStatus::Drifted,
                    d.describe(),
                );
                jf.save()?;
                return Err(stopped(jf, format!("drifted: {}", d.describe())));
            }
            for &pos in &batch {
                let Some(step) = self.steps.get(pos) else {
                    continue;
                };
                if apply_signal::interrupted() {
                    return Err(stopped(jf, "interrupted".to_string()));
                }
                say(&format!(
                    "{} {}",
                    step.step.call.method, step.step.call.path
                ));
                if let Err(e) = self.admin.send(&step.step.call) {
                    mark(
                        &mut jf.journal,
                        step.index,
                        self.rollback,
                        StepStatus::Failed,
                        e.clone(),
                    );
                    jf.save()?;
                    return Err(stopped(jf, format!("call failed: {e}")));
                }
            }
            if !apply_signal::sleep(self.wait) {
                for &pos in &batch {
                    if let Some(step) = self.steps.get(pos)
                        && !self.rollback
                    {
                        mark_note(
                            &mut jf.journal,
                            step.index,
                            "sent, not verified (interrupted)",
                        );
                    }
                }
                jf.save()?;
                return Err(stopped(
                    jf,
                    "interrupted while waiting (the last batch was sent, not verified)".to_string(),
                ));
            }
            owners = self
                .admin
                .live_owners(self.cluster)
                .map_err(|e| stopped(jf, format!("cannot read the owners: {e}")))?;
            for &pos in &batch {
                let Some(step) = self.steps.get(pos) else {
                    continue;
                };
                let owner = step
                    .step
                    .bundle
                    .as_ref()
                    .and_then(|b| owners.get(b))
                    .cloned();
                let outcome = verify(step, owner.as_deref());
                let label = step.step.bundle.as_deref().unwrap_or(&step.step.call.path);
                say(&format!("{label}: {}", outcome.describe()));
                if !outcome.ok() {
                    let why = format!("verification failed: {label} {}", outcome.describe());
                    mark(
                        &mut jf.journal,
                        step.index,
                        self.rollback,
                        StepStatus::Failed,
                        why.clone(),
                    );
                    if let Some(s) = jf.journal.steps.iter_mut().find(|s| s.index == step.index)
                        && !self.rollback
                    {
                        s.outcome = Some(outcome.clone());
                        s.owner_after = owner.clone();
                    }
                    jf.save()?;
                    return Err(stopped(jf, why));
                }
                let status = if self.rollback {
                    StepStatus::RolledBack
                } else {
                    StepStatus::Done
                };
                jf.journal
                    .record(step.index, status, Some(outcome), owner, None);
                jf.save()?;
            }
        }
        Ok(())
    }
}
