// End-to-end: the release build in dist/ (trunk build --release) served by a throw-away static
// server, opened in headless Chromium through playwright-core. Checks that the demo cluster renders
// (one row per broker) with no page error and no console error, and saves a screenshot to
// test-artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = path.join(ROOT, 'dist');
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Same flags as webdriver.json: no sandbox (root in a container), nothing that calls home.
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'static', 'demo-snapshot.json'), 'utf8'));
const DEMO_BROKERS = Object.keys(demo.brokers).length;

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
};

/** A static file server for dist/ on 127.0.0.1 and a free port. */
function serveDist() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let file = path.normalize(path.join(DIST, decodeURIComponent(url.pathname)));
    if (!file.startsWith(DIST)) {
      res.writeHead(403).end();
      return;
    }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    fs.readFile(file, (err, body) => {
      if (err) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${url.pathname}`);
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let server;
let browser;
let baseUrl;

before(async () => {
  assert.ok(fs.existsSync(path.join(DIST, 'index.html')),
    `no ${DIST}/index.html: run \`trunk build --release\` (scripts/test.sh does) before this test`);
  assert.ok(fs.existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: run scripts/setup.sh`);
  server = await serveDist();
  baseUrl = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
});

test('the dashboard opens on the demo cluster', async () => {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  const pageErrors = [];
  const consoleLines = [];
  const failedRequests = [];
  page.on('pageerror', (err) => pageErrors.push(err.stack ?? String(err)));
  page.on('console', (msg) => consoleLines.push(`[${msg.type()}] ${msg.text()}`));
  page.on('requestfailed', (req) => failedRequests.push(`${req.url()}: ${req.failure()?.errorText}`));
  page.on('response', (res) => {
    if (res.status() >= 400) failedRequests.push(`${res.url()}: HTTP ${res.status()}`);
  });

  // Everything the browser said, for any failure below.
  const diagnostics = () => [
    `page errors (${pageErrors.length}):`, ...pageErrors.map((e) => `  ${e}`),
    `console (${consoleLines.length} lines):`, ...consoleLines.map((l) => `  ${l}`),
    `failed requests (${failedRequests.length}):`, ...failedRequests.map((r) => `  ${r}`),
  ].join('\n');

  fs.mkdirSync(ARTIFACTS, { recursive: true });
  try {
    await page.goto(baseUrl, { waitUntil: 'load' });
    const first = await Promise.race([
      page.waitForSelector('[data-testid=broker-row]', { timeout: 20_000 }).then(() => 'rows'),
      page.waitForSelector('[data-testid=error-banner]', { timeout: 20_000 }).then(() => 'error'),
    ]);
    if (first === 'error') {
      const banner = await page.textContent('[data-testid=error-banner]');
      assert.fail(`the page shows an error banner: ${banner}\n${diagnostics()}`);
    }

    const rows = await page.locator('[data-testid=broker-row]').count();
    assert.equal(rows, DEMO_BROKERS, `broker rows\n${diagnostics()}`);
    assert.equal(await page.textContent('[data-testid=broker-count]'), String(DEMO_BROKERS));
    assert.equal(await page.textContent('[data-testid=cluster-name]'), demo.cluster);
    assert.equal(await page.textContent('[data-testid=profile]'), '4.x');
    const namespaces = await page.locator('[data-testid=namespace-row]').count();
    assert.equal(namespaces, Object.keys(demo.namespaces).length, `namespace rows\n${diagnostics()}`);

    assert.deepEqual(pageErrors, [], `page errors\n${diagnostics()}`);
    const consoleErrors = consoleLines.filter((l) => l.startsWith('[error]'));
    assert.deepEqual(consoleErrors, [], `console errors\n${diagnostics()}`);
  } finally {
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-dark.png'), fullPage: true });
    await page.close();
  }
});
