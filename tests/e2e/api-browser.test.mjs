// The JavaScript API's browser build (dist/api/web, wasm-bindgen --target web) in headless Chromium
// under the strict CSP: a test page (external module only) initialises it and calls every function
// with the reference values; no CSP violation, no console error, only its own files requested.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DIST, closeServer, launchChromium, requireDist, serveDist, watch } from './embed-support.mjs';

const PAGE = `<!doctype html><meta charset="utf-8"><title>api</title><link rel="icon" href="data:,">
<script type="module" src="/__test/api-smoke.js"></script>`;

// Runs in the page: every export on real values, results on window.__result.
const SMOKE = `
import init, { importFiles, plan, simulate, hashTopic, exportPlan, version } from '/api/web/lbplan_wasm.js';
try {
  await init({ module_or_path: new URL('/api/web/lbplan_wasm_bg.wasm', location.href) });
  const snapshot = await (await fetch('/static/demo-snapshot.json')).json();
  const h = hashTopic('public/default', 4, 'my-topic');
  const p = plan(snapshot);
  const imported = importFiles([{ name: 'demo-snapshot.json', bytes: new TextEncoder().encode(JSON.stringify(snapshot)) }]);
  const s = simulate(snapshot, { cycles: 2 });
  let error = null;
  try { plan({ format_version: 1, brokers: { 'b1:8080': { local_broker_data: { cpu: { usage: 1, limit: 'x' } } } } }); }
  catch (e) { error = { isError: e instanceof Error, message: e.message }; }
  window.__result = {
    version: version(), hash: h.hash, bundle: h.bundle, formatVersion: p.format_version,
    unloads: p.unloads.length, brokers: Object.keys(imported.snapshot.brokers).length,
    cycles: s.runs[0].cycles.length, script: exportPlan(p, 'curl').startsWith('#!/usr/bin/env bash'), error,
  };
} catch (e) {
  window.__result = { failed: String(e && e.stack || e) };
}
`;

let server;
let browser;

before(async () => {
  requireDist();
  assert.ok(fs.existsSync(path.join(DIST, 'api', 'web', 'lbplan_wasm.js')),
    'no dist/api/web: run scripts/build-api.sh (scripts/test.sh does) before this test');
  server = await serveDist({
    extra: {
      '/__test/api.html': { type: 'text/html; charset=utf-8', body: PAGE },
      '/__test/api-smoke.js': { type: 'text/javascript', body: SMOKE },
    },
  });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await closeServer(server);
});

test('the browser build of the API works under the strict CSP', async () => {
  const page = await browser.newPage();
  const w = await watch(page);
  try {
    await page.goto(`${server.baseUrl}/__test/api.html`, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30_000 });
    const r = await page.evaluate(() => window.__result);
    assert.equal(r.failed, undefined, `${r.failed}\n${w.diagnostics()}`);
    assert.equal(r.hash, 0x2bad45f7);
    assert.equal(r.bundle, '0x00000000_0x40000000');
    assert.equal(r.formatVersion, 6);
    assert.ok(r.unloads > 0);
    assert.equal(r.brokers, 12);
    assert.equal(r.cycles, 2);
    assert.equal(r.script, true);
    assert.equal(r.error.isError, true);
    assert.match(r.error.message, /^\$\.brokers\["b1:8080"\]\.local_broker_data\.cpu\.limit: expected a number/);
    await w.assertClean();
    w.assertOnlyOwnAssets(server.baseUrl, [
      '/__test/api.html', '/__test/api-smoke.js', '/api/web/lbplan_wasm.js', '/api/web/lbplan_wasm_bg.wasm',
      '/static/demo-snapshot.json',
    ]);
  } finally {
    await page.close();
  }
});
