//! The bundle map on a canvas: one row per namespace across the hash range, each bundle coloured by
//! its owner and shaded by load. Geometry, hit testing and rasterising come from the core
//! (`view::bundle_map`); this component keeps the viewport, turns input into viewport changes and
//! puts the core's pixels on the canvas once per animation frame.

use std::rc::Rc;

use gloo::render::{AnimationFrame, request_animation_frame};
use lbplan_core::naming::BundleRange;
use lbplan_core::view::bundle_map::{BundleMap, MapFilter, RenderStyle, Viewport};
use lbplan_core::view::palette::{broker_colour, css_hex};
use wasm_bindgen::{Clamped, JsCast};
use yew::prelude::*;

use super::styled::{Styled, Swatch};
use crate::format;

const HEIGHT_PX: u32 = 420;

#[derive(Clone, Properties)]
pub struct BundleMapProps {
    pub map: Rc<BundleMap>,
    /// Segments the plan moves (sorted).
    pub highlighted: Rc<Vec<usize>>,
    /// Owners after the plan, when the plan moved something.
    pub after_owners: Option<Rc<Vec<u32>>>,
    pub selected: Option<usize>,
    pub on_select: Callback<Option<usize>>,
    pub dark: bool,
    /// The canvas's `data-testid` (the simulation's replay map uses its own).
    #[prop_or(AttrValue::Static("bundle-map"))]
    pub testid: AttrValue,
}

impl PartialEq for BundleMapProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.map, &o.map)
            && Rc::ptr_eq(&self.highlighted, &o.highlighted)
            && match (&self.after_owners, &o.after_owners) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
            && self.selected == o.selected
            && self.dark == o.dark
            && self.testid == o.testid
    }
}

pub enum Msg {
    Wheel(f64, f64),
    Zoom(f64),
    Reset,
    Down(f64, f64),
    Move(f64, f64),
    Up(f64, f64),
    Leave,
    Frame,
    Key(String),
    Tenant(String),
    Namespace(String),
    Broker(String),
    ToggleAfter,
}

pub struct BundleMapView {
    canvas: NodeRef,
    vp: Viewport,
    filter: MapFilter,
    rows: Vec<u32>,
    hover: Option<(usize, f64, f64)>,
    drag: Option<(f64, f64, bool)>,
    raf: Option<AnimationFrame>,
    buf: Vec<u8>,
    show_after: bool,
    last_draw_ms: f64,
    map_ptr: *const BundleMap,
}

impl BundleMapView {
    fn request(&mut self, ctx: &Context<Self>) {
        if self.raf.is_none() {
            let link = ctx.link().clone();
            self.raf = Some(request_animation_frame(move |_| {
                link.send_message(Msg::Frame)
            }));
        }
    }

    fn refilter(&mut self, map: &BundleMap) {
        self.rows = map.filtered_rows(&self.filter);
        let w = self.vp.width_px;
        self.vp = Viewport::full(w, HEIGHT_PX, self.rows.len());
    }

