//! Export and apply: the plan as a `pulsar-admin` script, curl calls (with rollback and the "pause
//! automatic shedding" option) or JSON, with copy and download; and, when the host gave an
//! `adminBaseUrl`, the Apply flow: a confirmation listing every REST call, then the calls one at a
//! time with `fetch`, each status shown, stopping at the first failure or on Stop. Nothing is sent
//! without that confirmation.

use std::cell::Cell;
use std::rc::Rc;

use lbplan_core::plan::Plan;
use lbplan_core::plan::export::{ExportOptions, RestCall, rest_calls};
use lbplan_core::plan::export_format::{ExportFormat, export_plan};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

use crate::loader::{copy_to_clipboard, download};

#[derive(Clone, Properties)]
pub struct ExportProps {
    pub plan: Rc<Result<Plan, String>>,
    #[prop_or_default]
    pub readonly: bool,
    #[prop_or_default]
    pub admin_base_url: Option<AttrValue>,
    #[prop_or_default]
    pub auth_headers: Option<js_sys::Function>,
    /// (format, text) after each export the user asks for.
    pub on_export: Callback<(String, String)>,
}

impl PartialEq for ExportProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan)
            && self.readonly == o.readonly
            && self.admin_base_url == o.admin_base_url
            && self.auth_headers == o.auth_headers
    }
}

