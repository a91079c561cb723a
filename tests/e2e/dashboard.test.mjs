// End-to-end: the release build in dist/ (trunk build --release) served by a throw-away static
// server, opened in headless Chromium through playwright-core. Each test saves screenshots to
// test-artifacts/ and fails with everything the browser said.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT, start, recordingPage, waitForRows, screenshot, screenshotOf } from './dashboard-helpers.mjs';

const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'static', 'demo-snapshot.json'), 'utf8'));
const DEMO_BROKERS = Object.keys(demo.brokers).length;

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

/** A fresh browser context (own localStorage / IndexedDB) and a recording page on the dashboard. */
async function openDashboard(url = env.baseUrl) {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const rec = await recordingPage(context);
  await rec.page.goto(url, { waitUntil: 'load' });
  return { context, ...rec };
}

/** A LocalBrokerData load report (what `pulsar-admin broker-stats load-report` prints). */
function loadReport(host, cpuPct, bundles) {
  const stats = Object.fromEntries(bundles.map((b) => [b, {
    msgRateIn: 100, msgThroughputIn: 102400, msgRateOut: 100, msgThroughputOut: 102400,
    consumerCount: 1, producerCount: 1, topics: 2, cacheSize: 0,
  }]));
  return {
    webServiceUrl: `http://${host}:8080`,
    pulsarServiceUrl: `pulsar://${host}:6650`,
    persistentTopicsEnabled: true, nonPersistentTopicsEnabled: false,
    cpu: { usage: cpuPct, limit: 100 }, memory: { usage: 100, limit: 1000 },
    directMemory: { usage: 10, limit: 1000 }, bandwidthIn: { usage: 1000, limit: 1000000 },
    bandwidthOut: { usage: 1000, limit: 1000000 },
    msgThroughputIn: 102400 * bundles.length, msgThroughputOut: 102400 * bundles.length,
    msgRateIn: 100 * bundles.length, msgRateOut: 100 * bundles.length,
    lastUpdate: 1796083200000, lastStats: stats, numTopics: 2 * bundles.length,
    numBundles: bundles.length, numConsumers: bundles.length, numProducers: bundles.length,
    bundles, lastBundleGains: [], lastBundleLosses: [], brokerVersionString: '4.0.7',
    loadReportType: 'LocalBrokerData',
  };
}

const UPLOAD = [
  ['e2e-a:8080.json', loadReport('e2e-a', 90, ['e2e/ns/0x00000000_0x40000000', 'e2e/ns/0x40000000_0x80000000', 'e2e/ns/0x80000000_0xc0000000'])],
  ['e2e-b:8080.json', loadReport('e2e-b', 20, ['e2e/ns/0xc0000000_0xffffffff'])],
  ['e2e-c:8080.json', loadReport('e2e-c', 10, [])],
].map(([name, body]) => ({ name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(body)) }));

test('opens on the demo cluster: overview, bundle map, no console errors', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    assert.equal(await page.locator('[data-testid=broker-row]').count(), DEMO_BROKERS, diagnostics());
    assert.equal(await page.textContent('[data-testid=broker-count]'), String(DEMO_BROKERS));
    assert.equal(await page.textContent('[data-testid=cluster-name]'), demo.cluster);
    assert.equal(await page.textContent('[data-testid=profile]'), '4.0.7');
    assert.equal(await page.locator('[data-testid=namespace-row]').count(), Object.keys(demo.namespaces).length);
    // The bundle map drew a frame (the component records its draw time on the canvas).
    await page.waitForSelector('[data-testid=bundle-map][data-draw-ms]', { timeout: 10_000 });
    // Sorting by the weighted max (a header button) puts the busiest broker first.
    await page.click('[data-testid=sort-weightedmax]');
    const firstPct = parseFloat(await page.locator('[data-testid=broker-row] td.usage .value').first().textContent());
    const allPct = await page.locator('[data-testid=broker-row] td.usage .value').allTextContents();
    assert.equal(firstPct, Math.max(...allPct.map(parseFloat)));
    // Hovering the map shows a tooltip naming a bundle and its owner.
    const box = await page.locator('[data-testid=bundle-map]').boundingBox();
    await page.mouse.move(box.x + box.width * 0.3, box.y + 6);
    await page.waitForSelector('[data-testid=map-tooltip]', { timeout: 5_000 });
    assert.match(await page.textContent('[data-testid=map-tooltip]'), /owner/);
    assertClean();
  } finally {
    await screenshot(page, 'dashboard.png');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'dashboard-dark.png');
    await context.close();
  }
});

test('upload files; a bad upload keeps the previous snapshot', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    await page.setInputFiles('[data-testid=snapshot-input]', UPLOAD);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=broker-row]').length === 3, null, { timeout: 20_000 })
      .catch(async () => assert.fail(`upload did not load 3 brokers; banner: ${await page.locator('[data-testid=error-banner]').allTextContents()}\n${diagnostics()}`));
    assert.equal(await page.textContent('[data-testid=broker-count]'), '3');
    await screenshot(page, 'upload.png');

    await page.setInputFiles('[data-testid=snapshot-input]', [
      { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{ "cpu": ') },
    ]);
    await page.waitForSelector('[data-testid=error-banner]', { timeout: 10_000 });
    assert.match(await page.textContent('[data-testid=error-banner]'), /broken\.json/);
    assert.equal(await page.locator('[data-testid=broker-row]').count(), 3, 'the previous snapshot stays');
    await screenshot(page, 'bad-upload.png');
    assertClean();
  } finally {
    await context.close();
  }
});

