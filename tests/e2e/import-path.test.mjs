// End-to-end: one import path. Every snapshot the dashboard shows is imported in the plan worker,
// and no snapshot is serialised on the page to reach a worker. A script installed before the
// page's own wraps `Worker.prototype.postMessage` and records each message the page sends to a
// worker (its request type, whether the request carries a snapshot, the files beside it and the
// buffers transferred). The demo arrives as an `import` with its file as a Blob; a snapshot given
// by a host page (the embed portal's read-only planner, set as an object) as an `import` with the
// text in one Blob; a simulation and a rebalance proposal name the snapshot the plan worker
// holds, the simulation getting its bytes from that worker (`snapshot_file`) beside a request with
// no snapshot in it. When the plan worker dies, the next job gives a new worker the snapshot's
// files again (a `restore` import), never the page's snapshot. The worker's answers that grow with
// the snapshot (its parts, plans and their rows' parts, proposals) come back as bytes in
// transferred buffers, not text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, start, recordingPage, waitForRows, recordWorkerMessages } from './dashboard-helpers.mjs';

const demoText = fs.readFileSync(path.join(ROOT, 'static', 'demo-snapshot.json'), 'utf8');

let env;
before(async () => { env = await start(); });
after(async () => { await env?.close(); });

const sent = (page) => page.evaluate(() => window.__toWorkers);
const received = (page) => page.evaluate(() => window.__fromWorkers);
// The answers that grow with the snapshot, sent as UTF-8 bytes in a transferred ArrayBuffer.
// A plan's rows come ahead of it in `plan_rows` parts (crates/worker/src/plan_parts.rs).
const BYTES = ['snapshot_part', 'plan_rows', 'planned', 'proposed'];

async function openWith(url) {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.addInitScript(recordWorkerMessages);
  const rec = await recordingPage(context);
  await rec.page.goto(url, { waitUntil: 'load' });
  return { context, ...rec };
}

