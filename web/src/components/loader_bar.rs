//! Loading: a file picker (several files), a folder picker, drag and drop (handled by the app root),
//! the demo cluster, a note on whether the snapshot is kept across reloads, and the progress of a
//! large snapshot arriving from the worker that imported it. Picking and reading files is
//! `crate::loader`'s; importing is the core's.

use yew::prelude::*;

use crate::loader::{Picked, pick_file_list};
use crate::worker_import::ProgressSink;

#[derive(Clone, PartialEq, Properties)]
pub struct LoaderBarProps {
    /// Files picked (not read), with a label for where they came from.
    pub on_inputs: Callback<(Vec<Picked>, String)>,
    pub on_error: Callback<String>,
    pub on_demo: Callback<()>,
    #[prop_or_default]
    pub storage_note: Option<AttrValue>,
    #[prop_or_default]
    pub busy: bool,
    /// A snapshot arriving from the worker: (entries received, entries in all), shown by the bar's
    /// own component.
    #[prop_or_default]
    pub progress: ProgressSink,
}

fn on_files(p: &LoaderBarProps) -> Callback<Event> {
    let on_inputs = p.on_inputs.clone();
    Callback::from(move |e: Event| {
        let Some(input) = super::event_input(&e) else {
            return;
        };
        let Some(files) = input.files() else { return };
        let picked = pick_file_list(&files);
        // Choosing the same files again must fire `change` again (the picked `File`s stay valid).
        input.set_value("");
        if !picked.is_empty() {
            let label = label(&picked);
            on_inputs.emit((picked, label));
        }
    })
}

/// `a.json`, `a.json + 2 more`, or the folder name.
pub fn label(inputs: &[Picked]) -> String {
    match inputs {
        [] => String::new(),
        [one] => one.name.clone(),
        [first, rest @ ..] if first.in_tree && first.name.contains('/') => {
            let folder = first.name.split('/').next().unwrap_or_default();
            format!("{folder}/ ({} files)", rest.len() + 1)
        }
        [first, rest @ ..] => format!("{} + {} more", first.name, rest.len()),
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
            <ImportProgress sink={p.progress.clone()} />
            if let Some(note) = &p.storage_note { <p class="muted small" data-testid="storage-note">{ note.clone() }</p> }
        </section>
    }
}

#[derive(Clone, PartialEq, Properties)]
struct ImportProgressProps {
    sink: ProgressSink,
}

/// The progress bar of a snapshot arriving from the worker; its state is its own, so it moves
/// without re-rendering the app.
#[function_component(ImportProgress)]
fn import_progress(p: &ImportProgressProps) -> Html {
    let progress = use_state(|| p.sink.get());
    {
        let progress = progress.clone();
        use_effect_with(p.sink.clone(), move |sink| {
            sink.listen(Some(Callback::from({
                let progress = progress.clone();
                move |v| progress.set(v)
            })));
            // A value set between the first render and now.
            progress.set(sink.get());
            let sink = sink.clone();
            move || sink.listen(None)
        });
    }
    let Some((done, total)) = *progress else {
        return html! {};
    };
    html! {
        <p class="small" data-testid="import-progress">
            <progress max={total.max(1).to_string()} value={done.to_string()}></progress>
            { format!(" Receiving the snapshot from the worker: {} of {} entries", crate::format::count(done as i64), crate::format::count(total as i64)) }
        </p>
    }
}
