//! The dashboard's guarded Apply, Resume and Roll back, the browser's IO around core's
//! `act::apply::Session` (the same model `lbplan apply`, `--resume` and `--rollback` run): read
//! the cluster's name and every active broker's `ownedNamespaces`, refuse the run if a bundle
//! drifted (a resume first counts the steps the cluster shows as already applied), optionally pause
//! automatic shedding, send the calls in batches, wait, verify each bundle's new owner, stop at the
//! first failure or drift, and restore the shedding setting whatever happened. Every step updates
//! the journal the export panel shows and offers as a download. A dry run does the reads and the
//! pre-flight check only. Requests go only to the host's
//! `adminBaseUrl`, with the host's `authHeaders`.

use std::cell::Cell;
use std::rc::Rc;

use lbplan_core::act::apply::{
    Journal, LiveOwners, Mode, Session, SheddingBefore, StepStatus, drifted,
};
use lbplan_core::act::export::{
    RestCall, active_brokers_call, broker_version_call, dynamic_config_call, owned_bundles_call,
    runtime_config_call, set_shedding_call,
};
use lbplan_core::config::Profile;
use lbplan_core::model::{LocalBrokerData, Snapshot};
use lbplan_core::plan::Plan;
use lbplan_core::plan::verify::{Verification, VerifyOptions, live_after, verify_with};
use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Where the calls go.
#[derive(Clone)]
pub struct Target {
    pub base: String,
    pub auth: Option<js_sys::Function>,
}

/// What the run reports as it goes.
pub enum Progress {
    /// A call that changes the cluster, with its HTTP status (0: no response) and message.
    Call(RestCall, u16, String),
    Journal(Journal),
    /// A batch's calls start now (ms since the epoch): Verify's bound for "reported since".
    BatchStarted(i64),
}

async fn headers_from(auth: Option<js_sys::Function>) -> Result<web_sys::Headers, String> {
    let headers = web_sys::Headers::new().map_err(|_| "headers")?;
    let Some(f) = auth else {
        return Ok(headers);
    };
    let mut value = f
        .call0(&JsValue::NULL)
        .map_err(|_| "authHeaders() threw".to_string())?;
    if let Some(p) = value.dyn_ref::<js_sys::Promise>() {
        value = JsFuture::from(p.clone())
            .await
            .map_err(|_| "authHeaders() rejected".to_string())?;
    }
    if let Some(obj) = value.dyn_ref::<js_sys::Object>() {
        for pair in js_sys::Object::entries(obj).iter() {
            let pair: js_sys::Array = pair.unchecked_into();
            if let (Some(k), Some(v)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                headers
                    .set(&k, &v)
                    .map_err(|_| format!("authHeaders(): bad header `{k}`"))?;
            }
        }
    }
    Ok(headers)
}

/// One request: (status, body text or status text); status 0 when there was no response.
pub async fn send(target: &Target, call: &RestCall) -> (u16, String) {
    let headers = match headers_from(target.auth.clone()).await {
        Ok(h) => h,
        Err(e) => return (0, e),
    };
    let init = web_sys::RequestInit::new();
    init.set_method(call.method);
    if let Some(body) = &call.body {
        let _ = headers.set("Content-Type", "application/json");
        init.set_body(&JsValue::from_str(body));
    }
    init.set_headers(&headers);
    let url = format!("{}{}", target.base.trim_end_matches('/'), call.path);
    let Ok(req) = web_sys::Request::new_with_str_and_init(&url, &init) else {
        return (0, format!("bad URL {url}"));
    };
    let Some(window) = web_sys::window() else {
        return (0, "no window".into());
    };
    match JsFuture::from(window.fetch_with_request(&req)).await {
        Ok(resp) => {
            let resp: web_sys::Response = resp.unchecked_into();
            let status = resp.status();
            if call.method != "GET" {
                return (status, resp.status_text());
            }
            let text = match resp.text() {
                Ok(p) => JsFuture::from(p)
                    .await
                    .ok()
                    .and_then(|t| t.as_string())
                    .unwrap_or_default(),
                Err(_) => String::new(),
            };
            (status, text)
        }
        Err(e) => (
            0,
            e.as_string()
                .unwrap_or_else(|| "network error (CORS or unreachable)".into()),
        ),
    }
}

