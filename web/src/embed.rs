//! The embedding API (see the embed contract): `mount_planner(root, options)` mounts one planner on
//! an element or a shadow root and returns a `PlannerHandle` (`set_snapshot`, `pushSnapshot`,
//! `set_option`, `destroy`). Every instance has its own state, storage prefix and callbacks; the standalone page
//! mounts the same app on `#app` with URL parameters and persistence.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use lbplan_core::config::Profile;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::app::{App, AppProps, Bridge, BridgeInner};

/// An instance's options (the contract's `PlannerOptions`, parsed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    pub snapshot_url: Option<String>,
    /// A snapshot object given directly, as JSON text.
    pub snapshot: Option<String>,
    pub profile: Option<Profile>,
    pub readonly: bool,
    /// `light`, `dark`, or `None` to follow `prefers-color-scheme`.
    pub theme: Option<String>,
    pub persist: bool,
    pub admin_base_url: Option<String>,
    /// Called per request; the headers are never stored.
    pub auth_headers: Option<js_sys::Function>,
    pub on_plan_ready: Option<js_sys::Function>,
    pub on_export_requested: Option<js_sys::Function>,
    /// Reads `?snapshot=` and the share-link fragment of the page's URL.
    pub standalone: bool,
    /// `?watch`: the page is served by `lbplan watch --serve` and follows it (`LiveBar`).
    pub follow_watch: bool,
    /// localStorage / IndexedDB key prefix of this instance.
    pub storage_prefix: String,
    /// The simulation worker's boot script; `None`: `static/lbplan-worker-boot.js` next to the page.
    pub worker_url: Option<String>,
    /// Plan in the worker from this many bundles on (`None`: `state::PLAN_WORKER_FROM_BUNDLES`).
    pub plan_worker_from_bundles: Option<usize>,
    /// The demo snapshot shown when nothing else is given; `None`: `static/demo-snapshot.json` next
    /// to the page. An embedding page lives elsewhere, so the custom element passes its own URL.
    pub demo_url: Option<String>,
}

/// The worker's boot script in `dist/` (loads the `lbplan-worker` binary trunk builds).
pub const WORKER_SCRIPT: &str = "static/lbplan-worker-boot.js";

impl Options {
    pub fn demo_url(&self) -> String {
        self.demo_url
            .clone()
            .unwrap_or_else(|| crate::state::DEMO_SNAPSHOT_URL.to_string())
    }

    pub fn worker_url(&self) -> String {
        self.worker_url
            .clone()
            .unwrap_or_else(|| WORKER_SCRIPT.to_string())
    }
}

/// Messages from the handle to the mounted app.
pub enum External {
    SetSnapshot(String),
    /// The next snapshot of a stream: shown, and added to the History section's live history.
    PushSnapshot(String),
    SetOptions(Rc<Options>),
}

fn get(obj: &JsValue, key: &str) -> Option<JsValue> {
    js_sys::Reflect::get(obj, &JsValue::from_str(key))
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_null())
}

fn json_text(v: &JsValue) -> Option<String> {
    if let Some(s) = v.as_string() {
        return Some(s);
    }
    js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string())
}

