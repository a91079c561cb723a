//! Manual what-ifs: for the selected bundle, a destination (or drag it onto a broker row), a split
//! (algorithm or positions) or unloading its namespace; for the cluster, adding or removing a broker.
//! Each becomes an `Operation` in the edit history.

use std::rc::Rc;

use lbplan_core::naming::{BrokerNames, BundleName, BundleRange, parse_hex_boundary};
use lbplan_core::plan::operations::Operation;
use lbplan_core::split::SplitAlgorithm;
use lbplan_core::view::bundle_map::BundleMap;
use yew::prelude::*;

use super::event_value;

use super::broker_picker::BrokerPicker;
use super::broker_table::BUNDLE_MIME;
use crate::format;

#[derive(Clone, Properties)]
pub struct WhatIfProps {
    pub map: Rc<BundleMap>,
    pub selected: Option<usize>,
    pub on_op: Callback<Operation>,
    pub on_error: Callback<String>,
    /// The split algorithms the effective configuration lets an operator ask for (core's
    /// `operator_split_algorithms`).
    pub split_algorithms: Rc<Vec<SplitAlgorithm>>,
    #[prop_or_default]
    pub readonly: bool,
}

impl PartialEq for WhatIfProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.map, &o.map)
            && self.selected == o.selected
            && self.readonly == o.readonly
            && self.split_algorithms == o.split_algorithms
    }
}