async fn get_json(target: &Target, call: &RestCall) -> Result<Value, String> {
    let (status, text) = send(target, call).await;
    if !(200..300).contains(&status) {
        return Err(format!("GET {} → {status}", call.path));
    }
    serde_json::from_str(&text).map_err(|e| format!("GET {}: not JSON ({e})", call.path))
}

async fn cluster_name(target: &Target) -> Result<String, String> {
    get_json(target, &runtime_config_call())
        .await?
        .get("clusterName")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| "the runtime configuration has no clusterName".to_string())
}

/// Who owns each bundle now: the union of the active brokers' `ownedNamespaces`.
async fn live_owners(target: &Target, cluster: &str) -> Result<LiveOwners, String> {
    let brokers = get_json(target, &active_brokers_call(cluster)).await?;
    let mut owners = LiveOwners::new();
    for broker in brokers.as_array().into_iter().flatten() {
        let Some(broker) = broker.as_str() else {
            continue;
        };
        let owned = get_json(target, &owned_bundles_call(cluster, broker)).await?;
        for bundle in owned.as_object().into_iter().flat_map(|m| m.keys()) {
            owners.insert(bundle.clone(), broker.to_string());
        }
    }
    Ok(owners)
}

async fn sleep_ms(ms: u32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
                &resolve,
                i32::try_from(ms).unwrap_or(i32::MAX),
            );
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// What a dry run found: the line shown, whether Send may be enabled (the reads succeeded and
/// no bundle drifted), the calls it checked (Send is for exactly these) and the profile the
/// brokers' version implies (core's `Profile::from_broker_version`), when it could be read.
#[derive(Clone, Debug, PartialEq)]
pub struct DryRun {
    pub text: String,
    pub passed: bool,
    pub calls: Vec<RestCall>,
    pub cluster_profile: Option<String>,
}

/// The brokers' version (`GET /admin/v2/brokers/version`: the bare string, or a JSON string
/// through some proxies), as `lbplan apply` reads it.
async fn broker_version(target: &Target) -> Option<String> {
    let (status, text) = send(target, &broker_version_call()).await;
    let v = text.trim().trim_matches('"').trim();
    ((200..300).contains(&status)
        && !v.is_empty()
        && v.len() <= 100
        && !v.chars().any(char::is_control))
    .then(|| v.to_string())
}

/// The dry run the confirmation runs before Send can be pressed: the same reads and pre-flight
/// check as the run (cluster name, every active broker's owned bundles, drift, steps a resume
/// finds already applied) on a copy of the session, and the brokers' version for the profile
/// check; nothing that changes the cluster is sent.
pub async fn dry_run(target: Target, session: Session, calls: Vec<RestCall>) -> DryRun {
    let mut session = session;
    let failed = |text: String| DryRun {
        text,
        passed: false,
        calls: calls.clone(),
        cluster_profile: None,
    };
    let cluster = match cluster_name(&target).await {
        Ok(c) => c,
        Err(e) => return failed(format!("Dry run: cannot read the cluster's name ({e}).")),
    };
    let owners = match live_owners(&target, &cluster).await {
        Ok(o) => o,
        Err(e) => return failed(format!("Dry run: cannot read the owners ({e}).")),
    };
    let version = broker_version(&target).await;
    let pre = session.preflight(&owners);
    let mut out = format!(
        "Dry run on cluster {cluster}: {} call(s) would be sent",
        session.pending.len()
    );
    if !pre.already_applied.is_empty() {
        out.push_str(&format!(
            "; {} step(s) already applied (recorded as done, not sent again)",
            pre.already_applied.len()
        ));
    }
    if pre.drift.is_empty() {
        out.push_str("; no bundle drifted. Nothing was sent.");
    } else {
        let names: Vec<String> = pre.drift.iter().map(|d| d.describe()).collect();
        out.push_str(&format!(
            "; {} bundle(s) drifted, the run would be refused: {}. Nothing was sent. Re-plan from a fresh snapshot.",
            pre.drift.len(),
            names.join("; ")
        ));
    }
    match &version {
        Some(v) => out.push_str(&format!(
            " The brokers run Pulsar {v} (profile {}).",
            Profile::from_broker_version(v).name()
        )),
        None => out.push_str(
            " The brokers' version could not be read: the plan's profile is not checked.",
        ),
    }
    DryRun {
        text: out,
        passed: pre.drift.is_empty(),
        calls,
        cluster_profile: version.map(|v| Profile::from_broker_version(&v).name().to_string()),
    }
}

