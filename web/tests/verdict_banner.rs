//! The verdict banner in a real browser (wasm-bindgen-test in headless Chromium): the issue 22
//! situation (8 unloads converge on a 1-core broker) planned by the store shows the `worse` banner
//! with the overloaded broker and the converging pattern; its button applies the suggested placement
//! strategy as an edit, and the plan that follows is no longer worse; "Propose a rebalance instead"
//! hands the rebalance panel a goal under the overloaded threshold and the plan's move count.
//! See: https://github.com/apache/pulsar/pull/16059

#[path = "../../crates/core/tests/support/converging.rs"]
mod converging;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use lbplan_core::plan::operations::Operation;
use lbplan_web::components::PlanView;
use lbplan_web::components::plan_view::PlanViewProps;
use lbplan_web::state::{Action, AppState, Loaded};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use yew::{Callback, Reducible};

wasm_bindgen_test_configure!(run_in_browser);

/// What "Propose a rebalance instead" hands the app: the goal and the move limit.
type Proposed = (String, Option<usize>);

fn text_of(root: &web_sys::Element, selector: &str) -> String {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no {selector}"))
        .text_content()
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn a_worse_plan_shows_the_banner_and_its_fix_applies_as_an_edit() {
    let s = Rc::new(AppState::initial())
        .reduce(Action::Loaded {
            loaded: Rc::new(Loaded::new(
                converging::snapshot(),
                "converging".into(),
                Vec::new(),
            )),
            keep_session: true,
        })
        .reduce(Action::RunPlan);
    let plan = s.plan.clone().unwrap();

    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let applied: Rc<RefCell<Vec<(String, String)>>> = Rc::default();
    let record = applied.clone();
    let proposed: Rc<RefCell<Vec<Proposed>>> = Rc::default();
    let propose = proposed.clone();
    let unloads = match &*plan {
        Ok(p) => p.unloads.len(),
        Err(e) => panic!("{e}"),
    };
    let handle = yew::Renderer::<PlanView>::with_root_and_props(
        root.clone(),
        PlanViewProps {
            plan,
            on_apply_setting: Some(Callback::from(move |kv| record.borrow_mut().push(kv))),
            on_propose_rebalance: Some(Callback::from(move |g| propose.borrow_mut().push(g))),
            diff: None,
            explain: None,
            on_find: None,
            applied_order: false,
        },
    )
    .render();
    yew::platform::time::sleep(Duration::from_millis(10)).await;

    let banner = root
        .query_selector("[data-testid=verdict-banner]")
        .unwrap()
        .unwrap();
    assert_eq!(
        banner.get_attribute("data-outcome").as_deref(),
        Some("worse")
    );
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    assert!(text_of(&root, "[data-testid=verdict-headline]").starts_with("WORSE: "));
    // Brokers by display name (the usual port dropped), the full id on the name's title.
    let reasons = text_of(&root, "[data-testid=verdict-reasons]");
    assert!(reasons.contains("tiny-1 ends at 102.9%"), "{reasons}");
    let full = root
        .query_selector(&format!(
            "[data-testid=verdict-reasons] [data-broker=\"{}\"]",
            converging::TINY
        ))
        .unwrap()
        .expect("the name carries its full id");
    assert_eq!(
        full.get_attribute("title").as_deref(),
        Some(converging::TINY)
    );
    let patterns = text_of(&root, "[data-testid=verdict-patterns]");
    assert!(
        patterns.contains("8 of 8 unloads converge on tiny-1 "),
        "{patterns}"
    );

    let button: web_sys::HtmlElement = root
        .query_selector("[data-testid=verdict-apply]")
        .unwrap()
        .unwrap()
        .unchecked_into();
    assert_eq!(
        button.text_content().as_deref(),
        Some("Use LeastResourceUsageWithWeight")
    );
    button.click();
    let (key, value) = applied
        .borrow()
        .first()
        .cloned()
        .expect("the button applies");
    assert_eq!(key, "loadBalancerLoadPlacementStrategy");
    assert_eq!(
        value,
        "org.apache.pulsar.broker.loadbalance.impl.LeastResourceUsageWithWeight"
    );
    // The other way out: a rebalance of the same cluster, every broker under the overloaded
    // threshold (loadBalancerBrokerOverloadedThresholdPercentage=85), at most the plan's 8 moves.
    let rebalance: web_sys::HtmlElement = root
        .query_selector("[data-testid=verdict-propose-rebalance]")
        .unwrap()
        .expect("a worse plan offers a rebalance")
        .unchecked_into();
    rebalance.click();
    assert_eq!(
        proposed.borrow().first().cloned(),
        Some(("max<=85%".to_string(), Some(unloads)))
    );
    assert_eq!(unloads, 8);
    handle.destroy();

    // The app turns the click into this edit (`on_set`): the next plan is not worse.
    let s = s.reduce(Action::Push(Operation::SetConfig { key, value }));
    let after = s.plan_ok().expect("a plan");
    assert!(!after.verdict.is_worse(), "{}", after.verdict.headline);
}
