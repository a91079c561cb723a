//! The dashboard's one chart on a canvas: axes and ticks, a line (or bars) per series, the
//! reference line and the cursor, from a `view::sim_chart::Chart` the core computed. The
//! simulation's charts and the History view's broker load lines (core's `usage_lines_chart` for
//! both) are drawn here; a click picks the step under the pointer (the slider follows). Also the
//! one way a canvas is sized for the screen's pixel ratio ([`hidpi_context`]), which the History
//! view's maps use too.

use std::rc::Rc;

use lbplan_core::view::palette::css_hex;
use lbplan_core::view::sim_chart::{Chart, ChartKind, PlotArea};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::styled::Swatch;

/// CSS height of a chart (the stylesheet sizes the canvas; this sets its backing store).
const HEIGHT_PX: f64 = 170.0;

#[derive(Clone, Properties)]
pub struct SimChartProps {
    pub chart: Rc<Chart>,
    pub dark: bool,
    /// The step (cycle, snapshot) the slider shows.
    pub cursor: Option<u32>,
    pub on_pick: Callback<u32>,
    /// What the x axis counts, for the chart's accessible name.
    #[prop_or(AttrValue::Static("cycles"))]
    pub x_unit: AttrValue,
}

impl PartialEq for SimChartProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.chart, &o.chart)
            && self.dark == o.dark
            && self.cursor == o.cursor
            && self.x_unit == o.x_unit
    }
}

/// The canvas's 2D context with its backing store sized for the screen's pixel ratio and a
/// transform to CSS pixels, and its CSS width (at least 120 px); `height_px` is its CSS height.
pub fn hidpi_context(
    canvas: &web_sys::HtmlCanvasElement,
    height_px: f64,
) -> Option<(web_sys::CanvasRenderingContext2d, f64)> {
    let ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()?
        .dyn_into::<web_sys::CanvasRenderingContext2d>()
        .ok()?;
    let ratio = web_sys::window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .max(1.0);
    let width = f64::from(canvas.client_width()).max(120.0);
    let (bw, bh) = ((width * ratio) as u32, (height_px * ratio) as u32);
    if canvas.width() != bw || canvas.height() != bh {
        canvas.set_width(bw);
        canvas.set_height(bh);
    }
    let _ = ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0);
    Some((ctx, width))
}

fn rgba(rgb: [u8; 3], alpha: f64) -> String {
    format!("rgba({},{},{},{alpha})", rgb[0], rgb[1], rgb[2])
}