test('hostile uploads: the tab stays alive with an error naming the file and the limit', async () => {
  const { context, page, diagnostics } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    // 10 million JSON values in 20 MB: past the importer's cap on values per file (8,000,000).
    const zeros = Buffer.alloc(20_000_001, '0,');
    zeros[0] = 0x5b; // '['
    zeros[zeros.length - 1] = 0x5d; // ']'
    await page.setInputFiles('[data-testid=snapshot-input]', [
      { name: 'zeros.json', mimeType: 'application/json', buffer: zeros },
    ]);
    await page.waitForSelector('[data-testid=error-banner]', { timeout: 60_000 });
    const banner = await page.textContent('[data-testid=error-banner]');
    assert.match(banner, /zeros\.json/, banner);
    assert.match(banner, /8000000 JSON values/, banner);
    assert.equal(await page.locator('[data-testid=broker-row]').count(), DEMO_BROKERS, 'the demo stays loaded');

    // A 200 MB array gzipped to a few hundred KB: the same cap, counted as it inflates.
    const big = Buffer.alloc(200_000_001, '0,');
    big[0] = 0x5b;
    big[big.length - 1] = 0x5d;
    const bomb = zlib.gzipSync(big, { level: 9 });
    assert.ok(bomb.length < 1_000_000, `the bomb is small (${bomb.length} bytes)`);
    await page.click('[data-testid=error-banner] button').catch(() => {});
    await page.setInputFiles('[data-testid=snapshot-input]', [
      { name: 'bomb.json.gz', mimeType: 'application/gzip', buffer: bomb },
    ]);
    await page.waitForFunction(() => /bomb\.json/.test(document.querySelector('[data-testid=error-banner]')?.textContent ?? ''), null, { timeout: 60_000 })
      .catch(async () => assert.fail(`no error naming bomb.json.gz; banner: ${await page.locator('[data-testid=error-banner]').allTextContents()}\n${diagnostics()}`));
    // The page still answers: the broker table is there and a plan runs.
    assert.equal(await page.locator('[data-testid=broker-row]').count(), DEMO_BROKERS);
    await page.click('[data-testid=run-plan]');
    await page.waitForSelector('[data-testid=plan]', { timeout: 20_000 });
    await screenshot(page, 'hostile-upload.png');
  } finally {
    await context.close();
  }
});

test('run plan, a manual move, export, and reload restores it', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    await page.click('[data-testid=run-plan]');
    await page.waitForSelector('[data-testid=plan]', { timeout: 20_000 });
    await page.waitForSelector('[data-testid=plan-move]', { timeout: 20_000 })
      .catch(async () => assert.fail(`no plan-move rows: ${await page.textContent('[data-testid=plan]')}\n${diagnostics()}`));

    // Moves are grouped by the broker they leave: one header row per source (a button that opens
    // or closes the group), each counting its rows, in one virtualised list.
    // The group names a broker by its short name (core's rule), the full id on hover.
    const groups = await page.locator('[data-testid=plan-move-group]').evaluateAll((gs) => gs.map((g) => {
      const name = g.querySelector('[data-testid=plan-group-name]');
      const broker = name.title;
      return {
        broker,
        short: name.textContent,
        open: g.querySelector('button').getAttribute('aria-expanded'),
        summary: g.textContent,
        rows: [...document.querySelectorAll('[data-testid=plan-move]')].filter((r) => r.dataset.from === broker)
          .map((r) => r.querySelector('[data-testid=plan-move-from]').textContent),
      };
    }));
    const moveRows = await page.locator('[data-testid=plan-move]').count();
    assert.equal(groups.reduce((n, g) => n + g.rows.length, 0), moveRows);
    assert.equal(new Set(groups.map((g) => g.broker)).size, groups.length);
    for (const g of groups) {
      assert.equal(g.open, 'true', g.summary);
      assert.ok(g.summary.includes(`${g.rows.length} move`), g.summary);
      assert.ok(g.broker.startsWith(`${g.short}.demo.svc`), JSON.stringify(g));
      assert.ok(g.rows.every((r) => r === g.short), JSON.stringify(g));
    }
    // The list tells assistive tech its size: every row (headers and moves) is counted.
    assert.equal(await page.getAttribute('[data-testid=plan-moves]', 'aria-rowcount'), String(groups.length + moveRows + 1));
    // A group closes and opens again from its header (keyboard: the header is a button).
    await page.locator('[data-testid=plan-move-group] button').first().focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=plan-move]').length === n, moveRows - groups[0].rows.length);
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=plan-move]').length === n, moveRows);
    // Reasons are readable in full: a row shows one line of its reason; picking the row (its bundle
    // is a button) shows the whole reason, wrapped, and its numbers in the pane under the list,
    // nothing cut at the window's edge.
    const last = page.locator('[data-testid=plan-move]').last();
    const reason = await last.locator('td.reason').textContent();
    assert.ok(reason.length > 20, reason);
    await last.locator('[data-testid=plan-pick]').click();
    await page.waitForFunction((b) => document.querySelector('[data-testid=plan-detail]')?.dataset.bundle === b,
      await last.locator('[data-testid=plan-pick]').textContent());
    assert.equal(await page.textContent('[data-testid=plan-detail-reason]'), reason);
    assert.ok(await page.locator('[data-testid=plan-detail-numbers] dt').count() > 0);
    const cut = await page.locator('[data-testid=plan-detail], [data-testid=plan-detail-reason]').evaluateAll((els) => els
      .filter((c) => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > window.innerWidth)
      .map((c) => c.textContent.slice(0, 80)));
    assert.deepEqual(cut, []);
    // The placement pipeline behind the move, opened from the pane: the strategy and the broker it
    // chose, each stage with how many brokers it left and removed.
    await page.click('[data-testid=plan-detail] [data-testid=plan-pipeline] summary');
    await page.waitForSelector('[data-testid=plan-detail] [data-testid=plan-pipeline-stage]', { timeout: 5_000 });
    assert.ok((await page.textContent('[data-testid=plan-pipeline-strategy]')).includes(' chose '));
    // Every broker's usage before → after, one row each.
    assert.equal(await page.locator('[data-testid=plan-usage-row]').count(), DEMO_BROKERS);
    await screenshotOf(page, '[data-testid=plan]', 'plan-demo.png');
    // The filter narrows the moves to one source broker.
    await page.fill('[data-testid=plan-filter]', groups[0].broker);
    await page.waitForFunction((b) => [...document.querySelectorAll('[data-testid=plan-move]')]
      .every((r) => r.dataset.from === b), groups[0].broker);
    assert.ok(await page.locator('[data-testid=plan-move]').count() >= groups[0].rows.length);
    await page.fill('[data-testid=plan-filter]', '');
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=plan-move]').length === n, moveRows);

    // Manual move: select a bundle on the map, choose a destination, move.
    await page.locator('[data-testid=bundle-map]').scrollIntoViewIfNeeded();
    const box = await page.locator('[data-testid=bundle-map]').boundingBox();
    await page.mouse.click(box.x + box.width * 0.5, box.y + 6);
    await page.waitForSelector('[data-testid=selection]', { timeout: 5_000 });
    const owner = (await page.textContent('[data-testid=selection-owner]')).trim();
    const dest = await page.locator('[data-testid=move-destination] option').nth(1).getAttribute('value');
    assert.notEqual(dest, owner);
    await page.selectOption('[data-testid=move-destination]', dest);
    await page.click('[data-testid=move-bundle]');
    await page.waitForSelector('[data-testid=plan-move][data-origin=manual]', { timeout: 20_000 });
    const manual = page.locator('[data-testid=plan-move][data-origin=manual]');
    assert.equal(await manual.getAttribute('data-from'), owner);
    assert.equal(await manual.getAttribute('data-to'), dest);
    // From and To are columns of their own, each the short name, the full id on hover.
    assert.equal(await manual.locator('[data-testid=plan-move-to]').getAttribute('title'), dest);
    assert.ok(dest.startsWith(`${(await manual.locator('[data-testid=plan-move-to]').textContent()).trim()}.`), dest);
    assert.equal(await page.locator('[data-testid=operations] li').count(), 1);
    // The plan now says what the edit changes against the plan without it.
    const diff = page.locator('[data-testid=plan-diff]');
    await diff.waitFor({ timeout: 10_000 });
    assert.equal(await diff.getAttribute('data-identical'), 'false');
    assert.match(await diff.textContent(), /Against the baseline: \d+ move\(s\) added/);
    // It names the brokers by their display names, each full id on hover.
    const shortOf = async (id) => (await diff.locator(`.broker-name[title="${id}"]`).first().textContent()).trim();
    const [ownerShort, destShort] = [await shortOf(owner), await shortOf(dest)];
    assert.ok(dest.startsWith(`${destShort}.`), `${destShort} for ${dest}`);
    assert.ok((await diff.textContent()).includes(`${ownerShort} → ${destShort}`), await diff.textContent());
    assert.ok(!(await diff.textContent()).includes(dest), await diff.textContent());

    // Export: the pulsar-admin script unloads the bundles.
    const script = await page.textContent('[data-testid=export-commands]');
    // The script runs `pulsar-admin namespaces unload …` through $PULSAR_ADMIN (default pulsar-admin).
    assert.ok(script.includes('PULSAR_ADMIN="${PULSAR_ADMIN:-pulsar-admin}"'), script.slice(0, 600));
    assert.ok(script.includes('"$PULSAR_ADMIN" namespaces unload'), script.slice(0, 600));
    assert.ok(script.includes(`--destinationBroker '${dest}'`), script.slice(0, 600));
    await screenshot(page, 'plan.png');

    // Undo / redo with the keyboard.
    await page.locator('[data-testid=run-plan]').focus();
    await page.keyboard.press('Control+z');
    await page.waitForFunction(() => !document.querySelector('[data-testid=operations]'));
    await page.keyboard.press('Control+Shift+z');
    await page.waitForSelector('[data-testid=operations] li');

    // Reload: snapshot, edits and plan come back.
    await page.reload({ waitUntil: 'load' });
    await waitForRows(page, diagnostics);
    await page.waitForSelector('[data-testid=plan-move][data-origin=manual]', { timeout: 20_000 });
    assert.equal(await page.locator('[data-testid=operations] li').count(), 1);
    await screenshot(page, 'reloaded.png');
    assertClean();
  } finally {
    await context.close();
  }
});

