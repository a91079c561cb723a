//! The edit history: the manual operations in order, with undo/redo (also Ctrl+Z / Ctrl+Shift+Z on
//! the app) and the share link that carries them.

use std::rc::Rc;

use lbplan_core::plan::operations::Operation;
use yew::prelude::*;

#[derive(Clone, PartialEq, Properties)]
pub struct HistoryProps {
    pub operations: Rc<Vec<Operation>>,
    pub redo: Rc<Vec<Operation>>,
    pub on_undo: Callback<()>,
    pub on_redo: Callback<()>,
    pub on_clear: Callback<()>,
    /// The share link (settings + operations, never the snapshot).
    pub share_url: AttrValue,
    #[prop_or_default]
    pub readonly: bool,
}

#[function_component(History)]
pub fn history(p: &HistoryProps) -> Html {
    let u = p.on_undo.clone();
    let r = p.on_redo.clone();
    let c = p.on_clear.clone();
    let share = p.share_url.clone();
    html! {
        <section class="panel history" data-testid="history">
            <h2>{ "Edits" }</h2>
            <div class="toolbar">
                <button type="button" data-testid="undo" disabled={p.readonly || p.operations.is_empty()}
                    onclick={move |_| u.emit(())} title="Undo (Ctrl+Z)">{ "Undo" }</button>
                <button type="button" data-testid="redo" disabled={p.readonly || p.redo.is_empty()}
                    onclick={move |_| r.emit(())} title="Redo (Ctrl+Shift+Z)">{ "Redo" }</button>
                <button type="button" disabled={p.readonly || p.operations.is_empty()}
                    onclick={move |_| c.emit(())}>{ "Clear" }</button>
                <button type="button" data-testid="copy-share-link"
                    onclick={move |_| crate::loader::copy_to_clipboard(&share)}>{ "Copy share link" }</button>
            </div>
            if p.operations.is_empty() {
                <p class="muted">{ "No manual what-ifs yet: select a bundle on the map, or change a setting." }</p>
            } else {
                <ol class="ops" data-testid="operations">
                    { for p.operations.iter().map(|o| html! { <li class="mono">{ o.to_string() }</li> }) }
                </ol>
            }
            <p class="small"><a href={p.share_url.clone()} data-testid="share-link">{ "Share link" }</a>
                <span class="muted">{ " (settings and edits; the snapshot stays here)" }</span></p>
        </section>
    }
}
