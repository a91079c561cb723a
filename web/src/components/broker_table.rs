//! The brokers table: one row per broker with the numbers the modular load manager compares.

use yew::prelude::*;

use super::DashboardProps;
use crate::format;
use crate::state::BrokerRow;

#[function_component(BrokerTable)]
pub fn broker_table(props: &DashboardProps) -> Html {
    let d = &props.dashboard;
    html! {
        <section class="panel">
            <h2>{ "Brokers" }</h2>
            <div class="table-scroll">
                <table class="data brokers" data-testid="broker-table">
                    <thead>
                        <tr>
                            <th scope="col">{ "Broker" }</th>
                            <th scope="col" class="num" title="getMaxResourceUsageWithWeight: max of cpu, direct memory and NIC in/out, each × its weight">{ "Weighted max" }</th>
                            <th scope="col" class="num">{ "CPU" }</th>
                            <th scope="col" class="num">{ "NIC in" }</th>
                            <th scope="col" class="num">{ "NIC out" }</th>
                            <th scope="col" class="num">{ "Msg in/s" }</th>
                            <th scope="col" class="num">{ "Msg out/s" }</th>
                            <th scope="col" class="num">{ "Throughput" }</th>
                            <th scope="col" class="num">{ "Bundles" }</th>
                            <th scope="col">{ "Version" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for d.brokers.iter().map(row) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}

fn row(r: &BrokerRow) -> Html {
    // The bar is the weighted max, capped at the cell width; overload is flagged by colour.
    let width = r.weighted_max_usage_pct.clamp(0.0, 100.0);
    let level = if r.weighted_max_usage_pct >= 85.0 {
        "high"
    } else if r.weighted_max_usage_pct >= 60.0 {
        "mid"
    } else {
        "low"
    };
    html! {
        <tr data-testid="broker-row">
            <th scope="row" class="mono">{ &r.broker }</th>
            <td class="num usage">
                <span class={classes!("bar", level)} style={format!("width:{width:.1}%")}></span>
                <span class="value">{ format::pct(r.weighted_max_usage_pct) }</span>
            </td>
            <td class="num">{ format::pct(r.cpu_pct) }</td>
            <td class="num">{ format::pct(r.bandwidth_in_pct) }</td>
            <td class="num">{ format::pct(r.bandwidth_out_pct) }</td>
            <td class="num">{ format::rate(r.msg_rate_in) }</td>
            <td class="num">{ format::rate(r.msg_rate_out) }</td>
            <td class="num">{ format::bytes_per_sec(r.msg_throughput_bytes_per_sec) }</td>
            <td class="num">{ r.bundle_count }</td>
            <td>{ &r.version }</td>
        </tr>
    }
}
