//! Work proportional to a snapshot done on the page in slices: a core builder's `step` is called
//! until a slice's time budget is spent, then the page yields (a zero timeout) so input, rendering
//! and the worker's messages run between slices. No slice is one task proportional to the
//! snapshot: at 200,000 bundles building the bundle map alone took 2.3 s in one task.

use wasm_bindgen_futures::JsFuture;

/// A slice's time budget: well under the 50 ms a long task starts at, with room for the step
/// that crosses it.
pub const SLICE_MS: f64 = 12.0;

/// Units (bundles, namespaces) a core builder's step does between two looks at the clock.
pub const STEP_UNITS: usize = 256;

/// How a sliced run went: slices, the longest slice and the time on the page (ms).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sliced {
    pub slices: u32,
    pub longest_ms: f64,
    pub busy_ms: f64,
}

pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_default()
}

/// Lets the page's other tasks run (a zero timeout).
pub async fn yield_to_page() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = JsFuture::from(p).await;
}

/// Calls `step(STEP_UNITS)` until it answers `true`, yielding to the page whenever a slice has run
/// `SLICE_MS`; `stats` gathers the slices.
pub async fn run(stats: &mut Sliced, mut step: impl FnMut(usize) -> bool) {
    loop {
        let start = now_ms();
        let mut done = false;
        while !done && now_ms() - start < SLICE_MS {
            done = step(STEP_UNITS);
        }
        let took = now_ms() - start;
        crate::page_trace::measure_since("sliced: slice", start);
        stats.slices = stats.slices.saturating_add(1);
        stats.longest_ms = stats.longest_ms.max(took);
        stats.busy_ms += took;
        if done {
            return;
        }
        yield_to_page().await;
    }
}
