// End-to-end: the History view with the leader's log. The series is tests/fixtures/history-hot-spike.zip
// (see history.test.mjs: 115 moves over 4 snapshots, every one the replayed leader's);
// tests/fixtures/history-hot-spike-leader.log.gz is a leader's log written for it in Pulsar's line
// formats (Log4j 2's default pattern; 4.0.13's `[ThresholdShedder] Unloading bundle: … from broker …
// to dest broker … {}` for two moves of the first step, master's slog `Unloading bundle from source
// broker to dest broker {bundle=…, class=…, destBroker=…, sourceBroker=…}` for one move of the second,
// an unload of a bundle no snapshot has, a stack-trace line, the election and a last line at the
// series' end), gzip as Log4j rolls it. The series is explained first, then the log is picked: the
// same job runs again with the log's bytes after the series' (as Blobs), inflated in the worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { ROOT, start, recordingPage, waitForRows, screenshotOf, recordWorkerMessages } from './dashboard-helpers.mjs';

const SERIES = path.join(ROOT, 'tests', 'fixtures', 'history-hot-spike.zip');
const LOG = path.join(ROOT, 'tests', 'fixtures', 'history-hot-spike-leader.log.gz');

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

async function waitForLeaderLog(page, diagnostics) {
  await Promise.race([
    page.waitForSelector('[data-testid=history-leader-log]', { timeout: 60_000 }),
    page.waitForSelector('[data-testid=history-error]', { timeout: 60_000 }).then(async () => {
      assert.fail(`history error: ${await page.textContent('[data-testid=history-error]')}\n${diagnostics()}`);
    }),
  ]);
}

test('a leader log beside the series: confirmed, no change, not logged, skipped lines', { timeout: 180_000 }, async () => {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.addInitScript(recordWorkerMessages);
  const { page, diagnostics, assertClean } = await recordingPage(context);
  try {
    await page.goto(env.baseUrl, { waitUntil: 'load' });
    await waitForRows(page, diagnostics);
    await page.click('[data-testid=sections-nav] a:has-text("History")');
    await page.setInputFiles('[data-testid=history-files-input]', SERIES);
    await page.waitForSelector('[data-testid=history-change]', { timeout: 60_000 });
    assert.equal(await page.locator('[data-testid=history-leader-log]').count(), 0);
    const explained = await page.textContent('[data-testid=history-explained]');
    const [, predicted] = explained.match(/\((\d+) of (\d+)\)/).map(Number);
    await page.setInputFiles('[data-testid=history-leader-log-input]', LOG);
    assert.match(await page.textContent('[data-testid=history-leader-log-picked]'), /history-hot-spike-leader\.log\.gz/);
    await waitForLeaderLog(page, diagnostics);
    const summary = await page.textContent('[data-testid=history-log-summary]');
    assert.match(summary, /^1 file\(s\), 7 lines, 4 actions \(0 failed\); confirmed 3, by the leader but not predicted 0, logged with no change 1, predicted but not logged (\d+); leader named: broker-0000\.pulsar\.svc:8080$/);
    // Every other move the replay gave to the leader happened while the log was written.
    assert.equal(Number(summary.match(/predicted but not logged (\d+)/)[1]), predicted - 3);
    const rows = (list) => page.locator(`[data-testid=history-log-row][data-list=${list}]`)
      .evaluateAll((els) => els.map((e) => e.dataset.bundle));
    assert.deepEqual(await rows('confirmed'), [
      'tenant-7/ns-0017/0x20000000_0x30000000',
      'tenant-1/ns-0031/0x00000000_0x10000000',
      'tenant-0/ns-0020/0x20000000_0x30000000',
    ]);
    assert.deepEqual(await rows('no-change'), ['tenant-9/ns-0099/0x00000000_0x10000000']);
    // A bounded list: 50 rows shown, the rest counted.
    assert.equal((await rows('not-logged')).length, 50);
    assert.match(await page.textContent('[data-testid=history-log-not-logged]'), new RegExp(`… ${predicted - 3 - 50} more`));
    assert.match(await page.textContent('[data-testid=history-log-clock]'), /^Clocks agree within 10 s \(median offset 0\.0 s over 3 actions\)/);
    assert.match(await page.textContent('[data-testid=history-log-skipped]'), /history-hot-spike-leader\.log\.gz: skipped lines: no_timestamp 1$/);
    // A click on a confirmed row shows its moment (the master line's move is of the second step).
    await page.locator('[data-testid=history-log-row][data-list=confirmed]').nth(2).click();
    assert.match(await page.textContent('[data-testid=history-instant]'), /^snapshot 2 of 4/);
    // Two jobs; the second names the series and the log, both sent as Blobs.
    const jobs = (await page.evaluate(() => window.__toWorkers)).filter((m) => m.type === 'history');
    assert.equal(jobs.length, 2, JSON.stringify(jobs));
    assert.deepEqual(jobs[1].files, [`Blob:${fs.statSync(SERIES).size}`, `Blob:${fs.statSync(LOG).size}`]);
    assertClean();
  } finally {
    await screenshotOf(page, '[data-testid=history-leader-log]', 'history-leader-log.png');
    await context.close();
  }
});
