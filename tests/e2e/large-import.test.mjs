// End-to-end: a large upload never blocks the page's thread. The demo cluster's tenants copied
// until it has ~200,000 bundles (a ~123 MiB snapshot file, built here from the committed demo) is
// uploaded through the file input; the plan worker imports it and hands the snapshot back in parts
// (web/src/worker_import.rs). A PerformanceObserver('longtask') installed before the page's own
// scripts records every task over 50 ms from the upload until the snapshot is shown; the longest
// must stay under LONG_TASK_BOUND_MS, and so during the first plan and one what-if edit. Then a
// reload restores it from IndexedDB (the kept files, imported again in the worker) with the same
// counts. A second case does upload → show → first plan → what-if edit at 1,000 brokers with
// Kubernetes-style ids and 200,000 bundles (`lbplan generate --spec large`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, ARTIFACTS, start, recordingPage, screenshotOf, lbplan } from './dashboard-helpers.mjs';
import { startTrace, stopTrace, longTasks, report, heaviest } from './page-trace.mjs';

// The longest page task allowed while importing and showing the snapshot, and while planning it
// and editing the plan. Measured on the 2-core machine (release build, load average 6): 103 ms,
// see docs/performance.md, "Round 9: the page's thread, continued".
const LONG_TASK_BOUND_MS = Number(process.env.LBPLAN_LONG_TASK_BOUND_MS ?? 300);

// How many times the demo's tenants are copied: 1,625 gives ~200,000 bundles, the size the dashboard's speed goal
// asks the page to stay responsive at (≈ 20 s in the suite, docs/performance.md, Round 24);
// LBPLAN_LARGE_COPIES=325 gives ~40,000 for a quicker local run.
const COPIES = Number(process.env.LBPLAN_LARGE_COPIES ?? 1625);
// Waits and the test's own timeout grow with the size.
const SCALE = Math.max(1, COPIES / 325);
// A DevTools trace of the import and show, and of the plan and edit (page-trace.mjs): it says what
// made each long task, and its CPU time. The budget is 50 ms per task on the page's thread; on the
// shared 2-core machines a task's wall time also counts the wait for a core, so the wall bound
// above is loose and the budget is asserted on the CPU the page's thread spent in each task.
// LBPLAN_TRACE=0 runs without the trace (and without that check).
const TRACE = process.env.LBPLAN_TRACE !== '0';
const PAGE_CPU_BUDGET_MS = 50;
// What fails the test: a task that computed for the budget or more. Since the plan and its export
// are shown in steps a frame apart and the bundle map draws a page's change in a task of its own
// (docs/performance.md, "The plan shown in steps"), the heaviest task of either case computes for
// at most ≈ 35 ms on the 2-core machine, a busy loop on the other core or not. Before, the frame
// that first showed the plan computed for 45–86 ms from run to run. LBPLAN_PAGE_CPU_FAIL_MS
// raises the bound for a run on a slower machine.
const PAGE_CPU_FAIL_MS = Number(process.env.LBPLAN_PAGE_CPU_FAIL_MS ?? PAGE_CPU_BUDGET_MS);

/** Every long task of a traced window computed for less than the fail bound (and says which
 * exceeded the budget). */
function assertComputesUnderBudget(label, r, failMs = PAGE_CPU_FAIL_MS) {
  assert.ok(!r.error, `${label}: ${r.error}`);
  for (const t of r.long) {
    assert.notEqual(t.cpu, null, `${label}: the trace has no CPU time for a ${t.dur.toFixed(0)} ms task`);
    const what = `${label}: a page task computed for ${t.cpu.toFixed(1)} ms (${t.dur.toFixed(0)} ms wall, ${t.cause})`;
    if (t.cpu >= PAGE_CPU_BUDGET_MS) console.log(`${what}, over the ${PAGE_CPU_BUDGET_MS} ms budget`);
    assert.ok(t.cpu < failMs, `${what} ≥ ${failMs} ms`);
  }
}

// Elements on the loaded page at this size, at most (document.getElementsByTagName('*')), and
// with the plan shown: the first frame's style and layout grow with them. Before the lists were
// virtualised they were 2,089 and 2,435 (200 namespace rows, 100 rows a plan group); after, ≈ 730
// and ≈ 1,050 (docs/performance.md, Round 28).
const DOM_ELEMENTS_CAP = Number(process.env.LBPLAN_DOM_ELEMENTS_CAP ?? 1_000);
const DOM_ELEMENTS_PLAN_CAP = Number(process.env.LBPLAN_DOM_ELEMENTS_PLAN_CAP ?? 1_500);
// Rows a virtualised list keeps in the page, at most (the view and its overscan).
const LIST_ROWS_CAP = 120;