test('a share link restores settings and edits in a fresh browser', async () => {
  const first = await openDashboard();
  let link;
  try {
    await waitForRows(first.page, first.diagnostics);
    await first.page.selectOption('[data-testid=profile-select]', '5.0');
    await first.page.selectOption('[data-testid=remove-broker-name]', { index: 1 });
    await first.page.click('[data-testid=remove-broker]');
    await first.page.waitForSelector('[data-testid=operations] li');
    link = await first.page.getAttribute('[data-testid=share-link]', 'href');
    assert.match(link, /#s=/);
  } finally {
    await first.context.close();
  }
  const second = await openDashboard(link);
  try {
    await waitForRows(second.page, second.diagnostics);
    await second.page.waitForSelector('[data-testid=operations] li');
    assert.match(await second.page.textContent('[data-testid=operations]'), /remove-broker=/);
    assert.equal(await second.page.textContent('[data-testid=profile]'), '5.0.0');
    // The 5.0 profile's AvgShedder shows its outlook or its plan in the plan view.
    await second.page.waitForSelector('[data-testid=plan]');
    second.assertClean();
  } finally {
    await second.context.close();
  }
});

/** Sets an input's value and fires `change` (what a user's edit does). */
async function setValue(page, selector, value) {
  await page.locator(selector).evaluate((el, v) => {
    el.value = v;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);
}

test('simulate with progress: a long run stays in the worker and cancels; a short one compares and replays', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    // Defaults: the steady scenario, "current settings" against Pulsar 5.0's defaults.
    assert.equal(await page.locator('[data-testid=simulation-scenario]').inputValue(), 'steady');
    assert.equal(await page.locator('[data-testid=simulation-configs] li').count(), 2);

    // A long run: progress moves while the page keeps answering (sorting the broker table works).
    await setValue(page, '[data-testid=simulation-cycles]', '100000');
    await page.click('[data-testid=run-simulation]');
    await page.waitForFunction(() => {
      const p = document.querySelector('[data-testid=simulation-progress]');
      return p && p.value > 0;
    }, null, { timeout: 30_000 });
    await page.click('[data-testid=sort-broker]');
    const before = await page.locator('[data-testid=broker-row] th').first().textContent();
    await page.click('[data-testid=sort-broker]');
    const after = await page.locator('[data-testid=broker-row] th').first().textContent();
    assert.notEqual(after, before, 'the table re-sorted while the simulation ran');
    const progress = await page.locator('[data-testid=simulation-progress]').evaluate((p) => [p.value, p.max]);
    assert.ok(progress[0] > 0 && progress[0] < progress[1], `mid-run progress ${progress}`);
    assert.equal(progress[1], 200_000, 'two configurations × 100,000 cycles');
    assert.match(await page.textContent('[data-testid=simulation-progress-text]'), /of 200,000 cycles/);
    await screenshot(page, 'simulate-running.png');
    await page.click('[data-testid=cancel-simulation]');
    assert.match(await page.textContent('[data-testid=simulation-note]'), /^Cancelled after [\d,]+ of 200,000 cycles/);
    assert.equal(await page.locator('[data-testid=simulation-progress]').count(), 0);
    assert.equal(await page.locator('[data-testid=simulation-results]').count(), 0);

    // A short comparison of three configurations.
    await setValue(page, '[data-testid=simulation-cycles]', '60');
    await page.selectOption('[data-testid=simulation-preset]', { label: 'ThresholdShedder + LeastResourceUsageWithWeight' });
    assert.equal(await page.locator('[data-testid=simulation-configs] li').count(), 3);
    await page.click('[data-testid=run-simulation]');
    await page.waitForSelector('[data-testid=simulation-results]', { timeout: 60_000 });
    const rows = page.locator('[data-testid=simulation-run]');
    assert.equal(await rows.count(), 3);
    // The demo's brokers report 4.0.7: 4.x defaults for "current settings"; 5.0 is AvgShedder for both
    // shedding and placement (reference §13.1).
    const strategies = await rows.locator('td:nth-child(2)').allTextContents();
    assert.deepEqual(strategies, [
      'ThresholdShedder + LeastLongTermMessageRate',
      'AvgShedder + AvgShedder',
      'ThresholdShedder + LeastResourceUsageWithWeight',
    ]);
    const charts = await page.locator('[data-testid=simulation-chart]').evaluateAll((cs) =>
      cs.map((c) => [c.dataset.chart, Number(c.dataset.series), Number(c.dataset.values)]));
    assert.deepEqual(charts, [
      ['std', 3, 180], ['max-over-mean', 3, 180], ['unloads', 3, 180],
      ['broker-usage', DEMO_BROKERS, DEMO_BROKERS * 60],
    ]);
    // The time slider: the end state, then the snapshot as loaded (cycle 0).
    assert.equal(await page.textContent('[data-testid=simulation-cycle-label]'), '60 of 60 (minute 59)');
    await page.waitForSelector('[data-testid=simulation-map][data-draw-ms]', { timeout: 10_000 });
    await setValue(page, '[data-testid=simulation-cycle]', '0');
    assert.equal(await page.textContent('[data-testid=simulation-cycle-label]'), '0 of 60 (minute 0)');
    // Clicking a chart moves the slider to that cycle.
    const box = await page.locator('[data-testid=simulation-chart][data-chart=std]').boundingBox();
    await page.mouse.click(box.x + box.width - 14, box.y + box.height / 2);
    assert.match(await page.textContent('[data-testid=simulation-cycle-label]'), /^(59|60) of 60/);
    await screenshot(page, 'simulate-compare.png');

    // A scenario with its own cluster and comparison list: apache/pulsar#16059's 136 brokers and
    // 4,352 bundles (scenarios/pr-16059.json), its four configurations replacing the selection.
    await page.selectOption('[data-testid=simulation-scenario]', 'pr-16059');
    assert.deepEqual(await page.locator('[data-testid=simulation-configs] li strong').allTextContents(),
      ['Threshold+LLTMR', 'Threshold+LRUWW', 'AvgShedder', 'Uniform+LLTMR']);
    await page.check('[data-testid=simulation-own-cluster]');
    await setValue(page, '[data-testid=simulation-cycles]', '30');
    await page.click('[data-testid=run-simulation]');
    await page.waitForSelector('[data-testid=simulation-done]:has-text("pr-16059")', { timeout: 120_000 });
    assert.match(await page.textContent('[data-testid=simulation-done]'), /4 configuration\(s\) × 30 cycles of pr-16059 on .* \(136 brokers, 4,352 bundles\)/);
    assert.deepEqual(await rows.locator('td:nth-child(2)').allTextContents(), [
      'ThresholdShedder + LeastLongTermMessageRate',
      'ThresholdShedder + LeastResourceUsageWithWeight',
      'AvgShedder + AvgShedder',
      'UniformLoadShedder + LeastLongTermMessageRate',
    ]);
    await page.locator('[data-testid=simulate]').scrollIntoViewIfNeeded();
    assertClean();
  } finally {
    await screenshot(page, 'simulate.png');
    await context.close();
  }
});

