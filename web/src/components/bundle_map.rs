//! The bundle map on a canvas: one row per namespace across the hash range, each bundle coloured by
//! its owner and shaded by load — or, at cluster scale, one band per tenant or namespace split
//! among its owners (level of detail); a search box (Find) read by core's classifier: a bundle or a
//! range selects that bundle, a topic lands on its bundle, a broker (full or short name), namespace
//! or tenant narrows the map, and ambiguous input offers its choices. Other views link a bundle
//! here through the `find` property. Geometry, the
//! level of detail, search, hit testing and rasterising come from the core (`view::bundle_map`,
//! `view::map_levels`, `view::map_search`); this component keeps the viewport and filter, turns
//! input into their changes and puts the core's pixels on the canvas once per animation frame
//! while the operator pans and zooms. A change from the page (a plan's marks, the selection) is
//! drawn in a task of its own, at the width the browser last laid out (`width_watch`), so a large
//! plan's first layout and the map's pixels are not one task.

use std::rc::Rc;

use gloo::render::{AnimationFrame, request_animation_frame};
use gloo::timers::callback::Timeout;
use lbplan_core::naming::BrokerNames;
use lbplan_core::naming::BundleRange;
use lbplan_core::view::bundle_map::{BundleMap, MapFilter, RenderStyle, Viewport};
use lbplan_core::view::map_levels::{self, GroupMix, MapGroup, MapLevel};
use lbplan_core::view::map_search::{self, Choice, MapSearch};
use lbplan_core::view::palette::{broker_colour, css_hex};
use wasm_bindgen::{Clamped, JsCast};
use yew::prelude::*;

use super::broker_picker::BrokerPicker;
use super::styled::{Styled, Swatch};
use super::tenant_filter::TenantFilter;
use super::width_watch::WidthWatch;
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
    /// A search asked for by another view (a bundle link): run once per serial.
    #[prop_or_default]
    pub find: Option<(u32, AttrValue)>,
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
            && self.find == o.find
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
    /// The canvas's laid-out width, px.
    Resized(u32),
    Key(String),
    Tenant(String),
    Search(String),
    /// One of the choices an ambiguous search offered.
    Choose(String),
    Broker(Option<String>),
    ToggleAfter,
    ToggleSystem,
    Level(String),
    /// Out of the current drill-down.
    Back,
}

pub struct BundleMapView {
    canvas: NodeRef,
    vp: Viewport,
    filter: MapFilter,
    rows: Vec<u32>,
    hover: Option<(usize, f64, f64)>,
    /// Band and owner share under the pointer at an aggregated level.
    hover_band: Option<(usize, usize, f64, f64)>,
    drag: Option<(f64, f64, bool)>,
    raf: Option<AnimationFrame>,
    /// A draw asked for by the page, in a task of its own.
    soon: Option<Timeout>,
    /// The canvas's width as last laid out, and what watches it.
    laid_out_width: Option<u32>,
    width_watch: Option<WidthWatch>,
    buf: Vec<u8>,
    show_after: bool,
    last_draw_ms: f64,
    map_ptr: *const BundleMap,
    /// The map's tenants, listed once per map (not at each render: 16,000 rows at 200,000 bundles).
    tenants: Rc<Vec<String>>,
    /// The level the operator chose; `None` = automatic.
    level_choice: Option<MapLevel>,
    level: MapLevel,
    /// Bands of an aggregated level (empty at the bundle level) and their owner mixes, recomputed
    /// when the filter, the level or the plan changes — not per frame.
    groups: Vec<MapGroup>,
    mixes: Vec<GroupMix>,
    mixes_dirty: bool,
    /// What the last search found (or why not), shown under the toolbar.
    search_note: Option<(bool, String)>,
    /// The choices an ambiguous search offers (each a query that selects exactly it).
    choices: Vec<Choice>,
    /// The serial of the last `find` run.
    find_serial: Option<u32>,
    search_input: NodeRef,
    panel: NodeRef,
    /// Display names of the map's brokers (core's one rule), once per map.
    names: Rc<BrokerNames>,
    /// The map's brokers, for the broker filter's picker (once per map).
    brokers: Rc<Vec<String>>,
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

