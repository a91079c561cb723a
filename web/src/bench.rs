//! The browser benchmark (`index.html?bench`, not a test): generates the 1,000-broker /
//! 200,000-bundle synthetic cluster in the browser (core `synthetic::large`), then measures importing
//! its JSON, one plan, building the bundle-map geometry, full bundle-map redraws, and the same plan
//! through the plan worker (with and without sending the snapshot), and prints the numbers on the page (`data-testid="bench-results"`, `data-done` when finished).

use std::cell::RefCell;
use std::rc::Rc;

use lbplan_core::plan::fingerprint::snapshot_fingerprint;
use lbplan_core::plan::{PlanRequest, make_plan, make_plan_with_fingerprint};
use lbplan_core::synthetic::{SyntheticSpec, generate, to_json};
use lbplan_core::view::bundle_map::{BundleMap, MapFilter, RenderStyle, Viewport};
use lbplan_core::view::map_levels;
use lbplan_worker::protocol::{PlanJob, Request};
use wasm_bindgen::{Clamped, JsCast};
use wasm_bindgen_futures::JsFuture;

use crate::components::bundle_map::now_ms;
use crate::plan_client::{PlanAnswer, PlanWorker};
use crate::state::import_files;

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 420;

/// Lets the page paint between steps.
async fn pause() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = JsFuture::from(p).await;
}