test('plans in the worker (large snapshots; forced with ?planWorkerFrom=0) equal plans on the page', async () => {
  const onPage = await openDashboard();
  const inWorker = await openDashboard(`${env.baseUrl}?planWorkerFrom=0`);
  try {
    const moves = async ({ page, diagnostics }) => {
      await waitForRows(page, diagnostics);
      await page.click('[data-testid=run-plan]');
      await page.waitForSelector('[data-testid=plan-move]', { timeout: 30_000 })
        .catch(async () => assert.fail(`no plan-move rows\n${diagnostics()}`));
      return page.locator('[data-testid=plan-move]').allTextContents();
    };
    const expected = await moves(onPage);
    assert.ok(expected.length > 0);
    assert.deepEqual(await moves(inWorker), expected);
    const { page, diagnostics, assertClean } = inWorker;
    assert.match(await page.textContent('.panel.run'), /plans are made in a worker/);
    assert.equal(await page.textContent('[data-testid=export-commands]'),
      await onPage.page.textContent('[data-testid=export-commands]'));

    // A manual move goes through the worker too.
    await page.locator('[data-testid=bundle-map]').scrollIntoViewIfNeeded();
    const box = await page.locator('[data-testid=bundle-map]').boundingBox();
    await page.mouse.click(box.x + box.width * 0.5, box.y + 6);
    await page.waitForSelector('[data-testid=selection]', { timeout: 5_000 });
    const dest = await page.locator('[data-testid=move-destination] option').nth(1).getAttribute('value');
    await page.selectOption('[data-testid=move-destination]', dest);
    await page.click('[data-testid=move-bundle]');
    await page.waitForSelector('[data-testid=plan-move][data-origin=manual]', { timeout: 30_000 });
    assert.equal(await page.locator('[data-testid=operations] li').count(), 1);
    assert.equal(await page.locator('[data-testid=plan-pending]').count(), 0, diagnostics());
    // The worker answers what the edit changes, as the page does for small snapshots.
    await page.waitForSelector('[data-testid=plan-diff][data-identical=false]', { timeout: 10_000 });
    assert.match(await page.textContent('[data-testid=plan-diff]'), /move\(s\) added/);
    assertClean();
    onPage.assertClean();
  } finally {
    await onPage.context.close();
    await inWorker.context.close();
  }
});

/** CRC-32 (IEEE), written out here so the test does not take the planner's word for the hash:
 *  Pulsar's bundle of a topic is the range holding CRC-32 of its complete name. */
