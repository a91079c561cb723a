//! The browser benchmark (`index.html?bench`, not a test): generates the 1,000-broker /
//! 200,000-bundle synthetic cluster in the browser (core `synthetic::large`), then measures importing
//! its JSON, one plan, building the bundle-map geometry, full bundle-map redraws, and the same plan
//! through the plan worker (with and without sending the snapshot), and prints the numbers on the page (`data-testid="bench-results"`, `data-done` when finished).
//! Then the page's thread, old path against new in one run: the longest page tasks
//! (`PerformanceObserver('longtask')`) of the page-side import, hand-over and persisting, against
//! the import in the worker (`worker_import`: parts assembled on the page, the snapshot kept
//! there for the first plan and a later what-if edit, the files kept in IndexedDB).

use std::cell::RefCell;
use std::rc::Rc;

use lbplan_core::model::fingerprint::snapshot_fingerprint;
use lbplan_core::plan::{PlanRequest, make_plan, make_plan_with_fingerprint};
use lbplan_core::synthetic::{SyntheticSpec, generate, to_json};
use lbplan_core::view::bundle_map::{BundleMap, MapFilter, RenderStyle, Viewport};
use lbplan_core::view::map_levels;
use lbplan_worker::lists_apart::ListsApart;
use lbplan_worker::protocol::{PlanJob, Request};
use wasm_bindgen::{Clamped, JsCast};
use wasm_bindgen_futures::JsFuture;

use crate::components::bundle_map::now_ms;
use crate::plan_client::{ImportAnswer, PlanAnswer, PlanWorker};

/// Long tasks (≥ 50 ms) the browser reports for the page's thread, by start time.
struct LongTasks {
    seen: Rc<RefCell<Vec<(f64, f64)>>>,
    _callback: Option<wasm_bindgen::closure::Closure<dyn FnMut(wasm_bindgen::JsValue)>>,
}

impl LongTasks {
    /// Observes `longtask` entries through `PerformanceObserver` (reached by name: no web-sys
    /// feature for one benchmark); nothing is recorded where the browser has none.
    fn observe() -> Self {
        use wasm_bindgen::JsValue;
        let seen: Rc<RefCell<Vec<(f64, f64)>>> = Rc::default();
        let sink = seen.clone();
        let callback =
            wasm_bindgen::closure::Closure::<dyn FnMut(JsValue)>::new(move |list: JsValue| {
                let entries = js_sys::Reflect::get(&list, &"getEntries".into())
                    .ok()
                    .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                    .and_then(|f| f.call0(&list).ok())
                    .and_then(|a| a.dyn_into::<js_sys::Array>().ok())
                    .unwrap_or_default();
                for e in entries.iter() {
                    let num = |k: &str| {
                        js_sys::Reflect::get(&e, &k.into())
                            .ok()
                            .and_then(|v| v.as_f64())
                            .unwrap_or(0.0)
                    };
                    sink.borrow_mut().push((num("startTime"), num("duration")));
                }
            });
        let global = js_sys::global();
        let observer = js_sys::Reflect::get(&global, &"PerformanceObserver".into())
            .ok()
            .and_then(|c| c.dyn_into::<js_sys::Function>().ok())
            .and_then(|c| {
                js_sys::Reflect::construct(&c, &js_sys::Array::of1(callback.as_ref())).ok()
            });
        let Some(observer) = observer else {
            return Self {
                seen,
                _callback: None,
            };
        };
        let options = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&options, &"type".into(), &"longtask".into());
        let _ = js_sys::Reflect::set(&options, &"buffered".into(), &true.into());
        if let Some(observe) = js_sys::Reflect::get(&observer, &"observe".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        {
            let _ = observe.call1(&observer, &options);
        }
        Self {
            seen,
            _callback: Some(callback),
        }
    }

