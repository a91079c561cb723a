//! The bundle-map canvas in a real browser: it draws a frame of the core's geometry (the component
//! records the draw time on the canvas), puts owner colours on the pixels, and a click selects the
//! bundle under the pointer.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use lbplan_core::view::bundle_map::BundleMap;
use lbplan_web::components::BundleMapView;
use lbplan_web::components::bundle_map::BundleMapProps;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn draws_and_selects() {
    let snapshot = lbplan_core::synthetic::demo().unwrap();
    let map = Rc::new(BundleMap::from_snapshot(&snapshot));
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    root.set_attribute("style", "width: 600px").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let selected = Rc::new(Cell::new(None::<Option<usize>>));
    let seen = selected.clone();
    let handle = yew::Renderer::<BundleMapView>::with_root_and_props(
        root.clone(),
        BundleMapProps {
            map: map.clone(),
            highlighted: Rc::new(Vec::new()),
            after_owners: None,
            selected: None,
            on_select: Callback::from(move |s| seen.set(Some(s))),
            dark: false,
            testid: "bundle-map".into(),
            find: None,
        },
    )
    .render();
    yew::platform::time::sleep(Duration::from_millis(200)).await;
    let canvas: web_sys::HtmlCanvasElement = root
        .query_selector("[data-testid=bundle-map]")
        .unwrap()
        .expect("canvas")
        .unchecked_into();
    assert!(
        canvas.get_attribute("data-draw-ms").is_some(),
        "a frame was drawn"
    );
    assert_eq!(canvas.height(), 420);

    // The top-left pixel of the first row (below the label area) carries a broker colour, not white.
    let ctx: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    let x = f64::from(canvas.width()) - 3.0;
    let px = ctx.get_image_data(x, 2.0, 1.0, 1.0).unwrap().data();
    assert_ne!((px[0], px[1], px[2]), (255, 255, 255), "{px:?}");

    // A click (down + up without moving) on the first row selects its last bundle.
    let r = canvas.get_bounding_client_rect();
    for kind in ["mousedown", "mouseup"] {
        let init = web_sys::MouseEventInit::new();
        init.set_bubbles(true);
        init.set_client_x((r.left() + r.width() - 3.0) as i32);
        init.set_client_y((r.top() + 2.0) as i32);
        let e = web_sys::MouseEvent::new_with_mouse_event_init_dict(kind, &init).unwrap();
        canvas.dispatch_event(&e).unwrap();
    }
    yew::platform::time::sleep(Duration::from_millis(50)).await;
    let first_row = &map.rows[0];
    assert_eq!(selected.get(), Some(Some(first_row.end - 1)));
    handle.destroy();
}