impl Options {
    /// Applies one option by its contract name; unknown names are an error.
    pub fn set(&mut self, name: &str, v: Option<JsValue>) -> Result<(), String> {
        let s = v.as_ref().and_then(JsValue::as_string);
        let b = v.as_ref().and_then(JsValue::as_bool).unwrap_or(false);
        let f = v
            .as_ref()
            .and_then(|v| v.dyn_ref::<js_sys::Function>().cloned());
        match name {
            "snapshotUrl" => self.snapshot_url = s,
            "snapshot" => self.snapshot = v.as_ref().and_then(json_text),
            "profile" => {
                self.profile = match s.as_deref() {
                    None => None,
                    Some(p) => Some(
                        lbplan_core::release::resolve_version(p)
                            .map(|m| Profile::of_release(m.release))
                            .map_err(|e| format!("profile: {e}"))?,
                    ),
                }
            }
            "readonly" => self.readonly = b,
            "theme" => {
                self.theme = match s.as_deref() {
                    None => None,
                    Some(t @ ("light" | "dark")) => Some(t.to_string()),
                    Some(t) => return Err(format!("theme `{t}`: expected light or dark")),
                }
            }
            "persist" => self.persist = b,
            "adminBaseUrl" => self.admin_base_url = s,
            "authHeaders" => self.auth_headers = f,
            "onPlanReady" => self.on_plan_ready = f,
            "onExportRequested" => self.on_export_requested = f,
            "workerUrl" => self.worker_url = s,
            "demoUrl" => self.demo_url = s,
            "planWorkerFromBundles" => {
                self.plan_worker_from_bundles = match v.as_ref().and_then(JsValue::as_f64) {
                    None => None,
                    Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 1e12 => Some(n as usize),
                    Some(n) => {
                        return Err(format!(
                            "planWorkerFromBundles `{n}`: expected a whole number of bundles"
                        ));
                    }
                }
            }
            other => return Err(format!("unknown option `{other}`")),
        }
        Ok(())
    }

    pub fn from_js(options: &JsValue, persist_default: bool) -> Result<Self, String> {
        let mut o = Options {
            persist: persist_default,
            ..Options::default()
        };
        for key in [
            "snapshotUrl",
            "snapshot",
            "profile",
            "readonly",
            "theme",
            "persist",
            "adminBaseUrl",
            "authHeaders",
            "onPlanReady",
            "onExportRequested",
            "workerUrl",
            "demoUrl",
            "planWorkerFromBundles",
        ] {
            if let Some(v) = get(options, key) {
                o.set(key, Some(v))?;
            }
        }
        Ok(o)
    }
}

thread_local! {
    static INSTANCES: Cell<u32> = const { Cell::new(0) };
}

/// What `mount_planner` returns to JavaScript.
#[wasm_bindgen]
pub struct PlannerHandle {
    app: Option<yew::AppHandle<App>>,
    bridge: Bridge,
    options: Rc<RefCell<Options>>,
    /// The element created inside a shadow root (removed on destroy).
    host: Option<web_sys::Element>,
}

#[wasm_bindgen]
impl PlannerHandle {
    /// Replaces the snapshot (our snapshot format, as an object or JSON text).
    pub fn set_snapshot(&self, snapshot: JsValue) -> Result<(), JsValue> {
        let text =
            json_text(&snapshot).ok_or_else(|| JsValue::from_str("set_snapshot: not JSON"))?;
        self.send(External::SetSnapshot(text));
        Ok(())
    }

    /// The next snapshot of a stream the host collects (as an object or JSON text, in time
    /// order): shown like `set_snapshot` (keeping the operator's what-ifs that still apply), and
    /// added to the History section's live history, explained as it grows.
    #[wasm_bindgen(js_name = pushSnapshot)]
    pub fn push_snapshot(&self, snapshot: JsValue) -> Result<(), JsValue> {
        let text =
            json_text(&snapshot).ok_or_else(|| JsValue::from_str("pushSnapshot: not JSON"))?;
        self.send(External::PushSnapshot(text));
        Ok(())
    }

    /// Changes one option (`readonly`, `theme`, `profile`, `adminBaseUrl`, …).
    pub fn set_option(&self, name: &str, value: JsValue) -> Result<(), JsValue> {
        let v = (!value.is_undefined() && !value.is_null()).then_some(value);
        let next = {
            let mut o = self.options.borrow_mut();
            o.set(name, v).map_err(|e| JsValue::from_str(&e))?;
            o.clone()
        };
        self.send(External::SetOptions(Rc::new(next)));
        Ok(())
    }