    /// A draw for a change from the page: in the next task, not in the coming frame's (where the
    /// page's own new elements are laid out).
    fn request_soon(&mut self, ctx: &Context<Self>) {
        if self.raf.is_none() && self.soon.is_none() {
            let link = ctx.link().clone();
            self.soon = Some(Timeout::new(0, move || link.send_message(Msg::Frame)));
        }
    }

    fn refilter(&mut self, map: &BundleMap) {
        self.rows = map.filtered_rows(&self.filter);
        self.level = self
            .level_choice
            .unwrap_or_else(|| map_levels::auto_level(map, &self.rows, HEIGHT_PX));
        self.groups = if self.level == MapLevel::Bundles {
            Vec::new()
        } else {
            map_levels::groups(map, &self.rows, self.level)
        };
        self.mixes_dirty = true;
        let w = self.vp.width_px;
        self.vp = Viewport::full(w, HEIGHT_PX, self.lines());
    }

    /// Rows on the canvas: namespaces at the bundle level, bands otherwise.
    fn lines(&self) -> usize {
        if self.level == MapLevel::Bundles {
            self.rows.len()
        } else {
            self.groups.len()
        }
    }

    fn aggregated(&self) -> bool {
        self.level != MapLevel::Bundles
    }

    /// Shows `query` in the Find box (a choice or a link ran it, not typing).
    fn set_query(&self, query: &str) {
        if let Some(input) = self.search_input.cast::<web_sys::HtmlInputElement>() {
            input.set_value(query);
        }
    }

    /// Puts a segment in view (at the bundle level) and selects it.
    fn land_on(&mut self, ctx: &Context<Self>, map: &BundleMap, segment: usize) {
        if let (Some(pos), Some((lo, hi))) = (
            self.rows
                .iter()
                .position(|r| map.segment_row.get(segment) == Some(r)),
            map.segment_fractions(segment),
        ) && !self.aggregated()
        {
            self.vp.focus(pos, self.rows.len(), lo, hi);
        }
        ctx.props().on_select.emit(Some(segment));
    }

    /// Runs a search (core's classifier): the filter that shows the result, and for a bundle or a
    /// topic the viewport on the bundle and the bundle selected; ambiguous input lists its choices.
    fn search(&mut self, ctx: &Context<Self>, map: &BundleMap, query: &str) {
        let found = map_search::search(map, query);
        self.filter = found.filter(&self.filter);
        self.refilter(map);
        self.choices.clear();
        let owner_of = |segment: usize| {
            map.segments
                .get(segment)
                .and_then(|s| map.owner_name(s.owner))
                .unwrap_or("no broker")
                .to_string()
        };
        self.search_note = match found {
            MapSearch::Clear => None,
            MapSearch::NoMatch(why) => Some((false, why)),
            MapSearch::Choices { why, choices, more } => {
                self.choices = choices;
                Some((
                    true,
                    if more > 0 {
                        format!("{why}: pick one ({more} more not listed; type more of the name)")
                    } else {
                        format!("{why}: pick one")
                    },
                ))
            }
            MapSearch::Bundle { bundle, segment } => {
                let owner = owner_of(segment);
                self.land_on(ctx, map, segment);
                Some((true, format!("bundle {bundle}, owned by {owner}")))
            }
            MapSearch::Topic {
                topic,
                hash,
                segment,
                ..
            } => {
                let bundle = map.bundle_name(segment).unwrap_or_default();
                let owner = owner_of(segment);
                self.land_on(ctx, map, segment);
                Some((
                    true,
                    format!("{topic} (hash {hash:#010x}) → {bundle}, owned by {owner}"),
                ))
            }
            MapSearch::Broker(b) => Some((
                true,
                format!("namespaces with bundles on {} ({b})", self.names.short(&b)),
            )),
            MapSearch::Namespace(n) => Some((true, format!("namespace {n}"))),
            MapSearch::Tenant(t) => Some((true, format!("tenant {t}"))),
            MapSearch::Substring(q) => Some((true, format!("namespaces containing “{q}”"))),
        };
    }

