// The standalone dashboard (dist/index.html) under a strict Content-Security-Policy
// (`script-src 'self' 'wasm-unsafe-eval'`, no inline script or style, no eval), served by a local
// server: it renders the demo cluster and plans it with no CSP violation, no console error, and no
// request other than its own assets (same origin, files of dist/). A control proves the policy is
// enforced: an inline script injected afterwards is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  ARTIFACTS, DIST, STYLE_STRICT_CSP, closeServer, launchChromium, requireDist, serveDist, waitForRows, watch,
} from './embed-support.mjs';

/** URL paths of every file in dist/ (the page's own assets), plus `/`. */
export function distPaths() {
  const out = new Set(['/']);
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else out.add(`/${path.relative(DIST, full).split(path.sep).join('/')}`);
    }
  };
  walk(DIST);
  return [...out];
}

let server;
let browser;

before(async () => {
  requireDist();
  server = await serveDist();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await closeServer(server);
});

test('the standalone dashboard runs under a strict CSP and loads only its own assets', async () => {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  const w = await watch(page);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  try {
    const response = await page.goto(`${server.baseUrl}/`, { waitUntil: 'load' });
    assert.match(response.headers()['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
    await waitForRows(page, 'body', w);
    const runPlan = page.locator('[data-testid=run-plan]');
    if (await runPlan.count()) {
      await runPlan.first().click();
      await page.waitForSelector('[data-testid=plan-move]', { timeout: 20_000 });
    }
    await page.waitForTimeout(300);
    await w.assertClean();
    w.assertOnlyOwnAssets(server.baseUrl, distPaths());
    // The server saw the same: nothing but GETs of dist/ files.
    const own = new Set(distPaths());
    const unexpected = server.requests.filter((r) => r.method !== 'GET' || !own.has(new URL(r.url, server.baseUrl).pathname));
    assert.deepEqual(unexpected.map((r) => `${r.method} ${r.url}`), [], w.diagnostics());
    // The wasm module was loaded from its stable name (Trunk.toml filehash = false).
    assert.ok(w.requests.some((r) => r.url === `${server.baseUrl}/lbplan-web_bg.wasm`), w.diagnostics());
  } finally {
    await page.screenshot({ path: path.join(ARTIFACTS, 'csp-standalone.png'), fullPage: true });
    await page.close();
  }
});

test("under style-src 'self' nothing is refused, and a simulation runs in its worker", async () => {
  const strict = await serveDist({ csp: STYLE_STRICT_CSP });
  const page = await browser.newPage();
  const w = await watch(page);
  try {
    await page.goto(`${strict.baseUrl}/`, { waitUntil: 'load' });
    await waitForRows(page, 'body', w);
    assert.deepEqual(w.pageErrors, [], w.diagnostics());
    // Bar widths, swatches and the tooltip are styled through the CSSOM, not style attributes.
    const bar = page.locator('[data-testid=broker-row] td.usage .bar').first();
    assert.notEqual(await bar.evaluate((el) => el.style.width), '', 'the usage bar has its width');
    // The worker's script and wasm load under the page's policy (same origin, 'wasm-unsafe-eval').
    await page.locator('[data-testid=simulation-cycles]').evaluate((el) => {
      el.value = '20';
      el.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await page.click('[data-testid=run-simulation]');
    await page.waitForSelector('[data-testid=simulation-results]', { timeout: 30_000 });
    assert.equal(await page.locator('[data-testid=simulation-error]').count(), 0, w.diagnostics());
    assert.deepEqual(await w.cspViolations(), [], w.diagnostics());
    assert.deepEqual(w.pageErrors, [], w.diagnostics());
  } finally {
    await page.close();
    await closeServer(strict);
  }
});

test('control: the policy is enforced (an injected inline script is refused)', async () => {
  const page = await browser.newPage();
  const w = await watch(page);
  try {
    await page.goto(`${server.baseUrl}/`, { waitUntil: 'load' });
    const ran = await page.evaluate(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true;';
      document.head.append(s);
      await new Promise((r) => setTimeout(r, 50));
      return window.__inlineRan === true;
    });
    assert.equal(ran, false, 'an inline script ran: the CSP header is not in force');
    const violations = await w.cspViolations();
    assert.ok(violations.some((v) => v.startsWith('script-src')), violations.join('\n'));
  } finally {
    await page.close();
  }
});
