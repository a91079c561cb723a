//! Picking one broker of the cluster: a `<select>` while the brokers are few, a search field past
//! [`SELECT_MAX`]. At 1,000 brokers each broker `<select>` was 1,001 options and the page held
//! four of them (≈ 3,200 nodes laid out when a snapshot was shown, and diffed at every render); a
//! search field resolves what is typed (short or full name) with core's display-name rule
//! (`BrokerNames::resolve_or_explain`, "did you mean" included), and its suggestions are put in
//! the page only while the field has the focus.

use std::rc::Rc;

use lbplan_core::naming::BrokerNames;
use yew::prelude::*;

/// Brokers a `<select>` lists at most: past it, the list is not read by eye anyway.
pub const SELECT_MAX: usize = 64;

#[derive(Properties, PartialEq)]
pub struct BrokerPickerProps {
    /// The brokers offered, in the order shown (full ids).
    pub brokers: Rc<Vec<String>>,
    /// The cluster's display names (may name more brokers than offered).
    pub names: Rc<BrokerNames>,
    /// The broker picked, if any.
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    /// The empty choice's label ("all", "choose a broker"); the search field's placeholder.
    pub empty: AttrValue,
    /// What is picked for, in a refusal ("Drain `broker-4`: no such broker …").
    pub what: AttrValue,
    /// `data-testid` of the select or field; its refusal is `{testid}-error`.
    pub testid: AttrValue,
    /// Always a search field, emptied after each pick (adding brokers one by one to a list).
    #[prop_or_default]
    pub adds: bool,
    /// A broker's full id, or `None` for the empty choice.
    pub on_pick: Callback<Option<String>>,
}

#[function_component(BrokerPicker)]
pub fn broker_picker(p: &BrokerPickerProps) -> Html {
    let focused = use_state(|| false);
    let refusal = use_state(|| None::<String>);
    let selected = p.selected.as_deref();
    if !p.adds && p.brokers.len() <= SELECT_MAX {
        let on_pick = p.on_pick.clone();
        let onchange = Callback::from(move |e: Event| {
            let v = super::event_value(&e);
            on_pick.emit((!v.is_empty()).then_some(v));
        });
        return html! {
            <select data-testid={p.testid.clone()} {onchange}>
                <option value="" selected={selected.is_none()}>{ p.empty.clone() }</option>
                { for p.brokers.iter().map(|b| html! {
                    <option value={b.clone()} title={b.clone()} selected={selected == Some(b.as_str())}>{ p.names.short(b).to_string() }</option>
                }) }
            </select>
        };
    }
    let onchange = {
        let (on_pick, names, what, refusal) = (
            p.on_pick.clone(),
            p.names.clone(),
            p.what.clone(),
            refusal.clone(),
        );
        let (brokers, adds) = (p.brokers.clone(), p.adds);
        Callback::from(move |e: Event| {
            let Some(input) = super::event_input(&e) else {
                return;
            };
            let typed = input.value();
            let typed = typed.trim();
            if typed.is_empty() {
                refusal.set(None);
                if !adds {
                    on_pick.emit(None);
                }
                return;
            }
            match names.resolve_or_explain(typed, &what) {
                Ok(id) if brokers.contains(&id) => {
                    refusal.set(None);
                    if adds {
                        input.set_value("");
                    }
                    on_pick.emit(Some(id));
                }
                Ok(id) => refusal.set(Some(format!(
                    "{what} `{typed}`: {} cannot be picked here",
                    names.short(&id)
                ))),
                Err(why) => refusal.set(Some(why)),
            }
        })
    };
    let list_id = format!("{}-brokers", p.testid);
    let (onfocus, onblur) = {
        let (f1, f2) = (focused.clone(), focused.clone());
        (
            Callback::from(move |_: FocusEvent| f1.set(true)),
            Callback::from(move |_: FocusEvent| f2.set(false)),
        )
    };
    let shown = selected.map(|s| p.names.short(s).to_string());
    html! {
        <span class="broker-picker">
            <input type="search" list={list_id.clone()} autocomplete="off" size="18"
                data-testid={p.testid.clone()}
                placeholder={format!("{} ({} brokers: type a name)", p.empty, p.brokers.len())}
                aria-invalid={refusal.is_some().then_some("true")}
                title={selected.map(str::to_string).unwrap_or_else(|| "a broker's short or full name".to_string())}
                value={if p.adds { String::new() } else { shown.unwrap_or_default() }}
                {onchange} {onfocus} {onblur} />
            if *focused {
                <datalist id={list_id}>
                    { for p.brokers.iter().map(|b| html! {
                        <option value={p.names.short(b).to_string()} label={b.clone()} />
                    }) }
                </datalist>
            }
            if let Some(why) = &*refusal {
                <span class="error small" role="alert" data-testid={format!("{}-error", p.testid)}>{ why.clone() }</span>
            }
        </span>
    }
}
