// The upgrade panel on the demo, whose brokers report 4.0.7 with broker-00 the leader: upgrading to
// 5.0.0 shows what `lbplan upgrade static/demo-snapshot.json --to 5.0.0 --cycles 10` shows — the
// 5.0 defaults (#26609 / #26610) among the rows that differ, each changed decision attributed to
// them (the demo's ThresholdShedder gives way to AvgShedder), both releases simulated, 32 bundles
// for a new namespace and 64 for a system namespace, and the broker.conf lines that keep today's
// defaults (maxUnloadPercentage 0.2 instead of 5.0's 0.5). The preview runs in a worker of its own
// (the snapshot's file from the plan worker beside the request) with progress; its JSON is the
// CLI's byte for byte, computed here by the CLI; and Cancel terminates the worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  DIST, start, recordingPage, recordWorkerMessages, waitForRows, screenshotOf, lbplan,
} from './dashboard-helpers.mjs';

// The panel simulates 10 cycles under each release (web/src/components/upgrade_panel/mod.rs).
const CYCLES = 10;

// The workers' wasm, served here so a test can hold it back: a job worker then stays "starting"
// until released, long enough to cancel it. Never cached, so every worker asks for it.
let held = null;
function workerWasm(req, res, url) {
  if (url.pathname !== '/lbplan-worker_bg.wasm') return false;
  const send = () => fs.readFile(path.join(DIST, 'lbplan-worker_bg.wasm'), (err, body) => {
    if (err) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/wasm', 'cache-control': 'no-store' }).end(body);
  });
  if (held) {
    held.requested();
    held.released.then(send);
  } else {
    send();
  }
  return true;
}

let env;
let cliText;
let cli;
before(async () => {
  cliText = lbplan(['upgrade', 'static/demo-snapshot.json', '--to', '5.0.0', '--cycles', String(CYCLES), '--format', 'json']);
  cli = JSON.parse(cliText);
  env = await start(workerWasm);
});
after(async () => { await env?.close(); });

