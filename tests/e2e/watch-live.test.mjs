// End-to-end: the dashboard follows a live cluster. `lbplan watch --serve dist/` runs against a
// fake Pulsar admin API written here after the admin REST API's documented shapes (the answers of
// crates/cli/tests/fixtures/collect, as crates/cli/tests/watch_cli.rs's fake gives them: broker A
// answers the admin API and its own load report, broker B its own load report). The page opened
// at the watch's `/` shows the first snapshot; the fake moves a bundle from A to B; without a
// reload the page shows the newer snapshot and its History section lists the move; Pause stops
// the polls. Every request the page makes goes to the watch's own origin. Then the custom
// element's `pushSnapshot`: two snapshots pushed, the second with a bundle moved by hand, become
// the shown snapshot and the History section's live history.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import {
  DIST, ROOT, closeServer, launchChromium, mountPlannerMissing, requireDist, serveDist, waitForRows, watch,
} from './embed-support.mjs';

const FIXTURES = path.join(ROOT, 'crates', 'cli', 'tests', 'fixtures', 'collect');
const fixture = (name) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const BUNDLES = [
  'public/default/0x00000000_0x40000000',
  'public/default/0x40000000_0x80000000',
  'public/default/0x80000000_0xc0000000',
  'public/default/0xc0000000_0xffffffff',
];
/** Each bundle's share of the traffic (as the CLI test's fake: uneven, as real bundles are). */
const WEIGHTS = [1, 2, 8, 20];
/** The watch's `--every`, in seconds. */
const EVERY_S = 2;
/** Every wait ends by this (a wait, not a timing: it fails only when stuck). */
const WAIT_MS = 60_000;

/** A `LocalBrokerData` as a broker's `/admin/v2/broker-stats/load-report` answers it. */
function loadReport(id, cpuPct, bundles) {
  const lastStats = {};
  let rate = 0;
  let bytes = 0;
  for (const b of bundles) {
    const w = WEIGHTS[BUNDLES.indexOf(b)] ?? 1;
    const r = w * 500;
    const t = w * 5 * 1024 * 1024;
    rate += r;
    bytes += t;
    lastStats[b] = {
      msgRateIn: r, msgThroughputIn: t, msgRateOut: r, msgThroughputOut: t,
      consumerCount: 1, producerCount: 1, topics: 1, cacheSize: 0,
    };
  }
  return {
    webServiceUrl: `http://${id}`, pulsarServiceUrl: 'pulsar://127.0.0.1:6650',
    persistentTopicsEnabled: true, nonPersistentTopicsEnabled: false,
    cpu: { usage: cpuPct, limit: 100 }, memory: { usage: 100, limit: 1228 },
    directMemory: { usage: 32, limit: 1228 }, bandwidthIn: { usage: 0, limit: 0 },
    bandwidthOut: { usage: 0, limit: 0 },
    msgThroughputIn: bytes, msgThroughputOut: bytes, msgRateIn: rate, msgRateOut: rate,
    lastUpdate: 1650886425227, lastStats,
    numTopics: bundles.length, numBundles: bundles.length,
    numConsumers: bundles.length, numProducers: bundles.length,
    bundles, lastBundleGains: [], lastBundleLosses: [], brokerVersionString: '4.0.7',
    protocols: {}, advertisedListeners: {}, maxResourceUsage: cpuPct / 100,
    loadReportType: 'LocalBrokerData',
  };
}