/// The dashboard's Verify after an apply: the owners read live through the same admin URL, the
/// fresh load report of the broker behind it (`GET /admin/v2/broker-stats/load-report`; the
/// other brokers' reports can only be read at their own addresses, so they count as not yet
/// reported), and core's `plan::verify` on the snapshot `live_after` builds from them.
pub async fn verify(
    target: Target,
    plan: Plan,
    before: Rc<Snapshot>,
    applied_at_ms: i64,
) -> Result<Verification, String> {
    let cluster = cluster_name(&target)
        .await
        .map_err(|e| format!("cannot read the cluster's name ({e})"))?;
    let owners = live_owners(&target, &cluster)
        .await
        .map_err(|e| format!("cannot read the owners ({e})"))?;
    let report = RestCall {
        method: "GET",
        path: "/admin/v2/broker-stats/load-report".to_string(),
        body: None,
        note: "the load report of the broker behind the admin URL".to_string(),
    };
    let (status, text) = send(&target, &report).await;
    let fresh: Vec<LocalBrokerData> = if (200..300).contains(&status) && text.len() <= 64 << 20 {
        serde_json::from_str(&text).ok().into_iter().collect()
    } else {
        Vec::new()
    };
    let now = js_sys::Date::now() as i64;
    let after = live_after(&before, &owners, &fresh, now);
    verify_with(
        &plan,
        &after,
        &VerifyOptions {
            applied_at_ms: Some(applied_at_ms),
            live_owners: Some(owners),
        },
    )
    .map_err(|e| e.to_string())
}

/// Runs a guarded apply, resume or rollback; returns the line the panel shows at the end.
pub async fn run(
    target: Target,
    mut session: Session,
    batch: usize,
    wait_ms: u32,
    pause: bool,
    stop: Rc<Cell<bool>>,
    report: impl Fn(Progress),
) -> String {
    report(Progress::Journal(session.journal.clone()));
    let cluster = match cluster_name(&target).await {
        Ok(c) => c,
        Err(e) => return format!("Stopped before any call: cannot read the cluster's name ({e})."),
    };
    let mut owners = match live_owners(&target, &cluster).await {
        Ok(o) => o,
        Err(e) => return format!("Stopped before any call: cannot read the owners ({e})."),
    };
    // A pause an earlier run of this journal left behind is kept through this run and put back
    // at its end, whatever the run's options (core's `Session::pauses_shedding`).
    let pause = session.pauses_shedding(pause);
    let pre = session.preflight(&owners);
    let mut end = if !pre.drift.is_empty() {
        for d in &pre.drift {
            session.record_drift(d);
        }
        format!(
            "Refused: {} bundle(s) are not where the plan expects them; nothing was sent. Re-plan from a fresh snapshot.",
            pre.drift.len()
        )
    } else if session.pending.is_empty() {
        "Nothing to send: the cluster shows every remaining step as applied.".to_string()
    } else {
        match pause_shedding(&target, &mut session, pause, &report).await {
            Err(e) => e,
            Ok(()) => run_batches(
                &target,
                &mut session,
                &cluster,
                &mut owners,
                batch,
                wait_ms,
                &stop,
                &report,
            )
            .await
            .unwrap_or_else(|e| e),
        }
    };
    if let Some(call) = session.journal.shedding_restore_call() {
        let (status, message) = send(&target, &call).await;
        session.journal.shedding_restored = (200..300).contains(&status);
        if !session.journal.shedding_restored {
            end.push_str(&format!(
                " AUTOMATIC SHEDDING IS STILL PAUSED: restoring loadBalancerSheddingEnabled FAILED. Put it back now: {}",
                session.journal.shedding_by_hand().unwrap_or_default()
            ));
        }
        report(Progress::Call(call, status, message));
    }
    report(Progress::Journal(session.journal));
    end
}

