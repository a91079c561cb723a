// The embed demo portal (dist/static/embed-demo.html) under a strict CSP: two <pulsar-lb-planner>
// elements (one editable on snapshot-url, one readonly in dark theme with its snapshot set as an
// object) render independently in their shadow roots, send `plan-ready` / `export-requested`, keep the
// portal's styles out and theirs in, follow attribute changes, and make no request other than their
// own assets. Screenshots go to test-artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  ARTIFACTS, ROOT, STYLE_STRICT_CSP, closeServer, launchChromium, mountPlannerMissing, requireDist, serveDist, waitForRows, watch,
} from './embed-support.mjs';

const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'static', 'demo-snapshot.json'), 'utf8'));
const DEMO_BROKERS = Object.keys(demo.brokers).length;

/** Everything the demo portal may load: its own files and the planner's. */
const PORTAL_ASSETS = [
  '/static/embed-demo.html', '/static/embed-demo.css', '/static/embed-demo.js', '/static/favicon.svg',
  '/static/pulsar-lb-planner.js', '/static/style.css', '/static/demo-snapshot.json',
  '/lbplan-web.js', '/lbplan-web_bg.wasm',
];

/** The demo cluster under another name, to see a snapshot change. */
function otherSnapshot() {
  const other = structuredClone(demo);
  other.cluster = 'other';
  return JSON.stringify(other);
}

let server;
// Skipped (with the reason printed) until the dashboard build exports mount_planner.
const skip = mountPlannerMissing() ?? false;
let browser;

before(async () => {
  if (skip) return;
  requireDist();
  server = await serveDist({
    extra: { '/static/other-snapshot.json': { type: 'application/json', body: otherSnapshot() } },
  });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await closeServer(server);
});

/** Records every planner event reaching the document (they are composed and bubble). */
async function recordEvents(page) {
  await page.addInitScript(() => {
    window.__plannerEvents = [];
    for (const type of ['plan-ready', 'export-requested', 'planner-error']) {
      document.addEventListener(type, (e) => {
        window.__plannerEvents.push({ type, id: e.target.id, detail: e.detail });
      });
    }
  });
}

const events = (page, type, id) => page.evaluate(([t, i]) =>
  window.__plannerEvents.filter((e) => e.type === t && (!i || e.id === i)), [type, id]);

