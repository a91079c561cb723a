//! An element's content width as the browser lays it out, told by a `ResizeObserver` after each
//! layout that changes it. Reading `clientWidth` in a canvas's draw instead forces the page's
//! style and layout inside the draw's task: at 1,000 brokers, the plan's new rows laid out in the
//! same task as the bundle map's pixels.

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use yew::Callback;

/// Watches one element until dropped.
pub struct WidthWatch {
    observer: web_sys::ResizeObserver,
    _on_resize: Closure<dyn FnMut(js_sys::Array)>,
}

impl WidthWatch {
    /// Tells `on_width` the element's content width (CSS px, rounded) after the first layout and
    /// after each that changes it; `None` where the browser has no `ResizeObserver`.
    pub fn new(element: &web_sys::Element, on_width: Callback<u32>) -> Option<Self> {
        let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let Ok(entry) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() else {
                return;
            };
            let width = entry.content_rect().width().round();
            if width.is_finite() && width >= 0.0 && width <= f64::from(u32::MAX) {
                on_width.emit(width as u32);
            }
        });
        let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
        observer.observe(element);
        Some(Self {
            observer,
            _on_resize: on_resize,
        })
    }
}

impl Drop for WidthWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}
