// Loads the dashboard's wasm module for index.html without an inline script (Trunk.toml
// `pattern_script`), so the page runs under `script-src 'self' 'wasm-unsafe-eval'`. Does what trunk's
// default inline loader does: init (which runs the app's `main`, mounting the standalone page on
// #app[data-lbplan-standalone]), exposes the bindings as window.wasmBindings, and fires
// TrunkApplicationStarted.
import init, * as bindings from '../lbplan-web.js';

const wasm = await init({ module_or_path: new URL('../lbplan-web_bg.wasm', import.meta.url) });
window.wasmBindings = bindings;
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
