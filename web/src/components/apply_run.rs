//! The dashboard's guarded Apply, the browser's IO around core's `plan::apply` model (the same one
//! `lbplan apply` runs): read the cluster's name and every active broker's `ownedNamespaces`, refuse
//! the run if a bundle drifted from the plan's snapshot, optionally pause automatic shedding, send
//! the calls in batches, wait, verify each bundle's new owner, stop at the first failure or drift,
//! and restore the shedding setting whatever happened. Every step updates the journal the export
//! panel shows. Requests go only to the host's `adminBaseUrl`, with the host's `authHeaders`.

use std::cell::Cell;
use std::rc::Rc;

use lbplan_core::plan::apply::{
    ApplyPlan, Journal, LiveOwners, SheddingBefore, StepStatus, batches, drifted, verify,
};
use lbplan_core::plan::export::{
    RestCall, active_brokers_call, dynamic_config_call, owned_bundles_call, runtime_config_call,
    set_shedding_call, unset_shedding_call,
};
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

/// Runs the guarded apply; returns the line the panel shows at the end.
pub async fn run(
    target: Target,
    plan: ApplyPlan,
    batch: usize,
    wait_ms: u32,
    pause: bool,
    stop: Rc<Cell<bool>>,
    report: impl Fn(Progress),
) -> String {
    let mut journal = Journal::new(&plan, &target.base);
    report(Progress::Journal(journal.clone()));
    let cluster = match cluster_name(&target).await {
        Ok(c) => c,
        Err(e) => return format!("Stopped before any call: cannot read the cluster's name ({e})."),
    };
    let mut owners = match live_owners(&target, &cluster).await {
        Ok(o) => o,
        Err(e) => return format!("Stopped before any call: cannot read the owners ({e})."),
    };
    let all: Vec<usize> = (0..plan.steps.len()).collect();
    let drift = drifted(&plan.steps, &all, &owners);
    if !drift.is_empty() {
        for d in &drift {
            journal.record(
                d.index,
                StepStatus::Drifted,
                None,
                d.found.clone(),
                Some(d.describe()),
            );
        }
        report(Progress::Journal(journal));
        return format!(
            "Refused: {} bundle(s) are not where the plan expects them; nothing was sent. Re-plan from a fresh snapshot.",
            drift.len()
        );
    }
    if pause {
        let before = match get_json(&target, &dynamic_config_call()).await {
            Ok(v) => SheddingBefore::from_override(
                v.get("loadBalancerSheddingEnabled").and_then(Value::as_str),
            ),
            Err(_) => None,
        };
        let Some(before) = before else {
            return "Stopped before any call: cannot read loadBalancerSheddingEnabled.".to_string();
        };
        journal.shedding_before = Some(before);
        let call = set_shedding_call(false);
        let (status, message) = send(&target, &call).await;
        report(Progress::Call(call, status, message));
        report(Progress::Journal(journal.clone()));
        if !(200..300).contains(&status) {
            return "Stopped: pausing automatic shedding failed; nothing else was sent."
                .to_string();
        }
    }
    let done = run_batches(
        &target,
        &plan,
        &cluster,
        &mut owners,
        batch,
        wait_ms,
        &stop,
        &mut journal,
        &report,
    )
    .await;
    let mut end = done.unwrap_or_else(|e| e);
    if let Some(before) = journal.shedding_before {
        let call = match before {
            SheddingBefore::Override(v) => set_shedding_call(v),
            SheddingBefore::NoOverride => unset_shedding_call(),
        };
        let (status, message) = send(&target, &call).await;
        journal.shedding_restored = (200..300).contains(&status);
        if !journal.shedding_restored {
            end.push_str(" Restoring loadBalancerSheddingEnabled FAILED: restore it by hand.");
        }
        report(Progress::Call(call, status, message));
    }
    report(Progress::Journal(journal));
    end
}

#[allow(clippy::too_many_arguments)]
async fn run_batches(
    target: &Target,
    plan: &ApplyPlan,
    cluster: &str,
    owners: &mut LiveOwners,
    batch: usize,
    wait_ms: u32,
    stop: &Cell<bool>,
    journal: &mut Journal,
    report: &impl Fn(Progress),
) -> Result<String, String> {
    let total = plan.steps.len();
    let mut sent = 0;
    for group in batches(&(0..total).collect::<Vec<_>>(), batch) {
        if let Some(d) = drifted(&plan.steps, &group, owners).first() {
            journal.record(
                d.index,
                StepStatus::Drifted,
                None,
                d.found.clone(),
                Some(d.describe()),
            );
            report(Progress::Journal(journal.clone()));
            return Err(format!("Stopped: drifted: {}.", d.describe()));
        }
        for &i in &group {
            let Some(step) = plan.steps.get(i) else {
                continue;
            };
            if stop.get() {
                return Err(format!("Stopped after {sent} of {total} calls."));
            }
            let (status, message) = send(target, &step.step.call).await;
            report(Progress::Call(
                step.step.call.clone(),
                status,
                message.clone(),
            ));
            sent += 1;
            if !(200..300).contains(&status) {
                journal.record(
                    i,
                    StepStatus::Failed,
                    None,
                    None,
                    Some(format!("HTTP {status} {message}")),
                );
                report(Progress::Journal(journal.clone()));
                return Err(format!(
                    "Stopped at call {} of {total}: it failed; nothing after it was sent.",
                    i + 1
                ));
            }
        }
        sleep_ms(wait_ms).await;
        *owners = live_owners(target, cluster)
            .await
            .map_err(|e| format!("Stopped: cannot read the owners to verify ({e})."))?;
        for &i in &group {
            let Some(step) = plan.steps.get(i) else {
                continue;
            };
            let owner = step
                .step
                .bundle
                .as_ref()
                .and_then(|b| owners.get(b))
                .cloned();
            let outcome = verify(step, owner.as_deref());
            if !outcome.ok() {
                let why = outcome.describe();
                journal.record(
                    i,
                    StepStatus::Failed,
                    Some(outcome),
                    owner,
                    Some(why.clone()),
                );
                report(Progress::Journal(journal.clone()));
                let label = step.step.bundle.clone().unwrap_or_default();
                return Err(format!("Stopped: verification failed: {label} {why}."));
            }
            journal.record(i, StepStatus::Done, Some(outcome), owner, None);
            report(Progress::Journal(journal.clone()));
        }
    }
    Ok(format!("All {total} calls succeeded and were verified."))
}
