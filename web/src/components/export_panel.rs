//! Export: the plan as a `pulsar-admin` script, curl calls (with rollback and the "pause automatic
//! shedding" option) or JSON, with copy and download. When the host gave an `adminBaseUrl`, the
//! Apply flow of [`super::apply_dialog`] is shown below the export (it shares the pause option).

use std::rc::Rc;

use lbplan_core::act::export::ExportOptions;
use lbplan_core::act::export_format::{ExportFormat, export_plan};
use lbplan_core::plan::Plan;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::apply_dialog::ApplyDialog;

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
    /// Asks for the plan again with every decision's detail: a plan made without them
    /// (`explain: summary`, the plan worker's) is never exported; the export waits for the Full one.
    #[prop_or_default]
    pub on_need_full: Option<Callback<()>>,
    /// The snapshot the plan was made from (Apply's Verify compares the cluster after with it).
    #[prop_or_default]
    pub snapshot: Option<Rc<lbplan_core::model::Snapshot>>,
}

impl PartialEq for ExportProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.plan, &o.plan)
            && self.readonly == o.readonly
            && self.admin_base_url == o.admin_base_url
            && self.auth_headers == o.auth_headers
            && self.on_need_full == o.on_need_full
            && match (&self.snapshot, &o.snapshot) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
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

/// Which export the user asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ExportKind {
    Copy,
    Download,
}

fn run_export(kind: ExportKind, f: ExportFormat, text: &str, cb: &Callback<(String, String)>) {
    match kind {
        ExportKind::Copy => copy_to_clipboard(text),
        ExportKind::Download => download(f.file_name(), text, f.media_type()),
    }
    cb.emit((f.name().to_string(), text.to_string()));
}

#[function_component(ExportPanel)]
pub fn export_panel(p: &ExportProps) -> Html {
    let format = use_state(|| ExportFormat::PulsarAdmin);
    // On by default: the leader's own shedding would otherwise move bundles while the plan's
    // moves are under way, and the run's verification would report moves the plan never made.
    let pause = use_state(|| true);
    let pending = use_state(|| None::<ExportKind>);
    // The commands and their text (tens of KB at a 1,000-broker plan) come a frame after the
    // plan's second step (`staged`), in a task of their own.
    let text_shown = super::staged::use_steps_shown(2) >= 2;
    // The commands, once per plan, format and pause (≈ 8 ms and 68 KB at a 1,000-broker plan:
    // not again at each render of the page), from the step that shows them.
    let text: Rc<String> = use_memo(
        (Rc::as_ptr(&p.plan) as usize, *format, *pause, text_shown),
        {
            let plan = p.plan.clone();
            move |(_, format, pause, shown)| match &*plan {
                _ if !shown => String::new(),
                // The dashboard's export keeps a worse plan's --i-know guard; Apply asks in its
                // own dialog.
                Ok(plan) => export_plan(
                    plan,
                    *format,
                    ExportOptions {
                        pause_automatic_shedding: *pause,
                        ..ExportOptions::default()
                    },
                )
                .unwrap_or_else(|e| format!("# cannot export: {e}\n")),
                Err(_) => String::new(),
            }
        },
    );
    // An export asked of a plan without its details runs when the Full plan has come, with the
    // commands this render made of it.
    {
        let (pending, plan, f, text, cb) = (
            pending.clone(),
            p.plan.clone(),
            *format,
            text.clone(),
            p.on_export.clone(),
        );
        use_effect_with((Rc::as_ptr(&p.plan) as usize, *pending), move |_| {
            if let (Some(kind), Ok(plan)) = (*pending, &*plan)
                && plan.explained.is_none()
            {
                pending.set(None);
                run_export(kind, f, &text, &cb);
            }
        });
    }
    let Ok(plan) = &*p.plan else {
        return html! {};
    };
    if p.readonly {
        return html! {};
    }
    if !text_shown {
        return html! {
            <section class="panel export" data-testid="export">
                <h2>{ "Export" }</h2>
            </section>
        };
    }
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
    // A plan without its details waits for the Full one (asked here), then the export runs.
    let light = plan.explained.is_some();
    let export = |kind: ExportKind| {
        let (text, f, cb) = (text.clone(), *format, p.on_export.clone());
        let (pending, need) = (pending.clone(), p.on_need_full.clone());
        Callback::from(move |_| match (&need, light) {
            (Some(need), true) => {
                pending.set(Some(kind));
                need.emit(());
            }
            _ => run_export(kind, f, &text, &cb),
        })
    };
    let on_copy = export(ExportKind::Copy);
    let on_download = export(ExportKind::Download);
    // Apply lives in its own component; it needs the host's admin endpoint.
    let apply_ui = p.admin_base_url.clone().map(|base| {
        html! { <ApplyDialog plan={p.plan.clone()} base={base} auth={p.auth_headers.clone()} pause={*pause} snapshot={p.snapshot.clone()} /> }
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
                    { " pause automatic shedding while applying (restored afterwards; otherwise the leader keeps moving bundles during the run)" }</label>
                <button type="button" onclick={on_copy} data-testid="export-copy">{ "Copy" }</button>
                <button type="button" onclick={on_download} data-testid="export-download">{ "Download" }</button>
                if pending.is_some() {
                    <span class="busy small" role="status" data-testid="export-pending">{ " Making the plan with every decision's detail…" }</span>
                }
            </div>
            <pre class="export-text" data-testid="export-commands" tabindex="0">{ text.as_str() }</pre>
            { apply_ui.unwrap_or_default() }
        </section>
    }
}