function crc32(text) {
  let c = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return (c ^ 0xffffffff) >>> 0;
}

test('bundle map: heartbeats folded, a topic search lands on its bundle, cluster scale reads by tenant', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    await page.waitForSelector('[data-testid=bundle-map][data-draw-ms]', { timeout: 10_000 });
    const all = Object.keys(demo.namespaces);
    const tenantNamespaces = all.filter((n) => !n.startsWith('pulsar/'));
    const count = () => page.textContent('[data-testid=map-count]');
    assert.match(await count(), new RegExp(`^${tenantNamespaces.length} namespaces`));
    assert.equal(await page.getAttribute('[data-testid=map-count]', 'data-level'), 'bundles');
    await page.check('[data-testid=map-show-system]');
    assert.match(await count(), new RegExp(`^${all.length} namespaces`));
    await page.uncheck('[data-testid=map-show-system]');

    // A topic lands on the bundle whose range holds its hash, and selects it.
    const ns = tenantNamespaces[1];
    const topic = `persistent://${ns}/e2e-orders-7`;
    const hash = crc32(topic);
    const bounds = demo.namespaces[ns].bundles.boundaries;
    const i = bounds.findIndex((lo, k) => k + 1 < bounds.length && parseInt(lo, 16) <= hash
      && (hash < parseInt(bounds[k + 1], 16) || k + 2 === bounds.length));
    const bundle = `${ns}/${bounds[i]}_${bounds[i + 1]}`;
    const owner = Object.entries(demo.brokers).find(([, b]) => b.local_broker_data.bundles.includes(bundle))?.[0];
    assert.ok(owner, `no owner of ${bundle} in the demo`);
    await page.fill('[data-testid=map-search]', topic);
    await page.press('[data-testid=map-search]', 'Enter');
    await page.waitForSelector('[data-testid=map-search-result]', { timeout: 5_000 });
    const note = await page.textContent('[data-testid=map-search-result]');
    assert.ok(note.includes(`→ ${bundle}, owned by ${owner}`), note);
    assert.equal((await page.textContent('[data-testid=bundle-chip]')).trim(), bundle);
    assert.equal((await page.textContent('[data-testid=selection-owner]')).trim(), owner);
    assert.match(await count(), new RegExp(`^1 namespace, ${bounds.length - 1} bundles`));
    await screenshotOf(page, '.map-panel', 'map-topic-search.png');
    await page.click('[data-testid=map-back]');
    assert.match(await count(), new RegExp(`^${tenantNamespaces.length} namespaces`));

    // 30 tenants × 20 namespaces of one bundle: 600 rows cannot be read bundle by bundle, so the
    // map draws one band per tenant; a click zooms into the tenant, then into a namespace.
    const bundles = [];
    for (let t = 0; t < 30; t++) for (let n = 0; n < 20; n++) bundles.push(`t${t}/ns${n}/0x00000000_0xffffffff`);
    const files = [0, 1, 2].map((b) => ({
      name: `scale-${b}:8080.json`, mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(loadReport(`scale-${b}`, 30 + b, bundles.filter((_, k) => k % 3 === b)))),
    }));
    await page.setInputFiles('[data-testid=snapshot-input]', files);
    await page.waitForFunction(() => document.querySelector('[data-testid=map-count]')?.textContent.startsWith('600 namespaces'), null, { timeout: 20_000 })
      .catch(async () => assert.fail(`map did not show 600 namespaces: ${await count()}\n${diagnostics()}`));
    assert.equal(await page.getAttribute('[data-testid=map-count]', 'data-level'), 'tenants');
    assert.match(await count(), /30 tenant bands/);
    await page.waitForSelector('[data-testid=bundle-map][data-draw-ms]');
    await screenshotOf(page, '.map-panel', 'map-tenants.png');
    const box = await page.locator('[data-testid=bundle-map]').boundingBox();
    await page.mouse.move(box.x + box.width * 0.2, box.y + 4);
    await page.waitForSelector('[data-testid=map-tooltip]', { timeout: 5_000 });
    assert.match(await page.textContent('[data-testid=map-tooltip]'), /20 namespaces · 20 bundles/);
    await page.mouse.click(box.x + box.width * 0.2, box.y + 4);
    await page.waitForFunction(() => document.querySelector('[data-testid=map-count]')?.textContent.startsWith('20 namespaces'));
    assert.equal(await page.getAttribute('[data-testid=map-count]', 'data-level'), 'bundles');
    await page.click('[data-testid=map-back]');
    assert.equal(await page.getAttribute('[data-testid=map-count]', 'data-level'), 'tenants');
    // The level can be chosen: 600 namespace bands, scrolled.
    await page.selectOption('[data-testid=map-level]', 'namespaces');
    assert.equal(await page.getAttribute('[data-testid=map-count]', 'data-level'), 'namespaces');
    assert.match(await count(), /600 namespace bands/);
    assertClean();
  } finally {
    await screenshotOf(page, '.map-panel', 'map-last.png').catch(() => {});
    await context.close();
  }
});

test('navigation: a bar of sections, the place kept in the URL across a reload, keyboard reachable', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    const links = await page.locator('[data-testid=sections-nav] a').allTextContents();
    assert.deepEqual(links, ['Cluster', 'Bundle map', 'Plan', 'Rebalance', 'Simulate', 'Namespaces', 'History']);
    await page.click('[data-testid=nav-simulate]');
    assert.match(page.url(), /#view=simulate$/);
    assert.equal(await page.getAttribute('[data-testid=nav-simulate]', 'aria-current'), 'location');
    const top = () => page.locator('[data-section=simulate]').evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(Math.abs(await top()) < 80, `simulate section at ${await top()} px`);
    // A reload opens at the same section.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.reload({ waitUntil: 'load' });
    await waitForRows(page, diagnostics);
    await page.waitForFunction(() => Math.abs(document.querySelector('[data-section=simulate]').getBoundingClientRect().top) < 80, null, { timeout: 5_000 })
      .catch(async () => assert.fail(`after reload the simulate section is at ${await top()} px`));
    // Keyboard: focus the Plan link, Enter, and focus lands in the plan section.
    await page.focus('[data-testid=nav-plan]');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.section), 'plan');
    assert.match(page.url(), /view=plan/);
    assertClean();
  } finally {
    await context.close();
  }
});