test('the demo is imported in the worker; simulation and rebalance get no snapshot from the page', { timeout: 120_000 }, async () => {
  const { context, page, diagnostics, assertClean } = await openWith(env.baseUrl);
  try {
    await waitForRows(page, diagnostics);
    const imports = (await sent(page)).filter((m) => m.type === 'import');
    assert.deepEqual(imports.map((m) => m.files), [[`Blob:${Buffer.byteLength(demoText)}`]], JSON.stringify(await sent(page)));

    // A short simulation: the plan worker writes the snapshot's file, the simulation worker gets it
    // transferred beside a request that holds no snapshot.
    await page.locator('[data-testid=simulation-cycles]').evaluate((el) => {
      el.value = '5';
      el.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await page.click('[data-testid=run-simulation]');
    await page.waitForSelector('[data-testid=simulation-results]', { timeout: 60_000 })
      .catch(async (e) => assert.fail(`${e}\n${JSON.stringify(await sent(page))}\n${diagnostics()}`));
    const log = await sent(page);
    assert.equal(log.filter((m) => m.type === 'snapshot_file').length, 1, JSON.stringify(log));
    const sims = log.filter((m) => m.type === 'simulate');
    assert.equal(sims.length, 1, JSON.stringify(log));
    assert.equal(sims[0].snapshot, false);
    assert.equal(sims[0].transferred, 1);
    assert.match(sims[0].files[0], /^ArrayBuffer:\d+$/);
    assert.ok(Number(sims[0].files[0].split(':')[1]) > 50_000, sims[0].files[0]);
    assert.ok(sims[0].chars < 20_000, `the simulate request is ${sims[0].chars} characters`);

    // A rebalance proposal names the snapshot the plan worker holds.
    await page.click('[data-testid=run-rebalance]');
    await page.waitForSelector('[data-testid=rebalance-result], [data-testid=rebalance-error]', { timeout: 60_000 });
    const proposals = (await sent(page)).filter((m) => m.type === 'rebalance');
    assert.equal(proposals.length, 1);
    assert.equal(proposals[0].snapshot, false);
    // Nothing the page sent carried a snapshot.
    assert.deepEqual((await sent(page)).filter((m) => m.snapshot), []);
    // The snapshot's parts and the proposal came back as bytes in transferred buffers, not text.
    const answers = await received(page);
    assert.ok(answers.some((m) => m.type === 'snapshot_part'), JSON.stringify(answers));
    assert.ok(answers.some((m) => m.type === 'proposed'), JSON.stringify(answers));
    assert.deepEqual(answers.filter((m) => BYTES.includes(m.type) && m.as !== 'bytes'), []);
    assertClean();
  } finally {
    await context.close();
  }
});

test('plans made in the worker come back as bytes, not text', { timeout: 120_000 }, async () => {
  // Every plan in the worker (`planWorkerFrom=0`), as at 20,000 bundles and more.
  const { context, page, diagnostics, assertClean } = await openWith(`${env.baseUrl}?planWorkerFrom=0`);
  try {
    await waitForRows(page, diagnostics);
    await page.click('[data-testid=run-plan]');
    await page.waitForSelector('[data-testid=plan-move]', { timeout: 30_000 });
    await page.waitForFunction(() => window.__fromWorkers.some((m) => m.type === 'planned'), null, { timeout: 30_000 })
      .catch(async (e) => assert.fail(`${e}\n${JSON.stringify(await received(page))}\n${diagnostics()}`));
    const answers = await received(page);
    const planned = answers.filter((m) => m.type === 'planned');
    assert.ok(planned.length >= 1);
    assert.ok(planned.every((m) => m.as === 'bytes' && m.size > 1000), JSON.stringify(planned));
    // The plan's moves (with their explanations) came first, in parts, then the plan.
    const first = answers.findIndex((m) => m.type === 'planned');
    assert.ok(answers.slice(0, first).some((m) => m.type === 'plan_rows'), JSON.stringify(answers));
    assert.deepEqual(answers.filter((m) => BYTES.includes(m.type) && m.as !== 'bytes'), []);
    // Small answers stay text (the worker's `ready`, the import's warnings).
    assert.ok(answers.some((m) => m.type === 'ready' && m.as === 'text'), JSON.stringify(answers));
    assertClean();
  } finally {
    await context.close();
  }
});

test('a snapshot given by the host page is imported in the worker from a Blob', { timeout: 120_000 }, async () => {
  const { context, page, diagnostics, assertClean } = await openWith(`${env.baseUrl}static/embed-demo.html`);
  try {
    for (const id of ['#planner-prod', '#planner-staging']) {
      await page.waitForSelector(`${id} [data-testid=broker-row]`, { timeout: 30_000 })
        .catch(async (e) => assert.fail(`${e}\n${JSON.stringify(await sent(page))}\n${diagnostics()}`));
    }
    const imports = (await sent(page)).filter((m) => m.type === 'import');
    // One per planner: the portal's snapshot-url as a Blob, the read-only planner's object as text
    // encoded once and moved.
    assert.equal(imports.length, 2, JSON.stringify(imports));
    // Both as Blobs: the given text encoded once, a handle the page can send a new worker again.
    assert.ok(imports.every((m) => m.files.length === 1 && m.files[0].startsWith('Blob:')), JSON.stringify(imports));
    assert.ok(imports.every((m) => m.transferred === 0), JSON.stringify(imports));
    assert.deepEqual((await sent(page)).filter((m) => m.snapshot), []);
    assertClean();
  } finally {
    await context.close();
  }
});

test('after the plan worker dies, a simulation gets the snapshot from a new worker given the files again', { timeout: 120_000 }, async () => {
  const { context, page, diagnostics } = await openWith(env.baseUrl);
  try {
    await waitForRows(page, diagnostics);
    const first = (await sent(page)).filter((m) => m.type === 'import');
    assert.equal(first.length, 1, JSON.stringify(first));
    // The plan worker crashes (as when it runs out of memory): the page hears its error event.
    await page.evaluate((k) => {
      const w = window.__workers[k];
      w.terminate();
      w.dispatchEvent(new ErrorEvent('error', { message: 'crashed by the test', cancelable: true }));
    }, first[0].worker);
    await page.locator('[data-testid=simulation-cycles]').evaluate((el) => {
      el.value = '5';
      el.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await page.click('[data-testid=run-simulation]');
    await page.waitForSelector('[data-testid=simulation-results]', { timeout: 60_000 })
      .catch(async (e) => assert.fail(`${e}\n${JSON.stringify(await sent(page))}\n${diagnostics()}`));
    const log = await sent(page);
    // A second import, to a new worker, of the same file as a Blob, asking for no parts back.
    const imports = log.filter((m) => m.type === 'import');
    assert.equal(imports.length, 2, JSON.stringify(log));
    assert.notEqual(imports[1].worker, imports[0].worker);
    assert.equal(imports[1].restore, true);
    assert.deepEqual(imports[1].files, imports[0].files);
    const file = log.filter((m) => m.type === 'snapshot_file');
    assert.equal(file.length, 1, JSON.stringify(log));
    assert.equal(file[0].worker, imports[1].worker);
    // Nothing the page sent carried a snapshot.
    assert.deepEqual(log.filter((m) => m.snapshot), [], JSON.stringify(log));
    // The rows the loaded snapshot shows are still there: the page's snapshot was not replaced.
    assert.ok(await page.locator('[data-testid=broker-row]').count() > 0);
  } finally {
    await context.close();
  }
});
