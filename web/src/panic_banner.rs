//! Panics become visible: the message goes to the browser console (`console_error_panic_hook`) and
//! into an error panel at the top of the page, written with plain DOM calls because Yew cannot
//! render anymore once the wasm instance has panicked.

use wasm_bindgen::JsCast;

/// Installs the hook once, at start.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show(&format!("The dashboard stopped because of a bug: {info}"));
    }));
}

fn show(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(banner) = document.create_element("div") else {
        return;
    };
    let _ = banner.set_attribute("class", "error-banner");
    let _ = banner.set_attribute("role", "alert");
    let _ = banner.set_attribute("data-testid", "error-banner");
    banner.set_text_content(Some(message));
    if let Some(body) = document.body() {
        let body: &web_sys::Element = body.unchecked_ref();
        let _ = body.prepend_with_node_1(&banner);
    }
}