test('a folder mixing export shapes imports as the CLI imports it (the operator-dir corpus)', async () => {
  // The same folder crates/core/tests/import_real.rs imports through the importer `lbplan import`
  // runs: one load report in the metadata-store layout, a 2.x topic list, a bare `namespaces
  // bundles` output, `topics partitioned-lookup` output and a `brokers list`. Both check the values
  // worked out from the files: one broker at 25 % CPU (50 of 200) with 2 bundles, one namespace,
  // and a warning naming each file that is not modelled or lacks a report.
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    const dir = path.join(ROOT, 'crates', 'core', 'tests', 'import_corpus', 'real', 'operator-dir');
    await page.setInputFiles('[data-testid=folder-input]', dir);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=broker-row]').length === 1, null, { timeout: 20_000 })
      .catch(async () => assert.fail(`folder did not load one broker: ${await page.locator('[data-testid=error-banner]').allTextContents()}\n${diagnostics()}`));
    const row = page.locator('[data-testid=broker-row]');
    assert.equal(await row.getAttribute('data-broker'), 'broker-1:8080');
    const cells = await row.locator('td').allTextContents();
    assert.equal(cells[1].trim(), '25.0 %', `CPU cell of ${JSON.stringify(cells)}`);
    const namespaces = await page.locator('[data-testid=namespace-row] th, [data-testid=namespace-row] td:first-child').first().textContent();
    assert.match(namespaces, /my-tenant\/my-namespace/);
    assert.equal(await page.locator('[data-testid=namespace-row]').count(), 1);
    const warnings = await page.textContent('[data-testid=warnings]');
    for (const file of ['raw/partitioned-lookup.txt', 'raw/namespaces-bundles-my-tenant-my-namespace.txt', 'raw/brokers-list.txt']) {
      assert.ok(warnings.includes(file), `no warning names ${file}: ${warnings}`);
    }
    assert.match(warnings, /pulsar-admin topics partitioned-lookup/);
    assert.match(warnings, /broker `broker-2:8080`/);
    assertClean();
  } finally {
    await context.close();
  }
});

test('why is a broker hot: its deciding resource, heap left out, bundles by share, what the plan does', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    // The demo's busiest broker (sorted by weighted max, busiest first).
    await page.click('[data-testid=sort-weightedmax]');
    const row = page.locator('[data-testid=broker-row]').first();
    const broker = await row.getAttribute('data-broker');
    const usage = (await row.locator('td.usage .value').textContent()).trim();
    await row.locator('[data-testid=broker-select]').click();
    const detail = page.locator('[data-testid=broker-detail]');
    await detail.waitFor({ timeout: 5_000 });
    assert.equal(await detail.locator('h2').textContent(), `Why is ${broker} at ${usage}?`);
    assert.equal(await detail.locator('[data-testid=broker-resource].driving').count(), 1);
    assert.match(await detail.locator('[data-testid=broker-resource][data-resource=memory]').textContent(),
      /not part of the modular load manager's weighted maximum/);
    // Every bundle the broker's report lists, their shares adding up to 100 %.
    const owned = demo.brokers[broker].local_broker_data.bundles.length;
    assert.match(await detail.locator('h3').last().textContent(), new RegExp(`\\(${owned}\\)`));
    await detail.getByRole('button', { name: `Show all ${owned}` }).click().catch(() => {});
    const shares = await detail.locator('[data-testid=broker-bundle] td:nth-child(2)').allTextContents();
    assert.equal(shares.length, owned);
    const total = shares.reduce((s, t) => s + parseFloat(t), 0);
    assert.ok(Math.abs(total - 100) < 0.5, `shares add up to ${total}`);
    // After a plan, the detail says what it does to the broker.
    await page.click('[data-testid=run-plan]');
    await page.waitForSelector('[data-testid=broker-plan-effect]', { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid=broker-plan-effect]'), new RegExp(`^${usage.replace('.', '\\.')} → `));
    await screenshotOf(page, '[data-testid=broker-detail]', 'broker-detail.png');
    assertClean();
  } finally {
    await context.close();
  }
});

test('settings: the strategies and thresholds first with what each decides, booleans as switches', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    const tops = await page.locator('.top-settings > .setting, .top-settings > label.setting').evaluateAll(
      (els) => els.map((e) => e.querySelector('.mono')?.textContent));
    assert.deepEqual(tops, ['loadBalancerLoadSheddingStrategy', 'loadBalancerLoadPlacementStrategy',
      'loadBalancerBrokerThresholdShedderPercentage', 'loadBalancerBrokerOverloadedThresholdPercentage',
      'loadBalancerSheddingEnabled', 'loadBalancerAutoBundleSplitEnabled']);
    assert.match(await page.textContent('[data-testid=top-loadBalancerBrokerThresholdShedderPercentage]'),
      /points above the cluster average/);
    const shedding = page.locator('[data-testid=top-loadBalancerSheddingEnabled] input[role=switch]');
    assert.equal(await shedding.isChecked(), true);
    await shedding.click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=operations] li').length === 1);
    assert.match(await page.textContent('[data-testid=operations] li'), /loadBalancerSheddingEnabled.*false/);
    assert.equal(await shedding.isChecked(), false);
    // The keyboard flips it back (Space on a focused switch).
    await shedding.focus();
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=operations] li').length === 2);
    assert.equal(await shedding.isChecked(), true);
    assertClean();
  } finally {
    await context.close();
  }
});

