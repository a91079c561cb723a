//! The bundle map's tenant filter. A `<select>` lists every tenant while they are few; past
//! [`SELECT_MAX`] it is a text field instead: the demo's tenants copied to 200,000 bundles are
//! ≈ 4,900 tenants, and as options they were ≈ 4,900 DOM nodes laid out when the snapshot was
//! shown and diffed again at every render of the map (each hover). The list is the map's, computed
//! once per map by the caller (`BundleMap::tenants`), never here.

use std::rc::Rc;

use yew::prelude::*;

/// Tenants a `<select>` lists at most: enough for any cluster read by eye.
pub const SELECT_MAX: usize = 200;

#[derive(Properties, PartialEq)]
pub struct TenantFilterProps {
    /// The map's tenants, sorted.
    pub tenants: Rc<Vec<String>>,
    /// The tenant shown, if any.
    pub selected: Option<AttrValue>,
    /// A tenant's name, or "" for all.
    pub on_change: Callback<String>,
}

#[function_component(TenantFilter)]
pub fn tenant_filter(p: &TenantFilterProps) -> Html {
    let on_change = p.on_change.clone();
    // Both forms report their element's value: a select's option or the text typed.
    let onchange = Callback::from(move |e: Event| {
        on_change.emit(super::event_value(&e).trim().to_string());
    });
    let selected = p.selected.as_deref();
    if p.tenants.len() <= SELECT_MAX {
        return html! {
            <select data-testid="map-tenant" {onchange}>
                <option value="" selected={selected.is_none()}>{ "all" }</option>
                { for p.tenants.iter().map(|t| html! {
                    <option value={t.clone()} selected={selected == Some(t.as_str())}>{ t }</option>
                }) }
            </select>
        };
    }
    let unknown =
        selected.is_some_and(|s| p.tenants.binary_search_by(|t| t.as_str().cmp(s)).is_err());
    html! {
        <input type="search" data-testid="map-tenant" size="14"
            placeholder={format!("all {} tenants", p.tenants.len())}
            aria-label="Tenant (empty for all)"
            aria-invalid={unknown.then_some("true")}
            title={if unknown { "no such tenant" } else { "a tenant's name; empty for all" }}
            value={selected.unwrap_or_default().to_string()}
            {onchange} />
    }
}