test('two planners in the demo portal: independent, isolated, CSP-clean, own assets only', { skip }, async () => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const w = await watch(page);
  await recordEvents(page);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  try {
    await page.goto(`${server.baseUrl}/static/embed-demo.html`, { waitUntil: 'load' });
    await waitForRows(page, '#planner-prod', w);
    await waitForRows(page, '#planner-staging', w);

    // Both render the demo cluster, each in its own shadow root.
    assert.equal(await page.locator('#planner-prod [data-testid=broker-row]').count(), DEMO_BROKERS, w.diagnostics());
    assert.equal(await page.locator('#planner-staging [data-testid=broker-row]').count(), DEMO_BROKERS, w.diagnostics());
    assert.equal(await page.evaluate(() => document.querySelectorAll('[data-testid=broker-row]').length), 0,
      'broker rows leaked out of the shadow roots');

    // Attributes: theme and readonly reach the app.
    const appClass = (id) => page.locator(`#${id} .lbplan-app`).first().getAttribute('class');
    assert.match(await appClass('planner-prod'), /theme-light/);
    assert.match(await appClass('planner-staging'), /theme-dark/);
    assert.match(await appClass('planner-staging'), /readonly/);
    assert.doesNotMatch(await appClass('planner-prod'), /readonly/);
    // Readonly: no export, no apply.
    assert.equal(await page.locator('#planner-staging [data-testid=export-commands]').count(), 0);
    assert.equal(await page.locator('#planner-staging [data-testid=apply-plan]').count(), 0);
    // No admin-base-url on this page: no Apply either.
    assert.equal(await page.locator('#planner-prod [data-testid=apply-plan]').count(), 0);

    // Plan in the editable planner: plan-ready with the plan as detail, logged by the portal.
    const stagingPlansBefore = (await events(page, 'plan-ready', 'planner-staging')).length;
    await page.locator('#planner-prod [data-testid=run-plan]').click();
    await page.waitForSelector('#planner-prod [data-testid=plan-move]', { timeout: 20_000 });
    await page.waitForFunction(() => window.__plannerEvents.some((e) => e.type === 'plan-ready' && e.id === 'planner-prod'));
    const plans = await events(page, 'plan-ready', 'planner-prod');
    const plan = plans.at(-1).detail;
    assert.equal(plan.format_version, 6);
    assert.ok(plan.unloads.length > 0, 'the demo plan unloads from the hot broker');
    assert.equal(await page.locator('#planner-prod [data-testid=plan-move]').count(), plan.unloads.length);
    await page.waitForSelector('[data-testid=event-log] li[data-planner=planner-prod][data-event=plan-ready]');
    // The other planner did not plan because this one did.
    assert.equal((await events(page, 'plan-ready', 'planner-staging')).length, stagingPlansBefore);

    // Export: export-requested with {plan, format, text}, the text as shown.
    await page.locator('#planner-prod [data-testid=export-copy]').click();
    await page.waitForFunction(() => window.__plannerEvents.some((e) => e.type === 'export-requested'));
    const [exported] = await events(page, 'export-requested', 'planner-prod');
    assert.equal(exported.detail.format, 'pulsar-admin');
    assert.equal(exported.detail.plan.format_version, 6);
    assert.equal(exported.detail.text, await page.locator('#planner-prod [data-testid=export-commands]').textContent());
    assert.ok(exported.detail.text.includes('namespaces unload'), exported.detail.text);
    await page.waitForSelector('[data-testid=event-log] li[data-planner=planner-prod][data-event=export-requested]');

    // Styles: the portal's loud element rules stay outside, the planner's stay inside.
    const runPlanBg = await page.locator('#planner-prod [data-testid=run-plan]').evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.notEqual(runPlanBg, 'rgb(255, 0, 255)', "the portal's button rule reached into the planner");
    const inner = await page.locator('#planner-prod .lbplan-app').first().evaluate((el) => getComputedStyle(el).fontFamily);
    assert.doesNotMatch(inner, /Georgia/, "the portal's font leaked into the planner");
    const portal = await page.evaluate(() => ({
      button: getComputedStyle(document.querySelector('.portal-button')).backgroundColor,
      body: getComputedStyle(document.body).backgroundColor,
      margin: getComputedStyle(document.body).margin,
    }));
    assert.deepEqual(portal, { button: 'rgb(255, 0, 255)', body: 'rgb(238, 240, 232)', margin: '0px' },
      "the planner's styles leaked into the portal");

    // Attribute changes are followed.
    await page.locator('#planner-staging').evaluate((el) => el.setAttribute('theme', 'light'));
    await page.waitForFunction(() => document.querySelector('#planner-staging').shadowRoot
      .querySelector('.lbplan-app')?.classList.contains('theme-light'));

    // A simulation in the embedded planner: its worker is found next to the element's module.
    await page.locator('#planner-prod [data-testid=simulation-cycles]').evaluate((el) => {
      el.value = '20';
      el.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await page.locator('#planner-prod [data-testid=run-simulation]').click();
    await page.waitForSelector('#planner-prod [data-testid=simulation-results]', { timeout: 60_000 });
    assert.match(await page.locator('#planner-prod [data-testid=simulation-done]').textContent(), /× 20 cycles of steady/);

    await w.assertClean();
    w.assertOnlyOwnAssets(server.baseUrl, [...PORTAL_ASSETS,
      '/static/lbplan-worker-boot.js', '/lbplan-worker.js', '/lbplan-worker_bg.wasm']);
  } finally {
    await page.screenshot({ path: path.join(ARTIFACTS, 'embed-demo.png'), fullPage: true });
    await context.close();
  }
});

test('a planner created by script mounts, loads a new snapshot-url or snapshot, survives a move, and unmounts', { skip }, async () => {
  const page = await browser.newPage();
  const w = await watch(page);
  try {
    await page.goto(`${server.baseUrl}/static/embed-demo.html`, { waitUntil: 'load' });
    await waitForRows(page, '#planner-prod', w);
    await page.evaluate(() => {
      const el = document.createElement('pulsar-lb-planner');
      el.id = 'planner-late';
      el.setAttribute('snapshot-url', 'demo-snapshot.json');
      document.querySelector('main').append(el);
    });
    await waitForRows(page, '#planner-late', w);
    assert.equal(await page.locator('#planner-late [data-testid=broker-row]').count(), DEMO_BROKERS);
    // A new snapshot-url is loaded; so is a new `snapshot` object.
    const clusterName = () => page.locator('#planner-late [data-testid=cluster-name]').first().textContent();
    assert.equal(await clusterName(), 'demo');
    await page.evaluate(() => document.getElementById('planner-late').setAttribute('snapshot-url', 'other-snapshot.json'));
    await page.waitForFunction(() => document.getElementById('planner-late').shadowRoot
      .querySelector('[data-testid=cluster-name]')?.textContent === 'other', null, { timeout: 20_000 });
    await page.evaluate(async () => {
      const s = await (await fetch('demo-snapshot.json')).json();
      s.cluster = 'from-property';
      document.getElementById('planner-late').snapshot = s;
    });
    await page.waitForFunction(() => document.getElementById('planner-late').shadowRoot
      .querySelector('[data-testid=cluster-name]')?.textContent === 'from-property', null, { timeout: 20_000 });
    // Moving it keeps the same instance (no remount: the rows stay).
    await page.evaluate(() => document.querySelector('main').prepend(document.getElementById('planner-late')));
    await page.waitForTimeout(100);
    assert.equal(await page.locator('#planner-late [data-testid=broker-row]').count(), DEMO_BROKERS);
    // Removing it unmounts it.
    await page.evaluate(() => document.getElementById('planner-late').remove());
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate(() => document.querySelectorAll('pulsar-lb-planner').length), 2);
    await w.assertClean();
  } finally {
    await page.close();
  }
});

