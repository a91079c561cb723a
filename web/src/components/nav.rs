//! The section navigation: a sticky bar of links to the dashboard's sections (core's
//! `view::share::SECTIONS`, those present on the page). A link scrolls its section into view and
//! moves keyboard focus there; in the standalone page the section also goes into the URL
//! (`view=` beside the session's `s=`), so a reload or a shared link opens at the same place.

use lbplan_core::view::share::{SECTIONS, fragment_with_section, section_of_fragment};
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Clone, PartialEq, Properties)]
pub struct NavProps {
    /// Ids of the sections on the page (a subset of `SECTIONS`).
    pub present: Vec<&'static str>,
    /// Whether this planner owns the page's URL (not an embedded element).
    pub standalone: bool,
}

/// The section element `id` of the planner that contains `from`.
fn section_element(from: &web_sys::Element, id: &str) -> Option<web_sys::HtmlElement> {
    from.closest(".lbplan-app")
        .ok()
        .flatten()?
        .query_selector(&format!("[data-section=\"{id}\"]"))
        .ok()
        .flatten()?
        .dyn_into::<web_sys::HtmlElement>()
        .ok()
}

/// Scrolls the section `id` of the planner that contains `from` into view and focuses it (a
/// button elsewhere in the planner that leads to a section).
pub fn go_to_section(from: &web_sys::Element, id: &str) {
    go_to(from, id, false);
}

fn go_to(from: &web_sys::Element, id: &str, standalone: bool) {
    let Some(section) = section_element(from, id) else {
        return;
    };
    section.scroll_into_view();
    // Focus follows, so the next Tab starts inside the section (tabindex -1: focusable by script only).
    let _ = section.focus();
    if standalone
        && let Some(w) = web_sys::window()
        && let Ok(hash) = w.location().hash()
        && let Ok(history) = w.history()
    {
        let url = format!("#{}", fragment_with_section(&hash, id));
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

#[function_component(Nav)]
pub fn nav(p: &NavProps) -> Html {
    let nav_ref = use_node_ref();
    let current = use_state(|| {
        p.standalone
            .then(|| {
                web_sys::window()
                    .and_then(|w| w.location().hash().ok())
                    .and_then(|h| section_of_fragment(&h))
            })
            .flatten()
    });
    // Opened with `view=` in the URL: go there once the sections are on the page.
    {
        let nav_ref = nav_ref.clone();
        let current = *current;
        let standalone = p.standalone;
        use_effect_with((), move |_| {
            if let (Some(id), Some(el)) = (current, nav_ref.cast::<web_sys::Element>()) {
                go_to(&el, id, standalone);
            }
        });
    }
    html! {
        <nav class="sections" aria-label="Sections" ref={nav_ref} data-testid="sections-nav">
            <ul>
                { for SECTIONS.iter().filter(|(id, _)| p.present.contains(id)).map(|(id, label)| {
                    let id = *id;
                    let onclick = {
                        let current = current.clone();
                        let standalone = p.standalone;
                        Callback::from(move |e: MouseEvent| {
                            e.prevent_default();
                            if let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                                go_to(&el, id, standalone);
                            }
                            current.set(Some(id));
                        })
                    };
                    html! {
                        <li><a href={format!("#view={id}")} data-testid={format!("nav-{id}")}
                            aria-current={(*current == Some(id)).then_some("location")} {onclick}>{ *label }</a></li>
                    }
                }) }
            </ul>
        </nav>
    }
}