    /// Unmounts the planner and frees its state.
    pub fn destroy(&mut self) {
        self.bridge.borrow_mut().callback = None;
        if let Some(app) = self.app.take() {
            app.destroy();
        }
        if let Some(h) = self.host.take() {
            h.remove();
        }
    }
}

impl PlannerHandle {
    fn send(&self, m: External) {
        let cb = self.bridge.borrow().callback.clone();
        match cb {
            Some(cb) => cb.emit(m),
            None => self.bridge.borrow_mut().pending.push(m),
        }
    }
}

fn mount(root: &JsValue, options: Options) -> Result<PlannerHandle, String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let (element, host) = if let Some(shadow) = root.dyn_ref::<web_sys::ShadowRoot>() {
        let div = document
            .create_element("div")
            .map_err(|_| "create_element")?;
        shadow
            .append_child(&div)
            .map_err(|_| "append to the shadow root")?;
        (div.clone(), Some(div))
    } else if let Some(el) = root.dyn_ref::<web_sys::Element>() {
        (el.clone(), None)
    } else {
        return Err("mount_planner: root must be an Element or a ShadowRoot".into());
    };
    let options = Options {
        storage_prefix: if options.storage_prefix.is_empty() {
            let n = INSTANCES.with(|c| {
                let n = c.get();
                c.set(n + 1);
                n
            });
            format!("lbplan.embed{n}")
        } else {
            options.storage_prefix
        },
        ..options
    };
    let bridge: Bridge = Rc::new(RefCell::new(BridgeInner::default()));
    let props = AppProps {
        options: Rc::new(options.clone()),
        bridge: bridge.clone(),
    };
    let app = yew::Renderer::<App>::with_root_and_props(element, props).render();
    Ok(PlannerHandle {
        app: Some(app),
        bridge,
        options: Rc::new(RefCell::new(options)),
        host,
    })
}

/// Mounts a planner on `root` (an Element or a ShadowRoot) with `options` (see the contract).
#[wasm_bindgen]
pub fn mount_planner(root: JsValue, options: JsValue) -> Result<PlannerHandle, JsValue> {
    crate::panic_banner::install();
    let o = Options::from_js(&options, false).map_err(|e| JsValue::from_str(&e))?;
    mount(&root, o).map_err(|e| JsValue::from_str(&e))
}

/// The standalone page: mounts on `#app` with the URL's parameters and persistence. Does nothing on
/// a page without `#app[data-lbplan-standalone]` (a host page that only wants `mount_planner`).
pub fn start_standalone() {
    let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| {
        d.query_selector("#app[data-lbplan-standalone]")
            .ok()
            .flatten()
    }) else {
        return;
    };
    crate::panic_banner::install();
    if url_has("bench") {
        #[cfg(feature = "bench")]
        {
            crate::bench::mount(el);
            return;
        }
        #[cfg(not(feature = "bench"))]
        {
            el.set_text_content(Some(
                "This build has no benchmark page: build one with \
                 `trunk build --release --features bench` (docs/performance.md).",
            ));
            return;
        }
    }
    // `?trace`: the page's steps as `performance.measure`s, for a DevTools trace of the dashboard
    // itself (tests/e2e/large-import.test.mjs with LBPLAN_TRACE=1), as the bench page records them.
    if url_has("trace") {
        crate::page_trace::enable();
    }
    let options = Options {
        persist: true,
        standalone: true,
        follow_watch: url_has("watch"),
        storage_prefix: "lbplan".to_string(),
        // `?planWorkerFrom=N`: plan in the worker from N bundles on (0: always).
        plan_worker_from_bundles: url_param_usize("planWorkerFrom"),
        ..Options::default()
    };
    if let Ok(handle) = mount(&el, options) {
        // The standalone planner lives as long as the page.
        std::mem::forget(handle);
    }
}

fn url_param_usize(param: &str) -> Option<usize> {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get(param))
        .and_then(|v| v.trim().parse().ok())
}

fn url_has(param: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .is_some_and(|p| p.has(param))
}
