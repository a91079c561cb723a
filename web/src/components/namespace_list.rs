//! The namespaces list: bundle layout, topic counts and the policies placement follows (isolation
//! policy, anti-affinity group) in core's order (`view::namespaces`: brokers' heartbeat namespaces last).

use yew::prelude::*;

use super::LoadedProps;
use super::row_cap::{more_rows, use_row_cap};
use crate::format;
use lbplan_core::view::namespaces::NamespaceRow;

#[function_component(NamespaceList)]
pub fn namespace_list(props: &LoadedProps) -> Html {
    let d = &props.loaded;
    let (shown, on_more) = use_row_cap();
    html! {
        <section class="panel">
            <h2>{ "Namespaces" }</h2>
            <table class="data namespaces" data-testid="namespace-table">
                <thead>
                    <tr>
                        <th scope="col">{ "Namespace" }</th>
                        <th scope="col" class="num">{ "Bundles" }</th>
                        <th scope="col" class="num">{ "Topics" }</th>
                        <th scope="col">{ "Placement policies" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for d.namespaces.iter().take(shown).map(row) }
                </tbody>
            </table>
            { more_rows(shown, d.namespaces.len(), "namespaces", on_more) }
        </section>
    }
}

fn row(n: &NamespaceRow) -> Html {
    html! {
        <tr data-testid="namespace-row" class={classes!(n.heartbeat.then_some("heartbeat"))}>
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
