// <pulsar-lb-planner>: the planner as a custom element for embedding in another page (an ops portal).
//
//   <script type="module" src="/planner/static/pulsar-lb-planner.js"></script>
//   <pulsar-lb-planner snapshot-url="/snapshots/prod.json" profile="4.x" theme="dark"></pulsar-lb-planner>
//
// Attributes: snapshot-url, profile (4.x | 5.0), readonly (boolean), theme (light | dark; default:
// follow prefers-color-scheme), admin-base-url (enables Apply through Pulsar's admin REST API, always
// after a confirmation). Properties: `snapshot` (a snapshot object; wins over snapshot-url),
// `authHeaders` (a function returning the headers of one admin request, or a promise of them; called
// per request, never stored), `ready` (a promise settled once mounted). Method: `pushSnapshot(obj)`,
// the next snapshot of a stream the portal collects (shown, and added to the History section's
// live history; pushed before mounting, they are handed over in order once mounted). Events (CustomEvent, bubbling
// and composed): `plan-ready` (detail: the plan), `export-requested` (detail: {plan, format, text}),
// `planner-error` (detail: {message}) when the planner cannot load or a new snapshot-url fails.
//
// Everything lives in an open shadow root that loads the dashboard's style.css: the page's styles do
// not reach in (the host resets inherited properties) and the planner's do not leak out. The wasm
// module is the one trunk builds (dist/lbplan-web.js + dist/lbplan-web_bg.wasm, stable names), loaded
// once per page and shared by every instance; each instance has its own state (mount_planner).
// No inline script or style is used, so the element works under
// `script-src 'self' 'wasm-unsafe-eval'; style-src 'self'` (see docs/embedding.md).

const MODULE_URL = new URL('../lbplan-web.js', import.meta.url);
const WASM_URL = new URL('../lbplan-web_bg.wasm', import.meta.url);
const STYLE_URL = new URL('./style.css', import.meta.url);
// The simulation worker's boot script (it loads the lbplan-worker binary trunk builds).
const WORKER_URL = new URL('./lbplan-worker-boot.js', import.meta.url);
// The demo snapshot beside this module: a relative URL would resolve against the host page instead.
const DEMO_URL = new URL('./demo-snapshot.json', import.meta.url);

// Host rules: a block box whose inherited properties (font, color, …) start from the initial values,
// so the portal's typography does not leak into the planner.
const HOST_CSS = ':host { all: initial; display: block; } :host([hidden]) { display: none; }';

/** Attribute → mount_planner option. */
const ATTRIBUTE_OPTIONS = {
  'snapshot-url': 'snapshotUrl',
  profile: 'profile',
  readonly: 'readonly',
  theme: 'theme',
  'admin-base-url': 'adminBaseUrl',
};

let bindings = null;

/** Loads and initialises the wasm module once per page (a second init is a no-op). */
function loadBindings() {
  bindings ??= (async () => {
    const mod = await import(MODULE_URL.href);
    await mod.default({ module_or_path: WASM_URL });
    if (typeof mod.mount_planner !== 'function') {
      throw new Error(`${MODULE_URL.pathname} has no mount_planner export`);
    }
    return mod;
  })();
  return bindings;
}

let hostSheet = null;
function hostStyleSheet() {
  if (hostSheet === null) {
    try {
      hostSheet = new CSSStyleSheet();
      hostSheet.replaceSync(HOST_CSS);
    } catch {
      hostSheet = undefined; // no constructable stylesheets: the host keeps the page's inheritance
    }
  }
  return hostSheet;
}

export class PulsarLbPlanner extends HTMLElement {
  static observedAttributes = Object.keys(ATTRIBUTE_OPTIONS);

  #shadow;
  #handle = null;
  #mounting = null;
  #snapshot = undefined;
  #authHeaders = undefined;
  /** Snapshots pushed before the planner was mounted, in order. */
  #pushed = [];
  #ready;
  #resolveReady;
  #rejectReady;

  constructor() {
    super();
    this.#shadow = this.attachShadow({ mode: 'open' });
    const sheet = hostStyleSheet();
    if (sheet) this.#shadow.adoptedStyleSheets = [sheet];
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = STYLE_URL.href;
    this.#shadow.append(link);
    this.#newReady();
  }

