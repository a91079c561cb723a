//! Mounts the brokers table in a real browser (wasm-bindgen-test in headless Chromium): one row per
//! broker with the core's weighted max, and sorting by a column header (a button, so keyboard users
//! can sort too).

use std::rc::Rc;
use std::time::Duration;

use lbplan_core::config::{LoadBalancerConfig, Profile};
use lbplan_core::model::{BrokerSnapshot, LocalBrokerData, ResourceUsage, Snapshot};
use lbplan_core::view::brokers::broker_rows;
use lbplan_web::components::BrokerTable;
use lbplan_web::components::broker_table::BrokerTableProps;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use yew::Callback;

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
    s.brokers.insert("c:8080".to_string(), broker(0.0, "4.0.7"));
    s.brokers
        .insert("a:8080".to_string(), broker(350.0, "4.0.7"));
    s.brokers
        .insert("b:8080".to_string(), broker(100.0, "4.0.7"));
    s
}

fn first_cells(root: &web_sys::Element) -> Vec<String> {
    let rows = root
        .query_selector_all("[data-testid=broker-row] th")
        .unwrap();
    (0..rows.length())
        .map(|i| rows.get(i).unwrap().text_content().unwrap())
        .collect()
}

#[wasm_bindgen_test]
async fn broker_table_renders_and_sorts() {
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let config = LoadBalancerConfig::for_profile(Profile::Pulsar4x);
    let rows = Rc::new(broker_rows(&small_snapshot(), &config));
    let handle = yew::Renderer::<BrokerTable>::with_root_and_props(
        root.clone(),
        BrokerTableProps {
            rows,
            on_drop_bundle: Callback::noop(),
            readonly: false,
            on_select: None,
            selected: None,
        },
    )
    .render();
    yew::platform::time::sleep(Duration::from_millis(10)).await;

    // Sorted by broker name first.
    assert_eq!(first_cells(&root), vec!["a", "b", "c"]);
    let first = root
        .query_selector("[data-testid=broker-row]")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap();
    // Reference §1: 350/400 = 87.5 % cpu is the weighted max with default weights.
    assert!(first.contains("87.5 %"), "{first}");
    // 87.5 % is over the default loadBalancerBrokerOverloadedThresholdPercentage (85).
    assert!(
        root.query_selector("[data-testid=broker-row] .bar.high")
            .unwrap()
            .is_some()
    );

    // CPU, busiest first, then ascending on a second click.
    let cpu: web_sys::HtmlElement = root
        .query_selector("[data-testid=sort-cpu]")
        .unwrap()
        .unwrap()
        .unchecked_into();
    cpu.click();
    yew::platform::time::sleep(Duration::from_millis(10)).await;
    assert_eq!(first_cells(&root), vec!["a", "b", "c"]);
    cpu.click();
    yew::platform::time::sleep(Duration::from_millis(10)).await;
    assert_eq!(first_cells(&root), vec!["c", "b", "a"]);
    handle.destroy();
}
