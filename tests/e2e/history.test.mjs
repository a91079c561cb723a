// End-to-end: the History view. A series recorded by `lbplan simulate builtin:demo --scenario
// hot-spike --cycles 4 --seed 7 --compare "name=t;loadBalancerLoadSheddingStrategy=ThresholdShedder;
// loadBalancerLoadPlacementStrategy=LeastLongTermMessageRate" --record-series history-hot-spike`,
// zipped (tests/fixtures/history-hot-spike.zip; recorded when `builtin:demo` was still the
// simulator's 20-broker cluster, before it became the dashboard's demo: any recorded series will
// do), is uploaded; the worker explains it and the page shows the moves with their causes, a
// click shows a reason, the slider moves the instant (redrawing each map's cursor, not its cells)
// and the namespace maps are drawn. The History view needs no loaded snapshot, and the series'
// files reach the worker as Blobs, unread.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { ROOT, start, recordingPage, waitForRows, screenshotOf, recordWorkerMessages } from './dashboard-helpers.mjs';

const FIXTURE = path.join(ROOT, 'tests', 'fixtures', 'history-hot-spike.zip');

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

test('a recorded series: moves with causes, a reason on click, the slider, the maps', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const { page, diagnostics, assertClean } = await recordingPage(context);
  try {
    await page.goto(env.baseUrl, { waitUntil: 'load' });
    await waitForRows(page, diagnostics);
    await page.click('[data-testid=sections-nav] a:has-text("History")');
    await page.setInputFiles('[data-testid=history-files-input]', FIXTURE);
    await Promise.race([
      page.waitForSelector('[data-testid=history-change]', { timeout: 60_000 }),
      page.waitForSelector('[data-testid=history-error]', { timeout: 60_000 }).then(async () => {
        assert.fail(`history error: ${await page.textContent('[data-testid=history-error]')}\n${diagnostics()}`);
      }),
    ]);
    // The simulator's own leader made every move: the replayed leader explains them all.
    assert.match(await page.textContent('[data-testid=history-explained]'), /^100\.0 %/);
    // The load model checked against the series: one row per resource the model predicts, each
    // with as many predictions as sources and destinations of the steps with moves.
    const model = await page.locator('[data-testid=history-model-row]').evaluateAll(
      (rows) => rows.map((r) => [r.dataset.resource, Number(r.children[1].textContent)]));
    assert.deepEqual(model.map(([r]) => r), ['cpu', 'memory', 'direct_memory', 'bandwidth_in', 'bandwidth_out']);
    assert.ok(model.every(([, n]) => n > 0 && n === model[0][1]), JSON.stringify(model));
    // What the leader did: the brokers with the most moves (10 of the 11 that moved bundles), each
    // move one broker's "received" and another's "given away"; no bundle went back and forth.
    const brokers = await page.locator('[data-testid=history-broker]').evaluateAll(
      (rows) => rows.map((r) => [Number(r.children[1].textContent), Number(r.children[3].textContent)]));
    assert.equal(brokers.length, 10);
    assert.match(await page.textContent('[data-testid=history-brokers] caption'), /of 11$/);
    assert.ok(brokers.every(([i, o]) => i + o > 0), JSON.stringify(brokers));
    assert.match(await page.textContent('[data-testid=history-ping-pong-count]'), /^No ping-pong/);
    const causes = await page.locator('[data-testid=history-change]').evaluateAll(
      (els) => els.map((e) => e.dataset.cause));
    assert.ok(causes.length > 0 && causes.length <= 100, `a page of at most 100 rows: ${causes.length}`);
    assert.ok(causes.every((c) => c === 'leader_shedding'), causes.join(','));
    // A click shows the leader's full reason.
    await page.locator('[data-testid=history-change]').first().click();
    const reason = await page.textContent('[data-testid=history-reason-text]');
    assert.match(reason, /leader shedding/);
    assert.match(reason, /ThresholdShedder/);
    // The slider moves the instant (the click moved it to the change's snapshot: 2 of 4).
    assert.match(await page.textContent('[data-testid=history-instant]'), /^snapshot 2 of 4/);
    // Each namespace map's cells were drawn once; moving the instant redraws only its cursor
    // (its own canvas over the cells), not the cells.
    const draws = () => page.locator('[data-testid=history-map]').evaluateAll((cs) => cs.map((c) => c.dataset.draws));
    const drawn = await draws();
    assert.ok(drawn.length > 0 && drawn.every((d) => d === '1'), `cells drawn once each: ${drawn}`);
    await page.locator('[data-testid=history-slider]').fill('3');
    assert.match(await page.textContent('[data-testid=history-instant]'), /^snapshot 4 of 4 — minute 3/);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.deepEqual(await draws(), drawn);
    const cursorX = await page.locator('[data-testid=history-cursor]').first().evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let x = -1;
      for (let i = 0; i < c.width; i += 1) if (d[(Math.floor(c.height / 2) * c.width + i) * 4 + 3] > 0) x = i;
      return x / c.width;
    });
    // The last of 4 snapshots: the cursor is in the right half.
    assert.ok(cursorX > 0.5, `cursor at ${cursorX} of the width`);
    assert.match(await page.locator('[data-testid=history-owners]').first().textContent(),
      /owners at this instant: \S+ ×\d+/);
    // Every shown namespace map has cells and its canvas is drawn (more than the background).
    const lanes = await page.locator('[data-testid=history-map]').count();
    assert.ok(lanes > 0);
    const colours = await page.locator('[data-testid=history-map]').first().evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < d.length; i += 4) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
      return seen.size;
    });
    assert.ok(colours > 2, `the map shows owners: ${colours} colours`);
    assert.equal(await page.locator('[data-testid=simulation-chart][data-chart=broker-usage]').count(), 1);
    // The one chart component, counting snapshots here (cycles in the simulation).
    assert.match(await page.getAttribute('[data-testid=simulation-chart][data-chart=broker-usage]', 'aria-label'),
      /over 4 snapshots$/);
    assertClean();
  } finally {
    await screenshotOf(page, '[data-testid=history-view]', 'history.png');
    await context.close();
  }
});

test('with no snapshot loaded, a series is explained from files sent as Blobs', { timeout: 120_000 }, async () => {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.addInitScript(recordWorkerMessages);
  const { page, diagnostics } = await recordingPage(context);
  try {
    // A URL that is not a snapshot: the import fails, nothing is loaded.
    await page.goto(`${env.baseUrl}?snapshot=index.html`, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=error-banner]', { timeout: 30_000 });
    assert.equal(await page.locator('[data-testid=broker-row]').count(), 0);
    await page.setInputFiles('[data-testid=history-files-input]', FIXTURE);
    await Promise.race([
      page.waitForSelector('[data-testid=history-change]', { timeout: 60_000 }),
      page.waitForSelector('[data-testid=history-error]', { timeout: 60_000 }).then(async () => {
        assert.fail(`history error: ${await page.textContent('[data-testid=history-error]')}\n${diagnostics()}`);
      }),
    ]);
    assert.match(await page.textContent('[data-testid=history-explained]'), /^100\.0 %/);
    // One request naming the file, the zip beside it as a Blob: no bytes inside the JSON.
    const jobs = (await page.evaluate(() => window.__toWorkers)).filter((m) => m.type === 'history');
    assert.equal(jobs.length, 1, JSON.stringify(jobs));
    assert.deepEqual(jobs[0].files, [`Blob:${fs.statSync(FIXTURE).size}`]);
    assert.ok(jobs[0].chars < 500, `the history request is ${jobs[0].chars} characters`);
  } finally {
    await context.close();
  }
});
