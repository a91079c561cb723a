//! The page header: cluster name, broker and bundle counts, the Pulsar profile the numbers follow,
//! and where the snapshot came from.

use lbplan_core::config::Profile;
use yew::prelude::*;

use super::LoadedProps;

#[derive(Clone, PartialEq, Properties)]
pub struct HeaderProps {
    #[prop_or_default]
    pub inner: Option<LoadedProps>,
    pub profile: Profile,
}

#[function_component(Header)]
pub fn header(props: &HeaderProps) -> Html {
    let Some(LoadedProps { loaded: d }) = &props.inner else {
        return html! { <header class="page-header"><h1>{ "Pulsar load-balancing planner" }</h1></header> };
    };
    html! {
        <header class="page-header">
            <h1>{ "Pulsar load-balancing planner" }</h1>
            <dl class="facts">
                <div><dt>{ "Cluster" }</dt><dd data-testid="cluster-name">{ d.cluster_name() }</dd></div>
                <div><dt>{ "Brokers" }</dt><dd data-testid="broker-count">{ d.snapshot.brokers.len() }</dd></div>
                <div><dt>{ "Bundles" }</dt><dd data-testid="bundle-count">{ d.snapshot.bundle_data.len() }</dd></div>
                <div><dt>{ "Profile" }</dt><dd data-testid="profile">{ props.profile.name() }</dd></div>
                <div><dt>{ "Source" }</dt><dd data-testid="snapshot-source" class="mono small">{ &d.source }</dd></div>
            </dl>
        </header>
    }
}