/** Records every text the progress line shows (`window.__upgradeProgress`). */
function recordProgress() {
  window.__upgradeProgress = [];
  new MutationObserver(() => {
    const t = document.querySelector('[data-testid=upgrade-progress-text]')?.textContent;
    if (t && window.__upgradeProgress.at(-1) !== t) window.__upgradeProgress.push(t);
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}

test('the upgrade panel previews 4.0.7 → 5.0.0 on the demo in a worker, as lbplan upgrade does', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  await context.addInitScript(recordWorkerMessages);
  const { page, diagnostics, assertClean } = await recordingPage(context);
  try {
    await page.goto(env.baseUrl, { waitUntil: 'load' });
    await waitForRows(page, diagnostics);
    await page.evaluate(recordProgress);
    await page.selectOption('[data-testid=upgrade-target]', '5.0.0');
    await page.click('[data-testid=upgrade-run]');
    await page.locator('[data-testid=upgrade-result]').waitFor({ timeout: 60_000 })
      .catch(() => assert.fail(`no preview\n${diagnostics()}`));
    assert.equal(await page.locator('[data-testid=upgrade-running]').count(), 0);

    // Off the page's thread: an `upgrade` request to a worker that is not the plan worker, the
    // snapshot beside it as the plan worker's file (transferred), never inside it.
    const sent = await page.evaluate(() => window.__toWorkers);
    const planWorker = sent.find((m) => m.type === 'import')?.worker;
    const upgrade = sent.filter((m) => m.type === 'upgrade');
    assert.equal(upgrade.length, 1, JSON.stringify(sent));
    assert.notEqual(upgrade[0].worker, planWorker);
    assert.equal(upgrade[0].snapshot, false);
    assert.equal(upgrade[0].transferred, 1);
    assert.match(upgrade[0].files.join(), /^ArrayBuffer:\d+$/);
    assert.ok(sent.some((m) => m.type === 'snapshot_file' && m.worker === planWorker), JSON.stringify(sent));

    // Progress: the steps are the two plans and each simulated cycle under both releases.
    const steps = 2 + cli.simulated.length * cli.cycles;
    const seen = await page.evaluate(() => window.__upgradeProgress);
    assert.ok(seen.length > 0, 'the progress line showed');
    for (const t of seen) assert.match(t, new RegExp(`^\\d+ of ${steps} steps · `), t);
    assert.ok(seen.some((t) => / · (planning this cycle under|simulating cycle \d+ of \d+ under) /.test(t)),
      `a step the worker reported: ${seen.join(' | ')}`);

    // What the CLI printed, as the panel shows it.
    assert.equal(await page.textContent('[data-testid=upgrade-headline]'),
      `Upgrade ${cli.from.release} → ${cli.to} (${cli.from.why})`);
    assert.equal(cli.from.release, '4.0.7');
    assert.match(await page.textContent('[data-testid=upgrade-headline]'),
      /^Upgrade 4\.0\.7 → 5\.0\.0 \(the leader broker-00\.demo\.svc:8080 reports 4\.0\.7/);
    const changes = await page.locator('[data-testid=upgrade-changes] li').allTextContents();
    assert.deepEqual(changes, cli.changes.map((c) =>
      `${c.direction} ${c.prs}: ${c.summary}${c.applies ? '' : ' (not used by this cluster)'}`));
    assert.ok(changes.some((c) => /^gained apache\/pulsar#26609 \/ #26610: 5\.0 defaults/.test(c)), changes.join('\n'));
    assert.ok(changes.some((c) => /^gained apache\/pulsar#24954/.test(c)), changes.join('\n'));
    const decisions = await page.locator('[data-testid=upgrade-decisions] li').allTextContents();
    const d = cli.decisions;
    assert.equal(decisions.length, d.moves_added.length + d.moves_removed.length + d.moves_changed.length);
    assert.ok(decisions.length > 0, 'changed decisions listed');
    for (const line of decisions) assert.ok(line.endsWith('[apache/pulsar#26609 / #26610]'), line);
    const sims = await page.locator('[data-testid=upgrade-simulated] tbody tr').evaluateAll((rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    assert.deepEqual(sims.map((r) => r[0]), ['4.0.7', '5.0.0']);
    assert.deepEqual(sims.map((r) => [r[0], Number(r[1]), Number(r[3])]),
      cli.simulated.map((s) => [s.release, s.summary.total_unloads, s.summary.total_thrashing]));
    assert.deepEqual(await page.locator('[data-testid=upgrade-new-namespaces] li').allTextContents(),
      cli.new_namespaces.map((n) => `${n.release}: ${n.namespace_bundles} (${n.system_namespace_bundles})`));
    assert.deepEqual(await page.locator('[data-testid=upgrade-new-namespaces] li').allTextContents(),
      ['4.0.7: 4 (4)', '5.0.0: 32 (64)']);
    const keep = (await page.textContent('[data-testid=upgrade-keep-today]')).split('\n');
    assert.deepEqual(keep, cli.keep_today);
    for (const line of [
      'maxUnloadPercentage=0.2',
      'loadBalancerDistributeBundlesEvenlyEnabled=true',
      'defaultNumberOfNamespaceBundles=4',
      'defaultNumberOfSystemNamespaceBundles=4',
    ]) assert.ok(keep.includes(line), `${line} in ${keep.join(' | ')}`);
    await screenshotOf(page, '[data-testid=upgrade-panel]', 'upgrade-panel.png');

    // The whole preview: its JSON is what the CLI printed, byte for byte.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid=upgrade-download]'),
    ]);
    assert.equal(download.suggestedFilename(), 'lbplan-upgrade-4.0.7-to-5.0.0.json');
    const saved = fs.readFileSync(await download.path(), 'utf8');
    assert.deepEqual(JSON.parse(saved), cli);
    assert.equal(saved, cliText);

    // 4.0.7 → 4.0.8 on ThresholdShedder: only #24954 differs and nothing this cluster runs reads it.
    await page.selectOption('[data-testid=upgrade-target]', '4.0.8');
    await page.click('[data-testid=upgrade-run]');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=upgrade-headline]')?.textContent.includes('→ 4.0.8'));
    assert.match(await page.textContent('[data-testid=upgrade-changes]'),
      /^gained apache\/pulsar#24954: .*\(not used by this cluster\)$/);
    assert.equal(await page.textContent('[data-testid=upgrade-decisions]'), 'The same under both releases.');

    // Cancel: the job worker held while it starts (its wasm not yet served) is terminated, and
    // nothing arrives once it could have run.
    let release;
    const requested = new Promise((asked) => {
      held = { requested: asked, released: new Promise((r) => { release = r; }) };
    });
    const spawned = page.waitForEvent('worker', { timeout: 30_000 });
    await page.selectOption('[data-testid=upgrade-target]', '5.0.0');
    await page.click('[data-testid=upgrade-run]');
    const worker = await spawned;
    const closed = new Promise((r) => worker.once('close', r));
    await requested;
    assert.match(await page.textContent('[data-testid=upgrade-progress-text]'),
      new RegExp(`^0 of ${steps} steps · starting the worker · `));
    await page.click('[data-testid=upgrade-cancel]');
    assert.equal(await page.textContent('[data-testid=upgrade-note]'),
      `Cancelled after 0 of ${steps} steps; the worker was stopped.`);
    assert.equal(await page.locator('[data-testid=upgrade-running]').count(), 0);
    await Promise.race([closed, page.waitForTimeout(10_000).then(() => assert.fail('the worker was not terminated'))]);
    held = null;
    release();
    await page.waitForTimeout(1_000);
    assert.equal(await page.locator('[data-testid=upgrade-result]').count(), 0);
    assert.equal(await page.locator('[data-testid=upgrade-error]').count(), 0);
    assertClean();
  } finally {
    held = null;
    await context.close();
  }
});
