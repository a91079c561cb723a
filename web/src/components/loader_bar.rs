//! Loading: a file picker (several files), a folder picker, drag and drop (handled by the app root),
//! the demo cluster, and a note on whether the snapshot is kept across reloads. Reading the bytes is
//! `crate::loader`'s; importing is the core's.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::loader::{Input, read_file_list};

#[derive(Clone, PartialEq, Properties)]
pub struct LoaderBarProps {
    /// Bytes read, with a label for where they came from.
    pub on_inputs: Callback<(Vec<Input>, String)>,
    pub on_error: Callback<String>,
    pub on_demo: Callback<()>,
    #[prop_or_default]
    pub storage_note: Option<AttrValue>,
    #[prop_or_default]
    pub busy: bool,
}

fn on_files(p: &LoaderBarProps) -> Callback<Event> {
    let (on_inputs, on_error) = (p.on_inputs.clone(), p.on_error.clone());
    Callback::from(move |e: Event| {
        let Some(input) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(files) = input.files() else { return };
        let (on_inputs, on_error) = (on_inputs.clone(), on_error.clone());
        yew::platform::spawn_local(async move {
            match read_file_list(&files).await {
                Ok(inputs) if inputs.is_empty() => {}
                Ok(inputs) => {
                    let label = label(&inputs);
                    on_inputs.emit((inputs, label));
                }
                Err(e) => on_error.emit(e),
            }
            // Choosing the same files again must fire `change` again.
            input.set_value("");
        });
    })
}

/// `a.json`, `a.json + 2 more`, or the folder name.
pub fn label(inputs: &[Input]) -> String {
    match inputs {
        [] => String::new(),
        [(one, _, _)] => one.clone(),
        [(first, _, true), rest @ ..] if first.contains('/') => {
            let folder = first.split('/').next().unwrap_or_default();
            format!("{folder}/ ({} files)", rest.len() + 1)
        }
        [(first, _, _), rest @ ..] => format!("{first} + {} more", rest.len()),
    }
}

#[function_component(LoaderBar)]
pub fn loader_bar(p: &LoaderBarProps) -> Html {
    let demo = p.on_demo.clone();
    html! {
        <section class="panel loader" data-testid="loader">
            <div class="toolbar">
                <label class="file-button">{ "Open files… " }
                    <input type="file" multiple={true} data-testid="snapshot-input" onchange={on_files(p)}
                        accept=".json,.zip,.gz,.tgz,.tar,.conf,.properties,.txt" />
                </label>
                <label class="file-button">{ "Open folder… " }
                    <input type="file" webkitdirectory={true} multiple={true} data-testid="folder-input" onchange={on_files(p)} />
                </label>
                <button type="button" onclick={move |_| demo.emit(())} data-testid="load-demo">{ "Demo cluster" }</button>
                <span class="muted small">{ "or drop files, folders, .zip or .tar.gz anywhere on the page" }</span>
                if p.busy { <span class="busy" role="status">{ "Importing…" }</span> }
            </div>
            if let Some(note) = &p.storage_note { <p class="muted small" data-testid="storage-note">{ note.clone() }</p> }
        </section>
    }
}