test('rebalance: a proposal toward the goal that Pulsar leaves alone, its trade-off and its plan', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    await page.click('[data-testid=nav-rebalance]');
    assert.equal(await page.inputValue('[data-testid=rebalance-goal]'), 'max/mean<=1.15');
    await page.click('[data-testid=run-rebalance]');
    await page.waitForSelector('[data-testid=rebalance-result], [data-testid=rebalance-error]', { timeout: 60_000 });
    assert.equal(await page.locator('[data-testid=rebalance-error]').count(), 0,
      await page.locator('[data-testid=rebalance-error]').allTextContents().then((t) => t.join()));
    const summary = await page.textContent('[data-testid=rebalance-summary]');
    const m = summary.match(/(\d+) move\(s\) toward max\/mean<=1\.15: max\/mean ([\d.]+) → ([\d.]+)/);
    assert.ok(m, summary);
    assert.ok(parseFloat(m[3]) <= 1.15, summary);
    assert.match(summary, /goal met/);
    assert.match(await page.textContent('[data-testid=rebalance-stick]'), /Pulsar leaves it alone/);
    // Each proposed move is in the plan below, with a destination and the rebalance reason.
    const moves = page.locator('[data-testid=rebalance-panel] [data-testid=plan-move]');
    assert.equal(await moves.count(), parseInt(m[1], 10));
    for (const text of await moves.allTextContents()) assert.match(text, /rebalance toward max\/mean<=1\.15/);
    for (const to of await moves.evaluateAll((rows) => rows.map((r) => r.dataset.to))) assert.ok(to, 'a destination');
    // A proposal's moves are listed in the order they are applied (its steps chain).
    assert.equal(await page.inputValue('[data-testid=rebalance-panel] [data-testid=plan-sort]'), 'applied');
    await page.waitForSelector('[data-testid=rebalance-tradeoff]');
    await screenshotOf(page, '[data-testid=rebalance-panel]', 'rebalance.png');
    // A point picked on the curve is that plan: one move fewer than the goal needs.
    const chosen = parseInt(m[1], 10);
    assert.ok(chosen >= 2, summary);
    const fewer = chosen - 1;
    const point = page.locator(`[data-testid=rebalance-point][data-moves="${fewer}"] [data-testid=rebalance-pick]`);
    if (await point.count() === 1) {
      await point.click();
    } else {
      // Not among the table's rows: the same through the form's own limit is the same search.
      await page.fill('[data-testid=rebalance-max-moves]', String(fewer));
      await page.dispatchEvent('[data-testid=rebalance-max-moves]', 'change');
      await page.click('[data-testid=run-rebalance]');
    }
    await page.waitForFunction((k) => document.querySelector('[data-testid=rebalance-summary]')?.textContent
      .startsWith(`${k} move(s)`), fewer, { timeout: 60_000 });
    assert.equal(await moves.count(), fewer);
    assert.match(await page.textContent('[data-testid=rebalance-summary]'), /goal not met/);
    // A drain picked by its short name (a typo first: "did you mean"), said first in the result.
    await page.fill('[data-testid=rebalance-max-moves]', '');
    await page.dispatchEvent('[data-testid=rebalance-max-moves]', 'change');
    await page.fill('[data-testid=rebalance-drain-input]', 'broker-4');
    await page.dispatchEvent('[data-testid=rebalance-drain-input]', 'change');
    assert.match(await page.textContent('[data-testid=rebalance-drain-input-error]'), /did you mean `broker-04\.demo\.svc:8080`/);
    await page.fill('[data-testid=rebalance-drain-input]', 'broker-04');
    await page.dispatchEvent('[data-testid=rebalance-drain-input]', 'change');
    assert.deepEqual(await page.locator('[data-testid=rebalance-drain-chip]').evaluateAll((cs) => cs.map((c) => c.dataset.broker)),
      ['broker-04.demo.svc:8080']);
    await page.click('[data-testid=run-rebalance]');
    await page.waitForSelector('[data-testid=rebalance-drain-status]', { timeout: 60_000 });
    const first = page.locator('[data-testid=rebalance-result] > *').first();
    assert.equal(await first.getAttribute('data-testid'), 'rebalance-drain-status');
    assert.equal(await first.getAttribute('data-empty'), 'true');
    assert.match(await first.textContent(), /^Drained\. broker-04\.demo\.svc:8080 is empty after these moves/);
    assertClean();
  } finally {
    await context.close();
  }
});

/** The demo cluster with Kubernetes-style broker ids (`pulsar-broker-04.pulsar-broker.pulsar.svc.cluster.local:8080`). */
function longIdDemo() {
  const text = JSON.stringify(demo).replace(/broker-(\d\d)\.demo\.svc:8080/g,
    'pulsar-broker-$1.pulsar-broker.pulsar.svc.cluster.local:8080');
  return { name: 'k8s-snapshot.json', mimeType: 'application/json', buffer: Buffer.from(text) };
}

/** The elements of `selector` whose text is cut (ellipsised) in their box. */
async function cutTexts(page, selector) {
  return page.locator(selector).evaluateAll((els) => els
    .filter((e) => e.scrollWidth > e.clientWidth + 1)
    .map((e) => e.textContent));
}

test('long Kubernetes broker ids: short names in the tables, the destination visible, the full id on hover', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const { page, diagnostics, assertClean } = await recordingPage(context);
  try {
    await page.goto(env.baseUrl, { waitUntil: 'load' });
    await waitForRows(page, diagnostics);
    await page.setInputFiles('[data-testid=snapshot-input]', [longIdDemo()]);
    await page.waitForFunction(() => document.querySelector('[data-testid=broker-row]')?.dataset.broker?.includes('svc.cluster.local'),
      null, { timeout: 20_000 });
    // Brokers: each row shows the part that differs, the full id on hover and focus.
    const names = await page.locator('[data-testid=broker-select]').evaluateAll((bs) => bs.map((b) => ({
      text: b.textContent, title: b.title, id: b.closest('tr').dataset.broker,
    })));
    assert.equal(names.length, DEMO_BROKERS);
    for (const n of names) {
      assert.match(n.text, /^pulsar-broker-\d\d$/, JSON.stringify(n));
      assert.equal(n.id, `${n.text}.pulsar-broker.pulsar.svc.cluster.local:8080`);
      assert.ok(n.title.startsWith(n.id), JSON.stringify(n));
    }
    assert.deepEqual(await cutTexts(page, '[data-testid=broker-row] th'), []);
    await screenshotOf(page, '[data-testid=broker-table]', 'brokers-long-ids.png');

    // The plan: From and To are columns of their own; the destination is there, not cut away.
    await page.click('[data-testid=run-plan]');
    await page.waitForSelector('[data-testid=plan-move]', { timeout: 20_000 });
    const moves = await page.locator('[data-testid=plan-move]').evaluateAll((rs) => rs.map((r) => ({
      to: r.querySelector('[data-testid=plan-move-to]').textContent.trim(),
      toTitle: r.querySelector('[data-testid=plan-move-to]').title,
      from: r.querySelector('[data-testid=plan-move-from]').textContent,
      data: [r.dataset.from, r.dataset.to],
    })));
    assert.ok(moves.length > 0);
    for (const m of moves) {
      assert.match(m.to, /^pulsar-broker-\d\d$/, JSON.stringify(m));
      assert.equal(m.toTitle, m.data[1]);
      assert.equal(m.data[0], `${m.from}.pulsar-broker.pulsar.svc.cluster.local:8080`);
    }
    assert.deepEqual(await cutTexts(page, '[data-testid=plan-move-to], [data-testid=plan-move-from]'), []);
    assert.deepEqual(await cutTexts(page, '[data-testid=plan-usage-row] th'), []);
    await screenshotOf(page, '[data-testid=plan]', 'plan-long-ids.png');
    assertClean();
  } finally {
    await context.close();
  }
});