/// How the format select names a format.
fn label(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::PulsarAdmin => "pulsar-admin script",
        ExportFormat::Curl => "curl (admin REST)",
        ExportFormat::Json => "plan JSON",
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct CallResult {
    pub call: RestCall,
    /// HTTP status, or 0 when the request failed before a response.
    pub status: u16,
    pub message: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ApplyState {
    pub confirming: Option<Vec<RestCall>>,
    pub running: bool,
    pub results: Vec<CallResult>,
    pub finished: Option<String>,
}

pub enum ApplyAction {
    Confirm(Vec<RestCall>),
    Cancel,
    Start,
    Result(CallResult),
    Finished(String),
}

impl Reducible for ApplyState {
    type Action = ApplyAction;
    fn reduce(self: Rc<Self>, a: ApplyAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match a {
            ApplyAction::Confirm(calls) => {
                s = ApplyState {
                    confirming: Some(calls),
                    ..Default::default()
                }
            }
            ApplyAction::Cancel => s.confirming = None,
            ApplyAction::Start => {
                s.running = true;
                s.results.clear();
                s.finished = None;
            }
            ApplyAction::Result(r) => s.results.push(r),
            ApplyAction::Finished(m) => {
                s.running = false;
                s.confirming = None;
                s.finished = Some(m);
            }
        }
        Rc::new(s)
    }
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

async fn send(base: &str, call: &RestCall, auth: Option<js_sys::Function>) -> (u16, String) {
    let headers = match headers_from(auth).await {
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
    let url = format!("{}{}", base.trim_end_matches('/'), call.path);
    let Ok(req) = web_sys::Request::new_with_str_and_init(&url, &init) else {
        return (0, format!("bad URL {url}"));
    };
    let Some(window) = web_sys::window() else {
        return (0, "no window".into());
    };
    match JsFuture::from(window.fetch_with_request(&req)).await {
        Ok(resp) => {
            let resp: web_sys::Response = resp.unchecked_into();
            (resp.status(), resp.status_text())
        }
        Err(e) => (
            0,
            e.as_string()
                .unwrap_or_else(|| "network error (CORS or unreachable)".into()),
        ),
    }
}

#[function_component(ExportPanel)]
pub fn export_panel(p: &ExportProps) -> Html {
    let format = use_state(|| ExportFormat::PulsarAdmin);
    let pause = use_state(|| false);
    let apply = use_reducer(ApplyState::default);
    let stop = use_mut_ref(|| Rc::new(Cell::new(false)));
    let plan = match &*p.plan {
        Ok(plan) => plan.clone(),
        Err(_) => return html! {},
    };
    if p.readonly {
        return html! {};
    }
    // The dashboard's export keeps a worse plan's --i-know guard; Apply asks in its own dialog.
    let opts = ExportOptions {
        pause_automatic_shedding: *pause,
        ..ExportOptions::default()
    };
    let text =
        export_plan(&plan, *format, opts).unwrap_or_else(|e| format!("# cannot export: {e}\n"));
    let on_format = {
        let format = format.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                && let Ok(f) = s.value().parse::<ExportFormat>()
            {
                format.set(f);
            }
        })
    };
    let on_pause = {
        let pause = pause.clone();
        Callback::from(move |_| pause.set(!*pause))
    };
    let on_copy = {
        let (text, f, cb) = (text.clone(), *format, p.on_export.clone());
        Callback::from(move |_| {
            copy_to_clipboard(&text);
            cb.emit((f.name().to_string(), text.clone()));
        })
    };
    let on_download = {
        let (text, f, cb) = (text.clone(), *format, p.on_export.clone());
        Callback::from(move |_| {
            download(f.file_name(), &text, f.media_type());
            cb.emit((f.name().to_string(), text.clone()));
        })
    };
    let apply_ui = p.admin_base_url.clone().map(|base| {
        let calls = rest_calls(
            &plan,
            ExportOptions {
                pause_automatic_shedding: *pause,
                ..ExportOptions::default()
            },
        );
        let on_apply = {
            let apply = apply.clone();
            let calls = calls.clone();
            Callback::from(move |_| {
                if let Ok(c) = &calls {
                    apply.dispatch(ApplyAction::Confirm(c.clone()));
                }
            })
        };
        let on_ok = {
            let apply = apply.clone();
            let stop = stop.clone();
            let auth = p.auth_headers.clone();
            let base = base.to_string();
            Callback::from(move |_| {
                let Some(calls) = apply.confirming.clone() else { return };
                let flag = Rc::new(Cell::new(false));
                *stop.borrow_mut() = flag.clone();
                let dispatcher = apply.dispatcher();
                dispatcher.dispatch(ApplyAction::Start);
                let auth = auth.clone();
                let base = base.clone();
                yew::platform::spawn_local(async move {
                    let mut done = format!("All {} calls succeeded.", calls.len());
                    for (i, call) in calls.iter().enumerate() {
                        if flag.get() {
                            done = format!("Stopped after {i} of {} calls.", calls.len());
                            break;
                        }
                        let (status, message) = send(&base, call, auth.clone()).await;
                        let ok = (200..300).contains(&status);
                        dispatcher.dispatch(ApplyAction::Result(CallResult { call: call.clone(), status, message }));
                        if !ok {
                            done = format!("Stopped at call {} of {}: it failed; nothing after it was sent.", i + 1, calls.len());
                            break;
                        }
                    }
                    dispatcher.dispatch(ApplyAction::Finished(done));
                });
            })
        };
        let on_cancel = {
            let apply = apply.clone();
            Callback::from(move |_| apply.dispatch(ApplyAction::Cancel))
        };
        let on_stop = {
            let stop = stop.clone();
            Callback::from(move |_| stop.borrow().set(true))
        };
        html! {
            <div class="apply">
                <h3>{ "Apply to the cluster" }</h3>
                <p class="muted small">{ format!("Through the admin REST API at {base}. You will see every call before anything is sent.") }</p>
                if let Err(e) = &calls { <p class="error-text">{ format!("Cannot apply: {e}") }</p> }
                <button type="button" data-testid="apply-plan" onclick={on_apply}
                    disabled={apply.running || calls.as_ref().map(|c| c.is_empty()).unwrap_or(true)}>{ "Apply…" }</button>
                if let Some(calls) = &apply.confirming {
                    if !apply.running {
                        <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="apply-title" data-testid="apply-confirm">
                            <h4 id="apply-title">{ format!("Send these {} calls, one at a time?", calls.len()) }</h4>
                            if plan.verdict.is_worse() {
                                // The REST path's counterpart of the script's --i-know: said before the calls are sent.
                                <p class="verdict-banner" role="alert" data-testid="apply-worse">{ &plan.verdict.headline }</p>
                            }
                            <ol class="mono small">
                                { for calls.iter().map(|c| html! { <li>{ format!("{} {}", c.method, c.path) }
                                    if let Some(b) = &c.body { { format!(" body {b}") } }
                                    <div class="muted">{ &c.note }</div></li> }) }
                            </ol>
                            <button type="button" data-testid="apply-confirm-ok" onclick={on_ok}>{ "Send the calls" }</button>
                            <button type="button" onclick={on_cancel}>{ "Cancel" }</button>
                        </div>
                    }
                }
                if apply.running {
                    <button type="button" data-testid="apply-stop" onclick={on_stop}>{ "Stop" }</button>
                    <span class="muted">{ " sending…" }</span>
                }
                if !apply.results.is_empty() {
                    <ol class="small">
                        { for apply.results.iter().map(|r| {
                            let ok = (200..300).contains(&r.status);
                            html! {
                                <li data-testid="apply-result" data-status={r.status.to_string()} class={classes!(if ok { "ok" } else { "failed" })}>
                                    <span class="mono">{ format!("{} {}", r.call.method, r.call.path) }</span>
                                    { format!(" → {} {}", if r.status == 0 { "error".to_string() } else { r.status.to_string() }, r.message) }
                                </li>
                            }
                        }) }
                    </ol>
                }
                if let Some(m) = &apply.finished { <p data-testid="apply-finished">{ m }</p> }
            </div>
        }
    });
    html! {
        <section class="panel export" data-testid="export">
            <h2>{ "Export" }</h2>
            <div class="toolbar">
                <label>{ "Format " }
                    <select onchange={on_format} data-testid="export-format">
                        { for ExportFormat::ALL.into_iter().map(|f| html! {
                            <option value={f.name()} selected={*format == f}>{ label(f) }</option>
                        }) }
                    </select>
                </label>
                <label><input type="checkbox" checked={*pause} onchange={on_pause} data-testid="export-pause" />
                    { " pause automatic shedding while applying" }</label>
                <button type="button" onclick={on_copy} data-testid="export-copy">{ "Copy" }</button>
                <button type="button" onclick={on_download} data-testid="export-download">{ "Download" }</button>
            </div>
            <pre class="export-text" data-testid="export-commands" tabindex="0">{ text }</pre>
            { apply_ui.unwrap_or_default() }
        </section>
    }
}