    /// (count, longest ms) of the long tasks that started in `[from, to]`.
    fn between(&self, from: f64, to: f64) -> (usize, f64) {
        let seen = self.seen.borrow();
        let inside = seen.iter().filter(|(s, _)| *s >= from && *s <= to);
        (
            inside.clone().count(),
            inside.map(|(_, d)| *d).fold(0.0, f64::max),
        )
    }
}

/// A promise and the function that resolves it.
fn signal() -> (js_sys::Promise, Rc<RefCell<Option<js_sys::Function>>>) {
    let slot: Rc<RefCell<Option<js_sys::Function>>> = Rc::default();
    let s = slot.clone();
    let p = js_sys::Promise::new(&mut |res, _| *s.borrow_mut() = Some(res));
    (p, slot)
}

fn fire(slot: &Rc<RefCell<Option<js_sys::Function>>>) {
    if let Some(f) = slot.borrow_mut().take() {
        let _ = f.call0(&wasm_bindgen::JsValue::NULL);
    }
}

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
    crate::page_trace::enable();
    wasm_bindgen_futures::spawn_local(async move {
        let tasks = LongTasks::observe();
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
        let old_from = now_ms();
        let t = now_ms();
        // The old path, for comparison: the import on the page (the app no longer has one).
        let imported = match lbplan_core::import::import_with(
            &[lbplan_core::import::ImportInput::given(
                "large.json",
                json.as_bytes(),
            )],
            &lbplan_core::import::ImportOptions::default(),
        ) {
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
        drop(worker);
        // The old path's persisting: the page copied the snapshot and serialised it for storage.
        let t = now_ms();
        let stored = imported.snapshot.clone();
        let persist_len = serde_json::to_string(&stored).map_or(0, |j| j.len());
        drop(stored);
        line(
            &pre,
            format!(
                "old persist (copy + serialise on the page): {:.0} ms ({:.1} MiB)",
                now_ms() - t,
                persist_len as f64 / 1048576.0
            ),
        );
        pause().await;
        pause().await;
        let (n, longest) = tasks.between(old_from, now_ms());
        line(
            &pre,
            format!(
                "old path page long tasks (import, plans, map, hand-over, persist): {n}, longest {longest:.0} ms"
            ),
        );
        round6_new_path(&pre, &mut line, &tasks, imported.snapshot).await;
        let _ = pre.set_attribute("data-done", "true");
    });
}

