//! `lbplan apply PLAN.json --admin-url URL [--token-file F] [--batch N] [--wait 30s]
//! [--pause-shedding] [--execute] [--resume JOURNAL | --rollback JOURNAL] [--journal FILE]`: applies
//! a plan through the admin REST API, guarded. Without `--execute` it prints every call and
//! checks for drift without changing anything. With it: the live owner of every bundle is checked
//! against the plan first (a drifted bundle refuses the run), the calls go in batches, each batch
//! is verified after `--wait` (destination honoured, or where the bundle went), the run stops at
//! the first failure or drift, and a journal is written after every step. The model (steps, drift,
//! verification, journal) is core's [`lbplan_core::act::apply`]; this module does the IO. Same
//! credential rules as `collect`. See `docs/apply.md`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lbplan_core::act::apply::{
    ApplyPlan, Journal, LiveOwners, Mode, Session, SessionError, SheddingBefore, StepStatus,
    drifted, read_plan,
};
use lbplan_core::act::export::{StepCall, set_shedding_call, unset_shedding_call};
use lbplan_core::act::safety::{Assessment, Limits};
use lbplan_core::config::Profile;

use crate::apply_live::Admin;
use crate::apply_signal;
use crate::atomic_write::{self, Existing};
use crate::collect::auth::Redactor;
use crate::collect::http::HttpOptions;
use crate::connection_args::ConnectionArgs;
use crate::exit::CliError;
use crate::input_files::read_text;
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
    /// Carry out a plan the safety policy refuses (judged worse, a snapshot older than
    /// --max-age or dated in the future, made with another profile than the cluster's version):
    /// the hazards are still printed first and recorded in the journal.
    #[arg(long = "i-know")]
    i_know: bool,
    /// The oldest snapshot a plan may come from without --i-know (`15m`, `1h`, `2d`), measured
    /// from the snapshot's capture time to now.
    #[arg(long, value_name = "DURATION", default_value = "15m", value_parser = parse_age)]
    max_age: Duration,
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
    /// After the last batch of a successful run, collect a fresh snapshot (as `lbplan collect`,
    /// same credential rules) and print `lbplan verify`'s report: each bundle where predicted,
    /// each broker's usage against the prediction, brokers not yet reported since the apply.
    /// Exit status 1 when something is not as predicted.
    #[arg(long, requires = "execute")]
    verify: bool,
    /// With --verify: wait this long before collecting (`60s`, `5m`; at most 15m, Pulsar's
    /// default loadBalancerReportUpdateMaxIntervalMinutes), so the brokers' load reports can
    /// follow the moves.
    #[arg(long, value_name = "DURATION", requires = "verify", default_value = "0s",
          value_parser = parse_verify_after)]
    verify_after: Duration,
    /// With --verify: the report's format.
    #[arg(long, value_enum, requires = "verify", default_value = "text")]
    format: crate::cmd_verify::Format,
    /// With --verify: write the report here instead of stdout (a symlink planted at the path is
    /// replaced, never followed).
    #[arg(short, long, value_name = "FILE", requires = "verify")]
    output: Option<PathBuf>,
}

/// The longest `--verify-after`: Pulsar's default `loadBalancerReportUpdateMaxIntervalMinutes`,
/// after which every broker has reported at least once.
const MAX_VERIFY_AFTER: Duration = Duration::from_secs(15 * 60);