fn draw(canvas: &web_sys::HtmlCanvasElement, p: &SimChartProps) {
    let Some((ctx, width)) = hidpi_context(canvas, HEIGHT_PX) else {
        return;
    };
    ctx.clear_rect(0.0, 0.0, width, HEIGHT_PX);
    let c = &p.chart;
    let area = PlotArea::inside(width, HEIGHT_PX);
    let (ink, grid) = if p.dark {
        ("#a3adbd", "rgba(255,255,255,0.10)")
    } else {
        ("#5b6475", "rgba(0,0,0,0.08)")
    };
    ctx.set_font("11px system-ui, sans-serif");
    ctx.set_line_width(1.0);
    // Horizontal grid with the y ticks.
    ctx.set_text_align("right");
    ctx.set_text_baseline("middle");
    for &v in &c.y_ticks {
        let y = c.y_px(&area, v).round() + 0.5;
        ctx.set_stroke_style_str(grid);
        ctx.begin_path();
        ctx.move_to(area.left, y);
        ctx.line_to(area.left + area.width, y);
        ctx.stroke();
        ctx.set_fill_style_str(ink);
        let _ = ctx.fill_text(&c.tick_label(v), area.left - 6.0, y);
    }
    ctx.set_text_align("center");
    ctx.set_text_baseline("top");
    for &k in &c.x_ticks {
        let x = c.x_px(&area, f64::from(k));
        let _ = ctx.fill_text(&k.to_string(), x, area.top + area.height + 5.0);
    }
    if let Some((v, label)) = &c.reference {
        let y = c.y_px(&area, *v).round() + 0.5;
        ctx.set_stroke_style_str(ink);
        let dash = js_sys::Array::of2(&4.0.into(), &4.0.into());
        let _ = ctx.set_line_dash(&dash);
        ctx.begin_path();
        ctx.move_to(area.left, y);
        ctx.line_to(area.left + area.width, y);
        ctx.stroke();
        let _ = ctx.set_line_dash(&js_sys::Array::new());
        ctx.set_text_align("right");
        ctx.set_text_baseline("bottom");
        let _ = ctx.fill_text(label, area.left + area.width - 2.0, y - 2.0);
    }
    let slot = c.slot_px(&area);
    if c.kind == ChartKind::Unloads {
        let n = c.series.len().max(1) as f64;
        let bar = (slot / n).max(1.0);
        for (s_idx, s) in c.series.iter().enumerate() {
            ctx.set_fill_style_str(&css_hex(s.rgb));
            for (k, v) in s.values.iter().enumerate() {
                if !(v.is_finite() && *v > 0.0) {
                    continue;
                }
                let x = area.left + k as f64 * slot + s_idx as f64 * bar.min(slot / n);
                let y = c.y_px(&area, *v);
                ctx.fill_rect(x, y, bar, area.top + area.height - y);
            }
        }
    } else {
        let many = c.series.len() > 8;
        // Background series first, the named ones on top.
        let mut order: Vec<&lbplan_core::view::sim_chart::Series> = c.series.iter().collect();
        order.sort_by_key(|s| s.in_legend);
        for s in order {
            let (alpha, line) = match (many, s.in_legend) {
                (true, false) => (0.35, 1.0),
                (true, true) => (1.0, 2.0),
                _ => (1.0, 1.75),
            };
            ctx.set_stroke_style_str(&rgba(s.rgb, alpha));
            ctx.set_line_width(line);
            ctx.begin_path();
            let mut pen_down = false;
            for (k, v) in s.values.iter().enumerate() {
                if !v.is_finite() {
                    pen_down = false;
                    continue;
                }
                let (x, y) = (c.x_px(&area, k as f64), c.y_px(&area, *v));
                if pen_down {
                    ctx.line_to(x, y);
                } else {
                    ctx.move_to(x, y);
                    pen_down = true;
                }
            }
            ctx.stroke();
        }
        ctx.set_line_width(1.0);
    }
    if let Some(k) = p.cursor.filter(|k| *k < c.cycles.max(1)) {
        let x = c.x_px(&area, f64::from(k)).round() + 0.5;
        ctx.set_stroke_style_str(ink);
        ctx.begin_path();
        ctx.move_to(x, area.top);
        ctx.line_to(x, area.top + area.height);
        ctx.stroke();
    }
}

#[function_component(SimChartView)]
pub fn sim_chart_view(p: &SimChartProps) -> Html {
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        let props = p.clone();
        use_effect(move || {
            if let Some(c) = canvas.cast::<web_sys::HtmlCanvasElement>() {
                draw(&c, &props);
            }
        });
    }
    let onclick = {
        let (canvas, chart, pick) = (canvas.clone(), p.chart.clone(), p.on_pick.clone());
        Callback::from(move |e: MouseEvent| {
            let Some(c) = canvas.cast::<web_sys::HtmlCanvasElement>() else {
                return;
            };
            let area = PlotArea::inside(f64::from(c.client_width()), HEIGHT_PX);
            if let Some(k) = chart.cycle_at(&area, f64::from(e.offset_x())) {
                pick.emit(k);
            }
        })
    };
    let c = &p.chart;
    let legend: Vec<Html> = c
        .series
        .iter()
        .filter(|s| s.in_legend)
        .map(|s| {
            html! { <span class="legend-item"><Swatch colour={css_hex(s.rgb)} />{ s.label.clone() }</span> }
        })
        .collect();
    let hidden = c.series.iter().filter(|s| !s.in_legend).count();
    let values: usize = c.series.iter().map(|s| s.values.len()).sum();
    html! {
        <figure class="sim-chart">
            <figcaption>{ c.title.clone() }</figcaption>
            <canvas ref={canvas} data-testid="simulation-chart" data-chart={c.kind.id()}
                data-series={c.series.len().to_string()} data-values={values.to_string()}
                role="img" aria-label={format!("{} over {} {}", c.title, c.cycles, p.x_unit)} {onclick}></canvas>
            <div class="legend small">
                { for legend }
                if hidden > 0 {
                    <span class="muted">{ format!("and {hidden} more brokers (thin lines)") }</span>
                }
            </div>
        </figure>
    }
}