/** Scrolls the virtualised list `scroll` to its end with the keyboard (the container is focusable,
 * End scrolls it) and checks its last row is rendered while the page holds a bounded number of
 * its rows. */
async function scrollsToTheEnd(page, scroll, table, what) {
  const rowcount = Number(await page.getAttribute(table, 'aria-rowcount'));
  assert.ok(rowcount > 1, `${what}: aria-rowcount ${rowcount}`);
  await page.focus(scroll);
  await page.keyboard.press('End');
  await page.waitForFunction(([t, n]) => document.querySelector(`${t} tbody tr[aria-rowindex="${n}"]`), [table, rowcount],
    { timeout: 10_000 }).catch(() => assert.fail(`${what}: the last row (${rowcount}) never rendered`));
  const rendered = await page.locator(`${table} tbody tr[aria-rowindex]`).count();
  assert.ok(rendered <= LIST_ROWS_CAP, `${what}: ${rendered} rows in the page for ${rowcount - 1}`);
  await page.keyboard.press('Home');
  await page.waitForFunction((t) => document.querySelector(`${t} tbody tr[aria-rowindex="2"]`), table, { timeout: 10_000 });
  return { rowcount, rendered };
}

const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'static', 'demo-snapshot.json'), 'utf8'));

/** The demo with its tenants' namespaces copied `copies` times (`acme` → `acme-c1`, …). */
function enlarged(copies) {
  const s = structuredClone(demo);
  const tenantNs = Object.keys(demo.namespaces).filter((ns) => !ns.startsWith('pulsar/'));
  const rename = (name, k) => `${name.split('/')[0]}-c${k}/${name.split('/').slice(1).join('/')}`;
  const ours = (bundle) => tenantNs.some((ns) => bundle.startsWith(`${ns}/`));
  for (let k = 1; k <= copies; k++) {
    for (const ns of tenantNs) s.namespaces[rename(ns, k)] = demo.namespaces[ns];
    for (const [b, d] of Object.entries(demo.bundle_data)) {
      if (ours(b)) s.bundle_data[rename(b, k)] = d;
    }
    for (const [id, broker] of Object.entries(demo.brokers)) {
      const mine = s.brokers[id].local_broker_data;
      const theirs = broker.local_broker_data;
      for (const b of theirs.bundles) if (ours(b)) mine.bundles.push(rename(b, k));
      for (const [b, st] of Object.entries(theirs.lastStats ?? {})) {
        if (ours(b)) mine.lastStats[rename(b, k)] = st;
      }
    }
  }
  for (const broker of Object.values(s.brokers)) {
    broker.local_broker_data.numBundles = broker.local_broker_data.bundles.length;
  }
  return s;
}

/** A page of a new context that records every long task in `window.__longTasks` from before its
 * own scripts run, opened at the dashboard (`?trace`: the page's own measures). */
async function tracedPage(width) {
  const context = await env.browser.newContext({ viewport: { width, height: 1000 } });
  await context.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  const rec = await recordingPage(context);
  // `?trace` turns on the page's own measures (web/src/page_trace.rs).
  await rec.page.goto(TRACE ? `${env.baseUrl}?trace` : env.baseUrl, { waitUntil: 'load' });
  return { context, rec, page: rec.page };
}

/** The first plan (in the plan worker, which holds the snapshot it imported) and one what-if edit
 * (shedding switched off), traced as `label`: every task's CPU checked against the budget; answers
 * the long tasks the page's observer saw by the wall clock. */
async function planAndEdit(page, label, mark, failMs = PAGE_CPU_FAIL_MS) {
  const cdp = TRACE ? await startTrace(page) : null;
  await page.evaluate((m) => performance.mark(`${m}-start`), mark);
  const t0 = await page.evaluate(() => performance.now());
  await page.click('[data-testid=run-plan]');
  await page.waitForSelector('[data-testid=plan]', { timeout: 120_000 * SCALE });
  await page.waitForFunction(() => !document.querySelector('[data-testid=plan-pending]'), null, { timeout: 120_000 * SCALE });
  await page.locator('[data-testid=top-loadBalancerSheddingEnabled] input[role=switch]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=operations] li').length === 1
    && !document.querySelector('[data-testid=plan-pending]'), null, { timeout: 120_000 * SCALE });
  await page.waitForTimeout(500);
  if (cdp) {
    await page.evaluate((m) => performance.mark(`${m}-edited`), mark);
    const events = await stopTrace(cdp);
    const r = longTasks(events, `${mark}-start`, `${mark}-edited`);
    console.log(report(label, r));
    for (const line of heaviest(events, `${mark}-start`, `${mark}-edited`)) console.log(`${label}, heaviest: ${line}`);
    assertComputesUnderBudget(label, r, failMs);
  }
  const tasks = await page.evaluate((t) => window.__longTasks.filter((e) => e.start >= t), t0);
  console.log(`${label}: ${tasks.length} long task(s) by the wall clock: ${JSON.stringify(tasks.map((e) => Math.round(e.duration)))}`);
  assert.match(await page.textContent('[data-testid=operations] li'), /loadBalancerSheddingEnabled.*false/);
  return tasks;
}