fn parse_verify_after(text: &str) -> Result<Duration, String> {
    parse_wait(text).and_then(|d| {
        if d <= MAX_VERIFY_AFTER {
            Ok(d)
        } else {
            Err(format!("`{}`: at most 15m", text.trim()))
        }
    })
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

/// `--max-age`: `90s`, `15m`, `2h`, `1d`, or a number of seconds; at most 30 days.
fn parse_age(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (num, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => (t.get(..i).unwrap_or(""), t.get(i..).unwrap_or("")),
        None => (t, "s"),
    };
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{t}`: expected e.g. 15m, 2h or 1d"))?;
    let unit_secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(format!("`{t}`: the unit is s, m, h or d")),
    };
    n.checked_mul(unit_secs)
        .filter(|s| *s <= 30 * 86_400)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("`{t}`: expected at most 30d"))
}

/// When the run's first call was sent (ms since the epoch): a broker's load report written
/// before it predates the moves (`--verify`'s "not yet reported since the apply").
static FIRST_BATCH_AT_MS: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);

/// Now, in ms since the epoch (core has no clock: the policy is given it).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// The policy's limits for this run; `cluster_profile` when the broker's version was read.
fn limits(args: &Args, cluster_profile: Option<String>) -> Limits {
    Limits {
        now_ms: now_ms(),
        max_age_ms: i64::try_from(args.max_age.as_millis()).unwrap_or(i64::MAX),
        cluster_profile,
    }
}

/// The header of every listing: the verdict first, the plan's context, then each hazard and
/// whether it was acknowledged.
fn policy_text(a: &Assessment, mode: Mode) -> String {
    let mut out = String::new();
    for line in a.header_lines() {
        let _ = writeln!(out, "{line}");
    }
    for h in &a.hazards {
        let _ = writeln!(out, "HAZARD: {}", h.describe());
    }
    if a.needs_acknowledgement() {
        let _ = writeln!(
            out,
            "{}",
            if mode == Mode::Rollback {
                "(a rollback moves bundles back to where they were; it is not refused for these)"
            } else if a.acknowledged {
                "Acknowledged with --i-know: the run goes ahead; the journal records it."
            } else {
                "Without --i-know, --execute refuses to send anything."
            }
        );
    }
    out
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

fn read_journal(path: &Path) -> Result<Journal, CliError> {
    let text = read_text(path)?;
    Journal::from_json(&text).map_err(|e| CliError::BadInput(format!("{}: {e}", path.display())))
}

/// Where the journal is written, whole, after every step (never with the credential in it).
struct JournalFile {
    path: PathBuf,
    redactor: Redactor,
}

impl JournalFile {
    fn save(&self, journal: &Journal) -> Result<(), CliError> {
        let text = self.redactor.text(&journal.to_json());
        atomic_write::write_file(&self.path, text.as_bytes(), Existing::ReplaceEntry)
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
fn listing(session: &Session, args: &Args, pauses: bool) -> String {
    let mut out = String::new();
    let what = match session.mode {
        Mode::Apply => "Apply",
        Mode::Resume => "Resume",
        Mode::Rollback => "Rollback",
    };
    let _ = writeln!(
        out,
        "{what}: {} call(s) in batches of {}, each batch verified after {:?}.",
        session.pending.len(),
        args.batch,
        args.wait
    );
    let _ = writeln!(
        out,
        "Before the first call: the owner of every bundle is read (GET /admin/v2/brokers/CLUSTER, \
         then GET /admin/v2/brokers/CLUSTER/BROKER/ownedNamespaces); a bundle not on its expected \
         broker refuses the run."
    );
    if session.journal.shedding_left_paused() {
        let _ = writeln!(
            out,
            "Automatic shedding was left paused by an earlier run of this journal: it is put back at the end of this run ({}).",
            restore_note(&session.journal)
        );
    } else if pauses {
        let _ = writeln!(
            out,
            "{}  (the previous value is kept in the journal and restored afterwards, or DELETE {} when there was no override)",
            call_line_raw(&set_shedding_call(false)),
            unset_shedding_call().path
        );
    }
    let batch_plan = session.batch_plan(args.batch as usize);
    for note in &batch_plan.notes {
        let _ = writeln!(out, "# {note}");
    }
    for (b, batch) in batch_plan.batches.iter().enumerate() {
        let _ = writeln!(out, "batch {}:", b + 1);
        for i in batch {
            if let Some(s) = session.steps.get(*i) {
                let _ = writeln!(out, "  {}. {}", s.index + 1, call_line(&s.step));
                if let Some(e) = &s.expected {
                    let _ = writeln!(out, "     # expected: {e}");
                }
                let _ = writeln!(out, "     # {}", s.step.call.note);
            }
        }
    }
    for s in &session.permanent_splits {
        let _ = writeln!(
            out,
            "# {s} stays split: Pulsar cannot merge bundles, a rollback cannot undo a split."
        );
    }
    out
}

fn call_line_raw(c: &lbplan_core::act::export::RestCall) -> String {
    format!("{} {}", c.method, c.path)
}

fn build_admin(args: &Args) -> Result<(Admin, Redactor, &'static str), CliError> {
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
        connection.source,
    ))
}

pub fn run(args: Args) -> Result<(), CliError> {
    let text = read_text(&args.plan)?;
    let plan = read_plan(&text)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.plan.display())))?;
    let ap = ApplyPlan::from_plan(&plan)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", args.plan.display())))?;
    let from_journal = |path: &Path, start: fn(&ApplyPlan, Journal) -> Result<Session, _>| {
        start(&ap, read_journal(path)?).map_err(|e: SessionError| {
            CliError::BadInput(format!(
                "{}: refused, not a journal of this plan: {e}",
                path.display()
            ))
        })
    };
    let mut session = match (&args.resume, &args.rollback) {
        (Some(j), _) => from_journal(j, Session::resume)?,
        (None, Some(j)) => from_journal(j, Session::rollback)?,
        (None, None) => Session::apply(&ap, ""),
    };
    let pauses = session.pauses_shedding(args.pause_shedding);
    let left_paused = session.journal.shedding_left_paused();
    if session.pending.is_empty() && !(left_paused && args.execute) {
        let a = ap.assess(&limits(&args, None));
        output::to_stdout(policy_text(&a, session.mode).as_bytes())?;
        output::to_stdout(listing(&session, &args, pauses).as_bytes())?;
        say("nothing to do");
        if left_paused {
            say(&format!(
                "automatic shedding was left paused by an earlier run of this journal; --execute \
                 restores it ({})",
                restore_note(&session.journal)
            ));
        }
        return Ok(());
    }
    // From here on a signal (Ctrl-C, kill, an ssh drop, Ctrl-\) only raises a flag: the run stops
    // at the next check and still puts shedding back and writes the journal.
    if args.execute {
        apply_signal::install();
    }

    let (admin, redactor, source) = build_admin(&args)?;
    say(&format!("admin API {} (credential: {source})", admin.base));
    if session.mode == Mode::Apply {
        session.journal.admin_url = admin.base.clone();
    }
    let cluster_profile = match admin.broker_version() {
        Ok(v) => Some(Profile::from_broker_version(&v).name().to_string()),
        Err(e) => {
            say(&format!(
                "cannot read the broker's version ({e}): the plan's profile is not checked"
            ));
            None
        }
    };
    let verify_redactor = redactor.clone();
    let mut assessment = ap.assess(&limits(&args, cluster_profile));
    assessment.acknowledged = args.i_know;
    output::to_stdout(policy_text(&assessment, session.mode).as_bytes())?;
    output::to_stdout(listing(&session, &args, pauses).as_bytes())?;
    session.journal.safety = Some(assessment.clone());
    let jf = JournalFile {
        path: journal_path(&args),
        redactor,
    };
    if args.execute && session.pending.is_empty() {
        // Nothing to send; only the pause an earlier run left behind is still to undo.
        say(&format!(
            "automatic shedding was left paused by an earlier run of this journal; putting it back \
             ({})",
            restore_note(&session.journal)
        ));
        let result = restore(&admin, &jf, &mut session.journal);
        jf.save(&session.journal)?;
        return result;
    }
    let refused = (args.execute && session.mode != Mode::Rollback)
        .then(|| assessment.cli_refusal())
        .flatten();
    let result = match refused {
        // Nothing is sent; a pause an earlier run left behind is still put back below.
        Some(why) => Err(CliError::Failed(format!("{why} Nothing was sent."))),
        None => execute(&args, &admin, &jf, &mut session, pauses, &assessment),
    };
    if !args.execute {
        return result;
    }
    // Every way the run ends (done, failed, drifted, interrupted) comes back here: shedding goes
    // back as the journal recorded it before the first pause.
    let mut result = result;
    if session.journal.shedding_restore_call().is_some() {
        let restored = restore(&admin, &jf, &mut session.journal);
        if result.is_ok() {
            result = restored;
        } else if let Err(e) = restored {
            output::message("lbplan: error: ", &e.to_string());
        }
    }
    jf.save(&session.journal)?;
    let (done, failed, pending) = session.journal.counts();
    say(&format!(
        "journal {}: {done} done, {failed} failed or drifted, {pending} pending",
        jf.path.display()
    ));
    if args.verify && result.is_ok() && session.mode != Mode::Rollback {
        return verify_after_apply(&args, &admin, &verify_redactor, source, &plan);
    }
    if args.verify && session.mode == Mode::Rollback {
        say("--verify compares a plan with the cluster after it; a rollback is not verified");
    }
    result
}

/// `--verify`: waits `--verify-after`, reads the owners live, collects a fresh snapshot through
/// `collect`'s code path (the same client, so the same credential rules) and prints core's
/// verification of the plan against it (`plan::verify::verify_with`: brokers whose reports
/// predate the apply are "not yet reported", the owners read live place the bundles).
fn verify_after_apply(
    args: &Args,
    admin: &Admin,
    redactor: &Redactor,
    source: &'static str,
    plan: &lbplan_core::plan::Plan,
) -> Result<(), CliError> {
    let applied_at_ms = match FIRST_BATCH_AT_MS.load(std::sync::atomic::Ordering::Relaxed) {
        0 => now_ms(),
        t => t,
    };
    if !args.verify_after.is_zero() {
        say(&format!(
            "verify: waiting {:?} for the brokers' load reports to follow the moves",
            args.verify_after
        ));
        if !apply_signal::sleep(args.verify_after) {
            return Err(CliError::Failed(
                "interrupted before the verification; run `lbplan collect` and `lbplan verify` \
                 later"
                    .to_string(),
            ));
        }
    }
    let cluster = match &args.cluster {
        Some(c) => c.clone(),
        None => admin.cluster_name().map_err(CliError::Failed)?,
    };
    let owners = admin
        .live_owners(&cluster)
        .map_err(|e| CliError::Failed(format!("verify: cannot read the bundles' owners: {e}")))?;
    say(&format!("verify: collecting a fresh snapshot of {cluster}"));
    let opts = crate::collect::gather::Options {
        admin_base: admin.base.clone(),
        broker_scheme: admin.scheme.clone(),
        namespaces: Vec::new(),
        cluster: Some(cluster),
        concurrency: 4,
        credential: source,
        credential_to_brokers: admin.credential_to_brokers,
    };
    let progress = crate::collect::progress::Progress::new(false, redactor.clone());
    let gathered = crate::cmd_collect::collect_once(&admin.client, &progress, &opts, redactor)?;
    if !gathered.any_success {
        return Err(CliError::Failed(
            "verify: no request of the collection succeeded".to_string(),
        ));
    }
    if gathered.missing > 0 {
        say(&format!(
            "verify: {} item(s) of the snapshot could not be fetched (see the import warnings)",
            gathered.missing
        ));
    }
    let mut after = crate::cmd_collect::import_collected(&gathered.files, false)?;
    // The snapshot is of now: it was collected after the apply.
    after.captured_at_ms = Some(now_ms());
    let report = lbplan_core::plan::verify::verify_with(
        plan,
        &after,
        &lbplan_core::plan::verify::VerifyOptions {
            applied_at_ms: Some(applied_at_ms),
            live_owners: Some(owners),
        },
    )
    .map_err(|e| CliError::Failed(format!("verify: {e}")))?;
    crate::cmd_verify::write_report(&report, args.format, args.output.as_deref())
}

/// How the journal's shedding setting is put back, for the messages.
fn restore_note(journal: &Journal) -> String {
    journal
        .shedding_restore_call()
        .map(|c| c.note)
        .unwrap_or_default()
}

/// The pre-flight check, then (with `--execute`) the pause and the batches. The caller restores
/// shedding afterwards, whatever this returns.
fn execute(
    args: &Args,
    admin: &Admin,
    jf: &JournalFile,
    session: &mut Session,
    pauses: bool,
    assessment: &Assessment,
) -> Result<(), CliError> {
    let cluster = match &args.cluster {
        Some(c) => c.clone(),
        None => admin.cluster_name().map_err(CliError::Failed)?,
    };
    let owners = admin
        .live_owners(&cluster)
        .map_err(|e| CliError::Failed(format!("cannot read the bundles' owners: {e}")))?;
    // A resumed run may have sent steps it could not verify (interrupted during the wait): those
    // the cluster already shows as applied are done, not drifted.
    let pre = session.preflight(&owners);
    for (i, outcome) in &pre.already_applied {
        say(&format!(
            "step {} already applied: {}",
            i + 1,
            outcome.describe()
        ));
    }
    if !args.execute {
        for d in &pre.drift {
            say(&format!("drifted: {}", d.describe()));
        }
        if session.mode != Mode::Rollback && !assessment.allows() {
            say("dry run: --execute would refuse without --i-know (see the hazards above)");
        }
        let text = if pre.drift.is_empty() {
            "dry run: no bundle drifted; nothing was changed. Add --execute to send the calls."
                .to_string()
        } else {
            format!(
                "dry run: {} bundle(s) drifted since the plan's snapshot: --execute would refuse. \
                 Nothing was changed.",
                pre.drift.len()
            )
        };
        say(&text);
        return Ok(());
    }

    if !pre.drift.is_empty() {
        for d in &pre.drift {
            say(&format!("drifted: {}", d.describe()));
            session.record_drift(d);
        }
        jf.save(&session.journal)?;
        return Err(CliError::Failed(format!(
            "refused: {} bundle(s) are not where the plan expects them; nothing was sent \
             (re-plan from a fresh snapshot). Journal: {}",
            pre.drift.len(),
            jf.path.display()
        )));
    }
    jf.save(&session.journal)?;
    let run = Run {
        admin,
        cluster: &cluster,
        wait: args.wait,
        jf,
    };
    if pauses {
        pause(admin, jf, &mut session.journal)?;
    }
    if apply_signal::interrupted() {
        return Err(run.stopped("interrupted".to_string()));
    }
    run.batches(session, args.batch as usize, owners)
}

/// Pauses shedding. The setting before the first pause is read and kept in the journal once: a
/// journal that already has it (an earlier run paused it and was killed, or paused and restored
/// it) keeps it, since the value read now may be our own pause.
fn pause(admin: &Admin, jf: &JournalFile, journal: &mut Journal) -> Result<(), CliError> {
    if journal.shedding_left_paused() {
        say(&format!(
            "automatic shedding was left paused by an earlier run of this journal; it stays \
             paused for this run and is put back at its end ({})",
            restore_note(journal)
        ));
    }
    if journal.needs_shedding_read() {
        let current = admin.shedding_override().map_err(|e| {
            CliError::Failed(format!("cannot read loadBalancerSheddingEnabled: {e}"))
        })?;
        let before = SheddingBefore::from_override(current.as_deref()).ok_or_else(|| {
            CliError::Failed(
                "loadBalancerSheddingEnabled has a value that is not true or false; nothing was \
                 changed"
                    .to_string(),
            )
        })?;
        journal.record_pause(before);
    } else if let Some(before) = journal.shedding_before {
        journal.record_pause(before);
    }
    // Written before the call: a run killed right after the pause still knows what to put back.
    jf.save(journal)?;
    admin
        .send(&set_shedding_call(false))
        .map_err(|e| CliError::Failed(format!("cannot pause shedding: {e}")))?;
    say("automatic shedding paused (loadBalancerSheddingEnabled=false)");
    Ok(())
}

/// Puts the shedding setting back as the journal recorded it before the first pause. When the
/// call fails, says so loudly with the exact commands to run by hand.
fn restore(admin: &Admin, jf: &JournalFile, journal: &mut Journal) -> Result<(), CliError> {
    let Some(call) = journal.shedding_restore_call() else {
        return Ok(());
    };
    match admin.send(&call) {
        Ok(_) => {
            journal.shedding_restored = true;
            say(&format!("automatic shedding restored ({})", call.note));
            jf.save(journal)
        }
        Err(e) => {
            let by_hand = journal.shedding_by_hand().unwrap_or_default();
            jf.save(journal)?;
            Err(CliError::Failed(format!(
                "AUTOMATIC SHEDDING IS STILL PAUSED (loadBalancerSheddingEnabled=false): restoring \
                 it ({}) FAILED: {e}. Put it back now: {by_hand}   (a later `lbplan apply PLAN \
                 --resume {} --execute` also restores it)",
                call.note,
                jf.path.display()
            )))
        }
    }
}

struct Run<'a> {
    admin: &'a Admin,
    cluster: &'a str,
    wait: Duration,
    jf: &'a JournalFile,
}

impl Run<'_> {
    fn stopped(&self, why: String) -> CliError {
        CliError::Failed(format!(
            "{why}; stopped. Journal: {} (--resume or --rollback it)",
            self.jf.path.display()
        ))
    }

    /// Sends the session's pending steps batch by batch; each batch is checked for drift against
    /// the owners read last, sent, waited for, and verified.
    fn batches(
        &self,
        session: &mut Session,
        size: usize,
        mut owners: LiveOwners,
    ) -> Result<(), CliError> {
        let total = session.journal.steps.len();
        let plan = session.batch_plan(size);
        for note in &plan.notes {
            say(note);
        }
        for batch in plan.batches {
            let _ = FIRST_BATCH_AT_MS.compare_exchange(
                0,
                now_ms(),
                std::sync::atomic::Ordering::Relaxed,
                std::sync::atomic::Ordering::Relaxed,
            );
            let drift = drifted(&session.steps, &batch, &owners);
            if let Some(d) = drift.first() {
                session.record_drift(d);
                self.jf.save(&session.journal)?;
                return Err(self.stopped(format!("drifted: {}", d.describe())));
            }
            for &pos in &batch {
                let Some(step) = session.steps.get(pos) else {
                    continue;
                };
                if apply_signal::interrupted() {
                    return Err(self.stopped("interrupted".to_string()));
                }
                say(&format!(
                    "step {} of {}: {} {}",
                    step.index + 1,
                    total,
                    step.step.call.method,
                    step.step.call.path
                ));
                if let Err(e) = self.admin.send(&step.step.call) {
                    let index = step.index;
                    session.record_stop(index, StepStatus::Failed, e.clone());
                    self.jf.save(&session.journal)?;
                    return Err(self.stopped(format!("call failed: {e}")));
                }
            }
            if !apply_signal::sleep(self.wait) {
                session.record_unverified(&batch);
                self.jf.save(&session.journal)?;
                return Err(self.stopped(
                    "interrupted while waiting (the last batch was sent, not verified)".to_string(),
                ));
            }
            owners = self
                .admin
                .live_owners(self.cluster)
                .map_err(|e| self.stopped(format!("cannot read the owners: {e}")))?;
            for &pos in &batch {
                let Some(outcome) = session.record_verified(pos, &owners) else {
                    continue;
                };
                let label = session.label(pos);
                say(&format!("{label}: {}", outcome.describe()));
                self.jf.save(&session.journal)?;
                if !outcome.ok() {
                    return Err(self.stopped(format!(
                        "verification failed: {label} {}",
                        outcome.describe()
                    )));
                }
            }
        }
        Ok(())
    }
}