    /// One full redraw: the core rasterises, the canvas takes the pixels in one call, then labels.
    fn draw(&mut self, ctx: &Context<Self>) {
        let Some(canvas) = self.canvas.cast::<web_sys::HtmlCanvasElement>() else {
            return;
        };
        let started = now_ms();
        let width = u32::try_from(canvas.client_width()).unwrap_or(0).max(100);
        if canvas.width() != width || canvas.height() != HEIGHT_PX {
            canvas.set_width(width);
            canvas.set_height(HEIGHT_PX);
        }
        if self.vp.width_px != width {
            self.vp.width_px = width;
            self.vp.height_px = HEIGHT_PX;
        }
        let p = ctx.props();
        let len = (width as usize) * (HEIGHT_PX as usize) * 4;
        self.buf.resize(len, 0);
        let owners = if self.show_after {
            p.after_owners.as_deref().map(Vec::as_slice)
        } else {
            None
        };
        let focus = self
            .filter
            .broker
            .as_deref()
            .and_then(|b| p.map.broker_index(b));
        let style = RenderStyle {
            owners,
            highlighted: &p.highlighted,
            selected: p.selected,
            focus_broker: focus,
            background: if p.dark {
                [26, 31, 39]
            } else {
                [255, 255, 255]
            },
            dark: p.dark,
        };
        p.map
            .render_rgba(&self.rows, &self.vp, &style, &mut self.buf);
        let Some(c2d) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        if let Ok(img) = web_sys::ImageData::new_with_u8_clamped_array_and_sh(
            Clamped(&self.buf),
            width,
            HEIGHT_PX,
        ) {
            let _ = c2d.put_image_data(&img, 0.0, 0.0);
        }
        // Namespace labels once rows are tall enough to read them.
        if self.vp.row_height_px >= 14.0 {
            c2d.set_font("11px system-ui, sans-serif");
            let first = self.vp.row0.floor().max(0.0) as usize;
            let visible = (f64::from(HEIGHT_PX) / self.vp.row_height_px).ceil() as usize + 1;
            for (k, r) in self.rows.iter().enumerate().skip(first).take(visible) {
                let Some(row) = p.map.rows.get(*r as usize) else {
                    continue;
                };
                let y = (k as f64 - self.vp.row0) * self.vp.row_height_px + 11.0;
                let text_w = c2d
                    .measure_text(&row.namespace)
                    .map(|m| m.width())
                    .unwrap_or(80.0);
                c2d.set_fill_style_str(if p.dark {
                    "rgba(0,0,0,0.65)"
                } else {
                    "rgba(255,255,255,0.8)"
                });
                c2d.fill_rect(2.0, y - 10.0, text_w + 6.0, 13.0);
                c2d.set_fill_style_str(if p.dark { "#e3e7ee" } else { "#1d2330" });
                let _ = c2d.fill_text(&row.namespace, 5.0, y);
            }
        }
        self.last_draw_ms = now_ms() - started;
        let _ = canvas.set_attribute("data-draw-ms", &format!("{:.2}", self.last_draw_ms));
    }
}

pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

impl Component for BundleMapView {
    type Message = Msg;
    type Properties = BundleMapProps;

