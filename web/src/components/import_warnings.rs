//! What the importer warned about (a report recomputed, a file it skipped), folded once there are
//! more than a few so the cluster stays in view.

use std::rc::Rc;

use yew::prelude::*;

use crate::state::Loaded;

/// Open by default up to this many warnings.
const OPEN_UP_TO: usize = 5;

#[derive(Clone, Properties)]
pub struct ImportWarningsProps {
    pub loaded: Rc<Loaded>,
}

impl PartialEq for ImportWarningsProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.loaded, &o.loaded)
    }
}

#[function_component(ImportWarnings)]
pub fn import_warnings(p: &ImportWarningsProps) -> Html {
    let warnings = &p.loaded.warnings;
    if warnings.is_empty() {
        return html! {};
    }
    html! {
        <details class="panel warnings-panel" open={warnings.len() <= OPEN_UP_TO}>
            <summary>{ format!("{} import warning(s)", warnings.len()) }</summary>
            <ul class="warnings" data-testid="warnings">
                { for warnings.iter().map(|w| html! { <li class="mono small">{ w }</li> }) }
            </ul>
        </details>
    }
}
