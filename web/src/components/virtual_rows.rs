//! A virtualised table: a scroll container of fixed height holding a `<table>` whose body renders
//! only the rows in view plus an overscan (core's `view::virtual_window`), between two spacer rows
//! sized to the rows left out, so the scrollbar spans the whole list. Rows have a fixed height
//! (`row_height`, set on the container as `--vrow-h` and on each body row by the stylesheet). The
//! header row stays at the top (sticky). For assistive tech the table carries `aria-rowcount` and
//! each row its `aria-rowindex` ([`aria_row`]). The container is focusable: PageUp / PageDown /
//! Home / End scroll it; controls inside rows stay in the tab order.

use lbplan_core::view::virtual_window::{self, ScrollKey};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::styled::Styled;

/// Row `i`'s node keyed by its index: a row keeps its element while the list scrolls or a group
/// above it opens or closes (Yew would otherwise patch rows by position from the end, and the
/// focused button of a group's header would be replaced under the keyboard).
fn keyed(i: usize, mut node: Html) -> Html {
    match &mut node {
        yew::virtual_dom::VNode::VTag(tag) => tag.key = Some(i.into()),
        yew::virtual_dom::VNode::VList(list) => list.key = Some(i.into()),
        _ => {}
    }
    node
}

/// The `aria-rowindex` of body row `i` (the header row is 1).
pub fn aria_row(i: usize) -> String {
    (i + 2).to_string()
}

#[derive(Clone, PartialEq, Properties)]
pub struct VirtualRowsProps {
    /// How many body rows the list has.
    pub total: usize,
    /// Every body row's height, px.
    pub row_height: u32,
    /// The container's height once the rows overflow it, px (a short list takes its own height).
    #[prop_or(480)]
    pub height: u32,
    /// Rows rendered beyond each edge of the view.
    #[prop_or(8)]
    pub overscan: usize,
    /// Renders body row `i`: a `<tr aria-rowindex={aria_row(i)}>`.
    pub row: Callback<usize, Html>,
    /// The header row's cells.
    pub head: Html,
    /// Columns (the spacer rows span them).
    pub columns: usize,
    /// The container's accessible name.
    pub label: AttrValue,
    /// Classes of the `<table>`.
    #[prop_or_default]
    pub class: Classes,
    /// `data-testid` of the `<table>`.
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    /// `data-testid` of the scroll container.
    #[prop_or_default]
    pub scroll_testid: Option<AttrValue>,
    /// A row to bring into view (when this changes).
    #[prop_or_default]
    pub reveal: Option<usize>,
}

/// The scroll offset and the height of the rows' part of the view (the container less its sticky
/// header), px.
#[derive(Clone, Copy, PartialEq)]
struct View {
    top: f64,
    rows_px: f64,
}

fn measure(container: &NodeRef, head: &NodeRef) -> Option<View> {
    let el = container.cast::<web_sys::HtmlElement>()?;
    let head_px = head
        .cast::<web_sys::HtmlElement>()
        .map_or(0, |h| h.offset_height());
    Some(View {
        top: f64::from(el.scroll_top()),
        rows_px: f64::from((el.client_height() - head_px).max(0)),
    })
}

#[function_component(VirtualRows)]
pub fn virtual_rows(p: &VirtualRowsProps) -> Html {
    let container = use_node_ref();
    let head = use_node_ref();
    let view = use_state(|| View {
        top: 0.0,
        rows_px: f64::from(p.height.saturating_sub(p.row_height)),
    });
    let w = virtual_window::window(p.total, p.row_height, view.top, view.rows_px, p.overscan);
    // The container's height and row height (CSSOM, not a style attribute: the page runs under a
    // strict style-src CSP). The view is not measured here: reading the layout in an effect would
    // force the page's style and layout inside the render's task (≈ 15 ms of CPU at 200,000
    // bundles). Until the first scroll the view is taken as the container's height less one row
    // for the header, which the overscan covers.
    {
        let container = container.clone();
        use_effect_with((p.height, p.row_height), move |(height, row)| {
            if let Some(el) = container.cast::<web_sys::HtmlElement>() {
                let style = el.style();
                let _ = style.set_property("max-height", &format!("{height}px"));
                let _ = style.set_property("--vrow-h", &format!("{row}px"));
            }
        });
    }
    // A row asked to be revealed: scroll to it (the scroll event renders it).
    {
        let container = container.clone();
        let head = head.clone();
        let (total, row_height) = (p.total, p.row_height);
        use_effect_with(p.reveal, move |reveal| {
            if let Some(i) = *reveal
                && let Some(v) = measure(&container, &head)
                && let Some(top) =
                    virtual_window::scroll_to_reveal(i, total, row_height, v.top, v.rows_px)
                && let Some(el) = container.cast::<web_sys::Element>()
            {
                el.set_scroll_top(top.round() as i32);
            }
        });
    }
    let onscroll = {
        let container = container.clone();
        let head = head.clone();
        let view = view.clone();
        let (total, row_height, overscan) = (p.total, p.row_height, p.overscan);
        Callback::from(move |_: Event| {
            let Some(v) = measure(&container, &head) else {
                return;
            };
            // Re-render only when the rows to render change, not at every pixel.
            let next = virtual_window::window(total, row_height, v.top, v.rows_px, overscan);
            if next != w {
                view.set(v);
            }
        })
    };
    let onkeydown = {
        let container = container.clone();
        let head = head.clone();
        let (total, row_height) = (p.total, p.row_height);
        Callback::from(move |e: KeyboardEvent| {
            // Keys typed in a control inside a row are the control's.
            let on_container = match (e.target(), container.get()) {
                (Some(t), Some(c)) => t.dyn_ref::<web_sys::Node>() == Some(&c),
                _ => false,
            };
            let Some(key) = ScrollKey::parse(&e.key()) else {
                return;
            };
            if !on_container {
                return;
            }
            let (Some(v), Some(el)) = (
                measure(&container, &head),
                container.cast::<web_sys::Element>(),
            ) else {
                return;
            };
            e.prevent_default();
            let top = virtual_window::scroll_for_key(key, total, row_height, v.top, v.rows_px);
            el.set_scroll_top(top.round() as i32);
        })
    };
    // One keyed list of the rows in the window (not spliced into the body's children, where the
    // unkeyed spacers would make Yew patch rows by position).
    let rows: Html = (w.first..w.end).map(|i| keyed(i, p.row.emit(i))).collect();
    // Both spacers always there (0 px when nothing is left out): row `first` (even) is always the
    // body's second child, so striping by position keeps each row's stripe.
    let spacer = |key: &'static str, px: u64| {
        html! {
            <Styled key={key} tag="tr" class="vspacer" role="presentation" css={vec![("height", format!("{px}px"))]}>
                <td colspan={p.columns.to_string()}></td>
            </Styled>
        }
    };
    html! {
        <div class="vrows" ref={container} tabindex="0" role="region" aria-label={p.label.clone()}
            data-testid={p.scroll_testid.clone()} {onscroll} {onkeydown}>
            <table class={p.class.clone()} data-testid={p.testid.clone()}
                aria-rowcount={(p.total + 1).to_string()}>
                <thead ref={head}><tr aria-rowindex="1">{ p.head.clone() }</tr></thead>
                <tbody>
                    { spacer("before", w.before_px) }
                    { rows }
                    { spacer("after", w.after_px) }
                </tbody>
            </table>
        </div>
    }
}
