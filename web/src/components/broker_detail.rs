//! "Why is this broker hot?": the selected broker's resources with their weights (which one decides
//! its weighted maximum, which do not count and why), its bundles ranked by their share of its
//! traffic, and what the plan does to it — all computed by core's `view::broker_detail`. Each
//! bundle links to the bundle on the map.

use std::rc::Rc;

use lbplan_core::view::broker_detail::BrokerDetail;
use yew::prelude::*;

use super::plan_view::find_button;
use crate::format;

/// Bundles listed before "show all".
const TOP_BUNDLES: usize = 10;

#[derive(Clone, Properties)]
pub struct BrokerDetailProps {
    pub detail: Rc<BrokerDetail>,
    pub on_close: Callback<()>,
    /// Shows a bundle on the map; `None`: no map.
    #[prop_or_default]
    pub on_find: Option<Callback<String>>,
}

impl PartialEq for BrokerDetailProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.detail, &o.detail)
    }
}

#[function_component(BrokerDetailView)]
pub fn broker_detail_view(p: &BrokerDetailProps) -> Html {
    let all = use_state(|| false);
    let d = &p.detail;
    let driving = d.resources.iter().find(|r| r.driving);
    let shown = if *all { d.bundles.len() } else { TOP_BUNDLES };
    let close = {
        let cb = p.on_close.clone();
        Callback::from(move |_| cb.emit(()))
    };
    html! {
        <section class="panel broker-detail" data-testid="broker-detail" aria-label={format!("Broker {}", d.broker)}>
            <h2>{ format!("Why is {} at {}?", d.broker, format::pct(d.weighted_max_pct)) }</h2>
            <button type="button" class="close" onclick={close} aria-label="Close the broker detail">{ "×" }</button>
            <p class="small" data-testid="broker-capacity">{ format!("Capacity: {}", d.capacity) }</p>
            if let Some(r) = driving {
                <p data-testid="broker-driving">{ format!("Its weighted maximum is {}: {} × weight {} = {}.",
                    format::pct(d.weighted_max_pct), r.resource, r.weight, format::pct(r.weighted_pct)) }</p>
            }
            <table class="data">
                <thead><tr><th scope="col">{ "Resource" }</th><th scope="col" class="num">{ "Usage" }</th><th scope="col" class="num">{ "Weight" }</th><th scope="col" class="num">{ "Weighted" }</th><th scope="col">{ "Counts?" }</th></tr></thead>
                <tbody>
                    { for d.resources.iter().map(|r| html! {
                        <tr data-testid="broker-resource" data-resource={r.resource} class={classes!(r.driving.then_some("driving"))}>
                            <th scope="row" class="mono">{ r.resource }</th>
                            <td class="num">{ format::pct(r.usage_pct) }</td>
                            <td class="num">{ if r.counted { format!("{}", r.weight) } else { "—".to_string() } }</td>
                            <td class="num">{ format::pct(r.weighted_pct) }</td>
                            <td class="small">{ r.explanation() }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            if let Some(e) = &d.plan {
                <h3>{ "What the plan does to it" }</h3>
                <p data-testid="broker-plan-effect">{ format!("{} → {}; {} bundle{} out, {} in, {} split{}",
                    e.usage_before_pct.map(format::pct).unwrap_or_else(|| "new".into()),
                    e.usage_after_pct.map(format::pct).unwrap_or_else(|| "removed".into()),
                    e.moves_out.len(), if e.moves_out.len() == 1 { "" } else { "s" }, e.moves_in.len(),
                    e.splits.len(), if e.splits.len() == 1 { "" } else { "s" }) }</p>
                <ul class="mono small">
                    { for e.moves_out.iter().map(|(b, to)| html! { <li>{ format!("{b} → {}", to.as_deref().unwrap_or("(next lookup)")) }{ find_button(b, p.on_find.as_ref()) }</li> }) }
                    { for e.moves_in.iter().map(|(b, from)| html! { <li>{ format!("{b} ← {from}") }{ find_button(b, p.on_find.as_ref()) }</li> }) }
                </ul>
                if !e.usage_explained.is_empty() {
                    <h4>{ "What the predicted usage rests on" }</h4>
                    <ul class="small" data-testid="broker-usage-explained">
                        { for e.usage_explained.iter().map(|line| html! { <li>{ line }</li> }) }
                    </ul>
                }
            }
            <h3>{ format!("Bundles by their share of its traffic ({})", d.bundles.len()) }</h3>
            <table class="data">
                <thead><tr><th scope="col">{ "Bundle" }</th><th scope="col" class="num">{ "Share" }</th><th scope="col" class="num">{ "Throughput" }</th><th scope="col" class="num">{ "msg/s" }</th></tr></thead>
                <tbody>
                    { for d.bundles.iter().take(shown).map(|b| html! {
                        <tr data-testid="broker-bundle">
                            <th scope="row" class="mono">{ &b.bundle }{ find_button(&b.bundle, p.on_find.as_ref()) }</th>
                            <td class="num">{ format::pct(b.share * 100.0) }</td>
                            <td class="num">{ format::bytes_per_sec(b.bytes_per_sec) }</td>
                            <td class="num">{ format::rate(b.msg_per_sec) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            if d.bundles.len() > shown {
                <button type="button" onclick={{ let all = all.clone(); Callback::from(move |_| all.set(true)) }}>
                    { format!("Show all {}", d.bundles.len()) }</button>
            }
        </section>
    }
}
