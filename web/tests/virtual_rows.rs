//! Mounts the virtualised table in a real browser (wasm-bindgen-test in headless Chromium): 200,000
//! rows keep a few dozen in the DOM, the spacers give the scrollbar the whole list's height, the
//! rows carry `aria-rowindex` under the table's `aria-rowcount`, and End on the focused container
//! brings the last row in.

use std::time::Duration;

use lbplan_web::components::virtual_rows::{VirtualRows, VirtualRowsProps, aria_row};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use yew::prelude::*;

wasm_bindgen_test_configure!(run_in_browser);

const ROWS: usize = 200_000;

fn rendered(root: &web_sys::Element) -> Vec<usize> {
    let rows = root.query_selector_all("tbody tr[aria-rowindex]").unwrap();
    (0..rows.length())
        .map(|i| {
            let row: web_sys::Element = rows.get(i).unwrap().unchecked_into();
            row.get_attribute("aria-rowindex").unwrap().parse().unwrap()
        })
        .collect()
}

#[wasm_bindgen_test]
async fn two_hundred_thousand_rows_keep_a_few_dozen_in_the_page() {
    let document = gloo::utils::document();
    // The dashboard's stylesheet's part that makes the container scroll and rows their height.
    let style = document.create_element("style").unwrap();
    style.set_text_content(Some(
        ".vrows { overflow: auto; } .vrows table { border-collapse: collapse; } \
         .vrows td, .vrows th { padding: 0; height: 30px; } .vrows tr.vspacer td { height: auto; }",
    ));
    document.body().unwrap().append_child(&style).unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let handle = yew::Renderer::<VirtualRows>::with_root_and_props(
        root.clone(),
        VirtualRowsProps {
            total: ROWS,
            row_height: 30,
            height: 300,
            overscan: 5,
            row: Callback::from(|i: usize| {
                html! { <tr aria-rowindex={aria_row(i)}><td>{ format!("row {i}") }</td></tr> }
            }),
            head: html! { <th scope="col">{ "Row" }</th> },
            columns: 1,
            label: "rows".into(),
            class: Classes::new(),
            testid: Some("t".into()),
            scroll_testid: None,
            reveal: None,
        },
    )
    .render();
    yew::platform::time::sleep(Duration::from_millis(30)).await;

    let table = root.query_selector("[data-testid=t]").unwrap().unwrap();
    assert_eq!(
        table.get_attribute("aria-rowcount").as_deref(),
        Some("200001")
    );
    let first = rendered(&root);
    assert_eq!(first.first(), Some(&2));
    assert!(first.len() <= 30, "{} rows rendered", first.len());
    // The spacers make the scroll height the whole list's (30 px a row, plus the header).
    let container: web_sys::HtmlElement = root
        .query_selector(".vrows")
        .unwrap()
        .unwrap()
        .unchecked_into();
    assert!(container.scroll_height() >= (ROWS * 30) as i32);

    // Scrolled to the end (the keyboard's End is the e2e test's): the last row is rendered, still a
    // few dozen in all.
    container.set_scroll_top(i32::MAX);
    yew::platform::time::sleep(Duration::from_millis(100)).await;
    let last = rendered(&root);
    assert_eq!(last.last(), Some(&(ROWS + 1)), "{last:?}");
    assert!(last.len() <= 30, "{} rows rendered", last.len());
    handle.destroy();
}