let env;
before(async () => {
  env = await start();
});
after(async () => {
  await env?.close();
});

test(`a ~${COPIES * 124}-bundle upload is imported in the worker without a long task on the page`, { timeout: 240_000 * SCALE }, async () => {
  const snapshot = enlarged(COPIES);
  const bundles = Object.keys(snapshot.bundle_data).length;
  const text = JSON.stringify(snapshot);
  assert.ok(bundles > COPIES * 123, `${bundles} bundles`);
  const { context, rec, page } = await tracedPage(1400);
  await page.waitForFunction((n) => document.querySelector('[data-testid=broker-count]')?.textContent === String(n),
    Object.keys(demo.brokers).length, { timeout: 30_000 });

  // A file on disk, as a user picks it: a buffer would be decoded into a File on the page's thread
  // by the test harness itself (a ~10 s task at this size).
  const file = path.join(ARTIFACTS, 'large.json');
  fs.writeFileSync(file, text);
  const cdp = TRACE ? await startTrace(page) : null;
  await page.evaluate(() => performance.mark('large-import-start'));
  const t0 = await page.evaluate(() => performance.now());
  await page.setInputFiles('[data-testid=snapshot-input]', file);
  await page.waitForFunction((n) => document.querySelector('[data-testid=bundle-count]')?.textContent === String(n),
    bundles, { timeout: 180_000 * SCALE })
    .catch(async (e) => assert.fail(`${e}\nbanner: ${await page.textContent('[data-testid=error-banner]').catch(() => '')}\n${rec.diagnostics()}`));
  // Long-task entries are delivered after their task: give the observer a moment.
  await page.waitForTimeout(500);
  const t1 = await page.evaluate(() => performance.now());
  if (cdp) {
    await page.evaluate(() => performance.mark('large-import-shown'));
    const events = await stopTrace(cdp);
    const r = longTasks(events, 'large-import-start', 'large-import-shown');
    console.log(report('import → show', r));
    // The tasks that computed most, long or not (the loaded page's first frame is one of them).
    for (const line of heaviest(events, 'large-import-start', 'large-import-shown')) console.log(`import → show, heaviest: ${line}`);
    assertComputesUnderBudget('import → show', r);
  }
  const tasks = await page.evaluate((t) => window.__longTasks.filter((e) => e.start >= t), t0);
  const longest = Math.max(0, ...tasks.map((e) => e.duration));
  console.log(`import + show of ${bundles} bundles (${(text.length / 1048576).toFixed(1)} MiB): ${(t1 - t0 - 500).toFixed(0)} ms;`
    + ` ${tasks.length} long task(s), longest ${longest.toFixed(0)} ms: ${JSON.stringify(tasks.map((e) => Math.round(e.duration)))}`);
  assert.equal(await page.textContent('[data-testid=broker-count]'), String(Object.keys(demo.brokers).length));
  // The loaded page's size: long lists are virtualised, so the DOM does not grow with the cluster.
  const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
  console.log(`the loaded page holds ${elements} elements`);
  assert.ok(elements <= DOM_ELEMENTS_CAP, `${elements} elements in the loaded page > ${DOM_ELEMENTS_CAP}`);
  // Thousands of namespaces: the list scrolls to its last one and keeps a few dozen rows.
  const ns = await scrollsToTheEnd(page, '[data-testid=namespace-scroll]', '[data-testid=namespace-table]', 'namespaces');
  assert.ok(ns.rowcount > COPIES * 4, `${ns.rowcount - 1} namespace rows`);
  assert.ok(longest <= LONG_TASK_BOUND_MS, `longest page task ${longest} ms > ${LONG_TASK_BOUND_MS} ms`);
  await screenshotOf(page, '[data-testid=loader]', 'large-import.png');

  // Thousands of tenants: the map's tenant filter is a text field, not a <select> of thousands of
  // options (web/src/components/tenant_filter.rs); a tenant typed in filters the map.
  const tenantFilter = '[data-testid=map-tenant]';
  assert.equal(await page.locator(tenantFilter).evaluate((e) => e.tagName), 'INPUT');
  await page.fill(tenantFilter, 'acme-c7');
  await page.press(tenantFilter, 'Enter');
  await page.waitForFunction(() => /^2 namespaces/.test(document.querySelector('[data-testid=map-count]')?.textContent ?? ''),
    null, { timeout: 30_000 });
  await screenshotOf(page, '.map-panel', 'large-map-tenant.png');
  await page.fill(tenantFilter, '');
  await page.press(tenantFilter, 'Enter');
  await page.waitForFunction(() => !/^2 namespaces/.test(document.querySelector('[data-testid=map-count]')?.textContent ?? ''),
    null, { timeout: 30_000 });
  await screenshotOf(page, '.map-panel', 'large-map.png');

  // The first plan and one what-if edit: the page only sends the request and renders the answer.
  const planTasks = await planAndEdit(page, 'first plan → what-if edit', 'large-plan');
  const planLongest = Math.max(0, ...planTasks.map((e) => e.duration));
  assert.ok(planLongest <= LONG_TASK_BOUND_MS, `longest page task of the plan and edit ${planLongest} ms > ${LONG_TASK_BOUND_MS} ms`);
  await screenshotOf(page, '[data-testid=plan]', 'large-plan-edit.png');
  // Shedding on again (after the timed part): the plan at this scale with its moves, for the eye.
  await page.locator('[data-testid=top-loadBalancerSheddingEnabled] input[role=switch]').click();
  await page.waitForTimeout(300);
  await page.waitForFunction(() => !document.querySelector('[data-testid=plan-pending]'), null, { timeout: 120_000 * SCALE });
  await screenshotOf(page, '[data-testid=plan]', 'large-plan.png');
  // At this size the plan worker's plans leave every decision's detail out (`explain: summary`):
  // the first move's placement pipeline is asked of the worker when its disclosure is opened. The
  // strategy chose the broker the move goes to, and the first step (no isolation policies) left
  // every live broker.
  if (await page.locator('[data-testid=plan-detail]').count() > 0) {
    const heading = await page.textContent('[data-testid=plan-detail] h4');
    const to = heading.match(/ → (\S+)/)?.[1];
    assert.ok(to, `a destination in "${heading}"`);
    await page.click('[data-testid=plan-detail] [data-testid=plan-pipeline] summary');
    await page.waitForSelector('[data-testid=plan-detail] [data-testid=plan-pipeline-stage]', { timeout: 60_000 * SCALE });
    assert.ok((await page.textContent('[data-testid=plan-pipeline-strategy]')).includes(` chose ${to}`));
    const first = page.locator('[data-testid=plan-pipeline-stage][data-stage=after_namespace_policies] td').first();
    assert.equal(await first.textContent(), String(Object.keys(demo.brokers).length));
  }
  // The plan's lists at this size: each scrolls to its last row with a bounded number in the page.
  for (const [scroll, table, what] of [['plan-moves-scroll', 'plan-moves', 'moves'], ['plan-splits-scroll', 'plan-splits', 'splits']]) {
    if (await page.locator(`[data-testid=${table}]`).count() === 0) continue;
    const r = await scrollsToTheEnd(page, `[data-testid=${scroll}]`, `[data-testid=${table}]`, what);
    console.log(`plan ${what}: ${r.rowcount - 1} rows, ${r.rendered} in the page at the end`);
  }
  const planElements = await page.evaluate(() => document.getElementsByTagName('*').length);
  console.log(`the page with its plan holds ${planElements} elements`);
  assert.ok(planElements <= DOM_ELEMENTS_PLAN_CAP, `${planElements} elements with the plan > ${DOM_ELEMENTS_PLAN_CAP}`);

  // Kept across a reload: the files in IndexedDB, imported again in the worker.
  await page.waitForFunction(() => /IndexedDB: the uploaded files/.test(document.querySelector('[data-testid=storage-note]')?.textContent ?? ''),
    null, { timeout: 60_000 * SCALE });
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction((n) => document.querySelector('[data-testid=bundle-count]')?.textContent === String(n),
    bundles, { timeout: 180_000 * SCALE });
  assert.match(await page.textContent('[data-testid=storage-note]'), /Restored from this browser/);
  assert.equal(await page.textContent('[data-testid=snapshot-source]'), 'large.json');
  rec.assertClean();
  await context.close();
  // The file is 122 MiB at LBPLAN_LARGE_COPIES=1625, on a disk shared with builds: not left behind
  // (the reload above read the copy kept in IndexedDB, not this file).
  fs.rmSync(file, { force: true });
});

