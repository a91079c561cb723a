//! A snapshot that cannot be fetched or imported ends in the error banner, never a blank page, and a
//! failed import never replaces what is loaded. (Imports run in the plan worker; what the page's
//! store gets is `Action::Loaded` or `Action::Failed`.)

use std::rc::Rc;
use std::time::Duration;

use lbplan_web::components::ErrorBanner;
use lbplan_web::components::error_banner::ErrorBannerProps;
use lbplan_web::state::{Action, AppState, Loaded, Status};
use wasm_bindgen_test::*;
use yew::Reducible;

wasm_bindgen_test_configure!(run_in_browser);

fn demo() -> Rc<Loaded> {
    let s = lbplan_core::synthetic::demo().unwrap();
    Rc::new(Loaded::new(
        s,
        "static/demo-snapshot.json".into(),
        Vec::new(),
    ))
}

#[wasm_bindgen_test]
fn a_failure_before_any_snapshot_is_the_page_status() {
    let s = Rc::new(AppState::initial()).reduce(Action::Failed(
        "Could not load static/demo-snapshot.json: HTTP 404 Not Found".to_string(),
    ));
    let Status::Failed(m) = &s.status else {
        panic!("a 404 must fail");
    };
    assert!(
        m.contains("static/demo-snapshot.json") && m.contains("404"),
        "{m}"
    );
    assert!(s.error.is_some());
}

#[wasm_bindgen_test]
fn a_failed_import_keeps_the_loaded_snapshot() {
    let loaded = Rc::new(AppState::initial()).reduce(Action::Loaded {
        loaded: demo(),
        keep_session: false,
    });
    let Status::Loaded(before) = &loaded.status else {
        panic!("demo must load");
    };
    let before = before.clone();
    let after = loaded.reduce(Action::Failed(
        "Could not import broken.json: broken.json: line 1, column 3".to_string(),
    ));
    let Status::Loaded(still) = &after.status else {
        panic!("the snapshot must stay");
    };
    assert!(Rc::ptr_eq(&before, still));
    assert!(
        after
            .error
            .as_deref()
            .is_some_and(|e| e.contains("Could not import broken.json"))
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
