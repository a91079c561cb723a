// End-to-end: the History view from Prometheus, without a recorded series. The `/api/v1/query_range`
// answers a portal or `curl` fetched (tests/e2e/prometheus-answers.mjs: the demo cluster's brokers at
// two one-minute steps, one bundle owned by another broker at the second) are picked as files with
// the demo snapshot as the layout; the worker builds the series and explains it as
// `lbplan history --prometheus` does, and the view says it is built from Prometheus and what that
// means. Then the leader's log is picked: the move the replay leaves unexplained is listed as the
// leader's own. The page reads the files only; it calls no server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { start, recordingPage, waitForRows, screenshotOf } from './dashboard-helpers.mjs';
import { answers, DEMO_PATH, ids, moved, leaderLogText } from './prometheus-answers.mjs';

let env;
let dir;
before(async () => {
  env = await start();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbplan-prom-e2e-'));
});
after(async () => {
  await env?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('History from Prometheus range results, then with the leader\'s log', { timeout: 180_000 }, async () => {
  const files = answers().map((a) => {
    const file = path.join(dir, `${a.metric}.json`);
    fs.writeFileSync(file, JSON.stringify(a.response));
    return file;
  });
  const log = path.join(dir, 'leader.log');
  fs.writeFileSync(log, leaderLogText());
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const { page, diagnostics, assertClean } = await recordingPage(context);
  try {
    await page.goto(env.baseUrl, { waitUntil: 'load' });
    await waitForRows(page, diagnostics);
    await page.click('[data-testid=sections-nav] a:has-text("History")');
    await page.click('[data-testid=history-prometheus] summary');
    await page.setInputFiles('[data-testid=history-layout-input]', DEMO_PATH);
    assert.equal(await page.textContent('[data-testid=history-layout-picked]'), 'demo-snapshot.json');
    await page.setInputFiles('[data-testid=history-prometheus-input]', files);
    await Promise.race([
      page.waitForSelector('[data-testid=history-change]', { timeout: 60_000 }),
      page.waitForSelector('[data-testid=history-error]', { timeout: 60_000 }).then(async () => {
        assert.fail(`history error: ${await page.textContent('[data-testid=history-error]')}\n${diagnostics()}`);
      }),
    ]);
    const basis = await page.textContent('[data-testid=history-basis]');
    assert.match(basis, /built from Prometheus \(2 steps queried, 0 left out as gaps\): causes are consistent with the leader/);
    assert.match(basis, /BundleData and smoothed averages are derived/);
    const changes = await page.locator('[data-testid=history-change]').allTextContents();
    assert.equal(changes.length, 1, changes.join('\n'));
    assert.ok(changes[0].includes(moved) && changes[0].includes('unexplained'), changes[0]);
    assert.match(await page.textContent('[data-testid=history-explained]'), /\(0 of 1\)/);

    await page.setInputFiles('[data-testid=history-leader-log-input]', log);
    await page.waitForSelector('[data-testid=history-leader-log]', { timeout: 60_000 });
    const summary = await page.textContent('[data-testid=history-log-summary]');
    assert.match(summary, /^1 file\(s\), 3 lines, 1 actions \(0 failed\); confirmed 0, by the leader but not predicted 1, logged with no change 0, predicted but not logged 0; leader named: /);
    assert.ok(summary.endsWith(ids[0]), summary);
    // The basis is still Prometheus: the log was merged with the same series.
    assert.match(await page.textContent('[data-testid=history-basis]'), /built from Prometheus/);
    assertClean();
  } finally {
    await screenshotOf(page, '[data-testid=history-view]', 'history-from-prometheus.png');
    await context.close();
  }
});
