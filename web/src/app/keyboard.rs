//! The planner's keyboard shortcuts: Ctrl/⌘+Z undoes an edit, Ctrl/⌘+Shift+Z and Ctrl/⌘+Y redo it;
//! keys typed into a form field are the field's.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::state::{Action, AppState};

/// The app's `onkeydown`: nothing in a read-only planner.
pub fn undo_redo_keys(
    d: UseReducerDispatcher<AppState>,
    readonly: bool,
) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        if readonly || !(e.ctrl_key() || e.meta_key()) {
            return;
        }
        let in_field = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        if in_field {
            return;
        }
        match e.key().to_lowercase().as_str() {
            "z" if e.shift_key() => d.dispatch(Action::Redo),
            "z" => d.dispatch(Action::Undo),
            "y" => d.dispatch(Action::Redo),
            _ => return,
        }
        e.prevent_default();
    })
}