// The same budget at the size of a real cluster: 1,000 brokers with Kubernetes-style ids
// and 200,000 bundles (`lbplan generate --spec large`, core's synthetic cluster: 1,000 namespaces
// of 199 bundles and one heartbeat bundle per broker, 188 MB). Many brokers stress other parts of
// the page than many bundles on 12 brokers: the Brokers table, the broker names and the plan's
// placement over 1,000 candidates.
const LARGE_BROKERS = 1_000;
const LARGE_BROKER_BUNDLES = 200_000;
// Both windows are held to the budget, as in the 12-broker case.

test(`${LARGE_BROKERS} brokers / ${LARGE_BROKER_BUNDLES} bundles: upload, show, first plan and a what-if edit, each page task's CPU measured`,
  { timeout: 240_000 * SCALE }, async () => {
    const file = path.join(ARTIFACTS, 'large-1000-brokers.json');
    lbplan(['generate', '--spec', 'large', '--broker-domain', 'pulsar-broker.pulsar-prod', '-o', file]);
    const { context, rec, page } = await tracedPage(1440);
    try {
      await page.waitForFunction((n) => document.querySelector('[data-testid=broker-count]')?.textContent === String(n),
        Object.keys(demo.brokers).length, { timeout: 30_000 });

      const cdp = TRACE ? await startTrace(page) : null;
      await page.evaluate(() => performance.mark('brokers-import-start'));
      const t0 = await page.evaluate(() => performance.now());
      await page.setInputFiles('[data-testid=snapshot-input]', file);
      await page.waitForFunction(([b, n]) => document.querySelector('[data-testid=broker-count]')?.textContent === String(b)
        && document.querySelector('[data-testid=bundle-count]')?.textContent === String(n), [LARGE_BROKERS, LARGE_BROKER_BUNDLES],
      { timeout: 180_000 * SCALE })
        .catch(async (e) => assert.fail(`${e}\nbanner: ${await page.textContent('[data-testid=error-banner]').catch(() => '')}\n${rec.diagnostics()}`));
      await page.waitForTimeout(500);
      if (cdp) {
        await page.evaluate(() => performance.mark('brokers-import-shown'));
        const events = await stopTrace(cdp);
        const r = longTasks(events, 'brokers-import-start', 'brokers-import-shown');
        console.log(report(`${LARGE_BROKERS} brokers: import → show`, r));
        for (const line of heaviest(events, 'brokers-import-start', 'brokers-import-shown')) {
          console.log(`${LARGE_BROKERS} brokers: import → show, heaviest: ${line}`);
        }
        assertComputesUnderBudget(`${LARGE_BROKERS} brokers: import → show`, r);
      }
      const shown = await page.evaluate((t) => window.__longTasks.filter((e) => e.start >= t), t0);
      console.log(`${LARGE_BROKERS} brokers: import + show, ${shown.length} long task(s) by the wall clock: ${JSON.stringify(shown.map((e) => Math.round(e.duration)))}`);
      // The Brokers table names each broker by its display name (the shared domain dropped).
      const firstRow = await page.locator('[data-testid=broker-row] th').first().textContent();
      assert.match(firstRow, /^broker-\d{3}$/);
      assert.ok(!firstRow.includes('pulsar-broker.pulsar-prod'), firstRow);
      await screenshotOf(page, '[data-testid=loader]', 'large-1000-brokers.png');

      await planAndEdit(page, `${LARGE_BROKERS} brokers: first plan → what-if edit`, 'brokers-plan');
      // What the edit changes against the baseline names brokers short, each full id on hover.
      const diffLines = await page.locator('[data-testid=plan-diff] li').allTextContents();
      assert.ok(diffLines.some((l) => /^- \S+ broker-\d{3} → broker-\d{3}$/.test(l)), diffLines.slice(0, 5).join('\n'));
      assert.ok(diffLines.every((l) => !l.includes('pulsar-broker.pulsar-prod')), diffLines.slice(0, 5).join('\n'));
      assert.match(await page.locator('[data-testid=plan-diff] li .broker-name').first().getAttribute('title'),
        /^broker-\d{3}\.pulsar-broker\.pulsar-prod\.svc:8080$/);
      await screenshotOf(page, '[data-testid=plan]', 'large-1000-brokers-plan-edit.png');
      rec.assertClean();
    } finally {
      await context.close();
      fs.rmSync(file, { force: true });
    }
  });
