//! The dashboard's components, one per file; each takes the loaded [`crate::state::Dashboard`] (or a
//! message) as props and only renders.

pub mod broker_table;
pub mod error_banner;
pub mod header;
pub mod namespace_list;

pub use broker_table::BrokerTable;
pub use error_banner::ErrorBanner;
pub use header::Header;
pub use namespace_list::NamespaceList;

use std::rc::Rc;

use crate::state::Dashboard;

/// Props shared by the components that render a loaded snapshot. Compared by pointer: a new
/// snapshot is a new `Rc`, and comparing whole snapshots by value would cost more than rendering.
#[derive(Clone, yew::Properties)]
pub struct DashboardProps {
    pub dashboard: Rc<Dashboard>,
}

impl PartialEq for DashboardProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.dashboard, &other.dashboard)
    }
}