    fn create(ctx: &Context<Self>) -> Self {
        let map = &ctx.props().map;
        let rows = map.filtered_rows(&MapFilter::default());
        Self {
            canvas: NodeRef::default(),
            vp: Viewport::full(800, HEIGHT_PX, rows.len()),
            filter: MapFilter::default(),
            rows,
            hover: None,
            drag: None,
            raf: None,
            buf: Vec::new(),
            show_after: false,
            last_draw_ms: 0.0,
            map_ptr: Rc::as_ptr(map),
        }
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Self::Properties) -> bool {
        let map = ctx.props().map.clone();
        if Rc::as_ptr(&map) != self.map_ptr {
            self.map_ptr = Rc::as_ptr(&map);
            self.filter = MapFilter::default();
            self.hover = None;
            self.refilter(&map);
        }
        self.request(ctx);
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let map = ctx.props().map.clone();
        match msg {
            Msg::Frame => {
                self.raf = None;
                self.draw(ctx);
                return false;
            }
            Msg::Wheel(dy, x) => {
                let factor = if dy < 0.0 { 1.25 } else { 0.8 };
                self.vp.zoom(factor, x);
            }
            Msg::Zoom(f) => {
                let mid = f64::from(self.vp.width_px) / 2.0;
                self.vp.zoom(f, mid);
            }
            Msg::Reset => self.refilter(&map),
            Msg::Down(x, y) => self.drag = Some((x, y, false)),
            Msg::Move(x, y) => {
                if let Some((px, py, _)) = self.drag {
                    let (dx, dy) = (x - px, y - py);
                    if dx.abs() + dy.abs() > 0.0 {
                        self.vp.pan(dx, dy, self.rows.len());
                        self.drag = Some((x, y, true));
                    }
                    self.hover = None;
                } else {
                    self.hover = map.hit(&self.rows, &self.vp, x, y).map(|s| (s, x, y));
                    self.request(ctx);
                    return true;
                }
            }
            Msg::Up(x, y) => {
                let moved = self.drag.is_some_and(|d| d.2);
                self.drag = None;
                if !moved {
                    ctx.props()
                        .on_select
                        .emit(map.hit(&self.rows, &self.vp, x, y));
                }
            }
            Msg::Leave => {
                self.drag = None;
                self.hover = None;
            }
            Msg::Key(k) => {
                let rh = self.vp.row_height_px;
                match k.as_str() {
                    "+" | "=" => self.vp.zoom(1.5, f64::from(self.vp.width_px) / 2.0),
                    "-" => self.vp.zoom(1.0 / 1.5, f64::from(self.vp.width_px) / 2.0),
                    "ArrowLeft" => self.vp.pan(60.0, 0.0, self.rows.len()),
                    "ArrowRight" => self.vp.pan(-60.0, 0.0, self.rows.len()),
                    "ArrowUp" => self.vp.pan(0.0, rh * 3.0, self.rows.len()),
                    "ArrowDown" => self.vp.pan(0.0, -rh * 3.0, self.rows.len()),
                    "0" => self.refilter(&map),
                    "Escape" => ctx.props().on_select.emit(None),
                    _ => return false,
                }
            }
            Msg::Tenant(t) => {
                self.filter.tenant = Some(t).filter(|t| !t.is_empty());
                self.refilter(&map);
            }
            Msg::Namespace(n) => {
                self.filter.namespace = Some(n).filter(|n| !n.is_empty());
                self.refilter(&map);
            }
            Msg::Broker(b) => {
                self.filter.broker = Some(b).filter(|b| !b.is_empty());
                self.refilter(&map);
            }
            Msg::ToggleAfter => self.show_after = !self.show_after,
        }
        self.request(ctx);
        true
    }