pub fn mount(root: web_sys::Element) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Ok(pre), Ok(canvas)) = (doc.create_element("pre"), doc.create_element("canvas")) else {
        return;
    };
    root.set_inner_html(
        "<div class=\"lbplan-app\"><main class=\"app\"><h1>Planner benchmark</h1>\
         <p>1,000 brokers, 200,000 bundles (<code>synthetic::large</code>), generated in this browser.</p></main></div>",
    );
    let _ = pre.set_attribute("data-testid", "bench-results");
    let _ = canvas.set_attribute("data-testid", "bundle-map");
    let _ = canvas.set_attribute("width", &WIDTH.to_string());
    let _ = canvas.set_attribute("height", &HEIGHT.to_string());
    if let Some(main) = root.query_selector("main").ok().flatten() {
        let _ = main.append_child(&pre);
        let _ = main.append_child(&canvas);
    }
    let canvas: web_sys::HtmlCanvasElement = canvas.unchecked_into();
    wasm_bindgen_futures::spawn_local(async move {
        let mut out = String::new();
        let mut line = |pre: &web_sys::Element, text: String| {
            out.push_str(&text);
            out.push('\n');
            pre.set_text_content(Some(&out));
        };
        line(&pre, "generating…".into());
        pause().await;
        let t = now_ms();
        let Ok(snapshot) = generate(&SyntheticSpec::large(), 1) else {
            line(&pre, "generate failed".into());
            return;
        };
        line(
            &pre,
            format!(
                "generate: {:.0} ms ({} brokers, {} bundles)",
                now_ms() - t,
                snapshot.brokers.len(),
                snapshot.bundle_data.len()
            ),
        );
        let t = now_ms();
        let Ok(json) = to_json(&snapshot) else { return };
        line(
            &pre,
            format!(
                "serialise JSON: {:.0} ms ({:.1} MiB)",
                now_ms() - t,
                json.len() as f64 / 1048576.0
            ),
        );
        drop(snapshot);
        pause().await;
        let t = now_ms();
        let imported = match import_files(&[("large.json".into(), json.into_bytes(), false)]) {
            Ok(i) => i,
            Err(e) => {
                line(&pre, format!("import failed: {e}"));
                return;
            }
        };
        line(&pre, format!("import_ms: {:.0}", now_ms() - t));
        pause().await;
        let t = now_ms();
        match make_plan(&imported.snapshot, &PlanRequest::leader_cycle()) {
            Ok(p) => line(
                &pre,
                format!(
                    "plan_ms: {:.0} ({} moves, {} splits)",
                    now_ms() - t,
                    p.unloads.len(),
                    p.splits.len()
                ),
            ),
            Err(e) => line(&pre, format!("plan failed: {e}")),
        }
        pause().await;
        // Later plans of a loaded snapshot reuse its fingerprint (state::Loaded, the plan worker).
        let t = now_ms();
        let fingerprint = snapshot_fingerprint(&imported.snapshot);
        let fingerprint_ms = now_ms() - t;
        let t = now_ms();
        if let Ok(p) = make_plan_with_fingerprint(
            &imported.snapshot,
            &PlanRequest::leader_cycle(),
            fingerprint,
        ) {
            line(
                &pre,
                format!(
                    "plan_ms, fingerprint kept: {:.0} (the fingerprint alone: {fingerprint_ms:.0}; {} moves)",
                    now_ms() - t,
                    p.unloads.len()
                ),
            );
        }
        pause().await;
        let t = now_ms();
        let map = BundleMap::from_snapshot(&imported.snapshot);
        line(
            &pre,
            format!(
                "map_geometry_ms: {:.0} ({} rows, {} segments)",
                now_ms() - t,
                map.rows.len(),
                map.segments.len()
            ),
        );
        // Every row, heartbeats included, so the figures compare with earlier runs.
        let rows = map.filtered_rows(&MapFilter {
            show_system: true,
            ..MapFilter::default()
        });
        let Some(ctx) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        let mut buf = vec![0u8; (WIDTH * HEIGHT * 4) as usize];
        let mut redraw = |vp: &Viewport, highlighted: &[usize]| -> (f64, usize) {
            let t = now_ms();
            let style = RenderStyle {
                highlighted,
                background: [255, 255, 255],
                ..Default::default()
            };
            let n = map.render_rgba(&rows, vp, &style, &mut buf);
            if let Ok(img) =
                web_sys::ImageData::new_with_u8_clamped_array_and_sh(Clamped(&buf), WIDTH, HEIGHT)
            {
                let _ = ctx.put_image_data(&img, 0.0, 0.0);
            }
            (now_ms() - t, n)
        };
        // The heartbeat namespaces (one bundle each, shown here) sort first; the dense views start at the tenants'.
        let first_tenant = rows
            .iter()
            .position(|r| {
                map.rows
                    .get(*r as usize)
                    .is_some_and(|row| !row.namespace.starts_with("pulsar/"))
            })
            .unwrap_or(0) as f64;
        let at = |row_height_px: f64, zoom: f64| {
            let mut v = Viewport {
                row_height_px,
                ..Viewport::full(WIDTH, HEIGHT, rows.len())
            };
            v.row0 = first_tenant;
            v.zoom(zoom, 600.0);
            v
        };
        for (label, vp) in [
            (
                "first rows (heartbeats, fit)",
                Viewport::full(WIDTH, HEIGHT, rows.len()),
            ),
            ("tenant rows, 4 px rows", at(4.0, 1.0)),
            ("tenant rows, 1 px rows", at(1.0, 1.0)),
            ("tenant rows, 1 px rows, zoomed x8", at(1.0, 8.0)),
        ] {
            let mut times = Vec::new();
            let mut drawn = 0;
            for _ in 0..10 {
                let (ms, n) = redraw(&vp, &[]);
                times.push(ms);
                drawn = n;
            }
            times.sort_by(f64::total_cmp);
            let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
            let max = times.last().copied().unwrap_or(0.0);
            line(
                &pre,
                format!(
                    "redraw_ms {label}: median {median:.2}, max {max:.2} ({drawn} segments drawn)"
                ),
            );
            pause().await;
        }
        // The cluster-scale level of detail: bands per tenant (grouping and owner mixes once per
        // filter or plan change, then each frame draws the bands).
        {
            let tenant_rows = map.filtered_rows(&MapFilter::default());
            let level = map_levels::auto_level(&map, &tenant_rows, HEIGHT);
            let t = now_ms();
            let groups = map_levels::groups(&map, &tenant_rows, level);
            let style = RenderStyle {
                background: [255, 255, 255],
                ..Default::default()
            };
            let mixes = map_levels::mixes(&map, &groups, &style);
            let mix_ms = now_ms() - t;
            let vp = Viewport::full(WIDTH, HEIGHT, groups.len());
            let t = now_ms();
            let parts = map_levels::render_rgba(&map, &mixes, &vp, &style, &mut buf);
            line(
                &pre,
                format!(
                    "map_lod: level {}, {} bands, groups+mixes {mix_ms:.1} ms, draw {:.2} ms ({parts} parts)",
                    level.label(),
                    groups.len(),
                    now_ms() - t
                ),
            );
            pause().await;
        }
        // The same plan through the plan worker, as the dashboard makes it for large snapshots:
        // the first job carries the snapshot (serialised on the page), the second does not.
        let answered: Rc<RefCell<Option<js_sys::Function>>> = Rc::default();
        let resolve = answered.clone();
        let outcome: Rc<RefCell<String>> = Rc::default();
        let seen = outcome.clone();
        let on_answer = yew::Callback::from(move |a: PlanAnswer| {
            *seen.borrow_mut() = match a {
                PlanAnswer::Planned { result: Ok(p), .. } => format!("{} moves", p.unloads.len()),
                PlanAnswer::Planned { result: Err(e), .. } => format!("refused: {e}"),
                PlanAnswer::Failed { message, .. } => format!("failed: {message}"),
            };
            if let Some(f) = resolve.borrow_mut().take() {
                let _ = f.call0(&wasm_bindgen::JsValue::NULL);
            }
        });
        let worker = match PlanWorker::start(crate::embed::WORKER_SCRIPT, on_answer) {
            Ok(w) => w,
            Err(e) => {
                line(&pre, format!("plan worker: {e}"));
                let _ = pre.set_attribute("data-done", "true");
                return;
            }
        };
        for (id, label) in [
            (1u32, "first, with the snapshot"),
            (2, "second, snapshot kept"),
        ] {
            let t = now_ms();
            let job = Request::Plan(Box::new(PlanJob::new(
                id,
                1,
                (!worker.has_snapshot(1)).then_some(&imported.snapshot),
                &PlanRequest::leader_cycle(),
            )));
            let Ok(text) = serde_json::to_string(&job) else {
                return;
            };
            let serialise_ms = now_ms() - t;
            let done = js_sys::Promise::new(&mut |res, _| *answered.borrow_mut() = Some(res));
            worker.send(text, 1);
            let _ = JsFuture::from(done).await;
            line(
                &pre,
                format!(
                    "plan_in_worker_ms ({label}): {:.0} ({:.0} of it serialising on the page; {})",
                    now_ms() - t,
                    serialise_ms,
                    outcome.borrow()
                ),
            );
        }
        let _ = pre.set_attribute("data-done", "true");
    });
}