test('Find reads what it is given: a bundle, a range, a short broker name; plan rows link to their bundle', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    await page.waitForSelector('[data-testid=bundle-map][data-draw-ms]', { timeout: 10_000 });
    const find = async (q) => {
      await page.fill('[data-testid=map-search]', q);
      await page.press('[data-testid=map-search]', 'Enter');
      await page.waitForFunction((q) => document.querySelector('[data-testid=map-search-result]')?.textContent.length > 0
        && document.querySelector('[data-testid=map-search]').value === q, q);
      return page.textContent('[data-testid=map-search-result]');
    };
    const chip = async () => (await page.textContent('[data-testid=bundle-chip]')).trim();
    // This bundle name was hashed as a topic and selected 0x50000000_0x58000000.
    const bundle = 'globex/clickstream/0xf0000000_0xf8000000';
    const owner = Object.entries(demo.brokers).find(([, b]) => b.local_broker_data.bundles.includes(bundle))[0];
    assert.equal(await find(bundle), `bundle ${bundle}, owned by ${owner}`);
    await page.waitForFunction((b) => document.querySelector('[data-testid=bundle-chip]')?.textContent.trim() === b, bundle);
    assert.equal((await page.textContent('[data-testid=selection-owner]')).trim(), owner);
    await screenshotOf(page, '.map-panel', 'map-find-bundle.png');

    // A bare range: the bundle, or the namespaces that have it to choose from.
    const range = ['0x00000000', '0x10000000'];
    const having = Object.entries(demo.namespaces).filter(([, n]) => {
      const b = n.bundles.boundaries;
      return b.some((x, k) => x === range[0] && b[k + 1] === range[1]);
    }).map(([ns]) => `${ns}/${range[0]}_${range[1]}`);
    assert.ok(having.length >= 1);
    const note = await find(`${range[0]}_${range[1]}`);
    if (having.length === 1) {
      assert.match(note, new RegExp(`^bundle ${having[0]}`));
    } else {
      assert.equal(note, `${having.length} namespaces have a bundle ${range[0]}_${range[1]}: pick one`);
      const offered = await page.locator('[data-testid=map-search-choice]').evaluateAll((cs) => cs.map((c) => c.dataset.query));
      assert.deepEqual([...offered].sort(), [...having].sort());
      await page.locator('[data-testid=map-search-choice]').nth(1).click();
      await page.waitForFunction((b) => document.querySelector('[data-testid=bundle-chip]')?.textContent.trim() === b, offered[1]);
    }
    // A broker by the short name the tables show.
    assert.equal(await find('broker-04'), 'namespaces with bundles on broker-04 (broker-04.demo.svc:8080)');
    // Ambiguous: several brokers match, the choice is offered.
    assert.match(await find('broker-0'), /^\d+ brokers match `broker-0`: pick one/);
    assert.ok(await page.locator('[data-testid=map-search-choice]').count() >= 2);

    // A plan row's bundle links to it on the map.
    await page.click('[data-testid=run-plan]');
    await page.waitForSelector('[data-testid=plan-move] [data-testid=find-bundle]', { timeout: 20_000 });
    const link = page.locator('[data-testid=plan-move] [data-testid=find-bundle]').last();
    const linked = await link.getAttribute('data-bundle');
    await link.click();
    await page.waitForFunction((b) => document.querySelector('[data-testid=bundle-chip]')?.textContent.trim() === b, linked);
    assert.equal(await page.inputValue('[data-testid=map-search]'), linked);
    assert.ok((await chip()) === linked);
    assertClean();
  } finally {
    await context.close();
  }
});

test('every judgement shown: the verdict\'s warnings on a better plan, a what-if judged against its baseline', async () => {
  const { context, page, diagnostics, assertClean } = await openDashboard();
  try {
    await waitForRows(page, diagnostics);
    await page.click('[data-testid=run-plan]');
    await page.waitForSelector('[data-testid=verdict-banner]', { timeout: 20_000 });
    assert.equal(await page.getAttribute('[data-testid=verdict-banner]', 'data-outcome'), 'better');
    // broker-05 stays at 60.2 %: over an overloaded threshold of 50 %, a warning even on a better plan.
    const overloaded = page.locator('[data-testid=top-loadBalancerBrokerOverloadedThresholdPercentage] input');
    await overloaded.fill('50');
    await overloaded.press('Tab');
    await page.waitForSelector('[data-testid=verdict-warnings] li', { timeout: 20_000 });
    assert.equal(await page.getAttribute('[data-testid=verdict-banner]', 'data-outcome'), 'better');
    // The warning names the broker by its display name, the full id on hover.
    assert.match(await page.textContent('[data-testid=verdict-warnings]'),
      /broker-05 stays over loadBalancerBrokerOverloadedThresholdPercentage \(60\.2%\)/);
    assert.equal(await page.locator('[data-testid=verdict-warnings] .broker-name', { hasText: 'broker-05' }).first()
      .getAttribute('title'), 'broker-05.demo.svc:8080');
    // The edit decides nothing differently: the same balance as the baseline.
    await page.waitForSelector('[data-testid=plan-vs-baseline]', { timeout: 20_000 });
    assert.equal(await page.getAttribute('[data-testid=plan-vs-baseline]', 'data-outcome'), 'no-change');
    // A wider shedding margin moves less: worse than the baseline, and called so.
    const margin = page.locator('[data-testid=top-loadBalancerBrokerThresholdShedderPercentage] input');
    await margin.fill('20');
    await margin.press('Tab');
    await page.waitForFunction(() => document.querySelector('[data-testid=plan-vs-baseline]')?.dataset.outcome === 'worse',
      null, { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid=plan-vs-baseline]'), /^Worse than the baseline: max 60\.2% → /);
    await screenshotOf(page, '[data-testid=plan]', 'plan-judged-against-baseline.png');
    assertClean();
  } finally {
    await context.close();
  }
});
