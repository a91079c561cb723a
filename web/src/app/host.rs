//! What the host page hears: each new plan (`onPlanReady`) and each export (`onExportRequested`),
//! as plain JavaScript objects.

use std::rc::Rc;

use lbplan_core::plan::Plan;
use wasm_bindgen::JsValue;
use yew::prelude::*;

fn to_js(plan: &Plan) -> Option<JsValue> {
    let text = serde_json::to_string(plan).ok()?;
    js_sys::JSON::parse(&text).ok()
}

/// Tells the host about each plan (`serial` changes with every plan).
#[hook]
pub fn use_plan_ready(
    plan: Option<Rc<Result<Plan, String>>>,
    serial: u32,
    on_plan_ready: Option<js_sys::Function>,
) {
    use_effect_with(serial, move |_| {
        if let (Some(cb), Some(Ok(plan))) = (on_plan_ready, plan.as_deref())
            && let Some(v) = to_js(plan)
        {
            let _ = cb.call1(&JsValue::NULL, &v);
        }
    });
}

/// `(format, text)` of an export, with the plan it exports, to the host's `onExportRequested`.
pub fn on_export(
    on_export_requested: Option<js_sys::Function>,
    plan: Option<Rc<Result<Plan, String>>>,
) -> Callback<(String, String)> {
    Callback::from(move |(format, text): (String, String)| {
        let (Some(cb), Some(Ok(plan))) = (&on_export_requested, plan.as_deref()) else {
            return;
        };
        let detail = js_sys::Object::new();
        let plan_js = to_js(plan).unwrap_or(JsValue::NULL);
        let _ = js_sys::Reflect::set(&detail, &"plan".into(), &plan_js);
        let _ = js_sys::Reflect::set(&detail, &"format".into(), &format.into());
        let _ = js_sys::Reflect::set(&detail, &"text".into(), &text.into());
        let _ = cb.call1(&JsValue::NULL, &detail);
    })
}
