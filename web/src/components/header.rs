//! The page header: cluster name, broker and bundle counts, and the Pulsar profile the numbers
//! follow (detected from the brokers' `brokerVersionString`).

use yew::prelude::*;

use super::DashboardProps;

#[function_component(Header)]
pub fn header(props: &DashboardProps) -> Html {
    let d = &props.dashboard;
    html! {
        <header class="page-header">
            <h1>{ "Pulsar load-balancing planner" }</h1>
            <dl class="facts">
                <div><dt>{ "Cluster" }</dt><dd data-testid="cluster-name">{ d.cluster_name() }</dd></div>
                <div><dt>{ "Brokers" }</dt><dd data-testid="broker-count">{ d.brokers.len() }</dd></div>
                <div><dt>{ "Bundles" }</dt><dd data-testid="bundle-count">{ d.snapshot.bundle_data.len() }</dd></div>
                <div><dt>{ "Profile" }</dt><dd data-testid="profile">{ d.profile.name() }</dd></div>
            </dl>
        </header>
    }
}
