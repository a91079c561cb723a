// Shared by the embedding e2e tests (embed*.test.mjs, csp.test.mjs): a static server for dist/ that
// sends a strict Content-Security-Policy and records every request it receives (plus an optional
// handler for fake admin REST calls), Chromium through playwright-core, and a page watcher that
// collects page errors, console lines, CSP violations and every request the page makes.
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.join(ROOT, 'dist');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Same flags as webdriver.json and dashboard.test.mjs: no sandbox (root in a container), nothing that
// calls home.
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/**
 * The policy docs/embedding.md recommends: no inline script or style, no eval, wasm allowed, only
 * same-origin requests (computed styles are set through the CSSOM, which `style-src` does not govern).
 */
export const STRICT_CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The same policy; the name the style-focused tests use. */
export const STYLE_STRICT_CSP = STRICT_CSP;

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
};

export function requireDist() {
  assert.ok(fs.existsSync(path.join(DIST, 'index.html')),
    `no ${DIST}/index.html: run \`trunk build --release\` (scripts/test.sh does) before this test`);
  assert.ok(fs.existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: run scripts/setup.sh`);
}

/**
 * Why the embedding tests cannot run yet, or null: the dashboard module must export `mount_planner`
 * (web/src/embed.rs). Until it is in the build the element tests are skipped with this reason.
 */
export function mountPlannerMissing() {
  const js = path.join(DIST, 'lbplan-web.js');
  if (!fs.existsSync(js)) return `no ${js}`;
  return fs.readFileSync(js, 'utf8').includes('mount_planner')
    ? null
    : 'dist/lbplan-web.js has no mount_planner export yet (web/src/embed.rs): embedding tests skipped';
}

/**
 * Serves dist/ on 127.0.0.1 (a free port) with `csp` on every response. `admin(req, body, res)` may
 * answer /admin/ requests; `extra` maps further paths to `{type, body}` (test pages). Every request is recorded in `server.requests` ({method, url, headers}).
 */
export function serveDist({ csp = STRICT_CSP, admin, extra = {} } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method, url: req.url, headers: req.headers, body });
      const url = new URL(req.url, 'http://localhost');
      const headers = csp ? { 'content-security-policy': csp } : {};
      if (url.pathname.startsWith('/admin/')) {
        if (admin) return admin(req, body, res, headers);
        res.writeHead(404, headers).end();
        return;
      }
      if (extra[url.pathname]) {
        const { type, body: content } = extra[url.pathname];
        res.writeHead(200, { ...headers, 'content-type': type }).end(content);
        return;
      }
      let file = path.normalize(path.join(DIST, decodeURIComponent(url.pathname)));
      if (!file.startsWith(DIST)) {
        res.writeHead(403, headers).end();
        return;
      }
      if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
      fs.readFile(file, (err, data) => {
        if (err) {
          res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end(`not found: ${url.pathname}`);
          return;
        }
        res.writeHead(200, { ...headers, 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
        res.end(data);
      });
    });
  });
  server.requests = requests;
  // Bounded: a test that forgets to close it does not keep Node alive.
  server.requestTimeout = 10_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    server.baseUrl = `http://127.0.0.1:${server.address().port}`;
    resolve(server);
  }));
}

export function closeServer(server) {
  return new Promise((resolve) => {
    if (!server) return resolve();
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}

export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Watches a page: page errors, console lines, CSP violations (securitypolicyviolation events, from
 * an init script, which CSP does not block), every request the page makes and failed ones.
 */
export async function watch(page) {
  const w = { pageErrors: [], consoleLines: [], requests: [], failed: [] };
  page.on('pageerror', (err) => w.pageErrors.push(err.stack ?? String(err)));
  page.on('console', (msg) => w.consoleLines.push(`[${msg.type()}] ${msg.text()}`));
  page.on('request', (req) => w.requests.push({ method: req.method(), url: req.url() }));
  page.on('requestfailed', (req) => w.failed.push(`${req.url()}: ${req.failure()?.errorText}`));
  page.on('response', (res) => {
    if (res.status() >= 400) w.failed.push(`${res.url()}: HTTP ${res.status()}`);
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective}: ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  w.cspViolations = () => page.evaluate(() => window.__cspViolations ?? []);
  w.diagnostics = () => [
    `page errors (${w.pageErrors.length}):`, ...w.pageErrors.map((e) => `  ${e}`),
    `console (${w.consoleLines.length} lines):`, ...w.consoleLines.map((l) => `  ${l}`),
    `requests (${w.requests.length}):`, ...w.requests.map((r) => `  ${r.method} ${r.url}`),
    `failed requests (${w.failed.length}):`, ...w.failed.map((r) => `  ${r}`),
  ].join('\n');
  /** No page error, no console error, no CSP violation. */
  w.assertClean = async () => {
    assert.deepEqual(w.pageErrors, [], `page errors\n${w.diagnostics()}`);
    const errors = w.consoleLines.filter((l) => l.startsWith('[error]'));
    assert.deepEqual(errors, [], `console errors\n${w.diagnostics()}`);
    assert.deepEqual(await w.cspViolations(), [], `CSP violations\n${w.diagnostics()}`);
  };
  /** Every request went to `origin`, for one of `paths` (pathname, query ignored). */
  w.assertOnlyOwnAssets = (origin, paths) => {
    const allowed = new Set(paths);
    const bad = w.requests.filter((r) => {
      const u = new URL(r.url);
      return u.origin !== origin || !allowed.has(u.pathname);
    });
    assert.deepEqual(bad, [], `requests other than the page's own assets\n${w.diagnostics()}`);
  };
  return w;
}

/** Waits for broker rows (or fails with the error banner's text) under `scope` (a CSS selector). */
export async function waitForRows(page, scope, w, timeout = 20_000) {
  const first = await Promise.race([
    page.waitForSelector(`${scope} [data-testid=broker-row]`, { timeout }).then(() => 'rows'),
    page.waitForSelector(`${scope} [data-testid=error-banner]`, { timeout }).then(() => 'error'),
  ]);
  if (first === 'error') {
    const banner = await page.locator(`${scope} [data-testid=error-banner]`).first().textContent();
    assert.fail(`${scope} shows an error banner: ${banner}\n${w.diagnostics()}`);
  }
}
