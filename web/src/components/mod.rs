//! The dashboard's components, one per file; each renders what it is given (computed by the core)
//! and reports user intent through callbacks.

pub mod apply_dialog;
pub mod apply_run;
pub mod broker_detail;
pub mod broker_picker;
pub mod broker_table;
pub mod bundle_map;
pub mod calibration_loader;
pub mod error_banner;
pub mod export_panel;
pub mod header;
pub mod history;
pub mod history_answers;
pub mod history_leader_log;
pub mod history_view;
pub mod import_warnings;
pub mod live_bar;
pub mod loader_bar;
pub mod model_accuracy;
pub mod namespace_list;
pub mod nav;
pub mod pipeline_detail;
pub mod plan_view;
pub mod rebalance_panel;
pub mod run_panel;
pub mod settings_panel;
pub mod sim_chart;
pub mod simulate_panel;
pub mod staged;
pub mod styled;
pub mod tenant_filter;
pub mod upgrade_panel;
pub mod verdict_banner;
pub mod virtual_rows;
pub mod whatif;
pub mod width_watch;

pub use broker_detail::BrokerDetailView;
pub use broker_table::BrokerTable;
pub use bundle_map::BundleMapView;
pub use error_banner::ErrorBanner;
pub use export_panel::ExportPanel;
pub use header::Header;
pub use history::History;
pub use history_view::HistoryTimeline;
pub use import_warnings::ImportWarnings;
pub use live_bar::LiveBar;
pub use loader_bar::LoaderBar;
pub use namespace_list::NamespaceList;
pub use nav::Nav;
pub use plan_view::PlanView;
pub use rebalance_panel::{RebalancePanel, RebalancePrefill};
pub use run_panel::RunPanel;
pub use settings_panel::SettingsPanel;
pub use simulate_panel::SimulatePanel;
pub use upgrade_panel::UpgradePanel;
pub use verdict_banner::VerdictBanner;
pub use whatif::WhatIf;

use std::rc::Rc;

use crate::state::Loaded;

/// Props of the components that render a loaded snapshot. Compared by pointer: a new snapshot is a
/// new `Rc`, and comparing whole snapshots by value would cost more than rendering.
#[derive(Clone, yew::Properties)]
pub struct LoadedProps {
    pub loaded: Rc<Loaded>,
}

impl PartialEq for LoadedProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.loaded, &other.loaded)
    }
}

/// The `<input>` an event came from (a file picker's files, a switch's state).
pub fn event_input(e: &yew::Event) -> Option<web_sys::HtmlInputElement> {
    use wasm_bindgen::JsCast;
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
}

/// The value of the `<select>` or `<input>` an event came from (empty when it came from neither).
pub fn event_value(e: &yew::Event) -> String {
    use wasm_bindgen::JsCast;
    e.target()
        .and_then(|t| {
            t.clone()
                .dyn_into::<web_sys::HtmlSelectElement>()
                .map(|s| s.value())
                .ok()
                .or_else(|| {
                    t.dyn_into::<web_sys::HtmlInputElement>()
                        .ok()
                        .map(|i| i.value())
                })
        })
        .unwrap_or_default()
}

/// A reason or change text with the brokers it names by full id shown by their display names
/// (core's `BrokerNames::pieces`), each full id on hover; the rest of the text as it is.
pub fn named_text(names: &lbplan_core::naming::BrokerNames, text: &str) -> yew::Html {
    use lbplan_core::naming::NamePiece;
    use yew::html;
    html! {
        { for names.pieces(text).into_iter().map(|p| match p {
            NamePiece::Text(t) => html! { { t.to_string() } },
            NamePiece::Broker { id, short } => html! {
                <span class="broker-name" title={id.to_string()} data-broker={id.to_string()}>{ short.to_string() }</span>
            },
        }) }
    }
}
