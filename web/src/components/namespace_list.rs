//! The namespaces list: bundle layout, topic counts and the policies placement follows (isolation
//! policy, anti-affinity group) in core's order (`view::namespaces`: brokers' heartbeat namespaces last), virtualised: 8,000 namespaces keep a few
//! dozen rows in the page.

use yew::prelude::*;

use super::LoadedProps;
use super::virtual_rows::{VirtualRows, aria_row};
use crate::format;
use lbplan_core::view::namespaces::NamespaceRow;

/// A namespace row's height, px (virtualised: fixed).
const ROW_PX: u32 = 30;
/// The list's scroll height once it overflows, px.
const LIST_PX: u32 = 480;

#[function_component(NamespaceList)]
pub fn namespace_list(props: &LoadedProps) -> Html {
    let d = &props.loaded;
    let rows = {
        let loaded = d.clone();
        Callback::from(move |i: usize| {
            loaded
                .namespaces
                .get(i)
                .map(|n| row(i, n))
                .unwrap_or_default()
        })
    };
    html! {
        <section class="panel">
            <h2>{ format!("Namespaces ({})", format::count(d.namespaces.len() as i64)) }</h2>
            <VirtualRows total={d.namespaces.len()} row_height={ROW_PX} height={LIST_PX} columns={4}
                label="Namespaces" class="data namespaces" testid="namespace-table" scroll_testid="namespace-scroll"
                row={rows} head={html! { <>
                    <th scope="col" class="c-ns">{ "Namespace" }</th>
                    <th scope="col" class="num">{ "Bundles" }</th>
                    <th scope="col" class="num">{ "Topics" }</th>
                    <th scope="col">{ "Placement policies" }</th>
                </> }} />
        </section>
    }
}

fn row(i: usize, n: &NamespaceRow) -> Html {
    html! {
        <tr data-testid="namespace-row" aria-rowindex={aria_row(i)} class={classes!(n.heartbeat.then_some("heartbeat"))}>
            <th scope="row" class="mono">
                { &n.namespace }
                if n.heartbeat { <span class="tag">{ "heartbeat" }</span> }
            </th>
            <td class="num">{ n.bundle_count }</td>
            <td class="num">{ format::count(n.topics) }</td>
            <td class="small">
                if let Some(p) = &n.isolation_policy { <span class="tag" title="namespace isolation policy">{ format!("isolation: {p}") }</span> }
                if let Some(g) = &n.anti_affinity_group { <span class="tag" title="namespaceAntiAffinityGroup">{ format!("anti-affinity: {g}") }</span> }
            </td>
        </tr>
    }
}
