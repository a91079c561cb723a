//! A planner's start: the session first (a share link, else the one kept in this browser), so a
//! kept snapshot keeps its edits; the host's options; then the first snapshot (the host's, the
//! `?snapshot=` URL, what this browser kept, or the demo), all onto the one import path
//! (`loading`). Also wires the host's `PlannerHandle` messages (new snapshot, new options).

use std::rc::Rc;

use lbplan_core::view::share::Session;
use yew::prelude::*;

use super::loading::{load_text, load_url, restore_kept};
use super::{AppProps, Bridge};
use crate::embed::{External, Options};
use crate::persist;
use crate::state::{Action, AppState};
use crate::worker_import::WorkerImports;

fn url_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get(name)
}

fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The session to start from: the share link's when the page has one (then true), else the kept one.
fn restore_session(o: &Options, dispatcher: &UseReducerDispatcher<AppState>) -> bool {
    let hash = if o.standalone {
        location_hash()
    } else {
        String::new()
    };
    let shared = hash.contains("s=");
    if shared {
        match Session::from_fragment(&hash) {
            Ok(s) => dispatcher.dispatch(Action::Restore(s)),
            Err(e) => dispatcher.dispatch(Action::Failed(format!("share link: {e}"))),
        }
    } else if o.persist {
        match persist::load_session(&o.storage_prefix) {
            Some(Ok(s)) => dispatcher.dispatch(Action::Restore(s)),
            Some(Err(e)) => dispatcher.dispatch(Action::Failed(e)),
            None => {}
        }
    }
    shared
}

/// The first snapshot, by the order of precedence above.
async fn first_snapshot(o: Options, imports: WorkerImports, shared: bool) {
    let prefix = o.persist.then(|| o.storage_prefix.clone());
    let url = o.snapshot_url.clone().or_else(|| {
        if o.standalone {
            url_param("snapshot")
        } else {
            None
        }
    });
    if let Some(json) = &o.snapshot {
        load_text(&imports, json, false);
        return;
    }
    if let Some(url) = url {
        load_url(&imports, url, shared, prefix).await;
        return;
    }
    let restored = match &prefix {
        Some(p) => restore_kept(&imports, p).await,
        None => false,
    };
    if !restored {
        // The demo keeps the restored session's edits, as a kept snapshot does.
        load_url(&imports, o.demo_url(), true, None).await;
    }
}

/// The host's messages: a new snapshot (imported in the worker) or new options.
fn host_messages(
    imports: WorkerImports,
    options: UseStateHandle<Rc<Options>>,
) -> Callback<External> {
    Callback::from(move |m: External| match m {
        External::SetSnapshot(json) => load_text(&imports, &json, false),
        External::PushSnapshot(json) => load_text(&imports, &json, true),
        External::SetOptions(o) => {
            if let Some(p) = o.profile {
                imports.dispatcher.dispatch(Action::SetProfile(Some(p)));
            }
            options.set(o);
        }
    })
}

/// Runs the start once, and listens to the host until the app unmounts.
#[hook]
pub fn use_boot(props: &AppProps, options: &UseStateHandle<Rc<Options>>, imports: &WorkerImports) {
    let bridge: Bridge = props.bridge.clone();
    let (options, imports) = (options.clone(), imports.clone());
    use_effect_with((), move |_| {
        let o = (**options).clone();
        let dispatcher = imports.dispatcher.clone();
        let shared = restore_session(&o, &dispatcher);
        if let Some(p) = o.profile {
            dispatcher.dispatch(Action::SetProfile(Some(p)));
        }
        if let Some(n) = o.plan_worker_from_bundles {
            dispatcher.dispatch(Action::SetPlanWorkerFrom(n));
        }
        yew::platform::spawn_local(first_snapshot(o, imports.clone(), shared));
        let cb = host_messages(imports, options);
        let pending: Vec<External> = {
            let mut b = bridge.borrow_mut();
            b.callback = Some(cb.clone());
            std::mem::take(&mut b.pending)
        };
        for m in pending {
            cb.emit(m);
        }
        move || {
            bridge.borrow_mut().callback = None;
        }
    });
}

/// Keeps the session in this browser (under `prefix`, when the page keeps what it loads) whenever
/// it changes, so a reload starts where the operator was.
#[hook]
pub fn use_keep_session(session: Session, prefix: Option<String>) {
    use_effect_with(session, move |s| {
        if let Some(p) = prefix {
            persist::save_session(&p, s);
        }
    });
}
