//! Files and folders dropped anywhere on the planner: their entries taken while the event lasts
//! (the `DataTransfer` is emptied after it), then walked into files for the loader.

use yew::prelude::*;

use crate::loader::{Picked, dropped_entries, read_entries};

/// The app's `ondrop`: dropped files to `on_inputs` (with their label), failures to `on_error`;
/// `busy` while folders are walked. A read-only planner ignores drops (the host chooses what it
/// shows).
pub fn on_drop(
    readonly: bool,
    on_inputs: Callback<(Vec<Picked>, String)>,
    on_error: Callback<String>,
    busy: UseStateHandle<bool>,
) -> Callback<DragEvent> {
    Callback::from(move |e: DragEvent| {
        e.prevent_default();
        if readonly {
            return;
        }
        let entries = dropped_entries(&e);
        if entries.is_empty() {
            return;
        }
        busy.set(true);
        let (on_inputs, on_error, busy) = (on_inputs.clone(), on_error.clone(), busy.clone());
        yew::platform::spawn_local(async move {
            match read_entries(entries).await {
                Ok(inputs) if !inputs.is_empty() => {
                    let label = crate::components::loader_bar::label(&inputs);
                    on_inputs.emit((inputs, label));
                }
                Ok(_) => busy.set(false),
                Err(e) => {
                    busy.set(false);
                    on_error.emit(e);
                }
            }
        });
    })
}