    fn rendered(&mut self, ctx: &Context<Self>, first: bool) {
        if first {
            self.request(ctx);
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let link = ctx.link();
        let map = &p.map;
        let onwheel = {
            let link = link.clone();
            let canvas = self.canvas.clone();
            Callback::from(move |e: WheelEvent| {
                e.prevent_default();
                let x = canvas
                    .cast::<web_sys::HtmlCanvasElement>()
                    .map(|c| f64::from(e.client_x()) - c.get_bounding_client_rect().left())
                    .unwrap_or(0.0);
                link.send_message(Msg::Wheel(e.delta_y(), x));
            })
        };
        let canvas_ref = self.canvas.clone();
        let pos = move |e: &MouseEvent| -> (f64, f64) {
            canvas_ref
                .cast::<web_sys::HtmlCanvasElement>()
                .map(|c| {
                    let r = c.get_bounding_client_rect();
                    (
                        f64::from(e.client_x()) - r.left(),
                        f64::from(e.client_y()) - r.top(),
                    )
                })
                .unwrap_or((0.0, 0.0))
        };
        let onmousedown = {
            let pos = pos.clone();
            link.callback(move |e: MouseEvent| {
                let (x, y) = pos(&e);
                Msg::Down(x, y)
            })
        };
        let onmousemove = {
            let pos = pos.clone();
            link.callback(move |e: MouseEvent| {
                let (x, y) = pos(&e);
                Msg::Move(x, y)
            })
        };
        let onmouseup = {
            let pos = pos.clone();
            link.callback(move |e: MouseEvent| {
                let (x, y) = pos(&e);
                Msg::Up(x, y)
            })
        };
        let onkeydown = link.batch_callback(|e: KeyboardEvent| {
            let k = e.key();
            if matches!(
                k.as_str(),
                "+" | "="
                    | "-"
                    | "0"
                    | "ArrowLeft"
                    | "ArrowRight"
                    | "ArrowUp"
                    | "ArrowDown"
                    | "Escape"
            ) {
                e.prevent_default();
                Some(Msg::Key(k))
            } else {
                None
            }
        });
        let select_value = |e: Event| {
            e.target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                .map(|s| s.value())
                .unwrap_or_default()
        };
        let tooltip = self.hover.and_then(|(seg, x, y)| {
            let s = map.segments.get(seg)?;
            let name = map.bundle_name(seg)?;
            let owner = map.owner_name(s.owner).unwrap_or("(no owner)");
            let range = BundleRange { lo: s.lo, hi: s.hi };
            let left = (x + 14.0).min(f64::from(self.vp.width_px) - 260.0).max(0.0);
            Some(html! {
                <Styled tag="div" class="map-tooltip" role="tooltip" testid="map-tooltip"
                     css={vec![("left", format!("{left:.0}px")), ("top", format!("{:.0}px", y + 14.0))]}>
                    <div class="mono">{ name }</div>
                    <div>{ format!("range {range}") }</div>
                    <div>{ "owner " }<Swatch colour={css_hex(broker_colour(owner))} />{ owner }</div>
                    <div>{ format!("{} msg/s · {}", format::rate(f64::from(s.msg_per_sec)), format::bytes_per_sec(f64::from(s.bytes_per_sec))) }</div>
                    <div>{ format!("{} topics", s.topics) }</div>
                </Styled>
            })
        });
        html! {
            <section class="panel map-panel">
                <h2>{ "Bundle map" }</h2>
                <div class="map-toolbar" role="toolbar" aria-label="Bundle map">
                    <button type="button" onclick={link.callback(|_| Msg::Zoom(1.5))} title="Zoom in (+)">{ "Zoom +" }</button>
                    <button type="button" onclick={link.callback(|_| Msg::Zoom(1.0 / 1.5))} title="Zoom out (−)">{ "Zoom −" }</button>
                    <button type="button" onclick={link.callback(|_| Msg::Reset)} title="Reset (0)">{ "Reset" }</button>
                    <label>{ "Tenant " }
                        <select onchange={link.callback(move |e: Event| Msg::Tenant(select_value(e)))}>
                            <option value="" selected={self.filter.tenant.is_none()}>{ "all" }</option>
                            { for map.tenants().into_iter().map(|t| html! {
                                <option value={t.clone()} selected={self.filter.tenant.as_deref() == Some(t.as_str())}>{ t }</option>
                            }) }
                        </select>
                    </label>
                    <label>{ "Namespace " }
                        <input type="search" placeholder="filter" oninput={link.callback(|e: InputEvent| {
                            Msg::Namespace(e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).map(|i| i.value()).unwrap_or_default())
                        })} />
                    </label>
                    <label>{ "Broker " }
                        <select onchange={link.callback(move |e: Event| Msg::Broker(select_value(e)))}>
                            <option value="" selected={self.filter.broker.is_none()}>{ "all" }</option>
                            { for map.brokers.iter().map(|b| html! {
                                <option value={b.clone()} selected={self.filter.broker.as_deref() == Some(b.as_str())}>{ b }</option>
                            }) }
                        </select>
                    </label>
                    if p.after_owners.is_some() {
                        <label><input type="checkbox" data-testid="map-after" checked={self.show_after}
                            onchange={link.callback(|_| Msg::ToggleAfter)} />{ " show after the plan" }</label>
                    }
                    <span class="muted">{ format!("{} namespaces, {} bundles", self.rows.len(), map.segments.len()) }</span>
                </div>
                <div class="map-wrap">
                    <canvas data-testid={ctx.props().testid.clone()} ref={self.canvas.clone()} tabindex="0"
                        aria-label="Bundle map: one row per namespace, bundles coloured by owner. Arrow keys pan, + and − zoom, 0 resets."
                        {onwheel} {onmousedown} {onmousemove} {onmouseup}
                        onmouseleave={link.callback(|_| Msg::Leave)} {onkeydown}></canvas>
                    { tooltip.unwrap_or_default() }
                </div>
                <p class="muted small">{ "Drag to pan, wheel or +/− to zoom, click a bundle to select it. Marked bundles move in the plan." }</p>
            </section>
        }
    }
}