/// The new path: the same snapshot uploaded as a file to the plan worker, its parts assembled
/// here, shown (`Loaded`: map geometry and namespace rows), planned without sending it, and kept
/// as the file in IndexedDB; the long tasks of that window.
async fn round6_new_path(
    pre: &web_sys::Element,
    line: &mut impl FnMut(&web_sys::Element, String),
    tasks: &LongTasks,
    snapshot: lbplan_core::model::Snapshot,
) {
    use lbplan_core::view::snapshot_chunks::Assembler;

    // Setup, not measured: the file the user would pick.
    let Ok(json) = to_json(&snapshot) else { return };
    drop(snapshot);
    let bytes = js_sys::Uint8Array::from(json.as_bytes());
    drop(json);
    let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence(&js_sys::Array::of1(&bytes)) else {
        line(pre, "new path: cannot make the file".into());
        return;
    };
    drop(bytes);
    pause().await;
    pause().await;
    let from = now_ms();
    let (planned, plan_slot) = signal();
    let rearm = plan_slot.clone();
    // The plan kept (a move, not a copy) to tell its size after the timed window.
    let last_plan: Rc<RefCell<Option<Box<lbplan_core::plan::Plan>>>> = Rc::default();
    let keep = last_plan.clone();
    let on_answer = yew::Callback::from(move |a: PlanAnswer| {
        if let PlanAnswer::Planned { result: Ok(p), .. } = a {
            *keep.borrow_mut() = Some(p);
        }
        fire(&plan_slot)
    });
    let worker = match PlanWorker::start(crate::embed::WORKER_SCRIPT, on_answer) {
        Ok(w) => w,
        Err(e) => {
            line(pre, format!("new path: {e}"));
            return;
        }
    };
    let (assembled, done_slot) = signal();
    let assembler: Rc<RefCell<Option<Assembler>>> = Rc::new(RefCell::new(Some(Assembler::new())));
    let stats: Rc<RefCell<(usize, f64, String)>> = Rc::default();
    let lists: Rc<RefCell<ListsApart>> = Rc::default();
    {
        let (assembler, stats, apart) = (assembler.clone(), stats.clone(), lists.clone());
        worker.set_on_import(yew::Callback::from(move |a: ImportAnswer| match a {
            ImportAnswer::Part { chunk, .. } => {
                let t = now_ms();
                let mut slot = assembler.borrow_mut();
                let ok = slot
                    .as_mut()
                    .map(|a| a.push(*chunk).is_ok())
                    .unwrap_or(false);
                let complete = slot.as_ref().is_some_and(Assembler::is_complete);
                let mut st = stats.borrow_mut();
                st.0 += 1;
                st.1 = st.1.max(now_ms() - t);
                if !ok || complete {
                    fire(&done_slot);
                }
            }
            ImportAnswer::Imported { result: Err(e), .. } | ImportAnswer::Failed { message: e } => {
                stats.borrow_mut().2 = e;
                fire(&done_slot);
            }
            // Joined as the dashboard does (`worker_import`), each in its own task.
            ImportAnswer::ListsPart { part, .. } => apart.borrow_mut().add(*part),
            ImportAnswer::Imported { .. } | ImportAnswer::Live { .. } => {}
        }));
    }
    let request = Request::Import(Box::new(lbplan_worker::protocol::ImportJob {
        format_version: lbplan_worker::protocol::WORKER_PROTOCOL_VERSION,
        id: 1,
        snapshot_id: 2,
        files: vec![("large.json".into(), false)],
        // The dashboard's part size (`worker_import`), not core's default.
        chunk_bytes: crate::worker_import::PART_BYTES,
        kept: false,
        restore: false,
        live: false,
    }));
    let Ok(text) = serde_json::to_string(&request) else {
        return;
    };
    worker.send_import(text, &[crate::worker_files::Body::Blob(blob.clone())], 2);
    let _ = JsFuture::from(assembled).await;
    let parts_ms = now_ms() - from;
    let t = crate::page_trace::start();
    let finished = assembler.borrow_mut().take().map(|a| {
        let apart = std::mem::take(&mut *lists.borrow_mut());
        a.finish()
            .map_err(|e| e.to_string())
            .and_then(|mut s| apart.restore(&mut s).map(|()| s))
    });
    crate::page_trace::measure("snapshot parts: finish", t);
    let Some(Ok(snapshot)) = finished else {
        line(
            pre,
            format!("new path: import failed: {}", stats.borrow().2),
        );
        return;
    };
    let t = now_ms();
    let (loaded, sliced) =
        crate::state::Loaded::build(2, snapshot, "large.json".into(), Vec::new()).await;
    let loaded_ms = now_ms() - t;
    let (parts, push_max, _) = stats.borrow().clone();
    line(
        pre,
        format!(
            "new path: import in the worker + {parts} parts assembled: {parts_ms:.0} ms (longest part push {push_max:.1} ms); Loaded (map geometry + namespace rows) in {} slices: {:.0} ms on the page, longest slice {:.1} ms, {loaded_ms:.0} ms in all",
            sliced.slices, sliced.busy_ms, sliced.longest_ms
        ),
    );
    pause().await;
    let t = now_ms();
    // As the store asks it (`Store::worker_request`): without the decisions' details, which the
    // page asks for one at a time when a pane is opened (measured below).
    let first = PlanRequest {
        explain: lbplan_core::plan::Explain::Summary,
        ..PlanRequest::leader_cycle()
    };
    let job = Request::Plan(Box::new(PlanJob::new(3, 2, None, &first)));
    if let Ok(text) = serde_json::to_string(&job) {
        worker.send(text, 2);
        let _ = JsFuture::from(planned).await;
    }
    line(
        pre,
        format!(
            "new path: first plan in the worker (snapshot not sent): {:.0} ms",
            now_ms() - t
        ),
    );
    pause().await;
    pause().await;
    let (n, longest) = tasks.between(from, now_ms());
    line(
        pre,
        format!(
            "new path page long tasks (import, show, first plan): {n}, longest {longest:.0} ms"
        ),
    );
    let mut first_move = None;
    if let Some(p) = last_plan.borrow_mut().take() {
        first_move = p.unloads.first().map(|u| u.bundle.clone());
        let json = serde_json::to_string(&p).map_or(0, |j| j.len());
        line(
            pre,
            format!(
                "new path: the plan's JSON (decoded on the page): {:.2} MiB, {} moves",
                json as f64 / 1048576.0,
                p.unloads.len()
            ),
        );
    }
    // A later what-if edit, as the store asks it: the operation and the diff against the plan
    // without it (the worker keeps the snapshot and its leader's view).
    let edit_from = now_ms();
    let edit = PlanRequest {
        operations: vec![lbplan_core::plan::operations::Operation::SetConfig {
            key: "loadBalancerSheddingEnabled".into(),
            value: "false".into(),
        }],
        ..first.clone()
    };
    let job = Request::Plan(Box::new(
        PlanJob::new(4, 2, None, &edit).with_diff_baseline(true),
    ));
    if let Ok(text) = serde_json::to_string(&job) {
        let edited = js_sys::Promise::new(&mut |res, _| *rearm.borrow_mut() = Some(res));
        worker.send(text, 2);
        let _ = JsFuture::from(edited).await;
    }
    let edit_ms = now_ms() - edit_from;
    pause().await;
    pause().await;
    let (n, longest) = tasks.between(edit_from, now_ms());
    line(
        pre,
        format!(
            "new path: what-if edit (shedding off, with its diff) in the worker: {edit_ms:.0} ms; page long tasks {n}, longest {longest:.0} ms"
        ),
    );
    // The first move's placement pipeline, asked as its disclosure asks (`PipelineDisclosure`).
    if let Some(bundle) = first_move {
        let explain_from = now_ms();
        let (explained, slot) = signal();
        let size: Rc<RefCell<Result<usize, String>>> = Rc::new(RefCell::new(Ok(0)));
        let got = size.clone();
        worker.ask_explanation(
            2,
            &first,
            lbplan_core::plan::DecisionRef::Unload { bundle },
            yew::Callback::from(move |a: crate::plan_client::Explanation| {
                *got.borrow_mut() = a.map(|d| serde_json::to_string(&d).map_or(0, |j| j.len()));
                fire(&slot);
            }),
        );
        let _ = JsFuture::from(explained).await;
        let explain_ms = now_ms() - explain_from;
        pause().await;
        pause().await;
        let (n, longest) = tasks.between(explain_from, now_ms());
        let what = match &*size.borrow() {
            Ok(bytes) => format!("{:.1} KiB", *bytes as f64 / 1024.0),
            Err(e) => format!("failed: {e}"),
        };
        line(
            pre,
            format!(
                "new path: one decision explained on demand (the first move's pipeline, {what}): {explain_ms:.0} ms; page long tasks {n}, longest {longest:.0} ms"
            ),
        );
    }
    let t = now_ms();
    let note = crate::persist::save_upload(
        "lbplan-bench",
        &crate::persist::KeptUpload {
            source: "large.json".into(),
            files: vec![("large.json".into(), false)],
            blobs: vec![blob],
        },
    )
    .await;
    line(
        pre,
        format!("new path: keep the file: {:.0} ms ({note})", now_ms() - t),
    );
    crate::persist::clear_snapshot("lbplan-bench").await;
    drop(loaded);
    pause().await;
    pause().await;
    let (n, longest) = tasks.between(from, now_ms());
    line(
        pre,
        format!(
            "new path page long tasks (import, show, first plan, persist): {n}, longest {longest:.0} ms"
        ),
    );
}
