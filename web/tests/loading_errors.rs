//! A snapshot that cannot be fetched or parsed ends in the error banner, never a blank page.

use std::rc::Rc;
use std::time::Duration;

use lbplan_web::components::ErrorBanner;
use lbplan_web::components::error_banner::ErrorBannerProps;
use lbplan_web::state::{Action, AppState, Status};
use wasm_bindgen_test::*;
use yew::Reducible;

wasm_bindgen_test_configure!(run_in_browser);

fn fetched(result: Result<String, String>) -> Status {
    let state = Rc::new(AppState::default()).reduce(Action::Fetched {
        source: "static/demo-snapshot.json".to_string(),
        result,
    });
    state.status.clone()
}

#[wasm_bindgen_test]
fn fetch_failures_and_bad_snapshots_become_messages() {
    let Status::Failed(m) = fetched(Err("HTTP 404 Not Found".to_string())) else {
        panic!("a 404 must fail");
    };
    assert!(
        m.contains("static/demo-snapshot.json") && m.contains("404"),
        "{m}"
    );

    let Status::Failed(m) = fetched(Ok("{ not json".to_string())) else {
        panic!("bad JSON must fail");
    };
    assert!(m.contains("not valid"), "{m}");

    let Status::Failed(m) = fetched(Ok(r#"{"format_version": 2}"#.to_string())) else {
        panic!("an unknown format_version must fail");
    };
    assert!(m.contains("format_version 2"), "{m}");

    let ok = fetched(Ok(r#"{"format_version": 1}"#.to_string()));
    assert!(matches!(ok, Status::Loaded(_)));
}

#[wasm_bindgen_test]
async fn error_banner_shows_the_message() {
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let handle = yew::Renderer::<ErrorBanner>::with_root_and_props(
        root.clone(),
        ErrorBannerProps {
            message: "Could not load x: HTTP 404".into(),
        },
    )
    .render();
    yew::platform::time::sleep(Duration::from_millis(10)).await;
    let banner = root
        .query_selector("[data-testid=error-banner]")
        .unwrap()
        .expect("banner rendered");
    assert!(banner.text_content().unwrap().contains("HTTP 404"));
    handle.destroy();
}