/// Pauses shedding when the run does. The setting before the first pause is read only when the
/// journal has none (read after a pause it would be our own `false`) and is never replaced.
async fn pause_shedding(
    target: &Target,
    session: &mut Session,
    pause: bool,
    report: &impl Fn(Progress),
) -> Result<(), String> {
    if !pause {
        return Ok(());
    }
    let before = if session.journal.needs_shedding_read() {
        match get_json(target, &dynamic_config_call()).await {
            Ok(v) => SheddingBefore::from_override(
                v.get("loadBalancerSheddingEnabled").and_then(Value::as_str),
            ),
            Err(_) => None,
        }
    } else {
        session.journal.shedding_before
    };
    let Some(before) = before else {
        return Err(
            "Stopped before any call: cannot read loadBalancerSheddingEnabled.".to_string(),
        );
    };
    session.journal.record_pause(before);
    report(Progress::Journal(session.journal.clone()));
    let call = set_shedding_call(false);
    let (status, message) = send(target, &call).await;
    report(Progress::Call(call, status, message));
    report(Progress::Journal(session.journal.clone()));
    if (200..300).contains(&status) {
        Ok(())
    } else {
        Err("Stopped: pausing automatic shedding failed; nothing else was sent.".to_string())
    }
}

#[allow(clippy::too_many_arguments)]
async fn run_batches(
    target: &Target,
    session: &mut Session,
    cluster: &str,
    owners: &mut LiveOwners,
    batch: usize,
    wait_ms: u32,
    stop: &Cell<bool>,
    report: &impl Fn(Progress),
) -> Result<String, String> {
    let total = session.pending.len();
    let what = if session.is_rollback() {
        "moves back"
    } else {
        "calls"
    };
    let mut sent = 0;
    for group in session.batches_noting_cuts(batch) {
        report(Progress::BatchStarted(js_sys::Date::now() as i64));
        if let Some(d) = drifted(&session.steps, &group, owners).first() {
            session.record_drift(d);
            report(Progress::Journal(session.journal.clone()));
            return Err(format!("Stopped: drifted: {}.", d.describe()));
        }
        for &pos in &group {
            let Some(step) = session.steps.get(pos) else {
                continue;
            };
            if stop.get() {
                return Err(format!("Stopped after {sent} of {total} {what}."));
            }
            let (index, call) = (step.index, step.step.call.clone());
            let (status, message) = send(target, &call).await;
            report(Progress::Call(call, status, message.clone()));
            sent += 1;
            if !(200..300).contains(&status) {
                session.record_stop(
                    index,
                    StepStatus::Failed,
                    format!("HTTP {status} {message}"),
                );
                report(Progress::Journal(session.journal.clone()));
                return Err(format!(
                    "Stopped at {sent} of {total} {what}: step {} failed; nothing after it was sent.",
                    index + 1
                ));
            }
        }
        sleep_ms(wait_ms).await;
        *owners = match live_owners(target, cluster).await {
            Ok(o) => o,
            Err(e) => {
                session.record_unverified(&group);
                report(Progress::Journal(session.journal.clone()));
                return Err(format!("Stopped: cannot read the owners to verify ({e})."));
            }
        };
        for &pos in &group {
            let Some(outcome) = session.record_verified(pos, owners) else {
                continue;
            };
            report(Progress::Journal(session.journal.clone()));
            if !outcome.ok() {
                return Err(format!(
                    "Stopped: verification failed: {} {}.",
                    session.label(pos),
                    outcome.describe()
                ));
            }
        }
    }
    Ok(match session.mode {
        Mode::Rollback => {
            let mut m = format!("All {total} moves back succeeded and were verified.");
            if !session.permanent_splits.is_empty() {
                m.push_str(&format!(
                    " {} split bundle(s) stay split (Pulsar cannot merge bundles).",
                    session.permanent_splits.len()
                ));
            }
            m
        }
        _ => format!("All {total} calls succeeded and were verified."),
    })
}