    /// One full redraw: the core rasterises, the canvas takes the pixels in one call, then labels.
    fn draw(&mut self, ctx: &Context<Self>) {
        let Some(canvas) = self.canvas.cast::<web_sys::HtmlCanvasElement>() else {
            return;
        };
        let started = now_ms();
        let width = match self.laid_out_width {
            Some(w) if w > 0 => w,
            // No observation yet (or no ResizeObserver): ask the layout.
            _ => u32::try_from(canvas.client_width()).unwrap_or(0),
        }
        .max(100);
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
        if self.aggregated() {
            if self.mixes_dirty {
                self.mixes = map_levels::mixes(&p.map, &self.groups, &style);
                self.mixes_dirty = false;
            }
            map_levels::render_rgba(&p.map, &self.mixes, &self.vp, &style, &mut self.buf);
        } else {
            p.map
                .render_rgba(&self.rows, &self.vp, &style, &mut self.buf);
        }
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
        // Row and band labels once rows are tall enough to read them.
        if self.vp.row_height_px >= 14.0 {
            c2d.set_font("11px system-ui, sans-serif");
            let first = self.vp.row0.floor().max(0.0) as usize;
            let visible = (f64::from(HEIGHT_PX) / self.vp.row_height_px).ceil() as usize + 1;
            let labels: Vec<String> = if self.aggregated() {
                self.groups
                    .iter()
                    .skip(first)
                    .take(visible)
                    .map(|g| match g.level {
                        MapLevel::Tenants => format!("{} · {} namespaces", g.label, g.rows.len()),
                        _ => g.label.clone(),
                    })
                    .collect()
            } else {
                self.rows
                    .iter()
                    .skip(first)
                    .take(visible)
                    .filter_map(|r| p.map.rows.get(*r as usize))
                    .map(|r| r.namespace.clone())
                    .collect()
            };
            for (i, label) in labels.iter().enumerate() {
                let k = first + i;
                let y = (k as f64 - self.vp.row0) * self.vp.row_height_px + 11.0;
                let text_w = c2d.measure_text(label).map(|m| m.width()).unwrap_or(80.0);
                c2d.set_fill_style_str(if p.dark {
                    "rgba(0,0,0,0.65)"
                } else {
                    "rgba(255,255,255,0.8)"
                });
                c2d.fill_rect(2.0, y - 10.0, text_w + 6.0, 13.0);
                c2d.set_fill_style_str(if p.dark { "#e3e7ee" } else { "#1d2330" });
                let _ = c2d.fill_text(label, 5.0, y);
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
        let map = ctx.props().map.clone();
        let mut view = Self {
            canvas: NodeRef::default(),
            vp: Viewport::full(800, HEIGHT_PX, 1),
            filter: MapFilter::default(),
            rows: Vec::new(),
            hover: None,
            hover_band: None,
            drag: None,
            raf: None,
            soon: None,
            laid_out_width: None,
            width_watch: None,
            buf: Vec::new(),
            show_after: false,
            last_draw_ms: 0.0,
            map_ptr: Rc::as_ptr(&map),
            tenants: Rc::new(map.tenants()),
            level_choice: None,
            level: MapLevel::Bundles,
            groups: Vec::new(),
            mixes: Vec::new(),
            mixes_dirty: true,
            search_note: None,
            choices: Vec::new(),
            find_serial: None,
            search_input: NodeRef::default(),
            panel: NodeRef::default(),
            names: Rc::new(BrokerNames::new(map.brokers.iter().map(String::as_str))),
            brokers: Rc::new(map.brokers.clone()),
        };
        view.refilter(&map);
        view
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Self::Properties) -> bool {
        let map = ctx.props().map.clone();
        if Rc::as_ptr(&map) != self.map_ptr {
            self.map_ptr = Rc::as_ptr(&map);
            self.tenants = Rc::new(map.tenants());
            self.filter = MapFilter::default();
            self.hover = None;
            self.hover_band = None;
            self.search_note = None;
            self.choices.clear();
            self.names = Rc::new(BrokerNames::new(map.brokers.iter().map(String::as_str)));
            self.brokers = Rc::new(map.brokers.clone());
            self.refilter(&map);
        }
        if let Some((serial, query)) = ctx.props().find.clone()
            && self.find_serial != Some(serial)
        {
            self.find_serial = Some(serial);
            self.set_query(&query);
            self.search(ctx, &map, &query);
            if let Some(panel) = self.panel.cast::<web_sys::Element>() {
                panel.scroll_into_view();
            }
        }
        // The plan (moves, owners after it) or the selection may have changed.
        self.mixes_dirty = true;
        self.request_soon(ctx);
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let map = ctx.props().map.clone();
        match msg {
            Msg::Frame => {
                self.raf = None;
                self.soon = None;
                self.draw(ctx);
                return false;
            }
            Msg::Resized(width) => {
                self.laid_out_width = Some(width);
                if width != self.vp.width_px || self.buf.is_empty() {
                    self.request_soon(ctx);
                }
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
                        self.vp.pan(dx, dy, self.lines());
                        self.drag = Some((x, y, true));
                    }
                    self.hover = None;
                    self.hover_band = None;
                } else if self.aggregated() {
                    self.hover_band =
                        map_levels::hit(&self.mixes, &self.vp, x, y).map(|(g, o)| (g, o, x, y));
                    return true;
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
                    if self.aggregated() {
                        // A click on a band drills into it.
                        if let Some((g, _)) = map_levels::hit(&self.mixes, &self.vp, x, y)
                            && let Some(group) = self.groups.get(g)
                        {
                            self.filter = group.drill(&self.filter);
                            self.hover_band = None;
                            self.refilter(&map);
                        }
                    } else {
                        ctx.props()
                            .on_select
                            .emit(map.hit(&self.rows, &self.vp, x, y));
                    }
                }
            }
            Msg::Leave => {
                self.drag = None;
                self.hover = None;
                self.hover_band = None;
            }
            Msg::Key(k) => {
                let rh = self.vp.row_height_px;
                let lines = self.lines();
                match k.as_str() {
                    "+" | "=" => self.vp.zoom(1.5, f64::from(self.vp.width_px) / 2.0),
                    "-" => self.vp.zoom(1.0 / 1.5, f64::from(self.vp.width_px) / 2.0),
                    "ArrowLeft" => self.vp.pan(60.0, 0.0, lines),
                    "ArrowRight" => self.vp.pan(-60.0, 0.0, lines),
                    "ArrowUp" => self.vp.pan(0.0, rh * 3.0, lines),
                    "ArrowDown" => self.vp.pan(0.0, -rh * 3.0, lines),
                    "0" => self.refilter(&map),
                    "Backspace" => return Component::update(self, ctx, Msg::Back),
                    "Escape" => ctx.props().on_select.emit(None),
                    _ => return false,
                }
            }
            Msg::Tenant(t) => {
                self.filter.tenant = Some(t).filter(|t| !t.is_empty());
                self.filter.only_namespace = None;
                self.refilter(&map);
            }
            Msg::Search(q) => self.search(ctx, &map, &q),
            Msg::Choose(q) => {
                self.set_query(&q);
                self.search(ctx, &map, &q);
            }
            Msg::Broker(b) => {
                self.filter.broker = b.filter(|b| !b.is_empty());
                self.refilter(&map);
            }
            Msg::ToggleAfter => {
                self.show_after = !self.show_after;
                self.mixes_dirty = true;
            }
            Msg::ToggleSystem => {
                self.filter.show_system = !self.filter.show_system;
                self.refilter(&map);
            }
            Msg::Level(l) => {
                self.level_choice = MapLevel::parse(&l);
                self.refilter(&map);
            }
            Msg::Back => {
                // One step out: a namespace, then a tenant, then every other narrowing.
                if self.filter.only_namespace.take().is_none()
                    && self.filter.tenant.take().is_none()
                {
                    self.filter = MapFilter {
                        show_system: self.filter.show_system,
                        ..MapFilter::default()
                    };
                }
                self.search_note = None;
                self.refilter(&map);
            }
        }
        self.request(ctx);
        true
    }

