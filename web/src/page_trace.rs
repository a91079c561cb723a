//! Names for the page's own work in the browser's performance timeline, so a trace (the
//! `?bench` page's, `tests/e2e/dashboard-bench.mjs` records one through the DevTools protocol)
//! can say which work made a long task: `performance.measure(name, {start, end})` around each
//! step that grows with the snapshot. Off unless [`enable`]d (the bench page turns it on): a
//! dashboard would otherwise fill the timeline's buffer with entries nobody reads.

use std::cell::Cell;

use wasm_bindgen::JsValue;

use crate::sliced::now_ms;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

/// Records measures from now on (this page's thread).
pub fn enable() {
    ON.with(|on| on.set(true));
}

/// A start time for [`measure`], when recording (no clock read otherwise).
pub fn start() -> Option<f64> {
    ON.with(Cell::get).then(now_ms)
}

/// Records `name` from `start` to now; nothing when `start` is `None`.
pub fn measure(name: &str, start: Option<f64>) {
    let Some(start) = start else { return };
    let Some(performance) = web_sys::window().and_then(|w| w.performance()) else {
        return;
    };
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"start".into(), &JsValue::from_f64(start));
    let _ = js_sys::Reflect::set(&options, &"end".into(), &JsValue::from_f64(now_ms()));
    let measure = js_sys::Reflect::get(&performance, &"measure".into())
        .ok()
        .and_then(|f| wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f).ok());
    if let Some(f) = measure {
        let _ = f.call2(&performance, &name.into(), &options);
    }
}

/// [`measure`] from a start time the caller took anyway, when recording.
pub fn measure_since(name: &str, start: f64) {
    if ON.with(Cell::get) {
        measure(name, Some(start));
    }
}