  #newReady() {
    this.#ready = new Promise((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.#ready.catch(() => {}); // reported through `planner-error`; awaiting `ready` still rejects
  }

  /** Settles once the planner is mounted (rejects when it cannot load). */
  get ready() {
    return this.#ready;
  }

  /** The snapshot object given to the planner (wins over snapshot-url). */
  get snapshot() {
    return this.#snapshot;
  }

  set snapshot(value) {
    this.#snapshot = value;
    if (this.#handle && value != null) this.#handle.set_snapshot(value);
  }

  /**
   * The next snapshot of a stream (an object or JSON text, in capture-time order): it becomes the
   * shown snapshot (the operator's what-ifs that still apply are kept) and joins the History
   * section's live history, explained as it grows (the watch's own logic).
   */
  pushSnapshot(snapshot) {
    if (snapshot == null) throw new TypeError('pushSnapshot: a snapshot object or JSON text');
    if (this.#handle) this.#handle.pushSnapshot(snapshot);
    else this.#pushed.push(snapshot);
  }

  /** `() => headers | Promise<headers>` for admin requests (Apply); called per request. */
  get authHeaders() {
    return this.#authHeaders;
  }

  set authHeaders(fn) {
    if (fn != null && typeof fn !== 'function') throw new TypeError('authHeaders must be a function');
    this.#authHeaders = fn ?? undefined;
  }

  get readonly() {
    return this.hasAttribute('readonly');
  }

  set readonly(on) {
    this.toggleAttribute('readonly', Boolean(on));
  }

  connectedCallback() {
    if (this.#handle || this.#mounting) return;
    this.#mounting = this.#mount().finally(() => {
      this.#mounting = null;
    });
  }

  disconnectedCallback() {
    // Moving the element in the DOM disconnects and reconnects it at once: keep the instance then.
    queueMicrotask(() => {
      if (!this.isConnected) this.#destroy();
    });
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (!this.#handle || oldValue === newValue) return;
    const option = ATTRIBUTE_OPTIONS[name];
    const value = name === 'readonly' ? newValue !== null : newValue ?? undefined;
    try {
      this.#handle.set_option(option, value);
    } catch (e) {
      this.#report(e);
      return;
    }
    // The planner reads snapshotUrl when it mounts; a later change is loaded here.
    if (name === 'snapshot-url' && newValue) this.#loadSnapshotUrl(newValue);
  }

  async #loadSnapshotUrl(url) {
    try {
      const response = await fetch(new URL(url, document.baseURI));
      if (!response.ok) throw new Error(`Could not load ${url}: HTTP ${response.status}`);
      const text = await response.text();
      // Only the latest attribute value wins (a slow response for an older URL is dropped).
      if (this.getAttribute('snapshot-url') === url && this.#handle) this.#handle.set_snapshot(text);
    } catch (e) {
      this.#report(e);
    }
  }

  #options() {
    const attr = (name) => this.getAttribute(name) ?? undefined;
    const options = {
      snapshotUrl: attr('snapshot-url'),
      profile: attr('profile'),
      readonly: this.hasAttribute('readonly'),
      theme: attr('theme'),
      persist: false,
      adminBaseUrl: attr('admin-base-url'),
      workerUrl: WORKER_URL.href,
      demoUrl: DEMO_URL.href,
      // Read the property at each request, so a later `authHeaders = …` takes effect.
      authHeaders: () => (this.#authHeaders ? this.#authHeaders() : {}),
      onPlanReady: (plan) => this.#emit('plan-ready', plan),
      onExportRequested: (detail) => this.#emit('export-requested', detail),
    };
    if (this.#snapshot != null) options.snapshot = this.#snapshot;
    for (const [k, v] of Object.entries(options)) if (v === undefined) delete options[k];
    return options;
  }

  async #mount() {
    let mod;
    try {
      mod = await loadBindings();
    } catch (e) {
      this.#fail(e);
      return;
    }
    if (!this.isConnected || this.#handle) return;
    try {
      this.#handle = mod.mount_planner(this.#shadow, this.#options());
      for (const s of this.#pushed.splice(0)) this.#handle.pushSnapshot(s);
      this.#resolveReady(this);
    } catch (e) {
      this.#fail(e);
    }
  }

  #destroy() {
    const handle = this.#handle;
    this.#handle = null;
    if (handle) {
      try {
        handle.destroy();
      } finally {
        handle.free?.();
      }
      this.#newReady();
    }
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  /** A problem after mounting: logged and sent as `planner-error`; the planner keeps working. */
  #report(e) {
    const message = e instanceof Error ? e.message : String(e);
    console.warn(`<pulsar-lb-planner>: ${message}`);
    this.#emit('planner-error', { message });
  }

  /** The planner could not load: shown in the element, `ready` rejects, `planner-error` is sent. */
  #fail(e) {
    const message = e instanceof Error ? e.message : String(e);
    console.error(`<pulsar-lb-planner>: ${message}`);
    let banner = this.#shadow.querySelector('[data-testid=error-banner]');
    if (!banner) {
      banner = document.createElement('p');
      banner.setAttribute('role', 'alert');
      banner.setAttribute('data-testid', 'error-banner');
      banner.className = 'lbplan-embed-error';
      this.#shadow.append(banner);
    }
    banner.textContent = `The planner could not load: ${message}`;
    this.#rejectReady(e instanceof Error ? e : new Error(message));
    this.#emit('planner-error', { message });
  }
}

if (!customElements.get('pulsar-lb-planner')) {
  customElements.define('pulsar-lb-planner', PulsarLbPlanner);
}