    fn rendered(&mut self, ctx: &Context<Self>, first: bool) {
        if first {
            // The first draw comes with the first observation of the canvas's width; without a
            // ResizeObserver, at the next frame.
            self.width_watch = self
                .canvas
                .cast::<web_sys::Element>()
                .and_then(|c| WidthWatch::new(&c, ctx.link().callback(Msg::Resized)));
            if self.width_watch.is_none() {
                self.request(ctx);
            }
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
                    | "Backspace"
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
                    <div title={owner.to_string()}>{ "owner " }<Swatch colour={css_hex(broker_colour(owner))} />{ self.names.short(owner).to_string() }</div>
                    <div>{ format!("{} msg/s · {}", format::rate(f64::from(s.msg_per_sec)), format::bytes_per_sec(f64::from(s.bytes_per_sec))) }</div>
                    <div>{ format!("{} topics", s.topics) }</div>
                </Styled>
            })
        });
        let band_tooltip = self.hover_band.and_then(|(g, o, x, y)| {
            let group = self.groups.get(g)?;
            let mix = self.mixes.get(g)?;
            let share = mix.shares.get(o)?;
            let owner = map.owner_name(share.owner).unwrap_or("(no owner)");
            let left = (x + 14.0).min(f64::from(self.vp.width_px) - 280.0).max(0.0);
            Some(html! {
                <Styled tag="div" class="map-tooltip" role="tooltip" testid="map-tooltip"
                     css={vec![("left", format!("{left:.0}px")), ("top", format!("{:.0}px", y + 14.0))]}>
                    <div class="mono">{ &group.label }</div>
                    <div>{ format!("{} namespace{} · {} bundles · {}", group.rows.len(), if group.rows.len() == 1 { "" } else { "s" },
                        mix.bundles, format::bytes_per_sec(mix.bytes_per_sec)) }</div>
                    <div title={owner.to_string()}>{ "owner " }<Swatch colour={css_hex(broker_colour(owner))} />{ self.names.short(owner).to_string() }
                        { format!(": {:.1} % ({} bundles, {})", share.share * 100.0, share.bundles, format::bytes_per_sec(share.bytes_per_sec)) }</div>
                    <div>{ format!("{} owners", mix.shares.len()) }</div>
                    if mix.moved > 0 { <div>{ format!("{} bundles moved by the plan", mix.moved) }</div> }
                    <div class="muted">{ "click to zoom in" }</div>
                </Styled>
            })
        });
        let drilled = self.filter.only_namespace.is_some() || self.filter.tenant.is_some();
        let level_value = self.level_choice.map_or("auto", MapLevel::label);
        let system = map.system_rows();
        let lines = self.lines();
        let shown_bundles: usize = self
            .rows
            .iter()
            .filter_map(|r| map.rows.get(*r as usize))
            .map(|r| r.end - r.start)
            .sum();
        let shown = format!(
            "{} namespace{}, {shown_bundles} bundle{}",
            self.rows.len(),
            if self.rows.len() == 1 { "" } else { "s" },
            if shown_bundles == 1 { "" } else { "s" }
        );
        html! {
            <section class="panel map-panel" ref={self.panel.clone()}>
                <h2>{ "Bundle map" }</h2>
                <div class="map-toolbar" role="toolbar" aria-label="Bundle map">
                    <button type="button" onclick={link.callback(|_| Msg::Zoom(1.5))} title="Zoom in (+)">{ "Zoom +" }</button>
                    <button type="button" onclick={link.callback(|_| Msg::Zoom(1.0 / 1.5))} title="Zoom out (−)">{ "Zoom −" }</button>
                    <button type="button" onclick={link.callback(|_| Msg::Reset)} title="Reset (0)">{ "Reset" }</button>
                    <label>{ "Tenant " }
                        <TenantFilter tenants={self.tenants.clone()}
                            selected={self.filter.tenant.clone().map(AttrValue::from)}
                            on_change={link.callback(Msg::Tenant)} />
                    </label>
                    <label>{ "Find " }
                        <input type="search" data-testid="map-search" placeholder="bundle, topic, namespace or broker"
                            ref={self.search_input.clone()}
                            aria-label="Find a bundle (tenant/ns/0x…_0x… or a range), a topic (lands on its bundle), a namespace, a tenant or a broker"
                            onchange={link.callback(|e: Event| {
                                Msg::Search(super::event_value(&e))
                            })} />
                    </label>
                    <label>{ "Broker " }
                        <BrokerPicker brokers={self.brokers.clone()} names={self.names.clone()}
                            selected={self.filter.broker.clone().map(AttrValue::from)}
                            empty="all" what="Broker" testid="map-broker"
                            on_pick={link.callback(Msg::Broker)} />
                    </label>
                    if p.after_owners.is_some() {
                        <label><input type="checkbox" data-testid="map-after" checked={self.show_after}
                            onchange={link.callback(|_| Msg::ToggleAfter)} />{ " show after the plan" }</label>
                    }
                    <label>{ "Detail " }
                        <select data-testid="map-level" onchange={link.callback(move |e: Event| Msg::Level(select_value(e)))}>
                            <option value="auto" selected={level_value == "auto"}>{ format!("auto ({})", self.level.label()) }</option>
                            { for [MapLevel::Tenants, MapLevel::Namespaces, MapLevel::Bundles].into_iter().map(|l| html! {
                                <option value={l.label()} selected={level_value == l.label()}>{ l.label() }</option>
                            }) }
                        </select>
                    </label>
                    if system > 0 {
                        <label><input type="checkbox" data-testid="map-show-system" checked={self.filter.show_system}
                            onchange={link.callback(|_| Msg::ToggleSystem)} />{ format!(" heartbeat/SLA namespaces ({system})") }</label>
                    }
                    if drilled {
                        <button type="button" data-testid="map-back" onclick={link.callback(|_| Msg::Back)} title="Back (Backspace)">{ "← Back" }</button>
                    }
                    <span class="muted" data-testid="map-count" data-level={self.level.label()}>{
                        if self.aggregated() {
                            format!("{shown} · {lines} {} bands", if self.level == MapLevel::Tenants { "tenant" } else { "namespace" })
                        } else {
                            shown
                        }
                    }</span>
                </div>
                if let Some((found, note)) = &self.search_note {
                    <p class={classes!("small", "map-search-result", (!found).then_some("error-text"))} data-testid="map-search-result" role="status">{ note }</p>
                }
                if !self.choices.is_empty() {
                    <div class="map-choices" data-testid="map-search-choices" role="group" aria-label="What the search could mean">
                        { for self.choices.iter().map(|c| {
                            let q = c.query.clone();
                            html! {
                                <button type="button" class="link mono small" data-testid="map-search-choice" data-query={c.query.clone()}
                                    onclick={link.callback(move |_| Msg::Choose(q.clone()))}>{ c.label.clone() }</button>
                            }
                        }) }
                    </div>
                }
                <div class="map-wrap">
                    <canvas data-testid={ctx.props().testid.clone()} ref={self.canvas.clone()} tabindex="0"
                        aria-label="Bundle map: one row per namespace, bundles coloured by owner. Arrow keys pan, + and − zoom, 0 resets."
                        {onwheel} {onmousedown} {onmousemove} {onmouseup}
                        onmouseleave={link.callback(|_| Msg::Leave)} {onkeydown}></canvas>
                    { tooltip.unwrap_or_default() }
                    { band_tooltip.unwrap_or_default() }
                </div>
                <p class="muted small">{
                    if self.aggregated() {
                        "Each band is split among the brokers that own its bundles, by their share of its load (largest first); darker bands carry more load. Click a band to zoom in, Backspace to go back. A mark at the left: the plan moves bundles of that band."
                    } else {
                        "Drag to pan, wheel or +/− to zoom, click a bundle to select it. Marked bundles move in the plan."
                    }
                }</p>
            </section>
        }
    }
}
