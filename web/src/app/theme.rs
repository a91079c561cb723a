//! Light or dark: the host's `theme` option, else the system's colour scheme, followed as it
//! changes (for the canvases; CSS follows by itself).

use yew::prelude::*;

fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Whether to draw dark, and the app's theme class, for the `theme` option (`dark`, `light`, or
/// anything else for the system's).
#[hook]
pub fn use_theme(theme: Option<String>) -> (bool, &'static str) {
    let system_dark = use_state(prefers_dark);
    {
        let system_dark = system_dark.clone();
        use_effect_with((), move |_| {
            let mql = web_sys::window()
                .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten());
            let listener = mql.map(|m| {
                gloo::events::EventListener::new(&m, "change", move |_| {
                    system_dark.set(prefers_dark())
                })
            });
            move || drop(listener)
        });
    }
    match theme.as_deref() {
        Some("dark") => (true, "theme-dark"),
        Some("light") => (false, "theme-light"),
        _ => (*system_dark, "theme-auto"),
    }
}
