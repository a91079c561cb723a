//! Callbacks that turn what a section reports into one store action: written once as [`act`]
//! instead of a dispatcher clone and a closure at each of the app's dozen wirings.

use lbplan_core::plan::operations::Operation;
use yew::{Callback, UseReducerDispatcher};

use crate::state::{Action, AppState};

/// A callback that dispatches `to(value)` for each value a section emits.
pub fn act<T: 'static>(
    d: &UseReducerDispatcher<AppState>,
    to: impl Fn(T) -> Action + 'static,
) -> Callback<T> {
    let d = d.clone();
    Callback::from(move |v: T| d.dispatch(to(v)))
}

/// A setting typed in a panel (`key`, `value`) as the plan's next operation.
pub fn set_config((key, value): (String, String)) -> Action {
    Action::Push(Operation::SetConfig { key, value })
}

/// A bundle dropped on a broker's row as the plan's next operation: unload it there.
pub fn drop_bundle((bundle, broker): (String, String)) -> Action {
    Action::Push(Operation::UnloadBundle {
        bundle,
        destination_broker: Some(broker),
    })
}
