//! Long tables render their first rows and a button for more: 2,000 namespace rows or 1,000 broker
//! rows rendered at once are one long task on the page (the first render after a large snapshot is
//! shown). Each click adds another `ROWS_PER_STEP`.

use yew::prelude::*;

/// Rows rendered before the user asks for more.
pub const ROWS_PER_STEP: usize = 200;

/// "Showing `shown` of `total` — Show N more" (nothing when all are shown); `on_more` asks for the
/// next step.
pub fn more_rows(shown: usize, total: usize, what: &str, on_more: Callback<MouseEvent>) -> Html {
    if shown >= total {
        return html! {};
    }
    let next = (total - shown).min(ROWS_PER_STEP);
    html! {
        <p class="muted small" data-testid="more-rows">
            { format!("Showing {} of {} {what}. ", crate::format::count(shown as i64), crate::format::count(total as i64)) }
            <button type="button" onclick={on_more}>{ format!("Show {} more", crate::format::count(next as i64)) }</button>
        </p>
    }
}

/// A state of how many rows to show, starting at `ROWS_PER_STEP`, and the callback that adds a step.
#[hook]
pub fn use_row_cap() -> (usize, Callback<MouseEvent>) {
    let shown = use_state(|| ROWS_PER_STEP);
    let on_more = {
        let shown = shown.clone();
        Callback::from(move |_| shown.set(shown.saturating_add(ROWS_PER_STEP)))
    };
    (*shown, on_more)
}
