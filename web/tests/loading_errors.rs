//! A snapshot that cannot be fetched or imported ends in the error banner, never a blank page, and a
//! failed import never replaces what is loaded.

use std::rc::Rc;
use std::time::Duration;

use lbplan_web::components::ErrorBanner;
use lbplan_web::components::error_banner::ErrorBannerProps;
use lbplan_web::state::{Action, AppState, Status};
use wasm_bindgen_test::*;
use yew::Reducible;

wasm_bindgen_test_configure!(run_in_browser);

fn fetched(state: Rc<AppState>, result: Result<String, String>) -> Rc<AppState> {
    state.reduce(Action::Fetched {
        source: "static/demo-snapshot.json".to_string(),
        result,
    })
}

fn demo_json() -> String {
    let s = lbplan_core::synthetic::demo().unwrap();
    lbplan_core::synthetic::to_json(&s).unwrap()
}

#[wasm_bindgen_test]
fn fetch_failures_and_bad_snapshots_become_messages() {
    let fresh = || Rc::new(AppState::initial());
    let s = fetched(fresh(), Err("HTTP 404 Not Found".to_string()));
    let Status::Failed(m) = &s.status else {
        panic!("a 404 must fail");
    };
    assert!(
        m.contains("static/demo-snapshot.json") && m.contains("404"),
        "{m}"
    );
    assert!(s.error.is_some());

    let s = fetched(fresh(), Ok("{ not json".to_string()));
    assert!(matches!(s.status, Status::Failed(_)), "bad JSON must fail");

    let s = fetched(
        fresh(),
        Ok(r#"{"format_version": 2, "brokers": {}}"#.to_string()),
    );
    let Status::Failed(m) = &s.status else {
        panic!("an unknown format_version must fail");
    };
    assert!(m.contains("format_version"), "{m}");

    let ok = fetched(fresh(), Ok(demo_json()));
    assert!(matches!(ok.status, Status::Loaded(_)));
}

#[wasm_bindgen_test]
fn a_failed_import_keeps_the_loaded_snapshot() {
    let loaded = fetched(Rc::new(AppState::initial()), Ok(demo_json()));
    let Status::Loaded(before) = &loaded.status else {
        panic!("demo must load");
    };
    let before = before.clone();
    let after = fetched(loaded, Ok("{ broken".to_string()));
    let Status::Loaded(still) = &after.status else {
        panic!("the snapshot must stay");
    };
    assert!(Rc::ptr_eq(&before, still));
    assert!(
        after
            .error
            .as_deref()
            .is_some_and(|e| e.contains("Could not load"))
    );
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
            on_dismiss: None,
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
