//! Mounts the brokers table in a real browser (wasm-bindgen-test in headless Chromium) and checks
//! that it renders one row per broker of a small snapshot, with the core's weighted max.

use std::time::Duration;

use lbplan_core::model::{BrokerSnapshot, LocalBrokerData, ResourceUsage, Snapshot};
use lbplan_web::components::{BrokerTable, DashboardProps};
use lbplan_web::state::Dashboard;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn broker(cpu_usage: f64, version: &str) -> BrokerSnapshot {
    BrokerSnapshot {
        local_broker_data: LocalBrokerData {
            cpu: ResourceUsage::new(cpu_usage, 400.0),
            bandwidth_in: ResourceUsage::new(100.0, 1000.0),
            broker_version_string: Some(version.to_string()),
            ..LocalBrokerData::default()
        },
        ..BrokerSnapshot::default()
    }
}

fn small_snapshot() -> Snapshot {
    let mut s = Snapshot {
        format_version: 1,
        cluster: Some("test".to_string()),
        ..Snapshot::default()
    };
    s.brokers
        .insert("a:8080".to_string(), broker(350.0, "4.0.7"));
    s.brokers
        .insert("b:8080".to_string(), broker(100.0, "4.0.7"));
    s.brokers.insert("c:8080".to_string(), broker(0.0, "4.0.7"));
    s
}

#[wasm_bindgen_test]
async fn broker_table_renders_one_row_per_broker() {
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();

    let dashboard = std::rc::Rc::new(Dashboard::from_snapshot(small_snapshot()));
    let handle = yew::Renderer::<BrokerTable>::with_root_and_props(
        root.clone(),
        DashboardProps { dashboard },
    )
    .render();
    yew::platform::time::sleep(Duration::from_millis(10)).await; // let Yew's scheduler render

    let rows = root.query_selector_all("[data-testid=broker-row]").unwrap();
    assert_eq!(rows.length(), 3);
    // Reference §1: 350/400 = 87.5 % cpu is the weighted max with default weights.
    let first = rows.get(0).unwrap().text_content().unwrap();
    assert!(first.contains("a:8080"), "{first}");
    assert!(first.contains("87.5 %"), "{first}");
    handle.destroy();
}