function listen(handler) {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Two brokers at 20 % CPU, two bundles each; `cluster.move(i)` gives bundle `i` to B. */
async function fakeCluster() {
  const cluster = { a: BUNDLES.slice(0, 2), b: BUNDLES.slice(2) };
  const json = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const ids = [];
  const adminServer = await listen((req, res) => {
    const p = req.url.replace(/^\/admin\/v2/, '');
    const answers = {
      '/clusters': () => fixture('clusters.json'),
      '/brokers/standalone': () => ids,
      '/brokers/leaderBroker': () => ({ serviceUrl: `http://${ids[0]}`, brokerId: ids[0] }),
      '/broker-stats/load-report': () => loadReport(ids[0], 20, cluster.a),
      '/brokers/configuration/runtime': () => fixture('runtime-configuration.json'),
      '/brokers/configuration/values': () => fixture('dynamic-configuration.json'),
      '/tenants': () => ['public'],
      '/namespaces/public': () => ['public/default'],
      '/clusters/standalone/failureDomains': () => ({}),
      '/clusters/standalone/namespaceIsolationPolicies': () => ({}),
      '/namespaces/public/default/bundles': () => fixture('bundles-public-default.json'),
      '/namespaces/public/default': () => fixture('policies-public-default.json'),
      '/namespaces/public/default/topics?mode=ALL&includeSystemTopic=true': () => fixture('topics-public-default.json'),
    };
    if (p === '/namespaces/public/default/antiAffinity') return res.writeHead(204).end();
    const answer = answers[p];
    if (answer) return json(res, 200, answer());
    json(res, 404, { reason: 'Not found' });
  });
  const brokerB = await listen((req, res) => {
    if (req.url === '/admin/v2/broker-stats/load-report') return json(res, 200, loadReport(ids[1], 20, cluster.b));
    json(res, 404, { reason: 'Not found' });
  });
  ids.push(`127.0.0.1:${adminServer.address().port}`, `127.0.0.1:${brokerB.address().port}`);
  cluster.ids = ids;
  cluster.adminUrl = `http://${ids[0]}`;
  cluster.move = (i) => {
    cluster.a = cluster.a.filter((b) => b !== BUNDLES[i]);
    cluster.b = [...cluster.b, BUNDLES[i]];
  };
  cluster.close = async () => {
    await closeServer(adminServer);
    await closeServer(brokerB);
  };
  return cluster;
}

/** The debug `lbplan` binary (`$LBPLAN_BIN`, else built if it is not: cargo only rebuilds what changed). */
function lbplanBinary() {
  if (process.env.LBPLAN_BIN) return process.env.LBPLAN_BIN;
  const target = process.env.CARGO_TARGET_DIR ?? path.join(ROOT, 'target');
  execFileSync('cargo', ['build', '--quiet', '-p', 'lbplan'], { cwd: ROOT, stdio: 'inherit' });
  return path.join(target, 'debug', 'lbplan');
}

/** `lbplan watch --serve dist/` against `cluster`; resolves with its origin once it listens. */
async function startWatch(cluster, work) {
  const child = spawn(lbplanBinary(), [
    'watch', '--admin-url', cluster.adminUrl, '--series', path.join(work, 'series'),
    '--every', `${EVERY_S}s`, '--metrics-listen', '127.0.0.1:0', '--serve', DIST,
    '--timeout', '2', '--attempts', '1',
  ], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PULSAR_AUTH_TOKEN: '' } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const origin = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the watch never listened: ${stderr}`)), WAIT_MS);
    child.stderr.on('data', () => {
      const m = /dashboard at (http:\/\/[^/\s]+)\//.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`the watch exited (${code}): ${stderr}`)));
  });
  return { child, origin, stderr: () => stderr };
}

async function getJson(url) {
  const r = await fetch(url);
  assert.equal(r.status, 200, `${url}: HTTP ${r.status}`);
  return r.json();
}

async function until(what, fn) {
  const started = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - started > WAIT_MS) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let browser;
let cluster;
let watcher;
let work;
before(async () => {
  requireDist();
  browser = await launchChromium();
});
after(async () => {
  watcher?.child.kill('SIGTERM');
  await cluster?.close();
  await browser?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('the page follows the watch: a moved bundle shows without a reload, History lists it, Pause stops polling', async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'lbplan-watch-live-'));
  cluster = await fakeCluster();
  watcher = await startWatch(cluster, work);
  const { origin } = watcher;
  const first = await until('the first good snapshot', async () => {
    const s = await getJson(`${origin}/watch/status.json`);
    return s.latest_captured_at_ms ? s : null;
  });
  assert.equal(first.interval_ms, EVERY_S * 1000);

  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const w = await watch(page);
  try {
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    assert.match(page.url(), /\?snapshot=\/watch\/latest\.json&watch$/);
    await waitForRows(page, 'body', w);
    assert.equal(await page.locator('[data-testid=broker-row]').count(), 2, w.diagnostics());
    const bar = page.locator('[data-testid=live-bar]');
    await bar.waitFor({ timeout: WAIT_MS });
    const shownFirst = Number(await until('the live bar naming the snapshot',
      () => bar.getAttribute('data-shown-at')));
    assert.ok(shownFirst >= first.latest_captured_at_ms, `${shownFirst} < ${first.latest_captured_at_ms}`);
    const [a, b] = cluster.ids;
    assert.equal(await bundleCount(page, 'body', b), '2');
    const clock = new Date(shownFirst).toISOString().slice(11, 19);
    assert.equal(await page.textContent('[data-testid=live-shown]'), `snapshot of ${clock} UTC`);

    // The cluster changes: A's first bundle moves to B.
    cluster.move(0);
    // The change names both brokers by display name, each with its full id (core's one rule).
    const moved = `${BUNDLES[0]} moved `;
    const change = page.locator('[data-testid=history-change]', { hasText: moved })
      .filter({ has: page.locator(`[data-broker="${a}"]`) })
      .filter({ has: page.locator(`[data-broker="${b}"]`) });
    await change.first().waitFor({ timeout: WAIT_MS })
      .catch(() => assert.fail(`no "${moved}${a} → ${b}" in the History section\n${w.diagnostics()}`));
    assert.ok(await page.locator('[data-testid=history-live]').isVisible());
    // The shown snapshot is a newer one, with the bundle on B (as the watch serves it).
    const shownNow = Number(await until('a newer snapshot shown', async () => {
      const t = Number(await bar.getAttribute('data-shown-at'));
      return t > shownFirst ? t : null;
    }));
    await until('B owning three bundles in the table', async () => (await bundleCount(page, 'body', b)) === '3');
    const latest = await getJson(`${origin}/watch/latest.json`);
    assert.ok(latest.captured_at_ms >= shownNow);
    assert.ok(latest.brokers[b].local_broker_data.bundles.includes(BUNDLES[0]));
    // No reload: the page (where `/` redirected) was loaded once.
    const documents = w.requests.filter((r) => r.url === `${origin}/?snapshot=/watch/latest.json&watch`);
    assert.equal(documents.length, 1, w.diagnostics());

    // Pause: no poll after it, however long.
    await page.click('[data-testid=live-pause]');
    assert.equal(await bar.getAttribute('data-paused'), 'true');
    assert.equal(await page.textContent('[data-testid=live-next]'), 'paused');
    const polls = () => w.requests.filter((r) => new URL(r.url).pathname === '/watch/status.json').length;
    const before = polls();
    await page.waitForTimeout(3 * EVERY_S * 1000);
    assert.equal(polls(), before, w.diagnostics());
    // Resume polls again.
    await page.click('[data-testid=live-pause]');
    await until('a poll after Resume', () => polls() > before);

    // Everything the page asked for came from the watch's own origin.
    const elsewhere = w.requests.filter((r) => !r.url.startsWith(`${origin}/`) && !r.url.startsWith('blob:') && !r.url.startsWith('data:'));
    assert.deepEqual(elsewhere, [], w.diagnostics());
    await w.assertClean();
  } finally {
    await context.close();
  }
});

/** The demo with its capture time `dtMs` later and its first broker's first bundle moved to the second broker. */
function movedDemo(demo, dtMs) {
  const next = structuredClone(demo);
  next.captured_at_ms = demo.captured_at_ms + dtMs;
  const [from, to] = Object.keys(next.brokers);
  const src = next.brokers[from].local_broker_data;
  const bundle = src.bundles.shift();
  delete src.lastStats[bundle];
  next.brokers[to].local_broker_data.bundles.push(bundle);
  return { next, bundle, from, to };
}

const skipElement = mountPlannerMissing() ?? false;

/** The bundle count a broker's row shows (the table's 12th column). */
const bundleCount = (page, scope, broker) =>
  page.locator(`${scope} [data-testid=broker-row][data-broker="${broker}"] td:nth-of-type(11)`).textContent();

test('<pulsar-lb-planner>.pushSnapshot: each pushed snapshot is shown and grows the live history', { skip: skipElement }, async () => {
  const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'static', 'demo-snapshot.json'), 'utf8'));
  const { next, bundle, from, to } = movedDemo(demo, 60_000);
  const server = await serveDist();
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const w = await watch(page);
  try {
    await page.goto(`${server.baseUrl}/static/embed-demo.html`, { waitUntil: 'load' });
    await waitForRows(page, '#planner-prod', w);
    const fromBefore = Number(await bundleCount(page, '#planner-prod', from));
    await page.evaluate(async ([a, b]) => {
      const el = document.getElementById('planner-prod');
      await el.ready;
      el.pushSnapshot(a);
      el.pushSnapshot(JSON.stringify(b));
    }, [demo, next]);
    const moved = `${bundle} moved `;
    await page.locator('#planner-prod [data-testid=history-change]', { hasText: moved })
      .filter({ has: page.locator(`[data-broker="${from}"]`) })
      .filter({ has: page.locator(`[data-broker="${to}"]`) })
      .first()
      .waitFor({ timeout: WAIT_MS })
      .catch(() => assert.fail(`no "${moved}${from} → ${to}" in the element's History section\n${w.diagnostics()}`));
    assert.match(await page.textContent('#planner-prod [data-testid=history-live]'), /last 2 snapshot/);
    // The other planner on the page has no live history.
    assert.equal(await page.locator('#planner-staging [data-testid=history-live]').count(), 0);
    // The shown snapshot is the second: the bundle left its first owner.
    await until('the second snapshot shown', async () =>
      Number(await bundleCount(page, '#planner-prod', from)) === fromBefore - 1);
    await w.assertClean();
  } finally {
    await context.close();
    await closeServer(server);
  }
});
