// Starts the simulation worker (crates/worker, built by trunk as dist/lbplan-worker.js +
// lbplan-worker_bg.wasm with wasm-bindgen's no-modules target). The page creates it with
// `new Worker('static/lbplan-worker-boot.js')`; paths are relative to this file. Instead of trunk's
// loader shim, which passes the wasm path in the deprecated form and makes the console warn.
importScripts('../lbplan-worker.js');
wasm_bindgen({ module_or_path: new URL('../lbplan-worker_bg.wasm', self.location.href) });
