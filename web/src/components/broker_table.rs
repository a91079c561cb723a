//! The cluster overview: one row per broker with the five resource usages, the weighted max the
//! strategies compare, rates, throughput, bundle and topic counts and version; sortable by any column
//! (the header buttons, keyboard included); virtualised, so 1,000 brokers keep a few dozen rows in the page. Rows accept a bundle dragged from the selection panel;
//! a broker's name is a button that selects it ("why is this broker hot?"). Names are the short
//! display names of core's one rule (`naming::BrokerNames`), the full id on hover and focus.

use std::rc::Rc;

use lbplan_core::naming::BrokerNames;
use lbplan_core::view::brokers::{BrokerColumn, BrokerRow, sort_rows};
use lbplan_core::view::palette::{broker_colour, css_hex};
use yew::prelude::*;

use super::styled::{Styled, Swatch};
use super::virtual_rows::{VirtualRows, aria_row};
use crate::format;

/// A broker row's height, px (virtualised: fixed).
const ROW_PX: u32 = 32;
/// The table's scroll height once it overflows, px (15 rows).
const LIST_PX: u32 = 512;

/// The drag payload type of a bundle (its full name).
pub const BUNDLE_MIME: &str = "application/x-lbplan-bundle";

#[derive(Clone, Properties)]
pub struct BrokerTableProps {
    pub rows: Rc<Vec<BrokerRow>>,
    /// A bundle dropped on a broker row: (bundle, broker).
    pub on_drop_bundle: Callback<(String, String)>,
    #[prop_or_default]
    pub readonly: bool,
    /// A broker name clicked (again: deselected).
    #[prop_or_default]
    pub on_select: Option<Callback<Option<String>>>,
    #[prop_or_default]
    pub selected: Option<String>,
}

impl PartialEq for BrokerTableProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.rows, &o.rows)
            && self.readonly == o.readonly
            && self.selected == o.selected
            && self.on_select == o.on_select
    }
}

#[function_component(BrokerTable)]
pub fn broker_table(props: &BrokerTableProps) -> Html {
    let sort = use_state(|| (BrokerColumn::Broker, false));
    let (column, descending) = *sort;
    let rows = {
        let mut r = (*props.rows).clone();
        sort_rows(&mut r, column, descending);
        Rc::new(r)
    };
    let header = |c: BrokerColumn| {
        let sort = sort.clone();
        let onclick = Callback::from(move |_| {
            let (cur, desc) = *sort;
            // A numeric column sorts busiest first on the first click.
            sort.set(if cur == c {
                (c, !desc)
            } else {
                (c, c.is_numeric())
            });
        });
        let aria = if column == c {
            if descending {
                "descending"
            } else {
                "ascending"
            }
        } else {
            "none"
        };
        let arrow = if column == c {
            if descending { " ▼" } else { " ▲" }
        } else {
            ""
        };
        html! {
            <th scope="col" class={classes!(c.is_numeric().then_some("num"), (c == BrokerColumn::Broker).then_some("c-broker"))} aria-sort={aria}>
                <button type="button" class="sort" {onclick} data-testid={format!("sort-{:?}", c).to_lowercase()}>
                    { c.title() }{ arrow }
                </button>
            </th>
        }
    };
    // The short names, once per snapshot's rows (not per sort or render).
    let names = use_memo(Rc::as_ptr(&props.rows) as usize, {
        let rows = props.rows.clone();
        move |_| BrokerNames::new(rows.iter().map(|r| r.broker.as_str()))
    });
    let row = {
        let (rows, props, names) = (rows.clone(), props.clone(), names.clone());
        Callback::from(move |i: usize| {
            rows.get(i)
                .map(|r| row(i, r, &props, &names))
                .unwrap_or_default()
        })
    };
    html! {
        <section class="panel">
            <h2>{ "Brokers" }</h2>
            <VirtualRows total={rows.len()} row_height={ROW_PX} height={LIST_PX} columns={BrokerColumn::ALL.len()}
                label="Brokers" class="data brokers" testid="broker-table" scroll_testid="broker-scroll"
                {row} head={html! { <>{ for BrokerColumn::ALL.into_iter().map(header) }</> }} />
        </section>
    }
}

fn row(i: usize, r: &BrokerRow, props: &BrokerTableProps, names: &BrokerNames) -> Html {
    let short = names.short(&r.broker).to_string();
    let on_drop = &props.on_drop_bundle;
    let readonly = props.readonly;
    let selected = props.selected.as_deref() == Some(r.broker.as_str());
    let name = match &props.on_select {
        Some(cb) => {
            let cb = cb.clone();
            let broker = r.broker.clone();
            let onclick = Callback::from(move |_| cb.emit((!selected).then(|| broker.clone())));
            html! {
                <button type="button" class="link mono" data-testid="broker-select" aria-pressed={selected.to_string()}
                    title={format!("{}: why is this broker at this usage? (its bundles, the deciding resource, what the plan does)", r.broker)}
                    {onclick}>{ short }</button>
            }
        }
        None => html! { <span title={r.broker.clone()} tabindex="0">{ short }</span> },
    };
    let width = r.weighted_max_pct.clamp(0.0, 100.0);
    let level = r.usage_level.css_class();
    let ondragover = Callback::from(move |e: DragEvent| {
        if !readonly {
            e.prevent_default();
        }
    });
    let ondrop = {
        let on_drop = on_drop.clone();
        let broker = r.broker.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            e.stop_propagation();
            let bundle = e
                .data_transfer()
                .and_then(|d| d.get_data(BUNDLE_MIME).ok())
                .unwrap_or_default();
            if !bundle.is_empty() && !readonly {
                on_drop.emit((bundle, broker.clone()));
            }
        })
    };
    html! {
        <tr data-testid="broker-row" data-broker={r.broker.clone()} aria-rowindex={aria_row(i)} class={classes!(selected.then_some("selected"))} {ondragover} {ondrop}>
            <th scope="row" class="mono">
                <Swatch colour={css_hex(broker_colour(&r.broker))} />
                { name }
            </th>
            <td class="num usage">
                <Styled class={classes!("bar", level)} css={vec![("width", format!("{width:.1}%"))]} />
                <span class="value">{ format::pct(r.weighted_max_pct) }</span>
            </td>
            <td class="num">{ format::pct(r.cpu_pct) }</td>
            <td class="num">{ format::pct(r.memory_pct) }</td>
            <td class="num">{ format::pct(r.direct_memory_pct) }</td>
            <td class="num">{ format::pct(r.bandwidth_in_pct) }</td>
            <td class="num">{ format::pct(r.bandwidth_out_pct) }</td>
            <td class="num">{ format::rate(r.msg_rate_in) }</td>
            <td class="num">{ format::rate(r.msg_rate_out) }</td>
            <td class="num">{ format::bytes_per_sec(r.throughput_in_bytes_per_sec) }</td>
            <td class="num">{ format::bytes_per_sec(r.throughput_out_bytes_per_sec) }</td>
            <td class="num">{ r.bundle_count }</td>
            <td class="num">{ format::count(r.topic_count) }</td>
            <td>{ &r.version }</td>
            <td class="capacity">{ &r.capacity }</td>
        </tr>
    }
}
