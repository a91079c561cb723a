//! Links between sections: a worse plan's "Propose a rebalance instead" prefills the rebalance
//! panel, and a bundle link (plan rows, broker detail) asks the map's Find for the bundle. Each is a
//! state with a serial, so the same request made twice still applies.

use yew::prelude::*;

use crate::components::RebalancePrefill;

/// What a worse plan's banner asks for: a rebalance toward a goal, with at most so many moves.
pub type ProposeRebalance = Callback<(String, Option<usize>)>;

/// The rebalance panel's prefill and the callback a worse plan's banner calls.
#[hook]
pub fn use_rebalance_prefill() -> (UseStateHandle<Option<RebalancePrefill>>, ProposeRebalance) {
    let prefill = use_state(|| None::<RebalancePrefill>);
    let serial = use_mut_ref(|| 0_u32);
    let on_propose = {
        let prefill = prefill.clone();
        Callback::from(move |(goal, max_moves): (String, Option<usize>)| {
            let serial = {
                let mut n = serial.borrow_mut();
                *n = n.wrapping_add(1);
                *n
            };
            prefill.set(Some(RebalancePrefill {
                serial,
                goal,
                max_moves,
            }));
        })
    };
    (prefill, on_propose)
}

/// What the map's Find is asked (serial, query) and the callback a bundle link calls.
#[hook]
pub fn use_map_find() -> (UseStateHandle<Option<(u32, AttrValue)>>, Callback<String>) {
    let map_find = use_state(|| None::<(u32, AttrValue)>);
    let on_find = {
        let map_find = map_find.clone();
        Callback::from(move |bundle: String| {
            let serial = map_find.as_ref().map_or(0, |(n, _)| n.wrapping_add(1));
            map_find.set(Some((serial, AttrValue::from(bundle))));
        })
    };
    (map_find, on_find)
}

/// This page's address with the session (`Session::to_fragment`) after `#`: what "share" copies.
pub fn share_url(fragment: &str) -> String {
    let base = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|h| h.split('#').next().unwrap_or_default().to_string())
        .unwrap_or_default();
    format!("{base}#{fragment}")
}
