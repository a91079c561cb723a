//! A simulation chart in a real browser: the core's series land on the canvas where the core's
//! geometry says (a flat std line in its configuration's colour), and a click picks the cycle under
//! the pointer.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use lbplan_core::simulate::{Comparison, CycleMetrics, RunConfig, RunSummary, SimulationRun};
use lbplan_core::view::sim_chart::{PlotArea, RUN_COLOURS, comparison_charts};
use lbplan_web::components::sim_chart::{SimChartProps, SimChartView};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

fn run(name: &str, std: f64, cycles: u32) -> SimulationRun {
    SimulationRun {
        config: RunConfig {
            name: name.into(),
            ..RunConfig::default()
        },
        summary: RunSummary {
            balanced_std_fraction: 0.1,
            ..RunSummary::default()
        },
        cycles: (0..cycles)
            .map(|k| CycleMetrics {
                cycle: k,
                std_usage_fraction: std,
                max_over_mean: 1.5,
                ..CycleMetrics::default()
            })
            .collect(),
        ..SimulationRun::default()
    }
}

#[wasm_bindgen_test]
async fn draws_series_where_the_core_says_and_picks_cycles() {
    let comparison = Comparison {
        runs: vec![run("a", 0.3, 20), run("b", 0.05, 20)],
        ..Comparison::default()
    };
    let chart = Rc::new(comparison_charts(&comparison).remove(0));
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    root.set_attribute("class", "lbplan-app").unwrap();
    root.set_attribute("style", "width: 600px").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let picked = Rc::new(Cell::new(None::<u32>));
    let seen = picked.clone();
    let handle = yew::Renderer::<SimChartView>::with_root_and_props(
        root.clone(),
        SimChartProps {
            chart: chart.clone(),
            dark: false,
            cursor: None,
            on_pick: Callback::from(move |k| seen.set(Some(k))),
            x_unit: "cycles".into(),
        },
    )
    .render();
    yew::platform::time::sleep(Duration::from_millis(100)).await;
    let canvas: web_sys::HtmlCanvasElement = root
        .query_selector("[data-testid=simulation-chart]")
        .unwrap()
        .expect("canvas")
        .unchecked_into();
    assert_eq!(canvas.get_attribute("data-chart").as_deref(), Some("std"));
    assert_eq!(canvas.get_attribute("data-series").as_deref(), Some("2"));
    // The accessible name counts what the x axis counts (the History view passes "snapshots").
    let label = canvas.get_attribute("aria-label").unwrap_or_default();
    assert!(label.ends_with(" cycles"), "{label}");

    // Run "a" is a flat line at 30 %: the pixel at cycle 10 on that line has its colour.
    let width = f64::from(canvas.client_width());
    let area = PlotArea::inside(width, 170.0);
    let ratio = f64::from(canvas.width()) / width;
    let (x, y) = (chart.x_px(&area, 10.0), chart.y_px(&area, 0.3));
    let ctx: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    let px = ctx
        .get_image_data((x * ratio).floor(), (y * ratio).floor(), 1.0, 1.0)
        .unwrap()
        .data();
    let [r, g, b] = RUN_COLOURS[0];
    let close = |a: u8, b: u8| a.abs_diff(b) <= 40;
    assert!(
        close(px[0], r) && close(px[1], g) && close(px[2], b) && px[3] > 150,
        "pixel {px:?} at ({x}, {y}) is not run a's colour {:?}",
        RUN_COLOURS[0]
    );

    // A click over cycle 15 picks 15.
    let rect = canvas.get_bounding_client_rect();
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(true);
    init.set_client_x((rect.left() + chart.x_px(&area, 15.0)) as i32);
    init.set_client_y((rect.top() + 60.0) as i32);
    let click = web_sys::MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap();
    canvas.dispatch_event(&click).unwrap();
    yew::platform::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(picked.get(), Some(15));
    handle.destroy();
}