test('a snapshot-url that cannot be loaded shows the error in that planner only', { skip }, async () => {
  const page = await browser.newPage();
  const w = await watch(page);
  try {
    await page.goto(`${server.baseUrl}/static/embed-demo.html`, { waitUntil: 'load' });
    await waitForRows(page, '#planner-prod', w);
    await page.evaluate(() => {
      const el = document.createElement('pulsar-lb-planner');
      el.id = 'planner-missing';
      el.setAttribute('snapshot-url', 'no-such-snapshot.json');
      document.querySelector('main').append(el);
    });
    await page.waitForSelector('#planner-missing [data-testid=error-banner]', { timeout: 20_000 });
    assert.match(await page.locator('#planner-missing [data-testid=error-banner]').first().textContent(), /no-such-snapshot\.json/);
    assert.equal(await page.locator('#planner-prod [data-testid=error-banner]').count(), 0);
    assert.deepEqual(w.pageErrors, [], w.diagnostics());
  } finally {
    await page.close();
  }
});

test("under style-src 'self' nothing is refused: the element, the portal and the dashboard add no inline style", { skip }, async () => {
  const strict = await serveDist({ csp: STYLE_STRICT_CSP });
  const page = await browser.newPage();
  const w = await watch(page);
  try {
    await page.goto(`${strict.baseUrl}/static/embed-demo.html`, { waitUntil: 'load' });
    await waitForRows(page, '#planner-prod', w);
    await waitForRows(page, '#planner-staging', w);
    assert.deepEqual(w.pageErrors, [], w.diagnostics());
    // Hover the map (its tooltip is positioned by computed styles) and sort by usage (bar widths).
    const map = page.locator('#planner-prod [data-testid=bundle-map]');
    await map.scrollIntoViewIfNeeded();
    await page.waitForSelector('#planner-prod [data-testid=bundle-map][data-draw-ms]', { timeout: 10_000 });
    const box = await map.boundingBox();
    await page.mouse.move(box.x + box.width * 0.3, box.y + 6);
    await page.waitForSelector('#planner-prod [data-testid=map-tooltip]', { timeout: 5_000 });
    assert.deepEqual(await w.cspViolations(), [], w.diagnostics());
    // The host rules (constructable stylesheet) apply: the portal's serif font does not reach in.
    const font = await page.locator('#planner-prod .lbplan-app').first().evaluate((el) => getComputedStyle(el).fontFamily);
    assert.doesNotMatch(font, /Georgia/);
  } finally {
    await page.close();
    await closeServer(strict);
  }
});
