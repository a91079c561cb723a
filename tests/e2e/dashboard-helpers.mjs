// Shared by the dashboard e2e tests: a static server for dist/, headless Chromium with the project's
// launch flags, and a page that records everything the browser says (for failure messages).
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// LBPLAN_DIST: another build's dist/ (the bench compares two builds in one session).
export const DIST = path.resolve(process.env.LBPLAN_DIST || path.join(ROOT, 'dist'));
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Same flags as webdriver.json: no sandbox (root in a container), nothing that calls home.
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
};

/** A static file server for dist/ (or `dist`) on 127.0.0.1 and a free port. */
export function serveDist(extra = null, dist = DIST) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (extra && extra(req, res, url)) return;
    let file = path.normalize(path.join(dist, decodeURIComponent(url.pathname)));
    if (!file.startsWith(dist)) {
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

/** Starts the server (of dist/, or `dist`) and the browser; returns { baseUrl, browser, close }. */
export async function start(extra = null, dist = DIST) {
  assert.ok(fs.existsSync(path.join(dist, 'index.html')),
    `no ${dist}/index.html: run \`trunk build --release\` (scripts/test.sh does) before this test`);
  assert.ok(fs.existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: run scripts/setup.sh`);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const server = await serveDist(extra, dist);
  const baseUrl = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return {
    baseUrl,
    browser,
    close: async () => {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A page that records page errors, console lines and failed requests. */
export async function recordingPage(context) {
  const page = await context.newPage();
  const log = { pageErrors: [], consoleLines: [], failedRequests: [] };
  page.on('pageerror', (err) => log.pageErrors.push(err.stack ?? String(err)));
  page.on('console', (msg) => log.consoleLines.push(`[${msg.type()}] ${msg.text()}`));
  page.on('requestfailed', (req) => log.failedRequests.push(`${req.url()}: ${req.failure()?.errorText}`));
  page.on('response', (res) => {
    if (res.status() >= 400) log.failedRequests.push(`${res.url()}: HTTP ${res.status()}`);
  });
  const diagnostics = () => [
    `page errors (${log.pageErrors.length}):`, ...log.pageErrors.map((e) => `  ${e}`),
    `console (${log.consoleLines.length} lines):`, ...log.consoleLines.map((l) => `  ${l}`),
    `failed requests (${log.failedRequests.length}):`, ...log.failedRequests.map((r) => `  ${r}`),
  ].join('\n');
  const assertClean = () => {
    assert.deepEqual(log.pageErrors, [], `page errors\n${diagnostics()}`);
    const errors = log.consoleLines.filter((l) => l.startsWith('[error]'));
    assert.deepEqual(errors, [], `console errors\n${diagnostics()}`);
  };
  return { page, log, diagnostics, assertClean };
}

/** Waits for broker rows, failing with the banner's text if an error shows first. */
export async function waitForRows(page, diagnostics) {
  const first = await Promise.race([
    page.waitForSelector('[data-testid=broker-row]', { timeout: 30_000 }).then(() => 'rows'),
    page.waitForSelector('[data-testid=error-banner]', { timeout: 30_000 }).then(() => 'error'),
  ]);
  if (first === 'error') {
    const banner = await page.textContent('[data-testid=error-banner]');
    assert.fail(`the page shows an error banner: ${banner}\n${diagnostics()}`);
  }
}

export function screenshot(page, name) {
  return page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
}

/** A screenshot of one element (a view at large scale, where the full page is too tall to read). */
export function screenshotOf(page, selector, name) {
  return page.locator(selector).first().screenshot({ path: path.join(ARTIFACTS, name) });
}

/**
 * Installed before the page's own scripts (`context.addInitScript`): records each worker the page
 * starts in `window.__workers` and each message it posts to one in `window.__toWorkers` (the
 * request's type, whether it carries a snapshot, its `restore` flag, its length, the files beside
 * it, the buffers transferred and which worker); and each message a worker sends the page in
 * `window.__fromWorkers` (its type, whether it came as text or as bytes in an ArrayBuffer, its size).
 */
export function recordWorkerMessages() {
  window.__toWorkers = [];
  window.__fromWorkers = [];
  window.__workers = [];
  const Native = window.Worker;
  // An answer's `type`, read from the start of its JSON (text, or UTF-8 bytes in an ArrayBuffer).
  const typeOf = (head) => /^\{"type":"([a-z_]+)"/.exec(head)?.[1] ?? null;
  window.Worker = class RecordedWorker extends Native {
    constructor(...args) {
      super(...args);
      window.__workers.push(this);
      const worker = window.__workers.length - 1;
      this.addEventListener('message', (e) => {
        const d = e.data;
        if (d instanceof ArrayBuffer) {
          const head = new TextDecoder().decode(new Uint8Array(d, 0, Math.min(64, d.byteLength)));
          window.__fromWorkers.push({ worker, as: 'bytes', type: typeOf(head), size: d.byteLength });
        } else if (typeof d === 'string') {
          window.__fromWorkers.push({ worker, as: 'text', type: typeOf(d), size: d.length });
        } else {
          window.__fromWorkers.push({ worker, as: 'object', type: null, size: 0 });
        }
      });
    }
  };
  const post = Native.prototype.postMessage;
  Native.prototype.postMessage = function record(message, transfer) {
    const text = typeof message === 'string' ? message : message?.request;
    let request = null;
    try { request = JSON.parse(text); } catch { /* not a request */ }
    const list = Array.isArray(transfer) ? transfer : (transfer?.transfer ?? []);
    window.__toWorkers.push({
      type: request?.type ?? null,
      snapshot: request !== null && request.snapshot !== undefined && request.snapshot !== null,
      restore: request?.restore === true,
      chars: typeof text === 'string' ? text.length : 0,
      files: typeof message === 'string' ? [] : [...(message?.files ?? [])].map((f) => (
        f instanceof ArrayBuffer ? `ArrayBuffer:${f.byteLength}` : f instanceof Blob ? `Blob:${f.size}` : typeof f)),
      transferred: list.filter((t) => t instanceof ArrayBuffer).length,
      worker: window.__workers.indexOf(this),
    });
    return post.call(this, message, transfer);
  };
}

/**
 * Runs the `lbplan` CLI with `args` from the repository's root and answers its standard output:
 * LBPLAN_BIN, else the debug build cargo left in CARGO_TARGET_DIR (or target/), else `cargo run`.
 */
export function lbplan(args) {
  const built = path.join(process.env.CARGO_TARGET_DIR ?? path.join(ROOT, 'target'), 'debug', 'lbplan');
  const bin = process.env.LBPLAN_BIN ?? (fs.existsSync(built) ? built : null);
  const [cmd, argv] = bin ? [bin, args] : ['cargo', ['run', '--locked', '-q', '-p', 'lbplan', '--', ...args]];
  return execFileSync(cmd, argv, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 30 });
}