#[function_component(WhatIf)]
pub fn what_if(p: &WhatIfProps) -> Html {
    let dest = use_state(String::new);
    let algorithm = use_state(String::new);
    let positions = use_state(String::new);
    let new_broker = use_state(String::new);
    let remove = use_state(String::new);
    let map = &p.map;
    // Brokers offered by their display names (core's one rule), the full id as the value; worked
    // out once per map, not at each render (1,000 brokers).
    let (names, brokers) = {
        let map = map.clone();
        (*use_memo(Rc::as_ptr(&p.map) as usize, move |_| {
            (
                Rc::new(BrokerNames::new(map.brokers.iter().map(String::as_str))),
                Rc::new(map.brokers.clone()),
            )
        }))
        .clone()
    };
    let picked = |h: &UseStateHandle<String>| {
        let h = h.clone();
        Callback::from(move |b: Option<String>| h.set(b.unwrap_or_default()))
    };
    let selected = p.selected.and_then(|s| {
        let seg = map.segments.get(s)?;
        Some((map.bundle_name(s)?, *seg))
    });
    let setter = |h: &UseStateHandle<String>| {
        let h = h.clone();
        Callback::from(move |e: Event| h.set(event_value(&e)))
    };
    let bundle_panel = match selected {
        None => {
            html! { <p class="muted">{ if p.readonly { "Select a bundle on the map to see its range, owner and load." } else { "Select a bundle on the map to move, unload or split it." } }</p> }
        }
        Some((name, seg)) => {
            let owner = map
                .owner_name(seg.owner)
                .unwrap_or("(no owner)")
                .to_string();
            let namespace = BundleName::parts(&name)
                .map(|(n, _)| n.to_string())
                .unwrap_or_default();
            let on_move = {
                let (on_op, on_error, name, dest) = (
                    p.on_op.clone(),
                    p.on_error.clone(),
                    name.clone(),
                    dest.clone(),
                );
                Callback::from(move |_| {
                    if dest.is_empty() {
                        on_error.emit("choose a destination broker first".into());
                    } else {
                        on_op.emit(Operation::UnloadBundle {
                            bundle: name.clone(),
                            destination_broker: Some((*dest).clone()),
                        });
                    }
                })
            };
            let on_unload = {
                let (on_op, name) = (p.on_op.clone(), name.clone());
                Callback::from(move |_| {
                    on_op.emit(Operation::UnloadBundle {
                        bundle: name.clone(),
                        destination_broker: None,
                    })
                })
            };
            let first_algorithm = p
                .split_algorithms
                .first()
                .map_or(String::new(), |a| a.name().to_string());
            let on_split = {
                let (on_op, on_error, name, algorithm, positions) = (
                    p.on_op.clone(),
                    p.on_error.clone(),
                    name.clone(),
                    algorithm.clone(),
                    positions.clone(),
                );
                Callback::from(move |_| {
                    let parsed: Result<Vec<u32>, _> = positions
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(parse_hex_boundary)
                        .collect();
                    match parsed {
                        Ok(pos) => {
                            let algo = if pos.is_empty() {
                                // Nothing chosen yet: the first the select shows.
                                if algorithm.is_empty() {
                                    first_algorithm.clone()
                                } else {
                                    (*algorithm).clone()
                                }
                            } else {
                                SplitAlgorithm::SpecifiedPositionsDivide.name().to_string()
                            };
                            on_op.emit(Operation::SplitBundle {
                                bundle: name.clone(),
                                algorithm: Some(algo),
                                positions: pos,
                            });
                        }
                        Err(_) => on_error.emit(
                            "split positions must be numbers (decimal or 0x…), separated by commas"
                                .into(),
                        ),
                    }
                })
            };
            let on_unload_ns = {
                let (on_op, namespace) = (p.on_op.clone(), namespace.clone());
                Callback::from(move |_| {
                    on_op.emit(Operation::UnloadNamespace {
                        namespace: namespace.clone(),
                    })
                })
            };
            let ondragstart = {
                let name = name.clone();
                Callback::from(move |e: DragEvent| {
                    if let Some(dt) = e.data_transfer() {
                        let _ = dt.set_data(BUNDLE_MIME, &name);
                        let _ = dt.set_data("text/plain", &name);
                    }
                })
            };
            html! {
                <div class="selection" data-testid="selection">
                    <p>
                        <span class="chip mono" draggable={(!p.readonly).to_string()} {ondragstart}
                            title="Drag onto a broker row to move the bundle there" data-testid="bundle-chip">{ &name }</span>
                    </p>
                    <dl class="facts small">
                        <div><dt>{ "Range" }</dt><dd class="mono">{ BundleRange { lo: seg.lo, hi: seg.hi }.to_string() }</dd></div>
                        <div><dt>{ "Owner" }</dt><dd class="mono" data-testid="selection-owner">{ &owner }</dd></div>
                        <div><dt>{ "Load" }</dt><dd>{ format!("{} msg/s, {}", format::rate(f64::from(seg.msg_per_sec)), format::bytes_per_sec(f64::from(seg.bytes_per_sec))) }</dd></div>
                        <div><dt>{ "Topics" }</dt><dd>{ seg.topics }</dd></div>
                    </dl>
                    if !p.readonly {
                        <div class="actions">
                            <label>{ "Move to " }
                                <BrokerPicker brokers={Rc::new(brokers.iter().filter(|b| **b != owner).cloned().collect::<Vec<_>>())}
                                    names={names.clone()} selected={(!dest.is_empty()).then(|| AttrValue::from((*dest).clone()))}
                                    empty="choose a broker" what="Move to" testid="move-destination"
                                    on_pick={picked(&dest)} />
                            </label>
                            <button type="button" onclick={on_move} data-testid="move-bundle">{ "Move" }</button>
                            <button type="button" onclick={on_unload}>{ "Unload (Pulsar places it)" }</button>
                        </div>
                        <div class="actions">
                            <label>{ "Split by " }
                                <select onchange={setter(&algorithm)} data-testid="split-algorithm">
                                    { for p.split_algorithms.iter().map(|a| html! { <option value={a.name()} selected={*algorithm == a.name()}>{ a.name() }</option> }) }
                                </select>
                            </label>
                            <label>{ " or at positions " }
                                <input class="mono" placeholder="0x40000000,…" onchange={setter(&positions)} />
                            </label>
                            <button type="button" onclick={on_split} data-testid="split-bundle">{ "Split (permanent)" }</button>
                        </div>
                        <div class="actions">
                            <button type="button" onclick={on_unload_ns} data-testid="unload-namespace">{ format!("Unload namespace {namespace}") }</button>
                        </div>
                    }
                </div>
            }
        }
    };
    let on_add = {
        let (on_op, new_broker) = (p.on_op.clone(), new_broker.clone());
        Callback::from(move |_| {
            if !new_broker.trim().is_empty() {
                on_op.emit(Operation::AddBroker {
                    broker: new_broker.trim().to_string(),
                    like: None,
                });
            }
        })
    };
    let on_remove = {
        let (on_op, remove) = (p.on_op.clone(), remove.clone());
        Callback::from(move |_| {
            if !remove.is_empty() {
                on_op.emit(Operation::RemoveBroker {
                    broker: (*remove).clone(),
                });
            }
        })
    };
    html! {
        <section class="panel whatif" data-testid="whatif">
            <h2>{ if p.readonly { "Selected bundle" } else { "What if" } }</h2>
            { bundle_panel }
            if !p.readonly {
                <div class="actions">
                    <label>{ "Add broker " }<input class="mono" placeholder="host:port" onchange={setter(&new_broker)} data-testid="add-broker-name" /></label>
                    <button type="button" onclick={on_add} data-testid="add-broker">{ "Add" }</button>
                    <label>{ " Remove broker " }
                        <BrokerPicker brokers={brokers.clone()} names={names.clone()}
                            selected={(!remove.is_empty()).then(|| AttrValue::from((*remove).clone()))}
                            empty="choose" what="Remove broker" testid="remove-broker-name"
                            on_pick={picked(&remove)} />
                    </label>
                    <button type="button" onclick={on_remove} data-testid="remove-broker">{ "Remove" }</button>
                </div>
            }
        </section>
    }
}
